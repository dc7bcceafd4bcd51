# shellcheck shell=bash
# Shared by the enforce-*.sh scenarios: `rdmaguard daemon --enforce` with a policy written here,
# its alerts in $OUT/NAME-alerts.jsonl and events in $OUT/NAME-events.jsonl. Source after lib.sh.

# enf_policy JSON: the policy file (root-owned, 0600, as the daemon demands) in $ENF_POLICY.
ENF_POLICY=$TMPDIR/policy.json
enf_policy()
{
	printf '%s\n' "$1" >"$ENF_POLICY.tmp"
	chmod 600 "$ENF_POLICY.tmp"
	mv "$ENF_POLICY.tmp" "$ENF_POLICY"
}

# enf_start NAME [ARGS...]: the daemon (background peer NAME) on the best sensors, enforcing.
enf_start()
{
	local name=$1
	shift
	rm -f "$OUT/$name.ready"
	bg "$name" "$RG" daemon --enforce --policy "$ENF_POLICY" --rules "$RG_SRC/rules" \
		--output "file:$OUT/$name-alerts.jsonl" --record "$OUT/$name-events.jsonl" \
		--ready-file "$OUT/$name.ready" --heartbeat 3600 "$@"
	# Loading and attaching under TCG takes a while: wait for the ready file, not a time.
	wait_for -t 300 -m "rdmaguard daemon $name ready (or gone)" _enf_up "$name"
	[ -e "$OUT/$name.ready" ] || fail "the daemon $name exited: $(grep -v '^[0-9]*: \|^;' "$OUT/$name.log" | tail -n 5)"
}

_enf_up()
{
	[ -e "$OUT/$1.ready" ] || _lab_gone "$(bg_pid "$1")"
}

enf_stop()
{
	kill -TERM "$(bg_pid "$1")"
	bg_wait -t 120 "$1" || fail "the daemon $1 did not stop cleanly"
}

# alerts NAME ARGS...: expect.py on daemon NAME's alerts.
alerts()
{
	local name=$1
	shift
	expect_json "$OUT/$name-alerts.jsonl" "$@"
}

# enf_status: `rdmaguard enforce --status` into $OUT/status.json (its exit status).
enf_status()
{
	"$RG" enforce >"$OUT/status.json"
}

# denied RC LOG: a peer that could not use the device (exit status not 0).
refused()
{
	[ "$1" != 0 ] || fail "expected a failure, got exit status 0; log: $(tail -n 5 "$2")"
}
