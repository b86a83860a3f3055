#!/usr/bin/env python3
"""test-server-web: hokitod's HTTP side (--listen-http): the protocol over WebSocket (GET /ws),
its limits and close codes, the Origin check, the plain HTTP answers, and /metrics.

- A HOKITO game between a TCP player and a /ws player, watched by a TCP and a /ws spectator: each
  frame a /ws client reads holds exactly the bytes of the line a TCP client reads (the same game
  events, byte for byte); a /ws player resumes its session with its token.
- Hostile /ws input closes only that connection, with the documented close code: a binary frame
  (1003), bad UTF-8 (1007), a message over --max-line (the too_long error, then 1009, also when it
  comes in fragments), no hello (hello_timeout, then 1000); a flood
  gets rate_limited as on TCP. The TCP side and the other /ws connections go on meanwhile.
- The TCP side's limits hold for /ws: --max-conns-per-addr and --max-clients count /ws
  connections with the TCP ones (too_many_clients, then 1000).
- Origin: a page of another site is refused the upgrade; the server's own origin and one named by
  --http-origin are taken; a client without Origin (not a browser) is taken.
- Plain HTTP: 404, 405 with Allow, HEAD, 426 for /ws without the upgrade, 429 with Retry-After past
  --max-http-rate-per-addr; every answer has the safety headers (CSP with frame-ancestors 'none',
  X-Content-Type-Options: nosniff).
- /metrics passes `promtool check metrics` and counts the /ws connections, the logins and
  password hashes by outcome and the game layer's refusals by limit; /healthz and /readyz.
- A real Prometheus (Debian prometheus) on a loopback port scrapes /metrics every second; its
  query API reads the games created, and a later value after one more game.
- The read API: /api/game/ID, /api/game/ID.json (the stored events, the bytes the protocol
  sent), /api/games (with ?player=), /api/user, /api/leaderboard, the stream.
- A stop: the /ws client reads its bye, then the close code 1001.
Everything runs on loopback addresses.
"""
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import HOKITOD, Server, Tap, movers, play_opening  # noqa: E402
from wslib import (OP_BINARY, OP_CONT, OP_TEXT, WS, Closed, Refused,  # noqa: E402
                   WSClient, http_get)

t = Tap()
HOST = "127.0.0.1"
CERTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "tls-certs.sh")


def web_server(*args):
    """A server with --listen-http on a port the OS picks; waits for that port."""
    srv = Server("--listen-http", HOST + ":0", *args)
    deadline = time.time() + 10
    while srv.http_port is None and time.time() < deadline:
        time.sleep(0.01)
    assert srv.http_port, "".join(srv.log)
    return srv


def ws(srv, name=None, **kw):
    c = WSClient(HOST, srv.http_port, **kw)
    if name is not None:
        c.hello(name)
    return c


def game_lines(client, game):
    """The game events client read, by seq: the raw bytes of each line (without its '\\n')."""
    out = {}
    for line in client.lines:
        m = json.loads(line)
        if m.get("game") == game and "seq" in m and m.get("type") not in (
                "ok", "error", "your_turn", "state"):
            out[m["seq"]] = bytes(line)
    return out


def test_game():
    srv = web_server()
    try:
        alice = srv.connect("alice")          # TCP
        bob = ws(srv, "bob")                   # /ws
        st, _ = alice.request({"type": "create", "kind": "hokito", "seat": "white",
                               "seed": 7})
        game = st["game"]
        r, _ = bob.request({"type": "join", "game": game})
        t.ok(r["type"] == "state" and r["you"] == "black",
             "a /ws player joins a TCP player's game", r)
        carol = srv.connect("carol")          # TCP spectator
        dave = ws(srv, "dave")                 # /ws spectator
        r1, _ = carol.request({"type": "watch", "game": game})
        r2, _ = dave.request({"type": "watch", "game": game})
        t.ok(r1["you"] == "spectator" and r2["you"] == "spectator", "both spectators watch",
             (r1, r2))
        mover, other = (bob, alice) if r["to_move"] == "black" else (alice, bob)
        moves = 0
        for _ in range(12):
            yt = mover.wait_for("your_turn")
            r, _ = mover.request({"type": "move", "move": yt["moves"][0]})
            if r.get("type") != "ok":
                break
            moves += 1
            mover, other = other, mover
        t.ok(moves == 12, "twelve moves played by turns, over TCP and /ws", moves)
        r, _ = bob.request({"type": "resign"})
        for c in (alice, carol, dave):
            c.wait_for("game_over")
        a, b = game_lines(alice, game), game_lines(bob, game)
        c, d = game_lines(carol, game), game_lines(dave, game)
        t.ok(len(c) >= 13 and c == d,
             "the /ws spectator read each game event as the very bytes of the TCP spectator's "
             "line (%d events)" % len(c), (sorted(set(c) ^ set(d)), list(c.items())[:2],
                                           list(d.items())[:2]))
        common = set(a) & set(b)
        t.ok(len(common) >= 13 and all(a[s] == b[s] for s in common),
             "the /ws player and the TCP player read the same bytes for the same events",
             [(s, a[s], b[s]) for s in common if a[s] != b[s]][:2])
        t.ok(all(not l.endswith(b"\n") for l in bob.lines),
             "a frame holds the line without its '\\n'")
        # resume over /ws with the token
        token = bob.token
        bob.close()
        alice.wait_for("presence")
        bob2 = WSClient(HOST, srv.http_port)
        w = bob2.hello("bob", token=token)
        t.ok(w["resumed"] is True and w["player"]["id"] == bob.player["id"],
             "a /ws player resumes its session with its token", w)
        bob2.close()
        for x in (alice, carol, dave):
            x.close()
    finally:
        t.ok(srv.stop() == 0, "game: hokitod stops cleanly")


