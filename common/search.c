/*
 * search.c: iterative deepening principal variation search with a transposition table, for both
 * games through game.h.
 *
 * Positions are values: a child is a copy of its parent with one move applied, so there is no
 * undo. Every score is from the view of the side to move (negamax) and depends on the position
 * alone (eval.h), so it can be stored in the table and met again by another path.
 *
 * Proofs. Beside its score, every node returns what is proved about it, as two bits: the
 * value is at least the score (SEARCH_PROOF_LOWER: the best move's subtree proved that the
 * child can do no better), and the value is at most the score (SEARCH_PROOF_UPPER: every move
 * was searched and each child's subtree proved that the child gets at least that much). A leaf
 * that is a finished game (or an OXONO win in one) proves both; a leaf scored by the heuristic
 * evaluation proves nothing. This is the AND/OR rule of proof-number search carried along an
 * ordinary alpha-beta search, so the table can keep it: a proved bound holds at any depth and
 * answers wherever it is used in the proved direction. As the game nears its end, more and more
 * of the tree is proved, until the root's value is, both ways: the game is solved from here
 * (HOKITO: the exact final margin) and the search stops. In OXONO a proved win (lower bound at
 * or above EVAL_WIN) is enough to stop and play it.
 *
 * Budgets. The node count, the clock and the caller's cancel flag are checked every 1024 nodes;
 * when the budget is spent, s->stop unwinds the search and the iteration in progress is thrown
 * away (its partial scores are never stored). The first iteration is never stopped by the
 * budget, so a move always comes back; a cancel stops any iteration, and no move comes back.
 *
 * This module owns the struct search it creates and nothing else; the transposition table's
 * memory is the caller's when given to search_tt_init(). No I/O, no globals, and no allocation
 * after search_create().
 */
#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"
#include "xmalloc.h"

#define SEARCH_TT_EXACT    1 /* score is the node's value at that depth */
#define SEARCH_TT_LOWER    2 /* score is a lower bound (the search failed high) */
#define SEARCH_TT_UPPER    3 /* score is an upper bound (every move failed low) */
#define SEARCH_TT_BOUND    3
#define SEARCH_HISTORY     (2 * 36 * 36)
#define SEARCH_CHECK_EVERY 1024

static_assert(SEARCH_LEVEL_MAX == GAME_LEVELS, "a class lists every level");

struct search {
	struct search_tt tt;         /* the table; over tt_mem when made by search_create() */
	void *tt_mem;                /* owned: the table's memory */
	struct zobrist zob;          /* keys of positions */
	struct search_limits lim;    /* the limits of the search in progress */
	uint64_t nodes;              /* nodes visited in the search in progress */
	uint64_t start_ms;           /* clock reading when the search began */
	int stop;                    /* the budget is spent: unwind */
	int may_stop;                /* 0 during the first iteration */
	int history[SEARCH_HISTORY]; /* cutoffs caused by each move, by depth^2 */
	struct game_move killer[SEARCH_PLY_MAX][2]; /* quiet moves that caused cutoffs, per ply */
	struct game_move pv[SEARCH_PLY_MAX][SEARCH_PLY_MAX]; /* triangular PV table */
	int pvlen[SEARCH_PLY_MAX];
	struct game_move moves[SEARCH_PLY_MAX][GAME_MOVES_MAX]; /* move list of each ply */
	int order[SEARCH_PLY_MAX][GAME_MOVES_MAX];              /* ordering score of each move */
};

static inline int
move_eq(struct game_move a, struct game_move b)
{
	return a.from == b.from && a.to == b.to && a.place == b.place;
}

/* The history slot of a move, by its class's stride: HOKITO (from, to), OXONO (totem, to, place).
 */
static inline int
history_index(const struct game_class *c, struct game_move m)
{
	return (m.from * 36 + m.to) * c->history_stride + m.place;
}

int
search_tt_init(struct search_tt *tt, void *mem, size_t bytes)
{
	size_t n = 1;

	if (mem == NULL || bytes < 1024)
		return GAME_EINVAL;
	while (n * 2 * sizeof(struct search_tt_entry) <= bytes)
		n *= 2;
	tt->entries = mem;
	tt->mask = n - 1;
	tt->gen = 0;
	search_tt_clear(tt);
	return 0;
}

void
search_tt_clear(struct search_tt *tt)
{
	memset(tt->entries, 0, (tt->mask + 1) * sizeof *tt->entries);
}

