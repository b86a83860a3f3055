#!/usr/bin/env python3
"""hokitod refusals and limits: every error code of the protocol for bad input (each refusal is an
error with a stable code, never a disconnect, never a change to a game); framing (several lines in
one segment, a line split byte by byte inside a UTF-8 character, CRLF, blank lines); a line over the
limit; a client that never reads; too many clients; the hello deadline; SIGTERM shutdown that tells
every client. Prints TAP.
"""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap, move_once, movers, play_opening, run_on_server  # noqa: E402


def err(t, c, req, code, name, field=None):
    """Send req; expect error code (and field); the connection must still answer a ping."""
    if isinstance(req, bytes):
        c.send_raw(req)
        r = c.recv()
    else:
        r, _ = c.request(req)
    good = r.get("type") == "error" and r.get("code") == code and isinstance(r.get("text"), str)
    if field is not None:
        good = good and r.get("field") == field
    if not isinstance(req, bytes) and "id" in r:
        good = good and isinstance(r["id"], int)
    p, _ = c.request({"type": "ping"})  # still connected and served
    alive = p["type"] == "pong" or p.get("code") == "hello_required"
    t.ok(good and alive, name + " -> " + code, (r, p))
    return r


def before_hello(t, srv):
    c = srv.connect()
    err(t, c, {"type": "list"}, "hello_required", "a request before hello")
    err(t, c, {"type": "create"}, "hello_required", "a request missing a member, before hello")
    err(t, c, {"type": "create", "kind": "chess"}, "hello_required",
        "a request with a bad value, before hello")
    err(t, c, {"type": "move", "move": 5}, "hello_required",
        "a request with a member of the wrong type, before hello")
    r = err(t, c, b'{"type":"list","id":[1]}\n', "hello_required",
            "a request with an id of the wrong type, before hello")
    t.ok("id" not in r and r.get("request") == "list", "... its unreadable id is not echoed", r)
    err(t, c, {"type": "hello", "protocol": 2, "name": "x"}, "version_mismatch", "wrong version")
    err(t, c, {"type": "hello", "protocol": "1", "name": "x"}, "bad_field", "protocol as a string",
        "protocol")
    err(t, c, {"type": "hello", "protocol": 1}, "bad_field", "hello without a name", "name")
    err(t, c, {"type": "hello", "protocol": 1, "name": ""}, "bad_value", "empty name", "name")
    err(t, c, {"type": "hello", "protocol": 1, "name": "x" * 33}, "bad_value", "long name", "name")
    err(t, c, {"type": "hello", "protocol": 1, "name": "a\u0007b"}, "bad_value",
        "control character in a name", "name")
    err(t, c, {"type": "hello", "protocol": 1, "name": "  \u3000\u200b"}, "bad_value",
        "a name of blanks only (spaces, an ideographic space, a zero-width space)", "name")
    err(t, c, {"type": "hello", "protocol": 1, "name": "ok", "last_seq": -1}, "bad_value",
        "negative last_seq", "last_seq")
    err(t, c, {"type": "hello", "protocol": 1, "token": "f" * 32}, "bad_token", "unknown token")
    err(t, c, {"type": "hello", "protocol": 1, "name": 5}, "bad_field", "a name not a string",
        "name")
    err(t, c, {"type": "hello", "protocol": 1, "token": "f" * 32, "name": 5}, "bad_field",
        "a name of the wrong type, with a token (only its value is ignored)", "name")
    err(t, c, {"type": "hello", "protocol": 1, "token": "f" * 32, "name": ""}, "bad_token",
        "a bad name's value is ignored with a token")
    c.hello("ok")
    err(t, c, {"type": "hello", "protocol": 1, "name": "again"}, "already_welcomed",
        "a second hello")
    err(t, c, {"type": "hello", "protocol": 2}, "already_welcomed",
        "a second hello, of another version")
    err(t, c, {"type": "hello", "protocol": 1, "name": ""}, "already_welcomed",
        "a second hello, with a bad name")
    err(t, c, {"type": "hello"}, "already_welcomed", "a second hello, without protocol")
    err(t, c, b'{"type":"hello","protocol":1,"name":"x","id":1.5}\n', "already_welcomed",
        "a second hello, with an id of the wrong type")
    c.close()


