/*
 * store-pg-copy.c: the PostgreSQL store's part in a copy of a whole store (hokitod migrate; the
 * write port's copy ops, store-port.h): the writes of rows as another store held them (a whole
 * game with its serial, its seats' accounts and its events byte for byte; a rating change, a
 * rating pair, a ratings row), and the one moment that a store opened without the writer's lock
 * reads. The SQLite backend's sqlite/store-copy.c is the reference for every rule: the same
 * checks of the arguments, games put in serial order with the numbers skipped counted as
 * deleted games, a row there already with the same values taken (a retry), with other values
 * refused (our SQLSTATE HK001: STORE_ECORRUPT, the transaction fails), a ratings row put as it
 * is. Each op queues one statement in the turn's transaction (store-pg-write.c's queue, sent by
 * its commit); the kept counts and ratings.opponents move by the schema's triggers as the rows go
 * in (store-pg-schema.c), as SQLite's do. Its statements are prepared here, on the writer's
 * connection, at the first copy op (blocking: a copy is written and committed before start(), and
 * its ops are refused after it). It owns nothing beyond a call, and never calls libuv.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "game.h"
#include "store-game.h"
#include "store-pg-impl.h"
#include "xmalloc.h"

/* PostgreSQL's type oids of the parameters (pg_type.h is the server's header) */
#define T_INT8        20
#define T_INT4        23
#define T_TEXT        25
#define T_FLOAT8      701
#define T_INT4_ARRAY  1007
#define T_TEXT_ARRAY  1009
#define T_BYTEA_ARRAY 1001
#define T_INT8_ARRAY  1016

/* A copy's statements, numbered from STORE_PG_COPY_FIRST (store-pg-impl.h). */
enum {
	PG_C_GAME_PUT,
	PG_C_CHANGE_PUT,
	PG_C_PAIR_PUT,
	PG_C_RATING_PUT,
	PG_C_COUNT,
};

/*
 * Where a game put again differs from the stored one ($1's row o, the events put e): the name of
 * the first field of struct store_game whose values differ, in store_game_diff()'s order and
 * words, each column as the read port reads it back (NULL as 0, "" or -1), then the first event
 * that differs by its field (store_event_diff()'s words); NULL when it is the same game.
 */
#define GAME_DIFF                                                                                  \
	"CASE WHEN o.serial <> $2 THEN 'serial' WHEN o.kind <> $3 THEN 'kind' "                    \
	"WHEN o.variant <> $4 THEN 'variant' WHEN o.seed <> $5 THEN 'seed' "                       \
	"WHEN o.private <> $6 THEN 'is_private' WHEN o.code <> $7 THEN 'code' "                    \
	"WHEN o.status <> $8 THEN 'status' WHEN o.created_ms <> $9 THEN 'created_ms' "             \
	"WHEN COALESCE(o.ended_ms, 0) <> COALESCE($14, 0) THEN 'ended_ms' "                        \
	"WHEN (o.seat0_id IS NULL) <> ($10 IS NULL) THEN 'seat_taken[i]' "                         \
	"WHEN o.seat0_id <> $10 THEN 'seat_id' WHEN o.seat0_name <> $11 THEN 'seat_name' "         \
	"WHEN (o.seat1_id IS NULL) <> ($12 IS NULL) THEN 'seat_taken[i]' "                         \
	"WHEN o.seat1_id <> $12 THEN 'seat_id' WHEN o.seat1_name <> $13 THEN 'seat_name' "         \
	"WHEN COALESCE(o.result, '') <> COALESCE($15, '') THEN 'result' "                          \
	"WHEN COALESCE(o.winner, -1) <> COALESCE($16, -1) THEN 'winner' "                          \
	"WHEN COALESCE(o.reason, '') <> COALESCE($17, '') THEN 'reason' "                          \
	"WHEN COALESCE(o.score0, 0) <> COALESCE($18, 0) THEN 'score[0]' "                          \
	"WHEN COALESCE(o.score1, 0) <> COALESCE($19, 0) THEN 'score[1]' "                          \
	"WHEN o.clock <> $20 THEN 'clock' "                                                        \
	"WHEN (SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id = $1) <> "                   \
	"(SELECT COUNT(*) FROM e) THEN 'nevents' "                                                 \
	"WHEN (SELECT COUNT(move) FROM events WHERE game_id = $1) <> (SELECT COUNT(move) FROM e) " \
	"THEN 'ply' WHEN o.rated <> $21 THEN 'rated' "                                             \
	"WHEN COALESCE(o.unrated, '') <> COALESCE($24, '') THEN 'unrated' "                        \
	"WHEN COALESCE(o.seat0_account, -1) <> COALESCE($22, -1) THEN 'seat_account[0]' "          \
	"WHEN COALESCE(o.seat1_account, -1) <> COALESCE($23, -1) THEN 'seat_account[1]' "          \
	"ELSE (SELECT CASE WHEN s.time_ms <> e.time_ms THEN 'time_ms' WHEN s.type <> e.type THEN " \
	"'type' WHEN s.move IS DISTINCT FROM e.move THEN 'move' ELSE 'body' END FROM events s "    \
	"JOIN e ON e.seq = s.seq WHERE s.game_id = $1 AND (s.time_ms, s.type, s.move, s.body) IS " \
	"DISTINCT FROM (e.time_ms, e.type, e.move, e.body) ORDER BY s.seq LIMIT 1) END"

