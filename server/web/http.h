/*
 * http.h: hokitod's HTTP face: HTTP/1.1 and WebSocket on the node's libuv loop, through
 * libwebsockets (its libuv event library, on our loop: no thread, no loop of its own).
 *
 * One libwebsockets context serves up to two listeners (vhosts): --listen-http in clear and
 * --listen-https with the certificate of --listen-tls. GET /ws upgrades to the protocol over
 * WebSocket (ws.h); the other paths are answered from a table of routes (http.c: the pages for
 * people of web-pages.c, the operators' pages of web-metrics.c). Every answer carries the same
 * safety headers (a strict Content-Security-Policy, X-Content-Type-Options, no framing); requests
 * are counted per source address and refused with 429 and Retry-After past the rate. No HTTP or
 * WebSocket parser is ours: libwebsockets parses both. It knows nothing about games: what it shows
 * comes through struct http_ops, filled by the node.
 */
#ifndef HOKITO_SERVER_HTTP_H
#define HOKITO_SERVER_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <uv.h>

#include "net.h"

struct archive_read;
struct http_reply;

/* An address range allowed to read /metrics (--metrics-allow ADDR/BITS). */
struct http_allow {
	int family;             /* AF_INET or AF_INET6 */
	unsigned char addr[16]; /* the network, in network order */
	unsigned bits;          /* prefix length */
};

#define HTTP_MAX_ALLOW   16 /* --metrics-allow ranges */
#define HTTP_MAX_ORIGINS 16 /* --http-origin origins */

struct http_config {
	const char *host, *tls_host; /* --listen-http's, --listen-https's address, or NULL */
	int port, tls_port;          /* their ports (0: the OS picks) */
	const char *cert_file;       /* --listen-https: --tls-cert (PEM, the chain after it) */
	const char *key_file;        /* --tls-key */
	const char *origins[HTTP_MAX_ORIGINS]; /* --http-origin: more origins /ws takes */
	size_t norigins;
	struct http_allow allow[HTTP_MAX_ALLOW]; /* --metrics-allow, beside loopback */
	size_t nallow;
	unsigned rate_per_addr;      /* --max-http-rate-per-addr: requests a second (0: no limit) */
	size_t max_line;             /* a /ws message (net_config.max_line) */
	unsigned keepalive_s;        /* TCP keepalive (net_config.keepalive_s; 0: off) */
	unsigned timeout_s;          /* a request's headers must come within (hello timeout) */
	unsigned max_history_offset; /* /api/games: the deepest offset (--max-history-offset) */
};

/* stream_ok(): the game has events that wait for the store (503, Retry-After). */
#define HTTP_STREAM_WAIT (-2)

/* What the pages show, from the node. */
struct http_ops {
	/* Write the metrics in the Prometheus text format to out. */
	void (*metrics)(void *arg, FILE *out);
	/* Whether the server is ready (store writable, accepting): 1, or 0 with why filled. */
	int (*ready)(void *arg, char *why, size_t size);
	/*
	 * Run store read r (stolen) off the loop, queued fairly by r->addr (reader.h); its answer
	 * comes back through http_read_done(). Returns 0, or -1 when that address has its maximum
	 * of reads out (--max-reads-per-addr: r is freed). NULL without a store (the read API
	 * answers 404).
	 */
	int (*read)(void *arg, struct archive_read *r);
	/* Fill out with the answer of read r (borrowed) for the API (web-api.h). */
	void (*answer)(void *arg, const struct archive_read *r, struct http_reply *out);
	/* The number of the open account called name, or 0 for none. */
	int64_t (*account)(void *arg, const char *name);
	/*
	 * Whether game id is one a stream may follow (held in memory, not private): 1, else 0;
	 * HTTP_STREAM_WAIT while some of its events wait for the store (PROTOCOL.md 12.3: what is
	 * not stored is shown to nobody), so the stream is asked for again later.
	 */
	int (*stream_ok)(void *arg, const char *id);
	/*
	 * Start the stream of game id on peer (a link of the network layer, NET_HTTP): its state,
	 * or its events after seq since (since >= 0), then each event as it comes.
	 */
	void (*stream_start)(void *arg, struct lobby_peer *peer, const char *id, int64_t since);
	void *arg;
};

/* Counts of the HTTP side, for the metrics. */
struct http_stats {
	uint64_t requests;       /* answered, any status */
	uint64_t refused_rate;   /* 429: over --max-http-rate-per-addr */
	uint64_t refused_origin; /* /ws upgrades refused for their Origin */
	uint64_t refused_reads;  /* 429: a store read past --max-reads-per-addr */
};

