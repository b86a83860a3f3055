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
 * them from the first byte. A connection whose bytes another module carries (a WebSocket, ws.h)
 * joins as a link (net_link_open()): the same lines in, the same held output out, the same
 * limits, through a small struct of functions (struct net_link_ops), so that the layer above
 * never knows which transport a peer is on.
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
	/* Optional (NULL): net_shutdown() was called and the last connection is now closed. */
	void (*stopped)(void *arg);
	void *arg;
};

/* The transports a connection may be on, for the log and the metrics. */
enum net_transport {
	NET_TCP = 0,
	NET_TLS = 1,
	NET_WS = 2,
	NET_HTTP = 3, /* an HTTP answer that streams lines (/api/stream/game/ID) */
	NET_NTRANSPORTS
};

/* What a transport outside the network layer does for its connection (net_link_open()). */
struct net_link_ops {
	enum net_transport transport;
	/*
	 * Write count whole lines (borrowed: take a reference to keep one; each ends in '\n'),
	 * in order, after those written before. Never calls back into the network layer.
	 */
	void (*write)(void *link, struct wire *const *w, size_t count);
	/* Bytes written and not yet handed to the kernel: counted against max_output. */
	size_t (*pending)(const void *link);
	/*
	 * Close: with flush, once what is written is out (the link then calls net_link_closed()
	 * when it is closed); without, at once, and from this call on the link never calls the
	 * network layer again for this connection.
	 */
	void (*close)(void *link, int flush);
	/*
	 * Stop handing input up (paused), or go on (!paused): the connection's request waits for
	 * a read or a password job (net_pause()). May be NULL for a link that sends nothing up.
	 * Never calls back into the network layer.
	 */
	void (*pause)(void *link, int paused);
};

/* Connections open now on each transport (refused and closing ones included). */
struct net_stats {
	unsigned open[NET_NTRANSPORTS];
	uint64_t accepted[NET_NTRANSPORTS]; /* since the start */
	uint64_t lines[NET_NTRANSPORTS];    /* lines queued for connections (net_send()) */
	uint64_t refused_clients;           /* refused by max_clients */
	uint64_t refused_per_addr;          /* refused by max_per_addr */
	uint64_t dropped_output;            /* dropped over max_output */
	uint64_t too_long;                  /* closed for a line over max_line */
	uint64_t hello_timeouts;            /* closed for no hello in time */
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
 * it keeps its lines of this turn and of the later ones until net_unhold(), whatever
 * net_release() says; the others' lines go as their turns are released. A client kept from now
 * on gets notice (borrowed, may be NULL) ahead of what it keeps (net_send_ahead()).
 */
void net_hold_turn(struct net *n, struct wire *notice);

/*
 * As net_hold_turn(), for the turns from first on (their commit's answer came later and failed):
 * every client that got a line in one of them keeps its lines from there on.
 */
void net_hold_since(struct net *n, uint64_t first, struct wire *notice);

/*
 * The game layer showed peer only what is stored, and what follows needs what waits for the
 * store (a resume, a watch while the store is down): peer keeps the lines queued from now on
 * until net_unhold(), as net_hold_turn() keeps those of a turn; notice (borrowed, may be NULL)
 * goes ahead of them if peer was not kept already.
 */
void net_hold_peer(struct lobby_peer *peer, struct wire *notice);

/*
 * Queue a line for peer (w borrowed) that tells nothing the store must hold first (a pong, the
 * store notices, the events a viewer was not shown yet, once stored): it waits for no commit and
 * goes at the end of the turn, after the lines queued before it that may go, and ahead of the
 * lines it keeps for the store.
 */
void net_send_ahead(struct lobby_peer *peer, struct wire *w);

/*
 * The held turns are durable now: the clients kept by net_hold_turn() and net_hold_peer() write
 * their lines as their turns are released, after notice (borrowed, may be NULL), sent ahead of
 * them. With drop (a stop while the store is still down), their lines are dropped unsent and
 * they are closed at the next reap.
 */
void net_unhold(struct net *n, int drop, struct wire *notice);

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
 * A connection whose bytes link carries (ops borrowed, static; link is the transport's own, handed
 * back to every op), from the source address ss (borrowed); encrypted says whether its bytes are
 * (a WebSocket over HTTPS). It is counted and limited as an accepted TCP connection is: one
 * past max_clients or max_per_addr gets its error line and is closed, and the hello deadline
 * starts now. Returns the connection's peer, valid until the link's net_link_closed() or a
 * close without flush (ops->close).
 */
struct lobby_peer *net_link_open(struct net *n, const struct net_link_ops *ops, void *link,
                                 const struct sockaddr_storage *ss, int encrypted);

/*
 * One whole message of the link's connection (line, len: borrowed, without a line end), as a
 * line read from a socket: blank ones are ignored, one longer than max_line is refused with
 * too_long and the connection closed. The doomed connections are reaped before it returns.
 */
void net_link_input(struct lobby_peer *peer, const char *line, size_t len);

/* The link's connection speaks no hello (an HTTP stream): its hello deadline stops. */
void net_link_ready(struct lobby_peer *peer);

/* The link's connection is closed (by either side): the peer goes at once. */
void net_link_closed(struct lobby_peer *peer);

/* Whether the connection of peer is closing (its last lines may still be going out). */
int net_link_closing(const struct lobby_peer *peer);

/*
 * Where ss comes from, as the limits see it: its key into key (throttle_key_from_addr(): an
 * IPv4 address or an IPv6 /64; "" when neither), and whether it is a loopback address
 * (127.0.0.0/8, ::1, or ::ffff:127.x.y.z) into *loopback. Returns 0, or -1 for no key.
 */
int net_addr_origin(const struct sockaddr_storage *ss, char key[LOBBY_PEER_KEY], int *loopback);

/* Count the connections (struct net_stats). */
void net_stats(const struct net *n, struct net_stats *out);

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
