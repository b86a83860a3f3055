#!/usr/bin/env python3
"""Self-tests of the reference rules (rules_ref.py) on hand-made positions, worked out by hand from
the rule text (`hokito-engine rules`). Prints TAP and exits non-zero on failure. Needs nothing but
python3."""

import os
import random
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rules_ref as R  # noqa: E402

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def eq(got, want, what=""):
    if got != want:
        raise AssertionError("%s\n  got:  %r\n  want: %r" % (what, got, want))


def raises(exc, fn, *args):
    try:
        fn(*args)
    except exc as e:
        return str(e)
    raise AssertionError("%s not raised by %s%r" % (exc.__name__, fn.__name__, args))


def board_text(cells, side, empty="-"):
    """Position text from {square name: cell text}, every other square empty."""
    texts = [empty] * 36
    for name, cell in cells.items():
        texts[R.parse_square(name)] = cell
    return R.join_position(texts, side)


def hk(cells, side="b"):
    return R.hokito_parse(board_text(cells, side))


def ox(cells, side="p"):
    return R.oxono_parse(board_text(cells, side))


def hk_moves_of(pos, side):
    return sorted("%s-%s" % (R.square_name(a), R.square_name(b))
                  for a, b in R.hokito_moves_of(pos, side))


# -- HOKITO --------------------------------------------------------------------------------------

@test
def hokito_round_trip():
    text = "b1,-,w1b3,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,w2 w"
    pos = R.hokito_parse(text)
    eq(R.hokito_format(pos), text)
    eq(pos.board[R.parse_square("c6")], (("w", 1), ("b", 3)))
    eq(pos.board[R.parse_square("a6")], (("b", 1),))
    eq(pos.board[R.parse_square("f1")], (("w", 2),))


@test
def hokito_bad_texts():
    good = board_text({"a1": "b1"}, "b")
    eq(R.hokito_format(R.hokito_parse(good)), good)
    bad = [
        good.replace(" b", " x"),                 # unknown side
        good.replace(" b", "  b"),                # two spaces
        good.replace(" b", ""),                   # no side
        good.replace("b1,-,-,-,-,- b", "b1,-,-,-,- b"),  # five cells
        good.replace("/", "/-,", 1),              # seven cells
        good.replace("b1,", "b4,"),               # value 4
        good.replace("b1,", "b,"),                # half a pawn
        good.replace("b1,", "x1,"),               # colour x
        good.replace("b1,", "b1w,"),              # odd length
        good.replace("b1,", ","),                 # empty cell text
        "/".join(["b1b1b1b1b1b1"] * 1 + ["-,-,-,-,-,-"] * 5) + " b",
    ]
    for t in bad:
        raises(R.RulesError, R.hokito_parse, t)
    # 7 pawns b1 -> too many of a value; 19 black pawns -> too many of a colour.
    raises(R.RulesError, R.hokito_parse, board_text({"a1": "b1" * 7}, "b"))
    # A stack of odd height cannot arise: singles land on singles, stacks on stacks.
    raises(R.RulesError, R.hokito_parse, board_text({"a1": "b1w1b2"}, "b"))
    raises(R.RulesError, R.hokito_parse, board_text({"a1": "b1w1b2w2b3"}, "b"))
    raises(R.RulesError, R.hokito_parse,
           board_text({"a1": "b1" * 6 + "b2" * 6 + "b3" * 6, "a2": "w1" * 6, "a3": "b3"}, "b"))
    R.hokito_parse(board_text({"a1": "b1" * 6 + "b2" * 6 + "b3" * 6}, "b"))  # 18 is fine


@test
def hokito_hop_over_empty_stretch():
    pos = hk({"a1": "b1", "e1": "w1", "a6": "w1", "f6": "b1"})
    eq(hk_moves_of(pos, "b"), ["a1-a6", "a1-e1", "f6-a6"])


@test
def hokito_edge_blocks_hop():
    # a1's only neighbours in line are beyond the edge except up/right; f6 likewise.
    pos = hk({"a1": "b1", "f6": "w1"})
    eq(hk_moves_of(pos, "b"), [])
    eq(hk_moves_of(pos, "w"), [])


