/*
 * test-game.c: the generic game interface: names, squares, variants, dispatch to both games.
 */
#include "game.h"
#include "test.h"

TEST(game_square_names)
{
	char name[3];

	ASSERT_EQ(game_square_parse("a1"), 0);
	ASSERT_EQ(game_square_parse("f1"), 5);
	ASSERT_EQ(game_square_parse("a6"), 30);
	ASSERT_EQ(game_square_parse("f6"), 35);
	ASSERT_EQ(game_square_parse("g1"), GAME_ESYNTAX);
	ASSERT_EQ(game_square_parse("a7"), GAME_ESYNTAX);
	ASSERT_EQ(game_square_parse("a0"), GAME_ESYNTAX);
	ASSERT_EQ(game_square_parse(""), GAME_ESYNTAX);
	ASSERT_EQ(game_square_parse("A1"), GAME_ESYNTAX);
	for (int sq = 0; sq < 36; sq++) {
		game_square_name(sq, name);
		ASSERT_EQ(game_square_parse(name), sq);
	}
}

TEST(game_kinds_and_sides)
{
	enum game_kind k;
	int side;

	ASSERT_EQ(game_kind_parse("hokito", &k), 0);
	ASSERT_EQ(k, GAME_HOKITO);
	ASSERT_EQ(game_kind_parse("oxono", &k), 0);
	ASSERT_EQ(k, GAME_OXONO);
	ASSERT_EQ(game_kind_parse("chess", &k), GAME_EINVAL);
	ASSERT_STR_EQ(game_side_name(GAME_HOKITO, 0), "black");
	ASSERT_STR_EQ(game_side_name(GAME_HOKITO, 1), "white");
	ASSERT_STR_EQ(game_side_name(GAME_OXONO, 0), "pink");
	ASSERT_STR_EQ(game_side_name(GAME_OXONO, 1), "black");
	ASSERT_EQ(game_side_parse(GAME_HOKITO, "white", &side), 0);
	ASSERT_EQ(side, 1);
	ASSERT_EQ(game_side_parse(GAME_OXONO, "p", &side), 0);
	ASSERT_EQ(side, 0);
	ASSERT_EQ(game_side_parse(GAME_OXONO, "white", &side), GAME_EINVAL);
}

TEST(game_variants)
{
	struct game_error err;
	struct game g;

	ASSERT_EQ(game_variant_check(GAME_HOKITO, NULL, &err), 0);
	ASSERT_EQ(game_variant_check(GAME_HOKITO, "random36", &err), 0);
	ASSERT_EQ(game_variant_check(GAME_OXONO, "random36", &err), GAME_EINVAL);
	ASSERT(strstr(err.text, "random36") != NULL);
	ASSERT_EQ(game_start(&g, GAME_HOKITO, "nonsense", 1, &err), GAME_EINVAL);
	ASSERT_EQ(game_start(&g, GAME_OXONO, "standard", 1, &err), 0);
	ASSERT_EQ(g.kind, GAME_OXONO);
	ASSERT_EQ(game_side(&g), 0);
	ASSERT_EQ(game_ply(&g), 0);
}

/* Both games round-trip their start positions through the generic interface. */
TEST(game_start_round_trip)
{
	char text[GAME_TEXT_MAX], again[GAME_TEXT_MAX];
	struct game_error err;
	struct game g, h;

	for (int kind = 0; kind < 2; kind++) {
		for (uint64_t seed = 0; seed < 20; seed++) {
			ASSERT_EQ(game_start(&g, (enum game_kind)kind, NULL, seed, &err), 0);
			ASSERT(game_format(&g, text, sizeof text) > 0);
			ASSERT_EQ(game_parse(&h, (enum game_kind)kind, text, &err), 0);
			ASSERT(game_format(&h, again, sizeof again) > 0);
			ASSERT_STR_EQ(text, again);
			ASSERT(!game_over(&g));
		}
	}
	ASSERT_EQ(game_format(&g, text, 10), GAME_ENOSPC);
}

/* Moves listed by game_moves are exactly the ones game_move_parse accepts. */
TEST(game_moves_parse_agree)
{
	struct game_move moves[GAME_MOVES_MAX], m;
	char text[GAME_MOVE_TEXT];
	struct game_error err;
	struct game g;

	for (int kind = 0; kind < 2; kind++) {
		ASSERT_EQ(game_start(&g, (enum game_kind)kind, NULL, 5, &err), 0);
		for (int ply = 0; ply < 12 && !game_over(&g); ply++) {
			int n = game_moves(&g, moves);
			ASSERT(n > 0);
			for (int i = 0; i < n; i++) {
				ASSERT(game_move_format(g.kind, moves[i], text, sizeof text) > 0);
				ASSERT_EQ(game_move_parse(&g, text, &m, &err), 0);
				ASSERT(m.from == moves[i].from && m.to == moves[i].to &&
				       m.place == moves[i].place);
				ASSERT(game_move_legal(&g, m));
			}
			game_apply(&g, moves[(ply * 7) % n]);
			ASSERT_EQ(game_ply(&g), ply + 1);
		}
	}
}

int
main(void)
{
	RUN(game_square_names);
	RUN(game_kinds_and_sides);
	RUN(game_variants);
	RUN(game_start_round_trip);
	RUN(game_moves_parse_agree);
	TEST_END();
}
