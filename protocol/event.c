/*
 * event.c: the word tables of statuses, results, reasons and offers, and the codec of every game
 * event and notice.
 *
 * Each word table is the only place a wire word of its kind is written. The codec table, indexed
 * by enum msg_type, holds for each event and notice one encoder (adds the type's own members, in
 * the order the server has always sent them: the recorded lines of PROTOCOL.md and
 * tests/data/protocol are reproduced byte for byte, which test-event.c checks) and one decoder
 * (reads the same members back through event-member.h's readers, refusing what PROTOCOL.md does
 * not allow). The result object (7.3) shares game_over's first members and has its codec here too.
 * The common head of every line ("type", "game" and, for events, "seq") is written and read once,
 * outside the table. Decoded strings are borrowed from the object; this file allocates only through
 * jansson and never does I/O.
 */
#include <stdlib.h>
#include <string.h>

#include "event-member.h"
#include "event.h"
#include "protocol.h"

static const char *const status_words[EVENT_STATUS_COUNT] = {
        [EVENT_STATUS_OPEN] = "open",
        [EVENT_STATUS_LIVE] = "live",
        [EVENT_STATUS_ADJOURNED] = "adjourned",
        [EVENT_STATUS_FINISHED] = "finished",
};

static const char *const result_words[EVENT_RESULT_COUNT] = {
        [EVENT_RESULT_WIN] = "win",
        [EVENT_RESULT_DRAW] = "draw",
        [EVENT_RESULT_ABORTED] = "aborted",
};

/* Each reason with its word and the results it may end a game with (a bit per result). */
#define R(result) (1u << (result))
static const struct {
	const char *word;
	unsigned results;
} reasons[EVENT_REASON_COUNT] = {
        [EVENT_REASON_BLOCKED] = {"blocked", R(EVENT_RESULT_WIN) | R(EVENT_RESULT_DRAW)},
        [EVENT_REASON_LINE] = {"line", R(EVENT_RESULT_WIN)},
        /* a full board: OXONO's is always a draw (a line would have won before), but the
           rules of the kind decide (the tests' third kind wins one by its scores) */
        [EVENT_REASON_FULL] = {"full", R(EVENT_RESULT_WIN) | R(EVENT_RESULT_DRAW)},
        [EVENT_REASON_RESIGN] = {"resign", R(EVENT_RESULT_WIN)},
        [EVENT_REASON_ABANDONED] = {"abandoned", R(EVENT_RESULT_ABORTED)},
        [EVENT_REASON_TIME] = {"time", R(EVENT_RESULT_WIN)},
        [EVENT_REASON_AGREEMENT] = {"agreement", R(EVENT_RESULT_DRAW)},
        [EVENT_REASON_ABORT] = {"abort", R(EVENT_RESULT_ABORTED)},
        [EVENT_REASON_DISCONNECT] = {"disconnect", R(EVENT_RESULT_WIN) | R(EVENT_RESULT_DRAW)},
};
#undef R

static const char *const unrated_words[EVENT_UNRATED_COUNT] = {
        [EVENT_UNRATED_SAME_ADDRESS] = "same_address",
        [EVENT_UNRATED_PAIR_LIMIT] = "pair_limit",
        [EVENT_UNRATED_SHORT] = "short",
};

static const char *const offer_words[EVENT_OFFER_COUNT] = {
        [EVENT_OFFER_DRAW] = "draw",
        [EVENT_OFFER_REMATCH] = "rematch",
};

/* The word of value v in words (n entries), or NULL. */
static const char *
word_name(const char *const *words, size_t n, int v)
{
	return v >= 0 && (size_t)v < n ? words[v] : NULL;
}

