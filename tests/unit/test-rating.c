/*
 * test-rating.c: the book of the accounts' ratings (server/rating.h): new accounts, a rated
 * game's change and counts, the best non-provisional rating, the display, and the window of the
 * rated quick pool.
 */
#include <math.h>

#include "rating.h"
#include "test.h"

/* An account with no row is new in that kind: 1500, 350, 0.06, shown "1500?". */
TEST(new_account)
{
	struct rating_book b;
	struct glicko g;
	char text[GLICKO_DISPLAY_MAX];

	rating_book_init(&b);
	ASSERT(rating_book_find(&b, 7, GAME_HOKITO) == NULL);
	rating_book_glicko(&b, 7, GAME_HOKITO, &g);
	ASSERT_NEAR(g.rating, 1500, 0);
	ASSERT_NEAR(g.rd, 350, 0);
	ASSERT_NEAR(g.vol, 0.06, 0);
	rating_book_display(&b, 7, GAME_HOKITO, text, sizeof text);
	ASSERT_STR_EQ(text, "1500?");
	rating_book_close(&b);
}

/* A win between two new accounts: glicko's numbers, the counts, in that kind only. */
TEST(game_win)
{
	struct rating_book b;
	struct event_rating_change c[2];
	const int64_t acc[2] = {1, 2};
	const struct store_rating *r;
	char text[GLICKO_DISPLAY_MAX];

	rating_book_init(&b);
	ASSERT_EQ(rating_book_game(&b, GAME_OXONO, acc, 1.0, c), 0);
	ASSERT_NEAR(c[0].before.rating, 1500, 0);
	ASSERT_NEAR(c[0].after.rating, 1662.3108939, 1e-6);
	ASSERT_NEAR(c[1].after.rating, 1337.6891061, 1e-6);
	ASSERT_NEAR(c[0].after.rd, 290.3189637, 1e-6);
	r = rating_book_find(&b, 1, GAME_OXONO);
	ASSERT(r != NULL);
	ASSERT_NEAR(r->rating, c[0].after.rating, 0);
	ASSERT_EQ(r->games, 1);
	ASSERT_EQ(r->wins, 1);
	ASSERT_EQ(r->losses, 0);
	ASSERT_NEAR(r->best, r->rating, 0); /* the best after its games, "?" or not */
	r = rating_book_find(&b, 2, GAME_OXONO);
	ASSERT_EQ(r->losses, 1);
	ASSERT_NEAR(r->best, 1337.6891061, 1e-6); /* its only rating after a game */
	ASSERT(rating_book_find(&b, 1, GAME_HOKITO) == NULL);
	rating_book_display(&b, 1, GAME_OXONO, text, sizeof text);
	ASSERT_STR_EQ(text, "1662?");
	/* the second game starts from the values after the first */
	ASSERT_EQ(rating_book_game(&b, GAME_OXONO, acc, 0.5, c), 0);
	ASSERT_NEAR(c[0].before.rating, 1662.3108939, 1e-6);
	ASSERT_EQ(rating_book_find(&b, 1, GAME_OXONO)->draws, 1);
	ASSERT_EQ(rating_book_find(&b, 1, GAME_OXONO)->games, 2);
	rating_book_close(&b);
}

/* Once the RD is 110 or less the rating shows without "?"; the best only ever rises. */
TEST(established)
{
	struct rating_book b;
	struct store_rating row = {.account = 3,
	                           .kind = GAME_HOKITO,
	                           .rating = 1700,
	                           .rd = 60,
	                           .vol = 0.06,
	                           .games = 40,
	                           .wins = 30,
	                           .losses = 10,
	                           .best = 1720};
	struct event_rating_change c[2];
	const int64_t acc[2] = {3, 4};
	char text[GLICKO_DISPLAY_MAX];

	rating_book_init(&b);
	rating_book_put(&b, &row);
	rating_book_display(&b, 3, GAME_HOKITO, text, sizeof text);
	ASSERT_STR_EQ(text, "1700");
	ASSERT_EQ(rating_book_game(&b, GAME_HOKITO, acc, 1.0, c), 0);
	ASSERT(c[0].after.rating > 1700 && c[0].after.rating < 1720);
	ASSERT_NEAR(rating_book_find(&b, 3, GAME_HOKITO)->best, 1720, 0); /* not passed */
	row.best = 1650;
	rating_book_put(&b, &row);
	ASSERT_EQ(rating_book_game(&b, GAME_HOKITO, acc, 1.0, c), 0);
	ASSERT_NEAR(rating_book_find(&b, 3, GAME_HOKITO)->best, c[0].after.rating, 0);
	rating_book_close(&b);
}

/* The quick pool's window: +-100 at first, 50 wider for every whole 10 s waited. */
TEST(quick_window)
{
	ASSERT_NEAR(rating_quick_window(0), 100, 0);
	ASSERT_NEAR(rating_quick_window(9999), 100, 0);
	ASSERT_NEAR(rating_quick_window(10000), 150, 0);
	ASSERT_NEAR(rating_quick_window(35000), 250, 0);
}

int
main(void)
{
	RUN(new_account);
	RUN(game_win);
	RUN(established);
	RUN(quick_window);
	TEST_END();
}
