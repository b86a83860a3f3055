/*
 * store.c: hokitod's durable store on SQLite: the write side (games, game events, seated
 * sessions; group commit, the offloaded disk waits), closing, loading with replay through the
 * rules (store-game.h), the deletion of games that never started and of old games without an
 * account (--keep-days), and the helpers that the other pieces share. The other pieces of the
 * SQLite backend (see store-impl.h) call this file and never the reverse: store-accounts.c
 * (accounts, ratings), store-schema.c (migrations, the full check), store-open.c (opening and
 * attaching a file), store-history.c (history, records, the leaderboard; the read port),
 * store-loop.c (the loop side: start, commit, stop), store-backend.c (the write port and what
 * the registry calls).
 *
 * A struct store is one SQLite connection: the server's own (store_open()), or a second one to the
 * same file (store_attach()) for the read port's thread (store_reader_open(), read-only, seeing
 * what is committed) or for hokitod --check. The server's connection owns its prepared statements
 * (prepared once at open and reused for every write), and a map of where each unfinished game's
 * events stand (its last seq and ply, so that adding an event needs no query; see
 * store_event_add()). It is called synchronously from the event loop and must never block it for
 * long: writes only queue rows in the open transaction (events are even checked and queued in
 * memory, store_settle()), and the one disk wait per loop turn is store_commit(), unless the waits
 * were handed to another thread (store_bg_open(): a second connection and the WAL's descriptor,
 * which only that thread uses; the loop then waits only for a catch-up checkpoint,
 * store_checkpoint()). It never calls libuv, never reads the clock (times come from the caller) and
 * never decides a rule: moves are checked by replaying them through game.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "glicko.h"
#include "record.h"
#include "store.h"
#include "store-game.h"
#include "store-impl.h"
#include "store-record.h"
#include "strmap.h"
#include "xmalloc.h"

/* The other thread's side of an offloaded store (store_bg_open()). */
struct store_bg {
	sqlite3 *db; /* a second connection to the file, for checkpoints only */
	int wal_fd;  /* the WAL, for fdatasync */
	char *path;  /* for messages */
};

static void store_queue_drop(struct store *st);
static void store_settle(struct store *st);

/*
 * The store error for an SQLite result code: corruption or I/O. If SQLite gave the open
 * transaction up (it does for some errors), where the games stand is read from the file again.
 */
int
store_sqlite_fail(struct store *st, int rc, struct store_error *err, const char *what)
{
	int primary = rc & 0xff;

	if (st->db != NULL && sqlite3_get_autocommit(st->db))
		store_live_clear(st);
	if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB)
		return store_fail(err, STORE_ECORRUPT, "%s: %s: the file is damaged (%s)", st->path,
		                  what, sqlite3_errstr(rc));
	/* "disk I/O error" alone does not say that the disk is full: the system's error does */
	if ((primary == SQLITE_IOERR || primary == SQLITE_FULL) && st->db != NULL &&
	    sqlite3_system_errno(st->db) != 0) {
		int sys = sqlite3_system_errno(st->db);

		return store_fail(err, sys == ENOSPC || sys == EDQUOT ? STORE_EFULL : STORE_EIO,
		                  "%s: %s: %s (%s)", st->path, what, sqlite3_errmsg(st->db),
		                  strerror(sys));
	}
	return store_fail(err, primary == SQLITE_FULL ? STORE_EFULL : STORE_EIO, "%s: %s: %s",
	                  st->path, what, st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
}

/* Run SQL without results. */
int
store_exec(struct store *st, const char *sql, const char *what, struct store_error *err)
{
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : store_sqlite_fail(st, rc, err, what);
}

/* Run a query whose answer is one integer. */
int
store_int(struct store *st, const char *sql, int64_t *out, struct store_error *err)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);

	if (rc != SQLITE_OK)
		return store_sqlite_fail(st, rc, err, sql);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW)
		return store_sqlite_fail(st, rc, err, sql);
	return 0;
}