struct search *
search_create(size_t tt_bytes, uint64_t seed)
{
	struct search *s = xcalloc(1, sizeof *s);

	if (tt_bytes < 1024)
		tt_bytes = 1024;
	s->tt_mem = xmalloc(tt_bytes);
	search_tt_init(&s->tt, s->tt_mem, tt_bytes);
	zobrist_init(&s->zob, seed);
	return s;
}

void
search_free(struct search *s)
{
	if (s == NULL)
		return;
	free(s->tt_mem);
	free(s);
}

void
search_clear(struct search *s)
{
	search_tt_clear(&s->tt);
	memset(s->history, 0, sizeof s->history);
	memset(s->killer, 0, sizeof s->killer);
}

/* The table entry for key, or NULL. */
static struct search_tt_entry *
tt_probe(struct search_tt *tt, uint64_t key)
{
	struct search_tt_entry *b = &tt->entries[key & tt->mask & ~(size_t)1];

	if (b[0].key == key && b[0].flags != 0)
		return &b[0];
	if (b[1].key == key && b[1].flags != 0)
		return &b[1];
	return NULL;
}

/* How much an entry is worth keeping: its depth, and above any depth when it is proved. */
static inline int
tt_worth(int depth, int flags)
{
	return (flags & SEARCH_PROOF_BOTH) == SEARCH_PROOF_BOTH ? 256 : depth;
}

/*
 * Store a result. The first entry of a bucket keeps the most valuable result of the current
 * search (proved ones are worth most); the second takes whatever the first refuses.
 */
static void
tt_store(struct search_tt *tt, uint64_t key, int score, int depth, int flags, struct game_move move)
{
	struct search_tt_entry *b = &tt->entries[key & tt->mask & ~(size_t)1];
	struct search_tt_entry *e = &b[1];

	if (b[0].key == key || b[0].gen != tt->gen ||
	    tt_worth(b[0].depth, b[0].flags) <= tt_worth(depth, flags))
		e = &b[0];
	e->key = key;
	e->score = (int16_t)score;
	e->depth = (uint8_t)depth;
	e->flags = (uint8_t)flags;
	e->move = move;
	e->gen = tt->gen;
}

/* A deterministic noise in [-amp, amp] for the position with key. */
static int
search_noise(const struct search *s, uint64_t key)
{
	uint64_t z = key ^ s->lim.seed;

	if (s->lim.noise <= 0)
		return 0;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (int)(z % (uint64_t)(2 * s->lim.noise + 1)) - s->lim.noise;
}

/* Whether the search is cancelled (lim.cancel), whatever the iteration. */
static inline int
search_cancelled(const struct search *s)
{
	return s->lim.cancel != NULL && atomic_load_explicit(s->lim.cancel, memory_order_relaxed);
}

/*
 * Whether the search must stop; sets s->stop. Checked every SEARCH_CHECK_EVERY nodes: the cancel
 * flag always, the budget once the first iteration is done.
 */
static void
search_check(struct search *s)
{
	if (search_cancelled(s)) {
		s->stop = 1;
		return;
	}
	if (!s->may_stop)
		return;
	if (s->lim.nodes != 0 && s->nodes >= s->lim.nodes)
		s->stop = 1;
	if (s->lim.clock_cb != NULL && s->lim.time_ms != 0 &&
	    s->lim.clock_cb(s->lim.clock_arg) - s->start_ms >= s->lim.time_ms)
		s->stop = 1;
}

/* Order scores: the table's move, then the game's hint (gains, wins, blocks), killers, history. */
static void
order_moves(struct search *s, const struct game *g, int ply, int n, struct game_move ttmove,
            int has_ttmove)
{
	struct game_move *moves = s->moves[ply];
	int *order = s->order[ply];
	const struct game_class *c = game_class(g);
	struct eval_order ctx;

	eval_order_init(&ctx, g);
	for (int i = 0; i < n; i++) {
		struct game_move m = moves[i];
		int h = s->history[history_index(c, m)];
		int v = c->move_score(&ctx, g->state, m) * 65536;
		if (has_ttmove && move_eq(m, ttmove))
			v = INT_MAX;
		else if (move_eq(m, s->killer[ply][0]))
			v += 32768;
		else if (move_eq(m, s->killer[ply][1]))
			v += 32767;
		else
			v += h < 32767 ? h : 32766;
		order[i] = v;
	}
}

