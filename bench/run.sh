#!/bin/sh
# rdmaguard's benchmarks: bench/run.sh [--quick] [--only NAME] [--out DIR] [--no-vm]
# (as root). Builds first if needed, then bench/bench.py measures and prints a markdown table of
# figures, baselines, ratios and targets, written with the raw data to DIR/results.{md,json}
# (default build/bench/). NAME: syscall verbs pipeline latency footprint audit. See the README's
# "## Performance".
set -eu
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
	meson setup build
fi
ninja -C build
exec /usr/bin/python3 bench/bench.py --build build "$@"
