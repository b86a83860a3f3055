#!/usr/bin/env python3
"""Black-box tests of the `hokito-engine` command-line tool, as a user sees it.

Checks the tool's documented contract (hokito-engine(6), FORMATS.md): `--help` on every command,
`start` (parsable, deterministic per seed, different across seeds), `moves`, `perft` (last line the
number alone, `--divide` lines summing to the total), `play` (the position, then `result:` and for
HOKITO `score:` lines when the game is over), exit codes (0 success, 1 illegal move, 2 bad usage or
bad text), errors as one line on stderr starting `hokito-engine: ` with nothing on stdout, and a
table of bad texts that must each be refused with a message naming the problem. Expected move lists
and counts come from the independent reference rules (tests/ref/rules_ref.py).

Environment: HOKITO_ENGINE, the path of the hokito-engine binary. Prints TAP; exits 1 on failure.
"""

import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ref"))
import rules_ref as R  # noqa: E402

ENGINE = os.environ.get("HOKITO_ENGINE", "hokito-engine")
PREFIX = "hokito-engine: "

results = []  # (ok, name, diagnostics)


def engine(*args):
    """Run the engine; returns (exit status, stdout text, stderr text)."""
    p = subprocess.run([ENGINE] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def check(name, diags):
    results.append((not diags, name, diags))


def show(rc, out, err):
    return "exit %d, stdout %r, stderr %r" % (rc, out[:300], err[:300])


def expect_error(args, status, keywords=None, one_line=True):
    """Diagnostics (empty when fine) for a command that must fail with status: nothing on stdout,
    a stderr starting with the prefix (one line only when one_line) that names the problem by one
    of keywords (case-insensitive)."""
    rc, out, err = engine(*args)
    d = []
    if rc != status:
        d.append("expected exit %d: %s" % (status, show(rc, out, err)))
    if out:
        d.append("expected nothing on stdout: %s" % show(rc, out, err))
    lines = err.splitlines()
    if not lines or not lines[0].startswith(PREFIX):
        d.append("expected stderr to start with %r: %s" % (PREFIX, show(rc, out, err)))
    elif one_line and len(lines) != 1:
        d.append("expected one line on stderr: %r" % err)
    if keywords and not any(k.lower() in err.lower() for k in keywords):
        d.append("stderr %r names none of %s" % (err.strip(), keywords))
    if d:
        d.insert(0, "command: hokito-engine %s" % " ".join(repr(a) for a in args))
    return d


def board_text(cells, side):
    texts = ["-"] * 36
    for name, cell in cells.items():
        texts[R.parse_square(name)] = cell
    return R.join_position(texts, side)


HK_START_1 = None  # filled by test_start


# -- help and usage ------------------------------------------------------------------------------

def test_help():
    for cmd in ("start", "moves", "perft", "play", "rules"):
        rc, out, err = engine(cmd, "--help")
        d = []
        if rc != 0:
            d.append("exit %d" % rc)
        if "usage" not in (out + err).lower() or cmd not in (out + err):
            d.append("no usage naming %r: %s" % (cmd, show(rc, out, err)))
        check("%s --help exits 0 and prints its usage" % cmd, d)
    # perft --help gives --divide's lines as they are printed: MOVE: COUNT (hokito-engine(6))
    rc, out, err = engine("perft", "--help")
    line = [l for l in out.splitlines() if l.strip().startswith("--divide")]
    check("perft --help: --divide prints MOVE: COUNT lines",
          [] if line and "MOVE: COUNT" in line[0] else [show(rc, out, err)])
    rc, out, err = engine("--help")
    check("--help exits 0 and prints the usage",
          [] if rc == 0 and "usage" in (out + err).lower() else [show(rc, out, err)])


def man_synopsis():
    """The SYNOPSIS lines of hokito-engine(6) as plain text, by command ("record": "hokito-engine
    record [--game G] FILE|-"): each .br ends a line; .B and .I words keep their spaces, the
    alternating macros (.RB, .IR, ...) join their arguments."""
    path = os.path.join(HERE, "..", "..", "deploy", "man", "hokito-engine.6")
    lines, words, on = [], [], False
    for line in open(path, encoding="utf-8").read().splitlines():
        if line.startswith(".SH"):
            on = line.split()[1] == "SYNOPSIS"
            continue
        if not on:
            continue
        if line == ".br":
            lines.append(" ".join(words))
            words = []
            continue
        macro, _, rest = line.partition(" ")
        args = shlex.split(rest.replace("\\", "\\\\"))
        words.append((" " if macro in (".B", ".I") else "").join(args).replace("\\-", "-"))
    lines.append(" ".join(words))
    return {l.split()[1]: l for l in lines if len(l.split()) > 1}


def test_usage_lines():
    """The usage line of every COMMAND --help names the options the command takes, as the
    SYNOPSIS of hokito-engine(6) does (record's had left out [--game G])."""
    synopsis = man_synopsis()
    for cmd in ("start", "moves", "perft", "play", "analyse", "bot", "record", "rules"):
        rc, out, err = engine(cmd, "--help")
        first = out.splitlines()[0] if out else ""
        want = "usage: " + synopsis.get(cmd, "(no SYNOPSIS line for %s)" % cmd)
        check("%s --help: the usage line is the SYNOPSIS line of hokito-engine(6)" % cmd,
              [] if rc == 0 and first == want else
              ["usage line %r" % first, "SYNOPSIS   %r" % want])
    # record takes its game from the record (hokito-engine(6)): --game has no default there.
    rc, out, err = engine("record", "--help")
    line = [l for l in out.splitlines() if l.strip().startswith("--game")]
    check("record --help: --game is the record's game, with no default",
          [] if line and "record" in line[0] and "default" not in line[0] else
          [show(rc, out, err)])


def test_help_examples():
    """The example at the end of each command's --help runs and succeeds (bot needs a server and
    record a file, so those two are left out)."""
    for cmd in ("start", "moves", "perft", "play", "analyse"):
        rc, out, err = engine(cmd, "--help")
        lines = out.splitlines()
        example = lines[lines.index("example:") + 1].strip() if "example:" in lines else ""
        if not example.startswith("hokito-engine %s " % cmd):
            check("%s --help shows an example" % cmd, [show(rc, out, err)])
            continue
        script = 'hokito-engine() { "$HOKITO_ENGINE_BIN" "$@"; }\n' + example
        p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, HOKITO_ENGINE_BIN=ENGINE))
        check("the example of %s --help succeeds: %s" % (cmd, example),
              [] if p.returncode == 0 and p.stdout and not p.stderr else
              [show(p.returncode, p.stdout, p.stderr)])


