/*
 * test-record.c: the text game record (common/record.c): round trips of both games through
 * write, parse and replay; the exact text of a record; every malformed case with its place; a
 * result, reason or score that the moves contradict.
 */
#include "record.h"
#include "rng.h"
#include "test.h"

/* Fill r with a game of random legal moves from seed, stopping after at most max moves. */
static void
random_game(struct record *r, enum game_kind kind, const char *variant, uint64_t seed, size_t max)
{
	struct game_move moves[GAME_MOVES_MAX];
	struct game_outcome o;
	struct rng rng;
	struct game g;
	int n;

	memset(r, 0, sizeof *r);
	r->kind = kind;
	snprintf(r->variant, sizeof r->variant, "%s", variant);
	r->seed = seed;
	game_start(&g, kind, variant, seed, NULL);
	r->start = g;
	rng_init(&rng, seed * 7 + 3);
	while (r->nmoves < max && (n = game_moves(&g, moves)) > 0) {
		struct game_move m = moves[rng_below(&rng, (uint32_t)n)];
		r->moves[r->nmoves++] = m;
		game_apply(&g, m);
	}
	game_outcome(&g, &o);
	if (o.end == GAME_END_NONE) {
		r->result = RECORD_UNFINISHED;
	} else {
		r->result = o.winner < 0 ? RECORD_DRAW : (enum record_result)o.winner;
		snprintf(r->reason, sizeof r->reason, "%s",
		         o.end == GAME_END_BLOCKED ? "blocked"
		         : o.end == GAME_END_LINE  ? "line"
		                                   : "full");
	}
}

static int
same_game(const struct game *a, const struct game *b)
{
	char ta[GAME_TEXT_MAX], tb[GAME_TEXT_MAX];

	game_format(a, ta, sizeof ta);
	game_format(b, tb, sizeof tb);
	return strcmp(ta, tb) == 0;
}

/* Write r, parse it back into p, and check that both describe the same game. */
static int
round_trip(struct record *r, struct record *p, char *text, size_t size)
{
	struct record_error err;
	int len = record_write(r, text, size, &err);

	if (len < 0) {
		printf("# write: %s\n", err.text);
		return 0;
	}
	if ((size_t)len != strlen(text) || len >= RECORD_TEXT_MAX)
		return 0;
	if (record_parse(p, text, (size_t)len, &err) != 0) {
		printf("# parse %d:%d: %s\n%s", err.line, err.column, err.text, text);
		return 0;
	}
	if (p->kind != r->kind || p->nmoves != r->nmoves || p->result != r->result ||
	    strcmp(p->reason, r->reason) != 0 || !same_game(&p->final, &r->final) ||
	    !same_game(&p->start, &r->start) || strcmp(p->player[0], r->player[0]) != 0 ||
	    strcmp(p->player[1], r->player[1]) != 0 || strcmp(p->date, r->date) != 0)
		return 0;
	for (size_t i = 0; i < r->nmoves; i++)
		if (memcmp(&p->moves[i], &r->moves[i], sizeof r->moves[i]) != 0)
			return 0;
	return 1;
}

/* Finished random games of both games and both HOKITO variants survive write and parse. */
TEST(record_round_trip_finished)
{
	static struct record r, p;
	char text[RECORD_TEXT_MAX];
	const char *variants[] = {"standard", "random36"};
	int finished = 0;

	for (uint64_t seed = 0; seed < 60; seed++) {
		for (int k = 0; k < 3; k++) {
			enum game_kind kind = k == 2 ? GAME_OXONO : GAME_HOKITO;
			random_game(&r, kind, k == 2 ? "standard" : variants[k], seed,
			            RECORD_MOVES_MAX);
			snprintf(r.player[0], sizeof r.player[0], "alice %d", (int)seed);
			snprintf(r.player[1], sizeof r.player[1], "bob \"the\" \\ %d", k);
			snprintf(r.date, sizeof r.date, "2026-11-%02d", (int)(seed % 28) + 1);
			ASSERT(round_trip(&r, &p, text, sizeof text));
			finished += r.result != RECORD_UNFINISHED;
			if (kind == GAME_HOKITO) {
				struct game_outcome o;
				game_outcome(&p.final, &o);
				ASSERT(p.has_score);
				ASSERT_EQ(p.score[0], o.score[0]);
				ASSERT_EQ(p.score[1], o.score[1]);
			} else {
				ASSERT(!p.has_score);
			}
		}
	}
	ASSERT_EQ(finished, 180);
}

