/*
 * oxono.c: the rules of OXONO on bitboards: start, parse and format, move generation, move
 * validation with reasons, apply, outcome and perft.
 *
 * A position is a plain value (struct oxono): four 36-bit bitboards (pawns by colour, pawns by
 * symbol), the two totems' squares, the reserves and the side to move. Square = rank_index * 6 +
 * file_index, a1 = 0, f6 = 35; bit sq of a bitboard stands for square sq. This module owns only
 * the values its callers hand it: it never allocates, never does I/O and keeps no global state
 * (its only tables are constant).
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "oxono.h"
#include "rng.h"

static_assert(sizeof(struct oxono) <= GAME_STATE_MAX, "struct oxono must fit struct game");

#define BOARD  0xfffffffffULL /* the 36 squares */
#define FILE_A 0x041041041ULL /* a1, a2, ..., a6 */
#define FILE_F (FILE_A << 5)
#define PAWNS  8 /* pawns per symbol per colour */

#define BIT(sq) (1ULL << (sq))

/* The hot helpers are inlined even at -O2, so each compiled copy of perft holds all of them. */
#if defined(__GNUC__)
#define HOT static inline __attribute__((always_inline))
#else
#define HOT static inline
#endif

static const char *const side_words[2] = {"Pink", "Black"};
static const char totem_letters[2] = {'X', 'O'};

/* How a totem moves this turn; see totem_dests(). */
enum dest_kind {
	DEST_SLIDE, /* along its row and column over empty squares */
	DEST_JUMP,  /* enclosed: over the run of occupied squares next to it */
	DEST_ANY,   /* enclosed with no jump: to any empty square */
};

/* The squares orthogonally next to the squares of b. */
HOT uint64_t
neighbours(uint64_t b)
{
	return (((b << 1) & ~FILE_A) | ((b >> 1) & ~FILE_F) | (b << 6) | (b >> 6)) & BOARD;
}

/* Squares holding a pawn or a totem. */
HOT uint64_t
occupied(const struct oxono *x)
{
	return x->colour[0] | x->colour[1] | BIT(x->totem[0]) | BIT(x->totem[1]);
}

/*
 * The four directions as (file step, square step): east, west, north, south. A step leaves the
 * board when the file goes out of 0..5 or the square out of 0..35.
 */
static const int dir_file[4] = {1, -1, 0, 0};
static const int dir_step[4] = {1, -1, 6, -6};

/* The square one step from sq in direction d, or -1 off the board. */
static int
step(int sq, int d)
{
	int f = sq % 6 + dir_file[d];
	int s = sq + dir_step[d];

	if (f < 0 || f > 5 || s < 0 || s >= 36)
		return -1;
	return s;
}

/* The squares one step east, west, north or south of the squares of b (nothing wraps). */
HOT uint64_t
east(uint64_t b)
{
	return (b << 1) & ~FILE_A & BOARD;
}

HOT uint64_t
west(uint64_t b)
{
	return (b >> 1) & ~FILE_F;
}

HOT uint64_t
north(uint64_t b)
{
	return (b << 6) & BOARD;
}

HOT uint64_t
south(uint64_t b)
{
	return b >> 6;
}

/*
 * Occluded fills (Kogge-Stone): gen together with every square reached from it by walking in one
 * direction over squares of prop only. A run on a 6x6 board is at most 5 steps, so the doubling
 * steps 1, 2 and 4 cover it.
 */
HOT uint64_t
fill_east(uint64_t gen, uint64_t prop)
{
	prop &= ~FILE_A;
	gen |= prop & (gen << 1);
	prop &= prop << 1;
	gen |= prop & (gen << 2);
	prop &= prop << 2;
	return gen | (prop & (gen << 4));
}

HOT uint64_t
fill_west(uint64_t gen, uint64_t prop)
{
	prop &= ~FILE_F;
	gen |= prop & (gen >> 1);
	prop &= prop >> 1;
	gen |= prop & (gen >> 2);
	prop &= prop >> 2;
	return gen | (prop & (gen >> 4));
}

HOT uint64_t
fill_north(uint64_t gen, uint64_t prop)
{
	gen |= prop & (gen << 6);
	prop &= prop << 6;
	gen |= prop & (gen << 12);
	prop &= prop << 12;
	return gen | (prop & (gen << 24));
}

HOT uint64_t
fill_south(uint64_t gen, uint64_t prop)
{
	gen |= prop & (gen >> 6);
	prop &= prop >> 6;
	gen |= prop & (gen >> 12);
	prop &= prop >> 12;
	return gen | (prop & (gen >> 24));
}

/*
 * Where the totem on sq may go, given the occupied squares occ (which include both totems).
 * This is the movement rule in one place:
 *   - a totem with an empty neighbour slides: along each of the four directions, every square
 *     up to (not including) the first occupied square or the edge;
 *   - an enclosed totem (every neighbour that is on the board is occupied; an edge or a corner
 *     just has fewer neighbours) jumps: in each direction, over the contiguous run of occupied
 *     squares to the first empty square beyond it; a run that reaches the edge gives nothing;
 *   - an enclosed totem that has no jump may go to any empty square.
 * Returns the destination set (never empty while the board has an empty square) and sets *kind.
 */
