#!/bin/bash
# The sensors on their best flavour (`--sensor auto`: fexit on ib_uverbs/rdma_ucm, fexit on
# do_sys_openat2, BPF LSM hooks where the bpf LSM is active (Debian's 6.1 lists it by default),
# else fentry), recording ibv_rc_pingpong and rping on rxe0.
# lab-timeout: 900
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"

start_daemon auto
best=fentry
if grep -qw bpf /sys/kernel/security/lsm; then
	best=lsm
fi
expect_json "$OUT/plan.json" --match "{\"mode\": \"auto\", \"features.fentry\": true,
	\"hooks.verbs.active\": \"fentry\", \"hooks.rdma_cm.active\": \"fentry\",
	\"hooks.open.active\": \"fentry\", \"hooks.mmap.active\": \"$best\",
	\"hooks.memory.active\": \"$best\", \"hooks.process.active\": \"tracepoint\",
	\"hooks.library.active\": \"uprobe\", \"hooks.roce.active\": \"tc\"}" --count 1
ev --match '{"event.action": "agent_start", "agent.text": "~verbs=fentry rdma_cm=fentry"}' --count 1
run_pingpong
run_rping
stop_daemon
assert_pingpong "$PP_SERVER" "$PP_CLIENT"
assert_rping "$RP_SERVER" "$RP_CLIENT"
# fexit hooks see the kernel's return value: nothing failed here
ev --match '{"event.action": "verbs", "event.flags": ["failed"], "rdma.op": {"|": ["reg_mr", "create_qp", "modify_qp"]}}' --absent
