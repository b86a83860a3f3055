/*
 * store-copy.c: the SQLite backend's part in a copy of a whole store (hokitod migrate; the ports'
 * copy ops, store-port.h): the reads of everything (every game by serial, a game's rating
 * changes, every rating pair) and the writes of rows as another store held them (a whole game
 * with its events, a rating change, a rating pair, a ratings row). The writes are queued in the
 * turn's transaction like every other (store_tx()) and are idempotent by key: a row there already
 * with the same values is success, with other values STORE_ECORRUPT. It owns the statements it
 * prepares at their first use on a connection (struct store_copy, freed by store_copy_free() when
 * the store closes); it calls store.c's helpers only, and never libuv.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "store-game.h"
#include "store-impl.h"
#include "store.h"
#include "xmalloc.h"

enum {
	C_TOP,
	C_GAP,
	C_GAME_PUT,
	C_CHANGE_PUT,
	C_CHANGE_SAME,
	C_PAIR_PUT,
	C_PAIR_SAME,
	C_RATING_PUT,
	C_CHANGES_OF,
	C_PAIRS,
	C_COUNT,
};

/* The values of a rating_changes row, ?1 to ?10, in C_CHANGE_PUT's and C_CHANGE_SAME's order. */
#define CHANGE_WHERE                                                                               \
	"game = ?1 AND seat = ?2 AND account = ?3 AND before_rating = ?4 AND before_rd = ?5 AND "  \
	"before_vol = ?6 AND after_rating = ?7 AND after_rd = ?8 AND after_vol = ?9 AND "          \
	"ended_ms = ?10"

static const char *const copy_sql[C_COUNT] = {
        /* the highest serial a game was given, kept or deleted (what S_GAME_ADD goes on from) */
        [C_TOP] = "SELECT MAX(COALESCE((SELECT MAX(serial) FROM games), 0), "
                  "COALESCE((SELECT n FROM counts WHERE name = 'deleted_serial'), 0))",
        /* ?1 more games deleted, the last of them numbered ?2 (as S_DELETED counts them) */
        [C_GAP] = "UPDATE counts SET n = CASE name WHEN 'deleted' THEN n + ?1 ELSE ?2 END "
                  "WHERE name = 'deleted' OR name = 'deleted_serial'",
        /* a game already finished is counted by the insert triggers (migrations[5], [8]) */
        [C_GAME_PUT] = "INSERT INTO games (id, serial, kind, variant, seed, private, code, "
                       "status, created_ms, seat0_id, seat0_name, seat1_id, seat1_name, "
                       "ended_ms, result, winner, reason, score0, score1, clock, rated, "
                       "seat0_account, seat1_account, unrated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                       "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
                       "?22, ?23, ?24) ON CONFLICT (id) DO NOTHING",
        [C_CHANGE_PUT] = "INSERT INTO rating_changes (game, seat, account, before_rating, "
                         "before_rd, before_vol, after_rating, after_rd, after_vol, ended_ms) "
                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
                         "ON CONFLICT (game, seat) DO NOTHING",
        [C_CHANGE_SAME] = "SELECT COUNT(*) FROM rating_changes WHERE " CHANGE_WHERE,
        /* a pair's insert makes an opponent of a ratings row there (trigger rating_pairs_new):
         * rating_put() comes after and says how many */
        [C_PAIR_PUT] = "INSERT INTO rating_pairs (account, kind, opponent, games) VALUES "
                       "(?1, ?2, ?3, ?4) ON CONFLICT (account, kind, opponent) DO NOTHING",
        [C_PAIR_SAME] = "SELECT COUNT(*) FROM rating_pairs WHERE account = ?1 AND kind = ?2 AND "
                        "opponent = ?3 AND games = ?4",
        [C_RATING_PUT] =
                "INSERT INTO ratings (account, kind, rating, rd, vol, games, wins, draws, "
                "losses, best, updated_ms, opponents) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
                "?9, ?10, ?11, ?12) ON CONFLICT (account, kind) DO UPDATE SET "
                "rating = excluded.rating, rd = excluded.rd, vol = excluded.vol, "
                "games = excluded.games, wins = excluded.wins, draws = excluded.draws, "
                "losses = excluded.losses, best = excluded.best, "
                "updated_ms = excluded.updated_ms, opponents = excluded.opponents",
        [C_CHANGES_OF] = "SELECT c.seat, c.account, c.before_rating, c.before_rd, c.before_vol, "
                         "c.after_rating, c.after_rd, c.after_vol, c.ended_ms, g.kind, "
                         "g.result, g.winner FROM rating_changes c LEFT JOIN games g ON "
                         "g.id = c.game WHERE c.game = ?1 ORDER BY c.seat",
        [C_PAIRS] = "SELECT account, kind, opponent, games FROM rating_pairs "
                    "ORDER BY account, kind, opponent",
};

