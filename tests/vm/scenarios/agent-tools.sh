#!/bin/bash
# The agent against every rdma-core tool, on its best sensor and on the tracepoint fallback at
# once: two daemons (`--sensor auto`: fexit on ib_uverbs/rdma_ucm, BPF LSM hooks; `--sensor
# tracepoint`) record while `rdma link add rxe0 type rxe netdev dummy0` creates the device and
# ibv_rc_pingpong, ibv_ud_pingpong, ib_write_bw, ib_read_lat, rping, udaddy (each a server and a
# client on rxe0) and rg-host-driver (cross-process memory access, library loads) run in turn.
# Each tool is given a message size that is not its default. Both recordings must hold the same
# exact facts for every peer: its exec (pid, /usr/bin/TOOL), the library loads (libibverbs, the
# rxe provider, librdmacm where linked), its open of uverbs0, each MR's length (computed from the
# size the tool was given, the way the tool sizes its buffers) and exact access flags, its QP's
# number (as the tool printed it), type and INIT/RTR/RTS moves (RTR naming the peer's QP and
# address), the rdma_cm addresses and ports; both daemons' alert files the rules' alerts for each
# peer (RDMA-002 for the new link, RDMA-003 with the libraries, RDMA-004 naming pid and
# executable, RDMA-005, RDMA-009). The late module load is sensors-late-module.sh's, the audit
# against `rdma resource show` audit-inventory.sh's; sensors-{fentry,kprobe}.sh force the other
# flavours.
# lab-rxe: none
# lab-timeout: 900
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"

[ -x "$RG" ] || fail "no agent at $RG: build first (meson setup build && ninja -C build)"
[ ! -e /sys/class/infiniband/rxe0 ] || fail "rxe0 exists before the daemons start"

# Both start together: attaching takes 20-40 s each under TCG.
daemon_start best auto
daemon_start fallback tracepoint
daemon_ready best fallback

log "rdma link add rxe0 type rxe netdev dummy0, both daemons watching"
rxe_up rxe0
run_common
run_pingpong ud_server ud_client ibv_ud_pingpong
run_perftest bw_server bw_client ib_write_bw
run_perftest lat_server lat_client ib_read_lat
run_udaddy udaddy_server udaddy_client
daemon_stop best fallback

pid()
{
	bg_pid "$1"
}

# want_tools: the facts of the peers run_common does not cover, from $EV. MR lengths are
# computed from the sizes the tools were given (sensors.sh RC_SIZE...).
want_tools()
{
	local s c len
	# ibv_ud_pingpong: the message size plus the GRH, local write only; an address handle for
	# the peer's GID
	len=$(ud_mr_len "$UD_SIZE")
	s=$(pid ud_server)
	c=$(pid ud_client)
	want_peer "$s" ibv_ud_pingpong qp=ud qpn="$(printed_qpn ud_server)" mr="$len:local_write"
	want_peer "$c" ibv_ud_pingpong qp=ud qpn="$(printed_qpn ud_client)" mr="$len:local_write"
	want_ud_ah "$s"
	want_ud_ah "$c"
	# ib_write_bw: one MR over its two cache-line aligned buffers, open to remote writes, and
	# relaxed ordering: perftest asks for it by default ("PCIe relax order: ON") and libibverbs
	# passes that optional flag on to a kernel that takes optional flags (perftest_resources.c
	# create_single_mr, libibverbs/verbs.c ibv_reg_mr_iova2); the written-to server stays at
	# RTR. The address it prints (and sends its peer) is the second buffer, one BUFF_SIZE into
	# the MR (perftest_communication.c)
	len=$(perftest_mr_len "$BW_SIZE")
	s=$(pid bw_server)
	c=$(pid bw_client)
	want_peer "$s" ib_write_bw cm=1 qp=rc qpn="$(printed_qpn bw_server)" peer="$c" rts=0 \
		mr="$len:local_write+remote_write+relaxed_ordering" \
		mraddr=$(($(printed_vaddr bw_server) - $(perftest_cycle "$BW_SIZE")))
	want_peer "$c" ib_write_bw cm=1 qp=rc qpn="$(printed_qpn bw_client)" peer="$s" \
		mr="$len:local_write+remote_write+relaxed_ordering" \
		mraddr=$(($(printed_vaddr bw_client) - $(perftest_cycle "$BW_SIZE")))
	# ib_read_lat: the same layout, open to remote reads; both sides read, both RTS
	len=$(perftest_mr_len "$LAT_SIZE")
	s=$(pid lat_server)
	c=$(pid lat_client)
	want_peer "$s" ib_read_lat cm=1 qp=rc qpn="$(printed_qpn lat_server)" peer="$c" \
		mr="$len:local_write+remote_read+relaxed_ordering" \
		mraddr=$(($(printed_vaddr lat_server) - $(perftest_cycle "$LAT_SIZE")))
	want_peer "$c" ib_read_lat cm=1 qp=rc qpn="$(printed_qpn lat_client)" peer="$s" \
		mr="$len:local_write+remote_read+relaxed_ordering" \
		mraddr=$(($(printed_vaddr lat_client) - $(perftest_cycle "$LAT_SIZE")))
	# udaddy: the message size (-S) plus the GRH, local write; a UD QP that librdmacm takes to
	# RTS at once; the server's address handle from the client's GRH, the client's from the
	# resolved route
	len=$(ud_mr_len "$UDADDY_SIZE")
	s=$(pid udaddy_server)
	c=$(pid udaddy_client)
	want_peer "$s" udaddy cm=1 pds=2 qp=ud mr="$len:local_write"
	want_peer "$c" udaddy cm=1 pds=2 qp=ud mr="$len:local_write"
	want_ud_ah "$s"
	want_ud_ah "$c"
	want_cm "$s" "$c" 0x0111 0
}

