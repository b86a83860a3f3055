#!/usr/bin/env python3
"""Differential test: the real `hokito-engine` binary against the independent reference rules
(tests/ref/rules_ref.py).

Seeded random playouts of both games (standard and random36 HOKITO starts, OXONO starts) compare,
at every position, the set of legal moves (`moves`), the position after a move (`play`, given as
from-to or, for HOKITO, sometimes as the hop path), the result and HOKITO scores at the end, and
the refusal of an illegal move (exit 1). Perft (with --divide) is compared on a few positions, and
hand-built positions cover the edge cases; the engine's perft is also checked against the counts
in tests/data/perft-ref.txt (written by tests/ref/make_perft_ref.py). Everything is seeded: the run is deterministic.

Environment: HOKITO_ENGINE, the path of the hokito-engine binary. Prints TAP; exits 1 on failure.
"""

import os
import random
import resource
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ref"))
import rules_ref as R  # noqa: E402

ENGINE = os.environ.get("HOKITO_ENGINE", "hokito-engine")
MAX_DIAG = 4  # disagreements printed per test case

HOKITO_SEEDS = [1, 2, 3, 4, 5]
RANDOM36_SEEDS = [1, 2, 3, 4, 5]
OXONO_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8]

results = []  # (ok, name, diagnostics)


