#!/bin/bash
# The same as sensors-auto.sh, forced onto the syscall tracepoint fallback.
# lab-timeout: 900
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"

start_daemon tracepoint
expect_json "$OUT/plan.json" --match '{"mode": "tracepoint", "hooks.verbs.active": "tracepoint",
	"hooks.rdma_cm.active": "tracepoint", "hooks.open.active": "tracepoint",
	"hooks.mmap.active": "tracepoint", "hooks.memory.active": "tracepoint"}' --count 1
run_pingpong
run_rping
stop_daemon
assert_pingpong "$PP_SERVER" "$PP_CLIENT"
assert_rping "$RP_SERVER" "$RP_CLIENT"
