/*
 * store-pg-conn.c: the PostgreSQL backend (struct store_backend store_backend_postgresql) and
 * its writer's connection: opening (the URI parsed by libpq, connecting, the writer's advisory
 * lock, the schema, the session's settings and statements), the URI as messages show it (never
 * its password), the store error of each SQLSTATE, and the life of the connection on the loop
 * once start() gave it one: its socket watched by uv_poll, a lost connection noticed (every
 * ticket waiting fails with STORE_EUNAVAIL), and a new one sought by itself, without blocking the
 * loop (PQconnectStartParams / PQconnectPoll on the socket, a uv_timer for the backoff and the
 * time-out), which takes the lock and the settings again and says in the log when it is back.
 *
 * It owns the connection (PGconn) and the loop's handles, each in a struct of its own freed in
 * its close callback (store-pg-impl.h). Before start() every call is blocking (PQexec, or poll()
 * on the socket for a pipeline: store_pg_wait()); after it, nothing here blocks. It decides no
 * write and reads no row of the store: store-pg-write.c sends and answers the transactions.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>
#include <uv.h>

#include "log.h"
#include "store-pg.h"
#include "store-pg-impl.h"
#include "xmalloc.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#define STORE_PG_BACKOFF_FIRST_MS 100   /* the first attempt after a loss */
#define STORE_PG_BACKOFF_MAX_MS   5000  /* the longest wait between two attempts */
#define STORE_PG_CONNECT_MS       10000 /* an attempt that takes longer is given up */

/*
 * Which store error an SQLSTATE is: its class decides (a few codes within a class differ), never
 * the message. The kinds the turn pipeline tells apart (store-port.h): the database cannot be
 * reached or went away (a retry may hold: STORE_EUNAVAIL), it has no room (STORE_EFULL), or
 * another cause a retry may fix (STORE_EIO); the others stop the server.
 */
int
store_pg_sqlstate_code(const char *s)
{
	if (s == NULL || strlen(s) != 5)
		return STORE_EUNAVAIL; /* no answer of the server's: the connection */
	if (strcmp(s, STORE_PG_STATE_CONFLICT) == 0)
		return STORE_ECORRUPT;
	if (strcmp(s, STORE_PG_STATE_INVALID) == 0)
		return STORE_EINVAL;
	if (strcmp(s, STORE_PG_STATE_NOTFOUND) == 0)
		return STORE_ENOTFOUND;
	if (strcmp(s, "53300") == 0) /* too_many_connections: another time there may be room */
		return STORE_EUNAVAIL;
	if (strncmp(s, "08", 2) == 0 || /* connection exception */
	    strncmp(s, "57", 2) == 0 || /* operator intervention: shutdown, crash, cancel */
	    strncmp(s, "28", 2) == 0 || /* invalid authorization: a refused login */
	    strcmp(s, "3D000") == 0)    /* no such database */
		return STORE_EUNAVAIL;
	if (strncmp(s, "53", 2) == 0) /* insufficient resources: disk_full, out_of_memory */
		return STORE_EFULL;
	if (strncmp(s, "23", 2) == 0 || /* integrity constraint violation */
	    strncmp(s, "22", 2) == 0 || /* data exception */
	    strncmp(s, "54", 2) == 0)   /* program limit exceeded */
		return STORE_EINVAL;
	if (strncmp(s, "XX", 2) == 0 && strcmp(s, "XX000") != 0) /* data or index corrupted */
		return STORE_ECORRUPT;
	if (strncmp(s, "42", 2) == 0 && strcmp(s, "42501") != 0) /* a table or column missing */
		return STORE_ECORRUPT;
	return STORE_EIO; /* serialization, read-only, privileges, I/O, internal */
}

/* Copy libpq's message into buf, on one line (its newlines and runs of spaces one space). */
static void
one_line(const char *msg, char *buf, size_t size)
{
	size_t n = 0;

	if (msg == NULL || *msg == '\0')
		msg = "no answer";
	for (; *msg != '\0' && n + 1 < size; msg++) {
		int space = *msg == '\n' || *msg == '\r' || *msg == '\t' || *msg == ' ';
		if (space && (n == 0 || buf[n - 1] == ' '))
			continue;
		buf[n++] = space ? ' ' : *msg;
	}
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
}

