#!/usr/bin/env python3
"""What a newcomer meets first in the terminal client, against the real hokitod on loopback.

A password never goes in clear to another machine: --password-file, --login or --register to an
address that is not a loopback one is refused before any connection, saying to use TLS or
--allow-insecure-passwords (run in a network namespace of its own where there is one, so that
nothing could leave the machine even if it did connect); to a name that resolves to the loopback
it goes. --login and --register win over a guest's session stored for the name. A server is
named as HOST:PORT, hokito://HOST:PORT or [IPV6]:PORT, by hokito and hokito-engine bot alike.
The create form says which of last time's choices it kept (d: the defaults). A join that finds
no open seat offers to watch the game. The lobby marks a game that came lately, and r chooses
it. The leaderboard of a new server shows its provisional players, apart and marked, in the full
screen and in --plain (the server's "provisional": true). Prints TAP.
"""
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clienttest as ct  # noqa: E402
import serverlib as sl  # noqa: E402

PW = "correct horse 9"
OFF_LOOPBACK = "192.0.2.1"  # TEST-NET-1 (RFC 5737): never a real host


def netns_prefix():
    """A command prefix that runs a program in a network namespace of its own (no route
    anywhere), or None where none can be made."""
    for prefix in (["unshare", "-n"], ["unshare", "-rn"]):
        if shutil.which(prefix[0]) is None:
            continue
        try:
            if subprocess.run(prefix + ["true"], capture_output=True, timeout=10).returncode == 0:
                return prefix
        except (OSError, subprocess.TimeoutExpired):
            pass
    return None


def plain_run(args, state, stdin="", timeout=20, prefix=()):
    env = dict(os.environ, XDG_STATE_HOME=state)
    env.pop("HOKITO_PASSWORD", None)
    start = time.time()
    r = subprocess.run(list(prefix) + [ct.HOKITO, "--plain"] + args, input=stdin,
                       capture_output=True, text=True, timeout=timeout, env=env)
    return r.returncode, r.stdout + r.stderr, time.time() - start


def password_checks(t, tmp, srv):
    state = os.path.join(tmp, "state-pw")
    pwfile = os.path.join(tmp, "pw")
    with open(pwfile, "w") as f:
        f.write(PW + "\n")
    ns = netns_prefix()
    for what, args in (("--password-file", ["--password-file", pwfile]),
                       ("--register", ["--register", "--password-file", pwfile]),
                       ("$HOKITO_PASSWORD", [])):
        env_pw = what == "$HOKITO_PASSWORD"
        env = dict(os.environ, XDG_STATE_HOME=state, HOKITO_PASSWORD=PW) if env_pw else None
        cmd = list(ns or []) + [ct.HOKITO, "--plain", "--name", "nora", "--host",
                                OFF_LOOPBACK] + args
        if ns is None:
            # no namespace to run it in: a refusal before connecting sends nothing, and the
            # refusal is what is checked; it must come at once
            pass
        start = time.time()
        r = subprocess.run(cmd, input="", capture_output=True, text=True, timeout=20,
                           env=env or dict(os.environ, XDG_STATE_HOME=state))
        out, took = r.stdout + r.stderr, time.time() - start
        t.check(r.returncode == 2 and "Not sending a password in clear to %s:7777" % OFF_LOOPBACK
                in out and "hokitos://" in out and "--allow-insecure-passwords" in out
                and "Cannot connect" not in out and took < 5,
                "%s to %s in clear: refused before connecting (status 2, %.1f s), saying to use "
                "TLS or --allow-insecure-passwords" % (what, OFF_LOOPBACK, took), out)
    if ns is not None:
        rc, out, _ = plain_run(["--name", "nora", "--host", OFF_LOOPBACK, "--password-file",
                                pwfile, "--allow-insecure-passwords"], state, prefix=ns)
        t.check(rc == 1 and "Not sending" not in out and "Cannot connect to %s:7777" %
                OFF_LOOPBACK in out,
                "--allow-insecure-passwords: it goes on and tries to connect (in a namespace "
                "with no network: it cannot)", out)
    else:
        t.check(True, "--allow-insecure-passwords # SKIP no network namespace to try it in")
    # a guest sends no password: it connects anywhere (here: the loopback by its name)
    rc, out, _ = plain_run(["--name", "nora", "--host", "localhost:%d" % srv.port], state,
                           stdin="list\n")
    t.check(rc == 0 and "connected to localhost:%d as nora" % srv.port in out,
            "a guest connects to localhost:PORT (a name and its port in --host)", out)
    # a name that resolves to the loopback takes the password
    rc, out, _ = plain_run(["--name", "pia", "--host", "localhost:%d" % srv.port,
                            "--register", "--password-file", pwfile], state, stdin="list\n")
    t.check(rc == 0 and "as pia (account)" in out,
            "--register to localhost (a name of the loopback): the password goes", out)
    # the full screen refuses the same way, before asking for the password
    if ns is not None:
        tmux = ct.Tmux("nc-pw")
        try:
            env = {"XDG_STATE_HOME": state, "TERM": "xterm-256color", "LANG": "C.UTF-8"}
            tmux.start("pw", "%s %s --name nora --login --host hokito://%s:7811" %
                       (" ".join(ns), ct.shquote(ct.HOKITO), OFF_LOOPBACK), env, 100, 30)
            t.check(tmux.expect("pw", r"Not sending a password in clear to %s:7811.*"
                                r"HOKITO-EXIT=2" % re.escape(OFF_LOOPBACK), 10),
                    "full screen --login to another machine in clear: refused before the "
                    "password is asked (status 2)", tmux.capture("pw"))
        finally:
            tmux.kill()
    else:
        t.check(True, "full screen --login refusal # SKIP no network namespace")


