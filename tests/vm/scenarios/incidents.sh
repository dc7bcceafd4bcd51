#!/bin/bash
# Incidents on a café seat (docs/incidents.md): one daemon (best sensors, a policy naming seat
# B-12 and the game Arena) watches while the game stand-in runs and, from the seat's console
# shell, ibv_rc_pingpong, ib_write_bw and rping (a server and a client each) use rxe0 and
# rg-memread-sim registers 1 MiB of remote-readable memory on rxe0 and reads the game's memory
# into it. The alerts must fold into one incident per tool process (the shell that started them
# is a starter), at least 8 alerts an incident on average, every alert in exactly one; the
# memory reader's incident reaches capability and target, verdict cheat, and `explain` names it,
# the game and the MR; the pingpong, perftest and rping processes reach capability during the
# game. `rdmaguard incidents` from the daemon (control socket), from its file output and from a
# replay of its --record file must agree: the same incident ids, each with the alerts the daemon
# wrote for it (tests/vm/incidents_check.py).
# lab-timeout: 900
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"

[ -x "$RG" ] || fail "no agent at $RG: build first (meson setup build && ninja -C build)"
MEMREAD=$RG_BUILD/tests/vm/rg-memread-sim
[ -x "$MEMREAD" ] || fail "no $MEMREAD: build first"

mkdir -p "$TMPDIR/arena" "$OUT/daemon"
cp /bin/sleep "$TMPDIR/arena/arena"
POLICY=$TMPDIR/cafe-policy.json
# The seat's hardware as the café saved it (docs/hardware.md): the lab machine's own driverless
# IDE function is the seat's, not a card to report.
"$RG" baseline save "$TMPDIR/seat.json" >"$OUT/baseline.log" 2>&1 || fail "baseline save failed"
chmod 600 "$TMPDIR/seat.json"
# the agent's own command (its `incidents` below loads libibverbs) is allowed, as on a seat
printf '{"role": "managed", "seat": "B-12", "games": [{"name": "Arena", "exe": "%s/arena/*"}],
	"allow": [{"exe": "%s"}], "baseline": "%s/seat.json"}\n' "$TMPDIR" "$(readlink -f "$RG")" \
	"$TMPDIR" >"$POLICY"
chmod 600 "$POLICY"

bg daemon "$RG" daemon --sensor auto --policy "$POLICY" --rules "$RG_SRC/rules" \
	--record "$OUT/daemon/events.jsonl" --output "file:$OUT/daemon/alerts.jsonl" \
	--ready-file "$OUT/daemon/ready" --status-socket "$TMPDIR/daemon.sock"
daemon_ready daemon

bg game "$TMPDIR/arena/arena" 600
run_pingpong rc_server rc_client ibv_rc_pingpong
run_perftest bw_server bw_client ib_write_bw
run_rping rping_server rping_client
bg memread "$MEMREAD" "$(bg_pid game)" rxe0
bg_wait memread || fail "rg-memread-sim failed"
grep -q '^bytes=4096$' "$OUT/memread.log" || fail "rg-memread-sim did not read the game's page"

# The daemon's own view, live, before it stops (its incidents are still open: the game runs).
wait_for -m "the daemon to have the memory reader's incident" \
	sh -c "'$RG' incidents --socket '$TMPDIR/daemon.sock' --format json >'$OUT/live.jsonl' &&
		grep -q '\"verdict\":\"cheat\"' '$OUT/live.jsonl'"
kill -TERM "$(bg_pid game)"
bg_wait game || true
daemon_stop daemon

{
	echo "game=$(bg_pid game)"
	echo "memread=$(bg_pid memread)"
	for p in rc_server rc_client bw_server bw_client rping_server rping_client; do
		echo "$p=$(bg_pid "$p")"
	done
} >"$OUT/pids.txt"
python3 "$RG_SRC/tests/vm/incidents_check.py" "$RG" "$OUT" "$POLICY" "$RG_SRC/rules" ||
	fail "incidents: see above"
