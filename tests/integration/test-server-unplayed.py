#!/usr/bin/env python3
"""hokitod's lobby list: games that never started (aborted before any move: an open
game that expired, an abort at once, a first move missed) do not fill it.

The server runs with --test-clock, so nothing sleeps. Prints TAP.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap, run_on_server  # noqa: E402


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
    for c in (a, b, k):
        c.close()


def main():
    t = Tap()
    run_on_server(t, Server("--test-clock"), [("games that never started", unplayed)],
                  "hokitod exits 0")
    t.done()


main()
