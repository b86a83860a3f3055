/*
 * store-pg-check.c: hokitod --check on a PostgreSQL store: the SQLite backend's rules of its own
 * (store_check() in sqlite/store-schema.c), in the same words, on one snapshot of the whole store
 * (a read-only REPEATABLE READ transaction, so that a server writing beside it cannot make the
 * kept counts and the rows disagree), and in place of SQLite's page check what PostgreSQL's
 * constraints and indexes rest on: the indexes valid, the constraints validated, the triggers of
 * the kept counts there and enabled. It writes nothing and migrates nothing; it owns the
 * connection it opens for the check, and never calls libuv.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "store-pg-impl.h"

/* The store's own indexes and the triggers of its kept counts (store-pg-schema.c). */
#define STORE_PG_INDEXES                                                                           \
	"'games_unfinished', 'games_public_history', 'games_private_history', "                    \
	"'games_seat0_account', 'games_seat1_account', 'games_seat0_guest', "                      \
	"'games_seat1_guest', 'games_guests_ended', 'sessions_game', 'accounts_skeleton', "        \
	"'ratings_board', 'ratings_by_rating', 'rating_changes_account', 'rating_changes_ended'"
#define STORE_PG_TRIGGERS "'counts_finish', 'counts_insert', 'counts_delete', 'rating_pairs_new'"

static const struct {
	const char *sql;
	const char *what;
} rules[] = {
        /* what PostgreSQL's structure rests on */
        {"SELECT c.relname FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = "
         "i.indexrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname "
         "= current_schema() AND NOT i.indisvalid",
         "index %s is not valid (a build that failed?): REINDEX it"},
        {"SELECT x FROM unnest(ARRAY[" STORE_PG_INDEXES "]) AS x WHERE "
         "to_regclass(quote_ident(current_schema()) || '.' || x) IS NULL",
         "index %s is missing: reads that should go by key scan every row"},
        {"SELECT c.conrelid::regclass || ' ' || c.conname FROM pg_catalog.pg_constraint c JOIN "
         "pg_catalog.pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = "
         "current_schema() AND NOT c.convalidated",
         "constraint %s is not validated (NOT VALID): its rows are not vouched for"},
        {"SELECT x FROM unnest(ARRAY[" STORE_PG_TRIGGERS "]) AS x WHERE NOT EXISTS (SELECT 1 "
         "FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid JOIN "
         "pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = "
         "current_schema() AND t.tgname = x AND t.tgenabled <> 'D')",
         "trigger %s is missing or disabled: the kept counts cannot be trusted"},
        /* the rules of our own, as SQLite's check words them */
        {"SELECT game_id FROM events GROUP BY game_id "
         "HAVING MIN(seq) <> 1 OR MAX(seq) <> COUNT(*)",
         "the events of game '%s' are not numbered 1..n without a gap"},
        {"SELECT game_id FROM events WHERE move IS NOT NULL GROUP BY game_id "
         "HAVING MIN(ply) <> 1 OR MAX(ply) <> COUNT(*)",
         "the moves of game '%s' are not numbered 1..n without a gap"},
        /* two moves out of order make a ply lower than the one of the move before it */
        {"SELECT game_id FROM (SELECT game_id, ply, LAG(ply) OVER (PARTITION BY game_id "
         "ORDER BY seq) AS before FROM events WHERE move IS NOT NULL) AS m WHERE before > ply",
         "the moves of game '%s' are out of order"},
        {"SELECT e.game_id FROM events e LEFT JOIN games g ON g.id = e.game_id "
         "WHERE g.id IS NULL",
         "events of game '%s', which is missing"},
        {"SELECT s.game_id FROM sessions s LEFT JOIN games g ON g.id = s.game_id "
         "WHERE g.id IS NULL",
         "a session seated at game '%s', which is missing"},
        {"SELECT c || ' games and ' || d || ' deleted, numbered up to ' || hi FROM (SELECT "
         "COUNT(*) c, GREATEST(COALESCE(MAX(serial), 0), (SELECT n FROM counts WHERE name = "
         "'deleted_serial')) hi, (SELECT n FROM counts WHERE name = 'deleted') d FROM games) "
         "AS x WHERE c + d <> hi",
         "games are missing: %s"},
        {"SELECT COALESCE(name, k) || ': kept ' || COALESCE(n, 0) || ', counted ' || "
         "COALESCE(c, 0) FROM counts FULL JOIN (SELECT 'a' || a || substr('p', 1, private) k, "
         "COUNT(*) c FROM (SELECT seat0_account a, private FROM games WHERE status = "
         "'finished' AND seat0_account > 0 UNION ALL SELECT seat1_account, private FROM games "
         "WHERE status = 'finished' AND seat1_account > 0 AND seat1_account IS DISTINCT FROM "
         "seat0_account) AS s GROUP BY k) AS t ON name = k WHERE COALESCE(name, k) LIKE 'a%' "
         "AND COALESCE(n, 0) <> COALESCE(c, 0)",
         "the count of an account's finished games is wrong (%s)"},
        {"SELECT id FROM games WHERE (status = 'finished') <> (result IS NOT NULL) "
         "OR (status = 'finished') <> (ended_ms IS NOT NULL)",
         "game '%s' has a result without being finished, or the reverse"},
        {"SELECT 'kept ' || (SELECT n FROM counts WHERE name = 'finished_public') || "
         "', counted ' || COUNT(*) FROM games WHERE status = 'finished' AND private = 0 "
         "HAVING COUNT(*) IS DISTINCT FROM (SELECT n FROM counts WHERE name = "
         "'finished_public')",
         "the count of finished public games is wrong (%s)"},
};

/* Run the rules on conn, in the open snapshot: each finding to found(). */
static int
check_rules(PGconn *conn, const char *name, void (*found)(void *ctx, const char *text), void *ctx,
            struct store_error *err)
{
	int findings = 0;

	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		PGresult *r = PQexec(conn, rules[i].sql);
		int rc;

		if (PQresultStatus(r) != PGRES_TUPLES_OK) {
			rc = store_pg_res_fail(name, conn, r, "checking the contents", err);
			PQclear(r);
			return rc;
		}
		for (int row = 0; row < PQntuples(r); row++) {
			char text[300];
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
			snprintf(text, sizeof text, rules[i].what,
			         PQgetisnull(r, row, 0) ? "?" : PQgetvalue(r, row, 0));
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
			found(ctx, text);
			findings++;
		}
		PQclear(r);
	}
	return findings;
}

int
store_pg_check(const char *uri, void (*found)(void *ctx, const char *text), void *ctx,
               struct store_error *err)
{
	char *name = store_pg_name(uri);
	PGconn *conn;
	int rc, version;

	if ((rc = store_pg_connect(uri, name, &conn, err)) < 0) {
		free(name);
		return rc;
	}
	rc = store_pg_schema_inspect(conn, name, &version, err);
	if (rc == 1)
		rc = store_fail(err, STORE_ENOTFOUND, "%s: no hokitod store there", name);
	else if (rc == 0 && version != STORE_PG_SCHEMA)
		rc = store_fail(err, STORE_EVERSION,
		                "%s: schema version %d; hokitod migrates it to %d at its start",
		                name, version, STORE_PG_SCHEMA);
	if (rc == 0)
		rc = store_pg_exec(conn, name, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
		                   "starting the check", err);
	if (rc == 0) {
		rc = check_rules(conn, name, found, ctx, err);
		PQclear(PQexec(conn, "ROLLBACK"));
	}
	PQfinish(conn);
	free(name);
	return rc;
}
