/*
 * store-open.c: opening the SQLite store's file: the server's own connection (store_open():
 * access checked with a message that names the cause, created readable by its owner only,
 * locked with flock() for one server per file, identified, configured, migrated, then its
 * statements prepared), a second connection to the same file (store_attach(): for the read
 * port's thread or for hokitod --check, never migrating), and the full check of a file
 * (store_check_file()). It owns the statements' SQL; the struct store it fills is closed by
 * store_close(). It calls store-schema.c and store.c, never the reverse, and never libuv.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store.h"
#include "store-impl.h"
#include "strmap.h"
#include "xmalloc.h"

static const char *const statements[S_COUNT] = {
        [S_BEGIN] = "BEGIN IMMEDIATE",
        [S_COMMIT] = "COMMIT",
        [S_ROLLBACK] = "ROLLBACK",
        [S_GAME_ADD] =
                "INSERT INTO games (id, serial, kind, variant, seed, private, code, status, "
                "created_ms, clock, rated) VALUES (?1, MAX((SELECT COALESCE(MAX(serial), 0) "
                "FROM games), COALESCE((SELECT n FROM counts WHERE name = 'deleted_serial'), "
                "0)) + 1, ?2, ?3, ?4, ?5, ?6, 'open', ?7, ?8, ?9) ON CONFLICT (id) DO NOTHING",
        [S_SEAT] = "UPDATE games SET "
                   "seat0_id = CASE WHEN ?2 = 0 THEN ?3 ELSE seat0_id END, "
                   "seat0_name = CASE WHEN ?2 = 0 THEN ?4 ELSE seat0_name END, "
                   "seat1_id = CASE WHEN ?2 = 1 THEN ?3 ELSE seat1_id END, "
                   "seat1_name = CASE WHEN ?2 = 1 THEN ?4 ELSE seat1_name END, "
                   "seat0_account = CASE WHEN ?2 = 0 THEN NULLIF(?5, 0) ELSE seat0_account END, "
                   "seat1_account = CASE WHEN ?2 = 1 THEN NULLIF(?5, 0) ELSE seat1_account END "
                   "WHERE id = ?1",
        /* a finished game keeps its status: a resent write of an earlier turn must not make it
         * unfinished (its end would then be counted twice, counts_finish) */
        [S_STATUS] = "UPDATE games SET status = ?2 WHERE id = ?1 AND status <> 'finished'",
        [S_EVENT_LAST] = "SELECT (SELECT status <> 'finished' FROM games WHERE id = ?1), "
                         "(SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id = ?1), "
                         "(SELECT COUNT(move) FROM events WHERE game_id = ?1)",
        [S_EVENT_ADD] = "INSERT INTO events (game_id, seq, time_ms, type, ply, move, body) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        [S_EVENT_GET] = "SELECT type, move, body FROM events WHERE game_id = ?1 AND seq = ?2",
        [S_FINISH] = "UPDATE games SET status = 'finished', ended_ms = ?2, result = ?3, "
                     "winner = ?4, reason = ?5, score0 = ?6, score1 = ?7 WHERE id = ?1 AND "
                     "status <> 'finished'",
        [S_GAME_END] = "SELECT status, ended_ms, result, winner, reason, score0, score1, "
                       "unrated FROM games WHERE id = ?1",
        [S_SESSION_SET] = "INSERT OR REPLACE INTO sessions (token, player_id, name, game_id, "
                          "seat, updated_ms, account) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        [S_SESSION_DEL] = "DELETE FROM sessions WHERE token = ?1",
        [S_META_SET] = "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
        [S_META_GET] = "SELECT value FROM meta WHERE key = ?1",
        [S_GAME_GET] = "SELECT " GAME_COLUMNS " FROM games WHERE id = ?1",
        [S_EVENTS_OF] = "SELECT seq, time_ms, type, move, body FROM events WHERE game_id = ?1 "
                        "ORDER BY seq",
        [S_MOVES_OF] = "SELECT seq, move FROM events WHERE game_id = ?1 AND move IS NOT NULL "
                       "ORDER BY seq",
        [S_ACCOUNT_ADD] = "INSERT INTO accounts (id, name, name_key, skeleton, pw_hash, kind, "
                          "created_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (id) "
                          "DO NOTHING",
        [S_ACCOUNT_UPDATE] =
                "UPDATE accounts SET pw_hash = ?2, kind = ?3, closed_ms = NULLIF(?4, 0), "
                "banned_ms = NULLIF(?5, 0) WHERE id = ?1",
        [S_RATING_CHANGE] = "INSERT INTO rating_changes (game, seat, account, before_rating, "
                            "before_rd, before_vol, after_rating, after_rd, after_vol, "
                            "ended_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
                            "ON CONFLICT (game, seat) DO NOTHING",
        /* the row follows the change: counts by the score ?7, the best rating after a game */
        [S_RATING_SET] =
                "INSERT INTO ratings (account, kind, rating, rd, vol, games, wins, draws, "
                "losses, best, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, 1, ?7 = 1.0, ?7 = 0.5, "
                "?7 = 0.0, ?3, ?6) ON CONFLICT (account, kind) DO UPDATE SET rating = ?3, "
                "rd = ?4, vol = ?5, games = games + 1, wins = wins + (?7 = 1.0), "
                "draws = draws + (?7 = 0.5), losses = losses + (?7 = 0.0), "
                "best = MAX(best, ?3), updated_ms = ?6",
        /* a pair's first game makes an opponent of the ratings row (trigger rating_pairs_new) */
        [S_RATING_PAIR] = "INSERT INTO rating_pairs (account, kind, opponent, games) VALUES "
                          "(?1, ?2, ?3, 1) ON CONFLICT (account, kind, opponent) DO UPDATE "
                          "SET games = games + 1",
        [S_UNRATED] = "UPDATE games SET unrated = ?2 WHERE id = ?1 AND (unrated IS NULL OR "
                      "unrated = ?2)",
        [S_CHANGES_OF] = "SELECT seat, account, before_rating, before_rd, before_vol, "
                         "after_rating, after_rd, after_vol FROM rating_changes WHERE game = ?1 "
                         "ORDER BY seat",
        [S_EVENTS_DROP] = "DELETE FROM events WHERE game_id = ?1",
        [S_SESSIONS_DROP] = "DELETE FROM sessions WHERE game_id = ?1",
        [S_DELETED] = "UPDATE counts SET n = CASE name WHEN 'deleted' THEN n + 1 ELSE MAX(n, "
                      "(SELECT serial FROM games WHERE id = ?1)) END WHERE (name = 'deleted' OR "
                      "name = 'deleted_serial') AND EXISTS (SELECT 1 FROM games WHERE id = ?1)",
        [S_GAME_DROP] = "DELETE FROM games WHERE id = ?1",
        [S_SWEEP] = "SELECT id FROM games WHERE status = 'finished' AND seat0_account IS NULL "
                    "AND seat1_account IS NULL AND ended_ms < ?1 AND NOT EXISTS (SELECT 1 FROM "
                    "sessions WHERE sessions.game_id = games.id) ORDER BY ended_ms LIMIT ?2",
