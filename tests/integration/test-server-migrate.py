#!/usr/bin/env python3
"""hokitod migrate --from A --to B, end to end: a store with every kind of row, made by a real
hokitod (guests and accounts, a rated game with its rating changes, a rated draw, a private
game, a game aborted after moves by a ban, a bot account, a banned account, a game not over
whose players keep their sessions), is copied from SQLite to SQLite; hokitod started on the copy
answers history, records, the leaderboard, profiles and a resume by token as it does on the
original, gives the next game the next id, and --check finds it sound. A target that holds
something is refused (one line, exit 1, its file unchanged); a damaged source fails (exit 1,
the new target removed); the progress without a terminal is whole lines, on a terminal one
line redrawn. The store of a running server whose players play on is copied as it was at one
moment. Prints TAP.

With HOKITO_TEST_STORE=pg (meson's pg-server-migrate) the same store goes SQLite -> PostgreSQL ->
SQLite, each database a fresh one of serverlib's throw-away PostgreSQL: both copies checked by
migrate, the PostgreSQL one's kept counts, deleted games and serials those of the original (and
the serial of the next game), hokitod on it answering as on the original, --check sound, the
final SQLite file holding every row of the original; a PostgreSQL target that holds a store
refused with nothing written; a damaged source failing with the new PostgreSQL store removed
again (its schema empty); and the store of a server running on PostgreSQL copied as it was at
one moment.
"""
import hashlib
import json
import os
import pty
import re
import select
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import (HOKITOD, STORE, TIMEOUT, Players, Server, Tap, fresh_store,  # noqa: E402
                       pg_server, play_opening)

PW = "correct horse battery"
ADDRS = {}  # each account its own source address: accounts of one address play casual


def addr(name):
    if name not in ADDRS:
        ADDRS[name] = "127.0.0.%d" % (10 + len(ADDRS))
    return ADDRS[name]


def login(srv, name, register=False):
    c = srv.connect(src=addr(name))
    req = ({"type": "register", "name": name, "password": PW} if register else
           {"type": "hello", "protocol": 1, "name": name, "password": PW})
    r, _ = c.request(req)
    assert r["type"] == "welcome", r
    return c


def migrate(*args):
    r = subprocess.run([HOKITOD, "migrate"] + list(args), capture_output=True, text=True,
                       timeout=120)
    return r.returncode, r.stdout, r.stderr


def finish(a, b, how):
    """A game a created and b joined ends: "resign" (a resigns after two moves each), "draw"."""
    play_opening(a, b, moves=2)
    if how == "resign":
        assert a.ask({"type": "resign"})["type"] == "ok"
    else:
        assert a.ask({"type": "draw_offer"})["type"] == "ok"
        assert b.ask({"type": "draw_accept"})["type"] == "ok"
    a.wait_for("game_over")
    b.wait_for("game_over")
    for c in (a, b):
        c.ask({"type": "leave"})


