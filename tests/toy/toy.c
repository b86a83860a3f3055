/*
 * toy.c: TOY, a third game kind that exists only in the tests: it proves that a game is its rules
 * file and one registry line (common/README.md), nothing else.
 *
 * Rules. A 6x6 board starts empty. Cross (side 0) and Nought (side 1) take turns; a move places
 * one stone of the mover on an empty square. The game ends after TOY_PLIES moves ("full": every
 * stone is placed). Each side scores the stones it has on rank 1; the higher score wins, equal
 * scores draw. The seed and the variant change nothing ("standard" only).
 *
 * Text. A position is the six ranks from 6 down to 1, separated by '/', each six cells of '.'
 * (empty), 'x' (Cross) or 'o' (Nought), then a space and the side to move, 'x' or 'o':
 * "....../....../....../....../....../...... x". A move is the square's name: "c1".
 *
 * Registered by the test builds only (tests/meson.build compiles common/games.c with
 * -DHOKITO_TOY_GAME next to this file). Like every rules file it owns only its callers' values,
 * never allocates and never does I/O.
 */
#include <assert.h>
#include <string.h>

#include "game-base.h"
#include "game-class.h"

#define TOY_PLIES 8       /* the game ends after this many stones */
#define TOY_KIND  2       /* its index in the test build's registry */
#define RANK1     0x3fULL /* a1..f1 */
#define BOARD     0xfffffffffULL

struct toy {
	uint64_t stones[2]; /* bitboards: Cross (0) and Nought (1) stones */
	uint8_t side;       /* side to move */
};

static_assert(sizeof(struct toy) <= GAME_STATE_MAX, "struct toy must fit struct game");

static int
toy_ply(const void *st)
{
	const struct toy *t = st;

	return game_popcount(t->stones[0] | t->stones[1]);
}

static int
toy_over(const void *st)
{
	return toy_ply(st) >= TOY_PLIES;
}

static void
toy_start(void *st, int variant, uint64_t seed)
{
	(void)variant;
	(void)seed;
	memset(st, 0, sizeof(struct toy));
}

static int
toy_parse(void *st, const char *text, struct game_error *err)
{
	struct toy *t = st;
	const char *p = text;

	memset(t, 0, sizeof *t);
	for (int rank = 5; rank >= 0; rank--) {
		for (int file = 0; file < 6; file++, p++) {
			int sq = rank * 6 + file;
			if (*p == 'x' || *p == 'o')
				t->stones[*p == 'o'] |= 1ULL << sq;
			else if (*p != '.')
				return game_error_set(err, GAME_ESYNTAX, (int)(p - text),
				                      "expected '.', 'x' or 'o' for a cell");
		}
		if (rank > 0 && *p++ != '/')
			return game_error_set(err, GAME_ESYNTAX, (int)(p - 1 - text),
			                      "expected '/' after six cells");
	}
	if (p[0] != ' ' || (p[1] != 'x' && p[1] != 'o') || p[2] != '\0')
		return game_error_set(
		        err, GAME_ESYNTAX, (int)(p - text),
		        "expected a space and the side to move ('x' or 'o') at the end");
	t->side = p[1] == 'o';
	if (toy_ply(t) > TOY_PLIES)
		return game_error_set(err, GAME_ESYNTAX, 0, "more than %d stones", TOY_PLIES);
	return 0;
}

static int
toy_cell_format(const void *st, int sq, char *buf, size_t size)
{
	const struct toy *t = st;

	if (size < 2)
		return GAME_ENOSPC;
	buf[0] = (t->stones[0] >> sq & 1) ? 'x' : (t->stones[1] >> sq & 1) ? 'o' : '.';
	buf[1] = '\0';
	return 1;
}

static int
toy_format(const void *st, char *buf, size_t size)
{
	const struct toy *t = st;
	size_t len = 0;

	if (size < 6 * 7 + 2)
		return GAME_ENOSPC;
	for (int rank = 5; rank >= 0; rank--) {
		for (int file = 0; file < 6; file++)
			len += (size_t)toy_cell_format(t, rank * 6 + file, buf + len, 2);
		buf[len++] = rank > 0 ? '/' : ' ';
	}
	buf[len++] = t->side ? 'o' : 'x';
	buf[len] = '\0';
	return (int)len;
}

static int
toy_side(const void *st)
{
	return ((const struct toy *)st)->side;
}

/* Every empty square, a1 first. */
static int
toy_moves(const void *st, struct game_move *moves)
{
	const struct toy *t = st;
	int n = 0;

	if (toy_over(t))
		return 0;
	for (uint64_t b = ~(t->stones[0] | t->stones[1]) & BOARD; b; b &= b - 1)
		moves[n++] = (struct game_move){.to = (uint8_t)game_lowest(b)};
	return n;
}

