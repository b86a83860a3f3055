#!/usr/bin/env bash
# How big a hokitod store grows per game and per move, for both kinds of game (hokitod(8), STORE).
#
#   bash tests/bench/store-size.sh [--seconds S] [--conns N]
#
# Builds a release tree (build-load, or $BUILD; or takes $HOKITOD and $LOADGEN). For each kind
# (hokito, oxono): a fresh store, loadgen hokito --kind KIND --conns N (default 50) playing whole
# games with random legal moves for S seconds (default 10), then SIGTERM: the server commits,
# copies its WAL into the store (a checkpoint) and removes it. store-size.py then splits the
# file's pages between games and moves and prints bytes per game and per move. Everything runs
# on 127.0.0.1 and stops by itself.
set -eu
cd "$(dirname "$0")/../.."

secs=10
conns=50
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) secs=$2; shift 2 ;;
	--conns) conns=$2; shift 2 ;;
	*) echo "usage: store-size.sh [--seconds S] [--conns N]" >&2; exit 2 ;;
	esac
done

. tests/bench/release.sh
bench_release

tmp=$(mktemp -d /tmp/store-size.XXXXXX)
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

for kind in hokito oxono; do
	rm -f "$tmp/store.db"
	bench_start
	timeout $((secs + 60)) "$loadgen" hokito --kind "$kind" --port "$port" --conns "$conns" \
		--seconds "$secs" --pid "$pid" >/dev/null || true
	bench_stop
	[ ! -e "$tmp/store.db-wal" ] || { echo "$0: the WAL was not checkpointed" >&2; exit 1; }
	python3 tests/bench/store-size.py "$tmp/store.db"
done
