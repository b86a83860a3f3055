/*
 * test-store-pg.c: the PostgreSQL backend of the store (server/store/postgresql/) on a real
 * PostgreSQL, the throw-away one of tests/pgtmp.py (`pgtmp.py run -- test-store-pg`: the URI in
 * HOKITO_TEST_PG_URI; without it the test skips). Each case keeps its store in a schema of its
 * own (the URI's search_path). Through the ports alone, as the server uses them: create, write,
 * commit, reopen and load (replayed through the rules); what is not committed is lost; bodies
 * byte for byte; refusals at the call and at the commit; every write again is success (a retry)
 * and other contents are refused; history by key, records and the viewer rule, the leaderboard,
 * ratings, unused accounts, --keep-days; the check and what it finds; a second writer, a foreign
 * database, a newer schema, a URI's password never shown; and on a real libuv loop the tickets
 * answered in order, and the writer's connection killed (pg_terminate_backend): the commit in
 * flight fails through done(), commits are refused until the backend reconnects by itself, and
 * the writes written again hold, nothing lost.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>
#include <uv.h>

#include "game.h"
#include "record.h"
#include "rng.h"
#include "store-db.h"
#include "store-pg.h"
#include "test.h"

static const char *base_uri; /* HOKITO_TEST_PG_URI */
static PGconn *admin;        /* our own connection, for SQL the store would not run */
static char uri[1024];       /* the URI of the running case's store (its schema) */

static const struct store_backend *const be = &store_backend_postgresql;
static const struct store_db_options writer = {STORE_FSYNC_NORMAL, 0, 1};

/* Run SQL on our own connection: 0, or -1 (printed). */
static int
sql(const char *text)
{
	PGresult *r = PQexec(admin, text);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;

	if (!ok)
		printf("# sql: %s: %s", text, PQerrorMessage(admin));
	PQclear(r);
	return ok ? 0 : -1;
}

/* The integer answer of a query in schema (-1 for none). */
static int64_t
sql_int(const char *schema, const char *text)
{
	char full[1024];
	PGresult *r;
	int64_t v = -1;

	snprintf(full, sizeof full, "SET search_path = %s", schema);
	sql(full);
	r = PQexec(admin, text);
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
		v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	else if (PQresultStatus(r) != PGRES_TUPLES_OK)
		printf("# sql: %s: %s", text, PQerrorMessage(admin));
	PQclear(r);
	sql("SET search_path = public");
	return v;
}

/* A fresh schema for a case, and uri naming it. */
static const char *
fresh(const char *schema)
{
	char text[256];

	snprintf(text, sizeof text, "DROP SCHEMA IF EXISTS %s CASCADE", schema);
	sql(text);
	snprintf(text, sizeof text, "CREATE SCHEMA %s", schema);
	sql(text);
	snprintf(uri, sizeof uri, "%s%soptions=-csearch_path%%3D%s", base_uri,
	         strchr(base_uri, '?') != NULL ? "&" : "?", schema);
	return uri;
}

/* An open store on uri, its write port in *wp. */
static void *
open_store(const struct store_db_options *o, struct store_write_port *wp, struct store_error *err)
{
	void *impl = NULL;

	if (be->open(uri, o, &impl, err) < 0) {
		printf("# open: %s\n", err->text);
		return NULL;
	}
	be->write_port(impl, wp);
	return impl;
}

/* Commit before start(): durable at return, no ticket. */
static int
commit(struct store_write_port *wp, struct store_error *err)
{
	uint64_t ticket = 99;
	int rc = wp->commit(wp->impl, &ticket, err);

	if (rc < 0)
		printf("# commit: %s\n", err->text);
	return rc < 0 ? rc : ticket != 0 ? -100 : 0;
}

/* Add a game with both seats taken and started: events 1..3. */
static int
add_game(struct store_write_port *wp, const char *id, enum game_kind kind, uint64_t seed,
         int64_t now, int64_t acc0, int64_t acc1)
{
	struct store_game g = {.kind = kind, .seed = seed, .created_ms = now};
	struct store_event ev = {.time_ms = now};
	char body[128];
	int rc;

	snprintf(g.id, sizeof g.id, "%s", id);
	snprintf(g.variant, sizeof g.variant, "standard");
	if ((rc = wp->game_add(wp->impl, &g, NULL)) < 0)
		return rc;
	for (int seat = 0; seat < 2; seat++) {
		char pid[16];
		snprintf(pid, sizeof pid, "p%d", seat + 1);
		if ((rc = wp->seat_set(wp->impl, id, seat, pid, seat ? "bob" : "alice",
		                       seat ? acc1 : acc0, NULL)) < 0)
			return rc;
		ev.seq = seat + 1;
		ev.type = "seated";
		snprintf(body, sizeof body, "{\"type\":\"seated\",\"game\":\"%s\",\"seq\":%d}", id,
		         seat + 1);
		ev.body = body;
		if ((rc = wp->event_add(wp->impl, id, &ev, NULL)) < 0)
			return rc;
	}
	ev.seq = 3;
	ev.type = "started";
	ev.body = "{\"type\":\"started\"}";
	if ((rc = wp->event_add(wp->impl, id, &ev, NULL)) < 0)
		return rc;
	return wp->status_set(wp->impl, id, "live", NULL);
}

/* Play up to n random moves on game id whose position is g; seq is its last seq. */
static int
play(struct store_write_port *wp, const char *id, struct game *g, int64_t *seq, int n,
     struct rng *rng)
{
	struct game_move moves[GAME_MOVES_MAX];
	char text[GAME_MOVE_TEXT], body[128];
	int rc, k;

	for (int i = 0; i < n && (k = game_moves(g, moves)) > 0; i++) {
		struct game_move m = moves[rng_below(rng, (uint32_t)k)];
		struct store_event ev = {.seq = ++*seq, .time_ms = 1000 + *seq, .type = "moved"};
		game_move_format(g->kind, m, text, sizeof text);
		snprintf(body, sizeof body, "{\"type\":\"moved\",\"move\":\"%s\"}", text);
		ev.move = text;
		ev.body = body;
		if ((rc = wp->event_add(wp->impl, id, &ev, NULL)) < 0)
			return rc;
		game_apply(g, m);
	}
	return 0;
}

/* Finish game id by its rules (the position g must be over). */
static int
finish(struct store_write_port *wp, const char *id, const struct game *g, int64_t *seq,
       int64_t ended)
{
	struct store_event ev = {.seq = ++*seq, .time_ms = ended, .type = "game_over"};
	struct game_outcome o;
	int rc;

	game_outcome(g, &o);
	ev.body = "{\"type\":\"game_over\"}";
	if ((rc = wp->event_add(wp->impl, id, &ev, NULL)) < 0)
		return rc;
	return wp->game_finish(wp->impl, id, ended, o.winner < 0 ? "draw" : "win", o.winner,
	                       o.end == GAME_END_BLOCKED ? "blocked"
	                       : o.end == GAME_END_LINE  ? "line"
	                                                 : "full",
	                       o.score, NULL);
}

/* End game id (no moves needed) by resignation ("win", seat 0) or agreement ("draw"). */
static int
finish_as(struct store_write_port *wp, const char *id, int64_t *seq, int64_t ended,
          const char *result)
{
	struct store_event ev = {.seq = ++*seq, .time_ms = ended, .type = "game_over"};
	int rc;

	ev.body = "{\"type\":\"game_over\"}";
	if ((rc = wp->event_add(wp->impl, id, &ev, NULL)) < 0)
		return rc;
	return wp->game_finish(wp->impl, id, ended, result, strcmp(result, "win") == 0 ? 0 : -1,
	                       strcmp(result, "win") == 0 ? "resign" : "agreement", NULL, NULL);
}

struct loaded {
	int n;
	struct store_game g[8];
	char pos[8][GAME_TEXT_MAX];
	size_t nev[8];
	char last_body[8][128];
};

static int
load_cb(void *ctx, const struct store_game *g, const struct store_event *ev, size_t n,
        const struct game *start, const struct game *position)
{
	struct loaded *l = ctx;

	(void)start;
	if (l->n >= 8)
		return 1;
	l->g[l->n] = *g;
	game_format(position, l->pos[l->n], sizeof l->pos[0]);
	l->nev[l->n] = n;
	snprintf(l->last_body[l->n], sizeof l->last_body[0], "%s", n ? ev[n - 1].body : "");
	l->n++;
	return 0;
}

static int
session_cb(void *ctx, const struct store_session *s)
{
	int *n = ctx;

	(*n)++;
	return strcmp(s->name, "alice") == 0 && s->seat == 0 ? 0 : 1;
}

static const struct store_session alice = {.token = "0123456789abcdef0123456789abcdef",
                                           .player_id = "p1",
                                           .name = "alice",
                                           .game_id = "g1",
                                           .seat = 0,
                                           .updated_ms = 7};

