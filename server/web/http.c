/*
 * http.c: the libwebsockets context of hokitod on the node's loop, its listeners, and the
 * answers to plain HTTP requests.
 *
 * The context runs on libwebsockets' libuv event library with our loop as its foreign loop: its
 * sockets and timers are handles of our loop, served by uv_run() as ours are; it has no thread
 * and no loop of its own, and it must be destroyed (http_close()) before the loop can end. One
 * protocol serves both kinds of connection: its HTTP callbacks answer here, its WebSocket ones go
 * to ws.c (GET /ws only: ws_filter()).
 *
 * A request is answered at once, on the loop, from the table of routes (routes[]: a path and a
 * handler that fills a struct http_reply; what it shows must be cheap to make: counters, never a
 * store read). The headers go out in the HTTP callback and the body from the writable callback,
 * in pieces of HTTP_CHUNK bytes, each when the socket takes it. Only GET and HEAD are served
 * (405 for the others, then the connection closes: its body is not read); an unknown path is 404;
 * past --max-http-rate-per-addr a second from one address, 429 with Retry-After (a token bucket,
 * quota.h), one log line per HTTP_LOG_MS for such refusals. libwebsockets refuses what does not
 * parse (400), headers over its limit (431) and a request line too long (414).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <sys/queue.h>
#include <string.h>

#include <libwebsockets.h>

#include "archive.h"
#include "http.h"
#include "log.h"
#include "osrand.h"
#include "quota.h"
#include "web-api.h"
#include "web-metrics.h"
#include "web-pages.h"
#include "wire.h"
#include "ws.h"
#include "xmalloc.h"

#define HTTP_CHUNK  16384 /* bytes of body per write */
#define HTTP_LOG_MS 10000 /* one line at most this often for each kind of refusal */

/*
 * What every answer says, whatever its path: no script, style or frame from elsewhere, no
 * inline script, never framed, never sniffed into another type, no referrer leaked.
 */
static const struct {
	const char *name, *value;
} safety_headers[] = {
        {"content-security-policy:",
         "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
         "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"},
        {"x-content-type-options:", "nosniff"},
        {"x-frame-options:", "DENY"},
        {"referrer-policy:", "no-referrer"},
        {"cross-origin-opener-policy:", "same-origin"},
};

/* The paths served, each with its handler; a prefix route takes every path under it. */
static const struct http_route {
	const char *path;
	int prefix; /* path is a prefix ("/g/": /g/ID), with something after it */
	http_get_fn get;
} routes[] = {
        {"/", 0, web_lobby_get},
        {"/g/", 1, web_game_get},
        {"/@/", 1, web_profile_get},
        {"/rules", 0, web_rules_get},
        {"/static/", 1, web_static_get},
        {"/api/games", 0, web_api_games_get},
        {"/api/game/", 1, web_api_game_get},
        {"/api/user/", 1, web_api_user_get},
        {"/api/leaderboard/", 1, web_api_board_get},
        {"/api/stream/game/", 1, web_api_stream_get},
        {"/metrics", 0, web_metrics_get},
        {"/healthz", 0, web_healthz_get},
        {"/readyz", 0, web_readyz_get},
};

struct http {
	uv_loop_t *loop;
	struct net *net;
	struct http_config cfg;
	struct http_ops ops;
	struct lws_context *ctx; /* NULL once destroyed (libwebsockets clears it: pcontext) */
	struct lws_vhost *vhost, *tls_vhost;
	struct ws *ws;
	struct quota *rate;      /* requests per address */
	uint64_t rate_logged_at; /* when a 429 was last logged */
	unsigned rate_unlogged;  /* 429s since */
	int stopping;
	int closed; /* http_close() was called */
	struct http_stats stats;
	uint64_t next_ticket;            /* of the reads (http_defer()) */
	TAILQ_HEAD(, http_pss) deferred; /* requests waiting for a store read */
};

