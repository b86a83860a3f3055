/*
 * ws.h: the WebSocket transport of hokitod: GET /ws, the protocol's lines as text frames.
 *
 * A WebSocket connection (libwebsockets parses the HTTP upgrade and the frames: http.c owns the
 * context and hands the WebSocket callbacks here) joins the network layer as a link
 * (net_link_open(), net.h): each text message is one line of PROTOCOL.md, handed to the same line
 * handling as a TCP connection's, and each line the server sends is one text frame (the line
 * without its '\n'). Every limit of the network layer holds for it (max_clients, per address,
 * hello deadline, max_output, max_line); what the network layer cannot see is this module's: the
 * Origin header (a browser page of another site may not speak for its user), binary frames and
 * a message over max_line. The close codes (RFC 6455) it sends are WS_CLOSE_*.
 */
#ifndef HOKITO_SERVER_WS_H
#define HOKITO_SERVER_WS_H

#include <stddef.h>

#include <libwebsockets.h>

#include "net.h"

/* The close codes of a /ws connection (PROTOCOL.md, the WebSocket transport). */
enum ws_close {
	WS_CLOSE_NORMAL = 1000, /* after the server's last message (an error, a session moved) */
	WS_CLOSE_GOING_AWAY = 1001,  /* the server stops (after its bye) */
	WS_CLOSE_UNSUPPORTED = 1003, /* a binary frame */
	WS_CLOSE_BAD_DATA = 1007,    /* a text frame that is not UTF-8 (libwebsockets says it) */
	WS_CLOSE_TOO_BIG = 1009,     /* a message over --max-line (after the too_long error) */
};

struct ws_config {
	size_t max_line;            /* bytes of a message (net_config.max_line) */
	const char *const *origins; /* --http-origin: other origins allowed (borrowed) */
	size_t norigins;
};

struct ws;

/* The WebSocket side, its connections joining net (borrowed). cfg is copied (not its strings). */
struct ws *ws_create(struct net *net, const struct ws_config *cfg);

/* Free it once its connections are closed. Accepts NULL. */
void ws_free(struct ws *ws);

/* The server stops: the connections closed from now on say WS_CLOSE_GOING_AWAY. */
void ws_shutdown(struct ws *ws);

/*
 * Whether the upgrade request of wsi may become a /ws connection: its path is /ws and its
 * Origin, if it has one, is the server's own (the scheme and Host the request came to) or one
 * of cfg.origins. Returns 0 (yes) or a negative value (refused, logged).
 */
int ws_filter(struct ws *ws, struct lws *wsi);

/*
 * The WebSocket callbacks of wsi (ESTABLISHED, RECEIVE, SERVER_WRITEABLE, CLOSED), with slot
 * the connection's per-session pointer (ws.c's own state, made at ESTABLISHED, freed at
 * CLOSED). Returns libwebsockets' answer: 0, or -1 to close the connection.
 */
int ws_callback(struct ws *ws, struct lws *wsi, enum lws_callback_reasons reason, void **slot,
                void *in, size_t len);

#endif
