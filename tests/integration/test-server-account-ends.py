#!/usr/bin/env python3
"""hokitod: an account's sessions end when the account says so, end to end over loopback.

password_change ends every other session of the account: each gets bye "password_changed" (its
live game ended as aborted, abandoned, its opponent told) and its token gets bad_token, while the
session that changed it goes on with its token. account_close ends every session of the account
(bye "closed"), the closing one included: its games not over end as a ban ends them, and no token
of the closed account resumes anything, as a guest or otherwise (bad_token), neither at once nor
after kill -9 and a restart; nor after a restart on a store whose account was closed while a
seated session of it was stored. Prints TAP.
"""
import os
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap, run_on_server  # noqa: E402

PW = "correct horse battery"
NEW = "a brand new password"


def login(srv, name, pw=PW):
    c = srv.connect()
    r, _ = c.request({"type": "hello", "protocol": 1, "name": name, "password": pw})
    if r["type"] == "welcome":
        c.token = r["token"]
    return c, r


def resume(srv, token):
    c = srv.connect()
    r, _ = c.request({"type": "hello", "protocol": 1, "token": token})
    c.close()
    return r


def live_game(host, guest, rated=False):
    """host creates a HOKITO game (rated: both accounts), guest joins: it is live."""
    req = {"type": "create", "kind": "hokito", "seat": "black", "seed": 5}
    if rated:
        req["rated"] = True
    st, _ = host.request(req)
    assert st["type"] == "state", st
    js, _ = guest.request({"type": "join", "game": st["game"]})
    assert js["type"] == "state" and js["status"] == "live", js
    host.recv_until("started")
    return st["game"]


def test_password_change(t, srv):
    a1 = srv.account("Pat_one", PW)
    a2, r = login(srv, "pat_one")
    t.ok(r["type"] == "welcome", "a second session of the account", r)
    a3, r = login(srv, "PAT_ONE")
    guest = srv.connect("gus")
    game = live_game(a2, guest)
    st, _ = a3.request({"type": "watch", "game": game})
    t.ok(st["type"] == "state", "a third one watches the game", st)

    t0 = time.monotonic()
    r, _ = a1.request({"type": "password_change", "old": PW, "new": NEW})
    t.ok(r["type"] == "ok" and r["request"] == "password_change", "password_change: ok", r)
    bye2, before = a2.recv_until("bye")
    t.ok(bye2["reason"] == "password_changed" and a2.closed(),
         "the seated session gets bye password_changed, then is closed", bye2)
    t.ok(any(m["type"] == "game_over" and m["result"] == "aborted" for m in before),
         "... after its game's game_over (aborted)", before)
    bye3, _ = a3.recv_until("bye")
    t.ok(bye3["reason"] == "password_changed" and a3.closed(),
         "the watching session too (%.0f ms after the request)" % (
             (time.monotonic() - t0) * 1000), bye3)
    over = guest.wait_for("game_over")
    t.ok(over["game"] == game and over["result"] == "aborted" and over["reason"] == "abandoned",
         "the opponent is told: aborted, abandoned", over)
    for c, who in ((a2, "seated"), (a3, "watching")):
        r = resume(srv, c.token)
        t.ok(r["type"] == "error" and r["code"] == "bad_token",
             "the %s session's old token: bad_token" % who, r)
    r, _ = a1.request({"type": "ping"})
    t.ok(r["type"] == "pong", "the changing session goes on", r)
    a1.close()
    r = resume(srv, a1.token)
    t.ok(r["type"] == "welcome" and r["resumed"] is True and r["player"]["kind"] == "account",
         "... and keeps its token: it resumes as the account", r)
    c, r = login(srv, "pat_one")
    t.ok(r["type"] == "error" and r["code"] == "wrong_password", "the old password: refused", r)
    c.close()
    c, r = login(srv, "pat_one", NEW)
    t.ok(r["type"] == "welcome", "the new one logs in", r)
    c.close()
    t.ok(srv.log_has(r"changed the password of account \d+: 2 other sessions ended, 1 games"),
         "the log says how many sessions and games ended")
    guest.close()


def test_account_close(t, srv):
    d1 = srv.account("Quinn_q", PW)
    d2, _ = login(srv, "quinn_q")
    d3, _ = login(srv, "quinn_q")
    opp = srv.account("Opp_rated", PW)
    game = live_game(d2, opp, rated=True)
    st, _ = d3.request({"type": "watch", "game": game})
    assert st["type"] == "state", st
    r, _ = d1.request({"type": "account_close", "password": PW})
    t.ok(r["type"] == "ok" and r["request"] == "account_close", "account_close: ok", r)
    for c, who in ((d1, "the closing session"), (d2, "the seated one"),
                   (d3, "the watching one")):
        bye, _ = c.recv_until("bye")
        t.ok(bye["reason"] == "closed" and c.closed(), "%s gets bye closed" % who, bye)
    over = opp.wait_for("game_over")
    t.ok(over["game"] == game and over["result"] == "aborted" and over["reason"] == "abandoned"
         and not over.get("ratings"),
         "its rated game not over ends as aborted, abandoned, no rating changed", over)
    tokens = [(d1.token, "the closing session's"), (d2.token, "the seated one's"),
              (d3.token, "the watching one's")]
    for tok, who in tokens:
        r = resume(srv, tok)
        t.ok(r["type"] == "error" and r["code"] == "bad_token",
             "%s token: bad_token (not a guest of the account's name)" % who, r)
    c, r = login(srv, "quinn_q")
    t.ok(r["type"] == "error" and r["code"] == "account_closed", "its login: account_closed", r)
    c.close()
    srv.kill()
    srv.__init__(db=srv.db)
    for tok, who in tokens:
        r = resume(srv, tok)
        t.ok(r["type"] == "error" and r["code"] == "bad_token",
             "after kill -9 and a restart, %s token: bad_token" % who, r)
    opp.close()


def test_closed_while_stored(t):
    """A seated session of an account is stored; the server stops; the account's row is
    closed in the store (as a crash between two writes could leave it): at the next start its
    token resumes nothing and its game is over."""
    srv = Server()
    try:
        s1 = srv.account("Rita_r", PW)
        guest = srv.connect("rob")
        game = live_game(s1, guest)
        t.ok(srv.stop() == 0, "the server stops, the seated session stored")
        db = sqlite3.connect(srv.db)
        db.execute("UPDATE accounts SET closed_ms = 1 WHERE name_key = 'rita_r'")
        db.commit()
        db.close()
        srv.__init__(db=srv.db)
        r = resume(srv, s1.token)
        t.ok(r["type"] == "error" and r["code"] == "bad_token",
             "the closed account's stored token: bad_token", r)
        g = srv.connect()
        r, _ = g.request({"type": "hello", "protocol": 1, "token": guest.token})
        st = g.wait_for("state") if r.get("type") == "welcome" else None
        t.ok(st is not None and st["game"] == game and st["status"] == "finished"
             and st["result"]["result"] == "aborted",
             "its game ended at the start: aborted", (r, st))
        g.close()
    finally:
        srv.stop()


def main():
    t = Tap()
    run_on_server(t, Server(), [
        ("password_change: no exception", test_password_change),
        ("account_close: no exception", test_account_close),
    ], "the server stops cleanly")
    t.run("closed in the store while stopped: no exception", test_closed_while_stored, t)
    t.done()


if __name__ == "__main__":
    main()