/* libwebsockets' per-connection slot. */
struct http_pss {
	void *ws;        /* ws.c's state of a /ws connection (ws_callback()) */
	char *body;      /* the answer's body being written (owned), or NULL */
	size_t len, off; /* its length, what is written */
	int close_after; /* close once written (a request whose body is not read) */
	int answering;   /* headers written, the body (if any) not yet */
	struct lws *wsi;
	uint64_t ticket;            /* the read it waits for (http_defer()), or 0 */
	int head;                   /* a HEAD request */
	struct http_reply *late;    /* the deferred answer, to write when writable (owned) */
	TAILQ_ENTRY(http_pss) link; /* http.deferred */
	/* a stream (http_stream()): a link of the network layer */
	struct lobby_peer *peer; /* its peer, NULL once the network layer let go */
	struct wire **sq;        /* lines to write, a queue from sq_head (references) */
	size_t sq_head, sq_len, sq_cap;
	size_t sq_off;   /* bytes of the first line already written */
	size_t sq_bytes; /* bytes queued, not yet written */
	int streaming;   /* the answer is a stream */
	int sq_closing;  /* close once the queue is written */
};

static int reply_start(struct lws *wsi, struct http_pss *pss, struct http_reply *r, int head);
static const struct net_link_ops stream_link_ops;

void
http_reply_printf(struct http_reply *r, unsigned status, const char *type, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	free(r->body);
	r->body = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(r->body, (size_t)n + 1, fmt, ap);
	va_end(ap);
	r->len = (size_t)n;
	r->status = status;
	r->type = type;
}

int
http_query(const struct http_request *rq, const char *name, char *buf, size_t size)
{
	char key[64];
	const char *v;

	snprintf(key, sizeof key, "%s=", name);
	/* libwebsockets copies "name=value" into buf and points at the value in it */
	if ((v = lws_get_urlarg_by_name(rq->conn, key, buf, (int)size)) == NULL)
		return -1;
	memmove(buf, v, strlen(v) + 1);
	return (int)strlen(buf);
}

int
http_stream(struct http *h, const struct http_request *rq, const char *id, int64_t since)
{
	struct http_pss *pss = lws_wsi_user(rq->conn);
	struct http_reply r = {.status = 200, .type = "application/x-ndjson", .cors = 1};

	int ok = pss != NULL && h->ops.stream_ok != NULL ? h->ops.stream_ok(h->ops.arg, id) : 0;

	if (ok == HTTP_STREAM_WAIT)
		return HTTP_STREAM_WAIT;
	if (ok != 1)
		return -1;
	pss->streaming = 1; /* no length: libwebsockets says the connection closes at its end */
	if (reply_start(rq->conn, pss, &r, 0) < 0) {
		pss->streaming = 0;
		return -1;
	}
	pss->answering = 0;
	pss->peer = net_link_open(h->net, &stream_link_ops, pss, rq->ss, rq->tls);
	net_link_ready(pss->peer);
	if (!net_link_closing(pss->peer))
		h->ops.stream_start(h->ops.arg, pss->peer, id, since);
	net_reap(h->net);
	return 0;
}

int
http_defer(struct http *h, const struct http_request *rq, struct archive_read *r,
           struct http_reply *out)
{
	struct http_pss *pss = lws_wsi_user(rq->conn);
	uint64_t ticket = HTTP_READ_TICKET | ++h->next_ticket;

	if (h->ops.read == NULL || pss == NULL) {
		archive_read_free(r);
		return -1;
	}
	r->ticket = ticket;
	snprintf(r->addr, sizeof r->addr, "%s", rq->addr);
	if (h->ops.read(h->ops.arg, r) < 0) { /* r was freed */
		h->stats.refused_reads++;
		http_reply_printf(out, 429, "text/plain; charset=utf-8",
		                  "too many store reads from your address; try again later\n");
		out->retry_after = 1;
		return 0;
	}
	pss->ticket = ticket;
	TAILQ_INSERT_TAIL(&h->deferred, pss, link);
	return 0;
}

