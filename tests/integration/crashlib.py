"""crashlib: scripted players under load, and the checks that nothing they heard is lost.

Shared by test-crash.py (kill -9 of hokitod) and test-pg-outage.py (PostgreSQL stopped or its
connection killed under load). A Player pairs with `quick`, plays random legal moves as fast as
the server answers, pairs again when a game is over, resumes with its token and last seq after a
reconnection, and sends again a move the server refused while its store could not write
(store_unavailable). check_store() reads the store itself (the SQLite file with Python's sqlite3,
or the PostgreSQL database with psql) and checks that every line any player received is there,
byte for byte.
"""
import json
import random
import select
import socket
import sqlite3
import time

from serverlib import EVENT_TYPES, STORE, pg_server  # noqa: E402

PAIRINGS = [("hokito", "none"), ("oxono", "none"), ("hokito", "10+5")]
RETRY_S = 0.3  # a refused move is sent again after this long
rng = random.Random(0)
problems = []  # what went wrong, for the TAP diagnostics


def seed(n):
    """Seed the players' choices (pairings, moves)."""
    rng.seed(n)


def problem(text):
    if len(problems) < 50:
        problems.append(text)


class Player:
    """One scripted player: its session, the game it is at, what it saw."""

    def __init__(self, name):
        self.name = name
        self.token = None
        self.sock = None
        self.buf = b""
        self.game = None         # the game it is seated at
        self.last_seq = {}       # game -> highest seq seen
        self.lines = {}          # game -> {seq: raw line}
        self.over = set()        # games it saw end
        self.started = set()     # games it saw start (or joined live)
        self.next_id = 1
        self.pending = {}        # request id -> (type, detail)
        self.replaying = None    # after a resumed welcome: (game, next expected seq)
        self.unsure = False      # a quick went unanswered: omit last_seq when resuming
        self.want_game = False   # it should pair as soon as it can
        self.stop_pairing = False
        self.refused = None      # (when, (game, seq, move)): a move to send again

    # --- I/O ---
    def send(self, obj, detail=None):
        obj = dict(obj)
        obj["id"] = self.next_id
        self.pending[self.next_id] = (obj["type"], detail)
        self.next_id += 1
        try:
            self.sock.sendall((json.dumps(obj) + "\n").encode())
        except OSError:
            self.drop()

    def connect(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.setblocking(False)
        self.buf = b""
        self.pending = {}
        self.replaying = None
        if self.token is None:
            self.send({"type": "hello", "protocol": 1, "name": self.name})
            return
        hello = {"type": "hello", "protocol": 1, "token": self.token}
        if self.game is not None and not self.unsure:
            hello["last_seq"] = self.last_seq.get(self.game, 0)
        self.send(hello)

    def drop(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock = None
        if any(t in ("quick",) for t, _ in self.pending.values()):
            self.unsure = True
        self.pending = {}

    def readable(self):
        try:
            data = self.sock.recv(1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.drop()
            return
        self.buf += data
        while b"\n" in self.buf:
            line, _, self.buf = self.buf.partition(b"\n")
            self.handle(line)
            if self.sock is None:
                return

    # --- the protocol ---
    def pair(self):
        if self.stop_pairing or self.sock is None:
            return
        self.want_game = False
        kind, clock = rng.choice(PAIRINGS)
        self.send({"type": "quick", "kind": kind, "clock": clock})

    def event(self, m, line):
        g = m["game"]
        if g != self.game:
            return  # an old game's late event (a rematch, say): not ours any more
        seq = m["seq"]
        if self.replaying is not None:
            if seq != self.replaying:
                problem("%s: replay of %s gave seq %d, expected %d" % (self.name, g, seq,
                                                                       self.replaying))
            self.replaying = seq + 1
        elif seq != self.last_seq.get(g, 0) + 1:
            problem("%s: %s seq %d after %d" % (self.name, g, seq, self.last_seq.get(g, 0)))
        seen = self.lines.setdefault(g, {})
        if seq in seen and seen[seq] != line:
            problem("%s: %s seq %d seen twice, different" % (self.name, g, seq))
        seen[seq] = line
        self.last_seq[g] = max(self.last_seq.get(g, 0), seq)
        if m["type"] == "started":
            self.started.add(g)
        if m["type"] == "game_over":
            self.over.add(g)
            self.want_game = True

    def handle(self, line):
        m = json.loads(line)
        t = m.get("type")
        if self.replaying is not None and t not in EVENT_TYPES:
            self.replaying = None  # the replay ends at the first notice
        if t in EVENT_TYPES:
            self.event(m, line)
            return
        req = self.pending.pop(m.get("id"), (None, None)) if "id" in m else (None, None)
        if t == "welcome":
            self.token = m["token"]
            unsure, self.unsure = self.unsure, False
            if m["resumed"] and m["game"] is not None:
                if m["game"] != self.game and not unsure:
                    problem("%s: resumed at %s, was at %s" % (self.name, m["game"], self.game))
                self.game = m["game"]
                if not unsure:
                    self.replaying = self.last_seq.get(self.game, 0) + 1
                if self.game in self.over:
                    self.want_game = True
            else:
                self.game = None
                self.want_game = True
        elif t == "state":
            g = m["game"]
            self.game = g
            self.lines.setdefault(g, {})
            self.last_seq[g] = m["seq"]
            if m["status"] in ("live", "finished", "adjourned"):
                self.started.add(g)
            if m["status"] == "finished":
                self.over.add(g)
                self.want_game = True
        elif t == "your_turn":
            if m["game"] == self.game and m["seq"] == self.last_seq.get(self.game) \
                    and m["moves"]:
                mv = rng.choice(m["moves"])
                self.send({"type": "move", "move": mv}, (self.game, m["seq"] + 1, mv))
        elif t == "ok":
            if req[0] == "move":
                g, seq, mv = req[1]
                if m.get("seq") != seq:
                    problem("%s: ok for %s at seq %s, expected %d" % (self.name, mv,
                                                                     m.get("seq"), seq))
        elif t == "error":
            if req[0] == "hello" and m["code"] == "bad_token":
                # the session was not stored (not seated): a new one
                self.token = None
                self.game = None
                self.send({"type": "hello", "protocol": 1, "name": self.name})
            elif req[0] == "quick":
                self.want_game = True
            elif req[0] == "move" and m["code"] == "store_unavailable":
                self.refused = (time.time() + RETRY_S, req[1])
            elif req[0] != "move" and req[0] != "leave":
                problem("%s: %s refused: %s" % (self.name, req[0], m["text"]))


def run_players(players, seconds, srv=None, until=None):
    """Serve the players for seconds (or until until() is true)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if until is not None and until():
            return True
        for p in players:
            if p.sock is not None and p.want_game and not p.pending:
                p.pair()
            if p.sock is not None and p.refused is not None and time.time() >= p.refused[0]:
                g, s, mv = p.refused[1]
                p.refused = None
                if g == p.game and p.last_seq.get(g) == s - 1:
                    p.send({"type": "move", "move": mv}, (g, s, mv))
        socks = {p.sock: p for p in players if p.sock is not None}
        if not socks:
            return False
        r, _, _ = select.select(list(socks), [], [], 0.05)
        for s in r:
            socks[s].readable()
    return until is None or until()


def store_lines(db):
    """Every stored event line: {(game, seq): body}, and the games' statuses. db: an SQLite
    file, or (STORE "pg") the URI of a database on serverlib's PostgreSQL."""
    if STORE == "pg":
        name = db.split("@/", 1)[1].split("?", 1)[0]
        pg = pg_server()
        lines = {(g, int(s)): b for g, s, b in
                 pg.psql("SELECT game_id, seq, convert_from(body, 'UTF8') FROM events",
                         dbname=name)}
        status = dict(pg.psql("SELECT id, status FROM games", dbname=name))
        return lines, status
    con = sqlite3.connect(db)
    try:
        lines = {(g, s): b for g, s, b in con.execute("SELECT game_id, seq, body FROM events")}
        status = dict(con.execute("SELECT id, status FROM games"))
    finally:
        con.close()
    return lines, status


def unplayed(seen):
    """Whether the lines seen of a game show one that never started: over, aborted, no move (the
    store deletes it with its events in the commit of its end)."""
    types = [json.loads(line) for line in seen.values()]
    return (not any(m["type"] == "moved" for m in types) and
            any(m["type"] == "game_over" and m.get("result") == "aborted" for m in types))


def check_store(players, db, when):
    """Every line a client received is stored, byte for byte (but those of a game that never
    started, which is not in the store at all). Returns the count checked."""
    lines, status = store_lines(db)
    n = 0
    for p in players:
        for g, seen in p.lines.items():
            if g not in status and unplayed(seen):
                continue
            for seq, line in seen.items():
                n += 1
                got = lines.get((g, seq))
                if got is None:
                    problem("%s: %s seq %d that %s received is not in the store" % (
                        when, g, seq, p.name))
                elif got.encode() != line:
                    problem("%s: %s seq %d stored differently from what %s got" % (
                        when, g, seq, p.name))
    return n, status


def check_rebuilt(srv, players):
    """A spectator's view of each game at play holds every move the players saw."""
    games = {p.game for p in players if p.game is not None and p.game not in p.over}
    if not games:
        return 0
    c = srv.connect("checker")
    n = 0
    for g in sorted(games):
        st, _ = c.request({"type": "watch", "game": g})
        if st.get("type") != "state":
            problem("watch %s: %s" % (g, st))
            continue
        moves = st["moves"]
        for p in players:
            for seq, line in p.lines.get(g, {}).items():
                m = json.loads(line)
                if m["type"] == "moved":
                    n += 1
                    if m["ply"] > len(moves) or moves[m["ply"] - 1] != m["move"]:
                        problem("rebuilt %s lacks move %d %s" % (g, m["ply"], m["move"]))
    c.close()
    return n
