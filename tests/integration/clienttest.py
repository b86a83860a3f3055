"""clienttest.py: shared helpers of the hokito client integration tests (test-client-*.py).

A TAP reporter, the real hokitod started on a free loopback port, a relay that cuts or holds the
clients' connections, a --plain client driven over pipes, a tmux-driven client, a plain-socket
spectator that follows the positions, and the engine tool to list legal moves. Everything runs on
127.0.0.1 with bounded waits.
"""
import json
import os
import queue
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HOKITO = os.environ.get("HOKITO", "hokito")
HOKITOD = os.environ.get("HOKITOD", "hokitod")
ENGINE = os.environ.get("HOKITO_ENGINE", "hokito-engine")


class Tap:
    """TAP lines: ok N - name / not ok N - name, then the plan."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, cond, name, detail=""):
        self.n += 1
        if cond:
            print("ok %d - %s" % (self.n, name), flush=True)
        else:
            self.failed += 1
            print("not ok %d - %s" % (self.n, name), flush=True)
            for line in str(detail).splitlines()[-40:]:
                print("#   " + line, flush=True)
        return cond

    def done(self):
        print("1..%d" % self.n, flush=True)
        return 1 if self.failed else 0


def wait_for(pred, timeout=10.0, step=0.05):
    """Poll pred() until it returns a true value or timeout passes. Returns the value."""
    end = time.time() + timeout
    while True:
        v = pred()
        if v or time.time() > end:
            return v
        time.sleep(step)


class Server:
    """The real hokitod on a port the OS picks."""

    def __init__(self, tmp, args=()):
        self.port_file = os.path.join(tmp, "port")
        self.log = open(os.path.join(tmp, "hokitod.log"), "w")
        self.proc = subprocess.Popen(
            [HOKITOD, "--listen", "127.0.0.1:0", "--port-file", self.port_file,
             "--log-level", "debug", "--db", os.path.join(tmp, "hokito.db"),
             # every test client comes from 127.0.0.1: no per-address limits;
             # test-client-plain.py fills one game's state with 50 spectators' lines at once
             "--max-conns-per-addr", "0", "--max-rate-per-addr", "0",
             "--max-creates-per-addr", "0", "--max-games-per-addr", "0",
             "--max-lookup-failures", "0", "--max-sessions-per-addr", "0",
             "--max-accounts-per-addr", "0", "--max-accounts-per-addr-day", "0",
             "--max-kibitz", "0"] + list(args),
            stdout=self.log, stderr=self.log)
        ok = wait_for(lambda: os.path.exists(self.port_file) and
                      open(self.port_file).read().strip(), 10)
        if not ok:
            raise RuntimeError("hokitod did not start")
        self.port = int(open(self.port_file).read().strip())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


class Proxy:
    """A TCP relay on a free port, to cut a client's connection without stopping the server."""

    def __init__(self, port):
        self.upstream = port
        self.held = False  # hold(): connections are taken and closed at once
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.conns = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                a, _ = self.sock.accept()
            except OSError:
                return
            if self.held:
                a.close()
                continue
            try:
                b = socket.create_connection(("127.0.0.1", self.upstream))
            except OSError:
                a.close()
                continue
            with self.lock:
                self.conns += [a, b]
            threading.Thread(target=self._pump, args=(a, b), daemon=True).start()
            threading.Thread(target=self._pump, args=(b, a), daemon=True).start()

    @staticmethod
    def _pump(src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        """Drop every relayed connection (both sides see the connection end)."""
        with self.lock:
            conns, self.conns = self.conns, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass

    def hold(self):
        """Cut every relayed connection and close the new ones until release(): the clients
        keep trying to reconnect."""
        self.held = True
        self.cut()

    def release(self):
        self.held = False

    def close(self):
        self.sock.close()
        self.cut()


class Watcher:
    """A spectator over a plain socket: follows positions and the end of one game."""

    def __init__(self, port, game, code=None):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.f = self.sock.makefile("r", encoding="utf-8")
        self.lock = threading.Lock()
        self.position = None
        self.kind = None
        self.moves = []
        self.over = None
        self.started = False
        self.send({"type": "hello", "protocol": 1, "name": "referee"})
        self.send({"type": "watch", "code": code} if code else {"type": "watch", "game": game})
        threading.Thread(target=self._read, daemon=True).start()

    def send(self, obj):
        self.sock.sendall((json.dumps(obj) + "\n").encode())

    def _read(self):
        for line in self.f:
            m = json.loads(line)
            with self.lock:
                t = m.get("type")
                if t == "state":
                    self.kind = m["kind"]
                    self.position = m["position"]
                    self.moves = list(m["moves"])
                    self.started = m["status"] != "open"
                    if m.get("result"):
                        self.over = m["result"]
                elif t == "started":
                    self.position = m["position"]
                    self.started = True
                elif t == "moved":
                    self.position = m["position"]
                    self.moves.append(m["move"])
                elif t == "game_over":
                    self.over = m

    def snapshot(self):
        with self.lock:
            return self.position, list(self.moves), self.over, self.started

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class FakeServer:
    """A fake hokitod on a free loopback port, for one client: after the client's hello it sends
    messages (a broken or hostile server's), holds the connection hold seconds, then closes it."""

    def __init__(self, messages, hold=3.0):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, args=(messages, hold), daemon=True).start()

    def _serve(self, messages, hold):
        conn, _ = self.sock.accept()
        conn.recv(65536)
        for m in messages:
            conn.sendall((json.dumps(m) + "\n").encode())
        time.sleep(hold)
        conn.close()

    def close(self):
        self.sock.close()