def test_hostile():
    srv = web_server("--max-line", "1024", "--hello-timeout", "2",
                     "--max-rate-per-addr", "20")
    try:
        bystander = srv.connect("bystander")
        calm = ws(srv, "calm")

        c = ws(srv, "bin")
        c.send_frame(OP_BINARY, b"\x00\x01")
        code, _ = c.expect_close()
        t.ok(code == 1003, "a binary frame: closed with 1003", code)

        c = ws(srv, "utf8")
        c.send_frame(OP_TEXT, b'{"type":"chat","text":"\xff\xfe"}')
        code, _ = c.expect_close()
        t.ok(code == 1007, "a text frame of bad UTF-8: closed with 1007", code)

        c = ws(srv, "big")
        c.send_text("x" * 5000)
        code, seen = c.expect_close()
        t.ok(code == 1009 and seen and json.loads(seen[-1])["code"] == "line_too_long",
             "a message over --max-line: line_too_long, then 1009", (code, seen))

        c = ws(srv, "bigfrag")
        for _ in range(5):
            c.send_frame(OP_TEXT if _ == 0 else OP_CONT, b"y" * 400, fin=False)
        code, seen = c.expect_close()
        t.ok(code == 1009, "a message over --max-line in fragments: 1009", (code, seen))

        c = ws(srv)
        c.send_frame(OP_TEXT, b'{"type":"hello","proto', fin=False)
        c.send_frame(OP_CONT, b'col":1,"name":"frag"}')
        t.ok(c.recv()["type"] == "welcome", "a message in fragments is one message")
        c.close()

        c = WSClient(HOST, srv.http_port)
        code, seen = c.expect_close(timeout=6)
        t.ok(code == 1000 and seen and json.loads(seen[-1])["code"] == "hello_timeout",
             "no hello: hello_timeout, then 1000", (code, seen))

        c = ws(srv, "flood", src="127.0.0.2")  # another address: the rate is per address
        for i in range(200):
            c.send({"type": "list", "id": i})
        codes = []
        try:
            for _ in range(400):
                m = c.recv(2)
                if m.get("type") == "error":
                    codes.append(m["code"])
        except (TimeoutError, Closed):
            pass
        t.ok("rate_limited" in codes, "a flood over /ws gets rate_limited as on TCP",
             codes[:5])
        c.close()

        r, _ = bystander.request({"type": "list"})
        t.ok(r["type"] == "games", "the TCP client is still served", r)
        r, _ = calm.request({"type": "list"})
        t.ok(r["type"] == "games", "the other /ws client is still served", r)
        calm.close()
        bystander.close()
    finally:
        t.ok(srv.stop() == 0, "hostile: hokitod stops cleanly")


def test_limits():
    srv = web_server("--max-conns-per-addr", "2")
    try:
        a = srv.connect("tcp1")
        b = ws(srv, "ws1")
        c = WSClient(HOST, srv.http_port)
        code, seen = c.expect_close()
        t.ok(code == 1000 and seen and json.loads(seen[0])["code"] == "too_many_clients",
             "--max-conns-per-addr counts /ws with TCP: too_many_clients, then 1000",
             (code, seen))
        b.close()
        a.close()
    finally:
        t.ok(srv.stop() == 0, "limits: hokitod stops cleanly")
    srv = web_server("--max-clients", "1")
    try:
        a = ws(srv, "only")
        d = srv.connect()
        t.ok(d.expect("error")["code"] == "too_many_clients",
             "--max-clients counts /ws connections: a TCP client past it is refused")
        a.close()
        d.close()
    finally:
        srv.stop()


