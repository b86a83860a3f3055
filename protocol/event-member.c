/*
 * event-member.c: the readers of the members that game events, notices and states share.
 *
 * Each reader takes one member of a JSON object, checks it as PROTOCOL.md says (its JSON type, a
 * seat of the game's kind, a number not below its least value, a player object, a pair of numbers
 * per seat) and either sets its output or fills the caller's error with the code, the member and
 * a sentence (bad_field for a missing member or a wrong JSON type, bad_value for a value refused).
 * event.c's decoders and event-state.c's reading of a state are chains of these. Strings are
 * borrowed from the object. No allocation, no I/O.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "event-member.h"
#include "protocol.h"

int
event_member_fail(struct msg_error *err, int code, const char *field, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	snprintf(err->field, sizeof err->field, "%s", field != NULL ? field : "");
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof err->text, fmt, ap);
	va_end(ap);
	return code;
}

/* Member key of o, which must be there: NULL with err filled when absent. */
const json_t *
event_member_get(const json_t *o, const char *key, struct msg_error *err)
{
	const json_t *v = json_object_get(o, key);

	if (v == NULL)
		event_member_fail(err, PROTO_EBADFIELD, key, "'%s' is missing.", key);
	return v;
}

/* A string member; empty strings are refused where nonempty is set. */
int
event_member_str(const json_t *o, const char *key, int nonempty, const char **out,
                 struct msg_error *err)
{
	const json_t *v = event_member_get(o, key, err);

	if (v == NULL)
		return err->code;
	if (!json_is_string(v))
		return event_member_fail(err, PROTO_EBADFIELD, key, "'%s' must be a string.", key);
	if (nonempty && json_string_length(v) == 0)
		return event_member_fail(err, PROTO_EBADVALUE, key, "'%s' must not be empty.", key);
	*out = json_string_value(v);
	return 0;
}

/* An optional string member: *out stays NULL when absent. */
int
event_member_opt_str(const json_t *o, const char *key, const char **out, struct msg_error *err)
{
	*out = NULL;
	return json_object_get(o, key) == NULL ? 0 : event_member_str(o, key, 1, out, err);
}

/* An integer member of at least min. */
int
event_member_int(const json_t *o, const char *key, int64_t min, int64_t *out, struct msg_error *err)
{
	const json_t *v = event_member_get(o, key, err);

	if (v == NULL)
		return err->code;
	if (!json_is_integer(v))
		return event_member_fail(err, PROTO_EBADFIELD, key, "'%s' must be an integer.",
		                         key);
	if (json_integer_value(v) < min)
		return event_member_fail(err, PROTO_EBADVALUE, key, "'%s' must be at least %lld.",
		                         key, (long long)min);
	*out = (int64_t)json_integer_value(v);
	return 0;
}

int
event_member_bool(const json_t *o, const char *key, int *out, struct msg_error *err)
{
	const json_t *v = event_member_get(o, key, err);

	if (v == NULL)
		return err->code;
	if (!json_is_boolean(v))
		return event_member_fail(err, PROTO_EBADFIELD, key, "'%s' must be true or false.",
		                         key);
	*out = json_is_true(v);
	return 0;
}

/* A seat of the game's kind; with nullable, null is -1. */
int
event_member_seat(const json_t *o, const char *key, enum game_kind kind, int nullable, int *out,
                  struct msg_error *err)
{
	const json_t *v = event_member_get(o, key, err);

	if (v == NULL)
		return err->code;
	if (nullable && json_is_null(v)) {
		*out = -1;
		return 0;
	}
	if (!json_is_string(v))
		return event_member_fail(err, PROTO_EBADFIELD, key, "'%s' must be a seat name%s.",
		                         key, nullable ? " or null" : "");
	if (game_side_parse(kind, json_string_value(v), out) < 0 ||
	    strcmp(json_string_value(v), game_side_name(kind, *out)) != 0)
		return event_member_fail(err, PROTO_EBADVALUE, key,
		                         "'%s' is not a seat of %s: '%.40s'.", key,
		                         game_kind_name(kind), json_string_value(v));
	return 0;
}

static const char *const kind_words[EVENT_PLAYER_KIND_COUNT] = {
        [EVENT_PLAYER_GUEST] = "guest",
        [EVENT_PLAYER_ACCOUNT] = "account",
        [EVENT_PLAYER_COMPUTER] = "computer",
        [EVENT_PLAYER_BOT] = "bot",
};

const char *
event_member_kind_name(enum event_player_kind kind)
{
	return (int)kind >= 0 && kind < EVENT_PLAYER_KIND_COUNT ? kind_words[kind] : NULL;
}

