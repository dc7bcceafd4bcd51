#!/bin/bash
# Benchmarks that need a real RDMA stack (rxe0) or the fentry/kprobe sensor flavours: run by
# bench/run.sh as a VM lab scenario (tests/vm/lab.sh --results DIR bench/vm/bench-vm.sh).
# It only measures; bench/bench.py (bench/figures/) computes the figures. Every measurement is one
# JSON line in $OUT/measurements.jsonl: {"what": ..., "config": ..., "round": N, "data": {...}}.
# In the first cycle, with each daemon: "bpfruns-OP" and (auto) "bpfruns-verbs", the daemon's BPF
# program runs and run time for the loops and the verbs setup (bench/bpf_runs.py).
#
# Configuration: $OUT/../bench-vm.conf (written by bench/figures/vmlab.py; shell assignments):
#   PARTS      any of: syscall verbs latency footprint record
#   FLAVOURS   sensor flavours to measure the syscall loop under (auto kprobe tracepoint)
#   LOOP_N LOOP_R      syscall_loop iterations per round and rounds
#   SETUP_N SETUP_R    verbs_setup QPs/MRs per round and rounds
#   PP_N       ibv_rc_pingpong iterations; PP_R pingpong runs per configuration
#   LAT_N      detection latency samples
#   CYCLES     how many times the whole cycle of flavours runs (rounds: CYCLES x flavours)
#   VERBS_FLAVOURS  the flavours the verbs setup (and pingpong) is measured under (auto)
#   ICOUNT     1: the lab runs under qemu -icount (bench.py's instruction-count lab: the guest's
#              clock counts instructions, one vCPU, so bpfruns gives each program's instructions):
#              no pingpong (two busy-polling processes on one vCPU measure the scheduler's slices)
# lab-timeout: 3000
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"

PARTS="syscall verbs latency"
FLAVOURS="auto kprobe tracepoint"
LOOP_N=20000 LOOP_R=9 SETUP_N=16 SETUP_R=5 PP_N=200 PP_R=3 LAT_N=50 CYCLES=1
VERBS_FLAVOURS=auto ICOUNT=0
conf=$OUT/../bench-vm.conf
# shellcheck disable=SC1090
[ -f "$conf" ] && . "$conf"

[ -x "$RG" ] || fail "no agent at $RG: build first"
LOOP=$RG_BUILD/bench/syscall_loop
LOOP_OPS=(write ioctl open getppid) # syscall_loop's loops, as bench/figures/syscall.py's OPS
SETUP=$RG_BUILD/bench/verbs_setup
if [ ! -x "$LOOP" ] || [ ! -x "$SETUP" ]; then
	fail "no bench programs in $RG_BUILD/bench: build first"
fi
M=$OUT/measurements.jsonl
: >"$M"
WORK=$TMPDIR/bench
mkdir -p "$WORK"

has() {
	case " $PARTS " in *" $1 "*) return 0 ;; esac
	return 1
}

verbs_under() { # FLAVOUR: is the verbs setup measured under it
	has verbs || return 1
	case " $VERBS_FLAVOURS " in *" $1 "*) return 0 ;; esac
	return 1
}

bpfstats() { [ "$cycle" = 1 ]; } # bpf_runs.py's statistics: in the first cycle
pingpong_too() { [ "$ICOUNT" = 0 ]; } # not under -icount (see ICOUNT above)

# record WHAT CONFIG ROUND: wraps each JSON line of stdin into a measurement line.
record() {
	local line
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		printf '{"what":"%s","config":"%s","round":%s,"data":%s}\n' "$1" "$2" "$3" "$line" >>"$M"
	done
}

loop() { # CONFIG ROUND
	"$LOOP" -n "$LOOP_N" -r "$LOOP_R" "${LOOP_OPS[@]}" | record syscall "$1" "$2"
}

setup() { # CONFIG ROUND
	"$SETUP" setup -d rxe0 -g 1 -n "$SETUP_N" -r "$SETUP_R" | record verbs "$1" "$2"
}

