#!/usr/bin/env python3
"""test-client-turns.py: the full-screen hokito client that players come back to,
driven in tmux against a real hokitod.

Each point of the issue's client side is pinned here, key by key, on the real client: the rules
pages (R from anywhere, scrolled, both games, at 100x30 and 64x18); the terminal bell and title
when it is the player's turn (the pane's bell flag and #{pane_title}), --no-bell and the b key,
"the computer is thinking"; a move typed while the connection is down, kept and sent after the
reconnect, or said not to be sent; the lobby's selection following its game, and Enter on a
game being played or taken meanwhile watching it; the smaller points: "wins by resignation"
with the scores apart, a stack's line, the chat prompt's limit, moves typed loosely, one's own
seat never "offline", a larger board at 200x60 and a longer move list at 80x24. Screens are read
with capture-pane; a socket spectator follows the positions so that the test can pick legal
moves with hokito-engine. TAP on stdout; a private tmux server, killed at the end.
"""
import json
import os
import re
import socket
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clienttest as ct  # noqa: E402
import serverlib  # noqa: E402

STDERR = []  # files holding the clients' standard error


def env_for(tmp, name):
    return {"XDG_STATE_HOME": os.path.join(tmp, name), "TERM": "xterm-256color",
            "LANG": "C.UTF-8"}


def start(tmux, tmp, session, args, cols=100, rows=30):
    """hokito with args in a tmux session of its own, in the directory tmp (where S saves);
    its stderr kept for the final check."""
    path = os.path.join(tmp, session + ".stderr")
    STDERR.append(path)
    command = "cd %s && exec %s %s" % (ct.shquote(tmp), ct.HOKITO, args)
    tmux.start(session, "sh -c %s" % ct.shquote(command), env_for(tmp, session), cols, rows,
               stderr=path)


def status(screen):
    """The status line: the line above the hints bar."""
    return screen.rstrip("\n").split("\n")[-2]


def wait_screen(tmux, session, pred, timeout=5):
    """Wait for pred(screen) to hold of a session's screen; the screen or None."""
    def shown():
        scr = tmux.capture(session)
        return scr if pred(scr) else None
    return ct.wait_for(shown, timeout)


def rules_pages(tap, tmux, server, tmp):
    """R opens the rules from the lobby and from a game; they scroll, Tab turns to the other
    game's, q goes back where R was pressed; ? says so; a 64x18 terminal wraps the long lines."""
    start(tmux, tmp, "rul", "--port %d --name rul" % server.port)
    tap.check(tmux.expect("rul", r"hokito . lobby", 10), "rules: the lobby is shown",
              tmux.capture("rul"))
    tmux.keys("rul", "?")
    tap.check(tmux.expect("rul", r"R +the rules of both games", 5),
              "the lobby's help mentions R, the rules", tmux.capture("rul"))
    tmux.keys("rul", "Escape")
    tmux.keys("rul", "R")
    scr = tmux.expect("rul", r"The rules of HOKITO.*THE AIM.*THE PAWNS", 5)
    tap.check(scr, "R in the lobby shows the rules of HOKITO", tmux.capture("rul"))
    tap.check("hokito . rules of HOKITO" in tmux.capture("rul").split("\n")[0] or
              re.search(r"rules of HOKITO", tmux.capture("rul").split("\n")[0]),
              "the title bar says where we are", tmux.capture("rul"))
    tmux.keys("rul", "Space")
    tap.check(wait_screen(tmux, "rul", lambda s: "lines 24-" in s and "THE AIM" not in s),
              "Space scrolls a page down", tmux.capture("rul"))
    tmux.keys("rul", "G")
    tap.check(wait_screen(tmux, "rul", lambda s: "THE PAWNS" not in s and "agreement to a draw" in s and
                          re.search(r"lines \d+-(\d+) of \1", s)),
              "G (End) shows the last lines", tmux.capture("rul"))
    tmux.keys("rul", "Tab")
    tap.check(tmux.expect("rul", r"The rules of OXONO.*lines 1-", 5),
              "Tab turns to the rules of OXONO, from the top", tmux.capture("rul"))
    tmux.keys("rul", "j")
    tap.check(tmux.expect("rul", r"lines 2-", 5), "j scrolls a line", tmux.capture("rul"))
    tmux.keys("rul", "q")
    tap.check(tmux.expect("rul", r"hokito . lobby", 5) and
              "The rules of" not in tmux.capture("rul"), "q goes back to the lobby",
              tmux.capture("rul"))
    tmux.keys("rul", "Q")
    # from a game, on a small terminal: the rules of the game at the table, wrapped
    start(tmux, tmp, "rul2", "--port %d --name rultwo create oxono" % server.port, 64, 18)
    tap.check(tmux.expect("rul2", r"Waiting for an opponent", 10), "a game at 64x18",
              tmux.capture("rul2"))
    tmux.keys("rul2", "R")
    scr = tmux.expect("rul2", r"The rules of OXONO", 5)
    lines = tmux.capture("rul2").split("\n")
    tap.check(scr and all(len(l) <= 64 for l in lines) and
              any(l.startswith("  OXONO") or "OXONO:" in l for l in lines),
              "R at an OXONO game shows OXONO's rules, fitted to 64 columns", "\n".join(lines))
    tmux.keys("rul2", "?")
    tap.check(tmux.expect("rul2", r"Tab or o +the rules of the other game", 5),
              "the rules page has its own help", tmux.capture("rul2"))
    tmux.keys("rul2", "Escape")
    tmux.keys("rul2", "R")
    tap.check(tmux.expect("rul2", r"Waiting for an opponent", 5),
              "R again goes back to the game", tmux.capture("rul2"))
    tmux.keys("rul2", "?", "Space")
    tap.check(tmux.expect("rul2", r"R / B +the rules, in full / the bell on or off", 5),
              "the game's help mentions R", tmux.capture("rul2"))
    tmux.keys("rul2", "Escape")
    tmux.keys("rul2", "q")
    tmux.keys("rul2", "Q")


