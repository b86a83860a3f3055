#!/usr/bin/env python3
"""test-client-plain.py: the hokito client in --plain mode over pipes, against a real hokitod.

Two plain clients play a full HOKITO game (one of them quits mid-game and a restarted client
rejoins with the stored session token) while a third watches; then a full OXONO game through
quick pairing; the command line (--help, --version, bad usage) and standard input that ends; a
server gone for good after the client was connected (it gives up after 60 s, status 1); a busy
server, whose lobby has more games than one list reply holds and whose spectators' state passes
the 64 KiB of a client's own lines.
Moves are chosen from the engine's list of legal moves (hokito-engine moves), deterministically.
TAP on stdout.
"""
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clienttest as ct  # noqa: E402
from serverlib import Client  # noqa: E402


def test_cli(tap):
    r = subprocess.run([ct.HOKITO, "--version"], capture_output=True, text=True, timeout=10)
    tap.check(r.returncode == 0 and r.stdout.startswith("hokito "), "--version", r.stdout)
    r = subprocess.run([ct.HOKITO, "--help"], capture_output=True, text=True, timeout=10)
    lines = r.stdout.splitlines()
    tap.check(r.returncode == 0 and len(lines) <= 24 and max(map(len, lines)) <= 80 and
              "Examples" in r.stdout, "--help fits a screen and has examples", r.stdout)
    # --help names every command of hokito(6)'s COMMANDS section.
    man = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy",
                            "man", "hokito.6")).read()
    section = man.split(".SH COMMANDS", 1)[1].split(".SH ", 1)[0].splitlines()
    commands = [section[i + 1].split()[1] for i, line in enumerate(section)
                if line == ".TP" and i + 1 < len(section)]
    for cmd in commands:
        tap.check(re.search(r"^  %s\b|\bwith %s\b" % (cmd, cmd), r.stdout.split("Options:")[0],
                            re.M) is not None,
                  "--help names the command %s of hokito(6)" % cmd, r.stdout)
    r = subprocess.run([ct.HOKITO, "--bogus"], capture_output=True, text=True, timeout=10)
    tap.check(r.returncode == 2 and "unknown option" in r.stderr, "unknown option: status 2",
              r.stderr)
    r = subprocess.run([ct.HOKITO, "create", "chess"], capture_output=True, text=True,
                       timeout=10)
    tap.check(r.returncode == 2 and "not a game" in r.stderr, "unknown game kind: status 2",
              r.stderr)
    r = subprocess.run([ct.HOKITO, "create", "--seat", "pink"], capture_output=True, text=True,
                       timeout=10)
    tap.check(r.returncode == 2 and "not a seat" in r.stderr, "HOKITO has no pink seat",
              r.stderr)
    # Options that would do nothing with the command given are refused, not ignored.
    for args, opt in ((["--seat", "black"], "--seat"), (["join", "g1", "--private"], "--private"),
                      (["quick", "--computer", "3"], "--computer"),
                      (["watch", "g1", "--clock", "5+3"], "--clock"),
                      (["--variant", "random36"], "--variant")):
        r = subprocess.run([ct.HOKITO, "--plain"] + args, capture_output=True, text=True,
                           timeout=10, stdin=subprocess.DEVNULL)
        tap.check(r.returncode == 2 and r.stderr.startswith("hokito: %s goes with" % opt) and
                  len(r.stderr.splitlines()) == 1, "hokito %s: status 2, one line" %
                  " ".join(args), r.stderr)
    # an address that is none of the forms --host takes: one line naming them, not five
    # failed connections to it
    for host in ("", "127.0.0.1:0", "http://127.0.0.1:7777", "hokitos://", "[::1"):
        r = subprocess.run([ct.HOKITO, "--plain", "--host", host], capture_output=True,
                           text=True, timeout=10, stdin=subprocess.DEVNULL)
        tap.check(r.returncode == 2 and r.stderr.startswith("hokito: --host: ") and
                  "HOST:PORT" in r.stderr and "hokitos://HOST:PORT" in r.stderr and
                  len(r.stderr.splitlines()) == 1,
                  "--host '%s': status 2, one line naming the forms" % host, r.stderr)
    r = subprocess.run([ct.HOKITO, "--plain", "--host", "127.0.0.1:7811", "--port", "7812"],
                       capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    tap.check(r.returncode == 2 and "names port 7811 and --port 7812" in r.stderr,
              "--host with a port and a different --port: status 2", r.stderr)
    r = subprocess.run([ct.HOKITO, "lobby", "x"], capture_output=True, text=True, timeout=10)
    tap.check(r.returncode == 2 and "lobby takes no arguments" in r.stderr,
              "lobby with an argument says so (not 'unknown command')", r.stderr)


def choose(moves, ply):
    """A legal move, deterministic but not always the first one."""
    return moves[(ply * 7 + 3) % len(moves)]


def play_turn(tap, player, kind, ply):
    """Wait for our turn in player's output, read the position, play a legal move."""
    m = player.expect(r"^(your turn|game over:)", 20)
    if not m or m.group(1) == "game over:":
        return None
    player.send("position")
    pm = player.expect(r"^position: (.*)$", 10)
    if not pm:
        return None
    moves = ct.legal_moves(kind, pm.group(1))
    if not moves:
        return None
    mv = choose(moves, ply)
    player.send(mv)
    return mv


def test_hokito_game(tap, port, tmp):
    homes = {n: os.path.join(tmp, n) for n in ("alice", "bob", "carol")}
    alice = ct.Plain(port, "alice", ["create", "hokito", "--seat", "black"], homes["alice"])
    m = alice.expect(r"^joined game (g\d+) \(hokito standard\) as black", 10)
    tap.check(m, "alice creates a HOKITO game as black", alice.text())
    if not m:
        return
    gid = m.group(1)
    tap.check(alice.expect(r"^waiting for an opponent", 5) and
              alice.expect(r"^6 +w\d", 5), "the board is printed, rank 6 first", alice.text())
    # Black moves first, but not before the game has started: "wait" holds the next command
    # until the opponent has come and it is her turn; a move now is refused on the spot.
    alice.send("c1-c2")
    tap.check(alice.expect(r"^error: The game has not started: waiting for an opponent", 10),
              "a move before the opponent came is refused on the spot", alice.text())
    alice.send("wait")
    alice.send("clock")
    carol = ct.Plain(port, "carol", ["watch", gid], homes["carol"])
    tap.check(carol.expect(r"^watching game %s" % gid, 10), "carol watches", carol.text())
    tap.check(alice.expect(r"^spectators: 1 carol", 10), "alice sees carol watching",
              alice.text())
    bob = ct.Plain(port, "bob", [], homes["bob"])
    bob.send("list")
    tap.check(bob.expect(r"^game %s hokito standard open alice \(guest\) vs -" % gid, 10),
              "bob lists the open game", bob.text())
    bob.send("clock")
    tap.check(bob.expect(r"^error: not at a game$", 10),
              "clock at no game: not at a game (not 'no clock in this game')", bob.text())
    tap.check(not alice.seen(r"no clock in this game"),
              "wait holds the next command while the game waits for its opponent",
              alice.text())
    bob.send("join " + gid)
    tap.check(bob.expect(r"^joined game %s \(hokito standard\) as white" % gid, 10) and
              alice.expect(r"^game started: alice \(black\) vs bob \(white\)", 10) and
              carol.expect(r"^game started", 10), "bob joins: everyone sees the start",
              alice.text() + "\n--\n" + bob.text())
    tap.check(alice.expect(r"^error: no clock in this game$", 10),
              "the command held by wait runs once the game has started", alice.text())
    alice.pos = 0
    # Refusals on the spot, before anything is sent.
    tap.check(alice.expect(r"^your turn \(black\)", 10), "alice is told it is her turn")
    bob.send("a1-a2")
    tap.check(bob.expect(r"^error: Not your turn: Black to move", 10),
              "a move out of turn is refused locally", bob.text())
    alice.send("a6-a5")
    tap.check(alice.expect(r"^error: a6-a5: ", 10), "an illegal move is refused with the reason",
              alice.text())
    alice.send("zz")
    tap.check(alice.expect(r"^error: unknown command 'zz'", 10), "an unknown command is refused")
    alice.send("claim")
    tap.check(alice.expect(r"^error: usage: claim win\|draw$", 10),
              "a known command without its argument gets its usage", alice.text())
    alice.send("leave")
    tap.check(alice.expect(r"^error: The game is still on: resign first, then leave\.$", 10),
              "leave in a live game: resign first (the command, not a screen key)",
              alice.text())
    alice.send("stack c4")
    tap.check(alice.expect(r"^c4: w\d \(bottom to top; 1 pawn", 10), "stack shows a square",
              alice.text())
    alice.send("moves")
    tap.check(alice.expect(r"^legal moves for black \(\d+\): [a-f][1-6]-", 10),
              "moves lists the legal moves")
    alice.pos = 0  # the "your turn" line was consumed above: find it again
    players = {"b": alice, "w": bob}
    ply = 0
    restarted = False
    while ply < 80:
        alice.send("position")
        pm = alice.expect(r"^position: (.*)$", 10)
        if not pm:
            break
        pos = pm.group(1)
        if not ct.legal_moves("hokito", pos):
            break
        mover = players[ct.side_to_move(pos)]
        if ply == 6 and not restarted:
            # Bob quits mid-game; a new hokito with the same name rejoins by its token.
            restarted = True
            bob.send("quit")
            tap.check(bob.close() == 0, "bob quits with status 0")
            tap.check(alice.expect(r"bob lost the connection", 10),
                      "alice is told bob dropped", alice.text())
            # started with a command: its seat wins, and bob is told the command was not run
            bob = ct.Plain(port, "bob", ["watch", "g999"], homes["bob"])
            tap.check(bob.expect(r"^error: Rejoined your game %s; the command was not run"
                                 % gid, 10) and
                      bob.expect(r"^joined game %s .* as white" % gid, 10),
                      "a restarted client rejoins its seat with the stored token", bob.text())
            tap.check(alice.expect(r"bob is back", 10), "alice is told bob is back")
            players["w"] = bob
            mover = players[ct.side_to_move(pos)]
        moves = ct.legal_moves("hokito", pos)
        mv = choose(moves, ply)
        mover.send(mv)
        ply += 1
        if not (carol.expect(r"^move %d: \w+ %s$" % (ply, mv), 10) and
                alice.expect(r"^move %d: " % ply, 10)):
            break
    tap.check(ply >= 10, "a full game of %d moves was played" % ply, carol.text()[-2000:])
    for p in (alice, bob, carol):
        p.pos = 0  # the game over line may come before the last lines we looked for
    over = [p.expect(r"^game over: (.*)$", 10) for p in (alice, bob, carol)]
    tap.check(all(over) and len({o.group(1) for o in over}) == 1,
              "all three see the same game over line",
              "\n".join(o.group(0) if o else "(none)" for o in over))
    if over[2]:
        tap.check(("wins" in over[2].group(1) or "Draw" in over[2].group(1)) and
                  "no legal move" in over[2].group(1), "the result names the winner and why",
                  over[2].group(0))
    tap.check(carol.seen(r"^players: black alice \(guest\) score \d+; white bob \(guest\) score \d+"),
              "the spectator sees both scores", carol.text()[-1500:])
    # the lobby gives how a finished game ended
    carol.send("list")
    tap.check(carol.expect(r"^game %s hokito standard finished alice \(guest\) vs bob \(guest\), move %d, "
                           r"spectators \d+, (black wins|white wins|draw) \(blocked\)$"
                           % (gid, ply), 10),
              "list: a finished game with its result and why", carol.text()[-1500:])
    for p in (alice, bob, carol):
        p.send("leave")
    for p, n in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
        tap.check(p.expect(r"^left game %s" % gid, 10), "%s leaves the finished game" % n,
                  p.text()[-500:])
        tap.check(p.close() == 0, "%s ends at end of input with status 0" % n)


def test_oxono_game(tap, port, tmp):
    a = ct.Plain(port, "pia", ["quick", "oxono"], os.path.join(tmp, "pia"))
    ma = a.expect(r"^joined game (g\d+) \(oxono standard\) as (\w+)", 10)
    b = ct.Plain(port, "ben", ["quick", "oxono"], os.path.join(tmp, "ben"))
    mb = b.expect(r"^joined game (g\d+) \(oxono standard\) as (\w+)", 10)
    tap.check(ma and mb and ma.group(1) == mb.group(1) and ma.group(2) != mb.group(2),
              "quick pairing seats two OXONO players in one game", a.text() + b.text())
    if not (ma and mb):
        return
    players = {ma.group(2)[0]: a, mb.group(2)[0]: b}
    tap.check(a.expect(r"^6 +[.XO]", 10), "the OXONO board is printed", a.text())
    tap.check(a.seen(r"reserve X8 O8") or a.expect(r"reserve X8 O8", 5),
              "reserves are shown", a.text())
    ply = 0
    while ply < 40:
        a.send("position")
        pm = a.expect(r"^position: (.*)$", 10)
        if not pm:
            break
        pos = pm.group(1)
        moves = ct.legal_moves("oxono", pos)
        if not moves:
            break
        mover = players[ct.side_to_move(pos)]
        mv = choose(moves, ply)
        mover.send(mv)
        ply += 1
        if not a.expect(r"^move %d: \w+ %s$" % (ply, mv.replace("+", r"\+")), 10):
            break
    a.pos = b.pos = 0
    oa, ob = a.expect(r"^game over: (.*)$", 10), b.expect(r"^game over: (.*)$", 10)
    tap.check(oa and ob and oa.group(1) == ob.group(1),
              "an OXONO game is played to its end (%d moves)" % ply, a.text()[-1500:])
    a.close()
    b.close()


def test_quick(tap, port, tmp):
    """quick takes what its help says: the game (HOKITO when left out), a variant and a clock
    in any order, each checked before anything is sent. First, a move at no game."""
    p = ct.Plain(port, "quinn", [], os.path.join(tmp, "quinn"))
    p.send("c2-e4")
    p.send("move c2-e4")
    tap.check(p.expect(r"^error: You are not at a game: create or join one first\.$", 10) and
              p.expect(r"^error: You are not at a game: create or join one first\.$", 10),
              "a move at no game: not at a game (not 'unknown command', not 'watching')",
              p.text())
    p.send("quick 1+0 random36")
    tap.check(p.expect(r"^Looking for a HOKITO opponent\.\.\.$", 10) and
              p.expect(r"^joined game g\d+ \(hokito random36\) as", 10) and
              p.expect(r"^clocks: black 1:00, white 1:00 \(1\+0\)$", 10),
              "quick with a clock then a variant and no game: both are asked for", p.text())
    p.send("leave")
    p.send("quick oxono 3+2")
    tap.check(p.expect(r"^Looking for an OXONO opponent\.\.\.$", 10) and
              p.expect(r"^joined game g\d+ \(oxono standard\) as", 10) and
              p.expect(r"\(3\+2\)$", 10), "quick oxono with a clock", p.text())
    p.send("leave")
    p.send("create white 5+3")
    tap.check(p.expect(r"^joined game g\d+ \(hokito standard\) as white$", 10) and
              p.expect(r"\(5\+3\)$", 10),
              "create without a game: HOKITO, as on the command line", p.text())
    p.send("leave")
    p.send("quick hokito bogus")
    tap.check(p.expect(r"^error: quick: 'bogus' is not a variant of hokito or a clock", 10),
              "quick with a word that is neither a variant nor a clock is refused on the spot",
              p.text())
    tap.check(p.close() == 0, "quinn ends cleanly")


def test_eof(tap, port, tmp):
    r = subprocess.run([ct.HOKITO, "--plain", "--port", str(port), "--name", "eve"],
                       input="list\nhelp\n", capture_output=True, text=True, timeout=15,
                       env=dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "eve")))
    tap.check(r.returncode == 0 and "games: " in r.stdout and "commands:" in r.stdout,
              "commands piped in run in order and the client ends at end of input",
              r.stdout + r.stderr)
    r = subprocess.run([ct.HOKITO, "--plain", "--port", str(port), "--name", "eve"],
                       input="watch g999\njoin\n", capture_output=True, text=True, timeout=15,
                       env=dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "eve")))
    tap.check("error: No game 'g999' here: neither a game id nor an invite code" in r.stdout and
              "error: usage: join ID|CODE" in r.stdout,
              "watch of an unknown game names what was not found; join alone, its usage",
              r.stdout + r.stderr)
    # A name of 32 characters is whole however many bytes they take (up to 4 each).
    name = "\u00e9" * 31 + "\U0001f600"
    r = subprocess.run([ct.HOKITO, "--plain", "--port", str(port), "--name", name],
                       input="create hokito black\nwho\n", capture_output=True, text=True,
                       timeout=15, env=dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "eve")))
    tap.check(r.returncode == 0 and ("connected to 127.0.0.1:%d as %s\n" % (port, name))
              in r.stdout and ("black %s (you)" % name) in r.stdout,
              "a 32-character name of multibyte characters is shown whole", r.stdout + r.stderr)
    # A $USER the server would refuse is named as the cause, not --name, which was not given.
    r = subprocess.run([ct.HOKITO, "--plain", "--port", str(port)], input="", capture_output=True,
                       text=True, timeout=15, env=dict(os.environ, USER="u" * 33,
                                                       XDG_STATE_HOME=os.path.join(tmp, "u")))
    tap.check(r.returncode == 2 and "$USER" in r.stderr and "--name:" not in r.stderr,
              "a $USER too long for a name: status 2, and the error says $USER", r.stderr)
    r = subprocess.run([ct.HOKITO, "--plain", "--port", "1", "--name", "eve"], input="list\n",
                       capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "eve")))
    tap.check(r.returncode == 1 and "Cannot connect" in r.stdout,
              "no server: a clear error and status 1", r.stdout + r.stderr)
    tap.check(re.search(r"retrying in 0\.25 s\.\.\.\n.*retrying in 0\.5 s\.\.\.\n"
                        r".*retrying in 1 s\.\.\.\n", r.stdout),
              "the retries say how long they wait (0.25 s, 0.5 s, 1 s)", r.stdout)
    # The command line's action is pending too: input that is empty from the start must
    # neither drop it (status 0 with nothing done) nor quit before its answer.
    r = subprocess.run([ct.HOKITO, "--plain", "--port", "1", "--name", "eve", "create"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "eve")))
    tap.check(r.returncode == 1 and "Cannot connect" in r.stdout,
              "no server, create with empty input: status 1, not 0", r.stdout + r.stderr)
    # So is the connection itself: with no command at all, hokito still connects (or says it
    # cannot, with status 1) before it ends.
    for stdin, how in (({"stdin": subprocess.DEVNULL}, "/dev/null"), ({"input": ""}, "a pipe")):
        r = subprocess.run([ct.HOKITO, "--plain", "--port", "1", "--name", "eve"], **stdin,
                           capture_output=True, text=True, timeout=30,
                           env=dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "eve")))
        tap.check(r.returncode == 1 and "Cannot connect" in r.stdout,
                  "no server, no command, empty input from %s: status 1, not 0" % how,
                  r.stdout + r.stderr)
    r = subprocess.run([ct.HOKITO, "--plain", "--port", str(port), "--name", "eve"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=15,
                       env=dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "eve")))
    tap.check(r.returncode == 0 and
              r.stdout == "connected to 127.0.0.1:%d as eve\n" % port,
              "empty input: hokito connects, then ends with status 0", r.stdout + r.stderr)
    # Commands read before the server has answered come after the command line's action.
    path = os.path.join(tmp, "commands.txt")
    with open(path, "w") as f:
        f.write("who\nleave\n")
    with open(path) as f:
        r = subprocess.run([ct.HOKITO, "--plain", "--port", str(port), "--name", "early",
                            "create", "--seat", "black"], stdin=f, capture_output=True,
                           text=True, timeout=15,
                           env=dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "early")))
    tap.check(r.returncode == 0 and "not at a game" not in r.stdout and
              re.search(r"^players: black early \(you\).*\n(.*\n)*left game g\d+$",
                        r.stdout, re.M),
              "commands from standard input run after the command line's create",
              r.stdout + r.stderr)
    # So do commands read before the state of the game the server welcomed us back at.
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "back"))
    r = subprocess.run([ct.HOKITO, "--plain", "--port", str(port), "--name", "back", "create",
                        "--seat", "black", "--computer", "1"], input="resign\n",
                       capture_output=True, text=True, timeout=15, env=env)
    with open(path, "w") as f:
        f.write("who\n")
    with open(path) as f:
        r = subprocess.run([ct.HOKITO, "--plain", "--port", str(port), "--name", "back"],
                           stdin=f, capture_output=True, text=True, timeout=15, env=env)
    tap.check(r.returncode == 0 and "Rejoined game" in r.stdout and
              "not at a game" not in r.stdout and
              re.search(r"^players: black back \(you\)", r.stdout, re.M),
              "back at its game, the client runs commands once it has the game's state",
              r.stdout + r.stderr)
    # That game is over (resigned): from a finished game a session simply moves, so the
    # command line's action runs, and the finished game is not shown on the way.
    r = subprocess.run([ct.HOKITO, "--plain", "--port", str(port), "--name", "back", "create",
                        "oxono"], input="who\n", capture_output=True, text=True, timeout=15,
                       env=env)
    tap.check(r.returncode == 0 and "not run" not in r.stdout and
              "hokito standard" not in r.stdout and
              re.search(r"^joined game g\d+ \(oxono standard\) as", r.stdout, re.M),
              "stored session at a finished game: the command line's create runs",
              r.stdout + r.stderr)
    r = subprocess.run([ct.HOKITO, "--plain", "--port", str(port), "--name", "eof-creator",
                        "create", "oxono"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=15,
                       env=dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "eof")))
    tap.check(r.returncode == 0 and
              re.search(r"^joined game g\d+ \(oxono standard\) as", r.stdout, re.M),
              "create with empty input: the game is created before the client ends",
              r.stdout + r.stderr)


