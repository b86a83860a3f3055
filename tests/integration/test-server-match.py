#!/usr/bin/env python3
"""hokitod match management, end to end over real sockets with an injected clock:
time controls and clocks in every event, the Fischer increment, loss on time, draw offers
(agreed, declined, lapsing), abort in the first moves, the grace period of a dropped player (it
runs only on that player's own turns) with the claim after it, adjournment of a game without a
clock, players' chat and spectators' chat kept apart (length cap, control characters, rate limit),
rematch with colours swapped, and the replay of the new events on reconnect.

The server runs with --test-clock: game time stands still unless the test sends test_clock, so
every clock value is exact and nothing sleeps. Prints TAP.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap, play_opening, run_on_server  # noqa: E402

GRACE_MS = 30000


def peek(cl, wait=0.2):
    """The messages that arrive within wait seconds, left for recv() and wait_for()."""
    got = cl.drain(wait)
    cl.backlog[0:0] = got
    return got


def event(cl, type_, seq):
    """The event of type_ with this seq (skipping the others of that type)."""
    while True:
        m = cl.wait_for(type_)
        if m["seq"] == seq:
            return m


class Game:
    """Two players (a: black, b: white), a spectator c, a clock driver k."""

    def __init__(self, srv, clock="5+3", kind="hokito", seed=7):
        self.srv = srv
        self.first, self.second = ("black", "white") if kind == "hokito" else ("pink", "black")
        self.a = srv.connect("ada")
        self.b = srv.connect("bea")
        self.c = srv.connect("cy")
        self.k = srv.connect("clock")
        req = {"type": "create", "kind": kind, "seat": self.first, "seed": seed}
        if clock is not None:
            req["clock"] = clock
        self.created = self.a.ask(req)
        assert self.created["type"] == "state", self.created
        self.g = self.created["game"]
        self.c.ask({"type": "watch", "game": self.g})
        self.a.expect("spectators")
        self.c.expect("spectators")
        self.joined = self.b.ask({"type": "join", "game": self.g})
        self.started = self.a.wait_for("started")
        self.c.wait_for("started")

    def advance(self, ms):
        r = self.k.ask({"type": "test_clock", "advance_ms": ms})
        assert r["type"] == "ok", r

    def move(self, who):
        """The mover plays the first move of its latest your_turn."""
        got = who.drain(0.1)
        turns = [m for m in got if m["type"] == "your_turn"]
        who.backlog[0:0] = [m for m in got if m["type"] != "your_turn"]
        yt = turns[-1] if turns else who.wait_for("your_turn")
        ok = who.ask({"type": "move", "move": yt["moves"][0]})
        assert ok["type"] == "ok", ok
        return ok

    def close(self):
        for cl in (self.a, self.b, self.c, self.k):
            cl.close()


def clocks_and_increment(t, srv):
    gm = Game(srv, "5+3")
    st = gm.joined
    t.ok(st["clock"] == {"control": "5+3", "base_ms": 300000, "increment_ms": 3000,
                         "remaining": {"black": 300000, "white": 300000}, "running": "black"},
         "state carries the clock: control, both clocks, the running one", st["clock"])
    t.ok(gm.started["clock"] == "5+3"
         and gm.started["clocks"] == {"black": 300000, "white": 300000},
         "started carries the control and both clocks", gm.started)
    lst = gm.k.ask({"type": "list"})
    t.ok([x["clock"] for x in lst["games"] if x["game"] == gm.g] == ["5+3"],
         "the lobby lists the time control", lst)
    gm.advance(10000)
    ok = gm.move(gm.a)
    mv = [m for m in gm.c.drain(0.2) if m["type"] == "moved"][0]
    t.ok(mv["clocks"] == {"black": 293000, "white": 300000} and mv["seq"] == ok["seq"],
         "moved carries both clocks: 10 s spent, 3 s increment", mv)
    gm.advance(4500)
    w = gm.c.ask({"type": "watch", "game": gm.g})
    t.ok(w["clock"]["remaining"] == {"black": 293000, "white": 295500}
         and w["clock"]["running"] == "white", "a state shows the running clock as of now",
         w["clock"])
    ok = gm.move(gm.b)
    mv = event(gm.a, "moved", ok["seq"])
    t.ok(mv["clocks"] == {"black": 293000, "white": 298500}, "the increment goes to the mover",
         mv)
    gm.close()


def time_forfeit(t, srv):
    gm = Game(srv, "1+0")
    gm.move(gm.a)
    gm.advance(59999)
    t.ok(gm.c.quiet(0.2) or all(m["type"] != "game_over" for m in gm.c.drain(0.2)),
         "no flag fall 1 ms before the end")
    gm.advance(1)
    over = gm.c.wait_for("game_over")
    over_a = gm.a.wait_for("game_over")
    t.ok(over["result"] == "win" and over["winner"] == "black" and over["reason"] == "time"
         and over["clocks"] == {"black": 60000, "white": 0} and "scores" in over
         and over == over_a, "the flag falls: loss by time, with the reason and the clocks",
         over)
    gm.b.drain(0.2)
    r = gm.b.ask({"type": "move", "move": "a4-a3"})
    t.ok(r["type"] == "error" and r["code"] == "game_over", "no move after the flag", r)
    gm.close()


def draws(t, srv):
    gm = Game(srv, None)
    t.ok(gm.joined["clock"] is None and "clocks" not in gm.started,
         "a game without a clock has clock null and no clocks", gm.joined)
    # no draw before both sides have moved (PROTOCOL.md draw_offer)
    r = gm.a.ask({"type": "draw_offer"})
    t.ok(r["type"] == "error" and r["code"] == "too_early" and "abort" in r["text"],
         "a draw offer before any move: too_early (abort instead)", r)
    gm.move(gm.a)
    r = gm.a.ask({"type": "draw_offer"})
    r2 = gm.b.ask({"type": "draw_offer"})
    t.ok(r["code"] == r2["code"] == "too_early" and "abort" not in r["text"]
         and "abort" in r2["text"],
         "after one move still too_early, for both (the mover cannot abort any more)", (r, r2))
    gm.move(gm.b)
    r = gm.b.ask({"type": "draw_accept"})
    t.ok(r["type"] == "error" and r["code"] == "no_offer", "accepting no offer: no_offer", r)
    ok = gm.a.ask({"type": "draw_offer"})
    ev = gm.b.wait_for("draw_offered")
    evc = gm.c.wait_for("draw_offered")
    t.ok(ok["type"] == "ok" and ev["by"] == "black" and ev["seq"] == ok["seq"] and ev == evc,
         "draw_offered goes to everyone at the game", (ok, ev))
    r = gm.a.ask({"type": "draw_offer"})
    t.ok(r["code"] == "already_offered", "offering twice: already_offered", r)
    ok = gm.b.ask({"type": "draw_decline"})
    ev = gm.a.wait_for("draw_declined")
    t.ok(ok["type"] == "ok" and ev["by"] == "white" and ev["seq"] == ok["seq"],
         "draw declined", ev)
    r = gm.b.ask({"type": "draw_accept"})
    t.ok(r["code"] == "no_offer", "a declined offer is gone", r)
    # an offer lapses when the player it was made to moves
    gm.a.ask({"type": "draw_offer"})
    gm.move(gm.a)
    w = gm.c.ask({"type": "watch", "game": gm.g})
    t.ok(w["draw_offer"] == "black", "the offer stands through the offerer's own move", w)
    gm.move(gm.b)
    r = gm.b.ask({"type": "draw_accept"})
    t.ok(r["code"] == "no_offer", "it lapses when the other player moves", r)
    r = gm.c.ask({"type": "draw_offer"})
    t.ok(r["code"] == "spectator", "spectators cannot offer", r)
    # agreed
    gm.b.ask({"type": "draw_offer"})
    ok = gm.a.ask({"type": "draw_accept"})
    over = gm.c.wait_for("game_over")
    t.ok(ok["type"] == "ok" and over["result"] == "draw" and over["winner"] is None
         and over["reason"] == "agreement" and over["seq"] == ok["seq"],
         "draw agreed: game over, reason agreement", over)
    gm.close()
    # offering when the opponent's offer stands accepts it
    gm = Game(srv, "3+2")
    gm.move(gm.a)
    gm.move(gm.b)
    gm.a.ask({"type": "draw_offer"})
    ok = gm.b.ask({"type": "draw_offer"})
    over = gm.a.wait_for("game_over")
    t.ok(over["reason"] == "agreement" and "clocks" in over,
         "crossed offers make a draw", over)
    gm.close()


def aborts(t, srv):
    gm = Game(srv, "5+0")
    ok = gm.a.ask({"type": "abort"})
    over = gm.b.wait_for("game_over")
    t.ok(ok["type"] == "ok" and over["result"] == "aborted" and over["winner"] is None
         and over["reason"] == "abort" and over["ply"] == 0,
         "abort before any move: no result", over)
    gm.close()
    gm = Game(srv, "5+0")
    gm.move(gm.a)
    r = gm.a.ask({"type": "abort"})
    t.ok(r["type"] == "error" and r["code"] == "too_late",
         "the first player cannot abort after its first move", r)
    ok = gm.b.ask({"type": "abort"})
    over = gm.a.wait_for("game_over")
    t.ok(ok["type"] == "ok" and over["reason"] == "abort" and over["ply"] == 1,
         "the second player can abort before its first move", over)
    gm.close()
    gm = Game(srv, None)
    gm.move(gm.a)
    gm.move(gm.b)
    r1 = gm.a.ask({"type": "abort"})
    r2 = gm.b.ask({"type": "abort"})
    t.ok(r1["code"] == r2["code"] == "too_late", "nobody aborts once both have moved",
         (r1, r2))
    gm.close()


def grace_and_claim(t, srv):
    gm = Game(srv, "5+0")
    gm.move(gm.a)                       # white to move
    gm.b.close()
    p = gm.a.wait_for("presence")
    pc = gm.c.wait_for("presence")
    t.ok(p["connected"] is False and p["seat"] == "white" and p["grace_ms"] == GRACE_MS
         and p["grace_over"] is False and p == pc,
         "a drop is told with the grace period (--grace)", p)
    r = gm.a.ask({"type": "claim", "result": "win"})
    t.ok(r["code"] == "cannot_claim", "no claim while grace is left", r)
    gm.advance(GRACE_MS - 1)
    w = gm.c.ask({"type": "watch", "game": gm.g})
    t.ok(w["players"]["white"]["grace_ms"] == 1 and w["players"]["white"]["connected"] is False,
         "state shows the grace left", w["players"])
    gm.advance(1)
    go = gm.a.wait_for("grace_over")
    goc = gm.c.wait_for("grace_over")
    t.ok(go["seat"] == "white" and go == goc and go["clocks"]["white"] == 300000 - GRACE_MS,
         "grace_over when it runs out", go)
    r = gm.a.ask({"type": "claim", "result": "maybe"})
    t.ok(r["code"] == "bad_value" and r["field"] == "result", "a claim is win or draw", r)
    r = gm.c.ask({"type": "claim", "result": "win"})
    t.ok(r["code"] == "spectator", "spectators cannot claim", r)
    ok = gm.a.ask({"type": "claim", "result": "win"})
    over = gm.c.wait_for("game_over")
    t.ok(ok["type"] == "ok" and over["result"] == "win" and over["winner"] == "black"
         and over["reason"] == "disconnect", "the opponent claims the win", over)
    gm.close()
    # the claim of a draw; a player who comes back in time cancels the claim
    gm = Game(srv, "5+0")
    token = gm.b.token
    gm.move(gm.a)
    gm.b.close()
    gm.a.wait_for("presence")
    gm.advance(GRACE_MS)
    gm.a.wait_for("grace_over")
    b2 = srv.connect()
    w = b2.ask({"type": "hello", "protocol": 1, "token": token})
    b2.wait_for("your_turn")
    back = gm.a.wait_for("presence")
    r = gm.a.ask({"type": "claim", "result": "draw"})
    t.ok(back["connected"] is True and r["code"] == "cannot_claim",
         "once the player is back there is nothing to claim", r)
    b2.close()
    gm.a.wait_for("presence")
    gm.advance(GRACE_MS)
    gm.a.wait_for("grace_over")
    ok = gm.a.ask({"type": "claim", "result": "draw"})
    over = gm.a.wait_for("game_over")
    t.ok(over["result"] == "draw" and over["reason"] == "disconnect",
         "a fresh grace after each drop; then a draw may be claimed", over)
    gm.close()


def grace_only_on_own_turn(t, srv):
    gm = Game(srv, "10+0")
    gm.b.close()                        # black (connected) to move
    gm.a.wait_for("presence")
    gm.advance(5 * GRACE_MS)
    w = gm.c.ask({"type": "watch", "game": gm.g})
    t.ok(w["players"]["white"]["grace_ms"] == GRACE_MS
         and w["clock"]["remaining"]["black"] == 600000 - 5 * GRACE_MS,
         "grace does not run while the connected player thinks", w)
    t.ok(all(m["type"] != "grace_over" for m in peek(gm.a)), "no grace_over meanwhile")
    gm.move(gm.a)                       # now white's (the absent player's) turn
    gm.advance(GRACE_MS - 1000)
    w = gm.c.ask({"type": "watch", "game": gm.g})
    t.ok(w["players"]["white"]["grace_ms"] == 1000, "it runs on the absent player's turn",
         w["players"])
    gm.advance(1000 + 2500)             # past the end of the grace, in one test_clock
    go = gm.a.wait_for("grace_over")
    t.ok(go["seat"] == "white", "and runs out there", go)
    t.ok(go["clocks"]["white"] == 600000 - GRACE_MS,
         "grace_over has the clocks of the moment the grace ran out, inside the advance", go)
    w = gm.c.ask({"type": "watch", "game": gm.g})
    t.ok(w["clock"]["remaining"]["white"] == 600000 - GRACE_MS - 2500,
         "... and the clock ran on to the end of the advance", w["clock"])
    gm.close()


def adjourn(t, srv):
    gm = Game(srv, None)
    gm.move(gm.a)
    token = gm.b.token
    gm.b.close()
    gm.a.wait_for("presence")
    gm.advance(GRACE_MS)
    adj = gm.a.wait_for("adjourned")
    adjc = gm.c.wait_for("adjourned")
    t.ok(adj["seat"] == "white" and adj == adjc, "without a clock the game is adjourned", adj)
    lst = gm.k.ask({"type": "list"})
    t.ok([x["status"] for x in lst["games"] if x["game"] == gm.g] == ["adjourned"],
         "the lobby lists it as adjourned", lst)
    r = gm.a.ask({"type": "claim", "result": "win"})
    t.ok(r["type"] == "error", "no claim in an adjourned game", r)
    r = gm.a.ask({"type": "create", "kind": "oxono"})
    t.ok(r["type"] == "error" and r["code"] == "already_seated",
         "a player at its adjourned game must leave it before going elsewhere", r)
    ok = gm.a.ask({"type": "leave"})
    t.ok(ok["type"] == "ok", "the remaining player may leave an adjourned game", ok)
    pres = gm.c.wait_for("presence")
    pres = pres if pres["seat"] == "black" else gm.c.wait_for("presence")
    t.ok(pres["seat"] == "black" and pres["connected"] is False and "grace_ms" in pres,
         "the spectators are told it is away, as they are told when it comes back", pres)
    b2 = srv.connect()
    w = b2.ask({"type": "hello", "protocol": 1, "token": token})
    t.ok(w["resumed"] and w["game"] == gm.g, "the absent player comes back to it", w)
    pres = b2.wait_for("presence")
    t.ok(pres["seat"] == "black" and pres["connected"] is False,
         "and is told the opponent is away", pres)
    st = gm.a.ask({"type": "join", "game": gm.g})
    t.ok(st["type"] == "state" and st["you"] == "black", "the other takes its seat back", st)
    res = b2.wait_for("resumed")
    yt = b2.wait_for("your_turn")
    ok = b2.ask({"type": "move", "move": yt["moves"][0]})
    t.ok(res["to_move"] == "white" and ok["type"] == "ok", "both back: the game resumes", res)
    gm.close()
    b2.close()


ADJOURN_CLAIM_MS = 300000


def adjourn_claim(t, srv):
    """PROTOCOL.md 11.3: an untimed game has an end too. --adjourn-claim (300 s here, the
    default) after the adjournment, the away player still away, everyone gets grace_over for it
    and the present player may claim the win or a draw; a player back in time takes that away."""
    gm = Game(srv, None)
    gm.move(gm.a)
    gm.b.close()
    gm.a.wait_for("presence")
    gm.advance(GRACE_MS)
    gm.a.wait_for("adjourned")
    gm.c.wait_for("adjourned")
    r = gm.a.ask({"type": "claim", "result": "win"})
    t.ok(r["type"] == "error" and r["code"] == "not_started" and "grace_over" in r["text"],
         "no claim yet right after the adjournment: the message says when", r)
    w = gm.k.ask({"type": "watch", "game": gm.g})
    t.ok(w["players"]["white"]["grace_over"] is True
         and w["players"]["white"]["claimable"] is False,
         "the state says the away player's grace is over, not yet claimable", w["players"])
    gm.k.ask({"type": "leave"})
    gm.advance(ADJOURN_CLAIM_MS - 1)
    t.ok(all(m["type"] != "grace_over" for m in peek(gm.a)), "nothing before the wait is over")
    gm.advance(1)
    go = gm.a.wait_for("grace_over")
    goc = gm.c.wait_for("grace_over")
    t.ok(go["seat"] == "white" and "clocks" not in go and go == goc,
         "at the end of the wait everyone gets grace_over for the away player (no clocks)", go)
    w = gm.k.ask({"type": "watch", "game": gm.g})
    t.ok(w["status"] == "adjourned" and w["players"]["white"]["claimable"] is True,
         "the game stays adjourned, now claimable", w)
    ok = gm.a.ask({"type": "claim", "result": "win"})
    over = gm.a.wait_for("game_over")
    t.ok(ok["type"] == "ok" and over["result"] == "win" and over["winner"] == "black"
         and over["reason"] == "disconnect", "the present player claims the win", (ok, over))
    gm.close()

    # a draw may be claimed too; the away player back in time leaves nothing to claim
    gm = Game(srv, None)
    gm.move(gm.a)
    token = gm.b.token
    gm.b.close()
    gm.a.wait_for("presence")
    gm.advance(GRACE_MS)
    gm.a.wait_for("adjourned")
    gm.advance(ADJOURN_CLAIM_MS // 2)
    b2 = srv.connect()
    b2.ask({"type": "hello", "protocol": 1, "token": token})
    b2.wait_for("resumed")
    gm.advance(ADJOURN_CLAIM_MS)
    t.ok(all(m["type"] != "grace_over" for m in peek(gm.a)),
         "a player back before the end of the wait: no grace_over")
    gm.move(b2)
    b2.close()
    gm.a.wait_for("presence")
    gm.move(gm.a)
    gm.advance(GRACE_MS)
    gm.a.wait_for("adjourned")
    gm.advance(ADJOURN_CLAIM_MS)
    gm.a.wait_for("grace_over")
    ok = gm.a.ask({"type": "claim", "result": "draw"})
    over = gm.a.wait_for("game_over")
    t.ok(ok["type"] == "ok" and over["result"] == "draw" and over["reason"] == "disconnect",
         "after a new adjournment and a new wait, a draw may be claimed", (ok, over))
    gm.close()


def adjourn_private(t, srv):
    """PROTOCOL.md 11.3: a player who left an adjourned game takes its seat back with join of
    the game's id, also when the game is private (others still need its code)."""
    a = srv.connect("pia")
    b = srv.connect("pol")
    k = srv.connect("pk")
    st = a.ask({"type": "create", "kind": "hokito", "seat": "black", "private": True})
    b.ask({"type": "join", "code": st["code"]})
    a.close()
    b.wait_for("presence")
    k.ask({"type": "test_clock", "advance_ms": GRACE_MS})
    b.wait_for("adjourned")
    b.ask({"type": "leave"})
    r = k.ask({"type": "join", "game": st["game"]})
    back = b.ask({"type": "join", "game": st["game"]})
    t.ok(r["code"] == "no_such_game" and back["type"] == "state" and back["you"] == "white"
         and back["status"] == "adjourned", "its own seat of a private adjourned game by id",
         (r, back))
    for c in (b, k):
        c.close()


