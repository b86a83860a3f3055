/*
 * test-store-contract.c: the contract of hokitod's store (store-port.h), which every backend
 * keeps, tested through the registry (store_db_open() from a --db text) and the two ports alone,
 * never a backend's own API. argv[1] names the backend, and a hook of it makes each test's fresh
 * empty store: "sqlite", a new file in a temporary directory; "pg", a new database made through
 * libpq on the server of $HOKITO_TEST_PG_URI (set by `python3 tests/pgtmp.py run -- PROGRAM pg`),
 * all of them dropped at the end. Without that variable the pg run fails (a bail-out, never a
 * skip). What it covers: every write and its read back after a close and a reopen (the load of
 * unfinished, recent and seated games, replayed; sessions, accounts, ratings, rated pairs,
 * counters); what is not committed is lost and nothing else; the error codes a user can meet;
 * writes sent again after a commit that held (idempotent by key: nothing doubled) and the same
 * key with other contents (STORE_ECORRUPT); history, leaderboard and the other reads by key,
 * on a reader that sees only what is committed; the private games and who may see them; the
 * asynchronous commit on a real libuv loop; and --check finding nothing on a sound store. What a
 * backend is known not to keep yet is listed in gaps[], its tests reported as TAP TODOs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>
#include <sqlite3.h>
#include <uv.h>

#include "game.h"
#include "record.h"
#include "rng.h"
#include "store-db.h"
#include "store-game.h"
#include "store-games.h"
#include "test.h"

/* --- The backends: a fresh empty store, the same store spelled otherwise, a newer copy. */

struct backend {
	const char *arg;  /* argv[1] */
	const char *name; /* store_db_backend() */
	/* Set up (0), or -1 after saying why. */
	int (*init)(void);
	/* The --db text of a new empty store into out: 0, or -1 after saying why. */
	int (*fresh)(char *out, size_t size);
	/* Another --db text of the store db (a scheme the registry also takes) into out. */
	void (*respell)(const char *db, char *out, size_t size);
	/* A copy of the closed store db whose schema says version, its --db into out: 0 or -1. */
	int (*newer)(const char *db, int version, char *out, size_t size);
	/* Remove every store made. */
	void (*fini)(void);
};

static const struct backend *be; /* the backend under test */
static char db[1024];            /* the --db of the running test's store */
static int nstores;              /* stores made so far: their names count up */

static char dir[64]; /* SQLite: the temporary directory of this run */

static int
sqlite_init(void)
{
	char tmpl[] = "/tmp/hokito-contract-XXXXXX";

	if (mkdtemp(tmpl) == NULL) {
		perror("mkdtemp");
		return -1;
	}
	snprintf(dir, sizeof dir, "%s", tmpl);
	return 0;
}

static int
sqlite_fresh(char *out, size_t size)
{
	snprintf(out, size, "%s/t%d.db", dir, ++nstores);
	return 0;
}

static void
sqlite_respell(const char *path, char *out, size_t size)
{
	snprintf(out, size, "sqlite:%s", path);
}

/* A copy of the file (closed: its WAL is in it), then PRAGMA user_version on the copy. */
static int
sqlite_newer(const char *path, int version, char *out, size_t size)
{
	FILE *from = fopen(path, "rb"), *to;
	char buf[8192], sql[64];
	sqlite3 *h;
	size_t n;
	int rc;

	sqlite_fresh(out, size);
	to = fopen(out, "wb");
	if (from == NULL || to == NULL) {
		perror(path);
		if (from != NULL)
			fclose(from);
		if (to != NULL)
			fclose(to);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof buf, from)) > 0)
		fwrite(buf, 1, n, to);
	fclose(from);
	if (fclose(to) != 0)
		return -1;
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", version);
	if (sqlite3_open(out, &h) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
	sqlite3_close(h);
	return rc == SQLITE_OK ? 0 : -1;
}

static void
sqlite_fini(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
}

static char pg_uri[1024]; /* $HOKITO_TEST_PG_URI: where the fresh databases are made from */

/* The URI of database name on the same server as the same role: pg_uri with another path. */
static int
pg_uri_of(const char *name, char *out, size_t size)
{
	const char *auth = strstr(pg_uri, "://"), *path, *query;

	if (auth == NULL || (path = strchr(auth + 3, '/')) == NULL)
		return -1;
	query = path + strcspn(path, "?");
	snprintf(out, size, "%.*s/%s%s", (int)(path - pg_uri), pg_uri, name, query);
	return 0;
}

/* The database name of a URI of pg_uri_of(), into out. */
static void
pg_name_of(const char *uri, char *out, size_t size)
{
	const char *path = strchr(strstr(uri, "://") + 3, '/') + 1;

	snprintf(out, size, "%.*s", (int)strcspn(path, "?"), path);
}

/* Run sql on the database of uri: 0, or -1 after saying why. */
static int
pg_run(const char *uri, const char *sql)
{
	PGconn *c = PQconnectdb(uri);
	PGresult *r;
	int ok;

	if (PQstatus(c) != CONNECTION_OK) {
		printf("# cannot connect to the test's PostgreSQL: %s", PQerrorMessage(c));
		PQfinish(c);
		return -1;
	}
	r = PQexec(c, sql);
	ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
	if (!ok)
		printf("# %s: %s", sql, PQresultErrorMessage(r));
	PQclear(r);
	PQfinish(c);
	return ok ? 0 : -1;
}

static int
pg_init(void)
{
	const char *uri = getenv("HOKITO_TEST_PG_URI");
	char probe[1024];

	if (uri == NULL || *uri == '\0') {
		printf("# HOKITO_TEST_PG_URI is not set: run this through "
		       "`python3 tests/pgtmp.py run -- test-store-contract pg`\n");
		return -1;
	}
	snprintf(pg_uri, sizeof pg_uri, "%s", uri);
	if (pg_uri_of("x", probe, sizeof probe) < 0) {
		printf("# HOKITO_TEST_PG_URI names no database (postgresql://ROLE@HOST/DB?...)\n");
		return -1;
	}
	return pg_run(pg_uri, "SELECT 1");
}

/* CREATE DATABASE hokito_tN, as the URI's role (tests/pgtmp.py gives it CREATEDB). */
static int
pg_fresh(char *out, size_t size)
{
	char name[32], sql[64];

	snprintf(name, sizeof name, "hokito_t%d", ++nstores);
	snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
	if (pg_run(pg_uri, sql) < 0)
		return -1;
	return pg_uri_of(name, out, size);
}

static void
pg_respell(const char *uri, char *out, size_t size)
{
	if (strncmp(uri, "postgresql://", 13) == 0)
		snprintf(out, size, "postgres://%s", uri + 13);
	else
		snprintf(out, size, "%s", uri);
}

/* A copy made with the store as its template, then its schema row (hokito_meta) set. */
static int
pg_newer(const char *uri, int version, char *out, size_t size)
{
	char from[64], name[32], sql[160];

	pg_name_of(uri, from, sizeof from);
	snprintf(name, sizeof name, "hokito_t%d", ++nstores);
	snprintf(sql, sizeof sql, "CREATE DATABASE %s TEMPLATE %s", name, from);
	if (pg_run(pg_uri, sql) < 0 || pg_uri_of(name, out, size) < 0)
		return -1;
	snprintf(sql, sizeof sql, "UPDATE hokito_meta SET value = %d WHERE key = 'schema'",
	         version);
	return pg_run(out, sql);
}

static void
pg_fini(void)
{
	char sql[80];

	for (int i = 1; i <= nstores; i++) {
		snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS hokito_t%d WITH (FORCE)", i);
		pg_run(pg_uri, sql);
	}
}

static const struct backend backends[] = {
        {"sqlite", "sqlite", sqlite_init, sqlite_fresh, sqlite_respell, sqlite_newer, sqlite_fini},
        {"pg", "postgresql", pg_init, pg_fresh, pg_respell, pg_newer, pg_fini},
};

/* --- A store and its write port, and the writes of a game through it. */

struct st {
	struct store_db *s;
	struct store_write_port w;
};

/* A write port op on t: W(t, game_add, &g, &err). */
#define W(t, op, ...) ((t).w.op((t).w.impl, __VA_ARGS__))

/* The read port op on r: R(r, history, &q, ...). */
#define R(r, op, ...) ((r).op((r).impl, __VA_ARGS__))

/* A new store for the running test into db. */
#define FRESH() ASSERT_EQ(be->fresh(db, sizeof db), 0)

/*
 * What the running test opened and has not closed yet (st_open(), reader()), closed after it by
 * leave(): a failed assertion leaves its test at once, and what it opened would leak.
 */
#define LEFT_MAX 8
static struct store_db *left_db[LEFT_MAX];
static struct store_read_port left_rd[LEFT_MAX];

/*
 * Open the store dbtext with o (NULL: a writer that may create) into t; close with st_close().
 * A store closed just before may still be held for a moment: PostgreSQL releases a session's
 * lock when the server's process of that session has ended, after the close returned. That
 * wait (STORE_ECONFLICT, at most 5 s) is said as a TAP comment; no test opens a store that
 * another of its own holds.
 */
static int
st_open(struct st *t, const char *dbtext, const struct store_db_options *o, struct store_error *err)
{
	struct timespec pause = {0, 10000000};
	int rc = store_db_open(dbtext, o, &t->s, err), waited = 0;

	while (rc == STORE_ECONFLICT && waited < 500) {
		nanosleep(&pause, NULL);
		waited++;
		rc = store_db_open(dbtext, o, &t->s, err);
	}
	if (waited > 0)
		printf("# the store was held for %d ms after its close\n", waited * 10);
	if (rc < 0) {
		printf("# %s\n", err->text);
		return rc;
	}
	store_db_write_port(t->s, &t->w);
	for (int i = 0; i < LEFT_MAX; i++)
		if (left_db[i] == NULL) {
			left_db[i] = t->s;
			break;
		}
	return 0;
}

/* Close the store of st_open(). */
static void
st_close(struct st *t)
{
	for (int i = 0; i < LEFT_MAX; i++)
		if (left_db[i] == t->s)
			left_db[i] = NULL;
	store_db_close(t->s);
	t->s = NULL;
}

/* Commit before start(): durable at return, so without a ticket (-100 if one came). */
static int
commit(struct st *t, struct store_error *err)
{
	uint64_t ticket = 99;
	int rc = W(*t, commit, &ticket, err);

	if (rc < 0)
		printf("# commit: %s\n", err->text);
	return rc < 0 ? rc : ticket != 0 ? -100 : 0;
}

/* The write that rc tells of, then the commit: the first failure of the two. */
static int
then_commit(struct st *t, int rc, struct store_error *err)
{
	return rc < 0 ? rc : commit(t, err);
}

/*
 * The outcome of a write whose rc is given, in a transaction of its own: a refusal at the call,
 * or at the commit (a backend may learn only there what the store holds), after which the
 * transaction is given up (rollback()); or 0, committed.
 */
static int
refused(struct st *t, int rc, struct store_error *err)
{
	if ((rc = then_commit(t, rc, err)) < 0) {
		printf("# refused: %s\n", err->text);
		t->w.rollback(t->w.impl);
	}
	return rc;
}

/* A reader of t's store (store_db_reader_open()), for the checks; close it with rd_close(). */
static int
reader(struct st *t, struct store_read_port *out)
{
	struct store_error err;
	int rc = store_db_reader_open(t->s, out, &err);

	if (rc < 0) {
		printf("# reader: %s\n", err.text);
		return rc;
	}
	for (int i = 0; i < LEFT_MAX; i++)
		if (left_rd[i].impl == NULL) {
			left_rd[i] = *out;
			break;
		}
	return 0;
}

/* Close a reader of reader(). */
static void
rd_close(struct store_read_port *rd)
{
	for (int i = 0; i < LEFT_MAX; i++)
		if (left_rd[i].impl == rd->impl)
			left_rd[i].impl = NULL;
	rd->close(rd->impl);
}

/* After a test: close what it left open, its readers first. */
static void
leave(void)
{
	for (int i = 0; i < LEFT_MAX; i++)
		if (left_rd[i].impl != NULL) {
			left_rd[i].close(left_rd[i].impl);
			left_rd[i].impl = NULL;
		}
	for (int i = 0; i < LEFT_MAX; i++) {
		store_db_close(left_db[i]);
		left_db[i] = NULL;
	}
}

/* A finished game without events between seats (player id, account: 0 a guest), ended then. */
static int
add_between(struct st *t, const char *id, int priv, const char *p0, int64_t a0, const char *p1,
            int64_t a1, int64_t ended)
{
	struct store_game g = {.kind = GAME_HOKITO, .is_private = priv, .created_ms = ended - 1};
	int rc;

	snprintf(g.id, sizeof g.id, "%s", id);
	snprintf(g.variant, sizeof g.variant, "standard");
	if (priv)
		snprintf(g.code, sizeof g.code, "CODE%s", id);
	if ((rc = W(*t, game_add, &g, NULL)) < 0 ||
	    (rc = W(*t, seat_set, id, 0, p0, p0, a0, NULL)) < 0 ||
	    (rc = W(*t, seat_set, id, 1, p1, p1, a1, NULL)) < 0)
		return rc;
	return W(*t, game_finish, id, ended, "win", 0, "resign", NULL, NULL);
}

/* An account of id and name (its key and skeleton the name), of kind "account" or "bot". */
static int
add_account(struct st *t, int64_t id, const char *name, const char *kind, int64_t created,
            struct store_error *err)
{
	struct store_account a = {.id = id, .created_ms = created};

	snprintf(a.name, sizeof a.name, "%s", name);
	snprintf(a.key, sizeof a.key, "%s", name);
	snprintf(a.skeleton, sizeof a.skeleton, "%s", name);
	snprintf(a.hash, sizeof a.hash, "$argon2id$v=19$m=19456,t=2,p=1$x$y");
	snprintf(a.kind, sizeof a.kind, "%s", kind);
	return W(*t, account_add, &a, err);
}

/* A session of player_id at game_id, seat. */
static struct store_session
session_of(const char *token, const char *player_id, const char *name, const char *game_id,
           int seat, int64_t account)
{
	struct store_session s = {.seat = seat, .updated_ms = 7, .account = account};

	snprintf(s.token, sizeof s.token, "%s", token);
	snprintf(s.player_id, sizeof s.player_id, "%s", player_id);
	snprintf(s.name, sizeof s.name, "%s", name);
	snprintf(s.game_id, sizeof s.game_id, "%s", game_id);
	return s;
}

/* Whether c is a letter, a digit or '_': a part of a word. */
static int
word_char(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* Whether text has word in it, not as a part of a longer word or number. */
static int
mentions(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(text, word); p != NULL; p = strstr(p + 1, word))
		if ((p == text || !word_char(p[-1])) && !word_char(p[n]))
			return 1;
	return 0;
}

/* The ids load() handed out, as "g1 g3". */
static const char *
loaded_ids(const struct loaded *l, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < l->n; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", l->g[i].id);
	return buf;
}

/* The sessions sessions_load() handed out. */
struct sessions {
	int n;
	struct store_session s[8];
};

static int
session_cb(void *ctx, const struct store_session *s)
{
	struct sessions *l = ctx;

	if (l->n < 8)
		l->s[l->n] = *s;
	l->n++;
	return 0;
}

