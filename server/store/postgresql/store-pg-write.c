/*
 * store-pg-write.c: the write port of the PostgreSQL store. Each op checks its arguments as the
 * SQLite backend's does and queues its statement, with a copy of every borrowed argument, in the
 * turn's transaction (memory only: nothing is sent while the turn runs); commit() gives the turn
 * a ticket and sends it as one transaction (BEGIN, the statements, COMMIT) in libpq's pipeline
 * mode, one round trip whatever its size, and the answer comes back through done() once COMMIT
 * returned. At most one transaction is in flight; the commits made meanwhile wait in order
 * (each with its own ticket), and a failure fails its ticket and every later one (store-port.h).
 *
 * Every statement is idempotent by key, so that the caller may write a failed ticket's writes
 * again whatever became of them (a connection lost during COMMIT): an event, a game, an account,
 * a rating change stored again with the same contents is success, with other contents the
 * statement raises our SQLSTATE HK001 (STORE_ECORRUPT) and the transaction fails; the counts move
 * only for what a statement really inserted or changed. Before start() a commit waits for its
 * answer (poll() on the socket); after it nothing here blocks. It owns the queued transactions;
 * it calls store-pg-conn.c for the socket and the losses, never the reverse but through
 * store_pg_results(), and never decides a rule.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "game.h"
#include "glicko.h"
#include "store-pg-impl.h"
#include "xmalloc.h"

/* PostgreSQL's type oids of the parameters (pg_type.h is the server's header) */
#define T_INT8   20
#define T_INT4   23
#define T_TEXT   25
#define T_FLOAT8 701
#define T_BYTEA  17

/* The write statements, prepared on every connection of the writer as "hkw<n>". */
enum {
	PG_W_GAME_ADD,
	PG_W_SEAT,
	PG_W_STATUS,
	PG_W_EVENT_ADD,
	PG_W_FINISH,
	PG_W_UNRATED,
	PG_W_GAME_DROP,
	PG_W_SWEEP,
	PG_W_ACCOUNT_DROP,
	PG_W_SESSION_SET,
	PG_W_SESSION_DEL,
	PG_W_META_SET,
	PG_W_ACCOUNT_ADD,
	PG_W_ACCOUNT_UPDATE,
	PG_W_RATING_CHANGE,
	PG_W_COUNT,
};

/* a game's deletion, with its events and sessions and the count of deleted games, for the
 * games of the CTE `old` (id, serial): one statement, so that its rows go together */
#define DROP_GAMES                                                                                 \
	"e AS (DELETE FROM events WHERE game_id IN (SELECT id FROM old)), "                        \
	"s AS (DELETE FROM sessions WHERE game_id IN (SELECT id FROM old)), "                      \
	"c AS (UPDATE counts SET n = CASE name WHEN 'deleted' THEN n + (SELECT COUNT(*) FROM "     \
	"old) "                                                                                    \
	"ELSE GREATEST(n, (SELECT MAX(serial) FROM old)) END WHERE (name = 'deleted' OR "          \
	"name = 'deleted_serial') AND EXISTS (SELECT 1 FROM old)) "                                \
	"DELETE FROM games WHERE id IN (SELECT id FROM old)"

/* an UPDATE of games (returning 1) that found its game $1, else HK003 */
#define FOUND_OR_RAISE                                                                             \
	"SELECT CASE WHEN EXISTS (SELECT 1 FROM u) THEN true ELSE hokito_raise('HK003', "          \
	"'no game ''' || $1 || ''' in the store') END"

