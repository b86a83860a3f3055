/*
 * eval.c: static evaluation and move-ordering hints for HOKITO and OXONO.
 *
 * HOKITO: the score margin counts most (it is what decides the game), then mobility, the number
 * of moves each side has: a side with many moves has choices, and a side with none ends the game
 * at once. Both come out of one pass over the occupied squares, which also tells whether the game
 * is over (some side has no move), so a leaf needs no separate end test.
 *
 * OXONO: a game is won by the first line of four, so the evaluation is about lines. A "threat"
 * is an empty square that would complete four of a colour or of a symbol. First the leaf checks,
 * exactly, whether the side to move can place a winning pawn this turn (some totem of a symbol it
 * still holds can reach a square next to a winning square, or the placement falls back to any
 * empty square); if so the position is a proved win. Otherwise it counts colour threats (own
 * ones are good, the opponent's bad) and open windows of four that hold two or more pawns of a
 * colour and nothing of the other.
 *
 * The hop and totem rules are re-read here from the games' structs rather than through game.h,
 * so a leaf costs one pass instead of generating and applying moves. Nothing here allocates.
 */
#include "eval.h"

#define BOARD    0xfffffffffULL
#define FILE_A   0x041041041ULL
#define FILE_F   (FILE_A << 5)
#define ROW_ABC  (FILE_A * 7) /* files a..c: where a row window of four can start */
#define LOW3ROWS 0x3ffffULL   /* ranks 1..3: where a column window of four can start */
#define BIT(sq)  (1ULL << (sq))

/* Mobility is worth this much per move of difference (EVAL_UNIT is one point of margin). */
#define HK_MOBILITY 2

/* OXONO weights: a colour threat square, an open window holding two or three pawns. */
#define OX_THREAT 48
#define OX_TWO    4
#define OX_THREE  10

/*
 * The leaf evaluation spends much of its time in popcounts, and plain x86-64 has no popcount
 * instruction: on x86-64 Linux the exported functions are compiled twice, with and without
 * POPCNT, and the loader picks the one the CPU supports (GCC's target_clones, as oxono.c does).
 * Not with clang: clang 14 emits no symbol under the plain name for an exported clone, so the
 * program would not link.
 */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute) && !defined(__clang__)
#if __has_attribute(target_clones)
#define EVAL_CLONES __attribute__((target_clones("popcnt", "default")))
#endif
#endif
#ifndef EVAL_CLONES
#define EVAL_CLONES
#endif

static inline int
popcount(uint64_t b)
{
	return __builtin_popcountll(b);
}

static inline int
lowest(uint64_t b)
{
	return __builtin_ctzll(b);
}

static int
hk_final(const struct hokito *h, const int score[2])
{
	int margin = score[h->side] - score[h->side ^ 1];

	if (margin == 0)
		return 0;
	return (margin > 0 ? EVAL_WIN : -EVAL_WIN) + EVAL_UNIT * margin;
}

static void
hk_scores(const struct hokito *h, int score[2])
{
	score[0] = score[1] = 0;
	for (uint64_t b = h->occ; b; b &= b - 1) {
		int sq = lowest(b);
		score[(h->top[1] >> sq) & 1] += h->topval[sq] * h->height[sq];
	}
}

EVAL_CLONES static int
hk_leaf(const struct hokito *h, int *exact)
{
	int score[2] = {0, 0}, mob[2] = {0, 0};
	int me = h->side;

	for (uint64_t b = h->occ; b; b &= b - 1) {
		int sq = lowest(b), c = (int)((h->top[1] >> sq) & 1);
		score[c] += h->topval[sq] * h->height[sq];
		mob[c] += popcount(hokito_destinations(h, sq));
	}
	if (mob[0] == 0 || mob[1] == 0) {
		*exact = 1;
		return hk_final(h, score);
	}
	*exact = 0;
	return EVAL_UNIT * (score[me] - score[me ^ 1]) + HK_MOBILITY * (mob[me] - mob[me ^ 1]);
}

/* OXONO: the squares orthogonally next to the squares of b. */
static inline uint64_t
ox_neighbours(uint64_t b)
{
	return (((b << 1) & ~FILE_A) | ((b >> 1) & ~FILE_F) | (b << 6) | (b >> 6)) & BOARD;
}