def pane(tmux, session, fmt):
    return tmux.run("display-message", "-p", "-t", session, fmt, check=False).stdout.strip()


def rang(tmux, session):
    """Whether the pane rang the bell since bell_reset(): tmux flags the window (monitor-bell
    is on by default, and a detached session's current window is flagged too)."""
    return pane(tmux, session, "#{window_bell_flag}") == "1"


def bell_reset(tmux, session):
    """Clear the window's bell flag: tmux clears it when the window is selected again."""
    if pane(tmux, session, "#{session_windows}") == "1":
        tmux.run("new-window", "-d", "-t", session, "sleep 600")
    tmux.run("select-window", "-t", session + ":1")
    tmux.run("select-window", "-t", session + ":0")


def title_is(tmux, session, text, timeout=5):
    return ct.wait_for(lambda: pane(tmux, session, "#{pane_title}") == text, timeout)


def first_move(plain, kind="hokito"):
    """A legal move in the position a --plain client sees (its first in the engine's list)."""
    plain.send("position")
    m = plain.expect(r"^position: (.*)$", 10)
    return ct.legal_moves(kind, m.group(1))[0] if m else None


def typed(tmux, session, move):
    tmux.keys(session, ":")
    tmux.literal(session, move)
    tmux.keys(session, "Enter")