/* The statements of one connection, prepared as they are first used. */
struct store_copy {
	sqlite3_stmt *stmt[C_COUNT];
};

void
store_copy_free(struct store *st)
{
	if (st->copy == NULL)
		return;
	for (int i = 0; i < C_COUNT; i++)
		sqlite3_finalize(st->copy->stmt[i]);
	free(st->copy);
	st->copy = NULL;
}

/* Statement which (C_*), prepared once, reset and unbound, into *out; 0 or a store error. */
static int
copy_stmt(struct store *st, int which, sqlite3_stmt **out, struct store_error *err)
{
	int rc;

	if (st->copy == NULL) {
		st->copy = xcalloc(1, sizeof *st->copy);
		st->copy_free = store_copy_free; /* store_close() frees it */
	}
	if (st->copy->stmt[which] == NULL) {
		rc = sqlite3_prepare_v3(st->db, copy_sql[which], -1, SQLITE_PREPARE_PERSISTENT,
		                        &st->copy->stmt[which], NULL);
		if (rc != SQLITE_OK)
			return store_sqlite_fail(st, rc, err, "preparing a copy's statements");
	}
	*out = st->copy->stmt[which];
	sqlite3_reset(*out);
	sqlite3_clear_bindings(*out);
	return 0;
}

/* Step s, a bound query of one integer, into *out. */
static int
copy_int(struct store *st, sqlite3_stmt *s, int64_t *out, struct store_error *err)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	return rc == SQLITE_ROW ? 0 : store_sqlite_fail(st, rc, err, "reading a copy's row");
}

/*
 * game_put() of a game whose id is stored already (a retry): success when it is the same game
 * with the same events, else STORE_ECORRUPT naming what differs.
 */
static int
copy_game_same(struct store *st, const struct store_game *g, const struct store_event *ev, size_t n,
               struct store_error *err)
{
	struct store_game want = *g, have;
	struct store_event *hev;
	const char *diff = NULL;
	size_t hn;
	int rc;

	if ((rc = store_game_get(st, g->id, &have, &hev, &hn, err)) < 0)
		return rc;
	want.nevents = (int64_t)n;
	want.ply = 0;
	for (size_t i = 0; i < n; i++)
		want.ply += ev[i].move != NULL;
	diff = store_game_diff(&want, &have);
	for (size_t i = 0; diff == NULL && i < n && i < hn; i++)
		diff = store_event_diff(&ev[i], &hev[i]);
	if (diff == NULL && hn != n)
		diff = "events";
	store_events_free(hev, hn);
	if (diff != NULL)
		return store_fail(err, STORE_ECORRUPT,
		                  "%s: game '%s' is stored already, with another %s", st->path,
		                  g->id, diff);
	return 0;
}

/* A string column: s, or NULL when it is empty. */
static void
bind_text_or_null(sqlite3_stmt *s, int i, const char *t)
{
	bind_text(s, i, t[0] != '\0' ? t : NULL);
}

/*
 * The row as g says: a seat never taken has no id or name, an account -1 is none (NULL); an
 * unfinished game has no end; a kind without scores none either (what game_finish() writes with
 * no score). The numbers between the highest serial given and g's were games deleted where the
 * game comes from: counted so (C_GAP), the check's rule "games + deleted = the highest serial"
 * holds for the copy as it did there.
 */