/* The index of name in words (n entries; NULL entries never match), or -1. */
static int
word_parse(const char *const *words, size_t n, const char *name)
{
	if (name == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (words[i] != NULL && strcmp(words[i], name) == 0)
			return (int)i;
	return -1;
}

const char *
event_status_name(enum event_status status)
{
	return word_name(status_words, EVENT_STATUS_COUNT, (int)status);
}

int
event_status_parse(const char *name, enum event_status *out)
{
	int v = word_parse(status_words, EVENT_STATUS_COUNT, name);

	if (v < 0)
		return PROTO_EBADVALUE;
	*out = (enum event_status)v;
	return 0;
}

const char *
event_result_name(enum event_result result)
{
	return word_name(result_words, EVENT_RESULT_COUNT, (int)result);
}

int
event_result_parse(const char *name, enum event_result *out)
{
	int v = word_parse(result_words, EVENT_RESULT_COUNT, name);

	if (v < 0)
		return PROTO_EBADVALUE;
	*out = (enum event_result)v;
	return 0;
}

const char *
event_reason_name(enum event_reason reason)
{
	return (int)reason >= 0 && reason < EVENT_REASON_COUNT ? reasons[reason].word : NULL;
}

int
event_reason_parse(const char *name, enum event_reason *out)
{
	if (name == NULL)
		return PROTO_EBADVALUE;
	for (int i = 0; i < EVENT_REASON_COUNT; i++)
		if (reasons[i].word != NULL && strcmp(reasons[i].word, name) == 0) {
			*out = (enum event_reason)i;
			return 0;
		}
	return PROTO_EBADVALUE;
}

const char *
event_unrated_name(enum event_unrated why)
{
	return word_name(unrated_words, EVENT_UNRATED_COUNT, (int)why);
}

int
event_unrated_parse(const char *name, enum event_unrated *out)
{
	int v = word_parse(unrated_words, EVENT_UNRATED_COUNT, name);

	if (v < 0)
		return PROTO_EBADVALUE;
	*out = (enum event_unrated)v;
	return 0;
}

const char *
event_offer_name(enum event_offer offer)
{
	return word_name(offer_words, EVENT_OFFER_COUNT, (int)offer);
}

int
event_offer_parse(const char *name, enum event_offer *out)
{
	int v = word_parse(offer_words, EVENT_OFFER_COUNT, name);

	if (v < 0)
		return PROTO_EBADVALUE;
	*out = (enum event_offer)v;
	return 0;
}

int
event_reason_allows(enum event_reason reason, enum event_result result)
{
	if ((int)reason < 0 || reason >= EVENT_REASON_COUNT || (int)result < 0 ||
	    result >= EVENT_RESULT_COUNT)
		return 0;
	return (reasons[reason].results & (1u << result)) != 0;
}

enum event_reason
event_reason_of_end(enum game_end end)
{
	switch (end) {
	case GAME_END_NONE:
		return EVENT_REASON_NONE;
	case GAME_END_BLOCKED:
		return EVENT_REASON_BLOCKED;
	case GAME_END_LINE:
		return EVENT_REASON_LINE;
	case GAME_END_FULL:
		return EVENT_REASON_FULL;
	}
	return EVENT_REASON_NONE;
}

/* Encoding. The helpers take our own values: a bad one is a bug, not an error. */

/* The name of seat, which must be one. */
static const char *
seat_name(enum game_kind kind, int seat)
{
	if (seat != 0 && seat != 1)
		abort();
	return game_side_name(kind, seat);
}

/* The name of seat as a JSON value: a string, or null for -1. Returns a new reference. */
static json_t *
seat_or_null(enum game_kind kind, int seat)
{
	return seat < 0 ? json_null() : json_string(seat_name(kind, seat));
}

/* Set member key to a string that must be there. */
static void
put_str(json_t *o, const char *key, const char *s)
{
	if (s == NULL)
		abort();
	json_object_set_new(o, key, json_string(s));
}

static void
put_int(json_t *o, const char *key, int64_t v)
{
	json_object_set_new(o, key, json_integer((json_int_t)v));
}

static void
put_seat(json_t *o, const char *key, enum game_kind kind, int seat)
{
	json_object_set_new(o, key, json_string(seat_name(kind, seat)));
}

json_t *
event_player_encode(const struct event_player *p)
{
	json_t *o = json_object();

	put_str(o, "id", p->id);
	put_str(o, "name", p->name);
	put_str(o, "kind", event_member_kind_name(p->kind));
	if (p->rating != NULL)
		put_str(o, "rating", p->rating);
	if (p->computer > 0)
		put_int(o, "computer", p->computer);
	return o;
}

/* Set key to {side0: v[0], side1: v[1]} when the pair is there. */
static void
put_pair(json_t *o, const char *key, enum game_kind kind, const struct event_pair *p)
{
	json_t *v;

	if (!p->has)
		return;
	v = json_object();
	for (int i = 0; i < 2; i++)
		put_int(v, game_side_name(kind, i), p->v[i]);
	json_object_set_new(o, key, v);
}

/* An array of n strings: a new reference. */
static json_t *
strings_new(const char *const *s, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(s[i]));
	return a;
}

