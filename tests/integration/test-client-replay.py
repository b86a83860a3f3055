#!/usr/bin/env python3
"""test-client-replay.py: the hokito client replays finished games in --plain mode.

Two players (protocol clients) finish a HOKITO game by resignation after a few moves; a plain
client lists the history, replays the game from its record, steps forward and back, jumps to the
start and the end, and checks each position against the moves; a player that is still at the game
replays it with no argument. TAP on stdout.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clienttest as ct  # noqa: E402
import serverlib  # noqa: E402


def finish_game(port, names, moves):
    """Two protocol clients play moves moves, then the first resigns. Returns (game, moves)."""
    a = serverlib.Client("127.0.0.1", port)
    b = serverlib.Client("127.0.0.1", port)
    a.hello(names[0])
    b.hello(names[1])
    st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 11})
    g = st["game"]
    b.request({"type": "join", "game": g})
    played, positions = [], []
    for i in range(moves):
        c = (a, b)[i % 2]
        yt = c.wait_for("your_turn")
        mv = yt["moves"][(i * 5 + 1) % len(yt["moves"])]
        r, others = c.request({"type": "move", "move": mv})
        moved = [m for m in others if m.get("type") == "moved"][-1]
        played.append(moved["move"])
        positions.append(moved["position"])
    a.request({"type": "resign"})
    a.close()
    b.close()
    return g, played, positions


def board_rows(p, n=6):
    """The next n board rows the plain client printed (rank 6 first)."""
    rows = []
    for _ in range(n):
        m = p.expect(r"^\d  (.*) \d$", 10)
        if not m:
            break
        rows.append(m.group(1).split())
    return rows


def ended_game(server, tmp, name, create, other, end):
    """A plain client creates a game (create: its arguments, its seat the first), another
    player joins it and ends it with the request end: "abort" at once, "resign" once each side
    has moved (PROTOCOL.md resign). Returns (plain client, the other player's connection, game
    id); the plain client has seen the game over."""
    p = ct.Plain(server.port, name, ["create"] + create, os.path.join(tmp, name))
    m = p.expect(r"^joined game (g\d+).*?(?:, invite code (\w+))?$", 10)
    g = m.group(1)
    q = serverlib.Client("127.0.0.1", server.port)
    q.hello(other)
    q.request({"type": "join", "code": m.group(2)} if m.group(2) else
              {"type": "join", "game": g})
    if end == "resign":
        p.expect(r"^your turn", 10)
        p.send("position")
        pos = p.expect(r"^position: (.*)$", 10).group(1)
        p.send(ct.legal_moves("oxono" if "oxono" in create else "hokito", pos)[0])
        yt = q.wait_for("your_turn")
        q.request({"type": "move", "move": yt["moves"][0]})
    q.request({"type": end})
    p.expect(r"^game over", 10)
    return p, q, g


def main(tap):
    tmp = ct.tmpdir()
    server = ct.Server(tmp)
    try:
        g, played, positions = finish_game(server.port, ("ann", "ben"), 6)
        r = ct.Plain(server.port, "rita", [], os.path.join(tmp, "rita"))
        r.send("history")
        tap.check(r.expect(r"^history: games 1 to 1 of 1 finished", 10) and
                  r.expect(r"^game %s hokito ann \(guest\) vs ben \(guest\): white wins \(resign\), 6 moves" % g,
                           10), "history lists the finished game", r.text())
        r.send("replay %s" % g)
        tap.check(r.expect(r"^replay %s: move 0 of 6: the start, black ann vs white ben" % g, 10),
                  "replay starts at the start position", r.text())
        start = board_rows(r)
        r.send("next")
        tap.check(r.expect(r"^replay %s: move 1 of 6: black %s$" % (g, played[0]), 10),
                  "next: the first move", r.text())
        one = board_rows(r)
        tap.check(one != start and len(one) == 6, "the board changes with the move",
                  (start, one))
        r.send("next 3")
        tap.check(r.expect(r"^replay %s: move 4 of 6: white %s$" % (g, played[3]), 10),
                  "next 3: three moves on", r.text())
        r.send("prev")
        tap.check(r.expect(r"^replay %s: move 3 of 6: black %s$" % (g, played[2]), 10),
                  "prev: one move back", r.text())
        r.send("last")
        tap.check(r.expect(r"^replay %s: move 6 of 6: white %s$" % (g, played[5]), 10) and
                  r.expect(r"^replay %s: the end: white by resign" % g, 10),
                  "last: the end and the result", r.text())
        r.send("first")
        tap.check(r.expect(r"^replay %s: move 0 of 6" % g, 10) and board_rows(r) == start,
                  "first: back to the start position", r.text())
        r.send("prev")
        tap.check(r.expect(r"^replay %s: move 0 of 6" % g, 10), "prev at the start stays there")
        # counts that are not counts are refused, and a huge one goes to the end
        for cmd, usage in (("next x", "next [N]"), ("prev -2", "prev [N]"),
                           ("history -1", "history [PLAYER] [OFFSET]"),
                           ("history ann abc", "history [PLAYER] [OFFSET]")):
            r.send(cmd)
            tap.check(r.expect(r"^error: usage: %s" % re.escape(usage), 10),
                      "%s: its usage, not a silent default" % cmd, r.text())
        r.send("next 99999999999999999999")
        tap.check(r.expect(r"^replay %s: move 6 of 6" % g, 10),
                  "next with a count beyond any game: the end", r.text())
        r.send("history 5")
        tap.check(r.expect(r"^history: no games from 6 on; 1 finished$", 10),
                  "history past the last game says there are none, not 'games 6 to 5'",
                  r.text())
        r.send("replay g999")
        tap.check(r.expect(r"no game with that id|[Nn]o such game|g999", 10),
                  "replay of an unknown game is refused", r.text())
        r.close()
        # a player at a game just over replays it with no argument; a private game too (its
        # record is asked for by its invite code)
        for name, create, other, side, what in (
                ("pat", ["oxono", "--seat", "pink"], "quinn", "pink", "that game"),
                ("ivy", ["--private", "--seat", "black"], "jay", "black", "a private game")):
            p, q, g = ended_game(server, tmp, name, create, other, "resign")
            p.send("replay")
            ok = p.expect(r"^replay %s: move 0 of 2: the start" % g, 10)
            p.send("last")
            tap.check(ok and p.expect(r"^replay %s: the end: %s by resign" % (g, side), 10),
                      "after game over, replay with no argument replays %s" % what, p.text())
            if "private" in what:
                # one's own private games are in one's history, and replay by id
                p.send("history")
                tap.check(p.expect(r"^game %s hokito ivy \(guest\) vs jay \(guest\): black wins \(resign\)" % g,
                                   10),
                          "history lists the player's own private game", p.text())
                p.send("replay %s" % g)
                p.send("last")
                tap.check(p.expect(r"^replay %s: the end: black by resign" % g, 10),
                          "... and replays it by its id", p.text())
            p.close()
            q.close()
        # a history line holds the players' names whole, however many bytes they take
        wide = "\U0001f600" * 32
        g, _, _ = finish_game(server.port, (wide, "zed"), 2)
        h = ct.Plain(server.port, "hal", [], os.path.join(tmp, "hal"))
        h.send("history")
        tap.check(h.expect(r"^game %s hokito %s \(guest\) vs zed \(guest\): white wins "
                           r"\(resign\), 2 moves$"
                           % (g, wide), 10),
                  "history: a 32-character name of 4-byte characters is whole", h.text())
        h.close()
        # an aborted game has no result: its replay says so, not "* by abort"
        u, v, g = ended_game(server, tmp, "uma", ["hokito", "--seat", "black"], "vera", "abort")
        u.send("replay")
        tap.check(u.expect(r"^replay %s: the end: no result \(abort\)$" % g, 10),
                  "the replay of an aborted game ends with no result", u.text())
        u.close()
        v.close()
    finally:
        server.stop()
        ct.cleanup(tmp)


tap = ct.Tap()
main(tap)
sys.exit(tap.done())