def chat(t, srv):
    gm = Game(srv, None)
    ok = gm.a.ask({"type": "say", "text": "  good\u0007 luck\n\u009b!  "})
    ev = gm.b.wait_for("chat")
    evc = gm.c.wait_for("chat")
    t.ok(ok["type"] == "ok" and ev["text"] == "good luck !" and ev["seat"] == "black"
         and ev["player"] == gm.a.player and ev["seq"] == ok["seq"] and ev == evc,
         "players' chat is a game event, control characters stripped", ev)
    ok = gm.c.ask({"type": "say", "text": "black is winning"})
    kb = gm.c.wait_for("kibitz")
    t.ok(ok["type"] == "ok" and "seq" not in ok and kb["text"] == "black is winning"
         and kb["player"] == gm.c.player, "spectators' chat goes to spectators", kb)
    t.ok(all(m["type"] != "kibitz" for m in gm.a.drain(0.2) + gm.b.drain(0.1)),
         "players never see the spectators' chat")
    d = srv.connect("dee")
    w = d.ask({"type": "watch", "game": gm.g})
    t.ok([x["text"] for x in w["chat"]] == ["good luck !"]
         and [x["text"] for x in w["kibitz"]] == ["black is winning"],
         "a late spectator's state has both chats", w)
    st = gm.b.ask({"type": "watch", "game": gm.g})
    t.ok(st["type"] == "error", "(a player cannot watch while seated)", st)
    ok = gm.b.ask({"type": "say", "text": "\u00e9" * 200})
    t.ok(ok["type"] == "ok", "200 characters are fine", ok)
    ok = d.ask({"type": "say", "text": "\U0001f422" * 200 + " \n"})
    kb = d.wait_for("kibitz")
    ok2 = d.ask({"type": "say", "text": "x" + " " * 900})
    kb2 = d.wait_for("kibitz")
    t.ok(ok["type"] == "ok" and kb["text"] == "\U0001f422" * 200 and ok2["type"] == "ok"
         and kb2["text"] == "x", "trailing spaces are removed before the length is counted",
         (ok, ok2))
    ok = d.ask({"type": "say", "text": " \u3000 "})
    kb = d.wait_for("kibitz")
    t.ok(ok["type"] == "ok" and kb["text"] == "\u3000",
         "only U+0020 is trimmed: an ideographic space is text (PROTOCOL.md say)", (ok, kb))
    r = gm.b.ask({"type": "say", "text": "x" * 201})
    t.ok(r["code"] == "bad_value" and r["field"] == "text", "201 characters are refused", r)
    r = gm.b.ask({"type": "say", "text": "\u0001\u0002 \t"})
    t.ok(r["code"] == "bad_value" and r["field"] == "text", "an empty line is refused", r)
    r = gm.b.ask({"type": "say"})
    t.ok(r["code"] == "bad_field" and r["field"] == "text", "text is required", r)
    codes = [gm.a.ask({"type": "say", "text": "line %d" % i}).get("code", "ok")
             for i in range(6)]
    t.ok(codes == ["ok"] * 4 + ["rate_limited"] * 2,
         "rate limit: 5 lines in 10 s per client, then rate_limited", codes)
    r = gm.a.ask({"type": "say", "text": "later"})
    gm.advance(10000)
    ok = gm.a.ask({"type": "say", "text": "later"})
    t.ok(r["code"] == "rate_limited" and ok["type"] == "ok", "allowed again 10 s later",
         (r, ok))
    lone = srv.connect("lone")
    r = lone.ask({"type": "say", "text": "hello?"})
    t.ok(r["code"] == "not_seated", "chat needs a game", r)
    lone.close()
    d.close()
    gm.close()