void
http_read_done(struct http *h, struct archive_read *r)
{
	struct http_pss *pss;

	TAILQ_FOREACH(pss, &h->deferred, link)
	if (pss->ticket == r->ticket)
		break;
	if (pss == NULL || h->closed) {
		archive_read_free(r); /* its connection closed meanwhile */
		return;
	}
	TAILQ_REMOVE(&h->deferred, pss, link);
	pss->ticket = 0;
	pss->late = xcalloc(1, sizeof *pss->late);
	h->ops.answer(h->ops.arg, r, pss->late);
	archive_read_free(r);
	lws_callback_on_writable(pss->wsi);
}

const struct http_ops *
http_ops_of(const struct http *h)
{
	return &h->ops;
}

const struct http_config *
http_config_of(const struct http *h)
{
	return &h->cfg;
}

void
http_stats(const struct http *h, struct http_stats *out)
{
	*out = h->stats;
}

/* The method of wsi's request: its name, or NULL for none libwebsockets knows. */
static const char *
request_method(struct lws *wsi, char *path, size_t size)
{
	static const struct {
		enum lws_token_indexes token;
		const char *name;
	} methods[] = {
	        {WSI_TOKEN_GET_URI, "GET"},         {WSI_TOKEN_HEAD_URI, "HEAD"},
	        {WSI_TOKEN_POST_URI, "POST"},       {WSI_TOKEN_PUT_URI, "PUT"},
	        {WSI_TOKEN_PATCH_URI, "PATCH"},     {WSI_TOKEN_DELETE_URI, "DELETE"},
	        {WSI_TOKEN_OPTIONS_URI, "OPTIONS"},
	};

	for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
		if (lws_hdr_total_length(wsi, methods[i].token) > 0) {
			if (lws_hdr_copy(wsi, path, (int)size, methods[i].token) < 0)
				path[0] = '\0';
			return methods[i].name;
		}
	return NULL;
}

/*
 * Write the status line and headers of r (with Content-Length; Allow for a 405), then ask for
 * the writable callback to write its body (none for HEAD). Returns 0, or -1 to close.
 */
static int
reply_start(struct lws *wsi, struct http_pss *pss, struct http_reply *r, int head)
{
	unsigned char buf[LWS_PRE + 4096], *start = buf + LWS_PRE, *p = start,
	                                   *end = buf + sizeof buf - 1;
	char num[24];

	if (lws_add_http_common_headers(
	            wsi, r->status, r->type,
	            pss->streaming ? LWS_ILLEGAL_HTTP_CONTENT_LEN : (lws_filepos_t)r->len, &p, end))
		return -1;
	for (size_t i = 0; i < sizeof safety_headers / sizeof safety_headers[0]; i++)
		if (lws_add_http_header_by_name(wsi, (const unsigned char *)safety_headers[i].name,
		                                (const unsigned char *)safety_headers[i].value,
		                                (int)strlen(safety_headers[i].value), &p, end))
			return -1;
	if (lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
	                                (const unsigned char *)"no-store", 8, &p, end))
		return -1;
	if (r->cors &&
	    lws_add_http_header_by_name(wsi, (const unsigned char *)"access-control-allow-origin:",
	                                (const unsigned char *)"*", 1, &p, end))
		return -1;
	if (r->status == HTTP_STATUS_METHOD_NOT_ALLOWED &&
	    lws_add_http_header_by_name(wsi, (const unsigned char *)"allow:",
	                                (const unsigned char *)"GET, HEAD", 9, &p, end))
		return -1;
	if (r->retry_after > 0) {
		int n = snprintf(num, sizeof num, "%u", r->retry_after);

		if (lws_add_http_header_by_name(wsi, (const unsigned char *)"retry-after:",
		                                (const unsigned char *)num, n, &p, end))
			return -1;
	}
	if (pss->close_after &&
	    lws_add_http_header_by_name(wsi, (const unsigned char *)"connection:",
	                                (const unsigned char *)"close", 5, &p, end))
		return -1;
	if (lws_finalize_write_http_header(wsi, start, &p, end))
		return -1;
	pss->body = head ? NULL : r->body;
	pss->len = head ? 0 : r->len;
	pss->off = 0;
	pss->answering = 1;
	if (head)
		free(r->body);
	r->body = NULL;
	lws_callback_on_writable(wsi);
	return 0;
}

