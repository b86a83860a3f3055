/*
 * migratectl.c: `hokitod migrate --from A --to B`, the operators' copy of a whole store into a
 * new or empty one, from any backend to any other (SQLite to PostgreSQL and back, or to one of
 * its kind), through the registry and the ports alone (store-db.h, store-port.h): every game of
 * any status with its events byte for byte, its seats, end and unrated word, and its rating
 * changes; the accounts with their ids; the sessions; the rating pairs and the ratings rows as
 * stored; the id counters. The kept counts follow from what is written. Then it checks the copy
 * against the source: every game's row and rating changes, the SHA-256 of its events' bytes in
 * order (game by game, in serial order), and every row of the other kinds (each side's rows
 * sorted by key and compared by digest), counted on both sides; the first difference is named.
 *
 * The source is opened without the writer's lock (a running server's store may be read) and is
 * read as one moment, that of its open; the target with the lock, and is refused unless it holds
 * nothing (it is looked at first without the lock, so that a store of another schema is not
 * migrated by the look). Writes go in transactions of MIGRATE_BATCH games (or rows of the other
 * kinds), each durable when the port's commit() returns (nothing calls start()). A target store
 * this command made is removed again when the copy fails. It runs as a short command of its own,
 * not on a loop: it blocks. Exit status: 0 copied and checked; 1 refused (the target holds
 * something or is in use, there is no source) or failed (a read or a write, a damaged source) or
 * the copy differs; 2 bad usage.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "migratectl.h"
#include "progress.h"
#include "store-db.h"
#include "store-game.h"
#include "xmalloc.h"

#define MIGRATE_BATCH  1000 /* games (or rows of another kind) a transaction */
#define MIGRATE_PAGE   250  /* games read at once */
#define MIGRATE_DIGEST 32   /* SHA-256's bytes */
#define MIGRATE_ROWKEY 16   /* the bytes of a row's digests kept for the check (of SHA-256's) */

enum migrate_status {
	MIGRATE_OK = 0,
	MIGRATE_FAILED = 1,
	MIGRATE_USAGE = 2,
};

/* One side of the copy: a store and its ports. */
struct migrate_side {
	const char *db;            /* as --from or --to gave it (borrowed) */
	char name[256];            /* ... for messages: without a password */
	struct store_db *store;    /* owned */
	struct store_write_port w; /* its write port */
	struct store_read_port r;  /* its read port, when reader */
	int reader;                /* r is open */
};

/* Rows of each kind. */
struct migrate_counts {
	int64_t games, events, changes, accounts, sessions, ratings, pairs;
};

/* The counters a store keeps beside its rows (store-port.h meta_get). */
static const char *const migrate_counters[] = {"next_game", "next_player"};

struct migrate {
	struct migrate_side from, to;
	struct migrate_counts copied;
	size_t pending;         /* rows written since the last commit */
	const char *what;       /* the step that failed, for its message */
	struct store_error err; /* a callback's failure */
	EVP_MD_CTX *md;         /* the digests' context, reused */
	struct progress progress;
};

static void
migrate_usage(FILE *f)
{
	fprintf(f, "usage: hokitod migrate --from DB --to DB\n"
	           "Copies a whole store into a new or empty one, each DB named as --db names a\n"
	           "store (PATH, sqlite:PATH, postgresql://...), SQLite to PostgreSQL or back, or\n"
	           "to one of its kind: every game with its events, the rating changes,\n"
	           "accounts, sessions, ratings and the id counters; then checks the copy: every\n"
	           "row of each kind on both sides, and a SHA-256 of each game's events. The\n"
	           "source may be the store of a running server: the copy is of its moment.\n"
	           "Exit: 0 copied and checked, 1 refused (the target holds something, no source)\n"
	           "or failed (a damaged source) or the copy differs, 2 usage. See hokitod(8).\n");
}

/* --- Digests ----------------------------------------------------------------------------- */

/* Begin a SHA-256 on m->md. */
static void
md_begin(struct migrate *m)
{
	if (EVP_DigestInit_ex(m->md, EVP_sha256(), NULL) != 1)
		abort(); /* OpenSSL without SHA-256: nothing to check with */
}

static void
md_bytes(struct migrate *m, const void *p, size_t n)
{
	if (n > 0 && EVP_DigestUpdate(m->md, p, n) != 1)
		abort();
}

/* v as 8 bytes, least significant first (the same digest on every machine). */
static void
md_i64(struct migrate *m, int64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)((uint64_t)v >> (8 * i));
	md_bytes(m, b, sizeof b);
}

/* A string with its length (NULL apart from ""). */
static void
md_str(struct migrate *m, const char *s)
{
	if (s == NULL) {
		md_i64(m, -1);
		return;
	}
	md_i64(m, (int64_t)strlen(s));
	md_bytes(m, s, strlen(s));
}

