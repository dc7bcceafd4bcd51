#!/bin/bash
# Fault (issue 10): the RDMA device is removed while in use. The daemon runs; ibv_rc_pingpong
# peers hold rxe0 (contexts, PD, MR, QPs) in a long exchange; `rdma link delete rxe0` removes
# it under them. rxe cannot disassociate its users, so the kernel's unregistration waits until
# they close the device: the daemon must keep answering meanwhile, and once the peers are gone
# (killed, as an administrator would) see the removal (device_remove), lose nothing it does not
# count (the sensors' lost records are reported exactly), and stop cleanly.
# lab-timeout: 300
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"

conf=$(mktemp -d)
printf '{"role": "managed", "aggregate_window": "5s"}\n' >"$conf/policy.json"
chmod 600 "$conf/policy.json"
bg daemon "$RG" daemon --policy "$conf/policy.json" --record "$OUT/events.jsonl" \
	--output "file:$OUT/alerts.jsonl" --ready-file "$OUT/ready" \
	--status-socket "$conf/status.sock" --state-dir "$conf/state" --heartbeat 3600
wait_for -t 300 -m "rdmaguard daemon ready" test -e "$OUT/ready"

bg server ibv_rc_pingpong -d rxe0 -g 1 -n 100000000
wait_for -m "server on TCP 18515" listening 18515
bg client ibv_rc_pingpong -d rxe0 -g 1 -n 100000000 127.0.0.1
client=$(bg_pid client)
wait_for -t 120 -m "the client's QP in RTS" expect_json -q "$OUT/events.jsonl" \
	--match "{\"event.action\": \"verbs\", \"process.pid\": $client, \"rdma.op\": \"modify_qp\",
		\"rdma.qp.state\": \"rts\"}"

log "removing rxe0 while the peers use it"
bg remove rdma link delete rxe0
# The kernel waits for the device's users; the daemon must not wait with it.
sleep 3
"$RG" status --socket "$conf/status.sock" --format json >"$OUT/status-during.json" ||
	fail "the daemon does not answer while rxe0 is being removed"
if kill -0 "$(bg_pid remove)" 2>/dev/null; then
	log "the removal waits for the peers (rxe cannot disassociate them): killing them"
	assert test -e /sys/class/infiniband/rxe0
fi
kill -KILL "$client" "$(bg_pid server)" 2>/dev/null || true
bg_wait -t 120 remove || fail "rdma link delete rxe0 failed (status $?)"
assert test ! -e /sys/class/infiniband/rxe0
wait_for -t 60 -m "device_remove of rxe0 recorded" expect_json -q "$OUT/events.jsonl" \
	--match '{"event.action": "device_remove", "rdma.device": "rxe0"}'
# The peers' QPs and MRs went with them: the daemon saw them come, and saw them go.
wait_for -t 30 -m "the client's exit recorded" expect_json -q "$OUT/events.jsonl" \
	--match "{\"event.action\": \"exit\", \"process.pid\": $client}"

"$RG" status --socket "$conf/status.sock" --format json >"$OUT/status.json" ||
	fail "the daemon does not answer after the removal"
lost=$(expect_json -q "$OUT/status.json" --match '{"sensors.lost_total": {">=": 0}}' \
	--get sensors.lost_total)
kill -TERM "$(bg_pid daemon)"
bg_wait -t 120 daemon || fail "the daemon did not stop cleanly after the removal"
reported=$(/usr/bin/python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("event", {}).get("action") == "agent_lost" and e.get("agent", {}).get("what") == "ringbuf":
        n += e["agent"].get("count", 0)
print(n)' "$OUT/events.jsonl")
assert_eq "$reported" "$lost" "lost records reported by agent_lost events"
expect_json "$OUT/events.jsonl" --match '{"event.action": "agent_stop"}' --count 1
log "device removed under two peers: daemon kept running, $lost record(s) lost, all reported"
