/*
 * test-hokito.c: the HOKITO rules, one test per rule, perft tables, text round trips, bad text.
 *
 * Positions are written sparsely ("a1=b1 a4=w1 d1=w1") and turned into position text, so each
 * test shows just the pawns that matter.
 */
#include "game.h"
#include "hokito.h"
#include "test.h"

/* Build a position from "sq=stack ..." and the side letter; aborts the test run on bad input. */
static void
build(struct game *g, const char *spec, char side)
{
	char cells[36][80], text[GAME_TEXT_MAX * 2], item[80];
	struct game_error err;
	const char *p = spec;
	size_t len = 0;

	for (int i = 0; i < 36; i++)
		strcpy(cells[i], "-");
	while (*p != '\0') {
		int n = 0;
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		while (p[n] != '\0' && p[n] != ' ' && n < 79)
			n++;
		memcpy(item, p, (size_t)n);
		item[n] = '\0';
		p += n;
		strcpy(cells[game_square_parse(item)], item + 3);
	}
	for (int rank = 5; rank >= 0; rank--)
		for (int file = 0; file < 6; file++)
			len += (size_t)snprintf(text + len, sizeof text - len, "%s%c",
			                        cells[rank * 6 + file],
			                        file < 5   ? ','
			                        : rank > 0 ? '/'
			                                   : ' ');
	snprintf(text + len, sizeof text - len, "%c", side);
	if (game_parse(g, GAME_HOKITO, text, &err) != 0) {
		printf("Bail out! bad test position '%s': %s\n", text, err.text);
		exit(1);
	}
}

/* The legal moves as one space-separated string, in generation order. */
static const char *
moves_text(const struct game *g)
{
	static char out[4096];
	struct game_move moves[GAME_MOVES_MAX];
	char m[GAME_MOVE_TEXT];
	int n = game_moves(g, moves);
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		game_move_format(GAME_HOKITO, moves[i], m, sizeof m);
		len += (size_t)snprintf(out + len, sizeof out - len, "%s%s", i ? " " : "", m);
	}
	return out;
}

static int
play(struct game *g, const char *move)
{
	struct game_error err;
	struct game_move m;
	int rc = game_move_parse(g, move, &m, &err);

	if (rc == 0)
		game_apply(g, m);
	else
		printf("# %s: %s\n", move, err.text);
	return rc;
}

static const char *
cell(const struct game *g, const char *sq)
{
	static char buf[80];

	game_cell_format(g, game_square_parse(sq), buf, sizeof buf);
	return buf;
}

/* Standard setup: Black's 18 on ranks 1-3, White's on 4-6, six of each value, Black to move. */
TEST(start_standard)
{
	struct game g, h;
	char a[GAME_TEXT_MAX], b[GAME_TEXT_MAX];
	int count[2][4] = {{0}};

	ASSERT_EQ(game_start(&g, GAME_HOKITO, NULL, 42, NULL), 0);
	for (int sq = 0; sq < 36; sq++) {
		const char *c = NULL;
		char buf[8];
		game_cell_format(&g, sq, buf, sizeof buf);
		c = buf;
		ASSERT_EQ(strlen(c), 2);
		ASSERT_EQ(c[0], sq < 18 ? 'b' : 'w');
		count[c[0] == 'w'][c[1] - '0']++;
	}
	for (int c = 0; c < 2; c++)
		for (int v = 1; v <= 3; v++)
			ASSERT_EQ(count[c][v], 6);
	ASSERT_EQ(game_side(&g), 0);
	ASSERT_EQ(game_ply(&g), 0);
	game_start(&h, GAME_HOKITO, "standard", 42, NULL);
	game_format(&g, a, sizeof a);
	game_format(&h, b, sizeof b);
	ASSERT_STR_EQ(a, b);
	game_start(&h, GAME_HOKITO, NULL, 43, NULL);
	game_format(&h, b, sizeof b);
	ASSERT(strcmp(a, b) != 0);
}

