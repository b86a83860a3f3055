/*
 * ws.c: /ws connections: text frames in and out of the network layer, as a link (net.h).
 *
 * Each connection has a struct ws_conn, made when its upgrade is done (ESTABLISHED) and freed
 * when libwebsockets closes it (CLOSED); the per-session slot of libwebsockets points to it. It
 * holds the message being put together from its pieces when it comes in more than one (at most
 * max_line bytes, freed once it is whole; a message in one piece goes up from libwebsockets'
 * buffer; a longer one is refused as the network layer refuses a long line, and what follows is
 * discarded), and the
 * lines the network layer released to it while earlier ones wait, as wire references, until
 * the socket is writable: the writable callback writes them while the kernel takes them
 * (lws_send_pipe_choked()) and asks again for the rest. Lines with nothing before them go at
 * once (link_write()); the rest of a partial send is libwebsockets' to hold and send. A turn's
 * lines to a connection go in one send (frames_write()). What it holds counts against
 * max_output (link_pending()).
 *
 * The two sides let go of each other as net.h says: when the network layer closes without a
 * flush, conn->peer is cleared and libwebsockets is asked to kill the connection; when
 * libwebsockets closes it first, net_link_closed() tells the network layer, which never calls
 * again. A flushing close sends what is held, then the close frame (WS_CLOSE_NORMAL, or the code
 * this module chose: WS_CLOSE_TOO_BIG).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "ws.h"
#include "xmalloc.h"

/*
 * The close frame, written as any frame: libwebsockets 4.1 keeps this value of enum
 * lws_write_protocol to itself (its lws_close_reason() and a -1 from the writable callback close
 * the socket there without the frame), so a flushing close writes the frame itself, after the
 * last line, and waits for the peer's answer (WS_PEER_INITIATED_CLOSE: not echoed) or the
 * network layer's closing deadline.
 */
#define WS_WRITE_CLOSE ((enum lws_write_protocol)4)

struct ws {
	struct net *net;
	struct ws_config cfg;
	unsigned char *tx; /* LWS_PRE bytes, then the frame being written */
	size_t tx_cap;
	int stopping;              /* ws_shutdown(): closes say WS_CLOSE_GOING_AWAY */
	uint64_t origin_logged_at; /* when a refused Origin was last logged (ms, uv_hrtime()) */
	unsigned origin_unlogged;  /* refusals since, not logged */
};

#define WS_LOG_MS 10000
#define WS_BATCH                                                                                   \
	65536 /* bytes of queued lines written in one send at most */ /* one line at most this     \
	                                                                 often about refused       \
	                                                                 Origins */

struct ws_conn {
	struct ws *ws;
	struct lws *wsi;
	struct lobby_peer *peer; /* NULL once the network layer let go */
	char *rx;                /* a message in pieces, put together (up to max_line), or NULL */
	size_t rx_len, rx_cap;
	int rx_discard;  /* a message over the limit: the rest of it, and what follows */
	struct wire **q; /* lines to write, a queue from q_head */
	size_t q_head, q_len, q_cap;
	size_t q_bytes; /* bytes of the lines queued */
	int closing;    /* close once the queue is written */
	int close_sent; /* our close frame is written: the peer's answer ends it */
	int close_code; /* the code to close with (0: WS_CLOSE_NORMAL) */
};

struct ws *
ws_create(struct net *net, const struct ws_config *cfg)
{
	struct ws *ws = xcalloc(1, sizeof *ws);

	ws->net = net;
	ws->cfg = *cfg;
	return ws;
}

void
ws_free(struct ws *ws)
{
	if (ws == NULL)
		return;
	free(ws->tx);
	free(ws);
}

void
ws_shutdown(struct ws *ws)
{
	ws->stopping = 1;
}

/* Drop every queued line of conn. */
static void
conn_queue_drop(struct ws_conn *conn)
{
	for (size_t i = conn->q_head; i < conn->q_len; i++)
		wire_unref(conn->q[i]);
	conn->q_head = conn->q_len = 0;
	conn->q_bytes = 0;
}

static int frames_write(struct ws_conn *conn, struct wire *const *w, size_t n);

