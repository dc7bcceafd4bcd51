#!/bin/bash
# The VM lab: boots Debian's kernel (which has rdma_rxe) once under qemu in software emulation,
# with the host's root read-only over 9p, and runs scenarios against a real soft-RoCE stack.
# See tests/vm/README.md.
#
# Exit status: 0 every scenario passed and the VM ended cleanly, 1 some scenario failed or the VM's
# end did not (the runner's done mark or exit status, a kernel splat), 2 the lab could not run.
set -euo pipefail

usage()
{
	cat <<'EOF'
usage: tests/vm/lab.sh [--lsm] [--machine M] [--build DIR] [--results DIR] [--timeout SEC]
                      (--all [--part N] | SCENARIO...)

  SCENARIO       a name under tests/vm/scenarios/ (NAME.sh), or the path of a scenario script;
                 all run in one boot, in order
  --all          every scenario under tests/vm/scenarios/ for this machine (a scenario's
                 "# lab-machine: M" line; none: pc), sorted by name
  --part N       with --all: only the scenarios of part N (a scenario's "# lab-part: N" line;
                 none: 1), so that the parts boot side by side (tests/vm/meson.build)
  --lsm          boot with lsm=lockdown,capability,landlock,yama,apparmor,bpf
  --machine M    pc (default: qemu's i440fx), q35-iommu (q35, emulated Intel IOMMU, intel_iommu=on,
                 qemu's edu DMA card in root port rp1, empty root ports rp2-rp4 for hot-adding,
                 QMP relayed to the guest), q35-noiommu (the same with intel_iommu=off)
  --build DIR    meson build dir (default $RG_BUILD or <source>/build); scenarios get
                 RG=DIR/agent/rdmaguard
  --results DIR  where results go (default DIR/vm-results under the build dir):
                 RESULTS/NAME/{log,rc,time,...}, RESULTS/_lab/{console.log,...}
  --timeout SEC  wall-clock limit for the whole VM (default 1500)

Environment: RG_LAB_BOOT_TIMEOUT (until the guest's runner starts, default 300 s),
RG_LAB_SCENARIO_TIMEOUT (per scenario, default 300 s; a scenario's
"# lab-timeout: SEC" line wins), RG_LAB_KVER (kernel version under /boot),
RG_LAB_MACHINE (as --machine), RG_LAB_QEMU, RG_LAB_MEM (MiB, 2048), RG_LAB_SMP (2), RG_LAB_ACCEL (tcg,thread=single: one
host thread for every vCPU; tcg: a thread each), RG_LAB_CACHE,
RG_LAB_APPEND (extra kernel command line), RG_LAB_ICOUNT (qemu -icount: e.g. shift=0,sleep=off,
the guest's clock counts the instructions it executes; single-threaded TCG).
Exit status: 0 all passed, 1 some scenario failed or the VM's end was not clean (no done mark,
the runner's non-zero status, an Oops, BUG, WARNING or verifier splat in the kernel log),
2 the lab could not run.
EOF
}

die()
{
	echo "lab: error: $*" >&2
	exit 2
}

say()
{
	echo "lab: $*"
}

RG_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VMDIR=$RG_SRC/tests/vm
build=${RG_BUILD:-$RG_SRC/build}
results=""
wall=1500
lsm=0
all=0
part=""
machine=${RG_LAB_MACHINE:-pc}
scenarios=()

while [ $# -gt 0 ]; do
	case $1 in
	--lsm) lsm=1 ;;
	--all) all=1 ;;
	--part)
		[ $# -ge 2 ] || die "--part needs a number"
		part=$2
		shift
		;;
	--machine)
		[ $# -ge 2 ] || die "--machine needs a name"
		machine=$2
		shift
		;;
	--build)
		[ $# -ge 2 ] || die "--build needs a directory"
		build=$2
		shift
		;;
	--results)
		[ $# -ge 2 ] || die "--results needs a directory"
		results=$2
		shift
		;;
	--timeout)
		[ $# -ge 2 ] || die "--timeout needs a number of seconds"
		wall=$2
		shift
		;;
	-h | --help)
		usage
		exit 0
		;;
	-*)
		usage >&2
		die "unknown option $1"
		;;
	*) scenarios+=("$1") ;;
	esac
	shift
