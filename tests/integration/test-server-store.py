#!/usr/bin/env python3
"""test-server-store: hokitod's store over the protocol.

History paging and game records, the lobby's finished games after a restart, a restart that
rebuilds a game with its clock, offers and chat, --fsync always, the --db default, refusal to
start on a file that is no store, and hokitod --check on sound and damaged stores. Run by meson (HOKITOD names the server binary); prints TAP.
"""
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from serverlib import HOKITOD, Server, Tap, arrivals  # noqa: E402
import fairread  # noqa: E402  (tests/bench/fairread.py: fill)

t = Tap()


def play_out(a, b, first_move_only=False):
    """Play the game of a and b to its end (the first legal move each turn)."""
    players = {a.player["id"]: a, b.player["id"]: b}
    for _ in range(80):
        for c in (a, b):
            m, _ = c.recv_until("your_turn") if not c.quiet(0.05) else (None, None)
            if m is None:
                continue
            c.request({"type": "move", "move": m["moves"][0]})
            if first_move_only:
                return
        if all(any(x.get("type") == "game_over" for x in c.backlog) for c in (a, b)):
            break
    return players


def sqlite_exec(path, sql):
    """Run one SQL statement on the SQLite file at path; returns the file's bytes after it."""
    con = sqlite3.connect(path)
    con.execute(sql)
    con.commit()
    con.close()
    with open(path, "rb") as f:
        return f.read()


def finish_by_resign(srv, name, kind="hokito", private=False, moves=2):
    """A game of two new players, a few moves, then a resignation. Returns (a, b, game id)."""
    a = srv.connect(name + "-a")
    b = srv.connect(name + "-b")
    req = {"type": "create", "kind": kind, "seat": "black" if kind == "hokito" else "pink",
           "seed": 7}
    if private:
        req["private"] = True
    st, _ = a.request(req)
    g = st["game"]
    b.request({"type": "join", "code": st["code"]} if private else {"type": "join", "game": g})
    for i in range(moves):
        c = (a, b)[i % 2]
        yt = c.wait_for("your_turn")
        c.request({"type": "move", "move": yt["moves"][0]})
    r, _ = a.request({"type": "resign"})
    assert r["type"] == "ok", r
    return a, b, g, st.get("code")


def history_and_record():
    srv = Server()
    try:
        c = srv.connect("reader")
        r, _ = c.request({"type": "history"})
        t.ok(r["type"] == "history_page" and r["total"] == 0 and r["games"] == []
             and r["offset"] == 0, "history of a new store is empty", r)
        ids = []
        for i in range(7):
            a, b, g, _ = finish_by_resign(srv, "h%d" % i, "oxono" if i % 2 else "hokito")
            ids.append(g)
            a.close()
            b.close()
        pa, pb, pg, code = finish_by_resign(srv, "priv", private=True)
        r, _ = c.request({"type": "history", "limit": 3})
        t.ok(r["total"] == 7 and [x["game"] for x in r["games"]] == ids[::-1][:3],
             "history: total counts public games; most recent first; limit", r)
        r2, _ = c.request({"type": "history", "offset": 3, "limit": 3})
        r3, _ = c.request({"type": "history", "offset": 6, "limit": 3})
        r4, _ = c.request({"type": "history", "offset": 7})
        t.ok([x["game"] for x in r2["games"]] == ids[::-1][3:6] and
             [x["game"] for x in r3["games"]] == ids[:1] and r4["games"] == [] and
             r4["total"] == 7, "history pages with offset", (r2, r3, r4))
        far, _ = c.request({"type": "history", "offset": 1000})
        t.ok(far["type"] == "history_page" and far["games"] == [] and far["total"] == 7 and
             far["offset"] == 1000, "history: an offset up to the cap past the end is empty", far)
        deep = [c.request({"type": "history", "offset": o})[0] for o in (1001, 2 ** 62)]
        t.ok(all(d["type"] == "error" and d["code"] == "bad_value" and d["field"] == "offset" and
                 "after" in d["text"] for d in deep),
             "history: an offset past --max-history-offset (1000) is refused: page by after",
             deep)
        e = r["games"][0]
        t.ok(set(e) == {"game", "kind", "variant", "rated", "players", "ply", "result", "clock",
                        "created_ms", "ended_ms"} and e["result"]["reason"] == "resign" and
             e["rated"] is False and
             all(p["kind"] == "guest" for p in e["players"].values()) and
             e["ply"] == 2 and e["ended_ms"] >= e["created_ms"] > 1.6e12,
             "a history entry: summary, result, times", e)
        bad, _ = c.request({"type": "history", "limit": 500})
        t.ok(bad["type"] == "error" and bad["code"] == "bad_value" and bad["field"] == "limit",
             "history limit above 100 is refused", bad)
        rec, _ = c.request({"type": "record", "game": ids[-1]})
        text = rec.get("text", "")
        t.ok(rec["type"] == "game_record" and rec["game"] == ids[-1] and
             text.startswith('[Game "hokito"]\n') and '[Reason "resign"]' in text and
             '[Black "h6-a"]' in text, "record of a finished game", rec)
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(text)
        eng = os.environ.get("HOKITO_ENGINE")
        if eng:
            p = subprocess.run([eng, "record", f.name], capture_output=True, text=True)
            t.ok(p.returncode == 0, "hokito-engine record accepts the server's record",
                 p.stdout + p.stderr)
        live_a = srv.connect("live-a")
        live_b = srv.connect("live-b")
        st, _ = live_a.request({"type": "create", "kind": "oxono", "seat": "pink", "seed": 3})
        live_b.request({"type": "join", "game": st["game"]})
        rec, _ = c.request({"type": "record", "game": st["game"]})
        t.ok(rec["type"] == "game_record" and '[Result "*"]' in rec["text"],
             "record of a live game: unfinished", rec)
        r, _ = c.request({"type": "record", "game": pg})
        r2, _ = c.request({"type": "record", "code": code})
        t.ok(r["type"] == "error" and r["code"] == "no_such_game" and
             r2["type"] == "game_record" and r2["game"] == pg,
             "a private game's record only by its code", (r, r2))
        r, _ = c.request({"type": "record", "game": "g999"})
        t.ok(r["type"] == "error" and r["code"] == "no_such_game", "record of no game", r)
        status = srv.stop()
        t.ok(status == 0, "hokitod stops", "".join(srv.log[-10:]))
        # after a restart the lobby lists the finished games again; ids go on
        srv = Server("--keep-finished", "3", db=srv.db)
        c = srv.connect("again")
        r, _ = c.request({"type": "list"})
        fin = [x["game"] for x in r["games"] if x["status"] == "finished"]
        # three public games: the private game that finished last is kept too, but not listed
        t.ok(fin == ids[::-1][:3], "after a restart the lobby lists the recent finished games",
             r)
        st, _ = c.request({"type": "create", "kind": "hokito"})
        num = lambda s: int(s[1:])  # noqa: E731
        # the store keeps marks ahead of the counters: the ids may jump (PROTOCOL.md 12.1)
        t.ok(num(st["game"]) >= num(pg) + 2 and num(c.player["id"]) > num(pb.player["id"]),
             "ids continue after a restart, past every id given before", (st["game"], c.player))
        h, _ = c.request({"type": "history"})
        t.ok(h["total"] == 7, "history survives the restart", h)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops again")


