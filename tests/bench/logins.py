#!/usr/bin/env python3
"""logins.py: 50 honest players playing while a storm of password logins arrives.

    python3 tests/bench/logins.py --hokitod PATH --loadgen PATH [--seconds S] [--rounds R]
        [--rate N] [--storm-addrs N] [--wrong F] [--server-args "FLAGS"] [--single N]

(tests/bench/logins.sh builds the release programs and calls this.)

Each round starts a fresh hokitod on 127.0.0.1 (a store in a temporary directory) and registers
--accounts accounts. Then twice for --seconds: quiet, and during the storm.
- The honest players: `loadgen hokito --conns 50 --bind 127.0.1.1` (each connection from an
  address of its own), playing as fast as the server answers: moves/s, round trip p50/p99/max.
- The loop's stall: a process of its own (this file with --pinger) on 127.0.4.1 says hello and
  sends a ping every 5 ms on an otherwise idle connection; the longest ping round trip is the
  longest the loop thread kept it waiting (it includes the scheduling of two busy processes on
  a shared machine, so it bounds the stall from above).
- The storm: --rate logins a second (default 100), each on a new connection from one of
  --storm-addrs addresses 127.0.3.x in turn (default 100; 1 shows the per-address limits at
  work), a hello with an account's name and its password (a wrong one for a --wrong fraction),
  then close. Argon2id runs on the server's password threads (server/workers/hasher.c: the cores less
  one, at the lowest priority), at most 32 jobs out; a login past them is refused with
  login_throttled. Outcomes are counted by reply.
Nothing here fails a build: it is a measurement. Every loop is bounded in count and in time,
everything runs on loopback addresses and is stopped on exit.
"""
import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HONEST_FIRST = "127.0.1.1"
PINGER = "127.0.4.1"
PASSWORD = "storm-password-%02d"


def pct(values, p):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * p))]