/* what makes an account used: a game played, a rating, the operator's or its owner's word (bot,
 * ban, close); the newest account is kept too, so that no id is ever given twice (the next id is
 * the highest plus one). The games go by their seats' account indexes (finished games only:
 * the game layer knows the ones not over). */
#define STORE_ACCOUNT_UNUSED                                                                       \
	"accounts.kind = 'account' AND accounts.closed_ms IS NULL AND accounts.banned_ms IS NULL " \
	"AND accounts.id < (SELECT MAX(id) FROM accounts) AND NOT EXISTS (SELECT 1 FROM games "    \
	"WHERE status = 'finished' AND seat0_account = accounts.id) AND NOT EXISTS (SELECT 1 "     \
	"FROM "                                                                                    \
	"games WHERE status = 'finished' AND seat1_account = accounts.id) AND NOT EXISTS (SELECT " \
	"1 FROM ratings WHERE account = accounts.id) AND NOT EXISTS (SELECT 1 FROM "               \
	"rating_changes "                                                                          \
	"WHERE account = accounts.id)"
        [S_ACCOUNTS_SCAN] = "SELECT id, created_ms, " STORE_ACCOUNT_UNUSED " FROM accounts WHERE "
                            "id > ?1 ORDER BY id LIMIT ?2",
        [S_ACCOUNT_DROP] = "DELETE FROM accounts WHERE id = ?1 AND " STORE_ACCOUNT_UNUSED,
        [S_ACCOUNT_RELEASED] = "INSERT INTO counts (name, n) VALUES ('released_accounts', 1) "
                               "ON CONFLICT (name) DO UPDATE SET n = n + 1",