/* A double by its bits. */
static void
md_double(struct migrate *m, double d)
{
	int64_t bits;

	memcpy(&bits, &d, sizeof bits);
	md_i64(m, bits);
}

static void
md_end(struct migrate *m, unsigned char out[MIGRATE_DIGEST])
{
	unsigned int n = 0;

	if (EVP_DigestFinal_ex(m->md, out, &n) != 1 || n != MIGRATE_DIGEST)
		abort();
}

/* The SHA-256 of a game's events: each one's seq, time, type, move and body bytes, in order. */
static void
migrate_events_digest(struct migrate *m, const struct store_event *ev, size_t n,
                      unsigned char out[MIGRATE_DIGEST])
{
	md_begin(m);
	for (size_t i = 0; i < n; i++) {
		size_t len = ev[i].body_len > 0 ? ev[i].body_len : strlen(ev[i].body);

		md_i64(m, ev[i].seq);
		md_i64(m, ev[i].time_ms);
		md_str(m, ev[i].type);
		md_str(m, ev[i].move);
		md_i64(m, (int64_t)len);
		md_bytes(m, ev[i].body, len);
	}
	md_end(m, out);
}

/* A digest's first bytes in hex, for a message. */
static const char *
migrate_hex(const unsigned char *d, char *buf)
{
	for (int i = 0; i < 8; i++)
		snprintf(buf + 2 * i, 3, "%02x", d[i]);
	return buf;
}

/* --- The two sides ----------------------------------------------------------------------- */

/* Open side->db with o, and its ports. Returns 0, or a store error with err. */
static int
migrate_open(struct migrate_side *side, const struct store_db_options *o, struct store_error *err)
{
	int rc = store_db_open(side->db, o, &side->store, err);

	if (rc < 0)
		return rc;
	store_db_write_port(side->store, &side->w);
	if ((rc = store_db_reader_open(side->store, &side->r, err)) < 0) {
		store_db_close(side->store);
		side->store = NULL;
		return rc;
	}
	side->reader = 1;
	return 0;
}

/* Close a side (discard: remove what its open made). Accepts one never opened. */
static void
migrate_close(struct migrate_side *side, int discard)
{
	if (side->reader)
		side->r.close(side->r.impl);
	side->reader = 0;
	if (discard)
		store_db_discard(side->store);
	else
		store_db_close(side->store);
	side->store = NULL;
}

/* The load callbacks of migrate_holds(): there is a row (stop). */
static int
holds_account_cb(void *ctx, const struct store_account *a)
{
	(void)ctx;
	(void)a;
	return 1;
}

static int
holds_session_cb(void *ctx, const struct store_session *s)
{
	(void)ctx;
	(void)s;
	return 1;
}

static int
holds_rating_cb(void *ctx, const struct store_rating *r)
{
	(void)ctx;
	(void)r;
	return 1;
}

static int
holds_pair_cb(void *ctx, const struct store_rating_pair *p)
{
	(void)ctx;
	(void)p;
	return 1;
}

/*
 * What a store holds, by its ports: the first kind of row it has ("games" ...) into *what, or
 * NULL for none; *games the number of games. Returns 0 or a store error.
 */
static int
migrate_holds(struct migrate_side *side, const char **what, int64_t *games, struct store_error *err)
{
	struct store_game g;
	int64_t v;
	int rc;

	*what = NULL;
	if ((rc = side->r.games_page(side->r.impl, 0, 1, &g, games, err)) < 0)
		return rc;
	if (rc > 0 || *games > 0) {
		*what = "games";
		return 0;
	}
#define HOLDS(call, name)                                                                          \
	if ((rc = (call)) == STORE_ESTOPPED || rc > 0) {                                           \
		*what = name;                                                                      \
		return 0;                                                                          \
	}                                                                                          \
	if (rc < 0)                                                                                \
	return rc
	HOLDS(side->w.accounts_load(side->w.impl, holds_account_cb, NULL, err), "accounts");
	HOLDS(side->w.sessions_load(side->w.impl, holds_session_cb, NULL, err), "sessions");
	HOLDS(side->w.ratings_load(side->w.impl, holds_rating_cb, NULL, err), "ratings");
	HOLDS(side->r.rating_pairs(side->r.impl, holds_pair_cb, NULL, err), "rating pairs");
#undef HOLDS
	for (size_t i = 0; i < sizeof migrate_counters / sizeof migrate_counters[0]; i++) {
		rc = side->w.meta_get(side->w.impl, migrate_counters[i], &v, err);
		if (rc == 0) {
			*what = "id counters";
			return 0;
		}
		if (rc != STORE_ENOTFOUND)
			return rc;
	}
	return 0;
}

