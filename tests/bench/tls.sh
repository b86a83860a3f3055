#!/usr/bin/env bash
# hokitod's TLS against Redis's own TLS on this machine, in one run, with the same client.
#
#   bash tests/bench/tls.sh [--runs N] [--seconds S] [--idle N]
#
# Builds a release tree (build-load, or $BUILD; or takes $HOKITOD and $LOADGEN), makes a test CA
# and a server certificate with the openssl command (tests/unit/tls-certs.sh: EC P-256), starts
# hokitod with --listen and --listen-tls and redis-server (Debian's 7, built with TLS) with --port
# and --tls-port, each in one process serving both, pinned like vs-redis.sh (servers on the first
# core, the load on the second), all on 127.0.0.1, and measures, alternating, --runs times
# (default 3):
#   (t1) moves/s, 50 connections (25 games), TLS and in clear; Redis PING the same, 50 connections
#        (loadgen redis-ping): the ratio TLS / clear of each (target: hokitod's >= Redis's)
#   (t2) new TLS handshakes per second: openssl s_time -new (one connection at a time, a full
#        handshake each, TLS 1.3) against each server (target: hokitod >= Redis)
#   (t3) RSS per idle TLS connection, --idle connections (default 2000) on fresh servers, in clear
#        and over TLS (loadgen idle / redis-idle; target: hokitod <= 2x Redis over TLS)
# It prints every line, then the medians and ratios. Everything is stopped on exit; about 2
# minutes with the defaults.
set -eu
cd "$(dirname "$0")/../.."

runs=3
secs=4
idle=2000
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	--idle) idle=$2; shift 2 ;;
	*) echo "usage: tls.sh [--runs N] [--seconds S] [--idle N]" >&2; exit 2 ;;
	esac
done

. tests/bench/release.sh
bench_release
command -v redis-server >/dev/null || { echo "tls.sh: needs redis-server" >&2; exit 2; }
command -v openssl >/dev/null || { echo "tls.sh: needs openssl" >&2; exit 2; }
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

