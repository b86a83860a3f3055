#!/usr/bin/env python3
"""Installation, as an administrator would do it: `meson install` into a staging directory, the
files it must put there, every program's --help and --version, the systemd unit's hardening, and
hokitod started exactly the way the unit's command line starts it (defaults from the unit,
settings from the example environment file), then stopped the way systemd stops it.

usage: test-install.py BUILD_DIR   (env: none needed; prints TAP)
"""
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

build = sys.argv[1]
n = 0
failed = 0


def check(ok, name, why=""):
    global n, failed
    n += 1
    if not ok:
        failed += 1
        print(f"not ok {n} - {name}")
        for line in str(why).splitlines():
            print(f"# {line}")
    else:
        print(f"ok {n} - {name}")
    return ok


stage = tempfile.mkdtemp(prefix="hokito-install-")
work = tempfile.mkdtemp(prefix="hokito-run-")
try:
    r = subprocess.run(["meson", "install", "-C", build, "--destdir", stage, "--no-rebuild",
                        "--quiet"], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "meson install into a staging directory", r.stdout + r.stderr)
    intro = json.loads(subprocess.run(["meson", "introspect", build, "--buildoptions"],
                                      capture_output=True, text=True).stdout)
    opt = {o["name"]: o["value"] for o in intro}
    prefix = opt["prefix"]
    root = stage + prefix
    bindir = os.path.join(root, opt["bindir"])
    expect = {
        "hokitod": os.path.join(bindir, "hokitod"),
        "hokito": os.path.join(bindir, "hokito"),
        "hokito-engine": os.path.join(bindir, "hokito-engine"),
        "hokitod(8)": os.path.join(root, opt["mandir"], "man8", "hokitod.8"),
        "hokito(6)": os.path.join(root, opt["mandir"], "man6", "hokito.6"),
        "hokito-engine(6)": os.path.join(root, opt["mandir"], "man6", "hokito-engine.6"),
        "hokitod.service": os.path.join(root, "lib", "systemd", "system", "hokitod.service"),
        "hokitod.env": os.path.join(root, opt["datadir"], "doc", "hokito", "hokitod.env"),
    }
    for what, path in expect.items():
        check(os.path.isfile(path), f"installed: {what}", path)
    for prog in ("hokitod", "hokito", "hokito-engine"):
        path = expect[prog]
        check(os.access(path, os.X_OK), f"{prog} is executable")
        r = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=10)
        lines = r.stdout.splitlines()
        check(r.returncode == 0 and lines and "usage" in lines[0].lower(),
              f"{prog} --help exits 0 with a usage line", r.stderr)
        check(len(lines) <= 24 and all(len(l) <= 80 for l in lines),
              f"{prog} --help fits an 80x24 screen", f"{len(lines)} lines")
        check(any("xample" in l for l in lines), f"{prog} --help shows examples")
        if prog == "hokitod":
            r = subprocess.run([path, "--help", "limits"], capture_output=True, text=True,
                               timeout=10)
            lines = r.stdout.splitlines()
            check(r.returncode == 0 and lines and "usage" in lines[0].lower() and
                  any("--max-clients" in l for l in lines),
                  "hokitod --help limits exits 0 with the limits", r.stderr)
            check(len(lines) <= 24 and all(len(l) <= 80 for l in lines),
                  "hokitod --help limits fits an 80x24 screen", f"{len(lines)} lines")
        r = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
        check(r.returncode == 0 and "0.1.0" in r.stdout, f"{prog} --version", r.stdout)
        r = subprocess.run([path, "-V"], capture_output=True, text=True, timeout=10)
        check(r.returncode == 0 and "0.1.0" in r.stdout, f"{prog} -V", r.stdout)
        r = subprocess.run([path, "--no-such-flag"], capture_output=True, text=True, timeout=10)
        check(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and
              r.stderr.startswith(prog + ": ") and "--no-such-flag" in r.stderr,
              f"{prog} refuses an unknown flag in one line naming it", r.stderr)
    for page in ("hokitod(8)", "hokito(6)", "hokito-engine(6)"):
        text = open(expect[page]).read()
        name = page.split("(")[0]
        check(text.startswith(".TH " + name.upper()) and ".SH SYNOPSIS" in text
              and ".SH EXAMPLES" in text, f"{page} is a manual page with synopsis and examples")
        if shutil.which("groff"):
            r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", expect[page]],
                               capture_output=True, text=True)
            check(r.returncode == 0 and r.stderr.strip() == "", f"{page} formats cleanly",
                  r.stderr)

    # The unit: hardening, restart, clean stop, and the path of the installed hokitod.
    unit = open(expect["hokitod.service"]).read()
    keys = {}
    for line in unit.splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            keys.setdefault(k.strip(), []).append(v.strip())
    want = {"NoNewPrivileges": "yes", "ProtectSystem": "strict", "StateDirectory": "hokitod",
            "Restart": "on-failure", "DynamicUser": "yes", "KillSignal": "SIGTERM",
            "ProtectHome": "yes", "PrivateTmp": "yes", "RestartPreventExitStatus": "2",
            "ProtectProc": "invisible", "ProcSubset": "pid", "UMask": "0077",
            "MemoryMax": "2G", "TasksMax": "32", "LimitNOFILE": "1100"}
    for k, v in want.items():
        check(keys.get(k, [None])[-1] == v, f"unit: {k}={v}", keys.get(k))
    check("~@privileged" in keys.get("SystemCallFilter", []),
          "unit: SystemCallFilter=~@privileged beside @system-service", keys.get("SystemCallFilter"))
    execstart = keys["ExecStart"][-1]
    check(execstart.split()[0] == os.path.join(prefix, opt["bindir"], "hokitod"),
          "unit: ExecStart runs the installed hokitod", execstart)
    if shutil.which("systemd-analyze"):
        # verify resolves the binary on the real file system: point it at the staged one.
        staged = os.path.join(work, "hokitod.service")
        with open(staged, "w") as f:
            f.write(unit.replace(execstart.split()[0], expect["hokitod"]))
        r = subprocess.run(["systemd-analyze", "verify", staged], capture_output=True,
                           text=True, timeout=60,
                           env=dict(os.environ, MANPATH=os.path.join(root, opt["mandir"])))
        bad = [l for l in r.stderr.splitlines() if "hokitod.service" in l]
        check(not bad, "systemd-analyze verify finds nothing wrong with the unit", r.stderr)

    # The example settings name every flag of hokitod --help with its default.
    env_text = open(expect["hokitod.env"]).read()
    help_text = "".join(subprocess.run([expect["hokitod"], "--help"] + page,
                                       capture_output=True, text=True).stdout
                        for page in ([], ["limits"]))
    flags = set(re.findall(r"--([a-z][a-z-]+)", help_text))
    # --check is a command (it checks the store and exits), not a setting: named in a comment
    # --allow-insecure-passwords takes no value and has no default: an HOKITOD_OPTS flag too.
    for f in sorted({"test-clock", "port-file", "check", "allow-insecure-passwords"} & flags):
        check(("--" + f) in env_text, f"hokitod.env names --{f} (in HOKITOD_OPTS' comment)")
    for f in sorted(flags - {"help", "version", "test-clock", "port-file", "check",
                             "allow-insecure-passwords"}):
        var = "HOKITOD_" + f.upper().replace("-", "_")
        check(("--" + f) in env_text and re.search(rf"^{var}=", env_text, re.M),
              f"hokitod.env names --{f} as {var}")
        m = re.search(r"--" + f + r"\b[^\n]*?\(default ([^)]+)\)", help_text)
        if m and re.match(r"^\d+$", m.group(1)):
            val = re.search(rf"^{var}=(.*)$", env_text, re.M)
            check(val and val.group(1) == m.group(1), f"hokitod.env: --{f} default {m.group(1)}",
                  val.group(1) if val else None)

    # A file the example settings point hokitod at must be writable under the unit: with
    # ProtectSystem=strict that is only its state directory and its runtime directory.
    writable = ["/var/lib/" + d for d in keys.get("StateDirectory", [])] + \
               ["/run/" + d for d in keys.get("RuntimeDirectory", [])]
    for path in re.findall(r"(?:--(?:port-file|db)[ =]|^HOKITOD_DB=)(/\S+)", env_text, re.M):
        check(os.path.dirname(path) in writable,
              f"hokitod.env: {path} is in a directory the unit lets hokitod write", writable)

    # hokitod(8) names the flags of --help with the same defaults; a value just outside the
    # range the manual gives is refused (exit 2, one line naming the flag), and hokitod starts
    # with every flag at the low end of its range, and again at the high end.
    man = open(expect["hokitod(8)"]).read().replace("\\-", "-")
    paras = {}
    mlines = man.splitlines()
    for i, line in enumerate(mlines):
        if i > 0 and mlines[i - 1] == ".TP" and line.startswith(".B"):
            body = []
            for rest in mlines[i + 1:]:
                if rest.startswith((".TP", ".SH", ".PP")):
                    break
                body.append(rest)
            for f in re.findall(r"--([a-z][a-z-]*)", line):
                paras[f] = " ".join(body)
    check(set(paras) == flags, "hokitod(8) and hokitod --help name the same flags",
          sorted(set(paras) ^ flags))

    def num(x):
        return 2 ** int(x[2:]) if x.startswith("2^") else int(x)

    ranges = {}
    for f, body in sorted(paras.items()):
        m = re.search(r"--" + f + r"\b[^\n]*?\(default ([^)]+)\)", help_text)
        d = re.search(r"\(default ([^)]+)\)", body)
        if m and re.match(r"^\d+$", m.group(1)):
            check(d and d.group(1) == m.group(1), f"hokitod(8): --{f} default {m.group(1)}",
                  body)
        r = re.search(r"(\d+|2\^\d+) to (\d+|2\^\d+) \(default", body)
        if r:
            ranges[f] = (num(r.group(1)), num(r.group(2)))
    numeric = set(re.findall(r"--([a-z][a-z-]+) [A-Z]+ \(default \d+\)", help_text))
    check(len(numeric) >= 24 and numeric <= set(ranges),
          "hokitod(8) gives the range of every numeric flag", sorted(numeric - set(ranges)))
    bad_values = [("listen", "localhost:7777"), ("listen", "127.0.0.1:65536"),
                  ("listen", "[::1]"), ("listen", "::1:7777"), ("listen", "[127.0.0.1]:7777"),
                  ("fsync", "sometimes"), ("log-level", "verbose"),
                  ("db", "")]
    for f, (lo, hi) in ranges.items():
        bad_values += [(f, str(hi + 1)), (f, "-1"), (f, "+5"), (f, "5x"), (f, "")]
        if lo > 0:
            bad_values.append((f, str(lo - 1)))
    # the command line itself: one line each, naming the program, what is wrong and where
    for argv, want in ((["--listen"], "hokitod: --listen needs a value"),
                       (["-x"], "hokitod: unknown option '-x'"),
                       (["--test-clock=1"], "hokitod: --test-clock takes no value"),
                       # a flag is written in full: no prefix of one ("--port" is no --port-file)
                       (["--list", "127.0.0.1:0", "x"], "hokitod: unknown option '--list'"),
                       (["--port", "7777", "x"], "hokitod: unknown option '--port'"),
                       (["--vers"], "hokitod: unknown option '--vers'"),
                       (["extra"], "hokitod: unexpected argument 'extra'")):
        r = subprocess.run([expect["hokitod"]] + argv, capture_output=True, text=True,
                           timeout=10)
        check(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and
              r.stderr.startswith(want), f"hokitod {' '.join(argv)}: {want} (exit 2)", r.stderr)
    for f, v in bad_values:
        r = subprocess.run([expect["hokitod"], "--db", ":memory:", "--" + f, v],
                           capture_output=True, text=True, timeout=10)
        lines = r.stderr.splitlines()
        check(r.returncode == 2 and len(lines) == 1 and lines[0].startswith("hokitod: --" + f),
              f"hokitod --{f} '{v}' is refused (exit 2, one line)", r.stderr)
    for end in (0, 1):
        port_file = os.path.join(work, "port")
        if os.path.exists(port_file):
            os.unlink(port_file)
        argv = [expect["hokitod"], "--db", ":memory:", "--listen", "127.0.0.1:0",
                "--port-file", port_file]
        for f, r in ranges.items():
            argv += ["--" + f, str(r[end])]
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        for _ in range(100):
            if os.path.exists(port_file) or proc.poll() is not None:
                break
            time.sleep(0.05)
        up = os.path.exists(port_file)
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = None
        check(up and rc == 0, "hokitod starts with every flag at the %s end of its range"
              % ("low", "high")[end], proc.stderr.read())

    # Start hokitod the way the unit does: its Environment= defaults, then the environment
    # file, expanded as systemd expands ExecStart (${VAR} one word, $VAR split on spaces).
    env = {}
    for e in keys.get("Environment", []):
        for kv in shlex.split(e):
            k, v = kv.split("=", 1)
            env[k] = v
    for line in env_text.splitlines():
        if line and not line.startswith("#") and "=" in line:
            k, v = line.split("=", 1)
            env[k] = v
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env["HOKITOD_LISTEN"] = f"127.0.0.1:{port}"
    env["HOKITOD_DB"] = os.path.join(work, "hokito.db")
    argv = []
    for word in execstart.split():
        m = re.fullmatch(r"\$\{(\w+)\}", word)
        if m:
            argv.append(env.get(m.group(1), ""))
            continue
        m = re.fullmatch(r"\$(\w+)", word)
        if m:
            argv.extend(env.get(m.group(1), "").split())
            continue
        argv.append(word)
    argv[0] = expect["hokitod"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    sock = None
    for _ in range(100):
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            break
        except OSError:
            time.sleep(0.05)
    check(sock is not None, "hokitod started by the unit's command line listens", " ".join(argv))
    if sock is not None:
        f = sock.makefile("rw")
        f.write('{"type":"hello","protocol":1,"name":"admin"}\n')
        f.flush()
        welcome = json.loads(f.readline())
        check(welcome.get("type") == "welcome", "it answers hello", welcome)
        f.write('{"type":"create","kind":"hokito","id":1}\n')
        f.flush()
        state = json.loads(f.readline())
        check(state.get("type") == "state", "it creates a game", state)
        proc.send_signal(signal.SIGTERM)
        bye = json.loads(f.readline() or "{}")
        check(bye.get("type") == "bye" and bye.get("reason") == "shutdown",
              "SIGTERM (the unit's KillSignal): the client is told", bye)
        sock.close()
    try:
        rc = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = None
    err = proc.stderr.read()
    check(rc == 0, "hokitod stops cleanly on SIGTERM (exit 0)", err)
    check(os.path.isfile(env["HOKITOD_DB"]), "the store was created where the unit says", err)
finally:
    shutil.rmtree(stage, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)

print(f"1..{n}")
sys.exit(1 if failed else 0)
