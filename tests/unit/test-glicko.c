/*
 * test-glicko.c: Glicko-2 against Glickman's worked example and the rated-game cases hokito uses:
 * single-game periods, draws, symmetry, idle periods, invalid input and the provisional mark.
 */
#include <math.h>

#include "glicko.h"
#include "test.h"

/* The paper's example: 1500/200/0.06 beats 1400/30, loses to 1550/100 and to 1700/300. */
TEST(glickman_example)
{
	struct glicko p = {1500, 200, 0.06}, out;
	struct glicko_game games[] = {{1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0}};

	ASSERT_EQ(glicko_rate(&p, games, 3, &out), 0);
	/* full precision: 1464.0507, 151.5165, 0.0599960 (the paper, rounding, prints 1464.06) */
	ASSERT_NEAR(out.rating, 1464.05, 0.005);
	ASSERT_NEAR(out.rd, 151.52, 0.005);
	ASSERT_NEAR(out.vol, 0.059996, 0.0000005);
	/* and more digits, so that a rounding along the way would show */
	ASSERT_NEAR(out.rating, 1464.0506705, 1e-6);
	ASSERT_NEAR(out.rd, 151.5165241, 1e-6);
	ASSERT_NEAR(out.vol, 0.0599959843, 1e-9);
	/* in place */
	ASSERT_EQ(glicko_rate(&p, games, 3, &p), 0);
	ASSERT_NEAR(p.rating, 1464.0506705, 1e-6);
}

TEST(new_player)
{
	struct glicko p;

	glicko_init(&p);
	ASSERT_NEAR(p.rating, 1500, 0);
	ASSERT_NEAR(p.rd, 350, 0);
	ASSERT_NEAR(p.vol, 0.06, 0);
	ASSERT(glicko_provisional(&p));
}

/* Two new players, one game: the winner gains what the loser loses, both RDs fall alike. */
TEST(single_game_win)
{
	struct glicko a, b;

	glicko_init(&a);
	glicko_init(&b);
	ASSERT_EQ(glicko_rate_game(&a, &b, 1, &a, &b), 0);
	ASSERT_NEAR(a.rating, 1662.3108939, 1e-6);
	ASSERT_NEAR(b.rating, 1337.6891061, 1e-6);
	ASSERT_NEAR(a.rd, 290.3189637, 1e-6);
	ASSERT_NEAR(b.rd, a.rd, 1e-9);
	ASSERT_NEAR(a.vol, 0.0599996754, 1e-9);
	ASSERT_NEAR(a.rating - 1500, 1500 - b.rating, 1e-9);
}

/* Both are updated from the values before the game, whatever the order or aliasing. */
TEST(single_game_uses_values_before)
{
	struct glicko a = {1700, 80, 0.06}, b = {1500, 300, 0.06};
	struct glicko a1, b1, a2, b2;
	struct glicko_game vs_b = {1500, 300, 0.5}, vs_a = {1700, 80, 0.5};

	ASSERT_EQ(glicko_rate_game(&a, &b, 0.5, &a1, &b1), 0);
	ASSERT_EQ(glicko_rate(&a, &vs_b, 1, &a2), 0);
	ASSERT_EQ(glicko_rate(&b, &vs_a, 1, &b2), 0);
	ASSERT_NEAR(a1.rating, a2.rating, 0);
	ASSERT_NEAR(b1.rating, b2.rating, 0);
	ASSERT_NEAR(a1.rd, a2.rd, 0);
	ASSERT_NEAR(b1.vol, b2.vol, 0);
	/* a draw against a weaker, less known player costs the stronger a little */
	ASSERT_NEAR(a1.rating, 1694.7749325, 1e-6);
	ASSERT_NEAR(a1.rd, 79.7296049, 1e-6);
	ASSERT_NEAR(b1.rating, 1583.6795530, 1e-6);
	ASSERT_NEAR(b1.rd, 243.3667163, 1e-6);
	/* written in place: the same as into copies */
	ASSERT_EQ(glicko_rate_game(&a, &b, 0.5, &a, &b), 0);
	ASSERT_NEAR(a.rating, a1.rating, 0);
	ASSERT_NEAR(b.rating, b1.rating, 0);
	/* and swapped round: b's draw against a is the same game */
	a = (struct glicko){1700, 80, 0.06};
	b = (struct glicko){1500, 300, 0.06};
	ASSERT_EQ(glicko_rate_game(&b, &a, 0.5, &b2, &a2), 0);
	ASSERT_NEAR(a2.rating, a1.rating, 0);
	ASSERT_NEAR(b2.rating, b1.rating, 0);
}

/* Equal players draw: ratings stay, deviations shrink, the same for both. */
TEST(symmetric_draw)
{
	struct glicko a = {1623.5, 120, 0.06}, b = {1623.5, 120, 0.06};

	ASSERT_EQ(glicko_rate_game(&a, &b, 0.5, &a, &b), 0);
	ASSERT_NEAR(a.rating, 1623.5, 1e-9);
	ASSERT_NEAR(b.rating, 1623.5, 1e-9);
	ASSERT(a.rd < 120);
	ASSERT_NEAR(a.rd, b.rd, 0);
	ASSERT_NEAR(a.vol, b.vol, 0);
	glicko_init(&a);
	glicko_init(&b);
	ASSERT_EQ(glicko_rate_game(&a, &b, 0.5, &a, &b), 0);
	ASSERT_NEAR(a.rating, 1500, 1e-9);
	ASSERT_NEAR(a.rd, 290.3189616, 1e-6);
}