/*
 * Open the target, which must hold nothing: looked at first without the writer's lock (a store
 * of another schema is refused, not migrated), then opened with it and looked at again. Returns
 * 0 (*made: this open creates it), or an exit status after saying why.
 */
static int
migrate_open_target(struct migrate *m, int *made)
{
	struct store_db_options look = {STORE_FSYNC_NORMAL, 1, 0};
	struct store_db_options write = {STORE_FSYNC_ALWAYS, 0, 1};
	struct store_error err;
	const char *what = NULL;
	int64_t games = 0;
	int rc;

	*made = 0;
	rc = migrate_open(&m->to, &look, &err);
	if (rc == STORE_ENOTFOUND) {
		*made = 1;
	} else if (rc == 0) {
		rc = migrate_holds(&m->to, &what, &games, &err);
		migrate_close(&m->to, 0);
	}
	if (rc < 0 && rc != STORE_ENOTFOUND) {
		fprintf(stderr, "hokitod: migrate: the target %s is refused: %s\n", m->to.name,
		        err.text);
		return MIGRATE_FAILED;
	}
	if (what == NULL) {
		if ((rc = migrate_open(&m->to, &write, &err)) < 0) {
			fprintf(stderr, "hokitod: migrate: the target %s cannot be opened: %s\n",
			        m->to.name, err.text);
			return MIGRATE_FAILED;
		}
		if ((rc = migrate_holds(&m->to, &what, &games, &err)) < 0) {
			fprintf(stderr, "hokitod: migrate: the target %s cannot be read: %s\n",
			        m->to.name, err.text);
			migrate_close(&m->to, *made);
			return MIGRATE_FAILED;
		}
		if (what != NULL)
			migrate_close(&m->to, 0);
	}
	if (what != NULL) {
		if (games > 0)
			fprintf(stderr,
			        "hokitod: migrate: the target %s is not empty (%" PRId64 " games): "
			        "migrate copies into a new or empty store only; nothing was "
			        "written\n",
			        m->to.name, games);
		else
			fprintf(stderr,
			        "hokitod: migrate: the target %s is not empty (it holds %s): "
			        "migrate "
			        "copies into a new or empty store only; nothing was written\n",
			        m->to.name, what);
		return MIGRATE_FAILED;
	}
	return 0;
}

/* --- The copy ---------------------------------------------------------------------------- */

/* Commit what was written since the last commit: durable at return (no start()). */
static int
migrate_commit(struct migrate *m, struct store_error *err)
{
	uint64_t ticket = 0;
	int rc = m->to.w.commit(m->to.w.impl, &ticket, err);

	m->pending = 0;
	if (rc < 0)
		m->what = "writing the target";
	return rc;
}

/* A row (a game with its events) written: a commit every MIGRATE_BATCH. */
static int
migrate_wrote(struct migrate *m, struct store_error *err)
{
	return ++m->pending >= MIGRATE_BATCH ? migrate_commit(m, err) : 0;
}

/* The step that failed, and its code. */
static int
migrate_failed(struct migrate *m, const char *what, int rc)
{
	m->what = what;
	return rc;
}

/* One game: its events and rating changes read, the whole written. */
static int
migrate_game(struct migrate *m, const struct store_game *g, struct store_error *err)
{
	struct store_rating_change ch[2];
	struct store_event *ev;
	size_t nev;
	int rc, nch = 0;

	if ((rc = m->from.r.events(m->from.r.impl, g->id, NULL, &ev, &nev, err)) < 0)
		return migrate_failed(m, "reading the source", rc);
	if (g->rated && (nch = m->from.r.rating_changes(m->from.r.impl, g->id, ch, err)) < 0) {
		store_events_free(ev, nev);
		return migrate_failed(m, "reading the source", nch);
	}
	rc = m->to.w.game_put(m->to.w.impl, g, ev, nev, err);
	for (int i = 0; rc == 0 && i < nch; i++)
		rc = m->to.w.rating_change_put(m->to.w.impl, g->id, &ch[i], err);
	store_events_free(ev, nev);
	if (rc < 0)
		return migrate_failed(m, "writing the target", rc);
	m->copied.games++;
	m->copied.events += (int64_t)nev;
	m->copied.changes += nch;
	return migrate_wrote(m, err);
}

