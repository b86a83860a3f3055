/*
 * games.h: the registry of game kinds: every struct game_class the program knows, by kind.
 *
 * The table itself is games.c, one line per kind. A test build may link its own copy of games.c
 * compiled with more lines (tests/toy/); nothing else in the program lists kinds.
 */
#ifndef HOKITO_COMMON_GAMES_H
#define HOKITO_COMMON_GAMES_H

#include <assert.h>

#include "game-class.h"

/* The classes, indexed by enum game_kind; game_class_count of them. */
extern const struct game_class *const game_classes[];
extern const int game_class_count;

/* The class of a kind (kind < game_class_count: the caller's invariant). Borrowed, static. */
static inline const struct game_class *
game_class_of(enum game_kind kind)
{
	assert((int)kind >= 0 && (int)kind < game_class_count);
	return game_classes[kind];
}

#endif
