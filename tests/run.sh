#!/bin/sh
# Quick start, step 2: the whole test suite (unit, host BPF, VM lab e2e), as root.
# Builds first if needed. Extra arguments go to `meson test` (e.g. --suite unit).
set -eu
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
	meson setup build
fi
ninja -C build
exec meson test -C build --print-errorlogs --num-processes 2 "$@"