HOT uint64_t
totem_dests(int sq, uint64_t occ, enum dest_kind *kind)
{
	uint64_t empty = ~occ & BOARD;
	uint64_t b = BIT(sq), dests;

	if (neighbours(b) & empty) {
		*kind = DEST_SLIDE;
		dests = fill_east(b, empty) | fill_west(b, empty) | fill_north(b, empty) |
		        fill_south(b, empty);
		return dests & ~b;
	}
	dests = (east(fill_east(b, occ)) | west(fill_west(b, occ)) | north(fill_north(b, occ)) |
	         south(fill_south(b, occ))) &
	        empty;
	*kind = dests ? DEST_JUMP : DEST_ANY;
	return dests ? dests : empty;
}

/*
 * Where the pawn may go once the totem stands on to: the empty squares next to it, or, when
 * there are none, every empty square. free is the set of empty squares after the totem moved
 * (its old square is free again, to is not).
 */
HOT uint64_t
placements(int to, uint64_t free)
{
	uint64_t near = neighbours(BIT(to)) & free;

	return near ? near : free;
}

/*
 * Whether b holds four or more contiguous squares in the row or the column of sq. Only a line
 * through the newly placed pawn can be new, so this is the whole win test after a placement.
 */
HOT int
line_through(uint64_t b, int sq)
{
	uint64_t row = (b >> (sq / 6 * 6)) & 0x3f;
	uint64_t col = (b >> (sq % 6)) & FILE_A;

	row &= row >> 1;
	row &= row >> 2;
	col &= col >> 6;
	col &= col >> 12;
	return (row | col) != 0;
}

/* Whether b holds four or more contiguous squares in any row or column. */
static int
line_anywhere(uint64_t b)
{
	uint64_t h = b & (b >> 1) & (b >> 2) & (b >> 3) & (FILE_A * 7); /* runs starting on a..c */
	uint64_t v = b & (b >> 6) & (b >> 12) & (b >> 18);

	return (h | v) != 0;
}

/* The squares of b's runs of four or more in a row or a column. */
static uint64_t
line_squares(uint64_t b)
{
	uint64_t h = b & (b >> 1) & (b >> 2) & (b >> 3) & (FILE_A * 7); /* runs starting on a..c */
	uint64_t v = b & (b >> 6) & (b >> 12) & (b >> 18);

	return h | h << 1 | h << 2 | h << 3 | v | v << 6 | v << 12 | v << 18;
}

/* Whether side has no pawn left to place. */
HOT int
reserve_empty(const struct oxono *x, int side)
{
	return x->reserve[side][0] == 0 && x->reserve[side][1] == 0;
}

/*
 * Settle the end of a parsed position. A line on the board was made by the last placement, that
 * is by the side not to move, which wins. Otherwise the game is a draw when the side to move has
 * no pawn left: in a real game that happens exactly when all 32 pawns are placed; a hand-made
 * position where only the side to move has run out is counted the same way.
 */
static void
settle(struct oxono *x)
{
	x->end = GAME_END_NONE;
	x->winner = -1;
	for (int i = 0; i < 2; i++) {
		if (line_anywhere(x->colour[i]) || line_anywhere(x->symbol[i])) {
			x->end = GAME_END_LINE;
			x->winner = (int8_t)(x->side ^ 1);
			return;
		}
	}
	if (reserve_empty(x, x->side))
		x->end = GAME_END_FULL;
}

void
oxono_start(struct oxono *x, uint64_t seed)
{
	struct rng r;
	int c3 = 2 * 6 + 2, d4 = 3 * 6 + 3;
	int x_on_c3;

	rng_init(&r, seed);
	x_on_c3 = (rng_next(&r) & 1) == 0;
	memset(x, 0, sizeof *x);
	x->totem[0] = (uint8_t)(x_on_c3 ? c3 : d4);
	x->totem[1] = (uint8_t)(x_on_c3 ? d4 : c3);
	for (int c = 0; c < 2; c++)
		for (int s = 0; s < 2; s++)
			x->reserve[c][s] = PAWNS;
	x->side = 0;
	x->end = GAME_END_NONE;
	x->winner = -1;
}

/* The cell text of sq: "-", "X", "O", or colour + symbol. Returns a static string. */
static const char *
cell_text(const struct oxono *x, int sq)
{
	static const char *const pawns[2][2] = {{"px", "po"}, {"bx", "bo"}};
	uint64_t b = BIT(sq);

	if (sq == x->totem[0])
		return "X";
	if (sq == x->totem[1])
		return "O";
	if ((x->colour[0] | x->colour[1]) & b)
		return pawns[(x->colour[1] & b) != 0][(x->symbol[1] & b) != 0];
	return "-";
}

int
oxono_cell_format(const struct oxono *x, int sq, char *buf, size_t size)
{
	const char *t = cell_text(x, sq);
	size_t n = strlen(t);

	if (n + 1 > size)
		return GAME_ENOSPC;
	memcpy(buf, t, n + 1);
	return (int)n;
}

int
oxono_format(const struct oxono *x, char *buf, size_t size)
{
	char tmp[GAME_TEXT_MAX];
	size_t n = 0;

	for (int r = 5; r >= 0; r--) {
		for (int f = 0; f < 6; f++) {
			const char *t = cell_text(x, r * 6 + f);
			size_t len = strlen(t);

			memcpy(tmp + n, t, len);
			n += len;
			tmp[n++] = f < 5 ? ',' : r > 0 ? '/' : ' ';
		}
	}
	tmp[n++] = x->side ? 'b' : 'p';
	tmp[n] = '\0';
	if (n + 1 > size)
		return GAME_ENOSPC;
	memcpy(buf, tmp, n + 1);
	return (int)n;
}