/* The accounts accounts_load() handed out. */
struct accounts {
	int n;
	struct store_account a[8];
};

static int
account_cb(void *ctx, const struct store_account *a)
{
	struct accounts *l = ctx;

	if (l->n < 8)
		l->a[l->n] = *a;
	l->n++;
	return 0;
}

/* ratings_load()'s rows of accounts 1..4, by account. */
static int
rating_cb(void *ctx, const struct store_rating *r)
{
	struct store_rating *rows = ctx;

	if (r->account >= 1 && r->account <= 4)
		rows[r->account - 1] = *r;
	return 0;
}

/* rated_pairs_load(): the count and the last pair, ctx[0..3]. */
static int
pair_cb(void *ctx, int64_t a, int64_t b, int64_t ended_ms)
{
	int64_t *got = ctx;

	got[0]++;
	got[1] = a;
	got[2] = b;
	got[3] = ended_ms;
	return 0;
}

/* store_db_check()'s findings, said as TAP comments. */
static void
found_cb(void *ctx, const char *text)
{
	(void)ctx;
	printf("# check: %s\n", text);
}

/* hokitod --check of the store db: its number of findings, or its error. */
static int
check(const char *dbtext)
{
	struct store_error err;
	int rc = store_db_check(dbtext, found_cb, NULL, &err);

	if (rc < 0)
		printf("# check: %s\n", err.text);
	return rc;
}

/* --- The tests. */

/*
 * Two games (one live, one finished), a session and a counter; committed, the store reopened
 * (through the other spelling of its --db): the load gives them back replayed, and the session
 * and the counter. What is not committed is lost, and nothing else: a rollback, a close.
 */
