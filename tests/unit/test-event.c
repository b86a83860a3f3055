/*
 * test-event.c: the event codecs (event.h) and the rules of what events do (event-state.h).
 *
 * Every game event and notice line recorded from the real server (the examples of PROTOCOL.md,
 * sections 10 and 11.6) and every one in tests/data/protocol/valid.jsonl decodes and encodes
 * back to the very same bytes, through event_encode() and through event_wire(); every case of
 * tests/data/protocol/events-invalid.txt is refused with its code and member; the word tables
 * map every enum both ways; and event_state_apply() follows games through their rules.
 * HOKITO_SOURCE_ROOT (from meson) is where the data and PROTOCOL.md are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event-state.h"
#include "event.h"
#include "protocol.h"
#include "test.h"

static FILE *
open_source(const char *path)
{
	char full[4096];

	snprintf(full, sizeof full, "%s/%s", HOKITO_SOURCE_ROOT, path);
	return fopen(full, "rb");
}

/* Decode line as an event of kind; the object is returned in *root (to free). */
static int
decode_line(const char *line, enum game_kind kind, struct event *ev, json_t **root,
            struct msg_error *err)
{
	*root = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
	if (*root == NULL) {
		err->code = PROTO_EBADJSON;
		return PROTO_EBADJSON;
	}
	return event_decode(*root, kind, ev, err);
}

/*
 * Decode line as an event of either kind (the seat names tell which), encode it again both ways
 * and compare the bytes. Returns its type, MSG_NONE if it decodes in neither kind, or -1 when
 * the bytes differ (printed).
 */
static int
round_trip(const char *line)
{
	for (int k = 0; k < 2; k++) {
		struct msg_error err;
		struct event ev;
		json_t *root;
		struct wire *w1, *w2;
		int same;

		if (decode_line(line, (enum game_kind)k, &ev, &root, &err) < 0) {
			json_decref(root);
			continue;
		}
		w1 = wire_encode_steal(event_encode(&ev));
		w2 = event_wire(&ev);
		same = w1->len == strlen(line) + 1 && memcmp(w1->data, line, w1->len - 1) == 0 &&
		       w2->len == w1->len && memcmp(w1->data, w2->data, w1->len) == 0;
		if (!same)
			printf("# sent:    %s\n# encoded: %.*s# wire:    %.*s", line, (int)w1->len,
			       w1->data, (int)w2->len, w2->data);
		wire_unref(w1);
		wire_unref(w2);
		json_decref(root);
		return same ? (int)ev.type : -1;
	}
	return MSG_NONE;
}

/* The types that have a codec: every event and the four notices. */
static int
codec_type(enum msg_type t)
{
	return msg_type_is_event(t) || t == MSG_YOUR_TURN || t == MSG_PRESENCE ||
	       t == MSG_SPECTATORS || t == MSG_KIBITZ;
}

/* The type of a line, MSG_NONE when it is not a JSON object with a known type. */
static enum msg_type
line_type(const char *line)
{
	json_t *o = json_loads(line, 0, NULL);
	const char *type = json_string_value(json_object_get(o, "type"));
	enum msg_type t = type != NULL ? msg_type_parse(type) : MSG_NONE;

	json_decref(o);
	return t;
}

TEST(event_words)
{
	enum event_status s;
	enum event_result r;
	enum event_reason why;
	enum event_offer of;

	for (int i = 0; i < EVENT_STATUS_COUNT; i++) {
		ASSERT(event_status_name((enum event_status)i) != NULL);
		ASSERT_EQ(event_status_parse(event_status_name((enum event_status)i), &s), 0);
		ASSERT_EQ(s, i);
	}
	for (int i = EVENT_RESULT_WIN; i < EVENT_RESULT_COUNT; i++) {
		ASSERT_EQ(event_result_parse(event_result_name((enum event_result)i), &r), 0);
		ASSERT_EQ(r, i);
	}
	for (int i = EVENT_REASON_BLOCKED; i < EVENT_REASON_COUNT; i++) {
		ASSERT_EQ(event_reason_parse(event_reason_name((enum event_reason)i), &why), 0);
		ASSERT_EQ(why, i);
	}
	for (int i = 0; i < EVENT_OFFER_COUNT; i++) {
		ASSERT_EQ(event_offer_parse(event_offer_name((enum event_offer)i), &of), 0);
		ASSERT_EQ(of, i);
	}
	ASSERT_STR_EQ(event_status_name(EVENT_STATUS_ADJOURNED), "adjourned");
	ASSERT_STR_EQ(event_result_name(EVENT_RESULT_ABORTED), "aborted");
	ASSERT_STR_EQ(event_reason_name(EVENT_REASON_DISCONNECT), "disconnect");
	ASSERT_STR_EQ(event_offer_name(EVENT_OFFER_REMATCH), "rematch");
	ASSERT(event_result_name(EVENT_RESULT_NONE) == NULL);
	ASSERT(event_reason_name(EVENT_REASON_NONE) == NULL);
	ASSERT(event_reason_name((enum event_reason)EVENT_REASON_COUNT) == NULL);
	ASSERT_EQ(event_status_parse("closed", &s), PROTO_EBADVALUE);
	ASSERT_EQ(event_result_parse("", &r), PROTO_EBADVALUE);
	ASSERT_EQ(event_reason_parse(NULL, &why), PROTO_EBADVALUE);
	ASSERT_EQ(event_reason_parse("Time", &why), PROTO_EBADVALUE);
	ASSERT_EQ(event_offer_parse("abort", &of), PROTO_EBADVALUE);
}

