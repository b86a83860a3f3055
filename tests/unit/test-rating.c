/*
 * test-rating.c: the book of the accounts' ratings (server/accounts/rating.h): new accounts, a rated
 * game's change and counts, the best non-provisional rating, the display, and the window of the
 * rated quick pool; the pair rule's book of a pair's last rated games, and the log's pace.
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
/*
 * The pair rule's book: a pair's games after `since` in either order of the accounts, the
 * newest `keep` kept, others' pairs apart; the stale pairs of thousands swept as the book grows.
 */
TEST(pairs)
{
	struct rating_book b;
	const int64_t day = RATING_PAIR_WINDOW_MS;

	rating_book_init(&b);
	ASSERT_EQ(rating_book_pair_count(&b, 1, 2, 0), 0u);
	rating_book_pair_add(&b, 1, 2, 1000, 1000 - day, 3);
	rating_book_pair_add(&b, 2, 1, 2000, 2000 - day, 3);
	rating_book_pair_add(&b, 1, 3, 2500, 2500 - day, 3);
	ASSERT_EQ(rating_book_pair_count(&b, 2, 1, 0), 2u);
	ASSERT_EQ(rating_book_pair_count(&b, 1, 2, 1000), 1u); /* after 1000, not at it */
	ASSERT_EQ(rating_book_pair_count(&b, 3, 1, 0), 1u);
	ASSERT_EQ(rating_book_pair_count(&b, 2, 3, 0), 0u);
	/* out of order (a restart's load), and past keep: the newest three */
	rating_book_pair_add(&b, 1, 2, 1500, 3000 - day, 3);
	rating_book_pair_add(&b, 1, 2, 3000, 3000 - day, 3);
	ASSERT_EQ(rating_book_pair_count(&b, 1, 2, 0), 3u);
	ASSERT_EQ(rating_book_pair_count(&b, 1, 2, 1400), 3u); /* 1000 was dropped */
	ASSERT_EQ(rating_book_pair_count(&b, 1, 2, 1600), 2u);
	/* a day later the pair's games are out of the window */
	ASSERT_EQ(rating_book_pair_count(&b, 1, 2, 3000), 0u);
	/* many pairs, all stale but the last: swept as the book grows */
	for (int64_t i = 0; i < 5000; i++)
		rating_book_pair_add(&b, 100 + i, 200000 + i, 10 * i, 10 * i - 100, 3);
	ASSERT(strmap_count(&b.pairs) < 5000);
	ASSERT_EQ(rating_book_pair_count(&b, 100 + 4999, 200000 + 4999, 0), 1u);
	rating_book_close(&b);
}

/* A log line of a reason at most once in RATING_LOG_EVERY_MS, with the count since. */
TEST(log_pace)
{
	struct rating_book b;

	rating_book_init(&b);
	ASSERT_EQ(rating_book_log_due(&b, EVENT_UNRATED_SHORT, 0), 1u);
	ASSERT_EQ(rating_book_log_due(&b, EVENT_UNRATED_SHORT, 5), 0u);
	ASSERT_EQ(rating_book_log_due(&b, EVENT_UNRATED_SAME_ADDRESS, 6), 1u); /* its own pace */
	ASSERT_EQ(rating_book_log_due(&b, EVENT_UNRATED_SHORT, 9999), 0u);
	ASSERT_EQ(rating_book_log_due(&b, EVENT_UNRATED_SHORT, RATING_LOG_EVERY_MS + 1), 3u);
	rating_book_close(&b);
}

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
	RUN(pairs);
	RUN(log_pace);
	TEST_END();
}
