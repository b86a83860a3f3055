#!/usr/bin/env python3
"""hokito logs in to an account from the command line: --password-file with
--register creates the account, then --password-file or $HOKITO_PASSWORD logs in to it (the
server's log says so); a refused login or a guest name that is an account's stops hokito --plain
with the server's error.

The full screen, in tmux: a name that is an account's opens the login prompt; a wrong password
is refused there and a right one logs in, and the password never shows on the pane; --login and
Ctrl-R register a new account from the prompt; Ctrl-G goes on as a guest under another name; Esc
leaves; a guest logs in from the lobby (l). --plain's login, register and guest commands, the
password on the next line.

With a server that sends players' kinds and ratings, profiles and leaderboards (the checks are
skipped, and say so, against one that does not): a guest's game is marked "(guest)" in the
lobby; a rated game between two accounts, one on the full screen and one in --plain, shows the
ratings next to the names and each player's change at the end ("1500? -> 1662?, +162"); the
profile page (u) and the leaderboard page (L); --plain's profile, leaderboard and history
PLAYER. Prints TAP.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clienttest as ct  # noqa: E402
from serverlib import Server, Tap  # noqa: E402

HOKITO = os.environ.get("HOKITO", "build/client/hokito")


def run(srv, args, env=None):
    """hokito --plain with args, typing list then quit; returns its output."""
    p = subprocess.run([HOKITO, "--plain", "--port", str(srv.port), "--new-session"] + args,
                       input="list\nquit\n", capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, **(env or {})))
    return p.stdout + p.stderr


SECRET = "a long enough secret"
WRONG = "WrongHorse77"


def features(srv):
    """What the server says of accounts beyond logging in: (kinds, profiles). kinds: a
    guest's welcome names its kind; profiles: profile is a request it knows."""
    c = srv.connect()
    w = c.hello("probe")
    kinds = "kind" in w["player"]
    r, _ = c.request({"type": "profile", "name": "nobody_here"})
    profiles = not (r["type"] == "error" and r.get("code") == "unknown_type")
    c.close()
    return kinds, profiles


def history_by_player(srv):
    """Whether history takes player: asked for the games of a name that has none, once a
    finished game is stored, it lists none."""
    c = srv.connect()
    c.hello("probe2")
    r, _ = c.request({"type": "history", "player": "nobody_here"})
    c.close()
    return r["type"] == "history_page" and r.get("total", -1) == 0


def skip(t, name, why):
    return t.ok(True, "%s # SKIP %s" % (name, why))


def pane_lacks(tmux, session, text):
    """The pane shows no trace of text: neither now nor in its scrollback."""
    full = tmux.run("capture-pane", "-p", "-S", "-", "-t", session, check=False).stdout
    return text not in full