def test_restart(tap):
    """A spectator keeps watching through a restart of the server (its session is not kept)."""
    tmp = ct.tmpdir()
    server = ct.Server(tmp)
    proxy = ct.Proxy(server.port)
    try:
        amy = ct.Plain(proxy.port, "amy", ["create", "--private", "--seat", "black"],
                       os.path.join(tmp, "amy"))
        m = amy.expect(r"^joined game (g\d+) .* as black, invite code ([A-Z0-9]+)", 10)
        if not tap.check(m, "restart: amy creates a private game", amy.text()):
            return
        bo = ct.Plain(proxy.port, "bo", ["join", m.group(2)], os.path.join(tmp, "bo"))
        cy = ct.Plain(proxy.port, "cy", ["watch", m.group(2)], os.path.join(tmp, "cy"))
        tap.check(bo.expect(r"^joined game", 10) and cy.expect(r"^watching game %s"
                                                                % m.group(1), 10),
                  "restart: bo joins and cy watches by the invite code", cy.text())
        amy.send("moves")
        first = amy.expect(r"^legal moves for black \(\d+\): (\S+)", 10).group(1)
        amy.send(first)
        tap.check(cy.expect(r"^move 1: black %s" % first, 10), "cy sees the first move",
                  cy.text())
        server.stop()
        proxy.cut()
        os.remove(server.port_file)
        server = ct.Server(tmp)
        proxy.upstream = server.port
        tap.check(amy.expect(r"Reconnected: back at game", 20) and
                  cy.expect(r"Reconnected: watching game %s again" % m.group(1), 20),
                  "after a restart the players resume and the spectator watches again",
                  cy.text())
        tap.check(not cy.seen(r"game is lost|is gone"), "the spectator is not told the game "
                  "is lost", cy.text())
        tap.check(re.search(r"^reconnected to 127\.0\.0\.1:\d+ as cy\n"
                            r"Reconnected: watching game %s again\.$" % m.group(1),
                            cy.text(), re.M),
                  "the reconnected line comes first, then what the reconnection brought back",
                  cy.text())
        bo.send("moves")
        second = bo.expect(r"^legal moves for white \(\d+\): (\S+)", 10).group(1)
        bo.send(second)
        tap.check(cy.expect(r"^move 2: white %s" % second, 10),
                  "cy sees the moves after the restart", cy.text())
        for p in (amy, bo, cy):
            p.close()
    finally:
        proxy.close()
        server.stop()
        ct.cleanup(tmp)


