/*
 * test-msg.c: protocol messages: the data-file cases (tests/data/protocol: every message type of
 * both directions decodes; every refusal has its code and field), every builder round-tripped
 * through wire_encode() and msg_decode(), the error code names, display names, and wire
 * reference counting.
 */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "protocol.h"
#include "test.h"

static char data_dir[2 * PATH_MAX + 64];

/*
 * Find tests/data/protocol from this file's path. __FILE__ is relative to the build root when
 * meson compiles (../tests/unit/test-msg.c), and the executable lives at
 * <build root>/tests/unit/test-msg, so the answer does not depend on the working directory.
 * HOKITO_PROTOCOL_DATA overrides it.
 */
static void
find_data_dir(void)
{
	char exe[PATH_MAX], base[PATH_MAX];
	const char *file = __FILE__;
	ssize_t n;

	if (getenv("HOKITO_PROTOCOL_DATA") != NULL) {
		snprintf(data_dir, sizeof data_dir, "%s", getenv("HOKITO_PROTOCOL_DATA"));
		return;
	}
	snprintf(base, sizeof base, "%s", file);
	*strrchr(base, '/') = '\0'; /* .../tests/unit */
	if (base[0] == '/') {
		snprintf(data_dir, sizeof data_dir, "%s/../data/protocol", base);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0) {
		snprintf(data_dir, sizeof data_dir, "%s/../data/protocol", base);
		return;
	}
	exe[n] = '\0';
	for (int i = 0; i < 3; i++) { /* test-msg, unit, tests */
		char *slash = strrchr(exe, '/');

		if (slash != NULL)
			*slash = '\0';
	}
	snprintf(data_dir, sizeof data_dir, "%s/%s/../data/protocol", exe, base);
}

static FILE *
open_data(const char *name)
{
	char path[sizeof data_dir + 64];

	snprintf(path, sizeof path, "%s/%s", data_dir, name);
	return fopen(path, "rb");
}

/* Replace each "\xHH" by its byte, in place. Returns the new length. */
static size_t
unescape_bytes(char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (s[i] == '\\' && i + 3 < n + 1 && s[i + 1] == 'x' &&
		    sscanf(s + i + 2, "%2x", &v) == 1) {
			s[o++] = (char)v;
			i += 3;
		} else {
			s[o++] = s[i];
		}
	}
	return o;
}

TEST(msg_valid_cases)
{
	FILE *f = open_data("valid.jsonl");
	char line[8192];
	int cases = 0;

	ASSERT(f != NULL);
	while (fgets(line, sizeof line, f) != NULL) {
		size_t n = strcspn(line, "\n");
		struct msg m, m2;
		struct msg_error err;
		struct wire *w;
		int rc;

		line[n] = '\0';
		if (n == 0 || line[0] == '#')
			continue;
		cases++;
		rc = msg_decode(&m, line, n, &err);
		if (rc != 0) {
			printf("# refused: %s\n# %s\n", line, err.text);
			msg_clear(&m);
			fclose(f);
			ASSERT_EQ(rc, 0);
		}
		ASSERT(m.type != MSG_NONE);
		w = wire_encode(m.root);
		ASSERT_EQ(w->data[w->len - 1], '\n');
		rc = msg_decode(&m2, w->data, w->len - 1, &err);
		ASSERT_EQ(rc, 0);
		ASSERT_EQ(m2.type, m.type);
		ASSERT(json_equal(m.root, m2.root));
		wire_unref(w);
		msg_clear(&m);
		msg_clear(&m2);
	}
	fclose(f);
	printf("# %d valid cases\n", cases);
	ASSERT(cases >= 40);
}

