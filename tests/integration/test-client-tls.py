#!/usr/bin/env python3
"""The clients over TLS, against the real hokitod with --listen-tls and certificates
made by the openssl command for this run (tests/unit/tls-certs.sh).

hokito --plain: a self-signed server is refused without --tls-accept-new, with the fingerprint
and how to accept it; --tls-accept-new pins it (known_hosts, mode 0600); the pinned server is
then accepted silently; a changed certificate is refused loudly, naming the line to delete; with
--tls-ca, a wrong host name, an expired certificate and an unknown CA are each refused with
their reason; --tls-insecure connects and says so. The full screen (tmux) asks y/N with the
fingerprint: y pins it and opens the lobby, n ends the program. Two hokito-engine bots play a
full game over TLS while a --plain spectator watches it; a bot does not ask. Prints TAP.
"""
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clienttest import (ENGINE, HOKITO, HOKITOD, Plain, Server, Tmux, cleanup,  # noqa: E402
                        main_guard, shquote, tmpdir, wait_for)

CERTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "tls-certs.sh")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TLSServer(Server):
    """hokitod listening for TLS only, on a given port (the same port across restarts); stop()
    is clienttest's."""

    def __init__(self, tmp, certs, cert, port):  # noqa: super().__init__ listens in clear
        self.port = port
        self.log = open(os.path.join(tmp, "hokitod-%s.log" % cert), "w")
        pf = os.path.join(tmp, "port-%s-%d" % (cert, port))
        if os.path.exists(pf):
            os.unlink(pf)  # a server of the same certificate and port before this one
        self.proc = subprocess.Popen(
            [HOKITOD, "--listen-tls", "127.0.0.1:%d" % port, "--tls-cert",
             os.path.join(certs, cert + ".pem"), "--tls-key", os.path.join(certs, cert + ".key"),
             "--db", ":memory:", "--port-file", pf, "--log-level", "debug"],
            stdout=self.log, stderr=self.log)
        if not wait_for(lambda: os.path.exists(pf) and open(pf).read().strip(), 30):
            raise RuntimeError("hokitod did not start")


def openssl_fingerprint(pem):
    """What `openssl x509 -noout -fingerprint -sha256` prints for the certificate pem."""
    return subprocess.run(["openssl", "x509", "-noout", "-fingerprint", "-sha256", "-in", pem],
                          capture_output=True, text=True, check=True, timeout=10).stdout.strip()


def log_text(srv):
    srv.log.flush()
    with open(srv.log.name) as f:
        return f.read()


def plain_run(port, args, state, stdin="list\n", timeout=15):
    """hokito --plain with stdin; returns (status, stdout + stderr)."""
    env = dict(os.environ, XDG_STATE_HOME=state)
    r = subprocess.run([HOKITO, "--plain", "--name", "tester", "--port", str(port)] + args,
                       input=stdin, capture_output=True, text=True, timeout=timeout, env=env)
    return r.returncode, r.stdout + r.stderr


def plain_checks(t, tmp, certs):
    state = os.path.join(tmp, "state-plain")
    pins = os.path.join(state, "hokito", "known_hosts")
    port = free_port()
    srv = TLSServer(tmp, certs, "self", port)
    try:
        fp = openssl_fingerprint(os.path.join(certs, "self.pem"))
        t.check(fp.startswith("sha256 Fingerprint=") and
                wait_for(lambda: ": " + fp in log_text(srv), 5),
                "hokitod logs its certificate's fingerprint at its start, as openssl prints it",
                "%s\n%s" % (fp, log_text(srv)))
        srv.proc.send_signal(signal.SIGHUP)
        t.check(wait_for(lambda: re.search("got SIGHUP.*" + re.escape(fp), log_text(srv)), 5),
                "and again at SIGHUP", log_text(srv))
        rc, out = plain_run(port, ["--host", "hokitos://127.0.0.1:%d" % port], state)
        t.check(rc == 1 and "not verified (self-signed certificate)" in out
                and "fingerprint is %s." % fp in out and "--tls-accept-new" in out
                and not os.path.exists(pins),
                "--plain, a self-signed server: refused with its fingerprint (as openssl and "
                "hokitod's log write it) and how to accept it; nothing pinned", out)
        rc, out = plain_run(port, ["--tls", "--tls-accept-new"], state)
        mode = stat.S_IMODE(os.stat(pins).st_mode) if os.path.exists(pins) else None
        line = open(pins).read() if mode is not None else ""
        t.check(rc == 0 and "Pinned the certificate" in out and "games: 0" in out
                and mode == 0o600 and line.startswith("127.0.0.1:%d SHA256:" % port),
                "--tls-accept-new: pinned in known_hosts (mode 0600), then the lobby",
                "%s\nmode %s: %r" % (out, oct(mode or 0), line))
        rc, out = plain_run(port, ["--tls"], state)
        t.check(rc == 0 and "games: 0" in out and "Pinned" not in out,
                "the pinned server is accepted silently", out)
    finally:
        srv.stop()
    srv = TLSServer(tmp, certs, "self2", port)
    try:
        rc, out = plain_run(port, ["--tls"], state)
        t.check(rc == 1 and "HAS CHANGED" in out and "delete line 1 of %s" % pins in out
                and "games:" not in out,
                "a changed certificate: refused loudly, naming the line to delete", out)
        rc, out = plain_run(port, ["--tls", "--tls-accept-new"], state)
        t.check(rc == 1 and "HAS CHANGED" in out,
                "--tls-accept-new does not accept a changed certificate", out)
    finally:
        srv.stop()


