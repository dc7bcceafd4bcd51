#!/bin/bash
# Fuzzing (docs/testing.md, "Hardening runs"): builds every target of tests/fuzz/ with clang, libFuzzer, ASan and
# UBSan in build-fuzz/ (its own build directory), then runs each for SECONDS (default 60) from its
# seed corpus (corpus/TARGET/) and the crashes found before (regressions/TARGET/). A crash, a
# sanitizer finding, a leak, an input that takes over 10 s or a process over 2 GiB fails the run;
# the input that did it is copied into tests/fuzz/regressions/TARGET/, where the unit suite
# replays it on every build from then on (fix the bug, commit the input).
#
#   tests/fuzz/run.sh [SECONDS] [TARGET...]
#
# RG_FUZZ_JOBS: targets fuzzed at once (default: the number of CPUs). New inputs the fuzzer finds
# go to build-fuzz/fuzz-corpus/TARGET/ (kept between runs, never committed by this script).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
case "$seconds" in
'' | *[!0-9]*)
	echo "usage: $0 [SECONDS] [TARGET...]" >&2
	exit 2
	;;
esac
build=build-fuzz
src=tests/fuzz

if [ ! -f $build/build.ninja ]; then
	CC=clang meson setup $build -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
fi
if [ $# -gt 0 ]; then
	targets=("$@")
else
	# Every target: one per tests/fuzz/fuzz_NAME.c. meson's list of the libFuzzer binaries it
	# builds must name the same ones: a list that came out empty or short would fuzz nothing,
	# or less, and still pass.
	targets=()
	for f in "$src"/fuzz_*.c; do
		[ -e "$f" ] || continue
		f=${f##*/fuzz_}
		targets+=("${f%.c}")
	done
	mapfile -t built < <(meson introspect --targets $build | /usr/bin/python3 -c '
import json, sys
print("\n".join(t["name"][len("fuzz-"):] for t in json.load(sys.stdin)
                if t["type"] == "executable" and t["name"].startswith("fuzz-")
                and not t["name"].startswith(("fuzz-replay-", "fuzz-make-"))))' | LC_ALL=C sort)
	if [ ${#targets[@]} -eq 0 ]; then
		echo "$0: no fuzz target: no $src/fuzz_*.c" >&2
		exit 1
	fi
	if [ "$(printf '%s\n' "${targets[@]}" | LC_ALL=C sort)" != "$(printf '%s\n' "${built[@]}")" ]
	then
		echo "$0: the targets of $src/fuzz_*.c (${targets[*]}) are not the libFuzzer" \
			"binaries $build/ builds (${built[*]:-none}): $src/meson.build's fuzz_targets" >&2
		exit 1
	fi
fi
ninja -C $build "${targets[@]/#/tests/fuzz/fuzz-}"

# Sanitizer findings abort (the build has -fno-sanitize-recover=all); libFuzzer checks leaks.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:symbolize=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TMPDIR=${TMPDIR:-$([ -d /dev/shm ] && echo /dev/shm || echo /tmp)}
jobs=${RG_FUZZ_JOBS:-$(nproc)}
logs=$build/fuzz-logs
mkdir -p $logs

run_one() {
	local t=$1 work=$build/fuzz-corpus/$1 art=$build/fuzz-artifacts/$1/
	mkdir -p "$work" "$art"
	rm -f "$art"*
	local dirs=("$work" "$src/corpus/$t")
	[ -d "$src/regressions/$t" ] && dirs+=("$src/regressions/$t")
	local dict=()
	[ -f "$src/dict/$t.dict" ] && dict=(-dict="$src/dict/$t.dict")
	"$build/tests/fuzz/fuzz-$t" "${dirs[@]}" "${dict[@]}" -max_total_time="$seconds" \
		-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$art" >"$logs/$t.log" 2>&1
}

declare -A pids=()
status=0
finish() {
	local t=$1 rc=$2 f found=0
	for f in "$build/fuzz-artifacts/$t/"*; do
		[ -f "$f" ] || continue
		mkdir -p "$src/regressions/$t"
		cp "$f" "$src/regressions/$t/"
		echo "fuzz-$t: $(basename "$f") -> $src/regressions/$t/"
		found=1
	done
	local stats
	stats=$(grep -E '^stat::number_of_executed_units' "$logs/$t.log" | awk '{print $2}')
	if [ "$rc" -ne 0 ] || [ $found -ne 0 ]; then
		echo "FAIL fuzz-$t (exit $rc, ${stats:-?} runs); log: $logs/$t.log"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|.*property violated)' "$logs/$t.log" |
			head -5 | sed 's/^/     /'
		status=1
	else
		echo "ok   fuzz-$t: ${stats:-?} runs in ${seconds} s, no crash"
	fi
}

for t in "${targets[@]}"; do
	while [ ${#pids[@]} -ge "$jobs" ]; do
		wait -n || true
		for p in "${!pids[@]}"; do
			if ! kill -0 "$p" 2>/dev/null; then
				wait "$p" && rc=0 || rc=$?
				finish "${pids[$p]}" $rc
				unset "pids[$p]"
			fi
		done
	done
	run_one "$t" &
	pids[$!]=$t
done
for p in "${!pids[@]}"; do
	wait "$p" && rc=0 || rc=$?
	finish "${pids[$p]}" $rc
done
exit $status
