/*
 * store-pg-schema.c: the PostgreSQL store's schema as data (the migrations array), how a
 * database is told to be a hokitod store or another application's, and creating or migrating
 * it at open: in one transaction, under a transaction-level advisory lock, so that two hokitods
 * starting on one new database do not both create it, and a failure leaves it as it was; and
 * removing a store again that an open made, when what it was opened for failed (the backend's
 * discard). It owns no state; it runs blocking statements on the connection it is given (open,
 * before the loop runs), and never libuv.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "log.h"
#include "store-pg.h"
#include "store-pg-impl.h"

/*
 * The schema of the SQLite backend at its schema 11 (sqlite/store-schema.c), in PostgreSQL's
 * types: BIGINT ids, times and seeds (a seed is an unsigned 64-bit number in a signed BIGINT: the
 * same bits), DOUBLE PRECISION ratings, BYTEA event bodies (the line exactly as sent, whatever
 * its bytes). The same tables, columns and indexes (the partial indexes that make history and
 * the leaderboard pages by key); what SQLite's check looks for where PostgreSQL can say it as a
 * constraint is one (a result exactly when finished, events and sessions of stored games).
 *
 * games.serial is not a sequence: the writer takes the highest serial (or the highest deleted
 * one) plus one, as SQLite does, under its lock. A sequence would leave a gap at every
 * transaction rolled back or retried, and a gap is what the check reads as a lost game.
 *
 * The kept counts move in the database, in the writes' own transaction, by triggers as SQLite's:
 * counts.finished_public (the finished public games), counts.a<id> and counts.a<id>p (an
 * account's finished public and private games), deleted and deleted_serial (moved by the
 * statements that delete games, store-pg-write.c); ratings.opponents by rating_pairs' inserts.
 *
 * hokito_raise(code, text) raises an error of our own SQLSTATE (store-pg-impl.h): the write
 * statements call it when a key is written again with other contents, so that the transaction
 * fails instead of keeping half a turn.
 */
