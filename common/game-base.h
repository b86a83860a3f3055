/*
 * game-base.h: the plain types shared by the game interface (game.h) and the two games behind it
 * (hokito.h, oxono.h): error codes and the error struct, game kinds, moves and outcomes.
 * Declarations only; no functions live here.
 */
#ifndef HOKITO_COMMON_GAME_BASE_H
#define HOKITO_COMMON_GAME_BASE_H

#include <stddef.h>
#include <stdint.h>

#define GAME_SQUARES   36
#define GAME_MOVES_MAX 2048 /* more than the legal moves of any position of either game */
#define GAME_TEXT_MAX  256  /* enough for any position text, with its terminating NUL */
#define GAME_MOVE_TEXT 32   /* enough for any move text (HOKITO paths included) */

/* Error codes: every function that can fail returns 0 or one of these. */
enum game_errno {
	GAME_ESYNTAX = -1,  /* malformed text: position, move, square, variant */
	GAME_EILLEGAL = -2, /* well-formed move that the rules do not allow here */
	GAME_EOVER = -3,    /* the game is over: no move is possible */
	GAME_EINVAL = -4,   /* an argument is out of range (unknown game kind or variant) */
	GAME_ENOSPC = -5,   /* the caller's buffer is too small */
};

/* What went wrong, for a person: filled by parsers like jansson's json_error_t. */
struct game_error {
	int code;       /* one of enum game_errno */
	int pos;        /* byte offset in the parsed text where the problem is, or -1 */
	char text[160]; /* one sentence, no trailing newline */
};

enum game_kind {
	GAME_HOKITO = 0,
	GAME_OXONO = 1,
};

/* Why a game ended. */
enum game_end {
	GAME_END_NONE = 0,    /* still going */
	GAME_END_BLOCKED = 1, /* HOKITO: a player has no legal move */
	GAME_END_LINE = 2,    /* OXONO: a line of four of one colour or one symbol */
	GAME_END_FULL = 3,    /* OXONO: all 32 pawns placed without a line */
};

/*
 * A move of either game. Fields a game does not use are zero, so two moves are equal exactly
 * when all three fields are equal.
 */
struct game_move {
	uint8_t from;  /* HOKITO: origin square; OXONO: totem symbol, 0 = X, 1 = O */
	uint8_t to;    /* HOKITO: destination square; OXONO: the totem's new square */
	uint8_t place; /* OXONO: square of the placed pawn; HOKITO: 0 */
};

/* How the game stands: filled by game_outcome(). */
struct game_outcome {
	enum game_end end; /* GAME_END_NONE while the game goes on */
	int winner;        /* side 0 or 1, or -1 for a draw or while the game goes on */
	int score[2];      /* HOKITO: each side's score (also while it goes on); OXONO: 0 */
};

#endif