def bell_and_title(tap, tmux, tmp):
    """The bell rings and the title says whose move it is at each moment that calls the player:
    the game starts, the opponent moves, the clock runs low, an offer, the end; not at one's own
    move. B turns the bell off and on; --no-bell starts with it off."""
    sdir = os.path.join(tmp, "clocked")
    os.makedirs(sdir)
    server = ct.Server(sdir, ["--test-clock"])
    proxy = ct.Proxy(server.port)
    clock = serverlib.Client("127.0.0.1", server.port)
    bob = None
    try:
        clock.hello("clock")
        start(tmux, tmp, "bel", "--port %d --name bel create --seat black --clock 1+0"
              % proxy.port)
        m = tmux.expect("bel", r"game (g\d+)", 10)
        tap.check(m and title_is(tmux, "bel", "hokito: waiting for an opponent"),
                  "the title says the game waits for an opponent",
                  pane(tmux, "bel", "#{pane_title}"))
        if not m:
            return
        bell_reset(tmux, "bel")
        bob = ct.Plain(server.port, "bob", ["join", m.group(1)], os.path.join(tmp, "bob"))
        tap.check(tmux.expect("bel", r"Your move \(Black\)", 10) and
                  title_is(tmux, "bel", "hokito: your move vs bob") and
                  ct.wait_for(lambda: rang(tmux, "bel"), 5),
                  "the game starts: the bell rings, the title says 'your move vs bob'",
                  pane(tmux, "bel", "#{pane_title} #{window_bell_flag}"))
        bell_reset(tmux, "bel")
        mv = first_move(bob)
        typed(tmux, "bel", " %s " % mv.upper().replace("-", ""))  # " A1C1 ": a1-c1
        tap.check(bob.expect(r"^move 1: black %s$" % mv, 10),
                  "a move typed loosely (upper case, blanks, no dash) is taken: %s" % mv,
                  tmux.capture("bel"))
        tap.check(title_is(tmux, "bel", "hokito: bob to move") and
                  bob.expect(r"^your turn", 10) and not rang(tmux, "bel"),
                  "one's own move: no bell, the title says 'bob to move'",
                  pane(tmux, "bel", "#{pane_title} #{window_bell_flag}"))
        mv = first_move(bob)
        bob.send(mv.replace("-", " "))  # --plain: "a4 a2" is a move too
        tap.check(bob.expect(r"^move 2: white %s$" % mv, 10),
                  "--plain takes a move typed with a blank for its dash", bob.text()[-500:])
        tap.check(title_is(tmux, "bel", "hokito: your move vs bob") and
                  ct.wait_for(lambda: rang(tmux, "bel"), 5),
                  "the opponent moves: the bell rings, the title says 'your move vs bob'",
                  pane(tmux, "bel", "#{pane_title} #{window_bell_flag}"))
        # the clock: the server's test clock moves 51 s on; a reconnection brings the clocks
        bell_reset(tmux, "bel")
        clock.request({"type": "test_clock", "advance_ms": 51000})
        proxy.cut()
        tap.check(tmux.expect("bel", r"low time!", 15) and
                  ct.wait_for(lambda: rang(tmux, "bel"), 5),
                  "the clock runs low (under 10 s) on one's move: the bell rings",
                  tmux.capture("bel"))
        bell_reset(tmux, "bel")
        bob.send("draw")
        tap.check(tmux.expect("bel", r"offers a draw", 10) and
                  ct.wait_for(lambda: rang(tmux, "bel"), 5),
                  "a draw offered: the bell rings", tmux.capture("bel"))
        tmux.keys("bel", "x")
        ct.wait_for(lambda: "offers a draw" not in tmux.capture("bel") and
                    bob.seen(r"declin"), 5)
        tmux.keys("bel", "B")
        tap.check(tmux.expect("bel", r"The bell is off \(B turns it on\)\.", 5),
                  "B turns the bell off, and says so", tmux.capture("bel"))
        bell_reset(tmux, "bel")
        typed(tmux, "bel", first_move(bob))
        bob.expect(r"^your turn", 10)
        bob.send(first_move(bob))
        tap.check(title_is(tmux, "bel", "hokito: your move vs bob") and
                  not ct.wait_for(lambda: rang(tmux, "bel"), 1.5),
                  "with the bell off the opponent's move does not ring; the title still "
                  "follows", pane(tmux, "bel", "#{pane_title} #{window_bell_flag}"))
        tmux.keys("bel", "B")
        tap.check(tmux.expect("bel", r"The bell is on \(B turns it off\)\.", 5),
                  "B turns it on again", tmux.capture("bel"))
        bell_reset(tmux, "bel")
        bob.send("resign")
        tap.check(tmux.expect("bel", r"Game over", 10) and
                  title_is(tmux, "bel", "hokito: you won vs bob") and
                  ct.wait_for(lambda: rang(tmux, "bel"), 5),
                  "the game ends: the bell rings, the title says 'you won vs bob'",
                  pane(tmux, "bel", "#{pane_title} #{window_bell_flag}"))
        bell_reset(tmux, "bel")
        tmux.keys("bel", "n")
        bob.expect(r"^rematch offer from black", 10)
        bob.send("accept")
        tap.check(tmux.expect("bel", r"White +bel \(you\)", 10) and
                  title_is(tmux, "bel", "hokito: bob to move") and
                  ct.wait_for(lambda: rang(tmux, "bel"), 5),
                  "the rematch starts: the bell rings; bob moves first",
                  pane(tmux, "bel", "#{pane_title} #{window_bell_flag}"))
        tmux.keys("bel", "Q")
        # --no-bell: the bell stays quiet from the start, and ? says how to turn it on
        start(tmux, tmp, "nob", "--port %d --name nob --no-bell create --seat black" % server.port)
        m = tmux.expect("nob", r"game (g\d+)", 10)
        bell_reset(tmux, "nob")
        bob2 = ct.Plain(server.port, "bob2", ["join", m.group(1)] if m else [],
                        os.path.join(tmp, "bob2"))
        tap.check(tmux.expect("nob", r"Your move \(Black\)", 10) and
                  title_is(tmux, "nob", "hokito: your move vs bob2") and
                  not ct.wait_for(lambda: rang(tmux, "nob"), 1.5),
                  "--no-bell: the game starts without a bell",
                  pane(tmux, "nob", "#{pane_title} #{window_bell_flag}"))
        tmux.keys("nob", "?")
        tap.check(tmux.expect("nob", r"R / B +the rules, in full / the bell on or off", 5),
                  "the help explains B", tmux.capture("nob"))
        tmux.keys("nob", "Escape", "Q")
        bob2.close()
    finally:
        if bob is not None:
            bob.close()
        clock.close()
        proxy.close()
        server.stop()


