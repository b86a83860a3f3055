#!/usr/bin/env python3
"""hokitod holds a connection whose request waits off the loop (a store read, a password hash).

Prints TAP. While such a request is out, the server reads nothing more of its connection: what
the client sends behind it waits in TCP and at most --max-queued bytes in the server, and is
handled afterwards, in order (PROTOCOL.md 2 and 9). Checks:

  - a register, or a hello with a password, is a successful hello once its welcome is sent: the
    connection outlives --hello-timeout after it, and answers ping;
  - requests sent in one write behind history, profile or a register are answered in order, also
    when they are far more than one read (3000 pings behind a history, 500 behind a register with
    --max-queued 1024, on plain TCP and on TLS);
  - the attacks: a deep history (a store of 120,000 games, asked 119,000 deep) then 4,000 pings of
    64 KB each; the same behind a register's password hash; three such connections at once; and
    32 connections from one address (its maximum) doing both. Each figure is hokitod's RSS
    before, at its peak and after (from /proc/PID/status), at the default limits: the peak may
    pass the RSS before by MEM_PEAK_KB at most (and 19 MiB more for each password hashing
    thread past the first that the attack keeps busy), and what stays after by MEM_AFTER_KB (not under
    AddressSanitizer, whose quarantine keeps freed memory). The server serves as usual after each;
  - requests read behind a held one count against their address's rate as they arrive, not when
    they are handled (--max-rate-per-addr 5, 20 pings behind the deep history).

Every loop is bounded; everything runs on 127.0.0.1 and is stopped at the end.
"""
import contextlib
import io
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from serverlib import Client, Closed, Server, Tap, rss_kb, under_asan  # noqa: E402
from archive import fill  # noqa: E402  (the store filler of tests/bench/archive.sh)

# hokitod's defaults for the per-address limits (serverlib turns them off; a later flag wins)
DEFAULT_LIMITS = ["--max-conns-per-addr", "32", "--max-rate-per-addr", "100",
                  "--max-creates-per-addr", "60", "--max-games-per-addr", "16",
                  "--max-lookup-failures", "5", "--max-sessions-per-addr", "64"]
GAMES = 120000           # in the store of the deep history
DEEP = 119000            # its offset: the read steps over that many games
# the deep read that holds its connection: an offset the default cap (1000) refuses, allowed
# here so that the read takes long enough for the attack's lines to pile up behind it
DEEP_ALLOWED = ["--max-history-offset", str(DEEP)]
PINGS = 4000             # behind the read
PAD = 65000              # bytes of each ping's pad
MEM_PEAK_KB = 32 * 1024  # what an attack may add to hokitod's RSS at its peak
MEM_AFTER_KB = 4 * 1024  # and what may stay once its connections are gone
# a password hash (Argon2id, m=19456 KiB) takes 19 MiB while it runs, on each of the server's
# hashing threads (hasher.c: the cores less one, 1 to 8); the bound holds for one
HASH_KB = 19456
HASH_THREADS = 1 if (os.cpu_count() or 1) <= 2 else min((os.cpu_count() or 1) - 1, 8)
ATTACK_SECONDS = 30      # each attacker gives up after this long


def seed_game(srv):
    """g1: two players, a move each, a resignation: the game the filled store copies."""
    a, b = srv.connect("ann"), srv.connect("ben")
    st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 7})
    b.request({"type": "join", "game": st["game"]})
    for c in (a, b):
        yt = c.wait_for("your_turn")
        r, _ = c.request({"type": "move", "move": yt["moves"][0]})
        assert r["type"] == "ok", r
    r, _ = a.request({"type": "resign"})
    assert r["type"] == "ok", r
    a.close()
    b.close()


