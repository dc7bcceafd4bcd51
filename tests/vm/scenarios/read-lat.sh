#!/bin/bash
# ib_read_lat, 2 s of 2-byte RDMA READs. While the pair is still connected (held after its test
# and frozen: perftest_pair), both QPs are RTS and point at each other, and both MRs have a
# remote key.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"

perftest_pair server client ib_read_lat -d rxe0 -x 1 -F -D 2
spid=$(bg_pid server)
cpid=$(bg_pid client)
rdma -j -d resource show mr >"$OUT/mr.json"
# Both sides issue READs: both RTS. Each registers 2 pages with remote read access.
for pid in "$spid" "$cpid"; do
	expect_json "$OUT/qp.json" \
		--match "{\"pid\": $pid, \"comm\": \"ib_read_lat\", \"type\": \"RC\",
			\"state\": \"RTS\"}" --count 1
	rkey=$(expect_json -q "$OUT/mr.json" --match "{\"ifname\": \"rxe0\", \"pid\": $pid,
		\"comm\": \"ib_read_lat\", \"mrlen\": 8192}" --count 1 --get rkey)
	expect_json "$OUT/mr.json" \
		--match "{\"pid\": $pid, \"lkey\": \"$rkey\", \"rkey\": {\"!=\": \"0\"}}" --count 1
done
perftest_pair_end server client
# " #bytes        #iterations       t_avg[usec]    tps average"
# " 2             14210            140.87         7098.80"
awk '$1 == 2 && $2 > 0 { ok = 1 } END { exit !ok }' "$OUT/client.log" ||
	fail "the client printed no result line for 2-byte READs"
