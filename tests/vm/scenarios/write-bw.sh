#!/bin/bash
# ib_write_bw for 4 s; while the pair is connected, the kernel's tables show both RC QPs pointing
# at each other and both MRs, with the right pid and comm.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"

bg server ib_write_bw -d rxe0 -x 1 -D 4
spid=$(bg_pid server)
wait_for -m "server on TCP 18515" listening 18515
bg client ib_write_bw -d rxe0 -x 1 -D 4 127.0.0.1
cpid=$(bg_pid client)
wait_for -m "the pair's QPs connected" rc_pair_connected "$OUT/qp.json" "$spid" "$cpid"
rdma -j -d resource show mr >"$OUT/mr.json"
rdma -j resource show pd >"$OUT/pd.json"
rdma -j resource show >"$OUT/res.json"
# The write target (server) stops at RTR; the writer is RTS.
expect_json "$OUT/qp.json" \
	--match "{\"pid\": $spid, \"comm\": \"ib_write_bw\", \"type\": \"RC\", \"state\": \"RTR\"}" --count 1 \
	--match "{\"pid\": $cpid, \"comm\": \"ib_write_bw\", \"type\": \"RC\", \"state\": \"RTS\"}" --count 1
# perftest registers one MR per side over its two 64 KiB buffers, with remote access (rkey = lkey).
for pid in "$spid" "$cpid"; do
	rkey=$(expect_json -q "$OUT/mr.json" --match "{\"ifname\": \"rxe0\", \"pid\": $pid,
		\"comm\": \"ib_write_bw\", \"mrlen\": 131072}" --count 1 --get rkey)
	expect_json "$OUT/mr.json" --match "{\"pid\": $pid, \"lkey\": \"$rkey\", \"rkey\": {\"!=\": \"0\"}}" --count 1
	expect_json "$OUT/pd.json" --match "{\"pid\": $pid, \"comm\": \"ib_write_bw\"}" --count 1
done
expect_json "$OUT/res.json" --match '{"ifname": "rxe0", "qp": {">=": 3}, "mr": {">=": 2}}' --count 1

bg_wait server
bg_wait client
# " 65536      1040             0.00               32.47  		   0.000520"
for peer in server client; do
	awk '$1 == 65536 && $2 > 0 && $4 > 0 { ok = 1 } END { exit !ok }' "$OUT/$peer.log" ||
		fail "$peer printed no bandwidth line for 64 KiB messages"
done
