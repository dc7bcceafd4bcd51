#!/bin/bash
# Load (issue 10): a verbs storm on rxe0 while the daemon runs. rg-verbs-storm
# (tests/integration/load/): 4 processes, each 2000 MR registrations with remote access and 300 RC
# QP creations through libibverbs. tests/integration/load/check_verbs_storm.py then checks that
# every reg_mr and create_qp was recorded or the loss counted and reported exactly, that the alerts
# stay few (aggregation) with exact counts, and that the daemon's memory stayed bounded.
# lab-timeout: 900
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"

STORM=$RG_BUILD/tests/integration/load/rg-verbs-storm
[ -x "$STORM" ] || fail "$STORM not built"
conf=$(mktemp -d)
printf '{"role": "managed", "aggregate_window": "5s"}\n' >"$conf/policy.json"
chmod 600 "$conf/policy.json"

bg daemon "$RG" daemon --policy "$conf/policy.json" --record "$OUT/events.jsonl" \
	--output "file:$OUT/alerts.jsonl" --ready-file "$OUT/ready" \
	--status-socket "$conf/status.sock" --state-dir "$conf/state" --heartbeat 3600
wait_for -t 300 -m "rdmaguard daemon ready" test -e "$OUT/ready"

"$STORM" rxe0 4 2000 300 >"$OUT/storm.txt" || fail "rg-verbs-storm failed: $(cat "$OUT/storm.txt")"
log "storm: $(tail -n 1 "$OUT/storm.txt")"
# The daemon has handled the storm when its count of verbs events stops moving (the status
# and checks themselves make exec, fork and exit events).
verbs_total()
{
	"$RG" status --socket "$conf/status.sock" --format json >"$OUT/status.json" &&
		expect_json -q "$OUT/status.json" --match '{"events.total": {">": 0}}' \
			--get events.by_type.verbs
}
settled()
{
	local a b
	a=$(verbs_total) && sleep 1 && b=$(verbs_total) && [ "$a" = "$b" ]
}
wait_for -t 300 -m "the daemon to handle the storm" settled
kill -TERM "$(bg_pid daemon)"
bg_wait -t 120 daemon || fail "the daemon did not stop cleanly"
/usr/bin/python3 "$RG_SRC/tests/integration/load/check_verbs_storm.py" "$OUT/events.jsonl" \
	"$OUT/alerts.jsonl" "$OUT/storm.txt" "$OUT/status.json" >&2 || fail "verbs storm checks"
