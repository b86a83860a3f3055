# Sourced by the benchmark scripts (from the top of the tree): the programs they measure.
# bench_release builds a release tree (build-load, or $BUILD) unless $HOKITOD and $LOADGEN name the
# programs already, then sets hokitod and loadgen to their paths. bench_start and bench_stop run
# hokitod on the store $tmp/store.db of the calling script.
bench_release() {
	local build=${BUILD:-build-load}
	if [ -z "${HOKITOD:-}" ] || [ -z "${LOADGEN:-}" ]; then
		[ -f "$build/build.ninja" ] || meson setup "$build" --buildtype=release >/dev/null
		ninja -C "$build" server/hokitod tests/bench/loadgen >/dev/null
	fi
	hokitod=${HOKITOD:-$PWD/$build/server/hokitod}
	loadgen=${LOADGEN:-$PWD/$build/tests/bench/loadgen}
}

# Every benchmark's clients come from 127.0.0.1: the per-address limits of issue 23 would measure
# themselves, not the server. bench_unlimited: the flags that lift them (vs-redis.sh and
# store-ab.sh pass the same, for builds that have them).
bench_unlimited=(--max-conns-per-addr 0 --max-rate-per-addr 0 --max-creates-per-addr 0
	--max-games-per-addr 0 --max-lookup-failures 0)

# bench_start: hokitod on $tmp/store.db (its log in $tmp/hokitod.log); sets pid, port, and took:
# the seconds from the start until it listens (its port file is written).
bench_start() {
	rm -f "$tmp/port"
	local t0 t1
	t0=$(date +%s.%N)
	"$hokitod" --listen 127.0.0.1:0 --port-file "$tmp/port" --log-level warn \
		"${bench_unlimited[@]}" --db "$tmp/store.db" 2>>"$tmp/hokitod.log" </dev/null >/dev/null &
	pid=$!
	for _ in $(seq 60000); do
		[ -s "$tmp/port" ] && break
		kill -0 "$pid" 2>/dev/null || { echo "$0: hokitod exited:" >&2; cat "$tmp/hokitod.log" >&2; exit 1; }
		sleep 0.005
	done
	t1=$(date +%s.%N)
	took=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
	port=$(cat "$tmp/port")
}

# bench_stop: SIGTERM to the hokitod of bench_start, and wait for it.
bench_stop() {
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=""
}
