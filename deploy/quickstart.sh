#!/usr/bin/env bash
# Quick start: install what is missing (Debian 12), build, and run the match server with its
# SQLite store (./hokito.db), listening on 127.0.0.1:7777. Ctrl-C stops it cleanly.
#
#   bash deploy/quickstart.sh [hokitod flags...]     e.g. --listen 0.0.0.0:7777
set -eu
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh build-essential meson ninja-build pkg-config libuv1-dev \
	libjansson-dev libncurses-dev libsqlite3-dev libjemalloc-dev libicu-dev libsodium-dev libssl-dev \
	libwebsockets-dev libwebsockets-evlib-uv
[ -f build/build.ninja ] || meson setup build --buildtype=release >/dev/null
meson compile -C build >/dev/null
echo "quickstart: built build/server/hokitod, build/client/hokito, build/client/hokito-engine"
echo "quickstart: connect with: build/client/hokito --name YOURNAME"
exec build/server/hokitod --db hokito.db "$@"