/* The directory of the file at path ("." for a bare name), into dir. */
void
store_dir_of(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		snprintf(dir, size, ".");
	else if (slash == path)
		snprintf(dir, size, "/");
	else
		snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

/* Forget where every game stands: the transaction was rolled back, the file is the truth again. */
void
store_live_clear(struct store *st)
{
	store_queue_drop(st);
	for (size_t i = 0; i < st->live.cap; i++)
		if (st->live.slots[i].key != NULL)
			free(st->live.slots[i].value);
	strmap_close(&st->live);
}

void
store_close(struct store *st)
{
	if (st == NULL)
		return;
	if (st->loop_free != NULL) /* the loop side, if it was started (store-loop.c) */
		st->loop_free(st);
	if (st->db != NULL && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	if (st->copy_free != NULL) /* a copy's statements, if one was made (store-copy.c) */
		st->copy_free(st);
	if (!st->attached) /* a reader or checker leaves the WAL to the server */
		sqlite3_exec(st->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	sqlite3_close(st->db);
	if (st->lock_fd >= 0)
		close(st->lock_fd); /* after SQLite let go of the file: see store_start() */
	store_live_clear(st);
	free(st->queued);
	free(st->path);
	free(st);
}

const char *
store_path(const struct store *st)
{
	return st->path;
}

int
store_schema_version(const struct store *st)
{
	return st->version;
}

int
store_is_temporary(const struct store *st)
{
	return st->temporary;
}

size_t
store_pending(const struct store *st)
{
	return st->pending;
}

/*
 * The WAL hook of an offloaded store: SQLite calls it after each commit with the frames now in
 * the WAL. Setting it also turns SQLite's own checkpoint at each commit off: the other thread
 * checkpoints (store_bg_checkpoint()), and the loop only when that one falls behind.
 */
static int
store_wal_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
	struct store *st = arg;

	(void)db;
	(void)name;
	st->wal_frames = frames > 0 ? (size_t)frames : 0;
	return SQLITE_OK;
}

int
store_bg_open(struct store *st, struct store_bg **out, struct store_error *err)
{
	struct store_bg *bg;
	char wal[4096], dir[4096];
	int rc = 0, dfd = -1;

	*out = NULL;
	if (st->temporary || st->offloaded)
		return store_fail(err, STORE_EINVAL,
		                  st->temporary ? "a temporary store has no disk to wait for"
		                                : "the store's disk waits are offloaded already");
	if (!sqlite3_threadsafe())
		return store_fail(err, STORE_EINVAL, "this SQLite was built without threads");
	bg = xcalloc(1, sizeof *bg);
	bg->wal_fd = -1;
	bg->path = xstrdup(st->path);
	if ((size_t)snprintf(wal, sizeof wal, "%s-wal", st->path) >= sizeof wal)
		rc = store_fail(err, STORE_EIO, "%s: the path is too long", st->path);
	else if ((bg->wal_fd = open(wal, O_WRONLY | O_CLOEXEC)) < 0) /* fdatasync wants it */
		rc = store_fail(err, STORE_EIO, "%s: cannot open (%s)", wal, strerror(errno));
	/* the WAL was created by this start: its name survives a power loss once the folder is
	 * synced, which SQLite would have done at its first sync */
	store_dir_of(st->path, dir, sizeof dir);
	if (rc == 0 && ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	                (fsync(dfd) < 0 && errno != EINVAL))) {
		rc = store_fail(err, STORE_EIO, "%s: cannot sync the directory %s (%s)", st->path,
		                dir, strerror(errno));
	}
	if (dfd >= 0)
		close(dfd);
	if (rc == 0 &&
	    sqlite3_open_v2(st->path, &bg->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	            SQLITE_OK)
		rc = store_fail(err, STORE_EIO, "%s: cannot open a second connection (%s)",
		                st->path, sqlite3_errmsg(bg->db));
	/* into WAL mode, as the file says; the checkpoints sync the WAL before and the file after
	 */
	if (rc == 0 &&
	    (sqlite3_busy_timeout(bg->db, 1000) != SQLITE_OK ||
	     sqlite3_exec(bg->db, "PRAGMA synchronous = NORMAL; SELECT count(*) FROM sqlite_master",
	                  NULL, NULL, NULL) != SQLITE_OK))
		rc = store_fail(err, STORE_EIO, "%s: cannot read with a second connection (%s)",
		                st->path, sqlite3_errmsg(bg->db));
	if (rc == 0)
		rc = store_exec(st, "PRAGMA synchronous = NORMAL", "setting the sync level", err);
	if (rc < 0) {
		store_bg_close(bg);
		return rc;
	}
	/* the two connections meet only at the WAL index's read locks, briefly: wait for them
	 * rather than fail a commit (which stops the server's writes until a retry) */
	sqlite3_busy_timeout(st->db, 1000);
	sqlite3_wal_hook(st->db, store_wal_hook, st);
	st->offloaded = 1;
	*out = bg;
	return 0;
}

int
store_bg_sync(struct store_bg *bg)
{
	return fdatasync(bg->wal_fd) < 0 ? -errno : 0;
}

/* A passive checkpoint on db: SQLITE_OK, also when another checkpoint had the lock (busy). */
int
checkpoint_passive(sqlite3 *db)
{
	int rc = sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);

	return (rc & 0xff) == SQLITE_BUSY ? SQLITE_OK : rc;
}

int
store_bg_checkpoint(struct store_bg *bg, struct store_error *err)
{
	if (checkpoint_passive(bg->db) == SQLITE_OK)
		return 0;
	return store_fail(err, STORE_EIO, "%s: checkpoint failed: %s", bg->path,
	                  sqlite3_errmsg(bg->db));
}

void
store_bg_close(struct store_bg *bg)
{
	if (bg == NULL)
		return;
	sqlite3_close(bg->db);
	if (bg->wal_fd >= 0)
		close(bg->wal_fd);
	free(bg->path);
	free(bg);
}

enum store_sync
store_sync_level(const struct store *st)
{
	return st->sync;
}

size_t
store_wal_frames(const struct store *st)
{
	return st->wal_frames;
}

int
store_checkpoint(struct store *st, struct store_error *err)
{
	int rc = checkpoint_passive(st->db);

	return rc == SQLITE_OK ? 0 : store_sqlite_fail(st, rc, err, "checkpointing");
}

/* Bind a string (borrowed until the step), or NULL. */
void
bind_text(sqlite3_stmt *s, int i, const char *t)
{
	if (t == NULL)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_text(s, i, t, -1, SQLITE_STATIC);
}

/* Forget the queued events (a rollback, a close). */
static void
store_queue_drop(struct store *st)
{
	for (size_t i = 0; i < st->nqueued; i++)
		free(st->queued[i].body);
	st->nqueued = 0;
}

/*
 * Insert the queued events, in order. store_event_add() checks an event and queues it, and the
 * rows go in here, before any other write (store_tx()) and any prepared statement (store_stmt():
 * the reads of events among them; the other reads, of games and sessions, do not need them), or
 * at the commit: for a temporary store, whose commit follows the turn's replies, the inserts are
 * then off the round trip too. A failure marks the transaction broken (store_begin()). Careful:
 * store_sqlite_fail() may clear the queue (a rolled-back transaction), so nothing of it is
 * touched after a failure.
 */
static void
store_settle(struct store *st)
{
	sqlite3_stmt *s = st->stmt[S_EVENT_ADD];
	size_t i;
	int rc;

	for (i = 0; i < st->nqueued; i++) {
		struct store_queued *q = &st->queued[i];

		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		bind_text(s, 1, q->game_id);
		sqlite3_bind_int64(s, 2, q->seq);
		sqlite3_bind_int64(s, 3, q->time_ms);
		bind_text(s, 4, q->type);
		if (q->move[0] != '\0') {
			sqlite3_bind_int64(s, 5, q->ply);
			bind_text(s, 6, q->move);
		}
		sqlite3_bind_text(s, 7, q->body, (int)q->body_len, SQLITE_STATIC);
		rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE) {
			st->broken = 1; /* the rest is not inserted either: no more writes, and the
			                 * commit fails (store_begin(), store_commit()) */
			if ((rc & 0xff) == SQLITE_CONSTRAINT)
				store_fail(&st->broken_err, STORE_EINVAL, "adding an event: %s",
				           sqlite3_errmsg(st->db));
			else
				store_sqlite_fail(st, rc, &st->broken_err, "adding an event");
			break;
		}
	}
	store_queue_drop(st);
}

