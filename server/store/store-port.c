/*
 * store-port.c: the parts of the store ports (store-port.h) that belong to no backend: the
 * history cursor as the text a client holds. The text is "<ended_ms>.<serial>" in decimal; a
 * client treats it as opaque, and a backend that pages by another key may change it. The
 * leaderboard's cursor is "<rating>,<account>,<rank>": the rating with all its digits (%.17g,
 * so the key is exact), then the last entry's account and rank in decimal.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-port.h"

void
store_cursor_format(const struct store_cursor *c, char *buf, size_t size)
{
	snprintf(buf, size, "%" PRId64 ".%" PRId64, c->ended_ms, c->serial);
}

/* A decimal integer from 0 to INT64_MAX, digits only, no leading zero; advances *p. */
static int
cursor_number(const char **p, int64_t *out)
{
	const char *s = *p;
	int64_t v = 0;

	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (INT64_MAX - (*s - '0')) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	*p = s;
	return 0;
}

int
store_cursor_parse(const char *text, struct store_cursor *c)
{
	const char *p = text;
	struct store_cursor v;

	if (cursor_number(&p, &v.ended_ms) < 0 || *p++ != '.' || cursor_number(&p, &v.serial) < 0 ||
	    *p != '\0')
		return STORE_EINVAL;
	*c = v;
	return 0;
}

void
store_board_cursor_format(const struct store_board_cursor *c, char *buf, size_t size)
{
	snprintf(buf, size, "%.17g,%" PRId64 ",%" PRId64, c->rating, c->account, c->rank);
}

int
store_board_cursor_parse(const char *text, struct store_board_cursor *c)
{
	struct store_board_cursor v;
	const char *p;
	char *end;

	v.rating = strtod(text, &end);
	p = end;
	if (end == text || !isfinite(v.rating) || fabs(v.rating) > 1e9 || *p++ != ',' ||
	    cursor_number(&p, &v.account) < 0 || *p++ != ',' || cursor_number(&p, &v.rank) < 0 ||
	    *p != '\0')
		return STORE_EINVAL;
	*c = v;
	return 0;
}

void
store_events_free(struct store_event *events, size_t nevents)
{
	if (events == NULL)
		return;
	for (size_t i = 0; i < nevents; i++) {
		free((char *)events[i].type);
		free((char *)events[i].move);
		free((char *)events[i].body);
	}
	free(events);
}

/* Fill err (if not NULL) and return code. */
int
store_fail(struct store_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof err->text, fmt, ap);
	va_end(ap);
	return code;
}