/* Bring the best-ordered move of i..n-1 to i. */
static inline void
pick_move(struct search *s, int ply, int i, int n)
{
	struct game_move *moves = s->moves[ply];
	int *order = s->order[ply];
	int best = i;

	for (int j = i + 1; j < n; j++)
		if (order[j] > order[best])
			best = j;
	if (best != i) {
		struct game_move m = moves[i];
		int o = order[i];
		moves[i] = moves[best];
		order[i] = order[best];
		moves[best] = m;
		order[best] = o;
	}
}

/* A quiet move caused a cutoff at ply: remember it. */
static void
note_cutoff(struct search *s, const struct game_class *c, int ply, int depth, struct game_move m)
{
	int *h = &s->history[history_index(c, m)];

	if (!move_eq(s->killer[ply][0], m)) {
		s->killer[ply][1] = s->killer[ply][0];
		s->killer[ply][0] = m;
	}
	*h += depth * depth;
	if (*h > 30000)
		for (int i = 0; i < SEARCH_HISTORY; i++)
			s->history[i] /= 2;
}

/*
 * Whether a table entry answers for a node searched to depth within (alpha, beta): deep enough,
 * or proved in the direction that is used. Sets *v and *proof.
 */
static int
tt_usable(const struct search_tt_entry *e, int depth, int alpha, int beta, int *v, int *proof)
{
	int bound = e->flags & SEARCH_TT_BOUND, p = e->flags & SEARCH_PROOF_BOTH;
	int deep = e->depth >= depth;

	*v = e->score;
	*proof = p;
	if (bound == SEARCH_TT_EXACT && (deep || p == SEARCH_PROOF_BOTH))
		return 1;
	if (bound != SEARCH_TT_UPPER && *v >= beta && (deep || (p & SEARCH_PROOF_LOWER)))
		return 1;
	if (bound != SEARCH_TT_LOWER && *v <= alpha && (deep || (p & SEARCH_PROOF_UPPER)))
		return 1;
	return 0;
}

/*
 * Negamax with alpha-beta at one node. Returns the score (a bound when outside alpha..beta) and
 * sets *proof to what is proved about it: SEARCH_PROOF_LOWER when the true value is at least
 * the score (some move was proved to reach it: its subtree proved the child's upper bound), and
 * SEARCH_PROOF_UPPER when it is at most the score (every move was searched and proved not to do
 * better). See the top of the file.
 */
static int
search_node(struct search *s, const struct game *g, int depth, int alpha, int beta, int ply,
            int *proof)
{
	struct game_move best_move = {0, 0, 0}, ttmove = {0, 0, 0};
	struct search_tt_entry *e;
	int n, best = -EVAL_INF, alpha0 = alpha, has_ttmove = 0, flags, i;
	int lower = 0, upper = SEARCH_PROOF_UPPER;
	uint64_t key;

	*proof = 0;
	s->pvlen[ply] = 0;
	if ((++s->nodes & (SEARCH_CHECK_EVERY - 1)) == 0)
		search_check(s);
	if (s->stop)
		return 0;
	if (depth <= 0 || ply >= SEARCH_PLY_MAX - 1) {
		int exact, v = eval_leaf(g, &exact);
		if (exact) {
			*proof = SEARCH_PROOF_BOTH;
			return v;
		}
		if (s->lim.noise > 0)
			v += search_noise(s, zobrist_key(&s->zob, g));
		return v;
	}

	key = zobrist_key(&s->zob, g);
	e = tt_probe(&s->tt, key);
	if (e != NULL) {
		int v;
		ttmove = e->move;
		has_ttmove = 1;
		if (ply > 0 && tt_usable(e, depth, alpha, beta, &v, proof))
			return v;
	}

	n = game_moves(g, s->moves[ply]);
	if (n == 0) {
		*proof = SEARCH_PROOF_BOTH;
		return eval_final(g);
	}
	order_moves(s, g, ply, n, ttmove, has_ttmove);

	for (i = 0; i < n; i++) {
		struct game_move m;
		struct game child;
		int v, cp;

		pick_move(s, ply, i, n);
		m = s->moves[ply][i];
		child = *g;
		game_apply(&child, m);
		if (i == 0) {
			v = -search_node(s, &child, depth - 1, -beta, -alpha, ply + 1, &cp);
		} else {
			v = -search_node(s, &child, depth - 1, -alpha - 1, -alpha, ply + 1, &cp);
			if (v > alpha && v < beta && !s->stop)
				v = -search_node(s, &child, depth - 1, -beta, -alpha, ply + 1, &cp);
		}
		if (s->stop)
			return 0;
		/* The child's lower bound caps this move from above, its upper bound from below. */
		if (!(cp & SEARCH_PROOF_LOWER))
			upper = 0;
		if (v > best) {
			best = v;
			best_move = m;
			lower = cp & SEARCH_PROOF_UPPER ? SEARCH_PROOF_LOWER : 0;
			if (v > alpha) {
				alpha = v;
				s->pv[ply][0] = m;
				memcpy(&s->pv[ply][1], s->pv[ply + 1],
				       (size_t)s->pvlen[ply + 1] * sizeof(struct game_move));
				s->pvlen[ply] = s->pvlen[ply + 1] + 1;
				if (alpha >= beta) {
					note_cutoff(s, game_class(g), ply, depth, m);
					break;
				}
			}
		}
	}
	if (i < n)
		upper = 0; /* moves left unsearched: nothing proved from above */

	*proof = lower | upper;
	flags = best <= alpha0 ? SEARCH_TT_UPPER : best >= beta ? SEARCH_TT_LOWER : SEARCH_TT_EXACT;
	tt_store(&s->tt, key, best, depth, flags | *proof, best_move);
	return best;
}

