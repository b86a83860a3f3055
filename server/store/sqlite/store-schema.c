/*
 * store-schema.c: the schema of the SQLite store as data, the migrations array (migrations[v - 1]
 * takes a file from schema v - 1 to v), the code that applies them at open (store_migrate(),
 * called by store_start()), and the full check of a file (store_check(), for hokitod --check):
 * SQLite's page check, then the rules of our own that a sound file keeps. It owns no state (the
 * schema version it reads and moves is the struct store's); it calls store.c's helpers only, and
 * never libuv.
 */
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "store.h"
#include "store-impl.h"

/*
 * The migrations, in order: migrations[v - 1] takes a file from schema v - 1 to v. A new file
 * runs all of them. Never edit one that has shipped: add the next. Each runs in one transaction
 * with the PRAGMA user_version that records it, so a crash mid-migration leaves the old version.
 *
 * Seeds are unsigned 64-bit numbers kept in SQLite's signed INTEGER (same bits). Times are Unix
 * epoch milliseconds.
 */
static const char *const migrations[] = {
        /* 1: games with their seats and end, events with moves, sessions of seated players */
        "CREATE TABLE games ("
        "  id TEXT PRIMARY KEY,"
        "  serial INTEGER NOT NULL UNIQUE," /* 1, 2, 3 ... in creation order: a gap is a loss */
        "  kind TEXT NOT NULL CHECK (kind IN ('hokito', 'oxono')),"
        "  variant TEXT NOT NULL,"
        "  seed INTEGER NOT NULL,"
        "  private INTEGER NOT NULL CHECK (private IN (0, 1)),"
        "  code TEXT NOT NULL,"
        "  status TEXT NOT NULL CHECK (status IN ('open', 'live', 'finished')),"
        "  created_ms INTEGER NOT NULL,"
        "  seat0_id TEXT, seat0_name TEXT, seat1_id TEXT, seat1_name TEXT,"
        "  ended_ms INTEGER, result TEXT, winner INTEGER, reason TEXT,"
        "  score0 INTEGER, score1 INTEGER);"
        "CREATE TABLE events ("
        "  game_id TEXT NOT NULL REFERENCES games(id),"
        "  seq INTEGER NOT NULL CHECK (seq >= 1),"
        "  time_ms INTEGER NOT NULL,"
        "  type TEXT NOT NULL,"
        "  ply INTEGER,"        /* moved: 1, 2, 3 ... within the game */
        "  move TEXT,"          /* moved: canonical move text */
        "  body TEXT NOT NULL," /* the line as sent, for byte-exact replay on reconnect */
        "  CHECK ((type = 'moved') = (move IS NOT NULL)),"
        "  CHECK ((move IS NULL) = (ply IS NULL)),"
        "  PRIMARY KEY (game_id, seq)) WITHOUT ROWID;"
        "CREATE TABLE sessions ("
        "  token TEXT PRIMARY KEY,"
        "  player_id TEXT NOT NULL,"
        "  name TEXT NOT NULL,"
        "  game_id TEXT NOT NULL REFERENCES games(id),"
        "  seat INTEGER NOT NULL CHECK (seat IN (0, 1)),"
        "  updated_ms INTEGER NOT NULL);",
        /* 2: named counters for the server; indexes for history and start-up */
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;"
        "INSERT INTO meta (key, value) SELECT 'games', COUNT(*) FROM games;"
        "CREATE INDEX games_history ON games (ended_ms DESC, serial DESC)"
        "  WHERE status = 'finished';"
        "CREATE INDEX games_unfinished ON games (serial) WHERE status <> 'finished';",
        /* 3: the adjourned status and each game's time control ("none" or "M+S") */
        "CREATE TABLE games3 ("
        "  id TEXT PRIMARY KEY,"
        "  serial INTEGER NOT NULL UNIQUE,"
        "  kind TEXT NOT NULL CHECK (kind IN ('hokito', 'oxono')),"
        "  variant TEXT NOT NULL,"
        "  seed INTEGER NOT NULL,"
        "  private INTEGER NOT NULL CHECK (private IN (0, 1)),"
        "  code TEXT NOT NULL,"
        "  status TEXT NOT NULL CHECK (status IN ('open', 'live', 'adjourned', 'finished')),"
        "  created_ms INTEGER NOT NULL,"
        "  seat0_id TEXT, seat0_name TEXT, seat1_id TEXT, seat1_name TEXT,"
        "  ended_ms INTEGER, result TEXT, winner INTEGER, reason TEXT,"
        "  score0 INTEGER, score1 INTEGER,"
        "  clock TEXT NOT NULL DEFAULT 'none');"
        "INSERT INTO games3 (id, serial, kind, variant, seed, private, code, status, created_ms,"
        "  seat0_id, seat0_name, seat1_id, seat1_name, ended_ms, result, winner, reason, score0,"
        "  score1) SELECT id, serial, kind, variant, seed, private, code, status, created_ms,"
        "  seat0_id, seat0_name, seat1_id, seat1_name, ended_ms, result, winner, reason, score0,"
        "  score1 FROM games;"
        "DROP TABLE games;"
        "ALTER TABLE games3 RENAME TO games;"
        "CREATE INDEX games_history ON games (ended_ms DESC, serial DESC)"
        "  WHERE status = 'finished';"
        "CREATE INDEX games_unfinished ON games (serial) WHERE status <> 'finished';",
        /*
         * 4: events in a rowid table, so that the rows of one turn (one event each of many
         * games) are appended together at the end of the file instead of landing each in its
         * own game's page of a table keyed by (game_id, seq): a commit writes one or two pages
         * of rows and the small index pages, not a page a game (WAL 40 -> 15 us an event with
         * 5000 games at once, 16 -> 6 us with 25; from a scratch benchmark of both schemas).
         * And no IN lists in the CHECKs of games and sessions: SQLite builds a temporary table
         * for an IN list at every INSERT or UPDATE it checks (5.7 against 2.5 us a status
         * UPDATE); the same values spelled with OR.
         */
        "CREATE TABLE events4 ("
        "  id INTEGER PRIMARY KEY,"
        "  game_id TEXT NOT NULL REFERENCES games(id),"
        "  seq INTEGER NOT NULL CHECK (seq >= 1),"
        "  time_ms INTEGER NOT NULL,"
        "  type TEXT NOT NULL,"
        "  ply INTEGER,"
        "  move TEXT,"
        "  body TEXT NOT NULL,"
        "  CHECK ((type = 'moved') = (move IS NOT NULL)),"
        "  CHECK ((move IS NULL) = (ply IS NULL)),"
        "  UNIQUE (game_id, seq));"
        "INSERT INTO events4 (game_id, seq, time_ms, type, ply, move, body)"
        "  SELECT game_id, seq, time_ms, type, ply, move, body FROM events ORDER BY game_id, seq;"
        "DROP TABLE events;"
        "ALTER TABLE events4 RENAME TO events;"
        "CREATE TABLE games4 ("
        "  id TEXT PRIMARY KEY,"
        "  serial INTEGER NOT NULL UNIQUE,"
        "  kind TEXT NOT NULL CHECK (kind = 'hokito' OR kind = 'oxono'),"
        "  variant TEXT NOT NULL,"
        "  seed INTEGER NOT NULL,"
        "  private INTEGER NOT NULL CHECK (private = 0 OR private = 1),"
        "  code TEXT NOT NULL,"
        "  status TEXT NOT NULL CHECK (status = 'open' OR status = 'live' OR"
        "    status = 'adjourned' OR status = 'finished'),"
        "  created_ms INTEGER NOT NULL,"
        "  seat0_id TEXT, seat0_name TEXT, seat1_id TEXT, seat1_name TEXT,"
        "  ended_ms INTEGER, result TEXT, winner INTEGER, reason TEXT,"
        "  score0 INTEGER, score1 INTEGER,"
        "  clock TEXT NOT NULL DEFAULT 'none');"
        "INSERT INTO games4 SELECT * FROM games ORDER BY rowid;"
        "DROP TABLE games;"
        "ALTER TABLE games4 RENAME TO games;"
        "CREATE INDEX games_history ON games (ended_ms DESC, serial DESC)"
        "  WHERE status = 'finished';"
        "CREATE INDEX games_unfinished ON games (serial) WHERE status <> 'finished';"
        "CREATE TABLE sessions4 ("
        "  token TEXT PRIMARY KEY,"
        "  player_id TEXT NOT NULL,"
        "  name TEXT NOT NULL,"
        "  game_id TEXT NOT NULL REFERENCES games(id),"
        "  seat INTEGER NOT NULL CHECK (seat = 0 OR seat = 1),"
        "  updated_ms INTEGER NOT NULL);"
        "INSERT INTO sessions4 SELECT * FROM sessions;"
        "DROP TABLE sessions;"
        "ALTER TABLE sessions4 RENAME TO sessions;",
        /* 5: the kind is no longer checked by the schema but by the program, against its registry
         * of game kinds (common/games.c), so a new kind needs no schema change */
        "CREATE TABLE games5 ("
        "  id TEXT PRIMARY KEY,"
        "  serial INTEGER NOT NULL UNIQUE,"
        "  kind TEXT NOT NULL,"
        "  variant TEXT NOT NULL,"
        "  seed INTEGER NOT NULL,"
        "  private INTEGER NOT NULL CHECK (private = 0 OR private = 1),"
        "  code TEXT NOT NULL,"
        "  status TEXT NOT NULL CHECK (status = 'open' OR status = 'live' OR"
        "    status = 'adjourned' OR status = 'finished'),"
        "  created_ms INTEGER NOT NULL,"
        "  seat0_id TEXT, seat0_name TEXT, seat1_id TEXT, seat1_name TEXT,"
        "  ended_ms INTEGER, result TEXT, winner INTEGER, reason TEXT,"
        "  score0 INTEGER, score1 INTEGER,"
        "  clock TEXT NOT NULL DEFAULT 'none');"
        "INSERT INTO games5 SELECT * FROM games ORDER BY rowid;"
        "DROP TABLE games;"
        "ALTER TABLE games5 RENAME TO games;"
        "CREATE INDEX games_history ON games (ended_ms DESC, serial DESC)"
        "  WHERE status = 'finished';"
        "CREATE INDEX games_unfinished ON games (serial) WHERE status <> 'finished';",
        /*
         * 6: history by key and a kept count. A history page was a COUNT(*) over every finished
         * public game and an OFFSET scan; now the count is kept in `counts`, moved by triggers in
         * the same transaction as the finish (or the insert of a game already finished, as a bulk
         * import does), and pages go by (ended_ms, serial) down an index of the finished public
         * games alone. The finished private games get an index of their own, for the load at
         * start-up, which took them from the index of all finished games (a scan of all of it when
         * private games are few).
         */
        "CREATE TABLE counts (name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;"
        "INSERT INTO counts (name, n) SELECT 'finished_public', COUNT(*) FROM games"
        "  WHERE status = 'finished' AND private = 0;"
        "CREATE TRIGGER counts_finish AFTER UPDATE OF status ON games"
        "  WHEN new.status = 'finished' AND old.status <> 'finished' AND new.private = 0"
        "  BEGIN UPDATE counts SET n = n + 1 WHERE name = 'finished_public'; END;"
        "CREATE TRIGGER counts_insert AFTER INSERT ON games"
        "  WHEN new.status = 'finished' AND new.private = 0"
        "  BEGIN UPDATE counts SET n = n + 1 WHERE name = 'finished_public'; END;"
        "DROP INDEX games_history;"
        "CREATE INDEX games_public_history ON games (ended_ms DESC, serial DESC)"
        "  WHERE status = 'finished' AND private = 0;"
        "CREATE INDEX games_private_history ON games (ended_ms DESC, serial DESC)"
        "  WHERE status = 'finished' AND private = 1;",
        /*
         * 7: accounts. A name is unique by its key (names_account_key(): lower case); the skeleton
         * (names_skeleton()) is what guests' names are compared by. The hash is Argon2id's whole
         * string (password.h). Closed and banned accounts keep their row: their names stay taken. A
         * session keeps its account (0: a guest's).
         */
        "CREATE TABLE accounts ("
        "  id INTEGER PRIMARY KEY,"
        "  name TEXT NOT NULL,"
        "  name_key TEXT NOT NULL UNIQUE,"
        "  skeleton TEXT NOT NULL,"
        "  pw_hash TEXT NOT NULL,"
        "  kind TEXT NOT NULL DEFAULT 'account' CHECK (kind IN ('account', 'bot')),"
        "  created_ms INTEGER NOT NULL,"
        "  closed_ms INTEGER,"
        "  banned_ms INTEGER);"
        "CREATE INDEX accounts_skeleton ON accounts (skeleton);"
        /* the account of a seated player's session, so that a restart keeps it logged in */
        "ALTER TABLE sessions ADD COLUMN account INTEGER NOT NULL DEFAULT 0;",
        /*
         * 8: ratings. One ratings row per account and game kind once it played a rated game there,
         * full precision (glicko.h); rating_changes holds each rated game's change per seat,
         * written in the transaction of the game's end; games say whether they were rated (existing
         * games were not). The leaderboard pages down ratings_board by key.
         */
        "CREATE TABLE ratings ("
        "  account INTEGER NOT NULL REFERENCES accounts (id),"
        "  kind TEXT NOT NULL,"
        "  rating REAL NOT NULL,"
        "  rd REAL NOT NULL,"
        "  vol REAL NOT NULL,"
        "  games INTEGER NOT NULL DEFAULT 0,"
        "  wins INTEGER NOT NULL DEFAULT 0,"
        "  draws INTEGER NOT NULL DEFAULT 0,"
        "  losses INTEGER NOT NULL DEFAULT 0,"
        "  best REAL NOT NULL,"
        "  updated_ms INTEGER NOT NULL,"
        "  PRIMARY KEY (account, kind)) WITHOUT ROWID;"
        "CREATE INDEX ratings_board ON ratings (kind, rating DESC, account) WHERE rd <= 110;"
        "CREATE TABLE rating_changes ("
        "  game TEXT NOT NULL,"
        "  seat INTEGER NOT NULL,"
        "  account INTEGER NOT NULL REFERENCES accounts (id),"
        "  before_rating REAL NOT NULL, before_rd REAL NOT NULL, before_vol REAL NOT NULL,"
        "  after_rating REAL NOT NULL, after_rd REAL NOT NULL, after_vol REAL NOT NULL,"
        "  ended_ms INTEGER NOT NULL,"
        "  PRIMARY KEY (game, seat)) WITHOUT ROWID;"
        "CREATE INDEX rating_changes_account ON rating_changes (account, ended_ms DESC);"
        "ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;",
        /*
         * 9: what the store keeps. Each seat keeps the account of the session that took it (NULL: a
         * guest or the computer; 0: a seat of a game stored before, whose name is an account's, so
         * that it may have been one: kept by --keep-days, listed by nobody's history). Games that
         * never started (aborted before any move) are deleted with their events and sessions, now
         * and at their end from now on; `deleted` and `deleted_serial` count what the store deleted
         * (store_game_drop(), not a trigger: a row lost otherwise is still found missing by the
         * check), and a new game never takes a deleted one's serial. The kept counts follow
         * deletions, and count each account's finished games (`a<id>`: public, `a<id>p`: private).
         * Indexes: history by a seat's account or (a guest's own) player id, by key; the finished
         * games without an account, oldest first, for --keep-days.
         */
        "ALTER TABLE games ADD COLUMN seat0_account INTEGER;"
        "ALTER TABLE games ADD COLUMN seat1_account INTEGER;"
        "UPDATE games SET seat0_account = 0 WHERE seat0_name IN (SELECT name FROM accounts);"
        "UPDATE games SET seat1_account = 0 WHERE seat1_name IN (SELECT name FROM accounts);"
        "CREATE TEMP TABLE unplayed AS SELECT id, serial FROM games g WHERE status = 'finished'"
        "  AND result = 'aborted' AND NOT EXISTS (SELECT 1 FROM events e"
        "  WHERE e.game_id = g.id AND e.move IS NOT NULL);"
        "INSERT INTO counts (name, n) SELECT 'deleted', COUNT(*) FROM unplayed;"
        "INSERT INTO counts (name, n) SELECT 'deleted_serial', COALESCE(MAX(serial), 0)"
        "  FROM unplayed;"
        "DELETE FROM events WHERE game_id IN (SELECT id FROM unplayed);"
        "DELETE FROM sessions WHERE game_id IN (SELECT id FROM unplayed);"
        "DELETE FROM games WHERE id IN (SELECT id FROM unplayed);"
        "DROP TABLE unplayed;"
        "UPDATE counts SET n = (SELECT COUNT(*) FROM games WHERE status = 'finished'"
        "  AND private = 0) WHERE name = 'finished_public';"
        "CREATE TRIGGER counts_delete AFTER DELETE ON games BEGIN"
        "  UPDATE counts SET n = n - 1 WHERE name = 'finished_public'"
        "    AND old.status = 'finished' AND old.private = 0;"
        "  UPDATE counts SET n = n - 1 WHERE old.status = 'finished' AND old.seat0_account > 0"
        "    AND name = 'a' || old.seat0_account || substr('p', 1, old.private);"
        "  UPDATE counts SET n = n - 1 WHERE old.status = 'finished' AND old.seat1_account > 0"
        "    AND old.seat1_account IS NOT old.seat0_account"
        "    AND name = 'a' || old.seat1_account || substr('p', 1, old.private);"
        "  END;"
        "CREATE TRIGGER counts_account_finish AFTER UPDATE OF status ON games"
        "  WHEN new.status = 'finished' AND old.status <> 'finished' BEGIN"
        "  INSERT INTO counts (name, n) SELECT 'a' || new.seat0_account ||"
        "    substr('p', 1, new.private), 1 WHERE new.seat0_account > 0"
        "    ON CONFLICT (name) DO UPDATE SET n = n + 1;"
        "  INSERT INTO counts (name, n) SELECT 'a' || new.seat1_account ||"
        "    substr('p', 1, new.private), 1 WHERE new.seat1_account > 0"
        "    AND new.seat1_account IS NOT new.seat0_account"
        "    ON CONFLICT (name) DO UPDATE SET n = n + 1;"
        "  END;"
        "CREATE TRIGGER counts_account_insert AFTER INSERT ON games"
        "  WHEN new.status = 'finished' BEGIN"
        "  INSERT INTO counts (name, n) SELECT 'a' || new.seat0_account ||"
        "    substr('p', 1, new.private), 1 WHERE new.seat0_account > 0"
        "    ON CONFLICT (name) DO UPDATE SET n = n + 1;"
        "  INSERT INTO counts (name, n) SELECT 'a' || new.seat1_account ||"
        "    substr('p', 1, new.private), 1 WHERE new.seat1_account > 0"
        "    AND new.seat1_account IS NOT new.seat0_account"
        "    ON CONFLICT (name) DO UPDATE SET n = n + 1;"
        "  END;"
        "CREATE INDEX games_seat0_account ON games"
        "  (seat0_account, private, ended_ms DESC, serial DESC)"
        "  WHERE status = 'finished' AND seat0_account IS NOT NULL;"
        "CREATE INDEX games_seat1_account ON games"
        "  (seat1_account, private, ended_ms DESC, serial DESC)"
        "  WHERE status = 'finished' AND seat1_account IS NOT NULL;"
        "CREATE INDEX games_seat0_guest ON games (seat0_id, private, ended_ms DESC, serial DESC)"
        "  WHERE status = 'finished' AND seat0_account IS NULL;"
        "CREATE INDEX games_seat1_guest ON games (seat1_id, private, ended_ms DESC, serial DESC)"
        "  WHERE status = 'finished' AND seat1_account IS NULL;"
        "CREATE INDEX games_guests_ended ON games (ended_ms) WHERE status = 'finished'"
        "  AND seat0_account IS NULL AND seat1_account IS NULL;"
        "CREATE INDEX sessions_game ON sessions (game_id);",
        /*
         * 10: a rated result needs play (PROTOCOL.md 14). A game created rated that rated
         * nobody says why in games.unrated ('short': it ended before --rated-min-plies plies;
         * 'same_address', 'pair_limit': it was played casual from its start); NULL for the
         * others. rating_pairs counts each account's rated games against each opponent in a
         * kind, and ratings.opponents its distinct opponents there (the trigger moves it when a
         * pair's first game is added), which the leaderboard's --board-min-opponents asks by
         * key; both are filled from the rated games stored before. rating_changes_ended finds
         * the rated games of the last 24 hours at start-up (the pair rule, --pair-rated).
         */
        "ALTER TABLE games ADD COLUMN unrated TEXT;"
        "ALTER TABLE ratings ADD COLUMN opponents INTEGER NOT NULL DEFAULT 0;"
        "CREATE TABLE rating_pairs ("
        "  account INTEGER NOT NULL REFERENCES accounts (id),"
        "  kind TEXT NOT NULL,"
        "  opponent INTEGER NOT NULL REFERENCES accounts (id),"
        "  games INTEGER NOT NULL,"
        "  PRIMARY KEY (account, kind, opponent)) WITHOUT ROWID;"
        "INSERT INTO rating_pairs (account, kind, opponent, games)"
        "  SELECT c.account, g.kind, o.account, COUNT(*) FROM rating_changes c"
        "  JOIN rating_changes o ON o.game = c.game AND o.seat <> c.seat"
        "  JOIN games g ON g.id = c.game GROUP BY c.account, g.kind, o.account;"
        "UPDATE ratings SET opponents = (SELECT COUNT(*) FROM rating_pairs p"
        "  WHERE p.account = ratings.account AND p.kind = ratings.kind);"
        "CREATE TRIGGER rating_pairs_new AFTER INSERT ON rating_pairs BEGIN"
        "  UPDATE ratings SET opponents = opponents + 1"
        "  WHERE account = new.account AND kind = new.kind; END;"
        "CREATE INDEX rating_changes_ended ON rating_changes (ended_ms);",
        /*
         * 11: every rating by key in its kind, for the leaderboard's provisional players
         * (PROTOCOL.md leaderboard, "provisional": true: those not on the board, as
         * ratings_board holds the settled ones).
         */
        "CREATE INDEX ratings_by_rating ON ratings (kind, rating DESC, account);",
};

