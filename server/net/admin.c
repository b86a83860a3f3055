/*
 * admin.c: the admin channel (admin.h): a libuv pipe listener on a Unix socket, its connections,
 * their lines and the answers held until their turn is durable. Each connection embeds its
 * uv_pipe_t and is freed in its close callback; a write request owns the line it writes. A
 * connection has at most one request out: it stops reading until the answer is written, so its
 * answers keep the order of its requests and its input stays bounded (ADMIN_LINE_MAX). It never
 * looks inside a request: that is the request callback's (node.c, operators.h).
 */
#define _GNU_SOURCE /* struct ucred */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "admin.h"
#include "log.h"
#include "xmalloc.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#define ADMIN_CONNS_MAX 16 /* connections at once; more are closed at once */

struct admin_conn {
	uv_pipe_t pipe; /* the connection; pipe.data points back here */
	struct admin *ad;
	char *in;        /* input not yet handled (owned), at most ADMIN_LINE_MAX bytes */
	size_t nin;      /* its bytes */
	uint64_t ticket; /* the request out, 0 when none */
	json_t *answer;  /* its answer, held until answer_turn is released (owned) */
	uint64_t answer_turn;
	int closing;
	LIST_ENTRY(admin_conn) link;
};

struct admin {
	uv_loop_t *loop;
	uv_pipe_t listener;
	admin_request_cb request;
	void *arg;
	char *path;        /* the socket file (owned) */
	uint64_t tickets;  /* the last request's number */
	uint64_t released; /* answers of turns up to this one may be written */
	unsigned nconns;
	int closed;
	LIST_HEAD(, admin_conn) conns;
};

/* A write of one line; the request owns it, freed in the write callback. */
struct admin_write {
	uv_write_t req;
	int close_after; /* the connection closes once it is written */
	char line[];
};

static void admin_conn_input(struct admin_conn *c);

static void
admin_conn_close_cb(uv_handle_t *h)
{
	struct admin_conn *c = h->data;

	json_decref(c->answer);
	free(c->in);
	free(c);
}

/* Close c (not from inside libuv's use of its handle: libuv defers the callback). */
static void
admin_conn_close(struct admin_conn *c)
{
	if (c->closing)
		return;
	c->closing = 1;
	LIST_REMOVE(c, link);
	c->ad->nconns--;
	uv_close((uv_handle_t *)&c->pipe, admin_conn_close_cb);
}

static void
admin_write_cb(uv_write_t *req, int status)
{
	struct admin_write *w = container_of(req, struct admin_write, req);
	struct admin_conn *c = req->handle->data;

	if (status < 0 || w->close_after)
		admin_conn_close(c);
	free(w);
}

/* Write o (stolen) as one line to c; then close c if close_after. */
static void
admin_conn_write(struct admin_conn *c, json_t *o, int close_after)
{
	char *text = json_dumps(o, JSON_COMPACT);
	size_t n = text != NULL ? strlen(text) : 0;
	struct admin_write *w = xmalloc(sizeof *w + n + 2);
	uv_buf_t buf;

	json_decref(o);
	memcpy(w->line, text != NULL ? text : "", n);
	free(text);
	w->line[n] = '\n';
	w->close_after = close_after;
	buf = uv_buf_init(w->line, (unsigned)n + 1);
	if (uv_write(&w->req, (uv_stream_t *)&c->pipe, &buf, 1, admin_write_cb) < 0) {
		free(w);
		admin_conn_close(c);
	}
}

/* Refuse c with an error line (code, sentence), then close it. */
static void
admin_conn_refuse(struct admin_conn *c, const char *code, const char *text)
{
	uv_read_stop((uv_stream_t *)&c->pipe);
	admin_conn_write(
	        c, json_pack("{s:s, s:s, s:s}", "type", "error", "code", code, "text", text), 1);
}

