/*
 * loadgen.c: the load generator of tests/bench/: drives hokitod and Redis with the same client.
 *
 *   loadgen MODE --port PORT [--host 127.0.0.1|::1] [options]
 *
 * Modes (see usage() for the options of each):
 *   hokito       N connections paired into games (one creates, the other joins), playing real
 *                games with random legal moves taken from your_turn, one request outstanding per
 *                connection, as fast as the server answers; a finished game is followed by a new
 *                one. Optional spectators watch the pairs' games (round robin).
 *   spectate     G games (default 1) watched by S spectators: move events delivered per second.
 *   idle         N connections that say hello and then hold still (server memory per connection).
 *   redis-ping   N connections sending inline PING, one at a time each.
 *   redis-set    N connections sending SET (RESP), one at a time each.
 *   redis-pubsub S subscribers of one channel, one publisher sending PUBLISH one at a time.
 *   redis-relay  N connections in pairs, a subscriber and a publisher on a channel of their own,
 *                the publisher sending PUBLISH one at a time: Redis doing the work of a move
 *                (one request in, a reply to its sender and a message to one other connection,
 *                one request in flight for every two connections).
 *   redis-idle   N connections that send nothing.
 *   ping         N connections that say hello, then send ping after ping, one at a time each:
 *                the round trip of the cheapest request (a client's latency under a load
 *                that other loadgens make).
 *   http         N connections to hokitod's HTTP port (--listen-http), each sending GET after
 *                GET on one keep-alive connection, one at a time, going round the --path list.
 *
 * Every mode first sets its connections up (at most --burst at once, so the server's accept
 * backlog never overflows), then measures for --seconds (or until --count operations), prints
 * one line of key=value figures on stdout and exits: 0 when the run was clean, 3 when some
 * requests were refused or connections lost (the line is printed anyway), 1 when the set-up
 * failed, 2 on a usage error. Round trips (request sent to its reply read) and deliveries (move
 * sent to the event read by a spectator) go into log-linear histograms of about 3% resolution.
 * Lines are split by the protocol's framer for both servers (RESP replies are lines too). With
 * --pid the server's RSS and CPU time are read from /proc around the measurement.
 *
 * It owns every connection and frees it in the close callback of its TCP handle; write requests
 * own a copy of what they write. It only ever connects to the loopback address.
 *
 * --ws speaks the protocol over WebSocket (hokitod's GET /ws on its --listen-http port) in the
 * hokito, spectate, idle and ping modes: the upgrade, then each line a masked text frame, and
 * each text frame from the server a line.
 *
 * --tls speaks TLS on every connection (hokitod's --listen-tls, Redis's --tls-port), through the
 * client side of the engine (client/tls-link.h) without checking the certificate: a load
 * generator on the loopback measures the cost of the encryption, not who the server is. The
 * handshake is part of each connection's set-up, outside the measurement.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <unistd.h>

#include <uv.h>

#include "game.h"
#include "protocol.h"
#include "rng.h"
#include "tls-link.h"
#include "xmalloc.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#define LG_MAX_LINE  (1u << 20) /* the longest line we accept from a server */
#define LG_READ_MIN  16384      /* room offered to each read */
#define LG_RING      1024       /* send times kept per game, indexed by seq */
#define LG_CHANNEL   "lgch"     /* the Redis pub/sub channel */
#define LG_SHOW_ERRS 5          /* refusals printed on stderr */

#define HIST_SUB     5 /* 2^5 sub-buckets per power of two: about 3% resolution */
#define HIST_BUCKETS ((64 - HIST_SUB) * (1 << HIST_SUB) + (2 << HIST_SUB))

enum lg_mode {
	MODE_HOKITO,
	MODE_SPECTATE,
	MODE_IDLE,
	MODE_REDIS_PING,
	MODE_REDIS_SET,
	MODE_REDIS_PUBSUB,
	MODE_REDIS_RELAY,
	MODE_REDIS_IDLE,
	MODE_PING,
	MODE_HTTP,
};

static const char *const mode_names[] = {
        "hokito",       "spectate",    "idle",       "redis-ping", "redis-set",
        "redis-pubsub", "redis-relay", "redis-idle", "ping",       "http",
};

enum lg_role {
	ROLE_CREATOR,    /* hokito: creates each game of its pair */
	ROLE_JOINER,     /* hokito: joins the game its partner created */
	ROLE_SPECTATOR,  /* hokito: watches its pair's games */
	ROLE_IDLE,       /* hello (hokitod) or nothing (Redis), then still */
	ROLE_PING,       /* Redis PING */
	ROLE_SET,        /* Redis SET */
	ROLE_SUBSCRIBER, /* Redis SUBSCRIBE */
	ROLE_PUBLISHER,  /* Redis PUBLISH */
	ROLE_HPING,      /* hokitod ping */
	ROLE_HTTP,       /* HTTP GET */
};

#define LG_MAX_PATHS 8 /* http: --path at most this many times */

/* A latency histogram in nanoseconds: exact below 64, then 32 buckets per power of two. */
struct hist {
	uint64_t count;
	uint64_t max;
	uint64_t b[HIST_BUCKETS];
};

struct lg_conn;

/* Two players of successive games and the spectators who follow them. */
struct lg_pair {
	struct lg_conn *player[2]; /* creator, joiner; borrowed */
	struct lg_conn **spec;     /* owned array of borrowed spectators */
	size_t nspec;              /* spectators assigned (alive or not) */
	size_t spec_alive;         /* spectators still connected */
	size_t spec_ready;         /* spectators whose watch of the current game was answered */
	size_t spec_over;          /* spectators that saw the current game end */
	char game[32];             /* the current game id, "" before the first */
	struct lg_conn *held;      /* a player that holds its move until spectators are ready */
	char held_move[GAME_MOVE_TEXT];
	int held_seq;        /* the seq the held move's event will have */
	int joined;          /* the joiner's join of the current game was answered */
	int ready_once;      /* the first game was ready: counted in pairs_ready */
	int in_play;         /* a move of the current game was sent and it is not over */
	int dead;            /* a player was lost: the pair stops */
	uint64_t play_ns;    /* time spent in play */
	uint64_t play_from;  /* when the current stretch of play began */
	uint64_t watch_ns;   /* time spent waiting for spectators to watch a new game */
	uint64_t watch_from; /* when the current game was created */
	uint64_t
	        sent_ns[LG_RING]; /* when the move whose event has seq i was sent, at i % LG_RING */
};

struct lg_conn {
	uv_tcp_t tcp;         /* tcp.data points here; the conn is freed in its close callback */
	uv_connect_t connect; /* the connect request */
	struct loadgen *lg;   /* owner */
	struct framer in;     /* input not yet split into lines */
	struct lg_pair *pair; /* hokito roles: borrowed */
	enum lg_role role;
	int idx;           /* number among all connections */
	int ready;         /* set up: connected (and welcomed, or subscribed) */
	int dead;          /* lost: no more requests */
	int closing;       /* uv_close was called */
	int outstanding;   /* a request waits for its reply */
	enum msg_type req; /* hokito: the type of that request */
	uint64_t sent_ns;  /* when it was sent */
	char *deferred;    /* owned: one request to send once the outstanding one is answered */
	enum msg_type deferred_req;
	uint64_t pub_seq;     /* publisher: messages sent */
	struct tls_link *tls; /* owned, with --tls: freed in the close callback */
	/* --ws and http: the bytes read, not yet made lines (frames) or answers; owned */
	char *raw;
	size_t nraw, rawcap;
	int upgraded;    /* --ws: the server's 101 was read */
	unsigned npath;  /* http: requests sent, the next path's index */
	size_t body_due; /* http: bytes of the answer's body still to come (after its head) */
	int in_body;     /* http: its head was read */
};

/* hokito with --think: a move chosen, waiting for its thinking time to pass (FIFO: one delay). */
struct lg_think {
	TAILQ_ENTRY(lg_think) link;
	struct lg_conn *c; /* the player; its entries go when it closes */
	int seq;
	uint64_t due_ms; /* the loop's clock when the move goes */
	char move[GAME_MOVE_TEXT];
};

struct lg_write {
	uv_write_t req;
	char data[]; /* owned copy of what is written */
};

