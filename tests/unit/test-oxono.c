/*
 * test-oxono.c: the OXONO rules, one test per rule, perft tables, text round trips, bad text.
 *
 * Positions are written in the position text of common/FORMATS.md (rank 6 first). Square sets
 * are compared as text ("c1 a3 f3", ascending square order: a1, b1, ..., f1, a2, ...) so a
 * failure shows both sets readably. The perft numbers were cross-checked against the
 * independent Python reference (tests/ref/rules_ref.py).
 */
#include "game.h"
#include "oxono.h"
#include "rng.h"
#include "test.h"

#define BOARD 0xfffffffffULL

/* The start position of seed 1: totem X on d4, O on c3. */
#define START1 "-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p"

/* The names of the squares of b, ascending, separated by spaces; "" for none. */
static const char *
squares(uint64_t b, char *buf)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int sq = 0; sq < 36; sq++) {
		if (b & (1ULL << sq)) {
			if (n > 0)
				buf[n++] = ' ';
			game_square_name(sq, buf + n);
			n += 2;
		}
	}
	return buf;
}

/* Destinations of totem t in the move list. */
static uint64_t
dests_of(const struct oxono *x, int t)
{
	struct game_move moves[GAME_MOVES_MAX];
	int n = oxono_moves(x, moves);
	uint64_t b = 0;

	for (int i = 0; i < n; i++)
		if (moves[i].from == t)
			b |= 1ULL << moves[i].to;
	return b;
}

/* Placements of the moves of totem t to square to. */
static uint64_t
places_of(const struct oxono *x, int t, int to)
{
	struct game_move moves[GAME_MOVES_MAX];
	int n = oxono_moves(x, moves);
	uint64_t b = 0;

	for (int i = 0; i < n; i++)
		if (moves[i].from == t && moves[i].to == to)
			b |= 1ULL << moves[i].place;
	return b;
}

/* The number of moves of x. */
static int
count_moves(const struct oxono *x)
{
	struct game_move moves[GAME_MOVES_MAX];

	return oxono_moves(x, moves);
}

/* Empty squares of x. */
static uint64_t
empties(const struct oxono *x)
{
	return ~(x->colour[0] | x->colour[1] | 1ULL << x->totem[0] | 1ULL << x->totem[1]) & BOARD;
}

#define PARSE(x, postext)                                                                          \
	do {                                                                                       \
		struct game_error e_;                                                              \
		if (oxono_parse((x), (postext), &e_) != 0)                                         \
			FAIL_AT_("cannot parse \"%s\": %s (at %d)", (postext), e_.text, e_.pos);   \
	} while (0)

#define PLAY(x, movetext)                                                                          \
	do {                                                                                       \
		struct game_move m_;                                                               \
		struct game_error e_;                                                              \
		int rc_ = oxono_move_parse((x), (movetext), &m_, &e_);                             \
		if (rc_ != 0)                                                                      \
			FAIL_AT_("move %s refused (%d): %s", (movetext), rc_, e_.text);            \
		oxono_apply((x), m_);                                                              \
	} while (0)

#define ASSERT_SQUARES(b, want)                                                                    \
	do {                                                                                       \
		char buf_[160];                                                                    \
		ASSERT_STR_EQ(squares((b), buf_), (want));                                         \
	} while (0)

/* The move is refused with this code, and the reason contains this text. */
#define ASSERT_MOVE_ERR(x, movetext, rc, reason)                                                   \
	do {                                                                                       \
		struct game_move m_;                                                               \
		struct game_error e_ = {0, 0, ""};                                                 \
		ASSERT_EQ(oxono_move_parse((x), (movetext), &m_, &e_), (rc));                      \
		ASSERT_EQ(e_.code, (rc));                                                          \
		if (strstr(e_.text, (reason)) == NULL)                                             \
			FAIL_AT_("move %s: reason \"%s\" lacks \"%s\"", (movetext), e_.text,       \
			         (reason));                                                        \
	} while (0)

TEST(oxono_start_seeded)
{
	struct oxono a, b;
	char text[GAME_TEXT_MAX];
	int on_c3 = 0, on_d4 = 0;

	oxono_start(&a, 1);
	ASSERT_EQ(oxono_format(&a, text, sizeof text), (int)strlen(START1));
	ASSERT_STR_EQ(text, START1);
	oxono_start(&a, 2);
	oxono_format(&a, text, sizeof text);
	ASSERT_STR_EQ(text, "-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,O,-,-/-,-,X,-,-,-/-,-,-,-,-,-/"
	                    "-,-,-,-,-,- p");
	for (uint64_t seed = 0; seed < 64; seed++) {
		struct rng r;

		oxono_start(&a, seed);
		oxono_start(&b, seed);
		ASSERT_EQ(a.totem[0], b.totem[0]);
		ASSERT_EQ(a.totem[0] + a.totem[1], 14 + 21); /* c3 and d4 */
		/* The documented procedure: X is on c3 when the first draw is even. */
		rng_init(&r, seed);
		ASSERT_EQ(a.totem[0], (rng_next(&r) & 1) == 0 ? 14 : 21);
		on_c3 += a.totem[0] == 14;
		on_d4 += a.totem[0] == 21;
		ASSERT_EQ(a.side, 0);
		ASSERT_EQ(a.end, GAME_END_NONE);
		ASSERT_EQ(oxono_ply(&a), 0);
		for (int c = 0; c < 2; c++)
			for (int s = 0; s < 2; s++)
				ASSERT_EQ(a.reserve[c][s], 8);
	}
	ASSERT(on_c3 > 0);
	ASSERT(on_d4 > 0);
}