class Server:
    """A hokitod on 127.0.0.1 with its own store and log, stopped by stop()."""

    def __init__(self, hokitod, args):
        self.tmp = tempfile.mkdtemp(prefix="hokito-logins-")
        port_file = os.path.join(self.tmp, "port")
        self.log = open(os.path.join(self.tmp, "log"), "wb")
        self.proc = subprocess.Popen(
            [hokitod, "--listen", "127.0.0.1:0", "--port-file", port_file, "--db",
             os.path.join(self.tmp, "hokito.db"), "--log-level", "warn",
             # the accounts of the storm are registered from one address beforehand
             "--max-accounts-per-addr", "0", "--max-accounts-per-addr-day", "0"] + args,
            stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.time() + 20
        self.port = None
        while time.time() < deadline and self.proc.poll() is None and self.port is None:
            try:
                with open(port_file) as f:
                    self.port = int(f.read())
            except (OSError, ValueError):
                time.sleep(0.05)
        if self.port is None:
            self.stop()
            raise RuntimeError("hokitod did not start")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def ask(sock, buf, obj):
    """Send obj, return (reply, rest of the buffer): the first line with its id."""
    sock.sendall((json.dumps(obj) + "\n").encode())
    while True:
        while b"\n" not in buf:
            data = sock.recv(65536)
            if not data:
                raise ConnectionError("closed")
            buf += data
        line, buf = buf.split(b"\n", 1)
        m = json.loads(line)
        if m.get("id") == obj.get("id"):
            return m, buf


def register(port, n):
    """Accounts storm00..stormNN, each on a connection of its own (retried while the server's
    password jobs are all taken)."""
    for i in range(n):
        for _ in range(200):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            m, _ = ask(s, b"", {"type": "register", "name": "storm%02d" % i,
                                "password": PASSWORD % i, "id": 1})
            s.close()
            if m.get("type") == "welcome":
                break
            if m.get("code") != "login_throttled":
                raise RuntimeError("register: %s" % m)
            time.sleep(0.05)
        else:
            raise RuntimeError("register: the server stayed busy")


def single(args):
    """--single N: a quiet server's login latency, no players and no storm: per round a fresh
    server, one account, then N logins one after the other, each on a new connection, from the
    connect to the welcome."""
    for rnd in range(args.rounds):
        srv = Server(args.hokitod, args.server_args.split())
        try:
            register(srv.port, 1)
            ms = []
            for _ in range(args.single):
                t0 = time.perf_counter()
                s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
                m, _ = ask(s, b"", {"type": "hello", "protocol": 1, "name": "storm00",
                                    "password": PASSWORD % 0, "id": 1})
                s.close()
                if m.get("type") != "welcome":
                    raise RuntimeError("login: %s" % m)
                ms.append((time.perf_counter() - t0) * 1000)
        finally:
            srv.stop()
        print("round %d: %d logins on a quiet server, p50 %.1f ms, p90 %.1f ms, max %.1f ms" % (
            rnd + 1, len(ms), pct(ms, 0.5), pct(ms, 0.9), max(ms)), flush=True)


def pinger(port, seconds):
    """--pinger: ping every 5 ms for seconds; print the round trips' figures (key=value)."""
    s = socket.socket()
    s.bind((PINGER, 0))
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    buf = b""
    _, buf = ask(s, buf, {"type": "hello", "protocol": 1, "name": "pinger", "id": 0})
    rtts, t_end, i = [], time.time() + seconds, 0
    while time.time() < t_end and i < 100000:
        i += 1
        t0 = time.perf_counter()
        _, buf = ask(s, buf, {"type": "ping", "id": i})
        rtts.append((time.perf_counter() - t0) * 1e6)
        time.sleep(0.005)
    s.close()
    print("pings=%d ping_p50_us=%.0f ping_p99_us=%.0f ping_max_us=%.0f" % (
        len(rtts), pct(rtts, 0.5), pct(rtts, 0.99), max(rtts) if rtts else float("nan")))


async def one_login(port, src, name, password, outcomes, latencies):
    t0 = time.perf_counter()
    writer = None
    try:
        sock = socket.socket()
        sock.setblocking(False)
        sock.bind((src, 0))
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
        reader, writer = await asyncio.open_connection(sock=sock)
        writer.write((json.dumps({"type": "hello", "protocol": 1, "name": name,
                                  "password": password, "id": 1}) + "\n").encode())
        line = await asyncio.wait_for(reader.readline(), 30)
        m = json.loads(line) if line else {"type": "closed"}
        key = "accepted" if m.get("type") == "welcome" else m.get("code", m.get("type"))
    except (OSError, asyncio.TimeoutError, ValueError) as e:
        key = type(e).__name__
    finally:
        if writer is not None:
            writer.close()
    outcomes[key] = outcomes.get(key, 0) + 1
    if key == "accepted":
        latencies.append((time.perf_counter() - t0) * 1e3)


async def storm(args, port):
    """--rate logins a second for --seconds, at most 2000 under way; returns the outcomes."""
    outcomes, latencies, tasks = {}, [], set()
    n = int(args.rate * args.seconds)
    t0 = time.perf_counter()
    for i in range(n):
        wait = t0 + i / args.rate - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        if len(tasks) >= 2000:
            outcomes["not_sent"] = outcomes.get("not_sent", 0) + 1
            continue
        a = i % args.accounts
        pw = PASSWORD % a if (i * 7919 % 1000) >= args.wrong * 1000 else "a-wrong-password"
        src = "127.0.3.%d" % (1 + i % args.storm_addrs)
        t = asyncio.ensure_future(one_login(port, src, "storm%02d" % a, pw, outcomes,
                                            latencies))
        tasks.add(t)
        t.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.wait(tasks, timeout=40)
    outcomes["sent_per_s"] = round(n / (time.perf_counter() - t0), 1)
    outcomes["login_p50_ms"] = round(pct(latencies, 0.5), 1)
    outcomes["login_p99_ms"] = round(pct(latencies, 0.99), 1)
    return outcomes


def figures(text):
    return dict(kv.split("=", 1) for kv in text.split() if "=" in kv)


def phase(args, srv, label, with_storm):
    """The honest players and the pinger for --seconds, with or without the storm."""
    honest = subprocess.Popen(
        [args.loadgen, "hokito", "--port", str(srv.port), "--bind", HONEST_FIRST, "--conns",
         "50", "--seconds", str(args.seconds), "--pid", str(srv.proc.pid), "--setup-timeout",
         "15", "--label", label], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)  # the players set up (50 connections, hello, pairing) before the storm
    ping = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--pinger",
                             str(srv.port), str(args.seconds - 0.5)],
                            stdout=subprocess.PIPE, text=True)
    out = asyncio.run(storm(args, srv.port)) if with_storm else {}
    h_out, h_err = honest.communicate(timeout=args.seconds + 60)
    p_out, _ = ping.communicate(timeout=args.seconds + 30)
    r = figures(h_out)
    r.update(figures(p_out))
    r["honest_rc"] = honest.returncode
    if honest.returncode not in (0,):
        r["honest_err"] = h_err.strip().splitlines()[:2]
    r["storm"] = out
    return r


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--pinger":
        pinger(int(sys.argv[2]), float(sys.argv[3]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hokitod", required=True)
    ap.add_argument("--loadgen", required=True)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rate", type=float, default=100)
    ap.add_argument("--accounts", type=int, default=20)
    ap.add_argument("--storm-addrs", type=int, default=100)
    ap.add_argument("--wrong", type=float, default=0.1)
    ap.add_argument("--single", type=int, default=0,
                    help="only measure N logins one after the other on a quiet server")
    ap.add_argument("--server-args", default="--max-rate-per-addr 1000 --max-creates-per-addr 2000",
                    help="more hokitod flags: the honest players are programs that play as fast "
                         "as the server answers, which the per-address request rate would slow")
    args = ap.parse_args()
    if not (1 <= args.storm_addrs <= 250 and 1 <= args.accounts <= 100 and
            0 < args.rate <= 2000 and 1 <= args.seconds <= 600 and 1 <= args.rounds <= 20):
        sys.exit("logins.py: --storm-addrs 1..250, --accounts 1..100, --rate up to 2000, "
                 "--seconds 1..600, --rounds 1..20")
    if args.single:
        if not 1 <= args.single <= 1000:
            sys.exit("logins.py: --single 1..1000")
        single(args)
        return
    print("storm: %g logins/s from %d address(es), %d accounts, %.0f%% wrong passwords; "
          "%d rounds of %gs quiet and %gs storm; server flags: %s" % (
              args.rate, args.storm_addrs, args.accounts, args.wrong * 100, args.rounds,
              args.seconds, args.seconds, args.server_args), flush=True)
    rows = []
    for rnd in range(args.rounds):
        srv = Server(args.hokitod, args.server_args.split())
        try:
            register(srv.port, args.accounts)
            quiet = phase(args, srv, "quiet", False)
            stormy = phase(args, srv, "storm", True)
            alive = srv.proc.poll() is None
        finally:
            srv.stop()
        rows.append((quiet, stormy))
        print("round %d: quiet %s moves/s p50 %s p99 %s us, ping max %s us | storm %s moves/s "
              "p50 %s p99 %s us, ping p99 %s max %s us | logins %s | server %s" % (
                  rnd + 1, quiet.get("moves_per_s"), quiet.get("rtt_p50_us"),
                  quiet.get("rtt_p99_us"), quiet.get("ping_max_us"), stormy.get("moves_per_s"),
                  stormy.get("rtt_p50_us"), stormy.get("rtt_p99_us"), stormy.get("ping_p99_us"),
                  stormy.get("ping_max_us"), json.dumps(stormy["storm"], sort_keys=True),
                  "up" if alive else "DOWN"), flush=True)

    def med(side, key):
        return statistics.median(float(r[side].get(key, "nan")) for r in
                                 ({"q": q, "s": s} for q, s in rows))

    def med_ratio(key):
        """The median of the rounds' storm / quiet ratios (as attacks.py's tables): the machine's
        load drifts between rounds more than within one."""
        return statistics.median(float(s.get(key, "nan")) / float(q[key]) if q.get(key) else
                                 float("nan") for q, s in rows)

    print()
    print("%-22s %12s %12s %7s %7s" % ("median of %d rounds" % len(rows), "quiet", "storm",
                                      "ratio", "ratios"))
    for key, label in (("moves_per_s", "moves/s"), ("rtt_p50_us", "move rtt p50 us"),
                       ("rtt_p99_us", "move rtt p99 us"), ("rtt_max_us", "move rtt max us"),
                       ("ping_p50_us", "ping p50 us"), ("ping_p99_us", "ping p99 us"),
                       ("ping_max_us", "ping max us (stall)")):
        q, s = med("q", key), med("s", key)
        print("%-22s %12.0f %12.0f %7.2f %7.2f" % (label, q, s, s / q if q else float("nan"),
                                                  med_ratio(key)))
    keys = sorted({k for _, s in rows for k in s["storm"]})
    print("logins (median): " + ", ".join(
        "%s %g" % (k, statistics.median(float(s["storm"].get(k, 0)) for _, s in rows))
        for k in keys))


if __name__ == "__main__":
    main()