def upgrade_refused(srv, **kw):
    """Whether srv refuses the upgrade of WS(HOST, its HTTP port, **kw)."""
    try:
        WS(HOST, srv.http_port, **kw)
    except Refused:
        return True
    return False


def test_origin():
    srv = web_server("--http-origin", "https://play.example.org")
    try:
        own = "http://%s:%d" % (HOST, srv.http_port)
        t.ok(upgrade_refused(srv, origin="https://evil.example"),
             "a page of another site (Origin) is refused the upgrade")
        for origin in (own, "https://play.example.org", None):
            c = WSClient(HOST, srv.http_port, origin=origin)
            t.ok(c.hello("o")["type"] == "welcome", "Origin %s: taken" % origin)
            c.close()
        t.ok(upgrade_refused(srv, path="/other"),
             "an upgrade on another path than /ws is refused")
        t.ok(srv.log_has("Origin https://evil.example is not this server's"),
             "the refusal is logged")
    finally:
        srv.stop()


def test_http():
    srv = web_server("--max-http-rate-per-addr", "5")
    try:
        p = srv.http_port
        # connections that close before their first request (a browser's preconnects)
        for _ in range(3):
            socket.create_connection((HOST, p), timeout=5).close()
        half = socket.create_connection((HOST, p), timeout=5)
        half.sendall(b"GET /healthz HTTP/1.1\r\nHo")
        half.close()
        time.sleep(0.2)
        st, _, _ = http_get(HOST, p, "/healthz")
        t.ok(st == 200 and srv.proc.poll() is None,
             "connections closed before or during their first request: the server goes on")
        time.sleep(1.1)
        st, h, body = http_get(HOST, p, "/nothing-here")
        t.ok(st == 404, "an unknown path: 404", st)
        csp = h.get("content-security-policy", "")
        t.ok("frame-ancestors 'none'" in csp and "script-src 'self'" in csp and
             "unsafe-inline" not in csp and h.get("x-content-type-options") == "nosniff",
             "the safety headers are on every answer", h)
        st, h, body = http_get(HOST, p, "/healthz", method="POST", body=b"x=1")
        t.ok(st == 405 and h.get("allow") == "GET, HEAD", "POST: 405 with Allow", (st, h))
        time.sleep(1.1)
        st, h, body = http_get(HOST, p, "/healthz", method="HEAD")
        t.ok(st == 200 and body == b"" and h.get("content-length") == "3",
             "HEAD: the headers only", (st, h, body))
        st, h, body = http_get(HOST, p, "/ws")
        t.ok(st == 426, "/ws without the upgrade: 426", st)
        statuses = [http_get(HOST, p, "/healthz") for _ in range(15)]
        limited = [s for s in statuses if s[0] == 429]
        t.ok(limited and int(limited[0][1].get("retry-after", "0")) >= 1,
             "past --max-http-rate-per-addr: 429 with Retry-After",
             [s[0] for s in statuses])
        t.ok(srv.log_has("over --max-http-rate-per-addr"), "the 429s are logged")
    finally:
        t.ok(srv.stop() == 0, "plain HTTP: hokitod stops cleanly")


def test_metrics():
    srv = web_server()
    try:
        p = srv.http_port
        a = ws(srv, "m1")
        b = srv.connect("m2")
        g, _ = b.request({"type": "create", "kind": "oxono", "seat": "pink"})
        a.request({"type": "join", "game": g["game"]})
        yt = b.wait_for("your_turn")
        b.request({"type": "move", "move": yt["moves"][0]})
        a.wait_for("your_turn")
        st, h, body = http_get(HOST, p, "/metrics")
        t.ok(st == 200 and h.get("content-type", "").startswith("text/plain; version=0.0.4"),
             "/metrics: 200 in the Prometheus text format", (st, h))
        text = body.decode()
        t.ok('hokito_connections{transport="ws"} 1' in text and
             'hokito_connections{transport="tcp"} 1' in text,
             "/metrics counts the /ws and TCP connections", text[:600])
        t.ok("hokito_sessions_connected 2" in text, "/metrics counts the connected sessions")
        t.ok("hokito_moves_total 1\n" in text and 'hokito_games{kind="oxono",status="live"} 1'
             in text and "hokito_game_events_total 4\n" in text,
             "/metrics counts the moves, the events and the games by kind and status", text)
        sent = [l for l in text.splitlines() if l.startswith("hokito_lines_sent_total{")]
        t.ok(all(not l.endswith(" 0") for l in sent if "tcp" in l or "ws" in l),
             "/metrics counts the lines sent on TCP and /ws", sent)
        promtool = shutil.which("promtool")
        if promtool:
            r = subprocess.run([promtool, "check", "metrics"], input=body,
                               capture_output=True, timeout=30)
            t.ok(r.returncode == 0, "promtool check metrics: no problem",
                 r.stdout.decode() + r.stderr.decode())
        else:
            t.ok(False, "promtool check metrics (Debian prometheus is not installed)")
        st, _, body = http_get(HOST, p, "/healthz")
        t.ok(st == 200 and body == b"ok\n", "/healthz: ok", (st, body))
        st, _, body = http_get(HOST, p, "/readyz")
        t.ok(st == 200 and body == b"ready\n", "/readyz: ready", (st, body))
        b.close()
        # a stop: the /ws client reads its bye, then 1001
        srv.proc.send_signal(signal.SIGTERM)
        code, seen = a.expect_close()
        t.ok(code == 1001 and seen and json.loads(seen[-1])["type"] == "bye",
             "a stop: bye, then 1001", (code, seen))
        t.ok(srv.proc.wait(10) == 0, "a stop with a /ws client: hokitod exits 0")
    finally:
        srv.stop()


