#!/usr/bin/env bash
# The ten attacks of issue 23 against a release build of hokitod, each from one address beside 50
# honest players on addresses of their own (tests/bench/attacks.py says how each is measured).
#
#   bash tests/bench/attacks.sh [--seconds S] [--only 1,2,...] [--server-args "FLAGS"]
#
# Builds a release tree (build-load, or $BUILD; or takes the programs from $HOKITOD and
# $LOADGEN). Prints, per attack, the honest players' moves/s and p99 under attack against quiet,
# the server's RSS, whether it stayed up, whether its limits held, and what the attack did; then
# one table of all ten. Attack 10 mounts a small tmpfs and needs root. Everything runs on
# loopback addresses, every loop is bounded, and everything is stopped on exit (about 5 minutes).
# The honest players are programs that play as fast as the server answers: hokitod's per-address
# limits are made for people and slow them down too (quiet and attacked alike); --server-args
# '--max-rate-per-addr 1000 --max-creates-per-addr 2000' lets them through.
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/release.sh
bench_release
exec python3 tests/bench/attacks.py --hokitod "$hokitod" --loadgen "$loadgen" "$@"
