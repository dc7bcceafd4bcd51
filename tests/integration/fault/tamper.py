#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Tampering with a running rdmaguard daemon, as another root process would: the driver of the
self-protection tests (issue 10: "alert when the agent's BPF programs or maps are detached or
modified by another process, or when the agent is stopped outside systemd").

  tamper.py objects PID              the daemon's BPF programs, maps and links (from the fds in
                                     /proc/PID/fd and their fdinfo, then bpftool), as JSON
  tamper.py clear-map PID NAME       deletes every entry of the daemon's map NAME (rdma_fds:
                                     the agent forgets which fds are RDMA devices; Falco #2915)
  tamper.py zero-map PID NAME        writes zeros over every entry of an array map (counters:
                                     hides ring buffer losses)
  tamper.py detach-links PID         tries BPF_LINK_DETACH on each link; prints which the kernel
                                     refused (perf_event and raw_tracepoint links: EOPNOTSUPP)
  tamper.py tc-detach IFACE          removes the TC filters of IFACE (the RoCE counters of
                                     --roce-if)
  tamper.py signal PID SIG           SIGTERM, SIGSTOP, ... from a process that is not systemd

Each prints what it did as JSON on stdout; exit 0 when it did it, 1 when the kernel refused,
2 for bad usage. Root; uses bpftool and tc (tests may run programs; the agent never does).
"""
import json
import os
import signal
import subprocess
import sys


def bpftool(*args, check=True):
    p = subprocess.run(["bpftool", "--json"] + list(args), capture_output=True, text=True)
    if check and p.returncode != 0:
        raise RuntimeError("bpftool %s: %s" % (" ".join(args), p.stderr.strip()))
    return json.loads(p.stdout) if p.stdout.strip() else None


def objects(pid):
    out = {"progs": [], "maps": [], "links": []}
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                info = dict(l.split(":", 1) for l in f.read().splitlines() if ":" in l)
        except OSError:
            continue
        info = {k.strip(): v.strip() for k, v in info.items()}
        if target == "anon_inode:bpf-map" and "map_id" in info:
            m = bpftool("map", "show", "id", info["map_id"])
            out["maps"].append({"id": m["id"], "name": m.get("name", ""), "type": m["type"]})
        elif target == "anon_inode:bpf-prog" and "prog_id" in info:
            p = bpftool("prog", "show", "id", info["prog_id"])
            out["progs"].append({"id": p["id"], "name": p.get("name", ""), "type": p["type"]})
        elif target == "anon_inode:bpf_link" and "link_id" in info:
            out["links"].append({"id": int(info["link_id"]), "type": info.get("link_type", ""),
                                 "prog_id": int(info.get("prog_id", 0))})
    return out


def find_map(pid, name):
    for m in objects(pid)["maps"]:
        if m["name"] == name:
            return m
    raise RuntimeError("pid %d has no map named %s" % (pid, name))


def hexbytes(values):
    return [("0x%02x" % int(v, 16)) if isinstance(v, str) else "0x%02x" % v for v in values]


def clear_map(pid, name):
    m = find_map(pid, name)
    n = 0
    for e in bpftool("map", "dump", "id", str(m["id"])) or []:
        if bpftool("map", "delete", "id", str(m["id"]), "key", *hexbytes(e["key"]),
                   check=False) is None:
            n += 1
    return {"map": m, "deleted": n}


def zero_map(pid, name):
    m = find_map(pid, name)
    n = 0
    for e in bpftool("map", "dump", "id", str(m["id"])) or []:
        if "values" in e:  # per-CPU: bpftool writes the one value to every CPU
            size = len(e["values"][0]["value"])
        else:
            size = len(e["value"])
        subprocess.run(["bpftool", "map", "update", "id", str(m["id"]), "key",
                        *hexbytes(e["key"]), "value", *(["0"] * size)], check=True,
                       capture_output=True)
        n += 1
    return {"map": m, "zeroed": n}


def detach_links(pid):
    done, refused = [], []
    for link in objects(pid)["links"]:
        p = subprocess.run(["bpftool", "link", "detach", "id", str(link["id"])],
                           capture_output=True, text=True)
        (done if p.returncode == 0 else refused).append(dict(link, error=p.stderr.strip()))
    return {"detached": done, "refused": refused}


def main():
    a = sys.argv[1:]
    try:
        if len(a) == 2 and a[0] == "objects":
            r = objects(int(a[1]))
        elif len(a) == 3 and a[0] == "clear-map":
            r = clear_map(int(a[1]), a[2])
        elif len(a) == 3 and a[0] == "zero-map":
            r = zero_map(int(a[1]), a[2])
        elif len(a) == 2 and a[0] == "detach-links":
            r = detach_links(int(a[1]))
        elif len(a) == 2 and a[0] == "tc-detach":
            for d in ("ingress", "egress"):
                subprocess.run(["tc", "filter", "del", "dev", a[1], d], check=False,
                               capture_output=True)
            r = {"iface": a[1], "filters": "deleted"}
        elif len(a) == 3 and a[0] == "signal":
            os.kill(int(a[1]), getattr(signal, a[2]))
            r = {"pid": int(a[1]), "signal": a[2], "sender": os.getpid()}
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (RuntimeError, subprocess.CalledProcessError) as e:
        print(json.dumps({"error": str(e)}))
        return 1
    print(json.dumps(r))
    return 1 if isinstance(r, dict) and r.get("refused") and not r.get("detached") else 0


if __name__ == "__main__":
    sys.exit(main())