def metric_values(text):
    """The samples of a Prometheus text: {"name{labels}": value}."""
    out = {}
    for l in text.splitlines():
        if l and not l.startswith("#"):
            k, _, v = l.rpartition(" ")
            out[k] = float(v)
    return out


def test_metrics_counts():
    """/metrics counts the logins and hashes by outcome and the game layer's refusals by limit."""
    srv = web_server("--max-games-per-addr", "1")
    try:
        p = srv.http_port
        before = metric_values(http_get(HOST, p, "/metrics")[2].decode())
        c = srv.connect()
        r, _ = c.request({"type": "register", "name": "Metric", "password": "correct horse battery"})
        assert r["type"] == "welcome", r
        c.close()
        for pw, want in (("correct horse battery", "welcome"), ("wrong horse", "error")):
            c = srv.connect()
            r, _ = c.request({"type": "hello", "protocol": 1, "name": "metric", "password": pw})
            t.ok(r["type"] == want, "a login with %s: %s" % (pw, want), r)
            c.close()
        g1, g2 = srv.connect("g1"), srv.connect("g2")
        r1, _ = g1.request({"type": "create", "kind": "hokito", "seat": "black"})
        r2, _ = g2.request({"type": "create", "kind": "hokito", "seat": "black"})
        t.ok(r2.get("code") == "too_many_games", "the address's second game: too_many_games", r2)
        h, _ = g1.request({"type": "history", "offset": 5000})
        t.ok(h.get("code") == "bad_value", "history past --max-history-offset: bad_value", h)
        st, _, body = http_get(HOST, p, "/metrics")
        m = metric_values(body.decode())
        moved = {k: m[k] - before.get(k, 0) for k in m
                 if k.startswith(("hokito_logins_total", "hokito_password_hashes_total",
                                  "hokito_refusals_total")) and m[k] != before.get(k, 0)}
        t.ok(moved == {'hokito_logins_total{outcome="ok"}': 1,
                       'hokito_logins_total{outcome="wrong_password"}': 1,
                       'hokito_password_hashes_total{outcome="ok"}': 2,
                       'hokito_password_hashes_total{outcome="mismatch"}': 1,
                       'hokito_refusals_total{limit="max-games-per-addr"}': 1,
                       'hokito_refusals_total{limit="max-history-offset"}': 1},
             "/metrics: the logins and hashes by outcome, the refusals by limit, and no other",
             moved)
        t.ok(all(k in m for k in ('hokito_logins_total{outcome="throttled"}',
                                  'hokito_refusals_total{limit="max-rate-per-addr"}',
                                  "hokito_password_jobs_queued", "hokito_password_jobs",
                                  "hokito_store_reads_queued", "hokito_searches",
                                  "hokito_sessions")),
             "/metrics: the throttled logins, the game layer's limits, the queues, the sessions")
        t.ok(m["hokito_password_jobs"] == 0 and m["hokito_store_reads_queued"] == 0 and
             m["hokito_searches"] == 0, "/metrics: nothing queued once everything is answered",
             (m["hokito_password_jobs"], m["hokito_store_reads_queued"], m["hokito_searches"]))
        promtool = shutil.which("promtool")
        r = subprocess.run([promtool or "promtool", "check", "metrics"], input=body,
                           capture_output=True, timeout=30) if promtool else None
        t.ok(r is not None and r.returncode == 0, "promtool check metrics: no problem",
             r and r.stdout.decode() + r.stderr.decode())
        g1.close()
        g2.close()
    finally:
        t.ok(srv.stop() == 0, "metrics counts: hokitod stops cleanly")


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def test_prometheus():
    """A real Prometheus scrapes /metrics every second and answers a query of what moved."""
    prom = shutil.which("prometheus") or "/usr/bin/prometheus"
    if not os.path.exists(prom):
        t.ok(False, "prometheus (Debian prometheus is not installed)")
        return
    srv = web_server()
    tmp = tempfile.mkdtemp(prefix="hokito-prom-")
    proc = None
    try:
        a, b = srv.connect("p1"), srv.connect("p2")
        for _ in range(3):
            st, _ = a.request({"type": "create", "kind": "oxono", "seat": "pink"})
            a.request({"type": "leave"})
        port = free_port()
        with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                    "scrape_configs:\n  - job_name: hokitod\n    metrics_path: /metrics\n"
                    "    static_configs:\n      - targets: [\"%s:%d\"]\n"
                    % (HOST, srv.http_port))
        proc = subprocess.Popen(
            [prom, "--config.file", os.path.join(tmp, "prometheus.yml"),
             "--storage.tsdb.path", os.path.join(tmp, "data"),
             "--web.listen-address", "%s:%d" % (HOST, port), "--log.level", "warn"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "log"), "w"))

        def query(q):
            st, _, body = http_get(HOST, port, "/api/v1/query?query=" + q)
            if st != 200:
                return None
            res = json.loads(body)["data"]["result"]
            return float(res[0]["value"][1]) if res else None

        got, deadline = None, time.time() + 30
        while time.time() < deadline and proc.poll() is None:
            try:
                got = query("hokito_games_created_total")
            except OSError:
                got = None  # not listening yet
            if got is not None:
                break
            time.sleep(0.25)
        t.ok(got == 3, "Prometheus scraped /metrics: hokito_games_created_total is 3", got)
        up = query("up%7Bjob%3D%22hokitod%22%7D")
        t.ok(up == 1, "Prometheus: the hokitod target is up", up)
        b.request({"type": "create", "kind": "hokito", "seat": "black"})
        got, deadline = None, time.time() + 15
        while time.time() < deadline and got != 4:
            time.sleep(0.25)
            got = query("hokito_games_created_total")
        t.ok(got == 4, "a game later: Prometheus reads 4 at a later scrape", got)
        a.close()
        b.close()
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
        t.ok(srv.stop() == 0, "prometheus: hokitod stops cleanly")