def rebuild_match():
    """Clock, draw offer and chat survive a kill -9 (the spectators' kibitz does not, PROTOCOL.md
    12.1); the clock does not run while down."""
    srv = Server("--test-clock", "--first-move", "0")
    db = srv.db
    a = srv.connect("ann")
    b = srv.connect("ben")
    w = srv.connect("wes")
    st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 5,
                       "clock": "5+3"})
    g = st["game"]
    b.request({"type": "join", "game": g})
    w.request({"type": "watch", "game": g})
    yt = a.wait_for("your_turn")
    w.request({"type": "test_clock", "advance_ms": 12000})
    a.request({"type": "move", "move": yt["moves"][0]})
    ytb = b.wait_for("your_turn")
    b.request({"type": "move", "move": ytb["moves"][0]})  # a draw once both sides moved
    b.request({"type": "say", "text": "draw?"})
    w.request({"type": "say", "text": "a spectator's line"})
    ok, _ = b.request({"type": "draw_offer"})
    seen = a.wait_for("draw_offered")
    srv.stop(signal.SIGKILL)
    srv = Server("--test-clock", "--first-move", "0", db=db)
    try:
        a2 = srv.connect()
        r, _ = a2.request({"type": "hello", "protocol": 1, "token": a.token,
                           "last_seq": seen["seq"] - 2})
        got = a2.drain()
        evs = [m for m in got if "seq" in m and m["type"] != "your_turn"]
        t.ok(r["resumed"] and [m["type"] for m in evs] == ["chat", "draw_offered"] and
             a2.lines[2] == a.events[g][seen["seq"]],
             "after kill -9: resume with token and last_seq, the missed events byte for byte",
             got)
        b2 = srv.connect()
        b2.request({"type": "hello", "protocol": 1, "token": b.token})
        s = b2.wait_for("state")
        t.ok(s["clock"]["remaining"] == {"black": 291000, "white": 303000} and
             s["clock"]["running"] == "black" and s["draw_offer"] == "white" and
             s["chat"][-1]["text"] == "draw?" and s["moves"] == [yt["moves"][0], ytb["moves"][0]],
             "rebuilt: clocks as of the last move, the offer, the chat, the moves", s)
        w2 = srv.connect()
        r, _ = w2.request({"type": "hello", "protocol": 1, "token": w.token})
        t.ok(r["type"] == "error" and r["code"] == "bad_token",
             "a spectator's session is not kept ...", r)
        w2.hello("wes")
        st, _ = w2.request({"type": "watch", "game": g})
        t.ok(st["type"] == "state" and st["status"] == "live" and st["kibitz"] == [] and
             st["chat"][-1]["text"] == "draw?",
             "... but it can watch again (the players' chat is kept, the kibitz is not)", st)
        ok, _ = a2.request({"type": "draw_accept"})
        ev = b2.wait_for("game_over")
        t.ok(ok["type"] == "ok" and ev["reason"] == "agreement", "the game goes on", ev)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def over_while_away_restart():
    """A player away when its game ended resumes after a restart within --linger and gets the
    game_over, even though more than --keep-finished games finished since (PROTOCOL.md 12.1);
    the lobby lists --keep-finished of them."""
    srv = Server("--keep-finished", "1")
    db = srv.db
    a, b, g = srv.game_over_while_away()
    for i in range(3):
        finish_by_resign(srv, "ow%d" % i)
    srv.stop(signal.SIGKILL)
    srv = Server("--keep-finished", "1", db=db)
    try:
        a2 = srv.connect()
        r, _ = a2.request({"type": "hello", "protocol": 1, "token": a.token, "last_seq": 5})
        got = a2.drain()
        t.ok(r.get("game") == g and [m["type"] for m in got] == ["game_over", "spectators"],
             "after a restart: back to the game_over missed, > --keep-finished games later",
             (r, got))
        c = srv.connect("lister")
        lst, _ = c.request({"type": "list"})
        fin = [x["game"] for x in lst["games"] if x["status"] == "finished"]
        t.ok(len(fin) == 1 and fin[0] != g, "the lobby lists --keep-finished games", lst)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def at_finished_restart():
    """Players still at their finished game when the server stops resume there after the
    restart (PROTOCOL.md 12.1), however long ago it ended and beyond --keep-finished; before,
    a game that had ended more than --linger before the stop was not rebuilt and their sessions
    were dropped (bad_token)."""
    srv = Server("--keep-finished", "0", "--linger", "1")
    db = srv.db
    a, b, g, _ = finish_by_resign(srv, "af")
    time.sleep(1.3)  # longer ago than --linger; both stay connected at the game
    said, _ = b.request({"type": "say", "text": "gg"})
    a.wait_for("chat")
    srv.stop(signal.SIGKILL)
    srv = Server("--keep-finished", "0", "--linger", "1", db=db)
    try:
        got = {}
        for name, who in (("a", a), ("b", b)):
            x = srv.connect()
            r, _ = x.request({"type": "hello", "protocol": 1, "token": who.token,
                              "last_seq": said["seq"] - 1})
            evs = [m["type"] for m in x.drain() if m["type"] != "spectators"]
            got[name] = (r.get("code") if r["type"] == "error" else r.get("game"), evs,
                         x.lines[1:2] == [who.events[g][said["seq"]]])
        t.ok(got == {"a": (g, ["chat"], True), "b": (g, ["chat"], True)},
             "after a restart: players still at a game that ended more than --linger ago, "
             "beyond --keep-finished, resume at it with the missed chat byte for byte", got)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def rematch_offer_restart():
    """A standing rematch offer survives a restart (PROTOCOL.md 12.1) and can be accepted; one
    that lapsed when a player left the finished game (5: rematch) stays lapsed. Before, the
    lapsed offer came back in state.rematch_offer."""
    srv = Server()
    db = srv.db
    a, b, g, _ = finish_by_resign(srv, "rs")
    a.request({"type": "rematch"})
    c, d, g2, _ = finish_by_resign(srv, "rl")
    c.request({"type": "rematch"})
    d.wait_for("rematch_offered")
    d.request({"type": "leave"})
    srv.stop(signal.SIGKILL)
    srv = Server(db=db)
    try:
        got = []
        for who in (b, c):
            x = srv.connect()
            x.request({"type": "hello", "protocol": 1, "token": who.token})
            got.append((x, x.wait_for("state")))
        (b2, sb), (c2, sc) = got
        t.ok(sb["game"] == g and sb["rematch_offer"] == "black" and sc["game"] == g2 and
             sc["rematch_offer"] is None,
             "after a restart: the standing rematch offer is back, the lapsed one is not",
             (sb, sc))
        a2 = srv.connect()
        a2.request({"type": "hello", "protocol": 1, "token": a.token})
        r, _ = b2.request({"type": "rematch"})
        t.ok(r["type"] == "state" and r["status"] == "live" and r["you"] == "black" and
             int(r["game"][1:]) > int(g2[1:]), "... and accepting it starts the rematch", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def timers_restart():
    """What runs from the restart (PROTOCOL.md 12.1): every seated player gets a whole grace
    period (a grace_over before the stop no longer allows a claim; a new one comes --grace after
    the start, on the away player's turn), an adjourned game comes back adjourned and resumes
    when both players are back, an open private game is joined by its code, and a live game
    none of its players comes back to is adjourned --grace after the start and abandoned --linger
    after it. The clocks go on from the grace_over stored last (5+0: white 290 s)."""
    # no first-move timer: these clocks run from the start, as they did before it came
    args = ("--test-clock", "--grace", "10", "--linger", "30", "--first-move", "0")
    srv = Server(*args)
    db = srv.db
    tk = srv.connect("tm-clock")
    a = srv.connect("tm-a")
    b = srv.connect("tm-b")
    st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 5,
                       "clock": "5+0"})
    g = st["game"]
    b.request({"type": "join", "game": g})
    yt = a.wait_for("your_turn")
    a.request({"type": "move", "move": yt["moves"][0]})
    b.wait_for("your_turn")
    b.close()
    c = srv.connect("tm-c")
    d = srv.connect("tm-d")
    st, _ = c.request({"type": "create", "kind": "oxono", "seat": "pink", "seed": 5})
    g2 = st["game"]
    d.request({"type": "join", "game": g2})
    yt = c.wait_for("your_turn")
    c.request({"type": "move", "move": yt["moves"][0]})
    d.wait_for("your_turn")
    d.close()
    e = srv.connect("tm-e")
    st, _ = e.request({"type": "create", "kind": "hokito", "private": True})
    g3, code = st["game"], st["code"]
    f = srv.connect("tm-f")
    h = srv.connect("tm-h")
    st, _ = f.request({"type": "create", "kind": "hokito"})
    g4 = st["game"]
    h.request({"type": "join", "game": g4})
    tk.request({"type": "test_clock", "advance_ms": 11000})
    a.wait_for("grace_over")
    c.wait_for("adjourned")
    srv.stop(signal.SIGKILL)
    srv = Server(*args, db=db)
    try:
        tk = srv.connect("tm-clock")
        a2 = srv.connect()
        a2.request({"type": "hello", "protocol": 1, "token": a.token})
        a2.wait_for("state")
        pres = a2.wait_for("presence")
        r, _ = a2.request({"type": "claim", "result": "win"})
        tk.request({"type": "test_clock", "advance_ms": 9000})
        early = a2.quiet(0.2)
        tk.request({"type": "test_clock", "advance_ms": 1000})
        go = a2.wait_for("grace_over")
        r2, _ = a2.request({"type": "claim", "result": "win"})
        t.ok(pres["grace_ms"] == 10000 and not pres["grace_over"] and r.get("code") ==
             "cannot_claim" and early and go["clocks"]["white"] == 280000 and
             r2["type"] == "ok", "after a restart: a whole grace period again, then a claim",
             (pres, r, early, go, r2))
        w = srv.connect("tm-w")
        st, _ = w.request({"type": "watch", "game": g2})
        c2 = srv.connect()
        c2.request({"type": "hello", "protocol": 1, "token": c.token})
        d2 = srv.connect()
        d2.request({"type": "hello", "protocol": 1, "token": d.token})
        ev = w.wait_for("resumed")
        t.ok(st["status"] == "adjourned" and ev["to_move"] == "black" and
             d2.wait_for("your_turn")["game"] == g2,
             "an adjourned game comes back adjourned; both players back: resumed", (st, ev))
        j, _ = w.request({"type": "join", "code": code})
        t.ok(j["type"] == "state" and j["game"] == g3 and j["status"] == "live",
             "an open private game is joined by its invite code after a restart", j)
        tk.request({"type": "test_clock", "advance_ms": 19000})
        lst, _ = w.request({"type": "list"})
        before = [x["status"] for x in lst["games"] if x["game"] == g4]
        tk.request({"type": "test_clock", "advance_ms": 1500})
        # a game that never started is not in the list any more: watch it instead
        lst, _ = w.request({"type": "list"})
        st4, _ = tk.request({"type": "watch", "game": g4})
        after = [(st4["status"], (st4["result"] or {}).get("reason"))]
        t.ok(before == ["adjourned"] and after == [("finished", "abandoned")]
             and all(x["game"] != g4 for x in lst["games"]),
             "a live game nobody comes back to is adjourned --grace after the start, and "
             "abandoned --linger after it",
             (before, after))
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def private_keep_finished():
    """Private games finishing do not push the public ones off the lobby (PROTOCOL.md 2: the
    --keep-finished most recent finished games are listed; private games never are), before a
    restart and after it; before, a private game's end made the public game unlisted and
    unknown to watch."""
    srv = Server("--keep-finished", "1")
    db = srv.db
    _, _, g, _ = finish_by_resign(srv, "pk")
    finish_by_resign(srv, "pq", private=True)
    c = srv.connect("pk-c")
    lst, _ = c.request({"type": "list"})
    st, _ = c.request({"type": "watch", "game": g})
    t.ok([x["game"] for x in lst["games"]] == [g] and st["type"] == "state",
         "a private game that finished later leaves the public one listed", (lst, st))
    srv.stop(signal.SIGKILL)
    srv = Server("--keep-finished", "1", db=db)
    try:
        c = srv.connect("pk-d")
        lst, _ = c.request({"type": "list"})
        t.ok([x["game"] for x in lst["games"]] == [g], "and after a restart", lst)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def left_restart():
    """A player who left its finished game, or went on to watch another, is at no game: after a
    restart its token is bad_token (PROTOCOL.md 12.1: sessions of spectators and of players at no
    game are not kept), while the opponent still at the finished game resumes there; a player
    who left an adjourned game keeps its seat, and resumes at it."""
    srv = Server("--grace", "1")
    db = srv.db
    a, b, g, _ = finish_by_resign(srv, "lr")
    ok, _ = a.request({"type": "leave"})
    c, d, g2, _ = finish_by_resign(srv, "lw")
    st, _ = c.request({"type": "watch", "game": g})
    e = srv.connect("lr-e")
    f = srv.connect("lr-f")
    st3, _ = e.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 7})
    g3 = st3["game"]
    f.request({"type": "join", "game": g3})
    yt = e.wait_for("your_turn")
    e.request({"type": "move", "move": yt["moves"][0]})
    f.close()  # its grace runs on its own turn
    e.wait_for("adjourned", timeout=10)
    r, _ = e.request({"type": "leave"})
    t.ok(ok["type"] == "ok" and st["type"] == "state" and r["type"] == "ok",
         "one player leaves its finished game, one watches another, one leaves an adjourned "
         "game", (ok, st, r))
    srv.stop(signal.SIGKILL)
    srv = Server("--grace", "1", db=db)
    try:
        got = {}
        for name, who in (("left", a), ("watching", c), ("stayed", b), ("adjourned", e)):
            x = srv.connect()
            r, _ = x.request({"type": "hello", "protocol": 1, "token": who.token})
            got[name] = r.get("code") if r["type"] == "error" else r.get("game")
        t.ok(got == {"left": "bad_token", "watching": "bad_token", "stayed": g,
                     "adjourned": g3},
             "after a restart: bad_token for the player who left and the one now watching; "
             "the one still at its finished game, and the one who left an adjourned game, "
             "resume at their games", got)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def fsync_always():
    srv = Server("--fsync", "always")
    try:
        t.ok(srv.log_has(r"fsync always"), "--fsync always is taken")
        a, b, g, _ = finish_by_resign(srv, "fs")
        r, _ = a.request({"type": "history"})
        t.ok(r["total"] == 1, "a game is stored with --fsync always", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    p = subprocess.run([HOKITOD, "--fsync", "sometimes"], capture_output=True, text=True)
    t.ok(p.returncode == 2 and "--fsync wants normal or always" in p.stderr,
         "--fsync with a bad value", p.stderr)
    h = subprocess.run([HOKITOD, "--help"], capture_output=True, text=True).stdout
    t.ok("--db PATH" in h and "STATE_DIRECTORY" in h and "--fsync normal|always" in h,
         "--help documents --db and --fsync")


def start_fails(db, *extra, prefix=()):
    """Run hokitod on db; return (exit status, its stderr); kill it if it does start."""
    p = subprocess.Popen(list(prefix) + [os.path.abspath(HOKITOD), "--listen", "127.0.0.1:0",
                                         "--db", db] + list(extra),
                         stderr=subprocess.PIPE, text=True)
    try:
        _, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        return None, err
    return p.returncode, err


def fill_finished(db, n):
    """n finished public games (no events) straight into the store file of a stopped server,
    ids f1..fn, ending three at a time (ties in ended_ms) long before the server's games."""
    fairread.fill(db, n, created="1000 + i", ended="2000 + i / 3")


def history_by_cursor():
    """history pages by key: `after` takes the `next` of the page before; the same games as
    paging by offset; replies keep the order of requests; another connection's requests are not
    held behind a connection's reads."""
    srv = Server()
    try:
        ids = [finish_by_resign(srv, "k%d" % i)[2] for i in range(3)]
    finally:
        srv.stop()
    fill_finished(srv.db, 5000)
    # the filled games have no events to load; deep offsets allowed, to compare them with after
    srv = Server("--keep-finished", "0", "--max-history-offset", "5000", db=srv.db)
    try:
        c = srv.connect("pager")
        pages, after = [], None
        while len(pages) < 100:
            req = {"type": "history", "limit": 100}
            if after is not None:
                req["after"] = after
            r, _ = c.request(req)
            assert r["type"] == "history_page", r
            pages.append(r)
            after = r.get("next")
            if after is None:
                break
        got = [g["game"] for p in pages for g in p["games"]]
        t.ok(len(pages) == 51 and len(got) == 5003 and len(set(got)) == 5003 and
             got[:3] == ids[::-1] and got[3:6] == ["f5000", "f4999", "f4998"] and
             got[-1] == "f1" and all(p["total"] == 5003 for p in pages) and
             all("next" in p for p in pages[:-1]),
             "history by cursor: every game once, in order, and no next on the last page",
             (len(pages), len(got), got[:8], got[-3:]))
        by_offset = []
        for off in (0, 100, 4900, 5000):
            r, _ = c.request({"type": "history", "offset": off, "limit": 100})
            by_offset.append([g["game"] for g in r["games"]])
        t.ok(by_offset == [got[0:100], got[100:200], got[4900:5000], got[5000:]],
             "the pages by offset are the same games", [x[:2] for x in by_offset])
        r, _ = c.request({"type": "history", "after": pages[0]["next"], "offset": 2,
                          "limit": 1})
        t.ok([g["game"] for g in r["games"]] == [got[102]], "offset counts from after", r)
        bad = [c.request({"type": "history", "after": x})[0] for x in ("x", "1.2.3", "")]
        t.ok(all(b["type"] == "error" and b["code"] == "bad_value" and b["field"] == "after"
                 for b in bad), "an after that is no next: bad_value", bad)
        bad, _ = c.request({"type": "history", "after": 5})
        t.ok(bad["type"] == "error" and bad["code"] == "bad_field" and bad["field"] == "after",
             "an after that is no string: bad_field", bad)
        # one connection's replies in the order of its requests, reads or not
        c.send_raw(b'{"type":"history","offset":4000,"id":1}\n{"type":"ping","id":2}\n'
                   b'{"type":"record","game":"f7","id":3}\n{"type":"ping","id":4}\n'
                   b'{"type":"history","limit":1,"id":5}\n')
        got = [c.recv() for _ in range(5)]
        t.ok([(m["type"], m["id"]) for m in got] ==
             [("history_page", 1), ("pong", 2), ("game_record", 3), ("pong", 4),
              ("history_page", 5)], "replies come in the order of the requests",
             [(m["type"], m.get("id")) for m in got])
        # a connection that loops deep pages does not hold another one's ping
        a, b = srv.connect("deep"), srv.connect("pinger")
        a.send_raw(b"".join(b'{"type":"history","offset":4900,"limit":100,"id":%d}\n' % i
                            for i in range(1, 41)))
        b.send({"type": "ping", "id": "p"})
        order = arrivals([("a", a), ("b", b)],
                         lambda o: sum(1 for n, m in o if n == "a") == 40 and
                         any(n == "b" for n, m in o))
        seen_a = [m.get("id") for n, m in order if n == "a"]
        pong_at = next((i for i, (n, m) in enumerate(order) if n == "b"), None)
        t.ok(seen_a == list(range(1, 41)) and pong_at is not None and
             order[pong_at][1]["type"] == "pong" and
             sum(1 for n, m in order[:pong_at] if n == "a") < 40,
             "another connection's ping is answered before the deep pages are all read",
             (pong_at, len(order)))
        # the store is sound after all that, and --check says so beside the running server
        code, out, err = check(srv.db)
        t.ok(code == 0 and out.endswith(": sound\n"), "--check beside a running server",
             (code, out, err))
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def check(db):
    """hokitod --check --db db: (exit status, stdout, stderr)."""
    p = subprocess.run([HOKITOD, "--check", "--db", db], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def damaged_store():
    """What start reads of a store is checked at start (a file that is no store of ours is
    refused); damage anywhere in the file is found by hokitod --check, which reads all of it
    (start no longer does: about a minute per million games)."""
    srv = Server()
    for i in range(3):
        finish_by_resign(srv, "d%d" % i, moves=6)
    srv.stop()
    db = srv.db
    code, out, err = check(db)
    t.ok(code == 0 and out == "%s: sound\n" % db and err == "", "--check: a sound store", (code, out, err))
    size = os.path.getsize(db)
    data = open(db, "rb").read()
    # garble a page in the middle of the file
    garbled = db + ".garbled"
    with open(garbled, "wb") as f:
        f.write(data[:2 * 4096] + bytes(range(256)) * 16 + data[3 * 4096:])
    code, out, err = check(garbled)
    t.ok(code == 1 and ("damaged" in out or "damaged" in err),
         "--check: a garbled store: damaged, exit 1", (code, out, err))
    # garble many pages: SQLite's findings are long, each is one whole line
    garbled2 = db + ".garbled2"
    with open(garbled2, "wb") as f:
        f.write(data[:4096] + data[4096:4200] + bytes(range(256)) * 16 * (size // 4096 - 1))
    code, out, err = check(garbled2)
    lines = out.splitlines()
    t.ok(code == 1 and ((lines and lines[-1].startswith(garbled2 + ": damaged: ") and
                         all(x.startswith(garbled2 + ": ") for x in lines)) or
                        "cannot check the store" in err),
         "--check: a store garbled all over: damaged, one line a finding", (code, out, err))
    trunc = db + ".trunc"
    with open(trunc, "wb") as f:
        f.write(data[:size // 2])
    code, out, err = check(trunc)
    t.ok(code == 1 and ("damaged" in out or "damaged" in err), "--check: a truncated store",
         (code, out, err))
    # a rule of the store's own: an event lost in the middle of a game
    gap = db + ".gap"
    shutil.copy(db, gap)
    sqlite_exec(gap, "DELETE FROM events WHERE game_id = 'g2' AND seq = 5")
    code, out, err = check(gap)
    t.ok(code == 1 and "the events of game 'g2' are not numbered 1..n without a gap" in out and
         out.endswith("damaged: 2 findings\n"), "--check: a gap in a game's events (a move)",
         (code, out))
    code, out, err = check(os.path.join(os.path.dirname(db), "nothere.db"))
    t.ok(code == 1 and "cannot check the store" in err, "--check: no such file", err)
    code, out, err = check(":memory:")
    t.ok(code == 2, "--check: :memory: is bad usage", err)
    empty = db + ".empty"
    open(empty, "wb").close()
    code, err = start_fails(empty)
    t.ok(code == 1 and "empty" in err, "an empty store file: refused", err)
    text = db + ".txt"
    with open(text, "w") as f:
        f.write("not a database\n" * 300)
    code, err = start_fails(text)
    t.ok(code == 1 and "not an SQLite database" in err, "a file that is no store: refused",
         err)
    code, out, err = check(text)
    t.ok(code == 1 and "not an SQLite database" in err, "--check: a file that is no store", err)
    h = subprocess.run([HOKITOD, "--help"], capture_output=True, text=True).stdout
    t.ok("--check" in h, "--help documents --check")


def unusable_store():
    """Stores hokitod cannot use: one clear line, exit 1, and the file left as it was."""
    import hashlib
    srv = Server()
    finish_by_resign(srv, "u")
    srv.stop()
    tmp = tempfile.mkdtemp(prefix="hokitod-unusable-")
    os.chmod(tmp, 0o777)
    good = open(srv.db, "rb").read()

    def copy(name):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(good)
        return path

    def one_error(err, pattern):
        lines = [x for x in err.splitlines() if " error: " in x]
        return len(lines) == 1 and re.search(pattern, lines[0])

    code, err = start_fails(os.path.join(tmp, "missing", "hokito.db"))
    t.ok(code == 1 and one_error(err, r"cannot use the directory .*missing \(No such file"),
         "a store in a directory that does not exist: named", err)
    code, err = start_fails(tmp)
    t.ok(code == 1 and one_error(err, r"a directory, not a store file"),
         "a directory as the store: refused", err)
    fifo = os.path.join(tmp, "fifo.db")
    os.mkfifo(fifo)
    code, err = start_fails(fifo)
    t.ok(code == 1 and one_error(err, r"not a regular file") and
         sorted(os.listdir(tmp)) == ["fifo.db"], "a pipe as the store: refused, nothing made",
         err)
    os.unlink(fifo)
    other = os.path.join(tmp, "other.db")
    before = sqlite_exec(other, "CREATE TABLE t (x)")
    code, err = start_fails(other)
    t.ok(code == 1 and one_error(err, r"not a hokitod store") and
         open(other, "rb").read() == before, "another SQLite database: refused, untouched", err)
    newer = copy("newer.db")
    before = sqlite_exec(newer, "PRAGMA user_version = 99")
    code, err = start_fails(newer)
    t.ok(code == 1 and one_error(err, r"schema version 99 is newer") and
         open(newer, "rb").read() == before, "a newer schema version: refused, untouched", err)
    busy = Server(db=copy("busy.db"))
    try:
        code, err = start_fails(busy.db)
        t.ok(code == 1 and one_error(err, r"in use by another process"),
             "a store another hokitod holds: refused", err)
    finally:
        busy.stop()
    # permissions: as root they do not apply, so run as nobody when root
    prefix = ()
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            t.ok(True, "permission checks # SKIP root, and no setpriv")
            return
        prefix = (setpriv, "--reuid=65534", "--regid=65534", "--clear-groups")
        os.chown(tmp, 65534, 65534)
    ro = copy("ro.db")
    os.chmod(ro, 0o444)
    if prefix:
        os.chown(ro, 65534, 65534)
    code, err = start_fails(ro, prefix=prefix)
    t.ok(code == 1 and one_error(err, r"cannot read and write the file \(Permission denied") and
         open(ro, "rb").read() == good, "a read-only store file: named, untouched", err)
    rodir = os.path.join(tmp, "rodir")
    os.mkdir(rodir)
    inside = os.path.join(rodir, "hokito.db")
    with open(inside, "wb") as f:
        f.write(good)
    if prefix:
        os.chown(rodir, 65534, 65534)
        os.chown(inside, 65534, 65534)
    os.chmod(rodir, 0o555)
    code, err = start_fails(inside, prefix=prefix)
    t.ok(code == 1 and one_error(err, r"cannot create files in .*rodir \(Permission denied") and
         open(inside, "rb").read() == good and os.listdir(rodir) == ["hokito.db"],
         "a store in a read-only directory: named, untouched", err)
    code, err = start_fails(os.path.join(rodir, "new.db"), prefix=prefix)
    t.ok(code == 1 and one_error(err, r"cannot create files in") and
         os.listdir(rodir) == ["hokito.db"], "a new store in a read-only directory: named", err)
    os.chmod(rodir, 0o755)


def full_disk():
    """A store that cannot grow (RLIMIT_FSIZE: a full disk without mounting one): at start, one
    line and exit 1; while serving, the commit that fails stops writes, not the server (nothing
    of its turn sent; test-server-fulldisk.py has the rest), and after a kill -9 and a restart
    with room every acknowledged move is back."""
    import resource
    from serverlib import Client

    srv = Server()
    a, b, g, _ = finish_by_resign(srv, "full")
    srv.stop()
    db = srv.db

    def start(limit):
        def pre():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        port_file = db + ".port"
        if os.path.exists(port_file):
            os.unlink(port_file)
        p = subprocess.Popen([os.path.abspath(HOKITOD), "--listen", "127.0.0.1:0", "--db", db,
                              "--port-file", port_file], stderr=subprocess.PIPE, text=True,
                             preexec_fn=pre)
        for _ in range(200):
            if os.path.exists(port_file) or p.poll() is not None:
                break
            subprocess.run(["sleep", "0.02"])
        port = int(open(port_file).read()) if os.path.exists(port_file) else None
        return p, port

    p, port = start(1024)
    _, err = p.communicate(timeout=10)
    lines = [x for x in err.splitlines() if " error: " in x]
    # the store cannot even make its -shm file (32 KiB): one line that names the cause
    t.ok(p.returncode == 1 and port is None and len(lines) == 1 and
         "the store" in lines[0] and "File too large" in lines[0],
         "no room for the store at start: one line naming the cause, exit 1", err)
    p, port = start(os.path.getsize(db) + 64 * 1024)
    acked = []
    held = refused = None
    try:
        x = Client("127.0.0.1", port)
        y = Client("127.0.0.1", port)
        z = Client("127.0.0.1", port)
        x.hello("fx")
        y.hello("fy")
        z.hello("fz")
        st, _ = x.request({"type": "create", "kind": "hokito", "seat": "black"})
        y.request({"type": "join", "game": st["game"]})
        for i in range(400):
            c = (x, y)[i % 2]
            yt = c.wait_for("your_turn")
            c.send({"type": "move", "move": yt["moves"][0], "id": 1000 + i})
            try:
                while True:
                    r = c.recv(3)
                    if r.get("id") == 1000 + i:
                        break
            except TimeoutError:
                held = yt["moves"][0]  # no room for it: not acknowledged, the server stays
                break
            if r["type"] != "ok":
                break
            acked.append(yt["moves"][0])
        refused, _ = z.request({"type": "create", "kind": "oxono"})
    except Exception:
        pass
    up = p.poll() is None
    p.kill()
    p.wait()
    err = p.stderr.read()
    t.ok(up and held and 0 < len(acked) < 400 and "store: cannot write" in err,
         "no room for a commit while serving: the move gets no reply, the server stays up "
         "(%d moves acknowledged)" % len(acked), err[-2000:])
    t.ok(refused is not None and refused.get("code") == "store_unavailable",
         "meanwhile another player's create is refused: store_unavailable", refused)
    srv = Server(db=db)
    try:
        w = srv.connect("fw")
        rec, _ = w.request({"type": "record", "game": st["game"]})
        moves = re.findall(r"[a-f][1-6]-[a-f][1-6]", rec.get("text", "").split("\n\n", 1)[-1])
        t.ok(moves == acked,
             "after a restart with room, the acknowledged moves are all there, no more",
             (acked, moves))
    finally:
        srv.stop()


def default_path():
    tmp = tempfile.mkdtemp(prefix="hokitod-default-")
    env = dict(os.environ, STATE_DIRECTORY=tmp + ":/nonexistent")
    p = subprocess.Popen([os.path.abspath(HOKITOD), "--listen", "127.0.0.1:0", "--port-file",
                          os.path.join(tmp, "port")], env=env, stderr=subprocess.PIPE,
                         text=True, cwd=tmp)
    for _ in range(100):
        if os.path.exists(os.path.join(tmp, "port")):
            break
        subprocess.run(["sleep", "0.05"])
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=10)
    t.ok(p.returncode == 0 and os.path.exists(os.path.join(tmp, "hokito.db")),
         "the default store is $STATE_DIRECTORY/hokito.db, created on first start", err)


def store_mode():
    """A new store holds the session tokens: it and its -wal and -shm are the owner's only."""
    srv = Server()
    try:
        finish_by_resign(srv, "mode")
        d = os.path.dirname(srv.db)
        modes = {f: oct(os.stat(os.path.join(d, f)).st_mode & 0o777) for f in os.listdir(d)
                 if f.startswith("hokito.db")}
        # the store, its -wal and -shm, and the admin socket beside it (hokito.db.sock)
        t.ok(len(modes) == 4 and set(modes.values()) == {"0o600"},
             "a new store, its -wal and -shm, and the admin socket have mode 0600", modes)
    finally:
        srv.stop()


def port_taken():
    """A start that fails, here on a port already taken, leaves no new store behind, and an
    existing store as it was."""
    tmp = tempfile.mkdtemp(prefix="hokitod-taken-")
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        new = os.path.join(tmp, "new.db")
        code, err = start_fails(new, "--listen", "127.0.0.1:%d" % port)
        t.ok(code == 1 and "address already in use" in err and os.listdir(tmp) == [],
             "a start on a taken port fails (exit 1) and leaves no new store file",
             (code, err, os.listdir(tmp)))
        srv = Server(db=os.path.join(tmp, "old.db"))
        finish_by_resign(srv, "keep")
        srv.stop()
        before = open(srv.db, "rb").read()
        code, err = start_fails(srv.db, "--listen", "127.0.0.1:%d" % port)
        t.ok(code == 1 and open(srv.db, "rb").read() == before,
             "a failed start keeps an existing store as it was", (code, err))
    finally:
        holder.close()
        shutil.rmtree(tmp, ignore_errors=True)


def stop_at_once():
    """SIGTERM or SIGINT as soon as the port file is written (as a test or systemd may send it)
    stops the server cleanly: exit 0, the WAL copied into the store and removed
    (hokitod(8))."""
    bad = []
    for i in range(20):
        tmp = tempfile.mkdtemp(prefix="hokitod-stop-")
        port_file = os.path.join(tmp, "port")
        p = subprocess.Popen([os.path.abspath(HOKITOD), "--listen", "127.0.0.1:0", "--port-file",
                              port_file, "--db", os.path.join(tmp, "hokito.db")],
                             stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline and p.poll() is None and not (
                os.path.exists(port_file) and os.path.getsize(port_file) > 0):
            pass
        p.send_signal((signal.SIGTERM, signal.SIGINT)[i % 2])
        try:
            rc = p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = None
        if rc != 0 or sorted(os.listdir(tmp)) != ["hokito.db", "port"]:
            bad.append((rc, sorted(os.listdir(tmp))))
        shutil.rmtree(tmp, ignore_errors=True)
    t.ok(not bad, "SIGTERM or SIGINT right after the port file: a clean stop, exit 0", bad)


t.run("history and record", history_and_record)
t.run("history by cursor", history_by_cursor)
t.run("a failed start leaves no store", port_taken)
t.run("rebuild a match", rebuild_match)
t.run("game over while away, restart", over_while_away_restart)
t.run("left, then restart", left_restart)
t.run("at a finished game, restart", at_finished_restart)
t.run("rematch offers, restart", rematch_offer_restart)
t.run("grace, adjournment, linger from the restart", timers_restart)
t.run("private games and --keep-finished", private_keep_finished)
t.run("fsync always", fsync_always)
t.run("damaged store", damaged_store)
t.run("unusable store", unusable_store)
t.run("full disk", full_disk)
t.run("default path", default_path)
t.run("stop at once", stop_at_once)
t.run("store mode", store_mode)
t.done()
