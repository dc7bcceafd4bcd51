#!/bin/bash
# Enforcement outlives the daemon (issue 7): after kill -9 of an enforcing daemon, a copy of
# ibv_rc_pingpong and ib_write_bw are still refused (the LSM programs are pinned in
# /sys/fs/bpf/rdmaguard with the last policy); a restarted daemon takes the pins over and reports
# what was refused meanwhile; a reload that allowlists ib_write_bw lets it run; `rdmaguard enforce
# --off` lifts enforcement and the daemon raises AGENT-002.
# lab-timeout: 1200
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"
# shellcheck source=tests/vm/enforce.sh
. "$RG_SRC/tests/vm/enforce.sh"

mkdir -p "$TMPDIR/copy"
cp /usr/bin/ibv_rc_pingpong "$TMPDIR/copy/ibv_rc_pingpong"
allow_pp='{"exe": "/usr/bin/ibv_rc_pingpong"}'
enf_policy "{\"enforce\": true, \"allow\": [$allow_pp]}"
enf_start a --no-inventory
rc=0
timeout 120 ib_write_bw -d rxe0 -x 1 -D 1 >"$OUT/bw1.log" 2>&1 || rc=$?
refused "$rc" "$OUT/bw1.log"

kill -KILL "$(bg_pid a)"
bg_wait a || true
enf_status || fail "kill -9 of the daemon lifted enforcement"
expect_json "$OUT/status.json" --match '{"pinned": true, "config.lsm": true, "links": ["enf_file_open"]}' --count 1
rc=0
timeout 120 "$TMPDIR/copy/ibv_rc_pingpong" -d rxe0 -g 1 -n 5 >"$OUT/copy1.log" 2>&1 || rc=$?
refused "$rc" "$OUT/copy1.log"
rc=0
timeout 120 ib_write_bw -d rxe0 -x 1 -D 1 >"$OUT/bw2.log" 2>&1 || rc=$?
refused "$rc" "$OUT/bw2.log"
run_pingpong # the allowlisted one still works

# a restarted daemon takes over, and reports the refusals it missed; its own inventory, which
# opens the devices while the old programs are still attached, is not refused
enf_start b
alerts b --match '{"event.action": "agent_start", "agent.enforce.took_over": true,
	"message": "~enforce=deny,takeover"}' --count 1
wait_for -m "the missed denials' alerts" alerts b --match "{\"rule.id\": \"RDMA-011\", \"action\": \"denied\",
	\"process.name\": \"ibv_rc_pingpong\", \"file.path\": \"~uverbs\"}" --min 1
enf_status
expect_json "$OUT/status.json" --match "{\"daemon_pid\": $(bg_pid b), \"denied\": {\">=\": 3}}" --count 1
alerts b --match '{"action": "denied", "process.name": "rdmaguard"}' --absent \
	--match '{"event.action": "device_present", "rdma.device": "rxe0"}' --min 1

# a reload that allowlists ib_write_bw
enf_policy "{\"enforce\": true, \"allow\": [$allow_pp, {\"exe\": \"/usr/bin/ib_write_bw\"}]}"
kill -HUP "$(bg_pid b)"
wait_for -m "the reload" alerts b --match '{"rule.id": "AGENT-003", "agent.ok": 1}' --count 1
bg bwserver ib_write_bw -d rxe0 -x 1 -D 2
wait_for -m "server on TCP 18515" listening 18515
bg bwclient ib_write_bw -d rxe0 -x 1 -D 2 127.0.0.1
bg_wait bwclient || fail "ib_write_bw client failed once allowlisted"
bg_wait bwserver || fail "ib_write_bw server failed once allowlisted"

# lifting it
"$RG" enforce --off >"$OUT/off.log"
wait_for -m "AGENT-002: enforcement lifted" alerts b --match '{"rule.id": "AGENT-002",
	"agent.what": "enforce_pins", "message": "~enforcement lifted"}' --count 1
bg cserver "$TMPDIR/copy/ibv_rc_pingpong" -d rxe0 -g 1 -n 5
wait_for -m "the copy's server on TCP 18515" listening 18515
"$TMPDIR/copy/ibv_rc_pingpong" -d rxe0 -g 1 -n 5 127.0.0.1 >"$OUT/copy2.log" 2>&1 ||
	fail "the copy still fails once enforcement is lifted"
bg_wait cserver || fail "the copy's server failed"
enf_stop b
if enf_status; then
	fail "something is pinned again after enforce --off and a clean stop"
fi
