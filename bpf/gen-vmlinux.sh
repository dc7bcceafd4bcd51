#!/bin/sh
# gen-vmlinux.sh BPFTOOL VENDORED OUT: vmlinux.h from the running kernel's BTF when there is one,
# else the vendored copy. CO-RE relocates field offsets at load time either way.
set -eu
bpftool=$1 vendored=$2 out=$3
if [ -r /sys/kernel/btf/vmlinux ] && "$bpftool" btf dump file /sys/kernel/btf/vmlinux format c >"$out.tmp" 2>/dev/null; then
	mv "$out.tmp" "$out"
else
	rm -f "$out.tmp"
	cp "$vendored" "$out"
fi
