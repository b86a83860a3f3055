#!/usr/bin/env python3
"""test-client-tmux.py: the full-screen hokito client driven in tmux against a real hokitod.

Alice creates a HOKITO game from the command line, Carol watches it from the lobby, Bob joins it
from the lobby through a relay that the test cuts once mid-game (the client must reconnect by
itself). They play the whole game with the keyboard: half the moves by moving the cursor and
selecting (the legal destinations are highlighted), half typed in notation. The screens are
checked with capture-pane: board, players, turn, scores, move list, spectators, help, stack view,
refusals, game over; then resize, too-small terminal, NO_COLOR, an OXONO move made with the
totem-then-pawn selection, resigning, and leaving by q, Ctrl-C and SIGTERM with the terminal
restored. At 80x24 and 64x18 a player sees what the audit of the client asked for: the key hints
bar shows the keys of the viewer's role and the game's state (or of the prompt, question or form
open), whole, at 64 columns every one of them in a compact bar (lobby, history, replay, a game
on, a draw offered, a game over); the title bar keeps the connection's state at 64 columns (a
relay holds a spectator's connection: "reconnecting..."); the status line says what came of a
create (made or refused) and that the game is over; the help pages fit above the status line;
the side panel keeps the names and the moves. A game that ends while a pawn is selected (a flag
falls, on a second hokitod run with --test-clock) or while the player is asked whether to resign
(the opponent resigns) leaves neither behind: the status line says how it ended. A socket
spectator in the test follows the positions to pick legal moves with hokito-engine. TAP on
stdout; a private tmux server, killed at the end.
"""
import os
import re
import subprocess
import sys
import time
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clienttest as ct  # noqa: E402
import serverlib  # noqa: E402

COLS, ROWS = 100, 30


def square(name):
    return "abcdef".index(name[0]), int(name[1]) - 1


class Player:
    """A hokito in a tmux session, with the board cursor position the test keeps track of."""

    def __init__(self, tmux, session, turned=False):
        self.t = tmux
        self.s = session
        self.turned = turned  # the board is seen turned round (white in HOKITO): a1 top right
        self.cursor = None  # as seen on the screen, from the bottom left; unknown until reset

    def goto(self, name):
        f, r = square(name)
        if self.turned:
            f, r = 5 - f, 5 - r
        if self.cursor is None:
            self.t.keys(self.s, *(["Left"] * 5 + ["Down"] * 5))
            self.cursor = (0, 0)
        cf, cr = self.cursor
        keys = []
        keys += ["Right" if f > cf else "Left"] * abs(f - cf)
        # hjkl too: k is up, j is down
        keys += ["k" if r > cr else "j"] * abs(r - cr)
        if keys:
            self.t.keys(self.s, *keys)
        self.cursor = (f, r)

    def choose(self, name):
        self.goto(name)
        self.t.keys(self.s, "Enter")

    def typed(self, move):
        self.t.keys(self.s, ":")
        self.t.literal(self.s, move)
        self.t.keys(self.s, "Enter")

    def screen(self):
        return self.t.capture(self.s)

    def expect(self, pattern, timeout=10):
        return self.t.expect(self.s, pattern, timeout)


STDERR = []  # files holding the clients' standard error


def start(tmux, tmp, session, command, env):
    """Start a client in a session of the usual size, its stderr kept for the final check."""
    path = os.path.join(tmp, session + ".stderr")
    STDERR.append(path)
    tmux.start(session, command, env, COLS, ROWS, stderr=path)


def env_for(tmp, name, **extra):
    e = {"XDG_STATE_HOME": os.path.join(tmp, name), "TERM": "xterm-256color",
         "LANG": "C.UTF-8"}
    e.update(extra)
    return e


def pane_child(tmux, session):
    """The pid of the hokito running in a session's pane (the child of the pane's shell)."""
    pid = tmux.run("display-message", "-p", "-t", session, "#{pane_pid}").stdout.strip()
    r = subprocess.run(["pgrep", "-P", pid], capture_output=True, text=True)
    kids = r.stdout.split()
    return int(kids[0]) if kids else None


def bar(screen):
    """The key hints bar: the last line of a captured screen."""
    return screen.rstrip("\n").split("\n")[-1]


def status(screen):
    """The status line: the line above the hints bar."""
    return screen.rstrip("\n").split("\n")[-2]


def title(screen):
    """The title bar: the first line of a captured screen."""
    return screen.split("\n")[0]


def has_keys(screen, *pairs):
    """Whether the hints bar shows each key with its label, whole ("d  draw")."""
    return all(re.search(r"(^| )%s  %s( |$)" % (re.escape(k), re.escape(l)), bar(screen))
               for k, l in pairs)


def has_all_keys(screen, keys, labels=()):
    """Whether the hints bar shows every key of keys whole, as a word of its own (the compact bar
    of a narrow terminal may show a key without its label), and each key of labels with its label
    ("d draw", or "d  draw" as in a wide bar)."""
    b = bar(screen)
    return (all(re.search(r"(^| )%s( |$)" % re.escape(k), b) for k in keys) and
            all(re.search(r"(^| )%s {1,2}%s( |$)" % (re.escape(k), re.escape(l)), b)
                for k, l in labels))


def wait_screen(tmux, session, pred, timeout=5):
    """Wait for pred(screen) to hold of a session's screen; the screen or None."""
    def shown():
        scr = tmux.capture(session)
        return scr if pred(scr) else None
    return ct.wait_for(shown, timeout)


def wait_keys(tmux, session, *pairs, timeout=5):
    """Wait for the hints bar of a session to show each key with its label; the screen or None."""
    return wait_screen(tmux, session, lambda scr: has_keys(scr, *pairs), timeout)


def wait_all_keys(tmux, session, keys, labels=(), timeout=5):
    """Wait for the hints bar of a session to show every key (has_all_keys()); the screen or
    None."""
    return wait_screen(tmux, session, lambda scr: has_all_keys(scr, keys, labels), timeout)


def wait_moves(watcher, n, timeout=10):
    return ct.wait_for(lambda: len(watcher.snapshot()[1]) >= n, timeout)


