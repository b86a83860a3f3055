/*
 * hokito.c: the rules of HOKITO: setup, position text, move generation and validation, moves,
 * end of game, scores and perft.
 *
 * The hot path reads only bitboards and the link table. A hop goes to the FIRST occupied square
 * in a direction, so for every occupied square we keep its nearest occupied neighbour in each
 * direction: the squares of a row or a column form a doubly linked list (Knuth's dancing links).
 * Squares only ever empty during a game (a stack moves onto another one, nothing lands on an
 * empty square), so a move just unlinks its origin square: four pointer updates. A pawn of value
 * v then reaches its destinations by following v links, never back the way it came, without a
 * single branch: a link past the edge points at the pseudo-square HOKITO_NONE, whose links point
 * to itself and whose bit is masked off at the end.
 *
 * Two rules need no code because they cannot happen: a path never passes the same square twice
 * and never comes back to its origin. With at most three hops and no reversal, the second hop
 * leaves the first hop's line and the third hop cannot cross the origin's row or column, and
 * every square landed on is occupied, so a later hop cannot fly over it. For the same reason it
 * does not matter whether the origin counts as vacated during the move.
 *
 * This module owns only the caller's values; it never allocates and never does I/O.
 */
#include <assert.h>
#include <string.h>

#include "hokito.h"
#include "rng.h"

static_assert(sizeof(struct hokito) <= GAME_STATE_MAX, "struct hokito must fit struct game");

#define ALL_SQUARES ((1ULL << 36) - 1)
#define BIT(sq)     (1ULL << (sq))

enum { NORTH, EAST, SOUTH, WEST };

static const char *const dir_name[4] = {"north", "east", "south", "west"};
static const char *const colour_name[2] = {"Black", "White"};

static inline int
pawn_colour(uint8_t p)
{
	return p >> 2;
}

static inline int
pawn_value(uint8_t p)
{
	return p & 3;
}

/* The square one step from sq in direction d, or -1 off the board. */
static int
step(int sq, int d)
{
	int file = sq % 6, rank = sq / 6;

	switch (d) {
	case NORTH:
		return rank < 5 ? sq + 6 : -1;
	case EAST:
		return file < 5 ? sq + 1 : -1;
	case SOUTH:
		return rank > 0 ? sq - 6 : -1;
	default:
		return file > 0 ? sq - 1 : -1;
	}
}

/* Rebuild the link table from the occupancy (after a setup or a parse). */
static void
links_build(struct hokito *h)
{
	memset(h->link, HOKITO_NONE, sizeof h->link);
	for (int sq = 0; sq < 36; sq++) {
		if (!(h->occ & BIT(sq)))
			continue;
		for (int d = 0; d < 4; d++) {
			int t = step(sq, d);
			while (t >= 0 && !(h->occ & BIT(t)))
				t = step(t, d);
			h->link[sq][d] = (uint8_t)(t < 0 ? HOKITO_NONE : t);
		}
	}
}

/* Take an emptied square out of its row and column lists. */
static inline void
links_remove(struct hokito *h, int sq)
{
	for (int d = 0; d < 2; d++) {
		uint8_t fwd = h->link[sq][d], back = h->link[sq][d + 2];
		h->link[back][d] = fwd;
		h->link[fwd][d + 2] = back;
	}
	/* Row NONE may have been written above; it must keep pointing at itself. */
	memset(h->link[HOKITO_NONE], HOKITO_NONE, 4);
}

/* Put one more pawn on top of square sq. */
static void
stack_push(struct hokito *h, int sq, uint8_t pawn)
{
	int id = h->npawns++;

	h->pawn[id] = pawn;
	h->below[id] = h->toppawn[sq];
	if (h->toppawn[sq] < 0)
		h->botpawn[sq] = (int8_t)id;
	h->toppawn[sq] = (int8_t)id;
	h->height[sq]++;
	h->topval[sq] = (uint8_t)pawn_value(pawn);
	h->occ |= BIT(sq);
	h->top[0] &= ~BIT(sq);
	h->top[1] &= ~BIT(sq);
	h->top[pawn_colour(pawn)] |= BIT(sq);
	if (h->height[sq] == 1)
		h->single |= BIT(sq);
	else
		h->single &= ~BIT(sq);
}

