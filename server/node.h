/*
 * node.h: one hokitod server node: the rooms of the server put together on one libuv loop.
 *
 * A node owns the network layer (net.h: connections), the HTTP side (http.h: WebSocket
 * connections join the network layer; the metrics come from here), the game layer (lobby.h and its
 * rooms), the turn pipeline (turn.h: group commit, the release of output), the computer players'
 * thread pool (think.h), the fan-out port's in-process backend (fanout.h) and the game layer's two
 * timers (the tick, the wake-up at its next deadline). It is the one place that knows them all: it
 * turns a connection's lines into requests for the game layer, and the game layer's lines, wake-ups
 * and searches into calls to the others, so that none of them calls another sideways.
 */
#ifndef HOKITO_SERVER_NODE_H
#define HOKITO_SERVER_NODE_H

#include <stddef.h>

#include <uv.h>

#include "lobby.h"
#include "net.h"
#include "store-db.h"

struct node;

/*
 * --keep-days: a batch every second, the first a second after the start, of at most 50 games:
 * some 2 to 5 ms of the loop with their events (games of 21 moves, tests/bench/keep.py; a batch
 * of 500 held it 80 to 170 ms), and still 4 million games a day.
 */
#define NODE_SWEEP_MS       1000
#define NODE_SWEEP_FIRST_MS 1000
#define NODE_SWEEP_BATCH    50
/* --unused-account-days: accounts a batch looks at, at most (each a few indexed lookups) */
#define NODE_UNUSED_SCAN    1000

/*
 * Create a node on loop with its lobby made from lcfg (whose store is ignored: the node lends the
 * lobby store's write port) and store (borrowed for the node's life, may be NULL: then nothing is
 * kept and history is empty). Returns a new node; free it with node_free() after the loop has
 * stopped.
 */
struct node *node_create(uv_loop_t *loop, const struct net_config *ncfg,
                         const struct lobby_config *lcfg, struct store_db *store);

/*
 * Rebuild the games and sessions from the node's store (restore_lobby()) and commit what that
 * tidied. Call once, before node_listen(). Returns the number of games rebuilt, or a negative store
 * error with err filled: the store is damaged and the server must not start; from then on nothing
 * more is written to the store (what the rebuild queued is rolled back by store_db_close()).
 */
int node_restore(struct node *nd, struct store_error *err);

/*
 * Give the store's backend the loop (turn_offload()). Call once, after
 * node_restore(), before node_listen(). Returns 0, or a negative store error with err filled: the
 * server must not start; nothing more is written to the store.
 */
int node_offload(struct node *nd, struct store_error *err);

/*
 * Take the operators' commands on the Unix socket at path (admin.h: mode 0600, root and the
 * server's own user only), removed at the stop. Call once, after node_restore(). Returns 0 or a
 * negative libuv error (UV_EADDRINUSE: a server answers there already).
 */
int node_admin(struct node *nd, const char *path);

/*
 * Listen on host:port (port 0: the OS picks). Writes the bound address ("127.0.0.1:7777",
 * "[::1]:7777") into bound. Returns 0 or a negative libuv error.
 */
int node_listen(struct node *nd, const char *host, int port, char *bound, size_t size);

/* Listen for TLS connections (net_listen_tls(): tls borrowed, outlives the node). */
int node_listen_tls(struct node *nd, const char *host, int port, struct tls_server *tls,
                    char *bound, size_t size);

struct http_config;

/*
 * Serve HTTP and WebSocket (http.h) on cfg's listeners; their bound addresses go into bound and
 * tls_bound. Call once, after node_restore(). Returns 0 or -1 (logged).
 */
int node_listen_http(struct node *nd, const struct http_config *cfg, char *bound, char *tls_bound,
                     size_t size);

/*
 * SIGHUP: what reloads besides the TLS listener's certificate (--listen-https's, logged).
 * Returns whether there was any.
 */
int node_reload(struct node *nd);

/*
 * --keep-days: from now on, every NODE_SWEEP_MS, delete a batch of at most NODE_SWEEP_BATCH
 * finished games that had no account at either seat and ended more than days days ago, in the
 * turn's group commit (durable_sweep()), with a log line for a batch that deleted any. 0 (or no
 * store): keep everything. Call once, before the loop runs.
 */
void node_keep_days(struct node *nd, unsigned days);

/*
 * --unused-account-days: from now on, every NODE_SWEEP_MS, release a batch of at most
 * NODE_SWEEP_BATCH accounts made more than days ago that were never used (no game, no rating,
 * no operator's or owner's state, no session: auth_account_release()), in the turn's group
 * commit, freeing their names, with a log line for a batch that released some. 0, or a node
 * without a store: nothing happens.
 */
void node_unused_account_days(struct node *nd, unsigned days);

/*
 * Begin a clean stop: the timers stop, searches are cancelled, every client is told (bye), what
 * is queued is flushed. The loop returns once every connection is closed.
 */
void node_shutdown(struct node *nd);

/* Free the node and everything it owns once the loop has stopped. Accepts NULL. */
void node_free(struct node *nd);

#endif
