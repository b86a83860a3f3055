/*
 * protocol.c: the protocol's error code names and the display name rule.
 *
 * The names are part of the wire contract (PROTOCOL.md section 8): they never change once
 * released. Also the text rules that need no server state: display names, chat lines and time
 * controls. This file owns nothing and never allocates.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "record.h"

static const char *const err_names[PROTO_ERR_COUNT] = {
        "bad_json",        "line_too_long",    "unknown_type",       "bad_field",
        "bad_value",       "version_mismatch", "hello_required",     "already_welcomed",
        "bad_token",       "hello_timeout",    "too_many_clients",   "server_full",
        "no_such_game",    "game_full",        "already_seated",     "in_game",
        "not_seated",      "spectator",        "not_started",        "game_over",
        "not_your_turn",   "bad_move",         "illegal_move",       "internal",
        "rate_limited",    "no_offer",         "already_offered",    "too_late",
        "cannot_claim",    "not_over",         "opponent_gone",      "name_taken",
        "wrong_password",  "login_throttled",  "insecure_transport", "not_logged_in",
        "offer_limit",     "too_many_games",   "computer_busy",      "store_unavailable",
        "no_such_account", "account_closed",   "too_many_reads",
};

const char *
protocol_err_name(int code)
{
	if (code >= 0 || code < -PROTO_ERR_COUNT)
		return "internal";
	return err_names[-code - 1];
}

int
protocol_err_parse(const char *name)
{
	for (int i = 0; i < PROTO_ERR_COUNT; i++)
		if (strcmp(name, err_names[i]) == 0)
			return -i - 1;
	return 0;
}

/*
 * Decode one UTF-8 character at s (n bytes left). Returns its length and sets *cp, or 0 for an
 * invalid sequence (overlong forms, surrogates and values above U+10FFFF included).
 */
static int
utf8_decode(const unsigned char *s, size_t n, unsigned *cp)
{
	unsigned c = s[0], min;
	int len;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		c &= 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		c &= 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if ((size_t)len > n)
		return 0;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/*
 * Whether a code point shows nothing: Unicode's White_Space characters (spaces of any width, the
 * line and paragraph separators) and its Default_Ignorable_Code_Point characters, the ones a
 * font draws as nothing (zero-width spaces and joiners, the direction marks, the invisible
 * operators, variation selectors, the Hangul fillers, tags). A name of only these would show as
 * nothing at all, so it is refused; among other text they are kept.
 */
static int
blank_char(unsigned cp)
{
	static const unsigned ranges[][2] = {
	        {0x0020, 0x0020},   {0x00a0, 0x00a0}, {0x00ad, 0x00ad},   {0x034f, 0x034f},
	        {0x061c, 0x061c},   {0x115f, 0x1160}, {0x1680, 0x1680},   {0x17b4, 0x17b5},
	        {0x180b, 0x180f},   {0x2000, 0x200f}, {0x2028, 0x202f},   {0x205f, 0x206f},
	        {0x3000, 0x3000},   {0x3164, 0x3164}, {0xfe00, 0xfe0f},   {0xfeff, 0xfeff},
	        {0xffa0, 0xffa0},   {0xfff0, 0xfff8}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a},
	        {0xe0000, 0xe0fff},
	};

	for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
		if (cp >= ranges[i][0] && cp <= ranges[i][1])
			return 1;
	return 0;
}

int
protocol_name_check(const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n = strlen(name), chars = 0;
	int shown = 0;

	if (n == 0 || n > PROTOCOL_NAME_BYTES)
		return PROTO_EBADVALUE;
	for (size_t i = 0; i < n;) {
		unsigned cp;
		int len = utf8_decode(s + i, n - i, &cp);

		if (len == 0 || record_utf8_control(s + i, (size_t)len))
			return PROTO_EBADVALUE;
		shown |= !blank_char(cp);
		i += (size_t)len;
		chars++;
	}
	return chars <= PROTOCOL_NAME_MAX && shown ? 0 : PROTO_EBADVALUE;
}

char *
protocol_utf8_repair(char *text)
{
	unsigned char *s = (unsigned char *)text;
	size_t n = strlen(text), len = 0;

	for (size_t i = 0; i < n;) {
		unsigned cp;
		int l = utf8_decode(s + i, n - i, &cp);

		if (l == 0) {
			i++; /* not the start of a whole character: dropped */
			continue;
		}
		memmove(s + len, s + i, (size_t)l);
		len += (size_t)l;
		i += (size_t)l;
	}
	s[len] = '\0';
	return text;
}

int
protocol_chat_clean(const char *text, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n = strlen(text), len = 0, chars = 0, spaces = 0;

	for (size_t i = 0; i < n;) {
		unsigned cp;
		int l = utf8_decode(s + i, n - i, &cp);

		if (l == 0)
			return PROTO_EBADVALUE;
		i += (size_t)l;
		if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r') {
			/* leading spaces go; the others are written only once text follows them, so
			 * that trailing spaces take no room however many there are */
			spaces += chars > 0;
			continue;
		}
		if (record_utf8_control(s + i - (size_t)l, (size_t)l))
			continue; /* a control character: stripped */
		chars += spaces + 1;
		if (chars > PROTOCOL_CHAT_MAX || len + spaces + (size_t)l >= size)
			return PROTO_EBADVALUE;
		memset(out + len, ' ', spaces);
		len += spaces;
		spaces = 0;
		memcpy(out + len, s + i - (size_t)l, (size_t)l);
		len += (size_t)l;
	}
	if (size > 0)
		out[len] = '\0';
	return (int)chars;
}

/* A whole decimal number of 1 to 3 digits in [min, max], or -1. */
static long
clock_number(const char *s, size_t n, long min, long max)
{
	long v = 0;

	if (n == 0 || n > 3)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v < min || v > max ? -1 : v;
}

int
protocol_clock_parse(const char *text, uint64_t *base_ms, uint64_t *inc_ms)
{
	const char *plus = strchr(text, '+');
	long base, inc;

	if (strcmp(text, "none") == 0) {
		*base_ms = *inc_ms = 0;
		return 0;
	}
	if (plus == NULL)
		return PROTO_EBADVALUE;
	base = clock_number(text, (size_t)(plus - text), 1, PROTOCOL_CLOCK_MAX_MIN);
	inc = clock_number(plus + 1, strlen(plus + 1), 0, PROTOCOL_CLOCK_MAX_INC);
	if (base < 0 || inc < 0)
		return PROTO_EBADVALUE;
	*base_ms = (uint64_t)base * 60000u;
	*inc_ms = (uint64_t)inc * 1000u;
	return 0;
}

int
protocol_level_parse(const char *text, int *level)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || *end != '\0' || v < PROTOCOL_LEVEL_MIN || v > PROTOCOL_LEVEL_MAX)
		return PROTO_EBADVALUE;
	*level = (int)v;
	return 0;
}