def test_bad_usage():
    pos = R.join_position(["-"] * 34 + ["b1", "w1"], "b")
    cases = [
        ("unknown command", ["frobnicate", "--game", "hokito"]),
        ("unknown game", ["start", "--game", "chess"]),
        ("moves without a position", ["moves", "--game", "hokito"]),
        ("unknown option", ["moves", "--game", "hokito", "--frob", pos]),
        ("--game without its value", ["start", "--game"]),
        ("non-numeric seed", ["start", "--game", "hokito", "--seed", "abc"]),
        ("unknown variant", ["start", "--game", "hokito", "--variant", "random99"]),
        ("perft without --depth", ["perft", "--game", "hokito", pos]),
        ("perft with a non-numeric depth", ["perft", "--game", "hokito", "--depth", "x", pos]),
        ("perft with a negative depth", ["perft", "--game", "hokito", "--depth", "-1", pos]),
        ("an option start does not take", ["start", "--depth", "3"]),
        ("an option moves does not take", ["moves", "--time", "5", pos]),
        ("an option play does not take", ["play", "--divide", pos]),
        ("--variant given to moves", ["moves", "--variant", "standard", pos]),
        ("an empty variant (neither standard nor random36)", ["start", "--variant", ""]),
        ("an empty variant after =", ["start", "--game", "oxono", "--variant="]),
        ("--divide with a value", ["perft", "--depth", "1", "--divide=1", pos]),
    ]
    for name, args in cases:
        check("bad usage exits 2: %s" % name, expect_error(args, 2, one_line=False))
    check("an option before the command: the command comes first",
          expect_error(["--game", "oxono", "start"], 2, ["command comes first"]))
    # --depth's range is the command's: perft counts depth 0, analyse searches 1 to 64.
    for args, rng in ((["perft", "--depth", "65", pos], "from 0 to 64"),
                      (["analyse", "--depth", "0", pos], "from 1 to 64"),
                      (["analyse", "--depth", "65", pos], "from 1 to 64")):
        check("bad usage exits 2: %s --depth %s names the range %s" % (args[0], args[2], rng),
              expect_error(args, 2, [rng]))
    # An empty variant is refused with the variants of the game, wherever --game stands.
    check("bad usage exits 2: an empty OXONO variant names OXONO's only variant",
          expect_error(["start", "--variant=", "--game", "oxono"], 2,
                       ["unknown variant '' for oxono (known: standard)"]))
    # No position, move or FILE starts with '-' and a letter: such an argument is an unknown
    # option for every command ("--" ends the options).
    for args, opt in ((["start", "-s", "5"], "-s"), (["bot", "-x"], "-x"),
                      (["moves", "-x", pos], "-x"), (["play", pos, "-q"], "-q"),
                      (["record", "-g"], "-g")):
        check("bad usage exits 2: %s %s is an unknown option" % (args[0], opt),
              expect_error(args, 2, ["unknown option '%s'" % opt]))
    # The bot's option values: an empty --host is a bad value (exit 2), not a server it cannot
    # reach; a --name of 32 characters is within the rule "1 to 32 characters" even when each
    # is 4 bytes (128 bytes), so the bot goes on to connect (nothing listens on port 1: exit 1).
    check("bad usage exits 2: bot --host ''",
          expect_error(["bot", "--host", "", "--port", "1", "--games", "1"], 2, ["--host"]))
    for n, status in ((32, 1), (33, 2)):
        check("bot --name of %d four-byte characters: exit %d" % (n, status),
              expect_error(["bot", "--port", "1", "--games", "1", "--name", "\U0001F600" * n],
                           status, ["connect" if status == 1 else "display name"]))
    # "--" ends the options: the position after it is read as a position.
    rc, out, err = engine("moves", "--game", "hokito", "--", pos)
    check("-- ends the options",
          [] if rc == 0 and out == "e6-f6\n" else [show(rc, out, err)])
    rc, out, err = engine("perft", "--depth", "99", "--frob", "--help")
    check("COMMAND --help prints the help whatever else the line holds",
          [] if rc == 0 and out.startswith("usage: hokito-engine perft") else
          [show(rc, out, err)])
    # No command at all is bad usage like any other: one line "hokito-engine: ..." naming the
    # usage (hokito-engine(6): errors are one line on standard error), exit 2, stdout empty.
    check("bad usage exits 2: no command, one line naming the usage",
          expect_error([], 2, ["usage"]))


