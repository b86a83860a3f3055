/*
 * tls-peer.c: a small libuv TLS peer built on protocol/tls.h, for the interoperability test with
 * `openssl s_server` and `openssl s_client` (test-tls-interop.py), and the reference of how a libuv
 * program drives the engine: feed in the read callback, drain plaintext into a framer, take
 * ciphertext into write requests that own their buffer, a deadline on the handshake.
 *
 *   tls-peer serve CERT KEY [HANDSHAKE_MS]
 *       listen on 127.0.0.1, port chosen by the OS, printed as "port N"; answer each line L of
 *       each connection with "echo L"; on "quit" shut TLS down and close that connection. Each
 *       connection's handshake is printed as "open: VERSION alpn=PROTOCOL". A
 *       connection not open within HANDSHAKE_MS (default 2000) is closed. Each connection's end
 *       is printed as "closed: REASON". Runs until killed.
 *   tls-peer connect HOST PORT [--ca FILE] [--pins FILE] [--accept-new] [--insecure]
 *       [--send LINE] [--lines N]
 *       connect, send LINE, print each line received until N of them came (default 1), then close.
 *       Prints "ask: TEXT" and exits 3 for an unknown server without --accept-new, "error: TEXT"
 *       and exits 1 on any failure. Gives up after 5 s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "framer.h"
#include "tls.h"
#include "xmalloc.h"

#define container_of(p, type, member) ((type *)((char *)(p)-offsetof(type, member)))

struct peer {
	uv_tcp_t tcp;         /* the socket; the peer is freed in its close callback */
	uv_timer_t timer;     /* the handshake deadline (serve) or the whole run (connect) */
	struct tls_conn *tls; /* owned */
	struct framer in;     /* plaintext received, cut into lines */
	int closing;          /* closed or closing: ignore further input */
	int handles;          /* handles still open (tcp, timer) */
};

static struct tls_server *server;
static struct tls_client *client;
static const char *send_line;
static int lines_wanted = 1, lines_seen, accept_new, exit_code = 1;
static const char *connect_host;
static int connect_port;

static void
peer_closed_cb(uv_handle_t *h)
{
	struct peer *p = h->data;

	if (--p->handles > 0)
		return;
	tls_conn_free(p->tls);
	framer_close(&p->in);
	free(p);
}

static void
write_cb(uv_write_t *req, int status)
{
	free(req->data);
	free(req);
}

/* Write every ciphertext byte the engine has: each request owns its buffer. */
static void
peer_flush(struct peer *p)
{
	size_t n;
	char *buf;

	if (p->tls == NULL)
		return;
	while ((buf = tls_conn_take(p->tls, &n)) != NULL) {
		uv_write_t *req = xmalloc(sizeof *req);
		uv_buf_t b = uv_buf_init(buf, (unsigned)n);

		req->data = buf;
		if (uv_write(req, (uv_stream_t *)&p->tcp, &b, 1, write_cb) < 0) {
			free(buf);
			free(req);
		}
	}
}

static void
shutdown_cb(uv_shutdown_t *req, int status)
{
	struct peer *p = req->data;

	free(req);
	uv_close((uv_handle_t *)&p->timer, peer_closed_cb);
	uv_close((uv_handle_t *)&p->tcp, peer_closed_cb);
}

/*
 * Close the connection (once), saying why: what the engine still has (an alert, close_notify) is
 * written first, and the socket closed once the writes are done (uv_shutdown).
 */
static void
peer_close(struct peer *p, const char *why)
{
	uv_shutdown_t *req = xmalloc(sizeof *req);

	if (p->closing) {
		free(req);
		return;
	}
	p->closing = 1;
	printf("closed: %s\n", why);
	fflush(stdout);
	peer_flush(p);
	uv_read_stop((uv_stream_t *)&p->tcp);
	uv_timer_stop(&p->timer);
	req->data = p;
	if (uv_shutdown(req, (uv_stream_t *)&p->tcp, shutdown_cb) < 0)
		shutdown_cb(req, 0);
}