TEST(msg_invalid_cases)
{
	FILE *f = open_data("invalid.txt");
	char line[8192];
	int cases = 0;

	ASSERT(f != NULL);
	while (fgets(line, sizeof line, f) != NULL) {
		size_t n = strcspn(line, "\n");
		char code[64], field[64], *tab, *input;
		struct msg_error err;
		struct msg m;
		size_t len;
		int rc;

		line[n] = '\0';
		if (n == 0 || line[0] == '#')
			continue;
		tab = strchr(line, '\t');
		ASSERT(tab != NULL);
		*tab = '\0';
		ASSERT_EQ(sscanf(line, "%63s %63s", code, field), 2);
		input = tab + 1;
		len = unescape_bytes(input, strlen(input));
		cases++;
		memset(&err, 0, sizeof err);
		rc = msg_decode(&m, input, len, &err);
		if (rc != protocol_err_parse(code) ||
		    strcmp(err.field, strcmp(field, "-") == 0 ? "" : field) != 0) {
			printf("# case %d: %.*s\n#   want %s %s, got %s '%s': %s\n", cases,
			       (int)len, input, code, field, rc ? protocol_err_name(rc) : "ok",
			       err.field, err.text);
			msg_clear(&m);
			fclose(f);
			FAIL_AT_("invalid case %d", cases);
		}
		ASSERT(err.text[0] != '\0');
		/* the error reply can always be built and encoded (with the id when readable) */
		json_decref(msg_decode_error_new(&m, &err));
		msg_clear(&m);
	}
	fclose(f);
	printf("# %d invalid cases\n", cases);
	ASSERT(cases >= 80);
}

/* Encode o (stolen) and decode it again into m. Returns msg_decode()'s result. */
static int
round_trip(json_t *o, struct msg *m)
{
	struct wire *w = wire_encode_steal(o);
	struct msg_error err;
	int rc = msg_decode(m, w->data, w->len - 1, &err);

	if (rc != 0)
		printf("# %s# %s\n", w->data, err.text);
	wire_unref(w);
	return rc;
}

TEST(msg_build_requests)
{
	json_t *id = json_integer(7), *sid = json_string("x");
	struct msg m;

	ASSERT_EQ(round_trip(msg_hello_new("ann", NULL, -1, id), &m), 0);
	ASSERT_EQ(m.type, MSG_HELLO);
	ASSERT_STR_EQ(m.name, "ann");
	ASSERT_EQ(m.protocol, PROTOCOL_VERSION);
	ASSERT_EQ(m.has_last_seq, 0);
	ASSERT_EQ(json_integer_value(m.id), 7);
	msg_clear(&m);

	ASSERT_EQ(round_trip(msg_hello_new(NULL, "0123456789abcdef0123456789abcdef", 12, NULL), &m),
	          0);
	ASSERT_STR_EQ(m.token, "0123456789abcdef0123456789abcdef");
	ASSERT_EQ(m.has_last_seq, 1);
	ASSERT_EQ(m.last_seq, 12);
	ASSERT(m.id == NULL);
	msg_clear(&m);

	ASSERT_EQ(round_trip(msg_create_new("hokito", "random36", "white", 1, sid), &m), 0);
	ASSERT_EQ(m.type, MSG_CREATE);
	ASSERT_EQ(m.kind, GAME_HOKITO);
	ASSERT_STR_EQ(m.variant, "random36");
	ASSERT_EQ(m.seat, 1);
	ASSERT_EQ(m.is_private, 1);
	ASSERT_STR_EQ(json_string_value(m.id), "x");
	msg_clear(&m);

	ASSERT_EQ(round_trip(msg_create_new("oxono", NULL, NULL, 0, NULL), &m), 0);
	ASSERT_EQ(m.kind, GAME_OXONO);
	ASSERT_STR_EQ(m.variant, "standard");
	ASSERT_EQ(m.seat, -1);
	ASSERT_EQ(m.is_private, 0);
	msg_clear(&m);

	ASSERT_EQ(round_trip(msg_join_new("g4", NULL, NULL), &m), 0);
	ASSERT_EQ(m.type, MSG_JOIN);
	ASSERT_STR_EQ(m.game, "g4");
	msg_clear(&m);
	ASSERT_EQ(round_trip(msg_join_new(NULL, "CODE2345", NULL), &m), 0);
	ASSERT_STR_EQ(m.code, "CODE2345");
	msg_clear(&m);
	ASSERT_EQ(round_trip(msg_quick_new("oxono", NULL, NULL), &m), 0);
	ASSERT_EQ(m.type, MSG_QUICK);
	ASSERT_EQ(m.kind, GAME_OXONO);
	msg_clear(&m);
	ASSERT_EQ(round_trip(msg_watch_new("g9", NULL, NULL), &m), 0);
	ASSERT_EQ(m.type, MSG_WATCH);
	ASSERT_STR_EQ(m.game, "g9");
	msg_clear(&m);
	ASSERT_EQ(round_trip(msg_move_new("g2", "Xc5+c6", id), &m), 0);
	ASSERT_EQ(m.type, MSG_MOVE);
	ASSERT_STR_EQ(m.move, "Xc5+c6");
	ASSERT_STR_EQ(m.game, "g2");
	msg_clear(&m);
	for (enum msg_type t = MSG_LIST; t <= MSG_PING; t++) {
		if (t == MSG_CREATE || t == MSG_JOIN || t == MSG_QUICK || t == MSG_WATCH ||
		    t == MSG_MOVE)
			continue;
		ASSERT_EQ(round_trip(msg_new(t, NULL), &m), 0);
		ASSERT_EQ(m.type, t);
		msg_clear(&m);
	}
	json_decref(id);
	json_decref(sid);
}

