#!/usr/bin/env python3
"""hokitod: failed logins cost the guesser, not the owner, end to end over loopback.

The attacker works from 127.0.0.66 (and, for a spread attack, .67 and .68), the owner from
127.0.0.2, an address it registered from, and from 127.0.0.3, one it never used; each source
address is bound on the client's side. While the attacker guesses the owner's password as fast
as login_throttled lets it (waiting exactly its retry_ms, far more than 9 guesses a minute), the
owner logs in from both of its addresses, every time at once, and its live session changes the
password. Guesses from three addresses or more slow the account for the addresses it does not
know, and the log says so, but never for its known address. A live session's own wrong current
passwords are slowed per session, not another session's. During a storm of logins that fills
the password jobs, the owner's session still changes its password. The figures: the attacker's
guesses a minute, the owner's logins (done / tried) and their latency. Prints TAP.
"""
import os
import select
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap  # noqa: E402

PW = "correct horse battery"
ATTACKER = "127.0.0.66"
HOME = "127.0.0.2"      # the owner registered from here
ELSEWHERE = "127.0.0.3"  # the owner never used it before
ATTACK_S = 8.0


def hello(srv, name, pw, src):
    """A login from src: (reply, seconds)."""
    c = srv.connect(src=src)
    t0 = time.monotonic()
    r, _ = c.request({"type": "hello", "protocol": 1, "name": name, "password": pw},
                     timeout=30)
    dt = time.monotonic() - t0
    c.close()
    return r, dt


def register(srv, name, src):
    return srv.account(name, PW, src=src)


def guess(srv, name, src, seconds, out, ahead=None):
    """Guess name's password from src for seconds, each guess as soon as retry_ms allows;
    ahead is set at the first login_throttled (its free guesses spent)."""
    c = srv.connect(src=src)
    t0, n, throttled = time.monotonic(), 0, 0
    while time.monotonic() - t0 < seconds:
        r, _ = c.request({"type": "hello", "protocol": 1, "name": name,
                          "password": "guess number %d" % n}, timeout=30)
        if r.get("code") == "wrong_password":
            n += 1
        elif r.get("code") == "login_throttled":
            throttled += 1
            if ahead is not None:
                ahead.set()
            time.sleep(min(r["retry_ms"] / 1000.0, max(0.0, seconds - (time.monotonic() - t0))))
        else:
            out["unexpected"] = r
            break
    c.close()
    out.update(guesses=n, throttled=throttled, seconds=time.monotonic() - t0)


