/*
 * web-api.c: GET /api/games and GET /api/game/ID (web-api.h): the question from the URL, the
 * answer from the store's read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "web-api.h"
#include "xmalloc.h"

#define TEXT "text/plain; charset=utf-8"

/* A whole decimal number in [0, max] from query member name (def without one). 0 or -1. */
static int
query_num(const struct http_request *rq, const char *name, long long def, long long max,
          long long *out)
{
	char buf[32], *end;
	long long v;

	*out = def;
	if (http_query(rq, name, buf, sizeof buf) < 0)
		return 0;
	if (buf[0] < '0' || buf[0] > '9')
		return -1;
	v = strtoll(buf, &end, 10);
	if (*end != '\0' || v < 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

void
web_api_games_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	struct archive_read *r;
	char after[STORE_CURSOR_TEXT + 16]; /* "after=" and the cursor (http_query()) */
	long long limit, offset;

	out->cors = 1;
	if (query_num(rq, "limit", WEB_API_LIMIT, WEB_API_LIMIT_MAX, &limit) < 0 || limit == 0) {
		http_reply_printf(out, 400, TEXT, "limit is a number from 1 to %d\n",
		                  WEB_API_LIMIT_MAX);
		return;
	}
	if (query_num(rq, "offset", 0, 1000000000, &offset) < 0) {
		http_reply_printf(out, 400, TEXT, "offset is a number from 0\n");
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->kind = ARCHIVE_READ_HISTORY;
	r->query.limit = (size_t)limit;
	r->query.offset = offset;
	if (http_query(rq, "after", after, sizeof after) >= 0) {
		if (store_cursor_parse(after, &r->query.after) < 0) {
			archive_read_free(r);
			http_reply_printf(out, 400, TEXT, "after is the next of a page\n");
			return;
		}
		r->query.has_after = 1;
	}
	if (http_defer(h, rq, r) < 0) /* no store: nothing finished is kept */
		http_reply_printf(out, 200, "application/json",
		                  "{\"type\":\"history_page\",\"total\":0,\"offset\":%lld,"
		                  "\"games\":[]}\n",
		                  offset);
}

void
web_api_game_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	const char *id = rq->path + strlen("/api/game/");
	struct archive_read *r;

	out->cors = 1;
	if (strlen(id) >= STORE_ID_MAX ||
	    strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(id)) {
		http_reply_printf(out, 404, TEXT, "no game with that id\n");
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->kind = ARCHIVE_READ_RECORD;
	snprintf(r->game_id, sizeof r->game_id, "%s", id);
	r->public_only = 1; /* no viewer: a private game is not found */
	if (http_defer(h, rq, r) < 0)
		http_reply_printf(out, 404, TEXT, "this server keeps no records\n");
}

/* A history page's JSON: the protocol's history_page, without an id. */
static void
answer_history(const struct accounts *as, const struct archive_read *r, struct http_reply *out)
{
	json_t *o = json_object(), *games = json_array();
	char *text;

	for (int i = 0; i < r->rc; i++)
		json_array_append_new(games, archive_entry_new(as, &r->games[i]));
	json_object_set_new(o, "type", json_string("history_page"));
	json_object_set_new(o, "total", json_integer(r->page.total));
	json_object_set_new(o, "offset", json_integer(r->query.offset));
	json_object_set_new(o, "games", games);
	if (r->page.more) {
		char next[STORE_CURSOR_TEXT];

		store_cursor_format(&r->page.next, next, sizeof next);
		json_object_set_new(o, "next", json_string(next));
	}
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	http_reply_printf(out, 200, "application/json", "%s\n", text);
	free(text);
}

void
web_api_answer(const struct accounts *as, const struct archive_read *r, struct http_reply *out)
{
	out->cors = 1;
	if (r->rc < 0 && r->rc == STORE_ENOTFOUND) {
		http_reply_printf(out, 404, TEXT, "no game with that id\n");
		return;
	}
	if (r->rc < 0) {
		http_reply_printf(out, 500, TEXT, "the store could not be read\n");
		return;
	}
	switch (r->kind) {
	case ARCHIVE_READ_HISTORY:
		answer_history(as, r, out);
		return;
	case ARCHIVE_READ_RECORD:
		http_reply_printf(out, 200, TEXT, "%s", r->text);
		return;
	case ARCHIVE_READ_PROFILE:
	case ARCHIVE_READ_LEADERBOARD:
		break;
	}
	http_reply_printf(out, 500, TEXT, "no such answer\n");
}