TEST(oxono_slide_blocked_by_pawn)
{
	struct oxono x;

	PARSE(&x, "-,-,-,-,-,-/-,-,px,-,-,-/-,-,-,-,-,-/-,-,X,-,bo,-/-,-,-,-,-,-/O,-,-,-,-,- p");
	ASSERT_SQUARES(dests_of(&x, 0), "c1 c2 a3 b3 d3 c4");
	ASSERT_MOVE_ERR(&x, "Xc6+b6", GAME_EILLEGAL, "totem X cannot reach c6: c5 is occupied");
	ASSERT_MOVE_ERR(&x, "Xf3+f4", GAME_EILLEGAL, "totem X cannot reach f3: e3 is occupied");
	ASSERT_MOVE_ERR(&x, "Xe3+e2", GAME_EILLEGAL, "totem X cannot go to e3: e3 is occupied");
}

TEST(oxono_slide_blocked_by_totem)
{
	struct oxono x;

	PARSE(&x, "-,-,-,-,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,X,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p");
	ASSERT_SQUARES(dests_of(&x, 0), "c1 c2 a3 b3 d3 e3 f3 c4");
	ASSERT_SQUARES(dests_of(&x, 1), "c4 a5 b5 d5 e5 f5 c6");
	ASSERT_MOVE_ERR(&x, "Xc6+b6", GAME_EILLEGAL, "totem X cannot reach c6: c5 is occupied");
	ASSERT_MOVE_ERR(&x, "Oc2+b2", GAME_EILLEGAL, "totem O cannot reach c2: c3 is occupied");
	ASSERT_MOVE_ERR(&x, "Oc3+b3", GAME_EILLEGAL, "totem O cannot go to c3: c3 is occupied");
}

TEST(oxono_enclosed_jump)
{
	struct oxono x;

	/* X on c3 hemmed in by b3, d3, c2, c4: west over b3, east over d3 e3, north over c4 and
	 * totem O; south the run c2 c1 reaches the edge. */
	PARSE(&x,
	      "-,-,-,-,-,-/-,-,O,-,-,-/-,-,px,-,-,-/-,bo,X,po,bx,-/-,-,bx,-,-,-/-,-,po,-,-,- p");
	ASSERT_SQUARES(dests_of(&x, 0), "a3 f3 c6");
	ASSERT_SQUARES(places_of(&x, 0, 12), "a2 a4");
	ASSERT_SQUARES(places_of(&x, 0, 17), "f2 f4");
	ASSERT_SQUARES(places_of(&x, 0, 32), "b6 d6");
	ASSERT_SQUARES(dests_of(&x, 1), "a5 b5 d5 e5 f5 c6");
	ASSERT_MOVE_ERR(&x, "Xa4+a5", GAME_EILLEGAL,
	                "totem X on c3 is enclosed and must jump over its neighbours, to a3, f3 or "
	                "c6");
	PLAY(&x, "Xc6+d6");
	ASSERT_EQ(x.totem[0], 32);
}

/*
 * A jump "in any direction" is any of the four orthogonal directions, as a totem moves (FORMATS.md;
 * the publisher's rule says "jumping orthogonally"): a diagonal run with an empty square beyond it
 * gives no jump. X on c3: west, east and south runs reach the edge; north c4 then c5. The diagonal
 * runs b4, d4, b2, d2 have a5, e5, a1, e1 beyond them.
 */
TEST(oxono_enclosed_jump_is_orthogonal)
{
	struct oxono x;

	PARSE(&x, "-,-,-,-,-,O/-,-,-,-,-,-/-,bx,po,px,-,-/bo,px,X,bx,po,px/-,bx,bo,po,-,-/"
	          "-,-,px,-,-,- p");
	ASSERT_SQUARES(dests_of(&x, 0), "c5");
	ASSERT_MOVE_ERR(&x, "Xa5+a6", GAME_EILLEGAL, "must jump over its neighbours, to c5");
}