static const char *const schema_11[] = {
        "CREATE TABLE hokito_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);"
        "CREATE FUNCTION hokito_raise(code TEXT, what TEXT) RETURNS BOOLEAN LANGUAGE plpgsql"
        "  AS $$BEGIN RAISE EXCEPTION USING ERRCODE = code, MESSAGE = what; END$$;"
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);"
        "CREATE TABLE games ("
        "  id TEXT PRIMARY KEY,"
        "  serial BIGINT NOT NULL UNIQUE,"
        "  kind TEXT NOT NULL,"
        "  variant TEXT NOT NULL,"
        "  seed BIGINT NOT NULL,"
        "  private INTEGER NOT NULL CHECK (private = 0 OR private = 1),"
        "  code TEXT NOT NULL,"
        "  status TEXT NOT NULL CHECK (status = 'open' OR status = 'live' OR"
        "    status = 'adjourned' OR status = 'finished'),"
        "  created_ms BIGINT NOT NULL,"
        "  seat0_id TEXT, seat0_name TEXT, seat1_id TEXT, seat1_name TEXT,"
        "  ended_ms BIGINT, result TEXT, winner INTEGER CHECK (winner BETWEEN -1 AND 1),"
        "  reason TEXT, score0 INTEGER, score1 INTEGER,"
        "  clock TEXT NOT NULL DEFAULT 'none',"
        "  rated INTEGER NOT NULL DEFAULT 0 CHECK (rated = 0 OR rated = 1),"
        "  seat0_account BIGINT, seat1_account BIGINT,"
        "  unrated TEXT,"
        "  CONSTRAINT games_result_iff_finished CHECK"
        "    ((status = 'finished') = (result IS NOT NULL)),"
        "  CONSTRAINT games_ended_iff_finished CHECK"
        "    ((status = 'finished') = (ended_ms IS NOT NULL)));"
        "CREATE TABLE events ("
        "  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
        "  game_id TEXT NOT NULL REFERENCES games (id),"
        "  seq BIGINT NOT NULL CHECK (seq >= 1),"
        "  time_ms BIGINT NOT NULL,"
        "  type TEXT NOT NULL,"
        "  ply INTEGER,"
        "  move TEXT,"
        "  body BYTEA NOT NULL,"
        "  CHECK ((type = 'moved') = (move IS NOT NULL)),"
        "  CHECK ((move IS NULL) = (ply IS NULL)),"
        "  UNIQUE (game_id, seq));"
        "CREATE TABLE sessions ("
        "  token TEXT PRIMARY KEY,"
        "  player_id TEXT NOT NULL,"
        "  name TEXT NOT NULL,"
        "  game_id TEXT NOT NULL REFERENCES games (id),"
        "  seat INTEGER NOT NULL CHECK (seat = 0 OR seat = 1),"
        "  updated_ms BIGINT NOT NULL,"
        "  account BIGINT NOT NULL DEFAULT 0);"
        "CREATE TABLE counts (name TEXT PRIMARY KEY, n BIGINT NOT NULL);"
        "INSERT INTO counts (name, n) VALUES ('finished_public', 0), ('deleted', 0),"
        "  ('deleted_serial', 0);",
        "CREATE TABLE accounts ("
        "  id BIGINT PRIMARY KEY,"
        "  name TEXT NOT NULL,"
        "  name_key TEXT NOT NULL UNIQUE,"
        "  skeleton TEXT NOT NULL,"
        "  pw_hash TEXT NOT NULL,"
        "  kind TEXT NOT NULL DEFAULT 'account' CHECK (kind IN ('account', 'bot')),"
        "  created_ms BIGINT NOT NULL,"
        "  closed_ms BIGINT,"
        "  banned_ms BIGINT);"
        "CREATE TABLE ratings ("
        "  account BIGINT NOT NULL REFERENCES accounts (id),"
        "  kind TEXT NOT NULL,"
        "  rating DOUBLE PRECISION NOT NULL,"
        "  rd DOUBLE PRECISION NOT NULL CHECK (rd > 0),"
        "  vol DOUBLE PRECISION NOT NULL CHECK (vol > 0),"
        "  games BIGINT NOT NULL DEFAULT 0,"
        "  wins BIGINT NOT NULL DEFAULT 0,"
        "  draws BIGINT NOT NULL DEFAULT 0,"
        "  losses BIGINT NOT NULL DEFAULT 0,"
        "  best DOUBLE PRECISION NOT NULL,"
        "  updated_ms BIGINT NOT NULL,"
        "  opponents BIGINT NOT NULL DEFAULT 0,"
        "  PRIMARY KEY (account, kind),"
        "  CHECK (games = wins + draws + losses));"
        "CREATE TABLE rating_changes ("
        "  game TEXT NOT NULL,"
        "  seat INTEGER NOT NULL CHECK (seat = 0 OR seat = 1),"
        "  account BIGINT NOT NULL REFERENCES accounts (id),"
        "  before_rating DOUBLE PRECISION NOT NULL, before_rd DOUBLE PRECISION NOT NULL,"
        "  before_vol DOUBLE PRECISION NOT NULL,"
        "  after_rating DOUBLE PRECISION NOT NULL, after_rd DOUBLE PRECISION NOT NULL,"
        "  after_vol DOUBLE PRECISION NOT NULL,"
        "  ended_ms BIGINT NOT NULL,"
        "  PRIMARY KEY (game, seat));"
        "CREATE TABLE rating_pairs ("
        "  account BIGINT NOT NULL REFERENCES accounts (id),"
        "  kind TEXT NOT NULL,"
        "  opponent BIGINT NOT NULL REFERENCES accounts (id),"
        "  games BIGINT NOT NULL,"
        "  PRIMARY KEY (account, kind, opponent));",
        /* the indexes of SQLite's schema 11 */
        "CREATE INDEX games_unfinished ON games (serial) WHERE status <> 'finished';"
        "CREATE INDEX games_public_history ON games (ended_ms DESC, serial DESC)"
        "  WHERE status = 'finished' AND private = 0;"
        "CREATE INDEX games_private_history ON games (ended_ms DESC, serial DESC)"
        "  WHERE status = 'finished' AND private = 1;"
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
        "CREATE INDEX sessions_game ON sessions (game_id);"
        "CREATE INDEX accounts_skeleton ON accounts (skeleton);"
        "CREATE INDEX ratings_board ON ratings (kind, rating DESC, account) WHERE rd <= 110;"
        "CREATE INDEX ratings_by_rating ON ratings (kind, rating DESC, account);"
        "CREATE INDEX rating_changes_account ON rating_changes (account, ended_ms DESC);"
        "CREATE INDEX rating_changes_ended ON rating_changes (ended_ms);",
        /*
         * the kept counts of finished games (SQLite's counts_* triggers): the public ones, and
         * each account's (a<id>, a<id>p), moved by delta when a game becomes finished (an update
         * or an insert of a finished game) or a finished game is deleted
         */
        "CREATE FUNCTION hokito_counts_move(g games, delta BIGINT) RETURNS VOID LANGUAGE plpgsql"
        "  AS $$BEGIN"
        "  IF g.private = 0 THEN"
        "    UPDATE counts SET n = n + delta WHERE name = 'finished_public';"
        "  END IF;"
        "  IF g.seat0_account > 0 THEN"
        "    INSERT INTO counts (name, n) VALUES ('a' || g.seat0_account ||"
        "      substr('p', 1, g.private), delta)"
        "      ON CONFLICT (name) DO UPDATE SET n = counts.n + delta;"
        "  END IF;"
        "  IF g.seat1_account > 0 AND g.seat1_account IS DISTINCT FROM g.seat0_account THEN"
        "    INSERT INTO counts (name, n) VALUES ('a' || g.seat1_account ||"
        "      substr('p', 1, g.private), delta)"
        "      ON CONFLICT (name) DO UPDATE SET n = counts.n + delta;"
        "  END IF;"
        "  END$$;"
        "CREATE FUNCTION hokito_counts_finish() RETURNS TRIGGER LANGUAGE plpgsql AS $$BEGIN"
        "  PERFORM hokito_counts_move(NEW, 1); RETURN NULL; END$$;"
        "CREATE FUNCTION hokito_counts_delete() RETURNS TRIGGER LANGUAGE plpgsql AS $$BEGIN"
        "  PERFORM hokito_counts_move(OLD, -1); RETURN NULL; END$$;"
        "CREATE TRIGGER counts_finish AFTER UPDATE OF status ON games FOR EACH ROW"
        "  WHEN (NEW.status = 'finished' AND OLD.status <> 'finished')"
        "  EXECUTE FUNCTION hokito_counts_finish();"
        "CREATE TRIGGER counts_insert AFTER INSERT ON games FOR EACH ROW"
        "  WHEN (NEW.status = 'finished') EXECUTE FUNCTION hokito_counts_finish();"
        "CREATE TRIGGER counts_delete AFTER DELETE ON games FOR EACH ROW"
        "  WHEN (OLD.status = 'finished') EXECUTE FUNCTION hokito_counts_delete();"
        /* a pair's first rated game makes an opponent of the ratings row (rating_pairs_new) */
        "CREATE FUNCTION hokito_rating_pairs_new() RETURNS TRIGGER LANGUAGE plpgsql AS $$BEGIN"
        "  UPDATE ratings SET opponents = opponents + 1"
        "  WHERE account = NEW.account AND kind = NEW.kind; RETURN NULL; END$$;"
        "CREATE TRIGGER rating_pairs_new AFTER INSERT ON rating_pairs FOR EACH ROW"
        "  EXECUTE FUNCTION hokito_rating_pairs_new();",
        NULL};

