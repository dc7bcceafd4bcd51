#!/bin/bash
# lab-part: 2 (tests/vm/meson.build: the two halves of the pc lab boot side by side)
# Kernel RDMA through sockets, on rxe0, seen by every sensor flavour at once: three daemons
# (`--sensor auto`: fexit on the syscalls; `kprobe`: kretprobes on them; `tracepoint`: the
# sys_exit tracepoints) record while rg-sock-probe (tests/integration/host/rg-sock-probe.c: the
# syscalls, no library) uses AF_RDS over rds_rdma and AF_SMC. RDS: two sockets on 192.0.2.1
# (SO_RDS_TRANSPORT IB, bind), a first message (it brings the IB connection up, over rxe0 to
# itself), RDS_GET_MR (Debian's 6.1 refuses it with EOPNOTSUPP on every fast-registration device:
# the attempt is what is seen), an 8 KiB region exposed with RDS_CMSG_RDMA_MAP on a send, a real
# RDMA write into it named by the cookie the kernel wrote, and one more by sendmmsg() (their bytes
# checked in the region), RDS_FREE_MR.
# SMC (the module autoloaded by socket(AF_SMC)): a listener, a client's connect, the accept;
# with rxe0 and no PNET table or SMC-Rv2 setup the connection falls back to TCP, and the kernel
# then hands the sockets' files to their TCP sockets, which the sensors follow back. Each
# recording must hold every call with its exact fields (fds, addresses and ports, the region's
# address and length, the cookie, the kernel's answer as the probe printed it), and each alert
# file RDMA-005 (the region), RDMA-009 (the RDMA write's peer, the SMC connect and accept).
# Leaves rds, rds_rdma and smc unloaded.
# lab-timeout: 600
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"

PROBE=$RG_BUILD/tests/integration/host/rg-sock-probe
[ -x "$RG" ] || fail "no agent at $RG: build first (meson setup build && ninja -C build)"
[ -x "$PROBE" ] || fail "no $PROBE: build first"

unload()
{
	modprobe -r smc_diag smc rds_rdma rds 2>/dev/null || true
}
trap unload EXIT

rds_ib_on_rxe0()
{
	dmesg | grep -q "RDS/IB: rxe0: added"
}
modprobe rds_rdma || fail "modprobe rds_rdma failed: Debian's kernel ships it"
wait_for -m "RDS/IB on rxe0" rds_ib_on_rxe0

daemon_start best auto
daemon_start kp kprobe
daemon_start tp tracepoint
daemon_ready best kp tp

"$PROBE" rds "$LAB_ADDR" 18600 >"$OUT/rds.txt" || fail "rg-sock-probe rds failed: $(cat "$OUT/rds.txt")"
"$PROBE" smc "$LAB_ADDR" 18700 >"$OUT/smc.txt" || fail "rg-sock-probe smc failed: $(cat "$OUT/smc.txt")"
log "rds: $(tr '\n' ' ' <"$OUT/rds.txt")"
log "smc: $(tr '\n' ' ' <"$OUT/smc.txt")"
log "modules: $(lsmod | awk '$1 ~ /^(rds|rds_rdma|smc)$/ { printf "%s ", $1 }')"
daemon_stop best kp tp

f() { sed -n "s/^$2=//p" "$OUT/$1.txt" | head -n 1; }
# ret KEY: the kernel's answer as the recording holds it (a failure: rdma.ret and the flag)
ret()
{
	local v
	v=$(f "$1" "$2")
	if [ "$v" -lt 0 ]; then
		echo "\"rdma.ret\": $v, \"event.flags\": [\"failed\"]"
	else
		echo '"rdma.ret": {"?": false}'
	fi
}

RPID=$(f rds pid)
SPID=$(f smc pid)
REGION=$(f rds region)
LOCAL=$(f rds local)
COOKIE=$(f rds cookie)
[ "$COOKIE" != 0 ] || fail "RDS_CMSG_RDMA_MAP wrote no cookie"
# the write ran on rxe0: b's region holds a's 0xa5 bytes
assert_eq "$(f rds region_byte)" 165 "the region's first byte after the RDMA write"
assert_eq "$(f rds region_byte2)" 165 "the region's second page after the RDMA write by sendmmsg()"

