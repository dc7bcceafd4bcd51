#!/bin/bash
# Harness self-test: nothing of the earlier scenarios is left, and the default rxe0 is there.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"

for p in "sleep 1001" "sleep 1002" "sleep 1003" ibv_rc_pingpong; do
	! pgrep -f "^$p" >/dev/null || fail "a '$p' process survived its scenario"
done
[ ! -e /sys/class/infiniband/rxe1 ] || fail "rxe1 survived its scenario"
! ip link show dummy1 >/dev/null 2>&1 || fail "dummy1 survived its scenario"
assert_eq "$(ls /sys/class/infiniband)" rxe0 "RDMA devices"
[ -z "$(ls /sys/fs/bpf)" ] || fail "pins left in /sys/fs/bpf"
echo "leftovers: none"
