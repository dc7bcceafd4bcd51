#!/bin/sh
# Quick start, step 2: the whole test suite, as root; builds first where needed.
#   1. build/: every suite (unit, output, host BPF, daemon, fault, load, packaging, bench, VM lab
#      e2e); with step 2 also to run, the output, host, daemon, fault and load suites are left to
#      it but for suite 'plain', what only a build without sanitizers checks (the daemon's reload
#      loop under valgrind, the spawn storm's RSS). The VM lab (e2e: qemu, one host CPU) runs in
#      the background beside steps 1-4, which run at nice 10 meanwhile; its output comes last
#   2. build-fuzz/ (clang, ASan+UBSan, libFuzzer instrumentation): the unit, output, host,
#      daemon, fault and load suites; every sanitizer finding and every leak fails
#   3. valgrind (memcheck, tests/hardening/valgrind.sh) on the unit suite of build/: the Check
#      binaries and every rdmaguard the CLI tests start; any error or leak fails
#   4. tests/fuzz/run.sh: every fuzz target for RG_FUZZ_SECONDS seconds (default 60)
# Each step prints its time as it ends, and a summary of them all comes last (docs/ci-budget.md:
# what each may take in CI). RG_TEST_STEPS picks steps (default "build sanitize valgrind fuzz").
# Extra arguments go to the `meson test` of step 1 and then only step 1 runs (tests/run.sh --suite
# unit); RG_TEST_MESON_ARGS also go to it without limiting the steps (RG_TEST_MESON_ARGS="--no-suite
# e2e": all but the VM); with arguments every suite runs in the foreground. RG_TEST_SERIAL=1: the VM
# lab in the foreground too, in step 1's turn (as on a one-CPU machine).
set -eu
cd "$(dirname "$0")/.."
steps=${RG_TEST_STEPS:-build sanitize valgrind fuzz}
[ $# -gt 0 ] && steps=build
status=0
started=$(date +%s)
summary=""
nice=""
vm_pid=""
vm_dir=""

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
		awk -v s="$1" '{ n = split($1, a, "+"); for (i = 1; i <= n; i++)
			if (a[i] == s) print $2 }'
}

# The VM lab (suite e2e) in the background, in its own process group (setsid) so that it can be
# stopped whole; the foreground steps run at nice 10 meanwhile, which leaves qemu its CPU.
vm_start() {
	# shellcheck disable=SC2046 # one name a word
	set -- $(tests_in e2e)
	[ $# -gt 0 ] || return 0
	vm_dir=$(mktemp -d)
	vm_t0=$(date +%s)
	echo "==== tests/run.sh: e2e: $*: in the background (output at the end)"
	# shellcheck disable=SC2016 # expanded by that sh
	setsid -w sh -c 'd=$1; shift; echo $$ >"$d/pgid"; rc=0; meson test -C build --no-rebuild \
		--print-errorlogs --logbase testlog-e2e "$@" || rc=$?; echo "$rc $(date +%s)" \
		>"$d/status"' sh "$vm_dir" "$@" >"$vm_dir/log" 2>&1 &
	vm_pid=$!
	nice="nice -n 10"
}
vm_wait() {
	[ -n "$vm_pid" ] || return 0
	wait "$vm_pid" || true
	vm_pid=""
	nice=""
	echo "==== tests/run.sh: e2e: the VM lab's output (build/meson-logs/testlog-e2e.txt)"
	cat "$vm_dir/log"
	set -- 1 "$(date +%s)"
	if [ -s "$vm_dir/status" ]; then
		read -r vm_rc vm_at <"$vm_dir/status"
		set -- "$vm_rc" "$vm_at"
	fi
	rm -rf "$vm_dir"
	result=ok
	if [ "$1" != 0 ]; then
		result=FAILED
		[ "$1" != stopped ] || result=stopped
		status=1
	fi
	echo "==== tests/run.sh: e2e: $result in $(($2 - vm_t0)) s"
	summary="$summary$(printf '  %-9s %6s s  %s (in the background from %s s)' e2e \
		"$(($2 - vm_t0))" "$result" "$((vm_t0 - started))")
"
}

# shellcheck disable=SC2317 # the EXIT trap
finish() {
	rc=$?
	if [ -n "$vm_pid" ] && [ ! -s "$vm_dir/status" ]; then
		if [ -s "$vm_dir/pgid" ]; then
			kill -TERM -- "-$(cat "$vm_dir/pgid")" 2>/dev/null || true
		fi
		wait "$vm_pid" 2>/dev/null || true
		echo "stopped $(date +%s)" >"$vm_dir/status"
	fi
	vm_wait
	result=ok
	[ "$rc" = 0 ] || result="FAILED (exit $rc)"
	printf '==== tests/run.sh: summary\n%s  total     %6s s  %s\n' "$summary" \
		"$(($(date +%s) - started))" "$result"
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
		if [ $# -eq 0 ] && [ "${RG_TEST_SERIAL:-0}" != 1 ]; then
			vm_start
			set -- --no-suite e2e
		fi
		# with step 2 to come, the suites it runs again but for what only this build
		# checks (with arguments, step 2 does not run)
		if has_step sanitize; then
			set -- "$@" --no-suite output --no-suite host --no-suite daemon \
				--no-suite fault --no-suite load
		fi
		# shellcheck disable=SC2086 # RG_TEST_MESON_ARGS is a list of arguments
		$nice meson test -C build --no-rebuild --print-errorlogs --num-processes 2 \
			${RG_TEST_MESON_ARGS:-} "$@" || rc=$?
		if has_step sanitize; then
			# shellcheck disable=SC2046 # one name a word
			set -- $(tests_in plain)
			if [ $# -gt 0 ]; then
				$nice meson test -C build --no-rebuild --print-errorlogs \
					--logbase testlog-plain "$@" || rc=$?
			fi
		fi
		set --
		end $rc
		;;
	sanitize)
		begin sanitize \
			"build-fuzz/ (clang, ASan+UBSan): unit, output, host, daemon, fault, load"
		if [ ! -f build-fuzz/build.ninja ]; then
			CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined \
				-Db_lundef=false
		fi
		$nice ninja -C build-fuzz
		echo "==== tests/run.sh: sanitize: compiled in $(($(date +%s) - t0)) s"
		rc=0
		$nice meson test -C build-fuzz --no-rebuild --print-errorlogs --num-processes 2 \
			--suite unit --suite output --suite host --suite daemon --suite fault \
			--suite load || rc=$?
		end $rc
		;;
	valgrind)
		begin valgrind "valgrind: the unit suite of build/"
		if [ ! -f build/build.ninja ]; then
			meson setup build
		fi
		$nice ninja -C build
		rc=0
		$nice meson test -C build --no-rebuild --print-errorlogs --num-processes 2 \
			--setup valgrind --suite unit || rc=$?
		end $rc
		;;
	fuzz)
		begin fuzz "fuzzing: every target for ${RG_FUZZ_SECONDS:-60} s"
		rc=0
		$nice tests/fuzz/run.sh "${RG_FUZZ_SECONDS:-60}" || rc=$?
		end $rc
		;;
	*)
		echo "tests/run.sh: unknown step '$s' (build sanitize valgrind fuzz)" >&2
		exit 2
		;;
	esac
done
vm_wait
exit $status
