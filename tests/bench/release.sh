# Sourced by the benchmark scripts (from the top of the tree): the programs they measure.
# bench_release builds a release tree (build-load, or $BUILD) unless $HOKITOD and $LOADGEN name the
# programs already, then sets hokitod and loadgen to their paths.
bench_release() {
	local build=${BUILD:-build-load}
	if [ -z "${HOKITOD:-}" ] || [ -z "${LOADGEN:-}" ]; then
		[ -f "$build/build.ninja" ] || meson setup "$build" --buildtype=release >/dev/null
		ninja -C "$build" server/hokitod tests/bench/loadgen >/dev/null
	fi
	hokitod=${HOKITOD:-$PWD/$build/server/hokitod}
	loadgen=${LOADGEN:-$PWD/$build/tests/bench/loadgen}
}