/* The documented procedure, pinned: seed 1 gives exactly this board. */
TEST(start_seed_pinned)
{
	struct game g;
	char text[GAME_TEXT_MAX];

	game_start(&g, GAME_HOKITO, NULL, 1, NULL);
	game_format(&g, text, sizeof text);
	ASSERT_STR_EQ(text, "w3,w2,w1,w2,w1,w1/w3,w3,w3,w1,w2,w2/w1,w2,w1,w2,w3,w3/"
	                    "b1,b3,b3,b3,b3,b2/b1,b2,b1,b1,b2,b1/b2,b2,b1,b3,b2,b3 b");
	game_start(&g, GAME_HOKITO, "random36", 3, NULL);
	game_format(&g, text, sizeof text);
	ASSERT_STR_EQ(text, "b3,b3,w3,w2,w3,b1/b2,b1,b3,b3,b2,w1/b3,b2,w2,w2,b2,b1/"
	                    "w1,w3,b3,b1,w1,w1/b2,w3,w3,b1,w2,b1/w3,b2,w2,w1,w2,w1 b");
}

/* random36: all 36 pawns anywhere; both colours end up on both halves for most seeds. */
TEST(start_random36)
{
	int mixed = 0;

	for (uint64_t seed = 0; seed < 20; seed++) {
		struct game g;
		int black_high = 0, n[2] = {0, 0};
		game_start(&g, GAME_HOKITO, "random36", seed, NULL);
		for (int sq = 0; sq < 36; sq++) {
			char buf[8];
			game_cell_format(&g, sq, buf, sizeof buf);
			ASSERT_EQ(strlen(buf), 2);
			n[buf[0] == 'w']++;
			black_high += buf[0] == 'b' && sq >= 18;
		}
		ASSERT_EQ(n[0], 18);
		ASSERT_EQ(n[1], 18);
		mixed += black_high > 0;
	}
	ASSERT(mixed >= 19);
}

/* A hop skips empty squares and lands on the first occupied one; none past the edge. */
TEST(hop_skips_empty_squares)
{
	struct game g;

	build(&g, "a1=b1 a4=w1 d1=w1", 'b');
	ASSERT_STR_EQ(moves_text(&g), "a1-d1 a1-a4");
	build(&g, "c3=b1 c6=w1 f3=w1 c1=w1 a3=w1", 'b');
	ASSERT_STR_EQ(moves_text(&g), "c3-c1 c3-a3 c3-f3 c3-c6");
}

/* Exactly v hops; two paths to one square are one move. */
TEST(exact_hops_and_one_move_per_square)
{
	struct game g;

	/* c3 (value 2) reaches e5 by c5 and by e3: one move. */
	build(&g, "c3=b2 c5=w1 e3=w1 e5=w1", 'b');
	ASSERT_STR_EQ(moves_text(&g), "c3-e5");
	/* Value 3: three hops around the square, both ways round. */
	build(&g, "a1=b3 a3=w1 c3=w1 c1=w1", 'b');
	ASSERT_STR_EQ(moves_text(&g), "a1-c1 a1-a3");
}

/* After the first hop, never back the way it came: a lone neighbour is a dead end for a 2. */
TEST(no_hop_back)
{
	struct game g;

	build(&g, "a1=b2 b1=w1 f6=w1 f4=w1", 'b');
	ASSERT_STR_EQ(moves_text(&g), "");
	/* Straight on and a quarter turn are both fine. */
	build(&g, "a1=b2 b1=w1 d1=w1 b4=w1", 'b');
	ASSERT_STR_EQ(moves_text(&g), "a1-d1 a1-b4");
}

/* A single pawn lands on a single pawn, a stack on a stack; on the way, anything goes. */
TEST(landing_rules)
{
	struct game g;

	build(&g, "a1=b1 b1=w1w2 a2=w1 f6=w1 f5=w1", 'b');
	ASSERT_STR_EQ(moves_text(&g), "a1-a2");
	build(&g, "c3=b1b1 e3=w1w1 c5=w2 f6=w1 f5=w1", 'b');
	ASSERT_STR_EQ(moves_text(&g), "c3-e3");
	/* a1 (value 2) goes over the stack on a3 to the single on c3. */
	build(&g, "a1=b2 a3=w1w1 c3=w1 e3=w1", 'b');
	ASSERT_STR_EQ(moves_text(&g), "a1-c3");
	/* A stack may hop over single pawns on its way to a stack. */
	build(&g, "a1=w1b2 a3=w1 c3=w2w1 e3=w1 f5=w1 f6=w1", 'b');
	ASSERT_STR_EQ(moves_text(&g), "a1-c3");
}

