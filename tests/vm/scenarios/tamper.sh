#!/bin/bash
# lab-part: 2 (tests/vm/meson.build: the two halves of the pc lab boot side by side)
# Self-protection (issue 10) on the Debian 6.1 kernel with the sensor flavours the build machines
# cannot load: tests/integration/fault/test_tamper.py as on the build machines, once with
# --sensor auto (fentry, LSM and fexit links besides the tracepoints; the bpf() calls seen by fexit
# on the syscall) and once with --sensor kprobe (kretprobe on the syscall). Each tampering (bpftool
# on the maps and links, tc on the RoCE filters, SIGTERM from a plain process) raises exactly one
# AGENT-004 naming the process; a clean run none. The daemons' files are kept in $OUT/MODE.
# lab-rxe: none
# lab-timeout: 500
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"

[ -x "$RG" ] || fail "no agent at $RG: build first"
modprobe veth || fail "no veth module"
rc=0
for mode in auto kprobe; do
	# The daemon's socket cannot live on the 9p share: its files go to $TMPDIR, then to $OUT.
	dir=$TMPDIR/tamper-$mode
	mkdir -p "$dir" "$OUT/$mode"
	echo "# --sensor $mode"
	# The by-hand stop (no INVOCATION_ID) is the same code on every kernel: checked on the host.
	RG_RDMAGUARD=$RG RG_SOURCE_ROOT=$RG_SRC RG_TAMPER_SENSOR=$mode RG_TAMPER_DIR=$dir \
		RG_TAMPER_BY_HAND=0 /usr/bin/python3 "$RG_SRC/tests/integration/fault/test_tamper.py" || rc=1
	cp -r "$dir"/*.jsonl "$dir"/*.log "$OUT/$mode/" 2>/dev/null || true
done
exit $rc