def computer_thinking(tap, tmux, tmp):
    """While the server's computer is to move, the panel says it is thinking (a fake server
    holds the game there)."""
    position = subprocess.run([ct.ENGINE, "start", "--seed", "3"], capture_output=True,
                              text=True, timeout=10).stdout.strip()
    sent = ({"type": "welcome", "protocol": 1, "player": {"id": "p1", "name": "hum"},
             "token": "t"},
            {"type": "state", "game": "g1", "kind": "hokito", "variant": "standard",
             "status": "live", "you": "white", "position": position, "moves": [], "seq": 1,
             "players": {"black": {"name": "computer (level 3)", "connected": True,
                                   "computer": 3},
                         "white": {"name": "hum", "connected": True}}})
    fake = ct.FakeServer(sent, 10)
    start(tmux, tmp, "think", "--port %d --name hum --new-session" % fake.port)
    tap.check(tmux.expect("think", r"Black to move: the computer is thinking\u2026", 10) and
              title_is(tmux, "think", "hokito: computer (level 3) to move"),
              "the computer to move: the panel says it is thinking", tmux.capture("think"))
    tmux.keys("think", "Q")
    fake.close()


def plain_commands(tap, server, tmp):
    """--plain has the same as commands: rules [GAME], bell [on|off]."""
    pl = ct.Plain(server.port, "pla", [], os.path.join(tmp, "pla"))
    try:
        pl.expect(r"^connected to", 10)
        pl.send("rules oxono")
        tap.check(pl.expect(r"^OXONO: line up four", 5) and pl.expect(r"^THE END$", 5),
                  "--plain: rules oxono prints OXONO's rules", pl.text()[-2000:])
        pl.send("rules")
        tap.check(pl.expect(r"^HOKITO: stack your pawns", 5),
                  "--plain: rules, away from a game, prints HOKITO's", pl.text()[-2000:])
        pl.send("rules chess")
        tap.check(pl.expect(r"^error: usage: rules \[hokito\|oxono\]", 5),
                  "--plain: rules of an unknown game: its usage", pl.text()[-500:])
        pl.send("bell")
        tap.check(pl.expect(r"^bell: on$", 5), "--plain: bell says it is on",
                  pl.text()[-500:])
        pl.send("bell off")
        tap.check(pl.expect(r"^bell: off$", 5), "--plain: bell off turns it off",
                  pl.text()[-500:])
        pl.send("help")
        tap.check(pl.expect(r"^  bell \[on\|off\] ", 5) and pl.seen(r"^  rules \[hokito"),
                  "--plain: help lists rules and bell", pl.text()[-3000:])
    finally:
        pl.close()
    pl = ct.Plain(server.port, "plb", ["--no-bell"], os.path.join(tmp, "plb"))
    try:
        pl.expect(r"^connected to", 10)
        pl.send("bell")
        tap.check(pl.expect(r"^bell: off$", 5), "--plain --no-bell: the bell is off",
                  pl.text()[-500:])
    finally:
        pl.close()


def held_moves(tap, tmux, server, tmp):
    """A move typed while the connection is down is kept, said so in the panel (the countdown of
    the reconnection does not overwrite it), and sent once the connection is back; when it can
    no longer be played (the opponent resigned meanwhile), the panel says it was not sent."""
    proxy = ct.Proxy(server.port)
    bob = None
    try:
        start(tmux, tmp, "hel", "--port %d --name hel create --seat black" % proxy.port)
        m = tmux.expect("hel", r"game (g\d+)", 10)
        if not tap.check(m, "held: hel's game is created", tmux.capture("hel")):
            return
        bob = ct.Plain(server.port, "hbob", ["join", m.group(1)], os.path.join(tmp, "hbob"))
        tmux.expect("hel", r"Your move \(Black\)", 10)
        mv = first_move(bob)
        proxy.hold()
        tmux.expect("hel", r"reconnecting", 10)
        typed(tmux, "hel", mv)
        tap.check(tmux.expect("hel", r"Not connected: %s is kept, and sent when the connection "
                              r"is back" % mv, 5) and
                  tmux.expect("hel", r"%s is kept: sent once connected" % mv, 5),
                  "a move typed while disconnected: kept, and the panel says so",
                  tmux.capture("hel"))
        ct.wait_for(lambda: "reconnecting in" in status(tmux.capture("hel")), 6)
        tap.check(re.search(r"%s is kept: sent once connected" % mv, tmux.capture("hel")),
                  "the reconnection's countdown does not hide it", tmux.capture("hel"))
        proxy.release()
        tap.check(bob.expect(r"^move 1: black %s" % re.escape(mv), 15) and
                  tmux.expect("hel", r"Sent %s, typed while the connection was down\.|"
                              r"You played %s\." % (mv, mv), 10),
                  "the connection is back: the move is sent and played", tmux.capture("hel"))
        tap.check("is kept" not in tmux.capture("hel"), "the panel no longer shows it kept",
                  tmux.capture("hel"))
        # the square line of a stack: its height, its top and its worth to its owner
        to = mv.split("-")[1]
        keys = (["Right" if "abcdef".index(to[0]) > 2 else "Left"] *
                abs("abcdef".index(to[0]) - 2) +
                ["Up" if int(to[1]) > 3 else "Down"] * abs(int(to[1]) - 3))
        if keys:
            tmux.keys("hel", *keys)
        tap.check(tmux.expect("hel", r"%s +2 high, top b(\d), worth \d+ to Black" % to, 5),
                  "the square line shows a stack as its height, top and worth",
                  tmux.capture("hel"))
        bob.expect(r"^your turn", 10)
        bob.send(first_move(bob))
        tmux.expect("hel", r"Your move \(Black\)", 10)
        mv = first_move(bob)
        proxy.hold()
        tmux.expect("hel", r"reconnecting", 10)
        typed(tmux, "hel", mv)
        tmux.expect("hel", r"%s is kept" % mv, 5)
        bob.send("resign")
        bob.expect(r"game over|resign", 10)
        proxy.release()
        tap.check(tmux.expect("hel", r"%s was not sent: the game is over" % mv, 15),
                  "the opponent resigned meanwhile: the panel says the move was not sent",
                  tmux.capture("hel"))
        tap.check(tmux.expect("hel", r"Black wins by resignation", 5) and
                  tmux.expect("hel", r"score: black \d+, white \d+", 5) and
                  not re.search(r"wins, \d+ to \d+", tmux.capture("hel")),
                  "after a resignation: 'Black wins by resignation', and the scores as scores",
                  tmux.capture("hel"))
        tmux.keys("hel", "Escape")
        tap.check(ct.wait_for(lambda: "was not sent" not in
                              "\n".join(tmux.capture("hel").rstrip("\n").split("\n")[:-2]), 5),
                  "a key later the panel no longer says it", tmux.capture("hel"))
        tmux.keys("hel", "Q")
    finally:
        if bob is not None:
            bob.close()
        proxy.close()