/*
 * Parse a position text. The grammar is strict (FORMATS.md): six rows of six cells, rank 6
 * first, cells separated by ',' and rows by '/', then one space and the side letter, then the
 * end of the text. Every cell is read as the maximal run of characters up to the next separator,
 * so an error names the cell as written and its square. Pawn counts are only bounded (8 per
 * colour and symbol); they need not match the side to move, so hand-made positions parse.
 */
int
oxono_parse(struct oxono *x, const char *text, struct game_error *err)
{
	int totem_pos[2] = {-1, -1};
	int count[2][2] = {{0, 0}, {0, 0}};
	int p = 0, len;
	char name[3];

	memset(x, 0, sizeof *x);
	for (int r = 5; r >= 0; r--) {
		for (int f = 0; f < 6; f++) {
			int sq = r * 6 + f, start = p;
			char sep;

			while (text[p] != '\0' && text[p] != ',' && text[p] != '/' &&
			       text[p] != ' ')
				p++;
			len = p - start;
			sep = text[p];
			game_square_name(sq, name);
			if (len == 0 && sep == '\0')
				return game_error_set(err, GAME_ESYNTAX, p,
				                      "the position ends early: rank %d has %d of "
				                      "its 6 cells and the side to move is missing",
				                      r + 1, f);
			/* A space followed by more board (a ',' or '/' before any other space) is
			 * a stray space wherever it is, not an unknown cell, a short rank or a
			 * missing '/'. */
			if (sep == ' ' &&
			    (len == 0 || strcspn(text + p + 1, ",/") < strcspn(text + p + 1, " ")))
				return game_error_set(err, GAME_ESYNTAX, p,
				                      "unexpected space at %s (a space is only "
				                      "allowed before the side to move)",
				                      name);
			if (len == 0)
				return game_error_set(err, GAME_ESYNTAX, p,
				                      "empty cell at %s (write '-' for an empty "
				                      "square)",
				                      name);
			if (len == 1 && text[start] == '-') {
				/* empty square */
			} else if (len == 1 && (text[start] == 'X' || text[start] == 'O')) {
				int t = text[start] == 'O';
				char first[3];

				if (totem_pos[t] >= 0) {
					game_square_name(totem_pos[t], first);
					return game_error_set(
					        err, GAME_ESYNTAX, start,
					        "a second totem %c at %s (the first is at %s)",
					        totem_letters[t], name, first);
				}
				totem_pos[t] = sq;
			} else if (len == 2 && (text[start] == 'p' || text[start] == 'b') &&
			           (text[start + 1] == 'x' || text[start + 1] == 'o')) {
				int c = text[start] == 'b', s = text[start + 1] == 'o';

				if (++count[c][s] > PAWNS)
					return game_error_set(err, GAME_ESYNTAX, start,
					                      "more than %d %s %c pawns on the "
					                      "board (the extra one at %s)",
					                      PAWNS, side_words[c],
					                      totem_letters[s], name);
				x->colour[c] |= BIT(sq);
				x->symbol[s] |= BIT(sq);
			} else {
				return game_error_set(
				        err, GAME_ESYNTAX, start,
				        "unknown cell '%.*s%s' at %s (expected -, X, O, "
				        "px, po, bx or bo)",
				        len > 8 ? 8 : len, text + start, len > 8 ? "..." : "",
				        name);
			}
			if (f < 5 && sep != ',')
				return game_error_set(
				        err, GAME_ESYNTAX, p,
				        sep == '\0' ? "the position ends early: rank %d has %d of "
				                      "its 6 cells and the side to move is missing"
				                    : "rank %d has only %d cells (expected 6)",
				        r + 1, f + 1);
			if (f == 5 && sep == ',')
				return game_error_set(err, GAME_ESYNTAX, p,
				                      "rank %d has more than 6 cells", r + 1);
			if (f == 5 && r > 0 && sep != '/')
				return game_error_set(
				        err, GAME_ESYNTAX, p,
				        sep == ' ' ? "only %d ranks before the side to move "
				                     "(expected 6)"
				                   : "the position ends after %d ranks (expected 6 "
				                     "and "
				                     "the side to move)",
				        6 - r);
			if (f == 5 && r == 0 && sep == '/')
				return game_error_set(err, GAME_ESYNTAX, p,
				                      "more than 6 ranks (expected a space and the "
				                      "side to move after rank 1)");
			if (f == 5 && r == 0 && sep != ' ')
				return game_error_set(
				        err, GAME_ESYNTAX, p,
				        "the side to move is missing (expected a space "
				        "and p or b after rank 1)");
			p++;
		}
	}
	if (text[p] == '\0')
		return game_error_set(err, GAME_ESYNTAX, p,
		                      "the side to move is missing (expected p or b)");
	if (text[p] == ' ')
		return game_error_set(err, GAME_ESYNTAX, p,
		                      "more than one space before the side to move");
	len = 0;
	while (text[p + len] != '\0' && text[p + len] != ' ')
		len++;
	if (len != 1 || (text[p] != 'p' && text[p] != 'b'))
		return game_error_set(err, GAME_ESYNTAX, p,
		                      "unknown side to move '%.*s%s' (expected p or b)",
		                      len > 8 ? 8 : len, text + p, len > 8 ? "..." : "");
	x->side = text[p] == 'b';
	if (text[p + 1] != '\0')
		return game_error_set(err, GAME_ESYNTAX, p + 1,
		                      "unexpected text after the side to move");
	for (int t = 0; t < 2; t++) {
		if (totem_pos[t] < 0)
			return game_error_set(err, GAME_ESYNTAX, p, "no totem %c on the board",
			                      totem_letters[t]);
		x->totem[t] = (uint8_t)totem_pos[t];
	}
	for (int c = 0; c < 2; c++)
		for (int s = 0; s < 2; s++)
			x->reserve[c][s] = (uint8_t)(PAWNS - count[c][s]);
	settle(x);
	return 0;
}

