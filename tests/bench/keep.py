#!/usr/bin/env python3
"""What the store keeps, measured: how big it grows per game and per move, how fast
history pages by player and with one's own private games answer on a large store, and how long a
--keep-days batch holds the event loop.

  python3 tests/bench/keep.py [--games N] [--samples S] [--short]

Runs $HOKITOD (default build/server/hokitod; a release build gives the figures to quote) on stores
in a temporary directory, loopback only. It plays two games through the server (g1: an account,
"Benchy", against a guest, two moves, a resignation; g2: two guests to the end of the game), then
copies them with SQL, as tests/bench/archive.py does:
  (a) growth: 20,000 copies of g1 into one store and of g2 into another (VACUUMed): bytes a game
      (g1: 6 events) and a move (the difference over g2's extra moves);
  (b) history: N games (default 200,000) copied from g2 (with --short from g1: a store of a
      million games in some 1.7 GB), Benchy's in one of three (private in one of ten of those),
      ended long ago; S requests (default 300) each of: Benchy's history
      (public games and its private ones), history by player Benchy (Benchy asking, then a guest),
      walked by cursor; p50, p99, max in ms;
  (c) --keep-days: the same store restarted with --keep-days 1: the loop time of each batch of 50
      games without an account (from hokitod's log lines), for 10 batches, and the time their
      commits held the loop (durable's timings, logged at the stop).
Everything it starts stops by itself; the temporary files are removed.
"""
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from serverlib import Server  # noqa: E402

PW = "correct horse battery"
DAY_MS = 86400000
COLS = ("kind, variant, seed, private, code, status, seat0_id, seat0_name, seat1_id, seat1_name, "
        "result, winner, reason, score0, score1, clock, seat0_account, seat1_account")


def figures(name, ms):
    ms = sorted(ms)
    pick = lambda q: ms[min(len(ms) - 1, int(q * len(ms)))]  # noqa: E731
    print("%-34s n=%-5d p50=%8.3f ms  p99=%8.3f ms  max=%8.3f ms" %
          (name, len(ms), pick(0.5), pick(0.99), ms[-1]), flush=True)


def play(a, b, to_end):
    """a creates, b joins; two moves and a resignation, or (to_end) the first legal move each
    turn until the game is over. Both leave. Returns the game id."""
    st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 7})
    b.request({"type": "join", "game": st["game"]})
    over = False
    for i in range(200 if to_end else 2):
        c = (a, b)[i % 2]
        if over:
            break
        try:
            m = c.wait_for("your_turn", timeout=2)
        except OSError:  # a timeout: the game is over
            break
        r = c.ask({"type": "move", "move": m["moves"][0]})
        assert r["type"] == "ok", r
        over = any(x.get("type") == "game_over" for x in c.backlog)
    if not to_end:
        assert a.ask({"type": "resign"})["type"] == "ok"
    for c in (a, b):
        c.wait_for("game_over")
        c.ask({"type": "leave"})
    return st["game"]


def copy(db, src, n, prefix, account_every=0, private_every=0, ended=None):
    """n copies of game src (its events too, the game id in each line replaced)."""
    con = sqlite3.connect(db)
    con.execute("PRAGMA synchronous = OFF")
    top = con.execute("SELECT MAX(serial) FROM games").fetchone()[0]
    acc = con.execute("SELECT MAX(id) FROM accounts").fetchone()[0] or 0
    ended = ended if ended is not None else int(time.time() * 1000) - 10 * DAY_MS
    step = 50000
    for lo in range(1, n + 1, step):
        hi = min(n, lo + step - 1)
        con.execute(
            "WITH RECURSIVE k(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM k WHERE i < ?) "
            "INSERT INTO games (id, serial, created_ms, ended_ms, " + COLS + ") "
            "SELECT ? || i, ? + i, ? + i * 10, ? + i * 10 + 5, kind, variant, seed, "
            "CASE WHEN ? > 0 AND i % ? = 0 THEN 1 ELSE 0 END, "
            "code, status, seat0_id, seat0_name, seat1_id, seat1_name, result, winner, reason, "
            "score0, score1, clock, CASE WHEN ? > 0 AND i % ? = 0 THEN ? END, NULL "
            "FROM k, games WHERE games.id = ?",
            (lo, hi, prefix, top, ended, ended, account_every * private_every,
             max(account_every * private_every, 1), account_every, max(account_every, 1), acc,
             src))
        con.execute(
            "WITH RECURSIVE k(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM k WHERE i < ?) "
            "INSERT INTO events (game_id, seq, time_ms, type, ply, move, body) "
            "SELECT ? || i, seq, time_ms, type, ply, move, "
            "replace(body, '\"game\":\"' || ? || '\"', '\"game\":\"' || ? || i || '\"') "
            "FROM k, (SELECT * FROM events WHERE game_id = ? ORDER BY seq)",
            (lo, hi, prefix, src, prefix, src))
        con.commit()
    con.close()


