#!/bin/bash
# ibv_ud_pingpong server and client on rxe0 (UD, GID index 1).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"

n=500
bg server ibv_ud_pingpong -d rxe0 -g 1 -n "$n"
spid=$(bg_pid server)
wait_for -m "server on TCP 18515" listening 18515
rdma -j -d resource show qp >"$OUT/qp-server.json"
rdma -j -d resource show mr >"$OUT/mr-server.json"
# Like rc_pingpong it moves the QP past INIT only after the exchange.
expect_json "$OUT/qp-server.json" --match "{\"ifname\": \"rxe0\", \"port\": 1, \"pid\": $spid,
	\"comm\": \"ibv_ud_pingpong\", \"type\": \"UD\", \"state\": \"INIT\"}" --count 1
expect_json "$OUT/mr-server.json" \
	--match "{\"pid\": $spid, \"comm\": \"ibv_ud_pingpong\", \"rkey\": \"0\"}" --count 1

bg client ibv_ud_pingpong -d rxe0 -g 1 -n "$n" 127.0.0.1
bg_wait client
bg_wait server
for peer in server client; do
	grep -q "^$n iters in " "$OUT/$peer.log" || fail "$peer did not report $n iterations"
done