TEST(msg_build_replies)
{
	json_t *id = json_string("r1");
	struct msg m;

	ASSERT_EQ(round_trip(msg_ok_new(MSG_MOVE, 17, id), &m), 0);
	ASSERT_EQ(m.type, MSG_OK);
	ASSERT_STR_EQ(msg_str(&m, "request"), "move");
	ASSERT_EQ(msg_int(&m, "seq", -1), 17);
	ASSERT_STR_EQ(json_string_value(m.id), "r1");
	msg_clear(&m);
	ASSERT_EQ(round_trip(msg_ok_new(MSG_LEAVE, -1, NULL), &m), 0);
	ASSERT_EQ(msg_int(&m, "seq", -1), -1);
	msg_clear(&m);

	ASSERT_EQ(round_trip(msg_error_new(PROTO_EILLEGALMOVE, MSG_MOVE, NULL, "no", id), &m), 0);
	ASSERT_EQ(m.type, MSG_ERROR);
	ASSERT_STR_EQ(msg_str(&m, "code"), "illegal_move");
	ASSERT_STR_EQ(msg_str(&m, "request"), "move");
	ASSERT(msg_str(&m, "field") == NULL);
	msg_clear(&m);
	ASSERT_EQ(round_trip(msg_error_new(PROTO_EBADFIELD, MSG_NONE, "kind", "k", NULL), &m), 0);
	ASSERT_STR_EQ(msg_str(&m, "field"), "kind");
	ASSERT(msg_str(&m, "request") == NULL);
	msg_clear(&m);
	/* a text that is not UTF-8 still gives an error with a text */
	ASSERT_EQ(round_trip(msg_error_new(PROTO_EBADMOVE, MSG_MOVE, NULL, "bad \xff", NULL), &m),
	          0);
	ASSERT(msg_str(&m, "text") != NULL);
	msg_clear(&m);

	ASSERT_EQ(round_trip(msg_bye_new("shutdown", "bye"), &m), 0);
	ASSERT_EQ(m.type, MSG_BYE);
	ASSERT_STR_EQ(msg_str(&m, "reason"), "shutdown");
	msg_clear(&m);
	ASSERT_EQ(round_trip(msg_new(MSG_PONG, id), &m), 0);
	ASSERT_EQ(m.type, MSG_PONG);
	msg_clear(&m);
	json_decref(id);
}

TEST(msg_decode_error_keeps_id)
{
	const char *line = "{\"type\":\"create\",\"kind\":\"chess\",\"id\":41}";
	struct msg_error err;
	struct msg m;
	json_t *reply;

	ASSERT_EQ(msg_decode(&m, line, strlen(line), &err), PROTO_EBADVALUE);
	ASSERT_EQ(m.type, MSG_CREATE);
	reply = msg_decode_error_new(&m, &err);
	ASSERT_EQ(json_integer_value(json_object_get(reply, "id")), 41);
	ASSERT_STR_EQ(json_string_value(json_object_get(reply, "request")), "create");
	ASSERT_STR_EQ(json_string_value(json_object_get(reply, "field")), "kind");
	json_decref(reply);
	msg_clear(&m);
	msg_clear(&m); /* twice is fine */
}