/* The schema of migrations[8] (seat accounts, deleted games): what this file calls it by. */
#define STORE_SCHEMA_KEEP 9

_Static_assert(sizeof migrations / sizeof migrations[0] == STORE_SCHEMA_VERSION,
               "one migration per schema version");

/* Bring the schema from st->version to STORE_SCHEMA_VERSION, one transaction per step. */
int
store_migrate(struct store *st, struct store_error *err)
{
	char sql[64], what[64];
	int rc;

	while (st->version < STORE_SCHEMA_VERSION) {
		int v = st->version + 1;
		snprintf(what, sizeof what, "migrating the schema to version %d", v);
		if ((rc = store_exec(st, "BEGIN IMMEDIATE", what, err)) < 0)
			return rc;
		rc = store_exec(st, migrations[v - 1], what, err);
		if (rc == 0 && v == 1) {
			snprintf(sql, sizeof sql, "PRAGMA application_id = %d",
			         STORE_APPLICATION_ID);
			rc = store_exec(st, sql, what, err);
		}
		if (rc == 0) {
			snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v);
			rc = store_exec(st, sql, what, err);
		}
		if (rc == 0)
			rc = store_exec(st, "COMMIT", what, err);
		if (rc < 0) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return rc;
		}
		st->version = v;
		/* the next step writes the WAL from its start again: a new file's migrations
		   take the room of the largest, not of all of them together */
		if (!st->temporary)
			checkpoint_passive(st->db);
	}
	return 0;
}

