#!/usr/bin/env bash
# The archive on a large store: how soon hokitod serves, how fast history and record
# answer, and whether a client reading the archive slows everybody else down.
#
#   bash tests/bench/archive.sh [--store sqlite|pg] [--games N] [--big E] [--samples S] [--seconds T]
#
# --store pg: the store is a PostgreSQL database on a throw-away server this script starts
# (tests/pgtmp.py run), filled the same way with psql.
# Builds a release tree (build-load, or $BUILD; or takes $HOKITOD and $LOADGEN), starts hokitod on
# a new store, plays one short game (g1), stops it, and fills the file straight with SQL
# (archive.py fill, big transactions): N finished games copied from g1 (default 1,000,000, each
# with its 6 events) and one finished game of E events (default 100,000). Then it measures, one
# request at a time over 127.0.0.1:
#   (a) the time from starting hokitod to its port file (it listens), median of 3 starts;
#   (b) history pages (by cursor, every 10th jumping deep) and records of random games, S each;
#   (c) the record of the game of E events;
#   (d) a client's pings, S of them, alone and while another client loops history, records, or
#       the big record for T seconds (default 10).
# Prints one line a figure (p50, p99, max in ms). Everything stops by itself; the store (some
# 1.5 GB for a million games) is removed at the end.
set -eu
cd "$(dirname "$0")/../.."

store=sqlite
games=1000000
big=100000
samples=2000
secs=10
while [ $# -gt 0 ]; do
	case "$1" in
	--games) games=$2; shift 2 ;;
	--big) big=$2; shift 2 ;;
	--samples) samples=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	--store) store=$2; shift 2 ;;
	*) echo "usage: archive.sh [--store sqlite|pg] [--games N] [--big E] [--samples S] [--seconds T]" >&2; exit 2 ;;
	esac
done

if [ "$store" = pg ] && [ -z "${HOKITO_TEST_PG_URI:-}" ]; then
	exec python3 tests/pgtmp.py run -- bash "$0" --store pg --games "$games" --big "$big" \
		--samples "$samples" --seconds "$secs"
fi
. tests/bench/release.sh
bench_release
client="python3 tests/bench/archive.py"

tmp=$(mktemp -d /tmp/archive.XXXXXX)
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

[ "$store" = pg ] && bench_db=$HOKITO_TEST_PG_URI
bench_start
$client seed "$port"
bench_stop
$client fill "${bench_db:-$tmp/store.db}" "$games" "$big"
if [ "$store" = pg ]; then
	echo "store: $(psql -X -t -A -d "$bench_db" -c "SELECT pg_database_size(current_database()) / 1048576") MiB (PostgreSQL)"
else
	echo "store: $(($(stat -c %s "$tmp/store.db") / 1048576)) MiB"
fi

times=()
for run in 1 2 3; do
	bench_start
	bench_stop
	times+=("$took")
done
med=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
echo "(a) start to listening: ${med} s (median of 3: ${times[*]})"

bench_start
$client history "$port" "$samples" "$games" "(b) history page (20 games)"
$client record "$port" "$samples" "$games" "(b) record, a normal game"
$client big "$port" 20 0 "(c) record, $big events"
$client ping "$port" "$samples" 0 "(d) ping, unloaded"
for kind in history record big; do
	$client loop "$port" "$kind" "$secs" "$games" &
	loader=$!
	sleep 0.5
	$client ping "$port" "$samples" 0 "(d) ping, one loops $kind"
	wait "$loader"
done
bench_stop
