/*
 * store-accounts.c: the SQLite backend's accounts and ratings: accounts written and read back
 * (store_account_*, store_accounts_*), the unused ones found and released (--unused-account-days),
 * a rated game's rating changes with the ratings rows they bring, and the loads of both at a
 * start. On store.c's statements and helpers (store-impl.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "glicko.h"
#include "store-impl.h"
#include "store.h"
#include "xmalloc.h"

/*
 * --unused-account-days: the accounts after id after_id, in id order, scan of them at most,
 * stopping at the first created at or after before_ms (ids go in order of creation): the unused
 * ones (STORE_ACCOUNT_UNUSED in store-open.c) into ids (max at most), and the last id looked at
 * into *next_after (after_id if none). Returns how many were written, or a store error.
 */
int
store_accounts_unused(struct store *st, int64_t after_id, int64_t before_ms, unsigned scan,
                      int64_t *ids, unsigned max, int64_t *next_after, struct store_error *err)
{
	sqlite3_stmt *s = store_stmt(st, S_ACCOUNTS_SCAN);
	unsigned n = 0;
	int rc = SQLITE_DONE;

	*next_after = after_id;
	sqlite3_bind_int64(s, 1, after_id);
	sqlite3_bind_int64(s, 2, scan);
	while (n < max && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (sqlite3_column_int64(s, 1) >= before_ms)
			break;
		*next_after = sqlite3_column_int64(s, 0);
		if (sqlite3_column_int(s, 2))
			ids[n++] = *next_after;
	}
	if (n < max && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		sqlite3_reset(s);
		return store_sqlite_fail(st, rc, err, "finding unused accounts");
	}
	sqlite3_reset(s);
	return (int)n;
}

/*
 * --unused-account-days: delete account id, in the turn's transaction, if it is still unused
 * (the same rule as store_accounts_unused()'s), and count it in `released_accounts`. Returns 0
 * (deleted or not) or a store error.
 */
int
store_account_drop(struct store *st, int64_t id, struct store_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if ((rc = store_tx(st, err)) < 0)
		return rc;
	s = store_stmt(st, S_ACCOUNT_DROP);
	sqlite3_bind_int64(s, 1, id);
	if ((rc = store_write(st, s, "releasing an unused account", err)) < 0)
		return rc;
	if (sqlite3_changes(st->db) == 0)
		return 0;
	return store_write(st, store_stmt(st, S_ACCOUNT_RELEASED), "counting released accounts",
	                   err);
}

static int store_account_copy_cb(void *ctx, const struct store_account *a);
static int store_accounts_query(struct store *st, const char *where, int64_t after, const char *key,
                                int64_t limit, int (*cb)(void *ctx, const struct store_account *a),
                                void *ctx, struct store_error *err);

/*
 * account_add() of an id stored already: a resent write when the stored account has the same
 * name, key, skeleton and time of creation, 0; else STORE_ECORRUPT. Its hash, kind, closed and
 * banned times are not compared: account_update() changes them, perhaps later in the same run
 * of writes sent again.
 */
static int
store_account_same(struct store *st, const struct store_account *a, struct store_error *err)
{
	struct store_account got;
	int rc;

	memset(&got, 0, sizeof got);
	rc = store_accounts_query(st, "WHERE id = ?1", a->id, NULL, -1, store_account_copy_cb, &got,
	                          err);
	if (rc < 0)
		return rc;
	if (rc == 0 || strcmp(got.name, a->name) != 0 || strcmp(got.key, a->key) != 0 ||
	    strcmp(got.skeleton, a->skeleton) != 0 || got.created_ms != a->created_ms)
		return store_fail(err, STORE_ECORRUPT,
		                  "account %" PRId64 " is stored already, as another ('%s')", a->id,
		                  got.name);
	return 0;
}