/*
 * What the database server says on a connection besides its answers (a WARNING at an immediate
 * shutdown, a NOTICE): into the log as one line of ours, never libpq's own lines on stderr.
 */
static void
pg_notice(void *arg, const char *message)
{
	char line[256];

	(void)arg;
	one_line(message, line, sizeof line);
	log_write(strncmp(message, "NOTICE", 6) == 0 ? LOG_DEBUG : LOG_INFO,
	          "store: the database says: %s", line);
}

/* A new connection's notices go to the log (pg_notice()). */
void
store_pg_notices(PGconn *conn)
{
	if (conn != NULL)
		PQsetNoticeProcessor(conn, pg_notice, NULL);
}

int
store_pg_res_fail(const char *name, PGconn *conn, const PGresult *r, const char *what,
                  struct store_error *err)
{
	const char *state = r != NULL ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	const char *msg = r != NULL ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	char line[256];
	int code;

	if (msg == NULL)
		msg = r != NULL && *PQresultErrorMessage(r) != '\0' ? PQresultErrorMessage(r)
		                                                    : PQerrorMessage(conn);
	one_line(msg, line, sizeof line);
	if (r != NULL && state == NULL && PQresultStatus(r) != PGRES_FATAL_ERROR &&
	    PQstatus(conn) == CONNECTION_OK)
		return store_fail(err, STORE_EIO, "%s: %s: an answer not expected (%s)", name, what,
		                  PQresStatus(PQresultStatus(r)));
	code = store_pg_sqlstate_code(state);
	if (state == NULL)
		return store_fail(err, code, "%s: %s: %s", name, what, line);
	return store_fail(err, code, "%s: %s: %s (SQLSTATE %s)", name, what, line, state);
}

/*
 * The URI without its password, for the log: "postgresql://user:secret@host/db?password=x&..."
 * reads "postgresql://user@host/db?...", any password= parameter gone. Only the text is changed:
 * what the operator wrote stays as written. A keyword=value string (not a URI) is shown without
 * its password=... pair the same way.
 */
char *
store_pg_name(const char *uri)
{
	size_t len = strlen(uri);
	char *out = xmalloc(len + 1), *o = out;
	const char *p = uri, *sep = strstr(uri, "://"), *query;

	if (sep != NULL) {
		const char *auth = sep + 3, *end = auth + strcspn(auth, "/?#"), *at = NULL;
		for (const char *c = auth; c < end; c++)
			if (*c == '@')
				at = c;
		memcpy(o, uri, (size_t)(auth - uri));
		o += auth - uri;
		p = auth;
		if (at != NULL) {
			const char *colon = memchr(auth, ':', (size_t)(at - auth));
			size_t user = (size_t)((colon != NULL ? colon : at) - auth);
			memcpy(o, auth, user);
			o += user;
			p = at;
		}
		query = strchr(p, '?');
		if (query == NULL)
			query = uri + len;
		memcpy(o, p, (size_t)(query - p));
		o += query - p;
		p = query;
		/* the query: each key=value but password's */
		for (int first = 1; *p != '\0';) {
			const char *item = p + 1, *next = item + strcspn(item, "&");
			if (!(next - item >= 9 && strncmp(item, "password=", 9) == 0) &&
			    next > item) {
				*o++ = first ? '?' : '&';
				memcpy(o, item, (size_t)(next - item));
				o += next - item;
				first = 0;
			}
			p = next;
		}
		*o = '\0';
		return out;
	}
	/* keyword=value pairs, separated by spaces */
	while (*p != '\0') {
		const char *word = p + strspn(p, " \t\n"), *next = word;
		int quoted = 0;
		while (*next != '\0' &&
		       (quoted || (*next != ' ' && *next != '\t' && *next != '\n'))) {
			if (*next == '\\' && next[1] != '\0')
				next++;
			else if (*next == '\'')
				quoted = !quoted;
			next++;
		}
		if (next > word && strncmp(word, "password", 8) != 0) {
			if (o > out)
				*o++ = ' ';
			memcpy(o, word, (size_t)(next - word));
			o += next - word;
		}
		p = next;
	}
	*o = '\0';
	return out;
}

/*
 * The connection's keywords (keywords[i] = values[i]): our defaults first, then the URI
 * (dbname, expanded), which overrides them: a connection that hangs is given up, and a peer that
 * vanished without a word is noticed by TCP's keepalives within about half a minute.
 */
