#!/usr/bin/env python3
"""attacks.py: the attacks on hokitod (ATTACKS.md), each from one address next to 50 honest players.

    python3 tests/bench/attacks.py --hokitod PATH --loadgen PATH [--only 1,2,...] [--seconds S]

(tests/bench/attacks.sh builds the release programs and calls this.)

For each attack a fresh hokitod is started on 127.0.0.1 with a store in a temporary directory.
The honest players are `loadgen hokito --conns 50 --bind 127.0.1.1` (each connection from an
address of its own): their moves/s and round-trip p50/p99 are measured quiet, then again while
the attacker works from 127.0.0.66 alone, --rounds times in turn on the same server (a machine
shared with others drifts: each round's ratio compares two runs a few seconds apart, and the
table gives the median of the rounds' ratios). Each attack also measures what it did to the
server (games made, store bytes written, events added, sessions made, refusals...), and says
whether the server held (its limit answered) or not. The attacks marked "alone" measure that on
a server of their own with nobody else and hokitod's default limits (the --server-args that let
the honest players through would let the attacker through too), then run again beside the
honest players. One table at the end: per attack, the honest players' ratios of quiet moves/s,
p50 and p99, the attacker's CPU (a thread of this process: on a small machine it takes CPU from
the server and the players whatever the server does), the server's RSS at the end, and what the
attack did.

Nothing here fails a build: it is a measurement. Every loop is bounded in count and in time;
everything runs on loopback addresses and is stopped on exit.
"""
import argparse
import itertools
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import sqlite3
import string
import subprocess
import sys
import tempfile
import threading
import time

ATTACKER = "127.0.0.66"
HONEST_FIRST = "127.0.1.1"
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
ROUNDS = itertools.count(1)  # numbers the rounds of attacks that need new names in each