# -- start ---------------------------------------------------------------------------------------

def start(*args):
    rc, out, err = engine("start", *args)
    lines = out.splitlines()
    if rc != 0 or len(lines) != 1:
        raise AssertionError("start %s: %s" % (" ".join(args), show(rc, out, err)))
    return lines[0]


def hokito_start_problems(text, random36):
    pos = R.hokito_parse(text)
    d = []
    if pos.side != "b":
        d.append("black moves first, got side %r" % pos.side)
    if any(len(s) != 1 for s in pos.board):
        d.append("expected one pawn per square")
        return d
    pawns = sorted(s[0] for s in pos.board)
    if pawns != sorted((c, v) for c in "bw" for v in (1, 2, 3) for _ in range(6)):
        d.append("expected six pawns of each value per colour")
    if not random36:
        if any(pos.board[sq][0][0] != ("b" if sq < 18 else "w") for sq in range(36)):
            d.append("standard setup: black on ranks 1-3, white on ranks 4-6")
    return d


def test_start():
    global HK_START_1
    for variant in ([], ["--variant", "random36"]):
        label = "hokito start" + (" random36" if variant else "")
        try:
            p1 = start("--game", "hokito", "--seed", "1", *variant)
            p1b = start("--game", "hokito", "--seed", "1", *variant)
            p2 = start("--game", "hokito", "--seed", "2", *variant)
            d = []
            for t in (p1, p2):
                d += ["%r: %s" % (t, e) for e in hokito_start_problems(t, bool(variant))]
            if p1 != p1b:
                d.append("seed 1 twice gave %r and %r" % (p1, p1b))
            if p1 == p2:
                d.append("seeds 1 and 2 gave the same position %r" % p1)
            if not variant:
                HK_START_1 = p1
                start("--game", "hokito")  # the seed is optional
        except (AssertionError, R.RulesError) as e:
            d = [str(e)]
        check("%s: a valid setup, the same for a seed, different across seeds" % label, d)
    d = []
    try:
        seen = set()
        for seed in range(1, 11):
            t = start("--game", "oxono", "--seed", str(seed))
            if t != start("--game", "oxono", "--seed", str(seed)):
                d.append("seed %d not deterministic" % seed)
            pos = R.oxono_parse(t)
            totems = {R.square_name(i): c for i, c in enumerate(pos.board) if c is not None}
            if pos.side != "p" or totems not in ({"c3": "X", "d4": "O"}, {"c3": "O", "d4": "X"}):
                d.append("seed %d: expected totems on c3 and d4 and pink to move: %r" % (seed, t))
            seen.add(t)
        if len(seen) != 2:
            d.append("seeds 1..10 should give both totem arrangements, got %s" % sorted(seen))
        start("--game", "oxono")
    except (AssertionError, R.RulesError) as e:
        d.append(str(e))
    check("oxono start: totems on c3 and d4, pink to move, X placed by the seed", d)


# -- moves, perft, play --------------------------------------------------------------------------

HK_DRAW = ("w1,-,-,-,-,-/w2,b1,-,-,-,-/-,-,-,-,-,-/w1,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b",
           "b5-a5")
HK_OVER = board_text({"a1": "w1", "b1": "b3", "f6": "w2"}, "w")  # black blocked, not to move
OX_START = board_text({"c3": "X", "d4": "O"}, "p")
OX_DRAW = ("bo,O,bo,po,px,po/bo,bx,po,bo,px,bo/bx,bx,X,px,px,-/px,bx,po,po,bo,px/"
           "-,-,px,bo,po,bx/bx,bx,po,px,po,bx b", "Ob2+a2")
OX_WIN = (board_text({"a1": "px", "b1": "px", "d1": "px", "e1": "po", "c3": "X", "f6": "O"}, "p"),
          "Xc2+c1")
OX_OVER = board_text({"a1": "px", "a2": "bx", "a3": "px", "a4": "bx", "f6": "X", "e6": "O"}, "p")