def legal_moves(kind, position):
    r = subprocess.run([ENGINE, "moves", "--game", kind, position], capture_output=True,
                       text=True, timeout=10)
    return r.stdout.split()


def side_to_move(position):
    return position.rsplit(" ", 1)[1]


class Plain:
    """A hokito --plain process driven over pipes."""

    def __init__(self, port, name, args, state_home):
        env = dict(os.environ, XDG_STATE_HOME=state_home)
        env.pop("NO_COLOR", None)
        self.name = name
        self.proc = subprocess.Popen(
            [HOKITO, "--plain", "--port", str(port), "--name", name] + args,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, env=env,
            text=True, bufsize=1)
        self.lines = []
        self.lock = threading.Lock()
        self.pos = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            with self.lock:
                self.lines.append(line.rstrip("\n"))

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def expect(self, pattern, timeout=10.0):
        """The first line from the read mark on that matches; moves the mark past it."""
        rx = re.compile(pattern)

        def find():
            with self.lock:
                for i in range(self.pos, len(self.lines)):
                    m = rx.search(self.lines[i])
                    if m:
                        self.pos = i + 1
                        return m
            return None
        return wait_for(find, timeout)

    def seen(self, pattern):
        rx = re.compile(pattern)
        with self.lock:
            return any(rx.search(l) for l in self.lines)

    def text(self):
        with self.lock:
            return "\n".join(self.lines)

    def close(self, timeout=5):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None


class Tmux:
    """A private tmux server (its own socket) running hokito in panes."""

    def __init__(self, tag):
        self.sock = "hokito-test-%s-%d" % (tag, os.getpid())

    def run(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.sock, "-f", "/dev/null"] + list(args),
                              capture_output=True, text=True, check=check, timeout=10)

    def start(self, session, command, env, cols=100, rows=30, stderr=None):
        """A detached session running command; its exit status stays visible in the pane.
        The command's standard error goes to the file stderr (sanitizer reports land there)."""
        exports = " ".join("%s=%s" % (k, shquote(v)) for k, v in env.items())
        redirect = " 2>>%s" % shquote(stderr) if stderr else ""
        shell = "env %s %s%s; echo HOKITO-EXIT=$?; sleep 600" % (exports, command, redirect)
        self.run("new-session", "-d", "-s", session, "-x", str(cols), "-y", str(rows), shell)

    def keys(self, session, *keys):
        self.run("send-keys", "-t", session, *keys)

    def literal(self, session, text):
        self.run("send-keys", "-t", session, "-l", text)

    def capture(self, session):
        return self.run("capture-pane", "-p", "-t", session, check=False).stdout

    def expect(self, session, pattern, timeout=10.0):
        rx = re.compile(pattern, re.S)
        return wait_for(lambda: rx.search(self.capture(session)), timeout)

    def resize(self, session, cols, rows):
        self.run("resize-window", "-t", session, "-x", str(cols), "-y", str(rows), check=False)

    def kill(self):
        self.run("kill-server", check=False)


def shquote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def tmpdir():
    return tempfile.mkdtemp(prefix="hokito-client-test-")


def cleanup(path):
    shutil.rmtree(path, ignore_errors=True)


def main_guard(fn):
    """Run a test main, turning an unexpected exception into a failed TAP line."""
    tap = Tap()
    try:
        fn(tap)
    except Exception as e:  # noqa: BLE001 - a test must report, never hang or vanish
        import traceback
        tap.check(False, "no unexpected exception", traceback.format_exc() + repr(e))
    sys.exit(tap.done())
