"""wslib: a small WebSocket client (RFC 6455) over a raw socket, and an HTTP/1.1 GET, for the tests
of hokitod's HTTP side (Python 3 standard library only).

It speaks the handshake and the framing itself, so that a test can also send what no library
would: binary frames, fragments, bad UTF-8, lengths past the limit, frames without a mask. Every
wait is bounded.
"""
import base64
import hashlib
import json
import os
import socket
import struct
import time

from serverlib import Conversation

TIMEOUT = 10.0
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0, 1, 2, 8, 9, 10


class Refused(Exception):
    """The server did not upgrade: .status is its HTTP status (0: it closed without one)."""

    def __init__(self, status, head):
        super().__init__("upgrade refused: %r" % head[:200])
        self.status = status
        self.head = head


class Closed(Exception):
    """The server closed: .code and .reason of its close frame (None: no close frame)."""

    def __init__(self, code, reason):
        super().__init__("closed: %r %r" % (code, reason))
        self.code = code
        self.reason = reason


def http_get(host, port, path, headers=None, method="GET", body=None):
    """One request on a new connection. Returns (status, headers dict lowercased, body bytes)."""
    s = socket.create_connection((host, port), timeout=TIMEOUT)
    h = {"Host": "%s:%d" % (host, port), "Connection": "close"}
    h.update(headers or {})
    if body is not None:
        h["Content-Length"] = str(len(body))
    req = "%s %s HTTP/1.1\r\n" % (method, path) + "".join(
        "%s: %s\r\n" % kv for kv in h.items()) + "\r\n"
    s.sendall(req.encode() + (body or b""))
    data = b""
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        data += chunk
        head, sep, rest = data.partition(b"\r\n\r\n")
        if sep:
            hd = _headers(head)
            if method == "HEAD" or ("content-length" in hd and
                                    len(rest) >= int(hd["content-length"])):
                break
    s.close()
    head, _, rest = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
    return status, _headers(head), rest


def _headers(head):
    out = {}
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.decode("latin-1").partition(":")
        out[k.strip().lower()] = v.strip()
    return out


class WS:
    """A WebSocket connection to ws://host:port/path; messages are text frames of JSON."""

    def __init__(self, host, port, path="/ws", origin=None, src=None, sock=None,
                 headers=None):
        if sock is None:
            fam = socket.AF_INET6 if ":" in host else socket.AF_INET
            sock = socket.socket(fam, socket.SOCK_STREAM)
            if src:
                sock.bind((src, 0))
            sock.settimeout(TIMEOUT)
            sock.connect((host, port))
        self.sock = sock
        self.buf = b""
        self.messages = []       # whole messages read ahead
        self.close_code = None
        key = base64.b64encode(os.urandom(16)).decode()
        hostport = "[%s]:%d" % (host, port) if ":" in host else "%s:%d" % (host, port)
        req = ("GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n" % (path, hostport, key))
        if origin:
            req += "Origin: %s\r\n" % origin
        for k, v in (headers or {}).items():
            req += "%s: %s\r\n" % (k, v)
        self.sock.sendall((req + "\r\n").encode())
        head = b""
        deadline = time.time() + TIMEOUT
        while b"\r\n\r\n" not in head and time.time() < deadline:
            try:
                chunk = self.sock.recv(4096)
            except (socket.timeout, ConnectionResetError):
                chunk = b""
            if not chunk:
                break
            head += chunk
        head, _, rest = head.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
        if status != 101:
            self.sock.close()
            raise Refused(status, head)
        accept = base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()
        if _headers(head).get("sec-websocket-accept") != accept:
            raise Refused(status, head)
        self.buf = rest

    def send_frame(self, opcode, payload, fin=True, mask=True, length=None):
        """One frame; length: a length to announce other than the payload's (a lie)."""
        n = len(payload) if length is None else length
        b0 = (0x80 if fin else 0) | opcode
        m = 0x80 if mask else 0
        if n < 126:
            head = struct.pack("!BB", b0, m | n)
        elif n < 65536:
            head = struct.pack("!BBH", b0, m | 126, n)
        else:
            head = struct.pack("!BBQ", b0, m | 127, n)
        if mask:
            k = os.urandom(4)
            head += k
            payload = bytes(c ^ k[i % 4] for i, c in enumerate(payload))
        self.sock.sendall(head + payload)

    def send_text(self, text):
        self.send_frame(OP_TEXT, text.encode() if isinstance(text, str) else text)

    def send(self, obj):
        self.send_text(json.dumps(obj))

    def _read(self, n, deadline):
        while len(self.buf) < n:
            if time.time() > deadline:
                raise TimeoutError("no frame in time")
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                raise Closed(self.close_code, None)
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv_frame(self, timeout=TIMEOUT):
        """(fin, opcode, payload) of the next frame."""
        deadline = time.time() + timeout
        b0, b1 = self._read(2, deadline)
        n = b1 & 0x7f
        if n == 126:
            n = struct.unpack("!H", self._read(2, deadline))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._read(8, deadline))[0]
        if b1 & 0x80:
            raise AssertionError("the server masked a frame")
        return bool(b0 & 0x80), b0 & 0x0f, self._read(n, deadline)

    def recv_text(self, timeout=TIMEOUT):
        """The next whole text message (bytes), answering pings; Closed at a close frame."""
        parts = []
        while True:
            fin, op, payload = self.recv_frame(timeout)
            if op == OP_PING:
                self.send_frame(OP_PONG, payload)
                continue
            if op == OP_CLOSE:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                self.close_code = code
                try:
                    self.send_frame(OP_CLOSE, payload[:2])
                except OSError:
                    pass
                raise Closed(code, payload[2:].decode("utf-8", "replace"))
            parts.append(payload)
            if fin:
                return b"".join(parts)

    def recv(self, timeout=TIMEOUT):
        return json.loads(self.recv_text(timeout))

    def wait_for(self, type_, timeout=TIMEOUT):
        """The next message of type type_ (others are kept, in order, for recv_any())."""
        deadline = time.time() + timeout
        while True:
            m = self.recv(max(0.05, deadline - time.time()))
            if m.get("type") == type_:
                return m
            self.messages.append(m)

    def expect_close(self, timeout=TIMEOUT):
        """Read until the close frame: returns (code, the messages before it)."""
        seen = []
        deadline = time.time() + timeout
        try:
            while True:
                seen.append(self.recv_text(max(0.05, deadline - time.time())))
        except Closed as e:
            return e.code, seen

    def close(self):
        try:
            self.send_frame(OP_CLOSE, struct.pack("!H", 1000))
        except OSError:
            pass
        self.sock.close()


class WSClient(Conversation, WS):
    """A protocol client over /ws with serverlib.Client's interface (serverlib.Conversation):
    every message a text frame, each raw payload kept in .lines (the bytes a TCP client reads,
    without the '\\n')."""

    WAIT_FLOOR = 0.05

    def __init__(self, host, port, **kw):
        WS.__init__(self, host, port, **kw)
        Conversation.__init__(self)

    def recv_line(self, timeout=TIMEOUT):
        line = self.recv_text(timeout)
        self.lines.append(line)
        return line