struct http;

/* The high bit of a read's ticket marks it the HTTP side's (node.c routes its answer here). */
#define HTTP_READ_TICKET (1ull << 63)

/*
 * Serve cfg's listeners on loop, WebSocket connections joining net (borrowed: it must outlive the
 * HTTP side's connections). cfg and ops are copied (cfg's strings are borrowed). On success
 * *out is the new HTTP side and its bound addresses are in bound and tls_bound (size bytes each,
 * "" for a listener not asked for). Returns 0, or -1 (logged: a port taken, a certificate that
 * did not load).
 */
int http_create(uv_loop_t *loop, struct net *net, const struct http_config *cfg,
                const struct http_ops *ops, struct http **out, char *bound, char *tls_bound,
                size_t size);

/*
 * SIGHUP: --listen-https takes the certificate and key files again for new connections (logged;
 * on failure the old pair is kept). Returns 1, or 0 when there is no --listen-https (h NULL).
 */
int http_reload(struct http *h);

/*
 * Begin a clean stop: no new request is served (503), /ws connections close with
 * WS_CLOSE_GOING_AWAY after their bye (the network layer's shutdown sends it).
 */
void http_shutdown(struct http *h);

/*
 * The network layer has stopped: close the listeners and every HTTP connection; the loop ends
 * once libwebsockets has closed its handles.
 */
void http_close(struct http *h);

/*
 * The answer to a read this side asked for (r stolen: its ticket has HTTP_READ_TICKET): it goes
 * to its request's connection, or is dropped if that connection closed meanwhile.
 */
void http_read_done(struct http *h, struct archive_read *r);

/* Count the requests (struct http_stats). */
void http_stats(const struct http *h, struct http_stats *out);

/* Free the HTTP side once the loop has stopped. Accepts NULL. */
void http_free(struct http *h);

/* --- for the modules of the routes (web-*.c) --- */

/* A GET (or HEAD) request, borrowed for the route's call. */
struct http_request {
	const char *path;                  /* without the query */
	const struct sockaddr_storage *ss; /* the peer */
	const char *addr;                  /* its key (net_addr_origin()), "" if none */
	int loopback;                      /* it is a loopback address */
	int tls;                           /* it came over --listen-https */
	void *conn;                        /* the connection (http_query(), http_defer()) */
};

/* The answer a route fills. */
struct http_reply {
	unsigned status;      /* 200, 404, ... */
	const char *type;     /* Content-Type (static) */
	char *body;           /* owned by the reply (malloc); NULL for none */
	size_t len;           /* bytes of body */
	unsigned retry_after; /* seconds, for a 429 or 503 (0: no header) */
	int cors;             /* Access-Control-Allow-Origin: * (the public read API) */
};

/* A route's handler: fill out for rq. */
typedef void (*http_get_fn)(struct http *h, const struct http_request *rq, struct http_reply *out);

/* Fill r with status, type (static) and a body made like printf's. */
void http_reply_printf(struct http_reply *r, unsigned status, const char *type, const char *fmt,
                       ...) __attribute__((format(printf, 4, 5)));

/*
 * The value of query member name ("offset") of rq into buf (size bytes, NUL-terminated).
 * Returns its length, or -1 when there is none (or it does not fit).
 */
int http_query(const struct http_request *rq, const char *name, char *buf, size_t size);

/*
 * Answer rq with a stream of lines (application/x-ndjson, closed by the server) that the node
 * writes through the network layer (ops->stream_start: net_send()); the route leaves out
 * untouched. Returns 0, or -1 when game id cannot be followed (the route answers 404).
 */
int http_stream(struct http *h, const struct http_request *rq, const char *id, int64_t since);

/*
 * Answer rq later, from the store: read r (stolen) goes to ops->read under rq's address, and its
 * answer is made by ops->answer once it comes. The route leaves out untouched. Returns 0, or -1
 * when there is no store (r is freed; the route answers itself); when the address has its
 * maximum of reads out, out is filled with 429 and Retry-After and 0 is returned.
 */
int http_defer(struct http *h, const struct http_request *rq, struct archive_read *r,
               struct http_reply *out);

/* The node's ops and the configuration h was made with (borrowed). */
const struct http_ops *http_ops_of(const struct http *h);
const struct http_config *http_config_of(const struct http *h);

#endif