/* A statement ready for binding: reset from its last use; the queued events go in first. */
sqlite3_stmt *
store_stmt(struct store *st, int which)
{
	sqlite3_stmt *s = st->stmt[which];

	if (st->nqueued > 0)
		store_settle(st);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return s;
}

/*
 * Open the turn's transaction if none is open, leaving the queued events queued. A transaction
 * whose queued inserts failed (store_settle()) takes no more writes: SQLite may have rolled it
 * back, and a write now would commit on its own; every writer gets that error until
 * store_commit() reports it and rolls back.
 */
static int
store_begin(struct store *st, struct store_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if (st->broken) {
		if (err != NULL)
			*err = st->broken_err;
		return st->broken_err.code;
	}
	if (!sqlite3_get_autocommit(st->db))
		return 0;
	st->pending = 0;
	s = store_stmt(st, S_BEGIN);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : store_sqlite_fail(st, rc, err, "beginning a transaction");
}

/* Before a write other than an event: the queued events go in first, then store_begin(). */
int
store_tx(struct store *st, struct store_error *err)
{
	if (st->nqueued > 0)
		store_settle(st);
	return store_begin(st, err);
}

/* Step a write statement inside the turn's transaction; counts it as pending. */
int
store_write(struct store *st, sqlite3_stmt *s, const char *what, struct store_error *err)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		if ((rc & 0xff) == SQLITE_CONSTRAINT)
			return store_fail(err, STORE_EINVAL, "%s: %s", what,
			                  sqlite3_errmsg(st->db));
		return store_sqlite_fail(st, rc, err, what);
	}
	st->pending++;
	return 0;
}

/* Whether s is a string of 1..max-1 bytes. */
int
store_fits(const char *s, size_t max)
{
	return s != NULL && s[0] != '\0' && strlen(s) < max;
}

/*
 * game_add() of a game stored already (its id): a resent write when the stored game was created
 * the same (kind, variant, seed, private, code, created_ms, clock, rated: what game_add() sets
 * and nothing changes later), 0; else STORE_ECORRUPT.
 */
static int
store_game_same(struct store *st, const struct store_game *g, struct store_error *err)
{
	struct store_game got;
	int rc;

	if ((rc = store_game_read(st, g->id, &got, err)) < 0)
		return rc;
	if (got.kind != g->kind ||
	    strcmp(got.variant, g->variant[0] ? g->variant : "standard") != 0 ||
	    got.seed != g->seed || got.is_private != (g->is_private != 0) ||
	    strcmp(got.code, g->code) != 0 || got.created_ms != g->created_ms ||
	    strcmp(got.clock, g->clock[0] ? g->clock : "none") != 0 || got.rated != (g->rated != 0))
		return store_fail(
		        err, STORE_ECORRUPT,
		        "game '%s' is stored already, created otherwise (a second game of "
		        "that id?)",
		        g->id);
	return 0;
}

int
store_end_read(struct store *st, const char *game_id, struct store_end *out,
               struct store_error *err)
{
	sqlite3_stmt *s = store_stmt(st, S_GAME_END);
	int rc;

	memset(out, 0, sizeof *out);
	bind_text(s, 1, game_id);
	if ((rc = store_game_step(st, s, game_id, "reading a game's end", err)) < 0)
		return rc;
	rc = column_copy(s, 0, out->status, sizeof out->status) |
	     column_copy(s, 2, out->result, sizeof out->result) |
	     column_copy(s, 4, out->reason, sizeof out->reason) |
	     column_copy(s, 7, out->unrated, sizeof out->unrated);
	out->ended_ms = sqlite3_column_int64(s, 1);
	out->winner = sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 3);
	out->has_score = sqlite3_column_type(s, 5) != SQLITE_NULL;
	out->score[0] = sqlite3_column_int(s, 5);
	out->score[1] = sqlite3_column_int(s, 6);
	sqlite3_reset(s);
	if (rc < 0)
		return store_fail(err, STORE_ECORRUPT, "%s: game '%s' has a malformed row",
		                  st->path, game_id);
	return 0;
}