def hokito_game(tap, tmux, server, proxy, tmp):
    hk = ct.HOKITO
    start(tmux, tmp, "alice", "%s --port %d --name alice create --seat black" % (hk, server.port), env_for(tmp, "alice"))
    alice = Player(tmux, "alice")
    m = alice.expect(r"game (g\d+)", 10)
    tap.check(m and alice.expect(r"Waiting for an opponent", 5),
              "alice's game screen: waiting for an opponent", alice.screen())
    if not m:
        return None
    gid = m.group(1)
    # the whole game screen: the board's coordinates and the bar of an open game
    scr = wait_screen(tmux, "alice", lambda scr: re.search(r"a +b +c +d +e +f", scr) and
                      re.search(r"^ *1 ", scr, re.M) and "leave" in bar(scr)) or alice.screen()
    tap.check(re.search(r"a +b +c +d +e +f", scr) and re.search(r"^ *6 ", scr, re.M) and
              re.search(r"^ *1 ", scr, re.M), "the board has coordinates a-f and 1-6", scr)
    tap.check(re.search(r"B +Black +alice \(you\) +36", scr) and "(empty seat)" in scr,
              "players and scores are shown", scr)
    tap.check(alice.expect(r"Game %s created: waiting for an opponent" % gid, 5) and
              "Creating" not in alice.screen(),
              "the server's answer replaces the \"Creating...\" notice", alice.screen())
    tap.check(has_keys(scr, ("q", "leave"), ("t", "chat"), ("?", "help")) and
              not re.search(r"resign|draw", bar(scr)),
              "waiting for an opponent: the bar offers leave and chat, not resign or draw",
              bar(scr))

    start(tmux, tmp, "carol", "%s --port %d --name carol" % (hk, server.port), env_for(tmp, "carol"))
    carol = Player(tmux, "carol")
    tap.check(carol.expect(r"%s +hokito +standard +open +alice \(guest\) vs -" % gid, 10),
              "the lobby lists the open game", carol.screen())
    carol.t.keys("carol", "w")
    tap.check(carol.expect(r"Black to move|Waiting for an opponent", 10) and
              carol.expect(r"Spectators \(1\)", 5), "carol watches from the lobby (w)",
              carol.screen())
    tap.check(wait_screen(tmux, "carol", lambda s: status(s).strip() == "Watching game %s." %
                          gid, 5), "carol's status line says which game she watches",
              carol.screen())
    tap.check(alice.expect(r"Spectators \(1\)\s+carol", 10), "alice sees carol watching",
              alice.screen())

    start(tmux, tmp, "bob", "%s --port %d --name bob" % (hk, proxy.port), env_for(tmp, "bob"))
    bob = Player(tmux, "bob", turned=True)
    tap.check(bob.expect(r"%s +hokito" % gid, 10), "bob's lobby shows the game", bob.screen())
    tmux.keys("bob", "Enter")
    tap.check(alice.expect(r"Your move \(Black\)", 10) and bob.expect(r"Black to move", 10)
              and carol.expect(r"Black to move\s+\(watching\)", 10),
              "bob joins with Enter: alice to move, everyone sees it",
              alice.screen() + bob.screen())
    scr = bob.screen()
    tap.check(re.search(r"f +e +d +c +b +a", scr) and
              re.search(r"^ *1 .*\n(.*\n)*^ *6 ", scr, re.M),
              "bob (white) sees the board turned round: his side at the bottom", scr)
    tmux.keys("bob", "f")
    tap.check(bob.expect(r"a +b +c +d +e +f", 5), "f turns it back", bob.screen())
    tmux.keys("bob", "f")
    tap.check(bob.expect(r"f +e +d +c +b +a", 5) and
              re.search(r"a +b +c +d +e +f", carol.screen()),
              "and round again; carol, watching, sees rank 1 at the bottom",
              bob.screen() + carol.screen())
    # keys that do nothing yet say why: v before the end, w without a rematch
    tmux.keys("carol", "v")
    tap.check(wait_screen(tmux, "carol", lambda s: status(s).strip() ==
                          "The game is not over: v replays it once it is.", 5),
              "v during the game says it replays once the game is over", carol.screen())
    tmux.keys("carol", "w")
    tap.check(wait_screen(tmux, "carol", lambda s: status(s).strip() ==
                          "No rematch to follow yet.", 5),
              "w without a rematch says there is none yet", carol.screen())
    watcher = ct.Watcher(server.port, gid)
    ct.wait_for(lambda: watcher.snapshot()[3], 10)

    # Help, stack view and refusals, on alice's turn.
    tmux.keys("alice", "?")
    tap.check(alice.expect(r"Help.*arrows / hjkl.*type a move", 5), "? shows the help",
              alice.screen())
    tap.check(alice.expect(r"w +watching: go to the players' rematch +\u2502", 5),
              "every line of the help fits in its box", alice.screen())
    tmux.keys("alice", "Escape")
    alice.goto("a6")
    tmux.keys("alice", "s")
    tap.check(alice.expect(r"Stack on a6.*top.*white", 5), "s shows the whole stack",
              alice.screen())
    tmux.keys("alice", "x")
    tmux.keys("alice", "Enter")
    tap.check(alice.expect(r"The pawn on a6 is White's: you play Black", 5),
              "selecting an opponent's pawn is refused with the reason", alice.screen())
    bob.goto("a1")
    tmux.keys("bob", "Enter")
    tap.check(bob.expect(r"Not your turn: Black to move", 5),
              "selecting out of turn is refused", bob.screen())

    players = {"b": alice, "w": bob}
    ply = 0
    cut_done = False
    highlighted = False
    while ply < 80:
        pos, moves_seen, over, _ = watcher.snapshot()
        if over or pos is None:
            break
        moves = ct.legal_moves("hokito", pos)
        if not moves:
            break
        p = players[ct.side_to_move(pos)]
        mv = moves[(ply * 5 + 1) % len(moves)]
        # The watcher may see a move before the mover's client does: wait for its screen.
        if not p.expect(r"Your move", 10):
            tap.check(False, "the player to move is told so", p.screen())
            break
        if ply % 2 == 0:
            frm, to = mv.split("-")
            p.choose(frm)
            if not highlighted:
                highlighted = p.expect(r"%s selected: pick a highlighted square" % frm, 5)
                scr = p.screen()
                tap.check(highlighted and "\u2022" in scr,
                          "a selection marks its legal destinations", scr)
            p.choose(to)
        else:
            p.typed(mv)
        ply += 1
        if not wait_moves(watcher, ply, 10):
            tap.check(False, "move %d (%s) reaches the server" % (ply, mv), p.screen())
            break
        if ply in (1, 2):
            # the status line says what the other side played, where it said "Sent ..."
            mover, other = ("alice", bob) if ply == 1 else ("bob", alice)
            tap.check(wait_screen(tmux, other.s, lambda s: status(s).strip() ==
                                  "%s played %s. Your move." % (mover, mv), 10) and
                      wait_screen(tmux, "carol", lambda s: status(s).strip() ==
                                  "%s played %s." % (mover, mv), 10),
                      "move %d: the opponent's and carol's status lines say %s played %s"
                      % (ply, mover, mv), status(other.screen()))
            # and the mover's: once the server has played it, not "Sent ..." any more
            tap.check(wait_screen(tmux, p.s, lambda s: status(s).strip() ==
                                  "You played %s." % mv, 10),
                      "move %d: the mover's status line says 'You played %s.', not 'Sent'"
                      % (ply, mv), status(p.screen()))
        if ply == 3:
            # alice (black) has moved: A is refused on the spot, not after a y/n question
            tmux.keys("alice", "A")
            tap.check(alice.expect(r"You have moved already: the game can no longer be "
                                   r"aborted \(r resigns\)", 5) and
                      "(y/n)" not in alice.screen(),
                      "A after one's first move: refused with the reason, nothing asked",
                      alice.screen())
        if ply == 8 and not cut_done:
            cut_done = True
            proxy.cut()
            tap.check(bob.expect(r"Connection lost|reconnecting", 5),
                      "bob's screen says the connection is lost", bob.screen())
            tap.check(bob.expect(r"connected +bob", 10),
                      "bob reconnects by himself", bob.screen())
            tap.check(bob.expect(r"\b%d [a-f][1-6]-" % ply, 5),
                      "bob's move list is intact after reconnecting", bob.screen())
    pos, moves_seen, over, _ = watcher.snapshot()
    if not over:
        over = ct.wait_for(lambda: watcher.snapshot()[2], 10)
    tap.check(over and ply >= 10, "a full HOKITO game was played to the end (%d moves)" % ply,
              repr(over))
    if not over:
        return gid
    sc = over.get("scores", {})
    if over.get("winner"):
        w = over["winner"]
        lo = "white" if w == "black" else "black"
        result = r"%s wins, %d to %d" % (w.capitalize(), sc[w], sc[lo])
    else:
        result = r"Draw, %d to %d" % (sc["black"], sc["white"])
    for p, name in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
        tap.check(p.expect(r"Game over.*%s" % result, 10),
                  "%s's screen shows the game over box: %s" % (name, result), p.screen())
    scr = carol.screen()
    tap.check(has_keys(scr, ("Enter", "lobby"), ("v", "replay"), ("t", "chat"), ("?", "help"))
              and "rematch" not in bar(scr),
              "the spectator's game-over bar has no rematch: only what a spectator can do",
              bar(scr))
    tap.check(all(has_keys(p.screen(), ("Enter", "lobby"), ("n", "rematch"), ("v", "replay"))
                  for p in (alice, bob)),
              "the players' game-over bar offers the rematch", bar(alice.screen()))
    tap.check(all(re.search(r"Game over: .*%s\. [A-Z].*\." % result,
                            p.screen().rstrip("\n").split("\n")[-2])
                  for p in (alice, bob, carol)),
              "the status line says the game is over and why (not what it said during the game)",
              bob.screen())
    tap.check(re.search(r"B +Black +alice \(guest\) +%d" % sc["black"], scr) and
              re.search(r"W +White +bob \(guest\) +%d" % sc["white"], scr),
              "the spectator's panel shows the final scores", scr)
    tap.check(re.search(r"\b\d+ +[a-f][1-6]-[a-f][1-6]", scr) and "Spectators (2)" in scr,
              "move list and spectators are shown",
              scr)
    win = over.get("winner")
    if win:
        winner, loser = (alice, bob) if win == "black" else (bob, alice)
        tap.check(winner.expect("You won!", 5) and loser.expect("You lost.", 5),
                  "each player is told whether they won", winner.screen())
    return gid