class Server:
    """A hokitod on 127.0.0.1 with its own store and log, stopped by stop()."""

    def __init__(self, hokitod, *args, db=None, preexec=None):
        self.tmp = tempfile.mkdtemp(prefix="hokito-attack-")
        self.db = db or os.path.join(self.tmp, "hokito.db")
        port_file = os.path.join(self.tmp, "port")
        self.log_path = os.path.join(self.tmp, "log")
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [hokitod, "--listen", "127.0.0.1:0", "--port-file", port_file, "--db", self.db,
             "--log-level", "info"] + list(args),
            stdout=subprocess.DEVNULL, stderr=self.log, preexec_fn=preexec)
        deadline = time.time() + 20
        self.port = None
        while time.time() < deadline and self.proc.poll() is None:
            try:
                with open(port_file) as f:
                    self.port = int(f.read())
                break
            except (OSError, ValueError):
                time.sleep(0.05)
        if self.port is None:
            text = self.log_text()[-400:]
            self.stop()
            raise RuntimeError("hokitod did not start: " + text)

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def log_bytes(self):
        with open(self.log_path, "rb") as f:
            return f.read()

    def rss_kb(self):
        try:
            with open("/proc/%d/status" % self.proc.pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return -1

    def store_bytes(self):
        total = 0
        for suffix in ("", "-wal", "-shm"):
            try:
                total += os.path.getsize(self.db + suffix)
            except OSError:
                pass
        return total

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


class Conn:
    """One JSON-lines connection from a chosen loopback source address."""

    def __init__(self, port, src=ATTACKER, timeout=5.0):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((src, 0))
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        self.buf = b""
        self.closed = False

    def send(self, obj):
        self.sock.sendall((json.dumps(obj) + "\n").encode())

    def recv(self):
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                self.closed = True
                raise ConnectionError("closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def reply(self, rid):
        """The reply to the request with id rid (events and notices before it are skipped)."""
        while True:
            m = self.recv()
            if m.get("id") == rid:
                return m

    def ask(self, obj):
        rid = random.randrange(1 << 30)
        self.send(dict(obj, id=rid))
        return self.reply(rid)

    def batch(self, objs):
        """Send objs at once (pipelined, as an attacker would), then read one reply each."""
        base = random.randrange(1 << 30)
        self.sock.sendall("".join(json.dumps(dict(o, id=base + i)) + "\n"
                                  for i, o in enumerate(objs)).encode())
        return [self.reply(base + i) for i in range(len(objs))]

    def hello(self, name="mallory", client=None):
        msg = {"type": "hello", "protocol": 1, "name": name}
        if client is not None:
            msg["client"] = client
        return self.ask(msg)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def honest(args, srv, label):
    """50 honest players for args.seconds; returns loadgen's key=value figures (and rc)."""
    p = subprocess.run(
        [args.loadgen, "hokito", "--port", str(srv.port), "--bind", HONEST_FIRST, "--conns", "50",
         "--seconds", str(args.seconds), "--pid", str(srv.proc.pid), "--setup-timeout", "15",
         "--think", str(args.think), "--label", label],
        capture_output=True, text=True, timeout=args.seconds + 60)
    figures = dict(kv.split("=", 1) for kv in p.stdout.split() if "=" in kv)
    figures["rc"] = p.returncode
    figures["stderr"] = p.stderr.strip().splitlines()[:2]
    return figures


def during(args, srv, attack_fn, label, setup=False):
    """Run attack_fn(stop_event) in a thread while the honest players play; return both (the
    attack's result with cpu: its CPU seconds a second). With setup, the honest players start
    once the attack has set itself up (stop.ready is set)."""
    cpu0, t0 = time.process_time(), time.time()
    stop = threading.Event()
    stop.ready = threading.Event()
    result = {}

    def run():
        try:
            result.update(attack_fn(stop) or {})
        except Exception as e:  # the attack's own failure is a finding, not a crash
            result["error"] = "%s: %s" % (type(e).__name__, e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    stop.ready.wait(120 if setup else 0.5)
    h = honest(args, srv, label)
    stop.set()
    t.join(args.seconds + 60)
    result["cpu"] = (time.process_time() - cpu0) / max(time.time() - t0, 1e-3)
    return h, result


# --- the attacks: each takes (args, srv, stop) and returns a dict of what it did -------------

def a1_fill_disk(args, srv, stop):
    """create + leave in a loop on one connection: games made, store growth."""
    c = Conn(srv.port)
    c.hello()
    before, t0, n, refused = srv.store_bytes(), time.time(), 0, {}
    while not stop.is_set() and time.time() - t0 < args.seconds + 5 and n < 200000:
        try:
            replies = c.batch([{"type": "create", "kind": "hokito"}, {"type": "leave"}] * 100)
        except (OSError, ConnectionError, ValueError):
            # the server closed the flood: count it, come back on a new connection
            refused["closed"] = refused.get("closed", 0) + 1
            c.close()
            try:
                c = Conn(srv.port)
                c.hello()
            except (OSError, ConnectionError, ValueError):
                time.sleep(0.05)
            continue
        for r in replies:
            if r.get("type") == "error":
                refused[r.get("code")] = refused.get(r.get("code"), 0) + 1
            elif r.get("type") == "state":
                n += 1
    dt = time.time() - t0
    grown = srv.store_bytes() - before
    return {"what": "%d games in %.1f s, store +%.1f MB (%.1f GB/hour)%s" % (
        n, dt, grown / 1e6, grown / dt * 3600 / 1e9, refused_text(refused)),
        "held": bool(refused) and grown / dt * 3600 < 1e9}


def refused_text(refused):
    if not refused:
        return ", never refused"
    return ", refused " + ", ".join("%s x%d" % kv for kv in sorted(refused.items()))


def a2_grow_game(args, srv, stop):
    """Two players looping draw_offer / draw_decline (and rematch offers): events added."""
    a, b = Conn(srv.port), Conn(srv.port)
    a.hello("mal1")
    b.hello("mal2")
    st = a.ask({"type": "create", "kind": "hokito", "seat": "black"})
    b.ask({"type": "join", "game": st["game"]})
    rss0, store0, t0, n, refused = srv.rss_kb(), srv.store_bytes(), time.time(), 0, {}
    while not stop.is_set() and time.time() - t0 < args.seconds + 5 and n < 500000:
        r = a.ask({"type": "draw_offer"})
        if r.get("type") == "error":
            refused[r.get("code")] = refused.get(r.get("code"), 0) + 1
            time.sleep(0.01)
            continue
        n += 1
        r = b.ask({"type": "draw_decline"})
        if r.get("type") == "error":
            refused[r.get("code")] = refused.get(r.get("code"), 0) + 1
        else:
            n += 1
    dt = time.time() - t0
    return {"what": "%d events in %.1f s, RSS +%d KB, store +%.1f MB%s" % (
        n, dt, srv.rss_kb() - rss0, (srv.store_bytes() - store0) / 1e6, refused_text(refused)),
        "held": n < 100}


def a3_hold_slots(args, srv, stop, count=1100):
    """Connections that say hello and stay idle: how many the server holds, for how long."""
    conns, failed = [], 0
    for i in range(count):
        try:
            c = Conn(srv.port, timeout=2)
            c.hello("idle%d" % i)
            conns.append(c)
        except (OSError, ConnectionError, ValueError):
            failed += 1
        if stop.is_set():
            break
    if hasattr(stop, "ready"):
        stop.ready.set()
    t0 = time.time()
    while not stop.is_set() and time.time() - t0 < args.seconds + 10:
        time.sleep(0.2)
    alive = 0
    for c in conns:
        try:
            c.sock.setblocking(False)
            alive += c.sock.recv(1, socket.MSG_PEEK) != b""
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
        c.close()
    return {"what": "%d idle connections taken, %d refused, %d still held after %.0f s" % (
        len(conns), failed, alive, time.time() - t0), "held": len(conns) < 200}


def a4_hold_games(args, srv, stop, count=10000):
    """Connections that each create a game and close: games left open."""
    made, refused = 0, {}
    t0 = time.time()
    for i in range(count):
        if stop.is_set() or time.time() - t0 > 60:
            break
        try:
            c = Conn(srv.port, timeout=2)
            r = c.hello("g%d" % i)
            if r.get("type") == "welcome":
                r = c.ask({"type": "create", "kind": "hokito"})
            c.close()
        except (OSError, ConnectionError, ValueError) as e:
            refused[type(e).__name__] = refused.get(type(e).__name__, 0) + 1
            continue
        if r.get("type") == "error":
            refused[r.get("code")] = refused.get(r.get("code"), 0) + 1
        else:
            made += 1
    if hasattr(stop, "ready"):
        stop.ready.set()
    return {"what": "%d open games made in %.1f s%s" % (made, time.time() - t0,
                                                         refused_text(refused)),
            "held": made < 1000}


def a5_jam_computer(args, srv, stop):
    """40 games against level 8, each aborted at once; then a victim's level-1 computer move
    (held: within 0.5 s; about 0.01 s on a quiet server)."""
    c = Conn(srv.port, timeout=30)
    c.hello("jam")
    made = 0
    refused = {}
    for _ in range(40):
        r = c.ask({"type": "create", "kind": "hokito", "opponent": "computer", "level": 8,
                   "seat": "white"})
        if r.get("type") == "error":
            refused[r.get("code")] = refused.get(r.get("code"), 0) + 1
            continue
        made += 1
        c.ask({"type": "abort"})
        c.ask({"type": "leave"})
    v = Conn(srv.port, src="127.0.0.99", timeout=120)
    v.hello("victim")
    t0 = time.time()
    r = v.ask({"type": "create", "kind": "hokito", "opponent": "computer", "level": 1,
               "seat": "white"})
    delay = None
    if r.get("type") == "state":
        while time.time() - t0 < 110:
            m = v.recv()
            if m.get("type") == "moved":
                delay = time.time() - t0
                break
    return {"what": "%d level-8 games made and aborted%s; victim's level-1 move after %s" % (
        made, refused_text(refused), "%.2f s" % delay if delay is not None else "never"),
        "held": delay is not None and delay < 0.5}


def a6_guess_codes(args, srv, stop, games=300):
    """Guessing invite codes: guesses a second, and the time to find one of 10,000 games."""
    owner = Conn(srv.port, src="127.0.0.98")
    owner.hello("host")
    codes = []
    for _ in range(games):
        # one private game per session: a session may hold one game at a time
        o = Conn(srv.port, src="127.0.0.98")
        o.hello("host")
        r = o.ask({"type": "create", "kind": "hokito", "private": True})
        if r.get("code"):
            codes.append(r["code"])
    code_len = len(codes[0]) if codes else 8
    g = Conn(srv.port)
    g.hello("guesser")
    t0, n, hits, refused = time.time(), 0, 0, {}
    rng = random.Random(7)
    while not stop.is_set() and time.time() - t0 < args.seconds + 5 and n < 2000000:
        code = "".join(rng.choice(CODE_ALPHABET) for _ in range(code_len))
        r = g.ask({"type": "watch", "code": code})
        n += 1
        if r.get("type") == "state":
            hits += 1
            g.ask({"type": "leave"})
        elif r.get("code") != "no_such_game":
            refused[r.get("code")] = refused.get(r.get("code"), 0) + 1
            if r.get("code") in ("rate_limited",):
                time.sleep(0.05)
        if g.closed:
            break
    dt = time.time() - t0
    rate = n / dt if dt > 0 else 0
    space = len(CODE_ALPHABET) ** code_len
    # time to a hit among 10,000 open private games at this rate
    eta = space / 10000 / rate if rate > 0 else float("inf")
    return {"what": "%d-char codes (%.0f bits): %.0f guesses/s%s, %d hits; 1 of 10,000 games "
                    "found in ~%s" % (code_len, code_len * 5, rate, refused_text(refused), hits,
                                      human_time(eta)),
            "held": eta > 3600 * 24 * 365}


def human_time(s):
    for unit, size in (("years", 3600 * 24 * 365), ("days", 3600 * 24), ("hours", 3600),
                       ("minutes", 60)):
        if s >= size:
            return "%.1f %s" % (s / size, unit)
    return "%.1f s" % s


def a7_resume_lockout(args, srv, stop, plies=12):
    """A game whose replay passes half of --max-output (4096 here: draw offers no longer grow a
    game, so it is made of real moves); its player resumes from last_seq 0, three times."""
    a, b = Conn(srv.port, timeout=10), Conn(srv.port, timeout=10)
    wa = a.hello("seat1")
    b.hello("seat2")
    st = a.ask({"type": "create", "kind": "hokito", "seat": "black"})
    b.ask({"type": "join", "game": st["game"]})
    played, replay, t0, over = 0, 0, time.time(), False
    while played < plies and not over and time.time() - t0 < 30:
        mover = (a, b)[played % 2]  # black (a) moves first
        while True:
            m = mover.recv()
            if m.get("type") == "game_over":
                over = True
                break
            if m.get("type") == "your_turn" and m.get("moves"):
                break
        if over:
            break
        r = mover.ask({"type": "move", "move": m["moves"][0]})
        if r.get("type") != "ok":
            break
        played += 1
    # what a replay from last_seq 0 holds: every event line of the game so far
    w = Conn(srv.port, src="127.0.0.67", timeout=10)
    w.hello("count")
    sw = w.ask({"type": "watch", "game": st["game"]})
    replay = len(json.dumps(sw))
    w.close()
    a.close()
    time.sleep(0.3)
    outcomes = []
    for _ in range(3):
        r = Conn(srv.port, timeout=10)
        got = "nothing"
        try:
            w = r.ask({"type": "hello", "protocol": 1, "token": wa["token"], "last_seq": 0})
            got = w.get("type")
            if got == "welcome":
                # a state (or the replay) follows, then your_turn: all of it must arrive
                count, last, first = 0, None, None
                while last != "your_turn" and count < 100000:
                    last = r.recv().get("type")
                    first = first or last
                    count += 1
                got += ", %s first, %d lines to your_turn" % (first, count)
        except (ConnectionError, OSError) as e:
            got = "dropped (%s) after %s" % (type(e).__name__, got)
        outcomes.append(got)
        r.close()
    return {"what": "%d moves (the game's state %d bytes), --max-output 4096; resume from "
                    "last_seq 0: %s" % (played, replay, "; ".join(outcomes)),
            "held": not any(o.startswith("dropped") or o == "nothing" for o in outcomes)}


def a8_session_pile(args, srv, stop):
    """connect, hello, close in a loop: sessions made (in all, and a second once the first
    2 s are past: the steady rate after any burst), RSS growth, log lines."""
    rss0, t0, n, tries, refused, late = srv.rss_kb(), time.time(), 0, 0, {}, 0
    lines0 = srv.log_text().count("\n")
    while not stop.is_set() and time.time() - t0 < args.seconds + 5 and tries < 200000:
        try:
            c = Conn(srv.port, timeout=2)
            tries += 1
            r = c.hello("s%d" % tries)
            c.close()
            if r.get("type") == "welcome":  # a session made (a refused hello makes none)
                n += 1
                late += time.time() - t0 >= 2
            else:
                refused[r.get("code")] = refused.get(r.get("code"), 0) + 1
        except (OSError, ConnectionError, ValueError):
            time.sleep(0.01)
    dt = time.time() - t0
    lines = srv.log_text().count("\n") - lines0
    steady = late / (dt - 2) if dt > 2 else float("nan")
    return {"what": "%d sessions in %.1f s (%.0f/s; %.1f/s after the first 2 s) of %d tries%s, "
                    "RSS +%d KB, %d log lines" % (
                        n, dt, n / dt, steady, tries, refused_text(refused),
                        srv.rss_kb() - rss0, lines),
            "held": n / dt < 100 and not steady > 10}


def a9_smaller(args, srv, stop):
    """C1 controls and U+202E in hello.client reach the log; 300 spectators' chat output (the
    spectators on addresses of their own)."""
    c = Conn(srv.port)
    c.hello("ctl", client="evil\u009b31m\u202egnp.exe\u0085end")
    time.sleep(0.3)
    raw = srv.log_bytes()
    raw_controls = any(seq in raw for seq in ("\u009b".encode(), "\u202e".encode(),
                                              "\u0085".encode()))
    # 300 spectators of one game, each saying 5 lines: bytes the server must write
    a, b = Conn(srv.port, src="127.0.0.97"), Conn(srv.port, src="127.0.0.97")
    a.hello("p1")
    b.hello("p2")
    st = a.ask({"type": "create", "kind": "hokito"})
    b.ask({"type": "join", "game": st["game"]})
    specs = []
    for i in range(300):
        # each from an address of its own (127.0.3.x, 127.0.4.x): one address holds a few
        # connections only (--max-conns-per-addr), and the output is what is measured here
        s = Conn(srv.port, src="127.0.%d.%d" % (3 + i // 250, 1 + i % 250), timeout=5)
        s.hello("w%d" % i)
        s.ask({"type": "watch", "game": st["game"]})
        specs.append(s)
    ok = 0
    for s in specs:
        for _ in range(5):
            s.send({"type": "say", "text": "x" * 200})
    for s in specs:
        s.sock.setblocking(False)
    time.sleep(1.0)
    received = 0
    for s in specs:
        try:
            while True:
                d = s.sock.recv(1 << 20)
                if not d:
                    break
                received += len(d)
        except (BlockingIOError, OSError):
            pass
        s.close()
    return {"what": "control characters in the log: %s; 300 spectators x 5 lines made %.1f MB "
                    "of output" % ("raw" if raw_controls else "escaped", received / 1e6),
            "held": not raw_controls and received < 20e6}


def a10_full_disk_start(args, srv, stop):
    """A new store on a full disk: is a 0-byte store left behind that later starts refuse?"""
    if os.geteuid() != 0:
        return {"what": "skipped: needs root to mount a small tmpfs", "held": None}
    mnt = tempfile.mkdtemp(prefix="hokito-full-")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mnt],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return {"what": "skipped: mount failed: " + r.stderr.strip(), "held": None}
    try:
        filler = os.path.join(mnt, "filler")
        try:
            with open(filler, "wb") as f:
                while True:
                    f.write(b"\0" * 4096)
                    f.flush()
        except OSError:
            pass  # full
        db = os.path.join(mnt, "hokito.db")
        first = subprocess.run([args.hokitod, "--listen", "127.0.0.1:0", "--db", db],
                               capture_output=True, text=True, timeout=20)
        left = os.path.exists(db)
        size = os.path.getsize(db) if left else -1
        os.remove(filler)
        try:
            again = Server(args.hokitod, db=db)
            started = True
            again.stop()
        except RuntimeError as e:
            started = False
            reason = str(e)[-160:]
        return {"what": "start on a full disk: exit %d (%s); store file left: %s; after room "
                        "was made: %s" % (first.returncode,
                                          first.stderr.strip().splitlines()[-1][:80]
                                          if first.stderr.strip() else "",
                                          "%d bytes" % size if left else "none",
                                          "started" if started else "refused: " + reason),
                "held": started}
    finally:
        subprocess.run(["umount", mnt], capture_output=True)
        os.rmdir(mnt)


def a13_farm_rating(args, srv, stop, puppets=60):
    """A rating farmed with puppet accounts (found on main at f63fd7c: 60 rated wins in about
    4 s took a rating from 1500 to 2274): a farmer and up to `puppets` new accounts, each
    puppet resigning its rated game against the farmer as early as the server lets it: at
    once, else after a move each (the farmer's, then the puppet's). Half the puppets connect
    from the attacker's own address, half from addresses of their own (127.0.2.x, as puppets
    behind other machines would). Then two of them draw 20 rated games against each other at
    once, as early as they may. What the farmer's rating and the leaderboard say after."""
    pw = "farm farm farm farm"

    def register(name, src):
        """A new account; one made in an earlier round on the same server logs in again."""
        c = Conn(srv.port, src=src)
        r = c.ask({"type": "register", "name": name, "password": pw})
        if r.get("code") == "name_taken":
            r = c.ask({"type": "hello", "protocol": 1, "name": name, "password": pw})
        if r.get("type") != "welcome":
            c.close()
            raise ValueError(r.get("code"))
        return c

    def turn(c, game):
        while True:
            m = c.recv()
            if m.get("type") == "your_turn" and m.get("game") == game:
                return m["moves"][0]

    def game(a, b, end):
        """a creates rated (black), b joins; end as early as the server lets it. Returns
        (game_over as a saw it, or {} when the game was refused; the refusals on the way)."""
        codes = []
        st = a.ask({"type": "create", "kind": "hokito", "seat": "black", "rated": True})
        if st.get("type") != "state":
            return {}, [st.get("code")]
        g = st.get("game")
        if b.ask({"type": "join", "game": g}).get("type") != "state":
            a.ask({"type": "leave"})
            return {}, ["join refused"]
        r = b.ask(end)
        if r.get("type") == "error":
            codes.append(r.get("code"))
            a.ask({"type": "move", "move": turn(a, g)})
            b.ask({"type": "move", "move": turn(b, g)})
            if end["type"] == "draw_accept":
                a.ask({"type": "draw_offer"})
            r = b.ask(end)
            if r.get("type") == "error":
                codes.append(r.get("code"))
                r = b.ask({"type": "abort"})
        over = None
        while over is None:
            m = a.recv()
            if m.get("type") == "game_over" and m.get("game") == g:
                over = m
        for c in (a, b):
            c.ask({"type": "leave"})
        return over, codes

    t0, refused, rated, games = time.time(), {}, 0, 0
    farmer = register("farmer", ATTACKER)
    n = 0
    while not stop.is_set() and time.time() - t0 < args.seconds + 5 and n < puppets:
        src = ATTACKER if n % 2 == 0 else "127.0.2.%d" % (1 + n // 2 % 250)
        try:
            p = register("puppet%d" % n, src)
        except (OSError, ConnectionError, ValueError) as e:
            refused[str(e)] = refused.get(str(e), 0) + 1
            n += 1
            continue
        try:
            over, codes = game(farmer, p, {"type": "resign"})
        except (OSError, ConnectionError, ValueError) as e:
            over, codes = {}, [type(e).__name__]
            farmer.close()
            farmer = Conn(srv.port, src=ATTACKER)
            farmer.ask({"type": "hello", "protocol": 1, "name": "farmer", "password": pw})
        games += over != {}
        rated += "ratings" in over
        for code in codes + ([over["unrated"]] if "unrated" in over else []):
            refused[code] = refused.get(code, 0) + 1
        p.close()
        n += 1
    a, b = register("drawer_a", "127.0.3.1"), register("drawer_b", "127.0.3.2")
    for _ in range(20):
        if stop.is_set() and time.time() - t0 > args.seconds + 5:
            break
        try:
            over, codes = game(a, b, {"type": "draw_accept"})
        except (OSError, ConnectionError, ValueError) as e:
            refused[type(e).__name__] = refused.get(type(e).__name__, 0) + 1
            break
        games += over != {}
        rated += "ratings" in over
        for code in codes + ([over["unrated"]] if "unrated" in over else []):
            refused[code] = refused.get(code, 0) + 1
    prof = farmer.ask({"type": "profile"})
    board = farmer.ask({"type": "leaderboard", "kind": "hokito"})
    rating = prof.get("ratings", {}).get("hokito", {}).get("rating", 1500.0)
    listed = [e["player"]["name"] for e in board.get("entries", [])]
    for c in (farmer, a, b):
        c.close()
    dt = time.time() - t0
    return {"what": "%d farm games in %.1f s, %d rated; farmer's rating %.0f, leaderboard %s%s"
                    % (games, dt, rated, rating, listed or "empty", refused_text(refused)),
            "held": rating < 1600 and not listed}
def a11_login_lockout(args, srv, stop):
    """Wrong passwords for the owner's account from one address, each as soon as retry_ms
    allows (far more than 9 a minute); once its free guesses are spent, the owner logs in every
    0.5 s from its home
    address and from one it never used, and at the end its live session changes the password
    (held: every one of those at once, none login_throttled)."""
    pw = "correct horse battery"
    home, new = "127.0.0.90", "127.0.0.91"
    owner = Conn(srv.port, src=home, timeout=30)
    name = "Owner_o%d" % next(ROUNDS)  # a new owner each round: the last one's password changed
    r = owner.ask({"type": "register", "name": name, "password": pw})
    if r.get("type") != "welcome":
        return {"what": "could not register: %s" % r.get("code"), "held": None}
    guessed = {"n": 0, "throttled": 0}
    ahead = threading.Event()  # the attacker's free guesses are spent: the owner starts

    def guess():
        c = Conn(srv.port, timeout=30)
        t0 = time.time()
        while not stop.is_set() and time.time() - t0 < args.seconds + 5:
            r = c.ask({"type": "hello", "protocol": 1, "name": name.lower(),
                       "password": "guess %d" % guessed["n"]})
            if r.get("code") == "login_throttled":
                guessed["throttled"] += 1
                ahead.set()
                stop.wait(r.get("retry_ms", 1000) / 1000.0)
            else:
                guessed["n"] += 1
        guessed["seconds"] = time.time() - t0
        c.close()

    th = threading.Thread(target=guess, daemon=True)
    th.start()
    ahead.wait(10)
    logins = {home: [], new: []}
    t0 = time.time()
    while not stop.is_set() and time.time() - t0 < args.seconds + 5:
        for src in (home, new):
            c = Conn(srv.port, src=src, timeout=30)
            t1 = time.time()
            r = c.ask({"type": "hello", "protocol": 1, "name": name.lower(), "password": pw})
            logins[src].append((r.get("type") == "welcome", time.time() - t1))
            c.close()
        stop.wait(0.5)
    changed = owner.ask({"type": "password_change", "old": pw, "new": "another password"})
    th.join(30)
    owner.close()
    rate = guessed["n"] / max(guessed.get("seconds", 1), 1e-3) * 60
    lat = sorted(dt for src in logins for _, dt in logins[src])
    done = {src: sum(1 for ok, _ in logins[src] if ok) for src in logins}
    return {"what": "%d guesses (%.0f a minute, %d told login_throttled); the owner's logins "
                    "%d/%d from home, %d/%d from a new address, p50 %.0f ms, max %.0f ms; its "
                    "password_change: %s" % (
                        guessed["n"], rate, guessed["throttled"], done[home], len(logins[home]),
                        done[new], len(logins[new]),
                        lat[len(lat) // 2] * 1000 if lat else -1, lat[-1] * 1000 if lat else -1,
                        changed.get("type") if changed.get("type") == "ok"
                        else changed.get("code")),
            "held": all(done[src] == len(logins[src]) > 0 for src in logins)
            and changed.get("type") == "ok"}
FILL_GAMES = 300000  # the store of attack 11: finished games (tests/bench/fairread.py fill)


def filled_store(hokitod):
    """A store file of FILL_GAMES finished public games (no events), in a directory of its own:
    made by hokitod, then filled straight with SQL while it is stopped."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import fairread  # tests/bench/fairread.py
    db = os.path.join(tempfile.mkdtemp(prefix="hokito-attack-fill-"), "hokito.db")
    Server(hokitod, db=db).stop()
    fairread.fill(db, FILL_GAMES)
    return db


def a12_deep_reads(args, srv, stop):
    """8 connections loop the deepest history page the server takes (the last one by offset, or
    the one at its offset cap) on a store of 300,000 finished games, as fast as it answers (a
    rate_limited reply waits what it says); another address's first history page meanwhile, one
    every 20 ms (held: its p99 under 50 ms)."""
    conns = []
    for i in range(8):
        c = Conn(srv.port, timeout=60)
        c.hello("deep%d" % i)
        conns.append(c)
    total = conns[0].ask({"type": "history", "limit": 1}).get("total", 0)
    deep = {"type": "history", "offset": max(0, total - 20), "limit": 20}
    r = conns[0].ask(deep)
    if r.get("type") == "error" and r.get("field") == "offset":
        cap = re.search(r"at most (\d+)", r.get("text", ""))
        deep["offset"] = int(cap.group(1)) if cap else 0
    counts = {"pages": 0}
    refused = {}

    def loop(c):
        while not stop.is_set():
            try:
                r = c.ask(deep)
            except (OSError, ConnectionError, ValueError):
                return
            if r.get("type") == "history_page":
                counts["pages"] += 1
            else:
                refused[r.get("code")] = refused.get(r.get("code"), 0) + 1
                wait = re.search(r"wait (\d+) ms", r.get("text", ""))
                time.sleep(int(wait.group(1)) / 1000 if wait else 0.01)

    threads = [threading.Thread(target=loop, args=(c,), daemon=True) for c in conns]
    t0 = time.time()
    for t in threads:
        t.start()
    v = Conn(srv.port, src="127.0.0.99", timeout=60)
    v.hello("victim")
    times = []
    while not stop.is_set() and len(times) < 10000:
        t1 = time.time()
        r = v.ask({"type": "history"})
        if r.get("type") == "history_page":
            times.append((time.time() - t1) * 1000)
        time.sleep(0.02)
    dt = time.time() - t0
    for t in threads:
        t.join(65)
    for c in conns + [v]:
        c.close()
    times.sort()
    p50 = times[len(times) // 2] if times else float("nan")
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))] if times else float("nan")
    return {"what": "8 conns looping history offset %d of %d games: %d pages (%.0f/s)%s; another "
                    "address's first page p50 %.1f ms, p99 %.1f ms (%d pages)" % (
                        deep["offset"], total, counts["pages"], counts["pages"] / dt,
                        refused_text(refused), p50, p99, len(times)),
            "held": bool(times) and p99 < 50}


def wait_type(c, type_, limit=200):
    """Read c's lines until one of type_ comes (at most limit lines); returns it."""
    for _ in range(limit):
        m = c.recv()
        if m.get("type") == type_:
            return m
    raise ValueError("no %s" % type_)


def a14_chat_growth(args, srv, stop, games=16, bursts=3):
    """The players of 16 finished games (two connections each, one address) chatting as fast as
    each session is allowed (5 lines of 200 characters at once, every 10 s), 3 times: lines
    kept, chat events in the store, store growth, refusals."""
    pairs = []
    for i in range(games):
        a, b = Conn(srv.port), Conn(srv.port)
        a.hello("cg%da" % i)
        b.hello("cg%db" % i)
        st = a.ask({"type": "create", "kind": "hokito", "seat": "black"})
        b.ask({"type": "join", "game": st["game"]})
        for c in (a, b):
            yt = wait_type(c, "your_turn")
            c.ask({"type": "move", "move": yt["moves"][0]})
        a.ask({"type": "resign"})
        pairs.append((a, b))
    conns = [c for pair in pairs for c in pair]
    store0, t0, n, refused = srv.store_bytes(), time.time(), 0, {}
    for burst in range(bursts):
        if burst > 0:
            time.sleep(10.5)  # the allowance of every session is whole again
        for c in conns:
            for r in c.batch([{"type": "say", "text": "x" * 200}] * 5):
                if r.get("type") == "ok":
                    n += 1
                else:
                    refused[r.get("code")] = refused.get(r.get("code"), 0) + 1
    dt = time.time() - t0
    grown = srv.store_bytes() - store0
    for c in conns:
        c.close()
    con = sqlite3.connect("file:%s?mode=ro" % srv.db, uri=True)
    try:
        stored = con.execute("SELECT COUNT(*) FROM events WHERE type = 'chat'").fetchone()[0]
    finally:
        con.close()
    return {"what": "%d chat lines kept in %.1f s by %d finished games (%d chat events in the "
                    "store), store +%.1f KB (WAL included)%s" % (
                        n, dt, games, stored, grown / 1e3, refused_text(refused)),
            "held": stored <= games * 220 and "chat_full" in refused}


def a15_register_spam(args, srv, stop):
    """register in a loop from one address, each on a new connection: accounts made (in all,
    and an estimate of a day's), refusals, store and RSS growth."""
    rss0, store0, t0, n, tries, refused = srv.rss_kb(), srv.store_bytes(), time.time(), 0, 0, {}
    while not stop.is_set() and time.time() - t0 < args.seconds + 5 and tries < 100000:
        try:
            c = Conn(srv.port, timeout=5)
            tries += 1
            r = c.ask({"type": "register", "name": "squat%06d" % tries,
                       "password": "".join(random.choice(string.ascii_letters + string.digits)
                                           for _ in range(16))})
            c.close()
        except (OSError, ConnectionError, ValueError):
            time.sleep(0.01)
            continue
        if r.get("type") == "welcome":
            n += 1
        else:
            refused[r.get("code")] = refused.get(r.get("code"), 0) + 1
    dt = time.time() - t0
    return {"what": "%d accounts in %.1f s of %d tries%s, store +%.1f KB, RSS +%d KB" % (
        n, dt, tries, refused_text(refused), (srv.store_bytes() - store0) / 1e3,
        srv.rss_kb() - rss0),
        "held": n <= 10}


def queue_attack(args, srv, stop, first, conns):
    """conns connections at once from the attacker's address, each sending first(i) (a request
    that waits off the loop: a store read, a password hash) and then 4000 pings of 64 KB without
    reading, again and again on new connections; the server's RSS is sampled throughout."""
    ping = (json.dumps({"type": "ping", "pad": "x" * 65000}) + "\n").encode()
    rss0, t0, peak, counts = srv.rss_kb(), time.time(), [srv.rss_kb()], {"sent": 0, "closed": 0}
    lock = threading.Lock()

    def one(k):
        n = 0
        while not stop.is_set() and time.time() - t0 < args.seconds + 5 and n < 1000:
            n += 1
            try:
                c = Conn(srv.port, timeout=5)
                c.sock.sendall(first(k * 1000 + n) + b"\n")
                for _ in range(80):
                    if stop.is_set():
                        break
                    c.sock.sendall(ping * 50)
                with lock:
                    counts["sent"] += 1
            except (OSError, ConnectionError):
                with lock:
                    counts["closed"] += 1
            c.close()

    threads = [threading.Thread(target=one, args=(k,), daemon=True) for k in range(conns)]
    for th in threads:
        th.start()
    while any(th.is_alive() for th in threads):
        peak[0] = max(peak[0], srv.rss_kb())
        time.sleep(0.01)
    time.sleep(1.5)  # the connections are reaped, the allocator gives back what they held
    dt = time.time() - t0
    after = srv.rss_kb()
    return {"what": "%d connections of 4000 pings of 64 KB behind the wait in %.1f s (%d closed "
                    "by the server first), RSS %.1f MB, peak +%.1f MB, after +%.1f MB" % (
                        counts["sent"] + counts["closed"], dt, counts["closed"], rss0 / 1024,
                        (peak[0] - rss0) / 1024, (after - rss0) / 1024),
            "held": peak[0] - rss0 <= 32 * 1024 and after - rss0 <= 4 * 1024}


def a16_queue_hash(args, srv, stop):
    """register (a password hash off the loop), then 4000 pings of 64 KB: what waits behind it."""
    return queue_attack(args, srv, stop, lambda i: json.dumps({
        "type": "register", "protocol": 1, "name": "q%d%d" % (os.getpid() % 1000, i),
        "password": "a long enough secret"}).encode(), 1)


def a17_queue_reads(args, srv, stop):
    """32 connections (the address's maximum), each a history as deep as the server takes (the
    default --max-history-offset, 1000: a store read off the loop), then 4000 pings of 64 KB."""
    return queue_attack(args, srv, stop, lambda i: b'{"type":"history","offset":1000}', 32)


ATTACKS = [
    (1, "fill the disk (create+leave)", a1_fill_disk, ("alone",)),
    (2, "grow one game (draw offers)", a2_grow_game, ("alone",)),
    (3, "hold every connection slot", a3_hold_slots, ("setup",)),
    (4, "hold every game slot", a4_hold_games, ("setup",)),
    (5, "jam the computer", a5_jam_computer, ()),
    (6, "guess invite codes", a6_guess_codes, ()),
    (7, "lock a player out (resume)", a7_resume_lockout, ("--max-output", "4096")),
    (8, "pile up sessions", a8_session_pile, ("alone",)),
    (9, "controls in log, spectator chat", a9_smaller, ()),
    (10, "new store on a full disk", a10_full_disk_start, ()),
    (11, "lock the owner out (logins)", a11_login_lockout, ("alone",)),
    (12, "starve the readers (deep pages)", a12_deep_reads, ("fill", "--keep-finished", "0")),
    (13, "farm a rating with puppets", a13_farm_rating, ("alone",)),
    (14, "chat growth (finished games)", a14_chat_growth, ("alone",)),
    (15, "registration spam", a15_register_spam, ("alone",)),
    (16, "queue behind a password hash", a16_queue_hash, ("alone",)),
    (17, "queue behind reads, 32 conns", a17_queue_reads, ("alone",)),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hokitod", required=True)
    ap.add_argument("--loadgen", required=True)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--rounds", type=int, default=3,
                    help="quiet and attacked runs in turn, per attack (1 to 20)")
    ap.add_argument("--server-args", default="",
                    help="more hokitod flags for every server, e.g. per-address limits that "
                         "let the honest players (programs that play as fast as the server "
                         "answers, unlike people) through: '--max-rate-per-addr 1000 "
                         "--max-creates-per-addr 2000'")
    ap.add_argument("--think", type=int, default=0,
                    help="each honest player waits this many ms before each move (loadgen "
                         "--think): at 50 they play at about 10 moves a second each, within "
                         "the default per-address limits, so no --server-args are needed")
    args = ap.parse_args()
    if not 1 <= args.rounds <= 20:
        ap.error("--rounds wants 1 to 20")
    extra = args.server_args.split()
    only = {int(x) for x in args.only.split(",") if x.strip()}
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))

    print("load average at the start: %.2f %.2f %.2f (%d cores); %d round(s) of %gs quiet and "
          "%gs attacked per attack; server flags: %s" % (
              *os.getloadavg(), os.cpu_count(), args.rounds, args.seconds, args.seconds,
              args.server_args or "(defaults)"), flush=True)
    rows = []
    for num, title, fn, flags in ATTACKS:
        if only and num not in only:
            continue
        print("attack %d: %s (load %.2f)" % (num, title, os.getloadavg()[0]), flush=True)
        alone = None
        if "alone" in flags:
            # first on a server of its own with nobody else and the default limits, so that
            # what it does (store growth, sessions, log lines) is the attack's alone; then
            # again beside the honest players
            srv = Server(args.hokitod)
            try:
                stop = threading.Event()
                threading.Timer(args.seconds, stop.set).start()
                alone = fn(args, srv, stop)
            finally:
                srv.stop()
            print("  alone, default limits: %s" % alone["what"], flush=True)
        filled = filled_store(args.hokitod) if "fill" in flags else None
        srv = Server(args.hokitod, *extra,
                     *[f for f in flags if f.startswith("-") or f.isdigit()], db=filled)
        runs = []
        try:
            for rnd in range(args.rounds if num != 10 else 1):
                quiet = honest(args, srv, "quiet")
                if num == 10:
                    h, res = quiet, fn(args, srv, threading.Event())
                else:
                    h, res = during(args, srv, lambda stop: fn(args, srv, stop),
                                    "attack%d" % num, setup="setup" in flags)
                runs.append((quiet, h, res))
                print("  round %d: honest quiet %.0f moves/s p50 %.0f p99 %.0f us; under attack "
                      "%.0f moves/s p50 %.0f p99 %.0f us (loadgen exit %s %s); CPU s/s: server "
                      "%.2f quiet, %.2f attacked, attacker %.2f" % (
                          rnd + 1, fig(quiet, "moves_per_s"), fig(quiet, "rtt_p50_us"),
                          fig(quiet, "rtt_p99_us"), fig(h, "moves_per_s"), fig(h, "rtt_p50_us"),
                          fig(h, "rtt_p99_us"), h.get("rc"), "; ".join(h.get("stderr") or []),
                          fig(quiet, "srv_cpu"), fig(h, "srv_cpu"), res.get("cpu", 0)),
                      flush=True)
                print("    attack: %s" % res.get("what", res.get("error", "?")), flush=True)
                if num in (3, 4, 6, 7):
                    break  # what it holds stays held: a second round measures nothing new
            rss = srv.rss_kb()
            alive = srv.alive()
        finally:
            srv.stop()
            if filled is not None:
                shutil.rmtree(os.path.dirname(filled), ignore_errors=True)
        last = runs[-1][2]

        def med_ratio(key):
            v = [fig(h, key) / fig(q, key) for q, h, _ in runs if fig(q, key) and fig(h, key)]
            return median(v)

        row = {
            "num": num, "title": title,
            "quiet": median([fig(q, "moves_per_s") for q, _, _ in runs]),
            "attacked": median([fig(h, "moves_per_s") for _, h, _ in runs]),
            "ratio": med_ratio("moves_per_s"), "p50_ratio": med_ratio("rtt_p50_us"),
            "p99_ratio": med_ratio("rtt_p99_us"), "rounds": len(runs),
            "cpu": median([r.get("cpu", 0) for _, _, r in runs]),
            "srv_cpu": med_ratio("srv_cpu"),
            "rss_mb": rss / 1024 if rss >= 0 else float("nan"), "alive": alive,
            "what": (alone or last).get("what", last.get("error", "?")),
            "held": (alone or last).get("held"),
        }
        rows.append(row)

    print()
    print("%-3s %-31s %7s %6s %6s %2s %4s %5s %6s %6s  %-4s %s" % (
        "#", "attack", "moves/s", "p50 x", "p99 x", "n", "cpu", "srv x", "RSS MB", "server",
        "held", "what the attack did"))
    for r in rows:
        held = {True: "yes", False: "NO", None: "n/a"}[r["held"]]
        print("%-3d %-31s %7.2f %6.2f %6.2f %2d %4.2f %5.2f %6.1f %6s  %-4s %s" % (
            r["num"], r["title"][:31], r["ratio"], r["p50_ratio"], r["p99_ratio"], r["rounds"],
            r["cpu"], r["srv_cpu"], r["rss_mb"], "up" if r["alive"] else "DOWN", held,
            r["what"]))
    print("(moves/s, p50 x and p99 x: the 50 honest players under attack divided by the same "
          "players quiet, on the same server just before, the median over n rounds; target "
          ">= 0.90 and p99 <= 2.0. cpu: the attacker's CPU seconds a second; srv x: the "
          "server's CPU seconds a second attacked / quiet. held and what: "
          "from the run alone at the default limits where there is one, else the last round)")


def fig(figures, key):
    try:
        return float(figures.get(key, 0) or 0)
    except ValueError:
        return 0.0


def median(values):
    v = sorted(x for x in values if x == x)
    if not v:
        return float("nan")
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


if __name__ == "__main__":
    main()
