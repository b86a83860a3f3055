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

# Every benchmark's clients come from 127.0.0.1: the per-address limits would measure
# themselves, not the server. bench_unlimited: the flags that lift them (vs-redis.sh and
# store-ab.sh pass the same, for builds that have them).
bench_unlimited=(--max-conns-per-addr 0 --max-rate-per-addr 0 --max-creates-per-addr 0
	--max-games-per-addr 0 --max-lookup-failures 0 --max-sessions-per-addr 0)

# bench_start: hokitod on $tmp/store.db, or $bench_db when set (a PostgreSQL URI, say; its log in
# $tmp/hokitod.log); sets pid, port, and took: the seconds from the start until it listens (its
# port file is written).
bench_start() {
	rm -f "$tmp/port"
	local t0 t1
	t0=$(date +%s.%N)
	"$hokitod" --listen 127.0.0.1:0 --port-file "$tmp/port" --log-level warn \
		"${bench_unlimited[@]}" --db "${bench_db:-$tmp/store.db}" 2>>"$tmp/hokitod.log" \
		</dev/null >/dev/null &
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

# The helpers of the scripts that set hokitod beside Redis (vs-redis.sh, tls.sh); they read the
# caller's $tmp (one file a measurement), $cpu_load and $loadgen.
pin() { # core command...: exec the command, pinned when there is a core to pin to (subshells only)
	local c=$1
	shift
	if [ -n "$c" ] && command -v taskset >/dev/null; then
		exec taskset -c "$c" "$@"
	else
		exec "$@"
	fi
}

stop_pid() {
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# lg NAME loadgen-args...: run the load generator pinned; keep its line in $tmp/NAME.
lg() {
	local name=$1 out
	shift
	if ! out=$(pin "$cpu_load" "$loadgen" "$@" --label "$name" 2>>"$tmp/loadgen.err" </dev/null); then
		echo "  (loadgen $* failed; see below)"
		tail -5 "$tmp/loadgen.err" | sed 's/^/  /'
	fi
	echo "  $out"
	echo "$out" >>"$tmp/$name"
}

# field NAME KEY: every run's value of KEY, one a line
field() {
	[ -f "$tmp/$1" ] || return 0
	tr ' ' '\n' <"$tmp/$1" | sed -n "s/^$2=//p"
}
median() {
	sort -g | awk '{a[NR] = $1} END {if (NR == 0) print "n/a"; else print a[int((NR + 1) / 2)]}'
}
med() { field "$1" "$2" | median; }
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {if (a == "n/a" || b == "n/a" || b + 0 == 0) print "n/a"; else printf "%.2f", a / b}'
}
