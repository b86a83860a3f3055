/*
 * bench-match.c: a match between two computer players, for measuring the levels' strength.
 *
 *   bench-match --game hokito|oxono --a PLAYER --b PLAYER [--games N] [--seed S]
 *
 * A PLAYER is a level 1..8, "random" (a uniformly random legal move) or "greedy" (the best
 * move one ply ahead: HOKITO the largest score margin after the move; OXONO a winning move if
 * there is one, else a random move after which the opponent cannot win at once). Games come in
 * pairs from the same random start, the colours swapped: HOKITO from a seeded setup, OXONO from a
 * seeded setup and two random moves. It prints each pair as it ends and then the totals: A's
 * wins, draws, B's wins, and A's share of the decided games. Everything is seeded, so a match
 * is the same on every run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game.h"
#include "rng.h"
#include "search.h"

#define MATCH_TT_BYTES (32u << 20)

enum { PLAYER_RANDOM = 0, PLAYER_GREEDY = -1 };

struct match_player {
	int level;        /* 1..8, or PLAYER_RANDOM, PLAYER_GREEDY */
	int custom;       /* limits below instead of the level's: "depth/nodes/noise" */
	int depth, noise; /* custom limits */
	uint64_t lim_nodes;
	struct search *s; /* owned, for levels */
	struct rng rng;   /* for random and greedy choices */
	uint64_t nodes;   /* searched in the whole match */
	uint64_t moves;   /* moves played in the whole match */
};

static double
match_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
match_player_parse(const char *text, struct match_player *p, uint64_t seed)
{
	memset(p, 0, sizeof *p);
	rng_init(&p->rng, seed);
	if (strcmp(text, "random") == 0) {
		p->level = PLAYER_RANDOM;
		return 0;
	}
	if (strcmp(text, "greedy") == 0) {
		p->level = PLAYER_GREEDY;
		return 0;
	}
	if (strchr(text, '/') != NULL) {
		p->custom = 1;
		p->level = SEARCH_LEVEL_MAX;
		if (sscanf(text, "%d/%" SCNu64 "/%d", &p->depth, &p->lim_nodes, &p->noise) != 3)
			return -1;
	} else {
		p->level = atoi(text);
	}
	if (p->level < SEARCH_LEVEL_MIN || p->level > SEARCH_LEVEL_MAX)
		return -1;
	p->s = search_create(MATCH_TT_BYTES, seed);
	return 0;
}

/* The greedy player's move: see the top of the file. */
static struct game_move
match_greedy(struct match_player *p, const struct game *g, struct game_move *moves, int n)
{
	struct game_move pick[GAME_MOVES_MAX];
	int best = -EVAL_INF, npick = 0, me = game_side(g);

	for (int i = 0; i < n; i++) {
		struct game child = *g;
		struct game_outcome o;
		int v, exact;

		game_apply(&child, moves[i]);
		game_outcome(&child, &o);
		if (g->kind == GAME_HOKITO) {
			v = o.score[me] - o.score[me ^ 1];
		} else if (o.winner == me) {
			v = 2;
		} else {
			int opp = eval_leaf(&child, &exact);
			v = exact && opp > 0 ? 0 : 1;
		}
		if (v > best) {
			best = v;
			npick = 0;
		}
		if (v == best)
			pick[npick++] = moves[i];
	}
	return pick[rng_below(&p->rng, (uint32_t)npick)];
}

static struct game_move
match_move(struct match_player *p, const struct game *g, uint64_t game_seed)
{
	struct game_move moves[GAME_MOVES_MAX];
	struct search_limits lim;
	struct search_result r;
	int n = game_moves(g, moves);

	p->moves++;
	if (p->level == PLAYER_RANDOM)
		return moves[rng_below(&p->rng, (uint32_t)n)];
	if (p->level == PLAYER_GREEDY)
		return match_greedy(p, g, moves, n);
	search_level_limits(p->level, g->kind, game_seed, &lim);
	if (p->custom) {
		lim.depth = p->depth;
		lim.nodes = p->lim_nodes;
		lim.noise = p->noise;
	}
	search_run(p->s, g, &lim, &r);
	p->nodes += r.nodes;
	return r.best;
}

