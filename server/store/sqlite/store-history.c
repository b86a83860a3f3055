/*
 * store-history.c: the reads of finished games on the SQLite store, and the read port that
 * answers them (store_read_port_init() on the server's own connection, store_reader_open() on a
 * second, read-only one for the reader's thread): history by key (public, by player, one's own
 * private games; totals from the kept counts, never by scanning), a game's record with its
 * rating changes (the viewer's right to a private one checked here), the leaderboard and an
 * account's rated games. It only reads: it writes no row and owns no state but the reader's
 * connection it opened. It calls store-open.c and store.c, never the reverse, and never libuv.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "glicko.h"
#include "record.h"
#include "store.h"
#include "store-game.h"
#include "store-impl.h"
#include "store-ranges.h"
#include "store-record.h"
#include "xmalloc.h"

/* The kept count of finished public games (schema 6: moved by triggers, see migrations[5]). */
static int
store_finished_count(struct store *st, int64_t *total, struct store_error *err)
{
	return store_int(st, "SELECT n FROM counts WHERE name = 'finished_public'", total, err);
}

int
store_history(struct store *st, size_t offset, size_t limit, struct store_game *out, int64_t *total,
              struct store_error *err)
{
	struct store_history_query q = {.offset = (int64_t)offset, .limit = limit};
	struct store_history_page page;
	int rc;

	if (offset > INT64_MAX)
		q.offset = INT64_MAX; /* past the end of any store */
	rc = store_history_page(st, &q, out, &page, err);
	if (rc >= 0 && total != NULL)
		*total = page.total;
	return rc;
}

/*
 * History by player, and one's own private games (schema 8). A query is the union of a few ranges
 * of the history indexes, each read by key in history order and cut at the page's end: the finished
 * public games (games_public_history), or one seat's games of an account (games_seat<N>_account) or
 * of a guest's player id (games_seat<N>_guest), public or private, perhaps only those with a given
 * account at the other seat (store-ranges.h). The page sorts what the ranges give (at most their
 * number times the page), so it costs the page, not the player's games.
 */

/* Append range r to sql (size, *len): for a page (cut at ?1 games after the cursor ?2, ?3), or
 * for a count (all of it). */
static void
history_range_sql(char *sql, size_t size, size_t *len, const struct store_range *r, int page,
                  int after)
{
	char seat[80] = "", versus[48] = "";

	if (r->seat >= 0 && r->guest)
		snprintf(seat, sizeof seat, " AND seat%d_id = ?%d AND seat%d_account IS NULL",
		         r->seat, r->param, r->seat);
	else if (r->seat >= 0)
		snprintf(seat, sizeof seat, " AND seat%d_account = ?%d", r->seat, r->param);
	if (r->versus)
		snprintf(versus, sizeof versus, " AND seat%d_account = ?6", 1 - r->seat);
	*len += (size_t)snprintf(
	        sql + *len, size - *len,
	        "%sSELECT id FROM games WHERE status = 'finished' AND private = %d%s%s%s%s%s",
	        page ? "SELECT id FROM (" : "", r->priv, seat, versus,
	        page && after ? " AND (ended_ms, serial) < (?2, ?3)" : "",
	        page ? " ORDER BY ended_ms DESC, serial DESC LIMIT ?1" : "", page ? ")" : "");
}

