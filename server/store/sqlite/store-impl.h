/*
 * store-impl.h: the inside of the SQLite store, shared by the files that implement it and
 * included by no other: only store*.c include it, after store.h (the rest of hokitod sees
 * store.h and store-port.h only). It holds struct store (one SQLite connection, and what the
 * server's connection keeps beside it), the numbers of the prepared statements, the columns a
 * game row is read by, and the prototypes the pieces share. The pieces, each calling only those
 * below it: store-history.c (the history, record, leaderboard and rated-games reads; the read
 * port) -> store-open.c (opening, attaching and checking a file) -> store-schema.c (the
 * migrations and the full check) -> store.c (the shared helpers, the write side and group
 * commit, loading, closing, the write port). Beside them store-copy.c (a copy's reads and
 * writes of whole rows) and store-backup.c (hokitod backup) call store-open.c and store.c.
 */
#ifndef HOKITO_SERVER_STORE_IMPL_H
#define HOKITO_SERVER_STORE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "record.h"
#include "store-port.h"
#include "store.h"
#include "strmap.h"

#define STORE_APPLICATION_ID 0x484b544f /* "HKTO" in the file header: this is our file */

#define GAME_COLUMNS                                                                               \
	"id, serial, kind, variant, seed, private, code, status, created_ms, seat0_id, "           \
	"seat0_name, seat1_id, seat1_name, ended_ms, result, winner, reason, score0, score1, "     \
	"(SELECT COALESCE(MAX(seq), 0) FROM events WHERE events.game_id = games.id), "             \
	"(SELECT COUNT(move) FROM events WHERE events.game_id = games.id), clock, rated, "         \
	"seat0_account, seat1_account, unrated"

/* The prepared statements, reused for the life of the store. */
enum {
	S_BEGIN,
	S_COMMIT,
	S_ROLLBACK,
	S_GAME_ADD,
	S_SEAT,
	S_STATUS,
	S_EVENT_LAST,
	S_EVENT_ADD,
	S_EVENT_GET,
	S_FINISH,
	S_GAME_END,
	S_SESSION_SET,
	S_SESSION_DEL,
	S_META_SET,
	S_META_GET,
	S_GAME_GET,
	S_EVENTS_OF,
	S_MOVES_OF,
	S_ACCOUNT_ADD,
	S_ACCOUNT_UPDATE,
	S_RATING_CHANGE,
	S_RATING_SET,
	S_RATING_PAIR,
	S_UNRATED,
	S_CHANGES_OF,
	S_EVENTS_DROP,
	S_SESSIONS_DROP,
	S_DELETED,
	S_GAME_DROP,
	S_SWEEP,
	S_ACCOUNTS_SCAN,
	S_ACCOUNT_DROP,
	S_ACCOUNT_RELEASED,
	S_COUNT,
};

/* A game that is not finished: where its events stand (committed and queued alike). */
struct store_live {
	char id[STORE_ID_MAX]; /* the key in store.live */
	int64_t last;          /* its last seq, 0 before its first event */
	int64_t ply;           /* its moves */
};

struct store {
	sqlite3 *db;
	char *path; /* for messages */
	enum store_sync sync;
	int temporary;  /* ":memory:", a private temporary database (store_start()) */
	int version;    /* schema version of the file */
	size_t pending; /* writes queued in the open transaction */
	sqlite3_stmt *stmt[S_COUNT];
	struct strmap live; /* game id -> struct store_live (owned), see store_event_add() */
	int lock_fd;        /* a file store: its flock, one server per file; -1 otherwise */
	int offloaded;      /* store_bg_open(): the disk waits are another thread's */
	size_t wal_frames;  /* frames in the WAL after the last commit (store_wal_hook()) */
	struct store_queued *queued; /* events checked and not inserted yet (store_event_add()) */
	size_t nqueued, queued_cap;
	int broken;   /* inserting them failed: the transaction must not commit */
	int attached; /* a second connection: a reader or a check (store_attach()) */
	struct store_error broken_err; /* why */
	struct store_loop *loop; /* the loop side (store-loop.c), owned; NULL before start() */
	int made;                /* this open created the file (store-backend.c) */
	struct store_copy *copy; /* a copy's statements (store-copy.c), owned; NULL until used */
	/* what store_close() calls to free the state of the pieces above store.c (so that
	 * store.c names none of them): store_loop_free(), store_copy_free(); NULL if unused */
	void (*loop_free)(struct store *st);
	void (*copy_free)(struct store *st);
};

/* An event that store_event_add() checked and queued; inserted by store_settle(). */
struct store_queued {
	char game_id[STORE_ID_MAX];
	char type[STORE_WORD_MAX];
	char move[GAME_MOVE_TEXT]; /* "" unless moved */
	int64_t seq, time_ms, ply; /* ply: of a moved event, else 0 */
	char *body;                /* owned copy */
	size_t body_len;
};

/* Where a game stands at its end (store_end_read()): what a resent write is compared with. */
struct store_end {
	char status[STORE_WORD_MAX];
	int64_t ended_ms; /* 0 until finished */
	char result[STORE_WORD_MAX];
	int winner; /* -1: none */
	char reason[STORE_WORD_MAX];
	int has_score; /* the scores are stored (not NULL) */
	int score[2];
	char unrated[STORE_WORD_MAX]; /* "" when NULL */
};

/* --- store-loop.c: the write port's start(), commit() and stop(). */

struct uv_loop_s;
int store_loop_start(void *impl, struct uv_loop_s *loop, store_done_cb done, void *arg,
                     struct store_error *err);
