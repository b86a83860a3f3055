#!/usr/bin/env python3
"""What may grow without end is bounded, and names and passwords are checked, end to end over
loopback against the real hokitod: a game's chat (players' lines kept in memory and in the
store, spectators' lines relayed) stops at --max-chat-lines with chat_full, a finished game takes
--max-chat-after-end more lines from its players, and a restart keeps the count; one address
registers --max-accounts-per-addr accounts an hour and --max-accounts-per-addr-day a day, then
rate_limited with the wait (the figure: accounts made in 30 s from one address); accounts never
used in their first --unused-account-days days are released (their names free again) while those
with a game, closed ones and the newest stay; guests' names are trimmed and their look-alikes of
an account's name refused (name_taken); reserved names and their look-alikes are refused
(name_reserved) by register and hello, while an account of such a name made before still logs
in; weak passwords (common ones, ones like the name) are refused (weak_password) by register,
password_change and the operator's reset-password. Old accounts are made with SQL on a stopped
server's file. Prints TAP.
"""
import os
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import HOKITOD, TIMEOUT, Server, Tap  # noqa: E402

PW = "correct horse battery"
DAY_MS = 86400000


def rows(db, sql, *args):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def register(srv, name, pw=PW, src=None):
    """A new connection registering name: (the reply, the connection)."""
    c = srv.connect(src=src) if src else srv.connect()
    r, _ = c.request({"type": "register", "name": name, "password": pw})
    return r, c


def check(db):
    p = subprocess.run([HOKITOD, "--check", "--db", db], capture_output=True, text=True,
                       timeout=3 * TIMEOUT)
    return p.returncode, p.stdout + p.stderr


def live_game(srv, a_name, b_name):
    """a creates a HOKITO game, b joins: (a, b, game id), both seated, the game live."""
    a, b = srv.connect(a_name), srv.connect(b_name)
    st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 3})
    r, _ = b.request({"type": "join", "game": st["game"]})
    assert r["type"] == "state", r
    return a, b, st["game"]


def play_and_resign(a, b):
    """a (black) and b of a live game make one move each, then a resigns: a game that started
    is over."""
    for c in (a, b):
        yt = c.wait_for("your_turn")
        assert c.ask({"type": "move", "move": yt["moves"][0]})["type"] == "ok"
    assert a.ask({"type": "resign"})["type"] == "ok"
    for c in (a, b):
        c.wait_for("game_over")


def say(c, text):
    return c.ask({"type": "say", "text": text})