/* Write two games (one live, one finished) and a session; reopen; get them back, replayed. */
TEST(pg_create_reload)
{
	struct store_write_port wp;
	struct store_error err;
	struct game live, done;
	struct loaded l = {0};
	struct rng rng;
	int64_t seq1 = 3, seq2 = 3, v;
	char text[GAME_TEXT_MAX];
	int sessions = 0;
	void *st;

	rng_init(&rng, 9);
	fresh("t_reload");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	ASSERT_EQ(be->schema(st), 11);
	ASSERT_EQ(be->is_temporary(st), 0);
	ASSERT_EQ(add_game(&wp, "g1", GAME_HOKITO, 1, 1000, 0, 0), 0);
	ASSERT_EQ(add_game(&wp, "g2", GAME_OXONO, 2, 1001, 0, 0), 0);
	game_start(&live, GAME_HOKITO, NULL, 1, NULL);
	game_start(&done, GAME_OXONO, NULL, 2, NULL);
	ASSERT_EQ(play(&wp, "g1", &live, &seq1, 6, &rng), 0);
	ASSERT_EQ(play(&wp, "g2", &done, &seq2, 100, &rng), 0);
	ASSERT(game_over(&done));
	ASSERT_EQ(finish(&wp, "g2", &done, &seq2, 5000), 0);
	ASSERT_EQ(wp.session_set(wp.impl, &alice, &err), 0);
	ASSERT_EQ(wp.meta_set(wp.impl, "next_game", 3, &err), 0);
	ASSERT(wp.pending(wp.impl) > 10);
	ASSERT_EQ(commit(&wp, &err), 0);
	ASSERT_EQ(wp.pending(wp.impl), 0);
	ASSERT_EQ(commit(&wp, &err), 0); /* nothing queued: nothing to do */
	{ /* written but never committed: lost at close, and only that */
		struct game more = live;
		int64_t seq = seq1;
		ASSERT_EQ(play(&wp, "g1", &more, &seq, 1, &rng), 0);
	}
	be->close(st);

	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	ASSERT_EQ(wp.load(wp.impl, 10, load_cb, &l, &err), 2);
	ASSERT_STR_EQ(l.g[0].id, "g1");
	ASSERT_STR_EQ(l.g[0].status, "live");
	ASSERT_STR_EQ(l.g[0].seat_name[1], "bob");
	ASSERT_EQ(l.g[0].seat_account[1], -1);
	ASSERT_EQ(l.g[0].nevents, seq1);
	ASSERT_EQ(l.nev[0], (size_t)seq1);
	game_format(&live, text, sizeof text);
	ASSERT_STR_EQ(l.pos[0], text);
	ASSERT_STR_EQ(l.g[1].status, "finished");
	ASSERT_STR_EQ(l.g[1].result, "win");
	ASSERT_EQ(l.g[1].ended_ms, 5000);
	ASSERT_EQ(l.g[1].serial, 2);
	game_format(&done, text, sizeof text);
	ASSERT_STR_EQ(l.pos[1], text);
	ASSERT_STR_EQ(l.last_body[1], "{\"type\":\"game_over\"}");
	l.n = 0; /* recent = 0: only the unfinished game */
	ASSERT_EQ(wp.load(wp.impl, 0, load_cb, &l, &err), 1);
	ASSERT_EQ(wp.sessions_load(wp.impl, session_cb, &sessions, &err), 1);
	ASSERT_EQ(wp.meta_get(wp.impl, "next_game", &v, &err), 0);
	ASSERT_EQ(v, 3);
	ASSERT_EQ(wp.meta_get(wp.impl, "nothing", &v, &err), STORE_ENOTFOUND);
	/* the live game's place is known from the load: a seq that does not follow is refused */
	{
		struct store_event ev = {.seq = seq1 + 2, .type = "chat", .body = "{}"};
		ASSERT_EQ(wp.event_add(wp.impl, "g1", &ev, &err), STORE_EINVAL);
		ASSERT(strstr(err.text, "does not follow event") != NULL);
	}
	ASSERT_EQ(wp.session_remove(wp.impl, alice.token, &err), 0);
	ASSERT_EQ(commit(&wp, &err), 0);
	sessions = 0;
	ASSERT_EQ(wp.sessions_load(wp.impl, session_cb, &sessions, &err), 0);
	be->close(st);
}

/* An event's body comes back byte for byte, with its length: bytes of any value. */
TEST(pg_bodies)
{
	static const char odd[] = "{\"x\":\"\xc3\xa9\x01\xff\xfe\"}tail";
	struct store_read_port rp;
	struct store_write_port wp;
	struct store_error err;
	struct store_event *evs, ev = {.seq = 4, .time_ms = 9, .type = "chat"};
	size_t n;
	void *st;

	fresh("t_bodies");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	ASSERT_EQ(add_game(&wp, "g1", GAME_HOKITO, 1, 1000, 0, 0), 0);
	ev.body = odd;
	ev.body_len = sizeof odd - 1 - 4; /* the line without its "tail" */
	ASSERT_EQ(wp.event_add(wp.impl, "g1", &ev, &err), 0);
	ASSERT_EQ(commit(&wp, &err), 0);
	ASSERT_EQ(be->reader_open(st, &rp, &err), 0);
	ASSERT_EQ(rp.loop_only, 0);
	ASSERT_EQ(rp.events(rp.impl, "g1", NULL, &evs, &n, &err), 0);
	ASSERT_EQ(n, 4);
	ASSERT_EQ(evs[3].body_len, sizeof odd - 5);
	ASSERT(memcmp(evs[3].body, odd, sizeof odd - 5) == 0);
	ASSERT_EQ(evs[3].body[evs[3].body_len], '\0');
	ASSERT_STR_EQ(evs[0].type, "seated");
	ASSERT(evs[0].move == NULL);
	store_events_free(evs, n);
	ASSERT_EQ(rp.events(rp.impl, "g7", NULL, &evs, &n, &err), STORE_ENOTFOUND);
	ASSERT(evs == NULL);
	rp.close(rp.impl);
	be->close(st);
}

/* Arguments that break the store's rules are refused at the call; a game that is not there at
 * the commit, and then nothing of the turn is stored. */
TEST(pg_refusals)
{
	struct store_event ev = {.seq = 5, .time_ms = 1, .type = "moved", .move = "a1-a3"};
	struct store_write_port wp;
	struct store_read_port rp;
	struct store_error err;
	struct store_event *evs;
	size_t n;
	void *st;

	fresh("t_refusals");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	ASSERT_EQ(add_game(&wp, "g1", GAME_HOKITO, 1, 1000, 0, 0), 0);
	ev.body = "{}";
	ASSERT_EQ(wp.event_add(wp.impl, "g1", &ev, &err), STORE_EINVAL);
	ASSERT(strstr(err.text, "does not follow event 3") != NULL);
	ev.seq = 4;
	ev.type = "seated";
	ASSERT_EQ(wp.event_add(wp.impl, "g1", &ev, &err), STORE_EINVAL);
	ASSERT_EQ(wp.seat_set(wp.impl, "g1", 2, "p1", "x", 0, &err), STORE_EINVAL);
	ASSERT_EQ(wp.status_set(wp.impl, "g1", "finished", &err), STORE_EINVAL);
	ev.type = "moved";
	ASSERT_EQ(wp.event_add(wp.impl, "g1", &ev, &err), 0);
	ASSERT_EQ(commit(&wp, &err), 0);
	/* no game g9: the commit says so, and its other writes are not stored either */
	ev.seq = 5;
	ev.move = "a3-a1";
	ASSERT_EQ(wp.event_add(wp.impl, "g1", &ev, &err), 0);
	ASSERT_EQ(wp.seat_set(wp.impl, "g9", 0, "p1", "x", 0, &err), 0);
	ASSERT_EQ(commit(&wp, &err), STORE_ENOTFOUND);
	ASSERT(strstr(err.text, "g9") != NULL);
	ASSERT_EQ(wp.pending(wp.impl), 0);
	/* an event out of order that the call could not know of (the place is unknown after a
	 * failure) is refused by the database */
	ev.seq = 7;
	ASSERT_EQ(wp.event_add(wp.impl, "g1", &ev, &err), 0);
	ASSERT_EQ(commit(&wp, &err), STORE_EINVAL);
	ASSERT(strstr(err.text, "does not follow event 4") != NULL);
	ASSERT_EQ(be->reader_open(st, &rp, &err), 0);
	ASSERT_EQ(rp.events(rp.impl, "g1", NULL, &evs, &n, &err), 0);
	ASSERT_EQ(n, 4);
	ASSERT_STR_EQ(evs[3].move, "a1-a3");
	store_events_free(evs, n);
	/* the store goes on after failures */
	ev.seq = 5;
	ASSERT_EQ(wp.event_add(wp.impl, "g1", &ev, &err), 0);
	ASSERT_EQ(commit(&wp, &err), 0);
	ASSERT_EQ(sql_int("t_refusals", "SELECT MAX(ply) FROM events WHERE game_id = 'g1'"), 2);
	rp.close(rp.impl);
	be->close(st);
}