/* Unfinished games, resignations, abandoned games, no players and no date. */
TEST(record_round_trip_unfinished)
{
	static struct record r, p;
	char text[RECORD_TEXT_MAX];

	for (uint64_t seed = 0; seed < 40; seed++) {
		for (int kind = 0; kind < 2; kind++) {
			random_game(&r, (enum game_kind)kind, "standard", seed, seed % 9);
			if (r.result != RECORD_UNFINISHED)
				continue; /* over already: the other test's business */
			ASSERT(round_trip(&r, &p, text, sizeof text));
			r.result = (enum record_result)(seed & 1);
			snprintf(r.reason, sizeof r.reason, "resign");
			ASSERT(round_trip(&r, &p, text, sizeof text));
		}
	}
	random_game(&r, GAME_OXONO, "standard", 5, 0);
	snprintf(r.reason, sizeof r.reason, "abandoned");
	snprintf(r.player[1], sizeof r.player[1], "only black");
	ASSERT(round_trip(&r, &p, text, sizeof text));
	ASSERT(strstr(text, "[Black \"only black\"]\n[Result \"*\"]\n[Reason \"abandoned\"]\n") !=
	       NULL);
	ASSERT(strstr(text, "\n\n*\n") != NULL);
}

/* A record from a position with the second side to move numbers its first move "1...". */
TEST(record_position_start)
{
	static struct record r, p;
	char text[RECORD_TEXT_MAX];
	struct game_move moves[GAME_MOVES_MAX];
	struct game g;

	for (int kind = 0; kind < 2; kind++) {
		random_game(&r, (enum game_kind)kind, "standard", 11, 3);
		g = r.start;
		for (size_t i = 0; i < r.nmoves; i++)
			game_apply(&g, r.moves[i]);
		ASSERT_EQ(game_side(&g), 1);
		memset(&r, 0, sizeof r);
		r.kind = (enum game_kind)kind;
		r.has_position = 1;
		game_format(&g, r.position, sizeof r.position);
		for (int i = 0; i < 5; i++) {
			int n = game_moves(&g, moves);
			ASSERT(n > 0);
			r.moves[r.nmoves++] = moves[(i * 37 + 5) % n];
			game_apply(&g, r.moves[r.nmoves - 1]);
		}
		r.result = RECORD_UNFINISHED;
		ASSERT(round_trip(&r, &p, text, sizeof text));
		ASSERT(strstr(text, "[Position \"") != NULL);
		ASSERT(strstr(text, "[Seed") == NULL);
		ASSERT(strstr(text, "\n\n1... ") != NULL);
		ASSERT(strstr(text, " 2. ") != NULL);
		ASSERT(strstr(text, " 3. ") != NULL);
		ASSERT(p.has_position);
		ASSERT_STR_EQ(p.position, r.position);
	}
}

/* The exact text of a record: headers in order, numbering, wrapping, result token. */
TEST(record_exact_text)
{
	static struct record r, p;
	char text[RECORD_TEXT_MAX];
	const char *line, *nl;
	struct record_error err;

	random_game(&r, GAME_HOKITO, "standard", 42, RECORD_MOVES_MAX);
	snprintf(r.player[0], sizeof r.player[0], "alice");
	snprintf(r.player[1], sizeof r.player[1], "bob");
	snprintf(r.date, sizeof r.date, "2026-11-22");
	ASSERT(record_write(&r, text, sizeof text, &err) > 0);
	ASSERT(strncmp(text,
	               "[Game \"hokito\"]\n[Variant \"standard\"]\n[Seed \"42\"]\n[Black "
	               "\"alice\"]\n[White \"bob\"]\n[Date \"2026-11-22\"]\n[Result \"",
	               strlen("[Game \"hokito\"]\n[Variant \"standard\"]\n[Seed \"42\"]\n[Black "
	                      "\"alice\"]\n[White \"bob\"]\n[Date \"2026-11-22\"]\n[Result \"")) ==
	       0);
	ASSERT(strstr(text, "[Reason \"blocked\"]\n[Score \"") != NULL);
	ASSERT(strstr(text, "\"]\n\n1. ") != NULL);
	ASSERT(strstr(text, " 2. ") != NULL);
	for (line = strstr(text, "\n\n") + 2; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		ASSERT(nl != NULL);
		ASSERT(nl - line <= 79);
		ASSERT(line[0] != ' ' && nl[-1] != ' ');
		/* a move number stays on the line of its move: no line ends with one */
		ASSERT(nl[-1] != '.');
	}
	{
		/* the last token is the result, the word of the Result header */
		const char *h = strstr(text, "[Result \"") + strlen("[Result \""),
		           *end = text + strlen(text) - 1;
		const char *last = end;

		while (last > text && last[-1] != ' ' && last[-1] != '\n')
			last--;
		ASSERT(strncmp(last, h, (size_t)(end - last)) == 0 && h[end - last] == '"');
	}
	ASSERT_EQ(record_parse(&p, text, strlen(text), &err), 0);
	/* without its final line feed it is still a record */
	ASSERT_EQ(record_parse(&p, text, strlen(text) - 1, &err), 0);
	/* a written OXONO record has no Score */
	random_game(&r, GAME_OXONO, "standard", 42, RECORD_MOVES_MAX);
	ASSERT(record_write(&r, text, sizeof text, &err) > 0);
	ASSERT(strstr(text, "[Game \"oxono\"]\n[Variant \"standard\"]\n[Seed \"42\"]\n") == text);
	ASSERT(strstr(text, "Score") == NULL);
}

