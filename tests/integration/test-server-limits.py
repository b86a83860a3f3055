#!/usr/bin/env python3
"""test-server-limits: hokitod and the limits of the machine it runs on, and its own.

- An open-file limit too small for --max-clients: hokitod lowers --max-clients to what fits and
  says so in its log; a client past the lowered cap is refused with the coded error
  too_many_clients, like any client past the cap, instead of being closed without a word.
- A soft limit below what --max-clients needs, with room under the hard limit: raised, no warning.
- A limit that leaves no room at all: hokitod refuses to start, with a line saying what to raise.
- A new store on a full disk: the start fails, and the empty store file it made is removed, so
  that the service starts by itself once room is made (root only: it mounts a small tmpfs).
- The limits against abuse, each with its coded error and its log line: connections, requests,
  creates, games and failed lookups per source address (other addresses are not touched);
  draw offers (one per side until the opponent has moved twice) and rematch offers per game;
  the idle timeout of a connection at no game; TCP keepalive; the cap on sessions, and per address
  the cap on sessions kept (the oldest away guest goes, never a connected or seated one) and on new
  sessions a minute; the bound on
  the computer's searches; a resume whose replay would not fit --max-output gets a state.
Everything runs on loopback addresses (127.0.0.1, and 127.0.0.2 as another address).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import socket
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serverlib  # noqa: E402
from serverlib import HOKITOD, Server, Tap  # noqa: E402

t = Tap()


def test_lowered_cap():
    srv = Server("--max-clients", "1024", nofile=(100, 100))
    try:
        t.ok(srv.log_has(r"--max-clients 1024 lowered to 68: the open-file limit is 100"),
             "the log says --max-clients was lowered to fit the open-file limit",
             "".join(srv.log))
        clients = [srv.connect("p%d" % i) for i in range(68)]
        t.ok(all(c.player for c in clients), "68 clients are welcome")
        extra = srv.connect()
        m = extra.recv()
        t.ok(m.get("type") == "error" and m.get("code") == "too_many_clients",
             "the 69th gets error too_many_clients", m)
        t.ok(extra.closed(), "and is closed")
        clients[0].close()
        again = None
        for _ in range(50):  # the slot comes back once the server has seen the close
            c = srv.connect()
            c.send({"type": "hello", "protocol": 1, "name": "late"})
            m = c.recv()
            if m.get("type") == "welcome":
                again = c
                break
            c.close()
        t.ok(again is not None, "a client is welcome again once one has left")
    finally:
        srv.stop()


def test_raised_soft_limit():
    hard = serverlib.resource.getrlimit(serverlib.resource.RLIMIT_NOFILE)[1]
    if hard != serverlib.resource.RLIM_INFINITY and hard < 1100:
        t.ok(True, "soft limit raised toward the hard one # SKIP hard limit %d" % hard)
        return
    srv = Server("--max-clients", "1024", nofile=(100, hard))
    try:
        t.ok(not srv.log_has(r"lowered", timeout=0.3),
             "a soft limit that can be raised is raised, with no warning", "".join(srv.log))
        clients = [srv.connect("p%d" % i) for i in range(120)]
        t.ok(all(c.player for c in clients), "120 clients (past the old soft limit) are welcome")
    finally:
        srv.stop()


def test_no_room():
    r = subprocess.run([HOKITOD, "--listen", "127.0.0.1:0", "--db", ":memory:"],
                       capture_output=True, text=True, timeout=20,
                       preexec_fn=lambda: serverlib.resource.setrlimit(
                           serverlib.resource.RLIMIT_NOFILE, (20, 20)))
    t.ok(r.returncode == 1, "an open-file limit of 20 stops the start (exit 1)", r)
    t.ok("leaves no room for clients; raise it" in r.stderr,
         "with a line that says what to raise", r.stderr)


def test_full_disk_start():
    if os.geteuid() != 0:
        t.ok(True, "a failed start on a full disk leaves no store # SKIP not root")
        return
    mnt = tempfile.mkdtemp(prefix="hokito-full-")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt],
                       capture_output=True, text=True)
    if r.returncode != 0:
        os.rmdir(mnt)
        t.ok(True, "a failed start on a full disk leaves no store # SKIP cannot mount: %s"
             % r.stderr.strip())
        return
    try:
        filler = os.path.join(mnt, "filler")
        try:
            with open(filler, "wb") as f:
                while True:
                    f.write(b"\0" * 4096)
                    f.flush()
        except OSError:
            pass  # the disk is full
        db = os.path.join(mnt, "hokito.db")
        r = subprocess.run([HOKITOD, "--listen", "127.0.0.1:0", "--db", db],
                           capture_output=True, text=True, timeout=20)
        t.ok(r.returncode == 1 and "cannot open the store" in r.stderr,
             "a new store on a full disk: the start fails, saying why", r)
        t.ok(not os.path.exists(db), "and leaves no store file behind", os.listdir(mnt))
        os.remove(filler)
        srv = Server(db=db)
        t.ok(srv.port is not None, "once room is made, hokitod starts on that path")
        srv.stop()
    finally:
        subprocess.run(["umount", mnt], capture_output=True)
        os.rmdir(mnt)


OTHER = "127.0.0.2"  # another source address (the whole of 127.0.0.0/8 is loopback)


def is_error(m, code):
    return m.get("type") == "error" and m.get("code") == code


def test_conns_per_addr():
    srv = Server("--max-conns-per-addr", "3")
    try:
        clients = [srv.connect("c%d" % i) for i in range(3)]
        extra = srv.connect()
        m = extra.recv()
        t.ok(is_error(m, "too_many_clients") and "your address" in m.get("text", ""),
             "a 4th connection from one address gets too_many_clients", m)
        t.ok(extra.closed(), "and is closed")
        t.ok(srv.log_has(r"connection 127\.0\.0\.1:\d+ refused: 3 connections from 127\.0\.0\.1"),
             "with a log line naming the address", "".join(srv.log[-5:]))
        other = srv.connect("elsewhere", src=OTHER)
        t.ok(other.player is not None, "another address is welcome meanwhile")
        clients[0].close()
        again = None
        for _ in range(50):  # the place comes back once the server has seen the close
            c = srv.connect()
            c.send({"type": "hello", "protocol": 1, "name": "late"})
            m = c.recv()
            if m.get("type") == "welcome":
                again = c
                break
            c.close()
            time.sleep(0.02)
        t.ok(again is not None, "a connection from that address is welcome again once one left")
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def test_rate_per_addr():
    srv = Server("--max-rate-per-addr", "5")
    try:
        c = srv.connect("fast")
        c.send_raw(b"".join(b'{"type":"ping","id":%d}\n' % i for i in range(40)))
        got = [c.recv() for _ in range(40)]
        limited = [m for m in got if is_error(m, "rate_limited")]
        pongs = [m for m in got if m.get("type") == "pong"]
        t.ok(len(pongs) <= 11 and len(limited) >= 29,
             "40 pings at once with 5 a second allowed: a burst of about 10 answered, the rest "
             "rate_limited", (len(pongs), len(limited)))
        t.ok(limited and "wait" in limited[0]["text"] and limited[0].get("id") is not None
             and limited[0].get("request") == "ping",
             "rate_limited says how long to wait, for the request", limited[:1])
        other = srv.connect("calm", src=OTHER)
        r = other.ask({"type": "ping"})
        t.ok(r.get("type") == "pong", "another address is served meanwhile", r)
        time.sleep(0.5)
        r = c.ask({"type": "ping"})
        t.ok(r.get("type") == "pong", "after a wait the address is served again", r)
        f = srv.connect("flood")
        f.send_raw(b"".join(b'{"type":"ping","id":%d}\n' % i for i in range(200)))
        got = []
        try:
            while True:
                got.append(f.recv())
        except Exception:
            pass
        last = got[-1] if got else {}
        t.ok(len(got) < 80 and is_error(last, "rate_limited") and "closing" in last["text"]
             and f.closed(), "a connection that floods on regardless is closed after 50 "
             "refusals in a row, its last error saying so", (len(got), last))
        # a flood that lets the allowance's refill through now and then: each burst has one
        # ping answered, the rest refused; its refusals add up all the same (50 in 10 s), and
        # past 10 of them its lines over the rate are refused unread (no id in the error)
        time.sleep(1.0)
        d = srv.connect("drip")
        got, t0, closed = [], time.time(), False
        while not closed and time.time() - t0 < 8:
            try:
                d.send_raw(b"".join(b'{"type":"ping","id":%d}\n' % i for i in range(12)))
            except OSError:
                closed = True
            end = time.time() + 0.25
            while not closed and time.time() < end:
                try:
                    got.append(d.recv(max(0.01, end - time.time())))
                except (TimeoutError, socket.timeout):
                    break
                except (serverlib.Closed, OSError):
                    closed = True
        dt = time.time() - t0
        pongs = [m for m in got if m.get("type") == "pong"]
        unread = [m for m in got if is_error(m, "rate_limited") and "id" not in m]
        t.ok(closed and dt < 6 and pongs and unread and "closing" in got[-1].get("text", ""),
             "a flood that lets the refill through is closed all the same, within %.1f s "
             "(%d pongs on the way); its lines past 10 refusals are refused unread, without "
             "an id" % (dt, len(pongs)), (len(got), got[-3:]))
        t.ok(srv.log_has(r"requests refused by the per-address limits lately, the last from "
                         r"127\.0\.0\.1", 5),
             "a log line (at most one a second) counts the refusals", "".join(srv.log[-5:]))
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def test_creates_per_addr():
    srv = Server("--max-creates-per-addr", "3")
    try:
        c = srv.connect("maker")
        for i in range(3):
            st = c.ask({"type": "create", "kind": "hokito"})
            c.ask({"type": "leave"})
        t.ok(st.get("type") == "state", "3 creates in a minute are served", st)
        r = c.ask({"type": "create", "kind": "hokito"})
        t.ok(is_error(r, "rate_limited") and "a minute" in r["text"] and "wait" in r["text"],
             "a 4th create within the minute: rate_limited, saying how long to wait", r)
        r = c.ask({"type": "quick", "kind": "hokito"})
        t.ok(is_error(r, "rate_limited"), "and so is a quick that would open a game", r)
        o = srv.connect("other", src=OTHER)
        r = o.ask({"type": "create", "kind": "hokito"})
        t.ok(r.get("type") == "state", "another address creates meanwhile", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def test_games_per_addr():
    srv = Server("--max-games-per-addr", "2")
    try:
        a, b, c = srv.connect("a"), srv.connect("b"), srv.connect("c")
        ga = a.ask({"type": "create", "kind": "hokito"})
        b.ask({"type": "create", "kind": "oxono", "private": True})
        r = c.ask({"type": "create", "kind": "hokito"})
        t.ok(is_error(r, "too_many_games") and "2 games" in r["text"],
             "a 3rd game not over from one address: too_many_games", r)
        j = srv.connect("joiner", src=OTHER)
        r = j.ask({"type": "join", "game": ga["game"]})
        t.ok(r.get("type") == "state", "a game of that address can still be joined", r)
        r = c.ask({"type": "create", "kind": "hokito"})
        t.ok(is_error(r, "too_many_games"), "a live game still counts for its creator", r)
        b.ask({"type": "leave"})  # its open game is aborted: over
        r = c.ask({"type": "create", "kind": "hokito"})
        t.ok(r.get("type") == "state", "once one game is over, a new one may be created", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def test_lookups_per_addr():
    srv = Server("--max-lookup-failures", "2")
    try:
        host = srv.connect("host", src=OTHER)
        st = host.ask({"type": "create", "kind": "hokito", "private": True})
        code = st["code"]
        t.ok(len(code) == 16 and all(ch in "ABCDEFGHJKLMNPQRSTUVWXYZ23456789" for ch in code),
             "an invite code has 16 characters of the 32 (80 bits)", code)
        g = srv.connect("guesser")
        got = [g.ask({"type": "watch", "code": "AAAAAAAAAAAAAAA%d" % (i + 2)})
               for i in range(3)]
        t.ok(is_error(got[0], "no_such_game") and is_error(got[1], "no_such_game"),
             "2 failed lookups of codes: no_such_game", got[:2])
        t.ok(is_error(got[2], "rate_limited") and "failed lookups" in got[2]["text"],
             "the 3rd waits: rate_limited", got[2])
        r = g.ask({"type": "watch", "code": code})
        t.ok(is_error(r, "rate_limited"), "even the right code waits meanwhile", r)
        n = srv.connect()
        r, _ = n.request({"type": "hello", "protocol": 1, "token": "0" * 32})
        t.ok(is_error(r, "rate_limited"), "so does a token from that address", r)
        o = srv.connect("friend", src=OTHER)
        r = o.ask({"type": "watch", "code": code.lower()})
        t.ok(r.get("type") == "state", "another address finds the game by its code", r)
        time.sleep(1.1)
        r = g.ask({"type": "join", "code": code})
        t.ok(r.get("type") == "state", "after the wait the right code is found", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def play_first(cl):
    """Play the first move of cl's latest your_turn."""
    yt = cl.wait_for("your_turn")
    r = cl.ask({"type": "move", "move": yt["moves"][0]})
    assert r["type"] == "ok", r