def screen_checks(tap, tmux, server, proxy, tmp, gid):
    alice = Player(tmux, "alice")
    tmux.resize("alice", 50, 14)
    tap.check(alice.expect(r"Terminal too small \(50x14\)", 5),
              "a too-small terminal gets a message", alice.screen())
    tmux.resize("alice", COLS, ROWS)
    tap.check(alice.expect(r"Game over", 5) and alice.expect(r"a +b +c +d +e +f", 5),
              "growing the terminal brings the board back", alice.screen())
    tmux.resize("alice", 80, 24)
    tap.check(alice.expect(r"Game over", 5) and not re.search("too small", alice.screen()),
              "the screen fits an 80x24 terminal", alice.screen())
    tap.check(wait_keys(tmux, "alice", ("Enter", "lobby"), ("n", "rematch"), ("v", "replay"),
                        ("Esc", "board"), ("t", "chat"), ("Q", "quit"), ("?", "help")),
              "80 columns, game over: every key of the bar is there, whole",
              bar(alice.screen()))
    tmux.resize("alice", 64, 18)
    tap.check(wait_all_keys(tmux, "alice", ("Enter", "n", "v", "Esc", "t", "Q", "?"),
                            (("Enter", "lobby"), ("t", "chat"), ("Q", "quit"), ("?", "help"))),
              "64 columns, game over: every key of the bar is there, whole (t chat, Q quit too)",
              bar(alice.screen()))
    tmux.keys("alice", "v")
    tap.check(wait_all_keys(tmux, "alice", ("Left/Right", "Home/End", "q", "PgUp/PgDn", "?"),
                            (("Left/Right", "step"), ("q", "back"), ("?", "help"))),
              "64 columns, the replay: every key of the bar is there, whole",
              bar(alice.screen()))
    tap.check(ct.wait_for(lambda: "Move 0 of" in alice.screen() and not re.search(
        r"Game over:", "\n".join(alice.screen().rstrip("\n").split("\n")[-3:-1])), 20),
              "the replay's status lines do not repeat the game page's game-over notice",
              alice.screen())
    tmux.keys("alice", "q")
    wait_screen(tmux, "alice", lambda scr: re.search("Game over [\u2500-]", scr),
                timeout=20)  # the game page again, its game-over box
    tmux.resize("alice", COLS, ROWS)
    # Back to the lobby, then quit: the terminal is restored.
    tmux.keys("alice", "Enter")
    tap.check(alice.expect(r"Games on this server", 15), "Enter on game over: the lobby",
              alice.screen())
    tmux.keys("alice", "q")
    tap.check(alice.expect(r"HOKITO-EXIT=0", 10) and "Games on this server" not in
              alice.screen(), "q quits with status 0 and the terminal is restored",
              alice.screen())
    # A record that cannot come (no connection): the replay page says so, not "Asking...".
    proxy.hold()
    tap.check(tmux.expect("bob", r"reconnecting", 10), "bob's connection is down",
              tmux.capture("bob"))
    tmux.keys("bob", "v")
    tap.check(tmux.expect("bob", r"No record of game %s\." % gid, 5) and
              "Asking" not in tmux.capture("bob") and
              re.search(r"Not connected", status(tmux.capture("bob"))),
              "a replay asked for without a connection says there is no record, and why",
              tmux.capture("bob"))
    tmux.keys("bob", "q")
    proxy.release()
    tap.check(tmux.expect("bob", r"connected +bob", 10) and
              tmux.expect("bob", r"Game over", 5), "bob is back at the game over",
              tmux.capture("bob"))
    tmux.keys("bob", "C-c")
    tap.check(tmux.expect("bob", r"HOKITO-EXIT=0", 5) and "Game over" not in
              tmux.capture("bob"), "Ctrl-C quits cleanly and restores the terminal",
              tmux.capture("bob"))
    pid = pane_child(tmux, "carol")
    if pid:
        os.kill(pid, 15)
    tap.check(tmux.expect("carol", r"HOKITO-EXIT=143", 5) and "Game over" not in
              tmux.capture("carol"), "SIGTERM ends the client with the terminal restored",
              tmux.capture("carol"))
    # NO_COLOR: the same screen without any colour.
    start(tmux, tmp, "mono", "%s --port %d --name dora watch %s" % (ct.HOKITO, server.port, gid), env_for(tmp, "dora", NO_COLOR="1"))
    ok = tmux.expect("mono", r"Game over", 10)
    raw = tmux.run("capture-pane", "-p", "-e", "-t", "mono").stdout
    tap.check(ok and not re.search(r"\x1b\[[0-9;]*(3[0-7]|4[0-7]|38;5|48;5)[;m]", raw),
              "NO_COLOR: the board is drawn without colours", raw[:2000])
    tmux.keys("mono", "Q")
    tmux.expect("mono", r"HOKITO-EXIT=0", 5)


