#!/usr/bin/env python3
"""Record the example session of PROTOCOL.md section 10 from the real hokitod.

Not a test: run it by hand after a protocol change and paste its output into PROTOCOL.md.
  HOKITOD=build/server/hokitod python3 tests/integration/example-session.py
Alice and Bob play a whole HOKITO game (seed 5) while Carol watches; the refusals, the dropped
connection and the reconnection come first, then both sides play the first legal move they are
offered until the game ends. The middle of the game is not shown ([...]); its last move is.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Recorder as Rec, Server  # noqa: E402


def main():
    srv = Server()
    a, c, b = Rec(srv, "alice"), Rec(srv, "carol"), Rec(srv, "bob")
    try:
        print("# Alice connects, says hello and creates a HOKITO game, sitting as black.")
        a.send({"type": "hello", "protocol": 1, "name": "alice", "id": 1})
        a.recv()
        a.send({"type": "create", "kind": "hokito", "seat": "black", "seed": 5, "id": 2})
        a.recv()

        print("\n# Carol connects, looks at the lobby and watches the open game.")
        c.send({"type": "hello", "protocol": 1, "name": "carol"})
        c.recv()
        c.send({"type": "list", "id": "l1"})
        c.recv()
        c.send({"type": "watch", "game": "g1", "id": "w1"})
        c.recv(2)
        a.recv()

        print("\n# Bob connects and takes the open seat: the game starts.")
        b.send({"type": "hello", "protocol": 1, "name": "bob", "id": 1})
        token = b.recv()["token"]
        b.send({"type": "join", "game": "g1", "id": 2})
        b.recv()
        a.recv(2)
        c.recv(2)
        first = a.recv()["moves"][0]

        print("\n# Alice tries a move that is not legal, then plays.")
        a.send({"type": "move", "move": "a1-f6", "id": 3})
        a.recv()
        a.send({"type": "move", "move": first, "id": 4})
        a.recv(2)
        c.recv()
        b.recv()
        reply = b.recv()["moves"][0]

        print("\n# Carol, a spectator, tries to move; then Bob plays.")
        c.send({"type": "move", "move": reply})
        c.recv()
        b.send({"type": "move", "move": reply, "id": 3})
        b.recv(2)
        c.recv()
        a.recv()
        third = a.recv()["moves"][0]

        print("\n# Bob tries to move while it is Alice's turn.")
        b.send({"type": "move", "move": "a6-a5", "id": 4})
        b.recv()

        print("\n# Bob's connection drops. Alice and Carol are told.")
        b.c.close()
        a.recv()
        c.recv()

        print("\n# Alice moves while Bob is away.")
        a.send({"type": "move", "move": third, "id": 5})
        a.recv(2)
        c.recv()

        print("\n# Bob reconnects with his token and the last seq he saw (5): he gets exactly the "
              "event he missed.")
        b = Rec(srv, "bob")
        b.send({"type": "hello", "protocol": 1, "token": token, "last_seq": 5})
        b.recv()
        m = b.recv_until("your_turn")
        a.recv()
        c.recv()

        # The rest of the game: the first legal move each time, shown from the last move only.
        players, mover, rid = {"alice": a, "bob": b}, b, 6
        while True:
            for r in (a, b, c):
                r.keep = []
            mover.send({"type": "move", "move": m["moves"][0], "id": rid})
            rid += 1
            other = a if mover is b else b
            over = mover.recv_until("ok")
            c.recv_until("moved")
            m = other.recv_until("your_turn", "game_over")
            if m["type"] == "game_over":
                c.recv_until("game_over")
                break
            mover = other
        print("\n[...]\n")
        print("# The last move: a player has no legal move left, the game is over, the scores "
              "decide.")
        for line in mover.keep:
            print(line)
        print("# (Alice and Carol get the same moved and game_over lines.)")
        for r in players.values():
            r.keep = None
        c.keep = None
        assert over["type"] == "ok"

        print("\n# Everybody leaves.")
        c.send({"type": "leave"})
        c.recv()
    finally:
        srv.stop()


main()
