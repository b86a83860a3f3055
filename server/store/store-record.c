/*
 * store-record.c: the text game record (FORMATS.md "Game records") of a stored game, made from
 * its row and events for every backend (store-record.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "glicko.h"
#include "record.h"
#include "store-record.h"
#include "xmalloc.h"

/* How a stored end reads as a record's result (record.h). */
enum record_result
store_record_result(const struct store_game *g)
{
	if (strcmp(g->result, "draw") == 0)
		return RECORD_DRAW;
	if (strcmp(g->result, "win") == 0 && (g->winner == 0 || g->winner == 1))
		return (enum record_result)g->winner;
	return RECORD_UNFINISHED;
}

/* A rated game's headers in r: each side's rating as shown before and its change shown. */
static void
record_ratings(struct record *r, const struct store_rating_change *changes)
{
	for (int i = 0; i < 2; i++) {
		const struct store_rating_change *c = &changes[i];
		struct glicko before = {c->before[0], c->before[1], c->before[2]};
		struct glicko after = {c->after[0], c->after[1], c->after[2]};
		char shown[GLICKO_DISPLAY_MAX];

		if (c->seat != i ||
		    glicko_display(&before, r->rating[i], sizeof r->rating[i]) < 0 ||
		    glicko_display(&after, shown, sizeof shown) < 0) {
			r->rating[i][0] = '\0';
			continue;
		}
		snprintf(r->rating_diff[i], sizeof r->rating_diff[i], "%+d",
		         atoi(shown) - atoi(r->rating[i]));
	}
}

int
store_record_format(const struct store_game *g, const struct store_event *ev, size_t nev,
                    const struct store_rating_change *changes, char *buf, size_t size,
                    struct store_error *err)
{
	const char *id = g->id;
	struct record_error rerr;
	struct record *r;
	struct tm tm;
	time_t t;
	int rc;

	r = xcalloc(1, sizeof *r);
	r->kind = g->kind;
	snprintf(r->variant, sizeof r->variant, "%s", g->variant);
	r->seed = g->seed;
	for (int i = 0; i < 2; i++)
		snprintf(r->player[i], sizeof r->player[i], "%s", g->seat_name[i]);
	t = (time_t)(g->created_ms / 1000);
	if (gmtime_r(&t, &tm) != NULL && tm.tm_year + 1900 >= 1 && tm.tm_year + 1900 <= 9999 &&
	    strftime(r->date, sizeof r->date, "%Y-%m-%d", &tm) != 10)
		r->date[0] = '\0';
	r->rated = g->rated && g->unrated[0] == '\0'; /* one that rated nobody is casual there */
	if (changes != NULL)
		record_ratings(r, changes);
	r->result = strcmp(g->status, "finished") == 0 ? store_record_result(g) : RECORD_UNFINISHED;
	if (strcmp(g->status, "finished") == 0)
		snprintf(r->reason, sizeof r->reason, "%s",
		         strcmp(g->result, "aborted") == 0 && g->reason[0] == '\0' ? "abandoned"
		                                                                   : g->reason);
	game_start(&r->final, g->kind, g->variant, g->seed, NULL);
	rc = 0;
	for (size_t i = 0; i < nev && rc == 0; i++) {
		struct game_move m;
		if (ev[i].move == NULL)
			continue;
		if (r->nmoves >= RECORD_MOVES_MAX ||
		    game_move_parse(&r->final, ev[i].move, &m, NULL) < 0)
			rc = store_fail(err, STORE_ECORRUPT,
			                "game '%s': stored move '%s' is not legal", id, ev[i].move);
		else
			game_apply(&r->final, r->moves[r->nmoves++] = m);
	}
	if (rc == 0) {
		rc = record_write(r, buf, size, &rerr);
		if (rc == RECORD_ENOSPC)
			rc = store_fail(err, STORE_ENOSPC,
			                "the record of game '%s' needs a larger "
			                "buffer",
			                id);
		else if (rc < 0)
			rc = store_fail(err, STORE_ECORRUPT, "game '%s': %s", id, rerr.text);
	}
	free(r);
	return rc;
}
