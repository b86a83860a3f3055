#!/usr/bin/env bash
# How long hokitod takes to open a large store: the integrity and contents checks of every start
# (store.c, store_check()) and the rebuild of the games that come back.
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

# start: the server on the store; sets pid, and took: the seconds until it listens
start() {
	rm -f "$tmp/port"
	local t0 t1
	t0=$(date +%s.%N)
	"$hokitod" --listen 127.0.0.1:0 --port-file "$tmp/port" --log-level warn \
		--db "$tmp/store.db" 2>>"$tmp/hokitod.log" </dev/null >/dev/null &
	pid=$!
	for _ in $(seq 6000); do
		[ -s "$tmp/port" ] && break
		kill -0 "$pid" 2>/dev/null || { echo "store-open.sh: hokitod exited:" >&2; cat "$tmp/hokitod.log" >&2; exit 1; }
		sleep 0.05
	done
	t1=$(date +%s.%N)
	took=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
}

stop() {
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=""
}

start
echo "filling the store for ${secs}s:"
"$loadgen" hokito --port "$(cat "$tmp/port")" --conns 50 --seconds "$secs" --pid "$pid"
stop
size=$(stat -c %s "$tmp/store.db")
times=()
for run in $(seq "$runs"); do
	start
	stop
	echo "open $run: ${took}s"
	times+=("$took")
done
med=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
echo "store $((size / 1048576)) MiB: opened in ${med}s (median of $runs)"
