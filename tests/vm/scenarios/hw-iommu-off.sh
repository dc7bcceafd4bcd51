#!/bin/bash
# Why the IOMMU posture matters (docs/hardware-runtime.md): the same q35 machine booted with
# intel_iommu=off (lab.sh --machine q35-noiommu; meson's vm-lab-hw-off). The edu card's DMA now
# reaches memory: rg-edu-dma copies a page of its own through the card into another and they
# are equal; the kernel logs no DMAR fault and the daemon records no dma_fault, however long it
# watches. Only the posture tells (DMA-004), and the card's presence: no driver, no translation,
# and a class no real device uses (DMA-003, whatever its bus-master bit says).
# lab-machine: q35-noiommu
# lab-rxe: none
# lab-timeout: 300
set -euo pipefail
# shellcheck source-path=SCRIPTDIR/.. source=lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source-path=SCRIPTDIR/.. source=sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"

[ -x "$RG" ] || fail "no agent at $RG: build first"
EDU_DMA=$RG_BUILD/tests/vm/rg-edu-dma
EDU=0000:01:00.0
[ "$(cat /sys/bus/pci/devices/$EDU/vendor 2>/dev/null)" = 0x1234 ] ||
	fail "no edu card at $EDU: run with lab.sh --machine q35-noiommu"
grep -qw intel_iommu=off /proc/cmdline || fail "not booted with intel_iommu=off"
[ -z "$(ls /sys/class/iommu/)" ] || fail "an IOMMU is active: $(ls /sys/class/iommu/)"

# the card's first DMA before the daemon starts: it is found bus-mastering with no driver and no
# IOMMU between it and memory
"$EDU_DMA" "$EDU" read 0x1000
start_daemon tracepoint
"$EDU_DMA" "$EDU" copy || fail "the copy through the card did not reach memory"
# The kernel log is read in order: once the daemon has read (and skipped) this line of ours,
# it has read everything the kernel logged during the DMA.
skipped=$(hw_status_get daemon kmsg_not_kernel)
echo "rg-lab: hw-iommu-off DMA done" >/dev/kmsg
wait_for -t 30 -m "the daemon past the marker in the kernel log" \
	hw_status_ge daemon kmsg_not_kernel $((skipped + 1))
stop_daemon
if dmesg | grep 'DMAR: \['; then
	fail "the kernel logged a DMA fault with the IOMMU off"
fi
expect_json "$EV" --match '{"event.action": "dma_fault"}' --absent \
	--match '{"event.action": "iommu_posture", "iommu.weakened": 1, "iommu.cmdline": "intel_iommu=off"}' --count 1
# the posture (DMA-004) and the card's presence (DMA-003: untranslated DMA, no driver, class
# 0x00ff) are all there is to see; the machine's own functions raise nothing
expect_json "$ALERTS" \
	--match '{"rule.id": "DMA-004", "message": "~^IOMMU protection weakened: command line intel_iommu=off; no IOMMU translates DMA$"}' --count 1 \
	--match "{\"rule.id\": \"DMA-003\", \"pci.address\": \"$EDU\"}" --count 1 \
	--match '{"rule.id": "DMA-006"}' --absent \
	--match '{"pci.address": "~^0000:00:"}' --absent \
	--match '{"rule.id": "~^DMA-"}' --count 2
log "ok: the card's DMA reached memory and nothing reported it"