int store_loop_commit(void *impl, uint64_t *ticket, struct store_error *err);
void store_loop_stop(void *impl);
/* Free the loop side (its threads joined) before the store closes. Accepts st->loop NULL. */
void store_loop_free(struct store *st);

/* --- store-copy.c: the ports' ops of a copy of a whole store (store-port.h). */

int store_copy_game_put(void *impl, const struct store_game *g, const struct store_event *ev,
                        size_t nevents, struct store_error *err);
int store_copy_rating_change_put(void *impl, const char *game_id,
                                 const struct store_rating_change *c, struct store_error *err);
int store_copy_rating_pair_put(void *impl, const struct store_rating_pair *p,
                               struct store_error *err);
int store_copy_rating_put(void *impl, const struct store_rating *r, struct store_error *err);
int store_copy_games_page(void *impl, int64_t after, size_t limit, struct store_game *out,
                          int64_t *total, struct store_error *err);
int store_copy_rating_changes(void *impl, const char *game_id, struct store_rating_change out[2],
                              struct store_error *err);
int store_copy_rating_pairs(void *impl, int (*cb)(void *ctx, const struct store_rating_pair *p),
                            void *ctx, struct store_error *err);
/* Finalize the copy's statements (store_close(), before the connection closes). */
void store_copy_free(struct store *st);

/* --- store-backup.c: hokitod backup (the backend's backup op), and removing a store file. */

int store_backup(const char *path, const char *file,
                 void (*progress)(void *ctx, int64_t done, int64_t total), void *ctx,
                 struct store_error *err);
/* Remove the store file at path with its -wal, -shm and -journal (a file an open or a backup
 * made and gave up); what cannot be removed is logged. */
void store_files_remove(const char *path);

/* --- store.c: the helpers every piece uses. */

/* The store error for an SQLite result code (corruption or I/O); if SQLite gave the open
 * transaction up, where the games stand is read from the file again. */
int store_sqlite_fail(struct store *st, int rc, struct store_error *err, const char *what);
/* Before a write other than an event: the queued events go in first, then the transaction. */
int store_tx(struct store *st, struct store_error *err);
/* Step a write statement inside the turn's transaction; counts it as pending. */
int store_write(struct store *st, sqlite3_stmt *s, const char *what, struct store_error *err);
/* Whether s fits a buffer of max bytes with its NUL. */
int store_fits(const char *s, size_t max);
/* Run SQL without results. */
int store_exec(struct store *st, const char *sql, const char *what, struct store_error *err);
/* Run a query whose answer is one integer, into *out. */
int store_int(struct store *st, const char *sql, int64_t *out, struct store_error *err);
/* The directory of the file at path ("." for a bare name), into dir. */
void store_dir_of(const char *path, char *dir, size_t size);
/* Forget where every game stands (and the queued events): the file is the truth again. */
void store_live_clear(struct store *st);
/* Bind a string (borrowed until the step), or NULL. */
void bind_text(sqlite3_stmt *s, int i, const char *t);
/* Copy a text column into buf; -1 if it does not fit (corruption). */
int column_copy(sqlite3_stmt *s, int col, char *buf, size_t size);
/* Prepared statement which (S_*), reset, the queued events inserted first; borrowed. */
sqlite3_stmt *store_stmt(struct store *st, int which);
/* The status and end of game_id into *out: 0, STORE_ENOTFOUND, or an error. */
int store_end_read(struct store *st, const char *game_id, struct store_end *out,
                   struct store_error *err);
/* Step s, a bound statement of one row about game id: 0 on its row (read it, then reset s), or
 * STORE_ENOTFOUND or an error of what (s reset). */
int store_game_step(struct store *st, sqlite3_stmt *s, const char *id, const char *what,
                    struct store_error *err);
/* The row of game id into g: 0, STORE_ENOTFOUND, or an error. */
int store_game_read(struct store *st, const char *id, struct store_game *g,
                    struct store_error *err);
/* Read a row of GAME_COLUMNS into g. */
int store_game_row(struct store *st, sqlite3_stmt *s, struct store_game *g,
                   struct store_error *err);
/* Read the events of a game into a new array (store_events_free()). */
int store_events_read(struct store *st, const char *id, struct store_event **out, size_t *n,
                      struct store_error *err);
/* Collect the rows of s, a bound query of GAME_COLUMNS, into a new array (free()); finalizes s. */
int store_games_collect(struct store *st, sqlite3_stmt *s, struct store_game **out, size_t *n,
                        struct store_error *err);
/* Collect the rows of a query of GAME_COLUMNS into a new array (free()); p[0..np) its ?1, ?2. */
int store_games_query(struct store *st, const char *sql, const int64_t *p, int np,
                      struct store_game **out, size_t *n, struct store_error *err);
/* A passive checkpoint on db: SQLITE_OK, also when another checkpoint had the lock (busy). */
int checkpoint_passive(sqlite3 *db);
/* How a stored end reads as a record's result (record.h). */

/* --- store-schema.c: the migrations and the full check. */

/* Bring the schema from st->version to STORE_SCHEMA_VERSION, one transaction per step. */
int store_migrate(struct store *st, struct store_error *err);
/* Check the file's pages, then our own rules; each finding to found(). Returns their number,
 * or an error. */
int store_check(struct store *st, void (*found)(void *ctx, const char *text), void *ctx,
                struct store_error *err);

/* --- store-open.c: opening a file. */

/* A second connection to the file store at path, which must exist (for a reader, exact: of this
 * schema); a new store to store_close(). */
int store_attach(const char *path, int flags, int exact, struct store **out,
                 struct store_error *err);

#endif