/* A seed given as a string: decimal digits, any number of leading zeros, a value below 2^64. */
TEST(msg_seed_strings)
{
	static const struct {
		const char *seed;
		uint64_t value;
	} cases[] = {
	        {"0", 0},
	        {"007", 7},
	        {"18446744073709551615", UINT64_MAX},
	        {"000000000000000000000018446744073709551615", UINT64_MAX},
	};
	struct msg_error err;
	struct msg m;
	char line[200];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(line, sizeof line,
		         "{\"type\":\"create\",\"kind\":\"hokito\",\"seed\":\"%s\"}",
		         cases[i].seed);
		ASSERT_EQ(msg_decode(&m, line, strlen(line), &err), 0);
		ASSERT_EQ(m.has_seed, 1);
		ASSERT_EQ(m.seed, cases[i].value);
		msg_clear(&m);
	}
}

/* A server message sent to the server is an unknown type there, before its members count. */
TEST(msg_request_decode_refuses_replies)
{
	const char *welcome = "{\"type\":\"welcome\",\"id\":\"w\"}";
	const char *ping = "{\"type\":\"ping\"}";
	struct msg_error err;
	struct msg m;
	json_t *reply;

	ASSERT_EQ(msg_request_decode(&m, welcome, strlen(welcome), &err), PROTO_EUNKNOWNTYPE);
	ASSERT_EQ(m.type, MSG_NONE);
	ASSERT_STR_EQ(err.field, "type");
	reply = msg_decode_error_new(&m, &err);
	ASSERT_STR_EQ(json_string_value(json_object_get(reply, "id")), "w");
	ASSERT(json_object_get(reply, "request") == NULL);
	json_decref(reply);
	msg_clear(&m);
	ASSERT_EQ(msg_request_decode(&m, ping, strlen(ping), &err), 0);
	ASSERT_EQ(m.type, MSG_PING);
	msg_clear(&m);
}

/* Chat lines: control characters go, trailing spaces take no room however many. */
TEST(protocol_chat_lines)
{
	char out[PROTOCOL_CHAT_BYTES + 1], in[1200];

	ASSERT_EQ(protocol_chat_clean("  a\x01\tb \n", out, sizeof out), 3);
	ASSERT_STR_EQ(out, "a b");
	memset(in, ' ', sizeof in - 1);
	in[0] = 'x';
	in[sizeof in - 1] = '\0';
	ASSERT_EQ(protocol_chat_clean(in, out, sizeof out), 1);
	ASSERT_STR_EQ(out, "x");
	ASSERT_EQ(protocol_chat_clean(" \x02 ", out, sizeof out), 0);
	ASSERT_STR_EQ(out, "");
}

TEST(msg_type_names)
{
	for (int t = MSG_NONE + 1; t < MSG_TYPE_COUNT; t++) {
		ASSERT(msg_type_name((enum msg_type)t) != NULL);
		ASSERT_EQ(msg_type_parse(msg_type_name((enum msg_type)t)), t);
		ASSERT_EQ(msg_type_is_request((enum msg_type)t),
		          t >= MSG_HELLO && t <= MSG_TEST_CLOCK);
	}
	ASSERT(msg_type_name(MSG_NONE) == NULL);
	ASSERT(msg_type_name(MSG_TYPE_COUNT) == NULL);
	ASSERT_EQ(msg_type_parse("nope"), MSG_NONE);
	ASSERT(msg_type_is_event(MSG_MOVED));
	ASSERT(!msg_type_is_event(MSG_YOUR_TURN));
	ASSERT(msg_type_is_event(MSG_CHAT));
	ASSERT(msg_type_is_event(MSG_REMATCH_STARTED));
	ASSERT(!msg_type_is_event(MSG_KIBITZ));
	ASSERT(!msg_type_is_event(MSG_SAY));
}

TEST(protocol_error_names)
{
	for (int code = -1; code >= -PROTO_ERR_COUNT; code--)
		ASSERT_EQ(protocol_err_parse(protocol_err_name(code)), code);
	ASSERT_STR_EQ(protocol_err_name(PROTO_ETOOLONG), "line_too_long");
	ASSERT_STR_EQ(protocol_err_name(PROTO_EILLEGALMOVE), "illegal_move");
	ASSERT_STR_EQ(protocol_err_name(PROTO_ESTOREUNAVAILABLE), "store_unavailable");
	ASSERT_STR_EQ(protocol_err_name(0), "internal");
	ASSERT_STR_EQ(protocol_err_name(-1000), "internal");
	ASSERT_EQ(protocol_err_parse("nonsense"), 0);
}