static void
clear(struct hokito *h)
{
	memset(h, 0, sizeof *h);
	memset(h->toppawn, -1, sizeof h->toppawn);
	memset(h->botpawn, -1, sizeof h->botpawn);
	memset(h->below, -1, sizeof h->below);
}

/*
 * Shuffle n pawn codes with Fisher-Yates from the end, j = rng_below(i + 1): the procedure
 * FORMATS.md documents, so that a seed always gives the same setup.
 */
static void
shuffle(struct rng *r, uint8_t *p, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)rng_below(r, (uint32_t)i + 1);
		uint8_t t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
}

void
hokito_start(struct hokito *h, int random36, uint64_t seed)
{
	uint8_t pawns[36];
	struct rng r;

	/* Black's 1s, 2s, 3s, then White's, six of each. */
	for (int i = 0; i < 36; i++)
		pawns[i] = (uint8_t)((i / 18) << 2 | ((i % 18) / 6 + 1));
	rng_init(&r, seed);
	if (random36) {
		shuffle(&r, pawns, 36);
	} else {
		shuffle(&r, pawns, 18);
		shuffle(&r, pawns + 18, 18);
	}
	clear(h);
	for (int sq = 0; sq < 36; sq++)
		stack_push(h, sq, pawns[sq]);
	links_build(h);
}

/* Where a parsed pawn was: its place in the text and its square, for the count errors. */
struct pawn_at {
	int pos;
	int sq;
};

/*
 * Check the pawn counts: at most 18 of a colour, then at most six of each value per colour. The
 * error names the first pawn over the limit in text order, with its square and place (at[i] is
 * where pawn i was read).
 */
static int
check_counts(const struct hokito *h, const struct pawn_at *at, struct game_error *err)
{
	int total[2] = {0}, count[2][4] = {{0}};
	char name[3];

	for (int i = 0; i < h->npawns; i++) {
		int c = pawn_colour(h->pawn[i]);
		if (++total[c] <= 18)
			continue;
		game_square_name(at[i].sq, name);
		return game_error_set(err, GAME_ESYNTAX, at[i].pos,
		                      "square %s: %d %s pawns: a player has at most 18", name,
		                      total[c], c ? "white" : "black");
	}
	for (int i = 0; i < h->npawns; i++) {
		int c = pawn_colour(h->pawn[i]), v = pawn_value(h->pawn[i]);
		if (++count[c][v] <= 6)
			continue;
		game_square_name(at[i].sq, name);
		return game_error_set(err, GAME_ESYNTAX, at[i].pos,
		                      "square %s: %d %s pawns of value %d: a player has six "
		                      "of each value",
		                      name, count[c][v], c ? "white" : "black", v);
	}
	return 0;
}

/* Parse one cell's stack text (s..end) onto square sq, noting where each pawn is in at[]. */
static int
parse_cell(struct hokito *h, const char *text, const char *s, const char *end, int sq,
           struct pawn_at *at, struct game_error *err)
{
	char name[3];

