#!/usr/bin/env python3
"""hokitod under hostile clients, while a legitimate pair of players keeps playing. Prints TAP.

Scaled for a 2-core machine, under 60 seconds. The server runs with a short hello deadline (2 s)
and a small output cap (64 KiB). A legitimate pair plays random HOKITO games as fast as it can
(one request outstanding per player); its moves per second are measured unloaded, then under
attack, then unloaded again. The attack, each kind from its own process so that the players'
client is not starved of the GIL:

  - slow: 1000 to 3000 connections (in waves, about 400 open at once) that send nothing, or a hello one
    byte a second: each must get hello_timeout and see the connection closed within the deadline;
  - deaf: 100 spectators of the players' game (they follow it from game to game, writing watch
    requests) that never read: each is dropped when its pending output passes the cap;
  - flood: garbage lines (bad_json, answered, the connection stays), and over-long lines from
    fresh connections (line_too_long, then closed at once), at a bounded rate;
  - churn: one client opening and closing 1000 connections in a loop (some say hello first,
    some reset).

Checks: hokitod's RSS stays bounded (not under AddressSanitizer, where freed memory sits in
quarantine); every hostile connection is closed within its documented timeout; afterwards the
server holds no more sockets than before and serves as usual.

Figures: the players' moves per second under attack against the lower of the two unloaded
measurements (so that a machine getting busier or quieter for reasons of its own during the run
does not decide the result). The target is at least 90%. That is a speed goal, so in the test
suite the ratio is only printed: another program on the same two cores (a build, a fuzzer) would
decide it, not the server. With HOSTILE_STRICT=1 the ratio is a check as well; that is how the
benchmark tests/bench/hostile.sh runs this program, on a release build of hokitod.
"""
import json
import multiprocessing as mp
import os
import random
import resource
import selectors
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap, rss_kb, under_asan  # noqa: E402

HELLO_TIMEOUT = 2.0
MAX_OUTPUT = 65536
MAX_LINE = 65536
SLACK = 1.5  # seconds a close may lag behind its deadline on a loaded machine
PLAY_SECONDS = 4.0  # each unloaded measurement
ATTACK_SECONDS = 8.0  # the measurement under attack
RATIO = 0.90
STRICT = os.environ.get("HOSTILE_STRICT") == "1"  # the ratio is a check (tests/bench/hostile.sh)

SLOW_TOTAL, SLOW_OPEN = 3000, 400
DEAF_DROP_MAX = 15.0  # seconds phase A may last
DEAF = 100
CHURN = 1000
GARBAGE_PER_S = 2000
FLOOD_UNREAD = 300  # garbage lines the flood may have unanswered (about 20 KB of answers)
LONG_LINES = 20


def nsockets(pid):
    n = 0
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)).startswith("socket:"):
                n += 1
        except OSError:
            pass
    return n


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


class Player:
    """A fast, minimal protocol client: only the lines it needs are parsed."""

    def __init__(self, port, name):
        self.sock = connect(port)
        self.buf = b""
        self.send({"type": "hello", "protocol": 1, "name": name})
        self.expect(b"welcome")

    def send(self, obj):
        self.sock.sendall(json.dumps(obj).encode() + b"\n")

    def line(self):
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line, self.buf = self.buf[:i], self.buf[i + 1:]
                return line
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("closed by the server")
            self.buf += data

    def expect(self, *types):
        """Read up to the first line whose type is one of types; return (type, line)."""
        while True:
            line = self.line()
            # the server writes "type" first; anything else is parsed in full
            if line.startswith(b'{"type":"'):
                ty = line[9:line.index(b'"', 9)]
            else:
                ty = json.loads(line)["type"].encode()
            if ty == b"error":
                raise AssertionError("refused: %r" % line[:300])
            if ty in types:
                return ty, line