/*
 * net_link_ops.write: with nothing queued before them, the lines go at once while the kernel
 * takes them (one send a frame, as a TCP line goes: no round trip through the loop's writable
 * callback, which costs a poll change each way); the others are queued, in order, for a
 * writable callback. A frame libwebsockets could not send closes the connection.
 */
static void
link_write(void *link, struct wire *const *w, size_t count)
{
	struct ws_conn *conn = link;
	size_t i = 0;

	if (conn->q_head > 0 && conn->q_head == conn->q_len)
		conn->q_head = conn->q_len = 0;
	/*
	 * not while libwebsockets holds the rest of a partial send (lws_partial_buffered(): no
	 * system call, where lws_send_pipe_choked() polls): a full socket buffer makes the send
	 * partial, and the next lines wait in the queue
	 */
	if (conn->q_len == 0 && !conn->closing && !lws_partial_buffered(conn->wsi)) {
		/* on a failure: the network layer hears of the close from net_link_closed() */
		if (frames_write(conn, w, count) < 0)
			lws_set_timeout(conn->wsi, PENDING_TIMEOUT_KILLED_BY_PARENT,
			                LWS_TO_KILL_ASYNC);
		return; /* what the kernel did not take, libwebsockets holds and sends */
	}
	for (; i < count; i++) {
		conn->q = xgrow(conn->q, conn->q_len, &conn->q_cap, sizeof *conn->q, 8);
		conn->q[conn->q_len++] = wire_ref(w[i]);
		conn->q_bytes += w[i]->len;
	}
	lws_callback_on_writable(conn->wsi);
}

/* net_link_ops.pending */
static size_t
link_pending(const void *link)
{
	const struct ws_conn *conn = link;

	return conn->q_bytes;
}

/* net_link_ops.close */
static void
link_close(void *link, int flush)
{
	struct ws_conn *conn = link;

	if (flush) {
		conn->closing = 1;
		lws_callback_on_writable(conn->wsi);
		return;
	}
	conn->peer = NULL;
	conn_queue_drop(conn);
	lws_set_timeout(conn->wsi, PENDING_TIMEOUT_KILLED_BY_PARENT, LWS_TO_KILL_ASYNC);
}

/* net_link_ops.pause: libwebsockets stops reading the socket (its flow control) meanwhile. */
static void
link_pause(void *link, int paused)
{
	struct ws_conn *conn = link;

	lws_rx_flow_control(conn->wsi, paused ? 0 : 1);
}

static const struct net_link_ops ws_link_ops = {
        .transport = NET_WS,
        .write = link_write,
        .pending = link_pending,
        .close = link_close,
        .pause = link_pause,
};

/* Whether origin (len bytes) is the server's own for wsi's request, or one of cfg.origins. */
static int
origin_allowed(struct ws *ws, struct lws *wsi, const char *origin, size_t len)
{
	char host[256], own[300];

	for (size_t i = 0; i < ws->cfg.norigins; i++)
		if (strlen(ws->cfg.origins[i]) == len &&
		    strncasecmp(ws->cfg.origins[i], origin, len) == 0)
			return 1;
	if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0)
		return 0;
	snprintf(own, sizeof own, "%s://%s", lws_is_ssl(wsi) ? "https" : "http", host);
	return strlen(own) == len && strncasecmp(own, origin, len) == 0;
}

int
ws_filter(struct ws *ws, struct lws *wsi)
{
	char uri[64], origin[256];
	int n;

	if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 || strcmp(uri, "/ws") != 0) {
		log_debug("WebSocket upgrade refused: not on /ws");
		return -1;
	}
	n = lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN);
	if (n <= 0)
		return 0; /* not a browser's page: no other site's script can be behind it */
	if (n >= (int)sizeof origin ||
	    lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) < 0 ||
	    !origin_allowed(ws, wsi, origin, strlen(origin))) {
		uint64_t now = uv_hrtime() / 1000000;

		if (ws->origin_logged_at != 0 && now - ws->origin_logged_at < WS_LOG_MS) {
			ws->origin_unlogged++;
			return -1;
		}
		log_info("WebSocket upgrade refused: Origin %.*s is not this server's "
		         "(--http-origin; "
		         "%u more refused since the last such line)",
		         n < 200 ? n : 200, n < (int)sizeof origin ? origin : "(too long)",
		         ws->origin_unlogged);
		ws->origin_logged_at = now;
		ws->origin_unlogged = 0;
		return -1;
	}
	return 0;
}