def engine(*args):
    """Run the engine; returns (exit status, stdout lines, stderr text)."""
    p = subprocess.run([ENGINE] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout.splitlines(), p.stderr


def report(name, diags):
    results.append((not diags, name, diags))


def ref_play_lines(game, pos):
    return [game.format(pos)] + game.result_lines(pos)


class Checker:
    """Compares engine and reference on one position after another, collecting disagreements."""

    def __init__(self, game_name):
        self.game = R.GAMES[game_name]
        self.name = game_name
        self.diags = []
        self.positions = 0

    def fail(self, what):
        if len(self.diags) < MAX_DIAG:
            self.diags.append(what)
        elif len(self.diags) == MAX_DIAG:
            self.diags.append("(more disagreements not shown)")

    def moves(self, pos):
        """Compare the legal move lists, in the fixed order of FORMATS.md too; returns the
        reference list."""
        self.positions += 1
        text = self.game.format(pos)
        want = self.game.moves(pos)
        rc, out, err = engine("moves", "--game", self.name, text)
        if rc != 0:
            self.fail("moves %r: exit %d, stderr %r" % (text, rc, err.strip()))
            return want
        got = set(out)
        if got != set(want) or len(out) != len(got):
            self.fail("moves %r:\n  missing (reference has, engine lacks): %s\n"
                      "  extra (engine has, reference lacks): %s%s"
                      % (text, sorted(set(want) - got) or "-", sorted(got - set(want)) or "-",
                         "\n  engine printed duplicates" if len(out) != len(got) else ""))
        elif out != want:
            self.fail("moves %r: not in the documented order:\n  expected %s\n  got %s"
                      % (text, want, out))
        return want

    def play(self, pos, move, move_text=None):
        """Compare the position (and result lines) after move; returns the reference position."""
        text = self.game.format(pos)
        after = self.game.play(pos, move)
        want = ref_play_lines(self.game, after)
        rc, out, err = engine("play", "--game", self.name, text, move_text or move)
        if rc != 0 or out != want:
            self.fail("play %r %s:\n  expected exit 0: %s\n  got exit %d: %s %s"
                      % (text, move_text or move, want, rc, out, err.strip()))
        return after

    def illegal(self, pos, move_text):
        text = self.game.format(pos)
        rc, out, err = engine("play", "--game", self.name, text, move_text)
        if rc != 1 or out:
            self.fail("play %r %s (illegal): expected exit 1 and no stdout, got exit %d %s %r"
                      % (text, move_text, rc, out, err.strip()))

    def perft(self, pos, depth):
        text = self.game.format(pos)
        want = self.game.divide(pos, depth)
        total = sum(n for _, n in want)
        rc, out, err = engine("perft", "--game", self.name, "--depth", depth, "--divide", text)
        if rc != 0 or not out:
            self.fail("perft --divide %d %r: exit %d %r" % (depth, text, rc, err.strip()))
            return
        got = {}
        for line in out[:-1]:
            m, _, n = line.partition(": ")
            got[m] = int(n) if n.isdigit() else n
        if out[-1] != str(total) or got != dict(want):
            diff = sorted((m, dict(want).get(m), got.get(m))
                          for m in set(got) | set(dict(want)) if dict(want).get(m) != got.get(m))
            self.fail("perft --divide depth %d %r: expected total %d, got %r; "
                      "differing moves (move, expected, got): %s"
                      % (depth, text, total, out[-1], diff[:10]))
        rc, out, err = engine("perft", "--game", self.name, "--depth", depth, text)
        if rc != 0 or not out or out[-1] != str(total):
            self.fail("perft depth %d %r: expected %d, got exit %d %r"
                      % (depth, text, total, rc, out[-1:]))


def random_illegal_hokito(rng, legal):
    while True:
        a, b = rng.randrange(36), rng.randrange(36)
        t = "%s-%s" % (R.square_name(a), R.square_name(b))
        if a != b and t not in legal:
            return t


def random_illegal_oxono(rng, legal):
    while True:
        t = "%s%s+%s" % (rng.choice("XO"), R.square_name(rng.randrange(36)),
                         R.square_name(rng.randrange(36)))
        if t not in legal:
            return t


def playout(game_name, start_args, seed):
    name = "%s %s: moves, play, results agree along a random playout" % (
        game_name, " ".join(start_args))
    rc, out, err = engine("start", "--game", game_name, *start_args)
    if rc != 0 or len(out) != 1:
        report(name, ["start %s: exit %d, %r %r" % (start_args, rc, out, err.strip())])
        return None
    c = Checker(game_name)
    try:
        pos = c.game.parse(out[0])
    except R.RulesError as e:
        report(name, ["start printed %r, the reference cannot parse it: %s" % (out[0], e)])
        return None
    rng = random.Random("%s %s" % (game_name, " ".join(start_args)))
    kept = []  # positions for the perft checks
    ply = 0
    while True:
        legal = c.moves(pos)
        if ply in (0, 8, 16, 24):
            kept.append(pos)
        if not legal:
            break
        if ply % 5 == 2:
            bad = (random_illegal_hokito if game_name == "hokito" else random_illegal_oxono)(
                rng, legal)
            c.illegal(pos, bad)
        move = rng.choice(legal)
        move_text = None
        if game_name == "hokito" and rng.random() < 0.3:
            a, b = c.game.parse_move(pos, move)
            paths = [p for p in R.hokito_paths(pos.board, a) if p[-1] == b]
            move_text = "-".join(R.square_name(s) for s in rng.choice(paths))
        pos = c.play(pos, move, move_text)
        ply += 1
    if c.game.result(pos) is None:
        c.fail("playout ended without a result at %r" % c.game.format(pos))
    report("%s (%d positions, %d plies, %s)" % (name, c.positions, ply,
                                                c.game.result_lines(pos)), c.diags)
    return kept


def perft_checks(game_name, positions):
    game = R.GAMES[game_name]
    for pos in positions:
        c = Checker(game_name)
        n2 = game.perft(pos, 2)
        depth = 3 if n2 < 2500 else 2
        c.perft(pos, 1)
        c.perft(pos, depth)
        report("%s perft 1..%d agrees on %s" % (game_name, depth, game.format(pos)), c.diags)


def board_text(cells, side):
    texts = ["-"] * 36
    for name, cell in cells.items():
        texts[R.parse_square(name)] = cell
    return R.join_position(texts, side)


# Hand-built positions: (game, name, cells, side to move).
EDGE_CASES = [
    ("hokito", "hops over empty stretches, edges block hops",
     {"a1": "b1", "e1": "w1", "a6": "w1", "f6": "b1", "c3": "b2", "c5": "w2"}, "b"),
    ("hokito", "three-hop paths round a square, one move per target",
     {"c3": "b3", "c5": "w1", "e5": "w2", "e3": "w3", "a3": "w1", "b2": "b2", "b4": "w1",
      "d2": "w2", "d4": "w3"}, "b"),
    ("hokito", "singles land on singles, stacks on stacks, any colour on the way",
     {"c3": "w1b1", "c4": "w1w2", "d3": "w1", "c1": "b2b3", "a1": "b2", "a4": "w1w3",
      "d4": "w2", "f1": "b1", "f2": "w1"}, "b"),
    ("hokito", "tall stacks and a stack of three hops",
     {"b2": "w2b1w2b3", "b5": "w3b1", "e5": "b2w1w1w3", "e2": "w1w1", "c2": "b1", "f5": "w2",
      "a5": "b3", "d6": "w1b2"}, "w"),
    ("hokito", "game over: the player NOT to move is blocked",
     {"a1": "w1", "b1": "b3", "f6": "w2"}, "w"),
    ("hokito", "game over: the player to move is blocked",
     {"a1": "w1", "b1": "b3", "f6": "w2"}, "b"),
    ("hokito", "game over: nobody can move, draw 3-3",
     {"a1": "w3", "c3": "b3"}, "b"),
    ("hokito", "a move that ends the game, white blocked after it",
     {"a1": "b1", "b1": "w1", "d3": "b2"}, "b"),
    ("oxono", "enclosed totem in a corner jumps along the edges",
     {"a1": "X", "a2": "px", "a3": "bo", "b1": "O", "d4": "bx"}, "p"),
    ("oxono", "enclosed totem on an edge, runs reaching the edge give no jump",
     {"c1": "O", "b1": "px", "a1": "bo", "d1": "po", "e1": "bx", "f1": "po", "c2": "bo",
      "c3": "px", "c4": "X", "c5": "bo", "c6": "px"}, "b"),
    ("oxono", "enclosed totem with no jump goes to any empty square",
     {"a1": "X", "b1": "O", "c1": "px", "d1": "bo", "e1": "po", "f1": "bx", "a2": "bo",
      "a3": "px", "a4": "bx", "a5": "po", "a6": "bo"}, "p"),
    ("oxono", "placement anywhere when the totem's new square has no empty neighbour",
     {"a1": "X", "a2": "po", "b1": "po", "c1": "bo", "d1": "po", "c2": "bx", "e1": "O",
      "f2": "bo", "a3": "px", "a4": "px"}, "p"),
    ("oxono", "placement next to the square the totem just left",
     {"e6": "O", "e5": "px", "d6": "bx", "f5": "po", "a1": "X"}, "b"),
    ("oxono", "reserve of one symbol exhausted",
     {"c3": "X", "d4": "O", "a1": "px", "c1": "px", "e1": "px", "b6": "px", "d6": "px",
      "f6": "px", "a4": "px", "f3": "px"}, "p"),
    ("oxono", "a placement making a line of five of one colour",
     {"a1": "px", "b1": "px", "d1": "px", "e1": "po", "c3": "X", "f6": "O"}, "p"),
    ("oxono", "a placement making a line of four of one symbol, colours mixed",
     {"b2": "px", "b3": "bx", "b5": "bx", "a5": "X", "f6": "O", "c4": "po"}, "b"),
    ("oxono", "a parsed position holding a line is over, won by the side not to move",
     {"a1": "px", "a2": "bx", "a3": "px", "a4": "bx", "f6": "X", "e6": "O"}, "p"),
    ("oxono", "a totem breaks a line",
     {"a1": "px", "b1": "px", "c1": "px", "d1": "X", "e1": "px", "e6": "O"}, "b"),
]


def edge_case(game_name, name, cells, side):
    c = Checker(game_name)
    pos = c.game.parse(board_text(cells, side))
    legal = c.moves(pos)
    for m in legal:
        c.play(pos, m)
        if game_name == "hokito":
            a, b = c.game.parse_move(pos, m)
            for p in R.hokito_paths(pos.board, a):
                if p[-1] == b:
                    c.play(pos, m, "-".join(R.square_name(s) for s in p))
    if not legal:
        # A finished game: moves prints nothing, play refuses any move with exit 1.
        c.illegal(pos, "a1-b1" if game_name == "hokito" else "Xa1+a2")
    c.perft(pos, 1)
    c.perft(pos, 3 if c.game.perft(pos, 2) < 3000 else 2)
    report("%s edge case: %s (%d moves)" % (game_name, name, len(legal)), c.diags)


def perft_table():
    """The engine against tests/data/perft-ref.txt (counts computed by the reference, slowly)."""
    path = os.path.join(HERE, "..", "data", "perft-ref.txt")
    diags = []
    with open(path) as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    for line in lines:
        game, depth, count, text = line.split(" ", 3)
        rc, out, err = engine("perft", "--game", game, "--depth", depth, text)
        if rc != 0 or not out or out[-1] != count:
            diags.append("perft --game %s --depth %s %r: expected %s, got exit %d %r %s"
                         % (game, depth, text, count, rc, out[-1:], err.strip()))
    report("engine perft agrees with tests/data/perft-ref.txt (%d lines)" % len(lines), diags)


def main():
    kept = {"hokito": [], "oxono": []}
    for s in HOKITO_SEEDS:
        kept["hokito"] += (playout("hokito", ["--seed", str(s)], s) or [])[:2]
    for s in RANDOM36_SEEDS:
        kept["hokito"] += (playout("hokito", ["--seed", str(s), "--variant", "random36"], s)
                           or [])[1:3]
    for s in OXONO_SEEDS:
        kept["oxono"] += (playout("oxono", ["--seed", str(s)], s) or [])[:3]
    perft_checks("hokito", kept["hokito"][:2] + kept["hokito"][-3:])
    perft_checks("oxono", kept["oxono"][:1] + kept["oxono"][2:6:3])
    for case in EDGE_CASES:
        edge_case(*case)
    perft_table()

    failed = 0
    for i, (ok, name, diags) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
        for d in diags:
            for line in d.splitlines():
                print("# " + line)
        failed += not ok
    print("1..%d" % len(results))
    print("# reference CPU time %.1f s" % resource.getrusage(resource.RUSAGE_SELF).ru_utime)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
