#!/usr/bin/env bash
# The hostile-client benchmark: tests/integration/test-hostile.py on a release build of hokitod,
# with its throughput figure held to the target (HOSTILE_STRICT=1): while 1000 to 3000
# silent or one-byte-a-second connections, 100 spectators that never read, a flood of garbage and
# over-long lines and a client opening connections in a loop attack the server, a legitimate pair
# of players keeps at least 90% of its unloaded moves per second. It prints TAP with the figures
# (lines starting "# ") and exits non-zero when a check or the target fails.
#
#   bash tests/bench/hostile.sh [--runs N]
#
# Builds a release tree (build-load, or $BUILD; or takes the server from $HOKITOD). Run it on a
# quiet machine: another program on the same cores decides the ratio, not the server. Everything
# runs on 127.0.0.1 and stops by itself (about 45 s a run).
set -eu
cd "$(dirname "$0")/../.."

runs=1
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	*) echo "usage: hostile.sh [--runs N]" >&2; exit 2 ;;
	esac
done

. tests/bench/release.sh
bench_release

status=0
for run in $(seq "$runs"); do
	echo "hostile run $run of $runs; load $(cut -d' ' -f1-3 /proc/loadavg)"
	HOSTILE_STRICT=1 HOKITOD="$hokitod" python3 tests/integration/test-hostile.py || status=1
done
exit $status