static const struct {
	const char *sql;
	int nparams;
	Oid types[STORE_PG_PARAMS_MAX];
} copy_writes[PG_C_COUNT] = {
        /*
         * A whole game ($1..$24 its row as the games columns say, $25..$30 its events as
         * arrays). Stored already (a retry): the same game, or HK001 naming the first field that
         * differs. New: its serial must come after the highest one given, kept or deleted (what
         * game_add goes on from), else HK002; the numbers between them count as deleted games
         * (deleted, deleted_serial: the check's "games + deleted = the highest serial" holds as
         * it did where the game comes from); a finished one is counted by counts_insert.
         */
        [PG_C_GAME_PUT] =
                {"WITH e AS (SELECT * FROM unnest($25, $26, $27, $28, $29, $30) AS e (seq, "
                 "time_ms, type, ply, move, body)), o AS (SELECT * FROM games WHERE id = $1), "
                 "top AS (SELECT GREATEST((SELECT MAX(serial) FROM games), (SELECT n FROM counts "
                 "WHERE name = 'deleted_serial'), 0) AS hi), put AS (SELECT CASE WHEN EXISTS "
                 "(SELECT 1 FROM o) THEN COALESCE((SELECT hokito_raise('HK001', 'game ''' || $1 "
                 "|| ''' is stored already, with another ' || d) FROM (SELECT " GAME_DIFF
                 " AS d FROM o) AS x WHERE d IS NOT NULL), false) WHEN $2 <= (SELECT hi FROM "
                 "top) THEN hokito_raise('HK002', 'putting game ''' || $1 || ''': serial ' || $2 "
                 "|| ' after ' || (SELECT hi FROM top) || ' (games go in serial order)') ELSE "
                 "true END AS fresh), g AS (INSERT INTO games (id, serial, kind, variant, seed, "
                 "private, code, status, created_ms, seat0_id, seat0_name, seat1_id, seat1_name, "
                 "ended_ms, result, winner, reason, score0, score1, clock, rated, seat0_account, "
                 "seat1_account, unrated) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, "
                 "$12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24 FROM put WHERE "
                 "fresh RETURNING serial), gap AS (UPDATE counts SET n = CASE name WHEN "
                 "'deleted' THEN n + $2 - (SELECT hi FROM top) - 1 ELSE $2 - 1 END WHERE (name = "
                 "'deleted' OR name = 'deleted_serial') AND $2 > (SELECT hi FROM top) + 1 AND "
                 "EXISTS (SELECT 1 FROM g)) INSERT INTO events (game_id, seq, time_ms, type, ply, "
                 "move, body) SELECT $1, seq, time_ms, type, ply, move, body FROM e WHERE EXISTS "
                 "(SELECT 1 FROM g)",
                 30,
                 {T_TEXT,       T_INT8,       T_TEXT,       T_TEXT,       T_INT8,
                  T_INT4,       T_TEXT,       T_TEXT,       T_INT8,       T_TEXT,
                  T_TEXT,       T_TEXT,       T_TEXT,       T_INT8,       T_TEXT,
                  T_INT4,       T_TEXT,       T_INT4,       T_INT4,       T_TEXT,
                  T_INT4,       T_INT8,       T_INT8,       T_TEXT,       T_INT8_ARRAY,
                  T_INT8_ARRAY, T_TEXT_ARRAY, T_INT4_ARRAY, T_TEXT_ARRAY, T_BYTEA_ARRAY}},
        /* a rating_changes row as stored: neither its ratings row nor its pair moves */
        [PG_C_CHANGE_PUT] =
                {"INSERT INTO rating_changes (game, seat, account, before_rating, before_rd, "
                 "before_vol, after_rating, after_rd, after_vol, ended_ms) VALUES ($1, $2, $3, "
                 "$4, $5, $6, $7, $8, $9, $10) ON CONFLICT (game, seat) DO UPDATE SET game = "
                 "EXCLUDED.game WHERE CASE WHEN (rating_changes.account, "
                 "rating_changes.before_rating, rating_changes.before_rd, "
                 "rating_changes.before_vol, rating_changes.after_rating, "
                 "rating_changes.after_rd, rating_changes.after_vol, rating_changes.ended_ms) IS "
                 "DISTINCT FROM (EXCLUDED.account, EXCLUDED.before_rating, EXCLUDED.before_rd, "
                 "EXCLUDED.before_vol, EXCLUDED.after_rating, EXCLUDED.after_rd, "
                 "EXCLUDED.after_vol, EXCLUDED.ended_ms) THEN hokito_raise('HK001', 'the rating "
                 "change of game ''' || $1 || ''', seat ' || $2 || ', is stored already, with "
                 "other values') ELSE false END",
                 10,
                 {T_TEXT, T_INT4, T_INT8, T_FLOAT8, T_FLOAT8, T_FLOAT8, T_FLOAT8, T_FLOAT8,
                  T_FLOAT8, T_INT8}},
        /* a pair's insert makes an opponent of a ratings row there (trigger rating_pairs_new):
         * rating_put() comes after and says how many */
        [PG_C_PAIR_PUT] = {"INSERT INTO rating_pairs (account, kind, opponent, games) VALUES ($1, "
                           "$2, $3, $4) ON CONFLICT (account, kind, opponent) DO UPDATE SET "
                           "games = rating_pairs.games WHERE CASE WHEN rating_pairs.games <> "
                           "EXCLUDED.games THEN hokito_raise('HK001', 'the rating pair of "
                           "accounts ' || $1 || ' and ' || $3 || ' is stored already, with "
                           "another count') ELSE false END",
                           4,
                           {T_INT8, T_TEXT, T_INT8, T_INT8}},
        [PG_C_RATING_PUT] =
                {"INSERT INTO ratings (account, kind, rating, rd, vol, games, wins, draws, "
                 "losses, best, updated_ms, opponents) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, "
                 "$9, $10, $11, $12) ON CONFLICT (account, kind) DO UPDATE SET rating = "
                 "EXCLUDED.rating, rd = EXCLUDED.rd, vol = EXCLUDED.vol, games = EXCLUDED.games, "
                 "wins = EXCLUDED.wins, draws = EXCLUDED.draws, losses = EXCLUDED.losses, best = "
                 "EXCLUDED.best, updated_ms = EXCLUDED.updated_ms, opponents = "
                 "EXCLUDED.opponents",
                 12,
                 {T_INT8, T_TEXT, T_FLOAT8, T_FLOAT8, T_FLOAT8, T_INT8, T_INT8, T_INT8, T_INT8,
                  T_FLOAT8, T_INT8, T_INT8}},
};

