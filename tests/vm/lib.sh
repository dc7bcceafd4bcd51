# shellcheck shell=bash
# Helpers for VM lab scenarios (tests/vm/scenarios/*.sh) and for the guest runner.
# Source it: . "$RG_SRC/tests/vm/lib.sh". It sets no shell options; scenarios set -euo pipefail.
#
# Software RDMA under TCG is slow and its timing varies: never sleep a fixed time for readiness,
# wait for a condition with wait_for.

: "${RG_SRC:?RG_SRC is not set (run scenarios through tests/vm/lab.sh)}"
: "${OUT:=${TMPDIR:-/tmp}}"
# Default for wait_for -t and bg_wait -t, in seconds.
: "${LAB_WAIT_TIMEOUT:=60}"
# The address lab.sh gives dummy0; rxe's IPv4 GID (index 1 with -g 1) is derived from it.
LAB_ADDR=192.0.2.1

declare -gA _lab_bg_pid=() _lab_bg_waited=()
declare -ga _lab_bg_names=()

# log MSG...: a line with the guest's uptime, on stderr (the scenario's log).
log()
{
	local up
	read -r up _ </proc/uptime
	printf '[%8s] %s\n' "$up" "$*" >&2
}

# fail MSG...: log and end the scenario with status 1 (only the current subshell inside $(...)).
fail()
{
	log "FAIL: $*"
	exit 1
}

# assert CMD...: run CMD; if it fails, fail naming it.
assert()
{
	"$@" || fail "assertion failed (rc=$?): $*"
}

# assert_eq ACTUAL EXPECTED [WHAT]
assert_eq()
{
	[ "$1" = "$2" ] || fail "${3:-value}: expected '$2', got '$1'"
}

# expect_json FILE ARGS...: tests/vm/expect.py (JSON / JSON lines expectations); returns its status.
expect_json()
{
	/usr/bin/python3 "$RG_SRC/tests/vm/expect.py" "$@"
}

# wait_for [-t SEC] [-m WHAT] [-n] CMD...: run CMD (a command or a function) every 0.2 s until it
# succeeds, hiding its output. After SEC seconds (default $LAB_WAIT_TIMEOUT) it runs CMD once more
# with its output shown and fails the scenario, or with -n returns 1.
wait_for()
{
	local timeout=$LAB_WAIT_TIMEOUT what="" soft=0 opt OPTIND=1
	while getopts "t:m:n" opt; do
		case $opt in
		t) timeout=$OPTARG ;;
		m) what=$OPTARG ;;
		n) soft=1 ;;
		*) fail "wait_for: bad option" ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# -gt 0 ] || fail "wait_for: no command"
	: "${what:=$*}"
	local start=$EPOCHREALTIME
	while ! "$@" >/dev/null 2>&1; do
		if _lab_elapsed_ge "$start" "$timeout"; then
			log "timed out after ${timeout} s waiting for: $what; last try:"
			"$@" >&2 || true
			[ "$soft" = 1 ] && return 1
			fail "timed out waiting for: $what"
		fi
		sleep 0.2
	done
	log "ready: $what ($(_lab_since "$start") s)"
}

_lab_elapsed_ge()
{
	awk -v s="$1" -v n="$EPOCHREALTIME" -v t="$2" 'BEGIN { exit !(n - s >= t) }'
}

# _lab_since START: seconds since START (an $EPOCHREALTIME value), one decimal.
_lab_since()
{
	awk -v s="$1" -v n="$EPOCHREALTIME" 'BEGIN { printf "%.1f", n - s }'
}

# bg NAME CMD...: start CMD in the background with stdin from /dev/null and its output in
# $OUT/NAME.log; bg_pid NAME prints its pid (the pid of CMD itself, as rdma/ps show it).
# Shadows bash's job-control builtin of the same name, which scripts do not use.
bg()
{
	local name=$1
	shift
	[ -z "${_lab_bg_pid[$name]:-}" ] || fail "bg: $name already started"
	"$@" >"$OUT/$name.log" 2>&1 </dev/null &
	_lab_bg_pid[$name]=$!
	_lab_bg_names+=("$name")
	# Installed on first use; a scenario that sets its own EXIT trap calls kill_bgs itself.
	[ -n "$(trap -p EXIT)" ] || trap kill_bgs EXIT
	log "bg $name: pid $!: $*"
}

bg_pid()
{
	[ -n "${_lab_bg_pid[$1]:-}" ] || fail "bg_pid: no background peer named $1"
	echo "${_lab_bg_pid[$1]}"
}

