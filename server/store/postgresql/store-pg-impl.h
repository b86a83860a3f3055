/*
 * store-pg-impl.h: the inside of the PostgreSQL store, shared by the files that implement it and
 * included by no other (the rest of hokitod sees store-pg.h and store-port.h only). It holds
 * struct store_pg (the writer's connection and what the write port keeps beside it), the turn's
 * queued statements and the committed transactions waiting for their answer, and the prototypes
 * the pieces share. The pieces, one job a file:
 *
 *   store-pg-conn.c    the backend (open, close, the URI without its password), connecting,
 *                      the errors by SQLSTATE, the socket on the loop (uv_poll), losing the
 *                      connection and getting it back (backoff on a uv_timer)
 *   store-pg-write.c   the write port: each op queues its statement; commit() sends a turn as
 *                      one transaction in pipeline mode and answers its ticket from the results
 *   store-pg-read.c    every read: the read port on a connection of its own, and the start-up
 *                      reads of the write port (load() with its replay, sessions, accounts, ...)
 *   store-pg-copy.c    a copy of a whole store (hokitod migrate): the writes of rows as another
 *                      store held them, and the one moment a store opened without the writer's
 *                      lock reads
 *   store-pg-schema.c  the schema as data, telling a hokitod store from another database, and
 *                      creating or migrating it in one transaction
 *   store-pg-check.c   hokitod --check on a database
 *
 * Nothing here reads the clock for the store's data (times come from the caller); the loop's
 * clock (uv_now) times the reconnection only.
 */
#ifndef HOKITO_SERVER_STORE_PG_IMPL_H
#define HOKITO_SERVER_STORE_PG_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include <libpq-fe.h>
#include <uv.h>

#include "store-db.h"
#include "store-port.h"
#include "strmap.h"

/* The schema this program writes: the SQLite backend's schema 11, in PostgreSQL's types. */
#define STORE_PG_SCHEMA 11

/* hokito_meta's 'application' row: this is a hokitod store ("HKTO", as SQLite's application_id) */
#define STORE_PG_APPLICATION 0x484b544f

/*
 * The advisory locks (two int4 keys): the first key is the class, the second the hash of the
 * store's schema name (hashtext(current_schema())), so that two stores in two schemas of one
 * database are two stores. The writer's lock is held by its session for the connection's life;
 * the migration lock by the transaction that creates or migrates the schema.
 */
#define STORE_PG_LOCK_WRITER  0x484b5457 /* "HKTW" */
#define STORE_PG_LOCK_MIGRATE 0x484b544d /* "HKTM" */

/* Our own SQLSTATEs, raised by hokito_raise() in the store's statements (store-pg-schema.c). */
#define STORE_PG_STATE_CONFLICT "HK001" /* a key stored again with other contents: ECORRUPT */
#define STORE_PG_STATE_INVALID  "HK002" /* an event that does not follow: EINVAL */
#define STORE_PG_STATE_NOTFOUND "HK003" /* no such game: ENOTFOUND */

#define STORE_PG_PARAMS_MAX 32 /* parameters of one write statement, at most */

/* The first statement number (store_pg_stmt.which) of a copy's writes (store-pg-copy.c), after
 * every PG_W_* of store-pg-write.c */
#define STORE_PG_COPY_FIRST 64

/*
 * What makes an account used (the SQLite backend's rule): a game played, a rating, the
 * operator's or its owner's word (bot, ban, close); the newest account is kept too, so that no
 * id is ever given twice (the next id is the highest plus one). The games go by their seats'
 * account indexes (finished games only: the game layer knows the ones not over).
 */
#define STORE_PG_ACCOUNT_UNUSED                                                                    \
	"accounts.kind = 'account' AND accounts.closed_ms IS NULL AND accounts.banned_ms IS NULL " \
	"AND accounts.id < (SELECT MAX(id) FROM accounts) AND NOT EXISTS (SELECT 1 FROM games "    \
	"WHERE status = 'finished' AND seat0_account = accounts.id) AND NOT EXISTS (SELECT 1 "     \
	"FROM games WHERE status = 'finished' AND seat1_account = accounts.id) AND NOT EXISTS "    \
	"(SELECT 1 FROM ratings WHERE account = accounts.id) AND NOT EXISTS (SELECT 1 FROM "       \
	"rating_changes WHERE account = accounts.id)"