def test_moves():
    for game, text in (("hokito", HK_START_1), ("oxono", OX_START),
                       ("hokito", board_text({"c3": "w1b1", "c4": "w1w2", "d3": "w1",
                                              "c1": "b2b3", "a1": "b2", "a4": "w1w3"}, "b"))):
        if text is None:
            continue
        want = R.GAMES[game].moves(R.GAMES[game].parse(text))
        rc, out, err = engine("moves", "--game", game, text)
        d = []
        if rc != 0 or err:
            d.append(show(rc, out, err))
        lines = out.splitlines()
        if lines != want:
            d.append("expected %d moves %s, got %d: %s" % (len(want), want, len(lines), lines))
        check("moves %s %s: one canonical move per line, all legal moves, in the documented "
              "order" % (game, text), d)
    for game, text in (("hokito", HK_OVER), ("oxono", OX_OVER)):
        rc, out, err = engine("moves", "--game", game, text)
        check("moves on a finished %s game prints nothing, exit 0" % game,
              [] if (rc, out) == (0, "") else [show(rc, out, err)])


def test_perft():
    cases = [("hokito", HK_START_1, 2), ("oxono", OX_START, 2),
             ("hokito", board_text({"b2": "w2b1w2b3", "b5": "w3b1", "e5": "b2w1w1w3",
                                    "e2": "w1w1", "c2": "b1", "f5": "w2", "a5": "b3"}, "w"), 3),
             ("hokito", HK_OVER, 2), ("oxono", OX_OVER, 1)]
    for game, text, depth in cases:
        if text is None:
            continue
        g = R.GAMES[game]
        pos = g.parse(text)
        want = g.perft(pos, depth)
        d = []
        rc, out, err = engine("perft", "--game", game, "--depth", depth, text)
        lines = out.splitlines()
        if rc != 0 or not lines or lines[-1] != str(want):
            d.append("perft: expected last line %r: %s" % (str(want), show(rc, out, err)))
        rc, out, err = engine("perft", "--game", game, "--depth", depth, "--divide", text)
        lines = out.splitlines()
        if rc != 0 or not lines or lines[-1] != str(want):
            d.append("perft --divide: expected last line %r: %s" % (str(want), show(rc, out, err)))
        else:
            per = {}
            for line in lines[:-1]:
                m, sep, n = line.partition(": ")
                if not sep or not n.isdigit():
                    d.append("--divide line %r is not `<move>: <count>`" % line)
                    continue
                per[m] = int(n)
            if sum(per.values()) != want:
                d.append("--divide counts sum to %d, total %d" % (sum(per.values()), want))
            if sorted(per) != sorted(g.moves(pos)):
                d.append("--divide moves %s differ from the legal moves" % sorted(per))
            if per != dict(g.divide(pos, depth)):
                d.append("--divide counts %s, reference %s" % (per, dict(g.divide(pos, depth))))
        check("perft %s depth %d (= %d): last line the number, --divide sums to it"
              % (game, depth, want), d)
    # Depth 0 counts the position itself, and --divide has no move to divide it by
    # (hokito-engine(6)): the count alone.
    rc, out, err = engine("perft", "--depth", "0", "--divide", R.join_position(
        ["-"] * 34 + ["b1", "w1"], "b"))
    check("perft --depth 0 --divide prints 1 alone",
          [] if rc == 0 and out == "1\n" else [show(rc, out, err)])


def expect_play(name, game, text, moves, want_lines):
    rc, out, err = engine("play", "--game", game, text, *moves)
    d = []
    if rc != 0 or out.splitlines() != want_lines:
        d.append("play %r %s: expected %s, got %s" % (text, " ".join(moves), want_lines,
                                                      show(rc, out, err)))
    check(name, d)


def test_play():
    g = R.HOKITO
    if HK_START_1:
        pos = g.parse(HK_START_1)
        seq = []
        for _ in range(3):
            m = g.moves(pos)[len(seq) * 7 % len(g.moves(pos))]
            seq.append(m)
            pos = g.play(pos, m)
        expect_play("play hokito: three moves, prints the resulting position", "hokito",
                    HK_START_1, seq, [g.format(pos)])
    # Path input: c3 -> c5 -> e5 -> e3 is the same move as c3-e3.
    text = board_text({"c3": "b3", "c5": "w1", "e5": "w2", "e3": "w3", "a3": "w1", "f6": "w1"},
                      "b")
    after = g.play(g.parse(text), "c3-e3")
    after = [g.format(after)] + g.result_lines(after)
    expect_play("play hokito: a hop path is accepted and equals the from-to move", "hokito",
                text, ["c3-c5-e5-e3"], after)
    expect_play("play hokito: from-to form of the same move", "hokito", text, ["c3-e3"], after)
    pos, m = HK_DRAW
    expect_play("play hokito: a move ending the game in a draw prints result and score",
                "hokito", pos, [m], [g.format(g.play(g.parse(pos), m)), "result: draw",
                                     "score: black 2 white 2"])
    text = board_text({"a1": "b1", "b1": "w1", "d3": "b2"}, "b")
    expect_play("play hokito: a move blocking the opponent ends the game, winner and scores",
                "hokito", text, ["a1-b1"],
                [board_text({"b1": "w1b1", "d3": "b2"}, "w"),
                 "result: black wins", "score: black 4 white 0"])
    o = R.OXONO
    expect_play("play oxono: prints the resulting position", "oxono", OX_START,
                ["Xc5+c6", "Ob4+b3"],
                [board_text({"c5": "X", "c6": "px", "b4": "O", "b3": "bo"}, "p")])
    pos, m = OX_WIN
    expect_play("play oxono: a line of five wins for the placer", "oxono", pos, [m],
                [o.format(o.play(o.parse(pos), m)), "result: pink wins"])
    pos, m = OX_DRAW
    expect_play("play oxono: the 32nd pawn without a line is a draw", "oxono", pos, [m],
                [o.format(o.play(o.parse(pos), m)), "result: draw"])


