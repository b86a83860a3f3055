#!/usr/bin/env python3
"""test-server-reads: the store's reads are cheap and fairly shared by address.

- history offsets past --max-history-offset (default 1000) are refused bad_value, field offset,
  whose text names the cap and the way on (after); an offset up to the cap is served, and it
  counts from after.
- fairness: one address (127.0.0.66) with 8 connections, each with a slow read queued (a deep
  offset, some 100 ms each on a store of 60,000 games, on one reader thread), does not hold
  another address's read (127.0.0.2) behind all of them: it is answered after at most two of
  theirs (in the order of their asking it would come last).
- several reading threads (--read-threads 4), each on its own connection: concurrent reads of
  several addresses are answered right, each connection's in the order of its requests.
- the per-address bound (--max-reads-per-addr 3): a fourth read from the same address while three
  are out gets too_many_reads (history, record, leaderboard alike), with a log line; another
  address reads meanwhile; once the address's reads are answered, it reads again.
Everything runs on loopback addresses; the store is filled with SQL while the server is stopped.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from serverlib import Server, Tap, arrivals  # noqa: E402
import fairread  # noqa: E402  (tests/bench/fairread.py: fill)

t = Tap()
GAMES = 60000
ATTACKER = "127.0.0.66"
OTHER = "127.0.0.2"


def filled_store():
    """A store file of GAMES finished public games (no events)."""
    srv = Server()
    srv.stop()
    fairread.fill(srv.db, GAMES)
    return srv.db


def deep_pages(db):
    srv = Server("--keep-finished", "0", db=db)
    try:
        c = srv.connect("pager")
        r, _ = c.request({"type": "history", "offset": 1000, "limit": 5})
        t.ok(r["type"] == "history_page" and len(r["games"]) == 5 and r["total"] == GAMES and
             r["games"][0]["game"] == "f%d" % (GAMES - 1000),
             "history: offset 1000, the default cap, is served", r)
        bad = [c.request({"type": "history", "offset": o})[0] for o in (1001, 59000, 2 ** 62)]
        t.ok(all(b["type"] == "error" and b["code"] == "bad_value" and b["field"] == "offset" and
                 "1000" in b["text"] and "after" in b["text"] for b in bad),
             "history: an offset past the cap gets bad_value (field offset), naming the cap and "
             "after", bad)
        first, _ = c.request({"type": "history", "limit": 100})
        r, _ = c.request({"type": "history", "after": first["next"], "offset": 1000, "limit": 1})
        t.ok(r["type"] == "history_page" and r["games"][0]["game"] == "f%d" % (GAMES - 1100),
             "the cap counts from after: any depth is reached by key", r)
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")
    srv = Server("--keep-finished", "0", "--max-history-offset", "5", db=db)
    try:
        c = srv.connect("pager")
        ok, _ = c.request({"type": "history", "offset": 5, "limit": 1})
        bad, _ = c.request({"type": "history", "offset": 6, "limit": 1})
        t.ok(ok["type"] == "history_page" and ok["games"][0]["game"] == "f%d" % (GAMES - 5) and
             bad["type"] == "error" and bad["code"] == "bad_value" and
             bad["field"] == "offset" and "at most 5" in bad["text"],
             "--max-history-offset 5: offset 5 served, 6 refused", (ok, bad))
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def fairness(db):
    srv = Server("--keep-finished", "0", "--max-history-offset", "1000000", "--read-threads", "1",
                 "--max-reads-per-addr", "0", db=db)
    try:
        deep = {"type": "history", "offset": GAMES - 20, "limit": 20}
        t0 = time.time()
        srv.connect("timer").request(deep)
        one = time.time() - t0
        attackers = [srv.connect("deep%d" % i, src=ATTACKER) for i in range(8)]
        victim = srv.connect("victim", src=OTHER)
        for i, a in enumerate(attackers):
            a.send(dict(deep, id=i))
        time.sleep(0.01)  # the loop has queued them (a read takes far longer): one runs
        victim.send({"type": "history", "limit": 20, "id": "v"})
        named = [("a%d" % i, a) for i, a in enumerate(attackers)] + [("v", victim)]
        order = arrivals(named, lambda o: len(o) == 9, timeout=60)
        names = [n for n, m in order]
        before = names.index("v") if "v" in names else None
        t.ok(len(order) == 9 and all(m["type"] == "history_page" for n, m in order) and
             before is not None and before <= 2,
             "another address's read is answered after at most 2 of the 8 queued before it "
             "(a deep page took %.0f ms)" % (one * 1000), (names, one))
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def per_addr_bound(db):
    srv = Server("--keep-finished", "0", "--max-history-offset", "1000000", "--read-threads", "1",
                 "--max-reads-per-addr", "3", db=db)
    try:
        deep = {"type": "history", "offset": GAMES - 20, "limit": 20}
        conns = [srv.connect("d%d" % i, src=ATTACKER) for i in range(6)]
        other = srv.connect("other", src=OTHER)
        for i, c in enumerate(conns[:3]):
            c.send(dict(deep, id=i))
        time.sleep(0.05)
        extra = [conns[3].request(deep)[0],
                 conns[4].request({"type": "record", "game": "f7"})[0],
                 conns[5].request({"type": "leaderboard", "kind": "hokito"})[0]]
        t.ok(all(e["type"] == "error" and e["code"] == "too_many_reads" and
                 e["request"] in ("history", "record", "leaderboard") for e in extra),
             "a read past --max-reads-per-addr 3 from one address gets too_many_reads "
             "(history, record, leaderboard)", extra)
        r, _ = other.request({"type": "history", "limit": 1})
        t.ok(r["type"] == "history_page", "another address reads meanwhile", r)
        got = [c.recv_until("history_page")[0] for c in conns[:3]]
        t.ok(all(g["type"] == "history_page" for g in got), "the three reads are answered",
             [g["type"] for g in got])
        r, _ = conns[3].request({"type": "record", "game": "f7"})
        t.ok(r["type"] == "game_record", "once they are, the address reads again", r)
        t.ok(srv.log_has(r"store reads refused lately past --max-reads-per-addr 3 .*the last "
                         r"from 127\.0\.0\.66"),
             "a log line counts the refused reads and names the address", "".join(srv.log[-5:]))
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


def threads(db):
    srv = Server("--keep-finished", "0", "--max-history-offset", "1000000", "--read-threads", "4",
                 db=db)
    try:
        t.ok(srv.log_has(r"store: 4 reader threads, at most 8 reads queued per address"),
             "--read-threads 4: four reading threads", "".join(srv.log[-5:]))
        conns = [srv.connect("r%d" % i, src="127.0.0.%d" % (10 + i)) for i in range(8)]
        offsets = [GAMES - 20 - 1000 * i for i in range(8)]
        for c, off in zip(conns, offsets):
            c.send({"type": "history", "offset": off, "limit": 20, "id": off})
            c.send({"type": "record", "game": "f%d" % (off + 1), "id": "r"})
        got = [(c.recv_until("history_page")[0], c.recv_until("game_record")[0]) for c in conns]
        t.ok(all(p["id"] == off and p["games"][0]["game"] == "f%d" % (GAMES - off) and
                 len(p["games"]) == 20 and r["game"] == "f%d" % (off + 1)
                 for (p, r), off in zip(got, offsets)),
             "reads on four threads at once: each connection gets its own answers, in order",
             [(p.get("id"), r.get("game")) for p, r in got])
    finally:
        t.ok(srv.stop() == 0, "hokitod stops")


db = filled_store()
t.run("deep pages: the offset cap", deep_pages, db)
t.run("fairness between addresses", fairness, db)
t.run("the per-address bound of reads", per_addr_bound, db)
t.run("several reading threads", threads, db)
t.done()