int
store_game_add(struct store *st, const struct store_game *g, struct store_error *err)
{
	struct store_live *live;
	sqlite3_stmt *s;
	int rc;

	if (!store_fits(g->id, STORE_ID_MAX) || strlen(g->code) >= STORE_CODE_MAX ||
	    strlen(g->clock) >= STORE_WORD_MAX || (int)g->kind < 0 ||
	    (int)g->kind >= game_class_count || game_variant_check(g->kind, g->variant, NULL) < 0)
		return store_fail(err, STORE_EINVAL, "game '%.15s': bad id, code, kind or variant",
		                  g->id);
	if ((rc = store_tx(st, err)) < 0)
		return rc;
	s = store_stmt(st, S_GAME_ADD);
	bind_text(s, 1, g->id);
	bind_text(s, 2, game_kind_name(g->kind));
	bind_text(s, 3, g->variant[0] ? g->variant : "standard");
	sqlite3_bind_int64(s, 4, (int64_t)g->seed);
	sqlite3_bind_int(s, 5, g->is_private != 0);
	bind_text(s, 6, g->code);
	sqlite3_bind_int64(s, 7, g->created_ms);
	bind_text(s, 8, g->clock[0] ? g->clock : "none");
	sqlite3_bind_int(s, 9, g->rated != 0);
	if ((rc = store_write(st, s, "adding a game", err)) < 0)
		return rc;
	if (sqlite3_changes(st->db) == 0) /* stored already: where its events stand is kept */
		return store_game_same(st, g, err);
	live = strmap_get(&st->live, g->id);
	if (live == NULL) {
		live = xcalloc(1, sizeof *live);
		snprintf(live->id, sizeof live->id, "%s", g->id);
		strmap_put(&st->live, live->id, live);
	}
	live->last = live->ply = 0;
	return 0;
}

/* The UPDATE just run found its game, or STORE_ENOTFOUND. */
static int
store_found(struct store *st, const char *id, struct store_error *err)
{
	if (sqlite3_changes(st->db) == 0)
		return store_fail(err, STORE_ENOTFOUND, "no game '%.15s' in the store", id);
	return 0;
}

int
store_seat_set(struct store *st, const char *game_id, int seat, const char *player_id,
               const char *name, int64_t account, struct store_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if (!store_fits(game_id, STORE_ID_MAX) || (seat != 0 && seat != 1) ||
	    !store_fits(player_id, STORE_ID_MAX) || !store_fits(name, STORE_NAME_MAX) ||
	    account < 0)
		return store_fail(err, STORE_EINVAL, "seat of game '%.15s': bad argument",
		                  game_id ? game_id : "");
	if ((rc = store_tx(st, err)) < 0)
		return rc;
	s = store_stmt(st, S_SEAT);
	bind_text(s, 1, game_id);
	sqlite3_bind_int(s, 2, seat);
	bind_text(s, 3, player_id);
	bind_text(s, 4, name);
	sqlite3_bind_int64(s, 5, account);
	if ((rc = store_write(st, s, "taking a seat", err)) < 0)
		return rc;
	return store_found(st, game_id, err);
}

int
store_game_status_set(struct store *st, const char *game_id, const char *status,
                      struct store_error *err)
{
	struct store_end end;
	sqlite3_stmt *s;
	int rc;

	if (!store_fits(game_id, STORE_ID_MAX) || status == NULL ||
	    (strcmp(status, "open") != 0 && strcmp(status, "live") != 0 &&
	     strcmp(status, "adjourned") != 0))
		return store_fail(err, STORE_EINVAL,
		                  "status of game '%.15s': 'open', 'live' or 'adjourned'",
		                  game_id ? game_id : "");
	if ((rc = store_tx(st, err)) < 0)
		return rc;
	s = store_stmt(st, S_STATUS);
	bind_text(s, 1, game_id);
	bind_text(s, 2, status);
	if ((rc = store_write(st, s, "changing a game's status", err)) < 0)
		return rc;
	if (sqlite3_changes(st->db) > 0)
		return 0;
	/* finished (it keeps that status: a resent write of a turn before its end), or none */
	return store_end_read(st, game_id, &end, err);
}

/*
 * Where game_id's events stand, from the file (and the open transaction): its last seq and its
 * moves into *out. Returns 1 for a game that is not finished (worth keeping in st->live), 0 for a
 * finished one, STORE_ENOTFOUND or STORE_EIO.
 */
static int
store_live_read(struct store *st, const char *game_id, struct store_live *out,
                struct store_error *err)
{
	sqlite3_stmt *s = store_stmt(st, S_EVENT_LAST);
	int rc, unfinished;

	bind_text(s, 1, game_id);
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(s);
		return store_sqlite_fail(st, rc, err, "reading a game's last event");
	}
	if (sqlite3_column_type(s, 0) == SQLITE_NULL) {
		sqlite3_reset(s);
		return store_fail(err, STORE_ENOTFOUND, "no game '%s' in the store", game_id);
	}
	unfinished = sqlite3_column_int(s, 0) != 0;
	memset(out, 0, sizeof *out);
	snprintf(out->id, sizeof out->id, "%s", game_id);
	out->last = sqlite3_column_int64(s, 1);
	out->ply = sqlite3_column_int64(s, 2);
	sqlite3_reset(s);
	return unfinished;
}

/*
 * An event of a seq the game has already: a resent write (a retry after a commit whose outcome
 * was unknown) when the stored event has the same type, move and body bytes, 0; else
 * STORE_ECORRUPT naming the game and the seq. The lookup inserts the queued events first (they
 * may hold it), so a failure there is the broken transaction's.
 */
static int
store_event_same(struct store *st, const char *game_id, const struct store_event *ev,
                 struct store_error *err)
{
	size_t len = ev->body_len > 0 ? ev->body_len : strlen(ev->body);
	sqlite3_stmt *s = store_stmt(st, S_EVENT_GET);
	const char *type, *move;
	int rc, same;