int
store_copy_game_put(void *impl, const struct store_game *g, const struct store_event *ev,
                    size_t nevents, struct store_error *err)
{
	struct store *st = impl;
	int finished = strcmp(g->status, "finished") == 0;
	int64_t top = 0, ply = 0;
	sqlite3_stmt *s;
	int rc;

	if (!store_game_put_valid(g, ev, nevents))
		return store_fail(err, STORE_EINVAL, "putting game '%.15s': a bad row or event",
		                  g->id);
	if ((rc = store_tx(st, err)) < 0 || (rc = copy_stmt(st, C_TOP, &s, err)) < 0 ||
	    (rc = copy_int(st, s, &top, err)) < 0 || (rc = copy_stmt(st, C_GAME_PUT, &s, err)) < 0)
		return rc;
	bind_text(s, 1, g->id);
	sqlite3_bind_int64(s, 2, g->serial);
	bind_text(s, 3, game_kind_name(g->kind));
	bind_text(s, 4, g->variant[0] ? g->variant : "standard");
	sqlite3_bind_int64(s, 5, (int64_t)g->seed);
	sqlite3_bind_int(s, 6, g->is_private != 0);
	bind_text(s, 7, g->code);
	bind_text(s, 8, g->status);
	sqlite3_bind_int64(s, 9, g->created_ms);
	for (int i = 0; i < 2; i++) {
		if (g->seat_taken[i]) {
			bind_text(s, 10 + 2 * i, g->seat_id[i]);
			bind_text(s, 11 + 2 * i, g->seat_name[i]);
		}
		if (g->seat_account[i] >= 0)
			sqlite3_bind_int64(s, 22 + i, g->seat_account[i]);
	}
	if (finished) {
		sqlite3_bind_int64(s, 14, g->ended_ms);
		bind_text(s, 15, g->result);
		sqlite3_bind_int(s, 16, g->winner);
		bind_text_or_null(s, 17, g->reason);
		if (game_kind_has(g->kind, GAME_HAS_SCORES)) {
			sqlite3_bind_int(s, 18, g->score[0]);
			sqlite3_bind_int(s, 19, g->score[1]);
		}
	}
	bind_text(s, 20, g->clock[0] ? g->clock : "none");
	sqlite3_bind_int(s, 21, g->rated != 0);
	bind_text_or_null(s, 24, g->unrated);
	if ((rc = store_write(st, s, "putting a game", err)) < 0)
		return rc;
	if (sqlite3_changes(st->db) == 0)
		return copy_game_same(st, g, ev, nevents, err);
	if (g->serial <= top)
		return store_fail(err, STORE_EINVAL,
		                  "putting game '%s': serial %" PRId64 " after %" PRId64
		                  " (games go in serial order)",
		                  g->id, g->serial, top);
	if (g->serial > top + 1) {
		if ((rc = copy_stmt(st, C_GAP, &s, err)) < 0)
			return rc;
		sqlite3_bind_int64(s, 1, g->serial - top - 1);
		sqlite3_bind_int64(s, 2, g->serial - 1);
		if ((rc = store_write(st, s, "counting deleted games", err)) < 0)
			return rc;
	}
	for (size_t i = 0; i < nevents; i++) {
		const struct store_event *e = &ev[i];

		s = store_stmt(st, S_EVENT_ADD);
		bind_text(s, 1, g->id);
		sqlite3_bind_int64(s, 2, e->seq);
		sqlite3_bind_int64(s, 3, e->time_ms);
		bind_text(s, 4, e->type);
		if (e->move != NULL) {
			sqlite3_bind_int64(s, 5, ++ply);
			bind_text(s, 6, e->move);
		}
		sqlite3_bind_text(s, 7, e->body, e->body_len > 0 ? (int)e->body_len : -1,
		                  SQLITE_STATIC);
		if ((rc = store_write(st, s, "putting an event", err)) < 0)
			return rc;
	}
	return 0;
}

/* Bind c's row of game_id as ?1 to ?10 (CHANGE_WHERE's order). */
static void
copy_change_bind(sqlite3_stmt *s, const char *game_id, const struct store_rating_change *c)
{
	bind_text(s, 1, game_id);
	sqlite3_bind_int(s, 2, c->seat);
	sqlite3_bind_int64(s, 3, c->account);
	for (int i = 0; i < 3; i++) {
		sqlite3_bind_double(s, 4 + i, c->before[i]);
		sqlite3_bind_double(s, 7 + i, c->after[i]);
	}
	sqlite3_bind_int64(s, 10, c->ended_ms);
}

