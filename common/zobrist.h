/*
 * zobrist.h: Zobrist keys of positions of both games, for the search's transposition table.
 *
 * A key is the XOR of one random 64-bit number per feature of the position: in HOKITO, each
 * occupied square's top colour, top value and height (all that the rules and the score read); in
 * OXONO, each pawn's colour and symbol and each totem's square (the reserves follow from the
 * board). The side to move and the game kind have numbers of their own. The tables live in a
 * caller-owned struct, filled once from a seed: no globals, no allocation.
 */
#ifndef HOKITO_COMMON_ZOBRIST_H
#define HOKITO_COMMON_ZOBRIST_H

#include <stdint.h>

#include "game.h"

struct zobrist {
	uint64_t hk[36][6][37]; /* HOKITO [square][colour * 3 + value - 1][height] */
	uint64_t ox[36][4];     /* OXONO pawn [square][colour * 2 + symbol] */
	uint64_t totem[2][36];  /* OXONO totem [symbol][square] */
	uint64_t side;          /* XORed in when side 1 is to move */
	uint64_t kind;          /* XORed in for OXONO, so the two games never share keys */
};

/* Fill the tables from seed (the same seed always gives the same keys). */
void zobrist_init(struct zobrist *z, uint64_t seed);

/* The key of a position, computed from scratch. */
uint64_t zobrist_key(const struct zobrist *z, const struct game *g);

#endif
