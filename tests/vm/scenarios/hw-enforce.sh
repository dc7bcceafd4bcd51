#!/bin/bash
# Hardware enforcement (docs/hardware-runtime.md) on the q35 machine (lab.sh --machine
# q35-iommu): the daemon with --enforce and a policy whose hardware allowlist does not cover
# qemu's edu card.
#   - "hardware_enforce": "bus_master": the card at 0000:01:00.0, its IOMMU group switched to
#     identity before the daemon starts, is acted on at start (it sits behind a port, the
#     allowlist does not cover it): its bus-master bit cleared and its group switched back to a
#     translating domain (DMA), the machine's own functions on the root bus left alone; the
#     card then reads memory outside what it was given (0xc0000000, the PCI hole), the IOMMU
#     refuses it, and the daemon clears its bus-master bit again: a pci_change event flagged
#     denied says each; the card's next DMA never leaves it (no fault logged); once the daemon
#     is stopped, the card's read of RAM at 0x1000 faults;
#   - reloaded with "remove": a card hot-added into rp2 (QMP) is removed from the bus at once;
#   - reloaded with "hardware_refuse_drivers": ["e1000e"] and a game: qemu's e1000e hot-added
#     into rp3 before the game starts stays bound; a second one hot-added into rp4 while the game
#     runs gets driver_override "rdmaguard-refused" and loses its driver (a pci_change unbind
#     flagged denied, DMA-010), and drivers_probe cannot bind it again; the first one, removed
#     and rescanned while the game runs (new again) but now allowed by address, stays bound,
#     and again when not allowed but in a seat baseline taken with it bound;
#   - `rdmaguard enforce --off` (daemon stopped) rescans the bus, the card is back, the bit it
#     cleared is set again, and the refused e1000e's override is cleared and it is bound again.
#     The machine's own devices are never touched.
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
EDU=0000:01:00.0
HOT=0000:02:00.0
[ "$(cat /sys/bus/pci/devices/$EDU/vendor 2>/dev/null)" = 0x1234 ] ||
	fail "no edu card at $EDU: run with lab.sh --machine q35-iommu"
rm -f /run/rdmaguard/hw-enforced
group=$(readlink /sys/bus/pci/devices/$EDU/iommu_group)
gtype=/sys/kernel/iommu_groups/${group##*/}/type
case $(cat "$gtype") in
DMA | DMA-FQ) ;;
*) fail "IOMMU group type of $EDU: $(cat "$gtype"), not a translating one" ;;
esac
echo identity >"$gtype"
assert_eq "$(cat "$gtype")" identity "IOMMU group type of $EDU, set by the test"

