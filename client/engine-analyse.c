/*
 * engine-analyse.c: hokito-engine analyse, the search on one position from the command line.
 *
 * It prints, one "key: value" line each: the best move, the evaluation from the side to move's
 * view (or the proved result with best play, when the search solved the position), the depth
 * reached, the principal variation, the nodes searched and the speed. With --depth the search is
 * a fixed-depth one and its output is the same on every machine (except the time and speed);
 * with --time (default one second) it is bounded by the clock. It owns nothing beyond the
 * search it makes and frees.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "search.h"

#define ANALYSE_TT_BYTES (64u << 20)
#define ANALYSE_TIME_MS  1000

/* Milliseconds on the monotonic clock: the search's clock callback. */
static uint64_t
engine_analyse_clock_cb(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Nanoseconds on the monotonic clock: what the search took, for the time and speed lines. The
 * search's own clock (above) counts whole milliseconds, too coarse to time a shallow search.
 */
static uint64_t
engine_analyse_nanos(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Print the score line: a proved result in words, or the heuristic evaluation. */
static void
engine_analyse_score(const struct game *g, const struct search_result *r)
{
	int me = game_side(g);
	const char *mine = game_side_name(g->kind, me), *theirs = game_side_name(g->kind, me ^ 1);
	/* With scores (HOKITO), a final score is a margin; without (OXONO), a win's speed. */
	int margin = game_kind_has(g->kind, GAME_HAS_SCORES);
	int plies = margin ? 0 : eval_win_plies(r->score, g);

	if (!r->proved && (r->proof & SEARCH_PROOF_LOWER) && r->score >= EVAL_WIN) {
		if (margin)
			printf("result: %s wins by at least %d (proved)\n", mine,
			       eval_margin(r->score));
		else
			printf("result: %s wins in at most %d %s (proved)\n", mine, plies,
			       plies == 1 ? "ply" : "plies");
		return;
	}
	if (!r->proved && (r->proof & SEARCH_PROOF_UPPER) && r->score <= -EVAL_WIN) {
		if (margin)
			printf("result: %s wins by at least %d (proved)\n", theirs,
			       -eval_margin(r->score));
		else
			printf("result: %s wins (proved)\n", theirs);
		return;
	}
	if (!r->proved) {
		if (margin)
			printf("score: %+.2f (points of margin for %s, estimated)\n",
			       (double)r->score / EVAL_UNIT, mine);
		else
			printf("score: %+d (for %s, estimated)\n", r->score, mine);
		return;
	}
	if (margin) {
		int m = eval_margin(r->score);
		if (m == 0)
			printf("result: draw (proved)\n");
		else
			printf("result: %s wins by %d (proved)\n", m > 0 ? mine : theirs,
			       m > 0 ? m : -m);
		return;
	}
	if (r->score == 0) {
		printf("result: draw (proved)\n");
	} else {
		printf("result: %s wins in %d %s (proved)\n", r->score > 0 ? mine : theirs, plies,
		       plies == 1 ? "ply" : "plies");
	}
}

int
engine_analyse(struct engine_opts *o)
{
	struct search_limits lim;
	struct search_result r;
	struct search *s;
	struct game g, pos;
	char text[GAME_MOVE_TEXT];
	uint64_t t0, ns;
	int rc;

	if ((rc = engine_position_only(o, &g)) != 0)
		return rc;
	if (o->depth >= 0 && o->time_ms != 0)
		return engine_fail(EXIT_USAGE, "give --time or --depth, not both");
	if (game_over(&g)) {
		printf("bestmove: none\n");
		printf("result: the game is over\n");
		return 0;
	}
	memset(&lim, 0, sizeof lim);
	if (o->depth > 0) {
		lim.depth = o->depth;
	} else {
		lim.time_ms = o->time_ms != 0 ? o->time_ms : ANALYSE_TIME_MS;
		lim.clock_cb = engine_analyse_clock_cb;
	}
	s = search_create(ANALYSE_TT_BYTES, o->seed);
	t0 = engine_analyse_nanos();
	search_run(s, &g, &lim, &r);
	ns = engine_analyse_nanos() - t0;
	search_free(s);

	game_move_format(g.kind, r.best, text, sizeof text);
	printf("bestmove: %s\n", text);
	engine_analyse_score(&g, &r);
	printf("depth: %d\n", r.depth);
	printf("pv:");
	pos = g;
	for (int i = 0; i < r.pvlen && game_move_legal(&pos, r.pv[i]); i++) {
		game_move_format(g.kind, r.pv[i], text, sizeof text);
		printf(" %s", text);
		game_apply(&pos, r.pv[i]);
	}
	printf("\n");
	printf("nodes: %" PRIu64 "\n", r.nodes);
	/*
	 * The time in milliseconds to the microsecond, and the speed from the nanoseconds. A time
	 * the clock could not tell from nothing has no speed: "nps: unknown", never a guess.
	 */
	printf("time: %" PRIu64 ".%03" PRIu64 " ms\n", ns / 1000000, ns / 1000 % 1000);
	if (ns > 0)
		printf("nps: %.0f\n", (double)r.nodes * 1e9 / (double)ns);
	else
		printf("nps: unknown\n");
	return 0;
}