static const struct {
	const char *sql;
	int nparams;
	Oid types[STORE_PG_PARAMS_MAX];
} writes[PG_W_COUNT] = {
        /* a game stored again must be the same game (a status or seats it took since are
         * its later writes' own); the serial follows the highest, deleted ones included */
        [PG_W_GAME_ADD] =
                {"INSERT INTO games (id, serial, kind, variant, seed, private, code, status, "
                 "created_ms, clock, rated) VALUES ($1, GREATEST((SELECT MAX(serial) FROM "
                 "games), (SELECT n FROM counts WHERE name = 'deleted_serial'), 0) + 1, $2, $3, "
                 "$4, $5, $6, 'open', $7, $8, $9) ON CONFLICT (id) DO UPDATE SET id = "
                 "EXCLUDED.id WHERE CASE WHEN (games.kind, games.variant, games.seed, "
                 "games.private, games.code, games.created_ms, games.clock, games.rated) IS "
                 "DISTINCT FROM (EXCLUDED.kind, EXCLUDED.variant, EXCLUDED.seed, "
                 "EXCLUDED.private, EXCLUDED.code, EXCLUDED.created_ms, EXCLUDED.clock, "
                 "EXCLUDED.rated) THEN hokito_raise('HK001', 'game ''' || $1 || ''' is stored "
                 "with other contents') ELSE false END",
                 9,
                 {T_TEXT, T_TEXT, T_TEXT, T_INT8, T_INT4, T_TEXT, T_INT8, T_TEXT, T_INT4}},
        [PG_W_SEAT] = {"WITH u AS (UPDATE games SET "
                       "seat0_id = CASE WHEN $2 = 0 THEN $3 ELSE seat0_id END, "
                       "seat0_name = CASE WHEN $2 = 0 THEN $4 ELSE seat0_name END, "
                       "seat1_id = CASE WHEN $2 = 1 THEN $3 ELSE seat1_id END, "
                       "seat1_name = CASE WHEN $2 = 1 THEN $4 ELSE seat1_name END, "
                       "seat0_account = CASE WHEN $2 = 0 THEN NULLIF($5, 0) ELSE seat0_account "
                       "END, seat1_account = CASE WHEN $2 = 1 THEN NULLIF($5, 0) ELSE "
                       "seat1_account END WHERE id = $1 RETURNING 1) " FOUND_OR_RAISE,
                       5,
                       {T_TEXT, T_INT4, T_TEXT, T_TEXT, T_INT8}},
        /* a finished game stays finished: a status written again after its end (a retry)
         * changes nothing, so the counts of its end move once */
        [PG_W_STATUS] = {"WITH u AS (UPDATE games SET status = CASE WHEN status = 'finished' "
                         "THEN status ELSE $2 END WHERE id = $1 RETURNING 1) " FOUND_OR_RAISE,
                         2,
                         {T_TEXT, T_TEXT}},
        /*
         * An event: its seq must follow the game's last one (HK002), its ply follows the last
         * move's, found by key down UNIQUE (game_id, seq). Stored already (a retry): the same
         * time, type, move and bytes, or HK001.
         */
        [PG_W_EVENT_ADD] =
                {"INSERT INTO events (game_id, seq, time_ms, type, ply, move, body) SELECT $1, "
                 "$2, $3, $4, CASE WHEN $5::text IS NULL THEN NULL ELSE COALESCE((SELECT e.ply "
                 "FROM events e WHERE e.game_id = $1 AND e.seq < $2 AND e.ply IS NOT NULL ORDER "
                 "BY e.seq DESC LIMIT 1), 0) + 1 END, $5, $6 WHERE CASE WHEN NOT EXISTS (SELECT "
                 "1 FROM games WHERE id = $1) THEN hokito_raise('HK003', 'no game ''' || $1 || "
                 "''' in the store') WHEN $2 = (SELECT COALESCE(MAX(seq), 0) + 1 FROM events "
                 "WHERE game_id = $1) OR EXISTS (SELECT 1 FROM events WHERE game_id = $1 AND "
                 "seq = $2) THEN true ELSE hokito_raise('HK002', 'event ' || $2 || ' of game ''' "
                 "|| $1 || ''' does not follow event ' || (SELECT COALESCE(MAX(seq), 0) FROM "
                 "events WHERE game_id = $1)) END ON CONFLICT (game_id, seq) DO UPDATE SET seq = "
                 "EXCLUDED.seq WHERE CASE WHEN (events.time_ms, events.type, events.move, "
                 "events.body) IS DISTINCT FROM (EXCLUDED.time_ms, EXCLUDED.type, EXCLUDED.move, "
                 "EXCLUDED.body) THEN hokito_raise('HK001', 'event ' || $2 || ' of game ''' || "
                 "$1 || ''' is stored with other contents') ELSE false END",
                 6,
                 {T_TEXT, T_INT8, T_INT8, T_TEXT, T_TEXT, T_BYTEA}},
        /* the end, once: an end written again must be the same end */
        [PG_W_FINISH] = {"WITH g AS (SELECT ended_ms, result, winner, reason, score0, score1 "
                         "FROM games WHERE id = $1), u AS (UPDATE games SET status = "
                         "'finished', ended_ms = $2, result = $3, winner = $4, reason = $5, "
                         "score0 = $6, score1 = $7 WHERE id = $1 AND status <> 'finished' "
                         "RETURNING 1) SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM g) THEN "
                         "hokito_raise('HK003', 'no game ''' || $1 || ''' in the store') WHEN "
                         "EXISTS (SELECT 1 FROM u) OR (SELECT (ended_ms, result, winner, reason, "
                         "score0, score1) IS NOT DISTINCT FROM ($2, $3, $4, $5, $6, $7) FROM g) "
                         "THEN true ELSE hokito_raise('HK001', 'game ''' || $1 || ''' ended "
                         "already, another way') END",
                         7,
                         {T_TEXT, T_INT8, T_TEXT, T_INT4, T_TEXT, T_INT4, T_INT4}},
        [PG_W_UNRATED] = {"UPDATE games SET unrated = $2 WHERE id = $1", 2, {T_TEXT, T_TEXT}},
        /* gone already (a retry) is no error */
        [PG_W_GAME_DROP] = {"WITH old AS (SELECT id, serial FROM games WHERE id = $1), "
                            "" DROP_GAMES,
                            1,
                            {T_TEXT}},
        /* down games_guests_ended, oldest first: the cost is the games deleted */
        [PG_W_SWEEP] = {"WITH old AS (SELECT id, serial FROM games WHERE status = 'finished' "
                        "AND seat0_account IS NULL AND seat1_account IS NULL AND ended_ms < $1 "
                        "AND NOT EXISTS (SELECT 1 FROM sessions WHERE sessions.game_id = "
                        "games.id) ORDER BY ended_ms LIMIT $2), " DROP_GAMES,
                        2,
                        {T_INT8, T_INT8}},
        [PG_W_ACCOUNT_DROP] = {"WITH d AS (DELETE FROM accounts WHERE id = $1 AND "
                               "" STORE_PG_ACCOUNT_UNUSED
                               " RETURNING 1) INSERT INTO counts (name, n) "
                               "SELECT 'released_accounts', 1 FROM d ON CONFLICT (name) DO "
                               "UPDATE SET n = counts.n + 1",
                               1,
                               {T_INT8}},
        [PG_W_SESSION_SET] = {"INSERT INTO sessions (token, player_id, name, game_id, seat, "
                              "updated_ms, account) VALUES ($1, $2, $3, $4, $5, $6, $7) ON "
                              "CONFLICT (token) DO UPDATE SET player_id = EXCLUDED.player_id, "
                              "name = EXCLUDED.name, game_id = EXCLUDED.game_id, seat = "
                              "EXCLUDED.seat, updated_ms = EXCLUDED.updated_ms, account = "
                              "EXCLUDED.account",
                              7,
                              {T_TEXT, T_TEXT, T_TEXT, T_TEXT, T_INT4, T_INT8, T_INT8}},
        [PG_W_SESSION_DEL] = {"DELETE FROM sessions WHERE token = $1", 1, {T_TEXT}},
        [PG_W_META_SET] = {"INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) "
                           "DO UPDATE SET value = EXCLUDED.value",
                           2,
                           {T_TEXT, T_INT8}},
        /* an account stored again must be the same account (its hash and kind may have
         * changed since: account_update's) */
        [PG_W_ACCOUNT_ADD] =
                {"INSERT INTO accounts (id, name, name_key, skeleton, pw_hash, kind, "
                 "created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO UPDATE "
                 "SET id = EXCLUDED.id WHERE CASE WHEN (accounts.name, accounts.name_key, "
                 "accounts.created_ms) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.name_key, "
                 "EXCLUDED.created_ms) THEN hokito_raise('HK001', 'account ' || $1 || ' is "
                 "stored with other contents') ELSE false END",
                 7,
                 {T_INT8, T_TEXT, T_TEXT, T_TEXT, T_TEXT, T_TEXT, T_INT8}},
        [PG_W_ACCOUNT_UPDATE] = {"UPDATE accounts SET pw_hash = $2, kind = $3, closed_ms = "
                                 "NULLIF($4, 0), banned_ms = NULLIF($5, 0) WHERE id = $1",
                                 5,
                                 {T_INT8, T_TEXT, T_TEXT, T_INT8, T_INT8}},
        /*
         * A rated game's change of one seat: its rating_changes row, and only when that row is
         * new (not a retry's) the ratings row brought to it (the counts by the score $12, the
         * best rating after a game) and the pair's count (its first game makes an opponent:
         * trigger rating_pairs_new).
         */
        [PG_W_RATING_CHANGE] =
                {"WITH c AS (INSERT INTO rating_changes (game, seat, account, before_rating, "
                 "before_rd, before_vol, after_rating, after_rd, after_vol, ended_ms) VALUES "
                 "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (game, seat) DO UPDATE "
                 "SET game = EXCLUDED.game WHERE CASE WHEN (rating_changes.account, "
                 "rating_changes.before_rating, rating_changes.before_rd, "
                 "rating_changes.before_vol, rating_changes.after_rating, "
                 "rating_changes.after_rd, rating_changes.after_vol) IS DISTINCT FROM "
                 "(EXCLUDED.account, EXCLUDED.before_rating, EXCLUDED.before_rd, "
                 "EXCLUDED.before_vol, EXCLUDED.after_rating, EXCLUDED.after_rd, "
                 "EXCLUDED.after_vol) THEN hokito_raise('HK001', 'the rating change of seat ' "
                 "|| $2 || ' of game ''' || $1 || ''' is stored with other contents') ELSE "
                 "false END RETURNING 1), r AS (INSERT INTO ratings (account, kind, rating, rd, "
                 "vol, games, wins, draws, losses, best, updated_ms) SELECT $3, $11, $7, $8, $9, "
                 "1, ($12 = 1.0)::int, ($12 = 0.5)::int, ($12 = 0.0)::int, $7, $10 FROM c ON "
                 "CONFLICT (account, kind) DO UPDATE SET rating = EXCLUDED.rating, rd = "
                 "EXCLUDED.rd, vol = EXCLUDED.vol, games = ratings.games + 1, wins = "
                 "ratings.wins + EXCLUDED.wins, draws = ratings.draws + EXCLUDED.draws, losses = "
                 "ratings.losses + EXCLUDED.losses, best = GREATEST(ratings.best, "
                 "EXCLUDED.rating), updated_ms = EXCLUDED.updated_ms) INSERT INTO rating_pairs "
                 "(account, kind, opponent, games) SELECT $3, $11, $13, 1 FROM c WHERE $13 > 0 "
                 "ON CONFLICT (account, kind, opponent) DO UPDATE SET games = rating_pairs.games "
                 "+ 1",
                 13,
                 {T_TEXT, T_INT4, T_INT8, T_FLOAT8, T_FLOAT8, T_FLOAT8, T_FLOAT8, T_FLOAT8,
                  T_FLOAT8, T_INT8, T_TEXT, T_FLOAT8, T_INT8}},
};

