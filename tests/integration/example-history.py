#!/usr/bin/env python3
"""Record the example of PROTOCOL.md section 12.2 from the real hokitod.

Not a test: run it by hand after a protocol change and paste its output into PROTOCOL.md
(test-protocol-examples.py checks that it still matches).
  HOKITOD=build/server/hokitod python3 tests/integration/example-history.py
Ann and Ben (not shown) play a HOKITO game of seed 7: each plays the first legal move it is
offered, twice, then Ann resigns; Carol asks for the game's record, then for the first page of
the history.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Recorder as Rec, Server  # noqa: E402


def main():
    srv = Server()
    try:
        ann, ben = srv.connect("ann"), srv.connect("ben")
        st, _ = ann.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 7})
        ben.request({"type": "join", "game": st["game"]})
        for c in (ann, ben):
            c.request({"type": "move", "move": c.wait_for("your_turn")["moves"][0]})
        ann.request({"type": "resign"})
        c = Rec(srv, "carol")
        c.send({"type": "hello", "protocol": 1, "name": "carol"})
        c.recv()
        c.send({"type": "record", "game": st["game"], "id": 7})
        c.recv()
        c.send({"type": "history", "limit": 2, "id": 8})
        c.recv()
    finally:
        srv.stop()


main()
