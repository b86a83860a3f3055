#!/usr/bin/env python3
"""hokitod end to end: two players play a full HOKITO game and a full OXONO game to game over
(random legal moves taken from the server's own your_turn lists) while a spectator watches and
sees every event; the lobby list, quick pairing, private games with invite codes, resign, leave,
and IPv6 loopback.

Run by meson (HOKITOD names the server binary); prints TAP. Deterministic: fixed seeds for the
start positions and for the choice of moves.
"""
import os
import random
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap, movers, play_opening, run_on_server  # noqa: E402

SEATS = {"hokito": ("black", "white"), "oxono": ("pink", "black")}
EVENTS = ("seated", "started", "moved", "game_over")


def play_full_game(t, srv, kind, variant, seed):
    rng = random.Random(seed)
    first, second = SEATS[kind]
    a = srv.connect("alice-" + kind)
    b = srv.connect("bob-" + kind)
    c = srv.connect("carol-" + kind)

    st, _ = a.request({"type": "create", "kind": kind, "variant": variant, "seat": first,
                       "seed": seed})
    t.ok(st["type"] == "state" and st["status"] == "open" and st["seq"] == 1
         and st["you"] == first and st["players"][second] is None
         and st["seed"] == str(seed) and len(st["cells"]) == 36, kind + ": create gives an open state",
         st)
    g = st["game"]

    w, _ = c.request({"type": "watch", "game": g})
    t.ok(w["type"] == "state" and w["you"] == "spectator" and w["seq"] == 1
         and w["spectators"]["count"] == 1, kind + ": spectator gets the full state at once", w)
    na = a.expect("spectators")
    nc = c.expect("spectators")
    t.ok(na["spectators"] == {"count": 1, "names": [c.player["name"]]} and nc == na,
         kind + ": the player sees the spectator list", na)
    time.sleep(0.6)  # the last notice is over 500 ms old: the next one goes at once
    w2, _ = c.request({"type": "watch", "game": g})
    late = a.drain(0.8) + c.drain(0.1)  # past the 500 ms a spectators notice may be held
    t.ok(w2["type"] == "state" and w2["spectators"]["count"] == 1
         and [m["spectators"]["count"] for m in late] == [1, 1],
         kind + ": watching the game one watches again: the state, and a spectators notice "
         "that still counts it (it never left)", late)

    lst, _ = b.request({"type": "list"})
    summary = [x for x in lst["games"] if x["game"] == g]
    t.ok(len(summary) == 1 and summary[0]["status"] == "open" and summary[0]["kind"] == kind
         and summary[0]["variant"] == variant and summary[0]["spectators"] == 1
         and summary[0]["ply"] == 0 and summary[0]["players"][first]["name"] == a.player["name"],
         kind + ": the lobby lists the open game", lst)

    js, _ = b.request({"type": "join", "game": g})
    t.ok(js["type"] == "state" and js["status"] == "live" and js["seq"] == 3
         and js["you"] == second and js["to_move"] == first
         and js["players"][first]["connected"] and js["players"][second]["connected"],
         kind + ": join starts the game", js)
    for cl in (a, c):
        s1 = cl.expect("seated")
        s2 = cl.expect("started")
        assert s1["seq"] == 2 and s1["seat"] == second, s1
        assert s2["seq"] == 3 and s2["to_move"] == first and s2["position"] == js["position"], s2
    t.ok(True, kind + ": the others get seated and started")

    players = {first: a, second: b}
    turn = first
    played = []
    last_moved = None
    over = None
    refused = 0
    while over is None:
        mover = players[turn]
        yt, before = mover.recv_until("your_turn")
        assert all(m["type"] in EVENTS for m in before), before
        assert yt["seq"] == 3 + len(played), yt
        moves = yt["moves"]
        assert moves, "your_turn with no moves"
        mv = rng.choice(moves)
        ok, got = mover.request({"type": "move", "move": mv})
        if ok["type"] != "ok":
            refused += 1
            raise AssertionError("legal move %s refused: %s" % (mv, ok))
        played.append(mv)
        for m in got:
            if m["type"] == "moved":
                assert m["move"] == mv and m["by"] == turn and m["ply"] == len(played), m
                assert m["seq"] == ok["seq"], (m, ok)
                last_moved = m
            elif m["type"] == "game_over":
                over = m
        turn = second if turn == first else first
        assert len(played) < 1000, "game does not end"
    t.ok(refused == 0, kind + ": %d legal moves from the server's lists all accepted" % len(played))

    for cl in (a, b, c):
        if over["seq"] not in cl.events.get(g, {}):
            cl.recv_until("game_over")
    nseq = over["seq"]
    seqs_a = sorted(a.events[g])
    seqs_c = sorted(c.events[g])
    seqs_b = sorted(b.events[g])
    t.ok(seqs_a == list(range(2, nseq + 1)) and seqs_c == seqs_a
         and seqs_b == list(range(4, nseq + 1)),
         kind + ": seq grows by one per event, no gaps (%d events)" % nseq,
         (seqs_a[:5], seqs_b[:5], seqs_c[:5]))
    t.ok(all(a.events[g][s] == c.events[g][s] for s in seqs_a)
         and all(b.events[g][s] == c.events[g][s] for s in seqs_b),
         kind + ": the spectator saw every event, byte for byte as the players")

    t.ok(over["result"] in ("win", "draw") and over["ply"] == len(played)
         and (over["winner"] in (first, second)) == (over["result"] == "win"),
         kind + ": game over carries result, winner and ply", over)
    if kind == "hokito":
        sc = over["scores"]
        expect = ("draw" if sc["black"] == sc["white"] else
                  "black" if sc["black"] > sc["white"] else "white")
        t.ok(over["reason"] == "blocked" and set(sc) == {"black", "white"}
             and (over["winner"] or "draw") == expect and last_moved["to_move"] is None,
             "hokito: game over says blocked, with both scores, the higher score wins", over)
    else:
        t.ok(over["reason"] in ("line", "full") and "scores" not in over
             and (over["reason"] == "full") == (over["result"] == "draw"),
             "oxono: game over says line or full", over)

    fin, _ = c.request({"type": "watch", "game": g})
    t.ok(fin["status"] == "finished" and fin["moves"] == played
         and fin["position"] == last_moved["position"] and fin["ply"] == len(played)
         and fin["to_move"] is None and fin["result"]["result"] == over["result"]
         and fin["result"]["reason"] == over["reason"] and fin["seq"] == nseq,
         kind + ": the final state matches the events", fin)
    c.expect("spectators")
    for cl in (a, b):
        r, _ = cl.request({"type": "move", "move": played[0]})
        assert r["type"] == "error" and r["code"] == "game_over", r
    t.ok(True, kind + ": no move after game over")
    lst, _ = c.request({"type": "list"})
    t.ok(any(x["game"] == g and x["status"] == "finished" and x["result"]["reason"] ==
             over["reason"] for x in lst["games"]), kind + ": the lobby lists the finished game")
    for cl in (a, b, c):
        cl.close()