/* A hand-written record: the hop-path form of a move is accepted as input. */
TEST(record_hand_written)
{
	static struct record p;
	struct record_error err;
	char text[1024];
	const char *t = "[Game \"oxono\"]\n[Variant \"standard\"]\n[Seed \"2\"]\n"
	                "[Pink \"ann\"]\n[Black \"\\\"b\\\\\"]\n[Result \"*\"]\n\n"
	                "1. Xc4+c5 Od6+d5\n2. Xa4+a5 *\n";

	ASSERT_EQ(record_parse(&p, t, strlen(t), &err), 0);
	ASSERT_EQ(p.nmoves, 3);
	ASSERT_STR_EQ(p.player[1], "\"b\\");
	ASSERT_EQ(game_side(&p.final), 1);
	(void)text;
}

struct bad {
	const char *text;
	int code;
	int line, column;
	const char *says; /* a part of the sentence */
};

#define HK "[Game \"hokito\"]\n[Variant \"standard\"]\n[Seed \"1\"]\n"
#define OX "[Game \"oxono\"]\n[Variant \"standard\"]\n[Seed \"2\"]\n"

/* Every malformed record is refused with its code, line, column and a clear sentence. */
TEST(record_malformed)
{
	static const struct bad cases[] = {
	        {"", RECORD_ESYNTAX, 1, 1, "starts with its headers"},
	        {"hello\n", RECORD_ESYNTAX, 1, 1, "starts with its headers"},
	        {"[Variant \"standard\"]\n", RECORD_ESYNTAX, 1, 2, "first header must be Game"},
	        {"[Game \"chess\"]\n", RECORD_ESYNTAX, 1, 8, "unknown game"},
	        {"[Game  \"hokito\"]\n", RECORD_ESYNTAX, 1, 7, "'\"' to open"},
	        {"[Game \"hokito\" ]\n", RECORD_ESYNTAX, 1, 15, "expected ']'"},
	        {"[Game \"hokito\"] \n", RECORD_ESYNTAX, 1, 16, "end of the line"},
	        {"[Game \"hokito\"]", RECORD_ESYNTAX, 1, 16, "end of the line"},
	        {"[Game \"hoki\n", RECORD_ESYNTAX, 1, 12, "no closing"},
	        {"[Game \"hok\\ito\"]\n", RECORD_ESYNTAX, 1, 11, "backslash"},
	        {"[ \"x\"]\n", RECORD_ESYNTAX, 1, 2, "header name"},
	        {"[Game \"hokito\"]\r\n", RECORD_ESYNTAX, 1, 16, "carriage return"},
	        {"[Game \"hokito\"]\n\t", RECORD_ESYNTAX, 2, 1, "control character 0x09"},
	        /* C1 controls are control characters too (NEL breaks lines); U+00A0 is not one. */
	        {HK "[Black \"a\xc2\x85\"]\n", RECORD_ESYNTAX, 4, 10, "control character U+0085"},
	        /* C2 then an ASCII byte is no character at all */
	        {HK "[Black \"a\xc2\x41\"]\n", RECORD_ESYNTAX, 4, 10, "not valid UTF-8"},
	        {"[Game \"hokito\"]\n[Variant \"blitz\"]\n", RECORD_ESYNTAX, 2, 11,
	         "unknown variant"},
	        {"[Game \"oxono\"]\n[Variant \"random36\"]\n", RECORD_ESYNTAX, 2, 11,
	         "unknown variant"},
	        {"[Game \"hokito\"]\n[Event \"x\"]\n", RECORD_ESYNTAX, 2, 2, "unknown header"},
	        {"[Game \"hokito\"]\n[Game \"hokito\"]\n", RECORD_ESYNTAX, 2, 2, "twice"},
	        {"[Game \"hokito\"]\n[Seed \"1\"]\n[Variant \"standard\"]\n", RECORD_ESYNTAX, 3, 2,
	         "must come before 'Seed'"},
	        {HK "[Position \"x\"]\n", RECORD_ESYNTAX, 4, 2, "not both"},
	        {HK "[Pink \"x\"]\n", RECORD_ESYNTAX, 4, 2, "unknown header"},
	        {OX "[White \"x\"]\n", RECORD_ESYNTAX, 4, 2, "unknown header"},
	        {"[Game \"hokito\"]\n[Variant \"standard\"]\n[Seed \"01\"]\n", RECORD_ESYNTAX, 3, 8,
	         "seed"},
	        {"[Game \"hokito\"]\n[Variant \"standard\"]\n[Seed \"18446744073709551616\"]\n",
	         RECORD_ESYNTAX, 3, 8, "seed"},
	        {"[Game \"hokito\"]\n[Variant \"standard\"]\n[Seed \"-1\"]\n", RECORD_ESYNTAX, 3, 8,
	         "seed"},
	        {"[Game \"hokito\"]\n[Variant \"standard\"]\n[Position \"-,-,-,-,-,-/-,-,-,-,-,-/"
	         "-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,x b\"]\n",
	         RECORD_ESYNTAX, 3, 82, "bad hokito position"},
	        {HK "[Black \"\"]\n", RECORD_ESYNTAX, 4, 9, "name"},
	        {HK "[Black \"\xff\"]\n", RECORD_ESYNTAX, 4, 9, "UTF-8"},
	        {HK "[Black \"\xc0\xaf\"]\n", RECORD_ESYNTAX, 4, 9, "UTF-8"},
	        {HK "[Black "
	            "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	            "xxxxxx"
	            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"]\n",
	         RECORD_ESYNTAX, 4, 9, "longer than 128"},
	        /* Longer than a Position may be too: still the limit of a name. */
	        {HK
	         "[Black "
	         "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"]\n",
	         RECORD_ESYNTAX, 4, 9, "longer than 128 bytes"},
	        /* A value as long as allowed is quoted whole, and the sentence goes on after it. */
	        {HK "[Result \"*\"]\n[Reason "
	            "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"]\n",
	         RECORD_ESYNTAX, 5, 10, "abort, abandoned)"},
	        {HK "[Date \"2026-02-30\"]\n", RECORD_ESYNTAX, 4, 8, "date"},
	        {HK "[Date \"2025-02-29\"]\n", RECORD_ESYNTAX, 4, 8, "date"},
	        {HK "[Date \"26-11-22\"]\n", RECORD_ESYNTAX, 4, 8, "date"},
	        {HK "[Result \"pink\"]\n", RECORD_ESYNTAX, 4, 10, "the result is"},
	        {HK "[Result \"b\"]\n", RECORD_ESYNTAX, 4, 10, "the result is"},
	        {HK "[Result \"*\"]\n[Reason \"bored\"]\n", RECORD_ESYNTAX, 5, 10,
	         "unknown reason"},
	        {HK "[Result \"*\"]\n[Score \"1:2\"]\n", RECORD_ESYNTAX, 5, 9, "score"},
	        {HK "[Result \"*\"]\n[Score \"01-2\"]\n", RECORD_ESYNTAX, 5, 9, "score"},
	        {OX "[Result \"*\"]\n[Score \"0-0\"]\n", RECORD_ESYNTAX, 5, 9, "no Score"},
	        {HK "[Result \"*\"]\n", RECORD_ESYNTAX, 5, 1, "ends after its headers"},
	        {HK "[Result \"*\"]\n*\n", RECORD_ESYNTAX, 5, 1, "empty line"},
	        {"[Game \"hokito\"]\n[Seed \"1\"]\n[Result \"*\"]\n\n*\n", RECORD_ESYNTAX, 4, 1,
	         "Variant header is missing"},
	        {"[Game \"hokito\"]\n[Variant \"standard\"]\n[Result \"*\"]\n\n*\n", RECORD_ESYNTAX,
	         4, 1, "Seed or a Position"},
	        {HK "\n*\n", RECORD_ESYNTAX, 4, 1, "Result header is missing"},
	        {HK "[Result \"white\"]\n\n*\n", RECORD_ESYNTAX, 5, 1, "Reason header is needed"},
	        {HK "[Result \"*\"]\n\n", RECORD_ESYNTAX, 6, 1, "without a result"},
	        {HK "[Result \"*\"]\n\n1. a1-a3", RECORD_ESYNTAX, 6, 9, "without a result"},
	        {HK "[Result \"*\"]\n\n1. a1-a3 \n", RECORD_ESYNTAX, 6, 9, "space at the end"},
	        {HK "[Result \"*\"]\n\n1.  a1-a3 *\n", RECORD_ESYNTAX, 6, 3, "two spaces"},
	        {HK "[Result \"*\"]\n\n1.\n\na1-a3 *\n", RECORD_ESYNTAX, 6, 3, "empty line"},
	        {HK "[Result \"*\"]\n\n1.\n a1-a3 *\n", RECORD_ESYNTAX, 6, 3,
	         "starts with a space"},
	        {HK "[Result \"*\"]\n\n a1-a3 *\n", RECORD_ESYNTAX, 6, 1, "expected a move number"},
	        {HK "[Result \"*\"]\n\na1-a3 *\n", RECORD_ESYNTAX, 6, 1, "'1.'"},
	        {HK "[Result \"*\"]\n\n2. a1-a3 *\n", RECORD_ESYNTAX, 6, 1, "'1.'"},
	        {HK "[Result \"*\"]\n\n1... a1-a3 *\n", RECORD_ESYNTAX, 6, 1, "'1.'"},
	        {HK "[Result \"*\"]\n\n1. *\n", RECORD_ESYNTAX, 6, 4, "expected black's move"},
	        {HK "[Result \"*\"]\n\n1. 2. *\n", RECORD_ESYNTAX, 6, 4, "expected black's move"},
	        {HK "[Result \"*\"]\n\n1. a1a2 *\n", RECORD_ESYNTAX, 6, 6, "move 1 'a1a2'"},
	        {HK "[Result \"*\"]\n\n1. z9-a2 *\n", RECORD_ESYNTAX, 6, 4, "move 1 'z9-a2'"},
	        {HK "[Result \"*\"]\n\n1. a1-a3 draw\n", RECORD_ESYNTAX, 6, 10,
	         "Result header says"},
	        {HK "[Result \"*\"]\n\n1. a1-a3 * *\n", RECORD_ESYNTAX, 6, 11,
	         "nothing may follow"},
	        {HK "[Result \"*\"]\n\n1. a1-a3 *\n\n", RECORD_ESYNTAX, 7, 1, "nothing may follow"},
	        {HK "[Result \"*\"]\n\n1. a1-a3 *\0", RECORD_ESYNTAX, 6, 11, "0x00"},
	        {OX "[Result \"*\"]\n\n1. Xc4+c5 2. *\n", RECORD_ESYNTAX, 6, 11,
	         "expected black's move"},
	        {OX "[Result \"*\"]\n\n1. Xc4+c5 Od6+d5 3. *\n", RECORD_ESYNTAX, 6, 18, "'2.'"},
	        {OX "[Result \"*\"]\n\n1. Xc4+c5 Od6+d5 2. Xc4+c5x *\n", RECORD_ESYNTAX, 6, 27,
	         "move 3"},
	        /* illegal moves */
	        {HK "[Result \"*\"]\n\n1. a1-f6 *\n", RECORD_EILLEGAL, 6, 4,
	         "move 1 'a1-f6' is "
	         "illegal"},
	        {OX "[Result \"*\"]\n\n1. Xc4+c5 Xc5+c6 *\n", RECORD_EILLEGAL, 6, 11, "move 2"},
	        /* A hop path too long for the move buffer is still a well-formed path, illegal as
	         * in play (exit 1), not bad text; anything else that long is bad text. */
	        {HK "[Result \"*\"]\n\n1. a1-a2-a3-a4-a5-a6-b6-c6-d6-e6-f6 *\n", RECORD_EILLEGAL, 6,
	         4, "a path of 10 hops"},
	        {HK "[Result \"*\"]\n\n1. a1-a2-a3-a4-a5-a6-b6-c6-d6-e6-f6x *\n", RECORD_ESYNTAX, 6,
	         4, "expected a move"},
	};
	static struct record r;
	struct record_error err;
	size_t len;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		len = strlen(cases[i].text);
		if (strstr(cases[i].says, "0x00") != NULL)
			len++;
		memset(&err, 0, sizeof err);
		if (record_parse(&r, cases[i].text, len, &err) != cases[i].code ||
		    err.code != cases[i].code || err.line != cases[i].line ||
		    err.column != cases[i].column || strstr(err.text, cases[i].says) == NULL)
			FAIL_AT_("case %zu: got %d at %d:%d \"%s\", want %d at %d:%d \"%s\"", i,
			         err.code, err.line, err.column, err.text, cases[i].code,
			         cases[i].line, cases[i].column, cases[i].says);
	}
}