/*
 * A copy's statement which (PG_C_*) in the turn's transaction, into *out: its statements are
 * prepared first on this connection if they are not yet (blocking, as a copy's writes are before
 * start()). Returns 0, or STORE_EINVAL after start(), STORE_EUNAVAIL without a connection, or the
 * error of a prepare.
 */
static int
copy_stmt(struct store_pg *pg, int which, struct store_pg_stmt **out, struct store_error *err)
{
	*out = NULL;
	if (pg->loop != NULL)
		return store_fail(err, STORE_EINVAL,
		                  "%s: a copy's write after start() (a copy is written before it)",
		                  pg->name);
	if (pg->conn == NULL || pg->state != STORE_PG_READY)
		return store_fail(err, STORE_EUNAVAIL, "%s: writing a copy: not connected",
		                  pg->name);
	if (pg->copy_conn != pg->conn) {
		for (int i = 0; i < PG_C_COUNT; i++) {
			char name[16];
			PGresult *r;
			int rc = 0;

			snprintf(name, sizeof name, "hkw%d", STORE_PG_COPY_FIRST + i);
			r = PQprepare(pg->conn, name, copy_writes[i].sql, copy_writes[i].nparams,
			              copy_writes[i].types);
			if (PQresultStatus(r) != PGRES_COMMAND_OK)
				rc = store_pg_res_fail(pg->name, pg->conn, r,
				                       "preparing a copy's statements", err);
			PQclear(r);
			if (rc < 0)
				return rc;
		}
		pg->copy_conn = pg->conn;
	}
	*out = store_pg_stmt_add(pg, STORE_PG_COPY_FIRST + which);
	return 0;
}

