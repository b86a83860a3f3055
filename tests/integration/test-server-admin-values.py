#!/usr/bin/env python3
"""hokitod's admin socket takes extreme numbers and wrong types without a hang, end to end.

Every operator request (accounts_list, account_ban, account_unban, account_reset_password,
account_set_kind) gets, in each of its members (after, limit, name, kind, password), each of
INT64_MAX, INT64_MIN, -1, 0, 2^63 (past 64 bits), floats, huge numbers, strings, null, true, [],
{}: each is answered within ANSWER_S seconds with a clear coded error (the member named with
bad_value) or a right answer (accounts_list pages: a page after INT64_MAX is empty, after 0 is
the first, "next" walks every account once). Between the batches a TCP client's ping is
answered at once, and at the end SIGTERM stops the server cleanly. The figure: the number of
requests and the slowest answer. Prints TAP.
"""
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import TIMEOUT, Server, Tap  # noqa: E402

PW = "correct horse battery"
ANSWER_S = 1.0  # the slowest answer allowed (they take well under a millisecond)
I64_MAX, I64_MIN = 2 ** 63 - 1, -2 ** 63
# raw JSON texts of the values tried
VALUES = [str(I64_MAX), str(I64_MIN), "-1", "0", "1", str(2 ** 63), str(2 ** 64 + 5),
          "1e400", "-1e400", "1.5", "1.0", "-0.0", "1e18", "1000000000000000000000",
          "1001", '"7"', '""', "null", "true", "[]", "{}", '"' + "a" * 5000 + '"']
REQUESTS = {
    "accounts_list": ["after", "limit"],
    "account_ban": ["name"],
    "account_unban": ["name"],
    "account_reset_password": ["name", "password"],
    "account_set_kind": ["name", "kind"],
}
GOOD = {"name": '"Vera_v"', "kind": '"account"', "password": '"' + PW + '"'}
CODES = {"bad_value", "bad_request", "bad_json", "no_such_account"}


class Admin:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(TIMEOUT)
        self.s.connect(path)
        self.f = self.s.makefile("rw")

    def ask_raw(self, line):
        """Send one raw line; returns (answer, seconds)."""
        t0 = time.monotonic()
        self.f.write(line + "\n")
        self.f.flush()
        a = json.loads(self.f.readline())
        return a, time.monotonic() - t0

    def close(self):
        self.s.close()


def line_of(rtype, members):
    return "{" + ",".join(['"type":"%s"' % rtype] +
                          ['"%s":%s' % kv for kv in members.items()]) + "}"


def expected(rtype, member, value):
    """What a right answer to this value is: "ok" (a right result) or "error"."""
    try:
        v = json.loads(value)
    except ValueError:
        v = None
    is_int = isinstance(v, int) and not isinstance(v, bool) and "." not in value \
        and "e" not in value.lower()
    if rtype == "accounts_list":
        if member == "after":
            return "ok" if is_int and 0 <= v <= I64_MAX else "error"
        return "ok" if is_int and 1 <= v <= 1000 else "error"
    if member == "kind":
        return "error"  # no number nor other string here is "bot" or "account"
    if member == "password" and isinstance(v, str) and 8 <= len(v.encode()) <= 1024:
        return "ok"
    return "error"


def test_values(t, srv, admin, pinger):
    n, slowest, wrong, hung = 0, 0.0, [], []
    for rtype, members in REQUESTS.items():
        for member in members:
            for value in VALUES:
                req = {m: GOOD[m] for m in members if m != member and m in GOOD}
                req[member] = value
                line = line_of(rtype, req)
                try:
                    a, dt = admin.ask_raw(line)
                except (OSError, ValueError) as e:
                    hung.append((line[:80], repr(e)))
                    admin.close()
                    admin = Admin(srv.admin_sock)
                    continue
                n += 1
                slowest = max(slowest, dt)
                want = expected(rtype, member, value)
                got = "error" if a.get("type") == "error" else "ok"
                clear = got == "ok" or (a.get("code") in CODES and a.get("text") and
                                        (a.get("code") != "bad_value" or
                                         a.get("field") == member))
                if got != want or not clear or dt > ANSWER_S:
                    wrong.append((line[:80], a, round(dt, 3)))
            r, _ = pinger.request({"type": "ping"}, timeout=ANSWER_S)
            if r.get("type") != "pong":
                hung.append(("ping after %s.%s" % (rtype, member), r))
    t.ok(not hung, "%d requests with extreme values: every one answered, pings between "
         "them too" % n, hung[:5])
    t.ok(not wrong, "each a clear error naming the member, or a right answer; the slowest "
         "in %.1f ms" % (slowest * 1000), "\n".join(map(str, wrong[:10])))
    print("# figure: %d admin requests with extreme values, slowest answer %.2f ms" % (
        n, slowest * 1000))
    return admin


def test_pages(t, admin, names):
    a, _ = admin.ask_raw('{"type":"accounts_list","after":%d}' % I64_MAX)
    t.ok(a.get("type") == "accounts" and a["accounts"] == [] and "next" not in a,
         "a page after INT64_MAX: empty, no next", a)
    a, _ = admin.ask_raw('{"type":"accounts_list","after":%d,"limit":1000}' % (I64_MAX - 1))
    t.ok(a.get("type") == "accounts" and a["accounts"] == [], "after INT64_MAX-1: empty", a)
    seen, after, pages = [], 0, 0
    while pages < 10:
        a, _ = admin.ask_raw('{"type":"accounts_list","after":%d,"limit":1}' % after)
        pages += 1
        seen += [x["name"] for x in a["accounts"]]
        if "next" not in a:
            break
        after = a["next"]
    t.ok(seen == names and pages == len(names), "pages of one walk every account once, by id",
         (seen, pages))
    a, _ = admin.ask_raw('{"type":"accounts_list","after":%d,"limit":2,"after":1}' % I64_MAX)
    t.ok(a.get("code") == "bad_json", "a member given twice: bad_json", a)
    a, _ = admin.ask_raw('{"type":"accounts_list","after":%d}' % 2 ** 63)
    t.ok(a.get("code") == "bad_json" and "integer" in a.get("text", ""),
         "2^63: bad_json, its text says why", a)


def main():
    t = Tap()
    srv = Server()
    try:
        names = ["Vera_v", "Walt_w", "Xena_x"]
        for name in names:
            c = srv.connect()
            r, _ = c.request({"type": "register", "name": name, "password": PW})
            assert r["type"] == "welcome", r
            c.close()
        admin = Admin(srv.admin_sock)
        pinger = srv.connect("pinger")
        try:
            admin = test_values(t, srv, admin, pinger)
            test_pages(t, admin, names)
        finally:
            admin.close()
        r, _ = pinger.request({"type": "ping"}, timeout=ANSWER_S)
        t.ok(r.get("type") == "pong", "the server still answers pings", r)
        t0 = time.monotonic()
        status = srv.stop()
        t.ok(status == 0 and time.monotonic() - t0 < 5,
             "SIGTERM stops it cleanly (in %.2f s)" % (time.monotonic() - t0), status)
    finally:
        srv.kill()
    t.done()


if __name__ == "__main__":
    main()
