#!/bin/bash
# Harness self-test: the guest panics on a soft lockup, and the host names where a CPU was stuck.
# No test module can make a real one on Debian's kernel (CONFIG_TEST_LOCKUP is off): this writes
# the two lines lab.sh reads to the kernel log, then crashes the kernel as softlockup_panic would.
set -euo pipefail
panic=$(cat /proc/sys/kernel/softlockup_panic)
echo "lockup: kernel.softlockup_panic=$panic"
[ "$panic" = 1 ]
echo "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [awk:2346]" >/dev/kmsg
echo "RIP: 0010:bpf_lsm_file_open+0x0/0x10" >/dev/kmsg
sync
echo c >/proc/sysrq-trigger