	if (st->broken) {
		if (err != NULL)
			*err = st->broken_err;
		return st->broken_err.code;
	}
	bind_text(s, 1, game_id);
	sqlite3_bind_int64(s, 2, ev->seq);
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE) {
		sqlite3_reset(s);
		return store_fail(err, STORE_ECORRUPT,
		                  "%s: event %" PRId64 " of game '%s' is missing", st->path,
		                  ev->seq, game_id);
	}
	if (rc != SQLITE_ROW) {
		sqlite3_reset(s);
		return store_sqlite_fail(st, rc, err, "reading an event");
	}
	type = (const char *)sqlite3_column_text(s, 0);
	move = (const char *)sqlite3_column_text(s, 1);
	same = type != NULL && strcmp(type, ev->type) == 0 &&
	       (move == NULL) == (ev->move == NULL) &&
	       (move == NULL || strcmp(move, ev->move) == 0) &&
	       (size_t)sqlite3_column_bytes(s, 2) == len &&
	       memcmp(sqlite3_column_blob(s, 2), ev->body, len) == 0;
	sqlite3_reset(s);
	if (!same)
		return store_fail(err, STORE_ECORRUPT,
		                  "game '%s': event %" PRId64
		                  " is stored already, with other contents "
		                  "(written again otherwise)",
		                  game_id, ev->seq);
	return 0;
}

/*
 * Each event's seq must follow the game's last one, and a move gets the next ply. Reading both
 * from the events table for every event cost more than the INSERT itself, so the store keeps
 * them for every game that is not finished (st->live): an entry is made when a game is added, or
 * read from the file at a game's first event in this process (a game loaded at start-up), moved
 * on by every stored event, and dropped when the game finishes; the few events of a finished
 * game (a rematch offer) are checked against the file each time. An entry always says what the
 * file with the open transaction says: a transaction that is rolled back (a failed commit, or a
 * write after which SQLite gave up the transaction) drops them all. An event of a seq up to the
 * last is one sent again: compared with the stored one (store_event_same()), never queued. The
 * UNIQUE (game_id, seq) still refuses a duplicate event, whatever the map says.
 */
int
store_event_add(struct store *st, const char *game_id, const struct store_event *ev,
                struct store_error *err)
{
	struct store_live *live, here;
	struct store_queued *q;
	int rc, moved;

	if (!store_fits(game_id, STORE_ID_MAX) || !store_fits(ev->type, STORE_WORD_MAX) ||
	    ev->body == NULL || ev->body_len > INT32_MAX)
		return store_fail(err, STORE_EINVAL, "event of game '%.15s': bad argument",
		                  game_id ? game_id : "");
	moved = strcmp(ev->type, "moved") == 0;
	if (moved != (ev->move != NULL) || (moved && !store_fits(ev->move, GAME_MOVE_TEXT)))
		return store_fail(err, STORE_EINVAL,
		                  "event %" PRId64 " of game '%s': a move goes with a moved event, "
		                  "and only there",
		                  ev->seq, game_id);
	if ((rc = store_begin(st, err)) < 0)
		return rc;
	live = strmap_get(&st->live, game_id);
	if (live == NULL) {
		if ((rc = store_live_read(st, game_id, &here, err)) < 0)
			return rc;
		live = &here;
		if (rc == 1) {
			live = xmalloc(sizeof *live);
			*live = here;
			strmap_put(&st->live, live->id, live);
		}
	}
	if (ev->seq < 1 || ev->seq > live->last + 1)
		return store_fail(err, STORE_EINVAL,
		                  "event %" PRId64 " of game '%s' does not follow event %" PRId64,
		                  ev->seq, game_id, live->last);
	if (ev->seq <= live->last) /* live is not used after: the lookup may drop the map */
		return store_event_same(st, game_id, ev, err);
	st->queued = xgrow(st->queued, st->nqueued, &st->queued_cap, sizeof *st->queued, 16);
	q = &st->queued[st->nqueued++];
	snprintf(q->game_id, sizeof q->game_id, "%s", game_id);
	snprintf(q->type, sizeof q->type, "%s", ev->type);
	snprintf(q->move, sizeof q->move, "%s", moved ? ev->move : "");
	q->seq = ev->seq;
	q->time_ms = ev->time_ms;
	q->ply = moved ? live->ply + 1 : 0;
	q->body_len = ev->body_len > 0 ? ev->body_len : strlen(ev->body);
	q->body = xmalloc(q->body_len + 1);
	memcpy(q->body, ev->body, q->body_len);
	q->body[q->body_len] = '\0';
	st->pending++;
	live->last = ev->seq;
	live->ply += moved;
	return 0;
}

int
store_game_finish(struct store *st, const char *game_id, int64_t ended_ms, const char *result,
                  int winner, const char *reason, const int score[2], struct store_error *err)
{
	struct store_end end;
	sqlite3_stmt *s;
	int rc, changed;

	if (!store_fits(game_id, STORE_ID_MAX) || !store_fits(result, STORE_WORD_MAX) ||
	    !store_fits(reason, STORE_WORD_MAX) || winner < -1 || winner > 1)
		return store_fail(err, STORE_EINVAL, "end of game '%.15s': bad argument",
		                  game_id ? game_id : "");
	if ((rc = store_tx(st, err)) < 0)
		return rc;
	s = store_stmt(st, S_FINISH);
	bind_text(s, 1, game_id);
	sqlite3_bind_int64(s, 2, ended_ms);
	bind_text(s, 3, result);
	sqlite3_bind_int(s, 4, winner);
	bind_text(s, 5, reason);
	if (score != NULL) {
		sqlite3_bind_int(s, 6, score[0]);
		sqlite3_bind_int(s, 7, score[1]);
	}
	if ((rc = store_write(st, s, "finishing a game", err)) < 0)
		return rc;
	changed = sqlite3_changes(st->db);
	free(strmap_del(&st->live, game_id)); /* its later events (a rematch offer) are rare */
	if (changed > 0)
		return 0;
	/* finished already (the UPDATE skips that: its counts move once), or no such game */
	if ((rc = store_end_read(st, game_id, &end, err)) < 0)
		return rc;
	if (end.ended_ms != ended_ms || strcmp(end.result, result) != 0 || end.winner != winner ||
	    strcmp(end.reason, reason) != 0 || end.has_score != (score != NULL) ||
	    (score != NULL && (end.score[0] != score[0] || end.score[1] != score[1])))
		return store_fail(err, STORE_ECORRUPT,
		                  "game '%s' is finished already, with another end (%s, %s)",
		                  game_id, end.result, end.reason);
	return 0;
}