# The peers and their executables.
declare -A EXE=([rc_server]=ibv_rc_pingpong [rc_client]=ibv_rc_pingpong [rping_server]=rping
	[rping_client]=rping [ud_server]=ibv_ud_pingpong [ud_client]=ibv_ud_pingpong
	[bw_server]=ib_write_bw [bw_client]=ib_write_bw [lat_server]=ib_read_lat
	[lat_client]=ib_read_lat [udaddy_server]=udaddy [udaddy_client]=udaddy)
PEERS=(rc_server rc_client rping_server rping_client ud_server ud_client bw_server bw_client
	lat_server lat_client udaddy_server udaddy_client)

# want_alerts: the rules' alerts (the daemon's file output) for every peer, from $ALERTS.
want_alerts()
{
	local name p remote n
	# the link, created while the daemon ran (at the start there was only the module)
	want '{"rule.id": "RDMA-002", "event.action": "device_add", "rdma.device": "rxe0",
		"rdma.soft": true}' --count 1
	want '{"rule.id": "RDMA-002", "event.action": "device_present"}' --absent
	for name in "${PEERS[@]}"; do
		p=$(pid "$name")
		# uverbs0 opened once
		want "{\"rule.id\": \"RDMA-004\", \"process.pid\": $p, \"file.path\": \"/dev/infiniband/uverbs0\",
			\"process.executable\": \"/usr/bin/${EXE[$name]}\", \"rdma.device\": \"rxe0\",
			\"count\": 1}" --count 1
		want "{\"rule.id\": \"RDMA-004\", \"process.pid\": $p}" --count 1
		# the libraries: libibverbs once; the providers ibv_get_device_list() loads (all
		# of them) aggregated, the first at once; librdmacm where the tool links it
		want "{\"rule.id\": \"RDMA-003\", \"process.pid\": $p, \"rdma.library\": \"libibverbs\",
			\"process.executable\": \"/usr/bin/${EXE[$name]}\",
			\"dll.path\": \"~^/usr/lib/.*/libibverbs\\\\.so\\\\.1\", \"count\": 1}" --count 1
		want "{\"rule.id\": \"RDMA-003\", \"process.pid\": $p, \"rdma.library\": \"provider\",
			\"count\": 1}" --min 1
		case $name in
		rping_* | bw_* | lat_* | udaddy_*) n=1 ;;
		*) n=0 ;;
		esac
		want "{\"rule.id\": \"RDMA-003\", \"process.pid\": $p, \"rdma.library\": \"librdmacm\",
			\"count\": 1}" --count "$n"
		# remote access MRs: the first at once, a second one (rping's client) when the
		# aggregation window closes (at the latest when the daemon stops)
		n=1
		case $name in
		bw_*)
			remote="\"rdma.mr.length\": $(perftest_mr_len "$BW_SIZE"),
				\"rdma.mr.access\": [\"remote_write\"]"
			;;
		lat_*)
			remote="\"rdma.mr.length\": $(perftest_mr_len "$LAT_SIZE"),
				\"rdma.mr.access\": [\"remote_read\"]"
			;;
		rping_*)
			remote="\"rdma.mr.length\": $RPING_SIZE,
				\"rdma.mr.access\": [\"remote_read\", \"remote_write\"]"
			[ "$name" = rping_server ] || n=2
			;;
		*) remote="" ;;
		esac
		if [ -n "$remote" ]; then
			want "{\"rule.id\": \"RDMA-005\", \"process.pid\": $p, $remote, \"count\": 1}" --count "$n"
		fi
		want "{\"rule.id\": \"RDMA-005\", \"process.pid\": $p}" --count "$([ -n "$remote" ] && echo "$n" || echo 0)"
		# connections: RTR (naming the peer's address for RC), RTS but for the ib_write_bw
		# target; rdma_cm connect by the clients, accept by the servers and rping's client
		case $name in
		ud_* | udaddy_*)
			want "{\"rule.id\": \"RDMA-009\", \"process.pid\": $p, \"rdma.op\": \"modify_qp\",
				\"rdma.qp.state\": \"rtr\"}" --count 1
			;;
		*)
			want "{\"rule.id\": \"RDMA-009\", \"process.pid\": $p, \"rdma.op\": \"modify_qp\",
				\"rdma.qp.state\": \"rtr\", \"rdma.peer.address\": \"$LAB_ADDR\"}" --count 1
			;;
		esac
		want "{\"rule.id\": \"RDMA-009\", \"process.pid\": $p, \"rdma.op\": \"modify_qp\",
			\"rdma.qp.state\": \"rts\"}" --count "$([ "$name" = bw_server ] && echo 0 || echo 1)"
		case $name in
		rping_client | udaddy_client)
			want "{\"rule.id\": \"RDMA-009\", \"process.pid\": $p, \"rdma.op\": \"connect\",
				\"rdma.peer.address\": \"$LAB_ADDR\", \"rdma.peer.port\": 7174}" --count 1
			;;
		esac
		case $name in
		rping_* | udaddy_server)
			want "{\"rule.id\": \"RDMA-009\", \"process.pid\": $p, \"rdma.op\": \"accept\",
				\"rdma.peer.address\": \"$LAB_ADDR\"}" --count 1
			;;
		*)
			want "{\"rule.id\": \"RDMA-009\", \"process.pid\": $p, \"rdma.op\": \"accept\"}" --absent
			;;
		esac
	done
}

for d in best fallback; do
	EV=$OUT/$d/events.jsonl
	ALERTS=$OUT/$d/alerts.jsonl
	case $d in best) mode=auto ;; fallback) mode=tracepoint ;; esac
	want_hooks "$mode"
	want_alerts
	check_events "$ALERTS"
	want_agent "$mode"
	need_common
	for name in ud_server ud_client bw_server bw_client lat_server lat_client udaddy_server \
		udaddy_client; do
		need_peer "$(pid "$name")"
	done
	need_cm_client "$(pid udaddy_client)"
	fetch_needs
	want_common
	want_tools
	# rdma link add, seen from netlink: a soft-RoCE device on dummy0; not there at the start
	want '{"event.action": "device_add", "event.provider": "netlink", "rdma.device": "rxe0",
		"rdma.netdev": "dummy0", "rdma.soft": true, "rdma.driver": "rdma_rxe"}' --count 1
	want '{"event.action": "device_present", "rdma.device": "rxe0"}' --absent
	check_events
done
