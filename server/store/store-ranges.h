/*
 * store-ranges.h: how a history request (struct store_history_query) is read by key, for every
 * backend (store-ranges.c): the ranges of the history indexes it takes, each read in history
 * order and cut at the page's end (the finished public games; one seat's games of an account or
 * of a guest's player id, public or private, perhaps only those with a given account at the
 * other seat), and the kept counts that give its total. A backend turns each range into its own
 * query on the index of the same name; the page sorts what the ranges give, so it costs the
 * page, not the player's games.
 */
#ifndef HOKITO_SERVER_STORE_RANGES_H
#define HOKITO_SERVER_STORE_RANGES_H

#include <stddef.h>

#include "store-port.h"

/* One range of the history indexes. The param numbers are the queries' own: 4 the asker's
 * account, 5 the asker's id, 6 the player's account, 7 the player's id. */
struct store_range {
	int seat;   /* 0 or 1; -1: every public game */
	int guest;  /* by the seat's player id (a guest), not its account */
	int param;  /* who: 4 own account, 5 own id, 6 player's account, 7 player's id */
	int priv;   /* the private games, else the public ones */
	int versus; /* only those with the player's account (6) at the other seat */
	int kept;   /* its games are in a kept count (store_ranges()), else counted by index */
};

#define STORE_RANGES_MAX 4 /* at most, in a query */

/*
 * The ranges of query q into r (room for STORE_RANGES_MAX), and the kept counts of its total
 * into kept[0..2) ("" for none): the public games, an account's public or private games. The
 * guest's own games and the asker's private games with another player have no kept count (ranges
 * with kept 0: an index count, of the asker's own games). Returns how many ranges (0: none to
 * list).
 */
size_t store_ranges(const struct store_history_query *q, struct store_range *r, char kept[2][32]);

#endif
