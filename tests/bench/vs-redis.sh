#!/usr/bin/env bash
# hokitod against Redis on this machine, side by side in one run, with the same client (loadgen).
#
#   bash tests/bench/vs-redis.sh [--runs N] [--seconds S] [--only a,b,...]
#
# Builds a release tree (build-load, or $BUILD; or takes the programs from $HOKITOD and $LOADGEN),
# starts redis-server (Debian package redis-server) and hokitod on loopback ports, each pinned
# with taskset to the first core and the load generator to the second (on a machine with three cores or more each server has a core of its own), and
# runs every measurement against both, alternating, --runs times (default 3). It prints every
# loadgen line, then the medians and the ratios against the targets:
#   (a) moves/s, 50 connections (25 games)     vs Redis PING_INLINE req/s, 50 connections
#   (b) p50 move round trip, one pair          vs Redis PING p50, one client
#   (c) move events delivered/s, 1000 watchers vs Redis PUBLISH deliveries, 1000 subscribers
#   (d) RSS growth per idle connection, 10000  vs Redis, 10000 idle clients (fresh servers)
#   (e) 5000 games (10000 players) + 1000 spectators: moves/s vs Redis PING, 11000 connections
#   (f) durable moves/s (hokitod --db, fsync per group commit) vs Redis SET, appendfsync always,
#       same connection count; pending while hokitod has no --db flag.
# Beside (a) and (e) it measures Redis doing the work of a move (loadgen redis-relay: pairs of a
# publisher and a subscriber, so one request in makes a reply and a message to another connection,
# with one request in flight for two connections), and beside (f) Redis SET at 25 connections (as
# many requests in flight as 25 games have moves): how far the shape of the work, not the server,
# sets the ratios.
# Everything runs on 127.0.0.1 and is stopped on exit; the whole script takes about 5 minutes.
set -eu
cd "$(dirname "$0")/../.."

runs=3
secs=4
only=abcdef
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	--only) only=$(echo "$2" | tr -d ,); shift 2 ;;
	*) echo "usage: vs-redis.sh [--runs N] [--seconds S] [--only a,b,...]" >&2; exit 2 ;;
	esac
done

. tests/bench/release.sh
bench_release
command -v redis-server >/dev/null || { echo "vs-redis.sh: needs redis-server" >&2; exit 2; }

# 10000 idle connections on each side, plus the spectators of (e)
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" -lt 12000 ]; then
	echo "vs-redis.sh: ulimit -n is $(ulimit -n); (d) and (e) need 12000" >&2
	exit 2
fi

ncpu=$(nproc)
if [ "$ncpu" -ge 3 ]; then
	cpu_hokitod=0 cpu_redis=1 cpu_load=2
elif [ "$ncpu" -eq 2 ]; then
	cpu_hokitod=0 cpu_redis=0 cpu_load=1
else
	cpu_hokitod="" cpu_redis="" cpu_load=""
fi
tmp=$(mktemp -d /tmp/vs-redis.XXXXXX)
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

# hokitod keeps its games in a store file (where it has --db): measure the in-memory server unless
# a run asks for --db (the last --db given wins)
hk_db=()
if "$hokitod" --help | grep -q -- '--db'; then
	hk_db=(--db :memory:)
fi

# every loadgen connection comes from 127.0.0.1: the per-address limits would measure
# themselves, not the server
if { "$hokitod" --help; "$hokitod" --help limits; } 2>/dev/null | grep -q -- '--max-rate-per-addr'; then
	hk_db+=(--max-conns-per-addr 0 --max-rate-per-addr 0 --max-creates-per-addr 0
		--max-games-per-addr 0 --max-lookup-failures 0)
fi
if { "$hokitod" --help; "$hokitod" --help limits; } 2>/dev/null | grep -q -- '--max-sessions-per-addr'; then
	hk_db+=(--max-sessions-per-addr 0)
fi

# start_hokitod [flags...]: sets hk_pid, hk_port
start_hokitod() {
	rm -f "$tmp/hk.port"
	(pin "$cpu_hokitod" "$hokitod" --listen 127.0.0.1:0 --port-file "$tmp/hk.port" \
		--log-level warn --max-clients 30000 --max-games 20000 "${hk_db[@]}" "$@" \
		2>>"$tmp/hokitod.log" \
		</dev/null >/dev/null) &
	hk_pid=$!
	pids+=("$hk_pid")
	for _ in $(seq 100); do
		[ -s "$tmp/hk.port" ] && break
		sleep 0.05
	done
	hk_port=$(cat "$tmp/hk.port")
}