/* Log a 429, at most once per HTTP_LOG_MS, with the count of those not logged since. */
static void
rate_log(struct http *h, const char *addr)
{
	uint64_t now = uv_now(h->loop);

	if (h->rate_logged_at != 0 && now - h->rate_logged_at < HTTP_LOG_MS) {
		h->rate_unlogged++;
		return;
	}
	log_warn("http: %s is over --max-http-rate-per-addr (%u a second): 429 (%u more since "
	         "the last such line)",
	         addr, h->cfg.rate_per_addr, h->rate_unlogged);
	h->rate_logged_at = now;
	h->rate_unlogged = 0;
}

/* Find the route of path: its handler, or NULL. */
static http_get_fn
route_find(const char *path)
{
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
		size_t n = strlen(routes[i].path);

		if (routes[i].prefix ? strncmp(routes[i].path, path, n) == 0 && path[n] != '\0'
		                     : strcmp(routes[i].path, path) == 0)
			return routes[i].get;
	}
	return NULL;
}

/* LWS_CALLBACK_HTTP: answer the request. Returns 0, or -1 to close the connection. */
static int
request_cb(struct http *h, struct lws *wsi, struct http_pss *pss)
{
	struct http_reply r = {0};
	struct http_request rq = {0};
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof ss;
	char path[1024], key[LOBBY_PEER_KEY];
	const char *method = request_method(wsi, path, sizeof path);
	uint64_t retry_ms;
	http_get_fn get;
	int loopback = 0, head = method != NULL && strcmp(method, "HEAD") == 0;

	memset(&ss, 0, sizeof ss);
	if (getpeername(lws_get_socket_fd(wsi), (struct sockaddr *)&ss, &sslen) < 0)
		ss.ss_family = AF_UNSPEC;
	net_addr_origin(&ss, key, &loopback);
	rq.path = path;
	rq.ss = &ss;
	rq.addr = key;
	rq.loopback = loopback;
	rq.tls = lws_is_ssl(wsi);
	rq.conn = wsi;
	pss->wsi = wsi;
	pss->head = head;
	pss->ticket = 0;
	h->stats.requests++;
	if (method == NULL || (!head && strcmp(method, "GET") != 0)) {
		pss->close_after = 1;
		http_reply_printf(&r, HTTP_STATUS_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
		                  "%s is not served here: GET and HEAD only\n",
		                  method != NULL ? method : "that method");
	} else if (h->cfg.rate_per_addr > 0 && key[0] != '\0' &&
	           quota_request(h->rate, key, uv_now(h->loop), &retry_ms) < 0) {
		h->stats.refused_rate++;
		rate_log(h, key);
		http_reply_printf(&r, 429, "text/plain; charset=utf-8",
		                  "too many requests from your address; try again later\n");
		r.retry_after = (unsigned)((retry_ms + 999) / 1000);
	} else if (h->stopping) {
		http_reply_printf(&r, HTTP_STATUS_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
		                  "the server is stopping\n");
		r.retry_after = 5;
	} else if (strcmp(path, "/ws") == 0) {
		http_reply_printf(&r, 426, "text/plain; charset=utf-8",
		                  "/ws is a WebSocket: ask for the upgrade (Upgrade: websocket)\n");
	} else if ((get = route_find(path)) != NULL) {
		get(h, &rq, &r);
		if (pss->streaming)
			return 0; /* a stream: its lines come through the network layer */
		if (pss->ticket != 0)
			return 0; /* answered when the store has read it (http_read_done()) */
	} else {
		http_reply_printf(&r, HTTP_STATUS_NOT_FOUND, "text/plain; charset=utf-8",
		                  "nothing here\n");
	}
	if (reply_start(wsi, pss, &r, head) < 0) {
		free(r.body);
		return -1;
	}
	return 0;
}