def test_slow_reader():
    """A /ws spectator that never reads is dropped at --max-output; the game goes on."""
    srv = web_server("--max-output", "65536")
    try:
        a = srv.connect("p1")
        b = srv.connect("p2")
        st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 8})
        b.request({"type": "join", "game": st["game"]})
        lazy = ws(srv, "lazy")
        lazy.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        lazy.request({"type": "watch", "game": st["game"]})
        n = a.wait_for("spectators")
        assert n["spectators"]["count"] == 1
        frame = json.dumps({"type": "ping", "id": "q" * 8000})
        dropped = False
        deadline = time.time() + 30
        lazy.sock.settimeout(1)
        while time.time() < deadline and not dropped:
            try:
                for _ in range(16):
                    lazy.send_text(frame)
            except (BrokenPipeError, ConnectionResetError):
                dropped = True
            except socket.timeout:
                pass
            dropped = dropped or srv.log_has("over the cap", timeout=0)
        t.ok(dropped and srv.log_has("over the cap"),
             "a /ws client that never reads is dropped when its output passes --max-output")
        n = a.wait_for("spectators")
        t.ok(n["spectators"]["count"] == 0, "the players see the spectator gone", n)
        yt = a.wait_for("your_turn")
        ok, _ = a.request({"type": "move", "move": yt["moves"][0]})
        t.ok(ok["type"] == "ok", "the game is unaffected", ok)
        st, _, body = http_get(HOST, srv.http_port, "/metrics")
        t.ok('hokito_refusals_total{limit="max-output"} 1' in body.decode(),
             "/metrics counts the drop under max-output")
    finally:
        t.ok(srv.stop() == 0, "slow reader: hokitod stops cleanly")


