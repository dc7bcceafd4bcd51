# shellcheck shell=bash
# Shared by the sensors-*.sh scenarios: `rdmaguard daemon --record` runs while real rdma-core
# tools use rxe0, then expect.py asserts the recorded events. Source after lib.sh.

# start_daemon MODE: the daemon on that --sensor flavour, recording to $OUT/events.jsonl.
start_daemon()
{
	"$RG" daemon --dry-run --sensor "$1" >"$OUT/dry-run.json" || fail "daemon --dry-run failed"
	# The sensors' part of the plan (the rest checks policy, rules and outputs).
	/usr/bin/python3 -c 'import json, sys; json.dump(json.load(sys.stdin)["sensors"], sys.stdout)' \
		<"$OUT/dry-run.json" >"$OUT/plan.json" || fail "no sensors plan in the dry run"
	bg daemon "$RG" daemon --sensor "$1" --record "$OUT/events.jsonl" --ready-file "$OUT/ready"
	# Attaching many programs under TCG takes a while: wait for the ready file, not a time.
	wait_for -t 300 -m "rdmaguard daemon ready" test -e "$OUT/ready"
}

stop_daemon()
{
	kill -TERM "$(bg_pid daemon)"
	bg_wait -t 120 daemon || fail "the daemon did not stop cleanly"
	expect_json "$OUT/events.jsonl" --match '{"event.action": "agent_stop"}' --count 1
}

ev()
{
	expect_json "$OUT/events.jsonl" "$@"
}

# The first value of PATH in the events matching JSON.
ev_get()
{
	expect_json -q "$OUT/events.jsonl" --match "$1" --min 1 --get "$2" | head -n 1
}

# run_pingpong: ibv_rc_pingpong server and client on rxe0, GID index 1 (192.0.2.1); their pids
# in PP_SERVER and PP_CLIENT.
run_pingpong()
{
	bg server ibv_rc_pingpong -d rxe0 -g 1 -n 50
	PP_SERVER=$(bg_pid server)
	wait_for -m "server on TCP 18515" listening 18515
	bg client ibv_rc_pingpong -d rxe0 -g 1 -n 50 127.0.0.1
	PP_CLIENT=$(bg_pid client)
	bg_wait client || fail "ibv_rc_pingpong client failed"
	bg_wait server || fail "ibv_rc_pingpong server failed"
}

# assert_pingpong SERVER_PID CLIENT_PID: what each peer did, as the sensors saw it.
assert_pingpong()
{
	local spid=$1 cpid=$2 p sqpn cqpn
	for p in "$spid" "$cpid"; do
		ev --match "{\"event.action\": \"exec\", \"process.pid\": $p,
			\"process.executable\": \"/usr/bin/ibv_rc_pingpong\"}" --count 1
		ev --match "{\"event.action\": \"library_load\", \"process.pid\": $p,
			\"rdma.library\": \"libibverbs\"}" --count 1
		ev --match "{\"event.action\": \"library_load\", \"process.pid\": $p,
			\"rdma.library\": \"provider\", \"dll.path\": \"~/librxe-rdmav[0-9]+\\\\.so$\"}" --count 1
		ev --match "{\"event.action\": \"device_open\", \"process.pid\": $p,
			\"file.path\": \"/dev/infiniband/uverbs0\", \"rdma.node\": \"uverbs\",
			\"rdma.device\": \"rxe0\"}" --count 1
		# ibv_reg_mr of the 4096-byte buffer, local write only (-s default), through ioctl
		ev --match "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"reg_mr\",
			\"rdma.via\": \"invoke_write\", \"rdma.device\": \"rxe0\", \"rdma.mr.length\": 4096,
			\"rdma.mr.access\": {\"==\": [\"local_write\"]}}" --count 1
		ev --match "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"alloc_pd\"}" --count 1
		ev --match "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"create_cq\"}" --min 1
		ev --match "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"create_qp\",
			\"rdma.qp.type\": \"rc\", \"rdma.qp.num\": {\">\": 0}}" --count 1
		ev --match "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"modify_qp\",
			\"rdma.qp.state\": \"rts\"}" --count 1
		ev --match "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"mmap\",
			\"rdma.via\": \"mmap\", \"rdma.mmap.length\": {\">\": 0}}" --min 1
		# rxe makes post_send a write(): summarised, at least the first one
		ev --match "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"post_send\",
			\"rdma.via\": \"write\", \"rdma.calls\": {\">=\": 1}}" --min 1
		ev --match "{\"event.action\": \"verbs\", \"process.pid\": $p, \"rdma.op\": \"dereg_mr\"}" --count 1
		ev --match "{\"event.action\": \"exit\", \"process.pid\": $p}" --count 1
	done
	# RTR names the peer: its QP number and (RoCE v2) its IPv4 address
	sqpn=$(ev_get "{\"process.pid\": $spid, \"rdma.op\": \"create_qp\"}" rdma.qp.num)
	cqpn=$(ev_get "{\"process.pid\": $cpid, \"rdma.op\": \"create_qp\"}" rdma.qp.num)
	ev --match "{\"process.pid\": $spid, \"rdma.op\": \"modify_qp\", \"rdma.qp.state\": \"rtr\",
		\"rdma.qp.dest_num\": $cqpn, \"rdma.peer.address\": \"$LAB_ADDR\"}" --count 1
	ev --match "{\"process.pid\": $cpid, \"rdma.op\": \"modify_qp\", \"rdma.qp.state\": \"rtr\",
		\"rdma.qp.dest_num\": $sqpn, \"rdma.peer.address\": \"$LAB_ADDR\"}" --count 1
	# every event of the peers is attributed with the start time /proc had
	ev --match "{\"process.pid\": $spid, \"process.start_boot_ns\": {\"!=\": $(ev_get \
		"{\"event.action\": \"exec\", \"process.pid\": $spid}" process.start_boot_ns)}}" --absent
}

