#!/bin/sh
# run1.sh BINARY [extra args]: one pinned replay of ev1m.jsonl; prints user sys
b=$1; shift
/usr/bin/time -f "%U %S %e" -o /tmp/incperf/time.$$ taskset -c 1 $b replay /tmp/incperf/ev1m.jsonl --rules ${SRC:-/work/wt/incperf}/rules --policy ${SRC:-/work/wt/incperf}/bench/data/policy.json --output file:/tmp/incperf/out.$$.jsonl --hostname bench-host --boot-id 00000000-0000-4000-8000-000000000000 --boot-time 2026-12-01T00:00:00Z --flush-timeout 30 "$@" >/dev/null 2>&1
cat /tmp/incperf/time.$$; rm -f /tmp/incperf/time.$$ /tmp/incperf/out.$$.jsonl