/* The one list of which reasons exist for which result (PROTOCOL.md 6.5). */
TEST(event_reasons_for_results)
{
	static const struct {
		enum event_reason reason;
		int win, draw, aborted;
	} want[] = {
	        {EVENT_REASON_BLOCKED, 1, 1, 0},    {EVENT_REASON_LINE, 1, 0, 0},
	        {EVENT_REASON_FULL, 1, 1, 0},       {EVENT_REASON_RESIGN, 1, 0, 0},
	        {EVENT_REASON_ABANDONED, 0, 0, 1},  {EVENT_REASON_TIME, 1, 0, 0},
	        {EVENT_REASON_AGREEMENT, 0, 1, 0},  {EVENT_REASON_ABORT, 0, 0, 1},
	        {EVENT_REASON_DISCONNECT, 1, 1, 0},
	};

	ASSERT_EQ(sizeof want / sizeof want[0], EVENT_REASON_COUNT - 1);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		ASSERT_EQ(event_reason_allows(want[i].reason, EVENT_RESULT_WIN), want[i].win);
		ASSERT_EQ(event_reason_allows(want[i].reason, EVENT_RESULT_DRAW), want[i].draw);
		ASSERT_EQ(event_reason_allows(want[i].reason, EVENT_RESULT_ABORTED),
		          want[i].aborted);
		ASSERT_EQ(event_reason_allows(want[i].reason, EVENT_RESULT_NONE), 0);
	}
	ASSERT_EQ(event_reason_allows(EVENT_REASON_NONE, EVENT_RESULT_WIN), 0);
	ASSERT_EQ(event_reason_of_end(GAME_END_NONE), EVENT_REASON_NONE);
	ASSERT_EQ(event_reason_of_end(GAME_END_BLOCKED), EVENT_REASON_BLOCKED);
	ASSERT_EQ(event_reason_of_end(GAME_END_LINE), EVENT_REASON_LINE);
	ASSERT_EQ(event_reason_of_end(GAME_END_FULL), EVENT_REASON_FULL);
}

/* Every event and notice line the server sent in PROTOCOL.md's recorded examples. */
TEST(event_round_trip_protocol_md)
{
	FILE *f = open_source("protocol/PROTOCOL.md");
	int seen[MSG_TYPE_COUNT] = {0};
	char line[65536];
	int n = 0;

	ASSERT(f != NULL);
	while (fgets(line, sizeof line, f) != NULL) {
		char *end;
		int t;

		if (strncmp(line, "S> {", 4) != 0)
			continue;
		/* the line, without the "   (to alice)" that says who got it */
		end = strstr(line, "}   (");
		if (end == NULL)
			end = strrchr(line, '}');
		if (end == NULL)
			continue;
		end[1] = '\0';
		if (!codec_type(line_type(line + 3)))
			continue; /* a reply, or a your_turn shortened with "..." */
		t = round_trip(line + 3);
		if (t <= MSG_NONE) {
			fclose(f);
			FAIL_AT_("not the same line again: %s", line + 3);
		}
		seen[t]++;
		n++;
	}
	fclose(f);
	ASSERT(n >= 30);
	ASSERT(seen[MSG_MOVED] > 0 && seen[MSG_GAME_OVER] > 0 && seen[MSG_STARTED] > 0);
	ASSERT(seen[MSG_REMATCH_STARTED] > 0 && seen[MSG_PRESENCE] > 0);
}

/* Every event and notice line of valid.jsonl; between them, every type with a codec. */
TEST(event_round_trip_valid)
{
	FILE *f = open_source("tests/data/protocol/valid.jsonl");
	int seen[MSG_TYPE_COUNT] = {0};
	char line[65536];

	ASSERT(f != NULL);
	while (fgets(line, sizeof line, f) != NULL) {
		int t;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0' || !codec_type(line_type(line)))
			continue;
		t = round_trip(line);
		if (t <= MSG_NONE) {
			fclose(f);
			FAIL_AT_("not the same line again: %s", line);
		}
		seen[t]++;
	}
	fclose(f);
	for (int t = MSG_NONE + 1; t < MSG_TYPE_COUNT; t++) {
		ASSERT_EQ(event_type_known((enum msg_type)t), codec_type((enum msg_type)t));
		if (codec_type((enum msg_type)t) && seen[t] == 0)
			FAIL_AT_("no line of %s in valid.jsonl", msg_type_name((enum msg_type)t));
	}
}

/* Each case of events-invalid.txt is refused with its code and member. */
TEST(event_refusals)
{
	FILE *f = open_source("tests/data/protocol/events-invalid.txt");
	char line[65536];
	int n = 0;

	ASSERT(f != NULL);
	while (fgets(line, sizeof line, f) != NULL) {
		char code[64], field[64], kind_name[16];
		char *tab = strchr(line, '\t');
		enum game_kind kind;
		struct msg_error err = {0, "", ""};
		struct event ev;
		json_t *root;
		int rc;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (tab == NULL || sscanf(line, "%63s %63s %15s", code, field, kind_name) != 3 ||
		    game_kind_parse(kind_name, &kind) < 0) {
			fclose(f);
			FAIL_AT_("a case that does not read: %s", line);
		}
		rc = decode_line(tab + 1, kind, &ev, &root, &err);
		json_decref(root);
		if (rc != protocol_err_parse(code) ||
		    (rc != PROTO_EBADJSON &&
		     strcmp(field, strcmp(err.field, "") ? err.field : "-"))) {
			fclose(f);
			FAIL_AT_("%s: %s %s (\"%s\") where %s %s was due", tab + 1,
			         protocol_err_name(rc), err.field, err.text, code, field);
		}
		if (rc != PROTO_EBADJSON && err.text[0] == '\0') {
			fclose(f);
			FAIL_AT_("%s: refused without a sentence", tab + 1);
		}
		n++;
	}
	fclose(f);
	ASSERT(n >= 60);
}

