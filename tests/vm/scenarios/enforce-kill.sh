#!/bin/bash
# lab-part: 2 (tests/vm/meson.build: the two halves of the pc lab boot side by side)
# Enforcement's kill mode on the real nodes (issue 7): where BPF LSM is not active, the daemon
# kills from its syscall tracepoint programs what a rule with action `kill` names:
# - ibv_rc_pingpong (not allowlisted; RDMA-004 kill) is SIGKILLed at its open of uverbs0 (as its
#   parent, rg-lab-probe run, sees it), and RDMA-004 and RDMA-011 alert `killed` with its pid;
# - rg-lab-probe cm-connect (RDMA-009 kill) is SIGKILLed at its CONNECT on a real rdma_cm fd,
#   RDMA-009 alerts `killed` with its pid and the operation;
# - an allowlisted copy of the probe opens uverbs0 and connects (the kernel answers EINVAL: the
#   id has no route) and lives;
# - rg-host-driver32 (gcc -m32) is SIGKILLed at its 32-bit openat of uverbs0 (the ia32 entry
#   point, which the syscalls:* tracepoints skip) and RDMA-004 alerts `killed` once;
# - rg-host-driver newfd, not allowlisted either, gets uverbs fds that no open syscall makes (an
#   io_uring open, a dup, one received over SCM_RIGHTS by its child): the kill programs do not
#   run there, so it lives, and each fd is recorded and alerted (RDMA-004, action alert), not
#   left out as a kill that never came (issue 25);
# - the pinned programs count exactly the three kills; no kill is reported twice.
# The sensors run on fentry (fd_install(), ib_uverbs' functions): they see those fds, and a kill
# program on the open exit runs after them (the tracepoint flavour is the host suite's).
# The lab's kernel has BPF LSM, and the daemon decides between deny and kill from
# /sys/kernel/security/lsm (its feature probe). So that both modes run in one boot, this daemon
# runs in a mount namespace of its own where that file lists the active LSMs without "bpf", as
# after a boot with an lsm= that lacks it; it then loads no LSM program (checked: its mode, its
# AGENT-002, the pinned links and config) and the kills are the tracepoint programs' alone.
# lab-timeout: 600
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/enforce.sh
. "$RG_SRC/tests/vm/enforce.sh"

grep -qw bpf /sys/kernel/security/lsm || fail "BPF LSM is not active: $(cat /sys/kernel/security/lsm)"
tr ',' '\n' </sys/kernel/security/lsm | grep -vx bpf | paste -sd, >"$TMPDIR/lsm"
log "the daemon's /sys/kernel/security/lsm: $(cat "$TMPDIR/lsm")"
# shellcheck disable=SC2016 # expanded by sh
ENF_WRAP=(unshare --mount --propagation private
	sh -c 'mount --bind "$0" /sys/kernel/security/lsm && exec "$@"' "$TMPDIR/lsm")
uverbs=$(uverbs_of rxe0)
mkdir -p "$TMPDIR/allowed"
cp "$PROBE" "$TMPDIR/allowed/rg-lab-probe"
enf_policy "{\"role\": \"managed\", \"enforce\": true, \"enforce_scope\": \"always\",
	\"rules\": {\"RDMA-004\": {\"action\": \"kill\"}, \"RDMA-009\": {\"action\": \"kill\"}},
	\"allow\": [{\"exe\": \"$TMPDIR/allowed/rg-lab-probe\"}]}"
METRICS=127.0.0.1:9466
enf_start k --sensor fentry --no-inventory --metrics "$METRICS"

alerts k --match '{"event.action": "agent_start", "agent.enforce.mode": "kill"}' --count 1 \
	--match '{"rule.id": "AGENT-002", "agent.what": "enforce",
	"message": "~BPF LSM is not active.*rule actions kill act"}' --count 1
enf_status || fail "rdmaguard enforce --status: nothing pinned"
expect_json "$OUT/status.json" --match '{"pinned": true, "config.lsm": false, "config.enforce": true,
	"links": ["enf_tp_exit_openat", "enf_tp_enter_write"]}' --count 1 \
	--match '{"links": ["enf_file_open"]}' --absent
killed0=$(enf_count killed)

# ibv_rc_pingpong, a server: were it not killed at its open, it would wait for a client
"$PROBE" run -t 60 ibv_rc_pingpong -d rxe0 -g 1 >"$OUT/pingpong.log" 2>&1 ||
	fail "rg-lab-probe run: $(cat "$OUT/pingpong.log")"
grep -qx "status=signal 9 (SIGKILL)" "$OUT/pingpong.log" ||
	fail "ibv_rc_pingpong was not killed: $(cat "$OUT/pingpong.log")"