#undef STORE_ACCOUNT_UNUSED
};

/*
 * Can hokitod read and write the file at path and create files beside it? SQLite would open a
 * file it cannot write read-only and then fail at the first read with "disk I/O error", and fail
 * in a directory it cannot write (where its -wal and -journal files go) with "attempt to write a
 * readonly database": both say nothing of the cause. Returns 0, or STORE_EIO with a message that
 * names it. Reads and changes nothing.
 */
static int
store_access(const char *path, struct store_error *err)
{
	char dir[4096];
	struct stat sb;

	store_dir_of(path, dir, sizeof dir);
	if (stat(dir, &sb) < 0)
		return store_fail(err, STORE_EIO, "%s: cannot use the directory %s (%s)", path, dir,
		                  strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return store_fail(err, STORE_EIO, "%s: %s is not a directory", path, dir);
	if (stat(path, &sb) == 0) {
		if (S_ISDIR(sb.st_mode))
			return store_fail(err, STORE_EIO, "%s: a directory, not a store file",
			                  path);
		if (!S_ISREG(sb.st_mode))
			return store_fail(err, STORE_EIO,
			                  "%s: not a regular file (a device, a pipe or a socket), "
			                  "not a store file",
			                  path);
		if (access(path, R_OK | W_OK) < 0)
			return store_fail(err, STORE_EIO,
			                  "%s: cannot read and write the file (%s); hokitod writes "
			                  "to its store: check its owner and permissions",
			                  path, strerror(errno));
	}
	if (access(dir, W_OK | X_OK) < 0)
		return store_fail(err, STORE_EIO,
		                  "%s: cannot create files in %s (%s); hokitod keeps the store's "
		                  "-wal file beside it: check the directory's owner and "
		                  "permissions",
		                  path, dir, strerror(errno));
	return 0;
}

/* Open, configure, identify, migrate and check; then prepare the statements. */
static int
store_start(struct store *st, const char *path, struct store_error *err)
{
	int64_t app_id, version, tables;
	/*
	 * ":memory:" keeps nothing across restarts, but not in SQLite's in-memory database: that
	 * one holds every page in its page cache and walks the cache at each commit, so a
	 * long-running server grew without bound and slowed with every game played (from 36 k to 25
	 * k moves a second within 12 s of load). A private temporary database (SQLite's "" file
	 * name, deleted when closed) has the page cache of a file, bounded, and spills to the
	 * temporary directory; with nothing to survive a crash it needs no WAL and no sync.
	 */
	int temp = st->temporary = strcmp(path, ":memory:") == 0;
	struct stat sb;
	int rc;

	if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0)
		return store_fail(
		        err, STORE_ECORRUPT,
		        "%s: the file is empty (0 bytes), a truncated store? Move it away to "
		        "start a new one; hokitod will not start without its games",
		        path);
	if (!temp && (rc = store_access(path, err)) < 0)
		return rc;
	/*
	 * A new store is readable by its owner only: it holds the secret session tokens of the
	 * seated players. SQLite gives its -wal and -shm files the mode of the store.
	 */
	if (!temp) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		if (fd >= 0)
			close(fd);
		else if (errno != EEXIST)
			return store_fail(err, STORE_EIO, "%s: cannot create (%s)", path,
			                  strerror(errno));
	}
	/*
	 * Only the loop thread ever touches this connection (the checkpoint thread has its own,
	 * store_bg_open()): no mutex around each call on it (SQLite's multi-thread mode), and no
	 * memory statistics, which take a global mutex for every allocation (a setting of the whole
	 * process, refused once SQLite has started).
	 */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	rc = sqlite3_open_v2(temp ? "" : path, &st->db,
	                     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
	                     NULL);
	if (rc != SQLITE_OK)
		return store_sqlite_fail(st, rc, err, "cannot open");
	sqlite3_extended_result_codes(st->db, 1);
	/*
	 * One server per file. A file store is locked with flock() on a descriptor of our own,
	 * not with SQLite's exclusive locking mode, so that a second connection of this process
	 * can checkpoint the WAL on another thread (store_bg_open()). The descriptor stays open
	 * until SQLite has closed the file: closing any descriptor of a file drops the process's
	 * POSIX locks on it, SQLite's among them.
	 */
	if (temp) {
		rc = store_exec(st, "PRAGMA locking_mode = EXCLUSIVE", "setting the lock", err);
		if (rc < 0)
			return rc;
	} else {
		st->lock_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (st->lock_fd < 0)
			return store_fail(err, STORE_EIO, "%s: cannot open (%s)", path,
			                  strerror(errno));
		if (flock(st->lock_fd, LOCK_EX | LOCK_NB) < 0) {
			if (errno == EWOULDBLOCK)
				return store_fail(err, STORE_ECONFLICT,
				                  "%s: in use by another process (another hokitod "
				                  "on the same store?); one server per store",
				                  path);
			return store_fail(err, STORE_EIO, "%s: cannot lock the file (%s)", path,
			                  strerror(errno));
		}
	}
	if ((rc = store_int(st, "PRAGMA application_id", &app_id, err)) < 0) {
		if ((sqlite3_extended_errcode(st->db) & 0xff) == SQLITE_BUSY)
			return store_fail(err, STORE_EIO,
			                  "%s: in use by another process (another hokitod on the "
			                  "same store?); one server per store",
			                  path);
		if (err != NULL && err->code == STORE_ECORRUPT)
			return store_fail(err, STORE_ECORRUPT,
			                  "%s: not an SQLite database, or a damaged one (%s); "
			                  "hokitod will not start without its games",
			                  path, sqlite3_errmsg(st->db));
		return rc;
	}
	if ((rc = store_int(st, "PRAGMA user_version", &version, err)) < 0)
		return rc;
	if ((rc = store_int(st, "SELECT COUNT(*) FROM sqlite_master", &tables, err)) < 0)
		return rc;
	if (tables > 0 && app_id != STORE_APPLICATION_ID)
		return store_fail(err, STORE_ECORRUPT,
		                  "%s: an SQLite database, but not a hokitod store "
		                  "(application_id %" PRId64 ")",
		                  path, app_id);
	if (version > STORE_SCHEMA_VERSION)
		return store_fail(err, STORE_EVERSION,
		                  "%s: schema version %" PRId64
		                  " is newer than this hokitod's (%d); "
		                  "run a newer hokitod",
		                  path, version, STORE_SCHEMA_VERSION);
	if (tables > 0 && version < 1)
		return store_fail(err, STORE_ECORRUPT,
		                  "%s: a hokitod store without a schema version", path);
	st->version = (int)version;
	if ((rc = store_exec(st,
	                     temp ? "PRAGMA journal_mode = MEMORY" : "PRAGMA journal_mode = WAL",
	                     "setting the journal", err)) < 0)
		return rc;
	if ((rc = store_exec(st,
	                     temp                          ? "PRAGMA synchronous = OFF"
	                     : st->sync == STORE_SYNC_FULL ? "PRAGMA synchronous = FULL"
	                                                   : "PRAGMA synchronous = NORMAL",
	                     "setting the sync level", err)) < 0)
		return rc;
	if ((rc = store_exec(st, "PRAGMA cell_size_check = ON", "setting checks", err)) < 0)
		return rc;
	/*
	 * No quick_check and no content rules here: they read the whole file (about a minute per
	 * million games). What start-up reads, the unfinished games, is checked as it is replayed
	 * (store_load()); the whole file is checked by store_check_file() (hokitod --check).
	 */
	if ((rc = store_migrate(st, err)) < 0)
		return rc;
	for (int i = 0; i < S_COUNT; i++) {
		rc = sqlite3_prepare_v3(st->db, statements[i], -1, SQLITE_PREPARE_PERSISTENT,
		                        &st->stmt[i], NULL);
		if (rc != SQLITE_OK)
			return store_sqlite_fail(st, rc, err, "preparing statements");
	}
	return 0;
}

