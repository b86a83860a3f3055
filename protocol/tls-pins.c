/*
 * tls-pins.c: the pin file of trust on first use: its strict parser, the decision, and its
 * reading and atomic writing.
 *
 * The parser splits the text into lines once and checks every one of them, so the same rules
 * serve the decision (which must refuse a damaged file) and the writer (which must not lose the
 * other lines). The decision looks at the pins only when the certificate check failed: a
 * certificate a CA vouches for is accepted even if it was renewed since (Let's Encrypt renews
 * every 90 days), while a self-signed one is accepted only if it is exactly the one pinned. This
 * module never touches OpenSSL; the file is written through a temporary file and rename(), so a
 * crash leaves either the old or the new file, never half of one.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tls-pins.h"
#include "xmalloc.h"

/* One line of the file; entries have a host and a fingerprint. */
struct pins_line {
	size_t start; /* offset of the line in the text */
	size_t len;   /* its length without '\n' */
	size_t host;  /* length of HOST:PORT (0: a comment or blank line) */
};

/* Fill err with a sentence about line (0: none) and return code. */
static int pins_fail(struct tls_error *err, int code, int line, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 4, 5)))
#endif
        ;

static int
pins_fail(struct tls_error *err, int code, int line, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof err->text, fmt, ap);
	va_end(ap);
	return code;
}

/* 1 if s[0..n) is "SHA256:" and 64 lowercase hex digits. */
static int
pins_fp_valid(const char *s, size_t n)
{
	if (n != TLS_FINGERPRINT_LEN || memcmp(s, "SHA256:", 7) != 0)
		return 0;
	for (size_t i = 7; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
			return 0;
	return 1;
}

/* 1 if s[0..n) is HOST:PORT: a non-empty host (IPv6 in brackets) and a port 1..65535. */
static int
pins_hostport_valid(const char *s, size_t n)
{
	size_t colon = n;
	long port = 0;

	while (colon > 0 && s[colon - 1] != ':')
		colon--;
	if (colon < 2 || colon == n || n - colon > 5)
		return 0;
	for (size_t i = colon; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		port = port * 10 + (s[i] - '0');
	}
	if (port < 1 || port > 65535 || s[colon] == '0')
		return 0;
	for (size_t i = 0; i < colon - 1; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f || s[i] == '#')
			return 0;
	if (s[0] == '[')
		return colon >= 4 && s[colon - 2] == ']' && memchr(s + 1, ']', colon - 3) == NULL;
	return memchr(s, ':', colon - 1) == NULL && memchr(s, ']', colon - 1) == NULL;
}

/*
 * Split and check the whole text. Returns 0 with *lines (new array, freed by the caller) and
 * *count, or TLS_EPINS naming the first bad line.
 */
static int
pins_parse(const char *path, const char *text, size_t len, struct pins_line **lines, size_t *count,
           struct tls_error *err)
{
	size_t cap = 0, n = 0, pos = 0;
	struct pins_line *v = NULL;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		struct pins_line l = {pos, end - pos, 0};
		const char *s = text + pos;
		int lineno = (int)n + 1;

		pos = end + 1;
		v = xgrow(v, n, &cap, sizeof *v, 16);
		v[n++] = l;
		if (l.len == 0 || s[0] == '#')
			continue;
		const char *sp = memchr(s, ' ', l.len);
		if (sp == NULL || !pins_hostport_valid(s, (size_t)(sp - s)) ||
		    !pins_fp_valid(sp + 1, l.len - (size_t)(sp - s) - 1)) {
			free(v);
			return pins_fail(err, TLS_EPINS, lineno,
			                 "%s:%d: not a pin: a line must be \"HOST:PORT SHA256:<64 "
			                 "lowercase hex digits>\", a comment (#) or empty",
			                 path, lineno);
		}
		v[n - 1].host = (size_t)(sp - s);
		for (size_t i = 0; i + 1 < n; i++) {
			if (v[i].host == v[n - 1].host &&
			    memcmp(text + v[i].start, s, v[i].host) == 0) {
				free(v);
				return pins_fail(err, TLS_EPINS, lineno,
				                 "%s:%d: %.*s is pinned twice (also on line %zu)",
				                 path, lineno, (int)(sp - s), s, i + 1);
			}
		}
	}
	*lines = v;
	*count = n;
	return 0;
}

/* The index of hostport's entry, or count when it has none. */
static size_t
pins_find(const char *text, const struct pins_line *v, size_t count, const char *hostport)
{
	size_t hl = strlen(hostport);

	for (size_t i = 0; i < count; i++)
		if (v[i].host == hl && memcmp(text + v[i].start, hostport, hl) == 0)
			return i;
	return count;
}