def screen_tests(t, srv, pw, state):
    """The login prompt of the full screen."""
    tmux = ct.Tmux("accounts")
    env = {"XDG_STATE_HOME": state, "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    hok = "%s --port %d --new-session" % (ct.HOKITO, srv.port)
    try:
        # an account's name, no password: the prompt
        tmux.start("ivy", hok + " --name ivy_c", env)
        t.ok(tmux.expect("ivy", r"Password.*ivy_c is an account's name", 10),
             "a guest's name that is an account's opens the login prompt",
             tmux.capture("ivy"))
        tmux.literal("ivy", WRONG)
        tmux.keys("ivy", "Enter")
        t.ok(tmux.expect("ivy", r"Wrong name or password", 10) and
             srv.log_has(r"hello refused: no account of that name and password"),
             "a wrong password: refused on the prompt, which asks again", tmux.capture("ivy"))
        t.ok(pane_lacks(tmux, "ivy", WRONG), "the wrong password never shows on the pane",
             tmux.capture("ivy"))
        tmux.literal("ivy", SECRET)
        tmux.keys("ivy", "Enter")
        t.ok(tmux.expect("ivy", r"lobby.*Ivy_c @.*Logged in: you are Ivy_c", 10) and
             srv.log_has(r"\(Ivy_c\) logged in to account 1$"),
             "the right password: logged in, the lobby shows the account's name",
             tmux.capture("ivy"))
        t.ok(pane_lacks(tmux, "ivy", SECRET), "the password never shows on the pane",
             tmux.capture("ivy"))
        t.ok(tmux.expect("ivy", r"Quick pairing: casual", 5),
             "an account is offered rated quick pairing (t)", tmux.capture("ivy"))
        tmux.keys("ivy", "Q")

        # --login with a free name: register it from the prompt
        tmux.start("newt", hok + " --name Newt_c --login", env)
        t.ok(tmux.expect("newt", r"Log in.*Password", 10), "--login opens the prompt first",
             tmux.capture("newt"))
        tmux.literal("newt", "newt's own secret")
        tmux.keys("newt", "C-r")
        t.ok(tmux.expect("newt", r"lobby.*Newt_c @", 10) and
             srv.log_has(r"\(Newt_c\) logged in to account \d+$"),
             "Ctrl-R on the prompt registers the name and logs in", tmux.capture("newt"))
        t.ok(pane_lacks(tmux, "newt", "own secret"), "... and its password never shows",
             tmux.capture("newt"))
        tmux.keys("newt", "Q")

        # a weak password on the prompt: why, and the prompt asks again
        tmux.start("wes", hok + " --name Wes_c --login", env)
        tmux.expect("wes", r"Log in.*Password", 10)
        tmux.literal("wes", "password1")
        tmux.keys("wes", "C-r")
        t.ok(tmux.expect("wes", r"one of the most common ones", 10),
             "Ctrl-R with a common password: the prompt says why (weak_password)",
             tmux.capture("wes"))
        tmux.keys("wes", "Escape")
        # a reserved name as a guest's: the prompt says so
        tmux.start("adm", hok + " --name Adm1n", env)
        t.ok(tmux.expect("adm", r"Adm1n is reserved", 10),
             "a guest named like admin: the prompt says the name is reserved",
             tmux.capture("adm"))
        tmux.keys("adm", "Escape")

        # Ctrl-G: a guest under another name; Esc: out
        tmux.start("gus", hok + " --name IVY_C", env)
        tmux.expect("gus", r"account's name", 10)
        tmux.keys("gus", "BTab")
        for _ in range(6):
            tmux.keys("gus", "BSpace")
        tmux.literal("gus", "gus_guest")
        tmux.keys("gus", "C-g")
        t.ok(tmux.expect("gus", r"lobby.*gus_guest @", 10) and
             srv.log_has(r"\(gus_guest\) said hello"),
             "Ctrl-G on the prompt goes on as a guest under the name typed",
             tmux.capture("gus"))
        # the guest logs in from the lobby with l
        tmux.keys("gus", "l")
        tmux.expect("gus", r"Log in", 5)
        tmux.literal("gus", "Ivy_c")
        tmux.keys("gus", "Tab")
        tmux.literal("gus", SECRET)
        tmux.keys("gus", "Enter")
        t.ok(tmux.expect("gus", r"lobby.*Ivy_c @.*Logged in", 10),
             "l in the lobby: a guest logs in to an account", tmux.capture("gus"))
        tmux.keys("gus", "Q")
        # a guest registers from the lobby a name that is taken: the prompt says so
        tmux.start("reg", hok + " --name reg_guest", env)
        tmux.expect("reg", r"lobby.*reg_guest @", 10)
        tmux.keys("reg", "l")
        tmux.expect("reg", r"Log in", 5)
        tmux.literal("reg", "IVY_c")
        tmux.keys("reg", "Tab")
        tmux.literal("reg", "some other pw")
        tmux.keys("reg", "C-r")
        t.ok(tmux.expect("reg", r"Log in.*IVY_c is taken", 10),
             "Ctrl-R with a name taken: the prompt says so and asks again",
             tmux.capture("reg"))
        tmux.keys("reg", "Escape")
        t.ok(tmux.expect("reg", r"lobby.*reg_guest @", 5),
             "... Esc: back in the lobby, still the guest", tmux.capture("reg"))
        tmux.keys("reg", "Q")
        tmux.start("esc", hok + " --name ivy_C", env)
        tmux.expect("esc", r"account's name", 10)
        tmux.keys("esc", "Escape")
        t.ok(tmux.expect("esc", r"HOKITO-EXIT=0", 5),
             "Esc leaves the prompt (and hokito, never greeted): nobody is trapped",
             tmux.capture("esc"))
    finally:
        tmux.kill()


def plain_tests(t, srv, state):
    """--plain's login, register and guest commands."""
    p = ct.Plain(srv.port, "pete", ["--new-session"], state)
    try:
        t.ok(p.expect(r"^connected to .* as pete$", 10), "--plain: connected as a guest",
             p.text())
        p.send("login Ivy_c")
        p.send(WRONG)
        t.ok(p.expect(r"^error: .*", 10) and p.expect(r"^back as the guest pete", 10) and
             p.expect(r"as pete$", 10),
             "login NAME with a wrong password: the error, and back as the guest", p.text())
        p.send("login ivy_c")
        p.send(SECRET)
        t.ok(p.expect(r"^reconnected to .* as Ivy_c \(account\)$", 10),
             "login NAME, the password on the next line: logged in", p.text())
        t.ok(SECRET not in p.text() and WRONG not in p.text(),
             "the passwords are never printed", p.text())
        p.send("guest pete2")
        t.ok(p.expect(r"as pete2$", 10), "guest NAME: a guest again, under that name",
             p.text())
        p.send("register Reg_c")
        p.send("reg's secret pw")
        t.ok(p.expect(r"^Registered: you are Reg_c", 10) and
             srv.log_has(r"Reg_c"), "register NAME: the guest's session is the new account's",
             p.text())
    finally:
        p.close()


def rated_tests(t, srv, state, tmpd):
    """A rated game, the ratings shown, the profile and leaderboard pages and commands."""
    pw = os.path.join(tmpd, "pw-rated")
    with open(pw, "w") as f:
        f.write(SECRET + "\n")
    for name in ("Ali_c", "Bob_c"):
        subprocess.run([ct.HOKITO, "--plain", "--port", str(srv.port), "--new-session",
                        "--name", name, "--password-file", pw, "--register"],
                       input="quit\n", capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, XDG_STATE_HOME=state))
    guest = ct.Plain(srv.port, "carol", ["--new-session"], state)
    ali = ct.Plain(srv.port, "Ali_c", ["--new-session", "--password-file", pw], state)
    tmux = ct.Tmux("rated")
    try:
        guest.send("create hokito")
        guest.expect(r"^joined game (g\d+)", 10)
        ali.expect(r"as Ali_c", 10)
        ali.send("list")
        t.ok(ali.expect(r"carol \(guest\)", 10), "a guest's game: marked (guest)",
             ali.text())
        guest.send("leave")
        ali.send("create hokito black rated")
        m = ali.expect(r"^joined game (g\d+)", 10)
        gid = m.group(1) if m else "g0"
        tmux.start("bob", "%s --port %d --new-session --name Bob_c --password-file %s join %s" %
                   (ct.HOKITO, srv.port, pw, gid),
                   {"XDG_STATE_HOME": state, "TERM": "xterm-256color", "LANG": "C.UTF-8"})
        t.ok(tmux.expect("bob", r"Ali_c 1500\?.*Bob_c 1500\? \(you\)", 10),
             "the game panel: the ratings next to the names", tmux.capture("bob"))
        ali.expect(r"^your turn", 10)
        ali.send("moves")
        m = ali.expect(r"^legal moves for \w+ \(\d+\): (\S+)", 10)
        ali.send(m.group(1) if m else "a1-a2")
        tmux.expect("bob", r"Your move", 10)
        # a resignation needs a move of one's own (PROTOCOL.md resign): bob types one
        ali.send("position")
        pm = ali.expect(r"^position: (.*)$", 10)
        tmux.keys("bob", ":")
        tmux.literal("bob", ct.legal_moves("hokito", pm.group(1))[0] if pm else "a6-a5")
        tmux.keys("bob", "Enter")
        ali.expect(r"^your turn", 10)
        tmux.expect("bob", r"You played", 10)
        tmux.keys("bob", "r")
        tmux.keys("bob", "y")
        t.ok(tmux.expect("bob", r"Bob_c 1500\? -> 1338\?, -162", 10),
             "the game's end: the loser's rating change on the full screen",
             tmux.capture("bob"))
        t.ok(ali.expect(r"^rating: Ali_c 1500\? -> 1662\?, \+162$", 10),
             "... and the winner's in --plain", ali.text())
        tmux.keys("bob", "u")
        t.ok(tmux.expect("bob", r"profile of Ali_c.*Player since.*HOKITO\s+1662\?.*1/0/0", 10),
             "u: the opponent's profile, its rating, games and last games",
             tmux.capture("bob"))
        t.ok(tmux.expect("bob", gid, 2), "... the rated game among its last games",
             tmux.capture("bob"))
        tmux.keys("bob", "q")
        tmux.keys("bob", "q")
        tmux.expect("bob", r"Games on this server", 10)
        tmux.keys("bob", "L")
        t.ok(tmux.expect("bob", r"Leaderboard: HOKITO.*No one ranked yet.*Provisional, not "
                         r"ranked yet.*-\s+Ali_c\s+1662\?.*provisional.*-\s+Bob_c\s+1338\?", 10),
             "L: the leaderboard (one game each: nobody's rating is settled yet; both "
             "provisional, below)",
             tmux.capture("bob"))
        tmux.keys("bob", "t")
        t.ok(tmux.expect("bob", r"Leaderboard: OXONO", 10), "t: the other game's leaderboard",
             tmux.capture("bob"))
        tmux.keys("bob", "q")
        tmux.keys("bob", "h")
        tmux.expect("bob", r"Finished games", 10)
        tmux.keys("bob", "m")
        t.ok(tmux.expect("bob", r"Games of Bob_c.*%s +hokito rated Ali_c" % gid, 10),
             "m in the history: my games", tmux.capture("bob"))
        tmux.keys("bob", "q")
        ali.send("leave")
        ali.send("profile Bob_c")
        t.ok(ali.expect(r"^rating hokito: 1338\? \(1337\.\d\d, rd 290\.\d", 10),
             "--plain profile NAME: the rating, full precision too", ali.text())
        ali.send("leaderboard oxono")
        t.ok(ali.expect(r"^leaderboard oxono: 0 players", 10),
             "--plain leaderboard KIND", ali.text())
        # a bot account is marked as one (the operator's set-bot, the server running)
        r = subprocess.run([os.environ.get("HOKITOD", "build/server/hokitod"), "accounts",
                            "--db", srv.db, "set-bot", "Ali_c"], capture_output=True,
                           text=True, timeout=30)
        ali.send("profile Ali_c")
        t.ok(r.returncode == 0 and ali.expect(r"^profile: Ali_c \[bot\], since ", 10),
             "a bot account: marked [bot]", r.stdout + r.stderr + ali.text())
        if history_by_player(srv):
            ali.send("history Bob_c")
            t.ok(ali.expect(r"^history: games 1 to 1 of 1", 10) and
                 ali.expect(r"^game %s hokito rated Ali_c( \S+)? vs Bob_c" % gid, 5),
                 "--plain history PLAYER: that player's games", ali.text())
        else:
            skip(t, "--plain history PLAYER", "the server has no history by player")
    finally:
        tmux.kill()
        guest.close()
        ali.close()


