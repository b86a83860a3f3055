#!/usr/bin/env python3
"""test-server-computer: playing the server's computer player over the protocol.

A whole game against the computer with a spectator watching, both kinds; the computer's player
object; refused levels and opponents; a resignation while the computer thinks (its late move is
dropped); a rematch it accepts at once; a clock that runs for it too; a restart in the middle of a
game (on the person's turn, and killed while the computer thinks: it thinks again); a clean
shutdown while a search runs; and 40 games against level 8 aborted at once that do not make
another player's level-1 computer wait (ATTACKS.md, attack 5), nor do 16 games against level 8
that go on (deep searches have a lane of their own). Run by meson (HOKITOD names the server binary); prints TAP.
"""
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap  # noqa: E402

t = Tap()
THINK = 30.0  # the longest wait for one move of the computer (sanitizer builds are slow)


def play_to_end(c, limit=80):
    """Answer every your_turn of c with its first legal move until game_over; returns
    (game_over, number of moved events seen, [the computer's moved events])."""
    moved = 0
    theirs = []
    pending = []
    for _ in range(4 * limit):
        m = pending.pop(0) if pending else c.recv(THINK)
        if m["type"] == "your_turn":
            r, others = c.request({"type": "move", "move": m["moves"][0]})
            assert r["type"] == "ok", r
            pending.extend(others)
        elif m["type"] == "moved":
            moved += 1
            if m["by"] not in c.seats:
                theirs.append(m)
        elif m["type"] == "game_over":
            return m, moved, theirs
    raise AssertionError("the game did not end")


def computer_seat(st):
    return [s for s, p in st["players"].items() if p and "computer" in p]


def full_game():
    srv = Server()
    try:
        a = srv.connect("ann")
        st, _ = a.request({"type": "create", "kind": "hokito", "opponent": "computer",
                           "level": 2, "seat": "white", "seed": 11})
        comp = st["players"]["black"]
        t.ok(st["type"] == "state" and st["status"] == "live" and st["seq"] == 3 and
             st["you"] == "white" and comp["computer"] == 2 and
             comp["name"] == "computer (level 2)" and comp["connected"] is True and
             comp["id"].startswith("p") and comp["id"] != a.player["id"],
             "create against the computer: a live game, the computer seated as a player", st)
        w = srv.connect("wes")
        lst, _ = w.request({"type": "list"})
        g = [x for x in lst["games"] if x["game"] == st["game"]]
        t.ok(g and g[0]["status"] == "live" and g[0]["players"]["black"]["computer"] == 2,
             "the lobby lists the game with the computer's seat", lst)
        ws, _ = w.request({"type": "watch", "game": st["game"]})
        t.ok(ws["type"] == "state" and ws["players"]["black"]["computer"] == 2,
             "a spectator watches it", ws)
        a.seats = {"white"}
        over, moved, _ = play_to_end(a)
        t.ok(over["result"] in ("win", "draw") and over["reason"] == "blocked" and
             moved == over["ply"], "the game is played to its end by the rules: %d moves, %s"
             % (moved, over.get("winner")), over)
        # the computer (black) moves at once: its first move may be in the watch's state already
        wm = [m for m in w.drain(1.0) + w.backlog if m["type"] in ("moved", "game_over")]
        t.ok(len(wm) == moved - ws["ply"] + 1 and wm[-1] == over and
             all(m["ply"] == ws["ply"] + 1 + i for i, m in enumerate(wm[:-1])),
             "the spectator saw every move after its state, and the end",
             (len(wm), ws["ply"]))
        by = {m["by"] for m in wm if m["type"] == "moved"}
        t.ok(by == {"black", "white"}, "both sides moved", by)
        rec, _ = w.request({"type": "record", "game": st["game"]})
        t.ok(rec["type"] == "game_record" and '[Black "computer (level 2)"]' in rec["text"],
             "the record names the computer", rec)
        h, _ = w.request({"type": "history"})
        t.ok(h["games"] and h["games"][0]["players"]["black"]["name"] == "computer (level 2)",
             "history lists the game", h)

        # OXONO, the computer moving first, private
        b = srv.connect("bea")
        st, _ = b.request({"type": "create", "kind": "oxono", "opponent": "computer",
                           "level": 1, "seat": "black", "private": True})
        t.ok(st["status"] == "live" and "code" in st and computer_seat(st) == ["pink"],
             "an OXONO game against the computer, which moves first", st)
        b.seats = {"black"}
        over, moved, theirs = play_to_end(b)
        t.ok(over["type"] == "game_over" and theirs[0]["by"] == "pink" and
             theirs[0]["seq"] == 4, "the computer played first and the game ended", over)

        # refusals
        e1, _ = b.request({"type": "create", "kind": "hokito", "opponent": "computer",
                           "level": 9})
        e2, _ = b.request({"type": "create", "kind": "hokito", "opponent": "robot"})
        t.ok(e1["type"] == "error" and e1["code"] == "bad_value" and e1["field"] == "level" and
             e2["type"] == "error" and e2["code"] == "bad_value" and e2["field"] == "opponent",
             "a level out of 1..8 and an unknown opponent are refused", (e1, e2))
        st, _ = b.request({"type": "create", "kind": "hokito", "level": 9})
        t.ok(st["type"] == "state" and st["status"] == "open",
             "a level is ignored in a game against a person, even one out of 1..8", st)
        b.request({"type": "leave"})
        st, _ = b.request({"type": "create", "kind": "hokito", "opponent": "computer"})
        t.ok(computer_seat(st) and st["players"][computer_seat(st)[0]]["computer"] == 4,
             "the default level is 4", st)
        r, _ = b.request({"type": "claim", "result": "win"})
        t.ok(r["type"] == "error" and r["code"] == "cannot_claim",
             "nothing to claim against the computer", r)
        q = srv.connect("quinn")
        qs, _ = q.request({"type": "quick", "kind": "hokito"})
        t.ok(qs["status"] == "open", "quick pairing never joins a game against the computer",
             qs)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops cleanly")


