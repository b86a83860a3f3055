/*
 * eval.h: how good a position is for the side to move, in both games, and which moves to try
 * first.
 *
 * Scores are integers from the view of the side to move. A finished game is worth
 * EVAL_WIN or more when the side to move has won, minus that when it has lost, and 0 for a draw:
 *   - HOKITO: +-EVAL_WIN + EVAL_UNIT * margin, where margin is the final score difference. The
 *     sign of the margin decides the game and the map is increasing, so a search that maximises
 *     this maximises the exact final margin;
 *   - OXONO: +-(EVAL_WIN + EVAL_UNIT * (33 - ply)), ply the moves played when the line was made,
 *     so a quicker win (and a slower loss) is worth more.
 * Scores depend on the position alone, never on the search path, so a transposition table can
 * keep them. A heuristic score always stays inside +-EVAL_HEUR_MAX.
 *
 * Each game's evaluation is its class's hooks (game-class.h), in its rules file; this module
 * dispatches to them. It never allocates, never does I/O and keeps no state.
 */
#ifndef HOKITO_COMMON_EVAL_H
#define HOKITO_COMMON_EVAL_H

#include <stdint.h>

#include "game.h"

/* EVAL_UNIT, EVAL_WIN, EVAL_HEUR_MAX, EVAL_INF and struct eval_order: game-class.h. */

/* Whether a score is a won or lost game (a draw is 0, like an even heuristic). */
static inline int
eval_is_decided(int score)
{
	return score >= EVAL_WIN || score <= -EVAL_WIN;
}

/* The value of a finished game for its side to move. */
static inline int
eval_final(const struct game *g)
{
	return game_class(g)->eval_final(g->state);
}

/*
 * The value of a position where the search stops. Sets *exact to 1 when the score is proved (the
 * game is over, or the side to move wins with its next move) and to 0 for a heuristic guess.
 */
static inline int
eval_leaf(const struct game *g, int *exact)
{
	return game_class(g)->eval_leaf(g->state, exact);
}

/* The final HOKITO score margin (side to move's view) of a final score. */
int eval_margin(int score);

/* The plies from g until the end of an OXONO game won or lost with final score (either view). */
int eval_win_plies(int score, const struct game *g);

/* Prepare the move-ordering context of g. */
void eval_order_init(struct eval_order *o, const struct game *g);

/* How promising move m of g looks: larger is tried earlier. Cheap, not a search score. */
int eval_move_score(const struct eval_order *o, const struct game *g, struct game_move m);

#endif