def rematch(t, srv):
    gm = Game(srv, "3+2")
    r = gm.a.ask({"type": "rematch"})
    t.ok(r["code"] == "not_over", "no rematch in a live game", r)
    gm.move(gm.a)
    r = gm.b.ask({"type": "resign"})
    t.ok(r["type"] == "error" and r["code"] == "too_early",
         "no resignation before one's own first move: too_early", r)
    gm.move(gm.b)
    gm.b.ask({"type": "resign"})
    gm.a.wait_for("game_over")
    r = gm.c.ask({"type": "rematch"})
    t.ok(r["code"] == "spectator", "spectators cannot ask for a rematch", r)
    ok = gm.a.ask({"type": "rematch"})
    ev = gm.b.wait_for("rematch_offered")
    t.ok(ok["type"] == "ok" and ev["by"] == "black" and gm.c.wait_for("rematch_offered") == ev,
         "rematch_offered after game over", ev)
    ok = gm.b.ask({"type": "rematch_decline"})
    ev = gm.a.wait_for("rematch_declined")
    t.ok(ev["by"] == "white", "a rematch can be declined", ev)
    gm.b.ask({"type": "rematch"})
    gm.a.wait_for("rematch_offered")
    st = gm.a.ask({"type": "rematch"})
    rs = gm.c.wait_for("rematch_started")
    st_b = gm.b.wait_for("state")
    t.ok(st["type"] == "state" and st["you"] == "white" and st_b["you"] == "black"
         and "id" not in st_b and st["game"] == st_b["game"] == rs["new_game"] != gm.g
         and st["status"] == "live" and st["clock"]["control"] == "3+2"
         and st["players"]["black"]["id"] == gm.b.player["id"],
         "accepted: a new game, colours swapped, same clock", (st, st_b, rs))
    yt = gm.b.wait_for("your_turn")
    while yt["game"] != rs["new_game"]:
        yt = gm.b.wait_for("your_turn")
    t.ok(yt["seq"] == st["seq"], "the new first player gets your_turn", yt)
    gm.close()
    # the opponent must be there and connected, whatever offer stands (PROTOCOL.md 5)
    for offerer in ("a", "b"):
        gm = Game(srv, None)
        gm.move(gm.a)
        gm.move(gm.b)
        gm.a.ask({"type": "resign"})
        gm.b.wait_for("game_over")
        getattr(gm, offerer).ask({"type": "rematch"})
        gm.a.wait_for("rematch_offered")
        gm.b.close()
        gm.a.wait_for("presence")
        r = gm.a.ask({"type": "rematch"})
        t.ok(r["type"] == "error" and r["code"] == "opponent_gone",
             "rematch with the opponent away (%s offer standing): opponent_gone"
             % ("own" if offerer == "a" else "its"), r)
        gm.close()