TEST(oxono_enclosed_corner_and_edge)
{
	struct oxono x;

	/* Corner a1: its only neighbours a2 and b1 are occupied. */
	PARSE(&x, "-,-,-,-,-,O/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/bx,-,-,-,-,-/X,po,-,-,-,- p");
	ASSERT_SQUARES(dests_of(&x, 0), "c1 a3");
	/* Edge b1: west the run a1 reaches the edge, so only east and north give a square. */
	PARSE(&x, "-,-,-,-,-,O/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,po,-,-,-,-/px,X,bo,-,-,- p");
	ASSERT_SQUARES(dests_of(&x, 0), "d1 b3");
	ASSERT_MOVE_ERR(&x, "Xa2+a3", GAME_EILLEGAL, "to d1 or b3");
}

TEST(oxono_enclosed_no_jump_goes_anywhere)
{
	struct oxono x;

	/* X on a1: its whole row and column are full, so no direction gives a square. */
	PARSE(&x, "bo,-,-,-,-,-/px,-,-,-,-,-/bo,-,-,O,-,-/po,-,-,-,-,-/bx,-,-,-,-,-/"
	          "X,px,bo,po,bx,px p");
	ASSERT_EQ(__builtin_popcountll(empties(&x)), 24);
	ASSERT_SQUARES(dests_of(&x, 0),
	               "b2 c2 d2 e2 f2 b3 c3 d3 e3 f3 b4 c4 e4 f4 b5 c5 d5 e5 f5 b6 c6 d6 e6 f6");
	ASSERT_SQUARES(places_of(&x, 0, 35), "f5 e6");
	ASSERT_SQUARES(places_of(&x, 0, 7), "c2 b3");
	ASSERT_MOVE_ERR(&x, "Xb1+b2", GAME_EILLEGAL,
	                "enclosed with no jump, so it may go to any empty square, but b1 is "
	                "occupied");
	PLAY(&x, "Xf6+e6");
	ASSERT_EQ(x.totem[0], 35);
}

TEST(oxono_place_next_to_totem)
{
	struct oxono x;

	oxono_start(&x, 1);
	/* X d4 -> d3: d4 (just left) is free again and next to it; c3 holds totem O. */
	ASSERT_SQUARES(places_of(&x, 0, 15), "d2 e3 d4");
	ASSERT_SQUARES(places_of(&x, 0, 3), "c1 e1 d2");
	ASSERT_EQ(oxono_perft(&x, 1), 68);
	ASSERT_MOVE_ERR(&x, "Xd3+f6", GAME_EILLEGAL,
	                "f6 is not next to the totem while d2 is free");
	ASSERT_MOVE_ERR(&x, "Xd3+c3", GAME_EILLEGAL, "c3 is occupied");
	ASSERT_MOVE_ERR(&x, "Xd3+d3", GAME_EILLEGAL, "d3 is occupied: totem X now stands there");
	PLAY(&x, "Xd3+d4");
	ASSERT_EQ(x.side, 1);
	ASSERT_EQ(x.reserve[0][0], 7);
	ASSERT_EQ(oxono_ply(&x), 1);
	ASSERT_MOVE_ERR(&x, "Oc4+f6", GAME_EILLEGAL,
	                "f6 is not next to the totem while c3 is free");
	ASSERT_MOVE_ERR(&x, "Oc4+d4", GAME_EILLEGAL, "d4 is occupied");
}

TEST(oxono_place_anywhere)
{
	struct oxono x;

	/* X jumps from a1 over a2 to a3, whose neighbours a2, a4 and b3 are all occupied. */
	PARSE(&x, "-,-,-,-,-,-/-,-,-,-,-,O/px,-,-,-,-,-/-,bo,-,-,-,-/bx,-,-,-,-,-/X,po,po,-,-,- b");
	ASSERT_SQUARES(dests_of(&x, 0), "d1 a3");
	ASSERT_U64_EQ(places_of(&x, 0, 12), (empties(&x) | 1ULL) & ~(1ULL << 12));
	ASSERT_EQ(__builtin_popcountll(places_of(&x, 0, 12)), 29);
	ASSERT_SQUARES(places_of(&x, 0, 3), "e1 d2");
	ASSERT_MOVE_ERR(&x, "Xd1+f6", GAME_EILLEGAL,
	                "f6 is not next to the totem while e1 is free");
	ASSERT_MOVE_ERR(&x, "Xa3+c1", GAME_EILLEGAL, "c1 is occupied");
	PLAY(&x, "Xa3+a1");
	PARSE(&x, "-,-,-,-,-,-/-,-,-,-,-,O/px,-,-,-,-,-/-,bo,-,-,-,-/bx,-,-,-,-,-/X,po,po,-,-,- b");
	PLAY(&x, "Xa3+f6");
	ASSERT_EQ(x.end, GAME_END_NONE);
}