/*
 * The migrations: migrations[i] takes a store from schema migrations[i].from to the next. A
 * new database runs the creation (from 0) and then every step after it. Never edit one that has
 * shipped: add the next. All of them run in one transaction with the hokito_meta rows that
 * record them, so a failure leaves the store as it was.
 */
static const struct {
	int from, to;
	const char *const *sql; /* its statements, in pieces of less than 4 kB (C's limit) */
} migrations[] = {
        {0, 11, schema_11},
};

#define STORE_PG_MIGRATIONS (sizeof migrations / sizeof migrations[0])

/*
 * What the creation and the migrations make, dropped again (store_pg_discard()): their tables
 * (with them their indexes, triggers and hokito_counts_move(), which takes a games row) and
 * their other functions. A new migration that makes something adds it here.
 */
static const char schema_drop[] =
        "DROP TABLE hokito_meta, meta, events, sessions, counts, rating_changes, rating_pairs, "
        "ratings, accounts, games CASCADE;"
        "DROP FUNCTION hokito_raise(TEXT, TEXT), hokito_counts_finish(), hokito_counts_delete(), "
        "hokito_rating_pairs_new();";

_Static_assert(STORE_PG_MIGRATIONS > 0, "a creation");

/* Copy the PGresult's value (row, col) into buf; -1 if it does not fit. */
static int
value_copy(const PGresult *r, int row, int col, char *buf, size_t size)
{
	const char *v = PQgetvalue(r, row, col);

	if (strlen(v) >= size)
		return -1;
	snprintf(buf, size, "%s", v);
	return 0;
}