/* The union of ranges r[0..n) as one statement: a page (GAME_COLUMNS) or a count. */
static int
history_prepare(struct store *st, const struct store_range *r, size_t n, int page, int after,
                const struct store_history_query *q, sqlite3_stmt **out, struct store_error *err)
{
	char sql[4096];
	size_t len = 0;
	int rc;

	len += (size_t)snprintf(sql, sizeof sql, "%s",
	                        page ? "SELECT " GAME_COLUMNS " FROM games WHERE id IN ("
	                             : "SELECT COUNT(*) FROM (");
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			len += (size_t)snprintf(sql + len, sizeof sql - len, " UNION ");
		history_range_sql(sql, sizeof sql, &len, &r[i], page, after);
	}
	len += (size_t)snprintf(sql + len, sizeof sql - len, "%s",
	                        page ? ") ORDER BY ended_ms DESC, serial DESC LIMIT ?8 OFFSET ?9"
	                             : ")");
	if (len >= sizeof sql)
		return store_fail(err, STORE_EINVAL, "history: a query too long");
	if ((rc = sqlite3_prepare_v2(st->db, sql, -1, out, NULL)) != SQLITE_OK)
		return store_sqlite_fail(st, rc, err, "listing games");
	/* a parameter the statement does not use is refused with SQLITE_RANGE: no matter */
	sqlite3_bind_int64(*out, 1, (int64_t)q->limit + 1 + q->offset);
	sqlite3_bind_int64(*out, 2, q->after.ended_ms);
	sqlite3_bind_int64(*out, 3, q->after.serial);
	sqlite3_bind_int64(*out, 4, q->own_account);
	sqlite3_bind_text(*out, 5, q->own_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(*out, 6, q->player_account);
	sqlite3_bind_text(*out, 7, q->player_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(*out, 8, (int64_t)q->limit + 1);
	sqlite3_bind_int64(*out, 9, q->offset);
	return 0;
}

/* The kept count of name (0 when there is none yet) added to *total. */
static int
history_kept(struct store *st, const char *name, int64_t *total, struct store_error *err)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(
	        st->db, "SELECT COALESCE((SELECT n FROM counts WHERE name = ?1), 0)", -1, &s, NULL);

	if (rc != SQLITE_OK)
		return store_sqlite_fail(st, rc, err, "reading a count");
	bind_text(s, 1, name);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*total += sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : store_sqlite_fail(st, rc, err, "reading a count");
}

/* store_history_page() of a query that names an asker or a player. */
static int
store_history_personal(struct store *st, const struct store_history_query *q,
                       struct store_game *out, struct store_history_page *page,
                       struct store_error *err)
{
	struct store_range r[STORE_RANGES_MAX], uncounted[STORE_RANGES_MAX];
	struct store_game *games;
	char kept[2][32];
	sqlite3_stmt *s;
	size_t n, nr, nu = 0;
	int rc;

	nr = store_ranges(q, r, kept);
	if (nr == 0)
		return 0;
	for (int i = 0; i < 2; i++)
		if (kept[i][0] != '\0' && (rc = history_kept(st, kept[i], &page->total, err)) < 0)
			return rc;
	for (size_t i = 0; i < nr; i++)
		if (!r[i].kept)
			uncounted[nu++] = r[i];
	if (nu > 0) {
		if ((rc = history_prepare(st, uncounted, nu, 0, 0, q, &s, err)) < 0)
			return rc;
		if ((rc = sqlite3_step(s)) == SQLITE_ROW)
			page->total += sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
		if (rc != SQLITE_ROW)
			return store_sqlite_fail(st, rc, err, "counting games");
	}
	if (q->limit == 0 || q->offset > INT32_MAX)
		return 0;
	if ((rc = history_prepare(st, r, nr, 1, q->has_after, q, &s, err)) < 0)
		return rc;
	if ((rc = store_games_collect(st, s, &games, &n, err)) < 0)
		return rc;
	if (n > q->limit) {
		n = q->limit;
		page->more = 1;
		page->next.ended_ms = games[n - 1].ended_ms;
		page->next.serial = games[n - 1].serial;
	}
	if (n > 0)
		memcpy(out, games, n * sizeof *games);
	free(games);
	return (int)n;
}

/*
 * A page by key: the games after the cursor, down the index of finished public games
 * (games_public_history), one more than asked for to tell whether more follow. The row value
 * comparison (ended_ms, serial) < (?1, ?2) is a range of that index, so a page costs its games
 * (and the offset's), not the games before it.
 */
int
store_history_page(struct store *st, const struct store_history_query *q, struct store_game *out,
                   struct store_history_page *page, struct store_error *err)
{
	static const char first[] = "SELECT " GAME_COLUMNS " FROM games WHERE status = 'finished' "
	                            "AND private = 0 ORDER BY ended_ms DESC, serial DESC "
	                            "LIMIT ?1 OFFSET ?2";
	static const char after[] = "SELECT " GAME_COLUMNS " FROM games WHERE status = 'finished' "
	                            "AND private = 0 AND (ended_ms, serial) < (?3, ?4) "
	                            "ORDER BY ended_ms DESC, serial DESC LIMIT ?1 OFFSET ?2";
	struct store_game *games;
	int64_t p[4];
	size_t n;
	int rc;