/* --- Array parameters: their text as PostgreSQL reads it ({1,2}, {"a",NULL}). */

struct array_text {
	char *p; /* owned, NUL-terminated */
	size_t n, cap;
};

static void
array_put(struct array_text *a, const char *s, size_t n)
{
	if (a->n + n + 2 > a->cap) {
		while (a->n + n + 2 > a->cap)
			a->cap = a->cap ? a->cap * 2 : 256;
		a->p = xrealloc(a->p, a->cap);
	}
	memcpy(a->p + a->n, s, n);
	a->n += n;
	a->p[a->n] = '\0';
}

/* The separator before an element: "{" first, "," after. */
static void
array_next(struct array_text *a)
{
	array_put(a, a->n == 0 ? "{" : ",", 1);
}

static void
array_int(struct array_text *a, int64_t v)
{
	char text[24];

	array_next(a);
	array_put(a, text, (size_t)snprintf(text, sizeof text, "%" PRId64, v));
}

/* A text element, quoted (its backslashes and quotes escaped), or NULL. */
static void
array_str(struct array_text *a, const char *s)
{
	array_next(a);
	if (s == NULL) {
		array_put(a, "NULL", 4);
		return;
	}
	array_put(a, "\"", 1);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			array_put(a, "\\", 1);
		array_put(a, s, 1);
	}
	array_put(a, "\"", 1);
}

/* A bytea element: its bytes in hex, "\\x6869" (the backslash escaped in the quotes). */
static void
array_bytes(struct array_text *a, const char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	array_next(a);
	array_put(a, "\"\\\\x", 4);
	for (size_t i = 0; i < n; i++) {
		char two[2] = {hex[(unsigned char)p[i] >> 4], hex[(unsigned char)p[i] & 15]};

		array_put(a, two, 2);
	}
	array_put(a, "\"", 1);
}

