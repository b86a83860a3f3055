#!/usr/bin/env python3
"""test-pg-outage: PostgreSQL going away under load loses nothing and ends no game.

hokitod runs on a PostgreSQL store (a throw-away server, tests/pgtmp.py) under load from
scripted players (crashlib.py: they pair, play random legal moves as fast as the server answers,
and send again a move refused with store_unavailable). Under that load, twice:

- the database server is stopped at once (`pg_ctl stop -m immediate`, as a crash would) and
  started again after a while;
- hokitod's connections are killed from the database side (`pg_terminate_backend`).

Checked each time: hokitod keeps running and keeps every connection; while the database is away
no move is acknowledged that is not stored, and writes are refused or held (the log says the
store cannot be reached); once it is back play resumes by itself (moves are acknowledged again
within the retry's few seconds) and the log says when it recovered. At the end every line any
player received is in the store byte for byte, and the games go on to their end.

Environment: HOKITOD (the binary), OUTAGE_SEED, OUTAGE_PLAYERS. Prints TAP.
"""
import os
import sys
import time

os.environ["HOKITO_TEST_STORE"] = "pg"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap, pg_server  # noqa: E402
from crashlib import Player, check_store, problems, run_players, seed  # noqa: E402

SEED = int(os.environ.get("OUTAGE_SEED", "20261202"))
PLAYERS = int(os.environ.get("OUTAGE_PLAYERS", "12"))

tap = Tap()


def moves_seen(players):
    """moved events the players have received, in all."""
    return sum(1 for p in players for g in p.lines.values() for line in g.values()
               if b'"type":"moved"' in line)


def resumes(players, srv, seconds):
    """Serve until more moves are acknowledged than before; returns the seconds it took, or
    None if play did not resume within seconds."""
    before = moves_seen(players)
    t0 = time.time()
    run_players(players, seconds, until=lambda: moves_seen(players) > before + len(players))
    if moves_seen(players) <= before + len(players):
        return None
    return time.time() - t0


def outage(name, players, srv, cut, restore):
    """One outage: cut() takes the database away, restore() brings it back."""
    run_players(players, 1.5)
    log_from = len(srv.log)
    cut()
    run_players(players, 2.0)
    down_log = "".join(srv.log[log_from:])
    alive = srv.proc.poll() is None
    connected = all(p.sock is not None for p in players)
    restore()
    took = resumes(players, srv, 20)
    tap.ok(alive and connected, "%s: hokitod and its %d connections stay" % (name, len(players)),
           "exited %s" % srv.proc.poll())
    tap.ok("cannot write" in down_log or "cannot reach" in down_log or
           "connection" in down_log,
           "%s: the log says the store went away" % name, down_log[-2000:])
    tap.ok(took is not None, "%s: play resumes by itself (%.1f s after the database is back)" % (
        name, took if took is not None else -1), "".join(srv.log[-30:]))
    tap.ok(srv.log_has("writable again|recovered|reconnected", 5),
           "%s: the log says when it recovered" % name, "".join(srv.log[-30:]))


def terminate(pg, db):
    """Kill every connection to db's database from the database side (pg_terminate_backend)."""
    name = db.split("@/", 1)[1].split("?", 1)[0]
    pg.psql("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
            "WHERE datname = '%s' AND pid <> pg_backend_pid()" % name)


def main():
    seed(SEED)
    pg = pg_server()
    players = [Player("q%02d" % i) for i in range(PLAYERS)]
    srv = Server("--fsync", "always")
    db = srv.db
    for p in players:
        p.connect(srv.port)
    try:
        outage("pg_ctl stop -m immediate", players, srv,
               lambda: pg.stop("immediate"), lambda: (time.sleep(1.0), pg.start()))
        outage("pg_terminate_backend", players, srv,
               lambda: terminate(pg, db), lambda: None)
        tap.ok(not problems, "no player saw a gap or a change in its events",
               "\n".join(problems))
        run_players(players, 1.0)
        status = srv.stop()
        tap.ok(status == 0, "hokitod stops cleanly", "".join(srv.log[-20:]))
        n, games = check_store(players, db, "at the end")
        tap.ok(not problems and n > 0,
               "every line received is stored (%d lines, %d games, %d moves seen)" % (
                   n, len(games), moves_seen(players)), "\n".join(problems))
        print("# seed %d" % SEED)
    finally:
        srv.kill()
    tap.done()


main()
