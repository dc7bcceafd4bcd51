#!/bin/sh
# Quick start, step 1 (as root on Debian 12): install what rdmaguard needs from the Debian archive,
# build it into ./build and run a one-shot audit of this machine.
#   packaging/bootstrap.sh            deps + build + `rdmaguard audit`
#   packaging/bootstrap.sh --deps     only install the build and test dependencies
#   packaging/bootstrap.sh --build    only (re)configure and build
set -eu
cd "$(dirname "$0")/.."

# Build dependencies (also debian/control's Build-Depends).
BUILD_DEPS="meson ninja-build gcc clang llvm pkg-config bpftool libbpf-dev libelf-dev zlib1g-dev
 libjson-c-dev libibverbs-dev librdmacm-dev libmnl-dev libssl-dev libsystemd-dev check
 libmicrohttpd-dev libpci-dev pciutils librelp-dev libcap-ng-dev libpq-dev libcrypt-dev"
# What the test suites run: the VM lab (qemu + Debian's kernel with rdma_rxe + rdma-core's tools),
# a real syslog collector, schema validation, packaging checks (the .deb built and installed into a
# debootstrap'd Debian 12, lintian, the daemon under the unit's restrictions: python3-seccomp);
# clang's sanitizer and libFuzzer runtimes (libclang-rt-14-dev) and valgrind for the hardening runs;
# auditd and bpftrace, what the benchmarks (bench/run.sh) compare the agent with; the fleet's central
# side (fleet/): rsyslog's RELP input and PostgreSQL output, PostgreSQL 15, YAML for the Sigma rules;
# gcc-multilib for the 32-bit build of the host tests' driver (the ia32 entry points); bubblewrap,
# how the VM lab starts a game the way Steam's pressure-vessel does; headless Chromium and
# Selenium for the console's browser tests (tests/integration/console/); python3-pyparsing to
# python3-typing-extensions: what the vendored pySigma and sigma-cli need
# (tests/integration/fleet/sigma-tools/README.md).
TEST_DEPS="qemu-system-x86 linux-image-amd64 busybox-static kmod iproute2 rdma-core ibverbs-utils
 ibverbs-providers perftest rdmacm-utils rsyslog rsyslog-gnutls gnutls-bin openssl python3
 python3-jsonschema valgrind systemd procps util-linux
 debootstrap lintian debhelper dpkg-dev python3-seccomp groff-base man-db libclang-rt-14-dev
 auditd bpftrace gcc-multilib bubblewrap
 prometheus
 rsyslog-relp rsyslog-pgsql postgresql-15 python3-yaml
 chromium chromium-driver python3-selenium
 python3-pyparsing python3-jinja2 python3-packaging python3-requests python3-click
 python3-prettytable python3-colorama python3-diskcache python3-typing-extensions"

deps() {
	export DEBIAN_FRONTEND=noninteractive
	apt-get update
	# shellcheck disable=SC2086
	apt-get install -y --no-install-recommends $BUILD_DEPS $TEST_DEPS
}

build() {
	if [ -d build ] && [ -f build/build.ninja ]; then
		meson setup --reconfigure build
	else
		meson setup build
	fi
	ninja -C build
}

case "${1:-all}" in
--deps) deps ;;
--build) build ;;
all)
	deps
	build
	status=0
	build/agent/rdmaguard audit --format text || status=$?
	echo "rdmaguard audit exited with $status (0 clean, 1 findings, 2 error)"
	[ "$status" -le 1 ]
	;;
*)
	echo "usage: $0 [--deps|--build]" >&2
	exit 2
	;;
esac