/* The parameters sent in binary: an event's body (its bytes as they are). */
static const int binary_body[STORE_PG_PARAMS_MAX] = {[5] = 1};

/* A game that is not finished: its last event's seq, as queued; -1 while unknown. */
struct store_pg_live {
	char id[STORE_ID_MAX]; /* the key in store_pg.live */
	int64_t last;
};

/* Whether s is a string of 1..max-1 bytes. */
static int
fits(const char *s, size_t max)
{
	return s != NULL && s[0] != '\0' && strlen(s) < max;
}

/* --- The turn's statements. */

static void
tx_free(struct store_pg_tx *tx)
{
	if (tx == NULL)
		return;
	free(tx->stmts);
	free(tx->buf);
	free(tx);
}

/* A new statement which in the turn's transaction (made at its first write). */
static struct store_pg_stmt *
stmt_add(struct store_pg *pg, int which)
{
	struct store_pg_tx *tx = pg->turn;
	struct store_pg_stmt *s;

	if (tx == NULL)
		tx = pg->turn = xcalloc(1, sizeof *tx);
	tx->stmts = xgrow(tx->stmts, tx->n, &tx->cap, sizeof *tx->stmts, 16);
	s = &tx->stmts[tx->n++];
	memset(s, 0, sizeof *s);
	s->which = which;
	return s;
}