# -- exit codes and bad texts --------------------------------------------------------------------

def test_illegal_moves():
    pos = board_text({"c3": "b3", "c5": "w1", "e5": "w2", "e3": "w3", "a3": "w1", "f6": "w1"},
                     "b")
    cases = [
        ("hokito", pos, ["c3-a3"], "a move to a square the piece cannot reach"),
        ("hokito", pos, ["c5-e5"], "moving the opponent's pawn"),
        ("hokito", pos, ["d4-e4"], "moving from an empty square"),
        ("hokito", pos, ["c3-c5-e5"], "a hop path one hop short"),
        ("hokito", pos, ["c3-c4-e5-e3"], "a hop path with a hop that does not stop at the first "
                                         "occupied square"),
        ("hokito", pos, ["c3-c5-e5-e3-e1"], "a hop path longer than any pawn's value"),
        ("hokito", pos, ["c3-e3", "c3-e3"], "a second move that is illegal"),
        ("hokito", HK_OVER, ["a1-b1"], "any move in a finished game"),
        ("oxono", OX_START, ["Xe4+e5"], "a totem moving diagonally"),
        ("oxono", OX_START, ["Xd4+d5"], "a totem moving onto the other totem"),
        ("oxono", OX_START, ["Xc4+e6"], "a placement not next to the totem"),
        ("oxono", OX_START, ["Xc4+c4"], "a placement on the totem"),
        ("oxono", OX_OVER, ["Xf5+f4"], "any move in a finished game"),
    ]
    for game, text, moves, name in cases:
        check("illegal move exits 1: %s %s" % (game, name),
              expect_error(["play", "--game", game, text] + moves, 1))


HK_GOOD = board_text({"a1": "b1", "b1": "w1"}, "b")
OX_GOOD = OX_START
MOVE_WORDS = ["move", "square"]
CELL_WORDS = ["cell", "row", "rank", "square", "column", "file"]
STACK_WORDS = ["stack", "pawn", "cell", "piece"]
COUNT_WORDS = ["too many", "more than", "18", " 6", "six", "value", "count"]
SIDE_WORDS = ["side", "turn", "to move"]

