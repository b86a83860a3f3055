#!/usr/bin/env bash
# This tree against an earlier commit, in one run on this machine: perft speed and hokitod's
# moves/s and round trips, so that a change of structure can show it cost nothing.
#
#   bash tests/bench/before-after.sh [--rounds N] [--only a,b,c] REV
#
# REV is any commit (say, the one before a refactor). It is checked out into a temporary worktree
# and built as a release tree beside this tree's own release build (build-load). Each round then
# runs, alternating old and new:
#   - bench-perft (the figures of tests/bench/perft.sh: HOKITO and OXONO leaves/s, median of 3);
#   - tests/bench/vs-redis.sh --runs 1 --only LIST (default a,b,c) with HOKITOD set to each build
#     (and the same loadgen, this tree's, for both).
# It ends with the median of the rounds for each figure and the ratio new / old (above 1 is
# faster for rates; below 1 is better for round trips). The *_vs_redis figures are hokitod's rate
# divided by Redis's in the same run of vs-redis.sh: on a machine that is not quiet they move far
# less than the rates themselves. Nothing here is a pass/fail test.
# Everything runs on 127.0.0.1; the worktree is removed on exit. Needs redis-server.
set -eu
cd "$(dirname "$0")/../.."

rounds=3
only=a,b,c
while [ $# -gt 1 ]; do
	case "$1" in
	--rounds) rounds=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	*) break ;;
	esac
done
if [ $# -ne 1 ] || ! git rev-parse -q --verify "$1^{commit}" >/dev/null; then
	echo "usage: before-after.sh [--rounds N] [--only a,b,c] REV" >&2
	exit 2
fi
rev=$(git rev-parse --short "$1^{commit}")

tmp=$(mktemp -d)
old=$tmp/old
cleanup() {
	git worktree remove --force "$old" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "before-after: $rev (old) against $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo '+changes') (new), $rounds rounds"
git worktree add -q --detach "$old" "$rev"
(cd "$old" && meson setup build-rel --buildtype=release >/dev/null &&
	ninja -C build-rel server/hokitod tests/bench/bench-perft >/dev/null)
[ -f build-load/build.ninja ] || meson setup build-load --buildtype=release >/dev/null
ninja -C build-load server/hokitod tests/bench/loadgen tests/bench/bench-perft >/dev/null

declare -A bin=([old]=$old/build-rel [new]=$PWD/build-load)
: >"$tmp/figures"
for round in $(seq 1 "$rounds"); do
	for side in old new; do
		echo "round $round $side"
		out=$("${bin[$side]}/tests/bench/bench-perft")
		echo "$out" | sed 's/^/  /'
		echo "$out" | awk -v s="$side" '/^hokito/ {print s, "perft_hokito", $(NF-1)}
			/^oxono/ {print s, "perft_oxono", $(NF-1)}' >>"$tmp/figures"
		out=$(HOKITOD=${bin[$side]}/server/hokitod LOADGEN=$PWD/build-load/tests/bench/loadgen \
			bash tests/bench/vs-redis.sh --runs 1 --only "$only" 2>&1)
		# The medians block of vs-redis.sh, one figure a line.
		echo "$out" | sed -n '/^medians of/,/^loadgen said/p' | sed 's/^/  /'
		echo "$out" | awk -v s="$side" '
			/^\(a\) 50 conns: hokitod/ {print s, "a_moves_per_s", $5
				for (i = 1; i < NF; i++) if ($i == "ratio") print s, "a_vs_redis_ping", $(i + 1)}
			/^\(b\) one pair: move round trip p50/ {print s, "b_rtt_p50_us", $8}
			/^\(c\) 1000 spectators:/ {print s, "c_delivered_per_s", $4
				for (i = 1; i < NF; i++) if ($i == "ratio") {print s, "c_vs_redis_pub", $(i + 1); break}}' >>"$tmp/figures"
	done
done

median() { # side figure
	awk -v s="$1" -v f="$2" '$1 == s && $2 == f {print $3}' "$tmp/figures" | sort -g |
		awk '{v[NR] = $1} END {if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2];
			else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
echo
echo "medians of $rounds rounds (ratio = new / old):"
for f in perft_hokito perft_oxono a_moves_per_s a_vs_redis_ping b_rtt_p50_us c_delivered_per_s \
	c_vs_redis_pub; do
	o=$(median old $f)
	n=$(median new $f)
	r=$(awk -v a="$n" -v b="$o" 'BEGIN {if (a == "n/a" || b == "n/a" || b + 0 == 0) print "n/a";
		else printf "%.3f", a / b}')
	printf '%-20s old %14s  new %14s  ratio %s\n' "$f" "$o" "$n" "$r"
done