int
store_copy_rating_change_put(void *impl, const char *game_id, const struct store_rating_change *c,
                             struct store_error *err)
{
	struct store *st = impl;
	sqlite3_stmt *s;
	int64_t same = 0;
	int rc;

	if (!store_fits(game_id, STORE_ID_MAX) || (c->seat != 0 && c->seat != 1) || c->account <= 0)
		return store_fail(err, STORE_EINVAL, "game '%.15s': a bad rating change", game_id);
	if ((rc = store_tx(st, err)) < 0 || (rc = copy_stmt(st, C_CHANGE_PUT, &s, err)) < 0)
		return rc;
	copy_change_bind(s, game_id, c);
	if ((rc = store_write(st, s, "putting a rating change", err)) < 0 ||
	    sqlite3_changes(st->db) > 0)
		return rc;
	if ((rc = copy_stmt(st, C_CHANGE_SAME, &s, err)) < 0)
		return rc;
	copy_change_bind(s, game_id, c);
	if ((rc = copy_int(st, s, &same, err)) < 0)
		return rc;
	return same == 1 ? 0
	                 : store_fail(err, STORE_ECORRUPT,
	                              "%s: the rating change of game '%s', seat %d, is stored "
	                              "already, with other values",
	                              st->path, game_id, c->seat);
}

/* Bind p as ?1 to ?4. */
static void
copy_pair_bind(sqlite3_stmt *s, const struct store_rating_pair *p)
{
	sqlite3_bind_int64(s, 1, p->account);
	bind_text(s, 2, game_kind_name(p->kind));
	sqlite3_bind_int64(s, 3, p->opponent);
	sqlite3_bind_int64(s, 4, p->games);
}

int
store_copy_rating_pair_put(void *impl, const struct store_rating_pair *p, struct store_error *err)
{
	struct store *st = impl;
	sqlite3_stmt *s;
	int64_t same = 0;
	int rc;

	if (p->account <= 0 || p->opponent <= 0 || p->games < 0 || (int)p->kind < 0 ||
	    (int)p->kind >= game_class_count)
		return store_fail(err, STORE_EINVAL, "account %" PRId64 ": a bad rating pair",
		                  p->account);
	if ((rc = store_tx(st, err)) < 0 || (rc = copy_stmt(st, C_PAIR_PUT, &s, err)) < 0)
		return rc;
	copy_pair_bind(s, p);
	if ((rc = store_write(st, s, "putting a rating pair", err)) < 0 ||
	    sqlite3_changes(st->db) > 0)
		return rc;
	if ((rc = copy_stmt(st, C_PAIR_SAME, &s, err)) < 0)
		return rc;
	copy_pair_bind(s, p);
	if ((rc = copy_int(st, s, &same, err)) < 0)
		return rc;
	return same == 1 ? 0
	                 : store_fail(err, STORE_ECORRUPT,
	                              "%s: the rating pair of accounts %" PRId64 " and %" PRId64
	                              " is stored already, with another count",
	                              st->path, p->account, p->opponent);
}

int
store_copy_rating_put(void *impl, const struct store_rating *r, struct store_error *err)
{
	struct store *st = impl;
	sqlite3_stmt *s;
	int rc;

	if (!store_rating_put_valid(r))
		return store_fail(err, STORE_EINVAL, "account %" PRId64 ": a bad ratings row",
		                  r->account);
	if ((rc = store_tx(st, err)) < 0 || (rc = copy_stmt(st, C_RATING_PUT, &s, err)) < 0)
		return rc;
	sqlite3_bind_int64(s, 1, r->account);
	bind_text(s, 2, game_kind_name(r->kind));
	sqlite3_bind_double(s, 3, r->rating);
	sqlite3_bind_double(s, 4, r->rd);
	sqlite3_bind_double(s, 5, r->vol);
	sqlite3_bind_int64(s, 6, r->games);
	sqlite3_bind_int64(s, 7, r->wins);
	sqlite3_bind_int64(s, 8, r->draws);
	sqlite3_bind_int64(s, 9, r->losses);
	sqlite3_bind_double(s, 10, r->best);
	sqlite3_bind_int64(s, 11, r->updated_ms);
	sqlite3_bind_int64(s, 12, r->opponents);
	return store_write(st, s, "putting a ratings row", err);
}