def malformed(t, srv):
    c = srv.connect("mal")
    err(t, c, b"{not json\n", "bad_json", "malformed JSON")
    err(t, c, b"[1,2]\n", "bad_json", "an array, not an object")
    err(t, c, b'"text"\n', "bad_json", "a string, not an object")
    err(t, c, b'{"type":"ping","a":1,"a":2}\n', "bad_json", "duplicate keys")
    err(t, c, b'{"type":"ping","x":"\xff\xfe"}\n', "bad_json", "invalid UTF-8")
    err(t, c, b'{"type":"ping","x":"\\u0000"}\n', "bad_json", "a NUL in a string")
    # PROTOCOL.md 1: a value nested more than 2048 deep (a number counts as a level), a number
    # beyond a double's range
    def deep(n):  # a ping whose member x holds a number n deep (the object is 1 deep)
        return b'{"type":"ping","x":' + b"[" * (n - 2) + b"0" + b"]" * (n - 2) + b"}\n"
    err(t, c, deep(2049), "bad_json", "a number 2049 deep")
    c.send_raw(deep(2048))
    p = c.recv()
    t.ok(p == {"type": "pong"}, "a number 2048 deep is taken", p)
    err(t, c, b'{"type":"ping","x":-1e400}\n', "bad_json", "a number beyond a double's range")
    c.send_raw(b'{"type":"ping","x":1e-400}\n')
    p = c.recv()
    t.ok(p == {"type": "pong"}, "a number that underflows to 0 is taken", p)
    err(t, c, {"kind": "hokito"}, "unknown_type", "no type")
    err(t, c, {"type": 5}, "unknown_type", "type not a string")
    err(t, c, {"type": "fly"}, "unknown_type", "unknown type")
    r = err(t, c, {"type": "welcome"}, "unknown_type", "a server message type sent to the server",
            "type")
    t.ok("request" not in r, "a server message type is not named as a request", r)
    err(t, c, {"type": "pong"}, "unknown_type", "a reply type sent to the server", "type")
    r = err(t, c, b'{"type":"ping","id":[1]}\n', "bad_field", "id of the wrong type", "id")
    t.ok("id" not in r, "an unreadable id is not echoed", r)
    c.send({"type": "ping", "id": "str-id"})
    p = c.recv()
    t.ok(p == {"type": "pong", "id": "str-id"}, "a string id is echoed", p)
    err(t, c, {"type": "create"}, "bad_field", "create without kind", "kind")
    err(t, c, {"type": "create", "kind": 1}, "bad_field", "kind of the wrong type", "kind")
    err(t, c, {"type": "create", "kind": "chess"}, "bad_value", "unknown kind", "kind")
    err(t, c, {"type": "create", "kind": "oxono", "variant": "random36"}, "bad_value",
        "unknown variant", "variant")
    err(t, c, {"type": "create", "kind": "hokito", "variant": ""}, "bad_value",
        "an empty variant", "variant")
    err(t, c, {"type": "quick", "kind": "oxono", "variant": ""}, "bad_value",
        "an empty variant in quick", "variant")
    err(t, c, {"type": "create", "kind": "oxono", "seat": "white"}, "bad_value",
        "a seat of the other game", "seat")
    err(t, c, {"type": "create", "kind": "hokito", "private": "yes"}, "bad_field",
        "private not a boolean", "private")
    err(t, c, {"type": "create", "kind": "hokito", "seed": -4}, "bad_value", "negative seed",
        "seed")
    err(t, c, {"type": "create", "kind": "hokito", "seed": "12x"}, "bad_value", "bad seed text",
        "seed")
    err(t, c, {"type": "join"}, "bad_field", "join without game or code", "game")
    # PROTOCOL.md 3: a member whose value is ignored must still have its type
    err(t, c, {"type": "join", "code": "NOPE2345", "game": 5}, "bad_field",
        "a game of the wrong type next to a code", "game")
    err(t, c, {"type": "create", "kind": "hokito", "level": "4"}, "bad_field",
        "a level of the wrong type against a person", "level")
    err(t, c, {"type": "watch", "game": 3}, "bad_field", "game of the wrong type", "game")
    err(t, c, {"type": "move"}, "bad_field", "move without move", "move")
    err(t, c, {"type": "join", "game": "g999"}, "no_such_game", "join of an unknown game")
    err(t, c, {"type": "watch", "code": "NOPE2345"}, "no_such_game", "watch with a wrong code")
    err(t, c, {"type": "move", "move": "a1-a2"}, "not_seated", "move while at no game")
    err(t, c, {"type": "resign"}, "not_seated", "resign while at no game")
    c.close()


