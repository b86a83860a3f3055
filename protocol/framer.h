/*
 * framer.h: splitting a byte stream into lines, the input side of the protocol's framing.
 *
 * One framer per connection holds the bytes received so far; only whole lines ('\n'-terminated)
 * come out, however the stream was cut into reads (a line over several reads, several lines in
 * one read, a UTF-8 character split between reads). A line longer than the limit is an error the
 * framer remembers. It never touches a socket: the caller reads into framer_space() (or copies in
 * with framer_feed()) and calls framer_next() until it returns 0.
 */
#ifndef HOKITO_PROTOCOL_FRAMER_H
#define HOKITO_PROTOCOL_FRAMER_H

#include <stddef.h>

struct framer {
	char *buf;    /* owned: bytes received and not yet consumed */
	size_t start; /* offset of the first byte not yet returned in a line */
	size_t len;   /* bytes held, from offset 0 */
	size_t scan;  /* offset up to which no '\n' was found */
	size_t cap;   /* allocated size of buf */
	size_t max;   /* the line limit in bytes, without '\n' (and a '\r' before it) */
	int failed;   /* set once a line passed the limit: every later call fails */
};

/* Set up an empty framer with a line limit of max bytes. */
void framer_init(struct framer *f, size_t max);

/* Release the framer's buffer. Safe on a zeroed framer; the framer can be framer_init()ed again. */
void framer_close(struct framer *f);

/*
 * Free room at the end of the buffer to read into, at least min bytes: *base and *size are set to
 * a borrowed region valid until the next framer call. Follow with framer_commit().
 */
void framer_space(struct framer *f, size_t min, char **base, size_t *size);

/* Account for n bytes written at the start of the region framer_space() returned. */
void framer_commit(struct framer *f, size_t n);

/* Copy n bytes into the framer (for callers that have their own buffer). */
void framer_feed(struct framer *f, const void *data, size_t n);

/*
 * Take the next whole line. Returns 1 with *line (borrowed, NUL-terminated, without '\n' and
 * without a '\r' before it, valid until the next framer call) and *len set; 0 when no whole line
 * is held yet; PROTO_ETOOLONG when a line passed the limit (then and on every later call: the
 * caller sends its error and closes).
 */
int framer_next(struct framer *f, const char **line, size_t *len);

/*
 * The rule that cuts a line, framer_next()'s, for a caller that splits its own buffer in place
 * (the server splits each read before it copies anything). s holds n bytes from the start of a
 * line; the first from of them are known to hold no '\n'. Returns 1 when the line is whole: it is
 * NUL-terminated in place (its '\n', and a '\r' before it, become NULs), *len is its length and
 * *used the bytes it takes with its '\n'; 0 when there is no '\n' yet and the n bytes may still
 * become a line; PROTO_ETOOLONG when the line is longer than max, or would have to be.
 */
int framer_cut(char *s, size_t from, size_t n, size_t max, size_t *len, size_t *used);

/* Bytes held that are not yet part of a returned line. */
size_t framer_pending(const struct framer *f);

/*
 * Release the buffer if no byte is pending, so that a connection between lines holds no input
 * memory (the last line returned stops being valid). Does nothing while a line is unfinished.
 */
void framer_trim(struct framer *f);

#endif