	game_square_name(sq, name);
	if (end == s && *s == ' ')
		return game_error_set(err, GAME_ESYNTAX, (int)(s - text),
		                      "unexpected space where square %s should be: one space only, "
		                      "before the side to move",
		                      name);
	if (end == s)
		return game_error_set(err, GAME_ESYNTAX, (int)(s - text),
		                      "square %s is empty: write '-' for an empty square", name);
	if (end - s == 1 && *s == '-')
		return 0;
	/* A long cell is quoted in part, so that the reason still fits the error's sentence. */
	if ((end - s) % 2 != 0)
		return game_error_set(
		        err, GAME_ESYNTAX, (int)(s - text),
		        "square %s: '%.*s%s' is not a stack (pawns are a colour letter "
		        "b or w and a value 1 to 3, like w1b3)",
		        name, end - s > 12 ? 12 : (int)(end - s), s, end - s > 12 ? "..." : "");
	for (const char *p = s; p < end; p += 2) {
		int colour = p[0] == 'b' ? 0 : p[0] == 'w' ? 1 : -1;
		if (colour < 0 || p[1] < '1' || p[1] > '3')
			return game_error_set(
			        err, GAME_ESYNTAX, (int)(p - text),
			        "square %s: '%.2s' is not a pawn (a colour letter b or "
			        "w and a value 1 to 3, like b2)",
			        name, p);
		if (h->npawns >= HOKITO_PAWNS) {
			/* 36 pawns within the counts are exactly 18 a colour: this is a 19th. */
			int rc = check_counts(h, at, err);
			return rc < 0 ? rc
			              : game_error_set(err, GAME_ESYNTAX, (int)(p - text),
			                               "square %s: 19 %s pawns: a player has at "
			                               "most 18",
			                               name, colour ? "white" : "black");
		}
		at[h->npawns].pos = (int)(p - text);
		at[h->npawns].sq = sq;
		stack_push(h, sq, (uint8_t)(colour << 2 | (p[1] - '0')));
	}
	/* A single lands on a single, a stack on a stack: heights add up from 2s, so are even. */
	if (h->height[sq] > 1 && h->height[sq] % 2 != 0)
		return game_error_set(err, GAME_ESYNTAX, (int)(s - text),
		                      "square %s: a stack of %d pawns is impossible (a pawn lands "
		                      "only on a pawn and a stack only on a stack, so a stack's "
		                      "height is even)",
		                      name, h->height[sq]);
	return 0;
}

int
hokito_parse(struct hokito *h, const char *text, struct game_error *err)
{
	struct pawn_at at[HOKITO_PAWNS];
	const char *p = text;
	int rc;

	clear(h);
	for (int row = 0; row < 6; row++) {
		int rank = 5 - row;
		for (int file = 0; file < 6; file++) {
			const char *end = p;
			while (*end != '\0' && *end != ',' && *end != '/' && *end != ' ')
				end++;
			/* A space followed by more board (a ',' or '/' before any other space) is a
			 * stray space wherever it is, not a short rank, a cut stack or a missing
			 * '/'. */
			if (end > p && *end == ' ' &&
			    strcspn(end + 1, ",/") < strcspn(end + 1, " ")) {
				char name[3];
				game_square_name(rank * 6 + file, name);
				return game_error_set(
				        err, GAME_ESYNTAX, (int)(end - text),
				        "unexpected space at square %s: one space only, "
				        "before the side to move",
				        name);
			}
			if ((rc = parse_cell(h, text, p, end, rank * 6 + file, at, err)) < 0)
				return rc;
			p = end;
			if (file < 5) {
				if (*p == ' ' && row < 5)
					return game_error_set(
					        err, GAME_ESYNTAX, (int)(p - text),
					        "unexpected space in rank %d, after cell %d: "
					        "one space only, before the side to move",
					        rank + 1, file + 1);
				if (*p != ',')
					return game_error_set(err, GAME_ESYNTAX, (int)(p - text),
					                      "rank %d has only %d of its 6 cells",
					                      rank + 1, file + 1);
				p++;
			}
		}
		if (row < 5) {
			if (*p != '/')
				return game_error_set(
				        err, GAME_ESYNTAX, (int)(p - text),
				        *p == ',' ? "rank %d has more than 6 cells"
				                  : "expected '/' after rank %d: a position "
				                    "has 6 ranks",
				        rank + 1);
			p++;
		}
	}
	if (*p == ',' || *p == '/')
		return game_error_set(err, GAME_ESYNTAX, (int)(p - text),
		                      *p == ',' ? "rank 1 has more than 6 cells"
		                                : "more than 6 ranks: a position has 6");
	if (*p != ' ')
		return game_error_set(err, GAME_ESYNTAX, (int)(p - text),
		                      "expected a space and the side to move after the board");
	p++;
	if (*p == '\0')
		return game_error_set(err, GAME_ESYNTAX, (int)(p - text),
		                      "the side to move is missing (expected b or w)");
	if (*p == ' ')
		return game_error_set(err, GAME_ESYNTAX, (int)(p - text),
		                      "more than one space before the side to move");
	if ((*p != 'b' && *p != 'w') || (p[1] != '\0' && p[1] != ' ')) {
		int len = (int)strcspn(p, " ");
		return game_error_set(err, GAME_ESYNTAX, (int)(p - text),
		                      "side to move must be 'b' or 'w', not '%.*s%s'",
		                      len > 8 ? 8 : len, p, len > 8 ? "..." : "");
	}
	if (p[1] != '\0')
		return game_error_set(err, GAME_ESYNTAX, (int)(p + 1 - text),
		                      "unexpected text after the side to move");
	h->side = *p == 'w';
	if ((rc = check_counts(h, at, err)) < 0)
		return rc;
	links_build(h);
	return 0;
}

