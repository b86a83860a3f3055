#!/usr/bin/env bash
# The programs under valgrind (memcheck) through the integration tests.
#
#   bash tests/integration/valgrind.sh [TEST.py ...]
#
# Builds hokitod, hokito and hokito-engine in a debug tree (build-load-vg, or $BUILD; or takes
# $HOKITOD, $HOKITO and $HOKITO_ENGINE as they are), then runs integration tests (default:
# test-server.py: full HOKITO and OXONO games with a spectator, lobby, quick, private, resign,
# leave; test-server-reconnect.py: reconnection and replay; test-server-errors.py: every error
# code, the limits, the hello deadline, shutdown) with HOKITOD, HOKITO and HOKITO_ENGINE pointing
# at wrappers that run every process of those programs under memcheck, one log per process: so
# test-engine-cli.py checks the engine, test-client-plain.py the client. Each server is stopped
# with SIGTERM by the tests, so memcheck sees a normal exit and checks for leaks (a process a
# test kills with SIGKILL leaves no summary: it is counted apart, unchecked). Fails when a test
# fails, or when any log holds an invalid read or write, a use of uninitialised memory, a bad
# free, or a definite, indirect or possible leak. The logs are kept when it fails (or with
# VALGRIND_KEEP=1). hokitod links jemalloc where it is installed; memcheck's preloaded malloc
# still comes first, so every allocation is checked (the same heap counts with and without
# --soname-synonyms=somalloc=*jemalloc*: 6078 allocations at start). valgrind-ncurses.supp
# leaves out the caches ncurses keeps for the life of the process (possible leaks inside ncurses).
# Not every test suits it: test-server-store runs hokitod as another user (which cannot read the
# wrappers) and stops it at once with exit(1) on a full disk, and test-client-screen-replay
# waits for history pages and evaluations at a pace memcheck does not keep.
set -eu
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || { echo "valgrind.sh: needs valgrind" >&2; exit 2; }

build=${BUILD:-build-load-vg}
if [ -z "${HOKITOD:-}" ] || [ -z "${HOKITO:-}" ] || [ -z "${HOKITO_ENGINE:-}" ]; then
	[ -f "$build/build.ninja" ] || meson setup "$build" --buildtype=debug >/dev/null
	ninja -C "$build" server/hokitod client/hokito client/hokito-engine >/dev/null
fi
HOKITOD=${HOKITOD:-$PWD/$build/server/hokitod}
HOKITO=${HOKITO:-$PWD/$build/client/hokito}
HOKITO_ENGINE=${HOKITO_ENGINE:-$PWD/$build/client/hokito-engine}
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(test-server.py test-server-reconnect.py test-server-errors.py)

logs=$(mktemp -d /tmp/hokito-valgrind.XXXXXX)
programs=(hokitod hokito hokito-engine)
# wrap NAME BINARY: the script $logs/NAME runs BINARY under memcheck, logging to vg.NAME.PID.log
wrap() {
	printf '#!/bin/sh\nexec valgrind --tool=memcheck --leak-check=full %s %s %s %s "%s" "$@"\n' \
		"--suppressions=$PWD/tests/integration/valgrind-ncurses.supp" \
		'--show-leak-kinds=definite,indirect,possible' \
		'--errors-for-leak-kinds=definite,indirect,possible --track-origins=yes' \
		"--error-exitcode=99 --log-file=$logs/vg.$1.%p.log" "$2" >"$logs/$1"
	chmod +x "$logs/$1"
}
wrap hokitod "$HOKITOD"
wrap hokito "$HOKITO"
wrap hokito-engine "$HOKITO_ENGINE"

status=0
for t in "${tests[@]}"; do
	echo "== $t (under valgrind)"
	if ! HOKITOD=$logs/hokitod HOKITO=$logs/hokito HOKITO_ENGINE=$logs/hokito-engine \
		python3 "tests/integration/$t" >"$logs/${t%.py}.tap" 2>&1; then
		status=1
		grep -E '^not ok|^#' "$logs/${t%.py}.tap" | head -40
	fi
	echo "   $(grep -c '^ok' "$logs/${t%.py}.tap") ok, $(grep -c '^not ok' "$logs/${t%.py}.tap") not ok"
done

n=0
bad=0
killed=0
for f in "$logs"/vg.*.log; do
	[ -e "$f" ] || continue
	# a process a test killed with SIGKILL (a crash test) ends without memcheck's summary
	if ! grep -q 'ERROR SUMMARY' "$f"; then
		killed=$((killed + 1))
		continue
	fi
	n=$((n + 1))
	if ! grep -q 'ERROR SUMMARY: 0 errors' "$f" ||
		grep -qE 'definitely lost: [1-9]|indirectly lost: [1-9]|possibly lost: [1-9]' "$f"; then
		bad=$((bad + 1))
		echo "== $f"
		grep -E '==[0-9]+== (Invalid|Conditional|Use of|Mismatched|.*lost|ERROR SUMMARY|   (at|by) )' "$f" | head -60
	fi
done
for p in "${programs[@]}"; do
	k=$(find "$logs" -name "vg.$p.*.log" | wc -l)
	[ "$k" -eq 0 ] || echo "valgrind: $k $p processes"
done
echo "valgrind: $n processes checked, $bad with errors or leaks (logs in $logs)"
[ "$killed" -eq 0 ] || echo "valgrind: $killed more killed by their test (SIGKILL), not checked"
if [ "$n" -eq 0 ]; then
	echo "valgrind: no program ran under valgrind" >&2
	status=1
fi
[ "$bad" -eq 0 ] || status=1
if [ "$status" -eq 0 ] && [ -z "${VALGRIND_KEEP:-}" ]; then
	rm -rf "$logs"
fi
exit "$status"