/*
 * Move generation. Moves come in a fixed order: totem X before totem O (a totem is skipped when
 * the mover has no pawn of its symbol left), then by the totem's destination square, then by the
 * placement square, both ascending (a1 = 0 first). That is ascending order of (from, to, place).
 *
 * Why GAME_MOVES_MAX (2048) cannot overflow. Per totem, with e empty squares on the board:
 *   - sliding: at most 5 + 5 destinations along its row and column; the square it came from (or
 *     its old square) is next to the destination and empty, so the placement is always next to
 *     the totem: at most 4 placements, 40 moves;
 *   - jumping: at most 4 destinations, each with at most e placements: 4e <= 136;
 *   - no jump: every square of the totem's row and column is occupied (a run reaching the edge
 *     in all four directions), so at least 9 pawns are on the board and e <= 36 - 2 - 9 = 25;
 *     e destinations times at most e placements (the old square is freed, the new one taken):
 *     at most 625 moves.
 * So at most 2 * 625 = 1250 moves.
 */
int
oxono_moves(const struct oxono *x, struct game_move *moves)
{
	uint64_t pawns = x->colour[0] | x->colour[1];
	uint64_t occ = occupied(x);
	int n = 0;

	if (x->end != GAME_END_NONE)
		return 0;
	for (int t = 0; t < 2; t++) {
		enum dest_kind kind;
		uint64_t dests, free;

		if (x->reserve[x->side][t] == 0)
			continue;
		dests = totem_dests(x->totem[t], occ, &kind);
		free = ~(pawns | BIT(x->totem[t ^ 1])) & BOARD;
		for (; dests; dests &= dests - 1) {
			int to = game_lowest(dests);
			uint64_t pl = placements(to, free & ~BIT(to));

			for (; pl; pl &= pl - 1) {
				assert(n < GAME_MOVES_MAX);
				moves[n].from = (uint8_t)t;
				moves[n].to = (uint8_t)to;
				moves[n].place = (uint8_t)game_lowest(pl);
				n++;
			}
		}
	}
	return n;
}

/* The names of up to 4 squares of b, "b3, e3 or f6". */
static void
squares_text(uint64_t b, char *buf, size_t size)
{
	size_t n = 0;
	int k = game_popcount(b), i = 0;

	buf[0] = '\0';
	for (; b && n + 8 < size; b &= b - 1, i++) {
		char name[3];

		game_square_name(game_lowest(b), name);
		n += (size_t)snprintf(buf + n, size - n, "%s%s",
		                      i == 0       ? ""
		                      : i == k - 1 ? " or "
		                                   : ", ",
		                      name);
	}
}

/*
 * Move validation. The text is checked for syntax first (GAME_ESYNTAX), then the game must be
 * on (GAME_EOVER), then each rule in the order a player applies them, so the reason given is the
 * first rule the move breaks (GAME_EILLEGAL): the totem's symbol must be in the mover's reserve,
 * the totem must be able to reach its destination (slide, jump or free move), and the pawn must go
 * on an empty square next to the totem, or anywhere empty when no such square exists. A move
 * accepted here is exactly one that oxono_moves() lists.
 */
int
oxono_move_parse(const struct oxono *x, const char *text, struct game_move *m,
                 struct game_error *err)
{
	uint64_t pawns = x->colour[0] | x->colour[1];
	uint64_t occ = occupied(x), dests, free, pl;
	enum dest_kind kind;
	char tn[3], to_name[3], pl_name[3], list[40];
	int t, from, to, place;

	if (text[0] != 'X' && text[0] != 'O')
		return game_error_set(err, GAME_ESYNTAX, 0,
		                      "a move starts with the totem, X or O (as in Xc5+c6)");
	t = text[0] == 'O';
	to = game_square_parse(text + 1);
	if (to < 0)
		return game_error_set(err, GAME_ESYNTAX, 1,
		                      "expected the totem's destination square (a1 to f6) after %c",
		                      text[0]);
	if (text[3] != '+')
		return game_error_set(
		        err, GAME_ESYNTAX, 3,
		        "expected '+' and the pawn's square after the totem's square");
	place = game_square_parse(text + 4);
	if (place < 0)
		return game_error_set(err, GAME_ESYNTAX, 4,
		                      "expected the pawn's square (a1 to f6) after '+'");
	if (text[6] != '\0')
		return game_error_set(err, GAME_ESYNTAX, 6, "unexpected text after the move");