struct loadgen {
	uv_loop_t *loop;
	enum lg_mode mode;
	struct sockaddr_storage addr;
	uint32_t bind_first; /* --bind: connection i binds 127.x.y.z + i (host order), 0: no bind */
	int nconns;          /* connections in all */
	int nplayers, nspec; /* hokito */
	int npairs;
	struct lg_conn **conns; /* owned array; each conn is freed by its close callback */
	struct lg_pair *pairs;  /* owned */
	int next_connect;       /* the next conn to start connecting */
	int inflight;           /* connections being set up */
	int nready;             /* connections set up */
	int nopen;              /* handles not yet closed */
	int burst;              /* set-ups at once */
	double seconds;         /* measurement length */
	uint64_t count;         /* stop after this many operations, 0: no limit */
	size_t payload;         /* Redis value and message size */
	enum game_kind kind;
	int pid; /* the server, for /proc, or 0 */
	const char *label;
	struct rng rng;
	uv_timer_t timer;  /* set-up deadline, then the end of the measurement */
	uv_timer_t settle; /* idle: the wait before memory is read */
	uint64_t think_ms; /* hokito: each player's wait before it moves (--think), 0: none */
	uv_timer_t think;  /* the next entry of thinking is due */
	TAILQ_HEAD(, lg_think) thinking; /* owned entries, oldest (first due) first */
	int started;                     /* hokito: the first games are being set up */
	int pairs_ready;                 /* hokito: pairs whose first game is ready to play */
	int measuring, stopped, failed;
	uint64_t t0, t1;                     /* measurement window, ns */
	double cpu0, srv0;                   /* our and the server's CPU seconds at t0 */
	double cpu, srv_cpu;                 /* CPU seconds used in the window */
	long rss_before, rss_after, rss_end; /* server VmRSS in kB, -1 unknown */
	/* figures */
	uint64_t ops;        /* moves, pings, sets, publishes */
	uint64_t games;      /* hokito: games finished */
	uint64_t deliveries; /* events read by spectators or subscribers */
	uint64_t dlv_bytes;  /* their bytes */
	uint64_t errors;     /* error replies */
	uint64_t lost;       /* connections lost while measuring */
	struct hist rtt, dlv;
	char *set_cmd;                   /* redis-set: the RESP command, one per connection */
	char *pub_payload;               /* redis-pubsub, redis-relay: the filler */
	struct tls_client *tls;          /* --tls: the (unchecking) client, or NULL */
	int ws;                          /* --ws */
	const char *paths[LG_MAX_PATHS]; /* http: --path */
	int npaths;
	uint64_t http_status[6]; /* http: answers by status class (1xx ... 5xx), [0] other */
};

static void conn_fail(struct lg_conn *c, const char *why);
static void lg_stop(struct loadgen *lg);

/* The monotonic clock in nanoseconds. */
static uint64_t
now_ns(void)
{
	return uv_hrtime();
}

/* --- histogram --- */

static int
hist_index(uint64_t v)
{
	int msb;

	if (v < (2u << HIST_SUB))
		return (int)v;
	msb = 63 - __builtin_clzll(v);
	return (2 << HIST_SUB) + (msb - HIST_SUB - 1) * (1 << HIST_SUB) +
	       (int)((v >> (msb - HIST_SUB)) & ((1u << HIST_SUB) - 1));
}

/* The middle of bucket i. */
static double
hist_value(int i)
{
	int msb, sub;
	uint64_t low, width;

	if (i < (2 << HIST_SUB))
		return i;
	msb = (i - (2 << HIST_SUB)) / (1 << HIST_SUB) + HIST_SUB + 1;
	sub = (i - (2 << HIST_SUB)) % (1 << HIST_SUB);
	width = (uint64_t)1 << (msb - HIST_SUB);
	low = (((uint64_t)1 << HIST_SUB) + (uint64_t)sub) * width;
	return (double)low + (double)width / 2;
}

static void
hist_add(struct hist *h, uint64_t v)
{
	h->b[hist_index(v)]++;
	h->count++;
	if (v > h->max)
		h->max = v;
}

/* The value at quantile q (0..1) in microseconds, 0 for an empty histogram. */
static double
hist_quantile_us(const struct hist *h, double q)
{
	uint64_t want, seen = 0;

	if (h->count == 0)
		return 0;
	want = (uint64_t)(q * (double)h->count + 0.999999);
	if (want == 0)
		want = 1;
	for (int i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want) {
			double v = hist_value(i);

			return (v > (double)h->max ? (double)h->max : v) / 1000.0;
		}
	}
	return (double)h->max / 1000.0;
}

/* --- /proc --- */

/* VmRSS of pid in kB, or -1. */
static long
proc_rss_kb(int pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof path, "/proc/%d/status", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "VmRSS:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	return kb;
}

