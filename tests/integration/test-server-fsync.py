#!/usr/bin/env python3
"""test-server-fsync: with --fsync always, an acknowledged move is on the disk (hokitod(8)).

hokitod runs under slowsync (HOKITO_SLOWSYNC, an LD_PRELOAD shim built from slowsync.c): every
fdatasync or fsync of the store's -wal file sleeps HOKITO_SLOWSYNC_MS first, and is logged with
its monotonic start and end times and the WAL's size when it began. Checked:

- --fsync always: a move's `ok` and the opponent's `moved` come no sooner than the slow sync
  allows, and each after an fdatasync of the WAL that began after the move was sent had returned;
- meanwhile the loop is not blocked: a move of another game is played and committed to the store
  while that fdatasync is still under way (its `ok` then waits in turn: lines keep their order);
- --fsync normal: replies do not wait for the WAL (none is synced for a move);
- kill -9 right after an `ok`, then a power loss simulated by cutting the WAL back to what the
  last returned fdatasync covered: a restart has the acknowledged move, and not the move that
  was still waiting for its sync.

Timings are one-sided (a lower bound a little under the shim's sleep, or a generous upper bound),
so a slow machine cannot fail them. Run by meson (HOKITOD, HOKITO_SLOWSYNC); prints TAP.
"""
import os
import signal
import sqlite3
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import TIMEOUT, Closed, Server, Tap  # noqa: E402

SHIM = os.environ.get("HOKITO_SLOWSYNC", "build/tests/integration/libslowsync.so")

TMP = tempfile.mkdtemp(prefix="hokitod-fsync-")
OPEN = []  # connections to close before a server stops
t = Tap()


def slow_server(mode, ms, db=None):
    """hokitod with --fsync mode under the shim sleeping ms; returns (server, shim log path).
    A new store is made first without the shim: its creation syncs the WAL a few times."""
    if db is None:
        plain = Server()
        plain.stop()
        db = plain.db
    shim_log = tempfile.mktemp(prefix="slowsync-", suffix=".log", dir=TMP)
    asan = os.environ.get("ASAN_OPTIONS", "")
    env = {"LD_PRELOAD": os.path.abspath(SHIM), "HOKITO_SLOWSYNC_MS": str(ms),
           "HOKITO_SLOWSYNC_LOG": shim_log,
           # a sanitized hokitod wants its runtime first; the shim is loaded before it
           "ASAN_OPTIONS": (asan + ":" if asan else "") + "verify_asan_link_order=0"}
    srv = Server("--fsync", mode, db=db, env=env)
    return srv, shim_log


def syncs(shim_log):
    """The WAL syncs the shim logged: [(start, end, wal size at start)], times in seconds."""
    try:
        with open(shim_log) as f:
            rows = [line.split() for line in f]
    except FileNotFoundError:
        return []
    return [(int(a) / 1e9, int(b) / 1e9, int(c)) for a, b, c in rows]


def new_game(srv, name, seed):
    """A HOKITO game of two new players, black to move. Returns (black, white, game id)."""
    a = srv.connect(name + "-a")
    b = srv.connect(name + "-b")
    st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": seed})
    b.request({"type": "join", "game": st["game"]})
    OPEN.extend((a, b))
    return a, b, st["game"]


def stop(srv):
    """Close the connections of new_game() (a flushing close would wait for them), then stop
    hokitod; returns its exit status."""
    while OPEN:
        OPEN.pop().close()
    return srv.stop()


