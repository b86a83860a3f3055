#!/usr/bin/env bash
# Install the Debian packages named on the command line that are not installed yet (apt-get,
# with sudo when not root). Used by deploy/quickstart.sh and tests/run.sh.
#   bash deploy/install-deps.sh PACKAGE...
set -eu
missing=()
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