def oxono_game(tap, tmux, server, tmp):
    hk = ct.HOKITO
    start(tmux, tmp, "pia", "%s --port %d --name pia create oxono --seat pink" % (hk, server.port), env_for(tmp, "pia"))
    pia = Player(tmux, "pia")
    m = pia.expect(r"game (g\d+)", 10)
    if not tap.check(m, "pia creates an OXONO game", pia.screen()):
        return
    gid = m.group(1)
    start(tmux, tmp, "ben", "%s --port %d --name ben join %s" % (hk, server.port, gid), env_for(tmp, "ben"))
    ben = Player(tmux, "ben")
    tap.check(pia.expect(r"Your move \(Pink\)", 10) and ben.expect(r"Pink to move", 10),
              "ben joins by id from the command line", pia.screen())
    scr = pia.screen()
    tap.check(re.search(r"P +Pink +pia \(you\) +X8 +O8", scr) and
              re.search(r"B +Black +ben \(guest\) +X8 +O8", scr), "OXONO reserves are shown", scr)
    tap.check(re.search(r" X  ", scr) and re.search(r" O  ", scr), "both totems are drawn", scr)
    watcher = ct.Watcher(server.port, gid)
    ct.wait_for(lambda: watcher.snapshot()[0], 10)
    pos = watcher.snapshot()[0]
    mv = ct.legal_moves("oxono", pos)[0]  # e.g. Xc5+c6
    rows = pos.split(" ")[0].split("/")
    totem_sq = None
    for r, row in enumerate(rows):
        for f, cell in enumerate(row.split(",")):
            if cell == mv[0]:
                totem_sq = "abcdef"[f] + str(6 - r)
    pia.choose(mv[4:6])  # an empty square, not a totem: refused
    tap.check(pia.expect(r"Pick a totem first", 5), "OXONO: a pawn square first is refused",
              pia.screen())
    pia.choose(totem_sq)
    pia.choose(mv[1:3])
    tap.check(pia.expect(r"Totem %s to %s: now pick the square" % (mv[0], mv[1:3]), 5),
              "OXONO: the totem's square, then the pawn square", pia.screen())
    pia.choose(mv[4:6])
    tap.check(wait_moves(watcher, 1, 10) and watcher.snapshot()[1][0] == mv,
              "OXONO: the move %s is played with the keys" % mv, pia.screen())
    tap.check(ben.expect(r"\b1 +%s" % re.escape(mv), 10) and ben.expect(r"Your move", 5),
              "ben sees the move and his turn", ben.screen())
    # ben has not moved yet: he may abort, not resign (PROTOCOL.md resign); pia, who moved, may
    tmux.keys("ben", "r")
    tap.check(ben.expect(r"You have not moved yet: abort instead", 5) and
              not re.search(r"Resign this game", ben.screen()),
              "r before one's own first move: abort instead, said on the spot", ben.screen())
    tmux.keys("pia", "r")
    tap.check(pia.expect(r"Resign this game\? \(y/n\)", 5), "r asks before resigning")
    tap.check(wait_keys(tmux, "pia", ("y", "yes"), ("any other key", "no")) and
              "resign" not in bar(pia.screen()),
              "while it asks, the bar shows the answers, not the game's keys", bar(pia.screen()))
    tmux.keys("pia", "y")
    tap.check(ben.expect(r"Game over.*Black wins.*Pink resigned", 10) and
              pia.expect(r"You lost", 10), "resigning ends the game for both",
              pia.screen() + ben.screen())
    tap.check(re.search(r"Game over: Black wins.*Pink resigned", status(pia.screen())),
              "the resigner's status line says how the game ended", pia.screen())
    watcher.close()
    for s in ("pia", "ben"):
        tmux.keys(s, "Q")
        tmux.expect(s, r"HOKITO-EXIT=0", 5)


