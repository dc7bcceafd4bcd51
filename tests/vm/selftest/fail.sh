#!/bin/bash
# Harness self-test: a failing scenario, its status and the tail of its log are reported.
set -euo pipefail
echo "fail: deliberate failure"
exit 3
