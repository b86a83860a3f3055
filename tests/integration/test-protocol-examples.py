#!/usr/bin/env python3
"""test-protocol-examples: every example of PROTOCOL.md said to be "recorded from the real
server" is what the real hokitod says today.

Each example has its recorder (tests/integration/example-*.py), which replays the example's
client lines against a fresh hokitod and prints the example as PROTOCOL.md shows it. This runs
each recorder and compares its output with the example's block, line by line: every `C>` line
(what the client sends) and every `S>` line (what the server answers) must be the same JSON,
member for member and in order, for the same connection. Normalised before the comparison,
because they differ from run to run by design:
- `token` (a new random session token): any 32 hex digits;
- `created_ms`, `ended_ms` (wall-clock times) and a record's `[Date "..."]` tag: any value;
- a game created without a seed (a rematch: the game named by `rematch_started`'s `new_game`)
  starts from a random position: its `seed`, `start`, `position`, `cells` and `moves` are not
  compared. The seeds of the others are given, so their positions are compared.
Every section that says "recorded from the real server" must have a recorder listed here.

Run by meson (HOKITOD); prints TAP.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from serverlib import Tap  # noqa: E402

DOC = os.path.join(HERE, "..", "..", "protocol", "PROTOCOL.md")
# section heading (as it starts in PROTOCOL.md) -> its recorder
RECORDERS = [
    ("## 10. ", "example-session.py"),
    ("### 11.6 ", "example-match.py"),
    ("### 12.2 ", "example-history.py"),
]
VARYING = ("token", "created_ms", "ended_ms")
RANDOM_GAME = ("seed", "start", "position", "cells", "moves")
LINE = re.compile(r"^([CS])> (.*?)   \((?:to )?([a-z]+)\)$")

t = Tap()


def sections(doc):
    """{heading line: body} of every section of doc."""
    out, head, body = {}, None, []
    for line in doc.splitlines():
        if line.startswith("#") and not line.startswith("# ") and " " in line:
            if head is not None:
                out[head] = "\n".join(body)
            head, body = line, []
        elif line.startswith("# ") and head is None:
            continue
        else:
            body.append(line)
    if head is not None:
        out[head] = "\n".join(body)
    return out


def example_block(body):
    """The lines of the first ``` block of a section body."""
    m = re.search(r"^```\n(.*?)^```", body, re.S | re.M)
    return m.group(1).splitlines() if m else None


def decode(text):
    """A shown JSON line; your_turn's cut moves list (`,...]`) keeps a "..." member."""
    return json.loads(text.replace(",...]", ',"..."]'))


def normalise(obj, random_games, game=None):
    if isinstance(obj, dict):
        game = obj.get("game", game) if isinstance(obj.get("game"), str) else game
        out = {}
        for k, v in obj.items():
            if k in VARYING:
                v = "<varies>"
            elif k in RANDOM_GAME and game in random_games:
                v = "<random>"
            elif k == "text" and isinstance(v, str):
                v = re.sub(r'\[Date "[^"]*"\]', '[Date "<varies>"]', v)
            out[k] = normalise(v, random_games, game)
        return out
    if isinstance(obj, list):
        return [normalise(v, random_games, game) for v in obj]
    return obj


def parse(lines):
    """The C>/S> lines of an example: (who, direction, JSON object) each; comments and the
    [...] cut are not compared."""
    out = []
    for line in lines:
        if line.startswith("#") or line.strip() in ("", "[...]"):
            continue
        m = LINE.match(line)
        if not m:
            raise ValueError("not an example line: %r" % line)
        out.append((m.group(3), m.group(1), decode(m.group(2))))
    return out


def random_games(entries):
    return {obj["new_game"] for _, _, obj in entries if obj.get("type") == "rematch_started"}


def check(head, script, body):
    doc = example_block(body)
    if not t.ok(doc is not None, "%s: has an example block" % head):
        return
    r = subprocess.run([sys.executable, os.path.join(HERE, script)], capture_output=True,
                       text=True, timeout=120)
    if not t.ok(r.returncode == 0, "%s: %s runs" % (head, script), r.stderr[-2000:]):
        return
    want, got = parse(doc), parse(r.stdout.splitlines())
    rw, rg = random_games(want), random_games(got)
    t.ok(rw == rg, "%s: the same games start from a random position" % head, (rw, rg))
    want = [(w, d, normalise(o, rw)) for w, d, o in want]
    got = [(w, d, normalise(o, rg)) for w, d, o in got]
    first = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), None)
    diag = None
    if first is not None:
        diag = "line %d differs:\n  PROTOCOL.md: %s\n  the server:  %s" % (
            first + 1, json.dumps(want[first]), json.dumps(got[first]))
    elif len(want) != len(got):
        diag = "PROTOCOL.md shows %d lines, the server said %d" % (len(want), len(got))
    t.ok(diag is None, "%s: every line as the real server says it (%d lines)"
         % (head, len(want)), diag)


def main():
    with open(DOC) as f:
        secs = sections(f.read())
    recorded = [h for h, b in secs.items() if re.search(r"[Rr]ecorded from the real server",
                                                         b.split("```")[0])]
    for h in recorded:
        t.ok(any(h.startswith(p) for p, _ in RECORDERS),
             "%s: says it is recorded from the real server, and has a recorder" % h)
    for prefix, script in RECORDERS:
        head = next((h for h in secs if h.startswith(prefix)), None)
        if t.ok(head is not None, "PROTOCOL.md has section %s" % prefix.strip("# ")):
            t.run(head, check, head, script, secs[head])


main()
t.done()