# bpfruns CONFIG ROUND: how often the daemon's BPF programs run for each loop's calls, and for
# how long (bench/bpf_runs.py: the kernel's run statistics, by difference of two runs; what
# emulation cannot distort: whether a program runs at all)
bpfruns() {
	local pid op
	pid=$(bg_pid "daemon-$DAEMON")
	for op in "${LOOP_OPS[@]}"; do
		/usr/bin/python3 "$RG_SRC/bench/bpf_runs.py" --pid "$pid" "$LOOP_N" $((2 * LOOP_N)) -- \
			"$LOOP" -n '{n}' -r 1 "$op" | record "bpfruns-$op" "$1" "$2"
	done
}

# CONFIG ROUND: the same for the verbs setup/teardown, by rounds: 2 and 12 (with 1 and 3 the
# difference was noise under TCG: a process's total program time varied by more than two rounds'
# share, and per-program figures came out negative)
bpfruns_verbs() {
	/usr/bin/python3 "$RG_SRC/bench/bpf_runs.py" --pid "$(bg_pid "daemon-$DAEMON")" 2 12 -- \
		"$SETUP" setup -d rxe0 -g 1 -n "$SETUP_N" -r '{n}' | record bpfruns-verbs "$1" "$2"
}

pingpong() { # CONFIG ROUND: wall time of a server/client pair, ns
	local t0 t1
	for _ in $(seq "$PP_R"); do
		ibv_rc_pingpong -d rxe0 -g 1 -n "$PP_N" >"$WORK/pp-server.log" 2>&1 &
		local spid=$!
		wait_for -m "pingpong server on TCP 18515" listening 18515
		t0=$(date +%s%N)
		ibv_rc_pingpong -d rxe0 -g 1 -n "$PP_N" 127.0.0.1 >"$WORK/pp-client.log" 2>&1 ||
			fail "ibv_rc_pingpong client failed: $(tail -n 3 "$WORK/pp-client.log")"
		wait "$spid" || fail "ibv_rc_pingpong server failed: $(tail -n 3 "$WORK/pp-server.log")"
		t1=$(date +%s%N)
		echo "{\"ns\":$((t1 - t0)),\"iterations\":$PP_N}" | record pingpong "$1" "$2"
	done
}

# A daemon per flavour; the file output on the guest's tmpfs (as a local log would be).
DAEMON=""
start_daemon() { # FLAVOUR [extra daemon args]
	local f=$1
	shift
	local n=$f-$cycle # bg names are once per scenario
	rm -rf "$WORK/d-$n"
	mkdir -p "$WORK/d-$n/state"
	bg "daemon-$n" "$RG" daemon --sensor "$f" --output "file:$WORK/d-$n/alerts.jsonl" \
		--state-dir "$WORK/d-$n/state" --status-socket "$WORK/d-$n/status.sock" \
		--ready-file "$WORK/d-$n/ready" "$@"
	DAEMON=$n
	wait_for -t 600 -m "rdmaguard daemon ($n) ready" test -e "$WORK/d-$n/ready"
	settle
	# past the ring's burst mode that settle's own status processes started: for 52 ms after
	# the last record the daemon polls every 2 ms (docs/concepts.md, Sensors), work that the
	# -icount lab's single vCPU would count in the first loop's calls
	sleep 0.2
}

# Waits until the daemon is idle: its event count grew by no more than 20 in a second, twice
# (the start-up inventory and what it stirred up are processed; each `rdmaguard status` is a
# process of its own, a few events, so "unchanged" never comes).
settle() {
	local a b calm=0
	a=$(status_events)
	for _ in $(seq 60); do
		sleep 1
		b=$(status_events)
		if [ $((${b:-0} - ${a:-0})) -le 20 ]; then
			calm=$((calm + 1))
			[ "$calm" -ge 2 ] && return 0
		else
			calm=0
		fi
		a=$b
	done
}

status_text() {
	"$RG" status --format text --socket "$WORK/d-$DAEMON/status.sock"
}

status_events() {
	status_text | sed -n 's/^events\.total = //p'
}