int
store_open(const char *path, enum store_sync sync, struct store **out, struct store_error *err)
{
	struct store *st = xcalloc(1, sizeof *st);
	int rc;

	*out = NULL;
	st->path = xstrdup(path);
	st->sync = sync;
	st->lock_fd = -1;
	strmap_init(&st->live, 0); /* the keys are our own game ids: no secret seed needed */
	if ((rc = store_start(st, path, err)) < 0) {
		for (int i = 0; i < S_COUNT; i++)
			sqlite3_finalize(st->stmt[i]);
		sqlite3_close(st->db);
		if (st->lock_fd >= 0)
			close(st->lock_fd);
		free(st->path);
		free(st);
		return rc;
	}
	*out = st;
	return 0;
}

/*
 * A second connection to the file store at path, which must exist: no lock of ours, no
 * creation, no migration. Checks that it is a hokitod store of a schema this program knows (for
 * a reader, exactly this one). Fills a new store to close with store_close().
 */
int
store_attach(const char *path, int flags, int exact, struct store **out, struct store_error *err)
{
	struct store *st = xcalloc(1, sizeof *st);
	int64_t app_id, version;
	int rc;

	*out = NULL;
	st->path = xstrdup(path);
	st->lock_fd = -1;
	strmap_init(&st->live, 0);
	st->attached = 1;
	rc = sqlite3_open_v2(path, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		rc = store_sqlite_fail(st, rc, err, "cannot open");
	else
		sqlite3_extended_result_codes(st->db, 1);
	if (rc == 0 && (rc = store_int(st, "PRAGMA application_id", &app_id, err)) < 0 &&
	    err != NULL && err->code == STORE_ECORRUPT)
		rc = store_fail(err, STORE_ECORRUPT,
		                "%s: not an SQLite database, or a damaged one (%s)", path,
		                sqlite3_errmsg(st->db));
	if (rc == 0 && (rc = store_int(st, "PRAGMA user_version", &version, err)) == 0) {
		if (app_id != STORE_APPLICATION_ID)
			rc = store_fail(err, STORE_ECORRUPT,
			                "%s: not a hokitod store (application_id %" PRId64 ")",
			                path, app_id);
		else if (version > STORE_SCHEMA_VERSION ||
		         (exact && version != STORE_SCHEMA_VERSION))
			rc = store_fail(err, STORE_EVERSION,
			                "%s: schema version %" PRId64 ", this hokitod's is %d",
			                path, version, STORE_SCHEMA_VERSION);
		st->version = (int)version;
	}
	if (rc == 0 && exact) {
		for (int i = 0; i < S_COUNT && rc == 0; i++)
			if (sqlite3_prepare_v3(st->db, statements[i], -1, SQLITE_PREPARE_PERSISTENT,
			                       &st->stmt[i], NULL) != SQLITE_OK)
				rc = store_sqlite_fail(st, sqlite3_errcode(st->db), err,
				                       "preparing statements");
	}
	if (rc < 0) {
		store_close(st);
		return rc;
	}
	*out = st;
	return 0;
}

int
store_check_file(const char *path, void (*found)(void *ctx, const char *text), void *ctx,
                 struct store_error *err)
{
	struct store *st;
	struct stat sb;
	int rc;

	if (stat(path, &sb) < 0)
		return store_fail(err, STORE_EIO, "%s: %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return store_fail(err, STORE_EIO, "%s: not a regular file", path);
	if (sb.st_size == 0)
		return store_fail(err, STORE_ECORRUPT, "%s: the file is empty (0 bytes)", path);
	if ((rc = store_attach(path, SQLITE_OPEN_READONLY, 0, &st, err)) < 0)
		return rc;
	rc = store_check(st, found, ctx, err);
	store_close(st);
	return rc;
}
