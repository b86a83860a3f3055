#!/usr/bin/env python3
"""hokitod over TLS: --listen-tls next to --listen, with certificates made by the openssl
command for this run (tests/unit/tls-certs.sh). Full games over TLS with players and a spectator;
`openssl s_client` gets a welcome; SIGHUP reloads the certificate while games run (nothing
dropped, new connections see the new one; a bad file is refused and the old one kept); garbage,
plain JSON and stalled handshakes on the TLS port close that connection only; the limits count
handshaking connections; SIGTERM stops it cleanly. Prints TAP.
"""
import hashlib
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import HOKITOD, Client, Server, Tap  # noqa: E402

CERTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "tls-certs.sh")
SEATS = {"hokito": ("black", "white"), "oxono": ("pink", "black")}
EVENTS = ("seated", "started", "moved", "game_over")


def make_certs():
    d = tempfile.mkdtemp(prefix="hokito-tls-")
    subprocess.run(["bash", CERTS, "--make", d], check=True, timeout=120)
    return d


def fingerprint(pem):
    """The SHA-256 of a PEM certificate's DER form."""
    with open(pem) as f:
        return hashlib.sha256(ssl.PEM_cert_to_DER_cert(f.read())).hexdigest()


class TLSClient(Client):
    """serverlib's Client over TLS, verified against the test CA (or not, with ca=None)."""

    def __init__(self, host, port, ca, name="localhost", alpn=True, rcvbuf=None):
        super().__init__(host, port, rcvbuf=rcvbuf)
        ctx = ssl.create_default_context(cafile=ca) if ca else ssl._create_unverified_context()
        if alpn:
            ctx.set_alpn_protocols(["hokito/1"])
        self.sock = ctx.wrap_socket(self.sock, server_hostname=name)
        self.sock.settimeout(10)

    def cert_sha256(self):
        return hashlib.sha256(self.sock.getpeercert(binary_form=True)).hexdigest()


class TLSServer(Server):
    """hokitod with a plain and a TLS listener; tconnect() connects over TLS."""

    def __init__(self, certs, *args, cert="server", **kw):
        self.certs = certs
        self.cert = os.path.join(certs, "live-cert.pem")
        self.key = os.path.join(certs, "live-key.pem")
        shutil.copy(os.path.join(certs, cert + ".pem"), self.cert)
        shutil.copy(os.path.join(certs, cert + ".key"), self.key)
        super().__init__("--listen-tls", "127.0.0.1:0", "--tls-cert", self.cert, "--tls-key",
                         self.key, *args, **kw)
        self.tls_port = self.ports[1]

    def tconnect(self, name=None, **kw):
        c = TLSClient("127.0.0.1", self.tls_port, os.path.join(self.certs, "ca.pem"), **kw)
        if name is not None:
            c.hello(name)
        return c

    def install(self, cert):
        """Put another certificate and key in place (as a renewal does) and send SIGHUP."""
        shutil.copy(os.path.join(self.certs, cert + ".pem"), self.cert)
        shutil.copy(os.path.join(self.certs, cert + ".key"), self.key)
        self.proc.send_signal(signal.SIGHUP)


def start_game(t, a, b, c, kind, seed):
    first, second = SEATS[kind]
    st, _ = a.request({"type": "create", "kind": kind, "seat": first, "seed": seed})
    g = st["game"]
    if c is not None:
        w, _ = c.request({"type": "watch", "game": g})
        assert w["you"] == "spectator", w
    js, _ = b.request({"type": "join", "game": g})
    assert js["status"] == "live", js
    return g, {first: a, second: b}, first


def play(players, turn, rng, moves_max=1000, pause=None):
    """Play random legal moves until game over; pause(n) is called after each move."""
    seats = list(players)
    played = []
    while True:
        mover = players[turn]
        yt, _ = mover.recv_until("your_turn")
        mv = rng.choice(yt["moves"])
        ok, got = mover.request({"type": "move", "move": mv})
        assert ok["type"] == "ok", ok
        played.append(mv)
        if any(m["type"] == "game_over" for m in got):
            return played
        turn = seats[1] if turn == seats[0] else seats[0]
        if pause:
            pause(len(played))
        assert len(played) < moves_max, "game does not end"


