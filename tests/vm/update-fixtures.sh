#!/bin/bash
# Regenerates tests/fixtures/netlink: runs the capture-nldev scenario in the VM lab, copies its
# captures over the fixtures and checks them. Review `git diff --stat` and commit the result.
# Arguments go to lab.sh (e.g. --build DIR).
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
"$src/tests/vm/lab.sh" --results "$results" "$@" capture-nldev
dst=$src/tests/fixtures/netlink
rm -f "$dst"/*.bin "$dst"/*.json
cp "$results"/capture-nldev/netlink/* "$dst/"
/usr/bin/python3 "$src/tests/vm/nldev.py" check "$dst"
echo "updated $dst"