def game_errors(t, srv):
    a = srv.connect("amy")
    b = srv.connect("bo")
    s = srv.connect("sam")
    o = srv.connect("out")
    st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 3})
    g = st["game"]
    err(t, a, {"type": "move", "move": "a1-a2"}, "not_started", "move before the game starts")
    err(t, a, {"type": "resign"}, "not_started", "resign before the game starts")
    err(t, a, {"type": "create", "kind": "oxono"}, "already_seated", "create while seated")
    err(t, a, {"type": "watch", "game": g}, "already_seated", "watch while seated")
    s.request({"type": "watch", "game": g})
    b.request({"type": "join", "game": g})
    err(t, o, {"type": "join", "game": g}, "game_full", "join of a live game")
    err(t, b, {"type": "join", "game": g}, "already_seated", "join while seated")
    err(t, b, {"type": "quick", "kind": "hokito"}, "already_seated", "quick while seated")
    yt = a.wait_for("your_turn")
    before = len(yt["moves"])
    err(t, b, {"type": "move", "move": yt["moves"][0]}, "not_your_turn", "move out of turn")
    err(t, s, {"type": "move", "move": yt["moves"][0]}, "spectator", "a spectator moves")
    err(t, s, {"type": "resign"}, "spectator", "a spectator resigns")
    err(t, s, {"type": "move", "move": yt["moves"][0], "game": g}, "spectator",
        "a spectator moves, naming the game it watches")
    err(t, s, {"type": "resign", "game": "g999"}, "not_seated",
        "a spectator resigns, naming another game")
    err(t, a, {"type": "move", "move": yt["moves"][0], "game": "g999"}, "not_seated",
        "move naming another game")
    r = err(t, a, {"type": "move", "move": "z9-q1"}, "bad_move", "malformed move text")
    t.ok(r["text"] == "'z9-q1' is not a HOKITO move: write from-to like c2-e4, or the hop "
         "path like c2-c4-e4", "the malformed move is named once, with what to write", r)
    r = err(t, a, {"type": "move", "move": "x" + "\u00e9" * 30}, "bad_move",
            "a long move text cut inside a character")
    t.ok(r["text"].startswith("'x" + "\u00e9" * 19 + "' is not a HOKITO move: "),
         "... is quoted up to the cut character, and explained", r)
    err(t, a, {"type": "move", "move": "Xc5+c6"}, "bad_move", "an OXONO move in HOKITO")
    legal = set(yt["moves"])
    squares = [f + r for r in "123456" for f in "abcdef"]
    illegal = next(x + "-" + y for x in squares for y in squares
                   if x != y and (x + "-" + y) not in legal)
    r = err(t, a, {"type": "move", "move": illegal}, "illegal_move", "an illegal move")
    t.ok(len(r["text"]) > 10 and r["request"] == "move", "the illegal move is explained: " +
         r["text"])
    err(t, a, {"type": "leave"}, "in_game", "leave a live game")
    st2, _ = s.request({"type": "watch", "game": g})
    s.wait_for("spectators")
    t.ok(st2["ply"] == 0 and st2["seq"] == 3 and st2["position"] == st["position"],
         "none of the refusals changed the game", st2)
    ok, _ = a.request({"type": "move", "move": yt["moves"][0]})
    t.ok(ok["type"] == "ok" and ok["seq"] == 4 and before > 0, "the game goes on", ok)
    for c in (a, b, s, o):
        c.close()


def framing(t, srv):
    c = srv.connect("frame")
    c.send_raw(b'{"type":"ping","id":1}\n{"type":"ping","id":2}\r\n\n   \n{"type":"ping","id":3}\n')
    got = [c.recv()["id"] for _ in range(3)]
    t.ok(got == [1, 2, 3], "several lines in one segment, CRLF and blank lines", got)
    d = srv.connect()
    line = '{"type":"hello","protocol":1,"name":"żółw 🐢"}\n'.encode()
    for i in range(len(line)):
        d.send_raw(line[i:i + 1])
        time.sleep(0.002)
    w = d.recv()
    t.ok(w["type"] == "welcome" and w["player"]["name"] == "żółw 🐢",
         "a line sent byte by byte, UTF-8 characters split", w)
    c.close()
    d.close()