_listen_id()
{
	rdma -j resource show cm_id >"$OUT/cm_id.json" &&
		expect_json -q "$OUT/cm_id.json" --match "{\"pid\": $1, \"state\": \"LISTEN\"}" --count 1
}

# run_rping: rdma_cm connection setup by rping, server bound to the lab address.
run_rping()
{
	bg rserver rping -s -a "$LAB_ADDR" -C 5 -v
	RP_SERVER=$(bg_pid rserver)
	wait_for -m "rping's listening cm_id" _listen_id "$RP_SERVER"
	bg rclient rping -c -a "$LAB_ADDR" -C 5 -v
	RP_CLIENT=$(bg_pid rclient)
	bg_wait rclient || fail "rping client failed"
	bg_wait rserver || fail "rping server failed"
}

# assert_rping SERVER_PID CLIENT_PID
assert_rping()
{
	local s=$1 c=$2
	# librdmacm opens it twice (the id's channel and the event channel)
	ev --match "{\"event.action\": \"device_open\", \"process.pid\": $c,
		\"file.path\": \"/dev/infiniband/rdma_cm\", \"rdma.node\": \"rdma_cm\"}" --min 1
	ev --match "{\"event.action\": \"library_load\", \"process.pid\": $c,
		\"rdma.library\": \"librdmacm\"}" --count 1
	ev --match "{\"event.action\": \"rdma_cm\", \"process.pid\": $c, \"rdma.op\": \"create_id\",
		\"rdma.cm.port_space\": \"0x0106\"}" --min 1
	ev --match "{\"event.action\": \"rdma_cm\", \"process.pid\": $c, \"rdma.op\": \"resolve_addr\",
		\"rdma.peer.address\": \"$LAB_ADDR\", \"rdma.peer.port\": 7174}" --count 1
	ev --match "{\"event.action\": \"rdma_cm\", \"process.pid\": $c, \"rdma.op\": \"connect\",
		\"rdma.peer.address\": \"$LAB_ADDR\", \"rdma.peer.port\": 7174}" --count 1
	ev --match "{\"event.action\": \"rdma_cm\", \"process.pid\": $s, \"rdma.op\": {\"|\": [\"bind\", \"bind_ip\"]},
		\"rdma.local.address\": \"$LAB_ADDR\", \"rdma.local.port\": 7174}" --count 1
	ev --match "{\"event.action\": \"rdma_cm\", \"process.pid\": $s, \"rdma.op\": \"listen\"}" --count 1
	ev --match "{\"event.action\": \"rdma_cm\", \"process.pid\": $s, \"rdma.op\": \"accept\",
		\"rdma.peer.address\": \"$LAB_ADDR\"}" --count 1
	# rping registers its buffers for remote access
	ev --match "{\"event.action\": \"verbs\", \"process.pid\": $s, \"rdma.op\": \"reg_mr\",
		\"rdma.mr.access\": [\"remote_write\"]}" --min 1
}

# run_driver SCENARIO: tests/host/rg-host-driver (cross-process memory access, library loads);
# its key=value facts in $OUT/driver-SCENARIO.txt.
run_driver()
{
	"$RG_BUILD/tests/host/rg-host-driver" "$1" >"$OUT/driver-$1.txt" || fail "rg-host-driver $1 failed"
}

