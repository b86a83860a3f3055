#!/usr/bin/env bash
# RSS per idle connection of hokitod: this tree against an earlier commit, in one run.
#
#   bash tests/bench/idle.sh [--runs N] [--conns A,B,...] [REV]
#
# For each count of connections (default 1000 and 10000) and each build, --runs times (default
# 3), alternating: a fresh hokitod (--db :memory:, the per-address limits off as in
# tests/bench/vs-redis.sh (d), since every connection comes from 127.0.0.1), then `loadgen idle`:
# that many connections say hello and hold still, and the server's RSS growth divided by their
# count is the figure (its RSS at the start, before any connection, is printed beside it). Ends
# with the median of the runs for each count and build. With REV, that commit is checked out in a
# temporary worktree and built as a release tree beside this tree's build-load; without it only
# this tree is measured. Everything runs on 127.0.0.1 and is stopped on exit. Not a pass/fail test.
set -eu
cd "$(dirname "$0")/../.."

runs=3
counts=1000,10000
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--conns) counts=$2; shift 2 ;;
	-*) echo "usage: idle.sh [--runs N] [--conns A,B,...] [REV]" >&2; exit 2 ;;
	*) break ;;
	esac
done
rev=""
if [ $# -eq 1 ]; then
	git rev-parse -q --verify "$1^{commit}" >/dev/null || { echo "idle.sh: no commit $1" >&2; exit 2; }
	rev=$(git rev-parse --short "$1^{commit}")
fi

. tests/bench/release.sh
bench_release
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
max=$(echo "$counts" | tr , '\n' | sort -n | tail -1)
if [ "$(ulimit -n)" -lt $((max + 100)) ]; then
	echo "idle.sh: ulimit -n is $(ulimit -n); $max connections need more" >&2
	exit 2
fi

tmp=$(mktemp -d /tmp/idle.XXXXXX)
old=$tmp/old
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	wait 2>/dev/null || true
	[ -n "$rev" ] && git worktree remove --force "$old" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

declare -A bin=([new]=$hokitod)
sides=new
if [ -n "$rev" ]; then
	git worktree add -q --detach "$old" "$rev"
	(cd "$old" && meson setup build-rel --buildtype=release >/dev/null &&
		ninja -C build-rel server/hokitod >/dev/null)
	bin[old]=$old/build-rel/server/hokitod
	sides="old new"
fi
echo "idle: $runs runs of $counts idle connections; new is $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo '+changes')${rev:+, old is $rev}; load $(cut -d' ' -f1-3 /proc/loadavg)"

for run in $(seq "$runs"); do
	for n in $(echo "$counts" | tr , ' '); do
		for side in $sides; do
			rm -f "$tmp/port"
			"${bin[$side]}" --listen 127.0.0.1:0 --port-file "$tmp/port" --log-level warn \
				--max-clients $((n + 1000)) --db :memory: "${bench_unlimited[@]}" \
				2>>"$tmp/hokitod.log" </dev/null >/dev/null &
			pid=$!
			for _ in $(seq 200); do
				[ -s "$tmp/port" ] && break
				sleep 0.05
			done
			sleep 0.3
			out=$("$loadgen" idle --port "$(cat "$tmp/port")" --conns "$n" --seconds 2 \
				--pid "$pid" --burst 128 --label "$side-$n")
			echo "  run $run $side $n: $out"
			echo "$out" >>"$tmp/$side-$n"
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
			pid=""
		done
	done
done

echo
echo "medians of $runs runs: RSS growth per idle connection (RSS at the start in kB)"
for n in $(echo "$counts" | tr , ' '); do
	for side in $sides; do
		echo "  $side, $n connections: $(field "$side-$n" per_conn_bytes | median) B" \
			"($(field "$side-$n" rss_before_kb | median) kB at the start)"
	done
done