def test_draw_offers():
    srv = Server()
    try:
        a, b = srv.connect("ann"), srv.connect("bob")
        st = a.ask({"type": "create", "kind": "hokito", "seat": "black", "seed": 3})
        b.ask({"type": "join", "game": st["game"]})
        play_first(a)  # no draw before both sides moved
        play_first(b)
        t.ok(a.ask({"type": "draw_offer"})["type"] == "ok", "a first draw offer")
        t.ok(b.ask({"type": "draw_decline"})["type"] == "ok", "declined")
        r = a.ask({"type": "draw_offer"})
        t.ok(is_error(r, "offer_limit") and "moved 2 times" in r["text"],
             "offering again at once: offer_limit", r)
        play_first(a)
        play_first(b)
        play_first(a)
        r = a.ask({"type": "draw_offer"})
        t.ok(is_error(r, "offer_limit") and "(1 so far)" in r["text"],
             "after one move of the opponent: still offer_limit", r)
        t.ok(b.ask({"type": "draw_offer"})["type"] == "ok",
             "the opponent's own first offer is free")
        t.ok(a.ask({"type": "draw_decline"})["type"] == "ok", "declined")
        play_first(b)
        t.ok(a.ask({"type": "draw_offer"})["type"] == "ok",
             "once the opponent has moved twice, a new offer goes")
        t.ok(srv.log_has(r"draw offer refused in game g1"), "refusals are logged")
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def test_rematch_offers():
    srv = Server()
    try:
        a, b = srv.connect("ann"), srv.connect("bob")
        st = a.ask({"type": "create", "kind": "hokito", "seat": "black", "seed": 3})
        b.ask({"type": "join", "game": st["game"]})
        play_first(a)  # a resignation once both sides moved
        play_first(b)
        a.ask({"type": "resign"})
        for i in range(2):
            r = a.ask({"type": "rematch"})
            t.ok(r["type"] == "ok", "rematch offer %d" % (i + 1), r)
            b.ask({"type": "rematch_decline"})
        r = a.ask({"type": "rematch"})
        t.ok(is_error(r, "offer_limit") and "2 times" in r["text"],
             "a 3rd rematch offer: offer_limit", r)
        r = b.ask({"type": "rematch"})
        t.ok(r["type"] == "ok", "the other player's offer still goes", r)
        r = a.ask({"type": "rematch"})
        t.ok(r["type"] == "state" and r["status"] == "live", "and may be accepted", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def test_idle_timeout():
    srv = Server("--idle-timeout", "1")
    try:
        idle = srv.connect("idle")
        w = srv.connect("watcher")
        p1, p2 = srv.connect("p1"), srv.connect("p2")
        st = p1.ask({"type": "create", "kind": "hokito"})
        p2.ask({"type": "join", "game": st["game"]})
        w.ask({"type": "watch", "game": st["game"]})
        m = idle.wait_for("bye", 5)
        t.ok(m.get("reason") == "idle", "a connection at no game, idle: bye reason idle", m)
        t.ok(idle.closed(), "then closed")
        t.ok(srv.log_has(r"p1 \(idle\) closed: idle for \d+ s at no game"), "with a log line")
        r = srv.connect()
        r2, _ = r.request({"type": "hello", "protocol": 1, "token": idle.token})
        t.ok(r2.get("type") == "welcome" and r2.get("resumed"), "its session resumes", r2)
        for cl, what in ((w, "a spectator"), (p1, "a player")):
            r = cl.ask({"type": "ping"})
            t.ok(r.get("type") == "pong", "%s is not closed" % what, r)
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def test_keepalive():
    ss = shutil.which("ss")
    if ss is None:
        t.ok(True, "keepalive on the server's sockets # SKIP no ss")
        return
    srv = Server("--keepalive", "7")
    try:
        c = srv.connect("k")
        port = c.sock.getsockname()[1]
        r = subprocess.run([ss, "-tnoH", "state", "established", "( sport = :%d )" % srv.port],
                           capture_output=True, text=True)
        line = [l for l in r.stdout.splitlines() if ":%d" % port in l]
        t.ok(line and "keepalive" in line[0], "the server's side of a connection has keepalive",
             r.stdout)
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def test_sessions_cap():
    srv = Server("--max-sessions", "3")
    try:
        gone = []
        for i in range(5):
            c = srv.connect("s%d" % i)
            gone.append(c.token)
            c.close()
            time.sleep(0.05)
        t.ok(srv.log_has(r"5 sessions, past --max-sessions 3: the 2 away the longest forgotten",
                         5),
             "past the cap, a log line", "".join(srv.log[-8:]))
        r = srv.connect()
        m, _ = r.request({"type": "hello", "protocol": 1, "token": gone[0]})
        t.ok(is_error(m, "bad_token"), "the session away the longest is forgotten", m)
        r = srv.connect()
        m, _ = r.request({"type": "hello", "protocol": 1, "token": gone[4]})
        t.ok(m.get("type") == "welcome", "the newest one resumes", m)
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def resume(srv, token, src=None):
    """A hello with token on a new connection: its reply (welcome or an error)."""
    r = srv.connect(src=src) if src else srv.connect()
    m, _ = r.request({"type": "hello", "protocol": 1, "token": token})
    return m, r


def test_sessions_per_addr():
    # 4 sessions kept per address, and 4 new ones a minute in bursts of 8
    srv = Server("--max-sessions-per-addr", "4")
    try:
        host = srv.connect("host")
        st = host.ask({"type": "create", "kind": "hokito"})
        t.ok(st.get("type") == "state", "a player opens a game", st)
        host.close()  # away, seated in its open game
        kept = srv.connect("kept")  # connected all along
        away = []
        for i in range(4):  # the 3rd to 6th sessions of the address, each gone at once
            time.sleep(0.1)  # the server sees each close before the next hello
            c = srv.connect("guest%d" % i)
            away.append(c.token)
            c.close()
        time.sleep(0.1)
        m, _ = resume(srv, away[0])
        t.ok(is_error(m, "bad_token"),
             "past 4 sessions from one address, the guest away the longest is forgotten", m)
        m, _ = resume(srv, away[1])
        t.ok(is_error(m, "bad_token"), "then the next one", m)
        m, back = resume(srv, host.token)
        t.ok(m.get("type") == "welcome" and m.get("game") == st["game"],
             "a seated player away is never taken: it resumes at its game", m)
        t.ok(kept.ask({"type": "ping"}).get("type") == "pong",
             "a connected one is never taken either")
        m, _ = resume(srv, away[3])
        t.ok(m.get("type") == "welcome", "the newest guest resumes", m)
        t.ok(srv.log_has(r"2 sessions forgotten lately past --max-sessions-per-addr 4 \(away, "
                         r"at no game, the longest first\), the last of 127\.0\.0\.1", 5),
             "a log line counts them, once a second at most", "".join(srv.log[-8:]))
        # 6 new sessions so far; a burst is 8: the 9th is refused, a resume is not counted
        extra = [srv.connect("more%d" % i) for i in range(2)]
        c = srv.connect()
        m, _ = c.request({"type": "hello", "protocol": 1, "name": "ninth"})
        t.ok(is_error(m, "rate_limited") and "new sessions a minute" in m.get("text", "")
             and "wait" in m.get("text", ""),
             "the 9th new session in a minute from one address gets rate_limited, saying how "
             "long to wait", m)
        m, _ = c.request({"type": "register", "name": "ninth", "password": "a password"})
        t.ok(is_error(m, "rate_limited"), "so does a register before hello (a new session too)",
             m)
        m, _ = c.request({"type": "hello", "protocol": 1, "token": away[3]})
        t.ok(m.get("type") == "welcome", "a resume with a token is still served", m)
        other = srv.connect("elsewhere", src=OTHER)
        t.ok(other.player is not None, "another address is welcome meanwhile")
        t.ok(srv.log_has(r"requests refused by the per-address limits lately, the last from "
                         r"127\.0\.0\.1", 5),
             "the refusal is counted in the once-a-second log line", "".join(srv.log[-5:]))
        for x in extra + [kept, back, other, c]:
            x.close()
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def test_computer_queue():
    srv = Server("--max-thinking", "1")
    try:
        a = srv.connect("a")
        # level 8 thinks for seconds on its first move (black moves first: it is the computer's)
        st = a.ask({"type": "create", "kind": "hokito", "opponent": "computer", "level": 8,
                    "seat": "white"})
        t.ok(st.get("type") == "state", "a game against the computer", st)
        b = srv.connect("b")
        r = b.ask({"type": "create", "kind": "hokito", "opponent": "computer", "level": 1})
        t.ok(is_error(r, "computer_busy"), "another while it thinks: computer_busy", r)
        a.ask({"type": "abort"})  # it has not moved yet: it aborts (a resignation needs a move)
        t.ok(srv.log_has(r"game %s: its computer's search is stopped" % st["game"]),
             "the game that ends stops its search at once")
        r = None
        for _ in range(100):
            r = b.ask({"type": "create", "kind": "hokito", "opponent": "computer", "level": 1,
                       "seat": "black"})
            if r.get("type") == "state":
                break
            time.sleep(0.05)
        t.ok(r.get("type") == "state", "then a new game against the computer is served", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def test_kibitz_per_game():
    srv = Server("--max-kibitz", "3")
    try:
        a, b = srv.connect("ann"), srv.connect("bob")
        st = a.ask({"type": "create", "kind": "hokito"})
        b.ask({"type": "join", "game": st["game"]})
        specs = [srv.connect("w%d" % i) for i in range(4)]
        for s in specs:
            s.ask({"type": "watch", "game": st["game"]})
        got = [s.ask({"type": "say", "text": "hi"}) for s in specs]
        t.ok(all(r["type"] == "ok" for r in got[:3]), "3 spectators' lines go", got[:3])
        t.ok(is_error(got[3], "rate_limited") and "spectators of game" in got[3]["text"],
             "a 4th line of the game's spectators within 10 s: rate_limited", got[3])
        r = a.ask({"type": "say", "text": "players still talk"})
        t.ok(r["type"] == "ok", "the players' chat is not counted", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


def test_resume_state():
    srv = Server("--max-output", "4096", "--draw-offer-moves", "0")
    try:
        a, b = srv.connect("ann"), srv.connect("bob")
        st = a.ask({"type": "create", "kind": "hokito", "seat": "black", "seed": 3})
        b.ask({"type": "join", "game": st["game"]})
        play_first(a)  # draw offers once both sides moved
        play_first(b)
        for _ in range(40):  # 80 events, about 6 KB: more than half of --max-output
            a.ask({"type": "draw_offer"})
            b.ask({"type": "draw_decline"})
        a.close()
        b.wait_for("presence")
        r = srv.connect()
        w, _ = r.request({"type": "hello", "protocol": 1, "token": a.token, "last_seq": 0})
        t.ok(w.get("type") == "welcome", "the resume is welcome", w)
        m = r.recv()
        t.ok(m.get("type") == "state" and m.get("seq", 0) > 80,
             "a replay that would not fit: the full state instead", m.get("type"))
        t.ok(r.wait_for("your_turn").get("type") == "your_turn", "then its turn, connected")
        t.ok(srv.log_has(r"a replay of \d+ events passes half of --max-output"), "logged")
        r2 = srv.connect()
        w, _ = r2.request({"type": "hello", "protocol": 1, "token": a.token,
                           "last_seq": m["seq"] - 1})
        m = r2.recv()
        t.ok(m.get("type") != "state", "a short replay is still a replay", m.get("type"))
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0")


t.run("lowered cap", test_lowered_cap)
t.run("raised soft limit", test_raised_soft_limit)
t.run("no room", test_no_room)
t.run("full disk start", test_full_disk_start)
t.run("connections per address", test_conns_per_addr)
t.run("requests per address", test_rate_per_addr)
t.run("creates per address", test_creates_per_addr)
t.run("games per address", test_games_per_addr)
t.run("failed lookups per address", test_lookups_per_addr)
t.run("draw offers", test_draw_offers)
t.run("rematch offers", test_rematch_offers)
t.run("idle timeout", test_idle_timeout)
t.run("keepalive", test_keepalive)
t.run("sessions cap", test_sessions_cap)
t.run("sessions per address", test_sessions_per_addr)
t.run("computer queue", test_computer_queue)
t.run("resume too long for --max-output", test_resume_state)
t.run("spectators' chat per game", test_kibitz_per_game)
t.done()
