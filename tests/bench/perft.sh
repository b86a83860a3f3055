#!/usr/bin/env bash
# Perft speed of HOKITO and OXONO against Stockfish's chess perft, on this machine, in one run.
#
#   bash tests/bench/perft.sh
#
# Builds a release tree (build-bench), runs bench-perft (median of three rounds, clock around the
# perft calls only), then Stockfish `go perft 6` from the chess start position three times. The
# Stockfish time is the whole process minus its start-up, measured with `go perft 1` three times;
# medians of each. Prints both speeds and the ratios. Needs the Debian package stockfish.
set -eu
cd "$(dirname "$0")/../.."
sf=$(command -v stockfish || echo /usr/games/stockfish)
if [ ! -x "$sf" ]; then
	echo "perft.sh: stockfish not found (apt-get install stockfish)" >&2
	exit 2
fi
[ -f build-bench/build.ninja ] || meson setup build-bench --buildtype=release >/dev/null
ninja -C build-bench tests/bench/bench-perft >/dev/null

out=$(build-bench/tests/bench/bench-perft)
echo "$out"
hk=$(echo "$out" | awk '/^hokito/ {print $(NF-1)}')
ox=$(echo "$out" | awk '/^oxono/ {print $(NF-1)}')

sf_run() { # depth -> "seconds nodes"
	local t0 t1 nodes
	t0=$(date +%s.%N)
	nodes=$(printf 'position startpos\ngo perft %s\nquit\n' "$1" | "$sf" |
		awk '/Nodes searched/ {print $3}')
	t1=$(date +%s.%N)
	echo "$(echo "$t1 - $t0" | bc -l) $nodes"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

startup=$(for i in 1 2 3; do sf_run 1 | cut -d' ' -f1; done | median)
nodes=$(sf_run 1 >/dev/null; sf_run 6 | cut -d' ' -f2)
full=$(for i in 1 2 3; do sf_run 6 | cut -d' ' -f1; done | median)
sfs=$(echo "$nodes / ($full - $startup)" | bc -l)
printf 'stockfish perft 6: %s nodes, median %.0f nodes/s (start-up %.3fs removed)\n' \
	"$nodes" "$sfs" "$startup"
printf 'ratio hokito/stockfish: %.2f\n' "$(echo "$hk / $sfs" | bc -l)"
printf 'ratio oxono/stockfish: %.2f\n' "$(echo "$ox / $sfs" | bc -l)"