def make_store(tmp):
    """A store with every kind of row; returns (its path, the token of a seated guest, the
    games' ids)."""
    srv = Server(db=os.path.join(tmp, "orig.db"))
    games = []
    ann, ben = login(srv, "Ann_m", True), login(srv, "Ben_m", True)
    cal, dot = login(srv, "Cal_m", True), login(srv, "Dot_m", True)
    # two rated games between accounts: rating changes, ratings rows, a rating pair
    for how in ("resign", "draw"):
        st, _ = ann.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 5,
                             "rated": True})
        ben.request({"type": "join", "game": st["game"]})
        finish(ann, ben, how)
        games.append(st["game"])
    # a private game of an account and a guest
    guest = srv.connect("gus_m")
    st, _ = ann.request({"type": "create", "kind": "oxono", "private": True, "seat": "pink",
                         "seed": 3})
    guest.request({"type": "join", "code": st["code"]})
    play_opening(ann, guest, moves=2, pick=(0, -1))
    assert ann.ask({"type": "resign"})["type"] == "ok"
    guest.wait_for("game_over")
    guest.ask({"type": "leave"})
    ann.ask({"type": "leave"})
    games.append(st["game"])
    # a guests' game
    g1, g2 = srv.connect("gil_m"), srv.connect("gia_m")
    st, _ = g1.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 11})
    g2.request({"type": "join", "game": st["game"]})
    finish(g1, g2, "resign")
    games.append(st["game"])
    # the bot, and a game that never started (deleted: a gap in the serials)
    rc = subprocess.run([HOKITOD, "accounts", "--db", srv.db, "--admin-socket", srv.admin_sock,
                         "set-bot", "Dot_m"],
                        capture_output=True, timeout=30).returncode
    assert rc == 0
    st, _ = dot.request({"type": "create", "kind": "hokito", "seed": 2})
    assert dot.ask({"type": "leave"})["type"] == "ok"
    # Cal plays a guest and is banned: the game ends aborted after its moves
    st, _ = cal.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 8})
    g1.request({"type": "join", "game": st["game"]})
    play_opening(cal, g1)
    rc = subprocess.run([HOKITOD, "accounts", "--db", srv.db, "--admin-socket", srv.admin_sock,
                         "ban", "Cal_m"],
                        capture_output=True, timeout=30).returncode
    assert rc == 0
    g1.wait_for("game_over")
    g1.ask({"type": "leave"})
    games.append(st["game"])
    # a game not over: both guests keep their seats and sessions
    w1, w2 = srv.connect("wes_m"), srv.connect("wil_m")
    st, _ = w1.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 13})
    w2.request({"type": "join", "game": st["game"]})
    play_opening(w1, w2, moves=3)
    games.append(st["game"])
    token = w1.token
    assert srv.stop() == 0, "".join(srv.log[-20:])
    return srv.db, token, games


def answers(db, token, games):
    """What a server on db answers: history (public, by player, an account's own private
    games), every game's record (as Ann asks), the leaderboards, profiles, a resume by token,
    and the next game's id. A list of (question, answer)."""
    srv = Server(db=db)
    out = []
    try:
        ann = login(srv, "Ann_m")
        guest = srv.connect("zed_m")

        def ask(c, req):
            r, _ = c.request(req)
            r.pop("id", None)
            out.append((json.dumps(req, sort_keys=True), r))
        ask(guest, {"type": "history"})
        ask(ann, {"type": "history"})
        ask(guest, {"type": "history", "player": "Ann_m"})
        ask(ann, {"type": "history", "player": "Ann_m"})
        ask(guest, {"type": "history", "player": "Cal_m"})
        for g in games:
            ask(ann, {"type": "record", "game": g})
        for kind in ("hokito", "oxono"):
            for prov in (False, True):
                ask(guest, {"type": "leaderboard", "kind": kind, "provisional": prov})
        for name in ("Ann_m", "Ben_m", "Dot_m", "Cal_m"):
            ask(guest, {"type": "profile", "name": name})
        c = srv.connect()
        r, _ = c.request({"type": "hello", "protocol": 1, "token": token})
        r.pop("id", None)
        out.append(("resume", r))
        state = c.wait_for("state")
        out.append(("resumed state", {k: v for k, v in state.items()
                                      if k not in ("id",)}))
        st, _ = guest.request({"type": "create", "kind": "oxono", "seed": 1})
        out.append(("the next game's id", st["game"]))
    finally:
        assert srv.stop() == 0, "".join(srv.log[-20:])
    return out


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def test_copy(t, tmp, orig, token, games):
    copy = os.path.join(tmp, "copy.db")
    rc, out, err = migrate("--from", orig, "--to", copy)
    t.ok(rc == 0 and "the same on both sides" in out, "migrate: exit 0, copied and checked",
         (rc, out, err))
    t.ok("6 games" in out and "4 accounts" in out and "2 sessions" in out and
         "4 rating changes" in out and "2 rating pairs" in out,
         "the summary gives the rows of each kind", out)
    t.ok("games/s" in out, "... and the rate in games/s", out)
    r = subprocess.run([HOKITOD, "--check", "--db", copy], capture_output=True, text=True,
                       timeout=60)
    t.ok(r.returncode == 0, "hokitod --check finds the copy sound", r.stdout + r.stderr)
    con = sqlite3.connect(orig)
    want = con.execute("SELECT * FROM counts ORDER BY name").fetchall()
    con.close()
    con = sqlite3.connect(copy)
    have = con.execute("SELECT * FROM counts ORDER BY name").fetchall()
    con.close()
    want = [r for r in want if r[0] != "released_accounts"]
    t.ok(have == want, "the kept counts follow (deleted games included)", (want, have))
    # both answer alike, each asked on a copy of its file (a resume and a new game change it)
    asked = []
    for db in (orig, copy):
        asked.append(db + ".asked")
        shutil.copy(db, asked[-1])
    a = answers(asked[0], token, games)
    b = answers(asked[1], token, games)
    for (q, x), (_, y) in zip(a, b):
        if x != y:
            t.ok(False, "the copy answers as the original: " + q, (x, y))
            break
    else:
        t.ok(len(a) == len(b) == len(games) + 16,
             "the copy answers history, records, leaderboards, profiles and a resume by "
             "token as the original does, and gives the next game the same id", len(a))
    t.ok(any(q == "resume" and x.get("resumed") is True for q, x in a),
         "... the token resumes the game not over", a[-3:])
    rec = [x for q, x in a if '"record"' in q]
    t.ok(any('[Rated "yes"]' in x.get("text", "") for x in rec),
         "... a rated game's record with its ratings", rec[:1])