/* Play one game from start; returns the winning side, or -1 for a draw. */
static int
match_game(const struct game *start, struct match_player *first, struct match_player *second,
           uint64_t game_seed, int *plies)
{
	struct match_player *side[2] = {first, second};
	struct game g = *start;
	struct game_outcome o;

	for (int i = 0; i < 2; i++)
		if (side[i]->s != NULL)
			search_clear(side[i]->s);
	while (!game_over(&g)) {
		struct game_move m = match_move(side[game_side(&g)], &g, game_seed);
		game_apply(&g, m);
	}
	*plies = game_ply(&g) - game_ply(start);
	game_outcome(&g, &o);
	return o.winner;
}

int
main(int argc, char **argv)
{
	const char *a_text = NULL, *b_text = NULL;
	struct match_player a, b;
	enum game_kind kind = GAME_HOKITO;
	uint64_t seed = 1;
	int games = 20, result[3] = {0, 0, 0}, plies_total = 0;
	double t0;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--game") == 0 && game_kind_parse(argv[i + 1], &kind) == 0)
			continue;
		if (strcmp(argv[i], "--a") == 0)
			a_text = argv[i + 1];
		else if (strcmp(argv[i], "--b") == 0)
			b_text = argv[i + 1];
		else if (strcmp(argv[i], "--games") == 0)
			games = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--seed") == 0)
			seed = strtoull(argv[i + 1], NULL, 10);
		else
			break;
	}
	if (a_text == NULL || b_text == NULL || games < 1 ||
	    match_player_parse(a_text, &a, seed * 2 + 1) < 0 ||
	    match_player_parse(b_text, &b, seed * 2 + 2) < 0) {
		fprintf(stderr, "usage: bench-match --game hokito|oxono --a PLAYER --b PLAYER "
		                "[--games N] [--seed S]\n(PLAYER: 1..8, random, greedy)\n");
		return 2;
	}
	t0 = match_now();
	for (int pair = 0; pair < (games + 1) / 2; pair++) {
		uint64_t game_seed = seed * 1000003 + (uint64_t)pair;
		struct game start;
		char text[GAME_TEXT_MAX];

		game_start(&start, kind, NULL, game_seed, NULL);
		if (kind == GAME_OXONO) {
			struct rng r;
			rng_init(&r, game_seed);
			for (int k = 0; k < 2; k++) {
				struct game_move moves[GAME_MOVES_MAX];
				int n = game_moves(&start, moves);
				game_apply(&start, moves[rng_below(&r, (uint32_t)n)]);
			}
		}
		game_format(&start, text, sizeof text);
		for (int k = 0; k < 2 && pair * 2 + k < games; k++) {
			int a_side = k, plies, w;
			w = a_side == 0 ? match_game(&start, &a, &b, game_seed, &plies)
			                : match_game(&start, &b, &a, game_seed, &plies);
			plies_total += plies;
			result[w < 0 ? 1 : w == a_side ? 0 : 2]++;
			printf("game %d: A plays %s: %s (%d plies)\n", pair * 2 + k + 1,
			       game_side_name(kind, a_side),
			       w < 0         ? "draw"
			       : w == a_side ? "A wins"
			                     : "B wins",
			       plies);
			fflush(stdout);
		}
	}
	printf("%s: A=%s B=%s games=%d: A wins %d, draws %d, B wins %d; A took %.1f%% of the "
	       "decided games; %.1f plies a game; A %.0f, B %.0f nodes a move; %.1f s\n",
	       game_kind_name(kind), a_text, b_text, games, result[0], result[1], result[2],
	       result[0] + result[2] ? 100.0 * result[0] / (result[0] + result[2]) : 0.0,
	       (double)plies_total / games, a.moves ? (double)a.nodes / (double)a.moves : 0.0,
	       b.moves ? (double)b.nodes / (double)b.moves : 0.0, match_now() - t0);
	search_free(a.s);
	search_free(b.s);
	return 0;
}