/* Send a plaintext line. */
static void
peer_send(struct peer *p, const char *line)
{
	struct tls_error err;
	char buf[1024];

	snprintf(buf, sizeof buf, "%s\n", line);
	if (tls_conn_write(p->tls, buf, strlen(buf), &err) < 0)
		peer_close(p, err.text);
}

/* One whole line received. */
static void
peer_line(struct peer *p, const char *line)
{
	char buf[1024];

	if (server == NULL) {
		printf("%s\n", line);
		fflush(stdout);
		if (++lines_seen >= lines_wanted) {
			exit_code = 0;
			tls_conn_shutdown(p->tls);
			peer_close(p, "done");
		}
		return;
	}
	if (strcmp(line, "quit") == 0) {
		tls_conn_shutdown(p->tls);
		peer_close(p, "quit");
		return;
	}
	snprintf(buf, sizeof buf, "echo %s", line);
	peer_send(p, buf);
}

static void
alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	static char space[65536];

	*buf = uv_buf_init(space, sizeof space);
}

/* The read path: ciphertext in, plaintext lines out, then whatever must be written. */
static void
read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct peer *p = container_of((uv_tcp_t *)s, struct peer, tcp);
	struct tls_error err;
	const char *line;
	size_t len;
	int r;

	if (p->closing)
		return;
	if (nread < 0) {
		peer_close(p, nread == UV_EOF ? "end of stream" : uv_strerror((int)nread));
		return;
	}
	r = tls_conn_feed(p->tls, buf->base, (size_t)nread, &err);
	if (r == TLS_ENEWHOST) {
		printf("ask: %s\n", err.text);
		fflush(stdout);
		if (!accept_new) {
			exit_code = 3;
			peer_close(p, "not accepted");
			return;
		}
		r = tls_conn_trust(p->tls, &err);
	}
	if (r < 0) {
		if (server == NULL)
			printf("error: %s\n", err.text);
		peer_close(p, err.text);
		return;
	}
	if (tls_conn_is_open(p->tls) && server != NULL && uv_is_active((uv_handle_t *)&p->timer)) {
		uv_timer_stop(&p->timer); /* the handshake deadline is met */
		printf("open: %s alpn=%s\n", tls_conn_version(p->tls), tls_conn_alpn(p->tls));
		fflush(stdout);
	}
	if (tls_conn_is_open(p->tls) && server == NULL && lines_wanted == 0) {
		exit_code = 0; /* --lines 0: connecting was all */
		tls_conn_shutdown(p->tls);
		peer_close(p, "done");
		return;
	}
	for (;;) {
		char *base;
		size_t size, got;

		framer_space(&p->in, 4096, &base, &size);
		r = tls_conn_read(p->tls, base, size, &got, &err);
		if (r != 1)
			break;
		framer_commit(&p->in, got);
	}
	while (!p->closing && framer_next(&p->in, &line, &len) == 1)
		peer_line(p, line);
	if (p->closing)
		return;
	if (r < 0) {
		peer_close(p, err.text);
		return;
	}
	peer_flush(p);
}

static void
deadline_cb(uv_timer_t *t)
{
	struct peer *p = container_of(t, struct peer, timer);

	if (server == NULL)
		printf("error: no answer in time\n");
	peer_close(p, "deadline");
}

static struct peer *
peer_new(uv_loop_t *loop)
{
	struct peer *p = xcalloc(1, sizeof *p);

	uv_tcp_init(loop, &p->tcp);
	uv_timer_init(loop, &p->timer);
	p->tcp.data = p->timer.data = p;
	p->handles = 2;
	framer_init(&p->in, 65536);
	return p;
}

static void
connection_cb(uv_stream_t *listener, int status)
{
	struct peer *p = peer_new(listener->loop);
	uint64_t ms = (uint64_t)(uintptr_t)listener->data;

	if (status < 0 || uv_accept(listener, (uv_stream_t *)&p->tcp) < 0) {
		p->tls = NULL;
		peer_close(p, "accept failed");
		return;
	}
	p->tls = tls_conn_server_create(server);
	uv_timer_start(&p->timer, deadline_cb, ms, 0);
	uv_read_start((uv_stream_t *)&p->tcp, alloc_cb, read_cb);
}

