#!/usr/bin/env python3
"""web.py: what one idle connection costs hokitod, over TCP and over /ws (--listen-http).

    python3 tests/bench/web.py [--hokitod build/server/hokitod] [--conns 1000]

Starts hokitod on loopback ports the OS picks (":memory:" store), opens --conns connections of
one kind that each say hello and then hold still, and prints the server's RSS growth per
connection (VmRSS from /proc before and after, once the last welcome is read), for TCP and then
for WebSocket. One line of key=value figures per kind. Loopback only; every wait is bounded.
"""
import argparse
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from serverlib import Client  # noqa: E402
from wslib import WSClient  # noqa: E402


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def run(hokitod, kind, n):
    port_file = "/tmp/hokito-bench-web-%d" % os.getpid()
    p = subprocess.Popen([hokitod, "--listen", "127.0.0.1:0", "--listen-http", "127.0.0.1:0",
                          "--db", ":memory:", "--port-file", port_file, "--max-clients",
                          str(n + 16), "--max-conns-per-addr", "0", "--max-sessions-per-addr",
                          "0", "--max-rate-per-addr", "0", "--log-level", "warn"],
                         stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            ports = [int(x) for x in open(port_file).read().split()]
            if len(ports) == 2:
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    try:
        time.sleep(0.3)
        before = rss_kb(p.pid)
        conns = []
        for i in range(n):
            if kind == "tcp":
                c = Client("127.0.0.1", ports[0])
            else:
                c = WSClient("127.0.0.1", ports[1])
            c.hello("idle%d" % i)
            conns.append(c)
        time.sleep(0.5)
        after = rss_kb(p.pid)
        print("kind=%s conns=%d rss_before_kb=%d rss_after_kb=%d per_conn_bytes=%d" %
              (kind, n, before, after, (after - before) * 1024 // n), flush=True)
        for c in conns:
            c.close()
    finally:
        p.terminate()
        p.wait(10)
        os.unlink(port_file)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hokitod", default=os.environ.get("HOKITOD", "build/server/hokitod"))
    ap.add_argument("--conns", type=int, default=1000)
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 2 * a.conns + 256), hard))
    for kind in ("tcp", "ws"):
        run(a.hokitod, kind, a.conns)


main()
