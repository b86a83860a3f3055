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

int
tls_link_url(const char *arg, char *host, size_t size, int *port)
{
	const char *h = arg + strlen(TLS_LINK_SCHEME), *end, *colon;
	size_t n;

	if (strncmp(arg, TLS_LINK_SCHEME, strlen(TLS_LINK_SCHEME)) != 0)
		return 0;
	if (h[0] == '[') {
		end = strchr(h, ']');
		if (end == NULL)
			return -1;
		n = (size_t)(end - h - 1);
		h++;
		colon = end[1] == ':' ? end + 1 : (end[1] == '\0' ? NULL : end);
		if (colon == end)
			return -1;
	} else {
		colon = strchr(h, ':');
		n = colon != NULL ? (size_t)(colon - h) : strlen(h);
	}
	if (n == 0 || n >= size)
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	if (colon != NULL) {
		char *e;
		long p = strtol(colon + 1, &e, 10);

		if (colon[1] < '0' || colon[1] > '9' || *e != '\0' || p < 1 || p > 65535)
			return -1;
		*port = (int)p;
	}
	return 1;
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