def chat_cap(t):
    srv = Server("--test-clock", "--max-chat-lines", "30", "--max-chat-after-end", "4",
                 "--max-kibitz", "0")
    try:
        a, b, gid = live_game(srv, "chat_a", "chat_b")
        said, refused = 0, None
        for i in range(40):  # both players, 5 lines each in 10 s: the clock moves on
            if i % 5 == 0:
                a.request({"type": "test_clock", "advance_ms": 10001})
            for c in (a, b):
                r = say(c, "line %d" % i)
                if r["type"] == "ok":
                    said += 1
                elif refused is None:
                    refused = r
        t.ok(said == 30 and refused is not None and refused["code"] == "chat_full",
             "the players' 31st line of a game gets chat_full", (said, refused))
        t.ok("30 lines" in refused.get("text", ""), "its text says how many", refused)
        stored = rows(srv.db, "SELECT COUNT(*) FROM events WHERE game_id = ? AND type = 'chat'",
                      gid)[0][0]
        t.ok(stored == 30, "the store keeps 30 chat lines of the game, not one more", stored)
        w = srv.connect("chat_w")
        st, _ = w.request({"type": "watch", "game": gid})
        seq = st["seq"]
        say(a, "still talking")
        st2, _ = srv.connect("chat_w2").request({"type": "watch", "game": gid})
        t.ok(st2["seq"] == seq, "the game's log in memory stops growing too",
             (seq, st2["seq"]))
        t.ok(srv.log_has(r"chat lines refused lately past --max-chat-lines 30"),
             "the refusals are logged", "".join(srv.log[-3:]))
        # spectators: their own 30 lines
        kib = 0
        for i in range(35):
            if i % 5 == 0:
                w.request({"type": "test_clock", "advance_ms": 10001})
            if say(w, "kibitz %d" % i)["type"] == "ok":
                kib += 1
        r = say(w, "one more")
        t.ok(kib == 30 and r["type"] == "error" and r["code"] == "chat_full",
             "spectators' lines stop at 30 as well", (kib, r))
        # a finished game takes --max-chat-after-end more lines from its players
        c, d, g2 = live_game(srv, "post_c", "post_d")
        play_and_resign(c, d)
        got = []
        for i in range(6):
            if i % 5 == 0:
                c.request({"type": "test_clock", "advance_ms": 10001})
            got.append(say(c if i % 2 else d, "gg %d" % i))
        codes = [r.get("code", r["type"]) for r in got]
        t.ok(codes == ["ok"] * 4 + ["chat_full"] * 2,
             "after game_over the players say 4 lines more, then chat_full", codes)
        t.ok("over" in got[4]["text"], "the text says the game is over", got[4])
        token = a.token
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    # a restart counts the stored lines again
    srv = Server("--test-clock", "--max-chat-lines", "30", db=srv.db)
    try:
        c2 = srv.connect()
        r, _ = c2.request({"type": "hello", "protocol": 1, "token": token})
        assert r["type"] == "welcome", r
        r = say(c2, "after the restart")
        t.ok(r["type"] == "error" and r["code"] == "chat_full",
             "after a restart the game's chat is still full", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def registrations(t):
    srv = Server("--max-accounts-per-addr", "10", "--max-accounts-per-addr-day", "30")
    try:
        made, last, t0, n = 0, None, time.time(), 0
        while time.time() - t0 < 30:  # the figure: accounts made in 30 s from one address
            r, c = register(srv, "spam%05d" % n)
            c.close()
            n += 1
            if r["type"] == "welcome":
                made += 1
            else:
                last = r
                time.sleep(0.05)
        print("# accounts made in 30 s from one address: %d (of %d tried)" % (made, n))
        t.ok(made == 10, "one address registers 10 accounts in 30 s, no more", made)
        t.ok(last is not None and last["code"] == "rate_limited" and "wait" in last["text"]
             and "minutes" in last["text"], "then rate_limited, saying how long to wait", last)
        r, _ = register(srv, "elsewhere1", src="127.0.0.2")
        t.ok(r["type"] == "welcome", "another address still registers", r)
        t.ok(srv.log_has(r"registrations refused lately past --max-accounts-per-addr 10"),
             "the refusals are logged", "".join(srv.log[-3:]))
        refused_lines = [l for l in srv.log if "registrations refused lately" in l]
        t.ok(1 <= len(refused_lines) <= 4, "at most one log line in 10 s",
             len(refused_lines))
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    srv = Server("--max-accounts-per-addr", "0", "--max-accounts-per-addr-day", "3")
    try:
        got = [register(srv, "daily%d" % i)[0] for i in range(5)]
        kinds = [r["type"] for r in got]
        t.ok(kinds == ["welcome"] * 3 + ["error"] * 2 and got[3]["code"] == "rate_limited"
             and "hours" in got[3]["text"],
             "--max-accounts-per-addr-day 3: the fourth waits for hours", got[3])
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def unused_accounts(t):
    srv = Server()
    try:
        for name in ("Idle_1", "Idle_2"):
            assert register(srv, name)[0]["type"] == "welcome"
        r, p = register(srv, "Played_1")
        r, q = register(srv, "Closer_1")
        assert q.ask({"type": "account_close", "password": PW})["type"] == "ok"
        st, _ = p.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 5})
        g = srv.connect("opp_guest")
        g.request({"type": "join", "game": st["game"]})
        play_and_resign(p, g)
        assert register(srv, "Last_1")[0]["type"] == "welcome"
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    con = sqlite3.connect(srv.db)
    con.execute("UPDATE accounts SET created_ms = created_ms - 31 * ?", (DAY_MS,))
    con.commit()
    con.close()
    srv = Server("--unused-account-days", "0", db=srv.db)
    try:
        time.sleep(2.5)
        n = rows(srv.db, "SELECT COUNT(*) FROM accounts")[0][0]
        t.ok(n == 5, "--unused-account-days 0 keeps every account", n)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    srv = Server(db=srv.db)  # the default: 30 days
    try:
        t.ok(srv.log_has(r"--unused-account-days 30: released 2 accounts never used"),
             "the default sweep releases the two accounts never used, and says so",
             "".join(srv.log[-3:]))
        # the log says it as the deletions go into the turn's commit: read once it is in
        deadline = time.time() + 5
        while True:
            left = sorted(r[0] for r in rows(srv.db, "SELECT name FROM accounts"))
            if left == ["Closer_1", "Last_1", "Played_1"] or time.time() > deadline:
                break
            time.sleep(0.05)
        t.ok(left == ["Closer_1", "Last_1", "Played_1"],
             "the account with a game, the closed one and the newest stay", left)
        c = srv.connect()
        r = c.request({"type": "hello", "protocol": 1, "name": "idle_1"})[0]
        t.ok(r["type"] == "welcome", "a guest may call itself by a released name", r)
        r, _ = register(srv, "Idle_1", pw="another fine secret")
        t.ok(r["type"] == "welcome", "and the name can be registered again", r)
        r = srv.connect().request({"type": "hello", "protocol": 1, "name": "played_1"})[0]
        t.ok(r["type"] == "error" and r["code"] == "name_taken",
             "a kept account's name stays taken", r)
        released = rows(srv.db, "SELECT n FROM counts WHERE name = 'released_accounts'")
        t.ok(released == [(2,)], "the store counts what it released", released)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    code, out = check(srv.db)
    t.ok(code == 0, "hokitod --check finds the store sound", out)


