#!/usr/bin/env bash
# Run one libFuzzer target for a while on a scratch copy of its corpus, as a TAP test.
#   libfuzzer.sh BINARY SEED_CORPUS_DIR SECONDS
# New inputs go to a temporary directory (the committed corpus is only read). A crash leaves its
# input in the build directory (crash-*) and fails the test; copy it to tests/data/fuzz/TARGET/
# once fixed, so the suite replays it forever.
set -u
bin=$1 seeds=$2 seconds=${3:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
name=$(basename "$bin")
if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$(pwd)/$name-" "$work" "$seeds" >"$work.log" 2>&1; then
	runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work.log" | grep -o '[0-9]*$')
	echo "ok 1 - $name: ${runs:-?} executions in ${seconds}s, no crash"
	rm -f "$work.log"
else
	echo "not ok 1 - $name crashed"
	sed 's/^/# /' "$work.log" | tail -40
	rm -f "$work.log"
	echo "1..1"
	exit 1
fi
echo "1..1"