def small_screens(tap, tmux, server, tmp):
    """80x24, the usual terminal: a timed private game (a code and clocks above the moves)."""
    hk = ct.HOKITO

    def start_small(session, command, name, cols=80, rows=24):
        path = os.path.join(tmp, session + ".stderr")
        STDERR.append(path)
        tmux.start(session, command, env_for(tmp, name), cols, rows, stderr=path)

    start_small("pat", "%s --port %d --name pat create oxono --private --clock 3+2 --seat pink"
                % (hk, server.port), "pat")
    m = tmux.expect("pat", r"invite code ([A-Z0-9]+)", 10)
    if not tap.check(m, "80x24: pat's private game shows its invite code", tmux.capture("pat")):
        return
    code = m.group(1)
    quin = ct.Plain(server.port, "quin", ["join", code], os.path.join(tmp, "quin"))
    pat = Player(tmux, "pat")
    ok = quin.expect(r"^joined game (g\d+)", 10) and pat.expect(r"Your move \(Pink\)", 10)
    watcher = ct.Watcher(server.port, None, code=code) if ok else None
    if not tap.check(watcher and ct.wait_for(lambda: watcher.snapshot()[0], 10),
                     "quin joins by the invite code", quin.text()):
        return
    scr = pat.screen()
    tap.check(has_keys(scr, ("Enter", "select"), ("arrows", "cursor"), (":", "type"),
                       ("r", "resign"), ("d", "draw"), ("t", "chat"), ("?", "help")),
              "80 columns, your move: the bar shows select, type, resign, draw, chat and help",
              bar(scr))
    first = ct.legal_moves("oxono", watcher.snapshot()[0])[0]
    pat.typed(first)
    wait_moves(watcher, 1)
    tap.check(pat.expect(r"Black to move", 5) and
              wait_keys(tmux, "pat", ("r", "resign"), ("d", "draw"), ("t", "chat"), ("?", "help")),
              "80 columns, the opponent's move: resign, draw, chat and help are shown",
              bar(pat.screen()))
    second = ct.legal_moves("oxono", watcher.snapshot()[0])[0]
    quin.send(second)
    wait_moves(watcher, 2)
    tap.check(pat.expect(r"Moves *\n[^\n]* 1 +%s +2 +%s" % (re.escape(first), re.escape(second)), 10),
              "80x24, timed private game: the move list shows the moves", pat.screen())
    tmux.keys("pat", "q")
    scr = wait_screen(tmux, "pat", lambda scr: "back to rejoin)." in status(scr))
    tap.check(scr and re.match(r" The game is on: resign first \(r\), or Q to quit hokito ",
                               scr.rstrip("\n").split("\n")[-3]),
              "80 columns: a refusal too long for the status line is whole, on two lines",
              scr or pat.screen())
    relay = ct.Proxy(server.port)  # sid's connection, held later on
    start_small("sid", "%s --port %d --name sid watch %s" % (hk, relay.port, code), "sid")
    sid = Player(tmux, "sid")
    tap.check(sid.expect(r"Pink to move  \(watching\)\s", 10) and
              sid.expect(r"Moves *\n[^\n]* 1 +%s +2 +%s" % (re.escape(first), re.escape(second)), 5)
              and "Spectators' chat" in sid.screen(),
              "80x24, watching: whose turn, the moves and both chats, none drawn over another",
              sid.screen())
    kim = ct.Plain(server.port, "kim", ["watch", code], os.path.join(tmp, "kim"))
    kim.expect(r"^watching game", 10)
    kim.send("say pink holds the centre")
    tap.check(wait_screen(tmux, "sid", lambda scr: status(scr) == " kim: pink holds the centre",
                          10),
              "watching: another spectator's chat line is on the status line too", sid.screen())
    kim.close()
    scr = sid.screen()
    tap.check(has_keys(scr, ("q", "leave"), ("t", "chat"), ("?", "help")) and
              not re.search(r"resign|draw|rematch", bar(scr)),
              "80 columns, watching: leave, chat and help, and no player's key", bar(scr))
    start_small("lee", "%s --port %d --name lee" % (hk, server.port), "lee")
    tap.check(tmux.expect("lee", r"Games on this server", 10) and
              wait_keys(tmux, "lee", ("Enter", "watch"), ("c", "create"), ("p", "quick"),
                        ("i", "by code"), ("h", "history"), ("q", "quit"), ("?", "help")),
              "80 columns, the lobby: create, quick, by code, history, quit and help are shown",
              tmux.capture("lee"))
    tmux.resize("lee", 64, 18)
    tap.check(wait_all_keys(tmux, "lee", ("Enter", "c", "p", "i", "h", "q", "?"),
                            (("c", "create"), ("h", "history"), ("q", "quit"), ("?", "help"))),
              "64 columns, the lobby: every key of the bar is there, whole (h history, q quit too)",
              bar(tmux.capture("lee")))
    tmux.keys("lee", "h")
    tap.check(wait_all_keys(tmux, "lee", ("Enter", "n/PgDn", "p/PgUp", "q", "r", "Up/Down", "?"),
                            (("Enter", "replay"), ("q", "lobby"), ("?", "help"))),
              "64 columns, the history: every key of the bar is there, whole",
              bar(tmux.capture("lee")))
    tmux.keys("lee", "Q")
    tmux.keys("pat", "t")
    tap.check(wait_keys(tmux, "pat", ("Enter", "send"), ("Esc", "cancel")) and
              not re.search(r"resign|draw", bar(pat.screen())),
              "typing a chat line: the bar shows the prompt's keys, not the game's",
              bar(pat.screen()))
    tmux.keys("pat", "Escape")
    tmux.keys("pat", "?")
    tap.check(pat.expect(r"Q / Ctrl-C +quit hokito", 5) and
              re.search(r"rematch \(offer or accept\), after the game", pat.screen()) and
              re.search(r"\u2514\u2500+\u2518", pat.screen()),
              "80x24: the help shows every key, whole, in its frame", pat.screen())
    tmux.resize("pat", 64, 18)

    def help_whole(scr):
        # the frame is below the title bar and ends above the status line and the bar
        lines = scr.rstrip("\n").split("\n")
        return (len(lines) == 18 and "hokito" in lines[0] and
                any(re.match(r" \u2514\u2500+\u2518", line) for line in lines[1:-2]) and
                not re.search("[\u2502\u2514]", lines[-2] + lines[-1]))
    tap.check(pat.expect(r"\(1/2\) Space: more", 5) and
              wait_screen(tmux, "pat", lambda scr: help_whole(scr) and
                          has_keys(scr, ("Space", "more"))),
              "64x18: the help's first page, whole, says how to see the rest", pat.screen())
    tmux.keys("pat", "Space")
    tap.check(pat.expect(r"q +leave the game, back to the lobby.*Q / Ctrl-C +quit hokito"
                         r".*\(2/2\) any key closes", 5) and help_whole(pat.screen()),
              "64x18: Space shows the rest of the help, above the status line", pat.screen())
    tmux.keys("pat", "Escape")
    tap.check(pat.expect(r"Moves *\n[^\n]* 1 +%s +2 +%s" % (re.escape(first), re.escape(second)), 5)
              and re.search(r"P +pat \(you\) +X\d O\d", pat.screen()) and
              re.search(r"B +quin \(guest\) +X\d O\d", pat.screen()),
              "64x18: the players' names, the moves heading and the moves, none drawn over",
              pat.screen())
    tap.check(wait_all_keys(tmux, "pat", ("Enter", "arrows", ":", "r", "d", "t", "?"),
                            (("Enter", "select"), ("d", "draw"), ("t", "chat"), ("?", "help"))),
              "64 columns, your move: every key of the bar is there, whole (d draw, t chat too)",
              bar(pat.screen()))
    tap.check(re.search(r"OXONO standard . game g\d+ +connected +pat", title(pat.screen())),
              "64 columns, at a game: the title bar says the connection's state",
              title(pat.screen()))
    tmux.resize("sid", 64, 18)
    tap.check(tmux.expect("sid", r"Moves *\n[^\n]* 1 +%s +2 +%s" % (re.escape(first), re.escape(second)), 5)
              and re.search(r"Spectators \(\d\): \w", tmux.capture("sid")),
              "64x18, watching: the moves heading and the moves, the spectators on one line",
              tmux.capture("sid"))
    tap.check(wait_all_keys(tmux, "sid", ("arrows", "s", "t", "q", "f", "Q", "?"),
                            (("t", "chat"), ("q", "leave"), ("Q", "quit"), ("?", "help"))),
              "64 columns, watching: every key of the bar is there, whole (Q quit too)",
              bar(tmux.capture("sid")))
    relay.hold()
    tap.check(wait_screen(tmux, "sid", lambda scr: "reconnecting..." in title(scr)),
              "64 columns, the connection lost: the title bar says it is reconnecting",
              title(tmux.capture("sid")))
    relay.release()
    tap.check(wait_screen(tmux, "sid", lambda scr: re.search(r" connected +sid", title(scr)),
                          timeout=10),
              "and that it is connected again", title(tmux.capture("sid")))
    quin.send("draw")
    tap.check(pat.expect(r"offers a draw", 10) and
              wait_all_keys(tmux, "pat", ("a", "x", "Enter", "arrows", ":", "r", "t", "?"),
                            (("a", "accept draw"), ("x", "decline"), ("?", "help"))),
              "64 columns, a draw offered on your move: every key of the bar, the answers first",
              bar(pat.screen()))
    watcher.close()
    quin.close()
    for session in ("pat", "sid"):
        tmux.keys(session, "Q")
        tmux.expect(session, r"HOKITO-EXIT=0", 5)
    relay.close()