/* Every write again is success (a retry of a commit whose outcome is unknown) and changes no
 * count; the same key with other contents fails the commit with STORE_ECORRUPT. */
TEST(pg_idempotent)
{
	struct store_write_port wp;
	struct store_error err;
	struct store_account a = {.id = 1, .created_ms = 1};
	struct store_rating_change c = {.seat = 0,
	                                .account = 1,
	                                .kind = GAME_HOKITO,
	                                .before = {1500, 350, 0.06},
	                                .after = {1662.3, 290.3, 0.06},
	                                .score = 1.0,
	                                .opponent = 2};
	struct store_event ev = {.seq = 5, .time_ms = 9, .type = "chat", .body = "{\"a\":1}"};
	void *st;

	fresh("t_retry");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	snprintf(a.name, sizeof a.name, "Ann");
	snprintf(a.key, sizeof a.key, "ann");
	snprintf(a.skeleton, sizeof a.skeleton, "ann");
	snprintf(a.hash, sizeof a.hash, "h1");
	snprintf(a.kind, sizeof a.kind, "account");
	for (int round = 0; round < 2; round++) {
		struct store_account b = a;
		int64_t seq = 3;
		b.id = 2;
		snprintf(b.name, sizeof b.name, "Ben");
		snprintf(b.key, sizeof b.key, "ben");
		ASSERT_EQ(wp.account_add(wp.impl, &a, &err), 0);
		ASSERT_EQ(wp.account_add(wp.impl, &b, &err), 0);
		ASSERT_EQ(add_game(&wp, "g1", GAME_HOKITO, 1, 1000, 1, 2), 0);
		ASSERT_EQ(finish_as(&wp, "g1", &seq, 2000, "win"), 0);
		ASSERT_EQ(wp.rating_change(wp.impl, "g1", &c, 2000, &err), 0);
		ASSERT_EQ(wp.status_set(wp.impl, "g1", "live", &err),
		          0); /* after its end: nothing */
		ASSERT_EQ(wp.session_set(wp.impl, &alice, &err), 0);
		ASSERT_EQ(wp.meta_set(wp.impl, "next_game", 2, &err), 0);
		ASSERT_EQ(commit(&wp, &err), 0);
		if (round ==
		    0) { /* the hash changes after: the account written again is the same */
			snprintf(a.hash, sizeof a.hash, "h2");
			ASSERT_EQ(wp.account_update(wp.impl, &a, &err), 0);
			ASSERT_EQ(commit(&wp, &err), 0);
		}
	}
	ASSERT_EQ(sql_int("t_retry", "SELECT COUNT(*) FROM events"), 4);
	ASSERT_EQ(sql_int("t_retry", "SELECT n FROM counts WHERE name = 'finished_public'"), 1);
	ASSERT_EQ(sql_int("t_retry", "SELECT n FROM counts WHERE name = 'a1'"), 1);
	ASSERT_EQ(sql_int("t_retry", "SELECT games FROM ratings WHERE account = 1"), 1);
	ASSERT_EQ(sql_int("t_retry", "SELECT opponents FROM ratings WHERE account = 1"), 1);
	ASSERT_EQ(sql_int("t_retry", "SELECT games FROM rating_pairs WHERE account = 1"), 1);
	ASSERT_EQ(sql_int("t_retry", "SELECT serial FROM games WHERE id = 'g1'"), 1);
	ASSERT_EQ(sql_int("t_retry", "SELECT COUNT(*) FROM games WHERE status = 'finished'"), 1);
	/* the same keys, other contents: refused, and the turn with them */
	ASSERT_EQ(wp.event_add(wp.impl, "g1", &ev, &err), 0);
	ASSERT_EQ(commit(&wp, &err), 0);
	ev.body = "{\"a\":2}";
	ASSERT_EQ(wp.event_add(wp.impl, "g1", &ev, &err), 0);
	ASSERT_EQ(commit(&wp, &err), STORE_ECORRUPT);
	ASSERT(strstr(err.text, "stored with other contents") != NULL);
	{
		struct store_game g = {.kind = GAME_HOKITO, .seed = 2, .created_ms = 1000};
		snprintf(g.id, sizeof g.id, "g1");
		snprintf(g.variant, sizeof g.variant, "standard");
		ASSERT_EQ(wp.game_add(wp.impl, &g, &err), 0);
		ASSERT_EQ(commit(&wp, &err), STORE_ECORRUPT);
	}
	ASSERT_EQ(wp.game_finish(wp.impl, "g1", 2001, "win", 0, "resign", NULL, &err), 0);
	ASSERT_EQ(commit(&wp, &err), STORE_ECORRUPT);
	c.after[0] = 1700;
	ASSERT_EQ(wp.rating_change(wp.impl, "g1", &c, 2000, &err), 0);
	ASSERT_EQ(commit(&wp, &err), STORE_ECORRUPT);
	snprintf(a.name, sizeof a.name, "Anne");
	ASSERT_EQ(wp.account_add(wp.impl, &a, &err), 0);
	ASSERT_EQ(commit(&wp, &err), STORE_ECORRUPT);
	a.id = 3; /* another account of the same key: a constraint */
	ASSERT_EQ(wp.account_add(wp.impl, &a, &err), 0);
	ASSERT_EQ(commit(&wp, &err), STORE_EINVAL);
	ASSERT_EQ(sql_int("t_retry", "SELECT COUNT(*) FROM events"), 5);
	be->close(st);
}

/* Walk the whole history through a read port by cursor; the ids in order into ids. */
static int
walk_history(const struct store_read_port *rp, size_t limit, char ids[][STORE_ID_MAX],
             int64_t *total)
{
	struct store_history_query q = {.limit = limit};
	struct store_history_page pg;
	struct store_game page[10];
	int n, all = 0;

	do {
		char text[STORE_CURSOR_TEXT];
		if ((n = rp->history(rp->impl, &q, page, &pg, NULL)) < 0)
			return n;
		for (int i = 0; i < n; i++)
			memcpy(ids[all++], page[i].id, STORE_ID_MAX);
		*total = pg.total;
		store_cursor_format(&pg.next, text, sizeof text);
		if (pg.more && store_cursor_parse(text, &q.after) < 0)
			return -100;
		q.has_after = 1;
	} while (pg.more);
	return all;
}

