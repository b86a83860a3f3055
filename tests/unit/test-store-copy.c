/*
 * test-store-copy.c: the SQLite backend's ops for a copy of a whole store
 * (server/store/sqlite/store-copy.c), through the registry and the ports as hokitod migrate uses
 * them, on real files in a temporary directory: every game by serial, whatever its status, put
 * into another store with its row and events as they were (seats' accounts, the unknown one
 * too; the unrated word; a gap in the serials counted as deleted), the same put again taken,
 * another refused; rating changes, pairs and ratings rows as stored; and a store opened without
 * the writer's lock, which reads the moment of its open and writes nothing.
 */
#include <unistd.h>

#include "store-db.h"
#include "store-game.h"
#include "test.h"

static char dir[64]; /* the temporary directory of this run */

/* A fresh store file name. */
static const char *
fresh(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s.db", dir, name);
	unlink(buf);
	return buf;
}

struct side {
	struct store_db *db;
	struct store_write_port w;
	struct store_read_port r;
};

/* Open path (writer: with the lock) and both ports: 0 or the store error. */
static int
side_open(struct side *s, const char *path, int writer)
{
	struct store_db_options o = {STORE_FSYNC_NORMAL, !writer, writer};
	struct store_error err;
	int rc = store_db_open(path, &o, &s->db, &err);

	if (rc < 0) {
		printf("# %s\n", err.text);
		return rc;
	}
	store_db_write_port(s->db, &s->w);
	return store_db_reader_open(s->db, &s->r, &err);
}

static void
side_close(struct side *s)
{
	s->r.close(s->r.impl);
	store_db_close(s->db);
}

static int
commit(struct side *s)
{
	uint64_t ticket;
	struct store_error err;
	int rc = s->w.commit(s->w.impl, &ticket, &err);

	if (rc < 0)
		printf("# commit: %s\n", err.text);
	return rc;
}

/* An event of type (a move when move is not NULL). */
static struct store_event
event(int64_t seq, const char *type, const char *move, const char *body)
{
	return (struct store_event){
	        .seq = seq, .time_ms = 1000 + seq, .type = type, .move = move, .body = body};
}

/* Game id through the usual writes: two seats (accounts a0, a1: 0 a guest), three events. */
static int
played(struct side *s, const char *id, int64_t a0, int64_t a1)
{
	struct store_game g = {.kind = GAME_HOKITO, .seed = 7, .created_ms = 500, .rated = 1};
	struct store_event ev[3] = {event(1, "started", NULL, "{\"type\":\"started\"}"),
	                            event(2, "moved", "a1-b1", "{\"x\":\"caf\xc3\xa9\"}"),
	                            event(3, "moved", "a4-a2", "{\"type\":\"moved\"}")};
	int rc;

	snprintf(g.id, sizeof g.id, "%s", id);
	snprintf(g.variant, sizeof g.variant, "standard");
	if ((rc = s->w.game_add(s->w.impl, &g, NULL)) < 0 ||
	    (rc = s->w.seat_set(s->w.impl, id, 0, "p1", "ann", a0, NULL)) < 0 ||
	    (rc = s->w.seat_set(s->w.impl, id, 1, "p2", "ben", a1, NULL)) < 0)
		return rc;
	for (int i = 0; i < 3; i++)
		if ((rc = s->w.event_add(s->w.impl, id, &ev[i], NULL)) < 0)
			return rc;
	return s->w.status_set(s->w.impl, id, "live", NULL);
}

/* Copy every game of a (its read port) into b (its write port), as hokitod migrate does. */
static int
copy_games(struct side *a, struct side *b, int64_t *games)
{
	struct store_game page[2];
	struct store_error err;
	int64_t after = 0;
	int n, rc = 0;

	*games = 0;
	while (rc == 0 && (n = a->r.games_page(a->r.impl, after, 2, page, NULL, &err)) > 0) {
		for (int i = 0; i < n && rc == 0; i++) {
			struct store_event *ev;
			size_t nev;

			if ((rc = a->r.events(a->r.impl, page[i].id, NULL, &ev, &nev, &err)) < 0)
				break;
			rc = b->w.game_put(b->w.impl, &page[i], ev, nev, &err);
			store_events_free(ev, nev);
			after = page[i].serial;
			++*games;
		}
	}
	if (rc < 0)
		printf("# copy: %s\n", err.text);
	return rc < 0 ? rc : commit(b);
}