/* The array's end, as the statement's next parameter; its text freed. */
static void
array_param(struct store_pg *pg, struct store_pg_stmt *s, struct array_text *a)
{
	if (a->n == 0)
		array_put(a, "{", 1);
	array_put(a, "}", 1);
	store_pg_param_text(pg, s, a->p);
	free(a->p);
	memset(a, 0, sizeof *a);
}

/* --- The ops. */

/* The next parameter: t, or NULL when it is empty. */
static void
param_text_or_null(struct store_pg *pg, struct store_pg_stmt *s, const char *t)
{
	store_pg_param_text(pg, s, t[0] != '\0' ? t : NULL);
}

/*
 * The row as g says, as SQLite's store_copy_game_put() writes it: a seat never taken has no id or
 * name, an account -1 is none (NULL); an unfinished game has no end; a kind without scores none
 * either (what game_finish() writes with no score). Its events go as six arrays (seq, time, type,
 * ply, move, body), the plies numbered as the moves come.
 */
int
store_pg_copy_game_put(void *impl, const struct store_game *g, const struct store_event *ev,
                       size_t nevents, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct array_text seq = {0}, time = {0}, type = {0}, ply = {0}, move = {0}, body = {0};
	int finished = strcmp(g->status, "finished") == 0;
	struct store_pg_stmt *s;
	int64_t plies = 0;
	int rc;

	if (!store_game_put_valid(g, ev, nevents))
		return store_fail(err, STORE_EINVAL, "putting game '%.15s': a bad row or event",
		                  g->id);
	if ((rc = copy_stmt(pg, PG_C_GAME_PUT, &s, err)) < 0)
		return rc;
	store_pg_param_text(pg, s, g->id);
	store_pg_param_int(pg, s, g->serial);
	store_pg_param_text(pg, s, game_kind_name(g->kind));
	store_pg_param_text(pg, s, g->variant[0] ? g->variant : "standard");
	store_pg_param_int(pg, s, (int64_t)g->seed);
	store_pg_param_int(pg, s, g->is_private != 0);
	store_pg_param_text(pg, s, g->code);
	store_pg_param_text(pg, s, g->status);
	store_pg_param_int(pg, s, g->created_ms);
	for (int i = 0; i < 2; i++) {
		store_pg_param_text(pg, s, g->seat_taken[i] ? g->seat_id[i] : NULL);
		store_pg_param_text(pg, s, g->seat_taken[i] ? g->seat_name[i] : NULL);
	}
	if (finished) {
		store_pg_param_int(pg, s, g->ended_ms);
		store_pg_param_text(pg, s, g->result);
		store_pg_param_int(pg, s, g->winner);
		param_text_or_null(pg, s, g->reason);
	} else {
		for (int i = 0; i < 4; i++)
			store_pg_param_text(pg, s, NULL);
	}
	for (int i = 0; i < 2; i++) {
		if (finished && game_kind_has(g->kind, GAME_HAS_SCORES))
			store_pg_param_int(pg, s, g->score[i]);
		else
			store_pg_param_text(pg, s, NULL);
	}
	store_pg_param_text(pg, s, g->clock[0] ? g->clock : "none");
	store_pg_param_int(pg, s, g->rated != 0);
	for (int i = 0; i < 2; i++) {
		if (g->seat_account[i] >= 0)
			store_pg_param_int(pg, s, g->seat_account[i]);
		else
			store_pg_param_text(pg, s, NULL);
	}
	param_text_or_null(pg, s, g->unrated);
	for (size_t i = 0; i < nevents; i++) {
		const struct store_event *e = &ev[i];

		array_int(&seq, e->seq);
		array_int(&time, e->time_ms);
		array_str(&type, e->type);
		if (e->move != NULL)
			array_int(&ply, ++plies);
		else
			array_str(&ply, NULL);
		array_str(&move, e->move);
		array_bytes(&body, e->body, e->body_len > 0 ? e->body_len : strlen(e->body));
	}
	array_param(pg, s, &seq);
	array_param(pg, s, &time);
	array_param(pg, s, &type);
	array_param(pg, s, &ply);
	array_param(pg, s, &move);
	array_param(pg, s, &body);
	return 0;
}