static int
toy_move_parse(const void *st, const char *text, struct game_move *m, struct game_error *err)
{
	const struct toy *t = st;
	int sq = game_square_parse(text);

	if (sq < 0 || text[2] != '\0')
		return game_error_set(err, GAME_ESYNTAX, 0, "a move is a square name, a1 to f6");
	if (toy_over(t))
		return game_error_set(err, GAME_EOVER, 0, "the game is over");
	if ((t->stones[0] | t->stones[1]) >> sq & 1)
		return game_error_set(err, GAME_EILLEGAL, 0, "square %s is not empty", text);
	*m = (struct game_move){.to = (uint8_t)sq};
	return 0;
}

static int
toy_move_format(struct game_move m, char *buf, size_t size)
{
	if (size < 3)
		return GAME_ENOSPC;
	game_square_name(m.to, buf);
	return 2;
}

static void
toy_apply(void *st, struct game_move m)
{
	struct toy *t = st;

	t->stones[t->side] |= 1ULL << m.to;
	t->side ^= 1;
}

static void
toy_outcome(const void *st, struct game_outcome *o)
{
	const struct toy *t = st;

	for (int s = 0; s < 2; s++)
		o->score[s] = game_popcount(t->stones[s] & RANK1);
	if (!toy_over(t))
		return;
	o->end = GAME_END_FULL;
	o->winner = o->score[0] > o->score[1] ? 0 : o->score[1] > o->score[0] ? 1 : -1;
}

static uint64_t
toy_perft(const void *st, int depth)
{
	struct game_move moves[GAME_SQUARES];
	uint64_t n = 0;
	int k;

	if (depth <= 0)
		return 1;
	k = toy_moves(st, moves);
	if (depth == 1)
		return (uint64_t)k;
	for (int i = 0; i < k; i++) {
		struct toy child = *(const struct toy *)st;
		toy_apply(&child, moves[i]);
		n += toy_perft(&child, depth - 1);
	}
	return n;
}

/* The score margin from the side to move's view, as a final value when the game is over. */
static int
toy_eval_final(const void *st)
{
	struct game_outcome o = {0};
	int margin;

	toy_outcome(st, &o);
	margin = o.score[toy_side(st)] - o.score[toy_side(st) ^ 1];
	if (margin == 0)
		return 0;
	return (margin > 0 ? EVAL_WIN : -EVAL_WIN) + EVAL_UNIT * margin;
}

static int
toy_eval_leaf(const void *st, int *exact)
{
	struct game_outcome o = {0};

	*exact = toy_over(st);
	if (*exact)
		return toy_eval_final(st);
	toy_outcome(st, &o);
	return EVAL_UNIT * (o.score[toy_side(st)] - o.score[toy_side(st) ^ 1]);
}

/* Rank 1 first: that is where stones count. */
static int
toy_move_score(const struct eval_order *o, const void *st, struct game_move m)
{
	(void)o;
	(void)st;
	return m.to < 6;
}

/* One key per stone (reusing HOKITO's keys, told apart by the kind's own key). */
static uint64_t
toy_hash(const void *st, const uint64_t keys[GAME_KEYS])
{
	const struct toy *t = st;
	uint64_t k = keys[GAME_KEY_KIND];
	uint64_t key = (k << TOY_KIND | k >> (64 - TOY_KIND)) ^ (t->side ? keys[GAME_KEY_SIDE] : 0);

	for (int s = 0; s < 2; s++)
		for (uint64_t b = t->stones[s]; b; b &= b - 1)
			key ^= keys[GAME_KEYS_HOKITO + game_lowest(b) * 6 * 37 + s];
	return key;
}

static const char *const toy_variants[] = {"standard", NULL};
static const char *const toy_ends[] = {"full", NULL};

const struct game_class toy_class = {
        .kind = (enum game_kind)TOY_KIND,
        .name = "toy",
        .title = "TOY",
        .a_title = "a TOY",
        .side = {"cross", "nought"},
        .side_header = {"Cross", "Nought"},
        .variants = toy_variants,
        .variant_text = "standard",
        .ends = toy_ends,
        .facts = GAME_HAS_SCORES,
        .history_stride = 1,
        .levels = {{1, 0, 0},
                   {1, 0, 0},
                   {2, 0, 0},
                   {2, 0, 0},
                   {3, 0, 0},
                   {3, 0, 0},
                   {4, 0, 0},
                   {4, 0, 0}},
        .state_size = sizeof(struct toy),
        .start = toy_start,
        .parse = toy_parse,
        .format = toy_format,
        .cell_format = toy_cell_format,
        .side_to_move = toy_side,
        .ply = toy_ply,
        .moves = toy_moves,
        .move_parse = toy_move_parse,
        .move_format = toy_move_format,
        .apply = toy_apply,
        .outcome = toy_outcome,
        .over = toy_over,
        .perft = toy_perft,
        .reserve = NULL,
        .eval_final = toy_eval_final,
        .eval_leaf = toy_eval_leaf,
        .order_init = NULL,
        .move_score = toy_move_score,
        .hash = toy_hash,
};