static void
count_found(void *ctx, const char *text)
{
	printf("# found: %s\n", text);
	++*(int *)ctx;
}

TEST(copy_games_as_stored)
{
	char p1[128], p2[128];
	struct side a, b;
	struct store_game ga[8], gb[8], g;
	struct store_event *ea, *eb;
	struct store_event ev[1] = {event(1, "seated", NULL, "{}")};
	struct store_error err;
	size_t na, nb;
	int64_t games, total = -1;
	int n, findings = 0, score[2] = {30, 40};

	ASSERT_EQ(side_open(&a, fresh("copy-a", p1, sizeof p1), 1), 0);
	ASSERT_EQ(played(&a, "g1", 3, 0), 0);
	ASSERT_EQ(a.w.game_finish(a.w.impl, "g1", 9000, "win", 1, "resign", score, NULL), 0);
	ASSERT_EQ(a.w.game_unrated(a.w.impl, "g1", "short", NULL), 0);
	ASSERT_EQ(played(&a, "g2", 0, 0), 0);
	ASSERT_EQ(a.w.game_drop(a.w.impl, "g2", NULL), 0); /* a gap in the serials */
	ASSERT_EQ(played(&a, "g3", 0, 5), 0);              /* not over */
	/* a game of an older schema: a seat's account unknown (0), put as a copy would */
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
	snprintf(g.clock, sizeof g.clock, "5+3");
	ASSERT_EQ(a.w.game_put(a.w.impl, &g, ev, 1, &err), 0);
	ASSERT_EQ(commit(&a), 0);
	ASSERT_EQ(a.r.games_page(a.r.impl, 0, 8, ga, &total, &err), 3);
	ASSERT_EQ(total, 3);
	ASSERT_STR_EQ(ga[1].id, "g3");
	ASSERT_EQ(ga[2].seat_account[0], 0);

	ASSERT_EQ(side_open(&b, fresh("copy-b", p2, sizeof p2), 1), 0);
	ASSERT_EQ(copy_games(&a, &b, &games), 0);
	ASSERT_EQ(games, 3);
	ASSERT_EQ(b.r.games_page(b.r.impl, 0, 8, gb, NULL, &err), 3);
	for (int i = 0; i < 3; i++) {
		const char *diff = store_game_diff(&ga[i], &gb[i]);

		ASSERT_STR_EQ(diff ? diff : "", "");
		ASSERT_EQ(a.r.events(a.r.impl, ga[i].id, NULL, &ea, &na, &err), 0);
		ASSERT_EQ(b.r.events(b.r.impl, gb[i].id, NULL, &eb, &nb, &err), 0);
		ASSERT_EQ(na, nb);
		for (size_t k = 0; k < na; k++)
			ASSERT(store_event_diff(&ea[k], &eb[k]) == NULL);
		store_events_free(ea, na);
		store_events_free(eb, nb);
	}
	ASSERT_STR_EQ(gb[0].unrated, "short");
	ASSERT_EQ(gb[1].serial, 3); /* kept, the deleted one's number counted */
	ASSERT_EQ(gb[2].seat_account[0], 0);
	ASSERT_EQ(gb[2].seat_account[1], -1);

	/* the same again: taken; the same id with another row: refused */
	ASSERT_EQ(a.r.events(a.r.impl, "g3", NULL, &ea, &na, &err), 0);
	ASSERT_EQ(b.w.game_put(b.w.impl, &ga[1], ea, na, &err), 0);
	g = ga[1];
	snprintf(g.status, sizeof g.status, "adjourned");
	ASSERT_EQ(b.w.game_put(b.w.impl, &g, ea, na, &err), STORE_ECORRUPT);
	ASSERT(strstr(err.text, "status") != NULL);
	b.w.rollback(b.w.impl);
	/* ... a new game out of serial order: refused */
	snprintf(g.id, sizeof g.id, "g9");
	g.serial = 2;
	ASSERT_EQ(b.w.game_put(b.w.impl, &g, ea, na, &err), STORE_EINVAL);
	b.w.rollback(b.w.impl);
	store_events_free(ea, na);
	/* a new game goes on after the highest number given, as on the source */
	g = ga[1];
	snprintf(g.id, sizeof g.id, "g5");
	ASSERT_EQ(b.w.game_add(b.w.impl, &g, &err), 0);
	ASSERT_EQ(commit(&b), 0);
	n = b.r.games_page(b.r.impl, 4, 8, gb, NULL, &err);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(gb[0].serial, 5);
	side_close(&a);
	side_close(&b);
	ASSERT_EQ(store_db_check(p2, count_found, &findings, &err), 0);
	ASSERT_EQ(findings, 0);
}