/* Replace the first occurrence of from by to in text (into out). */
static void
replace(char *out, size_t size, const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);

	if (at == NULL) {
		snprintf(out, size, "%s", text);
		return;
	}
	snprintf(out, size, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

/* Replace the last token of a record (its result) by tok. */
static void
set_result_token(char *text, size_t size, const char *tok)
{
	size_t n = strlen(text) - 1; /* the final line feed */

	while (n > 0 && text[n - 1] != ' ' && text[n - 1] != '\n')
		n--;
	snprintf(text + n, size - n, "%s\n", tok);
}

/* A result, reason or score that the moves contradict is refused as a mismatch. */
TEST(record_result_disagrees)
{
	static struct record r, p;
	char text[RECORD_TEXT_MAX], bad[RECORD_TEXT_MAX], from[64], to[64];
	struct record_error err;
	struct game_outcome o;
	uint64_t seed;

	/* a HOKITO game won by one side */
	for (seed = 0;; seed++) {
		random_game(&r, GAME_HOKITO, "standard", seed, RECORD_MOVES_MAX);
		if (r.result >= 0)
			break;
	}
	ASSERT(record_write(&r, text, sizeof text, &err) > 0);
	game_outcome(&r.final, &o);
	/* the other side won */
	snprintf(from, sizeof from, "[Result \"%s\"]", record_result_name(GAME_HOKITO, r.result));
	snprintf(to, sizeof to, "[Result \"%s\"]", record_result_name(GAME_HOKITO, !r.result));
	replace(bad, sizeof bad, text, from, to);
	set_result_token(bad, sizeof bad, record_result_name(GAME_HOKITO, !r.result));
	ASSERT_EQ(record_parse(&p, bad, strlen(bad), &err), RECORD_EMISMATCH);
	ASSERT(strstr(err.text, "the moves end the game with result") != NULL);
	ASSERT_EQ(err.line, 5); /* at the Reason header */
	/* the right side, the wrong reason */
	record_write(&r, text, sizeof text, &err);
	replace(bad, sizeof bad, text, "[Reason \"blocked\"]", "[Reason \"resign\"]");
	ASSERT_EQ(record_parse(&p, bad, strlen(bad), &err), RECORD_EMISMATCH);
	ASSERT(strstr(err.text, "by 'blocked', not by 'resign'") != NULL);
	/* the wrong score */
	snprintf(from, sizeof from, "[Score \"%d-%d\"]", o.score[0], o.score[1]);
	snprintf(to, sizeof to, "[Score \"%d-%d\"]", o.score[0], o.score[1] + 1);
	replace(bad, sizeof bad, text, from, to);
	ASSERT_EQ(record_parse(&p, bad, strlen(bad), &err), RECORD_EMISMATCH);
	ASSERT(strstr(err.text, "Score header says") != NULL);
	ASSERT_EQ(err.line, 6);
	ASSERT_EQ(err.column, 9);
	/* a finished game recorded as unfinished */
	replace(bad, sizeof bad, text, "[Reason \"blocked\"]\n", "");
	snprintf(from, sizeof from, "[Result \"%s\"]", record_result_name(GAME_HOKITO, r.result));
	replace(text, sizeof text, bad, from, "[Result \"*\"]");
	set_result_token(text, sizeof text, "*");
	ASSERT_EQ(record_parse(&p, text, strlen(text), &err), RECORD_EMISMATCH);
	ASSERT(strstr(err.text, "not '*'") != NULL);
	/* an unfinished game claimed as a draw, as a win by the rules, and resigned */
	{
		const char *draw = HK "[Result \"draw\"]\n[Reason \"blocked\"]\n\n1. a1-a2 draw\n";
		const char *blocked =
		        HK "[Result \"white\"]\n[Reason \"blocked\"]\n\n1. a1-a2 white\n";
		const char *resign =
		        HK "[Result \"white\"]\n[Reason \"resign\"]\n\n1. a1-a2 white\n";
		const char *abandoned = HK "[Result \"*\"]\n[Reason \"abandoned\"]\n\n*\n";
		const char *unf = HK "[Result \"*\"]\n[Reason \"resign\"]\n\n*\n";
		struct game_move m[GAME_MOVES_MAX];
		struct game g;
		char mv[GAME_MOVE_TEXT], t[1024];
		game_start(&g, GAME_HOKITO, NULL, 1, NULL);
		game_moves(&g, m);
		game_move_format(GAME_HOKITO, m[0], mv, sizeof mv);
		replace(t, sizeof t, draw, "a1-a2", mv);
		ASSERT_EQ(record_parse(&p, t, strlen(t), &err), RECORD_EMISMATCH);
		ASSERT(strstr(err.text, "only 'agreement' or 'disconnect'") != NULL);
		replace(t, sizeof t, blocked, "a1-a2", mv);
		ASSERT_EQ(record_parse(&p, t, strlen(t), &err), RECORD_EMISMATCH);
		ASSERT(strstr(err.text, "only 'resign', 'time' or 'disconnect'") != NULL);
		replace(t, sizeof t, resign, "a1-a2", mv);
		ASSERT_EQ(record_parse(&p, t, strlen(t), &err), 0);
		ASSERT_EQ(p.result, RECORD_WIN1);
		ASSERT_EQ(record_parse(&p, abandoned, strlen(abandoned), &err), 0);
		ASSERT_EQ(record_parse(&p, unf, strlen(unf), &err), RECORD_EMISMATCH);
		/* match management's ends (PROTOCOL.md 11): the position goes on */
		{
			static const char *const ok_ends[][2] = {
			        {"white", "time"},     {"black", "disconnect"},
			        {"draw", "agreement"}, {"draw", "disconnect"},
			        {"*", "abort"},
			};
			static const char *const bad_ends[][2] = {
			        {"draw", "time"}, {"white", "agreement"}, {"*", "time"}};
			char head[256], tmpl[512];
			for (size_t i = 0; i < 5 + 3; i++) {
				const char *const *e = i < 5 ? ok_ends[i] : bad_ends[i - 5];
				snprintf(head, sizeof head,
				         HK "[Result \"%s\"]\n[Reason \"%s\"]\n\n1. a1-a2 %s\n",
				         e[0], e[1], e[0]);
				replace(tmpl, sizeof tmpl, head, "a1-a2", mv);
				ASSERT_EQ(record_parse(&p, tmpl, strlen(tmpl), &err),
				          i < 5 ? 0 : RECORD_EMISMATCH);
			}
		}
	}
	/* a move after the end */
	record_write(&r, text, sizeof text, &err);
	{
		char tail[64];
		snprintf(tail, sizeof tail, "%sa1-a2 %s", game_side(&r.final) == 0 ? "99. " : "",
		         record_result_name(GAME_HOKITO, r.result));
		set_result_token(text, sizeof text, tail);
	}
	ASSERT_EQ(record_parse(&p, text, strlen(text), &err),
	          game_side(&r.final) == 0 ? RECORD_ESYNTAX : RECORD_EILLEGAL);
}

/* record_write refuses what it cannot write truthfully, and never overruns its buffer. */
TEST(record_write_errors)
{
	static struct record r, p;
	char text[RECORD_TEXT_MAX];
	struct record_error err;
	int len;

	random_game(&r, GAME_HOKITO, "standard", 3, RECORD_MOVES_MAX);
	len = record_write(&r, text, sizeof text, &err);
	ASSERT(len > 0);
	for (int size = 0; size <= len; size++) {
		char small[RECORD_TEXT_MAX];
		memset(small, 'z', sizeof small);
		ASSERT_EQ(record_write(&r, small, (size_t)size, &err), RECORD_ENOSPC);
		ASSERT_EQ(small[size], 'z');
	}
	ASSERT_EQ(record_write(&r, text, (size_t)len + 1, &err), len);
	p = r;
	p.moves[3] = p.moves[2];
	ASSERT_EQ(record_write(&p, text, sizeof text, &err), RECORD_EILLEGAL);
	ASSERT(strstr(err.text, "move 4") != NULL);
	p = r;
	p.result = (enum record_result) !r.result;
	if (r.result >= 0)
		ASSERT_EQ(record_write(&p, text, sizeof text, &err), RECORD_EMISMATCH);
	p = r;
	snprintf(p.variant, sizeof p.variant, "huge");
	ASSERT_EQ(record_write(&p, text, sizeof text, &err), RECORD_EINVAL);
	p = r;
	snprintf(p.date, sizeof p.date, "2026-13-01");
	ASSERT_EQ(record_write(&p, text, sizeof text, &err), RECORD_EINVAL);
	p = r;
	snprintf(p.player[0], sizeof p.player[0], "tab\there");
	ASSERT_EQ(record_write(&p, text, sizeof text, &err), RECORD_EINVAL);
	p = r;
	snprintf(p.player[0], sizeof p.player[0], "nel\xc2\x85here");
	ASSERT_EQ(record_write(&p, text, sizeof text, &err), RECORD_EINVAL);
	p = r;
	snprintf(p.player[0], sizeof p.player[0], "nbsp\xc2\xa0here");
	ASSERT(record_write(&p, text, sizeof text, &err) > 0);
	p = r;
	snprintf(p.reason, sizeof p.reason, "bored");
	ASSERT_EQ(record_write(&p, text, sizeof text, &err), RECORD_EINVAL);
	p = r;
	p.reason[0] = '\0';
	ASSERT_EQ(record_write(&p, text, sizeof text, &err), RECORD_EINVAL);
	p = r;
	p.has_position = 1;
	snprintf(p.position, sizeof p.position, "nonsense");
	ASSERT_EQ(record_write(&p, text, sizeof text, &err), RECORD_EINVAL);
}

/* A rated game's headers: written after Score in their order, read back, checked. */
TEST(record_rated)
{
	static struct record r, p;
	char text[RECORD_TEXT_MAX], bad[RECORD_TEXT_MAX];
	struct record_error err;
	const char *at;

	random_game(&r, GAME_HOKITO, "standard", 7, RECORD_MOVES_MAX);
	r.rated = 1;
	snprintf(r.rating[0], sizeof r.rating[0], "1500?");
	snprintf(r.rating[1], sizeof r.rating[1], "1623");
	snprintf(r.rating_diff[0], sizeof r.rating_diff[0], "+162");
	snprintf(r.rating_diff[1], sizeof r.rating_diff[1], "-8");
	ASSERT(record_write(&r, text, sizeof text, &err) > 0);
	at = strstr(text, "[Rated \"yes\"]\n[BlackRating \"1500?\"]\n[WhiteRating \"1623\"]\n"
	                  "[BlackRatingDiff \"+162\"]\n[WhiteRatingDiff \"-8\"]\n\n");
	ASSERT(at != NULL && strstr(text, "[Score \"") < at);
	ASSERT_EQ(record_parse(&p, text, strlen(text), &err), 0);
	ASSERT(p.rated);
	ASSERT_STR_EQ(p.rating[0], "1500?");
	ASSERT_STR_EQ(p.rating_diff[1], "-8");
	/* OXONO names them after its sides */
	random_game(&r, GAME_OXONO, "standard", 7, RECORD_MOVES_MAX);
	r.rated = 1;
	snprintf(r.rating[0], sizeof r.rating[0], "1500?");
	ASSERT(record_write(&r, text, sizeof text, &err) > 0);
	ASSERT(strstr(text, "[Rated \"yes\"]\n[PinkRating \"1500?\"]\n\n") != NULL);
	ASSERT_EQ(record_parse(&p, text, strlen(text), &err), 0);
	/* a rating without Rated, a malformed rating, a bad change: refused */
	snprintf(bad, sizeof bad, "%s", text);
	memcpy(strstr(bad, "[Rated \"yes\"]"), "[Rated \"no!\"]", 13);
	ASSERT_EQ(record_parse(&p, bad, strlen(bad), &err), RECORD_ESYNTAX);
	snprintf(bad, sizeof bad, "%s", text);
	memcpy(strstr(bad, "1500?"), "15a0?", 5);
	ASSERT_EQ(record_parse(&p, bad, strlen(bad), &err), RECORD_ESYNTAX);
	ASSERT(strstr(err.text, "rating") != NULL);
	r.rated = 0;
	ASSERT(record_write(&r, text, sizeof text, &err) > 0);
	ASSERT(strstr(text, "Rat") == NULL);
	snprintf(r.rating_diff[1], sizeof r.rating_diff[1], "12");
	ASSERT_EQ(record_write(&r, text, sizeof text, &err), RECORD_EINVAL);
}

/* The largest record there can be fits in RECORD_TEXT_MAX. */
TEST(record_text_max)
{
	static struct record r, p;
	char text[RECORD_TEXT_MAX];
	struct record_error err;
	size_t longest = 0;

	for (uint64_t seed = 0; seed < 200; seed++) {
		int len;
		random_game(&r, GAME_HOKITO, "random36", seed, RECORD_MOVES_MAX);
		r.has_position = 1;
		game_format(&r.start, r.position, sizeof r.position);
		memset(r.player[0], '"', RECORD_VALUE_MAX - 1);
		memset(r.player[1], '\\', RECORD_VALUE_MAX - 1);
		snprintf(r.date, sizeof r.date, "2026-11-22");
		r.rated = 1;
		for (int i = 0; i < 2; i++) {
			snprintf(r.rating[i], sizeof r.rating[i], "99999?");
			snprintf(r.rating_diff[i], sizeof r.rating_diff[i], "-99999");
		}
		len = record_write(&r, text, sizeof text, &err);
		ASSERT(len > 0);
		if ((size_t)len > longest)
			longest = (size_t)len;
		ASSERT_EQ(record_parse(&p, text, (size_t)len, &err), 0);
		ASSERT_EQ(strlen(p.player[0]), RECORD_VALUE_MAX - 1);
	}
	/* headers at most ~1 KiB, 35 moves of at most 6 bytes with numbers: far below */
	ASSERT(longest < RECORD_TEXT_MAX / 2);
}

int
main(void)
{
	RUN(record_round_trip_finished);
	RUN(record_round_trip_unfinished);
	RUN(record_position_start);
	RUN(record_exact_text);
	RUN(record_hand_written);
	RUN(record_malformed);
	RUN(record_result_disagrees);
	RUN(record_write_errors);
	RUN(record_rated);
	RUN(record_text_max);
	TEST_END();
}
