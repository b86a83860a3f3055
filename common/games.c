/*
 * games.c: the registry: one line per game kind, in the order of enum game_kind.
 *
 * Adding a game is a rules file that defines its class, and one line here (common/README.md).
 * This file holds nothing else, so a test build can link its own copy of it compiled with
 * -DHOKITO_TOY_GAME in place of the library's (tests/meson.build), and gain the toy kind.
 */
#include "games.h"
#include "hokito.h"
#include "oxono.h"

#ifdef HOKITO_TOY_GAME
extern const struct game_class toy_class; /* tests/toy/toy.c */
#endif

const struct game_class *const game_classes[] = {
        &hokito_class,
        &oxono_class,
#ifdef HOKITO_TOY_GAME
        &toy_class,
#endif
};

const int game_class_count = (int)(sizeof game_classes / sizeof game_classes[0]);

_Static_assert(sizeof game_classes / sizeof game_classes[0] <= GAME_KINDS_MAX,
               "raise GAME_KINDS_MAX");