/* Where the writer's connection stands. */
enum store_pg_state {
	STORE_PG_DOWN,       /* no connection; after start() the timer brings the next attempt */
	STORE_PG_CONNECTING, /* PQconnectPoll() under way, on the loop */
	STORE_PG_SETUP,      /* connected: the lock, the settings and the statements in flight */
	STORE_PG_READY,      /* set up: commits go out */
};

/* One write of a turn: which statement, and its parameters in its transaction's buffer. */
struct store_pg_stmt {
	int which; /* PG_W_* of store-pg-write.c, or STORE_PG_COPY_FIRST + one of store-pg-copy.c's
	            * statements; sent as the statement prepared as "hkw<which>" */
	int nparams;
	size_t off[STORE_PG_PARAMS_MAX]; /* of each parameter's bytes in the buffer */
	int len[STORE_PG_PARAMS_MAX];    /* its length; -1: NULL */
};

/* A turn's writes: queued while the turn runs, then committed as one transaction. */
struct store_pg_tx {
	uint64_t ticket;             /* commit()'s ticket; 0 before start() */
	struct store_pg_stmt *stmts; /* owned */
	size_t n, cap;
	char *buf; /* owned: every parameter's bytes, copied from the ops' borrowed arguments */
	size_t used, bufcap;
	TAILQ_ENTRY(store_pg_tx) link; /* in store_pg.queue */
};

TAILQ_HEAD(store_pg_txq, store_pg_tx);

/* What is in flight on the writer's connection: one pipeline, up to its sync. */
enum store_pg_flight_kind {
	STORE_PG_FLIGHT_NONE,
	STORE_PG_FLIGHT_TX,    /* the queue's first transaction */
	STORE_PG_FLIGHT_SETUP, /* a new connection's lock, settings and statements */
};

struct store_pg_flight {
	enum store_pg_flight_kind kind;
	int query;     /* the query whose results come next (0, 1, ...) */
	int committed; /* TX: COMMIT answered "COMMIT" */
	int failed;    /* err holds the first error */
	struct store_error err;
	int locked;     /* SETUP: the writer's lock was granted */
	int64_t schema; /* SETUP: hokito_meta's schema version; -1 unread */
};

/* The timer of the writer's connection: the next attempt, its time-out, or a loss to handle. */
struct store_pg_timer {
	uv_timer_t timer;
	struct store_pg *pg; /* NULL once closing (then freed in its close callback) */
};

/* The socket of the writer's connection on the loop: a new one for each socket (see conn.c). */
struct store_pg_watch {
	uv_poll_t poll;
	struct store_pg *pg; /* NULL once closing (then freed in its close callback) */
	int fd;
	int events; /* UV_READABLE | UV_WRITABLE, as started */
};

struct store_pg {
	char *uri;  /* --db as given, with any password: never in a message */
	char *name; /* the URI without its password, for messages (store_pg_display()) */
	struct store_db_options opts;
	int version;  /* the schema version of the store */
	int made;     /* this open created the store (store_pg_discard() drops it again) */
	PGconn *conn; /* the writer's connection; NULL while down */
	enum store_pg_state state;
	struct store_pg_flight flight;
	int needs_rollback; /* the last transaction failed inside BEGIN: ROLLBACK first */

	/* the write port: the turn's writes, and the committed transactions in ticket order */
	struct store_pg_tx *turn;    /* owned; NULL until the turn's first write */
	struct store_pg_txq queue;   /* owned: committed, unanswered; the first may be in flight */
	uint64_t next_ticket;        /* the last ticket given */
	struct strmap live;          /* game id -> struct store_pg_live (owned): see write.c */
	int sync_rc;                 /* before start(): the outcome of the commit in flight */
	struct store_error sync_err; /* ... and why */