@test
def hokito_two_hops_turns_and_no_reversal():
    # b2 (value 2) hops right to d2, then up to d5 or right to f2 (not back to b2).
    pos = hk({"b2": "b2", "d2": "w1", "d5": "w1", "f2": "w3"})
    eq(hk_moves_of(pos, "b"), ["b2-d5", "b2-f2"])
    # A single neighbour, nothing else: the second hop has nowhere to go (back is forbidden).
    pos = hk({"c3": "b2", "c4": "w1"})
    eq(hk_moves_of(pos, "b"), [])


@test
def hokito_three_hops_and_path_texts():
    pos = hk({"a1": "b3", "a3": "w1", "c3": "w1", "c6": "w2", "f3": "w1"})
    # a1 -> a3 -> c3 -> c6 ; a1 -> a3 -> c3 -> f3 ; c3 -> c6 turn ok, c3 -> a3 back forbidden.
    eq(hk_moves_of(pos, "b"), ["a1-c6", "a1-f3"])
    eq(R.hokito_parse_move(pos, "a1-c6"), (0, R.parse_square("c6")))
    eq(R.hokito_parse_move(pos, "a1-a3-c3-c6"), (0, R.parse_square("c6")))
    raises(R.IllegalMove, R.hokito_parse_move, pos, "a1-a3-c6")
    raises(R.IllegalMove, R.hokito_parse_move, pos, "a1-b3-c3-c6")
    raises(R.IllegalMove, R.hokito_parse_move, pos, "a1-a3")
    raises(R.IllegalMove, R.hokito_parse_move, pos, "a3-c3")  # white pawn, black to move
    raises(R.RulesError, R.hokito_parse_move, pos, "a1c6")
    raises(R.RulesError, R.hokito_parse_move, pos, "a1-g6")
    raises(R.RulesError, R.hokito_parse_move, pos, "a1-")


@test
def hokito_same_target_two_paths_is_one_move():
    # b2 (value 2): b2->b4->d4 and b2->d2->d4 both end on d4.
    pos = hk({"b2": "b2", "b4": "w1", "d2": "w1", "d4": "w1"})
    eq(hk_moves_of(pos, "b"), ["b2-d4"])
    eq(R.hokito_parse_move(pos, "b2-b4-d4"), R.hokito_parse_move(pos, "b2-d2-d4"))


@test
def hokito_single_to_single_stack_to_stack():
    # Single b1 next to a stack and a single: may only end on the single.
    pos = hk({"c3": "b1", "c4": "w1w2", "d3": "w1", "a1": "w1"})
    eq(hk_moves_of(pos, "b"), ["c3-d3"])
    # Stack w1b1 (top b1) may only end on a stack, of any colour.
    pos = hk({"c3": "w1b1", "c4": "w1w2", "d3": "w1", "c1": "b2b3"})
    eq(hk_moves_of(pos, "b"), ["c3-c1", "c3-c4"])  # c1 (b3 on top) finds no third hop
    # Landing squares on the way may hold anything: single b1... via a stack to a single.
    pos = hk({"a1": "b2", "a4": "w1w3", "d4": "w2"})
    eq(hk_moves_of(pos, "b"), ["a1-d4"])


@test
def hokito_hop_ignores_own_origin():
    # The origin is vacated: a hop never stops on it (not reachable with <=3 hops anyway).
    pos = hk({"c3": "b3", "c5": "w1", "e5": "w1", "e3": "w1", "a3": "w1"})
    # c3->c5->e5->e3 and c3->e3->e5->c5 go round three sides of a square; c3->a3 is stuck.
    eq(hk_moves_of(pos, "b"), ["c3-c5", "c3-e3"])
    eq(R.hokito_parse_move(pos, "c3-e3-e5-c5"), (R.parse_square("c3"), R.parse_square("c5")))