/* Hand c's whole lines up, one request at a time; read on once none is out. */
static void
admin_conn_input(struct admin_conn *c)
{
	char *nl;

	while (!c->closing && c->ticket == 0 && (nl = memchr(c->in, '\n', c->nin)) != NULL) {
		size_t len = (size_t)(nl - c->in);
		json_error_t jerr;
		/* a number beyond 64 bits, a key twice: refused here, with jansson's reason */
		json_t *req = json_loadb(c->in, len, JSON_REJECT_DUPLICATES, &jerr);
		char text[JSON_ERROR_TEXT_LENGTH + 64];

		memmove(c->in, nl + 1, c->nin - len - 1);
		c->nin -= len + 1;
		if (!json_is_object(req)) {
			if (req == NULL)
				snprintf(text, sizeof text,
				         "a request is a JSON object: %s (column %d)", jerr.text,
				         jerr.column);
			else
				snprintf(text, sizeof text, "a request is a JSON object");
			json_decref(req);
			admin_conn_write(c,
			                 json_pack("{s:s, s:s, s:s}", "type", "error", "code",
			                           "bad_json", "text", text),
			                 0);
			continue;
		}
		c->ticket = ++c->ad->tickets;
		c->ad->request(c->ad->arg, c->ticket, req);
		json_decref(req);
	}
	if (c->closing)
		return;
	if (c->ticket != 0)
		uv_read_stop((uv_stream_t *)&c->pipe);
}

static void
admin_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct admin_conn *c = h->data;

	(void)suggested;
	/* room for the longest line and its newline, in the connection's own buffer */
	*buf = uv_buf_init(c->in + c->nin, (unsigned)(ADMIN_LINE_MAX + 1 - c->nin));
}

static void
admin_read_cb(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	struct admin_conn *c = stream->data;

	(void)buf;
	if (nread < 0) {
		admin_conn_close(c); /* EOF or an error: an answer still out is dropped */
		return;
	}
	c->nin += (size_t)nread;
	if (memchr(c->in, '\n', c->nin) == NULL && c->nin > ADMIN_LINE_MAX) {
		admin_conn_refuse(c, "line_too_long", "a request line is at most 65536 bytes");
		return;
	}
	admin_conn_input(c);
}

/*
 * Whether c's peer may give orders: root, or the server's own user (SO_PEERCRED). The socket's
 * mode 0600 already keeps others out; this holds even where a file's mode is not enforced on
 * connect, or the file was made elsewhere.
 */
static int
admin_peer_allowed(struct admin_conn *c)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	uv_os_fd_t fd;

	if (uv_fileno((uv_handle_t *)&c->pipe, &fd) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return 0;
	return cred.uid == 0 || cred.uid == geteuid();
}

static void
admin_connection_cb(uv_stream_t *server, int status)
{
	struct admin *ad = server->data;
	struct admin_conn *c;

	if (status < 0 || ad->closed)
		return;
	c = xcalloc(1, sizeof *c);
	c->ad = ad;
	c->in = xmalloc(ADMIN_LINE_MAX + 1);
	uv_pipe_init(ad->loop, &c->pipe, 0);
	c->pipe.data = c;
	LIST_INSERT_HEAD(&ad->conns, c, link);
	ad->nconns++;
	if (uv_accept(server, (uv_stream_t *)&c->pipe) < 0) {
		admin_conn_close(c);
		return;
	}
	if (!admin_peer_allowed(c)) {
		log_warn("admin socket: a connection of another user refused");
		admin_conn_refuse(c, "permission_denied",
		                  "only root and the server's own user give it orders");
		return;
	}
	if (ad->nconns > ADMIN_CONNS_MAX) {
		admin_conn_refuse(c, "busy", "too many admin connections; try again");
		return;
	}
	uv_read_start((uv_stream_t *)&c->pipe, admin_alloc_cb, admin_read_cb);
}

/*
 * Whether a server answers on the socket file at path: then it is not ours to replace. A file
 * that is not a socket is not ours either (UV_EEXIST). Else a stale socket is removed. Returns 0
 * or a negative libuv error.
 */
