/*
 * store-ranges.c: the ranges of the history indexes a history request reads, and the kept
 * counts of its total (store-ranges.h), the same for every backend.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "store-ranges.h"

size_t
store_ranges(const struct store_history_query *q, struct store_range *r, char kept[2][32])
{
	int own_guest = q->own_account <= 0, has_own = !own_guest || q->own_id[0] != '\0';
	int by_guest = q->player_account <= 0;
	int same = q->by_player &&
	           (!by_guest ? q->player_account == q->own_account
	                      : own_guest && has_own && strcmp(q->player_id, q->own_id) == 0);
	size_t n = 0;

	kept[0][0] = kept[1][0] = '\0';
	if (!q->by_player) {
		r[n++] = (struct store_range){.seat = -1, .kept = 1};
		snprintf(kept[0], sizeof kept[0], "finished_public");
		for (int seat = 0; has_own && seat < 2; seat++)
			r[n++] = (struct store_range){seat, own_guest, own_guest ? 5 : 4,
			                              1,    0,         !own_guest};
		if (has_own && !own_guest)
			snprintf(kept[1], sizeof kept[1], "a%" PRId64 "p", q->own_account);
		return n;
	}
	if (by_guest && !same)
		return 0; /* a guest's games are listed to that guest alone */
	for (int priv = 0; priv < 2; priv++)
		for (int seat = 0; seat < 2; seat++) {
			if (priv && !same &&
			    has_own) /* the asker's private games with the player */
				r[n++] = (struct store_range){seat, own_guest, own_guest ? 5 : 4,
				                              1,    1,         0};
			else if (!priv || same)
				r[n++] = (struct store_range){seat, by_guest, by_guest ? 7 : 6,
				                              priv, 0,        !by_guest};
		}
	if (!by_guest)
		snprintf(kept[0], sizeof kept[0], "a%" PRId64, q->player_account);
	if (!by_guest && same)
		snprintf(kept[1], sizeof kept[1], "a%" PRId64 "p", q->player_account);
	return n;
}
