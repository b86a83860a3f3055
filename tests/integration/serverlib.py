"""serverlib: start the real hokitod on a free loopback port and talk to it over real sockets.

Shared by the test-server*.py integration tests (Python 3 standard library only). Every wait is
bounded: a test that hangs fails with a clear message instead.
"""
import atexit
import json
import os
import re
import resource
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HOKITOD = os.environ.get("HOKITOD", "build/server/hokitod")
TIMEOUT = 10.0
# Game events (PROTOCOL.md 6): each carries the game's seq.
EVENT_TYPES = ("seated", "started", "moved", "game_over", "draw_offered", "draw_declined",
               "chat", "grace_over", "adjourned", "resumed", "rematch_offered",
               "rematch_declined", "rematch_started")

STARTED = []  # every Server, so that none outlives the test (atexit below)
# Which backend a Server's store is on: "sqlite" (a file in the test's temporary directory) or
# "pg" (a database of its own on one throw-away PostgreSQL per test process, tests/pgtmp.py).
# meson runs each test that touches the store once per backend (tests/integration/meson.build).
STORE = os.environ.get("HOKITO_TEST_STORE", "sqlite")
_PG = {"server": None, "n": 0}


def pg_server():
    """The test process's throw-away PostgreSQL (started at the first call, gone at exit)."""
    if _PG["server"] is None:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
        import pgtmp
        _PG["server"] = pgtmp.TempPostgres()
        _PG["server"].start()
    return _PG["server"]


def fresh_store(tmp):
    """A new empty store for a Server: a file in tmp, or a new PostgreSQL database."""
    if STORE != "pg":
        return os.path.join(tmp, "hokito.db")
    pg = pg_server()
    _PG["n"] += 1
    name = "hokito_%d_%d" % (os.getpid(), _PG["n"])
    pg.psql("CREATE DATABASE %s OWNER hokito" % name)
    return pg.uri.replace("@/hokito?", "@/%s?" % name, 1)
# The per-address limits see every test client as one address (127.0.0.1): they are off
# unless a test names them after these (a later flag wins); test-server-limits.py pins each.
NO_ADDR_LIMITS = ["--max-conns-per-addr", "0", "--max-rate-per-addr", "0",
                  "--max-creates-per-addr", "0", "--max-games-per-addr", "0",
                  "--max-lookup-failures", "0", "--max-sessions-per-addr", "0",
                  "--max-accounts-per-addr", "0", "--max-accounts-per-addr-day", "0"]


def rss_kb(pid):
    """Process pid's resident memory (VmRSS) in KiB, or -1."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def under_asan(pid):
    """Whether process pid runs under AddressSanitizer (a sanitized build maps libasan)."""
    with open("/proc/%d/maps" % pid) as f:
        return "libasan" in f.read()


class Server:
    """One hokitod process listening on 127.0.0.1 (or ::1) at a port the OS picked."""

    def __init__(self, *args, host="127.0.0.1", db=None, env=None, nofile=None):
        """db: the store (default: a fresh one, fresh_store(): a file in a temporary
        directory, or a PostgreSQL database); give the same db again to restart on the same
        store. env: variables to add to hokitod's
        environment (an LD_PRELOAD, say). nofile: (soft, hard) open-file limit to start it
        with."""
        self.tmp = tempfile.mkdtemp(prefix="hokitod-test-")
        port_file = os.path.join(self.tmp, "port")
        listen = "[%s]:0" % host if ":" in host else "%s:0" % host
        self.db = db or fresh_store(self.tmp)
        # the admin socket: beside an SQLite file by default; a PostgreSQL store has none but
        # where --admin-socket says (a later --admin-socket of the test's wins)
        self.admin_sock = self.db + ".sock"
        admin = []
        if STORE == "pg":
            self.admin_sock = os.path.join(self.tmp, "admin.sock")
            admin = ["--admin-socket", self.admin_sock]
        self.proc = subprocess.Popen(
            [HOKITOD, "--listen", listen, "--port-file", port_file, "--log-level", "debug",
             "--db", self.db] + NO_ADDR_LIMITS + admin + list(args),
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, errors="replace",
            env=dict(os.environ, **env) if env else None,
            preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, nofile))
            if nofile else None)
        STARTED.append(self)
        self.host = host
        self.log = []
        self.listening = threading.Event()
        self.port = None
        self.http_port = None   # --listen-http's, from its log line
        self.https_port = None  # --listen-https's
        threading.Thread(target=self._read_log, daemon=True).start()
        if not self.listening.wait(TIMEOUT):
            self.kill()
            raise RuntimeError("hokitod did not start: %s" % "".join(self.log))
        with open(port_file) as f:
            # one line per listener: the plain one first, then --listen-tls's
            self.ports = [int(x) for x in f.read().split()]
            assert self.ports[0] == self.port

    def _read_log(self):
        for line in self.proc.stderr:
            self.log.append(line)
            h = re.search(r"listening for (HTTPS?) on .*:(\d+)", line)
            if h:
                setattr(self, "https_port" if h.group(1) == "HTTPS" else "http_port",
                        int(h.group(2)))
            m = re.search(r"listening on (.*):(\d+)$", line.strip())
            if m and self.port is None:
                self.port = int(m.group(2))
                self.listening.set()

    def connect(self, name=None, **kw):
        c = Client(self.host, self.port, **kw)
        if name is not None:
            c.hello(name)
        return c

    def account(self, name, password, **kw):
        """A new connection that registers account name (so it is logged in as name)."""
        c = Client(self.host, self.port, **kw)
        c.register(name, password)
        return c

    def log_has(self, pattern, timeout=TIMEOUT):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if any(re.search(pattern, l) for l in list(self.log)):
                return True
            time.sleep(0.02)
        return False

    def stop(self, sig=signal.SIGTERM, timeout=TIMEOUT):
        """Stop with a signal; return the exit status (None if it had to be killed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            status = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        time.sleep(0.05)  # let the log reader take the last lines
        bad = [l for l in self.log if "runtime error:" in l or "Sanitizer" in l]
        if bad:
            sys.stdout.write("".join("# " + l for l in bad[:20]))
            return "sanitizer"
        return status

    def game_over_while_away(self):
        """A HOKITO game whose black player ("away") drops before white ("stays") resigns it.
        Returns (away, stays, game id): away's token resumes it."""
        a = self.connect("away")
        b = self.connect("stays")
        st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 4})
        b.request({"type": "join", "game": st["game"]})
        play_opening(a, b)  # a result needs play: both sides move first
        a.close()
        b.wait_for("presence")
        b.request({"type": "resign"})
        return a, b, st["game"]

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@atexit.register
def _kill_started():
    """A check that failed between a start and its stop (a kill -9 and the restart, say) left
    its server running: kill what is left when the test ends."""
    for srv in STARTED:
        srv.kill()