/* Round trip result object res of a game of kind name kind_name; returns 1, or 0 (printed). */
static int
outcome_same(const char *kind_name, const json_t *res)
{
	struct msg_error err;
	struct event_outcome out;
	enum game_kind kind;
	struct wire *a, *b;
	int same;

	if (game_kind_parse(kind_name != NULL ? kind_name : "", &kind) < 0 ||
	    event_outcome_decode(res, kind, &out, &err) < 0)
		return 0;
	a = wire_encode(res);
	b = wire_encode_steal(event_outcome_encode(kind, &out));
	same = a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
	if (!same)
		printf("# sent:    %.*s# encoded: %.*s", (int)a->len, a->data, (int)b->len,
		       b->data);
	wire_unref(a);
	wire_unref(b);
	return same;
}

/*
 * The result objects (7.3) of every state, games and history_page line of valid.jsonl and of
 * PROTOCOL.md's examples: the same bytes again. Returns how many, or -1 when one differs.
 */
static int
outcomes_of(const char *path, const char *prefix)
{
	FILE *f = open_source(path);
	char line[65536];
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		json_t *o;
		const json_t *games;
		char *start;

		if (strncmp(line, prefix, strlen(prefix)) != 0 || strchr(line, '{') == NULL)
			continue;
		start = strchr(line, '{');
		o = json_loadb(start, strlen(start), JSON_DISABLE_EOF_CHECK, NULL);
		if (o == NULL)
			continue;
		if (json_is_object(json_object_get(o, "result")) &&
		    json_object_get(o, "kind") != NULL) {
			if (!outcome_same(json_string_value(json_object_get(o, "kind")),
			                  json_object_get(o, "result")))
				n = -1000000;
			n++;
		}
		games = json_object_get(o, "games");
		for (size_t i = 0; i < json_array_size(games); i++) {
			const json_t *g = json_array_get(games, i);
			if (!json_is_object(json_object_get(g, "result")))
				continue;
			if (!outcome_same(json_string_value(json_object_get(g, "kind")),
			                  json_object_get(g, "result")))
				n = -1000000;
			n++;
		}
		json_decref(o);
	}
	fclose(f);
	return n < 0 ? -1 : n;
}

TEST(event_outcome_round_trip)
{
	struct msg_error err;
	struct event_outcome out;
	json_t *o;
	int a = outcomes_of("tests/data/protocol/valid.jsonl", "{");
	int b = outcomes_of("protocol/PROTOCOL.md", "S> ");

	printf("# %d result objects in valid.jsonl, %d in PROTOCOL.md\n", a, b);
	ASSERT(a >= 1);
	ASSERT(b >= 1);
	o = json_string("win");
	ASSERT_EQ(event_outcome_decode(o, GAME_HOKITO, &out, &err), PROTO_EBADFIELD);
	json_decref(o);
	o = json_loads("{\"result\":\"draw\",\"winner\":null,\"reason\":\"resign\"}", 0, NULL);
	ASSERT_EQ(event_outcome_decode(o, GAME_OXONO, &out, &err), PROTO_EBADVALUE);
	ASSERT_STR_EQ(err.field, "reason");
	json_decref(o);
	o = json_loads("{\"result\":\"draw\",\"winner\":null,\"reason\":\"full\"}", 0, NULL);
	ASSERT_EQ(event_outcome_decode(o, GAME_OXONO, &out, &err), 0);
	ASSERT_EQ(out.result, EVENT_RESULT_DRAW);
	ASSERT_EQ(out.reason, EVENT_REASON_FULL);
	ASSERT_EQ(out.scores.has, 0);
	json_decref(o);
}

/* Decode line for kind and apply it to st: the result of event_state_apply(), or a failure. */
static int
apply_line(struct event_state *st, const char *line)
{
	struct msg_error err = {0, "", ""};
	struct event ev;
	json_t *root;
	int rc = decode_line(line, st->kind, &ev, &root, &err);

	if (rc == 0)
		rc = event_state_apply(st, &ev, &err) == 0 ? 0 : 1;
	else
		printf("# does not decode: %s: %s\n", line, err.text);
	json_decref(root);
	return rc;
}

#define ALICE   "{\"id\":\"p1\",\"name\":\"alice\"}"
#define BOB     "{\"id\":\"p2\",\"name\":\"bob\"}"
#define PLAYERS "{\"black\":" ALICE ",\"white\":" BOB "}"

