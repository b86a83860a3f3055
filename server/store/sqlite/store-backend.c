/*
 * store-backend.c: the SQLite backend as the contract sees it: its write port (store-port.h;
 * each op calls store.h's function of the same name, a copy's ops store-copy.c's) and its struct
 * store_backend (store-sqlite.h), what the registry (store-db.c) calls. --fsync always is
 * synchronous=FULL, normal is synchronous=NORMAL (both in WAL mode); the one writer is kept by
 * the file's flock. A store opened without the writer's lock is a read-only second connection
 * that reads one moment (sqlite_be_open_reader()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-db.h"
#include "store-impl.h"
#include "store-sqlite.h"
#include "store.h"
#include "xmalloc.h"

#define SQLITE_ADMIN_SUFFIX ".sock" /* the admin socket beside the file: PATH.sock */

/* --- The write port: each op is the function of the same name on the store. */

static int
port_game_add(void *impl, const struct store_game *g, struct store_error *err)
{
	return store_game_add(impl, g, err);
}

static int
port_seat_set(void *impl, const char *game_id, int seat, const char *player_id, const char *name,
              int64_t account, struct store_error *err)
{
	return store_seat_set(impl, game_id, seat, player_id, name, account, err);
}

static int
port_game_drop(void *impl, const char *game_id, struct store_error *err)
{
	return store_game_drop(impl, game_id, err);
}

static int
port_sweep(void *impl, int64_t before_ms, unsigned max, struct store_error *err)
{
	return store_sweep(impl, before_ms, max, err);
}

static int
port_account_drop(void *impl, int64_t id, struct store_error *err)
{
	return store_account_drop(impl, id, err);
}

static int
port_status_set(void *impl, const char *game_id, const char *status, struct store_error *err)
{
	return store_game_status_set(impl, game_id, status, err);
}

static int
port_event_add(void *impl, const char *game_id, const struct store_event *ev,
               struct store_error *err)
{
	return store_event_add(impl, game_id, ev, err);
}

static int
port_game_finish(void *impl, const char *game_id, int64_t ended_ms, const char *result, int winner,
                 const char *reason, const int score[2], struct store_error *err)
{
	return store_game_finish(impl, game_id, ended_ms, result, winner, reason, score, err);
}

static int
port_session_set(void *impl, const struct store_session *ss, struct store_error *err)
{
	return store_session_set(impl, ss, err);
}

static int
port_session_remove(void *impl, const char *token, struct store_error *err)
{
	return store_session_remove(impl, token, err);
}

static int
port_meta_set(void *impl, const char *key, int64_t value, struct store_error *err)
{
	return store_meta_set(impl, key, value, err);
}

static int
port_meta_get(void *impl, const char *key, int64_t *value, struct store_error *err)
{
	return store_meta_get(impl, key, value, err);
}

static void
port_rollback(void *impl)
{
	store_rollback(impl);
}

static size_t
port_pending(const void *impl)
{
	return store_pending(impl);
}

static int
port_is_temporary(const void *impl)
{
	return store_is_temporary(impl);
}

static int
port_load(void *impl, unsigned recent, store_load_cb cb, void *ctx, struct store_error *err)
{
	return store_load(impl, recent, cb, ctx, err);
}

static int
port_sessions_load(void *impl, int (*cb)(void *ctx, const struct store_session *s), void *ctx,
                   struct store_error *err)
{
	return store_sessions_load(impl, cb, ctx, err);
}

static int
port_account_add(void *impl, const struct store_account *a, struct store_error *err)
{
	return store_account_add(impl, a, err);
}

static int
port_account_update(void *impl, const struct store_account *a, struct store_error *err)
{
	return store_account_update(impl, a, err);
}

static int
port_rating_change(void *impl, const char *game_id, const struct store_rating_change *c,
                   int64_t now_ms, struct store_error *err)
{
	return store_rating_change(impl, game_id, c, now_ms, err);
}

static int
port_ratings_load(void *impl, int (*cb)(void *ctx, const struct store_rating *r), void *ctx,
                  struct store_error *err)
{
	return store_ratings_load(impl, cb, ctx, err);
}

static int
port_game_unrated(void *impl, const char *game_id, const char *unrated, struct store_error *err)
{
	return store_game_unrated(impl, game_id, unrated, err);
}

static int
port_rated_pairs_load(void *impl, int64_t since_ms,
                      int (*cb)(void *ctx, int64_t a, int64_t b, int64_t ended_ms), void *ctx,
                      struct store_error *err)
{
	return store_rated_pairs_load(impl, since_ms, cb, ctx, err);
}

static int
port_accounts_load(void *impl, int (*cb)(void *ctx, const struct store_account *a), void *ctx,
                   struct store_error *err)
{
	return store_accounts_load(impl, cb, ctx, err);
}

void
store_write_port_init(struct store *st, struct store_write_port *out)
{
	*out = (struct store_write_port){.game_add = port_game_add,
	                                 .seat_set = port_seat_set,
	                                 .status_set = port_status_set,
	                                 .event_add = port_event_add,
	                                 .game_finish = port_game_finish,
	                                 .game_drop = port_game_drop,
	                                 .sweep = port_sweep,
	                                 .account_drop = port_account_drop,
	                                 .session_set = port_session_set,
	                                 .session_remove = port_session_remove,
	                                 .meta_set = port_meta_set,
	                                 .meta_get = port_meta_get,
	                                 .commit = store_loop_commit,
	                                 .start = store_loop_start,
	                                 .stop = store_loop_stop,
	                                 .rollback = port_rollback,
	                                 .pending = port_pending,
	                                 .is_temporary = port_is_temporary,
	                                 .load = port_load,
	                                 .sessions_load = port_sessions_load,
	                                 .account_add = port_account_add,
	                                 .account_update = port_account_update,
	                                 .accounts_load = port_accounts_load,
	                                 .rating_change = port_rating_change,
	                                 .ratings_load = port_ratings_load,
	                                 .game_unrated = port_game_unrated,
	                                 .rated_pairs_load = port_rated_pairs_load,
	                                 .game_put = store_copy_game_put,
	                                 .rating_change_put = store_copy_rating_change_put,
	                                 .rating_pair_put = store_copy_rating_pair_put,
	                                 .rating_put = store_copy_rating_put,
	                                 .impl = st};
}

