#!/bin/bash
# lab-part: 2 (tests/vm/meson.build: the two halves of the pc lab boot side by side)
# The game in a container is the game. A detect-only daemon with a policy that names the game
# "Arena" by pattern (its Steam library directory) and "Boxed" by sha256 alone:
# - Arena started the way Steam's pressure-vessel starts every game (bubblewrap: a new mount
#   namespace on an empty root, /usr from the runtime with the merged-/usr links, the API
#   filesystems, the host's /etc and /usr under /run/host, /run/pressure-vessel, the game's
#   directory bound at its own path as the working directory, --new-session, --die-with-parent;
#   the PID namespace shared, pressure-vessel's default) is a running game, and
#   ibv_rc_pingpong during it raises RDMA-006 (critical) naming Arena;
# - the same under `unshare -m`, with the pingpong client in a mount namespace of its own too:
#   its alert says process.exe_foreign_root;
# - Boxed, bound into its container at a path that exists nowhere on the host, is the game by its
#   sha256: RDMA-006 names it.
# The daemon's `status` (proctree.games_running) says when it sees each game start and end.
# lab-timeout: 600
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "$RG_SRC/tests/vm/lib.sh"
# shellcheck source=tests/vm/sensors.sh
. "$RG_SRC/tests/vm/sensors.sh"

command -v bwrap >/dev/null || fail "no bwrap (Debian package bubblewrap)"
LIB=$TMPDIR/steam/steamapps/common/Arena
mkdir -p "$LIB" "$TMPDIR/boxed"
cp /bin/sleep "$LIB/arena"
cp /bin/sleep "$TMPDIR/boxed/boxed"
printf 'another game' >>"$TMPDIR/boxed/boxed" # its own sha256
boxed_sha=$(sha256sum "$TMPDIR/boxed/boxed")
boxed_sha=${boxed_sha%% *}
policy=$TMPDIR/game-policy.json
printf '{"role": "managed", "games": [{"name": "Arena", "exe": "%s/*"},
	{"name": "Boxed", "sha256": "%s"}]}\n' "$LIB" "$boxed_sha" >"$policy"
chmod 600 "$policy"

mkdir -p "$OUT/daemon"
EV=$OUT/daemon/events.jsonl
ALERTS=$OUT/daemon/alerts.jsonl
bg daemon "$RG" daemon --policy "$policy" --sensor tracepoint --rules "$RG_SRC/rules" \
	--record "$EV" --output "file:$ALERTS" --ready-file "$OUT/daemon/ready" \
	--status-socket "$TMPDIR/daemon.sock" --heartbeat 3600
daemon_ready daemon

games_running()
{
	"$RG" status --socket "$TMPDIR/daemon.sock" --format json >"$TMPDIR/status.json" &&
		expect_json -q "$TMPDIR/status.json" --match "{\"proctree.games_running\": $1}" --count 1
}

# pressure-vessel's bwrap (exec'd: a TERM to the peer ends bwrap, and --die-with-parent the game),
# with this machine's /usr as the runtime's; extra arguments go before
# the command (the game's directory: pv's current-working-directory export)
pv_bwrap()
{
	local args=()
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	exec bwrap --new-session --die-with-parent \
		--ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
		--symlink usr/bin /bin --symlink usr/sbin /sbin \
		--proc /proc --dev-bind /dev /dev --ro-bind /sys /sys --tmpfs /tmp \
		--ro-bind /etc /run/host/etc --ro-bind /usr /run/host/usr --dir /run/pressure-vessel \
		"${args[@]}" "$@"
}

# pingpong NAME GAME [CLIENT-PREFIX...]: ibv_rc_pingpong while game NAME runs; its client's
# RDMA-006 names GAME and is critical.
pingpong()
{
	local name=$1 game=$2
	shift 2
	bg "$name-server" ibv_rc_pingpong -d rxe0 -g 1 -n 20
	wait_for -m "$name's server on TCP 18515" listening 18515
	bg "$name-client" "$@" ibv_rc_pingpong -d rxe0 -g 1 -n 20 127.0.0.1
	bg_wait "$name-client" || fail "$name: ibv_rc_pingpong client failed"
	bg_wait "$name-server" || fail "$name: ibv_rc_pingpong server failed"
	wait_for -m "$name: RDMA-006 naming $game" expect_json -q "$ALERTS" --match "{\"rule.id\":
		\"RDMA-006\", \"severity\": \"critical\", \"game.name\": \"$game\",
		\"game.running\": true, \"process.pid\": $(bg_pid "$name-client")}" --min 1
}

end_game()
{
	kill -TERM "$(bg_pid "$1")"
	bg_wait "$1" || true
	wait_for -m "the daemon to see $1 end" games_running 0
}

games_running 0 || fail "a game runs before any was started"
# Arena as pressure-vessel runs it
bg pv pv_bwrap --bind "$LIB" "$LIB" --chdir "$LIB" -- "$LIB/arena" 600
wait_for -m "the daemon to see Arena in bubblewrap" games_running 1
pingpong pv Arena
end_game pv

# Arena under unshare -m; the client in a mount namespace of its own as well
bg mntns unshare -m --propagation private "$LIB/arena" 600
wait_for -m "the daemon to see Arena under unshare -m" games_running 1
pingpong mntns Arena unshare -m --propagation private
expect_json "$ALERTS" --match "{\"rule.id\": \"RDMA-006\", \"process.pid\": $(bg_pid mntns-client),
	\"process.exe_foreign_root\": true}" --min 1 \
	--match "{\"rule.id\": \"RDMA-006\", \"process.pid\": $(bg_pid pv-client),
	\"process.exe_foreign_root\": true}" --absent
end_game mntns

# Boxed: reachable by path only inside its container, known by its sha256
[ ! -e /opt/boxed ] || fail "/opt/boxed exists on the host"
bg boxed pv_bwrap --ro-bind "$TMPDIR/boxed" /opt/boxed --chdir /opt/boxed -- /opt/boxed/boxed 600
wait_for -m "the daemon to see Boxed (by sha256)" games_running 1
pingpong boxed Boxed
end_game boxed

daemon_stop daemon
# the sensors saw each game's exec from another mount namespace
expect_json "$EV" --match "{\"event.action\": \"exec\", \"process.executable\": \"$LIB/arena\",
	\"process.exe_foreign_root\": true}" --min 2 \
	--match '{"event.action": "exec", "process.executable": "/opt/boxed/boxed",
	"process.exe_foreign_root": true}' --count 1