def test_password_welcome_clears_deadline(t):
    srv = Server("--hello-timeout", "1", "--db", ":memory:")
    try:
        c = srv.connect()
        r, _ = c.request({"type": "register", "protocol": 1, "name": "latecomer",
                          "password": "a long enough secret"})
        t.ok(r["type"] == "welcome", "register is welcomed", r)
        time.sleep(2.5)  # past --hello-timeout 1
        r, others = c.request({"type": "ping"}, timeout=5)
        t.ok(r["type"] == "pong" and not others,
             "2.5 s after a register's welcome (--hello-timeout 1) the connection is open and "
             "answers ping", (r, others))
        c.close()
        d = srv.connect()
        r, _ = d.request({"type": "hello", "protocol": 1, "name": "latecomer",
                          "password": "a long enough secret"})
        t.ok(r["type"] == "welcome", "hello with the password is welcomed", r)
        time.sleep(2.5)
        r, others = d.request({"type": "ping"}, timeout=5)
        t.ok(r["type"] == "pong" and not others,
             "2.5 s after a password hello's welcome the connection is open and answers ping",
             (r, others))
        e = srv.connect()
        r, _ = e.request({"type": "hello", "protocol": 1, "name": "latecomer",
                          "password": "not the secret"})
        t.ok(r["type"] == "error" and r["code"] == "wrong_password", "a wrong password", r)
        m = e.recv(timeout=5)
        t.ok(m["type"] == "error" and m["code"] == "hello_timeout" and e.closed(5),
             "after a refused password the hello deadline still runs: hello_timeout, closed", m)
    finally:
        srv.stop()


def pipeline_in_order(t, srv, c, first, n, label):
    """Send first and n pings (ids 1..n) in one write from a thread; check every reply's order."""
    data = (json.dumps(first) + "\n").encode() + b"".join(
        (json.dumps({"type": "ping", "id": i}) + "\n").encode() for i in range(1, n + 1))
    sender = threading.Thread(target=c.send_raw, args=(data,))
    if getattr(c, "one_thread", False):
        sender.run()  # the kernel's buffers take it all while the server holds the connection
    else:
        sender.start()
    want = first["id"]
    r, _ = c.reply(want, 20)
    got = []
    try:
        while len(got) < n:
            got.append(c.recv(timeout=20).get("id"))
    except (TimeoutError, Closed) as e:
        got.append(str(e))
    if sender.is_alive():
        sender.join(20)
    t.ok(got == list(range(1, n + 1)),
         "%s: the reply (%s) first, then all %d pings answered in order (%d bytes sent in one "
         "write)" % (label, r["type"], n, len(data)), got[:5] + ["..."] + got[-5:])
    return r


def test_order(t):
    srv = Server("--db", ":memory:")
    try:
        c = srv.connect("orderly")
        # a mixed pipeline behind reads of the store
        lines = [{"type": "history", "id": "h"}, {"type": "ping", "id": 1},
                 {"type": "list", "id": 2}, {"type": "leaderboard", "kind": "hokito", "id": 3},
                 {"type": "ping", "id": 4}, {"type": "history", "limit": 5, "id": 5},
                 {"type": "ping", "id": 6}]
        c.send_raw(b"".join((json.dumps(m) + "\n").encode() for m in lines))
        ids = [c.recv(timeout=10).get("id") for _ in lines]
        t.ok(ids == [m["id"] for m in lines],
             "requests behind history and leaderboard, in one write: replies in order", ids)
        r = pipeline_in_order(t, srv, c, {"type": "history", "id": "deep"}, 3000,
                              "3000 pings behind a history")
        t.ok(r["type"] == "history_page", "the history's reply", r)
        d = srv.connect()
        r = pipeline_in_order(t, srv, d, {"type": "register", "protocol": 1, "name": "piper",
                                          "password": "a long enough secret", "id": "reg"},
                              300, "300 pings behind a register")
        t.ok(r["type"] == "welcome", "the register's welcome", r)
    finally:
        srv.stop()
    srv = Server("--db", ":memory:", "--max-queued", "1024")
    try:
        c = srv.connect()
        r = pipeline_in_order(t, srv, c, {"type": "register", "protocol": 1, "name": "smallreads",
                                          "password": "a long enough secret", "id": "reg"},
                              500, "--max-queued 1024: 500 pings behind a register")
        t.ok(r["type"] == "welcome", "the register's welcome", r)
        r = pipeline_in_order(t, srv, c, {"type": "history", "id": "h"}, 500,
                              "--max-queued 1024: 500 pings behind a history")
    finally:
        srv.stop()