def fake_server(messages, typed):
    """Run hokito --plain against a fake server on loopback that sends messages (after the
    client's hello) and closes after 3 s; typed is its standard input, written after 2 s.
    Returns what it printed."""
    fake = ct.FakeServer(messages, 3)
    tmp = ct.tmpdir()  # the session token it stores goes here, not to the user's own state
    proc = subprocess.Popen([ct.HOKITO, "--plain", "--port", str(fake.port),
                             "--name", "eve", "--new-session"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, XDG_STATE_HOME=tmp))
    time.sleep(2)  # input stays open while the server talks (and a clock runs)
    out, _ = proc.communicate(typed, timeout=15)
    fake.close()
    ct.cleanup(tmp)
    return out


WELCOME = {"type": "welcome", "protocol": 1, "player": {"id": "p1", "name": "eve"}, "token": "t"}


def test_hostile_text(tap):
    """Control characters from a (broken or hostile) server never reach the terminal raw."""
    start = subprocess.run([ct.ENGINE, "start", "--seed", "3"], capture_output=True, text=True,
                           timeout=10).stdout.strip()
    out = fake_server((WELCOME,
                       {"type": "state", "game": "g1", "kind": "hokito", "variant": "standard",
                        "status": "live", "you": "white", "position": start, "moves": [],
                        "seq": 1,
                        "players": {"black": {"name": "\x1b]0;pwned\x07bad", "connected": True},
                                    "white": {"name": "eve", "connected": True}}},
                       {"type": "chat", "game": "g1", "seq": 2, "player": {"name": "bad"},
                        "text": "\x1b[2Jhi\r\nyour turn (white)"}), "")
    tap.check("chat: bad" in out and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", out)
              and not re.search(r"^your turn \(white\)", out, re.M),
              "control characters in names and chat are printed as '?', never raw", repr(out))


