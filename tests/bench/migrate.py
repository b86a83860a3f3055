#!/usr/bin/env python3
"""hokitod migrate's rate: a store of N finished games (default 100,000), each a copy of a game
played through the server to its end (its events too: moves that replay), copied from SQLite to
SQLite by `hokitod migrate`; prints the games a second of the copy, the time of its check, and
the sizes.

  python3 tests/bench/migrate.py [--games N]

Runs $HOKITOD (default build/server/hokitod; a release build gives the figures to quote) on
stores in a temporary directory, loopback only. The copies are made with SQL straight into the
stopped server's store, as tests/bench/keep.py makes them (an account at a seat of one game in
three). Everything it starts stops by itself; the temporary files are removed.
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import HOKITOD, Server  # noqa: E402
from keep import PW, copy, play  # noqa: E402


def main():
    games = 100000
    args = sys.argv[1:]
    if args[:1] == ["--games"] and len(args) == 2 and args[1].isdigit():
        games = int(args[1])
    elif args:
        sys.exit(__doc__)
    tmp = tempfile.mkdtemp(prefix="migrate-bench-")
    try:
        src = os.path.join(tmp, "source.db")
        srv = Server(db=src)
        c = srv.connect()
        r, _ = c.request({"type": "register", "name": "Benchy", "password": PW})
        assert r["type"] == "welcome", r
        g = play(c, srv.connect("guest1"), True)
        assert srv.stop() == 0
        t0 = time.time()
        copy(src, g, games - 1, "m", account_every=3)
        con = sqlite3.connect(src)
        events = con.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        con.close()
        print("source: %d games, %d events (%d MiB), filled in %.1f s" %
              (games, events, os.path.getsize(src) >> 20, time.time() - t0), flush=True)
        target = os.path.join(tmp, "target.db")
        t0 = time.time()
        r = subprocess.run([HOKITOD, "migrate", "--from", src, "--to", target],
                           capture_output=True, text=True, timeout=3600)
        took = time.time() - t0
        if r.returncode != 0:
            sys.exit("migrate failed (%d): %s" % (r.returncode, r.stderr))
        m = re.search(r"copied in ([0-9.]+) s \(([0-9]+) games/s\) and checked in ([0-9.]+) s",
                      r.stdout)
        print("migrate: %s games/s (the copy: %s s; its check: %s s; %.1f s in all); "
              "target %d MiB" % (m.group(2), m.group(1), m.group(3), took,
                                 os.path.getsize(target) >> 20), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
