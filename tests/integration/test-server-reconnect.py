#!/usr/bin/env python3
"""hokitod reconnection: a player who loses the connection mid-game comes back with its token and
the last seq it saw and gets exactly the events it missed, byte for byte; without last_seq it
gets a full state; the opponent and the spectators are told of the drop and the return; a
spectator resumes too; a second connection with the same token replaces the first; a bad token is
refused. Prints TAP.
"""
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap, movers, play_opening, run_on_server  # noqa: E402


def setup_game(srv, kind="hokito"):
    a = srv.connect("ana")
    b = srv.connect("ben")
    c = srv.connect("cleo")
    first = "black" if kind == "hokito" else "pink"
    st, _ = a.request({"type": "create", "kind": kind, "seat": first, "seed": 21})
    g = st["game"]
    c.request({"type": "watch", "game": g})
    a.expect("spectators")
    c.expect("spectators")
    b.request({"type": "join", "game": g})
    a.recv_until("started")
    c.recv_until("started")
    return a, b, c, g




def move(mover, rng):
    yt, _ = mover.recv_until("your_turn")
    ok, got = mover.request({"type": "move", "move": rng.choice(yt["moves"])})
    assert ok["type"] == "ok", ok
    return ok


def reconnect_missed_events(t, srv):
    rng = random.Random(5)
    a, b, c, g = setup_game(srv)
    move(a, rng)
    move(b, rng)
    move(a, rng)
    ok = move(b, rng)           # b's last move; b has seen everything up to ok["seq"]
    last_seen = max(b.events[g])
    t.ok(last_seen == ok["seq"], "the player saw its own move event", (last_seen, ok))
    token = b.token
    b.close()
    pa = a.wait_for("presence")
    pc = c.wait_for("presence")
    t.ok(pa["connected"] is False and pa["seat"] == "white" and pa == pc
         and pa["player"]["id"] == b.player["id"],
         "opponent and spectator are told the player dropped", pa)

    move(a, rng)                # the opponent moves while b is away
    missed_seq = max(a.events[g])
    b2 = srv.connect()
    w, _ = b2.request({"type": "hello", "protocol": 1, "token": token, "last_seq": last_seen})
    t.ok(w["type"] == "welcome" and w["resumed"] is True and w["game"] == g
         and w["player"] == b.player and w["token"] == token,
         "hello with the token resumes the session", w)
    replay = [b2.recv() for _ in range(missed_seq - last_seen)]
    t.ok([m["seq"] for m in replay] == list(range(last_seen + 1, missed_seq + 1))
         and all(b2.events[g][s] == a.events[g][s] for s in range(last_seen + 1, missed_seq + 1)),
         "exactly the missed events, byte for byte as the opponent got them",
         [m["type"] for m in replay])
    sp = b2.expect("spectators")
    yt = b2.expect("your_turn")
    t.ok(sp["spectators"]["count"] == 1 and yt["seq"] == missed_seq,
         "then the spectators notice and the legal moves", (sp, yt))
    pa = a.wait_for("presence")
    pc = c.wait_for("presence")
    t.ok(pa["connected"] is True and pa == pc, "opponent and spectator are told it came back")

    ok, got = b2.request({"type": "move", "move": rng.choice(yt["moves"])})
    t.ok(ok["type"] == "ok" and ok["seq"] == missed_seq + 1, "the game goes on", ok)

    # no last_seq: a full state
    b2.close()
    a.wait_for("presence")
    b3 = srv.connect()
    w, _ = b3.request({"type": "hello", "protocol": 1, "token": token})
    st = b3.expect("state")
    t.ok(w["resumed"] and st["seq"] == ok["seq"] and st["you"] == "white"
         and st["status"] == "live" and len(st["moves"]) == st["ply"] == 6 and "id" not in st,
         "resume without last_seq gives a full state", st)
    b3.expect("spectators")
    t.ok(b3.quiet(0.3), "no your_turn when it is the opponent's turn")

    # a second connection with the same token replaces the first
    pre = a.drain(0.3)
    a_turn = [m for m in pre if m["type"] == "your_turn"][-1]
    b4 = srv.connect()
    w, _ = b4.request({"type": "hello", "protocol": 1, "token": token,
                       "last_seq": st["seq"]})
    bye, _ = b3.recv_until("bye")
    t.ok(w["resumed"] and bye["reason"] == "replaced" and b3.closed(5),
         "the old connection is told it was replaced, then closed", bye)
    b4.expect("spectators")
    t.ok(b4.quiet(0.3) and all(m["type"] != "presence" for m in a.drain(0.3)),
         "a replaced connection is not a drop (no presence)")

    # a spectator resumes too
    ctoken = c.token
    c.drain(0.3)
    c_last = max(c.events[g])
    c.close()
    n = a.wait_for("spectators")
    t.ok(n["spectators"]["count"] == 0, "a dropped spectator leaves the list", n)
    a.backlog.append(a_turn)
    ok2 = move(a, rng)
    c2 = srv.connect()
    w, _ = c2.request({"type": "hello", "protocol": 1, "token": ctoken, "last_seq": c_last})
    m = c2.recv()
    sp = c2.expect("spectators")
    t.ok(w["game"] == g and m["type"] == "moved" and m["seq"] == ok2["seq"] == c_last + 1
         and sp["spectators"]["count"] == 1, "a spectator resumes with the events it missed",
         (w, m, sp))
    n = a.wait_for("spectators")
    t.ok(n["spectators"]["count"] == 1, "players see the spectator back")

    # last_seq beyond the game: a full state
    c3 = srv.connect()
    w, _ = c3.request({"type": "hello", "protocol": 1, "token": ctoken, "last_seq": 10 ** 9})
    st, _ = c3.recv_until("state")
    t.ok(st["seq"] == ok2["seq"] and st["you"] == "spectator",
         "a last_seq the server cannot serve gives a full state", st)

    # a dropped spectator that resumes without last_seq is back on the list of its state
    c3.close()
    n = a.wait_for("spectators")
    c4 = srv.connect()
    c4.request({"type": "hello", "protocol": 1, "token": ctoken})
    st, _ = c4.recv_until("state")
    t.ok(n["spectators"]["count"] == 0 and st["spectators"]["count"] == 1
         and st["spectators"]["names"] == [c.player["name"]],
         "a spectator's state on resuming counts it among the spectators", (n, st["spectators"]))
    for cl in (a, b4, c2, c3, c4):
        cl.close()


