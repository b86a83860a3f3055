/*
 * game.h: the one game interface that every game kind implements (HOKITO, OXONO).
 *
 * The server, the client, the engine tool and the bots are written once against this interface
 * and never look inside a game's own representation: each call goes to the game's class
 * (game-class.h), found in the registry (games.h) by the value's kind. A `struct game` is a plain
 * value: copy it to keep a position, assign it to undo a move. Nothing here allocates, does I/O or
 * keeps global state; every function is safe to call from any thread on distinct values.
 *
 * Squares are numbered 0..35: square = rank_index * 6 + file_index, so a1 = 0, f1 = 5, a6 = 30,
 * f6 = 35. The text formats (positions, moves) are documented in common/FORMATS.md.
 */
#ifndef HOKITO_COMMON_GAME_H
#define HOKITO_COMMON_GAME_H

#include <stddef.h>
#include <stdint.h>

#include "game-base.h"
#include "game-class.h"
#include "games.h"

/*
 * The state of one game: a plain value. The game's own state struct lives in state[], read and
 * written only by its class's hooks; GAME_STATE_MAX is the largest any game may need.
 */
struct game {
	enum game_kind kind;
	_Alignas(8) unsigned char state[GAME_STATE_MAX]; /* the class's state struct */
};

/* The class of g's kind. Borrowed, static. */
static inline const struct game_class *
game_class(const struct game *g)
{
	return game_class_of(g->kind);
}

/* Parse a game kind name ("hokito", "oxono", ...). Returns 0 or GAME_EINVAL. */
int game_kind_parse(const char *name, enum game_kind *kind);

/* The lower-case name of a game kind ("hokito", "oxono"). Returns a static string. */
const char *game_kind_name(enum game_kind kind);

/*
 * Write the names of every kind into buf, joined by sep and the last two by last: ("hokito or
 * oxono" with ", " and " or "). Returns the length, or GAME_ENOSPC.
 */
int game_kind_list(char *buf, size_t size, const char *sep, const char *last);

/* The name of a game kind for people ("HOKITO", "OXONO"). Returns a static string. */
const char *game_kind_title(enum game_kind kind);

/* The title after "a" or "an", for sentences: "a HOKITO", "an OXONO". Returns a static string. */
const char *game_kind_a_title(enum game_kind kind);

/* Whether a kind has a fact (enum game_facts: scores, reserves). */
int game_kind_has(enum game_kind kind, unsigned fact);

/*
 * The name of a side: side 0 moves first ("black" in HOKITO, "pink" in OXONO), side 1 second
 * ("white" in HOKITO, "black" in OXONO). Returns a static string.
 */
const char *game_side_name(enum game_kind kind, int side);

/* Parse a side name of this game kind ("black", "white", "pink", or the letters). */
int game_side_parse(enum game_kind kind, const char *name, int *side);

/*
 * Whether a variant name exists for a kind. NULL and "" mean "standard". Returns 0 or
 * GAME_EINVAL, with the reason in err (which may be NULL).
 */
int game_variant_check(enum game_kind kind, const char *variant, struct game_error *err);

/*
 * Set up the start position of a game, drawing its randomness from seed alone (see FORMATS.md
 * for the exact procedure), so the same kind, variant and seed always give the same position.
 * Returns 0, or GAME_EINVAL for an unknown variant.
 */
int game_start(struct game *g, enum game_kind kind, const char *variant, uint64_t seed,
               struct game_error *err);

/*
 * Parse a position text of the given kind into g. Returns 0, or GAME_ESYNTAX with err saying
 * what is wrong and where. g is left unspecified on error.
 */
int game_parse(struct game *g, enum game_kind kind, const char *text, struct game_error *err);

/*
 * Write the position text of g into buf (NUL-terminated). Returns the length written, or
 * GAME_ENOSPC if size is too small (GAME_TEXT_MAX always suffices).
 */
int game_format(const struct game *g, char *buf, size_t size);

/* The side to move: 0 or 1. */
static inline int
game_side(const struct game *g)
{
	return game_class(g)->side_to_move(g->state);
}

/* Number of moves played since the start position (counted from the position's pawns). */
static inline int
game_ply(const struct game *g)
{
	return game_class(g)->ply(g->state);
}

/*
 * Fill moves (room for GAME_MOVES_MAX) with every legal move of the side to move, in a fixed
 * order. Returns the count; 0 when the game is over.
 */
static inline int
game_moves(const struct game *g, struct game_move *moves)
{
	return game_class(g)->moves(g->state, moves);
}

/*
 * Parse a move text and check that it is legal in g. Returns 0 with *m set, GAME_ESYNTAX for a
 * malformed text, GAME_EILLEGAL for a move the rules refuse (err says why), GAME_EOVER when the
 * game is over.
 */
int game_move_parse(const struct game *g, const char *text, struct game_move *m,
                    struct game_error *err);

/* Write the canonical text of move m into buf. Returns its length or GAME_ENOSPC. */
int game_move_format(enum game_kind kind, struct game_move m, char *buf, size_t size);

/* Whether m is one of the legal moves of g. */
int game_move_legal(const struct game *g, struct game_move m);

/* Apply a legal move. The caller guarantees legality (game_move_parse or game_moves). */
static inline void
game_apply(struct game *g, struct game_move m)
{
	game_class(g)->apply(g->state, m);
}

/* How the game stands: over or not, who won, and the scores. */
void game_outcome(const struct game *g, struct game_outcome *o);

/* Whether the game is over. */
static inline int
game_over(const struct game *g)
{
	return game_class(g)->over(g->state);
}

/*
 * The leaf count of the move tree of the given depth below g (perft). A finished game has no
 * moves, so its subtree counts 0 below depth 0.
 */
uint64_t game_perft(const struct game *g, int depth);

/* The text of the whole stack on a square, bottom to top ("w1b3"), or "-" (HOKITO); the cell
 * text (OXONO). Returns the length or GAME_ENOSPC. */
int game_cell_format(const struct game *g, int sq, char *buf, size_t size);

/* The pawns of a symbol (0 X, 1 O) that side still has to place, in a game with reserves
 * (GAME_HAS_RESERVES: OXONO); 0 in a game without. */
int game_reserve(const struct game *g, int side, int symbol);

/* The squares (a1 bit 0) of the lines of four or more a game won by a line ends with (OXONO:
 * every row or column run of one colour or one symbol); 0 in a game without lines, or none. */
uint64_t game_line(const struct game *g);

#endif