/* The upgrade is done: the connection joins the network layer. */
static void
conn_open(struct ws *ws, struct lws *wsi, void **slot)
{
	struct ws_conn *conn = xcalloc(1, sizeof *conn);
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof ss;

	memset(&ss, 0, sizeof ss);
	conn->ws = ws;
	conn->wsi = wsi;
	*slot = conn;
	if (getpeername(lws_get_socket_fd(wsi), (struct sockaddr *)&ss, &sslen) < 0)
		ss.ss_family = AF_UNSPEC;
	conn->peer = net_link_open(ws->net, &ws_link_ops, conn, &ss, lws_is_ssl(wsi));
}

/* A whole message (len bytes at p): up as one line, without a line end of its own, as on TCP. */
static void
conn_message(struct ws_conn *conn, const char *p, size_t len)
{
	if (len > 0 && p[len - 1] == '\n')
		len--;
	if (len > 0 && p[len - 1] == '\r')
		len--;
	net_link_input(conn->peer, p, len);
}

/* A piece of a message (in, len): put together, and handed up once whole. */
static int
conn_receive(struct ws_conn *conn, struct lws *wsi, const char *in, size_t len)
{
	int final = lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0;

	if (conn->peer == NULL)
		return 0; /* closing */
	if (lws_frame_is_binary(wsi)) {
		static const char why[] = "binary frames are not spoken here: text frames only";

		log_info("connection %s: binary frame: closing", net_peer_addr(conn->peer));
		lws_close_reason(wsi, (enum lws_close_status)WS_CLOSE_UNSUPPORTED,
		                 (unsigned char *)why, sizeof why - 1);
		return -1;
	}
	if (conn->rx_discard)
		return 0;
	if (conn->rx_len + len > conn->ws->cfg.max_line) {
		conn->rx_discard = 1;
		conn->close_code = WS_CLOSE_TOO_BIG;
		net_link_input(conn->peer, NULL, conn->rx_len + len);
		return 0;
	}
	if (final && conn->rx_len == 0) { /* a whole message in one piece: straight up */
		conn_message(conn, in, len);
		return 0;
	}
	/* a message in pieces: put together, in memory held only until it is whole */
	if (conn->rx_len + len > conn->rx_cap) {
		conn->rx_cap = conn->rx_len + len > 2 * conn->rx_cap ? conn->rx_len + len
		                                                     : 2 * conn->rx_cap;
		conn->rx = xrealloc(conn->rx, conn->rx_cap);
	}
	memcpy(conn->rx + conn->rx_len, in, len);
	conn->rx_len += len;
	if (!final)
		return 0;
	conn_message(conn, conn->rx, conn->rx_len);
	free(conn->rx);
	conn->rx = NULL;
	conn->rx_len = conn->rx_cap = 0;
	return 0;
}

/* Room for n bytes of a frame in ws->tx, after LWS_PRE bytes for libwebsockets' header. */
static unsigned char *
ws_tx_room(struct ws *ws, size_t n)
{
	if (LWS_PRE + n > ws->tx_cap) {
		ws->tx_cap = LWS_PRE + n;
		ws->tx = xrealloc(ws->tx, ws->tx_cap);
	}
	return ws->tx + LWS_PRE;
}

/* The bytes of line w without its '\n'. */
static size_t
line_len(const struct wire *w)
{
	return w->len > 0 && w->data[w->len - 1] == '\n' ? w->len - 1 : w->len;
}

/*
 * Write the lines w[0..n) as text frames, each without its '\n', in one send: one line through
 * libwebsockets' framing; more as frames made here (a server's frames are unmasked: a header of
 * 2, 4 or 10 bytes, then the payload) written by libwebsockets as they are (LWS_WRITE_HTTP
 * writes the bytes given, as for an HTTP body), so that a turn's lines to a connection cost one
 * system call, as they do over TCP (writev). 0, or -1 when libwebsockets failed.
 */