int
hokito_cell_format(const struct hokito *h, int sq, char *buf, size_t size)
{
	int n = h->height[sq], i = 2 * n;

	if (n == 0) {
		if (size < 2)
			return GAME_ENOSPC;
		memcpy(buf, "-", 2);
		return 1;
	}
	if (size < (size_t)(2 * n + 1))
		return GAME_ENOSPC;
	buf[i] = '\0';
	/* Walk from the top down, writing from the end of the text back. */
	for (int id = h->toppawn[sq]; id >= 0; id = h->below[id]) {
		i -= 2;
		buf[i] = pawn_colour(h->pawn[id]) ? 'w' : 'b';
		buf[i + 1] = (char)('0' + pawn_value(h->pawn[id]));
	}
	assert(i == 0);
	return 2 * n;
}

int
hokito_format(const struct hokito *h, char *buf, size_t size)
{
	size_t len = 0;

	for (int row = 0; row < 6; row++) {
		for (int file = 0; file < 6; file++) {
			int n = hokito_cell_format(h, (5 - row) * 6 + file, buf + len, size - len);
			if (n < 0)
				return GAME_ENOSPC;
			len += (size_t)n;
			if (len + 1 >= size)
				return GAME_ENOSPC;
			buf[len++] = file < 5 ? ',' : row < 5 ? '/' : ' ';
		}
	}
	if (len + 2 > size)
		return GAME_ENOSPC;
	buf[len++] = h->side ? 'w' : 'b';
	buf[len] = '\0';
	return (int)len;
}

int
hokito_has_move(const struct hokito *h, int side)
{
	for (uint64_t b = h->top[side]; b; b &= b - 1)
		if (hokito_destinations(h, game_lowest(b)))
			return 1;
	return 0;
}

int
hokito_over(const struct hokito *h)
{
	return !hokito_has_move(h, 0) || !hokito_has_move(h, 1);
}

/* Moves of the side to move, without the game-over check. */
static int
moves_of_side(const struct hokito *h, struct game_move *moves)
{
	int n = 0;

	for (uint64_t b = h->top[h->side]; b; b &= b - 1) {
		int from = game_lowest(b);
		for (uint64_t d = hokito_destinations(h, from); d; d &= d - 1) {
			moves[n].from = (uint8_t)from;
			moves[n].to = (uint8_t)game_lowest(d);
			moves[n].place = 0;
			n++;
		}
	}
	return n;
}

int
hokito_moves(const struct hokito *h, struct game_move *moves)
{
	if (!hokito_has_move(h, h->side ^ 1))
		return 0;
	return moves_of_side(h, moves);
}

