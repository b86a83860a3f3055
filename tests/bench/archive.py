#!/usr/bin/env python3
"""The client side of tests/bench/archive.sh: fill a store, and time requests over loopback.

  archive.py seed PORT              play g1 on a new store: two moves, then a resignation.
  archive.py fill DB GAMES BIG      the store DB (made by hokitod, with one finished game g1 of a
                                    few moves) gets GAMES finished public games copied from g1
                                    (its events too, ids h0000001...), and one finished game of
                                    BIG events (mostly chat), id "big"; straight SQL in big
                                    transactions, not through the server.
  archive.py ping PORT N            N pings one after another; prints the figures.
  archive.py history PORT N         N history pages: walks by cursor from the most recent, and
                                    every 10th request starts again after a random game deep in
                                    the history (as a client jumping far in); prints the figures.
  archive.py record PORT N GAMES    N records of random games among h0000001..GAMES.
  archive.py big PORT N             N records of the game "big".
  archive.py loop PORT KIND SECS GAMES  KIND (history, record, big) in a loop for SECS seconds,
                                    one request at a time, as fast as the server answers.

Figures are one line: name, count, p50, p99 and max in milliseconds. Loopback only.
"""
import json
import random
import socket
import sqlite3
import subprocess
import sys
import time


def fill(db, games, big):
    con = sqlite3.connect(db)
    con.execute("PRAGMA synchronous = OFF")
    con.execute("PRAGMA cache_size = -262144")
    g1 = con.execute("SELECT serial, ended_ms - created_ms FROM games WHERE id = 'g1'").fetchone()
    top = con.execute("SELECT MAX(serial) FROM games").fetchone()[0]
    assert g1 is not None, "the store needs its game g1"
    cols = ("kind, variant, seed, private, code, status, seat0_id, seat0_name, seat1_id, "
            "seat1_name, result, winner, reason, score0, score1, clock")
    t0 = time.time()
    step = 100000
    for lo in range(1, games + 1, step):
        hi = min(games, lo + step - 1)
        con.execute(
            "WITH RECURSIVE k(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM k WHERE i < ?) "
            "INSERT INTO games (id, serial, created_ms, ended_ms, " + cols + ") "
            "SELECT printf('h%07d', i), ? + i, 1700000000000 + i * 1000, "
            "1700000000000 + i * 1000 + ?, " + cols + " FROM k, games WHERE games.id = 'g1'",
            (lo, hi, top, g1[1]))
        con.execute(
            "WITH RECURSIVE k(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM k WHERE i < ?) "
            "INSERT INTO events (game_id, seq, time_ms, type, ply, move, body) "
            "SELECT printf('h%07d', i), seq, time_ms, type, ply, move, "
            "replace(body, '\"game\":\"g1\"', '\"game\":\"' || printf('h%07d', i) || '\"') "
            "FROM k, "
            "(SELECT * FROM events WHERE game_id = 'g1' ORDER BY seq)", (lo, hi))
        con.commit()
    # the big game: g1's first three events (seated, seated, started), then chat, then its end
    con.execute("INSERT INTO games (id, serial, created_ms, ended_ms, " + cols + ") "
                "SELECT 'big', ?, 1600000000000, 1600000000001, " + cols +
                " FROM games WHERE id = 'g1'", (top + games + 1,))
    con.execute("INSERT INTO events (game_id, seq, time_ms, type, ply, move, body) "
                "SELECT 'big', seq, time_ms, type, ply, move, "
                "replace(body, '\"game\":\"g1\"', '\"game\":\"big\"') FROM events "
                "WHERE game_id = 'g1' AND seq <= 3")
    moves = con.execute("SELECT seq, time_ms, type, ply, move, body FROM events "
                        "WHERE game_id = 'g1' AND seq > 3 ORDER BY seq").fetchall()
    nchat = big - 3 - len(moves)
    con.execute(
        "WITH RECURSIVE k(i) AS (SELECT 4 UNION ALL SELECT i + 1 FROM k WHERE i < ?) "
        "INSERT INTO events (game_id, seq, time_ms, type, body) SELECT 'big', i, "
        "1600000000000, 'chat', '{\"type\":\"chat\",\"game\":\"big\",\"seq\":' || i || "
        "',\"from\":\"black\",\"text\":\"a line of chat in a long game\"}' FROM k",
        (3 + nchat,))
    for (seq, tms, typ, ply, move, body) in moves:
        con.execute("INSERT INTO events (game_id, seq, time_ms, type, ply, move, body) "
                    "VALUES ('big', ?, ?, ?, ?, ?, ?)",
                    (seq + nchat, tms, typ, ply, move,
                     body.replace('"game":"g1"', '"game":"big"')))
    con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('next_game', "
                "(SELECT value FROM meta WHERE key = 'next_game'))")
    con.commit()
    n = con.execute("SELECT n FROM counts WHERE name = 'finished_public'").fetchone()[0]
    ev = con.execute("SELECT MAX(id) FROM events").fetchone()[0]
    con.close()
    print("filled: %d finished public games, %d events, in %.1f s" % (n, ev, time.time() - t0))