def full_game(t, srv, kind, seed):
    """Two players and a spectator over TLS: the spectator sees every event the players see."""
    a, b, c = (srv.tconnect("%s-%s" % (n, kind)) for n in ("alice", "bob", "carol"))
    t.ok(a.sock.version() in ("TLSv1.3", "TLSv1.2") and a.sock.selected_alpn_protocol()
         == "hokito/1", kind + ": TLS 1.3 or 1.2, ALPN hokito/1", a.sock.version())
    g, players, first = start_game(t, a, b, c, kind, seed)
    played = play(players, first, random.Random(seed))
    for cl in (a, b, c):
        if max(cl.events.get(g, {0: 0})) < 3 + len(played):
            cl.recv_until("game_over")
    nseq = max(a.events[g])
    t.ok(sorted(c.events[g]) == list(range(2, nseq + 1))
         and all(a.events[g][s] == c.events[g][s] for s in a.events[g]),
         kind + ": a full game over TLS (%d moves), the spectator saw every event byte for "
         "byte" % len(played))
    for cl in (a, b, c):
        cl.close()


def mixed(t, srv):
    """A player in clear and one over TLS in one game."""
    a = srv.connect("plain-one")
    b = srv.tconnect("tls-one")
    g, players, first = start_game(t, a, b, None, "oxono", 5)
    played = play(players, first, random.Random(5))
    t.ok(len(played) > 0, "a game between a plain and a TLS player ends (%d moves)" % len(played))
    a.close()
    b.close()