TEST(oxono_line_of_colour)
{
	struct oxono x, y;
	struct game_outcome o;

	PARSE(&x,
	      "bx,bo,-,-,-,O/-,-,bo,-,-,-/-,-,-,X,-,-/-,-,-,-,-,-/-,-,-,-,-,-/px,po,px,-,-,- p");
	ASSERT_EQ(x.end, GAME_END_NONE);
	y = x;
	PLAY(&y, "Xd2+e2");
	ASSERT_EQ(y.end, GAME_END_NONE);
	PLAY(&x, "Xd2+d1"); /* a1 b1 c1 d1: pink, symbols x o x x */
	ASSERT_EQ(x.end, GAME_END_LINE);
	oxono_outcome(&x, &o);
	ASSERT_EQ(o.end, GAME_END_LINE);
	ASSERT_EQ(o.winner, 0);
}

TEST(oxono_line_of_symbol)
{
	struct oxono x;
	struct game_outcome o;

	/* Column e: px bx px, and Black adds bx on e4: four X of mixed colours. */
	PARSE(&x, "po,-,-,-,-,O/bo,-,-,-,-,-/-,-,-,X,-,-/-,-,-,-,px,-/-,-,-,-,bx,-/-,-,-,-,px,- b");
	PLAY(&x, "Xf4+e4");
	oxono_outcome(&x, &o);
	ASSERT_EQ(o.end, GAME_END_LINE);
	ASSERT_EQ(o.winner, 1);
}

TEST(oxono_line_of_five)
{
	struct oxono x;
	struct game_outcome o;

	/* Row 2: bo bo - bo bo; Black fills c2 and makes five. */
	PARSE(&x, "px,po,-,px,po,-/-,-,-,-,-,px/-,-,O,-,-,-/-,-,-,-,-,X/bo,bo,-,bo,bo,-/"
	          "-,-,-,-,-,- b");
	ASSERT_EQ(x.end, GAME_END_NONE);
	PLAY(&x, "Oc3+c2");
	oxono_outcome(&x, &o);
	ASSERT_EQ(o.end, GAME_END_LINE);
	ASSERT_EQ(o.winner, 1);
}

TEST(oxono_totems_break_lines)
{
	struct oxono x, y;

	PARSE(&x,
	      "bo,bx,bo,-,-,O/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,-,-,-,-/px,px,px,-,-,- p");
	y = x;
	PLAY(&x, "Xd1+e1"); /* px px px X px: the totem splits the row */
	ASSERT_EQ(x.end, GAME_END_NONE);
	ASSERT_EQ(x.winner, -1);
	PLAY(&y, "Xd2+d1");
	ASSERT_EQ(y.end, GAME_END_LINE);
	/* Totem O inside a run of Black O pawns in a parsed position: no line either. */
	PARSE(&x, "bo,bo,O,bo,bo,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,-,-,-,-/-,-,-,-,-,- p");
	ASSERT_EQ(x.end, GAME_END_NONE);
}

TEST(oxono_draw_when_full)
{
	struct oxono x;
	struct game_outcome o;
	char text[GAME_TEXT_MAX];

	/* 31 pawns placed, no line: Black's last pawn fills the board. X on d1 is enclosed with
	 * no jump, and on a2 every neighbour is taken, so both fallbacks apply. */
	PARSE(&x, "bo,bo,po,bx,po,-/px,bo,po,px,bx,bo/bx,po,px,bo,po,po/po,-,bo,px,bx,px/"
	          "-,bx,po,px,bo,bx/O,px,px,X,bx,bo b");
	ASSERT_EQ(x.end, GAME_END_NONE);
	ASSERT_EQ(oxono_ply(&x), 31);
	ASSERT_SQUARES(dests_of(&x, 0), "a2 b3 f6");
	ASSERT_SQUARES(places_of(&x, 0, 6), "d1 b3 f6");
	PLAY(&x, "Xa2+b3");
	oxono_outcome(&x, &o);
	ASSERT_EQ(o.end, GAME_END_FULL);
	ASSERT_EQ(o.winner, -1);
	ASSERT_EQ(oxono_ply(&x), 32);
	ASSERT_EQ(count_moves(&x), 0);
	oxono_format(&x, text, sizeof text);
	PARSE(&x, text);
	ASSERT_EQ(x.end, GAME_END_FULL);
	ASSERT_EQ(x.winner, -1);
	/* Hand-made: the side to move has no pawn left (Pink placed all 16): a finished draw. */
	PARSE(&x, "bo,bo,po,bx,po,-/px,bo,po,px,bx,bo/bx,po,px,bo,po,po/po,-,bo,px,bx,px/"
	          "-,bx,po,px,bo,bx/O,px,px,X,bx,bo p");
	ASSERT_EQ(x.end, GAME_END_FULL);
	ASSERT_EQ(count_moves(&x), 0);
}