/* Winning and losing the same game mirror each other. */
TEST(win_loss_mirror)
{
	struct glicko a = {1800, 60, 0.05}, b = {1650, 200, 0.07};
	struct glicko aw, bl, al, bw;

	ASSERT_EQ(glicko_rate_game(&a, &b, 1, &aw, &bl), 0);
	ASSERT_EQ(glicko_rate_game(&b, &a, 0, &bl, &aw), 0);
	ASSERT_EQ(glicko_rate_game(&a, &b, 0, &al, &bw), 0);
	ASSERT(aw.rating > a.rating && bl.rating < b.rating);
	ASSERT(al.rating < a.rating && bw.rating > b.rating);
	/* the favourite gains less by winning than it loses by losing */
	ASSERT(aw.rating - a.rating < a.rating - al.rating);
	/* the less certain player moves more */
	ASSERT(fabs(bl.rating - b.rating) > fabs(aw.rating - a.rating));
}

/* A period without games: step 6 only, the RD grows, up to a new player's 350. */
TEST(idle_period)
{
	struct glicko p = {1500, 200, 0.06}, out;

	ASSERT_EQ(glicko_rate(&p, NULL, 0, &out), 0);
	ASSERT_NEAR(out.rating, 1500, 0);
	ASSERT_NEAR(out.vol, 0.06, 0);
	ASSERT_NEAR(out.rd, 200.2714167, 1e-6);
	p.rd = 349.9;
	ASSERT_EQ(glicko_rate(&p, NULL, 0, &out), 0);
	ASSERT_NEAR(out.rd, 350, 0);
	p.rd = 350;
	ASSERT_EQ(glicko_rate(&p, NULL, 0, &out), 0);
	ASSERT_NEAR(out.rd, 350, 0);
}

/* Values from the store are checked, not trusted; nothing is written on an error. */
TEST(invalid)
{
	struct glicko p = {1500, 200, 0.06}, q = {1500, 200, 0.06};
	struct glicko out = {1, 2, 3}, out2 = {4, 5, 6};
	struct glicko_game g = {1500, 100, 0.75};

	ASSERT_EQ(glicko_rate(&p, &g, 1, &out), GLICKO_EINVAL);
	g.score = 1;
	g.rd = 0;
	ASSERT_EQ(glicko_rate(&p, &g, 1, &out), GLICKO_EINVAL);
	g.rd = 100;
	g.rating = NAN;
	ASSERT_EQ(glicko_rate(&p, &g, 1, &out), GLICKO_EINVAL);
	p.vol = 0;
	ASSERT_EQ(glicko_rate(&p, NULL, 0, &out), GLICKO_EINVAL);
	p.vol = 0.06;
	p.rd = INFINITY;
	ASSERT_EQ(glicko_rate_game(&p, &q, 1, &out, &out2), GLICKO_EINVAL);
	p.rd = 200;
	ASSERT_EQ(glicko_rate_game(&p, &q, 0.25, &out, &out2), GLICKO_EINVAL);
	ASSERT_NEAR(out.rating, 1, 0);
	ASSERT_NEAR(out2.rating, 4, 0);
}

/* Whole points, "?" while RD > 110. */
TEST(display)
{
	char buf[GLICKO_DISPLAY_MAX];
	struct glicko p = {1464.0506705, 151.5165241, 0.06};

	ASSERT_EQ(glicko_display(&p, buf, sizeof buf), 5);
	ASSERT_STR_EQ(buf, "1464?");
	p.rd = 110;
	ASSERT_EQ(glicko_display(&p, buf, sizeof buf), 4);
	ASSERT_STR_EQ(buf, "1464");
	ASSERT(!glicko_provisional(&p));
	p.rd = 110.0001;
	ASSERT(glicko_provisional(&p));
	p.rating = 1499.5;
	p.rd = 50;
	ASSERT_EQ(glicko_display(&p, buf, sizeof buf), 4);
	ASSERT_STR_EQ(buf, "1500");
	p.rating = 1499.4999;
	ASSERT_EQ(glicko_display(&p, buf, sizeof buf), 4);
	ASSERT_STR_EQ(buf, "1499");
	glicko_init(&p);
	ASSERT_EQ(glicko_display(&p, buf, sizeof buf), 5);
	ASSERT_STR_EQ(buf, "1500?");
	ASSERT_EQ(glicko_display(&p, buf, 5), GLICKO_ENOSPC);
	ASSERT_EQ(glicko_display(&p, buf, 6), 5);
	p.rating = -0.4;
	ASSERT_EQ(glicko_display(&p, buf, sizeof buf), 2);
	ASSERT_STR_EQ(buf, "0?");
	p.rating = NAN;
	ASSERT_EQ(glicko_display(&p, buf, sizeof buf), GLICKO_EINVAL);
}

/* Many games in one period: a long winning streak converges and stays finite. */
TEST(long_period)
{
	struct glicko p, out;
	struct glicko_game games[200];
	size_t i;

	glicko_init(&p);
	for (i = 0; i < 200; i++)
		games[i] = (struct glicko_game){1500 + (double)(i % 7) * 50, 50 + (double)i, 1};
	ASSERT_EQ(glicko_rate(&p, games, 200, &out), 0);
	ASSERT(isfinite(out.rating) && isfinite(out.rd) && isfinite(out.vol));
	ASSERT(out.rating > 1800);
	ASSERT(out.rd < 100);
}

int
main(void)
{
	RUN(glickman_example);
	RUN(new_player);
	RUN(single_game_win);
	RUN(single_game_uses_values_before);
	RUN(symmetric_draw);
	RUN(win_loss_mirror);
	RUN(idle_period);
	RUN(invalid);
	RUN(display);
	RUN(long_period);
	TEST_END();
}