int
search_run(struct search *s, const struct game *g, const struct search_limits *lim,
           struct search_result *r)
{
	struct game_move moves[GAME_MOVES_MAX];
	int maxdepth =
	        lim->depth > 0 && lim->depth < SEARCH_PLY_MAX ? lim->depth : SEARCH_PLY_MAX - 1;
	int n = game_moves(g, moves);

	memset(r, 0, sizeof *r);
	if (n == 0)
		return GAME_EOVER;
	s->lim = *lim;
	if (search_cancelled(s))
		return SEARCH_ECANCELED;
	s->nodes = 0;
	s->stop = 0;
	s->may_stop = 0;
	s->start_ms = lim->clock_cb != NULL ? lim->clock_cb(lim->clock_arg) : 0;
	s->tt.gen++;
	for (int i = 0; i < SEARCH_HISTORY; i++)
		s->history[i] /= 8;
	r->best = moves[0];

	for (int depth = 1; depth <= maxdepth; depth++) {
		int v, proof;

		v = search_node(s, g, depth, -EVAL_INF, EVAL_INF, 0, &proof);
		if (s->stop && search_cancelled(s))
			return SEARCH_ECANCELED;
		if (s->stop)
			break;
		r->score = v;
		r->depth = depth;
		r->proof = proof;
		r->proved = proof == SEARCH_PROOF_BOTH;
		r->pvlen = s->pvlen[0];
		memcpy(r->pv, s->pv[0], (size_t)r->pvlen * sizeof r->pv[0]);
		if (r->pvlen > 0)
			r->best = r->pv[0];
		s->may_stop = 1;
		/* Solved; or, in OXONO (GAME_WIN_STOPS), a win is proved (and the quickest one
		 * comes first). */
		if (r->proved || ((game_class(g)->facts & GAME_WIN_STOPS) &&
		                  (proof & SEARCH_PROOF_LOWER) && v >= EVAL_WIN))
			break;
		if (lim->nodes != 0 && s->nodes >= lim->nodes)
			break;
		if (lim->clock_cb != NULL && lim->time_ms != 0 &&
		    (lim->clock_cb(lim->clock_arg) - s->start_ms) * 2 >= lim->time_ms)
			break;
	}
	r->nodes = s->nodes;
	return 0;
}

/*
 * The levels are in each game's class (game-class.h): low levels see a few plies and misjudge
 * positions by a deterministic noise (in eval.h units: EVAL_UNIT is one point of HOKITO margin);
 * higher levels search more nodes. Each game's table is tuned by matches between adjacent levels
 * (tests/bench/LEVELS.md); near full strength a few times more nodes buys less and less, so the
 * top budgets are spaced further apart. Level 8 stays within about two seconds a move.
 */
int
search_level_limits(int level, enum game_kind kind, uint64_t seed, struct search_limits *lim)
{
	const struct game_level *l;

	if (level < SEARCH_LEVEL_MIN || level > SEARCH_LEVEL_MAX)
		return GAME_EINVAL;
	l = &game_class_of(kind)->levels[level - 1];
	memset(lim, 0, sizeof *lim);
	lim->depth = l->depth;
	lim->nodes = l->nodes;
	lim->noise = l->noise;
	lim->seed = seed;
	return 0;
}