TEST(protocol_names)
{
	ASSERT_EQ(protocol_name_check("alice"), 0);
	ASSERT_EQ(protocol_name_check("\xc5\xbc\xc3\xb3\xc5\x82w \xf0\x9f\x90\xa2"), 0);
	ASSERT_EQ(protocol_name_check("12345678901234567890123456789012"), 0);
	ASSERT_EQ(protocol_name_check("123456789012345678901234567890123"), PROTO_EBADVALUE);
	ASSERT_EQ(protocol_name_check(""), PROTO_EBADVALUE);
	ASSERT_EQ(protocol_name_check("a\tb"), PROTO_EBADVALUE);
	ASSERT_EQ(protocol_name_check("a\x7f"), PROTO_EBADVALUE);
	/* a name must show: not only spaces, of any width, nor zero-width characters */
	ASSERT_EQ(protocol_name_check(" "), PROTO_EBADVALUE);
	ASSERT_EQ(protocol_name_check("   "), PROTO_EBADVALUE);
	ASSERT_EQ(protocol_name_check("\xc2\xa0\xe3\x80\x80\xe2\x80\x8b\xef\xbb\xbf"),
	          PROTO_EBADVALUE);
	/* ... nor the other invisible ones (Default_Ignorable_Code_Point): a left-to-right mark,
	 * a word joiner, the Hangul filler, the Mongolian vowel separator, a soft hyphen, a tag */
	ASSERT_EQ(protocol_name_check("\xe2\x80\x8e"), PROTO_EBADVALUE);
	ASSERT_EQ(protocol_name_check("\xe2\x81\xa0\xe3\x85\xa4"), PROTO_EBADVALUE);
	ASSERT_EQ(protocol_name_check("\xe1\xa0\x8e\xc2\xad"), PROTO_EBADVALUE);
	ASSERT_EQ(protocol_name_check("\xf3\xa0\x80\xa0 "), PROTO_EBADVALUE);
	ASSERT_EQ(protocol_name_check("\xe3\x85\xa4x\xe2\x80\x8e"), 0);
	ASSERT_EQ(protocol_name_check("\xe2\xa0\x80"), 0); /* a braille pattern shows */
	ASSERT_EQ(protocol_name_check(" a "), 0);
	ASSERT_EQ(protocol_name_check("\xe3\x80\x80x"), 0);
	ASSERT_EQ(protocol_name_check("\xc2\x85"), PROTO_EBADVALUE);     /* U+0085 */
	ASSERT_EQ(protocol_name_check("\xc0\xaf"), PROTO_EBADVALUE);     /* overlong */
	ASSERT_EQ(protocol_name_check("\xed\xa0\x80"), PROTO_EBADVALUE); /* surrogate */
	ASSERT_EQ(protocol_name_check("\xe2\x82"), PROTO_EBADVALUE);     /* cut short */
}

/* Texts cut at a byte count lose the part of a character the cut left, nothing else. */
TEST(protocol_utf8_repairs)
{
	char cut[] = "'x\xc3\xa9\xc3' is not a move";
	char bad[] = "a\xff\xc0\xaf" /* a stray byte, an overlong '/' */
	             "b\xed\xa0\x80" /* a surrogate */
	             "c\xf0\x9f";    /* a character cut short */
	json_t *e;

	ASSERT_STR_EQ(protocol_utf8_repair(cut), "'x\xc3\xa9' is not a move");
	ASSERT_STR_EQ(protocol_utf8_repair(bad), "abc");
	e = msg_error_new(PROTO_EBADMOVE, MSG_MOVE, NULL, "'\xc3\xa9\xc3' is not a move", NULL);
	ASSERT_STR_EQ(json_string_value(json_object_get(e, "text")), "'\xc3\xa9' is not a move");
	json_decref(e);
}

TEST(wire_refcount)
{
	json_t *o = json_pack("{s:s,s:i}", "type", "pong", "id", 3);
	struct wire *w = wire_encode(o), *t;

	ASSERT_EQ(w->refs, 1);
	ASSERT_STR_EQ(w->data, "{\"type\":\"pong\",\"id\":3}\n");
	ASSERT_EQ(w->len, strlen(w->data));
	ASSERT(wire_ref(w) == w);
	ASSERT_EQ(w->refs, 2);
	wire_unref(w);
	wire_unref(w);
	wire_unref(NULL);
	json_decref(o);
	t = wire_text("abc", 3);
	ASSERT_EQ(t->len, 4);
	ASSERT_STR_EQ(t->data, "abc\n");
	wire_unref(t);
}

