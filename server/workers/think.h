/*
 * think.h: the computer players' thread pool: each search runs on libuv's thread pool, never on
 * the loop thread, and its move is handed back on the loop (think.c).
 *
 * It knows the rules engine and the search (common/), not the lobby: a found move goes to
 * ops->move with the game id and ply it was asked for, and the game layer decides there whether
 * it still counts (lobby_computer_move()). A game that ends cancels its search (think_cancel()),
 * and the pool is bounded (think_busy()): a crowd of abandoned games against the strongest level
 * cannot make the computer's other opponents wait. Deep searches (levels 5 to 8, seconds each)
 * take at most two of the thread pool's threads at once and wait their turn beyond; shallow ones
 * (levels 1 to 4, milliseconds) never wait behind them.
 */
#ifndef HOKITO_SERVER_THINK_H
#define HOKITO_SERVER_THINK_H

#include <stdint.h>

#include <uv.h>

#include "game.h"

struct think;

struct think_ops {
	/*
	 * The computer found move (its text, borrowed) for ply of game_id: called on the loop
	 * thread, outside any game layer call. Not called for a search cancelled by think_stop().
	 */
	void (*move)(void *arg, const char *game_id, int64_t ply, const char *move);
	void *arg;
};

/*
 * A pool on loop holding at most max searches queued or running (0: no bound; think_busy());
 * ops is copied. Returns a new pool; free it with think_free().
 */
struct think *think_create(uv_loop_t *loop, const struct think_ops *ops, unsigned max);

/* Whether the pool holds its maximum of searches (a new game against the computer must wait). */
int think_busy(const struct think *pool);

/* The searches held now: waiting for a place, queued on the thread pool or running. */
unsigned think_jobs(const struct think *pool);

/*
 * The game game_id is over or gone: its search, queued or running, stops now (a running one at
 * its next check of the flag, as at think_stop()) and its move is dropped; it no longer counts
 * against the pool's maximum. game_id is borrowed.
 */
void think_cancel(struct think *pool, const char *game_id);

/*
 * Queue a search for position g (copied: borrowed for this call only) at level, with the noise
 * seed seed and at most time_ms of real time, for ply of game_id: the signature of
 * lobby_ops.think, arg being the pool. Never blocks.
 */
void think_request(void *arg, const char *game_id, int64_t ply, const struct game *g, int level,
                   uint64_t seed, uint64_t time_ms);

/*
 * Stop: queued searches are cancelled and running ones told to stop at their next check of the
 * flag; their moves are dropped. The loop runs until their callbacks are done.
 */
void think_stop(struct think *pool);

/* Free the pool once the loop has run every search's callback. Accepts NULL. */
void think_free(struct think *pool);

#endif