static void
seated_encode(const struct event *ev, json_t *o)
{
	put_seat(o, "seat", ev->kind, ev->u.seated.seat);
	json_object_set_new(o, "player", event_player_encode(&ev->u.seated.player));
}

static void
started_encode(const struct event *ev, json_t *o)
{
	const struct event_started *s = &ev->u.started;
	json_t *players = json_object();

	put_str(o, "kind", game_kind_name(ev->kind));
	put_str(o, "variant", s->variant);
	for (int i = 0; i < 2; i++)
		json_object_set_new(players, game_side_name(ev->kind, i),
		                    event_player_encode(&s->players[i]));
	json_object_set_new(o, "players", players);
	put_str(o, "position", s->position);
	put_seat(o, "to_move", ev->kind, s->to_move);
	if (s->clock != NULL)
		put_str(o, "clock", s->clock);
	put_pair(o, "clocks", ev->kind, &s->clocks);
	if (s->unrated != EVENT_UNRATED_NONE)
		put_str(o, "unrated", event_unrated_name(s->unrated));
}

static void
moved_encode(const struct event *ev, json_t *o)
{
	const struct event_moved *m = &ev->u.moved;

	put_seat(o, "by", ev->kind, m->by);
	put_str(o, "move", m->move);
	put_int(o, "ply", m->ply);
	put_str(o, "position", m->position);
	json_object_set_new(o, "to_move", seat_or_null(ev->kind, m->to_move));
	put_pair(o, "scores", ev->kind, &m->scores);
	put_pair(o, "clocks", ev->kind, &m->clocks);
}

/* result, winner, reason: the head of a result object and of game_over. */
static void
outcome_head_encode(enum game_kind kind, const struct event_outcome *out, json_t *o)
{
	put_str(o, "result", event_result_name(out->result));
	json_object_set_new(o, "winner", seat_or_null(kind, out->winner));
	put_str(o, "reason", event_reason_name(out->reason));
	if (out->line != 0) {
		json_t *a = json_array();
		char name[3];

		for (int sq = 0; sq < 36; sq++) {
			if (!(out->line >> sq & 1))
				continue;
			game_square_name(sq, name);
			json_array_append_new(a, json_string(name));
		}
		json_object_set_new(o, "line", a);
	}
}

/* The optional "line" of a result: the squares of a line, for the reason "line" only. */
static int
line_decode(const json_t *o, struct event_outcome *out, struct msg_error *err)
{
	const json_t *a = json_object_get(o, "line"), *v;
	size_t i;

	out->line = 0;
	if (a == NULL)
		return 0;
	if (!json_is_array(a) || out->reason != EVENT_REASON_LINE)
		return event_member_fail(err, PROTO_EBADFIELD, "line",
		                         "'line' is an array of squares, for a line only.");
	json_array_foreach(a, i, v)
	{
		int sq = json_is_string(v) ? game_square_parse(json_string_value(v)) : -1;

		if (sq < 0 || sq >= 36)
			return event_member_fail(err, PROTO_EBADVALUE, "line",
			                         "'line' holds a square that is not one.");
		out->line |= (uint64_t)1 << sq;
	}
	return 0;
}

json_t *
event_outcome_encode(enum game_kind kind, const struct event_outcome *out)
{
	json_t *o = json_object();

	outcome_head_encode(kind, out, o);
	put_pair(o, "scores", kind, &out->scores);
	return o;
}