def rematch_private(t, srv):
    """The rematch of a private game is private, with a new invite code: the spectators of the
    old game reach it only with that code (PROTOCOL.md 5, rematch)."""
    a, b, c = srv.connect("pa"), srv.connect("pb"), srv.connect("pc")
    st = a.ask({"type": "create", "kind": "oxono", "seat": "pink", "private": True})
    c.ask({"type": "watch", "code": st["code"]})
    b.ask({"type": "join", "code": st["code"]})
    play_opening(a, b)
    a.ask({"type": "resign"})
    a.ask({"type": "rematch"})
    new = b.ask({"type": "rematch"})
    t.ok(new["type"] == "state" and new["private"] and new["code"] != st["code"]
         and new["you"] == "pink", "a private game's rematch is private, with a new code", new)
    rs = c.wait_for("rematch_started")
    r = c.ask({"type": "watch", "game": rs["new_game"]})
    t.ok(r["type"] == "error" and r["code"] == "no_such_game",
         "its spectators cannot watch it by id", r)
    r = c.ask({"type": "watch", "code": new["code"]})
    t.ok(r["type"] == "state" and r["game"] == rs["new_game"] and "code" not in r,
         "... but with its new code", r)
    for cl in (a, b, c):
        cl.close()


def replay_new_events(t, srv):
    gm = Game(srv, "5+0")
    gm.move(gm.a)
    seen = gm.move(gm.b)["seq"]  # offers once both sides moved
    token = gm.b.token
    gm.b.close()
    gm.a.wait_for("presence")
    gm.a.ask({"type": "say", "text": "still there?"})
    gm.a.ask({"type": "draw_offer"})
    b2 = srv.connect()
    b2.ask({"type": "hello", "protocol": 1, "token": token, "last_seq": seen})
    got = [b2.recv(), b2.recv()]
    t.ok([m["type"] for m in got] == ["chat", "draw_offered"]
         and all(b2.events[gm.g][s] == gm.a.events[gm.g][s] for s in b2.events[gm.g]),
         "chat and offers are replayed on reconnect, byte for byte", got)
    b2.close()
    gm.close()


