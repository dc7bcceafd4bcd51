#!/bin/bash
# lab-part: 2 (tests/vm/meson.build: the two halves of the pc lab boot side by side)
# Enforcement with BPF LSM (issue 7), `rdmaguard daemon --enforce`, scope always:
# - ibv_rc_pingpong (allowlisted by path, pinned to its inode) works; ib_write_bw (not
#   allowlisted) cannot open the device; a copy of ibv_rc_pingpong elsewhere cannot either;
# - a process that held a uverbs fd before enforcement started cannot register memory or create
#   a QP through it (ioctl and write() paths: EPERM);
# - the game stand-in (a copy of rg-host-driver matching the policy's game) cannot map libibverbs
#   (dlopen fails);
# - rping cannot open rdma_cm, nor python3 a umad node;
# - the daemon's own inventory is not refused; every denial alerts with action `denied`, the
#   process and the rule;
# - after kill -9 of the daemon the copy and ib_write_bw are still refused (the LSM programs are
#   pinned in /sys/fs/bpf/rdmaguard with the last policy); a restarted daemon takes the pins
#   over and reports what was refused meanwhile; a reload that allowlists ib_write_bw lets it
#   run; a clean stop leaves enforcement in force (the copy refused again, reported by the next
#   daemon); `rdmaguard enforce --off` lifts it.
# Every refusal is the kernel's EPERM (rg-errno-shim's line for the tools' opens, rg-lab-probe's
# and rg-host-driver's own errno), a denial counted by the pinned programs across the step, and
# its alert naming the refused pid; never an exit status or a timeout alone.
# Three daemon starts (loading the programs is most of the time under TCG); the later ones on the
# tracepoint sensors, which load faster (enforcement is the LSM programs either way).
# lab-timeout: 900
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"
# shellcheck source=tests/vm/enforce.sh
. "$RG_SRC/tests/vm/enforce.sh"

grep -qw bpf /sys/kernel/security/lsm || fail "BPF LSM is not active: $(cat /sys/kernel/security/lsm)"
DRIVER=$RG_BUILD/tests/integration/host/rg-host-driver
mkdir -p "$TMPDIR/arena" "$TMPDIR/copy"
cp "$DRIVER" "$TMPDIR/arena/arena"
cp "$PROBE" "$TMPDIR/arena/probe" # a second game file: the game's own mmap of libibverbs
cp /usr/bin/ibv_rc_pingpong "$TMPDIR/copy/ibv_rc_pingpong"
enf_policy "{\"role\": \"managed\", \"enforce\": true, \"enforce_scope\": \"always\",
	\"games\": [{\"name\": \"Arena\", \"exe\": \"$TMPDIR/arena/*\"}],
	\"allow\": [{\"exe\": \"/usr/bin/ibv_rc_pingpong\"}]}"

# A process that holds a uverbs fd from before enforcement.
bg held "$DRIVER" heldfd "$(uverbs_of rxe0)"
wait_for -m "the fd holder's open" grep -q '^fd=' "$OUT/held.log"

"$RG" daemon --dry-run --enforce --policy "$ENF_POLICY" --rules "$RG_SRC/rules" >"$OUT/plan.json"
expect_json "$OUT/plan.json" --match '{"enforcement": {"requested": true, "pinned": false, "mode": "deny", "scope": "always"}}' --count 1
enf_start d
enf_status || fail "rdmaguard enforce --status: nothing pinned"
expect_json "$OUT/status.json" --match '{"pinned": true, "config.enforce": true, "config.lsm": true,
	"config.scope": "always", "allow_executables": 1, "game_files": 2,
	"links": ["enf_file_open", "enf_file_ioctl", "enf_file_permission", "enf_mmap_file",
	"enf_file_mprotect", "enf_kmod_request", "enf_kernel_read_file", "enf_kernel_load_data",
	"enf_netlink_send", "enf_rtp_exec", "enf_rtp_fork", "enf_rtp_exit"]}' --count 1
expect_json "$OUT/d-alerts.jsonl" --match '{"event.action": "agent_start", "agent.enforce.mode": "deny",
	"agent.enforce.took_over": false}' --count 1

