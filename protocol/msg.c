/*
 * msg.c: decoding, validation and building of protocol messages.
 *
 * The members of every message type are kept in one schema table below, copied from the tables
 * of PROTOCOL.md: the name, the JSON type and whether the member is required. msg_decode() checks
 * a line against it, so a missing or wrong-typed member is always refused the same way
 * (bad_field, naming the member) for every type, and then checks the values of requests that need
 * no server state (kind, variant, seat, name, numbers). Unknown members are ignored, as the
 * protocol promises. This file never does I/O; it allocates only through jansson and returns
 * every reference it takes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

enum field_kind {
	F_STR,      /* string */
	F_INT,      /* integer */
	F_BOOL,     /* true or false */
	F_OBJ,      /* object */
	F_ARR,      /* array */
	F_STR_NULL, /* string or null */
	F_OBJ_NULL, /* object or null */
	F_SEED,     /* integer or string (a 64-bit seed) */
};

struct field {
	const char *name;
	enum field_kind kind;
	int required;
};

#define FIELDS_MAX 28

struct schema {
	const char *type;
	struct field fields[FIELDS_MAX]; /* ends at the first entry with a NULL name */
};

#define REQ(n, k)                                                                                  \
	{                                                                                          \
		n, k, 1                                                                            \
	}
#define OPT(n, k)                                                                                  \
	{                                                                                          \
		n, k, 0                                                                            \
	}
#define GAME_SEQ REQ("game", F_STR), REQ("seq", F_INT)

