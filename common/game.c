/*
 * game.c: the game interface, dispatching each call to the class of the value's kind.
 *
 * This file owns nothing and knows no game: it finds the class in the registry (games.h) and
 * calls its hook on the value's state area, so a new kind needs no line here. Like the rest of
 * common/ it never allocates and never does I/O.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "game.h"

int
game_kind_parse(const char *name, enum game_kind *kind)
{
	if (name == NULL)
		return GAME_EINVAL;
	for (int i = 0; i < game_class_count; i++) {
		if (strcmp(name, game_classes[i]->name) == 0) {
			*kind = game_classes[i]->kind;
			return 0;
		}
	}
	return GAME_EINVAL;
}

int
game_kind_list(char *buf, size_t size, const char *sep, const char *last)
{
	size_t len = 0;

	for (int i = 0; i < game_class_count; i++) {
		const char *join = i == 0 ? "" : i == game_class_count - 1 ? last : sep;
		int n = snprintf(buf + len, size - len, "%s%s", join, game_classes[i]->name);
		if (n < 0 || (size_t)n >= size - len)
			return GAME_ENOSPC;
		len += (size_t)n;
	}
	return (int)len;
}

const char *
game_kind_name(enum game_kind kind)
{
	return game_class_of(kind)->name;
}

const char *
game_kind_title(enum game_kind kind)
{
	return game_class_of(kind)->title;
}

const char *
game_kind_a_title(enum game_kind kind)
{
	return game_class_of(kind)->a_title;
}

int
game_kind_has(enum game_kind kind, unsigned fact)
{
	return (game_class_of(kind)->facts & fact) != 0;
}

const char *
game_side_name(enum game_kind kind, int side)
{
	return game_class_of(kind)->side[side != 0];
}

int
game_side_parse(enum game_kind kind, const char *name, int *side)
{
	for (int i = 0; i < 2; i++) {
		const char *s = game_class_of(kind)->side[i];
		if (strcmp(name, s) == 0 || (name[0] == s[0] && name[1] == '\0')) {
			*side = i;
			return 0;
		}
	}
	return GAME_EINVAL;
}

/* The index of a variant in the class's list (NULL and "" are "standard"), or -1. */
static int
variant_index(const struct game_class *c, const char *variant)
{
	if (variant == NULL || variant[0] == '\0')
		variant = "standard";
	for (int i = 0; c->variants[i] != NULL; i++)
		if (strcmp(variant, c->variants[i]) == 0)
			return i;
	return -1;
}

int
game_variant_check(enum game_kind kind, const char *variant, struct game_error *err)
{
	const struct game_class *c = game_class_of(kind);

	if (variant_index(c, variant) >= 0)
		return 0;
	return game_error_set(err, GAME_EINVAL, -1, "unknown variant '%.40s' for %s (known: %s)",
	                      variant, c->name, c->variant_text);
}

int
game_start(struct game *g, enum game_kind kind, const char *variant, uint64_t seed,
           struct game_error *err)
{
	const struct game_class *c = game_class_of(kind);
	int v = variant_index(c, variant);

	if (v < 0)
		return game_variant_check(kind, variant, err);
	memset(g, 0, sizeof *g);
	g->kind = kind;
	c->start(g->state, v, seed);
	return 0;
}

int
game_parse(struct game *g, enum game_kind kind, const char *text, struct game_error *err)
{
	memset(g, 0, sizeof *g);
	g->kind = kind;
	if (text == NULL)
		return game_error_set(err, GAME_ESYNTAX, 0, "no position given");
	return game_class_of(kind)->parse(g->state, text, err);
}

int
game_format(const struct game *g, char *buf, size_t size)
{
	return game_class(g)->format(g->state, buf, size);
}

int
game_cell_format(const struct game *g, int sq, char *buf, size_t size)
{
	assert(sq >= 0 && sq < GAME_SQUARES);
	return game_class(g)->cell_format(g->state, sq, buf, size);
}

int
game_reserve(const struct game *g, int side, int symbol)
{
	const struct game_class *c = game_class(g);

	return c->reserve != NULL ? c->reserve(g->state, side != 0, symbol != 0) : 0;
}

uint64_t
game_line(const struct game *g)
{
	const struct game_class *c = game_class(g);

	return c->line != NULL ? c->line(g->state) : 0;
}

int
game_move_parse(const struct game *g, const char *text, struct game_move *m, struct game_error *err)
{
	if (text == NULL)
		return game_error_set(err, GAME_ESYNTAX, 0, "no move given");
	return game_class(g)->move_parse(g->state, text, m, err);
}

int
game_move_format(enum game_kind kind, struct game_move m, char *buf, size_t size)
{
	return game_class_of(kind)->move_format(m, buf, size);
}

int
game_move_legal(const struct game *g, struct game_move m)
{
	struct game_move moves[GAME_MOVES_MAX];
	int n = game_moves(g, moves);

	for (int i = 0; i < n; i++)
		if (moves[i].from == m.from && moves[i].to == m.to && moves[i].place == m.place)
			return 1;
	return 0;
}

void
game_outcome(const struct game *g, struct game_outcome *o)
{
	memset(o, 0, sizeof *o);
	o->winner = -1;
	game_class(g)->outcome(g->state, o);
}

uint64_t
game_perft(const struct game *g, int depth)
{
	return game_class(g)->perft(g->state, depth);
}
