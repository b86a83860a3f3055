#!/usr/bin/env bash
# Durable moves on each store backend beside Redis, in one run on this machine, with the same
# client (loadgen):
#
#   bash tests/bench/durable.sh [--runs N] [--seconds S]
#
#   (1) --fsync always, 50 connections (25 games): hokitod on PostgreSQL (synchronous_commit=on),
#       hokitod on SQLite (an fsync per group commit), Redis SET with appendfsync always (50
#       connections); the ratio PostgreSQL / SQLite (target >= 0.8).
#   (2) --fsync normal, the same: PostgreSQL (synchronous_commit=off), SQLite (WAL,
#       synchronous=NORMAL), Redis appendfsync everysec; the ratio PostgreSQL / SQLite (>= 0.8).
#   (3) a pinging client (loadgen ping, one connection) on the PostgreSQL server: its round-trip
#       p99 unloaded, and during (1)'s load; the ratio (target <= 2: the loop is never blocked).
# PostgreSQL is a throw-away server this script starts itself (tests/pgtmp.py run): on a Unix
# socket, fsync on, the role and database hokito; Redis a redis-server on a loopback port. hokitod
# is pinned to the first core and loadgen to the second where there are two; the database server
# runs where the kernel puts it (its work is the commit's, as SQLite's fsync is its own). Each
# measurement alternates between the backends, --runs times (default 3); it prints every loadgen
# line, then the medians and ratios. Everything runs on 127.0.0.1 and is stopped on exit.
set -eu
cd "$(dirname "$0")/../.."

if [ -z "${HOKITO_TEST_PG_URI:-}" ]; then
	exec python3 tests/pgtmp.py run -- bash "$0" "$@"
fi
runs=3
secs=4
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	*) echo "usage: durable.sh [--runs N] [--seconds S]" >&2; exit 2 ;;
	esac
done

. tests/bench/release.sh
bench_release
command -v redis-server >/dev/null || { echo "durable.sh: needs redis-server" >&2; exit 2; }
ncpu=$(nproc)
if [ "$ncpu" -ge 2 ]; then
	cpu_hokitod=0 cpu_load=1
else
	cpu_hokitod="" cpu_load=""
fi
tmp=$(mktemp -d /tmp/durable.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_hokitod DB FSYNC: sets hk_pid, hk_port
start_hokitod() {
	rm -f "$tmp/hk.port"
	(pin "$cpu_hokitod" "$hokitod" --listen 127.0.0.1:0 --port-file "$tmp/hk.port" \
		--log-level warn --db "$1" --fsync "$2" "${bench_unlimited[@]}" \
		2>>"$tmp/hokitod.log" </dev/null >/dev/null) &
	hk_pid=$!
	pids+=("$hk_pid")
	for _ in $(seq 200); do
		[ -s "$tmp/hk.port" ] && break
		kill -0 "$hk_pid" 2>/dev/null || { echo "durable.sh: hokitod exited:" >&2; cat "$tmp/hokitod.log" >&2; exit 1; }
		sleep 0.05
	done
	hk_port=$(cat "$tmp/hk.port")
}

# start_redis NAME FSYNC: sets rd_pid, rd_port
start_redis() {
	mkdir -p "$tmp/$1"
	rd_port=$(free_port)
	(pin "$cpu_hokitod" redis-server --port "$rd_port" --bind 127.0.0.1 --dir "$tmp/$1" \
		--logfile "$tmp/$1/log" --save '' --appendonly yes --appendfsync "$2" \
		</dev/null >/dev/null) &
	rd_pid=$!
	pids+=("$rd_pid")
	for _ in $(seq 100); do
		redis-cli -p "$rd_port" ping >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "durable.sh: redis-server did not start" >&2
	exit 1
}

pg=$HOKITO_TEST_PG_URI
echo "durable: $runs runs of ${secs}s; $(postgres --version 2>/dev/null || psql --version);" \
	"$(redis-server --version | cut -d' ' -f1-3); $ncpu cores; load $(cut -d' ' -f1-3 /proc/loadavg)"

for fsync in always normal; do
	redis_fsync=always
	[ "$fsync" = normal ] && redis_fsync=everysec
	for run in $(seq "$runs"); do
		echo "run $run (--fsync $fsync)"
		start_hokitod "$pg" "$fsync"
		if [ "$fsync" = always ]; then
			lg ping-idle ping --port "$hk_port" --conns 1 --seconds "$secs"
			# the pinging client beside the load
			(lg ping-load ping --port "$hk_port" --conns 1 --seconds "$secs" >"$tmp/ping.out") &
			ppid=$!
		fi
		lg "pg-$fsync" hokito --port "$hk_port" --conns 50 --seconds "$secs" --pid "$hk_pid" --seed "$run"
		if [ "$fsync" = always ]; then
			wait "$ppid" || true
			cat "$tmp/ping.out"
		fi
		stop_pid "$hk_pid"
		start_hokitod "$tmp/bench-$fsync.db" "$fsync"
		lg "sqlite-$fsync" hokito --port "$hk_port" --conns 50 --seconds "$secs" --pid "$hk_pid" --seed "$run"
		stop_pid "$hk_pid"
		start_redis "redis-$fsync-$run" "$redis_fsync"
		lg "redis-$fsync" redis-set --port "$rd_port" --conns 50 --seconds "$secs" --pid "$rd_pid"
		stop_pid "$rd_pid"
	done
done

echo
echo "medians of $runs runs:"
for fsync in always normal; do
	p=$(med "pg-$fsync" moves_per_s) s=$(med "sqlite-$fsync" moves_per_s) r=$(med "redis-$fsync" req_per_s)
	echo "(--fsync $fsync) 50 conns: PostgreSQL $p moves/s, SQLite $s moves/s," \
		"Redis SET ($( [ "$fsync" = always ] && echo "appendfsync always" || echo "appendfsync everysec")) $r req/s;" \
		"PostgreSQL / SQLite $(ratio "$p" "$s") (target >= 0.8), PostgreSQL / Redis $(ratio "$p" "$r")"
done
i=$(med ping-idle rtt_p99_us) l=$(med ping-load rtt_p99_us)
echo "(ping) PostgreSQL store, one pinging client: p99 $i us unloaded, $l us beside 50 players;" \
	"ratio $(ratio "$l" "$i") (target <= 2)"