void
hokito_apply(struct hokito *h, struct game_move m)
{
	int s = m.from, t = m.to;
	int colour = h->top[1] & BIT(s) ? 1 : 0;

	assert(s != t && (h->occ & BIT(s)) && (h->occ & BIT(t)));
	h->below[h->botpawn[s]] = h->toppawn[t];
	h->toppawn[t] = h->toppawn[s];
	h->height[t] = (uint8_t)(h->height[t] + h->height[s]);
	h->topval[t] = h->topval[s];
	h->top[colour ^ 1] &= ~BIT(t);
	h->top[colour] |= BIT(t);
	h->single &= ~(BIT(t) | BIT(s));
	h->top[colour] &= ~BIT(s);
	h->occ &= ~BIT(s);
	h->toppawn[s] = h->botpawn[s] = -1;
	h->height[s] = 0;
	h->topval[s] = 0;
	links_remove(h, s);
	h->side ^= 1;
}

void
hokito_outcome(const struct hokito *h, struct game_outcome *o)
{
	o->score[0] = o->score[1] = 0;
	for (uint64_t b = h->occ; b; b &= b - 1) {
		int sq = game_lowest(b);
		o->score[(h->top[1] & BIT(sq)) ? 1 : 0] += h->topval[sq] * h->height[sq];
	}
	o->end = hokito_over(h) ? GAME_END_BLOCKED : GAME_END_NONE;
	o->winner = -1;
	if (o->end != GAME_END_NONE && o->score[0] != o->score[1])
		o->winner = o->score[0] > o->score[1] ? 0 : 1;
}

int
hokito_ply(const struct hokito *h)
{
	return h->npawns - game_popcount(h->occ);
}

int
hokito_move_format(struct game_move m, char *buf, size_t size)
{
	if (size < 6)
		return GAME_ENOSPC;
	game_square_name(m.from, buf);
	buf[2] = '-';
	game_square_name(m.to, buf + 3);
	return 5;
}

/* Say why the piece on from cannot start a move at all, or return 0 if it can try. */
static int
check_mover(const struct hokito *h, int from, struct game_error *err)
{
	char name[3];

	game_square_name(from, name);
	if (!(h->occ & BIT(from)))
		return game_error_set(err, GAME_EILLEGAL, 0, "there is no pawn on %s", name);
	if (!(h->top[h->side] & BIT(from)) && h->height[from] > 1)
		return game_error_set(err, GAME_EILLEGAL, 0,
		                      "the stack on %s is topped by a %s pawn and it is %s's turn",
		                      name, colour_name[h->side ^ 1], colour_name[h->side]);
	if (!(h->top[h->side] & BIT(from)))
		return game_error_set(err, GAME_EILLEGAL, 0,
		                      "the pawn on %s is %s's and it is %s's turn", name,
		                      colour_name[h->side ^ 1], colour_name[h->side]);
	return 0;
}

/* Say why from cannot land on to: the single-on-single, stack-on-stack rule. */
static int
check_landing(const struct hokito *h, int from, int to, struct game_error *err)
{
	char fname[3], tname[3];

	game_square_name(from, fname);
	game_square_name(to, tname);
	if (!(h->occ & BIT(to)))
		return game_error_set(err, GAME_EILLEGAL, -1,
		                      "%s is empty: a move ends on a pawn or a stack", tname);
	if ((h->single & BIT(from)) && !(h->single & BIT(to)))
		return game_error_set(err, GAME_EILLEGAL, -1,
		                      "the single pawn on %s must land on a single pawn, and %s "
		                      "holds a stack of %d",
		                      fname, tname, h->height[to]);
	if (!(h->single & BIT(from)) && (h->single & BIT(to)))
		return game_error_set(err, GAME_EILLEGAL, -1,
		                      "the stack on %s must land on a stack, and %s holds a single "
		                      "pawn",
		                      fname, tname);
	return 0;
}

/*
 * Check a full hop path of n squares hop by hop: sq[] and pos[] (where each square is in the
 * text) hold the first four at most, which is all a path of the right length has; end is where
 * the last square is in the text.
 */
static int
check_path(const struct hokito *h, const int *sq, const int *pos, int n, int end,
           struct game_error *err)
{
	int v = h->topval[sq[0]], last = -1;
	char a[3], b[3];

