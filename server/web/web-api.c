/*
 * web-api.c: GET /api/games and GET /api/game/ID (web-api.h): the question from the URL, the
 * answer from the store's read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "game.h"
#include "ladder.h"
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
	char player[512];                   /* "player=" and a name (longer: lws's header room) */
	long long limit, offset;
	int64_t account = 0;

	out->cors = 1;
	if (query_num(rq, "limit", WEB_API_LIMIT, WEB_API_LIMIT_MAX, &limit) < 0 || limit == 0) {
		http_reply_printf(out, 400, TEXT, "limit is a number from 1 to %d\n",
		                  WEB_API_LIMIT_MAX);
		return;
	}
	if (query_num(rq, "offset", 0, http_config_of(h)->max_history_offset, &offset) < 0) {
		http_reply_printf(out, 400, TEXT,
		                  "offset is a number from 0 to %u (page deeper with after, the "
		                  "next of the page before)\n",
		                  http_config_of(h)->max_history_offset);
		return;
	}
	if (http_query(rq, "player", player, sizeof player) >= 0) {
		/* an account, whatever its case (a guest's games only its own hello lists) */
		if ((account = http_ops_of(h)->account(http_ops_of(h)->arg, player)) == 0) {
			http_reply_printf(out, 200, "application/json",
			                  "{\"type\":\"history_page\",\"total\":0,\"offset\":%lld,"
			                  "\"games\":[]}\n",
			                  offset);
			return;
		}
	}
	r = xcalloc(1, sizeof *r);
	r->kind = ARCHIVE_READ_HISTORY;
	r->query.limit = (size_t)limit;
	r->query.offset = offset;
	r->query.by_player = account != 0;
	r->query.player_account = account;
	if (http_query(rq, "after", after, sizeof after) >= 0) {
		if (store_cursor_parse(after, &r->query.after) < 0) {
			archive_read_free(r);
			http_reply_printf(out, 400, TEXT, "after is the next of a page\n");
			return;
		}
		r->query.has_after = 1;
	}
	if (http_defer(h, rq, r, out) < 0) /* no store: nothing finished is kept */
		http_reply_printf(out, 200, "application/json",
		                  "{\"type\":\"history_page\",\"total\":0,\"offset\":%lld,"
		                  "\"games\":[]}\n",
		                  offset);
}

void
web_api_game_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	const char *id = rq->path + strlen("/api/game/");
	size_t len = strlen(id), idlen = strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789");
	int events = idlen + strlen(".json") == len && strcmp(id + idlen, ".json") == 0;
	struct archive_read *r;

	out->cors = 1;
	if (idlen == 0 || idlen >= STORE_ID_MAX || (idlen != len && !events)) {
		http_reply_printf(out, 404, TEXT, "no game with that id\n");
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->kind = events ? ARCHIVE_READ_EVENTS : ARCHIVE_READ_RECORD;
	snprintf(r->game_id, sizeof r->game_id, "%.*s", (int)idlen, id);
	r->public_only = 1; /* no viewer: a private game is not found */
	if (http_defer(h, rq, r, out) < 0)
		http_reply_printf(out, 404, TEXT, "this server keeps no records\n");
}

void
web_api_user_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	const struct http_ops *ops = http_ops_of(h);
	const char *name = rq->path + strlen("/api/user/");
	struct archive_read *r;
	int64_t id;

	out->cors = 1;
	/* libwebsockets gave the path decoded (%XX) */
	if ((id = ops->account(ops->arg, name)) == 0) {
		http_reply_printf(out, 404, TEXT, "no account of that name\n");
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->kind = ARCHIVE_READ_PROFILE;
	r->account = id;
	if (http_defer(h, rq, r, out) < 0)
		http_reply_printf(out, 404, TEXT, "this server keeps no games\n");
}