def quick_private_resign_leave(t, srv):
    d = srv.connect("dora")
    e = srv.connect("emil")
    q1, _ = d.request({"type": "quick", "kind": "hokito"})
    t.ok(q1["type"] == "state" and q1["status"] == "open" and q1["variant"] == "standard",
         "quick pairing with nobody waiting creates a game", q1)
    q2, _ = e.request({"type": "quick", "kind": "hokito"})
    t.ok(q2["type"] == "state" and q2["game"] == q1["game"] and q2["status"] == "live",
         "quick pairing joins the oldest waiting game", q2)
    d.recv_until("started")
    play_opening(*movers(q1, d, e))  # a result needs play: a move each

    r, _ = d.request({"type": "leave"})
    t.ok(r["type"] == "error" and r["code"] == "in_game", "leave during a live game is refused", r)
    r, got = e.request({"type": "resign"})
    over = [m for m in got if m["type"] == "game_over"]
    t.ok(r["type"] == "ok" and r["request"] == "resign" and len(over) == 1
         and over[0]["reason"] == "resign" and over[0]["result"] == "win"
         and over[0]["winner"] == q1["you"] and r["seq"] == over[0]["seq"]
         and "scores" in over[0], "resign ends the game for the opponent", (r, got))
    ov, _ = d.recv_until("game_over")
    t.ok(ov == over[0], "the opponent gets the same game over")
    r, _ = d.request({"type": "leave"})
    t.ok(r["type"] == "ok" and r["request"] == "leave", "leave after game over")

    f = srv.connect("fay")
    h = srv.connect("hugo")
    p, _ = f.request({"type": "create", "kind": "oxono", "private": True, "seat": "random"})
    code = p.get("code")
    t.ok(p["type"] == "state" and p["private"] is True and isinstance(code, str) and len(code) == 16
         and p["you"] in ("pink", "black"), "a private game has an invite code", p)
    lst, _ = h.request({"type": "list"})
    t.ok(all(x["game"] != p["game"] for x in lst["games"]), "a private game is not listed")
    r, _ = h.request({"type": "join", "game": p["game"]})
    t.ok(r["type"] == "error" and r["code"] == "no_such_game", "a private game cannot be joined by id", r)
    r, _ = h.request({"type": "watch", "code": code})
    t.ok(r["type"] == "state" and r["you"] == "spectator" and "code" not in r,
         "a private game can be watched with its code (the code is not shown)", r)
    f.recv_until("spectators")
    r, _ = e.request({"type": "join", "code": code.lower()})
    t.ok(r["type"] == "state" and r["status"] == "live" and r["code"] == code
         and r["reserves"] == {"pink": {"x": 8, "o": 8}, "black": {"x": 8, "o": 8}},
         "a private game is joined with its code, typed in lower case", r)

    i = srv.connect("ida")
    j = srv.connect("jan")
    o, _ = i.request({"type": "create", "kind": "hokito", "variant": "random36"})
    t.ok(o["variant"] == "random36", "a random36 HOKITO game", o)
    j.request({"type": "watch", "game": o["game"]})
    r, _ = i.request({"type": "leave"})
    ab, _ = j.recv_until("game_over")
    t.ok(r["type"] == "ok" and ab["result"] == "aborted" and ab["reason"] == "abandoned"
         and ab["winner"] is None, "the only player leaving an open game aborts it", ab)
    for cl in (d, e, f, h, i, j):
        cl.close()


