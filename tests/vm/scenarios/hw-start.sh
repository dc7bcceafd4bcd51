#!/bin/bash
# Hardware enforcement on what is there at start, and kernel-log records no one can forge
# (docs/hardware-runtime.md), on the q35 machine (lab.sh --machine q35-iommu):
#   - before the daemon starts: qemu's e1000e is hot-added into rp3 (the seat's NIC, bound), the
#     edu card at 0000:01:00.0 makes a DMA fault, and the seat baseline is saved without the
#     card (removed for the save, rescanned after): the card sits in its slot, outside the
#     baseline, as a DMA card does from boot;
#   - the daemon starts with --enforce, "hardware_enforce": "remove" and
#     "hardware_enforce_port": "bus_master": the card is removed at start and the root port
#     above it (00:03.0, nothing else below it) loses bus mastering; a pci_change flagged denied
#     and DMA-009 say so, and that the baseline should be saved again if the card is the seat's
#     own; the fault logged before the start is a dma_fault flagged historical (DMA-006), and is
#     not acted on by itself;
#   - nobody runs programs named after a VT-d and an AMD-Vi fault line naming the NIC, made to
#     segfault: the kernel's segfault lines carry the forged text, the daemon takes none of it
#     (no dma_fault, no enforcement, the NIC stays bound); nobody cannot write to /dev/kmsg;
#   - the daemon stopped (SIGSTOP) while 500 KB are logged: the records it missed are an
#     agent_lost event (AGENT-001, agent.what kmsg) once it goes on;
#   - `enforce --off` gives the port its bus mastering back and rescans: the card is back.
# lab-machine: q35-iommu
# lab-rxe: none
# lab-timeout: 420
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR/.. source=sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"

[ -x "$RG" ] || fail "no agent at $RG: build first"
EDU_DMA=$RG_BUILD/tests/vm/rg-edu-dma
SEGV=$RG_BUILD/tests/vm/rg-segv
[ -x "$SEGV" ] || fail "no $SEGV: build first"
EDU=0000:01:00.0
PORT=0000:00:03.0
NIC=0000:03:00.0
[ "$(cat /sys/bus/pci/devices/$EDU/vendor 2>/dev/null)" = 0x1234 ] ||
	fail "no edu card at $EDU: run with lab.sh --machine q35-iommu"
rm -f /run/rdmaguard/hw-enforced
bound_to() { [ "$(basename "$(readlink "/sys/bus/pci/devices/$1/driver" 2>/dev/null)")" = "$2" ]; }
have_events() { [ "$(expect_json -q "$EV" --match "$1" --get event.sequence 2>/dev/null | wc -l)" -ge "$2" ]; }
# the bus-master bit of a function's command register (0 or 1)
master() { echo $((0x$(od -An -tx1 -j4 -N1 "/sys/bus/pci/devices/$1/config" | tr -d ' ') >> 2 & 1)); }

# --- the seat before the daemon ------------------------------------------------------------
modprobe e1000e
qmp device_add '{"driver": "e1000e", "bus": "rp3", "id": "seatnic"}'
wait_for -t 60 -m "e1000e bound to $NIC" bound_to $NIC e1000e
"$EDU_DMA" "$EDU" read 0x1000
echo 1 >/sys/bus/pci/devices/$EDU/remove
"$RG" baseline save "$TMPDIR/seat.json"
chmod 600 "$TMPDIR/seat.json"
echo 1 >/sys/bus/pci/rescan
wait_for -t 30 -m "$EDU back after the rescan" test -e /sys/bus/pci/devices/$EDU
assert_eq "$(master $PORT)" 1 "bus master bit of $PORT before the daemon"

