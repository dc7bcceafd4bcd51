#!/bin/bash
# Harness self-test: passes itself, but the guest kernel logs a WARN splat (a line written to the
# kernel log as a WARN_ON's first line reads); lab.sh must fail the run and show it.
set -euo pipefail
echo "WARNING: CPU: 0 PID: $$ at tests/vm/selftest/splat.sh:5 splat+0x0/0x10" >/dev/kmsg
echo "splat: written"