def bad_values(t, srv):
    c = srv.connect("vals")
    for clock in ("5+", "+3", "0+3", "601+0", "5+601", "a+b", "5 + 3", "-1+2", "5+3+1", ""):
        r = c.ask({"type": "create", "kind": "hokito", "clock": clock})
        if not t.ok(r["type"] == "error" and r["code"] == "bad_value" and r["field"] == "clock",
                    "clock %r is refused" % clock, r):
            break
    r = c.ask({"type": "create", "kind": "oxono", "clock": "none"})
    t.ok(r["type"] == "state" and r["clock"] is None, "clock none: no clock", r)
    c.ask({"type": "leave"})
    r = c.ask({"type": "create", "kind": "oxono", "clock": "600+600"})
    t.ok(r["type"] == "state" and r["clock"]["base_ms"] == 36000000
         and r["clock"]["increment_ms"] == 600000 and r["clock"]["running"] is None,
         "the largest control", r["clock"])
    c.ask({"type": "leave"})
    c.close()


def quick_by_clock(t, srv):
    a = srv.connect("qa")
    b = srv.connect("qb")
    e = srv.connect("qe")
    sa = a.ask({"type": "quick", "kind": "oxono", "clock": "2+1"})
    sb = b.ask({"type": "quick", "kind": "oxono"})
    se = e.ask({"type": "quick", "kind": "oxono", "clock": "2+1"})
    t.ok(sa["status"] == "open" and sb["status"] == "open" and sb["game"] != sa["game"]
         and se["game"] == sa["game"] and se["status"] == "live",
         "quick pairs only games of the same time control", (sa["game"], sb["game"], se))
    for cl in (a, b, e):
        cl.close()