static const struct schema schemas[MSG_TYPE_COUNT] = {
        [MSG_HELLO] = {"hello",
                       {REQ("protocol", F_INT), OPT("name", F_STR), OPT("token", F_STR),
                        OPT("last_seq", F_INT), OPT("client", F_STR), OPT("password", F_STR)}},
        [MSG_LIST] = {"list", {OPT("offset", F_INT), OPT("limit", F_INT)}},
        [MSG_CREATE] = {"create",
                        {REQ("kind", F_STR), OPT("variant", F_STR), OPT("seat", F_STR),
                         OPT("private", F_BOOL), OPT("seed", F_SEED), OPT("clock", F_STR),
                         OPT("opponent", F_STR), OPT("level", F_INT), OPT("rated", F_BOOL)}},
        [MSG_JOIN] = {"join", {OPT("game", F_STR), OPT("code", F_STR)}},
        [MSG_QUICK] = {"quick",
                       {REQ("kind", F_STR), OPT("variant", F_STR), OPT("clock", F_STR),
                        OPT("rated", F_BOOL)}},
        [MSG_WATCH] = {"watch", {OPT("game", F_STR), OPT("code", F_STR)}},
        [MSG_MOVE] = {"move", {REQ("move", F_STR), OPT("game", F_STR)}},
        [MSG_RESIGN] = {"resign", {OPT("game", F_STR)}},
        [MSG_LEAVE] = {"leave", {{0}}},
        [MSG_PING] = {"ping", {{0}}},
        [MSG_SAY] = {"say", {REQ("text", F_STR), OPT("game", F_STR)}},
        [MSG_DRAW_OFFER] = {"draw_offer", {OPT("game", F_STR)}},
        [MSG_DRAW_ACCEPT] = {"draw_accept", {OPT("game", F_STR)}},
        [MSG_DRAW_DECLINE] = {"draw_decline", {OPT("game", F_STR)}},
        [MSG_ABORT] = {"abort", {OPT("game", F_STR)}},
        [MSG_CLAIM] = {"claim", {REQ("result", F_STR), OPT("game", F_STR)}},
        [MSG_REMATCH] = {"rematch", {OPT("game", F_STR)}},
        [MSG_REMATCH_DECLINE] = {"rematch_decline", {OPT("game", F_STR)}},
        [MSG_HISTORY] = {"history",
                         {OPT("offset", F_INT), OPT("limit", F_INT), OPT("after", F_STR),
                          OPT("player", F_STR)}},
        [MSG_RECORD] = {"record", {OPT("game", F_STR), OPT("code", F_STR)}},
        [MSG_REGISTER] = {"register", {REQ("name", F_STR), REQ("password", F_STR)}},
        [MSG_PASSWORD_CHANGE] = {"password_change", {REQ("old", F_STR), REQ("new", F_STR)}},
        [MSG_ACCOUNT_CLOSE] = {"account_close", {REQ("password", F_STR)}},
        [MSG_PROFILE] = {"profile", {OPT("name", F_STR)}},
        [MSG_LEADERBOARD] = {"leaderboard",
                             {REQ("kind", F_STR), OPT("after", F_STR), OPT("limit", F_INT),
                              OPT("provisional", F_BOOL)}},
        [MSG_TEST_CLOCK] = {"test_clock", {REQ("advance_ms", F_INT)}},
        [MSG_WELCOME] = {"welcome",
                         {REQ("protocol", F_INT), REQ("server", F_STR), REQ("player", F_OBJ),
                          REQ("token", F_STR), REQ("resumed", F_BOOL), REQ("game", F_STR_NULL),
                          REQ("limits", F_OBJ)}},
        [MSG_GAMES] = {"games", {REQ("games", F_ARR), OPT("total", F_INT), OPT("offset", F_INT)}},
        [MSG_STATE] = {"state",
                       {REQ("game", F_STR),
                        REQ("kind", F_STR),
                        REQ("variant", F_STR),
                        REQ("seed", F_STR),
                        REQ("private", F_BOOL),
                        OPT("code", F_STR),
                        REQ("status", F_STR),
                        REQ("seq", F_INT),
                        REQ("you", F_STR),
                        REQ("players", F_OBJ),
                        REQ("start", F_STR),
                        REQ("position", F_STR),
                        REQ("cells", F_ARR),
                        REQ("to_move", F_STR_NULL),
                        REQ("ply", F_INT),
                        REQ("moves", F_ARR),
                        OPT("scores", F_OBJ),
                        OPT("reserves", F_OBJ),
                        REQ("result", F_OBJ_NULL),
                        REQ("spectators", F_OBJ),
                        OPT("clock", F_OBJ_NULL),
                        OPT("draw_offer", F_STR_NULL),
                        OPT("rematch_offer", F_STR_NULL),
                        OPT("chat", F_ARR),
                        OPT("kibitz", F_ARR)}},
        [MSG_OK] = {"ok", {REQ("request", F_STR), OPT("seq", F_INT)}},
        [MSG_PONG] = {"pong", {{0}}},
        [MSG_ERROR] = {"error",
                       {REQ("code", F_STR), REQ("text", F_STR), OPT("request", F_STR),
                        OPT("field", F_STR)}},
        [MSG_BYE] = {"bye", {REQ("reason", F_STR), REQ("text", F_STR)}},
        [MSG_HISTORY_PAGE] = {"history_page",
                              {REQ("total", F_INT), REQ("offset", F_INT), REQ("games", F_ARR),
                               OPT("next", F_STR)}},
        [MSG_GAME_RECORD] = {"game_record", {REQ("game", F_STR), REQ("text", F_STR)}},
        [MSG_SEATED] = {"seated", {GAME_SEQ, REQ("seat", F_STR), REQ("player", F_OBJ)}},
        [MSG_STARTED] = {"started",
                         {GAME_SEQ, REQ("kind", F_STR), REQ("variant", F_STR),
                          REQ("players", F_OBJ), REQ("position", F_STR), REQ("to_move", F_STR),
                          OPT("clock", F_STR), OPT("clocks", F_OBJ)}},
        [MSG_MOVED] = {"moved",
                       {GAME_SEQ, REQ("by", F_STR), REQ("move", F_STR), REQ("ply", F_INT),
                        REQ("position", F_STR), REQ("to_move", F_STR_NULL), OPT("scores", F_OBJ),
                        OPT("clocks", F_OBJ)}},
        [MSG_GAME_OVER] = {"game_over",
                           {GAME_SEQ, REQ("result", F_STR), REQ("winner", F_STR_NULL),
                            REQ("reason", F_STR), REQ("ply", F_INT), OPT("scores", F_OBJ),
                            OPT("clocks", F_OBJ)}},
        [MSG_DRAW_OFFERED] = {"draw_offered", {GAME_SEQ, REQ("by", F_STR)}},
        [MSG_DRAW_DECLINED] = {"draw_declined", {GAME_SEQ, REQ("by", F_STR)}},
        [MSG_CHAT] = {"chat",
                      {GAME_SEQ, REQ("seat", F_STR), REQ("player", F_OBJ), REQ("text", F_STR)}},
        [MSG_GRACE_OVER] = {"grace_over", {GAME_SEQ, REQ("seat", F_STR), OPT("clocks", F_OBJ)}},
        [MSG_ADJOURNED] = {"adjourned", {GAME_SEQ, REQ("seat", F_STR)}},
        [MSG_RESUMED] = {"resumed", {GAME_SEQ, REQ("to_move", F_STR)}},
        [MSG_REMATCH_OFFERED] = {"rematch_offered", {GAME_SEQ, REQ("by", F_STR)}},
        [MSG_REMATCH_DECLINED] = {"rematch_declined", {GAME_SEQ, REQ("by", F_STR)}},
        [MSG_REMATCH_STARTED] = {"rematch_started", {GAME_SEQ, REQ("new_game", F_STR)}},
        [MSG_YOUR_TURN] = {"your_turn", {GAME_SEQ, REQ("moves", F_ARR)}},
        [MSG_PRESENCE] = {"presence",
                          {REQ("game", F_STR), REQ("seat", F_STR), REQ("player", F_OBJ),
                           REQ("connected", F_BOOL)}},
        [MSG_SPECTATORS] = {"spectators", {REQ("game", F_STR), REQ("spectators", F_OBJ)}},
        [MSG_KIBITZ] = {"kibitz", {REQ("game", F_STR), REQ("player", F_OBJ), REQ("text", F_STR)}},
};

