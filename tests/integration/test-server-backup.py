#!/usr/bin/env python3
"""hokitod backup FILE [--db PATH], end to end: an online copy of the store of a running server
while two players go on playing (the store holds 30,000 finished games first, so that the copy
takes many steps), checked by hokitod --check, then restored as hokitod(8) says (the server
stopped, its -wal and -shm removed, the copy put in the store's place): the restarted server has
every game finished before the backup began, and none of those begun after it ended. A FILE that
exists, no store, :memory: and a PostgreSQL --db (the pg_dump command, the URI without its
password) are refused with their exit statuses. Prints TAP.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from serverlib import HOKITOD, Players, Server, Tap  # noqa: E402
import fairread  # noqa: E402  (tests/bench/fairread.py: fill)

FILLED = 30000


def backup(*args):
    r = subprocess.run([HOKITOD, "backup"] + list(args), capture_output=True, text=True,
                       timeout=120)
    return r.returncode, r.stdout, r.stderr


def test_online(t, tmp):
    db = os.path.join(tmp, "hokito.db")
    Server(db=db).stop()
    fairread.fill(db, FILLED)  # games without events: none loaded (--keep-finished 0)
    srv = Server("--keep-finished", "0", db=db)
    players = Players(srv, most=100000)
    players.start()
    players.wait_games(5)
    copy = os.path.join(tmp, "copy.db")
    began = time.time()
    rc, out, err = backup(copy, "--db", db)
    ended = time.time()
    time.sleep(0.5)  # games after the backup
    t.ok(players.finish() and len(players.games) >= 5, "the players played on",
         (players.error, len(players.games)))
    t.ok(rc == 0 and "quick_check of the copy: ok" in out and " pages (" in out,
         "backup of a running server's store: exit 0, the copy checked", (rc, out, err))
    t.ok(oct(os.stat(copy).st_mode & 0o777) == "0o600", "the copy is its owner's alone",
         oct(os.stat(copy).st_mode))
    before = [g for g, _, e in players.games if e < began]
    after = [g for g, b, _ in players.games if b > ended]
    t.ok(srv.stop() == 0, "the server stops cleanly", "".join(srv.log[-20:]))
    r = subprocess.run([HOKITOD, "--check", "--db", copy], capture_output=True, text=True,
                       timeout=120)
    t.ok(r.returncode == 0 and "sound" in r.stdout, "hokitod --check: the copy is sound",
         r.stdout + r.stderr)
    # the restore, as hokitod(8) says: stopped, the -wal and -shm gone, the copy in its place
    for suffix in ("-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.unlink(db + suffix)
    shutil.copy(copy, db)
    srv = Server("--keep-finished", "0", db=db)
    try:
        c = srv.connect("reader_b")
        missing = [g for g in before
                   if c.request({"type": "record", "game": g})[0]["type"] != "game_record"]
        found = [g for g in after
                 if c.request({"type": "record", "game": g})[0]["type"] == "game_record"]
        r, _ = c.request({"type": "history", "limit": 1})
        t.ok(before and not missing, "restored: every game finished before the backup",
             (len(before), missing))
        t.ok(after and not found, "... and none begun after it", (len(after), found))
        t.ok(r["total"] >= FILLED + len(before), "... the history's total with them",
             r.get("total"))
    finally:
        t.ok(srv.stop() == 0, "the restored server stops cleanly", "".join(srv.log[-20:]))


def test_refused(t, tmp):
    db = os.path.join(tmp, "refused.db")
    Server(db=db).stop()
    there = os.path.join(tmp, "there.db")
    open(there, "w").close()
    rc, out, err = backup(there, "--db", db)
    t.ok(rc == 1 and "exists already" in err and os.path.getsize(there) == 0,
         "a FILE that exists: exit 1, the file untouched", (rc, err))
    new = os.path.join(tmp, "new.db")
    rc, out, err = backup(new, "--db", os.path.join(tmp, "none.db"))
    t.ok(rc == 1 and "no store" in err and not os.path.exists(new),
         "no store: exit 1, no FILE made", (rc, err))
    rc, out, err = backup(new, "--db", ":memory:")
    t.ok(rc == 2 and not os.path.exists(new), ":memory:: exit 2", (rc, err))
    uri = "postgresql://hokito:s3cret@db.example:5432/hokito?password=x&sslmode=require"
    rc, out, err = backup("/srv/backup/hokito.dump", "--db", uri)
    lines = err.strip().splitlines()
    t.ok(rc == 2 and len(lines) == 1 and "pg_dump --format=custom "
         "--file=/srv/backup/hokito.dump "
         "'postgresql://hokito@db.example:5432/hokito?sslmode=require'" in lines[0] and
         "s3cret" not in err and "password" not in err,
         "PostgreSQL: one line, the pg_dump command without the password, exit 2",
         (rc, err))
    rc, out, err = backup()
    t.ok(rc == 2 and "usage" in err, "no FILE: usage, exit 2", (rc, err))


def main():
    t = Tap()
    tmp = tempfile.mkdtemp(prefix="hokitod-backup-")
    try:
        t.run("an online backup, checked and restored", test_online, t, tmp)
        t.run("refusals", test_refused, t, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    t.done()


if __name__ == "__main__":
    main()