/* A HOKITO game with a clock: start, moves, a draw offer that lapses or stands, the end. */
TEST(event_state_game)
{
	struct event_state st;

	event_state_init(&st, GAME_HOKITO);
	ASSERT_EQ(st.status, EVENT_STATUS_OPEN);
	ASSERT_EQ(st.offer[EVENT_OFFER_DRAW], -1);
	ASSERT_EQ(apply_line(&st,
	                     "{\"type\":\"seated\",\"game\":\"g1\",\"seq\":1,\"seat\":\"black\","
	                     "\"player\":" ALICE "}"),
	          0);
	/* no move before the start; the next seq only */
	ASSERT_EQ(apply_line(&st, "{\"type\":\"moved\",\"game\":\"g1\",\"seq\":2,\"by\":\"black\","
	                          "\"move\":\"a1-b1\",\"ply\":1,\"position\":\"p\",\"to_move\":"
	                          "\"white\"}"),
	          1);
	ASSERT_EQ(apply_line(&st,
	                     "{\"type\":\"seated\",\"game\":\"g1\",\"seq\":3,\"seat\":\"white\","
	                     "\"player\":" BOB "}"),
	          1);
	ASSERT_EQ(apply_line(&st,
	                     "{\"type\":\"seated\",\"game\":\"g1\",\"seq\":2,\"seat\":\"white\","
	                     "\"player\":" BOB "}"),
	          0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"started\",\"game\":\"g1\",\"seq\":3,\"kind\":"
	                          "\"hokito\",\"variant\":\"standard\",\"players\":" PLAYERS
	                          ",\"position\":\"p\",\"to_move\":\"black\",\"clock\":\"5+3\","
	                          "\"clocks\":{\"black\":300000,\"white\":300000}}"),
	          0);
	ASSERT_EQ(st.status, EVENT_STATUS_LIVE);
	ASSERT_EQ(st.to_move, 0);
	ASSERT_EQ(st.first, 0);
	ASSERT_EQ(st.clocks.has, 1);
	ASSERT_EQ(st.clocks.v[1], 300000);
	/* white offers; black moves: the offer made to black lapses */
	ASSERT_EQ(apply_line(&st, "{\"type\":\"draw_offered\",\"game\":\"g1\",\"seq\":4,\"by\":"
	                          "\"white\"}"),
	          0);
	ASSERT_EQ(st.offer[EVENT_OFFER_DRAW], 1);
	/* a move by the side not to move, or at the wrong ply, does not fit */
	ASSERT_EQ(apply_line(&st, "{\"type\":\"moved\",\"game\":\"g1\",\"seq\":5,\"by\":\"white\","
	                          "\"move\":\"a4-a3\",\"ply\":1,\"position\":\"p\",\"to_move\":"
	                          "\"black\"}"),
	          1);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"moved\",\"game\":\"g1\",\"seq\":5,\"by\":\"black\","
	                          "\"move\":\"a1-b1\",\"ply\":2,\"position\":\"p\",\"to_move\":"
	                          "\"white\"}"),
	          1);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"moved\",\"game\":\"g1\",\"seq\":5,\"by\":\"black\","
	                          "\"move\":\"a1-b1\",\"ply\":1,\"position\":\"p\",\"to_move\":"
	                          "\"white\",\"scores\":{\"black\":37,\"white\":36},\"clocks\":{"
	                          "\"black\":291000,\"white\":300000}}"),
	          0);
	ASSERT_EQ(st.offer[EVENT_OFFER_DRAW], -1);
	ASSERT_EQ(st.ply, 1);
	ASSERT_EQ(st.to_move, 1);
	ASSERT_EQ(st.scores.v[0], 37);
	ASSERT_EQ(st.clocks.v[0], 291000);
	/* white offers, then white moves: its own offer stands */
	ASSERT_EQ(apply_line(&st, "{\"type\":\"draw_offered\",\"game\":\"g1\",\"seq\":6,\"by\":"
	                          "\"white\"}"),
	          0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"moved\",\"game\":\"g1\",\"seq\":7,\"by\":\"white\","
	                          "\"move\":\"a4-a3\",\"ply\":2,\"position\":\"p\",\"to_move\":"
	                          "\"black\",\"scores\":{\"black\":36,\"white\":37}}"),
	          0);
	ASSERT_EQ(st.offer[EVENT_OFFER_DRAW], 1);
	ASSERT_EQ(st.clocks.v[0], 291000); /* not carried: as the last event that did */
	ASSERT_EQ(apply_line(&st, "{\"type\":\"draw_declined\",\"game\":\"g1\",\"seq\":8,\"by\":"
	                          "\"black\"}"),
	          0);
	ASSERT_EQ(st.offer[EVENT_OFFER_DRAW], -1);
	/* a rematch only after the game */
	ASSERT_EQ(apply_line(&st, "{\"type\":\"rematch_offered\",\"game\":\"g1\",\"seq\":9,\"by\":"
	                          "\"black\"}"),
	          1);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"draw_offered\",\"game\":\"g1\",\"seq\":9,\"by\":"
	                          "\"black\"}"),
	          0);
	/* the end at another ply than the moves played does not fit */
	ASSERT_EQ(apply_line(&st, "{\"type\":\"game_over\",\"game\":\"g1\",\"seq\":10,\"result\":"
	                          "\"win\",\"winner\":\"black\",\"reason\":\"time\",\"ply\":3}"),
	          1);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"game_over\",\"game\":\"g1\",\"seq\":10,\"result\":"
	                          "\"win\",\"winner\":\"black\",\"reason\":\"time\",\"ply\":2,"
	                          "\"scores\":{\"black\":36,\"white\":37},\"clocks\":{\"black\":"
	                          "291000,\"white\":0}}"),
	          0);
	ASSERT(event_state_over(&st));
	ASSERT_EQ(st.result, EVENT_RESULT_WIN);
	ASSERT_EQ(st.winner, 0);
	ASSERT_EQ(st.reason, EVENT_REASON_TIME);
	ASSERT_EQ(st.offer[EVENT_OFFER_DRAW], -1); /* the end clears a standing offer */
	ASSERT_EQ(st.to_move, -1);
	ASSERT_EQ(st.clocks.v[1], 0);
	/* a finished game has only chat and the rematch events */
	ASSERT_EQ(apply_line(&st, "{\"type\":\"moved\",\"game\":\"g1\",\"seq\":11,\"by\":\"black\","
	                          "\"move\":\"a1-b1\",\"ply\":3,\"position\":\"p\",\"to_move\":"
	                          "\"white\"}"),
	          1);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"draw_offered\",\"game\":\"g1\",\"seq\":11,\"by\":"
	                          "\"black\"}"),
	          1);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"game_over\",\"game\":\"g1\",\"seq\":11,\"result\":"
	                          "\"draw\",\"winner\":null,\"reason\":\"agreement\",\"ply\":2}"),
	          1);
	ASSERT_EQ(apply_line(&st,
	                     "{\"type\":\"chat\",\"game\":\"g1\",\"seq\":11,\"seat\":\"white\","
	                     "\"player\":" BOB ",\"text\":\"gg\"}"),
	          0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"rematch_offered\",\"game\":\"g1\",\"seq\":12,\"by\":"
	                          "\"black\"}"),
	          0);
	ASSERT_EQ(st.offer[EVENT_OFFER_REMATCH], 0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"rematch_declined\",\"game\":\"g1\",\"seq\":13,"
	                          "\"by\":\"white\"}"),
	          0);
	ASSERT_EQ(st.offer[EVENT_OFFER_REMATCH], -1);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"rematch_offered\",\"game\":\"g1\",\"seq\":14,\"by\":"
	                          "\"white\"}"),
	          0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"rematch_started\",\"game\":\"g1\",\"seq\":15,"
	                          "\"new_game\":\"g2\"}"),
	          0);
	ASSERT_EQ(st.offer[EVENT_OFFER_REMATCH], -1);
	ASSERT_EQ(st.seq, 15);
}

