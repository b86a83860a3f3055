/*
 * hokito.h: the rules of HOKITO, stacking and hopping on a 6x6 board.
 *
 * The position keeps the full composition of every stack (pawn identities linked bottom to top)
 * for display, and beside it what the rules actually read: a stack's top pawn and whether it is a
 * single pawn, as bitboards, and for every occupied square its nearest occupied neighbour in each
 * of the four directions (the squares a hop lands on). Nothing here allocates or does I/O. Side 0
 * is Black (moves first), side 1 is White. Callers normally use game.h instead; the class
 * hokito_class (defined at the end of hokito.c with the evaluation and hashing) is how they reach
 * it.
 */
#ifndef HOKITO_COMMON_HOKITO_H
#define HOKITO_COMMON_HOKITO_H

#include "game-base.h"
#include "game-class.h"

#define HOKITO_PAWNS 36
#define HOKITO_NONE  36 /* "no square": a link past the edge; row 36 of link[] links to itself */

struct hokito {
	uint64_t occ;               /* bitboard: squares holding a pawn or a stack */
	uint64_t single;            /* bitboard: squares holding exactly one pawn */
	uint64_t top[2];            /* bitboards: squares whose top pawn is Black (0) / White (1) */
	uint8_t link[37][4];        /* nearest occupied square north, east, south, west, or NONE */
	uint8_t topval[36];         /* value 1..3 of the square's top pawn, 0 when empty */
	uint8_t height[36];         /* pawns on the square */
	int8_t toppawn[36];         /* pawn id on top of the square, -1 when empty */
	int8_t botpawn[36];         /* pawn id at the bottom of the square, -1 when empty */
	int8_t below[HOKITO_PAWNS]; /* pawn id directly under pawn i, -1 at the bottom */
	uint8_t pawn[HOKITO_PAWNS]; /* pawn i: colour << 2 | value (colour 0 black, 1 white) */
	uint8_t npawns;             /* pawn ids in use: 0..npawns-1 */
	uint8_t side;               /* side to move */
};

/*
 * Every square the pawn or stack on sq, with top value v, reaches in exactly v hops, as a
 * bitboard. Each hop follows a link; the next hop may go any way but back (d ^ 2 is the opposite
 * of d). Links past the edge lead to HOKITO_NONE, which links to itself; its bit (36) is masked
 * off. Inline: this is the hot path of move generation, perft and the evaluation.
 */
static inline uint64_t
hokito_reach(const struct hokito *h, int sq, int v)
{
	uint64_t m = 0;

	for (int d0 = 0; d0 < 4; d0++) {
		int s1 = h->link[sq][d0];
		if (v == 1) {
			m |= 1ULL << s1;
			continue;
		}
		for (int d1 = 0; d1 < 4; d1++) {
			if (d1 == (d0 ^ 2))
				continue;
			int s2 = h->link[s1][d1];
			if (v == 2) {
				m |= 1ULL << s2;
				continue;
			}
			for (int d2 = 0; d2 < 4; d2++)
				if (d2 != (d1 ^ 2))
					m |= 1ULL << h->link[s2][d2];
		}
	}
	return m & ((1ULL << 36) - 1);
}

/* The legal destinations of the pawn or stack on sq: a single lands on a single, a stack on a
 * stack. */
static inline uint64_t
hokito_destinations(const struct hokito *h, int sq)
{
	uint64_t land = (h->single >> sq & 1) ? h->single : h->occ & ~h->single;

	return hokito_reach(h, sq, h->topval[sq]) & land;
}

/* The class of HOKITO (game-class.h), listed in the registry (games.c). */
extern const struct game_class hokito_class;

/* Standard setup (random36 = 0) or variant random36, from seed. */
void hokito_start(struct hokito *h, int random36, uint64_t seed);

/* Parse a position text. Returns 0 or GAME_ESYNTAX with err filled. */
int hokito_parse(struct hokito *h, const char *text, struct game_error *err);

/* Write the position text. Returns its length or GAME_ENOSPC. */
int hokito_format(const struct hokito *h, char *buf, size_t size);

/* Write one square's stack, bottom to top, or "-". Returns its length or GAME_ENOSPC. */
int hokito_cell_format(const struct hokito *h, int sq, char *buf, size_t size);

/* All legal moves of the side to move (0 if the game is over). Returns the count. */
int hokito_moves(const struct hokito *h, struct game_move *moves);

/* Whether side has at least one legal move (ignoring whether the game is over). */
int hokito_has_move(const struct hokito *h, int side);

/* Whether the game is over: either player has no legal move. */
int hokito_over(const struct hokito *h);

/* Parse a move ("c2-e4" or a hop path "c2-c4-e4") and check it. See game_move_parse(). */
int hokito_move_parse(const struct hokito *h, const char *text, struct game_move *m,
                      struct game_error *err);

/* Write a move as "c2-e4". Returns its length or GAME_ENOSPC. */
int hokito_move_format(struct game_move m, char *buf, size_t size);

/* Apply a legal move: the moving pawn or stack goes on top of the destination. */
void hokito_apply(struct hokito *h, struct game_move m);

/* Over or not, the winner, and both scores. */
void hokito_outcome(const struct hokito *h, struct game_outcome *o);

/* Moves played: pawns minus occupied squares. */
int hokito_ply(const struct hokito *h);

/* Perft leaf count. */
uint64_t hokito_perft(const struct hokito *h, int depth);

#endif