static const char *const conn_keys[] = {"connect_timeout",  "keepalives",
                                        "keepalives_idle",  "keepalives_interval",
                                        "keepalives_count", "fallback_application_name",
                                        "dbname",           NULL};
static const char *conn_values[] = {"10", "1", "10", "5", "3", "hokitod", NULL, NULL};

/* Whether uri parses as libpq's connection string or URI; else STORE_EINVAL with err. */
static int
uri_check(const char *uri, const char *name, struct store_error *err)
{
	char *msg = NULL;
	PQconninfoOption *opts = PQconninfoParse(uri, &msg);
	char line[200];

	if (opts != NULL) {
		PQconninfoFree(opts);
		return 0;
	}
	/* libpq's message may quote the text it could not read: not when it may hold a secret */
	one_line(msg, line, sizeof line);
	PQfreemem(msg);
	if (strcmp(name, uri) != 0)
		return store_fail(err, STORE_EINVAL, "%s: not a PostgreSQL URI libpq can read",
		                  name);
	return store_fail(err, STORE_EINVAL, "%s: not a PostgreSQL URI libpq can read (%s)", name,
	                  line);
}

int
store_pg_connect(const char *uri, const char *name, PGconn **out, struct store_error *err)
{
	const char *values[sizeof conn_values / sizeof conn_values[0]];
	char line[256];
	PGconn *conn;
	int rc;

	*out = NULL;
	if ((rc = uri_check(uri, name, err)) < 0)
		return rc;
	memcpy(values, conn_values, sizeof values);
	values[6] = uri;
	conn = PQconnectdbParams(conn_keys, values, 1);
	store_pg_notices(conn);
	if (conn == NULL)
		return store_fail(err, STORE_EUNAVAIL, "%s: cannot connect (no memory)", name);
	if (PQstatus(conn) != CONNECTION_OK) {
		one_line(PQerrorMessage(conn), line, sizeof line);
		PQfinish(conn);
		return store_fail(err, STORE_EUNAVAIL, "%s: cannot connect: %s", name, line);
	}
	if (PQserverVersion(conn) < 110000) {
		PQfinish(conn);
		return store_fail(err, STORE_EINVAL,
		                  "%s: PostgreSQL %d.%d; hokitod needs PostgreSQL 11 or newer",
		                  name, PQserverVersion(conn) / 10000,
		                  PQserverVersion(conn) / 100 % 100);
	}
	*out = conn;
	return 0;
}

int
store_pg_exec(PGconn *conn, const char *name, const char *sql, const char *what,
              struct store_error *err)
{
	PGresult *r = PQexec(conn, sql);
	int rc = 0;

	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		rc = store_pg_res_fail(name, conn, r, what, err);
	PQclear(r);
	return rc;
}

int
store_pg_int(PGconn *conn, const char *name, const char *sql, int64_t *out, struct store_error *err)
{
	PGresult *r = PQexec(conn, sql);
	int rc = 0;

	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		rc = store_pg_res_fail(name, conn, r, sql, err);
	else if (PQntuples(r) == 0)
		rc = store_fail(err, STORE_ENOTFOUND, "%s: %s: no row", name, sql);
	else
		*out = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return rc;
}

/* --- The loop's handles. */

static void
watch_close_cb(uv_handle_t *h)
{
	free(container_of((uv_poll_t *)h, struct store_pg_watch, poll));
}

/* Stop watching the socket (before libpq closes it: see watch_set()). */
static void
watch_close(struct store_pg *pg)
{
	struct store_pg_watch *w = pg->watch;

	if (w == NULL)
		return;
	pg->watch = NULL;
	w->pg = NULL;
	uv_close((uv_handle_t *)&w->poll, watch_close_cb);
}

static void watch_cb(uv_poll_t *h, int status, int events);

/*
 * Watch the connection's socket for events. While connecting, libpq may close its socket and
 * open another (the next address of the host), often under the same number: a watch stays on
 * one socket, so each step of the connection gets a new one (fresh), closed before libpq can
 * close the socket under it. Returns 0, or -1 (the socket cannot be watched).
 */
