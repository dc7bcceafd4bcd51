#!/bin/bash
# Which BPF program types load, attach and fire on this kernel while real verbs traffic runs, for
# the sensors: fentry/fexit on ib_uverbs, kprobe, tp_btf, raw_tp, tracepoint, uprobes on
# libibverbs, and an LSM program that denies file_open to one comm. Also module BTF and
# `bpftool feature probe`. The findings are written down in tests/vm/README.md.
# lab-timeout: 400
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"

for m in ib_core ib_uverbs rdma_rxe rdma_cm rdma_ucm; do
	[ -s "/sys/kernel/btf/$m" ] || fail "no module BTF in /sys/kernel/btf/$m"
done
ls /sys/kernel/btf >"$OUT/btf.txt"
cat /sys/kernel/security/lsm >"$OUT/lsm.txt"
log "LSMs: $(cat "$OUT/lsm.txt"); kernel command line: $(cat /proc/cmdline)"
bpftool -j feature probe kernel >"$OUT/features.json"

probes=(fentry fexit kprobe tp_btf raw_tp tracepoint uprobe_reg_mr uprobe_reg_mr_iova2 lsm)
objs=()
pids=()
for p in "${probes[@]}"; do
	clang -O2 -g -target bpf -I/usr/include/x86_64-linux-gnu "-DPROBE_${p^^}" \
		-c "$RG_SRC/tests/vm/bpf/probes.bpf.c" -o "$TMPDIR/$p.bpf.o" &
	pids+=($!)
	objs+=("$p=$TMPDIR/$p.bpf.o")
done
for pid in "${pids[@]}"; do
	wait "$pid" || fail "clang failed on tests/vm/bpf/probes.bpf.c"
done
log "compiled ${#probes[@]} probe objects"

sysctl -qw kernel.bpf_stats_enabled=1
bg probes /usr/bin/python3 "$RG_SRC/tests/vm/bpf/attach.py" "$OUT" "${objs[@]}"
wait_for -m "the probes loaded and attached" test -e "$OUT/ready"
cat "$OUT/probes.log" >&2

# Verbs traffic: ioctl() and write() on the uverbs fd, ibv_reg_mr() in libibverbs.
bg server ibv_rc_pingpong -d rxe0 -g 1 -n 20
wait_for -m "server on TCP 18515" listening 18515
ibv_rc_pingpong -d rxe0 -g 1 -n 20 127.0.0.1 >"$OUT/client.log" 2>&1 ||
	fail "ibv_rc_pingpong client failed"
bg_wait server

# The LSM program denies file_open to tasks named rg-denyme, and only to them.
cp /bin/cat "$TMPDIR/rg-denyme"
deny_rc=0
"$TMPDIR/rg-denyme" /etc/hostname >"$OUT/deny.log" 2>&1 || deny_rc=$?
cat /etc/hostname >/dev/null || fail "plain cat /etc/hostname failed"

: >"$OUT/runs.jsonl"
for p in "${probes[@]}"; do
	[ -e "/sys/fs/bpf/rg-probe-$p" ] || continue
	bpftool -j prog show pinned "/sys/fs/bpf/rg-probe-$p" |
		/usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin)
print(json.dumps({"probe": sys.argv[1], "type": d["type"], "run_cnt": d.get("run_cnt", 0)}))' \
			"$p" >>"$OUT/runs.jsonl"
done
kill_bgs
cat "$OUT/attach.jsonl" "$OUT/runs.jsonl" >&2
log "rg-denyme: exit status $deny_rc: $(cat "$OUT/deny.log")"

A=$OUT/attach.jsonl
R=$OUT/runs.jsonl
for p in fentry fexit kprobe tp_btf raw_tp tracepoint uprobe_reg_mr_iova2; do
	expect_json "$A" --match "{\"probe\": \"$p\", \"loaded\": true, \"attached\": true}" \
		--count 1
	expect_json "$R" --match "{\"probe\": \"$p\", \"run_cnt\": {\">\": 0}}" --count 1
done
# libbpf 1.1 resolves uprobe targets by name and gives up on symbols with two versions.
expect_json "$A" --match '{"probe": "uprobe_reg_mr", "loaded": true, "attached": false,
	"attach_error": "LIBBPF_ERRNO__FORMAT"}' --count 1
if grep -qw bpf "$OUT/lsm.txt"; then
	expect_json "$A" --match '{"probe": "lsm", "loaded": true, "attached": true}' --count 1
	expect_json "$R" --match '{"probe": "lsm", "type": "lsm", "run_cnt": {">": 0}}' --count 1
	if [ "$deny_rc" = 0 ] || ! grep -q "Operation not permitted" "$OUT/deny.log"; then
		fail "the LSM program did not deny file_open to rg-denyme"
	fi
else
	# With CONFIG_BPF_LSM=y the program loads and attaches even when "bpf" is not an active LSM,
	# but it never runs: an agent must read /sys/kernel/security/lsm, not trust the attach.
	expect_json "$A" --match '{"probe": "lsm", "loaded": true, "attached": true}' --count 1
	expect_json "$R" --match '{"probe": "lsm", "type": "lsm", "run_cnt": 0}' --count 1
	[ "$deny_rc" = 0 ] || fail "rg-denyme was denied without the BPF LSM"
fi