def size(db):
    con = sqlite3.connect(db)
    con.execute("VACUUM")
    con.close()
    return os.path.getsize(db)


def history_walk(c, n, **q):
    ms, after = [], None
    for i in range(n):
        req = dict({"type": "history"}, **q)
        if after is not None and i % 10 != 0:
            req["after"] = after
        t0 = time.perf_counter()
        r, _ = c.request(req)
        ms.append((time.perf_counter() - t0) * 1000)
        assert r["type"] == "history_page", r
        after = r.get("next")
    return ms, r["total"]


def main():
    games, samples, short = 200000, 300, False
    args = sys.argv[1:]
    while args:
        if args[0] == "--short":
            short = True
            args = args[1:]
            continue
        if args[0] == "--games":
            games = int(args[1])
        elif args[0] == "--samples":
            samples = int(args[1])
        else:
            sys.exit(__doc__)
        args = args[2:]
    tmp = tempfile.mkdtemp(prefix="keep-bench-")
    try:
        base = os.path.join(tmp, "base.db")
        srv = Server("--log-level", "info", db=base)
        c = srv.connect()
        r, _ = c.request({"type": "register", "name": "Benchy", "password": PW})
        assert r["type"] == "welcome", r
        c.player = r["player"]
        g1 = play(c, srv.connect("guest1"), False)
        g2 = play(srv.connect("guest2"), srv.connect("guest3"), True)
        srv.stop()
        plies = dict(sqlite3.connect(base).execute(
            "SELECT game_id, COUNT(move) FROM events GROUP BY game_id"))
        # (a) growth
        n = 20000
        for name in ("a", "b"):
            shutil.copy(base, os.path.join(tmp, name + ".db"))
        empty = size(os.path.join(tmp, "a.db"))
        copy(os.path.join(tmp, "a.db"), g1, n, "c")
        copy(os.path.join(tmp, "b.db"), g2, n, "c")
        sa, sb = size(os.path.join(tmp, "a.db")) - empty, size(os.path.join(tmp, "b.db")) - empty
        per_move = (sb - sa) / n / (plies[g2] - plies[g1])
        print("store growth: %.0f bytes a game of %d moves (6 events), %.0f bytes a move more "
              "(%d games of %d moves: %.0f bytes each)" %
              (sa / n, plies[g1], per_move, n, plies[g2], sb / n), flush=True)
        # (b) history on a large store
        big = os.path.join(tmp, "big.db")
        shutil.copy(base, big)
        src = g1 if short else g2
        copy(big, src, games, "h", account_every=3, private_every=10)
        print("store: %d games (%d MiB)" % (games, os.path.getsize(big) >> 20), flush=True)
        srv = Server("--log-level", "info", db=big)
        try:
            b = srv.connect()
            r, _ = b.request({"type": "hello", "protocol": 1, "name": "Benchy", "password": PW})
            assert r["type"] == "welcome", r
            g = srv.connect("asker")
            for label, conn, q in (("history (own private too)", b, {}),
                                   ("history player=Benchy (self)", b, {"player": "Benchy"}),
                                   ("history player=Benchy (guest)", g, {"player": "Benchy"}),
                                   ("history (guest: public only)", g, {})):
                ms, total = history_walk(conn, samples, **q)
                figures("%s, total %d" % (label, total), ms)
        finally:
            srv.stop()
        # (c) --keep-days batches
        srv = Server("--log-level", "info", "--keep-days", "1", db=big)
        try:
            deadline = time.time() + 40
            took = []
            while len(took) < 10 and time.time() < deadline:
                took = [float(m.group(1)) for m in
                        (re.search(r"--keep-days 1: deleted 50 .*\(([0-9.]+) ms\)", line)
                         for line in list(srv.log)) if m]
                time.sleep(0.2)
            print("--keep-days batches of 50 games of %d moves: %s ms of the loop each" %
                  (plies[src], ", ".join("%.1f" % x for x in took)), flush=True)
        finally:
            srv.stop()
        for line in srv.log:  # durable's timings: only the batches committed in this run
            if "group commits" in line:
                print("  their commits: " + line.split("store: ", 1)[1].strip(), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