	/* after start(): the loop's side */
	uv_loop_t *loop; /* borrowed; NULL before start() */
	store_done_cb done;
	void *done_arg;
	struct store_pg_watch *watch;   /* owned until closing; NULL when none */
	int stopped;                    /* stop() was called: no more attempts */
	int lost_pending;               /* a send failed: store_pg_lost() runs from the timer */
	unsigned backoff_ms;            /* the wait before the next attempt */
	unsigned attempts;              /* attempts since the connection was lost */
	uint64_t down_since;            /* uv_now() when it was lost */
	int refused;                    /* the last setup found another writer holding the lock */
	struct store_pg_timer *timer_h; /* owned until closing; NULL before start() */

	PGconn *copy_conn; /* the connection a copy's statements are prepared on (store-pg-copy.c);
	                    * borrowed: conn, or NULL while not prepared */
};

/* --- store-pg-conn.c */

/* The store error of an SQLSTATE (its class decides; NULL: the connection is gone). */
int store_pg_sqlstate_code(const char *sqlstate);
/* Fill err from a failed result r of conn (r NULL: the connection's error): "name: what: ...". */
int store_pg_res_fail(const char *name, PGconn *conn, const PGresult *r, const char *what,
                      struct store_error *err);
/* The URI without its password (a new string), for messages. */
char *store_pg_name(const char *uri);
/* A new blocking connection to uri (name for messages): 0 and *out, or STORE_EUNAVAIL,
 * STORE_EINVAL with err. */
int store_pg_connect(const char *uri, const char *name, PGconn **out, struct store_error *err);
/* Run sql without parameters on conn, blocking; its rows are dropped. */
int store_pg_exec(PGconn *conn, const char *name, const char *sql, const char *what,
                  struct store_error *err);
/* Run sql, blocking, whose answer is one integer (0 for NULL): 0 and *out, STORE_ENOTFOUND for no
 * row, or an error. */
int store_pg_int(PGconn *conn, const char *name, const char *sql, int64_t *out,
                 struct store_error *err);
/* After a send: flush what libpq holds, watching the socket for room while some is left. Returns
 * 0, or -1 when the connection failed (then the loss is handled, later). */
int store_pg_flush(struct store_pg *pg);
/* Before start(): read the answers of what is in flight until there is none (poll()). */
void store_pg_wait(struct store_pg *pg);
/* The connection failed (why: libpq's words): every ticket waiting fails with STORE_EUNAVAIL,
 * the connection goes, and after start() another is sought. */
void store_pg_lost(struct store_pg *pg, const char *why);
/* The same, from the loop's next turn (a send failed inside commit()). */
void store_pg_lost_later(struct store_pg *pg);
/* A new connection's setup flight ended: rc 0 (ready), or why not. */
void store_pg_setup_done(struct store_pg *pg, int rc, const struct store_error *err);

/* --- store-pg-schema.c */

/*
 * What the connection's current schema holds: 0 and *version for a hokitod store; 1 for an
 * empty schema (no table at all); or STORE_ECONFLICT (another application's tables, or
 * hokito_meta without our marker), STORE_EVERSION (newer than ours), or another error.
 */
int store_pg_schema_inspect(PGconn *conn, const char *name, int *version, struct store_error *err);
/* Open's schema step: inspect, then (a writer) create or migrate in one transaction under the
 * migration lock. *version gets the schema the store is at. Returns 0, 1 when it created the
 * store (the schema held nothing), or an error. */
int store_pg_schema_open(PGconn *conn, const char *name, const struct store_db_options *o,
                         int *version, struct store_error *err);
/* The backend's discard: a store that this open created (made) is dropped again; then closed. */
void store_pg_discard(void *impl);

/* --- store-pg-write.c */

/* The write port on pg (borrowed for the port's life). */
void store_pg_write_port(void *impl, struct store_write_port *out);
/* Send a new connection's setup flight: the writer's lock, the session's settings, the schema
 * version, the write statements prepared; then its sync. Returns 0, or -1 if the send failed. */
