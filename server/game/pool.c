/*
 * pool.c: the rule of the rated quick pool (pool.h). The players of a pool are taken in the order
 * of their waits, longest first, each pairing with the closest rating that both windows allow:
 * who waited longest is served first, and a pair is never two players either of whose windows
 * does not reach the other (PROTOCOL.md quick). So that a pool of thousands costs milliseconds,
 * not seconds, each waiter looks at two others per class of equal windows (pool_pair()). It owns
 * nothing past a call (scratch arrays) and never reads the clock.
 */
#include <stdlib.h>

#include "pool.h"
#include "rating.h"
#include "xmalloc.h"

/* A waiter's place in the sort: its index, its window class, its keys. */
struct pool_slot {
	size_t i;
	uint64_t k; /* window class: whole 10 s waited, capped where the window covers all */
	double rating;
	uint64_t since;
};

/* By class, then by rating, then longest waiting, then by index. */
static int
by_class(const void *a, const void *b)
{
	const struct pool_slot *x = a, *y = b;

	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	if (x->rating != y->rating)
		return x->rating < y->rating ? -1 : 1;
	if (x->since != y->since)
		return x->since < y->since ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The wait of w at now (a waiter from the future has waited nothing). */
static uint64_t
waited(const struct pool_waiter *w, uint64_t now)
{
	return now > w->since ? now - w->since : 0;
}

int
pool_accepts(const struct pool_waiter *a, const struct pool_waiter *b, uint64_t now)
{
	double d = a->rating > b->rating ? a->rating - b->rating : b->rating - a->rating;

	return d <= rating_quick_window(waited(a, now)) && d <= rating_quick_window(waited(b, now));
}

/* The first position at or after p still in the pool (the links skip the others). */
static size_t
alive_right(size_t *right, size_t p)
{
	size_t root = p, next;

	while (right[root] != root)
		root = right[root];
	for (; p != root; p = next) {
		next = right[p];
		right[p] = root;
	}
	return root;
}

/* The same leftwards, on positions shifted by one: 0 is "none". */
static size_t
alive_left(size_t *left, size_t p)
{
	size_t root = p, next;

	while (left[root] != root)
		root = left[root];
	for (; p != root; p = next) {
		next = left[p];
		left[p] = root;
	}
	return root;
}

/* The first position in [lo, hi) of slots whose rating is not below r. */
static size_t
first_at_least(const struct pool_slot *slot, size_t lo, size_t hi, double r)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (slot[mid].rating < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether c (at distance d) beats the best so far (POOL_NONE: none). */
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

/*
 * Why this is exact and fast. The waiters are taken longest waiting first, and each one, paired
 * or not, leaves the pool once it has been looked at: one who found nobody then finds nobody
 * later either, as the pool only shrinks. So the candidates of i all wait less than i, and their
 * windows are no wider than i's: a candidate c at distance d fits when d is within c's own
 * window. Waiters are grouped in classes of equal windows (those whose window covers every rating
 * of the pool form one class), each class sorted by rating: in a class, only the nearest waiter
 * on each side can fit (a farther one is farther for the same window), and of equal ratings the
 * longest waiting comes first. So i looks at two waiters per class, found by binary search and
 * links that skip those gone, and there are at most (highest - lowest rating) / 50 + 2 classes.
 */
size_t
pool_pair(const struct pool_waiter *w, size_t n, uint64_t now, size_t *partner)
{
	struct pool_slot *slot, *wait;
	size_t *place, *right, *left, *cls, ncls = 0, pairs = 0;
	double lo = 0, hi = 0;
	uint64_t kmax;

	for (size_t i = 0; i < n; i++)
		partner[i] = POOL_NONE;
	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++) {
		lo = i == 0 || w[i].rating < lo ? w[i].rating : lo;
		hi = i == 0 || w[i].rating > hi ? w[i].rating : hi;
	}
	/* past kmax widenings a window covers every rating of the pool */
	kmax = hi - lo <= RATING_WINDOW_START ? 0
	       : hi - lo > 1e12 /* not a rating: no cap that means anything */
	               ? UINT64_MAX
	               : (uint64_t)((hi - lo - RATING_WINDOW_START) / RATING_WINDOW_STEP) + 1;
	slot = xmalloc(n * sizeof *slot);
	wait = xmalloc(n * sizeof *wait);
	place = xmalloc((4 * n + 3) * sizeof *place);
	right = place + n;    /* n + 1: position n is the end */
	left = right + n + 1; /* n + 1: position p is left[p + 1]; 0 is "none" */
	cls = left + n + 1;   /* the first position of each class, then n */
	for (size_t i = 0; i < n; i++) {
		uint64_t k = waited(&w[i], now) / RATING_WINDOW_EVERY_MS;

		slot[i] = (struct pool_slot){i, k < kmax ? k : kmax, w[i].rating, w[i].since};
	}
	qsort(slot, n, sizeof *slot, by_class);
	for (size_t p = 0; p < n; p++) {
		place[slot[p].i] = p;
		right[p] = p;
		left[p + 1] = p + 1;
		if (p == 0 || slot[p].k != slot[p - 1].k)
			cls[ncls++] = p;
	}
	right[n] = n;
	left[0] = 0;
	cls[ncls] = n;
	/* the order of the waits: slots sorted again with the class and rating set aside */
	for (size_t i = 0; i < n; i++)
		wait[i] = (struct pool_slot){i, 0, 0, w[i].since};
	qsort(wait, n, sizeof *wait, by_class);
	for (size_t o = 0; o < n; o++) {
		size_t i = wait[o].i, best = POOL_NONE, p = place[i];
		double best_d = 0;

		if (partner[i] != POOL_NONE)
			continue;
		right[p] = p + 1; /* i leaves the pool, paired or not */
		left[p + 1] = p;
		for (size_t c = 0; c < ncls; c++) {
			size_t start = cls[c], end = cls[c + 1], at, q;
			double reach = rating_quick_window(slot[start].k * RATING_WINDOW_EVERY_MS);

			at = first_at_least(slot, start, end, w[i].rating);
			/* the nearest above (or equal): of equal ratings, the longest waiting */
			q = alive_right(right, at);
			if (q < end && slot[q].rating - w[i].rating <= reach &&
			    better(w, slot[q].i, slot[q].rating - w[i].rating, best, best_d)) {
				best = slot[q].i;
				best_d = slot[q].rating - w[i].rating;
			}
			/* the nearest below: the longest waiting of its rating */
			q = alive_left(left, at); /* shifted: the last one before at */
			if (q == 0 || q - 1 < start)
				continue;
			q = alive_right(right,
			                first_at_least(slot, start, q - 1, slot[q - 1].rating));
			if (w[i].rating - slot[q].rating <= reach &&
			    better(w, slot[q].i, w[i].rating - slot[q].rating, best, best_d)) {
				best = slot[q].i;
				best_d = w[i].rating - slot[q].rating;
			}
		}
		if (best == POOL_NONE)
			continue;
		partner[i] = best;
		partner[best] = i;
		pairs++;
		p = place[best];
		right[p] = p + 1;
		left[p + 1] = p;
	}
	free(wait);
	free(slot);
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