class ScriptedServer:
    """A fake hokitod for one client that answers by the request's type: welcome, a lobby with
    one open game (g7), game_full to a join, and the game's state to a watch (a seat taken
    between the lobby's refresh and the player's Enter)."""

    def __init__(self, position):
        self.position = position
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.got = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        conn, _ = self.sock.accept()
        f = conn.makefile("r", encoding="utf-8")
        game = {"game": "g7", "kind": "hokito", "variant": "standard", "status": "open",
                "players": {"black": {"id": "p2", "name": "ana"}, "white": None},
                "spectators": 0, "ply": 0, "result": None, "clock": None}
        for line in f:
            m = json.loads(line)
            t = m.get("type")
            self.got.append(t)
            if t == "hello":
                r = {"type": "welcome", "protocol": 1, "player": {"id": "p1", "name": "sel"},
                     "token": "t"}
            elif t == "list":
                r = {"type": "games", "total": 1, "offset": 0, "games": [game]}
            elif t == "join":
                r = {"type": "error", "code": "game_full", "request": "join",
                     "text": "game g7 has no open seat (it is live)"}
            elif t == "watch":
                r = {"type": "state", "game": "g7", "kind": "hokito", "variant": "standard",
                     "status": "live", "you": "spectator", "position": self.position,
                     "moves": [], "seq": 2,
                     "players": {"black": {"name": "ana", "connected": True},
                                 "white": {"name": "ben", "connected": True}}}
            else:
                continue
            if "id" in m:
                r["id"] = m["id"]
            conn.sendall((json.dumps(r) + "\n").encode())

    def close(self):
        self.sock.close()


def selected(screen):
    """The id of the lobby's highlighted row: the row drawn in reverse video is not seen by
    capture-pane, so the test reads it from the escape sequences (capture-pane -e)."""
    for line in screen.split("\n"):
        m = re.search(r"\x1b\[7m\s*(g\d+)", line)
        if m:
            return m.group(1)
    return None


def held_plain(tap, server, tmp):
    """--plain holds the commands typed while the connection is down (its input waits for the
    connection): a move typed then is played once it is back."""
    proxy = ct.Proxy(server.port)
    pa = pb = None
    try:
        pa = ct.Plain(proxy.port, "hpa", ["create", "--seat", "black"],
                      os.path.join(tmp, "hpa"))
        m = pa.expect(r"^joined game (g\d+)", 10)
        if not tap.check(m, "--plain held: the game is created", pa.text()):
            return
        pb = ct.Plain(server.port, "hpb", ["join", m.group(1)], os.path.join(tmp, "hpb"))
        pa.expect(r"^your turn", 10)
        mv = first_move(pb)
        proxy.hold()
        pa.expect(r"Connection lost", 10)
        pa.send(mv)
        proxy.release()
        tap.check(pb.expect(r"^move 1: black %s$" % mv, 15),
                  "--plain: a move typed while disconnected is played once the connection "
                  "is back", pa.text()[-800:])
    finally:
        for p in (pa, pb):
            if p is not None:
                p.close()
        proxy.close()


