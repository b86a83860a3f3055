/*
 * wire.h: encoded lines ready to send, refcounted so that one event is serialised once.
 *
 * A wire is immutable once made: the compact JSON text of one message followed by '\n'. The server
 * encodes a game event once and hands the same wire to every receiver and to the game's event log;
 * each holder owns one reference, and the last wire_unref() frees it. Single-threaded: references
 * are plain counters.
 */
#ifndef HOKITO_PROTOCOL_WIRE_H
#define HOKITO_PROTOCOL_WIRE_H

#include <stddef.h>

#include <jansson.h>

struct wire {
	unsigned refs; /* holders of a reference */
	size_t len;    /* bytes of data to send, the final '\n' included */
	char data[];   /* the JSON text, '\n', then a NUL not counted in len */
};

/*
 * Encode msg (a JSON object; borrowed) as one compact line. Returns a new wire with one
 * reference. Keys keep their insertion order.
 */
struct wire *wire_encode(const json_t *msg);

/* Encode msg and release it (steals the reference). Returns a new wire. */
struct wire *wire_encode_steal(json_t *msg);

/* Make a wire of text (len bytes, without '\n'; a '\n' is added). Returns a new wire. */
struct wire *wire_text(const char *text, size_t len);

/* Take one more reference. Returns w. */
struct wire *wire_ref(struct wire *w);

/* Drop one reference; the last frees the wire. Accepts NULL. */
void wire_unref(struct wire *w);

#endif