def guest_then_account_checks(t, tmp, srv):
    state = os.path.join(tmp, "state-guest")
    pwfile = os.path.join(tmp, "pw2")
    with open(pwfile, "w") as f:
        f.write(PW + "\n")
    # a guest session as nora, kept for the name...
    rc, out, _ = plain_run(["--port", str(srv.port), "--name", "nora"], state,
                           stdin="create\n")
    t.check(rc == 0 and "joined game" in out, "a guest nora creates a game: its session is "
            "stored", out)
    # ...then --register: the account is made and logged in, not the guest resumed
    rc, out, _ = plain_run(["--port", str(srv.port), "--name", "nora", "--register",
                            "--password-file", pwfile], state, stdin="profile\n")
    t.check(rc == 0 and "as nora (account)" in out and "profile: nora" in out
            and "a guest has no profile" not in out,
            "--register after a guest session as nora: registers (profile: nora)", out)
    # a guest session as gwen, an account gwen made meanwhile, then --login on the full screen
    rc, out, _ = plain_run(["--port", str(srv.port), "--name", "gwen"], state, stdin="list\n")
    t.check(rc == 0 and "as gwen" in out, "a guest gwen: its session is stored", out)
    c = sl.Client("127.0.0.1", srv.port)
    r, _ = c.request({"type": "register", "name": "gwen", "password": PW})
    c.close()
    t.check(r.get("type") == "welcome", "the account gwen is registered meanwhile", r)
    tmux = ct.Tmux("nc-login")
    try:
        env = {"XDG_STATE_HOME": state, "TERM": "xterm-256color", "LANG": "C.UTF-8"}
        tmux.start("gw", "%s --name gwen --login --port %d" % (ct.shquote(ct.HOKITO), srv.port),
                   env, 100, 30)
        asked = tmux.expect("gw", r"[Pp]assword", 10)
        t.check(asked, "--login after a guest session as gwen: the password is asked",
                tmux.capture("gw"))
        tmux.literal("gw", PW)
        tmux.keys("gw", "Enter")
        t.check(tmux.expect("gw", r"gwen", 10) and tmux.expect("gw", r"[Ll]ogged in|account|"
                                                               r"Quick pairing: casual", 10),
                "and with it, the account's session (the guest's is not resumed)",
                tmux.capture("gw"))
        tmux.keys("gw", "q")
    finally:
        tmux.kill()
    rc, out, _ = plain_run(["--port", str(srv.port), "--name", "gwen", "--password-file",
                            pwfile], state, stdin="profile\n")
    t.check(rc == 0 and "profile: gwen" in out, "--password-file: the account, and its profile",
            out)


