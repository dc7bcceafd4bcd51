#!/bin/bash
# The VM lab on a machine that is not a Debian 12 build machine (one with /dev/kvm, say): the lab
# boots Debian's kernel with the host root as the guest's root, so it needs Debian's userland,
# kernel and modules, rdma-core and qemu. This packs what it uses from this machine's root into a
# tarball, and on the other machine runs a command in a chroot of it, with the source tree bound
# at the same path.
#
#   tests/vm/portable-root.sh pack FILE.tar.xz      (here, as root; about 45 MB, a few minutes)
#   tests/vm/portable-root.sh run FILE.tar.xz [DIR] -- CMD...   (there, as root; DIR /tmp/rg-root)
#
# e.g. there: tests/vm/portable-root.sh run root.tar.xz -- /usr/bin/python3 bench/bench.py
#   --build BUILD --kvm --vm-only --out /tmp/bench   (BUILD: agent/rdmaguard and bench/ programs
#   built here, inside the source tree; the results then lie in DIR/tmp/bench). CMD runs in the
#   source tree with a clean environment (PATH, HOME, LANG; RG_LAB_* and RG_BENCH_* passed
#   through); what the chroot needs mounted is unmounted when it ends. Exit: CMD's status; 2 bad
#   usage or a missing package here; 3 the extraction failed.
set -euo pipefail

die()
{
	echo "portable-root: $*" >&2
	exit "${2:-2}"
}

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# The packages whose files the lab, its guest and the benchmarks use (dpkg -L, without docs).
PKGS=(base-files bash dash coreutils sed grep mawk findutils util-linux mount procps kmod
	iproute2 busybox-static debianutils libc6 libc-bin gzip xz-utils zstd tar hostname diffutils
	ncurses-base python3.11-minimal libpython3.11-minimal libpython3.11-stdlib python3-minimal
	python3 qemu-system-x86 qemu-system-data qemu-system-common seabios ipxe-qemu rdma-core
	ibverbs-utils rdmacm-utils ibverbs-providers libibverbs1 librdmacm1 perftest libbpf1 libelf1
	libjson-c5 libmnl0 libssl3 libsystemd0 bpftool)
# Left out: docs, Python's test suite and GUI, other architectures' firmware and qemu binaries.
SKIP='^/usr/share/(doc|man|locale|info|lintian|bug|bash-completion|zsh|fish)/'
SKIP+='|^/usr/lib/python3\.11/(test|idlelib|tkinter|turtledemo|lib2to3|ensurepip|pydoc_data)/'
SKIP+='|__pycache__|/(qemu-system-i386|qemu-system-x86_64-microvm|qemu-storage-daemon)$'
SKIP+='|^/usr/share/qemu/(openbios|skiboot|slof|u-boot|palcode|opensbi|hppa|s390|QEMU,|edk2|npcm'
SKIP+='|petalogix|bamboo|canyonlands|vof|pnv|qemu_vga|vgabios-)|^/usr/share/qemu/keymaps/[^e]'
SKIP+='|/drivers/infiniband/hw/'
# Single files: the alternatives the scripts call, what the tools read in /etc, the usrmerge links.
EXTRA=(/usr/bin/awk /usr/bin/nawk /usr/bin/which /etc/alternatives/awk /etc/alternatives/nawk
	/etc/alternatives/which /etc/passwd /etc/group /etc/hosts /etc/nsswitch.conf /etc/ld.so.cache
	/etc/ld.so.conf /etc/protocols /etc/services /etc/ssl/openssl.cnf /bin /lib /lib64 /sbin)
EXTRA_DIRS=(etc/ld.so.conf.d etc/libibverbs.d etc/iproute2 etc/modprobe.d etc/python3.11)