static int
pair_cb(void *ctx, const struct store_rating_pair *p)
{
	struct store_rating_pair *out = ctx;

	out[p->account == 3 ? 0 : 1] = *p;
	return 0;
}

static int
rating_cb(void *ctx, const struct store_rating *r)
{
	struct store_rating *out = ctx;

	out[r->account == 3 ? 0 : 1] = *r;
	return 0;
}

TEST(copy_ratings_as_stored)
{
	char p1[128], p2[128];
	struct side a, b;
	struct store_rating_change ch[2], back[2];
	struct store_rating_pair pairs[2] = {0};
	struct store_rating rows[2] = {0}, want;
	struct store_error err;
	int score[2] = {30, 40};

	ASSERT_EQ(side_open(&a, fresh("rate-a", p1, sizeof p1), 1), 0);
	ASSERT_EQ(played(&a, "g1", 3, 5), 0);
	ASSERT_EQ(a.w.game_finish(a.w.impl, "g1", 9000, "win", 1, "resign", score, NULL), 0);
	for (int s = 0; s < 2; s++) {
		ch[s] = (struct store_rating_change){.seat = s,
		                                     .account = s ? 5 : 3,
		                                     .kind = GAME_HOKITO,
		                                     .before = {1500, 350, 0.06},
		                                     .after = {s ? 1662.3 : 1337.7, 290, 0.059999},
		                                     .score = s,
		                                     .opponent = s ? 3 : 5};
		ASSERT_EQ(a.w.rating_change(a.w.impl, "g1", &ch[s], 9000, &err), 0);
	}
	ASSERT_EQ(commit(&a), 0);
	ASSERT_EQ(a.r.rating_changes(a.r.impl, "g1", back, &err), 2);
	ASSERT_EQ(back[1].ended_ms, 9000);
	ASSERT_EQ(back[0].opponent, 5);
	ASSERT(back[1].score == 1.0 && back[0].score == 0.0);
	ASSERT(back[1].after[0] == 1662.3 && back[0].kind == GAME_HOKITO);
	ASSERT_EQ(a.r.rating_changes(a.r.impl, "g0", back, &err), 0);
	ASSERT_EQ(a.r.rating_pairs(a.r.impl, pair_cb, pairs, &err), 2);
	ASSERT_EQ(pairs[0].opponent, 5);
	ASSERT_EQ(pairs[0].games, 1);
	ASSERT_EQ(a.w.ratings_load(a.w.impl, rating_cb, rows, &err), 2);
	ASSERT_EQ(rows[0].opponents, 1);
	ASSERT_EQ(rows[1].wins, 1);

	/* into b as stored: the changes, then the pairs, then the rows */
	ASSERT_EQ(side_open(&b, fresh("rate-b", p2, sizeof p2), 1), 0);
	ASSERT_EQ(played(&b, "g1", 3, 5), 0);
	ASSERT_EQ(commit(&b), 0);
	for (int s = 0; s < 2; s++)
		ASSERT_EQ(b.w.rating_change_put(b.w.impl, "g1", &back[s], &err), 0);
	ASSERT_EQ(b.w.rating_change_put(b.w.impl, "g1", &back[1], &err), 0); /* again: taken */
	back[1].after[1] = 1;
	ASSERT_EQ(b.w.rating_change_put(b.w.impl, "g1", &back[1], &err), STORE_ECORRUPT);
	b.w.rollback(b.w.impl); /* after a failed write */
	ASSERT_EQ(b.r.rating_changes(b.r.impl, "g1", back, &err), 0);
	ASSERT_EQ(a.r.rating_changes(a.r.impl, "g1", back, &err), 2);
	for (int s = 0; s < 2; s++) {
		ASSERT_EQ(b.w.rating_change_put(b.w.impl, "g1", &back[s], &err), 0);
		ASSERT_EQ(b.w.rating_pair_put(b.w.impl, &pairs[s], &err), 0);
	}
	want = rows[0];
	want.best = 1501.25; /* a value no change gives: the row goes as it is */
	ASSERT_EQ(b.w.rating_put(b.w.impl, &want, &err), 0);
	ASSERT_EQ(b.w.rating_put(b.w.impl, &rows[1], &err), 0);
	ASSERT_EQ(commit(&b), 0);
	memset(rows, 0, sizeof rows);
	ASSERT_EQ(b.w.ratings_load(b.w.impl, rating_cb, rows, &err), 2);
	ASSERT(rows[0].best == 1501.25 && rows[0].rating == want.rating);
	ASSERT_EQ(rows[0].opponents, 1); /* as put, whatever the pairs counted */
	ASSERT_EQ(rows[1].games, 1);
	ASSERT_EQ(b.r.rating_changes(b.r.impl, "g1", ch, &err), 2);
	ASSERT(ch[1].after[1] == back[1].after[1] && ch[0].ended_ms == 9000);
	memset(pairs, 0, sizeof pairs);
	ASSERT_EQ(b.r.rating_pairs(b.r.impl, pair_cb, pairs, &err), 2);
	ASSERT_EQ(pairs[1].opponent, 3);
	pairs[0].games = 2;
	ASSERT_EQ(b.w.rating_pair_put(b.w.impl, &pairs[0], &err), STORE_ECORRUPT);
	b.w.rollback(b.w.impl);
	side_close(&a);
	side_close(&b);
}

