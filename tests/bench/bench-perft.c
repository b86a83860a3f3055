/*
 * bench-perft.c: perft speed of both games, single thread, in leaf nodes per second.
 *
 * For each game it runs perft on a few seeded start positions (and, for HOKITO, a random36 one)
 * at a depth that takes about a second, three times, and prints the median speed. The clock is
 * read around the perft calls only, so process start-up is not counted. Used by perft.sh, which
 * sets it beside Stockfish's chess perft on the same machine.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game.h"

struct bench_case {
	enum game_kind kind;
	const char *variant;
	uint64_t seed;
	int depth;
};

static double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One game's speed: the median of three rounds over all its cases. */
static double
bench_game(const struct bench_case *cases, int n, uint64_t *leaves_out)
{
	double speed[3];

	for (int round = 0; round < 3; round++) {
		uint64_t leaves = 0;
		double t0 = bench_now(), t1;
		for (int i = 0; i < n; i++) {
			struct game g;
			game_start(&g, cases[i].kind, cases[i].variant, cases[i].seed, NULL);
			leaves += game_perft(&g, cases[i].depth);
		}
		t1 = bench_now();
		speed[round] = (double)leaves / (t1 - t0);
		*leaves_out = leaves;
	}
	qsort(speed, 3, sizeof speed[0], bench_cmp);
	return speed[1];
}

int
main(int argc, char **argv)
{
	static const struct bench_case hokito[] = {
	        {GAME_HOKITO, NULL, 1, 4},       {GAME_HOKITO, NULL, 2, 4},
	        {GAME_HOKITO, NULL, 3, 4},       {GAME_HOKITO, "random36", 4, 4},
	        {GAME_HOKITO, "random36", 5, 4},
	};
	static const struct bench_case oxono[] = {
	        {GAME_OXONO, NULL, 1, 5},
	        {GAME_OXONO, NULL, 2, 5},
	};
	uint64_t leaves;
	double s;

	(void)argc;
	(void)argv;
	s = bench_game(hokito, (int)(sizeof hokito / sizeof hokito[0]), &leaves);
	printf("hokito perft: %" PRIu64 " leaves, median %.0f leaves/s\n", leaves, s);
	s = bench_game(oxono, (int)(sizeof oxono / sizeof oxono[0]), &leaves);
	printf("oxono perft: %" PRIu64 " leaves, median %.0f leaves/s\n", leaves, s);
	return 0;
}