/*
 * Delete a game with its events and the sessions seated at it, in the turn's transaction (the
 * triggers of migrations[7] move the kept counts; the count of deleted games moves here). A game
 * that never started goes in the commit of its end: a guest's finished game when --keep-days is up
 * (store_sweep()). A game that is not there is deleted already: nothing is counted.
 */
int
store_game_drop(struct store *st, const char *game_id, struct store_error *err)
{
	static const int order[] = {S_EVENTS_DROP, S_SESSIONS_DROP, S_DELETED, S_GAME_DROP};
	sqlite3_stmt *s;
	int rc;

	if (!store_fits(game_id, STORE_ID_MAX))
		return store_fail(err, STORE_EINVAL, "dropping a game: bad id");
	if ((rc = store_tx(st, err)) < 0)
		return rc;
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		s = store_stmt(st, order[i]);
		bind_text(s, 1, game_id);
		if ((rc = store_write(st, s, "deleting a game", err)) < 0)
			return rc;
	}
	free(strmap_del(&st->live, game_id));
	return 0;
}

/*
 * --keep-days: delete at most max finished games that ended before before_ms with no account at
 * either seat and nobody seated at them any more (no session: nothing more can happen there),
 * oldest first, from the index of such games, in the turn's transaction. Returns how many.
 */
int
store_sweep(struct store *st, int64_t before_ms, unsigned max, struct store_error *err)
{
	char(*ids)[STORE_ID_MAX];
	sqlite3_stmt *s;
	int rc, n = 0;

	if (max == 0)
		return 0;
	if ((rc = store_tx(st, err)) < 0)
		return rc;
	ids = xcalloc(max, sizeof *ids);
	s = store_stmt(st, S_SWEEP);
	sqlite3_bind_int64(s, 1, before_ms);
	sqlite3_bind_int64(s, 2, max);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW && (unsigned)n < max)
		if (column_copy(s, 0, ids[n], sizeof ids[n]) == 0)
			n++;
	sqlite3_reset(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		free(ids);
		return store_sqlite_fail(st, rc, err, "finding old guest games");
	}
	for (int i = 0; i < n; i++)
		if ((rc = store_game_drop(st, ids[i], err)) < 0) {
			free(ids);
			return rc;
		}
	free(ids);
	return n;
}

int
store_session_set(struct store *st, const struct store_session *ss, struct store_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if (!store_fits(ss->token, STORE_TOKEN_MAX) || !store_fits(ss->player_id, STORE_ID_MAX) ||
	    !store_fits(ss->name, STORE_NAME_MAX) || !store_fits(ss->game_id, STORE_ID_MAX) ||
	    (ss->seat != 0 && ss->seat != 1))
		return store_fail(err, STORE_EINVAL, "session of player '%.15s': bad argument",
		                  ss->player_id);
	if ((rc = store_tx(st, err)) < 0)
		return rc;
	s = store_stmt(st, S_SESSION_SET);
	bind_text(s, 1, ss->token);
	bind_text(s, 2, ss->player_id);
	bind_text(s, 3, ss->name);
	bind_text(s, 4, ss->game_id);
	sqlite3_bind_int(s, 5, ss->seat);
	sqlite3_bind_int64(s, 6, ss->updated_ms);
	sqlite3_bind_int64(s, 7, ss->account);
	return store_write(st, s, "saving a session", err);
}

int
store_session_remove(struct store *st, const char *token, struct store_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if (!store_fits(token, STORE_TOKEN_MAX))
		return store_fail(err, STORE_EINVAL, "bad session token");
	if ((rc = store_tx(st, err)) < 0)
		return rc;
	s = store_stmt(st, S_SESSION_DEL);
	bind_text(s, 1, token);
	return store_write(st, s, "removing a session", err);
}

int
store_meta_set(struct store *st, const char *key, int64_t value, struct store_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if (!store_fits(key, 64))
		return store_fail(err, STORE_EINVAL, "bad meta key");
	if ((rc = store_tx(st, err)) < 0)
		return rc;
	s = store_stmt(st, S_META_SET);
	bind_text(s, 1, key);
	sqlite3_bind_int64(s, 2, value);
	return store_write(st, s, "saving a counter", err);
}

int
store_meta_get(struct store *st, const char *key, int64_t *value, struct store_error *err)
{
	sqlite3_stmt *s = store_stmt(st, S_META_GET);
	int rc;

	bind_text(s, 1, key);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*value = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (rc == SQLITE_DONE)
		return store_fail(err, STORE_ENOTFOUND, "no counter '%s'", key);
	return rc == SQLITE_ROW ? 0 : store_sqlite_fail(st, rc, err, "reading a counter");
}

