#!/bin/bash
# The VM lab's guest side: started by the initramfs's PID 1 inside the host root (read-only 9p),
# from the lab share mounted at /run/lab (the host's results directory). lab.sh copies it there
# with _lab/config.sh next to it. It sets up the RDMA stack, runs each scenario in its own cgroup
# with its own timeout, and resets the lab between scenarios.
#
# Files it writes for lab.sh, under /run/lab:
#   _lab/booted            guest uptime when the runner started
#   _lab/ready             guest uptime when the RDMA stack was set up
#   _lab/error             why the lab could not be set up (then nothing else runs)
#   _lab/current           the scenario running now
#   _lab/done              written last
#   _lab/exit              this script's exit status (written by the initramfs's init)
#   NAME/log, NAME/rc, NAME/time (seconds), NAME/dmesg (on failure)
set -euo pipefail

SHARE=/run/lab
LAB=$SHARE/_lab
# shellcheck source=/dev/null
. "$LAB/config.sh"

# The guest has its own /tmp and /run: a source tree, build dir or scenario below them on the
# host is bound back into place from /run/host (the host root as it is).
expose()
{
	[ ! -e "$1" ] || return 0
	[ -e "/run/host$1" ] || return 0
	mkdir -p "$1"
	mount --bind "/run/host$1" "$1"
}
expose "$RG_SRC"
expose "$RG_BUILD"
for f in "${RG_LAB_SCENARIO_FILES[@]}"; do
	expose "$(dirname "$f")"
done
export RG_SRC RG_BUILD RG RG_LAB_LSM RG_LAB_MACHINE
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1
export OUT=$LAB
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"

uptime_s()
{
	cut -d' ' -f1 /proc/uptime
}

uptime_s >"$LAB/booted"

lab_error()
{
	echo "lab: $*" | tee "$LAB/error"
	exit 1
}

# The network the scenarios expect: lo up, dummy0 (alone besides lo) with $LAB_ADDR/24, up.
net_reset()
{
	local dev
	ip link set lo up || return 1
	for dev in $(ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
		case $dev in lo | dummy0) ;; *) ip link delete "$dev" 2>/dev/null || true ;; esac
	done
	ip link show dummy0 >/dev/null 2>&1 || ip link add dummy0 type dummy || return 1
	ip addr flush dev dummy0 || return 1
	ip addr add "$LAB_ADDR/24" dev dummy0 || return 1
	ip link set dummy0 up
}

# What a scenario may leave behind and the next must not see. Called as `lab_reset || ...`, where
# set -e does not act: each step says itself when it fails. The pins go first: enforcement that a
# failed scenario left in force (its daemon killed with the cgroup) would refuse the module loads.
lab_reset()
{
	find /sys/fs/bpf -mindepth 1 -delete 2>/dev/null || true
	rxe_down || return 1
	modprobe -a rdma_rxe ib_uverbs rdma_ucm dummy || return 1
	net_reset || return 1
	echo >/sys/kernel/tracing/kprobe_events 2>/dev/null || true
	echo >/sys/kernel/tracing/uprobe_events 2>/dev/null || true
}

# cgroup_kill CG: kill every process of a scenario, including daemons that left its session.
cgroup_kill()
{
	local cg=$1
	[ -d "$cg" ] || return 0
	echo 1 >"$cg/cgroup.kill"
	wait_for -t 30 -m "the scenario's processes to end" \
		grep -q '^populated 0' "$cg/cgroup.events"
	rmdir "$cg"
}

# Directives in a scenario's first 30 lines: "# lab-rxe: none" (the scenario adds its RDMA links
# itself), "# lab-timeout: SEC".
directive()
{
	sed -n "1,30{s/^# lab-$2: *\\([^ ]*\\).*/\\1/p}" "$1" | head -n 1
}

hostname rdmaguard-lab 2>/dev/null || true
echo 2 >/proc/sys/kernel/sysrq 2>/dev/null || true
# A soft lockup never ends by itself: panic (qemu exits, -no-reboot) and let the host report it
# with the console's tail, rather than wait for the VM's wall-clock limit.
echo 1 >/proc/sys/kernel/softlockup_panic || lab_error "cannot set kernel.softlockup_panic"
# rdma_rxe needs crc32 from the crypto API. Load it explicitly, and name the kernel's module
# helper even though /sbin/modprobe is the built-in default, as the recipe asks (see docs/testing.md).
modprobe crc32_generic || lab_error "modprobe crc32_generic failed"
echo /sbin/modprobe >/proc/sys/kernel/modprobe
modprobe -a rdma_rxe ib_uverbs rdma_ucm dummy ||
	lab_error "modprobe rdma_rxe ib_uverbs rdma_ucm dummy failed"
net_reset || lab_error "could not set up dummy0 with $LAB_ADDR"
# The q35 machines: what udev's coldplug would load for the machine's own PCI functions (ahci for
# the ICH9 SATA controller, which the firmware left bus-mastering): a driverless bus master is a
# DMA-card tell, and the hardware scenarios check that the machine's own devices raise nothing.
if [ "${RG_LAB_MACHINE:-pc}" != pc ]; then
	for alias in /sys/bus/pci/devices/*/modalias; do
		modprobe -q "$(cat "$alias")" || true
	done
fi
uptime_s >"$LAB/ready"
echo "lab: RDMA stack ready at $(uptime_s) s; kernel $(uname -r);" \
	"lsm=$(cat /sys/kernel/security/lsm)"

# shellcheck disable=SC2153 # from config.sh
for i in "${!RG_LAB_SCENARIOS[@]}"; do
	name=${RG_LAB_SCENARIOS[$i]}
	script=${RG_LAB_SCENARIO_FILES[$i]}
	out=$SHARE/$name
	cg=/sys/fs/cgroup/lab-$name
	mkdir -p "$out"
	echo "$name" >"$LAB/current"
	timeout=$(directive "$script" timeout)
	timeout=${timeout:-$RG_LAB_SCENARIO_TIMEOUT}
	rxe=$(directive "$script" rxe)
	echo "lab: === $name (timeout ${timeout} s) at $(uptime_s) s"
	start=$EPOCHREALTIME
	rc=0
	mkdir "$cg"
	(
		echo "$BASHPID" >"$cg/cgroup.procs"
		export OUT=$out RG_LAB_SCENARIO=$name RG_LAB_RXE=${rxe:-rxe0}
		export TMPDIR=/tmp/lab-$name
		mkdir -p "$TMPDIR"
		cd "$out"
		# shellcheck disable=SC2016 # expanded by the inner bash
		exec timeout --kill-after=10 "$timeout" bash -c '
			set -euo pipefail
			. "$RG_SRC/tests/vm/lib.sh"
			if [ "$RG_LAB_RXE" != none ]; then
				rxe_up "$RG_LAB_RXE"
			fi
			log "lab: running $1"
			exec bash "$1"' scenario "$script"
	) >"$out/log" 2>&1 </dev/null || rc=$?
	elapsed=$(_lab_since "$start")
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "lab: $name timed out after $timeout s (rc=$rc)" | tee -a "$out/log"
	fi
	cgroup_kill "$cg" || echo "lab: could not end all processes of $name"
	[ "$rc" = 0 ] || dmesg >"$out/dmesg" 2>&1 || true
	echo "$elapsed" >"$out/time"
	echo "$rc" >"$out/rc"
	echo "lab: === $name rc=$rc (${elapsed} s)"
	rm -rf "/tmp/lab-$name"
	lab_reset || lab_error "could not reset the lab after $name"
done
rm -f "$LAB/current"
uptime_s >"$LAB/done"