/* User and system CPU seconds of pid, or -1. */
static double
proc_cpu_s(int pid)
{
	char path[64], buf[1024];
	unsigned long long ut, st;
	const char *p;
	size_t n;
	FILE *f;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the fields after the command name, which may hold spaces: state is field 3 */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* Our own CPU seconds. */
static double
self_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* --- writing --- */

static void
write_cb(uv_write_t *req, int status)
{
	struct lg_write *w = container_of(req, struct lg_write, req);
	struct lg_conn *c = req->handle->data;

	free(w);
	if (status < 0 && status != UV_ECANCELED)
		conn_fail(c, uv_strerror(status));
}

/*
 * Write len bytes (copied when they cannot go at once). A connection with nothing queued tries
 * the socket directly, which is what almost always happens with one request outstanding.
 */
static void conn_write_raw(struct lg_conn *c, const char *data, size_t len);

/* --ws: each line of data (up to its '\n') as one masked text frame. */
static void
ws_write(struct lg_conn *c, const char *data, size_t len)
{
	static const unsigned char mask[4] = {0x5a, 0xc3, 0x17, 0x8e};

	while (len > 0) {
		const char *nl = memchr(data, '\n', len);
		size_t n = nl != NULL ? (size_t)(nl - data) : len, h = 0;
		char *f = xmalloc(n + 14);

		f[h++] = (char)0x81; /* FIN, text */
		if (n < 126) {
			f[h++] = (char)(0x80 | n);
		} else if (n < 65536) {
			f[h++] = (char)(0x80 | 126);
			f[h++] = (char)(n >> 8);
			f[h++] = (char)n;
		} else {
			f[h++] = (char)(0x80 | 127);
			for (int i = 7; i >= 0; i--)
				f[h++] = (char)((uint64_t)n >> (8 * i));
		}
		memcpy(f + h, mask, 4);
		h += 4;
		for (size_t i = 0; i < n; i++)
			f[h + i] = (char)(data[i] ^ mask[i % 4]);
		conn_write_raw(c, f, h + n);
		free(f);
		data += n + (nl != NULL);
		len -= n + (nl != NULL);
	}
}

static void
conn_write(struct lg_conn *c, const char *data, size_t len)
{
	if (c->lg->ws && c->role != ROLE_HTTP)
		ws_write(c, data, len);
	else
		conn_write_raw(c, data, len);
}

static void
conn_write_raw(struct lg_conn *c, const char *data, size_t len)
{
	struct lg_write *w;
	uv_buf_t buf;
	int rc = 0;

	if (c->dead || c->closing)
		return;
	if (c->tls != NULL) {
		struct tls_error err;

		if (tls_link_write(c->tls, data, len, &err) < 0)
			conn_fail(c, err.text);
		return;
	}
	if (c->tcp.write_queue_size == 0) {
		buf = uv_buf_init((char *)data, (unsigned)len);
		rc = uv_try_write((uv_stream_t *)&c->tcp, &buf, 1);
		if (rc == (int)len)
			return;
		if (rc < 0 && rc != UV_EAGAIN) {
			conn_fail(c, uv_strerror(rc));
			return;
		}
		if (rc < 0)
			rc = 0;
	}
	w = xmalloc(sizeof *w + len - (size_t)rc);
	memcpy(w->data, data + rc, len - (size_t)rc);
	buf = uv_buf_init(w->data, (unsigned)(len - (size_t)rc));
	rc = uv_write(&w->req, (uv_stream_t *)&c->tcp, &buf, 1, write_cb);
	if (rc < 0) {
		free(w);
		conn_fail(c, uv_strerror(rc));
	}
}

/*
 * Send a request of type (hokito; MSG_NONE for Redis) now, or keep it until the outstanding one
 * is answered: one request outstanding per connection. line is copied.
 */
static void
conn_request(struct lg_conn *c, enum msg_type type, const char *line)
{
	if (c->dead || c->lg->stopped)
		return;
	if (c->outstanding) {
		/* our own protocol logic never queues two: a second would be a loadgen bug */
		if (c->deferred != NULL) {
			fprintf(stderr, "loadgen: conn %d: two deferred requests\n", c->idx);
			abort();
		}
		c->deferred = xstrdup(line);
		c->deferred_req = type;
		return;
	}
	c->outstanding = 1;
	c->req = type;
	c->sent_ns = now_ns();
	conn_write(c, line, strlen(line));
}

/* A reply arrived: the connection may send again (its deferred request first). */
static void
conn_replied(struct lg_conn *c)
{
	c->outstanding = 0;
}

static void
conn_flush_deferred(struct lg_conn *c)
{
	char *line = c->deferred;

	if (c->outstanding || line == NULL)
		return;
	c->deferred = NULL;
	conn_request(c, c->deferred_req, line);
	free(line);
}

/* --- the measurement --- */

/* Count one operation; stop at --count. */
static void
lg_op(struct loadgen *lg)
{
	lg->ops++;
	if (lg->count != 0 && lg->ops >= lg->count && lg->mode != MODE_SPECTATE &&
	    lg->mode != MODE_REDIS_PUBSUB)
		lg_stop(lg);
}

static void
lg_delivery(struct loadgen *lg, size_t bytes, uint64_t sent)
{
	lg->deliveries++;
	lg->dlv_bytes += bytes + 1;
	if (sent != 0)
		hist_add(&lg->dlv, now_ns() - sent);
	if (lg->count != 0 && lg->deliveries >= lg->count &&
	    (lg->mode == MODE_SPECTATE || lg->mode == MODE_REDIS_PUBSUB))
		lg_stop(lg);
}

/* --- hokito roles --- */

/* The game id of a state reply, copied into out. Returns 0 or -1. */
static int
state_game(const char *line, size_t len, char *out, size_t size)
{
	struct msg_error err;
	struct msg m;
	const char *g;
	int rc = -1;

	if (msg_decode(&m, line, len, &err) == 0 && (g = msg_str(&m, "game")) != NULL &&
	    strlen(g) < size) {
		snprintf(out, size, "%s", g);
		rc = 0;
	}
	msg_clear(&m);
	return rc;
}

/*
 * The type of a server line. The server writes "type" first, so the fast path reads it from the
 * prefix without parsing the line; anything else is decoded in full.
 */
static enum msg_type
line_type(const char *line, size_t len)
{
	static const char pre[] = "{\"type\":\"";
	const size_t np = sizeof pre - 1;
	struct msg_error err;
	enum msg_type type;
	struct msg m;

	if (len > np && memcmp(line, pre, np) == 0) {
		const char *name = line + np, *end = memchr(name, '"', len - np);
		char buf[32];

		if (end != NULL && (size_t)(end - name) < sizeof buf) {
			memcpy(buf, name, (size_t)(end - name));
			buf[end - name] = '\0';
			return msg_type_parse(buf);
		}
	}
	msg_decode(&m, line, len, &err);
	type = m.type;
	msg_clear(&m);
	return type;
}

/* The integer after "key": in a line, or -1. */
static long long
line_int(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p != NULL ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/* Send a move for player c, now or once the pair's spectators are all watching. */
static void
pair_move(struct lg_pair *p, struct lg_conn *c, const char *move, int seq)
{
	char line[128];

	if (!c->lg->measuring || p->spec_ready < p->spec_alive) {
		p->held = c;
		snprintf(p->held_move, sizeof p->held_move, "%s", move);
		p->held_seq = seq;
		return;
	}
	if (!p->in_play) {
		p->in_play = 1;
		p->play_from = now_ns();
	}
	snprintf(line, sizeof line, "{\"type\":\"move\",\"move\":\"%s\"}\n", move);
	conn_request(c, MSG_MOVE, line);
	p->sent_ns[seq % LG_RING] = c->sent_ns;
}

/* Spectators may have become ready (or fewer): release a held move. */
static void
pair_check_held(struct lg_pair *p)
{
	struct lg_conn *c = p->held;

	if (c != NULL && c->lg->measuring && p->spec_ready >= p->spec_alive) {
		char move[GAME_MOVE_TEXT];

		memcpy(move, p->held_move, sizeof move);
		p->held = NULL;
		pair_move(p, c, move, p->held_seq);
	}
}

static void lg_measure_start(struct loadgen *lg);

/*
 * The joiner or a spectator was answered: once the joiner is seated and every spectator watches,
 * the game may be played (the first game of every pair is made ready before measuring starts).
 */
static void
pair_check_ready(struct lg_pair *p)
{
	struct loadgen *lg = p->player[0]->lg;

	if (!p->joined || p->spec_ready < p->spec_alive)
		return;
	if (p->watch_from != 0) {
		if (lg->measuring)
			p->watch_ns += now_ns() - p->watch_from;
		p->watch_from = 0;
	}
	if (!p->ready_once) {
		p->ready_once = 1;
		if (++lg->pairs_ready == lg->npairs)
			lg_measure_start(lg);
	}
	pair_check_held(p);
}

/* The current game stopped being played. */
static void
pair_play_end(struct lg_pair *p)
{
	if (p->in_play) {
		p->in_play = 0;
		if (p->play_from != 0)
			p->play_ns += now_ns() - p->play_from;
	}
}

/* A new game for the pair: its creator asks for one. */
static void
pair_new_game(struct lg_pair *p)
{
	char line[128];

	if (p->dead)
		return;
	snprintf(line, sizeof line, "{\"type\":\"create\",\"kind\":\"%s\"}\n",
	         game_kind_name(p->player[0]->lg->kind));
	conn_request(p->player[0], MSG_CREATE, line);
}

/*
 * The moves of a your_turn line, read without decoding it (a full decode was a third of the load
 * generator's time): the server writes them last, as "moves":["a1-a3",...]}, and a move is plain
 * text with nothing to escape. Fills start[i] and size[i] for each (room for max) and returns how
 * many; -1 when the line does not read exactly that way.
 */
static int
line_moves(const char *line, size_t len, const char **start, size_t *size, int max)
{
	static const char key[] = "\"moves\":[";
	const char *end = line + len, *p = strstr(line, key), *q;
	int n = 0;

	if (p == NULL)
		return -1;
	for (p += sizeof key - 1; p < end && *p != ']'; p++) {
		if ((n > 0 && *p++ != ',') || p >= end || *p != '"' || n == max)
			return -1;
		for (q = ++p; p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20; p++)
			;
		if (p >= end || *p != '"' || p == q || p - q >= GAME_MOVE_TEXT)
			return -1;
		start[n] = q;
		size[n++] = (size_t)(p - q);
	}
	return n > 0 && end - p == 2 && memcmp(p, "]}", 2) == 0 ? n : -1;
}

/* The think timer: send the moves whose thinking time has passed, re-arm for the next. */
static void http_next(struct lg_conn *c);

static void
think_cb(uv_timer_t *t)
{
	struct loadgen *lg = t->data;
	struct lg_think *e;
	uint64_t now = uv_now(lg->loop);

	while ((e = TAILQ_FIRST(&lg->thinking)) != NULL && e->due_ms <= now) {
		TAILQ_REMOVE(&lg->thinking, e, link);
		if (e->c->role == ROLE_HTTP && !e->c->dead && !e->c->closing && !lg->stopped)
			http_next(e->c);
		else if (!e->c->dead && !e->c->closing)
			pair_move(e->c->pair, e->c, e->move, e->seq);
		free(e);
	}
	if (e != NULL)
		uv_timer_start(&lg->think, think_cb, e->due_ms - now, 0);
}

/* Player c will move mv (at seq) once --think has passed. */
static void
think_later(struct lg_conn *c, const char *mv, int seq)
{
	struct loadgen *lg = c->lg;
	struct lg_think *e = xcalloc(1, sizeof *e);

	e->c = c;
	e->seq = seq;
	e->due_ms = uv_now(lg->loop) + lg->think_ms;
	snprintf(e->move, sizeof e->move, "%s", mv);
	if (TAILQ_EMPTY(&lg->thinking))
		uv_timer_start(&lg->think, think_cb, lg->think_ms, 0);
	TAILQ_INSERT_TAIL(&lg->thinking, e, link);
}

/* Forget the moves c was thinking about (it is closing). */
static void
think_forget(struct lg_conn *c)
{
	struct lg_think *e = TAILQ_FIRST(&c->lg->thinking), *next;

	for (; e != NULL; e = next) {
		next = TAILQ_NEXT(e, link);
		if (e->c == c) {
			TAILQ_REMOVE(&c->lg->thinking, e, link);
			free(e);
		}
	}
}

/* your_turn: pick a random legal move. */
static void
player_your_turn(struct lg_conn *c, const char *line, size_t len)
{
	struct loadgen *lg = c->lg;
	const char *start[GAME_MOVES_MAX];
	size_t size[GAME_MOVES_MAX];
	char mv[GAME_MOVE_TEXT];
	long long seq = line_int(line, "\"seq\":");
	int n = line_moves(line, len, start, size, GAME_MOVES_MAX), k;

	if (n <= 0 || seq < 0) {
		fprintf(stderr, "loadgen: conn %d: unreadable your_turn\n", c->idx);
		lg->errors++;
		return;
	}
	k = (int)rng_below(&lg->rng, (uint32_t)n);
	memcpy(mv, start[k], size[k]);
	mv[size[k]] = '\0';
	if (lg->think_ms > 0)
		think_later(c, mv, (int)seq + 1);
	else
		pair_move(c->pair, c, mv, (int)seq + 1);
}

/* An error reply: count it, show the first few. */
static void
conn_error(struct lg_conn *c, const char *line)
{
	if (c->lg->errors++ < LG_SHOW_ERRS)
		fprintf(stderr, "loadgen: conn %d refused: %.300s\n", c->idx, line);
}

/* One line from hokitod to a player or spectator. */
static void
hokito_line(struct lg_conn *c, const char *line, size_t len)
{
	struct loadgen *lg = c->lg;
	struct lg_pair *p = c->pair;
	enum msg_type type = line_type(line, len);

	switch (type) {
	case MSG_WELCOME:
		conn_replied(c);
		if (!c->ready) {
			c->ready = 1;
			lg->nready++;
			lg->inflight--;
		}
		break;
	case MSG_STATE:
		conn_replied(c);
		if (!lg->started || lg->stopped)
			break;
		if (c->role == ROLE_CREATOR) {
			char line2[96];

			if (state_game(line, len, p->game, sizeof p->game) < 0) {
				conn_fail(c, "state without a game");
				break;
			}
			p->spec_ready = 0;
			p->spec_over = 0;
			p->joined = 0;
			p->watch_from = p->nspec > 0 ? now_ns() : 0;
			snprintf(line2, sizeof line2, "{\"type\":\"join\",\"game\":\"%s\"}\n",
			         p->game);
			conn_request(p->player[1], MSG_JOIN, line2);
			snprintf(line2, sizeof line2, "{\"type\":\"watch\",\"game\":\"%s\"}\n",
			         p->game);
			for (size_t i = 0; i < p->nspec; i++)
				conn_request(p->spec[i], MSG_WATCH, line2);
		} else if (c->role == ROLE_JOINER) {
			p->joined = 1;
			pair_check_ready(p);
		} else if (c->role == ROLE_SPECTATOR) {
			p->spec_ready++;
			pair_check_ready(p);
		}
		break;
	case MSG_OK:
		conn_replied(c);
		if (c->req == MSG_MOVE && lg->measuring) {
			hist_add(&lg->rtt, now_ns() - c->sent_ns);
			lg_op(lg);
		}
		break;
	case MSG_ERROR:
		conn_replied(c);
		conn_error(c, line);
		break;
	case MSG_PONG:
		conn_replied(c);
		if (c->role == ROLE_HPING && lg->measuring && !lg->stopped) {
			hist_add(&lg->rtt, now_ns() - c->sent_ns);
			lg_op(lg);
			if (!lg->stopped)
				conn_request(c, MSG_PING, "{\"type\":\"ping\"}\n");
		}
		break;
	case MSG_GAMES:
		conn_replied(c);
		break;
	case MSG_YOUR_TURN:
		if (c->role != ROLE_SPECTATOR && lg->started && !lg->stopped)
			player_your_turn(c, line, len);
		break;
	case MSG_MOVED:
		if (c->role == ROLE_SPECTATOR && lg->measuring) {
			long long seq = line_int(line, "\"seq\":");

			lg_delivery(lg, len, seq > 0 ? p->sent_ns[seq % LG_RING] : 0);
		}
		break;
	case MSG_GAME_OVER:
		if (!lg->started)
			break;
		if (c->role == ROLE_CREATOR) {
			lg->games += lg->measuring;
			if (p->spec_alive == 0)
				pair_play_end(p);
			pair_new_game(p);
		} else if (c->role == ROLE_SPECTATOR) {
			if (++p->spec_over >= p->spec_alive)
				pair_play_end(p);
		}
		break;
	case MSG_BYE:
		conn_fail(c, "bye from the server");
		break;
	default: /* seated, started, spectators, presence */
		break;
	}
	conn_flush_deferred(c);
}

/* --- Redis roles --- */

/* The pub/sub channel of c: one for redis-pubsub, one a pair for redis-relay. */
static void
redis_channel(const struct lg_conn *c, char *out, size_t size)
{
	if (c->lg->mode == MODE_REDIS_RELAY)
		snprintf(out, size, LG_CHANNEL "%d", (int)(c->pair - c->lg->pairs));
	else
		snprintf(out, size, LG_CHANNEL);
}

static void
redis_publish(struct lg_conn *c)
{
	struct loadgen *lg = c->lg;
	char *line = xmalloc(lg->payload + 64), channel[32];

	/* inline command: the payload holds no spaces; m<seq>: lets subscribers time it */
	redis_channel(c, channel, sizeof channel);
	snprintf(line, lg->payload + 64, "PUBLISH %s m%" PRIu64 ":%s\r\n", channel, c->pub_seq,
	         lg->pub_payload);
	conn_request(c, MSG_NONE, line);
	c->pair->sent_ns[c->pub_seq % LG_RING] = c->sent_ns;
	c->pub_seq++;
	free(line);
}

/* The next request of a Redis request/reply role. */
static void
redis_next(struct lg_conn *c)
{
	if (!c->lg->measuring || c->lg->stopped)
		return;
	if (c->role == ROLE_PING)
		conn_request(c, MSG_NONE, "PING\r\n");
	else if (c->role == ROLE_SET)
		conn_request(c, MSG_NONE, c->lg->set_cmd);
	else if (c->role == ROLE_PUBLISHER)
		redis_publish(c);
}

/* One line of a Redis reply (RESP: every element is a line for our commands). */
static void
redis_line(struct lg_conn *c, const char *line, size_t len)
{
	struct loadgen *lg = c->lg;

	if (len > 0 && line[0] == '-') {
		conn_replied(c);
		conn_error(c, line);
		redis_next(c);
		return;
	}
	switch (c->role) {
	case ROLE_SUBSCRIBER:
		if (!c->ready && line[0] == ':') {
			c->ready = 1;
			lg->nready++;
			lg->inflight--;
		} else if (line[0] == 'm' && line[1] >= '0' && line[1] <= '9' && lg->measuring) {
			uint64_t seq = strtoull(line + 1, NULL, 10);

			lg_delivery(lg, len, c->pair->sent_ns[seq % LG_RING]);
		}
		break;
	case ROLE_PING:
	case ROLE_SET:
	case ROLE_PUBLISHER:
		if (line[0] != '+' && line[0] != ':')
			break;
		conn_replied(c);
		if (lg->measuring) {
			hist_add(&lg->rtt, now_ns() - c->sent_ns);
			lg_op(lg);
		}
		redis_next(c);
		break;
	default:
		break;
	}
}

/* --- connections --- */

static void
conn_close_cb(uv_handle_t *h)
{
	struct lg_conn *c = h->data;

	c->lg->nopen--;
	think_forget(c);
	framer_close(&c->in);
	tls_link_free(c->tls);
	free(c->deferred);
	free(c->raw);
	free(c);
}

static void
conn_close(struct lg_conn *c)
{
	if (c->closing)
		return;
	c->closing = 1;
	uv_close((uv_handle_t *)&c->tcp, conn_close_cb);
}

/* c is lost (refused, reset, closed by the server): no more requests from it. */
static void
conn_fail(struct lg_conn *c, const char *why)
{
	struct loadgen *lg = c->lg;

	if (c->dead)
		return;
	c->dead = 1;
	uv_read_stop((uv_stream_t *)&c->tcp);
	if (lg->stopped)
		return;
	if (!c->ready) {
		fprintf(stderr, "loadgen: conn %d failed during set-up: %s\n", c->idx, why);
		lg->failed = 1;
		lg_stop(lg);
		return;
	}
	if (lg->lost++ < LG_SHOW_ERRS)
		fprintf(stderr, "loadgen: conn %d lost: %s\n", c->idx, why);
	if (c->pair != NULL) {
		if (c->role == ROLE_SPECTATOR) {
			c->pair->spec_alive--;
			pair_check_ready(c->pair);
		} else {
			c->pair->dead = 1;
			pair_play_end(c->pair);
		}
	}
}

/* Drop the first n bytes of c->raw. */
static void
raw_consume(struct lg_conn *c, size_t n)
{
	memmove(c->raw, c->raw + n, c->nraw - n);
	c->nraw -= n;
}

static void conn_greet(struct lg_conn *c);

/* The end of an HTTP head in c->raw (its blank line's last byte + 1), or NULL when not all in. */
static char *
raw_head_end(struct lg_conn *c)
{
	for (size_t i = 3; i < c->nraw; i++)
		if (memcmp(c->raw + i - 3, "\r\n\r\n", 4) == 0)
			return c->raw + i + 1;
	return NULL;
}

/* The value of header name (lower case, with its ':') in the NUL-terminated head, or NULL. */
static const char *
head_value(const char *head, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(head, "\r\n"); p != NULL; p = strstr(p + 2, "\r\n")) {
		size_t i = 0;

		while (i < n && p[2 + i] != '\0' &&
		       (p[2 + i] | (p[2 + i] >= 'A' && p[2 + i] <= 'Z' ? 0x20 : 0)) == name[i])
			i++;
		if (i == n)
			return p + 2 + n;
	}
	return NULL;
}

/*
 * --ws: what was read: the upgrade's answer first, then the server's frames, each text frame's
 * payload handed to the framer as a line. Returns 0, or -1 when c failed.
 */
static int
ws_input(struct lg_conn *c)
{
	size_t off = 0;

	if (!c->upgraded) {
		char *end = raw_head_end(c);

		if (end == NULL)
			return 0;
		if (c->nraw < 12 || memcmp(c->raw + 9, "101", 3) != 0) {
			conn_fail(c, "the WebSocket upgrade was refused");
			return -1;
		}
		c->upgraded = 1;
		raw_consume(c, (size_t)(end - c->raw));
		conn_greet(c);
	}
	for (;;) {
		const unsigned char *f = (const unsigned char *)c->raw + off;
		size_t have = c->nraw - off, h = 2, n;
		char *base;
		size_t size;

		if (have < 2)
			break;
		n = f[1] & 0x7f;
		if (n == 126) {
			if (have < 4)
				break;
			n = (size_t)f[2] << 8 | f[3];
			h = 4;
		} else if (n == 127) {
			if (have < 10)
				break;
			n = 0;
			for (int i = 0; i < 8; i++)
				n = n << 8 | f[2 + i];
			h = 10;
		}
		if (have < h + n)
			break;
		switch (f[0] & 0x0f) {
		case 0x1: /* text: a line */
		case 0x0: /* a continuation: the server sends whole messages; kept as its own line
		           */
			framer_space(&c->in, n + 1, &base, &size);
			memcpy(base, f + h, n);
			base[n] = '\n';
			framer_commit(&c->in, n + 1);
			break;
		case 0x8:
			conn_fail(c, "closed by the server (WebSocket close)");
			return -1;
		default: /* ping, pong: libwebsockets answers them itself; none are sent here */
			break;
		}
		off += h + n;
	}
	raw_consume(c, off);
	return 0;
}

/* http: the next GET of c, the next path of the list. */
static void
http_next(struct lg_conn *c)
{
	struct loadgen *lg = c->lg;
	char req[512];
	int n;

	n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
	             lg->paths[c->npath++ % (unsigned)lg->npaths]);
	c->outstanding = 1;
	c->sent_ns = now_ns();
	c->in_body = 0;
	conn_write_raw(c, req, (size_t)n);
}

