/*
 * record.c: the text game record of both games: parse (strictly, replaying every move) and write.
 *
 * This file owns no state: it reads the caller's text, fills the caller's struct record and writes
 * into the caller's buffer. It decides nothing about the rules itself; every move goes through
 * game.h, and the only judgement made here is whether the result a record states is one the final
 * position allows (record_result_check()). The format is documented in FORMATS.md, "Game
 * records": keep the two in step. Like the rest of common/ it never allocates and never does I/O.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "record.h"

#define LINE_WIDTH 79 /* record_write() wraps the move list before this column is passed */

/* The headers, in the only order a record may hold them; Seed and Position share a rank. */
enum header_id {
	H_GAME,
	H_VARIANT,
	H_SEED,
	H_POSITION,
	H_SIDE0,
	H_SIDE1,
	H_DATE,
	H_RESULT,
	H_REASON,
	H_SCORE,
	H_RATED,
	H_RATING0,
	H_RATING1,
	H_DIFF0,
	H_DIFF1,
	H_COUNT,
};

static const int header_rank[H_COUNT] = {0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
/* the fixed names; a side's header and its rating headers are named after the side */
static const char *const header_fixed[H_COUNT] = {
        "Game",   "Variant", "Seed",  "Position", NULL, NULL, "Date", "Result",
        "Reason", "Score",   "Rated", NULL,       NULL, NULL, NULL,
};
#define HEADER_NAME_MAX 32 /* a side's name with "RatingDiff", with the NUL */

/* The results a reason can go with, when the moves do not end the game. */
enum {
	FIT_UNFINISHED = 1, /* '*' */
	FIT_DRAW = 2,
	FIT_WIN = 4, /* either side */
};

/*
 * Every reason a record may give, and the results it goes with. The rules' own reasons (blocked,
 * line, full) are the ones a final position that is over has, with the result it has; the others
 * name a stop the rules cannot see, so they go with a position that is not over, and only with the
 * results listed (an unfinished game may also give no reason at all).
 */
static const struct {
	const char *word;
	enum game_end end; /* the end of the rules it names, or GAME_END_NONE */
	unsigned fits; /* FIT_* of the results it goes with when the moves do not end the game */
} reasons[] = {
        {"blocked", GAME_END_BLOCKED, 0},
        {"line", GAME_END_LINE, 0},
        {"full", GAME_END_FULL, 0},
        {"resign", GAME_END_NONE, FIT_WIN},
        {"time", GAME_END_NONE, FIT_WIN},
        {"agreement", GAME_END_NONE, FIT_DRAW},
        {"disconnect", GAME_END_NONE, FIT_WIN | FIT_DRAW},
        {"abort", GAME_END_NONE, FIT_UNFINISHED},
        {"abandoned", GAME_END_NONE, FIT_UNFINISHED},
};

/* The parser's cursor over the caller's text. */
struct rp {
	const char *s; /* the text, borrowed */
	size_t len;
	size_t pos;
	struct record_error *err;
	size_t at[H_COUNT]; /* offset of each header's value, for later errors */
	int seen[H_COUNT];
};

static int record_fail_at(struct record_error *err, const char *s, size_t pos, int code,
                          const char *fmt, va_list ap)
#if defined(__GNUC__)
        __attribute__((format(printf, 5, 0)))
#endif
        ;

/* Fill err with a code and a sentence, and the line and column of offset pos (or none). */
static int
record_fail_at(struct record_error *err, const char *s, size_t pos, int code, const char *fmt,
               va_list ap)
{
	if (err == NULL)
		return code;
	err->code = code;
	err->line = 0;
	err->column = 0;
	if (s != NULL) {
		err->line = 1;
		err->column = 1;
		for (size_t i = 0; i < pos; i++) {
			if (s[i] == '\n')
				err->line++, err->column = 1;
			else
				err->column++;
		}
	}
	vsnprintf(err->text, sizeof err->text, fmt, ap);
	return code;
}

static int rp_fail(struct rp *p, size_t pos, int code, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 4, 5)))
#endif
        ;

static int
rp_fail(struct rp *p, size_t pos, int code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = record_fail_at(p->err, p->s, pos, code, fmt, ap);
	va_end(ap);
	return rc;
}