def psql(uri, sql):
    """Run sql on the PostgreSQL database of uri (psql, which takes a URI); returns its rows."""
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-t", "-A", "-F", "|",
                        "-d", uri, "-c", sql], capture_output=True, text=True, check=True)
    return [line.split("|") for line in r.stdout.splitlines() if line]


def fill_pg(uri, games, big):
    """fill() on a PostgreSQL store (hokitod --db URI), in statements of 100,000 games."""
    g1 = psql(uri, "SELECT serial, ended_ms - created_ms FROM games WHERE id = 'g1'")
    assert g1, "the store needs its game g1"
    top = int(psql(uri, "SELECT MAX(serial) FROM games")[0][0])
    span = int(g1[0][1])
    cols = ("kind, variant, seed, private, code, status, seat0_id, seat0_name, seat1_id, "
            "seat1_name, result, winner, reason, score0, score1, clock")
    gid = "'h' || lpad(i::text, 7, '0')"
    t0 = time.time()
    step = 100000
    for lo in range(1, games + 1, step):
        hi = min(games, lo + step - 1)
        psql(uri,
             "BEGIN; SET LOCAL synchronous_commit = off; "
             "INSERT INTO games (id, serial, created_ms, ended_ms, %s) "
             "SELECT %s, %d + i, 1700000000000 + i * 1000, 1700000000000 + i * 1000 + %d, %s "
             "FROM generate_series(%d, %d) i, games WHERE games.id = 'g1'; "
             "INSERT INTO events (game_id, seq, time_ms, type, ply, move, body) "
             "SELECT %s, seq, time_ms, type, ply, move, convert_to(replace(convert_from(body, "
             "'UTF8'), '\"game\":\"g1\"', '\"game\":\"' || %s || '\"'), 'UTF8') "
             "FROM generate_series(%d, %d) i, "
             "(SELECT * FROM events WHERE game_id = 'g1' ORDER BY seq) e; COMMIT"
             % (cols, gid, top, span, cols, lo, hi, gid, gid, lo, hi))
    psql(uri,
         "BEGIN; INSERT INTO games (id, serial, created_ms, ended_ms, %s) "
         "SELECT 'big', %d, 1600000000000, 1600000000001, %s FROM games WHERE id = 'g1'; "
         "INSERT INTO events (game_id, seq, time_ms, type, ply, move, body) "
         "SELECT 'big', seq, time_ms, type, ply, move, convert_to(replace(convert_from(body, "
         "'UTF8'), '\"game\":\"g1\"', '\"game\":\"big\"'), 'UTF8') FROM events "
         "WHERE game_id = 'g1' AND seq <= 3; COMMIT" % (cols, top + games + 1, cols))
    moves = psql(uri, "SELECT seq FROM events WHERE game_id = 'g1' AND seq > 3")
    nchat = big - 3 - len(moves)
    psql(uri,
         "BEGIN; INSERT INTO events (game_id, seq, time_ms, type, body) SELECT 'big', i, "
         "1600000000000, 'chat', convert_to('{\"type\":\"chat\",\"game\":\"big\",\"seq\":' || i || "
         "',\"from\":\"black\",\"text\":\"a line of chat in a long game\"}', 'UTF8') "
         "FROM generate_series(4, %d) i; "
         "INSERT INTO events (game_id, seq, time_ms, type, ply, move, body) "
         "SELECT 'big', seq + %d, time_ms, type, ply, move, convert_to(replace(convert_from("
         "body, 'UTF8'), '\"game\":\"g1\"', '\"game\":\"big\"'), 'UTF8') FROM events "
         "WHERE game_id = 'g1' AND seq > 3; COMMIT" % (3 + nchat, nchat))
    psql(uri, "ANALYZE")
    n = psql(uri, "SELECT n FROM counts WHERE name = 'finished_public'")[0][0]
    ev = psql(uri, "SELECT count(*) FROM events")[0][0]
    print("filled: %s finished public games, %s events, in %.1f s" % (n, ev, time.time() - t0))