def pg_rows(uri, sql):
    """The rows of sql on the PostgreSQL database of uri (a fresh_store() one), as str."""
    name = uri.split("@/", 1)[1].split("?", 1)[0]
    return pg_server().psql(sql, dbname=name)


def sqlite_rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def kept(rows):
    """The rows of the counts table (name, n) as migrate carries them: every one but
    released_accounts (the accounts --unused-account-days deleted), as str."""
    return sorted((str(n), str(v)) for n, v in rows if n != "released_accounts")


def every_row(db):
    """Every row of every table of the SQLite store db, by table, sorted: what two stores that
    hold the same have alike (an event's rowid apart: the order of the writes; counts as kept())."""
    out = {}
    con = sqlite3.connect(db)
    try:
        for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                    "name NOT LIKE 'sqlite_%' ORDER BY name"):
            cols = [r[1] for r in con.execute("PRAGMA table_info(%s)" % table)
                    if not (table == "events" and r[1] == "id")]
            rows = con.execute("SELECT %s FROM %s" % (", ".join(cols), table)).fetchall()
            out[table] = kept(rows) if table == "counts" else sorted(rows, key=repr)
    finally:
        con.close()
    return out


def test_round_trip_pg(t, tmp, orig, token, games):
    """SQLite -> PostgreSQL -> SQLite: the same store at each step."""
    pg = fresh_store(tmp)
    rc, out, err = migrate("--from", orig, "--to", pg)
    t.ok(rc == 0 and "the same on both sides" in out, "SQLite to PostgreSQL: exit 0, copied "
         "and checked", (rc, out, err))
    t.ok("6 games" in out and "4 accounts" in out and "2 sessions" in out and
         "4 rating changes" in out and "2 rating pairs" in out and "2 ratings" in out,
         "... every row of each kind", out)
    r = subprocess.run([HOKITOD, "--check", "--db", pg], capture_output=True, text=True,
                       timeout=60)
    t.ok(r.returncode == 0, "hokitod --check finds the PostgreSQL copy sound",
         r.stdout + r.stderr)
    want = kept(sqlite_rows(orig, "SELECT name, n FROM counts"))
    have = kept(pg_rows(pg, "SELECT name, n FROM counts"))
    t.ok(have == want and ("deleted", "1") in have,
         "its kept counts are the original's (the game deleted and its number included)",
         (want, have))
    want = [(i, str(n)) for i, n in sqlite_rows(orig, "SELECT id, serial FROM games "
                                                      "ORDER BY serial")]
    have = pg_rows(pg, "SELECT id, serial FROM games ORDER BY serial")
    t.ok(have == want, "... and so are its games' serials", (want, have))

    back = os.path.join(tmp, "back.db")
    rc, out, err = migrate("--from", pg, "--to", back)
    t.ok(rc == 0 and "the same on both sides" in out and "6 games" in out,
         "PostgreSQL to SQLite: exit 0, copied and checked", (rc, out, err))
    r = subprocess.run([HOKITOD, "--check", "--db", back], capture_output=True, text=True,
                       timeout=60)
    t.ok(r.returncode == 0, "hokitod --check finds the SQLite copy of the copy sound",
         r.stdout + r.stderr)
    again = fresh_store(tmp)
    rc, out, err = migrate("--from", pg, "--to", again)
    t.ok(rc == 0 and "the same on both sides" in out and "6 games" in out,
         "PostgreSQL to PostgreSQL too", (rc, out, err))
    a, b = every_row(orig), every_row(back)
    diff = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    t.ok(not diff and len(a.get("events", [])) == 48,
         "... and it holds every row of the original, table by table",
         [(k, a.get(k), b.get(k)) for k in diff[:2]])

    # hokitod on the PostgreSQL copy answers as on the original (asked on a copy of its file:
    # a resume and a new game change a store)
    asked = orig + ".asked-pg"
    shutil.copy(orig, asked)
    x = answers(asked, token, games)
    y = answers(pg, token, games)
    for (q, u), (_, v) in zip(x, y):
        if u != v:
            t.ok(False, "the PostgreSQL copy answers as the original: " + q, (u, v))
            break
    else:
        t.ok(len(x) == len(y) == len(games) + 16,
             "hokitod on the PostgreSQL copy answers history, records, leaderboards, "
             "profiles and a resume by token as on the original, and gives the next game "
             "the same id", len(x))
    want = sqlite_rows(asked, "SELECT serial FROM games ORDER BY serial DESC LIMIT 1")
    have = pg_rows(pg, "SELECT serial FROM games ORDER BY serial DESC LIMIT 1")
    t.ok([(str(want[0][0]),)] == have, "... and the same serial", (want, have))

    # a PostgreSQL target that holds a store: refused, nothing written
    before = pg_rows(pg, "SELECT (SELECT COUNT(*) FROM games), (SELECT COUNT(*) FROM events), "
                         "(SELECT COUNT(*) FROM accounts)")
    rc, out, err = migrate("--from", orig, "--to", pg)
    lines = err.strip().splitlines()
    t.ok(rc == 1 and len(lines) == 1 and "not empty" in lines[0] and "nothing was written"
         in lines[0], "a PostgreSQL target that holds a store is refused: one line, exit 1",
         (rc, out, err))
    after = pg_rows(pg, "SELECT (SELECT COUNT(*) FROM games), (SELECT COUNT(*) FROM events), "
                        "(SELECT COUNT(*) FROM accounts)")
    t.ok(after == before, "... and nothing is written to it", (before, after))


