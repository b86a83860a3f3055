#!/usr/bin/env python3
"""web.py: hokitod's WebSocket side (--listen-http) against its TCP side, and the HTTP API's cost
to the TCP players.

    python3 tests/bench/web.py [--rounds 3] [--seconds 5] [--spectators 1000] [--pairs 50]
                               [--idle 1000] [--http-clients 50] [--only NAME,...]

Builds the release tree of tests/bench/release.sh (build-load; or takes $HOKITOD and $LOADGEN),
then, in one run, each figure in --rounds rounds (the median is printed, each round's line too),
the TCP and WebSocket sides alternating within a round, against one hokitod on loopback ports
the OS picks, with a store on a temporary directory and the per-address limits lifted (the
load comes from 127.0.0.1):

- spectators: one live game (its pair playing as fast as the server answers) watched by
  --spectators spectators over TCP, then over /ws: move events delivered a second (target: ws
  at 0.8 of tcp or more).
- idle: --idle connections that say hello and hold still, over TCP then /ws, each side on a
  fresh hokitod of its own: the server's RSS growth per connection.
- moves: --pairs pairs of players over TCP, then over /ws: moves a second (target: 0.7).
- api: one TCP connection sending ping after ping, alone (its p99 round trip), then while
  --http-clients HTTP connections loop GET /api/game/ID (a finished game's record, a store
  read off the loop) and GET /metrics (target: within 2x of the quiet p99): first as fast as
  they are answered, then each pausing 50 ms after each answer (the 20 requests a second of
  the default --max-http-rate-per-addr).

The load generator is tests/bench/loadgen (one thread, libuv); its CPU and the server's are in
each line (lg_cpu, srv_cpu: seconds of CPU a second). Loopback only; every wait is bounded.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
UNLIMITED = ["--max-conns-per-addr", "0", "--max-rate-per-addr", "0", "--max-creates-per-addr",
             "0", "--max-games-per-addr", "0", "--max-lookup-failures", "0",
             "--max-sessions-per-addr", "0", "--max-http-rate-per-addr", "0",
             "--max-reads-per-addr", "0"]


def release():
    """The release programs: release.sh's bench_release, run from the top of the tree."""
    out = subprocess.run(["bash", "-c", ". tests/bench/release.sh && bench_release && "
                          "echo \"$hokitod\" && echo \"$loadgen\""], cwd=TOP, check=True,
                         capture_output=True, text=True, timeout=1200).stdout.split("\n")
    return out[0], out[1]


class Hokitod:
    def __init__(self, hokitod, tmp, clients):
        self.port_file = os.path.join(tmp, "port")
        self.log = open(os.path.join(tmp, "hokitod.log"), "a")
        self.proc = subprocess.Popen(
            [hokitod, "--listen", "127.0.0.1:0", "--listen-http", "127.0.0.1:0",
             "--db", os.path.join(tmp, "store.db"), "--port-file", self.port_file,
             "--max-clients", str(clients), "--log-level", "warn"] + UNLIMITED,
            stdout=subprocess.DEVNULL, stderr=self.log, stdin=subprocess.DEVNULL)
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                ports = [int(x) for x in open(self.port_file).read().split()]
                if len(ports) == 2:
                    self.tcp, self.http = ports
                    return
            except (OSError, ValueError):
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise SystemExit("web.py: hokitod did not start (see %s)" % self.log.name)

    def stop(self):
        if self.proc.poll() is not None:
            self.log.flush()
            with open(self.log.name) as f:
                sys.stderr.write("web.py: hokitod exited early (%d):\n%s" % (
                    self.proc.returncode, f.read()[-3000:]))
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.unlink(self.port_file)


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


def loadgen(lg, args, timeout):
    r = subprocess.run([lg] + args, capture_output=True, text=True, timeout=timeout)
    line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    if r.returncode not in (0, 3) or not line:
        sys.stderr.write("web.py: loadgen %s failed (%d): %s\n" % (" ".join(args),
                                                                  r.returncode, r.stderr[-600:]))
        return None
    print("  " + line, flush=True)
    time.sleep(1)  # the server closes the connections of this run before the next one
    return fields(line)


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float("nan")


def bench_spectators(lg, srv, a, out):
    for side in ("tcp", "ws"):
        f = loadgen(lg, ["spectate", "--port", str(srv.http if side == "ws" else srv.tcp),
                         "--spectators", str(a.spectators), "--seconds", str(a.seconds),
                         "--pid", str(srv.proc.pid), "--label", "spect-" + side] +
                    (["--ws"] if side == "ws" else []), 120 + a.seconds)
        out.setdefault("spect-" + side, []).append(float(f["dlv_per_s"]) if f else None)


def bench_idle(lg, srv, a, out):
    """On a hokitod of its own, fresh: what the others left in its heap is not in the figure."""
    for side in ("tcp", "ws"):
        tmp = tempfile.mkdtemp(prefix="hokito-bench-idle-")
        own = Hokitod(a.hokitod, tmp, a.idle + 64)
        try:
            time.sleep(0.5)
            f = loadgen(lg, ["idle", "--port", str(own.http if side == "ws" else own.tcp),
                             "--conns", str(a.idle), "--seconds", "2", "--pid",
                             str(own.proc.pid), "--label", "idle-" + side] +
                        (["--ws"] if side == "ws" else []), 120)
        finally:
            own.stop()
            shutil.rmtree(tmp, ignore_errors=True)
        out.setdefault("idle-" + side, []).append(float(f["per_conn_bytes"]) if f else None)