# allowlisted: works
run_pingpong rc_server rc_client
log "ibv_rc_pingpong (allowlisted) ran"

# not allowlisted: ib_write_bw cannot open the device
uverbs=$(uverbs_of rxe0)
refused write_bw "$uverbs" ib_write_bw -d rxe0 -x 1 -D 1
pid_write_bw=$REFUSED_PID
grep -Eiq "couldn't|failed|unable" "$OUT/write_bw.log" || fail "ib_write_bw said nothing of the failure"
# a copy of the allowlisted binary: another inode, refused
refused copy "$uverbs" "$TMPDIR/copy/ibv_rc_pingpong" -d rxe0 -g 1 -n 5
pid_copy=$REFUSED_PID

# the held fd: memory registration and QP creation refused with EPERM
kill -USR1 "$(bg_pid held)"
bg_wait held || fail "the fd holder failed"
for k in reg_mr_ioctl create_qp reg_mr_write; do
	assert_eq "$(sed -n "s/^${k}_errno=//p" "$OUT/held.log")" 1 "$k errno (EPERM)"
done

# the rdma_cm node: rping (not allowlisted) cannot open it
refused rping /dev/infiniband/rdma_cm rping -s -a 192.0.2.1 -C 1
pid_rping=$REFUSED_PID
# a umad node (ib_umad loaded for this): opening it is refused with EPERM
modprobe ib_umad || fail "modprobe ib_umad failed"
wait_for -m "a umad node" test -c /dev/infiniband/umad0
rc=0
"$PROBE" open /dev/infiniband/umad0 >"$OUT/umad.log" 2>&1 || rc=$?
grep -qx "errno=EPERM" "$OUT/umad.log" || fail "opening umad0: $(cat "$OUT/umad.log")"
assert_eq "$rc" 3 "rg-lab-probe open umad0's exit status (3: EPERM)"
pid_umad=$(sed -n 's/^pid=//p' "$OUT/umad.log")
modprobe -r ib_umad || fail "modprobe -r ib_umad failed"

# the game stand-in cannot map libibverbs
rc=0
"$TMPDIR/arena/arena" lib >"$OUT/game.log" 2>&1 || rc=$?
assert_eq "$rc" 2 "the game stand-in's exit status (dlopen failed)"
# ld.so's words for mmap() refusing the library's text (the mmap_file hook; dlerror() does not
# name the errno: the probe, another game file, maps the same text itself and gets EPERM)
grep -q "dlopen libibverbs: .*failed to map segment from shared object" "$OUT/game.log" ||
	fail "dlopen did not fail to map libibverbs: $(cat "$OUT/game.log")"
rc=0
"$TMPDIR/arena/probe" mmap /usr/lib/x86_64-linux-gnu/libibverbs.so.1 >"$OUT/game-mmap.log" 2>&1 || rc=$?
grep -qx "errno=EPERM" "$OUT/game-mmap.log" ||
	fail "the game's mmap of libibverbs: $(cat "$OUT/game-mmap.log")"
assert_eq "$rc" 3 "rg-lab-probe mmap's exit status (3: EPERM)"
pid_game_mmap=$(sed -n 's/^pid=//p' "$OUT/game-mmap.log")

_denied_all()
{
	alerts d --match '{"rule.id": "RDMA-011", "action": "denied", "process.name": "ib_write_bw"}' --min 1 &&
		alerts d --match '{"rule.id": "RDMA-011", "action": "denied", "process.name": "arena"}' --min 1
}
wait_for -m "the denials' alerts" _denied_all
# ib_write_bw: its open of the node, by RDMA-011 and RDMA-004, action denied
alerts d --match "{\"rule.id\": \"RDMA-011\", \"action\": \"denied\", \"event.action\": \"device_open\",
	\"process.executable\": \"/usr/bin/ib_write_bw\", \"file.path\": \"$(uverbs_of rxe0)\",
	\"rdma.node\": \"uverbs\", \"rdma.device\": \"rxe0\", \"event.flags\": [\"denied\", \"failed\"]}" --count 1 \
	--match '{"rule.id": "RDMA-004", "action": "denied", "process.executable": "/usr/bin/ib_write_bw"}' --count 1