	if (x->end == GAME_END_LINE)
		return game_error_set(err, GAME_EOVER, -1, "the game is over: %s won with a line",
		                      side_words[x->winner]);
	if (x->end != GAME_END_NONE)
		return game_error_set(err, GAME_EOVER, -1, "the game is over: it is a draw");
	if (x->reserve[x->side][t] == 0)
		return game_error_set(err, GAME_EILLEGAL, 0, "no %c pawns left in %s's reserve",
		                      totem_letters[t], side_words[x->side]);

	from = x->totem[t];
	game_square_name(from, tn);
	game_square_name(to, to_name);
	game_square_name(place, pl_name);
	dests = totem_dests(from, occ, &kind);
	if (!(dests & BIT(to))) {
		if (to == from)
			return game_error_set(err, GAME_EILLEGAL, 1,
			                      "totem %c is already on %s: it must move",
			                      totem_letters[t], tn);
		if (kind == DEST_ANY)
			return game_error_set(err, GAME_EILLEGAL, 1,
			                      "totem %c is enclosed with no jump, so it may go to "
			                      "any empty square, but %s is occupied",
			                      totem_letters[t], to_name);
		if (kind == DEST_JUMP) {
			squares_text(dests, list, sizeof list);
			return game_error_set(err, GAME_EILLEGAL, 1,
			                      "totem %c on %s is enclosed and must jump over its "
			                      "neighbours, to %s",
			                      totem_letters[t], tn, list);
		}
		if (from % 6 != to % 6 && from / 6 != to / 6)
			return game_error_set(
			        err, GAME_EILLEGAL, 1,
			        "totem %c on %s moves along its row or column, and %s "
			        "is on neither",
			        totem_letters[t], tn, to_name);
		/* On its row or column but not reachable: name the first occupied square on the way
		 * (directions: 0 east, 1 west, 2 north, 3 south). */
		int d = from / 6 == to / 6 ? (to > from ? 0 : 1) : (to > from ? 2 : 3);
		int s = step(from, d);

		while (!(occ & BIT(s)))
			s = step(s, d);
		if (s == to)
			return game_error_set(err, GAME_EILLEGAL, 1,
			                      "totem %c cannot go to %s: %s is occupied",
			                      totem_letters[t], to_name, to_name);
		game_square_name(s, list);
		return game_error_set(err, GAME_EILLEGAL, 1,
		                      "totem %c cannot reach %s: %s is occupied", totem_letters[t],
		                      to_name, list);
	}

	free = ~(pawns | BIT(x->totem[t ^ 1]) | BIT(to)) & BOARD;
	pl = placements(to, free);
	if (!(pl & BIT(place))) {
		if (place == to)
			return game_error_set(err, GAME_EILLEGAL, 4,
			                      "%s is occupied: totem %c now stands there", pl_name,
			                      totem_letters[t]);
		if (!(free & BIT(place)))
			return game_error_set(err, GAME_EILLEGAL, 4, "%s is occupied", pl_name);
		game_square_name(game_lowest(pl), list);
		return game_error_set(err, GAME_EILLEGAL, 4,
		                      "%s is not next to the totem while %s is free", pl_name,
		                      list);
	}
	m->from = (uint8_t)t;
	m->to = (uint8_t)to;
	m->place = (uint8_t)place;
	return 0;
}

int
oxono_move_format(struct game_move m, char *buf, size_t size)
{
	char to[3], place[3];

	if (size < 7)
		return GAME_ENOSPC;
	game_square_name(m.to, to);
	game_square_name(m.place, place);
	buf[0] = totem_letters[m.from & 1];
	memcpy(buf + 1, to, 2);
	buf[3] = '+';
	memcpy(buf + 4, place, 2);
	buf[6] = '\0';
	return 6;
}

/*
 * Apply a legal move: the totem moves, the mover's pawn of the totem's symbol is placed, and the
 * end is settled. Only the placed pawn can complete a line, so the win test looks at its row and
 * column only, for the mover's colour and for the totem's symbol.
 */
HOT void
apply(struct oxono *x, int t, int to, int place)
{
	int c = x->side;
	uint64_t b = BIT(place);

	x->totem[t] = (uint8_t)to;
	x->colour[c] |= b;
	x->symbol[t] |= b;
	x->reserve[c][t]--;
	x->side = (uint8_t)(c ^ 1);
	if (line_through(x->colour[c], place) || line_through(x->symbol[t], place)) {
		x->end = GAME_END_LINE;
		x->winner = (int8_t)c;
	} else if (reserve_empty(x, c ^ 1)) {
		x->end = GAME_END_FULL;
	}
}

void
oxono_apply(struct oxono *x, struct game_move m)
{
	assert(x->end == GAME_END_NONE && m.from < 2 && x->reserve[x->side][m.from] > 0);
	apply(x, m.from, m.to, m.place);
}

void
oxono_outcome(const struct oxono *x, struct game_outcome *o)
{
	o->end = (enum game_end)x->end;
	o->winner = x->end == GAME_END_LINE ? x->winner : -1;
	o->score[0] = o->score[1] = 0;
}

int
oxono_ply(const struct oxono *x)
{
	return game_popcount(x->colour[0] | x->colour[1]);
}

/*
 * The number of moves of a position that is still going on, without listing them (the last
 * level of perft). A slide always has a free square next to the totem's new square (the square
 * it came through), so its moves are the pairs (destination, free square next to it): counted
 * per direction as game_popcount(shift(dests) & free). Jumps and free moves may fall back to "any
 * empty square", so they are counted per destination.
 */