/* Whether wire a holds exactly the bytes of wire_encode(o); frees both. Steals o. */
static int
wire_same(struct wire *a, json_t *o)
{
	struct wire *b = wire_encode_steal(o);
	int same = a->len == b->len && memcmp(a->data, b->data, a->len) == 0;

	if (!same)
		printf("# fast: %.*s# jansson: %.*s", (int)a->len, a->data, (int)b->len, b->data);
	wire_unref(a);
	wire_unref(b);
	return same;
}

TEST(wire_builder_strings)
{
	static const char *const texts[] = {
	        "",
	        "g12",
	        "a\"b\\c/d",
	        "tab\tnl\ncr\rbs\bff\f",
	        "\x01\x1f\x7f",
	        "caf\xc3\xa9",
	        "\xe2\x80\xa8 \xf0\x9f\x98\x80",
	        "w2,w2,w1/b3 b",
	};

	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		struct wire_builder b;

		wire_builder_init(&b, 1);
		wire_builder_raw(&b, "[", 1);
		wire_builder_str(&b, texts[i]);
		wire_builder_raw(&b, "]", 1);
		ASSERT(wire_same(wire_builder_finish(&b), json_pack("[s]", texts[i])));
	}
}

/* wire_encode() gives jansson's compact text for everything: its own walk, or jansson where it
 * must. */
static int
wire_as_jansson(const json_t *v)
{
	size_t n = json_dumpb(v, NULL, 0, JSON_COMPACT | JSON_PRESERVE_ORDER);
	struct wire *w = wire_encode(v);
	char *text = malloc(n + 1);
	int same = text != NULL &&
	           json_dumpb(v, text, n, JSON_COMPACT | JSON_PRESERVE_ORDER) == n &&
	           w->len == n + 1 && memcmp(w->data, text, n) == 0;

	if (!same)
		printf("# wire: %.*s# jansson: %.*s\n", (int)w->len, w->data, (int)n, text);
	free(text);
	wire_unref(w);
	return same;
}

TEST(wire_encode_as_jansson)
{
	static const char *const texts[] = {
	        "{}",
	        "[]",
	        "{\"a\":[],\"b\":{},\"c\":[1,[2,[3]],{\"d\":null}],\"e\":true,\"f\":false}",
	        "{\"real\":1.5,\"small\":1e-300,\"int\":-9223372036854775807,\"z\":0}",
	        "{\"nul\":\"a\\u0000b\"}",
	        "{\"esc\":\"\\\"\\\\/\\b\\f\\n\\r\\t\\u0001\"}",
	        "{\"utf8\":\"caf\u00e9 \\u2028 \\ud83d\\ude00\",\"later\":\"z\",\"earlier\":\"a\"}",
	        "[{\"k\":[1.25]},\"x\"]",
	};
	FILE *f = open_data("valid.jsonl");
	char line[8192];

	json_t *v;

	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		v = json_loads(texts[i], JSON_ALLOW_NUL, NULL);
		ASSERT(v != NULL);
		ASSERT(wire_as_jansson(v));
		json_decref(v);
	}
	v = json_pack("{s:i}", "first", 1); /* a key with a NUL inside: the parser refuses those */
	json_object_setn_new(v, "k\0ey", 4, json_integer(2));
	ASSERT(wire_as_jansson(v));
	json_decref(v);
	ASSERT(f != NULL);
	while (fgets(line, sizeof line, f) != NULL) {
		size_t n = strcspn(line, "\n");

		line[n] = '\0';
		if (n == 0 || line[0] == '#')
			continue;
		v = json_loadb(line, n, 0, NULL);
		ASSERT(v != NULL);
		ASSERT(wire_as_jansson(v));
		json_decref(v);
	}
	fclose(f);
}

TEST(wire_builder_ints)
{
	static const int64_t values[] = {
	        0, 1, -1, 9, 10, -10, 99, 100, 1234567890, -987654321012, INT64_MAX, INT64_MIN,
	};

	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		struct wire_builder b;

		wire_builder_init(&b, 1);
		wire_builder_raw(&b, "[", 1);
		wire_builder_int(&b, values[i]);
		wire_builder_raw(&b, "]", 1);
		ASSERT(wire_same(wire_builder_finish(&b), json_pack("[I]", (json_int_t)values[i])));
	}
}

