/*
 * oxono.h: the rules of OXONO, totems and four in a row on a 6x6 board.
 *
 * The position is a handful of bitboards (pawns by colour and by symbol), the two totems'
 * squares, the reserves and the side to move. Nothing here allocates or does I/O. Side 0 is Pink
 * (moves first), side 1 is Black; symbol 0 is X, symbol 1 is O. Callers normally use game.h,
 * through the class oxono_class (at the end of oxono.c, with the evaluation and hashing).
 */
#ifndef HOKITO_COMMON_OXONO_H
#define HOKITO_COMMON_OXONO_H

#include "game-base.h"
#include "game-class.h"

struct oxono {
	uint64_t colour[2];    /* bitboards: pawns of Pink (0) / Black (1) */
	uint64_t symbol[2];    /* bitboards: pawns showing X (0) / O (1) */
	uint8_t totem[2];      /* squares of totem X (0) and totem O (1) */
	uint8_t reserve[2][2]; /* [colour][symbol]: pawns still to place, 8 at the start */
	uint8_t side;          /* side to move */
	uint8_t end;           /* enum game_end; FULL also when the mover has no pawn left */
	int8_t winner;         /* side that made a line, -1 otherwise */
};

/* The class of OXONO (game-class.h), listed in the registry (games.c). */
extern const struct game_class oxono_class;

/* An OXONO win at ply p scores EVAL_WIN + EVAL_UNIT * (OXONO_WIN_PLY - p): sooner is better. */
#define OXONO_WIN_PLY 33

/* Set up the start position; seed decides which of c3/d4 holds totem X. */
void oxono_start(struct oxono *x, uint64_t seed);

/* Parse a position text. Returns 0 or GAME_ESYNTAX with err filled. */
int oxono_parse(struct oxono *x, const char *text, struct game_error *err);

/* Write the position text. Returns its length or GAME_ENOSPC. */
int oxono_format(const struct oxono *x, char *buf, size_t size);

/* Write one square's cell text ("-", "X", "O", "px", ...). Returns its length or GAME_ENOSPC. */
int oxono_cell_format(const struct oxono *x, int sq, char *buf, size_t size);

/*
 * All legal moves of the side to move (0 if the game is over), in ascending (from, to, place)
 * order: totem X first, then by the totem's square, then by the pawn's square. Returns the count,
 * at most 1250 (see oxono.c), so GAME_MOVES_MAX entries always suffice.
 */
int oxono_moves(const struct oxono *x, struct game_move *moves);

/*
 * Parse a move ("Xc5+c6") and check it. Returns 0 with *m set, GAME_ESYNTAX (malformed),
 * GAME_EOVER (finished game) or GAME_EILLEGAL with the first rule the move breaks in err.
 */
int oxono_move_parse(const struct oxono *x, const char *text, struct game_move *m,
                     struct game_error *err);

/* Write a move as "Xc5+c6". Returns its length or GAME_ENOSPC. */
int oxono_move_format(struct game_move m, char *buf, size_t size);

/* Apply a legal move: move the totem, place the pawn, settle a line or a full board. */
void oxono_apply(struct oxono *x, struct game_move m);

/* Over or not, and the winner (the side that made a line; -1 for a draw or a game on). */
void oxono_outcome(const struct oxono *x, struct game_outcome *o);

/* Moves played: pawns on the board. */
int oxono_ply(const struct oxono *x);

/* Perft leaf count: 1 at depth 0; a finished game has no moves, so 0 at any depth >= 1. */
uint64_t oxono_perft(const struct oxono *x, int depth);

#endif