/* History by key with the kept count; private games; records and the viewer rule. */
TEST(pg_history)
{
	char ids[40][STORE_ID_MAX], text[RECORD_TEXT_MAX];
	const struct store_viewer nobody = {0}, bob = {.player_id = "p2"};
	struct store_history_query q = {.limit = 10};
	struct store_history_page pg;
	struct store_write_port wp;
	struct store_read_port rd;
	struct store_game page[10];
	struct store_error err;
	struct rng rng;
	int64_t total;
	void *st;

	rng_init(&rng, 4);
	fresh("t_history");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	for (int i = 0; i < 25; i++) {
		char id[16];
		struct game g;
		int64_t seq = 3;
		snprintf(id, sizeof id, "g%d", i + 1);
		ASSERT_EQ(add_game(&wp, id, (enum game_kind)(i % 2), (uint64_t)i, 1000 + i, 0, 0),
		          0);
		game_start(&g, (enum game_kind)(i % 2), NULL, (uint64_t)i, NULL);
		ASSERT_EQ(play(&wp, id, &g, &seq, 100, &rng), 0);
		/* g11..g15 end at the same time: the creation order decides among them */
		ASSERT_EQ(finish(&wp, id, &g, &seq, i >= 10 && i < 15 ? 50000 : 100000 - i), 0);
	}
	ASSERT_EQ(add_game(&wp, "g26", GAME_HOKITO, 1, 2000, 0, 0), 0); /* live: not history */
	ASSERT_EQ(commit(&wp, &err), 0);
	ASSERT_EQ(be->reader_open(st, &rd, &err), 0);
	for (size_t limit = 1; limit <= 10; limit += 3) {
		ASSERT_EQ(walk_history(&rd, limit, ids, &total), 25);
		ASSERT_EQ(total, 25);
		ASSERT_STR_EQ(ids[0], "g1");
		ASSERT_STR_EQ(ids[9], "g10");
		ASSERT_STR_EQ(ids[10], "g16");
		ASSERT_STR_EQ(ids[19], "g25");
		ASSERT_STR_EQ(ids[20], "g15"); /* the five of 50000, the last created first */
		ASSERT_STR_EQ(ids[24], "g11");
	}
	q.has_after = 1; /* the offset counts from the cursor; a full last page says no more */
	q.after = (struct store_cursor){.ended_ms = 50000, .serial = 14};
	q.offset = 1;
	ASSERT_EQ(rd.history(rd.impl, &q, page, &pg, &err), 2);
	ASSERT_STR_EQ(page[0].id, "g12");
	ASSERT_EQ(pg.more, 0);
	q = (struct store_history_query){.offset = 30, .limit = 10};
	ASSERT_EQ(rd.history(rd.impl, &q, page, &pg, &err), 0);
	q.offset = (int64_t)1 << 62;
	ASSERT_EQ(rd.history(rd.impl, &q, page, &pg, &err), 0);
	ASSERT_EQ(pg.total, 25);
	/* a private finished game is neither listed nor counted; the reader sees commits only */
	{
		struct store_game g = {.kind = GAME_HOKITO, .is_private = 1, .created_ms = 5};
		int64_t seq = 3;
		snprintf(g.id, sizeof g.id, "g27");
		snprintf(g.variant, sizeof g.variant, "standard");
		snprintf(g.code, sizeof g.code, "K7Q2MX9P");
		ASSERT_EQ(wp.game_add(wp.impl, &g, &err), 0);
		for (int seat = 0; seat < 2; seat++)
			ASSERT_EQ(wp.seat_set(wp.impl, "g27", seat, seat ? "p2" : "p1",
			                      seat ? "bob" : "alice", 0, &err),
			          0);
		for (int64_t s = 1; s <= 3; s++) {
			struct store_event ev = {.seq = s, .type = "seated", .body = "{}"};
			ASSERT_EQ(wp.event_add(wp.impl, "g27", &ev, &err), 0);
		}
		ASSERT_EQ(finish_as(&wp, "g27", &seq, 300000, "draw"), 0);
	}
	q = (struct store_history_query){.limit = 3};
	ASSERT_EQ(rd.history(rd.impl, &q, page, &pg, &err), 3);
	ASSERT_STR_EQ(page[0].id, "g1");
	ASSERT_EQ(pg.more, 1);
	ASSERT_EQ(commit(&wp, &err), 0);
	ASSERT_EQ(rd.history(rd.impl, &q, page, &pg, &err), 3);
	ASSERT_STR_EQ(page[0].id, "g1");
	ASSERT_EQ(pg.total, 25);
	/* the guest p2's own: the private game too, first, and counted */
	snprintf(q.own_id, sizeof q.own_id, "p2");
	ASSERT_EQ(rd.history(rd.impl, &q, page, &pg, &err), 3);
	ASSERT_STR_EQ(page[0].id, "g27");
	ASSERT_EQ(pg.total, 26);
	/* records: by id, a private game only to one who held a seat (or by its code: NULL) */
	ASSERT(rd.record(rd.impl, "g1", &nobody, text, sizeof text, &err) > 0);
	ASSERT(strstr(text, "[Black \"alice\"]") != NULL);
	ASSERT_EQ(rd.record(rd.impl, "g27", &nobody, text, sizeof text, &err), STORE_ENOTFOUND);
	ASSERT(rd.record(rd.impl, "g27", &bob, text, sizeof text, &err) > 0);
	ASSERT(rd.record(rd.impl, "g27", NULL, text, sizeof text, &err) > 0);
	ASSERT_EQ(rd.record(rd.impl, "g99", NULL, text, sizeof text, &err), STORE_ENOTFOUND);
	ASSERT_EQ(rd.record(rd.impl, "g1", NULL, text, 20, &err), STORE_ENOSPC);
	{
		static struct record r;
		struct record_error rerr;
		int len = rd.record(rd.impl, "g2", NULL, text, sizeof text, &err);
		ASSERT(len > 0);
		ASSERT_EQ(record_parse(&r, text, (size_t)len, &rerr), 0);
	}
	rd.close(rd.impl);
	be->close(st);
}

/* A player's history by account: both seats, the kept count of its games. */
TEST(pg_history_by_player)
{
	struct store_history_query q = {.limit = 10, .by_player = 1, .player_account = 1};
	struct store_history_page pg;
	struct store_write_port wp;
	struct store_read_port rd;
	struct store_game page[10];
	struct store_error err;
	void *st;

	fresh("t_player");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	for (int i = 0; i < 6; i++) {
		char id[16];
		int64_t seq = 3;
		snprintf(id, sizeof id, "g%d", i + 1);
		/* account 1 at seat 0 of g1, g3, g5; at seat 1 of g2; not in g4, g6 */
		ASSERT_EQ(add_game(&wp, id, GAME_HOKITO, 1, 1000 + i, i % 2 == 0 ? 1 : 0,
		                   i == 1 ? 1 : 2),
		          0);
		ASSERT_EQ(finish_as(&wp, id, &seq, 5000 + i, "draw"), 0);
	}
	ASSERT_EQ(commit(&wp, &err), 0);
	ASSERT_EQ(be->reader_open(st, &rd, &err), 0);
	ASSERT_EQ(rd.history(rd.impl, &q, page, &pg, &err), 4);
	ASSERT_EQ(pg.total, 4);
	ASSERT_STR_EQ(page[0].id, "g5");
	ASSERT_STR_EQ(page[3].id, "g1");
	q.limit = 2;
	ASSERT_EQ(rd.history(rd.impl, &q, page, &pg, &err), 2);
	ASSERT_EQ(pg.more, 1);
	q.has_after = 1;
	q.after = pg.next;
	ASSERT_EQ(rd.history(rd.impl, &q, page, &pg, &err), 2);
	ASSERT_STR_EQ(page[0].id, "g2");
	ASSERT_EQ(pg.more, 0);
	rd.close(rd.impl);
	be->close(st);
}

static int
rating_seen(void *ctx, const struct store_rating *r)
{
	struct store_rating *rows = ctx;

	rows[r->account - 1] = *r;
	return 0;
}

static int
account_seen(void *ctx, const struct store_account *a)
{
	int *n = ctx;

	(*n)++;
	return a->id == *n ? 0 : 1;
}

static int
pair_seen(void *ctx, int64_t a, int64_t b, int64_t ended_ms)
{
	int *n = ctx;

	(*n)++;
	return a > 0 && b > 0 && ended_ms >= 2000 ? 0 : 1;
}

/* Ratings: the rows the changes bring, the leaderboard by key, rated games, the loads. */
TEST(pg_ratings)
{
	struct store_rating rows[4];
	struct store_board_entry e[4];
	struct store_rated_game rg[4];
	struct store_board_query q = {.kind = GAME_HOKITO, .limit = 2};
	struct store_write_port wp;
	struct store_read_port rd;
	struct store_error err;
	char text[RECORD_TEXT_MAX];
	int more, n = 0;
	void *st;

	fresh("t_ratings");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	for (int i = 1; i <= 4; i++) {
		struct store_account a = {.id = i, .created_ms = 1};
		snprintf(a.name, sizeof a.name, "acc%d", i);
		snprintf(a.key, sizeof a.key, "acc%d", i);
		snprintf(a.skeleton, sizeof a.skeleton, "acc%d", i);
		snprintf(a.hash, sizeof a.hash, "h");
		snprintf(a.kind, sizeof a.kind, i == 4 ? "bot" : "account");
		ASSERT_EQ(wp.account_add(wp.impl, &a, &err), 0);
	}
	for (int k = 0; k < 2; k++) { /* g1: 1 beats 2 (provisional); g2: 3 and 4 draw */
		const char *id = k == 0 ? "g1" : "g2";
		const int64_t acc[2] = {k == 0 ? 1 : 3, k == 0 ? 2 : 4};
		const double score[2] = {k == 0 ? 1.0 : 0.5, k == 0 ? 0.0 : 0.5};
		int64_t seq = 3;

		ASSERT_EQ(add_game(&wp, id, GAME_HOKITO, 5, 1000 + k, acc[0], acc[1]), 0);
		ASSERT_EQ(finish_as(&wp, id, &seq, 2000 + k, k == 0 ? "win" : "draw"), 0);
		for (int s2 = 0; s2 < 2; s2++) {
			struct store_rating_change c = {
			        .seat = s2,
			        .account = acc[s2],
			        .kind = GAME_HOKITO,
			        .before = {1500, k == 0 ? 350 : 60, 0.06},
			        .after = {k == 0 ? (s2 ? 1337.7 : 1662.3) : 1700,
			                  k == 0 ? 290.3 : 59, 0.06},
			        .score = score[s2],
			        .opponent = acc[1 - s2],
			};
			ASSERT_EQ(wp.rating_change(wp.impl, id, &c, 2000 + k, &err), 0);
		}
	}
	ASSERT_EQ(commit(&wp, &err), 0);
	ASSERT_EQ(wp.ratings_load(wp.impl, rating_seen, rows, &err), 4);
	ASSERT_EQ(rows[0].wins, 1);
	ASSERT_EQ(rows[1].losses, 1);
	ASSERT_EQ(rows[2].draws, 1);
	ASSERT_NEAR(rows[0].rating, 1662.3, 0);
	ASSERT_NEAR(rows[1].best, 1337.7, 0);
	ASSERT_EQ(wp.accounts_load(wp.impl, account_seen, &n, &err), 4);
	n = 0;
	ASSERT_EQ(wp.rated_pairs_load(wp.impl, 2001, pair_seen, &n, &err), 1);
	ASSERT_EQ(be->reader_open(st, &rd, &err), 0);
	ASSERT_EQ(rd.leaderboard(rd.impl, &q, e, &more, &err), 2);
	ASSERT_EQ(more, 0);
	ASSERT_EQ(e[0].account, 3);
	ASSERT_EQ(e[1].account, 4);
	ASSERT_EQ(e[1].rank, 2);
	ASSERT_EQ(e[1].bot, 1);
	ASSERT_EQ(e[1].opponents, 1);
	q.limit = 1;
	ASSERT_EQ(rd.leaderboard(rd.impl, &q, e, &more, &err), 1);
	ASSERT_EQ(more, 1);
	q.has_after = 1;
	{ /* the cursor as the client's text */
		char cur[STORE_BOARD_CURSOR_TEXT];
		store_board_cursor_format(
		        &(struct store_board_cursor){e[0].rating, e[0].account, e[0].rank}, cur,
		        sizeof cur);
		ASSERT_EQ(store_board_cursor_parse(cur, &q.after), 0);
	}
	ASSERT_EQ(rd.leaderboard(rd.impl, &q, e, &more, &err), 1);
	ASSERT_EQ(e[0].account, 4);
	ASSERT_EQ(e[0].rank, 2);
	ASSERT_EQ(more, 0);
	q = (struct store_board_query){.kind = GAME_HOKITO, .limit = 4, .provisional = 1};
	ASSERT_EQ(rd.leaderboard(rd.impl, &q, e, &more, &err), 2);
	ASSERT_EQ(e[0].account, 1);
	ASSERT_EQ(e[1].account, 2);
	ASSERT_EQ(sql("UPDATE t_ratings.accounts SET banned_ms = 5 WHERE id = 3"), 0);
	q = (struct store_board_query){.kind = GAME_HOKITO, .limit = 4};
	ASSERT_EQ(rd.leaderboard(rd.impl, &q, e, &more, &err), 1);
	ASSERT_EQ(e[0].account, 4);
	ASSERT_EQ(rd.rated_games(rd.impl, 1, 4, rg, &err), 1);
	ASSERT_STR_EQ(rg[0].game.id, "g1");
	ASSERT_EQ(rg[0].nchanges, 2);
	ASSERT_EQ(rg[0].changes[1].account, 2);
	ASSERT_NEAR(rg[0].changes[0].after[0], 1662.3, 0);
	ASSERT_EQ(rd.rated_games(rd.impl, 9, 4, rg, &err), 0);
	ASSERT_EQ(sql("UPDATE t_ratings.games SET rated = 1 WHERE id = 'g1'"), 0);
	ASSERT(rd.record(rd.impl, "g1", NULL, text, sizeof text, &err) > 0);
	ASSERT(strstr(text, "[BlackElo \"") != NULL || strstr(text, "Rating") != NULL ||
	       strstr(text, "[Rated \"yes\"]") != NULL);
	rd.close(rd.impl);
	be->close(st);
}