/*
 * OXONO: the squares of e where one more pawn of b completes four in a row or a column. For every
 * window of four, the one square of e when the other three are in b.
 */
static uint64_t
ox_completions(uint64_t b, uint64_t e)
{
	uint64_t t = 0;

	t |= e & (b >> 1) & (b >> 2) & (b >> 3) & ROW_ABC;
	t |= (b & (e >> 1) & (b >> 2) & (b >> 3) & ROW_ABC) << 1;
	t |= (b & (b >> 1) & (e >> 2) & (b >> 3) & ROW_ABC) << 2;
	t |= (b & (b >> 1) & (b >> 2) & (e >> 3) & ROW_ABC) << 3;
	t |= e & (b >> 6) & (b >> 12) & (b >> 18) & LOW3ROWS;
	t |= (b & (e >> 6) & (b >> 12) & (b >> 18) & LOW3ROWS) << 6;
	t |= (b & (b >> 6) & (e >> 12) & (b >> 18) & LOW3ROWS) << 12;
	t |= (b & (b >> 6) & (b >> 12) & (e >> 18) & LOW3ROWS) << 18;
	return t;
}

/* OXONO: where the totem on sq may go (the movement rule of oxono.c, in one place). */
static uint64_t
ox_totem_dests(int sq, uint64_t occ)
{
	static const int dfile[4] = {1, -1, 0, 0}, dstep[4] = {1, -1, 6, -6};
	uint64_t empty = ~occ & BOARD, dests = 0;

	for (int d = 0; d < 4; d++) {
		int f = sq % 6, s = sq;
		int slide = (ox_neighbours(BIT(sq)) & empty) != 0;
		for (;;) {
			f += dfile[d];
			s += dstep[d];
			if (f < 0 || f > 5 || s < 0 || s >= 36)
				break;
			if (slide) {
				if (occ & BIT(s))
					break;
				dests |= BIT(s);
			} else if (!(occ & BIT(s))) {
				dests |= BIT(s);
				break;
			}
		}
	}
	if ((ox_neighbours(BIT(sq)) & empty) == 0 && dests == 0)
		return empty;
	return dests;
}

/*
 * OXONO: whether the side to move can make a line this turn. For each symbol it holds: the
 * squares where its pawn of that symbol completes a line of its colour or of the symbol, against
 * the placements each destination of that totem allows.
 */
static inline int
ox_win_now(const struct oxono *x)
{
	int me = x->side;
	uint64_t pawns = x->colour[0] | x->colour[1];
	uint64_t occ = pawns | BIT(x->totem[0]) | BIT(x->totem[1]);
	uint64_t nonpawn = ~pawns & BOARD;
	uint64_t mine = ox_completions(x->colour[me], nonpawn);

	for (int t = 0; t < 2; t++) {
		uint64_t win, free, dests;

		if (x->reserve[me][t] == 0)
			continue;
		win = mine | ox_completions(x->symbol[t], nonpawn);
		free = nonpawn & ~BIT(x->totem[t ^ 1]);
		if ((win & free) == 0)
			continue;
		dests = ox_totem_dests(x->totem[t], occ);
		for (; dests; dests &= dests - 1) {
			int to = lowest(dests);
			uint64_t f = free & ~BIT(to);
			uint64_t near = ox_neighbours(BIT(to)) & f;
			if ((near ? near : f) & win)
				return 1;
		}
	}
	return 0;
}

/* An OXONO win at ply p scores EVAL_WIN + EVAL_UNIT * (OX_WIN_PLY - p): sooner is better. */
#define OX_WIN_PLY 33

static int
ox_final(const struct oxono *x)
{
	int ply = popcount(x->colour[0] | x->colour[1]);
	int v = EVAL_WIN + EVAL_UNIT * (OX_WIN_PLY - ply);

	if (x->end != GAME_END_LINE)
		return 0;
	return x->winner == x->side ? v : -v;
}