/* The mover goes on top; its stack keeps its order; the top pawn controls the new stack. */
TEST(apply_stacks)
{
	struct game g;
	char text[GAME_TEXT_MAX];

	build(&g, "a1=w1b1 c1=b3w2 f6=w1 f5=w1 e5=b1", 'b');
	ASSERT_EQ(game_ply(&g), 2); /* 7 pawns on 5 squares: two merges so far */
	ASSERT_EQ(play(&g, "a1-c1"), 0);
	ASSERT_STR_EQ(cell(&g, "c1"), "b3w2w1b1");
	ASSERT_STR_EQ(cell(&g, "a1"), "-");
	ASSERT_EQ(game_side(&g), 1);
	ASSERT_EQ(game_ply(&g), 3);
	game_format(&g, text, sizeof text);
	ASSERT_STR_EQ(text,
	              "-,-,-,-,-,w1/-,-,-,-,b1,w1/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,b3w2w1b1,"
	              "-,-,- w");
	/* White moves f6-f5 onto the single f5: the new stack is White's. */
	ASSERT_EQ(play(&g, "f6-f5"), 0);
	ASSERT_STR_EQ(cell(&g, "f5"), "w1w1");
}

/* The game ends as soon as EITHER player has no move, whoever is to move. */
TEST(end_when_either_player_is_blocked)
{
	struct game g;
	struct game_outcome o;

	/* White to move and White could move (b1-a1), but Black has no move: over. */
	build(&g, "a1=b2 b1=w1", 'w');
	ASSERT(game_over(&g));
	ASSERT_STR_EQ(moves_text(&g), "");
	game_outcome(&g, &o);
	ASSERT_EQ(o.end, GAME_END_BLOCKED);
	ASSERT_EQ(o.score[0], 2);
	ASSERT_EQ(o.score[1], 1);
	ASSERT_EQ(o.winner, 0);
	/* The same with Black to move. */
	build(&g, "a1=b2 b1=w1", 'b');
	ASSERT(game_over(&g));
	/* Checked after every move: the move that blocks the opponent ends the game. */
	build(&g, "a1=b1 b1=w1 d1=b1", 'b');
	ASSERT(!game_over(&g));
	ASSERT_EQ(play(&g, "a1-b1"), 0);
	ASSERT(game_over(&g));
}

/* Score: top value x stack height for every square you top; higher wins, equal draws. */
TEST(scores)
{
	struct game g;
	struct game_outcome o;

	build(&g, "a1=w1b3 f6=b2w2", 'b');
	game_outcome(&g, &o);
	ASSERT_EQ(o.end, GAME_END_BLOCKED);
	ASSERT_EQ(o.score[0], 6);
	ASSERT_EQ(o.score[1], 4);
	ASSERT_EQ(o.winner, 0);
	build(&g, "a1=w1b2 f6=b2w2", 'b');
	game_outcome(&g, &o);
	ASSERT_EQ(o.winner, -1);
	ASSERT_EQ(o.score[0], 4);
	ASSERT_EQ(o.score[1], 4);
	/* While the game goes on the running scores are given, and nobody has won. */
	game_start(&g, GAME_HOKITO, NULL, 1, NULL);
	game_outcome(&g, &o);
	ASSERT_EQ(o.end, GAME_END_NONE);
	ASSERT_EQ(o.winner, -1);
	ASSERT_EQ(o.score[0], 36);
	ASSERT_EQ(o.score[1], 36);
}