static int
watch_set(struct store_pg *pg, int events, int fresh)
{
	int fd = PQsocket(pg->conn);
	struct store_pg_watch *w = pg->watch;

	if (fd < 0)
		return -1;
	if (w != NULL && (fresh || w->fd != fd)) {
		watch_close(pg);
		w = NULL;
	}
	if (w == NULL) {
		w = xcalloc(1, sizeof *w);
		if (uv_poll_init(pg->loop, &w->poll, fd) < 0) {
			free(w);
			return -1;
		}
		w->pg = pg;
		w->fd = fd;
		pg->watch = w;
	} else if (w->events == events) {
		return 0;
	}
	w->events = events;
	return uv_poll_start(&w->poll, events, watch_cb) < 0 ? -1 : 0;
}

static void timer_cb(uv_timer_t *t);

static void
timer_close_cb(uv_handle_t *h)
{
	free(container_of((uv_timer_t *)h, struct store_pg_timer, timer));
}

/* (Re)arm the timer for ms. */
static void
timer_set(struct store_pg *pg, uint64_t ms)
{
	if (pg->timer_h != NULL)
		uv_timer_start(&pg->timer_h->timer, timer_cb, ms, 0);
}

/* --- Sending, waiting, losing. */

int
store_pg_flush(struct store_pg *pg)
{
	int rc = PQflush(pg->conn);

	if (rc < 0)
		return -1;
	if (pg->loop != NULL && watch_set(pg, UV_READABLE | (rc == 1 ? UV_WRITABLE : 0), 0) < 0)
		return -1;
	return 0;
}

void
store_pg_wait(struct store_pg *pg)
{
	while (pg->conn != NULL && pg->flight.kind != STORE_PG_FLIGHT_NONE) {
		struct pollfd p = {.fd = PQsocket(pg->conn), .events = POLLIN};
		int rc = PQflush(pg->conn);

		if (rc < 0) {
			store_pg_lost(pg, PQerrorMessage(pg->conn));
			return;
		}
		if (rc == 1)
			p.events |= POLLOUT;
		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			store_pg_lost(pg, strerror(errno));
			return;
		}
		if ((p.revents & (POLLIN | POLLERR | POLLHUP)) != 0) {
			if (!PQconsumeInput(pg->conn)) {
				store_pg_lost(pg, PQerrorMessage(pg->conn));
				return;
			}
			store_pg_results(pg);
		}
		if (pg->conn != NULL && PQstatus(pg->conn) == CONNECTION_BAD) {
			store_pg_lost(pg, PQerrorMessage(pg->conn));
			return;
		}
	}
}

/* The connection goes (the socket's watch first); nothing is in flight on it any more. */
static void
conn_drop(struct store_pg *pg)
{
	watch_close(pg);
	if (pg->conn != NULL)
		PQfinish(pg->conn);
	pg->conn = NULL;
	pg->flight.kind = STORE_PG_FLIGHT_NONE;
	pg->needs_rollback = 0;
	pg->lost_pending = 0;
	pg->state = STORE_PG_DOWN;
}

void
store_pg_lost(struct store_pg *pg, const char *why)
{
	struct store_error err;
	char line[200];

	if (pg->state == STORE_PG_DOWN || pg->state == STORE_PG_CONNECTING)
		return;
	one_line(why, line, sizeof line);
	store_fail(&err, STORE_EUNAVAIL, "%s: lost the connection to the database (%s)", pg->name,
	           line);
	conn_drop(pg);
	if (pg->loop == NULL) { /* before start(): the answer of what waited for it */
		pg->sync_rc = STORE_EUNAVAIL;
		pg->sync_err = err;
	} else {
		log_warn("store: %s; writes wait, reconnecting", err.text);
		pg->down_since = uv_now(pg->loop);
		pg->attempts = 0;
		pg->backoff_ms = STORE_PG_BACKOFF_FIRST_MS;
		timer_set(pg, pg->backoff_ms);
	}
	store_pg_fail_all(pg, STORE_EUNAVAIL, &err);
}

void
store_pg_lost_later(struct store_pg *pg)
{
	watch_close(pg); /* libpq may have closed the socket under it already */
	pg->lost_pending = 1;
	timer_set(pg, 0);
}

/* An attempt to connect failed (why; logged already at the error level: logged): the next one
 * after the backoff. */
