#!/bin/sh
# rounds.sh N OUT LABEL=BINARY...: N interleaved rounds of pinned 1M-event replays; one line per run:
# round label user sys wall
n=$1; out=$2; shift 2
SRC=/work/wt/incperf ./run1.sh bin/rdmaguard.before --incidents >/dev/null 2>&1  # unmeasured warm-up
for r in $(seq 1 $n); do
  for lb in "$@"; do
    l=${lb%%=*}; b=${lb#*=}
    case $l in noinc) t=$(SRC=/tmp/incperf-base ./run1.sh $b 2>/dev/null | tail -1);;
               *) t=$(./run1.sh $b --incidents 2>/dev/null | tail -1);; esac
    echo "$r $l $t" >> $out
  done
done
echo done >> $out
