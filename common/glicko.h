/*
 * glicko.h: Glicko-2 ratings, exactly as Mark Glickman's "Example of the Glicko-2 system".
 *
 * A player is a rating, a rating deviation (RD) and a volatility on the Glicko scale (1500 for a
 * new player). glicko_rate() runs steps 1 to 8 of the paper for one rating period holding any
 * number of games; glicko_rate_game() is the common case of a rated game, one period of one game
 * for each player, both updated from their values before the game. The volatility is found with
 * the paper's Illinois algorithm (step 5) to GLICKO_EPSILON, with GLICKO_TAU as the system
 * constant. Values are kept at full double precision: store them as they are and round only for
 * display (glicko_display()).
 *
 * Pure: no I/O, no globals, no allocation; every function may run on any thread. The inputs come
 * from the store, so they are checked (finite, RD and volatility positive, scores 0, 0.5 or 1) and
 * refused with GLICKO_EINVAL rather than trusted.
 */
#ifndef HOKITO_COMMON_GLICKO_H
#define HOKITO_COMMON_GLICKO_H

#include <stdbool.h>
#include <stddef.h>

#define GLICKO_RATING_NEW     1500.0 /* a new player's rating */
#define GLICKO_RD_NEW         350.0  /* ... deviation; also the most an idle player's RD grows to */
#define GLICKO_VOL_NEW        0.06   /* ... volatility */
#define GLICKO_TAU            0.5    /* the system constant: how fast the volatility may change */
#define GLICKO_EPSILON        0.000001 /* the volatility iteration's convergence tolerance */
#define GLICKO_SCALE          173.7178 /* Glicko-2 scale factor of the paper (400 / ln 10) */
#define GLICKO_PROVISIONAL_RD 110.0 /* a rating with a larger RD is provisional: shown with "?" */
#define GLICKO_DISPLAY_MAX    16    /* room for glicko_display()'s text with its NUL */

enum glicko_error {
	GLICKO_EINVAL = -1, /* not finite; an RD or volatility <= 0; a score not 0, 0.5, 1 */
	GLICKO_ENOSPC = -2, /* the caller's buffer is too small */
};

/* A player's rating on the Glicko scale. */
struct glicko {
	double rating; /* 1500 for a new player */
	double rd;     /* rating deviation, > 0 */
	double vol;    /* volatility sigma, > 0 */
};

/* One game of a rating period, from the rated player's side. */
struct glicko_game {
	double rating; /* the opponent's rating at the start of the period */
	double rd;     /* the opponent's RD at the start of the period */
	double score;  /* the rated player's score: 1 win, 0.5 draw, 0 loss */
};

/* A new player: 1500, 350, 0.06. */
void glicko_init(struct glicko *p);

/*
 * One rating period for p with its n games (games borrowed, n may be 0). Writes the new values to
 * *out (which may be p) and returns 0, or GLICKO_EINVAL with *out untouched.
 *
 * With n == 0 the player did not compete: rating and volatility stay and the RD grows as step 6 of
 * the paper says (sqrt(phi^2 + sigma^2)), but never past GLICKO_RD_NEW: after a long absence a
 * player is as unknown as a new one, not more (the ceiling Glicko-1 also has). The lead decides
 * whether idle periods are applied at all; a game never passes through this ceiling.
 */
int glicko_rate(const struct glicko *p, const struct glicko_game *games, size_t n,
                struct glicko *out);

/*
 * A rated game between a and b with a's score score_a (1, 0.5 or 0; b scores 1 - score_a): each is
 * updated by a period of that one game, computed from both players' values before the game. Writes
 * *a_out and *b_out (either may alias a or b) and returns 0, or GLICKO_EINVAL with nothing written.
 */
int glicko_rate_game(const struct glicko *a, const struct glicko *b, double score_a,
                     struct glicko *a_out, struct glicko *b_out);

/* Whether p's rating is provisional: its RD is above GLICKO_PROVISIONAL_RD. */
bool glicko_provisional(const struct glicko *p);

/*
 * The rating as players see it: rounded to a whole point, followed by "?" while it is
 * provisional ("1464", "1500?"). Writes a NUL-terminated string to buf (GLICKO_DISPLAY_MAX bytes
 * are always enough) and returns its length, or GLICKO_ENOSPC (buf untouched if size is 0),
 * GLICKO_EINVAL for a value that is not finite.
 */
int glicko_display(const struct glicko *p, char *buf, size_t size);

#endif
