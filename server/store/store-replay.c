/*
 * store-replay.c: what every backend of the store does the same way with a game it read back:
 * replay its stored events through the rules (store_game_replay(), the check of load()), and
 * write its text record (store_record_format(), the read port's record). It reads and writes no
 * store; it knows the rules (game.h) and the record format (record.h), never a backend.
 *
 * These functions are the SQLite backend's (sqlite/store.c, sqlite/store-history.c at f63c9fd),
 * the same code, moved here for the PostgreSQL backend, which the SQLite files cannot yet be
 * linked with against the new contract of store-port.h (2026-12-02): when main moves them out
 * of the SQLite backend, one of the two copies goes.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "glicko.h"
#include "record.h"
#include "store-replay.h"
#include "xmalloc.h"

/* Fill err (if not NULL) and return code. */
static int store_fail(struct store_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

static int
store_fail(struct store_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof err->text, fmt, ap);
	va_end(ap);
	return code;
}

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

/*
 * Replaying is the check that matters most at start-up: SQLite can vouch for its pages, only the
 * rules can vouch for the moves. A move the rules refuse, or a stored end the final position
 * contradicts, means the file was damaged or written by a buggy server; either way the game
 * cannot be trusted and the server must not start with it.
 */
int
store_game_replay(const struct store_game *g, const struct store_event *ev, size_t nevents,
                  struct game *start, struct game *position, struct store_error *err)
{
	struct record_error rerr;
	struct game_error gerr;
	struct game_outcome o;
	int ply = 0, finished = strcmp(g->status, "finished") == 0;

	if (game_start(start, g->kind, g->variant, g->seed, &gerr) < 0)
		return store_fail(err, STORE_ECORRUPT, "game '%s': %s", g->id, gerr.text);
	*position = *start;
	for (size_t i = 0; i < nevents; i++) {
		char canon[GAME_MOVE_TEXT];
		struct game_move m;
		if (ev[i].seq != (int64_t)i + 1)
			return store_fail(err, STORE_ECORRUPT,
			                  "game '%s': event %zu has seq %" PRId64, g->id, i + 1,
			                  ev[i].seq);
		if (ev[i].move == NULL)
			continue;
		ply++;
		if (game_move_parse(position, ev[i].move, &m, &gerr) < 0)
			return store_fail(err, STORE_ECORRUPT,
			                  "game '%s': stored move %d '%s' (seq %" PRId64
			                  ") is not legal: %s",
			                  g->id, ply, ev[i].move, ev[i].seq, gerr.text);
		game_move_format(g->kind, m, canon, sizeof canon);
		if (strcmp(canon, ev[i].move) != 0)
			return store_fail(err, STORE_ECORRUPT,
			                  "game '%s': stored move %d '%s' is not in canonical form",
			                  g->id, ply, ev[i].move);
		game_apply(position, m);
	}
	game_outcome(position, &o);
	if (!finished) {
		if (o.end != GAME_END_NONE)
			return store_fail(
			        err, STORE_ECORRUPT,
			        "game '%s': its moves end the game but it is stored as %s", g->id,
			        g->status);
		return 0;
	}
	if (strcmp(g->result, "aborted") != 0 && strcmp(g->result, "win") != 0 &&
	    strcmp(g->result, "draw") != 0)
		return store_fail(err, STORE_ECORRUPT, "game '%s': unknown result '%s'", g->id,
		                  g->result);
	if (record_result_check(position, store_record_result(g),
	                        strcmp(g->result, "aborted") == 0 && g->reason[0] == '\0'
	                                ? "abandoned"
	                                : g->reason,
	                        &rerr) < 0)
		return store_fail(err, STORE_ECORRUPT, "game '%s': the stored end is wrong: %s",
		                  g->id, rerr.text);
	if (game_kind_has(g->kind, GAME_HAS_SCORES) &&
	    (g->score[0] != o.score[0] || g->score[1] != o.score[1]))
		return store_fail(err, STORE_ECORRUPT,
		                  "game '%s': stored scores %d-%d, the moves give %d-%d", g->id,
		                  g->score[0], g->score[1], o.score[0], o.score[1]);
	return 0;
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
