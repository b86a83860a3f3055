/*
 * framer.c: input framing, Redis style: one buffer per connection, only whole lines come out.
 *
 * Bytes are appended at buf[len]; lines are taken from buf[start]. scan remembers how far we
 * already looked for '\n', so a line that arrives one byte at a time is still searched in linear
 * time. The buffer is compacted (the consumed bytes before start are dropped) only when room is
 * asked for, so the line returned by framer_next() stays valid until the next framer call.
 *
 * The limit: a line may hold max bytes plus an optional '\r' before its '\n'. As soon as more
 * bytes than that are held without a '\n', the line is too long and the framer fails for good;
 * we never wait for the end of a line we are going to refuse, so a peer cannot make us hold more
 * than max + 2 bytes of an unfinished line (plus the size of one read). That rule is written once,
 * in framer_cut(): framer_next() applies it to the framer's buffer, and the server applies it to
 * each read in place before anything is copied, so the two cannot cut lines differently.
 */
#include <assert.h>
#include <string.h>

#include "protocol.h"
#include "xmalloc.h"

void
framer_init(struct framer *f, size_t max)
{
	memset(f, 0, sizeof *f);
	f->max = max;
}

void
framer_close(struct framer *f)
{
	free(f->buf);
	f->buf = NULL;
	f->start = f->len = f->scan = f->cap = 0;
	f->failed = 0;
}

/* Drop the consumed bytes before start. */
static void
framer_compact(struct framer *f)
{
	if (f->start == 0)
		return;
	memmove(f->buf, f->buf + f->start, f->len - f->start);
	f->len -= f->start;
	f->scan -= f->start;
	f->start = 0;
}

void
framer_space(struct framer *f, size_t min, char **base, size_t *size)
{
	if (min == 0)
		min = 1;
	if (f->cap - f->len < min)
		framer_compact(f);
	if (f->cap - f->len < min) {
		size_t cap = f->cap ? f->cap : 256; /* most split lines are short */

		while (cap - f->len < min)
			cap *= 2;
		f->buf = xrealloc(f->buf, cap);
		f->cap = cap;
	}
	*base = f->buf + f->len;
	*size = f->cap - f->len;
}

void
framer_commit(struct framer *f, size_t n)
{
	assert(n <= f->cap - f->len);
	f->len += n;
}

void
framer_feed(struct framer *f, const void *data, size_t n)
{
	char *base;
	size_t size;

	framer_space(f, n, &base, &size);
	memcpy(base, data, n);
	framer_commit(f, n);
}

int
framer_cut(char *s, size_t from, size_t n, size_t max, size_t *len, size_t *used)
{
	char *nl = n > from ? memchr(s + from, '\n', n - from) : NULL;
	size_t k;

	if (nl == NULL) /* max bytes and a '\r' may still be followed by the '\n' */
		return n > max + 1 ? PROTO_ETOOLONG : 0;
	k = (size_t)(nl - s);
	*used = k + 1;
	*nl = '\0';
	if (k > 0 && nl[-1] == '\r')
		nl[-1] = '\0', k--;
	if (k > max)
		return PROTO_ETOOLONG;
	*len = k;
	return 1;
}

int
framer_next(struct framer *f, const char **line, size_t *len)
{
	size_t used;
	int rc;

	if (f->failed)
		return PROTO_ETOOLONG;
	if (f->scan < f->start)
		f->scan = f->start;
	if (f->len == f->start)
		return 0; /* nothing held (and maybe no buffer at all) */
	rc = framer_cut(f->buf + f->start, f->scan - f->start, f->len - f->start, f->max, len,
	                &used);
	if (rc < 0)
		f->failed = 1;
	if (rc <= 0) {
		f->scan = f->len;
		return rc;
	}
	*line = f->buf + f->start;
	f->start += used;
	f->scan = f->start;
	return 1;
}

size_t
framer_pending(const struct framer *f)
{
	return f->len - f->start;
}

void
framer_trim(struct framer *f)
{
	if (f->len > f->start || f->failed)
		return;
	free(f->buf);
	f->buf = NULL;
	f->start = f->len = f->scan = f->cap = 0;
}
