#!/usr/bin/env bash
# Quick start: install what is missing (Debian 12), build, and run the match server with its
# SQLite store (./hokito.db), listening on 127.0.0.1:7777. Ctrl-C stops it cleanly.
#
#   bash deploy/quickstart.sh [hokitod flags...]     e.g. --listen 0.0.0.0:7777
set -eu
args=()
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh build-essential meson ninja-build pkg-config libuv1-dev \
	libjansson-dev libncurses-dev libsqlite3-dev libjemalloc-dev libicu-dev libsodium-dev libssl-dev \
	libwebsockets-dev libwebsockets-evlib-uv
[ -f build/build.ninja ] || meson setup build --buildtype=release >/dev/null
meson compile -C build >/dev/null
echo "quickstart: built build/server/hokitod, build/client/hokito, build/client/hokito-engine"
# The connect hint names the address hokitod will listen on (--listen, --listen-tls, or their
# environment variables), as hokito's --host takes it; an address that is everywhere (0.0.0.0,
# [::]) is reached here on the loopback.
listen=${HOKITOD_LISTEN-127.0.0.1:7777} listen_tls=${HOKITOD_LISTEN_TLS-}
while [ $# -gt 0 ]; do
	case $1 in
	--listen=*) listen=${1#*=} ;;
	--listen-tls=*) listen_tls=${1#*=} ;;
	--listen | --listen-tls) [ $# -gt 1 ] && { [ "$1" = --listen ] && listen=$2 || listen_tls=$2; } ;;
	esac
	args+=("$1")
	shift
done
set -- "${args[@]+"${args[@]}"}"
hint() { # $1: the listen address, $2: the scheme ("", or hokitos:// for TLS)
	local host=${1%:*} port=${1##*:}
	case $host in 0.0.0.0) host=127.0.0.1 ;; "[::]") host="[::1]" ;; esac
	if [ "$port" = 0 ]; then
		echo "quickstart: connect with: build/client/hokito --host $2$host:PORT --name YOURNAME" \
			"(PORT: the one hokitod logs as listening)"
	elif [ "$2$host:$port" = "127.0.0.1:7777" ]; then
		echo "quickstart: connect with: build/client/hokito --name YOURNAME"
	else
		echo "quickstart: connect with: build/client/hokito --host $2$host:$port --name YOURNAME"
	fi
}
if [ -n "$listen" ]; then hint "$listen" ""; fi
if [ -n "$listen_tls" ]; then hint "$listen_tls" hokitos://; fi
exec build/server/hokitod --db hokito.db "$@"
