#!/bin/bash
# Self-test of expect.py (TAP): every feature once where it holds and once where it must fail,
# with the exit status and the words of the diagnostic it must print.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/events.jsonl" <<'JSON'
{"event": {"action": "verbs"}, "process": {"pid": 1234, "name": "ibv_rc_pingpong", "executable": "/usr/bin/ibv_rc_pingpong"}, "rdma": {"op": "reg_mr", "mr": {"length": 4096, "access": ["local_write", "remote_read"]}}}
{"event": {"action": "verbs"}, "process": {"pid": 1233, "name": "ib_write_bw"}, "rdma": {"op": "reg_mr", "mr": {"length": 65536}}, "ok": true, "n": 1}

{"event.action": "exec", "process.pid": 1234, "process.args": ["ib_write_bw", "-d", "rxe0"], "n": "1"}
JSON
cat >"$tmp/qp.json" <<'JSON'
[{"ifindex":0,"ifname":"rxe0","port":1,"lqpn":17,"type":"RC","state":"INIT","pid":169,"comm":"ibv_rc_pingpong"},
 {"ifindex":0,"ifname":"rxe0","port":1,"lqpn":1,"type":"GSI","state":"RTS","comm":"ib_core"}]
JSON
cat >"$tmp/audit.json" <<'JSON'
{"host": {"name": "lab"}, "devices": [{"name": "rxe0", "driver": "rxe"}, {"name": "mlx5_0"}],
 "findings": [{"rule": {"id": "RG001"}, "severity": "high"}, {"rule": {"id": "RG002"}, "severity": "low"}]}
JSON
printf '{"a": 1}\n{"a": 2,\n' >"$tmp/bad.jsonl"

n=0
failed=0
# t NAME RC PATTERN ARGS...: expect.py ARGS exits with RC and its output contains PATTERN
# (a grep -E regex; "" for any).
t()
{
	local name=$1 want=$2 pattern=$3 rc=0 out
	shift 3
	n=$((n + 1))
	out=$(/usr/bin/python3 "$here/expect.py" "$@" 2>&1) || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "not ok $n - $name: exit status $rc, expected $want"
	elif [ -n "$pattern" ] && ! grep -qE -- "$pattern" <<<"$out"; then
		echo "not ok $n - $name: output lacks /$pattern/"
	else
		echo "ok $n - $name"
		return 0
	fi
	failed=$((failed + 1))
	printf "# %s\n" "${out//$'\n'/$'\n# '}"
}

E=$tmp/events.jsonl
t "dotted path into nested objects" 0 "ok: 1 record" "$E" --match '{"rdma.op": "reg_mr", "process.pid": 1234}'
t "nested expectation object" 0 "" "$E" --match '{"rdma": {"mr": {"length": 65536}}}' --count 1
t "literal dotted keys (flattened ECS)" 0 "" "$E" --match '{"event.action": "exec", "process.pid": 1234}'
t "dotted path and literal keys both count" 0 "" "$E" --match '{"process.pid": 1234}' --count 2
t "wrong value fails with the closest candidate" 1 \
	"process.pid: expected 1235, got 1234" "$E" --match '{"rdma.op": "reg_mr", "process.pid": 1235}'
t "closest candidate listed first" 1 "line 1: 1 of 2 keys match" \
	"$E" --match '{"rdma.op": "reg_mr", "process.pid": 1235}'
t "missing key reported" 1 "rdma.mr.flags: expected 1, got <missing>" "$E" --match '{"rdma.mr.flags": 1}'
t "exact count fails with the matching records" 1 "expected exactly 1 record.*found 2.*" \
	"$E" --match '{"rdma.op": "reg_mr"}' --count 1
t "--count 0" 0 "" "$E" --match '{"rdma.op": "dereg_mr"}' --count 0
t "--absent holds" 0 "" "$E" --match '{"process.pid": 1}' --absent
t "--absent fails listing the record" 1 "matching records:" "$E" --match '{"process.name": "ib_write_bw"}' --absent
t "--min" 0 "" "$E" --match '{"rdma.op": "reg_mr"}' --min 2
t "--min fails" 1 "at least 3" "$E" --match '{"rdma.op": "reg_mr"}' --min 3
t "--max alone allows none" 0 "" "$E" --match '{"rdma.op": "dereg_mr"}' --max 1
t "--max fails" 1 "at most 1" "$E" --match '{"rdma.op": "reg_mr"}' --max 1
t "--min and --max" 0 "" "$E" --match '{"rdma.op": "reg_mr"}' --min 1 --max 2
t "several expectations, one failing" 1 "FAILED" \
	"$E" --match '{"rdma.op": "reg_mr"}' --count 2 --match '{"process.pid": 7}'
t "regex" 0 "" "$E" --match '{"process.executable": "~^/usr/bin/ib"}'
t "regex fails" 1 "" "$E" --match '{"process.executable": "~^/usr/sbin/"}'
t "regex does not match numbers" 1 "" "$E" --match '{"process.pid": "~1234"}'
t "~~ is a literal tilde" 1 "" "$E" --match '{"process.name": "~~ib_write_bw"}'
t "list contains all" 0 "" "$E" --match '{"rdma.mr.access": ["remote_read", "local_write"]}'
t "list contains fails" 1 'rdma.mr.access: expected \["remote_write"\]' \
	"$E" --match '{"rdma.mr.access": ["remote_write"]}'