TEST(wire_fast_ok)
{
	json_t *ids[] = {NULL, json_integer(7), json_string("m\u00e9\"1"), json_integer(-3)};

	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		for (int64_t seq = -1; seq < 200; seq += 57) {
			ASSERT(wire_same(msg_ok_wire(MSG_MOVE, seq, ids[i]),
			                 msg_ok_new(MSG_MOVE, seq, ids[i])));
			ASSERT(wire_same(msg_ok_wire(MSG_SAY, seq, ids[i]),
			                 msg_ok_new(MSG_SAY, seq, ids[i])));
		}
		json_decref(ids[i]);
	}
}

TEST(wire_fast_moved)
{
	for (int v = 0; v < 8; v++) {
		struct msg_moved mv = {
		        .game = "g123",
		        .seq = 40 + v,
		        .by = v & 1 ? "white" : "pink",
		        .move = "b2-c3",
		        .ply = 17,
		        .position = "w2,w2,w1,w1,w1,w2/w2,w3,w3,w2,w1,w3/b3,b1,b1,b1,b2,b2 b",
		        .to_move = v & 2 ? NULL : "black",
		        .side = {v & 1 ? "black" : "pink", v & 1 ? "white" : "black"},
		        .has_scores = v & 1,
		        .scores = {36, 29},
		        .has_clocks = v & 4,
		        .clocks = {293000, 0},
		};
		json_t *o = msg_new(MSG_MOVED, NULL);

		json_object_set_new(o, "game", json_string(mv.game));
		json_object_set_new(o, "seq", json_integer(mv.seq));
		json_object_set_new(o, "by", json_string(mv.by));
		json_object_set_new(o, "move", json_string(mv.move));
		json_object_set_new(o, "ply", json_integer(mv.ply));
		json_object_set_new(o, "position", json_string(mv.position));
		json_object_set_new(o, "to_move",
		                    mv.to_move ? json_string(mv.to_move) : json_null());
		if (mv.has_scores)
			json_object_set_new(o, "scores",
			                    json_pack("{s:I,s:I}", mv.side[0], mv.scores[0],
			                              mv.side[1], mv.scores[1]));
		if (mv.has_clocks)
			json_object_set_new(o, "clocks",
			                    json_pack("{s:I,s:I}", mv.side[0], mv.clocks[0],
			                              mv.side[1], mv.clocks[1]));
		ASSERT(wire_same(msg_moved_wire(&mv), o));
	}
}

TEST(wire_fast_your_turn)
{
	static const char *const moves[] = {"a1-b2", "c3", "a1-a6", "X b2 c3", "pass"};

	for (size_t n = 0; n <= sizeof moves / sizeof moves[0]; n++) {
		json_t *o = msg_new(MSG_YOUR_TURN, NULL), *list = json_array();

		for (size_t i = 0; i < n; i++)
			json_array_append_new(list, json_string(moves[i]));
		json_object_set_new(o, "game", json_string("g9"));
		json_object_set_new(o, "seq", json_integer(12));
		json_object_set_new(o, "moves", list);
		ASSERT(wire_same(msg_your_turn_wire("g9", 12, moves, n), o));
	}
}

int
main(void)
{
	find_data_dir();
	printf("# data: %s\n", data_dir);
	RUN(msg_valid_cases);
	RUN(msg_invalid_cases);
	RUN(msg_build_requests);
	RUN(msg_build_replies);
	RUN(msg_decode_error_keeps_id);
	RUN(msg_seed_strings);
	RUN(msg_request_decode_refuses_replies);
	RUN(protocol_chat_lines);
	RUN(msg_type_names);
	RUN(protocol_error_names);
	RUN(protocol_names);
	RUN(protocol_utf8_repairs);
	RUN(wire_refcount);
	RUN(wire_builder_strings);
	RUN(wire_builder_ints);
	RUN(wire_encode_as_jansson);
	RUN(wire_fast_ok);
	RUN(wire_fast_moved);
	RUN(wire_fast_your_turn);
	TEST_END();
}
