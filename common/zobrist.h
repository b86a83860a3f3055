/*
 * zobrist.h: Zobrist keys of positions of every game, for the search's transposition table.
 *
 * A key is the XOR of one random 64-bit number per feature of the position; which features, is
 * the game's hash hook (game-class.h): in HOKITO, each occupied square's top colour, top value
 * and height (all that the rules and the score read); in OXONO, each pawn's colour and symbol and
 * each totem's square (the reserves follow from the board). The side to move and the game kind
 * have numbers of their own. The table lives in a caller-owned struct, filled once from a seed:
 * no globals, no allocation.
 */
#ifndef HOKITO_COMMON_ZOBRIST_H
#define HOKITO_COMMON_ZOBRIST_H

#include <stdint.h>

#include "game.h"

struct zobrist {
	uint64_t key[GAME_KEYS]; /* laid out as enum game_key (game-base.h) says */
};

/* Fill the tables from seed (the same seed always gives the same keys). */
void zobrist_init(struct zobrist *z, uint64_t seed);

/* The key of a position, computed from scratch by its class's hash hook. */
static inline uint64_t
zobrist_key(const struct zobrist *z, const struct game *g)
{
	return game_class(g)->hash(g->state, z->key);
}

#endif