def lobby_selection(tap, tmux, server, tmp):
    """The lobby's selection follows its game when the rows move (an open game that starts goes
    down to the live ones); Enter on a game being played watches it; Enter on a seat taken
    since the lobby's last refresh watches the game instead of failing."""
    a = ct.Plain(server.port, "sela", ["create"], os.path.join(tmp, "sela"))
    b = c = None
    try:
        ga = a.expect(r"^joined game (g\d+)", 10)  # one after the other: a's is the older
        b = ct.Plain(server.port, "selb", ["create"], os.path.join(tmp, "selb"))
        gb = b.expect(r"^joined game (g\d+)", 10)
        if not tap.check(ga and gb, "lobby: two open games", a.text() + b.text()):
            return
        ga, gb = ga.group(1), gb.group(1)
        start(tmux, tmp, "sel", "--port %d --name sel" % server.port)
        tap.check(tmux.expect("sel", r"%s .*open.*\n.*%s .*open" % (ga, gb), 10),
                  "lobby: both listed, open, the older first", tmux.capture("sel"))
        cap = lambda: tmux.run("capture-pane", "-e", "-p", "-t", "sel").stdout  # noqa: E731
        tmux.keys("sel", "Down")
        tap.check(ct.wait_for(lambda: selected(cap()) == gb, 5),
                  "lobby: Down chooses the second game", cap())
        c = ct.Plain(server.port, "selc", ["join", ga], os.path.join(tmp, "selc"))
        tap.check(tmux.expect("sel", r"%s .*open.*\n.*%s .*live" % (gb, ga), 10) and
                  ct.wait_for(lambda: selected(cap()) == gb, 5),
                  "lobby: the first game starts and goes below; the selection follows %s" % gb,
                  cap())
        for _ in range(6):  # down to it, past the other live games
            if ct.wait_for(lambda: selected(cap()) == ga, 1):
                break
            tmux.keys("sel", "Down")
        tap.check(ct.wait_for(lambda: selected(cap()) == ga, 5) and
                  re.search(r"Enter +watch", tmux.capture("sel").rstrip().split("\n")[-1]),
                  "lobby: on the game being played the bar says Enter watches",
                  tmux.capture("sel"))
        tmux.keys("sel", "Enter")
        tap.check(tmux.expect("sel", r"to move +\(watching\)", 10),
                  "lobby: Enter on a game being played watches it", tmux.capture("sel"))
        tmux.keys("sel", "Q")
    finally:
        for p in (a, b, c):
            if p is not None:
                p.close()
    position = subprocess.run([ct.ENGINE, "start", "--seed", "3"], capture_output=True,
                              text=True, timeout=10).stdout.strip()
    fake = ScriptedServer(position)
    try:
        start(tmux, tmp, "sel2", "--port %d --name sel --new-session" % fake.port)
        tap.check(tmux.expect("sel2", r"g7 .*open", 10), "lobby: g7 shown open",
                  tmux.capture("sel2"))
        tmux.keys("sel2", "Enter")
        tap.check(tmux.expect("sel2", r"Black to move +\(watching\)", 10) and
                  fake.got[-2:] == ["join", "watch"],
                  "lobby: Enter on a seat taken meanwhile watches the game instead",
                  tmux.capture("sel2") + repr(fake.got))
        tmux.keys("sel2", "Q")
    finally:
        fake.close()


def engine_line(position, n):
    """n legal moves from position (the engine's first each time) and where they lead."""
    moves = []
    for _ in range(n):
        legal = ct.legal_moves("hokito", position)
        if not legal:
            break
        moves.append(legal[0])
        position = subprocess.run([ct.ENGINE, "play", "--game", "hokito", position, legal[0]],
                                  capture_output=True, text=True,
                                  timeout=10).stdout.split("\n")[0]
    return moves, position