/* --keep-days and the deletion of games that never started; unused accounts; the counts. */
TEST(pg_keep)
{
	int64_t ids[8], next;
	struct store_write_port wp;
	struct store_read_port rd;
	struct store_error err;
	void *st;

	fresh("t_keep");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	for (int i = 1; i <= 4; i++) {
		struct store_account a = {.id = i, .created_ms = 10 * i};
		snprintf(a.name, sizeof a.name, "acc%d", i);
		snprintf(a.key, sizeof a.key, "acc%d", i);
		snprintf(a.skeleton, sizeof a.skeleton, "acc%d", i);
		snprintf(a.hash, sizeof a.hash, "h");
		snprintf(a.kind, sizeof a.kind, "account");
		ASSERT_EQ(wp.account_add(wp.impl, &a, &err), 0);
	}
	for (int i = 0; i < 5; i++) { /* g1..g4 guests' games; g5 account 1's */
		char id[16];
		int64_t seq = 3;
		snprintf(id, sizeof id, "g%d", i + 1);
		ASSERT_EQ(add_game(&wp, id, GAME_HOKITO, 1, 1000 + i, i == 4 ? 1 : 0, 0), 0);
		ASSERT_EQ(finish_as(&wp, id, &seq, 5000 + i, "draw"), 0);
	}
	ASSERT_EQ(commit(&wp, &err), 0);
	ASSERT_EQ(wp.sweep(wp.impl, 5002, 10, &err), 0); /* known at the commit: g1, g2 */
	ASSERT_EQ(wp.game_drop(wp.impl, "g4", &err), 0);
	ASSERT_EQ(wp.game_drop(wp.impl, "g9", &err), 0); /* not there: no error */
	ASSERT_EQ(commit(&wp, &err), 0);
	ASSERT_EQ(sql_int("t_keep", "SELECT COUNT(*) FROM games"), 2);
	ASSERT_EQ(sql_int("t_keep", "SELECT COUNT(*) FROM events"), 8);
	ASSERT_EQ(sql_int("t_keep", "SELECT n FROM counts WHERE name = 'deleted'"), 3);
	ASSERT_EQ(sql_int("t_keep", "SELECT n FROM counts WHERE name = 'deleted_serial'"), 4);
	ASSERT_EQ(sql_int("t_keep", "SELECT n FROM counts WHERE name = 'finished_public'"), 2);
	{ /* a new game never takes a deleted one's serial */
		struct store_game g = {.kind = GAME_HOKITO, .created_ms = 7};
		snprintf(g.id, sizeof g.id, "g6");
		snprintf(g.variant, sizeof g.variant, "standard");
		ASSERT_EQ(wp.game_add(wp.impl, &g, &err), 0);
		ASSERT_EQ(commit(&wp, &err), 0);
		ASSERT_EQ(sql_int("t_keep", "SELECT serial FROM games WHERE id = 'g6'"), 6);
	}
	/* unused accounts: 2 and 3 (1 played, 4 is the newest) */
	ASSERT_EQ(be->reader_open(st, &rd, &err), 0);
	ASSERT_EQ(rd.accounts_unused(rd.impl, 0, 1000, 10, ids, 8, &next, &err), 2);
	ASSERT_EQ(ids[0], 2);
	ASSERT_EQ(ids[1], 3);
	ASSERT_EQ(next, 4);
	ASSERT_EQ(rd.accounts_unused(rd.impl, 0, 25, 10, ids, 8, &next, &err), 1);
	ASSERT_EQ(next, 2);
	ASSERT_EQ(wp.account_drop(wp.impl, 2, &err), 0);
	ASSERT_EQ(wp.account_drop(wp.impl, 1, &err), 0); /* used: stays */
	ASSERT_EQ(commit(&wp, &err), 0);
	ASSERT_EQ(wp.account_drop(wp.impl, 2, &err), 0); /* again: nothing more */
	ASSERT_EQ(commit(&wp, &err), 0);
	ASSERT_EQ(sql_int("t_keep", "SELECT COUNT(*) FROM accounts"), 3);
	ASSERT_EQ(sql_int("t_keep", "SELECT n FROM counts WHERE name = 'released_accounts'"), 1);
	rd.close(rd.impl);
	be->close(st);
}

static void
found_cb(void *ctx, const char *text)
{
	char *last = ctx;

	printf("# found: %s\n", text);
	snprintf(last, 300, "%s", text);
}

/* The check: a sound store has no finding; damage is found, in SQLite's words. */
TEST(pg_check)
{
	struct store_write_port wp;
	struct store_error err;
	char last[300] = "";
	int64_t seq = 3;
	void *st;

	fresh("t_check");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	ASSERT_EQ(add_game(&wp, "g1", GAME_HOKITO, 1, 1000, 1, 0), 0);
	ASSERT_EQ(finish_as(&wp, "g1", &seq, 2000, "draw"), 0);
	ASSERT_EQ(add_game(&wp, "g2", GAME_HOKITO, 1, 1000, 0, 0), 0);
	ASSERT_EQ(commit(&wp, &err), 0);
	ASSERT_EQ(be->check(uri, found_cb, last, &err), 0); /* beside the server: it may */
	be->close(st);
	ASSERT_EQ(sql("UPDATE t_check.counts SET n = 7 WHERE name = 'finished_public'"), 0);
	ASSERT_EQ(be->check(uri, found_cb, last, &err), 1);
	ASSERT_STR_EQ(last, "the count of finished public games is wrong (kept 7, counted 1)");
	ASSERT_EQ(sql("DELETE FROM t_check.events WHERE game_id = 'g2' AND seq = 2"), 0);
	ASSERT_EQ(sql("UPDATE t_check.counts SET n = 1 WHERE name = 'finished_public'"), 0);
	ASSERT_EQ(be->check(uri, found_cb, last, &err), 1);
	ASSERT_STR_EQ(last, "the events of game 'g2' are not numbered 1..n without a gap");
	ASSERT_EQ(sql("INSERT INTO t_check.events (game_id, seq, time_ms, type, body) VALUES "
	              "('g2', 2, 1, 'x', '')"),
	          0);
	ASSERT_EQ(sql("ALTER TABLE t_check.games DISABLE TRIGGER counts_finish"), 0);
	ASSERT_EQ(be->check(uri, found_cb, last, &err), 1);
	ASSERT(strstr(last, "trigger counts_finish is missing or disabled") != NULL);
	ASSERT_EQ(sql("ALTER TABLE t_check.games ENABLE TRIGGER counts_finish"), 0);
	ASSERT_EQ(sql("DROP INDEX t_check.ratings_board"), 0);
	ASSERT_EQ(be->check(uri, found_cb, last, &err), 1);
	ASSERT(strstr(last, "index ratings_board is missing") != NULL);
	fresh("t_check_none");
	ASSERT_EQ(be->check(uri, found_cb, last, &err), STORE_ENOTFOUND);
}