/* The next parameter of s: len bytes of p (copied), or NULL when p is NULL. */
static void
param_bytes(struct store_pg *pg, struct store_pg_stmt *s, const void *p, size_t len)
{
	struct store_pg_tx *tx = pg->turn;
	int i = s->nparams++;

	if (p == NULL) {
		s->len[i] = -1;
		return;
	}
	while (tx->used + len + 1 > tx->bufcap) {
		tx->bufcap = tx->bufcap ? tx->bufcap * 2 : 1024;
		tx->buf = xrealloc(tx->buf, tx->bufcap);
	}
	memcpy(tx->buf + tx->used, p, len);
	tx->buf[tx->used + len] = '\0'; /* text parameters end at their NUL */
	s->off[i] = tx->used;
	s->len[i] = (int)len;
	tx->used += len + 1;
}

static void
param_text(struct store_pg *pg, struct store_pg_stmt *s, const char *t)
{
	param_bytes(pg, s, t, t != NULL ? strlen(t) : 0);
}

static void
param_int(struct store_pg *pg, struct store_pg_stmt *s, int64_t v)
{
	char text[24];

	snprintf(text, sizeof text, "%" PRId64, v);
	param_text(pg, s, text);
}

static void
param_double(struct store_pg *pg, struct store_pg_stmt *s, double v)
{
	char text[40];

	snprintf(text, sizeof text, "%.17g", v); /* every digit: the value comes back exact */
	param_text(pg, s, text);
}

/* --- The ops. */

static int
pg_game_add(void *impl, const struct store_game *g, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_live *live;
	struct store_pg_stmt *s;

	if (!fits(g->id, STORE_ID_MAX) || strlen(g->code) >= STORE_CODE_MAX ||
	    strlen(g->clock) >= STORE_WORD_MAX || (int)g->kind < 0 ||
	    (int)g->kind >= game_class_count || game_variant_check(g->kind, g->variant, NULL) < 0)
		return store_fail(err, STORE_EINVAL, "game '%.15s': bad id, code, kind or variant",
		                  g->id);
	s = stmt_add(pg, PG_W_GAME_ADD);
	param_text(pg, s, g->id);
	param_text(pg, s, game_kind_name(g->kind));
	param_text(pg, s, g->variant[0] ? g->variant : "standard");
	param_int(pg, s, (int64_t)g->seed);
	param_int(pg, s, g->is_private != 0);
	param_text(pg, s, g->code);
	param_int(pg, s, g->created_ms);
	param_text(pg, s, g->clock[0] ? g->clock : "none");
	param_int(pg, s, g->rated != 0);
	live = strmap_get(&pg->live, g->id);
	if (live == NULL) {
		live = xcalloc(1, sizeof *live);
		snprintf(live->id, sizeof live->id, "%s", g->id);
		strmap_put(&pg->live, live->id, live);
	}
	live->last = 0;
	return 0;
}

static int
pg_seat_set(void *impl, const char *game_id, int seat, const char *player_id, const char *name,
            int64_t account, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;

	if (!fits(game_id, STORE_ID_MAX) || (seat != 0 && seat != 1) ||
	    !fits(player_id, STORE_ID_MAX) || !fits(name, STORE_NAME_MAX) || account < 0)
		return store_fail(err, STORE_EINVAL, "seat of game '%.15s': bad argument",
		                  game_id ? game_id : "");
	s = stmt_add(pg, PG_W_SEAT);
	param_text(pg, s, game_id);
	param_int(pg, s, seat);
	param_text(pg, s, player_id);
	param_text(pg, s, name);
	param_int(pg, s, account);
	return 0;
}

static int
pg_status_set(void *impl, const char *game_id, const char *status, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;

	if (!fits(game_id, STORE_ID_MAX) || status == NULL ||
	    (strcmp(status, "open") != 0 && strcmp(status, "live") != 0 &&
	     strcmp(status, "adjourned") != 0))
		return store_fail(err, STORE_EINVAL,
		                  "status of game '%.15s': 'open', 'live' or 'adjourned'",
		                  game_id ? game_id : "");
	s = stmt_add(pg, PG_W_STATUS);
	param_text(pg, s, game_id);
	param_text(pg, s, status);
	return 0;
}

/*
 * An event. Its seq must follow the game's last one: the statement makes sure of it in the
 * database (and a game not there is HK003), but a caller's mistake is better refused at the
 * call, as SQLite does: pg->live keeps where each unfinished game of this process stands (made
 * by game_add() and load(), moved by every event queued, dropped at the game's end). After a
 * failed commit nothing is known of what the database holds: the entries become unknown (-1),
 * and the next event of each game, which the caller writes again, sets it anew.
 */
static int
pg_event_add(void *impl, const char *game_id, const struct store_event *ev, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_live *live;
	struct store_pg_stmt *s;
	int moved;

	if (!fits(game_id, STORE_ID_MAX) || !fits(ev->type, STORE_WORD_MAX) || ev->body == NULL ||
	    ev->body_len > INT32_MAX)
		return store_fail(err, STORE_EINVAL, "event of game '%.15s': bad argument",
		                  game_id ? game_id : "");
	moved = strcmp(ev->type, "moved") == 0;
	if (moved != (ev->move != NULL) || (moved && !fits(ev->move, GAME_MOVE_TEXT)))
		return store_fail(err, STORE_EINVAL,
		                  "event %" PRId64 " of game '%s': a move goes with a moved "
		                  "event, and only there",
		                  ev->seq, game_id);
	live = strmap_get(&pg->live, game_id);
	if (live != NULL && live->last >= 0 && ev->seq != live->last + 1)
		return store_fail(err, STORE_EINVAL,
		                  "event %" PRId64 " of game '%s' does not follow event %" PRId64,
		                  ev->seq, game_id, live->last);
	if (ev->seq < 1)
		return store_fail(err, STORE_EINVAL, "event %" PRId64 " of game '%s': bad seq",
		                  ev->seq, game_id);
	s = stmt_add(pg, PG_W_EVENT_ADD);
	param_text(pg, s, game_id);
	param_int(pg, s, ev->seq);
	param_int(pg, s, ev->time_ms);
	param_text(pg, s, ev->type);
	param_text(pg, s, moved ? ev->move : NULL);
	param_bytes(pg, s, ev->body, ev->body_len > 0 ? ev->body_len : strlen(ev->body));
	if (live != NULL)
		live->last = ev->seq;
	return 0;
}