int
store_account_add(struct store *st, const struct store_account *a, struct store_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if (a->id <= 0 || !store_fits(a->name, STORE_ACCOUNT_NAME_MAX) ||
	    !store_fits(a->key, STORE_ACCOUNT_NAME_MAX) ||
	    !store_fits(a->skeleton, STORE_SKELETON_MAX) || !store_fits(a->hash, STORE_HASH_MAX) ||
	    !store_fits(a->kind, STORE_WORD_MAX))
		return store_fail(err, STORE_EINVAL, "account '%.20s': bad argument", a->name);
	if ((rc = store_tx(st, err)) < 0)
		return rc;
	s = store_stmt(st, S_ACCOUNT_ADD);
	sqlite3_bind_int64(s, 1, a->id);
	bind_text(s, 2, a->name);
	bind_text(s, 3, a->key);
	bind_text(s, 4, a->skeleton);
	bind_text(s, 5, a->hash);
	bind_text(s, 6, a->kind);
	sqlite3_bind_int64(s, 7, a->created_ms);
	if ((rc = store_write(st, s, "adding an account", err)) < 0)
		return rc;
	return sqlite3_changes(st->db) > 0 ? 0 : store_account_same(st, a, err);
}

int
store_account_update(struct store *st, const struct store_account *a, struct store_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if (a->id <= 0 || !store_fits(a->hash, STORE_HASH_MAX) ||
	    !store_fits(a->kind, STORE_WORD_MAX))
		return store_fail(err, STORE_EINVAL, "account %lld: bad argument",
		                  (long long)a->id);
	if ((rc = store_tx(st, err)) < 0)
		return rc;
	s = store_stmt(st, S_ACCOUNT_UPDATE);
	sqlite3_bind_int64(s, 1, a->id);
	bind_text(s, 2, a->hash);
	bind_text(s, 3, a->kind);
	sqlite3_bind_int64(s, 4, a->closed_ms);
	sqlite3_bind_int64(s, 5, a->banned_ms);
	return store_write(st, s, "updating an account", err);
}

/*
 * The accounts of the query "SELECT <columns> FROM accounts " + where (its parameters: ?1 an
 * id after which, ?2 a name key, ?3 a row limit; -1 for none), by id, to cb. Returns the
 * count or an error.
 */
static int
store_accounts_query(struct store *st, const char *where, int64_t after, const char *key,
                     int64_t limit, int (*cb)(void *ctx, const struct store_account *a), void *ctx,
                     struct store_error *err)
{
	char sql[512];
	sqlite3_stmt *s;
	int rc, count = 0;

	snprintf(sql, sizeof sql,
	         "SELECT id, name, name_key, skeleton, pw_hash, kind, created_ms, "
	         "COALESCE(closed_ms, 0), COALESCE(banned_ms, 0) FROM accounts %s",
	         where);
	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sqlite_fail(st, rc, err, "reading accounts");
	sqlite3_bind_int64(s, 1, after);
	bind_text(s, 2, key != NULL ? key : "");
	sqlite3_bind_int64(s, 3, limit);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_account a;

		memset(&a, 0, sizeof a);
		a.id = sqlite3_column_int64(s, 0);
		if (column_copy(s, 1, a.name, sizeof a.name) < 0 ||
		    column_copy(s, 2, a.key, sizeof a.key) < 0 ||
		    column_copy(s, 3, a.skeleton, sizeof a.skeleton) < 0 ||
		    column_copy(s, 4, a.hash, sizeof a.hash) < 0 ||
		    column_copy(s, 5, a.kind, sizeof a.kind) < 0) {
			sqlite3_finalize(s);
			return store_fail(err, STORE_ECORRUPT, "%s: a malformed account row",
			                  st->path);
		}
		a.created_ms = sqlite3_column_int64(s, 6);
		a.closed_ms = sqlite3_column_int64(s, 7);
		a.banned_ms = sqlite3_column_int64(s, 8);
		if (cb(ctx, &a) != 0) {
			sqlite3_finalize(s);
			return store_fail(err, STORE_ESTOPPED, "loading accounts stopped");
		}
		count++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_sqlite_fail(st, rc, err, "reading accounts");
	return count;
}

int
store_accounts_load(struct store *st, int (*cb)(void *ctx, const struct store_account *a),
                    void *ctx, struct store_error *err)
{
	return store_accounts_query(st, "ORDER BY id", -1, NULL, -1, cb, ctx, err);
}

