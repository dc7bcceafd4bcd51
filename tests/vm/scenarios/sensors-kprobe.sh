#!/bin/bash
# lab-part: 2 (tests/vm/meson.build: the two halves of the pc lab boot side by side)
# The sensors forced onto kprobes (`--sensor kprobe`): kprobes/kretprobes on ib_uverbs,
# rdma_ucm, fd_install, security_mmap_file and security_ptrace_access_check.
# Records ibv_rc_pingpong, rping, rg-host-driver's memory access and library loads; see
# tests/vm/sensors.sh for what is asserted.
# lab-timeout: 900
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"

sensors_scenario kprobe