class Mover:
    """One move sent by mover, and when its `ok` and the opponent's `moved` arrive: a thread
    per connection, already blocked on its socket when the move goes out, takes the time."""

    def __init__(self, mover, other):
        self.yt = mover.wait_for("your_turn")
        self.move = self.yt["moves"][0]
        self.mover, self.other = mover, other
        self.id = mover.next_id
        mover.next_id += 1
        self.at = {}      # "ok" / "moved" -> monotonic time of arrival
        self.got = {}     # "ok" / "moved" -> the message
        self.errors = []
        self.threads = [
            threading.Thread(target=self._wait, args=(mover, "ok", lambda m: m.get("id") ==
                                                      self.id)),
            threading.Thread(target=self._wait, args=(other, "moved", lambda m: m.get(
                "type") == "moved" and m.get("seq") == self.yt["seq"] + 1))]
        for th in self.threads:
            th.start()
        time.sleep(0.02)  # both readers in recv()
        self.sent = time.monotonic()
        mover.send({"type": "move", "move": self.move, "id": self.id})

    def _wait(self, c, key, match):
        try:
            deadline = time.monotonic() + TIMEOUT
            while True:
                m = c.recv(max(0.01, deadline - time.monotonic()))
                if match(m):
                    self.at[key] = time.monotonic()
                    self.got[key] = m
                    return
        except Exception as e:  # noqa: BLE001 (reported by the check)
            self.errors.append("%s: %r" % (key, e))

    def join(self):
        """Wait for both; returns {"ok": seconds after sending, "moved": seconds}."""
        for th in self.threads:
            th.join(TIMEOUT + 1)
        return {k: v - self.sent for k, v in self.at.items()}


def covered(shim_log, sent, arrived):
    """Whether an fdatasync of the WAL began after sent and returned before arrived."""
    return any(s >= sent and e <= arrived for s, e, _ in syncs(shim_log))


def four_moves(a, b, what):
    """a and b play four moves in turn; returns [(Mover, its times)] and the times as text,
    printed as a TAP comment after what."""
    seen = []
    for i in range(4):
        mover, other = (a, b) if i % 2 == 0 else (b, a)
        mv = Mover(mover, other)
        seen.append((mv, mv.join()))
    times = ["ok %.0f ms, moved %.0f ms" % (1000 * got.get("ok", -1), 1000 * got.get("moved", -1))
             for _, got in seen]
    print("# %s: %s" % (what, "; ".join(times)))
    return seen, times


def always_waits():
    """--fsync always: replies and events wait for the fdatasync of their commit."""
    srv, shim_log = slow_server("always", 300)
    try:
        a, b, g = new_game(srv, "al", 3)
        seen, times = four_moves(a, b, "--fsync always, shim 300 ms")
        errors = [e for mv, _ in seen for e in mv.errors]
        t.ok(not errors and all(mv.got["ok"]["type"] == "ok" for mv, _ in seen) and
             all(got["ok"] >= 0.25 and got["moved"] >= 0.25 for _, got in seen),
             "--fsync always: each move's ok, and the opponent's moved, >= 250 ms after the "
             "move (the WAL's fdatasync sleeps 300 ms)", (times, errors))
        t.ok(all(covered(shim_log, mv.sent, mv.sent + min(got.values())) for mv, got in seen),
             "--fsync always: each ok and moved came after an fdatasync of the WAL that began "
             "after the move was sent had returned", syncs(shim_log))
    finally:
        t.ok(stop(srv) == 0, "hokitod stops", "".join(srv.log[-10:]))


def loop_goes_on():
    """While the fdatasync of one game's move sleeps, the loop plays and commits another's."""
    srv, shim_log = slow_server("always", 600)
    try:
        a1, b1, g1 = new_game(srv, "p1", 5)
        a2, b2, g2 = new_game(srv, "p2", 6)
        yt2 = a2.wait_for("your_turn")
        a2.backlog.insert(0, yt2)
        first = Mover(a1, b1)
        time.sleep(0.1)  # the fdatasync of g1's commit is under way
        second = Mover(a2, b2)
        con = sqlite3.connect("file:%s?mode=ro" % srv.db, uri=True, isolation_level=None)
        stored = None
        deadline = time.monotonic() + TIMEOUT
        while stored is None and time.monotonic() < deadline:
            if con.execute("SELECT count(*) FROM events WHERE game_id = ? AND seq = ?",
                           (g2, yt2["seq"] + 1)).fetchone()[0]:
                stored = time.monotonic()
            else:
                time.sleep(0.005)
        con.close()
        got1, got2 = first.join(), second.join()
        under_way = [(s, e) for s, e, _ in syncs(shim_log)
                     if stored is not None and s < second.sent and e > stored]
        print("# --fsync always, shim 600 ms: g2's move stored %.0f ms after it was sent; the "
              "fdatasync under way ran %s; g1's ok after %.0f ms, g2's after %.0f ms" % (
                  1000 * ((stored or 0) - second.sent),
                  ["%.0f..%.0f ms" % (1000 * (s - second.sent), 1000 * (e - second.sent))
                   for s, e in under_way], 1000 * got1.get("ok", -1), 1000 * got2.get("ok", -1)))
        t.ok(stored is not None and under_way and
             stored < first.sent + got1.get("ok", 0),
             "the loop is not blocked by the fdatasync: another game's move is played and "
             "committed while it sleeps, before the first move's ok",
             (stored, syncs(shim_log), got1, first.errors))
        t.ok(not first.errors and not second.errors and got1["ok"] >= 0.55 and
             got2["ok"] >= 0.55 and first.sent + got1["ok"] <= second.sent + got2["ok"] and
             covered(shim_log, second.sent, second.sent + got2["ok"]),
             "... and its ok waits for a sync of its own, after the first one's",
             (got1, got2, first.errors, second.errors))
    finally:
        t.ok(stop(srv) == 0, "hokitod stops", "".join(srv.log[-10:]))