static int
pg_game_finish(void *impl, const char *game_id, int64_t ended_ms, const char *result, int winner,
               const char *reason, const int score[2], struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;

	if (!fits(game_id, STORE_ID_MAX) || !fits(result, STORE_WORD_MAX) ||
	    !fits(reason, STORE_WORD_MAX) || winner < -1 || winner > 1)
		return store_fail(err, STORE_EINVAL, "end of game '%.15s': bad argument",
		                  game_id ? game_id : "");
	s = stmt_add(pg, PG_W_FINISH);
	param_text(pg, s, game_id);
	param_int(pg, s, ended_ms);
	param_text(pg, s, result);
	param_int(pg, s, winner);
	param_text(pg, s, reason);
	for (int i = 0; i < 2; i++) {
		if (score != NULL)
			param_int(pg, s, score[i]);
		else
			param_text(pg, s, NULL);
	}
	free(strmap_del(&pg->live, game_id)); /* its later events (a rematch offer) are rare */
	return 0;
}

static int
pg_game_unrated(void *impl, const char *game_id, const char *unrated, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;

	if (!fits(game_id, STORE_ID_MAX) || unrated == NULL || !fits(unrated, STORE_WORD_MAX))
		return store_fail(err, STORE_EINVAL, "game '%.15s': a bad unrated word",
		                  game_id ? game_id : "");
	s = stmt_add(pg, PG_W_UNRATED);
	param_text(pg, s, game_id);
	param_text(pg, s, unrated);
	return 0;
}

/* A game deleted (one that never started): gone already is no error, as for a retry. */
static int
pg_game_drop(void *impl, const char *game_id, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;

	if (!fits(game_id, STORE_ID_MAX))
		return store_fail(err, STORE_EINVAL, "dropping a game: bad id");
	s = stmt_add(pg, PG_W_GAME_DROP);
	param_text(pg, s, game_id);
	free(strmap_del(&pg->live, game_id));
	return 0;
}

/* --keep-days: the statement finds and deletes them at the commit; how many is not known here
 * (store-port.h: 0). */
static int
pg_sweep(void *impl, int64_t before_ms, unsigned max, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;

	(void)err;
	if (max == 0)
		return 0;
	s = stmt_add(pg, PG_W_SWEEP);
	param_int(pg, s, before_ms);
	param_int(pg, s, max);
	return 0;
}

static int
pg_account_drop(void *impl, int64_t id, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;

	if (id <= 0)
		return store_fail(err, STORE_EINVAL, "account %" PRId64 ": bad id", id);
	s = stmt_add(pg, PG_W_ACCOUNT_DROP);
	param_int(pg, s, id);
	return 0;
}

static int
pg_session_set(void *impl, const struct store_session *ss, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;

	if (!fits(ss->token, STORE_TOKEN_MAX) || !fits(ss->player_id, STORE_ID_MAX) ||
	    !fits(ss->name, STORE_NAME_MAX) || !fits(ss->game_id, STORE_ID_MAX) ||
	    (ss->seat != 0 && ss->seat != 1))
		return store_fail(err, STORE_EINVAL, "session of player '%.15s': bad argument",
		                  ss->player_id);
	s = stmt_add(pg, PG_W_SESSION_SET);
	param_text(pg, s, ss->token);
	param_text(pg, s, ss->player_id);
	param_text(pg, s, ss->name);
	param_text(pg, s, ss->game_id);
	param_int(pg, s, ss->seat);
	param_int(pg, s, ss->updated_ms);
	param_int(pg, s, ss->account);
	return 0;
}

static int
pg_session_remove(void *impl, const char *token, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;

	if (!fits(token, STORE_TOKEN_MAX))
		return store_fail(err, STORE_EINVAL, "bad session token");
	s = stmt_add(pg, PG_W_SESSION_DEL);
	param_text(pg, s, token);
	return 0;
}

static int
pg_meta_set(void *impl, const char *key, int64_t value, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;

	if (!fits(key, 64))
		return store_fail(err, STORE_EINVAL, "bad meta key");
	s = stmt_add(pg, PG_W_META_SET);
	param_text(pg, s, key);
	param_int(pg, s, value);
	return 0;
}

static int
pg_account_add(void *impl, const struct store_account *a, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;

	if (a->id <= 0 || !fits(a->name, STORE_ACCOUNT_NAME_MAX) ||
	    !fits(a->key, STORE_ACCOUNT_NAME_MAX) || !fits(a->skeleton, STORE_SKELETON_MAX) ||
	    !fits(a->hash, STORE_HASH_MAX) || !fits(a->kind, STORE_WORD_MAX))
		return store_fail(err, STORE_EINVAL, "account '%.20s': bad argument", a->name);
	s = stmt_add(pg, PG_W_ACCOUNT_ADD);
	param_int(pg, s, a->id);
	param_text(pg, s, a->name);
	param_text(pg, s, a->key);
	param_text(pg, s, a->skeleton);
	param_text(pg, s, a->hash);
	param_text(pg, s, a->kind);
	param_int(pg, s, a->created_ms);
	return 0;
}

