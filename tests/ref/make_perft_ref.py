#!/usr/bin/env python3
"""Write tests/data/perft-ref.txt: perft counts computed by the reference rules (rules_ref.py), so
that the C engine's unit tests can be cross-checked against an independent implementation.

Each line is `game depth count position` (the position is the rest of the line and holds one
space). The start positions are those `hokito-engine start` prints for the seeds named below;
the mid-game positions come from seeded random playouts of the reference, so the file is
reproducible. Slow (about a minute, mostly the HOKITO start positions at depth 3):

    python3 tests/ref/make_perft_ref.py > tests/data/perft-ref.txt
"""

import multiprocessing
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rules_ref as R  # noqa: E402

HOKITO_SEED_1 = ("w3,w2,w1,w2,w1,w1/w3,w3,w3,w1,w2,w2/w1,w2,w1,w2,w3,w3/"
                 "b1,b3,b3,b3,b3,b2/b1,b2,b1,b1,b2,b1/b2,b2,b1,b3,b2,b3 b")
HOKITO_SEED_2 = ("w3,w1,w2,w2,w2,w3/w2,w3,w1,w1,w3,w1/w3,w2,w1,w1,w3,w2/"
                 "b2,b3,b3,b3,b1,b1/b2,b1,b3,b1,b2,b2/b2,b2,b3,b1,b3,b1 b")
HOKITO_RANDOM36_SEED_1 = ("w1,w2,w3,w3,w2,w2/w3,b1,b1,b2,b1,b3/b2,b3,w2,w1,b2,w1/"
                          "w1,b3,w1,b2,b3,w3/b1,w1,b1,w2,b1,b2/b2,w3,w3,b3,b3,w2 b")
OXONO_SEED_1 = "-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p"
OXONO_SEED_2 = "-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,O,-,-/-,-,X,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p"


def after_random_plies(game, text, plies, seed):
    """The position after `plies` random moves (seeded) that do not end the game."""
    rng = random.Random(seed)
    pos = game.parse(text)
    for _ in range(plies):
        moves = [m for m in game.moves(pos) if game.result(game.play(pos, m)) is None]
        pos = game.play(pos, rng.choice(moves))
    return game.format(pos)


def jobs():
    H, O = R.HOKITO, R.OXONO
    positions = [
        ("hokito", HOKITO_SEED_1, 3),
        ("hokito", HOKITO_SEED_2, 3),
        ("hokito", HOKITO_RANDOM36_SEED_1, 3),
        ("hokito", after_random_plies(H, HOKITO_SEED_1, 14, 1), 3),  # mid-game, stacks
        ("hokito", after_random_plies(H, HOKITO_RANDOM36_SEED_1, 20, 2), 4),  # late, tall stacks
        ("hokito", after_random_plies(H, HOKITO_SEED_2, 24, 3), 4),
        ("oxono", OXONO_SEED_1, 3),
        ("oxono", OXONO_SEED_2, 3),
        ("oxono", after_random_plies(O, OXONO_SEED_1, 10, 4), 3),  # mid-game
        ("oxono", after_random_plies(O, OXONO_SEED_2, 20, 5), 3),  # crowded board
        # Enclosed totems: X on a1 jumps along both edges; X on a1 with no jump goes anywhere;
        # X jumping to f1, whose neighbours are full, places anywhere.
        ("oxono", "-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,bx,-,-/bo,-,-,-,-,-/px,-,-,-,-,-/X,O,-,-,-,- p", 3),
        ("oxono", "bo,-,-,-,-,-/po,-,-,-,-,-/bx,-,-,-,-,-/px,-,-,-,-,-/bo,-,-,-,-,-/"
                  "X,O,px,bo,po,bx p", 3),
        ("oxono", "-,-,-,-,-,-/-,-,-,-,-,-/px,-,-,-,-,-/px,-,-,-,-,-/po,-,bx,-,-,bo/"
                  "X,po,bo,po,O,- p", 3),
    ]
    return [(g, d, text) for g, text, top in positions for d in range(1, top + 1)]


def count(job):
    g, depth, text = job
    game = R.GAMES[g]
    return "%s %d %d %s" % (g, depth, game.perft(game.parse(text), depth), text)


def main():
    with multiprocessing.Pool() as pool:
        for line in pool.map(count, jobs()):
            print(line)


if __name__ == "__main__":
    main()