/* Move text: from-to, or the hop path checked hop by hop, with a reason for each refusal. */
TEST(move_parse)
{
	struct game g;
	struct game_error err;
	struct game_move m;

	build(&g, "c3=b2 c5=w1 e3=w1 e5=w1 a1=w3", 'b');
	ASSERT_EQ(game_move_parse(&g, "c3-e5", &m, &err), 0);
	ASSERT_EQ(m.from, game_square_parse("c3"));
	ASSERT_EQ(m.to, game_square_parse("e5"));
	ASSERT_EQ(game_move_parse(&g, "c3-c5-e5", &m, &err), 0);
	ASSERT_EQ(game_move_parse(&g, "c3-e3-e5", &m, &err), 0);
	ASSERT_EQ(m.to, game_square_parse("e5"));
	ASSERT_EQ(game_move_parse(&g, "c3-c4-e4", &m, &err), GAME_EILLEGAL);
	ASSERT(strstr(err.text, "c5") != NULL);
	ASSERT_EQ(game_move_parse(&g, "c3-c5", &m, &err), GAME_EILLEGAL);
	ASSERT(strstr(err.text, "2 hops") != NULL);
	ASSERT_EQ(game_move_parse(&g, "c3-c5-c3", &m, &err), GAME_EILLEGAL);
	ASSERT(strstr(err.text, "back") != NULL);
	ASSERT_EQ(game_move_parse(&g, "c3-c5-e4", &m, &err), GAME_EILLEGAL);
	ASSERT(strstr(err.text, "straight") != NULL);
	/* Nothing west of c3: the hop has nowhere to land, and the square named is empty. */
	ASSERT_EQ(game_move_parse(&g, "c3-a3-a1", &m, &err), GAME_EILLEGAL);
	ASSERT_STR_EQ(err.text, "hop 1 from c3 west meets no pawn before the edge: a3 is empty");
	ASSERT_EQ(game_move_parse(&g, "c3-a3", &m, &err), GAME_EILLEGAL);
	ASSERT(strstr(err.text, "empty") != NULL);
	ASSERT_EQ(game_move_parse(&g, "d4-e5", &m, &err), GAME_EILLEGAL);
	ASSERT(strstr(err.text, "no pawn on d4") != NULL);
	ASSERT_EQ(game_move_parse(&g, "a1-e5", &m, &err), GAME_EILLEGAL);
	ASSERT(strstr(err.text, "the pawn on a1 is White's and it is Black's turn") != NULL);
	/* A stack is the colour of its top pawn. */
	build(&g, "a1=b1w1 a6=b1w3 f6=b1 f5=b2", 'b');
	ASSERT_EQ(game_move_parse(&g, "a1-a6", &m, &err), GAME_EILLEGAL);
	ASSERT(strstr(err.text,
	              "the stack on a1 is topped by a White pawn and it is Black's turn") != NULL);
	build(&g, "c3=b2 c5=w1 e3=w1 e5=w1 a1=w3", 'b');
	ASSERT_EQ(game_move_parse(&g, "c3-c5-e5-e3", &m, &err), GAME_EILLEGAL);
	/* A path longer than any value is well-formed, and illegal: it has the wrong hop count. */
	ASSERT_EQ(game_move_parse(&g, "c3-c5-e5-e3-e1", &m, &err), GAME_EILLEGAL);
	ASSERT(strstr(err.text, "this path has 4") != NULL);
	ASSERT_EQ(game_move_parse(&g, "c3-c5-e5-e3-e1-a1-a2-a3-a4-a5-a6", &m, &err), GAME_EILLEGAL);
	ASSERT(strstr(err.text, "this path has 10") != NULL);
	ASSERT_EQ(err.pos, 30);
	ASSERT_EQ(game_move_parse(&g, "e5-c5", &m, &err), GAME_EILLEGAL);
	/* A 2 that cannot get there by any path of two hops. */
	ASSERT_EQ(game_move_parse(&g, "c3-e3", &m, &err), GAME_EILLEGAL);
	ASSERT(strstr(err.text, "no path") != NULL);
	/* Malformed texts. */
	const char *bad[] = {"",
	                     "c3",
	                     "c3e5",
	                     "c3-",
	                     "-e5",
	                     "z9-a1",
	                     "c3-e5-",
	                     "c3--e5",
	                     "c3-e5 ",
	                     "C3-E5",
	                     "c3-c5-e5-e3-e1-",
	                     "c3-e5x",
	                     "Xc5+c6"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ASSERT_EQ(game_move_parse(&g, bad[i], &m, &err), GAME_ESYNTAX);
		ASSERT(strlen(err.text) > 10);
	}
	/* A finished game takes no move. */
	build(&g, "a1=b2 b1=w1", 'w');
	ASSERT_EQ(game_move_parse(&g, "b1-a1", &m, &err), GAME_EOVER);
}

