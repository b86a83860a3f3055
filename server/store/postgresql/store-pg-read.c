/*
 * store-pg-read.c: every read of the PostgreSQL store. The read port (store_pg_reader_open()): a
 * blocking connection of its own for one reading thread (read-only transactions, it sees what
 * is committed), answering history by key (the same ranges of the same partial indexes as the
 * SQLite backend's store-history.c, the totals from the kept counts), a game's record and events
 * (a private game to those who held a seat in it), the leaderboard by key, an account's rated
 * games and the unused accounts, and for a copy of a whole store (hokitod migrate) every game by
 * serial, a game's rating changes and every rating pair; and the start-up reads of the write port
 * on the writer's connection, before start() (load() with each game replayed through the rules,
 * the sessions, accounts, ratings and rated pairs, a counter). A store opened without the
 * writer's lock reads one moment (store_pg_moment_begin()): its read port is then on the writer's
 * connection, in that moment. It writes nothing, and owns only the reader's connection it
 * opened; never libuv.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "game.h"
#include "store-pg-impl.h"
#include "store-ranges.h"
#include "store-game.h"
#include "store-record.h"
#include "xmalloc.h"

#define T_INT8   20
#define T_TEXT   25
#define T_FLOAT8 701

/* A game row: the columns of SQLite's GAME_COLUMNS, in its order (store_pg_game_row()). */
#define GAME_COLUMNS                                                                               \
	"id, serial, kind, variant, seed, private, code, status, created_ms, seat0_id, "           \
	"seat0_name, seat1_id, seat1_name, ended_ms, result, winner, reason, score0, score1, "     \
	"(SELECT COALESCE(MAX(seq), 0) FROM events WHERE events.game_id = games.id), "             \
	"(SELECT COUNT(move) FROM events WHERE events.game_id = games.id), clock, rated, "         \
	"seat0_account, seat1_account, unrated"

/* A query's parameters, built one by one (their text kept here). */
struct params {
	int n;
	Oid types[12];
	const char *values[12];
	char text[12][40];
};

static void
p_int(struct params *p, int64_t v)
{
	snprintf(p->text[p->n], sizeof p->text[0], "%" PRId64, v);
	p->types[p->n] = T_INT8;
	p->values[p->n] = p->text[p->n];
	p->n++;
}

static void
p_text(struct params *p, const char *t)
{
	p->types[p->n] = T_TEXT;
	p->values[p->n++] = t;
}

static void
p_double(struct params *p, double v)
{
	snprintf(p->text[p->n], sizeof p->text[0], "%.17g", v);
	p->types[p->n] = T_FLOAT8;
	p->values[p->n] = p->text[p->n];
	p->n++;
}

/* A connection that reads, and its name for messages. */
struct reader {
	PGconn *conn;
	const char *name;
};

/*
 * Run a query with p (NULL: none), text results (binary with binary), into *out. Returns 0, or
 * the store error with err.
 */
static int
query(const struct reader *rd, const char *sql, const struct params *p, int binary,
      const char *what, PGresult **out, struct store_error *err)
{
	PGresult *r;
	int rc;

	r = PQexecParams(rd->conn, sql, p != NULL ? p->n : 0, p != NULL ? p->types : NULL,
	                 p != NULL ? p->values : NULL, NULL, NULL, binary);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		rc = store_pg_res_fail(rd->name, rd->conn, r, what, err);
		PQclear(r);
		*out = NULL;
		return rc;
	}
	*out = r;
	return 0;
}

/* The integer of a text column (0 for NULL). */
static int64_t
v_int(const PGresult *r, int row, int col)
{
	return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

/* Copy a text column into buf; -1 if it does not fit (a row we did not write). */
static int
v_copy(const PGresult *r, int row, int col, char *buf, size_t size)
{
	const char *v = PQgetvalue(r, row, col);
	size_t n = strlen(v);

	buf[0] = '\0';
	if (n >= size)
		return -1;
	memcpy(buf, v, n + 1);
	return 0;
}

/* Read row of a GAME_COLUMNS result into g. */
static int
game_row(const struct reader *rd, const PGresult *r, int row, struct store_game *g,
         struct store_error *err)
{
	char kind[STORE_WORD_MAX];
	int bad = 0;

	memset(g, 0, sizeof *g);
	bad |= v_copy(r, row, 0, g->id, sizeof g->id);
	g->serial = v_int(r, row, 1);
	bad |= v_copy(r, row, 2, kind, sizeof kind);
	bad |= game_kind_parse(kind, &g->kind) < 0;
	bad |= v_copy(r, row, 3, g->variant, sizeof g->variant);
	g->seed = (uint64_t)v_int(r, row, 4);
	g->is_private = (int)v_int(r, row, 5);
	bad |= v_copy(r, row, 6, g->code, sizeof g->code);
	bad |= v_copy(r, row, 7, g->status, sizeof g->status);
	g->created_ms = v_int(r, row, 8);
	for (int i = 0; i < 2; i++) {
		g->seat_taken[i] = !PQgetisnull(r, row, 9 + 2 * i);
		bad |= v_copy(r, row, 9 + 2 * i, g->seat_id[i], sizeof g->seat_id[i]);
		bad |= v_copy(r, row, 10 + 2 * i, g->seat_name[i], sizeof g->seat_name[i]);
	}
	g->ended_ms = v_int(r, row, 13);
	bad |= v_copy(r, row, 14, g->result, sizeof g->result);
	g->winner = PQgetisnull(r, row, 15) ? -1 : (int)v_int(r, row, 15);
	bad |= v_copy(r, row, 16, g->reason, sizeof g->reason);
	g->score[0] = (int)v_int(r, row, 17);
	g->score[1] = (int)v_int(r, row, 18);
	g->nevents = v_int(r, row, 19);
	g->ply = (int)v_int(r, row, 20);
	bad |= v_copy(r, row, 21, g->clock, sizeof g->clock);
	g->rated = (int)v_int(r, row, 22);
	for (int i = 0; i < 2; i++)
		g->seat_account[i] = PQgetisnull(r, row, 23 + i) ? -1 : v_int(r, row, 23 + i);
	bad |= v_copy(r, row, 25, g->unrated, sizeof g->unrated);
	if (bad || game_variant_check(g->kind, g->variant, NULL) < 0)
		return store_fail(err, STORE_ECORRUPT, "%s: game '%s' has a malformed row",
		                  rd->name, g->id);
	return 0;
}

/* The games of a GAME_COLUMNS query into a new array (free()). */
static int
games_query(const struct reader *rd, const char *sql, const struct params *p,
            struct store_game **out, size_t *n, struct store_error *err)
{
	struct store_game *games;
	PGresult *r;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = query(rd, sql, p, 0, "listing games", &r, err)) < 0)
		return rc;
	games = xcalloc((size_t)PQntuples(r) + 1, sizeof *games);
	for (int i = 0; i < PQntuples(r); i++)
		if ((rc = game_row(rd, r, i, &games[i], err)) < 0) {
			PQclear(r);
			free(games);
			return rc;
		}
	*n = (size_t)PQntuples(r);
	*out = games;
	PQclear(r);
	return 0;
}