TEST(oxono_empty_reserve_symbol)
{
	struct oxono x;
	struct game_move moves[GAME_MOVES_MAX];
	int n;

	/* Pink has placed all eight X pawns: only totem O may move. */
	PARSE(&x, "bx,-,bo,-,bx,-/px,-,px,-,-,-/-,bo,-,bx,O,-/-,px,X,px,-,px/-,bo,-,bx,-,bo/"
	          "px,-,px,-,px,- p");
	ASSERT_EQ(x.reserve[0][0], 0);
	ASSERT_EQ(x.end, GAME_END_NONE);
	n = oxono_moves(&x, moves);
	ASSERT(n > 0);
	for (int i = 0; i < n; i++)
		ASSERT_EQ(moves[i].from, 1);
	ASSERT_MOVE_ERR(&x, "Xc2+b1", GAME_EILLEGAL, "no X pawns left in Pink's reserve");
	PLAY(&x, "Oe5+d5");
	ASSERT_EQ(dests_of(&x, 0) != 0, 1); /* Black still has X pawns */
}

TEST(oxono_game_over_stops_moves)
{
	struct oxono x;
	struct game g;
	struct game_outcome o;

	PARSE(&x,
	      "bx,bo,-,-,-,O/-,-,bo,-,-,-/-,-,-,X,-,-/-,-,-,-,-,-/-,-,-,-,-,-/px,po,px,-,-,- p");
	PLAY(&x, "Xd2+d1");
	ASSERT_EQ(count_moves(&x), 0);
	ASSERT_U64_EQ(oxono_perft(&x, 1), 0);
	ASSERT_U64_EQ(oxono_perft(&x, 3), 0);
	ASSERT_U64_EQ(oxono_perft(&x, 0), 1);
	ASSERT_MOVE_ERR(&x, "Oc4+c3", GAME_EOVER, "the game is over: Pink won");
	/* A parsed position holding a line was won by the side not to move. */
	ASSERT_EQ(game_parse(&g, GAME_OXONO,
	                     "-,-,-,-,-,O/-,-,-,-,-,-/-,-,-,X,-,-/-,-,-,-,-,-/-,-,-,-,-,-/"
	                     "px,po,px,px,-,- b",
	                     NULL),
	          0);
	ASSERT(game_over(&g));
	game_outcome(&g, &o);
	ASSERT_EQ(o.end, GAME_END_LINE);
	ASSERT_EQ(o.winner, 0);
	ASSERT_U64_EQ(game_line(&g), 0xf); /* a1 b1 c1 d1, Pink's */
	/* A placement that makes two lines at once: a run of five X and a column of Pink's. */
	ASSERT_EQ(
	        game_parse(&g, GAME_OXONO,
	                   "-,bx,px,bx,px,px/-,-,-,-,-,px/O,-,-,-,-,px/-,-,-,-,-,px/-,bo,-,bo,-,-/"
	                   "X,-,bo,-,-,- b",
	                   NULL),
	        0);
	ASSERT(game_over(&g));
	ASSERT_U64_EQ(game_line(&g), 0x1fULL << 31 | 1ULL << 29 | 1ULL << 23 | 1ULL << 17);
	ASSERT_EQ(game_parse(&g, GAME_OXONO,
	                     "-,-,-,-,-,O/-,-,-,-,-,-/-,-,-,X,-,-/-,-,-,-,-,-/-,-,-,-,-,-/"
	                     "px,po,px,-,-,- b",
	                     NULL),
	          0);
	ASSERT_U64_EQ(game_line(&g), 0); /* no line: the game goes on */
	PARSE(&x, "-,-,-,-,-,O/bo,-,-,-,-,-/bx,-,-,X,-,-/bx,-,-,-,-,-/bo,-,-,-,-,-/-,-,-,-,-,- p");
	ASSERT_EQ(x.end, GAME_END_LINE);
	ASSERT_EQ(x.winner, 1);
	ASSERT_MOVE_ERR(&x, "Xd3+d4", GAME_EOVER, "Black won");
	/* Syntax comes first, even when the game is over. */
	ASSERT_MOVE_ERR(&x, "Xd3-d4", GAME_ESYNTAX, "'+'");
}

/* One bad position text: the error's position and a part of its sentence. */
struct bad_text {
	const char *text;
	int pos;
	const char *reason;
};