for d in best kp tp; do
	case $d in best) fl=fentry ;; kp) fl=kprobe ;; tp) fl=tracepoint ;; esac
	R="\"event.action\": \"rdma_socket\", \"process.pid\": $RPID, \"rdma.socket.family\": \"rds\""
	S="\"event.action\": \"rdma_socket\", \"process.pid\": $SPID, \"rdma.socket.family\": \"smc\""
	want "{\"event.action\": \"agent_start\", \"agent.text\": \"~ sockets=$fl( |\$)\"}" --count 1
	want '{"event.action": "agent_lost"}' --absent
	want "{$R, \"rdma.op\": \"socket\", \"rdma.fd\": $(f rds a_fd), \"rdma.socket.type\": 5}" --count 1
	want "{$R, \"rdma.op\": \"socket\", \"rdma.fd\": $(f rds b_fd), \"rdma.socket.type\": 5}" --count 1
	want "{$R, \"rdma.op\": \"set_transport\", \"rdma.socket.transport\": \"ib\",
		\"rdma.socket.option\": 8, $(ret rds a_transport)}" --count 2
	want "{$R, \"rdma.op\": \"bind\", \"rdma.fd\": $(f rds a_fd),
		\"rdma.local.address\": \"$LAB_ADDR\", \"rdma.local.port\": 18600, $(ret rds a_bind)}" --count 1
	want "{$R, \"rdma.op\": \"bind\", \"rdma.fd\": $(f rds b_fd),
		\"rdma.local.address\": \"$LAB_ADDR\", \"rdma.local.port\": 18601, $(ret rds b_bind)}" --count 1
	want "{$R, \"rdma.op\": \"get_mr\", \"rdma.fd\": $(f rds a_fd), \"rdma.socket.option\": 2,
		\"rdma.mr.addr\": $LOCAL, \"rdma.mr.length\": 4096,
		\"rdma.mr.access\": [\"local_write\", \"remote_write\", \"remote_read\"],
		$(ret rds get_mr)}" --count 1
	want "{$R, \"rdma.op\": \"rdma_map\", \"rdma.fd\": $(f rds b_fd), \"rdma.rds.cmsgs\": 1,
		\"rdma.peer.address\": \"$LAB_ADDR\", \"rdma.peer.port\": 18600,
		\"rdma.mr.addr\": $REGION, \"rdma.mr.length\": 8192,
		\"rdma.mr.access\": [\"local_write\", \"remote_write\", \"remote_read\"],
		$(ret rds rdma_map)}" --count 1
	want "{$R, \"rdma.op\": \"rdma_write\", \"rdma.fd\": $(f rds a_fd), \"rdma.rds.cmsgs\": 1,
		\"rdma.peer.address\": \"$LAB_ADDR\", \"rdma.peer.port\": 18601,
		\"rdma.mr.cookie\": $COOKIE, \"rdma.remote.addr\": {\"?\": false},
		\"rdma.remote.length\": 4096,
		\"rdma.rds.flags\": \"0x0001\", $(ret rds rdma_write)}" --count 1
	want "{$R, \"rdma.op\": \"rdma_write\", \"rdma.fd\": $(f rds a_fd), \"rdma.rds.cmsgs\": 1,
		\"rdma.peer.address\": \"$LAB_ADDR\", \"rdma.peer.port\": 18601,
		\"rdma.mr.cookie\": $COOKIE, \"rdma.remote.addr\": 4096, \"rdma.remote.length\": 4096,
		$(ret rds rdma_write_mmsg_len)}" --count 1
	want "{$R, \"rdma.op\": \"free_mr\", \"rdma.fd\": $(f rds b_fd), \"rdma.mr.cookie\": $COOKIE,
		$(ret rds free_mr)}" --count 1
	want "{\"event.action\": \"rdma_socket\", \"process.pid\": $RPID}" --count 11
	want "{$S, \"rdma.op\": \"socket\", \"rdma.fd\": $(f smc listen_fd), \"rdma.socket.type\": 1}" --count 1
	want "{$S, \"rdma.op\": \"socket\", \"rdma.fd\": $(f smc client_fd)}" --count 1
	want "{$S, \"rdma.op\": \"bind\", \"rdma.local.address\": \"$LAB_ADDR\",
		\"rdma.local.port\": 18700, $(ret smc bind)}" --count 1
	want "{$S, \"rdma.op\": \"connect\", \"rdma.fd\": $(f smc client_fd),
		\"rdma.peer.address\": \"$LAB_ADDR\", \"rdma.peer.port\": 18700, $(ret smc connect)}" --count 1
	want "{$S, \"rdma.op\": \"accept\", \"rdma.fd\": $(f smc accept),
		\"rdma.peer.address\": \"$LAB_ADDR\", \"rdma.peer.port\": $(f smc client_port)}" --count 1
	want "{\"event.action\": \"rdma_socket\", \"process.pid\": $SPID}" --count 5
	check_events "$OUT/$d/events.jsonl"

	# RDMA-005: the first region of the process alerts at once (the refused RDS_GET_MR, an
	# attempt), the RDMA_MAP is its repeat (aggregate by device and family)
	want "{\"rule.id\": \"RDMA-005\", \"process.pid\": $RPID, \"rdma.op\": \"get_mr\",
		\"rdma.mr.length\": 4096, \"severity\": \"high\"}" --count 1
	# RDMA-009: the first RDMA write at once, the one by sendmmsg() its repeat (same peer), the
	# SMC accept the connect's (same peer address), both reported when the daemon stops
	want "{\"rule.id\": \"RDMA-009\", \"process.pid\": $RPID, \"rdma.op\": \"rdma_write\",
		\"rdma.peer.address\": \"$LAB_ADDR\", \"rdma.peer.port\": 18601,
		\"rdma.remote.addr\": {\"?\": false}}" --count 1
	want "{\"rule.id\": \"RDMA-009\", \"process.pid\": $RPID, \"rdma.op\": \"rdma_write\",
		\"rdma.remote.addr\": 4096}" --count 1
	want "{\"rule.id\": \"RDMA-009\", \"process.pid\": $SPID, \"rdma.op\": \"connect\",
		\"rdma.peer.port\": 18700}" --count 1
	want "{\"rule.id\": \"RDMA-009\", \"process.pid\": $SPID, \"rdma.op\": \"accept\",
		\"rdma.peer.port\": $(f smc client_port)}" --count 1
	check_events "$OUT/$d/alerts.jsonl"
done
log "every flavour saw the RDS and SMC sockets"