def garbage(t, srv):
    """Seeded random bytes and random objects: every line gets exactly one reply, nothing breaks."""
    import json
    import random
    rng = random.Random(99)
    c = srv.connect("noise")
    types = ["hello", "list", "create", "join", "quick", "watch", "move", "resign", "leave",
             "ping", "state", "ok", "bye", "moved", None, 3]
    values = [None, True, 0, -1, 2 ** 70, 1.5, "", "g1", "hokito", "oxono", "black", "x" * 300,
              [], {}, {"a": [1]}, "\u00e9\u20ac"]
    lines = []
    for i in range(300):
        if i % 3 == 0:
            raw = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80)))
            lines.append(raw.replace(b"\n", b" ").replace(b"\r", b" ") or b"x")
        else:
            o = {k: rng.choice(values) for k in rng.sample(
                ["kind", "variant", "seat", "private", "seed", "game", "code", "move", "name",
                 "token", "protocol", "last_seq", "id"], rng.randrange(0, 6))}
            if rng.random() < 0.9:
                o["type"] = rng.choice(types)
            if "id" in o:
                o["id"] = i + 1000
            lines.append(json.dumps(o).encode())
    replies = 0
    for chunk in range(0, len(lines), 30):
        part = lines[chunk:chunk + 30]
        blank = sum(1 for l in part if not l.strip(b" \t"))
        c.send_raw(b"\n".join(part) + b"\n")
        for _ in range(len(part) - blank):
            m = c.recv()
            while m["type"] in ("state", "seated", "started", "moved", "game_over", "your_turn",
                                "spectators", "presence"):
                if m["type"] == "state" and "id" in m:
                    break
                m = c.recv()
            replies += 1
    r, _ = c.request({"type": "ping"})
    t.ok(r["type"] == "pong" and replies > 250, "300 lines of noise: one reply each, still served")
    c.close()


def long_line(t):
    srv = Server("--max-line", "1024")
    try:
        c = srv.connect("long")
        ok_line = b'{"type":"ping","id":"' + b"x" * (1024 - 23) + b'"}'
        assert len(ok_line) == 1024
        c.send_raw(ok_line + b"\n")
        r = c.recv()
        t.ok(r["type"] == "pong", "a line of exactly the limit is served", r)
        c.send_raw(ok_line + b"\r\n")
        r = c.recv()
        t.ok(r["type"] == "pong", "so is one of the limit and a CR before its LF (not counted)", r)
        c.send_raw(b'{"type":"ping","id":"' + b"y" * 5000)
        r = c.recv()
        t.ok(r["type"] == "error" and r["code"] == "line_too_long" and c.closed(5),
             "a line over the limit gets line_too_long, then the connection is closed", r)
        d = srv.connect("long2")
        d.send_raw(b"z" * 1030 + b"\n")
        r = d.recv()
        t.ok(r["code"] == "line_too_long" and d.closed(5), "also when the newline comes at once")
        d = srv.connect("long3")
        d.send_raw(ok_line[:-2] + b'x"}\n')
        r = d.recv()
        t.ok(r["code"] == "line_too_long" and d.closed(5), "and for one byte past the limit", r)
        e = srv.connect("after")
        r, _ = e.request({"type": "ping"})
        t.ok(r["type"] == "pong", "the server goes on")
    finally:
        t.ok(srv.stop() == 0, "server stops")


def slow_reader(t):
    srv = Server("--max-output", "65536")
    try:
        a = srv.connect("p1")
        b = srv.connect("p2")
        st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 8})
        b.request({"type": "join", "game": st["game"]})
        lazy = srv.connect("lazy", rcvbuf=4096)
        lazy.request({"type": "watch", "game": st["game"]})
        n = a.wait_for("spectators")
        assert n["spectators"]["count"] == 1
        # the lazy spectator asks for a lot and never reads the answers
        req = ('{"type":"ping","id":"' + "q" * 8000 + '"}\n').encode() * 16
        dropped = False
        deadline = time.time() + 30
        lazy.sock.settimeout(1)
        while time.time() < deadline:
            try:
                lazy.sock.sendall(req)
            except (BrokenPipeError, ConnectionResetError):
                dropped = True
                break
            except socket.timeout:
                pass
            if srv.log_has("over the cap", timeout=0):
                dropped = True
                break
        t.ok(dropped and srv.log_has("over the cap"),
             "a client that never reads is dropped when its output passes the cap")
        n = a.wait_for("spectators")
        t.ok(n["spectators"]["count"] == 0, "the players see the spectator gone", n)
        yt = a.wait_for("your_turn")
        ok, _ = a.request({"type": "move", "move": yt["moves"][0]})
        t.ok(ok["type"] == "ok" and ok["seq"] == 4, "the game is unaffected", ok)
        b.wait_for("your_turn")
    finally:
        t.ok(srv.stop() == 0, "server stops")


