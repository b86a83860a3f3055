#!/usr/bin/env python3
"""test-client-match.py: match management in the hokito client, against a real hokitod run with
--test-clock (its game time moves only when the test says so, through a protocol connection).

--plain: a game with a 5+3 clock (the clocks printed after each move, the increment), players'
chat and spectators' chat apart, a draw offer declined, loss on time, a rematch with colours
swapped. Full screen in tmux: both clocks on screen and the low-time warning, the chat pane, the
grace countdown of a dropped opponent, a draw offer accepted with a key; and after a restart of
the server (killed, down a while), the clocks as the server has them. TAP on stdout.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clienttest as ct  # noqa: E402
import serverlib  # noqa: E402

GRACE = 30


class Clock:
    """A protocol connection that moves the server's test clock."""

    def __init__(self, port):
        self.c = serverlib.Client("127.0.0.1", port)
        self.c.hello("clock")

    def advance(self, ms):
        r, _ = self.c.request({"type": "test_clock", "advance_ms": ms})
        assert r["type"] == "ok", r

    def game_id(self, player):
        r, _ = self.c.request({"type": "list"})
        for g in r["games"]:
            if any(p and p["name"] == player for p in g["players"].values()):
                return g["game"]
        return None


def legal_move(player, kind="hokito"):
    player.send("position")
    m = player.expect(r"^position: (.*)$", 10)
    return ct.legal_moves(kind, m.group(1))[0] if m else None


def test_plain(tap, port, tmp, clock):
    alice = ct.Plain(port, "alice", ["create", "hokito", "--seat", "black", "--clock", "5+3"],
                     os.path.join(tmp, "alice"))
    m = alice.expect(r"^joined game (g\d+) \(hokito standard\) as black", 10)
    tap.check(m and alice.expect(r"^clocks: black 5:00, white 5:00 \(5\+3\)$", 5),
              "plain: a game with a clock shows both clocks", alice.text())
    if not m:
        return
    gid = m.group(1)
    bob = ct.Plain(port, "bob", [], os.path.join(tmp, "bob"))
    bob.send("list")
    tap.check(bob.expect(r"^game %s hokito standard open alice \(guest\) vs -, move 0, spectators 0, "
                         r"clock 5\+3$" % gid, 10),
              "plain: the lobby list gives a game's time control", bob.text())
    bob.send("join " + gid)
    carol = ct.Plain(port, "carol", ["watch", gid], os.path.join(tmp, "carol"))
    tap.check(bob.expect(r"^joined game %s .* as white" % gid, 10) and
              carol.expect(r"^watching game %s" % gid, 10), "bob joins, carol watches")
    alice.expect(r"^your turn", 10)
    clock.advance(12000)
    mv = legal_move(alice)
    alice.send(mv)
    tap.check(alice.expect(r"^clocks: black 4:51, white 5:00 \(5\+3\)$", 10) and
              carol.expect(r"^clocks: black 4:51, white 5:00", 10),
              "after the move: 12 s spent, 3 s increment", alice.text()[-600:])
    bob.send("say hi alice, good luck")
    tap.check(alice.expect(r"^chat: bob \(white\): hi alice, good luck$", 10) and
              carol.expect(r"^chat: bob \(white\): hi alice, good luck$", 10),
              "players' chat reaches the opponent and the spectators")
    carol.send("say white is in trouble")
    tap.check(carol.expect(r"^kibitz: carol: white is in trouble$", 10),
              "spectators' chat reaches the spectators", carol.text()[-400:])
    # a draw once both sides have moved: bob, then alice (no time spent: 4:54 and 5:03)
    bob.expect(r"^your turn", 10)
    bob.send(legal_move(bob))
    alice.expect(r"^your turn", 10)
    alice.send(legal_move(alice))
    bob.expect(r"^your turn", 10)
    bob.send("draw")
    tap.check(alice.expect(r"^draw offer from white: type accept or decline$", 10),
              "a draw offer is shown with the commands that answer it", alice.text()[-400:])
    tap.check(bob.expect(r"^You offer a draw: waiting for alice to answer\.$", 10),
              "the offerer is told the offer waits for the opponent", bob.text()[-400:])
    alice.send("decline")
    tap.check(bob.expect(r"alice declines the draw", 10), "the decline reaches the offerer",
              bob.text()[-400:])
    tap.check(not alice.seen(r"kibitz") and not bob.seen(r"kibitz"),
              "players never see the spectators' chat")
    for _ in range(3):
        bob.send("say spam")
    bob.send("say spam")
    bob.send("say spam")
    tap.check(bob.expect(r"^error: at most 5 chat lines in 10 seconds", 10),
              "the rate limit is reported as an error", bob.text()[-400:])
    clock.advance(304000)
    tap.check(alice.expect(r"^game over: Black wins on time \(score: black \d+, white \d+\)\. "
                           r"White ran out of time\.$", 10)
              and bob.expect(r"^game over: .*White ran out of time", 10)
              and bob.expect(r"^clocks: black 4:54, white 0:00\.0", 5),
              "the flag falls: loss on time", bob.text()[-600:])
    alice.send("rematch")
    tap.check(bob.expect(r"^rematch offer from black: type accept or decline$", 10),
              "the rematch offer is shown", bob.text()[-400:])
    bob.send("accept")
    ma = alice.expect(r"^joined game (g\d+) \(hokito standard\) as white", 10)
    mb = bob.expect(r"^joined game (g\d+) \(hokito standard\) as black", 10)
    tap.check(ma and mb and ma.group(1) == mb.group(1) != gid,
              "the rematch: a new game with colours swapped", alice.text()[-800:])
    tap.check(ma and carol.expect(r"^The rematch is game %s \(watch %s to follow it\)\.$"
                                  % (ma.group(1), ma.group(1)), 10),
              "plain: the spectator is told of the rematch and how to follow it",
              carol.text()[-500:])
    tap.check(bob.expect(r"^clocks: black 5:00, white 5:00 \(5\+3\)$", 5),
              "with the same clock")
    bob.send("abort")
    tap.check(alice.expect(r"^game over: No result\. The game was aborted\.$", 10),
              "plain: abort (no result, not a draw, said once)", alice.text()[-300:])
    for p in (alice, bob, carol):
        p.send("leave")
        p.send("quit")
    tap.check(all(p.close() == 0 for p in (alice, bob, carol)), "the plain clients end cleanly")


