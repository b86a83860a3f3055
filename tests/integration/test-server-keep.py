#!/usr/bin/env python3
"""What hokitod's store keeps and whose history it lists, end to end over
loopback: one's own private games in `history` (for their players only), `history` by player
(an account by its name in any case, a guest's own games by its name; paged by key, with a total
of what it lists); games that never started absent from history and from the store file, their
record answered while the lobby holds them; the migration of a schema 7 store that holds such
games; --keep-days deleting old games without an account and keeping those with one, in batches
that a kill -9 cannot leave half done. Old games are made with SQL on a stopped server's file.
Prints TAP.
"""
import os
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import HOKITOD, Server, Tap  # noqa: E402

PW = "correct horse battery"
DAY_MS = 86400000


def played(a, b, private=False):
    """a creates, b joins, one move each, a resigns: a finished game that started. Both leave
    it. Returns its id."""
    req = {"type": "create", "kind": "hokito", "seat": "black", "seed": 7}
    if private:
        req["private"] = True
    st, _ = a.request(req)
    r, _ = b.request({"type": "join", "code": st["code"]} if private else
                     {"type": "join", "game": st["game"]})
    assert r["type"] == "state", r
    for c in (a, b):
        yt = c.wait_for("your_turn")
        assert c.ask({"type": "move", "move": yt["moves"][0]})["type"] == "ok"
    assert a.ask({"type": "resign"})["type"] == "ok"
    for c in (a, b):
        c.wait_for("game_over")
        assert c.ask({"type": "leave"})["type"] == "ok"
    return st["game"]


def history(c, **q):
    r, _ = c.request(dict({"type": "history"}, **q))
    assert r["type"] == "history_page", r
    return r


def ids(page):
    return [g["game"] for g in page["games"]]


def walk(c, **q):
    """Every page of a history query by cursor, 1 game a page: (ids, the totals seen)."""
    got, totals, after = [], set(), None
    for _ in range(50):
        r = history(c, limit=1, **(dict(q, after=after) if after else q))
        got += ids(r)
        totals.add(r["total"])
        after = r.get("next")
        if after is None:
            break
    return got, totals