/*
 * Is the file sound? SQLite's quick_check looks at every page's structure (it reads the whole
 * file, so a truncated or garbled file fails it); then our own rules, which SQLite cannot know:
 * a game's events are numbered 1..n with no gap, its moves 1..k in the order of their events,
 * nothing refers to a game that is not there, games are numbered 1..N (a missing game leaves a
 * gap), a game has a result exactly when it is finished, and the kept count of finished public
 * games is right. Each finding goes to found(); the rules run only on a structurally sound file
 * (they would read the damaged pages again). Returns the number of findings, or an error.
 */
int
store_check(struct store *st, void (*found)(void *ctx, const char *text), void *ctx,
            struct store_error *err)
{
	static const struct {
		const char *sql;
		const char *what;
		int from, to; /* the schemas it holds for (0: any) */
	} rules[] = {
	        {"SELECT game_id FROM events GROUP BY game_id "
	         "HAVING MIN(seq) <> 1 OR MAX(seq) <> COUNT(*)",
	         "the events of game '%s' are not numbered 1..n without a gap", 0, 0},
	        {"SELECT game_id FROM events WHERE move IS NOT NULL GROUP BY game_id "
	         "HAVING MIN(ply) <> 1 OR MAX(ply) <> COUNT(*)",
	         "the moves of game '%s' are not numbered 1..n without a gap", 0, 0},
	        /* two moves out of order make a ply lower than the one of the move before it:
	         * one pass in (game_id, seq) order (a join of every pair of moves of a game took
	         * 5 of the 7 s a store of 46,000 games took to open) */
	        {"SELECT game_id FROM (SELECT game_id, ply, LAG(ply) OVER (PARTITION BY game_id "
	         "ORDER BY seq) AS before FROM events WHERE move IS NOT NULL) WHERE before > ply",
	         "the moves of game '%s' are out of order", 0, 0},
	        {"SELECT e.game_id FROM events e LEFT JOIN games g ON g.id = e.game_id "
	         "WHERE g.id IS NULL",
	         "events of game '%s', which is missing", 0, 0},
	        {"SELECT s.game_id FROM sessions s LEFT JOIN games g ON g.id = s.game_id "
	         "WHERE g.id IS NULL",
	         "a session seated at game '%s', which is missing", 0, 0},
	        {"SELECT c || ' games, numbered ' || lo || ' to ' || hi FROM (SELECT COUNT(*) c, "
	         "MIN(serial) lo, MAX(serial) hi FROM games) WHERE c > 0 AND (lo <> 1 OR hi <> c)",
	         "games are missing: %s", 0, STORE_SCHEMA_KEEP - 1},
	        /* from schema 8 games are deleted (never started; --keep-days), and counted */
	        {"SELECT c || ' games and ' || d || ' deleted, numbered up to ' || hi FROM (SELECT "
	         "COUNT(*) c, MAX(COALESCE(MAX(serial), 0), (SELECT n FROM counts WHERE name = "
	         "'deleted_serial')) hi, (SELECT n FROM counts WHERE name = 'deleted') d FROM "
	         "games) "
	         "WHERE c + d <> hi",
	         "games are missing: %s", STORE_SCHEMA_KEEP, 0},
	        {"SELECT COALESCE(name, k) || ': kept ' || COALESCE(n, 0) || ', counted ' || "
	         "COALESCE(c, 0) FROM counts "
	         "FULL JOIN (SELECT 'a' || a || substr('p', 1, private) k, COUNT(*) c FROM "
	         "(SELECT seat0_account a, private FROM games WHERE status = 'finished' AND "
	         "seat0_account > 0 UNION ALL SELECT seat1_account, private FROM games WHERE "
	         "status = 'finished' AND seat1_account > 0 AND seat1_account IS NOT "
	         "seat0_account) "
	         "GROUP BY k) ON name = k WHERE COALESCE(name, k) LIKE 'a%' AND "
	         "COALESCE(n, 0) <> COALESCE(c, 0)",
	         "the count of an account's finished games is wrong (%s)", STORE_SCHEMA_KEEP, 0},
	        {"SELECT id FROM games WHERE (status = 'finished') <> (result IS NOT NULL) "
	         "OR (status = 'finished') <> (ended_ms IS NOT NULL)",
	         "game '%s' has a result without being finished, or the reverse", 0, 0},
	        {"SELECT 'kept ' || (SELECT n FROM counts WHERE name = 'finished_public') || "
	         "', counted ' || COUNT(*) FROM games WHERE status = 'finished' AND private = 0 "
	         "HAVING COUNT(*) IS NOT (SELECT n FROM counts WHERE name = 'finished_public')",
	         "the count of finished public games is wrong (%s)", 0, 0},
	};
	char what[256];
	sqlite3_stmt *s;
	int rc, findings = 0, damaged;

