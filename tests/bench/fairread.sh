#!/usr/bin/env bash
# One address's deep history pages against another address's first page, on a large store: the
# reads of hokitod's store are shared fairly by address, and deep pages cost what a page costs.
#
#   bash tests/bench/fairread.sh [--games N] [--seconds T] [--samples S] [--conns C] [REV]
#
# Builds REV (default main) in a temporary worktree and this tree (build-load), both release;
# starts REV's hokitod once on a new store and stops it, then fills the file straight with SQL
# (fairread.py fill): N finished public games (default 300,000). Then, on that same store, first
# with REV's hokitod, then with this tree's (fairread.py run): the victim (127.0.0.2) asks for
# the first history page S times (default 500), alone, then while C connections (default 8) of
# the attacker (127.0.0.66) loop the deepest history page each server lets them ask for, for T
# seconds at most (default 30). Prints p50/p99/max of the victim's page, quiet and attacked,
# before (REV) and after (this tree). Loopback only; the worktree and the store are removed.
set -eu
cd "$(dirname "$0")/../.."

games=300000
secs=30
samples=500
conns=8
while [ $# -gt 0 ]; do
	case "$1" in
	--games) games=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	--samples) samples=$2; shift 2 ;;
	--conns) conns=$2; shift 2 ;;
	-*) echo "usage: fairread.sh [--games N] [--seconds T] [--samples S] [--conns C] [REV]" >&2; exit 2 ;;
	*) break ;;
	esac
done
rev=$(git rev-parse --short "${1:-main}^{commit}")

tmp=$(mktemp -d /tmp/fairread.XXXXXX)
old=$tmp/old
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	wait 2>/dev/null || true
	git worktree remove --force "$old" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "fairread: $rev (before) against $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo '+changes') (after); $(date -u +%F); load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
git worktree add -q --detach "$old" "$rev"
(cd "$old" && meson setup build-rel --buildtype=release >/dev/null && ninja -C build-rel server/hokitod >/dev/null)
. tests/bench/release.sh
bench_release
after=$hokitod
before=$old/build-rel/server/hokitod

hokitod=$before
bench_start
bench_stop
python3 tests/bench/fairread.py fill "$tmp/store.db" "$games"
echo "store: $games finished games, $(($(stat -c %s "$tmp/store.db") / 1048576)) MiB"

client="python3 tests/bench/fairread.py run --db $tmp/store.db --seconds $secs --samples $samples --conns $conns"
$client --hokitod "$before" --label "before ($rev)"
$client --hokitod "$after" --label "after"