/* http: what was read: an answer's head (its status and Content-Length), then its body. */
static void
http_input(struct lg_conn *c)
{
	struct loadgen *lg = c->lg;

	while (!c->dead && !lg->stopped) {
		if (!c->in_body) {
			char *end = raw_head_end(c);
			const char *cl;
			int status;

			if (end == NULL)
				return;
			end[-2] = '\0'; /* the head, ending in its last header's \r\n */
			status = c->nraw > 12 ? atoi(c->raw + 9) : 0;
			lg->http_status[status >= 100 && status < 600 ? status / 100 : 0]++;
			if (status < 200 || status >= 300)
				lg->errors += lg->measuring;
			cl = head_value(c->raw, "content-length:");
			if (cl == NULL) {
				conn_fail(c, "an answer without Content-Length");
				return;
			}
			c->body_due = (size_t)strtoull(cl, NULL, 10);
			c->in_body = 1;
			raw_consume(c, (size_t)(end - c->raw));
		}
		if (c->nraw < c->body_due) {
			c->body_due -= c->nraw;
			c->nraw = 0;
			return;
		}
		raw_consume(c, c->body_due);
		c->body_due = 0;
		c->in_body = 0;
		c->outstanding = 0;
		if (!c->ready) {
			c->ready = 1;
			lg->nready++;
			lg->inflight--;
			continue; /* the measurement starts once every connection answered once */
		}
		if (lg->measuring) {
			hist_add(&lg->rtt, now_ns() - c->sent_ns);
			lg_op(lg);
			if (!lg->stopped && lg->think_ms > 0)
				think_later(c, "", 0); /* --think: the next request after a pause */
			else if (!lg->stopped)
				http_next(c);
		}
	}
}

