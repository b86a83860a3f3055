/*
 * pool.h: the rule of the rated quick pool (pool.c): which of the players waiting in one pool
 * (the same kind, variant and clock) are paired, and with whom, at a given moment. Pure: no
 * lobby, no I/O, no clock (times are parameters), so that it can be tested alone; the game
 * layer's pairing (pairing.c) gathers the waiters and applies the pairs.
 */
#ifndef HOKITO_SERVER_POOL_H
#define HOKITO_SERVER_POOL_H

#include <stddef.h>
#include <stdint.h>

/* A player waiting in the rated pool. */
struct pool_waiter {
	double rating;  /* in the pool's kind, as stored (not rounded) */
	uint64_t since; /* when it began to wait (lobby time) */
};

/* No partner (pool_pair()). */
#define POOL_NONE SIZE_MAX

/*
 * Whether a and b may be paired at now: each one's window, of its own wait
 * (rating_quick_window()), covers the other's rating. Returns 1 or 0.
 */
int pool_accepts(const struct pool_waiter *a, const struct pool_waiter *b, uint64_t now);

/*
 * Pair the n waiters w of one pool at now. The longest waiting goes first (on equal waits, the
 * lower index) and takes the closest in rating among those not yet paired that it accepts and
 * that accept it (pool_accepts(); on equal distances, the longest waiting, then the lower index);
 * then the next longest waiting not yet paired, and so on. partner[i] (n of them, filled here) is
 * the index of i's partner, or POOL_NONE. Returns the number of pairs made. O(n log n) for the
 * sorts, then O(log n) for each waiter and class of equal windows (at most (highest - lowest
 * rating) / 50 + 2 classes).
 */
size_t pool_pair(const struct pool_waiter *w, size_t n, uint64_t now, size_t *partner);

/*
 * The first moment after now at which the window of a player waiting since since widens
 * (rating_quick_window()), or UINT64_MAX past the end of the 64-bit time.
 */
uint64_t pool_next_widening(uint64_t since, uint64_t now);

#endif
