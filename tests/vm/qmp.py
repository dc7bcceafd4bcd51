#!/usr/bin/python3
# The VM lab's host-side QMP relay (tests/vm/README.md, "The q35 machine"): a scenario in the guest
# cannot reach qemu's monitor, so it writes one request into the lab share
# (_lab/qmp/ID.req: {"execute": ..., "arguments": ...}) and lab.sh, which polls the share, runs
#   qmp.py SOCKET REQ REPLY
# which sends it to qemu's QMP socket and writes qemu's answer (the "return" or "error" object,
# with the events qemu sent meanwhile under "events") to REPLY. Only the hotplug commands the
# scenarios need are relayed: the guest is the system under test, not the operator.
import json
import os
import socket
import sys

ALLOWED = {"device_add", "device_del", "query-pci"}


def answer(reply, obj):
    tmp = reply + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f)
        f.write("\n")
    os.rename(tmp, reply)


def main():
    if len(sys.argv) != 4:
        print("usage: qmp.py SOCKET REQUEST REPLY", file=sys.stderr)
        return 2
    sock_path, req_path, reply = sys.argv[1:]
    try:
        with open(req_path) as f:
            req = json.load(f)
    except (OSError, ValueError) as e:
        answer(reply, {"error": {"class": "LabError", "desc": f"bad request: {e}"}})
        return 1
    if not isinstance(req, dict) or req.get("execute") not in ALLOWED:
        answer(reply, {"error": {"class": "LabError",
                                 "desc": f"not relayed (allowed: {sorted(ALLOWED)})"}})
        return 1
    events = []
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    try:
        s.connect(sock_path)
        f = s.makefile("rwb", buffering=0)

        def recv():
            while True:
                line = f.readline()
                if not line:
                    raise OSError("qemu closed the QMP socket")
                msg = json.loads(line)
                if "event" in msg:
                    events.append(msg)
                    continue
                return msg

        recv()  # the greeting
        f.write(b'{"execute": "qmp_capabilities"}\n')
        recv()
        f.write(json.dumps(req).encode() + b"\n")
        msg = recv()
    except (OSError, ValueError) as e:
        answer(reply, {"error": {"class": "LabError", "desc": f"QMP: {e}"}})
        return 1
    finally:
        s.close()
    msg["events"] = events
    answer(reply, msg)
    return 0 if "return" in msg else 1


if __name__ == "__main__":
    sys.exit(main())