pid_pp=$(sed -n 's/^child=//p' "$OUT/pingpong.log")
# the probe on rdma_cm: killed at CONNECT, so it never prints the kernel's answer to it
"$PROBE" run -t 60 "$PROBE" cm-connect >"$OUT/cm.log" 2>&1 ||
	fail "rg-lab-probe run: $(cat "$OUT/cm.log")"
grep -qx "status=signal 9 (SIGKILL)" "$OUT/cm.log" ||
	fail "rg-lab-probe cm-connect was not killed: $(cat "$OUT/cm.log")"
grep -qx "create_id=[0-9]*" "$OUT/cm.log" || fail "no rdma_cm id before the connect: $(cat "$OUT/cm.log")"
! grep -q "^connect=" "$OUT/cm.log" || fail "the connect returned: $(cat "$OUT/cm.log")"
pid_cm=$(sed -n 's/^child=//p' "$OUT/cm.log")

# the allowlisted copy does both and lives
"$TMPDIR/allowed/rg-lab-probe" open "$uverbs" >"$OUT/allowed-open.log" 2>&1 ||
	fail "the allowlisted probe could not open $uverbs: $(cat "$OUT/allowed-open.log")"
"$TMPDIR/allowed/rg-lab-probe" cm-connect >"$OUT/allowed-cm.log" 2>&1 ||
	fail "the allowlisted probe's cm-connect: $(cat "$OUT/allowed-cm.log")"
grep -qx "connect_errno=EINVAL" "$OUT/allowed-cm.log" ||
	fail "the allowlisted probe's connect: $(cat "$OUT/allowed-cm.log")"
pid_allowed=$(sed -n 's/^pid=//p' "$OUT/allowed-open.log")

# 32 bits: killed at the ia32 openat (enforcement's raw_syscalls exit program)
DRIVER32=$RG_BUILD/tests/integration/host/rg-host-driver32
[ -x "$DRIVER32" ] || fail "no $DRIVER32: install gcc-multilib and build"
"$PROBE" run -t 60 "$DRIVER32" heldfd "$uverbs" >"$OUT/driver32.log" 2>&1 ||
	fail "rg-lab-probe run: $(cat "$OUT/driver32.log")"
grep -qx "status=signal 9 (SIGKILL)" "$OUT/driver32.log" ||
	fail "rg-host-driver32 was not killed at its open: $(cat "$OUT/driver32.log")"
pid_32=$(sed -n 's/^child=//p' "$OUT/driver32.log")

# fds that no open syscall makes: not killed (no BPF LSM), reported
"$RG_BUILD/tests/integration/host/rg-host-driver" newfd "$uverbs" >"$OUT/newfd.log" 2>&1 ||
	fail "rg-host-driver newfd was stopped: $(cat "$OUT/newfd.log")"
nf()
{
	sed -n "s/^$1=//p" "$OUT/newfd.log" | head -n 1
}
pid_nf=$(nf pid)
child_nf=$(nf child)

killed1=$(enf_count killed)
assert_eq "$((killed1 - killed0))" 3 "kills counted by the pinned programs"
_killed_all()
{
	alerts k --match "{\"rule.id\": \"RDMA-004\", \"action\": \"killed\", \"process.pid\": $pid_pp}" --min 1 &&
		alerts k --match "{\"rule.id\": \"RDMA-009\", \"action\": \"killed\", \"process.pid\": $pid_cm}" --min 1 &&
		alerts k --match "{\"rule.id\": \"RDMA-004\", \"action\": \"killed\", \"process.pid\": $pid_32}" --min 1 &&
		alerts k --match "{\"rule.id\": \"RDMA-004\", \"process.pid\": $child_nf}" --min 1
}
wait_for -m "the kills' alerts" _killed_all
alerts k --match "{\"rule.id\": \"RDMA-004\", \"action\": \"killed\", \"rule.action\": \"kill\",
	\"event.action\": \"device_open\", \"process.pid\": $pid_pp,
	\"process.executable\": \"/usr/bin/ibv_rc_pingpong\", \"file.path\": \"$uverbs\",
	\"rdma.node\": \"uverbs\", \"rdma.device\": \"rxe0\", \"event.flags\": [\"killed\"]}" --count 1 \
	--match "{\"rule.id\": \"RDMA-011\", \"action\": \"killed\", \"process.pid\": $pid_pp}" --min 1 \
	--match "{\"rule.id\": \"RDMA-009\", \"action\": \"killed\", \"rule.action\": \"kill\",
	\"process.pid\": $pid_cm, \"rdma.op\": \"connect\", \"event.flags\": [\"killed\"]}" --count 1 \
	--match "{\"action\": \"killed\", \"process.pid\": $pid_allowed}" --absent \
	--match '{"action": "denied"}' --absent \
	--match "{\"rule.id\": \"RDMA-004\", \"process.pid\": $pid_pp}" --count 1 \
	--match "{\"rule.id\": \"RDMA-004\", \"action\": \"killed\", \"process.pid\": $pid_32,
	\"file.path\": \"$uverbs\", \"process.executable\": \"$DRIVER32\"}" --count 1 \
	--match "{\"rule.id\": \"RDMA-004\", \"process.pid\": $pid_32}" --count 1 \
	--match "{\"rule.id\": \"RDMA-004\", \"action\": \"alert\", \"process.pid\": $pid_nf}" --count 1 \
	--match "{\"rule.id\": \"RDMA-004\", \"action\": \"alert\", \"process.pid\": $child_nf}" --count 1 \
	--match "{\"action\": \"killed\", \"process.pid\": {\"|\": [$pid_nf, $child_nf]}}" --absent
