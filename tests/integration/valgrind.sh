#!/usr/bin/env bash
# hokitod under valgrind (memcheck) through the server's integration tests.
#
#   bash tests/integration/valgrind.sh [TEST.py ...]
#
# Builds hokitod in a debug tree (build-load-vg, or $BUILD; or takes $HOKITOD as it is), then runs
# the server's integration tests (default: test-server.py: full HOKITO and OXONO games with a
# spectator, lobby, quick, private, resign, leave; test-server-reconnect.py: reconnection and
# replay; test-server-errors.py: every error code, the limits, the hello deadline, shutdown) with
# HOKITOD pointing at a wrapper that runs every hokitod they start under memcheck, one log per
# process. Each server is stopped with SIGTERM by the tests, so memcheck sees a normal exit and
# checks for leaks. Fails when a test fails, or when any log holds an invalid read or write, a
# use of uninitialised memory, a bad free, or a definite, indirect or possible leak. The logs are
# kept when it fails (or with VALGRIND_KEEP=1). hokitod links jemalloc where it is installed;
# memcheck's preloaded malloc still comes first, so every allocation is checked (the same heap
# counts with and without --soname-synonyms=somalloc=*jemalloc*: 6078 allocations at start).
set -eu
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || { echo "valgrind.sh: needs valgrind" >&2; exit 2; }

if [ -z "${HOKITOD:-}" ]; then
	build=${BUILD:-build-load-vg}
	[ -f "$build/build.ninja" ] || meson setup "$build" --buildtype=debug >/dev/null
	ninja -C "$build" server/hokitod >/dev/null
	HOKITOD=$PWD/$build/server/hokitod
fi
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(test-server.py test-server-reconnect.py test-server-errors.py)

logs=$(mktemp -d /tmp/hokitod-valgrind.XXXXXX)
wrapper=$logs/hokitod
cat >"$wrapper" <<EOF
#!/bin/sh
exec valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect,possible \\
	--errors-for-leak-kinds=definite,indirect,possible --track-origins=yes \\
	--error-exitcode=99 --log-file="$logs/vg.%p.log" "$HOKITOD" "\$@"
EOF
chmod +x "$wrapper"

status=0
for t in "${tests[@]}"; do
	echo "== $t (hokitod under valgrind)"
	if ! HOKITOD=$wrapper python3 "tests/integration/$t" >"$logs/${t%.py}.tap" 2>&1; then
		status=1
		grep -E '^not ok|^#' "$logs/${t%.py}.tap" | head -40
	fi
	echo "   $(grep -c '^ok' "$logs/${t%.py}.tap") ok, $(grep -c '^not ok' "$logs/${t%.py}.tap") not ok"
done

n=0
bad=0
for f in "$logs"/vg.*.log; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	if ! grep -q 'ERROR SUMMARY: 0 errors' "$f" ||
		grep -qE 'definitely lost: [1-9]|indirectly lost: [1-9]|possibly lost: [1-9]' "$f"; then
		bad=$((bad + 1))
		echo "== $f"
		grep -E '==[0-9]+== (Invalid|Conditional|Use of|Mismatched|.*lost|ERROR SUMMARY|   (at|by) )' "$f" | head -60
	fi
done
echo "valgrind: $n hokitod processes checked, $bad with errors or leaks (logs in $logs)"
if [ "$n" -eq 0 ]; then
	echo "valgrind: no hokitod ran under valgrind" >&2
	status=1
fi
[ "$bad" -eq 0 ] || status=1
if [ "$status" -eq 0 ] && [ -z "${VALGRIND_KEEP:-}" ]; then
	rm -rf "$logs"
fi
exit "$status"