/* Every game, page by page in serial order, with the progress of the copy. */
static int
migrate_games(struct migrate *m, struct store_error *err)
{
	struct store_game *page = xcalloc(MIGRATE_PAGE, sizeof *page);
	int64_t after = 0, total = 0;
	int n, rc = 0;

	n = m->from.r.games_page(m->from.r.impl, after, MIGRATE_PAGE, page, &total, err);
	progress_start(&m->progress, "migrate", "copying", "games", total);
	while (n > 0 && rc == 0) {
		for (int i = 0; i < n && rc == 0; i++)
			rc = migrate_game(m, &page[i], err);
		after = page[n - 1].serial;
		progress_set(&m->progress, m->copied.games);
		if (rc == 0)
			n = m->from.r.games_page(m->from.r.impl, after, MIGRATE_PAGE, page, NULL,
			                         err);
	}
	if (n < 0)
		rc = migrate_failed(m, "reading the source", n);
	if (rc == 0)
		progress_end(&m->progress);
	else
		progress_abandon(&m->progress);
	free(page);
	return rc;
}

/* The rows of the other kinds, each through its load's callback. */
static int
copy_account_cb(void *ctx, const struct store_account *a)
{
	struct migrate *m = ctx;

	/* account_add() ignores the closed and banned times: account_update() sets them */
	if (m->to.w.account_add(m->to.w.impl, a, &m->err) < 0 ||
	    ((a->closed_ms != 0 || a->banned_ms != 0) &&
	     m->to.w.account_update(m->to.w.impl, a, &m->err) < 0))
		return migrate_failed(m, "writing the target", 1);
	m->copied.accounts++;
	return migrate_wrote(m, &m->err) < 0;
}

static int
copy_session_cb(void *ctx, const struct store_session *s)
{
	struct migrate *m = ctx;

	if (m->to.w.session_set(m->to.w.impl, s, &m->err) < 0)
		return migrate_failed(m, "writing the target", 1);
	m->copied.sessions++;
	return migrate_wrote(m, &m->err) < 0;
}

static int
copy_pair_cb(void *ctx, const struct store_rating_pair *p)
{
	struct migrate *m = ctx;

	if (m->to.w.rating_pair_put(m->to.w.impl, p, &m->err) < 0)
		return migrate_failed(m, "writing the target", 1);
	m->copied.pairs++;
	return migrate_wrote(m, &m->err) < 0;
}

static int
copy_rating_cb(void *ctx, const struct store_rating *r)
{
	struct migrate *m = ctx;

	if (m->to.w.rating_put(m->to.w.impl, r, &m->err) < 0)
		return migrate_failed(m, "writing the target", 1);
	m->copied.ratings++;
	return migrate_wrote(m, &m->err) < 0;
}

/* A load's outcome: a callback that stopped it left its error in m->err. */
static int
migrate_loaded(struct migrate *m, int rc, struct store_error *err)
{
	if (rc == STORE_ESTOPPED && m->what != NULL) {
		*err = m->err;
		return m->err.code < 0 ? m->err.code : STORE_EIO;
	}
	return rc < 0 ? migrate_failed(m, "reading the source", rc) : 0;
}

/*
 * The copy: the accounts first (the games' seats and the ratings name them), the games with
 * their events and rating changes, the sessions (seated at the games), the rating pairs, then
 * the ratings rows (after the pairs, which a backend may count into their opponents), the
 * counters, and the last commit.
 */
static int
migrate_copy(struct migrate *m, struct store_error *err)
{
	int rc;

	m->what = NULL;
	if ((rc = migrate_loaded(m,
	                         m->from.w.accounts_load(m->from.w.impl, copy_account_cb, m, err),
	                         err)) < 0 ||
	    (rc = migrate_games(m, err)) < 0 ||
	    (rc = migrate_loaded(m,
	                         m->from.w.sessions_load(m->from.w.impl, copy_session_cb, m, err),
	                         err)) < 0 ||
	    (rc = migrate_loaded(m, m->from.r.rating_pairs(m->from.r.impl, copy_pair_cb, m, err),
	                         err)) < 0 ||
	    (rc = migrate_loaded(m, m->from.w.ratings_load(m->from.w.impl, copy_rating_cb, m, err),
	                         err)) < 0)
		return rc;
	for (size_t i = 0; i < sizeof migrate_counters / sizeof migrate_counters[0]; i++) {
		int64_t v;

		rc = m->from.w.meta_get(m->from.w.impl, migrate_counters[i], &v, err);
		if (rc == STORE_ENOTFOUND)
			continue;
		if (rc < 0)
			return migrate_failed(m, "reading the source", rc);
		if ((rc = m->to.w.meta_set(m->to.w.impl, migrate_counters[i], v, err)) < 0)
			return migrate_failed(m, "writing the target", rc);
	}
	return migrate_commit(m, err);
}

/* --- The check --------------------------------------------------------------------------- */

/* A row of a kind but the games, as the check keeps it: digests of its key and its values. */
struct migrate_row {
	unsigned char key[MIGRATE_ROWKEY];
	unsigned char value[MIGRATE_ROWKEY];
	char label[64]; /* what it is, for a message ("account 12") */
};

/* One side's rows of a kind. */
struct migrate_rows {
	struct migrate *m;
	struct migrate_row *v;
	size_t n, cap;
};