/* A single landing on a stack (and a stack on a single) is refused with the reason. */
TEST(move_parse_landing_reason)
{
	struct game g;
	struct game_error err;
	struct game_move m;

	build(&g, "a1=b1 b1=w1w2 a2=w1 f6=w1 f5=w1", 'b');
	ASSERT_EQ(game_move_parse(&g, "a1-b1", &m, &err), GAME_EILLEGAL);
	ASSERT(strstr(err.text, "single pawn") != NULL);
	build(&g, "c3=b1b1 e3=w1w1 c5=w2 f6=w1 f5=w1", 'b');
	ASSERT_EQ(game_move_parse(&g, "c3-c5", &m, &err), GAME_EILLEGAL);
	ASSERT(strstr(err.text, "must land on a stack") != NULL);
}

/* Every kind of bad position text is refused with a sentence and a place. */
TEST(bad_positions)
{
	static const char row[] = "b1,b1,b1,b1,b1,b1/";
	struct {
		const char *text;
		const char *says;
	} cases[] = {
	        {"", "empty"},
	        {"-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b",
	         "cells"},
	        {"-,-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b",
	         "more than 6"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b", "6 ranks"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/"
	         "-,-,-,-,-,- "
	         "b",
	         "more than 6"},
	        {"b4,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b",
	         "not a pawn"},
	        {"x1,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b",
	         "not a pawn"},
	        {"b12,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b",
	         "not a stack"},
	        {"b1,,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b",
	         "empty"},
	        {"--,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b",
	         "not a pawn"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- x",
	         "side"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- bw",
	         "side"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-",
	         "space"},
	        /* The side is right here: the error names the extra space or text, as OXONO's. */
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-  b",
	         "more than one space before the side to move"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b ",
	         "unexpected text after the side to move"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- w x",
	         "unexpected text after the side to move"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- ",
	         "the side to move is missing"},
	        {"b1 ,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b",
	         "unexpected space at square a6: one space only"},
	        /* A space is named as such wherever more board follows it, rank 1 included. */
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,b1 ,-,-,-,w1 b",
	         "unexpected space at square b1"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,b 1,-,-,-,w1 b",
	         "unexpected space at square b1"},
	        {"-,-,-,-,-,- /-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/b1,-,-,-,-,w1 b",
	         "unexpected space at square f6"},
	        /* A stray space where a cell starts is named as a space, not as an empty cell. */
	        {" -,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b",
	         "unexpected space where square a6 should be"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-, -,-,-,-,- b",
	         "unexpected space where square b1 should be"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,- b",
	         "rank 1 has only 3 of its 6 cells"},
	        /* Heights add up from 2s (single on single, stack on stack): odd ones cannot be. */
	        {"b1w1b2,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,w1 b",
	         "stack of 3 pawns is impossible"},
	        {"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,b1b2b3w1w2 "
	         "w",
	         "stack of 5 pawns is impossible"},
	};
	char text[GAME_TEXT_MAX * 2];
	struct game_error err;
	struct game g;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		err.text[0] = '\0';
		if (game_parse(&g, GAME_HOKITO, cases[i].text, &err) != GAME_ESYNTAX) {
			printf("# accepted: '%s'\n", cases[i].text);
			ASSERT(0);
		}
		if (strstr(err.text, cases[i].says) == NULL)
			printf("# '%s': %s\n", cases[i].text, err.text);
		ASSERT(strstr(err.text, cases[i].says) != NULL);
	}
	/* Where: the second space, and the space after the side. */
	ASSERT_EQ(game_parse(&g, GAME_HOKITO, cases[13].text, &err), GAME_ESYNTAX);
	ASSERT_EQ(err.pos, 72);
	ASSERT_EQ(game_parse(&g, GAME_HOKITO, cases[14].text, &err), GAME_ESYNTAX);
	ASSERT_EQ(err.pos, 73);
	/* 19 black pawns; seven black 1s. */
	snprintf(text, sizeof text, "b1b2,%s%s%s", row + 3, "b2,b2,b2,b2,b2,b2/",
	         "b3,b3,b3,b3,b3,b3/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b");
	ASSERT_EQ(game_parse(&g, GAME_HOKITO, text, &err), GAME_ESYNTAX);
	ASSERT(strstr(err.text, "19 black pawns") != NULL);
	/* The count errors name the pawn over the limit, as the other errors do: the 19th is f4's.
	 */
	ASSERT(strstr(err.text, "square f4") != NULL);
	ASSERT_EQ(err.pos, 53);
	snprintf(text, sizeof text,
	         "%sb1,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- w", row);
	ASSERT_EQ(game_parse(&g, GAME_HOKITO, text, &err), GAME_ESYNTAX);
	ASSERT(strstr(err.text, "7 black pawns of value 1") != NULL);
	ASSERT(strstr(err.text, "square a5") != NULL);
	ASSERT_EQ(err.pos, 18);
	/* 37 pawns: the start position and one more white pawn under a3's: a 19th white pawn. */
	ASSERT_EQ(game_parse(&g, GAME_HOKITO,
	                     "w3,w2,w1,w2,w1,w1/w3,w3,w3,w1,w2,w2/w1,w2,w1,w2,w3,w3/w1b1,b3,b3,b3,"
	                     "b3,b2/b1,b2,b1,b1,b2,b1/b2,b2,b1,b3,b2,b3 b",
	                     &err),
	          GAME_ESYNTAX);
	ASSERT(strstr(err.text, "square a3: 19 white pawns") != NULL);
	ASSERT_EQ(err.pos, 54);
	/* A long cell is quoted in part: the reason still fits the sentence. */
	snprintf(text, sizeof text, "%s%s", "b1w1b1w1b1w1b1w1b1w1b1w1b1w1b1w1b1w1b1w1b1w1b",
	         ",-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- b");
	ASSERT_EQ(game_parse(&g, GAME_HOKITO, text, &err), GAME_ESYNTAX);
	ASSERT(strstr(err.text, "'b1w1b1w1b1w1...' is not a stack") != NULL);
	ASSERT(strstr(err.text, "like w1b3)") != NULL);
	/* So is a long side to move, and the quote is closed. */
	snprintf(
	        text, sizeof text, "%s%s",
	        "-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- ",
	        "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww"
	        "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww");
	ASSERT_EQ(game_parse(&g, GAME_HOKITO, text, &err), GAME_ESYNTAX);
	ASSERT(strstr(err.text, "not 'wwwwwwww...'") != NULL);
	/* Too many pawns in one stack is still bounded by the counts: 37 pawns is refused. */
	ASSERT_EQ(game_parse(&g, GAME_HOKITO, NULL, &err), GAME_ESYNTAX);
}

