#!/usr/bin/env python3
"""hokito logs in to an account from the command line (issue 21): --password-file with
--register creates the account, then --password-file or $HOKITO_PASSWORD logs in to it (the
server's log says so); a refused login or a guest name that is an account's stops hokito with
the server's error. Prints TAP.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap  # noqa: E402

HOKITO = os.environ.get("HOKITO", "build/client/hokito")


def run(srv, args, env=None):
    """hokito --plain with args, typing list then quit; returns its output."""
    p = subprocess.run([HOKITO, "--plain", "--port", str(srv.port), "--new-session"] + args,
                       input="list\nquit\n", capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, **(env or {})))
    return p.stdout + p.stderr


def main():
    t = Tap()
    srv = Server()
    tmp = tempfile.mkdtemp(prefix="hokito-accounts-")
    pw = os.path.join(tmp, "pw")
    with open(pw, "w") as f:
        f.write("a long enough secret\n")
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
        r = subprocess.run([HOKITO, "--plain", "--register", "--name", "x"],
                           capture_output=True, text=True, timeout=10,
                           env={k: v for k, v in os.environ.items() if k != "HOKITO_PASSWORD"})
        t.ok(r.returncode == 2 and "--register needs a password" in r.stderr,
             "--register without a password is a usage error", r.stderr)
    finally:
        srv.stop()
    t.done()


if __name__ == "__main__":
    main()