TEST(reader_reads_one_moment)
{
	char p[128];
	struct side w, r, later;
	struct store_game page[4];
	struct store_error err;
	uint64_t ticket;
	int64_t total;

	ASSERT_EQ(side_open(&w, fresh("moment", p, sizeof p), 1), 0);
	ASSERT_EQ(played(&w, "g1", 0, 0), 0);
	ASSERT_EQ(commit(&w), 0);
	ASSERT_EQ(side_open(&r, p, 0), 0); /* beside the writer: no lock */
	ASSERT_EQ(played(&w, "g2", 0, 0), 0);
	ASSERT_EQ(commit(&w), 0);
	ASSERT_EQ(r.r.games_page(r.r.impl, 0, 4, page, &total, &err), 1);
	ASSERT_EQ(total, 1);
	ASSERT_EQ(side_open(&later, p, 0), 0);
	ASSERT_EQ(later.r.games_page(later.r.impl, 0, 4, page, &total, &err), 2);
	side_close(&later);
	ASSERT_EQ(r.w.commit(r.w.impl, &ticket, &err), STORE_ECONFLICT);
	side_close(&r);
	side_close(&w);
	{
		struct store_db_options o = {STORE_FSYNC_NORMAL, 0, 0};
		struct store_db *db;

		ASSERT_EQ(store_db_open(fresh("none", p, sizeof p), &o, &db, &err),
		          STORE_ENOTFOUND);
		ASSERT(access(p, F_OK) < 0); /* nothing made */
	}
}

int
main(void)
{
	char tmpl[] = "/tmp/hokito-store-copy-XXXXXX";

	if (mkdtemp(tmpl) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(dir, sizeof dir, "%s", tmpl);
	RUN(copy_games_as_stored);
	RUN(copy_ratings_as_stored);
	RUN(reader_reads_one_moment);
	{
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	TEST_END();
}