	memset(page, 0, sizeof *page);
	if (q->limit > INT32_MAX || q->offset < 0)
		return store_fail(err, STORE_EINVAL, "history: limit or offset out of range");
	if (q->by_player || q->own_account > 0 || q->own_id[0] != '\0')
		return store_history_personal(st, q, out, page, err);
	if ((rc = store_finished_count(st, &page->total, err)) < 0)
		return rc;
	if (q->limit == 0 || q->offset > INT32_MAX)
		return 0; /* an offset that large is past the end of any store */
	p[0] = (int64_t)q->limit + 1;
	p[1] = q->offset;
	p[2] = q->after.ended_ms;
	p[3] = q->after.serial;
	rc = store_games_query(st, q->has_after ? after : first, p, q->has_after ? 4 : 2, &games,
	                       &n, err);
	if (rc < 0)
		return rc;
	if (n > q->limit) {
		n = q->limit;
		page->more = 1;
		page->next.ended_ms = games[n - 1].ended_ms;
		page->next.serial = games[n - 1].serial;
	}
	if (n > 0)
		memcpy(out, games, n * sizeof *games);
	free(games);
	return (int)n;
}

/*
 * The rating changes of a rated game, by seat, into out (room for 2). Returns how many (2, or 0
 * for a game that ended without them), or a negative error.
 */
static int
store_rating_changes_read(struct store *st, const char *id, struct store_rating_change out[2],
                          struct store_error *err)
{
	sqlite3_stmt *s = store_stmt(st, S_CHANGES_OF);
	int rc, n = 0;

	bind_text(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW && n < 2) {
		struct store_rating_change *c = &out[n++];

		memset(c, 0, sizeof *c);
		c->seat = sqlite3_column_int(s, 0);
		c->account = sqlite3_column_int64(s, 1);
		for (int i = 0; i < 3; i++) {
			c->before[i] = sqlite3_column_double(s, 2 + i);
			c->after[i] = sqlite3_column_double(s, 5 + i);
		}
	}
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_sqlite_fail(st, rc, err, "reading rating changes");
	return n;
}

int
store_record_write(struct store *st, const char *id, char *buf, size_t size,
                   struct store_error *err)
{
	struct store_event *ev;
	struct store_game g;
	size_t nev;
	int rc;

	struct store_rating_change changes[2];
	int nc = 0;

	if ((rc = store_game_get(st, id, &g, &ev, &nev, err)) < 0)
		return rc;
	if (g.rated && (nc = store_rating_changes_read(st, id, changes, err)) < 0) {
		store_events_free(ev, nev);
		return nc;
	}
	rc = store_record_format(&g, ev, nev, nc == 2 ? changes : NULL, buf, size, err);
	store_events_free(ev, nev);
	return rc;
}

/* The moves of a game (its "moved" events, without their bodies), for its record. */
static int
store_moves_read(struct store *st, const char *id, struct store_event **out, size_t *n,
                 struct store_error *err)
{
	sqlite3_stmt *s = store_stmt(st, S_MOVES_OF);
	struct store_event *ev = NULL;
	size_t len = 0, cap = 0;
	int rc;

	bind_text(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		ev = xgrow(ev, len, &cap, sizeof *ev, 64);
		memset(&ev[len], 0, sizeof ev[len]);
		ev[len].seq = sqlite3_column_int64(s, 0);
		ev[len].type = xstrdup("moved");
		ev[len].move = xstrdup((const char *)sqlite3_column_text(s, 1));
		ev[len].body = xstrdup("");
		len++;
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		store_events_free(ev, len);
		return store_sqlite_fail(st, rc, err, "reading moves");
	}
	*out = ev;
	*n = len;
	return 0;
}

/*
 * The row of game id into g, when viewer (NULL: anyone) may see it: STORE_ENOTFOUND for no such
 * game, or a private one the viewer held no seat in.
 */
static int
port_game_visible(struct store *st, const char *id, const struct store_viewer *viewer,
                  struct store_game *g, struct store_error *err)
{
	int rc;

	if ((rc = store_game_read(st, id, g, err)) < 0)
		return rc;
	if (viewer != NULL && g->is_private && !store_game_seated(viewer, g))
		return store_fail(err, STORE_ENOTFOUND, "game '%s' is private", id);
	return 0;
}

/* The read port's record: the game's row, then its moves alone (what the record needs). */
static int
port_record(void *impl, const char *id, const struct store_viewer *viewer, char *buf, size_t size,
            struct store_error *err)
{
	struct store *st = impl;
	struct store_rating_change changes[2];
	struct store_event *ev = NULL;
	struct store_game g;
	size_t nev = 0;
	int rc, nc = 0;