done

[[ $wall =~ ^[1-9][0-9]*$ ]] || die "--timeout: not a number of seconds: $wall"
case $machine in
pc | q35-iommu | q35-noiommu) ;;
*) die "--machine: pc, q35-iommu or q35-noiommu, not '$machine'" ;;
esac
boot_timeout=${RG_LAB_BOOT_TIMEOUT:-300}
[[ $boot_timeout =~ ^[1-9][0-9]*$ ]] || die "RG_LAB_BOOT_TIMEOUT: not a number: $boot_timeout"
scenario_timeout=${RG_LAB_SCENARIO_TIMEOUT:-300}
[[ $scenario_timeout =~ ^[1-9][0-9]*$ ]] ||
	die "RG_LAB_SCENARIO_TIMEOUT: not a number: $scenario_timeout"
# scenario_directive FILE NAME DEFAULT: the first word of the scenario's "# lab-NAME: WORD" line
# (first 30 lines), else DEFAULT.
scenario_directive()
{
	local w
	w=$(sed -n "1,30{s/^# lab-$2: *\([^ ]*\).*/\1/p}" "$1" | head -n 1)
	echo "${w:-$3}"
}
# A scenario's machine: "# lab-machine: NAME", else pc. --all takes the scenarios of the machine
# booted; one named for another machine is an error.
scenario_machine()
{
	scenario_directive "$1" machine pc
}
if [ -n "$part" ]; then
	[ "$all" = 1 ] || die "--part goes with --all"
	[[ $part =~ ^[1-9][0-9]*$ ]] || die "--part: not a part number: $part"
fi
if [ "$all" = 1 ]; then
	for f in "$VMDIR"/scenarios/*.sh; do
		[ -e "$f" ] || continue
		[ "$(scenario_machine "$f")" = "$machine" ] || continue
		# its part: "# lab-part: N", else 1
		[ -z "$part" ] || [ "$(scenario_directive "$f" part 1)" = "$part" ] || continue
		f=${f##*/}
		scenarios+=("${f%.sh}")
	done
fi
[ ${#scenarios[@]} -gt 0 ] || {
	usage >&2
	die "no scenario given"
}
# A scenario is a name under scenarios/ or the path of a script (NAME is its base name).
declare -A seen=()
files=()
for i in "${!scenarios[@]}"; do
	s=${scenarios[$i]}
	case $s in
	*/*)
		[ -f "$s" ] || die "no such scenario file: $s"
		f=$(realpath "$s")
		s=${f##*/}
		s=${s%.sh}
		;;
	*) f=$VMDIR/scenarios/$s.sh ;;
	esac
	[[ $s =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] || die "bad scenario name: $s"
	[ -f "$f" ] || die "no such scenario: $s (no $f)"
	[ -z "${seen[$s]:-}" ] || die "scenario listed twice: $s"
	[ "$(scenario_machine "$f")" = "$machine" ] ||
		die "scenario $s is for --machine $(scenario_machine "$f"), not $machine"
	seen[$s]=1
	scenarios[i]=$s
	files+=("$f")
done

build=$(realpath -m "$build")
results=$(realpath -m "${results:-$build/vm-results}")
cache=$(realpath -m "${RG_LAB_CACHE:-$build/vm-cache}")
case $results in
*,*) die "the results path must not contain a comma (qemu option syntax): $results" ;;
esac

# --- what the lab needs on the host --------------------------------------------------------------
need()
{
	command -v "$1" >/dev/null 2>&1 || die "$1 not found: apt-get install $2"
}
qemu=${RG_LAB_QEMU:-qemu-system-x86_64}
need "$qemu" qemu-system-x86
need modprobe kmod
need rdma iproute2
need ss iproute2
need timeout coreutils
[ -x /usr/bin/python3 ] || die "/usr/bin/python3 not found: apt-get install python3"
busybox=/bin/busybox
[ -x $busybox ] || die "$busybox not found: apt-get install busybox-static"
if ldd $busybox >/dev/null 2>&1; then
	die "$busybox is dynamically linked, useless in the initramfs: apt-get install busybox-static"
fi