t "list of regexes" 0 "" "$E" --match '{"process.args": ["~^-d$", "rxe0"]}'
t "exact list with ==" 1 "" "$E" --match '{"process.args": {"==": ["ib_write_bw", "-d"]}}'
t "exact list with == holds" 0 "" "$E" --match '{"process.args": {"==": ["ib_write_bw", "-d", "rxe0"]}}'
t "number is not a string" 0 "" "$E" --match '{"n": 1}' --count 1
t "string is not a number" 0 "" "$E" --match '{"n": "1"}' --count 1
t "true is not 1" 1 "" "$E" --match '{"ok": 1}'
t "1 is not true" 1 "" "$E" --match '{"n": true}'
t "1 equals 1.0" 0 "" "$E" --match '{"n": 1.0}' --count 1
t "range" 0 "" "$E" --match '{"rdma.mr.length": {">=": 4096, "<": 65536}}' --count 1
t "range fails" 1 "" "$E" --match '{"rdma.mr.length": {">": 65536}}'
t "!=" 0 "" "$E" --match '{"rdma.op": "reg_mr", "process.name": {"!=": "ib_write_bw"}}' --count 1
t "one of" 0 "" "$E" --match '{"process.name": {"|": ["ib_write_bw", "ibv_rc_pingpong"]}}' --count 2
t "exists false" 0 "" "$E" --match '{"rdma.op": "reg_mr", "process.executable": {"?": false}}' --count 1
t "exists true" 0 "" "$E" --match '{"process.executable": {"?": true}}' --count 1
t "length" 0 "" "$E" --match '{"rdma.mr.access": {"#": 2}}' --count 1
t "=~" 0 "" "$E" --match '{"process.name": {"=~": "^ibv_"}}' --count 1
t "--get prints values" 0 "^1234$" "$E" --match '{"rdma.op": "reg_mr", "rdma.mr.length": 4096}' --get process.pid

Q=$tmp/qp.json
t "top-level array: one record per element" 0 "" "$Q" --match '{"type": "RC", "pid": 169, "comm": "ibv_rc_pingpong"}' --count 1
t "array element named on failure" 1 "document, element 0" "$Q" --match '{"type": "RC", "pid": 170}'
A=$tmp/audit.json
t "document: a path looks into each list element" 0 "" "$A" --match '{"devices.name": "mlx5_0", "host.name": "lab"}'
t "numeric part indexes a list" 0 "" "$A" --match '{"devices.0.driver": "rxe"}'
t "--records" 0 "" "$A" --records findings --match '{"rule.id": "RG001", "severity": "high"}' --count 1
t "--records counts elements" 1 "of 2 records" "$A" --records findings --match '{"severity": "medium"}'
t "--records path missing" 2 "no nothing in the document" "$A" --records nothing --match '{"a": 1}'

t "invalid JSON line" 2 "bad.jsonl:2: invalid JSON" "$tmp/bad.jsonl" --match '{"a": 1}'
t "missing file" 2 "cannot read" "$tmp/none.json" --match '{"a": 1}'
t "modifier before --match" 2 "must follow a --match" "$E" --count 1 --match '{"a": 1}'
t "bad --match JSON" 2 "invalid JSON" "$E" --match '{"a": '
t "--match not an object" 2 "must be a JSON object" "$E" --match '[1]'
t "empty --match" 2 "at least one key" "$E" --match '{}'
t "operator with a bad argument" 2 "needs a number" "$E" --match '{"n": {">": "x"}}'
t "bad regex" 2 "bad regular expression" "$E" --match '{"n": {"=~": "("}}'
t "negative count" 2 "count >= 0" "$E" --match '{"n": 1}' --count -1
t "no --match" 2 "no --match" "$E"

# Alerts in ECS's layout (schema_version 2): the event's names are looked up under rdmaguard.*
# too, also through the index of plain values (a pid and an op in one expectation).
cat >"$tmp/alerts2.jsonl" <<'JSON'
{"process": {"pid": 617}, "rule": {"id": "RDMA-009"}, "rdmaguard": {"schema_version": 2, "rdma": {"op": "modify_qp", "qp": {"state": "rts"}}}}
{"process": {"pid": 461}, "rule": {"id": "RDMA-009"}, "rdmaguard": {"schema_version": 2, "rdma": {"op": "modify_qp", "qp": {"state": "rts"}}}}
{"process": {"pid": 617}, "rule": {"id": "RDMA-009"}, "rdmaguard": {"schema_version": 2, "rdma": {"op": "connect"}}}
JSON
t "ECS layout: rdmaguard.* looked up, indexed" 0 "" "$tmp/alerts2.jsonl" --match '{"process.pid": 617, "rdma.op": "modify_qp", "rdma.qp.state": "rts", "rule.id": "RDMA-009"}' --count 1
t "ECS layout: an op alone, indexed" 0 "" "$tmp/alerts2.jsonl" --match '{"rdma.op": "modify_qp"}' --count 2

echo "1..$n"
[ "$failed" = 0 ]
