#!/usr/bin/env python3
"""A rated result needs play (PROTOCOL.md 14), end to end over loopback: the farming attack of
puppet accounts (resignations and agreed draws without a move) moves no rating and puts nobody
on the leaderboard; resign before one's own first move and a draw before both sides moved are
refused with too_early, and abort is the way out; a rated game that ends under
--rated-min-plies is unrated (game_over.unrated "short"), marked so in the store and left out
of profiles; the leaderboard asks --board-min-games and --board-min-opponents; accounts from
one address play casual (unrated "same_address") unless --allow-shared-address; a pair's rated
games past --pair-rated in 24 hours play casual (unrated "pair_limit"), also after a restart,
and rated again a day later (--test-clock); the marks and counts survive kill -9. Every account
connects from a loopback address of its own (127.0.0.x) unless a check says otherwise.
Prints TAP.
"""
import os
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap  # noqa: E402

PW = "correct horse battery"
DAY_MS = 86400000
ADDRS = {}
PUPPETS = 30  # the attack's puppet games

t = Tap()


def addr(name):
    """The loopback address account name connects from, one each: 127.0.0.2, ..."""
    key = name.lower()
    if key not in ADDRS:
        ADDRS[key] = "127.0.%d.%d" % (1 + len(ADDRS) // 250, 2 + len(ADDRS) % 250)
    return ADDRS[key]


def register(srv, name, src=None):
    return srv.account(name, PW, src=src or addr(name))


def login(srv, name, src=None):
    c = srv.connect(src=src or addr(name))
    r, _ = c.request({"type": "hello", "protocol": 1, "name": name, "password": PW})
    assert r["type"] == "welcome", r
    return c


def wait(c, type_, g, timeout=10):
    """The next message of type_ about game g (the clients go from game to game: what is left
    of an earlier one is skipped)."""
    while True:
        m = c.wait_for(type_, timeout)
        if m.get("game") == g:
            return m


def move(c, g):
    """c plays the first legal move of its turn in game g."""
    yt = wait(c, "your_turn", g)
    r = c.ask({"type": "move", "move": yt["moves"][0]})
    assert r["type"] == "ok", r


def opening(a, b, g, moves):
    """a and b, in the order they move, make moves moves each in game g."""
    for _ in range(moves):
        move(a, g)
        move(b, g)


def start(a, b, rated=True):
    """a creates a HOKITO game (black, a moves first), b joins. Returns (a's state, b's)."""
    st = a.ask({"type": "create", "kind": "hokito", "seat": "black", "seed": 5, "rated": rated})
    assert st["type"] == "state", st
    js = b.ask({"type": "join", "game": st["game"]})
    assert js["type"] == "state" and js["status"] == "live", js
    return st, js


def played(a, b, moves=2, end="resign"):
    """A game of a and b: moves moves each, then b resigns (a wins) or they agree a draw.
    Returns (b's join state, a's game_over)."""
    _, js = start(a, b)
    g = js["game"]
    opening(a, b, g, moves)
    if end == "resign":
        r = b.ask({"type": "resign"})
    else:
        assert a.ask({"type": "draw_offer"})["type"] == "ok"
        r = b.ask({"type": "draw_accept"})
    assert r["type"] == "ok", r
    over = wait(a, "game_over", g)
    wait(b, "game_over", g)
    for c in (a, b):
        c.ask({"type": "leave"})
    return js, over


def profile(c, name):
    r = c.ask({"type": "profile", "name": name})
    assert r["type"] == "profile", r
    return r


def board(c):
    r = c.ask({"type": "leaderboard", "kind": "hokito"})
    assert r["type"] == "leaderboard", r
    return [e["player"]["name"] for e in r["entries"]]


def farming():
    """The attack on main at f63fd7c: 60 rated wins in about 4 s against new puppet accounts
    took a rating from 1500 to 2274. Here PUPPETS puppets try it, each the way the server
    lets it go furthest: a resignation at once (too_early), at ply 1 (too_early), an abort
    (no result), and two plies then a resignation (a result, but under --rated-min-plies:
    unrated). The farmer's rating does not move and nobody is on the leaderboard."""
    srv = Server()
    try:
        farmer = register(srv, "Farmer")
        t0 = time.time()
        refused = results = 0
        for i in range(PUPPETS):
            p = register(srv, "Puppet%d" % i)
            st, _ = start(farmer, p)
            r0 = p.ask({"type": "resign"})
            d0 = farmer.ask({"type": "draw_offer"})
            move(farmer, st["game"])
            r1 = p.ask({"type": "resign"})
            refused += r0.get("code") == "too_early" and r1.get("code") == "too_early" and \
                d0.get("code") == "too_early"
            if i % 2:
                r = p.ask({"type": "abort"})
            else:
                move(p, st["game"])
                r = p.ask({"type": "resign"})
            over = wait(farmer, "game_over", st["game"])
            results += r["type"] == "ok" and "ratings" not in over and \
                (over["reason"] == "abort" or over.get("unrated") == "short")
            for c in (farmer, p):
                c.ask({"type": "leave"})
            p.close()
        took = time.time() - t0
        print("# %d puppet games in %.1f s: %d refused at ply 0 and 1, %d ended unrated"
              % (PUPPETS, took, refused, results))
        t.ok(refused == PUPPETS, "farming: every resignation and draw offer before both "
             "sides moved is refused (too_early)", refused)
        t.ok(results == PUPPETS, "farming: aborts and 2-ply resignations change no rating "
             "(game_over has no ratings; the short ones say unrated short)", results)
        pr = profile(farmer, "Farmer")
        t.ok(pr["ratings"] == {} and pr["recent"] == [],
             "farming: the farmer has no rated game and no rating after %d puppets" % PUPPETS,
             pr)
        t.ok(board(farmer) == [], "farming: the leaderboard stays empty")
        # two accounts from one address cannot farm each other either: their games are casual
        a = register(srv, "DrawA", src="127.0.9.1")
        b = register(srv, "DrawB", src="127.0.9.1")
        st, js = start(a, b)
        t.ok(js["rated"] is False and js["unrated"] == "same_address" and
             st["rated"] is True and "unrated" not in st,
             "one address: the game created rated is played casual (state says why)", js)
        started = wait(a, "started", st["game"])
        t.ok(started.get("unrated") == "same_address", "... and its started event says so",
             started)
        r = a.ask({"type": "draw_offer"})
        t.ok(r.get("code") == "too_early", "a draw offer at ply 0: too_early", r)
        opening(a, b, st["game"], 2)
        a.ask({"type": "draw_offer"})
        b.ask({"type": "draw_accept"})
        over = wait(a, "game_over", st["game"])
        t.ok(over["reason"] == "agreement" and "ratings" not in over and
             over.get("unrated") == "same_address", "its draw rates nobody", over)
        t.ok(srv.log_has(r"game g\d+ \(DrawA vs DrawB\) is played casual: same_address"),
             "the casual game is logged")
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def short_games():
    """A rated game that ends under --rated-min-plies plies rates nobody, whatever ends it (a
    resignation, a draw, a flag), and the store says why: history, record, profile, the row."""
    srv = Server("--test-clock", "--first-move", "0")
    db = srv.db
    try:
        a = register(srv, "Shorty")
        b = register(srv, "Longy")
        _, over = played(a, b, moves=1)
        t.ok(over["reason"] == "resign" and over["ply"] == 2 and "ratings" not in over and
             over["unrated"] == "short", "a rated game resigned at ply 2: unrated short", over)
        # on time after one move each, with a clock
        st = a.ask({"type": "create", "kind": "hokito", "seat": "black", "seed": 5,
                    "rated": True, "clock": "1+0"})
        b.ask({"type": "join", "game": st["game"]})
        opening(a, b, st["game"], 1)
        k = srv.connect("clock")
        k.ask({"type": "test_clock", "advance_ms": 61000})
        flag = wait(a, "game_over", st["game"])
        t.ok(flag["reason"] == "time" and "ratings" not in flag and flag["unrated"] == "short",
             "lost on time at ply 2: unrated short too", flag)
        gshort = flag["game"]
        for c in (a, b):
            c.ask({"type": "leave"})
        _, over = played(a, b, moves=2)
        t.ok("ratings" in over and "unrated" not in over,
             "four plies (--rated-min-plies 4): rated", over)
        h = a.ask({"type": "history", "limit": 5})
        by = {e["game"]: e for e in h["games"]}
        t.ok(by[gshort]["rated"] is False and by[gshort]["unrated"] == "short" and
             by[over["game"]]["rated"] is True and "unrated" not in by[over["game"]],
             "history: the short game is not rated and says why", h)
        rec = a.ask({"type": "record", "game": gshort})
        t.ok('[Rated "yes"]' not in rec["text"], "its record is a casual game's", rec)
        pr = profile(a, "Shorty")
        t.ok(pr["ratings"]["hokito"]["games"] == 1 and len(pr["recent"]) == 1 and
             pr["recent"][0]["game"] == over["game"],
             "the profile counts the rated game only", pr)
        srv.kill()
        con = sqlite3.connect(db)
        marks = dict(con.execute("SELECT id, unrated FROM games WHERE rated = 1").fetchall())
        con.close()
        t.ok(marks.get(gshort) == "short" and marks.get(over["game"]) is None,
             "the store marks the short games (games.unrated)", marks)
        srv = Server("--test-clock", "--first-move", "0", db=db)
        a = login(srv, "Shorty")
        h = a.ask({"type": "history", "limit": 5})
        pr = profile(a, "Shorty")
        t.ok([e.get("unrated") for e in h["games"]] == [None, "short", "short"] and
             pr["ratings"]["hokito"]["games"] == 1,
             "after kill -9: the marks and the counts are the same", (h, pr))
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def resign_rules(t_, srv):
    """too_early and abort, with the documented texts: every case before both sides moved has
    a way out."""
    a = register(srv, "Early1")
    b = register(srv, "Early2")
    st, _ = start(a, b)
    g = st["game"]
    r = a.ask({"type": "resign"})
    t.ok(r["type"] == "error" and r["code"] == "too_early" and "abort" in r["text"],
         "ply 0: the first player may not resign: too_early, abort instead", r)
    r = b.ask({"type": "draw_accept"})
    t.ok(r["code"] == "too_early", "ply 0: draw_accept too_early (before no_offer)", r)
    move(a, g)
    r = b.ask({"type": "resign"})
    r2 = a.ask({"type": "abort"})
    t.ok(r["code"] == "too_early" and r2["code"] == "too_late",
         "ply 1: the second player may not resign (it aborts), the first may not abort", (r, r2))
    r = a.ask({"type": "resign"})
    over = wait(b, "game_over", g)
    t.ok(r["type"] == "ok" and over["reason"] == "resign" and over["ply"] == 1 and
         over["unrated"] == "short" and "ratings" not in over,
         "ply 1: the first player, who moved, may resign: a result, not rated", over)
    for c in (a, b):
        c.ask({"type": "leave"})
    st, _ = start(a, b)
    r = b.ask({"type": "abort"})
    over = wait(a, "game_over", st["game"])
    t.ok(r["type"] == "ok" and over["result"] == "aborted" and "unrated" not in over,
         "ply 0: abort ends it, no result", over)
    a.close()
    b.close()


def board_minimums():
    """The leaderboard lists an account with a settled rating only once it has played
    --board-min-games rated games against --board-min-opponents accounts at least: a round
    robin of three reaches RD 110 but has two opponents each; one game against a fourth account
    puts those who played it on the board. Kept across kill -9."""
    srv = Server("--board-min-games", "10", "--board-min-opponents", "3", "--pair-rated", "0")
    db = srv.db
    try:
        cl = [register(srv, n) for n in ("Rob_b", "Sue_b", "Tom_b")]
        for rnd in range(9):
            for i in range(3):
                played(cl[i], cl[(i + 1) % 3], end="resign" if (rnd + i) % 2 else "draw")
        prs = [profile(cl[0], n)["ratings"]["hokito"] for n in ("Rob_b", "Sue_b", "Tom_b")]
        t.ok(all(p["rd"] <= 110 and p["games"] == 18 for p in prs),
             "a round robin of three: 18 rated games each, settled ratings", prs)
        t.ok(board(cl[0]) == [], "... but two opponents each: nobody on the leaderboard "
             "(--board-min-opponents 3)")
        d = register(srv, "Uma_b")
        played(cl[0], d)
        played(d, cl[1])
        t.ok(sorted(board(cl[0])) == ["Rob_b", "Sue_b"],
             "a game against a fourth account: those who played it are listed", board(cl[0]))
        r = cl[0].ask({"type": "leaderboard", "kind": "hokito"})
        t.ok(all(e["opponents"] == 3 and e["games"] == 19 for e in r["entries"]),
             "leaderboard entries give the games and the distinct opponents", r)
        srv.kill()
        srv = Server("--board-min-games", "10", "--board-min-opponents", "3", db=db)
        c = srv.connect("viewer")
        t.ok(sorted(board(c)) == ["Rob_b", "Sue_b"], "after kill -9: the same leaderboard")
        srv.stop()
        srv = Server("--board-min-games", "20", "--board-min-opponents", "0", db=db)
        c = srv.connect("viewer")
        t.ok(board(c) == [], "--board-min-games 20: none has 20 rated games")
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def shared_address():
    """--allow-shared-address: the operator lets accounts of one address play rated games."""
    srv = Server("--allow-shared-address")
    try:
        a = register(srv, "Home1", src="127.0.8.1")
        b = register(srv, "Home2", src="127.0.8.1")
        js, over = played(a, b)
        t.ok(js["rated"] is True and "unrated" not in js and "ratings" in over,
             "with --allow-shared-address one address's accounts play rated games", (js, over))
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def pair_limit():
    """--pair-rated N: the N first rated games of two accounts in any 24 hours rate them; the
    next ones are played casual (unrated "pair_limit"), also after kill -9 (the store's rated
    games of the last day are counted again); a day later they rate again."""
    srv = Server("--test-clock", "--pair-rated", "2")
    db = srv.db
    try:
        a = register(srv, "Pal_a")
        b = register(srv, "Pal_b")
        c = register(srv, "Pal_c")
        overs = [played(a, b)[1] for _ in range(2)]
        js, over = played(a, b)
        t.ok(all("ratings" in o for o in overs) and js["rated"] is False and
             js["unrated"] == "pair_limit" and over.get("unrated") == "pair_limit" and
             "ratings" not in over,
             "--pair-rated 2: the third rated game of a pair is casual, state says why",
             (overs, js, over))
        js, over = played(a, c)
        t.ok(js["rated"] is True and "ratings" in over, "another opponent: rated", over)
        t.ok(srv.log_has(r"is played casual: pair_limit"), "logged")
        srv.kill()
        srv = Server("--test-clock", "--pair-rated", "2", db=db)
        a, b = login(srv, "Pal_a"), login(srv, "Pal_b")
        js, over = played(a, b)
        t.ok(js["unrated"] == "pair_limit" and "ratings" not in over,
             "after kill -9: still casual (the pair's rated games of the day are counted)", js)
        k = srv.connect("clock")
        k.ask({"type": "test_clock", "advance_ms": DAY_MS})
        js, over = played(a, b)
        t.ok(js["rated"] is True and "ratings" in over, "24 hours later: rated again", js)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def main():
    t.run("farming with puppets, from many addresses and from one", farming)
    t.run("short rated games: unrated, marked in the store", short_games)
    srv = Server()
    try:
        t.run("too_early and abort", resign_rules, t, srv)
    finally:
        srv.stop()
    t.run("leaderboard minimums", board_minimums)
    t.run("--allow-shared-address", shared_address)
    t.run("--pair-rated", pair_limit)
    sys.exit(t.done())


main()