@test
def hokito_apply_stacks():
    pos = hk({"c3": "w1b1", "c4": "w1w2", "a1": "w1", "e1": "w1", "f1": "w1"})
    after = R.hokito_apply(pos, R.hokito_parse_move(pos, "c3-c4"))
    eq(R.hokito_format(after), board_text({"c4": "w1w2w1b1", "a1": "w1", "e1": "w1", "f1": "w1"}, "w"))


@test
def hokito_game_over_either_side():
    # White to move has moves (a1-b1? no: a1 is white, b1 black): black has none -> over.
    pos = hk({"a1": "w1", "b1": "b3"}, side="w")
    eq(hk_moves_of(pos, "w"), ["a1-b1"])
    eq(hk_moves_of(pos, "b"), [])
    eq(R.hokito_result(pos), "b")  # black 3 vs white 1
    eq(R.hokito_moves(pos), [])
    eq(R.HOKITO.result_lines(pos), ["result: black wins", "score: black 3 white 1"])
    raises(R.IllegalMove, R.hokito_parse_move, pos, "a1-b1")
    eq(R.HOKITO.perft(pos, 1), 0)
    eq(R.HOKITO.perft(pos, 0), 1)


@test
def hokito_move_ending_the_game():
    pos = hk({"a1": "b1", "b1": "w1", "d3": "b2"})
    eq(hk_moves_of(pos, "w"), ["b1-a1"])
    eq(R.HOKITO.moves(pos), ["a1-b1"])
    after = R.HOKITO.play(pos, "a1-b1")
    eq(R.HOKITO.result_lines(after), ["result: black wins", "score: black 4 white 0"])
    eq(R.HOKITO.perft(pos, 1), 1)
    eq(R.HOKITO.perft(pos, 2), 0)


@test
def hokito_scores_and_draw():
    pos = hk({"a1": "w1b3", "a2": "b1w1w2w2", "c4": "w1", "f6": "b2"})
    eq(R.hokito_scores(pos), {"b": 6 + 2, "w": 8 + 1})
    pos = hk({"a1": "w3", "c3": "b3"})  # no moves at all: over, 3-3 draw
    eq(R.hokito_result(pos), "draw")
    eq(R.HOKITO.result_lines(pos), ["result: draw", "score: black 3 white 3"])


@test
def hokito_perft_small():
    # After a1-b1 (stack w1b1) white has f6-f5 only; after f5-f6 white has b1-a1 only.
    pos = hk({"a1": "b1", "b1": "w1", "f6": "w1", "f5": "b1"})
    eq(R.HOKITO.moves(pos), ["a1-b1", "f5-f6"])
    eq(R.HOKITO.perft(pos, 1), 2)
    # After a1-b1: board b1:w1b1, f6 w1, f5 b1; white f6-f5 only; black f5-f6.
    eq(R.HOKITO.divide(pos, 2), [("a1-b1", 1), ("f5-f6", 1)])


def hokito_start(rng, random36=False):
    pawns = [(c, v) for c in "bw" for v in (1, 2, 3) for _ in range(6)]
    board = [None] * 36
    if random36:
        rng.shuffle(pawns)
        board = [(p,) for p in pawns]
    else:
        black, white = pawns[:18], pawns[18:]
        rng.shuffle(black)
        rng.shuffle(white)
        board = [(p,) for p in black + white]
    return R.Hokito(tuple(board), "b")


@test
def hokito_random_playouts_invariants():
    rng = random.Random(7)
    for game in range(20):
        pos = hokito_start(rng, random36=game % 2 == 1)
        plies = 0
        while True:
            text = R.hokito_format(pos)
            eq(R.hokito_format(R.hokito_parse(text)), text)
            eq(sum(len(s) for s in pos.board), 36)
            moves = R.hokito_moves(pos)
            if not moves:
                eq(R.hokito_result(pos) is not None, True, "no moves but not over")
                break
            pos = R.HOKITO.play(pos, rng.choice(moves))
            plies += 1
            assert plies < 200


# -- OXONO ---------------------------------------------------------------------------------------

START = board_text({"c3": "X", "d4": "O"}, "p")


