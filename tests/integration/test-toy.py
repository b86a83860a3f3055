#!/usr/bin/env python3
"""TOY, a third game kind that exists only in the tests (tests/toy/toy.c), registered through the
registry (common/games.c built with -DHOKITO_TOY_GAME): the engine CLI (start, moves, play,
perft, analyse) and one whole server game over a real loopback socket (two raw JSON clients:
hello, create with kind "toy", join, moves, game_over), with no other change to the programs.

Run by meson (HOKITO_ENGINE names hokito-engine-toy, HOKITOD hokitod-toy); prints TAP.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap  # noqa: E402

ENGINE = os.environ.get("HOKITO_ENGINE", "build/tests/toy/hokito-engine-toy")
EMPTY = "....../....../....../....../....../...... x"


def engine(*args):
    p = subprocess.run([ENGINE] + list(args), capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def test_engine(t):
    rc, out, _ = engine("start", "--game", "toy", "--seed", "7")
    t.ok(rc == 0 and out == EMPTY + "\n", "engine start: the empty board, Cross to move", out)
    rc, out, _ = engine("moves", "--game", "toy", EMPTY)
    sq = ["%s%d" % (f, r) for r in range(1, 7) for f in "abcdef"]
    t.ok(rc == 0 and out.split() == sq, "engine moves: every empty square, a1 first", out)
    rc, out, _ = engine("perft", "--game", "toy", "--depth", "3", EMPTY)
    t.ok(rc == 0 and out.split()[-1] == str(36 * 35 * 34), "engine perft 3: 36 * 35 * 34", out)
    rc, out, _ = engine("play", "--game", "toy", EMPTY, "a1", "b1", "c1", "d2", "e1", "f1",
                        "a2", "b2")
    t.ok(rc == 0 and out == "....../....../....../....../xo.o../xox.xo x\n"
         "result: cross wins\nscore: cross 3 nought 2\n",
         "engine play: eight stones end the game, rank 1 decides", out)
    rc, out, err = engine("play", "--game", "toy", EMPTY, "a1", "a1")
    t.ok(rc == 1 and "square a1 is not empty" in err, "engine play: an illegal move", err)
    rc, out, err = engine("start", "--game", "toy", "--variant", "random36")
    t.ok(rc == 2 and "unknown variant 'random36' for toy (known: standard)" in err,
         "engine: the toy's variants come from its class", err)
    rc, out, err = engine("start", "--game", "chess")
    t.ok(rc == 2 and "(hokito, oxono or toy)" in err, "engine: the kinds come from the registry",
         err)
    rc, out, _ = engine("analyse", "--game", "toy", "--depth", "3",
                        "....../....../....../....../xo.o../xox.x. o")
    t.ok(rc == 0 and "bestmove: d1" in out and "result: cross wins by 1 (proved)" in out,
         "engine analyse: the last ply, solved: a rank-1 square, and Cross wins by one", out)


def test_server(t):
    srv = Server()
    a = srv.connect("alice-toy")
    b = srv.connect("bob-toy")
    st, _ = a.request({"type": "create", "kind": "toy", "seat": "cross", "seed": 1})
    t.ok(st["type"] == "state" and st["status"] == "open" and st["you"] == "cross"
         and st["position"] == EMPTY and len(st["cells"]) == 36,
         "server: create with kind toy gives an open state", st)
    g = st["game"]
    js, _ = b.request({"type": "join", "game": g})
    t.ok(js["type"] == "state" and js["status"] == "live" and js["you"] == "nought"
         and js["to_move"] == "cross", "server: join starts the toy game", js)
    players = {"cross": a, "nought": b}
    order = ["a1", "b1", "c1", "d2", "e1", "f1", "a2", "b2"]
    turn, over = "cross", None
    for i, mv in enumerate(order):
        yt, _ = players[turn].recv_until("your_turn")
        assert mv in yt["moves"], (mv, yt)
        ok, got = players[turn].request({"type": "move", "move": mv})
        assert ok["type"] == "ok", ok
        for m in got:
            if m["type"] == "game_over":
                over = m
        turn = "nought" if turn == "cross" else "cross"
    if over is None:
        over = a.recv_until("game_over")[0]
    t.ok(over["result"] == "win" and over["winner"] == "cross" and over["reason"] == "full"
         and over["ply"] == 8, "server: game_over after eight stones, Cross wins", over)
    fin, _ = b.request({"type": "watch", "game": g})
    t.ok(fin["status"] == "finished" and fin["moves"] == order
         and fin["position"] == "....../....../....../....../xo.o../xox.xo x",
         "server: the finished state holds the moves and the final position", fin)
    bad, _ = a.request({"type": "create", "kind": "go"})
    t.ok(bad["type"] == "error" and "(known: hokito, oxono, toy)" in bad.get("text", ""),
         "server: an unknown kind lists the registry's kinds", bad)
    srv.stop()


def main():
    t = Tap()
    t.run("engine CLI plays the toy kind", test_engine, t)
    t.run("hokitod plays one toy game end to end", test_server, t)
    t.done()


if __name__ == "__main__":
    main()