/* Begin a row of rs: its key's fields go into the digest, then migrate_row_values(). */
static struct migrate_row *
migrate_row_begin(struct migrate_rows *rs, const char *label)
{
	struct migrate_row *r;

	rs->v = xgrow(rs->v, rs->n, &rs->cap, sizeof *rs->v, 64);
	r = &rs->v[rs->n++];
	snprintf(r->label, sizeof r->label, "%s", label);
	md_begin(rs->m);
	return r;
}

/* The key is complete: the values' fields follow. */
static void
migrate_row_values(struct migrate_rows *rs, struct migrate_row *r)
{
	unsigned char d[MIGRATE_DIGEST];

	md_end(rs->m, d);
	memcpy(r->key, d, sizeof r->key);
	md_begin(rs->m);
}

static void
migrate_row_end(struct migrate_rows *rs, struct migrate_row *r)
{
	unsigned char d[MIGRATE_DIGEST];

	md_end(rs->m, d);
	memcpy(r->value, d, sizeof r->value);
}

static int
row_account_cb(void *ctx, const struct store_account *a)
{
	struct migrate_rows *rs = ctx;
	struct migrate *m = rs->m;
	struct migrate_row *r;
	char label[64];

	snprintf(label, sizeof label, "account %" PRId64 " (%s)", a->id, a->name);
	r = migrate_row_begin(rs, label);
	md_i64(m, a->id);
	migrate_row_values(rs, r);
	md_str(m, a->name);
	md_str(m, a->key);
	md_str(m, a->skeleton);
	md_str(m, a->hash);
	md_str(m, a->kind);
	md_i64(m, a->created_ms);
	md_i64(m, a->closed_ms);
	md_i64(m, a->banned_ms);
	migrate_row_end(rs, r);
	return 0;
}

static int
row_session_cb(void *ctx, const struct store_session *s)
{
	struct migrate_rows *rs = ctx;
	struct migrate *m = rs->m;
	struct migrate_row *r;
	char label[64];

	/* never the token in a message: it opens the session */
	snprintf(label, sizeof label, "the session of player %s at game %s", s->player_id,
	         s->game_id);
	r = migrate_row_begin(rs, label);
	md_str(m, s->token);
	migrate_row_values(rs, r);
	md_str(m, s->player_id);
	md_str(m, s->name);
	md_str(m, s->game_id);
	md_i64(m, s->seat);
	md_i64(m, s->updated_ms);
	md_i64(m, s->account);
	migrate_row_end(rs, r);
	return 0;
}

static int
row_rating_cb(void *ctx, const struct store_rating *x)
{
	struct migrate_rows *rs = ctx;
	struct migrate *m = rs->m;
	struct migrate_row *r;
	char label[64];

	snprintf(label, sizeof label, "the %s rating of account %" PRId64, game_kind_name(x->kind),
	         x->account);
	r = migrate_row_begin(rs, label);
	md_i64(m, x->account);
	md_i64(m, x->kind);
	migrate_row_values(rs, r);
	md_double(m, x->rating);
	md_double(m, x->rd);
	md_double(m, x->vol);
	md_i64(m, x->games);
	md_i64(m, x->wins);
	md_i64(m, x->draws);
	md_i64(m, x->losses);
	md_double(m, x->best);
	md_i64(m, x->updated_ms);
	md_i64(m, x->opponents);
	migrate_row_end(rs, r);
	return 0;
}

static int
row_pair_cb(void *ctx, const struct store_rating_pair *p)
{
	struct migrate_rows *rs = ctx;
	struct migrate *m = rs->m;
	struct migrate_row *r;
	char label[64];

	snprintf(label, sizeof label, "the %s pair of accounts %" PRId64 " and %" PRId64,
	         game_kind_name(p->kind), p->account, p->opponent);
	r = migrate_row_begin(rs, label);
	md_i64(m, p->account);
	md_i64(m, p->kind);
	md_i64(m, p->opponent);
	migrate_row_values(rs, r);
	md_i64(m, p->games);
	migrate_row_end(rs, r);
	return 0;
}

static int
row_cmp(const void *a, const void *b)
{
	return memcmp(((const struct migrate_row *)a)->key, ((const struct migrate_row *)b)->key,
	              MIGRATE_ROWKEY);
}

/* One kind of row read from a side into rs (its load with the callback of the kind). */
enum migrate_kind { KIND_ACCOUNTS, KIND_SESSIONS, KIND_RATINGS, KIND_PAIRS };

static const char *const migrate_kind_name[] = {"accounts", "sessions", "ratings", "rating pairs"};

static int
migrate_rows_read(struct migrate_side *side, enum migrate_kind kind, struct migrate_rows *rs,
                  struct store_error *err)
{
	int rc = 0;