def check(db):
    p = subprocess.run([HOKITOD, "--check", "--db", db], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout + p.stderr


def rows(db, sql, *args):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def whose_history(t):
    srv = Server()
    try:
        alice, bob = srv.account("Alice_k", PW), srv.account("Bob_k", PW)
        carol, dave = srv.connect("carol"), srv.connect("dave")
        g1 = played(alice, bob)
        g2 = played(alice, bob, private=True)
        g3 = played(alice, carol, private=True)
        g4 = played(carol, dave)
        g5 = played(carol, dave, private=True)
        r = history(srv.connect("erin"))
        t.ok(ids(r) == [g4, g1] and r["total"] == 2,
             "another player's history lists the public games only", r)
        r = history(alice)
        t.ok(ids(r) == [g4, g3, g2, g1] and r["total"] == 4,
             "an account's history lists its own private games too", r)
        r = history(dave)
        t.ok(ids(r) == [g5, g4, g1] and r["total"] == 3,
             "... and a guest's, its own (by its player id)", r)
        r = history(bob, player="ALICE_K")
        t.ok(ids(r) == [g2, g1] and r["total"] == 2,
             "by player: an account's public games, whatever the name's case, and the asker's "
             "own private games with it", r)
        r = history(dave, player="alice_k")
        t.ok(ids(r) == [g1] and r["total"] == 1,
             "... never another's private games", r)
        r = history(carol, player="carol")
        t.ok(ids(r) == [g5, g4, g3] and r["total"] == 3, "a guest's own games by its name", r)
        r = history(dave, player="carol")
        t.ok(ids(r) == [] and r["total"] == 0, "a guest's games are that guest's to list", r)
        r = history(alice, player="nobody_here")
        t.ok(ids(r) == [] and r["total"] == 0 and "next" not in r, "a name with no games", r)
        got, totals = walk(alice, player="Alice_k")
        t.ok(got == [g3, g2, g1] and totals == {3},
             "an account's own games paged by key, one a page, the total on each", (got, totals))
        got, totals = walk(carol)
        t.ok(got == [g5, g4, g3, g1] and totals == {4},
             "a guest's history paged by key", (got, totals))
        recs = [c.request({"type": "record", "game": g})[0]["type"]
                for c, g in ((alice, g2), (bob, g2), (carol, g3), (alice, g3))]
        t.ok(recs == ["game_record"] * 4,
             "a private game's record by id, to those who held a seat in it", recs)
        recs = [c.request({"type": "record", "game": g})[0].get("code")
                for c, g in ((dave, g2), (carol, g2), (bob, g3))]
        t.ok(recs == ["no_such_game"] * 3, "... and to nobody else", recs)
        r, _ = alice.request({"type": "history", "player": 7})
        t.ok(r["type"] == "error" and r["code"] == "bad_field" and r.get("field") == "player",
             "player must be a string", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def unplayed_not_kept(t):
    srv = Server()
    try:
        a, b, k = srv.connect("una"), srv.connect("unb"), srv.connect("unk")
        st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black"})
        g_abort = st["game"]
        b.request({"type": "join", "game": g_abort})
        assert a.ask({"type": "abort"})["type"] == "ok"
        st, _ = a.request({"type": "create", "kind": "oxono", "seat": "pink", "private": True})
        assert a.ask({"type": "leave"})["type"] == "ok"  # an open private game, left
        g_open = st["game"]
        st, _ = k.request({"type": "create", "kind": "hokito", "seat": "black"})
        g_left = st["game"]
        assert k.ask({"type": "leave"})["type"] == "ok"
        g_played = played(srv.connect("unc"), srv.connect("und"))
        r, _ = b.request({"type": "record", "game": g_abort})
        t.ok(r["type"] == "game_record" and '[Result "*"]' in r["text"] and
             "una" in r["text"],
             "the record of a game that never started, while the lobby holds it", r)
        r = history(k)
        t.ok(ids(r) == [g_played] and r["total"] == 1,
             "history lists no game that never started", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    left = rows(srv.db, "SELECT id FROM games WHERE id IN (?, ?, ?)", g_abort, g_open, g_left)
    ev = rows(srv.db, "SELECT COUNT(*) FROM events WHERE game_id IN (?, ?, ?)",
              g_abort, g_open, g_left)[0][0]
    t.ok(left == [] and ev == 0, "... nor does the store file, nor their events", (left, ev))
    code, out = check(srv.db)
    t.ok(code == 0, "hokitod --check finds the store sound", out)


# Undo migration 8 on a stopped server's store: the file a schema 7 hokitod would have left.
TO_SCHEMA_7 = (
    "DROP TABLE rating_pairs; ALTER TABLE games DROP COLUMN unrated;"
    "DROP TRIGGER counts_delete; DROP TRIGGER counts_account_finish;"
    "DROP TRIGGER counts_account_insert; DROP INDEX games_seat0_account;"
    "DROP INDEX games_seat1_account; DROP INDEX games_seat0_guest;"
    "DROP INDEX games_seat1_guest; DROP INDEX games_guests_ended; DROP INDEX sessions_game;"
    "ALTER TABLE games DROP seat0_account; ALTER TABLE games DROP seat1_account;"
    "DELETE FROM counts WHERE name <> 'finished_public';"
    "DROP TABLE rating_changes; DROP TABLE ratings; ALTER TABLE games DROP COLUMN rated;"
    "PRAGMA user_version = 7;")

# A game that never started, as a schema 7 hokitod stored it: created, seated, aborted.
UNPLAYED_7 = (
    "INSERT INTO games (id, serial, kind, variant, seed, private, code, status, created_ms,"
    " seat0_id, seat0_name, ended_ms, result, winner, reason, clock)"
    " SELECT 'x' || (MAX(serial) + 1), MAX(serial) + 1, 'hokito', 'standard', 7, 0, '',"
    " 'finished', 1000, 'p90', 'ghost', 2000, 'aborted', -1, 'abort', 'none' FROM games;"
    "INSERT INTO events (game_id, seq, time_ms, type, body) SELECT id, 1, 1000, 'seated', '{}'"
    " FROM games WHERE serial = (SELECT MAX(serial) FROM games);"
    "INSERT INTO events (game_id, seq, time_ms, type, body) SELECT id, 2, 2000, 'game_over',"
    " '{}' FROM games WHERE serial = (SELECT MAX(serial) FROM games);"
    "INSERT INTO sessions (token, player_id, name, game_id, seat, updated_ms) SELECT"
    " 'ghost' || id, 'p90', 'ghost', id, 0, 2000 FROM games"
    " WHERE serial = (SELECT MAX(serial) FROM games);")


def migration_7(t):
    srv = Server()
    try:
        g1 = played(srv.connect("m1"), srv.connect("m2"))
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    con = sqlite3.connect(srv.db)
    con.executescript(TO_SCHEMA_7)
    for _ in range(3):
        con.executescript(UNPLAYED_7)
    con.commit()
    con.close()
    ghosts = [r[0] for r in rows(srv.db, "SELECT id FROM games WHERE seat0_name = 'ghost'")]
    assert len(ghosts) == 3, ghosts
    code, out = check(srv.db)
    t.ok(code == 0, "a schema 7 store holding three games that never started is sound", out)
    srv = Server(db=srv.db)
    try:
        r = history(srv.connect("m3"))
        t.ok(ids(r) == [g1] and r["total"] == 1,
             "after the migration, history lists neither them nor counts them", r)
        st, _ = srv.connect("m4").request({"type": "create", "kind": "hokito"})
        g_new = st["game"]
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    left = rows(srv.db, "SELECT COUNT(*) FROM games WHERE seat0_name = 'ghost'")[0][0]
    ev = rows(srv.db, "SELECT COUNT(*) FROM events WHERE game_id IN (%s)" %
              ",".join("?" * 3), *ghosts)[0][0]
    sess = rows(srv.db, "SELECT COUNT(*) FROM sessions WHERE player_id = 'p90'")[0][0]
    t.ok((left, ev, sess) == (0, 0, 0),
         "the migration deleted them with their events and sessions", (left, ev, sess))
    serial = rows(srv.db, "SELECT serial FROM games WHERE id = ?", g_new)[0][0]
    t.ok(serial == 5, "a new game does not take a deleted one's serial", serial)
    code, out = check(srv.db)
    t.ok(code == 0, "hokitod --check finds the migrated store sound", out)


def keep_days(t):
    srv = Server()
    try:
        alice = srv.account("Keeper", PW)
        g_guests = played(srv.connect("kg1"), srv.connect("kg2"))
        g_account = played(alice, srv.connect("kg3"))
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    con = sqlite3.connect(srv.db)
    con.execute("UPDATE games SET ended_ms = ended_ms - 3 * ?, created_ms = created_ms - 3 * ?",
                (DAY_MS, DAY_MS))
    con.commit()
    con.close()
    srv = Server("--keep-days", "2", db=srv.db)
    try:
        g_recent = played(srv.connect("kg4"), srv.connect("kg5"))
        t.ok(srv.log_has(r"--keep-days 2: deleted 1 finished games"),
             "a sweep deletes the old game of guests, and says so in the log",
             "".join(srv.log[-5:]))
        r = history(srv.connect("kg6"))
        t.ok(ids(r) == [g_recent, g_account] and r["total"] == 2,
             "history no longer lists it; the old game of an account stays", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    left = [r[0] for r in rows(srv.db, "SELECT id FROM games ORDER BY serial")]
    ev = rows(srv.db, "SELECT COUNT(*) FROM events WHERE game_id = ?", g_guests)[0][0]
    t.ok(left == [g_account, g_recent] and ev == 0,
         "the store file holds the account's game and the recent one only", (left, ev))
    code, out = check(srv.db)
    t.ok(code == 0, "hokitod --check finds the store sound", out)


def fill_old_guest_games(db, n):
    """n copies of the store's game g1 (its events too), ended 10 days ago, without accounts."""
    con = sqlite3.connect(db)
    top = con.execute("SELECT MAX(serial) FROM games").fetchone()[0]
    cols = ("kind, variant, seed, private, code, status, seat0_id, seat0_name, seat1_id, "
            "seat1_name, result, winner, reason, score0, score1, clock")
    old = int(time.time() * 1000) - 10 * DAY_MS
    con.execute(
        "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?) "
        "INSERT INTO games (id, serial, created_ms, ended_ms, " + cols + ") "
        "SELECT 'old' || i, ? + i, ? + i, ? + i, " + cols + " FROM k, games WHERE id = 'g1'",
        (n, top, old, old))
    con.execute(
        "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?) "
        "INSERT INTO events (game_id, seq, time_ms, type, ply, move, body) "
        "SELECT 'old' || i, seq, time_ms, type, ply, move, "
        "replace(body, '\"game\":\"g1\"', '\"game\":\"old' || i || '\"') FROM k, "
        "(SELECT * FROM events WHERE game_id = 'g1' ORDER BY seq)", (n,))
    con.commit()
    con.close()


def old_left(db):
    return rows(db, "SELECT COUNT(*) FROM games WHERE id LIKE 'old%'")[0][0]


def sweep_killed(t):
    srv = Server()
    try:
        played(srv.connect("sk1"), srv.connect("sk2"))
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    fill_old_guest_games(srv.db, 300)
    srv = Server("--keep-days", "1", db=srv.db)
    seen = srv.log_has(r"--keep-days 1: deleted 50 ")
    deadline = time.time() + 10
    while old_left(srv.db) == 300 and time.time() < deadline:
        time.sleep(0.01)  # the batch is committed (its log line comes just before)
    srv.kill()  # kill -9 soon after a batch: the next may be under way
    t.ok(seen, "a sweep deletes a batch of 50", "".join(srv.log[-3:]))
    left = old_left(srv.db)
    code, out = check(srv.db)
    t.ok(code == 0 and left % 50 == 0 and left < 300,
         "after kill -9 the store is sound, whole batches deleted", (left, out))
    srv = Server("--keep-days", "1", db=srv.db)
    try:
        deadline = time.time() + 30
        while old_left(srv.db) > 0 and time.time() < deadline:
            time.sleep(0.2)
        t.ok(old_left(srv.db) == 0, "the restarted server sweeps the rest", old_left(srv.db))
        r = history(srv.connect("sk3"))
        t.ok(ids(r) == ["g1"] and r["total"] == 1, "history counts what is left", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    code, out = check(srv.db)
    t.ok(code == 0, "hokitod --check finds the store sound", out)


def main():
    t = Tap()
    t.run("whose games history lists", whose_history, t)
    t.run("games that never started are not kept", unplayed_not_kept, t)
    t.run("a schema 7 store with games that never started", migration_7, t)
    t.run("--keep-days", keep_days, t)
    t.run("kill -9 during a sweep", sweep_killed, t)
    t.done()


main()