static void
alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct lg_conn *c = h->data;
	char *base;
	size_t size;

	(void)suggested;
	if (c->tls != NULL) {
		tls_link_alloc(c->tls, buf);
		return;
	}
	if (c->lg->ws || c->role == ROLE_HTTP) {
		if (c->rawcap - c->nraw < LG_READ_MIN) {
			c->rawcap = c->rawcap * 2 + LG_READ_MIN;
			c->raw = xrealloc(c->raw, c->rawcap);
		}
		*buf = uv_buf_init(c->raw + c->nraw, (unsigned)(c->rawcap - c->nraw));
		return;
	}
	framer_space(&c->in, LG_READ_MIN, &base, &size);
	*buf = uv_buf_init(base, (unsigned)(size > (1u << 30) ? (1u << 30) : size));
}

static void lg_setup_more(struct loadgen *lg);

static void
read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct lg_conn *c = s->data;
	struct loadgen *lg = c->lg;
	const char *line;
	size_t len;
	int rc;

	(void)buf;
	if (nread < 0) {
		conn_fail(c, nread == UV_EOF ? "closed by the server" : uv_strerror((int)nread));
		return;
	}
	if (c->tls != NULL) {
		struct tls_error err;

		rc = tls_link_read(c->tls, (size_t)nread, &c->in, &err);
		if (rc < 0) {
			conn_fail(c, rc == TLS_ECLOSED ? "closed by the server" : err.text);
			return;
		}
	} else if (c->role == ROLE_HTTP) {
		c->nraw += (size_t)nread;
		http_input(c);
		lg_setup_more(lg);
		return;
	} else if (lg->ws) {
		c->nraw += (size_t)nread;
		if (ws_input(c) < 0)
			return;
	} else {
		framer_commit(&c->in, (size_t)nread);
	}
	while (!c->dead && !lg->stopped && (rc = framer_next(&c->in, &line, &len)) != 0) {
		if (rc < 0) {
			conn_fail(c, "a line over the limit");
			break;
		}
		if (lg->mode == MODE_HOKITO || lg->mode == MODE_SPECTATE || lg->mode == MODE_IDLE ||
		    lg->mode == MODE_PING)
			hokito_line(c, line, len);
		else
			redis_line(c, line, len);
	}
	lg_setup_more(lg);
}

static void conn_greet(struct lg_conn *c);

static void
connect_cb(uv_connect_t *req, int status)
{
	struct lg_conn *c = container_of(req, struct lg_conn, connect);
	struct loadgen *lg = c->lg;

	if (status < 0) {
		conn_fail(c, uv_strerror(status));
		return;
	}
	uv_tcp_nodelay(&c->tcp, 1);
	if (lg->tls != NULL)
		c->tls = tls_link_create((uv_stream_t *)&c->tcp, lg->tls, "127.0.0.1", 0);
	uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb);
	if (lg->ws && c->role != ROLE_HTTP) {
		static const char up[] = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\n"
		                         "Upgrade: websocket\r\nConnection: Upgrade\r\n"
		                         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
		                         "Sec-WebSocket-Version: 13\r\n\r\n";

		conn_write_raw(c, up, sizeof up - 1);
		return; /* conn_greet() once the 101 is read */
	}
	conn_greet(c);
}

/* Connected (and upgraded, with --ws): the first words of c's role. */
static void
conn_greet(struct lg_conn *c)
{
	struct loadgen *lg = c->lg;
	char hello[96], channel[32];

	switch (c->role) {
	case ROLE_CREATOR:
	case ROLE_JOINER:
	case ROLE_SPECTATOR:
	case ROLE_IDLE:
	case ROLE_HPING:
		if (lg->mode == MODE_REDIS_IDLE)
			break;
		snprintf(hello, sizeof hello,
		         "{\"type\":\"hello\",\"protocol\":1,\"name\":\"lg%d\"}\n", c->idx);
		conn_request(c, MSG_HELLO, hello);
		return;
	case ROLE_HTTP:
		http_next(c); /* ready once answered: the measurement starts after */
		return;
	case ROLE_SUBSCRIBER:
		redis_channel(c, channel, sizeof channel);
		snprintf(hello, sizeof hello, "SUBSCRIBE %s\r\n", channel);
		conn_write(c, hello, strlen(hello));
		return;
	default:
		break;
	}
	c->ready = 1;
	lg->nready++;
	lg->inflight--;
	lg_setup_more(lg);
}