/* A big-endian 64-bit integer of a binary result. */
static int64_t
be64(const char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | (unsigned char)p[i];
	return (int64_t)v;
}

/* A new NUL-terminated copy of a binary column's bytes. */
static char *
v_dup(const PGresult *r, int row, int col)
{
	size_t n = (size_t)PQgetlength(r, row, col);
	char *s = xmalloc(n + 1);

	memcpy(s, PQgetvalue(r, row, col), n);
	s[n] = '\0';
	return s;
}

/*
 * The events of game id (only its moves with moves_only: what a record needs, without their
 * bodies) into a new array (store_events_free()), in seq order. The answer is binary: the
 * bodies come as their bytes, with their length.
 */
static int
events_read(const struct reader *rd, const char *id, int moves_only, struct store_event **out,
            size_t *n, struct store_error *err)
{
	struct store_event *ev;
	struct params p = {0};
	PGresult *r;
	int rc;

	*out = NULL;
	*n = 0;
	p_text(&p, id);
	rc = query(rd,
	           moves_only ? "SELECT seq, time_ms, type, move, ''::bytea FROM events WHERE "
	                        "game_id = $1 AND move IS NOT NULL ORDER BY seq"
	                      : "SELECT seq, time_ms, type, move, body FROM events WHERE game_id "
	                        "= $1 ORDER BY seq",
	           &p, 1, "reading events", &r, err);
	if (rc < 0)
		return rc;
	ev = xcalloc((size_t)PQntuples(r) + 1, sizeof *ev);
	for (int i = 0; i < PQntuples(r); i++) {
		if (PQgetlength(r, i, 0) != 8 || PQgetlength(r, i, 1) != 8) {
			store_events_free(ev, (size_t)i);
			PQclear(r);
			return store_fail(err, STORE_ECORRUPT, "%s: game '%s': a malformed event",
			                  rd->name, id);
		}
		ev[i].seq = be64(PQgetvalue(r, i, 0));
		ev[i].time_ms = be64(PQgetvalue(r, i, 1));
		ev[i].type = v_dup(r, i, 2);
		ev[i].move = PQgetisnull(r, i, 3) ? NULL : v_dup(r, i, 3);
		ev[i].body = v_dup(r, i, 4);
		ev[i].body_len = (size_t)PQgetlength(r, i, 4);
	}
	*n = (size_t)PQntuples(r);
	*out = ev;
	PQclear(r);
	return 0;
}

/* The rating changes of a rated game, by seat, into out (room for 2): how many, or an error. */
static int
changes_read(const struct reader *rd, const char *id, struct store_rating_change out[2],
             struct store_error *err)
{
	struct params p = {0};
	PGresult *r;
	int rc, n = 0;

	p_text(&p, id);
	if ((rc = query(rd,
	                "SELECT seat, account, before_rating, before_rd, before_vol, after_rating, "
	                "after_rd, after_vol FROM rating_changes WHERE game = $1 ORDER BY seat",
	                &p, 0, "reading rating changes", &r, err)) < 0)
		return rc;
	for (int i = 0; i < PQntuples(r) && n < 2; i++) {
		struct store_rating_change *c = &out[n++];

		memset(c, 0, sizeof *c);
		c->seat = (int)v_int(r, i, 0);
		c->account = v_int(r, i, 1);
		for (int k = 0; k < 3; k++) {
			c->before[k] = strtod(PQgetvalue(r, i, 2 + k), NULL);
			c->after[k] = strtod(PQgetvalue(r, i, 5 + k), NULL);
		}
	}
	PQclear(r);
	return n;
}

/* --- History by key (store-history.c's ranges, in PostgreSQL's words). */

