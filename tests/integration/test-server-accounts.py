#!/usr/bin/env python3
"""hokitod accounts, end to end over loopback: register, log in with hello and a
password, wrong passwords (also for names without an account: the same answer), growing delays
after failed logins (login_throttled with retry_ms), names unique without regard to case,
look-alike and computer-imitating guest names refused (name_taken), the reconnect token after a
login, accounts kept across a restart (kill -9), and replies in the order of the requests while
a password is hashed off the loop. Prints TAP.
"""
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Client, Server, Tap  # noqa: E402

PW = "correct horse battery"


def register(c, name, pw=PW):
    r, _ = c.request({"type": "register", "name": name, "password": pw})
    return r


def login(c, name, pw=PW, **extra):
    r, _ = c.request(dict({"type": "hello", "protocol": 1, "name": name, "password": pw},
                          **extra))
    return r


def test_register_login(srv):
    c = srv.connect()
    r = register(c, "Alice_99")
    assert r["type"] == "welcome", r
    assert r["player"]["name"] == "Alice_99", r
    c.close()
    d = srv.connect()
    r = login(d, "alice_99")  # the name without regard to case
    assert r["type"] == "welcome", r
    assert r["player"]["name"] == "Alice_99", r
    token = r["token"]
    d.close()
    e = srv.connect()
    r, _ = e.request({"type": "hello", "protocol": 1, "token": token})
    assert r["type"] == "welcome" and r["resumed"] is True, r
    e.close()


def test_register_after_hello(srv):
    c = srv.connect("guest1")
    r = register(c, "Bobby")
    assert r["type"] == "ok" and r["request"] == "register", r
    r = register(c, "Bobby2")
    assert r["type"] == "error" and r["code"] == "already_welcomed", r
    c.close()


def test_register_refusals(srv):
    c = srv.connect()
    for name in ("ab", "a" * 21, "bad name", "naïve"):
        r = register(c, name)
        assert r["type"] == "error" and r["code"] == "bad_value" and r["field"] == "name", \
            (name, r)
    r = register(c, "Carol", "short")
    assert r["type"] == "error" and r["code"] == "bad_value" and r["field"] == "password", r
    r = register(c, "ALICE_99")  # taken without regard to case
    assert r["type"] == "error" and r["code"] == "name_taken", r
    r = register(c, "A1ice_99")  # a look-alike of it
    assert r["type"] == "error" and r["code"] == "name_taken", r
    r = register(c, "Computer")
    assert r["type"] == "error" and r["code"] == "name_taken", r
    r, _ = c.request({"type": "list"})
    assert r["type"] == "error" and r["code"] == "hello_required", r
    c.close()


def test_guest_names(srv):
    for name in ("alice_99", "ALICE_99", "\u0430lice_99", "al\u200bice_99", "computer (level 8)",
                 "c0mputer"):
        c = srv.connect()
        r, _ = c.request({"type": "hello", "protocol": 1, "name": name})
        assert r["type"] == "error" and r["code"] == "name_taken", (name, r)
        c.close()
    c = srv.connect("alice")  # not an account's name, nor like one
    c.close()


def test_wrong_password(srv):
    c = srv.connect()
    r = login(c, "Alice_99", "not the password")
    assert r["type"] == "error" and r["code"] == "wrong_password", r
    r = login(c, "nobody_here", "not the password")
    assert r["type"] == "error" and r["code"] == "wrong_password", r
    r = login(c, "Alice_99")  # the connection may try again
    assert r["type"] == "welcome", r
    c.close()


def test_order_kept(srv):
    """A request sent right behind a login waits for it: its reply comes after the welcome."""
    c = srv.connect()
    c.send({"type": "hello", "protocol": 1, "name": "Bobby", "password": PW, "id": 1})
    c.send({"type": "ping", "id": 2})
    first, second = c.recv(), c.recv()
    assert first["type"] == "welcome" and first["id"] == 1, first
    assert second["type"] == "pong" and second["id"] == 2, second
    c.close()


def test_throttled():
    """Three free failures, then delays: login_throttled with retry_ms, even for the right
    password, until the delay has passed. On a server of its own: the failures of the address
    (127.0.0.1) in the other tests count too."""
    srv = Server()
    try:
        throttled(srv)
    finally:
        srv.stop()


def throttled(srv):
    c = srv.connect()
    assert register(c, "Dora_x")["type"] == "welcome"
    c.close()
    c = srv.connect()
    codes = [login(c, "Dora_x", "wrong password!")["code"] for _ in range(4)]
    assert codes == ["wrong_password"] * 4, codes
    r = login(c, "Dora_x")
    assert r["type"] == "error" and r["code"] == "login_throttled", r
    assert isinstance(r["retry_ms"], int) and 0 < r["retry_ms"] <= 1000, r
    time.sleep(r["retry_ms"] / 1000 + 0.1)
    r = login(c, "Dora_x")
    assert r["type"] == "welcome", r
    c.close()