TEST(oxono_parse_errors)
{
	static const struct bad_text bad[] = {
	        {"", 0, "ends early"},
	        {"-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p", 9,
	         "rank 6 has only 5 cells"},
	        {"-,-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p", 11,
	         "rank 6 has more than 6 cells"},
	        {"-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p", 59,
	         "only 5 ranks"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/"
	         "-,-,-,-,-,- p",
	         71, "more than 6 ranks"},
	        {"pz,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p", 0,
	         "unknown cell 'pz' at a6"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,x,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p", 30,
	         "unknown cell 'x' at d4"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,pxx p", 70,
	         "unknown cell 'pxx' at f1"},
	        /* A long cell or side is quoted in part, and says so. */
	        {"pxpxpxpxpx,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- "
	         "p",
	         0, "unknown cell 'pxpxpxpx...' at a6"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- "
	         "pinkpink!",
	         72, "unknown side to move 'pinkpink...'"},
	        {"-,,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p", 2,
	         "empty cell at b6"},
	        {"-, -,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p", 2,
	         "unexpected space at b6"},
	        /* A space is named as such wherever more board follows it. */
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,px ,-,-,-,- p", 64,
	         "unexpected space at b1"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,p x,-,-,-,- p", 63,
	         "unexpected space at b1"},
	        {"-,-,-,-,-,- /-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p", 11,
	         "unexpected space at f6"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p", 72,
	         "no totem O"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,O,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p", 40,
	         "a second totem O at c3 (the first is at d4)"},
	        {"px,px,px,-,px,px/px,-,px,-,px,-/-,-,-,X,-,-/-,-,O,-,-,-/px,-,-,-,-,-/-,-,-,-,-,- "
	         "b",
	         56, "more than 8 Pink X pawns on the board (the extra one at a2)"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- w", 72,
	         "unknown side to move 'w'"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- pink", 72,
	         "unknown side to move 'pink'"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- ", 72,
	         "the side to move is missing"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-", 71,
	         "the side to move is missing"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-  p", 72,
	         "more than one space"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p x", 73,
	         "unexpected text after the side to move"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/-,-,O,-,-", 45, "ends early"},
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct oxono x;
		struct game_error err = {0, -1, ""};

		if (oxono_parse(&x, bad[i].text, &err) != GAME_ESYNTAX)
			FAIL_AT_("case %zu accepted: \"%s\"", i, bad[i].text);
		ASSERT_EQ(err.code, GAME_ESYNTAX);
		if (err.pos != bad[i].pos || strstr(err.text, bad[i].reason) == NULL)
			FAIL_AT_("case %zu: got \"%s\" at %d, expected \"%s\" at %d", i, err.text,
			         err.pos, bad[i].reason, bad[i].pos);
	}
}

TEST(oxono_move_parse_errors)
{
	static const struct bad_text bad[] = {
	        {"", 0, "a move starts with the totem"},
	        {"Zc5+c6", 0, "a move starts with the totem"},
	        {"xd3+d2", 0, "a move starts with the totem"},
	        {"X", 1, "destination square"},
	        {"Xg5+c6", 1, "destination square"},
	        {"Xd3", 3, "'+'"},
	        {"Xd3-d2", 3, "'+'"},
	        {"Xd3+", 4, "pawn's square"},
	        {"Xd3+d7", 4, "pawn's square"},
	        {"Xd3+d2 ", 6, "unexpected text after the move"},
	        {"Xd3+d2+", 6, "unexpected text after the move"},
	};
	struct oxono x;
	struct game_move m;

	oxono_start(&x, 1);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct game_error err = {0, -1, ""};

		if (oxono_move_parse(&x, bad[i].text, &m, &err) != GAME_ESYNTAX)
			FAIL_AT_("case %zu accepted: \"%s\"", i, bad[i].text);
		if (err.pos != bad[i].pos || strstr(err.text, bad[i].reason) == NULL)
			FAIL_AT_("case %zu: got \"%s\" at %d, expected \"%s\" at %d", i, err.text,
			         err.pos, bad[i].reason, bad[i].pos);
	}
	ASSERT_MOVE_ERR(&x, "Xd4+d5", GAME_EILLEGAL, "totem X is already on d4: it must move");
	ASSERT_MOVE_ERR(&x, "Xe5+e6", GAME_EILLEGAL,
	                "totem X on d4 moves along its row or column, and e5 is on neither");
	ASSERT_EQ(oxono_move_parse(&x, "Xd3+d2", &m, NULL), 0);
	ASSERT_EQ(m.from, 0);
	ASSERT_EQ(m.to, 15);
	ASSERT_EQ(m.place, 9);
}

