/*
 * rating.h: the accounts' Glicko-2 ratings as the game layer keeps them, one per account and game
 * kind, in memory on the loop's thread, and the rules that use them: a rated game's change for both
 * seats, the rating a player object shows, and the window of the rated quick pool.
 *
 * Every ratings row of the store is loaded at start (rating_book_put() for each), so the loop
 * never reads the disk for a rating; a rated game's end changes the book at once
 * (rating_book_game()) and the caller writes the same change to the store in the game's end
 * transaction (durable.c). An account without a row in a kind is new there: 1500, 350, 0.06.
 * Part of the game layer: no libuv, no I/O, no clock (times are parameters).
 */
#ifndef HOKITO_SERVER_RATING_H
#define HOKITO_SERVER_RATING_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "glicko.h"
#include "store-port.h"
#include "strmap.h"

/* The rated quick pool's window: +-RATING_WINDOW_START points at first, RATING_WINDOW_STEP
 * wider every RATING_WINDOW_EVERY_MS waited (PROTOCOL.md quick). */
#define RATING_WINDOW_START    100.0
#define RATING_WINDOW_STEP     50.0
#define RATING_WINDOW_EVERY_MS 10000

/* The window of the pair rule (--pair-rated): rated games of two accounts in any 24 hours. */
#define RATING_PAIR_WINDOW_MS (24 * 3600 * 1000LL)

/* Refusals a log line counts (rating_book_log_due()), one kind per event_unrated word. */
#define RATING_LOG_EVERY_MS 10000

struct rating_book {
	struct strmap by_key; /* "account:kind" -> struct rating_entry (owned) */
	struct strmap pairs;  /* "lo:hi" accounts -> struct rating_pair (owned): their last games */
	size_t pairs_swept;   /* pairs held after the last sweep of the stale ones */
	struct {
		int64_t at;     /* when the last line of this kind was written (lobby time) */
		unsigned count; /* refusals since */
	} log[EVENT_UNRATED_COUNT];
};

/* Set up an empty book. */
void rating_book_init(struct rating_book *b);

/* Free every entry. Safe on a zeroed book. */
void rating_book_close(struct rating_book *b);

/* Remember row (copied), replacing the account's entry of its kind. */
void rating_book_put(struct rating_book *b, const struct store_rating *row);

/* The account's row of kind, or NULL when it never played a rated game of it. Borrowed. */
const struct store_rating *rating_book_find(const struct rating_book *b, int64_t account,
                                            enum game_kind kind);

/* The account's current values in kind (a new player's without a row) into *out. */
void rating_book_glicko(const struct rating_book *b, int64_t account, enum game_kind kind,
                        struct glicko *out);

/* The account's rating in kind as shown ("1623", "1500?") into buf (GLICKO_DISPLAY_MAX). */
void rating_book_display(const struct rating_book *b, int64_t account, enum game_kind kind,
                         char *buf, size_t size);

/*
 * A rated game of kind between account[0] and account[1] ended with seat 0's score score0 (1,
 * 0.5, 0): both are rated from their values before it (glicko_rate_game()), the book takes the
 * new values and counts, and out[i] gets seat i's change. Returns 0, or
 * GLICKO_EINVAL (nothing changed) for values glicko refuses.
 */
int rating_book_game(struct rating_book *b, enum game_kind kind, const int64_t account[2],
                     double score0, struct event_rating_change out[2]);

/*
 * The pair rule (PROTOCOL.md 14): how many rated games between accounts a and c changed their
 * ratings at a time after since (the caller's time: lobby time), any kind.
 */
unsigned rating_book_pair_count(const struct rating_book *b, int64_t a, int64_t c, int64_t since);

/*
 * Remember a rated game between a and c that changed their ratings at time at: the pair keeps
 * its games after since, at most keep of them (the newest). Pairs with no game after since are
 * forgotten now and then, so the book holds the pairs of the last window only.
 */
void rating_book_pair_add(struct rating_book *b, int64_t a, int64_t c, int64_t at, int64_t since,
                          unsigned keep);

/*
 * Count one game of why that was not rated; returns the count to log now (the refusals since
 * the last line, this one included) when no line of why was written in the last
 * RATING_LOG_EVERY_MS before now, else 0 (the caller writes nothing).
 */
unsigned rating_book_log_due(struct rating_book *b, enum event_unrated why, int64_t now);

/* How far apart (in rating points) two players of the rated quick pool may be paired after the
 * longer waiter waited waited_ms. */
double rating_quick_window(uint64_t waited_ms);

#endif
