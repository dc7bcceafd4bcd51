# shellcheck shell=bash
# The agent in the VM lab: `rdmaguard daemon --record` runs while real rdma-core tools use rxe0,
# then expect.py asserts the recorded events and the alerts. Source after lib.sh. Used by
# scenarios/agent-tools.sh (best sensor and tracepoint fallback side by side, every tool) and
# sensors-{fentry,kprobe,late-module}.sh.
#
# Expectations are collected (want, need) and checked in one expect.py run per file: under TCG
# every python start costs seconds, and checking each fact on its own took minutes.

# --- daemons ---------------------------------------------------------------------------------

# daemon_start NAME MODE: `rdmaguard daemon --sensor MODE` as the background peer NAME, with the
# repository's rules and the built-in policy; its files in $OUT/NAME/: events.jsonl (--record),
# alerts.jsonl (--output file:; its agent_start notice has the hooks it attached), ready
# (--ready-file); its status socket $TMPDIR/NAME.sock. Does not wait: daemon_ready.
daemon_start()
{
	local name=$1 mode=$2 d=$OUT/$1
	mkdir -p "$d"
	bg "$name" "$RG" daemon --sensor "$mode" --rules "$RG_SRC/rules" \
		${SENSORS_POLICY:+--policy "$SENSORS_POLICY"} \
		--record "$d/events.jsonl" --output "file:$d/alerts.jsonl" \
		--ready-file "$d/ready" --status-socket "$TMPDIR/$name.sock"
}

# sensors_policy: the daemons started after it have a policy with one game, Arena
# ($TMPDIR/arena/arena, a copy of sleep): run_fixed starts it.
sensors_policy()
{
	mkdir -p "$TMPDIR/arena"
	cp /bin/sleep "$TMPDIR/arena/arena"
	SENSORS_POLICY=$TMPDIR/sensors-policy.json
	printf '{"games": [{"name": "Arena", "exe": "%s/arena/*"}]}\n' "$TMPDIR" >"$SENSORS_POLICY"
	chmod 600 "$SENSORS_POLICY"
}

_daemons_ready()
{
	local name
	for name; do
		[ -e "$OUT/$name/ready" ] || return 1
	done
}

# daemon_ready NAME...: wait until every one has written its ready file (sensors attached), and
# check each one's verifier headroom.
daemon_ready()
{
	local name
	# Attaching many programs under TCG takes a while: wait for the ready files, not a time
	# (the kprobe daemon's verification took 163 s to more than 300 s on a build machine at
	# load 20; 23 s quiet).
	wait_for -t 600 -m "rdmaguard daemon(s) ready: $*" _daemons_ready "$@"
	for name; do
		verifier_headroom "$name"
	done
}

