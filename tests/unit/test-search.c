/*
 * test-search.c: the search (common/search.c) and its evaluations (common/eval.c).
 *
 * Every check here is against a reference written plainly in this file: a minimax without
 * pruning or table for fixed depths, an exhaustive solver for endgames, and a forced-win finder
 * for OXONO. Positions come from seeded random games, and every budget is a depth or a node
 * count, so the tests are the same on every machine and never depend on time.
 */
#include "game.h"
#include "rng.h"
#include "search.h"
#include "test.h"

#define TT_BYTES (4u << 20)

/* A position k plies before the end of a random game from seed (0 if the game was shorter). */
static int
late_position(struct game *out, enum game_kind kind, uint64_t seed, int k)
{
	struct game hist[64], g;
	struct game_move moves[GAME_MOVES_MAX];
	struct rng r;
	int len = 0;

	game_start(&g, kind, NULL, seed, NULL);
	rng_init(&r, seed * 7 + 3);
	while (!game_over(&g) && len < 63) {
		int n = game_moves(&g, moves);
		hist[len++] = g;
		game_apply(&g, moves[rng_below(&r, (uint32_t)n)]);
	}
	if (len < k)
		return 0;
	*out = hist[len - k];
	return 1;
}

/* The number of nodes of the whole game tree below g, counting stops past cap. */
static uint64_t
tree_size(const struct game *g, uint64_t cap)
{
	struct game_move moves[GAME_MOVES_MAX];
	int n = game_moves(g, moves);
	uint64_t total = 1;

	for (int i = 0; i < n && total <= cap; i++) {
		struct game child = *g;
		game_apply(&child, moves[i]);
		total += tree_size(&child, cap - total);
	}
	return total;
}

/* A position after k random plies from the start of seed's game (0 if it ended before). */
static int
early_position(struct game *out, enum game_kind kind, uint64_t seed, int k)
{
	struct game_move moves[GAME_MOVES_MAX];
	struct rng r;

	game_start(out, kind, NULL, seed, NULL);
	rng_init(&r, seed * 11 + 5);
	for (int i = 0; i < k; i++) {
		int n = game_moves(out, moves);
		if (n == 0)
			return 0;
		game_apply(out, moves[rng_below(&r, (uint32_t)n)]);
	}
	return !game_over(out);
}

/* Plain minimax to a fixed depth with the search's own leaf rules: no pruning, no table. */
static int
ref_minimax(const struct game *g, int depth)
{
	struct game_move moves[GAME_MOVES_MAX];
	int n, best = -EVAL_INF, exact;

	if (depth == 0)
		return eval_leaf(g, &exact);
	n = game_moves(g, moves);
	if (n == 0)
		return eval_final(g);
	for (int i = 0; i < n; i++) {
		struct game child = *g;
		int v;
		game_apply(&child, moves[i]);
		v = -ref_minimax(&child, depth - 1);
		if (v > best)
			best = v;
	}
	return best;
}

/* The exact value of a position: minimax to the end of the game. */
static int
ref_solve(const struct game *g, uint64_t *nodes)
{
	struct game_move moves[GAME_MOVES_MAX];
	int n = game_moves(g, moves), best = -EVAL_INF;

	++*nodes;
	if (n == 0)
		return eval_final(g);
	for (int i = 0; i < n; i++) {
		struct game child = *g;
		int v;
		game_apply(&child, moves[i]);
		v = -ref_solve(&child, nodes);
		if (v > best)
			best = v;
	}
	return best;
}

/* OXONO: whether the side to move can force a line within k plies (k odd). */
static int
ref_forced_win(const struct game *g, int k)
{
	struct game_move moves[GAME_MOVES_MAX], replies[GAME_MOVES_MAX];
	int n = game_moves(g, moves), me = game_side(g);

	for (int i = 0; i < n && k >= 1; i++) {
		struct game child = *g;
		struct game_outcome o;
		int m, all = 1;

		game_apply(&child, moves[i]);
		game_outcome(&child, &o);
		if (o.end != GAME_END_NONE) {
			if (o.winner == me)
				return 1;
			continue;
		}
		if (k < 3)
			continue;
		m = game_moves(&child, replies);
		for (int j = 0; j < m && all; j++) {
			struct game gc = child;
			game_apply(&gc, replies[j]);
			all = !game_over(&gc) && ref_forced_win(&gc, k - 2);
		}
		if (all)
			return 1;
	}
	return 0;
}