fact()
{
	sed -n "s/^$2=//p" "$OUT/driver-$1.txt" | head -n 1
}

assert_mem()
{
	local pid victim victim2
	pid=$(fact mem pid)
	victim=$(fact mem victim)
	victim2=$(fact mem victim2)
	ev --match "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"process_vm_readv\", \"target.process.pid\": $victim,
		\"target.process.name\": \"rg-host-driver\", \"target.process.start_boot_ns\": {\">\": 0}}" --count 1
	ev --match "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"process_vm_writev\", \"target.process.pid\": $victim}" --count 1
	ev --match "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"ptrace_seize\", \"target.process.pid\": $victim}" --count 1
	ev --match "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"ptrace_attach\", \"target.process.pid\": $victim2}" --count 1
	ev --match "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"memory.op\": \"proc_mem_open\", \"target.process.pid\": $victim}" --count 1
	# the victims are named with the start times their forks had
	ev --match "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"target.process.pid\": $victim, \"target.process.start_boot_ns\": $(ev_get \
		"{\"event.action\": \"fork\", \"process.pid\": $victim}" process.start_boot_ns)}" --count 4
	ev --match "{\"event.action\": \"memory_access\", \"process.pid\": $pid,
		\"target.process.pid\": $victim2, \"target.process.start_boot_ns\": $(ev_get \
		"{\"event.action\": \"fork\", \"process.pid\": $victim2}" process.start_boot_ns)}" --count 1
}

assert_lib()
{
	local pid
	pid=$(fact lib pid)
	ev --match "{\"event.action\": \"library_load\", \"process.pid\": $pid, \"rdma.library\": \"libibverbs\",
		\"dll.path\": \"~^/usr/lib/.*/libibverbs\\\\.so\\\\.1\"}" --count 1
	ev --match "{\"event.action\": \"library_load\", \"process.pid\": $pid, \"rdma.library\": \"librdmacm\"}" --count 1
	# with a device present libibverbs itself loads every provider at ibv_get_device_list
	ev --match "{\"event.action\": \"library_load\", \"process.pid\": $pid, \"rdma.library\": \"provider\",
		\"dll.path\": \"~^/usr/lib/.*/librxe-rdmav[0-9]+\\\\.so$\"}" --count 1
	ev --match "{\"event.action\": \"verbs\", \"process.pid\": $pid, \"rdma.op\": \"get_device_list\",
		\"rdma.via\": \"library\"}" --count 1
}

# sensors_scenario MODE: the daemon on --sensor MODE records ibv_rc_pingpong, rping, cross-process
# memory access and library loads; the plan must show MODE's flavour on every hook point that has
# one, and the events must be the same whatever the flavour.
sensors_scenario()
{
	local mode=$1 v=$1 m=$1 o=$1
	case $mode in
	auto)
		# fexit on the modules and do_sys_openat2; LSM hooks where the bpf LSM is active
		# (Debian's 6.1 lists it by default), else fentry
		v=fentry
		o=fentry
		m=fentry
		! grep -qw bpf /sys/kernel/security/lsm || m=lsm
		;;
	esac
	start_daemon "$mode"
	expect_json "$OUT/plan.json" --match "{\"mode\": \"$mode\", \"hooks.verbs.active\": \"$v\",
		\"hooks.rdma_cm.active\": \"$v\", \"hooks.open.active\": \"$o\",
		\"hooks.mmap.active\": \"$m\", \"hooks.memory.active\": \"$m\",
		\"hooks.process.active\": \"tracepoint\", \"hooks.library.active\": \"uprobe\",
		\"hooks.modules.active\": \"tracepoint\", \"hooks.devices.active\": \"uevent\",
		\"hooks.roce.active\": \"tc\"}" --count 1
	ev --match "{\"event.action\": \"agent_start\", \"agent.text\": \"~verbs=$v rdma_cm=$v mmap=$m memory=$m\"}" --count 1
	run_pingpong
	run_rping
	run_driver mem
	run_driver lib
	stop_daemon
	assert_pingpong "$PP_SERVER" "$PP_CLIENT"
	assert_rping "$RP_SERVER" "$RP_CLIENT"
	assert_mem
	assert_lib
	# nothing rdma-core did failed, and no record was lost
	ev --match '{"event.action": "verbs", "event.flags": ["failed"], "rdma.op": {"|": ["reg_mr", "create_qp", "modify_qp"]}}' --absent
	ev --match '{"event.action": "agent_lost"}' --absent
}
