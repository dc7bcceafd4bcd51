#!/bin/sh
# Quick start, step 2: the whole test suite, as root; builds first where needed.
#   1. build/: every suite (unit, output, host BPF, daemon, fault, load, packaging, bench, VM lab
#      e2e); with step 2 also to run, the output, host, daemon, fault and load suites are left to
#      it but for suite 'plain', what only a build without sanitizers checks (the daemon's reload
#      loop under valgrind, the spawn storm's RSS)
#   2. build-fuzz/ (clang, ASan+UBSan, libFuzzer instrumentation): the unit, output, host,
#      daemon, fault and load suites; every sanitizer finding and every leak fails
#   3. valgrind (memcheck, tests/hardening/valgrind.sh) on the unit suite of build/: the Check
#      binaries and every rdmaguard the CLI tests start; any error or leak fails
#   4. tests/fuzz/run.sh: every fuzz target for RG_FUZZ_SECONDS seconds (default 60)
# Each step prints its time as it ends, and a summary of them all comes last (docs/ci-budget.md:
# what each may take in CI). RG_TEST_STEPS picks steps (default "build sanitize valgrind fuzz").
# Extra arguments go to the `meson test` of step 1 and then only step 1 runs (tests/run.sh --suite
# unit); RG_TEST_MESON_ARGS also go to it without limiting the steps (RG_TEST_MESON_ARGS="--no-suite
# e2e": all but the VM).
set -eu
cd "$(dirname "$0")/.."
steps=${RG_TEST_STEPS:-build sanitize valgrind fuzz}
[ $# -gt 0 ] && steps=build
status=0
started=$(date +%s)
summary=""

has_step() {
	case " $steps " in *" $1 "*) return 0 ;; esac
	return 1
}

# begin NAME WHAT: a step starts. end RC: it ended (a failure makes the run fail).
begin() {
	name=$1
	echo "==== tests/run.sh: $1: $2"
	t0=$(date +%s)
}
end() {
	d=$(($(date +%s) - t0))
	result=ok
	if [ "$1" != 0 ]; then
		result=FAILED
		status=1
	fi
	echo "==== tests/run.sh: $name: $result in $d s"
	summary="$summary$(printf '  %-9s %6s s  %s' "$name" "$d" "$result")
"
}

# tests_in SUITE: the names of the tests of SUITE in build/ that RG_TEST_MESON_ARGS select.
tests_in() {
	# shellcheck disable=SC2086 # RG_TEST_MESON_ARGS is a list of arguments
	meson test -C build --no-rebuild --list ${RG_TEST_MESON_ARGS:-} 2>/dev/null |
		sed -n 's/^[^:]*:\([^ ]*\) \/ \(.*\)$/\1 \2/p' |
		awk -v s="$1" '{ n = split($1, a, "+"); for (i = 1; i <= n; i++) if (a[i] == s) print $2 }'
}

# shellcheck disable=SC2317 # the EXIT trap
finish() {
	rc=$?
	printf '==== tests/run.sh: summary\n%s  total     %6s s  %s\n' "$summary" \
		"$(($(date +%s) - started))" "$([ "$rc" = 0 ] && echo ok || echo "FAILED (exit $rc)")"
	exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

for s in $steps; do
	case $s in
	build)
		begin build "build/: every suite"
		if [ ! -f build/build.ninja ]; then
			meson setup build
		fi
		ninja -C build
		echo "==== tests/run.sh: build: compiled in $(($(date +%s) - t0)) s"
		rc=0
		# with step 2 to come, the suites it runs again but for what only this build checks (with
		# arguments, step 2 does not run)
		if has_step sanitize; then
			set -- --no-suite output --no-suite host --no-suite daemon --no-suite fault \
				--no-suite load
		fi
		# shellcheck disable=SC2086 # RG_TEST_MESON_ARGS is a list of arguments
		meson test -C build --print-errorlogs --num-processes 2 ${RG_TEST_MESON_ARGS:-} "$@" ||
			rc=$?
		if has_step sanitize; then
			# shellcheck disable=SC2046 # one name a word
			set -- $(tests_in plain)
			if [ $# -gt 0 ]; then
				meson test -C build --no-rebuild --print-errorlogs --logbase testlog-plain \
					"$@" || rc=$?
			fi
			set --
		fi
		end $rc
		;;
	sanitize)
		begin sanitize "build-fuzz/ (clang, ASan+UBSan): unit, output, host, daemon, fault, load"
		if [ ! -f build-fuzz/build.ninja ]; then
			CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined \
				-Db_lundef=false
		fi
		ninja -C build-fuzz
		echo "==== tests/run.sh: sanitize: compiled in $(($(date +%s) - t0)) s"
		rc=0
		meson test -C build-fuzz --print-errorlogs --num-processes 2 --suite unit \
			--suite output --suite host --suite daemon --suite fault --suite load \
			|| rc=$?
		end $rc
		;;
	valgrind)
		begin valgrind "valgrind: the unit suite of build/"
		if [ ! -f build/build.ninja ]; then
			meson setup build
		fi
		ninja -C build
		rc=0
		meson test -C build --print-errorlogs --num-processes 2 --setup valgrind \
			--suite unit || rc=$?
		end $rc
		;;
	fuzz)
		begin fuzz "fuzzing: every target for ${RG_FUZZ_SECONDS:-60} s"
		rc=0
		tests/fuzz/run.sh "${RG_FUZZ_SECONDS:-60}" || rc=$?
		end $rc
		;;
	*)
		echo "tests/run.sh: unknown step '$s' (build sanitize valgrind fuzz)" >&2
		exit 2
		;;
	esac
done
exit $status
