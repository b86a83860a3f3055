#!/usr/bin/env python3
"""test-crash: kill -9 of hokitod in the middle of many games loses no acknowledged move.

The real server runs on one store (an SQLite file, or a PostgreSQL database with
HOKITO_TEST_STORE=pg) under load from scripted players (16 by default): they
pair with `quick` (HOKITO and OXONO, with and without a clock), play random legal moves as fast as
the server answers, and pair again when a game is over. At seeded random moments the server is
killed with SIGKILL (15 times by default), and restarted on the same store (every other time with
--fsync always). Checked, every time:

- every event line any client received (a `moved` to the opponent, the `ok` of the mover...) is in
  the store, byte for byte (read with Python's sqlite3, or psql, while the server is down);
- the players resume with their token and last seq and get exactly the events they missed:
  consecutive seqs from last_seq + 1, and the very bytes their opponent got;
- the rebuilt games hold every acknowledged move (a spectator's `state.moves`);
then, with no more kills, every game that started is played to its end.

Environment: HOKITOD (the binary), CRASH_SEED, CRASH_KILLS, CRASH_PLAYERS. Prints TAP.
"""
import os
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serverlib import Server, Tap, fresh_store  # noqa: E402
from crashlib import (Player, check_rebuilt, check_store, problems, run_players,  # noqa: E402
                      seed)
import crashlib  # noqa: E402

SEED = int(os.environ.get("CRASH_SEED", "20261122"))
KILLS = int(os.environ.get("CRASH_KILLS", "15"))
PLAYERS = int(os.environ.get("CRASH_PLAYERS", "16"))
BUDGET = 80.0  # seconds for the whole test: kills stop early if it runs out

rng = crashlib.rng
tap = Tap()


def main():
    t0 = time.time()
    seed(SEED)
    tmp = tempfile.mkdtemp(prefix="hokito-crash-")
    db = fresh_store(tmp)
    players = [Player("p%02d" % i) for i in range(PLAYERS)]
    kills = checked = rebuilt = restarts_always = 0
    moves_before = 0
    srv = Server(db=db)
    for p in players:
        p.connect(srv.port)
    try:
        for k in range(KILLS):
            if time.time() - t0 > BUDGET * 0.6:
                break
            run_players(players, rng.uniform(0.2, 1.2))
            srv.proc.send_signal(signal.SIGKILL)
            srv.proc.wait()
            kills += 1
            for p in players:
                p.drop()
            n, _ = check_store(players, db, "after kill %d" % kills)
            checked += n
            args = ["--fsync", "always"] if k % 2 == 0 else []
            restarts_always += bool(args)
            srv = Server(*args, db=db)
            if not any("games rebuilt" in l for l in srv.log):
                srv.log_has("games rebuilt", 2)
            for p in players:
                p.connect(srv.port)
            run_players(players, 0.3)  # the resumes and their replays
            rebuilt += check_rebuilt(srv, players)
        seen_moves = sum(1 for p in players for g in p.lines.values()
                         for line in g.values() if b'"type":"moved"' in line)
        tap.ok(kills >= min(KILLS, 5) and not problems,
               "%d kills: every received line stored (%d checks), replays exact, "
               "rebuilt games hold the %d moves checked" % (kills, checked, rebuilt),
               "\n".join(problems))
        tap.ok(restarts_always > 0, "restarts with --fsync always (%d)" % restarts_always)
        # the end: no more pairing; every game that started is played out
        for p in players:
            p.stop_pairing = True

        def all_over():
            for p in players:
                if p.sock is None:
                    continue
                if p.game is not None and p.game not in p.over and p.game in p.started:
                    return False
            return True
        done = run_players(players, 20, until=all_over)
        # those still waiting in an open game leave it
        for p in players:
            if p.sock is not None and p.game is not None and p.game not in p.started:
                p.send({"type": "leave"})
        run_players(players, 0.5)
        tap.ok(done, "every game that started was played to its end after the last restart",
               "\n".join("%s at %s (over: %s)" % (p.name, p.game, p.game in p.over)
                         for p in players))
        status = srv.stop()
        tap.ok(status == 0, "hokitod stops cleanly after the last run",
               "".join(srv.log[-20:]))
        n, games = check_store(players, db, "at the end")
        unfinished = [g for g, s in games.items() if s != "finished"]
        seen_moves = sum(1 for p in players for g in p.lines.values()
                         for line in g.values() if b'"type":"moved"' in line)
        tap.ok(not problems and not unfinished and len(games) > 10,
               "store: %d games, all finished; %d lines received, all stored; %d moved events "
               "seen" % (len(games), n, seen_moves),
               "\n".join(problems + ["unfinished: %s" % unfinished[:20]]))
        print("# seed %d, %d kills, %.1f s" % (SEED, kills, time.time() - t0))
        _ = moves_before
    finally:
        srv.kill()
    tap.done()


main()