/* Slide moves: pairs (destination, free square next to it), counted direction by direction. */
HOT int
count_slides(uint64_t dests, uint64_t free)
{
	return game_popcount(east(dests) & free) + game_popcount(west(dests) & free) +
	       game_popcount(north(dests) & free) + game_popcount(south(dests) & free);
}

/* The number of moves of the totem on sq (the other totem on other), pawns on the board. */
HOT int
count_totem(int sq, int other, uint64_t pawns)
{
	uint64_t free = ~(pawns | BIT(other)) & BOARD; /* empty once the totem has left */
	enum dest_kind kind;
	uint64_t dests = totem_dests(sq, pawns | BIT(sq) | BIT(other), &kind);
	int n = 0;

	if (kind == DEST_SLIDE)
		return count_slides(dests, free);
	for (; dests; dests &= dests - 1) {
		uint64_t near = neighbours(BIT(game_lowest(dests))) & free;

		n += near ? game_popcount(near) : game_popcount(free) - 1;
	}
	return n;
}

/* The number of moves with totems on totem[], given the mover's reserve[] by symbol. */
HOT uint64_t
count_moves_of(uint64_t pawns, const int totem[2], const uint8_t reserve[2])
{
	uint64_t n = 0;

	for (int t = 0; t < 2; t++)
		if (reserve[t] != 0)
			n += (uint64_t)count_totem(totem[t], totem[t ^ 1], pawns);
	return n;
}

/* count_moves_of() for the position x, which is still going on. */
HOT uint64_t
count_moves(const struct oxono *x)
{
	int totem[2] = {x->totem[0], x->totem[1]};

	return count_moves_of(x->colour[0] | x->colour[1], totem, x->reserve[x->side]);
}

/*
 * The number of moves after the move (t, to, place) of the side to move in x, without making
 * the child position: 0 when that move ends the game (a line, or the opponent has no pawn left).
 */
HOT uint64_t
count_moves_after(const struct oxono *x, int t, int to, int place)
{
	int c = x->side;
	uint64_t b = BIT(place);
	int totem[2] = {x->totem[0], x->totem[1]};

	if (line_through(x->colour[c] | b, place) || line_through(x->symbol[t] | b, place) ||
	    reserve_empty(x, c ^ 1))
		return 0;
	totem[t] = to;
	return count_moves_of(x->colour[0] | x->colour[1] | b, totem, x->reserve[c ^ 1]);
}

/*
 * The last two levels of perft for the moves of the side to move that slide totem t to `to`
 * and place a pawn on one of pl (all next to `to`): the sum of the opponent's move counts after
 * each of them, 0 after a move that ends the game. Rather than building each child, this works
 * out what the children share and corrects it for the one pawn that differs:
 *   - totem t, standing on `to`: its four rays are computed once; the pawn on b blocks exactly
 *     the ray that starts with b (b is next to `to`), so the child's destinations are the other
 *     three rays;
 *   - the other totem u: its moves are counted once without the pawn. When b is not one of u's
 *     destinations, the pawn changes none of u's rays, and removes from the count exactly the
 *     pairs (destination of u next to b, b). Otherwise u is counted afresh.
 */
HOT uint64_t
count_slide_children(const struct oxono *x, int t, int to, uint64_t pl)
{
	int c = x->side, o = c ^ 1, u = t ^ 1, us = x->totem[u];
	uint64_t pawns = x->colour[0] | x->colour[1];
	uint64_t tb = BIT(to), ub = BIT(us);
	uint64_t empty = ~(pawns | tb | ub) & BOARD;
	uint64_t ray[4], udests = 0, n = 0;
	int ucount = 0, uslides = 0;

	if (reserve_empty(x, o))
		return 0; /* every child is a finished draw */
	ray[0] = fill_east(tb, empty) & ~tb;
	ray[1] = fill_west(tb, empty) & ~tb;
	ray[2] = fill_north(tb, empty) & ~tb;
	ray[3] = fill_south(tb, empty) & ~tb;
	if (x->reserve[o][u]) {
		enum dest_kind kind;

		udests = totem_dests(us, pawns | tb | ub, &kind);
		uslides = kind == DEST_SLIDE;
		if (uslides)
			ucount = count_slides(udests, ~(pawns | tb) & BOARD);
	}
	for (; pl; pl &= pl - 1) {
		int place = game_lowest(pl);
		uint64_t b = BIT(place);

		if (line_through(x->colour[c] | b, place) || line_through(x->symbol[t] | b, place))
			continue;
		if (x->reserve[o][t]) {
			int k = place == to + 1 ? 0 : place == to - 1 ? 1 : place == to + 6 ? 2 : 3;
			uint64_t dests = (ray[0] | ray[1] | ray[2] | ray[3]) & ~ray[k];

			if (dests)
				n += (uint64_t)count_slides(dests, ~(pawns | b | ub) & BOARD);
			else
				n += (uint64_t)count_totem(to, us, pawns | b); /* now enclosed */
		}
		if (x->reserve[o][u]) {
			if (uslides && !(udests & b))
				n += (uint64_t)(ucount - game_popcount(neighbours(b) & udests));
			else
				n += (uint64_t)count_totem(us, to, pawns | b);
		}
	}
	return n;
}

