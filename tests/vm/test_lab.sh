#!/bin/bash
# Self-test of the VM lab harness (TAP): a passing, a hanging, a failing scenario, one that
# outlives the VM's wall-clock limit and one whose guest panics on a soft lockup are each reported
# as such, leftovers are cleaned between scenarios, a kernel splat and a runner that fails after
# the last scenario fail the run, and a lab that cannot run (or whose guest does not come up in
# time) exits 2 with the reason, as does an unknown machine or a scenario of another machine; the
# QMP relay refuses what is not hotplug. Needs what lab.sh needs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
S=$here/selftest

n=0
failed=0
out=""
rc=0
# run ARGS...: lab.sh ARGS, keeping its output and exit status.
run()
{
	rc=0
	out=$("$here/lab.sh" --results "$results" "$@" 2>&1) || rc=$?
	printf '# %s\n' "${out//$'\n'/$'\n# '}"
}
# check NAME TEST...: one TAP line.
check()
{
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		failed=$((failed + 1))
	fi
}
has()
{
	grep -qE -- "$1" <<<"$out"
}

run "$S/pass.sh" "$S/hang.sh" "$S/leftovers.sh" "$S/fail.sh" "$S/splat.sh" "$S/badreset.sh"
check "some scenario failed: exit 1" [ "$rc" = 1 ]
check "pass reported ok" has '^ok pass \([0-9.]+ s\)$'
check "hang stopped by its own timeout" has '^FAIL hang rc=124 \([0-9.]+ s, timed out\)'
check "hang's log tail shown" has '^    hang: waiting forever$'
check "leftovers of pass and hang cleaned" has '^ok leftovers '
check "fail reported with its status" has '^FAIL fail rc=3 '
check "fail's log tail shown" has '^    fail: deliberate failure$'
check "summary" has '^lab: 4 passed, 2 failed; boot [0-9.]+ s'
check "a kernel splat fails the run" has '^FAIL lab: the guest kernel logged 1 splat line'
check "the splat shown" has '^    \[ *[0-9.]+\] WARNING: CPU: 0 PID: [0-9]+ at tests/vm/selftest/splat.sh'
check "a failed reset after the last scenario: no done mark" \
	has '^FAIL lab: the runner did not finish after the last scenario \(no done mark\)$'
check "a failed reset after the last scenario: the runner's status" \
	has '^FAIL lab: the runner exited with status 1 after the last scenario$'
check "per-scenario results" [ -s "$results/pass/file" ] && [ "$(cat "$results/fail/rc")" = 3 ]

run --timeout 60 "$S/wallclock.sh" "$S/pass.sh"
check "wall-clock limit: exit 1" [ "$rc" = 1 ]
check "the running scenario named" \
	has '^FAIL wallclock \(still running at the VM.s wall-clock limit of 60 s\)'
check "the rest not run" has '^FAIL pass \(not run\)$'
check "wall-clock limit: the console shown" has 'tail of .*/console.log:'

run "$S/lockup.sh" "$S/pass.sh"
check "soft lockup: exit 1" [ "$rc" = 1 ]
check "soft lockup: the VM died" has '^FAIL lockup \(the VM died while it ran\)'
check "soft lockup: where" \
	has 'soft lockup: CPU#1 stuck for 22s! at bpf_lsm_file_open\+0x0/0x10$'
check "soft lockup: a text patch" has "a CPU stuck at a function's first byte"
check "soft lockup: the console shown" has 'tail of .*/console.log:'
check "soft lockup: the rest not run" has '^FAIL pass \(not run\)$'

run no-such-scenario
check "unknown scenario: exit 2" [ "$rc" = 2 ]
check "unknown scenario: why" has 'no such scenario: no-such-scenario'
run --machine q35-bogus "$S/pass.sh"
check "unknown machine: exit 2" [ "$rc" = 2 ]
check "unknown machine: why" has "machine: pc, q35-iommu or q35-noiommu, not 'q35-bogus'"
run hw-runtime
check "a scenario of another machine: exit 2" [ "$rc" = 2 ]
check "a scenario of another machine: why" has 'scenario hw-runtime is for --machine q35-iommu, not pc'
# the QMP relay passes only the hotplug commands, before it even connects
echo '{"execute": "quit"}' >"$results/quit.req"
check "QMP relay: quit refused" bash -c '! /usr/bin/python3 "$1/qmp.py" "$2/none.sock" "$2/quit.req" "$2/quit.rep"' \
	_ "$here" "$results"
check "QMP relay: the refusal answered" grep -q '"desc": "not relayed' "$results/quit.rep"
RG_LAB_KVER=0.0-none run "$S/pass.sh"
check "missing kernel: exit 2" [ "$rc" = 2 ]
check "missing kernel: why" has 'cannot read /boot/vmlinuz-0.0-none'
RG_LAB_QEMU=qemu-system-none run "$S/pass.sh"
check "missing qemu: exit 2 with the package" \
	has 'qemu-system-none not found: apt-get install qemu-system-x86'
RG_LAB_APPEND="init=/nonexistent rdinit=/nonexistent" run --timeout 60 "$S/pass.sh"
check "boot failure: exit 2" [ "$rc" = 2 ]
check "boot failure: qemu's log shown" has "tail of .*/qemu.log:"
check "boot failure: why" has 'the VM did not boot'
RG_LAB_BOOT_TIMEOUT=1 run "$S/pass.sh"
check "boot timeout: exit 2" [ "$rc" = 2 ]
check "boot timeout: why" has 'the runner did not start within 1 s'

echo "1..$n"
[ "$failed" = 0 ]