def abandoned(t, srv):
    """A live game nobody is connected at for --linger (300 s) is over: aborted, abandoned."""
    gm = Game(srv, None)
    gm.move(gm.a)
    seen = gm.c.wait_for("moved")["seq"]
    token = gm.a.token
    gm.a.close()
    gm.b.close()
    gm.c.wait_for("presence")
    gm.c.wait_for("presence")
    gm.advance(299999)
    t.ok(all(m["type"] != "game_over" for m in peek(gm.c)),
         "a game whose players are both away is kept for the linger time")
    # the linger counts from the moment the last player went, not from the next check
    gm.advance(1)
    over = gm.c.wait_for("game_over")
    t.ok(over["result"] == "aborted" and over["winner"] is None and over["reason"] == "abandoned",
         "then it is over at once: aborted, abandoned", over)
    a2 = srv.connect()
    w = a2.ask({"type": "hello", "protocol": 1, "token": token, "last_seq": seen})
    got = a2.wait_for("game_over")
    t.ok(w["type"] == "welcome" and w["resumed"] and got == over,
         "a player who comes back in time still gets the game_over", (w, got))
    a2.close()
    gm.close()
    # one test_clock past all of it: each thing at its own time, in order, as with real time
    gm = Game(srv, "10+0")
    gm.a.close()                        # black, to move: its grace runs, then its clock
    gm.b.close()
    gm.c.wait_for("presence")
    gm.c.wait_for("presence")
    gm.advance(700000)
    go = gm.c.wait_for("grace_over")
    over = gm.c.wait_for("game_over")
    t.ok(go["clocks"]["black"] == 600000 - GRACE_MS and over["reason"] == "abandoned"
         and over["clocks"]["black"] == 300000,
         "a long test_clock: grace_over after the grace, abandoned after the linger, no flag",
         (go, over))
    gm.close()


