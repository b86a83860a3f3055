#!/usr/bin/env python3
"""test-client-computer.py: the hokito client plays the server's computer, --plain.

`hokito --plain create hokito --seat white --computer 2` plays a whole game against the computer
(moves chosen from hokito-engine's list of legal moves); the plain `create ... computer N` command
starts an OXONO game in which the computer moves first; the lobby lists the computer's games; bad
levels are refused; a quick player meets `hokito-engine bot`. TAP on stdout.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clienttest as ct  # noqa: E402
import serverlib  # noqa: E402

THINK = 30  # seconds for one move of the computer (sanitizer builds are slow)


def play_out(tap, p, kind):
    """Answer every 'your turn' of p with a legal move until the game is over; returns the
    game over line, or None."""
    for ply in range(80):
        m = p.expect(r"^(your turn|game over:.*)", THINK)
        if not m:
            return None
        if m.group(1).startswith("game over:"):
            return m.group(1)
        p.send("position")
        pm = p.expect(r"^position: (.*)$", 10)
        moves = ct.legal_moves(kind, pm.group(1)) if pm else []
        if not moves:
            return None
        p.send(moves[(ply * 7 + 3) % len(moves)])
    return None


def main(tap):
    r = subprocess.run([ct.HOKITO, "create", "--computer", "9"], capture_output=True,
                       text=True, timeout=10)
    tap.check(r.returncode == 2 and "not a level" in r.stderr, "--computer 9: status 2",
              r.stderr)
    tmp = ct.tmpdir()
    server = ct.Server(tmp)
    try:
        a = ct.Plain(server.port, "ann",
                     ["create", "hokito", "--seat", "white", "--computer", "2"],
                     os.path.join(tmp, "ann"))
        tap.check(a.expect(r"^joined game (g\d+) \(hokito standard\) as white", 10) and
                  a.expect(r"^players: black computer \(level 2\) score 36; white ann \(you\)",
                           10), "create --computer 2: a game against the computer, started",
                  a.text())
        tap.check(a.expect(r"^move 1: black \S+", THINK),
                  "the computer (black) moves first", a.text())
        mark = a.pos  # play_out() looks for "your turn" from here
        a.send("draw")
        tap.check(a.expect(r"^error: The computer does not take draws: play on, or resign\.$",
                           10) and not a.seen(r"offers a draw|You offer a draw"),
                  "a draw offer to the computer (which never answers) is refused on the spot",
                  a.text())
        a.pos = mark
        over = play_out(tap, a, "hokito")
        tap.check(over is not None and "no legal move" in over,
                  "the game against the computer is played to its end", a.text()[-2000:])
        a.send("list")
        tap.check(a.expect(r"computer \(level 2\)", 10), "the lobby lists the game",
                  a.text()[-1500:])
        a.send("quit")
        a.close()

        b = ct.Plain(server.port, "bea", [], os.path.join(tmp, "bea"))
        b.send("create oxono black computer 0")
        tap.check(b.expect(r"^error: create: the computer's level is from 1 to 8", 10),
                  "plain create: level 0 is refused", b.text())
        b.send("create oxono black computer 1")
        tap.check(b.expect(r"^joined game g\d+ \(oxono standard\) as black", 10) and
                  b.expect(r"pink computer \(level 1\)", 10),
                  "plain create oxono black computer 1", b.text())
        tap.check(b.expect(r"^move 1: pink \S+", THINK), "the computer (pink) moves first",
                  b.text())
        over = play_out(tap, b, "oxono")
        tap.check(over is not None, "the OXONO game is played to its end", b.text()[-2000:])
        b.send("quit")
        b.close()

        # hokito-engine bot pairs with a quick player and leaves after its one game: the player
        # is told it went offline, not offered a grace period in a game that is over.
        bot = subprocess.Popen([ct.ENGINE, "bot", "--port", str(server.port), "--level", "1",
                                "--games", "1", "--name", "robo"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        c = ct.Plain(server.port, "cy", ["quick"], os.path.join(tmp, "cy"))
        over = play_out(tap, c, "hokito")
        tap.check(over is not None and bot.wait(THINK) == 0,
                  "a quick game against hokito-engine bot --games 1", c.text()[-2000:])
        tap.check(c.expect(r"^robo is offline\.$", 10) and not c.seen(r"s of grace"),
                  "the bot leaving a finished game: no grace period", c.text()[-500:])
        c.send("quit")
        c.close()
        bot_adjourned(tap, tmp)
        for kind in ("hokito", "oxono"):
            bot_draw(tap, tmp, kind)
    finally:
        server.stop()
        ct.cleanup(tmp)


def bot_adjourned(tap, tmp):
    """A player who drops from a game against hokito-engine bot and does not come back: once
    the game is adjourned (its grace, 1 s here, is over) the bot leaves it and goes on."""
    os.makedirs(os.path.join(tmp, "adj"))
    server = ct.Server(os.path.join(tmp, "adj"), ["--grace", "1"])
    bot = subprocess.Popen([ct.ENGINE, "bot", "--port", str(server.port), "--level", "1",
                            "--games", "1", "--name", "robo2"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        log = os.path.join(tmp, "adj", "hokitod.log")
        ct.wait_for(lambda: "(robo2) created game" in open(log).read(), 10)
        d = ct.Plain(server.port, "dee", ["quick"], os.path.join(tmp, "dee"))
        tap.check(d.expect(r"^joined game g\d+ \(hokito standard\) as", 10) and
                  d.expect(r"^your turn", THINK) and d.seen(r"robo2"),
                  "dee meets the bot, her turn", d.text()[-1000:])
        d.close()  # and does not come back
        try:
            rc = bot.wait(THINK)
        except subprocess.TimeoutExpired:
            rc = None
        out = bot.stdout.read() if rc is not None else ""
        tap.check(rc == 0 and "adjourned: the opponent did not come back; the bot leaves it"
                  in out, "the bot leaves the adjourned game and counts it (--games 1: exit 0)",
                  "exit %r: %s" % (rc, out))
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        server.stop()


def bot_draw(tap, tmp, kind):
    """hokito-engine bot answers a draw offer: it searches the position and accepts
    when its search says a draw or worse for it, else declines (offered on the opponent's turn,
    it runs a search of its own; on its own turn the search of its move answers, or the offer
    lapses with its move)."""
    d = os.path.join(tmp, "draw-" + kind)
    os.makedirs(d)
    server = ct.Server(d)
    bot = subprocess.Popen([ct.ENGINE, "bot", "--port", str(server.port), "--level", "1",
                            "--games", "1", "--name", "robo3", "--game", kind],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        log = os.path.join(d, "hokitod.log")
        ct.wait_for(lambda: "(robo3) created game" in open(log).read(), 10)
        p = serverlib.Client("127.0.0.1", server.port)
        p.hello("dora")
        g = p.ask({"type": "quick", "kind": kind})["game"]
        # a draw once both sides have moved (PROTOCOL.md draw_offer): a move of ours first,
        # and the bot's answer to it
        yt = p.wait_for("your_turn", THINK)
        p.ask({"type": "move", "move": yt["moves"][0]})
        answers = []
        for _ in range(2):
            # offered on our turn: the bot is not moving, so it searches only to answer
            yt = p.wait_for("your_turn", THINK)
            ok, early = p.request({"type": "draw_offer"})
            ans, kept = None, []
            while ans is None:
                m = early.pop(0) if early else p.recv(THINK)
                if m["type"] in ("draw_declined", "game_over") and m.get("game") == g:
                    ans = m
                else:
                    kept.append(m)
            p.backlog[0:0] = kept
            answers.append(ans)
            if ans["type"] == "game_over":
                break
            p.ask({"type": "move", "move": yt["moves"][0]})
        if answers[-1]["type"] != "game_over":
            p.request({"type": "resign"})
        try:
            rc = bot.wait(THINK)
        except subprocess.TimeoutExpired:
            rc = None
        out = bot.stdout.read() if rc is not None else ""
        said = re.findall(r"draw offer (accepted|declined) \(score (-?\d+) for the bot\)", out)
        want = [("accepted" if a["type"] == "game_over" else "declined") for a in answers]
        tap.check(rc == 0 and [w for w, _ in said] == want and
                  all((w == "accepted") == (int(sc) <= 0) for w, sc in said) and
                  all(a["type"] == "draw_declined" or
                      (a["result"] == "draw" and a["reason"] == "agreement") for a in answers),
                  "%s: the bot answers each draw offer: accepted at a score of 0 or less for "
                  "it, else declined" % kind, "exit %r: %s %r" % (rc, out, answers))
        p.close()
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        server.stop()


ct.main_guard(main)