def test_https():
    """--listen-https: wss:// and HTTPS with --tls-cert; SIGHUP reloads the certificate."""
    certs = tempfile.mkdtemp(prefix="hokito-web-tls-")
    subprocess.run(["bash", CERTS, "--make", certs], check=True, timeout=120,
                   capture_output=True)
    srv = Server("--listen-https", HOST + ":0", "--tls-cert", os.path.join(certs, "server.pem"),
                 "--tls-key", os.path.join(certs, "server.key"))
    try:
        deadline = time.time() + 10
        while srv.https_port is None and time.time() < deadline:
            time.sleep(0.01)
        ctx = ssl.create_default_context(cafile=os.path.join(certs, "ca.pem"))

        def tls_sock():
            raw = socket.create_connection((HOST, srv.https_port), timeout=10)
            return ctx.wrap_socket(raw, server_hostname="localhost")

        s = tls_sock()
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        t.ok(data.startswith(b"HTTP/1.1 200") and data.endswith(b"ok\n"),
             "HTTPS: /healthz answers over TLS, verified against the CA", data[:200])
        c = WSClient("localhost", srv.https_port, sock=tls_sock(),
                     origin="https://localhost:%d" % srv.https_port)
        w = c.hello("secure")
        t.ok(w["type"] == "welcome", "wss://: a hello over TLS gets welcome", w)
        c.close()
        srv.proc.send_signal(signal.SIGHUP)
        t.ok(srv.log_has("HTTPS certificate and key reloaded"), "SIGHUP reloads the HTTPS pair")
        c = WSClient("localhost", srv.https_port, sock=tls_sock())
        t.ok(c.hello("again")["type"] == "welcome", "wss:// still serves after the reload")
        c.close()
    finally:
        t.ok(srv.stop() == 0, "https: hokitod stops cleanly")
        shutil.rmtree(certs, ignore_errors=True)


def test_api():
    """The read API: /api/game/ID and /api/games against what the protocol reads of the store."""
    # the rated game below is between two accounts of 127.0.0.1: the operator allows it
    srv = web_server("--allow-shared-address")
    try:
        p = srv.http_port
        a = srv.connect("alice")
        b = srv.connect("bob")
        games = []
        for seed, private in ((3, False), (5, False), (9, True)):
            st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black",
                               "seed": seed, "private": private})
            if private:
                b.request({"type": "join", "code": st["code"]})
            else:
                b.request({"type": "join", "game": st["game"]})
            yt = a.wait_for("your_turn")
            a.request({"type": "move", "move": yt["moves"][0]})
            if not games:  # alice resumes from seq 0: the replay is every event, as sent
                r = srv.connect()
                r.send({"type": "hello", "protocol": 1, "token": a.token, "last_seq": 0})
                while 4 not in game_lines(r, st["game"]):
                    r.recv()
                a.close()
                a = r
            a.request({"type": "resign"})
            b.wait_for("game_over")
            a.request({"type": "leave"})
            b.request({"type": "leave"})
            games.append(st["game"])
        rec, _ = a.request({"type": "record", "game": games[0]})
        st, h, body = http_get(HOST, p, "/api/game/" + games[0])
        t.ok(st == 200 and body.decode() == rec["text"] and
             h.get("content-type", "").startswith("text/plain") and
             h.get("access-control-allow-origin") == "*",
             "/api/game/ID: the stored record, as the protocol's record reads it, with CORS",
             (st, h, body[:200]))
        st, _, _ = http_get(HOST, p, "/api/game/" + games[2])
        t.ok(st == 404, "/api/game/ID of a private game: 404", st)
        st, _, _ = http_get(HOST, p, "/api/game/g999")
        t.ok(st == 404, "/api/game/ID of no game: 404", st)
        # the stored events: each line byte for byte as the players read it
        sent = game_lines(b, games[0])
        sent.update(game_lines(a, games[0]))
        st, h, body = http_get(HOST, p, "/api/game/%s.json" % games[0])
        lines = body.split(b"\n")
        t.ok(st == 200 and h.get("content-type") == "application/json" and
             h.get("access-control-allow-origin") == "*" and lines[0] == b"[" and
             lines[-2:] == [b"]", b""], "/api/game/ID.json: a JSON array, one event a line",
             (st, h, body[:200]))
        events = [l[:-1] if l.endswith(b",") else l for l in lines[1:-2]]
        seqs = [json.loads(e)["seq"] for e in events]
        t.ok(seqs == list(range(1, len(events) + 1)) and
             [json.loads(e)["type"] for e in events][-1] == "game_over" and
             sorted(sent) == seqs and events == [sent[q] for q in seqs] and json.loads(body) ==
             [json.loads(e) for e in events],
             "/api/game/ID.json: every stored event, in order, the bytes the protocol sent",
             (events, sent))
        codes = [http_get(HOST, p, u)[0] for u in
                 ("/api/game/%s.json" % games[2], "/api/game/g999.json", "/api/game/.json",
                  "/api/game/%s.txt" % games[0], "/api/game/%s.json.json" % games[0])]
        t.ok(codes == [404] * 5, "/api/game/ID.json of a private game or of none: 404", codes)
        carol = srv.connect("carol")  # at none of the games: sees the public ones only
        hist, _ = carol.request({"type": "history", "limit": 2})
        carol.close()
        st, h, body = http_get(HOST, p, "/api/games?limit=2")
        page = json.loads(body)
        del hist["id"]
        t.ok(st == 200 and page == hist and h.get("content-type") == "application/json",
             "/api/games: the history page the protocol gives (public games only)",
             (page, hist))
        t.ok(page["total"] == 2 and len(page["games"]) == 2,
             "/api/games counts the public games", page.get("total"))
        if "next" in page:
            st, _, body = http_get(HOST, p, "/api/games?limit=2&after=" + page["next"])
            t.ok(st == 200 and json.loads(body)["games"] == [], "/api/games?after= pages on")
        # accounts: a rated game, then the profile and the leaderboard
        acc = []
        for n in ("Walt", "Zoe"):
            c = srv.connect()
            r, _ = c.request({"type": "register", "name": n, "password": "correct horse battery"})
            assert r["type"] == "welcome", r
            acc.append(c)
        st, _ = acc[0].request({"type": "create", "kind": "hokito", "seat": "black",
                                "rated": True})
        acc[1].request({"type": "join", "game": st["game"]})
        play_opening(*movers(st, acc[0], acc[1]), moves=2)  # rated once 4 plies are played
        acc[0].request({"type": "resign"})
        acc[1].wait_for("game_over")
        prof, _ = acc[1].request({"type": "profile", "name": "walt"})
        del prof["id"]
        st, h, body = http_get(HOST, p, "/api/user/walt")
        t.ok(st == 200 and json.loads(body) == prof and prof["recent"],
             "/api/user/NAME: the account's profile, as the protocol's profile", (body, prof))
        board, _ = acc[1].request({"type": "leaderboard", "kind": "hokito", "limit": 5})
        del board["id"]
        st, h, body = http_get(HOST, p, "/api/leaderboard/hokito?limit=5")
        t.ok(st == 200 and json.loads(body) == board,
             "/api/leaderboard/KIND: the leaderboard page, as the protocol's", (body, board))
        for who in ("walt", "WALT", "nobody"):
            mine, _ = acc[1].request({"type": "history", "player": who, "limit": 5})
            del mine["id"]
            st, h, body = http_get(HOST, p, "/api/games?limit=5&player=" + who)
            t.ok(st == 200 and json.loads(body) == mine,
                 "/api/games?player=%s: the page the protocol's history player gives" % who,
                 (body, mine))
        t.ok(len(mine["games"]) == 0 and
             len(json.loads(http_get(HOST, p, "/api/games?player=walt")[2])["games"]) == 1,
             "/api/games?player=: that account's games only (one), none for no account")
        codes = [http_get(HOST, p, u)[0] for u in
                 ("/api/user/nobody", "/api/leaderboard/chess", "/api/leaderboard/oxono?limit=0")]
        t.ok(codes == [404, 404, 400], "no such account or kind: 404; a bad limit: 400", codes)
        for c in acc:
            c.close()
        st1, _, _ = http_get(HOST, p, "/api/games?limit=0")
        st2, _, _ = http_get(HOST, p, "/api/games?offset=x")
        st4, _, body4 = http_get(HOST, p, "/api/games?offset=1001")  # --max-history-offset
        st5, _, _ = http_get(HOST, p, "/api/games?offset=1000")
        t.ok(st4 == 400 and b"1000" in body4 and st5 == 200,
             "/api/games: an offset past --max-history-offset (1000) gets 400, as history's",
             (st4, body4, st5))
        st3, _, _ = http_get(HOST, p, "/api/games?after=nonsense")
        t.ok((st1, st2, st3) == (400, 400, 400), "a bad limit, offset or after: 400",
             (st1, st2, st3))
        a.close()
        b.close()
    finally:
        t.ok(srv.stop() == 0, "api: hokitod stops cleanly")


