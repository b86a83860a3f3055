/*
 * game.c: the game interface, dispatching to HOKITO or OXONO.
 *
 * This file owns nothing: it routes each call to the game named by the value's kind, and holds the
 * few helpers both games share (square names, error filling, kind, side and variant names). Like
 * the rest of common/ it never allocates and never does I/O.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "game.h"

static const char *const kind_names[] = {"hokito", "oxono"};
static const char *const side_names[2][2] = {{"black", "white"}, {"pink", "black"}};

int
game_error_set(struct game_error *err, int code, int pos, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	err->pos = pos;
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof err->text, fmt, ap);
	va_end(ap);
	return code;
}

int
game_kind_parse(const char *name, enum game_kind *kind)
{
	if (name == NULL)
		return GAME_EINVAL;
	for (int i = 0; i < 2; i++) {
		if (strcmp(name, kind_names[i]) == 0) {
			*kind = (enum game_kind)i;
			return 0;
		}
	}
	return GAME_EINVAL;
}

const char *
game_kind_name(enum game_kind kind)
{
	return kind == GAME_OXONO ? kind_names[1] : kind_names[0];
}

const char *
game_side_name(enum game_kind kind, int side)
{
	return side_names[kind == GAME_OXONO][side != 0];
}

int
game_side_parse(enum game_kind kind, const char *name, int *side)
{
	for (int i = 0; i < 2; i++) {
		const char *s = side_names[kind == GAME_OXONO][i];
		if (strcmp(name, s) == 0 || (name[0] == s[0] && name[1] == '\0')) {
			*side = i;
			return 0;
		}
	}
	return GAME_EINVAL;
}

int
game_variant_check(enum game_kind kind, const char *variant, struct game_error *err)
{
	if (variant == NULL || variant[0] == '\0' || strcmp(variant, "standard") == 0)
		return 0;
	if (kind == GAME_HOKITO && strcmp(variant, "random36") == 0)
		return 0;
	return game_error_set(err, GAME_EINVAL, -1, "unknown variant '%.40s' for %s (known: %s)",
	                      variant, game_kind_name(kind),
	                      kind == GAME_HOKITO ? "standard, random36" : "standard");
}

int
game_start(struct game *g, enum game_kind kind, const char *variant, uint64_t seed,
           struct game_error *err)
{
	int rc = game_variant_check(kind, variant, err);

	if (rc < 0)
		return rc;
	memset(g, 0, sizeof *g);
	g->kind = kind;
	if (kind == GAME_HOKITO)
		hokito_start(&g->u.hk, variant != NULL && strcmp(variant, "random36") == 0, seed);
	else
		oxono_start(&g->u.ox, seed);
	return 0;
}

int
game_parse(struct game *g, enum game_kind kind, const char *text, struct game_error *err)
{
	memset(g, 0, sizeof *g);
	g->kind = kind;
	if (text == NULL)
		return game_error_set(err, GAME_ESYNTAX, 0, "no position given");
	if (kind == GAME_HOKITO)
		return hokito_parse(&g->u.hk, text, err);
	return oxono_parse(&g->u.ox, text, err);
}

int
game_format(const struct game *g, char *buf, size_t size)
{
	if (g->kind == GAME_HOKITO)
		return hokito_format(&g->u.hk, buf, size);
	return oxono_format(&g->u.ox, buf, size);
}

int
game_cell_format(const struct game *g, int sq, char *buf, size_t size)
{
	assert(sq >= 0 && sq < GAME_SQUARES);
	if (g->kind == GAME_HOKITO)
		return hokito_cell_format(&g->u.hk, sq, buf, size);
	return oxono_cell_format(&g->u.ox, sq, buf, size);
}

int
game_side(const struct game *g)
{
	return g->kind == GAME_HOKITO ? g->u.hk.side : g->u.ox.side;
}

int
game_ply(const struct game *g)
{
	return g->kind == GAME_HOKITO ? hokito_ply(&g->u.hk) : oxono_ply(&g->u.ox);
}

int
game_moves(const struct game *g, struct game_move *moves)
{
	if (g->kind == GAME_HOKITO)
		return hokito_moves(&g->u.hk, moves);
	return oxono_moves(&g->u.ox, moves);
}

int
game_move_parse(const struct game *g, const char *text, struct game_move *m, struct game_error *err)
{
	if (text == NULL)
		return game_error_set(err, GAME_ESYNTAX, 0, "no move given");
	if (g->kind == GAME_HOKITO)
		return hokito_move_parse(&g->u.hk, text, m, err);
	return oxono_move_parse(&g->u.ox, text, m, err);
}

int
game_move_format(enum game_kind kind, struct game_move m, char *buf, size_t size)
{
	if (kind == GAME_HOKITO)
		return hokito_move_format(m, buf, size);
	return oxono_move_format(m, buf, size);
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
game_apply(struct game *g, struct game_move m)
{
	if (g->kind == GAME_HOKITO)
		hokito_apply(&g->u.hk, m);
	else
		oxono_apply(&g->u.ox, m);
}

void
game_outcome(const struct game *g, struct game_outcome *o)
{
	memset(o, 0, sizeof *o);
	o->winner = -1;
	if (g->kind == GAME_HOKITO)
		hokito_outcome(&g->u.hk, o);
	else
		oxono_outcome(&g->u.ox, o);
}

int
game_over(const struct game *g)
{
	if (g->kind == GAME_HOKITO)
		return hokito_over(&g->u.hk);
	return g->u.ox.end != GAME_END_NONE;
}

uint64_t
game_perft(const struct game *g, int depth)
{
	if (g->kind == GAME_HOKITO)
		return hokito_perft(&g->u.hk, depth);
	return oxono_perft(&g->u.ox, depth);
}

int
game_square_parse(const char *text)
{
	if (text[0] < 'a' || text[0] > 'f' || text[1] < '1' || text[1] > '6')
		return GAME_ESYNTAX;
	return (text[1] - '1') * 6 + (text[0] - 'a');
}

void
game_square_name(int sq, char buf[3])
{
	buf[0] = (char)('a' + sq % 6);
	buf[1] = (char)('1' + sq / 6);
	buf[2] = '\0';
}
