#!/bin/bash
# Harness self-test: longer than the VM's wall-clock limit that test_lab.sh gives it.
# lab-timeout: 600
set -euo pipefail
echo "wallclock: sleeping"
sleep 1004
