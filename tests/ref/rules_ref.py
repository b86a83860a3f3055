#!/usr/bin/env python3
"""Reference rules of HOKITO and OXONO: a deliberately slow, simple and independent implementation.

This file implements both games straight from the rule text (`hokito-engine rules`) and the rule
details the project decided (common/FORMATS.md), using the Python standard library only. It exists
to cross-check the C engine (common/) and the `hokito-engine` tool: it must never be derived from
the C code, and it favours being obviously correct over being fast. It owns nothing but itself and
does no I/O outside the command-line entry point at the bottom.

Squares are numbered like the C engine's notation: square = (rank - 1) * 6 + file, so a1 = 0,
f1 = 5, a6 = 30, f6 = 35. Positions are plain Python values:
  HOKITO: Hokito(board, side) where board is a tuple of 36 tuples of pawns, bottom to top, each pawn
          a (colour, value) pair with colour 'b' or 'w'; side is 'b' or 'w'.
  OXONO:  Oxono(board, side) where board is a tuple of 36 cells, each None, 'X', 'O' or a pawn
          (colour, symbol) with colour 'p' or 'b' and symbol 'x' or 'o'; side is 'p' or 'b'.

Command line (for cross-checking numbers by hand):
  python3 rules_ref.py moves --game G POSITION [MOVES...]
  python3 rules_ref.py perft --game G --depth D [--divide] POSITION [MOVES...]
  python3 rules_ref.py play  --game G POSITION MOVES...
"""

import argparse
import collections
import sys

SIZE = 6
DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0))  # (dfile, drank)


class RulesError(Exception):
    """Bad text (position or move): the message says what and where."""


class IllegalMove(Exception):
    """A well-formed move that is not legal in the position."""