TEST(contract_reload)
{
	struct game live, done;
	struct store_error err;
	struct st t;
	struct loaded l = {0};
	struct sessions ss = {0};
	struct rng rng;
	int64_t seq1 = 3, seq2 = 3, v;
	char text[GAME_TEXT_MAX], again[1024];

	rng_init(&rng, 9);
	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_STR_EQ(store_db_backend(t.s), be->name);
	ASSERT(store_db_schema(t.s) > 0);
	ASSERT_EQ(store_db_is_temporary(t.s), 0);
	ASSERT_EQ(t.w.is_temporary(t.w.impl), 0);
	ASSERT_EQ(add_game(&t.w, "g1", GAME_HOKITO, 1, 1000), 0);
	ASSERT_EQ(add_game(&t.w, "g2", GAME_OXONO, 2, 1001), 0);
	game_start(&live, GAME_HOKITO, NULL, 1, NULL);
	game_start(&done, GAME_OXONO, NULL, 2, NULL);
	ASSERT_EQ(play(&t.w, "g1", &live, &seq1, 6, &rng), 0);
	ASSERT_EQ(play(&t.w, "g2", &done, &seq2, 100, &rng), 0);
	ASSERT(game_over(&done));
	ASSERT_EQ(finish(&t.w, "g2", &done, &seq2, 5000), 0);
	{
		struct store_session s =
		        session_of("0123456789abcdef0123456789abcdef", "p1", "alice", "g1", 0, 0);
		ASSERT_EQ(W(t, session_set, &s, &err), 0);
	}
	ASSERT_EQ(W(t, meta_set, "next_game", 3, &err), 0);
	ASSERT(t.w.pending(t.w.impl) > 10);
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(t.w.pending(t.w.impl), 0);
	ASSERT_EQ(commit(&t, &err), 0); /* nothing queued: nothing to do */
	/* given up: a rollback, and the store takes writes again */
	{
		struct game more = live;
		int64_t seq = seq1;
		ASSERT_EQ(play(&t.w, "g1", &more, &seq, 1, &rng), 0);
		ASSERT_EQ(W(t, meta_set, "next_game", 99, &err), 0);
		ASSERT(t.w.pending(t.w.impl) > 0);
		t.w.rollback(t.w.impl);
		ASSERT_EQ(t.w.pending(t.w.impl), 0);
		ASSERT_EQ(W(t, meta_set, "after_rollback", 1, &err), 0);
		ASSERT_EQ(commit(&t, &err), 0);
		/* written but never committed: lost at close, and only that */
		seq = seq1;
		more = live;
		ASSERT_EQ(play(&t.w, "g1", &more, &seq, 1, &rng), 0);
	}
	st_close(&t);

	be->respell(db, again, sizeof again);
	{
		struct store_db_options o = {STORE_FSYNC_ALWAYS, 1, 1};
		ASSERT_EQ(st_open(&t, again, &o, &err), 0);
	}
	ASSERT_EQ(W(t, load, 10, load_cb, &l, &err), 2);
	ASSERT_EQ(l.n, 2);
	ASSERT_STR_EQ(l.g[0].id, "g1");
	ASSERT_STR_EQ(l.g[0].status, "live");
	ASSERT_EQ(l.g[0].kind, GAME_HOKITO);
	ASSERT_EQ(l.g[0].seed, 1);
	ASSERT_EQ(l.g[0].created_ms, 1000);
	ASSERT_STR_EQ(l.g[0].seat_id[0], "p1");
	ASSERT_STR_EQ(l.g[0].seat_name[1], "bob");
	ASSERT_EQ(l.g[0].seat_taken[1], 1);
	ASSERT_EQ(l.g[0].seat_account[1], -1); /* a guest's seat */
	ASSERT_EQ(l.g[0].nevents, seq1);
	ASSERT_EQ(l.g[0].ply, 6);
	ASSERT_EQ(l.nev[0], (size_t)seq1);
	game_format(&live, text, sizeof text);
	ASSERT_STR_EQ(l.pos[0], text);
	ASSERT_STR_EQ(l.g[1].id, "g2");
	ASSERT_STR_EQ(l.g[1].status, "finished");
	ASSERT_STR_EQ(l.g[1].result, "win");
	ASSERT_EQ(l.g[1].ended_ms, 5000);
	ASSERT(l.g[1].serial > l.g[0].serial);
	game_format(&done, text, sizeof text);
	ASSERT_STR_EQ(l.pos[1], text);
	ASSERT_STR_EQ(l.last_body[1], "{\"type\":\"game_over\"}");
	/* recent = 0: only the unfinished game */
	l.n = 0;
	ASSERT_EQ(W(t, load, 0, load_cb, &l, &err), 1);
	ASSERT_EQ(W(t, sessions_load, session_cb, &ss, &err), 1);
	ASSERT_STR_EQ(ss.s[0].token, "0123456789abcdef0123456789abcdef");
	ASSERT_STR_EQ(ss.s[0].name, "alice");
	ASSERT_STR_EQ(ss.s[0].game_id, "g1");
	ASSERT_EQ(ss.s[0].seat, 0);
	ASSERT_EQ(ss.s[0].updated_ms, 7);
	ASSERT_EQ(W(t, meta_get, "next_game", &v, &err), 0);
	ASSERT_EQ(v, 3);
	ASSERT_EQ(W(t, meta_get, "after_rollback", &v, &err), 0);
	ASSERT_EQ(v, 1);
	ASSERT_EQ(W(t, meta_get, "nothing", &v, &err), STORE_ENOTFOUND);
	/* the session goes; one not there is no error */
	ASSERT_EQ(W(t, session_remove, "0123456789abcdef0123456789abcdef", &err), 0);
	ASSERT_EQ(W(t, session_remove, "ffffffffffffffffffffffffffffffff", &err), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	ss.n = 0;
	ASSERT_EQ(W(t, sessions_load, session_cb, &ss, &err), 0);
	st_close(&t);
	ASSERT_EQ(check(db), 0);
}

/*
 * What a start loads: every unfinished game, the `recent` most recently finished public games
 * and private ones, and the finished games a session is still seated at; in creation order.
 */
TEST(contract_load_recent)
{
	static const struct {
		const char *id;
		int priv;
		int64_t ended; /* 0: not finished */
	} games[] = {
	        {"g1", 0, 100},  {"g2", 0, 1000}, {"g3", 1, 1500}, {"g4", 0, 3000},
	        {"g5", 1, 2500}, {"g6", 0, 0},    {"g7", 0, 2000},
	};
	struct store_error err;
	struct st t;
	struct loaded l = {0};
	char ids[256];

	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	for (size_t i = 0; i < sizeof games / sizeof games[0]; i++) {
		struct store_game g = {.kind = GAME_OXONO, .seed = i, .created_ms = 10 + (int)i};
		int64_t seq = 3;

		snprintf(g.id, sizeof g.id, "%s", games[i].id);
		snprintf(g.variant, sizeof g.variant, "standard");
		g.is_private = games[i].priv;
		if (g.is_private)
			snprintf(g.code, sizeof g.code, "CODE%zu", i);
		ASSERT_EQ(add_seated(&t.w, &g, 0, 0), 0);
		if (games[i].ended > 0)
			ASSERT_EQ(finish_as(&t.w, g.id, &seq, games[i].ended, "win"), 0);
	}
	{
		struct store_session s = session_of("t1", "p1", "alice", "g1", 0, 0);
		ASSERT_EQ(W(t, session_set, &s, &err), 0);
	}
	ASSERT_EQ(commit(&t, &err), 0);
	st_close(&t);
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(W(t, load, 1, load_cb, &l, &err), 4);
	ASSERT_STR_EQ(loaded_ids(&l, ids, sizeof ids), "g1 g4 g5 g6");
	l.n = 0;
	ASSERT_EQ(W(t, load, 2, load_cb, &l, &err), 6);
	ASSERT_STR_EQ(loaded_ids(&l, ids, sizeof ids), "g1 g3 g4 g5 g6 g7");
	l.n = 0;
	ASSERT_EQ(W(t, load, 0, load_cb, &l, &err), 2);
	ASSERT_STR_EQ(loaded_ids(&l, ids, sizeof ids), "g1 g6");
	ASSERT_STR_EQ(l.g[0].result, "win");
	ASSERT_STR_EQ(l.g[0].reason, "resign");
	ASSERT_EQ(l.g[0].winner, 0);
	st_close(&t);
}

/*
 * Arguments that would break the store's rules are refused at the call (STORE_EINVAL), and the
 * transaction goes on; a write about a game that is not there is STORE_ENOTFOUND, at the call or
 * at the commit; so are the reads of one, and a --db that names no backend is STORE_EINVAL.
 */
TEST(contract_refusals)
{
	struct store_event ev = {.seq = 5, .time_ms = 1, .type = "moved", .move = "a1-a3"};
	struct store_error err;
	struct store_read_port rd;
	struct store_event *evs;
	struct st t, other;
	char text[RECORD_TEXT_MAX], name[200];
	size_t n;
	int64_t v;

	FRESH();
	{
		struct store_db_options o = {STORE_FSYNC_NORMAL, 1, 1};
		ASSERT_EQ(store_db_open(db, &o, &other.s, &err), STORE_ENOTFOUND); /* none yet */
		ASSERT(other.s == NULL);
	}
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(add_game(&t.w, "g1", GAME_HOKITO, 1, 1000), 0);
	ev.body = "{}";
	ASSERT_EQ(W(t, event_add, "g1", &ev, &err), STORE_EINVAL); /* event 4 is missing */
	ev.seq = 4;
	ev.type = "seated";
	ASSERT_EQ(W(t, event_add, "g1", &ev, &err), STORE_EINVAL); /* a move not with "moved" */
	ev.type = "moved";
	ev.move = NULL;
	ASSERT_EQ(W(t, event_add, "g1", &ev, &err), STORE_EINVAL); /* "moved" without a move */
	ev.move = "a1-a3";
	ASSERT_EQ(W(t, seat_set, "g1", 2, "p1", "x", 0, &err), STORE_EINVAL);
	memset(name, 'x', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	ASSERT_EQ(W(t, seat_set, "g1", 0, "p1", name, 0, &err), STORE_EINVAL);
	ASSERT_EQ(W(t, status_set, "g1", "finished", &err), STORE_EINVAL);
	ASSERT_EQ(W(t, status_set, "g1", "paused", &err), STORE_EINVAL);
	ASSERT_EQ(W(t, game_finish, "g1", 5, "win", 2, "resign", NULL, &err), STORE_EINVAL);
	{
		struct store_game g = {.kind = GAME_HOKITO};
		snprintf(g.variant, sizeof g.variant, "standard");
		ASSERT_EQ(W(t, game_add, &g, &err), STORE_EINVAL); /* no id */
		snprintf(g.id, sizeof g.id, "g2");
		snprintf(g.variant, sizeof g.variant, "nonesuch");
		ASSERT_EQ(W(t, game_add, &g, &err), STORE_EINVAL);
		snprintf(g.variant, sizeof g.variant, "standard");
		g.kind = (enum game_kind)99;
		ASSERT_EQ(W(t, game_add, &g, &err), STORE_EINVAL);
	}
	{
		struct store_session s = session_of("t1", "p1", "alice", "g1", 2, 0);
		ASSERT_EQ(W(t, session_set, &s, &err), STORE_EINVAL);
	}
	{
		struct store_rating_change c = {.seat = 2, .account = 1, .score = 1};
		ASSERT_EQ(W(t, rating_change, "g1", &c, 1, &err), STORE_EINVAL);
	}
	/* the transaction goes on */
	ASSERT_EQ(W(t, event_add, "g1", &ev, &err), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(W(t, meta_get, "nothing", &v, &err), STORE_ENOTFOUND);
	/* a write about a game that is not there: at the call or at the commit */
	ASSERT_EQ(refused(&t, W(t, event_add, "g9", &ev, &err), &err), STORE_ENOTFOUND);
	ASSERT_EQ(refused(&t, W(t, seat_set, "g9", 0, "p1", "x", 0, &err), &err), STORE_ENOTFOUND);
	ASSERT_EQ(refused(&t, W(t, status_set, "g9", "live", &err), &err), STORE_ENOTFOUND);
	ASSERT_EQ(refused(&t, W(t, game_finish, "g9", 5, "win", 0, "resign", NULL, &err), &err),
	          STORE_ENOTFOUND);
	ASSERT_EQ(reader(&t, &rd), 0);
	ASSERT_EQ(rd.loop_only, 0);
	ASSERT_EQ(R(rd, events, "g1", NULL, &evs, &n, &err), 0);
	ASSERT_EQ(n, 4);
	ASSERT_STR_EQ(evs[3].type, "moved");
	ASSERT_STR_EQ(evs[3].move, "a1-a3");
	store_events_free(evs, n);
	ASSERT_EQ(R(rd, events, "g7", NULL, &evs, &n, &err), STORE_ENOTFOUND);
	ASSERT(evs == NULL);
	ASSERT_EQ(R(rd, record, "g7", NULL, text, sizeof text, &err), STORE_ENOTFOUND);
	/* the reads refuse what is out of range */
	{
		struct store_history_query q = {.limit = 5, .offset = -1};
		struct store_history_page pg;
		struct store_game page[5];
		ASSERT_EQ(R(rd, history, &q, page, &pg, &err), STORE_EINVAL);
	}
	{
		struct store_board_query q = {.kind = (enum game_kind)99, .limit = 5};
		struct store_board_entry e[5];
		int more;
		ASSERT_EQ(R(rd, leaderboard, &q, e, &more, &err), STORE_EINVAL);
	}
	rd_close(&rd);
	st_close(&t);
	store_db_close(NULL);
	/* a --db that names no backend */
	ASSERT_EQ(store_db_open("nosuch://somewhere", NULL, &other.s, &err), STORE_EINVAL);
	ASSERT_EQ(store_db_open("sqlite:", NULL, &other.s, &err), STORE_EINVAL);
}

/*
 * A turn refused by the store at its commit (a write about a game that is not there, which a
 * backend may learn only there) leaves the store as it was, and working: the start-up reads
 * answer, the next commit holds.
 */
TEST(contract_refused_commit)
{
	struct store_event ev = {.seq = 4, .time_ms = 1, .type = "chat", .body = "{}"};
	struct loaded l = {0};
	struct store_error err;
	struct st t;
	int64_t v;

	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(add_game(&t.w, "g1", GAME_HOKITO, 1, 1000), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(W(t, meta_set, "next_game", 5, &err), 0);
	ASSERT_EQ(refused(&t, W(t, status_set, "g9", "live", &err), &err), STORE_ENOTFOUND);
	ASSERT_EQ(W(t, meta_get, "next_game", &v, &err), STORE_ENOTFOUND);
	ASSERT_EQ(W(t, load, 1, load_cb, &l, &err), 1);
	ASSERT_EQ(l.nev[0], 3);
	ASSERT_EQ(W(t, event_add, "g1", &ev, &err), 0);
	ASSERT_EQ(W(t, meta_set, "next_game", 6, &err), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(W(t, meta_get, "next_game", &v, &err), 0);
	ASSERT_EQ(v, 6);
	st_close(&t);
}

/*
 * Where a game's events stand comes from the store after a reopen; a body given with its
 * length is stored as exactly those bytes; a finished game still takes events (a rematch
 * offer), in order.
 */
TEST(contract_events)
{
	struct store_event ev = {.time_ms = 1, .type = "rematch_offered"};
	struct store_history_query q = {.limit = 1};
	struct store_history_page pg;
	struct store_read_port rd;
	struct store_game page[1];
	struct store_event *evs;
	struct store_error err;
	struct st t;
	struct game g;
	struct rng rng;
	int64_t seq = 3;
	size_t n;
	int moves = 0;

	rng_init(&rng, 11);
	game_start(&g, GAME_HOKITO, "standard", 3, NULL);
	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(add_game(&t.w, "g1", GAME_HOKITO, 3, 1000), 0);
	ASSERT_EQ(play(&t.w, "g1", &g, &seq, 4, &rng), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	st_close(&t);
	/* reopened: where g1 stands comes from the store */
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ev.seq = seq + 2;
	ev.body = "{}";
	ASSERT_EQ(refused(&t, W(t, event_add, "g1", &ev, &err), &err), STORE_EINVAL);
	ASSERT_EQ(play(&t.w, "g1", &g, &seq, 2, &rng), 0);
	ev.seq = ++seq;
	ev.body = "{\"type\":\"chat\"}trailing bytes";
	ev.body_len = strlen("{\"type\":\"chat\"}");
	ev.type = "chat";
	ASSERT_EQ(W(t, event_add, "g1", &ev, &err), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(reader(&t, &rd), 0);
	ASSERT_EQ(R(rd, events, "g1", NULL, &evs, &n, &err), 0);
	ASSERT_EQ(n, 10);
	for (size_t i = 0; i < n; i++) {
		ASSERT_EQ(evs[i].seq, (int64_t)i + 1);
		moves += evs[i].move != NULL;
	}
	ASSERT_EQ(moves, 6);
	ASSERT_EQ(evs[9].body_len, strlen("{\"type\":\"chat\"}"));
	ASSERT(memcmp(evs[9].body, "{\"type\":\"chat\"}", evs[9].body_len) == 0);
	ASSERT_STR_EQ(evs[9].type, "chat");
	ASSERT(evs[9].move == NULL);
	ASSERT_EQ(evs[9].time_ms, 1);
	store_events_free(evs, n);
	rd_close(&rd);
	/* finished: later events still follow on */
	ASSERT_EQ(play(&t.w, "g1", &g, &seq, 1000, &rng), 0);
	ASSERT_EQ(finish(&t.w, "g1", &g, &seq, 5000), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	ev.body_len = 0;
	ev.body = "{}";
	ev.type = "rematch_offered";
	ev.seq = seq + 2;
	ASSERT_EQ(refused(&t, W(t, event_add, "g1", &ev, &err), &err), STORE_EINVAL);
	ev.seq = ++seq;
	ASSERT_EQ(W(t, event_add, "g1", &ev, &err), 0);
	ev.seq = ++seq;
	ASSERT_EQ(W(t, event_add, "g1", &ev, &err), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	st_close(&t);
	/* the store adds up (events 1..n) and the game replays */
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(reader(&t, &rd), 0);
	ASSERT_EQ(R(rd, history, &q, page, &pg, &err), 1);
	ASSERT_STR_EQ(page[0].id, "g1");
	ASSERT_STR_EQ(page[0].status, "finished");
	ASSERT_EQ(page[0].nevents, seq);
	ASSERT_EQ(R(rd, events, "g1", NULL, &evs, &n, &err), 0);
	ASSERT_EQ((int64_t)n, seq);
	ASSERT_STR_EQ(evs[n - 1].type, "rematch_offered");
	store_events_free(evs, n);
	{
		struct loaded l = {0};
		ASSERT_EQ(W(t, load, 1, load_cb, &l, &err), 1);
		ASSERT_EQ(l.nev[0], (size_t)seq);
	}
	rd_close(&rd);
	st_close(&t);
}

/*
 * History on a reader: pages by offset and by key (the cursor of each page's last game, through
 * its text), most recently finished first and the last created first among games that ended at
 * the same time; the total is the kept count; a private game is neither listed nor counted. The
 * reader sees what is committed, and only that: history, records and events.
 */
TEST(contract_history)
{
	char ids[40][STORE_ID_MAX], text[RECORD_TEXT_MAX];
	const struct store_viewer nobody = {0};
	struct store_history_query q = {.limit = 10};
	struct store_history_page pg;
	struct store_read_port rd;
	struct store_game page[10];
	struct store_event *evs;
	struct store_error err;
	struct store_cursor c;
	struct st t;
	struct rng rng;
	int64_t total, seq26 = 3;
	size_t n;

	rng_init(&rng, 4);
	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	for (int i = 0; i < 25; i++) {
		char id[16];
		struct game g;
		int64_t seq = 3;
		snprintf(id, sizeof id, "g%d", i + 1);
		ASSERT_EQ(add_game(&t.w, id, (enum game_kind)(i % 2), (uint64_t)i, 1000 + i), 0);
		game_start(&g, (enum game_kind)(i % 2), NULL, (uint64_t)i, NULL);
		ASSERT_EQ(play(&t.w, id, &g, &seq, 100, &rng), 0);
		/* g11..g15 end at the same time: the creation order decides among them */
		ASSERT_EQ(finish(&t.w, id, &g, &seq, i >= 10 && i < 15 ? 50000 : 100000 - i), 0);
	}
	ASSERT_EQ(add_game(&t.w, "g26", GAME_HOKITO, 1, 2000), 0); /* live: not history */
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(reader(&t, &rd), 0);
	/* by offset */
	ASSERT_EQ(R(rd, history, &q, page, &pg, &err), 10);
	ASSERT_EQ(pg.total, 25);
	ASSERT_EQ(pg.more, 1);
	ASSERT_STR_EQ(page[0].id, "g1");
	ASSERT_STR_EQ(page[0].status, "finished");
	ASSERT_STR_EQ(page[9].id, "g10");
	q.offset = 20;
	ASSERT_EQ(R(rd, history, &q, page, &pg, &err), 5);
	ASSERT_STR_EQ(page[4].id, "g11");
	ASSERT_EQ(pg.more, 0);
	q.offset = 30;
	ASSERT_EQ(R(rd, history, &q, page, &pg, &err), 0);
	q.offset = (int64_t)1 << 62;
	ASSERT_EQ(R(rd, history, &q, page, &pg, &err), 0);
	ASSERT_EQ(pg.total, 25);
	q = (struct store_history_query){.limit = 0};
	ASSERT_EQ(R(rd, history, &q, page, &pg, &err), 0);
	ASSERT_EQ(pg.total, 25);
	/* by key */
	for (size_t limit = 1; limit <= 10; limit += 3) {
		ASSERT_EQ(walk_history(&rd, limit, ids, &total), 25);
		ASSERT_EQ(total, 25);
		ASSERT_STR_EQ(ids[0], "g1");
		ASSERT_STR_EQ(ids[9], "g10");
		ASSERT_STR_EQ(ids[10], "g16"); /* 99984 */
		ASSERT_STR_EQ(ids[19], "g25");
		ASSERT_STR_EQ(ids[20], "g15"); /* the five of 50000, the last created first */
		ASSERT_STR_EQ(ids[24], "g11");
	}
	/* the offset counts from the cursor; a full last page says no more */
	q = (struct store_history_query){.limit = 10, .has_after = 1, .offset = 1};
	{
		struct store_history_query all = {.limit = 10, .offset = 19};
		ASSERT_EQ(R(rd, history, &all, page, &pg, &err), 6);
		ASSERT_STR_EQ(page[2].id, "g14");
		q.after = (struct store_cursor){.ended_ms = page[2].ended_ms,
		                                .serial = page[2].serial};
	}
	ASSERT_EQ(R(rd, history, &q, page, &pg, &err), 2);
	ASSERT_STR_EQ(page[0].id, "g12");
	ASSERT_EQ(pg.more, 0);
	/* a private finished game is neither listed nor counted; nothing is seen before its
	 * commit */
	{
		struct store_game g = {.kind = GAME_HOKITO, .is_private = 1, .created_ms = 5};
		struct store_event ev = {.seq = 4, .time_ms = 3000, .type = "chat", .body = "{}"};
		snprintf(g.id, sizeof g.id, "g27");
		snprintf(g.variant, sizeof g.variant, "standard");
		snprintf(g.code, sizeof g.code, "K7Q2MX9P");
		ASSERT_EQ(W(t, game_add, &g, &err), 0);
		ASSERT_EQ(W(t, game_finish, "g27", 200000, "aborted", -1, "abort", NULL, &err), 0);
		ASSERT_EQ(add_game(&t.w, "g28", GAME_OXONO, 3, 6), 0);
		ASSERT_EQ(W(t, game_finish, "g28", 300000, "aborted", -1, "abort", NULL, &err), 0);
		ASSERT_EQ(W(t, event_add, "g26", &ev, &err), 0);
		seq26 = 4;
	}
	q = (struct store_history_query){.limit = 3};
	ASSERT_EQ(R(rd, history, &q, page, &pg, &err), 3);
	ASSERT_STR_EQ(page[0].id, "g1");
	ASSERT_EQ(pg.total, 25);
	ASSERT_EQ(pg.more, 1);
	ASSERT_EQ(R(rd, record, "g28", NULL, text, sizeof text, &err), STORE_ENOTFOUND);
	ASSERT_EQ(R(rd, events, "g28", NULL, &evs, &n, &err), STORE_ENOTFOUND);
	ASSERT_EQ(R(rd, events, "g26", NULL, &evs, &n, &err), 0);
	ASSERT_EQ(n, 3);
	store_events_free(evs, n);
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(R(rd, history, &q, page, &pg, &err), 3);
	ASSERT_STR_EQ(page[0].id, "g28");
	ASSERT_STR_EQ(page[1].id, "g1");
	ASSERT_EQ(pg.total, 26);
	ASSERT_EQ(R(rd, events, "g26", NULL, &evs, &n, &err), 0);
	ASSERT_EQ((int64_t)n, seq26);
	store_events_free(evs, n);
	/* records: by id, a private game only for a viewer who held a seat (NULL: anyone) */
	ASSERT(R(rd, record, "g1", &nobody, text, sizeof text, &err) > 0);
	ASSERT(strstr(text, "[Black \"alice\"]") != NULL);
	ASSERT_EQ(R(rd, record, "g27", &nobody, text, sizeof text, &err), STORE_ENOTFOUND);
	ASSERT(R(rd, record, "g27", NULL, text, sizeof text, &err) > 0);
	ASSERT_EQ(R(rd, record, "g99", NULL, text, sizeof text, &err), STORE_ENOTFOUND);
	rd_close(&rd);
	st_close(&t);
	/* cursors: the text round-trips; anything else is refused */
	c = (struct store_cursor){.ended_ms = 1795314657655, .serial = 12};
	store_cursor_format(&c, text, STORE_CURSOR_TEXT);
	ASSERT_STR_EQ(text, "1795314657655.12");
	{
		static const char *const bad[] = {"",     "1",     "1.",
		                                  ".1",   "1.2.3", "01.2",
		                                  "-1.2", "1.2 ",  "99999999999999999999.1",
		                                  "a.b"};
		struct store_cursor d;
		ASSERT_EQ(store_cursor_parse("0.0", &d), 0);
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
			ASSERT_EQ(store_cursor_parse(bad[i], &d), STORE_EINVAL);
	}
}

/* The record of a stored game parses back to the same game; an unfinished one has no result. */
TEST(contract_record)
{
	static struct record r;
	char text[RECORD_TEXT_MAX], want[GAME_TEXT_MAX], got[GAME_TEXT_MAX];
	struct record_error rerr;
	struct store_read_port rd;
	struct store_error err;
	struct st t;
	struct rng rng;
	struct game g;
	int64_t seq = 3;
	int len;

	rng_init(&rng, 5);
	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(add_game(&t.w, "g1", GAME_HOKITO, 77, 1795305600000), 0); /* 2026-11-22 */
	game_start(&g, GAME_HOKITO, NULL, 77, NULL);
	ASSERT_EQ(play(&t.w, "g1", &g, &seq, 100, &rng), 0);
	ASSERT_EQ(finish(&t.w, "g1", &g, &seq, 1795305900000), 0);
	ASSERT_EQ(add_game(&t.w, "g2", GAME_OXONO, 5, 1795305600000), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(reader(&t, &rd), 0);
	len = R(rd, record, "g1", NULL, text, sizeof text, &err);
	ASSERT(len > 0);
	ASSERT_EQ((size_t)len, strlen(text));
	ASSERT(strstr(text, "[Seed \"77\"]\n[Black \"alice\"]\n[White \"bob\"]\n[Date "
	                    "\"2026-11-22\"]\n") != NULL);
	ASSERT_EQ(record_parse(&r, text, (size_t)len, &rerr), 0);
	game_format(&g, want, sizeof want);
	game_format(&r.final, got, sizeof got);
	ASSERT_STR_EQ(got, want);
	ASSERT_EQ(R(rd, record, "g1", NULL, text, 20, &err), STORE_ENOSPC);
	ASSERT_EQ(R(rd, record, "g9", NULL, text, sizeof text, &err), STORE_ENOTFOUND);
	len = R(rd, record, "g2", NULL, text, sizeof text, &err);
	ASSERT(len > 0);
	ASSERT(strstr(text, "[Result \"*\"]\n\n*\n") != NULL);
	rd_close(&rd);
	st_close(&t);
}

static struct store_game walked[32]; /* history_of()'s games, in order */

/* The ids of history query q, walked page by page (limit 2) into out, as "g6 g4 g1"; the
 * games into walked[]. Returns the total. */
static int64_t
history_of(const struct store_read_port *rp, struct store_history_query q, char *out, size_t size)
{
	struct store_history_page pg;
	struct store_game page[2];
	size_t len = 0, k = 0;
	int n;

	out[0] = '\0';
	q.limit = 2;
	do {
		if ((n = rp->history(rp->impl, &q, page, &pg, NULL)) < 0)
			return n;
		for (int i = 0; i < n; i++) {
			len += (size_t)snprintf(out + len, size - len, "%s%s", len ? " " : "",
			                        page[i].id);
			if (k < sizeof walked / sizeof walked[0])
				walked[k++] = page[i];
		}
		q.has_after = 1;
		q.after = pg.next;
	} while (pg.more);
	return pg.total;
}

/*
 * What the store keeps: each seat's account; history by player and one's own private games,
 * paged by key with totals from the kept counts; a private game's record and events only for
 * those who held a seat in it; a game dropped with its events and counts; --keep-days' sweep of
 * old games without an account, not of those with a session; no serial taken twice; and the
 * check agrees with all of it.
 */
TEST(contract_keep)
{
	struct store_history_query q;
	struct store_read_port rp;
	struct store_error err;
	struct store_session ss;
	struct st t;
	char ids[256];

	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(add_between(&t, "g1", 0, "p1", 1, "p2", 2, 1000), 0);  /* alice - bob */
	ASSERT_EQ(add_between(&t, "g2", 1, "p1", 1, "p2", 2, 2000), 0);  /* private */
	ASSERT_EQ(add_between(&t, "g3", 1, "p1", 1, "p10", 0, 3000), 0); /* alice - guest */
	ASSERT_EQ(add_between(&t, "g4", 0, "p10", 0, "p11", 0, 4000), 0);
	ASSERT_EQ(add_between(&t, "g5", 1, "p10", 0, "p11", 0, 5000), 0);
	ASSERT_EQ(add_between(&t, "g6", 0, "p1", 1, "p3", 1, 6000), 0); /* alice twice */
	ASSERT_EQ(add_between(&t, "g7", 1, "p2", 2, "p11", 0, 7000), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(reader(&t, &rp), 0);
#define HISTORY(...)                                                                               \
	(q = (struct store_history_query){__VA_ARGS__}, history_of(&rp, q, ids, sizeof ids))
	ASSERT_EQ(HISTORY(.limit = 2), 3);
	ASSERT_STR_EQ(ids, "g6 g4 g1");
	ASSERT_EQ(HISTORY(.own_account = 1), 5); /* and alice's private games */
	ASSERT_STR_EQ(ids, "g6 g4 g3 g2 g1");
	ASSERT_STR_EQ(walked[2].id, "g3");
	ASSERT_EQ(walked[2].seat_account[0], 1);
	ASSERT_EQ(walked[2].seat_account[1], -1);
	ASSERT_EQ(walked[2].is_private, 1);
	ASSERT_STR_EQ(walked[2].code, "CODEg3");
	ASSERT_EQ(HISTORY(.own_id = "p10"), 5); /* and the guest's */
	ASSERT_STR_EQ(ids, "g6 g5 g4 g3 g1");
	ASSERT_EQ(HISTORY(.own_account = 1, .by_player = 1, .player_account = 2), 2);
	ASSERT_STR_EQ(ids, "g2 g1"); /* bob's public games, and alice's private ones with him */
	ASSERT_EQ(HISTORY(.own_account = 1, .by_player = 1, .player_account = 1), 4);
	ASSERT_STR_EQ(ids, "g6 g3 g2 g1"); /* alice's own */
	ASSERT_EQ(HISTORY(.own_id = "p10", .by_player = 1, .player_id = "p10"), 3);
	ASSERT_STR_EQ(ids, "g5 g4 g3"); /* a guest's own */
	ASSERT_EQ(HISTORY(.own_id = "p10", .by_player = 1, .player_account = 1), 3);
	ASSERT_STR_EQ(ids, "g6 g3 g1");
	ASSERT_EQ(HISTORY(.own_id = "p11", .by_player = 1, .player_account = 1), 2);
	ASSERT_STR_EQ(ids, "g6 g1"); /* not another's private games */
	ASSERT_EQ(HISTORY(.own_account = 2, .by_player = 1, .player_id = "p10"), 0);
	ASSERT_STR_EQ(ids, ""); /* a guest's games are that guest's to list */
	ASSERT_EQ(HISTORY(.by_player = 1, .player_account = 3), 0); /* no games */
	{
		/* a private game's record and events by id: to the players who held a seat */
		static const struct store_viewer alice = {.account = 1}, bob = {.account = 2},
		                                 carol = {.player_id = "p10"},
		                                 dan = {.player_id = "p11"},
		                                 fake = {.player_id = "p1"};
		char text[RECORD_TEXT_MAX];
		struct store_event *evs;
		size_t n;
		ASSERT(R(rp, record, "g3", &alice, text, sizeof text, &err) > 0);
		ASSERT(R(rp, record, "g3", &carol, text, sizeof text, &err) > 0);
		ASSERT_EQ(R(rp, record, "g3", &bob, text, sizeof text, &err), STORE_ENOTFOUND);
		ASSERT_EQ(R(rp, record, "g3", &dan, text, sizeof text, &err), STORE_ENOTFOUND);
		/* a guest by the player id of an account's seat: no */
		ASSERT_EQ(R(rp, record, "g3", &fake, text, sizeof text, &err), STORE_ENOTFOUND);
		ASSERT_EQ(R(rp, events, "g3", &alice, &evs, &n, &err), 0);
		store_events_free(evs, n);
		ASSERT_EQ(R(rp, events, "g3", &bob, &evs, &n, &err), STORE_ENOTFOUND);
		ASSERT_EQ(R(rp, events, "g3", NULL, &evs, &n, &err), 0);
		store_events_free(evs, n);
		ASSERT(R(rp, record, "g4", &dan, text, sizeof text, &err) > 0); /* public */
	}
	/* a game dropped: its events, its counts */
	ASSERT_EQ(W(t, game_drop, "g2", &err), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(HISTORY(.own_account = 1), 4);
	ASSERT_STR_EQ(ids, "g6 g4 g3 g1");
	/* the sweep: old games without an account, but not one somebody is seated at */
	ss = session_of("t10", "p10", "p10", "g5", 0, 0);
	ASSERT_EQ(W(t, session_set, &ss, &err), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	{
		int swept = W(t, sweep, 4500, 10, &err); /* g4 (0: told only at the commit) */
		ASSERT(swept == 1 || swept == 0);
		ASSERT_EQ(commit(&t, &err), 0);
		swept = W(t, sweep, 10000, 10, &err); /* g5 has a session; the rest accounts */
		ASSERT_EQ(swept, 0);
		ASSERT_EQ(commit(&t, &err), 0);
	}
	ASSERT_EQ(HISTORY(.own_id = "p10"), 4);
	ASSERT_STR_EQ(ids, "g6 g5 g3 g1");
	ASSERT_EQ(W(t, session_remove, "t10", &err), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT(W(t, sweep, 10000, 10, &err) >= 0); /* g5 */
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(HISTORY(.limit = 2), 2);
	ASSERT_STR_EQ(ids, "g6 g1");
	ASSERT_EQ(HISTORY(.own_id = "p10"), 3);
	ASSERT_STR_EQ(ids, "g6 g3 g1");
	/* the last game deleted: its serial is not taken again */
	ASSERT_EQ(HISTORY(.own_account = 2), 3);
	ASSERT_STR_EQ(ids, "g7 g6 g1");
	{
		int64_t last = walked[0].serial;
		ASSERT_EQ(W(t, game_drop, "g7", &err), 0);
		ASSERT_EQ(add_between(&t, "g8", 0, "p20", 0, "p21", 0, 8000), 0);
		ASSERT_EQ(commit(&t, &err), 0);
		ASSERT_EQ(HISTORY(.limit = 2), 3);
		ASSERT_STR_EQ(ids, "g8 g6 g1");
		ASSERT(walked[0].serial > last);
	}
#undef HISTORY
	rd_close(&rp);
	st_close(&t);
	ASSERT_EQ(check(db), 0);
}

/* An account written comes back; a second one of the same key is refused, with nothing of its
 * turn kept; an update changes what it may. */
TEST(contract_accounts)
{
	struct store_account a = {.id = 1, .created_ms = 77};
	struct accounts l = {0};
	struct store_error err;
	struct st t;

	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	snprintf(a.name, sizeof a.name, "Alice_99");
	snprintf(a.key, sizeof a.key, "alice_99");
	snprintf(a.skeleton, sizeof a.skeleton, "a1ice_99");
	snprintf(a.hash, sizeof a.hash, "$argon2id$v=19$m=19456,t=2,p=1$x$y");
	snprintf(a.kind, sizeof a.kind, "account");
	ASSERT_EQ(W(t, account_add, &a, &err), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	a.id = 2;
	ASSERT_EQ(W(t, meta_set, "next_player", 5, &err), 0);
	ASSERT(refused(&t, W(t, account_add, &a, &err), &err) < 0);
	st_close(&t);
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(W(t, accounts_load, account_cb, &l, &err), 1);
	ASSERT_EQ(l.a[0].id, 1);
	ASSERT_STR_EQ(l.a[0].name, "Alice_99");
	ASSERT_STR_EQ(l.a[0].key, "alice_99");
	ASSERT_STR_EQ(l.a[0].skeleton, "a1ice_99");
	ASSERT_STR_EQ(l.a[0].hash, "$argon2id$v=19$m=19456,t=2,p=1$x$y");
	ASSERT_STR_EQ(l.a[0].kind, "account");
	ASSERT_EQ(l.a[0].created_ms, 77);
	ASSERT_EQ(l.a[0].closed_ms, 0);
	ASSERT_EQ(l.a[0].banned_ms, 0);
	{
		int64_t v;
		ASSERT_EQ(W(t, meta_get, "next_player", &v, &err), STORE_ENOTFOUND);
	}
	a.id = 1;
	a.closed_ms = 88;
	a.banned_ms = 99;
	snprintf(a.hash, sizeof a.hash, "$argon2id$v=19$m=19456,t=2,p=1$z$w");
	snprintf(a.kind, sizeof a.kind, "bot");
	ASSERT_EQ(W(t, account_update, &a, &err), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	st_close(&t);
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	l.n = 0;
	ASSERT_EQ(W(t, accounts_load, account_cb, &l, &err), 1);
	ASSERT_EQ(l.a[0].closed_ms, 88);
	ASSERT_EQ(l.a[0].banned_ms, 99);
	ASSERT_STR_EQ(l.a[0].hash, "$argon2id$v=19$m=19456,t=2,p=1$z$w");
	ASSERT_STR_EQ(l.a[0].kind, "bot");
	st_close(&t);
}

/*
 * --unused-account-days: the accounts never used (no finished game, no rating, not a bot's, not
 * closed nor banned, not the newest) in id order up to the first too young, found on a reader by
 * key, then deleted; one used is not deleted.
 */
TEST(contract_unused_accounts)
{
	static const char *const names[] = {"",      "idle",  "player", "closer",
	                                    "robot", "young", "idle2",  "newest"};
	struct store_read_port rd;
	struct accounts l = {0};
	struct store_error err;
	int64_t ids[8], next = 0;
	struct st t;

	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	for (int i = 1; i <= 7; i++) {
		struct store_account a = {.id = i};
		a.created_ms = i == 5 ? 5000 : 100 + i; /* young: made after the time asked */
		a.closed_ms = i == 3 ? 200 : 0;
		snprintf(a.name, sizeof a.name, "%s", names[i]);
		snprintf(a.key, sizeof a.key, "%s", names[i]);
		snprintf(a.skeleton, sizeof a.skeleton, "%s", names[i]);
		snprintf(a.hash, sizeof a.hash, "$argon2id$v=19$m=19456,t=2,p=1$x$y");
		snprintf(a.kind, sizeof a.kind, "%s", i == 4 ? "bot" : "account");
		ASSERT_EQ(W(t, account_add, &a, &err), 0);
		if (a.closed_ms != 0) /* an account is made open: closed by an update */
			ASSERT_EQ(W(t, account_update, &a, &err), 0);
	}
	ASSERT_EQ(add_between(&t, "g1", 0, "p1", 2, "p2", 0, 1000), 0); /* player's game */
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(reader(&t, &rd), 0);
	/* from the start: idle only, then the young one stops the scan */
	ASSERT_EQ(R(rd, accounts_unused, 0, 1000, 100, ids, 8, &next, &err), 1);
	ASSERT_EQ(ids[0], 1);
	ASSERT_EQ(next, 4);
	/* a small scan goes on from where it stopped */
	ASSERT_EQ(R(rd, accounts_unused, 0, 1000, 2, ids, 8, &next, &err), 1);
	ASSERT_EQ(next, 2);
	ASSERT_EQ(R(rd, accounts_unused, 2, 1000, 2, ids, 8, &next, &err), 0);
	ASSERT_EQ(next, 4);
	/* later, past the young one: idle2 (7, the newest, stays) */
	ASSERT_EQ(R(rd, accounts_unused, 4, 10000, 100, ids, 8, &next, &err), 2);
	ASSERT_EQ(ids[0], 5);
	ASSERT_EQ(ids[1], 6);
	ASSERT_EQ(next, 7);
	ASSERT_EQ(R(rd, accounts_unused, 0, 10000, 100, ids, 1, &next, &err), 1); /* max 1 */
	ASSERT_EQ(ids[0], 1);
	ASSERT_EQ(W(t, account_drop, 1, &err), 0);
	ASSERT_EQ(W(t, account_drop, 1, &err), 0); /* gone: nothing more */
	ASSERT_EQ(W(t, account_drop, 2, &err), 0); /* used: kept */
	ASSERT_EQ(W(t, account_drop, 7, &err), 0); /* the newest: kept */
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(R(rd, accounts_unused, 0, 10000, 100, ids, 8, &next, &err), 2); /* 5, 6 */
	ASSERT_EQ(ids[0], 5);
	rd_close(&rd);
	st_close(&t);
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(W(t, accounts_load, account_cb, &l, &err), 6);
	ASSERT_EQ(l.a[0].id, 2);
	st_close(&t);
	ASSERT_EQ(check(db), 0);
}

/* The two seats' changes of rated game id (accounts a0 and a1, scores s0 and s1; ratings before
 * and after as given, vol 0.06), at ended. */
static int
rate(struct st *t, const char *id, const int64_t acc[2], const double score[2],
     const double before[2][2], const double after[2][2], int64_t ended)
{
	int rc = 0;

	for (int s = 0; s < 2 && rc == 0; s++) {
		struct store_rating_change c = {
		        .seat = s,
		        .account = acc[s],
		        .kind = GAME_HOKITO,
		        .before = {before[s][0], before[s][1], 0.06},
		        .after = {after[s][0], after[s][1], 0.06},
		        .score = score[s],
		        .opponent = acc[1 - s],
		};
		rc = W(*t, rating_change, id, &c, ended, NULL);
	}
	return rc;
}

/* A rated public game of id between accounts acc[0] and acc[1], created at created, ended by
 * resignation or agreement. */
static int
rated_game(struct st *t, const char *id, const int64_t acc[2], int64_t created, int64_t ended,
           const char *result)
{
	struct store_game g = {.kind = GAME_HOKITO, .seed = 5, .created_ms = created, .rated = 1};
	int64_t seq = 3;
	int rc;

	snprintf(g.id, sizeof g.id, "%s", id);
	snprintf(g.variant, sizeof g.variant, "standard");
	if ((rc = add_seated(&t->w, &g, acc[0], acc[1])) < 0)
		return rc;
	return finish_as(&t->w, id, &seq, ended, result);
}

/*
 * Ratings: a rated game's changes make both ratings rows (counts, best) in the game end's
 * transaction, and they load back as stored; the leaderboard pages by key through equal ratings
 * and leaves out provisional, closed and banned accounts, which the provisional list pages the
 * same way; the board's minimums of games and opponents; an account's rated games come most
 * recent first; the record of a rated game has its rating headers, one that rated nobody keeps
 * why; the rated pairs of a window load back.
 */
TEST(contract_ratings)
{
	static const int64_t pair12[2] = {1, 2}, pair34[2] = {3, 4};
	static const double win[2] = {1.0, 0.0}, draw[2] = {0.5, 0.5};
	struct store_rating rows[4];
	struct store_board_entry e[4];
	struct store_rated_game rg[4];
	struct store_board_query q = {.kind = GAME_HOKITO, .limit = 2};
	struct store_read_port rd;
	struct store_error err;
	struct st t;
	char text[RECORD_TEXT_MAX];
	int more;

	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	for (int i = 1; i <= 4; i++) {
		char name[16];
		snprintf(name, sizeof name, "acc%d", i);
		ASSERT_EQ(add_account(&t, i, name, i == 4 ? "bot" : "account", 1, &err), 0);
	}
	/* g1: 1 beats 2 (provisional both); g2: 3 and 4 draw at settled ratings */
	ASSERT_EQ(rated_game(&t, "g1", pair12, 1000, 2000, "win"), 0);
	ASSERT_EQ(rate(&t, "g1", pair12, win, (const double[2][2]){{1500, 350}, {1500, 350}},
	               (const double[2][2]){{1662.3, 290.3}, {1337.7, 290.3}}, 2000),
	          0);
	ASSERT_EQ(rated_game(&t, "g2", pair34, 1001, 2001, "draw"), 0);
	ASSERT_EQ(rate(&t, "g2", pair34, draw, (const double[2][2]){{1500, 60}, {1500, 60}},
	               (const double[2][2]){{1700, 59}, {1700, 59}}, 2001),
	          0);
	ASSERT_EQ(commit(&t, &err), 0);
	st_close(&t);
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	memset(rows, 0, sizeof rows);
	ASSERT_EQ(W(t, ratings_load, rating_cb, rows, &err), 4);
	ASSERT_EQ(rows[0].kind, GAME_HOKITO);
	ASSERT_EQ(rows[0].games, 1);
	ASSERT_EQ(rows[0].wins, 1);
	ASSERT_EQ(rows[1].losses, 1);
	ASSERT_EQ(rows[2].draws, 1);
	ASSERT_NEAR(rows[0].rating, 1662.3, 0);
	ASSERT_NEAR(rows[0].rd, 290.3, 0);
	ASSERT_NEAR(rows[0].vol, 0.06, 0);
	ASSERT_NEAR(rows[1].best, 1337.7, 0);
	ASSERT_EQ(rows[1].updated_ms, 2000);
	ASSERT_EQ(reader(&t, &rd), 0);
	/* the board: 3 and 4 tie at 1700 (the lower account first); 1 and 2 are provisional */
	ASSERT_EQ(R(rd, leaderboard, &q, e, &more, &err), 2);
	ASSERT_EQ(more, 0);
	ASSERT_EQ(e[0].account, 3);
	ASSERT_STR_EQ(e[0].name, "acc3");
	ASSERT_EQ(e[0].rank, 1);
	ASSERT_EQ(e[0].bot, 0);
	ASSERT_EQ(e[0].games, 1);
	ASSERT_NEAR(e[0].rating, 1700, 0);
	ASSERT_NEAR(e[0].rd, 59, 0);
	ASSERT_EQ(e[1].account, 4);
	ASSERT_EQ(e[1].rank, 2);
	ASSERT_EQ(e[1].bot, 1);
	q.limit = 1;
	ASSERT_EQ(R(rd, leaderboard, &q, e, &more, &err), 1);
	ASSERT_EQ(more, 1);
	{
		/* the cursor goes to the client as text and comes back */
		struct store_board_cursor c = {e[0].rating, e[0].account, e[0].rank};
		char cursor[STORE_BOARD_CURSOR_TEXT];
		store_board_cursor_format(&c, cursor, sizeof cursor);
		ASSERT_EQ(store_board_cursor_parse(cursor, &q.after), 0);
		q.has_after = 1;
	}
	ASSERT_EQ(R(rd, leaderboard, &q, e, &more, &err), 1);
	ASSERT_EQ(e[0].account, 4);
	ASSERT_EQ(e[0].rank, 2);
	ASSERT_EQ(more, 0);
	/* the provisional list, by key too */
	q = (struct store_board_query){.kind = GAME_HOKITO, .limit = 1, .provisional = 1};
	ASSERT_EQ(R(rd, leaderboard, &q, e, &more, &err), 1);
	ASSERT_EQ(e[0].account, 1);
	ASSERT_EQ(more, 1);
	q.has_after = 1;
	q.after = (struct store_board_cursor){e[0].rating, e[0].account, e[0].rank};
	ASSERT_EQ(R(rd, leaderboard, &q, e, &more, &err), 1);
	ASSERT_EQ(e[0].account, 2);
	ASSERT_EQ(e[0].rank, 2);
	ASSERT_EQ(more, 0);
	q = (struct store_board_query){.kind = GAME_OXONO, .limit = 4};
	ASSERT_EQ(R(rd, leaderboard, &q, e, &more, &err), 0);
	/* a banned account is left out */
	{
		struct accounts l = {0};
		ASSERT_EQ(W(t, accounts_load, account_cb, &l, &err), 4);
		l.a[2].banned_ms = 5;
		ASSERT_EQ(W(t, account_update, &l.a[2], &err), 0);
		ASSERT_EQ(commit(&t, &err), 0);
		q = (struct store_board_query){.kind = GAME_HOKITO, .limit = 2};
		ASSERT_EQ(R(rd, leaderboard, &q, e, &more, &err), 1);
		ASSERT_EQ(e[0].account, 4);
		l.a[2].banned_ms = 0;
		ASSERT_EQ(W(t, account_update, &l.a[2], &err), 0);
		ASSERT_EQ(commit(&t, &err), 0);
	}
	/* an account's rated games, with both changes */
	ASSERT_EQ(R(rd, rated_games, 1, 4, rg, &err), 1);
	ASSERT_STR_EQ(rg[0].game.id, "g1");
	ASSERT_EQ(rg[0].game.rated, 1);
	ASSERT_EQ(rg[0].nchanges, 2);
	ASSERT_EQ(rg[0].changes[0].account, 1);
	ASSERT_EQ(rg[0].changes[1].account, 2);
	ASSERT_NEAR(rg[0].changes[1].before[0], 1500, 0);
	ASSERT_NEAR(rg[0].changes[1].after[0], 1337.7, 0);
	ASSERT_EQ(R(rd, rated_games, 9, 4, rg, &err), 0);
	/* a rated game's record */
	ASSERT(R(rd, record, "g1", NULL, text, sizeof text, &err) > 0);
	ASSERT(strstr(text, "[Rated \"yes\"]\n[BlackRating \"1500?\"]\n[WhiteRating \"1500?\"]\n"
	                    "[BlackRatingDiff \"+162\"]\n[WhiteRatingDiff \"-162\"]\n") != NULL);
	/* the board's minimums: rated games, distinct opponents */
	q = (struct store_board_query){
	        .kind = GAME_HOKITO, .limit = 4, .min_games = 1, .min_opponents = 1};
	ASSERT_EQ(R(rd, leaderboard, &q, e, &more, &err), 2);
	ASSERT_EQ(e[0].opponents, 1);
	q.min_opponents = 2;
	ASSERT_EQ(R(rd, leaderboard, &q, e, &more, &err), 0);
	q.min_opponents = 0;
	q.min_games = 2;
	ASSERT_EQ(R(rd, leaderboard, &q, e, &more, &err), 0);
	/* the same pair again: one opponent still, two games */
	ASSERT_EQ(rated_game(&t, "g3", pair34, 3000, 3001, "draw"), 0);
	ASSERT_EQ(rate(&t, "g3", pair34, draw, (const double[2][2]){{1700, 59}, {1700, 59}},
	               (const double[2][2]){{1700, 58}, {1700, 58}}, 3001),
	          0);
	ASSERT_EQ(commit(&t, &err), 0);
	q.min_opponents = 1;
	ASSERT_EQ(R(rd, leaderboard, &q, e, &more, &err), 2);
	ASSERT_EQ(e[0].games, 2);
	ASSERT_EQ(e[0].opponents, 1);
	ASSERT_EQ(R(rd, rated_games, 3, 4, rg, &err), 2);
	ASSERT_STR_EQ(rg[0].game.id, "g3"); /* the most recent first */
	ASSERT_EQ(R(rd, rated_games, 3, 1, rg, &err), 1);
	/* a rated game that rated nobody keeps why; its record is a casual game's */
	ASSERT_EQ(rated_game(&t, "g4", pair12, 4000, 4001, "win"), 0);
	ASSERT_EQ(W(t, game_unrated, "g4", "short", &err), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	{
		struct store_history_query hq = {.limit = 1};
		struct store_history_page pg;
		struct store_game page[1];
		ASSERT_EQ(R(rd, history, &hq, page, &pg, &err), 1);
		ASSERT_STR_EQ(page[0].id, "g4");
		ASSERT_STR_EQ(page[0].unrated, "short");
		ASSERT_EQ(page[0].rated, 1);
		ASSERT_EQ(page[0].seat_account[0], 1);
	}
	ASSERT(R(rd, record, "g4", NULL, text, sizeof text, &err) > 0);
	ASSERT(strstr(text, "[Rated") == NULL);
	rd_close(&rd);
	/* the rated games of a window, for the pair rule at a start */
	{
		int64_t got[4] = {0};
		ASSERT_EQ(W(t, rated_pairs_load, 2001, pair_cb, got, &err), 2);
		ASSERT_EQ(got[0], 2);
		ASSERT_EQ(got[1], 3);
		ASSERT_EQ(got[2], 4);
		ASSERT_EQ(got[3], 3001);
		ASSERT_EQ(W(t, rated_pairs_load, 0, pair_cb, got, &err), 3);
	}
	st_close(&t);
	ASSERT_EQ(check(db), 0);
}

/* A second writer on the same store is refused; a store of a newer schema too. */
TEST(contract_conflict_version)
{
	struct store_error err;
	struct st t, other;
	char newer[1024];
	int schema;

	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(add_game(&t.w, "g1", GAME_HOKITO, 1, 1000), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	schema = store_db_schema(t.s);
	ASSERT_EQ(store_db_open(db, NULL, &other.s, &err), STORE_ECONFLICT);
	printf("# %s\n", err.text);
	ASSERT_EQ(err.code, STORE_ECONFLICT);
	ASSERT(other.s == NULL);
	st_close(&t);
	ASSERT_EQ(st_open(&other, db, NULL, &err), 0); /* the first one let go */
	st_close(&other);
	ASSERT_EQ(be->newer(db, schema + 1, newer, sizeof newer), 0);
	ASSERT_EQ(store_db_open(newer, NULL, &other.s, &err), STORE_EVERSION);
	printf("# %s\n", err.text);
	ASSERT(other.s == NULL);
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0); /* the store it was copied from still opens */
	st_close(&t);
}

/*
 * One turn's writes of every kind: two accounts, a rated game played to its end with both
 * rating changes and a session at it, a game created rated that rated nobody, a live game, a
 * game deleted, an account updated, a session removed, a counter. The same each time (its moves
 * from a seeded rng); g1's last seq into *last.
 */
static int
idempotent_turn(struct st *t, int64_t *last, struct store_error *err)
{
	static const int64_t pair[2] = {1, 2};
	static const double win[2] = {1.0, 0.0};
	struct store_game g1 = {.kind = GAME_HOKITO, .seed = 8, .created_ms = 1000, .rated = 1};
	struct store_session s = session_of("tok1", "p1", "alice", "g1", 0, 1);
	struct store_account a2 = {.id = 2, .created_ms = 2};
	struct rng rng;
	struct game pos;
	int64_t seq = 3;
	int rc = 0;

	snprintf(g1.id, sizeof g1.id, "g1");
	snprintf(g1.variant, sizeof g1.variant, "standard");
	snprintf(g1.clock, sizeof g1.clock, "5+3");
	rng_init(&rng, 3);
	game_start(&pos, GAME_HOKITO, NULL, 8, NULL);
	if ((rc = add_account(t, 1, "alice", "account", 1, err)) < 0 ||
	    (rc = add_account(t, 2, "bob", "account", 2, err)) < 0 ||
	    (rc = add_seated(&t->w, &g1, 1, 2)) < 0 ||
	    (rc = play(&t->w, "g1", &pos, &seq, 1000, &rng)) < 0 ||
	    (rc = finish(&t->w, "g1", &pos, &seq, 9000)) < 0 ||
	    (rc = rate(t, "g1", pair, win, (const double[2][2]){{1500, 350}, {1500, 350}},
	               (const double[2][2]){{1662.3, 290.3}, {1337.7, 290.3}}, 9000)) < 0 ||
	    (rc = W(*t, session_set, &s, err)) < 0)
		return rc;
	*last = seq;
	{
		struct store_game g2 = {
		        .kind = GAME_OXONO, .seed = 9, .created_ms = 1001, .rated = 1};
		int64_t seq2 = 3;
		snprintf(g2.id, sizeof g2.id, "g2");
		snprintf(g2.variant, sizeof g2.variant, "standard");
		if ((rc = add_seated(&t->w, &g2, 1, 2)) < 0 ||
		    (rc = finish_as(&t->w, "g2", &seq2, 9500, "draw")) < 0 ||
		    (rc = W(*t, game_unrated, "g2", "short", err)) < 0)
			return rc;
	}
	if ((rc = add_game(&t->w, "g3", GAME_OXONO, 10, 1002)) < 0 ||
	    (rc = W(*t, game_drop, "g0", err)) < 0 ||
	    (rc = W(*t, meta_set, "next_game", 4, err)) < 0 ||
	    (rc = W(*t, session_remove, "tok0", err)) < 0)
		return rc;
	snprintf(a2.name, sizeof a2.name, "bob");
	snprintf(a2.key, sizeof a2.key, "bob");
	snprintf(a2.skeleton, sizeof a2.skeleton, "bob");
	snprintf(a2.hash, sizeof a2.hash, "$argon2id$v=19$m=19456,t=2,p=1$new$hash");
	snprintf(a2.kind, sizeof a2.kind, "account");
	return W(*t, account_update, &a2, err);
}

/*
 * Writes are idempotent by key: the same turn's writes sent twice, the second time in a new
 * transaction after the commit of the first held (a retry after a commit whose outcome was
 * unknown), are success, and nothing is doubled: events, seats, the end and the kept counts,
 * sessions, accounts, the rating changes and the ratings they bring. A later event follows on.
 */
TEST(contract_idempotent)
{
	struct store_history_query q = {.limit = 10};
	struct store_history_page pg;
	struct store_read_port rd;
	struct store_game page[10];
	struct store_rating rows[4];
	struct store_rated_game rg[4];
	struct store_board_entry e[4];
	struct store_event *evs, *evs2;
	struct store_error err;
	int64_t last[3];
	struct st t;
	size_t n, n2;
	int more;

	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(add_between(&t, "g0", 0, "p8", 0, "p9", 0, 500), 0); /* dropped by the turn */
	{
		struct store_session s = session_of("tok0", "p8", "p8", "g0", 0, 0);
		ASSERT_EQ(W(t, session_set, &s, &err), 0);
	}
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(idempotent_turn(&t, &last[0], &err), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	ASSERT_EQ(reader(&t, &rd), 0);
	ASSERT_EQ(R(rd, events, "g1", NULL, &evs, &n, &err), 0);
	ASSERT_EQ((int64_t)n, last[0]);
	/* again, as a retry sends it */
	ASSERT_EQ(idempotent_turn(&t, &last[1], &err), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	/* and once more within one transaction, with a new event of the live game after it */
	ASSERT_EQ(idempotent_turn(&t, &last[2], &err), 0);
	ASSERT(last[1] == last[0] && last[2] == last[0]);
	{
		struct store_event ev = {.seq = 4, .time_ms = 3000, .type = "chat", .body = "{}"};
		ASSERT_EQ(W(t, event_add, "g3", &ev, &err), 0);
	}
	ASSERT_EQ(commit(&t, &err), 0);
	st_close(&t);
	rd_close(&rd);

	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(reader(&t, &rd), 0);
	/* the events: not doubled, the same bytes */
	ASSERT_EQ(R(rd, events, "g1", NULL, &evs2, &n2, &err), 0);
	ASSERT_EQ(n2, n);
	for (size_t i = 0; i < n && i < n2; i++) {
		ASSERT_EQ(evs2[i].seq, (int64_t)i + 1);
		ASSERT_EQ(evs2[i].body_len, evs[i].body_len);
		ASSERT(memcmp(evs2[i].body, evs[i].body, evs[i].body_len) == 0);
	}
	store_events_free(evs, n);
	store_events_free(evs2, n2);
	ASSERT_EQ(R(rd, events, "g3", NULL, &evs, &n, &err), 0);
	ASSERT_EQ(n, 4);
	store_events_free(evs, n);
	/* the end, the seats and the kept counts */
	ASSERT_EQ(R(rd, history, &q, page, &pg, &err), 2);
	ASSERT_EQ(pg.total, 2);
	ASSERT_STR_EQ(page[0].id, "g2");
	ASSERT_STR_EQ(page[0].unrated, "short");
	ASSERT_STR_EQ(page[1].id, "g1");
	ASSERT_STR_EQ(page[1].status, "finished");
	ASSERT_EQ(page[1].ended_ms, 9000);
	ASSERT_EQ(page[1].seat_account[0], 1);
	ASSERT_EQ(page[1].seat_account[1], 2);
	ASSERT_STR_EQ(page[1].clock, "5+3");
	ASSERT_EQ(page[1].nevents, (int64_t)n2);
	q = (struct store_history_query){.limit = 10, .by_player = 1, .player_account = 1};
	ASSERT_EQ(R(rd, history, &q, page, &pg, &err), 2);
	ASSERT_EQ(pg.total, 2);
	q.player_account = 2;
	ASSERT_EQ(R(rd, history, &q, page, &pg, &err), 2);
	ASSERT_EQ(pg.total, 2);
	/* the rating changes and the ratings they bring: moved once */
	memset(rows, 0, sizeof rows);
	ASSERT_EQ(W(t, ratings_load, rating_cb, rows, &err), 2);
	ASSERT_EQ(rows[0].games, 1);
	ASSERT_EQ(rows[0].wins, 1);
	ASSERT_EQ(rows[1].games, 1);
	ASSERT_EQ(rows[1].losses, 1);
	ASSERT_NEAR(rows[0].rating, 1662.3, 0);
	ASSERT_EQ(R(rd, rated_games, 1, 4, rg, &err), 1);
	ASSERT_EQ(rg[0].nchanges, 2);
	{
		struct store_board_query bq = {.kind = GAME_HOKITO, .limit = 4, .provisional = 1};
		ASSERT_EQ(R(rd, leaderboard, &bq, e, &more, &err), 2);
		ASSERT_EQ(e[0].games, 1);
		ASSERT_EQ(e[0].opponents, 1);
	}
	{
		int64_t got[4] = {0};
		ASSERT_EQ(W(t, rated_pairs_load, 0, pair_cb, got, &err), 1);
	}
	/* sessions, accounts, counters, the game deleted */
	{
		struct sessions ss = {0};
		struct accounts l = {0};
		struct loaded ld = {0};
		int64_t v;
		char ids[128];
		ASSERT_EQ(W(t, sessions_load, session_cb, &ss, &err), 1);
		ASSERT_STR_EQ(ss.s[0].token, "tok1");
		ASSERT_EQ(ss.s[0].account, 1);
		ASSERT_EQ(W(t, accounts_load, account_cb, &l, &err), 2);
		ASSERT_STR_EQ(l.a[1].hash, "$argon2id$v=19$m=19456,t=2,p=1$new$hash");
		ASSERT_EQ(W(t, meta_get, "next_game", &v, &err), 0);
		ASSERT_EQ(v, 4);
		ASSERT_EQ(W(t, load, 5, load_cb, &ld, &err), 3);
		ASSERT_STR_EQ(loaded_ids(&ld, ids, sizeof ids), "g1 g2 g3");
		ASSERT_EQ(ld.nev[0], n2);
		ASSERT_STR_EQ(ld.g[2].status, "live");
		ASSERT_EQ(ld.g[1].rated, 1);
	}
	rd_close(&rd);
	st_close(&t);
	ASSERT_EQ(check(db), 0);
}

/* Whether rc, the write's or its commit's, is STORE_ECORRUPT with a sentence naming what. */
static int
corrupt(struct st *t, int rc, const char *what, long long number, struct store_error *err)
{
	char num[24];

	rc = refused(t, rc, err);
	snprintf(num, sizeof num, "%lld", number);
	return rc == STORE_ECORRUPT && err->code == STORE_ECORRUPT && mentions(err->text, what) &&
	       (number < 0 || mentions(err->text, num));
}

/*
 * An event of a game written again alone, in a later transaction after the commit that stored
 * it held (the game's other writes not sent again): the same is success, nothing doubled; other
 * bytes (a byte more), another type or a move is STORE_ECORRUPT, its sentence naming the game
 * and the seq. The store keeps what it had.
 */
TEST(contract_corrupt_event)
{
	struct store_event ev = {.seq = 2, .time_ms = 1000, .type = "seated"};
	struct store_read_port rd;
	struct store_event *evs;
	struct store_error err;
	struct st t;
	char body[128];
	size_t n;

	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(add_game(&t.w, "g32", GAME_HOKITO, 1, 1000), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	snprintf(body, sizeof body, "{\"type\":\"seated\",\"game\":\"%s\",\"seq\":%d}", "g32", 2);
	ev.body = body;
	ASSERT_EQ(refused(&t, W(t, event_add, "g32", &ev, &err), &err), 0); /* the same */
	body[3] = 'Y';                                                      /* "tYpe" */
	ASSERT(corrupt(&t, W(t, event_add, "g32", &ev, &err), "g32", 2, &err));
	body[3] = 'y';
	ev.body_len = strlen(body) + 1;
	ASSERT(corrupt(&t, W(t, event_add, "g32", &ev, &err), "g32", 2, &err));
	ev.body_len = 0;
	ev.type = "chat";
	ASSERT(corrupt(&t, W(t, event_add, "g32", &ev, &err), "g32", 2, &err));
	ev.type = "moved";
	ev.move = "a1-a2";
	ev.seq = 3;
	ASSERT(corrupt(&t, W(t, event_add, "g32", &ev, &err), "g32", 3, &err));
	ASSERT_EQ(reader(&t, &rd), 0);
	ASSERT_EQ(R(rd, events, "g32", NULL, &evs, &n, &err), 0);
	ASSERT_EQ(n, 3);
	ASSERT_STR_EQ(evs[1].body, body);
	ASSERT(evs[2].move == NULL);
	store_events_free(evs, n);
	rd_close(&rd);
	st_close(&t);
}

/*
 * The same key with other contents is STORE_ECORRUPT, its sentence naming the game: a game of
 * an id stored already created otherwise, an end of a finished game that is not its end, an
 * account of an id stored already under another name, a seat's rating change with other values.
 * The store keeps what it had.
 */
TEST(contract_corrupt)
{
	struct store_read_port rd;
	struct store_error err;
	struct st t;

	FRESH();
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
	ASSERT_EQ(add_account(&t, 1, "alice", "account", 1, &err), 0);
	ASSERT_EQ(add_account(&t, 2, "bob", "account", 1, &err), 0);
	{
		static const int64_t pair[2] = {1, 2};
		static const double win[2] = {1.0, 0.0};
		ASSERT_EQ(rated_game(&t, "g31", pair, 1000, 2000, "win"), 0);
		ASSERT_EQ(rate(&t, "g31", pair, win, (const double[2][2]){{1500, 350}, {1500, 350}},
		               (const double[2][2]){{1662.3, 290.3}, {1337.7, 290.3}}, 2000),
		          0);
	}
	ASSERT_EQ(add_game(&t.w, "g32", GAME_HOKITO, 1, 1000), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	{
		struct store_game g = {.kind = GAME_HOKITO, .seed = 2, .created_ms = 1000};
		snprintf(g.id, sizeof g.id, "g32");
		snprintf(g.variant, sizeof g.variant, "standard");
		ASSERT(corrupt(&t, W(t, game_add, &g, &err), "g32", -1, &err));
	}
	ASSERT_EQ(refused(&t, W(t, game_finish, "g31", 2000, "win", 0, "resign", NULL, &err), &err),
	          0); /* the same end */
	ASSERT(corrupt(&t, W(t, game_finish, "g31", 2000, "draw", -1, "agreement", NULL, &err),
	               "g31", -1, &err));
	ASSERT(corrupt(&t, W(t, game_finish, "g31", 2001, "win", 0, "resign", NULL, &err), "g31",
	               -1, &err));
	ASSERT(corrupt(&t, add_account(&t, 2, "carol", "account", 1, &err), "2", -1, &err));
	{
		struct store_rating_change c = {.seat = 1,
		                                .account = 2,
		                                .kind = GAME_HOKITO,
		                                .before = {1500, 350, 0.06},
		                                .after = {1337.8, 290.3, 0.06},
		                                .score = 0,
		                                .opponent = 1};
		ASSERT(corrupt(&t, W(t, rating_change, "g31", &c, 2000, &err), "g31", -1, &err));
	}
	/* nothing of it was kept */
	ASSERT_EQ(reader(&t, &rd), 0);
	{
		struct store_rated_game rg[2];
		ASSERT_EQ(R(rd, rated_games, 2, 2, rg, &err), 1);
		ASSERT_NEAR(rg[0].changes[1].after[0], 1337.7, 0);
		ASSERT_STR_EQ(rg[0].game.result, "win");
	}
	rd_close(&rd);
	st_close(&t);
	ASSERT_EQ(check(db), 0);
}

/* The answers done() gave, in order. */
struct answers {
	int n;
	uint64_t ticket[64];
	int rc[64];
	int after_stop; /* answers after stop() returned */
	int stopped;
};

static void
done_cb(void *arg, uint64_t ticket, int rc, const struct store_error *err)
{
	struct answers *a = arg;

	if (rc < 0)
		printf("# done: ticket %" PRIu64 ": %s\n", ticket, err->text);
	if (a->stopped)
		a->after_stop++;
	if (a->n < 64) {
		a->ticket[a->n] = ticket;
		a->rc[a->n] = rc;
	}
	a->n++;
}

/* The last ticket done() answered (0: none). */
static uint64_t
answered(const struct answers *a)
{
	return a->n > 0 ? a->ticket[(a->n < 64 ? a->n : 64) - 1] : 0;
}

/* The tick of the waits below: the loop wakes at least every 100 ms (unreferenced, it keeps no
 * loop alive). */
static void
tick_cb(uv_timer_t *h)
{
	(void)h;
}

/* Run loop until done() has answered up to ticket, or 10 s. Returns 0 if it has. */
static int
run_until(uv_loop_t *loop, const struct answers *a, uint64_t ticket)
{
	uint64_t end = uv_hrtime() + 10000000000ull;

	while (answered(a) < ticket && uv_hrtime() < end)
		uv_run(loop, UV_RUN_ONCE);
	return answered(a) >= ticket ? 0 : -1;
}

/* Run loop until it has nothing (referenced) left to run, or 10 s. */
static void
run_out(uv_loop_t *loop)
{
	uint64_t end = uv_hrtime() + 10000000000ull;

	while (uv_loop_alive(loop) && uv_hrtime() < end)
		uv_run(loop, UV_RUN_ONCE);
}

/*
 * The asynchronous commit on a real libuv loop: before start() a commit is durable at return
 * (no ticket); after it, each commit returns 0 or a ticket, tickets count up, done() answers them
 * in order (one answer may cover several) with success; stop() answers what is still in flight
 * (durable, or STORE_EUNAVAIL: not known) and no more after, and leaves the loop nothing to run;
 * everything answered durable is in the store when it is opened again. With --fsync normal and
 * always.
 */
TEST(contract_async)
{
	for (int fsync = 0; fsync < 2; fsync++) {
		struct store_db_options o = {(enum store_fsync)fsync, 0, 1};
		struct answers a = {0};
		struct store_error err;
		struct loaded l = {0};
		uint64_t last = 0, ticket;
		struct rng rng;
		struct game g;
		uv_loop_t loop;
		uv_timer_t tick;
		struct st t;
		int64_t seq = 3, v;
		int last_rc = 0;

		rng_init(&rng, 12);
		game_start(&g, GAME_HOKITO, NULL, 4, NULL);
		FRESH();
		ASSERT_EQ(st_open(&t, db, &o, &err), 0);
		ASSERT_EQ(add_game(&t.w, "g1", GAME_HOKITO, 4, 1000), 0);
		ASSERT_EQ(commit(&t, &err), 0);
		ASSERT_EQ(uv_loop_init(&loop), 0);
		uv_timer_init(&loop, &tick);
		uv_timer_start(&tick, tick_cb, 100, 100);
		uv_unref((uv_handle_t *)&tick);
		if (t.w.start != NULL)
			ASSERT_EQ(W(t, start, &loop, done_cb, &a, &err), 0);
		for (int i = 0; i < 20; i++) {
			ASSERT_EQ(play(&t.w, "g1", &g, &seq, 1, &rng), 0);
			ASSERT_EQ(W(t, meta_set, "turn", i, &err), 0);
			ASSERT_EQ(W(t, commit, &ticket, &err), 0);
			ASSERT(ticket == 0 || ticket >= last);
			if (ticket > last)
				last = ticket;
			if (i % 3 == 0) /* let some answers in between */
				uv_run(&loop, UV_RUN_NOWAIT);
		}
		ASSERT(!game_over(&g));
		ASSERT_EQ(run_until(&loop, &a, last), 0);
		printf("# --fsync %s: last ticket %" PRIu64 ", %d answers\n",
		       fsync ? "always" : "normal", last, a.n);
		for (int i = 0; i < a.n && i < 64; i++) {
			ASSERT_EQ(a.rc[i], 0);
			ASSERT(i == 0 || a.ticket[i] > a.ticket[i - 1]);
		}
		ASSERT_U64_EQ(answered(&a), last);
		/* one more in flight at stop() */
		ASSERT_EQ(play(&t.w, "g1", &g, &seq, 1, &rng), 0);
		ASSERT_EQ(W(t, commit, &ticket, &err), 0);
		if (t.w.stop != NULL)
			t.w.stop(t.w.impl);
		a.stopped = 1;
		if (ticket > 0) {
			last_rc = a.rc[(a.n < 64 ? a.n : 64) - 1];
			ASSERT(answered(&a) >= ticket);
			ASSERT(last_rc == 0 || last_rc == STORE_EUNAVAIL);
		}
		run_out(&loop);
		ASSERT_EQ(uv_loop_alive(&loop), 0);
		ASSERT_EQ(a.after_stop, 0);
		uv_close((uv_handle_t *)&tick, NULL);
		run_out(&loop);
		ASSERT_EQ(uv_loop_close(&loop), 0);
		st_close(&t);
		ASSERT_EQ(st_open(&t, db, NULL, &err), 0);
		ASSERT_EQ(W(t, load, 1, load_cb, &l, &err), 1);
		/* what was answered is there; the last one's outcome is unknown if it failed */
		ASSERT(l.nev[0] == (size_t)seq || (last_rc < 0 && l.nev[0] == (size_t)seq - 1));
		ASSERT_EQ(W(t, meta_get, "turn", &v, &err), 0);
		ASSERT_EQ(v, 19);
		st_close(&t);
	}
}

/* --- A copy of a whole store (hokitod migrate): the ports' copy ops. */

/* Every game of the reader rd, page by page of two in serial order, with its events and rating
 * changes, put into t, as hokitod migrate copies them; then the commit. *n: the games put. */
static int
copy_games(const struct store_read_port *rd, struct st *t, int64_t *n, struct store_error *err)
{
	struct store_game page[2];
	int64_t after = 0;
	int got, rc = 0;

	*n = 0;
	while (rc == 0 && (got = R(*rd, games_page, after, 2, page, NULL, err)) > 0) {
		for (int i = 0; i < got && rc == 0; i++) {
			struct store_rating_change ch[2];
			struct store_event *ev;
			size_t nev;
			int nch = 0;

			if ((rc = R(*rd, events, page[i].id, NULL, &ev, &nev, err)) < 0)
				break;
			rc = W(*t, game_put, &page[i], ev, nev, err);
			store_events_free(ev, nev);
			if (rc == 0 && (nch = R(*rd, rating_changes, page[i].id, ch, err)) < 0)
				rc = nch;
			for (int k = 0; rc == 0 && k < nch; k++)
				rc = W(*t, rating_change_put, page[i].id, &ch[k], err);
			after = page[i].serial;
			++*n;
		}
	}
	if (rc == 0 && got < 0)
		rc = got;
	if (rc < 0)
		printf("# copy: %s\n", err->text);
	return rc < 0 ? rc : commit(t, err);
}

/* The history totals (the kept counts) of a reader: the public games, account 1's as anyone
 * sees them, and account 1's own with its private ones, into total[0..3). */
static int
kept_totals(const struct store_read_port *rd, int64_t total[3], struct store_error *err)
{
	struct store_history_query q[3] = {
	        {.limit = 0},
	        {.limit = 0, .by_player = 1, .player_account = 1},
	        {.limit = 0, .by_player = 1, .player_account = 1, .own_account = 1},
	};
	struct store_history_page pg;
	struct store_game none[1];
	int rc;

	for (int i = 0; i < 3; i++) {
		if ((rc = R(*rd, history, &q[i], none, &pg, err)) < 0)
			return rc;
		total[i] = pg.total;
	}
	return 0;
}

/*
 * Every game of a store, whatever its status, copied into a new store by serial (games_page,
 * game_put) as it was stored: its row (the seats' accounts, an unknown one too; the unrated word;
 * its serial, a deleted game's number counted as deleted, so that the next game gets the same
 * number on both sides), its events byte for byte; the kept counts follow from the rows. The
 * same put again is taken, in its transaction or after its commit; the same id with another row
 * is refused (STORE_ECORRUPT, naming what differs), a new game out of serial order too
 * (STORE_EINVAL); --check finds nothing.
 */
TEST(contract_copy_games)
{
	struct store_event chat = {.seq = 4, .time_ms = 1500, .type = "chat"};
	struct store_event old_ev[2] = {
	        {.seq = 1, .time_ms = 11, .type = "seated", .body = "{\"type\":\"seated\"}"},
	        {.seq = 2, .time_ms = 12, .type = "moved", .move = "c3", .body = "{\"m\":\"c3\"}"}};
	struct store_game ga[8], gb[8], g;
	struct store_read_port ra, rb;
	struct store_event *ea, *eb;
	struct store_error err;
	struct st a, b;
	struct game pos;
	struct rng rng;
	char da[1024];
	int64_t seq = 3, total = -1, n, kept_a[3], kept_b[3];
	size_t na, nb;

	rng_init(&rng, 21);
	FRESH();
	snprintf(da, sizeof da, "%s", db);
	ASSERT_EQ(st_open(&a, da, NULL, &err), 0);
	ASSERT_EQ(add_account(&a, 1, "alice", "account", 1, &err), 0);
	/* g1: alice against a guest, played to its end, created rated and rating nobody */
	g = (struct store_game){.kind = GAME_HOKITO, .seed = 4, .created_ms = 100, .rated = 1};
	snprintf(g.id, sizeof g.id, "g1");
	snprintf(g.variant, sizeof g.variant, "standard");
	snprintf(g.clock, sizeof g.clock, "5+3");
	ASSERT_EQ(add_seated(&a.w, &g, 1, 0), 0);
	game_start(&pos, GAME_HOKITO, NULL, 4, NULL);
	ASSERT_EQ(play(&a.w, "g1", &pos, &seq, 1000, &rng), 0);
	ASSERT_EQ(finish(&a.w, "g1", &pos, &seq, 9000), 0);
	ASSERT_EQ(W(a, game_unrated, "g1", "short", &err), 0);
	/* g2: never started, deleted: a number skipped */
	ASSERT_EQ(add_game(&a.w, "g2", GAME_OXONO, 5, 200), 0);
	ASSERT_EQ(W(a, game_drop, "g2", &err), 0);
	/* g3: not over, a guest and bob's account, a chat whose bytes are not UTF-8 */
	g = (struct store_game){.kind = GAME_OXONO, .seed = 6, .created_ms = 300};
	snprintf(g.id, sizeof g.id, "g3");
	snprintf(g.variant, sizeof g.variant, "standard");
	ASSERT_EQ(add_seated(&a.w, &g, 0, 1), 0);
	chat.body = "{\"type\":\"chat\",\"text\":\"\xff\xfe caf\xc3\xa9\"}and more";
	chat.body_len = strlen("{\"type\":\"chat\",\"text\":\"\xff\xfe caf\xc3\xa9\"}");
	ASSERT_EQ(W(a, event_add, "g3", &chat, &err), 0);
	ASSERT_EQ(commit(&a, &err), 0);
	/* g4: as a store of an older schema held it (put as a copy puts it): private, a seat's
	 * account unknown (0), the other seat never taken, aborted */
	g = (struct store_game){.serial = 4,
	                        .kind = GAME_OXONO,
	                        .seed = 1,
	                        .is_private = 1,
	                        .created_ms = 10,
	                        .ended_ms = 20,
	                        .seat_taken = {1, 0},
	                        .winner = -1,
	                        .seat_account = {0, -1}};
	snprintf(g.id, sizeof g.id, "g4");
	snprintf(g.variant, sizeof g.variant, "standard");
	snprintf(g.code, sizeof g.code, "ABCDEFGHJKMNPQRS");
	snprintf(g.status, sizeof g.status, "finished");
	snprintf(g.result, sizeof g.result, "aborted");
	snprintf(g.seat_id[0], sizeof g.seat_id[0], "p9");
	snprintf(g.seat_name[0], sizeof g.seat_name[0], "old_name");
	snprintf(g.clock, sizeof g.clock, "none");
	ASSERT_EQ(W(a, game_put, &g, old_ev, 2, &err), 0);
	/* g5: alice's private game with a guest, finished */
	ASSERT_EQ(add_between(&a, "g5", 1, "p1", 1, "p7", 0, 9500), 0);
	ASSERT_EQ(commit(&a, &err), 0);
	ASSERT_EQ(reader(&a, &ra), 0);
	ASSERT_EQ(R(ra, games_page, 0, 8, ga, &total, &err), 4);
	ASSERT_EQ(total, 4);
	ASSERT_STR_EQ(ga[1].id, "g3");
	ASSERT_EQ(ga[1].serial, 3);
	ASSERT_STR_EQ(ga[2].id, "g4");
	ASSERT_EQ(ga[2].seat_account[0], 0);
	ASSERT_EQ(ga[2].seat_account[1], -1);
	ASSERT_EQ(R(ra, games_page, 3, 8, ga + 4, NULL, &err), 2); /* after a serial */
	ASSERT_STR_EQ(ga[4].id, "g4");
	ASSERT_EQ(R(ra, games_page, 5, 8, ga + 4, &total, &err), 0);
	ASSERT_EQ(kept_totals(&ra, kept_a, &err), 0);
	ASSERT(kept_a[0] == 1 && kept_a[1] == 1 && kept_a[2] == 2);

	FRESH();
	ASSERT_EQ(st_open(&b, db, NULL, &err), 0);
	ASSERT_EQ(add_account(&b, 1, "alice", "account", 1, &err), 0);
	ASSERT_EQ(copy_games(&ra, &b, &n, &err), 0);
	ASSERT_EQ(n, 4);
	ASSERT_EQ(reader(&b, &rb), 0);
	ASSERT_EQ(R(rb, games_page, 0, 8, gb, &total, &err), 4);
	ASSERT_EQ(total, 4);
	for (int i = 0; i < 4; i++) {
		const char *diff = store_game_diff(&ga[i], &gb[i]);

		ASSERT_STR_EQ(diff ? diff : "", "");
		ASSERT_EQ(R(ra, events, ga[i].id, NULL, &ea, &na, &err), 0);
		ASSERT_EQ(R(rb, events, gb[i].id, NULL, &eb, &nb, &err), 0);
		ASSERT_EQ(na, nb);
		for (size_t k = 0; k < na && k < nb; k++) {
			const char *ediff = store_event_diff(&ea[k], &eb[k]);

			ASSERT_STR_EQ(ediff ? ediff : "", "");
		}
		if (i == 1) {
			ASSERT_EQ(eb[3].body_len, chat.body_len);
			ASSERT(memcmp(eb[3].body, chat.body, chat.body_len) == 0);
		}
		store_events_free(ea, na);
		store_events_free(eb, nb);
	}
	ASSERT_STR_EQ(gb[0].unrated, "short");
	ASSERT_EQ(gb[0].seat_account[0], 1);
	ASSERT_EQ(gb[1].seat_account[0], -1);
	ASSERT_EQ(kept_totals(&rb, kept_b, &err), 0);
	ASSERT(kept_b[0] == kept_a[0] && kept_b[1] == kept_a[1] && kept_b[2] == kept_a[2]);

	/* the same again: taken, after its commit and twice in one transaction */
	ASSERT_EQ(R(ra, events, "g3", NULL, &ea, &na, &err), 0);
	ASSERT_EQ(W(b, game_put, &ga[1], ea, na, &err), 0);
	ASSERT_EQ(W(b, game_put, &ga[1], ea, na, &err), 0);
	ASSERT_EQ(commit(&b, &err), 0);
	/* the same id with another row, or other events: refused */
	g = ga[1];
	snprintf(g.status, sizeof g.status, "adjourned");
	ASSERT_EQ(refused(&b, W(b, game_put, &g, ea, na, &err), &err), STORE_ECORRUPT);
	ASSERT(mentions(err.text, "status"));
	ea[3].time_ms++;
	ASSERT_EQ(refused(&b, W(b, game_put, &ga[1], ea, na, &err), &err), STORE_ECORRUPT);
	ASSERT(mentions(err.text, "time_ms"));
	ea[3].time_ms--;
	ASSERT_EQ(refused(&b, W(b, game_put, &ga[1], ea, na - 1, &err), &err), STORE_ECORRUPT);
	ASSERT(mentions(err.text, "nevents"));
	/* a new game out of serial order, or not a game a store holds: refused */
	snprintf(g.id, sizeof g.id, "g9");
	g.serial = 2;
	ASSERT_EQ(refused(&b, W(b, game_put, &g, ea, na, &err), &err), STORE_EINVAL);
	g = ga[1];
	snprintf(g.id, sizeof g.id, "g9");
	g.serial = 9;
	snprintf(g.result, sizeof g.result, "win"); /* a result, not finished */
	ASSERT_EQ(W(b, game_put, &g, ea, na, &err), STORE_EINVAL);
	store_events_free(ea, na);
	/* a new game goes on after the highest number given, on both sides alike */
	ASSERT_EQ(add_game(&a.w, "g6", GAME_HOKITO, 7, 400), 0);
	ASSERT_EQ(commit(&a, &err), 0);
	ASSERT_EQ(add_game(&b.w, "g6", GAME_HOKITO, 7, 400), 0);
	ASSERT_EQ(commit(&b, &err), 0);
	ASSERT_EQ(R(ra, games_page, 5, 8, ga, NULL, &err), 1);
	ASSERT_EQ(R(rb, games_page, 5, 8, gb, NULL, &err), 1);
	ASSERT_EQ(ga[0].serial, 6);
	ASSERT_EQ(gb[0].serial, 6);
	rd_close(&ra);
	rd_close(&rb);
	st_close(&a);
	st_close(&b);
	ASSERT_EQ(check(da), 0);
	ASSERT_EQ(check(db), 0);
}

/* rating_pairs()'s rows of accounts 1 and 2, by account. */
static int
pair_row_cb(void *ctx, const struct store_rating_pair *p)
{
	struct store_rating_pair *rows = ctx;

	if (p->account >= 1 && p->account <= 2)
		rows[p->account - 1] = *p;
	return 0;
}

/*
 * A rated game's rating changes read for a copy (with their end, the game's kind, each seat's
 * score by the game's result and the other seat's account) and put into another store as they
 * were stored, moving neither a ratings row nor a pair; then the rating pairs, then the ratings
 * rows exactly as given (opponents included, whatever the pairs counted). Each put again is
 * taken; with other values it is refused (STORE_ECORRUPT), a ratings row that cannot be one too
 * (STORE_EINVAL).
 */
TEST(contract_copy_ratings)
{
	static const int64_t pair12[2] = {1, 2};
	static const double win[2] = {1.0, 0.0};
	struct store_rating_change ch[2], back[2];
	struct store_rating_pair pairs[2], got[2];
	struct store_rating src[4], rows[4], want;
	struct store_read_port ra, rb;
	struct store_game page[1];
	struct store_event *ev;
	struct store_error err;
	struct st a, b;
	size_t nev;

	FRESH();
	ASSERT_EQ(st_open(&a, db, NULL, &err), 0);
	ASSERT_EQ(add_account(&a, 1, "alice", "account", 1, &err), 0);
	ASSERT_EQ(add_account(&a, 2, "bob", "account", 2, &err), 0);
	ASSERT_EQ(rated_game(&a, "g1", pair12, 100, 9000, "win"), 0);
	ASSERT_EQ(rate(&a, "g1", pair12, win, (const double[2][2]){{1500, 350}, {1500, 350}},
	               (const double[2][2]){{1662.3, 290.25}, {1337.7, 290.25}}, 9000),
	          0);
	ASSERT_EQ(commit(&a, &err), 0);
	ASSERT_EQ(reader(&a, &ra), 0);
	ASSERT_EQ(R(ra, rating_changes, "g1", ch, &err), 2);
	ASSERT_EQ(ch[0].seat, 0);
	ASSERT_EQ(ch[0].account, 1);
	ASSERT_EQ(ch[1].ended_ms, 9000);
	ASSERT_EQ(ch[0].opponent, 2);
	ASSERT_EQ(ch[1].opponent, 1);
	ASSERT_EQ(ch[1].kind, GAME_HOKITO);
	ASSERT(ch[0].score == 1.0 && ch[1].score == 0.0);
	ASSERT(ch[0].after[0] == 1662.3 && ch[1].after[1] == 290.25 && ch[1].before[2] == 0.06);
	ASSERT_EQ(R(ra, rating_changes, "g0", back, &err), 0);
	memset(pairs, 0, sizeof pairs);
	ASSERT_EQ(R(ra, rating_pairs, pair_row_cb, pairs, &err), 2);
	ASSERT_EQ(pairs[0].opponent, 2);
	ASSERT_EQ(pairs[0].games, 1);
	ASSERT_EQ(pairs[1].kind, GAME_HOKITO);
	memset(src, 0, sizeof src);
	ASSERT_EQ(W(a, ratings_load, rating_cb, src, &err), 2);
	ASSERT_EQ(src[0].opponents, 1);
	ASSERT_EQ(src[0].wins, 1);
	ASSERT_EQ(src[1].losses, 1);
	ASSERT_EQ(R(ra, games_page, 0, 1, page, NULL, &err), 1);
	ASSERT_EQ(R(ra, events, "g1", NULL, &ev, &nev, &err), 0);
	rd_close(&ra);
	st_close(&a);

	/* into b as stored: the game and its changes, then the pairs, then the rows */
	FRESH();
	ASSERT_EQ(st_open(&b, db, NULL, &err), 0);
	ASSERT_EQ(add_account(&b, 1, "alice", "account", 1, &err), 0);
	ASSERT_EQ(add_account(&b, 2, "bob", "account", 2, &err), 0);
	ASSERT_EQ(W(b, game_put, &page[0], ev, nev, &err), 0);
	store_events_free(ev, nev);
	for (int s = 0; s < 2; s++)
		ASSERT_EQ(W(b, rating_change_put, "g1", &ch[s], &err), 0);
	ASSERT_EQ(W(b, rating_change_put, "g1", &ch[1], &err), 0); /* again: taken */
	ASSERT_EQ(commit(&b, &err), 0);
	ASSERT_EQ(reader(&b, &rb), 0);
	ASSERT_EQ(R(rb, rating_changes, "g1", back, &err), 2);
	for (int s = 0; s < 2; s++) {
		ASSERT(back[s].seat == ch[s].seat && back[s].account == ch[s].account &&
		       back[s].kind == ch[s].kind && back[s].score == ch[s].score &&
		       back[s].opponent == ch[s].opponent && back[s].ended_ms == ch[s].ended_ms);
		for (int k = 0; k < 3; k++)
			ASSERT(back[s].before[k] == ch[s].before[k] &&
			       back[s].after[k] == ch[s].after[k]);
	}
	memset(rows, 0, sizeof rows);
	ASSERT_EQ(W(b, ratings_load, rating_cb, rows, &err), 0);   /* no ratings row moved */
	ASSERT_EQ(R(rb, rating_pairs, pair_row_cb, got, &err), 0); /* nor a pair */
	for (int s = 0; s < 2; s++)
		ASSERT_EQ(W(b, rating_pair_put, &pairs[s], &err), 0);
	want = src[0];
	want.best = 1701.25; /* a value no change gives: the row goes as it is */
	want.opponents = 7;  /* ... and its opponents as given, whatever the pairs counted */
	ASSERT_EQ(W(b, rating_put, &want, &err), 0);
	ASSERT_EQ(W(b, rating_put, &src[1], &err), 0);
	ASSERT_EQ(commit(&b, &err), 0);
	memset(rows, 0, sizeof rows);
	ASSERT_EQ(W(b, ratings_load, rating_cb, rows, &err), 2);
	ASSERT(rows[0].best == 1701.25 && rows[0].rating == src[0].rating &&
	       rows[0].rd == src[0].rd && rows[0].vol == src[0].vol);
	ASSERT_EQ(rows[0].opponents, 7);
	ASSERT_EQ(rows[0].wins, 1);
	ASSERT_EQ(rows[0].updated_ms, src[0].updated_ms);
	ASSERT_EQ(rows[1].opponents, 1);
	ASSERT_EQ(rows[1].losses, 1);
	memset(got, 0, sizeof got);
	ASSERT_EQ(R(rb, rating_pairs, pair_row_cb, got, &err), 2);
	for (int s = 0; s < 2; s++)
		ASSERT(got[s].account == pairs[s].account && got[s].kind == pairs[s].kind &&
		       got[s].opponent == pairs[s].opponent && got[s].games == pairs[s].games);
	/* again: taken; a ratings row again replaces the one there */
	ASSERT_EQ(W(b, rating_pair_put, &pairs[0], &err), 0);
	ASSERT_EQ(W(b, rating_put, &src[0], &err), 0);
	ASSERT_EQ(commit(&b, &err), 0);
	memset(rows, 0, sizeof rows);
	ASSERT_EQ(W(b, ratings_load, rating_cb, rows, &err), 2);
	ASSERT(rows[0].best == src[0].best);
	ASSERT_EQ(rows[0].opponents, 1);
	/* other values: refused */
	want = src[0];
	want.rd = 0;
	ASSERT_EQ(W(b, rating_put, &want, &err), STORE_EINVAL);
	back[1].after[1] = 1;
	ASSERT_EQ(refused(&b, W(b, rating_change_put, "g1", &back[1], &err), &err), STORE_ECORRUPT);
	pairs[0].games = 2;
	ASSERT_EQ(refused(&b, W(b, rating_pair_put, &pairs[0], &err), &err), STORE_ECORRUPT);
	rd_close(&rb);
	st_close(&b);
	ASSERT_EQ(check(db), 0);
}

/*
 * A store opened without the writer's lock (store_db_options.writer 0, hokitod migrate's
 * source) reads one moment, that of its open, through both its ports, whatever a writer beside
 * it commits meanwhile; its writes are refused, at the call or at the commit, which is refused
 * (STORE_ECONFLICT) even with nothing queued. One opened later sees the later moment. There is no
 * such store where none is, and looking makes none.
 */
TEST(contract_copy_moment)
{
	struct store_db_options look = {STORE_FSYNC_NORMAL, 1, 0};
	struct store_read_port rr, rl;
	struct store_game page[4];
	struct store_error err;
	struct accounts acc = {0};
	struct st w, r, later;
	uint64_t ticket;
	int64_t total, v;

	FRESH();
	ASSERT_EQ(st_open(&w, db, NULL, &err), 0);
	ASSERT_EQ(add_game(&w.w, "g1", GAME_HOKITO, 1, 1000), 0);
	ASSERT_EQ(commit(&w, &err), 0);
	ASSERT_EQ(st_open(&r, db, &look, &err), 0); /* beside the writer: no lock */
	ASSERT_EQ(reader(&r, &rr), 0);
	ASSERT_EQ(add_game(&w.w, "g2", GAME_OXONO, 2, 1001), 0);
	ASSERT_EQ(add_account(&w, 1, "alice", "account", 1, &err), 0);
	ASSERT_EQ(W(w, meta_set, "next_game", 3, &err), 0);
	ASSERT_EQ(commit(&w, &err), 0);
	ASSERT_EQ(R(rr, games_page, 0, 4, page, &total, &err), 1);
	ASSERT_EQ(total, 1);
	ASSERT_EQ(W(r, accounts_load, account_cb, &acc, &err), 0);
	ASSERT_EQ(W(r, meta_get, "next_game", &v, &err), STORE_ENOTFOUND);
	ASSERT_EQ(st_open(&later, db, &look, &err), 0);
	ASSERT_EQ(reader(&later, &rl), 0);
	ASSERT_EQ(R(rl, games_page, 0, 4, page, &total, &err), 2);
	ASSERT_EQ(total, 2);
	ASSERT_EQ(W(later, accounts_load, account_cb, &acc, &err), 1);
	rd_close(&rl);
	st_close(&later);
	ASSERT_EQ(R(rr, games_page, 0, 4, page, NULL, &err), 1); /* still its moment */
	/* a write: refused at the call (a read-only file) or at the commit, nothing written */
	ASSERT(refused(&r, W(r, meta_set, "next_game", 9, &err), &err) < 0);
	ASSERT_EQ(W(r, commit, &ticket, &err), STORE_ECONFLICT);
	rd_close(&rr);
	st_close(&r);
	ASSERT_EQ(W(w, meta_get, "next_game", &v, &err), 0);
	ASSERT_EQ(v, 3);
	st_close(&w);
	FRESH();
	ASSERT_EQ(store_db_open(db, &look, &r.s, &err), STORE_ENOTFOUND);
	ASSERT_EQ(store_db_open(db, &look, &r.s, &err), STORE_ENOTFOUND);
	look.writer = 1;
	ASSERT_EQ(store_db_open(db, &look, &r.s, &err), STORE_ENOTFOUND);
}

/*
 * A store that an open made is removed again by store_db_discard(), with what was written to it
 * since (a copy that failed): the next look finds none (STORE_ENOTFOUND), and the next open makes
 * it anew, empty. One that was there before the open stays, with its rows.
 */
TEST(contract_discard)
{
	struct store_db_options look = {STORE_FSYNC_NORMAL, 1, 0};
	struct store_read_port rd;
	struct store_game page[2];
	struct store_error err;
	struct store_db *s;
	struct st t;
	int64_t total = -1;

	FRESH();
	ASSERT_EQ(store_db_open(db, NULL, &s, &err), 0);
	store_db_write_port(s, &t.w);
	ASSERT_EQ(add_game(&t.w, "g1", GAME_HOKITO, 1, 1000), 0);
	t.s = s;
	ASSERT_EQ(commit(&t, &err), 0);
	store_db_discard(s);
	ASSERT_EQ(store_db_open(db, &look, &s, &err), STORE_ENOTFOUND);
	ASSERT_EQ(st_open(&t, db, NULL, &err), 0); /* made anew, empty */
	ASSERT_EQ(reader(&t, &rd), 0);
	ASSERT_EQ(R(rd, games_page, 0, 2, page, &total, &err), 0);
	ASSERT_EQ(total, 0);
	ASSERT_EQ(add_game(&t.w, "g1", GAME_HOKITO, 1, 1000), 0);
	ASSERT_EQ(commit(&t, &err), 0);
	rd_close(&rd);
	st_close(&t);
	ASSERT_EQ(store_db_open(db, NULL, &s, &err), 0); /* there before: it stays */
	store_db_discard(s);
	ASSERT_EQ(st_open(&t, db, &look, &err), 0);
	ASSERT_EQ(reader(&t, &rd), 0);
	ASSERT_EQ(R(rd, games_page, 0, 2, page, &total, &err), 1);
	ASSERT_EQ(total, 1);
	rd_close(&rd);
	st_close(&t);
}

/*
 * What a backend is known not to keep yet: its test runs, and is reported as TAP's "# TODO" with
 * the reason (an expected failure). Once the backend keeps it, the test passes, meson calls that
 * an unexpected pass (a failure), and the line goes.
 */
static const struct {
	const char *backend, *test, *why;
} gaps[] = {
        {"pg", "contract_corrupt_event",
         "the PostgreSQL backend checks an event's seq against where the game stands in this "
         "process before the store: one sent again after its commit held is refused as not "
         "following (STORE_EINVAL), neither success nor STORE_ECORRUPT"},
        {"pg", "contract_refused_commit",
         "after a commit the database refused, the PostgreSQL writer's connection stays in the "
         "aborted transaction: its start-up reads fail (SQLSTATE 25P02, STORE_EIO)"},
};

/* The known gap of test name on the backend under test (gaps[]), or NULL. */
static const char *
gap(const char *name)
{
	for (size_t i = 0; i < sizeof gaps / sizeof gaps[0]; i++)
		if (strcmp(gaps[i].backend, be->arg) == 0 && strcmp(gaps[i].test, name) == 0)
			return gaps[i].why;
	return NULL;
}

/* RUN(name), as a TODO where the backend has a known gap; what it left open is closed. */
#define RUN_CONTRACT(name)                                                                         \
	do {                                                                                       \
		RUN_TODO(name, gap(#name));                                                        \
		leave();                                                                           \
	} while (0)

int
main(int argc, char **argv)
{
	for (size_t i = 0; argc == 2 && i < sizeof backends / sizeof backends[0]; i++)
		if (strcmp(argv[1], backends[i].arg) == 0)
			be = &backends[i];
	if (be == NULL) {
		fprintf(stderr, "usage: %s sqlite|pg\n", argv[0]);
		return 2;
	}
	if (be->init() < 0) {
		printf("Bail out! no %s store to test\n", be->arg);
		return 1;
	}
	RUN_CONTRACT(contract_reload);
	RUN_CONTRACT(contract_load_recent);
	RUN_CONTRACT(contract_refusals);
	RUN_CONTRACT(contract_refused_commit);
	RUN_CONTRACT(contract_events);
	RUN_CONTRACT(contract_history);
	RUN_CONTRACT(contract_record);
	RUN_CONTRACT(contract_keep);
	RUN_CONTRACT(contract_accounts);
	RUN_CONTRACT(contract_unused_accounts);
	RUN_CONTRACT(contract_ratings);
	RUN_CONTRACT(contract_conflict_version);
	RUN_CONTRACT(contract_idempotent);
	RUN_CONTRACT(contract_corrupt_event);
	RUN_CONTRACT(contract_corrupt);
	RUN_CONTRACT(contract_async);
	RUN_CONTRACT(contract_copy_games);
	RUN_CONTRACT(contract_copy_ratings);
	RUN_CONTRACT(contract_copy_moment);
	RUN_CONTRACT(contract_discard);
	be->fini();
	TEST_END();
}