	rc = sqlite3_prepare_v2(st->db, "PRAGMA quick_check", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sqlite_fail(st, rc, err, "checking its integrity");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		char text[300];
		snprintf(what, sizeof what, "%s", (const char *)sqlite3_column_text(s, 0));
		if (strcmp(what, "ok") == 0)
			continue;
		for (char *c = what; *c != '\0'; c++)
			if (*c == '\n')
				*c = ' '; /* a finding is one line */
		snprintf(text, sizeof text, "the file is damaged (integrity check: %s)", what);
		found(ctx, text);
		findings++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		if ((rc & 0xff) != SQLITE_CORRUPT && (rc & 0xff) != SQLITE_NOTADB)
			return store_sqlite_fail(st, rc, err, "checking its integrity");
		found(ctx, "the file is damaged (the integrity check cannot read it)");
		findings++;
	}
	damaged = findings > 0;
	for (size_t i = 0; !damaged && i < sizeof rules / sizeof rules[0]; i++) {
		char text[300];
		if (strstr(rules[i].sql, "counts") != NULL && st->version < 6)
			continue; /* the kept count came with schema 6 */
		if ((rules[i].from > 0 && st->version < rules[i].from) ||
		    (rules[i].to > 0 && st->version > rules[i].to))
			continue;
		if ((rc = sqlite3_prepare_v2(st->db, rules[i].sql, -1, &s, NULL)) != SQLITE_OK)
			return store_sqlite_fail(st, rc, err, "checking the contents");
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			const unsigned char *t = sqlite3_column_text(s, 0);
			snprintf(what, sizeof what, "%s", t ? (const char *)t : "?");
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
			snprintf(text, sizeof text, rules[i].what, what);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
			found(ctx, text);
			findings++;
		}
		sqlite3_finalize(s);
		if (rc != SQLITE_DONE)
			return store_sqlite_fail(st, rc, err, "checking the contents");
	}
	return findings;
}
