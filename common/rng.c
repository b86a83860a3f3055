/*
 * rng.c: splitmix64, and unbiased draws below a bound.
 *
 * This module owns nothing but the caller's state value. Its output is part of the saved-game
 * contract (a seed replays a start position), so the algorithm must never change.
 */
#include "rng.h"

void
rng_init(struct rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t
rng_next(struct rng *r)
{
	uint64_t z;

	r->state += 0x9e3779b97f4a7c15ULL;
	z = r->state;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Draw uniformly in [0, bound): take the high 32 bits of a draw and reject the values in the
 * incomplete last block, so every result is equally likely.
 */
uint32_t
rng_below(struct rng *r, uint32_t bound)
{
	uint32_t limit = UINT32_MAX - (UINT32_MAX % bound);
	uint32_t x;

	do
		x = (uint32_t)(rng_next(r) >> 32);
	while (x >= limit);
	return x % bound;
}
