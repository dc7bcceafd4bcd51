#!/bin/sh
# rdmaguard's benchmarks: bench/run.sh [--quick] [--only NAME] [--out DIR] [--no-vm] [--kvm] ... (see
# bench/bench.py --help)
# (as root). Builds first if needed, then bench/bench.py measures and prints a markdown table of
# figures, baselines, ratios and targets, written with the raw data to DIR/results.{md,json}
# (default build/bench/). NAME: syscall verbs pipeline latency footprint audit. Environment:
# RG_BENCH_VM_WRAPPER, a command the VM lab runs under (e.g. a VM slot lock on a shared machine).
# Exit 0: every figure measured (targets missed or not); 1: a figure could not be measured or the
# instruction count per event regressed; 2: bad usage. See docs/performance.md.
set -eu
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
	meson setup build
fi
ninja -C build
exec /usr/bin/python3 bench/bench.py --build build "$@"