	switch (kind) {
	case KIND_ACCOUNTS:
		rc = side->w.accounts_load(side->w.impl, row_account_cb, rs, err);
		break;
	case KIND_SESSIONS:
		rc = side->w.sessions_load(side->w.impl, row_session_cb, rs, err);
		break;
	case KIND_RATINGS:
		rc = side->w.ratings_load(side->w.impl, row_rating_cb, rs, err);
		break;
	case KIND_PAIRS:
		rc = side->r.rating_pairs(side->r.impl, row_pair_cb, rs, err);
		break;
	}
	if (rc >= 0 && rs->n > 1)
		qsort(rs->v, rs->n, sizeof *rs->v, row_cmp);
	return rc < 0 ? rc : 0;
}

/*
 * Both sides' rows of a kind, compared (sorted by their keys' digests): their numbers into
 * *from_n and *to_n, and the first difference into diff. Returns 1 for a difference, 0 for
 * none, or a store error (m->what set).
 */
static int
migrate_check_kind(struct migrate *m, enum migrate_kind kind, int64_t *from_n, int64_t *to_n,
                   char *diff, size_t size, struct store_error *err)
{
	struct migrate_rows a = {.m = m}, b = {.m = m};
	size_t i = 0, j = 0;
	int rc;

	if ((rc = migrate_rows_read(&m->from, kind, &a, err)) < 0)
		rc = migrate_failed(m, "reading the source", rc);
	else if ((rc = migrate_rows_read(&m->to, kind, &b, err)) < 0)
		rc = migrate_failed(m, "reading the copy", rc);
	*from_n = (int64_t)a.n;
	*to_n = (int64_t)b.n;
	while (rc == 0 && (i < a.n || j < b.n)) {
		int c = i == a.n ? 1 : j == b.n ? -1 : row_cmp(&a.v[i], &b.v[j]);

		if (c < 0)
			snprintf(diff, size, "%s is in the source, not in the copy", a.v[i].label);
		else if (c > 0)
			snprintf(diff, size, "%s is in the copy, not in the source", b.v[j].label);
		else if (memcmp(a.v[i].value, b.v[j].value, MIGRATE_ROWKEY) != 0)
			snprintf(diff, size, "%s differs", a.v[i].label);
		if (c != 0 || memcmp(a.v[i].value, b.v[j].value, MIGRATE_ROWKEY) != 0)
			rc = 1;
		i++;
		j++;
	}
	free(a.v);
	free(b.v);
	return rc;
}

/* Two games' rating changes, as read: where they differ, or NULL. */
static const char *
migrate_changes_diff(const struct store_rating_change *a, const struct store_rating_change *b,
                     int n)
{
	for (int i = 0; i < n; i++) {
		if (a[i].seat != b[i].seat || a[i].account != b[i].account ||
		    a[i].kind != b[i].kind || a[i].opponent != b[i].opponent ||
		    a[i].ended_ms != b[i].ended_ms || a[i].score != b[i].score)
			return "its rating changes' rows";
		for (int k = 0; k < 3; k++)
			if (a[i].before[k] != b[i].before[k] || a[i].after[k] != b[i].after[k])
				return "its rating changes' values";
	}
	return NULL;
}

/* Game g of both sides (a: the source's, b: the copy's): their events and rating changes. */
static int
migrate_check_game(struct migrate *m, const struct store_game *a, const struct store_game *b,
                   struct migrate_counts *fc, struct migrate_counts *tc, char *diff, size_t size,
                   struct store_error *err)
{
	unsigned char da[MIGRATE_DIGEST], db[MIGRATE_DIGEST];
	struct store_rating_change ca[2], cb[2];
	struct store_event *ea, *eb;
	const char *field;
	size_t na, nb;
	int rc, nca = 0, ncb = 0;

	if ((field = store_game_diff(a, b)) != NULL) {
		snprintf(diff, size, "game %s: its %s differs", a->id, field);
		return 1;
	}
	if ((rc = m->from.r.events(m->from.r.impl, a->id, NULL, &ea, &na, err)) < 0)
		return migrate_failed(m, "reading the source", rc);
	if ((rc = m->to.r.events(m->to.r.impl, b->id, NULL, &eb, &nb, err)) < 0) {
		store_events_free(ea, na);
		return migrate_failed(m, "reading the copy", rc);
	}
	migrate_events_digest(m, ea, na, da);
	migrate_events_digest(m, eb, nb, db);
	store_events_free(ea, na);
	store_events_free(eb, nb);
	fc->events += (int64_t)na;
	tc->events += (int64_t)nb;
	if (na != nb || memcmp(da, db, sizeof da) != 0) {
		char ha[17], hb[17];

		snprintf(diff, size,
		         "game %s: its events differ (%zu, SHA-256 %s... in the source; %zu, %s... "
		         "in the copy)",
		         a->id, na, migrate_hex(da, ha), nb, migrate_hex(db, hb));
		return 1;
	}
	if (!a->rated)
		return 0;
	if ((nca = m->from.r.rating_changes(m->from.r.impl, a->id, ca, err)) < 0)
		return migrate_failed(m, "reading the source", nca);
	if ((ncb = m->to.r.rating_changes(m->to.r.impl, b->id, cb, err)) < 0)
		return migrate_failed(m, "reading the copy", ncb);
	fc->changes += nca;
	tc->changes += ncb;
	if (nca != ncb || (field = migrate_changes_diff(ca, cb, nca)) != NULL) {
		snprintf(diff, size, "game %s: %s differ (%d in the source, %d in the copy)", a->id,
		         nca != ncb ? "its rating changes" : field, nca, ncb);
		return 1;
	}
	return 0;
}