/*
 * Open without the writer's lock (o->writer 0): a second connection to the file, read-only, of
 * this program's schema (store_attach()), beside a running server or not, that reads one moment:
 * a read transaction begun here and held until the close, which every read of its ports shares
 * (sqlite_be_reader_open() gives a port on this connection). In WAL mode a reader never holds the
 * server's writes up; the WAL only cannot start over until it ends.
 */
static int
sqlite_be_open_reader(const char *target, void **impl, struct store_error *err)
{
	struct store *st;
	int64_t tables;
	int rc;

	if ((rc = store_attach(target, SQLITE_OPEN_READONLY, 1, &st, err)) < 0)
		return rc;
	sqlite3_busy_timeout(st->db, 5000); /* the server's WAL recovery or checkpoint restart */
	if ((rc = store_exec(st, "BEGIN", "beginning to read", err)) < 0 ||
	    (rc = store_int(st, "SELECT COUNT(*) FROM sqlite_master", &tables, err)) < 0) {
		store_close(st);
		return rc;
	}
	*impl = st;
	return 0;
}

/*
 * Open (store_open()). A file this open makes is removed again when the open fails (say, on a
 * full disk): a truncated file would make every later start refuse it, and the service would not
 * come back once room is made.
 */
static int
sqlite_be_open(const char *target, const struct store_db_options *o, void **impl,
               struct store_error *err)
{
	int temporary = strcmp(target, ":memory:") == 0;
	int made = !temporary && access(target, F_OK) < 0 && errno == ENOENT;
	struct store *st;
	int rc;

	*impl = NULL;
	if ((o->must_exist || !o->writer) && (temporary || made))
		return store_fail(err, STORE_ENOTFOUND, "there is no store at %s", target);
	if (!o->writer)
		return sqlite_be_open_reader(target, impl, err);
	rc = store_open(target,
	                o->fsync == STORE_FSYNC_ALWAYS ? STORE_SYNC_FULL : STORE_SYNC_NORMAL, &st,
	                err);
	if (rc < 0) {
		if (made)
			store_files_remove(target);
		return rc;
	}
	st->made = made;
	*impl = st;
	return 0;
}

static void
sqlite_be_close(void *impl)
{
	store_close(impl);
}

static void
sqlite_be_discard(void *impl)
{
	struct store *st = impl;
	char *path = st->made ? xstrdup(st->path) : NULL;

	store_close(st);
	if (path != NULL)
		store_files_remove(path);
	free(path);
}

static const char *
sqlite_be_display(const void *impl)
{
	return store_path(impl);
}

static int
sqlite_be_schema(const void *impl)
{
	return store_schema_version(impl);
}

static int
sqlite_be_is_temporary(const void *impl)
{
	return store_is_temporary(impl);
}

/* The commit of a store opened without the writer's lock: nothing is written. */
static int
port_commit_refused(void *impl, uint64_t *ticket, struct store_error *err)
{
	struct store *st = impl;

	*ticket = 0;
	store_rollback(st);
	return store_fail(err, STORE_ECONFLICT, "%s: opened without the writer's lock: no writes",
	                  st->path);
}

static void
sqlite_be_write_port(void *impl, struct store_write_port *out)
{
	struct store *st = impl;

	store_write_port_init(st, out);
	if (st->attached) /* sqlite_be_open_reader()'s */
		out->commit = port_commit_refused;
}

/* A temporary store has no second connection: its readers use the loop's (loop_only); nor has a
 * store opened without the writer's lock, whose reads all see the moment of its open. */
static int
sqlite_be_reader_open(void *impl, struct store_read_port *out, struct store_error *err)
{
	struct store *st = impl;

	if (store_is_temporary(st) || st->attached) {
		store_read_port_init(impl, out);
		return 0;
	}
	return store_reader_open(store_path(impl), out, err);
}

static int
sqlite_be_check(const char *target, void (*found)(void *ctx, const char *text), void *ctx,
                struct store_error *err)
{
	if (strcmp(target, ":memory:") == 0)
		return store_fail(err, STORE_EINVAL,
		                  "--check wants a store file (--db), not :memory:");
	return store_check_file(target, found, ctx, err);
}

static int
sqlite_be_backup(const char *target, const char *path,
                 void (*progress)(void *ctx, int64_t done, int64_t total), void *ctx,
                 struct store_error *err)
{
	return store_backup(target, path, progress, ctx, err);
}

static void
sqlite_be_admin_path(const char *target, char *buf, size_t size)
{
	if (strcmp(target, ":memory:") == 0)
		snprintf(buf, size, "%s", "");
	else
		snprintf(buf, size, "%s%s", target, SQLITE_ADMIN_SUFFIX);
}

const struct store_backend store_backend_sqlite = {
        .name = "sqlite",
        .open = sqlite_be_open,
        .close = sqlite_be_close,
        .discard = sqlite_be_discard,
        .display = sqlite_be_display,
        .schema = sqlite_be_schema,
        .is_temporary = sqlite_be_is_temporary,
        .write_port = sqlite_be_write_port,
        .reader_open = sqlite_be_reader_open,
        .check = sqlite_be_check,
        .admin_path = sqlite_be_admin_path,
        .backup = sqlite_be_backup,
};