def test_claim(tap, port, tmp, clock):
    """--plain: the claim command. Refused by the server while the opponent's grace runs, then
    the win once it has run out."""
    una = ct.Plain(port, "una", ["create", "hokito", "--seat", "black", "--clock", "5+3"],
                   os.path.join(tmp, "una"))
    m = una.expect(r"^joined game (g\d+) \(hokito standard\) as black", 10)
    if not tap.check(m, "claim: una creates a game with a clock", una.text()):
        return
    vic = ct.Plain(port, "vic", ["join", m.group(1)], os.path.join(tmp, "vic"))
    tap.check(vic.expect(r"^joined game %s .* as white" % m.group(1), 10) and
              una.expect(r"^your turn \(black\)", 10), "claim: vic joins, una to move",
              vic.text())
    una.close()  # drops on her own turn: her grace runs
    vic.send("claim win")
    tap.check(vic.expect(r"^error: Nothing to claim: a claim needs una away past the grace "
                         r"period \(without a clock, past the wait after the adjournment\)\.$",
                         10) and
              not vic.seen(r"usage: claim"),
              "claim win is sent; the server's refusal while the grace runs is said with una's "
              "name", vic.text())
    clock.advance(GRACE * 1000 + 1000)
    tap.check(vic.expect(r"una did not come back in time: you may claim the win or a draw", 10),
              "the grace runs out: vic may claim", vic.text())
    vic.send("claim win")
    tap.check(vic.expect(r"^game over: White wins.*Black left and did not come back in time\.$",
                         10), "claim win: the game is won", vic.text())
    vic.send("rematch")
    tap.check(vic.expect(r"^error: una has left the game: there is nobody to play a rematch "
                         r"with here\.$", 10),
              "a rematch with the player gone is refused with the player's name", vic.text())
    vic.send("quit")
    tap.check(vic.close() == 0, "vic ends cleanly")