	game_square_name(sq[0], a);
	if (n - 1 != v)
		return game_error_set(err, GAME_EILLEGAL, end,
		                      "the %s on %s has value %d and makes exactly %d hop%s, this "
		                      "path has %d",
		                      h->height[sq[0]] > 1 ? "stack" : "pawn", a, v, v,
		                      v == 1 ? "" : "s", n - 1);
	for (int i = 1; i < n; i++) {
		int d, t;
		game_square_name(sq[i - 1], a);
		game_square_name(sq[i], b);
		if (sq[i] % 6 == sq[i - 1] % 6)
			d = sq[i] > sq[i - 1] ? NORTH : SOUTH;
		else if (sq[i] / 6 == sq[i - 1] / 6)
			d = sq[i] > sq[i - 1] ? EAST : WEST;
		else
			return game_error_set(
			        err, GAME_EILLEGAL, pos[i],
			        "hop %d from %s to %s is not straight: hops go north, "
			        "east, south or west",
			        i, a, b);
		if (sq[i] == sq[i - 1])
			return game_error_set(err, GAME_EILLEGAL, pos[i], "hop %d goes nowhere", i);
		if (last >= 0 && d == (last ^ 2))
			return game_error_set(err, GAME_EILLEGAL, pos[i],
			                      "hop %d from %s goes back the way it came", i, a);
		for (int j = 0; j < i; j++)
			if (sq[j] == sq[i])
				return game_error_set(err, GAME_EILLEGAL, pos[i],
				                      "the path passes %s twice", b);
		/* The first occupied square in direction d, the origin counting as vacated. */
		t = sq[i - 1];
		do
			t = step(t, d);
		while (t >= 0 && (!(h->occ & BIT(t)) || t == sq[0]));
		if (t != sq[i]) {
			char c[3];
			if (t < 0)
				return game_error_set(
				        err, GAME_EILLEGAL, pos[i],
				        "hop %d from %s %s meets no pawn before the edge: "
				        "%s is empty",
				        i, a, dir_name[d], b);
			game_square_name(t, c);
			return game_error_set(err, GAME_EILLEGAL, pos[i],
			                      "hop %d from %s %s lands on %s, the first occupied "
			                      "square, not on %s",
			                      i, a, dir_name[d], c, b);
		}
		last = d;
	}
	return check_landing(h, sq[0], sq[n - 1], err);
}

int
hokito_move_parse(const struct hokito *h, const char *text, struct game_move *m,
                  struct game_error *err)
{
	int sq[4], pos[4], n = 0, end = 0, rc;
	const char *p = text;
	char a[3], b[3];

	for (;;) {
		int s = game_square_parse(p);
		if (s < 0)
			return game_error_set(
			        err, GAME_ESYNTAX, (int)(p - text),
			        "write from-to like c2-e4, or the hop path like c2-c4-e4");
		/* A path longer than any pawn's value is well-formed text, and illegal. */
		end = (int)(p - text);
		if (n < 4)
			pos[n] = end, sq[n] = s;
		n++;
		p += 2;
		if (*p == '\0')
			break;
		if (*p != '-')
			return game_error_set(err, GAME_ESYNTAX, (int)(p - text),
			                      "squares are joined by '-' (like c2-e4)");
		p++;
	}
	if (n < 2)
		return game_error_set(err, GAME_ESYNTAX, (int)(p - text),
		                      "write from-to like c2-e4");
	if (hokito_over(h))
		return game_error_set(err, GAME_EOVER, -1, "the game is over");
	if ((rc = check_mover(h, sq[0], err)) < 0)
		return rc;
	m->from = (uint8_t)sq[0];
	m->to = (uint8_t)sq[n < 4 ? n - 1 : 3];
	m->place = 0;
	if (n > 2 || h->topval[sq[0]] == 1) {
		if ((rc = check_path(h, sq, pos, n, end, err)) < 0)
			return rc;
		return 0;
	}
	if (hokito_destinations(h, sq[0]) & BIT(sq[1]))
		return 0;
	if ((rc = check_landing(h, sq[0], sq[1], err)) < 0)
		return rc;
	game_square_name(sq[0], a);
	game_square_name(sq[1], b);
	return game_error_set(err, GAME_EILLEGAL, -1,
	                      "no path of exactly %d hops leads from %s to %s", h->topval[sq[0]], a,
	                      b);
}