def test_storm():
    """A storm of logins: 48 at once, each from an address of its own to a name of its own (so
    that no per-account or per-address delay answers). At most 32 password jobs are out: the
    others are refused at once, login_throttled with retry_ms 1000, and the log says so in one
    line; the rest are answered, and the loop answers a ping sent after them all before the
    hashes are done. On a server of its own (its log is read)."""
    srv = Server()
    try:
        storm(srv)
    finally:
        srv.stop()


def storm(srv):
    conns = [srv.connect(src="127.0.5.%d" % (i + 1)) for i in range(48)]
    p = srv.connect("pinger")
    for i, c in enumerate(conns):
        c.send({"type": "hello", "protocol": 1, "name": "ghost_%02d" % i, "password": PW})
    p.send({"type": "ping", "id": 7})
    r = p.recv()
    pong_at = time.monotonic()
    assert r["type"] == "pong", r
    codes, last_at = {}, 0.0
    for c in conns:
        r = c.recv(timeout=60)
        last_at = max(last_at, time.monotonic())
        assert r["type"] == "error", r
        codes[r["code"]] = codes.get(r["code"], 0) + 1
        if r["code"] == "login_throttled":
            assert r["retry_ms"] == 1000, r
        c.close()
    assert codes.get("login_throttled", 0) >= 1, codes
    assert codes.get("wrong_password", 0) >= 32, codes
    assert sum(codes.values()) == 48, codes
    assert pong_at < last_at, (pong_at, last_at)
    pat = r"password requests refused login_throttled lately: 32 password jobs out"
    assert srv.log_has(pat), srv.log
    assert sum(1 for l in srv.log if "refused login_throttled lately" in l) == 1, srv.log
    c = srv.connect(src="127.0.5.100")
    assert register(c, "After_storm")["type"] == "welcome"
    c.close()
    p.close()


def test_password_change_close():
    """password_change needs the old password; account_close needs the password, says ok, then
    bye; the closed account logs in no more (account_closed, for the right password only) and
    its name stays taken, also after kill -9. On a server of its own (the address's failures of
    the other tests would throttle it)."""
    srv = Server()
    try:
        change_close(srv)
    finally:
        srv.stop()


def change_close(srv):
    c = srv.connect("a guest")
    r, _ = c.request({"type": "password_change", "old": PW, "new": "another password"})
    assert r["type"] == "error" and r["code"] == "not_logged_in", r
    r, _ = c.request({"type": "account_close", "password": PW})
    assert r["type"] == "error" and r["code"] == "not_logged_in", r
    c.close()
    c = srv.connect()
    assert register(c, "Frank_c")["type"] == "welcome"
    r, _ = c.request({"type": "password_change", "old": "not it at all", "new": "new password"})
    assert r["type"] == "error" and r["code"] == "wrong_password", r
    r, _ = c.request({"type": "password_change", "old": PW, "new": "short"})
    assert r["type"] == "error" and r["code"] == "bad_value" and r["field"] == "new", r
    r, _ = c.request({"type": "password_change", "old": PW, "new": "new password"})
    assert r["type"] == "ok" and r["request"] == "password_change", r
    c.close()
    c = srv.connect()
    assert login(c, "Frank_c")["code"] == "wrong_password"
    assert login(c, "Frank_c", "new password")["type"] == "welcome"
    r, _ = c.request({"type": "account_close", "password": "not it at all"})
    assert r["type"] == "error" and r["code"] == "wrong_password", r
    r, _ = c.request({"type": "account_close", "password": "new password"})
    assert r["type"] == "ok" and r["request"] == "account_close", r
    bye = c.recv()
    assert bye["type"] == "bye" and bye["reason"] == "closed", bye
    assert c.closed()
    for restart in (0, 1):
        if restart:
            srv.kill()
            srv.__init__(db=srv.db)
        c = srv.connect()
        # the right password learns the account is closed; a wrong one learns nothing more
        assert login(c, "Frank_c", "new password")["code"] == "account_closed"
        assert login(c, "Frank_c", "not the password")["code"] == "wrong_password"
        assert register(c, "frank_C")["code"] == "name_taken"
        c.close()


def test_restart_keeps_accounts(srv):
    srv.kill()
    srv2 = Server(db=srv.db)
    try:
        c = srv2.connect()
        r = login(c, "Alice_99")
        assert r["type"] == "welcome", r
        c.close()
        c = srv2.connect()
        r, _ = c.request({"type": "hello", "protocol": 1, "name": "alice_99"})
        assert r["type"] == "error" and r["code"] == "name_taken", r
        assert register(c, "ALICE_99")["code"] == "name_taken"
        c.close()
    finally:
        srv2.stop()