/* A fixed-depth search, table included, gives exactly the minimax value. */
static void
check_fixed_depth(enum game_kind kind, int plies_in, int depth, int npos)
{
	struct search *s = search_create(TT_BYTES, 1);
	int checked = 0;

	for (uint64_t seed = 1; checked < npos && seed < 200; seed++) {
		struct search_limits lim = {.depth = depth};
		struct search_result r;
		struct game g, child;

		if (!early_position(&g, kind, seed, plies_in))
			continue;
		search_clear(s);
		ASSERT_EQ(search_run(s, &g, &lim, &r), 0);
		ASSERT_EQ(r.score, ref_minimax(&g, depth));
		ASSERT(game_move_legal(&g, r.best));
		child = g;
		game_apply(&child, r.best);
		ASSERT_EQ(-ref_minimax(&child, depth - 1), r.score);
		checked++;
	}
	ASSERT_EQ(checked, npos);
	search_free(s);
}

TEST(search_fixed_depth_hokito)
{
	check_fixed_depth(GAME_HOKITO, 14, 1, 6);
	if (test_failed_)
		return;
	check_fixed_depth(GAME_HOKITO, 14, 2, 6);
	if (test_failed_)
		return;
	check_fixed_depth(GAME_HOKITO, 18, 3, 4);
}

TEST(search_fixed_depth_oxono)
{
	check_fixed_depth(GAME_OXONO, 6, 1, 6);
	if (test_failed_)
		return;
	check_fixed_depth(GAME_OXONO, 6, 2, 6);
	if (test_failed_)
		return;
	check_fixed_depth(GAME_OXONO, 10, 3, 3);
}

/* Endgames: the search proves the value, which is the exhaustive solver's, best move included. */
static void
check_endgames(enum game_kind kind, int k, int npos)
{
	struct search *s = search_create(TT_BYTES, 2);
	int checked = 0, decided = 0;

	for (uint64_t seed = 1; checked < npos && seed < 400; seed++) {
		struct search_limits lim = {0};
		struct search_result r;
		struct game g, child;
		uint64_t nodes = 0;
		int value;

		if (!late_position(&g, kind, seed, k) || tree_size(&g, 50000) > 50000)
			continue;
		value = ref_solve(&g, &nodes);
		search_clear(s);
		ASSERT_EQ(search_run(s, &g, &lim, &r), 0);
		/* Solved; an OXONO search may stop as soon as it has proved a win. */
		ASSERT(r.proved || (kind == GAME_OXONO && (r.proof & SEARCH_PROOF_LOWER) &&
		                    r.score >= EVAL_WIN));
		ASSERT_EQ(r.score, value);
		child = g;
		game_apply(&child, r.best);
		nodes = 0;
		ASSERT_EQ(-ref_solve(&child, &nodes), value);
		decided += value != 0;
		checked++;
	}
	ASSERT_EQ(checked, npos);
	ASSERT(decided > 0);
	search_free(s);
}

TEST(search_hokito_endgame_exact_margin)
{
	check_endgames(GAME_HOKITO, 7, 12);
}

TEST(search_oxono_endgame_exact)
{
	check_endgames(GAME_OXONO, 4, 8);
}

/* HOKITO: a proved score reads back as the exact final margin of the solver. */
TEST(search_hokito_margin_reads_back)
{
	struct search *s = search_create(TT_BYTES, 3);
	int wins = 0;

	for (uint64_t seed = 1; seed < 30; seed++) {
		struct search_limits lim = {0};
		struct search_result r;
		struct game g, end;
		struct game_outcome o;
		int me;

		if (!late_position(&g, GAME_HOKITO, seed, 5))
			continue;
		search_clear(s);
		search_run(s, &g, &lim, &r);
		ASSERT(r.proved);
		/* Follow the proved line by searching again at each ply: both sides play it. */
		end = g;
		me = game_side(&g);
		while (!game_over(&end)) {
			struct search_result rr;
			search_run(s, &end, &lim, &rr);
			ASSERT(rr.proved);
			game_apply(&end, rr.best);
		}
		game_outcome(&end, &o);
		ASSERT_EQ(eval_margin(r.score), o.score[me] - o.score[me ^ 1]);
		wins += r.score >= EVAL_WIN;
	}
	ASSERT(wins > 0);
	search_free(s);
}

/* OXONO: wherever a line can be forced within three plies, the search finds and plays it. */
TEST(search_oxono_forced_win)
{
	struct search *s = search_create(TT_BYTES, 4);
	int found = 0;

	for (uint64_t seed = 1; seed < 300 && found < 10; seed++) {
		struct search_limits lim = {.depth = 4};
		struct search_result r;
		struct game g, child;
		struct game_outcome o;

		if (!late_position(&g, GAME_OXONO, seed, 3) || !ref_forced_win(&g, 3))
			continue;
		search_clear(s);
		search_run(s, &g, &lim, &r);
		ASSERT(r.proof & SEARCH_PROOF_LOWER);
		ASSERT(r.score >= EVAL_WIN);
		child = g;
		game_apply(&child, r.best);
		game_outcome(&child, &o);
		if (o.end == GAME_END_NONE) {
			/* Every reply must leave a line in one more move. */
			struct game_move replies[GAME_MOVES_MAX];
			int m = game_moves(&child, replies);
			for (int j = 0; j < m; j++) {
				struct game gc = child;
				game_apply(&gc, replies[j]);
				ASSERT(!game_over(&gc));
				ASSERT(ref_forced_win(&gc, 1));
			}
		} else {
			ASSERT_EQ(o.winner, game_side(&g));
		}
		found++;
	}
	ASSERT_EQ(found, 10);
	search_free(s);
}