static int
pg_account_update(void *impl, const struct store_account *a, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;

	if (a->id <= 0 || !fits(a->hash, STORE_HASH_MAX) || !fits(a->kind, STORE_WORD_MAX))
		return store_fail(err, STORE_EINVAL, "account %lld: bad argument",
		                  (long long)a->id);
	s = stmt_add(pg, PG_W_ACCOUNT_UPDATE);
	param_int(pg, s, a->id);
	param_text(pg, s, a->hash);
	param_text(pg, s, a->kind);
	param_int(pg, s, a->closed_ms);
	param_int(pg, s, a->banned_ms);
	return 0;
}

static int
pg_rating_change(void *impl, const char *game_id, const struct store_rating_change *c,
                 int64_t now_ms, struct store_error *err)
{
	struct glicko after = {c->after[0], c->after[1], c->after[2]};
	struct store_pg *pg = impl;
	struct store_pg_stmt *s;

	if (!fits(game_id, STORE_ID_MAX) || (c->seat != 0 && c->seat != 1) || c->account <= 0 ||
	    (int)c->kind < 0 || (int)c->kind >= game_class_count ||
	    (c->score != 0.0 && c->score != 0.5 && c->score != 1.0) ||
	    glicko_rate(&after, NULL, 0, &after) < 0)
		return store_fail(err, STORE_EINVAL, "game '%.15s': a bad rating change",
		                  game_id ? game_id : "");
	s = stmt_add(pg, PG_W_RATING_CHANGE);
	param_text(pg, s, game_id);
	param_int(pg, s, c->seat);
	param_int(pg, s, c->account);
	for (int i = 0; i < 3; i++)
		param_double(pg, s, c->before[i]);
	for (int i = 0; i < 3; i++)
		param_double(pg, s, c->after[i]);
	param_int(pg, s, now_ms);
	param_text(pg, s, game_kind_name(c->kind));
	param_double(pg, s, c->score);
	param_int(pg, s, c->opponent);
	return 0;
}

/* --- Sending the transactions, reading their answers. */

static void live_forget(struct store_pg *pg);

/* Give the turn's writes up (a write of the turn failed, or its commit was refused): where the
 * games stand is what the database says, not known here any more. */
static void
pg_rollback(void *impl)
{
	struct store_pg *pg = impl;

	if (pg->turn != NULL)
		live_forget(pg);
	tx_free(pg->turn);
	pg->turn = NULL;
}

static size_t
pg_pending(const void *impl)
{
	const struct store_pg *pg = impl;

	return pg->turn != NULL ? pg->turn->n : 0;
}

/* Every live game's place becomes unknown: the database's is not known after a failure. */
static void
live_forget(struct store_pg *pg)
{
	for (size_t i = 0; i < pg->live.cap; i++)
		if (pg->live.slots[i].key != NULL)
			((struct store_pg_live *)pg->live.slots[i].value)->last = -1;
}

void
store_pg_live_set(struct store_pg *pg, const char *game_id, int64_t last)
{
	struct store_pg_live *live = strmap_get(&pg->live, game_id);

	if (live == NULL) {
		live = xcalloc(1, sizeof *live);
		snprintf(live->id, sizeof live->id, "%s", game_id);
		strmap_put(&pg->live, live->id, live);
	}
	live->last = last;
}

/* The answer of tx (taken off the queue): done(), or before start() the commit's outcome. */
static void
tx_answer(struct store_pg *pg, struct store_pg_tx *tx, int rc, const struct store_error *err)
{
	uint64_t ticket = tx->ticket;

	tx_free(tx);
	if (pg->done != NULL) {
		pg->done(pg->done_arg, ticket, rc, err);
	} else {
		pg->sync_rc = rc;
		if (err != NULL)
			pg->sync_err = *err;
	}
}

void
store_pg_fail_all(struct store_pg *pg, int rc, const struct store_error *err)
{
	struct store_pg_txq failed = TAILQ_HEAD_INITIALIZER(failed);
	struct store_pg_tx *tx;

	/* off the queue first: a done() that commits again starts a queue of its own */
	TAILQ_CONCAT(&failed, &pg->queue, link);
	if (pg->flight.kind == STORE_PG_FLIGHT_TX)
		pg->flight.kind = STORE_PG_FLIGHT_NONE;
	live_forget(pg);
	while ((tx = TAILQ_FIRST(&failed)) != NULL) {
		TAILQ_REMOVE(&failed, tx, link);
		tx_answer(pg, tx, rc, err);
	}
}

/* Send tx (the queue's first) as one pipeline: BEGIN, its statements, COMMIT, sync. */
static int
tx_send(struct store_pg *pg, struct store_pg_tx *tx)
{
	PGconn *c = pg->conn;

	if (PQpipelineStatus(c) == PQ_PIPELINE_OFF && !PQenterPipelineMode(c))
		return -1;
	memset(&pg->flight, 0, sizeof pg->flight);
	pg->flight.kind = STORE_PG_FLIGHT_TX;
	if (pg->needs_rollback && !PQsendQueryParams(c, "ROLLBACK", 0, NULL, NULL, NULL, NULL, 0))
		return -1;
	pg->needs_rollback = 0;
	if (!PQsendQueryParams(c, "BEGIN", 0, NULL, NULL, NULL, NULL, 0))
		return -1;
	for (size_t i = 0; i < tx->n; i++) {
		const struct store_pg_stmt *s = &tx->stmts[i];
		const char *values[STORE_PG_PARAMS_MAX];
		char name[16];

		for (int k = 0; k < s->nparams; k++)
			values[k] = s->len[k] < 0 ? NULL : tx->buf + s->off[k];
		snprintf(name, sizeof name, "hkw%d", s->which);
		if (!PQsendQueryPrepared(c, name, s->nparams, values, s->len,
		                         s->which == PG_W_EVENT_ADD ? binary_body : NULL, 0))
			return -1;
	}
	if (!PQsendQueryParams(c, "COMMIT", 0, NULL, NULL, NULL, NULL, 0) || !PQpipelineSync(c))
		return -1;
	return store_pg_flush(pg);
}

