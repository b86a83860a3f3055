#!/usr/bin/env python3
"""hokitod migrate's rate: a store of N finished games (default 100,000), each a copy of a game
played through the server to its end (its events too: moves that replay), copied from SQLite to
SQLite (or with --to pg to PostgreSQL) by `hokitod migrate`; prints the games a second of the
copy, the time of its check, and the sizes.

  python3 tests/bench/migrate.py [--games N] [--to sqlite|pg]

Runs $HOKITOD (default build/server/hokitod; a release build gives the figures to quote) on
stores in a temporary directory, loopback only. The copies are made with SQL straight into the
stopped server's store, as tests/bench/keep.py makes them (an account at a seat of one game in
three). With --to pg the target is the empty database of a throw-away PostgreSQL that
tests/pgtmp.py starts (on its Unix socket, fsync on) and removes at the end. Everything it
starts stops by itself; the temporary files are removed.
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
from serverlib import HOKITOD, Server  # noqa: E402
from keep import PW, copy, play  # noqa: E402
import pgtmp  # noqa: E402


def options(args):
    """(games, to) from the command line, or exit with the usage."""
    games, to = 100000, "sqlite"
    while args:
        if args[0] == "--games" and len(args) > 1 and args[1].isdigit():
            games = int(args[1])
        elif args[0] == "--to" and len(args) > 1 and args[1] in ("sqlite", "pg"):
            to = args[1]
        else:
            sys.exit(__doc__)
        args = args[2:]
    return games, to


def main():
    games, to = options(sys.argv[1:])
    tmp = tempfile.mkdtemp(prefix="migrate-bench-")
    pg = None
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
        if to == "pg":
            pg = pgtmp.TempPostgres()
            pg.start()
            target = pg.uri
        t0 = time.time()
        r = subprocess.run([HOKITOD, "migrate", "--from", src, "--to", target],
                           capture_output=True, text=True, timeout=3600)
        took = time.time() - t0
        if r.returncode != 0:
            sys.exit("migrate failed (%d): %s" % (r.returncode, r.stderr))
        m = re.search(r"copied in ([0-9.]+) s \(([0-9]+) games/s\) and checked in ([0-9.]+) s",
                      r.stdout)
        if pg is not None:
            size = int(pg.psql("SELECT pg_database_size('%s')" % pgtmp.USER)[0][0])
        else:
            size = os.path.getsize(target)
        print("migrate to %s: %s games/s (the copy: %s s; its check: %s s; %.1f s in all); "
              "target %d MiB" % ("PostgreSQL" if pg else "SQLite", m.group(2), m.group(1),
                                 m.group(3), took, size >> 20), flush=True)
    finally:
        if pg is not None:
            pg.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