def ca_checks(t, tmp, certs):
    state = os.path.join(tmp, "state-ca")
    ca = os.path.join(certs, "ca.pem")
    cases = (("server", "localhost", 0, "games: 0"),
             ("server", "127.0.0.1", 0, "games: 0"),
             ("expired", "localhost", 1, "certificate has expired"),
             ("other", "localhost", 1, "hostname mismatch"),
             ("unknown", "localhost", 1, "unable to get local issuer certificate"))
    for cert, host, want_rc, want in cases:
        port = free_port()
        srv = TLSServer(tmp, certs, cert, port)
        try:
            rc, out = plain_run(port, ["--tls-ca", ca, "--host", host], state)
        finally:
            srv.stop()
        t.check(rc == want_rc and want in out,
                "--tls-ca, %s certificate as %s: %s" % (cert, host, want), out)
    t.check(not os.path.exists(os.path.join(state, "hokito", "known_hosts")),
            "--tls-ca pins nothing")
    port = free_port()
    srv = TLSServer(tmp, certs, "unknown", port)
    try:
        rc, out = plain_run(port, ["--tls-insecure"], state)
        rc2, out2 = plain_run(port, [], state)
    finally:
        srv.stop()
    t.check(rc == 0 and "--tls-insecure" in out and "for tests only" in out and "games: 0" in out,
            "--tls-insecure connects and says that nothing is checked", out)
    t.check(rc2 == 1 and "127.0.0.1:%d speaks TLS: add --tls" % port in out2
            and "end of file" not in out2,
            "in clear to the TLS port: no lobby, exit 1, saying to add --tls", out2)
    srv = Server(tmp)
    try:
        rc, out = plain_run(srv.port, ["--tls", "--tls-insecure"], state)
    finally:
        srv.stop()
    t.check(rc == 1 and "127.0.0.1:%d does not speak TLS: remove --tls" % srv.port in out
            and "wrong version number" not in out,
            "--tls to the port in clear: exit 1, saying to remove --tls", out)


def screen_checks(t, tmp, certs):
    tmux = Tmux("tls")
    port = free_port()
    srv = TLSServer(tmp, certs, "self", port)
    try:
        for answer in ("y", "n"):
            state = os.path.join(tmp, "state-screen-" + answer)
            s = "ask" + answer
            env = {"XDG_STATE_HOME": state, "TERM": "xterm-256color", "LANG": "C.UTF-8"}
            tmux.start(s, "%s --name screen%s --host hokitos://127.0.0.1:%d"
                       % (shquote(HOKITO), answer, port), env, 100, 30)
            asked = tmux.expect(s, r"fingerprint is\s+sha256\s+Fingerprint=[0-9A-F:\s]+\..*\(y/N\)",
                                10)
            t.check(asked, "full screen: asks y/N, showing the fingerprint (%s)" % answer,
                    tmux.capture(s))
            tmux.keys(s, answer)
            pins = os.path.join(state, "hokito", "known_hosts")
            if answer == "y":
                t.check(tmux.expect(s, r"screeny", 10) and os.path.exists(pins)
                        and tmux.expect(s, r"[Ll]obby|games", 5),
                        "y: pinned, the lobby opens", tmux.capture(s))
                tmux.keys(s, "q")
            else:
                t.check(tmux.expect(s, r"not accepted.*HOKITO-EXIT=1", 10)
                        and not os.path.exists(pins),
                        "n: not pinned, the program ends (status 1) saying why",
                        tmux.capture(s))
    finally:
        tmux.kill()
        srv.stop()


def bot_checks(t, tmp, certs):
    port = free_port()
    srv = TLSServer(tmp, certs, "server", port)
    ca = os.path.join(certs, "ca.pem")
    state = os.path.join(tmp, "state-bots")
    env = dict(os.environ, XDG_STATE_HOME=state)
    try:
        bots = [subprocess.Popen([ENGINE, "bot", "--host", "hokitos://localhost:%d" % port,
                                  "--tls-ca", ca, "--time", "400", "--games", "1", "--name",
                                  "tlsbot%d" % i, "--game", "oxono"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=env) for i in (1, 2)]
        watcher = Plain(port, "watcher", ["--tls-ca", ca, "--host", "127.0.0.1"], state)
        watcher.expect(r"connected to", 10)
        game = None
        deadline = time.time() + 10
        while game is None and time.time() < deadline:
            watcher.send("list")
            # ask often: at 400 ms a move the bots' game is over within seconds
            m = watcher.expect(r"\b(g\d+)\b.*(live|open)", 0.2)
            game = m.group(1) if m else None
        if game:
            watcher.send("watch " + game)
        outs = [b.communicate(timeout=120) for b in bots]
        t.check(all(b.returncode == 0 for b in bots),
                "two bots play a full game over TLS (--tls-ca) and exit 0",
                "\n".join(o + e for o, e in outs))
        t.check(game is not None and watcher.expect(r"^game over: ", 15),
                "a --plain spectator over TLS watched it to the end", watcher.text())
        watcher.close()
        r = subprocess.run([ENGINE, "bot", "--tls", "--host", "127.0.0.1", "--port", str(port),
                            "--games", "1"], capture_output=True, text=True, timeout=20,
                           env=dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "state-b2")))
        t.check(r.returncode == 1 and "a bot does not ask" in r.stderr,
                "a bot with neither CA nor pin is refused, saying what to give", r.stderr)
    finally:
        srv.stop()


def main(t):
    tmp = tmpdir()
    certs = os.path.join(tmp, "certs")
    os.mkdir(certs)
    subprocess.run(["bash", CERTS, "--make", certs], check=True, timeout=120)
    try:
        plain_checks(t, tmp, certs)
        ca_checks(t, tmp, certs)
        screen_checks(t, tmp, certs)
        bot_checks(t, tmp, certs)
    finally:
        cleanup(tmp)


main_guard(main)
