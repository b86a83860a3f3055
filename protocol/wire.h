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
#include <stdint.h>

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

/*
 * A line written piece by piece, for the few messages sent on every move (msg_ok_wire(),
 * msg_moved_wire(), msg_your_turn_wire()): the text goes straight into the wire's own block, with
 * no jansson tree in between. The pieces make exactly the bytes wire_encode() makes of the same
 * object (compact, in insertion order, strings escaped as jansson escapes them).
 */
struct wire_builder {
	struct wire *w; /* owned until wire_builder_finish(); w->len is the text so far */
	size_t cap;     /* bytes of text w has room for */
};

/* Start an empty line with room for about hint bytes. */
void wire_builder_init(struct wire_builder *b, size_t hint);

/* Append n bytes of raw JSON text. */
void wire_builder_raw(struct wire_builder *b, const char *text, size_t n);

/* Append s (UTF-8) as a JSON string. */
void wire_builder_str(struct wire_builder *b, const char *s);

/* Append the n bytes at s (UTF-8, NUL bytes included, written \u0000) as a JSON string. */
void wire_builder_strn(struct wire_builder *b, const char *s, size_t n);

/* Append an integer. */
void wire_builder_int(struct wire_builder *b, int64_t v);

/* Append any JSON value (borrowed), as wire_encode() writes it. */
void wire_builder_json(struct wire_builder *b, const json_t *v);

/* End the line ('\n'). Returns the new wire with one reference; the builder is empty after. */
struct wire *wire_builder_finish(struct wire_builder *b);

/* Take one more reference. Returns w. */
struct wire *wire_ref(struct wire *w);

/* Drop one reference; the last frees the wire. Accepts NULL. */
void wire_unref(struct wire *w);

#endif