def first_move(plain, kind="hokito"):
    """A legal move in the position a --plain client sees (its first in the engine's list)."""
    plain.send("position")
    m = plain.expect(r"^position: (.*)$", 10)
    return ct.legal_moves(kind, m.group(1))[0] if m else None


def game_end(tap, tmux, tmp):
    """A game that ends while a pawn is selected: ann's flag falls (a server with --test-clock,
    whose time the test moves), then, in the rematch, ben resigns while ann is asked whether to
    abort (she has not moved yet). The selection, its notice and the question go: the status line says how it ended."""
    clock_dir = os.path.join(tmp, "clock")
    os.makedirs(clock_dir)
    server = ct.Server(clock_dir, ["--test-clock", "--first-move", "0"])
    clock = serverlib.Client("127.0.0.1", server.port)
    ben = None
    try:
        clock.hello("clock")
        start(tmux, tmp, "ann", "%s --port %d --name ann create --seat black --clock 1+0"
              % (ct.HOKITO, server.port), env_for(tmp, "ann"))
        m = tmux.expect("ann", r"game (g\d+)", 10)
        ben = ct.Plain(server.port, "ben", ["join", m.group(1)] if m else [],
                       os.path.join(tmp, "ben"))
        ann = Player(tmux, "ann")
        if not tap.check(m and ann.expect(r"Your move \(Black\)", 10),
                         "game end: ann's timed game begins", ann.screen()):
            return
        # a spectator, to be taken to the rematch
        start(tmux, tmp, "spe", "%s --port %d --name spe watch %s"
              % (ct.HOKITO, server.port, m.group(1)), env_for(tmp, "spe"))
        tmux.expect("spe", r"Black to move +\(watching\)", 10)
        frm = first_move(ben).split("-")[0]
        ann.choose(frm)
        tap.check(ann.expect(r"%s selected: pick a highlighted square" % frm, 5),
                  "game end: ann selects a pawn", ann.screen())
        clock.request({"type": "test_clock", "advance_ms": 61000})
        scr = wait_screen(tmux, "ann", lambda scr: re.search(
            r"Game over: White wins.*Black ran out of time", status(scr)), timeout=10)
        tap.check(scr and "selected" not in scr and "\u2022" not in scr,
                  "the flag falls while a pawn is selected: the selection and its notice go, "
                  "the status line says how the game ended", scr or ann.screen())
        tmux.keys("ann", "n")
        ben.expect(r"^rematch offer from black", 10)
        ben.send("accept")
        if not tap.check(ben.expect(r"^joined game g\d+ .* as black", 10) and
                         ann.expect(r"White  ann \(you\)", 10),
                         "game end: the rematch, ann plays white", ann.screen()):
            return
        rm = re.search(r"^joined game (g\d+)", ben.text(), re.M)
        rematch = [g for g in re.findall(r"^joined game (g\d+)", ben.text(), re.M)][-1]
        scr = wait_screen(tmux, "spe", lambda scr: "The rematch is game %s: w to watch it."
                          % rematch in scr and has_keys(scr, ("w", "watch rematch")), 10)
        tap.check(rm and scr, "the spectator is told of the rematch, with the key to follow it",
                  tmux.capture("spe"))
        tmux.keys("spe", "w")
        tap.check(tmux.expect("spe", r"game %s .*\n(.*\n)*.*Black to move +\(watching\)"
                              % rematch, 10),
                  "w: the spectator watches the rematch", tmux.capture("spe"))
        tmux.keys("spe", "Q")
        ben.send(first_move(ben))
        ann = Player(tmux, "ann", turned=True)
        ann.expect(r"Your move \(White\)", 10)
        frm = first_move(ben).split("-")[0]
        ann.choose(frm)
        ann.expect(r"%s selected" % frm, 5)
        tmux.keys("ann", "A")  # she has not moved yet: she would abort, not resign
        tap.check(ann.expect(r"Abort this game \(no result\)\? \(y/n\)", 5),
                  "game end: ann has a pawn selected and is asked whether to abort",
                  ann.screen())
        ben.send("resign")
        scr = wait_screen(tmux, "ann", lambda scr: re.search(
            r"Game over: White wins.*Black resigned", status(scr)), timeout=10)
        tap.check(scr and "selected" not in scr and "Abort this game" not in scr and
                  has_keys(scr, ("Enter", "lobby"), ("v", "replay")),
                  "the opponent resigns meanwhile: the question goes too, the status line "
                  "says how the game ended and the bar has the game-over keys",
                  scr or ann.screen())
        tmux.keys("ann", "Q")
    finally:
        if ben is not None:
            ben.close()
        clock.close()
        server.stop()


def create_refused(tap, tmux, tmp):
    """A create the server refuses (it holds its maximum of games): the refusal replaces the
    "Creating..." notice."""
    full_dir = os.path.join(tmp, "full")
    os.makedirs(full_dir)
    full = ct.Server(full_dir, ["--max-games", "1"])
    try:
        una = ct.Plain(full.port, "una", ["create"], os.path.join(tmp, "una"))
        una.expect(r"g\d+", 10)
        path = os.path.join(tmp, "vic.stderr")
        STDERR.append(path)
        tmux.start("vic", "%s --port %d --name vic" % (ct.HOKITO, full.port),
                   env_for(tmp, "vic"), 80, 24, stderr=path)
        tmux.expect("vic", r"open +una \(guest\) vs -|open +- vs una \(guest\)", 10)
        tmux.keys("vic", "c")
        tap.check(wait_keys(tmux, "vic", ("Up/Down", "field"), ("Esc", "cancel"),
                            ("Enter", "create")),
                  "the create form: the bar shows the form's keys", tmux.capture("vic"))
        tmux.keys("vic", "Enter")
        scr = tmux.expect("vic", r"maximum", 10) and tmux.capture("vic")
        tap.check(scr and "Creating" not in scr and "Games on this server" in scr,
                  "a refused create: the server's reason replaces \"Creating...\"",
                  tmux.capture("vic"))
        tmux.keys("vic", "Q")
        # the same refusal of the command line's create: the lobby it lands in lists the
        # games at once, not "No games yet" until its first refresh (2 s later)
        path = os.path.join(tmp, "wes.stderr")
        STDERR.append(path)
        tmux.start("wes", "%s --port %d --name wes create" % (ct.HOKITO, full.port),
                   env_for(tmp, "wes"), 80, 24, stderr=path)
        tap.check(tmux.expect("wes", r"maximum", 10) and
                  tmux.expect("wes", r"open +una \(guest\) vs -|open +- vs una \(guest\)", 1) and
                  "No games yet" not in tmux.capture("wes"),
                  "a refused create from the command line: the lobby lists the games at once",
                  tmux.capture("wes"))
        tmux.keys("wes", "Q")
        una.close()
    finally:
        full.stop()


