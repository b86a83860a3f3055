#!/usr/bin/env bash
# The one test command: installs what is missing (Debian 12), builds a normal and a sanitizer
# (address,undefined) build with warnings as errors, runs every test suite in both, and ends with
# the line "N passed, N failed". Exit status 0 only when nothing failed.
#
#   bash tests/run.sh            # from the top of a clone; .ci/run calls exactly this
#
# Environment: HOKITO_SKIP_APT=1 skips the package step (machines that already have everything).
set -u
cd "$(dirname "$0")/.."

packages=(build-essential meson ninja-build pkg-config python3 libuv1-dev libjansson-dev
	libncurses-dev libsqlite3-dev libjemalloc-dev libssl-dev openssl tmux clang
	libclang-rt-14-dev libicu-dev libsodium-dev libwebsockets-dev libwebsockets-evlib-uv
	prometheus chromium chromium-driver python3-selenium postgresql-15 libpq-dev)

if [ "${HOKITO_SKIP_APT:-0}" != 1 ]; then
	bash deploy/install-deps.sh "${packages[@]}" || exit 1
fi

# Sanitizer reports fail the test that caused them instead of scrolling by.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0

status=0
run_build() {
	local dir=$1
	shift
	echo "== build $dir"
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" --werror "$@" >"$dir.setup.log" 2>&1 ||
			{ cat "$dir.setup.log"; return 1; }
	fi
	meson compile -C "$dir" >"$dir.compile.log" 2>&1 || { cat "$dir.compile.log"; return 1; }
	echo "== test $dir"
	meson test -C "$dir" --no-rebuild --print-errorlogs --suite unit --suite integration \
		--suite fuzz --num-processes 2 || status=1
}

# A second compiler: everything built with clang (warnings as errors), and the fuzz targets as
# libFuzzer binaries, each run for a short while.
run_fuzz() {
	local dir=build-fuzz
	echo "== build $dir"
	if [ ! -f "$dir/build.ninja" ]; then
		CC=clang meson setup "$dir" --werror -Dfuzz=true -Db_sanitize=address,undefined \
			-Db_lundef=false >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; return 1; }
	fi
	ninja -C "$dir" >"$dir.compile.log" 2>&1 || { cat "$dir.compile.log"; return 1; }
	echo "== fuzz $dir"
	meson test -C "$dir" --no-rebuild --print-errorlogs --suite fuzz || status=1
}

run_build build || status=1
run_build build-asan -Db_sanitize=address,undefined -Db_lundef=false || status=1
run_fuzz || status=1

python3 tests/summary.py build build-asan build-fuzz || status=1
exit $status