/*
 * Group commit. Every write of the turn went into one transaction, so the disk is waited on once
 * per turn however many moves were made: with synchronous=NORMAL in WAL mode the COMMIT appends
 * the frames to the WAL without fsync (a process crash cannot lose them: they are in the OS's
 * page cache); with synchronous=FULL the WAL is fsync'ed at every COMMIT (an offloaded store runs
 * NORMAL: the other thread's store_bg_sync() does that fsync). Only after this returns 0 (and that
 * sync) may the turn's acknowledgements be sent. On failure SQLite has (or we have) rolled the
 * transaction back; a transaction whose queued event inserts failed is rolled back here.
 */
/* Give the turn's transaction up (a failed commit or write): the file is the truth. */
void
store_rollback(struct store *st)
{
	sqlite3_stmt *s;

	store_queue_drop(st); /* not inserted: nothing to settle before the rollback */
	if (!sqlite3_get_autocommit(st->db)) {
		s = store_stmt(st, S_ROLLBACK);
		sqlite3_step(s);
		sqlite3_reset(s);
	}
	store_live_clear(st);
	st->pending = 0;
	st->broken = 0;
}

int
store_commit(struct store *st, struct store_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if (st->nqueued > 0)
		store_settle(st);
	if (st->broken) {
		if (err != NULL)
			*err = st->broken_err;
		store_rollback(st);
		return st->broken_err.code;
	}
	if (sqlite3_get_autocommit(st->db)) {
		st->pending = 0;
		return 0;
	}
	s = store_stmt(st, S_COMMIT);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		rc = store_sqlite_fail(st, rc, err, "committing");
		store_rollback(st);
		return rc;
	}
	st->pending = 0;
	return 0;
}

/* Copy a text column into a fixed buffer; a value that does not fit is corruption. */
int
column_copy(sqlite3_stmt *s, int col, char *buf, size_t size)
{
	const unsigned char *t = sqlite3_column_text(s, col);
	size_t n = t ? strlen((const char *)t) : 0;

	buf[0] = '\0';
	if (n >= size)
		return -1;
	if (t != NULL)
		memcpy(buf, t, n + 1);
	return 0;
}

/*
 * Step s, a bound statement of one row about game id: 0 with s on that row (the caller reads it,
 * then resets s), or STORE_ENOTFOUND (no such game) or an error of what, s reset.
 */
int
store_game_step(struct store *st, sqlite3_stmt *s, const char *id, const char *what,
                struct store_error *err)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW)
		return 0;
	sqlite3_reset(s);
	if (rc == SQLITE_DONE)
		return store_fail(err, STORE_ENOTFOUND, "no game '%.15s' in the store", id);
	return store_sqlite_fail(st, rc, err, what);
}

/* The row of game id (GAME_COLUMNS) into g: 0, STORE_ENOTFOUND, or an error. */
int
store_game_read(struct store *st, const char *id, struct store_game *g, struct store_error *err)
{
	sqlite3_stmt *s = store_stmt(st, S_GAME_GET);
	int rc;

	bind_text(s, 1, id);
	if ((rc = store_game_step(st, s, id, "reading a game", err)) < 0)
		return rc;
	rc = store_game_row(st, s, g, err);
	sqlite3_reset(s);
	return rc;
}

/* Read a row of GAME_COLUMNS into g. */
int
store_game_row(struct store *st, sqlite3_stmt *s, struct store_game *g, struct store_error *err)
{
	char kind[STORE_WORD_MAX];
	int bad = 0;

	memset(g, 0, sizeof *g);
	bad |= column_copy(s, 0, g->id, sizeof g->id);
	g->serial = sqlite3_column_int64(s, 1);
	bad |= column_copy(s, 2, kind, sizeof kind);
	bad |= game_kind_parse(kind, &g->kind) < 0;
	bad |= column_copy(s, 3, g->variant, sizeof g->variant);
	g->seed = (uint64_t)sqlite3_column_int64(s, 4);
	g->is_private = sqlite3_column_int(s, 5);
	bad |= column_copy(s, 6, g->code, sizeof g->code);
	bad |= column_copy(s, 7, g->status, sizeof g->status);
	g->created_ms = sqlite3_column_int64(s, 8);
	for (int i = 0; i < 2; i++) {
		g->seat_taken[i] = sqlite3_column_type(s, 9 + 2 * i) != SQLITE_NULL;
		bad |= column_copy(s, 9 + 2 * i, g->seat_id[i], sizeof g->seat_id[i]);
		bad |= column_copy(s, 10 + 2 * i, g->seat_name[i], sizeof g->seat_name[i]);
	}
	g->ended_ms = sqlite3_column_int64(s, 13);
	bad |= column_copy(s, 14, g->result, sizeof g->result);
	g->winner = sqlite3_column_type(s, 15) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 15);
	bad |= column_copy(s, 16, g->reason, sizeof g->reason);
	g->score[0] = sqlite3_column_int(s, 17);
	g->score[1] = sqlite3_column_int(s, 18);
	g->nevents = sqlite3_column_int64(s, 19);
	g->ply = sqlite3_column_int(s, 20);
	bad |= column_copy(s, 21, g->clock, sizeof g->clock);
	g->rated = sqlite3_column_int(s, 22);
	bad |= column_copy(s, 25, g->unrated, sizeof g->unrated);
	for (int i = 0; i < 2; i++)
		g->seat_account[i] = sqlite3_column_type(s, 23 + i) == SQLITE_NULL
		                             ? -1
		                             : sqlite3_column_int64(s, 23 + i);
	if (bad || game_variant_check(g->kind, g->variant, NULL) < 0)
		return store_fail(err, STORE_ECORRUPT, "%s: game '%s' has a malformed row",
		                  st->path, g->id);
	return 0;
}

