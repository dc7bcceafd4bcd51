#!/bin/bash
# lab-part: 2 (tests/vm/meson.build: the two halves of the pc lab boot side by side)
# RDMA netlink fixtures: with an ib_write_bw pair connected on rxe0 (idle after its test and
# frozen with SIGSTOP, so that the tables hold still) and an rping server listening, capture the
# kernel's NLDEV replies and iproute2's JSON view into $OUT/netlink (tests/vm/update-fixtures.sh
# copies them to tests/fixtures/netlink), then check that decoding the captures gives iproute2's
# view exactly.
# lab-timeout: 300
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"

bg rping_server rping -s -a "$LAB_ADDR" -C 1
rpid=$(bg_pid rping_server)
wait_for -m "rping's listening cm_id" cm_id_listening "$OUT/cm_id.json" "$rpid"

perftest_pair bw_server bw_client ib_write_bw -d rxe0 -x 1 -F -D 2
spid=$(bg_pid bw_server)
cpid=$(bg_pid bw_client)
/usr/bin/python3 "$RG_SRC/tests/vm/nldev.py" capture "$OUT/netlink" \
	--peer "ib_write_bw server=$spid" --peer "ib_write_bw client=$cpid" \
	--peer "rping server=$rpid"
perftest_pair_end bw_server bw_client
bg rping_client rping -c -a "$LAB_ADDR" -C 1
bg_wait rping_client
bg_wait rping_server

d=$OUT/netlink
/usr/bin/python3 "$RG_SRC/tests/vm/nldev.py" check "$d"
expect_json "$d/qp.json" \
	--match "{\"pid\": $spid, \"comm\": \"ib_write_bw\", \"type\": \"RC\", \"state\": \"RTR\"}" \
	--count 1 \
	--match "{\"pid\": $cpid, \"comm\": \"ib_write_bw\", \"type\": \"RC\", \"state\": \"RTS\"}" \
	--count 1 \
	--match '{"comm": "ib_core", "type": "GSI"}' --count 1
expect_json "$d/mr.json" --match "{\"pid\": $spid, \"mrlen\": 131072}" --count 1 \
	--match "{\"pid\": $cpid, \"mrlen\": 131072}" --count 1
expect_json "$d/cm_id.json" \
	--match "{\"pid\": $rpid, \"comm\": \"rping\", \"state\": \"LISTEN\"}" --count 1
expect_json "$d/dev.json" --match '{"ifname": "rxe0", "node_type": "ca"}' --count 1
idx=$(expect_json -q "$d/dev.json" --match '{"ifname": "rxe0"}' --count 1 --get ifindex)
expect_json "$d/meta.json" --records requests \
	--match '{"file": "get.bin", "nlmsg_type": 5121, "nlmsg_flags": 769, "objects": 1,
		"error": 0}' \
	--count 1 \
	--match "{\"file\": \"res_qp_get-rxe0.bin\", \"nlmsg_type\": 5130, \"nlmsg_flags\": 773,
		\"objects\": 1, \"error\": 0, \"attrs\": {\"RDMA_NLDEV_ATTR_DEV_INDEX\": $idx}}" \
	--count 1 \
	--match '{"file": "res_qp_get.bin", "objects": 0, "error": 22}' --count 1