@test
def oxono_start():
    pos = R.oxono_parse(START)
    eq(R.oxono_format(pos), START)
    moves = R.oxono_moves(pos)
    # By hand, X on c3: 10 squares (a3 b3 d3 e3 f3 c1 c2 c4 c5 c6), whose empty neighbours
    # (c3 vacated, d4 held by O) number 3+4+3+4+3+3+4+3+4+3 = 34; O likewise 34.
    eq(len(moves), 68)
    eq("Xa3+a2" in moves, True)
    eq("Xd3+d4" in moves, False)  # O is on d4
    eq("Xc3+c2" in moves, False)  # a totem must move
    eq("Xc3+d3" in moves, False)
    eq("Xd3+c3" in moves, True)  # c3 is vacated by the move
    eq("Xd4+d5" in moves, False)  # cannot move onto the other totem
    eq("Xe4+e5" in moves, False)  # not in a straight line


@test
def oxono_bad_texts():
    for t in [START.replace(" p", " w"), START.replace("X", "O"),
              START.replace("X", "-"), START.replace("X", "x"), START.replace("X", "pz"),
              START.replace(" p", " p "), START.replace("/", ",", 1),
              board_text({"c3": "X", "d4": "O", "a1": "px", "a2": "px", "a3": "px", "b1": "px",
                          "b2": "px", "b3": "px", "c1": "px", "c2": "px", "e1": "px"}, "p")]:
        raises(R.RulesError, R.oxono_parse, t)
    pos = R.oxono_parse(START)
    for m in ["Xc5c6", "Xc5+", "Zc5+c6", "xc5+c6", "Xc7+c6", "Xc5-c6", ""]:
        raises(R.RulesError, R.oxono_parse_move, pos, m)
    raises(R.IllegalMove, R.oxono_parse_move, pos, "Xe4+e5")


@test
def oxono_slide_stops_at_pieces():
    pos = ox({"c3": "X", "d4": "O", "c5": "bx", "e3": "po", "a3": "bo"})
    targets = sorted(R.square_name(s) for s in R.oxono_totem_targets(pos.board, R.parse_square("c3")))
    eq(targets, ["b3", "c1", "c2", "c4", "d3"])


@test
def oxono_enclosed_on_edge_jumps():
    # X on a1 with a2 and b1 occupied: enclosed; jumps over a2,a3 to a4 and over b1 to c1.
    pos = ox({"a1": "X", "a2": "px", "a3": "bo", "b1": "O", "d4": "bx"})
    targets = sorted(R.square_name(s) for s in R.oxono_totem_targets(pos.board, 0))
    eq(targets, ["a4", "c1"])
    # Not enclosed when one neighbour is empty: plain slides only.
    pos = ox({"a1": "X", "a2": "px", "d4": "O"})
    targets = sorted(R.square_name(s) for s in R.oxono_totem_targets(pos.board, 0))
    eq(targets, ["b1", "c1", "d1", "e1", "f1"])


@test
def oxono_enclosed_no_jump_goes_anywhere():
    # X on a1, the whole first rank and file a occupied: both runs reach the edge.
    cells = {"a1": "X"}
    for s in ["b1", "c1", "d1", "e1", "f1", "a2", "a3", "a4", "a5", "a6"]:
        cells[s] = "po" if s[1] in "135" or s[0] in "bdf" else "bo"
    cells["b1"] = "O"
    pos = ox(cells)
    targets = R.oxono_totem_targets(pos.board, 0)
    eq(len(targets), 36 - 11)
    eq(all(pos.board[s] is None for s in targets), True)