def square_name(sq):
    return "abcdef"[sq % SIZE] + str(sq // SIZE + 1)


def parse_square(text):
    if len(text) != 2 or text[0] not in "abcdef" or text[1] not in "123456":
        raise RulesError("bad square %r" % text)
    return (int(text[1]) - 1) * SIZE + "abcdef".index(text[0])


def step(sq, d):
    """The neighbour of sq in direction d, or None past the edge."""
    f, r = sq % SIZE + d[0], sq // SIZE + d[1]
    if 0 <= f < SIZE and 0 <= r < SIZE:
        return r * SIZE + f
    return None


def neighbours(sq):
    return [n for n in (step(sq, d) for d in DIRECTIONS) if n is not None]


def split_position(text):
    """Split a position text into 36 cell texts (a1 first) and the side text."""
    if text.count(" ") != 1:
        raise RulesError("position must be six rows, one space, and the side to move")
    rows_text, side = text.split(" ")
    rows = rows_text.split("/")
    if len(rows) != SIZE:
        raise RulesError("position has %d rows, expected 6" % len(rows))
    cells = [None] * (SIZE * SIZE)
    for i, row in enumerate(rows):
        rank = SIZE - i  # rank 6 first
        row_cells = row.split(",")
        if len(row_cells) != SIZE:
            raise RulesError("rank %d has %d cells, expected 6" % (rank, len(row_cells)))
        for f, cell in enumerate(row_cells):
            cells[(rank - 1) * SIZE + f] = cell
    return cells, side


def join_position(cell_texts, side):
    rows = []
    for rank in range(SIZE, 0, -1):
        rows.append(",".join(cell_texts[(rank - 1) * SIZE:rank * SIZE]))
    return "/".join(rows) + " " + side


# ---------------------------------------------------------------------------------------------
# HOKITO

Hokito = collections.namedtuple("Hokito", "board side")


def hokito_parse(text):
    cells, side = split_position(text)
    if side not in ("b", "w"):
        raise RulesError("unknown side to move %r (expected b or w)" % side)
    board = []
    colour_count = collections.Counter()
    value_count = collections.Counter()
    for sq, cell in enumerate(cells):
        if cell == "-":
            board.append(())
            continue
        if cell == "" or len(cell) % 2 != 0:
            raise RulesError("bad stack %r at %s" % (cell, square_name(sq)))
        stack = []
        for i in range(0, len(cell), 2):
            c, v = cell[i], cell[i + 1]
            if c not in "bw" or v not in "123":
                raise RulesError("bad stack %r at %s" % (cell, square_name(sq)))
            stack.append((c, int(v)))
            colour_count[c] += 1
            value_count[(c, int(v))] += 1
        if len(stack) > 1 and len(stack) % 2:
            # Singles land on singles, stacks on stacks: every stack's height is even.
            raise RulesError("impossible stack %r (odd height) at %s" % (cell, square_name(sq)))
        board.append(tuple(stack))
    for c in "bw":
        if colour_count[c] > 18:
            raise RulesError("more than 18 pawns of colour %s" % c)
        for v in (1, 2, 3):
            if value_count[(c, v)] > 6:
                raise RulesError("more than 6 pawns %s%d" % (c, v))
    return Hokito(tuple(board), side)


def hokito_format(pos):
    cells = []
    for stack in pos.board:
        cells.append("".join("%s%d" % p for p in stack) if stack else "-")
    return join_position(cells, pos.side)


def hokito_hop(board, origin, sq, d):
    """Square reached by one hop from sq in direction d: the first occupied square, the mover's
    origin counting as vacated; None if the edge comes first."""
    cur = step(sq, d)
    while cur is not None:
        if board[cur] and cur != origin:
            return cur
        cur = step(cur, d)
    return None


def hokito_paths(board, origin):
    """Every legal hop path (list of squares, origin first) of the piece on origin."""
    stack = board[origin]
    hops = stack[-1][1]
    mover_is_stack = len(stack) >= 2
    paths = []

    def extend(path, last_dir):
        if len(path) - 1 == hops:
            final = board[path[-1]]
            if (len(final) >= 2) == mover_is_stack:
                paths.append(list(path))
            return
        for d in DIRECTIONS:
            if last_dir is not None and d == (-last_dir[0], -last_dir[1]):
                continue  # never back the way it came
            nxt = hokito_hop(board, origin, path[-1], d)
            if nxt is None or nxt in path:
                continue
            path.append(nxt)
            extend(path, d)
            path.pop()

    extend([origin], None)
    return paths


def hokito_moves_of(pos, side):
    """Sorted list of (from, to) pairs legal for side (whoever is to move)."""
    moves = set()
    for sq, stack in enumerate(pos.board):
        if stack and stack[-1][0] == side:
            for path in hokito_paths(pos.board, sq):
                moves.add((sq, path[-1]))
    return sorted(moves)


def hokito_is_over(pos):
    return not hokito_moves_of(pos, "b") or not hokito_moves_of(pos, "w")


def hokito_scores(pos):
    score = {"b": 0, "w": 0}
    for stack in pos.board:
        if stack:
            score[stack[-1][0]] += stack[-1][1] * len(stack)
    return score


def hokito_result(pos):
    """None while the game goes on, else 'b', 'w' or 'draw'."""
    if not hokito_is_over(pos):
        return None
    s = hokito_scores(pos)
    if s["b"] == s["w"]:
        return "draw"
    return "b" if s["b"] > s["w"] else "w"


def hokito_moves(pos):
    """Legal moves of the side to move as canonical texts; none when the game is over."""
    if hokito_is_over(pos):
        return []
    return ["%s-%s" % (square_name(a), square_name(b)) for a, b in hokito_moves_of(pos, pos.side)]


def hokito_parse_move(pos, text):
    """(from, to) of a move text `c2-e4` or a hop path `c2-c4-e4`; raises RulesError for malformed
    text and IllegalMove for a well-formed move that is not legal here."""
    parts = text.split("-")
    if len(parts) < 2:
        raise RulesError("bad move %r" % text)
    squares = [parse_square(p) for p in parts]
    if hokito_is_over(pos):
        raise IllegalMove("game is over")
    origin = squares[0]
    stack = pos.board[origin]
    if not stack or stack[-1][0] != pos.side:
        raise IllegalMove("no piece of the side to move on %s" % parts[0])
    legal = hokito_paths(pos.board, origin)
    if len(squares) == 2:
        if not any(p[-1] == squares[1] for p in legal):
            raise IllegalMove("illegal move %s" % text)
    elif squares not in legal:
        raise IllegalMove("illegal hop path %s" % text)
    return origin, squares[-1]


def hokito_apply(pos, move):
    a, b = move
    board = list(pos.board)
    board[b] = board[b] + board[a]
    board[a] = ()
    return Hokito(tuple(board), "w" if pos.side == "b" else "b")


# ---------------------------------------------------------------------------------------------
# OXONO

Oxono = collections.namedtuple("Oxono", "board side")
PAWN_TEXTS = {"px": ("p", "x"), "po": ("p", "o"), "bx": ("b", "x"), "bo": ("b", "o")}


def oxono_parse(text):
    cells, side = split_position(text)
    if side not in ("p", "b"):
        raise RulesError("unknown side to move %r (expected p or b)" % side)
    board = []
    count = collections.Counter()
    for sq, cell in enumerate(cells):
        if cell == "-":
            board.append(None)
        elif cell in ("X", "O"):
            if count[cell]:
                raise RulesError("two totems %s (second at %s)" % (cell, square_name(sq)))
            count[cell] += 1
            board.append(cell)
        elif cell in PAWN_TEXTS:
            count[cell] += 1
            board.append(PAWN_TEXTS[cell])
        else:
            raise RulesError("bad cell %r at %s" % (cell, square_name(sq)))
    for t in ("X", "O"):
        if not count[t]:
            raise RulesError("no totem %s" % t)
    for p in PAWN_TEXTS:
        if count[p] > 8:
            raise RulesError("more than 8 pawns %s" % p)
    return Oxono(tuple(board), side)


def oxono_format(pos):
    cells = []
    for cell in pos.board:
        if cell is None:
            cells.append("-")
        elif isinstance(cell, str):
            cells.append(cell)
        else:
            cells.append(cell[0] + cell[1])
    return join_position(cells, pos.side)


def oxono_reserve(pos, colour, symbol):
    return 8 - sum(1 for c in pos.board if c == (colour, symbol))


def oxono_has_line(board):
    """True if some row or column holds 4+ contiguous pawns of one colour or of one symbol."""
    for sq in range(SIZE * SIZE):
        for d in ((1, 0), (0, 1)):
            run = [sq]
            while len(run) < 4:
                n = step(run[-1], d)
                if n is None:
                    break
                run.append(n)
            if len(run) < 4:
                continue
            cells = [board[s] for s in run]
            if any(c is None or isinstance(c, str) for c in cells):
                continue
            if len({c[0] for c in cells}) == 1 or len({c[1] for c in cells}) == 1:
                return True
    return False


def oxono_pawn_count(board):
    return sum(1 for c in board if c is not None and not isinstance(c, str))


def oxono_result(pos):
    """None while the game goes on, else 'p', 'b' or 'draw'. A position holding a line was just
    won by the side that is not to move. A side to move with no pawn at all left in reserve (only
    in hand-made positions) has no move: counted a draw here."""
    if oxono_has_line(pos.board):
        return "b" if pos.side == "p" else "p"
    if oxono_pawn_count(pos.board) == 32:
        return "draw"
    if oxono_reserve(pos, pos.side, "x") == 0 and oxono_reserve(pos, pos.side, "o") == 0:
        return "draw"
    return None


def oxono_totem_targets(board, sq):
    """Squares the totem on sq can move to."""
    if any(board[n] is None for n in neighbours(sq)):
        targets = []
        for d in DIRECTIONS:
            cur = step(sq, d)
            while cur is not None and board[cur] is None:
                targets.append(cur)
                cur = step(cur, d)
        return targets
    # Enclosed: jump over the contiguous occupied run to the first empty square beyond.
    targets = []
    for d in DIRECTIONS:
        cur = step(sq, d)
        while cur is not None and board[cur] is not None:
            cur = step(cur, d)
        if cur is not None:
            targets.append(cur)
    if targets:
        return targets
    return [s for s in range(SIZE * SIZE) if board[s] is None]


def oxono_move_list(pos):
    """Legal moves as (totem, to, place) triples, side to move, ignoring game over."""
    moves = []
    for totem in ("X", "O"):
        symbol = totem.lower()
        if oxono_reserve(pos, pos.side, symbol) == 0:
            continue
        origin = pos.board.index(totem)
        for to in oxono_totem_targets(pos.board, origin):
            board = list(pos.board)
            board[origin] = None
            board[to] = totem
            places = [n for n in neighbours(to) if board[n] is None]
            if not places:
                places = [s for s in range(SIZE * SIZE) if board[s] is None]
            for p in places:
                moves.append((totem, to, p))
    return moves


def oxono_move_text(m):
    return "%s%s+%s" % (m[0], square_name(m[1]), square_name(m[2]))


def oxono_moves(pos):
    """Legal moves as canonical texts in the order of FORMATS.md: totem X before O, then the
    totem's square, then the pawn's square (a1, b1, ..., f6); none when the game is over."""
    if oxono_result(pos) is not None:
        return []
    return [oxono_move_text(m) for m in sorted(oxono_move_list(pos),
                                               key=lambda m: ("XO".index(m[0]), m[1], m[2]))]


def oxono_parse_move(pos, text):
    if len(text) != 6 or text[0] not in "XO" or text[3] != "+":
        raise RulesError("bad move %r" % text)
    m = (text[0], parse_square(text[1:3]), parse_square(text[4:6]))
    if oxono_result(pos) is not None:
        raise IllegalMove("game is over")
    if m not in oxono_move_list(pos):
        raise IllegalMove("illegal move %s" % text)
    return m


def oxono_apply(pos, move):
    totem, to, place = move
    board = list(pos.board)
    board[board.index(totem)] = None
    board[to] = totem
    board[place] = (pos.side, totem.lower())
    return Oxono(tuple(board), "b" if pos.side == "p" else "p")


# ---------------------------------------------------------------------------------------------
# One interface over both games.

class Game:
    def __init__(self, name, parse, fmt, moves, parse_move, apply, result, sides):
        self.name = name
        self.parse = parse
        self.format = fmt
        self.moves = moves  # canonical texts, [] when over
        self.parse_move = parse_move
        self.apply = apply
        self.result = result
        self.sides = sides  # letter -> word used by the tool's "result:" line

    def play(self, pos, text):
        return self.apply(pos, self.parse_move(pos, text))

    def perft(self, pos, depth):
        if depth == 0:
            return 1
        moves = self.moves(pos)
        if depth == 1:
            return len(moves)
        return sum(self.perft(self.play(pos, m), depth - 1) for m in moves)

    def divide(self, pos, depth):
        return [(m, self.perft(self.play(pos, m), depth - 1)) for m in self.moves(pos)]

    def result_lines(self, pos):
        """The lines `hokito-engine play` prints after the position: [] while the game goes on."""
        r = self.result(pos)
        if r is None:
            return []
        lines = ["result: draw" if r == "draw" else "result: %s wins" % self.sides[r]]
        if self.name == "hokito":
            s = hokito_scores(pos)
            lines.append("score: black %d white %d" % (s["b"], s["w"]))
        return lines


HOKITO = Game("hokito", hokito_parse, hokito_format, hokito_moves, hokito_parse_move,
              hokito_apply, hokito_result, {"b": "black", "w": "white"})
OXONO = Game("oxono", oxono_parse, oxono_format, oxono_moves, oxono_parse_move,
             oxono_apply, oxono_result, {"p": "pink", "b": "black"})
GAMES = {"hokito": HOKITO, "oxono": OXONO}


def main(argv):
    ap = argparse.ArgumentParser(description="Reference rules of HOKITO and OXONO.")
    ap.add_argument("command", choices=("moves", "perft", "play"))
    ap.add_argument("--game", choices=tuple(GAMES), required=True)
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--divide", action="store_true")
    ap.add_argument("position")
    ap.add_argument("moves", nargs="*")
    args = ap.parse_args(argv)
    game = GAMES[args.game]
    try:
        pos = game.parse(args.position)
        for m in args.moves:
            pos = game.play(pos, m)
    except RulesError as e:
        print("rules_ref: %s" % e, file=sys.stderr)
        return 2
    except IllegalMove as e:
        print("rules_ref: %s" % e, file=sys.stderr)
        return 1
    if args.command == "moves":
        for m in game.moves(pos):
            print(m)
    elif args.command == "perft":
        if args.divide:
            total = 0
            for m, n in game.divide(pos, args.depth):
                print("%s: %d" % (m, n))
                total += n
            print(total)
        else:
            print(game.perft(pos, args.depth))
    else:
        print(game.format(pos))
        for line in game.result_lines(pos):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