def tls_files(tmp):
    key, crt = os.path.join(tmp, "key.pem"), os.path.join(tmp, "cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", crt, "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return crt, key


class TlsClient(Client):
    """serverlib's Client over TLS (a self-signed certificate, not verified), for
    pipeline_in_order() from one thread: Python's SSLSocket does not take a reader and a writer
    at once."""

    one_thread = True

    def __init__(self, port):
        super().__init__("127.0.0.1", port)
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        ctx.set_alpn_protocols(["hokito/1"])
        self.sock = ctx.wrap_socket(self.sock, server_hostname="localhost")


def test_order_tls(t):
    tmp = tempfile.mkdtemp(prefix="hokitod-queued-")
    crt, key = tls_files(tmp)
    srv = Server("--db", ":memory:", "--listen-tls", "127.0.0.1:0", "--tls-cert", crt,
                 "--tls-key", key, "--max-queued", "4096")
    try:
        c = TlsClient(srv.ports[1])
        r = pipeline_in_order(t, srv, c, {"type": "register", "protocol": 1, "name": "tlspiper",
                                          "password": "a long enough secret", "id": "reg"},
                              2000, "TLS, --max-queued 4096: 2000 pings behind a register")
        t.ok(r["type"] == "welcome", "the register's welcome over TLS", r)
        r = pipeline_in_order(t, srv, c, {"type": "history", "id": "h"}, 2000,
                              "TLS: 2000 pings behind a history")
    finally:
        srv.stop()


def attacker(port, first, hello, out, i):
    """One connection: optionally a guest hello, then first and PINGS padded pings, as fast as
    the server takes them, without reading; out[i] gets how it ended."""
    ping = (json.dumps({"type": "ping", "pad": "x" * PAD}) + "\n").encode()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=ATTACK_SECONDS)
        if hello:
            s.sendall(b'{"type":"hello","protocol":1,"name":"attacker%d"}\n' % i)
            buf = b""
            while b"\n" not in buf:
                buf += s.recv(4096)
        s.sendall(first + b"\n")
        sent = 0
        deadline = time.time() + ATTACK_SECONDS
        while sent < PINGS and time.time() < deadline:
            s.sendall(ping * 50)
            sent += 50
        out[i] = "sent all %d" % sent
        s.close()
    except OSError as e:
        out[i] = "closed by the server (%s)" % e.__class__.__name__