/* The members of a rating as shown: the whole points, "?" while provisional. */
static void
put_display(json_t *o, const char *key, const struct glicko *g)
{
	char text[GLICKO_DISPLAY_MAX];

	if (glicko_display(g, text, sizeof text) < 0)
		abort(); /* our own values: finite */
	put_str(o, key, text);
}

/* {"before","after","before_rd","after_rd","before_display","after_display"}: a new reference. */
static json_t *
rating_change_new(const struct event_rating_change *c)
{
	json_t *o = json_object();

	json_object_set_new(o, "before", json_real(c->before.rating));
	json_object_set_new(o, "after", json_real(c->after.rating));
	json_object_set_new(o, "before_rd", json_real(c->before.rd));
	json_object_set_new(o, "after_rd", json_real(c->after.rd));
	put_display(o, "before_display", &c->before);
	put_display(o, "after_display", &c->after);
	return o;
}

static void
game_over_encode(const struct event *ev, json_t *o)
{
	const struct event_game_over *g = &ev->u.game_over;
	json_t *ratings;

	outcome_head_encode(ev->kind, &g->outcome, o);
	put_int(o, "ply", g->ply);
	put_pair(o, "scores", ev->kind, &g->outcome.scores);
	put_pair(o, "clocks", ev->kind, &g->clocks);
	if (g->unrated != EVENT_UNRATED_NONE)
		put_str(o, "unrated", event_unrated_name(g->unrated));
	if (!g->rated)
		return;
	ratings = json_object();
	for (int i = 0; i < 2; i++)
		json_object_set_new(ratings, game_side_name(ev->kind, i),
		                    rating_change_new(&g->ratings[i]));
	json_object_set_new(o, "ratings", ratings);
}

static void
offer_encode(const struct event *ev, json_t *o)
{
	put_seat(o, "by", ev->kind, ev->u.offer.by);
}

static void
chat_encode(const struct event *ev, json_t *o)
{
	put_seat(o, "seat", ev->kind, ev->u.chat.seat);
	json_object_set_new(o, "player", event_player_encode(&ev->u.chat.player));
	put_str(o, "text", ev->u.chat.text);
}

static void
grace_over_encode(const struct event *ev, json_t *o)
{
	put_seat(o, "seat", ev->kind, ev->u.grace_over.seat);
	put_pair(o, "clocks", ev->kind, &ev->u.grace_over.clocks);
}

static void
adjourned_encode(const struct event *ev, json_t *o)
{
	put_seat(o, "seat", ev->kind, ev->u.adjourned.seat);
}

static void
resumed_encode(const struct event *ev, json_t *o)
{
	put_seat(o, "to_move", ev->kind, ev->u.resumed.to_move);
}

static void
rematch_started_encode(const struct event *ev, json_t *o)
{
	put_str(o, "new_game", ev->u.rematch_started.new_game);
}

static void
your_turn_encode(const struct event *ev, json_t *o)
{
	const struct event_your_turn *y = &ev->u.your_turn;

	json_object_set_new(o, "moves",
	                    y->moves == NULL && y->moves_json != NULL
	                            ? json_deep_copy(y->moves_json)
	                            : strings_new(y->moves, y->n));
}

static void
presence_encode(const struct event *ev, json_t *o)
{
	const struct event_presence *p = &ev->u.presence;

	put_seat(o, "seat", ev->kind, p->seat);
	json_object_set_new(o, "player", event_player_encode(&p->player));
	json_object_set_new(o, "connected", json_boolean(p->connected));
	if (p->has_grace) {
		put_int(o, "grace_ms", p->grace_ms);
		json_object_set_new(o, "grace_over", json_boolean(p->grace_over));
	}
}

static void
spectators_encode(const struct event *ev, json_t *o)
{
	const struct event_spectators *s = &ev->u.spectators;

	json_t *names = s->names == NULL && s->names_json != NULL ? json_deep_copy(s->names_json)
	                                                          : strings_new(s->names, s->n);

	json_object_set_new(o, "spectators",
	                    json_pack("{s:I,s:o}", "count", (json_int_t)s->count, "names", names));
}