static void
attempt_failed_as(struct store_pg *pg, const char *why, int logged)
{
	char line[200];

	one_line(why, line, sizeof line);
	conn_drop(pg);
	pg->attempts++;
	if (pg->attempts == 1 && !logged)
		log_warn("store: %s: cannot reconnect yet (%s); trying again", pg->name, line);
	else
		log_debug("store: %s: attempt %u to reconnect failed (%s)", pg->name, pg->attempts,
		          line);
	pg->backoff_ms = pg->backoff_ms * 2 > STORE_PG_BACKOFF_MAX_MS ? STORE_PG_BACKOFF_MAX_MS
	                                                              : pg->backoff_ms * 2;
	timer_set(pg, pg->backoff_ms);
}

static void
attempt_failed(struct store_pg *pg, const char *why)
{
	attempt_failed_as(pg, why, 0);
}

void
store_pg_setup_done(struct store_pg *pg, int rc, const struct store_error *err)
{
	if (rc == 0) {
		int was_down = pg->loop != NULL && pg->state == STORE_PG_SETUP && pg->down_since;

		pg->state = STORE_PG_READY;
		if (pg->timer_h != NULL)
			uv_timer_stop(&pg->timer_h->timer);
		if (was_down)
			log_info("store: %s: connected again after %.1f s, at attempt %u; "
			         "writes go on",
			         pg->name, (double)(uv_now(pg->loop) - pg->down_since) / 1000.0,
			         pg->attempts + 1);
		pg->refused = 0;
		pg->down_since = 0;
		store_pg_send_next(pg);
		return;
	}
	if (pg->loop == NULL) { /* open: its answer */
		pg->sync_rc = rc;
		pg->sync_err = *err;
		conn_drop(pg);
		return;
	}
	if (rc == STORE_ECONFLICT && !pg->refused)
		log_error("store: %s; this hokitod's writes are refused", err->text);
	else if (rc != STORE_ECONFLICT && rc != STORE_EUNAVAIL)
		log_error("store: %s", err->text);
	pg->refused = rc == STORE_ECONFLICT;
	attempt_failed_as(pg, err->text, rc != STORE_EUNAVAIL);
}

/* The next step of an attempt to connect (PQconnectPoll), on its socket's event. */
static void
connect_step(struct store_pg *pg)
{
	switch (PQconnectPoll(pg->conn)) {
	case PGRES_POLLING_READING:
		if (watch_set(pg, UV_READABLE, 1) < 0)
			attempt_failed(pg, "cannot watch its socket");
		return;
	case PGRES_POLLING_WRITING:
		if (watch_set(pg, UV_WRITABLE, 1) < 0)
			attempt_failed(pg, "cannot watch its socket");
		return;
	case PGRES_POLLING_FAILED:
		attempt_failed(pg, PQerrorMessage(pg->conn));
		return;
	case PGRES_POLLING_OK:
		break;
	case PGRES_POLLING_ACTIVE: /* not used by libpq any more */
		return;
	}
	if (PQsetnonblocking(pg->conn, 1) < 0 || watch_set(pg, UV_READABLE, 1) < 0) {
		attempt_failed(pg, PQerrorMessage(pg->conn));
		return;
	}
	pg->state = STORE_PG_SETUP;
	if (store_pg_setup_send(pg) < 0)
		attempt_failed(pg, PQerrorMessage(pg->conn));
}

/* Start an attempt to connect, without waiting (after start()). */
static void
connect_start(struct store_pg *pg)
{
	const char *values[sizeof conn_values / sizeof conn_values[0]];

	memcpy(values, conn_values, sizeof values);
	values[6] = pg->uri;
	pg->conn = PQconnectStartParams(conn_keys, values, 1);
	store_pg_notices(pg->conn);
	if (pg->conn == NULL || PQstatus(pg->conn) == CONNECTION_BAD) {
		attempt_failed(pg, pg->conn != NULL ? PQerrorMessage(pg->conn) : "no memory");
		return;
	}
	pg->state = STORE_PG_CONNECTING;
	timer_set(pg, STORE_PG_CONNECT_MS);
	if (watch_set(pg, UV_WRITABLE, 1) < 0)
		attempt_failed(pg, "cannot watch its socket");
}

static void
timer_cb(uv_timer_t *t)
{
	struct store_pg *pg = container_of(t, struct store_pg_timer, timer)->pg;

	if (pg == NULL)
		return;
	if (pg->lost_pending) {
		pg->lost_pending = 0;
		store_pg_lost(pg, pg->conn != NULL ? PQerrorMessage(pg->conn) : "a send failed");
		return;
	}
	if (pg->state == STORE_PG_DOWN && !pg->stopped)
		connect_start(pg);
	else if (pg->state == STORE_PG_CONNECTING || pg->state == STORE_PG_SETUP)
		attempt_failed(pg, "no answer in time");
}

