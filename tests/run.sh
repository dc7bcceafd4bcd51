#!/bin/sh
# Quick start, step 2: the whole test suite, as root; builds first where needed.
#   1. build/: every suite (unit, output, host BPF, daemon, VM lab e2e)
#   2. build-fuzz/ (clang, ASan+UBSan, libFuzzer instrumentation): the unit, output, host,
#      daemon, fault and load suites again; every sanitizer finding and every leak fails
#   3. valgrind (memcheck, tests/hardening/valgrind.sh) on the unit suite of build/: the Check
#      binaries and every rdmaguard the CLI tests start; any error or leak fails
#   4. tests/fuzz/run.sh: every fuzz target for RG_FUZZ_SECONDS seconds (default 60)
# RG_TEST_STEPS picks steps (default "build sanitize valgrind fuzz"). Extra arguments go to the
# `meson test` of step 1 and then only step 1 runs (tests/run.sh --suite unit).
set -eu
cd "$(dirname "$0")/.."
steps=${RG_TEST_STEPS:-build sanitize valgrind fuzz}
[ $# -gt 0 ] && steps=build
status=0

step() {
	echo "==== tests/run.sh: $1"
}

for s in $steps; do
	case $s in
	build)
		step "build/: every suite"
		if [ ! -f build/build.ninja ]; then
			meson setup build
		fi
		ninja -C build
		meson test -C build --print-errorlogs --num-processes 2 "$@" || status=1
		;;
	sanitize)
		step "build-fuzz/ (clang, ASan+UBSan): unit, output, host, daemon, fault, load"
		if [ ! -f build-fuzz/build.ninja ]; then
			CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined \
				-Db_lundef=false
		fi
		ninja -C build-fuzz
		meson test -C build-fuzz --print-errorlogs --num-processes 2 --suite unit \
			--suite output --suite host --suite daemon --suite fault --suite load \
			|| status=1
		;;
	valgrind)
		step "valgrind: the unit suite of build/"
		if [ ! -f build/build.ninja ]; then
			meson setup build
		fi
		ninja -C build
		meson test -C build --print-errorlogs --num-processes 2 --setup valgrind \
			--suite unit || status=1
		;;
	fuzz)
		step "fuzzing: every target for ${RG_FUZZ_SECONDS:-60} s"
		tests/fuzz/run.sh "${RG_FUZZ_SECONDS:-60}" || status=1
		;;
	*)
		echo "tests/run.sh: unknown step '$s' (build sanitize valgrind fuzz)" >&2
		exit 2
		;;
	esac
done
exit $status
