#!/usr/bin/env python3
"""Record the example session of PROTOCOL.md section 11.6 from the real hokitod.

Not a test: run it by hand after a protocol change and paste its output into PROTOCOL.md.
  HOKITOD=build/server/hokitod python3 tests/integration/example-match.py
The server runs with --test-clock so the clock values are exact (and --first-move 0); the time the example lets pass is
shown as comments (and sent as test_clock by a fourth connection, not shown).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Recorder as Rec, Server  # noqa: E402


def main():
    srv = Server("--test-clock", "--first-move", "0")  # the clocks run from the start (11.1)
    k = srv.connect("clock")

    def wait(ms, what):
        print("# %s" % what)
        k.request({"type": "test_clock", "advance_ms": ms})

    a, b = Rec(srv, "alice"), Rec(srv, "bob")
    try:
        print("# Alice creates a HOKITO game with 5 minutes each and 3 seconds a move; Bob joins.")
        a.send({"type": "hello", "protocol": 1, "name": "alice"})
        a.recv()
        a.send({"type": "create", "kind": "hokito", "seat": "black", "seed": 5, "clock": "5+3",
                "id": 1})
        a.recv()
        b.send({"type": "hello", "protocol": 1, "name": "bob"})
        b.recv()
        b.send({"type": "join", "game": "g1", "id": 1})
        b.recv()
        a.recv(3)
        wait(12000, "(12 seconds pass.) Alice plays; her clock loses 12 s and gains 3 s.")
        a.send({"type": "move", "move": "a1-b1", "id": 2})
        a.recv(2)
        yt = b.recv(2)
        print("# Bob answers at once (his first move spends nothing and gains 3 s).")
        b.send({"type": "move", "move": yt["moves"][0], "id": 2})
        b.recv(2)
        yt = a.recv(2)
        print("# Both have moved: Bob chats and offers a draw (none before, 5); Alice declines,")
        print("# and plays on.")
        b.send({"type": "say", "text": "hi! draw?", "id": 3})
        b.recv(2)
        a.recv()
        b.send({"type": "draw_offer", "id": 4})
        b.recv(2)
        a.recv()
        a.send({"type": "draw_decline", "id": 3})
        a.recv(2)
        b.recv()
        a.send({"type": "move", "move": yt["moves"][0], "id": 4})
        a.recv(2)
        b.recv(2)
        wait(304000, "(Bob thinks for 5 minutes and 4 seconds: his flag falls.)")
        a.recv()
        b.recv()
        print("# Alice offers a rematch, Bob accepts: a new game, colours swapped.")
        a.send({"type": "rematch", "id": 5})
        a.recv(2)
        b.recv()
        b.send({"type": "rematch", "id": 5})
        b.recv()
        a.recv(2)
        b.recv(2)
    finally:
        srv.stop()


main()