def address_checks(t, tmp, srv):
    state = os.path.join(tmp, "state-addr")
    for host in ("127.0.0.1:%d" % srv.port, "hokito://127.0.0.1:%d" % srv.port):
        rc, out, took = plain_run(["--name", "ann", "--host", host], state, stdin="list\n")
        t.check(rc == 0 and "connected to 127.0.0.1:%d as ann" % srv.port in out and took < 10,
                "--host %s connects (not a host name tried for ever)" % host, out)
    v6 = None
    try:
        v6 = sl.Server(host="::1")
    except Exception as e:  # noqa: BLE001 - a machine without ::1
        t.check(True, "[::1]:PORT # SKIP no IPv6 loopback (%s)" % e)
    if v6 is not None:
        try:
            rc, out, _ = plain_run(["--name", "ann", "--host", "[::1]:%d" % v6.port], state,
                                   stdin="list\n")
            t.check(rc == 0 and "connected to ::1:%d" % v6.port in out,
                    "--host [::1]:PORT connects", out)
        finally:
            v6.stop()
    bots = [subprocess.Popen([ct.ENGINE, "bot", "--host", form % srv.port, "--time", "30",
                              "--level", "1", "--games", "1", "--game", "oxono", "--name",
                              "addrbot%d" % i], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=dict(os.environ, XDG_STATE_HOME=state))
            for i, form in ((1, "hokito://127.0.0.1:%d"), (2, "127.0.0.1:%d"))]
    outs = []
    for b in bots:
        try:
            outs.append(b.communicate(timeout=90))
        except subprocess.TimeoutExpired:
            b.kill()
            outs.append(b.communicate())
    t.check(all(b.returncode == 0 for b in bots),
            "hokito-engine bot takes hokito://HOST:PORT and HOST:PORT: two bots play a game",
            "\n".join(o + e for o, e in outs))
    r = subprocess.run([ct.ENGINE, "bot", "--host", "ftp://127.0.0.1:1", "--games", "1"],
                       capture_output=True, text=True, timeout=10)
    t.check(r.returncode == 2 and "HOST:PORT" in r.stderr and "hokitos://" in r.stderr,
            "bot --host with another scheme: refused at once with the forms", r.stderr)


def live_game(srv, names):
    """A game two guests of those names play (just started). Returns (id, both clients)."""
    cl = []
    for name in names:
        c = sl.Client("127.0.0.1", srv.port)
        c.hello(name)
        cl.append(c)
    st, _ = cl[0].request({"type": "create", "kind": "hokito", "seat": "black"})
    cl[1].request({"type": "join", "game": st["game"]})
    return st["game"], cl