TEST(oxono_text_round_trips)
{
	static const char *const texts[] = {
	        START1,
	        "-,po,O,po,-,-/bo,po,-,bo,-,-/-,bx,-,px,-,-/px,-,po,-,bx,-/X,px,bx,px,-,-/"
	        "bx,bx,bx,-,-,- p",
	        "bo,bo,po,bx,po,-/px,bo,po,px,bx,bo/bx,po,px,bo,po,po/po,-,bo,px,bx,px/"
	        "-,bx,po,px,bo,bx/O,px,px,X,bx,bo b",
	        "-,-,-,-,-,O/-,-,-,-,-,-/-,-,-,X,-,-/-,-,-,-,-,-/-,-,-,-,-,-/px,po,px,px,-,- b",
	};
	struct oxono x, y;
	struct game_move moves[GAME_MOVES_MAX], m;
	char text[GAME_TEXT_MAX], again[GAME_TEXT_MAX], cell[4];
	struct rng r;

	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		PARSE(&x, texts[i]);
		ASSERT_EQ(oxono_format(&x, text, sizeof text), (int)strlen(texts[i]));
		ASSERT_STR_EQ(text, texts[i]);
	}
	ASSERT_EQ(oxono_format(&x, text, strlen(texts[3])), GAME_ENOSPC);
	ASSERT_EQ(oxono_format(&x, text, strlen(texts[3]) + 1), (int)strlen(texts[3]));
	ASSERT_EQ(oxono_cell_format(&x, 0, cell, sizeof cell), 2);
	ASSERT_STR_EQ(cell, "px");
	ASSERT_EQ(oxono_cell_format(&x, 35, cell, sizeof cell), 1);
	ASSERT_STR_EQ(cell, "O");
	ASSERT_EQ(oxono_cell_format(&x, 4, cell, sizeof cell), 1);
	ASSERT_STR_EQ(cell, "-");
	ASSERT_EQ(oxono_cell_format(&x, 0, cell, 2), GAME_ENOSPC);
	ASSERT_EQ(oxono_move_format((struct game_move){1, 2, 8}, text, sizeof text), 6);
	ASSERT_STR_EQ(text, "Oc1+c2");
	ASSERT_EQ(oxono_move_format((struct game_move){1, 2, 8}, text, 6), GAME_ENOSPC);

	/* Random games: every position and every move survives format and parse. */
	rng_init(&r, 7);
	for (int game = 0; game < 50; game++) {
		oxono_start(&x, (uint64_t)game);
		for (;;) {
			int n = oxono_moves(&x, moves);

			oxono_format(&x, text, sizeof text);
			PARSE(&y, text);
			oxono_format(&y, again, sizeof again);
			ASSERT_STR_EQ(again, text);
			ASSERT_EQ(y.side, x.side);
			ASSERT_EQ(y.end, x.end);
			ASSERT_EQ(y.winner, x.winner);
			ASSERT_EQ(memcmp(y.reserve, x.reserve, sizeof x.reserve), 0);
			ASSERT_EQ(oxono_ply(&y), oxono_ply(&x));
			if (n == 0)
				break;
			m = moves[rng_below(&r, (uint32_t)n)];
			oxono_move_format(m, text, sizeof text);
			ASSERT_EQ(oxono_move_parse(&x, text, &moves[0], NULL), 0);
			ASSERT_EQ(moves[0].from * 10000 + moves[0].to * 100 + moves[0].place,
			          m.from * 10000 + m.to * 100 + m.place);
			oxono_apply(&x, m);
		}
		ASSERT(x.end != GAME_END_NONE);
	}
}

/*
 * Over many positions of random games, every syntactically valid move text is accepted exactly
 * when it is in the move list, which is in ascending (from, to, place) order without repeats.
 */
TEST(oxono_move_parse_matches_moves)
{
	struct oxono x;
	struct game_move moves[GAME_MOVES_MAX], m;
	struct rng r;
	int positions = 0;

	rng_init(&r, 11);
	for (int game = 0; game < 12; game++) {
		oxono_start(&x, (uint64_t)game);
		while (x.end == GAME_END_NONE) {
			int n = oxono_moves(&x, moves), k = 0;

			for (int i = 1; i < n; i++) {
				int a = moves[i - 1].from << 12 | moves[i - 1].to << 6 |
				        moves[i - 1].place;
				int b = moves[i].from << 12 | moves[i].to << 6 | moves[i].place;
				ASSERT(a < b);
			}
			for (int t = 0; t < 2; t++) {
				for (int to = 0; to < 36; to++) {
					for (int pl = 0; pl < 36; pl++) {
						char text[8];
						struct game_error err = {0, -1, ""};
						int rc;

						oxono_move_format((struct game_move){(uint8_t)t,
						                                     (uint8_t)to,
						                                     (uint8_t)pl},
						                  text, sizeof text);
						rc = oxono_move_parse(&x, text, &m, &err);
						if (k < n && moves[k].from == t &&
						    moves[k].to == to && moves[k].place == pl) {
							ASSERT_EQ(rc, 0);
							k++;
						} else {
							ASSERT_EQ(rc, GAME_EILLEGAL);
							ASSERT(err.text[0] != '\0');
						}
					}
				}
			}
			ASSERT_EQ(k, n);
			positions++;
			oxono_apply(&x, moves[rng_below(&r, (uint32_t)n)]);
		}
	}
	ASSERT(positions > 200);
}

/* Perft by listing and applying every move: checks the bulk counting of oxono_perft(). */
static uint64_t
slow_perft(const struct oxono *x, int depth)
{
	struct game_move moves[GAME_MOVES_MAX];
	int n = oxono_moves(x, moves);
	uint64_t total = 0;

	if (depth == 0)
		return 1;
	for (int i = 0; i < n; i++) {
		struct oxono y = *x;

		oxono_apply(&y, moves[i]);
		total += slow_perft(&y, depth - 1);
	}
	return total;
}