def resign_while_thinking():
    srv = Server()
    try:
        a = srv.connect("ann")
        # level 8 thinks over a second on its first move: resign meanwhile (after a move of
        # one's own: a player who has not moved aborts instead)
        st, _ = a.request({"type": "create", "kind": "hokito", "opponent": "computer",
                           "level": 8, "seat": "black", "seed": 5})
        yt = a.wait_for("your_turn")
        a.request({"type": "move", "move": yt["moves"][0]})
        r, others = a.request({"type": "resign"})
        t.ok(r["type"] == "ok", "resign while the computer thinks", r)
        over = others[-1]
        t.ok(over["winner"] == "white" and over["reason"] == "resign", "the computer wins",
             over)
        t.ok(srv.log_has(r"game %s: its computer's search is stopped" % st["game"], THINK),
             "its search is stopped at once, its move dropped",
             "".join(srv.log[-5:]))
        t.ok(a.quiet(0.5), "and nobody hears of it")
        # a rematch: the computer accepts at once, colours swapped, same level
        rs, others = a.request({"type": "rematch"})
        t.ok(rs["type"] == "state" and rs["status"] == "live" and rs["you"] == "white" and
             rs["players"]["black"]["computer"] == 8 and
             [m["type"] for m in others] == ["rematch_started"],
             "a rematch against the computer starts at once", (rs, others))
        yt = a.wait_for("your_turn", THINK)  # the computer moved first
        r, _ = a.request({"type": "move", "move": yt["moves"][0]})
        mv = a.wait_for("moved", THINK)
        t.ok(r["type"] == "ok" and mv["by"] == "black", "the computer answers in the rematch",
             mv)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops cleanly")


def clock_runs():
    srv = Server()
    try:
        a = srv.connect("ann")
        st, _ = a.request({"type": "create", "kind": "hokito", "opponent": "computer",
                           "level": 3, "seat": "white", "clock": "1+0"})
        # a first move has its own timer (--first-move, 30 s): no clock runs yet
        t.ok(st["clock"]["running"] is None and st["clock"]["remaining"]["black"] == 60000
             and st["clock"]["first_move_ms"] == 30000
             and 0 < st["clock"]["first_move_left_ms"] <= 30000,
             "the computer moves first: its first move has its own timer, its clock stands",
             st["clock"])
        mv = a.wait_for("moved", THINK)
        t.ok(mv["by"] == "black" and mv["clocks"]["black"] == 60000 and
             mv["clocks"]["white"] == 60000,
             "its move carries the clocks, neither spent by a first move", mv)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops cleanly")


def restart():
    srv = Server()
    db = srv.db
    try:
        a = srv.connect("ann")
        st, _ = a.request({"type": "create", "kind": "hokito", "opponent": "computer",
                           "level": 3, "seat": "white", "seed": 21})
        g = st["game"]
        for _ in range(2):
            a.wait_for("moved", THINK)  # the computer's
            yt = a.wait_for("your_turn")
            a.request({"type": "move", "move": yt["moves"][0]})
        mv = a.wait_for("moved", THINK)
        yt = a.wait_for("your_turn")
        seen = mv["seq"]
        t.ok(srv.stop() == 0, "hokitod stops on the person's turn")
        srv = Server(db=db)
        a2 = srv.connect()
        w, _ = a2.request({"type": "hello", "protocol": 1, "token": a.token, "last_seq": seen})
        yt2 = a2.wait_for("your_turn")
        t.ok(w["resumed"] and w["game"] == g and yt2["seq"] == seen and
             yt2["moves"] == yt["moves"], "after a restart the person resumes at its turn",
             (w, yt2))
        r, _ = a2.request({"type": "move", "move": yt2["moves"][0]})
        mv = a2.wait_for("moved", THINK)
        t.ok(r["type"] == "ok" and mv["by"] == "black" and mv["seq"] == r["seq"] + 1,
             "and plays on: the computer answers", mv)
        # level 8 thinks over a second on its first move: kill the server meanwhile
        b = srv.connect("bob")
        st2, _ = b.request({"type": "create", "kind": "hokito", "opponent": "computer",
                            "level": 8, "seat": "white", "seed": 9})
        srv.stop(signal.SIGKILL)
        srv = Server(db=db)
        t.ok(srv.log_has(r"game %s: the computer \(black\) played" % st2["game"], THINK),
             "killed while the computer thought: after the restart it thinks again and moves",
             "".join(srv.log))
        b2 = srv.connect()
        w, _ = b2.request({"type": "hello", "protocol": 1, "token": b.token, "last_seq": 3})
        mv = b2.wait_for("moved", THINK)
        t.ok(w["resumed"] and w["game"] == st2["game"] and mv["seq"] == 4 and
             mv["by"] == "black", "its player gets the computer's move", mv)
        a3 = srv.connect()
        w, _ = a3.request({"type": "hello", "protocol": 1, "token": a.token})
        st3 = a3.wait_for("state")
        t.ok(w["resumed"] and st3["game"] == g and st3["status"] == "live",
             "the first game is back too", st3)
        a3.seats = {"white"}
        over, moved, _ = play_to_end(a3)
        t.ok(over["type"] == "game_over", "it is played to its end after two restarts", over)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops cleanly")