FIRST_SIDE = {"hokito": "black", "oxono": "pink"}


def movers(state, a, b):
    """(first, second): a, whose state this is, and b in the order they move in its game."""
    return (a, b) if state["you"] == FIRST_SIDE[state["kind"]] else (b, a)


def move_once(p):
    """p plays the first legal move of its next your_turn (against the computer: so that it
    may resign, PROTOCOL.md resign); its ok is read, the rest waits in its backlog."""
    yt = p.wait_for("your_turn")
    r = p.ask({"type": "move", "move": yt["moves"][0]})
    assert r["type"] == "ok", r


def play_opening(first, second, moves=1, pick=0):
    """Each side makes `moves` moves (first moves first: the first legal move of each
    your_turn), so that a result may follow: a player who has not moved may not resign, and
    no draw is agreed before both sides moved (PROTOCOL.md resign, draw_offer). Each mover's
    ok is read; what else came waits in the backlogs for recv() and wait_for(). pick: the
    index of the move played in each your_turn's list, or a pair of them (first's, second's)."""
    picks = pick if isinstance(pick, tuple) else (pick, pick)
    for _ in range(moves):
        for p, i in zip((first, second), picks):
            yt = p.wait_for("your_turn")
            r = p.ask({"type": "move", "move": yt["moves"][i]})
            assert r["type"] == "ok", r


class Players(threading.Thread):
    """Two guests of srv (names a and b) playing short games in a thread, one after another (two
    moves each, then a resignation), until stop is set, most games at most: the store written
    all along. games: each game's (id, time begun, time ended); error: what stopped them
    otherwise."""

    def __init__(self, srv, a="bea_p", b="bo_p", most=2000):
        super().__init__(daemon=True)
        self.a, self.b = srv.connect(a), srv.connect(b)
        self.most = most
        self.games = []
        self.stop = threading.Event()
        self.error = None

    def run(self):
        try:
            while not self.stop.is_set() and len(self.games) < self.most:
                began = time.time()
                st, _ = self.a.request({"type": "create", "kind": "hokito", "seat": "black",
                                        "seed": 3})
                self.b.request({"type": "join", "game": st["game"]})
                play_opening(self.a, self.b, moves=2)
                assert self.a.ask({"type": "resign"})["type"] == "ok"
                self.a.wait_for("game_over")
                self.b.wait_for("game_over")
                self.games.append((st["game"], began, time.time()))
                for c in (self.a, self.b):
                    c.ask({"type": "leave"})
        except Exception as e:  # noqa: BLE001  (the test reads it)
            self.error = repr(e)

    def wait_games(self, n, timeout=TIMEOUT):
        """Wait until n games are over (or an error, or timeout seconds)."""
        deadline = time.time() + timeout
        while len(self.games) < n and self.error is None and time.time() < deadline:
            time.sleep(0.02)
        return len(self.games) >= n

    def finish(self):
        """Stop after the game under way; True when they played without an error."""
        self.stop.set()
        self.join(TIMEOUT)
        return self.error is None and not self.is_alive()


