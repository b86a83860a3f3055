#!/usr/bin/env python3
"""The client side of tests/bench/fairread.sh: one address's deep history pages against another
address's first page, on a store of many finished games.

  fairread.py fill DB GAMES
      the store DB (made by a hokitod that has stopped) gets GAMES finished public games
      (ids f1..fGAMES, no events), straight SQL in one transaction, not through the server.
  fairread.py run --hokitod PATH --db DB --label L [--seconds T] [--samples S] [--conns N]
      [--args "FLAGS"]
      starts PATH on DB (127.0.0.1, the per-address limits lifted but for FLAGS), then: the
      victim (127.0.0.2, one connection) asks for the first history page S times, one at a
      time, 10 ms apart, alone ("quiet"); then again while N connections (default 8) of the
      attacker (127.0.0.66) each loop the deepest history page the server lets them ask for
      (the last page by offset, or at the offset cap when the server has one), for T seconds at
      most (the victim stops at S pages or T seconds). Prints one line each: L quiet / L attacked,
      the count, p50, p99 and max of the victim's page in ms, and the attacker's pages a second.

Loopback only; every loop is bounded in count and in time; the server is stopped at the end.
"""
import argparse
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

VICTIM = "127.0.0.2"
ATTACKER = "127.0.0.66"
UNLIMITED = ["--max-conns-per-addr", "0", "--max-rate-per-addr", "0",
             "--max-creates-per-addr", "0", "--max-games-per-addr", "0",
             "--max-lookup-failures", "0", "--max-sessions-per-addr", "0"]


def fill(db, n, created="1700000000000 + i * 1000", ended="1700000000500 + i * 1000"):
    """n finished public games (no events) straight into the store file of a stopped server:
    ids f1..fn, serials after the server's own. created and ended: their created_ms and ended_ms
    as SQL of i, the game's number (by default each ends a second after the one before)."""
    con = sqlite3.connect(db)
    con.execute("PRAGMA synchronous = OFF")
    first = con.execute("SELECT MAX(serial) FROM games").fetchone()[0] or 0
    con.execute(
        "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?) "
        "INSERT INTO games (id, serial, kind, variant, seed, private, code, status, created_ms,"
        " seat0_id, seat0_name, seat1_id, seat1_name, ended_ms, result, winner, reason, score0,"
        " score1, clock) SELECT 'f' || i, ? + i, 'hokito', 'standard', 7, 0, '', 'finished',"
        " %s, 'p1', 'x', 'p2', 'y', %s, 'win', 1, 'resign', 36, 36, 'none' FROM k"
        % (created, ended), (n, first))
    con.commit()
    con.close()


class Conn:
    """One JSON-lines connection from a chosen loopback source address."""

    def __init__(self, port, src, timeout=60.0):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind((src, 0))
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        self.buf = b""
        self.next_id = 0

    def ask(self, obj):
        self.next_id += 1
        self.sock.sendall((json.dumps(dict(obj, id=self.next_id)) + "\n").encode())
        while True:
            while b"\n" not in self.buf:
                data = self.sock.recv(1 << 20)
                if not data:
                    raise ConnectionError("closed")
                self.buf += data
            line, self.buf = self.buf.split(b"\n", 1)
            m = json.loads(line)
            if m.get("id") == self.next_id:
                return m

    def close(self):
        self.sock.close()


def start(hokitod, db, extra):
    tmp = tempfile.mkdtemp(prefix="hokito-fairread-")
    port_file = os.path.join(tmp, "port")
    log = open(os.path.join(tmp, "log"), "wb")
    proc = subprocess.Popen([hokitod, "--listen", "127.0.0.1:0", "--port-file", port_file,
                             "--db", db, "--log-level", "warn", "--keep-finished", "0"] +
                            UNLIMITED + extra, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        try:
            with open(port_file) as f:
                return proc, int(f.read()), tmp
        except (OSError, ValueError):
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("hokitod did not start")


def stop(proc, tmp):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    subprocess.run(["rm", "-rf", tmp])


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p))] if v else float("nan")


def victim(port, samples, seconds):
    """The victim's first pages: their times in ms."""
    c = Conn(port, VICTIM)
    c.ask({"type": "hello", "protocol": 1, "name": "victim"})
    times, end = [], time.time() + seconds
    while len(times) < samples and time.time() < end:
        t0 = time.perf_counter()
        r = c.ask({"type": "history"})
        assert r["type"] == "history_page", r
        times.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.01)
    c.close()
    return times


def deepest(c, total):
    """The deepest history request this server takes: the last page by offset, else the
    offset cap it names in its refusal."""
    req = {"type": "history", "offset": max(0, total - 20), "limit": 20}
    r = c.ask(req)
    if r["type"] == "error" and r.get("field") == "offset":
        cap = int("".join(ch for ch in r["text"].split(":")[0] if ch.isdigit()))
        req = {"type": "history", "offset": cap, "limit": 20}
    return req


def attacker(port, conns, stop_at, served):
    cs = []
    for i in range(conns):
        c = Conn(port, ATTACKER)
        c.ask({"type": "hello", "protocol": 1, "name": "deep%d" % i})
        cs.append(c)
    total = cs[0].ask({"type": "history", "limit": 1})["total"]
    req = deepest(cs[0], total)

    def loop(c):
        while time.time() < stop_at:
            r = c.ask(req)
            if r["type"] == "history_page":
                served[0] += 1
        c.close()

    ts = [threading.Thread(target=loop, args=(c,), daemon=True) for c in cs]
    for t in ts:
        t.start()
    return ts, req


def run(args):
    proc, port, tmp = start(args.hokitod, args.db, args.args.split())
    try:
        # warm the page cache and the server's statements the same way for every build
        victim(port, 5, 10)
        quiet = victim(port, args.samples, args.seconds)
        print("%s quiet: victim's first page n=%d p50 %.1f p99 %.1f max %.1f ms" % (
            args.label, len(quiet), pct(quiet, 0.5), pct(quiet, 0.99), max(quiet)), flush=True)
        served = [0]
        stop_at = time.time() + args.seconds
        ts, req = attacker(port, args.conns, stop_at, served)
        time.sleep(0.5)
        t0 = time.time()
        hit = victim(port, args.samples, max(1, stop_at - time.time()))
        dt = time.time() - t0
        for t in ts:
            t.join(max(1, stop_at - time.time() + 30))
        print("%s attacked (%d conns of %s, each looping %s): victim's first page n=%d p50 %.1f "
              "p99 %.1f max %.1f ms; attacker %.1f pages/s" % (
                  args.label, args.conns, ATTACKER, json.dumps(req), len(hit), pct(hit, 0.5),
                  pct(hit, 0.99), max(hit), served[0] / max(dt, 1e-9)), flush=True)
    finally:
        stop(proc, tmp)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "fill":
        fill(sys.argv[2], int(sys.argv[3]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cmd", choices=["run"])
    ap.add_argument("--hokitod", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--label", required=True)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--samples", type=int, default=500)
    ap.add_argument("--conns", type=int, default=8)
    ap.add_argument("--args", default="")
    args = ap.parse_args()
    if not (1 <= args.samples <= 100000 and 0 < args.seconds <= 3600 and 1 <= args.conns <= 64):
        ap.error("--samples 1..100000, --seconds up to 3600, --conns 1..64")
    run(args)


if __name__ == "__main__":
    main()