def s_client(t, srv):
    """openssl s_client, no ALPN, with the test CA: a hello through it gets welcome."""
    p = subprocess.Popen(["openssl", "s_client", "-connect", "127.0.0.1:%d" % srv.tls_port,
                          "-quiet", "-verify_return_error", "-CAfile",
                          os.path.join(srv.certs, "ca.pem")],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        p.stdin.write('{"type":"hello","protocol":1,"name":"sclient","id":1}\n')
        p.stdin.flush()
        line = p.stdout.readline()
    finally:
        p.kill()
        p.wait()
    t.ok('"type":"welcome"' in line, "openssl s_client: a hello gets welcome", line)
    # with a foreign ALPN only: refused
    r = subprocess.run(["openssl", "s_client", "-connect", "127.0.0.1:%d" % srv.tls_port,
                        "-alpn", "http/1.1", "-CAfile", os.path.join(srv.certs, "ca.pem")],
                       input="", capture_output=True, text=True, timeout=15)
    t.ok(r.returncode != 0 and srv.log_has(r"TLS handshake failed"),
         "openssl s_client offering only http/1.1: refused", r.stdout[-300:] + r.stderr[-300:])


def reload_under_load(t, srv):
    """SIGHUP while a game runs: the game goes on, new connections see server2's certificate;
    a bad certificate file is refused and server2's kept."""
    old_fp = fingerprint(os.path.join(srv.certs, "server.pem"))
    new_fp = fingerprint(os.path.join(srv.certs, "server2.pem"))
    a, b, c = (srv.tconnect(n) for n in ("rl-a", "rl-b", "rl-c"))
    t.ok(a.cert_sha256() == old_fp, "before SIGHUP: the first certificate")
    g, players, first = start_game(t, a, b, c, "hokito", 21)
    seen = {}

    def pause(n):
        if n == 6:
            srv.install("server2")
            assert srv.log_has("certificate and key reloaded"), "no reload logged"
            d = srv.tconnect("rl-new")
            seen["new"] = d.cert_sha256()
            d.close()
    played = play(players, first, random.Random(21), pause=pause)
    nseq = max(a.events[g])
    if max(c.events.get(g, {0: 0})) < nseq:
        c.recv_until("game_over")
    t.ok(seen.get("new") == new_fp and len(played) > 6
         and sorted(c.events[g]) == list(range(2, nseq + 1)),
         "SIGHUP during a game: nothing dropped (%d moves, spectator saw all), a new connection "
         "gets the new certificate" % len(played))
    with open(srv.cert, "w") as f:
        f.write("not a certificate\n")
    srv.proc.send_signal(signal.SIGHUP)
    t.ok(srv.log_has("TLS certificate not reloaded, the old one is kept"),
         "SIGHUP with a bad certificate file: refused with a log line")
    d = srv.tconnect("after-bad")
    t.ok(d.cert_sha256() == new_fp and srv.proc.poll() is None,
         "after the bad reload, new connections still get the good certificate")
    shutil.copy(os.path.join(srv.certs, "server.pem"), srv.cert)
    shutil.copy(os.path.join(srv.certs, "server2.key"), srv.key)
    srv.proc.send_signal(signal.SIGHUP)
    deadline = time.time() + 5
    while time.time() < deadline and sum("not reloaded" in l for l in srv.log) < 2:
        time.sleep(0.05)
    e = srv.tconnect("after-mismatch")
    t.ok(sum("not reloaded" in l for l in srv.log) == 2 and e.cert_sha256() == new_fp,
         "SIGHUP with a key that does not match the certificate: refused, the old pair kept",
         [l for l in srv.log if "not reloaded" in l])
    e.close()
    for cl in (a, b, c, d):
        cl.close()


def hostile(t, srv):
    """Garbage, plain JSON and a stalled handshake on the TLS port, while a TLS game runs."""
    a, b = srv.tconnect("h-a"), srv.tconnect("h-b")
    g, players, first = start_game(t, a, b, None, "oxono", 33)
    junk = []
    for data in (b'{"type":"hello","protocol":1,"name":"plain"}\n', os.urandom(3000),
                 b"\x16\x03\x01\x00\x05garbage"):
        s = socket.create_connection(("127.0.0.1", srv.tls_port))
        s.sendall(data)
        junk.append(s)
    stalled = socket.create_connection(("127.0.0.1", srv.tls_port))
    stalled.sendall(b"\x16\x03\x01\x02\x00\x01")  # a ClientHello's first bytes, then nothing
    closed = []
    for s in junk:
        s.settimeout(5)
        try:
            while s.recv(4096):
                pass
            closed.append(True)
        except (ConnectionResetError, socket.timeout):
            closed.append(not isinstance(sys.exc_info()[1], socket.timeout))
    t.ok(all(closed), "plain JSON, random bytes, a bad record on the TLS port: each closed",
         closed)
    played = play(players, first, random.Random(33))
    t.ok(len(played) > 0, "the TLS game went on to its end meanwhile (%d moves)" % len(played))
    stalled.settimeout(5)
    t0 = time.time()
    try:
        gone = stalled.recv(4096) == b""
    except ConnectionResetError:
        gone = True
    except socket.timeout:
        gone = False
    t.ok(gone and srv.log_has("no TLS handshake in time"),
         "a stalled handshake is closed at the hello deadline (%.1fs)" % (time.time() - t0))
    for s in junk + [stalled]:
        s.close()
    a.close()
    b.close()


def limits(t, certs):
    """--max-clients counts connections still in their handshake; the refused TLS client reads
    why once its handshake ends. An over-long line over TLS is refused as in clear."""
    srv = TLSServer(certs, "--max-clients", "3", "--max-line", "256")
    try:
        raw = [socket.create_connection(("127.0.0.1", srv.tls_port)) for _ in range(3)]
        time.sleep(0.2)
        c = srv.tconnect()
        e = c.recv()
        t.ok(e.get("type") == "error" and e.get("code") == "too_many_clients",
             "three handshaking connections fill --max-clients 3: a TLS client is told", e)
        c.close()
        for s in raw:
            s.close()
        time.sleep(0.3)
        d = srv.tconnect("longline")
        d.send_raw(b'{"type":"ping","pad":"' + b"x" * 400 + b'"}\n')
        e = d.recv()
        t.ok(e.get("code") == "line_too_long" and d.closed(),
             "a line over --max-line over TLS: error, then closed", e)
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def slow_reader(t, certs):
    """A TLS spectator that asks for a lot and never reads: dropped at --max-output, counted on
    what it has queued; the game goes on."""
    srv = TLSServer(certs, "--max-output", "65536")
    try:
        a, b = srv.tconnect("sr-a"), srv.tconnect("sr-b")
        g, players, first = start_game(t, a, b, None, "hokito", 8)
        lazy = srv.tconnect("lazy", rcvbuf=4096)
        lazy.request({"type": "watch", "game": g})
        a.wait_for("spectators")
        req = ('{"type":"ping","id":"' + "q" * 8000 + '"}\n').encode() * 16
        dropped = False
        deadline = time.time() + 30
        lazy.sock.settimeout(1)
        while time.time() < deadline and not dropped:
            try:
                lazy.sock.sendall(req)
            except socket.timeout:
                pass
            except OSError:
                dropped = True
            dropped = dropped or srv.log_has("over the cap", timeout=0)
        t.ok(dropped and srv.log_has("over the cap"),
             "a TLS client that never reads is dropped when its output passes the cap")
        played = play(players, first, random.Random(8))
        t.ok(len(played) > 0, "the game is unaffected (%d moves)" % len(played))
        a.close()
        b.close()
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def flags(t, certs):
    def run(*args):
        r = subprocess.run([HOKITOD, "--db", ":memory:"] + list(args), capture_output=True,
                           text=True, timeout=20)
        return r.returncode, r.stderr
    rc, err = run("--listen-tls", "127.0.0.1:0")
    t.ok(rc == 2 and "--listen-tls needs --tls-cert and --tls-key" in err,
         "--listen-tls without a certificate: refused", err)
    rc, err = run("--tls-cert", "x.pem")
    t.ok(rc == 2 and "go with --listen-tls" in err, "--tls-cert without --listen-tls: refused",
         err)
    rc, err = run("--listen-tls", "localhost:1", "--tls-cert", "a", "--tls-key", "b")
    t.ok(rc == 2 and "--listen-tls wants" in err, "--listen-tls wants a numeric address", err)
    rc, err = run("--listen-tls", "127.0.0.1:0", "--tls-cert",
                  os.path.join(certs, "server.pem"), "--tls-key",
                  os.path.join(certs, "other.key"))
    t.ok(rc == 1 and "cannot load the TLS certificate" in err,
         "a key that does not match the certificate: refused at start", err)
    out = subprocess.run([HOKITOD, "--help"], capture_output=True, text=True).stdout
    t.ok(all(f in out for f in ("--listen-tls", "--tls-cert", "--tls-key", "--tls-ca")),
         "--help names the TLS flags")


def tls_only(t, certs):
    """--listen-tls alone: no plain listener; the port file holds the TLS port."""
    tmp = tempfile.mkdtemp(prefix="hokitod-tls-")
    pf = os.path.join(tmp, "port")
    p = subprocess.Popen([HOKITOD, "--listen-tls", "127.0.0.1:0", "--tls-cert",
                          os.path.join(certs, "server.pem"), "--tls-key",
                          os.path.join(certs, "server.key"), "--db", ":memory:", "--port-file",
                          pf], stderr=subprocess.PIPE, text=True)
    try:
        line = p.stderr.readline()
        while "listening" not in line and line:
            line = p.stderr.readline()
        with open(pf) as f:
            ports = [int(x) for x in f.read().split()]
        c = TLSClient("127.0.0.1", ports[0], os.path.join(certs, "ca.pem"))
        r = c.hello("alone")
        t.ok(len(ports) == 1 and "listening for TLS on" in line and r["type"] == "welcome",
             "--listen-tls alone: only the TLS listener", (ports, line))
        c.close()
        p.send_signal(signal.SIGHUP)
        time.sleep(0.3)
        t.ok(p.poll() is None, "SIGHUP does not stop the server")
    finally:
        p.send_signal(signal.SIGTERM)
        t.ok(p.wait(10) == 0, "SIGTERM stops it: exit 0")


def sighup_plain(t):
    """Without TLS, SIGHUP has nothing to reload: it says so and the server goes on."""
    srv = Server()
    try:
        c = srv.connect("hup")
        srv.proc.send_signal(signal.SIGHUP)
        t.ok(srv.log_has("nothing to reload"), "SIGHUP without TLS: nothing to reload, logged")
        r, _ = c.request({"type": "ping"})
        t.ok(r["type"] == "pong" and srv.proc.poll() is None,
             "SIGHUP without TLS: the server goes on serving")
        c.close()
    finally:
        t.ok(srv.stop() == 0, "SIGTERM: exit 0")


def main():
    t = Tap()
    certs = make_certs()
    try:
        srv = TLSServer(certs, "--hello-timeout", "2")
        try:
            t.ok(len(srv.ports) == 2 and srv.log_has(r"listening for TLS on 127\.0\.0\.1:%d"
                                                     % srv.tls_port),
                 "--listen and --listen-tls: two ports in the port file, both logged", srv.ports)
            t.run("hokito full game over TLS", full_game, t, srv, "hokito", 11)
            t.run("oxono full game over TLS", full_game, t, srv, "oxono", 12)
            t.run("plain and TLS players", mixed, t, srv)
            t.run("openssl s_client", s_client, t, srv)
            t.run("hostile bytes on the TLS port", hostile, t, srv)
            t.run("reload under load", reload_under_load, t, srv)
            bye = srv.tconnect("bye")
        finally:
            status = srv.stop()
        m = bye.recv()
        t.ok(status == 0 and m.get("type") == "bye",
             "SIGTERM: a TLS client is told bye, hokitod exits 0", (status, m))
        t.run("limits over TLS", limits, t, certs)
        t.run("a slow reader over TLS", slow_reader, t, certs)
        t.run("flags", flags, t, certs)
        t.run("--listen-tls alone", tls_only, t, certs)
        t.run("SIGHUP without TLS", sighup_plain, t)
    finally:
        shutil.rmtree(certs, ignore_errors=True)
    t.done()


main()