int
store_accounts_page(struct store *st, int64_t after, size_t limit,
                    int (*cb)(void *ctx, const struct store_account *a), void *ctx,
                    struct store_error *err)
{
	if (after < 0 || limit == 0 || limit > INT32_MAX)
		return store_fail(err, STORE_EINVAL, "accounts after %lld: bad argument",
		                  (long long)after);
	/* the primary key's order from after on: a page costs its own rows */
	return store_accounts_query(st, "WHERE id > ?1 ORDER BY id LIMIT ?3", after, NULL,
	                            (int64_t)limit, cb, ctx, err);
}

/* store_account_find()'s callback: the row, copied. */
static int
store_account_copy_cb(void *ctx, const struct store_account *a)
{
	*(struct store_account *)ctx = *a;
	return 0;
}

int
store_account_find(struct store *st, const char *key, struct store_account *out,
                   struct store_error *err)
{
	if (!store_fits(key, STORE_ACCOUNT_NAME_MAX))
		return store_fail(err, STORE_EINVAL, "account '%.20s': bad argument", key);
	/* name_key is UNIQUE: its index finds the row */
	return store_accounts_query(st, "WHERE name_key = ?2", -1, key, -1, store_account_copy_cb,
	                            out, err);
}

/*
 * rating_change() of a (game, seat) stored already: a resent write when the stored change has
 * the same account and values before and after, 0 (the ratings row is not moved again); else
 * STORE_ECORRUPT.
 */
static int
store_rating_change_same(struct store *st, const char *game_id, const struct store_rating_change *c,
                         struct store_error *err)
{
	sqlite3_stmt *s = store_stmt(st, S_CHANGES_OF);
	int rc, same = 0;

	bind_text(s, 1, game_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (sqlite3_column_int(s, 0) != c->seat)
			continue;
		same = sqlite3_column_int64(s, 1) == c->account;
		for (int i = 0; i < 3; i++)
			same = same && sqlite3_column_double(s, 2 + i) == c->before[i] &&
			       sqlite3_column_double(s, 5 + i) == c->after[i];
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return store_sqlite_fail(st, rc, err, "reading rating changes");
	if (!same)
		return store_fail(err, STORE_ECORRUPT,
		                  "game '%s': the rating change of seat %d is stored already, with "
		                  "other values",
		                  game_id, c->seat);
	return 0;
}

int
store_rating_change(struct store *st, const char *game_id, const struct store_rating_change *c,
                    int64_t now_ms, struct store_error *err)
{
	struct glicko after = {c->after[0], c->after[1], c->after[2]};
	sqlite3_stmt *s;
	int rc;

	if (!store_fits(game_id, STORE_ID_MAX) || (c->seat != 0 && c->seat != 1) ||
	    c->account <= 0 || (int)c->kind < 0 || (int)c->kind >= game_class_count ||
	    (c->score != 0.0 && c->score != 0.5 && c->score != 1.0) ||
	    glicko_rate(&after, NULL, 0, &after) < 0)
		return store_fail(err, STORE_EINVAL, "game '%.15s': a bad rating change", game_id);
	if ((rc = store_tx(st, err)) < 0)
		return rc;
	s = store_stmt(st, S_RATING_CHANGE);
	bind_text(s, 1, game_id);
	sqlite3_bind_int(s, 2, c->seat);
	sqlite3_bind_int64(s, 3, c->account);
	for (int i = 0; i < 3; i++) {
		sqlite3_bind_double(s, 4 + i, c->before[i]);
		sqlite3_bind_double(s, 7 + i, c->after[i]);
	}
	sqlite3_bind_int64(s, 10, now_ms);
	if ((rc = store_write(st, s, "adding a rating change", err)) < 0)
		return rc;
	if (sqlite3_changes(st->db) == 0) /* stored already: its ratings row moved then */
		return store_rating_change_same(st, game_id, c, err);
	s = store_stmt(st, S_RATING_SET);
	sqlite3_bind_int64(s, 1, c->account);
	bind_text(s, 2, game_kind_name(c->kind));
	for (int i = 0; i < 3; i++)
		sqlite3_bind_double(s, 3 + i, c->after[i]);
	sqlite3_bind_int64(s, 6, now_ms);
	sqlite3_bind_double(s, 7, c->score);
	if ((rc = store_write(st, s, "setting a rating", err)) < 0 || c->opponent <= 0)
		return rc;
	s = store_stmt(st, S_RATING_PAIR);
	sqlite3_bind_int64(s, 1, c->account);
	bind_text(s, 2, game_kind_name(c->kind));
	sqlite3_bind_int64(s, 3, c->opponent);
	return store_write(st, s, "counting an opponent", err);
}

int
store_game_unrated(struct store *st, const char *game_id, const char *unrated,
                   struct store_error *err)
{
	struct store_end end;
	sqlite3_stmt *s;
	int rc;