int
store_pg_schema_inspect(PGconn *conn, const char *name, int *version, struct store_error *err)
{
	/* the current schema's tables: ours is told by hokito_meta and its marker */
	static const char sql[] =
	        "SELECT (SELECT COUNT(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n"
	        "  ON n.oid = c.relnamespace WHERE n.nspname = current_schema()"
	        "  AND c.relkind IN ('r', 'p', 'v', 'm', 'f')),"
	        " to_regclass(quote_ident(current_schema()) || '.hokito_meta') IS NOT NULL,"
	        " current_schema()";
	char schema[128];
	int64_t app = 0, v = 0;
	PGresult *r;
	int rc, tables, ours;

	r = PQexec(conn, sql);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		rc = store_pg_res_fail(name, conn, r, "reading what the database holds", err);
		PQclear(r);
		return rc;
	}
	if (PQgetisnull(r, 0, 2)) {
		PQclear(r);
		return store_fail(err, STORE_EINVAL,
		                  "%s: no schema to keep the store in (the search_path names "
		                  "none that exists)",
		                  name);
	}
	tables = (int)strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	ours = strcmp(PQgetvalue(r, 0, 1), "t") == 0;
	if (value_copy(r, 0, 2, schema, sizeof schema) < 0)
		snprintf(schema, sizeof schema, "?");
	PQclear(r);
	if (!ours && tables == 0)
		return 1;
	if (!ours)
		return store_fail(err, STORE_ECONFLICT,
		                  "%s: not a hokitod store (schema %s holds %d table%s of "
		                  "something else, and no hokito_meta)",
		                  name, schema, tables, tables == 1 ? "" : "s");
	if ((rc = store_pg_int(conn, name,
	                       "SELECT value FROM hokito_meta WHERE key = 'application'", &app,
	                       err)) < 0 &&
	    rc != STORE_ENOTFOUND)
		return rc;
	if (rc == STORE_ENOTFOUND || app != STORE_PG_APPLICATION)
		return store_fail(err, STORE_ECONFLICT,
		                  "%s: not a hokitod store (hokito_meta has no hokitod marker)",
		                  name);
	if ((rc = store_pg_int(conn, name, "SELECT value FROM hokito_meta WHERE key = 'schema'", &v,
	                       err)) < 0) {
		if (rc == STORE_ENOTFOUND)
			return store_fail(err, STORE_ECORRUPT,
			                  "%s: a hokitod store without a schema version", name);
		return rc;
	}
	if (v > STORE_PG_SCHEMA)
		return store_fail(err, STORE_EVERSION,
		                  "%s: schema version %" PRId64
		                  " is newer than this hokitod's (%d); run a newer hokitod",
		                  name, v, STORE_PG_SCHEMA);
	if (v < migrations[0].to)
		return store_fail(err, STORE_ECORRUPT,
		                  "%s: schema version %" PRId64 ", older than any PostgreSQL "
		                  "store (%d)",
		                  name, v, migrations[0].to);
	*version = (int)v;
	return 0;
}

/* Create or migrate the store from version from (0: nothing there), in the open transaction. */
static int
schema_migrate(PGconn *conn, const char *name, int from, struct store_error *err)
{
	char sql[160], what[64];
	int rc, v = from;

	for (size_t i = 0; i < STORE_PG_MIGRATIONS; i++) {
		if (migrations[i].from != v)
			continue;
		snprintf(what, sizeof what, "%s the schema %d",
		         v == 0 ? "creating" : "migrating to", migrations[i].to);
		for (const char *const *sql_part = migrations[i].sql; *sql_part != NULL; sql_part++)
			if ((rc = store_pg_exec(conn, name, *sql_part, what, err)) < 0)
				return rc;
		v = migrations[i].to;
	}
	snprintf(sql, sizeof sql,
	         "INSERT INTO hokito_meta (key, value) VALUES ('application', %d), ('schema', %d) "
	         "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
	         STORE_PG_APPLICATION, v);
	if ((rc = store_pg_exec(conn, name, sql, "recording the schema version", err)) < 0)
		return rc;
	if (v != STORE_PG_SCHEMA)
		return store_fail(err, STORE_ECORRUPT, "%s: no migration from schema %d", name, v);
	return 0;
}