@test
def oxono_placement_fallback_anywhere():
    # O on e6 with e5 and d6 occupied slides only to f6, whose neighbours are f5 (occupied) and
    # e6, just vacated: the pawn goes on e6.
    pos = ox({"e6": "O", "e5": "px", "d6": "bx", "f5": "po", "a1": "X"}, side="b")
    moves = [m for m in R.oxono_moves(pos) if m.startswith("O")]
    eq(moves, ["Of6+e6"])
    # X enclosed on a1 jumps up over a2..a4 to a5 (normal placements) or right over b1..e1 to
    # f1, whose neighbours e1 (O) and f2 are full: the pawn goes on any empty square.
    cells = {"a1": "X", "a2": "po", "b1": "po", "c1": "bo", "d1": "po", "c2": "bx", "e1": "O",
             "f2": "bo", "a3": "px", "a4": "px"}
    pos = ox(cells)
    moves = [m for m in R.oxono_moves(pos) if m.startswith("Xf1")]
    empty = sorted(R.square_name(s) for s in range(36) if pos.board[s] is None and s != 5)
    # f1's neighbours e1 (O) and f2 (pawn) are full: anywhere empty, including a1 just vacated.
    eq(sorted(m[4:] for m in moves), sorted(empty + ["a1"]))


@test
def oxono_reserves_limit_totems():
    cells = {"c3": "X", "d4": "O"}
    squares = ["a1", "c1", "e1", "b6", "d6", "f6", "a4", "f3"]  # no line
    for s in squares:
        cells[s] = "px"
    pos = ox(cells)
    eq(R.oxono_reserve(pos, "p", "x"), 0)
    eq(all(m[0] == "O" for m in R.oxono_moves(pos)), True)
    # Black may still use X.
    pos = ox(cells, side="b")
    eq(any(m[0] == "X" for m in R.oxono_moves(pos)), True)


@test
def oxono_lines():
    # Colour line mixed symbols.
    pos = ox({"a1": "px", "b1": "po", "c1": "px", "d1": "po", "f6": "X", "e6": "O"}, side="b")
    eq(R.oxono_result(pos), "p")
    # Symbol line mixed colours, vertical.
    pos = ox({"a1": "px", "a2": "bx", "a3": "px", "a4": "bx", "f6": "X", "e6": "O"}, side="p")
    eq(R.oxono_result(pos), "b")
    # Three only, and a totem breaking a line.
    pos = ox({"a1": "px", "b1": "px", "c1": "px", "d1": "X", "e1": "px", "e6": "O"})
    eq(R.oxono_result(pos), None)
    # Mixed colour and mixed symbol: no line.
    pos = ox({"a1": "px", "b1": "bo", "c1": "px", "d1": "px", "f6": "X", "e6": "O"})
    eq(R.oxono_result(pos), None)
    # Line of 5 made by filling the middle: X c3 -> c2, pink places on c1 (a1..e1 all pink).
    pos2 = ox({"a1": "px", "b1": "px", "d1": "px", "e1": "po", "c3": "X", "f6": "O"})
    after = R.OXONO.play(pos2, "Xc2+c1")
    eq(R.oxono_result(after), "p")
    eq(R.OXONO.result_lines(after), ["result: pink wins"])
    eq(R.OXONO.moves(after), [])


@test
def oxono_draw_when_all_placed():
    rng = random.Random(3)
    for _ in range(30):
        pos = R.oxono_parse(START if rng.random() < 0.5 else START.replace("X", "T")
                            .replace("O", "X").replace("T", "O"))
        while True:
            text = R.oxono_format(pos)
            eq(R.oxono_format(R.oxono_parse(text)), text)
            moves = R.oxono_moves(pos)
            if not moves:
                r = R.oxono_result(pos)
                eq(r is not None, True)
                if r == "draw":
                    eq(R.oxono_pawn_count(pos.board), 32)
                else:
                    eq(r, "b" if pos.side == "p" else "p")
                break
            pos = R.OXONO.play(pos, rng.choice(moves))


@test
def oxono_perft_start():
    pos = R.oxono_parse(START)
    eq(R.OXONO.perft(pos, 1), 68)
    eq(sum(n for _, n in R.OXONO.divide(pos, 2)), R.OXONO.perft(pos, 2))


def main():
    failed = 0
    for i, fn in enumerate(TESTS, 1):
        try:
            fn()
            print("ok %d - %s" % (i, fn.__name__))
        except Exception:
            failed += 1
            print("not ok %d - %s" % (i, fn.__name__))
            for line in traceback.format_exc().splitlines():
                print("# " + line)
    print("1..%d" % len(TESTS))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