def screens(tap, tmux, tmp):
    """The board grows with the terminal (200x60: larger squares) and 80x24 shows a long move
    list; a player looking at their own finished game is not marked offline; the chat prompt
    stops at the 200 characters the server keeps."""
    start_pos = subprocess.run([ct.ENGINE, "start", "--seed", "3"], capture_output=True,
                               text=True, timeout=10).stdout.strip()
    moves, pos = engine_line(start_pos, 16)
    players = {"black": {"name": "ann", "connected": True},
               "white": {"name": "own", "connected": False}}
    state = {"type": "state", "game": "g1", "kind": "hokito", "variant": "standard",
             "status": "finished", "you": "white", "start": start_pos, "position": pos,
             "moves": moves, "seq": 20, "players": players,
             "result": {"result": "win", "winner": "black", "reason": "resign"}}
    welcome = {"type": "welcome", "protocol": 1, "player": {"id": "p1", "name": "own"},
               "token": "t"}
    fake = ct.FakeServer((welcome, state), 8)
    start(tmux, tmp, "big", "--port %d --name own --new-session" % fake.port, 200, 60)
    scr = tmux.expect("big", r"Game over", 10) and tmux.capture("big")
    tap.check(scr and re.search(r"f {9}e {9}d {9}c {9}b {9}a", scr),
              "200x60: the board's squares are ten columns wide", scr or tmux.capture("big"))
    tap.check(scr and "offline" not in scr,
              "one's own finished game: one is not marked offline", scr or "")
    tmux.keys("big", "Q")
    fake.close()
    fake = ct.FakeServer((welcome, dict(state, status="live", result=None,
                                        players=dict(players, white={"name": "own",
                                                                     "connected": True}))), 8)
    start(tmux, tmp, "small", "--port %d --name own --new-session" % fake.port, 80, 24)
    scr = tmux.expect("small", r"Moves", 10) and tmux.capture("small")
    tap.check(scr and all(re.search(r"\b%d %s" % (i + 1, re.escape(moves[i])), scr)
                          for i in range(0, 16)) and
              all(len(l) <= 80 for l in scr.split("\n")),
              "80x24: the move list shows all 16 moves (numbered, four a row)",
              scr or "")
    tmux.keys("small", "t")
    tmux.literal("small", "x" * 250)
    tap.check(tmux.expect("small", r"Say: x+.*\n.*\b0 {1,2}left", 5) and
              tmux.capture("small").count("x") <= 200,
              "the chat prompt stops at 200 characters and says how many are left",
              tmux.capture("small"))
    tmux.keys("small", "Escape", "Q")
    fake.close()


def oxono_line(tap, tmux, tmp):
    """An OXONO game won by a line: its squares are marked on the board, and the end says what
    made it ("Black made four X in column c.") on the screen and in --plain."""
    pos = subprocess.run([ct.ENGINE, "start", "--game", "oxono"], capture_output=True,
                         text=True, timeout=10).stdout.strip()
    start_pos, moves = pos, []
    for ply in range(40):  # the engine's moves picked the same way each time: black wins
        legal = ct.legal_moves("oxono", pos)
        mv = legal[(ply * 2 + 1) % len(legal)]
        out = subprocess.run([ct.ENGINE, "play", "--game", "oxono", pos, mv],
                             capture_output=True, text=True, timeout=10).stdout.split("\n")
        pos = out[0]
        moves.append(mv)
        if len(out) > 1 and out[1].startswith("result"):
            break
    winner = out[1].split()[1]
    state = {"type": "state", "game": "g1", "kind": "oxono", "variant": "standard",
             "status": "finished", "you": "black", "start": start_pos, "position": pos,
             "moves": moves, "seq": 20,
             "players": {"pink": {"name": "lin", "connected": True},
                         "black": {"name": "ann", "connected": True}},
             "result": {"result": "win", "winner": winner, "reason": "line"}}
    welcome = {"type": "welcome", "protocol": 1, "player": {"id": "p1", "name": "lin"},
               "token": "t"}
    said = r"%s made (four|five|six) (pinks|blacks|X|O) (in a row on rank [1-6]|in column [a-f])\." \
        % winner.capitalize()
    fake = ct.FakeServer((welcome, state), 8)
    start(tmux, tmp, "line", "--port %d --name lin --new-session" % fake.port)
    # the box wraps its words: read them with its frame and line ends taken out
    def box():
        return " ".join(" ".join(l.split("\u2502")[1].split())
                        for l in tmux.capture("line").split("\n") if l.count("\u2502") >= 2)
    scr = ct.wait_for(lambda: re.search(said, box()), 10) and tmux.capture("line")
    tap.check(scr, "OXONO: the game-over box says what made the line", tmux.capture("line"))
    tmux.keys("line", "Escape")  # the box goes: the whole board shows
    scr = ct.wait_for(lambda: "Enter lobby" not in tmux.capture("line") and
                      tmux.capture("line"), 5)
    tap.check(scr and scr.count("\u2550") >= 4 * 4,
              "OXONO: the line's squares are marked on the board", scr or "")
    tmux.keys("line", "Q")
    fake.close()
    fake = ct.FakeServer((welcome, state), 8)
    pl = ct.Plain(fake.port, "lin", ["--new-session"], os.path.join(tmp, "plin"))
    tap.check(pl.expect(r"^game over: %s wins\. " % winner.capitalize() + said, 10),
              "OXONO, --plain: the game-over line says what made the line", pl.text())
    pl.close()
    fake.close()


def board_rows(screen):
    """The board's lines of a screen (those that start with a rank number), the panel cut."""
    return [re.sub(r"[\[\]]", " ", l[:40]).rstrip() for l in screen.split("\n")
            if re.match(r"^ [1-6] ", l)]  # the cursor's brackets taken out