alerts d --match "{\"rule.id\": \"RDMA-011\", \"action\": \"denied\", \"event.action\": \"device_open\",
	\"process.executable\": \"$TMPDIR/copy/ibv_rc_pingpong\"}" --count 1
# each refused pid's own denial
alerts d --match "{\"rule.id\": \"RDMA-011\", \"action\": \"denied\", \"process.pid\": $pid_write_bw,
	\"file.path\": \"$uverbs\"}" --min 1 \
	--match "{\"rule.id\": \"RDMA-011\", \"action\": \"denied\", \"process.pid\": $pid_copy,
	\"file.path\": \"$uverbs\"}" --min 1 \
	--match "{\"rule.id\": \"RDMA-011\", \"action\": \"denied\", \"process.pid\": $pid_rping,
	\"file.path\": \"/dev/infiniband/rdma_cm\"}" --min 1 \
	--match "{\"rule.id\": \"RDMA-011\", \"action\": \"denied\", \"process.pid\": $pid_umad,
	\"file.path\": \"/dev/infiniband/umad0\"}" --min 1
# the held fd's commands
hpid=$(sed -n 's/^pid=//p' "$OUT/held.log")
alerts d --match "{\"rule.id\": \"RDMA-011\", \"action\": \"denied\", \"process.pid\": $hpid,
	\"rdma.op\": \"reg_mr\"}" --min 1 \
	--match "{\"rule.id\": \"RDMA-011\", \"action\": \"denied\", \"process.pid\": $hpid,
	\"rdma.op\": \"create_qp\", \"rdma.via\": \"ioctl\"}" --count 1 \
	--match "{\"rule.id\": \"RDMA-005\", \"action\": \"denied\", \"process.pid\": $hpid}" --min 1
# rping's rdma_cm open and python3's umad open
alerts d --match '{"rule.id": "RDMA-011", "action": "denied", "event.action": "device_open",
	"process.name": "rping", "file.path": "/dev/infiniband/rdma_cm", "rdma.node": "rdma_cm"}' --min 1 \
	--match '{"rule.id": "RDMA-011", "action": "denied", "event.action": "device_open",
	"process.name": "rg-lab-probe", "file.path": "/dev/infiniband/umad0", "rdma.node": "umad"}' --min 1
# the game: RDMA-007 and RDMA-011, library_load denied
alerts d --match "{\"rule.id\": \"RDMA-007\", \"action\": \"denied\", \"event.action\": \"library_load\",
	\"process.executable\": \"$TMPDIR/arena/arena\", \"dll.path\": \"~libibverbs\"}" --min 1 \
	--match "{\"rule.id\": \"RDMA-007\", \"action\": \"denied\", \"event.action\": \"library_load\",
	\"process.pid\": $pid_game_mmap, \"dll.path\": \"~libibverbs\"}" --min 1
# nothing of the allowlisted pingpong, nor of the daemon itself, was refused
alerts d --match '{"action": "denied", "process.executable": "/usr/bin/ibv_rc_pingpong"}' --absent \
	--match '{"action": "denied", "process.name": "rdmaguard"}' --absent

# kill -9: enforcement stays, with the last policy
kill -KILL "$(bg_pid d)"
bg_wait d || true
enf_status || fail "kill -9 of the daemon lifted enforcement"
expect_json "$OUT/status.json" --match '{"pinned": true, "config.lsm": true, "links": ["enf_file_open"]}' --count 1
denied0=$(enf_count denied)
refused copy2 "$uverbs" "$TMPDIR/copy/ibv_rc_pingpong" -d rxe0 -g 1 -n 5
pid_copy2=$REFUSED_PID
refused write_bw2 "$uverbs" ib_write_bw -d rxe0 -x 1 -D 1
pid_write_bw2=$REFUSED_PID
denied1=$(enf_count denied)
[ "$denied1" -ge $((denied0 + 2)) ] ||
	fail "with no daemon the pinned programs counted $((denied1 - denied0)) denial(s), not 2"