/* Text round trips through random games, stacks included. */
TEST(round_trip_playouts)
{
	struct game_move moves[GAME_MOVES_MAX];
	char a[GAME_TEXT_MAX], b[GAME_TEXT_MAX];
	struct game g, h;

	for (uint64_t seed = 0; seed < 30; seed++) {
		game_start(&g, GAME_HOKITO, seed & 1 ? "random36" : NULL, seed, NULL);
		for (int ply = 0;; ply++) {
			int n;
			game_format(&g, a, sizeof a);
			ASSERT_EQ(game_parse(&h, GAME_HOKITO, a, NULL), 0);
			game_format(&h, b, sizeof b);
			ASSERT_STR_EQ(a, b);
			ASSERT_EQ(game_ply(&h), ply);
			ASSERT_EQ(game_moves(&h, moves), game_moves(&g, moves));
			n = game_moves(&g, moves);
			if (n == 0)
				break;
			ASSERT(ply < 35);
			game_apply(&g, moves[(seed * 31 + (uint64_t)ply * 17) % (uint64_t)n]);
		}
		ASSERT(game_over(&g));
	}
}

/* Perft by plain make-move recursion, to check the bulk-counting perft. */
static uint64_t
slow_perft(const struct game *g, int depth)
{
	struct game_move moves[GAME_MOVES_MAX];
	uint64_t total = 0;
	int n;

	if (depth == 0)
		return 1;
	n = game_moves(g, moves);
	for (int i = 0; i < n; i++) {
		struct game child = *g;
		game_apply(&child, moves[i]);
		total += slow_perft(&child, depth - 1);
	}
	return total;
}

/*
 * Perft tables: seeded starts (standard and random36) and mid-game positions with tall stacks.
 * Every number was computed independently by the Python reference (tests/ref/rules_ref.py, see
 * tests/data/perft-ref.txt) and agrees with this engine; they are pinned here.
 */