def shutdown_while_thinking():
    srv = Server()
    a = srv.connect("ann")
    a.request({"type": "create", "kind": "oxono", "opponent": "computer", "level": 8,
               "seat": "black", "seed": 2})
    a2 = srv.connect("bob")
    a2.request({"type": "create", "kind": "hokito", "opponent": "computer", "level": 8,
                "seat": "white", "seed": 2})
    time.sleep(0.1)
    t0 = time.time()
    status = srv.stop()
    t.ok(status == 0 and time.time() - t0 < 8,
         "hokitod stops promptly and cleanly while the computer thinks (%.1f s)"
         % (time.time() - t0), "".join(srv.log[-10:]))


def jam_the_computer():
    """Attack 5 (ATTACKS.md): games against level 8 created and aborted at once, one after another,
    from one connection, must not make another player's level-1 computer wait: each aborted game's
    search stops at once (at its next check of its cancel flag), queued or running."""
    srv = Server()
    try:
        jam = srv.connect("jam")
        made = 0
        for i in range(40):
            st = jam.ask({"type": "create", "kind": "hokito", "opponent": "computer",
                          "level": 8, "seat": "white", "seed": 100 + i})
            if st["type"] == "state":
                made += 1
                jam.ask({"type": "abort"})
                jam.ask({"type": "leave"})
        t.ok(made == 40, "40 games against level 8 made and aborted at once", made)
        v = srv.connect("victim")
        t0 = time.time()
        st = v.ask({"type": "create", "kind": "hokito", "opponent": "computer", "level": 1,
                    "seat": "white", "seed": 1})
        mv = v.wait_for("moved", THINK)
        delay = time.time() - t0
        # quiet, the reply comes in about 10 ms; when the aborted games' searches ran on to
        # their budget, it came after 2.8 to 5 s, behind them on the thread pool
        t.ok(st["type"] == "state" and mv["by"] == "black" and delay < 1.0,
             "another player's level-1 computer answers at once (%.2f s)" % delay, mv)
        time.sleep(0.2)
        ran = [int(x) for x in re.findall(r"its computer's search ended (\d+) ms after it "
                                          r"began", "".join(srv.log))]
        t.ok(ran and all(ms < 500 for ms in ran),
             "the searches that had begun stopped within 500 ms of their start (%s)" % ran,
             ran)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops cleanly")


def deep_lane():
    """16 games against level 8 that go on (each search takes seconds, at most two at once on
    the thread pool) do not make a level-1 computer wait behind them: it has a lane of its
    own."""
    srv = Server()
    try:
        made = 0
        for i in range(16):
            c = srv.connect("deep%d" % i)
            st = c.ask({"type": "create", "kind": "hokito", "opponent": "computer",
                        "level": 8, "seat": "white", "seed": 200 + i})
            made += st["type"] == "state"
        t.ok(made == 16, "16 games against level 8, each thinking", made)
        v = srv.connect("victim")
        t0 = time.time()
        st = v.ask({"type": "create", "kind": "hokito", "opponent": "computer", "level": 1,
                    "seat": "white", "seed": 1})
        mv = v.wait_for("moved", THINK)
        delay = time.time() - t0
        # in one queue with them it came after 15 s (16 searches of 2 to 5 s, four at a time)
        t.ok(st["type"] == "state" and mv["by"] == "black" and delay < 1.0,
             "a level-1 computer answers at once beside them (%.2f s)" % delay, mv)
    finally:
        t0 = time.time()
        t.ok(srv.stop() == 0 and time.time() - t0 < 8,
             "hokitod stops promptly and cleanly (%.1f s), with deep searches waiting"
             % (time.time() - t0))


t.run("a full game against the computer", full_game)
t.run("resignation while it thinks, rematch", resign_while_thinking)
t.run("its clock runs", clock_runs)
t.run("restarts in the middle of a game against the computer", restart)
t.run("shutdown while it thinks", shutdown_while_thinking)
t.run("games against level 8 aborted at once do not jam it", jam_the_computer)
t.run("level 1 does not wait behind level 8's searches", deep_lane)
t.done()