def read_stream(host, port, path, into, done):
    """Read an ndjson answer to its end into into (raw lines); done is set at the end."""
    s = socket.create_connection((host, port), timeout=20)
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (path, host, port)).encode())
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except socket.timeout:
        into.append(b"TIMEOUT")
    head, _, body = data.partition(b"\r\n\r\n")
    into.append(head)
    into.extend(body.split(b"\n")[:-1])
    done.set()


def test_stream():
    """/api/stream/game/ID: the state then each event, ?since=, keep-alive, closed at the end."""
    import threading
    srv = web_server()
    try:
        p = srv.http_port
        a = srv.connect("alice")
        b = srv.connect("bob")
        st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 6})
        game = st["game"]
        b.request({"type": "join", "game": game})
        spy = srv.connect("spy")  # a TCP spectator: the lines to compare with
        spy.request({"type": "watch", "game": game})
        full, since, fd, sd = [], [], threading.Event(), threading.Event()
        threading.Thread(target=read_stream, args=(HOST, p, "/api/stream/game/" + game,
                                                   full, fd), daemon=True).start()
        threading.Thread(target=read_stream, args=(HOST, p, "/api/stream/game/%s?since=1"
                                                   % game, since, sd), daemon=True).start()
        time.sleep(0.5)
        st_, h, body = http_get(HOST, p, "/metrics")
        t.ok('hokito_connections{transport="http"} 2' in body.decode(),
             "/metrics counts the streams as connections of their own transport")
        yt = a.wait_for("your_turn")
        a.request({"type": "move", "move": yt["moves"][0]})
        time.sleep(6.5)  # a quiet game: the keep-alive newline
        yt = b.wait_for("your_turn")
        b.request({"type": "move", "move": yt["moves"][0]})
        a.request({"type": "resign"})
        spy.wait_for("game_over")
        t.ok(fd.wait(10) and sd.wait(10), "the streams end after game_over")
        head = full[0].decode()
        t.ok(head.startswith("HTTP/1.1 200") and "application/x-ndjson" in head and
             "access-control-allow-origin: *" in head.lower(), "ndjson, with CORS", head)
        lines = [l for l in full[1:] if l]
        first = json.loads(lines[0])
        t.ok(first["type"] == "state" and first["game"] == game and first["you"] == "spectator",
             "the stream begins with the game's state", lines[:1])
        events = {json.loads(l)["seq"]: l for l in spy.lines
                  if json.loads(l).get("type") in ("moved", "game_over")}
        t.ok([json.loads(l)["seq"] for l in lines[1:]] == sorted(events) and
             all(events[json.loads(l)["seq"]] == l for l in lines[1:]),
             "then each event as it comes: the very bytes a TCP spectator reads",
             (lines[1:], events))
        t.ok(b"" in full[1:], "a newline keeps a quiet stream alive")
        got = [json.loads(l) for l in since[1:] if l]
        t.ok([m["seq"] for m in got] == list(range(2, 2 + len(got))) and
             got[0]["type"] == "seated" and got[-1]["type"] == "game_over",
             "?since=1: the events from seq 2 on, then the live ones", [m["type"] for m in got])
        c1 = http_get(HOST, p, "/api/stream/game/g999")[0]
        priv, _ = a.request({"type": "create", "kind": "hokito", "private": True})
        c2 = http_get(HOST, p, "/api/stream/game/" + priv["game"])[0]
        c3 = http_get(HOST, p, "/api/stream/game/%s?since=x" % game)[0]
        t.ok((c1, c2, c3) == (404, 404, 400), "no such game or a private one: 404; a bad "
             "since: 400", (c1, c2, c3))
        st_, h, body = http_get(HOST, p, "/api/stream/game/" + game)
        t.ok(st_ == 200 and json.loads(body.split(b"\n")[0])["status"] == "finished",
             "a finished game the server holds: its state, then the end", body[:100])
        for c in (a, b, spy):
            c.close()
    finally:
        t.ok(srv.stop() == 0, "stream: hokitod stops cleanly")