/* Read the events of a game into a new array. */
int
store_events_read(struct store *st, const char *id, struct store_event **out, size_t *n,
                  struct store_error *err)
{
	sqlite3_stmt *s = store_stmt(st, S_EVENTS_OF);
	struct store_event *ev = NULL;
	size_t len = 0, cap = 0;
	int rc;

	bind_text(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const unsigned char *move = sqlite3_column_text(s, 3);
		ev = xgrow(ev, len, &cap, sizeof *ev, 64);
		ev[len].seq = sqlite3_column_int64(s, 0);
		ev[len].time_ms = sqlite3_column_int64(s, 1);
		ev[len].type = xstrdup((const char *)sqlite3_column_text(s, 2));
		ev[len].move = move ? xstrdup((const char *)move) : NULL;
		ev[len].body = xstrdup((const char *)sqlite3_column_text(s, 4));
		ev[len].body_len = strlen(ev[len].body);
		len++;
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		store_events_free(ev, len);
		return store_sqlite_fail(st, rc, err, "reading events");
	}
	*out = ev;
	*n = len;
	return 0;
}

int
store_game_get(struct store *st, const char *id, struct store_game *g, struct store_event **events,
               size_t *nevents, struct store_error *err)
{
	int rc;

	*events = NULL;
	*nevents = 0;
	if ((rc = store_game_read(st, id, g, err)) < 0)
		return rc;
	return store_events_read(st, id, events, nevents, err);
}

/* Collect the rows of s, a bound query of GAME_COLUMNS, into a new array; finalizes s. */
int
store_games_collect(struct store *st, sqlite3_stmt *s, struct store_game **out, size_t *n,
                    struct store_error *err)
{
	struct store_game *games = NULL;
	size_t len = 0, cap = 0;
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		games = xgrow(games, len, &cap, sizeof *games, 16);
		if ((rc = store_game_row(st, s, &games[len], err)) < 0) {
			sqlite3_finalize(s);
			free(games);
			return rc;
		}
		len++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(games);
		return store_sqlite_fail(st, rc, err, "listing games");
	}
	*out = games;
	*n = len;
	return 0;
}

/* Collect the rows of a query of GAME_COLUMNS into a new array; p[0..np) are its ?1, ?2 ... */
int
store_games_query(struct store *st, const char *sql, const int64_t *p, int np,
                  struct store_game **out, size_t *n, struct store_error *err)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);

	if (rc != SQLITE_OK)
		return store_sqlite_fail(st, rc, err, "listing games");
	for (int i = 0; i < np; i++)
		sqlite3_bind_int64(s, i + 1, p[i]);
	return store_games_collect(st, s, out, n, err);
}

int
store_load(struct store *st, unsigned recent, store_load_cb cb, void *ctx, struct store_error *err)
{
	/* each part from its own index (an OR of them scanned every game: a second a million) */
	static const char sql[] =
	        "SELECT " GAME_COLUMNS " FROM games WHERE id IN ("
	        "SELECT id FROM games WHERE status <> 'finished' UNION ALL "
	        "SELECT id FROM (SELECT id FROM games WHERE status = 'finished' AND private = 0 "
	        "ORDER BY ended_ms DESC, serial DESC LIMIT ?1) UNION ALL "
	        "SELECT id FROM (SELECT id FROM games WHERE status = 'finished' AND private = 1 "
	        "ORDER BY ended_ms DESC, serial DESC LIMIT ?1) UNION ALL "
	        "SELECT game_id FROM sessions) ORDER BY serial";
	struct store_game *games;
	int64_t p = recent;
	size_t n;
	int rc, count = 0;

	if ((rc = store_games_query(st, sql, &p, 1, &games, &n, err)) < 0)
		return rc;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct store_event *ev;
		struct game start, position;
		size_t nev;
		if ((rc = store_events_read(st, games[i].id, &ev, &nev, err)) < 0)
			break;
		rc = store_game_replay(&games[i], ev, nev, &start, &position, err);
		if (rc == 0) {
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
store_sessions_load(struct store *st, int (*cb)(void *ctx, const struct store_session *s),
                    void *ctx, struct store_error *err)
{
	sqlite3_stmt *s;
	int rc, count = 0;

	rc = sqlite3_prepare_v2(st->db,
	                        "SELECT token, player_id, name, game_id, seat, updated_ms, account "
	                        "FROM sessions ORDER BY updated_ms, token",
	                        -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_sqlite_fail(st, rc, err, "reading sessions");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_session ss;
		memset(&ss, 0, sizeof ss);
		if (column_copy(s, 0, ss.token, sizeof ss.token) < 0 ||
		    column_copy(s, 1, ss.player_id, sizeof ss.player_id) < 0 ||
		    column_copy(s, 2, ss.name, sizeof ss.name) < 0 ||
		    column_copy(s, 3, ss.game_id, sizeof ss.game_id) < 0) {
			sqlite3_finalize(s);
			return store_fail(err, STORE_ECORRUPT, "%s: a malformed session row",
			                  st->path);
		}
		ss.seat = sqlite3_column_int(s, 4);
		ss.updated_ms = sqlite3_column_int64(s, 5);
		ss.account = sqlite3_column_int64(s, 6);
		if (cb(ctx, &ss) != 0) {
			sqlite3_finalize(s);
			return store_fail(err, STORE_ESTOPPED, "loading sessions stopped");
		}
		count++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_sqlite_fail(st, rc, err, "reading sessions");
	return count;
}