static void
watch_cb(uv_poll_t *h, int status, int events)
{
	struct store_pg_watch *w = container_of(h, struct store_pg_watch, poll);
	struct store_pg *pg = w->pg;

	if (pg == NULL || pg->conn == NULL)
		return;
	if (pg->state == STORE_PG_CONNECTING) {
		connect_step(pg);
		return;
	}
	if (status < 0) {
		/* an error on the socket (libuv says EBADF for POLLERR): what the server said last
		 * (a FATAL on its way out) is read first, for the log */
		if (PQconsumeInput(pg->conn))
			store_pg_results(pg);
		if (pg->conn != NULL)
			store_pg_lost(pg, *PQerrorMessage(pg->conn) != '\0'
			                          ? PQerrorMessage(pg->conn)
			                          : uv_strerror(status));
		return;
	}
	if ((events & UV_WRITABLE) != 0 && store_pg_flush(pg) < 0) {
		store_pg_lost(pg, PQerrorMessage(pg->conn));
		return;
	}
	if ((events & UV_READABLE) != 0) {
		if (!PQconsumeInput(pg->conn)) {
			store_pg_lost(pg, PQerrorMessage(pg->conn));
			return;
		}
		store_pg_results(pg);
	}
	if (pg->conn != NULL && PQstatus(pg->conn) == CONNECTION_BAD)
		store_pg_lost(pg, PQerrorMessage(pg->conn));
}

/* --- The write port's start() and stop(): the loop. */

static int
pg_start(void *impl, struct uv_loop_s *loop, store_done_cb done, void *arg, struct store_error *err)
{
	struct store_pg *pg = impl;
	struct store_pg_timer *t;

	if (pg->loop != NULL)
		return store_fail(err, STORE_EINVAL, "%s: started already", pg->name);
	t = xcalloc(1, sizeof *t);
	if (uv_timer_init(loop, &t->timer) < 0) {
		free(t);
		return store_fail(err, STORE_EIO, "%s: cannot make a timer", pg->name);
	}
	t->pg = pg;
	pg->timer_h = t;
	pg->loop = loop;
	pg->done = done;
	pg->done_arg = arg;
	pg->stopped = 0;
	if (pg->state == STORE_PG_READY) {
		if (watch_set(pg, UV_READABLE, 1) < 0)
			store_pg_lost_later(pg);
	} else {
		pg->down_since = uv_now(loop);
		pg->backoff_ms = STORE_PG_BACKOFF_FIRST_MS;
		timer_set(pg, 0);
	}
	return 0;
}

static void
pg_stop(void *impl)
{
	struct store_pg *pg = impl;
	struct store_error err;

	if (pg->loop == NULL)
		return;
	pg->stopped = 1;
	if (pg->state != STORE_PG_READY)
		conn_drop(pg);
	store_fail(&err, STORE_EUNAVAIL, "%s: the store stopped before the answer", pg->name);
	/* what is in flight is answered by nobody now: the connection goes with it */
	if (pg->flight.kind != STORE_PG_FLIGHT_NONE)
		conn_drop(pg);
	store_pg_fail_all(pg, STORE_EUNAVAIL, &err);
	watch_close(pg);
	if (pg->timer_h != NULL) {
		pg->timer_h->pg = NULL;
		uv_close((uv_handle_t *)&pg->timer_h->timer, timer_close_cb);
		pg->timer_h = NULL;
	}
	pg->loop = NULL; /* commits are blocking again, durable at return */
	pg->done = NULL;
	if (pg->conn != NULL && PQpipelineStatus(pg->conn) != PQ_PIPELINE_OFF)
		PQexitPipelineMode(pg->conn);
}

/* --- The backend. */

static void pg_close(void *impl);

