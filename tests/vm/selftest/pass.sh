#!/bin/bash
# Harness self-test: the environment a scenario gets; leaves processes, an RDMA link and a netdev
# behind for leftovers.sh to find gone.
# lab-rxe: none
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"

[ "$(id -u)" = 0 ] || fail "not root"
[ -f "$RG_SRC/tests/vm/lab.sh" ] || fail "RG_SRC=$RG_SRC is not the source tree"
assert_eq "$RG" "$RG_BUILD/agent/rdmaguard" "RG"
assert_eq "$RG_LAB_SCENARIO" pass "RG_LAB_SCENARIO"
assert_eq "$(pwd)" "$OUT" "working directory"
echo written >"$OUT/file" || fail "OUT=$OUT is not writable"
[ -z "$(ls /sys/class/infiniband)" ] || fail "an RDMA device exists although lab-rxe is none"
assert_eq "$(ip -o -4 addr show dev dummy0 | awk '{ print $4 }')" "$LAB_ADDR/24" "dummy0 address"
for m in /sys/kernel/tracing /sys/fs/bpf /sys/kernel/security /sys/kernel/debug /sys/fs/cgroup; do
	mountpoint -q "$m" || fail "$m is not mounted"
done
[ -e /dev/fd/1 ] || fail "no /dev/fd"

rxe_up rxe1
ip link add dummy1 type dummy
# A daemon that leaves the scenario's session: only the cgroup finds it.
setsid sleep 1001 </dev/null >/dev/null 2>&1 &
bg sleeper sleep 1002
echo "pass: done"
