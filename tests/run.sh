#!/bin/sh
# Quick start, step 2: the whole test suite, as root; builds first where needed.
#   build     build/: every suite (unit, output, host BPF, daemon, fault, load, packaging, bench,
#             VM lab e2e); with step sanitize also to run, the output, host, daemon, fault and
#             load suites are left to it but for suite 'plain', what only a build without
#             sanitizers checks (the daemon's reload loop under valgrind, the spawn storm's RSS)
#   sanitize  build-fuzz/ (clang, ASan+UBSan, libFuzzer instrumentation): the unit, output, host,
#             daemon, fault and load suites; every sanitizer finding and every leak fails
#   fuzz      tests/fuzz/run.sh: every fuzz target for RG_FUZZ_SECONDS seconds (default 60)
#   valgrind  memcheck (tests/hardening/valgrind.sh) on the unit suite of build/: the Check
#             binaries and every rdmaguard the CLI tests start; any error or leak fails
# What runs beside what (docs/ci-budget.md): from the end of build/'s compile, the VM lab (suite
# e2e; qemu, one host CPU) in the background, and in another job the tests of suite beside (the
# package test and the lab's harness: downloads and idle guests, mostly waiting); the privileged
# suites of step sanitize in the background beside its unit suite and step fuzz (valgrind, which
# a daemon's uprobes in libibverbs would stop with SIGTRAP, waits for them). Background output
# comes last; the foreground runs at nice 10 meanwhile, which leaves qemu its CPU.
# Each step prints its time as it ends, and a summary of them all comes last. RG_TEST_STEPS picks
# steps (default "build sanitize fuzz valgrind"). Extra arguments go to the `meson test` of step
# build and then only that step runs, in the foreground (tests/run.sh --suite unit);
# RG_TEST_MESON_ARGS also go to it without limiting the steps (RG_TEST_MESON_ARGS="--no-suite
# e2e": all but the VM). RG_TEST_SERIAL=1: nothing in the background, every step in its turn.
set -eu
cd "$(dirname "$0")/.."
steps=${RG_TEST_STEPS:-build sanitize fuzz valgrind}
[ $# -gt 0 ] && steps=build
serial=${RG_TEST_SERIAL:-0}
[ $# -gt 0 ] && serial=1
status=0
started=$(date +%s)
summary=""
nice=""
jobs_dir=$(mktemp -d)
running="" # the background jobs not yet waited for

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
	summary="$summary$(printf '  %-13s %6s s  %s' "$name" "$d" "$result")
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

# job_start NAME WHAT COMMAND...: COMMAND in the background, in its own process group (setsid) so
# that it can be stopped whole; its output in JOBS/NAME/log, "RC END" in JOBS/NAME/status.
job_start() {
	jd=$jobs_dir/$1
	mkdir "$jd"
	date +%s >"$jd/t0"
	echo "==== tests/run.sh: $1: $2: in the background (output at the end)"
	shift 2
	# shellcheck disable=SC2016 # expanded by that sh
	setsid -w sh -c 'd=$1; shift; echo $$ >"$d/pgid"; rc=0; "$@" || rc=$?
		echo "$rc $(date +%s)" >"$d/status"' \
		sh "$jd" "$@" >"$jd/log" 2>&1 &
	echo $! >"$jd/pid"
	running="$running $(basename "$jd")"
	nice="nice -n 10"
}

# job_wait NAME: waits for the job, shows its output and adds it to the summary.
job_wait() {
	jd=$jobs_dir/$1
	case " $running " in *" $1 "*) ;; *) return 0 ;; esac
	wait "$(cat "$jd/pid")" || true
	running=$(echo "$running" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
	[ -n "$(echo "$running" | tr -d ' ')" ] || nice=""
	echo "==== tests/run.sh: $1: its output"
	cat "$jd/log"
	set -- "$1" 1 "$(date +%s)" "$(cat "$jd/t0")"
	if [ -s "$jd/status" ]; then
		read -r job_rc job_at <"$jd/status"
		set -- "$1" "$job_rc" "$job_at" "$4"
	fi
	result=ok
	if [ "$2" != 0 ]; then
		result=FAILED
		[ "$2" != stopped ] || result=stopped
		status=1
	fi
	echo "==== tests/run.sh: $1: $result in $(($3 - $4)) s"
	summary="$summary$(printf '  %-13s %6s s  %s (in the background from %s s)' "$1" \
		"$(($3 - $4))" "$result" "$(($4 - started))")
"
}

# job_stop NAME: stops a job that has not ended (a failure or an interruption of this script).
# shellcheck disable=SC2317 # called by the EXIT trap
job_stop() {
	jd=$jobs_dir/$1
	if kill -0 "$(cat "$jd/pid")" 2>/dev/null; then
		# (dash: no "--" before a negative pid)
		[ ! -s "$jd/pgid" ] || kill -TERM "-$(cat "$jd/pgid")" 2>/dev/null || true
		wait "$(cat "$jd/pid")" 2>/dev/null || true
	fi
	[ -s "$jd/status" ] || echo "stopped $(date +%s)" >"$jd/status"
}

# The VM lab (suite e2e, but for what is also in suite beside) in the background; the tests of
# suite beside in another background job.
vm_start() {
	# shellcheck disable=SC2046 # one name a word
	set -- $(tests_in beside)
	beside="$*"
	lab=""
	for t in $(tests_in e2e); do
		case " $beside " in
		*" $t "*) ;;
		*) lab="${lab:+$lab }$t" ;;
		esac
	done
	if [ -n "$lab" ]; then
		# shellcheck disable=SC2086 # one name a word
		job_start e2e "$lab" meson test -C build --no-rebuild --print-errorlogs \
			--logbase testlog-e2e $lab
	fi
	if [ -n "$beside" ]; then
		# not niced: they use little CPU, and the harness's guests must boot within its
		# 60 s wall-clock case (at nice 10 and a load of 20 one took 72 s)
		# shellcheck disable=SC2086 # one name a word
		job_start beside "$beside" meson test -C build --no-rebuild --print-errorlogs \
			--logbase testlog-beside $beside
	fi
}