/* Start connection i. */
static void
conn_start(struct loadgen *lg, int i)
{
	struct lg_conn *c = lg->conns[i];
	int rc;

	uv_tcp_init(lg->loop, &c->tcp);
	c->tcp.data = c;
	lg->nopen++;
	lg->inflight++;
	if (lg->bind_first != 0) {
		/* as many source addresses as connections: "players on other addresses" */
		struct sockaddr_in src = {.sin_family = AF_INET};
		src.sin_addr.s_addr = htonl(lg->bind_first + (uint32_t)i);
		rc = uv_tcp_bind(&c->tcp, (const struct sockaddr *)&src, 0);
		if (rc < 0) {
			conn_fail(c, uv_strerror(rc));
			return;
		}
	}
	rc = uv_tcp_connect(&c->connect, &c->tcp, (const struct sockaddr *)&lg->addr, connect_cb);
	if (rc < 0)
		conn_fail(c, uv_strerror(rc));
}

/* Keep --burst set-ups in flight; start measuring when every connection is ready. */
static void
lg_setup_more(struct loadgen *lg)
{
	if (lg->measuring || lg->started || lg->stopped)
		return;
	while (!lg->stopped && lg->next_connect < lg->nconns && lg->inflight < lg->burst)
		conn_start(lg, lg->next_connect++);
	if (lg->nready < lg->nconns)
		return;
	if (lg->mode != MODE_HOKITO && lg->mode != MODE_SPECTATE) {
		lg_measure_start(lg);
	} else if (!lg->started) {
		/* every connection said hello: set the first games up, then measure */
		lg->started = 1;
		for (int i = 0; i < lg->npairs; i++)
			pair_new_game(&lg->pairs[i]);
	}
}

/* --- the run --- */

static void
end_cb(uv_timer_t *t)
{
	struct loadgen *lg = container_of(t, struct loadgen, timer);

	if (!lg->measuring) {
		fprintf(stderr,
		        "loadgen: set-up did not finish in time: %d of %d connections ready, "
		        "%d of %d games\n",
		        lg->nready, lg->nconns, lg->pairs_ready, lg->npairs);
		lg->failed = 1;
	}
	lg_stop(lg);
}

/* idle: the connections have settled; read the server's memory. */
static void
settle_cb(uv_timer_t *t)
{
	struct loadgen *lg = container_of(t, struct loadgen, settle);

	lg->rss_after = proc_rss_kb(lg->pid);
}

static void
lg_measure_start(struct loadgen *lg)
{
	lg->measuring = 1;
	lg->t0 = now_ns();
	lg->cpu0 = self_cpu_s();
	lg->srv0 = proc_cpu_s(lg->pid);
	uv_timer_stop(&lg->timer);
	uv_timer_start(&lg->timer, end_cb, (uint64_t)(lg->seconds * 1000), 0);
	switch (lg->mode) {
	case MODE_HOKITO:
	case MODE_SPECTATE:
		for (int i = 0; i < lg->npairs; i++)
			pair_check_held(&lg->pairs[i]);
		break;
	case MODE_IDLE:
	case MODE_REDIS_IDLE:
		uv_timer_start(&lg->settle, settle_cb, 1000, 0);
		break;
	case MODE_PING:
		for (int i = 0; i < lg->nconns; i++)
			conn_request(lg->conns[i], MSG_PING, "{\"type\":\"ping\"}\n");
		break;
	case MODE_HTTP:
		for (int i = 0; i < lg->nconns; i++)
			http_next(lg->conns[i]);
		break;
	default:
		for (int i = 0; i < lg->nconns; i++)
			redis_next(lg->conns[i]);
		break;
	}
}

static void
lg_stop(struct loadgen *lg)
{
	if (lg->stopped)
		return;
	lg->stopped = 1;
	if (lg->measuring) {
		lg->t1 = now_ns();
		lg->cpu = self_cpu_s() - lg->cpu0;
		lg->srv_cpu = lg->srv0 >= 0 ? proc_cpu_s(lg->pid) - lg->srv0 : -1;
		lg->rss_end = proc_rss_kb(lg->pid);
		for (int i = 0; i < lg->npairs; i++) {
			struct lg_pair *p = &lg->pairs[i];

			pair_play_end(p);
			if (p->watch_from > lg->t0)
				p->watch_ns += lg->t1 - p->watch_from;
		}
	}
	uv_timer_stop(&lg->timer);
	uv_timer_stop(&lg->settle);
	for (int i = 0; i < lg->nconns; i++) {
		struct lg_conn *c = lg->conns[i];

		if (i < lg->next_connect)
			conn_close(c);
		else
			free(c); /* never started */
	}
}

static void
lg_print(const struct loadgen *lg)
{
	double secs = (double)(lg->t1 - lg->t0) / 1e9;
	uint64_t play = 0, watch = 0;

	for (int i = 0; i < lg->npairs; i++) {
		play += lg->pairs[i].play_ns;
		watch += lg->pairs[i].watch_ns;
	}
	printf("mode=%s", mode_names[lg->mode]);
	if (lg->label != NULL)
		printf(" label=%s", lg->label);
	printf(" conns=%d seconds=%.3f", lg->nconns, secs);
	switch (lg->mode) {
	case MODE_HOKITO:
	case MODE_SPECTATE:
		printf(" pairs=%d spectators=%d kind=%s moves=%" PRIu64 " moves_per_s=%.1f "
		       "games=%" PRIu64,
		       lg->npairs, lg->nspec, game_kind_name(lg->kind), lg->ops,
		       (double)lg->ops / secs, lg->games);
		break;
	case MODE_REDIS_PING:
	case MODE_REDIS_SET:
	case MODE_PING:
		printf(" requests=%" PRIu64 " req_per_s=%.1f", lg->ops, (double)lg->ops / secs);
		break;
	case MODE_HTTP:
		printf(" requests=%" PRIu64 " req_per_s=%.1f status_2xx=%" PRIu64
		       " status_4xx=%" PRIu64 " status_5xx=%" PRIu64,
		       lg->ops, (double)lg->ops / secs, lg->http_status[2], lg->http_status[4],
		       lg->http_status[5]);
		break;
	case MODE_REDIS_PUBSUB:
	case MODE_REDIS_RELAY:
		printf(" %s=%d publishes=%" PRIu64 " pub_per_s=%.1f payload=%zu",
		       lg->mode == MODE_REDIS_RELAY ? "pairs" : "subscribers",
		       lg->mode == MODE_REDIS_RELAY ? lg->npairs : lg->nconns - 1, lg->ops,
		       (double)lg->ops / secs, lg->payload);
		break;
	default:
		break;
	}
	if (lg->mode != MODE_IDLE && lg->mode != MODE_REDIS_IDLE)
		printf(" rtt_p50_us=%.1f rtt_p99_us=%.1f rtt_p999_us=%.1f rtt_max_us=%.1f",
		       hist_quantile_us(&lg->rtt, 0.5), hist_quantile_us(&lg->rtt, 0.99),
		       hist_quantile_us(&lg->rtt, 0.999), (double)lg->rtt.max / 1000.0);
	if (lg->nspec > 0 || lg->mode == MODE_REDIS_PUBSUB || lg->mode == MODE_REDIS_RELAY) {
		printf(" deliveries=%" PRIu64 " dlv_per_s=%.1f dlv_avg_bytes=%.0f", lg->deliveries,
		       (double)lg->deliveries / secs,
		       lg->deliveries ? (double)lg->dlv_bytes / (double)lg->deliveries : 0.0);
		if (lg->mode == MODE_SPECTATE && lg->npairs == 1)
			printf(" play_s=%.3f play_dlv_per_s=%.1f watch_s=%.3f", (double)play / 1e9,
			       play ? (double)lg->deliveries / ((double)play / 1e9) : 0.0,
			       (double)watch / 1e9);
		printf(" dlv_p50_us=%.1f dlv_p99_us=%.1f dlv_p999_us=%.1f",
		       hist_quantile_us(&lg->dlv, 0.5), hist_quantile_us(&lg->dlv, 0.99),
		       hist_quantile_us(&lg->dlv, 0.999));
	}
	if (lg->pid > 0) {
		printf(" rss_before_kb=%ld rss_end_kb=%ld srv_cpu=%.2f", lg->rss_before,
		       lg->rss_end, lg->srv_cpu >= 0 ? lg->srv_cpu / secs : -1.0);
		if (lg->mode == MODE_IDLE || lg->mode == MODE_REDIS_IDLE)
			printf(" rss_after_kb=%ld per_conn_bytes=%.0f", lg->rss_after,
			       lg->rss_after >= 0 && lg->rss_before >= 0
			               ? (double)(lg->rss_after - lg->rss_before) * 1024.0 /
			                         lg->nconns
			               : -1.0);
	}
	if (lg->ws)
		printf(" transport=ws");
	printf(" lg_cpu=%.2f errors=%" PRIu64 " lost=%" PRIu64 "\n", lg->cpu / secs, lg->errors,
	       lg->lost);
	fflush(stdout);
}