def test_one_attacker(t):
    srv = Server()
    try:
        live = register(srv, "Owen_o", HOME)
        att, ahead = {}, threading.Event()
        th = threading.Thread(target=guess, args=(srv, "owen_o", ATTACKER, ATTACK_S, att, ahead))
        th.start()
        ahead.wait(5)  # the owner starts once the attacker's free guesses are spent
        tries = {HOME: [], ELSEWHERE: []}
        t0 = time.monotonic()
        while time.monotonic() - t0 < ATTACK_S - 1.5:
            for src in (HOME, ELSEWHERE):
                r, dt = hello(srv, "owen_o", PW, src)
                tries[src].append((r.get("type") == "welcome", dt, r.get("code")))
            time.sleep(0.3)
        r, _ = live.request({"type": "password_change", "old": PW, "new": "a new password!"})
        changed = r
        th.join(ATTACK_S + 30)
        rate = att.get("guesses", 0) / att.get("seconds", 1) * 60
        t.ok(not att.get("unexpected") and att.get("guesses", 0) >= 5 and rate > 9,
             "the attacker guessed %d times in %.1f s (%.0f a minute), %d times told "
             "login_throttled" % (att.get("guesses", 0), att.get("seconds", 0), rate,
                                  att.get("throttled", 0)), att)
        for src, what in ((HOME, "its home address"), (ELSEWHERE, "an address it never used")):
            ok = sum(1 for x in tries[src] if x[0])
            lat = sorted(x[1] for x in tries[src])
            t.ok(ok == len(tries[src]) and ok >= 5,
                 "meanwhile the owner logged in from %s %d/%d times, p50 %.0f ms, max %.0f ms"
                 % (what, ok, len(tries[src]), lat[len(lat) // 2] * 1000, lat[-1] * 1000),
                 [x for x in tries[src] if not x[0]][:5])
        t.ok(changed.get("type") == "ok", "and its live session changed its password", changed)
        bye, _ = live.request({"type": "ping"})
        live.close()
        r, _ = hello(srv, "owen_o", "a new password!", HOME)
        t.ok(r.get("type") == "welcome", "the new password logs in from home at once", r)
        print("# figure: attacker %.0f guesses/min from %s; owner's logins %d/%d from home, %d/%d "
              "from a new address" % (rate, ATTACKER, sum(1 for x in tries[HOME] if x[0]),
                                      len(tries[HOME]),
                                      sum(1 for x in tries[ELSEWHERE] if x[0]),
                                      len(tries[ELSEWHERE])))
    finally:
        t.ok(srv.stop() == 0, "the server stops cleanly")


def test_spread(t):
    """Guesses from three addresses: the account's own bound slows its unknown addresses (and
    the log says so once), never its known one."""
    srv = Server()
    try:
        register(srv, "Pia_p", HOME).close()
        got = []
        for src in (ATTACKER, "127.0.0.67", "127.0.0.68"):
            c = srv.connect(src=src)
            codes = []
            for i in range(4):
                r, _ = c.request({"type": "hello", "protocol": 1, "name": "pia_p",
                                  "password": "wrong %d!!" % i}, timeout=30)
                codes.append(r.get("code"))
            c.close()
            got.append(codes)
        t.ok(got[0] == got[1] == ["wrong_password"] * 4 and got[2][0] == "wrong_password"
             and got[2][1:] == ["login_throttled"] * 3,
             "two addresses guess 4 times each; the third is slowed by the account's bound "
             "from its second guess", got)
        r, _ = hello(srv, "pia_p", PW, "127.0.0.4")
        t.ok(r.get("code") == "login_throttled" and r.get("retry_ms", 0) > 0,
             "after failures from 3 addresses, a login from a 4th one it never used: "
             "login_throttled", r)
        r, dt = hello(srv, "pia_p", PW, HOME)
        t.ok(r.get("type") == "welcome", "its home address logs in at once (%.0f ms)" %
             (dt * 1000), r)
        t.ok(srv.log_has(r"logins refused login_throttled lately by an account's own bound"),
             "the log says why")
    finally:
        t.ok(srv.stop() == 0, "the server stops cleanly")


def test_spread_off(t):
    """--login-spread 0: no account-wide bound; each address is still slowed on its own."""
    srv = Server("--login-spread", "0")
    try:
        register(srv, "Pio_p", HOME).close()
        for src in (ATTACKER, "127.0.0.67", "127.0.0.68"):
            c = srv.connect(src=src)
            for i in range(4):
                c.request({"type": "hello", "protocol": 1, "name": "pio_p",
                           "password": "wrong %d!!" % i}, timeout=30)
            r, _ = c.request({"type": "hello", "protocol": 1, "name": "pio_p",
                              "password": PW}, timeout=30)
            c.close()
        t.ok(r.get("code") == "login_throttled", "--login-spread 0: each guessing address is "
             "still slowed on its own", r)
        r, _ = hello(srv, "pio_p", PW, "127.0.0.4")
        t.ok(r.get("type") == "welcome", "... and a new address of the owner's is not", r)
    finally:
        t.ok(srv.stop() == 0, "the server stops cleanly")


def test_session_throttle(t):
    """A live session's own wrong current passwords are slowed per session; another session of
    the account changes the password at once; the logins are not slowed by them."""
    srv = Server()
    try:
        a = register(srv, "Quin_q", HOME)
        b = srv.connect(src=HOME)
        r, _ = b.request({"type": "hello", "protocol": 1, "name": "quin_q", "password": PW})
        assert r["type"] == "welcome", r
        codes = []
        for i in range(5):
            r, _ = a.request({"type": "password_change", "old": "wrong one %d" % i,
                              "new": "whatever 123"}, timeout=30)
            codes.append(r.get("code"))
        t.ok(codes[:4] == ["wrong_password"] * 4 and codes[4] == "login_throttled",
             "one session's wrong current passwords: 4 wrong_password, then login_throttled",
             codes)
        r, _ = b.request({"type": "password_change", "old": PW, "new": "the new one 42"},
                         timeout=30)
        t.ok(r.get("type") == "ok", "another session of the account changes it at once", r)
        bye, _ = a.recv_until("bye")
        t.ok(bye.get("reason") == "password_changed", "the first gets bye password_changed", bye)
        r, _ = hello(srv, "quin_q", "the new one 42", ELSEWHERE)
        t.ok(r.get("type") == "welcome", "a login from elsewhere is not slowed by them", r)
    finally:
        t.ok(srv.stop() == 0, "the server stops cleanly")


def test_storm(t):
    """48 logins at once fill the password jobs; the owner's session's password_change, sent
    right after, still goes through (places of its own), not login_throttled."""
    srv = Server()
    try:
        live = register(srv, "Rae_r", HOME)
        conns = [srv.connect(src="127.0.5.%d" % (i + 1)) for i in range(48)]
        for i, c in enumerate(conns):
            c.send({"type": "hello", "protocol": 1, "name": "ghost_%02d" % i, "password": PW})
        # the first login_throttled says the jobs are all out: the change goes in then
        codes, answered, full = {}, set(), False
        deadline = time.monotonic() + 30
        while not full and time.monotonic() < deadline:
            ready, _, _ = select.select([c.sock for c in conns if c not in answered], [], [],
                                        1.0)
            for c in conns:
                if c.sock in ready and c not in answered:
                    m = c.recv(timeout=10)
                    answered.add(c)
                    codes[m.get("code")] = codes.get(m.get("code"), 0) + 1
                    full = full or m.get("code") == "login_throttled"
        r, _ = live.request({"type": "password_change", "old": PW, "new": "stormy weather"},
                            timeout=60)
        t.ok(full and codes.get("wrong_password", 0) < 32,
             "the change was sent while the logins' password jobs were all out (%s)" % codes,
             codes)
        for c in conns:
            if c not in answered:
                m = c.recv(timeout=60)
                codes[m.get("code")] = codes.get(m.get("code"), 0) + 1
            c.close()
        t.ok(codes.get("login_throttled", 0) >= 1,
             "the storm filled the password jobs (%s)" % codes, codes)
        t.ok(r.get("type") == "ok", "the owner's password_change went through", r)
    finally:
        t.ok(srv.stop() == 0, "the server stops cleanly")


def main():
    t = Tap()
    t.run("one attacker: no exception", test_one_attacker, t)
    t.run("three attackers: no exception", test_spread, t)
    t.run("--login-spread 0: no exception", test_spread_off, t)
    t.run("a session's own wrong passwords: no exception", test_session_throttle, t)
    t.run("a storm of logins: no exception", test_storm, t)
    t.done()


if __name__ == "__main__":
    main()
