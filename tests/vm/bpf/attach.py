#!/usr/bin/python3
"""Load and attach BPF objects with libbpf (ctypes, no build step), hold them until SIGTERM.

usage: attach.py OUTDIR NAME=OBJ...

For each object: bpf_object__open_file, bpf_object__load, bpf_program__attach of its first
program (libbpf's auto-attach from the section name), then the program is pinned to
/sys/fs/bpf/rg-probe-NAME so that `bpftool prog show pinned` can read its run_cnt. One JSON line
per object goes to OUTDIR/attach.jsonl ({"probe", "section", "loaded", "load_error",
"attached", "attach_error", "pinned"}; errors are errno names), then OUTDIR/ready is created and
the links are held until SIGTERM or SIGINT. libbpf's own messages go to stderr.
"""

import ctypes
import errno
import json
import os
import signal
import sys


# enum libbpf_errno (<bpf/libbpf.h>), from 4000.
LIBBPF_ERRNO = ["LIBELF", "FORMAT", "KVERSION", "ENDIAN", "INTERNAL", "RELOC", "LOAD", "VERIFY",
                "PROG2BIG", "KVER", "PROGTYPE", "WRNGPID", "INVSEQ", "NLPARSE"]


def errname(code):
    code = abs(code)
    if 4000 <= code < 4000 + len(LIBBPF_ERRNO):
        return "LIBBPF_ERRNO__" + LIBBPF_ERRNO[code - 4000]
    return errno.errorcode.get(code, str(code))


def main(argv):
    if len(argv) < 2 or any("=" not in a for a in argv[1:]):
        print(__doc__, file=sys.stderr)
        return 2
    outdir = argv[0]
    lib = ctypes.CDLL("libbpf.so.1", use_errno=True)
    vp = ctypes.c_void_p
    lib.bpf_object__open_file.restype = vp
    lib.bpf_object__open_file.argtypes = [ctypes.c_char_p, vp]
    lib.bpf_object__load.argtypes = [vp]
    lib.bpf_object__next_program.restype = vp
    lib.bpf_object__next_program.argtypes = [vp, vp]
    lib.bpf_program__section_name.restype = ctypes.c_char_p
    lib.bpf_program__section_name.argtypes = [vp]
    lib.bpf_program__attach.restype = vp
    lib.bpf_program__attach.argtypes = [vp]
    lib.bpf_program__pin.argtypes = [vp, ctypes.c_char_p]

    held = []  # objects and links stay referenced (and attached) until exit
    results = []
    for arg in argv[1:]:
        name, path = arg.split("=", 1)
        r = {"probe": name, "section": None, "loaded": False, "load_error": None,
             "attached": False, "attach_error": None}
        results.append(r)
        obj = lib.bpf_object__open_file(path.encode(), None)
        if not obj:
            r["load_error"] = errname(ctypes.get_errno())
            continue
        held.append(obj)
        prog = lib.bpf_object__next_program(obj, None)
        r["section"] = lib.bpf_program__section_name(prog).decode()
        err = lib.bpf_object__load(obj)
        if err:
            r["load_error"] = errname(err)
            continue
        r["loaded"] = True
        link = lib.bpf_program__attach(prog)
        if not link:
            r["attach_error"] = errname(ctypes.get_errno())
            continue
        held.append(link)
        r["attached"] = True
        pin = f"/sys/fs/bpf/rg-probe-{name}"
        if os.path.exists(pin):
            os.unlink(pin)
        err = lib.bpf_program__pin(prog, pin.encode())
        r["pinned"] = pin if not err else None
        if err:
            print(f"attach.py: pinning {name} to {pin} failed: {errname(err)}", file=sys.stderr)

    with open(os.path.join(outdir, "attach.jsonl"), "w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    for r in results:
        print(f"attach.py: {r['probe']} ({r['section']}): loaded={r['loaded']} "
              f"{r['load_error'] or ''} attached={r['attached']} {r['attach_error'] or ''}")
    sys.stdout.flush()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
    with open(os.path.join(outdir, "ready"), "w"):
        pass
    while True:
        signal.pause()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