/* Every game of both sides, page by page in serial order, with the check's progress. */
static int
migrate_check_games(struct migrate *m, struct migrate_counts *fc, struct migrate_counts *tc,
                    char *diff, size_t size, struct store_error *err)
{
	struct store_game *pa = xcalloc(MIGRATE_PAGE, sizeof *pa);
	struct store_game *pb = xcalloc(MIGRATE_PAGE, sizeof *pb);
	int64_t after = 0;
	int na, nb, rc = 0;

	progress_start(&m->progress, "migrate", "checking", "games", m->copied.games);
	do {
		na = m->from.r.games_page(m->from.r.impl, after, MIGRATE_PAGE, pa, NULL, err);
		if (na < 0) {
			rc = migrate_failed(m, "reading the source", na);
			break;
		}
		nb = m->to.r.games_page(m->to.r.impl, after, MIGRATE_PAGE, pb, NULL, err);
		if (nb < 0) {
			rc = migrate_failed(m, "reading the copy", nb);
			break;
		}
		for (int i = 0; i < na && i < nb && rc == 0; i++) {
			if (strcmp(pa[i].id, pb[i].id) != 0) {
				snprintf(diff, size,
				         "game %s (serial %" PRId64
				         ") is in the source, %s (serial %" PRId64
				         ") in its place in the copy",
				         pa[i].id, pa[i].serial, pb[i].id, pb[i].serial);
				rc = 1;
				break;
			}
			rc = migrate_check_game(m, &pa[i], &pb[i], fc, tc, diff, size, err);
			fc->games++;
			tc->games++;
		}
		if (rc == 0 && na != nb) {
			const struct store_game *g = na > nb ? &pa[nb] : &pb[na];

			snprintf(diff, size, "game %s is in the %s only", g->id,
			         na > nb ? "source" : "copy");
			rc = 1;
		}
		if (na > 0)
			after = pa[na - 1].serial;
		progress_set(&m->progress, fc->games);
	} while (rc == 0 && na > 0);
	if (rc == 0)
		progress_end(&m->progress);
	else
		progress_abandon(&m->progress);
	free(pa);
	free(pb);
	return rc;
}

/*
 * The check of the copy against the source: every game, every row of the other kinds, the
 * counters. Returns 0 when they are the same, 1 with diff naming the first difference, or a
 * store error (m->what set). The counts of both sides go to fc and tc.
 */
static int
migrate_check(struct migrate *m, struct migrate_counts *fc, struct migrate_counts *tc, char *diff,
              size_t size, struct store_error *err)
{
	int64_t *counts[][2] = {{&fc->accounts, &tc->accounts},
	                        {&fc->sessions, &tc->sessions},
	                        {&fc->ratings, &tc->ratings},
	                        {&fc->pairs, &tc->pairs}};
	int rc;

	if ((rc = migrate_check_games(m, fc, tc, diff, size, err)) != 0)
		return rc;
	for (int k = KIND_ACCOUNTS; k <= KIND_PAIRS; k++) {
		rc = migrate_check_kind(m, (enum migrate_kind)k, counts[k][0], counts[k][1], diff,
		                        size, err);
		if (rc == 1 && *counts[k][0] != *counts[k][1]) {
			char first[200];

			snprintf(first, sizeof first, "%s", diff);
			snprintf(diff, size,
			         "%s: %" PRId64 " in the source, %" PRId64 " in the copy (%s)",
			         migrate_kind_name[k], *counts[k][0], *counts[k][1], first);
		}
		if (rc != 0)
			return rc;
	}
	for (size_t i = 0; i < sizeof migrate_counters / sizeof migrate_counters[0]; i++) {
		int64_t a = -1, b = -1;
		int ra = m->from.w.meta_get(m->from.w.impl, migrate_counters[i], &a, err);
		int rb = ra < 0 && ra != STORE_ENOTFOUND
		                 ? 0
		                 : m->to.w.meta_get(m->to.w.impl, migrate_counters[i], &b, err);

		if (ra < 0 && ra != STORE_ENOTFOUND)
			return migrate_failed(m, "reading the source", ra);
		if (rb < 0 && rb != STORE_ENOTFOUND)
			return migrate_failed(m, "reading the copy", rb);
		if (a != b) {
			snprintf(diff, size,
			         "the counter %s: %" PRId64 " in the source, %" PRId64
			         " in the copy (-1: none)",
			         migrate_counters[i], a, b);
			return 1;
		}
	}
	return 0;
}