# The kernel: the newest one in /boot whose modules include rdma_rxe.
pick_kver()
{
	local k v best=""
	for k in /boot/vmlinuz-*; do
		[ -e "$k" ] || continue
		v=${k#/boot/vmlinuz-}
		compgen -G "/lib/modules/$v/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko*" >/dev/null ||
			continue
		best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n 1)
	done
	echo "$best"
}
kver=${RG_LAB_KVER:-$(pick_kver)}
[ -n "$kver" ] ||
	die "no kernel in /boot with rdma_rxe in /lib/modules/*: apt-get install linux-image-amd64"
kernel=/boot/vmlinuz-$kver
[ -r "$kernel" ] || die "cannot read $kernel (run as root, or apt-get install linux-image-$kver)"
[ -d "/lib/modules/$kver" ] || die "no /lib/modules/$kver for $kernel"

# --- the initramfs, cached by the hash of everything that goes in it -----------------------------
# initramfs_modules: the modules to insmod, dependencies first, into the array mods (empty when
# the kernel has virtio-pci and 9p built in). One module per modprobe call: further names would be
# taken as module parameters.
initramfs_modules()
{
	local m deps kw path
	declare -A have=()
	mods=()
	for m in virtio_pci 9pnet_virtio 9p; do
		deps=$(modprobe -S "$kver" --show-depends "$m") ||
			die "modprobe -S $kver --show-depends $m failed: no 9p support in $kver?"
		while read -r kw path _; do
			if [ "$kw" != insmod ] || [ -n "${have[$path]:-}" ]; then
				continue
			fi
			have[$path]=1
			mods+=("$path")
		done <<<"$deps"
	done
}

build_initramfs()
{
	local key out tmp m base mods
	initramfs_modules
	key=$({
		echo "$kver"
		sha256sum "$VMDIR/guest/init" $busybox "${mods[@]}"
	} | sha256sum | cut -c1-16)
	out=$cache/initramfs-$kver-$key.cpio
	if [ -s "$out" ]; then
		echo "$out"
		return
	fi
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/build.XXXXXX")
	mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,lib/modules}
	cp $busybox "$tmp/bin/busybox"
	cp "$VMDIR/guest/init" "$tmp/init"
	chmod 755 "$tmp/init" "$tmp/bin/busybox"
	: >"$tmp/modules.order"
	for m in "${mods[@]}"; do
		base=${m##*/}
		case $m in
		*.ko) cp "$m" "$tmp/lib/modules/$base" ;;
		*.ko.xz) xz -dc "$m" >"$tmp/lib/modules/${base%.xz}" ;;
		*.ko.zst) zstd -qdc "$m" >"$tmp/lib/modules/${base%.zst}" ;;
		*.ko.gz) gzip -dc "$m" >"$tmp/lib/modules/${base%.gz}" ;;
		*) die "unknown module format: $m" ;;
		esac
		base=${base%.ko*}.ko
		echo "/lib/modules/$base" >>"$tmp/modules.order"
	done
	(cd "$tmp" && find . -mindepth 1 | LC_ALL=C sort | $busybox cpio -o -H newc 2>/dev/null) \
		>"$tmp.cpio" || die "building the initramfs failed"
	rm -rf "$tmp"
	# older ones go; one of this key stays, in case another lab has just chosen it (two labs
	# start at once in tests/run.sh): the rename below replaces it with the same bytes
	for m in "$cache"/initramfs-*.cpio; do
		[ "$m" = "$out" ] || rm -f "$m"
	done
	mv "$tmp.cpio" "$out"
	echo "$out"
}
initrd=$(build_initramfs)

# --- the lab share: the results directory --------------------------------------------------
lab=$results/_lab
mkdir -p "$results"
rm -rf "$lab"
for s in "${scenarios[@]}"; do
	rm -rf "${results:?}/$s"
done
mkdir -p "$lab"
cp "$VMDIR/guest/runner.sh" "$lab/runner.sh"
{
	printf 'RG_SRC=%q\n' "$RG_SRC"
	printf 'RG_BUILD=%q\n' "$build"
	printf 'RG=%q\n' "$build/agent/rdmaguard"
	printf 'RG_LAB_LSM=%q\n' "$lsm"
	printf 'RG_LAB_MACHINE=%q\n' "$machine"
	printf 'RG_LAB_SCENARIO_TIMEOUT=%q\n' "$scenario_timeout"
	printf 'RG_LAB_SCENARIOS=('
	printf ' %q' "${scenarios[@]}"
	printf ' )\n'
	printf 'RG_LAB_SCENARIO_FILES=('
	printf ' %q' "${files[@]}"
	printf ' )\n'
} >"$lab/config.sh"