	if (!store_fits(game_id, STORE_ID_MAX) || unrated == NULL ||
	    !store_fits(unrated, STORE_WORD_MAX))
		return store_fail(err, STORE_EINVAL, "game '%.15s': a bad unrated word", game_id);
	if ((rc = store_tx(st, err)) < 0)
		return rc;
	s = store_stmt(st, S_UNRATED);
	bind_text(s, 1, game_id);
	bind_text(s, 2, unrated);
	if ((rc = store_write(st, s, "marking a game not rated", err)) < 0)
		return rc;
	if (sqlite3_changes(st->db) > 0)
		return 0;
	/* the game has another word already (the same one is a resent write), or is not there */
	if ((rc = store_end_read(st, game_id, &end, err)) < 0)
		return rc;
	return store_fail(err, STORE_ECORRUPT,
	                  "game '%s' is stored as not rated for another reason "
	                  "('%s', not '%s')",
	                  game_id, end.unrated, unrated);
}

int
store_rated_pairs_load(struct store *st, int64_t since_ms,
                       int (*cb)(void *ctx, int64_t a, int64_t b, int64_t ended_ms), void *ctx,
                       struct store_error *err)
{
	sqlite3_stmt *s;
	int rc, count = 0;

	/* down rating_changes_ended: the games of the window only, whatever the store holds */
	rc = sqlite3_prepare_v2(st->db,
	                        "SELECT c.account, o.account, c.ended_ms FROM rating_changes c "
	                        "JOIN rating_changes o ON o.game = c.game AND o.seat = 1 "
	                        "WHERE c.seat = 0 AND c.ended_ms >= ?1 ORDER BY c.ended_ms",
	                        -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sqlite_fail(st, rc, err, "reading rated pairs");
	sqlite3_bind_int64(s, 1, since_ms);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (cb(ctx, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
		       sqlite3_column_int64(s, 2)) != 0) {
			sqlite3_finalize(s);
			return store_fail(err, STORE_ESTOPPED, "loading rated pairs stopped");
		}
		count++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_sqlite_fail(st, rc, err, "reading rated pairs");
	return count;
}

int
store_ratings_load(struct store *st, int (*cb)(void *ctx, const struct store_rating *r), void *ctx,
                   struct store_error *err)
{
	sqlite3_stmt *s;
	int rc, count = 0;

	rc = sqlite3_prepare_v2(
	        st->db,
	        "SELECT account, kind, rating, rd, vol, games, wins, draws, losses, "
	        "best, updated_ms, opponents FROM ratings ORDER BY account, kind",
	        -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sqlite_fail(st, rc, err, "reading ratings");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_rating r = {0};
		char kind[STORE_WORD_MAX];

		r.account = sqlite3_column_int64(s, 0);
		r.rating = sqlite3_column_double(s, 2);
		r.rd = sqlite3_column_double(s, 3);
		r.vol = sqlite3_column_double(s, 4);
		r.games = sqlite3_column_int64(s, 5);
		r.wins = sqlite3_column_int64(s, 6);
		r.draws = sqlite3_column_int64(s, 7);
		r.losses = sqlite3_column_int64(s, 8);
		r.best = sqlite3_column_double(s, 9);
		r.updated_ms = sqlite3_column_int64(s, 10);
		r.opponents = sqlite3_column_int64(s, 11);
		if (column_copy(s, 1, kind, sizeof kind) || game_kind_parse(kind, &r.kind) < 0 ||
		    !(r.rd > 0) || !(r.vol > 0)) {
			sqlite3_finalize(s);
			return store_fail(err, STORE_ECORRUPT, "%s: a malformed ratings row",
			                  st->path);
		}
		if (cb(ctx, &r) != 0) {
			sqlite3_finalize(s);
			return store_fail(err, STORE_ESTOPPED, "loading ratings stopped");
		}
		count++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_sqlite_fail(st, rc, err, "reading ratings");
	return count;
}