/*
 * Perft spends its time in popcounts. Plain x86-64 (the baseline every distribution builds for)
 * has no popcount instruction, so on x86-64 Linux perft is compiled twice, with and without the
 * POPCNT instruction, and the loader picks the one the CPU supports (GCC's target_clones).
 */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define PERFT_CLONES __attribute__((target_clones("popcnt", "default")))
#endif
#endif
#ifndef PERFT_CLONES
#define PERFT_CLONES
#endif

/* Perft below a position that is still going on, depth >= 1: copy-make, bulk count at the end. */
PERFT_CLONES static uint64_t
perft(const struct oxono *x, int depth)
{
	uint64_t pawns = x->colour[0] | x->colour[1];
	uint64_t occ = pawns | BIT(x->totem[0]) | BIT(x->totem[1]);
	uint64_t n = 0;

	if (depth == 1)
		return count_moves(x);
	for (int t = 0; t < 2; t++) {
		enum dest_kind kind;
		uint64_t dests, free;

		if (x->reserve[x->side][t] == 0)
			continue;
		dests = totem_dests(x->totem[t], occ, &kind);
		free = ~(pawns | BIT(x->totem[t ^ 1])) & BOARD;
		for (; dests; dests &= dests - 1) {
			int to = game_lowest(dests);
			uint64_t pl = placements(to, free & ~BIT(to));

			if (depth == 2 && kind == DEST_SLIDE) {
				n += count_slide_children(x, t, to, pl);
				continue;
			}
			if (depth == 2) {
				for (; pl; pl &= pl - 1)
					n += count_moves_after(x, t, to, game_lowest(pl));
				continue;
			}
			for (; pl; pl &= pl - 1) {
				struct oxono child = *x;

				apply(&child, t, to, game_lowest(pl));
				if (child.end != GAME_END_NONE)
					continue;
				n += perft(&child, depth - 1);
			}
		}
	}
	return n;
}

uint64_t
oxono_perft(const struct oxono *x, int depth)
{
	if (depth <= 0)
		return 1;
	if (x->end != GAME_END_NONE)
		return 0;
	return perft(x, depth);
}

/*
 * Evaluation (see eval.h and the class's hooks). A game is won by the first line of four, so the
 * evaluation is about lines. A "threat" is an empty square that would complete four of a colour
 * or of a symbol. First the leaf checks, exactly, whether the side to move can place a winning
 * pawn this turn (some totem of a symbol it still holds can reach a square next to a winning
 * square, or the placement falls back to any empty square); if so the position is a proved win.
 * Otherwise it counts colour threats (own ones are good, the opponent's bad) and open windows of
 * four that hold two or more pawns of a colour and nothing of the other. The totem rule is re-read
 * here so that a leaf costs one pass instead of generating and applying moves.
 */
#define ROW_ABC  (FILE_A * 7) /* files a..c: where a row window of four can start */
#define LOW3ROWS 0x3ffffULL   /* ranks 1..3: where a column window of four can start */

/* Weights: a colour threat square, an open window holding two or three pawns. */
#define OX_THREAT 48
#define OX_TWO    4
#define OX_THREE  10

/* Compiled with and without POPCNT, as perft is (not with clang: see hokito.c). */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute) && !defined(__clang__)
#if __has_attribute(target_clones)
#define EVAL_CLONES __attribute__((target_clones("popcnt", "default")))
#endif
#endif
#ifndef EVAL_CLONES
#define EVAL_CLONES
#endif

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
			int to = game_lowest(dests);
			uint64_t f = free & ~BIT(to);
			uint64_t near = ox_neighbours(BIT(to)) & f;
			if ((near ? near : f) & win)
				return 1;
		}
	}
	return 0;
}

/* An OXONO win at ply p scores EVAL_WIN + EVAL_UNIT * (OX_WIN_PLY - p): sooner is better. */
#define OX_WIN_PLY OXONO_WIN_PLY

static int
ox_final(const struct oxono *x)
{
	int ply = game_popcount(x->colour[0] | x->colour[1]);
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
			n = game_popcount(w[k] & b);
			sum += n == 2 ? OX_TWO : n == 3 ? OX_THREE : 0;
		}
	}
	return sum;
}

EVAL_CLONES static int
ox_eval_leaf(const void *st, int *exact)
{
	const struct oxono *x = st;
	int me = x->side, op = me ^ 1;
	uint64_t nonpawn = ~(x->colour[0] | x->colour[1]) & BOARD;
	int v;

	if (x->end != GAME_END_NONE) {
		*exact = 1;
		return ox_final(x);
	}
	if (ox_win_now(x)) {
		*exact = 1;
		return EVAL_WIN + EVAL_UNIT * (OX_WIN_PLY - (game_popcount(~nonpawn & BOARD) + 1));
	}
	*exact = 0;
	v = OX_THREAT * (game_popcount(ox_completions(x->colour[me], nonpawn)) -
	                 game_popcount(ox_completions(x->colour[op], nonpawn)));
	v += ox_windows(x->colour[me], nonpawn) - ox_windows(x->colour[op], nonpawn);
	return v;
}

static int
ox_eval_final(const void *st)
{
	return ox_final(st);
}

EVAL_CLONES static void
ox_order_init(struct eval_order *o, const void *st)
{
	const struct oxono *x = st;
	uint64_t nonpawn, mine;
	int me;

	me = x->side;
	nonpawn = ~(x->colour[0] | x->colour[1]) & BOARD;
	mine = ox_completions(x->colour[me], nonpawn);
	o->winsym[0] = mine | ox_completions(x->symbol[0], nonpawn);
	o->winsym[1] = mine | ox_completions(x->symbol[1], nonpawn);
	o->win = o->winsym[0] | o->winsym[1];
	o->block = ox_completions(x->colour[me ^ 1], nonpawn) | o->win;
}