class Pair:
    """Two players of successive random games; new_game is told each new game's id."""

    def __init__(self, port, new_game=None):
        self.p = [Player(port, "legit-a"), Player(port, "legit-b")]
        self.new_game = new_game
        self.rng = random.Random(7)
        self.turn = None  # (player index, moves)
        self.moves = 0
        self.games = 0

    def start(self):
        a, b = self.p
        a.send({"type": "create", "kind": "hokito"})
        _, line = a.expect(b"state")
        game = json.loads(line)["game"]
        if self.new_game:
            self.new_game(game)
        b.send({"type": "join", "game": game})
        _, line = b.expect(b"state")
        st = json.loads(line)
        i = 1 if st["to_move"] == st["you"] else 0  # who moves first gets your_turn
        _, line = self.p[i].expect(b"your_turn")
        self.turn = (i, json.loads(line)["moves"])

    def play(self, seconds):
        """Play for seconds; return moves per second."""
        if self.turn is None:
            self.start()
        n = 0
        t0 = time.monotonic()
        end = t0 + seconds
        while time.monotonic() < end:
            i, moves = self.turn
            mover, other = self.p[i], self.p[1 - i]
            mover.send({"type": "move", "move": self.rng.choice(moves)})
            mover.expect(b"ok")
            n += 1
            ty, line = other.expect(b"your_turn", b"game_over")
            if ty == b"game_over":
                self.games += 1
                self.start()
            else:
                self.turn = (1 - i, json.loads(line)["moves"])
        self.moves += n
        return n / (time.monotonic() - t0)


# --- the attackers: each runs in its own process and sends its findings back ---


def attacker(fn, *args):
    """Run one attacker niced, and add the CPU time it used to what it sends back."""
    os.nice(10)
    out = args[-1]

    class Out:
        def send(self, d):
            t = os.times()
            d["cpu_s"] = t.user + t.system
            out.send(d)

    fn(*args[:-1], Out())



def slow_attack(port, stop, out):
    """SLOW_TOTAL connections, SLOW_OPEN at a time: half silent, half a hello byte a second."""
    sel = selectors.DefaultSelector()
    hello = b'{"type":"hello","protocol":1,"name":"slow"}'
    conns = {}  # sock -> [t_open, bytes sent, got hello_timeout, next byte time, buf]
    opened = 0
    lifetimes, no_error = [], 0
    while not stop.is_set() or conns:
        now = time.monotonic()
        while not stop.is_set() and len(conns) < SLOW_OPEN and opened < SLOW_TOTAL:
            s = connect(port)
            s.setblocking(False)
            drip = opened % 2 == 1
            conns[s] = [now, 0, False, now + 1.0 if drip else None, b""]
            sel.register(s, selectors.EVENT_READ)
            opened += 1
            if opened % 50 == 0:
                break  # open in bursts, let the loop breathe
        for key, _ in sel.select(0.05):
            s = key.fileobj
            st = conns[s]
            try:
                data = s.recv(4096)
            except BlockingIOError:
                continue
            except ConnectionResetError:
                data = b""
            if data:
                st[4] += data
                if b'"hello_timeout"' in st[4]:
                    st[2] = True
                continue
            lifetimes.append(time.monotonic() - st[0])
            no_error += not st[2]
            sel.unregister(s)
            s.close()
            del conns[s]
        now = time.monotonic()
        for s, st in conns.items():
            if st[3] is not None and now >= st[3] and st[1] < len(hello):
                try:
                    s.send(hello[st[1]:st[1] + 1])
                    st[1] += 1
                except OSError:
                    pass
                st[3] = now + 1.0
        if stop.is_set():
            # a connection still open long after its deadline counts as not closed
            for s, st in list(conns.items()):
                if now - st[0] > HELLO_TIMEOUT + 10:
                    lifetimes.append(float("inf"))
                    sel.unregister(s)
                    s.close()
                    del conns[s]
    out.send({"opened": opened, "lifetimes": lifetimes, "no_error": no_error})


