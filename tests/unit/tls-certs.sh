#!/usr/bin/env bash
# The certificates of the TLS tests, made with the openssl command: a fresh test CA each run, and
# the rest signed by it. Nothing of it is committed. With a program, the certificates go to a
# temporary folder, the program runs with that folder as its argument (its output and status are
# this script's) and the folder is removed; with --make DIR they are written to DIR (which exists).
#
#   bash tests/unit/tls-certs.sh BUILD/tests/unit/test-tls     # test-tls's meson test
#   bash tests/unit/tls-certs.sh --make DIR                    # test-tls-interop.py
#
# In the folder: ca.pem (the test CA) and, each with its .key: server (localhost, 127.0.0.1, ::1),
# server2 (the same names, another key: the renewed certificate of a reload), expired (expired
# yesterday), other (names only other.example), ca2 and unknown (signed by a CA the client does not
# know), self and self2 (self-signed for localhost and 127.0.0.1).
set -eu
if [ "$1" = --make ]; then
	exe=
	dir=$2
else
	exe=$(realpath "$1")
	dir=$(mktemp -d "${TMPDIR:-/tmp}/hokito-tls.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
fi
cd "$dir"

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key" 2>/dev/null; }
local_names="subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1"

# A CA: name, then its subject.
ca() {
	key "$1"
	openssl req -x509 -new -key "$1.key" -out "$1.pem" -subj "/CN=$2" -days 30 \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
}
# A leaf signed by a CA: name, CA, days, subjectAltName.
leaf() {
	key "$1"
	openssl req -new -key "$1.key" -out "$1.csr" -subj "/CN=$1" 2>/dev/null
	printf '%s\nextendedKeyUsage=serverAuth\n' "$4" >"$1.ext"
	openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -days "$3" \
		-extfile "$1.ext" -out "$1.pem" 2>/dev/null
}
# A self-signed leaf: name.
self() {
	key "$1"
	openssl req -x509 -new -key "$1.key" -out "$1.pem" -subj "/CN=localhost" -days 30 \
		-addext "$local_names" 2>/dev/null
}

ca ca "hokito test CA"
ca ca2 "another CA"
leaf server ca 30 "$local_names"
leaf server2 ca 30 "$local_names"
leaf expired ca -1 "$local_names"
leaf other ca 30 "subjectAltName=DNS:other.example"
leaf unknown ca2 30 "$local_names"
self self
self self2
rm -f ./*.csr ./*.ext ./*.srl
[ -z "$exe" ] || "$exe" "$dir"