def presence_open_and_finished(t, srv):
    """An open or finished game's watchers are told of a player's drop and of its return too,
    without grace (grace is spent in live and adjourned games only)."""
    a = srv.connect("olga")
    c = srv.connect("oscar")
    st, _ = a.request({"type": "create", "kind": "oxono", "seat": "pink"})
    g = st["game"]
    c.request({"type": "watch", "game": g})
    a.wait_for("spectators")
    a.close()
    p = c.wait_for("presence")
    t.ok(p["connected"] is False and p["seat"] == "pink" and "grace_ms" not in p
         and "grace_over" not in p, "open game: a drop is told, without grace", p)
    a2 = srv.connect()
    a2.request({"type": "hello", "protocol": 1, "token": a.token, "last_seq": 1})
    p = c.wait_for("presence")
    t.ok(p["connected"] is True and p["seat"] == "pink", "open game: the return is told", p)
    b = srv.connect("otto")
    b.request({"type": "join", "game": g})
    play_opening(a2, b)
    a2.request({"type": "resign"})
    b.wait_for("game_over")
    c.wait_for("game_over")
    b.close()
    pa = a2.wait_for("presence")
    pc = c.wait_for("presence")
    t.ok(pa == pc and pa["connected"] is False and pa["seat"] == "black" and "grace_ms" not in pa,
         "finished game: a drop is told, without grace", pa)
    b2 = srv.connect()
    b2.request({"type": "hello", "protocol": 1, "token": b.token, "last_seq": 5})
    pa = a2.wait_for("presence")
    t.ok(pa["connected"] is True and pa["seat"] == "black", "finished game: the return is told",
         pa)
    for cl in (a2, b2, c):
        cl.close()


def bad_token(t, srv):
    c = srv.connect()
    r, _ = c.request({"type": "hello", "protocol": 1, "token": "0" * 32, "last_seq": 3})
    t.ok(r["type"] == "error" and r["code"] == "bad_token", "an unknown token is refused", r)
    r, _ = c.request({"type": "hello", "protocol": 1, "token": "short"})
    t.ok(r["type"] == "error" and r["code"] == "bad_token", "a malformed token is refused", r)
    r, _ = c.request({"type": "hello", "protocol": 1, "name": "again"})
    t.ok(r["type"] == "welcome" and not r["resumed"], "the connection can then say hello", r)
    t.ok(len(r["token"]) == 32 and all(ch in "0123456789abcdef" for ch in r["token"]),
         "tokens are 32 hex digits")
    c.close()


