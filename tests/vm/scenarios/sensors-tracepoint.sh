#!/bin/bash
# The sensors forced onto the syscall tracepoint fallback (`--sensor tracepoint`).
# Records ibv_rc_pingpong, rping, rg-host-driver's memory access and library loads; see
# tests/vm/sensors.sh for what is asserted.
# lab-timeout: 900
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"

sensors_scenario tracepoint