def open_game_expiry(t, srv):
    """The only player of an open game who stays away for --linger (300 s) leaves it: the game is
    over (aborted, abandoned) and the token stops working (PROTOCOL.md 4.3)."""
    o = srv.connect("opal")
    w = srv.connect("wren")
    k = srv.connect("tick")
    g = o.ask({"type": "create", "kind": "oxono"})["game"]
    w.ask({"type": "watch", "game": g})
    o.close()
    w.wait_for("presence")
    k.ask({"type": "test_clock", "advance_ms": 299000})
    t.ok(all(m["type"] != "game_over" for m in peek(w)),
         "an open game whose player is away is kept for the linger time")
    k.ask({"type": "test_clock", "advance_ms": 2000})
    over = w.wait_for("game_over")
    t.ok(over["result"] == "aborted" and over["reason"] == "abandoned" and over["ply"] == 0,
         "then its player has left it: aborted, abandoned", over)
    o2 = srv.connect()
    r = o2.ask({"type": "hello", "protocol": 1, "token": o.token})
    t.ok(r["type"] == "error" and r["code"] == "bad_token", "and its token is expired", r)
    for cl in (o2, w, k):
        cl.close()


def spectators_coalesced(t, srv):
    """Many watch requests close together: a few spectators notices, the last one up to date."""
    gm = Game(srv, None)
    watchers = [srv.connect("w%d" % i) for i in range(30)]
    for w in watchers:
        w.send({"type": "watch", "game": gm.g})
    got = [m for m in gm.a.drain(1.5) if m["type"] == "spectators"]
    t.ok(0 < len(got) <= 8 and got[-1]["spectators"]["count"] == 31,
         "30 watchers in a burst: %d spectators notices to a player, the last with 31" % len(got),
         [m["spectators"]["count"] for m in got])
    for w in watchers:
        w.close()
    got = [m for m in gm.a.drain(1.5) if m["type"] == "spectators"]
    t.ok(0 < len(got) <= 8 and got[-1]["spectators"]["count"] == 1,
         "30 spectators gone in a burst: %d notices, the last with 1" % len(got),
         [m["spectators"]["count"] for m in got])
    gm.close()


