#!/bin/bash
# Enforcement of software RDMA while a game runs (issue 7): with the game stand-in running,
# loading rdma_rxe (finit_module: kernel_read_file) and creating a soft RDMA link (rdma link add:
# the RDMA netlink NEWLINK, netlink_send; and the module request it makes) are refused with EPERM
# and alerted (RDMA-002, RDMA-011, action denied); once the game has ended they work again.
# A refusal is the kernel's EPERM (modprobe's words, rg-errno-shim's line for rdma's netlink
# send), with its alert.
# The kernel follows the game itself (exec of a game file): the daemon need not be fast. The
# daemon runs on the tracepoint sensors, which load fastest under TCG (the refusals are the LSM
# programs' whatever the sensors).
# lab-rxe: none
# lab-timeout: 900
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/enforce.sh
. "$RG_SRC/tests/vm/enforce.sh"

modprobe -r rdma_rxe || fail "could not unload rdma_rxe"
ip link add dummy1 type dummy
ip link set dummy1 up
mkdir -p "$TMPDIR/arena"
cp /bin/sleep "$TMPDIR/arena/arena"
# scope always is not needed: soft RDMA is refused while a game runs, whatever the scope
enf_policy "{\"role\": \"managed\", \"enforce\": true, \"enforce_scope\": \"while_game\",
	\"games\": [{\"name\": \"Arena\", \"exe\": \"$TMPDIR/arena/*\"}]}"
enf_start d --no-inventory --sensor tracepoint

_game_live()
{
	enf_status && expect_json -q "$OUT/status.json" --match "{\"games_live\": $1}" --count 1
}
bg game "$TMPDIR/arena/arena" 600
wait_for -m "the kernel to count the game" _game_live 1

rc=0
modprobe rdma_rxe >"$OUT/modprobe.log" 2>&1 || rc=$?
refused_rc "$rc" "$OUT/modprobe.log"
[ ! -e /sys/module/rdma_rxe ] || fail "rdma_rxe was loaded while the game runs"
rc=0
LD_PRELOAD=$SHIM rdma link add rxe1 type rxe netdev dummy1 >"$OUT/link.log" 2>&1 || rc=$?
refused_rc "$rc" "$OUT/link.log" "^rg-errno-shim: pid=[0-9]+ sendto\(netlink\) = -1 EPERM$"
[ ! -e /sys/class/infiniband/rxe1 ] || fail "rxe1 was created while the game runs"

_soft_denied()
{
	alerts d --match '{"rule.id": "RDMA-011", "action": "denied", "event.action": "module_load",
		"module.name": "rdma_rxe", "process.name": "modprobe"}' --min 1 &&
		alerts d --match '{"rule.id": "RDMA-011", "action": "denied", "event.action": "device_add",
		"rdma.device": "rxe1", "rdma.netdev": "dummy1", "process.name": "rdma"}' --min 1
}
wait_for -m "the soft RDMA denials' alerts" _soft_denied
alerts d --match '{"rule.id": "RDMA-002", "action": "denied", "severity": "critical",
	"module.name": "rdma_rxe"}' --min 1 \
	--match '{"rule.id": "RDMA-002", "action": "denied", "rdma.device": "rxe1", "rdma.soft": true}' --min 1 \
	--match '{"rule.id": "RDMA-001", "rdma.device": "rxe1"}' --absent

# the game ends: both work again
kill -TERM "$(bg_pid game)"
bg_wait game || true
wait_for -m "the kernel to see the game end" _game_live 0
_game_over()
{
	enf_status && expect_json -q "$OUT/status.json" --match '{"game_running_daemon": false}' --count 1
}
wait_for -m "the daemon to see the game end" _game_over
modprobe rdma_rxe || fail "modprobe rdma_rxe failed after the game"
rxe_up rxe1 dummy1

# with rdma_rxe loaded, a new link while a game runs is refused by the netlink hook alone
bg game2 "$TMPDIR/arena/arena" 600
wait_for -m "the kernel to count the game again" _game_live 1
ip link add dummy2 type dummy
ip link set dummy2 up
rc=0
LD_PRELOAD=$SHIM rdma link add rxe2 type rxe netdev dummy2 >"$OUT/link2.log" 2>&1 || rc=$?
refused_rc "$rc" "$OUT/link2.log" "^rg-errno-shim: pid=[0-9]+ sendto\(netlink\) = -1 EPERM$"
[ ! -e /sys/class/infiniband/rxe2 ] || fail "rxe2 was created while the game runs"
wait_for -m "rxe2's denial alert" alerts d --match '{"rule.id": "RDMA-011", "action": "denied",
	"event.action": "device_add", "rdma.device": "rxe2"}' --count 1
kill -TERM "$(bg_pid game2)"
bg_wait game2 || true
enf_stop d
"$RG" enforce --off >/dev/null
rxe_down rxe1