int
store_pg_schema_open(PGconn *conn, const char *name, const struct store_db_options *o, int *version,
                     struct store_error *err)
{
	char sql[128];
	int rc, v = 0, made = 0;

	if ((rc = store_pg_schema_inspect(conn, name, &v, err)) < 0)
		return rc;
	if (rc == 0 && v == STORE_PG_SCHEMA) {
		*version = v;
		return 0;
	}
	if (rc == 1 && o->must_exist)
		return store_fail(err, STORE_ENOTFOUND,
		                  "%s: no hokitod store there yet (hokitod creates it at its "
		                  "first start)",
		                  name);
	if (!o->writer)
		return store_fail(err, STORE_EVERSION,
		                  "%s: schema version %d; hokitod migrates it to %d at its start",
		                  name, v, STORE_PG_SCHEMA);
	/* one transaction under the migration lock: a second hokitod starting on the same new
	 * database waits here, then finds the store made (and inspects it again) */
	if ((rc = store_pg_exec(conn, name, "BEGIN", "creating the schema", err)) < 0)
		return rc;
	snprintf(sql, sizeof sql, "SELECT pg_advisory_xact_lock(%d, hashtext(current_schema()))",
	         STORE_PG_LOCK_MIGRATE);
	if ((rc = store_pg_exec(conn, name, sql, "taking the migration lock", err)) == 0 &&
	    (rc = store_pg_schema_inspect(conn, name, &v, err)) >= 0) {
		made = rc == 1;
		rc = made                  ? schema_migrate(conn, name, 0, err)
		     : v < STORE_PG_SCHEMA ? schema_migrate(conn, name, v, err)
		                           : 0;
	}
	if (rc == 0)
		rc = store_pg_exec(conn, name, "COMMIT", "committing the schema", err);
	if (rc < 0) {
		PQclear(PQexec(conn, "ROLLBACK"));
		return rc;
	}
	*version = STORE_PG_SCHEMA;
	return made;
}

/*
 * A store this open made (its schema held nothing) is dropped again, with what was written to it
 * since (hokitod migrate's copy that failed, a start that failed), so that the database's schema
 * holds nothing again and the next start or copy finds it as it was: in one transaction under
 * the migration lock, on the writer's connection while it is idle (never started, or stopped:
 * out of pipeline mode), waiting 5 s at most for the tables' locks (a reader's transaction may
 * hold them); if it cannot be, the store stays, and the log says why. Then the store closes.
 */
void
store_pg_discard(void *impl)
{
	struct store_pg *pg = impl;
	const char *const steps[] = {"BEGIN", "SET LOCAL lock_timeout = '5s'", NULL, schema_drop,
	                             "COMMIT"};
	struct store_error err;
	char lock[128];
	int rc = 0;

	if (pg != NULL && pg->made && pg->loop == NULL && pg->state == STORE_PG_READY &&
	    pg->conn != NULL && PQpipelineStatus(pg->conn) == PQ_PIPELINE_OFF) {
		snprintf(lock, sizeof lock,
		         "SELECT pg_advisory_xact_lock(%d, hashtext(current_schema()))",
		         STORE_PG_LOCK_MIGRATE);
		if (PQtransactionStatus(pg->conn) != PQTRANS_IDLE)
			PQclear(PQexec(pg->conn, "ROLLBACK"));
		for (size_t i = 0; i < sizeof steps / sizeof steps[0] && rc == 0; i++)
			rc = store_pg_exec(pg->conn, pg->name, steps[i] ? steps[i] : lock,
			                   "removing the store this open made", &err);
		if (rc < 0) {
			PQclear(PQexec(pg->conn, "ROLLBACK"));
			log_warn("store: %s; it stays", err.text);
		}
	}
	store_backend_postgresql.close(pg);
}