static int
frames_write(struct ws_conn *conn, struct wire *const *w, size_t n)
{
	size_t total = 0, off = 0;
	unsigned char *p;

	if (n == 1) {
		size_t len = line_len(w[0]);

		memcpy(ws_tx_room(conn->ws, len), w[0]->data, len);
		return lws_write(conn->wsi, conn->ws->tx + LWS_PRE, len, LWS_WRITE_TEXT) < (int)len
		               ? -1
		               : 0;
	}
	for (size_t i = 0; i < n; i++)
		total += 10 + line_len(w[i]);
	p = ws_tx_room(conn->ws, total);
	for (size_t i = 0; i < n; i++) {
		size_t len = line_len(w[i]);

		p[off++] = 0x81; /* FIN, text */
		if (len < 126) {
			p[off++] = (unsigned char)len;
		} else if (len < 65536) {
			p[off++] = 126;
			p[off++] = (unsigned char)(len >> 8);
			p[off++] = (unsigned char)len;
		} else {
			p[off++] = 127;
			for (int b = 7; b >= 0; b--)
				p[off++] = (unsigned char)((uint64_t)len >> (8 * b));
		}
		memcpy(p + off, w[i]->data, len);
		off += len;
	}
	return lws_write(conn->wsi, p, off, LWS_WRITE_HTTP) < (int)off ? -1 : 0;
}

/*
 * The socket is writable: frames while the kernel takes them, each line without its '\n'; then
 * the close frame if a flushing close waits for the queue.
 */
static int
conn_writeable(struct ws_conn *conn, struct lws *wsi)
{
	struct ws *ws = conn->ws;
	int wrote = 0;

	while (conn->q_head < conn->q_len && !lws_send_pipe_choked(wsi)) {
		size_t n = 0, bytes = 0; /* a batch: up to WS_BATCH bytes in one send */
		int rc;

		while (conn->q_head + n < conn->q_len &&
		       (n == 0 || bytes + conn->q[conn->q_head + n]->len <= WS_BATCH))
			bytes += conn->q[conn->q_head + n++]->len;
		rc = frames_write(conn, conn->q + conn->q_head, n);
		for (size_t i = 0; i < n; i++)
			wire_unref(conn->q[conn->q_head + i]);
		conn->q_head += n;
		conn->q_bytes -= bytes;
		if (rc < 0)
			return -1;
		wrote = 1;
	}
	if (conn->q_head < conn->q_len || (conn->closing && wrote)) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	conn->q_head = conn->q_len = 0;
	if (conn->closing && !conn->close_sent) {
		int code = conn->close_code != 0 ? conn->close_code
		           : ws->stopping        ? WS_CLOSE_GOING_AWAY
		                                 : WS_CLOSE_NORMAL;
		unsigned char *p = ws_tx_room(ws, 2);

		p[0] = (unsigned char)(code >> 8);
		p[1] = (unsigned char)(code & 0xff);
		conn->close_sent = 1;
		if (lws_write(wsi, p, 2, WS_WRITE_CLOSE) < 0)
			return -1;
	}
	return 0;
}

/* libwebsockets closed the connection: the network layer lets go of it; then it is freed. */
static void
conn_closed(struct ws_conn *conn)
{
	if (conn->peer != NULL)
		net_link_closed(conn->peer);
	conn_queue_drop(conn);
	free(conn->q);
	free(conn->rx);
	free(conn);
}

int
ws_callback(struct ws *ws, struct lws *wsi, enum lws_callback_reasons reason, void **slot, void *in,
            size_t len)
{
	struct ws_conn *conn = *slot;

	switch (reason) {
	case LWS_CALLBACK_ESTABLISHED:
		conn_open(ws, wsi, slot);
		return 0;
	case LWS_CALLBACK_RECEIVE:
		return conn != NULL ? conn_receive(conn, wsi, in, len) : -1;
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return conn != NULL ? conn_writeable(conn, wsi) : -1;
	case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
		/* the answer to our close: no echo; else libwebsockets answers it */
		return conn != NULL && conn->close_sent;
	case LWS_CALLBACK_CLOSED:
		if (conn != NULL)
			conn_closed(conn);
		*slot = NULL;
		return 0;
	default:
		return 0;
	}
}