/* HOKITO: a forced win some plies deep is found and kept to the end against every defence. */
TEST(search_hokito_forced_win_played_out)
{
	struct search *s = search_create(TT_BYTES, 5);
	int games = 0;

	for (uint64_t seed = 1; seed < 200 && games < 5; seed++) {
		struct search_limits lim = {0};
		struct search_result r;
		struct game g;
		struct rng rng;
		int me;

		if (!late_position(&g, GAME_HOKITO, seed, 8))
			continue;
		search_clear(s);
		search_run(s, &g, &lim, &r);
		if (!r.proved || r.score < EVAL_WIN)
			continue;
		/* The winner follows the search, the loser plays at random: the win must hold. */
		me = game_side(&g);
		rng_init(&rng, seed);
		while (!game_over(&g)) {
			struct game_move moves[GAME_MOVES_MAX];
			int n = game_moves(&g, moves);
			if (game_side(&g) == me) {
				search_run(s, &g, &lim, &r);
				ASSERT(r.proved && r.score >= EVAL_WIN);
				game_apply(&g, r.best);
			} else {
				game_apply(&g, moves[rng_below(&rng, (uint32_t)n)]);
			}
		}
		{
			struct game_outcome o;
			game_outcome(&g, &o);
			ASSERT_EQ(o.winner, me);
		}
		games++;
	}
	ASSERT_EQ(games, 5);
	search_free(s);
}

/* The same seed, limits and cold table give the same search, node for node. */
TEST(search_deterministic)
{
	for (int kind = 0; kind < 2; kind++) {
		for (int level = 1; level <= 5; level++) {
			struct search_limits lim;
			struct search_result r1, r2;
			struct search *a = search_create(TT_BYTES, 9),
			              *b = search_create(TT_BYTES, 9);
			struct game g;

			ASSERT(early_position(&g, (enum game_kind)kind, 42, 6));
			ASSERT_EQ(search_level_limits(level, (enum game_kind)kind, 77, &lim), 0);
			search_run(a, &g, &lim, &r1);
			search_run(b, &g, &lim, &r2);
			ASSERT_EQ(r1.best.from, r2.best.from);
			ASSERT_EQ(r1.best.to, r2.best.to);
			ASSERT_EQ(r1.best.place, r2.best.place);
			ASSERT_EQ(r1.score, r2.score);
			ASSERT_U64_EQ(r1.nodes, r2.nodes);
			/* The same search made again, after clearing, repeats itself too. */
			search_clear(a);
			search_run(a, &g, &lim, &r2);
			ASSERT_U64_EQ(r1.nodes, r2.nodes);
			ASSERT_EQ(r1.score, r2.score);
			search_free(a);
			search_free(b);
		}
	}
}

/*
 * Levels: out of range refused; budgets grow, level 1 is the noisiest and the top level has no
 * noise (a deeper level may be noisier than a shallower one: HOKITO's level 3); weak and strong
 * levels differ.
 */
TEST(search_levels_differ)
{
	struct search_limits prev, lim;
	struct search *s = search_create(TT_BYTES, 1);
	int differ = 0;

	ASSERT_EQ(search_level_limits(0, GAME_HOKITO, 0, &lim), GAME_EINVAL);
	ASSERT_EQ(search_level_limits(9, GAME_HOKITO, 0, &lim), GAME_EINVAL);
	for (int kind = 0; kind < 2; kind++) {
		struct search_limits first;

		ASSERT_EQ(search_level_limits(1, (enum game_kind)kind, 0, &first), 0);
		ASSERT(first.noise > 0);
		prev = first;
		for (int level = 2; level <= SEARCH_LEVEL_MAX; level++) {
			ASSERT_EQ(search_level_limits(level, (enum game_kind)kind, 0, &lim), 0);
			ASSERT(lim.noise < first.noise);
			ASSERT(lim.depth == 0 || (prev.depth != 0 && lim.depth >= prev.depth));
			ASSERT(lim.nodes == 0 || prev.nodes == 0 || lim.nodes > prev.nodes);
			ASSERT(memcmp(&lim, &prev, sizeof lim) != 0);
			prev = lim;
		}
		ASSERT_EQ(lim.noise, 0);
	}
	/* Level 1 and level 4 do not play the same moves. */
	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct search_limits l1, l4;
		struct search_result r1, r4;
		struct game g;

		if (!early_position(&g, seed % 2 ? GAME_HOKITO : GAME_OXONO, seed, 8))
			continue;
		search_level_limits(1, g.kind, seed, &l1);
		search_level_limits(4, g.kind, seed, &l4);
		search_clear(s);
		search_run(s, &g, &l1, &r1);
		search_clear(s);
		search_run(s, &g, &l4, &r4);
		differ += r1.best.from != r4.best.from || r1.best.to != r4.best.to ||
		          r1.best.place != r4.best.place;
	}
	ASSERT(differ >= 3);
	search_free(s);
}

