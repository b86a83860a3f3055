/*
 * log.c: timestamped records on stderr.
 *
 * Each record is formatted into one buffer and written with a single fputs, so records never
 * interleave. What a peer wrote may reach a record (the client member of a hello, a name), so
 * every character that could change how the record reads is escaped (log_escape()): control
 * characters C0, DEL and C1 as \xHH and \u0085, the bidirectional overrides, embeddings, isolates
 * and marks as \u202E and the like, and bytes that are not UTF-8 as \xHH. A record is always
 * one line, reads in the order it was written, and no peer can forge another. It owns nothing but
 * the level.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"

static enum log_level log_level = LOG_INFO;
static const char *const level_names[] = {"error", "warn", "info", "debug"};

int
log_level_parse(const char *name, enum log_level *level)
{
	for (int i = 0; i < 4; i++) {
		if (strcmp(name, level_names[i]) == 0) {
			*level = (enum log_level)i;
			return 0;
		}
	}
	return -1;
}

void
log_level_set(enum log_level level)
{
	log_level = level;
}

int
log_enabled(enum log_level level)
{
	return level <= log_level;
}

/* Whether code point c changes the reading order of the text around it (Unicode's Bidi_Control). */
static int
bidi_control(unsigned c)
{
	return c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

/*
 * The length of the UTF-8 sequence at s (at most n bytes) and its code point in *cp, or 0 when
 * the bytes there are not valid UTF-8 (overlong, a surrogate, past U+10FFFF, cut short).
 */
static size_t
utf8_decode(const unsigned char *s, size_t n, unsigned *cp)
{
	size_t len;
	unsigned c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07u;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	*cp = c;
	return len;
}

size_t
log_escape(const char *in, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t n = strlen(in), o = 0;

	if (size == 0)
		return 0;
	while (n > 0) {
		char esc[12];
		unsigned cp;
		size_t len = utf8_decode(s, n, &cp), elen;

		if (len == 0)
			elen = (size_t)snprintf(esc, sizeof esc, "\\x%02X", s[0]), len = 1;
		else if (cp < 0x20 || cp == 0x7f)
			elen = (size_t)snprintf(esc, sizeof esc, "\\x%02X", cp);
		else if ((cp >= 0x80 && cp <= 0x9f) || bidi_control(cp))
			elen = (size_t)snprintf(esc, sizeof esc, "\\u%04X", cp);
		else
			elen = 0;
		if (elen == 0) {
			if (o + len >= size)
				break;
			memcpy(out + o, s, len);
			o += len;
		} else {
			if (o + elen >= size)
				break;
			memcpy(out + o, esc, elen);
			o += elen;
		}
		s += len;
		n -= len;
	}
	out[o] = '\0';
	return o;
}

void
log_write(enum log_level level, const char *fmt, ...)
{
	char text[1024], line[2048];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n;

	if (!log_enabled(level))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof line,
	             "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s: ", tm.tm_year + 1900, tm.tm_mon + 1,
	             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
	             level_names[level]);
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	n += (int)log_escape(text, line + n, sizeof line - (size_t)n - 1);
	line[n] = '\n';
	line[n + 1] = '\0';
	fputs(line, stderr);
}