static void
usage(FILE *f)
{
	fprintf(f,
	        "usage: loadgen MODE --port PORT [options]\n"
	        "\n"
	        "modes: hokito, spectate, idle, ping (hokitod), http (hokitod's HTTP port);\n"
	        "       redis-ping, redis-set, redis-pubsub, redis-relay, redis-idle (Redis)\n"
	        "\n"
	        "  --host ADDR        127.0.0.1 (default) or ::1; nothing else\n"
	        "  --bind ADDR        with --host 127.0.0.1: connection i comes from ADDR + i, a\n"
	        "                     loopback address (127.0.0.2 gives 127.0.0.2, 127.0.0.3, "
	        "...)\n"
	        "  --port PORT        the server's port\n"
	        "  --conns N          connections (hokito: players, redis-relay: subscribers and\n"
	        "                     publishers; even; default 50)\n"
	        "  --games G          spectate: games (default 1)\n"
	        "  --spectators S     hokito, spectate: spectators; redis-pubsub: subscribers\n"
	        "  --kind KIND        hokito or oxono (default hokito)\n"
	        "  --seconds S        length of the measurement (default 5)\n"
	        "  --count N          stop after N moves/requests (deliveries for spectate,\n"
	        "                     redis-pubsub)\n"
	        "  --payload BYTES    redis-set value, redis-pubsub and redis-relay message\n"
	        "                     (default 280)\n"
	        "  --pid PID          the server's pid: report its RSS and CPU from /proc\n"
	        "  --burst N          connections set up at once (default 64)\n"
	        "  --setup-timeout S  give up when set-up takes longer (default 60)\n"
	        "  --seed N           random moves' seed (default 1)\n"
	        "  --think MS         hokito: each player waits MS ms before each move (a\n"
	        "                     person's pace; default 0: at once); http: each\n"
	        "                     connection between an answer and its next request\n"
	        "  --label TEXT       copied into the output line\n"
	        "  --tls              TLS on every connection (hokitod --listen-tls, Redis\n"
	        "                     --tls-port); the certificate is not checked (loopback)\n"
	        "  --ws               hokito, spectate, idle, ping: the protocol over WebSocket\n"
	        "                     (GET /ws; --port is hokitod's --listen-http port)\n"
	        "  --path PATH        http: a path to GET (up to 8 times: taken in turn)\n");
}

/* A whole number in [min, max], or exit with a usage error. */
static unsigned long long
arg_num(const char *opt, const char *s, unsigned long long min, unsigned long long max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || errno != 0 || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "loadgen: %s wants a number from %llu to %llu (got '%s')\n", opt,
		        min, max, s);
		exit(2);
	}
	return v;
}

/* Make the connections and roles of the mode. */
static void
lg_plan(struct loadgen *lg, int conns, int games, int spectators)
{
	int n = 0;

	switch (lg->mode) {
	case MODE_SPECTATE:
		conns = 2 * games;
		/* fall through */
	case MODE_HOKITO:
		lg->nplayers = conns;
		lg->nspec = spectators;
		lg->npairs = conns / 2;
		lg->nconns = conns + spectators;
		break;
	case MODE_REDIS_PUBSUB:
		lg->nconns = spectators + 1;
		lg->npairs = 1; /* its ring of send times */
		break;
	case MODE_REDIS_RELAY:
		lg->nconns = conns;
		lg->npairs = conns / 2; /* a channel and a ring of send times each */
		break;
	default:
		lg->nconns = conns;
		break;
	}
	lg->conns = xcalloc((size_t)lg->nconns, sizeof *lg->conns);
	lg->pairs = xcalloc((size_t)(lg->npairs ? lg->npairs : 1), sizeof *lg->pairs);
	for (int i = 0; i < lg->nconns; i++) {
		struct lg_conn *c = xcalloc(1, sizeof *c);

		c->lg = lg;
		c->idx = i;
		framer_init(&c->in, LG_MAX_LINE);
		lg->conns[i] = c;
	}
	switch (lg->mode) {
	case MODE_HOKITO:
	case MODE_SPECTATE:
		for (int i = 0; i < lg->npairs; i++) {
			struct lg_pair *p = &lg->pairs[i];

			for (int j = 0; j < 2; j++) {
				p->player[j] = lg->conns[n++];
				p->player[j]->role = j == 0 ? ROLE_CREATOR : ROLE_JOINER;
				p->player[j]->pair = p;
			}
		}
		for (int i = 0; i < spectators; i++) {
			struct lg_pair *p = &lg->pairs[i % lg->npairs];
			struct lg_conn *c = lg->conns[n++];

			c->role = ROLE_SPECTATOR;
			c->pair = p;
			p->spec = xrealloc(p->spec, (p->nspec + 1) * sizeof *p->spec);
			p->spec[p->nspec++] = c;
			p->spec_alive++;
		}
		break;
	case MODE_REDIS_PUBSUB:
		/* subscribers first: the publisher is set up last */
		for (int i = 0; i < spectators; i++)
			lg->conns[i]->role = ROLE_SUBSCRIBER;
		lg->conns[spectators]->role = ROLE_PUBLISHER;
		for (int i = 0; i <= spectators; i++)
			lg->conns[i]->pair = &lg->pairs[0];
		break;
	case MODE_REDIS_RELAY:
		/* the subscriber of each pair first; measuring starts once all are subscribed */
		for (int i = 0; i < lg->nconns; i++) {
			lg->conns[i]->role = i % 2 == 0 ? ROLE_SUBSCRIBER : ROLE_PUBLISHER;
			lg->conns[i]->pair = &lg->pairs[i / 2];
		}
		break;
	default:
		for (int i = 0; i < lg->nconns; i++)
			lg->conns[i]->role = lg->mode == MODE_REDIS_PING  ? ROLE_PING
			                     : lg->mode == MODE_REDIS_SET ? ROLE_SET
			                     : lg->mode == MODE_PING      ? ROLE_HPING
			                     : lg->mode == MODE_HTTP      ? ROLE_HTTP
			                                                  : ROLE_IDLE;
		break;
	}
}

static void
lg_timer_close_cb(uv_handle_t *h)
{
	(void)h;
}