/* SQLSTATE classes decide the code: a full disk (53100) is STORE_EFULL, an I/O error's class 58
 * STORE_EIO, the server shutting down (57P01) STORE_EUNAVAIL; raised here by a trigger. */
TEST(pg_error_codes)
{
	static const struct {
		const char *state;
		int code;
	} cases[] = {{"53100", STORE_EFULL},    {"53200", STORE_EFULL}, {"58030", STORE_EIO},
	             {"57P01", STORE_EUNAVAIL}, {"40001", STORE_EIO},   {"XX001", STORE_ECORRUPT}};
	struct store_write_port wp;
	struct store_error err;
	char text[512];
	void *st;

	fresh("t_codes");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(text, sizeof text,
		         "CREATE OR REPLACE FUNCTION t_codes.fail() RETURNS TRIGGER LANGUAGE "
		         "plpgsql "
		         "AS $$BEGIN RAISE EXCEPTION USING ERRCODE = '%s', MESSAGE = 'no room'; "
		         "END$$",
		         cases[i].state);
		ASSERT_EQ(sql(text), 0);
		if (i == 0)
			ASSERT_EQ(sql("CREATE TRIGGER fail BEFORE INSERT ON t_codes.meta FOR EACH "
			              "ROW "
			              "EXECUTE FUNCTION t_codes.fail()"),
			          0);
		ASSERT_EQ(wp.meta_set(wp.impl, "next_game", 1, &err), 0);
		ASSERT_EQ(commit(&wp, &err), cases[i].code);
		ASSERT(strstr(err.text, cases[i].state) != NULL);
	}
	ASSERT_EQ(sql("DROP TRIGGER fail ON t_codes.meta"), 0);
	ASSERT_EQ(wp.meta_set(wp.impl, "next_game", 1, &err), 0);
	ASSERT_EQ(commit(&wp, &err), 0);
	be->close(st);
}

/* One writer: a second is refused with one clear line; a reader-only open may read. */
TEST(pg_second_writer)
{
	static const struct store_db_options reader = {STORE_FSYNC_NORMAL, 1, 0};
	struct store_write_port wp, wp2;
	struct store_error err;
	uint64_t ticket;
	void *st, *st2 = NULL;
	int64_t v;

	fresh("t_writers");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	ASSERT_EQ(wp.meta_set(wp.impl, "next_game", 5, &err), 0);
	ASSERT_EQ(commit(&wp, &err), 0);
	ASSERT_EQ(be->open(uri, &writer, &st2, &err), STORE_ECONFLICT);
	ASSERT(st2 == NULL);
	printf("# %s\n", err.text);
	ASSERT(strstr(err.text, "in use by another hokitod") != NULL);
	ASSERT(strchr(err.text, '\n') == NULL);
	ASSERT((st2 = open_store(&reader, &wp2, &err)) != NULL);
	ASSERT_EQ(wp2.meta_get(wp2.impl, "next_game", &v, &err), 0);
	ASSERT_EQ(v, 5);
	ASSERT_EQ(wp2.meta_set(wp2.impl, "next_game", 6, &err), 0);
	ASSERT_EQ(wp2.commit(wp2.impl, &ticket, &err), STORE_ECONFLICT);
	be->close(st2);
	be->close(st);
	/* the lock goes with the writer: another may open now */
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	be->close(st);
	/* in another schema of the same database, another store: its own lock */
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	fresh("t_writers2");
	ASSERT((st2 = open_store(&writer, &wp2, &err)) != NULL);
	be->close(st2);
	be->close(st);
}

/* A database that is not a hokitod store, a newer schema, a store not there yet. */
TEST(pg_foreign_newer)
{
	static const struct store_db_options must = {STORE_FSYNC_NORMAL, 1, 1};
	struct store_write_port wp;
	struct store_error err;
	char last[300];
	void *st = NULL;

	fresh("t_foreign");
	ASSERT_EQ(sql("CREATE TABLE t_foreign.invoices (id INTEGER PRIMARY KEY)"), 0);
	ASSERT_EQ(be->open(uri, &writer, &st, &err), STORE_ECONFLICT);
	ASSERT(strstr(err.text, "not a hokitod store") != NULL);
	ASSERT_EQ(be->check(uri, found_cb, last, &err), STORE_ECONFLICT);
	ASSERT_EQ(sql_int("t_foreign", "SELECT COUNT(*) FROM pg_tables WHERE schemaname = "
	                               "'t_foreign'"),
	          1); /* nothing made there */
	fresh("t_marker");
	ASSERT_EQ(sql("CREATE TABLE t_marker.hokito_meta (key TEXT PRIMARY KEY, value BIGINT)"), 0);
	ASSERT_EQ(be->open(uri, &writer, &st, &err), STORE_ECONFLICT);
	fresh("t_newer");
	ASSERT_EQ(be->open(uri, &must, &st, &err), STORE_ENOTFOUND);
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	be->close(st);
	ASSERT_EQ(sql("UPDATE t_newer.hokito_meta SET value = 12 WHERE key = 'schema'"), 0);
	st = NULL;
	ASSERT_EQ(be->open(uri, &writer, &st, &err), STORE_EVERSION);
	ASSERT(strstr(err.text, "newer than this hokitod's") != NULL);
	ASSERT_EQ(be->check(uri, found_cb, last, &err), STORE_EVERSION);
}

/* A URI's password is never in a message nor in the store's name. */
TEST(pg_uri_password)
{
	struct store_write_port wp;
	struct store_error err;
	char bad[1100];
	void *st = NULL;

	fresh("t_uri");
	snprintf(bad, sizeof bad, "%s&password=s3cr3t", uri);
	ASSERT_EQ(be->open(bad, &writer, &st, &err), 0); /* trust: the password is not asked */
	ASSERT(strstr(be->display(st), "s3cr3t") == NULL);
	ASSERT(strstr(be->display(st), "search_path") != NULL);
	be->write_port(st, &wp);
	be->close(st);
	st = NULL;
	ASSERT(be->open("postgresql://hokito:s3cr3t@/hokito?host=/nonexistent-dir&port=5432",
	                &writer, &st, &err) == STORE_EUNAVAIL);
	printf("# %s\n", err.text);
	ASSERT(strstr(err.text, "s3cr3t") == NULL);
	ASSERT(strstr(err.text, "postgresql://hokito@/hokito?host=/nonexistent-dir") != NULL);
	ASSERT(be->open("postgresql://hokito:s3cr3t@localhost:notaport/db", &writer, &st, &err) <
	       0);
	printf("# %s\n", err.text);
	ASSERT(strstr(err.text, "s3cr3t") == NULL);
	ASSERT_EQ(be->open("postgresql://hokito:s3cr3t@localhost/db?nosuchoption=1", &writer, &st,
	                   &err),
	          STORE_EINVAL);
	ASSERT(strstr(err.text, "s3cr3t") == NULL);
	printf("# %s\n", err.text);
}

/* --- On a real libuv loop. */

struct answers {
	int n;
	uint64_t ticket[64];
	int rc[64];
	char last[320];
};

static void
done_cb(void *arg, uint64_t ticket, int rc, const struct store_error *err)
{
	struct answers *a = arg;

	if (a->n < 64) {
		a->ticket[a->n] = ticket;
		a->rc[a->n] = rc;
	}
	a->n++;
	if (err != NULL)
		snprintf(a->last, sizeof a->last, "%s", err->text);
}

static void
tick_cb(uv_timer_t *t)
{
	(void)t;
}

/* Run the loop until *flag reaches want, at most ms; a heartbeat bounds each turn. */
static int
run_until(uv_loop_t *loop, const int *flag, int want, uint64_t ms)
{
	uv_timer_t tick;
	uint64_t end;

	uv_timer_init(loop, &tick);
	uv_timer_start(&tick, tick_cb, 10, 10);
	uv_update_time(loop);
	end = uv_now(loop) + ms;
	while (*flag < want && uv_now(loop) < end)
		uv_run(loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&tick, NULL);
	uv_run(loop, UV_RUN_NOWAIT);
	return *flag >= want;
}

