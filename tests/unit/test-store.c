/*
 * test-store.c: the durable store of hokitod (server/store/sqlite/store.c), on real files in a
 * temporary directory: create, write, commit, reopen and load (games replayed through the rules);
 * what is not committed is lost and nothing else; sessions; history paging; records; a migration
 * from schema 1; refusal of damaged, truncated, foreign, newer and inconsistent files; the time a
 * group commit takes (printed as TAP comments); and the disk waits handed to another thread.
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record.h"
#include "rng.h"
#include "store.h"
#include "test.h"

static char dir[64];   /* the temporary directory of this run */
static char path[128]; /* the store file of the running test */

/* A fresh file name for a test. */
static const char *
fresh(const char *name)
{
	snprintf(path, sizeof path, "%s/%s.db", dir, name);
	unlink(path);
	return path;
}

/* Add a game with both seats taken and started: events 1..3. */
static int
add_game(struct store *st, const char *id, enum game_kind kind, uint64_t seed, int64_t now)
{
	struct store_game g = {.kind = kind, .seed = seed, .created_ms = now};
	struct store_event ev = {.time_ms = now};
	char body[128];
	int rc;

	snprintf(g.id, sizeof g.id, "%s", id);
	snprintf(g.variant, sizeof g.variant, "standard");
	if ((rc = store_game_add(st, &g, NULL)) < 0)
		return rc;
	for (int seat = 0; seat < 2; seat++) {
		char pid[16];
		snprintf(pid, sizeof pid, "p%d", seat + 1);
		if ((rc = store_seat_set(st, id, seat, pid, seat ? "bob" : "alice", 0, NULL)) < 0)
			return rc;
		ev.seq = seat + 1;
		ev.type = "seated";
		snprintf(body, sizeof body, "{\"type\":\"seated\",\"game\":\"%s\",\"seq\":%d}", id,
		         seat + 1);
		ev.body = body;
		if ((rc = store_event_add(st, id, &ev, NULL)) < 0)
			return rc;
	}
	ev.seq = 3;
	ev.type = "started";
	ev.body = "{\"type\":\"started\"}";
	if ((rc = store_event_add(st, id, &ev, NULL)) < 0)
		return rc;
	return store_game_status_set(st, id, "live", NULL);
}

/* Play up to n random moves on game id whose position is g; seq is its last seq. */
static int
play(struct store *st, const char *id, struct game *g, int64_t *seq, int n, struct rng *rng)
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
		if ((rc = store_event_add(st, id, &ev, NULL)) < 0)
			return rc;
		game_apply(g, m);
	}
	return 0;
}

/* Finish game id by its rules (the position g must be over): game_over event and the end. */
static int
finish(struct store *st, const char *id, const struct game *g, int64_t *seq, int64_t ended)
{
	struct store_event ev = {.seq = ++*seq, .time_ms = ended, .type = "game_over"};
	struct game_outcome o;
	int rc;

	game_outcome(g, &o);
	ev.body = "{\"type\":\"game_over\"}";
	if ((rc = store_event_add(st, id, &ev, NULL)) < 0)
		return rc;
	return store_game_finish(st, id, ended, o.winner < 0 ? "draw" : "win", o.winner,
	                         o.end == GAME_END_BLOCKED ? "blocked"
	                         : o.end == GAME_END_LINE  ? "line"
	                                                   : "full",
	                         o.score, NULL);
}