/* LWS_CALLBACK_HTTP_WRITEABLE: the next piece of the body; then the next request, or close. */
static int
body_cb(struct lws *wsi, struct http_pss *pss)
{
	unsigned char buf[LWS_PRE + HTTP_CHUNK];
	size_t n = pss->len - pss->off;
	int last;

	if (n > HTTP_CHUNK)
		n = HTTP_CHUNK;
	last = pss->off + n == pss->len;
	if (n > 0) {
		memcpy(buf + LWS_PRE, pss->body + pss->off, n);
		if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) <
		    (int)n)
			return -1;
		pss->off += n;
	}
	if (!last) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	free(pss->body);
	pss->body = NULL;
	pss->answering = 0;
	if (pss->close_after)
		return -1;
	return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* Drop the lines a stream holds. */
static void
stream_drop(struct http_pss *pss)
{
	for (size_t i = pss->sq_head; i < pss->sq_len; i++)
		wire_unref(pss->sq[i]);
	pss->sq_head = pss->sq_len = 0;
	pss->sq_off = pss->sq_bytes = 0;
}

/* net_link_ops.write of a stream: queue the lines (each with its '\n': ndjson). */
static void
stream_write(void *link, struct wire *const *w, size_t count)
{
	struct http_pss *pss = link;

	for (size_t i = 0; i < count; i++) {
		pss->sq = xgrow(pss->sq, pss->sq_len, &pss->sq_cap, sizeof *pss->sq, 8);
		pss->sq[pss->sq_len++] = wire_ref(w[i]);
		pss->sq_bytes += w[i]->len;
	}
	lws_callback_on_writable(pss->wsi);
}

/* net_link_ops.pending of a stream */
static size_t
stream_pending(const void *link)
{
	const struct http_pss *pss = link;

	return pss->sq_bytes;
}

/* net_link_ops.close of a stream */
static void
stream_close(void *link, int flush)
{
	struct http_pss *pss = link;

	if (flush) {
		pss->sq_closing = 1;
		lws_callback_on_writable(pss->wsi);
		return;
	}
	pss->peer = NULL;
	stream_drop(pss);
	lws_set_timeout(pss->wsi, PENDING_TIMEOUT_KILLED_BY_PARENT, LWS_TO_KILL_ASYNC);
}

static const struct net_link_ops stream_link_ops = {
        .transport = NET_HTTP,
        .write = stream_write,
        .pending = stream_pending,
        .close = stream_close,
};

/* A stream's socket is writable: its queued lines, joined in writes of HTTP_CHUNK bytes. */
static int
stream_writeable(struct lws *wsi, struct http_pss *pss)
{
	unsigned char buf[LWS_PRE + HTTP_CHUNK];

	while (pss->sq_head < pss->sq_len && !lws_send_pipe_choked(wsi)) {
		size_t fill = 0;

		while (pss->sq_head < pss->sq_len && fill < HTTP_CHUNK) {
			struct wire *w = pss->sq[pss->sq_head];
			size_t left = w->len - pss->sq_off;
			size_t n = left <= HTTP_CHUNK - fill ? left : HTTP_CHUNK - fill;

			memcpy(buf + LWS_PRE + fill, w->data + pss->sq_off, n);
			fill += n;
			pss->sq_bytes -= n;
			pss->sq_off += n;
			if (pss->sq_off < w->len)
				break; /* a line longer than the room left: the rest next time */
			wire_unref(w);
			pss->sq_head++;
			pss->sq_off = 0;
		}
		if (lws_write(wsi, buf + LWS_PRE, fill, LWS_WRITE_HTTP) < (int)fill)
			return -1;
	}
	if (pss->sq_head < pss->sq_len) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	pss->sq_head = pss->sq_len = 0;
	return pss->sq_closing ? -1 : 0;
}

/* libwebsockets closed a stream's connection: the network layer lets go of it. */
static void
stream_closed(struct http_pss *pss)
{
	if (pss->peer != NULL)
		net_link_closed(pss->peer);
	pss->peer = NULL;
	stream_drop(pss);
	free(pss->sq);
	pss->sq = NULL;
	pss->streaming = 0;
}

