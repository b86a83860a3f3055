#!/usr/bin/env bash
# Two hokitod builds on a file store, alternating: durable moves/s and round trips, side by side.
#
#   bash tests/bench/store-ab.sh [--fsync normal|always] [--rounds N] [--seconds S] OLD NEW
#
# OLD and NEW are hokitod binaries (say, a release build of an earlier commit and of this one).
# Each round starts OLD, then NEW, each on a fresh store in a temporary directory with
# --db FILE --fsync MODE, pinned to the first core (the load generator to the second, as in
# vs-redis.sh), and runs loadgen hokito --conns 50 twice against it. It prints every run's moves/s,
# round trip p50/p99 and server CPU, then the median moves/s and p99 of each build. Nothing here
# is a pass/fail test. Everything runs on 127.0.0.1 and is stopped on exit.
# The loadgen comes from $LOADGEN, or from build-load (configured as a release tree if missing).
set -eu
cd "$(dirname "$0")/../.."

mode=normal
rounds=2
secs=4
while [ $# -gt 2 ]; do
	case "$1" in
	--fsync) mode=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	*) break ;;
	esac
done
if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ] || { [ "$mode" != normal ] && [ "$mode" != always ]; }; then
	echo "usage: store-ab.sh [--fsync normal|always] [--rounds N] [--seconds S] OLD NEW" >&2
	exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
if [ -z "${LOADGEN:-}" ]; then
	[ -f build-load/build.ninja ] || meson setup build-load --buildtype=release >/dev/null
	ninja -C build-load tests/bench/loadgen >/dev/null
	LOADGEN=$PWD/build-load/tests/bench/loadgen
fi
pin() { # core command...: exec the command, pinned where there are two cores (subshells only)
	if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
		exec taskset -c "$@"
	else
		shift
		exec "$@"
	fi
}

tmp=$(mktemp -d /tmp/store-ab.XXXXXX)
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# one NAME BINARY: a fresh store, two loadgen runs; their lines go to $tmp/NAME
one() {
	local name=$1 bin=$2 dir addr=()
	dir=$(mktemp -d "$tmp/run.XXXXXX")
	# loadgen's connections all come from 127.0.0.1: no per-address limits
	if { "$bin" --help; "$bin" --help limits; } 2>/dev/null | grep -q -- '--max-rate-per-addr'; then
		addr=(--max-conns-per-addr 0 --max-rate-per-addr 0 --max-creates-per-addr 0
			--max-games-per-addr 0 --max-lookup-failures 0)
	fi
	if { "$bin" --help; "$bin" --help limits; } 2>/dev/null | grep -q -- '--max-sessions-per-addr'; then
		addr+=(--max-sessions-per-addr 0)
	fi
	(pin 0 "$bin" --listen 127.0.0.1:0 --port-file "$dir/port" --log-level warn \
		--db "$dir/hokito.db" --fsync "$mode" "${addr[@]}" 2>"$dir/log" </dev/null >/dev/null) &
	pid=$!
	for _ in $(seq 100); do
		[ -s "$dir/port" ] && break
		sleep 0.05
	done
	for run in 1 2; do
		line=$(pin 1 "$LOADGEN" hokito --port "$(cat "$dir/port")" --conns 50 --seconds "$secs" \
			--pid "$pid" --seed "$run" --label "$name")
		echo "  $line" | tr ' ' '\n' | grep -E "label|moves_per_s|rtt_p50_us|rtt_p99_us|srv_cpu" |
			paste -sd' '
		echo "$line" >>"$tmp/$name"
	done
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	pid=""
}

median() {
	sort -g | awk '{a[NR] = $1} END {if (NR == 0) print "n/a"; else print a[int((NR + 1) / 2)]}'
}
field() { tr ' ' '\n' <"$tmp/$1" | sed -n "s/^$2=//p"; }

echo "store-ab: --fsync $mode, $rounds rounds of 2 runs of ${secs}s each; old $old, new $new"
for r in $(seq "$rounds"); do
	echo "round $r"
	one old "$old"
	one new "$new"
done
for b in old new; do
	echo "$b: median $(field $b moves_per_s | median) moves/s, p99 $(field $b rtt_p99_us | median) us"
done