/* Append range r to sql: for a page (cut at $1 games after the cursor $2, $3) or a count. */
static void
history_range_sql(char *sql, size_t size, size_t *len, const struct store_range *r, int page,
                  int after)
{
	char seat[80] = "", versus[48] = "";

	if (r->seat >= 0 && r->guest)
		snprintf(seat, sizeof seat, " AND seat%d_id = $%d AND seat%d_account IS NULL",
		         r->seat, r->param, r->seat);
	else if (r->seat >= 0)
		snprintf(seat, sizeof seat, " AND seat%d_account = $%d", r->seat, r->param);
	if (r->versus)
		snprintf(versus, sizeof versus, " AND seat%d_account = $6", 1 - r->seat);
	*len += (size_t)snprintf(
	        sql + *len, size - *len,
	        "%sSELECT id FROM games WHERE status = 'finished' AND private = %d%s%s%s%s%s",
	        page ? "(" : "", r->priv, seat, versus,
	        page && after ? " AND (ended_ms, serial) < ($2, $3)" : "",
	        page ? " ORDER BY ended_ms DESC, serial DESC LIMIT $1" : "", page ? ")" : "");
}

/* The union of ranges r[0..n): a page (GAME_COLUMNS) or a count, into *out. */
static int
history_run(const struct reader *rd, const struct store_range *r, size_t n, int page, int after,
            const struct store_history_query *q, PGresult **out, struct store_error *err)
{
	struct params p = {0};
	char sql[4096];
	size_t len = 0;

	len += (size_t)snprintf(sql, sizeof sql, "%s",
	                        page ? "SELECT " GAME_COLUMNS " FROM games WHERE id IN ("
	                             : "SELECT COUNT(*) FROM (");
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			len += (size_t)snprintf(sql + len, sizeof sql - len, " UNION ");
		history_range_sql(sql, sizeof sql, &len, &r[i], page, after);
	}
	len += (size_t)snprintf(sql + len, sizeof sql - len, "%s",
	                        page ? ") ORDER BY ended_ms DESC, serial DESC LIMIT $8 OFFSET $9"
	                             : ") AS c");
	if (len >= sizeof sql)
		return store_fail(err, STORE_EINVAL, "history: a query too long");
	p_int(&p, (int64_t)q->limit + 1 + q->offset);
	p_int(&p, q->after.ended_ms);
	p_int(&p, q->after.serial);
	p_int(&p, q->own_account);
	p_text(&p, q->own_id);
	p_int(&p, q->player_account);
	p_text(&p, q->player_id);
	p_int(&p, (int64_t)q->limit + 1);
	p_int(&p, q->offset);
	return query(rd, sql, &p, 0, page ? "listing games" : "counting games", out, err);
}

/* The kept count of name (0 when there is none yet) added to *total. */
static int
history_kept(const struct reader *rd, const char *name, int64_t *total, struct store_error *err)
{
	struct params p = {0};
	PGresult *r;
	int rc;

	p_text(&p, name);
	if ((rc = query(rd, "SELECT COALESCE((SELECT n FROM counts WHERE name = $1), 0)", &p, 0,
	                "reading a count", &r, err)) < 0)
		return rc;
	if (PQntuples(r) == 1)
		*total += v_int(r, 0, 0);
	PQclear(r);
	return 0;
}

/* A page of result r (one more row than the page: more follow) into out and page. */
static int
history_page_fill(const struct reader *rd, PGresult *r, const struct store_history_query *q,
                  struct store_game *out, struct store_history_page *page, struct store_error *err)
{
	size_t n = (size_t)PQntuples(r);
	int rc;

	if (n > q->limit) {
		n = q->limit;
		page->more = 1;
	}
	for (size_t i = 0; i < n; i++)
		if ((rc = game_row(rd, r, (int)i, &out[i], err)) < 0)
			return rc;
	if (page->more) {
		page->next.ended_ms = out[n - 1].ended_ms;
		page->next.serial = out[n - 1].serial;
	}
	return (int)n;
}

/* History of a query that names an asker or a player. */
static int
history_personal(const struct reader *rd, const struct store_history_query *q,
                 struct store_game *out, struct store_history_page *page, struct store_error *err)
{
	struct store_range r[STORE_RANGES_MAX], uncounted[STORE_RANGES_MAX];
	char kept[2][32];
	size_t nr, nu = 0;
	PGresult *res;
	int rc;

	nr = store_ranges(q, r, kept);
	if (nr == 0)
		return 0;
	for (int i = 0; i < 2; i++)
		if (kept[i][0] != '\0' && (rc = history_kept(rd, kept[i], &page->total, err)) < 0)
			return rc;
	for (size_t i = 0; i < nr; i++)
		if (!r[i].kept)
			uncounted[nu++] = r[i];
	if (nu > 0) {
		if ((rc = history_run(rd, uncounted, nu, 0, 0, q, &res, err)) < 0)
			return rc;
		if (PQntuples(res) == 1)
			page->total += v_int(res, 0, 0);
		PQclear(res);
	}
	if (q->limit == 0 || q->offset > INT32_MAX)
		return 0;
	if ((rc = history_run(rd, r, nr, 1, q->has_after, q, &res, err)) < 0)
		return rc;
	rc = history_page_fill(rd, res, q, out, page, err);
	PQclear(res);
	return rc;
}

/* The read port's history: by key from q->after down the indexes, the total from the kept
 * counts; a page costs its games and the offset's, whatever the store's size. */
static int
history(const struct reader *rd, const struct store_history_query *q, struct store_game *out,
        struct store_history_page *page, struct store_error *err)
{
	struct params p = {0};
	PGresult *r;
	int rc;