# shellcheck disable=SC2317 # the EXIT trap
finish() {
	rc=$?
	for j in $running; do
		job_stop "$j"
	done
	for j in $running; do
		job_wait "$j"
	done
	rm -rf "$jobs_dir"
	result=ok
	[ "$rc" = 0 ] || result="FAILED (exit $rc)"
	printf '==== tests/run.sh: summary\n%s  total         %6s s  %s\n' "$summary" \
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
		if [ "$serial" != 1 ]; then
			vm_start
			set -- --no-suite e2e --no-suite beside
		fi
		# with step sanitize to come, the suites it runs again but for what only this build
		# checks (with arguments, step sanitize does not run)
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
			"build-fuzz/ (clang, ASan+UBSan): unit; output, host, daemon, fault, load"
		if [ ! -f build-fuzz/build.ninja ]; then
			CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined \
				-Db_lundef=false
		fi
		$nice ninja -C build-fuzz
		echo "==== tests/run.sh: sanitize: compiled in $(($(date +%s) - t0)) s"
		rc=0
		set -- --suite output --suite host --suite daemon --suite fault --suite load
		if [ "$serial" != 1 ]; then
			# the privileged suites (one test at a time, mostly waiting on daemons,
			# rsyslog, timers) beside the unit suite and step fuzz (CPU-bound)
			job_start sanitize-root "build-fuzz/: output, host, daemon, fault, load" \
				nice -n 10 meson test -C build-fuzz --no-rebuild --print-errorlogs \
				--logbase testlog-root "$@"
			set --
		fi
		$nice meson test -C build-fuzz --no-rebuild --print-errorlogs --num-processes 2 \
			--suite unit "$@" || rc=$?
		set --
		end $rc
		;;
	valgrind)
		# a daemon's uprobes in libibverbs (the privileged suites) stop memcheck with SIGTRAP
		job_wait sanitize-root
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
		echo "tests/run.sh: unknown step '$s' (build sanitize fuzz valgrind)" >&2
		exit 2
		;;
	esac
done
job_wait sanitize-root
job_wait beside
job_wait e2e
exit $status
