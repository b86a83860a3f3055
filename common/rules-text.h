/*
 * rules-text.h: the rules of each game in words, for people (hokito-engine rules, the client's
 * rules page). Plain ASCII, lines of at most 76 columns, each ending in a line feed.
 */
#ifndef HOKITO_COMMON_RULES_TEXT_H
#define HOKITO_COMMON_RULES_TEXT_H

#include "game-base.h"

/* The rules of kind, several paragraphs with small diagrams. Returns a static string. */
const char *rules_text_get(enum game_kind kind);

#endif