	memset(page, 0, sizeof *page);
	if (q->limit > INT32_MAX || q->offset < 0)
		return store_fail(err, STORE_EINVAL, "history: limit or offset out of range");
	if (q->by_player || q->own_account > 0 || q->own_id[0] != '\0')
		return history_personal(rd, q, out, page, err);
	if ((rc = history_kept(rd, "finished_public", &page->total, err)) < 0)
		return rc;
	if (q->limit == 0 || q->offset > INT32_MAX)
		return 0; /* an offset that large is past the end of any store */
	p_int(&p, (int64_t)q->limit + 1);
	p_int(&p, q->offset);
	if (q->has_after) {
		p_int(&p, q->after.ended_ms);
		p_int(&p, q->after.serial);
	}
	rc = query(rd,
	           q->has_after ? "SELECT " GAME_COLUMNS " FROM games WHERE status = 'finished' "
	                          "AND private = 0 AND (ended_ms, serial) < ($3, $4) ORDER BY "
	                          "ended_ms DESC, serial DESC LIMIT $1 OFFSET $2"
	                        : "SELECT " GAME_COLUMNS " FROM games WHERE status = 'finished' "
	                          "AND private = 0 ORDER BY ended_ms DESC, serial DESC LIMIT $1 "
	                          "OFFSET $2",
	           &p, 0, "listing games", &r, err);
	if (rc < 0)
		return rc;
	rc = history_page_fill(rd, r, q, out, page, err);
	PQclear(r);
	return rc;
}

/* --- Games by id: records and events. */

/* The row of game id into g, when viewer (NULL: anyone) may see it, else STORE_ENOTFOUND. */
static int
game_visible(const struct reader *rd, const char *id, const struct store_viewer *viewer,
             struct store_game *g, struct store_error *err)
{
	struct store_game *games;
	struct params p = {0};
	size_t n;
	int rc;

	p_text(&p, id);
	if ((rc = games_query(rd, "SELECT " GAME_COLUMNS " FROM games WHERE id = $1", &p, &games,
	                      &n, err)) < 0)
		return rc;
	if (n == 1)
		*g = games[0];
	free(games);
	if (n == 0)
		return store_fail(err, STORE_ENOTFOUND, "no game '%s' in the store", id);
	if (viewer != NULL && g->is_private && !store_game_seated(viewer, g))
		return store_fail(err, STORE_ENOTFOUND, "game '%s' is private", id);
	return 0;
}

static int
record(const struct reader *rd, const char *id, const struct store_viewer *viewer, char *buf,
       size_t size, struct store_error *err)
{
	struct store_rating_change changes[2];
	struct store_event *ev;
	struct store_game g;
	size_t nev;
	int rc, nc = 0;

	if ((rc = game_visible(rd, id, viewer, &g, err)) < 0)
		return rc;
	if (g.rated && (nc = changes_read(rd, id, changes, err)) < 0)
		return nc;
	if ((rc = events_read(rd, id, 1, &ev, &nev, err)) < 0)
		return rc;
	rc = store_record_format(&g, ev, nev, nc == 2 ? changes : NULL, buf, size, err);
	store_events_free(ev, nev);
	return rc;
}

static int
events(const struct reader *rd, const char *id, const struct store_viewer *viewer,
       struct store_event **out, size_t *n, struct store_error *err)
{
	struct store_game g;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = game_visible(rd, id, viewer, &g, err)) < 0)
		return rc;
	return events_read(rd, id, 0, out, n, err);
}

/* --- The leaderboard, rated games, unused accounts. */

/*
 * A leaderboard page by key down ratings_board (kind, rating DESC, account), or for the
 * provisional players down ratings_by_rating, from just after the cursor's entry, one more than
 * asked for to tell whether more follow (the SQLite backend's store_leaderboard()). The index
 * orders rating down and account up, which no row comparison says: rating <= the cursor's is
 * where the scan starts, and the entries of the cursor's rating before it are skipped.
 */
static int
leaderboard(const struct reader *rd, const struct store_board_query *q,
            struct store_board_entry *out, int *more, struct store_error *err)
{
#define BOARD_SELECT(which)                                                                        \
	"SELECT r.account, a.name, a.kind, r.rating, r.rd, r.games, r.opponents FROM ratings r "   \
	"JOIN accounts a ON a.id = r.account WHERE r.kind = $1 AND " which " AND "                 \
	"a.closed_ms IS NULL AND a.banned_ms IS NULL "
#define BOARD_RANKED "(r.rd <= 110 AND r.games >= $5 AND r.opponents >= $6)"
#define BOARD_FIRST  "ORDER BY r.rating DESC, r.account LIMIT $2"
#define BOARD_AFTER                                                                                \
	"AND r.rating <= $3 AND (r.rating < $3 OR r.account > $4) ORDER BY r.rating DESC, "        \
	"r.account LIMIT $2"
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
	struct params p = {0};
	PGresult *r;
	int rc, n = 0;

	*more = 0;
	if (q->limit > INT32_MAX || (int)q->kind < 0 || (int)q->kind >= game_class_count)
		return store_fail(err, STORE_EINVAL, "leaderboard: kind or limit out of range");
	p_text(&p, game_kind_name(q->kind));
	p_int(&p, (int64_t)q->limit + 1);
	p_double(&p, q->has_after ? q->after.rating : 0);
	p_int(&p, q->has_after ? q->after.account : 0);
	p_int(&p, q->min_games);
	p_int(&p, q->min_opponents);
	if ((rc = query(rd, selects[q->provisional != 0][q->has_after != 0], &p, 0,
	                "reading the leaderboard", &r, err)) < 0)
		return rc;
	for (int i = 0; i < PQntuples(r); i++) {
		struct store_board_entry *e = &out[n];
		char kind[STORE_WORD_MAX];

		if ((size_t)n == q->limit) {
			*more = 1;
			break;
		}
		memset(e, 0, sizeof *e);
		e->rank = ++rank;
		e->account = v_int(r, i, 0);
		if (v_copy(r, i, 1, e->name, sizeof e->name) < 0 ||
		    v_copy(r, i, 2, kind, sizeof kind) < 0) {
			PQclear(r);
			return store_fail(err, STORE_ECORRUPT, "%s: a malformed account row",
			                  rd->name);
		}
		e->bot = strcmp(kind, "bot") == 0;
		e->rating = strtod(PQgetvalue(r, i, 3), NULL);
		e->rd = strtod(PQgetvalue(r, i, 4), NULL);
		e->games = v_int(r, i, 5);
		e->opponents = v_int(r, i, 6);
		n++;
	}
	PQclear(r);
	return n;
}