def computer_game(tap, tmux, server, tmp):
    """Against the computer at 80 columns: its name is whole in the panel (and in the replay),
    and its first move is on the status line."""
    tmux.start("dee", "%s --port %d --name dee create --seat white --computer 1"
               % (ct.HOKITO, server.port), env_for(tmp, "dee"), 80, 24)
    tap.check(tmux.expect("dee", r"B +Black +computer \(level 1\) +\d+\s", 10),
              "80 columns: the computer's name is whole in the panel", tmux.capture("dee"))
    tap.check(wait_screen(tmux, "dee", lambda s: re.fullmatch(
                  r" computer \(level 1\) played \S+\. Your move\.", status(s).rstrip()), 30),
              "the computer's move is on the status line", tmux.capture("dee"))
    tmux.keys("dee", "Q")
    # and in OXONO, beside the reserves, in the game and in its replay
    tmux.start("dox", "%s --port %d --name dox create oxono --seat black --computer 1"
               % (ct.HOKITO, server.port), env_for(tmp, "dox"), 80, 24)
    tap.check(tmux.expect("dox", r"P +Pink +computer \(level 1\) +X[78] O[78]\s", 10),
              "80 columns, OXONO: the computer's name is whole beside its reserves",
              tmux.capture("dox"))
    tmux.keys("dox", "A")  # before its own first move: an abort, not a resignation
    tmux.expect("dox", r"Abort this game", 5)
    tmux.keys("dox", "y")
    tmux.expect("dox", r"Game over", 10)
    tmux.keys("dox", "v")
    tap.check(tmux.expect("dox", r"Replay of game.*P +Pink +computer \(level 1\) +X8 O8\s", 10),
              "80 columns, the replay: the computer's name is whole too", tmux.capture("dox"))
    tmux.keys("dox", "Q")
    tmux.start("dex", "%s --port %d --name dex create --seat black --computer 1"
               % (ct.HOKITO, server.port), env_for(tmp, "dex"), 64, 18)
    tap.check(tmux.expect("dex", r"Your move \(Black\)", 10) and
              re.search(r"\[ B\d\]", tmux.capture("dex")),
              "64 columns: the cursor's brackets show round a pawn", tmux.capture("dex"))
    tap.check(not re.search(r"\bd +draw\b", bar(tmux.capture("dex"))),
              "against the computer the bar offers no draw", bar(tmux.capture("dex")))
    tmux.keys("dex", "d")
    tap.check(tmux.expect("dex", r"The computer does not take draws: play on, or resign\.", 5),
              "d against the computer: refused on the spot", tmux.capture("dex"))
    tmux.keys("dex", "A")
    tmux.expect("dex", r"Abort this game", 5)
    tmux.keys("dex", "y")
    tmux.expect("dex", r"Game over", 10)
    tmux.keys("dex", "Escape")
    tap.check(tmux.expect("dex", r"Moves *\n +none *\n", 5) and
              "none yet" not in tmux.capture("dex"),
              "a game over without a move: its move list says none, not 'none yet'",
              tmux.capture("dex"))
    tmux.keys("dex", "Q")


def wide_names(tap, tmux, server, tmp):
    """A name of 32 CJK characters takes 64 columns: the panel and the lobby cut it by the
    columns it takes, so that it never runs over the score, the next line or the board, and end
    it in an ellipsis, so that it shows it is cut."""
    name = "\u65e5\u672c\u8a9e" * 10 + "\u65e5\u672c"
    p = ct.Plain(server.port, name, ["create", "--seat", "black"], os.path.join(tmp, "wide"))
    m = p.expect(r"^joined game (g\d+)", 10)
    if not tap.check(m, "wide names: a player with a 32-character CJK name", p.text()):
        return
    gid = m.group(1)
    tmux.start("wide", "%s --port %d --name wes watch %s" % (ct.HOKITO, server.port, gid),
               env_for(tmp, "wes"), 80, 24)
    ok = tmux.expect("wide", r"Waiting for an opponent", 10)
    scr = tmux.capture("wide")
    lines = scr.split("\n")
    tap.check(ok and re.search(r"B +Black +\u65e5[^\n]*\u2026 +36\n", scr) and
              re.search(r"^ 5 +W\d", scr, re.M) and
              not [l for l in lines if l[:1] not in ("", " ")],
              "80x24: the wide name is cut to its columns, ending in '\u2026'; the score and "
              "the board whole", scr)
    tmux.keys("wide", "q")

    def cols(text):  # the columns a line takes on the terminal
        return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    ok = tmux.expect("wide", r"%s +hokito +standard +open +\u65e5[^\n]*\u2026 +- +0 +\d\n" % gid,
                     10)
    lines = tmux.capture("wide").split("\n")
    head = [l for l in lines if "WATCH" in l]
    row = [l for l in lines if re.match(r" +%s " % gid, l)]
    tap.check(ok and head and row and cols(row[0].rstrip()) == cols(head[0].rstrip()),
              "the lobby: the wide name is cut to its column, ending in '\u2026'; the counts "
              "under their headings",
              tmux.capture("wide"))
    tmux.keys("wide", "Q")
    p.close()


def lobby_columns(tap, tmux, server, tmp):
    """The lobby shows each game's time control under CLOCK where there is room (76 columns
    and more), and where its rows run past the screen, which of them are shown."""
    conns = []
    try:
        for i in range(24):
            c = serverlib.Client("127.0.0.1", server.port)
            c.hello("lob%02d" % i)
            want = {"type": "create", "kind": "hokito", "seat": "black"}
            if i == 3:
                want["clock"] = "7+5"
            c.request(want)
            conns.append(c)
        tmux.start("lob", "%s --port %d --name lou" % (ct.HOKITO, server.port),
                   env_for(tmp, "lou"), 80, 24)
        ok = tmux.expect("lob", r"lob03 \(guest\) vs -", 10)
        lines = tmux.capture("lob").split("\n")
        head = [l for l in lines if "WATCH" in l]
        row = [l for l in lines if "lob03 (guest) vs -" in l]
        tap.check(ok and head and row and "CLOCK" in head[0] and
                  row[0].find("7+5") == head[0].find("CLOCK") and
                  re.search(r"lob02 \(guest\) vs - +- +0 +0$", tmux.capture("lob"), re.M),
                  "80 columns, the lobby: a game's time control under CLOCK, '-' without one",
                  tmux.capture("lob"))
        def rows_said():
            scr = tmux.capture("lob")
            m = re.search(r"Games on this server +1 to (\d+) of (\d+)", scr)
            shown = [l for l in scr.split("\n") if re.match(r" +g\d+ ", l)]
            return (m and int(m.group(2)) >= 24 and int(m.group(1)) < int(m.group(2)) and
                    len(shown) == int(m.group(1)))
        tap.check(ct.wait_for(rows_said, 5),
                  "a lobby longer than the screen says which rows it shows (1 to N of M)",
                  tmux.capture("lob"))
        # a finished game says how it ended in the state column: one aborted after its first
        # move (one that never began, as lob00's left open, is not listed)
        conns[0].request({"type": "leave"})
        z, j = serverlib.Client("127.0.0.1", server.port), serverlib.Client("127.0.0.1",
                                                                            server.port)
        z.hello("lobz")
        j.hello("lobj")
        st, _ = z.request({"type": "create", "kind": "hokito", "seat": "black"})
        j.request({"type": "join", "game": st["game"]})
        yt = z.wait_for("your_turn")
        z.request({"type": "move", "move": yt["moves"][0]})
        j.request({"type": "abort"})
        conns += [z, j]
        tmux.resize("lob", 100, 50)
        tap.check(tmux.expect("lob", r" g\d+ +hokito +standard +aborted +lobz \(guest\) vs lobj \(guest\) ", 10) and
                  "lob00 (guest) vs -" not in tmux.capture("lob") and
                  not re.search(r"^ +g\d+ .* finished ", tmux.capture("lob"), re.M),
                  "the lobby: a finished game shows its outcome (aborted, drawn, SIDE won)",
                  tmux.capture("lob"))
        tmux.resize("lob", 64, 18)
        ok = ct.wait_for(lambda: "CLOCK" not in tmux.capture("lob") and
                         re.search(r"lob02 vs - +0 +0$", tmux.capture("lob"), re.M), 5)
        tap.check(ok, "64 columns: no clock column, the counts still whole", tmux.capture("lob"))
        tmux.keys("lob", "Q")
    finally:
        for c in conns:
            c.close()