policy=$TMPDIR/policy.json
printf '{"role": "managed", "enforce": true, "hardware_enforce": "remove",
  "hardware_enforce_port": "bus_master", "baseline": "%s",
  "hardware": [{"id": "1af4:*", "comment": "virtio, the lab'"'"'s own"}]}\n' \
	"$TMPDIR/seat.json" >"$policy"
chmod 600 "$policy"
"$RG" policy check "$policy"
mkdir -p "$OUT/daemon"
EV=$OUT/daemon/events.jsonl
ALERTS=$OUT/daemon/alerts.jsonl
t0=$SECONDS
bg daemon "$RG" daemon --enforce --policy "$policy" --sensor tracepoint --rules "$RG_SRC/rules" \
	--record "$EV" --output "file:$ALERTS" --ready-file "$OUT/daemon/ready" \
	--status-socket "$TMPDIR/daemon.sock"
daemon_ready daemon
log "daemon ready in $((SECONDS - t0)) s"
[ ! -e /sys/bus/pci/devices/$EDU ] || fail "$EDU is still on the bus after the daemon's start"
assert_eq "$(master $PORT)" 0 "bus master bit of $PORT after the start"

# --- fault lines forged by nobody, through a program's name ----------------------------------
assert_eq "$(cat /proc/sys/debug/exception-trace)" 1 "debug.exception-trace (segfault lines)"
forge=$TMPDIR/forge
mkdir -p "$forge"
chmod 755 "$forge"
vtd="DMAR: [DMA Read NO_PASID] Request device [03:00.0] fault addr 0x1000 [fault reason 0x06] PTE Read access is not set"
amd="AMD-Vi: Event logged [IO_PAGE_FAULT device=0000:03:00.0 domain=0x0000 address=0x1000 flags=0x0000]"
for name in "$vtd" "$amd"; do
	install -m 755 "$SEGV" "$forge/$name"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$forge/$name" && fail "$name did not crash"
done
if setpriv --reuid=nobody --regid=nogroup --clear-groups /bin/sh -c "echo '<3>$vtd' >/dev/kmsg" 2>/dev/null; then
	fail "nobody could write to /dev/kmsg"
fi
dmesg | grep -F 'segfault at 0' >"$OUT/segfault.log" || true
grep -qF "in $vtd[" "$OUT/segfault.log" || fail "no segfault line with the forged VT-d text"
grep -qF "in $amd[" "$OUT/segfault.log" || fail "no segfault line with the forged AMD-Vi text"
skipped=$(hw_status_get daemon kmsg_not_kernel)
echo "rg-lab: hw-start forged lines done" >/dev/kmsg
wait_for -t 30 -m "the daemon past the marker" hw_status_ge daemon kmsg_not_kernel $((skipped + 1))
bound_to $NIC e1000e || fail "$NIC lost its driver"

# --- a gap in the kernel log: the daemon stopped while the log wraps ---------------------------
kill -STOP "$(bg_pid daemon)"
/usr/bin/python3 -c '
import os
for i in range(2500):  # an open each: the kernel rate-limits each opener to 10 lines
    fd = os.open("/dev/kmsg", os.O_WRONLY)
    os.write(fd, b"rg-lab: hw-start filling the log %06d %s\n" % (i, b"x" * 160))
    os.close(fd)
'
kill -CONT "$(bg_pid daemon)"
wait_for -t 60 -m "AGENT-001 for the kernel log's gap" have_events \
	'{"event.action": "agent_lost", "agent.what": "kmsg"}' 1
daemon_stop daemon

# --- what was recorded and raised ------------------------------------------------------------
denied='"event.action": "pci_change", "event.flags": ["denied"]'
expect_json "$EV" \
	--match "{$denied, \"pci.address\": \"$EDU\", \"pci.change\": \"remove\", \"pci.vendor_id\": \"0x1234\",
		  \"pci.enforcement\": \"done: removed from the bus; port $PORT bus mastering cleared; at start, not in the baseline (re-save it if this is the seat's own)\"}" --count 1 \
	--match "{\"event.flags\": [\"denied\"]}" --count 1 \
	--match "{\"event.action\": \"dma_fault\", \"pci.address\": \"$EDU\", \"event.flags\": [\"historical\"]}" --min 1 \
	--match "{\"event.action\": \"dma_fault\", \"event.flags\": {\"?\": false}}" --absent \
	--match "{\"event.action\": \"dma_fault\", \"pci.address\": \"$NIC\"}" --absent
expect_json "$ALERTS" \
	--match '{"rule.id": "AGENT-001", "agent.what": "kmsg"}' --min 1 \
	--match "{\"rule.id\": \"DMA-009\", \"pci.address\": \"$EDU\",
		  \"message\": \"~^Hardware enforcement on PCI function $EDU \\\\(1234:11e8.*: done: removed from the bus; port $PORT bus mastering cleared; at start, not in the baseline \\\\(re-save it if this is the seat's own\\\\)\$\"}" --count 1 \
	--match "{\"rule.id\": \"DMA-006\", \"pci.address\": \"$EDU\"}" --min 1 \
	--match "{\"pci.address\": \"$NIC\"}" --absent \
	--match '{"pci.address": "~^0000:00:"}' --absent

# --- enforce --off: the port's bus mastering back, the card back -----------------------------
"$RG" enforce --off | tee "$OUT/off.log"
grep -qx "Hardware: 1 port(s) above stopped cards given back their bus mastering or link." "$OUT/off.log" ||
	fail "enforce --off did not give the port back"
wait_for -t 30 -m "$EDU back after enforce --off" test -e /sys/bus/pci/devices/$EDU
assert_eq "$(master $PORT)" 1 "bus master bit of $PORT after enforce --off"
qmp device_del '{"id": "seatnic"}' >/dev/null
wait_for -t 60 -m "$NIC unplugged" test ! -e /sys/bus/pci/devices/$NIC
log "ok: the card present at start removed and its port stopped; forged fault lines ignored"
