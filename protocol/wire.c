/*
 * wire.c: refcounted encoded lines.
 *
 * A wire is allocated once with its text in the same block (one malloc per event, whatever the
 * number of receivers). It owns nothing else. Encoding cannot fail for the objects we build (no
 * NaN, no invalid UTF-8: jansson checks strings on the way in), so a failure is our bug and aborts.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "xmalloc.h"

#define WIRE_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER)

struct wire *
wire_encode(const json_t *msg)
{
	size_t n = json_dumpb(msg, NULL, 0, WIRE_FLAGS);
	struct wire *w;

	assert(n > 0);
	w = xmalloc(sizeof *w + n + 2);
	w->refs = 1;
	if (json_dumpb(msg, w->data, n, WIRE_FLAGS) != n)
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
