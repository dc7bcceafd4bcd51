#!/bin/sh
# rounds5.sh N OUT: where the time of incidents goes; pinned 1M replays, interleaved:
# noinc (main before incidents), after (records written), after-norecords (replay without
# --incidents: incidents kept, no record built or written), after-nolog (records written, the
# kept log off: a build of the same code with an RG_NOLOG switch, experiment only)
n=$1; out=$2
for r in $(seq 1 $n); do
  echo "$r noinc $(SRC=/tmp/incperf-base ./run1.sh bin/rdmaguard.noinc 2>/dev/null | tail -1)" >> $out
  echo "$r after $(./run1.sh bin/rdmaguard.after --incidents 2>/dev/null | tail -1)" >> $out
  echo "$r after-norecords $(./run1.sh bin/rdmaguard.after 2>/dev/null | tail -1)" >> $out
  echo "$r after-nolog $(RG_NOLOG=1 ./run1.sh bin/rdmaguard.exp2 --incidents 2>/dev/null | tail -1)" >> $out
done
echo done >> $out