static void
kibitz_encode(const struct event *ev, json_t *o)
{
	json_object_set_new(o, "player", event_player_encode(&ev->u.kibitz.player));
	put_str(o, "text", ev->u.kibitz.text);
}

/* Decoding: each decoder is a chain of EVENT_TRY()s over the member readers of event-member.h. */

static int
seated_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	EVENT_TRY(event_member_seat(o, "seat", ev->kind, 0, &ev->u.seated.seat, err));
	return event_member_player_in(o, "player", 1, &ev->u.seated.player, err);
}

/* The optional "unrated" of started and game_over: a word of event_unrated_name(). */
static int
unrated_decode(const json_t *o, enum event_unrated *out, struct msg_error *err)
{
	const char *word = NULL;

	*out = EVENT_UNRATED_NONE;
	EVENT_TRY(event_member_opt_str(o, "unrated", &word, err));
	if (word != NULL && event_unrated_parse(word, out) < 0)
		return event_member_fail(err, PROTO_EBADVALUE, "unrated",
		                         "'unrated' is not a reason a game is not rated.");
	return 0;
}

static int
started_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	struct event_started *s = &ev->u.started;
	const char *kind;
	const json_t *players;

	EVENT_TRY(event_member_str(o, "kind", 1, &kind, err));
	if (strcmp(kind, game_kind_name(ev->kind)) != 0)
		return event_member_fail(err, PROTO_EBADVALUE, "kind",
		                         "'kind' is '%.20s' in a game of %s.", kind,
		                         game_kind_name(ev->kind));
	EVENT_TRY(event_member_str(o, "variant", 1, &s->variant, err));
	if (game_variant_check(ev->kind, s->variant, NULL) < 0)
		return event_member_fail(err, PROTO_EBADVALUE, "variant",
		                         "%s has no variant '%.40s'.", game_kind_name(ev->kind),
		                         s->variant);
	players = event_member_get(o, "players", err);
	if (players == NULL)
		return err->code;
	if (!json_is_object(players))
		return event_member_fail(err, PROTO_EBADFIELD, "players",
		                         "'players' must be an object.");
	for (int i = 0; i < 2; i++)
		EVENT_TRY(event_member_player(json_object_get(players, game_side_name(ev->kind, i)),
		                              "players", 1, &s->players[i], err));
	EVENT_TRY(event_member_str(o, "position", 1, &s->position, err));
	EVENT_TRY(event_member_seat(o, "to_move", ev->kind, 0, &s->to_move, err));
	EVENT_TRY(event_member_opt_str(o, "clock", &s->clock, err));
	EVENT_TRY(event_member_pair(o, "clocks", ev->kind, 0, &s->clocks, err));
	if ((s->clock != NULL) != s->clocks.has)
		return event_member_fail(err, PROTO_EBADVALUE,
		                         s->clock != NULL ? "clocks" : "clock",
		                         "'clock' and 'clocks' come together.");
	if (s->clock != NULL) {
		uint64_t base, inc;
		if (protocol_clock_parse(s->clock, &base, &inc) < 0 || base == 0)
			return event_member_fail(err, PROTO_EBADVALUE, "clock",
			                         "'clock' is not a time control.");
	}
	return unrated_decode(o, &s->unrated, err);
}

static int
moved_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	struct event_moved *m = &ev->u.moved;

	EVENT_TRY(event_member_seat(o, "by", ev->kind, 0, &m->by, err));
	EVENT_TRY(event_member_str(o, "move", 1, &m->move, err));
	EVENT_TRY(event_member_int(o, "ply", 1, &m->ply, err));
	EVENT_TRY(event_member_str(o, "position", 1, &m->position, err));
	EVENT_TRY(event_member_seat(o, "to_move", ev->kind, 1, &m->to_move, err));
	EVENT_TRY(event_member_pair(o, "scores", ev->kind, 1, &m->scores, err));
	return event_member_pair(o, "clocks", ev->kind, 0, &m->clocks, err);
}