static int record_fail(struct record_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

static int
record_fail(struct record_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = record_fail_at(err, NULL, 0, code, fmt, ap);
	va_end(ap);
	return rc;
}

const char *
record_result_name(enum game_kind kind, enum record_result result)
{
	if (result == RECORD_UNFINISHED)
		return "*";
	if (result == RECORD_DRAW)
		return "draw";
	return game_side_name(kind, result == RECORD_WIN1);
}

/* The index of a reason in reasons[], or -1 if it is none. */
static int
reason_find(const char *word)
{
	for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
		if (strcmp(word, reasons[i].word) == 0)
			return (int)i;
	return -1;
}

static int
reason_known(const char *word)
{
	return reason_find(word) >= 0;
}

/* The reason the rules give for the end of a finished position ("" for none: not reached). */
static const char *
reason_of(enum game_end end)
{
	for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
		if (reasons[i].end == end)
			return reasons[i].word;
	return "";
}

/* Whether reason goes with result on a final position that is not over. */
static int
reason_fits(const char *reason, enum record_result result)
{
	unsigned fit = result == RECORD_UNFINISHED ? FIT_UNFINISHED
	               : result == RECORD_DRAW     ? FIT_DRAW
	                                           : FIT_WIN;
	int i;

	if (reason[0] == '\0')
		return result == RECORD_UNFINISHED; /* no reason at all: only while unfinished */
	i = reason_find(reason);
	return i >= 0 && (reasons[i].fits & fit) != 0;
}

/*
 * A record's result must be the one its final position has, or one that the rules cannot see
 * because the game stopped while the position went on: a side wins by resignation, on time or by
 * the opponent's disconnection; a draw by agreement or claimed after a disconnection; an
 * unfinished game, aborted in its first moves ("abort") or abandoned before it began
 * ("abandoned").
 */
int
record_result_check(const struct game *final, enum record_result result, const char *reason,
                    struct record_error *err)
{
	const char *rname = record_result_name(final->kind, result);
	struct game_outcome o;

	game_outcome(final, &o);
	if (o.end != GAME_END_NONE) {
		enum record_result want = o.winner < 0 ? RECORD_DRAW : (enum record_result)o.winner;
		const char *wname = record_result_name(final->kind, want);
		if (result != want)
			return record_fail(err, RECORD_EMISMATCH,
			                   "the moves end the game with result '%s' (%s), not '%s'",
			                   wname, reason_of(o.end), rname);
		if (strcmp(reason, reason_of(o.end)) != 0)
			return record_fail(err, RECORD_EMISMATCH,
			                   "the moves end the game by '%s', not by '%s'",
			                   reason_of(o.end), reason[0] ? reason : "(no reason)");
		return 0;
	}
	if (reason_fits(reason, result))
		return 0;
	if (result == RECORD_UNFINISHED)
		return record_fail(err, RECORD_EMISMATCH,
		                   "an unfinished game ('*') has no reason but 'abort' or "
		                   "'abandoned', not '%s'",
		                   reason);
	if (result == RECORD_DRAW)
		return record_fail(err, RECORD_EMISMATCH,
		                   "the result is a draw by '%s' but the moves do not end the "
		                   "game (only 'agreement' or 'disconnect' can end it here)",
		                   reason[0] ? reason : "(no reason)");
	return record_fail(err, RECORD_EMISMATCH,
	                   "'%s' wins by '%s' but the moves do not end the game (only "
	                   "'resign', 'time' or 'disconnect' can end it here)",
	                   rname, reason[0] ? reason : "(no reason)");
}

size_t
record_utf8_len(const unsigned char *s, size_t n)
{
	uint32_t c;
	size_t need;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((need == 3 && c < 0x800) || (need == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return need;
}

int
record_utf8_control(const unsigned char *s, size_t k)
{
	if (k == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	return k == 2 && s[0] == 0xc2 && s[1] >= 0x80 && s[1] < 0xa0;
}

/* Whether a name is fit for a header: 1..128 bytes of UTF-8 without control characters. */
static int
name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= RECORD_VALUE_MAX)
		return 0;
	for (size_t i = 0; i < n;) {
		size_t k = record_utf8_len((const unsigned char *)s + i, n - i);
		if (k == 0 || record_utf8_control((const unsigned char *)s + i, k))
			return 0;
		i += k;
	}
	return 1;
}

/* A date "YYYY-MM-DD" of the Gregorian calendar, years 0001..9999. */
static int
date_ok(const char *s)
{
	static const int days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int y, m, d;

	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return 0;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
			return 0;
	y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
	m = (s[5] - '0') * 10 + (s[6] - '0');
	d = (s[8] - '0') * 10 + (s[9] - '0');
	if (y < 1 || m < 1 || m > 12 || d < 1 || d > days[m - 1])
		return 0;
	if (m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
		return 0;
	return 1;
}

/* A whole decimal number without sign or leading zero, at most max. */
static int
number_parse(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1] != '\0'))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

/*
 * Refuse bytes no record holds: NUL, CR, tabs and other control characters, C1 ones
 * (U+0080..U+009F, bytes C2 80..C2 9F) included (LF is the line end).
 */
static int
rp_scan(struct rp *p)
{
	const unsigned char *s = (const unsigned char *)p->s;

	for (size_t i = 0; i < p->len; i++) {
		if (s[i] == '\r')
			return rp_fail(p, i, RECORD_ESYNTAX,
			               "carriage return: record lines end with a line feed alone");
		if (s[i] != '\n' && record_utf8_control(s + i, 1))
			return rp_fail(p, i, RECORD_ESYNTAX, "control character 0x%02x", s[i]);
		if (i + 1 < p->len && record_utf8_control(s + i, 2))
			return rp_fail(p, i, RECORD_ESYNTAX, "control character U+%04X", s[i + 1]);
	}
	return 0;
}

/* The name of a header in a record of this kind: static, or written to buf (HEADER_NAME_MAX). */
static const char *
header_name(int h, enum game_kind kind, char *buf)
{
	const char *const *side = game_class_of(kind)->side_header;

	if (h == H_SIDE0 || h == H_SIDE1)
		return side[h == H_SIDE1];
	if (h == H_RATING0 || h == H_RATING1 || h == H_DIFF0 || h == H_DIFF1) {
		snprintf(buf, HEADER_NAME_MAX, "%s%s", side[h == H_RATING1 || h == H_DIFF1],
		         h == H_DIFF0 || h == H_DIFF1 ? "RatingDiff" : "Rating");
		return buf;
	}
	return header_fixed[h];
}

/* Which header a name is, given the game's kind (for the player headers); -1 if none. */
static int
header_lookup(const char *name, enum game_kind kind)
{
	char buf[HEADER_NAME_MAX];

	for (int h = 0; h < H_COUNT; h++) {
		if (strcmp(name, header_name(h, kind, buf)) == 0)
			return h;
	}
	return -1;
}

/* A rating as shown: 1 to 5 digits without a leading zero, then "?" when provisional. */
static int
rating_ok(const char *v)
{
	size_t n = strspn(v, "0123456789");

	return n >= 1 && n <= 5 && (v[0] != '0' || n == 1) &&
	       (v[n] == '\0' || strcmp(v + n, "?") == 0);
}

/* A rating's change: "+" or "-" and 1 to 5 digits without a leading zero ("+0" for none). */
static int
rating_diff_ok(const char *v)
{
	return (v[0] == '+' || v[0] == '-') && strspn(v + 1, "0123456789") == strlen(v + 1) &&
	       strlen(v + 1) >= 1 && strlen(v + 1) <= 5 && (v[1] != '0' || v[2] == '\0');
}

/*
 * Read one header line at the cursor: '[' Name ' ' '"' value '"' ']' LF. The value is unescaped
 * into value (cap bytes with the NUL) and checked to be UTF-8 and no longer than its header
 * allows: a Position cap - 1 bytes, any other RECORD_VALUE_MAX - 1. On return *name_at and
 * *value_at are the offsets of the name and of the value's first byte.
 */
static int
rp_header(struct rp *p, char *name, size_t name_cap, char *value, size_t cap, size_t *name_at,
          size_t *value_at)
{
	size_t n = 0, v = 0;

	p->pos++; /* '[' */
	*name_at = p->pos;
	while (p->pos < p->len && ((p->s[p->pos] >= 'A' && p->s[p->pos] <= 'Z') ||
	                           (p->s[p->pos] >= 'a' && p->s[p->pos] <= 'z'))) {
		if (n + 1 >= name_cap)
			return rp_fail(p, p->pos, RECORD_ESYNTAX, "header name too long");
		name[n++] = p->s[p->pos++];
	}
	name[n] = '\0';
	if (n == 0)
		return rp_fail(p, p->pos, RECORD_ESYNTAX,
		               "expected a header name (letters) after '['");
	if (p->pos >= p->len || p->s[p->pos] != ' ')
		return rp_fail(p, p->pos, RECORD_ESYNTAX,
		               "expected one space after the header name '%s'", name);
	p->pos++;
	if (p->pos >= p->len || p->s[p->pos] != '"')
		return rp_fail(p, p->pos, RECORD_ESYNTAX,
		               "expected '\"' to open the value of header '%s'", name);
	p->pos++;
	*value_at = p->pos;
	if (strcmp(name, "Position") != 0 && cap > RECORD_VALUE_MAX)
		cap = RECORD_VALUE_MAX;
	for (;;) {
		char c;
		size_t k;
		if (p->pos >= p->len || p->s[p->pos] == '\n')
			return rp_fail(p, p->pos, RECORD_ESYNTAX,
			               "the value of header '%s' has no closing '\"'", name);
		c = p->s[p->pos];
		if (c == '"')
			break;
		if (c == '\\') {
			if (p->pos + 1 >= p->len ||
			    (p->s[p->pos + 1] != '"' && p->s[p->pos + 1] != '\\'))
				return rp_fail(p, p->pos, RECORD_ESYNTAX,
				               "a backslash in a value must be followed by '\"' or "
				               "'\\'");
			p->pos++;
			c = p->s[p->pos];
		}
		k = record_utf8_len((const unsigned char *)p->s + p->pos, p->len - p->pos);
		if (k == 0)
			return rp_fail(p, p->pos, RECORD_ESYNTAX,
			               "the value of header '%s' is not valid UTF-8 here", name);
		if (v + k >= cap)
			return rp_fail(p, *value_at, RECORD_ESYNTAX,
			               "the value of header '%s' is longer than %zu bytes", name,
			               cap - 1);
		memcpy(value + v, p->s + p->pos, k);
		v += k;
		p->pos += k;
	}
	value[v] = '\0';
	p->pos++; /* '"' */
	if (p->pos >= p->len || p->s[p->pos] != ']')
		return rp_fail(p, p->pos, RECORD_ESYNTAX,
		               "expected ']' right after the value of header '%s'", name);
	p->pos++;
	if (p->pos >= p->len || p->s[p->pos] != '\n')
		return rp_fail(p, p->pos, RECORD_ESYNTAX,
		               "expected the end of the line after header '%s'", name);
	p->pos++;
	return 0;
}

/* The raw offset of byte i of a header value that starts at raw offset at (escapes skipped). */
static size_t
rp_value_offset(const struct rp *p, size_t at, size_t i)
{
	size_t raw = at;

	for (size_t k = 0; k < i && raw < p->len && p->s[raw] != '"'; k++)
		raw += p->s[raw] == '\\' ? 2 : 1;
	return raw;
}

/* Interpret one header's value into r; the kind is known once Game was read. */
static int
rp_header_value(struct rp *p, struct record *r, int h, const char *value, size_t at)
{
	struct game_error gerr;
	uint64_t n, m;
	const char *dash;
	int side;

	switch (h) {
	case H_GAME:
		if (game_kind_parse(value, &r->kind) < 0) {
			char kinds[128];
			game_kind_list(kinds, sizeof kinds, ", ", " or ");
			return rp_fail(p, at, RECORD_ESYNTAX, "unknown game '%s' (%s)", value,
			               kinds);
		}
		return 0;
	case H_VARIANT:
		if (value[0] == '\0' || game_variant_check(r->kind, value, &gerr) < 0)
			return rp_fail(p, at, RECORD_ESYNTAX, "unknown variant '%s' for %s", value,
			               game_kind_name(r->kind));
		snprintf(r->variant, sizeof r->variant, "%.15s", value);
		return 0;
	case H_SEED:
		if (number_parse(value, UINT64_MAX, &r->seed) < 0)
			return rp_fail(
			        p, at, RECORD_ESYNTAX,
			        "the seed must be a whole number from 0 to 18446744073709551615 "
			        "without leading zeros, not '%s'",
			        value);
		return 0;
	case H_POSITION:
		if (strlen(value) >= sizeof r->position)
			return rp_fail(p, at, RECORD_ESYNTAX, "the position is too long");
		if (game_parse(&r->start, r->kind, value, &gerr) < 0)
			return rp_fail(p,
			               rp_value_offset(p, at, gerr.pos < 0 ? 0 : (size_t)gerr.pos),
			               RECORD_ESYNTAX, "bad %s position: %s",
			               game_kind_name(r->kind), gerr.text);
		snprintf(r->position, sizeof r->position, "%s", value);
		r->has_position = 1;
		return 0;
	case H_SIDE0:
	case H_SIDE1:
		if (!name_ok(value))
			return rp_fail(
			        p, at, RECORD_ESYNTAX,
			        "a player's name is 1 to %d bytes without control characters",
			        RECORD_VALUE_MAX - 1);
		snprintf(r->player[h == H_SIDE1], sizeof r->player[0], "%s", value);
		return 0;
	case H_DATE:
		if (!date_ok(value))
			return rp_fail(p, at, RECORD_ESYNTAX,
			               "the date must be a real date written YYYY-MM-DD, not '%s'",
			               value);
		memcpy(r->date, value, 11);
		return 0;
	case H_RESULT:
		if (strcmp(value, "*") == 0)
			r->result = RECORD_UNFINISHED;
		else if (strcmp(value, "draw") == 0)
			r->result = RECORD_DRAW;
		else if (game_side_parse(r->kind, value, &side) == 0 && strlen(value) > 1)
			r->result = (enum record_result)side;
		else
			return rp_fail(p, at, RECORD_ESYNTAX,
			               "the result is '%s', '%s', 'draw' or '*', not '%s'",
			               game_side_name(r->kind, 0), game_side_name(r->kind, 1),
			               value);
		return 0;
	case H_REASON:
		if (!reason_known(value))
			return rp_fail(p, at, RECORD_ESYNTAX,
			               "unknown reason '%s' (blocked, line, full, resign, time, "
			               "agreement, "
			               "disconnect, abort, abandoned)",
			               value);
		snprintf(r->reason, sizeof r->reason, "%.15s", value);
		return 0;
	case H_SCORE:
		if (!game_kind_has(r->kind, GAME_HAS_SCORES))
			return rp_fail(p, at, RECORD_ESYNTAX, "an %s record has no Score header",
			               game_kind_title(r->kind));
		dash = strchr(value, '-');
		if (dash == NULL || (size_t)(dash - value) > 5)
			return rp_fail(p, at, RECORD_ESYNTAX,
			               "the score is written 'BLACK-WHITE', e.g. '41-33', not '%s'",
			               value);
		{
			char left[6];
			memcpy(left, value, (size_t)(dash - value));
			left[dash - value] = '\0';
			if (number_parse(left, 9999, &n) < 0 ||
			    number_parse(dash + 1, 9999, &m) < 0)
				return rp_fail(
				        p, at, RECORD_ESYNTAX,
				        "the score is written 'BLACK-WHITE', e.g. '41-33', not "
				        "'%s'",
				        value);
		}
		r->has_score = 1;
		r->score[0] = (int)n;
		r->score[1] = (int)m;
		return 0;
	case H_RATED:
		if (strcmp(value, "yes") != 0)
			return rp_fail(p, at, RECORD_ESYNTAX, "Rated is 'yes' or absent, not '%s'",
			               value);
		r->rated = 1;
		return 0;
	case H_RATING0:
	case H_RATING1:
		if (!rating_ok(value))
			return rp_fail(p, at, RECORD_ESYNTAX,
			               "a rating is a whole number, with '?' while provisional, "
			               "not '%s'",
			               value);
		snprintf(r->rating[h == H_RATING1], sizeof r->rating[0], "%.6s", value);
		return 0;
	case H_DIFF0:
	case H_DIFF1:
		if (!rating_diff_ok(value))
			return rp_fail(p, at, RECORD_ESYNTAX,
			               "a rating's change is signed, e.g. '+16' or '-7', not '%s'",
			               value);
		snprintf(r->rating_diff[h == H_DIFF1], sizeof r->rating_diff[0], "%.6s", value);
		return 0;
	}
	return 0;
}

/* Read the headers, up to and including the empty line that ends them. */
static int
rp_headers(struct rp *p, struct record *r)
{
	static const char order[] = "Game, Variant, Seed or Position, the players by side, Date, "
	                            "Result, Reason, Score, Rated, the ratings by side, their "
	                            "changes by side";
	char name[HEADER_NAME_MAX], value[GAME_TEXT_MAX], buf[HEADER_NAME_MAX];
	int last = -1, last_h = -1, rc;

	while (p->pos < p->len && p->s[p->pos] == '[') {
		size_t name_at = 0, at = 0;
		int h;
		if ((rc = rp_header(p, name, sizeof name, value, sizeof value, &name_at, &at)) < 0)
			return rc;
		if (last < 0 && strcmp(name, "Game") != 0)
			return rp_fail(p, name_at, RECORD_ESYNTAX,
			               "the first header must be Game, not '%s'", name);
		h = header_lookup(name, r->kind);
		if (h < 0)
			return rp_fail(p, name_at, RECORD_ESYNTAX,
			               "unknown header '%s' for %s (known, in this order: %s)",
			               name, game_kind_name(r->kind), order);
		if (p->seen[h])
			return rp_fail(p, name_at, RECORD_ESYNTAX, "header '%s' appears twice",
			               name);
		if (header_rank[h] == last)
			return rp_fail(p, name_at, RECORD_ESYNTAX,
			               "a record has a Seed or a Position header, not both");
		if (header_rank[h] < last)
			return rp_fail(p, name_at, RECORD_ESYNTAX,
			               "header '%s' must come before '%s' (the order is: %s)", name,
			               header_name(last_h, r->kind, buf), order);
		if ((rc = rp_header_value(p, r, h, value, at)) < 0)
			return rc;
		p->seen[h] = 1;
		p->at[h] = at;
		last = header_rank[h];
		last_h = h;
	}
	if (last < 0)
		return rp_fail(p, p->pos, RECORD_ESYNTAX,
		               "a record starts with its headers, the first [Game \"...\"]");
	if (p->pos >= p->len)
		return rp_fail(p, p->pos, RECORD_ESYNTAX,
		               "the record ends after its headers (an empty line, the moves and "
		               "the result must follow)");
	if (p->s[p->pos] != '\n')
		return rp_fail(p, p->pos, RECORD_ESYNTAX,
		               "expected a header '[Name \"value\"]' or the empty line before the "
		               "moves");
	if (!p->seen[H_VARIANT])
		return rp_fail(p, p->pos, RECORD_ESYNTAX, "the Variant header is missing");
	if (!p->seen[H_SEED] && !p->seen[H_POSITION])
		return rp_fail(p, p->pos, RECORD_ESYNTAX, "a Seed or a Position header is needed");
	if (!p->seen[H_RESULT])
		return rp_fail(p, p->pos, RECORD_ESYNTAX, "the Result header is missing");
	if (r->result != RECORD_UNFINISHED && !p->seen[H_REASON])
		return rp_fail(p, p->pos, RECORD_ESYNTAX,
		               "the Reason header is needed when the Result is not '*'");
	for (int h = H_RATING0; h <= H_DIFF1; h++)
		if (p->seen[h] && !p->seen[H_RATED])
			return rp_fail(p, p->at[h], RECORD_ESYNTAX,
			               "ratings belong to a rated game: [Rated \"yes\"] first");
	p->pos++; /* the empty line */
	return 0;
}

/* The token at the cursor: its length (0 if the cursor is on a separator or the end). */
static size_t
rp_token(const struct rp *p)
{
	size_t n = 0;

	while (p->pos + n < p->len && p->s[p->pos + n] != ' ' && p->s[p->pos + n] != '\n')
		n++;
	return n;
}

/* Move past the separator after a token; refuse doubled or trailing spaces and empty lines. */
static int
rp_separator(struct rp *p)
{
	if (p->pos >= p->len)
		return rp_fail(p, p->pos, RECORD_ESYNTAX,
		               "the move list ends without a result ('*', 'draw' or a side)");
	p->pos++;
	if (p->pos >= p->len)
		return rp_fail(p, p->pos, RECORD_ESYNTAX,
		               "the move list ends without a result ('*', 'draw' or a side)");
	if (p->s[p->pos] == ' ' || p->s[p->pos] == '\n')
		return rp_fail(p, p->pos - 1, RECORD_ESYNTAX,
		               p->s[p->pos - 1] == '\n'
		                       ? (p->s[p->pos] == '\n' ? "an empty line in the move list"
		                                               : "a line of the move list starts "
		                                                 "with a space")
		                       : (p->s[p->pos] == ' ' ? "two spaces between tokens"
		                                              : "a space at the end of a line"));
	return 0;
}

/* Whether the token is a result: "*", "draw" or a side name of the game. */
static int
token_result(const struct rp *p, size_t n, enum game_kind kind, enum record_result *out)
{
	const char *t = p->s + p->pos;
	enum record_result all[] = {RECORD_UNFINISHED, RECORD_DRAW, RECORD_WIN0, RECORD_WIN1};

	for (size_t i = 0; i < 4; i++) {
		const char *name = record_result_name(kind, all[i]);
		if (strlen(name) == n && memcmp(t, name, n) == 0) {
			*out = all[i];
			return 1;
		}
	}
	return 0;
}

/* Whether the token is exactly text. */
static int
token_is(const struct rp *p, size_t n, const char *text)
{
	return strlen(text) == n && memcmp(p->s + p->pos, text, n) == 0;
}

/*
 * Whether the n bytes at t are a HOKITO hop path, squares joined by '-' ("b1-b2-b3-..."). A path
 * too long for the move buffer is still well-formed text, and illegal (no pawn makes more than
 * three hops), as game_move_parse() says of any path longer than the pawn's value.
 */
static int
hop_path_shape(const char *t, size_t n)
{
	if (n % 3 != 2)
		return 0;
	for (size_t i = 0; i < n; i += 3)
		if (t[i] < 'a' || t[i] > 'f' || t[i + 1] < '1' || t[i + 1] > '6' ||
		    (i + 2 < n && t[i + 2] != '-'))
			return 0;
	return 1;
}

/* Read the move list and the result token, replaying the moves from r->start into r->final. */
static int
rp_moves(struct rp *p, struct record *r)
{
	int number = 1, first = 1;
	char want[24], tok[GAME_MOVE_TEXT];
	enum record_result res;

	r->final = r->start;
	for (;;) {
		size_t n = rp_token(p), tok_at = p->pos;
		struct game_error gerr;
		struct game_move m;
		int side = game_side(&r->final), rc;

		if (n == 0)
			return rp_fail(p, p->pos, RECORD_ESYNTAX,
			               p->pos >= p->len
			                       ? "the move list ends without a result ('*', "
			                         "'draw' or a side)"
			                       : "expected a move number, a move or the result");
		if (token_result(p, n, r->kind, &res)) {
			if (res != r->result)
				return rp_fail(
				        p, p->pos, RECORD_ESYNTAX,
				        "the move list ends with '%s' but the Result header says "
				        "'%s'",
				        record_result_name(r->kind, res),
				        record_result_name(r->kind, r->result));
			p->pos += n;
			if (p->pos < p->len && p->s[p->pos] == '\n')
				p->pos++;
			if (p->pos < p->len)
				return rp_fail(p, p->pos, RECORD_ESYNTAX,
				               "nothing may follow the result but one line end");
			return 0;
		}
		if (side == 0 || first) {
			snprintf(want, sizeof want, side == 0 ? "%d." : "%d...", number);
			if (!token_is(p, n, want))
				return rp_fail(
				        p, p->pos, RECORD_ESYNTAX,
				        "expected the move number '%s' before %s's move, found "
				        "'%.*s'",
				        want, game_side_name(r->kind, side), (int)(n > 20 ? 20 : n),
				        p->s + p->pos);
			p->pos += n;
			if ((rc = rp_separator(p)) < 0)
				return rc;
			n = rp_token(p);
			tok_at = p->pos;
			if (token_result(p, n, r->kind, &res) ||
			    (n > 0 && p->s[p->pos + n - 1] == '.'))
				return rp_fail(p, p->pos, RECORD_ESYNTAX,
				               "expected %s's move after '%s'",
				               game_side_name(r->kind, side), want);
		}
		first = 0;
		if (n > 0 && p->s[p->pos + n - 1] == '.')
			return rp_fail(p, p->pos, RECORD_ESYNTAX,
			               "expected %s's move, found the move number '%.*s'",
			               game_side_name(r->kind, side), (int)(n > 20 ? 20 : n),
			               p->s + p->pos);
		if (n >= sizeof tok && r->kind == GAME_HOKITO && hop_path_shape(p->s + p->pos, n))
			return rp_fail(
			        p, tok_at, RECORD_EILLEGAL,
			        game_over(&r->final)
			                ? "move %zu '%.20s...' is played after the game is over"
			                : "move %zu '%.20s...' is illegal: a path of %zu hops, "
			                  "and a pawn or a stack makes 1 to 3",
			        r->nmoves + 1, p->s + p->pos, (n + 1) / 3 - 1);
		if (n >= sizeof tok)
			return rp_fail(p, p->pos, RECORD_ESYNTAX,
			               "expected a move, found '%.20s...'", p->s + p->pos);
		memcpy(tok, p->s + p->pos, n);
		tok[n] = '\0';
		rc = game_move_parse(&r->final, tok, &m, &gerr);
		if (rc == GAME_ESYNTAX)
			return rp_fail(p, tok_at + (gerr.pos > 0 ? (size_t)gerr.pos : 0),
			               RECORD_ESYNTAX, "move %zu '%s': %s", r->nmoves + 1, tok,
			               gerr.text);
		if (rc == GAME_EOVER)
			return rp_fail(p, tok_at, RECORD_EILLEGAL,
			               "move %zu '%s' is played after the game is over",
			               r->nmoves + 1, tok);
		if (rc < 0)
			return rp_fail(p, tok_at, RECORD_EILLEGAL, "move %zu '%s' is illegal: %s",
			               r->nmoves + 1, tok, gerr.text);
		if (r->nmoves >= RECORD_MOVES_MAX)
			return rp_fail(p, tok_at, RECORD_EILLEGAL, "more than %d moves",
			               RECORD_MOVES_MAX);
		r->moves[r->nmoves++] = m;
		game_apply(&r->final, m);
		if (side == 1)
			number++;
		p->pos += n;
		if ((rc = rp_separator(p)) < 0)
			return rc;
	}
}

int
record_parse(struct record *r, const char *text, size_t len, struct record_error *err)
{
	struct rp p = {.s = text, .len = len, .err = err};
	struct record_error rerr;
	struct game_error gerr;
	struct game_outcome o;
	int rc;

	memset(r, 0, sizeof *r);
	r->result = RECORD_UNFINISHED;
	if ((rc = rp_scan(&p)) < 0)
		return rc;
	if ((rc = rp_headers(&p, r)) < 0)
		return rc;
	if (!r->has_position && game_start(&r->start, r->kind, r->variant, r->seed, &gerr) < 0)
		return rp_fail(&p, p.at[H_VARIANT], RECORD_ESYNTAX, "%s", gerr.text);
	if ((rc = rp_moves(&p, r)) < 0)
		return rc;
	if (record_result_check(&r->final, r->result, r->reason, &rerr) < 0)
		return rp_fail(&p, p.at[p.seen[H_REASON] ? H_REASON : H_RESULT], rerr.code, "%s",
		               rerr.text);
	game_outcome(&r->final, &o);
	if (r->has_score && (r->score[0] != o.score[0] || r->score[1] != o.score[1]))
		return rp_fail(&p, p.at[H_SCORE], RECORD_EMISMATCH,
		               "the Score header says %d-%d but the final position scores %d-%d",
		               r->score[0], r->score[1], o.score[0], o.score[1]);
	return 0;
}

/* An output buffer that remembers whether it ran out of room. */
struct out {
	char *buf;
	size_t size;
	size_t len;
	int full;
};

static void
out_mem(struct out *o, const char *s, size_t n)
{
	if (o->full || o->len + n >= o->size) {
		o->full = 1;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

static void
out_str(struct out *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

/* One header line, the value quoted with '"' and '\' escaped. */
static void
out_header(struct out *o, const char *name, const char *value)
{
	out_str(o, "[");
	out_str(o, name);
	out_str(o, " \"");
	for (const char *c = value; *c; c++) {
		if (*c == '"' || *c == '\\')
			out_str(o, "\\");
		out_mem(o, c, 1);
	}
	out_str(o, "\"]\n");
}

/* Append a move-list token, wrapping the line before it passes LINE_WIDTH. */
static void
out_token(struct out *o, const char *tok, size_t *col)
{
	size_t n = strlen(tok);

	if (*col > 0 && *col + 1 + n > LINE_WIDTH) {
		out_str(o, "\n");
		*col = 0;
	} else if (*col > 0) {
		out_str(o, " ");
		(*col)++;
	}
	out_str(o, tok);
	*col += n;
}

int
record_write(struct record *r, char *buf, size_t size, struct record_error *err)
{
	struct out o = {.buf = buf, .size = size};
	char tok[GAME_MOVE_TEXT], num[24], seed[24];
	const char *variant = r->variant[0] ? r->variant : "standard";
	struct game_error gerr;
	struct game_outcome oc;
	size_t col = 0;
	int number = 1, rc;

	if ((int)r->kind < 0 || (int)r->kind >= game_class_count)
		return record_fail(err, RECORD_EINVAL, "unknown game kind %d", (int)r->kind);
	if (game_variant_check(r->kind, variant, &gerr) < 0)
		return record_fail(err, RECORD_EINVAL, "%s", gerr.text);
	if (r->has_position) {
		if (game_parse(&r->start, r->kind, r->position, &gerr) < 0)
			return record_fail(err, RECORD_EINVAL, "bad start position: %s", gerr.text);
	} else {
		game_start(&r->start, r->kind, variant, r->seed, &gerr);
	}
	for (int s = 0; s < 2; s++)
		if (r->player[s][0] != '\0' && !name_ok(r->player[s]))
			return record_fail(err, RECORD_EINVAL, "the name of %s is not a fit name",
			                   game_side_name(r->kind, s));
	if (r->date[0] != '\0' && !date_ok(r->date))
		return record_fail(err, RECORD_EINVAL, "bad date '%.10s' (YYYY-MM-DD)", r->date);
	for (int s = 0; s < 2; s++)
		if ((r->rating[s][0] != '\0' && !rating_ok(r->rating[s])) ||
		    (r->rating_diff[s][0] != '\0' && !rating_diff_ok(r->rating_diff[s])))
			return record_fail(err, RECORD_EINVAL, "a bad rating of %s",
			                   game_side_name(r->kind, s));
	if (r->result < RECORD_UNFINISHED || r->result > RECORD_WIN1)
		return record_fail(err, RECORD_EINVAL, "unknown result %d", (int)r->result);
	if (r->reason[0] != '\0' && !reason_known(r->reason))
		return record_fail(err, RECORD_EINVAL, "unknown reason '%.15s'", r->reason);
	if (r->result != RECORD_UNFINISHED && r->reason[0] == '\0')
		return record_fail(err, RECORD_EINVAL, "a finished game needs a reason");
	if (r->nmoves > RECORD_MOVES_MAX)
		return record_fail(err, RECORD_EINVAL, "more than %d moves", RECORD_MOVES_MAX);
	r->final = r->start;
	for (size_t i = 0; i < r->nmoves; i++) {
		if (!game_move_legal(&r->final, r->moves[i])) {
			game_move_format(r->kind, r->moves[i], tok, sizeof tok);
			return record_fail(err, RECORD_EILLEGAL, "move %zu '%s' is illegal", i + 1,
			                   tok);
		}
		game_apply(&r->final, r->moves[i]);
	}
	if ((rc = record_result_check(&r->final, r->result, r->reason, err)) < 0)
		return rc;

	out_header(&o, "Game", game_kind_name(r->kind));
	out_header(&o, "Variant", variant);
	if (r->has_position) {
		out_header(&o, "Position", r->position);
	} else {
		snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->seed);
		out_header(&o, "Seed", seed);
	}
	for (int s = 0; s < 2; s++)
		if (r->player[s][0] != '\0')
			out_header(&o, game_class_of(r->kind)->side_header[s], r->player[s]);
	if (r->date[0] != '\0')
		out_header(&o, "Date", r->date);
	out_header(&o, "Result", record_result_name(r->kind, r->result));
	if (r->reason[0] != '\0')
		out_header(&o, "Reason", r->reason);
	if (game_kind_has(r->kind, GAME_HAS_SCORES)) {
		game_outcome(&r->final, &oc);
		snprintf(num, sizeof num, "%d-%d", oc.score[0], oc.score[1]);
		out_header(&o, "Score", num);
	}
	if (r->rated) {
		char name[HEADER_NAME_MAX];

		out_header(&o, "Rated", "yes");
		for (int h = H_RATING0; h <= H_DIFF1; h++) {
			int s = h == H_RATING1 || h == H_DIFF1;
			const char *v = h <= H_RATING1 ? r->rating[s] : r->rating_diff[s];

			if (v[0] != '\0')
				out_header(&o, header_name(h, r->kind, name), v);
		}
	}
	out_str(&o, "\n");

	{
		struct game g = r->start;
		for (size_t i = 0; i < r->nmoves; i++) {
			int side = game_side(&g);
			char pair[sizeof num + sizeof tok];

			game_move_format(r->kind, r->moves[i], tok, sizeof tok);
			if (side == 0 || i == 0) {
				/* a move number stays on the line of its move */
				snprintf(num, sizeof num, side == 0 ? "%d." : "%d...", number);
				snprintf(pair, sizeof pair, "%s %s", num, tok);
				out_token(&o, pair, &col);
			} else {
				out_token(&o, tok, &col);
			}
			game_apply(&g, r->moves[i]);
			if (side == 1)
				number++;
		}
	}
	out_token(&o, record_result_name(r->kind, r->result), &col);
	out_str(&o, "\n");
	if (o.full)
		return record_fail(err, RECORD_ENOSPC, "the record does not fit in %zu bytes",
		                   size);
	return (int)o.len;
}