def deaf_attack(port, games, stop, out):
    """DEAF spectators that follow the players' games and never read a byte."""
    socks = []
    for i in range(DEAF):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", port))
        s.sendall(b'{"type":"hello","protocol":1,"name":"deaf%d"}\n' % i)
        s.setblocking(False)
        socks.append(s)
    sent = 0
    while not stop.is_set():
        if games.poll(0.05):
            game = games.recv()
            line = b'{"type":"watch","game":"%s"}\n' % game.encode()
            for s in socks:
                try:
                    s.send(line)
                    sent += 1
                except OSError:
                    pass  # dropped (reset) or its own send buffer is full: fine
    # now read what is left: every one must end in EOF or a reset, having been dropped
    dropped = 0
    left = set(socks)
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    deadline = time.monotonic() + 5
    while left and time.monotonic() < deadline:
        for key, _ in sel.select(0.1):
            s = key.fileobj
            try:
                data = s.recv(1 << 20)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                dropped += 1
                sel.unregister(s)
                left.discard(s)
    for s in socks:
        s.close()
    out.send({"dropped": dropped, "watch_sent": sent})


def flood_attack(port, stop, out):
    """Garbage lines at GARBAGE_PER_S on one connection, and LONG_LINES over-long lines."""
    g = connect(port)
    g.sendall(b'{"type":"hello","protocol":1,"name":"garbage"}\n')
    g.setblocking(False)
    garbage = [b"{not json", b"\xff\xfe\xfd", b"[1,2,3]", b'{"type":"nope"}', b"}}}{{{",
               b'{"type":"move"}', b'"just a string"', b"\x00\x01\x02"]
    sent = replies = lines = 0
    long_close = []
    long_next = time.monotonic() + 0.2
    t0 = time.monotonic()
    while not stop.is_set():
        now = time.monotonic()
        due = int((now - t0) * GARBAGE_PER_S) - sent
        # a flood, but of a client that reads its answers: at most FLOOD_UNREAD lines unanswered,
        # else a loaded machine that slows this reader down makes it a deaf client, which the
        # server rightly closes at --max-output (the deaf attack tests that)
        due = min(due, FLOOD_UNREAD - (sent - lines))
        if due > 0:
            batch = b"".join(random.choice(garbage) + b"\n" for _ in range(min(due, 200)))
            try:
                g.sendall(batch)
                sent += min(due, 200)
            except BlockingIOError:
                pass
        try:
            while True:
                data = g.recv(1 << 16)
                if not data:
                    raise ConnectionError("garbage connection closed")
                lines += data.count(b"\n")
                replies += data.count(b'"code":"bad_json"') + data.count(b'"code":"unknown')
                replies += data.count(b'"code":"bad_field"')
        except BlockingIOError:
            pass
        if now >= long_next and len(long_close) < LONG_LINES:
            long_next = now + ATTACK_SECONDS / LONG_LINES
            s = connect(port)
            s.sendall(b'{"type":"hello","protocol":1,"name":"long"}\n')
            try:
                s.sendall(b"x" * (MAX_LINE + 4096))
            except OSError:
                pass
            t = time.monotonic()
            s.settimeout(HELLO_TIMEOUT + 10)
            got, err = b"", False
            try:
                while True:
                    data = s.recv(65536)
                    if not data:
                        break
                    got += data
            except ConnectionResetError:
                pass
            except socket.timeout:
                err = True
            err = err or b'"line_too_long"' not in got
            long_close.append((time.monotonic() - t, err))
            s.close()
        time.sleep(0.005)
    g.close()
    out.send({"garbage_sent": sent, "garbage_answered": replies, "long": long_close})


def churn_attack(port, stop, out):
    """CHURN connections opened and closed in a loop."""
    n = 0
    while n < CHURN and not stop.is_set():
        s = socket.socket()
        s.connect(("127.0.0.1", port))
        kind = n % 3
        if kind == 1:
            s.sendall(b'{"type":"hello","protocol":1,"name":"churn"}\n')
        elif kind == 2:
            # close with a reset
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()
        n += 1
        if n % 10 == 0:
            time.sleep(0.05)  # about 200 a second
    out.send({"churned": n})