def test_hostile_numbers(tap):
    """Numbers from a (broken or hostile) server that no real one sends are shown sanely."""
    out = fake_server((WELCOME,
                       {"type": "history_page", "total": -3, "offset": 2**63 - 1,
                        "games": [{"game": "g1", "kind": "hokito", "ply": 2}]},
                       {"type": "state", "game": "g1", "kind": "hokito", "variant": "standard",
                        "status": "live", "you": "white", "moves": [], "seq": 1,
                        "clock": {"control": "5+3", "remaining": {"black": -(2**63 - 1),
                                                                   "white": 300000}}}),
                      "clock\n")
    tap.check(out.splitlines()[-1].startswith("clocks: black 0:00.0, white 5:00"),
              "a clock below zero from the server is shown as spent, however long it runs",
              repr(out))
    history = [line for line in out.splitlines() if line.startswith("history:")]
    tap.check(len(history) == 1 and "-" not in history[0],
              "a history page's absurd offset and total give no negative game numbers",
              repr(out))
    out = fake_server((WELCOME,
                       {"type": "state", "game": "g1", "kind": "hokito", "variant": "standard",
                        "status": "live", "you": "white", "moves": [], "seq": 1,
                        "clock": {"control": "5+3", "remaining": {"black": 2**63 - 1,
                                                                   "white": 2**63 - 1}}}),
                      "clock\n")
    tap.check(re.search(r"^clocks: black 2562047788015:12:5\d, white 2562047788015:12:55 ",
                        out.splitlines()[-1]),
              "a clock near INT64_MAX ms from the server is shown in hours, minutes, seconds",
              repr(out))
    out = fake_server((WELCOME,
                       {"type": "history_page", "total": 1, "offset": 0,
                        "games": [{"game": "g2", "kind": "hokito", "ply": -(2**40)}]},
                       {"type": "state", "game": "g1", "kind": "hokito", "variant": "standard",
                        "status": "live", "you": "white", "moves": [], "seq": 1},
                       {"type": "spectators", "game": "g1",
                        "spectators": {"count": 2**40 + 5, "names": ["kim"]}}), "who\n")
    history = [line for line in out.splitlines() if line.startswith("game g2 ")]
    tap.check(len(history) == 1 and history[0].endswith(", 0 moves") and
              re.search(r"^spectators: 2147483647 kim$", out, re.M),
              "absurd move and spectator counts from the server are kept within 0 .. INT32_MAX",
              repr(out))