BAD_POSITIONS = [
    ("hokito", "five cells in a row", HK_GOOD.replace("b1,w1,", "b1,"), CELL_WORDS),
    ("hokito", "seven cells in a row", HK_GOOD.replace("b1,w1,", "b1,w1,-,"), CELL_WORDS),
    ("hokito", "five rows", HK_GOOD.split("/", 1)[1], CELL_WORDS),
    ("hokito", "seven rows", "-,-,-,-,-,-/" + HK_GOOD, CELL_WORDS),
    ("hokito", "empty text", "", CELL_WORDS + ["position", "empty"]),
    ("hokito", "pawn value 4", HK_GOOD.replace("b1,w1", "b4,w1"), STACK_WORDS + ["value"]),
    ("hokito", "pawn value 0", HK_GOOD.replace("b1,w1", "b0,w1"), STACK_WORDS + ["value"]),
    ("hokito", "unknown colour", HK_GOOD.replace("b1,w1", "x1,w1"), STACK_WORDS + ["colour"]),
    ("hokito", "half a pawn", HK_GOOD.replace("b1,w1", "b1w,w1"), STACK_WORDS),
    ("hokito", "empty cell text", HK_GOOD.replace("b1,w1", ",w1"), STACK_WORDS + CELL_WORDS),
    ("hokito", "an OXONO cell", HK_GOOD.replace("b1,w1", "X,w1"), STACK_WORDS),
    ("hokito", "19 black pawns", board_text({"a1": "b1" * 6, "a2": "b2" * 6, "a3": "b3" * 6,
                                             "a4": "b1", "f6": "w1"}, "b"), COUNT_WORDS),
    ("hokito", "8 white pawns of value 2", board_text({"a1": "w2" * 4, "a2": "w2" * 4,
                                                       "f6": "b1"}, "b"), COUNT_WORDS),
    ("hokito", "8 black pawns of value 3 on one square", board_text({"c3": "b3" * 8,
                                                                     "f6": "w1"}, "b"),
     COUNT_WORDS),
    ("hokito", "a stack of three (odd heights cannot arise)",
     board_text({"a1": "b1w1b2", "f6": "w1"}, "b"), STACK_WORDS),
    ("hokito", "a stack of five", board_text({"a1": "b1w1b2w2b3", "f6": "w1"}, "b"),
     STACK_WORDS),
    ("hokito", "unknown side", HK_GOOD[:-1] + "x", SIDE_WORDS),
    ("hokito", "OXONO side p", HK_GOOD[:-1] + "p", SIDE_WORDS),
    ("hokito", "no side", HK_GOOD[:-2], SIDE_WORDS + ["space"]),
    ("hokito", "two spaces", HK_GOOD[:-2] + "  b", SIDE_WORDS + ["space"]),
    ("hokito", "trailing text", HK_GOOD + " w", SIDE_WORDS + ["space", "trailing"]),
    # A stray space is named as a space, in rank 1 too (not as a short rank or a bad cell)
    ("hokito", "a space after a cell of rank 1",
     board_text({"b1": "b1 ", "f6": "w1"}, "b"), ["space"]),
    ("hokito", "a space inside a stack", board_text({"c3": "b1 w1", "f6": "w1"}, "b"),
     ["space"]),
    ("oxono", "a space after a pawn of rank 1",
     board_text({"c3": "X", "d4": "O", "b1": "px "}, "p"), ["space"]),
    ("oxono", "a space inside a pawn", board_text({"c3": "X", "d4": "O", "b1": "p x"}, "p"),
     ["space"]),
    ("oxono", "a space before a '/'", board_text({"c3": "X", "d4": "O", "f6": "- "}, "p"),
     ["space"]),
    ("oxono", "two totems X", OX_GOOD.replace("O", "X"), ["totem"]),
    ("oxono", "two totems O", OX_GOOD.replace("X", "O"), ["totem"]),
    ("oxono", "no totem X", OX_GOOD.replace("X", "-"), ["totem"]),
    ("oxono", "unknown cell", OX_GOOD.replace("X", "x"), ["cell", "pawn", "totem"]),
    ("oxono", "a HOKITO cell", board_text({"c3": "X", "d4": "O", "a1": "b1"}, "p"),
     ["cell", "pawn"]),
    ("oxono", "wrong cell count", OX_GOOD.replace("-,-,-,-,-,-/", "-,-,-,-,-/", 1), CELL_WORDS),
    ("oxono", "nine pink X pawns",
     board_text({"c3": "X", "d4": "O", "a1": "px", "c1": "px", "e1": "px", "b6": "px",
                 "d6": "px", "f6": "px", "a4": "px", "f3": "px", "a6": "px"}, "b"),
     COUNT_WORDS + ["8", "reserve"]),
    ("oxono", "unknown side", OX_GOOD[:-1] + "w", SIDE_WORDS),
]

BAD_MOVES = [
    ("hokito", HK_GOOD, "a1b1"), ("hokito", HK_GOOD, "a1-"), ("hokito", HK_GOOD, "a1-g1"),
    ("hokito", HK_GOOD, "a1-b7"), ("hokito", HK_GOOD, "a1--b1"), ("hokito", HK_GOOD, ""),
    ("hokito", HK_GOOD, "A1-B1"), ("hokito", HK_GOOD, "Xa1+b1"), ("hokito", HK_GOOD, "a1-b1 "),
    ("oxono", OX_GOOD, "Xc5c6"), ("oxono", OX_GOOD, "Xc5+"), ("oxono", OX_GOOD, "Zc5+c6"),
    ("oxono", OX_GOOD, "c5+c6"), ("oxono", OX_GOOD, "Xc7+c6"), ("oxono", OX_GOOD, "Xc5-c6"),
    ("oxono", OX_GOOD, "Xc5+c6+c4"), ("oxono", OX_GOOD, ""), ("oxono", OX_GOOD, "c2-e4"),
]


def test_bad_texts():
    for game, name, text, words in BAD_POSITIONS:
        d = []
        try:
            R.GAMES[game].parse(text)
            d.append("test table error: the reference accepts %r" % text)
        except R.RulesError:
            pass
        for cmd in (["moves"], ["perft", "--depth", "1"], ["play"]):
            args = [cmd[0], "--game", game] + cmd[1:] + [text]
            if cmd[0] == "play":
                args.append("a1-b1" if game == "hokito" else "Xc4+c5")
            d += expect_error(args, 2, words)
        check("bad %s position exits 2 naming the problem: %s" % (game, name), d)
    for game, text, move in BAD_MOVES:
        check("malformed %s move %r exits 2" % (game, move),
              expect_error(["play", "--game", game, text, move], 2, MOVE_WORDS + [move or "empty"]))
    # a clear error that says what and where, "with the character where it goes
    # wrong" (FORMATS.md): a malformed move names its character, like a bad position.
    for game, text, move, at in [("hokito", HK_GOOD, "a1-b1 ", 6), ("hokito", HK_GOOD, "a1b1", 3),
                                 ("oxono", OX_GOOD, "Xc5+c7", 5), ("oxono", OX_GOOD, "Xc5-c6", 4)]:
        check("malformed %s move %r names character %d" % (game, move, at),
              expect_error(["play", "--game", game, text, move], 2, ["character %d" % at]))


