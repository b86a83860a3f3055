#!/usr/bin/env python3
"""test-server-fulldisk: a full disk stops writes, not the server (hokitod(8)).

The store lives on a real, small tmpfs (mounted as root, or in a user and mount namespace of its
own made with `unshare -rm`; if neither works the test says why and is skipped, exit 77). During
play a filler file takes every free page of it, so the next group commit fails with "database
or disk is full". Checked:

- the mover's `ok` (and the opponent's and the spectator's `moved`) are held, not sent;
- moves and creates of other players are refused at once with `store_unavailable`, while `ping`,
  `list` and `history` keep answering them; a player whose lines were not held plays on reading;
- the log says the cause at once and again 30 s later, with what waits;
- no clock runs meanwhile: a first-move timer of 5 s does not end a game during the outage;
- the filler deleted, the held move is acknowledged, the others get it, play resumes with no
  restart, the game is finished and its record has every acknowledged move;
- the same with --fsync always (the held lines wait for the sync of the retry);
- kill -9 while the store cannot write, then a restart on a disk with room: every acknowledged
  move is there, and the held one is not; SIGTERM then stops it all the same;
- an operator's change (the admin socket) is answered only once it is on the disk;
- nothing that is not stored reaches a client: while a move waits, the opponent resuming with
  last_seq does not get it (nor its turn), a new spectator's state and the list stop at the last
  stored event; the held connections answer ping and get the store_waiting notice within a
  second; with room again, store_writable, then everything in order, each event once;
- a create that waits is shown to nobody (its creator resuming is not welcomed, list and watch
  do not find it); after kill -9 every event a client was sent is stored, and the id of the game
  that was never stored is not given out again;
- a profile whose account's rating change waits for the disk waits with it;
- against the computer: its reply to a held move waits too; a spectator who comes meanwhile
  gets the stored state, then both moves in order, each once.

Run by meson (HOKITOD); prints TAP.
"""
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import HOKITOD, Closed, Server, Tap  # noqa: E402

INNER = "HOKITO_FULLDISK_INNER"  # set when this script runs again inside a mount namespace
SIZE = "3m"                      # the tmpfs: room for a few stores, filled at will
LOG_REPEAT_S = 30                # hokitod repeats the cause this often (turn.c: DOWN_LOG_MS)


def skip(why):
    print("1..0 # SKIP %s" % why, flush=True)
    sys.exit(77)


def mount_tmpfs():
    """A small tmpfs of our own; returns its directory, or skips (in the parent) saying why."""
    mnt = tempfile.mkdtemp(prefix="hokito-fulldisk-")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + SIZE, "tmpfs", mnt],
                       capture_output=True, text=True)
    if r.returncode == 0:
        return mnt
    os.rmdir(mnt)
    if os.environ.get(INNER) or shutil.which("unshare") is None:
        skip("cannot mount a tmpfs: %s" % (r.stderr.strip() or "no unshare"))
    # not allowed here: run again in a user and mount namespace, where we may
    p = subprocess.run(["unshare", "-rm", "true"], capture_output=True, text=True)
    if p.returncode != 0:
        skip("cannot mount a tmpfs (%s), nor make a mount namespace (%s)"
             % (r.stderr.strip(), p.stderr.strip()))
    rc = subprocess.call(["unshare", "-rm", sys.executable, os.path.abspath(__file__)],
                         env=dict(os.environ, **{INNER: "1"}))
    sys.exit(rc)


MNT = mount_tmpfs()
FILLER = os.path.join(MNT, "filler")
t = Tap()