/*
 * Perft with bulk counting: at depth 1 the moves are counted, not made. A node where either
 * player has no move is a finished game and has no children.
 */
static uint64_t
perft(const struct hokito *h, int depth)
{
	struct game_move moves[GAME_MOVES_MAX];
	uint64_t total = 0;
	int n;

	if (!hokito_has_move(h, h->side ^ 1))
		return 0;
	if (depth == 1) {
		for (uint64_t b = h->top[h->side]; b; b &= b - 1)
			total += (uint64_t)game_popcount(hokito_destinations(h, game_lowest(b)));
		return total;
	}
	n = moves_of_side(h, moves);
	for (int i = 0; i < n; i++) {
		struct hokito child = *h;
		hokito_apply(&child, moves[i]);
		total += perft(&child, depth - 1);
	}
	return total;
}

uint64_t
hokito_perft(const struct hokito *h, int depth)
{
	if (depth <= 0)
		return 1;
	return perft(h, depth);
}

/*
 * Evaluation (see eval.h and the class's hooks): the score margin counts most (it is what decides
 * the game), then mobility, the number of moves each side has: a side with many moves has
 * choices, and a side with none ends the game at once. Both come out of one pass over the
 * occupied squares, which also tells whether the game is over (some side has no move), so a leaf
 * needs no separate end test. The hop rule is read here from the struct (hokito_destinations)
 * rather than by generating and applying moves.
 */

/* Mobility is worth this much per move of difference (EVAL_UNIT is one point of margin). */
#define HK_MOBILITY 2

/*
 * The leaf evaluation spends much of its time in popcounts, and plain x86-64 has no popcount
 * instruction: on x86-64 Linux it is compiled twice, with and without POPCNT, and the loader
 * picks the one the CPU supports (GCC's target_clones). Not with clang: clang 14 emits no symbol
 * under the plain name for an exported clone.
 */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute) && !defined(__clang__)
#if __has_attribute(target_clones)
#define EVAL_CLONES __attribute__((target_clones("popcnt", "default")))
#endif
#endif
#ifndef EVAL_CLONES
#define EVAL_CLONES
#endif

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
		int sq = game_lowest(b);
		score[(h->top[1] >> sq) & 1] += h->topval[sq] * h->height[sq];
	}
}

static int
hk_eval_final(const void *st)
{
	int score[2];

	hk_scores(st, score);
	return hk_final(st, score);
}

EVAL_CLONES static int
hk_eval_leaf(const void *st, int *exact)
{
	const struct hokito *h = st;
	int score[2] = {0, 0}, mob[2] = {0, 0};
	int me = h->side;

	for (uint64_t b = h->occ; b; b &= b - 1) {
		int sq = game_lowest(b), c = (int)((h->top[1] >> sq) & 1);
		score[c] += h->topval[sq] * h->height[sq];
		mob[c] += game_popcount(hokito_destinations(h, sq));
	}
	if (mob[0] == 0 || mob[1] == 0) {
		*exact = 1;
		return hk_final(h, score);
	}
	*exact = 0;
	return EVAL_UNIT * (score[me] - score[me ^ 1]) + HK_MOBILITY * (mob[me] - mob[me ^ 1]);
}

/* The change of the score margin: the mover's stack grows by the target's height, and the
 * target's top pawn stops counting for whoever had it. */
static int
hk_move_score(const struct eval_order *o, const void *st, struct game_move m)
{
	const struct hokito *h = st;
	int hv = h->height[m.to], v = h->topval[m.from];
	int own = (int)((h->top[h->side] >> m.to) & 1);

	(void)o;
	return v * hv + (own ? -1 : 1) * h->topval[m.to] * hv;
}