def bench_moves(lg, srv, a, out):
    for side in ("tcp", "ws"):
        f = loadgen(lg, ["hokito", "--port", str(srv.http if side == "ws" else srv.tcp),
                         "--conns", str(2 * a.pairs), "--seconds", str(a.seconds), "--pid",
                         str(srv.proc.pid), "--label", "moves-" + side] +
                    (["--ws"] if side == "ws" else []), 120 + a.seconds)
        out.setdefault("moves-" + side, []).append(float(f["moves_per_s"]) if f else None)


def bench_api(lg, srv, a, out):
    """A pinging TCP client alone, then beside --http-clients looping the API and /metrics:
    as fast as they are answered, then each at the default --max-http-rate-per-addr (20 a
    second: a pause of 50 ms after each answer)."""
    ping = ["ping", "--port", str(srv.tcp), "--conns", "1", "--seconds", str(a.seconds)]
    f = loadgen(lg, ping + ["--label", "ping-quiet"], 60 + a.seconds)
    out.setdefault("ping-quiet", []).append(float(f["rtt_p99_us"]) if f else None)
    game = "g1"  # the moves round's first game: finished, in the store
    for pace, think in (("", []), ("-paced", ["--think", "50"])):
        http = subprocess.Popen(
            [lg, "http", "--port", str(srv.http), "--conns", str(a.http_clients),
             "--seconds", str(a.seconds + 2), "--path", "/api/game/" + game, "--path",
             "/metrics", "--label", "http-load" + pace] + think,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1)  # the HTTP clients are set up and looping
        f = loadgen(lg, ping + ["--label", "ping-loaded" + pace], 60 + a.seconds)
        out.setdefault("ping-loaded" + pace, []).append(float(f["rtt_p99_us"]) if f else None)
        so, se = http.communicate(timeout=60 + a.seconds)
        if so.strip():
            print("  " + so.strip().splitlines()[-1], flush=True)
            out.setdefault("http-req" + pace, []).append(float(fields(so)["req_per_s"]))
        else:
            sys.stderr.write("web.py: the HTTP load failed: %s\n" % se[-600:])
        time.sleep(1)


BENCHES = {"moves": bench_moves, "spectators": bench_spectators, "idle": bench_idle,
           "api": bench_api}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--spectators", type=int, default=1000)
    ap.add_argument("--pairs", type=int, default=50)
    ap.add_argument("--idle", type=int, default=1000)
    ap.add_argument("--http-clients", type=int, default=50)
    ap.add_argument("--only", default=",".join(BENCHES))
    a = ap.parse_args()
    only = a.only.split(",")
    hokitod, lg = release()
    a.hokitod = hokitod
    clients = max(a.spectators, a.idle, 2 * a.pairs, a.http_clients) + 64
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 2 * clients + 256), hard))
    tmp = tempfile.mkdtemp(prefix="hokito-bench-web-")
    srv = Hokitod(hokitod, tmp, clients)
    out = {}
    try:
        for r in range(a.rounds):
            print("round %d" % (r + 1), flush=True)
            for name in BENCHES:  # moves first: it leaves finished games for the API's reads
                if name in only:
                    BENCHES[name](lg, srv, a, out)
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print("medians of %d rounds:" % a.rounds)

    def ratio(name, num, den, target, fmt, higher=True):
        n, d = median(out.get(num, [])), median(out.get(den, []))
        if d == d and n == n and d:
            r = n / d
            ok = r >= target if higher else r <= target
            print("  %s: %s  ratio %.2f (target %s %.1f: %s)" % (
                name, fmt % (n, d), r, ">=" if higher else "<=", target,
                "met" if ok else "MISSED"))
    ratio("spectators deliveries/s", "spect-ws", "spect-tcp", 0.8, "ws %.0f, tcp %.0f")
    ratio("moves/s of %d pairs" % a.pairs, "moves-ws", "moves-tcp", 0.7, "ws %.0f, tcp %.0f")
    ratio("ping p99 beside the API, clients unpaced", "ping-loaded", "ping-quiet", 2.0,
          "loaded %.0f us, quiet %.0f us", higher=False)
    ratio("ping p99 beside the API, clients at 20/s each", "ping-loaded-paced", "ping-quiet",
          2.0, "loaded %.0f us, quiet %.0f us", higher=False)
    if "idle-ws" in out:
        print("  idle connection RSS: ws %.0f bytes, tcp %.0f bytes" % (
            median(out["idle-ws"]), median(out.get("idle-tcp", []))))
    for pace in ("", "-paced"):
        if "http-req" + pace in out:
            print("  HTTP requests a second meanwhile%s: %.0f" % (
                pace and " (paced)", median(out["http-req" + pace])))


main()