static int
rated_games(const struct reader *rd, int64_t account, size_t limit, struct store_rated_game *out,
            struct store_error *err)
{
	struct store_game *games;
	struct params p = {0};
	size_t n;
	int rc = 0;

	if (limit > INT32_MAX)
		return store_fail(err, STORE_EINVAL, "rated games: limit out of range");
	p_int(&p, account);
	p_int(&p, (int64_t)limit);
	if ((rc = games_query(rd,
	                      "SELECT " GAME_COLUMNS " FROM games WHERE id IN (SELECT game FROM "
	                      "rating_changes WHERE account = $1 ORDER BY ended_ms DESC LIMIT $2) "
	                      "ORDER BY ended_ms DESC, serial DESC",
	                      &p, &games, &n, err)) < 0)
		return rc;
	for (size_t i = 0; i < n && i < limit && rc >= 0; i++) {
		out[i].game = games[i];
		rc = out[i].nchanges = changes_read(rd, games[i].id, out[i].changes, err);
	}
	free(games);
	return rc < 0 ? rc : (int)(n < limit ? n : limit);
}

/* --unused-account-days: the SQLite backend's store_accounts_unused(), by the primary key. */
static int
accounts_unused(const struct reader *rd, int64_t after_id, int64_t before_ms, unsigned scan,
                int64_t *ids, unsigned max, int64_t *next_after, struct store_error *err)
{
	struct params p = {0};
	unsigned n = 0;
	PGresult *r;
	int rc;

	*next_after = after_id;
	p_int(&p, after_id);
	p_int(&p, scan);
	if ((rc = query(rd,
	                "SELECT id, created_ms, (" STORE_PG_ACCOUNT_UNUSED ")::int FROM accounts "
	                "WHERE id > $1 ORDER BY id LIMIT $2",
	                &p, 0, "finding unused accounts", &r, err)) < 0)
		return rc;
	for (int i = 0; i < PQntuples(r) && n < max; i++) {
		if (v_int(r, i, 1) >= before_ms)
			break;
		*next_after = v_int(r, i, 0);
		if (v_int(r, i, 2))
			ids[n++] = *next_after;
	}
	PQclear(r);
	return (int)n;
}

/* --- A copy of a whole store: the SQLite backend's store-copy.c reads, in the same order. */

static int
games_page(const struct reader *rd, int64_t after, size_t limit, struct store_game *out,
           int64_t *total, struct store_error *err)
{
	struct store_game *games;
	struct params p = {0};
	size_t n;
	int rc;

	if (limit > INT32_MAX)
		return store_fail(err, STORE_EINVAL, "games by serial: limit out of range");
	if (total != NULL &&
	    (rc = store_pg_int(rd->conn, rd->name, "SELECT COUNT(*) FROM games", total, err)) < 0)
		return rc;
	if (limit == 0)
		return 0;
	p_int(&p, after);
	p_int(&p, (int64_t)limit);
	if ((rc = games_query(rd,
	                      "SELECT " GAME_COLUMNS " FROM games WHERE serial > $1 ORDER BY "
	                      "serial LIMIT $2",
	                      &p, &games, &n, err)) < 0)
		return rc;
	if (n > 0)
		memcpy(out, games, n * sizeof *games);
	free(games);
	return (int)n;
}

/* A game's rating_changes rows with their ended_ms, the game's kind, each seat's score by the
 * game's result and the other row's account as its opponent (store-port.h rating_changes). */
static int
rating_changes(const struct reader *rd, const char *id, struct store_rating_change out[2],
               struct store_error *err)
{
	struct params p = {0};
	PGresult *r;
	int rc, n;

	p_text(&p, id);
	if ((rc = query(rd,
	                "SELECT c.seat, c.account, c.before_rating, c.before_rd, c.before_vol, "
	                "c.after_rating, c.after_rd, c.after_vol, c.ended_ms, g.kind, g.result, "
	                "g.winner FROM rating_changes c LEFT JOIN games g ON g.id = c.game WHERE "
	                "c.game = $1 ORDER BY c.seat",
	                &p, 0, "reading rating changes", &r, err)) < 0)
		return rc;
	for (n = 0; n < PQntuples(r); n++) {
		struct store_rating_change *c = &out[n];
		char kind[STORE_WORD_MAX];

		if (n == 2 || v_copy(r, n, 9, kind, sizeof kind) < 0 ||
		    game_kind_parse(kind, &(enum game_kind){0}) < 0) {
			PQclear(r);
			return store_fail(err, STORE_ECORRUPT,
			                  "%s: the rating changes of game '%s' do not match a game",
			                  rd->name, id);
		}
		memset(c, 0, sizeof *c);
		game_kind_parse(kind, &c->kind);
		c->seat = (int)v_int(r, n, 0);
		c->account = v_int(r, n, 1);
		for (int k = 0; k < 3; k++) {
			c->before[k] = strtod(PQgetvalue(r, n, 2 + k), NULL);
			c->after[k] = strtod(PQgetvalue(r, n, 5 + k), NULL);
		}
		c->ended_ms = v_int(r, n, 8);
		c->score = strcmp(PQgetvalue(r, n, 10), "draw") == 0              ? 0.5
		           : !PQgetisnull(r, n, 11) && v_int(r, n, 11) == c->seat ? 1.0
		                                                                  : 0.0;
	}
	PQclear(r);
	if (n == 2) {
		out[0].opponent = out[1].account;
		out[1].opponent = out[0].account;
	}
	return n;
}

