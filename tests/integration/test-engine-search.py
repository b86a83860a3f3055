#!/usr/bin/env python3
"""The computer opponent from the outside: `hokito-engine analyse` and `hokito-engine bot`.

analyse: its output lines (bestmove, score or result, depth, pv, nodes, time, nps; the speed
from the time measured, even for a search under a millisecond), a legal best move and principal
variation, the same answer on every run at a fixed depth, a proved result near the end of a
game, and its usage errors. bot: against the real hokitod on a loopback port
the OS picks, it plays a whole game against a scripted player making random legal moves (HOKITO
and OXONO), and two bots pair with each other by quick pairing and play --games games, then exit
0. Every wait is bounded; budgets are depths and levels, never wall time.

Environment: HOKITO_ENGINE and HOKITOD, the binaries. Prints TAP; exits 1 on failure.
"""
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serverlib  # noqa: E402

ENGINE = os.environ.get("HOKITO_ENGINE", "build/client/hokito-engine")
tap = serverlib.Tap()


def engine(*args, timeout=120):
    p = subprocess.run([ENGINE] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def fields(out):
    """The "key: value" lines of analyse's output."""
    d = {}
    for line in out.splitlines():
        key, _, value = line.partition(": ")
        d[key] = value
    return d


def start(kind, seed):
    rc, out, err = engine("start", "--game", kind, "--seed", seed)
    assert rc == 0, err
    return out.strip()


def moves(kind, pos):
    rc, out, err = engine("moves", "--game", kind, pos)
    assert rc == 0, err
    return out.split()


def play(kind, pos, *mv):
    rc, out, err = engine("play", "--game", kind, pos, *mv)
    assert rc == 0, err
    return out.splitlines()[0]


def check_analyse(kind, seed, depth):
    pos = start(kind, seed)
    rc, out, err = engine("analyse", "--game", kind, "--depth", depth, pos)
    assert rc == 0, err
    f = fields(out)
    for key in ("bestmove", "score", "depth", "pv", "nodes", "time", "nps"):
        assert key in f, "no %s line in %r" % (key, out)
    assert f["bestmove"] in moves(kind, pos), out
    assert int(f["depth"]) == depth, out
    assert int(f["nodes"]) > 0, out
    pv = f["pv"].split()
    assert pv and pv[0] == f["bestmove"], out
    play(kind, pos, *pv)  # the whole line is legal
    check_speed(out)
    # Deterministic at a fixed depth: the same lines but time and speed.
    rc2, out2, _ = engine("analyse", "--game", kind, "--depth", depth, pos)
    g = fields(out2)
    for key in ("bestmove", "score", "depth", "pv", "nodes"):
        assert f[key] == g[key], (out, out2)


def check_speed(out):
    """time: milliseconds to the microsecond ("0.412 ms"); nps: the nodes over that time (it
    was nodes * 1000 when the search took less than a millisecond), or "unknown"."""
    f = fields(out)
    m = re.match(r"^(\d+)\.(\d{3}) ms$", f["time"])
    assert m, "time is not milliseconds to the microsecond: %r" % out
    us = int(m.group(1)) * 1000 + int(m.group(2))
    nodes = int(f["nodes"])
    if f["nps"] == "unknown":
        assert us == 0, out
        return
    nps = int(f["nps"])
    # the time printed is cut to the microsecond: the speed lies between the bounds it gives
    assert us == 0 or nps <= nodes * 1e6 / us * 1.0001 + 1, out
    assert nps >= nodes * 1e6 / (us + 1) * 0.9999 - 1, out


def check_analyse_proved(kind, seed, before_end):
    """Play the first legal move until the end, then analyse a position near it: proved."""
    pos, history = start(kind, seed), []
    while True:
        ms = moves(kind, pos)
        if not ms:
            break
        history.append(pos)
        pos = play(kind, pos, ms[len(history) % len(ms)])
    near = history[max(0, len(history) - before_end)]
    rc, out, err = engine("analyse", "--game", kind, "--depth", 40, near)
    assert rc == 0, err
    f = fields(out)
    assert "result" in f and "proved" in f["result"], out
    assert f["bestmove"] in moves(kind, near), out
    # A finished game has nothing to search.
    rc, out, err = engine("analyse", "--game", kind, "--depth", 3, pos)
    assert rc == 0 and fields(out).get("bestmove") == "none", (rc, out, err)


def check_analyse_win_in_one():
    """A win in one move is proved and said in words: "1 ply", not "1 plies"."""
    pos = "-,-,-,-,-,O/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,-,-,-,-/px,bx,px,-,-,- p"
    rc, out, err = engine("analyse", "--game", "oxono", "--depth", 3, pos)
    f = fields(out)
    assert rc == 0 and f.get("bestmove") == "Xd2+d1", (rc, out, err)
    assert f.get("result") in ("pink wins in 1 ply (proved)",
                               "pink wins in at most 1 ply (proved)"), out

def check_analyse_errors():
    pos = start("hokito", 1)
    rc, out, err = engine("analyse", "--depth", 2, "--time", 100, pos)
    assert rc == 2 and out == "" and err.startswith("hokito-engine: "), (rc, out, err)
    rc, out, err = engine("analyse", "--depth", 2, "x,y b")
    assert rc == 2 and out == "" and err.startswith("hokito-engine: "), (rc, out, err)
    rc, out, err = engine("analyse", "--depth", 2)
    assert rc == 2 and out == "", (rc, out, err)
    rc, out, err = engine("analyse", "--help")
    assert rc == 0 and "--time" in out and "--depth" in out, (rc, out, err)
    rc, out, err = engine("analyse", "--game", "oxono", "--time", 150, start("oxono", 2))
    assert rc == 0 and fields(out)["bestmove"] in moves("oxono", start("oxono", 2)), out
    rc, out, err = engine("bot", "--level", 9)
    assert rc == 2 and err.startswith("hokito-engine: "), (rc, out, err)
    rc, out, err = engine("bot", "--help")
    assert rc == 0 and "--level" in out and "--games" in out, (rc, out, err)


def bot(port, *args):
    return subprocess.Popen([ENGINE, "bot", "--host", "127.0.0.1", "--port", str(port)]
                            + [str(a) for a in args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(p, timeout=120):
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise AssertionError("bot did not finish: %s %s" % (out, err))
    return p.returncode, out, err


def check_bot_vs_player(kind, level):
    """A scripted player opens a game; the bot quick-pairs into it; the game is played out."""
    srv = serverlib.Server()
    b = None
    try:
        c = srv.connect("tester")
        st = c.ask({"type": "create", "kind": kind, "seat": "random", "seed": 11})
        assert st["type"] == "state" and st["status"] == "open", st
        b = bot(srv.port, "--game", kind, "--level", level, "--games", 1, "--name", "robot")
        rng = random.Random(5)
        over = None
        plies = 0
        while over is None:
            m = c.recv(timeout=60)
            if m["type"] == "your_turn":
                c.send({"type": "move", "move": rng.choice(m["moves"])})
            elif m["type"] == "moved":
                plies += 1
            elif m["type"] == "game_over":
                over = m
            elif m["type"] == "error":
                raise AssertionError("server refused our move: %r" % m)
        assert over["result"] in ("win", "draw") and over["reason"] in (
            "blocked", "line", "full"), over
        rc, out, err = finish(b)
        b = None
        assert rc == 0, (rc, out, err)
        assert "over:" in out, out
        assert plies >= 4, plies
        c.close()
    finally:
        if b is not None:
            b.kill()
            b.wait()
        status = srv.stop()
    assert status == 0, "server exit status %r" % status


def check_two_bots(kind):
    """Two bots of different levels pair with each other and play two games."""
    srv = serverlib.Server()
    bots = []
    try:
        bots.append(bot(srv.port, "--game", kind, "--level", 1, "--games", 2, "--name", "weak"))
        bots.append(bot(srv.port, "--game", kind, "--level", 3, "--games", 2, "--name", "strong"))
        results = [finish(p) for p in bots]
        bots = []
        for rc, out, err in results:
            assert rc == 0, (rc, out, err)
            assert out.count("over:") == 2, out
    finally:
        for p in bots:
            p.kill()
            p.wait()
        status = srv.stop()
    assert status == 0, "server exit status %r" % status


def check_bot_no_server():
    srv = serverlib.Server()
    port = srv.port
    srv.stop()
    rc, out, err = finish(bot(port, "--games", 1), timeout=30)
    assert rc == 1 and "hokito-engine: bot:" in err, (rc, out, err)


tap.run("analyse hokito depth 3: lines, legal pv, deterministic", check_analyse, "hokito", 1, 3)
tap.run("analyse oxono depth 4: lines, legal pv, deterministic", check_analyse, "oxono", 1, 4)
tap.run("analyse depth 1 (under a millisecond): time to the microsecond, an honest nps",
        check_analyse, "hokito", 1, 1)
tap.run("analyse proves a hokito ending", check_analyse_proved, "hokito", 2, 6)
tap.run("analyse proves an oxono ending", check_analyse_proved, "oxono", 3, 3)
tap.run("analyse proves a win in one ply", check_analyse_win_in_one)
tap.run("analyse and bot usage errors", check_analyse_errors)
tap.run("bot plays a hokito game against a player", check_bot_vs_player, "hokito", 3)
tap.run("bot plays an oxono game against a player", check_bot_vs_player, "oxono", 3)
tap.run("two hokito bots pair up and play two games", check_two_bots, "hokito")
tap.run("two oxono bots pair up and play two games", check_two_bots, "oxono")
tap.run("bot without a server fails with status 1", check_bot_no_server)
tap.done()
