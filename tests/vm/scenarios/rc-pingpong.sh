#!/bin/bash
# ibv_rc_pingpong server and client on rxe0 (RC, GID index 1); the server's verbs objects are in
# the kernel's tables with its pid and comm before the client connects.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"

n=500
bg server ibv_rc_pingpong -d rxe0 -g 1 -n "$n"
spid=$(bg_pid server)
# It creates its PD, MR, CQ and QP (moved to INIT), then accepts on TCP 18515.
wait_for -m "server on TCP 18515" listening 18515
rdma -j -d resource show qp >"$OUT/qp-server.json"
rdma -j -d resource show mr >"$OUT/mr-server.json"
expect_json "$OUT/qp-server.json" --match "{\"ifname\": \"rxe0\", \"port\": 1, \"pid\": $spid,
	\"comm\": \"ibv_rc_pingpong\", \"type\": \"RC\", \"state\": \"INIT\"}" --count 1
# 4096-byte buffer (-s default), IBV_ACCESS_LOCAL_WRITE only: rxe gives no rkey.
expect_json "$OUT/mr-server.json" --match "{\"ifname\": \"rxe0\", \"pid\": $spid,
	\"comm\": \"ibv_rc_pingpong\", \"mrlen\": 4096, \"rkey\": \"0\"}" --count 1
sqpn=$(expect_json -q "$OUT/qp-server.json" --match "{\"pid\": $spid, \"type\": \"RC\"}" --get lqpn)

bg client ibv_rc_pingpong -d rxe0 -g 1 -n "$n" 127.0.0.1
cpid=$(bg_pid client)
bg_wait client
bg_wait server
for peer in server client; do
	grep -q "^$n iters in " "$OUT/$peer.log" || fail "$peer did not report $n iterations"
done
# The client talked to the server's QP.
grep -q "remote address: .* QPN $(printf '0x%06x' "$sqpn")," "$OUT/client.log" ||
	fail "the client's remote QPN is not the server's QP $sqpn"

rdma -j -d resource show qp >"$OUT/qp-after.json"
expect_json "$OUT/qp-after.json" --match "{\"pid\": $spid}" --absent \
	--match "{\"pid\": $cpid}" --absent
