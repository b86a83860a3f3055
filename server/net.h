/*
 * net.h: the network layer of hokitod: the listening socket, connections, and the libuv loop's
 * side of the server.
 *
 * It turns bytes into validated messages for the game layer (lobby.h) and the game layer's lines
 * back into writes, and it enforces the limits that protect the server: line length, hello
 * deadline, pending output per client, number of clients. It knows nothing about games.
 */
#ifndef HOKITO_SERVER_NET_H
#define HOKITO_SERVER_NET_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "lobby.h"
#include "store.h"

struct net_config {
	size_t max_line;           /* bytes of an input line */
	size_t max_output;         /* bytes waiting to be written to one client */
	unsigned max_clients;      /* connections served at once */
	uint64_t hello_timeout_ms; /* time to say hello */
	uint64_t close_timeout_ms; /* time a closing connection may take to flush */
};

struct net;

/*
 * Create the network layer on loop with its lobby (made from lcfg). Returns a new net; free it
 * with net_free() after the loop has stopped.
 */
struct net *net_create(uv_loop_t *loop, const struct net_config *cfg,
                       const struct lobby_config *lcfg);

/*
 * Rebuild the games and sessions from the store of lcfg (restore_lobby()) and commit what that
 * tidied. Call once, before net_listen(). Returns the number of games rebuilt, or a negative store
 * error with err filled: the store is damaged and the server must not start; from then on nothing
 * more is written to the store (what the rebuild queued is rolled back by store_close()).
 */
int net_restore(struct net *n, struct store_error *err);

/*
 * Hand a file store's disk waits to threads of their own (checkpoints; with --fsync always the
 * sync of each group commit): see the top of net.c. Call once, after net_restore(), before
 * net_listen(). Returns 0 (also for a temporary store, and for an SQLite built without threads,
 * where the loop keeps waiting for the disk, with a warning in the log), or a negative store
 * error with err filled: the server must not start; nothing more is written to the store.
 */
int net_offload(struct net *n, struct store_error *err);

/*
 * Listen on host:port (port 0: the OS picks). Writes the bound address ("127.0.0.1:7777",
 * "[::1]:7777") into bound. Returns 0 or a negative libuv error.
 */
int net_listen(struct net *n, const char *host, int port, char *bound, size_t size);

/*
 * Begin a clean stop: stop listening, tell every client (bye), flush what is queued, close. The
 * loop returns once every connection is closed.
 */
void net_shutdown(struct net *n);

/* Free the network layer and its lobby once the loop has no more of its handles. Accepts NULL. */
void net_free(struct net *n);

#endif
