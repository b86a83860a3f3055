#!/usr/bin/env python3
"""hokitod's operators' commands, end to end: `hokitod accounts list|ban|unban|
reset-password|set-bot|set-account` against a running server through its admin socket (a Unix
socket beside the store, mode 0600, removed at stop, a stale one replaced at start), and against
the store file when no server runs. A ban ends the account's connections (bye "banned"), its live
game (aborted, abandoned, for the opponent too), its open game, and its token; its logins get
account_closed (a wrong password still wrong_password); unban lets it in again. A password reset
ends the old sessions (bye "password_reset"): the old password is refused, the new one works.
set-bot shows in the list. Another user is refused; bad input gets clear errors and exit codes.
Prints TAP.
"""
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import HOKITOD, TIMEOUT, STORE, Server, Tap, run_on_server  # noqa: E402

PW = "correct horse battery"


def accounts(srv_or_db, *args, stdin=None, user=None):
    """Run `hokitod accounts --db DB ARGS`; returns (exit status, stdout, stderr)."""
    db = srv_or_db if isinstance(srv_or_db, str) else srv_or_db.db
    if not isinstance(srv_or_db, str) and STORE == "pg":  # no socket by default there
        args = ("--admin-socket", srv_or_db.admin_sock) + args
    r = subprocess.run([HOKITOD, "accounts", "--db", db] + list(args), input=stdin,
                       capture_output=True, text=True, timeout=3 * TIMEOUT,
                       preexec_fn=(lambda: os.setuid(user)) if user is not None else None)
    return r.returncode, r.stdout, r.stderr


def listed(srv_or_db):
    """The accounts as `list` prints them: name -> (kind, state)."""
    rc, out, err = accounts(srv_or_db, "list")
    assert rc == 0, (rc, out, err)
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["ID", "NAME", "KIND"], out
    rows = {}
    for line in lines[1:]:
        f = line.split()
        rows[f[1]] = (f[2], " ".join(f[5:]))
    return rows


def login(srv, name, pw=PW):
    c = srv.connect()
    r, _ = c.request({"type": "hello", "protocol": 1, "name": name, "password": pw})
    if r["type"] == "welcome":
        c.token = r["token"]
        c.player = r["player"]
    return c, r


def live_game(host, guest):
    """host (an account's connection) creates a HOKITO game and guest joins: it is live."""
    st, _ = host.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 7})
    assert st["type"] == "state", st
    js, _ = guest.request({"type": "join", "game": st["game"]})
    assert js["type"] == "state" and js["status"] == "live", js
    host.recv_until("started")
    return st["game"]