/* The Zobrist key: each occupied square's top colour, top value and height (all that the rules
 * and the score read), and the side to move. */
static uint64_t
hk_hash(const void *st, const uint64_t keys[GAME_KEYS])
{
	const struct hokito *h = st;
	uint64_t key = h->side ? keys[GAME_KEY_SIDE] : 0;

	for (uint64_t b = h->occ; b; b &= b - 1) {
		int sq = game_lowest(b);
		int colour = (h->top[1] >> sq) & 1;
		key ^= keys[GAME_KEYS_HOKITO + (sq * 6 + colour * 3 + h->topval[sq] - 1) * 37 +
		            h->height[sq]];
	}
	return key;
}

/* The class's hooks over the typed functions above. */
static void
hk_start(void *st, int variant, uint64_t seed)
{
	hokito_start(st, variant == 1, seed);
}

static int
hk_parse(void *st, const char *text, struct game_error *err)
{
	return hokito_parse(st, text, err);
}

static int
hk_format(const void *st, char *buf, size_t size)
{
	return hokito_format(st, buf, size);
}

static int
hk_cell_format(const void *st, int sq, char *buf, size_t size)
{
	return hokito_cell_format(st, sq, buf, size);
}

static int
hk_side(const void *st)
{
	return ((const struct hokito *)st)->side;
}

static int
hk_ply(const void *st)
{
	return hokito_ply(st);
}

static int
hk_moves(const void *st, struct game_move *moves)
{
	return hokito_moves(st, moves);
}

static int
hk_move_parse(const void *st, const char *text, struct game_move *m, struct game_error *err)
{
	return hokito_move_parse(st, text, m, err);
}

static void
hk_apply(void *st, struct game_move m)
{
	hokito_apply(st, m);
}

static void
hk_outcome(const void *st, struct game_outcome *o)
{
	hokito_outcome(st, o);
}

static int
hk_over(const void *st)
{
	return hokito_over(st);
}

static uint64_t
hk_perft(const void *st, int depth)
{
	return hokito_perft(st, depth);
}

static const char *const hk_variants[] = {"standard", "random36", NULL};
static const char *const hk_ends[] = {"blocked", NULL};

const struct game_class hokito_class = {
        .kind = GAME_HOKITO,
        .name = "hokito",
        .title = "HOKITO",
        .a_title = "a HOKITO",
        .side = {"black", "white"},
        .side_header = {"Black", "White"},
        .variants = hk_variants,
        .variant_text = "standard, random36",
        .ends = hk_ends,
        .facts = GAME_HAS_SCORES | GAME_HAS_STACKS,
        .history_stride = 1,
        /*
         * Tuned by matches between adjacent levels (tests/bench/LEVELS.md): two plies end on the
         * opponent's move and play no better than one, so HOKITO goes from one ply to three.
         */
        .levels =
                {
                        {1, 0, 1000},  /* 1: one ply, judgement blurred by large noise */
                        {1, 0, 16},    /* 2: one ply */
                        {3, 0, 64},    /* 3: three plies, four points of noise */
                        {4, 0, 8},     /* 4: four plies */
                        {0, 50000, 0}, /* 5 to 8: node budgets */
                        {0, 250000, 0},
                        {0, 800000, 0},
                        {0, 2500000, 0},
                },
        .state_size = sizeof(struct hokito),
        .start = hk_start,
        .parse = hk_parse,
        .format = hk_format,
        .cell_format = hk_cell_format,
        .side_to_move = hk_side,
        .ply = hk_ply,
        .moves = hk_moves,
        .move_parse = hk_move_parse,
        .move_format = hokito_move_format,
        .apply = hk_apply,
        .outcome = hk_outcome,
        .over = hk_over,
        .perft = hk_perft,
        .reserve = NULL,
        .eval_final = hk_eval_final,
        .eval_leaf = hk_eval_leaf,
        .order_init = NULL,
        .move_score = hk_move_score,
        .hash = hk_hash,
};
