/*
 * zobrist.c: Zobrist keys of positions, through the hash hook of the position's class.
 *
 * Keys are computed from scratch at every node: the search only sees positions through game.h
 * and copies them to undo, so there is no make/unmake to update a key incrementally, and a pass
 * over at most 36 occupied squares costs less than generating the moves. Each game's hook (in its
 * rules file) reads the table at its own offsets (enum game_key). This module owns only the
 * caller's table, never allocates.
 */
#include "zobrist.h"
#include "rng.h"

void
zobrist_init(struct zobrist *z, uint64_t seed)
{
	struct rng r;

	rng_init(&r, seed ^ 0x5a0b7157ULL);
	for (int i = 0; i < GAME_KEYS; i++)
		z->key[i] = rng_next(&r);
}