	if ((rc = port_game_visible(st, id, viewer, &g, err)) < 0)
		return rc;
	if (g.rated && (nc = store_rating_changes_read(st, id, changes, err)) < 0)
		return nc;
	if ((rc = store_moves_read(st, id, &ev, &nev, err)) < 0)
		return rc;
	rc = store_record_format(&g, ev, nev, nc == 2 ? changes : NULL, buf, size, err);
	store_events_free(ev, nev);
	return rc;
}

/* The read port's events: the game's row (is it visible?), then every event of it. */
static int
port_events(void *impl, const char *id, const struct store_viewer *viewer, struct store_event **out,
            size_t *n, struct store_error *err)
{
	struct store *st = impl;
	struct store_game g;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = port_game_visible(st, id, viewer, &g, err)) < 0)
		return rc;
	return store_events_read(st, id, out, n, err);
}

int
store_rated_games(struct store *st, int64_t account, size_t limit, struct store_rated_game *out,
                  struct store_error *err)
{
	static const char sql[] =
	        "SELECT " GAME_COLUMNS " FROM games WHERE id IN (SELECT game FROM "
	        "rating_changes WHERE account = ?1 ORDER BY ended_ms DESC "
	        "LIMIT ?2) ORDER BY ended_ms DESC, serial DESC";
	int64_t p[2] = {account, (int64_t)limit};
	struct store_game *games;
	size_t n;
	int rc;

	if (limit > INT32_MAX)
		return store_fail(err, STORE_EINVAL, "rated games: limit out of range");
	if ((rc = store_games_query(st, sql, p, 2, &games, &n, err)) < 0)
		return rc;
	for (size_t i = 0; i < n && i < limit && rc >= 0; i++) {
		out[i].game = games[i];
		rc = out[i].nchanges =
		        store_rating_changes_read(st, games[i].id, out[i].changes, err);
	}
	free(games);
	return rc < 0 ? rc : (int)(n < limit ? n : limit);
}

/*
 * A leaderboard page by key: down ratings_board (kind, rating DESC, account), from just after
 * the cursor's entry, one more than asked for to tell whether more follow. Closed and banned
 * accounts are skipped (their rows stay: an unbanned account comes back with its rating). The
 * provisional players (every rating not on the board) page the same way down ratings_by_rating,
 * skipping the ranked ones.
 */
int
store_leaderboard(struct store *st, const struct store_board_query *q,
                  struct store_board_entry *out, int *more, struct store_error *err)
{
	/*
	 * The board: settled ratings (rd <= 110) with the minimum games and opponents
	 * (--board-min-*); the provisional list: every other rating, the same order. Both page by
	 * key down (kind, rating DESC, account): ratings_board, ratings_by_rating.
	 */
#define BOARD_SELECT(which)                                                                        \
	"SELECT r.account, a.name, a.kind, r.rating, r.rd, r.games, r.opponents FROM ratings r "   \
	"JOIN accounts a ON a.id = r.account WHERE r.kind = ?1 AND " which " AND "                 \
	"a.closed_ms IS NULL AND a.banned_ms IS NULL "
#define BOARD_RANKED "(r.rd <= 110 AND r.games >= ?5 AND r.opponents >= ?6)"
#define BOARD_FIRST  "ORDER BY r.rating DESC, r.account LIMIT ?2"
#define BOARD_AFTER                                                                                \
	"AND (r.rating < ?3 OR (r.rating = ?3 AND r.account > ?4)) ORDER BY r.rating DESC, "       \
	"r.account LIMIT ?2"
	/* [provisional][has_after] */
	static const char *const selects[2][2] = {
	        {BOARD_SELECT(BOARD_RANKED) BOARD_FIRST, BOARD_SELECT(BOARD_RANKED) BOARD_AFTER},
	        {BOARD_SELECT("NOT " BOARD_RANKED) BOARD_FIRST,
	         BOARD_SELECT("NOT " BOARD_RANKED) BOARD_AFTER},
	};
#undef BOARD_SELECT
#undef BOARD_RANKED
#undef BOARD_FIRST
#undef BOARD_AFTER
	int64_t rank = q->has_after ? q->after.rank : 0;
	sqlite3_stmt *s;
	int rc, n = 0;