static int
http_cb(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	struct lws_context *ctx = lws_get_context(wsi);
	struct http *h = ctx != NULL ? lws_context_user(ctx) : NULL;
	struct http_pss *pss = user;

	switch (reason) {
	case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
		if (h->stopping)
			return 1;
		if (ws_filter(h->ws, wsi) < 0) {
			h->stats.refused_origin++;
			return 1;
		}
		return 0;
	case LWS_CALLBACK_ESTABLISHED:
	case LWS_CALLBACK_RECEIVE:
	case LWS_CALLBACK_SERVER_WRITEABLE:
	case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
	case LWS_CALLBACK_CLOSED:
		if (pss == NULL)
			return reason == LWS_CALLBACK_CLOSED ? 0 : -1;
		return ws_callback(h->ws, wsi, reason, &pss->ws, in, len);
	case LWS_CALLBACK_HTTP:
		return pss != NULL ? request_cb(h, wsi, pss) : -1;
	case LWS_CALLBACK_HTTP_BODY:
		return 0; /* refused (405): not read */
	case LWS_CALLBACK_HTTP_WRITEABLE:
		if (pss == NULL)
			return 0;
		if (pss->streaming)
			return stream_writeable(wsi, pss);
		if (pss->late != NULL) {
			struct http_reply *r = pss->late;
			int rc;

			pss->late = NULL;
			rc = reply_start(wsi, pss, r, pss->head);
			free(r->body);
			free(r);
			return rc;
		}
		return pss->answering ? body_cb(wsi, pss) : 0;
	case LWS_CALLBACK_CLOSED_HTTP:
		if (pss == NULL)
			return 0; /* a connection closed before its first request (a preconnect) */
		free(pss->body);
		pss->body = NULL;
		if (pss->streaming)
			stream_closed(pss);
		if (pss->ticket != 0) {
			TAILQ_REMOVE(&h->deferred, pss, link);
			pss->ticket = 0;
		}
		if (pss->late != NULL) {
			free(pss->late->body);
			free(pss->late);
			pss->late = NULL;
		}
		return 0;
	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}

static const struct lws_protocols protocols[] = {
        {"hokito", http_cb, sizeof(struct http_pss), 0, 0, NULL, 0},
        {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* libwebsockets' own log lines (errors and warnings only) go to ours. */
static void
lws_log_cb(int level, const char *line)
{
	size_t n = strcspn(line, "\n");

	if (level & LLL_ERR)
		log_warn("http: libwebsockets: %.*s", (int)n, line);
	else
		log_debug("http: libwebsockets: %.*s", (int)n, line);
}

/* The printable address of a vhost's listener: "127.0.0.1:8080", "[::1]:8080". */
static void
bound_format(const char *host, struct lws_vhost *vh, char *out, size_t size)
{
	int port = lws_get_vhost_listen_port(vh);

	if (strchr(host, ':') != NULL)
		snprintf(out, size, "[%s]:%d", host, port);
	else
		snprintf(out, size, "%s:%d", host, port);
}

/* Make one listener: host:port, with TLS when cert is given. Returns its vhost, or NULL. */
static struct lws_vhost *
vhost_create(struct http *h, const char *name, const char *host, int port, int tls)
{
	struct lws_context_creation_info vi;

	memset(&vi, 0, sizeof vi);
	vi.vhost_name = name;
	vi.iface = host;
	vi.port = port;
	vi.protocols = protocols;
	vi.options = LWS_SERVER_OPTION_VALIDATE_UTF8;
	vi.keepalive_timeout = 30;
	if (strchr(host, ':') == NULL)
		vi.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
	if (tls) {
		/* libwebsockets serves TLS on a vhost only with this option on the vhost too */
		vi.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
		vi.ssl_cert_filepath = h->cfg.cert_file;
		vi.ssl_private_key_filepath = h->cfg.key_file;
		vi.alpn = "http/1.1"; /* a WebSocket is an HTTP/1.1 upgrade */
	}
	return lws_create_vhost(h->ctx, &vi);
}

int
http_create(uv_loop_t *loop, struct net *net, const struct http_config *cfg,
            const struct http_ops *ops, struct http **out, char *bound, char *tls_bound,
            size_t size)
{
	struct http *h = xcalloc(1, sizeof *h);
	struct lws_context_creation_info info;
	void *loops[1] = {loop};
	struct ws_config wcfg = {
	        .max_line = cfg->max_line, .origins = h->cfg.origins, .norigins = cfg->norigins};

	h->loop = loop;
	h->net = net;
	h->cfg = *cfg;
	h->ops = *ops;
	wcfg.origins = h->cfg.origins;
	h->ws = ws_create(net, &wcfg);
	TAILQ_INIT(&h->deferred);
	h->rate = quota_create(&(struct quota_config){.rate = cfg->rate_per_addr}, osrand_u64());
	bound[0] = tls_bound[0] = '\0';
	lws_set_log_level(LLL_ERR | LLL_WARN, lws_log_cb);
	memset(&info, 0, sizeof info);
	info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS | LWS_SERVER_OPTION_LIBUV |
	               LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN |
	               LWS_SERVER_OPTION_VALIDATE_UTF8;
	if (cfg->tls_host != NULL)
		info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
	info.foreign_loops = loops;
	info.user = h;
	info.pcontext = &h->ctx;
	info.server_string = "hokitod";
	info.timeout_secs = cfg->timeout_s;
	if (cfg->keepalive_s > 0) {
		info.ka_time = (int)cfg->keepalive_s;
		info.ka_probes = 5;
		info.ka_interval = 10;
	}
	h->ctx = lws_create_context(&info);
	if (h->ctx == NULL) {
		log_error("http: cannot start libwebsockets (its libuv event library: "
		          "libwebsockets-evlib-uv)");
		http_free(h);
		return -1;
	}
	if (cfg->host != NULL) {
		if ((h->vhost = vhost_create(h, "http", cfg->host, cfg->port, 0)) == NULL) {
			log_error("cannot listen for HTTP on %s:%d", cfg->host, cfg->port);
			goto fail;
		}
		bound_format(cfg->host, h->vhost, bound, size);
	}
	if (cfg->tls_host != NULL) {
		if ((h->tls_vhost = vhost_create(h, "https", cfg->tls_host, cfg->tls_port, 1)) ==
		    NULL) {
			log_error("cannot listen for HTTPS on %s:%d (the port, or --tls-cert and "
			          "--tls-key)",
			          cfg->tls_host, cfg->tls_port);
			goto fail;
		}
		bound_format(cfg->tls_host, h->tls_vhost, tls_bound, size);
	}
	*out = h;
	return 0;
fail:
	http_close(h);
	*out = h; /* freed after the loop has run the close */
	return -1;
}

int
http_reload(struct http *h)
{
	if (h == NULL || h->tls_vhost == NULL || h->ctx == NULL)
		return 0;
	if (lws_tls_cert_updated(h->ctx, h->cfg.cert_file, h->cfg.key_file, NULL, 0, NULL, 0) != 0)
		log_error(
		        "got SIGHUP: the HTTPS certificate was not reloaded; the old one is kept");
	else
		log_info("got SIGHUP: the HTTPS certificate and key reloaded for new connections");
	return 1;
}

void
http_shutdown(struct http *h)
{
	if (h == NULL)
		return;
	h->stopping = 1;
	ws_shutdown(h->ws);
}

void
http_close(struct http *h)
{
	if (h == NULL || h->ctx == NULL || h->closed)
		return;
	h->stopping = 1;
	h->closed = 1;
	lws_context_destroy(h->ctx);
}

void
http_free(struct http *h)
{
	if (h == NULL)
		return;
	/*
	 * On a foreign loop, libwebsockets ends its destruction only when called again once the
	 * loop has closed its handles (pcontext then clears h->ctx: this call is the last).
	 */
	if (h->ctx != NULL && h->closed)
		lws_context_destroy(h->ctx);
	ws_free(h->ws);
	quota_free(h->rate);
	free(h);
}
