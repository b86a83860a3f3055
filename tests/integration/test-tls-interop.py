#!/usr/bin/env python3
"""The TLS engine (protocol/tls.c) against the openssl command, over loopback: tls-peer (a libuv
peer on the engine) serving `openssl s_client` (TLS 1.3 and 1.2, with and without ALPN, a refused
ALPN), tls-peer connecting to `openssl s_server` (a CA-signed and a self-signed certificate with
trust on first use), and garbage and a stalled handshake on tls-peer's port, which close that
connection and nothing else. Every process runs under a timeout. Prints TAP.
"""
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Tap  # noqa: E402

PEER = os.environ["TLS_PEER"]
CERTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "tls-certs.sh")


class Lines:
    """A process's stdout, line by line, read by a thread so that waits can time out."""

    def __init__(self, proc):
        self.q = queue.Queue()
        threading.Thread(target=self._pump, args=(proc.stdout,), daemon=True).start()

    def _pump(self, f):
        for line in f:
            self.q.put(line.rstrip("\n"))

    def until(self, pred, timeout=10):
        """The first line pred accepts (None after timeout), with the lines before it."""
        seen = []
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.q.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                break
            seen.append(line)
            if pred(line):
                return line, seen
        return None, seen


def s_client(port, *args, stdin="hello\nquit\n"):
    """Run openssl s_client against port with stdin; returns (exit status, stdout)."""
    cmd = ["openssl", "s_client", "-connect", "127.0.0.1:%d" % port, "-quiet"] + list(args)
    try:
        r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=15)
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        return -1, "timeout"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def serve_tests(t, d):
    peer = subprocess.Popen([PEER, "serve", d + "/server.pem", d + "/server.key", "1500"],
                            stdout=subprocess.PIPE, text=True)
    out = Lines(peer)
    try:
        line, _ = out.until(lambda l: l.startswith("port "))
        port = int(line.split()[1])
        ca = ["-CAfile", d + "/ca.pem", "-verify_return_error"]
        named = ["-servername", "localhost", "-verify_hostname", "localhost"]

        rc, text = s_client(port, "-alpn", "hokito/1", *(ca + named))
        opened, _ = out.until(lambda l: l.startswith("open: "))
        closed, _ = out.until(lambda l: l.startswith("closed: "))
        t.ok(rc == 0 and "echo hello" in text and opened == "open: TLSv1.3 alpn=hokito/1"
             and closed == "closed: quit",
             "s_client (TLS 1.3, ALPN hokito/1, verifying localhost) gets its line echoed",
             (rc, text, opened, closed))

        rc, text = s_client(port, "-tls1_2", "-alpn", "hokito/1", *ca)
        opened, _ = out.until(lambda l: l.startswith("open: "))
        out.until(lambda l: l.startswith("closed: "))
        t.ok(rc == 0 and "echo hello" in text and opened == "open: TLSv1.2 alpn=hokito/1",
             "s_client over TLS 1.2", (rc, text, opened))

        rc, text = s_client(port, *ca)
        opened, _ = out.until(lambda l: l.startswith("open: "))
        out.until(lambda l: l.startswith("closed: "))
        t.ok(rc == 0 and "echo hello" in text and opened == "open: TLSv1.3 alpn=",
             "s_client without ALPN is accepted", (rc, text, opened))

        rc, text = s_client(port, "-alpn", "http/1.1", *ca)
        closed, _ = out.until(lambda l: l.startswith("closed: "))
        t.ok(rc != 0 and "echo" not in text and "no application protocol" in text
             and closed == "closed: TLS handshake failed: no application protocol",
             "s_client offering only http/1.1 is refused (no_application_protocol)",
             (rc, text, closed))

        rc, text = s_client(port, "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0", *ca)
        closed, _ = out.until(lambda l: l.startswith("closed: "))
        t.ok(rc != 0 and "echo" not in text and "unsupported protocol" in (closed or ""),
             "s_client limited to TLS 1.1 is refused", (rc, text, closed))

        # Plain JSON on the TLS port: that connection is closed with the engine's sentence.
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b'{"type":"hello","protocol":1,"name":"plain"}\n')
        got, start = b"", time.monotonic()
        try:
            while True:
                b = s.recv(4096)
                if not b:
                    break
                got += b
        except OSError:
            pass
        s.close()
        closed, _ = out.until(lambda l: l.startswith("closed: "))
        t.ok(time.monotonic() - start < 3 and b"welcome" not in got
             and "TLS handshake failed: wrong version number" in (closed or ""),
             "plain JSON on the TLS port: that connection is closed at once", (got, closed))

        # A stalled handshake (half a ClientHello, then silence) waits for the deadline, and
        # the port serves others meanwhile.
        stalled = socket.create_connection(("127.0.0.1", port), timeout=5)
        stalled.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
        start = time.monotonic()
        rc, text = s_client(port, *ca)
        t.ok(rc == 0 and "echo hello" in text, "another client is served meanwhile", text)
        try:
            end = stalled.recv(4096)
        except OSError:
            end = b""
        waited = time.monotonic() - start
        stalled.close()
        lines = out.until(lambda l: l == "closed: deadline")[1]
        t.ok(end == b"" and 1.0 <= waited < 5 and "closed: deadline" in lines,
             "the stalled handshake is closed by the caller's deadline (1.5 s)", (waited, lines))
        t.ok(peer.poll() is None, "tls-peer is still serving")
    finally:
        peer.kill()
        peer.wait()