append="console=ttyS0 panic=-1 ${RG_LAB_APPEND:-}"
[ "$lsm" = 0 ] || append+=" lsm=lockdown,capability,landlock,yama,apparmor,bpf"
case $machine in
q35-iommu) append+=" intel_iommu=on" ;;
q35-noiommu) append+=" intel_iommu=off" ;;
esac

# tcg,thread=single runs every vCPU in one host thread. With a thread per vCPU (MTTCG, qemu 7.2)
# a vCPU can rarely keep running a stale translation of an int3 that another vCPU's text patch
# has already replaced: the kernel's int3 handler, which finds no int3 there any more, sends it
# back to the same address for ever (tests/vm/README.md, "Pitfalls met").
qemu_args=(
	-accel "${RG_LAB_ACCEL:-tcg,thread=single}" -smp "${RG_LAB_SMP:-2}" -m "${RG_LAB_MEM:-2048}" -cpu max
	-nodefaults -no-user-config -display none -monitor none -no-reboot
	-kernel "$kernel" -initrd "$initrd" -append "$append"
	-serial "file:$lab/console.log"
	${RG_LAB_ICOUNT:+-icount "$RG_LAB_ICOUNT"}
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$results,mount_tag=labshare,security_model=none,multidevs=remap"
)

# The q35 machine of the hardware scenarios (docs/hardware-runtime.md): qemu's emulated VT-d
# (created before the PCI devices it translates), the edu card, a DMA engine with no driver, at
# 0000:01:00.0 behind root port rp1, and empty root ports rp2, rp3 and rp4 (buses 02-04) where
# a scenario hot-adds cards through QMP. edu's dma_mask (28 bits by default) is widened so that it reaches all of the
# guest's memory: the card, not the IOMMU, would otherwise clamp the addresses. The VT-d unit
# offers no pass-through (pt=off), as on many real machines: an identity group is then a 1:1 map
# of RAM, and a DMA outside it faults (hw-enforce's identity group).
qmp_dir=""
if [ "$machine" != pc ]; then
	qmp_dir=$(mktemp -d /tmp/rg-lab-qmp.XXXXXX)
	mkdir -p "$lab/qmp"
	qemu_args=(-machine q35 -device intel-iommu,intremap=off,pt=off "${qemu_args[@]}"
		-device pcie-root-port,id=rp1,chassis=1,slot=1
		-device edu,bus=rp1,dma_mask=0xffffffffff
		-device pcie-root-port,id=rp2,chassis=2,slot=2
		-device pcie-root-port,id=rp3,chassis=3,slot=3
		-device pcie-root-port,id=rp4,chassis=4,slot=4
		-qmp "unix:$qmp_dir/qmp.sock,server=on,wait=off")
fi

# qmp_serve: relay the guest's QMP requests (RESULTS/_lab/qmp/ID.req) to qemu, answers in ID.rep.
qmp_serve()
{
	local req id
	[ -n "$qmp_dir" ] || return 0
	for req in "$lab"/qmp/*.req; do
		[ -e "$req" ] || return 0
		id=${req##*/}
		id=${id%.req}
		[[ $id =~ ^[A-Za-z0-9_-]+$ ]] || {
			rm -f "$req"
			continue
		}
		/usr/bin/python3 "$VMDIR/qmp.py" "$qmp_dir/qmp.sock" "$req" "$lab/qmp/$id.rep" \
			>>"$lab/qmp.log" 2>&1 || true
		echo "$(elapsed) $(cat "$req") -> $(head -c 300 "$lab/qmp/$id.rep")" >>"$lab/qmp.log"
		rm -f "$req"
	done
}

