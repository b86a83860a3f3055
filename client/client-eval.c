/*
 * client-eval.c: the evaluation of each position of a replayed game, computed here with the
 * search (common/search.h) at a small fixed budget, on libuv's thread pool.
 *
 * A replay (struct client_replay) keeps one struct client_eval per position, from the start to
 * the last move. client_eval_kick() searches one position at a time: the one on screen first,
 * then those after it, then those before, so that stepping through a game finds its evaluations
 * ready. The work item owns a copy of the position and uses the one search this module keeps (one
 * item at a time, so the loop thread never touches the search while it runs); its after-work
 * callback, on the loop thread, stores the result if the same replay is still loaded (the replay's
 * generation), asks the view to draw and starts the next. The budget is a depth (the same result
 * as `hokito-engine analyse --depth`), with a node cap so that no position takes long; positions
 * where the game is over need no search. client_eval_stop() at quit lets a running search finish
 * and frees everything in its callback. The views read the entries; only this file writes them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "search.h"
#include "xmalloc.h"

#define EVAL_TT_BYTES (16u << 20) /* the search's transposition table */
#define EVAL_NODES    2000000     /* no position takes more, whatever the depth */

struct client_evaluator {
	uv_work_t work;
	struct client *c;       /* loop thread only */
	struct search *search;  /* owned; used by one work item at a time */
	int busy;               /* a work item is queued or running */
	int closing;            /* the client quits: free in the after-work callback */
	unsigned gen;           /* the replay generation of the position being searched */
	size_t ply;             /* ... and its ply */
	struct game pos;        /* the work's own copy of the position */
	struct search_result r; /* what the search found */
	int rc;                 /* search_run()'s result */
};

/* Thread pool: search the copied position from cold (the same result for the same position). */
static void
eval_work_cb(uv_work_t *req)
{
	struct client_evaluator *ev = container_of(req, struct client_evaluator, work);
	struct search_limits lim;

	memset(&lim, 0, sizeof lim);
	lim.depth = CLIENT_EVAL_DEPTH;
	lim.nodes = EVAL_NODES;
	search_clear(ev->search);
	ev->rc = search_run(ev->search, &ev->pos, &lim, &ev->r);
}

/* The text of an evaluation: who is ahead, by how much, or the proved or final result. */
static void
eval_text(const struct game *g, const struct search_result *r, struct client_eval *e)
{
	enum game_kind kind = g->kind;
	int side = game_side(g), v = side == 0 ? r->score : -r->score; /* side 0's view */
	int lead = v >= 0 ? 0 : 1, av = v >= 0 ? v : -v;
	const char *name = client_state_side_name(kind, lead);

	e->depth = r->depth;
	game_move_format(kind, r->best, e->best, sizeof e->best);
	if (r->proved && v == 0) {
		snprintf(e->text, sizeof e->text, "draw (proved)");
	} else if (r->proved && game_kind_has(kind, GAME_HAS_SCORES)) {
		snprintf(e->text, sizeof e->text, "%s wins by %d (proved)", name, eval_margin(av));
	} else if (r->proved) {
		int plies = eval_win_plies(av, g);
		snprintf(e->text, sizeof e->text, "%s wins in %d %s (proved)", name, plies,
		         plies == 1 ? "ply" : "plies");
	} else if (v == 0) {
		snprintf(e->text, sizeof e->text, "even");
	} else if (game_kind_has(kind, GAME_HAS_SCORES)) {
		snprintf(e->text, sizeof e->text, "%s ahead by %.2f", name, (double)av / EVAL_UNIT);
	} else {
		snprintf(e->text, sizeof e->text, "%s ahead (%d)", name, av);
	}
}

/* The evaluation of a finished position: the result itself. */
static void
eval_over(const struct game *g, struct client_eval *e)
{
	struct game_outcome o;

	game_outcome(g, &o);
	e->depth = 0;
	e->best[0] = '\0';
	if (o.winner < 0)
		snprintf(e->text, sizeof e->text, "game over: a draw");
	else if (game_kind_has(g->kind, GAME_HAS_SCORES))
		snprintf(e->text, sizeof e->text, "game over: %s wins by %d",
		         client_state_side_name(g->kind, o.winner),
		         o.score[o.winner] - o.score[1 - o.winner]);
	else
		snprintf(e->text, sizeof e->text, "game over: %s wins",
		         client_state_side_name(g->kind, o.winner));
}

static void eval_after_cb(uv_work_t *req, int status);

/* The next position to evaluate: the one shown, then those after it, then those before. */
static int
eval_next(const struct client_replay *rp, size_t *ply)
{
	size_t n = rp->rec.nmoves;

	for (size_t p = rp->ply; p <= n; p++)
		if (!rp->eval[p].done) {
			*ply = p;
			return 1;
		}
	for (size_t p = rp->ply; p-- > 0;)
		if (!rp->eval[p].done) {
			*ply = p;
			return 1;
		}
	return 0;
}

void
client_eval_kick(struct client *c)
{
	struct client_replay *rp = &c->replay;
	struct client_evaluator *ev = c->eval;
	size_t ply;

	if (c->quitting || !rp->active || (ev != NULL && ev->busy))
		return;
	while (eval_next(rp, &ply)) {
		struct game g;

		client_replay_position(rp, ply, &g);
		if (game_over(&g)) {
			eval_over(&g, &rp->eval[ply]);
			rp->eval[ply].done = 1;
			continue;
		}
		if (ev == NULL) {
			ev = c->eval = xcalloc(1, sizeof *ev);
			ev->c = c;
			ev->search = search_create(EVAL_TT_BYTES, 0);
		}
		ev->pos = g;
		ev->gen = rp->gen;
		ev->ply = ply;
		ev->busy = 1;
		if (uv_queue_work(c->loop, &ev->work, eval_work_cb, eval_after_cb) < 0) {
			ev->busy = 0;
			snprintf(rp->eval[ply].text, sizeof rp->eval[ply].text, "not available");
			rp->eval[ply].done = 1;
			continue;
		}
		return;
	}
}

/* Loop thread: keep the result if the replay is the same, show it, go on with the next. */
static void
eval_after_cb(uv_work_t *req, int status)
{
	struct client_evaluator *ev = container_of(req, struct client_evaluator, work);
	struct client *c = ev->c;
	struct client_replay *rp = &c->replay;

	ev->busy = 0;
	if (ev->closing) {
		search_free(ev->search);
		free(ev);
		return;
	}
	if (status == 0 && ev->rc == 0 && rp->active && rp->gen == ev->gen &&
	    ev->ply <= rp->rec.nmoves) {
		eval_text(&ev->pos, &ev->r, &rp->eval[ev->ply]);
		rp->eval[ev->ply].done = 1;
		if (ev->ply == rp->ply)
			client_update(c);
	}
	client_eval_kick(c);
}

void
client_eval_stop(struct client *c)
{
	struct client_evaluator *ev = c->eval;

	if (ev == NULL)
		return;
	c->eval = NULL;
	if (ev->busy) {
		ev->closing = 1; /* the after-work callback frees it */
		return;
	}
	search_free(ev->search);
	free(ev);
}