def run_attack(t, srv, asan, name, plan):
    """plan: [(first line, hello first)], one connection each, all at once."""
    pid = srv.proc.pid
    time.sleep(0.5)
    before = rss_kb(pid)
    peak = [before]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], rss_kb(pid))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample)
    sampler.start()
    out = [None] * len(plan)
    threads = [threading.Thread(target=attacker, args=(srv.port, first, hello, out, i))
               for i, (first, hello) in enumerate(plan)]
    t0 = time.time()
    for th in threads:
        th.start()
    for th in threads:
        th.join(ATTACK_SECONDS + 10)
    took = time.time() - t0
    time.sleep(1.5)  # the connections are reaped, the allocator gives back what they held
    stop.set()
    sampler.join()
    after = rss_kb(pid)
    skip = " # SKIP under AddressSanitizer" if asan else ""
    hashes = min(HASH_THREADS, sum(1 for first, _ in plan if b'"register"' in first))
    bound = MEM_PEAK_KB + max(0, hashes - 1) * HASH_KB
    figure = "RSS %d kB before, %d kB peak (+%d), %d kB after (+%d); %.1f s" % (
        before, peak[0], peak[0] - before, after, after - before, took)
    print("# figure: %s: %s" % (name, figure))
    t.ok(asan or peak[0] - before <= bound,
         "%s: the peak adds %d MB at most: %s%s" % (name, bound // 1024, figure, skip))
    t.ok(asan or after - before <= MEM_AFTER_KB,
         "%s: %d MB at most stay after: %s%s" % (name, MEM_AFTER_KB // 1024, figure, skip))
    c = srv.connect("after" + name.split()[0])
    r, _ = c.request({"type": "ping"})
    t.ok(r["type"] == "pong", "%s: the server serves as usual after it (%s)" % (
        name, ", ".join(sorted(set(x or "?" for x in out)))))
    c.close()


def test_attacks(t):
    tmp = tempfile.mkdtemp(prefix="hokitod-queued-")
    db = os.path.join(tmp, "deep.db")
    srv = Server("--db", db)
    seed_game(srv)
    srv.stop()
    said = io.StringIO()
    with contextlib.redirect_stdout(said):  # its line is no TAP
        fill(db, GAMES, 10)
    print("# " + said.getvalue().strip())
    srv = Server("--db", db, *DEFAULT_LIMITS, *DEEP_ALLOWED)
    try:
        asan = under_asan(srv.proc.pid)
        deep = json.dumps({"type": "history", "offset": DEEP}).encode()
        # the reader's page cache for a deep read is the store's, not the attack's: fill it first
        c = srv.connect("warm")
        t0 = time.time()
        r, _ = c.request({"type": "history", "offset": DEEP}, timeout=60)
        print("# figure: a history %d games deep in a store of %d: %.2f s" % (
            DEEP, GAMES, time.time() - t0))
        t.ok(r["type"] == "history_page" and r["total"] > GAMES, "the deep history", r.get("total"))
        c.close()

        def register(i):
            return json.dumps({"type": "register", "protocol": 1, "name": "flood%d" % i,
                               "password": "a long enough secret"}).encode()

        run_attack(t, srv, asan, "deep history then %d pings of 64 KB" % PINGS,
                   [(deep, True)])
        run_attack(t, srv, asan, "register (a password hash) then %d pings of 64 KB" % PINGS,
                   [(register(0), False)])
        run_attack(t, srv, asan, "3 connections: deep history then pings",
                   [(deep, True)] * 3)
        run_attack(t, srv, asan, "32 connections from one address: history or register, pings",
                   [(deep, True) if i % 2 else (register(100 + i), False) for i in range(32)])
    finally:
        srv.stop()
    # requests read behind a held one are counted as they arrive: the deep read's half second
    # gives the rate no more room for them
    srv = Server("--db", db, "--max-rate-per-addr", "5", *DEEP_ALLOWED)
    try:
        c = srv.connect("counted")  # its hello takes 1 of the 10 the bucket holds
        lines = [{"type": "history", "offset": DEEP, "id": "h"}] + [
            {"type": "ping", "id": i} for i in range(1, 21)]
        t0 = time.time()
        c.send_raw(b"".join((json.dumps(m) + "\n").encode() for m in lines))
        got = [c.recv(timeout=30) for _ in lines]
        took = time.time() - t0
        kinds = [m["type"] if m["type"] != "error" else m["code"] for m in got]
        # past 10 refusals the flood's lines are refused unread: those errors have no id
        t.ok([m.get("id") for m in got[:19]] == [m["id"] for m in lines[:19]] and
             all("id" not in m for m in got[19:]) and
             kinds == ["history_page"] + ["pong"] * 8 + ["rate_limited"] * 12,
             "--max-rate-per-addr 5: 20 pings sent behind a history (%.2f s) are counted as they "
             "arrive: 8 pongs (10 less the hello and the history), 12 rate_limited, in order "
             "(the last 2, past 10 refusals, unread)" % took, (kinds, got[-3:]))
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    t = Tap()
    t.run("a password welcome stops the hello deadline", test_password_welcome_clears_deadline, t)
    t.run("requests behind a held connection come in order", test_order, t)
    t.run("the same over TLS", test_order_tls, t)
    t.run("the attacks on the queue behind a read or a hash", test_attacks, t)
    t.done()


if __name__ == "__main__":
    main()