int
store_copy_games_page(void *impl, int64_t after, size_t limit, struct store_game *out,
                      int64_t *total, struct store_error *err)
{
	static const char sql[] =
	        "SELECT " GAME_COLUMNS " FROM games WHERE serial > ?1 ORDER BY serial LIMIT ?2";
	struct store *st = impl;
	struct store_game *games;
	int64_t p[2] = {after, (int64_t)limit};
	size_t n;
	int rc;

	if (limit > INT32_MAX)
		return store_fail(err, STORE_EINVAL, "games by serial: limit out of range");
	if (total != NULL && (rc = store_int(st, "SELECT COUNT(*) FROM games", total, err)) < 0)
		return rc;
	if (limit == 0)
		return 0;
	if ((rc = store_games_query(st, sql, p, 2, &games, &n, err)) < 0)
		return rc;
	if (n > 0)
		memcpy(out, games, n * sizeof *games);
	free(games);
	return (int)n;
}

int
store_copy_rating_changes(void *impl, const char *game_id, struct store_rating_change out[2],
                          struct store_error *err)
{
	struct store *st = impl;
	sqlite3_stmt *s;
	int rc, n = 0;

	if ((rc = copy_stmt(st, C_CHANGES_OF, &s, err)) < 0)
		return rc;
	bind_text(s, 1, game_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_rating_change *c = &out[n];
		char kind[STORE_WORD_MAX];
		const unsigned char *result = sqlite3_column_text(s, 10);

		if (n == 2 || column_copy(s, 9, kind, sizeof kind) < 0 ||
		    game_kind_parse(kind, &(enum game_kind){0}) < 0) {
			sqlite3_reset(s);
			return store_fail(err, STORE_ECORRUPT,
			                  "%s: the rating changes of game '%s' do not match a game",
			                  st->path, game_id);
		}
		memset(c, 0, sizeof *c);
		game_kind_parse(kind, &c->kind);
		c->seat = sqlite3_column_int(s, 0);
		c->account = sqlite3_column_int64(s, 1);
		for (int i = 0; i < 3; i++) {
			c->before[i] = sqlite3_column_double(s, 2 + i);
			c->after[i] = sqlite3_column_double(s, 5 + i);
		}
		c->ended_ms = sqlite3_column_int64(s, 8);
		c->score = result != NULL && strcmp((const char *)result, "draw") == 0 ? 0.5
		           : sqlite3_column_type(s, 11) != SQLITE_NULL &&
		                           sqlite3_column_int(s, 11) == c->seat
		                   ? 1.0
		                   : 0.0;
		n++;
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_sqlite_fail(st, rc, err, "reading rating changes");
	if (n == 2) {
		out[0].opponent = out[1].account;
		out[1].opponent = out[0].account;
	}
	return n;
}

int
store_copy_rating_pairs(void *impl, int (*cb)(void *ctx, const struct store_rating_pair *p),
                        void *ctx, struct store_error *err)
{
	struct store *st = impl;
	sqlite3_stmt *s;
	int rc, count = 0;

	if ((rc = copy_stmt(st, C_PAIRS, &s, err)) < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_rating_pair p = {0};
		char kind[STORE_WORD_MAX];

		p.account = sqlite3_column_int64(s, 0);
		p.opponent = sqlite3_column_int64(s, 2);
		p.games = sqlite3_column_int64(s, 3);
		if (column_copy(s, 1, kind, sizeof kind) < 0 ||
		    game_kind_parse(kind, &p.kind) < 0) {
			sqlite3_reset(s);
			return store_fail(err, STORE_ECORRUPT, "%s: a malformed rating pair row",
			                  st->path);
		}
		if (cb(ctx, &p) != 0) {
			sqlite3_reset(s);
			return store_fail(err, STORE_ESTOPPED, "reading rating pairs stopped");
		}
		count++;
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return store_sqlite_fail(st, rc, err, "reading rating pairs");
	return count;
}