int
store_pg_copy_rating_change_put(void *impl, const char *game_id,
                                const struct store_rating_change *c, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;
	int rc;

	if (game_id == NULL || game_id[0] == '\0' || strlen(game_id) >= STORE_ID_MAX ||
	    (c->seat != 0 && c->seat != 1) || c->account <= 0)
		return store_fail(err, STORE_EINVAL, "game '%.15s': a bad rating change",
		                  game_id ? game_id : "");
	if ((rc = copy_stmt(pg, PG_C_CHANGE_PUT, &s, err)) < 0)
		return rc;
	store_pg_param_text(pg, s, game_id);
	store_pg_param_int(pg, s, c->seat);
	store_pg_param_int(pg, s, c->account);
	for (int i = 0; i < 3; i++)
		store_pg_param_double(pg, s, c->before[i]);
	for (int i = 0; i < 3; i++)
		store_pg_param_double(pg, s, c->after[i]);
	store_pg_param_int(pg, s, c->ended_ms);
	return 0;
}

int
store_pg_copy_rating_pair_put(void *impl, const struct store_rating_pair *p,
                              struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;
	int rc;

	if (p->account <= 0 || p->opponent <= 0 || p->games < 0 || (int)p->kind < 0 ||
	    (int)p->kind >= game_class_count)
		return store_fail(err, STORE_EINVAL, "account %" PRId64 ": a bad rating pair",
		                  p->account);
	if ((rc = copy_stmt(pg, PG_C_PAIR_PUT, &s, err)) < 0)
		return rc;
	store_pg_param_int(pg, s, p->account);
	store_pg_param_text(pg, s, game_kind_name(p->kind));
	store_pg_param_int(pg, s, p->opponent);
	store_pg_param_int(pg, s, p->games);
	return 0;
}

int
store_pg_copy_rating_put(void *impl, const struct store_rating *r, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;
	int rc;

	if (!store_rating_put_valid(r))
		return store_fail(err, STORE_EINVAL, "account %" PRId64 ": a bad ratings row",
		                  r->account);
	if ((rc = copy_stmt(pg, PG_C_RATING_PUT, &s, err)) < 0)
		return rc;
	store_pg_param_int(pg, s, r->account);
	store_pg_param_text(pg, s, game_kind_name(r->kind));
	store_pg_param_double(pg, s, r->rating);
	store_pg_param_double(pg, s, r->rd);
	store_pg_param_double(pg, s, r->vol);
	store_pg_param_int(pg, s, r->games);
	store_pg_param_int(pg, s, r->wins);
	store_pg_param_int(pg, s, r->draws);
	store_pg_param_int(pg, s, r->losses);
	store_pg_param_double(pg, s, r->best);
	store_pg_param_int(pg, s, r->updated_ms);
	store_pg_param_int(pg, s, r->opponents);
	return 0;
}

/* --- The moment of a store opened without the writer's lock. */

/*
 * SQLite's reader holds one read transaction; here it is a REPEATABLE READ one, read-only, whose
 * snapshot PostgreSQL takes at its first query: the count below, at the open. A server writing
 * the store meanwhile is never held up by it (a snapshot takes no lock a writer waits for); only
 * the rows it would vacuum away wait for its end.
 */
int
store_pg_moment_begin(struct store_pg *pg, struct store_error *err)
{
	int64_t rows;
	int rc;

	if ((rc = store_pg_exec(pg->conn, pg->name,
	                        "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
	                        "beginning to read", err)) < 0)
		return rc;
	return store_pg_int(pg->conn, pg->name, "SELECT COUNT(*) FROM hokito_meta", &rows, err);
}
