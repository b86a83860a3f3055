#!/usr/bin/env python3
"""store-size.py: how many bytes a hokitod store spends per game and per move.

    python3 tests/bench/store-size.py STORE.db

(tests/bench/store-size.sh fills stores with finished games through loadgen and calls this on
each, after a clean stop of the server: its WAL is copied into the file.)

The store's file is split by SQLite's dbstat table into its B-trees (a table or an index each,
counted in whole pages). The `events` table and its index hold one row per event: a move is one
`moved` row, and the other rows of a game (seated, started, game_over, ...) belong to the game.
Their pages are shared out in proportion to the rows' record bytes (what each row stores, plus
SQLite's few bytes of header and key per row); every other B-tree (games, its indexes, sessions,
counts) is the games' own. So: bytes per move = the moved rows' share of the events pages / moves;
bytes per game = the rest of the file / games. Read-only; prints one line of key=value figures.
"""
import sqlite3
import sys

ROW_OVERHEAD = 12  # SQLite's cell header, rowid and record header, about, per row


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: store-size.py STORE.db")
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    file_bytes = page_size * db.execute("PRAGMA page_count").fetchone()[0]
    trees = dict(db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"))
    events_trees = sum(v for k, v in trees.items()
                       if k == "events" or k.startswith("sqlite_autoindex_events"))
    # the record bytes of the moved rows and of the others (the index holds game_id and seq
    # of each: counted alike for both)
    row = ("LENGTH(game_id) + 8 + 8 + LENGTH(type) + COALESCE(8 + LENGTH(move), 0) "
           "+ LENGTH(body) + %d" % ROW_OVERHEAD)
    moved_bytes, moves = db.execute(
        "SELECT COALESCE(SUM(%s), 0), COUNT(*) FROM events WHERE type = 'moved'" % row).fetchone()
    other_bytes, others = db.execute(
        "SELECT COALESCE(SUM(%s), 0), COUNT(*) FROM events WHERE type <> 'moved'" %
        row).fetchone()
    games = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    finished = db.execute("SELECT COUNT(*) FROM games WHERE status = 'finished'").fetchone()[0]
    kinds = ",".join(k for (k,) in db.execute("SELECT DISTINCT kind FROM games ORDER BY kind"))
    share = moved_bytes / (moved_bytes + other_bytes) if moved_bytes + other_bytes else 0
    per_move = events_trees * share / moves if moves else 0
    per_game = (file_bytes - per_move * moves) / games if games else 0
    print("kind=%s file_bytes=%d games=%d finished=%d moves=%d other_events=%d "
          "moves_per_game=%.1f bytes_per_game=%.0f bytes_per_move=%.0f "
          "bytes_per_finished_game=%.0f events_bytes=%d games_bytes=%d" % (
              kinds, file_bytes, games, finished, moves, others,
              moves / games if games else 0, per_game, per_move,
              file_bytes / finished if finished else 0, events_trees,
              sum(v for k, v in trees.items() if k == "games" or "games" in k)))


if __name__ == "__main__":
    main()
