/*
 * wire.c: refcounted encoded lines.
 *
 * A wire is one block with its text in it (one per event, whatever the number of receivers); the
 * text is written straight into it by a builder, and the block grows while it is written. A JSON
 * object is written by our own walk of it, byte for byte as jansson's compact encoder writes it
 * (wire_builder_value()), or by jansson for the few values we never build. It owns nothing else.
 * Encoding cannot fail for the objects we build (no NaN, no invalid UTF-8: jansson checks strings
 * on the way in), so a failure is our bug and aborts.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "xmalloc.h"

#define WIRE_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER)
#define WIRE_HINT  512 /* room a jansson-encoded line starts with */

/* json_dump_callback()'s output: the text goes straight into the builder (data). */
static int
wire_dump_cb(const char *buffer, size_t size, void *data)
{
	wire_builder_raw(data, buffer, size);
	return 0;
}

/*
 * Append v as jansson's compact encoder writes it (JSON_COMPACT | JSON_PRESERVE_ORDER): objects
 * in insertion order, strings escaped by wire_builder_strn(), integers in decimal. jansson itself
 * writes only what we never build (reals): its encoder goes through a callback for every token
 * and took several times longer for a state message.
 */
static void
wire_builder_value(struct wire_builder *b, const json_t *v)
{
	json_t *o = (json_t *)v; /* jansson's iterators take no const */
	size_t i, n;
	void *it;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		wire_builder_raw(b, "{", 1);
		for (it = json_object_iter(o); it != NULL; it = json_object_iter_next(o, it)) {
			if (it != json_object_iter(o))
				wire_builder_raw(b, ",", 1);
			wire_builder_strn(b, json_object_iter_key(it),
			                  json_object_iter_key_len(it));
			wire_builder_raw(b, ":", 1);
			wire_builder_value(b, json_object_iter_value(it));
		}
		wire_builder_raw(b, "}", 1);
		return;
	case JSON_ARRAY:
		wire_builder_raw(b, "[", 1);
		for (i = 0, n = json_array_size(v); i < n; i++) {
			if (i > 0)
				wire_builder_raw(b, ",", 1);
			wire_builder_value(b, json_array_get(v, i));
		}
		wire_builder_raw(b, "]", 1);
		return;
	case JSON_STRING:
		wire_builder_strn(b, json_string_value(v), json_string_length(v));
		return;
	case JSON_INTEGER:
		wire_builder_int(b, json_integer_value(v));
		return;
	case JSON_TRUE:
		wire_builder_raw(b, "true", 4);
		return;
	case JSON_FALSE:
		wire_builder_raw(b, "false", 5);
		return;
	case JSON_NULL:
		wire_builder_raw(b, "null", 4);
		return;
	case JSON_REAL:
		break;
	}
	if (json_dump_callback(v, wire_dump_cb, b, WIRE_FLAGS | JSON_ENCODE_ANY) != 0)
		abort();
}

struct wire *
wire_encode(const json_t *msg)
{
	struct wire_builder b;

	if (!json_is_object(msg) && !json_is_array(msg))
		abort(); /* a line is an object (an array at most) */
	wire_builder_init(&b, WIRE_HINT);
	wire_builder_value(&b, msg);
	return wire_builder_finish(&b);
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

/* Most pieces are one byte of punctuation: no memcpy() call for those. */
void
wire_builder_raw(struct wire_builder *b, const char *text, size_t n)
{
	char *o = wire_builder_room(b, n);

	if (n == 1)
		*o = *text;
	else
		memcpy(o, text, n);
	b->w->len += n;
}

/*
 * jansson's escaping (dump.c, without JSON_ENSURE_ASCII or JSON_ESCAPE_SLASH): '"' and '\\' and
 * the control characters below 0x20 are escaped, the short forms where JSON has one, else \u00XX
 * with capital hex digits; every other byte, UTF-8 included, goes as it is. Room is made for the
 * string as it is; only at an escape for the rest of it at its worst (six bytes a byte), so a long
 * plain string (a position) does not make the line grow.
 */
/* The bytes wire_builder_strn() escapes. */
static const unsigned char wire_escaped[256] = {
        [0x00] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* control characters */
        [0x10] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* control characters */
        ['"'] = 1,                                               /* the quote */
        ['\\'] = 1,                                              /* the backslash */
};

void
wire_builder_str(struct wire_builder *b, const char *s)
{
	wire_builder_strn(b, s, strlen(s));
}

void
wire_builder_strn(struct wire_builder *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *end = (const unsigned char *)s + n;
	char *o = wire_builder_room(b, n + 2);

	*o++ = '"';
	for (const unsigned char *p = (const unsigned char *)s; p < end; p++) {
		unsigned char c = *p;

		if (!wire_escaped[c]) {
			*o++ = (char)c;
			continue;
		}
		b->w->len = (size_t)(o - b->w->data);
		o = wire_builder_room(b, (n - (size_t)(p - (const unsigned char *)s)) * 6 + 1);
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
	b->w->len = (size_t)(o - b->w->data);
}

/* The decimal digits of v, as "%" PRId64 writes them (snprintf() was slow here). */
void
wire_builder_int(struct wire_builder *b, int64_t v)
{
	char text[24], *p = text + sizeof text;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	wire_builder_raw(b, p, (size_t)(text + sizeof text - p));
}

void
wire_builder_json(struct wire_builder *b, const json_t *v)
{
	wire_builder_value(b, v);
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