def outside_address():
    """An address of this machine that is not a loopback one, or None."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            u.connect(("192.0.2.1", 9))  # no packet is sent: it picks the route's source
            ip = u.getsockname()[0]
    except OSError:
        return None
    return None if ip.startswith("127.") else ip


def test_insecure_transport(tap):
    """A password over plain TCP from a non-loopback address is refused, unless the operator
    allows it; a guest's hello is not concerned."""
    ip = outside_address()
    if ip is None:
        tap.ok(True, "insecure_transport # SKIP no address but loopback ones")
        return
    for flags, want in (((), "insecure_transport"), (("--allow-insecure-passwords",), None)):
        srv = Server(*flags, host="0.0.0.0")
        try:
            c = Client(ip, srv.port)
            r = register(c, "Erin_o")
            if want is None:
                tap.ok(r["type"] == "welcome", "with --allow-insecure-passwords: register "
                       "from %s" % ip, r)
            else:
                tap.ok(r["type"] == "error" and r["code"] == want,
                       "register from %s over plain TCP: insecure_transport" % ip, r)
                r = login(c, "Erin_o")
                tap.ok(r["type"] == "error" and r["code"] == want,
                       "hello with a password from %s: insecure_transport" % ip, r)
                r, _ = c.request({"type": "hello", "protocol": 1, "name": "erin"})
                tap.ok(r["type"] == "welcome", "a guest's hello from %s" % ip, r)
            c.close()
        finally:
            srv.stop()


def test_seated_account_restart():
    """A seated account's session is still the account's after kill -9 and a restart: its
    token resumes it, and account requests work (password_change)."""
    srv = Server()
    try:
        a = srv.connect()
        w = register(a, "Gina_s")
        assert w["type"] == "welcome", w
        st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 3})
        assert st["type"] == "state", st
        b = srv.connect("hal")
        js, _ = b.request({"type": "join", "game": st["game"]})
        assert js["type"] == "state" and js["status"] == "live", js
        srv.kill()
        srv.__init__(db=srv.db)
        c = srv.connect()
        r, _ = c.request({"type": "hello", "protocol": 1, "token": w["token"]})
        assert r["type"] == "welcome" and r["resumed"] is True, r
        r, _ = c.request({"type": "password_change", "old": PW, "new": "a new password"})
        assert r["type"] == "ok", r
    finally:
        srv.stop()


def test_password_over_tls(tap):
    """Over TLS (--listen-tls) a password is taken from any address: the connection says it is
    encrypted."""
    ip = outside_address()
    if ip is None:
        tap.ok(True, "password over TLS # SKIP no address but loopback ones")
        return
    certs = tempfile.mkdtemp(prefix="hokito-tls-")
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit",
                          "tls-certs.sh")
    subprocess.run(["bash", script, "--make", certs], check=True, timeout=120,
                   stdout=subprocess.DEVNULL)
    srv = Server("--listen-tls", "0.0.0.0:0", "--tls-cert", os.path.join(certs, "server.pem"),
                 "--tls-key", os.path.join(certs, "server.key"), host="0.0.0.0")
    try:
        c = Client(ip, srv.ports[1])
        ctx = ssl._create_unverified_context()
        ctx.set_alpn_protocols(["hokito/1"])
        c.sock = ctx.wrap_socket(c.sock, server_hostname="localhost")
        c.sock.settimeout(10)
        r = register(c, "Tess_t")
        tap.ok(r["type"] == "welcome", "register over TLS from %s" % ip, r)
        c.close()
    finally:
        srv.stop()


def main():
    tap = Tap()
    srv = Server()
    tap.run("register, then log in by name without regard to case; the token resumes",
            test_register_login, srv)
    tap.run("a guest registers after hello: ok; only once", test_register_after_hello, srv)
    tap.run("register refuses bad names and passwords, taken and look-alike names",
            test_register_refusals, srv)
    tap.run("guest names like an account's or the computer's are refused", test_guest_names, srv)
    tap.run("wrong password, and the same answer for a name without an account",
            test_wrong_password, srv)
    tap.run("requests behind a login wait for it", test_order_kept, srv)
    tap.run("failed logins are throttled, then allowed again", test_throttled)
    tap.run("a storm of logins: the jobs capped, the rest login_throttled, logged once",
            test_storm)
    tap.run("password_change and account_close", test_password_change_close)
    tap.run("accounts survive kill -9", test_restart_keeps_accounts, srv)
    tap.run("a seated account stays logged in across kill -9", test_seated_account_restart)
    test_insecure_transport(tap)
    test_password_over_tls(tap)
    tap.done()


if __name__ == "__main__":
    main()
