/*
 * eval.c: static evaluation and move-ordering hints, through the class of the position's game.
 *
 * Each game's evaluation lives in its rules file (hokito.c, oxono.c), beside the rules it reads,
 * and is reached through its class's hooks (game-class.h); this file holds the ordering dispatch
 * and what reads a score whatever the game. Nothing here allocates.
 */
#include <string.h>

#include "eval.h"
#include "oxono.h"

int
eval_margin(int score)
{
	if (score >= EVAL_WIN)
		return (score - EVAL_WIN) / EVAL_UNIT;
	if (score <= -EVAL_WIN)
		return (score + EVAL_WIN) / EVAL_UNIT;
	return score / EVAL_UNIT;
}

int
eval_win_plies(int score, const struct game *g)
{
	int v = score < 0 ? -score : score;

	return OXONO_WIN_PLY - (v - EVAL_WIN) / EVAL_UNIT - game_ply(g);
}

void
eval_order_init(struct eval_order *o, const struct game *g)
{
	const struct game_class *c = game_class(g);

	memset(o, 0, sizeof *o);
	if (c->order_init != NULL)
		c->order_init(o, g->state);
}

int
eval_move_score(const struct eval_order *o, const struct game *g, struct game_move m)
{
	return game_class(g)->move_score(o, g->state, m);
}