	*more = 0;
	if (q->limit > INT32_MAX || (int)q->kind < 0 || (int)q->kind >= game_class_count)
		return store_fail(err, STORE_EINVAL, "leaderboard: kind or limit out of range");
	rc = sqlite3_prepare_v2(st->db, selects[q->provisional != 0][q->has_after != 0], -1, &s,
	                        NULL);
	if (rc != SQLITE_OK)
		return store_sqlite_fail(st, rc, err, "reading the leaderboard");
	bind_text(s, 1, game_kind_name(q->kind));
	sqlite3_bind_int64(s, 2, (int64_t)q->limit + 1);
	sqlite3_bind_int64(s, 5, q->min_games);
	sqlite3_bind_int64(s, 6, q->min_opponents);
	if (q->has_after) {
		sqlite3_bind_double(s, 3, q->after.rating);
		sqlite3_bind_int64(s, 4, q->after.account);
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_board_entry *e = &out[n];
		char kind[STORE_WORD_MAX];

		if ((size_t)n == q->limit) {
			*more = 1;
			break;
		}
		memset(e, 0, sizeof *e);
		e->rank = ++rank;
		e->account = sqlite3_column_int64(s, 0);
		if (column_copy(s, 1, e->name, sizeof e->name) < 0 ||
		    column_copy(s, 2, kind, sizeof kind) < 0) {
			sqlite3_finalize(s);
			return store_fail(err, STORE_ECORRUPT, "%s: a malformed account row",
			                  st->path);
		}
		e->bot = strcmp(kind, "bot") == 0;
		e->rating = sqlite3_column_double(s, 3);
		e->rd = sqlite3_column_double(s, 4);
		e->games = sqlite3_column_int64(s, 5);
		e->opponents = sqlite3_column_int64(s, 6);
		n++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_sqlite_fail(st, rc, err, "reading the leaderboard");
	return n;
}

static int
port_leaderboard(void *impl, const struct store_board_query *q, struct store_board_entry *out,
                 int *more, struct store_error *err)
{
	return store_leaderboard(impl, q, out, more, err);
}

static int
port_rated_games(void *impl, int64_t account, size_t limit, struct store_rated_game *out,
                 struct store_error *err)
{
	return store_rated_games(impl, account, limit, out, err);
}

static int
port_history(void *impl, const struct store_history_query *q, struct store_game *out,
             struct store_history_page *page, struct store_error *err)
{
	return store_history_page(impl, q, out, page, err);
}

static void
port_borrowed_close(void *impl)
{
	(void)impl;
}

static void
port_reader_close(void *impl)
{
	store_close(impl);
}

static int
port_accounts_unused(void *impl, int64_t after_id, int64_t before_ms, unsigned scan, int64_t *ids,
                     unsigned max, int64_t *next_after, struct store_error *err)
{
	return store_accounts_unused(impl, after_id, before_ms, scan, ids, max, next_after, err);
}

void
store_read_port_init(struct store *st, struct store_read_port *out)
{
	*out = (struct store_read_port){.history = port_history,
	                                .record = port_record,
	                                .events = port_events,
	                                .leaderboard = port_leaderboard,
	                                .rated_games = port_rated_games,
	                                .accounts_unused = port_accounts_unused,
	                                .games_page = store_copy_games_page,
	                                .rating_changes = store_copy_rating_changes,
	                                .rating_pairs = store_copy_rating_pairs,
	                                .close = port_borrowed_close,
	                                .loop_only = 1,
	                                .impl = st};
}

int
store_reader_open(const char *path, struct store_read_port *out, struct store_error *err)
{
	struct store *st;
	int rc;

	memset(out, 0, sizeof *out);
	if (strcmp(path, ":memory:") == 0)
		return store_fail(
		        err, STORE_EINVAL,
		        "a temporary store has no second connection: store_read_port_init()");
	if ((rc = store_attach(path, SQLITE_OPEN_READONLY, 1, &st, err)) < 0)
		return rc;
	*out = (struct store_read_port){.history = port_history,
	                                .record = port_record,
	                                .events = port_events,
	                                .leaderboard = port_leaderboard,
	                                .rated_games = port_rated_games,
	                                .accounts_unused = port_accounts_unused,
	                                .games_page = store_copy_games_page,
	                                .rating_changes = store_copy_rating_changes,
	                                .rating_pairs = store_copy_rating_pairs,
	                                .close = port_reader_close,
	                                .impl = st};
	return 0;
}