int
tls_pins_decide(const char *path, const char *text, size_t len, const char *hostport,
                const char *fp, long verify_result, const char *verify_text, struct tls_error *err)
{
	struct pins_line *v = NULL;
	size_t count = 0, i;
	char shown[TLS_FINGERPRINT_TEXT_LEN + 1];
	int r;

	if ((r = pins_parse(path, text, len, &v, &count, err)) < 0)
		return r;
	if (verify_result == 0) {
		free(v);
		return TLS_TRUST_VERIFIED;
	}
	i = pins_find(text, v, count, hostport);
	tls_fingerprint_text(fp, shown, sizeof shown);
	if (i == count) {
		free(v);
		pins_fail(err, TLS_ENEWHOST, 0,
		          "the certificate of %s is not verified (%s). Its fingerprint is %s. If "
		          "that is the server's fingerprint (hokitod logs it at its start), accept "
		          "it to pin it in %s",
		          hostport, verify_text, shown, path);
		return TLS_TRUST_UNKNOWN;
	}
	const char *pinned = text + v[i].start + v[i].host + 1;
	if (memcmp(pinned, fp, TLS_FINGERPRINT_LEN) == 0 && strlen(fp) == TLS_FINGERPRINT_LEN) {
		free(v);
		return TLS_TRUST_PINNED;
	}
	pins_fail(
	        err, TLS_ECHANGED, (int)i + 1,
	        "WARNING: THE CERTIFICATE OF %s HAS CHANGED. It was pinned as %.*s (%s line "
	        "%zu) and is now %s, %s (%s). Someone may be intercepting this connection, or the "
	        "server's certificate was replaced. Refused. If you know it was replaced, delete "
	        "line %zu of %s and connect again to accept the new one",
	        hostport, TLS_FINGERPRINT_LEN, pinned, path, i + 1, fp, shown, verify_text, i + 1,
	        path);
	free(v);
	return TLS_TRUST_CHANGED;
}

int
tls_pins_load(const char *path, char **text, size_t *len, struct tls_error *err)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0, n = 0;
	char *buf = NULL;

	*text = NULL;
	*len = 0;
	if (f == NULL) {
		if (errno == ENOENT)
			return 0;
		return pins_fail(err, TLS_EPINS, 0, "cannot read the pin file %s: %s", path,
		                 strerror(errno));
	}
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = xrealloc(buf, cap);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return pins_fail(err, TLS_EPINS, 0, "cannot read the pin file %s", path);
	}
	fclose(f);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* Write all of s to fd. Returns 0 or -1 with errno. */
static int
pins_write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int
tls_pins_add(const char *path, const char *hostport, const char *fp, struct tls_error *err)
{
	struct pins_line *v = NULL;
	size_t len, count = 0, skip, tl = strlen(path) + 8;
	char *text, *tmp = xmalloc(tl);
	int r, fd;

	if (!pins_hostport_valid(hostport, strlen(hostport)) || !pins_fp_valid(fp, strlen(fp))) {
		free(tmp);
		return pins_fail(err, TLS_EPINS, 0,
		                 "cannot pin \"%s %s\": not a HOST:PORT and a "
		                 "SHA256 fingerprint",
		                 hostport, fp);
	}
	if ((r = tls_pins_load(path, &text, &len, err)) < 0 ||
	    (r = pins_parse(path, text, len, &v, &count, err)) < 0) {
		free(text);
		free(tmp);
		return r;
	}
	skip = pins_find(text, v, count, hostport);
	snprintf(tmp, tl, "%s.new", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	r = fd < 0 ? -1 : fchmod(fd, 0600);
	for (size_t i = 0; r == 0 && i < count; i++) {
		if (i == skip)
			continue;
		r = pins_write_all(fd, text + v[i].start, v[i].len);
		if (r == 0)
			r = pins_write_all(fd, "\n", 1);
	}
	if (r == 0)
		r = pins_write_all(fd, hostport, strlen(hostport));
	if (r == 0)
		r = pins_write_all(fd, " ", 1);
	if (r == 0)
		r = pins_write_all(fd, fp, strlen(fp));
	if (r == 0)
		r = pins_write_all(fd, "\n", 1);
	if (r == 0)
		r = fsync(fd);
	if (fd >= 0 && close(fd) < 0)
		r = -1;
	if (r == 0)
		r = rename(tmp, path);
	if (r < 0) {
		pins_fail(err, TLS_EPINS, 0, "cannot write the pin file %s: %s", path,
		          strerror(errno));
		if (fd >= 0)
			unlink(tmp);
	}
	free(v);
	free(text);
	free(tmp);
	return r < 0 ? TLS_EPINS : 0;
}

char *
tls_pins_hostport(char *out, size_t size, const char *host, int port)
{
	snprintf(out, size, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
	return out;
}