int store_pg_setup_send(struct store_pg *pg);
/* Read every answer libpq holds for what is in flight; act on the syncs. */
void store_pg_results(struct store_pg *pg);
/* Fail every committed transaction waiting (in ticket order) with rc and err. */
void store_pg_fail_all(struct store_pg *pg, int rc, const struct store_error *err);
/* The next committed transaction goes out, if none is in flight and the connection is ready. */
void store_pg_send_next(struct store_pg *pg);
/* Forget the turn's writes, every waiting transaction (unanswered) and the live games. */
void store_pg_write_clear(struct store_pg *pg);
/* A game loaded at start-up, not finished, whose last event is last. */
void store_pg_live_set(struct store_pg *pg, const char *game_id, int64_t last);
/* A new statement which in the turn's transaction, and its parameters one by one, as the ops
 * queue theirs (for the backend's other writes: store-pg-copy.c). t NULL is an SQL NULL; every
 * value is copied. */
struct store_pg_stmt *store_pg_stmt_add(struct store_pg *pg, int which);
void store_pg_param_text(struct store_pg *pg, struct store_pg_stmt *s, const char *t);
void store_pg_param_int(struct store_pg *pg, struct store_pg_stmt *s, int64_t v);
void store_pg_param_double(struct store_pg *pg, struct store_pg_stmt *s, double v);

/* --- store-pg-read.c */

/* A read port on a new connection of its own (store_backend.reader_open); on a store opened
 * without the writer's lock, on its connection, in the moment it reads (loop_only). */
int store_pg_reader_open(void *impl, struct store_read_port *out, struct store_error *err);
/* The start-up reads of the write port (store-port.h), on the writer's connection, before
 * start() (STORE_EINVAL after). */
int store_pg_meta_get(void *impl, const char *key, int64_t *value, struct store_error *err);
int store_pg_load(void *impl, unsigned recent, store_load_cb cb, void *ctx,
                  struct store_error *err);
int store_pg_sessions_load(void *impl, int (*cb)(void *ctx, const struct store_session *s),
                           void *ctx, struct store_error *err);
int store_pg_accounts_load(void *impl, int (*cb)(void *ctx, const struct store_account *a),
                           void *ctx, struct store_error *err);
int store_pg_ratings_load(void *impl, int (*cb)(void *ctx, const struct store_rating *r), void *ctx,
                          struct store_error *err);
int store_pg_rated_pairs_load(void *impl, int64_t since_ms,
                              int (*cb)(void *ctx, int64_t a, int64_t b, int64_t ended_ms),
                              void *ctx, struct store_error *err);

/* --- store-pg-copy.c: the write port's ops of a copy of a whole store (store-port.h) */

int store_pg_copy_game_put(void *impl, const struct store_game *g, const struct store_event *ev,
                           size_t nevents, struct store_error *err);
int store_pg_copy_rating_change_put(void *impl, const char *game_id,
                                    const struct store_rating_change *c, struct store_error *err);
int store_pg_copy_rating_pair_put(void *impl, const struct store_rating_pair *p,
                                  struct store_error *err);
int store_pg_copy_rating_put(void *impl, const struct store_rating *r, struct store_error *err);
/* A store opened without the writer's lock (open): one read-only REPEATABLE READ transaction
 * begun on its connection, its snapshot taken now; every read of its ports is made in it (the
 * write port's start-up reads, and the read port store_pg_reader_open() gives on it). */
int store_pg_moment_begin(struct store_pg *pg, struct store_error *err);

/* --- store-pg-check.c */

/* hokitod --check on the database of uri (store_backend.check). */
int store_pg_check(const char *uri, void (*found)(void *ctx, const char *text), void *ctx,
                   struct store_error *err);

/* Send what the database says on conn besides its answers to the log (store-pg-conn.c). */
void store_pg_notices(PGconn *conn);

#endif