/*
 * An untimed game's end: after the adjournment, grace_over (the wait after it ran out) makes the
 * away seat claimable and leaves the game adjourned; the seat's return or resumed takes it away.
 */
TEST(event_state_adjourned_claim)
{
	struct event_state st;

	event_state_init(&st, GAME_HOKITO);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"seated\",\"game\":\"g4\",\"seq\":1,\"seat\":"
	                          "\"black\",\"player\":" ALICE "}"),
	          0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"seated\",\"game\":\"g4\",\"seq\":2,\"seat\":"
	                          "\"white\",\"player\":" BOB "}"),
	          0);
	ASSERT_EQ(apply_line(&st,
	                     "{\"type\":\"started\",\"game\":\"g4\",\"seq\":3,\"kind\":"
	                     "\"hokito\",\"variant\":\"standard\",\"players\":{\"black\":" ALICE
	                     ",\"white\":" BOB "},\"position\":\"p\",\"to_move\":"
	                     "\"black\"}"),
	          0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"adjourned\",\"game\":\"g4\",\"seq\":4,\"seat\":"
	                          "\"black\"}"),
	          0);
	ASSERT_EQ(st.grace_over[0], 1);
	ASSERT_EQ(st.claimable[0], 0); /* not yet: the wait after the adjournment runs */
	ASSERT_EQ(apply_line(&st, "{\"type\":\"grace_over\",\"game\":\"g4\",\"seq\":5,\"seat\":"
	                          "\"black\"}"),
	          0);
	ASSERT_EQ(st.status, EVENT_STATUS_ADJOURNED);
	ASSERT_EQ(st.claimable[0], 1);
	ASSERT_EQ(st.claimable[1], 0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"presence\",\"game\":\"g4\",\"seat\":\"black\","
	                          "\"player\":" ALICE ",\"connected\":true}"),
	          0);
	ASSERT_EQ(st.claimable[0], 0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"grace_over\",\"game\":\"g4\",\"seq\":6,\"seat\":"
	                          "\"black\"}"),
	          0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"resumed\",\"game\":\"g4\",\"seq\":7,\"to_move\":"
	                          "\"black\"}"),
	          0);
	ASSERT_EQ(st.claimable[0], 0);
	ASSERT_EQ(st.status, EVENT_STATUS_LIVE);
	ASSERT_EQ(event_state_unplayed(&st), 0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"game_over\",\"game\":\"g4\",\"seq\":8,\"result\":"
	                          "\"aborted\",\"winner\":null,\"reason\":\"abort\",\"ply\":0}"),
	          0);
	ASSERT_EQ(event_state_unplayed(&st), 1); /* aborted with no move: never started */
	/* grace_over has no place in an open or finished game */
	event_state_init(&st, GAME_HOKITO);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"grace_over\",\"game\":\"g4\",\"seq\":1,\"seat\":"
	                          "\"black\"}"),
	          1);
}