class GiveUp:
    """A --plain client whose server goes away for good once it has been connected: it says so
    at every attempt to reconnect, then gives up with status 1 about 60 s after the loss, as
    hokito(6) says (it used to try for ever). Started first, checked last: the wait overlaps the
    other tests."""

    def __init__(self):
        self.fake = ct.FakeServer((WELCOME,), 0.5)
        self.tmp = ct.tmpdir()
        self.proc = subprocess.Popen([ct.HOKITO, "--plain", "--port", str(self.fake.port),
                                      "--name", "eve", "--new-session"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=dict(os.environ, XDG_STATE_HOME=self.tmp))
        self.first = self.proc.stdout.readline()  # connected: the fake took its one connection
        self.fake.close()  # nothing listens there any more: every attempt is refused
        self.lost = time.time()
        # the moment it exits, seen as it happens: check() may come later than that (the other
        # tests take longer under valgrind)
        self.exited = None
        self.waiter = threading.Thread(target=self.wait, daemon=True)
        self.waiter.start()

    def wait(self):
        self.proc.wait()
        self.exited = time.time()

    def check(self, tap):
        # standard input stays open (its end with nothing pending would quit with status 0)
        self.waiter.join(timeout=max(1, self.lost + 100 - time.time()))
        note = ""
        if self.exited is None:
            self.proc.kill()
            self.waiter.join()
            note = "\n(still running 100 s after the loss: killed)"
        took = self.exited - self.lost
        out = self.proc.stdout.read() + note
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.proc.stderr.close()
        ct.cleanup(self.tmp)
        lines = out.splitlines()
        tap.check(self.first.startswith("connected to") and self.proc.returncode == 1 and
                  lines and lines[-1] == "error: Cannot reconnect to 127.0.0.1:%d (connection "
                  "refused): gave up after 60 s." % self.fake.port and 59 < took < 90,
                  "the server gone for good: --plain gives up 60 s after the loss, status 1",
                  "%.1f s, status %s\n%s%s" % (took, self.proc.returncode, self.first, out))
        tap.check(len([l for l in lines if re.match(r"error: Connection lost \(.*\); "
                                                     r"reconnecting in [\d.]+ s\.\.\.$", l)])
                  >= 20, "and it says so at every attempt until then", out)


def test_busy_server(tap):
    """A server with 130 games in its lobby and a game whose chat and spectators' kibitz fill
    their rings with long lines: the lobby's first page and how many games there are in all, and
    a spectator's state of some 90 KB (the client once refused the server's lines over 64 KiB
    and reconnected in a loop, lobby and game alike)."""
    tmp = ct.tmpdir()
    srv = ct.Server(tmp, ["--test-clock"])
    socks = []
    try:
        for i in range(130):
            c = Client("127.0.0.1", srv.port)
            c.hello("host%d" % i)
            r, _ = c.request({"type": "create", "kind": "hokito"})
            assert r["type"] == "state", r
            socks.append(c)
        bob = Client("127.0.0.1", srv.port)
        bob.hello("bob")
        r, _ = bob.request({"type": "join", "game": "g1"})
        assert r["type"] == "state", r
        socks.append(bob)
        text = "\U0001d11e" * 200  # 200 characters of 4 bytes: the longest chat line
        for k in range(5):  # 5 lines each per 10 s: the rate limit, stepped over by test_clock
            for _ in range(5):
                for c in (socks[0], bob):
                    r, _ = c.request({"type": "say", "text": text})
                    assert r["type"] == "ok", r
            r, _ = bob.request({"type": "test_clock", "advance_ms": 10001})
            assert r["type"] == "ok", r
        for i in range(10):
            w = Client("127.0.0.1", srv.port)
            w.hello("kibitzer%d" % i)
            r, _ = w.request({"type": "watch", "game": "g1"})
            assert r["type"] == "state", r
            for _ in range(5):
                r, _ = w.request({"type": "say", "text": text})
                assert r["type"] == "ok", r
            socks.append(w)
        p = ct.Plain(srv.port, "lister", [], os.path.join(tmp, "lister"))
        p.send("list")
        tap.check(p.expect(r"^games: 100 \(1 to 100 of 130\)$", 10) and
                  p.expect(r"^game g101 hokito standard open ", 10) and
                  "game g102 " not in p.text(),
                  "130 games: the first 100 (the open ones g2 to g101) are listed, and how many there are",
                  p.text())
        p.send("list 100")
        tap.check(p.expect(r"^games: 30 \(101 to 130 of 130\)$", 10) and
                  p.expect(r"^game g1 hokito standard live (host0 \(guest\) vs bob \(guest\)|bob \(guest\) vs host0 \(guest\))", 10),
                  "list 100: the second page, the live game last", p.text())
        p.send("watch g1")
        tap.check(p.expect(r"^watching game g1", 10) and "over the limit" not in p.text(),
                  "a spectator's state of 50 chat and 50 kibitz lines of 800 bytes is taken",
                  p.text())
        tap.check(p.close() == 0, "the lister ends cleanly")
    finally:
        for c in socks:
            c.close()
        srv.stop()
        ct.cleanup(tmp)


def test_idle(tap):
    """A client left at no game past the server's --idle-timeout is closed with bye "idle": it
    says so and waits for its user instead of coming straight back (which would hold the
    connection the timeout freed); the next command reconnects it, to the same session."""
    tmp = ct.tmpdir()
    srv = ct.Server(tmp, ["--idle-timeout", "1"])
    log = os.path.join(tmp, "hokitod.log")

    def hellos():
        with open(log) as f:
            text = f.read()
        return text.count("(idler) said hello") + text.count("(idler) resumed")
    p = ct.Plain(srv.port, "idler", [], os.path.join(tmp, "idler"))
    try:
        tap.check(p.expect(r"Disconnected after a long time idle at no game: type a command "
                           r"to reconnect\.", 10),
                  "--plain: closed as idle, the client says so and how to come back", p.text())
        time.sleep(2.5)
        tap.check(hellos() == 1, "and does not reconnect by itself", open(log).read()[-600:])
        p.send("list")
        tap.check(p.expect(r"^games: ", 10) and wait_for_hellos(hellos, 2),
                  "a command reconnects it and runs", p.text())
    finally:
        p.close()
        srv.stop()
        ct.cleanup(tmp)


def wait_for_hellos(hellos, n):
    return ct.wait_for(lambda: hellos() >= n, 5)


def main(tap):
    tmp = ct.tmpdir()
    server = ct.Server(tmp)
    give_up = GiveUp()
    try:
        test_cli(tap)
        test_hokito_game(tap, server.port, tmp)
        test_oxono_game(tap, server.port, tmp)
        test_quick(tap, server.port, tmp)
        test_eof(tap, server.port, tmp)
        test_restart(tap)
        test_hostile_text(tap)
        test_hostile_numbers(tap)
        test_busy_server(tap)
        test_idle(tap)
        give_up.check(tap)
    finally:
        server.stop()
        ct.cleanup(tmp)


if __name__ == "__main__":
    ct.main_guard(main)