def main():
    t = Tap()
    # the clients all come from 127.0.0.1: the operator lets accounts of one address play
    # rated games, and a rated game of 2 plies counts (test-server-farming.py has the defaults)
    srv = Server("--allow-shared-address", "--rated-min-plies", "2")
    tmp = tempfile.mkdtemp(prefix="hokito-accounts-")
    state = os.path.join(tmp, "state")
    os.makedirs(state)
    pw = os.path.join(tmp, "pw")
    with open(pw, "w") as f:
        f.write(SECRET + "\n")
    try:
        out = run(srv, ["--name", "Ivy_c", "--password-file", pw, "--register"])
        t.ok(srv.log_has(r"\(Ivy_c\) logged in to account 1$"),
             "--register --password-file creates the account and logs in", out)
        out = run(srv, ["--name", "ivy_c", "--password-file", pw])
        t.ok(srv.log_has(r"p2 \(Ivy_c\) logged in to account 1$"),
             "--password-file logs in to it (the name without regard to case)", out)
        out = run(srv, ["--name", "Ivy_c"], env={"HOKITO_PASSWORD": "a long enough secret"})
        t.ok(srv.log_has(r"p3 \(Ivy_c\) logged in to account 1$"),
             "$HOKITO_PASSWORD logs in too", out)
        p = subprocess.run([HOKITO, "--plain", "--port", str(srv.port), "--new-session",
                            "--name", "Ivy_c"], input="list\n", capture_output=True, text=True,
                           timeout=30, env=dict(os.environ, HOKITO_PASSWORD="not the secret"))
        t.ok(p.returncode == 1 and "no account of that name and password" in p.stdout + p.stderr,
             "a wrong password: the error, and hokito stops (status 1)", p.stdout + p.stderr)
        p = subprocess.run([HOKITO, "--plain", "--port", str(srv.port), "--new-session",
                            "--name", "IVY_C"], input="list\n", capture_output=True, text=True,
                           timeout=30, env={k: v for k, v in os.environ.items()
                                            if k != "HOKITO_PASSWORD"})
        t.ok(p.returncode == 1 and "is an account's" in p.stdout + p.stderr,
             "a guest named like the account: refused, and hokito stops", p.stdout + p.stderr)
        weak = os.path.join(tmp, "weak")
        with open(weak, "w") as f:
            f.write("qwertyuiop\n")
        out = run(srv, ["--name", "Wendy_c", "--password-file", weak, "--register"])
        t.ok("most common ones" in out and not srv.log_has(r"\(Wendy_c\) logged in", 0.2),
             "--register with a common password: the server's why (weak_password)", out)
        p = subprocess.run([HOKITO, "--plain", "--port", str(srv.port), "--new-session",
                            "--name", "root"], input="list\n", capture_output=True, text=True,
                           timeout=30, env={k: v for k, v in os.environ.items()
                                            if k != "HOKITO_PASSWORD"})
        t.ok(p.returncode == 1 and "reserved" in p.stdout + p.stderr,
             "a guest named root: refused as reserved, and hokito stops", p.stdout + p.stderr)
        r = subprocess.run([HOKITO, "--plain", "--register", "--name", "x"],
                           capture_output=True, text=True, timeout=10,
                           env={k: v for k, v in os.environ.items() if k != "HOKITO_PASSWORD"})
        t.ok(r.returncode == 2 and "--register needs a password" in r.stderr,
             "--register without a password is a usage error", r.stderr)
        kinds, profiles = features(srv)
        screen_tests(t, srv, pw, state)
        plain_tests(t, srv, state)
        if kinds and profiles:
            rated_tests(t, srv, state, tmp)
        else:
            skip(t, "kinds, ratings, a rated game, profiles and leaderboards",
                 "the server does not send them yet")
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    t.done()


if __name__ == "__main__":
    main()
