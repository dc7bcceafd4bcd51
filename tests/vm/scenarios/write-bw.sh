#!/bin/bash
# ib_write_bw, 2 s of RDMA WRITEs. While the pair is still connected (held after its test and
# frozen: perftest_pair) the kernel's tables show both RC QPs pointing at each other and both
# MRs, with the right pid and comm.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"

perftest_pair server client ib_write_bw -d rxe0 -x 1 -F -D 2
spid=$(bg_pid server)
cpid=$(bg_pid client)
rdma -j -d resource show mr >"$OUT/mr.json"
rdma -j resource show pd >"$OUT/pd.json"
rdma -j resource show >"$OUT/res.json"
# The write target (server) stops at RTR; the writer is RTS.
expect_json "$OUT/qp.json" \
	--match "{\"pid\": $spid, \"comm\": \"ib_write_bw\", \"type\": \"RC\", \"state\": \"RTR\"}" \
	--count 1 \
	--match "{\"pid\": $cpid, \"comm\": \"ib_write_bw\", \"type\": \"RC\", \"state\": \"RTS\"}" \
	--count 1
# perftest registers one MR per side over its two 64 KiB buffers, with remote access (rkey = lkey).
for pid in "$spid" "$cpid"; do
	rkey=$(expect_json -q "$OUT/mr.json" --match "{\"ifname\": \"rxe0\", \"pid\": $pid,
		\"comm\": \"ib_write_bw\", \"mrlen\": 131072}" --count 1 --get rkey)
	expect_json "$OUT/mr.json" \
		--match "{\"pid\": $pid, \"lkey\": \"$rkey\", \"rkey\": {\"!=\": \"0\"}}" --count 1
	expect_json "$OUT/pd.json" --match "{\"pid\": $pid, \"comm\": \"ib_write_bw\"}" --count 1
done
expect_json "$OUT/res.json" --match '{"ifname": "rxe0", "qp": {">=": 3}, "mr": {">=": 2}}' --count 1

perftest_pair_end server client
# " 65536      1040             0.00               32.47  		   0.000520":
# 64 KiB messages, iterations done. (The rates themselves are noise under TCG.)
for peer in server client; do
	awk '$1 == 65536 && $2 > 0 { ok = 1 } END { exit !ok }' "$OUT/$peer.log" ||
		fail "$peer printed no result line for 64 KiB messages"
done