int
main(int argc, char **argv)
{
	enum {
		O_HOST = 256,
		O_PORT,
		O_CONNS,
		O_GAMES,
		O_SPEC,
		O_KIND,
		O_SECONDS,
		O_COUNT,
		O_PAYLOAD,
		O_PID,
		O_BURST,
		O_SETUP,
		O_SEED,
		O_THINK,
		O_LABEL,
		O_BIND,
		O_TLS,
		O_WS,
		O_PATH,
		O_HELP,
	};
	static const struct option options[] = {
	        {"host", required_argument, NULL, O_HOST},
	        {"port", required_argument, NULL, O_PORT},
	        {"conns", required_argument, NULL, O_CONNS},
	        {"games", required_argument, NULL, O_GAMES},
	        {"spectators", required_argument, NULL, O_SPEC},
	        {"subscribers", required_argument, NULL, O_SPEC},
	        {"kind", required_argument, NULL, O_KIND},
	        {"seconds", required_argument, NULL, O_SECONDS},
	        {"count", required_argument, NULL, O_COUNT},
	        {"payload", required_argument, NULL, O_PAYLOAD},
	        {"pid", required_argument, NULL, O_PID},
	        {"burst", required_argument, NULL, O_BURST},
	        {"setup-timeout", required_argument, NULL, O_SETUP},
	        {"seed", required_argument, NULL, O_SEED},
	        {"think", required_argument, NULL, O_THINK},
	        {"label", required_argument, NULL, O_LABEL},
	        {"bind", required_argument, NULL, O_BIND},
	        {"tls", no_argument, NULL, O_TLS},
	        {"ws", no_argument, NULL, O_WS},
	        {"path", required_argument, NULL, O_PATH},
	        {"help", no_argument, NULL, O_HELP},
	        {NULL, 0, NULL, 0},
	};
	struct loadgen lg;
	const char *host = "127.0.0.1", *bind = NULL;
	int port = -1, conns = 50, games = 1, spectators = -1, opt, rc, tls = 0;
	double setup_timeout = 60;
	uint64_t seed = 1;
	uv_loop_t loop;
	char *end;

	memset(&lg, 0, sizeof lg);
	lg.seconds = 5;
	lg.payload = 280;
	lg.burst = 64;
	lg.kind = GAME_HOKITO;
	lg.rss_before = lg.rss_after = lg.rss_end = -1;
	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
			usage(stdout);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	for (size_t i = 0; i <= sizeof mode_names / sizeof mode_names[0]; i++) {
		if (i == sizeof mode_names / sizeof mode_names[0]) {
			fprintf(stderr, "loadgen: unknown mode '%s'\n", argv[1]);
			return 2;
		}
		if (strcmp(argv[1], mode_names[i]) == 0) {
			lg.mode = (enum lg_mode)i;
			break;
		}
	}
	optind = 2;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case O_HOST:
			host = optarg;
			break;
		case O_PORT:
			port = (int)arg_num("--port", optarg, 1, 65535);
			break;
		case O_CONNS:
			conns = (int)arg_num("--conns", optarg, 1, 200000);
			break;
		case O_GAMES:
			games = (int)arg_num("--games", optarg, 1, 100000);
			break;
		case O_SPEC:
			spectators = (int)arg_num("--spectators", optarg, 0, 200000);
			break;
		case O_KIND:
			if (strcmp(optarg, "hokito") == 0)
				lg.kind = GAME_HOKITO;
			else if (strcmp(optarg, "oxono") == 0)
				lg.kind = GAME_OXONO;
			else {
				fprintf(stderr, "loadgen: --kind wants hokito or oxono\n");
				return 2;
			}
			break;
		case O_SECONDS:
			lg.seconds = strtod(optarg, &end);
			if (*end != '\0' || !(lg.seconds > 0 && lg.seconds <= 3600)) {
				fprintf(stderr, "loadgen: --seconds wants 0 to 3600\n");
				return 2;
			}
			break;
		case O_COUNT:
			lg.count = arg_num("--count", optarg, 1, UINT64_MAX);
			break;
		case O_PAYLOAD:
			lg.payload = (size_t)arg_num("--payload", optarg, 1, 1 << 20);
			break;
		case O_PID:
			lg.pid = (int)arg_num("--pid", optarg, 1, INT_MAX);
			break;
		case O_BURST:
			lg.burst = (int)arg_num("--burst", optarg, 1, 100000);
			break;
		case O_SETUP:
			setup_timeout = (double)arg_num("--setup-timeout", optarg, 1, 3600);
			break;
		case O_SEED:
			seed = arg_num("--seed", optarg, 0, UINT64_MAX);
			break;
		case O_THINK:
			lg.think_ms = arg_num("--think", optarg, 0, 600000);
			break;
		case O_LABEL:
			lg.label = optarg;
			break;
		case O_BIND:
			bind = optarg;
			break;
		case O_TLS:
			tls = 1;
			break;
		case O_WS:
			lg.ws = 1;
			break;
		case O_PATH:
			if (lg.npaths == LG_MAX_PATHS || optarg[0] != '/' || strlen(optarg) > 400 ||
			    strpbrk(optarg, " \r\n") != NULL) {
				fprintf(stderr,
				        "loadgen: --path wants up to %d paths from '/', "
				        "without spaces\n",
				        LG_MAX_PATHS);
				return 2;
			}
			lg.paths[lg.npaths++] = optarg;
			break;
		case O_HELP:
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || port < 0) {
		usage(stderr);
		return 2;
	}
	/* loopback only: this program floods whatever it is pointed at */
	if (strcmp(host, "127.0.0.1") == 0) {
		uv_ip4_addr(host, port, (struct sockaddr_in *)&lg.addr);
	} else if (strcmp(host, "::1") == 0) {
		uv_ip6_addr(host, port, (struct sockaddr_in6 *)&lg.addr);
	} else {
		fprintf(stderr, "loadgen: --host must be 127.0.0.1 or ::1\n");
		return 2;
	}
	if (bind != NULL) {
		struct sockaddr_in src;
		uint32_t first;
		if (strcmp(host, "127.0.0.1") != 0 || uv_ip4_addr(bind, 0, &src) != 0 ||
		    ((first = ntohl(src.sin_addr.s_addr)) >> 24) != 127 ||
		    (first & 0xffffff) == 0 || (uint64_t)first + (uint64_t)conns > 0x7fffffffu) {
			fprintf(stderr, "loadgen: --bind wants a loopback address 127.x.y.z "
			                "(with --host 127.0.0.1) and room for --conns after it\n");
			return 2;
		}
		lg.bind_first = first;
	}
	if ((lg.mode == MODE_HOKITO || lg.mode == MODE_REDIS_RELAY) &&
	    (conns < 2 || conns % 2 != 0)) {
		fprintf(stderr, "loadgen: %s wants an even number of --conns\n",
		        mode_names[lg.mode]);
		return 2;
	}
	if (lg.ws && (tls || (lg.mode != MODE_HOKITO && lg.mode != MODE_SPECTATE &&
	                      lg.mode != MODE_IDLE && lg.mode != MODE_PING))) {
		fprintf(stderr,
		        "loadgen: --ws is for hokito, spectate, idle and ping, without --tls\n");
		return 2;
	}
	if ((lg.mode == MODE_HTTP) != (lg.npaths > 0)) {
		fprintf(stderr, "loadgen: http wants --path, and only http takes it\n");
		return 2;
	}
	if (spectators < 0)
		spectators = lg.mode == MODE_SPECTATE || lg.mode == MODE_REDIS_PUBSUB ? 100 : 0;
	if (tls) {
		struct tls_link_options to = {.tls = 1, .insecure = 1};
		struct tls_error err;

		if (tls_link_client_create(&lg.tls, &to, &err) < 0) {
			fprintf(stderr, "loadgen: --tls: %s\n", err.text);
			return 1;
		}
	}
	rng_init(&lg.rng, seed);
	lg_plan(&lg, conns, games, spectators);
	if (lg.mode == MODE_REDIS_SET) {
		size_t n = lg.payload + 64;

		lg.set_cmd = xmalloc(n);
		/* every connection overwrites one key: what matters is the write path */
		rc = snprintf(lg.set_cmd, n, "*3\r\n$3\r\nSET\r\n$6\r\nlg:key\r\n$%zu\r\n",
		              lg.payload);
		memset(lg.set_cmd + rc, 'v', lg.payload);
		memcpy(lg.set_cmd + rc + lg.payload, "\r\n", 3);
	}
	if (lg.mode == MODE_REDIS_PUBSUB || lg.mode == MODE_REDIS_RELAY) {
		lg.pub_payload = xmalloc(lg.payload + 1);
		memset(lg.pub_payload, 'x', lg.payload);
		/* "m<seq>:" takes some of the payload */
		lg.pub_payload[lg.payload > 12 ? lg.payload - 12 : 1] = '\0';
	}

	uv_loop_init(&loop);
	lg.loop = &loop;
	uv_timer_init(&loop, &lg.timer);
	uv_timer_init(&loop, &lg.settle);
	uv_timer_init(&loop, &lg.think);
	lg.think.data = &lg;
	TAILQ_INIT(&lg.thinking);
	lg.rss_before = proc_rss_kb(lg.pid);
	uv_timer_start(&lg.timer, end_cb, (uint64_t)(setup_timeout * 1000), 0);
	lg_setup_more(&lg);
	uv_run(&loop, UV_RUN_DEFAULT);
	/* stopped: every connection is closing; the timers go last */
	uv_close((uv_handle_t *)&lg.timer, lg_timer_close_cb);
	uv_close((uv_handle_t *)&lg.settle, lg_timer_close_cb);
	uv_close((uv_handle_t *)&lg.think, lg_timer_close_cb);
	uv_run(&loop, UV_RUN_DEFAULT);
	rc = uv_loop_close(&loop);
	if (rc != 0)
		fprintf(stderr, "loadgen: loop closed with handles left: %s\n", uv_strerror(rc));
	if (!lg.failed && lg.measuring)
		lg_print(&lg);
	for (int i = 0; i < lg.npairs; i++)
		free(lg.pairs[i].spec);
	free(lg.pairs);
	free(lg.conns);
	free(lg.set_cmd);
	free(lg.pub_payload);
	tls_client_free(lg.tls);
	if (lg.failed || !lg.measuring)
		return 1;
	return lg.errors > 0 || lg.lost > 0 ? 3 : 0;
}