def step_back_and_save(tap, tmux, server, tmp):
    """During a game, [ and ] step back through the earlier positions with a 'Viewing move N of
    M' mark, a move key goes back to the live position; S saves the game's record, which
    hokito-engine record reads; --plain's save FILE does the same."""
    start(tmux, tmp, "stp", "--port %d --name stp create --seat black" % server.port)
    m = tmux.expect("stp", r"game (g\d+)", 10)
    if not tap.check(m, "step: stp's game is created", tmux.capture("stp")):
        return
    gid = m.group(1)
    bob = ct.Plain(server.port, "sbob", ["join", gid], os.path.join(tmp, "sbob"))
    try:
        tmux.expect("stp", r"Your move \(Black\)", 10)
        live0 = board_rows(tmux.capture("stp"))
        mv = first_move(bob)
        typed(tmux, "stp", mv)
        bob.expect(r"^your turn", 10)
        bob.send(first_move(bob))
        tap.check(tmux.expect("stp", r"Your move \(Black\)", 10) and
                  tmux.expect("stp", r" 1 +%s +2 +\S+" % mv, 5), "step: two moves played",
                  tmux.capture("stp"))
        live2 = board_rows(tmux.capture("stp"))
        tmux.keys("stp", "[")
        tap.check(tmux.expect("stp", r"Viewing move 1 of 2", 10),
                  "[ steps back: 'Viewing move 1 of 2'", tmux.capture("stp"))
        tmux.keys("stp", "[")
        scr = tmux.expect("stp", r"Viewing move 0 of 2", 5) and tmux.capture("stp")
        tap.check(scr and board_rows(scr) == live0 and live0 != live2,
                  "[ again: the start, as it was before the first move",
                  (scr or tmux.capture("stp")) + "\n" + "\n".join(live0))
        tmux.keys("stp", "[")
        tap.check(tmux.expect("stp", r"Viewing move 0 of 2", 5),
                  "[ at the start stays there", tmux.capture("stp"))
        tmux.keys("stp", "]")
        tap.check(tmux.expect("stp", r"Viewing move 1 of 2", 5), "] steps on",
                  tmux.capture("stp"))
        tmux.keys("stp", "Enter")
        scr = ct.wait_for(lambda: "Viewing move" not in tmux.capture("stp") and
                          tmux.capture("stp"), 5)
        tap.check(scr and board_rows(scr) == live2 and
                  "Back to the live position." in scr,
                  "a move key goes back to the live position", scr or tmux.capture("stp"))
        tmux.keys("stp", "?")
        tap.check(tmux.expect("stp", r"\[ \] Home End +step back through the moves", 5) and
                  tmux.expect("stp", r"S +save the game's record", 5),
                  "the help explains [ ] Home End and S", tmux.capture("stp"))
        tmux.keys("stp", "Escape")
        tmux.keys("stp", "S")
        path = os.path.join(tmp, "hokito-%s.txt" % gid)
        tap.check(tmux.expect("stp", r"Saved the record of game %s to hokito-%s\.txt\."
                              % (gid, gid), 10) and os.path.exists(path),
                  "S saves the record to hokito-%s.txt" % gid, tmux.capture("stp"))
        r = subprocess.run([ct.ENGINE, "record", path], capture_output=True, text=True,
                           timeout=10)
        text = open(path).read() if os.path.exists(path) else ""
        tap.check(r.returncode == 0 and mv in text and "[Black \"stp\"]" in text,
                  "the saved record reads back with hokito-engine record",
                  text + r.stdout + r.stderr)
        path2 = os.path.join(tmp, "plain-save.txt")
        bob.send("save %s" % path2)
        tap.check(bob.expect(r"^Saved the record of game %s to %s\." % (gid, re.escape(path2)),
                             10) and
                  subprocess.run([ct.ENGINE, "record", path2], capture_output=True,
                                 timeout=10).returncode == 0 and
                  not bob.seen(r"^replay "),
                  "--plain: save FILE writes the record (and prints no replay)",
                  bob.text()[-1500:])
        tmux.keys("stp", "r")
        tmux.keys("stp", "y")
        tmux.keys("stp", "Q")
    finally:
        bob.close()


def main(tap):
    tmp = ct.tmpdir()
    server = ct.Server(tmp)
    tmux = ct.Tmux("turns")
    try:
        rules_pages(tap, tmux, server, tmp)
        bell_and_title(tap, tmux, tmp)
        computer_thinking(tap, tmux, tmp)
        plain_commands(tap, server, tmp)
        held_moves(tap, tmux, server, tmp)
        held_plain(tap, server, tmp)
        lobby_selection(tap, tmux, server, tmp)
        screens(tap, tmux, tmp)
        oxono_line(tap, tmux, tmp)
        step_back_and_save(tap, tmux, server, tmp)
        reports = ""
        for path in STDERR:
            if os.path.exists(path):
                reports += open(path, errors="replace").read()
        tap.check(not re.search(r"Sanitizer|runtime error", reports),
                  "no sanitizer reports from the clients", reports[-3000:])
    finally:
        tmux.kill()
        server.stop()
        ct.cleanup(tmp)


if __name__ == "__main__":
    ct.main_guard(main)
