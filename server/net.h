/*
 * net.h: the network layer of hokitod: the listening socket and the connections, on libuv.
 *
 * It cuts bytes into whole lines for the layer above (ops->line) and writes back the lines it is
 * given (net_send()), and it enforces the limits that protect the server: line length, hello
 * deadline, pending output per client, input held per client (a connection whose request waits
 * off the loop is not read: net_pause()), number of clients, connections per source address (an
 * IPv4 address or an IPv6 /64, quota.h), TCP keepalive. It knows nothing about games: what a
 * line means, and who a peer is, are the layer above's (node.c). Output is held per turn until the
 * turn pipeline (turn.h) releases it. A second listener may take TLS connections
 * (net_listen_tls()): the engine of protocol/tls.h wraps their bytes, and every limit holds for
 * them from the first byte.
 */
#ifndef HOKITO_SERVER_NET_H
#define HOKITO_SERVER_NET_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "session.h"
#include "wire.h"

struct net_config {
	size_t max_line;           /* bytes of an input line */
	size_t max_output;         /* bytes waiting to be written to one client */
	size_t max_queued;         /* bytes read from a connection at once: what of its input may
	                              wait unhandled while it is paused (net_pause()) */
	unsigned max_clients;      /* connections served at once */
	uint64_t hello_timeout_ms; /* time to say hello */
	uint64_t close_timeout_ms; /* time a closing connection may take to flush */
	unsigned max_per_addr;     /* connections at once from one address (0: no limit) */
	unsigned keepalive_s;      /* TCP keepalive: idle seconds before the first probe (0: off) */
};

/*
 * What the network layer hands up. peer is the layer above's slot, embedded in the connection
 * (struct lobby_peer: the network layer never looks into it); it is valid until ops->gone.
 */
struct net_ops {
	/*
	 * A whole line of peer (line, len: without its '\n' or '\r\n', never blank), borrowed for
	 * the call. Returns whether peer has said hello by now: its hello deadline stops then. May
	 * call net_send() and net_close() for any peer, never net_reap().
	 */
	int (*line)(void *arg, struct lobby_peer *peer, const char *line, size_t len);
	/* peer's connection is going (closed by either side, or doomed): once, at its reaping. */
	void (*gone)(void *arg, struct lobby_peer *peer);
	/*
	 * Optional (NULL): n more lines of peer (whole, not blank) were read behind the line that
	 * paused it (net_pause()): they wait in its input for net_resume(), and may be counted now,
	 * as they arrive. n 0: every line that waited so was handed up. Never called from
	 * ops->line.
	 */
	void (*queued)(void *arg, struct lobby_peer *peer, size_t n);
	/* Optional (NULL): the output of turns up to turn was just released (net_release()). */
	void (*released)(void *arg, uint64_t turn);
	void *arg;
};

struct net;

/* Create the network layer on loop; cfg and ops are copied. Free it with net_free(). */
struct net *net_create(uv_loop_t *loop, const struct net_config *cfg, const struct net_ops *ops);

/*
 * Queue a line for peer (w borrowed: a reference is taken), held until its turn is released. A
 * client whose pending output would pass max_output is dropped instead (at the next reap).
 */
void net_send(struct lobby_peer *peer, struct wire *w);

/* Close peer once what is queued is written (a session resumed elsewhere). */
void net_close(struct lobby_peer *peer);

/*
 * The layer above waits for something of peer's (a store read, a password hash): hand up none of
 * its lines, and stop reading it, until net_resume(). What it sent after the line that paused it
 * (the rest of that read: max_queued bytes at most) waits in its input. May be called from
 * ops->line.
 */
void net_pause(struct lobby_peer *peer);

/*
 * What peer waited for is answered: its lines go up again, those that waited first, in order,
 * then it is read again; this happens at the next net_reap(), outside the layer above, so it may
 * be called from inside it. welcomed: peer has said hello by now (its hello deadline stops, as
 * when ops->line says so).
 */
void net_resume(struct lobby_peer *peer, int welcomed);

/* The printable address of peer's connection, for the log. Borrowed. */
const char *net_peer_addr(const struct lobby_peer *peer);

/* The turn under way: what is sent now is released with it. */
uint64_t net_turn(const struct net *n);

/* End the turn under way: returns its number; what is sent from now on belongs to the next. */
uint64_t net_turn_end(struct net *n);

/* The lines of every turn up to turn may be written: write what every client may write now. */
void net_release(struct net *n, uint64_t turn);

/*
 * The store could not make the turn under way durable (turn.c): every client that got a line in
 * it keeps all its lines, of this turn and of the later ones, until net_unhold(), whatever
 * net_release() says; the others' lines go as their turns are released.
 */
void net_hold_turn(struct net *n);

/*
 * The held turns are durable now: the clients kept by net_hold_turn() write their lines as their
 * turns are released. With drop (a stop while the store is still down), their lines are dropped
 * unsent and they are closed at the next reap.
 */
void net_unhold(struct net *n, int drop);

/*
 * Reap the doomed clients: tell the layer above (ops->gone), then close. Call at the end of every
 * callback that called the layer above, outside it.
 */
void net_reap(struct net *n);

/*
 * Listen on host:port (port 0: the OS picks). Writes the bound address ("127.0.0.1:7777",
 * "[::1]:7777") into bound. Returns 0 or a negative libuv error.
 */
int net_listen(struct net *n, const char *host, int port, char *bound, size_t size);

struct tls_server;

/*
 * Listen for TLS connections on host:port as net_listen() does, each served with tls's current
 * certificate (borrowed: it must outlive the network layer; tls_server_reload() on it changes the
 * certificate of the connections accepted from then on). Returns 0 or a negative libuv error.
 */
int net_listen_tls(struct net *n, const char *host, int port, struct tls_server *tls, char *bound,
                   size_t size);

/*
 * Begin a clean stop: stop listening, tell every client (bye), flush what is queued (as turns are
 * released), close.
 */
void net_shutdown(struct net *n);

/* Whether net_shutdown() was called and every connection is closed. */
int net_stopped(const struct net *n);

/* Free the network layer once the loop has no more of its handles. Accepts NULL. */
void net_free(struct net *n);

#endif