# verifier_headroom NAME: the most instructions the kernel's verifier processed for one program
# of the daemon (fdinfo's verified_insns), logged; fails above 90% of the verifier's limit
# (1,000,000; over it a program is refused with E2BIG). This guest's 6.1 prunes less than newer
# kernels: one more branch in classify_file() once pushed the ioctl exit programs over the limit
# here while they loaded on the build machine. A change that nears it fails here first.
verifier_headroom()
{
	local pid top v id list="" progs
	pid=$(bg_pid "$1")
	# an fd closed between the glob and awk's read makes awk exit 2: not a failure here
	top=$({ awk 'FNR == 1 { id = "" } /^prog_id:/ { id = $2 }
		/^verified_insns:/ && id != "" { print $2, id }' \
		/proc/"$pid"/fdinfo/* 2>/dev/null || true; } | sort -rn | head -n 3)
	[ -n "$top" ] || fail "$1: no BPF program with verified_insns in /proc/$pid/fdinfo"
	progs=$(bpftool prog show 2>/dev/null || true)
	while read -r v id; do
		list+="${list:+, }$v ($(sed -n "s/^$id: [a-z_]* *name \([^ ]*\).*/\1/p" <<<"$progs"))"
	done <<<"$top"
	log "$1: verifier: instructions processed, the most: $list; the limit: 1000000"
	read -r v id <<<"$top" # the first line: the most
	[ "$v" -le 900000 ] || fail "$1: the verifier processed $v instructions for program $id:" \
		"above 90% of its limit on this kernel (make the program simpler)"
}

# daemon_stop NAME...: SIGTERM to all at once, then each must exit 0.
daemon_stop()
{
	local name
	for name; do
		kill -TERM "$(bg_pid "$name")"
	done
	for name; do
		bg_wait -t 120 "$name" || fail "the daemon $name did not stop cleanly"
	done
}

# start_daemon MODE / stop_daemon: one daemon named "daemon", whose recording is $EV and alert
# file $ALERTS.
start_daemon()
{
	daemon_start daemon "$1"
	daemon_ready daemon
	EV=$OUT/daemon/events.jsonl
	ALERTS=$OUT/daemon/alerts.jsonl
}

stop_daemon()
{
	daemon_stop daemon
}

# --- expectations, batched -------------------------------------------------------------------

# The recording ev and fetch_needs read, and check_events by default; the alert file.
EV=$OUT/daemon/events.jsonl
ALERTS=$OUT/daemon/alerts.jsonl
declare -ga _want=() _need_keys=() _need_args=()
declare -gA GOT=()

ev()
{
	expect_json "$EV" "$@"
}

# want JSON [--count N | --min N | --max N | --absent]: one more expectation for check_events.
want()
{
	_want+=(--match "$1")
	shift
	_want+=("$@")
}

# check_events [FILE]: every expectation wanted so far, against FILE (default $EV), in one run;
# a failed one (all are reported) ends the scenario.
check_events()
{
	local f=${1:-$EV} n=$((${#_want[@]} / 2)) rc=0
	[ ${#_want[@]} -gt 0 ] || fail "check_events: nothing wanted"
	log "checking $f"
	expect_json -q "$f" "${_want[@]}" || rc=$?
	_want=()
	[ "$rc" = 0 ] || fail "expectations on $f not met (rc=$rc; the failed ones above)"
}

# need KEY JSON PATH: fetch_needs puts PATH of the one record matching JSON into GOT[KEY].
need()
{
	_need_keys+=("$1")
	_need_args+=(--match "$2" --count 1 --get "$3")
}

# fetch_needs: what need asked for, from $EV, in one run.
fetch_needs()
{
	local f=$EV i
	local -a vals
	[ ${#_need_keys[@]} -gt 0 ] || return 0
	expect_json -q "$f" "${_need_args[@]}" >"$TMPDIR/needs" ||
		fail "facts needed from $f are missing or not unique (above)"
	mapfile -t vals <"$TMPDIR/needs"
	[ ${#vals[@]} = ${#_need_keys[@]} ] ||
		fail "fetch_needs: ${#vals[@]} values for ${#_need_keys[@]} facts from $f"
	for i in "${!_need_keys[@]}"; do
		GOT[${_need_keys[$i]}]=${vals[$i]}
	done
	_need_keys=()
	_need_args=()
}

got()
{
	[ -n "${GOT[$1]:-}" ] || fail "no fact $1 fetched"
	echo "${GOT[$1]}"
}

# --- the hooks the daemon attached -----------------------------------------------------------

# _flavours MODE: "VERBS OPEN MEMORY", the flavours --sensor MODE gives the verbs and rdma_cm, open,
# and mmap and memory hook points here.
_flavours()
{
	case $1 in
	auto)
		# fexit on the modules; LSM hooks (file_open with fentry on fd_install) where the
		# bpf LSM is active (Debian's 6.1 lists it by default), else fentry
		if grep -qw bpf /sys/kernel/security/lsm; then
			echo fentry lsm lsm
		else
			echo fentry fentry fentry
		fi
		;;
	*) echo "$1 $1 $1" ;;
	esac
}

# want_hooks MODE: in the alert file, the daemon's agent_start notice names MODE's flavour on every
# hook point that has one (what it attached, not what --dry-run plans); `self` (bpf()) is on the
# verbs' flavour: no syscall tracepoint is left under fentry or kprobe.
want_hooks()
{
	local mode=$1 v o m
	read -r v o m < <(_flavours "$mode")
	want "{\"event.action\": \"agent_start\", \"agent.hooks.mode\": \"$mode\",
		\"agent.hooks.hooks\": {\"verbs.active\": \"$v\", \"rdma_cm.active\": \"$v\",
		\"open.active\": \"$o\", \"mmap.active\": \"$m\", \"memory.active\": \"$m\",
		\"process.active\": \"tracepoint\", \"library.active\": \"uprobe\",
		\"modules.active\": \"tracepoint\", \"devices.active\": \"uevent\",
		\"roce.active\": \"tc\", \"self.active\": \"$v\"}}" --count 1
	want '{"event.action": "agent_stop"}' --count 1
}

# want_agent MODE: in the recording, the same summary at the start, a clean stop, nothing
# rdma-core did seen as failed, no record lost.
want_agent()
{
	local v o m
	read -r v o m < <(_flavours "$1")
	want "{\"event.action\": \"agent_start\",
		\"agent.text\": \"~open=$o verbs=$v rdma_cm=$v mmap=$m memory=$m\"}" --count 1
	want '{"event.action": "agent_stop"}' --count 1
	want '{"event.action": "verbs", "event.flags": ["failed"],
		"rdma.op": {"|": ["reg_mr", "create_qp", "modify_qp"]}}' --absent
	# records dropped over a process's budget are not lost to a full ring (want_flood)
	want '{"event.action": "agent_lost", "agent.what": {"!=": "budget"}}' --absent
}

# --- the peers: real rdma-core tools on rxe0 -------------------------------------------------
# Each run_* starts a server and a client (background peers SERVER and CLIENT) and waits for both
# to exit 0; the pids stay available with bg_pid. Every peer is given its message size (none is a
# tool's default), and the expected MR lengths are computed from it the way each tool sizes its
# buffers (the *_mr_len helpers, from the tools' sources), so a fact that merely equals a default
# cannot pass.

# The sizes given to the tools.
RC_SIZE=3000     # ibv_rc_pingpong -s (default 4096)
UD_SIZE=500      # ibv_ud_pingpong -s (default 1024; at most the path MTU, 1024 on dummy0)
BW_SIZE=20000    # ib_write_bw -s (default 65536)
LAT_SIZE=6000    # ib_read_lat -s (default 2)
RPING_SIZE=100   # rping -S (default 64)
UDADDY_SIZE=200  # udaddy -S (default 100)

# ud_mr_len SIZE: ibv_ud_pingpong and udaddy register SIZE plus the 40-byte GRH a UD receive
# starts with (libibverbs/examples/ud_pingpong.c pp_init_ctx, librdmacm/examples/udaddy.c
# init_node).
ud_mr_len()
{
	echo $(($1 + 40))
}

# perftest_cycle SIZE: perftest's BUFF_SIZE(size, cycle_buffer): the larger of the message size
# and the page size (perftest_resources.h); the address a peer prints (and sends its peer) is one
# such buffer into its MR.
perftest_cycle()
{
	local page
	page=$(getconf PAGESIZE)
	echo $(($1 > page ? $1 : page))
}

# perftest_mr_len SIZE: the one MR of a 1-QP perftest: BUFF_SIZE rounded up to the cache line
# (at least one line), times 2 (send and receive halves): ctx->buff_size in
# perftest_resources.c alloc_ctx; the line size as get_cache_line_size() reads it.
perftest_mr_len()
{
	local b cl
	b=$(perftest_cycle "$1")
	cl=$(getconf LEVEL1_DCACHE_LINESIZE 2>/dev/null || true)
	if [ -z "$cl" ] || [ "$cl" -le 0 ]; then
		cl=$(cat /sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size 2>/dev/null || true)
	fi
	if [ -z "$cl" ] || [ "$cl" -le 0 ]; then
		cl=64
	fi
	if [ "$b" -gt "$cl" ]; then
		b=$(((b + cl - 1) / cl * cl))
	else
		b=$cl
	fi
	echo $((b * 2))
}

# run_pingpong SERVER CLIENT [TOOL]: ibv_rc_pingpong (-s RC_SIZE) or ibv_ud_pingpong (-s
# UD_SIZE), GID index 1 (192.0.2.1), 50 iterations; the peers exchange their QP numbers and GIDs
# over TCP 18515.
run_pingpong()
{
	local server=$1 client=$2 tool=${3:-ibv_rc_pingpong} size=$RC_SIZE
	[ "$tool" != ibv_ud_pingpong ] || size=$UD_SIZE
	bg "$server" "$tool" -d rxe0 -g 1 -n 50 -s "$size"
	wait_for -m "$server on TCP 18515" listening 18515
	bg "$client" "$tool" -d rxe0 -g 1 -n 50 -s "$size" 127.0.0.1
	bg_wait "$client" || fail "$tool client failed"
	bg_wait "$server" || fail "$tool server failed"
	grep -q "^$((size * 2 * 50)) bytes in .* seconds = " "$OUT/$client.log" ||
		fail "$tool client did not move 50 iterations of $size bytes each way"
	grep -q "^50 iters in " "$OUT/$client.log" || fail "$tool client did not do 50 iterations"
}

# run_perftest SERVER CLIENT TOOL: ib_write_bw (-s BW_SIZE) or ib_read_lat (-s LAT_SIZE), RoCE
# v2 GID index 1, 200 iterations (-F: no CPU frequency check, see lib.sh perftest_pair).
run_perftest()
{
	local server=$1 client=$2 tool=$3 size=$BW_SIZE
	[ "$tool" != ib_read_lat ] || size=$LAT_SIZE
	bg "$server" "$tool" -d rxe0 -x 1 -F -n 200 -s "$size"
	wait_for -m "$server on TCP 18515" listening 18515
	bg "$client" "$tool" -d rxe0 -x 1 -F -n 200 -s "$size" 127.0.0.1
	bg_wait "$client" || fail "$tool client failed"
	bg_wait "$server" || fail "$tool server failed"
}

# run_rping SERVER CLIENT: rdma_cm connection setup by rping, server bound to the lab address,
# 5 pings of RPING_SIZE bytes.
run_rping()
{
	bg "$1" rping -s -a "$LAB_ADDR" -C 5 -S "$RPING_SIZE" -v
	wait_for -m "rping's listening cm_id" cm_id_listening "$TMPDIR/cm_id.json" "$(bg_pid "$1")"
	bg "$2" rping -c -a "$LAB_ADDR" -C 5 -S "$RPING_SIZE" -v
	bg_wait "$2" || fail "rping client failed"
	bg_wait "$1" || fail "rping server failed"
	[ "$(grep -c "^ping data: rdma-ping-" "$OUT/$2.log")" = 5 ] || fail "rping client: not 5 pings"
}

# run_udaddy SERVER CLIENT: UD messages of UDADDY_SIZE bytes over rdma_cm (port space UDP), one
# connection.
run_udaddy()
{
	bg "$1" udaddy -b "$LAB_ADDR" -S "$UDADDY_SIZE"
	wait_for -m "udaddy's listening cm_id" cm_id_listening "$TMPDIR/cm_id.json" "$(bg_pid "$1")"
	bg "$2" udaddy -s "$LAB_ADDR" -S "$UDADDY_SIZE"
	bg_wait "$2" || fail "udaddy client failed"
	bg_wait "$1" || fail "udaddy server failed"
	grep -q "^test complete" "$OUT/$2.log" || fail "udaddy client: no 'test complete'"
}

# --- what the sensors must have seen of a peer -----------------------------------------------

# need_peer PID: its QP number (one create_qp) and its start time (its exec), for want_peer.
need_peer()
{
	need "qpn.$1" "{\"process.pid\": $1, \"rdma.op\": \"create_qp\"}" rdma.qp.num
	need "start.$1" "{\"event.action\": \"exec\", \"process.pid\": $1}" process.start_boot_ns
}

# want_peer PID TOOL KEY=VALUE...: the facts every peer shows, from $EV. Keys:
#   cm=1          librdmacm is loaded (linked); default 0: it is not
#   opens=N       it opens /dev/infiniband/uverbs0 N times (default 1)
#   pds=N         protection domains (default 1; librdmacm allocates one of its own)
#   qp=rc|ud      the type of its one QP
#   qpn=N         its QP number, as the tool printed it (printed_qpn)
#   mraddr=N      the start (and iova) of its one MR
#   inits=N       modify_qp to INIT (default 1; librdmacm does it again before RTR)
#   peer=PID      rc: the pid whose QP number its RTR names (ud: no destination QP)
#   rts=0         its QP stays at RTR (an RDMA WRITE target); default 1: one move to RTS
#   mr=LEN:ACCESS one registration of LEN bytes with exactly ACCESS, flags joined by + (none: -);
#                 repeat for each
want_peer()
{
	local p=$1 tool=$2 kv cm=0 opens=1 pds=1 qp="" qpn='{">": 0}' mraddr="" inits=1 peer="" rts=1
	local mr len acc n=0
	local -a mrs=()
	local -A seen=()
	shift 2
	for kv; do
		case $kv in
		cm=* | opens=* | pds=* | qp=* | qpn=* | mraddr=* | inits=* | peer=* | rts=*) local "$kv" ;;
		mr=*) mrs+=("${kv#mr=}") ;;
		*) fail "want_peer: unknown $kv" ;;
		esac
	done
	[ -n "$qp" ] || fail "want_peer $p: no qp="
	want "{\"event.action\": \"exec\", \"process.pid\": $p,
		\"process.executable\": \"/usr/bin/$tool\"}" --count 1
	want "{\"event.action\": \"library_load\", \"process.pid\": $p, \"rdma.library\": \"libibverbs\",
		\"dll.path\": \"~^/usr/lib/.*/libibverbs\\\\.so\\\\.1\"}" --count 1
	# libibverbs loads every provider it has; this one is rxe's
	want "{\"event.action\": \"library_load\", \"process.pid\": $p, \"rdma.library\": \"provider\",
		\"dll.path\": \"~^/usr/lib/.*/librxe-rdmav[0-9]+\\\\.so$\"}" --count 1
	want "{\"event.action\": \"library_load\", \"process.pid\": $p,
		\"rdma.library\": \"librdmacm\"}" --count "$cm"
	want "{\"event.action\": \"device_open\", \"process.pid\": $p,
		\"file.path\": \"/dev/infiniband/uverbs0\", \"rdma.node\": \"uverbs\",
		\"rdma.device\": \"rxe0\"}" --count "$opens"
	want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"alloc_pd\",
		\"rdma.device\": \"rxe0\"}" --count "$pds"
	want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"create_cq\"}" --min 1
	want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"mmap\",
		\"rdma.via\": \"mmap\", \"rdma.mmap.length\": {\">\": 0}}" --min 1
	# the memory regions: each length with exactly its access flags, as often as registered
	for mr in "${mrs[@]}"; do
		n=$((n + 1))
		[ -z "${seen[$mr]:-}" ] || continue
		seen[$mr]=1
		len=${mr%%:*}
		acc=${mr#*:}
		if [ "$acc" = - ]; then
			acc='{"?": false}'
		else
			acc="{\"==\": [\"${acc//+/\", \"}\"]}"
		fi
		want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"reg_mr\",
			\"rdma.device\": \"rxe0\", \"rdma.mr.length\": $len,
			\"rdma.mr.access\": $acc}" --count "$(_count_of "$mr" "${mrs[@]}")"
	done
	want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"reg_mr\"}" --count "$n"
	if [ -n "$mraddr" ]; then
		want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"reg_mr\",
			\"rdma.mr.addr\": $mraddr, \"rdma.mr.iova\": $mraddr}" --count 1
	fi
	want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"dereg_mr\"}" --count "$n"
	# one QP: INIT, RTR (naming the peer's QP and, RoCE v2, its IPv4 address), RTS
	want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"create_qp\",
		\"rdma.device\": \"rxe0\", \"rdma.qp.type\": \"$qp\", \"rdma.qp.num\": $qpn}" --count 1
	want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"modify_qp\",
		\"rdma.qp.state\": \"init\"}" --count "$inits"
	if [ "$qp" = rc ]; then
		[ -n "$peer" ] || fail "want_peer $p: an rc peer needs peer="
		want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"modify_qp\",
			\"rdma.qp.state\": \"rtr\", \"rdma.qp.dest_num\": $(got "qpn.$peer"),
			\"rdma.peer.address\": \"$LAB_ADDR\"}" --count 1
	else
		want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"modify_qp\",
			\"rdma.qp.state\": \"rtr\", \"rdma.qp.dest_num\": {\"?\": false}}" --count 1
	fi
	want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"modify_qp\",
		\"rdma.qp.state\": \"rts\"}" --count "$rts"
	want "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"destroy_qp\"}" --count 1
	want "{\"event.action\": \"exit\", \"process.pid\": $p}" --count 1
	# every event of the peer is attributed with the start time its exec had
	want "{\"process.pid\": $p, \"process.start_boot_ns\": {\"!=\": $(got "start.$p")}}" --absent
}

# printed_qpn LOG: the QP number a pingpong or perftest peer printed ("local address: ... QPN
# 0x0018 ..."), in decimal.
printed_qpn()
{
	local x
	x=$(sed -n 's/^ *local address:.* QPN 0x\([0-9a-f]*\)[ ,].*/\1/p' "$OUT/$1.log" | head -n 1)
	[ -n "$x" ] || fail "no local QPN in $1.log"
	echo $((16#$x))
}

# printed_vaddr LOG: the buffer address a perftest peer printed and sent its peer ("... VAddr
# 0x0055f152a4c000"), in decimal.
printed_vaddr()
{
	local x
	x=$(sed -n 's/^ *local address:.* VAddr 0x\([0-9a-f]*\).*/\1/p' "$OUT/$1.log" | head -n 1)
	[ -n "$x" ] || fail "no local VAddr in $1.log"
	echo $((16#$x))
}

# _count_of ITEM LIST...: how many times ITEM is in LIST.
_count_of()
{
	local item=$1 x n=0
	shift
	for x; do
		[ "$x" != "$item" ] || n=$((n + 1))
	done
	echo "$n"
}

# want_ud_ah PID: a UD peer makes an address handle for its peer's GID (192.0.2.1).
want_ud_ah()
{
	want "{\"event.action\": \"verbs\", \"process.pid\": $1, \"rdma.op\": \"create_ah\",
		\"rdma.peer.address\": \"$LAB_ADDR\"}" --count 1
}

# need_cm_client PID: the local port of the client's connect, which the server's accept names.
need_cm_client()
{
	need "lport.$1" "{\"event.action\": \"rdma_cm\", \"process.pid\": $1, \"rdma.op\": \"connect\"}" \
		rdma.local.port
}

# want_cm SERVER CLIENT PORT_SPACE RTU: the rdma_cm side of rping (0x0106, TCP; RTU 1) or udaddy
# (0x0111, UDP; RTU 0): the client resolves and connects to 192.0.2.1:7174 (the default port), the
# server binds there, listens, and accepts the client's address and port; on a connected (RC) id
# the client's librdmacm answers the server's reply with an accept of its own (the RTU).
want_cm()
{
	local s=$1 c=$2 ps=$3 rtu=$4 p
	for p in "$s" "$c"; do
		# librdmacm's first use opens rdma_cm to probe AF_IB support (an id in port space IB,
		# 0x013f, bound and destroyed), then for the program's event channel
		want "{\"event.action\": \"device_open\", \"process.pid\": $p,
			\"file.path\": \"/dev/infiniband/rdma_cm\", \"rdma.node\": \"rdma_cm\"}" --count 2
		want "{\"event.action\": \"rdma_cm\", \"process.pid\": $p, \"rdma.op\": \"create_id\",
			\"rdma.cm.port_space\": \"0x013f\"}" --count 1
		want "{\"event.action\": \"rdma_cm\", \"process.pid\": $p, \"rdma.op\": \"create_id\",
			\"rdma.cm.port_space\": \"$ps\"}" --count 1
	done
	want "{\"event.action\": \"rdma_cm\", \"process.pid\": $c, \"rdma.op\": \"resolve_addr\",
		\"rdma.peer.address\": \"$LAB_ADDR\", \"rdma.peer.port\": 7174}" --count 1
	want "{\"event.action\": \"rdma_cm\", \"process.pid\": $c, \"rdma.op\": \"connect\",
		\"rdma.local.address\": \"$LAB_ADDR\",
		\"rdma.peer.address\": \"$LAB_ADDR\", \"rdma.peer.port\": 7174}" --count 1
	want "{\"event.action\": \"rdma_cm\", \"process.pid\": $c, \"rdma.op\": \"accept\",
		\"rdma.local.port\": $(got "lport.$c"),
		\"rdma.peer.address\": \"$LAB_ADDR\", \"rdma.peer.port\": 7174}" --count "$rtu"
	want "{\"event.action\": \"rdma_cm\", \"process.pid\": $s, \"rdma.op\": {\"|\": [\"bind\", \"bind_ip\"]},
		\"rdma.local.address\": \"$LAB_ADDR\", \"rdma.local.port\": 7174}" --count 1
	want "{\"event.action\": \"rdma_cm\", \"process.pid\": $s, \"rdma.op\": \"listen\",
		\"rdma.local.address\": \"$LAB_ADDR\", \"rdma.local.port\": 7174}" --count 1
	want "{\"event.action\": \"rdma_cm\", \"process.pid\": $s, \"rdma.op\": \"accept\",
		\"rdma.local.address\": \"$LAB_ADDR\", \"rdma.local.port\": 7174,
		\"rdma.peer.address\": \"$LAB_ADDR\", \"rdma.peer.port\": $(got "lport.$c")}" --count 1
}

# --- cross-process memory access and library loads (tests/integration/host/rg-host-driver) ---

# run_driver SCENARIO [NAME]: its key=value facts in $OUT/driver-NAME.txt (NAME: SCENARIO), for
# `fact NAME KEY`.
run_driver()
{
	"$RG_BUILD/tests/integration/host/rg-host-driver" "$1" >"$OUT/driver-${2:-$1}.txt" ||
		fail "rg-host-driver $1 failed"
}

fact()
{
	sed -n "s/^$2=//p" "$OUT/driver-$1.txt" | head -n 1
}

need_mem()
{
	need "start.$(fact mem victim)" "{\"event.action\": \"fork\", \"process.pid\": $(fact mem victim)}" \
		process.start_boot_ns
	need "start.$(fact mem victim2)" "{\"event.action\": \"fork\", \"process.pid\": $(fact mem victim2)}" \
		process.start_boot_ns
}

want_mem()
{
	local pid victim victim2
	pid=$(fact mem pid)
	victim=$(fact mem victim)
	victim2=$(fact mem victim2)
	want "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"process_vm_readv\", \"target.process.pid\": $victim,
		\"target.process.name\": \"rg-host-driver\", \"target.process.start_boot_ns\": {\">\": 0}}" --count 1
	want "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"process_vm_writev\", \"target.process.pid\": $victim}" --count 1
	want "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"ptrace_seize\", \"target.process.pid\": $victim}" --count 1
	want "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"ptrace_attach\", \"target.process.pid\": $victim2}" --count 1
	want "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"proc_mem_open\", \"target.process.pid\": $victim}" --count 1
	# the victims are named with the start times their forks had
	want "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"target.process.pid\": $victim, \"target.process.start_boot_ns\": $(got "start.$victim")}" --count 4
	want "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"target.process.pid\": $victim2, \"target.process.start_boot_ns\": $(got "start.$victim2")}" --count 1
}

want_lib()
{
	local pid
	pid=$(fact lib pid)
	want "{\"event.action\": \"library_load\", \"process.pid\": $pid, \"rdma.library\": \"libibverbs\",
		\"dll.path\": \"~^/usr/lib/.*/libibverbs\\\\.so\\\\.1\"}" --count 1
	want "{\"event.action\": \"library_load\", \"process.pid\": $pid, \"rdma.library\": \"librdmacm\"}" --count 1
	# with a device present libibverbs itself loads every provider at ibv_get_device_list
	want "{\"event.action\": \"library_load\", \"process.pid\": $pid, \"rdma.library\": \"provider\",
		\"dll.path\": \"~^/usr/lib/.*/librxe-rdmav[0-9]+\\\\.so$\"}" --count 1
	want "{\"event.action\": \"verbs\", \"process.pid\": $pid, \"rdma.op\": \"get_device_list\",
		\"rdma.via\": \"library\"}" --count 1
}

# run_newfd / want_newfd: fds that no open syscall makes (rg-host-driver newfd): an io_uring
# open of the uverbs node, its dup, the same fd received by a child (SCM_RIGHTS), an io_uring open
# of /proc/PID/mem. fentry and kprobe see them at fd_install(); the tracepoint fallback cannot.
run_newfd()
{
	"$RG_BUILD/tests/integration/host/rg-host-driver" newfd "$(uverbs_of rxe0)" \
		>"$OUT/driver-newfd.txt" ||
		fail "rg-host-driver newfd failed"
}

want_newfd()
{
	local pid child fd
	pid=$(fact newfd pid)
	child=$(fact newfd child)
	# the io_uring open is seen at the LSM's file_open check, with no fd yet (its fd_install()
	# is not reported again)
	for fd in -1 "$(fact newfd dup_fd)"; do
		want "{\"event.action\": \"device_open\", \"process.pid\": $pid, \"rdma.fd\": $fd,
			\"file.path\": \"$(uverbs_of rxe0)\", \"rdma.node\": \"uverbs\",
			\"rdma.device\": \"rxe0\"}" --count 1
	done
	want "{\"event.action\": \"device_open\", \"process.pid\": $child,
		\"rdma.fd\": $(fact newfd recv_fd), \"rdma.node\": \"uverbs\", \"rdma.device\": \"rxe0\"}" --count 1
	want "{\"event.action\": \"device_open\", \"process.pid\": {\"|\": [$pid, $child]}}" --count 3
	want "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"proc_mem_open\", \"target.process.pid\": $(fact newfd victim)}" --count 1
}

# run_fixed / want_fixed: io_uring with fixed files, no fd in the process's table (rg-host-driver
# fixed): the uverbs node opened into a fixed slot, then the game's /proc/PID/mem, read with a
# fixed-file READ. fentry and kprobe see both opens at the LSM's file_open check; the process
# uses RDMA, so reading the game is RDMA-008. All of it during a flood: nobody opening
# /proc/self/mem as fast as it can (rg-host-driver flood), which is cut to its budget.
run_fixed()
{
	bg flood "$RG_BUILD/tests/integration/host/rg-host-driver" flood 10
	bg game "$TMPDIR/arena/arena" 600
	wait_for -m "the game to run" test -e "/proc/$(bg_pid game)/exe"
	"$RG_BUILD/tests/integration/host/rg-host-driver" fixed "$(uverbs_of rxe0)" "$(bg_pid game)" \
		>"$OUT/driver-fixed.txt" || fail "rg-host-driver fixed failed"
	bg_wait -t 120 flood || fail "rg-host-driver flood failed"
	sed -n 's/^opens=//p' "$OUT/flood.log" | head -n 1 | sed 's/^/flood: opens: /' >&2
	[ "$(fact fixed fixed_node)" = 0 ] && [ "$(fact fixed fixed_mem)" = 0 ] &&
		[ "$(fact fixed fixed_read)" = 16 ] ||
		fail "rg-host-driver fixed: $(tr '\n' ' ' <"$OUT/driver-fixed.txt")"
}

want_fixed()
{
	local pid game
	pid=$(fact fixed pid)
	game=$(bg_pid game)
	want "{\"event.action\": \"device_open\", \"process.pid\": $pid, \"rdma.fd\": -1,
		\"file.path\": \"$(uverbs_of rxe0)\", \"rdma.node\": \"uverbs\"}" --count 1
	want "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"proc_mem_open\", \"target.process.pid\": $game}" --count 1
	# the flood: within its budget, the rest counted and reported for its process
	want "{\"event.action\": \"agent_lost\", \"agent.what\": \"budget\",
		\"process.pid\": $(bg_pid flood), \"agent.count\": {\">\": 0}}" --min 1
	want "{\"event.action\": \"memory_access\", \"process.pid\": $(bg_pid flood)}" --max 400
}

# run_links / want_links: ptrace links no attach request makes (rg-host-driver traceme:
# PTRACE_TRACEME, a grandchild auto-attached at fork, its exec under trace), and libibverbs
# mapped as data, then made executable with mprotect (rg-host-driver mprotect).
run_links()
{
	run_driver traceme
	"$RG_BUILD/tests/integration/host/rg-host-driver" mprotect "$(readlink -f "$(ibverbs_lib)")" \
		>"$OUT/driver-mprotect.txt" || fail "rg-host-driver mprotect failed"
	[ "$(fact mprotect mprotect)" = 0 ] || fail "rg-host-driver mprotect: mprotect failed"
}

ibverbs_lib()
{
	local f
	for f in /usr/lib/*/libibverbs.so.1 /usr/lib/libibverbs.so.1; do
		[ -e "$f" ] && echo "$f" && return
	done
	fail "no libibverbs.so.1"
}

want_links()
{
	local pid
	pid=$(fact traceme pid)
	want "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"ptrace_traceme\",
		\"target.process.pid\": $(fact traceme child)}" --count 1
	want "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"ptrace_auto_attach\",
		\"target.process.pid\": $(fact traceme grandchild)}" --count 1
	want "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"ptrace_exec\",
		\"target.process.pid\": $(fact traceme grandchild)}" --count 1
	want "{\"event.action\": \"library_load\", \"process.pid\": $(fact mprotect pid),
		\"rdma.library\": \"libibverbs\"}" --count 1
}

want_fixed_alert()
{
	want "{\"rule.id\": \"RDMA-008\", \"process.pid\": $(fact fixed pid),
		\"target.process.pid\": $(bg_pid game)}" --min 1
}

# --- the common set: ibv_rc_pingpong, rping, memory access, library loads ----------------------

# run_common: what sensors_scenario and agent-tools.sh both run; pids with bg_pid.
run_common()
{
	run_pingpong rc_server rc_client ibv_rc_pingpong
	run_rping rping_server rping_client
	run_driver mem
	run_driver lib
}

# need_common / want_common: its facts, from $EV.
need_common()
{
	local p
	for p in rc_server rc_client rping_server rping_client; do
		need_peer "$(bg_pid "$p")"
	done
	need_cm_client "$(bg_pid rping_client)"
	need_mem
}

want_common()
{
	local rs rc ps pc
	rs=$(bg_pid rc_server)
	rc=$(bg_pid rc_client)
	ps=$(bg_pid rping_server)
	pc=$(bg_pid rping_client)
	# ibv_rc_pingpong: one buffer of the message size (-s), local write only
	want_peer "$rs" ibv_rc_pingpong qp=rc qpn="$(printed_qpn rc_server)" peer="$rc" \
		mr="$RC_SIZE:local_write"
	want_peer "$rc" ibv_rc_pingpong qp=rc qpn="$(printed_qpn rc_client)" peer="$rs" \
		mr="$RC_SIZE:local_write"
	# rping: 16-byte receive (local write) and send (no access) buffers of struct
	# rping_rdma_info, the RDMA sink of the message size (-S) open to remote read and write, and
	# on the client the RDMA READ source of that size too (librdmacm/examples/rping.c)
	local rdma_buf="mr=$RPING_SIZE:local_write+remote_write+remote_read"
	local rping_mrs=(mr=16:local_write mr=16:- "$rdma_buf")
	want_peer "$ps" rping cm=1 pds=2 inits=2 qp=rc peer="$pc" "${rping_mrs[@]}"
	want_peer "$pc" rping cm=1 pds=2 inits=2 qp=rc peer="$ps" "${rping_mrs[@]}" "$rdma_buf"
	want_cm "$ps" "$pc" 0x0106 1
	want_mem
	want_lib
}

# sensors_scenario MODE: one daemon on --sensor MODE records the common set; it must have
# attached MODE's flavour on every hook point that has one, and the events must be the same
# whatever the flavour (agent-tools.sh does auto and tracepoint, and every tool). Beyond the
# tracepoint fallback, the new fds of run_newfd and the fixed files of run_fixed too.
sensors_scenario()
{
	[ "$1" = tracepoint ] || sensors_policy
	start_daemon "$1"
	run_common
	[ "$1" = tracepoint ] || run_newfd
	[ "$1" = tracepoint ] || run_fixed
	[ "$1" = tracepoint ] || run_links
	stop_daemon
	want_hooks "$1"
	[ "$1" = tracepoint ] || want_fixed_alert
	check_events "$ALERTS"
	want_agent "$1"
	need_common
	fetch_needs
	want_common
	[ "$1" = tracepoint ] || want_newfd
	[ "$1" = tracepoint ] || want_fixed
	[ "$1" = tracepoint ] || want_links
	check_events
}

# hw_status_ge NAME KEY N: the daemon NAME's `status` says hardware.KEY >= N (for wait_for: the
# kernel log is read in order, so a count of records past a marker means everything before it
# was read).
hw_status_ge()
{
	"$RG" status --socket "$TMPDIR/$1.sock" --format json >"$TMPDIR/$1.status.json" || return 1
	expect_json -q "$TMPDIR/$1.status.json" --match "{\"hardware.$2\": {\">=\": $3}}"
}

# hw_status_get NAME KEY: the daemon NAME's hardware.KEY from `status`.
hw_status_get()
{
	"$RG" status --socket "$TMPDIR/$1.sock" --format json >"$TMPDIR/$1.status.json" ||
		fail "rdmaguard status of $1 failed"
	expect_json -q "$TMPDIR/$1.status.json" --match "{\"hardware.$2\": {\">=\": 0}}" \
		--get "hardware.$2"
}
