/*
 * game-base.h: what every game and the game interface (game.h) share: error codes and the error
 * struct, game kinds, moves and outcomes, and the few helpers every rules file uses (square names,
 * error filling, bit tricks, the layout of the Zobrist keys). A rules file includes this and
 * game-class.h, never another game's file. The helpers live in game-base.c.
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

/*
 * A game kind is its index in the registry (games.c, game_classes[]): the two games of the
 * program are named here; a test build may register more (tests/toy/), up to GAME_KINDS_MAX.
 */
enum game_kind {
	GAME_HOKITO = 0,
	GAME_OXONO = 1,
};
#define GAME_KINDS_MAX 8

/*
 * The room of a game's state inside struct game (game.h): every game's state struct must fit
 * (each rules file checks with static_assert). HOKITO's is the largest; a larger one would make
 * every copy of a position in the search dearer, so raise it only with care.
 */
#define GAME_STATE_MAX 400

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

/*
 * The Zobrist keys (zobrist.h) are one flat table of random numbers filled from a seed; each game's
 * hash hook reads its part at these offsets, so the games never share keys. A new game may reuse
 * any part and tell its keys apart by XORing GAME_KEY_KIND rotated by its kind.
 */
enum game_key {
	GAME_KEYS_HOKITO = 0,                       /* [square][colour * 3 + value - 1][height] */
	GAME_KEYS_OXONO = 36 * 6 * 37,              /* pawns [square][colour * 2 + symbol] */
	GAME_KEYS_TOTEM = GAME_KEYS_OXONO + 36 * 4, /* OXONO totems [symbol][square] */
	GAME_KEY_SIDE = GAME_KEYS_TOTEM + 2 * 36,   /* XORed in when side 1 is to move */
	GAME_KEY_KIND,                              /* XORed in by OXONO (rotated by other kinds) */
	GAME_KEYS,
};

/* Fill err (if not NULL) and return code: the one way errors are reported in common/. */
int game_error_set(struct game_error *err, int code, int pos, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 4, 5)))
#endif
        ;

/* Parse a square name ("a1".."f6"). Returns the square, or GAME_ESYNTAX. */
int game_square_parse(const char *text);

/* Write a square's name (3 bytes with the NUL). */
void game_square_name(int sq, char buf[3]);

/* Bit tricks on 36-square bitboards, inlined even at -O2 (the games' hot paths use them). */
#if defined(__GNUC__)
#define GAME_HOT static inline __attribute__((always_inline))
#else
#define GAME_HOT static inline
#endif

/* The number of squares in b. */
GAME_HOT int
game_popcount(uint64_t b)
{
	return __builtin_popcountll(b);
}

/* The lowest square of b (b != 0). */
GAME_HOT int
game_lowest(uint64_t b)
{
	return __builtin_ctzll(b);
}

#endif
