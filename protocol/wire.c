/*
 * wire.c: refcounted encoded lines.
 *
 * A wire is allocated once with its text in the same block (one malloc per event, whatever the
 * number of receivers). It owns nothing else. Encoding cannot fail for the objects we build (no
 * NaN, no invalid UTF-8: jansson checks strings on the way in), so a failure is our bug and aborts.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "xmalloc.h"

#define WIRE_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER)

/*
 * Encode into a buffer on the stack first: most lines fit, and then jansson walks the object
 * once. A longer line is encoded a second time, straight into its wire.
 */
struct wire *
wire_encode(const json_t *msg)
{
	char buf[2048];
	size_t n = json_dumpb(msg, buf, sizeof buf, WIRE_FLAGS);
	struct wire *w;

	assert(n > 0);
	w = xmalloc(sizeof *w + n + 2);
	w->refs = 1;
	if (n <= sizeof buf)
		memcpy(w->data, buf, n);
	else if (json_dumpb(msg, w->data, n, WIRE_FLAGS) != n)
		abort();
	w->data[n] = '\n';
	w->data[n + 1] = '\0';
	w->len = n + 1;
	return w;
}

struct wire *
wire_encode_steal(json_t *msg)
{
	struct wire *w = wire_encode(msg);

	json_decref(msg);
	return w;
}

struct wire *
wire_text(const char *text, size_t len)
{
	struct wire *w = xmalloc(sizeof *w + len + 2);

	w->refs = 1;
	memcpy(w->data, text, len);
	w->data[len] = '\n';
	w->data[len + 1] = '\0';
	w->len = len + 1;
	return w;
}

struct wire *
wire_ref(struct wire *w)
{
	w->refs++;
	return w;
}

void
wire_unref(struct wire *w)
{
	if (w == NULL)
		return;
	assert(w->refs > 0);
	if (--w->refs == 0)
		free(w);
}

void
wire_builder_init(struct wire_builder *b, size_t hint)
{
	b->cap = hint > 16 ? hint : 16;
	b->w = xmalloc(sizeof *b->w + b->cap + 2);
	b->w->refs = 1;
	b->w->len = 0;
}

/* Room for n more bytes of text. */
static char *
wire_builder_room(struct wire_builder *b, size_t n)
{
	if (b->cap - b->w->len < n) {
		while (b->cap - b->w->len < n)
			b->cap *= 2;
		b->w = xrealloc(b->w, sizeof *b->w + b->cap + 2);
	}
	return b->w->data + b->w->len;
}

void
wire_builder_raw(struct wire_builder *b, const char *text, size_t n)
{
	memcpy(wire_builder_room(b, n), text, n);
	b->w->len += n;
}

/*
 * jansson's escaping (dump.c, without JSON_ENSURE_ASCII or JSON_ESCAPE_SLASH): '"' and '\\' and
 * the control characters below 0x20 are escaped, the short forms where JSON has one, else \u00XX
 * with capital hex digits; every other byte, UTF-8 included, goes as it is.
 */
void
wire_builder_str(struct wire_builder *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);
	char *out = wire_builder_room(b, n * 6 + 2), *o = out;

	*o++ = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		unsigned char c = *p;

		if (c >= 0x20 && c != '"' && c != '\\') {
			*o++ = (char)c;
			continue;
		}
		*o++ = '\\';
		switch (c) {
		case '"':
		case '\\':
			*o++ = (char)c;
			break;
		case '\b':
			*o++ = 'b';
			break;
		case '\f':
			*o++ = 'f';
			break;
		case '\n':
			*o++ = 'n';
			break;
		case '\r':
			*o++ = 'r';
			break;
		case '\t':
			*o++ = 't';
			break;
		default:
			*o++ = 'u';
			*o++ = '0';
			*o++ = '0';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
			break;
		}
	}
	*o++ = '"';
	b->w->len += (size_t)(o - out);
}

void
wire_builder_int(struct wire_builder *b, int64_t v)
{
	char text[24];
	int n = snprintf(text, sizeof text, "%" PRId64, v);

	wire_builder_raw(b, text, (size_t)n);
}

void
wire_builder_json(struct wire_builder *b, const json_t *v)
{
	size_t n = json_dumpb(v, NULL, 0, WIRE_FLAGS | JSON_ENCODE_ANY);

	if (json_dumpb(v, wire_builder_room(b, n), n, WIRE_FLAGS | JSON_ENCODE_ANY) != n)
		abort();
	b->w->len += n;
}

struct wire *
wire_builder_finish(struct wire_builder *b)
{
	struct wire *w = b->w;

	/* the block always has 2 bytes beyond cap: '\n' and the NUL */
	w->data[w->len] = '\n';
	w->data[w->len + 1] = '\0';
	w->len++;
	b->w = NULL;
	b->cap = 0;
	return w;
}