class Closed(Exception):
    pass


class Conversation:
    """The message side of a protocol client, whatever carries the lines: recv(), wait_for(),
    request(), ask() and hello(), every wait bounded. A transport subclass gives send(obj) and
    recv_line(timeout) (the next raw line, without its '\\n', also kept in .lines), and may keep
    what it reads through _record()."""

    WAIT_FLOOR = 0.01  # the least a read waits once a deadline has passed

    def __init__(self):
        self.backlog = []    # messages set aside by wait_for(), returned first by recv()
        self.next_id = 1
        self.lines = []      # every raw line received, in order
        self.player = None
        self.token = None

    def _record(self, m, line):
        """Called with each message read and its raw line; keeps nothing here."""

    def _next(self, timeout):
        line = self.recv_line(timeout)
        m = json.loads(line)
        self._record(m, line)
        return m

    def _wait(self, deadline):
        return max(self.WAIT_FLOOR, deadline - time.time())

    def recv(self, timeout=TIMEOUT):
        if self.backlog:
            return self.backlog.pop(0)
        return self._next(timeout)

    def expect(self, type_, timeout=TIMEOUT):
        m = self.recv(timeout)
        if m.get("type") != type_:
            raise AssertionError("expected %s, got %s" % (type_, json.dumps(m)[:400]))
        return m

    def recv_until(self, type_, timeout=TIMEOUT):
        """Messages up to and including the first of type_; returns (that, [the others])."""
        others = []
        deadline = time.time() + timeout
        while True:
            m = self.recv(self._wait(deadline))
            if m.get("type") == type_:
                return m, others
            others.append(m)

    def wait_for(self, type_, timeout=TIMEOUT):
        """The first message of type_; the others read on the way are kept for recv()."""
        for i, m in enumerate(self.backlog):
            if m.get("type") == type_:
                return self.backlog.pop(i)
        kept = []
        deadline = time.time() + timeout
        try:
            while True:
                m = self._next(self._wait(deadline))
                if m.get("type") == type_:
                    return m
                kept.append(m)
        finally:
            self.backlog.extend(kept)

    def _send_with_id(self, obj):
        """Send a copy of obj with a fresh id; returns that id."""
        obj = dict(obj)
        obj["id"] = self.next_id
        self.next_id += 1
        self.send(obj)
        return obj["id"]

    def request(self, obj, timeout=TIMEOUT):
        """Send obj with a fresh id; return (reply, [messages before it])."""
        return self.reply(self._send_with_id(obj), timeout)

    def reply(self, id_, timeout=TIMEOUT):
        """The reply to the request sent with id id_, and [the messages before it]."""
        others = []
        deadline = time.time() + timeout
        while True:
            m = self.recv(self._wait(deadline))
            if m.get("id") == id_:
                return m, others
            others.append(m)

    def ask(self, obj, timeout=TIMEOUT):
        """Like request(), but the messages that come before the reply stay for recv() and
        wait_for(); returns the reply."""
        id_ = self._send_with_id(obj)
        kept = []
        deadline = time.time() + timeout
        try:
            while True:
                m = self.recv(self._wait(deadline))
                if m.get("id") == id_:
                    return m
                kept.append(m)
        finally:
            self.backlog[0:0] = kept

    def hello(self, name, token=None):
        """A guest hello (with token: resuming that session); keeps .player and .token."""
        h = {"type": "hello", "protocol": 1, "name": name}
        if token:
            h["token"] = token
        return self._welcomed(h)

    def register(self, name, password):
        """Register account name; keeps .player and .token as hello() does."""
        return self._welcomed({"type": "register", "name": name, "password": password})

    def _welcomed(self, obj):
        r, _ = self.request(obj)
        assert r["type"] == "welcome", r
        self.player = r["player"]
        self.token = r["token"]
        return r