class Conn:
    def __init__(self, port, name):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.n = 0
        r = self.ask({"type": "hello", "protocol": 1, "name": name})
        assert r["type"] == "welcome", r

    def ask(self, obj):
        self.n += 1
        obj["id"] = self.n
        self.sock.sendall((json.dumps(obj) + "\n").encode())
        while True:
            while b"\n" not in self.buf:
                data = self.sock.recv(1 << 20)
                if not data:
                    raise RuntimeError("connection closed")
                self.buf += data
            line, _, self.buf = self.buf.partition(b"\n")
            m = json.loads(line)
            if m.get("id") == self.n:
                return m


def timed(c, obj, want):
    t0 = time.perf_counter()
    r = c.ask(obj)
    dt = (time.perf_counter() - t0) * 1000
    assert r["type"] == want, r
    return dt, r


def figures(name, ms):
    ms = sorted(ms)
    pick = lambda q: ms[min(len(ms) - 1, int(q * len(ms)))]  # noqa: E731
    print("%-28s n=%-6d p50=%8.3f ms  p99=%8.3f ms  max=%8.3f ms" %
          (name, len(ms), pick(0.5), pick(0.99), ms[-1]), flush=True)


def run(port, kind, count=None, secs=None, games=0):
    c = Conn(port, kind)
    rng = random.Random(2)
    ms = []
    after = None
    deadline = time.time() + secs if secs else None
    i = 0
    while (count is None or i < count) and (deadline is None or time.time() < deadline):
        i += 1
        if kind == "ping":
            dt, r = timed(c, {"type": "ping"}, "pong")
        elif kind == "history":
            req = {"type": "history"}
            if i % 10 == 0:
                k = rng.randrange(1, games)
                req["after"] = "%d.%d" % (1700000000000 + k * 1000 + 2, k + 1)
            elif after is not None:
                req["after"] = after
            dt, r = timed(c, req, "history_page")
            after = r.get("next")
        elif kind == "record":
            dt, r = timed(c, {"type": "record", "game": "h%07d" % rng.randrange(1, games + 1)},
                          "game_record")
        else:
            dt, r = timed(c, {"type": "record", "game": "big"}, "game_record")
        ms.append(dt)
    return ms


def seed(port):
    """Play g1: two players, two moves, a resignation (the game every filled one copies)."""
    a, b = Conn(port, "ann"), Conn(port, "ben")
    st = a.ask({"type": "create", "kind": "hokito", "seat": "black", "seed": 7})
    assert st["type"] == "state" and st["game"] == "g1", st
    assert b.ask({"type": "join", "game": "g1"})["type"] == "state"
    for c in (a, b):
        m = None
        while m is None or m.get("type") != "your_turn":
            line, _, c.buf = (c.buf if b"\n" in c.buf else c.buf + c.sock.recv(1 << 20)) \
                .partition(b"\n")
            m = json.loads(line) if line else None
        assert c.ask({"type": "move", "move": m["moves"][0]})["type"] == "ok"
    assert a.ask({"type": "resign"})["type"] == "ok"


def main():
    mode = sys.argv[1]
    if mode == "seed":
        seed(int(sys.argv[2]))
    elif mode == "fill":
        if sys.argv[2].startswith(("postgresql://", "postgres://")):
            fill_pg(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        else:
            fill(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif mode in ("ping", "history", "record", "big"):
        port, n = int(sys.argv[2]), int(sys.argv[3])
        games = int(sys.argv[4]) if len(sys.argv) > 4 else 0
        label = sys.argv[5] if len(sys.argv) > 5 else mode
        figures(label, run(port, mode, count=n, games=games))
    elif mode == "loop":
        port, kind, secs, games = int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), \
            int(sys.argv[5])
        ms = run(port, kind, secs=secs, games=games)
        figures("(load) " + kind + " loop", ms)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