/* Node budgets bound the search (to within one check interval) and a move always comes back. */
TEST(search_node_budget)
{
	struct search *s = search_create(TT_BYTES, 1);
	struct search_limits lim = {.nodes = 5000};
	struct search_result r;
	struct game g;

	game_start(&g, GAME_HOKITO, NULL, 3, NULL);
	ASSERT_EQ(search_run(s, &g, &lim, &r), 0);
	ASSERT(game_move_legal(&g, r.best));
	ASSERT(r.depth >= 1);
	lim.nodes = 1;
	search_clear(s);
	ASSERT_EQ(search_run(s, &g, &lim, &r), 0);
	ASSERT_EQ(r.depth, 1); /* the first iteration always completes */
	ASSERT(game_move_legal(&g, r.best));
	search_free(s);
}

/* A finished game has no move to search; the caller's table memory works like an owned one. */
TEST(search_game_over_and_tt_memory)
{
	static uint64_t mem[4096];
	struct search_tt tt;
	struct search *s = search_create(TT_BYTES, 1);
	struct search_limits lim = {.depth = 2};
	struct search_result r;
	struct game g;

	ASSERT_EQ(search_tt_init(&tt, mem, 100), GAME_EINVAL);
	ASSERT_EQ(search_tt_init(&tt, mem, sizeof mem), 0);
	ASSERT_EQ(tt.mask + 1, sizeof mem / (sizeof(struct search_tt_entry)));
	game_parse(
	        &g, GAME_OXONO,
	        "px,px,px,px,-,-/-,-,-,-,-,-/-,-,X,-,-,-/-,-,-,O,-,-/bo,bo,bo,-,-,-/-,-,-,-,-,- b",
	        NULL);
	ASSERT(game_over(&g));
	ASSERT_EQ(search_run(s, &g, &lim, &r), GAME_EOVER);
	search_free(s);
}

/* A clock for search_cancel_stops(): it raises the cancel flag at its third reading. */
struct cancel_clock {
	atomic_int cancel;
	int reads; /* clock readings so far */
	int after; /* of which after the flag was raised */
};

static uint64_t
cancel_clock_cb(void *arg)
{
	struct cancel_clock *c = arg;

	if (atomic_load(&c->cancel))
		c->after++;
	if (++c->reads == 3)
		atomic_store(&c->cancel, 1);
	return 0;
}

/*
 * A cancelled search stops: one cancelled before it starts searches nothing, and one cancelled
 * during an iteration (here from its clock, as another thread would) stops at its next check,
 * long before its node budget, with SEARCH_ECANCELED and no move.
 */
TEST(search_cancel_stops)
{
	struct search *s = search_create(TT_BYTES, 1);
	struct cancel_clock c = {.reads = 0};
	struct search_limits lim = {.nodes = 3000000, .time_ms = 1, .clock_cb = cancel_clock_cb};
	struct search_result r;
	struct game g;

	game_start(&g, GAME_HOKITO, NULL, 3, NULL);
	atomic_init(&c.cancel, 1);
	lim.clock_arg = &c;
	lim.cancel = &c.cancel;
	ASSERT_EQ(search_run(s, &g, &lim, &r), SEARCH_ECANCELED);
	ASSERT_EQ(c.reads, 0); /* not even the clock was read */

	atomic_store(&c.cancel, 0);
	lim.time_ms = UINT64_MAX / 4; /* the clock reads 0: only the flag can stop it */
	ASSERT_EQ(search_run(s, &g, &lim, &r), SEARCH_ECANCELED);
	ASSERT_EQ(c.reads, 3); /* raised at the third reading, seen before a fourth */
	ASSERT_EQ(c.after, 0);
	search_free(s);
}

int
main(void)
{
	RUN(search_fixed_depth_hokito);
	RUN(search_fixed_depth_oxono);
	RUN(search_hokito_endgame_exact_margin);
	RUN(search_oxono_endgame_exact);
	RUN(search_hokito_margin_reads_back);
	RUN(search_oxono_forced_win);
	RUN(search_hokito_forced_win_played_out);
	RUN(search_deterministic);
	RUN(search_levels_differ);
	RUN(search_node_budget);
	RUN(search_game_over_and_tt_memory);
	RUN(search_cancel_stops);
	TEST_END();
}