/* The members of a result object, in o (a result object or a game_over). */
static int
outcome_decode(const json_t *o, enum game_kind kind, struct event_outcome *out,
               struct msg_error *err)
{
	const char *word;

	EVENT_TRY(event_member_str(o, "result", 0, &word, err));
	if (event_result_parse(word, &out->result) < 0)
		return event_member_fail(err, PROTO_EBADVALUE, "result", "No result '%.40s'.",
		                         word);
	EVENT_TRY(event_member_seat(o, "winner", kind, 1, &out->winner, err));
	if ((out->result == EVENT_RESULT_WIN) != (out->winner >= 0))
		return event_member_fail(err, PROTO_EBADVALUE, "winner",
		                         "'winner' is a seat for a win and null otherwise.");
	EVENT_TRY(event_member_str(o, "reason", 0, &word, err));
	if (event_reason_parse(word, &out->reason) < 0)
		return event_member_fail(err, PROTO_EBADVALUE, "reason", "No reason '%.40s'.",
		                         word);
	if (!event_reason_allows(out->reason, out->result))
		return event_member_fail(err, PROTO_EBADVALUE, "reason",
		                         "A %s is never for the reason '%s'.",
		                         event_result_name(out->result), word);
	EVENT_TRY(line_decode(o, out, err));
	return event_member_pair(o, "scores", kind, 1, &out->scores, err);
}

int
event_outcome_decode(const json_t *o, enum game_kind kind, struct event_outcome *out,
                     struct msg_error *err)
{
	memset(out, 0, sizeof *out);
	if (!json_is_object(o))
		return event_member_fail(err, PROTO_EBADFIELD, "result",
		                         "A result must be an object.");
	return outcome_decode(o, kind, out, err);
}

/* A number member of c that glicko accepts (finite; an RD above 0). */
static int
rating_number(const json_t *c, const char *key, int positive, double *out, struct msg_error *err)
{
	const json_t *v = json_object_get(c, key);

	if (!json_is_number(v))
		return event_member_fail(err, PROTO_EBADFIELD, "ratings",
		                         "'ratings': '%s' must be a number.", key);
	*out = json_number_value(v);
	if (*out != *out || *out > 1e9 || *out < -1e9 || (positive && !(*out > 0)))
		return event_member_fail(err, PROTO_EBADVALUE, "ratings",
		                         "'ratings': '%s' is out of range.", key);
	return 0;
}

/* The optional "ratings" of a game_over: one change per seat, of a game not aborted. */
static int
ratings_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	struct event_game_over *g = &ev->u.game_over;
	const json_t *r = json_object_get(o, "ratings");

	g->rated = r != NULL;
	if (r == NULL)
		return 0;
	if (!json_is_object(r) || g->outcome.result == EVENT_RESULT_ABORTED)
		return event_member_fail(err, PROTO_EBADVALUE, "ratings",
		                         "'ratings' is an object of a game that was not aborted.");
	for (int i = 0; i < 2; i++) {
		const json_t *c = json_object_get(r, game_side_name(ev->kind, i));
		struct event_rating_change *rc = &g->ratings[i];

		if (!json_is_object(c))
			return event_member_fail(err, PROTO_EBADFIELD, "ratings",
			                         "'ratings' has an object for each seat.");
		memset(rc, 0, sizeof *rc);
		EVENT_TRY(rating_number(c, "before", 0, &rc->before.rating, err));
		EVENT_TRY(rating_number(c, "after", 0, &rc->after.rating, err));
		EVENT_TRY(rating_number(c, "before_rd", 1, &rc->before.rd, err));
		EVENT_TRY(rating_number(c, "after_rd", 1, &rc->after.rd, err));
	}
	return 0;
}

static int
game_over_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	struct event_game_over *g = &ev->u.game_over;

	EVENT_TRY(outcome_decode(o, ev->kind, &g->outcome, err));
	EVENT_TRY(event_member_int(o, "ply", 0, &g->ply, err));
	EVENT_TRY(event_member_pair(o, "clocks", ev->kind, 0, &g->clocks, err));
	EVENT_TRY(unrated_decode(o, &g->unrated, err));
	if (g->unrated != EVENT_UNRATED_NONE && json_object_get(o, "ratings") != NULL)
		return event_member_fail(err, PROTO_EBADVALUE, "unrated",
		                         "'unrated' and 'ratings' never come together.");
	return ratings_decode(o, ev, err);
}