static const char *const kind_words[] = {
        [F_STR] = "a string",
        [F_INT] = "an integer",
        [F_BOOL] = "true or false",
        [F_OBJ] = "an object",
        [F_ARR] = "an array",
        [F_STR_NULL] = "a string or null",
        [F_OBJ_NULL] = "an object or null",
        [F_SEED] = "an integer or a decimal string",
};

const char *
msg_type_name(enum msg_type type)
{
	if ((int)type <= MSG_NONE || type >= MSG_TYPE_COUNT)
		return NULL;
	return schemas[type].type;
}

/* Every line and every stored event is looked up here: the first byte rules most names out. */
enum msg_type
msg_type_parse(const char *name)
{
	for (int t = MSG_NONE + 1; t < MSG_TYPE_COUNT; t++)
		if (schemas[t].type[0] == name[0] && strcmp(name, schemas[t].type) == 0)
			return (enum msg_type)t;
	return MSG_NONE;
}

int
msg_type_is_request(enum msg_type type)
{
	return type >= MSG_REQUEST_FIRST && type <= MSG_REQUEST_LAST;
}

int
msg_type_is_event(enum msg_type type)
{
	return type >= MSG_EVENT_FIRST && type <= MSG_EVENT_LAST;
}

/* Fill err and return its code. */
static int fail(struct msg_error *err, int code, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 4, 5)))
#endif
        ;