def too_many(t):
    srv = Server("--max-clients", "2")
    try:
        a = srv.connect("one")
        b = srv.connect("two")
        c = srv.connect()
        r = c.recv()
        t.ok(r["type"] == "error" and r["code"] == "too_many_clients" and c.closed(5),
             "one client too many gets too_many_clients, then is closed", r)
        r, _ = a.request({"type": "ping"})
        t.ok(r["type"] == "pong", "the others are served")
        b.close()
        time.sleep(0.3)
        d = srv.connect("three")
        r, _ = d.request({"type": "ping"})
        t.ok(r["type"] == "pong", "a place freed is taken again")
    finally:
        t.ok(srv.stop() == 0, "server stops")


def hello_deadline(t):
    srv = Server("--hello-timeout", "1")
    try:
        c = srv.connect()
        t0 = time.time()
        r = c.recv(timeout=5)
        t.ok(r["type"] == "error" and r["code"] == "hello_timeout" and c.closed(5)
             and 0.8 < time.time() - t0 < 4, "no hello in time: hello_timeout, then closed", r)
        d = srv.connect("quick")
        time.sleep(1.5)
        r, _ = d.request({"type": "ping"})
        t.ok(r["type"] == "pong", "a client that said hello is not timed out")
    finally:
        t.ok(srv.stop() == 0, "server stops")


def server_full(t):
    srv = Server("--max-games", "1")
    try:
        a = srv.connect("a")
        b = srv.connect("b")
        c = srv.connect("c")
        d = srv.connect("d")
        st, _ = a.request({"type": "create", "kind": "oxono"})
        err(t, b, {"type": "create", "kind": "oxono"}, "server_full", "create past --max-games")
        # finished games do not count: two end, then c's open game takes the one place
        b.request({"type": "join", "game": st["game"]})
        play_opening(*movers(st, a, b))
        a.request({"type": "resign"})
        d.request({"type": "create", "kind": "oxono", "opponent": "computer", "level": 1})
        move_once(d)
        d.request({"type": "resign"})
        c.request({"type": "create", "kind": "oxono"})
        b.request({"type": "rematch"})
        err(t, a, {"type": "rematch"}, "server_full", "accepting a rematch past --max-games")
        err(t, d, {"type": "rematch"}, "server_full", "a rematch of the computer past --max-games")
        c.request({"type": "leave"})
        r, _ = a.request({"type": "rematch"})
        t.ok(r["type"] == "state" and r["status"] == "live",
             "the refused rematch's offer stood: accepted once there is room", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod exits 0 (sanitizers quiet)")


def shutdown(t):
    srv = Server()
    a = srv.connect("a")
    b = srv.connect("b")
    pre = srv.connect()
    st, _ = a.request({"type": "create", "kind": "hokito"})
    b.request({"type": "join", "game": st["game"]})
    t0 = time.time()
    status = srv.stop()
    got = {}
    for name, c in (("a", a), ("b", b), ("pre", pre)):
        try:
            m, _ = c.recv_until("bye", timeout=5)
            got[name] = m["reason"] == "shutdown" and c.closed(5)
        except Exception as e:  # noqa: BLE001
            got[name] = repr(e)
    t.ok(all(v is True for v in got.values()), "SIGTERM: every client gets bye shutdown, then EOF",
         got)
    t.ok(status == 0 and time.time() - t0 < 8, "hokitod exits 0 promptly", status)


def log_lines(t, srv):
    """hokitod(8): one log line a record; a client's text cannot end it and forge another, nor
    reach the log as a control character (C0, C1) or a bidi override."""
    c = srv.connect()
    c.send({"type": "hello", "protocol": 1, "name": "logger",
            "client": "x\n2026-01-01T00:00:00.000Z info: forged\x1b[2J\u009b1m\u202egnp.exe"})
    w = c.expect("welcome")
    t.ok(srv.log_has(r"said hello from x\\x0A2026-01-01T00:00:00\.000Z info: "
                     r"forged\\x1B\[2J\\u009B1m\\u202Egnp\.exe$")
         and not any(l.startswith("2026-01-01T00:00:00.000Z") for l in srv.log),
         "control characters (C0, C1) and bidi overrides in a client's text are logged escaped",
         (w, srv.log[-3:]))
    c.close()


def main():
    t = Tap()
    run_on_server(t, Server(), [
        ("before hello", before_hello),
        ("malformed", malformed),
        ("game errors", game_errors),
        ("framing", framing),
        ("garbage", garbage),
        ("log lines", log_lines),
    ], "hokitod exits 0")
    t.run("long line", long_line, t)
    t.run("slow reader", slow_reader, t)
    t.run("too many clients", too_many, t)
    t.run("hello deadline", hello_deadline, t)
    t.run("server full", server_full, t)
    t.run("shutdown", shutdown, t)
    t.done()


main()
