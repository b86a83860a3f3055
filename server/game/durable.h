/*
 * durable.h: hokitod's game events on their way to the store (its write port, store-port.h), and
 * the group commit.
 *
 * Every game event is published once through the fan-out port (fanout.h), whose in-process
 * backend hands it here with all it needs (the table, whose seats carry the seated players'
 * tokens, and the line); the id counters come with each commit: nothing here calls back into the
 * game layer.
 * durable_event() turns it into the store's writes (a new game, a seat and the player's session,
 * the start, the event line itself, the end); they only queue in the turn's transaction.
 * durable_commit() runs once per turn of the event loop, after the game layer is done and before
 * any of the turn's output is written to a socket: only what it made durable may be acknowledged
 * (with a store that keeps nothing, after: durable_may_lag()).
 * No libuv here; the caller owns the loop.
 */
#ifndef HOKITO_SERVER_DURABLE_H
#define HOKITO_SERVER_DURABLE_H

#include <stdint.h>

#include <jansson.h>

#include "msg.h"
#include "store-port.h"
#include "table.h"
#include "wire.h"

struct durable;

/*
 * Write game events through the store's write port st (copied; its impl borrowed for the
 * durable's life); next_player and next_game are the id counters as the store holds them now.
 * Returns a new durable.
 */
struct durable *durable_create(const struct store_write_port *st, unsigned next_player,
                               unsigned next_game);

/* Log the commit timings (durable_stats_log()) and free. Does not commit. Accepts NULL. */
void durable_free(struct durable *d);

/*
 * Queue the writes of one event of t (ev and w borrowed; ev is already applied to t, so a moved
 * event's move is t's last: struct fanout). A seated event's player session is written from t's
 * seat (its token). The writes are kept until a commit holds them (durable_retry()); a store
 * error is kept and returned by the next durable_commit(): the event has already happened in
 * memory, so nobody may hear of it before a commit holds it.
 */
void durable_event(struct durable *d, const struct table *t, int64_t seq, enum msg_type type,
                   const struct event *ev, const struct wire *w);

/*
 * The ops->unseated hook: the session of token holds no seat any more; its stored session goes
 * (in the turn's transaction), so that a restart answers it with bad_token. Errors as in
 * durable_event().
 */
void durable_unseated(struct durable *d, const char *token);

/* A new account: row (borrowed) is written in the turn's transaction, its created_ms set to the
 * wall clock first. Errors as in durable_event(). */
void durable_account_add(struct durable *d, struct store_account *row);

/* An account's hash, kind, closed or banned time changed: row (borrowed) written in the turn's
 * transaction; a closed_ms or banned_ms of -1 means now and is set to the wall clock first.
 * Errors as in durable_event(). */
void durable_account_update(struct durable *d, struct store_account *row);

/*
 * Whether store error rc takes the store down (STORE_EFULL, STORE_EUNAVAIL, STORE_EIO: the
 * writes wait and are retried) rather than stop the server.
 */
int durable_down_code(int rc);

/*
 * End of a loop turn: queue the id marks of the counters (np, ng: the numbers the next player
 * and game ids will get, lobby_counters()) if they must move (durable.c: durable_mark()), then
 * commit everything queued (one transaction for the whole turn) and time it. Returns 1 when it
 * committed something, 0 when nothing was queued, or a negative store error with err filled:
 * nothing of the turn is durable, and the caller must not send the turn's output. *ticket is the
 * write port's: 0 when the commit is durable at return, else the turn's output waits for
 * durable_done() of that ticket; the writes are kept until then. A code of durable_down_code()
 * leaves the store down: the turn's writes, and every write from now on, wait for
 * durable_retry(), and every durable_commit() returns that error until then. Any other error
 * leaves nothing to retry: the caller stops (a restart recovers the last commit).
 */
int durable_commit(struct durable *d, unsigned np, unsigned ng, uint64_t *ticket,
                   struct store_error *err);

/*
 * While the store is down: send every waiting write again, in order, with the counters (np, ng),
 * in one transaction (the writes are idempotent: a commit whose outcome was unknown may have
 * held), and commit it. Returns 1 when it held (the store is up again), 2 when its answer comes
 * later (*ticket; the store stays down until durable_done() says it held, and a second retry
 * meanwhile returns 2 too), 0 when the store was not down, or a store error (err filled): one of
 * durable_down_code() while still down, another one that the caller must stop on.
 */
int durable_retry(struct durable *d, unsigned np, unsigned ng, uint64_t *ticket,
                  struct store_error *err);

/*
 * The write port answered every commit up to ticket (store-port.h: start()'s done): with rc 0
 * their writes are durable and forgotten; returns 1 when that was a retry's (the store is up
 * again: what was kept meanwhile goes into the next commit), else 0. With rc < 0 none of the
 * commits in flight holds anything: the store is down (durable_down_code(rc)) and every kept
 * write waits for durable_retry(); returns rc. An answer to commits already given up returns 0.
 */
int durable_done(struct durable *d, uint64_t ticket, int rc, const struct store_error *err);

/* Whether a commit failed for lack of room and its writes wait (durable_retry()). */
int durable_down(const struct durable *d);

/*
 * The rebuild at a restart set the counters to np and ng (from the marks and the ids the store
 * holds): every id below them is taken, and no mark needs to move until one is given out.
 */
void durable_counters_restored(struct durable *d, unsigned np, unsigned ng);

/*
 * The id marks the store holds (player, game): no id below them is ever given out again, even
 * after a restart that lost the last turns (a kill while the store is down). A counter that
 * reaches its mark while the store is down must not give out more (lobby_ops.reserved).
 */
void durable_marks(const struct durable *d, unsigned *player, unsigned *game);

/*
 * While the store is down: the seq of the first event of game_id that waits for it (1 when the
 * game itself waits: it is not stored yet), or 0 when nothing of it waits (also while up).
 * Linear in the writes that wait, which are few: the store refuses writes meanwhile.
 */
int64_t durable_waiting_seq(const struct durable *d, const char *game_id);

/*
 * While the store is down: whether a write of account waits for it (its row, or a rating change
 * of a rated game's end). Linear in the writes that wait.
 */
int durable_waiting_account(const struct durable *d, int64_t account);

/* The writes kept since the last commit that held (while down: those that wait). */
size_t durable_waiting(const struct durable *d);

/*
 * Whether the commit may wait until the turn's output is written: the store keeps nothing across
 * a crash (":memory:"), so there is nothing to wait for, and the round trip is shorter.
 */
int durable_may_lag(const struct durable *d);

/*
 * --keep-days: queue the deletion of at most max finished games without an account at a seat
 * that ended before before_ms and have nobody seated (the store's sweep, store-port.h), in the
 * turn's transaction. Returns how many, or a store error (kept for the next durable_commit(),
 * as durable_event()'s).
 */
int durable_sweep(struct durable *d, int64_t before_ms, unsigned max);

/* --unused-account-days: queue the deletion of account id, if still unused, in the turn's
 * transaction (store_account_drop()). */
void durable_account_drop(struct durable *d, int64_t id);

/* Wall-clock time in Unix epoch milliseconds: the clock of every stored time. */
int64_t durable_wall_ms(void);

/*
 * Log how long commits blocked the loop: count, writes, mean, max, and a histogram in powers of
 * two of microseconds (at info level; every 10000 commits also at debug level).
 */
void durable_stats_log(const struct durable *d);

#endif