/* An OXONO game without a clock: a drop, adjournment, the return, the computer's seat. */
TEST(event_state_adjourned)
{
	struct event_state st;

	event_state_init(&st, GAME_OXONO);
	ASSERT_EQ(apply_line(&st,
	                     "{\"type\":\"seated\",\"game\":\"g3\",\"seq\":1,\"seat\":\"pink\","
	                     "\"player\":" ALICE "}"),
	          0);
	ASSERT_EQ(apply_line(&st,
	                     "{\"type\":\"seated\",\"game\":\"g3\",\"seq\":2,\"seat\":\"black\","
	                     "\"player\":{\"id\":\"p9\",\"name\":\"computer (level 5)\","
	                     "\"computer\":5}}"),
	          0);
	ASSERT_EQ(st.computer[1], 5);
	ASSERT_EQ(st.computer[0], 0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"started\",\"game\":\"g3\",\"seq\":3,\"kind\":"
	                          "\"oxono\",\"variant\":\"standard\",\"players\":{\"pink\":" ALICE
	                          ",\"black\":{\"id\":\"p9\",\"name\":\"computer (level 5)\","
	                          "\"computer\":5}},\"position\":\"p\",\"to_move\":\"pink\"}"),
	          0);
	ASSERT_EQ(st.clocks.has, 0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"draw_offered\",\"game\":\"g3\",\"seq\":4,\"by\":"
	                          "\"pink\"}"),
	          0);
	/* presence notices: no seq of their own */
	ASSERT_EQ(apply_line(&st, "{\"type\":\"presence\",\"game\":\"g3\",\"seat\":\"pink\","
	                          "\"player\":" ALICE ",\"connected\":false,\"grace_ms\":60000,"
	                          "\"grace_over\":false}"),
	          0);
	ASSERT_EQ(st.connected[0], 0);
	ASSERT_EQ(st.seq, 4);
	/* resumed comes only in an adjourned game */
	ASSERT_EQ(apply_line(&st, "{\"type\":\"resumed\",\"game\":\"g3\",\"seq\":5,\"to_move\":"
	                          "\"pink\"}"),
	          1);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"adjourned\",\"game\":\"g3\",\"seq\":5,\"seat\":"
	                          "\"pink\"}"),
	          0);
	ASSERT_EQ(st.status, EVENT_STATUS_ADJOURNED);
	ASSERT_EQ(st.offer[EVENT_OFFER_DRAW], -1); /* an adjournment lapses the offer */
	ASSERT_EQ(st.grace_over[0], 1);
	ASSERT_EQ(st.to_move, -1);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"moved\",\"game\":\"g3\",\"seq\":6,\"by\":\"pink\","
	                          "\"move\":\"Xc5+c6\",\"ply\":1,\"position\":\"p\",\"to_move\":"
	                          "\"black\"}"),
	          1);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"presence\",\"game\":\"g3\",\"seat\":\"pink\","
	                          "\"player\":" ALICE ",\"connected\":true}"),
	          0);
	ASSERT_EQ(st.connected[0], 1);
	ASSERT_EQ(st.grace_over[0], 0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"resumed\",\"game\":\"g3\",\"seq\":6,\"to_move\":"
	                          "\"pink\"}"),
	          0);
	ASSERT_EQ(st.status, EVENT_STATUS_LIVE);
	ASSERT_EQ(st.to_move, 0);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"moved\",\"game\":\"g3\",\"seq\":7,\"by\":\"pink\","
	                          "\"move\":\"Xc5+c6\",\"ply\":1,\"position\":\"p\",\"to_move\":"
	                          "\"black\"}"),
	          0);
	/* a resignation in any unfinished status; aborted results have no winner */
	ASSERT_EQ(apply_line(&st,
	                     "{\"type\":\"game_over\",\"game\":\"g3\",\"seq\":8,\"result\":"
	                     "\"aborted\",\"winner\":null,\"reason\":\"abandoned\",\"ply\":1}"),
	          0);
	ASSERT_EQ(st.result, EVENT_RESULT_ABORTED);
	ASSERT_EQ(st.winner, -1);
}

/* The rule of draw offers, alone; and what may come when. */
TEST(event_state_rules)
{
	struct event_state st;

	ASSERT_EQ(event_state_offer_after_move(-1, 0), -1);
	ASSERT_EQ(event_state_offer_after_move(0, 0), 0);
	ASSERT_EQ(event_state_offer_after_move(1, 0), -1);
	ASSERT_EQ(event_state_offer_after_move(0, 1), -1);
	event_state_init(&st, GAME_HOKITO);
	ASSERT_EQ(event_state_allows(&st, MSG_SEATED), 1);
	ASSERT_EQ(event_state_allows(&st, MSG_GAME_OVER), 1); /* the only player left */
	ASSERT_EQ(event_state_allows(&st, MSG_MOVED), 0);
	ASSERT_EQ(event_state_allows(&st, MSG_PRESENCE), 1);
	ASSERT_EQ(event_state_allows(&st, MSG_STATE), 0); /* a reply, not an event */
	st.status = EVENT_STATUS_FINISHED;
	for (int t = MSG_EVENT_FIRST; t <= MSG_EVENT_LAST; t++)
		ASSERT_EQ(event_state_allows(&st, (enum msg_type)t),
		          t == MSG_CHAT || t == MSG_REMATCH_OFFERED || t == MSG_REMATCH_DECLINED ||
		                  t == MSG_REMATCH_STARTED);
}