def test_plain_resume(tap, port, tmp):
    """--plain back at a game whose clock runs: it takes the game's state, and prints what it
    missed from it as it would have printed the events: the opponent's move once, its clocks
    and the turn."""
    proxy = ct.Proxy(port)
    try:
        ida = ct.Plain(proxy.port, "ida", ["create", "hokito", "--seat", "black", "--clock",
                                           "5+3"], os.path.join(tmp, "ida"))
        m = ida.expect(r"^joined game (g\d+)", 10)
        if not tap.check(m, "resume: ida creates a timed game", ida.text()):
            return
        jon = ct.Plain(port, "jon", ["join", m.group(1)], os.path.join(tmp, "jon"))
        ida.expect(r"^your turn", 10)
        ida.send(legal_move(ida))
        jon.expect(r"^your turn", 10)
        proxy.hold()  # ida is away
        tap.check(ida.expect(r"reconnect", 10), "resume: ida's connection is lost", ida.text())
        mv = legal_move(jon)
        jon.send(mv)
        tap.check(jon.expect(r"^move 2: white %s$" % re.escape(mv), 10), "jon plays", jon.text())
        ida.pos = len(ida.lines)
        proxy.release()
        tap.check(ida.expect(r"^reconnected to", 20) and
                  ida.expect(r"^move 2: white %s$" % re.escape(mv), 10) and
                  ida.expect(r"^clocks: black 5:03, white 5:03 \(5\+3\)$", 10) and
                  ida.expect(r"^your turn \(black\)", 10),
                  "resume: the missed move is printed, with the clocks and the turn",
                  ida.text()[-800:])
        time.sleep(0.5)
        tap.check(len([l for l in ida.lines if re.match(r"^move 2: ", l)]) == 1 and
                  not [l for l in ida.lines if l.startswith("joined game")][1:],
                  "resume: nothing is printed twice (the move, the game joined)",
                  ida.text()[-800:])
        for p in (ida, jon):
            p.send("resign")
            p.send("quit")
            p.close()
    finally:
        proxy.close()


def test_adjourned(tap, port, tmp, clock):
    """A game without a clock whose dropped player's grace runs out is adjourned: the panel says
    the grace is over (not the grace it had), and the bar offers no draw (none is taken)."""
    tmux = ct.Tmux("adjourn")
    env = {"XDG_STATE_HOME": os.path.join(tmp, "amos"), "TERM": "xterm-256color",
           "LANG": "C.UTF-8"}
    try:
        tmux.start("amos", "%s --port %d --name amos create --seat white" % (ct.HOKITO, port),
                   env, 80, 24)
        tmux.expect("amos", r"Waiting for an opponent", 10)
        bea = ct.Plain(port, "bea", ["join", clock.game_id("amos")], os.path.join(tmp, "bea"))
        tap.check(bea.expect(r"^your turn \(black\)", 10), "adjourned: bea joins, her turn",
                  bea.text())
        bea.close()
        tap.check(tmux.expect("amos", r"offline, %d s grace" % GRACE, 10),
                  "adjourned: bea drops on her turn", tmux.capture("amos"))
        clock.advance(GRACE * 1000 + 1000)
        tap.check(tmux.expect("amos", r"Adjourned", 10) and
                  tmux.expect("amos", r"offline, grace over", 5) and
                  not re.search(r"s grace", tmux.capture("amos")),
                  "adjourned: the panel says her grace is over", tmux.capture("amos"))
        bar = tmux.capture("amos").rstrip("\n").split("\n")[-1]
        tap.check(" resign" in bar and " draw" not in bar and "claim" not in bar,
                  "adjourned: the bar offers resign, not a draw nor a claim yet", bar)
        # --adjourn-claim (300 s by default) later the game may be claimed
        clock.advance(300 * 1000)
        tap.check(tmux.expect("amos", r"did not come back in time: you may claim", 10),
                  "adjourned: after the wait the notice offers the claim", tmux.capture("amos"))
        bar = tmux.capture("amos").rstrip("\n").split("\n")[-1]
        tap.check("c claim win" in bar and "C claim draw" in bar,
                  "adjourned: the bar offers c/C claim", bar)
        tmux.keys("amos", "c")
        tap.check(tmux.expect("amos", r"Game over", 10),
                  "adjourned: c claims the win", tmux.capture("amos"))
        tmux.keys("amos", "Q")
        tmux.expect("amos", r"HOKITO-EXIT=0", 5)
    finally:
        tmux.kill()