static int
fail(struct msg_error *err, int code, const char *field, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	snprintf(err->field, sizeof err->field, "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof err->text, fmt, ap);
	va_end(ap);
	return code;
}

/* Whether v has the JSON type kind asks for. */
static int
field_matches(const json_t *v, enum field_kind kind)
{
	switch (kind) {
	case F_STR:
		return json_is_string(v);
	case F_INT:
		return json_is_integer(v);
	case F_BOOL:
		return json_is_boolean(v);
	case F_OBJ:
		return json_is_object(v);
	case F_ARR:
		return json_is_array(v);
	case F_STR_NULL:
		return json_is_string(v) || json_is_null(v);
	case F_OBJ_NULL:
		return json_is_object(v) || json_is_null(v);
	case F_SEED:
		return json_is_integer(v) || json_is_string(v);
	}
	return 0;
}

/* Check every member the schema of m->type names. */
static int
check_schema(const struct msg *m, struct msg_error *err)
{
	const struct schema *s = &schemas[m->type];

	for (int i = 0; i < FIELDS_MAX && s->fields[i].name != NULL; i++) {
		const struct field *f = &s->fields[i];
		json_t *v = json_object_get(m->root, f->name);

		if (v == NULL) {
			if (f->required)
				return fail(err, PROTO_EBADFIELD, f->name,
				            "%s needs member '%s' (%s)", s->type, f->name,
				            kind_words[f->kind]);
			continue;
		}
		if (!field_matches(v, f->kind))
			return fail(err, PROTO_EBADFIELD, f->name, "member '%s' of %s must be %s",
			            f->name, s->type, kind_words[f->kind]);
	}
	return 0;
}

static const char *
get_str(const struct msg *m, const char *key)
{
	return json_string_value(json_object_get(m->root, key));
}

/*
 * Parse a seed: a non-negative integer, or a string of decimal digits (nothing else: no sign, no
 * space) whose value fits 64 bits, however many leading zeros it has ("007" is 7).
 */
static int
parse_seed(const json_t *v, uint64_t *seed)
{
	const char *s;
	char *end;
	unsigned long long x;

	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return -1;
		*seed = (uint64_t)json_integer_value(v);
		return 0;
	}
	s = json_string_value(v);
	if (s == NULL || s[0] < '0' || s[0] > '9')
		return -1;
	while (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
		s++;
	if (strlen(s) > 20)
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*seed = (uint64_t)x;
	return 0;
}

/* Kind and variant of create and quick. */
static int
decode_kind_variant(struct msg *m, struct msg_error *err)
{
	const char *kind = get_str(m, "kind");
	struct game_error gerr;

	if (game_kind_parse(kind, &m->kind) < 0) {
		char kinds[128];
		game_kind_list(kinds, sizeof kinds, ", ", ", ");
		return fail(err, PROTO_EBADVALUE, "kind", "unknown game kind '%.40s' (known: %s)",
		            kind, kinds);
	}
	m->has_kind = 1;
	m->rated = json_is_true(json_object_get(m->root, "rated"));
	m->variant = get_str(m, "variant");
	/* given, a variant is named: "" is not the default (game_variant_check() takes it so) */
	if (m->variant != NULL && m->variant[0] == '\0')
		return fail(err, PROTO_EBADVALUE, "variant", "an empty variant (known: %s)",
		            game_class_of(m->kind)->variant_text);
	if (game_variant_check(m->kind, m->variant, &gerr) < 0)
		return fail(err, PROTO_EBADVALUE, "variant", "%s", gerr.text);
	if (m->variant == NULL)
		m->variant = "standard";
	m->clock = get_str(m, "clock");
	if (m->clock != NULL) {
		if (protocol_clock_parse(m->clock, &m->clock_base_ms, &m->clock_inc_ms) < 0)
			return fail(err, PROTO_EBADVALUE, "clock",
			            "a time control is \"none\" or \"M+S\": M minutes (1 to %d) "
			            "and an increment of S seconds (0 to %d), e.g. \"5+3\"",
			            PROTOCOL_CLOCK_MAX_MIN, PROTOCOL_CLOCK_MAX_INC);
		m->has_clock = 1;
	}
	return 0;
}

/* The opponent of create: a person (the default) or the server's computer at a level. */
static int
decode_opponent(struct msg *m, struct msg_error *err)
{
	const char *opponent = get_str(m, "opponent");
	json_t *v = json_object_get(m->root, "level");

	if (opponent != NULL && strcmp(opponent, "computer") == 0)
		m->computer = 1;
	else if (opponent != NULL && strcmp(opponent, "human") != 0)
		return fail(err, PROTO_EBADVALUE, "opponent",
		            "unknown opponent '%.40s' (known: human, computer)", opponent);
	m->level = PROTOCOL_LEVEL_DEFAULT;
	if (v != NULL && m->computer) { /* against a person the level is ignored */
		if (json_integer_value(v) < PROTOCOL_LEVEL_MIN ||
		    json_integer_value(v) > PROTOCOL_LEVEL_MAX)
			return fail(err, PROTO_EBADVALUE, "level",
			            "the computer's level is from %d to %d", PROTOCOL_LEVEL_MIN,
			            PROTOCOL_LEVEL_MAX);
		m->level = (int)json_integer_value(v);
	}
	return 0;
}

/* The value checks of requests, after the schema. */
static int
decode_request(struct msg *m, struct msg_error *err)
{
	json_t *v;
	int rc;

	switch (m->type) {
	case MSG_HELLO:
		m->protocol = (int)json_integer_value(json_object_get(m->root, "protocol"));
		if (json_integer_value(json_object_get(m->root, "protocol")) != PROTOCOL_VERSION)
			return fail(err, PROTO_EVERSION, "protocol",
			            "protocol version %" JSON_INTEGER_FORMAT
			            " is not supported; this server speaks version %d",
			            json_integer_value(json_object_get(m->root, "protocol")),
			            PROTOCOL_VERSION);
		m->token = get_str(m, "token");
		m->client = get_str(m, "client");
		/* with a token the name's value is ignored (the schema checked its type) */
		m->name = m->token == NULL ? get_str(m, "name") : NULL;
		if (m->token == NULL && m->name == NULL)
			return fail(err, PROTO_EBADFIELD, "name",
			            "hello needs member 'name' (a string) unless it has a 'token'");
		if (m->token == NULL && protocol_name_check(m->name) < 0)
			return fail(err, PROTO_EBADVALUE, "name", "a name has " PROTOCOL_NAME_RULE);
		/* a password logs in to the account `name`; with a token it is ignored */
		m->password = m->token == NULL ? get_str(m, "password") : NULL;
		if ((v = json_object_get(m->root, "last_seq")) != NULL) {
			if (json_integer_value(v) < 0)
				return fail(err, PROTO_EBADVALUE, "last_seq",
				            "last_seq must not be negative");
			m->has_last_seq = 1;
			m->last_seq = json_integer_value(v);
		}
		return 0;
	case MSG_CREATE: {
		const char *seat;

		if ((rc = decode_kind_variant(m, err)) < 0)
			return rc;
		m->seat = -1;
		seat = get_str(m, "seat");
		if (seat != NULL && strcmp(seat, "random") != 0) {
			if (strcmp(seat, game_side_name(m->kind, 0)) == 0)
				m->seat = 0;
			else if (strcmp(seat, game_side_name(m->kind, 1)) == 0)
				m->seat = 1;
			else
				return fail(err, PROTO_EBADVALUE, "seat",
				            "unknown seat '%.40s' for %s (known: %s, %s, random)",
				            seat, game_kind_name(m->kind),
				            game_side_name(m->kind, 0), game_side_name(m->kind, 1));
		}
		m->is_private = json_is_true(json_object_get(m->root, "private"));
		if ((v = json_object_get(m->root, "seed")) != NULL) {
			if (parse_seed(v, &m->seed) < 0)
				return fail(err, PROTO_EBADVALUE, "seed",
				            "a seed is a non-negative 64-bit integer");
			m->has_seed = 1;
		}
		if ((rc = decode_opponent(m, err)) < 0)
			return rc;
		if (m->rated && m->computer)
			return fail(err, PROTO_EBADVALUE, "rated",
			            "a game against the computer is never rated");
		return 0;
	}
	case MSG_QUICK:
		return decode_kind_variant(m, err);
	case MSG_PROFILE:
		m->name = get_str(m, "name");
		return 0;
	case MSG_LEADERBOARD: {
		const char *kind = get_str(m, "kind");

		if (game_kind_parse(kind, &m->kind) < 0)
			return fail(err, PROTO_EBADVALUE, "kind", "unknown game kind '%.40s'",
			            kind);
		m->has_kind = 1;
		m->limit = msg_int(m, "limit", PROTOCOL_HISTORY_DEFAULT);
		if (m->limit < 1 || m->limit > PROTOCOL_HISTORY_MAX)
			return fail(err, PROTO_EBADVALUE, "limit", "limit is from 1 to %d",
			            PROTOCOL_HISTORY_MAX);
		m->after = get_str(m, "after");
		m->provisional = json_is_true(json_object_get(m->root, "provisional"));
		return 0;
	}
	case MSG_LIST:
	case MSG_HISTORY: {
		/* pages of the lobby's games and of the history: an offset, and a limit up to max
		 */
		int list = m->type == MSG_LIST;
		int max = list ? PROTOCOL_LIST_MAX : PROTOCOL_HISTORY_MAX;

		m->offset = msg_int(m, "offset", 0);
		m->limit = msg_int(m, "limit", list ? PROTOCOL_LIST_MAX : PROTOCOL_HISTORY_DEFAULT);
		if (m->offset < 0)
			return fail(err, PROTO_EBADVALUE, "offset", "offset must not be negative");
		if (m->limit < 1 || m->limit > max)
			return fail(err, PROTO_EBADVALUE, "limit", "limit is from 1 to %d", max);
		if (!list) {
			m->after = get_str(m, "after");
			m->player = get_str(m, "player");
		}
		return 0;
	}
	case MSG_JOIN:
	case MSG_WATCH:
	case MSG_RECORD:
		m->game = get_str(m, "game");
		m->code = get_str(m, "code");
		if (m->game == NULL && m->code == NULL)
			return fail(err, PROTO_EBADFIELD, "game",
			            "%s needs member 'game' or 'code' (a string)",
			            schemas[m->type].type);
		return 0;
	case MSG_MOVE:
		m->move = get_str(m, "move");
		m->game = get_str(m, "game");
		return 0;
	case MSG_SAY:
		m->game = get_str(m, "game");
		rc = protocol_chat_clean(get_str(m, "text"), m->text, sizeof m->text);
		if (rc < 0)
			return fail(err, PROTO_EBADVALUE, "text",
			            "a chat line is UTF-8 text of at most %d characters",
			            PROTOCOL_CHAT_MAX);
		if (rc == 0)
			return fail(err, PROTO_EBADVALUE, "text",
			            "the chat line is empty once control characters and the spaces "
			            "around it are removed");
		return 0;
	case MSG_CLAIM: {
		const char *r = get_str(m, "result");

		m->game = get_str(m, "game");
		if (strcmp(r, "win") != 0 && strcmp(r, "draw") != 0)
			return fail(err, PROTO_EBADVALUE, "result",
			            "a claim's result is \"win\" or \"draw\"");
		m->claim_draw = r[0] == 'd';
		return 0;
	}
	case MSG_REGISTER: /* the account name's rules are the server's (names.h) */
		m->name = get_str(m, "name");
		m->password = get_str(m, "password");
		return 0;
	case MSG_PASSWORD_CHANGE:
		m->password = get_str(m, "old");
		m->new_password = get_str(m, "new");
		return 0;
	case MSG_ACCOUNT_CLOSE:
		m->password = get_str(m, "password");
		return 0;
	case MSG_TEST_CLOCK:
		m->advance_ms = json_integer_value(json_object_get(m->root, "advance_ms"));
		if (m->advance_ms < 0)
			return fail(err, PROTO_EBADVALUE, "advance_ms",
			            "advance_ms must not be negative");
		return 0;
	case MSG_RESIGN:
	case MSG_DRAW_OFFER:
	case MSG_DRAW_ACCEPT:
	case MSG_DRAW_DECLINE:
	case MSG_ABORT:
	case MSG_REMATCH:
	case MSG_REMATCH_DECLINE:
		m->game = get_str(m, "game");
		return 0;
	default:
		return 0;
	}
}

int
msg_decode(struct msg *m, const char *line, size_t len, struct msg_error *err)
{
	json_error_t jerr;
	const char *type;
	json_t *id;
	int bad_id;

	memset(m, 0, sizeof *m);
	m->root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (m->root == NULL)
		return fail(err, PROTO_EBADJSON, NULL, "invalid JSON at byte %d: %s", jerr.position,
		            jerr.text);
	if (!json_is_object(m->root)) {
		json_decref(m->root);
		m->root = NULL;
		return fail(err, PROTO_EBADJSON, NULL, "a message must be a JSON object");
	}
	/*
	 * The type is read even when the id is bad, so that the refusals that come whatever the
	 * members (hello_required, already_welcomed, an unknown test_clock) come with a bad id too.
	 */
	id = json_object_get(m->root, "id");
	bad_id = id != NULL && !json_is_string(id) && !json_is_integer(id);
	if (!bad_id)
		m->id = id;
	type = json_string_value(json_object_get(m->root, "type"));
	if (type == NULL)
		return fail(err, PROTO_EUNKNOWNTYPE, "type",
		            "a message needs member 'type' (a string)");
	m->type = msg_type_parse(type);
	if (m->type == MSG_NONE)
		return fail(err, PROTO_EUNKNOWNTYPE, "type", "unknown message type '%.60s'", type);
	if (bad_id)
		return fail(err, PROTO_EBADFIELD, "id",
		            "member 'id' must be a string or an integer");
	if (check_schema(m, err) < 0)
		return err ? err->code : PROTO_EBADFIELD;
	if (msg_type_is_request(m->type))
		return decode_request(m, err);
	return 0;
}

int
msg_request_decode(struct msg *m, const char *line, size_t len, struct msg_error *err)
{
	int rc = msg_decode(m, line, len, err);

	if (m->type != MSG_NONE && !msg_type_is_request(m->type)) {
		const char *name = msg_type_name(m->type);

		m->type = MSG_NONE;
		return fail(err, PROTO_EUNKNOWNTYPE, "type", "'%.60s' is not a request", name);
	}
	return rc;
}

void
msg_clear(struct msg *m)
{
	json_decref(m->root);
	memset(m, 0, sizeof *m);
}

const char *
msg_str(const struct msg *m, const char *key)
{
	return m->root ? get_str(m, key) : NULL;
}

int64_t
msg_int(const struct msg *m, const char *key, int64_t dflt)
{
	json_t *v = m->root ? json_object_get(m->root, key) : NULL;

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

json_t *
msg_new(enum msg_type type, json_t *id)
{
	json_t *o = json_object();

	json_object_set_new(o, "type", json_string(msg_type_name(type)));
	if (id != NULL)
		json_object_set_new(o, "id", json_deep_copy(id));
	return o;
}

/* Set a string member when s is not NULL. */
static void
set_str(json_t *o, const char *key, const char *s)
{
	if (s != NULL)
		json_object_set_new(o, key, json_string(s));
}

/* Move "id" to the end, where PROTOCOL.md shows it. */
static json_t *
id_last(json_t *o)
{
	json_t *id = json_object_get(o, "id");

	if (id != NULL) {
		json_incref(id);
		json_object_del(o, "id");
		json_object_set_new(o, "id", id);
	}
	return o;
}

json_t *
msg_hello_new(const char *name, const char *token, int64_t last_seq, json_t *id)
{
	json_t *o = msg_new(MSG_HELLO, id);

	json_object_set_new(o, "protocol", json_integer(PROTOCOL_VERSION));
	set_str(o, "name", name);
	set_str(o, "token", token);
	if (last_seq >= 0)
		json_object_set_new(o, "last_seq", json_integer(last_seq));
	return id_last(o);
}

json_t *
msg_create_new(const char *kind, const char *variant, const char *seat, int is_private, json_t *id)
{
	json_t *o = msg_new(MSG_CREATE, id);

	set_str(o, "kind", kind);
	set_str(o, "variant", variant);
	set_str(o, "seat", seat);
	if (is_private)
		json_object_set_new(o, "private", json_true());
	return id_last(o);
}

json_t *
msg_join_new(const char *game, const char *code, json_t *id)
{
	json_t *o = msg_new(MSG_JOIN, id);

	set_str(o, "game", game);
	set_str(o, "code", code);
	return id_last(o);
}

json_t *
msg_quick_new(const char *kind, const char *variant, json_t *id)
{
	json_t *o = msg_new(MSG_QUICK, id);

	set_str(o, "kind", kind);
	set_str(o, "variant", variant);
	return id_last(o);
}

json_t *
msg_watch_new(const char *game, const char *code, json_t *id)
{
	json_t *o = msg_new(MSG_WATCH, id);

	set_str(o, "game", game);
	set_str(o, "code", code);
	return id_last(o);
}

json_t *
msg_move_new(const char *game, const char *move, json_t *id)
{
	json_t *o = msg_new(MSG_MOVE, id);

	set_str(o, "move", move);
	set_str(o, "game", game);
	return id_last(o);
}

json_t *
msg_ok_new(enum msg_type request, int64_t seq, json_t *id)
{
	json_t *o = msg_new(MSG_OK, id);

	set_str(o, "request", msg_type_name(request));
	if (seq >= 0)
		json_object_set_new(o, "seq", json_integer(seq));
	return id_last(o);
}

json_t *
msg_error_new(int code, enum msg_type request, const char *field, const char *text, json_t *id)
{
	json_t *o = msg_new(MSG_ERROR, id), *t = json_string(text);

	/* jansson refuses invalid UTF-8: a text quoting a peer's bytes cut short loses the cut
	 * character, not the whole explanation */
	if (t == NULL) {
		char fixed[512];

		snprintf(fixed, sizeof fixed, "%s", text);
		t = json_string(protocol_utf8_repair(fixed));
	}
	json_object_set_new(o, "code", json_string(protocol_err_name(code)));
	json_object_set_new(o, "text", t);
	set_str(o, "request", msg_type_name(request));
	if (field != NULL && field[0] != '\0')
		json_object_set_new(o, "field", json_string(field));
	return id_last(o);
}

json_t *
msg_decode_error_new(const struct msg *m, const struct msg_error *err)
{
	return msg_error_new(err->code, m->type, err->field, err->text, m->id);
}

json_t *
msg_bye_new(const char *reason, const char *text)
{
	json_t *o = msg_new(MSG_BYE, NULL);

	set_str(o, "reason", reason);
	set_str(o, "text", text);
	return o;
}

json_t *
msg_player_new(const char *id, const char *name)
{
	json_t *o = json_object();

	set_str(o, "id", id);
	set_str(o, "name", name);
	return o;
}

/* Append ,"key": to b. */
static void
wire_key(struct wire_builder *b, const char *key)
{
	wire_builder_raw(b, ",", 1);
	wire_builder_str(b, key);
	wire_builder_raw(b, ":", 1);
}

/* Append ,"key":{"side0":v0,"side1":v1} to b. */
static void
wire_pair(struct wire_builder *b, const char *key, const char *const side[2], const int64_t v[2])
{
	wire_key(b, key);
	for (int i = 0; i < 2; i++) {
		wire_builder_raw(b, i == 0 ? "{" : ",", 1);
		wire_builder_str(b, side[i]);
		wire_builder_raw(b, ":", 1);
		wire_builder_int(b, v[i]);
	}
	wire_builder_raw(b, "}", 1);
}

/* Start {"type":"name" in b. */
static void
wire_start(struct wire_builder *b, enum msg_type type, size_t hint)
{
	wire_builder_init(b, hint);
	wire_builder_raw(b, "{\"type\":", 8);
	wire_builder_str(b, msg_type_name(type));
}

struct wire *
msg_ok_wire(enum msg_type request, int64_t seq, const json_t *id)
{
	struct wire_builder b;

	wire_start(&b, MSG_OK, 64);
	wire_key(&b, "request");
	wire_builder_str(&b, msg_type_name(request));
	if (seq >= 0) {
		wire_key(&b, "seq");
		wire_builder_int(&b, seq);
	}
	if (id != NULL) {
		wire_key(&b, "id");
		wire_builder_json(&b, id);
	}
	wire_builder_raw(&b, "}", 1);
	return wire_builder_finish(&b);
}

struct wire *
msg_moved_wire(const struct msg_moved *mv)
{
	struct wire_builder b;

	wire_start(&b, MSG_MOVED, 256 + strlen(mv->position));
	wire_key(&b, "game");
	wire_builder_str(&b, mv->game);
	wire_key(&b, "seq");
	wire_builder_int(&b, mv->seq);
	wire_key(&b, "by");
	wire_builder_str(&b, mv->by);
	wire_key(&b, "move");
	wire_builder_str(&b, mv->move);
	wire_key(&b, "ply");
	wire_builder_int(&b, mv->ply);
	wire_key(&b, "position");
	wire_builder_str(&b, mv->position);
	wire_key(&b, "to_move");
	if (mv->to_move != NULL)
		wire_builder_str(&b, mv->to_move);
	else
		wire_builder_raw(&b, "null", 4);
	if (mv->has_scores)
		wire_pair(&b, "scores", mv->side, mv->scores);
	if (mv->has_clocks)
		wire_pair(&b, "clocks", mv->side, mv->clocks);
	wire_builder_raw(&b, "}", 1);
	return wire_builder_finish(&b);
}

struct wire *
msg_your_turn_wire(const char *game, int64_t seq, const char *const *moves, size_t n)
{
	struct wire_builder b;

	wire_start(&b, MSG_YOUR_TURN, 64 + n * 10);
	wire_key(&b, "game");
	wire_builder_str(&b, game);
	wire_key(&b, "seq");
	wire_builder_int(&b, seq);
	wire_key(&b, "moves");
	wire_builder_raw(&b, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			wire_builder_raw(&b, ",", 1);
		wire_builder_str(&b, moves[i]);
	}
	wire_builder_raw(&b, "]}", 2);
	return wire_builder_finish(&b);
}