def test_record_reason():
    """`record` prints how a game that the rules did not end stopped: the record's own reason."""
    head = '[Game "hokito"]\n[Variant "standard"]\n[Seed "1"]\n'
    cases = [
        ("white", "time", "result: white wins (time)"),
        ("white", "resign", "result: white wins (resign)"),
        ("black", "disconnect", "result: black wins (disconnect)"),
        ("draw", "agreement", "result: draw (agreement)"),
    ]
    for result, reason, want in cases:
        text = '%s[Result "%s"]\n[Reason "%s"]\n\n1. a1-c1 a4-a5 %s\n' % (head, result, reason,
                                                                          result)
        p = subprocess.run([ENGINE, "record", "-"], input=text, capture_output=True, text=True,
                           timeout=60)
        lines = p.stdout.splitlines()
        d = [] if p.returncode == 0 and len(lines) == 3 and lines[1] == want and \
            lines[2] == "score: black 37 white 34" else [show(p.returncode, p.stdout, p.stderr)]
        check("record: %s by %s prints %r" % (result, reason, want), d)
    # Read from standard input, an error names the place as (stdin):LINE:COLUMN
    # (hokito-engine(6)); here the Score header's value, line 6 column 9.
    text = '%s[Result "white"]\n[Reason "time"]\n[Score "1-2"]\n\n1. a1-c1 a4-a5 white\n' % head
    p = subprocess.run([ENGINE, "record", "-"], input=text, capture_output=True, text=True,
                       timeout=60)
    check("record -: an error names the place as (stdin):LINE:COLUMN",
          [] if p.returncode == 2 and not p.stdout and
          p.stderr.startswith(PREFIX + "(stdin):6:9: ") else
          [show(p.returncode, p.stdout, p.stderr)])
    # Standard input that cannot be read (here a directory) is named (stdin) too, with why.
    fd = os.open("/", os.O_RDONLY)
    try:
        p = subprocess.run([ENGINE, "record", "-"], stdin=fd, capture_output=True, text=True,
                           timeout=60)
    finally:
        os.close(fd)
    check("record -: a read error names (stdin) and why",
          [] if p.returncode == 2 and not p.stdout and
          p.stderr == PREFIX + "cannot read (stdin): Is a directory\n" else
          [show(p.returncode, p.stdout, p.stderr)])
    # --game is not needed, and must agree with the record's game when given
    text = '%s[Result "white"]\n[Reason "time"]\n\n1. a1-c1 a4-a5 white\n' % head
    for game, status in (("hokito", 0), ("oxono", 2)):
        p = subprocess.run([ENGINE, "record", "--game", game, "-"], input=text,
                           capture_output=True, text=True, timeout=60)
        good = p.returncode == status and (
            status == 0 or (not p.stdout and p.stderr.startswith(PREFIX) and
                            "oxono" in p.stderr and p.stderr.count("\n") == 1))
        check("record --game %s of a hokito record: exit %d" % (game, status),
              [] if good else [show(p.returncode, p.stdout, p.stderr)])


def test_long_input():
    """Text however long is read whole and refused for what is wrong with it, and the error
    still says it: the reason is not cut off after a long quote."""
    board = "/".join([",".join(["-"] * 6)] * 5)
    cases = [
        # 300 black 1s on a6: a 19th black pawn (cut at 511 bytes, it had read as an odd stack)
        (["moves", "b1" * 300 + "," + ",".join(["-"] * 5) + "/" + board + " b"],
         "19 black pawns: a player has at most 18"),
        # the same, the side as a second argument
        (["moves", "b1" * 300 + "," + ",".join(["-"] * 5) + "/" + board, "b"],
         "19 black pawns: a player has at most 18"),
        (["moves", "b1" * 3000 + "b," + ",".join(["-"] * 5) + "/" + board + " b"],
         "is not a stack (pawns are a colour letter b or w and a value 1 to 3, like w1b3)"),
        (["play", R.join_position(["-"] * 34 + ["b1", "w1"], "b"), "e6-" * 2000 + "f6"],
         "makes exactly 1 hop, this path has 2000"),
        (["play", R.join_position(["-"] * 34 + ["b1", "w1"], "b"), "x" * 2000],
         "write from-to like c2-e4, or the hop path like c2-c4-e4"),
    ]
    for args, says in cases:
        rc, out, err = engine(*args)
        lines = err.splitlines()
        check("a long input is refused for what is wrong, said at the end: %r" % says,
              [] if rc in (1, 2) and not out and len(lines) == 1 and
              lines[0].startswith(PREFIX) and lines[0].endswith(says) else
              ["exit %d, stdout %r, stderr ...%r" % (rc, out[:100], err[-300:])])