def test_screen(tap, port, tmp, clock):
    tmux = ct.Tmux("match")
    stderr = os.path.join(tmp, "alice-screen.stderr")
    env = {"XDG_STATE_HOME": os.path.join(tmp, "alice2"), "TERM": "xterm-256color",
           "LANG": "C.UTF-8"}
    try:
        tmux.start("alice", "%s --port %d --name ann create --seat black --clock 5+3"
                   % (ct.HOKITO, port), env, 100, 30, stderr=stderr)
        tap.check(tmux.expect("alice", r"Waiting for an opponent", 10),
                  "screen: the game is created", tmux.capture("alice"))
        gid = clock.game_id("ann")
        bob_home = os.path.join(tmp, "bob2")
        bob = ct.Plain(port, "ben", ["join", gid], bob_home)
        tap.check(tmux.expect("alice", "\u23f1 [45]:[0-5]\\d.*\u23f1 5:00", 10),
                  "screen: both clocks are shown", tmux.capture("alice"))
        # the client counts the running clock down on its own (real) time
        tap.check(tmux.expect("alice", "\u23f1 4:5\\d.*\u23f1 5:00", 8),
                  "screen: the running clock counts down", tmux.capture("alice"))
        # and goes on counting down while a move is being typed
        tmux.keys("alice", ":")
        tap.check(tmux.expect("alice", r" Move:", 5), "screen: the move prompt opens",
                  tmux.capture("alice"))
        shown = re.search("\u23f1 (\\d:\\d\\d)", tmux.capture("alice")).group(1)
        tap.check(ct.wait_for(lambda: " Move:" in tmux.capture("alice") and
                              re.search("\u23f1 (\\d:\\d\\d)",
                                        tmux.capture("alice")).group(1) != shown, 8),
                  "screen: the running clock counts down while a move is typed",
                  tmux.capture("alice"))
        clock.advance(285000)
        mv = legal_move(bob)
        tmux.literal("alice", mv)
        tmux.keys("alice", "Enter")
        tap.check(bob.expect(r"^move 1: black ", 10), "screen: the move is played",
                  tmux.capture("alice"))
        tap.check(tmux.expect("alice", "\u23f1 0:18  low time!", 5),
                  "screen: a clock under 20 s is shown with a low-time warning",
                  tmux.capture("alice"))
        bob.send("say nice one")
        tap.check(tmux.expect("alice", r"Chat.*ben: nice one", 10),
                  "screen: the chat pane shows the players' chat", tmux.capture("alice"))
        # A chat line longer than the pane is wide wraps at spaces in the pane, whole, and is
        # on the status line too (its first words, from the start of the line).
        said = "this line is longer than the chat pane is wide, " * 3 + "so it wraps: the end"
        bob.send("say " + said)

        def pane_rows():
            rows = [l[42:].strip() for l in tmux.capture("alice").splitlines()]
            start = [i for i, l in enumerate(rows) if l.startswith("ben: this line")]
            end = [i for i, l in enumerate(rows)
                   if l.endswith("so it wraps: the end") and start and i > start[0]]
            return rows[start[0]:end[0] + 1] if end else []

        tap.check(ct.wait_for(lambda: " ".join(pane_rows()) == "ben: " + said, 10) and
                  all(len(r) <= 57 for r in pane_rows()),
                  "screen: a long chat line wraps at spaces in the chat pane, whole",
                  tmux.capture("alice"))
        tap.check(any(l.startswith(" ben: this line is longer")
                      for l in tmux.capture("alice").splitlines()),
                  "screen: the opponent's chat line is on the status line too",
                  tmux.capture("alice"))
        # Text without spaces in a wide script breaks between its characters, not after the
        # name: the first row is full.
        cjk = "\u65e5\u672c\u8a9e\u306e\u30c1\u30e3\u30c3\u30c8" * 6
        bob.send("say " + cjk)

        def cjk_rows():
            rows = [l[42:].strip() for l in tmux.capture("alice").splitlines()]
            start = [i for i, l in enumerate(rows) if l.startswith("ben: \u65e5")]
            return rows[start[0]:start[0] + 3] if start else []

        tap.check(ct.wait_for(lambda: "".join(cjk_rows()) == "ben: " + cjk, 10),
                  "screen: a chat line of wide characters without spaces wraps between them, "
                  "its name on its first row", tmux.capture("alice"))
        # A chat line is typed whole: any characters, as long as the server takes (200), the
        # end of it on screen as it grows past the edge.
        line = "caf\u00e9 \u00fcber " + "x" * 150 + " fin"
        tmux.keys("alice", "t")
        tmux.literal("alice", line)
        typed = ct.wait_for(lambda: [l for l in tmux.capture("alice").splitlines()
                                     if l.startswith(" Say:") and l.endswith("x fin")], 5)
        tap.check(typed and "caf" not in typed[0],
                  "screen: a chat line longer than the screen shows its end as it is typed",
                  tmux.capture("alice"))
        tmux.keys("alice", "Enter")
        tap.check(bob.expect(r"^chat: ann \(black\): %s$" % re.escape(line), 10),
                  "screen: a long chat line with accented letters is sent whole", bob.text())
        bob.close()
        tap.check(tmux.expect("alice", r"offline, %d s grace" % GRACE, 10),
                  "screen: the dropped opponent's grace period", tmux.capture("alice"))
        # the client counts down on its own (real) time from the value it was sent
        tap.check(tmux.expect("alice", r"offline, 2\d s grace", 8),
                  "screen: the grace counts down on the opponent's turn", tmux.capture("alice"))
        bob = ct.Plain(port, "ben", [], bob_home)
        tap.check(bob.expect(r"^(connected|reconnected) to", 10) and
                  tmux.expect("alice", r"ben is back", 10), "the opponent comes back",
                  tmux.capture("alice"))
        # Dropped on the other side's turn, the grace waits; once the turn is its own it counts
        # down from there, not from the moment it dropped.
        bob.send(legal_move(bob))
        tap.check(bob.expect(r"^move 2: white ", 10), "bob plays the second move", bob.text())
        mv = legal_move(bob)
        bob.close()
        tap.check(tmux.expect("alice", r"offline, %d s grace" % GRACE, 10),
                  "screen: the opponent drops on our turn", tmux.capture("alice"))
        time.sleep(6)
        tap.check(re.search(r"offline, %d s grace" % GRACE, tmux.capture("alice")),
                  "screen: the grace waits while it is our turn", tmux.capture("alice"))
        tmux.keys("alice", ":")
        tmux.literal("alice", mv)
        tmux.keys("alice", "Enter")
        tap.check(tmux.expect("alice", r"You played %s\." % mv, 10) and
                  tmux.expect("alice", r"offline, (%d|%d|%d) s grace" %
                              (GRACE, GRACE - 1, GRACE - 2), 3),
                  "screen: on the opponent's turn its grace counts down from where it stood, "
                  "not less the time we thought", tmux.capture("alice"))
        bob = ct.Plain(port, "ben", [], bob_home)
        tap.check(bob.expect(r"^(connected|reconnected) to", 10) and
                  bob.expect(r"^your turn", 10), "the opponent comes back again",
                  bob.text())
        bob.send("draw")
        tap.check(tmux.expect("alice", r"White offers a draw: a accept, x decline", 10),
                  "screen: the draw offer with its keys", tmux.capture("alice"))
        tmux.keys("alice", "a")
        tap.check(tmux.expect("alice", r"Drawn by agreement", 10) and
                  bob.expect(r"^game over: Draw.*Drawn by agreement", 10),
                  "screen: a accepts the draw", tmux.capture("alice"))
        tmux.keys("alice", "Q")
        tap.check(tmux.expect("alice", r"HOKITO-EXIT=0", 10), "screen: Q quits cleanly",
                  tmux.capture("alice"))
        bob.send("quit")
        bob.close()
        report = open(stderr, errors="replace").read() if os.path.exists(stderr) else ""
        tap.check(not re.search(r"Sanitizer|runtime error", report),
                  "no sanitizer reports from the screen client", report[-2000:])
    finally:
        tmux.kill()