def zero_grace(t):
    """--grace 0: the grace of a player who drops on its own turn is over at once, with
    --test-clock too (nothing has to move the clock for what is already due)."""
    srv = Server("--test-clock", "--grace", "0", "--first-move", "0")
    try:
        gm = Game(srv, "5+0")
        gm.a.close()                    # black, to move, drops
        p = gm.b.wait_for("presence")
        go = gm.b.wait_for("grace_over", timeout=3)
        t.ok(p["grace_ms"] == 0 and go["seat"] == "black"
             and go["clocks"] == {"black": 300000, "white": 300000},
             "--grace 0: grace_over at the drop, without a test_clock", (p, go))
        ok = gm.b.ask({"type": "claim", "result": "win"})
        t.ok(ok["type"] == "ok", "and the claim is possible at once", ok)
        gm.close()
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def huge_advances(t):
    """test_clock takes any advance_ms up to 2^63 - 1, again and again: the virtual time stops at
    2^62 ms instead of wrapping around (it went back, and a game's deadline hung the server)."""
    srv = Server("--test-clock", "--grace", "1", "--first-move", "0")
    try:
        huge = 2 ** 63 - 1
        gm = Game(srv, "1+0")
        gm.move(gm.a)
        gm.advance(huge)
        go = gm.a.wait_for("game_over")
        t.ok(go["reason"] == "time" and go["winner"] == "black"
             and go["clocks"] == {"black": 60000, "white": 0},
             "an advance of 2^63 - 1 ms: the flag falls", go)
        for _ in range(3):
            gm.advance(huge)
        gm.close()
        gm = Game(srv, "1+0")
        gm.move(gm.a)
        st = gm.c.ask({"type": "watch", "game": gm.g})
        t.ok(st["clock"]["remaining"] == {"black": 60000, "white": 60000}
             and st["result"] is None,
             "at the end of the test clock a game is created, played and its clocks stand", st)
        gm.advance(huge)
        r = gm.b.ask({"type": "move", "move": gm.b.wait_for("your_turn")["moves"][0]})
        t.ok(r["type"] == "ok", "... still, whatever the advance", r)
        gm.close()
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def first_move(t):
    """PROTOCOL.md 11.1: a clock does not run before its side's first move; each first
    move has --first-move (30 s by default) instead, and a side that misses it aborts the game
    (result aborted, reason abort), nobody loses. Games without a clock have no such timer."""
    srv = Server("--test-clock")
    try:
        gm = Game(srv, "5+3")
        st = gm.joined["clock"]
        t.ok(st["running"] is None and st["first_move_ms"] == 30000
             and st["first_move_left_ms"] == 30000
             and st["remaining"] == {"black": 300000, "white": 300000},
             "first move: no clock runs, the first move's own timer does", st)
        gm.advance(20000)
        w = gm.k.ask({"type": "watch", "game": gm.g})
        t.ok(w["clock"]["first_move_left_ms"] == 10000
             and w["clock"]["remaining"]["black"] == 300000,
             "20 s later: 10 s left for the first move, the clock untouched", w["clock"])
        gm.k.ask({"type": "leave"})
        gm.move(gm.a)
        mv = gm.c.wait_for("moved")
        t.ok(mv["clocks"] == {"black": 303000, "white": 300000},
             "the first move spends no clock (the increment is added)", mv)
        gm.advance(29999)
        gm.move(gm.b)
        mv = gm.c.wait_for("moved")
        t.ok(mv["clocks"] == {"black": 303000, "white": 303000},
             "the second player's first move has its own 30 s too", mv)
        gm.advance(5000)
        w = gm.k.ask({"type": "watch", "game": gm.g})
        t.ok(w["clock"]["running"] == "black" and "first_move_left_ms" not in w["clock"]
             and w["clock"]["remaining"]["black"] == 298000,
             "from the second move on the clocks run", w["clock"])
        gm.k.ask({"type": "leave"})
        gm.close()

        gm = Game(srv, "1+0")
        gm.advance(29999)
        t.ok(all(m["type"] != "game_over" for m in peek(gm.a)), "nothing 1 ms before the end")
        gm.advance(1)
        over = gm.a.wait_for("game_over")
        t.ok(over["result"] == "aborted" and over["reason"] == "abort"
             and over["winner"] is None and over["clocks"] == {"black": 60000, "white": 60000},
             "the first player misses its first move: aborted, reason abort, no clock spent",
             over)
        yt = gm.b.ask({"type": "move", "move": "a1-a2"})
        t.ok(yt["type"] == "error" and yt["code"] == "game_over", "the game is over", yt)
        gm.close()

        gm = Game(srv, "1+0", kind="oxono")
        gm.move(gm.a)
        gm.advance(30000)
        over = gm.a.wait_for("game_over")
        t.ok(over["result"] == "aborted" and over["reason"] == "abort",
             "the second player misses its first move: aborted too", over)
        gm.close()

        gm = Game(srv, "1+0")
        gm.advance(40000)  # the wake-up is due; a move that comes first finds the game over
        r = gm.a.ask({"type": "move", "move": gm.a.wait_for("your_turn")["moves"][0]})
        t.ok(r["type"] == "error" and r["code"] == "game_over",
             "a first move after its time is refused with game_over", r)
        gm.close()

        gm = Game(srv, None)
        gm.advance(600000)
        ok = gm.move(gm.a)
        t.ok(ok["type"] == "ok", "a game without a clock has no first-move timer", ok)
        gm.close()
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def no_test_clock(t):
    srv = Server()
    try:
        c = srv.connect("k")
        r = c.ask({"type": "test_clock", "advance_ms": 1000})
        t.ok(r["type"] == "error" and r["code"] == "unknown_type" and r.get("field") == "type"
             and "request" not in r,
             "test_clock is refused unless hokitod runs with --test-clock, as an unknown type", r)
        for bad in ({}, {"advance_ms": -1}, {"advance_ms": "x"}):
            r = c.ask(dict(bad, type="test_clock"))
            t.ok(r["type"] == "error" and r["code"] == "unknown_type" and r.get("field") == "type",
                 "... whatever its members: %s" % json.dumps(bad), r)
        c.send_raw(b'{"type":"test_clock","advance_ms":1,"id":[1]}\n')
        r = c.recv()
        t.ok(r["type"] == "error" and r["code"] == "unknown_type" and "id" not in r,
             "... even an id of the wrong type", r)
        c.close()
        c = srv.connect()
        r = c.ask({"type": "test_clock", "advance_ms": 1000})
        t.ok(r["type"] == "error" and r["code"] == "unknown_type" and r.get("field") == "type",
             "... even before hello, as an unknown type is (not hello_required)", r)
        c.close()
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def main():
    t = Tap()
    # offers again without moves between them: no --draw-offer-moves limit here (the
    # limit on draw and rematch offers is pinned by test-server-limits.py); --first-move 0: these
    # tests pin clocks that run from the start (first_move() has the timer)
    srv = Server("--test-clock", "--grace", str(GRACE_MS // 1000), "--draw-offer-moves", "0",
                 "--max-rematch-offers", "0", "--first-move", "0")
    run_on_server(t, srv, [
        ("clocks and increment", clocks_and_increment),
        ("time forfeit", time_forfeit),
        ("draws", draws),
        ("aborts", aborts),
        ("grace and claim", grace_and_claim),
        ("grace only on own turn", grace_only_on_own_turn),
        ("adjourn", adjourn),
        ("adjourn a private game", adjourn_private),
        ("adjourn, then claim", adjourn_claim),
        ("chat", chat),
        ("rematch", rematch),
        ("rematch of a private game", rematch_private),
        ("replay", replay_new_events),
        ("bad values", bad_values),
        ("quick by clock", quick_by_clock),
        ("abandoned", abandoned),
        ("open game expiry", open_game_expiry),
        ("spectators coalesced", spectators_coalesced),
    ], "hokitod exits 0")
    t.run("zero grace", zero_grace, t)
    t.run("huge advances", huge_advances, t)
    t.run("no test clock", no_test_clock, t)
    t.run("first move", first_move, t)
    t.done()


main()