policy=$TMPDIR/policy.json
# write_policy HARDWARE_ENFORCE [EXTRA_KEYS [EXTRA_HARDWARE_ENTRIES]]
write_policy()
{
	printf '{"role": "managed", "enforce": true, "hardware_enforce": "%s", %s
  "hardware": [{"id": "1af4:*", "comment": "virtio, the lab'"'"'s own"}%s]}\n' \
		"$1" "${2:-}" "${3:-}" >"$policy.tmp"
	chmod 600 "$policy.tmp"
	mv "$policy.tmp" "$policy"
}
write_policy bus_master
"$RG" policy check "$policy"
mkdir -p "$OUT/daemon"
EV=$OUT/daemon/events.jsonl
ALERTS=$OUT/daemon/alerts.jsonl
bg daemon "$RG" daemon --enforce --policy "$policy" --sensor tracepoint --rules "$RG_SRC/rules" \
	--record "$EV" --output "file:$ALERTS" --ready-file "$OUT/daemon/ready" \
	--status-socket "$TMPDIR/daemon.sock"
daemon_ready daemon
# bus 0's functions and their command registers, but for the root ports of buses 03 and 04,
# whose windows the e1000e cards hot-added below open
own_functions()
{
	for d in /sys/bus/pci/devices/0000:00:*; do
		[ -e "$d/pci_bus/0000:03" ] || [ -e "$d/pci_bus/0000:04" ] && continue
		echo "${d##*/} $(od -An -tx1 -j4 -N2 "$d/config")"
	done
}
own_devices=$(own_functions)

n_events()
{
	expect_json -q "$EV" --match "$1" --get event.sequence 2>/dev/null | wc -l
}
have_events()
{
	[ "$(n_events "$1")" -ge "$2" ]
}
denied='"event.action": "pci_change", "event.flags": ["denied"]'

# --- at start: bus mastering cleared, the identity group made to translate; then after a refused
# DMA, bus mastering cleared again ----------------------------------------------------------------
have_events "{$denied, \"pci.address\": \"$EDU\"}" 1 || fail "no enforcement on $EDU at start"
assert_eq "$(cat "$gtype")" DMA "IOMMU group type of $EDU after the start"
"$EDU_DMA" "$EDU" read 0xc0000000
wait_for -t 30 -m "enforcement on $EDU" have_events "{$denied, \"pci.address\": \"$EDU\"}" 2
assert_eq "$("$EDU_DMA" "$EDU" master)" 0 "bus master bit of $EDU after enforcement"
assert_eq "$(cat "$gtype")" DMA "IOMMU group type of $EDU after enforcement"
faults=$(dmesg | grep -c 'Request device \[01:00.0\]' || true)
"$EDU_DMA" --no-master "$EDU" read 0x2000
skipped=$(hw_status_get daemon kmsg_not_kernel)
echo "rg-lab: hw-enforce DMA without bus mastering done" >/dev/kmsg
wait_for -t 30 -m "the daemon past the marker" hw_status_ge daemon kmsg_not_kernel $((skipped + 1))
assert_eq "$(dmesg | grep -c 'Request device \[01:00.0\]' || true)" "$faults" \
	"DMAR faults after the bit was cleared (the card must not have issued its DMA)"

# --- reload: remove -------------------------------------------------------------------------
write_policy remove
kill -HUP "$(bg_pid daemon)"
wait_for -t 30 -m "the reload" have_events '{"event.action": "agent_policy", "agent.ok": 1}' 1
qmp device_add '{"driver": "edu", "bus": "rp2", "id": "hot2"}'
wait_for -t 30 -m "enforcement on $HOT" have_events "{$denied, \"pci.address\": \"$HOT\"}" 1
wait_for -t 30 -m "$HOT removed" test ! -e /sys/bus/pci/devices/$HOT

# --- reload: RDMA drivers refused to new functions while a game runs (e1000e stands in) -------
NIC3=0000:03:00.0
NIC4=0000:04:00.0
t_bind=$SECONDS
modprobe e1000e
mkdir -p "$TMPDIR/arena"
cp /bin/sleep "$TMPDIR/arena/arena"
write_policy off "\"games\": [{\"name\": \"Arena\", \"exe\": \"$TMPDIR/arena/*\"}],
  \"hardware_refuse_drivers\": [\"e1000e\"],"
"$RG" policy check "$policy"
kill -HUP "$(bg_pid daemon)"
wait_for -t 30 -m "the second reload" have_events '{"event.action": "agent_policy", "agent.ok": 1}' 2
bound_to() { [ "$(basename "$(readlink "/sys/bus/pci/devices/$1/driver" 2>/dev/null)")" = "$2" ]; }
# no game: a hot-added e1000e binds and stays bound (checked after the daemon stopped)
qmp device_add '{"driver": "e1000e", "bus": "rp3", "id": "nic3"}'
wait_for -t 60 -m "e1000e bound to $NIC3" have_events \
	"{\"event.action\": \"pci_change\", \"pci.address\": \"$NIC3\", \"pci.change\": \"bind\"}" 1
games_running() {
	"$RG" status --socket "$TMPDIR/daemon.sock" --format json >"$TMPDIR/game.status.json" &&
		expect_json -q "$TMPDIR/game.status.json" --match '{"proctree.games_running": 1}'
}
bg game "$TMPDIR/arena/arena" 600
wait_for -t 30 -m "the game session" games_running
# while the game runs: the second one is refused
qmp device_add '{"driver": "e1000e", "bus": "rp4", "id": "nic4"}'
wait_for -t 60 -m "enforcement on $NIC4" have_events "{$denied, \"pci.address\": \"$NIC4\"}" 1
assert_eq "$(cat /sys/bus/pci/devices/$NIC4/driver_override)" rdmaguard-refused \
	"driver_override of $NIC4"
[ ! -e /sys/bus/pci/devices/$NIC4/driver ] || fail "$NIC4 is still bound: $(readlink /sys/bus/pci/devices/$NIC4/driver)"
echo $NIC4 >/sys/bus/pci/drivers_probe
[ ! -e /sys/bus/pci/devices/$NIC4/driver ] || fail "drivers_probe bound $NIC4 again"
bound_to $NIC3 e1000e || fail "$NIC3, there before the game, lost its driver"
# the first one new again (remove, rescan of its bus) while the game runs, allowed by address
write_policy off "\"games\": [{\"name\": \"Arena\", \"exe\": \"$TMPDIR/arena/*\"}],
  \"hardware_refuse_drivers\": [\"e1000e\"]," ", {\"address\": \"$NIC3\"}"
kill -HUP "$(bg_pid daemon)"
wait_for -t 30 -m "the third reload" have_events '{"event.action": "agent_policy", "agent.ok": 1}' 3
# bus 03's rescan, not its port's (which rescans bus 0 and would bring back $HOT)
echo 1 >/sys/bus/pci/devices/$NIC3/remove
echo 1 >/sys/class/pci_bus/0000:03/rescan
wait_for -t 60 -m "e1000e bound to $NIC3 again" have_events \
	"{\"event.action\": \"pci_change\", \"pci.address\": \"$NIC3\", \"pci.change\": \"bind\"}" 2
# and once more, not allowed but in the seat baseline (taken now: $NIC3 bound to e1000e)
"$RG" baseline save "$TMPDIR/seat.json"
chmod 600 "$TMPDIR/seat.json"
write_policy off "\"games\": [{\"name\": \"Arena\", \"exe\": \"$TMPDIR/arena/*\"}],
  \"hardware_refuse_drivers\": [\"e1000e\"], \"baseline\": \"$TMPDIR/seat.json\","
kill -HUP "$(bg_pid daemon)"
wait_for -t 30 -m "the fourth reload" have_events '{"event.action": "agent_policy", "agent.ok": 1}' 4
echo 1 >/sys/bus/pci/devices/$NIC3/remove
echo 1 >/sys/class/pci_bus/0000:03/rescan
wait_for -t 60 -m "e1000e bound to $NIC3 a third time" have_events \
	"{\"event.action\": \"pci_change\", \"pci.address\": \"$NIC3\", \"pci.change\": \"bind\"}" 3
log "driver refusal: $((SECONDS - t_bind)) s"
# the window: from the bind's event to the refusal's (the probe itself comes before)
at() { date -d "$(expect_json -q "$EV" --match "$1" --get @timestamp | head -n 1)" +%s.%N; }
t0=$(at "{\"event.action\": \"pci_change\", \"pci.address\": \"$NIC4\", \"pci.change\": \"bind\"}")
t1=$(at "{$denied, \"pci.address\": \"$NIC4\"}")
log "bind event to refusal: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }') ms"
stop_daemon() { daemon_stop daemon; }
stop_daemon
faults_at_0x1000() { dmesg | grep -c 'Request device \[01:00.0\] fault addr 0x1000 ' || true; }
more_faults_at_0x1000() { [ "$(faults_at_0x1000)" -gt "$1" ]; }
before=$(faults_at_0x1000)
"$EDU_DMA" "$EDU" read 0x1000
wait_for -t 30 -m "a DMAR fault at 0x1000 from $EDU (now translated)" \
	more_faults_at_0x1000 "$before"

# --- what was recorded and raised --------------------------------------------------------------
expect_json "$EV" \
	--match "{$denied, \"pci.address\": \"$EDU\", \"pci.vendor_id\": \"0x1234\",
		  \"pci.enforcement\": \"~^done: bus mastering cleared( \\\\(it was off\\\\))?; IOMMU group ${group##*/} identity -> DMA; at start, not in the hardware allowlist\$\",
		  \"pci.bus_master\": {\"?\": false}}" --count 1 \
	--match "{$denied, \"pci.address\": \"$EDU\", \"pci.enforcement\": \"done: bus mastering cleared\"}" --count 1 \
	--match "{$denied, \"pci.address\": \"$HOT\", \"pci.vendor_id\": \"0x1234\",
		  \"pci.change\": \"remove\", \"pci.enforcement\": \"done: removed from the bus\"}" --count 1 \
	--match "{\"event.flags\": [\"denied\"], \"pci.address\": \"~^0000:00:\"}" --absent \
	--match "{$denied, \"pci.address\": \"$NIC4\", \"pci.vendor_id\": \"0x8086\",
		  \"pci.device_id\": \"0x10d3\", \"pci.change\": \"unbind\", \"pci.driver\": \"e1000e\",
		  \"pci.has_driver\": {\"?\": false}, \"pci.bus_master\": {\"?\": false},
		  \"pci.enforcement\": \"done: e1000e unbound, driver_override rdmaguard-refused\"}" --count 1 \
	--match "{\"event.flags\": [\"denied\"], \"pci.address\": \"$NIC3\"}" --absent
bound_to $NIC3 e1000e || fail "$NIC3 (bound before the game, then allowed, then in the baseline) lost its driver"
[ ! -e /sys/bus/pci/devices/$NIC4/driver ] || fail "$NIC4 was bound again"
expect_json "$ALERTS" \
	--match "{\"rule.id\": \"DMA-010\", \"pci.address\": \"$NIC4\", \"severity\": \"critical\",
		  \"message\": \"Hardware enforcement refused driver e1000e to PCI function $NIC4 (8086:10d3 Intel Corporation 82574L Gigabit Network Connection), new while Arena runs: done: e1000e unbound, driver_override rdmaguard-refused\"}" --count 1 \
	--match "{\"rule.id\": \"DMA-010\", \"pci.address\": \"$NIC3\"}" --absent \
	--match "{\"rule.id\": \"DMA-009\", \"pci.address\": \"~^0000:0[34]:\"}" --absent \
	--match "{\"rule.id\": \"DMA-009\", \"pci.address\": \"$EDU\",
		  \"message\": \"~^Hardware enforcement on PCI function $EDU \\\\(1234:11e8 Vendor 1234 Device 11e8\\\\): done: bus mastering cleared( \\\\(it was off\\\\))?; IOMMU group ${group##*/} identity -> DMA; at start, not in the hardware allowlist\$\"}" --count 1 \
	--match "{\"rule.id\": \"DMA-009\", \"pci.address\": \"$EDU\",
		  \"message\": \"Hardware enforcement on PCI function $EDU (1234:11e8 Vendor 1234 Device 11e8): done: bus mastering cleared\"}" --count 1 \
	--match "{\"rule.id\": \"DMA-009\", \"pci.address\": \"$HOT\",
		  \"message\": \"Hardware enforcement on PCI function $HOT (1234:11e8 Vendor 1234 Device 11e8): done: removed from the bus\"}" --count 1 \
	--match "{\"rule.id\": \"DMA-005\", \"pci.address\": \"$HOT\"}" --count 1 \
	--match '{"rule.id": "RDMA-011"}' --absent \
	--match '{"pci.address": "~^0000:00:"}' --absent
own_after=$(own_functions)
assert_eq "$own_after" "$own_devices" "the machine's own functions and their command registers"

# --- enforce --off: rescan, bus mastering back -----------------------------------------------
"$RG" enforce --off | tee "$OUT/off.log"
grep -qx "Hardware: PCI bus rescanned 1 time(s), bus mastering set again on 1 function(s), driver_override cleared on 1 function(s)." \
	"$OUT/off.log" || fail "enforce --off did not undo the hardware enforcement"
wait_for -t 30 -m "$HOT back after the rescan" test -e /sys/bus/pci/devices/$HOT
assert_eq "$("$EDU_DMA" "$EDU" master)" 1 "bus master bit of $EDU after enforce --off"
assert_eq "$(cat /sys/bus/pci/devices/$NIC4/driver_override)" "(null)" \
	"driver_override of $NIC4 after enforce --off"
wait_for -t 30 -m "$NIC4 bound to e1000e after enforce --off" bound_to $NIC4 e1000e
[ ! -e /run/rdmaguard/hw-enforced ] || fail "the state file is still there"
for id in hot2 nic3 nic4; do qmp device_del "{\"id\": \"$id\"}" >/dev/null; done
for a in $HOT $NIC3 $NIC4; do wait_for -t 60 -m "$a unplugged" test ! -e /sys/bus/pci/devices/$a; done
log "ok: bus mastering cleared and an identity group made to translate, a hot-added card removed, an RDMA driver refused to a card new in a game, all undone"