static int
rating_pairs(const struct reader *rd, int (*cb)(void *ctx, const struct store_rating_pair *p),
             void *ctx, struct store_error *err)
{
	PGresult *r;
	int rc, count = 0;

	if ((rc = query(rd,
	                "SELECT account, kind, opponent, games FROM rating_pairs ORDER BY account, "
	                "kind COLLATE \"C\", opponent",
	                NULL, 0, "reading rating pairs", &r, err)) < 0)
		return rc;
	for (int i = 0; i < PQntuples(r) && rc == 0; i++) {
		struct store_rating_pair pair = {0};
		char kind[STORE_WORD_MAX];

		pair.account = v_int(r, i, 0);
		pair.opponent = v_int(r, i, 2);
		pair.games = v_int(r, i, 3);
		if (v_copy(r, i, 1, kind, sizeof kind) < 0 || game_kind_parse(kind, &pair.kind) < 0)
			rc = store_fail(err, STORE_ECORRUPT, "%s: a malformed rating pair row",
			                rd->name);
		else if (cb(ctx, &pair) != 0)
			rc = store_fail(err, STORE_ESTOPPED, "reading rating pairs stopped");
		else
			count++;
	}
	PQclear(r);
	return rc < 0 ? rc : count;
}

/* --- The read port on a connection of its own. */

struct store_pg_reader {
	struct reader rd;
	char *uri;    /* owned: to connect again */
	char *name;   /* owned */
	int borrowed; /* rd.conn is the store's, in its moment (writer 0): never reset nor closed */
};

/* The reader's connection, connected again if it was lost (blocking: the reader's thread; a read
 * that finds it lost fails with STORE_EUNAVAIL, the next one connects). A borrowed one is not:
 * its moment went with it. */
static const struct reader *
reader_of(void *impl)
{
	struct store_pg_reader *r = impl;

	if (!r->borrowed && PQstatus(r->rd.conn) == CONNECTION_BAD) {
		PQreset(r->rd.conn);
		if (PQstatus(r->rd.conn) == CONNECTION_OK)
			PQclear(PQexec(r->rd.conn, "SET default_transaction_read_only = on"));
	}
	return &r->rd;
}

static int
port_history(void *impl, const struct store_history_query *q, struct store_game *out,
             struct store_history_page *page, struct store_error *err)
{
	return history(reader_of(impl), q, out, page, err);
}

static int
port_record(void *impl, const char *id, const struct store_viewer *viewer, char *buf, size_t size,
            struct store_error *err)
{
	return record(reader_of(impl), id, viewer, buf, size, err);
}

static int
port_events(void *impl, const char *id, const struct store_viewer *viewer, struct store_event **out,
            size_t *n, struct store_error *err)
{
	return events(reader_of(impl), id, viewer, out, n, err);
}

static int
port_leaderboard(void *impl, const struct store_board_query *q, struct store_board_entry *out,
                 int *more, struct store_error *err)
{
	return leaderboard(reader_of(impl), q, out, more, err);
}

static int
port_rated_games(void *impl, int64_t account, size_t limit, struct store_rated_game *out,
                 struct store_error *err)
{
	return rated_games(reader_of(impl), account, limit, out, err);
}

static int
port_accounts_unused(void *impl, int64_t after_id, int64_t before_ms, unsigned scan, int64_t *ids,
                     unsigned max, int64_t *next_after, struct store_error *err)
{
	return accounts_unused(reader_of(impl), after_id, before_ms, scan, ids, max, next_after,
	                       err);
}

static int
port_games_page(void *impl, int64_t after, size_t limit, struct store_game *out, int64_t *total,
                struct store_error *err)
{
	return games_page(reader_of(impl), after, limit, out, total, err);
}

static int
port_rating_changes(void *impl, const char *id, struct store_rating_change out[2],
                    struct store_error *err)
{
	return rating_changes(reader_of(impl), id, out, err);
}

static int
port_rating_pairs(void *impl, int (*cb)(void *ctx, const struct store_rating_pair *p), void *ctx,
                  struct store_error *err)
{
	return rating_pairs(reader_of(impl), cb, ctx, err);
}

static void
port_close(void *impl)
{
	struct store_pg_reader *r = impl;

	if (!r->borrowed)
		PQfinish(r->rd.conn);
	free(r->uri);
	free(r->name);
	free(r);
}

int
store_pg_reader_open(void *impl, struct store_read_port *out, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_reader *r;
	PGconn *conn = pg->conn;
	int rc = 0, version = 0;

	memset(out, 0, sizeof *out);
	if (!pg->opts.writer) { /* its moment, on its connection */
		if (conn == NULL)
			return store_fail(err, STORE_EUNAVAIL, "%s: not connected", pg->name);
	} else {
		if ((rc = store_pg_connect(pg->uri, pg->name, &conn, err)) < 0)
			return rc;
		if ((rc = store_pg_schema_inspect(conn, pg->name, &version, err)) == 0 &&
		    version != STORE_PG_SCHEMA)
			rc = store_fail(err, STORE_EVERSION,
			                "%s: schema version %d, this hokitod's is %d", pg->name,
			                version, STORE_PG_SCHEMA);
		else if (rc == 1)
			rc = store_fail(err, STORE_ENOTFOUND, "%s: no hokitod store there",
			                pg->name);
		if (rc == 0)
			rc = store_pg_exec(conn, pg->name, "SET default_transaction_read_only = on",
			                   "making the reader read-only", err);
		if (rc < 0) {
			PQfinish(conn);
			return rc;
		}
	}
	r = xcalloc(1, sizeof *r);
	r->rd.conn = conn;
	r->uri = xstrdup(pg->uri);
	r->name = xstrdup(pg->name);
	r->rd.name = r->name;
	r->borrowed = !pg->opts.writer;
	*out = (struct store_read_port){.history = port_history,
	                                .record = port_record,
	                                .events = port_events,
	                                .leaderboard = port_leaderboard,
	                                .rated_games = port_rated_games,
	                                .accounts_unused = port_accounts_unused,
	                                .games_page = port_games_page,
	                                .rating_changes = port_rating_changes,
	                                .rating_pairs = port_rating_pairs,
	                                .close = port_close,
	                                .loop_only = r->borrowed,
	                                .impl = r};
	return 0;
}

