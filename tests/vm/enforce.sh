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

# What the kernel answered, asked by the scenarios themselves (tests/vm/rg-lab-probe.c,
# rg-errno-shim.c): never a tool's exit status or a timeout alone.
PROBE=$RG_BUILD/tests/vm/rg-lab-probe
SHIM=$RG_BUILD/tests/vm/rg-errno-shim.so
if [ ! -x "$PROBE" ] || [ ! -f "$SHIM" ]; then
	fail "no $PROBE or $SHIM: build the project first"
fi

# enf_start NAME [ARGS...]: the daemon (background peer NAME) on the best sensors, enforcing;
# ENF_WRAP (an array) goes before it on its command line.
ENF_WRAP=()
enf_start()
{
	local name=$1
	shift
	rm -f "$OUT/$name.ready"
	bg "$name" "${ENF_WRAP[@]}" "$RG" daemon --enforce --policy "$ENF_POLICY" --rules "$RG_SRC/rules" \
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

# enf_count KEY: a counter of the pinned programs now ("denied", "killed"). Counters live as long
# as the pins, across daemons: compare two readings around a step, never one reading with a total.
enf_count()
{
	enf_status || fail "rdmaguard enforce --status: nothing pinned"
	expect_json -q "$OUT/status.json" --match '{"pinned": true}' --count 1 --get "$1"
}

# refused NAME NODE CMD...: CMD (an rdma-core tool, rg-errno-shim preloaded), run as background
# peer NAME, must be refused by the kernel: its open of NODE answered -1 EPERM (the shim's line,
# with the tool's own pid), and the tool then ends by itself with a non-zero status. A server that
# the kernel let open NODE would wait for a peer: it is failed as soon as its open succeeds, never
# counted as refused after a timeout. Sets REFUSED_PID (for the denial's alert).
export REFUSED_PID=""
refused()
{
	local name=$1 node=$2 line pid rc=0
	shift 2
	bg "$name" env LD_PRELOAD="$SHIM" "$@"
	pid=$(bg_pid "$name")
	wait_for -t 120 -m "$name's open of $node" \
		grep -q "^rg-errno-shim: pid=$pid open($node) = " "$OUT/$name.log"
	line=$(grep -m 1 "^rg-errno-shim: pid=$pid open($node) = " "$OUT/$name.log")
	if [ "$line" != "rg-errno-shim: pid=$pid open($node) = -1 EPERM" ]; then
		kill -KILL "$pid" 2>/dev/null || true
		fail "$name ($*): the kernel did not refuse its open of $node: $line"
	fi
	bg_wait -t 120 "$name" || rc=$?
	[ "$rc" != 0 ] || fail "$name: refused $node with EPERM, yet it exited 0"
	log "$name (pid $pid): open($node) = -1 EPERM, exit status $rc"
	REFUSED_PID=$pid
}

# refused_rc RC LOG [PATTERN]: a command ended with a failure of its own (not killed, not timed
# out) and its log holds the kernel's EPERM: PATTERN (grep -E), by default "Operation not
# permitted" (modprobe prints finit_module()'s error so); for rdma, run with rg-errno-shim,
# "sendto\(netlink\) = -1 EPERM".
refused_rc()
{
	local pattern=${3:-Operation not permitted}
	case $1 in
	0) fail "expected a refusal, got exit status 0; log: $(tail -n 5 "$2")" ;;
	124 | 137) fail "expected a refusal, got a timeout or a kill ($1); log: $(tail -n 5 "$2")" ;;
	esac
	grep -Eq -- "$pattern" "$2" || fail "no EPERM ($pattern) in $2: $(tail -n 5 "$2")"
}
