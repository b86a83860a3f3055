#!/usr/bin/env bash
# Quick start: install what is missing (Debian 12), build, and run the match server with its
# SQLite store (./hokito.db), listening on 127.0.0.1:7777. Ctrl-C stops it cleanly.
#
#   bash deploy/quickstart.sh [hokitod flags...]     e.g. --listen 0.0.0.0:7777
set -eu
cd "$(dirname "$0")/.."
packages=(build-essential meson ninja-build pkg-config libuv1-dev libjansson-dev
	libncurses-dev libsqlite3-dev)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -ne 0 ] && sudo=sudo
	echo "quickstart: installing ${missing[*]}"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
[ -f build/build.ninja ] || meson setup build --buildtype=release >/dev/null
meson compile -C build >/dev/null
echo "quickstart: built build/server/hokitod, build/client/hokito, build/client/hokito-engine"
echo "quickstart: connect with: build/client/hokito --name YOURNAME"
exec build/server/hokitod --db hokito.db "$@"