/* --- The write port's start-up reads, on the writer's connection. */

/* The writer's connection for a start-up read: before start() only (a blocking call). */
static int
startup_reader(struct store_pg *pg, struct reader *rd, const char *what, struct store_error *err)
{
	rd->conn = pg->conn;
	rd->name = pg->name;
	if (pg->loop != NULL)
		return store_fail(err, STORE_EINVAL,
		                  "%s: %s after start(): a start-up read (it would block the loop)",
		                  pg->name, what);
	if (pg->conn == NULL || pg->state != STORE_PG_READY)
		return store_fail(err, STORE_EUNAVAIL, "%s: %s: not connected", pg->name, what);
	return 0;
}

int
store_pg_meta_get(void *impl, const char *key, int64_t *value, struct store_error *err)
{
	struct params p = {0};
	struct reader rd;
	PGresult *r;
	int rc;

	if ((rc = startup_reader(impl, &rd, "reading a counter", err)) < 0)
		return rc;
	p_text(&p, key);
	if ((rc = query(&rd, "SELECT value FROM meta WHERE key = $1", &p, 0, "reading a counter",
	                &r, err)) < 0)
		return rc;
	if (PQntuples(r) == 0)
		rc = store_fail(err, STORE_ENOTFOUND, "no counter '%s'", key);
	else
		*value = v_int(r, 0, 0);
	PQclear(r);
	return rc;
}

/*
 * Start-up: every game not finished, the `recent` most recently finished public and private
 * ones (each from its own index) and those with a session stored, in creation order, each
 * replayed through the rules (store_game_replay(): a stored move the rules refuse stops the load
 * with STORE_ECORRUPT). The games not finished are where the write port's live map starts.
 */
int
store_pg_load(void *impl, unsigned recent, store_load_cb cb, void *ctx, struct store_error *err)
{
	static const char sql[] =
	        "SELECT " GAME_COLUMNS " FROM games WHERE id IN ("
	        "SELECT id FROM games WHERE status <> 'finished' UNION ALL "
	        "SELECT id FROM (SELECT id FROM games WHERE status = 'finished' AND private = 0 "
	        "ORDER BY ended_ms DESC, serial DESC LIMIT $1) AS pub UNION ALL "
	        "SELECT id FROM (SELECT id FROM games WHERE status = 'finished' AND private = 1 "
	        "ORDER BY ended_ms DESC, serial DESC LIMIT $1) AS priv UNION ALL "
	        "SELECT game_id FROM sessions) ORDER BY serial";
	struct store_pg *pg = impl;
	struct store_game *games;
	struct params p = {0};
	struct reader rd;
	size_t n;
	int rc, count = 0;

	if ((rc = startup_reader(pg, &rd, "loading games", err)) < 0)
		return rc;
	p_int(&p, recent);
	if ((rc = games_query(&rd, sql, &p, &games, &n, err)) < 0)
		return rc;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct game start, position;
		struct store_event *ev;
		size_t nev;

		if ((rc = events_read(&rd, games[i].id, 0, &ev, &nev, err)) < 0)
			break;
		rc = store_game_replay(&games[i], ev, nev, &start, &position, err);
		if (rc == 0) {
			if (strcmp(games[i].status, "finished") != 0)
				store_pg_live_set(pg, games[i].id, (int64_t)nev);
			if (cb(ctx, &games[i], ev, nev, &start, &position) != 0)
				rc = store_fail(err, STORE_ESTOPPED, "loading stopped at game '%s'",
				                games[i].id);
			else
				count++;
		}
		store_events_free(ev, nev);
	}
	free(games);
	return rc < 0 ? rc : count;
}

int
store_pg_sessions_load(void *impl, int (*cb)(void *ctx, const struct store_session *s), void *ctx,
                       struct store_error *err)
{
	struct reader rd;
	PGresult *r;
	int rc, count = 0;

	if ((rc = startup_reader(impl, &rd, "reading sessions", err)) < 0)
		return rc;
	if ((rc = query(&rd,
	                "SELECT token, player_id, name, game_id, seat, updated_ms, account FROM "
	                "sessions ORDER BY updated_ms, token COLLATE \"C\"",
	                NULL, 0, "reading sessions", &r, err)) < 0)
		return rc;
	for (int i = 0; i < PQntuples(r) && rc == 0; i++) {
		struct store_session ss;

		memset(&ss, 0, sizeof ss);
		if (v_copy(r, i, 0, ss.token, sizeof ss.token) < 0 ||
		    v_copy(r, i, 1, ss.player_id, sizeof ss.player_id) < 0 ||
		    v_copy(r, i, 2, ss.name, sizeof ss.name) < 0 ||
		    v_copy(r, i, 3, ss.game_id, sizeof ss.game_id) < 0) {
			rc = store_fail(err, STORE_ECORRUPT, "%s: a malformed session row",
			                rd.name);
			break;
		}
		ss.seat = (int)v_int(r, i, 4);
		ss.updated_ms = v_int(r, i, 5);
		ss.account = v_int(r, i, 6);
		if (cb(ctx, &ss) != 0)
			rc = store_fail(err, STORE_ESTOPPED, "loading sessions stopped");
		else
			count++;
	}
	PQclear(r);
	return rc < 0 ? rc : count;
}

