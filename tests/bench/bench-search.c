/*
 * bench-search.c: the search's speed and how early it solves games, for both games.
 *
 *   bench-search [speed] [horizon] [--games N]
 *
 * speed: fixed-depth searches (cold table) of seeded positions at the start and in the middle
 * of the game; prints nodes, CPU time and nodes per CPU second for each game (CPU time, so that
 * other processes on the machine do not change the figure).
 *
 * horizon: plays N games level 5 against level 5 from seeded starts, then walks back from each
 * game's end: for k = 1, 2, ... plies before the end it searches the position with one second on
 * the clock and a cold table, and notes whether the result was proved (solved exactly; for an
 * OXONO win, proved won). It prints, per game, the largest k solved within the second at every
 * step back, and the time taken there (the second is CPU time, so other load on the machine
 * does not shorten it); then the smallest, median and largest such k. That k is
 * how early the exact endgame solving starts with one second per move.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game.h"
#include "search.h"

#define BENCH_TT_BYTES (64u << 20)

/* CPU time of this process in ms: the speed figure does not depend on other load. */
static uint64_t
bench_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t
bench_cpu_clock_cb(void *arg)
{
	(void)arg;
	return bench_cpu_ms();
}

static void
bench_speed(struct search *s, enum game_kind kind, int depth, int plies_in)
{
	uint64_t nodes = 0, t0 = bench_cpu_ms(), ms;

	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct search_limits lim = {.depth = depth};
		struct search_result r;
		struct game_move moves[GAME_MOVES_MAX];
		struct game g;

		game_start(&g, kind, NULL, seed, NULL);
		for (int i = 0; i < plies_in && !game_over(&g); i++) {
			int n = game_moves(&g, moves);
			game_apply(&g, moves[(seed * 7 + (uint64_t)i * 13) % (uint64_t)n]);
		}
		if (game_over(&g))
			continue;
		search_clear(s);
		search_run(s, &g, &lim, &r);
		nodes += r.nodes;
	}
	ms = bench_cpu_ms() - t0;
	printf("%s speed: depth %d after %d plies, 4 positions: %" PRIu64 " nodes in %" PRIu64
	       " ms of CPU, %.0f nodes/s\n",
	       game_kind_name(kind), depth, plies_in, nodes, ms,
	       ms ? (double)nodes * 1000.0 / (double)ms : 0.0);
	fflush(stdout);
}

static int
bench_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void
bench_horizon(struct search *s, enum game_kind kind, int games)
{
	int *ks = calloc((size_t)games, sizeof *ks);

	for (int gi = 0; gi < games; gi++) {
		struct game hist[64], g;
		int len = 0, k, last_k = 0;
		uint64_t last_ms = 0;

		game_start(&g, kind, NULL, 1000 + (uint64_t)gi, NULL);
		search_clear(s);
		while (!game_over(&g) && len < 63) {
			struct search_limits lim;
			struct search_result r;
			hist[len++] = g;
			search_level_limits(5, kind, (uint64_t)gi, &lim);
			search_run(s, &g, &lim, &r);
			game_apply(&g, r.best);
		}
		for (k = 1; k <= len; k++) {
			struct search_limits lim = {.time_ms = 1000,
			                            .clock_cb = bench_cpu_clock_cb};
			struct search_result r;
			uint64_t t0 = bench_cpu_ms(), ms;
			int solved;

			search_clear(s);
			search_run(s, &hist[len - k], &lim, &r);
			ms = bench_cpu_ms() - t0;
			solved =
			        r.proved || ((r.proof & SEARCH_PROOF_LOWER) && r.score >= EVAL_WIN);
			if (!solved || ms > 1000)
				break;
			last_k = k;
			last_ms = ms;
		}
		ks[gi] = last_k;
		printf("%s game %d: %d plies; solved within 1 s from %d plies before the end "
		       "(ply %d, %" PRIu64 " ms there)\n",
		       game_kind_name(kind), gi + 1, len, last_k, len - last_k, last_ms);
		fflush(stdout);
	}
	qsort(ks, (size_t)games, sizeof *ks, bench_cmp);
	printf("%s horizon: solved within 1 s from k plies before the end: min %d, median %d, "
	       "max %d (over %d games)\n",
	       game_kind_name(kind), ks[0], ks[games / 2], ks[games - 1], games);
	free(ks);
}

int
main(int argc, char **argv)
{
	struct search *s = search_create(BENCH_TT_BYTES, 1);
	int speed = 0, horizon = 0, games = 10;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "speed") == 0)
			speed = 1;
		else if (strcmp(argv[i], "horizon") == 0)
			horizon = 1;
		else if (strcmp(argv[i], "--games") == 0 && i + 1 < argc)
			games = atoi(argv[++i]);
	}
	if (!speed && !horizon)
		speed = horizon = 1;
	if (games < 1)
		games = 1;
	if (speed) {
		bench_speed(s, GAME_HOKITO, 5, 0);
		bench_speed(s, GAME_HOKITO, 7, 12);
		bench_speed(s, GAME_OXONO, 5, 0);
		bench_speed(s, GAME_OXONO, 6, 4);
	}
	if (horizon) {
		bench_horizon(s, GAME_HOKITO, games);
		bench_horizon(s, GAME_OXONO, games);
	}
	search_free(s);
	return 0;
}