footprint() { # CONFIG: the daemon's memory as /proc, the status socket and its BPF maps see it
	local pid fd memlock=0 maps=0 id m
	local -A seen=()
	pid=$(bg_pid "daemon-$DAEMON")
	for fd in /proc/"$pid"/fd/*; do
		[ "$(readlink "$fd")" = anon_inode:bpf-map ] || continue
		id=$(sed -n 's/^map_id:[[:space:]]*//p' "/proc/$pid/fdinfo/${fd##*/}")
		if [ -z "$id" ] || [ -n "${seen[$id]:-}" ]; then
			continue
		fi
		seen[$id]=1
		m=$(sed -n 's/^memlock:[[:space:]]*//p' "/proc/$pid/fdinfo/${fd##*/}")
		memlock=$((memlock + ${m:-0}))
		maps=$((maps + 1))
	done
	printf '{"rss_bytes":%s,"events":%s,"bpf_memlock":%s,"bpf_map_fds":%s,"proc":{%s}}\n' \
		"$(status_text | sed -n 's/^rss_bytes = //p')" "$(status_events)" "$memlock" "$maps" \
		"$(awk '/^(VmRSS|VmHWM|RssAnon|RssFile|RssShmem):/ {
			sub(":", "", $1); printf "%s\"%s\":%d", n++ ? "," : "", $1, $2 * 1024 }' \
			"/proc/$pid/status")" | record footprint "$1" 0
}

stop_daemon() {
	kill -TERM "$(bg_pid "daemon-$DAEMON")"
	bg_wait -t 300 "daemon-$DAEMON" || fail "the daemon ($DAEMON) did not stop cleanly"
	DAEMON=""
}

log "bench: parts: $PARTS; flavours: $FLAVOURS; verbs under: $VERBS_FLAVOURS; $CYCLES cycle(s)$([ "$ICOUNT" = 0 ] || echo "; qemu -icount")"
round=0
for cycle in $(seq "$CYCLES"); do
for f in $FLAVOURS; do
	round=$((round + 1))
	has syscall && loop base "$round"
	if verbs_under "$f"; then
		setup base "$round"
		pingpong_too && pingpong base "$round"
	fi
	extra=()
	if [ "$f" = kprobe ] && [ "$cycle" = 1 ] && has record; then
		extra=(--record "$OUT/events.jsonl")
	fi
	start_daemon "$f" "${extra[@]}"
	has footprint && footprint "$f-idle"
	has syscall && loop "$f" "$round"
	bpfstats && has syscall && bpfruns "$f" "$round"
	if verbs_under "$f"; then
		setup "$f" "$round"
		bpfstats && bpfruns_verbs "$f" "$round"
		pingpong_too && pingpong "$f" "$round"
	fi
	if [ "$f" = auto ] && has latency; then
		"$SETUP" latency -d rxe0 -n "$LAT_N" -t 60 "$WORK/d-$DAEMON/alerts.jsonl" |
			record latency "$f" "$round"
	fi
	if [ "$f" = kprobe ] && [ "$cycle" = 1 ] && has record; then
		# the seed of the event-pipeline benchmark: real tools on rxe0, recorded
		pingpong record "$round"
		bg rserver rping -s -a "$LAB_ADDR" -C 5
		wait_for -m "rping server" cm_id_listening "$WORK/cm.json" "$(bg_pid rserver)"
		rping -c -a "$LAB_ADDR" -C 5 >"$WORK/rping-client.log" 2>&1 || fail "rping client failed"
		bg_wait rserver || fail "rping server failed"
		"$SETUP" setup -d rxe0 -g 1 -n 4 -r 1 >/dev/null
	fi
	has footprint && footprint "$f-loaded"
	stop_daemon
	has syscall && loop base "$round"
	if verbs_under "$f"; then
		setup base "$round"
		pingpong_too && pingpong base "$round"
	fi
	cp "$WORK/d-$f-$cycle/alerts.jsonl" "$OUT/alerts-$f-$cycle.jsonl" 2>/dev/null || true
done
done
log "bench: $(wc -l <"$M") measurements"