class Client(Conversation):
    """A protocol client over TCP: lines in, JSON objects out, every wait bounded."""

    def __init__(self, host, port, rcvbuf=None, src=None):
        """src: the local address to connect from (127.0.0.2, ...: another source address)."""
        super().__init__()
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(fam, socket.SOCK_STREAM)
        if src:
            self.sock.bind((src, 0))
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(TIMEOUT)
        self.sock.connect((host, port))
        self.buf = b""
        self.events = {}     # game -> {seq: raw line} of game events seen

    def send(self, obj):
        self.send_raw((json.dumps(obj) + "\n").encode())

    def send_raw(self, data):
        self.sock.sendall(data)

    def recv_line(self, timeout=TIMEOUT):
        deadline = time.time() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no line within %.1fs (have %r)" % (timeout, self.buf[:200]))
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except ConnectionResetError:
                data = b""
            if not data:
                raise Closed("connection closed (pending %r)" % self.buf[:200])
            self.buf += data
        line, _, self.buf = self.buf.partition(b"\n")
        self.lines.append(line)
        return line

    def _record(self, m, line):
        if m.get("type") in EVENT_TYPES:
            seen = self.events.setdefault(m["game"], {})
            assert m["seq"] not in seen, "seq %d seen twice" % m["seq"]
            seen[m["seq"]] = line

    def quiet(self, wait=0.2):
        """Whether nothing arrives within wait seconds."""
        if self.buf or self.backlog:
            return False
        self.sock.settimeout(wait)
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            return True
        self.buf += data
        return False

    def drain(self, wait=0.3):
        """Every message that arrives until none has come for wait seconds."""
        out = []
        while True:
            try:
                out.append(self.recv(wait))
            except TimeoutError:
                return out

    def closed(self, timeout=TIMEOUT):
        """Read (discarding) until the server closes; True if it did within timeout."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.time()))
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                return False
            except (ConnectionResetError, BrokenPipeError):
                return True
            if not data:
                return True
        return False

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Recorder:
    """A connection that prints what it sends and receives, as PROTOCOL.md's examples show it:
    `C> line   (name)` and `S> line   (to name)`, your_turn's moves cut to four and `...`.
    With keep set, the lines go to a list instead (for a part shown only at the end)."""

    def __init__(self, srv, name):
        self.c = srv.connect()
        self.name = name
        self.keep = None

    def _show(self, text):
        if self.keep is not None:
            self.keep.append(text)
        else:
            print(text)

    def send(self, obj):
        line = json.dumps(obj, separators=(",", ":"))
        self._show("C> %s   (%s)" % (line, self.name))
        self.c.send(obj)

    def recv(self, n=1):
        """The next n lines; returns the last one, decoded."""
        for _ in range(n):
            line = self.c.recv_line().decode()
            m = json.loads(line)
            if m["type"] == "your_turn":
                four = json.dumps(m["moves"][:4], separators=(",", ":"))
                whole = json.dumps(m["moves"], separators=(",", ":"))
                line = line.replace(whole, four[:-1] + (",...]" if len(m["moves"]) > 4 else "]"))
            self._show("S> %s   (to %s)" % (line, self.name))
        return m

    def recv_until(self, *types):
        """Lines up to and including the first of one of types; returns that one, decoded."""
        while True:
            m = self.recv()
            if m["type"] in types:
                return m


def arrivals(named, want, timeout=30):
    """Read from several clients at once until want(order) holds: order is the list of
    (name, message) in the order the lines arrived here."""
    order = []
    socks = {c.sock: (name, c) for name, c in named}
    deadline = time.time() + timeout
    while not want(order) and time.time() < deadline:
        ready, _, _ = select.select(list(socks), [], [], max(0.01, deadline - time.time()))
        for sk in ready:
            name, c = socks[sk]
            data = sk.recv(65536)
            if not data:
                return order
            c.buf += data
            while b"\n" in c.buf:
                line, _, c.buf = c.buf.partition(b"\n")
                order.append((name, json.loads(line)))
    return order


class Tap:
    """TAP output: one line per check, the plan at the end."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, diag=None):
        self.n += 1
        if not cond and "# TODO" not in name:  # TAP: a failing TODO is not a failure
            self.failed += 1
            if diag:
                for l in str(diag).splitlines():
                    print("# " + l)
        print("%sok %d - %s" % ("" if cond else "not ", self.n, name), flush=True)
        return cond

    def run(self, name, fn, *args):
        """Run one test function; an exception is a failure with its traceback."""
        try:
            r = fn(*args)
            self.ok(r is not False, name)
        except Exception:
            self.ok(False, name, traceback.format_exc())

    def done(self):
        print("1..%d" % self.n, flush=True)
        sys.exit(1 if self.failed else 0)


def run_on_server(t, srv, tests, stopped):
    """Run tests on srv, a Server they share, each (name, function, its arguments...) as
    t.run(name, function, t, srv, its arguments...); then stop srv: that it exits 0 is a check
    of its own, named stopped (its last log lines shown if not)."""
    try:
        for name, fn, *fargs in tests:
            t.run(name, fn, t, srv, *fargs)
    finally:
        t.ok(srv.stop() == 0, stopped, "".join(srv.log[-30:]))
