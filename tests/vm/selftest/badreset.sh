#!/bin/bash
# Harness self-test, run last: passes itself, but the runner's reset after it fails (`rdma link
# delete` is /bin/false from here on), so the runner exits 1 without its done mark; lab.sh must
# fail the run.
set -euo pipefail
mount --bind /bin/false "$(command -v rdma)"
echo "badreset: rdma is /bin/false"