void
store_pg_send_next(struct store_pg *pg)
{
	struct store_pg_tx *tx;

	while (pg->flight.kind == STORE_PG_FLIGHT_NONE && pg->state == STORE_PG_READY &&
	       !pg->lost_pending && (tx = TAILQ_FIRST(&pg->queue)) != NULL) {
		if (tx->n ==
		    0) { /* nothing to write: answered in its turn, after the ones before */
			TAILQ_REMOVE(&pg->queue, tx, link);
			tx_answer(pg, tx, 0, NULL);
			continue;
		}
		if (tx_send(pg, tx) < 0) {
			if (pg->loop != NULL)
				store_pg_lost_later(
				        pg); /* its done() is not called from commit() */
			else
				store_pg_lost(pg, PQerrorMessage(pg->conn));
		}
		return;
	}
}

int
store_pg_setup_send(struct store_pg *pg)
{
	PGconn *c = pg->conn;
	char sql[160];

	if (PQpipelineStatus(c) == PQ_PIPELINE_OFF && !PQenterPipelineMode(c))
		return -1;
	memset(&pg->flight, 0, sizeof pg->flight);
	pg->flight.kind = STORE_PG_FLIGHT_SETUP;
	pg->flight.schema = -1;
	if (pg->opts.writer)
		snprintf(sql, sizeof sql,
		         "SELECT pg_try_advisory_lock(%d, hashtext(current_schema()))",
		         STORE_PG_LOCK_WRITER);
	else
		snprintf(sql, sizeof sql, "SELECT true");
	if (!PQsendQueryParams(c, sql, 0, NULL, NULL, NULL, NULL, 0))
		return -1;
	/* --fsync: always, a commit is on the server's disk when COMMIT returns; normal, it is
	 * on its way there (a crash of hokitod loses nothing, one of the server's may) */
	if (!PQsendQueryParams(c,
	                       pg->opts.fsync == STORE_FSYNC_ALWAYS
	                               ? "SET synchronous_commit = on"
	                               : "SET synchronous_commit = off",
	                       0, NULL, NULL, NULL, NULL, 0) ||
	    !PQsendQueryParams(c, "SELECT value FROM hokito_meta WHERE key = 'schema'", 0, NULL,
	                       NULL, NULL, NULL, 0))
		return -1;
	for (int i = 0; i < PG_W_COUNT; i++) {
		char name[16];

		snprintf(name, sizeof name, "hkw%d", i);
		if (!PQsendPrepare(c, name, writes[i].sql, writes[i].nparams, writes[i].types))
			return -1;
	}
	if (!PQpipelineSync(c))
		return -1;
	return store_pg_flush(pg);
}

/* The pipeline in flight reached its sync: answer it. */
static void
flight_end(struct store_pg *pg)
{
	struct store_pg_flight f = pg->flight;
	PGTransactionStatusType ts = PQtransactionStatus(pg->conn);
	struct store_error err;
	int rc = 0;

	pg->flight.kind = STORE_PG_FLIGHT_NONE;
	if (ts == PQTRANS_INERROR || ts == PQTRANS_INTRANS)
		pg->needs_rollback = 1; /* a failure inside BEGIN leaves the block open */
	if (TAILQ_EMPTY(&pg->queue) || pg->loop == NULL)
		PQexitPipelineMode(pg->conn); /* nothing follows: the plain calls work again */
	if (f.kind == STORE_PG_FLIGHT_SETUP) {
		if (f.failed)
			err = f.err, rc = f.err.code;
		else if (!f.locked)
			rc = store_fail(&err, STORE_ECONFLICT,
			                "%s: in use by another hokitod (it holds the store's "
			                "lock); one server per store",
			                pg->name);
		else if (f.schema != pg->version)
			rc = store_fail(&err, STORE_ECORRUPT,
			                "%s: the store's schema is %" PRId64 " now, not %d",
			                pg->name, f.schema, pg->version);
		store_pg_setup_done(pg, rc, &err);
		return;
	}
	if (f.failed || !f.committed) {
		if (!f.failed)
			store_fail(&f.err, STORE_EIO, "%s: committing: COMMIT did not answer",
			           pg->name);
		store_pg_fail_all(pg, f.err.code, &f.err);
	} else {
		struct store_pg_tx *tx = TAILQ_FIRST(&pg->queue);
		TAILQ_REMOVE(&pg->queue, tx, link);
		tx_answer(pg, tx, 0, NULL);
	}
	store_pg_send_next(pg);
}

/* What the flight's current query is about, for a message. */
static const char *
flight_what(const struct store_pg *pg)
{
	return pg->flight.kind == STORE_PG_FLIGHT_SETUP ? "setting up the connection"
	                                                : "committing a turn";
}

