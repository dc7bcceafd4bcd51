#!/bin/bash
# Harness self-test: a scenario that never ends; its own timeout stops it.
# lab-timeout: 8
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"

bg server ibv_rc_pingpong -d rxe0 -g 1
wait_for -m "server on TCP 18515" listening 18515
echo "hang: waiting forever"
sleep 1003
