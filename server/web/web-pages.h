/*
 * web-pages.h: the pages of hokitod's HTTP side for people: / (the lobby), /g/ID (a game),
 * /@/NAME (a player), /rules, and the files they load (/static/NAME).
 *
 * The pages are static HTML, CSS and JavaScript shipped inside the binary (server/web/pages/, made
 * into C arrays at build time by server/web/pages/embed.py: no CDN, nothing built at run time);
 * what they show they ask for themselves, through the protocol on /ws (ws.h), so the server side
 * only hands out files. The rules page is made here from the rules text of both games
 * (rules-text.h), escaped as HTML. Every answer carries http.c's safety headers: the scripts are
 * files of our origin, never inline.
 */
#ifndef HOKITO_SERVER_WEB_PAGES_H
#define HOKITO_SERVER_WEB_PAGES_H

#include <stddef.h>

#include "http.h"

/* A file of server/web/pages/, embedded. */
struct web_asset {
	const char *name; /* its file name: "game.js" */
	const char *type; /* its Content-Type */
	const unsigned char *data;
	size_t len;
};

extern const struct web_asset web_assets[];
extern const unsigned web_nassets;

/* The routes (http.h's http_get_fn): /, /g/ID, /@/NAME, /static/NAME, and /rules. */
void web_lobby_get(struct http *h, const struct http_request *rq, struct http_reply *out);
void web_game_get(struct http *h, const struct http_request *rq, struct http_reply *out);
void web_profile_get(struct http *h, const struct http_request *rq, struct http_reply *out);
void web_static_get(struct http *h, const struct http_request *rq, struct http_reply *out);
void web_rules_get(struct http *h, const struct http_request *rq, struct http_reply *out);

#endif
