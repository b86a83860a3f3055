/*
 * store-port.c: the parts of the store ports (store-port.h) that belong to no backend: the
 * history cursor as the text a client holds. The text is "<ended_ms>.<serial>" in decimal; a
 * client treats it as opaque, and a backend that pages by another key may change it.
 */
#include <inttypes.h>
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
