/*
 * glicko.c: Glicko-2 rating periods (Glickman, "Example of the Glicko-2 system", steps 1 to 8).
 *
 * The code follows the paper's steps and names (mu, phi, sigma, g, E, v, delta) so that it can be
 * read next to it. Nothing is rounded along the way: the paper prints 1464.06, 151.52 and 0.05999
 * for its example because it rounds its intermediate figures; carried at full precision the same
 * example gives 1464.05, 151.52 and 0.059996, which the unit test pins. Pure: no I/O, no globals,
 * no allocation.
 */
#include "glicko.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The Illinois iteration halves its bracket at least every other step; this is far beyond need. */
#define GLICKO_ITER_MAX 1000

/* A value from outside (the store, a caller) is usable. */
static bool
glicko_valid(const struct glicko *p)
{
	return isfinite(p->rating) && isfinite(p->rd) && isfinite(p->vol) && p->rd > 0 &&
	       p->vol > 0;
}

static bool
glicko_score_valid(double s)
{
	return s == 0.0 || s == 0.5 || s == 1.0;
}

/* g(phi): how much a game against an opponent of deviation phi counts (step 3). */
static double
glicko_g(double phi)
{
	return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (M_PI * M_PI));
}

/* E(mu, mu_j, phi_j): the expected score against that opponent (step 3). */
static double
glicko_e(double mu, double mu_j, double phi_j)
{
	return 1.0 / (1.0 + exp(-glicko_g(phi_j) * (mu - mu_j)));
}

/* f(x) of step 5, whose root is ln(sigma'^2). */
static double
glicko_f(double x, double delta, double phi, double v, double a)
{
	double ex = exp(x);
	double d = phi * phi + v + ex;

	return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) -
	       (x - a) / (GLICKO_TAU * GLICKO_TAU);
}

/*
 * Step 5: the new volatility, by the Illinois algorithm (regula falsi that halves the stale end's
 * value), exactly as the paper lists it: A = ln(sigma^2); B from delta^2 against phi^2 + v, or
 * stepping down by tau until f turns non-negative; then narrow [A, B] until it is within epsilon.
 */
static double
glicko_volatility(double sigma, double delta, double phi, double v)
{
	double a = log(sigma * sigma);
	double A = a, B, fA, fB;
	int i;

	if (delta * delta > phi * phi + v) {
		B = log(delta * delta - phi * phi - v);
	} else {
		double k = 1;

		while (glicko_f(a - k * GLICKO_TAU, delta, phi, v, a) < 0)
			k++;
		B = a - k * GLICKO_TAU;
	}
	fA = glicko_f(A, delta, phi, v, a);
	fB = glicko_f(B, delta, phi, v, a);
	for (i = 0; fabs(B - A) > GLICKO_EPSILON && i < GLICKO_ITER_MAX; i++) {
		double C = A + (A - B) * fA / (fB - fA);
		double fC = glicko_f(C, delta, phi, v, a);

		if (fC * fB <= 0) {
			A = B;
			fA = fB;
		} else {
			fA /= 2;
		}
		B = C;
		fB = fC;
	}
	return exp(A / 2);
}

void
glicko_init(struct glicko *p)
{
	p->rating = GLICKO_RATING_NEW;
	p->rd = GLICKO_RD_NEW;
	p->vol = GLICKO_VOL_NEW;
}

int
glicko_rate(const struct glicko *p, const struct glicko_game *games, size_t n, struct glicko *out)
{
	/* Step 2: to the Glicko-2 scale. */
	double mu = (p->rating - GLICKO_RATING_NEW) / GLICKO_SCALE;
	double phi = p->rd / GLICKO_SCALE;
	double sum_v = 0, sum_d = 0;
	double v, delta, sigma, phi_star, phi_new, mu_new;
	size_t i;

	if (!glicko_valid(p))
		return GLICKO_EINVAL;
	for (i = 0; i < n; i++) {
		const struct glicko_game *o = &games[i];

		if (!isfinite(o->rating) || !isfinite(o->rd) || o->rd <= 0 ||
		    !glicko_score_valid(o->score))
			return GLICKO_EINVAL;
	}
	if (n == 0) {
		/* Step 6 alone: a player who did not compete only grows less certain. */
		double rd = GLICKO_SCALE * sqrt(phi * phi + p->vol * p->vol);

		out->rating = p->rating;
		out->rd = rd < GLICKO_RD_NEW ? rd : GLICKO_RD_NEW;
		out->vol = p->vol;
		return 0;
	}

	/* Steps 3 and 4: the estimated variance v and the estimated improvement delta. */
	for (i = 0; i < n; i++) {
		double mu_j = (games[i].rating - GLICKO_RATING_NEW) / GLICKO_SCALE;
		double phi_j = games[i].rd / GLICKO_SCALE;
		double g = glicko_g(phi_j);
		double e = glicko_e(mu, mu_j, phi_j);

		sum_v += g * g * e * (1 - e);
		sum_d += g * (games[i].score - e);
	}
	v = 1.0 / sum_v;
	delta = v * sum_d;

	/* Step 5: the new volatility. */
	sigma = glicko_volatility(p->vol, delta, phi, v);

	/* Steps 6 and 7: the pre-period deviation, then the new deviation and rating. */
	phi_star = sqrt(phi * phi + sigma * sigma);
	phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
	mu_new = mu + phi_new * phi_new * sum_d;

	/* Step 8: back to the Glicko scale. */
	out->rating = GLICKO_SCALE * mu_new + GLICKO_RATING_NEW;
	out->rd = GLICKO_SCALE * phi_new;
	out->vol = sigma;
	return 0;
}

int
glicko_rate_game(const struct glicko *a, const struct glicko *b, double score_a,
                 struct glicko *a_out, struct glicko *b_out)
{
	struct glicko_game vs_b = {b->rating, b->rd, score_a};
	struct glicko_game vs_a = {a->rating, a->rd, 1.0 - score_a};
	struct glicko na, nb;

	if (!glicko_score_valid(score_a) || !glicko_valid(a) || !glicko_valid(b))
		return GLICKO_EINVAL;
	/* both from the values before the game: computed into copies, then written */
	if (glicko_rate(a, &vs_b, 1, &na) < 0 || glicko_rate(b, &vs_a, 1, &nb) < 0)
		return GLICKO_EINVAL;
	*a_out = na;
	*b_out = nb;
	return 0;
}

bool
glicko_provisional(const struct glicko *p)
{
	return p->rd > GLICKO_PROVISIONAL_RD;
}

int
glicko_display(const struct glicko *p, char *buf, size_t size)
{
	char text[GLICKO_DISPLAY_MAX];
	int len;

	/* (+ 0.0 turns a -0 into 0: a rating of -0.4 shows as "0") */
	if (!isfinite(p->rating) || !isfinite(p->rd) || fabs(p->rating) > 1e9)
		return GLICKO_EINVAL;
	len = snprintf(text, sizeof text, "%.0f%s", round(p->rating) + 0.0,
	               glicko_provisional(p) ? "?" : "");
	if (len < 0 || (size_t)len >= size)
		return GLICKO_ENOSPC;
	memcpy(buf, text, (size_t)len + 1);
	return len;
}
