#!/usr/bin/env bash
# The login storm: 50 honest players playing on a release build of hokitod while
# 100 password logins a second arrive (tests/bench/logins.py says how each figure is measured).
#
#   bash tests/bench/logins.sh [--seconds S] [--rounds R] [--rate N] [--storm-addrs N]
#                              [--wrong F] [--accounts N] [--server-args "FLAGS"] [--single N]
#
# Builds a release tree (build-load, or $BUILD; or takes the programs from $HOKITOD and
# $LOADGEN). Prints, per round, the honest players' moves/s and move round trips, the longest
# ping round trip on an idle connection (the event loop's stall) quiet and during the storm, and
# the logins' outcomes (accepted, wrong_password, login_throttled, rate_limited...); then the
# medians and ratios (ratio: of the medians; ratios: the median of the rounds' own). Everything
# runs on loopback addresses, every loop is bounded, and everything is stopped on exit (about
# 25 s a round at the defaults).
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/release.sh
bench_release
exec python3 tests/bench/logins.py --hokitod "$hokitod" --loadgen "$loadgen" "$@"