def hello(srv, name):
    return srv.connect().request({"type": "hello", "protocol": 1, "name": name})[0]


def guest_names(t):
    srv = Server()
    try:
        assert register(srv, "victim")[0]["type"] == "welcome"
        fakes = ["victim ", " victim", "victim\u00a0", "\uff56\uff49\uff43\uff54\uff49\uff4d",
                 "\u24e5\u24d8\u24d2\u24e3\u24d8\u24dc", "vi ctim", "victim.", "VICTIM",
                 "v\u200bictim", "vic_tim", "vict\u0131m"]
        got = {f: hello(srv, f) for f in fakes}
        bad = {f: r for f, r in got.items() if r.get("code") != "name_taken"}
        t.ok(not bad, "every look-alike of the account victim gets name_taken", bad)
        r = hello(srv, "  alice\u3000")
        t.ok(r["type"] == "welcome" and r["player"]["name"] == "alice",
             "a guest's name is trimmed", r)
        r = hello(srv, "victor")
        t.ok(r["type"] == "welcome", "a name that is only close stays a guest's", r)
        r, _ = register(srv, "vic_tim")
        t.ok(r["type"] == "error" and r["code"] == "name_taken",
             "registering vic_tim beside victim: name_taken", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def reserved_names(t):
    srv = Server()
    try:
        for name in ("admin", "Administrator", "ROOT", "moderator", "mod", "hokitod", "Adm1n",
                     "r00t", "staff", "support"):
            r, _ = register(srv, name)
            if r.get("code") != "name_reserved":
                t.ok(False, "register %s: name_reserved" % name, r)
                break
        else:
            t.ok(True, "register admin, Administrator, ROOT, moderator, mod, hokitod, Adm1n, "
                 "r00t, staff, support: name_reserved")
        t.ok("reserved" in r.get("text", ""), "the text says why", r)
        guests = ["Admin", "ADM1N", "\u24e2\u24d4\u24e1\u24e5\u24d4\u24e1", " root ",
                  "Moderator", "System", "\uff53\uff54\uff41\uff46\uff46"]
        got = {g: hello(srv, g) for g in guests}
        bad = {g: r for g, r in got.items() if r.get("code") != "name_reserved"}
        t.ok(not bad, "guests named like them: name_reserved", bad)
        r = hello(srv, "admiral")
        t.ok(r["type"] == "welcome", "admiral is a name like any", r)
        ok, _ = register(srv, "Keeper_9")
        assert ok["type"] == "welcome", ok
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    # an account named so before the rule: made with SQL, it keeps logging in
    con = sqlite3.connect(srv.db)
    con.execute("INSERT INTO accounts (id, name, name_key, skeleton, pw_hash, kind, created_ms) "
                "SELECT 99, 'Admin', 'admin', 'adrnin', pw_hash, 'account', created_ms "
                "FROM accounts WHERE name = 'Keeper_9'")
    con.commit()
    con.close()
    srv = Server(db=srv.db)
    try:
        r = srv.connect().request({"type": "hello", "protocol": 1, "name": "Admin",
                                   "password": PW})[0]
        t.ok(r["type"] == "welcome" and r["player"]["name"] == "Admin",
             "an account named Admin made before logs in", r)
        r = hello(srv, "admin")
        t.ok(r["type"] == "error" and r["code"] in ("name_taken", "name_reserved"),
             "and guests still cannot take its name", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def weak_passwords(t):
    srv = Server()
    try:
        for pw in ("password", "12345678", "Password1", "iloveyou", "qwertyuiop"):
            r, _ = register(srv, "Strong_1", pw=pw)
            if r.get("code") != "weak_password":
                break
        t.ok(r.get("code") == "weak_password" and "common" in r["text"],
             "register with password, 12345678, Password1, iloveyou, qwertyuiop: "
             "weak_password", r)
        for pw in ("Strong_1", "strong_1!!", "1_gnortS", "my strong_1 pw"):
            r, _ = register(srv, "Strong_1", pw=pw)
            if r.get("code") != "weak_password":
                break
        t.ok(r.get("code") == "weak_password" and "name" in r["text"],
             "a password that holds the name, or the name backwards: weak_password", r)
        r, c = register(srv, "Strong_1")
        t.ok(r["type"] == "welcome", "a good password registers", r)
        r = c.ask({"type": "password_change", "old": PW, "new": "letmein1"})
        t.ok(r["type"] == "error" and r["code"] == "weak_password",
             "password_change to a common one: weak_password", r)
        r = c.ask({"type": "password_change", "old": PW, "new": "STRONG_1_2024"})
        t.ok(r["type"] == "error" and r["code"] == "weak_password",
             "password_change to one holding the name: weak_password", r)
        r = c.ask({"type": "password_change", "old": PW, "new": "a better secret here"})
        t.ok(r["type"] == "ok", "password_change to a good one", r)
        p = subprocess.run([HOKITOD, "accounts", "--db", srv.db, "reset-password", "Strong_1"],
                           input="password1\n", capture_output=True, text=True,
                           timeout=3 * TIMEOUT)
        t.ok(p.returncode != 0 and "weak_password" in p.stdout + p.stderr,
             "the operator's reset-password refuses a common one", p.stdout + p.stderr)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def main():
    t = Tap()
    t.run("chat per game capped", chat_cap, t)
    t.run("accounts per address", registrations, t)
    t.run("unused accounts released", unused_accounts, t)
    t.run("guest names", guest_names, t)
    t.run("reserved names", reserved_names, t)
    t.run("weak passwords", weak_passwords, t)
    t.done()


if __name__ == "__main__":
    main()