void
web_api_board_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	const char *kind = rq->path + strlen("/api/leaderboard/");
	struct archive_read *r;
	char after[STORE_BOARD_CURSOR_TEXT + 16]; /* "after=" and the cursor (http_query()) */
	enum game_kind k;
	long long limit;

	out->cors = 1;
	if (game_kind_parse(kind, &k) < 0) {
		http_reply_printf(out, 404, TEXT, "no game of that kind: hokito or oxono\n");
		return;
	}
	if (query_num(rq, "limit", WEB_API_LIMIT, WEB_API_LIMIT_MAX, &limit) < 0 || limit == 0) {
		http_reply_printf(out, 400, TEXT, "limit is a number from 1 to %d\n",
		                  WEB_API_LIMIT_MAX);
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->kind = ARCHIVE_READ_LEADERBOARD;
	r->board.kind = k;
	r->board.limit = (size_t)limit;
	if (http_query(rq, "after", after, sizeof after) >= 0) {
		if (store_board_cursor_parse(after, &r->board.after) < 0) {
			archive_read_free(r);
			http_reply_printf(out, 400, TEXT, "after is the next of a page\n");
			return;
		}
		r->board.has_after = 1;
	}
	if (http_defer(h, rq, r, out) < 0)
		http_reply_printf(out, 200, "application/json",
		                  "{\"type\":\"leaderboard\",\"kind\":\"%s\",\"entries\":[]}\n",
		                  game_kind_name(k));
}

void
web_api_stream_get(struct http *h, const struct http_request *rq, struct http_reply *out)
{
	const char *id = rq->path + strlen("/api/stream/game/");
	long long since;
	int rc;

	out->cors = 1;
	if (query_num(rq, "since", -1, 1000000000, &since) < 0) {
		http_reply_printf(out, 400, TEXT,
		                  "since is the seq of an event: a number from 0\n");
		return;
	}
	rc = strlen(id) >= STORE_ID_MAX ? -1 : http_stream(h, rq, id, since);
	if (rc == HTTP_STREAM_WAIT) {
		http_reply_printf(out, 503, TEXT,
		                  "the server is waiting for its store: ask again in a few "
		                  "seconds\n");
		out->retry_after = 5;
	} else if (rc < 0)
		http_reply_printf(out, 404, TEXT,
		                  "no public game with that id in play here (a finished one: "
		                  "/api/game/ID)\n");
}

/* o (stolen) as the JSON body of out. */
static void
answer_json(json_t *o, struct http_reply *out)
{
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(o);
	http_reply_printf(out, 200, "application/json", "%s\n", text);
	free(text);
}

/*
 * A game's stored events as a JSON array, one event a line: each the protocol's line exactly as
 * it was sent (its bytes as stored, so the array is the events' lines joined by commas).
 */
static void
answer_events(const struct archive_read *r, struct http_reply *out)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL) {
		http_reply_printf(out, 500, TEXT, "out of memory\n");
		return;
	}
	fputs("[", f);
	for (size_t i = 0; i < r->nevents; i++) {
		const struct store_event *ev = &r->events[i];

		fputs(i == 0 ? "\n" : ",\n", f);
		fwrite(ev->body, 1, ev->body_len > 0 ? ev->body_len : strlen(ev->body), f);
	}
	fputs("\n]\n", f);
	if (fclose(f) != 0) {
		free(text);
		http_reply_printf(out, 500, TEXT, "out of memory\n");
		return;
	}
	free(out->body);
	out->body = text;
	out->len = len;
	out->status = 200;
	out->type = "application/json";
}

/* A history page's JSON: the protocol's history_page, without an id. */
static void
answer_history(const struct accounts *as, const struct archive_read *r, struct http_reply *out)
{
	json_t *o = json_object(), *games = json_array();

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
	answer_json(o, out);
}

void
web_api_answer(const struct lobby *lb, const struct archive_read *r, struct http_reply *out)
{
	const struct account *a;

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
		answer_history(&lb->accounts, r, out);
		return;
	case ARCHIVE_READ_RECORD:
		http_reply_printf(out, 200, TEXT, "%s", r->text);
		return;
	case ARCHIVE_READ_PROFILE:
		a = accounts_find_id(&lb->accounts, r->account);
		if (a == NULL || a->row.closed_ms != 0) { /* closed while the store was read */
			http_reply_printf(out, 404, TEXT, "no account of that name\n");
			return;
		}
		answer_json(ladder_profile_new(lb, a, r->rated, r->rc), out);
		return;
	case ARCHIVE_READ_LEADERBOARD:
		answer_json(ladder_board_new(r), out);
		return;
	case ARCHIVE_READ_EVENTS:
		answer_events(r, out);
		return;
	case ARCHIVE_READ_UNUSED:
		break; /* the node's housekeeping asks it, never this side */
	}
	http_reply_printf(out, 500, TEXT, "no such answer\n");
}