/* --- The command ------------------------------------------------------------------------- */

/* Copy, then check. Returns the exit status, after saying what came of it. */
static int
migrate_run(struct migrate *m, int made)
{
	struct migrate_counts fc = {0}, tc = {0};
	struct store_error err = {0};
	char diff[400] = "";
	double t0 = progress_now(), t1;
	int rc;

	rc = migrate_copy(m, &err);
	t1 = progress_now();
	if (rc == 0)
		rc = migrate_check(m, &fc, &tc, diff, sizeof diff, &err);
	if (rc < 0)
		fprintf(stderr, "hokitod: migrate: %s: %s\n", m->what ? m->what : "copying",
		        err.text);
	else if (rc > 0)
		fprintf(stderr, "hokitod: migrate: the copy differs from the source: %s\n", diff);
	if (rc != 0) {
		if (made)
			fprintf(stderr, "hokitod: migrate: the new store %s is removed again\n",
			        m->to.name);
		else
			fprintf(stderr,
			        "hokitod: migrate: %s holds what was copied: empty it before "
			        "trying "
			        "again\n",
			        m->to.name);
		return MIGRATE_FAILED;
	}
	printf("hokitod: migrate: %s -> %s: %" PRId64 " games (%" PRId64 " events, %" PRId64
	       " rating changes), %" PRId64 " accounts, %" PRId64 " sessions, %" PRId64
	       " ratings, %" PRId64 " rating pairs copied in %.1f s (%.0f games/s) and checked in "
	       "%.1f s: the same on both sides\n",
	       m->from.name, m->to.name, tc.games, tc.events, tc.changes, tc.accounts, tc.sessions,
	       tc.ratings, tc.pairs, t1 - t0, t1 > t0 ? (double)m->copied.games / (t1 - t0) : 0.0,
	       progress_now() - t1);
	return MIGRATE_OK;
}

int
migratectl_main(int argc, char **argv)
{
	enum { O_FROM = 256, O_TO, O_HELP };
	static const struct option options[] = {
	        {"from", required_argument, NULL, O_FROM},
	        {"to", required_argument, NULL, O_TO},
	        {"help", no_argument, NULL, O_HELP},
	        {NULL, 0, NULL, 0},
	};
	struct store_db_options look = {STORE_FSYNC_NORMAL, 1, 0};
	struct migrate m = {0};
	struct store_error err;
	int opt, rc, made;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		switch (opt) {
		case O_FROM:
			m.from.db = optarg;
			break;
		case O_TO:
			m.to.db = optarg;
			break;
		case 'h':
		case O_HELP:
			migrate_usage(stdout);
			return MIGRATE_OK;
		default:
			fprintf(stderr,
			        "hokitod: migrate: bad option '%s' (see hokitod migrate --help)\n",
			        argv[optind - 1]);
			return MIGRATE_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hokitod: migrate: unexpected argument '%s'\n", argv[optind]);
		return MIGRATE_USAGE;
	}
	if (m.from.db == NULL || m.to.db == NULL || m.from.db[0] == '\0' || m.to.db[0] == '\0') {
		migrate_usage(stderr);
		return MIGRATE_USAGE;
	}
	store_db_display(m.from.db, m.from.name, sizeof m.from.name);
	store_db_display(m.to.db, m.to.name, sizeof m.to.name);
	if ((rc = migrate_open(&m.from, &look, &err)) < 0) {
		fprintf(stderr, "hokitod: migrate: the source %s cannot be read: %s%s\n",
		        m.from.name, err.text,
		        rc == STORE_EVERSION ? " (a hokitod started on it brings it to this "
		                               "version)"
		                             : "");
		return MIGRATE_FAILED;
	}
	if ((rc = migrate_open_target(&m, &made)) != 0) {
		migrate_close(&m.from, 0);
		return rc;
	}
	if ((m.md = EVP_MD_CTX_new()) == NULL)
		abort();
	rc = migrate_run(&m, made);
	EVP_MD_CTX_free(m.md);
	migrate_close(&m.to, rc != MIGRATE_OK && made);
	migrate_close(&m.from, 0);
	return rc;
}