/* The tickets of commits on the loop: answered in order, an empty one in its turn. */
TEST(pg_loop_tickets)
{
	struct store_write_port wp;
	struct answers a = {0};
	struct store_error err;
	uint64_t t[4];
	uv_loop_t loop;
	void *st;

	fresh("t_loop");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	uv_loop_init(&loop);
	ASSERT_EQ(wp.start(wp.impl, &loop, done_cb, &a, &err), 0);
	ASSERT_EQ(wp.commit(wp.impl, &t[0], &err), 0); /* nothing, nothing waiting: at once */
	ASSERT_EQ(t[0], 0);
	ASSERT_EQ(add_game(&wp, "g1", GAME_HOKITO, 1, 1000, 0, 0), 0);
	ASSERT_EQ(wp.commit(wp.impl, &t[0], &err), 0);
	ASSERT_EQ(t[0], 1);
	ASSERT_EQ(add_game(&wp, "g2", GAME_HOKITO, 1, 1000, 0, 0), 0);
	ASSERT_EQ(wp.commit(wp.impl, &t[1], &err), 0);
	ASSERT_EQ(wp.commit(wp.impl, &t[2], &err), 0); /* empty, behind the others */
	ASSERT_EQ(add_game(&wp, "g3", GAME_HOKITO, 1, 1000, 0, 0), 0);
	ASSERT_EQ(wp.commit(wp.impl, &t[3], &err), 0);
	ASSERT_EQ(t[3], 4);
	ASSERT(run_until(&loop, &a.n, 4, 5000));
	for (int i = 0; i < 4; i++) {
		ASSERT_U64_EQ(a.ticket[i], (uint64_t)i + 1);
		ASSERT_EQ(a.rc[i], 0);
	}
	ASSERT_EQ(sql_int("t_loop", "SELECT COUNT(*) FROM events"), 9);
	/* a failure fails its ticket and every later one */
	{
		struct store_event ev = {.seq = 9, .type = "chat", .body = "{}"};
		ASSERT_EQ(wp.seat_set(wp.impl, "g9", 0, "p1", "x", 0, &err), 0);
		ASSERT_EQ(wp.commit(wp.impl, &t[0], &err), 0);
		ASSERT_EQ(wp.event_add(wp.impl, "g1", &ev, &err), STORE_EINVAL); /* at the call */
		ASSERT_EQ(wp.meta_set(wp.impl, "next_game", 4, &err), 0);
		ASSERT_EQ(wp.commit(wp.impl, &t[1], &err), 0);
		ASSERT(run_until(&loop, &a.n, 6, 5000));
		ASSERT_EQ(a.rc[4], STORE_ENOTFOUND);
		ASSERT_EQ(a.rc[5], STORE_ENOTFOUND);
		ASSERT_U64_EQ(a.ticket[5], t[1]);
		ASSERT_EQ(wp.meta_set(wp.impl, "next_game", 4, &err), 0);
		ASSERT_EQ(wp.commit(wp.impl, &t[2], &err), 0); /* and the next holds */
		ASSERT(run_until(&loop, &a.n, 7, 5000));
		ASSERT_EQ(a.rc[6], 0);
		ASSERT_EQ(sql_int("t_loop", "SELECT value FROM meta WHERE key = 'next_game'"), 4);
	}
	/* no blocking read on the loop's thread after start() */
	{
		int64_t v;
		ASSERT_EQ(wp.meta_get(wp.impl, "next_game", &v, &err), STORE_EINVAL);
	}
	wp.stop(wp.impl);
	uv_run(&loop, UV_RUN_DEFAULT);
	ASSERT_EQ(uv_loop_close(&loop), 0);
	be->close(st);
}

/* The writer's backend, found by the advisory lock it holds (pid), or -1. */
static int64_t
writer_pid(void)
{
	return sql_int("public", "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND "
	                         "classid = 1212896343 AND objsubid = 2 AND granted LIMIT 1");
}

/* Write game g's events from..to (and the game itself from 1). */
static int
write_events(struct store_write_port *wp, const char *id, int64_t from, int64_t to)
{
	struct store_game g = {.kind = GAME_HOKITO, .created_ms = 1};
	char body[64];
	int rc;

	snprintf(g.id, sizeof g.id, "%s", id);
	snprintf(g.variant, sizeof g.variant, "standard");
	if (from == 1 && (rc = wp->game_add(wp->impl, &g, NULL)) < 0)
		return rc;
	for (int64_t s = from; s <= to; s++) {
		struct store_event ev = {.seq = s, .time_ms = s, .type = "chat", .body = body};
		snprintf(body, sizeof body, "{\"n\":%" PRId64 "}", s);
		if ((rc = wp->event_add(wp->impl, id, &ev, NULL)) < 0)
			return rc;
	}
	return 0;
}

static void
retry_cb(uv_timer_t *t)
{
	int *tries = t->data;

	(*tries)++;
}

/*
 * The writer's connection killed from another (pg_terminate_backend): the commit in flight
 * fails with STORE_EUNAVAIL through done(); commits are refused at once while the backend
 * reconnects by itself; once back, the writes written again (the failed ticket's) hold and
 * nothing is lost. The lock is the backend's again.
 */
TEST(pg_reconnect)
{
	struct store_write_port wp;
	struct answers a = {0};
	struct store_error err;
	char text[128];
	uint64_t t;
	uv_loop_t loop;
	uv_timer_t retry;
	int64_t pid, pid2;
	int tries = 0, rc = STORE_EUNAVAIL, refused = 0;
	void *st;

	fresh("t_reconnect");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	uv_loop_init(&loop);
	ASSERT_EQ(wp.start(wp.impl, &loop, done_cb, &a, &err), 0);
	ASSERT_EQ(write_events(&wp, "g1", 1, 3), 0);
	ASSERT_EQ(wp.commit(wp.impl, &t, &err), 0);
	ASSERT(run_until(&loop, &a.n, 1, 5000));
	ASSERT_EQ(a.rc[0], 0);
	ASSERT((pid = writer_pid()) > 0);
	snprintf(text, sizeof text, "SELECT pg_terminate_backend(%" PRId64 ", 5000)", pid);
	ASSERT_EQ(sql(text), 0);
	for (int i = 0; i < 500; i++) { /* gone, within 5 s */
		snprintf(text, sizeof text,
		         "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = %" PRId64, pid);
		if (sql_int("public", text) == 0)
			break;
		uv_sleep(10);
	}
	/* the loop has not run: the store does not know yet, and sends */
	ASSERT_EQ(write_events(&wp, "g1", 4, 6), 0);
	ASSERT_EQ(wp.commit(wp.impl, &t, &err), 0);
	ASSERT(t > 0);
	ASSERT(run_until(&loop, &a.n, 2, 5000));
	ASSERT_EQ(a.rc[1], STORE_EUNAVAIL);
	printf("# %s\n", a.last);
	ASSERT(strstr(a.last, "lost the connection") != NULL);
	/* refused at once until it is back; the caller writes the failed ticket's writes again
	 * every 100 ms (hokitod: every 1-4 s) */
	uv_timer_init(&loop, &retry);
	retry.data = &tries;
	uv_timer_start(&retry, retry_cb, 100, 100);
	for (int last = 0; tries < 100 && rc == STORE_EUNAVAIL;) {
		run_until(&loop, &tries, last + 1, 1000);
		last = tries;
		ASSERT_EQ(write_events(&wp, "g1", 4, 6), 0);
		rc = wp.commit(wp.impl, &t, &err);
		if (rc == STORE_EUNAVAIL) {
			refused++;
			ASSERT_EQ(wp.pending(wp.impl), 0); /* a refused commit keeps nothing */
		}
	}
	uv_close((uv_handle_t *)&retry, NULL);
	printf("# %d commits refused before the connection was back\n", refused);
	ASSERT_EQ(rc, 0);
	ASSERT(t > 0);
	ASSERT(run_until(&loop, &a.n, 3, 5000));
	ASSERT_EQ(a.rc[2], 0);
	ASSERT_EQ(sql_int("t_reconnect", "SELECT COUNT(*) FROM events WHERE game_id = 'g1'"), 6);
	ASSERT((pid2 = writer_pid()) > 0);
	ASSERT(pid2 != pid);
	/* killed while idle: noticed on the loop, and back by itself */
	snprintf(text, sizeof text, "SELECT pg_terminate_backend(%" PRId64 ", 5000)", pid2);
	ASSERT_EQ(sql(text), 0);
	tries = 0;
	uv_timer_init(&loop, &retry);
	retry.data = &tries;
	uv_timer_start(&retry, retry_cb, 50, 50);
	while (tries < 300 && (writer_pid() <= 0 || writer_pid() == pid2))
		run_until(&loop, &tries, tries + 1, 1000);
	uv_close((uv_handle_t *)&retry, NULL);
	ASSERT(writer_pid() > 0);
	ASSERT_EQ(write_events(&wp, "g1", 7, 7), 0);
	for (int i = 0; i < 50 && (rc = wp.commit(wp.impl, &t, &err)) == STORE_EUNAVAIL; i++) {
		ASSERT_EQ(write_events(&wp, "g1", 7, 7), 0);
		run_until(&loop, &tries, tries + 1, 20);
		tries++;
	}
	ASSERT_EQ(rc, 0);
	ASSERT(run_until(&loop, &a.n, 4, 5000));
	ASSERT_EQ(a.rc[3], 0);
	ASSERT_EQ(sql_int("t_reconnect", "SELECT COUNT(*) FROM events WHERE game_id = 'g1'"), 7);
	wp.stop(wp.impl);
	uv_run(&loop, UV_RUN_DEFAULT);
	ASSERT_EQ(uv_loop_close(&loop), 0);
	be->close(st);
}

