#!/bin/bash
# ib_read_lat for 4 s (RDMA READs of 2 bytes); while connected, both QPs point at each other and
# both MRs have a remote key.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"

bg server ib_read_lat -d rxe0 -x 1 -D 4
spid=$(bg_pid server)
wait_for -m "server on TCP 18515" listening 18515
bg client ib_read_lat -d rxe0 -x 1 -D 4 127.0.0.1
cpid=$(bg_pid client)
wait_for -m "the pair's QPs connected" rc_pair_connected "$OUT/qp.json" "$spid" "$cpid"
rdma -j -d resource show mr >"$OUT/mr.json"
# Both sides issue READs: both RTS. Each registers 2 pages with remote read access.
for pid in "$spid" "$cpid"; do
	expect_json "$OUT/qp.json" \
		--match "{\"pid\": $pid, \"comm\": \"ib_read_lat\", \"type\": \"RC\", \"state\": \"RTS\"}" --count 1
	rkey=$(expect_json -q "$OUT/mr.json" --match "{\"ifname\": \"rxe0\", \"pid\": $pid,
		\"comm\": \"ib_read_lat\", \"mrlen\": 8192}" --count 1 --get rkey)
	expect_json "$OUT/mr.json" --match "{\"pid\": $pid, \"lkey\": \"$rkey\", \"rkey\": {\"!=\": \"0\"}}" --count 1
done
bg_wait server
bg_wait client
# " #bytes        #iterations       t_avg[usec]    tps average"
# " 2             14210            140.87         7098.80"
awk '$1 == 2 && $2 > 0 && $3 > 0 { ok = 1 } END { exit !ok }' "$OUT/client.log" ||
	fail "the client printed no latency line for 2-byte READs"