# start_redis NAME [flags...]: sets rd_pid, rd_port
start_redis() {
	local name=$1
	shift
	mkdir -p "$tmp/$name"
	rd_port=$(free_port)
	(pin "$cpu_redis" redis-server --port "$rd_port" --bind 127.0.0.1 --dir "$tmp/$name" \
		--logfile "$tmp/$name/log" --maxclients 30000 --save '' "$@" </dev/null >/dev/null) &
	rd_pid=$!
	pids+=("$rd_pid")
	for _ in $(seq 100); do
		redis-cli -p "$rd_port" ping >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "vs-redis.sh: redis-server did not start (see $tmp/$name/log)" >&2
	cat "$tmp/$name/log" >&2
	exit 1
}

echo "vs-redis: $runs runs of ${secs}s; $(redis-server --version | cut -d' ' -f1-3);" \
	"hokitod $("$hokitod" --version | cut -d' ' -f2); $ncpu cores; servers on" \
	"${cpu_hokitod:-any}/${cpu_redis:-any}, loadgen on ${cpu_load:-any}; load $(cut -d' ' -f1-3 /proc/loadavg)"

start_hokitod
start_redis plain --appendonly no
echo "hokitod pid $hk_pid port $hk_port; redis pid $rd_pid port $rd_port"

for run in $(seq "$runs"); do
	echo "run $run"
	case $only in *a*)
		lg a-hokitod hokito --port "$hk_port" --conns 50 --seconds "$secs" --pid "$hk_pid" --seed "$run"
		lg a-redis redis-ping --port "$rd_port" --conns 50 --seconds "$secs" --pid "$rd_pid"
		lg a-relay redis-relay --port "$rd_port" --conns 50 --seconds "$secs" --pid "$rd_pid" \
			--payload 270
		;;
	esac
	case $only in *b*)
		lg b-hokitod hokito --port "$hk_port" --conns 2 --seconds "$secs" --pid "$hk_pid" --seed "$run"
		lg b-redis redis-ping --port "$rd_port" --conns 1 --seconds "$secs" --pid "$rd_pid"
		;;
	esac
	case $only in *c*)
		lg c-hokitod spectate --port "$hk_port" --games 1 --spectators 1000 --seconds "$secs" \
			--pid "$hk_pid" --seed "$run"
		lg c-redis redis-pubsub --port "$rd_port" --subscribers 1000 --seconds "$secs" \
			--pid "$rd_pid" --payload 270
		;;
	esac
	case $only in *e*)
		lg e-hokitod hokito --port "$hk_port" --conns 10000 --spectators 1000 --seconds "$secs" \
			--pid "$hk_pid" --seed "$run" --burst 128
		lg e-redis redis-ping --port "$rd_port" --conns 11000 --seconds "$secs" --pid "$rd_pid" \
			--burst 128
		lg e-relay redis-relay --port "$rd_port" --conns 10000 --seconds "$secs" --pid "$rd_pid" \
			--burst 128 --payload 270
		;;
	esac
done
stop_pid "$hk_pid"
stop_pid "$rd_pid"

case $only in *d*)
	# fresh servers for each run, so that growth is the connections' alone
	for run in $(seq "$runs"); do
		echo "run $run (d)"
		start_hokitod
		sleep 0.3
		lg d-hokitod idle --port "$hk_port" --conns 10000 --seconds 2 --pid "$hk_pid" --burst 128
		stop_pid "$hk_pid"
		start_redis "idle$run" --appendonly no
		sleep 0.3
		lg d-redis redis-idle --port "$rd_port" --conns 10000 --seconds 2 --pid "$rd_pid" --burst 128
		stop_pid "$rd_pid"
	done
	;;
esac

durable=""
case $only in *f*)
	if "$hokitod" --help | grep -q -- '--db'; then
		durable=yes
		start_redis aof --appendonly yes --appendfsync always
		start_hokitod --db "$tmp/bench.db" --fsync always
		for run in $(seq "$runs"); do
			echo "run $run (f)"
			lg f-hokitod hokito --port "$hk_port" --conns 50 --seconds "$secs" --pid "$hk_pid" --seed "$run"
			lg f-redis redis-set --port "$rd_port" --conns 50 --seconds "$secs" --pid "$rd_pid"
			lg f-redis25 redis-set --port "$rd_port" --conns 25 --seconds "$secs" --pid "$rd_pid"
		done
		stop_pid "$hk_pid"
		stop_pid "$rd_pid"
		# the same store without an fsync per commit: what the disk wait costs
		start_hokitod --db "$tmp/bench-normal.db" --fsync normal
		for run in $(seq "$runs"); do
			echo "run $run (f, --fsync normal)"
			lg f-normal hokito --port "$hk_port" --conns 50 --seconds "$secs" --pid "$hk_pid" --seed "$run"
		done
		stop_pid "$hk_pid"
	else
		echo "(f) pending: this hokitod has no --db flag (the store has not landed in hokitod.c)"
	fi
	;;
esac