/* A perft table: a position and its leaf counts at depths 1, 2, ... */
struct perft_case {
	const char *text;
	int depth;         /* deepest depth listed */
	uint64_t nodes[6]; /* nodes[d - 1]: the leaf count at depth d */
};

TEST(oxono_perft_tables)
{
	static const struct perft_case cases[] = {
	        /* The start position (seed 1). */
	        {START1, 4, {68, 3612, 162680, 6470416}},
	        /* Middle games from random play. */
	        {"-,po,O,po,-,-/bo,po,-,bo,-,-/-,bx,-,px,-,-/px,-,po,-,bx,-/X,px,bx,px,-,-/"
	         "bx,bx,bx,-,-,- p",
	         4,
	         {23, 615, 13324, 403105}},
	        {"-,bx,-,-,-,-/-,-,-,-,-,-/px,po,-,-,-,-/X,-,bx,-,px,-/px,O,-,bo,-,-/-,bo,-,-,-,- "
	         "p",
	         4,
	         {4, 43, 853, 25048}},
	        {"-,-,po,-,bo,-/po,-,po,-,-,-/-,bo,bo,O,bo,-/bx,bx,-,po,-,bo/X,px,px,bx,-,-/"
	         "-,px,-,-,-,po p",
	         5,
	         {5, 31, 663, 13623, 333227}},
	        /* Enclosed totems: jumps, and the anywhere fallbacks. */
	        {"-,-,-,-,-,-/-,-,O,-,-,-/-,-,px,-,-,-/-,bo,X,po,bx,-/-,-,bx,-,-,-/-,-,po,-,-,- p",
	         4,
	         {27, 638, 12809, 233985}},
	        {"bo,-,-,-,-,-/px,-,-,-,-,-/bo,-,-,O,-,-/po,-,-,-,-,-/bx,-,-,-,-,-/"
	         "X,px,bo,po,bx,px p",
	         3,
	         {100, 5160, 186040}},
	        {"-,-,-,-,-,-/-,-,-,-,-,O/px,-,-,-,-,-/-,bo,-,-,-,-/bx,-,-,-,-,-/X,po,po,-,-,- b",
	         3,
	         {62, 3320, 158099}},
	        /* Nearly full boards. */
	        {"-,po,bo,po,-,px/bo,po,-,bo,px,O/-,bx,px,px,-,bx/px,-,po,bo,bx,-/X,px,bx,px,-,-/"
	         "bx,bx,bx,-,bx,px p",
	         5,
	         {11, 139, 1274, 12938, 80934}},
	        {"bo,bx,-,bo,bx,bo/po,bx,-,-,px,px/px,po,bo,bx,-,px/bx,X,bx,px,px,-/"
	         "px,po,po,bo,bx,px/O,bo,po,bx,-,po p",
	         5,
	         {6, 40, 192, 808, 0}},
	        {"bo,bo,po,bx,po,-/px,bo,po,px,bx,bo/bx,po,px,bo,po,po/po,-,bo,px,bx,px/"
	         "-,bx,po,px,bo,bx/O,px,px,X,bx,bo b",
	         2,
	         {9, 0}},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct oxono x;

		PARSE(&x, cases[i].text);
		ASSERT_U64_EQ(oxono_perft(&x, 0), 1);
		for (int d = 1; d <= cases[i].depth; d++) {
			uint64_t got = oxono_perft(&x, d);

			if (got != cases[i].nodes[d - 1])
				FAIL_AT_("case %zu depth %d: %" PRIu64 " != %" PRIu64, i, d, got,
				         cases[i].nodes[d - 1]);
			if (d <= 3 && slow_perft(&x, d) != got)
				FAIL_AT_("case %zu depth %d: slow perft differs", i, d);
		}
	}
}

int
main(void)
{
	RUN(oxono_start_seeded);
	RUN(oxono_slide_blocked_by_pawn);
	RUN(oxono_slide_blocked_by_totem);
	RUN(oxono_enclosed_jump);
	RUN(oxono_enclosed_jump_is_orthogonal);
	RUN(oxono_enclosed_corner_and_edge);
	RUN(oxono_enclosed_no_jump_goes_anywhere);
	RUN(oxono_place_next_to_totem);
	RUN(oxono_place_anywhere);
	RUN(oxono_line_of_colour);
	RUN(oxono_line_of_symbol);
	RUN(oxono_line_of_five);
	RUN(oxono_totems_break_lines);
	RUN(oxono_draw_when_full);
	RUN(oxono_empty_reserve_symbol);
	RUN(oxono_game_over_stops_moves);
	RUN(oxono_parse_errors);
	RUN(oxono_move_parse_errors);
	RUN(oxono_text_round_trips);
	RUN(oxono_move_parse_matches_moves);
	RUN(oxono_perft_tables);
	TEST_END();
}
