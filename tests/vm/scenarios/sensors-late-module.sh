#!/bin/bash
# The daemon starts before the RDMA stack (what a cheat does: load rdma_rxe later): verbs and
# rdma_cm wait on fentry/fexit on the ioctl and write(v) syscalls (no syscall tracepoint: the
# game's other syscalls keep the kernel's fast path), where rg-host-driver's commands on stand-in
# nodes are decoded (by write(), ioctl(), writev() and pwritev2()), then move to fexit on
# ib_uverbs/rdma_ucm as each module appears (ib_uverbs first: meanwhile uverbs write()s are left
# to its hooks, not reported twice); the module loads and the new device are reported.
# lab-rxe: none
# lab-timeout: 900
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"

SYS_IOCTL=__x64_sys_ioctl SYS_WRITE=__x64_sys_write SYS_WRITEV=__x64_sys_writev
SYS_PWRITEV2=__x64_sys_pwritev2
[ "$(uname -m)" = x86_64 ] || fail "the expected syscall function names are x86_64's"
modprobe -r rdma_ucm rdma_rxe rdma_cm ib_uverbs || fail "could not unload the RDMA modules"
[ ! -e /sys/module/ib_uverbs ] || fail "ib_uverbs is still loaded"

start_daemon auto
# uverbs and rdma_cm commands while the modules are absent (the driver's own /dev, stand-in char devices)
run_driver verbs
run_driver cm
run_driver writev

# ib_uverbs first: verbs moves to fexit on it, rdma_cm stays on the write syscall, which now
# leaves uverbs fds to ib_uverbs' hooks (they were reported twice): the stand-in's write()s, a
# stand-in device (/dev/zero's number) that ib_uverbs never sees, are reported by neither, its rdma_cm ones still are
modprobe -a rdma_rxe ib_uverbs
_switched_verbs()
{
	expect_json -q "$EV" --match '{"event.action": "agent_sensor", "agent.what": "verbs",
		"agent.ok": 1, "agent.text": "~^verbs: fentry"}' --count 1
}
wait_for -t 120 -m "the daemon to move verbs to fentry" _switched_verbs
run_driver verbs verbs2
run_driver cm cm2
run_driver writev writev2

modprobe rdma_ucm
_switched()
{
	_switched_verbs && expect_json -q "$EV" --match '{"event.action": "agent_sensor",
		"agent.what": "rdma_cm", "agent.ok": 1, "agent.text": "~^rdma_cm: fentry"}' --count 1
}
wait_for -t 120 -m "the daemon to move rdma_cm to fentry" _switched
rxe_up rxe0
run_pingpong rc_server rc_client
stop_daemon

# At the start: fentry on the modules chosen, fentry on the syscalls until ib_uverbs and rdma_ucm
# are there.
want "{\"event.action\": \"agent_start\", \"agent.hooks\": {\"hooks.verbs.chosen\": \"fentry\",
	\"hooks.verbs.active\": \"fentry\", \"hooks.verbs.note\": \"fentry once ib_uverbs is loaded\",
	\"hooks.verbs.programs\": {\"==\": [\"fentry/$SYS_IOCTL\", \"fexit/$SYS_IOCTL\",
	\"fentry/$SYS_WRITE\", \"fexit/$SYS_WRITE\", \"fentry/$SYS_WRITEV\", \"fexit/$SYS_WRITEV\",
	\"fentry/$SYS_PWRITEV2\", \"fexit/$SYS_PWRITEV2\"]},
	\"hooks.rdma_cm.chosen\": \"fentry\", \"hooks.rdma_cm.active\": \"fentry\",
	\"hooks.rdma_cm.programs\": {\"==\": [\"fentry/$SYS_WRITE\", \"fexit/$SYS_WRITE\",
	\"fentry/$SYS_WRITEV\", \"fexit/$SYS_WRITEV\", \"fentry/$SYS_PWRITEV2\",
	\"fexit/$SYS_PWRITEV2\"]},
	\"modules.ib_uverbs\": false}}" --count 1
check_events "$ALERTS"
want '{"event.action": "agent_start", "agent.text": "~verbs=fentry rdma_cm=fentry"}' --count 1
# what the driver did meanwhile, decoded as on the build machines' tracepoints (each once: the
# write() programs report a node only for the hook points on them)
p=$(fact verbs pid)
want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"reg_mr\",
	\"rdma.via\": \"write\", \"rdma.fd\": $(fact verbs fd), \"rdma.handle\": 85,
	\"rdma.mr\": {\"length\": 65536, \"access\": [\"remote_write\", \"remote_read\"]}}" --count 1
want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"modify_qp\",
	\"rdma.qp.state\": \"rtr\", \"rdma.qp.dest_num\": 4660}" --count 1
want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.via\": \"invoke_write\",
	\"rdma.ret\": -25}" --count 1
want "{\"event.action\": \"rdma_cm\", \"process.pid\": $(fact cm pid), \"rdma.op\": \"connect\",
	\"rdma.peer.address\": \"198.51.100.4\", \"rdma.peer.port\": 7471}" --count 1
want "{\"event.action\": \"rdma_cm\", \"process.pid\": $(fact cm pid)}" --count 4
want "{\"event.action\": \"verbs\", \"process.pid\": $(fact cm pid)}" --absent
# writev()/pwritev2(): one command per iovec (tests/integration/host's test_writev has the details)
p=$(fact writev pid)
want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"reg_mr\",
	\"rdma.fd\": $(fact writev fd), \"rdma.handle\": 85, \"rdma.mr\": {\"length\": 196608}}" --count 1
want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"modify_qp\",
	\"rdma.handle\": 9, \"rdma.qp.state\": \"rtr\"}" --count 1
want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"dealloc_pd\"}" --count 10
want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"dealloc_pd\",
	\"rdma.handle\": 18, \"event.flags\": [\"truncated\"]}" --count 1
want "{\"event.action\": \"verbs\", \"process.pid\": $p}" --count 12
want "{\"event.action\": \"rdma_cm\", \"process.pid\": $p, \"rdma.op\": \"listen\",
	\"rdma.cm.id\": 4, \"rdma.cm.backlog\": 5}" --count 1
want "{\"event.action\": \"rdma_cm\", \"process.pid\": $p}" --count 2
# the same driver with verbs on ib_uverbs and rdma_cm still on the write syscall
# (the open and its dup(), each seen at fd_install)
for fd in "$(fact verbs2 fd)" "$(fact verbs2 dupfd)"; do
	want "{\"event.action\": \"device_open\", \"process.pid\": $(fact verbs2 pid),
		\"rdma.node\": \"uverbs\", \"rdma.fd\": $fd}" --count 1
done
want "{\"event.action\": \"device_open\", \"process.pid\": $(fact verbs2 pid)}" --count 2
want "{\"event.action\": \"verbs\", \"process.pid\": $(fact verbs2 pid)}" --absent
want "{\"event.action\": \"rdma_cm\", \"process.pid\": $(fact cm2 pid)}" --count 4
want "{\"event.action\": \"verbs\", \"process.pid\": $(fact writev2 pid)}" --absent
want "{\"event.action\": \"rdma_cm\", \"process.pid\": $(fact writev2 pid)}" --count 2

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