def main():
    t = Tap()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    srv = Server("--log-level", "info", "--hello-timeout", str(int(HELLO_TIMEOUT)),
                 "--max-output", str(MAX_OUTPUT), "--max-clients", "4096")
    pid = srv.proc.pid
    procs = []
    # The players' client is CPU-bound Python, the attackers are Python too: on a 2-core machine
    # they would take CPU from the players' client rather than from the server, and the test
    # would measure the client. So the server gets core 0, the clients core 1, and the attackers
    # run niced (see attacker()): what they cost the players is what they cost the server.
    if len(os.sched_getaffinity(0)) >= 2:
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(pid, {cores[0]})
        os.sched_setaffinity(0, {cores[1]})
    try:
        ctx = mp.get_context("fork")
        game_r, game_w = ctx.Pipe(duplex=False)
        pair = Pair(srv.port)
        pair.play(0.5)  # warm up
        sockets0 = nsockets(pid)
        rss0 = rss_kb(pid)
        u1 = pair.play(PLAY_SECONDS)
        print("# unloaded: %.0f moves/s" % u1, flush=True)

        stop = ctx.Event()
        results = {}
        # HOSTILE_ONLY=slow,deaf,... runs some attackers only (to find which one costs what)
        only = os.environ.get("HOSTILE_ONLY", "slow,deaf,flood,churn").split(",")
        for name, fn, args in (("slow", slow_attack, ()), ("deaf", deaf_attack, (game_r,)),
                               ("flood", flood_attack, ()), ("churn", churn_attack, ())):
            if name not in only:
                continue
            r, w = ctx.Pipe(duplex=False)
            p = ctx.Process(target=attacker, args=(fn, srv.port) + args + (stop, w),
                            daemon=True)
            p.start()
            procs.append((name, p, r))
        pair.new_game = game_w.send  # the deaf spectators follow the players' games
        time.sleep(1.0)  # let the attack ramp up
        rss_peak = rss_kb(pid)
        # phase A: until the spectators that never read are dropped (they watch the players'
        # game, so until then every move is also written to them); phase B: the rest of the
        # attack goes on for ATTACK_SECONDS
        phase_a, phase_b = [], []
        t_a = time.monotonic()
        while "deaf" in only and time.monotonic() < t_a + DEAF_DROP_MAX:
            phase_a.append(pair.play(0.5))
            rss_peak = max(rss_peak, rss_kb(pid))
            if sum(1 for l in list(srv.log) if "over the cap" in l) >= DEAF:
                break
        t_a = time.monotonic() - t_a
        t_end = time.monotonic() + ATTACK_SECONDS
        while time.monotonic() < t_end:
            phase_b.append(pair.play(0.5))
            rss_peak = max(rss_peak, rss_kb(pid))
        lo = sum(phase_b) / len(phase_b)
        lo_all = sum(phase_a + phase_b) / len(phase_a + phase_b)
        pair.new_game = None
        stop.set()
        for name, p, r in procs:
            if r.poll(HELLO_TIMEOUT + 20):
                results[name] = r.recv()
            p.join(5)
        print("# attack, until the deaf spectators were dropped (%.1f s): %s moves/s "
              "(half-second windows: %s)"
              % (t_a, "%.0f" % (sum(phase_a) / len(phase_a)) if phase_a else "-",
                 " ".join("%.0f" % x for x in phase_a)), flush=True)
        print("# attack, after: %.0f moves/s (half-second windows: %s)"
              % (lo, " ".join("%.0f" % x for x in phase_b)), flush=True)
        for name in results:
            print("# attacker %s used %.2f s of CPU" % (name, results[name].get("cpu_s", -1)))
        time.sleep(0.5)
        u2 = pair.play(PLAY_SECONDS)
        print("# unloaded again: %.0f moves/s" % u2, flush=True)
        asan = under_asan(pid)
        # Under AddressSanitizer every allocation and free is checked and the kernel's share of
        # a move shrinks, so throughput is the sanitizer's, not the server's.
        skip = " # SKIP under AddressSanitizer" if asan else ""
        base = min(u1, u2)
        # hokitod bounds each connection's kernel send buffer (SO_SNDBUF), so a client that
        # never reads reaches --max-output after about 128 KiB in the kernel, not megabytes:
        # the time the deaf spectators were attached counts too.
        figures = (("under attack the players keep >= %d%% of their unloaded moves/s "
                    "(%.0f vs %.0f and %.0f: %.1f%%)"
                    % (RATIO * 100, lo, u1, u2, 100 * lo / base), lo),
                   ("the same, counting the time the deaf spectators were attached too "
                    "(%.0f: %.1f%%)" % (lo_all, 100 * lo_all / base), lo_all))
        for text, rate in figures:
            if STRICT:
                t.ok(asan or rate >= RATIO * base, text + skip)
            else:
                print("# figure: %s%s" % (text, " (the sanitizer's speed)" if asan else ""),
                      flush=True)

        rss1 = rss_kb(pid)
        # AddressSanitizer keeps freed memory in quarantine (256 MB): RSS says nothing then
        t.ok(asan or rss_peak - rss0 < 64 * 1024,
             "hokitod RSS stays bounded: %d kB before, %d kB peak, %d kB after%s"
             % (rss0, rss_peak, rss1, skip))

        s = results.get("slow", {})
        lt = s.get("lifetimes", [])
        late = [x for x in lt if x > HELLO_TIMEOUT + SLACK]
        t.ok(s.get("opened", 0) >= 1000 and len(lt) == s.get("opened") and not late
             and s.get("no_error") == 0,
             "%d silent or one-byte-a-second connections: each got hello_timeout and was "
             "closed within %.1f s (slowest %.2f s)"
             % (len(lt), HELLO_TIMEOUT + SLACK, max(lt) if lt else -1),
             "opened %s, closed %d, late %d, without hello_timeout %s"
             % (s.get("opened"), len(lt), len(late), s.get("no_error")))

        d = results.get("deaf", {})
        # the log says so once in 10 s at most, with the count of the drops since its last line
        said = [l for l in srv.log if "over the cap" in l]
        t.ok(d.get("dropped") == DEAF and 1 <= len(said) <= (DEAF_DROP_MAX + ATTACK_SECONDS) // 10 + 2,
             "%d spectators that never read were dropped at the output cap, the log says so in "
             "%d lines" % (DEAF, len(said)),
             "%s dropped seen by the clients, log: %r" % (d.get("dropped"), said[:3]))

        f = results.get("flood", {})
        longs = f.get("long", [])
        t.ok(f.get("garbage_sent", 0) > 0 and
             f.get("garbage_answered", 0) >= 0.9 * f.get("garbage_sent", 1),
             "garbage lines were answered with errors on a connection that stays open",
             "sent %s, answered %s" % (f.get("garbage_sent"), f.get("garbage_answered")))
        t.ok(len(longs) == LONG_LINES and all(not e and d < SLACK for d, e in longs),
             "%d over-long lines: line_too_long, then closed at once (slowest %.2f s)"
             % (len(longs), max((d for d, _ in longs), default=-1)), longs)
        c = results.get("churn", {})
        t.ok(c.get("churned") == CHURN, "%s connections opened and closed in a loop"
             % c.get("churned"))

        # every hostile connection is gone: the server holds what it held before
        deadline = time.time() + 5
        while nsockets(pid) > sockets0 and time.time() < deadline:
            time.sleep(0.1)
        t.ok(nsockets(pid) <= sockets0,
             "no hostile connection left open (%d sockets, %d before)"
             % (nsockets(pid), sockets0))
        a = srv.connect("after")
        r, _ = a.request({"type": "ping"})
        t.ok(r["type"] == "pong", "the server serves a new client as usual")
        a.close()
        print("# legit games played: %d, moves %d; slow connections %d, watch requests from "
              "deaf spectators %s, garbage lines %s, churned %s"
              % (pair.games, pair.moves, len(lt), d.get("watch_sent"),
                 f.get("garbage_sent"), c.get("churned")))
    finally:
        for _, p, _ in procs:
            if p.is_alive():
                p.kill()
        t.ok(srv.stop() == 0, "hokitod exits 0 and its log has no sanitizer report")
    t.done()


main()