/* The kind of word (NULL: none), or -1. */
static int
kind_parse(const char *word)
{
	for (int i = 0; word != NULL && i < EVENT_PLAYER_KIND_COUNT; i++)
		if (strcmp(kind_words[i], word) == 0)
			return i;
	return -1;
}

/*
 * The "kind" and "rating" of player object v: a kind that is not one of event.h's words, or a
 * rating that is not a nonempty string, is refused. Without "kind" (a line stored before players
 * had one) the computer has a level and anybody else is a guest.
 */
static int
player_kind(const json_t *v, const char *key, struct event_player *p, struct msg_error *err)
{
	const json_t *kind = json_object_get(v, "kind");

	int k = kind == NULL ? (p->computer > 0 ? EVENT_PLAYER_COMPUTER : EVENT_PLAYER_GUEST)
	                     : kind_parse(json_string_value(kind));

	if (k < 0)
		return event_member_fail(err, PROTO_EBADVALUE, key,
		                         "'%s': 'kind' is account, guest, computer or bot.", key);
	p->kind = (enum event_player_kind)k;
	if (event_member_opt_str(v, "rating", &p->rating, err) < 0)
		return event_member_fail(err, PROTO_EBADVALUE, key,
		                         "'%s': 'rating' must be a nonempty string.", key);
	return 0;
}

/*
 * A player object {"id","name","kind"[,"rating"][,"computer"]} in member key (of o, or o itself
 * when key is NULL).
 */
int
event_member_player(const json_t *v, const char *key, int with_computer, struct event_player *p,
                    struct msg_error *err)
{
	const json_t *level;

	if (!json_is_object(v))
		return event_member_fail(err, PROTO_EBADFIELD, key, "'%s' must be a player object.",
		                         key);
	if (event_member_str(v, "id", 1, &p->id, err) < 0 ||
	    event_member_str(v, "name", 1, &p->name, err) < 0)
		return event_member_fail(err, err->code, key,
		                         "'%s' must have a string 'id' and 'name'.", key);
	p->computer = 0;
	level = json_object_get(v, "computer");
	if (level == NULL || !with_computer)
		return player_kind(v, key, p, err);
	if (!json_is_integer(level) || json_integer_value(level) < PROTOCOL_LEVEL_MIN ||
	    json_integer_value(level) > PROTOCOL_LEVEL_MAX)
		return event_member_fail(err, PROTO_EBADVALUE, key,
		                         "'%s': 'computer' must be a level from %d to %d.", key,
		                         PROTOCOL_LEVEL_MIN, PROTOCOL_LEVEL_MAX);
	p->computer = (int)json_integer_value(level);
	return player_kind(v, key, p, err);
}

int
event_member_player_in(const json_t *o, const char *key, int with_computer, struct event_player *p,
                       struct msg_error *err)
{
	const json_t *v = event_member_get(o, key, err);

	return v == NULL ? err->code : event_member_player(v, key, with_computer, p, err);
}

/*
 * An optional pair {side0: n, side1: n} of integers of at least 0. scores_only: the member is
 * the scores, refused in a kind without them.
 */
int
event_member_pair(const json_t *o, const char *key, enum game_kind kind, int scores_only,
                  struct event_pair *p, struct msg_error *err)
{
	const json_t *v = json_object_get(o, key);

	p->has = 0;
	if (v == NULL)
		return 0;
	if (!json_is_object(v))
		return event_member_fail(err, PROTO_EBADFIELD, key, "'%s' must be an object.", key);
	if (scores_only && !game_kind_has(kind, GAME_HAS_SCORES))
		return event_member_fail(err, PROTO_EBADVALUE, key,
		                         "'%s' are sent only in a game with scores.", key);
	for (int i = 0; i < 2; i++) {
		const char *side = game_side_name(kind, i);
		const json_t *n = json_object_get(v, side);
		if (!json_is_integer(n) || json_integer_value(n) < 0)
			return event_member_fail(
			        err, json_is_integer(n) ? PROTO_EBADVALUE : PROTO_EBADFIELD, key,
			        "'%s' must give '%s' a number of at least 0.", key, side);
		p->v[i] = (int64_t)json_integer_value(n);
	}
	p->has = 1;
	return 0;
}

/* An array of strings in member key. */
int
event_member_strings(const json_t *o, const char *key, const json_t **out, struct msg_error *err)
{
	const json_t *v = event_member_get(o, key, err);

	if (v == NULL)
		return err->code;
	if (!json_is_array(v))
		return event_member_fail(err, PROTO_EBADFIELD, key, "'%s' must be an array.", key);
	for (size_t i = 0; i < json_array_size(v); i++)
		if (!json_is_string(json_array_get(v, i)))
			return event_member_fail(err, PROTO_EBADFIELD, key,
			                         "'%s' must hold strings only.", key);
	*out = v;
	return 0;
}