static void
connect_cb(uv_connect_t *req, int status)
{
	struct peer *p = req->data;

	free(req);
	if (status < 0) {
		printf("error: %s\n", uv_strerror(status));
		peer_close(p, "connect failed");
		return;
	}
	p->tls = tls_conn_client_create(client, connect_host, connect_port);
	if (send_line)
		peer_send(p, send_line); /* held until the server is trusted */
	peer_flush(p);                   /* the ClientHello */
	uv_read_start((uv_stream_t *)&p->tcp, alloc_cb, read_cb);
}

static int
serve(uv_loop_t *loop, int argc, char **argv)
{
	struct tls_server_config cfg = {argv[2], argv[3], NULL};
	static uv_tcp_t listener;
	struct sockaddr_in addr;
	struct sockaddr_storage got;
	struct tls_error err;
	int len = sizeof got;
	long ms = argc > 4 ? atol(argv[4]) : 2000;

	if (tls_server_create(&server, &cfg, &err) < 0) {
		fprintf(stderr, "tls-peer: %s\n", err.text);
		return 1;
	}
	uv_ip4_addr("127.0.0.1", 0, &addr);
	uv_tcp_init(loop, &listener);
	listener.data = (void *)(uintptr_t)ms;
	if (uv_tcp_bind(&listener, (struct sockaddr *)&addr, 0) < 0 ||
	    uv_listen((uv_stream_t *)&listener, 16, connection_cb) < 0)
		return 1;
	uv_tcp_getsockname(&listener, (struct sockaddr *)&got, &len);
	printf("port %d\n", ntohs(((struct sockaddr_in *)&got)->sin_port));
	fflush(stdout);
	return uv_run(loop, UV_RUN_DEFAULT);
}

static int
connect_to(uv_loop_t *loop, int argc, char **argv)
{
	struct tls_client_config cfg = {0};
	struct tls_error err;
	struct sockaddr_storage addr;
	uv_connect_t *req = xmalloc(sizeof *req);
	struct peer *p;

	connect_host = argv[2];
	connect_port = atoi(argv[3]);
	for (int i = 4; i < argc; i++) {
		if (strcmp(argv[i], "--ca") == 0 && i + 1 < argc)
			cfg.ca_file = argv[++i];
		else if (strcmp(argv[i], "--pins") == 0 && i + 1 < argc)
			cfg.pins_file = argv[++i];
		else if (strcmp(argv[i], "--send") == 0 && i + 1 < argc)
			send_line = argv[++i];
		else if (strcmp(argv[i], "--lines") == 0 && i + 1 < argc)
			lines_wanted = atoi(argv[++i]);
		else if (strcmp(argv[i], "--accept-new") == 0)
			accept_new = 1;
		else if (strcmp(argv[i], "--insecure") == 0)
			cfg.insecure = 1;
	}
	if (tls_client_create(&client, &cfg, &err) < 0) {
		printf("error: %s\n", err.text);
		return 1;
	}
	if (uv_ip4_addr(connect_host, connect_port, (struct sockaddr_in *)&addr) < 0 &&
	    uv_ip4_addr("127.0.0.1", connect_port, (struct sockaddr_in *)&addr) < 0)
		return 1; /* a name is reached on 127.0.0.1: this is a loopback test tool */
	p = peer_new(loop);
	req->data = p;
	uv_timer_start(&p->timer, deadline_cb, 5000, 0);
	uv_tcp_connect(req, &p->tcp, (struct sockaddr *)&addr, connect_cb);
	uv_run(loop, UV_RUN_DEFAULT);
	tls_client_free(client);
	return exit_code;
}

int
main(int argc, char **argv)
{
	uv_loop_t *loop = uv_default_loop();

	if (argc >= 4 && strcmp(argv[1], "serve") == 0)
		return serve(loop, argc, argv);
	if (argc >= 4 && strcmp(argv[1], "connect") == 0)
		return connect_to(loop, argc, argv);
	fprintf(stderr, "usage: tls-peer serve CERT KEY [MS] | connect HOST PORT [options]\n");
	return 2;
}