/* End game id (no moves needed) with result "win" (seat 0) or "draw" by resignation/agreement. */
static int
finish_as(struct store *st, const char *id, int64_t *seq, int64_t ended, const char *result)
{
	struct store_event ev = {.seq = ++*seq, .time_ms = ended, .type = "game_over"};
	int rc;

	ev.body = "{\"type\":\"game_over\"}";
	if ((rc = store_event_add(st, id, &ev, NULL)) < 0)
		return rc;
	return store_game_finish(st, id, ended, result, strcmp(result, "win") == 0 ? 0 : -1,
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

/* Write two games (one live, one finished) and a session; reopen; get them back, replayed. */
TEST(store_create_reload)
{
	struct game live, done;
	struct store_error err;
	struct store *st;
	struct loaded l = {0};
	struct rng rng;
	int64_t seq1 = 3, seq2 = 3, v;
	char text[GAME_TEXT_MAX];
	int sessions = 0;

	rng_init(&rng, 9);
	ASSERT_EQ(store_open(fresh("reload"), STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(store_schema_version(st), STORE_SCHEMA_VERSION);
	ASSERT_EQ(add_game(st, "g1", GAME_HOKITO, 1, 1000), 0);
	ASSERT_EQ(add_game(st, "g2", GAME_OXONO, 2, 1001), 0);
	game_start(&live, GAME_HOKITO, NULL, 1, NULL);
	game_start(&done, GAME_OXONO, NULL, 2, NULL);
	ASSERT_EQ(play(st, "g1", &live, &seq1, 6, &rng), 0);
	ASSERT_EQ(play(st, "g2", &done, &seq2, 100, &rng), 0);
	ASSERT(game_over(&done));
	ASSERT_EQ(finish(st, "g2", &done, &seq2, 5000), 0);
	{
		struct store_session s = {.seat = 0, .updated_ms = 7};
		snprintf(s.token, sizeof s.token, "0123456789abcdef0123456789abcdef");
		snprintf(s.player_id, sizeof s.player_id, "p1");
		snprintf(s.name, sizeof s.name, "alice");
		snprintf(s.game_id, sizeof s.game_id, "g1");
		ASSERT_EQ(store_session_set(st, &s, &err), 0);
	}
	ASSERT_EQ(store_meta_set(st, "next_game", 3, &err), 0);
	ASSERT(store_pending(st) > 10);
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT_EQ(store_pending(st), 0);
	ASSERT_EQ(store_commit(st, &err), 0); /* nothing queued: nothing to do */
	/* written but never committed: lost at close, and only that */
	{
		struct game more = live;
		int64_t seq = seq1;
		ASSERT_EQ(play(st, "g1", &more, &seq, 1, &rng), 0);
	}
	store_close(st);

	ASSERT_EQ(store_open(path, STORE_SYNC_FULL, &st, &err), 0);
	ASSERT_EQ(store_load(st, 10, load_cb, &l, &err), 2);
	ASSERT_EQ(l.n, 2);
	ASSERT_STR_EQ(l.g[0].id, "g1");
	ASSERT_STR_EQ(l.g[0].status, "live");
	ASSERT_STR_EQ(l.g[0].seat_name[1], "bob");
	ASSERT_EQ(l.g[0].nevents, seq1);
	ASSERT_EQ(l.nev[0], (size_t)seq1);
	game_format(&live, text, sizeof text);
	ASSERT_STR_EQ(l.pos[0], text);
	ASSERT_STR_EQ(l.g[1].status, "finished");
	ASSERT_STR_EQ(l.g[1].result, "win");
	ASSERT_EQ(l.g[1].ended_ms, 5000);
	game_format(&done, text, sizeof text);
	ASSERT_STR_EQ(l.pos[1], text);
	ASSERT_STR_EQ(l.last_body[1], "{\"type\":\"game_over\"}");
	/* recent = 0: only the unfinished game */
	l.n = 0;
	ASSERT_EQ(store_load(st, 0, load_cb, &l, &err), 1);
	ASSERT_EQ(store_sessions_load(st, session_cb, &sessions, &err), 1);
	ASSERT_EQ(store_meta_get(st, "next_game", &v, &err), 0);
	ASSERT_EQ(v, 3);
	ASSERT_EQ(store_meta_get(st, "nothing", &v, &err), STORE_ENOTFOUND);
	/* the session goes */
	ASSERT_EQ(store_session_remove(st, "0123456789abcdef0123456789abcdef", &err), 0);
	ASSERT_EQ(store_commit(st, &err), 0);
	sessions = 0;
	ASSERT_EQ(store_sessions_load(st, session_cb, &sessions, &err), 0);
	store_close(st);
}

/* Arguments that would break the store's rules are refused, and the transaction goes on. */
TEST(store_refusals)
{
	struct store_event ev = {.seq = 5, .time_ms = 1, .type = "moved", .move = "a1-a3"};
	struct store_error err;
	struct store *st;
	struct store_game g;
	struct store_event *evs;
	size_t n;

	ASSERT_EQ(store_open(fresh("refusals"), STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(add_game(st, "g1", GAME_HOKITO, 1, 1000), 0);
	ev.body = "{}";
	ASSERT_EQ(store_event_add(st, "g1", &ev, &err), STORE_EINVAL);
	ASSERT(strstr(err.text, "does not follow event 3") != NULL);
	ev.seq = 4;
	ev.type = "seated";
	ASSERT_EQ(store_event_add(st, "g1", &ev, &err), STORE_EINVAL);
	ev.type = "moved";
	ASSERT_EQ(store_event_add(st, "g9", &ev, &err), STORE_ENOTFOUND);
	ASSERT_EQ(store_seat_set(st, "g9", 0, "p1", "x", 0, &err), STORE_ENOTFOUND);
	ASSERT_EQ(store_seat_set(st, "g1", 2, "p1", "x", 0, &err), STORE_EINVAL);
	ASSERT_EQ(store_game_status_set(st, "g1", "finished", &err), STORE_EINVAL);
	ASSERT_EQ(add_game(st, "g1", GAME_HOKITO, 1, 1000), 0); /* the same writes again */
	ASSERT_EQ(store_event_add(st, "g1", &ev, &err), 0);
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT_EQ(store_game_get(st, "g1", &g, &evs, &n, &err), 0);
	ASSERT_EQ(n, 4);
	ASSERT_EQ(g.ply, 1);
	ASSERT_STR_EQ(evs[3].move, "a1-a3");
	store_events_free(evs, n);
	ASSERT_EQ(store_game_get(st, "g7", &g, &evs, &n, &err), STORE_ENOTFOUND);
	ASSERT(evs == NULL);
	store_close(st);
	store_close(NULL);
}

/* Finished games come back most recent first, a page at a time. */
TEST(store_history_paging)
{
	struct store_game page[10];
	struct store_error err;
	struct store *st;
	struct rng rng;
	int64_t total;

	rng_init(&rng, 4);
	ASSERT_EQ(store_open(fresh("history"), STORE_SYNC_NORMAL, &st, &err), 0);
	for (int i = 0; i < 25; i++) {
		char id[16];
		struct game g;
		int64_t seq = 3;
		snprintf(id, sizeof id, "g%d", i + 1);
		ASSERT_EQ(add_game(st, id, (enum game_kind)(i % 2), (uint64_t)i, 1000 + i), 0);
		game_start(&g, (enum game_kind)(i % 2), NULL, (uint64_t)i, NULL);
		ASSERT_EQ(play(st, id, &g, &seq, 100, &rng), 0);
		/* ended in an order other than creation: g25 first, g1 last */
		ASSERT_EQ(finish(st, id, &g, &seq, 100000 - i), 0);
	}
	ASSERT_EQ(add_game(st, "g26", GAME_HOKITO, 1, 2000), 0); /* live: not history */
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT_EQ(store_history(st, 0, 10, page, &total, &err), 10);
	ASSERT_EQ(total, 25);
	ASSERT_STR_EQ(page[0].id, "g1");
	ASSERT_STR_EQ(page[9].id, "g10");
	ASSERT_EQ(store_history(st, 20, 10, page, NULL, &err), 5);
	ASSERT_STR_EQ(page[4].id, "g25");
	ASSERT_STR_EQ(page[4].status, "finished");
	ASSERT_EQ(store_history(st, 30, 10, page, NULL, &err), 0);
	ASSERT_EQ(store_history(st, (size_t)1 << 62, 10, page, &total, &err), 0);
	ASSERT_EQ(total, 25);
	ASSERT_EQ(store_history(st, 0, 0, page, &total, &err), 0);
	store_close(st);
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
		/* the cursor goes to the client as text and comes back */
		store_cursor_format(&pg.next, text, sizeof text);
		if (pg.more && store_cursor_parse(text, &q.after) < 0)
			return -100;
		q.has_after = 1;
	} while (pg.more);
	return all;
}

/*
 * The read port: history by key (the cursor of each page's last game), the kept count, records;
 * on the store's own connection and on a reader's, which sees only what is committed.
 */
TEST(store_read_port)
{
	char ids[40][STORE_ID_MAX], text[RECORD_TEXT_MAX];
	const struct store_viewer nobody = {0};
	struct store_history_query q = {.limit = 10};
	struct store_history_page pg;
	struct store_read_port own, rd;
	struct store_game page[10];
	struct store_error err;
	struct store_cursor c;
	struct store *st;
	struct rng rng;
	int64_t total;

	rng_init(&rng, 4);
	ASSERT_EQ(store_open(fresh("readport"), STORE_SYNC_NORMAL, &st, &err), 0);
	for (int i = 0; i < 25; i++) {
		char id[16];
		struct game g;
		int64_t seq = 3;
		snprintf(id, sizeof id, "g%d", i + 1);
		ASSERT_EQ(add_game(st, id, (enum game_kind)(i % 2), (uint64_t)i, 1000 + i), 0);
		game_start(&g, (enum game_kind)(i % 2), NULL, (uint64_t)i, NULL);
		ASSERT_EQ(play(st, id, &g, &seq, 100, &rng), 0);
		/* g11..g15 end at the same time: the creation order decides among them */
		ASSERT_EQ(finish(st, id, &g, &seq, i >= 10 && i < 15 ? 50000 : 100000 - i), 0);
	}
	ASSERT_EQ(store_commit(st, &err), 0);
	store_read_port_init(st, &own);
	ASSERT_EQ(own.loop_only, 1);
	ASSERT_EQ(store_reader_open(path, &rd, &err), 0);
	ASSERT_EQ(rd.loop_only, 0);
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
	q.has_after = 1;
	q.after = (struct store_cursor){.ended_ms = 50000, .serial = 14};
	q.offset = 1;
	ASSERT_EQ(own.history(own.impl, &q, page, &pg, &err), 2);
	ASSERT_STR_EQ(page[0].id, "g12");
	ASSERT_EQ(pg.more, 0);
	/* a private finished game is neither listed nor counted; nor seen before its commit */
	{
		struct store_game g = {.kind = GAME_HOKITO, .is_private = 1, .created_ms = 5};
		snprintf(g.id, sizeof g.id, "g26");
		snprintf(g.variant, sizeof g.variant, "standard");
		snprintf(g.code, sizeof g.code, "K7Q2MX9P");
		ASSERT_EQ(store_game_add(st, &g, &err), 0);
		ASSERT_EQ(store_game_finish(st, "g26", 200000, "aborted", -1, "abort", NULL, &err),
		          0);
		ASSERT_EQ(add_game(st, "g27", GAME_OXONO, 3, 6), 0);
		ASSERT_EQ(store_game_finish(st, "g27", 300000, "aborted", -1, "abort", NULL, &err),
		          0);
	}
	q = (struct store_history_query){.limit = 3};
	ASSERT_EQ(own.history(own.impl, &q, page, &pg, &err), 3); /* the store's own: queued too */
	ASSERT_STR_EQ(page[0].id, "g27");
	ASSERT_EQ(pg.total, 26);
	ASSERT_EQ(rd.history(rd.impl, &q, page, &pg, &err), 3); /* the reader: committed only */
	ASSERT_STR_EQ(page[0].id, "g1");
	ASSERT_EQ(pg.total, 25);
	ASSERT_EQ(pg.more, 1);
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT_EQ(rd.history(rd.impl, &q, page, &pg, &err), 3);
	ASSERT_STR_EQ(page[0].id, "g27");
	ASSERT_EQ(pg.total, 26);
	/* records: by id, a private game only when asked for by its code (public_only 0) */
	ASSERT(rd.record(rd.impl, "g1", &nobody, text, sizeof text, &err) > 0);
	ASSERT(strstr(text, "[Black \"alice\"]") != NULL);
	{
		char again[RECORD_TEXT_MAX];
		ASSERT(store_record_write(st, "g1", again, sizeof again, &err) > 0);
		ASSERT_STR_EQ(text, again);
	}
	ASSERT_EQ(rd.record(rd.impl, "g26", &nobody, text, sizeof text, &err), STORE_ENOTFOUND);
	ASSERT(rd.record(rd.impl, "g26", NULL, text, sizeof text, &err) > 0);
	ASSERT_EQ(rd.record(rd.impl, "g99", NULL, text, sizeof text, &err), STORE_ENOTFOUND);
	rd.close(rd.impl);
	own.close(own.impl);
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
	/* no reader on a temporary store, nor on a missing file */
	ASSERT_EQ(store_reader_open(":memory:", &rd, &err), STORE_EINVAL);
	ASSERT(store_reader_open(fresh("nothere"), &rd, &err) < 0);
	store_close(st);
}

/* The record of a stored game parses back to the same game. */
TEST(store_record)
{
	static struct record r;
	char text[RECORD_TEXT_MAX], want[GAME_TEXT_MAX], got[GAME_TEXT_MAX];
	struct record_error rerr;
	struct store_error err;
	struct store *st;
	struct rng rng;
	struct game g;
	int64_t seq = 3;
	int len;

	rng_init(&rng, 5);
	ASSERT_EQ(store_open(fresh("record"), STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(add_game(st, "g1", GAME_HOKITO, 77, 1795305600000), 0); /* 2026-11-22 */
	game_start(&g, GAME_HOKITO, NULL, 77, NULL);
	ASSERT_EQ(play(st, "g1", &g, &seq, 100, &rng), 0);
	ASSERT_EQ(finish(st, "g1", &g, &seq, 1795305900000), 0);
	ASSERT_EQ(add_game(st, "g2", GAME_OXONO, 5, 1795305600000), 0);
	ASSERT_EQ(store_commit(st, &err), 0);
	len = store_record_write(st, "g1", text, sizeof text, &err);
	ASSERT(len > 0);
	ASSERT(strstr(text, "[Seed \"77\"]\n[Black \"alice\"]\n[White \"bob\"]\n[Date "
	                    "\"2026-11-22\"]\n") != NULL);
	ASSERT_EQ(record_parse(&r, text, (size_t)len, &rerr), 0);
	game_format(&g, want, sizeof want);
	game_format(&r.final, got, sizeof got);
	ASSERT_STR_EQ(got, want);
	ASSERT_EQ(store_record_write(st, "g1", text, 20, &err), STORE_ENOSPC);
	ASSERT_EQ(store_record_write(st, "g9", text, sizeof text, &err), STORE_ENOTFOUND);
	len = store_record_write(st, "g2", text, sizeof text, &err);
	ASSERT(len > 0);
	ASSERT(strstr(text, "[Result \"*\"]\n\n*\n") != NULL);
	store_close(st);
}

/* Run SQL on a file directly, behind the store's back. */
static int
raw_sql(const char *file, const char *sql)
{
	sqlite3 *db;
	int rc;

	if (sqlite3_open(file, &db) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

/* A store with a few finished and live games, closed; returns its size in bytes. */
static long
sample_store(const char *name, int games)
{
	struct store *st;
	struct rng rng;
	struct stat sb;

	rng_init(&rng, 6);
	if (store_open(fresh(name), STORE_SYNC_NORMAL, &st, NULL) < 0)
		return -1;
	for (int i = 0; i < games; i++) {
		char id[16];
		struct game g;
		int64_t seq = 3;
		snprintf(id, sizeof id, "g%d", i + 1);
		add_game(st, id, (enum game_kind)(i % 2), (uint64_t)i, 1000 + i);
		game_start(&g, (enum game_kind)(i % 2), NULL, (uint64_t)i, NULL);
		play(st, id, &g, &seq, i % 3 == 0 ? 5 : 100, &rng);
		if (game_over(&g))
			finish(st, id, &g, &seq, 90000 + i);
	}
	if (store_commit(st, NULL) < 0)
		return -1;
	store_close(st);
	return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* Whether opening path now fails with code and a sentence containing says. */
static int
refused(int code, const char *says)
{
	struct store_error err = {0};
	struct store *st;
	int rc = store_open(path, STORE_SYNC_NORMAL, &st, &err);

	if (rc == 0)
		store_close(st);
	printf("# %s\n", rc < 0 ? err.text : "(opened)");
	return rc == code && st == NULL && err.code == code && strstr(err.text, says) != NULL;
}

struct findings {
	int n;
	char first[320];
	int has; /* one contained the needle */
	const char *needle;
};

static void
found_cb(void *ctx, const char *text)
{
	struct findings *f = ctx;

	if (f->n++ == 0)
		snprintf(f->first, sizeof f->first, "%s", text);
	if (strstr(text, f->needle) != NULL)
		f->has = 1;
}

/*
 * Whether the full check (store_check_file(), hokitod --check) of path finds says: among its
 * findings, or as its refusal with code.
 */
static int
check_finds(int code, const char *says)
{
	struct findings f = {.needle = says};
	struct store_error err = {0};
	int rc = store_check_file(path, found_cb, &f, &err);

	printf("# check: %d: %s\n", rc, rc < 0 ? err.text : f.first);
	if (rc < 0)
		return rc == code && strstr(err.text, says) != NULL;
	return rc > 0 && f.has;
}

/*
 * Damaged files: what opening sees (not SQLite, not ours, from the future, empty) is refused at
 * open with a clear message; damage inside the file is found by the full check, which opening no
 * longer runs (it read the whole store: about a minute a million games).
 */
TEST(store_corrupt_files)
{
	struct findings f = {.needle = ""};
	long size;
	int fd;

	/* a sound store: nothing found */
	sample_store("sound", 30);
	ASSERT_EQ(store_check_file(path, found_cb, &f, NULL), 0);
	ASSERT_EQ(f.n, 0);
	/* truncated to half */
	size = sample_store("truncated", 120);
	ASSERT(size > 8 * 4096);
	ASSERT_EQ(truncate(path, size / 2), 0);
	ASSERT(check_finds(STORE_ECORRUPT, "damaged"));
	/* garbled in the middle: a page overwritten */
	size = sample_store("garbled", 120);
	fd = open(path, O_WRONLY);
	ASSERT(fd >= 0);
	{
		char junk[4096];
		memset(junk, 0x5a, sizeof junk);
		ASSERT_EQ(pwrite(fd, junk, sizeof junk, 4096 * 3), 4096);
	}
	close(fd);
	ASSERT(check_finds(STORE_ECORRUPT, "damaged"));
	/* emptied */
	sample_store("empty", 3);
	ASSERT_EQ(truncate(path, 0), 0);
	ASSERT(refused(STORE_ECORRUPT, "empty"));
	/* not a database */
	fresh("text");
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ASSERT(fd >= 0);
	for (int i = 0; i < 200; i++)
		ASSERT_EQ(write(fd, "this is not a database at all\n", 30), 30);
	close(fd);
	ASSERT(refused(STORE_ECORRUPT, "not an SQLite database"));
	/* somebody else's database */
	fresh("foreign");
	ASSERT_EQ(raw_sql(path, "CREATE TABLE t (x); INSERT INTO t VALUES (1);"), 0);
	ASSERT(refused(STORE_ECORRUPT, "not a hokitod store"));
	/* from the future */
	sample_store("future", 2);
	ASSERT_EQ(raw_sql(path, "PRAGMA user_version = 99"), 0);
	ASSERT(refused(STORE_EVERSION, "newer"));
	/* a whole game deleted: the numbering has a gap */
	sample_store("missing", 6);
	ASSERT_EQ(raw_sql(path, "DELETE FROM events WHERE game_id = 'g3';"
	                        "DELETE FROM games WHERE id = 'g3'"),
	          0);
	ASSERT(check_finds(STORE_ECORRUPT, "games are missing"));
	/* an event lost in the middle of a game */
	sample_store("gap", 6);
	ASSERT_EQ(raw_sql(path, "DELETE FROM events WHERE game_id = 'g2' AND seq = 5"), 0);
	ASSERT(check_finds(STORE_ECORRUPT, "the events of game 'g2' are not numbered"));
	/* two moves of a game swapped: their plies go down along the events */
	sample_store("swapped", 6);
	ASSERT_EQ(raw_sql(path, "UPDATE events SET ply = 7 - ply WHERE game_id = 'g2' AND "
	                        "ply IN (3, 4)"),
	          0);
	ASSERT(check_finds(STORE_ECORRUPT, "the moves of game 'g2' are out of order"));
	/* the kept count of finished games off */
	sample_store("count", 6);
	ASSERT_EQ(raw_sql(path, "UPDATE counts SET n = n + 1"), 0);
	ASSERT(check_finds(STORE_ECORRUPT, "the count of finished public games is wrong"));
	/* the check refuses what opening refuses */
	fresh("foreign2");
	ASSERT_EQ(raw_sql(path, "CREATE TABLE t (x); INSERT INTO t VALUES (1);"), 0);
	ASSERT(check_finds(STORE_ECORRUPT, "not a hokitod store"));
}

static int
count_cb(void *ctx, const struct store_game *g, const struct store_event *ev, size_t n,
         const struct game *start, const struct game *position)
{
	(void)g, (void)ev, (void)n, (void)start, (void)position;
	++*(int *)ctx;
	return 0;
}

/* A stored move that the rules refuse, or an end they contradict, stops the load. */
TEST(store_replay_refuses)
{
	struct store_error err;
	struct store *st;
	int n = 0;

	sample_store("illegal", 6);
	ASSERT_EQ(
	        raw_sql(path, "UPDATE events SET move = 'a1-a1' WHERE game_id = 'g5' AND ply = 2"),
	        0);
	ASSERT_EQ(store_open(path, STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(store_load(st, 100, count_cb, &n, &err), STORE_ECORRUPT);
	printf("# %s\n", err.text);
	ASSERT(strstr(err.text, "game 'g5': stored move 2 'a1-a1'") != NULL);
	store_close(st);

	sample_store("wrongend", 6);
	ASSERT_EQ(raw_sql(path, "UPDATE games SET winner = 1 - winner WHERE id = 'g2'"), 0);
	ASSERT_EQ(store_open(path, STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(store_load(st, 100, count_cb, &n, &err), STORE_ECORRUPT);
	printf("# %s\n", err.text);
	ASSERT(strstr(err.text, "game 'g2': the stored end is wrong") != NULL);
	store_close(st);
}

/*
 * Schema 1 as hokitod 0.1 wrote it (the first migration of store.c, frozen here as that
 * version's file would hold it): a file of that age must open, migrate and keep its games.
 */
static const char schema1[] =
        "CREATE TABLE games (id TEXT PRIMARY KEY, serial INTEGER NOT NULL UNIQUE,"
        "  kind TEXT NOT NULL CHECK (kind IN ('hokito', 'oxono')), variant TEXT NOT NULL,"
        "  seed INTEGER NOT NULL, private INTEGER NOT NULL CHECK (private IN (0, 1)),"
        "  code TEXT NOT NULL,"
        "  status TEXT NOT NULL CHECK (status IN ('open', 'live', 'finished')),"
        "  created_ms INTEGER NOT NULL, seat0_id TEXT, seat0_name TEXT, seat1_id TEXT,"
        "  seat1_name TEXT, ended_ms INTEGER, result TEXT, winner INTEGER, reason TEXT,"
        "  score0 INTEGER, score1 INTEGER);"
        "CREATE TABLE events (game_id TEXT NOT NULL REFERENCES games(id),"
        "  seq INTEGER NOT NULL CHECK (seq >= 1), time_ms INTEGER NOT NULL,"
        "  type TEXT NOT NULL, ply INTEGER, move TEXT, body TEXT NOT NULL,"
        "  CHECK ((type = 'moved') = (move IS NOT NULL)),"
        "  CHECK ((move IS NULL) = (ply IS NULL)),"
        "  PRIMARY KEY (game_id, seq)) WITHOUT ROWID;"
        "CREATE TABLE sessions (token TEXT PRIMARY KEY, player_id TEXT NOT NULL,"
        "  name TEXT NOT NULL, game_id TEXT NOT NULL REFERENCES games(id),"
        "  seat INTEGER NOT NULL CHECK (seat IN (0, 1)), updated_ms INTEGER NOT NULL);"
        "PRAGMA application_id = 1212896335; PRAGMA user_version = 1;"
        "INSERT INTO games VALUES ('g1', 1, 'hokito', 'standard', 1, 0, '', 'live', 1000,"
        "  'p1', 'alice', 'p2', 'bob', NULL, NULL, NULL, NULL, NULL, NULL);"
        "INSERT INTO games VALUES ('g2', 2, 'oxono', 'standard', 3, 1, 'abcd1234', 'finished',"
        "  1001, 'p3', 'carol', NULL, NULL, 2000, 'aborted', -1, 'abandoned', 0, 0);"
        "INSERT INTO events VALUES ('g1', 1, 1000, 'seated', NULL, NULL, '{}'),"
        "  ('g1', 2, 1000, 'seated', NULL, NULL, '{}'), ('g1', 3, 1000, 'started', NULL, NULL,"
        "  '{}'), ('g1', 4, 1001, 'moved', 1, 'a1-a3', '{\"move\":\"a1-a3\"}'),"
        "  ('g2', 1, 1001, 'seated', NULL, NULL, '{}'),"
        "  ('g2', 2, 2000, 'game_over', NULL, NULL, '{}');"
        "INSERT INTO sessions VALUES ('ffffffffffffffffffffffffffffffff', 'p1', 'alice', 'g1',"
        "  0, 1000);";

TEST(store_migration)
{
	struct store_error err;
	struct store *st;
	struct loaded l = {0};
	int64_t v;
	int sessions = 0;

	fresh("schema1");
	ASSERT_EQ(raw_sql(path, schema1), 0);
	ASSERT_EQ(store_open(path, STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(store_schema_version(st), STORE_SCHEMA_VERSION);
	ASSERT_EQ(store_meta_get(st, "games", &v, &err), 0); /* filled by migration 2 */
	ASSERT_EQ(v, 2);
	/* g2 never started (aborted, no move): migration 8 deleted it with its events */
	ASSERT_EQ(store_load(st, 5, load_cb, &l, &err), 1);
	ASSERT_STR_EQ(l.g[0].seat_name[0], "alice");
	ASSERT_EQ(l.nev[0], 4);
	ASSERT_STR_EQ(l.g[0].clock, "none");   /* filled by migration 3 */
	ASSERT_EQ(l.g[0].seat_account[0], -1); /* no account's name: a guest's seat */
	{
		struct store_event *ev;
		struct store_game g;
		size_t nev;
		ASSERT_EQ(store_game_get(st, "g2", &g, &ev, &nev, &err), STORE_ENOTFOUND);
	}
	ASSERT_EQ(store_sessions_load(st, session_cb, &sessions, &err), 1);
	ASSERT_EQ(store_history(st, 0, 5, l.g, &v, &err), 0); /* migration 6 counted: 0 public */
	ASSERT_EQ(v, 0);
	store_close(st);
	/* migration 4 kept each event's (game, seq) unique, and the next one goes in */
	ASSERT_EQ(raw_sql(path, "INSERT INTO events (game_id, seq, time_ms, type, body) "
	                        "VALUES ('g1', 4, 1002, 'chat', '{}')"),
	          -1);
	ASSERT_EQ(raw_sql(path, "INSERT INTO events (game_id, seq, time_ms, type, body) "
	                        "VALUES ('g1', 5, 1002, 'chat', '{}')"),
	          0);
	/* and it stays at the current version */
	ASSERT_EQ(store_open(path, STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(store_schema_version(st), STORE_SCHEMA_VERSION);
	store_close(st);
	{
		struct findings f = {.needle = "missing"};
		ASSERT_EQ(store_check_file(path, found_cb, &f, &err), 0); /* g2 counted deleted */
	}
}

/*
 * A store at main's schema 5 (games without the CHECK on kind, before the kept count and history
 * by key): made here from a store of today by undoing migration 6. It opens, is migrated to 6
 * with the count of what it holds, pages by key, and the full check finds nothing.
 */
TEST(store_migration_from_5)
{
	char ids[40][STORE_ID_MAX];
	struct findings f = {.needle = "damaged"};
	struct store_read_port rp;
	struct store_error err;
	struct store *st;
	struct rng rng;
	int64_t total;

	rng_init(&rng, 5);
	ASSERT_EQ(store_open(fresh("schema5"), STORE_SYNC_NORMAL, &st, &err), 0);
	for (int i = 0; i < 12; i++) {
		char id[16];
		struct game g;
		int64_t seq = 3;
		snprintf(id, sizeof id, "g%d", i + 1);
		ASSERT_EQ(add_game(st, id, (enum game_kind)(i % 2), (uint64_t)i, 1000 + i), 0);
		game_start(&g, (enum game_kind)(i % 2), NULL, (uint64_t)i, NULL);
		ASSERT_EQ(play(st, id, &g, &seq, 100, &rng), 0);
		ASSERT_EQ(finish(st, id, &g, &seq, 50000 + i), 0);
	}
	ASSERT_EQ(add_game(st, "g13", GAME_OXONO, 1, 2000), 0); /* live: not history */
	ASSERT_EQ(store_commit(st, &err), 0);
	store_close(st);
	ASSERT_EQ(raw_sql(path,
	                  "DROP TABLE rating_pairs; ALTER TABLE games DROP COLUMN unrated;"
	                  "DROP TABLE rating_changes; DROP TABLE ratings; ALTER TABLE games DROP "
	                  "COLUMN rated;"
	                  "DROP TRIGGER counts_delete; DROP TRIGGER counts_account_finish;"
	                  "DROP TRIGGER counts_account_insert; DROP INDEX games_seat0_account;"
	                  "DROP INDEX games_seat1_account; DROP INDEX games_seat0_guest;"
	                  "DROP INDEX games_seat1_guest; DROP INDEX games_guests_ended;"
	                  "DROP INDEX sessions_game; ALTER TABLE games DROP seat0_account;"
	                  "ALTER TABLE games DROP seat1_account;"
	                  "DROP TRIGGER counts_finish; DROP TRIGGER counts_insert;"
	                  "DROP TABLE counts; DROP INDEX games_public_history;"
	                  "DROP INDEX games_private_history; DROP TABLE accounts;"
	                  "ALTER TABLE sessions DROP COLUMN account;"
	                  "CREATE INDEX games_history ON games (ended_ms DESC, serial DESC)"
	                  "  WHERE status = 'finished';"
	                  "PRAGMA user_version = 5;"),
	          0);
	ASSERT_EQ(store_open(path, STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(store_schema_version(st), STORE_SCHEMA_VERSION);
	store_read_port_init(st, &rp);
	ASSERT_EQ(walk_history(&rp, 5, ids, &total), 12); /* by key, counted by migration 6 */
	ASSERT_EQ(total, 12);
	ASSERT_STR_EQ(ids[0], "g12");
	ASSERT_STR_EQ(ids[11], "g1");
	rp.close(rp.impl);
	store_close(st);
	ASSERT_EQ(store_check_file(path, found_cb, &f, &err), 0);
}

/* A finished game between seats (player id, account: 0 a guest), ended at ended. */
static int
add_between(struct store *st, const char *id, int priv, const char *p0, int64_t a0, const char *p1,
            int64_t a1, int64_t ended)
{
	struct store_game g = {.kind = GAME_HOKITO, .is_private = priv, .created_ms = ended - 1};
	int rc;

	snprintf(g.id, sizeof g.id, "%s", id);
	snprintf(g.variant, sizeof g.variant, "standard");
	if (priv)
		snprintf(g.code, sizeof g.code, "CODE%s", id);
	if ((rc = store_game_add(st, &g, NULL)) < 0 ||
	    (rc = store_seat_set(st, id, 0, p0, p0, a0, NULL)) < 0 ||
	    (rc = store_seat_set(st, id, 1, p1, p1, a1, NULL)) < 0)
		return rc;
	return store_game_finish(st, id, ended, "win", 0, "resign", NULL, NULL);
}

/* The ids of history query q, walked page by page (limit 2) into out, as "g6 g4 g1". */
static int64_t
history_of(const struct store_read_port *rp, struct store_history_query q, char *out, size_t size)
{
	struct store_history_page pg;
	struct store_game page[2];
	size_t len = 0;
	int n;

	out[0] = '\0';
	q.limit = 2;
	do {
		if ((n = rp->history(rp->impl, &q, page, &pg, NULL)) < 0)
			return n;
		for (int i = 0; i < n; i++)
			len += (size_t)snprintf(out + len, size - len, "%s%s", len ? " " : "",
			                        page[i].id);
		q.has_after = 1;
		q.after = pg.next;
	} while (pg.more);
	return pg.total;
}

/*
 * What the store keeps (schema 8): each seat's account; history by player and one's own private
 * games, paged by key with totals from the kept counts; a game dropped with its events and
 * counts; --keep-days' sweep of old games without an account, not of those with a session; no
 * serial taken twice; and the full check agrees with all of it.
 */
TEST(store_keep)
{
	struct findings f = {.needle = "wrong"};
	struct store_history_query q;
	struct store_read_port rp;
	struct store_error err;
	struct store_session ss = {.seat = 0, .updated_ms = 1};
	struct store_event *ev;
	struct store_game g;
	struct store *st;
	char ids[256];
	size_t nev;

	ASSERT_EQ(store_open(fresh("keep"), STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(add_between(st, "g1", 0, "p1", 1, "p2", 2, 1000), 0);  /* alice - bob */
	ASSERT_EQ(add_between(st, "g2", 1, "p1", 1, "p2", 2, 2000), 0);  /* private */
	ASSERT_EQ(add_between(st, "g3", 1, "p1", 1, "p10", 0, 3000), 0); /* alice - guest */
	ASSERT_EQ(add_between(st, "g4", 0, "p10", 0, "p11", 0, 4000), 0);
	ASSERT_EQ(add_between(st, "g5", 1, "p10", 0, "p11", 0, 5000), 0);
	ASSERT_EQ(add_between(st, "g6", 0, "p1", 1, "p3", 1, 6000), 0); /* alice twice */
	ASSERT_EQ(add_between(st, "g7", 1, "p2", 2, "p11", 0, 7000), 0);
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT_EQ(store_game_get(st, "g3", &g, &ev, &nev, &err), 0);
	store_events_free(ev, nev);
	ASSERT_EQ(g.seat_account[0], 1);
	ASSERT_EQ(g.seat_account[1], -1);
	store_read_port_init(st, &rp);
#define HISTORY(...)                                                                               \
	(q = (struct store_history_query){__VA_ARGS__}, history_of(&rp, q, ids, sizeof ids))
	ASSERT_EQ(HISTORY(.limit = 2), 3);
	ASSERT_STR_EQ(ids, "g6 g4 g1");
	ASSERT_EQ(HISTORY(.own_account = 1), 5); /* and alice's private games */
	ASSERT_STR_EQ(ids, "g6 g4 g3 g2 g1");
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
		/* a private game's record by id: to the players who held a seat in it */
		static const struct store_viewer alice = {.account = 1}, bob = {.account = 2},
		                                 carol = {.player_id = "p10"},
		                                 dan = {.player_id = "p11"};
		char text[RECORD_TEXT_MAX];
		ASSERT(rp.record(rp.impl, "g3", &alice, text, sizeof text, &err) > 0);
		ASSERT(rp.record(rp.impl, "g3", &carol, text, sizeof text, &err) > 0);
		ASSERT_EQ(rp.record(rp.impl, "g3", &bob, text, sizeof text, &err), STORE_ENOTFOUND);
		ASSERT_EQ(rp.record(rp.impl, "g3", &dan, text, sizeof text, &err), STORE_ENOTFOUND);
	}
	/* a game dropped: its events, its counts */
	ASSERT_EQ(store_game_drop(st, "g2", &err), 0);
	ASSERT_EQ(store_game_drop(st, "g2", &err), 0); /* deleted already */
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT_EQ(HISTORY(.own_account = 1), 4);
	ASSERT_STR_EQ(ids, "g6 g4 g3 g1");
	/* the sweep: old games without an account, but not one somebody is seated at */
	snprintf(ss.token, sizeof ss.token, "t10");
	snprintf(ss.player_id, sizeof ss.player_id, "p10");
	snprintf(ss.name, sizeof ss.name, "p10");
	snprintf(ss.game_id, sizeof ss.game_id, "g5");
	ASSERT_EQ(store_session_set(st, &ss, &err), 0);
	ASSERT_EQ(store_sweep(st, 4500, 10, &err), 1);  /* g4 */
	ASSERT_EQ(store_sweep(st, 10000, 10, &err), 0); /* g5 has a session; the rest accounts */
	ASSERT_EQ(store_session_remove(st, "t10", &err), 0);
	ASSERT_EQ(store_sweep(st, 10000, 10, &err), 1); /* g5 */
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT_EQ(HISTORY(.limit = 2), 2);
	ASSERT_STR_EQ(ids, "g6 g1");
	/* the last game deleted: its serial is not taken again */
	ASSERT_EQ(store_game_drop(st, "g7", &err), 0);
	ASSERT_EQ(add_between(st, "g8", 0, "p20", 0, "p21", 0, 8000), 0);
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT_EQ(store_game_get(st, "g8", &g, &ev, &nev, &err), 0);
	store_events_free(ev, nev);
	ASSERT_EQ(g.serial, 8);
#undef HISTORY
	rp.close(rp.impl);
	store_close(st);
	ASSERT_EQ(store_check_file(path, found_cb, &f, &err), 0);
	/* a count out of step is found */
	ASSERT_EQ(raw_sql(path, "UPDATE counts SET n = 7 WHERE name = 'a1'"), 0);
	ASSERT(check_finds(STORE_ECORRUPT, "the count of an account's finished games is wrong"));
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * Group commit: N moves in one transaction, committed at once. Prints, for each sync level and
 * N, the median time of the writes and of the commit (the event loop waits for both).
 */
TEST(store_group_commit_timing)
{
	static const int sizes[] = {1, 10, 100, 1000};
	struct store_error err;

	for (int sync = 0; sync < 2; sync++) {
		struct store *st;
		int games = 0;
		ASSERT_EQ(store_open(fresh(sync ? "timing-full" : "timing-normal"),
		                     (enum store_sync)sync, &st, &err),
		          0);
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			double t[9];
			int rounds = 9;
			for (int round = 0; round < rounds; round++) {
				/* N moves over N/10 games (10 moves each: no game ends that soon)
				 */
				int n = sizes[s], per = 10;
				struct game g[100];
				int64_t seq[100];
				char id[100][16];
				int ng = (n + per - 1) / per;
				struct rng rng;
				double t0;
				rng_init(&rng, (uint64_t)round);
				for (int i = 0; i < ng; i++) {
					snprintf(id[i], sizeof id[i], "g%d", ++games);
					ASSERT_EQ(add_game(st, id[i], GAME_HOKITO, (uint64_t)games,
					                   1),
					          0);
					game_start(&g[i], GAME_HOKITO, NULL, (uint64_t)games, NULL);
					seq[i] = 3;
				}
				ASSERT_EQ(store_commit(st, &err), 0);
				t0 = now_ms();
				for (int done = 0, i = 0; done < n; i = (i + 1) % ng, done++) {
					ASSERT(!game_over(&g[i]));
					ASSERT_EQ(play(st, id[i], &g[i], &seq[i], 1, &rng), 0);
				}
				ASSERT_EQ(store_commit(st, &err), 0);
				t[round] = now_ms() - t0;
			}
			for (int i = 1; i < rounds; i++)
				for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
					double x = t[j];
					t[j] = t[j - 1];
					t[j - 1] = x;
				}
			printf("# group commit, %s: %4d moves: median %.3f ms, max %.3f ms\n",
			       sync ? "STORE_SYNC_FULL  " : "STORE_SYNC_NORMAL", sizes[s],
			       t[rounds / 2], t[rounds - 1]);
		}
		store_close(st);
	}
}

/*
 * The store keeps each unfinished game's last seq and ply in memory: after a reopen they are read
 * from the file again, a finished game still takes events (a rematch offer) checked against the
 * file, and a body given with its length is stored as exactly those bytes.
 */
TEST(store_event_places)
{
	struct store_event ev = {.time_ms = 1, .type = "rematch_offered"};
	struct store_event *evs;
	struct store_error err;
	struct store_game sg;
	struct store *st;
	struct game g;
	struct rng rng;
	int64_t seq = 3;
	size_t n;

	rng_init(&rng, 11);
	game_start(&g, GAME_HOKITO, "standard", 3, NULL);
	ASSERT_EQ(store_open(fresh("places"), STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(add_game(st, "g1", GAME_HOKITO, 3, 1000), 0);
	ASSERT_EQ(play(st, "g1", &g, &seq, 4, &rng), 0);
	ASSERT_EQ(store_commit(st, &err), 0);
	store_close(st);
	/* reopened: where g1 stands comes from the file */
	ASSERT_EQ(store_open(path, STORE_SYNC_NORMAL, &st, &err), 0);
	ev.seq = seq + 2;
	ev.body = "{}";
	ASSERT_EQ(store_event_add(st, "g1", &ev, &err), STORE_EINVAL);
	ASSERT(strstr(err.text, "does not follow event 7") != NULL);
	ASSERT_EQ(play(st, "g1", &g, &seq, 2, &rng), 0);
	ev.seq = ++seq;
	ev.body = "{\"type\":\"chat\"}trailing bytes";
	ev.body_len = strlen("{\"type\":\"chat\"}");
	ev.type = "chat";
	ASSERT_EQ(store_event_add(st, "g1", &ev, &err), 0);
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT_EQ(store_game_get(st, "g1", &sg, &evs, &n, &err), 0);
	ASSERT_EQ(n, 10);
	ASSERT_EQ(sg.ply, 6);
	ASSERT_STR_EQ(evs[9].body, "{\"type\":\"chat\"}");
	store_events_free(evs, n);
	/* finished: later events still follow on */
	ASSERT_EQ(play(st, "g1", &g, &seq, 1000, &rng), 0);
	ASSERT_EQ(finish(st, "g1", &g, &seq, 5000), 0);
	ev.body_len = 0;
	ev.body = "{}";
	ev.type = "rematch_offered";
	ev.seq = seq + 2;
	ASSERT_EQ(store_event_add(st, "g1", &ev, &err), STORE_EINVAL);
	ev.seq = ++seq;
	ASSERT_EQ(store_event_add(st, "g1", &ev, &err), 0);
	ev.seq = ++seq;
	ASSERT_EQ(store_event_add(st, "g1", &ev, &err), 0);
	ASSERT_EQ(store_commit(st, &err), 0);
	store_close(st);
	/* the file adds up (events 1..n, plies 1..k) and the game replays */
	ASSERT_EQ(store_open(path, STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(store_game_get(st, "g1", &sg, &evs, &n, &err), 0);
	ASSERT_EQ((int64_t)n, seq);
	ASSERT_STR_EQ(sg.status, "finished");
	store_events_free(evs, n);
	store_close(st);
}

/* Whether a file exists. */
static int
exists(const char *name)
{
	struct stat sb;

	return stat(name, &sb) == 0;
}

/*
 * The disk waits handed to another thread (store_bg_open()): commits go on without SQLite's own
 * checkpoints (the WAL grows), a checkpoint through the second connection copies it and the next
 * commit starts it over; the sync works; a second server on the file is refused; nothing is lost
 * at reopen, and a clean close leaves no -wal or -shm file.
 */
TEST(store_offloaded)
{
	struct store_error err;
	struct store *st, *other, *temp;
	struct store_bg *bg, *bg2;
	struct loaded l = {0};
	struct game g;
	struct rng rng;
	int64_t seq = 3;
	char wal[160], shm[160];
	size_t grown;

	rng_init(&rng, 5);
	ASSERT_EQ(store_open(fresh("offloaded"), STORE_SYNC_FULL, &st, &err), 0);
	ASSERT_EQ(store_sync_level(st), STORE_SYNC_FULL);
	ASSERT_EQ(store_bg_open(st, &bg, &err), 0);
	ASSERT_EQ(store_bg_open(st, &bg2, &err), STORE_EINVAL); /* once */
	ASSERT(bg2 == NULL);
	snprintf(wal, sizeof wal, "%s-wal", path);
	snprintf(shm, sizeof shm, "%s-shm", path);
	ASSERT(exists(wal) && exists(shm));
	/* one server per file */
	ASSERT_EQ(store_open(path, STORE_SYNC_NORMAL, &other, &err), STORE_ECONFLICT);
	ASSERT(strstr(err.text, "in use by another process") != NULL);
	/* a temporary store has nothing to offload */
	ASSERT_EQ(store_open(":memory:", STORE_SYNC_NORMAL, &temp, &err), 0);
	ASSERT_EQ(store_bg_open(temp, &bg2, &err), STORE_EINVAL);
	store_close(temp);

	ASSERT_EQ(add_game(st, "g1", GAME_HOKITO, 3, 1000), 0);
	game_start(&g, GAME_HOKITO, NULL, 3, NULL);
	for (int i = 0; i < 40; i++) {
		if (i < 10) /* moves, and the game goes on */
			ASSERT_EQ(play(st, "g1", &g, &seq, 1, &rng), 0);
		ASSERT_EQ(store_meta_set(st, "next_player", i, &err), 0);
		ASSERT_EQ(store_commit(st, &err), 0);
		ASSERT_EQ(store_bg_sync(bg), 0);
	}
	ASSERT(!game_over(&g));
	grown = store_wal_frames(st);
	ASSERT(grown >= 40); /* a frame or more a commit, none copied back by SQLite itself */
	ASSERT_EQ(store_bg_checkpoint(bg, &err), 0);
	ASSERT_EQ(store_meta_set(st, "next_game", 2, &err), 0);
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT(store_wal_frames(st) < 10); /* started over */
	ASSERT_EQ(store_checkpoint(st, &err), 0);
	store_bg_close(bg);
	store_close(st);
	ASSERT(!exists(wal) && !exists(shm));

	ASSERT_EQ(store_open(path, STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(store_load(st, 10, load_cb, &l, &err), 1);
	ASSERT_EQ(l.nev[0], (size_t)seq);
	store_close(st);
}

/* Count and check the accounts loaded. */
static int
account_seen(void *ctx, const struct store_account *a)
{
	int *n = ctx;

	if (a->id == 1 && strcmp(a->name, "Alice_99") == 0 && strcmp(a->key, "alice_99") == 0 &&
	    strcmp(a->kind, "account") == 0 && a->created_ms == 77 && a->closed_ms == 0 &&
	    strncmp(a->hash, "$argon2id$", 10) == 0)
		(*n)++;
	return 0;
}

/* Schema 7: an account written through the write port comes back; a second one of the same key
 * fails its commit (the key is unique), and nothing of that turn is kept. */
TEST(store_accounts)
{
	struct store_account a = {.id = 1, .created_ms = 77};
	struct store_write_port wp;
	struct store_error err;
	struct store *st;
	uint64_t tk;
	int n = 0;

	ASSERT_EQ(store_open(fresh("accounts"), STORE_SYNC_NORMAL, &st, &err), 0);
	store_write_port_init(st, &wp);
	snprintf(a.name, sizeof a.name, "Alice_99");
	snprintf(a.key, sizeof a.key, "alice_99");
	snprintf(a.skeleton, sizeof a.skeleton, "alice_99");
	snprintf(a.hash, sizeof a.hash, "$argon2id$v=19$m=19456,t=2,p=1$x$y");
	snprintf(a.kind, sizeof a.kind, "account");
	ASSERT_EQ(wp.account_add(wp.impl, &a, &err), 0);
	ASSERT_EQ(wp.commit(wp.impl, &tk, &err), 0);
	a.id = 2;
	ASSERT_EQ(wp.account_add(wp.impl, &a, &err) < 0 || wp.commit(wp.impl, &tk, &err) < 0, 1);
	store_close(st);
	ASSERT_EQ(store_open(path, STORE_SYNC_NORMAL, &st, &err), 0);
	store_write_port_init(st, &wp);
	ASSERT_EQ(wp.accounts_load(wp.impl, account_seen, &n, &err), 1);
	ASSERT_EQ(n, 1);
	a.id = 1;
	a.closed_ms = 88;
	ASSERT_EQ(wp.account_update(wp.impl, &a, &err), 0);
	ASSERT_EQ(wp.commit(wp.impl, &tk, &err), 0);
	n = 0;
	ASSERT_EQ(wp.accounts_load(wp.impl, account_seen, &n, &err), 1);
	ASSERT_EQ(n, 0); /* closed now: account_seen counts open ones */
	store_close(st);
}

/* store_accounts_page() callback: the ids seen, in order. */
static int
account_id_seen(void *ctx, const struct store_account *a)
{
	int64_t *ids = ctx;

	for (int i = 0; i < 8; i++)
		if (ids[i] == 0) {
			ids[i] = a->id;
			break;
		}
	return 0;
}

/* The operators' queries by key: a page after an id (the primary key, whatever the ids asked),
 * and one account by its name key. */
TEST(store_accounts_by_key)
{
	struct store_account a, got;
	struct store_error err;
	struct store *st;
	int64_t ids[8];

	memset(&a, 0, sizeof a);
	ASSERT_EQ(store_open(fresh("accounts-keys"), STORE_SYNC_NORMAL, &st, &err), 0);
	snprintf(a.hash, sizeof a.hash, "$argon2id$v=19$m=19456,t=2,p=1$x$y");
	snprintf(a.kind, sizeof a.kind, "account");
	for (int i = 1; i <= 5; i++) {
		a.id = i * 10;
		snprintf(a.name, sizeof a.name, "User_%d", i);
		snprintf(a.key, sizeof a.key, "user_%d", i);
		snprintf(a.skeleton, sizeof a.skeleton, "user_%d", i);
		ASSERT_EQ(store_account_add(st, &a, &err), 0);
	}
	ASSERT_EQ(store_commit(st, &err), 0);
	memset(ids, 0, sizeof ids);
	ASSERT_EQ(store_accounts_page(st, 15, 2, account_id_seen, ids, &err), 2);
	ASSERT_EQ(ids[0], 20);
	ASSERT_EQ(ids[1], 30);
	memset(ids, 0, sizeof ids);
	ASSERT_EQ(store_accounts_page(st, 0, 100, account_id_seen, ids, &err), 5);
	ASSERT_EQ(ids[4], 50);
	ASSERT_EQ(store_accounts_page(st, INT64_MAX, 100, account_id_seen, ids, &err), 0);
	ASSERT_EQ(store_accounts_page(st, -1, 100, account_id_seen, ids, &err), STORE_EINVAL);
	ASSERT_EQ(store_accounts_page(st, 0, 0, account_id_seen, ids, &err), STORE_EINVAL);
	ASSERT_EQ(store_account_find(st, "user_3", &got, &err), 1);
	ASSERT_EQ(got.id, 30);
	ASSERT_STR_EQ(got.name, "User_3");
	ASSERT_EQ(store_account_find(st, "user_9", &got, &err), 0);
	store_close(st);
}

/* The integer the first row of sql on file gives, behind the store's back; -1 on failure. */
static int64_t
raw_count(const char *file, const char *sql)
{
	sqlite3_stmt *q;
	sqlite3 *db;
	int64_t n = -1;

	if (sqlite3_open(file, &db) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW)
			n = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
	}
	sqlite3_close(db);
	return n;
}

/*
 * --unused-account-days: the accounts never used (no finished game, no rating, not a bot's, not
 * closed nor banned, not the newest) in id order up to the first too young, then deleted and
 * counted; one used since is not deleted.
 */
TEST(store_unused_accounts)
{
	static const char *const names[] = {"",      "idle",  "player", "closer",
	                                    "robot", "young", "idle2",  "newest"};
	struct store_account a = {.created_ms = 100};
	struct store_error err;
	int64_t ids[8], next = 0;
	struct store *st;

	ASSERT_EQ(store_open(fresh("unused"), STORE_SYNC_NORMAL, &st, &err), 0);
	snprintf(a.hash, sizeof a.hash, "$argon2id$v=19$m=19456,t=2,p=1$x$y");
	for (int i = 1; i <= 7; i++) {
		a.id = i;
		a.created_ms = i == 5 ? 5000 : 100 + i; /* young: made after the time asked */
		a.closed_ms = i == 3 ? 200 : 0;
		snprintf(a.name, sizeof a.name, "%s", names[i]);
		snprintf(a.key, sizeof a.key, "%s", names[i]);
		snprintf(a.skeleton, sizeof a.skeleton, "%s", names[i]);
		snprintf(a.kind, sizeof a.kind, "%s", i == 4 ? "bot" : "account");
		ASSERT_EQ(store_account_add(st, &a, &err), 0);
		if (a.closed_ms != 0) /* an account is made open: closed by an update */
			ASSERT_EQ(store_account_update(st, &a, &err), 0);
	}
	ASSERT_EQ(add_between(st, "g1", 0, "p1", 2, "p2", 0, 1000), 0); /* player's game */
	ASSERT_EQ(store_commit(st, &err), 0);
	/* from the start: idle only, then the young one stops the scan */
	ASSERT_EQ(store_accounts_unused(st, 0, 1000, 100, ids, 8, &next, &err), 1);
	ASSERT_EQ(ids[0], 1);
	ASSERT_EQ(next, 4);
	/* a small scan goes on from where it stopped */
	ASSERT_EQ(store_accounts_unused(st, 0, 1000, 2, ids, 8, &next, &err), 1);
	ASSERT_EQ(next, 2);
	ASSERT_EQ(store_accounts_unused(st, 2, 1000, 2, ids, 8, &next, &err), 0);
	ASSERT_EQ(next, 4);
	/* later, past the young one: idle2 (7, the newest, stays) */
	ASSERT_EQ(store_accounts_unused(st, 4, 10000, 100, ids, 8, &next, &err), 2);
	ASSERT_EQ(ids[0], 5);
	ASSERT_EQ(ids[1], 6);
	ASSERT_EQ(next, 7);
	ASSERT_EQ(store_account_drop(st, 1, &err), 0);
	ASSERT_EQ(store_account_drop(st, 1, &err), 0); /* gone: nothing more */
	ASSERT_EQ(store_account_drop(st, 2, &err), 0); /* used: kept */
	ASSERT_EQ(store_account_drop(st, 7, &err), 0); /* the newest: kept */
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT_EQ(store_accounts_unused(st, 0, 10000, 100, ids, 8, &next, &err), 2); /* 5, 6 */
	store_close(st);
	ASSERT_EQ(raw_count(path, "SELECT COUNT(*) FROM accounts"), 6);
	ASSERT_EQ(raw_count(path, "SELECT n FROM counts WHERE name = 'released_accounts'"), 1);
	{
		struct findings f = {.needle = ""};

		ASSERT_EQ(store_check_file(path, found_cb, &f, &err), 0);
	}
}

/* ratings_load() callback: keeps the rows seen. */
static int
rating_seen(void *ctx, const struct store_rating *r)
{
	struct store_rating *rows = ctx;

	if (r->account >= 1 && r->account <= 4)
		rows[r->account - 1] = *r;
	return 0;
}

/*
 * Ratings (schema 8): a rated game's changes make both ratings rows (counts, best) in the game
 * end's transaction; they load back as stored; the leaderboard pages by key through equal
 * ratings, leaving out provisional, closed and banned accounts; an account's rated games come
 * most recent first; the record of a rated game has its rating headers.
 */
/* store_rated_pairs_load() callback: keeps the last game's accounts and end in ctx[0..2]. */
static int
pair_seen(void *ctx, int64_t a, int64_t b, int64_t ended_ms)
{
	int64_t *got = ctx;

	got[0] = a;
	got[1] = b;
	got[2] = ended_ms;
	return 0;
}

TEST(store_ratings)
{
	struct store_rating rows[4];
	struct store_board_entry e[4];
	struct store_rated_game rg[4];
	struct store_board_query q = {.kind = GAME_HOKITO, .limit = 2};
	struct store_error err;
	struct store *st;
	char text[RECORD_TEXT_MAX];
	int64_t seq;
	int more;

	ASSERT_EQ(store_open(fresh("ratings"), STORE_SYNC_NORMAL, &st, &err), 0);
	for (int i = 1; i <= 4; i++) {
		struct store_account a = {.id = i, .created_ms = 1};
		snprintf(a.name, sizeof a.name, "acc%d", i);
		snprintf(a.key, sizeof a.key, "acc%d", i);
		snprintf(a.skeleton, sizeof a.skeleton, "acc%d", i);
		snprintf(a.hash, sizeof a.hash, "h");
		snprintf(a.kind, sizeof a.kind, i == 4 ? "bot" : "account");
		ASSERT_EQ(store_account_add(st, &a, &err), 0);
	}
	/* g1: 1 beats 2 (provisional both); g2: 3 and 4 draw at established ratings */
	for (int k = 0; k < 2; k++) {
		const char *id = k == 0 ? "g1" : "g2";
		const int64_t acc[2] = {k == 0 ? 1 : 3, k == 0 ? 2 : 4};
		const double score[2] = {k == 0 ? 1.0 : 0.5, k == 0 ? 0.0 : 0.5};

		ASSERT_EQ(add_game(st, id, GAME_HOKITO, 5, 1000 + k), 0);
		seq = 3;
		ASSERT_EQ(finish_as(st, id, &seq, 2000 + k, k == 0 ? "win" : "draw"), 0);
		for (int s2 = 0; s2 < 2; s2++) {
			struct store_rating_change c = {
			        .seat = s2,
			        .account = acc[s2],
			        .kind = GAME_HOKITO,
			        .before = {1500, k == 0 ? 350 : 60, 0.06},
			        .after = {k == 0 ? (s2 ? 1337.7 : 1662.3) : (s2 ? 1700 : 1700),
			                  k == 0 ? 290.3 : 59, 0.06},
			        .score = score[s2],
			        .opponent = acc[1 - s2],
			};
			ASSERT_EQ(store_rating_change(st, id, &c, 2000 + k, &err), 0);
		}
	}
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT_EQ(store_ratings_load(st, rating_seen, rows, &err), 4);
	ASSERT_EQ(rows[0].wins, 1);
	ASSERT_EQ(rows[1].losses, 1);
	ASSERT_EQ(rows[2].draws, 1);
	ASSERT_EQ(rows[0].games, 1);
	ASSERT_NEAR(rows[0].rating, 1662.3, 0);
	ASSERT_NEAR(rows[1].best, 1337.7, 0);
	/* the board: 3 and 4 tie at 1700 (the lower account first); 1 and 2 are provisional */
	ASSERT_EQ(store_leaderboard(st, &q, e, &more, &err), 2);
	ASSERT_EQ(more, 0);
	ASSERT_EQ(e[0].account, 3);
	ASSERT_EQ(e[1].account, 4);
	ASSERT_EQ(e[1].rank, 2);
	ASSERT_EQ(e[1].bot, 1);
	q.limit = 1;
	ASSERT_EQ(store_leaderboard(st, &q, e, &more, &err), 1);
	ASSERT_EQ(more, 1);
	q.has_after = 1;
	q.after = (struct store_board_cursor){e[0].rating, e[0].account, e[0].rank};
	ASSERT_EQ(store_leaderboard(st, &q, e, &more, &err), 1);
	ASSERT_EQ(e[0].account, 4);
	ASSERT_EQ(e[0].rank, 2);
	ASSERT_EQ(more, 0);
	ASSERT_EQ(raw_sql(path, "UPDATE accounts SET banned_ms = 5 WHERE id = 3"), 0);
	q.has_after = 0;
	ASSERT_EQ(store_leaderboard(st, &q, e, &more, &err), 1);
	ASSERT_EQ(e[0].account, 4);
	/* an account's rated games, with both changes */
	ASSERT_EQ(store_rated_games(st, 1, 4, rg, &err), 1);
	ASSERT_STR_EQ(rg[0].game.id, "g1");
	ASSERT_EQ(rg[0].game.rated, 0); /* add_game() made it unrated; the changes still tell */
	ASSERT_EQ(rg[0].nchanges, 2);
	ASSERT_EQ(rg[0].changes[1].account, 2);
	ASSERT_EQ(store_rated_games(st, 9, 4, rg, &err), 0);
	/* a rated game's record */
	ASSERT_EQ(raw_sql(path, "UPDATE games SET rated = 1 WHERE id = 'g1'"), 0);
	ASSERT(store_record_write(st, "g1", text, sizeof text, &err) > 0);
	ASSERT(strstr(text, "[Rated \"yes\"]\n[BlackRating \"1500?\"]\n[WhiteRating \"1500?\"]\n"
	                    "[BlackRatingDiff \"+162\"]\n[WhiteRatingDiff \"-162\"]\n") != NULL);
	/* a bad change is refused before anything is queued */
	{
		struct store_rating_change c = {.seat = 2, .account = 1, .score = 1};
		ASSERT_EQ(store_rating_change(st, "g1", &c, 1, &err), STORE_EINVAL);
	}
	/* the board's minimums: rated games, distinct opponents (schema 10) */
	ASSERT_EQ(raw_sql(path, "UPDATE accounts SET banned_ms = NULL WHERE id = 3"), 0);
	q.limit = 4;
	q.min_games = 1;
	q.min_opponents = 1;
	ASSERT_EQ(store_leaderboard(st, &q, e, &more, &err), 2);
	ASSERT_EQ(e[0].opponents, 1);
	q.min_opponents = 2;
	ASSERT_EQ(store_leaderboard(st, &q, e, &more, &err), 0);
	q.min_opponents = 0;
	q.min_games = 2;
	ASSERT_EQ(store_leaderboard(st, &q, e, &more, &err), 0);
	/* the same pair again: one opponent still, two games */
	ASSERT_EQ(add_game(st, "g3", GAME_HOKITO, 5, 3000), 0);
	seq = 3;
	ASSERT_EQ(finish_as(st, "g3", &seq, 3001, "draw"), 0);
	for (int s2 = 0; s2 < 2; s2++) {
		struct store_rating_change c = {.seat = s2,
		                                .account = 3 + s2,
		                                .kind = GAME_HOKITO,
		                                .before = {1700, 59, 0.06},
		                                .after = {1700, 58, 0.06},
		                                .score = 0.5,
		                                .opponent = 4 - s2};
		ASSERT_EQ(store_rating_change(st, "g3", &c, 3001, &err), 0);
	}
	ASSERT_EQ(store_commit(st, &err), 0);
	q.min_opponents = 1;
	ASSERT_EQ(store_leaderboard(st, &q, e, &more, &err), 2);
	ASSERT_EQ(e[0].games, 2);
	ASSERT_EQ(e[0].opponents, 1);
	/* a rated game that rated nobody keeps why; its record is a casual game's */
	ASSERT_EQ(add_game(st, "g4", GAME_HOKITO, 5, 4000), 0);
	seq = 3;
	ASSERT_EQ(finish_as(st, "g4", &seq, 4001, "win"), 0);
	ASSERT_EQ(store_game_unrated(st, "g4", "short", &err), 0);
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT_EQ(raw_sql(path, "UPDATE games SET rated = 1 WHERE id = 'g4'"), 0);
	{
		struct store_event *ev;
		struct store_game g;
		size_t nev;
		ASSERT_EQ(store_game_get(st, "g4", &g, &ev, &nev, &err), 0);
		ASSERT_STR_EQ(g.unrated, "short");
		ASSERT_EQ(g.rated, 1);
		store_events_free(ev, nev);
	}
	ASSERT(store_record_write(st, "g4", text, sizeof text, &err) > 0);
	ASSERT(strstr(text, "[Rated") == NULL);
	store_close(st);
	/* migration 10 counts the opponents of the rated games stored before it */
	ASSERT_EQ(raw_sql(path,
	                  "DROP TABLE rating_pairs; DROP INDEX rating_changes_ended; DROP INDEX "
	                  "ratings_by_rating;"
	                  "ALTER TABLE games DROP COLUMN unrated;"
	                  "ALTER TABLE ratings DROP COLUMN opponents; PRAGMA user_version = 9;"),
	          0);
	ASSERT_EQ(store_open(path, STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(store_schema_version(st), STORE_SCHEMA_VERSION);
	q.min_games = 1;
	q.min_opponents = 1;
	ASSERT_EQ(store_leaderboard(st, &q, e, &more, &err), 2);
	ASSERT_EQ(e[0].opponents, 1);
	ASSERT_EQ(e[0].games, 2);
	q.min_opponents = 2;
	ASSERT_EQ(store_leaderboard(st, &q, e, &more, &err), 0);
	/* the rated games of a window, for the pair rule at start-up */
	{
		int64_t got[3] = {0};
		ASSERT_EQ(store_rated_pairs_load(st, 2001, pair_seen, got, &err), 2);
		ASSERT_EQ(got[0], 3);
		ASSERT_EQ(got[1], 4);
		ASSERT_EQ(got[2], 3001);
	}
	store_close(st);
	ASSERT_EQ(store_check_file(path, found_cb, &(struct findings){.needle = "damaged"}, &err),
	          0);
}

int
main(void)
{
	char tmpl[] = "/tmp/hokito-store-XXXXXX";

	if (mkdtemp(tmpl) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(dir, sizeof dir, "%s", tmpl);
	RUN(store_create_reload);
	RUN(store_refusals);
	RUN(store_event_places);
	RUN(store_history_paging);
	RUN(store_read_port);
	RUN(store_record);
	RUN(store_corrupt_files);
	RUN(store_replay_refuses);
	RUN(store_migration);
	RUN(store_migration_from_5);
	RUN(store_keep);
	RUN(store_group_commit_timing);
	RUN(store_offloaded);
	RUN(store_accounts);
	RUN(store_accounts_by_key);
	RUN(store_unused_accounts);
	RUN(store_ratings);
	{
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	TEST_END();
}