void
store_pg_results(struct store_pg *pg)
{
	while (pg->conn != NULL && pg->flight.kind != STORE_PG_FLIGHT_NONE && !PQisBusy(pg->conn)) {
		PGresult *r = PQgetResult(pg->conn);
		struct store_pg_flight *f = &pg->flight;

		if (r == NULL) { /* the end of one query's results */
			f->query++;
			continue;
		}
		switch (PQresultStatus(r)) {
		case PGRES_PIPELINE_SYNC:
			PQclear(r);
			flight_end(pg);
			continue;
		case PGRES_FATAL_ERROR:
			if (!f->failed) {
				f->failed = 1;
				store_pg_res_fail(pg->name, pg->conn, r, flight_what(pg), &f->err);
			}
			break;
		case PGRES_COMMAND_OK:
			if (f->kind == STORE_PG_FLIGHT_TX && strcmp(PQcmdStatus(r), "COMMIT") == 0)
				f->committed = 1;
			break;
		case PGRES_TUPLES_OK:
			if (f->kind == STORE_PG_FLIGHT_SETUP && f->query == 0 && PQntuples(r) == 1)
				f->locked = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
			if (f->kind == STORE_PG_FLIGHT_SETUP && f->query == 2 && PQntuples(r) == 1)
				f->schema = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
			break;
		default: /* PGRES_PIPELINE_ABORTED: the queries after a failure */
			break;
		}
		PQclear(r);
	}
}

/*
 * Group commit on PostgreSQL: the turn's writes as one transaction, sent at once. Before start()
 * it waits for COMMIT's answer (durable at return, *ticket 0); after it the answer comes through
 * done() and commit() returns the ticket. A turn without writes needs no transaction: durable at
 * once when nothing waits before it, else it gets a ticket answered in its turn (what it
 * replies may rest on the writes of the turns before). A store not connected refuses at once.
 */
static int
pg_commit(void *impl, uint64_t *ticket, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_tx *tx;
	int rc = 0;

	*ticket = 0;
	if (!pg->opts.writer || pg->refused) {
		pg_rollback(pg);
		return store_fail(err, STORE_ECONFLICT,
		                  pg->refused ? "%s: another hokitod holds the store's lock now"
		                              : "%s: opened without the writer's lock: no writes",
		                  pg->name);
	}
	if (pg->state != STORE_PG_READY || pg->lost_pending) {
		pg_rollback(pg);
		return store_fail(err, STORE_EUNAVAIL,
		                  "%s: not connected to the database (reconnecting)", pg->name);
	}
	tx = pg->turn;
	pg->turn = NULL;
	if ((tx == NULL || tx->n == 0) && TAILQ_EMPTY(&pg->queue)) {
		tx_free(tx);
		return 0;
	}
	if (tx == NULL)
		tx = xcalloc(1, sizeof *tx);
	if (pg->loop != NULL)
		*ticket = tx->ticket = ++pg->next_ticket;
	TAILQ_INSERT_TAIL(&pg->queue, tx, link);
	if (pg->loop != NULL) {
		store_pg_send_next(pg);
		return 0;
	}
	pg->sync_rc = 0;
	store_pg_send_next(pg);
	store_pg_wait(pg);
	if ((rc = pg->sync_rc) < 0 && err != NULL)
		*err = pg->sync_err;
	return rc;
}

void
store_pg_write_clear(struct store_pg *pg)
{
	struct store_pg_tx *tx;

	pg_rollback(pg);
	while ((tx = TAILQ_FIRST(&pg->queue)) != NULL) {
		TAILQ_REMOVE(&pg->queue, tx, link);
		tx_free(tx);
	}
	for (size_t i = 0; i < pg->live.cap; i++)
		if (pg->live.slots[i].key != NULL)
			free(pg->live.slots[i].value);
	strmap_close(&pg->live);
}

void
store_pg_write_port(void *impl, struct store_write_port *out)
{
	*out = (struct store_write_port){.game_add = pg_game_add,
	                                 .seat_set = pg_seat_set,
	                                 .status_set = pg_status_set,
	                                 .event_add = pg_event_add,
	                                 .game_finish = pg_game_finish,
	                                 .game_unrated = pg_game_unrated,
	                                 .game_drop = pg_game_drop,
	                                 .sweep = pg_sweep,
	                                 .account_drop = pg_account_drop,
	                                 .session_set = pg_session_set,
	                                 .session_remove = pg_session_remove,
	                                 .meta_set = pg_meta_set,
	                                 .meta_get = store_pg_meta_get,
	                                 .commit = pg_commit,
	                                 .rollback = pg_rollback,
	                                 .pending = pg_pending,
	                                 .load = store_pg_load,
	                                 .sessions_load = store_pg_sessions_load,
	                                 .account_add = pg_account_add,
	                                 .account_update = pg_account_update,
	                                 .accounts_load = store_pg_accounts_load,
	                                 .rating_change = pg_rating_change,
	                                 .ratings_load = store_pg_ratings_load,
	                                 .rated_pairs_load = store_pg_rated_pairs_load,
	                                 .game_put = store_pg_copy_game_put,
	                                 .rating_change_put = store_pg_copy_rating_change_put,
	                                 .rating_pair_put = store_pg_copy_rating_pair_put,
	                                 .rating_put = store_pg_copy_rating_put,
	                                 .impl = impl};
}

/* --- The queue for the backend's other writes (store-pg-copy.c): the ops' own functions. */

_Static_assert(PG_W_COUNT <= STORE_PG_COPY_FIRST, "a copy's statements come after these");

struct store_pg_stmt *
store_pg_stmt_add(struct store_pg *pg, int which)
{
	return stmt_add(pg, which);
}

void
store_pg_param_text(struct store_pg *pg, struct store_pg_stmt *s, const char *t)
{
	param_text(pg, s, t);
}

void
store_pg_param_int(struct store_pg *pg, struct store_pg_stmt *s, int64_t v)
{
	param_int(pg, s, v);
}

void
store_pg_param_double(struct store_pg *pg, struct store_pg_stmt *s, double v)
{
	param_double(pg, s, v);
}