def test_output_error():
    """Output that cannot be written is not a success: exit 2 and one line on stderr
    (hokito-engine(6)), for a command's output and for --help alike."""
    if not os.path.exists("/dev/full"):
        return
    for args in (["start", "--seed", "1"], ["start", "--help"], ["--help"]):
        with open("/dev/full", "w") as full:
            p = subprocess.run([ENGINE] + args, stdout=full, stderr=subprocess.PIPE, text=True,
                               timeout=60)
        check("%s with standard output full: exit 2, one line on stderr" % " ".join(args),
              [] if p.returncode == 2 and p.stderr.startswith(PREFIX + "cannot write") and
              p.stderr.count("\n") == 1 else ["exit %d, stderr %r" % (p.returncode, p.stderr)])

def test_error_one_line():
    """An error quoting what the user typed stays one line of UTF-8: line breaks, control
    characters (C1 ones too) and bytes that are not UTF-8 in an argument are escaped."""
    cases = [
        ("a move holding a line break", ["play", HK_GOOD, "a1\nb1"], 2),
        ("a position holding a line break", ["moves", HK_GOOD.replace("b1", "b1\n")], 2),
        ("a position holding a tab", ["moves", HK_GOOD.replace("b1", "\tb1")], 2),
        ("a position holding bytes that are not UTF-8",
         ["moves", HK_GOOD.encode().replace(b"b1", b"\xff\xfe")], 2),
        ("a record file name holding a line break", ["record", "no-such\nfile"], 2),
        # NEL (U+0085, a C1 control) and U+2028/U+2029 break lines as well (str.splitlines)
        ("a move holding a NEL", ["play", HK_GOOD, "a1\u0085b1"], 2),
        ("a move holding a line separator", ["play", HK_GOOD, "a1\u2028b1"], 2),
        ("a record file name holding a paragraph separator", ["record", "no-such\u2029f"], 2),
    ]
    for name, args, status in cases:
        p = subprocess.run([ENGINE] + args, capture_output=True, timeout=60)
        d = []
        if p.returncode != status:
            d.append("exit %d, expected %d" % (p.returncode, status))
        try:
            err = p.stderr.decode("utf-8")
        except UnicodeDecodeError:
            err = None
            d.append("stderr is not UTF-8: %r" % p.stderr)
        if err is not None and (not err.startswith(PREFIX) or err.count("\n") != 1
                                or len(err.splitlines()) != 1 or not err.endswith("\n")):
            d.append("expected one prefixed line on stderr: %r" % err)
        check("error stays one line of UTF-8: %s" % name, d)


def test_rules():
    """rules --game G prints the rules of G in words (the client's rules page and hokito(6) show
    the same): plain ASCII, at most 76 columns; HOKITO's by default; the game may be its argument."""
    for game, words in (("hokito", ("HOKITO:", "THE AIM", "hops")),
                        ("oxono", ("OXONO:", "totem", "four"))):
        rc, out, err = engine("rules", "--game", game)
        d = [] if rc == 0 and not err else [show(rc, out, err)]
        d += ["no %r" % w for w in words if w not in out]
        d += ["line over 76 columns or not ASCII: %r" % l for l in out.splitlines()
              if len(l) > 76 or not l.isascii()]
        check("rules --game %s prints its rules, ASCII, 76 columns" % game, d)
    rc, out, err = engine("rules")
    check("rules without --game: HOKITO's", [] if rc == 0 and out.startswith("HOKITO:") else
          [show(rc, out, err)])
    rc, out, err = engine("rules", "oxono")
    rc2, out2, err2 = engine("rules", "--game", "oxono")
    check("rules oxono: the same as rules --game oxono (as the client's rules command)",
          [] if rc == 0 and out == out2 and out.startswith("OXONO:") else [show(rc, out, err)])
    check("bad usage exits 2: rules with an argument that is no game",
          expect_error(("rules", "x"), 2, ["hokito or oxono"]))
    check("bad usage exits 2: rules oxono --game hokito (two games)",
          expect_error(("rules", "oxono", "--game", "hokito"), 2, ["two games"]))
    check("bad usage exits 2: rules hokito oxono",
          expect_error(("rules", "hokito", "oxono"), 2, ["one game at most"]))
    check("bad usage exits 2: rules --game chess",
          expect_error(("rules", "--game", "chess"), 2, one_line=False))


def main():
    for t in (test_rules, test_help, test_usage_lines, test_help_examples, test_bad_usage, test_start,
              test_moves, test_perft, test_play, test_illegal_moves, test_bad_texts,
              test_long_input, test_output_error, test_error_one_line, test_record_reason):
        try:
            t()
        except Exception as e:  # a broken test case is a failure, not a crash
            check("%s raised %s: %s" % (t.__name__, type(e).__name__, e), ["exception"])
    failed = 0
    for i, (ok, name, diags) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
        for d in diags:
            for line in str(d).splitlines():
                print("# " + line)
        failed += not ok
    print("1..%d" % len(results))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
