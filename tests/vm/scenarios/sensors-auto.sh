#!/bin/bash
# The sensors on their best flavour (`--sensor auto`): fexit on ib_uverbs/rdma_ucm and
# do_sys_openat2, BPF LSM hooks for mmap and ptrace checks (Debian's 6.1 has the bpf LSM on).
# Records ibv_rc_pingpong, rping, rg-host-driver's memory access and library loads; see
# tests/vm/sensors.sh for what is asserted.
# lab-timeout: 900
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"

sensors_scenario auto
