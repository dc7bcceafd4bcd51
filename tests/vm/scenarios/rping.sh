#!/bin/bash
# rping over rdma_cm: 5 pings; the server's listening cm_id is in the kernel's tables.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"


bg server rping -s -a "$LAB_ADDR" -C 5 -v
spid=$(bg_pid server)
wait_for -m "rping's listening cm_id" cm_id_listening "$OUT/cm_id.json" "$spid"
expect_json "$OUT/cm_id.json" --match "{\"ifname\": \"rxe0\", \"pid\": $spid, \"comm\": \"rping\",
	\"state\": \"LISTEN\", \"ps\": \"TCP\", \"src-addr\": \"$LAB_ADDR:7174\"}" --count 1
bg client rping -c -a "$LAB_ADDR" -C 5 -v
bg_wait client
bg_wait server
for i in 0 1 2 3 4; do
	grep -q "^ping data: rdma-ping-$i: " "$OUT/client.log" || fail "client: no ping $i"
	grep -q "^server ping data: rdma-ping-$i: " "$OUT/server.log" || fail "server: no ping $i"
done
[ "$(grep -c 'ping data: rdma-ping-' "$OUT/client.log")" = 5 ] || fail "client: not exactly 5 pings"
