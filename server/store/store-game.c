/*
 * store-game.c: what a stored game means, whatever the backend that stored it (store-game.h):
 * its replay through the rules at a start, who may find a private one, and what a copy of a whole
 * store may put and compares.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "record.h"
#include "store-game.h"
#include "store-record.h"

/*
 * Replaying is the check that matters most at start-up: the backend can vouch for its pages, only
 * the rules can vouch for the moves. A move the rules refuse, or a stored end the final position
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

int
store_game_seated(const struct store_viewer *viewer, const struct store_game *g)
{
	for (int i = 0; i < 2; i++)
		if (viewer->account > 0 ? g->seat_account[i] == viewer->account
		                        : viewer->player_id[0] != '\0' && g->seat_account[i] < 0 &&
		                                  strcmp(g->seat_id[i], viewer->player_id) == 0)
			return 1;
	return 0;
}

/*
 * The fields in the order of struct store_game. Strings compare up to their NUL (what follows it
 * in the array is no part of the value); the seats' names and ids only when taken, as a store
 * keeps none for a seat never taken.
 */
const char *
store_game_diff(const struct store_game *a, const struct store_game *b)
{
#define DIFF_NUM(f)                                                                                \
	if (a->f != b->f)                                                                          \
	return #f
#define DIFF_STR(f)                                                                                \
	if (strcmp(a->f, b->f) != 0)                                                               \
	return #f
	DIFF_STR(id);
	DIFF_NUM(serial);
	DIFF_NUM(kind);
	DIFF_STR(variant);
	DIFF_NUM(seed);
	DIFF_NUM(is_private);
	DIFF_STR(code);
	DIFF_STR(status);
	DIFF_NUM(created_ms);
	DIFF_NUM(ended_ms);
	for (int i = 0; i < 2; i++) {
		DIFF_NUM(seat_taken[i]);
		if (a->seat_taken[i] && strcmp(a->seat_id[i], b->seat_id[i]) != 0)
			return "seat_id";
		if (a->seat_taken[i] && strcmp(a->seat_name[i], b->seat_name[i]) != 0)
			return "seat_name";
	}
	DIFF_STR(result);
	DIFF_NUM(winner);
	DIFF_STR(reason);
	DIFF_NUM(score[0]);
	DIFF_NUM(score[1]);
	if (strcmp(a->clock[0] ? a->clock : "none", b->clock[0] ? b->clock : "none") != 0)
		return "clock";
	DIFF_NUM(nevents);
	DIFF_NUM(ply);
	DIFF_NUM(rated);
	DIFF_STR(unrated);
	DIFF_NUM(seat_account[0]);
	DIFF_NUM(seat_account[1]);
	return NULL;
#undef DIFF_NUM
#undef DIFF_STR
}

/* An event's body length: body_len, or up to its NUL when 0. */
static size_t
event_body_len(const struct store_event *e)
{
	return e->body_len > 0 ? e->body_len : strlen(e->body);
}

const char *
store_event_diff(const struct store_event *a, const struct store_event *b)
{
	size_t n = event_body_len(a);

	if (a->seq != b->seq)
		return "seq";
	if (a->time_ms != b->time_ms)
		return "time_ms";
	if (strcmp(a->type, b->type) != 0)
		return "type";
	if ((a->move == NULL) != (b->move == NULL) ||
	    (a->move != NULL && strcmp(a->move, b->move) != 0))
		return "move";
	if (n != event_body_len(b) || memcmp(a->body, b->body, n) != 0)
		return "body";
	return NULL;
}

/* A string of 1..max-1 bytes (empty: with may_be_empty). */
static int
put_fits(const char *s, size_t max, int may_be_empty)
{
	return s != NULL && (may_be_empty || s[0] != '\0') && strlen(s) < max;
}

int
store_game_put_valid(const struct store_game *g, const struct store_event *ev, size_t n)
{
	int finished = strcmp(g->status, "finished") == 0;

	if (!put_fits(g->id, STORE_ID_MAX, 0) || g->serial <= 0 || (int)g->kind < 0 ||
	    (int)g->kind >= game_class_count || game_variant_check(g->kind, g->variant, NULL) < 0 ||
	    !put_fits(g->code, STORE_CODE_MAX, 1) || !put_fits(g->clock, STORE_WORD_MAX, 1) ||
	    !put_fits(g->unrated, STORE_WORD_MAX, 1) || !put_fits(g->reason, STORE_WORD_MAX, 1) ||
	    !put_fits(g->result, STORE_WORD_MAX, 1) || g->winner < -1 || g->winner > 1 ||
	    (!finished && strcmp(g->status, "open") != 0 && strcmp(g->status, "live") != 0 &&
	     strcmp(g->status, "adjourned") != 0) ||
	    finished != (g->result[0] != '\0'))
		return 0;
	for (int i = 0; i < 2; i++)
		if (g->seat_account[i] < -1 ||
		    (g->seat_taken[i] && (!put_fits(g->seat_id[i], STORE_ID_MAX, 0) ||
		                          !put_fits(g->seat_name[i], STORE_NAME_MAX, 0))))
			return 0;
	for (size_t i = 0; i < n; i++) {
		int moved = ev[i].type != NULL && strcmp(ev[i].type, "moved") == 0;

		if (ev[i].seq != (int64_t)i + 1 || !put_fits(ev[i].type, STORE_WORD_MAX, 0) ||
		    ev[i].body == NULL || ev[i].body_len > INT32_MAX ||
		    moved != (ev[i].move != NULL) ||
		    (moved && !put_fits(ev[i].move, GAME_MOVE_TEXT, 0)))
			return 0;
	}
	return 1;
}

int
store_rating_put_valid(const struct store_rating *r)
{
	return r->account > 0 && (int)r->kind >= 0 && (int)r->kind < game_class_count &&
	       isfinite(r->rating) && r->rd > 0 && r->vol > 0 && isfinite(r->best) &&
	       r->games >= 0 && r->wins >= 0 && r->draws >= 0 && r->losses >= 0 &&
	       r->opponents >= 0;
}
