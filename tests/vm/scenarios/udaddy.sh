#!/bin/bash
# udaddy: UD messages over rdma_cm (port space UDP) between a server bound to the lab address and
# a client.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"


bg server udaddy -b "$LAB_ADDR"
spid=$(bg_pid server)
wait_for -m "udaddy's listening cm_id" cm_id_listening "$OUT/cm_id.json" "$spid"
expect_json "$OUT/cm_id.json" --match "{\"ifname\": \"rxe0\", \"pid\": $spid, \"comm\": \"udaddy\",
	\"state\": \"LISTEN\", \"ps\": \"UDP\", \"src-addr\": \"$LAB_ADDR:7174\"}" --count 1
bg client udaddy -s "$LAB_ADDR"
bg_wait client
bg_wait server
for peer in server client; do
	grep -q "^test complete" "$OUT/$peer.log" || fail "$peer: no 'test complete'"
	grep -q "^return status 0" "$OUT/$peer.log" || fail "$peer: no 'return status 0'"
done
