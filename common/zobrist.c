/*
 * zobrist.c: Zobrist keys of HOKITO and OXONO positions.
 *
 * Keys are computed from scratch at every node: the search only sees positions through game.h
 * and copies them to undo, so there is no make/unmake to update a key incrementally, and a pass
 * over at most 36 occupied squares costs less than generating the moves. This module reads the
 * games' own structs (hokito.h, oxono.h), owns only the caller's tables, never allocates.
 */
#include "zobrist.h"
#include "rng.h"

void
zobrist_init(struct zobrist *z, uint64_t seed)
{
	struct rng r;

	rng_init(&r, seed ^ 0x5a0b7157ULL);
	for (int sq = 0; sq < 36; sq++)
		for (int k = 0; k < 6; k++)
			for (int h = 0; h < 37; h++)
				z->hk[sq][k][h] = rng_next(&r);
	for (int sq = 0; sq < 36; sq++)
		for (int k = 0; k < 4; k++)
			z->ox[sq][k] = rng_next(&r);
	for (int t = 0; t < 2; t++)
		for (int sq = 0; sq < 36; sq++)
			z->totem[t][sq] = rng_next(&r);
	z->side = rng_next(&r);
	z->kind = rng_next(&r);
}

static uint64_t
zobrist_hokito(const struct zobrist *z, const struct hokito *h)
{
	uint64_t key = h->side ? z->side : 0;

	for (uint64_t b = h->occ; b; b &= b - 1) {
		int sq = __builtin_ctzll(b);
		int colour = (h->top[1] >> sq) & 1;
		key ^= z->hk[sq][colour * 3 + h->topval[sq] - 1][h->height[sq]];
	}
	return key;
}

static uint64_t
zobrist_oxono(const struct zobrist *z, const struct oxono *x)
{
	uint64_t key = z->kind ^ (x->side ? z->side : 0);

	key ^= z->totem[0][x->totem[0]] ^ z->totem[1][x->totem[1]];
	for (uint64_t b = x->colour[0] | x->colour[1]; b; b &= b - 1) {
		int sq = __builtin_ctzll(b);
		int k = (int)((x->colour[1] >> sq) & 1) * 2 + (int)((x->symbol[1] >> sq) & 1);
		key ^= z->ox[sq][k];
	}
	return key;
}

uint64_t
zobrist_key(const struct zobrist *z, const struct game *g)
{
	if (g->kind == GAME_HOKITO)
		return zobrist_hokito(z, &g->u.hk);
	return zobrist_oxono(z, &g->u.ox);
}