def list_pages(t):
    """list is paged as history is (PROTOCOL.md 5, list): offset and limit (100 at most and by
    default), total and offset in the reply, the pages in the list's order."""
    srv = Server()
    hosts = []
    try:
        for i in range(105):
            c = srv.connect("host%d" % i)
            r, _ = c.request({"type": "create", "kind": "oxono" if i % 2 else "hokito"})
            assert r["type"] == "state", r
            hosts.append(c)
        v = srv.connect("viewer")
        ids = ["g%d" % i for i in range(1, 106)]
        r, _ = v.request({"type": "list"})
        t.ok(r["type"] == "games" and r["total"] == 105 and r["offset"] == 0 and
             [g["game"] for g in r["games"]] == ids[:100],
             "list: the first 100 of 105 open games, oldest first, and the total", r.get("total"))
        r2, _ = v.request({"type": "list", "offset": 100})
        r3, _ = v.request({"type": "list", "offset": 3, "limit": 2})
        r4, _ = v.request({"type": "list", "offset": 105})
        t.ok([g["game"] for g in r2["games"]] == ids[100:] and r2["offset"] == 100 and
             [g["game"] for g in r3["games"]] == ids[3:5] and r3["total"] == 105 and
             r4["games"] == [] and r4["total"] == 105,
             "list: offset and limit page through it; past the end, an empty page", (r2, r3, r4))
        bad = [v.request({"type": "list", k: x})[0] for k, x in
               (("limit", 0), ("limit", 101), ("offset", -1), ("limit", "5"))]
        t.ok([(b["code"], b.get("field")) for b in bad] ==
             [("bad_value", "limit"), ("bad_value", "limit"), ("bad_value", "offset"),
              ("bad_field", "limit")], "list: a limit of 1 to 100 and an offset of 0 or more",
             bad)
        for c in hosts + [v]:
            c.close()
    finally:
        srv.stop()


def ipv6(t):
    try:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.bind(("::1", 0))
        s.close()
    except OSError:
        print("ok %d - ipv6 loopback # SKIP no ::1 here" % (t.n + 1))
        t.n += 1
        return
    srv = Server(host="::1")
    try:
        c = srv.connect("six")
        r, _ = c.request({"type": "ping"})
        t.ok(r["type"] == "pong" and srv.log_has(r"listening on \[::1\]:\d+"),
             "hokitod listens on [::1]")
        c.close()
    finally:
        srv.stop()


def main():
    t = Tap()
    run_on_server(t, Server(), [
        ("hokito full game", play_full_game, "hokito", "standard", 11),
        ("oxono full game", play_full_game, "oxono", "standard", 12),
        ("hokito second full game", play_full_game, "hokito", "standard", 13),
        ("quick, private, resign, leave", quick_private_resign_leave),
    ], "hokitod exits 0 on SIGTERM")
    t.run("list pages", list_pages, t)
    t.run("ipv6", ipv6, t)
    t.done()


main()