is_elf()
{
	[ "$(head -c4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]
}

pack()
{
	local out=$1 kver tmp f d m
	[ "$(id -u)" = 0 ] || die "pack needs root (the kernel image is readable by root only)"
	kver=${RG_LAB_KVER:-$(find /lib/modules -path '*/sw/rxe/rdma_rxe.ko*' | sed 's|^/lib/modules/||; s|/.*||' | sort -V | tail -n 1)}
	if [ -z "$kver" ] || [ ! -r "/boot/vmlinuz-$kver" ]; then
		die "no kernel with rdma_rxe: apt-get install linux-image-amd64"
	fi
	tmp=$(mktemp -d)
	PACK_TMP=$tmp
	trap 'rm -rf "$PACK_TMP"' EXIT
	for p in "${PKGS[@]}"; do
		dpkg -L "$p" >>"$tmp/raw" 2>/dev/null || die "package $p is not installed here"
	done
	grep -vE "$SKIP" "$tmp/raw" | sort -u | while read -r f; do
		if [ -d "$f" ] && [ ! -L "$f" ]; then
			continue
		fi
		if [ -e "$f" ] || [ -L "$f" ]; then
			echo "$f"
		fi
	done >"$tmp/files"
	# the shared libraries of every ELF file, by their names and their targets
	while read -r f; do
		if [ -L "$f" ] || ! is_elf "$f"; then
			continue
		fi
		{ ldd "$f" 2>/dev/null || true; } | awk '/=>/ && $3 ~ /^\// {print $3} /^\t\// {print $1}'
	done <"$tmp/files" | sort -u >"$tmp/libs"
	while read -r f; do
		echo "$f"
		readlink -f "$f"
	done <"$tmp/libs" >>"$tmp/files"
	# the kernel and the modules the lab and the sensors load
	m=/lib/modules/$kver
	{
		echo "/boot/vmlinuz-$kver"
		echo "/boot/config-$kver"
		ls "$m"/modules.*
		find "$m/kernel/drivers/infiniband" "$m/kernel/net/sched" "$m/kernel/net/9p" \
			"$m/kernel/fs/9p" "$m/kernel/drivers/virtio" -name '*.ko*' -not -path '*/hw/*'
		for f in rdma_rxe ib_uverbs rdma_ucm dummy veth crc32_generic virtio_pci 9pnet_virtio 9p \
			sch_ingress cls_bpf act_bpf; do
			modprobe -S "$kver" --show-depends "$f" | awk '$1 == "insmod" {print $2}'
		done
	} >>"$tmp/files"
	for f in "${EXTRA[@]}"; do
		if [ -e "$f" ] || [ -L "$f" ]; then
			echo "$f"
		fi
	done >>"$tmp/files"
	# one path per file, its directory canonical (/lib is usr/lib), so that extracting never
	# replaces a directory link
	while read -r f; do
		case $f in
		/bin | /lib | /lib64 | /sbin) echo "${f#/}" ;;
		*)
			d=$(readlink -f "$(dirname "$f")")
			echo "${d#/}/${f##*/}"
			;;
		esac
	done <"$tmp/files" | sort -u >"$tmp/list"
	tar -C / --no-recursion -T "$tmp/list" -cf "$tmp/root.tar"
	tar -C / -rf "$tmp/root.tar" "${EXTRA_DIRS[@]}"
	xz -T0 -6 -c "$tmp/root.tar" >"$out"
	echo "portable-root: $(wc -l <"$tmp/list") files, kernel $kver: $out ($(du -h "$out" | cut -f1))"
}

run()
{
	local tarball=$1 root=$2
	shift 2
	[ "$(id -u)" = 0 ] || die "run needs root (mounts, chroot)"
	case $SRC in *,*) die "the source path must not contain a comma (qemu): $SRC" ;; esac
	if [ ! -x "$root/usr/bin/python3" ]; then
		mkdir -p "$root"
		tar -C "$root" -xJf "$tarball" || die "cannot extract $tarball into $root" 3
	fi
	mkdir -p "$root"/{proc,sys,dev,tmp,run,root} "$root$SRC"
	chmod 1777 "$root/tmp"
	local mounts=()
	mountpoint -q "$root/proc" || { mount -t proc proc "$root/proc" && mounts+=("$root/proc"); }
	mountpoint -q "$root/sys" || { mount --rbind /sys "$root/sys" && mounts+=("$root/sys"); }
	mountpoint -q "$root/dev" || { mount --rbind /dev "$root/dev" && mounts+=("$root/dev"); }
	mountpoint -q "$root/run" || { mount -t tmpfs run "$root/run" && mounts+=("$root/run"); }
	mountpoint -q "$root$SRC" || { mount --bind "$SRC" "$root$SRC" && mounts+=("$root$SRC"); }
	RUN_MOUNTS=("${mounts[@]}")
	trap 'for m in "${RUN_MOUNTS[@]}"; do umount -lR "$m" 2>/dev/null || true; done' EXIT
	local env=(PATH=/usr/sbin:/usr/bin HOME=/root LANG=C.UTF-8) v
	for v in $(compgen -e); do
		case $v in RG_LAB_* | RG_BENCH_*) env+=("$v=${!v}") ;; esac
	done
	local q
	q=$(printf ' %q' "$@")
	chroot "$root" /usr/bin/env -i "${env[@]}" /bin/bash -c "cd $(printf %q "$SRC") &&$q"
}

[ $# -ge 2 ] || die "usage: $0 pack FILE.tar.xz | run FILE.tar.xz [DIR] -- CMD..."
case $1 in
pack) pack "$2" ;;
run)
	tarball=$(realpath "$2")
	root=/tmp/rg-root
	shift 2
	if [ $# -gt 0 ] && [ "$1" != -- ]; then
		root=$1
		shift
	fi
	if [ "${1:-}" != -- ] || [ $# -lt 2 ]; then
		die "run: -- CMD... missing"
	fi
	shift
	run "$tarball" "$root" "$@"
	;;
*) die "unknown command $1 (pack or run)" ;;
esac