def normal_does_not_wait():
    """--fsync normal: no fdatasync of the WAL for a move, so no wait."""
    srv, shim_log = slow_server("normal", 300)
    try:
        a, b, g = new_game(srv, "no", 3)
        before = len(syncs(shim_log))
        seen, times = four_moves(a, b, "--fsync normal, shim 300 ms")
        t.ok(all(len(got) == 2 and max(got.values()) < 0.25 for _, got in seen),
             "--fsync normal: each ok and moved within 250 ms (no wait for the WAL's fdatasync)",
             times)
        t.ok(len(syncs(shim_log)) == before, "--fsync normal: no fdatasync of the WAL for a move",
             syncs(shim_log))
    finally:
        t.ok(stop(srv) == 0, "hokitod stops", "".join(srv.log[-10:]))


def power_loss():
    """kill -9 right after an ok, the WAL cut back to what the last fdatasync covered."""
    srv, shim_log = slow_server("always", 300)
    db = srv.db
    a, b, g = new_game(srv, "pl", 9)
    acked = []
    for i in range(3):
        mover, other = (a, b) if i % 2 == 0 else (b, a)
        mv = Mover(mover, other)
        mv.join()
        acked.append(mv.move)
    # one more move, killed while its fdatasync sleeps: never acknowledged
    yt = b.wait_for("your_turn")
    unacked = yt["moves"][0]
    b.send({"type": "move", "move": unacked, "id": b.next_id})
    time.sleep(0.1)
    srv.proc.send_signal(signal.SIGKILL)
    srv.proc.wait()
    replies = []
    while True:
        try:
            replies.append(b.recv(1.0))
        except (Closed, TimeoutError):
            break
    t.ok(not any(m.get("id") == b.next_id for m in replies),
         "the move killed during its fdatasync got no reply", replies)
    done = syncs(shim_log)
    wal = db + "-wal"
    before = os.path.getsize(wal)
    keep = max((size for _, _, size in done), default=0)
    with open(wal, "r+b") as f:
        f.truncate(keep)
    print("# power loss: the WAL cut from %d to %d bytes (the size when the last returned "
          "fdatasync began)" % (before, keep))
    srv = Server(db=db)
    try:
        c = srv.connect("after")
        OPEN.append(c)
        st, _ = c.request({"type": "watch", "game": g})
        rec, _ = c.request({"type": "record", "game": g})
        t.ok(st.get("moves") == acked,
             "after kill -9 and a simulated power loss: every acknowledged move is there",
             (acked, st))
        t.ok(before > keep and unacked not in st["moves"][len(acked):] and
             len(st["moves"]) == len(acked),
             "the loss bites: the move that waited for its fdatasync is gone",
             (before, keep, st.get("moves")))
        t.ok(rec["type"] == "game_record" and all(m in rec["text"] for m in acked),
             "the game's record has them", rec)
    finally:
        t.ok(stop(srv) == 0, "hokitod stops after the restart", "".join(srv.log[-10:]))


t.run("--fsync always waits for the WAL's fdatasync", always_waits)
t.run("the loop goes on during a slow fdatasync", loop_goes_on)
t.run("--fsync normal does not wait", normal_does_not_wait)
t.run("an acknowledged move survives kill -9 and a power loss", power_loss)
t.done()