/* The rule of offers, for draws and rematches alike; and of aborts. */
TEST(event_state_offers)
{
	struct event_state st;

	event_state_init(&st, GAME_HOKITO);
	ASSERT_EQ(event_state_answer(&st, MSG_DRAW_OFFER, 0), EVENT_ANSWER_OFFER);
	ASSERT_EQ(event_state_answer(&st, MSG_DRAW_ACCEPT, 0), PROTO_ENOOFFER);
	ASSERT_EQ(event_state_answer(&st, MSG_DRAW_DECLINE, 1), PROTO_ENOOFFER);
	st.offer[EVENT_OFFER_DRAW] = 0;
	ASSERT_EQ(event_state_answer(&st, MSG_DRAW_OFFER, 0), PROTO_EALREADYOFFERED);
	ASSERT_EQ(event_state_answer(&st, MSG_DRAW_ACCEPT, 0), PROTO_ENOOFFER);
	ASSERT_EQ(event_state_answer(&st, MSG_DRAW_OFFER, 1), EVENT_ANSWER_ACCEPT);
	ASSERT_EQ(event_state_answer(&st, MSG_DRAW_ACCEPT, 1), EVENT_ANSWER_ACCEPT);
	ASSERT_EQ(event_state_answer(&st, MSG_DRAW_DECLINE, 1), EVENT_ANSWER_DECLINE);
	/* the draw offer says nothing of rematches */
	ASSERT_EQ(event_state_answer(&st, MSG_REMATCH, 1), EVENT_ANSWER_OFFER);
	ASSERT_EQ(event_state_answer(&st, MSG_REMATCH_DECLINE, 1), PROTO_ENOOFFER);
	st.offer[EVENT_OFFER_REMATCH] = 1;
	ASSERT_EQ(event_state_answer(&st, MSG_REMATCH, 1), PROTO_EALREADYOFFERED);
	ASSERT_EQ(event_state_answer(&st, MSG_REMATCH, 0), EVENT_ANSWER_ACCEPT);
	ASSERT_EQ(event_state_answer(&st, MSG_REMATCH_DECLINE, 0), EVENT_ANSWER_DECLINE);
	ASSERT_EQ(event_state_answer(&st, MSG_REMATCH_DECLINE, 1), PROTO_ENOOFFER);

	/* abort: the first player before its first move, the second before its own */
	st.first = 0;
	st.ply = 0;
	ASSERT_EQ(event_state_may_abort(&st, 0), 1);
	ASSERT_EQ(event_state_may_abort(&st, 1), 1);
	st.ply = 1;
	ASSERT_EQ(event_state_may_abort(&st, 0), 0);
	ASSERT_EQ(event_state_may_abort(&st, 1), 1);
	st.ply = 2;
	ASSERT_EQ(event_state_may_abort(&st, 1), 0);
	st.first = 1;
	st.ply = 1;
	ASSERT_EQ(event_state_may_abort(&st, 0), 1);
	ASSERT_EQ(event_state_may_abort(&st, 1), 0);
}

/*
 * Follow every game of PROTOCOL.md's recorded examples as a client does: from each state line on,
 * the events of that game that come next apply (the copies other receivers got, at or below the
 * seq reached, are skipped). The 11.6 match ends won on time, the rematch started.
 */
TEST(event_state_follows_recorded_games)
{
	FILE *f = open_source("protocol/PROTOCOL.md");
	struct event_state st;
	char line[65536], game[32] = "";
	int applied = 0, states = 0, g1_over = 0;

	ASSERT(f != NULL);
	while (fgets(line, sizeof line, f) != NULL) {
		struct msg_error err = {0, "", ""};
		struct event ev;
		enum msg_type t;
		json_t *o;
		char *end;
		int rc;

		if (strncmp(line, "S> {", 4) != 0)
			continue;
		end = strstr(line, "}   (");
		if (end != NULL)
			end[1] = '\0';
		o = json_loads(line + 3, 0, NULL);
		t = line_type(line + 3);
		if (t == MSG_STATE) {
			rc = event_state_decode(&st, o, &err);
			if (rc < 0) {
				json_decref(o);
				fclose(f);
				FAIL_AT_("%s: %s", err.field, err.text);
			}
			snprintf(game, sizeof game, "%s",
			         json_string_value(json_object_get(o, "game")));
			states++;
		} else if (o != NULL && game[0] != '\0' && msg_type_is_event(t) &&
		           strcmp(json_string_value(json_object_get(o, "game")), game) == 0 &&
		           json_integer_value(json_object_get(o, "seq")) == st.seq + 1) {
			rc = event_decode(o, st.kind, &ev, &err);
			if (rc == 0)
				rc = event_state_apply(&st, &ev, &err);
			if (rc < 0) {
				json_decref(o);
				fclose(f);
				FAIL_AT_("%s: %s: %s", line + 3, err.field, err.text);
			}
			applied++;
			if (t == MSG_GAME_OVER && strcmp(game, "g1") == 0 &&
			    st.reason == EVENT_REASON_TIME && st.winner == 0 && st.clocks.has &&
			    st.clocks.v[1] == 0)
				g1_over = 1;
		}
		json_decref(o);
	}
	fclose(f);
	printf("# %d states, %d events applied after them\n", states, applied);
	ASSERT(states >= 5);
	ASSERT(applied >= 10);
	ASSERT(g1_over);
	/* the last state is the rematch's: live, bob (black) to move first */
	ASSERT_STR_EQ(game, "g2");
	ASSERT_EQ(st.status, EVENT_STATUS_LIVE);
	ASSERT_EQ(st.first, 0);
	ASSERT_EQ(st.to_move, 0);
	ASSERT_EQ(st.clocks.v[0], 300000);
	ASSERT_EQ(st.offer[EVENT_OFFER_DRAW], -1);
	ASSERT_EQ(st.seated[1], 1);
}