EVAL_CLONES static int
ox_move_score(const struct eval_order *o, const void *st, struct game_move m)
{
	const struct oxono *x = st;

	if (o->winsym[m.from & 1] & BIT(m.place))
		return 1000;
	if (o->block & BIT(m.place))
		return 100;
	return game_popcount(ox_neighbours(BIT(m.place)) & x->colour[x->side]);
}

/* The Zobrist key: each pawn's colour and symbol and each totem's square (the reserves follow
 * from the board), the side to move, and the kind's own key. */
static uint64_t
ox_hash(const void *st, const uint64_t keys[GAME_KEYS])
{
	const struct oxono *x = st;
	uint64_t key = keys[GAME_KEY_KIND] ^ (x->side ? keys[GAME_KEY_SIDE] : 0);

	key ^= keys[GAME_KEYS_TOTEM + x->totem[0]] ^ keys[GAME_KEYS_TOTEM + 36 + x->totem[1]];
	for (uint64_t b = x->colour[0] | x->colour[1]; b; b &= b - 1) {
		int sq = game_lowest(b);
		int k = (int)((x->colour[1] >> sq) & 1) * 2 + (int)((x->symbol[1] >> sq) & 1);
		key ^= keys[GAME_KEYS_OXONO + sq * 4 + k];
	}
	return key;
}

/* The class's hooks over the typed functions above. */
static void
ox_start(void *st, int variant, uint64_t seed)
{
	(void)variant;
	oxono_start(st, seed);
}

static int
ox_parse(void *st, const char *text, struct game_error *err)
{
	return oxono_parse(st, text, err);
}

static int
ox_format(const void *st, char *buf, size_t size)
{
	return oxono_format(st, buf, size);
}

static int
ox_cell_format(const void *st, int sq, char *buf, size_t size)
{
	return oxono_cell_format(st, sq, buf, size);
}

static int
ox_side(const void *st)
{
	return ((const struct oxono *)st)->side;
}

static int
ox_ply(const void *st)
{
	return oxono_ply(st);
}

static int
ox_moves(const void *st, struct game_move *moves)
{
	return oxono_moves(st, moves);
}

static int
ox_move_parse(const void *st, const char *text, struct game_move *m, struct game_error *err)
{
	return oxono_move_parse(st, text, m, err);
}

static void
ox_apply(void *st, struct game_move m)
{
	oxono_apply(st, m);
}

static void
ox_outcome(const void *st, struct game_outcome *o)
{
	oxono_outcome(st, o);
}

static int
ox_over(const void *st)
{
	return ((const struct oxono *)st)->end != GAME_END_NONE;
}

static uint64_t
ox_perft(const void *st, int depth)
{
	return oxono_perft(st, depth);
}

static int
ox_reserve(const void *st, int side, int symbol)
{
	return ((const struct oxono *)st)->reserve[side][symbol];
}

/* A won game's lines: only the last placement can have made one, so they all go through it. */
static uint64_t
ox_line(const void *st)
{
	const struct oxono *x = st;

	if (x->end != GAME_END_LINE)
		return 0;
	return line_squares(x->colour[0]) | line_squares(x->colour[1]) |
	       line_squares(x->symbol[0]) | line_squares(x->symbol[1]);
}

static const char *const ox_variants[] = {"standard", NULL};
static const char *const ox_ends[] = {"line", "full", NULL};

const struct game_class oxono_class = {
        .kind = GAME_OXONO,
        .name = "oxono",
        .title = "OXONO",
        .a_title = "an OXONO",
        .side = {"pink", "black"},
        .side_header = {"Pink", "Black"},
        .variants = ox_variants,
        .variant_text = "standard",
        .ends = ox_ends,
        .facts = GAME_HAS_RESERVES | GAME_WIN_STOPS,
        .history_stride = 36,
        /* Tuned by matches between adjacent levels (tests/bench/LEVELS.md). */
        .levels =
                {
                        {1, 0, 400},   /* 1: one ply, judgement blurred by large noise */
                        {1, 0, 8},     /* 2: one ply */
                        {2, 0, 8},     /* 3: two plies */
                        {3, 0, 4},     /* 4: three plies */
                        {4, 0, 0},     /* 5: four plies */
                        {0, 25000, 0}, /* 6 to 8: node budgets, ten times apart */
                        {0, 250000, 0},
                        {0, 2500000, 0},
                },
        .state_size = sizeof(struct oxono),
        .start = ox_start,
        .parse = ox_parse,
        .format = ox_format,
        .cell_format = ox_cell_format,
        .side_to_move = ox_side,
        .ply = ox_ply,
        .moves = ox_moves,
        .move_parse = ox_move_parse,
        .move_format = oxono_move_format,
        .apply = ox_apply,
        .outcome = ox_outcome,
        .over = ox_over,
        .perft = ox_perft,
        .reserve = ox_reserve,
        .line = ox_line,
        .eval_final = ox_eval_final,
        .eval_leaf = ox_eval_leaf,
        .order_init = ox_order_init,
        .move_score = ox_move_score,
        .hash = ox_hash,
};