def hostile_grace(tap, tmux, tmp):
    """A (broken or hostile) server gives a dropped player a grace near INT64_MAX ms: the
    screen counts it down in whole seconds, rounded up, without overflowing."""
    position = subprocess.run([ct.ENGINE, "start", "--seed", "3"], capture_output=True,
                              text=True, timeout=10).stdout.strip()
    position = position[:-1] + "w"  # eve's turn: the grace stands still (PROTOCOL.md 11.3)
    sent = ({"type": "welcome", "protocol": 1, "player": {"id": "p1", "name": "eve"},
             "token": "t"},
            {"type": "state", "game": "g1", "kind": "hokito", "variant": "standard",
             "status": "live", "you": "white", "position": position, "moves": [], "seq": 1,
             "players": {"black": {"name": "gone", "connected": False,
                                   "grace_ms": 2**63 - 1},
                         "white": {"name": "eve", "connected": True}}})
    fake = ct.FakeServer(sent, 10)
    start(tmux, tmp, "grace", "%s --port %d --name eve --new-session" % (ct.HOKITO, fake.port),
          env_for(tmp, "grace"))
    tap.check(tmux.expect("grace", r"Your move \(White\)", 10) and
              re.search(r"offline, 9223372036854776 s grace", tmux.capture("grace")),
              "a grace of INT64_MAX ms is shown as 9223372036854776 s, no overflow",
              tmux.capture("grace"))
    tmux.keys("grace", "Q")
    fake.close()


def chat_log(tap, tmux, tmp):
    """At 64x18, a timed game with the opponent offline leaves the chat pane one row (none
    once the moves need it), which cuts the newest line, and the status line keeps only that
    line, cut too, until the next notice: the earlier lines were nowhere. T opens the chat log,
    where every line kept is read whole, the newest at the bottom, and the oldest by scrolling
    back (Up, PgUp); any other key closes it."""
    position = subprocess.run([ct.ENGINE, "start", "--seed", "3"], capture_output=True,
                              text=True, timeout=10).stdout.strip()
    sent = [{"type": "welcome", "protocol": 1, "player": {"id": "p1", "name": "eve"},
             "token": "t"},
            {"type": "state", "game": "g1", "kind": "hokito", "variant": "standard",
             "status": "live", "you": "white", "position": position, "moves": [], "seq": 1,
             "clock": {"control": "5+3", "remaining": {"black": 300000, "white": 300000}},
             "players": {"black": {"name": "kim", "connected": False, "grace_ms": 60000},
                         "white": {"name": "eve", "connected": True}}}]
    for i in range(8):
        text = "line %d " % i + " ".join("w%d" % k for k in range(30)) + " end%d" % i
        sent.append({"type": "chat", "game": "g1", "seq": 2 + i, "seat": "black",
                     "player": {"id": "p2", "name": "kim"}, "text": text})
    fake = ct.FakeServer(sent, 15)
    path = os.path.join(tmp, "chatlog.stderr")
    STDERR.append(path)
    tmux.start("clog", "%s --port %d --name eve --new-session" % (ct.HOKITO, fake.port),
               env_for(tmp, "clog"), 64, 18, stderr=path)
    scr = wait_screen(tmux, "clog", lambda scr: "kim: line 7 " in scr, 10)
    tap.check(scr and "line 0 " not in scr and "end7" not in scr,
              "64x18: the first chat lines are nowhere on the game screen, the last one is cut "
              "in the pane and on the status line", scr)
    tmux.keys("clog", "T")
    scr = wait_screen(tmux, "clog", lambda scr: "Chat log" in scr and
                      re.search(r"w29 end7 +\u2502", scr), 5)
    tap.check(scr and re.search(r"\u2502 kim: line 7 w0 ", scr) and
              has_keys(scr, ("any other key", "close")),
              "T: the chat log shows the newest line whole, at the bottom", scr)
    tmux.keys("clog", "Up")
    tap.check(wait_screen(tmux, "clog", lambda scr: "w29 end7" not in scr, 5),
              "Up scrolls the chat log back", tmux.capture("clog"))
    tmux.keys("clog", "PPage", "PPage", "PPage", "PPage", "PPage")
    scr = wait_screen(tmux, "clog", lambda scr: re.search(r"\u2502 kim: line 0 w0 ", scr) and
                      "w29 end0" in scr, 5)
    tap.check(scr and "the first line" in scr,
              "PgUp scrolls back to the first line kept, whole", tmux.capture("clog"))
    tmux.keys("clog", "x")
    tap.check(wait_screen(tmux, "clog", lambda scr: "Chat log" not in scr and
                          "Black to move" in scr, 5),
              "any other key closes the chat log", tmux.capture("clog"))
    tmux.keys("clog", "Q")
    fake.close()


def main(tap):
    tmp = ct.tmpdir()
    server = ct.Server(tmp)
    proxy = ct.Proxy(server.port)
    tmux = ct.Tmux("screen")
    try:
        gid = hokito_game(tap, tmux, server, proxy, tmp)
        if gid:
            screen_checks(tap, tmux, server, proxy, tmp, gid)
        oxono_game(tap, tmux, server, tmp)
        small_screens(tap, tmux, server, tmp)
        game_end(tap, tmux, tmp)
        create_refused(tap, tmux, tmp)
        computer_game(tap, tmux, server, tmp)
        wide_names(tap, tmux, server, tmp)
        lobby_columns(tap, tmux, server, tmp)
        hostile_grace(tap, tmux, tmp)
        chat_log(tap, tmux, tmp)
        reports = ""
        for path in STDERR:
            if os.path.exists(path):
                reports += open(path, errors="replace").read()
        tap.check(not re.search(r"Sanitizer|runtime error", reports),
                  "no sanitizer reports from the clients", reports[-3000:])
    finally:
        tmux.kill()
        proxy.close()
        server.stop()
        ct.cleanup(tmp)


if __name__ == "__main__":
    ct.main_guard(main)