# bg_wait [-t SEC] NAME: wait for a background peer to exit (fail after SEC seconds) and return
# its exit status; a non-zero status is logged with the tail of NAME.log.
bg_wait()
{
	local timeout=$LAB_WAIT_TIMEOUT opt OPTIND=1
	while getopts "t:" opt; do
		case $opt in
		t) timeout=$OPTARG ;;
		*) fail "bg_wait: bad option" ;;
		esac
	done
	shift $((OPTIND - 1))
	local name=$1 pid rc=0
	pid=$(bg_pid "$name")
	wait_for -t "$timeout" -m "$name (pid $pid) to exit" _lab_gone "$pid"
	wait "$pid" || rc=$?
	_lab_bg_waited[$name]=1
	if [ "$rc" != 0 ]; then
		log "bg $name exited with status $rc; tail of $name.log:"
		tail -n 20 "$OUT/$name.log" | sed 's/^/    /' >&2
	else
		log "bg $name exited with status 0"
	fi
	return "$rc"
}

# A background child that exited stays a zombie until waited for: kill -0 still succeeds.
_lab_gone()
{
	local state
	state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 0
	[ "$state" = Z ] || [ -z "$state" ]
}

# kill_bgs: TERM every background peer still running, KILL it after 5 s.
kill_bgs()
{
	local name pid live=()
	for name in "${_lab_bg_names[@]}"; do
		[ -z "${_lab_bg_waited[$name]:-}" ] || continue
		pid=${_lab_bg_pid[$name]}
		if ! _lab_gone "$pid"; then
			kill -TERM "$pid" 2>/dev/null || true
			kill -CONT "$pid" 2>/dev/null || true
			live+=("$pid")
		fi
	done
	[ ${#live[@]} -gt 0 ] || return 0
	wait_for -n -t 5 -m "background peers to end" _lab_all_gone "${live[@]}" ||
		kill -KILL "${live[@]}" 2>/dev/null || true
}

_lab_all_gone()
{
	local pid
	for pid; do
		_lab_gone "$pid" || return 1
	done
}

# listening PORT: something listens on TCP PORT.
listening()
{
	[ -n "$(ss -Hltn "sport = :$1")" ]
}

# uverbs_of IBDEV: prints /dev/infiniband/uverbsN of an RDMA device.
uverbs_of()
{
	local d
	for d in /sys/class/infiniband_verbs/uverbs*; do
		[ -e "$d/ibdev" ] || continue
		if [ "$(cat "$d/ibdev")" = "$1" ]; then
			[ -c "/dev/infiniband/${d##*/}" ] || return 1
			echo "/dev/infiniband/${d##*/}"
			return 0
		fi
	done
	return 1
}

# ipv4_gid ADDR: the RoCE v2 GID of an IPv4 address, as sysfs prints it.
ipv4_gid()
{
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$a" "$b" "$c" "$d"
}

_lab_gid_is()
{
	[ "$(cat "$1" 2>/dev/null)" = "$2" ]
}

# rxe_up [NAME [NETDEV]]: add a soft-RoCE device (default rxe0 on dummy0) and wait until its
# port is ACTIVE, its uverbs node exists and (on dummy0) GID index 1 is the IPv4 GID of $LAB_ADDR,
# which is what `-g 1` in ibv_*_pingpong and `-x 1` in perftest pick.
rxe_up()
{
	local name=${1:-rxe0} netdev=${2:-dummy0}
	rdma link add "$name" type rxe netdev "$netdev" ||
		fail "rdma link add $name type rxe netdev $netdev failed"
	wait_for -m "$name port 1 ACTIVE" grep -q ACTIVE "/sys/class/infiniband/$name/ports/1/state"
	wait_for -m "uverbs device node of $name" uverbs_of "$name"
	if [ "$netdev" = dummy0 ]; then
		wait_for -m "$name GID 1 = $LAB_ADDR" _lab_gid_is \
			"/sys/class/infiniband/$name/ports/1/gids/1" "$(ipv4_gid "$LAB_ADDR")"
	fi
}

_lab_no_ibdev()
{
	[ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]
}

_lab_no_such_ibdev()
{
	[ ! -e "/sys/class/infiniband/$1" ]
}

# shellcheck disable=SC2120 # the name is optional
# rxe_down [NAME]: delete one soft RDMA link, or all of them. Deleting waits in the kernel until
# every process has closed the device: end the peers first (kill_bgs).
rxe_down()
{
	local d
	if [ $# -gt 0 ]; then
		rdma link delete "$1" || fail "rdma link delete $1 failed"
		wait_for -m "$1 to disappear" _lab_no_such_ibdev "$1"
		return 0
	fi
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] || continue
		rdma link delete "${d##*/}" || fail "rdma link delete ${d##*/} failed"
	done
	wait_for -m "all RDMA devices to disappear" _lab_no_ibdev
}

# json_str STRING: STRING as a JSON string literal, for expect_json matches built in shell.
json_str()
{
	/usr/bin/python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$1"
}

# cm_id_listening FILE PID: PID has a cm_id in LISTEN in `rdma -j resource show cm_id` (saved to
# FILE). Made for wait_for.
cm_id_listening()
{
	rdma -j resource show cm_id >"$1" &&
		expect_json "$1" --match "{\"pid\": $2, \"state\": \"LISTEN\"}" --count 1
}

# perftest_pair SERVER CLIENT PERFTEST ARGS...: run a perftest server and client (to 127.0.0.1)
# as the background peers SERVER and CLIENT and stop both (SIGSTOP) once their test is over but
# their RC QPs, MRs... still exist, connected and idle; the pair is checked connected into
# $OUT/qp.json. Look at them, then perftest_pair_end. Polling the kernel's tables during the few
# seconds of traffic misses them on a loaded machine, and stopping perftest during its test breaks
# its clock fit; so: --wait_destroy=8 keeps the resources 8 s after the test, and stdbuf -oL gets
# its "Waiting 8 seconds before releasing resources" line into the log at once. Pass -F:
# perftest times itself by regressing rdtsc on gettimeofday, which can fail under TCG on a busy
# host ("Correlation coefficient r^2 < 0.9", "Can't produce a report", exit 1).
perftest_pair()
{
	local server=$1 client=$2
	shift 2
	bg "$server" stdbuf -oL "$@" --wait_destroy=8
	wait_for -m "$server on TCP 18515" listening 18515
	bg "$client" stdbuf -oL "$@" --wait_destroy=8 127.0.0.1
	wait_for -m "$server and $client done and holding their resources" \
		_lab_perftest_holding "$server" "$client"
	kill -STOP "$(bg_pid "$server")" "$(bg_pid "$client")"
	rc_pair_connected "$OUT/qp.json" "$(bg_pid "$server")" "$(bg_pid "$client")"
}

# perftest_pair_end SERVER CLIENT: let the pair go on and require both to exit 0.
perftest_pair_end()
{
	kill -CONT "$(bg_pid "$1")" "$(bg_pid "$2")"
	bg_wait "$1"
	bg_wait "$2"
}

_lab_perftest_holding()
{
	local name
	for name; do
		grep -q "before releasing resources" "$OUT/$name.log" || return 1
	done
}

# rc_pair_connected FILE PID_A PID_B: the RC QPs of two peers point at each other (each one's
# rqpn is the other's lqpn) and are past INIT, in `rdma -j -d resource show qp` (saved to FILE).
rc_pair_connected()
{
	local f=$1 a=$2 b=$3 qa qb up='{"|": ["RTR", "RTS"]}'
	rdma -j -d resource show qp >"$f" || return 1
	{ read -r qa && read -r qb; } < <(expect_json -q "$f" \
		--match "{\"pid\": $a, \"type\": \"RC\"}" --count 1 --get lqpn \
		--match "{\"pid\": $b, \"type\": \"RC\"}" --count 1 --get lqpn) || return 1
	expect_json "$f" \
		--match "{\"pid\": $a, \"lqpn\": $qa, \"rqpn\": $qb, \"state\": $up}" --count 1 \
		--match "{\"pid\": $b, \"lqpn\": $qb, \"rqpn\": $qa, \"state\": $up}" --count 1
}

# qmp COMMAND [ARGUMENTS_JSON]: a QMP command to the VM's own qemu, on the q35 machines
# (lab.sh --machine q35-*): the request goes into the lab share, lab.sh relays it (tests/vm/qmp.py:
# device_add, device_del, query-pci only) and writes qemu's answer back. Prints the answer (one
# JSON object) and fails the scenario when qemu answered with an error.
qmp()
{
	local dir=/run/lab/_lab/qmp id rep
	[ -d "$dir" ] || fail "qmp: no QMP relay: run this scenario with lab.sh --machine q35-iommu"
	id=$RG_LAB_SCENARIO-$$-$RANDOM$RANDOM
	printf '{"execute": "%s", "arguments": %s}\n' "$1" "${2:-{\}}" >"$dir/$id.tmp"
	mv "$dir/$id.tmp" "$dir/$id.req"
	rep=$dir/$id.rep
	wait_for -t 60 -m "qemu's answer to QMP $1" test -s "$rep"
	cat "$rep"
	grep -q '"return"' "$rep" || fail "QMP $1 $2: $(cat "$rep")"
	rm -f "$rep"
}