def lobby_checks(t, tmp, srv):
    """The create form, a join of a live game, a new open game after r (full screen)."""
    tmux = ct.Tmux("nc-lobby")
    state = os.path.join(tmp, "state-lobby")
    env = {"XDG_STATE_HOME": state, "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    players, n = [], None
    try:
        tmux.start("lo", "%s --name lou --port %d" % (ct.shquote(ct.HOKITO), srv.port), env,
                   100, 30)
        t.check(tmux.expect("lo", r"connected +lou", 10) and
                tmux.expect("lo", r"Games on this server", 10), "the lobby opens",
                tmux.capture("lo"))
        # the create form: 5+3 chosen, a game made, left; the form then says it kept 5+3
        tmux.keys("lo", "c")
        t.check(tmux.expect("lo", r"Create a game", 5) and
                not re.search(r"Kept from last time", tmux.capture("lo")),
                "c: the form on its defaults says nothing kept", tmux.capture("lo"))
        tmux.keys("lo", "Down", "Down", "Down", "Down", "Right", "Right", "Right")
        tmux.keys("lo", "Enter")
        t.check(tmux.expect("lo", r"[Ww]aiting for an opponent", 10) and
                tmux.expect("lo", r"5:00", 5),
                "Enter: a 5+3 game is made (its clocks at 5:00)", tmux.capture("lo"))
        tmux.keys("lo", "q")  # an open game is left at once: back to the lobby
        lobby = tmux.expect("lo", r"Games on this server", 10)
        tmux.keys("lo", "c")
        t.check(lobby and tmux.expect("lo", r"Kept from last time: 5\+3.*d: defaults", 5),
                "c again: the form says it kept last time's 5+3 (d: defaults)",
                tmux.capture("lo"))
        tmux.keys("lo", "d")
        t.check(tmux.expect("lo", r"Create a game", 3) and
                ct.wait_for(lambda: "Kept from last time" not in tmux.capture("lo"), 3),
                "d: the defaults again, nothing kept", tmux.capture("lo"))
        tmux.keys("lo", "Escape")
        time.sleep(0.3)
        # a live game between two others: i and its id offers to watch it, w takes the offer
        live, players = live_game(srv, ("ada", "bea"))
        tmux.keys("lo", "i")
        tmux.literal("lo", live)
        tmux.keys("lo", "Enter")
        t.check(tmux.expect("lo", r"Game %s has no open seat: w to watch it" % live, 10),
                "i %s (a live game): no open seat, w offered to watch it" % live,
                tmux.capture("lo"))
        tmux.keys("lo", "w")
        t.check(tmux.expect("lo", r"[Ww]atching game %s|Spectators" % live, 10) and
                tmux.expect("lo", r"ada", 3),
                "w: watching it", tmux.capture("lo"))
        tmux.keys("lo", "q")
        tmux.expect("lo", r"Games on this server", 10)
        # a new open game after r: chosen, marked new
        time.sleep(2.5)  # the lobby has had its list since
        n = sl.Client("127.0.0.1", srv.port)
        n.hello("neo")
        new, _ = n.request({"type": "create", "kind": "oxono", "seat": "pink"})
        tmux.keys("lo", "r")
        t.check(tmux.expect("lo", r"New open game %s: chosen, Enter to join" % new["game"], 10)
                and re.search(r"%s +oxono +\S+ +new open" % new["game"], tmux.capture("lo")),
                "r: the new open game %s is chosen and marked new" % new["game"],
                tmux.capture("lo"))
        tmux.keys("lo", "Enter")
        t.check(tmux.expect("lo", r"neo", 10) and tmux.expect("lo", r"[Yy]our move|to move", 10),
                "Enter: joined it", tmux.capture("lo"))
    finally:
        tmux.kill()
        for c in players + [n]:
            if c is not None:
                c.close()


def plain_join_live(t, tmp, srv):
    g, players = live_game(srv, ("cal", "cyd"))
    rc, out, _ = plain_run(["--port", str(srv.port), "--name", "pat"],
                           os.path.join(tmp, "state-pj"), stdin="join %s\n" % g)
    t.check("Game %s has no open seat: type watch %s to watch it." % (g, g) in out,
            "--plain join of a live game: says how to watch it", out)
    for c in players:
        c.close()


def leaderboard_checks(t, tmp, srv):
    # two accounts, one rated game: both ratings provisional, nobody ranked
    cl = []
    for name in ("ida", "jon"):
        c = sl.Client("127.0.0.1", srv.port)
        r, _ = c.request({"type": "register", "name": name, "password": PW})
        assert r["type"] == "welcome", r
        cl.append(c)
    st, _ = cl[0].request({"type": "create", "kind": "hokito", "seat": "black", "rated": True})
    cl[1].request({"type": "join", "game": st["game"]})
    cl[0].ask({"type": "resign"})
    cl[0].wait_for("game_over")
    r, _ = cl[0].request({"type": "leaderboard", "kind": "hokito"})
    t.check(r.get("entries") == [] and "provisional" not in r,
            "leaderboard: nobody ranked (both provisional)", r)
    r, _ = cl[0].request({"type": "leaderboard", "kind": "hokito", "provisional": True})
    es = r.get("entries", [])
    t.check(r.get("provisional") is True and [e["player"]["name"] for e in es] == ["jon", "ida"]
            and all(e["provisional"] is True and e["rd"] > 110 and e["display"].endswith("?")
                    for e in es) and [e["rank"] for e in es] == [1, 2] and "next" not in r,
            "leaderboard provisional: both, best first, marked", r)
    r1, _ = cl[0].request({"type": "leaderboard", "kind": "hokito", "provisional": True,
                           "limit": 1})
    r2, _ = cl[0].request({"type": "leaderboard", "kind": "hokito", "provisional": True,
                           "limit": 1, "after": r1.get("next", "")})
    t.check(r1.get("entries") == es[:1] and r2.get("entries") == es[1:] and "next" not in r2,
            "provisional pages by key as the ranked ones", (r1, r2))
    r, _ = cl[0].request({"type": "leaderboard", "kind": "oxono", "provisional": True})
    t.check(r.get("entries") == [], "no provisional OXONO player", r)
    r, _ = cl[0].request({"type": "leaderboard", "kind": "hokito", "provisional": "yes"})
    t.check(r.get("type") == "error" and r.get("code") == "bad_field",
            "provisional must be a boolean", r)
    for c in cl:
        c.close()
    rc, out, _ = plain_run(["--port", str(srv.port), "--name", "vic"],
                           os.path.join(tmp, "state-lb"), stdin="leaderboard\n")
    t.check(re.search(r"leaderboard hokito: 0 players ranked \(a rating is ranked once its "
                      r"deviation, rd, is 110 or less", out) and
            re.search(r"provisional, not ranked yet \(rd over 110\): 2 players", out) and
            re.search(r"provisional: jon +1662\? +rd 290 +1 game\n"
                      r"provisional: ida +1338\? +rd 290 +1 game", out),
            "--plain leaderboard: 0 players says why, the provisional ones follow, marked", out)
    tmux = ct.Tmux("nc-lb")
    try:
        env = {"XDG_STATE_HOME": os.path.join(tmp, "state-lb2"), "TERM": "xterm-256color",
               "LANG": "C.UTF-8"}
        tmux.start("lb", "%s --name vic --port %d" % (ct.shquote(ct.HOKITO), srv.port), env,
                   100, 30)
        tmux.expect("lb", r"connected +vic", 10)
        tmux.keys("lb", "L")
        t.check(tmux.expect("lb", r"No one ranked yet: a rating is ranked once its deviation "
                            r"is 110 or less\.\s+Provisional, not ranked yet \(deviation over "
                            r"110\):\s+-\s+jon\s+1662\?.*provisional\s+-\s+ida\s+1338\?", 10),
                "L: nobody ranked says why; the provisional players below, marked",
                tmux.capture("lb"))
        tmux.keys("lb", "Down", "Enter")
        t.check(tmux.expect("lb", r"ida", 10) and tmux.expect("lb", r"[Pp]rofile", 10),
                "Enter on a provisional player: the profile", tmux.capture("lb"))
    finally:
        tmux.kill()


def main(t):
    tmp = ct.tmpdir()
    srv = ct.Server(tmp)
    try:
        password_checks(t, tmp, srv)
        guest_then_account_checks(t, tmp, srv)
        address_checks(t, tmp, srv)
        lobby_checks(t, tmp, srv)
        plain_join_live(t, tmp, srv)
        leaderboard_checks(t, tmp, srv)
    finally:
        srv.stop()
        ct.cleanup(tmp)


ct.main_guard(main)
