/*
 * test-store.c: what the SQLite backend of hokitod's store (server/store/sqlite/) does that is
 * its own, through its own API (store.h), on real files in a temporary directory: a temporary
 * store and its own read port; damaged, truncated, foreign and inconsistent files, refused at
 * open or found by the full check; stored moves the rules refuse; the migrations from older
 * schemas; the time a group commit takes (printed as TAP comments); the disk waits handed to
 * another thread, and the WAL; the operators' account queries by key. What every backend does,
 * SQLite's included, is the contract's: test-store-contract.c.
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record.h"
#include "rng.h"
#include "store-games.h"
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

static int
session_cb(void *ctx, const struct store_session *s)
{
	int *n = ctx;

	(*n)++;
	return strcmp(s->name, "alice") == 0 && s->seat == 0 ? 0 : 1;
}

/*
 * A temporary store (":memory:") has no second connection: its read port is its own, on the
 * loop's thread (loop_only), and sees what is queued as well as what is committed; the record
 * it answers is store_record_write()'s. No reader opens on it, nor on a file that is not there.
 */
TEST(store_temporary)
{
	char text[RECORD_TEXT_MAX], again[RECORD_TEXT_MAX];
	struct store_history_query q = {.limit = 3};
	struct store_history_page pg;
	struct store_read_port own, rd;
	struct store_write_port wp;
	struct store_game page[3];
	struct store_error err;
	struct store *st;
	struct rng rng;
	struct game g;
	int64_t seq = 3;

	rng_init(&rng, 4);
	ASSERT_EQ(store_open(":memory:", STORE_SYNC_NORMAL, &st, &err), 0);
	store_write_port_init(st, &wp);
	ASSERT_EQ(store_is_temporary(st), 1);
	ASSERT_EQ(add_game(&wp, "g1", GAME_OXONO, 1, 1000), 0);
	game_start(&g, GAME_OXONO, NULL, 1, NULL);
	ASSERT_EQ(play(&wp, "g1", &g, &seq, 100, &rng), 0);
	ASSERT_EQ(finish(&wp, "g1", &g, &seq, 5000), 0);
	store_read_port_init(st, &own);
	ASSERT_EQ(own.loop_only, 1);
	ASSERT_EQ(own.history(own.impl, &q, page, &pg, &err), 1); /* queued, not committed */
	ASSERT_STR_EQ(page[0].id, "g1");
	ASSERT_EQ(pg.total, 1);
	ASSERT_EQ(store_commit(st, &err), 0);
	ASSERT(own.record(own.impl, "g1", NULL, text, sizeof text, &err) > 0);
	ASSERT(store_record_write(st, "g1", again, sizeof again, &err) > 0);
	ASSERT_STR_EQ(text, again);
	own.close(own.impl);
	ASSERT_EQ(store_reader_open(":memory:", &rd, &err), STORE_EINVAL);
	ASSERT(store_reader_open(fresh("nothere"), &rd, &err) < 0);
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
	struct store_write_port wp;
	struct store *st;
	struct rng rng;
	struct stat sb;

	rng_init(&rng, 6);
	if (store_open(fresh(name), STORE_SYNC_NORMAL, &st, NULL) < 0)
		return -1;
	store_write_port_init(st, &wp);
	for (int i = 0; i < games; i++) {
		char id[16];
		struct game g;
		int64_t seq = 3;
		snprintf(id, sizeof id, "g%d", i + 1);
		add_game(&wp, id, (enum game_kind)(i % 2), (uint64_t)i, 1000 + i);
		game_start(&g, (enum game_kind)(i % 2), NULL, (uint64_t)i, NULL);
		play(&wp, id, &g, &seq, i % 3 == 0 ? 5 : 100, &rng);
		if (game_over(&g))
			finish(&wp, id, &g, &seq, 90000 + i);
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
 * Damaged files: what opening sees (not SQLite, not ours, empty) is refused at open with a clear
 * message; damage inside the file is found by the full check, which opening no longer runs (it
 * read the whole store: about a minute a million games).
 */
TEST(store_corrupt_files)
{
	long size;
	int fd;

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
	/* an account's kept count of finished games off */
	sample_store("account-count", 6);
	ASSERT_EQ(raw_sql(path, "INSERT INTO counts (name, n) VALUES ('a7', 3)"), 0);
	ASSERT(check_finds(STORE_ECORRUPT, "the count of an account's finished games is wrong"));
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
	struct store_write_port wp;
	struct store_read_port rp;
	struct store_error err;
	struct store *st;
	struct rng rng;
	int64_t total;

	rng_init(&rng, 5);
	ASSERT_EQ(store_open(fresh("schema5"), STORE_SYNC_NORMAL, &st, &err), 0);
	store_write_port_init(st, &wp);
	for (int i = 0; i < 12; i++) {
		char id[16];
		struct game g;
		int64_t seq = 3;
		snprintf(id, sizeof id, "g%d", i + 1);
		ASSERT_EQ(add_game(&wp, id, (enum game_kind)(i % 2), (uint64_t)i, 1000 + i), 0);
		game_start(&g, (enum game_kind)(i % 2), NULL, (uint64_t)i, NULL);
		ASSERT_EQ(play(&wp, id, &g, &seq, 100, &rng), 0);
		ASSERT_EQ(finish(&wp, id, &g, &seq, 50000 + i), 0);
	}
	ASSERT_EQ(add_game(&wp, "g13", GAME_OXONO, 1, 2000), 0); /* live: not history */
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
		struct store_write_port wp;
		struct store *st;
		int games = 0;
		ASSERT_EQ(store_open(fresh(sync ? "timing-full" : "timing-normal"),
		                     (enum store_sync)sync, &st, &err),
		          0);
		store_write_port_init(st, &wp);
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
					ASSERT_EQ(add_game(&wp, id[i], GAME_HOKITO, (uint64_t)games,
					                   1),
					          0);
					game_start(&g[i], GAME_HOKITO, NULL, (uint64_t)games, NULL);
					seq[i] = 3;
				}
				ASSERT_EQ(store_commit(st, &err), 0);
				t0 = now_ms();
				for (int done = 0, i = 0; done < n; i = (i + 1) % ng, done++) {
					ASSERT(!game_over(&g[i]));
					ASSERT_EQ(play(&wp, id[i], &g[i], &seq[i], 1, &rng), 0);
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
 * commit starts it over; the sync works; nothing is lost at reopen, and a clean close leaves no
 * -wal or -shm file.
 */
TEST(store_offloaded)
{
	struct store_error err;
	struct store_write_port wp;
	struct store *st, *temp;
	struct store_bg *bg, *bg2;
	struct loaded l = {0};
	struct game g;
	struct rng rng;
	int64_t seq = 3;
	char wal[160], shm[160];
	size_t grown;

	rng_init(&rng, 5);
	ASSERT_EQ(store_open(fresh("offloaded"), STORE_SYNC_FULL, &st, &err), 0);
	store_write_port_init(st, &wp);
	ASSERT_EQ(store_sync_level(st), STORE_SYNC_FULL);
	ASSERT_EQ(store_bg_open(st, &bg, &err), 0);
	ASSERT_EQ(store_bg_open(st, &bg2, &err), STORE_EINVAL); /* once */
	ASSERT(bg2 == NULL);
	snprintf(wal, sizeof wal, "%s-wal", path);
	snprintf(shm, sizeof shm, "%s-shm", path);
	ASSERT(exists(wal) && exists(shm));
	/* a temporary store has nothing to offload */
	ASSERT_EQ(store_open(":memory:", STORE_SYNC_NORMAL, &temp, &err), 0);
	ASSERT_EQ(store_bg_open(temp, &bg2, &err), STORE_EINVAL);
	store_close(temp);

	ASSERT_EQ(add_game(&wp, "g1", GAME_HOKITO, 3, 1000), 0);
	game_start(&g, GAME_HOKITO, NULL, 3, NULL);
	for (int i = 0; i < 40; i++) {
		if (i < 10) /* moves, and the game goes on */
			ASSERT_EQ(play(&wp, "g1", &g, &seq, 1, &rng), 0);
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

/*
 * Schema 10 counts each account's distinct opponents (rating_pairs, ratings.opponents): a store
 * of schema 9, made here from one of today by undoing migration 10, is migrated with the counts
 * of the rated games it holds, which the leaderboard's --board-min-opponents then asks.
 */
TEST(store_migration_10)
{
	struct store_board_query q = {.kind = GAME_HOKITO, .limit = 4, .min_games = 1};
	struct findings f = {.needle = "damaged"};
	struct store_board_entry e[4];
	struct store_write_port wp;
	struct store_error err;
	struct store *st;
	int more;

	ASSERT_EQ(store_open(fresh("schema9"), STORE_SYNC_NORMAL, &st, &err), 0);
	store_write_port_init(st, &wp);
	for (int i = 1; i <= 2; i++) {
		struct store_account a = {.id = i, .created_ms = 1};
		snprintf(a.name, sizeof a.name, "acc%d", i);
		snprintf(a.key, sizeof a.key, "acc%d", i);
		snprintf(a.skeleton, sizeof a.skeleton, "acc%d", i);
		snprintf(a.hash, sizeof a.hash, "h");
		snprintf(a.kind, sizeof a.kind, "account");
		ASSERT_EQ(store_account_add(st, &a, &err), 0);
	}
	/* two draws of the same pair at settled ratings */
	for (int k = 0; k < 2; k++) {
		const char *id = k == 0 ? "g1" : "g2";
		int64_t seq = 3;
		ASSERT_EQ(add_game(&wp, id, GAME_HOKITO, 5, 1000 + k), 0);
		ASSERT_EQ(finish_as(&wp, id, &seq, 2000 + k, "draw"), 0);
		for (int s = 0; s < 2; s++) {
			struct store_rating_change c = {.seat = s,
			                                .account = 1 + s,
			                                .kind = GAME_HOKITO,
			                                .before = {1700, 60 - k, 0.06},
			                                .after = {1700, 59 - k, 0.06},
			                                .score = 0.5,
			                                .opponent = 2 - s};
			ASSERT_EQ(store_rating_change(st, id, &c, 2000 + k, &err), 0);
		}
	}
	ASSERT_EQ(store_commit(st, &err), 0);
	store_close(st);
	ASSERT_EQ(raw_sql(path,
	                  "DROP TABLE rating_pairs; DROP INDEX rating_changes_ended; DROP INDEX "
	                  "ratings_by_rating;"
	                  "ALTER TABLE games DROP COLUMN unrated;"
	                  "ALTER TABLE ratings DROP COLUMN opponents; PRAGMA user_version = 9;"),
	          0);
	ASSERT_EQ(store_open(path, STORE_SYNC_NORMAL, &st, &err), 0);
	ASSERT_EQ(store_schema_version(st), STORE_SCHEMA_VERSION);
	q.min_opponents = 1;
	ASSERT_EQ(store_leaderboard(st, &q, e, &more, &err), 2);
	ASSERT_EQ(e[0].opponents, 1);
	ASSERT_EQ(e[0].games, 2);
	q.min_opponents = 2;
	ASSERT_EQ(store_leaderboard(st, &q, e, &more, &err), 0);
	store_close(st);
	ASSERT_EQ(store_check_file(path, found_cb, &f, &err), 0);
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
	RUN(store_temporary);
	RUN(store_corrupt_files);
	RUN(store_replay_refuses);
	RUN(store_migration);
	RUN(store_migration_from_5);
	RUN(store_migration_10);
	RUN(store_group_commit_timing);
	RUN(store_offloaded);
	RUN(store_accounts_by_key);
	{
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	TEST_END();
}