static int
pg_open(const char *target, const struct store_db_options *o, void **impl, struct store_error *err)
{
	struct store_pg *pg = xcalloc(1, sizeof *pg);
	char sql[128];
	int rc;

	*impl = NULL;
	pg->uri = xstrdup(target);
	pg->name = store_pg_name(target);
	pg->opts = *o;
	pg->state = STORE_PG_DOWN;
	TAILQ_INIT(&pg->queue);
	strmap_init(&pg->live, 0); /* the keys are our own game ids: no secret seed needed */
	if ((rc = store_pg_connect(pg->uri, pg->name, &pg->conn, err)) < 0)
		goto fail;
	/* the writer's lock first: a hokitod running on the store keeps it, and a newer one
	 * starting beside it must not migrate the schema under it */
	if (o->writer) {
		int64_t locked = 0;
		snprintf(sql, sizeof sql,
		         "SELECT pg_try_advisory_lock(%d, hashtext(current_schema()))::int",
		         STORE_PG_LOCK_WRITER);
		if ((rc = store_pg_int(pg->conn, pg->name, sql, &locked, err)) < 0)
			goto fail;
		if (!locked) {
			rc = store_fail(err, STORE_ECONFLICT,
			                "%s: in use by another hokitod (it holds the store's "
			                "lock); one server per store",
			                pg->name);
			goto fail;
		}
	}
	if ((rc = store_pg_schema_open(pg->conn, pg->name, o, &pg->version, err)) < 0)
		goto fail;
	pg->made = rc == 1;
	if (PQsetnonblocking(pg->conn, 1) < 0) {
		rc = store_pg_res_fail(pg->name, pg->conn, NULL, "setting up", err);
		goto fail;
	}
	pg->state = STORE_PG_SETUP;
	pg->sync_rc = 0;
	if (store_pg_setup_send(pg) < 0) {
		rc = store_pg_res_fail(pg->name, pg->conn, NULL, "setting up", err);
		goto fail;
	}
	store_pg_wait(pg);
	if (pg->state != STORE_PG_READY) {
		rc = pg->sync_rc < 0 ? pg->sync_rc : STORE_EUNAVAIL;
		if (err != NULL)
			*err = pg->sync_rc < 0 ? pg->sync_err
			                       : (struct store_error){STORE_EUNAVAIL, "lost"};
		goto fail;
	}
	if (!o->writer && (rc = store_pg_moment_begin(pg, err)) < 0)
		goto fail;
	*impl = pg;
	return 0;
fail:
	pg_close(pg);
	return rc;
}

static void
pg_close(void *impl)
{
	struct store_pg *pg = impl;

	if (pg == NULL)
		return;
	pg_stop(pg);
	/* the lock goes now, not when the server notices the session is gone a moment later:
	 * a store closed may be opened again at once (blocking: the loop has stopped) */
	if (pg->conn != NULL && PQstatus(pg->conn) == CONNECTION_OK &&
	    (PQpipelineStatus(pg->conn) == PQ_PIPELINE_OFF || PQexitPipelineMode(pg->conn) == 1))
		PQclear(PQexec(pg->conn, PQtransactionStatus(pg->conn) == PQTRANS_IDLE
		                                 ? "SELECT pg_advisory_unlock_all()"
		                                 : "ROLLBACK; SELECT pg_advisory_unlock_all()"));
	conn_drop(pg); /* what was not committed goes with the session */
	store_pg_write_clear(pg);
	strmap_close(&pg->live);
	free(pg->uri);
	free(pg->name);
	free(pg);
}

static const char *
pg_display(const void *impl)
{
	return ((const struct store_pg *)impl)->name;
}

static int
pg_schema(const void *impl)
{
	return ((const struct store_pg *)impl)->version;
}

static int
pg_is_temporary(const void *impl)
{
	(void)impl;
	return 0;
}

static void
pg_write_port(void *impl, struct store_write_port *out)
{
	store_pg_write_port(impl, out);
	out->is_temporary = pg_is_temporary;
	out->start = pg_start;
	out->stop = pg_stop;
}

static void
pg_admin_path(const char *target, char *buf, size_t size)
{
	(void)target;
	if (size > 0)
		buf[0] = '\0'; /* no file to put it beside: hokitod's state directory decides */
}

const struct store_backend store_backend_postgresql = {
        .name = "postgresql",
        .open = pg_open,
        .close = pg_close,
        .discard = store_pg_discard,
        .display = pg_display,
        .schema = pg_schema,
        .is_temporary = pg_is_temporary,
        .write_port = pg_write_port,
        .reader_open = store_pg_reader_open,
        .check = store_pg_check,
        .admin_path = pg_admin_path,
};
