/*
 * rng.h: the deterministic random numbers behind every seeded start position.
 *
 * A splitmix64 generator: a plain 64-bit state, no globals, the same stream on every machine. The
 * exact procedure is part of the documented formats (FORMATS.md), because a recorded seed must
 * replay the same game forever: never change the constants or the way rng_below draws.
 */
#ifndef HOKITO_COMMON_RNG_H
#define HOKITO_COMMON_RNG_H

#include <stdint.h>

struct rng {
	uint64_t state;
};

/* Start a generator from a seed. */
void rng_init(struct rng *r, uint64_t seed);

/* The next 64 random bits (splitmix64). */
uint64_t rng_next(struct rng *r);

/* A number in [0, bound), bound > 0, without modulo bias (rejection sampling). */
uint32_t rng_below(struct rng *r, uint32_t bound);

#endif