def fill():
    """Take every free page of the tmpfs; returns the bytes written."""
    n = 0
    fd = os.open(FILLER, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        while True:
            n += os.write(fd, b"\xa5" * 4096)
    except OSError:
        pass  # ENOSPC: full
    finally:
        os.close(fd)
    return n


def wal_grow(c):
    """A few commits by c (a player at no game), so that the next commit extends the WAL: one
    that grew once is written over from its start after a checkpoint, on pages the filler
    cannot take, and a small commit there would not fail."""
    for _ in range(10):
        c.request({"type": "create", "kind": "hokito"})
        c.request({"type": "leave"})


def make_room():
    os.remove(FILLER)


def clean_up(srv):
    """The end of a test, however it went: srv killed, the tmpfs given its room again."""
    srv.kill()
    if os.path.exists(FILLER):
        make_room()


def is_error(m, code):
    return m.get("type") == "error" and m.get("code") == code


def send_move(c, move, rid):
    c.send({"type": "move", "move": move, "id": rid})


def first_move(c):
    return c.wait_for("your_turn")["moves"][0]


def new_game(srv, name, clock=None, seed=3):
    """A HOKITO game of two new players, black ("-a") to move; returns (a, b, game id)."""
    a = srv.connect(name + "-a")
    b = srv.connect(name + "-b")
    req = {"type": "create", "kind": "hokito", "seat": "black", "seed": seed}
    if clock:
        req["clock"] = clock
    st, _ = a.request(req)
    r, _ = b.request({"type": "join", "game": st["game"]})
    assert r["type"] == "state", r
    return a, b, st["game"]


def play(c, rid):
    """c moves its first legal move; returns (move, reply)."""
    mv = first_move(c)
    send_move(c, mv, rid)
    r, _ = c.reply(rid, 10)
    return mv, r


def stored_moves(db, game):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return [r[0] for r in con.execute(
            "SELECT move FROM events WHERE game_id = ? AND move IS NOT NULL ORDER BY seq",
            (game,))]
    finally:
        con.close()


def outage(fsync):
    """A full disk in the middle of a game, then room again: nothing is lost, play resumes."""
    db = os.path.join(MNT, "play-%s.db" % fsync)
    srv = Server("--fsync", fsync, "--first-move", "5", db=db)
    try:
        a, b, g1 = new_game(srv, "p" + fsync)
        w = srv.connect("watcher-" + fsync)
        w.request({"type": "watch", "game": g1})
        acked = []
        for i, c in enumerate((a, b, a)):
            mv, r = play(c, 10 + i)
            t.ok(r["type"] == "ok",
                 "%s: move %d acknowledged before the disk fills" % (fsync, i + 1), r)
            acked.append(mv)
        c, d, g2 = new_game(srv, "q" + fsync, seed=5)
        mv_c = first_move(c)
        # a timed game whose first-move timer (5 s) runs when the disk fills
        e, f, g3 = new_game(srv, "r" + fsync, clock="5+0", seed=7)
        mv_e = first_move(e)
        w.drain(0.2)
        filled = fill()
        t.ok(filled > 0, "%s: the filler took the %d free bytes" % (fsync, filled))
        held = first_move(b)
        send_move(b, held, 99)
        t.ok(srv.log_has(r"store: cannot write .*(full|No space left)", timeout=10),
             "%s: the log says the store cannot write, and why" % fsync)
        got = b.drain(1.0)
        t.ok(not any(m.get("id") == 99 for m in got),
             "%s: the mover gets no ok while its move is not on the disk" % fsync, got)
        got = a.drain(0.2) + w.drain(0.2)
        t.ok(not any(m.get("type") == "moved" for m in got),
             "%s: the opponent and the spectator do not get the move" % fsync, got)
        t0 = time.time()
        r, _ = c.request({"type": "move", "move": mv_c})
        t.ok(is_error(r, "store_unavailable") and "full" in r.get("text", ""),
             "%s: another game's move: store_unavailable, saying the disk is full" % fsync, r)
        r, _ = c.request({"type": "create", "kind": "oxono"})
        t.ok(is_error(r, "store_unavailable"), "%s: create: store_unavailable" % fsync, r)
        r, _ = d.request({"type": "resign"})
        t.ok(is_error(r, "store_unavailable"), "%s: resign: store_unavailable" % fsync, r)
        r, _ = c.request({"type": "ping"})
        t.ok(r["type"] == "pong", "%s: ping answers" % fsync, r)
        r, _ = c.request({"type": "list"})
        t.ok(r["type"] == "games" and r["total"] >= 3, "%s: list answers" % fsync, r)
        r, _ = c.request({"type": "history"})
        t.ok(r["type"] == "history_page", "%s: history answers" % fsync, r)
        t.ok(time.time() - t0 < 5, "%s: all of them at once (%.2f s)" % (fsync, time.time() - t0))
        late = srv.connect("late-" + fsync)
        t.ok(late.player is not None, "%s: a new connection is welcome" % fsync)
        if fsync == "normal":
            # the cause again after LOG_REPEAT_S, with what waits; meanwhile the first-move
            # timer of g3 (5 s) would have ended it if the clocks ran
            t.ok(srv.log_has(r"store: cannot write for (2[89]|3\d) s: .*writes of \d+ turns wait",
                             timeout=LOG_REPEAT_S + 10),
                 "normal: the log repeats the cause 30 s later, with what waits")
        else:
            time.sleep(6)  # past g3's first-move time
        r, _ = e.request({"type": "ping"})
        t.ok(r["type"] == "pong" and not any(m.get("type") == "game_over" for m in _),
             "%s: no game ended on time meanwhile" % fsync, _)
        make_room()
        r, _ = b.reply(99, 15)
        t.ok(r["type"] == "ok", "%s: room made: the held move is acknowledged" % fsync, r)
        acked.append(held)
        m = a.wait_for("moved")
        t.ok(m["move"] == held, "%s: the opponent gets it" % fsync, m)
        m = w.wait_for("moved")
        t.ok(m["move"] == held, "%s: so does the spectator" % fsync, m)
        t.ok(srv.log_has(r"store: writable again after \d+\.\d s"),
             "%s: the log says the store is writable again, and after how long" % fsync)
        r, _ = e.request({"type": "move", "move": mv_e})
        t.ok(r["type"] == "ok", "%s: the timed game's first move is still on time" % fsync, r)
        r, _ = c.request({"type": "move", "move": mv_c})
        t.ok(r["type"] == "ok", "%s: the refused move, sent again, is played" % fsync, r)
        mv, r = play(a, 100)
        t.ok(r["type"] == "ok", "%s: play resumes without a restart" % fsync, r)
        acked.append(mv)
        r, _ = b.request({"type": "resign"})
        t.ok(r["type"] == "ok", "%s: and the game is finished" % fsync, r)
        r, _ = a.request({"type": "record", "game": g1})
        text = r.get("text", "")
        t.ok(r["type"] == "game_record" and all(mv in text for mv in acked),
             "%s: its record has every acknowledged move" % fsync, r)
        t.ok(stored_moves(db, g1) == acked, "%s: and so has the store, in order" % fsync,
             (stored_moves(db, g1), acked))
        for x in (a, b, c, d, e, f, w, late):
            x.close()
        t.ok(srv.stop() == 0, "%s: hokitod stops cleanly" % fsync)
    finally:
        clean_up(srv)


def stored_seqs(db, game):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return {r[0] for r in con.execute("SELECT seq FROM events WHERE game_id = ?", (game,))}
    finally:
        con.close()


def shown(clients):
    """{game: every seq some client was sent} over clients (serverlib records each event)."""
    out = {}
    for c in clients:
        for g, seqs in c.events.items():
            out.setdefault(g, set()).update(seqs)
    return out


def notice(c, code, timeout):
    """The first notice of code within timeout, else None; the rest read is kept."""
    try:
        m = c.wait_for("notice", timeout)
    except (TimeoutError, Closed):
        return None
    return m if m.get("code") == code else None


def http_head(path, port):
    """GET path on the HTTP port: (status, the response's head as text)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sk:
        sk.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n"
                    % (path, port)).encode())
        data = b""
        while b"\r\n\r\n" not in data:
            more = sk.recv(4096)
            if not more:
                break
            data += more
    head = data.split(b"\r\n\r\n")[0].decode("latin-1")
    m = re.match(r"HTTP/1\.[01] (\d+)", head)
    return (int(m.group(1)) if m else 0), head


def resume(srv, token, last_seq):
    c = srv.connect()
    c.send({"type": "hello", "protocol": 1, "token": token, "last_seq": last_seq, "id": "r"})
    return c


def views_while_down():
    """While a move waits for the disk, nobody is shown it: not a resuming opponent, not a new
    spectator, not the list; the held connections answer ping and say why they wait; with room
    again, everything goes out in order, once."""
    db = os.path.join(MNT, "views.db")
    srv = Server("--listen-http", "127.0.0.1:0", db=db)
    try:
        a, b, g = new_game(srv, "v")
        w = srv.connect("v-watch")
        w.request({"type": "watch", "game": g})
        acked = [play(c, 10 + i)[0] for i, c in enumerate((a, b, a))]
        last = max(a.events[g])  # the last stored event, as everybody saw it
        a.drain(0.2)
        w.drain(0.2)
        fill()
        held = first_move(b)
        t0 = time.time()
        send_move(b, held, 99)
        m = notice(b, "store_waiting", 1.0)
        t.ok(m is not None and "disk is full" in m.get("text", ""),
             "views: the mover is told at once that its reply waits for the store (%.0f ms)"
             % ((time.time() - t0) * 1000), m)
        rtts = []
        for i in range(5):
            t1 = time.time()
            b.send({"type": "ping", "id": 200 + i})
            r, before = b.reply(200 + i, 1.0)
            rtts.append((time.time() - t1) * 1000)
        t.ok(r["type"] == "pong" and not any(x.get("id") == 99 for x in before),
             "views: the held connection answers ping (round trip %.2f ms at most of 5)"
             % max(rtts), (r, before))
        t.ok(notice(a, "store_waiting", 1.0) is not None and
             notice(w, "store_waiting", 1.0) is not None,
             "views: so are the opponent and the spectator, whose lines wait too")
        # the opponent drops and resumes with the last seq it saw
        a2 = resume(srv, a.token, last)
        r = a2.recv()
        got = a2.drain(1.0)
        t.ok(r["type"] == "welcome" and r["game"] == g,
             "views: the opponent resumes its seat", r)
        t.ok(not any(x.get("type") in ("moved", "your_turn") for x in got) and
             any(x.get("type") == "notice" and x.get("code") == "store_waiting" for x in got),
             "views: its resume after seq %d does not get the held move nor its turn, and says "
             "why it waits" % last, got)
        n = srv.connect("v-new")
        st, _ = n.request({"type": "watch", "game": g})
        t.ok(st["type"] == "state" and st["seq"] == last and st["moves"] == acked and
             st["ply"] == len(acked),
             "views: a new spectator's state is the last stored one (seq %d, %d moves)"
             % (last, len(acked)), st)
        status, head = http_head("/api/stream/game/" + g, srv.http_port)
        t.ok(status == 503 and re.search(r"(?im)^retry-after: *\d+", head),
             "views: a new HTTP stream of the game is told to come back (503, Retry-After), "
             "not shown the held move", head)
        c = srv.connect("v-look")
        r, _ = c.request({"type": "list"})
        ply = [x["ply"] for x in r.get("games", []) if x["game"] == g]
        rec, _ = c.request({"type": "record", "game": g})
        movetext = rec.get("text", "").split("\n\n")[-1].split()
        recorded = [x for x in movetext if not re.match(r"^\d+\.$", x) and
                    x not in ("*", "black", "white", "draw")]
        t.ok(ply == [len(acked)] and recorded == acked,
             "views: list shows the stored ply (%s), as record does (%s)" % (ply, recorded),
             (r, rec))
        make_room()
        r, before = b.reply(99, 15)
        t.ok(r["type"] == "ok" and any(x.get("type") == "notice" and
                                         x.get("code") == "store_writable" for x in before),
             "views: room made: the mover is told, then gets its ok", (r, before))
        m = a2.wait_for("moved")
        t.ok(m["seq"] == last + 1 and m["move"] == held,
             "views: the resumed opponent gets the held move, next after what it was shown", m)
        rest = a2.drain(0.3)
        turn = [x for x in rest if x.get("type") == "your_turn"]
        t.ok(turn, "views: and then its turn", rest)
        m = n.wait_for("moved")
        t.ok(m["seq"] == last + 1 and m["move"] == held,
             "views: the new spectator gets it, next after its state", m)
        m = w.wait_for("moved")
        t.ok(m["seq"] == last + 1, "views: so does the first spectator", m)
        send_move(a2, turn[0]["moves"][0], 300)
        r, _ = a2.reply(300, 10)
        t.ok(r["type"] == "ok", "views: play goes on", r)
        for x in (n, w, b):
            x.wait_for("moved")
            x.drain(0.2)  # serverlib fails on an event seen twice
        t.ok(all(sorted(x.events[g]) == list(range(min(x.events[g]), last + 3))
                 for x in (a2, n, w, b)),
             "views: every connection got each event once, with no gap",
             [sorted(x.events[g]) for x in (a2, n, w, b)])
        for x in (a2, b, c, n, w):
            x.close()
        t.ok(srv.stop() == 0, "views: hokitod stops cleanly")
    finally:
        clean_up(srv)


def create_while_down():
    """A create that waits for the disk: its game is shown to nobody (not the creator resuming,
    not the list); after kill -9 and a restart, every event a client was shown is stored, and
    the id of the game that was never stored is not given out again."""
    db = os.path.join(MNT, "create.db")
    srv = Server(db=db)
    clients = []
    try:
        a, b, g = new_game(srv, "cr")
        play(a, 10)
        d = srv.connect("cr-d")
        clients += [a, b, d]
        wal_grow(d)
        fill()
        logged = len(srv.log)
        d.send({"type": "create", "kind": "hokito", "id": 7})
        t.ok(notice(d, "store_waiting", 1.0) is not None,
             "create: its connection is told that it waits for the store")
        held_id = None
        for _ in range(50):
            m = [re.search(r"created game (g\d+)", x) for x in srv.log[logged:] if "cr-d" in x]
            m = [x for x in m if x]
            if m:
                held_id = m[0].group(1)
                break
            time.sleep(0.02)
        t.ok(held_id is not None, "create: the log names the game that waits", srv.log[-3:])
        d2 = resume(srv, d.token, 0)
        clients.append(d2)
        got = d2.drain(1.0)
        t.ok(not any(x.get("type") == "welcome" for x in got) and
             any(x.get("type") == "notice" and x.get("code") == "store_waiting" for x in got),
             "create: its creator resuming is not welcomed at a game that is not stored", got)
        d2.send({"type": "ping", "id": 5})
        r, _ = d2.reply(5, 1.0)
        t.ok(r["type"] == "pong", "create: but its ping is answered", r)
        c = srv.connect("cr-look")
        clients.append(c)
        r, _ = c.request({"type": "list"})
        t.ok(r["type"] == "games" and held_id not in [x["game"] for x in r["games"]],
             "create: list does not show it", r)
        r, _ = c.request({"type": "watch", "game": held_id})
        t.ok(r["type"] == "error" and r["code"] == "no_such_game",
             "create: watch does not find it", r)
        # every line received so far: none names the game that is not stored
        t.ok(not any(json.loads(l).get(k) == held_id for x in clients for l in x.lines
                     for k in ("game", "new_game")),
             "create: no client was sent its id")
        # new guests meanwhile: welcomed with new player ids until the mark the store holds
        ids, refused = [], None
        for i in range(400):
            x = srv.connect()
            r, _ = x.request({"type": "hello", "protocol": 1, "name": "cr-g%d" % i})
            x.close()
            if r["type"] != "welcome":
                refused = r
                break
            ids.append(int(r["player"]["id"][1:]))
        t.ok(refused is not None and refused.get("code") == "store_unavailable" and
             len(ids) >= 100,
             "create: %d guests welcomed meanwhile, then hello is refused (store_unavailable) "
             "at the stored mark" % len(ids), refused)
        t.ok(srv.log_has(r"hellos refused lately: the store cannot write"),
             "create: the log says why hellos are refused")
        srv.proc.send_signal(signal.SIGKILL)
        srv.proc.wait()
    finally:
        clean_up(srv)
    # (the games the guest opened and left never started: the store drops those, PROTOCOL.md
    # 12.1, and nobody may resume them)
    seen = shown(clients)
    t.ok(seen.get(g) and seen[g] <= stored_seqs(db, g),
         "create: after kill -9, every event of the game that a client was sent is stored",
         (sorted(seen.get(g, ())), sorted(stored_seqs(db, g))))
    srv2 = Server(db=db)
    try:
        e = srv2.connect("cr-e")
        t.ok(int(e.player["id"][1:]) > max(ids),
             "create: after the restart, no player id given out meanwhile is given again "
             "(p%d, then %s)" % (max(ids), e.player["id"]))
        st, _ = e.request({"type": "create", "kind": "hokito"})
        t.ok(st["type"] == "state" and st["game"] != held_id,
             "create: after the restart, the new game's id is not the one that was not "
             "stored (%s, then %s)" % (held_id, st.get("game")), st)
        e.close()
        t.ok(srv2.stop() == 0, "create: the restarted hokitod stops cleanly")
    finally:
        srv2.kill()


def kill_while_down():
    """kill -9 while the store cannot write; a restart with room has every acknowledged move."""
    db = os.path.join(MNT, "kill.db")
    srv = Server(db=db)
    a, b, g = new_game(srv, "k")
    acked = []
    for i, c in enumerate((a, b)):
        mv, r = play(c, 10 + i)
        acked.append(mv)
    w = srv.connect("k-watch")
    w.request({"type": "watch", "game": g})
    last = max(b.events[g])
    fill()
    send_move(a, first_move(a), 99)
    t.ok(srv.log_has(r"store: cannot write"), "kill: the store cannot write")
    got = a.drain(0.5)
    t.ok(not any(m.get("id") == 99 for m in got), "kill: the move is not acknowledged", got)
    # what others read meanwhile: the opponent resuming, a new spectator, the list
    b2 = resume(srv, b.token, last)
    n = srv.connect("k-new")
    n.request({"type": "watch", "game": g})
    c = srv.connect("k-look")
    r, _ = c.request({"type": "list"})
    readers = [a, b, b2, w, n, c]
    for x in readers:
        x.drain(0.3)
    t.ok([x["ply"] for x in r["games"] if x["game"] == g] == [len(acked)],
         "kill: list shows the stored ply", r)
    srv.proc.send_signal(signal.SIGKILL)
    srv.proc.wait()
    make_room()
    seen = shown(readers)
    t.ok(seen.get(g) and max(seen[g]) == last and seen[g] <= stored_seqs(db, g),
         "kill: every event a client was sent (up to seq %d) is stored" % last,
         (sorted(seen.get(g, ())), sorted(stored_seqs(db, g))))
    srv2 = Server(db=db)
    try:
        t.ok(stored_moves(db, g) == acked, "kill: a restart with room has every acknowledged "
             "move, and not the held one", (stored_moves(db, g), acked))
        c = srv2.connect()
        r, _ = c.request({"type": "hello", "protocol": 1, "token": a.token, "last_seq": 0})
        t.ok(r["type"] == "welcome", "kill: the mover resumes its seat", r)
        evs = c.drain(0.5)
        moved = [m["move"] for m in evs if m.get("type") == "moved"]
        t.ok(moved == acked, "kill: and hears of the acknowledged moves only", moved)
        c.close()
        t.ok(srv2.stop() == 0, "kill: the restarted hokitod stops cleanly")
    finally:
        srv2.kill()


def stop_while_down():
    """SIGTERM while the store cannot write: hokitod stops, says what it gives up, and nobody
    heard of it; a restart with room has every acknowledged move."""
    db = os.path.join(MNT, "stop.db")
    srv = Server(db=db)
    try:
        a, b, g = new_game(srv, "s")
        acked = [play(a, 10)[0]]
        fill()
        send_move(b, first_move(b), 99)
        t.ok(srv.log_has(r"store: cannot write"), "stop: the store cannot write")
        status = srv.stop()
        t.ok(status == 0, "stop: SIGTERM stops hokitod all the same", (status, srv.log[-5:]))
        t.ok(any(re.search(r"store: stopping while it cannot write: \d+ writes of \d+ turns are "
                           r"lost", x) for x in srv.log),
             "stop: the log says what is given up", srv.log[-5:])
        got = []
        try:
            while True:
                got.append(b.recv(0.3))
        except (Closed, TimeoutError):
            pass  # closed without the held lines
        t.ok(not any(m.get("id") == 99 for m in got), "stop: the move was not acknowledged", got)
    finally:
        srv.kill()
        make_room()
    t.ok(stored_moves(db, g) == acked, "stop: the store has every acknowledged move",
         (stored_moves(db, g), acked))


def computer_while_down():
    """A game against the computer during an outage: the person's move waits, the computer's
    reply (a write too) waits behind it; a spectator who comes meanwhile gets the stored state,
    then, with room again, both moves in order, each once."""
    db = os.path.join(MNT, "computer.db")
    srv = Server(db=db)
    try:
        p = srv.connect("cp")
        st, _ = p.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 3,
                           "opponent": "computer", "level": 1})
        g = st["game"]
        mv, r = play(p, 10)
        t.ok(r["type"] == "ok", "computer: the first move is played", r)
        turn = p.wait_for("your_turn")  # the computer replied
        p.drain(0.2)
        stored = max(p.events[g])
        v = srv.connect("cp-look")
        wal_grow(v)
        fill()
        send_move(p, turn["moves"][0], 99)  # the turn whose commit fails
        t.ok(notice(p, "store_waiting", 1.0) is not None,
             "computer: the person's move waits for the store")
        n = srv.connect("cp-new")
        st, _ = n.request({"type": "watch", "game": g})
        t.ok(st["type"] == "state" and st["seq"] == stored,
             "computer: a spectator meanwhile gets the stored state (seq %d)" % stored, st)
        time.sleep(1.0)  # the computer's reply, a write that waits too
        make_room()
        r, _ = p.reply(99, 15)
        t.ok(r["type"] == "ok", "computer: room made: the person's move is acknowledged", r)
        m = p.wait_for("your_turn", 15)
        t.ok(m["type"] == "your_turn", "computer: the computer replied, the person's turn again")
        n.wait_for("moved")
        n.drain(0.5)
        seqs = sorted(n.events[g])
        t.ok(seqs == list(range(stored + 1, stored + 3)),
             "computer: the spectator got both moves, in order, once", seqs)
        for x in (p, v, n):
            x.close()
        t.ok(srv.stop() == 0, "computer: hokitod stops cleanly")
    finally:
        clean_up(srv)


def profile_while_down():
    """A rated game's end that waits for the disk: the profile of its players, whose ratings
    memory already changed, is answered once the change is stored, not before."""
    db = os.path.join(MNT, "profile.db")
    # both players come from 127.0.0.1: a rated game between them needs the operator's leave
    srv = Server("--allow-shared-address", db=db)
    try:
        acc = []
        for name in ("Ann", "Ben"):
            c = srv.connect()
            r, _ = c.request({"type": "register", "name": name, "password": "correct horse b"})
            t.ok(r["type"] == "welcome", "profile: %s registers" % name, r)
            acc.append(c)
        ann, ben = acc
        st, _ = ann.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 5,
                             "rated": True})
        ben.request({"type": "join", "game": st["game"]})
        for rid, c in enumerate((ann, ben, ann, ben), 10):  # rated once 4 plies are played
            play(c, rid)
        v = srv.connect("p-look")
        wal_grow(v)
        fill()
        ann.send({"type": "resign", "id": 99})
        t.ok(notice(ann, "store_waiting", 1.0) is not None,
             "profile: the resignation waits for the store")
        v.send({"type": "profile", "name": "Ann", "id": 5})
        t.ok(notice(v, "store_waiting", 1.0) is not None,
             "profile: a profile of Ann, whose rating change is not stored, waits too")
        v.send({"type": "ping", "id": 6})
        r, before = v.reply(6, 1.0)
        t.ok(r["type"] == "pong" and not any(x.get("id") == 5 for x in before),
             "profile: the pong comes, the profile does not", (r, before))
        make_room()
        r, _ = v.reply(5, 15)
        t.ok(r["type"] == "profile" and r["ratings"].get("hokito", {}).get("games") == 1,
             "profile: room made: the profile comes, with the rated game", r)
        r, _ = ann.reply(99, 10)
        t.ok(r["type"] == "ok", "profile: and the resignation is acknowledged", r)
        for x in (ann, ben, v):
            x.close()
        t.ok(srv.stop() == 0, "profile: hokitod stops cleanly")
    finally:
        clean_up(srv)


def admin_while_down():
    """An operator's change while the store cannot write: answered only once it is durable."""
    db = os.path.join(MNT, "admin.db")
    srv = Server(db=db)
    try:
        c = srv.connect()
        r, _ = c.request({"type": "register", "name": "Alice", "password": "correct horse b"})
        t.ok(r["type"] == "welcome", "admin: Alice registers", r)
        g = srv.connect("guest")
        wal_grow(g)
        fill()
        g.send({"type": "create", "kind": "hokito", "id": 7})
        t.ok(srv.log_has(r"store: cannot write"), "admin: the store cannot write")
        p = subprocess.Popen([HOKITOD, "accounts", "--db", db, "set-bot", "Alice"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        t.ok(p.poll() is None, "admin: set-bot is not answered while it is not on the disk")
        make_room()
        out, err = p.communicate(timeout=20)
        t.ok(p.returncode == 0, "admin: room made, it is answered", (out, err))
        r = subprocess.run([HOKITOD, "accounts", "--db", db, "list"], capture_output=True,
                           text=True, timeout=20)
        t.ok(r.returncode == 0 and " bot " in r.stdout, "admin: and Alice is a bot", r)
        r, _ = g.reply(7, 10)
        t.ok(r["type"] == "state", "admin: the held create is answered too", r)
        g.close()
        t.ok(srv.stop() == 0, "admin: hokitod stops cleanly")
    finally:
        clean_up(srv)


try:
    t.run("a full disk during play, --fsync normal", outage, "normal")
    t.run("a full disk during play, --fsync always", outage, "always")
    t.run("what others read while a move waits for the disk", views_while_down)
    t.run("kill -9 while the store cannot write", kill_while_down)
    t.run("a create that waits for the disk, then kill -9", create_while_down)
    t.run("SIGTERM while the store cannot write", stop_while_down)
    t.run("an operator's change while the store cannot write", admin_while_down)
    t.run("a profile while a rated game's end waits for the disk", profile_while_down)
    t.run("a game against the computer while the disk is full", computer_while_down)
finally:
    subprocess.run(["umount", "-l", MNT], capture_output=True)
    try:
        os.rmdir(MNT)
    except OSError:
        pass
t.done()