echo
echo "medians of $runs runs (ratio = hokitod / Redis unless said otherwise):"
if [[ $only == *a* ]]; then
	h=$(med a-hokitod moves_per_s) r=$(med a-redis req_per_s)
	echo "(a) 50 conns: hokitod $h moves/s (25 games), Redis PING_INLINE $r req/s;" \
		"ratio $(ratio "$h" "$r") (target >= 0.70)"
	echo "    round trip p50/p99/p99.9 us: hokitod $(med a-hokitod rtt_p50_us)/$(med a-hokitod rtt_p99_us)/$(med a-hokitod rtt_p999_us)," \
		"Redis $(med a-redis rtt_p50_us)/$(med a-redis rtt_p99_us)/$(med a-redis rtt_p999_us);" \
		"server CPU $(med a-hokitod srv_cpu) vs $(med a-redis srv_cpu), loadgen CPU $(med a-hokitod lg_cpu) vs $(med a-redis lg_cpu)"
	rl=$(med a-relay pub_per_s)
	echo "    Redis doing a move's work (redis-relay: 25 PUBLISH pairs, one request in, a reply and" \
		"a message out): $rl pub/s, $(ratio "$rl" "$r") of its PING; hokitod / that $(ratio "$h" "$rl")"
fi
if [[ $only == *b* ]]; then
	h=$(med b-hokitod rtt_p50_us) r=$(med b-redis rtt_p50_us)
	echo "(b) one pair: move round trip p50 $h us (p99 $(med b-hokitod rtt_p99_us), $(med b-hokitod moves_per_s) moves/s);" \
		"Redis one-client PING p50 $r us (p99 $(med b-redis rtt_p99_us)); ratio $(ratio "$h" "$r") (target <= 1.5)"
fi
if [[ $only == *c* ]]; then
	h=$(med c-hokitod dlv_per_s) hp=$(med c-hokitod play_dlv_per_s) r=$(med c-redis dlv_per_s)
	echo "(c) 1000 spectators: $h move events delivered/s over the whole run, $hp while a game is in play" \
		"($(med c-hokitod moves_per_s) moves/s, $(med c-hokitod games) games, in play $(med c-hokitod play_s)s of ${secs}s);" \
		"Redis $r deliveries/s ($(med c-redis pub_per_s) PUBLISH/s);" \
		"ratio $(ratio "$h" "$r") whole run, $(ratio "$hp" "$r") in play (target >= 0.50)"
	echo "    delivery latency p50/p99 us: hokitod $(med c-hokitod dlv_p50_us)/$(med c-hokitod dlv_p99_us), Redis $(med c-redis dlv_p50_us)/$(med c-redis dlv_p99_us)"
fi
if [[ $only == *d* ]]; then
	h=$(med d-hokitod per_conn_bytes) r=$(med d-redis per_conn_bytes)
	echo "(d) 10000 idle connections: hokitod $h bytes of RSS each (target <= 2048)," \
		"Redis $r bytes each; ratio $(ratio "$h" "$r") (target <= 2.0)"
fi
if [[ $only == *e* ]]; then
	h=$(med e-hokitod moves_per_s) r=$(med e-redis req_per_s) a=$(med a-hokitod moves_per_s)
	echo "(e) 5000 games + 1000 spectators (11000 conns): hokitod $h moves/s" \
		"($(med e-hokitod dlv_per_s) deliveries/s, rtt p50/p99 $(med e-hokitod rtt_p50_us)/$(med e-hokitod rtt_p99_us) us);" \
		"Redis PING 11000 conns $r req/s; ratio $(ratio "$h" "$r") (target >= 0.70);" \
		"vs hokitod at 50 conns $(ratio "$h" "$a")"
	rl=$(med e-relay pub_per_s)
	echo "    Redis doing a move's work (redis-relay, 5000 PUBLISH pairs): $rl pub/s," \
		"$(ratio "$rl" "$r") of its PING; hokitod / that $(ratio "$h" "$rl")"
fi
if [[ $only == *f* ]]; then
	if [ -n "$durable" ]; then
		h=$(med f-hokitod moves_per_s) r=$(med f-redis req_per_s)
		echo "(f) durable, 50 conns: hokitod $h moves/s, Redis SET appendfsync always $r req/s;" \
			"ratio $(ratio "$h" "$r") (target >= 1.0)"
		r25=$(med f-redis25 req_per_s)
		echo "    Redis SET at 25 connections (as many requests in flight as 25 games have moves):" \
			"$r25 req/s; hokitod / that $(ratio "$h" "$r25")"
		hn=$(med f-normal moves_per_s)
		echo "    hokitod with the same store but no fsync (--fsync normal): $hn moves/s;" \
			"/ Redis SET appendfsync always $(ratio "$hn" "$r")"
	else
		echo "(f) durable: pending (hokitod has no --db yet)"
	fi
fi
if [ -s "$tmp/loadgen.err" ]; then
	echo
	echo "loadgen said:"
	sort "$tmp/loadgen.err" | uniq -c | sort -rn | head -20
fi