static int
admin_path_claim(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	struct stat sb;
	int fd, rc;

	if (lstat(path, &sb) < 0)
		return errno == ENOENT ? 0 : uv_translate_sys_error(errno);
	if (!S_ISSOCK(sb.st_mode))
		return UV_EEXIST;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return uv_translate_sys_error(errno);
	rc = connect(fd, (struct sockaddr *)&sun, sizeof sun);
	close(fd);
	if (rc == 0)
		return UV_EADDRINUSE;
	log_info("admin socket %s: removing the one a stopped server left", path);
	if (unlink(path) < 0 && errno != ENOENT)
		return uv_translate_sys_error(errno);
	return 0;
}

/* A listener that could not start: freed with its channel. */
static void
admin_listener_free_cb(uv_handle_t *h)
{
	admin_free(h->data);
}

int
admin_create(uv_loop_t *loop, const char *path, admin_request_cb request, void *arg,
             struct admin **out)
{
	struct sockaddr_un sun;
	struct admin *ad;
	mode_t old;
	int rc;

	if (strlen(path) >= sizeof sun.sun_path)
		return UV_ENAMETOOLONG;
	if ((rc = admin_path_claim(path)) < 0)
		return rc;
	ad = xcalloc(1, sizeof *ad);
	ad->loop = loop;
	ad->request = request;
	ad->arg = arg;
	ad->path = xstrdup(path);
	LIST_INIT(&ad->conns);
	uv_pipe_init(loop, &ad->listener, 0);
	ad->listener.data = ad;
	old = umask(0177); /* made 0600: the server's user alone (and root) */
	rc = uv_pipe_bind(&ad->listener, path);
	umask(old);
	if (rc == 0 && chmod(path, 0600) < 0)
		rc = uv_translate_sys_error(errno);
	if (rc == 0)
		rc = uv_listen((uv_stream_t *)&ad->listener, 16, admin_connection_cb);
	if (rc < 0) {
		uv_close((uv_handle_t *)&ad->listener, admin_listener_free_cb);
		*out = NULL;
		return rc;
	}
	*out = ad;
	return 0;
}

/* Write c's answer if its turn is released; then the next request may come. */
static void
admin_conn_flush(struct admin_conn *c)
{
	json_t *answer = c->answer;

	if (answer == NULL || c->answer_turn > c->ad->released)
		return;
	c->answer = NULL;
	c->ticket = 0;
	admin_conn_write(c, answer, 0);
	admin_conn_input(c);
	if (!c->closing && c->ticket == 0)
		uv_read_start((uv_stream_t *)&c->pipe, admin_alloc_cb, admin_read_cb);
}

void
admin_reply(struct admin *ad, uint64_t ticket, json_t *answer, uint64_t turn)
{
	struct admin_conn *c;

	LIST_FOREACH(c, &ad->conns, link)
	if (c->ticket == ticket && c->answer == NULL) {
		c->answer = answer;
		c->answer_turn = turn;
		return;
	}
	json_decref(answer); /* its connection is gone */
}

void
admin_release(struct admin *ad, uint64_t turn)
{
	struct admin_conn *c, *next;

	if (turn > ad->released)
		ad->released = turn;
	for (c = LIST_FIRST(&ad->conns); c != NULL; c = next) {
		next = LIST_NEXT(c, link);
		admin_conn_flush(c);
	}
}

void
admin_close(struct admin *ad)
{
	if (ad == NULL || ad->closed)
		return;
	ad->closed = 1;
	while (!LIST_EMPTY(&ad->conns))
		admin_conn_close(LIST_FIRST(&ad->conns));
	uv_close((uv_handle_t *)&ad->listener, NULL);
	if (unlink(ad->path) < 0 && errno != ENOENT)
		log_warn("cannot remove the admin socket %s: %s", ad->path, strerror(errno));
}

void
admin_free(struct admin *ad)
{
	if (ad == NULL)
		return;
	free(ad->path);
	free(ad);
}
