#!/bin/bash
# rdma link add creates a soft-RoCE device on dummy0: sysfs, the uverbs node and `rdma link show`.
# lab-rxe: none
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"

[ ! -e /sys/class/infiniband/rxe0 ] || fail "rxe0 exists before rdma link add"
assert rdma link add rxe0 type rxe netdev dummy0
wait_for -m "/sys/class/infiniband/rxe0" test -d /sys/class/infiniband/rxe0
wait_for -m "/dev/infiniband/uverbs0" test -c /dev/infiniband/uverbs0
assert_eq "$(cat /sys/class/infiniband_verbs/uverbs0/ibdev)" rxe0 "uverbs0's ibdev"
assert_eq "$(cat /sys/class/infiniband/rxe0/parent)" dummy0 "rxe0's parent netdev"
assert_eq "$(cat /sys/class/infiniband/rxe0/node_type)" "1: CA" "node_type"
wait_for -m "port 1 ACTIVE" grep -qx "4: ACTIVE" /sys/class/infiniband/rxe0/ports/1/state
assert_eq "$(cat /sys/class/infiniband/rxe0/ports/1/link_layer)" Ethernet "link_layer"
wait_for -m "GID 1 = IPv4 GID of $LAB_ADDR" \
	grep -qx "$(ipv4_gid "$LAB_ADDR")" /sys/class/infiniband/rxe0/ports/1/gids/1

rdma link show | tee "$OUT/link.txt"
grep -q '^link rxe0/1 state ACTIVE physical_state LINK_UP netdev dummy0' "$OUT/link.txt" ||
	fail "rdma link show does not list rxe0/1 ACTIVE on dummy0"
rdma -j link show >"$OUT/link.json"
expect_json "$OUT/link.json" \
	--match '{"ifname": "rxe0", "port": 1, "state": "ACTIVE", "physical_state": "LINK_UP",
		"netdev": "dummy0"}' \
	--count 1
rdma -j dev show >"$OUT/dev.json"
expect_json "$OUT/dev.json" --match '{"ifname": "rxe0", "node_type": "ca"}' --count 1

rxe_down rxe0
[ ! -e /dev/infiniband/uverbs0 ] || fail "/dev/infiniband/uverbs0 is still there after the delete"
