#!/bin/bash
# The daemon starts before the RDMA stack (what a cheat does: load rdma_rxe later): verbs and
# rdma_cm wait on the syscall tracepoints, then move to fexit on ib_uverbs/rdma_ucm when the
# modules appear; the module loads and the new device are reported.
# lab-rxe: none
# lab-timeout: 900
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"

modprobe -r rdma_ucm rdma_rxe rdma_cm ib_uverbs || fail "could not unload the RDMA modules"
[ ! -e /sys/module/ib_uverbs ] || fail "ib_uverbs is still loaded"

start_daemon auto

modprobe -a rdma_rxe ib_uverbs rdma_ucm
_switched()
{
	expect_json -q "$EV" --match '{"event.action": "agent_sensor", "agent.what": "verbs",
		"agent.ok": 1, "agent.text": "~^verbs: fentry"}' --count 1 \
		--match '{"event.action": "agent_sensor", "agent.what": "rdma_cm", "agent.ok": 1,
		"agent.text": "~^rdma_cm: fentry"}' --count 1
}
wait_for -t 120 -m "the daemon to move verbs and rdma_cm to fentry" _switched
rxe_up rxe0
run_pingpong rc_server rc_client
stop_daemon

# At the start: fentry chosen, the tracepoints until ib_uverbs and rdma_ucm are there.
want '{"event.action": "agent_start", "agent.hooks": {"hooks.verbs.chosen": "fentry",
	"hooks.verbs.active": "tracepoint", "hooks.verbs.note": "fentry once ib_uverbs is loaded",
	"hooks.rdma_cm.chosen": "fentry", "hooks.rdma_cm.active": "tracepoint",
	"modules.ib_uverbs": false}}' --count 1
check_events "$ALERTS"
want '{"event.action": "agent_start", "agent.text": "~verbs=tracepoint rdma_cm=tracepoint"}' --count 1

for m in ib_uverbs rdma_ucm; do
	want "{\"event.action\": \"module_load\", \"module.name\": \"$m\", \"process.name\": \"modprobe\"}" --count 1
done
want '{"event.action": "module_load", "module.name": "rdma_rxe", "rdma.soft": true}' --count 1
want '{"event.action": "device_add", "event.provider": "netlink", "rdma.device": "rxe0",
	"rdma.netdev": "dummy0", "rdma.soft": true, "rdma.driver": "rdma_rxe"}' --count 1
# ibv_rc_pingpong on fexit, after the move
need_peer "$(bg_pid rc_server)"
need_peer "$(bg_pid rc_client)"
fetch_needs
want_peer "$(bg_pid rc_server)" ibv_rc_pingpong qp=rc qpn="$(printed_qpn rc_server)" \
	peer="$(bg_pid rc_client)" mr="$RC_SIZE:local_write"
want_peer "$(bg_pid rc_client)" ibv_rc_pingpong qp=rc qpn="$(printed_qpn rc_client)" \
	peer="$(bg_pid rc_server)" mr="$RC_SIZE:local_write"
check_events