int
store_pg_accounts_load(void *impl, int (*cb)(void *ctx, const struct store_account *a), void *ctx,
                       struct store_error *err)
{
	struct reader rd;
	PGresult *r;
	int rc, count = 0;

	if ((rc = startup_reader(impl, &rd, "reading accounts", err)) < 0)
		return rc;
	if ((rc = query(&rd,
	                "SELECT id, name, name_key, skeleton, pw_hash, kind, created_ms, "
	                "COALESCE(closed_ms, 0), COALESCE(banned_ms, 0) FROM accounts ORDER BY id",
	                NULL, 0, "reading accounts", &r, err)) < 0)
		return rc;
	for (int i = 0; i < PQntuples(r) && rc == 0; i++) {
		struct store_account a;

		memset(&a, 0, sizeof a);
		a.id = v_int(r, i, 0);
		if (v_copy(r, i, 1, a.name, sizeof a.name) < 0 ||
		    v_copy(r, i, 2, a.key, sizeof a.key) < 0 ||
		    v_copy(r, i, 3, a.skeleton, sizeof a.skeleton) < 0 ||
		    v_copy(r, i, 4, a.hash, sizeof a.hash) < 0 ||
		    v_copy(r, i, 5, a.kind, sizeof a.kind) < 0) {
			rc = store_fail(err, STORE_ECORRUPT, "%s: a malformed account row",
			                rd.name);
			break;
		}
		a.created_ms = v_int(r, i, 6);
		a.closed_ms = v_int(r, i, 7);
		a.banned_ms = v_int(r, i, 8);
		if (cb(ctx, &a) != 0)
			rc = store_fail(err, STORE_ESTOPPED, "loading accounts stopped");
		else
			count++;
	}
	PQclear(r);
	return rc < 0 ? rc : count;
}

int
store_pg_ratings_load(void *impl, int (*cb)(void *ctx, const struct store_rating *r), void *ctx,
                      struct store_error *err)
{
	struct reader rd;
	PGresult *res;
	int rc, count = 0;

	if ((rc = startup_reader(impl, &rd, "reading ratings", err)) < 0)
		return rc;
	if ((rc = query(&rd,
	                "SELECT account, kind, rating, rd, vol, games, wins, draws, losses, best, "
	                "updated_ms, opponents FROM ratings ORDER BY account, kind COLLATE \"C\"",
	                NULL, 0, "reading ratings", &res, err)) < 0)
		return rc;
	for (int i = 0; i < PQntuples(res) && rc == 0; i++) {
		struct store_rating r = {0};
		char kind[STORE_WORD_MAX];

		r.account = v_int(res, i, 0);
		r.rating = strtod(PQgetvalue(res, i, 2), NULL);
		r.rd = strtod(PQgetvalue(res, i, 3), NULL);
		r.vol = strtod(PQgetvalue(res, i, 4), NULL);
		r.games = v_int(res, i, 5);
		r.wins = v_int(res, i, 6);
		r.draws = v_int(res, i, 7);
		r.losses = v_int(res, i, 8);
		r.best = strtod(PQgetvalue(res, i, 9), NULL);
		r.updated_ms = v_int(res, i, 10);
		r.opponents = v_int(res, i, 11);
		if (v_copy(res, i, 1, kind, sizeof kind) < 0 ||
		    game_kind_parse(kind, &r.kind) < 0 || !(r.rd > 0) || !(r.vol > 0)) {
			rc = store_fail(err, STORE_ECORRUPT, "%s: a malformed ratings row",
			                rd.name);
			break;
		}
		if (cb(ctx, &r) != 0)
			rc = store_fail(err, STORE_ESTOPPED, "loading ratings stopped");
		else
			count++;
	}
	PQclear(res);
	return rc < 0 ? rc : count;
}

int
store_pg_rated_pairs_load(void *impl, int64_t since_ms,
                          int (*cb)(void *ctx, int64_t a, int64_t b, int64_t ended_ms), void *ctx,
                          struct store_error *err)
{
	struct params p = {0};
	struct reader rd;
	PGresult *r;
	int rc, count = 0;

	if ((rc = startup_reader(impl, &rd, "reading rated pairs", err)) < 0)
		return rc;
	p_int(&p, since_ms);
	/* down rating_changes_ended: the games of the window only, whatever the store holds */
	if ((rc = query(&rd,
	                "SELECT c.account, o.account, c.ended_ms FROM rating_changes c JOIN "
	                "rating_changes o ON o.game = c.game AND o.seat = 1 WHERE c.seat = 0 AND "
	                "c.ended_ms >= $1 ORDER BY c.ended_ms",
	                &p, 0, "reading rated pairs", &r, err)) < 0)
		return rc;
	for (int i = 0; i < PQntuples(r) && rc == 0; i++) {
		if (cb(ctx, v_int(r, i, 0), v_int(r, i, 1), v_int(r, i, 2)) != 0)
			rc = store_fail(err, STORE_ESTOPPED, "loading rated pairs stopped");
		else
			count++;
	}
	PQclear(r);
	return rc < 0 ? rc : count;
}
