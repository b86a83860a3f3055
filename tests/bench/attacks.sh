#!/usr/bin/env bash
# The attacks of attacks.py against a release build of hokitod, each from one address beside 50
# honest players on addresses of their own (tests/bench/attacks.py says how each is measured).
#
#   bash tests/bench/attacks.sh [--seconds S] [--rounds R] [--only 1,2,...] [--server-args "FLAGS"]
#
# Builds a release tree (build-load, or $BUILD; or takes the programs from $HOKITOD and
# $LOADGEN). Prints, per attack and round (R quiet and attacked runs in turn, default 3), the
# honest players' moves/s, p50 and p99 under attack against quiet, the attacker's CPU, the
# server's RSS, whether it stayed up, whether its limits held, and what the attack did; then one
# table of them all with the medians of the rounds' ratios. Attack 10 mounts a small tmpfs and
# needs root. Everything runs on loopback addresses, every loop is bounded, and everything is
# stopped on exit (about 8 minutes at 3 rounds of 5 s). Figures: tests/bench/ATTACKS.md.
# The honest players are programs that play as fast as the server answers: hokitod's per-address
# limits are made for people and slow them down too (quiet and attacked alike); --server-args
# '--max-rate-per-addr 1000 --max-creates-per-addr 2000' lets them through.
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/release.sh
bench_release
exec python3 tests/bench/attacks.py --hokitod "$hokitod" --loadgen "$loadgen" "$@"