def admin_raw(path, *lines):
    """Send raw lines to the admin socket; returns the answers (one per line)."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(TIMEOUT)
    s.connect(path)
    f = s.makefile("rw")
    out = []
    for line in lines:
        f.write(line + "\n")
        f.flush()
        out.append(json.loads(f.readline()))
    s.close()
    return out


def test_running(t, srv):
    sock = srv.admin_sock
    st = os.stat(sock)
    t.ok(stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600,
         "the admin socket is beside the store, mode 0600", oct(st.st_mode))

    alice = srv.account("Alice", PW)
    bob = srv.account("Bob_b", PW)
    srv.account("Carol", PW).close()
    rows = listed(srv)
    t.ok(set(rows) == {"Alice", "Bob_b", "Carol"} and rows["Alice"] == ("account", "open"),
         "list: every account, its kind and state", rows)

    rc, out, err = accounts(srv, "set-bot", "alice")
    t.ok(rc == 0 and "Alice: is a bot" in out, "set-bot (the name in any case)", (rc, out, err))
    t.ok(listed(srv)["Alice"][0] == "bot", "the list says bot")
    rc, out, err = accounts(srv, "set-account", "ALICE")
    t.ok(rc == 0 and listed(srv)["Alice"][0] == "account", "set-account: back", (rc, out, err))

    # Alice plays a live game against a guest, and has an open game on a second connection.
    guest = srv.connect("guest_g")
    game = live_game(alice, guest)
    alice2, r = login(srv, "alice")
    st, _ = alice2.request({"type": "create", "kind": "oxono", "seed": 3})
    t.ok(st["type"] == "state" and st["status"] == "open", "a second login creates a game", st)
    open_game = st["game"]

    rc, out, err = accounts(srv, "ban", "Alice")
    t.ok(rc == 0 and "Alice: banned" in out and "2 session(s) ended" in out,
         "ban: exit 0, two sessions ended", (rc, out, err))
    over = guest.wait_for("game_over")
    t.ok(over["game"] == game and over["result"] == "aborted" and over["reason"] == "abandoned",
         "the opponent is told: aborted, abandoned", over)
    bye, before = alice.recv_until("bye")
    t.ok(bye["reason"] == "banned" and alice.closed(), "the banned player gets bye banned, "
         "then the connection closes", bye)
    t.ok(any(m["type"] == "game_over" for m in before), "... after its own game_over", before)
    bye, _ = alice2.recv_until("bye")
    t.ok(bye["reason"] == "banned" and alice2.closed(), "its second connection too", bye)
    lst, _ = guest.request({"type": "list"})
    t.ok(not any(g["game"] == open_game and g["status"] == "open" for g in lst["games"]),
         "its open game is gone from the open games", lst)
    c, r = login(srv, "alice")
    t.ok(r["type"] == "error" and r["code"] == "account_closed", "its login: account_closed", r)
    c.close()
    c, r = login(srv, "alice", "not the password")
    t.ok(r["type"] == "error" and r["code"] == "wrong_password",
         "a wrong password still gets wrong_password", r)
    c.close()
    c = srv.connect()
    r, _ = c.request({"type": "hello", "protocol": 1, "token": alice.token})
    t.ok(r["type"] == "error" and r["code"] == "bad_token", "its token resumes nothing", r)
    c.close()
    t.ok(listed(srv)["Alice"][1].startswith("banned"), "the list says banned")

    rc, out, err = accounts(srv, "unban", "alice")
    t.ok(rc == 0 and "Alice: unbanned" in out, "unban: exit 0", (rc, out, err))
    c, r = login(srv, "Alice")
    t.ok(r["type"] == "welcome", "after unban the login works", r)
    c.close()

    # reset-password from a file: bob's session ends, the old password is refused
    pwfile = os.path.join(srv.tmp, "pw")
    with open(pwfile, "w") as f:
        f.write("a brand new password\n")
    rc, out, err = accounts(srv, "reset-password", "bob_b", "--password-file", pwfile)
    t.ok(rc == 0 and "Bob_b: password reset" in out, "reset-password --password-file",
         (rc, out, err))
    bye, _ = bob.recv_until("bye")
    t.ok(bye["reason"] == "password_reset" and bob.closed(),
         "the old session gets bye password_reset", bye)
    c, r = login(srv, "Bob_b")
    t.ok(r["type"] == "error" and r["code"] == "wrong_password", "the old password: refused", r)
    c.close()
    c, r = login(srv, "Bob_b", "a brand new password")
    t.ok(r["type"] == "welcome", "the new one works", r)
    c.close()
    rc, out, err = accounts(srv, "reset-password", "bob_b", stdin="from stdin 123\n")
    t.ok(rc == 0, "reset-password from stdin (not a terminal)", (rc, out, err))
    c, r = login(srv, "Bob_b", "from stdin 123")
    t.ok(r["type"] == "welcome", "... and it works", r)
    c.close()

    # bad input
    rc, out, err = accounts(srv, "ban", "nobody_here")
    t.ok(rc == 1 and "no_such_account" in err and "nobody_here" in err,
         "ban of an unknown name: exit 1, no_such_account", (rc, err))
    rc, out, err = accounts(srv, "reset-password", "carol", stdin="short\n")
    t.ok(rc == 1 and "8 to 1024" in err, "a password too short: exit 1, says why", (rc, err))
    rc, out, err = accounts(srv, "frobnicate", "carol")
    t.ok(rc == 2 and "frobnicate" in err, "an unknown command: exit 2", (rc, err))
    rc, out, err = accounts(srv, "ban")
    t.ok(rc == 2 and "NAME" in err, "ban without a name: exit 2", (rc, err))

    # the socket's own protocol: one answer a line, refusals coded, pages by key
    answers = admin_raw(sock, "not json", '{"type":"launch"}',
                        '{"type":"accounts_list","limit":2}',
                        '{"type":"accounts_list","limit":2,"after":2}',
                        '{"type":"accounts_list","limit":0}',
                        '{"type":"account_set_kind","name":"carol","kind":"robot"}')
    codes = [a.get("code") for a in answers]
    t.ok(codes[0] == "bad_json" and codes[1] == "unknown_type" and codes[4] == "bad_value"
         and codes[5] == "bad_value", "the socket refuses bad requests with codes", answers)
    p1, p2 = answers[2], answers[3]
    t.ok([a["name"] for a in p1["accounts"]] == ["Alice", "Bob_b"] and p1.get("next") == 2
         and [a["name"] for a in p2["accounts"]] == ["Carol"] and "next" not in p2,
         "accounts_list pages by id", (p1, p2))
    r, _ = guest.request({"type": "account_ban", "name": "carol"})
    t.ok(r["type"] == "error" and r["code"] == "unknown_type" and listed(srv)["Carol"][1] ==
         "open", "a TCP client's account_ban: unknown_type, nothing done", r)
    guest.close()


def test_other_user(t, srv):
    """Another user: the socket's mode keeps it out; if the mode is opened, the server's
    peer-credentials check still refuses it."""
    if os.geteuid() != 0:
        t.ok(True, "another user refused # SKIP not root: cannot run as another user")
        return
    nobody = 65534
    rc, out, err = accounts(srv, "list", user=nobody)
    t.ok(rc == 3 and "permission denied" in err, "another user: permission denied, exit 3",
         (rc, err))
    sock = srv.admin_sock
    os.chmod(srv.tmp, 0o711)
    os.chmod(sock, 0o666)
    try:
        rc, out, err = accounts(srv, "ban", "carol", user=nobody)
    finally:
        os.chmod(sock, 0o600)
        os.chmod(srv.tmp, 0o700)
    t.ok(rc == 3 and "permission_denied" in err, "with the mode opened, the server refuses "
         "its credentials (SO_PEERCRED): exit 3", (rc, err))
    t.ok(listed(srv)["Carol"][1] == "open", "and nothing was done")


def test_store_locked(t, srv):
    """A server on the store that answers on another socket: the command cannot use the store
    and says it is in use."""
    other = os.path.join(srv.tmp, "elsewhere.sock")
    srv2 = Server("--admin-socket", other)
    try:
        rc, out, err = accounts(srv2.db, "list", "--admin-socket", srv2.db + ".nothing")
        t.ok(rc == 3 and "in use" in err, "the store held by a server: exit 3, in use",
             (rc, err))
        rc, out, err = accounts(srv2.db, "list", "--admin-socket", other)
        t.ok(rc == 0 and out.startswith("ID"), "--admin-socket names the server's socket",
             (rc, err))
    finally:
        srv2.stop()
    t.ok(not os.path.exists(other), "the socket is removed at stop")


def test_without_server(t):
    """Stopped server: the commands work on the store file; a ban made there ends the banned
    account's game at the next start; the socket a killed server left is replaced."""
    srv = Server()
    carol = srv.account("Carol_c", PW)
    guest = srv.connect("dave")
    live_game(carol, guest)
    srv.account("Erin_e", PW).close()
    dave_token = guest.token
    t.ok(srv.stop() == 0, "the server stops")
    t.ok(not os.path.exists(srv.admin_sock), "its admin socket is gone")

    rows = listed(srv.db)
    t.ok(set(rows) == {"Carol_c", "Erin_e"}, "list on the store file", rows)
    rc, out, err = accounts(srv.db, "ban", "carol_c")
    t.ok(rc == 0 and "in the store file" in out, "ban on the store file", (rc, out, err))
    rc, out, err = accounts(srv.db, "set-bot", "erin_e")
    t.ok(rc == 0 and listed(srv.db)["Erin_e"][0] == "bot", "set-bot on the store file",
         (rc, out, err))
    rc, out, err = accounts(srv.db, "reset-password", "erin_e", stdin="offline password\n")
    t.ok(rc == 0, "reset-password on the store file", (rc, out, err))
    rc, out, err = accounts(srv.db, "unban", "nobody_x")
    t.ok(rc == 1 and "no_such_account" in err, "an unknown name: exit 1", (rc, err))

    srv.__init__(db=srv.db)
    try:
        c, r = login(srv, "carol_c")
        t.ok(r["type"] == "error" and r["code"] == "account_closed",
             "after a restart the ban holds: account_closed", r)
        c.close()
        c, r = login(srv, "erin_e", "offline password")
        t.ok(r["type"] == "welcome", "the password reset offline works", r)
        c.close()
        d = srv.connect()
        r, _ = d.request({"type": "hello", "protocol": 1, "token": dave_token})
        st = d.wait_for("state") if r.get("type") == "welcome" else None
        t.ok(st is not None and st["status"] == "finished"
             and st["result"]["result"] == "aborted" and st["result"]["reason"] == "abandoned",
             "the banned player's game ended at the start: aborted, abandoned", (r, st))
        d.close()
        srv.kill()  # leaves its socket file behind
        t.ok(os.path.exists(srv.admin_sock), "kill -9 leaves the socket file")
        srv.__init__(db=srv.db)
        rc, out, err = accounts(srv, "list")
        t.ok(rc == 0 and "Carol_c" in out, "a new server replaces the stale socket", (rc, err))
    finally:
        srv.stop()


def main():
    t = Tap()
    run_on_server(t, Server(), [
        ("with a server running: no exception", test_running),
        ("another user: no exception", test_other_user),
        ("the store in use: no exception", test_store_locked),
    ], "the server stops cleanly")
    t.run("without a server: no exception", test_without_server, t)
    t.done()


if __name__ == "__main__":
    main()