def expiry(t):
    srv = Server("--linger", "1")
    try:
        a = srv.connect("lone")
        token = a.token
        st, _ = a.request({"type": "create", "kind": "oxono"})
        spec = srv.connect("watcher")
        spec.request({"type": "watch", "game": st["game"]})
        a.close()
        over, _ = spec.recv_until("game_over", timeout=8)
        t.ok(over["reason"] == "abandoned",
             "an open game whose player lingered too long is aborted", over)
        c = srv.connect()
        r, _ = c.request({"type": "hello", "protocol": 1, "token": token})
        t.ok(r["type"] == "error" and r["code"] == "bad_token", "an expired token is refused", r)
    finally:
        srv.stop()


def finish_others(srv, n):
    """n more games, each created, joined, opened with a move each and resigned by two new
    players, who then disconnect. Returns the last one's id."""
    for i in range(n):
        x = srv.connect("x%d" % i)
        y = srv.connect("y%d" % i)
        st, _ = x.request({"type": "create", "kind": "oxono"})
        y.request({"type": "join", "game": st["game"]})
        play_opening(*movers(st, x, y))
        x.request({"type": "resign"})
        x.close()
        y.close()
    return st["game"]


def over_while_away(t):
    """A player away when its game ended gets the game_over on its return within --linger, even
    after more than --keep-finished other games have finished meanwhile (PROTOCOL.md 11.3); the
    lobby still lists only --keep-finished of them, and the game is forgotten once the session
    expired."""
    srv = Server("--keep-finished", "1", "--linger", "2")
    try:
        a, b, g = srv.game_over_while_away()
        last = finish_others(srv, 2)
        lst, _ = b.request({"type": "list"})
        fin = [x["game"] for x in lst["games"] if x["status"] == "finished"]
        t.ok(fin == [last], "the lobby lists --keep-finished finished games", lst)
        a2 = srv.connect()
        r, _ = a2.request({"type": "hello", "protocol": 1, "token": a.token, "last_seq": 5})
        got = a2.drain()
        t.ok(r.get("game") == g and [m["type"] for m in got] == ["game_over", "spectators"] and
             got[0]["seq"] == 6,
             "back in time after other games finished: the missed game_over", (r, got))
        a2.close()
        b.close()
        a3 = srv.connect("late")
        for _ in range(50):
            rec, _ = a3.request({"type": "watch", "game": g})
            if rec["type"] == "error":
                break
            a3.request({"type": "leave"})
            subprocess.run(["sleep", "0.2"])
        t.ok(rec["type"] == "error" and rec["code"] == "no_such_game",
             "the game is forgotten once its player's session expired", rec)
    finally:
        srv.stop()


def stay_at_finished(t):
    """Players stay at their finished game until they go elsewhere or leave (PROTOCOL.md 6.5),
    however many other games finish meanwhile (--keep-finished bounds only the lobby's list):
    they may still chat and agree on a rematch there."""
    srv = Server("--keep-finished", "1")
    try:
        a = srv.connect("ash")
        b = srv.connect("birch")
        st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black"})
        b.request({"type": "join", "game": st["game"]})
        play_opening(a, b)
        a.request({"type": "resign"})
        last = finish_others(srv, 2)
        lst, _ = a.request({"type": "list"})
        fin = [g["game"] for g in lst["games"] if g["status"] == "finished"]
        said, _ = b.request({"type": "say", "text": "gg"})
        offer, _ = a.request({"type": "rematch"})
        new, _ = b.request({"type": "rematch"})
        t.ok(fin == [last] and said["type"] == "ok" and offer["type"] == "ok"
             and new["type"] == "state" and new["status"] == "live",
             "two other games finished: the players are still at theirs (chat, rematch)",
             (fin, said, offer, new))
        late = srv.connect("late")
        w, _ = late.request({"type": "watch", "game": st["game"]})
        t.ok(w.get("code") == "no_such_game",
             "once its players went on (to the rematch), it is forgotten at once (PROTOCOL.md 2)",
             w)
        play_opening(b, a)  # colours swapped: b moves first
        b.request({"type": "resign"})
        finish_others(srv, 1)
        a.request({"type": "leave"})
        b.request({"type": "leave"})
        w, _ = late.request({"type": "watch", "game": new["game"]})
        t.ok(w.get("code") == "no_such_game", "... and so once its players left it", w)
        for c in (a, b, late):
            c.close()
    finally:
        srv.stop()


def main():
    t = Tap()
    run_on_server(t, Server(), [
        ("reconnect", reconnect_missed_events),
        ("bad token", bad_token),
        ("presence in open and finished games", presence_open_and_finished),
    ], "hokitod exits 0")
    t.run("expiry", expiry, t)
    t.run("game over while away", over_while_away, t)
    t.run("players stay at their finished game", stay_at_finished, t)
    t.done()


main()
