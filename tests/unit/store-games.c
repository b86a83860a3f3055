/*
 * store-games.c: the games the store's tests write and read back through the ports
 * (store-games.h). Compiled into each test program that uses them.
 */
#include <stdio.h>
#include <string.h>

#include "store-games.h"

int
add_seated(const struct store_write_port *w, const struct store_game *g, int64_t a0, int64_t a1)
{
	struct store_event ev = {.time_ms = g->created_ms};
	char body[128];
	int rc;

	if ((rc = w->game_add(w->impl, g, NULL)) < 0)
		return rc;
	for (int seat = 0; seat < 2; seat++) {
		if ((rc = w->seat_set(w->impl, g->id, seat, seat ? "p2" : "p1",
		                      seat ? "bob" : "alice", seat ? a1 : a0, NULL)) < 0)
			return rc;
		ev.seq = seat + 1;
		ev.type = "seated";
		snprintf(body, sizeof body, "{\"type\":\"seated\",\"game\":\"%s\",\"seq\":%d}",
		         g->id, seat + 1);
		ev.body = body;
		if ((rc = w->event_add(w->impl, g->id, &ev, NULL)) < 0)
			return rc;
	}
	ev.seq = 3;
	ev.type = "started";
	ev.body = "{\"type\":\"started\"}";
	if ((rc = w->event_add(w->impl, g->id, &ev, NULL)) < 0)
		return rc;
	return w->status_set(w->impl, g->id, "live", NULL);
}

int
add_game(const struct store_write_port *w, const char *id, enum game_kind kind, uint64_t seed,
         int64_t now)
{
	struct store_game g = {.kind = kind, .seed = seed, .created_ms = now};

	snprintf(g.id, sizeof g.id, "%s", id);
	snprintf(g.variant, sizeof g.variant, "standard");
	return add_seated(w, &g, 0, 0);
}

int
play(const struct store_write_port *w, const char *id, struct game *g, int64_t *seq, int n,
     struct rng *rng)
{
	struct game_move moves[GAME_MOVES_MAX];
	char text[GAME_MOVE_TEXT], body[128];
	int rc, k;

	for (int i = 0; i < n && (k = game_moves(g, moves)) > 0; i++) {
		struct game_move m = moves[rng_below(rng, (uint32_t)k)];
		struct store_event ev = {.seq = ++*seq, .time_ms = 1000 + *seq, .type = "moved"};

		game_move_format(g->kind, m, text, sizeof text);
		snprintf(body, sizeof body, "{\"type\":\"moved\",\"move\":\"%s\"}", text);
		ev.move = text;
		ev.body = body;
		if ((rc = w->event_add(w->impl, id, &ev, NULL)) < 0)
			return rc;
		game_apply(g, m);
	}
	return 0;
}

int
finish(const struct store_write_port *w, const char *id, const struct game *g, int64_t *seq,
       int64_t ended)
{
	struct store_event ev = {.seq = ++*seq, .time_ms = ended, .type = "game_over"};
	struct game_outcome o;
	int rc;

	game_outcome(g, &o);
	ev.body = "{\"type\":\"game_over\"}";
	if ((rc = w->event_add(w->impl, id, &ev, NULL)) < 0)
		return rc;
	return w->game_finish(w->impl, id, ended, o.winner < 0 ? "draw" : "win", o.winner,
	                      o.end == GAME_END_BLOCKED ? "blocked"
	                      : o.end == GAME_END_LINE  ? "line"
	                                                : "full",
	                      o.score, NULL);
}

int
finish_as(const struct store_write_port *w, const char *id, int64_t *seq, int64_t ended,
          const char *result)
{
	struct store_event ev = {.seq = ++*seq, .time_ms = ended, .type = "game_over"};
	int win = strcmp(result, "win") == 0;
	int rc;

	ev.body = "{\"type\":\"game_over\"}";
	if ((rc = w->event_add(w->impl, id, &ev, NULL)) < 0)
		return rc;
	return w->game_finish(w->impl, id, ended, result, win ? 0 : -1,
	                      win ? "resign" : "agreement", NULL, NULL);
}

int
walk_history(const struct store_read_port *rp, size_t limit, char ids[][STORE_ID_MAX],
             int64_t *total)
{
	struct store_history_query q = {.limit = limit};
	struct store_history_page pg;
	struct store_game page[10];
	int n, all = 0;

	if (limit > sizeof page / sizeof page[0])
		return STORE_EINVAL;
	do {
		char text[STORE_CURSOR_TEXT];
		if ((n = rp->history(rp->impl, &q, page, &pg, NULL)) < 0)
			return n;
		for (int i = 0; i < n; i++)
			memcpy(ids[all++], page[i].id, STORE_ID_MAX);
		*total = pg.total;
		/* the cursor goes to the client as text and comes back */
		store_cursor_format(&pg.next, text, sizeof text);
		if (pg.more && store_cursor_parse(text, &q.after) < 0)
			return -100;
		q.has_after = 1;
	} while (pg.more);
	return all;
}

int
load_cb(void *ctx, const struct store_game *g, const struct store_event *ev, size_t n,
        const struct game *start, const struct game *position)
{
	struct loaded *l = ctx;

	(void)start;
	if (l->n >= LOADED_MAX)
		return 1;
	l->g[l->n] = *g;
	game_format(position, l->pos[l->n], sizeof l->pos[0]);
	l->nev[l->n] = n;
	snprintf(l->last_body[l->n], sizeof l->last_body[0], "%.*s",
	         n ? (int)(ev[n - 1].body_len ? ev[n - 1].body_len : strlen(ev[n - 1].body)) : 0,
	         n ? ev[n - 1].body : "");
	l->n++;
	return 0;
}