TEST(perft_tables)
{
	static const struct {
		const char *position;
		uint64_t count[4]; /* depths 1..4; 0 = not checked */
	} table[] = {
	        {"w3,w2,w1,w2,w1,w1/w3,w3,w3,w1,w2,w2/w1,w2,w1,w2,w3,w3/b1,b3,b3,b3,b3,b2/"
	         "b1,b2,b1,b1,b2,b1/b2,b2,b1,b3,b2,b3 b",
	         {115, 12526, 1273866, 0}},
	        {"w3,w1,w2,w2,w2,w3/w2,w3,w1,w1,w3,w1/w3,w2,w1,w1,w3,w2/b2,b3,b3,b3,b1,b1/"
	         "b2,b1,b3,b1,b2,b2/b2,b2,b3,b1,b3,b1 b",
	         {115, 11880, 1218354, 0}},
	        {"w1,w2,w3,w3,w2,w2/w3,b1,b1,b2,b1,b3/b2,b3,w2,w1,b2,w1/w1,b3,w1,b2,b3,w3/"
	         "b1,w1,b1,w2,b1,b2/b2,w3,w3,b3,b3,w2 b",
	         {118, 11682, 1183608, 0}},
	        {"-,-,w1,w2,w1w2,w1/w3w3,-,w3w1,-,w2,-/w1,-,w1w2,w2w2,w3,-/b1w3,-,b3b3,-,b3b3,b2b1/"
	         "b1,b2b1,-,b1,b2b3b2b1,-/b2,b2,-,-,-,b3w3 b",
	         {17, 599, 9009, 0}},
	        {"-,w2w1,-,-,-,w2/w3b1b2b3w2b2w3w2w2w3,-,b1,-,b1,-/-,b3w3,-,-,-,w1/"
	         "w1,-,w1,-,b3b2,-/b1b2w3b3,w1w3,b1,-,b1w2w1b3,b2b3/b2,-,-,-,-,- b",
	         {14, 170, 2031, 19288}},
	        {"-,-,w2,-,-,-/w2w3,-,w1w2w3b3w2w1b3b2b2b3w1w3,-,-,-/-,-,-,w1b3,-,w2w2w3w1/"
	         "b2b3,-,-,-,b1w3,b1/-,-,-,-,-,b2b1/-,b2b1,-,b1b2,b3b1w1w3,- b",
	         {8, 47, 220, 412}},
	};
	struct game_error err;
	struct game g;

	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		ASSERT_EQ(game_parse(&g, GAME_HOKITO, table[i].position, &err), 0);
		ASSERT_U64_EQ(game_perft(&g, 0), 1);
		for (int d = 1; d <= 4; d++)
			if (table[i].count[d - 1] != 0)
				ASSERT_U64_EQ(game_perft(&g, d), table[i].count[d - 1]);
	}
	/* The pinned start is seed 1's. */
	game_start(&g, GAME_HOKITO, NULL, 1, NULL);
	ASSERT_U64_EQ(game_perft(&g, 3), 1273866);
}

/* Bulk counting agrees with plain recursion, in many positions of random games. */
TEST(perft_bulk_matches_recursion)
{
	struct game_move moves[GAME_MOVES_MAX];
	struct game g;

	for (uint64_t seed = 100; seed < 110; seed++) {
		game_start(&g, GAME_HOKITO, seed & 1 ? "random36" : NULL, seed, NULL);
		for (int ply = 0; ply < 30; ply++) {
			int n;
			ASSERT_U64_EQ(game_perft(&g, 2), slow_perft(&g, 2));
			n = game_moves(&g, moves);
			if (n == 0)
				break;
			game_apply(&g, moves[(seed + (uint64_t)ply * 13) % (uint64_t)n]);
		}
	}
}

int
main(void)
{
	RUN(start_standard);
	RUN(start_seed_pinned);
	RUN(start_random36);
	RUN(hop_skips_empty_squares);
	RUN(exact_hops_and_one_move_per_square);
	RUN(no_hop_back);
	RUN(landing_rules);
	RUN(apply_stacks);
	RUN(end_when_either_player_is_blocked);
	RUN(scores);
	RUN(move_parse);
	RUN(move_parse_landing_reason);
	RUN(bad_positions);
	RUN(round_trip_playouts);
	RUN(perft_tables);
	RUN(perft_bulk_matches_recursion);
	TEST_END();
}