# each of the three fds recorded, with its number; the io_uring open at the LSM's file_open
# check, before it has one (-1)
expect_json "$OUT/k-events.jsonl" \
	--match "{\"event.action\": \"device_open\", \"process.pid\": $pid_nf, \"rdma.fd\": -1,
	\"file.path\": \"$uverbs\", \"rdma.node\": \"uverbs\"}" --count 1 \
	--match "{\"event.action\": \"device_open\", \"process.pid\": $pid_nf, \"rdma.fd\": $(nf dup_fd),
	\"rdma.node\": \"uverbs\"}" --count 1 \
	--match "{\"event.action\": \"device_open\", \"process.pid\": $child_nf,
	\"rdma.fd\": $(nf recv_fd), \"rdma.node\": \"uverbs\"}" --count 1

# The TC drop (issue 27), on the same daemon. rxe0's dummy0 cannot carry it: a NOARP device
# resolves every neighbour to its own MAC, and rxe then loops the packets back inside itself. So:
# rxe1 on a veth whose other end, in a namespace, has a seat's address (198.51.100.50) and a
# box's (198.51.100.77), and a reload that gives the policy a fleet, seats 198.51.100.0/26, and
# allowlists rping. rping connects over rxe1 to each: its rdma_cm REQs are rxe's own RoCE v2
# packets (UDP 4791) through rgv0's TC egress. To the seat they pass (counted out, none
# dropped); to the box every one is dropped, counted and alerted (RDMA-012, the box as
# destination.ip, class unknown).
ip netns add rgbox
ip link add rgv0 type veth peer name rgv1 netns rgbox
ip addr add 198.51.100.1/24 dev rgv0
ip link set rgv0 up
ip -n rgbox addr add 198.51.100.50/24 dev rgv1
ip -n rgbox addr add 198.51.100.77/24 dev rgv1
ip -n rgbox link set rgv1 up
rxe_up rxe1 rgv0
wait_for -m "the RoCE counters on rgv0" grep -q "RoCE counters attached to rgv0" "$OUT/k.log"
enf_policy "{\"role\": \"managed\", \"enforce\": true, \"enforce_scope\": \"always\",
	\"rules\": {\"RDMA-004\": {\"action\": \"kill\"}, \"RDMA-009\": {\"action\": \"kill\"}},
	\"allow\": [{\"exe\": \"$TMPDIR/allowed/rg-lab-probe\"}, {\"exe\": \"/usr/bin/rping\"}],
	\"fleet\": {\"seats\": [\"198.51.100.0/26\"]}}"
kill -HUP "$(bg_pid k)"
wait_for -m "the reload's drop" grep -q "peers outside the fleet (1 seat and 0 server ranges) is dropped" \
	"$OUT/k.log"
for peer in 198.51.100.50 198.51.100.77; do
	timeout 8 rping -c -a "$peer" -C 1 -v >"$OUT/rping-$peer.log" 2>&1 || true
done
wait_for -m "the box's drops reported" alerts k --match '{"rule.id": "RDMA-012",
	"destination.ip": "198.51.100.77", "rdmaguard.peer.class": "unknown", "rdma.netdev": "rgv0"}' --min 1
R='"event.action": "roce_traffic", "rdma.netdev": "rgv0", "rdma.peer.address"'
expect_json "$OUT/k-events.jsonl" \
	--match "{$R: \"198.51.100.50\", \"rdma.traffic.packets_out\": {\">=\": 1}}" --min 1 \
	--match "{$R: \"198.51.100.50\", \"rdma.traffic.packets_dropped\": {\"?\": true}}" --absent \
	--match "{$R: \"198.51.100.77\", \"rdma.traffic.packets_dropped\": {\">=\": 1}}" --min 1 \
	--match "{$R: \"198.51.100.77\", \"rdma.traffic.packets_out\": {\"?\": true}}" --absent