/*
 * Another hokitod takes the store while this one's connection is down: this one's commits are
 * refused with STORE_ECONFLICT (the turn pipeline stops on it) until the other lets go, and then
 * its connection comes back with the lock.
 */
TEST(pg_reconnect_refused)
{
	struct store_write_port wp, wp2;
	struct answers a = {0};
	struct store_error err;
	char text[128];
	uint64_t t;
	uv_loop_t loop;
	int64_t pid;
	int rc = 0, tries = 0;
	void *st, *st2 = NULL;

	fresh("t_refused");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	uv_loop_init(&loop);
	ASSERT_EQ(wp.start(wp.impl, &loop, done_cb, &a, &err), 0);
	ASSERT((pid = writer_pid()) > 0);
	snprintf(text, sizeof text, "SELECT pg_terminate_backend(%" PRId64 ", 5000)", pid);
	ASSERT_EQ(sql(text), 0);
	for (int i = 0; i < 500 && st2 == NULL; i++) { /* the other one, as soon as it may */
		if (be->open(uri, &writer, &st2, &err) < 0)
			uv_sleep(10);
	}
	ASSERT(st2 != NULL);
	be->write_port(st2, &wp2);
	for (int i = 0; i < 300 && rc != STORE_ECONFLICT; i++) {
		run_until(&loop, &tries, tries + 1, 20);
		tries++;
		ASSERT_EQ(wp.meta_set(wp.impl, "next_game", 9, &err), 0);
		rc = wp.commit(wp.impl, &t, &err);
		ASSERT(rc == STORE_ECONFLICT || rc == STORE_EUNAVAIL);
	}
	ASSERT_EQ(rc, STORE_ECONFLICT);
	printf("# %s\n", err.text);
	be->close(st2); /* the other one goes: this one gets the lock back */
	for (int i = 0; i < 400 && rc != 0; i++) {
		run_until(&loop, &tries, tries + 1, 25);
		tries++;
		ASSERT_EQ(wp.meta_set(wp.impl, "next_game", 9, &err), 0);
		rc = wp.commit(wp.impl, &t, &err);
	}
	ASSERT_EQ(rc, 0);
	ASSERT(run_until(&loop, &a.n, 1, 5000));
	ASSERT_EQ(a.rc[0], 0);
	ASSERT_EQ(sql_int("t_refused", "SELECT value FROM meta WHERE key = 'next_game'"), 9);
	wp.stop(wp.impl);
	uv_run(&loop, UV_RUN_DEFAULT);
	ASSERT_EQ(uv_loop_close(&loop), 0);
	be->close(st);
}

/*
 * The pages go by key whatever the store's size: with 20,000 finished games and ratings the
 * planner takes the partial indexes for a history page after a cursor (public, and by account)
 * and a leaderboard page after a cursor, and reads no table whole. The queries are the read
 * port's (store-pg-read.c), as it sends them.
 */
TEST(pg_pages_by_key)
{
	static const char *const plans[][2] = {
	        {"SELECT id FROM games WHERE status = 'finished' AND private = 0 AND (ended_ms, "
	         "serial) < (15000, 15000) ORDER BY ended_ms DESC, serial DESC LIMIT 11 OFFSET 0",
	         "games_public_history"},
	        {"SELECT id FROM games WHERE id IN ((SELECT id FROM games WHERE status = "
	         "'finished' "
	         "AND private = 0 AND seat0_account = 77 AND (ended_ms, serial) < (15000, 15000) "
	         "ORDER BY ended_ms DESC, serial DESC LIMIT 11) UNION (SELECT id FROM games WHERE "
	         "status = 'finished' AND private = 0 AND seat1_account = 77 AND (ended_ms, "
	         "serial) "
	         "< (15000, 15000) ORDER BY ended_ms DESC, serial DESC LIMIT 11)) ORDER BY "
	         "ended_ms "
	         "DESC, serial DESC LIMIT 11 OFFSET 0",
	         "games_seat1_account"},
	        {"SELECT r.account FROM ratings r JOIN accounts a ON a.id = r.account WHERE r.kind "
	         "= "
	         "'hokito' AND (r.rd <= 110 AND r.games >= 0 AND r.opponents >= 0) AND a.closed_ms "
	         "IS "
	         "NULL AND a.banned_ms IS NULL AND r.rating <= 1600 AND (r.rating < 1600 OR "
	         "r.account > 5000) ORDER BY r.rating DESC, r.account LIMIT 11",
	         "ratings_board"},
	};
	struct store_write_port wp;
	struct store_error err;
	void *st;

	fresh("t_pages");
	ASSERT((st = open_store(&writer, &wp, &err)) != NULL);
	be->close(st);
	ASSERT_EQ(sql("SET search_path = t_pages"), 0);
	ASSERT_EQ(
	        sql("INSERT INTO accounts (id, name, name_key, skeleton, pw_hash, created_ms) "
	            "SELECT i, 'a' || i, 'a' || i, 'a' || i, 'h', i FROM generate_series(1, 20000) "
	            "AS i"),
	        0);
	ASSERT_EQ(sql("INSERT INTO games (id, serial, kind, variant, seed, private, code, status, "
	              "created_ms, seat0_id, seat0_name, seat1_id, seat1_name, ended_ms, result, "
	              "winner, reason, seat0_account, seat1_account) SELECT 'g' || i, i, 'hokito', "
	              "'standard', i, i % 10 / 9, '', 'finished', i, 'p1', 'x', 'p2', 'y', i, "
	              "'draw', "
	              "-1, 'agreement', i % 1000 + 1, (i + 1) % 1000 + 1 FROM generate_series(1, "
	              "20000) AS i"),
	          0);
	ASSERT_EQ(sql("INSERT INTO ratings (account, kind, rating, rd, vol, games, draws, best, "
	              "updated_ms, opponents) SELECT i, 'hokito', 1000 + i % 1000, 60 + i % 100, "
	              "0.06, 1, 1, 1000, 1, 1 FROM generate_series(1, 20000) AS i"),
	          0);
	ASSERT_EQ(sql("ANALYZE games, ratings, accounts"), 0);
	for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
		char text[2048];
		PGresult *r;
		int seq = 0, index = 0;

		snprintf(text, sizeof text, "EXPLAIN %s", plans[i][0]);
		r = PQexec(admin, text);
		ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK);
		for (int row = 0; row < PQntuples(r); row++) {
			const char *line = PQgetvalue(r, row, 0);
			seq |= strstr(line, "Seq Scan") != NULL;
			index |= strstr(line, plans[i][1]) != NULL;
		}
		if (seq || !index)
			for (int row = 0; row < PQntuples(r); row++)
				printf("# %s\n", PQgetvalue(r, row, 0));
		PQclear(r);
		ASSERT(!seq);
		ASSERT(index);
	}
	ASSERT_EQ(sql("SET search_path = public"), 0);
}

int
main(void)
{
	base_uri = getenv("HOKITO_TEST_PG_URI");
	if (base_uri == NULL || *base_uri == '\0') {
		printf("1..0 # SKIP no PostgreSQL (run under tests/pgtmp.py run --)\n");
		return 0;
	}
	admin = PQconnectdb(base_uri);
	if (PQstatus(admin) != CONNECTION_OK) {
		printf("Bail out! %s: %s", base_uri, PQerrorMessage(admin));
		return 1;
	}
	PQclear(PQexec(admin, "SET client_min_messages = warning"));
	RUN(pg_create_reload);
	RUN(pg_bodies);
	RUN(pg_refusals);
	RUN(pg_idempotent);
	RUN(pg_history);
	RUN(pg_history_by_player);
	RUN(pg_ratings);
	RUN(pg_keep);
	RUN(pg_check);
	RUN(pg_error_codes);
	RUN(pg_second_writer);
	RUN(pg_foreign_newer);
	RUN(pg_uri_password);
	RUN(pg_loop_tickets);
	RUN(pg_reconnect);
	RUN(pg_reconnect_refused);
	RUN(pg_pages_by_key);
	PQfinish(admin);
	TEST_END();
}