ncpu=$(nproc)
cpu_srv="" cpu_load=""
[ "$ncpu" -ge 2 ] && cpu_srv=0 cpu_load=1
tmp=$(mktemp -d /tmp/tls-bench.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$tmp/certs"
bash tests/unit/tls-certs.sh --make "$tmp/certs"
cert=$tmp/certs/server.pem key=$tmp/certs/server.key ca=$tmp/certs/ca.pem

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_hokitod: sets hk_pid, hk_port (clear), hk_tls (TLS)
start_hokitod() {
	rm -f "$tmp/hk.port"
	(pin "$cpu_srv" "$hokitod" --listen 127.0.0.1:0 --listen-tls 127.0.0.1:0 --tls-cert "$cert" \
		--tls-key "$key" --port-file "$tmp/hk.port" --log-level warn --max-clients 30000 \
		"${bench_unlimited[@]}" --db :memory: 2>>"$tmp/hokitod.log" </dev/null >/dev/null) &
	hk_pid=$!
	pids+=("$hk_pid")
	for _ in $(seq 100); do
		[ -f "$tmp/hk.port" ] && [ "$(wc -l <"$tmp/hk.port")" -ge 2 ] && break
		sleep 0.05
	done
	hk_port=$(sed -n 1p "$tmp/hk.port")
	hk_tls=$(sed -n 2p "$tmp/hk.port")
}

# start_redis NAME: sets rd_pid, rd_port (clear), rd_tls (TLS)
start_redis() {
	mkdir -p "$tmp/$1"
	rd_port=$(free_port)
	rd_tls=$(free_port)
	(pin "$cpu_srv" redis-server --port "$rd_port" --tls-port "$rd_tls" --bind 127.0.0.1 \
		--tls-cert-file "$cert" --tls-key-file "$key" --tls-ca-cert-file "$ca" \
		--tls-auth-clients no --dir "$tmp/$1" --logfile "$tmp/$1/log" --maxclients 30000 \
		--save '' --appendonly no </dev/null >/dev/null) &
	rd_pid=$!
	pids+=("$rd_pid")
	for _ in $(seq 100); do
		redis-cli -p "$rd_port" ping >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "tls.sh: redis-server did not start (see $tmp/$1/log)" >&2
	cat "$tmp/$1/log" >&2
	exit 1
}

# handshakes NAME PORT: full TLS handshakes per second with openssl s_time, kept as hs_per_s=
handshakes() {
	local name=$1 port=$2 out n
	out=$(pin "$cpu_load" openssl s_time -connect "127.0.0.1:$port" -new -time "$secs" 2>&1 \
		</dev/null || true)
	# "N connections in T real seconds, ..."
	n=$(echo "$out" | awk '/connections in .* real seconds/ {printf "%.1f", $1 / $4}')
	echo "  label=$name hs_per_s=${n:-n/a}"
	echo "label=$name hs_per_s=${n:-n/a}" >>"$tmp/$name"
}

echo "tls: $runs runs of ${secs}s; $(redis-server --version | cut -d' ' -f1-3); $(openssl version);" \
	"hokitod $("$hokitod" --version | cut -d' ' -f2); $ncpu cores, servers on ${cpu_srv:-any}," \
	"load on ${cpu_load:-any}; load $(cut -d' ' -f1-3 /proc/loadavg)"
start_hokitod
start_redis plain
echo "hokitod pid $hk_pid ports $hk_port/$hk_tls (TLS); redis pid $rd_pid ports $rd_port/$rd_tls (TLS)"
for run in $(seq "$runs"); do
	echo "run $run"
	lg hk-clear hokito --port "$hk_port" --conns 50 --seconds "$secs" --pid "$hk_pid" --seed "$run"
	lg hk-tls hokito --port "$hk_tls" --tls --conns 50 --seconds "$secs" --pid "$hk_pid" --seed "$run"
	lg rd-clear redis-ping --port "$rd_port" --conns 50 --seconds "$secs" --pid "$rd_pid"
	lg rd-tls redis-ping --port "$rd_tls" --tls --conns 50 --seconds "$secs" --pid "$rd_pid"
	handshakes hs-hokitod "$hk_tls"
	handshakes hs-redis "$rd_tls"
done
stop_pid "$hk_pid"
stop_pid "$rd_pid"
for run in $(seq "$runs"); do
	echo "run $run (idle, fresh servers)"
	for mode in clear tls; do
		start_hokitod
		sleep 0.3
		if [ $mode = tls ]; then
			lg idle-hk-$mode idle --port "$hk_tls" --tls --conns "$idle" --seconds 2 --pid "$hk_pid" --burst 128
		else
			lg idle-hk-$mode idle --port "$hk_port" --conns "$idle" --seconds 2 --pid "$hk_pid" --burst 128
		fi
		stop_pid "$hk_pid"
		start_redis "idle-$run-$mode"
		sleep 0.3
		if [ $mode = tls ]; then
			lg idle-rd-$mode redis-idle --port "$rd_tls" --tls --conns "$idle" --seconds 2 --pid "$rd_pid" --burst 128
		else
			lg idle-rd-$mode redis-idle --port "$rd_port" --conns "$idle" --seconds 2 --pid "$rd_pid" --burst 128
		fi
		stop_pid "$rd_pid"
	done
done

echo
echo "medians of $runs runs:"
hc=$(med hk-clear moves_per_s) ht=$(med hk-tls moves_per_s)
rc=$(med rd-clear req_per_s) rt=$(med rd-tls req_per_s)
echo "(t1) 50 conns: hokitod $ht moves/s over TLS, $hc in clear: TLS/clear $(ratio "$ht" "$hc");" \
	"Redis PING $rt req/s over TLS, $rc in clear: TLS/clear $(ratio "$rt" "$rc")" \
	"(target: hokitod's >= Redis's)"
echo "     round trip p50/p99 us over TLS: hokitod $(med hk-tls rtt_p50_us)/$(med hk-tls rtt_p99_us)," \
	"Redis $(med rd-tls rtt_p50_us)/$(med rd-tls rtt_p99_us); server CPU over TLS $(med hk-tls srv_cpu) vs $(med rd-tls srv_cpu)"
hh=$(med hs-hokitod hs_per_s) rh=$(med hs-redis hs_per_s)
echo "(t2) new TLS handshakes/s (openssl s_time -new): hokitod $hh, Redis $rh; ratio $(ratio "$hh" "$rh")" \
	"(target >= 1.0)"
ih=$(med idle-hk-tls per_conn_bytes) ir=$(med idle-rd-tls per_conn_bytes)
echo "(t3) $idle idle connections, RSS each: over TLS hokitod $ih bytes, Redis $ir bytes;" \
	"ratio $(ratio "$ih" "$ir") (target <= 2.0); in clear hokitod $(med idle-hk-clear per_conn_bytes)," \
	"Redis $(med idle-rd-clear per_conn_bytes)"
if [ -s "$tmp/loadgen.err" ]; then
	echo
	echo "loadgen said:"
	sort "$tmp/loadgen.err" | uniq -c | sort -rn | head -20
fi