/* OXONO: open windows of four for the pawns b (e: squares that may still take them). */
static inline int
ox_windows(uint64_t b, uint64_t e)
{
	uint64_t ok = b | e;
	int sum = 0;

	for (int s = 0; s < 36; s++) {
		uint64_t w[2] = {0, 0};
		if (s % 6 <= 2)
			w[0] = 0xfULL << s;
		if (s < 18)
			w[1] = 0x41041ULL << s;
		for (int k = 0; k < 2; k++) {
			int n;
			if (w[k] == 0 || (w[k] & ok) != w[k])
				continue;
			n = popcount(w[k] & b);
			sum += n == 2 ? OX_TWO : n == 3 ? OX_THREE : 0;
		}
	}
	return sum;
}

EVAL_CLONES static int
ox_leaf(const struct oxono *x, int *exact)
{
	int me = x->side, op = me ^ 1;
	uint64_t nonpawn = ~(x->colour[0] | x->colour[1]) & BOARD;
	int v;

	if (x->end != GAME_END_NONE) {
		*exact = 1;
		return ox_final(x);
	}
	if (ox_win_now(x)) {
		*exact = 1;
		return EVAL_WIN + EVAL_UNIT * (OX_WIN_PLY - (popcount(~nonpawn & BOARD) + 1));
	}
	*exact = 0;
	v = OX_THREAT * (popcount(ox_completions(x->colour[me], nonpawn)) -
	                 popcount(ox_completions(x->colour[op], nonpawn)));
	v += ox_windows(x->colour[me], nonpawn) - ox_windows(x->colour[op], nonpawn);
	return v;
}

int
eval_final(const struct game *g)
{
	if (g->kind == GAME_HOKITO) {
		int score[2];
		hk_scores(&g->u.hk, score);
		return hk_final(&g->u.hk, score);
	}
	return ox_final(&g->u.ox);
}

int
eval_leaf(const struct game *g, int *exact)
{
	if (g->kind == GAME_HOKITO)
		return hk_leaf(&g->u.hk, exact);
	return ox_leaf(&g->u.ox, exact);
}

int
eval_margin(int score)
{
	if (score >= EVAL_WIN)
		return (score - EVAL_WIN) / EVAL_UNIT;
	if (score <= -EVAL_WIN)
		return (score + EVAL_WIN) / EVAL_UNIT;
	return score / EVAL_UNIT;
}

int
eval_win_plies(int score, const struct game *g)
{
	int v = score < 0 ? -score : score;

	return OX_WIN_PLY - (v - EVAL_WIN) / EVAL_UNIT - game_ply(g);
}

EVAL_CLONES void
eval_order_init(struct eval_order *o, const struct game *g)
{
	const struct oxono *x = &g->u.ox;
	uint64_t nonpawn, mine;
	int me;

	o->win = o->winsym[0] = o->winsym[1] = o->block = 0;
	if (g->kind != GAME_OXONO)
		return;
	me = x->side;
	nonpawn = ~(x->colour[0] | x->colour[1]) & BOARD;
	mine = ox_completions(x->colour[me], nonpawn);
	o->winsym[0] = mine | ox_completions(x->symbol[0], nonpawn);
	o->winsym[1] = mine | ox_completions(x->symbol[1], nonpawn);
	o->win = o->winsym[0] | o->winsym[1];
	o->block = ox_completions(x->colour[me ^ 1], nonpawn) | o->win;
}

EVAL_CLONES int
eval_move_score(const struct eval_order *o, const struct game *g, struct game_move m)
{
	if (g->kind == GAME_HOKITO) {
		/* The change of the score margin: the mover's stack grows by the target's height,
		 * and the target's top pawn stops counting for whoever had it. */
		const struct hokito *h = &g->u.hk;
		int hv = h->height[m.to], v = h->topval[m.from];
		int own = (int)((h->top[h->side] >> m.to) & 1);
		return v * hv + (own ? -1 : 1) * h->topval[m.to] * hv;
	}
	if (o->winsym[m.from & 1] & BIT(m.place))
		return 1000;
	if (o->block & BIT(m.place))
		return 100;
	return popcount(ox_neighbours(BIT(m.place)) & g->u.ox.colour[g->u.ox.side]);
}
