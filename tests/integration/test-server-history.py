#!/usr/bin/env python3
"""hokitod's lobby list and history (issue 24): games that never started (aborted before any
move: an open game that expired, an abort at once, a first move missed) fill neither; a private
game is in the history of its own players, and of nobody else.

The server runs with --test-clock, so nothing sleeps. Prints TAP.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap  # noqa: E402


def play_one(a, g):
    """a (to move in game g) plays its first legal move."""
    yt = a.wait_for("your_turn")
    while yt["game"] != g:
        yt = a.wait_for("your_turn")
    ok = a.ask({"type": "move", "move": yt["moves"][0]})
    assert ok["type"] == "ok", ok


def unplayed(t, srv):
    a, b, k = srv.connect("ula"), srv.connect("ulb"), srv.connect("ulk")
    # 1. aborted at once, no move
    st = a.ask({"type": "create", "kind": "hokito", "seat": "black"})
    g_abort = st["game"]
    b.ask({"type": "join", "game": g_abort})
    r = a.ask({"type": "abort"})
    assert r["type"] == "ok", r
    a.ask({"type": "leave"})
    b.ask({"type": "leave"})
    # 2. a first move missed (timed game, --first-move 30 s by default)
    st = a.ask({"type": "create", "kind": "oxono", "seat": "pink", "clock": "3+0"})
    g_missed = st["game"]
    b.ask({"type": "join", "game": g_missed})
    k.ask({"type": "test_clock", "advance_ms": 30000})
    over = a.wait_for("game_over")
    t.ok(over["result"] == "aborted" and over["reason"] == "abort", "a first move missed", over)
    a.ask({"type": "leave"})
    b.ask({"type": "leave"})
    # 3. aborted by the second player after one move: it started
    st = a.ask({"type": "create", "kind": "hokito", "seat": "black"})
    g_one = st["game"]
    b.ask({"type": "join", "game": g_one})
    play_one(a, g_one)
    r = b.ask({"type": "abort"})
    assert r["type"] == "ok", r
    a.ask({"type": "leave"})
    b.ask({"type": "leave"})
    # 4. a game played to a resignation
    st = a.ask({"type": "create", "kind": "hokito", "seat": "black"})
    g_played = st["game"]
    b.ask({"type": "join", "game": g_played})
    play_one(a, g_played)
    b.ask({"type": "resign"})
    a.ask({"type": "leave"})
    b.ask({"type": "leave"})

    listed = [g["game"] for g in k.ask({"type": "list"})["games"]]
    t.ok(g_abort not in listed and g_missed not in listed,
         "the lobby lists no game that never started", listed)
    t.ok(g_one in listed and g_played in listed,
         "... and lists those aborted after a move and those played", listed)
    h = k.ask({"type": "history"})
    hist = [g["game"] for g in h["games"]]
    t.ok(g_abort not in hist and g_missed not in hist and h["total"] == len(hist),
         "the history has no game that never started, nor counts it", h)
    t.ok(hist[:2] == [g_played, g_one], "... and has the others, most recent first", hist)
    for c in (a, b, k):
        c.close()
    return g_played


def private_history(t, srv):
    a, b, c = srv.connect("pva"), srv.connect("pvb"), srv.connect("pvc")
    st = a.ask({"type": "create", "kind": "hokito", "seat": "black", "private": True})
    g = st["game"]
    b.ask({"type": "join", "code": st["code"]})
    play_one(a, g)
    a.ask({"type": "resign"})
    ha = a.ask({"type": "history"})
    hb = b.ask({"type": "history"})
    hc = c.ask({"type": "history"})
    ea = [e for e in ha["games"] if e["game"] == g]
    t.ok(len(ea) == 1 and ea[0]["private"] is True and ea[0]["result"]["reason"] == "resign",
         "a private game is in the history of its first player, marked private", ha)
    t.ok(any(e["game"] == g for e in hb["games"]) and hb["total"] == ha["total"],
         "... and of the second player", hb)
    t.ok(all(e["game"] != g for e in hc["games"]) and hc["total"] == ha["total"] - 1
         and all("private" not in e for e in hc["games"]),
         "others never see it (nor count it)", hc)
    for x in (a, b, c):
        x.close()


def main():
    t = Tap()
    srv = Server("--test-clock")
    try:
        t.run("games that never started", unplayed, t, srv)
        t.run("private games in their players' history", private_history, t, srv)
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")
    t.done()


main()