def connect(port, *args):
    """Run tls-peer connect; returns (exit status, stdout)."""
    try:
        r = subprocess.run([PEER, "connect", "localhost", str(port)] + list(args),
                           capture_output=True, text=True, timeout=15)
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        return -1, "timeout"


def s_server(d, name, port):
    """openssl s_server on port with certificate name, its stdin a pipe; waits for ACCEPT."""
    p = subprocess.Popen(["openssl", "s_server", "-accept", "127.0.0.1:%d" % port,
                          "-cert", "%s/%s.pem" % (d, name), "-key", "%s/%s.key" % (d, name),
                          "-alpn", "hokito/1"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    out = Lines(p)
    out.until(lambda l: l == "ACCEPT")
    return p, out


def connect_tests(t, d):
    port = free_port()
    srv, out = s_server(d, "server", port)
    try:
        result = {}
        th = threading.Thread(target=lambda: result.update(r=connect(
            port, "--ca", d + "/ca.pem", "--send", "hi from hokito", "--lines", "1")))
        th.start()
        line, seen = out.until(lambda l: l == "hi from hokito")
        srv.stdin.write("welcome\n")
        srv.stdin.flush()
        th.join(20)
        rc, text = result.get("r", (-1, "no result"))
        t.ok(line is not None and rc == 0 and "welcome" in text.splitlines(),
             "tls-peer verifies s_server (test CA, localhost) and lines go both ways",
             (seen, rc, text))
        rc, text = connect(port, "--lines", "0")
        t.ok(rc == 1 and "error: the certificate of localhost:%d failed verification: "
             "unable to get local issuer certificate" % port in text,
             "without --ca the system store refuses the test CA", text)
    finally:
        srv.kill()
        srv.wait()

    port = free_port()
    srv, out = s_server(d, "self", port)
    pins = os.path.join(d, "known_hosts")
    try:
        rc, text = connect(port, "--ca", d + "/ca.pem", "--pins", pins, "--lines", "0")
        t.ok(rc == 3 and "ask: the certificate of localhost:%d is not verified "
             "(self-signed certificate). Its fingerprint is sha256 Fingerprint=" % port in text
             and not os.path.exists(pins),
             "a self-signed s_server: the fingerprint is shown and nothing is pinned", text)
        rc, text = connect(port, "--ca", d + "/ca.pem", "--pins", pins, "--accept-new",
                           "--lines", "0")
        mode = os.stat(pins).st_mode & 0o777 if os.path.exists(pins) else None
        t.ok(rc == 0 and mode == 0o600, "--accept-new pins it in a file of mode 0600",
             (rc, text, mode))
        rc, text = connect(port, "--ca", d + "/ca.pem", "--pins", pins, "--lines", "0")
        t.ok(rc == 0 and "ask" not in text, "pinned: accepted without a question", text)
    finally:
        srv.kill()
        srv.wait()
    srv, out = s_server(d, "self2", port)
    try:
        rc, text = connect(port, "--ca", d + "/ca.pem", "--pins", pins, "--accept-new",
                           "--lines", "0")
        t.ok(rc == 1 and "HAS CHANGED" in text and "delete line 1 of " + pins in text,
             "a changed certificate is refused, even with --accept-new", text)
    finally:
        srv.kill()
        srv.wait()


def main():
    t = Tap()
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["bash", CERTS, "--make", d], check=True, timeout=60)
        t.run("serving s_client", serve_tests, t, d)
        t.run("connecting to s_server", connect_tests, t, d)
    t.done()


main()