def test_refused(t, tmp, orig):
    copy = os.path.join(tmp, "copy.db")
    before = sha(copy)
    rc, out, err = migrate("--from", orig, "--to", copy)
    lines = err.strip().splitlines()
    t.ok(rc == 1 and len(lines) == 1 and "not empty" in lines[0] and "nothing was written"
         in lines[0], "a target that holds a store is refused: one line, exit 1",
         (rc, out, err))
    t.ok(sha(copy) == before, "... and its file is unchanged")
    rc, out, err = migrate("--from", os.path.join(tmp, "nothing.db"), "--to",
                           os.path.join(tmp, "new.db"))
    t.ok(rc == 1 and "no store" in err and not os.path.exists(os.path.join(tmp, "new.db")),
         "no source: exit 1, no target made", (rc, err))
    rc, out, err = migrate("--from", orig)
    t.ok(rc == 2 and "usage" in err, "without --to: usage, exit 2", (rc, err))
    rc, out, err = migrate("--from", orig, "--to", copy, "extra")
    t.ok(rc == 2, "an extra argument: exit 2", (rc, err))


def test_damaged(t, tmp, orig, target, gone):
    """A damaged source into target: refused, target removed again (gone(): whether it is)."""
    bad = os.path.join(tmp, "bad.db")
    shutil.copy(orig, bad)
    con = sqlite3.connect(bad)
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'events'").fetchone()[0]
    size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    with open(bad, "r+b") as f:
        f.seek((root - 1) * size)
        f.write(b"\x0d\xff\xff\xff" * (size // 4))  # a leaf page with nonsense in its cells
    rc, out, err = migrate("--from", bad, "--to", target)
    t.ok(rc == 1 and "damaged" in err and "removed again" in err,
         "a damaged source: exit 1, the damage named", (rc, err))
    t.ok(gone(), "... and the new target is removed again", os.listdir(tmp))


def test_progress(t, tmp, orig):
    target = os.path.join(tmp, "progress.db")
    rc, out, err = migrate("--from", orig, "--to", target)
    lines = err.splitlines()
    t.ok(rc == 0 and "\r" not in err and "\033" not in err and
         any(l.startswith("hokitod: migrate: copying: 6/6 games in ") for l in lines) and
         any(l.startswith("hokitod: migrate: checking: 6/6 games in ") for l in lines),
         "no terminal: the progress in whole lines", err)
    os.unlink(target)
    master, slave = pty.openpty()
    p = subprocess.Popen([HOKITOD, "migrate", "--from", orig, "--to", target],
                         stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    text = b""
    deadline = time.time() + 3 * TIMEOUT
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 4096)
            except OSError:
                break
            if not data:
                break
            text += data
        elif p.poll() is not None:
            break
    os.close(master)
    rc = p.wait(TIMEOUT)
    text = text.decode(errors="replace")
    t.ok(rc == 0 and "\r" in text and "[####################] 6/6 games" in text and
         "ETA" in text and "hokitod: migrate: copying" not in text,
         "on a terminal: one line redrawn, a bar, the count, the rate, the time left",
         repr(text))


def test_running(t, tmp, db):
    """The source db is the store of a server whose players play on: a copy of one moment."""
    srv = Server(db=db)
    players = Players(srv, most=100000)
    players.start()
    players.wait_games(20)
    before = len(players.games)
    rc, out, err = migrate("--from", db, "--to", os.path.join(tmp, "live-copy.db"))
    after = len(players.games)
    time.sleep(0.2)
    t.ok(players.finish() and after > 0, "the players played on", players.error)
    t.ok(srv.stop() == 0, "the server stops cleanly", "".join(srv.log[-20:]))
    m = re.search(r": (\d+) games \(", out)
    t.ok(rc == 0 and "the same on both sides" in out, "a running server's store: copied and "
         "checked while its players play", (rc, out, err))
    t.ok(m and before <= int(m.group(1)) <= after + 1, "... the games of that moment",
         (before, out, after))
    r = subprocess.run([HOKITOD, "--check", "--db", os.path.join(tmp, "live-copy.db")],
                       capture_output=True, text=True, timeout=60)
    t.ok(r.returncode == 0, "... and the copy is sound", r.stdout + r.stderr)


def main():
    t = Tap()
    tmp = tempfile.mkdtemp(prefix="hokitod-migrate-")
    try:
        orig, token, games = make_store(tmp)
        t.ok(True, "a store made by hokitod with every kind of row")
        if STORE == "pg":
            t.run("SQLite to PostgreSQL to SQLite: the same store", test_round_trip_pg, t,
                  tmp, orig, token, games)
            pg = fresh_store(tmp)
            t.run("a damaged source into a new PostgreSQL store", test_damaged, t, tmp, orig,
                  pg, lambda: pg_rows(pg, "SELECT COUNT(*) FROM pg_class c JOIN pg_namespace "
                                          "n ON n.oid = c.relnamespace WHERE n.nspname = "
                                          "'public'") == [("0",)])
            t.run("the store of a server running on PostgreSQL", test_running, t, tmp,
                  fresh_store(tmp))
        else:
            t.run("SQLite to SQLite: the copy is the same store", test_copy, t, tmp, orig,
                  token, games)
            t.run("a target that holds something; no source; usage", test_refused, t, tmp,
                  orig)
            target = os.path.join(tmp, "from-bad.db")
            t.run("a damaged source", test_damaged, t, tmp, orig, target,
                  lambda: not os.path.exists(target))
            t.run("the progress, without a terminal and on one", test_progress, t, tmp, orig)
            t.run("the store of a running server", test_running, t, tmp,
                  os.path.join(tmp, "live.db"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    t.done()


if __name__ == "__main__":
    main()
