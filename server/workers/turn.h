/*
 * turn.h: the turn pipeline of hokitod (Redis's beforeSleep): at the end of every loop turn the
 * turn's store writes are committed together (group commit), the backend is given the loop so
 * that a commit may be answered later, and the output the turn made is released to the
 * connections once it is durable.
 *
 * It owns the store's writer (durable.h) over the store's write port (store-port.h), whatever its
 * backend; it borrows the connections (net.h), whose held output it releases turn by turn. It
 * knows nothing about games: the id counters to commit come from a callback. See the top of
 * turn.c.
 */
#ifndef HOKITO_SERVER_TURN_H
#define HOKITO_SERVER_TURN_H

#include <stdint.h>

#include <uv.h>

#include "hist.h"
#include "net.h"
#include "store-port.h"

struct durable;
struct turn;

struct turn_ops {
	/* The numbers the next player and game ids will get (lobby_counters()). */
	void (*counters)(void *arg, unsigned *next_player, unsigned *next_game);
	/*
	 * Optional (NULL): the store went down (why: what a refused request says, a static
	 * sentence), or came back up (why NULL). Called from the end of a turn, a timer, or
	 * inside turn_store_ask().
	 */
	void (*store_changed)(void *arg, const char *why);
	void *arg;
};

/*
 * Start the pipeline on loop for the connections of net (borrowed) and the store's write port
 * (copied; its impl borrowed; NULL: the server keeps nothing, and a turn only releases its
 * output). ops is copied. Returns a new turn; free it with turn_free() after the loop has
 * stopped.
 */
struct turn *turn_create(uv_loop_t *loop, struct net *net, const struct store_write_port *port,
                         const struct turn_ops *ops);

/* The store's writer, for the fan-out port (fanout.h): borrowed; NULL without a store. */
struct durable *turn_durable(const struct turn *tp);

/*
 * Commit what the rebuild at the start queued (restore_lobby(): stale sessions); the counters it
 * set are what the store holds (durable_counters_restored()). Returns 0, or a negative store
 * error with err filled.
 */
int turn_commit_now(struct turn *tp, struct store_error *err);

/*
 * Give the store's backend the loop (the write port's start(): an SQLite file's disk waits go to
 * threads of their own, a PostgreSQL connection is watched on the loop). Call once, after the
 * rebuild, before connections come. Returns 0 (also without a store, or for a backend that needs
 * no loop), or a negative store error with err filled: nothing more is written to the store.
 */
int turn_offload(struct turn *tp, struct store_error *err);

/*
 * A request would write while the store is down: try the waiting writes again at once (unless a
 * retry ran in the last 200 ms). Returns whether the store is still down. May call
 * ops->store_changed; releases nothing (the end of the turn does).
 */
int turn_store_ask(struct turn *tp);

/*
 * While the store is down: the store_waiting notice a connection gets when its lines start
 * waiting (net_hold_peer()), borrowed; NULL while the store is up.
 */
struct wire *turn_waiting_notice(const struct turn *tp);

/* While the store is down: the first seq of game_id that waits for it (durable_waiting_seq()). */
int64_t turn_waiting_seq(const struct turn *tp, const char *game_id);

/* While the store is down: whether a write of account waits (durable_waiting_account()). */
int turn_waiting_account(const struct turn *tp, int64_t account);

/* The id marks the store holds (durable_marks()); UINT32_MAX without a store. */
void turn_marks(const struct turn *tp, unsigned *player, unsigned *game);

/*
 * While the store is down (and until the retry that held is synced): the first turn whose output
 * is held, so that what answers by turn number outside the connections (the admin socket) holds
 * that turn and the later ones too. 0 when nothing is held.
 */
uint64_t turn_held_from(const struct turn *tp);

/*
 * The server is stopping: if the store is down, one last retry; if that fails too, what waits is
 * given up (logged), and the connections whose lines were held are closed without them.
 */
void turn_shutdown(struct turn *tp);

/*
 * A start that failed: write nothing more to the store (no group commit at the turns of the
 * shutdown, whose error would be a second, misleading report); what was queued is rolled back
 * when the store closes. The store writer is freed: turn_durable() is NULL from now on.
 */
void turn_store_drop(struct turn *tp);

/* What the metrics show of the pipeline. */
struct turn_stats {
	uint64_t commits;           /* group commits that wrote */
	struct hist commit_latency; /* the loop's time in each of them */
	uint64_t downs;             /* times the store went down */
};

/* Count the commits (struct turn_stats). */
void turn_stats(const struct turn *tp, struct turn_stats *out);

/* Free the pipeline (its store writer, its threads) once the loop has stopped. Accepts NULL. */
void turn_free(struct turn *tp);

#endif
