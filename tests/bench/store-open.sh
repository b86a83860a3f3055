#!/usr/bin/env bash
# How long hokitod takes to open a large store: what start reads of it (store.c, store_open(): no
# whole-file check, that is hokitod --check) and the rebuild of the games that
# come back.
#
#   bash tests/bench/store-open.sh [--seconds S] [--runs N]
#
# Builds a release tree (build-load, or $BUILD; or takes $HOKITOD and $LOADGEN), fills a store file
# with the games of loadgen hokito --conns 50 for S seconds (default 30: some 35,000 games and a
# million moves), stops the server with SIGTERM, then starts it on that file N times (default 3)
# and prints the time from the start to the port file (the server listening), and the median.
# Everything runs on 127.0.0.1 and stops by itself.
set -eu
cd "$(dirname "$0")/../.."

secs=30
runs=3
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) secs=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	*) echo "usage: store-open.sh [--seconds S] [--runs N]" >&2; exit 2 ;;
	esac
done

. tests/bench/release.sh
bench_release

tmp=$(mktemp -d /tmp/store-open.XXXXXX)
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

bench_start
echo "filling the store for ${secs}s:"
"$loadgen" hokito --port "$(cat "$tmp/port")" --conns 50 --seconds "$secs" --pid "$pid"
bench_stop
size=$(stat -c %s "$tmp/store.db")
times=()
for run in $(seq "$runs"); do
	bench_start
	bench_stop
	echo "open $run: ${took}s"
	times+=("$took")
done
med=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
echo "store $((size / 1048576)) MiB: opened in ${med}s (median of $runs)"