def test_restart_clock(tap):
    """The server is killed during a timed game and is down for ten seconds: time does not run
    while it is down (PROTOCOL.md 12.1), so the full screen and --plain, back at their game,
    show the clock of the side to move as the server has it, not short by the downtime."""
    tmp = ct.tmpdir()
    # game time stands still but for test_clock; clocks run from the start (no first-move timer)
    server = ct.Server(tmp, ["--test-clock", "--first-move", "0"])
    proxy = ct.Proxy(server.port)
    tmux = ct.Tmux("match-restart")
    env = {"XDG_STATE_HOME": os.path.join(tmp, "ada"), "TERM": "xterm-256color",
           "LANG": "C.UTF-8"}
    ben = None
    try:
        tmux.start("ada", "%s --port %d --name ada create --seat black --clock 5+3"
                   % (ct.HOKITO, proxy.port), env, 100, 30)
        if not tap.check(tmux.expect("ada", r"Waiting for an opponent", 10),
                         "restart: the timed game is created", tmux.capture("ada")):
            return
        clock = Clock(server.port)
        gid = clock.game_id("ada")
        clock.c.close()
        ben = ct.Plain(proxy.port, "ben", ["join", gid], os.path.join(tmp, "ben"))
        tap.check(ben.expect(r"^joined game %s" % gid, 20) and
                  tmux.expect("ada", "\u23f1 [45]:[0-5]\\d.*\u23f1 5:00", 10),
                  "restart: ben joins; both clocks, black's running", tmux.capture("ada"))
        server.proc.kill()
        server.proc.wait()
        server.stop()
        proxy.hold()
        os.remove(server.port_file)
        time.sleep(10)
        server = ct.Server(tmp, ["--test-clock", "--first-move", "0"])
        proxy.upstream = server.port
        proxy.release()
        # by now black's clock reads 4:50 or less on screen until the client is back; then
        # 5:00 (the test clock stood still) and counting down from there
        tap.check(tmux.expect("ada", "\u23f1 (5:00|4:5[5-9]).*\u23f1 5:00", 20),
                  "after ten seconds down, black's clock is where the server left it (5:00 "
                  "while the test clock stands), not 10 s short", tmux.capture("ada"))
        # and so does --plain (ben, white, through the same relay)
        tap.check(ben.expect(r"^reconnected to", 20), "restart: --plain is back",
                  ben.text()[-500:])
        ben.pos = len(ben.lines)
        ben.send("clock")
        tap.check(ben.expect(r"^clocks: black (5:00|4:5[5-9]), white 5:00", 10),
                  "--plain after the restart: black's clock where the server left it, not "
                  "10 s short", ben.text()[-500:])
    finally:
        if ben is not None:
            ben.close()
        tmux.kill()
        proxy.close()
        server.stop()
        ct.cleanup(tmp)


def main(tap):
    tmp = ct.tmpdir()
    server = ct.Server(tmp, ["--test-clock", "--grace", str(GRACE), "--first-move", "0"])
    clock = Clock(server.port)
    try:
        test_plain(tap, server.port, tmp, clock)
        test_claim(tap, server.port, tmp, clock)
        test_plain_resume(tap, server.port, tmp)
        test_adjourned(tap, server.port, tmp, clock)
        test_screen(tap, server.port, tmp, clock)
        test_restart_clock(tap)
    finally:
        clock.c.close()
        server.stop()
        ct.cleanup(tmp)


if __name__ == "__main__":
    ct.main_guard(main)