# --- run it ----------------------------------------------------------------------------------
qpid=""
stop_qemu()
{
	[ -n "$qpid" ] || return 0
	if kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$qpid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$qpid" 2>/dev/null || true
	fi
	wait "$qpid" 2>/dev/null || true
	qpid=""
}
trap 'stop_qemu; [ -z "$qmp_dir" ] || rm -rf "$qmp_dir"' EXIT
trap 'say "interrupted"; exit 2' INT TERM HUP

t0=$EPOCHREALTIME
elapsed()
{
	awk -v s="$t0" -v n="$EPOCHREALTIME" 'BEGIN { printf "%.1f", n - s }'
}

say "kernel $kver ($append), machine $machine, ${#scenarios[@]} scenario(s), results in $results"
"$qemu" "${qemu_args[@]}" >"$lab/qemu.log" 2>&1 &
qpid=$!

failed=0
reported=0
boot_reported=0
killed=0
report_scenario()
{
	local s=$1 d=$results/$1 rc t
	rc=$(cat "$d/rc")
	t=$(cat "$d/time" 2>/dev/null || echo "?")
	if [ "$rc" = 0 ]; then
		echo "ok $s ($t s)"
	else
		failed=$((failed + 1))
		local why=""
		if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			why=", timed out"
		fi
		echo "FAIL $s rc=$rc ($t s$why); tail of $d/log:"
		tail -n 30 "$d/log" | sed 's/^/    /'
	fi
}
progress()
{
	if [ "$boot_reported" = 0 ] && [ -s "$lab/booted" ]; then
		boot_reported=1
		boot_s=$(elapsed)
		say "booted in $boot_s s (guest uptime $(cat "$lab/booted") s when the runner started)"
	fi
	local next
	while [ "$reported" -lt ${#scenarios[@]} ]; do
		next=${scenarios[$reported]}
		[ -s "$results/$next/rc" ] || break
		report_scenario "$next"
		reported=$((reported + 1))
	done
}

deadline=$((SECONDS + wall))
boot_deadline=$((SECONDS + boot_timeout))
boot_late=0
while kill -0 "$qpid" 2>/dev/null; do
	progress
	qmp_serve
	if [ "$SECONDS" -ge "$deadline" ]; then
		killed=1
		break
	fi
	if [ "$boot_reported" = 0 ] && [ "$SECONDS" -ge "$boot_deadline" ]; then
		killed=1
		boot_late=1
		break
	fi
	sleep 0.2
done
if [ "$boot_late" = 1 ]; then
	say "the runner did not start within $boot_timeout s (RG_LAB_BOOT_TIMEOUT); killing qemu"
	stop_qemu
elif [ "$killed" = 1 ]; then
	current=$(cat "$lab/current" 2>/dev/null || true)
	say "wall-clock limit of $wall s reached${current:+ while running $current}; killing qemu"
	stop_qemu
else
	qrc=0
	wait "$qpid" || qrc=$?
	qpid=""
	[ "$qrc" = 0 ] || say "qemu exited with status $qrc: $(tail -n 5 "$lab/qemu.log")"
fi
progress

console_tail()
{
	say "tail of $lab/console.log:"
	tail -n "${1:-40}" "$lab/console.log" 2>/dev/null | sed 's/^/    /'
}

# lockup_report: the guest panics on a soft lockup (the runner sets kernel.softlockup_panic); name
# where a CPU was stuck, and say so when it is a function's first byte (the stale int3 above).
lockup_report()
{
	local log at rip
	log=$(tr -d '\r' <"$lab/console.log" 2>/dev/null) || return 0
	at=$(sed -n 's/.*watchdog: BUG: soft lockup - \(CPU#[0-9]* stuck for [0-9]*s!\).*/\1/p' \
		<<<"$log" | head -n 1)
	[ -n "$at" ] || return 0
	rip=$(grep -A8 'watchdog: BUG: soft lockup' <<<"$log" |
		sed -n 's/.*RIP: 0010:\([^ ]*\).*/\1/p' | head -n 1)
	say "the guest kernel reported a soft lockup: $at at ${rip:-an unknown address}"
	case $rip in
	*+0x0/*) say "a CPU stuck at a function's first byte: a kernel text patch (int3) under TCG" ;;
	esac
}

if [ ! -s "$lab/booted" ]; then
	[ "$killed" = 1 ] || say "qemu exited before the runner started"
	console_tail
	say "tail of $lab/qemu.log:"
	tail -n 10 "$lab/qemu.log" 2>/dev/null | sed 's/^/    /'
	die "the VM did not boot (qemu log: $lab/qemu.log)"
fi
if [ -s "$lab/error" ] && [ "$reported" = 0 ]; then
	console_tail 20
	die "the lab could not be set up: $(cat "$lab/error")"
fi
if [ "$reported" -lt ${#scenarios[@]} ]; then
	current=$(cat "$lab/current" 2>/dev/null || true)
	if [ -z "$current" ]; then
		console_tail
		die "the runner stopped before scenario ${scenarios[$reported]}"
	fi
	for s in "${scenarios[@]:$reported}"; do
		if [ "$s" = "$current" ]; then
			failed=$((failed + 1))
			if [ "$killed" = 1 ]; then
				echo "FAIL $s (still running at the VM's wall-clock limit of $wall s);" \
					"tail of its log:"
			else
				echo "FAIL $s (the VM died while it ran); tail of its log:"
			fi
			tail -n 30 "$results/$s/log" 2>/dev/null | sed 's/^/    /'
			lockup_report
			console_tail 30
		else
			failed=$((failed + 1))
			echo "FAIL $s (not run)"
		fi
	done
fi

# --- the VM's end ------------------------------------------------------------------------------
# Every scenario passing is not enough: the runner must also have reset the lab after the last one
# and finished (its done mark, its exit status), and the guest kernel must have logged no splat.
end_failed=0
end_fail()
{
	end_failed=$((end_failed + 1))
	echo "FAIL lab: $*"
}
if [ "$killed" = 0 ] && [ "$reported" = ${#scenarios[@]} ]; then
	runner_rc=$(cat "$lab/exit" 2>/dev/null || true)
	if [ -s "$lab/error" ]; then
		end_fail "$(cat "$lab/error")"
	fi
	if [ ! -s "$lab/done" ]; then
		end_fail "the runner did not finish after the last scenario (no done mark)"
	fi
	if [ -z "$runner_rc" ]; then
		end_fail "the runner's exit status is missing: the guest died after the last scenario"
	elif [ "$runner_rc" != 0 ]; then
		end_fail "the runner exited with status $runner_rc after the last scenario"
	fi
	[ "$end_failed" = 0 ] || console_tail 20
fi

# Kernel messages (with printk's timestamp, six decimals: the runner's own lines have two) that
# say the kernel went wrong: Oops, BUG (soft lockups included), WARN, the BTF verifier's "BPF:"
# lines, the BPF verifier's "verifier bug". Messages the lab causes on purpose, if ever any, go in
# splat_expected, one exact regular expression each.
splat_re='\[ *[0-9]+\.[0-9]{6}\]( BPF: |.*[^A-Za-z]BUG: | .*(Oops: |kernel BUG at |WARNING: |general protection fault|Kernel panic - not syncing|UBSAN: |verifier bug))'
splat_expected=()
splats()
{
	local line e
	{ tr -d '\r' 2>/dev/null <"$lab/console.log" | grep -E -- "$splat_re" || true; } |
		while IFS= read -r line; do
			for e in "${splat_expected[@]}"; do
				[[ $line =~ $e ]] && continue 2
			done
			printf '%s\n' "$line"
		done
}
splat_lines=$(splats)
if [ -n "$splat_lines" ]; then
	end_fail "the guest kernel logged $(wc -l <<<"$splat_lines") splat line(s):"
	head -n 10 <<<"$splat_lines" | sed 's/^/    /'
	first=$(head -n 1 <<<"$splat_lines")
	say "the console from the first one (in $lab/console.log):"
	{ tr -d '\r' <"$lab/console.log" | grep -F -x -A 15 -- "$first" || true; } |
		sed -n '1,16s/^/    /p'
fi

passed=$((${#scenarios[@]} - failed))
say "$passed passed, $failed failed; boot ${boot_s:-?} s, total $(elapsed) s; results in $results"
[ "$end_failed" = 0 ] || say "the VM's end: $end_failed check(s) failed (above)"
[ "$failed" = 0 ] && [ "$end_failed" = 0 ] || exit 1
exit 0