alerts k --match '{"rule.id": "RDMA-012", "destination.ip": "198.51.100.50"}' --absent

# iWARP, the same drop's other half. Debian 12's kernel is built without siw (CONFIG_RDMA_SIW is
# not set: no iWARP device can be made here), so what is tested is what the TC program matches
# as iWARP: TCP to or from a port the sensors learnt from this machine's rdma_cm ids. rping's
# resolve_addr above taught them 7174, its port. A TCP listener on 7174 in the namespace; from
# here a connection to the seat passes (connected, echoed, counted in and out, none dropped) and
# one to a second box, 198.51.100.78 (its own RDMA-012, not folded into the first box's
# repeats), times out: its SYNs are dropped, counted as iWARP in the flow and in
# rdmaguard_rdma_dropped_packets_total{protocol="iwarp"}, and alerted.
expect_json "$OUT/k-events.jsonl" --match '{"event.action": "rdma_cm", "rdma.op": "resolve_addr",
	"rdma.peer.port": 7174}' --min 1
ip -n rgbox addr add 198.51.100.78/24 dev rgv1
bg tcp7174 ip netns exec rgbox /usr/bin/python3 -c '
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 7174))
s.listen(8)
while True:
    c, _ = s.accept()
    c.sendall(c.recv(64))
    c.close()'
_listening_7174()
{
	[ -n "$(ip netns exec rgbox ss -Hltn 'sport = :7174')" ]
}
wait_for -m "the TCP listener on 7174" _listening_7174
# tcp_to ADDRESS TIMEOUT: connect to ADDRESS:7174, send 4 bytes, print the echo
tcp_to()
{
	/usr/bin/python3 -c '
import socket, sys
try:
    c = socket.create_connection((sys.argv[1], 7174), timeout=float(sys.argv[2]))
    c.sendall(b"rdma")
    print("echo=" + c.recv(64).decode())
except OSError as e:
    print("error=%s" % e)
    sys.exit(1)' "$1" "$2"
}
tcp_to 198.51.100.50 30 >"$OUT/tcp-seat.log" 2>&1 || fail "TCP to the seat: $(cat "$OUT/tcp-seat.log")"
grep -qx "echo=rdma" "$OUT/tcp-seat.log" || fail "TCP to the seat: $(cat "$OUT/tcp-seat.log")"
! tcp_to 198.51.100.78 2 >"$OUT/tcp-box.log" 2>&1 || fail "TCP to the box passed: $(cat "$OUT/tcp-box.log")"
grep -qx "error=timed out" "$OUT/tcp-box.log" || fail "TCP to the box: $(cat "$OUT/tcp-box.log")"
kill "$(bg_pid tcp7174)"
bg_wait tcp7174 || true
wait_for -m "the second box's drops reported" alerts k --match '{"rule.id": "RDMA-012",
	"destination.ip": "198.51.100.78", "rdmaguard.peer.class": "unknown", "rdma.netdev": "rgv0"}' --min 1
T='"event.action": "roce_traffic", "rdma.netdev": "rgv0", "network.iana_number": 6, "rdma.peer.address"'
expect_json "$OUT/k-events.jsonl" \
	--match "{$T: \"198.51.100.50\", \"rdma.traffic.packets_out\": {\">=\": 1}}" --min 1 \
	--match "{$T: \"198.51.100.50\", \"rdma.traffic.packets_in\": {\">=\": 1}}" --min 1 \
	--match "{$T: \"198.51.100.50\", \"rdma.traffic.packets_dropped\": {\"?\": true}}" --absent \
	--match "{$T: \"198.51.100.78\", \"rdma.traffic.packets_dropped\": {\">=\": 1}}" --min 1 \
	--match "{$T: \"198.51.100.78\", \"rdma.traffic.packets_out\": {\"?\": true}}" --absent
alerts k --match '{"rule.id": "RDMA-012", "destination.ip": "198.51.100.50"}' --absent
curl -sf "http://$METRICS/metrics" >"$OUT/k-metrics.txt" || fail "GET /metrics failed"
grep -Eq '^rdmaguard_rdma_dropped_packets_total\{protocol="iwarp"\} [1-9]' "$OUT/k-metrics.txt" ||
	fail "no iWARP drop counted: $(grep rdma_dropped "$OUT/k-metrics.txt")"
grep -Eq '^rdmaguard_rdma_dropped_packets_total\{protocol="roce_v2"\} [1-9]' "$OUT/k-metrics.txt" ||
	fail "no RoCE v2 drop counted: $(grep rdma_dropped "$OUT/k-metrics.txt")"
rxe_down rxe1
ip netns del rgbox

enf_stop k
"$RG" enforce --off >/dev/null