def test_flags():
    for args, why in ((["--listen-http", "nowhere"], "a bad address"),
                      (["--listen-https", HOST + ":0"], "--listen-https without a certificate"),
                      (["--metrics-allow", "10.0.0.0/33", "--listen-http", HOST + ":0"],
                       "a bad --metrics-allow"),
                      (["--http-origin", "evil", "--listen-http", HOST + ":0"],
                       "a bad --http-origin"),
                      (["--http-origin", "http://a.example"], "--http-origin without HTTP")):
        r = subprocess.run([HOKITOD, "--db", ":memory:"] + args, capture_output=True,
                           text=True, timeout=10)
        t.ok(r.returncode == 2 and r.stderr.startswith("hokitod: "),
             "refused at the start: %s" % why, r.stderr)
    r = subprocess.run([HOKITOD, "--db", ":memory:", "--listen", HOST + ":0", "--listen-https",
                        HOST + ":0", "--tls-cert", "/dev/null", "--tls-key", "/dev/null"],
                       capture_output=True, text=True, timeout=10)
    t.ok(r.returncode == 1 and "cannot listen for HTTPS" in r.stderr,
         "a certificate that does not load: the start fails (exit 1), saying so", r.stderr)


t.run("a game over TCP and /ws", test_game)
t.run("hostile /ws input", test_hostile)
t.run("the TCP side's limits on /ws", test_limits)
t.run("the Origin check", test_origin)
t.run("plain HTTP", test_http)
t.run("metrics, health, readiness", test_metrics)
t.run("the metrics' counts", test_metrics_counts)
t.run("a real Prometheus scrapes", test_prometheus)
t.run("a /ws client that does not read", test_slow_reader)
t.run("HTTPS and wss://", test_https)
t.run("the read API", test_api)
t.run("the stream of a game", test_stream)
t.run("the flags", test_flags)
t.done()
