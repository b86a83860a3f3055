/*
 * pool.c: the rule of the rated quick pool (pool.h). The players of a pool are taken in the order
 * of their waits, longest first, each pairing with the closest rating that both windows allow:
 * who waited longest is served first, and a pair is never two players either of whose windows
 * does not reach the other (PROTOCOL.md quick). To look only inside a window, the waiters are
 * also sorted by rating, kept in a list of those not yet paired, and each waiter walks that list
 * outwards from its own place until the ratings are farther than its window or than the best
 * partner found. It owns nothing past a call (two scratch arrays) and never reads the clock.
 */
#include <stdlib.h>

#include "pool.h"
#include "rating.h"
#include "xmalloc.h"

/* A waiter's place in the sorts: its index, with the keys. */
struct pool_slot {
	size_t i;
	double rating;
	uint64_t since;
};

/* Longest waiting first, then by index. */
static int
by_wait(const void *a, const void *b)
{
	const struct pool_slot *x = a, *y = b;

	if (x->since != y->since)
		return x->since < y->since ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Lowest rating first, then by index. */
static int
by_rating(const void *a, const void *b)
{
	const struct pool_slot *x = a, *y = b;

	if (x->rating != y->rating)
		return x->rating < y->rating ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The window of w at now (its wait so far; a waiter from the future has waited nothing). */
static double
window_of(const struct pool_waiter *w, uint64_t now)
{
	return rating_quick_window(now > w->since ? now - w->since : 0);
}

int
pool_accepts(const struct pool_waiter *a, const struct pool_waiter *b, uint64_t now)
{
	double d = a->rating > b->rating ? a->rating - b->rating : b->rating - a->rating;

	return d <= window_of(a, now) && d <= window_of(b, now);
}

/* Whether candidate c beats the best so far (POOL_NONE: none) for a partner at distance d. */
static int
better(const struct pool_waiter *w, size_t c, double d, size_t best, double best_d)
{
	if (best == POOL_NONE || d < best_d)
		return 1;
	if (d > best_d)
		return 0;
	if (w[c].since != w[best].since)
		return w[c].since < w[best].since;
	return c < best;
}

size_t
pool_pair(const struct pool_waiter *w, size_t n, uint64_t now, size_t *partner)
{
	struct pool_slot *wait, *rank;
	size_t *place, *prev, *next, pairs = 0; /* place: i's position in rank; links by position */

	for (size_t i = 0; i < n; i++)
		partner[i] = POOL_NONE;
	if (n < 2)
		return 0;
	wait = xmalloc(n * sizeof *wait);
	rank = xmalloc(n * sizeof *rank);
	place = xmalloc(3 * n * sizeof *place);
	prev = place + n;
	next = prev + n;
	for (size_t i = 0; i < n; i++)
		wait[i] = rank[i] = (struct pool_slot){i, w[i].rating, w[i].since};
	qsort(wait, n, sizeof *wait, by_wait);
	qsort(rank, n, sizeof *rank, by_rating);
	for (size_t p = 0; p < n; p++) {
		place[rank[p].i] = p;
		prev[p] = p > 0 ? p - 1 : POOL_NONE;
		next[p] = p + 1 < n ? p + 1 : POOL_NONE;
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = wait[k].i, best = POOL_NONE, p = place[i];
		double reach = window_of(&w[i], now), best_d = 0;

		if (partner[i] != POOL_NONE)
			continue;
		/* outwards on both sides, while inside i's window and not past the best found */
		for (int side = 0; side < 2; side++)
			for (size_t q = side ? next[p] : prev[p]; q != POOL_NONE;
			     q = side ? next[q] : prev[q]) {
				size_t c = rank[q].i;
				double d = side ? w[c].rating - w[i].rating
				                : w[i].rating - w[c].rating;

				if (d > reach || (best != POOL_NONE && d > best_d))
					break;
				if (pool_accepts(&w[i], &w[c], now) &&
				    better(w, c, d, best, best_d)) {
					best = c;
					best_d = d;
				}
			}
		if (best == POOL_NONE)
			continue;
		partner[i] = best;
		partner[best] = i;
		pairs++;
		/* both leave the list of those not yet paired */
		size_t gone[2] = {p, place[best]};
		for (int g = 0; g < 2; g++) {
			size_t q = gone[g];

			if (prev[q] != POOL_NONE)
				next[prev[q]] = next[q];
			if (next[q] != POOL_NONE)
				prev[next[q]] = prev[q];
		}
	}
	free(wait);
	free(rank);
	free(place);
	return pairs;
}

uint64_t
pool_next_widening(uint64_t since, uint64_t now)
{
	uint64_t steps = now >= since ? (now - since) / RATING_WINDOW_EVERY_MS + 1 : 0;

	if (steps > (UINT64_MAX - since) / RATING_WINDOW_EVERY_MS)
		return UINT64_MAX;
	return since + steps * RATING_WINDOW_EVERY_MS;
}
