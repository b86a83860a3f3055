#!/usr/bin/env python3
"""test-client-screen-replay.py: the full-screen client's history and replay, in tmux.

Two protocol clients finish a HOKITO game of six moves, then 21 more games end at once, so that
the first game is on the second history page. In the lobby, h opens the history: its first page,
n the next one (by key: the server takes no offset here), p back; Enter on the game replays it: the start, a step forward with the move highlighted
in the move list, G and g (the end, the start), back. Each position's evaluation is shown and is what
`hokito-engine analyse --depth 4` says of it. Then the create form starts a game against the
computer at level 2 (a private game), the player resigns, and v on the game-over screen replays
that game; an aborted game's replay has no result. TAP on stdout; a private tmux server, killed
at the end.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clienttest as ct  # noqa: E402
import serverlib  # noqa: E402

COLS, ROWS = 100, 34
EVAL_DEPTH = 4  # client.h's CLIENT_EVAL_DEPTH


def finish_game(port, names, moves, seed=11):
    """Two protocol clients play moves moves, then the first resigns. Returns (game,
    [(move, position after it)]); with moves 0 the game ends at once."""
    a = serverlib.Client("127.0.0.1", port)
    b = serverlib.Client("127.0.0.1", port)
    a.hello(names[0])
    b.hello(names[1])
    st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": seed})
    g = st["game"]
    b.request({"type": "join", "game": g})
    played = [(None, st["position"])]
    for i in range(moves):
        c = (a, b)[i % 2]
        yt = c.wait_for("your_turn")
        mv = yt["moves"][(i * 5 + 1) % len(yt["moves"])]
        r, others = c.request({"type": "move", "move": mv})
        moved = [m for m in others if m.get("type") == "moved"][-1]
        played.append((moved["move"], moved["position"]))
    a.request({"type": "resign"})
    a.close()
    b.close()
    return g, played


def expected_eval(position):
    """The evaluation line the replay should show, from hokito-engine analyse at the same depth."""
    r = subprocess.run([ct.ENGINE, "analyse", "--game", "hokito", "--depth", str(EVAL_DEPTH),
                        position], capture_output=True, text=True, timeout=60)
    m = re.search(r"^score: ([+-]\d+\.\d+)", r.stdout, re.M)
    if not m:
        return None
    v = float(m.group(1))
    if position.endswith(" w"):
        v = -v  # the engine speaks for the side to move; the replay for black
    if v == 0:
        return "even"
    return "%s ahead by %.2f" % ("Black" if v > 0 else "White", abs(v))


def main(tap):
    tmp = ct.tmpdir()
    # no history offset at all: the screen's pages must go by key (after), as deep pages must
    server = ct.Server(tmp, ("--max-history-offset", "0"))
    tmux = ct.Tmux("replay")
    err = os.path.join(tmp, "rita.stderr")
    try:
        g, played = finish_game(server.port, ("ann", "ben"), 6)
        for i in range(21):
            finish_game(server.port, ("x%d" % i, "y%d" % i), 2, seed=100 + i)
        # the plain client pages the same history by key too: history, then history next
        pl = ct.Plain(server.port, "pia", [], os.path.join(tmp, "pia"))
        try:
            pl.send("history")
            first = pl.expect(r"^history: games 1 to 10 of 22 finished \(more: history next\)$")
            pl.send("history next")
            second = pl.expect(r"^history: games 11 to 20 of 22 finished \(more: history next\)$")
            pl.send("history next")
            last = (pl.expect(r"^history: games 21 to 22 of 22 finished$") and
                    pl.expect(r"^game %s hokito ann \(guest\) vs ben \(guest\)" % g))
            pl.send("history next")
            none = pl.expect(r"^error: history: no next page")
            pl.send("history 10")
            deep = pl.expect(r"offset at most 0: page deeper with after")
            tap.check(first and second and last and none and deep,
                      "--plain: history next pages by key to the oldest game and says when there "
                      "is no next page; an offset past the server's cap is refused", pl.text())
        finally:
            pl.close()
        env = {"XDG_STATE_HOME": os.path.join(tmp, "rita"), "TERM": "xterm-256color",
               "LANG": "C.UTF-8"}
        tmux.start("rita", "%s --port %d --name rita" % (ct.HOKITO, server.port), env, COLS,
                   ROWS, stderr=err)
        tap.check(tmux.expect("rita", r"Games on this server.*h +history", 10),
                  "the lobby shows the history key", tmux.capture("rita"))
        tmux.keys("rita", "h")
        tap.check(tmux.expect("rita", r"Finished games +1 to 20 of 22, most recent first", 10),
                  "h: the first page of the history", tmux.capture("rita"))
        tmux.keys("rita", "n")
        tap.check(tmux.expect("rita", r"21 to 22 of 22.*%s +hokito ann \(guest\) vs "
                              r"ben \(guest\): white wins \(resign\), 6 moves" % g, 10),
                  "n: the next page holds the oldest game", tmux.capture("rita"))
        tmux.keys("rita", "p")
        tap.check(tmux.expect("rita", r"1 to 20 of 22", 10), "p: back to the first page",
                  tmux.capture("rita"))
        tmux.keys("rita", "p")
        tap.check(tmux.expect("rita", r"1 to 20 of 22.*No newer games: this is the first page\.",
                              5), "p on the first page says so", tmux.capture("rita"))
        tmux.keys("rita", "n")
        tmux.expect("rita", r"21 to 22 of 22", 10)
        tap.check("No newer games" not in tmux.capture("rita"),
                  "a new page clears the last page's notice", tmux.capture("rita"))
        tmux.keys("rita", "n")
        tap.check(tmux.expect("rita", r"21 to 22 of 22.*No older games: this is the last page\.",
                              5), "n on the last page says so", tmux.capture("rita"))
        tmux.keys("rita", "Down", "Enter")
        tap.check(tmux.expect("rita", r"Replay of game %s.*Move 0 of 6: the start" % g, 10),
                  "Enter: the replay opens at the start", tmux.capture("rita"))
        want = expected_eval(played[0][1])
        tap.check(want is not None and
                  tmux.expect("rita", r"Eval: %s\s.*best \S+, depth %d" %
                              (re.escape(want), EVAL_DEPTH), 30),
                  "the start position's evaluation: %s" % want, tmux.capture("rita"))
        tmux.keys("rita", "Right")
        tap.check(tmux.expect("rita", r"Move 1 of 6: Black %s.*\b1 +\[%s\]" %
                              (re.escape(played[1][0]), re.escape(played[1][0])), 10),
                  "Right: one move on, highlighted in the move list", tmux.capture("rita"))
        tmux.keys("rita", "Right", "Right")
        want = expected_eval(played[3][1])
        tap.check(tmux.expect("rita", r"Move 3 of 6: Black %s" % re.escape(played[3][0]), 10)
                  and tmux.expect("rita", r"Eval: %s\s" % re.escape(want), 30),
                  "move 3 and its evaluation: %s" % want, tmux.capture("rita"))
        tmux.keys("rita", "Left")
        tap.check(tmux.expect("rita", r"Move 2 of 6: White %s.*\[%s\]" %
                              (re.escape(played[2][0]), re.escape(played[2][0])), 10),
                  "Left: one move back", tmux.capture("rita"))
        tmux.keys("rita", "]")
        tap.check(tmux.expect("rita", r"Move 3 of 6: Black %s.*\b3 +\[%s\]" %
                              (re.escape(played[3][0]), re.escape(played[3][0])), 10),
                  "]: one move on, as in a game; the list numbers each move as the count does",
                  tmux.capture("rita"))
        tmux.keys("rita", "[")
        tap.check(tmux.expect("rita", r"Move 2 of 6: White %s.*\b2 +\[%s\]" %
                              (re.escape(played[2][0]), re.escape(played[2][0])), 10),
                  "[: one move back, as in a game", tmux.capture("rita"))
        tmux.keys("rita", "G")
        want = expected_eval(played[6][1])
        tap.check(tmux.expect("rita", r"Move 6 of 6: White %s" % re.escape(played[6][0]), 10)
                  and tmux.expect("rita", r"Eval: %s\s" % re.escape(want), 30) and
                  tmux.expect("rita", r"Result: White wins, \d+ to \d+ \(resign\)", 5),
                  "G: the last move, its evaluation, the result", tmux.capture("rita"))
        tmux.keys("rita", "g")
        tap.check(tmux.expect("rita", r"Move 0 of 6: the start", 10), "g: the start",
                  tmux.capture("rita"))
        tmux.keys("rita", "q")
        tap.check(tmux.expect("rita", r"Finished games +21 to 22 of 22", 10),
                  "q: back to the history", tmux.capture("rita"))
        tmux.keys("rita", "q")
        tap.check(tmux.expect("rita", r"Games on this server", 10), "q: back to the lobby",
                  tmux.capture("rita"))

        # the create form: against the computer, level 2; resign; replay from the game over
        tmux.keys("rita", "c")
        tap.check(tmux.expect("rita", r"Create a game.*Opponent.*person.*computer.*Level", 10),
                  "the create form offers the computer", tmux.capture("rita"))
        tmux.keys("rita", "Down", "Down", "Right", "Right")  # seat: white (second)
        tmux.keys("rita", "Down", "Right")  # private
        tmux.keys("rita", "Down", "Down", "Right")  # opponent: computer
        tmux.keys("rita", "Down", "Left", "Left")  # level 4 -> 2
        tmux.keys("rita", "Enter")
        tap.check(tmux.expect("rita", r"computer \(level 2\)", 10) and
                  tmux.expect("rita", r"Your move", 30),
                  "a game against the computer at level 2; it moved first",
                  tmux.capture("rita"))
        code = re.search(r"invite code ([A-Z0-9]+)", tmux.capture("rita"))
        tap.check(code, "a private game: its invite code is shown", tmux.capture("rita"))
        # a resignation needs a move of one's own (PROTOCOL.md resign): rita types one (a
        # spectator with the code tells which are legal), the computer answers, she resigns
        spy = serverlib.Client("127.0.0.1", server.port)
        spy.hello("spy")
        seen = spy.ask({"type": "watch", "code": code.group(1) if code else "?"})
        tmux.keys("rita", ":")
        tmux.literal("rita", ct.legal_moves("hokito", seen["position"])[0])
        tmux.keys("rita", "Enter")
        spy.wait_for("moved")
        spy.wait_for("moved", 30)
        spy.close()
        tmux.expect("rita", r"Your move", 30)
        tmux.keys("rita", "r")
        tmux.expect("rita", r"Resign this game", 5)
        tmux.keys("rita", "y")
        tap.check(tmux.expect("rita", r"Game over.*v replay", 10), "resigned: game over",
                  tmux.capture("rita"))
        tmux.keys("rita", "v")
        tap.check(tmux.expect("rita", r"Replay of game g\d+.*computer \(level 2\).*rita.*"
                              r"Result: Black wins, \d+ to \d+ \(resign\).*Move 0 of 3: the start", 10),
                  "v: the game just over, replayed (a private game, asked for by its code)",
                  tmux.capture("rita"))
        own = re.search(r"Replay of game (g\d+)", tmux.capture("rita"))
        own = own.group(1) if own else "g?"
        # in the smallest screen (64x18) the result's reason goes on a line of its own, and
        # the move list still has a row
        tmux.resize("rita", 64, 18)
        tap.check(tmux.expect("rita", r"Result: Black wins, \d+ to \d+ *\n.* \(resign\) *\n"
                              r".*Moves *\n.* 1 +\S", 10),
                  "a 64x18 replay: the result with its reason whole, and the move list",
                  tmux.capture("rita"))
        tmux.resize("rita", COLS, ROWS)
        tmux.keys("rita", "G")
        tap.check(tmux.expect("rita", r"Move 3 of 3: Black \S+.*Eval: \S", 30),
                  "G: the computer's move, evaluated", tmux.capture("rita"))
        tmux.keys("rita", "q")
        tap.check(tmux.expect("rita", r"Game over", 10), "q: back to the game over",
                  tmux.capture("rita"))
        # a game aborted after one move (by the player who had not moved yet) in the history,
        # and its replay: no result, not "not over"
        a = serverlib.Client("127.0.0.1", server.port)
        b = serverlib.Client("127.0.0.1", server.port)
        a.hello("abe")
        b.hello("abi")
        st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black"})
        b.request({"type": "join", "game": st["game"]})
        a.request({"type": "move", "move": a.wait_for("your_turn")["moves"][0]})
        b.request({"type": "abort"})
        a.close()
        b.close()
        tmux.keys("rita", "Enter")
        tmux.expect("rita", r"Games on this server", 10)
        tmux.keys("rita", "h")
        tap.check(tmux.expect("rita", r"%s +hokito abe \(guest\) vs abi \(guest\): "
                              r"aborted \(abort\), 1 move\n" % st["game"], 10),
                  "the history: the aborted game, its one move \"1 move\"",
                  tmux.capture("rita"))
        # one's own private game is in one's history (others never see it)
        tap.check(tmux.expect("rita", r"\n *%s +hokito computer \(level 2\) vs rita\b" % own, 10),
                  "the history lists rita's own private game against the computer",
                  tmux.capture("rita"))
        tmux.keys("rita", "Enter")
        tap.check(tmux.expect("rita", r"Replay of game %s.*Result: No result \(abort\)" %
                              st["game"], 10),
                  "the replay of an aborted game: no result", tmux.capture("rita"))
        tmux.keys("rita", "Q")
        tap.check(tmux.expect("rita", r"HOKITO-EXIT=0", 10), "Q quits cleanly",
                  tmux.capture("rita"))
        reports = open(err, errors="replace").read() if os.path.exists(err) else ""
        tap.check(not re.search(r"Sanitizer|runtime error", reports),
                  "no sanitizer reports from the client", reports[-3000:])
    finally:
        tmux.kill()
        server.stop()
        ct.cleanup(tmp)


if __name__ == "__main__":
    ct.main_guard(main)
