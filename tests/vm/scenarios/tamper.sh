#!/bin/bash
# Self-protection (issue 10) on the Debian 6.1 kernel with every sensor flavour it allows
# (--sensor auto: fentry, LSM, kprobe links besides the tracepoints): tests/fault/test_tamper.py,
# as on the build machines. Each tampering (bpftool on the maps and links, tc on the RoCE
# filters, SIGTERM from a plain process) raises exactly one AGENT-004 naming the process; a clean
# run none. The daemon's files are kept in $OUT.
# lab-rxe: none
# lab-timeout: 300
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"

[ -x "$RG" ] || fail "no agent at $RG: build first"
modprobe veth || fail "no veth module"
# The daemon's socket cannot live on the 9p share: its files go to $TMPDIR, then to $OUT.
dir=$TMPDIR/tamper
mkdir -p "$dir"
rc=0
# The by-hand stop (no INVOCATION_ID) is the same code on every kernel: checked on the host.
RG_RDMAGUARD=$RG RG_SOURCE_ROOT=$RG_SRC RG_TAMPER_SENSOR=auto RG_TAMPER_DIR=$dir \
	RG_TAMPER_BY_HAND=0 /usr/bin/python3 "$RG_SRC/tests/fault/test_tamper.py" || rc=$?
cp -r "$dir"/*.jsonl "$dir"/*.log "$dir/by-hand" "$OUT/" 2>/dev/null || true
exit $rc
