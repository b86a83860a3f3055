/*
 * event-member.h: readers of the members shared by game events, notices and states (event.c,
 * event-state.c).
 *
 * Every reader returns 0 with its output set, or a negative enum protocol_err with err filled:
 * PROTO_EBADFIELD (the member is missing, or of a wrong JSON type) or PROTO_EBADVALUE (a value
 * PROTOCOL.md does not allow), naming key in err->field. Strings are borrowed from the object.
 */
#ifndef HOKITO_PROTOCOL_EVENT_MEMBER_H
#define HOKITO_PROTOCOL_EVENT_MEMBER_H

#include <stdint.h>

#include <jansson.h>

#include "event.h"

/* Return the code of a failed reader at once: a decoder is a chain of EVENT_TRY()s. */
#define EVENT_TRY(call)                                                                            \
	do {                                                                                       \
		int rc_ = (call);                                                                  \
		if (rc_ < 0)                                                                       \
			return rc_;                                                                \
	} while (0)

/* Fill err (code, field: NULL for none, the sentence) and return code. */
int event_member_fail(struct msg_error *err, int code, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 4, 5)))
#endif
        ;

/* Member key of o, borrowed; NULL with err filled (bad_field) when it is missing. */
const json_t *event_member_get(const json_t *o, const char *key, struct msg_error *err);

/* A string member; with nonempty, "" is refused (bad_value). */
int event_member_str(const json_t *o, const char *key, int nonempty, const char **out,
                     struct msg_error *err);

/* An optional nonempty string member: *out is NULL when it is absent. */
int event_member_opt_str(const json_t *o, const char *key, const char **out, struct msg_error *err);

/* An integer member of at least min. */
int event_member_int(const json_t *o, const char *key, int64_t min, int64_t *out,
                     struct msg_error *err);

/* A boolean member, as 1 or 0. */
int event_member_bool(const json_t *o, const char *key, int *out, struct msg_error *err);

/* A seat of kind by its exact name (0 or 1); with nullable, null gives -1. */
int event_member_seat(const json_t *o, const char *key, enum game_kind kind, int nullable, int *out,
                      struct msg_error *err);

/*
 * The player object v (7.1), named key in errors: "id" and "name" nonempty strings; with
 * with_computer, a "computer" level from PROTOCOL_LEVEL_MIN to PROTOCOL_LEVEL_MAX when present
 * (p->computer, 0 without); "kind" one of event_member_kind_name()'s words (absent, in a line
 * stored before players had one: the computer with a level, else a guest); "rating" a nonempty
 * string when present (p->rating, NULL without). Other members are left to the caller.
 */
int event_member_player(const json_t *v, const char *key, int with_computer, struct event_player *p,
                        struct msg_error *err);

/* The word of a player's kind ("guest", "account", "computer", "bot"; the one table of them), or
 * NULL for a value out of range. */
const char *event_member_kind_name(enum event_player_kind kind);

/* event_member_player() of member key of o. */
int event_member_player_in(const json_t *o, const char *key, int with_computer,
                           struct event_player *p, struct msg_error *err);

/*
 * An optional pair {seat0: n, seat1: n} of integers of at least 0 (p->has = 0 when absent);
 * with scores_only the member is the scores, refused in a kind without them.
 */
int event_member_pair(const json_t *o, const char *key, enum game_kind kind, int scores_only,
                      struct event_pair *p, struct msg_error *err);

/* An array of strings in member key; *out borrows it. */
int event_member_strings(const json_t *o, const char *key, const json_t **out,
                         struct msg_error *err);

#endif