static int
offer_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	return event_member_seat(o, "by", ev->kind, 0, &ev->u.offer.by, err);
}

static int
chat_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	EVENT_TRY(event_member_seat(o, "seat", ev->kind, 0, &ev->u.chat.seat, err));
	EVENT_TRY(event_member_player_in(o, "player", 0, &ev->u.chat.player, err));
	return event_member_str(o, "text", 1, &ev->u.chat.text, err);
}

static int
grace_over_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	EVENT_TRY(event_member_seat(o, "seat", ev->kind, 0, &ev->u.grace_over.seat, err));
	return event_member_pair(o, "clocks", ev->kind, 0, &ev->u.grace_over.clocks, err);
}

static int
adjourned_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	return event_member_seat(o, "seat", ev->kind, 0, &ev->u.adjourned.seat, err);
}

static int
resumed_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	return event_member_seat(o, "to_move", ev->kind, 0, &ev->u.resumed.to_move, err);
}

static int
rematch_started_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	return event_member_str(o, "new_game", 1, &ev->u.rematch_started.new_game, err);
}

static int
your_turn_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	EVENT_TRY(event_member_strings(o, "moves", &ev->u.your_turn.moves_json, err));
	ev->u.your_turn.n = json_array_size(ev->u.your_turn.moves_json);
	return 0;
}

static int
presence_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	struct event_presence *p = &ev->u.presence;
	int has_ms = json_object_get(o, "grace_ms") != NULL;

	EVENT_TRY(event_member_seat(o, "seat", ev->kind, 0, &p->seat, err));
	EVENT_TRY(event_member_player_in(o, "player", 0, &p->player, err));
	EVENT_TRY(event_member_bool(o, "connected", &p->connected, err));
	if (has_ms != (json_object_get(o, "grace_over") != NULL))
		return event_member_fail(err, PROTO_EBADFIELD, has_ms ? "grace_over" : "grace_ms",
		                         "'grace_ms' and 'grace_over' come together.");
	p->has_grace = has_ms;
	if (!has_ms)
		return 0;
	if (p->connected)
		return event_member_fail(err, PROTO_EBADVALUE, "grace_ms",
		                         "A player who is back has no grace period.");
	EVENT_TRY(event_member_int(o, "grace_ms", 0, &p->grace_ms, err));
	return event_member_bool(o, "grace_over", &p->grace_over, err);
}

static int
spectators_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	struct event_spectators *s = &ev->u.spectators;
	const json_t *v = event_member_get(o, "spectators", err);

	if (v == NULL)
		return err->code;
	if (!json_is_object(v))
		return event_member_fail(err, PROTO_EBADFIELD, "spectators",
		                         "'spectators' must be an object.");
	if (event_member_int(v, "count", 0, &s->count, err) < 0 ||
	    event_member_strings(v, "names", &s->names_json, err) < 0)
		return event_member_fail(
		        err, err->code, "spectators",
		        "'spectators' must have a 'count' of at least 0 and an array of 'names'.");
	s->n = json_array_size(s->names_json);
	if ((int64_t)s->n > s->count)
		return event_member_fail(err, PROTO_EBADVALUE, "spectators",
		                         "'spectators' names more than its count.");
	return 0;
}

static int
kibitz_decode(const json_t *o, struct event *ev, struct msg_error *err)
{
	EVENT_TRY(event_member_player_in(o, "player", 0, &ev->u.kibitz.player, err));
	return event_member_str(o, "text", 1, &ev->u.kibitz.text, err);
}

/*
 * The codec of each event and notice. has_seq: its head has "seq" (every event; your_turn, whose
 * seq is that of the last event, so possibly 0 ... never in practice, but a state's seq can be).
 */