# the allowlisted one still works
bg pp2server ibv_rc_pingpong -d rxe0 -g 1 -n 5
wait_for -m "server on TCP 18515" listening 18515
bg pp2client ibv_rc_pingpong -d rxe0 -g 1 -n 5 127.0.0.1
bg_wait pp2client || fail "ibv_rc_pingpong client failed with no daemon"
bg_wait pp2server || fail "ibv_rc_pingpong server failed with no daemon"

# a restarted daemon takes over, and reports the refusals it missed; its own inventory, which
# opens the devices while the old programs are still attached, is not refused
enf_start b --sensor tracepoint
alerts b --match '{"event.action": "agent_start", "agent.enforce.took_over": true,
	"message": "~enforce=deny,takeover"}' --count 1
# (their processes are gone: the alerts name them by pid and the kernel's comm, without an
# executable)
wait_for -m "the missed denials' alerts" alerts b --match "{\"rule.id\": \"RDMA-011\", \"action\": \"denied\",
	\"process.pid\": $pid_copy2, \"process.name\": \"ibv_rc_pingpong\", \"file.path\": \"$uverbs\"}" --min 1
alerts b --match "{\"rule.id\": \"RDMA-011\", \"action\": \"denied\", \"process.pid\": $pid_write_bw2,
	\"process.name\": \"ib_write_bw\", \"file.path\": \"$uverbs\"}" --min 1
enf_status
expect_json "$OUT/status.json" --match "{\"daemon_pid\": $(bg_pid b)}" --count 1
alerts b --match '{"action": "denied", "process.name": "rdmaguard"}' --absent \
	--match '{"event.action": "device_present", "rdma.device": "rxe0"}' --min 1

# a reload that allowlists ib_write_bw
enf_policy "{\"role\": \"managed\", \"enforce\": true, \"enforce_scope\": \"always\",
	\"games\": [{\"name\": \"Arena\", \"exe\": \"$TMPDIR/arena/*\"}],
	\"allow\": [{\"exe\": \"/usr/bin/ibv_rc_pingpong\"}, {\"exe\": \"/usr/bin/ib_write_bw\"}]}"
kill -HUP "$(bg_pid b)"
wait_for -m "the reload" alerts b --match '{"rule.id": "AGENT-003", "agent.ok": 1}' --count 1
bg bwserver ib_write_bw -d rxe0 -x 1 -F -D 2
wait_for -m "server on TCP 18515" listening 18515
bg bwclient ib_write_bw -d rxe0 -x 1 -F -D 2 127.0.0.1
bg_wait bwclient || fail "ib_write_bw client failed once allowlisted"
bg_wait bwserver || fail "ib_write_bw server failed once allowlisted"

# a clean stop leaves enforcement in force: the copy is refused again, counted, and the next
# daemon reports it; `enforce --off` lifts it
enf_stop b
enf_status || fail "the clean stop lifted enforcement"
denied0=$(enf_count denied)
refused copy3 "$uverbs" "$TMPDIR/copy/ibv_rc_pingpong" -d rxe0 -g 1 -n 5
pid_copy3=$REFUSED_PID
denied1=$(enf_count denied)
[ "$denied1" -ge $((denied0 + 1)) ] ||
	fail "after the clean stop the pinned programs counted no denial of the copy"
enf_start c --sensor tracepoint --no-inventory
wait_for -m "the denial after the clean stop, reported" alerts c --match "{\"rule.id\": \"RDMA-011\",
	\"action\": \"denied\", \"process.pid\": $pid_copy3, \"file.path\": \"$uverbs\"}" --min 1
enf_stop c
"$RG" enforce --off >"$OUT/off.log"
grep -q "enforcement is lifted" "$OUT/off.log" || fail "enforce --off: $(cat "$OUT/off.log")"
if enf_status; then
	fail "something is still pinned after enforce --off"
fi
bg cserver "$TMPDIR/copy/ibv_rc_pingpong" -d rxe0 -g 1 -n 5
wait_for -m "the copy's server on TCP 18515" listening 18515
"$TMPDIR/copy/ibv_rc_pingpong" -d rxe0 -g 1 -n 5 127.0.0.1 >"$OUT/copy4.log" 2>&1 ||
	fail "the copy still fails once enforcement is lifted"
bg_wait cserver || fail "the copy's server failed"
