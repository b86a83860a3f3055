/*
 * protocol.c: the protocol's error code names and the display name rule.
 *
 * The names are part of the wire contract (PROTOCOL.md section 8): they never change once
 * released. This file owns nothing and never allocates.
 */
#include <string.h>

#include "protocol.h"

static const char *const err_names[PROTO_ERR_COUNT] = {
        "bad_json",         "line_too_long",  "unknown_type",     "bad_field",   "bad_value",
        "version_mismatch", "hello_required", "already_welcomed", "bad_token",   "hello_timeout",
        "too_many_clients", "server_full",    "no_such_game",     "game_full",   "already_seated",
        "in_game",          "not_seated",     "spectator",        "not_started", "game_over",
        "not_your_turn",    "bad_move",       "illegal_move",     "internal",
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

int
protocol_name_check(const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n = strlen(name), chars = 0;

	if (n == 0 || n > PROTOCOL_NAME_BYTES)
		return PROTO_EBADVALUE;
	for (size_t i = 0; i < n;) {
		unsigned cp;
		int len = utf8_decode(s + i, n - i, &cp);

		if (len == 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
			return PROTO_EBADVALUE;
		i += (size_t)len;
		chars++;
	}
	return chars <= PROTOCOL_NAME_MAX ? 0 : PROTO_EBADVALUE;
}