static const struct {
	void (*encode)(const struct event *ev, json_t *o);
	int (*decode)(const json_t *o, struct event *ev, struct msg_error *err);
	int has_seq;
} codecs[MSG_TYPE_COUNT] = {
        [MSG_SEATED] = {seated_encode, seated_decode, 1},
        [MSG_STARTED] = {started_encode, started_decode, 1},
        [MSG_MOVED] = {moved_encode, moved_decode, 1},
        [MSG_GAME_OVER] = {game_over_encode, game_over_decode, 1},
        [MSG_DRAW_OFFERED] = {offer_encode, offer_decode, 1},
        [MSG_DRAW_DECLINED] = {offer_encode, offer_decode, 1},
        [MSG_CHAT] = {chat_encode, chat_decode, 1},
        [MSG_GRACE_OVER] = {grace_over_encode, grace_over_decode, 1},
        [MSG_ADJOURNED] = {adjourned_encode, adjourned_decode, 1},
        [MSG_RESUMED] = {resumed_encode, resumed_decode, 1},
        [MSG_REMATCH_OFFERED] = {offer_encode, offer_decode, 1},
        [MSG_REMATCH_DECLINED] = {offer_encode, offer_decode, 1},
        [MSG_REMATCH_STARTED] = {rematch_started_encode, rematch_started_decode, 1},
        [MSG_YOUR_TURN] = {your_turn_encode, your_turn_decode, 1},
        [MSG_PRESENCE] = {presence_encode, presence_decode, 0},
        [MSG_SPECTATORS] = {spectators_encode, spectators_decode, 0},
        [MSG_KIBITZ] = {kibitz_encode, kibitz_decode, 0},
};

int
event_type_known(enum msg_type type)
{
	return (int)type > MSG_NONE && type < MSG_TYPE_COUNT && codecs[type].encode != NULL;
}

json_t *
event_encode(const struct event *ev)
{
	json_t *o;

	if (!event_type_known(ev->type))
		abort();
	o = msg_new(ev->type, NULL);
	put_str(o, "game", ev->game);
	if (codecs[ev->type].has_seq)
		put_int(o, "seq", ev->seq);
	codecs[ev->type].encode(ev, o);
	return o;
}

struct wire *
event_wire(const struct event *ev)
{
	const struct event_moved *m = &ev->u.moved;
	struct msg_moved mv;

	if (ev->type != MSG_MOVED)
		return wire_encode_steal(event_encode(ev));
	memset(&mv, 0, sizeof mv);
	mv.game = ev->game;
	mv.seq = ev->seq;
	mv.by = seat_name(ev->kind, m->by);
	mv.move = m->move;
	mv.ply = m->ply;
	mv.position = m->position;
	mv.to_move = m->to_move < 0 ? NULL : seat_name(ev->kind, m->to_move);
	for (int i = 0; i < 2; i++) {
		mv.side[i] = game_side_name(ev->kind, i);
		mv.scores[i] = m->scores.v[i];
		mv.clocks[i] = m->clocks.v[i];
	}
	mv.has_scores = m->scores.has;
	mv.has_clocks = m->clocks.has;
	return msg_moved_wire(&mv);
}

int
event_decode(const json_t *o, enum game_kind kind, struct event *ev, struct msg_error *err)
{
	const char *type;

	memset(ev, 0, sizeof *ev);
	ev->kind = kind;
	ev->seq = -1;
	if (!json_is_object(o))
		return event_member_fail(err, PROTO_EBADJSON, NULL,
		                         "An event must be a JSON object.");
	EVENT_TRY(event_member_str(o, "type", 1, &type, err));
	ev->type = msg_type_parse(type);
	if (!event_type_known(ev->type))
		return event_member_fail(err, PROTO_EUNKNOWNTYPE, "type",
		                         "'%.40s' is not an event or a notice.", type);
	EVENT_TRY(event_member_str(o, "game", 1, &ev->game, err));
	if (codecs[ev->type].has_seq)
		EVENT_TRY(event_member_int(o, "seq", ev->type == MSG_YOUR_TURN ? 0 : 1, &ev->seq,
		                           err));
	return codecs[ev->type].decode(o, ev, err);
}
