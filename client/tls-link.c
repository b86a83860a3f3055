/*
 * tls-link.c: the client side of TLS on a libuv stream (tls-link.h), for hokito, the bot and the
 * load generator.
 *
 * Every call that may make ciphertext (create, read, write, trust, shutdown) ends by writing it:
 * each piece goes out in a uv_write whose request owns the buffer and frees it in its callback,
 * so a link can be freed while writes are in flight (libuv cancels them at the close). A failed
 * write shows up as a read error on the stream, as for a plain connection. It never closes the
 * stream and never decides about trust: that is the caller's (it asks, or refuses).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state-dir.h"
#include "tls-link.h"
#include "xmalloc.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

struct tls_link_write {
	uv_write_t req;
	char *buf; /* owned: from tls_conn_take(), freed in the callback */
};

/* The schemes an address may start with, and whether each speaks TLS. */
static const struct {
	const char *prefix;
	int tls;
} tls_link_schemes[] = {
        {"hokito://", 0},
        {TLS_LINK_SCHEME, 1},
};

/* A port "1".."65535" (the whole of p). Returns it, or -1. */
static int
tls_link_port(const char *p)
{
	char *e;
	long n;

	if (p[0] < '0' || p[0] > '9')
		return -1;
	n = strtol(p, &e, 10);
	return *e == '\0' && n >= 1 && n <= 65535 ? (int)n : -1;
}

int
tls_link_address(const char *arg, char *host, size_t size, int *port, int *tls)
{
	const char *h = arg, *colon = NULL;
	int scheme_tls = -1, p = 0;
	size_t n;

	for (size_t i = 0; i < sizeof tls_link_schemes / sizeof tls_link_schemes[0]; i++) {
		size_t len = strlen(tls_link_schemes[i].prefix);

		if (strncmp(arg, tls_link_schemes[i].prefix, len) == 0) {
			h = arg + len;
			scheme_tls = tls_link_schemes[i].tls;
		}
	}
	if (scheme_tls < 0 && strstr(arg, "://") != NULL)
		return -1; /* http://, tcp://...: not ours */
	if (h[0] == '[') {
		const char *end = strchr(h, ']');

		if (end == NULL || (end[1] != '\0' && end[1] != ':'))
			return -1;
		n = (size_t)(end - h - 1);
		h++;
		colon = end[1] == ':' ? end + 1 : NULL;
	} else if ((colon = strchr(h, ':')) != NULL && strchr(colon + 1, ':') != NULL) {
		colon = NULL; /* a bare IPv6 address: no port */
		n = strlen(h);
	} else {
		n = colon != NULL ? (size_t)(colon - h) : strlen(h);
	}
	if (n == 0 || n >= size || memchr(h, '/', n) != NULL)
		return -1;
	if (colon != NULL && (p = tls_link_port(colon + 1)) < 0)
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	if (p > 0)
		*port = p;
	if (scheme_tls > 0)
		*tls = 1;
	return 0;
}

int
tls_link_password_ok(const struct sockaddr *sa, int tls, int allow_insecure)
{
	if (tls || allow_insecure)
		return 1;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		if (IN6_IS_ADDR_LOOPBACK(a))
			return 1;
		return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
	}
	return 0;
}

int
tls_link_pins_path(char *buf, size_t size)
{
	char dir[1100];
	int rc = state_dir_path(dir, sizeof dir);

	if (rc < 0)
		return rc;
	if ((size_t)snprintf(buf, size, "%s/known_hosts", dir) >= size)
		return -1;
	return 0;
}

int
tls_link_client_create(struct tls_client **out, const struct tls_link_options *o,
                       struct tls_error *err)
{
	struct tls_client_config cfg = {o->ca_file, NULL, o->insecure};
	char pins[1200];

	/* trust on first use is for the servers no CA vouches for: not with a CA of one's own */
	if (o->ca_file == NULL && !o->insecure) {
		if (tls_link_pins_path(pins, sizeof pins) < 0) {
			err->code = TLS_EPINS;
			err->line = 0;
			snprintf(err->text, sizeof err->text,
			         "no folder for the pin file: set HOME or XDG_STATE_HOME");
			return TLS_EPINS;
		}
		cfg.pins_file = pins;
	}
	return tls_client_create(out, &cfg, err);
}

static void
tls_link_write_cb(uv_write_t *req, int status)
{
	struct tls_link_write *w = container_of(req, struct tls_link_write, req);

	(void)status; /* a failed write shows up as a read error */
	free(w->buf);
	free(w);
}

/* Write the ciphertext waiting. Returns 0 or a negative libuv error. */
static int
tls_link_flush(struct tls_link *l)
{
	struct tls_link_write *w;
	size_t n;
	char *p;
	int rc = 0;

	while ((p = tls_conn_take(l->conn, &n)) != NULL) {
		uv_buf_t buf = uv_buf_init(p, (unsigned)n);

		if (rc < 0 || uv_is_closing((uv_handle_t *)l->stream)) {
			free(p);
			continue;
		}
		w = xmalloc(sizeof *w);
		w->buf = p;
		if ((rc = uv_write(&w->req, l->stream, &buf, 1, tls_link_write_cb)) < 0) {
			free(p);
			free(w);
		}
	}
	return rc;
}

struct tls_link *
tls_link_create(uv_stream_t *stream, struct tls_client *cl, const char *host, int port)
{
	struct tls_link *l = xmalloc(sizeof *l);

	l->stream = stream;
	l->conn = tls_conn_client_create(cl, host, port);
	tls_link_flush(l);
	return l;
}

void
tls_link_free(struct tls_link *l)
{
	if (l == NULL)
		return;
	tls_conn_free(l->conn);
	free(l);
}

void
tls_link_alloc(struct tls_link *l, uv_buf_t *buf)
{
	*buf = uv_buf_init(l->rbuf, sizeof l->rbuf);
}

int
tls_link_read(struct tls_link *l, size_t n, struct framer *f, struct tls_error *err)
{
	char *base;
	size_t size, got;
	int r = tls_conn_feed(l->conn, l->rbuf, n, err);

	if (r < 0) {
		tls_link_flush(l); /* an alert may be waiting */
		return r;
	}
	do {
		framer_space(f, 4096, &base, &size);
		r = tls_conn_read(l->conn, base, size, &got, err);
		if (r == 1)
			framer_commit(f, got);
	} while (r == 1);
	tls_link_flush(l);
	return r;
}

int
tls_link_write(struct tls_link *l, const void *data, size_t n, struct tls_error *err)
{
	int r = tls_conn_write(l->conn, data, n, err);

	if (r < 0)
		return r;
	return tls_link_flush(l);
}

int
tls_link_trust(struct tls_link *l, struct tls_error *err)
{
	int r = tls_conn_trust(l->conn, err);

	tls_link_flush(l);
	return r;
}

void
tls_link_shutdown(struct tls_link *l)
{
	tls_conn_shutdown(l->conn);
	tls_link_flush(l);
}