/* What a state says; and what it may not say. */
TEST(event_state_decode_refusals)
{
	static const struct {
		const char *field, *line;
	} bad[] = {
	        {"kind", "{\"kind\":\"chess\"}"},
	        {"status", "{\"kind\":\"hokito\",\"status\":\"paused\"}"},
	        {"result", "{\"kind\":\"oxono\",\"status\":\"finished\",\"seq\":3,\"ply\":0,"
	                   "\"to_move\":null,\"start\":\"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,-/"
	                   "-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p\",\"result\":null}"},
	        {"start", "{\"kind\":\"oxono\",\"status\":\"live\",\"seq\":3,\"ply\":0,"
	                  "\"to_move\":\"pink\",\"start\":\"x\",\"result\":null}"},
	        {"players", "{\"kind\":\"oxono\",\"status\":\"live\",\"seq\":3,\"ply\":0,"
	                    "\"to_move\":\"pink\",\"start\":\"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,-,"
	                    "-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p\",\"result\":null,"
	                    "\"players\":{\"pink\":3,\"black\":null}}"},
	        {"draw_offer", "{\"kind\":\"oxono\",\"status\":\"live\",\"seq\":3,\"ply\":0,"
	                       "\"to_move\":\"pink\",\"start\":\"-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,X,"
	                       "-,-/-,-,O,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p\",\"result\":null,"
	                       "\"draw_offer\":\"white\",\"players\":{}}"},
	};
	struct event_state st;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct msg_error err = {0, "", ""};
		json_t *o = json_loads(bad[i].line, 0, NULL);
		int rc = event_state_decode(&st, o, &err);

		json_decref(o);
		ASSERT(rc < 0);
		ASSERT_STR_EQ(err.field, bad[i].field);
	}
}

/* Built from values, as the server will: the line it has always sent. */
TEST(event_encode_values)
{
	static const char *const moves[] = {"a1-a2", "b1-a1"};
	struct event ev;
	struct wire *w;

	memset(&ev, 0, sizeof ev);
	ev.type = MSG_GAME_OVER;
	ev.kind = GAME_OXONO;
	ev.game = "g2";
	ev.seq = 5;
	ev.u.game_over.outcome.result = EVENT_RESULT_ABORTED;
	ev.u.game_over.outcome.winner = -1;
	ev.u.game_over.outcome.reason = EVENT_REASON_ABANDONED;
	w = event_wire(&ev);
	ASSERT_STR_EQ(w->data, "{\"type\":\"game_over\",\"game\":\"g2\",\"seq\":5,\"result\":"
	                       "\"aborted\",\"winner\":null,\"reason\":\"abandoned\",\"ply\":0}\n");
	wire_unref(w);
	/* an OXONO line: its squares, in square order */
	ev.u.game_over.outcome.result = EVENT_RESULT_WIN;
	ev.u.game_over.outcome.winner = 1;
	ev.u.game_over.outcome.reason = EVENT_REASON_LINE;
	ev.u.game_over.outcome.line = 1ULL << 35 | 1ULL << 29 | 1ULL << 23 | 1ULL << 17;
	ev.u.game_over.ply = 13;
	w = event_wire(&ev);
	ASSERT_STR_EQ(w->data, "{\"type\":\"game_over\",\"game\":\"g2\",\"seq\":5,\"result\":"
	                       "\"win\",\"winner\":\"black\",\"reason\":\"line\",\"line\":[\"f3\","
	                       "\"f4\",\"f5\",\"f6\"],\"ply\":13}\n");
	{
		json_t *o = json_loads(w->data, 0, NULL);
		struct event back;
		struct msg_error err;

		ASSERT(o != NULL);
		ASSERT_EQ(event_decode(o, GAME_OXONO, &back, &err), 0);
		ASSERT_U64_EQ(back.u.game_over.outcome.line, ev.u.game_over.outcome.line);
		json_object_set_new(o, "reason", json_string("resign"));
		ASSERT(event_decode(o, GAME_OXONO, &back, &err) < 0); /* a line for a line only */
		json_object_set_new(o, "reason", json_string("line"));
		json_object_set_new(o, "line", json_pack("[s]", "g9"));
		ASSERT(event_decode(o, GAME_OXONO, &back, &err) < 0);
		json_decref(o);
	}
	wire_unref(w);
	memset(&ev, 0, sizeof ev);
	ev.type = MSG_YOUR_TURN;
	ev.game = "g1";
	ev.seq = 3;
	ev.u.your_turn.moves = moves;
	ev.u.your_turn.n = 2;
	w = event_wire(&ev);
	ASSERT_STR_EQ(w->data, "{\"type\":\"your_turn\",\"game\":\"g1\",\"seq\":3,\"moves\":["
	                       "\"a1-a2\",\"b1-a1\"]}\n");
	wire_unref(w);
}

int
main(void)
{
	RUN(event_words);
	RUN(event_reasons_for_results);
	RUN(event_round_trip_protocol_md);
	RUN(event_round_trip_valid);
	RUN(event_refusals);
	RUN(event_outcome_round_trip);
	RUN(event_state_game);
	RUN(event_state_adjourned);
	RUN(event_state_adjourned_claim);
	RUN(event_state_rules);
	RUN(event_state_offers);
	RUN(event_state_follows_recorded_games);
	RUN(event_state_decode_refusals);
	RUN(event_encode_values);
	TEST_END();
}
