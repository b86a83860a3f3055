/*
 * engine-bot.c: hokito-engine bot, a computer player that connects to hokitod over the public
 * protocol like any person's client does (PROTOCOL.md), and plays game after game.
 *
 * The bot says hello, then asks for quick pairing in its game kind: the server seats it in the
 * oldest open game of someone else, or opens a game and the bot waits there for whoever joins.
 * It follows its game from the events (state, started, moved give the position), and when the
 * server sends your_turn it thinks and sends its move. After game_over it counts the game and
 * quick-pairs again, until --games games are played; then it closes and exits 0. An opponent
 * who drops and does not come back does not hold it: once the game is adjourned (its grace is
 * over), the bot leaves it and counts it too. A draw offer gets an answer: the bot searches the
 * position (with the search of its move, when it is its turn) and accepts when the search says
 * it is a draw or worse for the bot, else declines. A lost
 * connection, a bye or a refused request ends it with status 1: a bot is also the scripted
 * player of the load tests, and should fail loudly rather than hang.
 *
 * Thinking runs on libuv's thread pool (uv_queue_work), so the connection keeps being read while
 * the search runs; the work callback touches only the search and its own copy of the position,
 * and the after-work callback, on the loop thread, sends the move unless the game moved on
 * meanwhile (the opponent resigned, say). The search is made once per bot and keeps its table
 * from move to move. Everything lives in one struct engine_bot on main()'s stack; its TCP handle
 * is closed before the loop ends, and a write request owns its wire until its callback.
 *
 * With --tls (or a hokitos:// address) the connection runs through a struct tls_link
 * (tls-link.h). A bot runs unattended and never asks: the server must be vouched for by the
 * system's CAs or --tls-ca, or pinned already (hokito pins on first use, in the same file), or
 * --tls-accept-new pins it; anything else ends the bot with the reason.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <uv.h>

#include "engine.h"
#include "hokito-config.h"
#include "protocol.h"
#include "search.h"
#include "xmalloc.h"

#define BOT_TT_BYTES (64u << 20)
#define BOT_READ_MIN 4096

#define BOT_CONTAINER_OF(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

struct engine_bot {
	uv_loop_t *loop;
	uv_tcp_t tcp;          /* the connection; closed once, at the end */
	uv_connect_t connect;  /* the connect request */
	uv_work_t work;        /* the search on the thread pool */
	struct framer framer;  /* input lines */
	struct search *search; /* owned; made once */
	struct engine_opts *o; /* borrowed: the command line */
	char name[PROTOCOL_NAME_BYTES + 1];
	int closing;    /* the connection is being closed: ignore everything */
	int status;     /* the exit status */
	int games_done; /* games finished */
	/* the game the bot is at */
	char game_id[64]; /* "" when at no game */
	int seat;         /* 0 or 1, or -1 (spectating, or no game) */
	int live;         /* the game has started and is not over */
	int64_t seq;      /* seq of the last event seen */
	struct game pos;  /* the position after that event */
	/* the search in progress */
	int thinking;               /* a work request is queued or running */
	int64_t think_seq;          /* the seq of the position being searched */
	struct game think_pos;      /* the work's own copy of the position */
	struct search_result think; /* what it found */
	struct search_limits lim;   /* its limits */
	int draw_offered;           /* the opponent's draw offer stands: the next search answers */
	int for_draw;               /* the search in progress only weighs that offer */
	int64_t sent_seq;           /* the seq at which the bot last sent a move */
	struct tls_client *tlsc;    /* owned: the trust of --tls, or NULL in clear */
	struct tls_link *tls;       /* owned: the connection's TLS, or NULL; freed at the close */
	char host[256];             /* the host of --host, without a scheme, port or brackets */
};

struct engine_bot_write {
	uv_write_t req;
	struct wire *wire; /* owned: one reference, dropped in the callback */
};

static void engine_bot_close(struct engine_bot *b, int status);
static void engine_bot_think(struct engine_bot *b);
static void engine_bot_weigh_draw(struct engine_bot *b);

static uint64_t
engine_bot_clock_cb(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
engine_bot_write_cb(uv_write_t *req, int status)
{
	struct engine_bot_write *w = BOT_CONTAINER_OF(req, struct engine_bot_write, req);

	(void)status; /* a failed write shows up as a read error too */
	wire_unref(w->wire);
	free(w);
}

/* Send one message; steals msg. */
static void
engine_bot_send(struct engine_bot *b, json_t *msg)
{
	struct engine_bot_write *w;
	uv_buf_t buf;

	if (b->closing) {
		json_decref(msg);
		return;
	}
	if (b->tls != NULL) {
		struct wire *wire = wire_encode_steal(msg);
		struct tls_error err;

		if (tls_link_write(b->tls, wire->data, wire->len, &err) < 0)
			engine_bot_close(b, 1);
		wire_unref(wire);
		return;
	}
	w = xcalloc(1, sizeof *w);
	w->wire = wire_encode_steal(msg);
	buf = uv_buf_init(w->wire->data, (unsigned)w->wire->len);
	if (uv_write(&w->req, (uv_stream_t *)&b->tcp, &buf, 1, engine_bot_write_cb) < 0) {
		wire_unref(w->wire);
		free(w);
		engine_bot_close(b, 1);
	}
}

static void
engine_bot_quick(struct engine_bot *b)
{
	const char *variant = b->o->variant != NULL ? b->o->variant : "standard";

	engine_bot_send(b, msg_quick_new(game_kind_name(b->o->kind), variant, NULL));
}

static void
engine_bot_tcp_close_cb(uv_handle_t *h)
{
	struct engine_bot *b = BOT_CONTAINER_OF(h, struct engine_bot, tcp);

	tls_link_free(b->tls);
	b->tls = NULL;
}

/* End the session: close the connection (once); the loop ends when the search is done too. */
static void
engine_bot_close(struct engine_bot *b, int status)
{
	if (b->closing)
		return;
	b->closing = 1;
	b->status = status;
	if (b->tls != NULL)
		tls_link_shutdown(b->tls);
	uv_read_stop((uv_stream_t *)&b->tcp);
	uv_close((uv_handle_t *)&b->tcp, engine_bot_tcp_close_cb);
}

/* Thread pool: search the copied position. Touches only the search and the think_* fields. */
static void
engine_bot_work_cb(uv_work_t *req)
{
	struct engine_bot *b = BOT_CONTAINER_OF(req, struct engine_bot, work);

	search_run(b->search, &b->think_pos, &b->lim, &b->think);
}

/*
 * Answer the standing draw offer from the search just done (think_pos is the position now):
 * accept when its score, turned to the bot's view, says a draw or worse for the bot, else
 * decline. Returns 1 if it accepted (the game ends: no move to send), else 0.
 */
static int
engine_bot_draw_answer(struct engine_bot *b)
{
	int score = game_side(&b->think_pos) == b->seat ? b->think.score : -b->think.score;
	int accept = score <= 0;

	b->draw_offered = 0;
	printf("game %s: draw offer %s (score %d for the bot)\n", b->game_id,
	       accept ? "accepted" : "declined", score);
	fflush(stdout);
	engine_bot_send(b, msg_new(accept ? MSG_DRAW_ACCEPT : MSG_DRAW_DECLINE, NULL));
	return accept;
}

/* Loop thread: send the move found, if the game is still where the search left it. */
static void
engine_bot_after_work_cb(uv_work_t *req, int status)
{
	struct engine_bot *b = BOT_CONTAINER_OF(req, struct engine_bot, work);
	char text[GAME_MOVE_TEXT];

	b->thinking = 0;
	if (status < 0 || b->closing)
		return;
	if (!b->live || b->seq != b->think_seq) {
		/* The game moved on while we thought (a resignation, then a new game): think
		 * again if it is our turn there, since its your_turn came while we were busy. */
		engine_bot_think(b);
		engine_bot_weigh_draw(b);
		return;
	}
	if (b->draw_offered && engine_bot_draw_answer(b))
		return; /* accepted: the game is over, no move */
	if (b->for_draw)
		return;
	game_move_format(b->pos.kind, b->think.best, text, sizeof text);
	b->sent_seq = b->seq;
	engine_bot_send(b, msg_move_new(b->game_id, text, NULL));
}

/* Queue the search of the position at seq (for a move, or for_draw only to weigh an offer). */
static void
engine_bot_search(struct engine_bot *b, int for_draw)
{
	b->for_draw = for_draw;
	search_level_limits(b->o->level, b->pos.kind, b->o->seed, &b->lim);
	if (b->o->time_ms != 0) {
		b->lim.depth = 0;
		b->lim.nodes = 0;
		b->lim.time_ms = b->o->time_ms;
		b->lim.clock_cb = engine_bot_clock_cb;
	}
	b->think_pos = b->pos;
	b->think_seq = b->seq;
	b->thinking = 1;
	if (uv_queue_work(b->loop, &b->work, engine_bot_work_cb, engine_bot_after_work_cb) < 0) {
		b->thinking = 0;
		engine_bot_close(b, 1);
	}
}

/* It is our turn at seq: start thinking (which answers a standing draw offer too). */
static void
engine_bot_think(struct engine_bot *b)
{
	if (b->thinking || !b->live || b->seat < 0 || game_side(&b->pos) != b->seat ||
	    game_over(&b->pos))
		return;
	engine_bot_search(b, 0);
}

/*
 * A draw offer stands on the opponent's turn: search the position only to answer it. On our own
 * turn (or while a search runs) the search of the move answers it.
 */
static void
engine_bot_weigh_draw(struct engine_bot *b)
{
	if (!b->draw_offered || b->thinking || !b->live || b->seat < 0 || game_over(&b->pos))
		return;
	if (game_side(&b->pos) == b->seat)
		engine_bot_think(b);
	else
		engine_bot_search(b, 1);
}

/* Take the position text of an event; returns 0 or -1 if it is not one of our game's kind. */
static int
engine_bot_position(struct engine_bot *b, const char *text)
{
	struct game g;

	if (text == NULL || game_parse(&g, b->o->kind, text, NULL) < 0)
		return -1;
	b->pos = g;
	return 0;
}

/* A state: the game we were seated in (reply to quick), or the state after a resume. */
static void
engine_bot_state(struct engine_bot *b, const struct msg *m)
{
	const char *you = msg_str(m, "you"), *status = msg_str(m, "status");
	const char *id = msg_str(m, "game");

	snprintf(b->game_id, sizeof b->game_id, "%s", id != NULL ? id : "");
	b->seat = -1;
	if (you != NULL)
		game_side_parse(b->o->kind, you, &b->seat);
	if (you != NULL && strcmp(you, "spectator") == 0)
		b->seat = -1;
	b->live = status != NULL && strcmp(status, "live") == 0;
	b->seq = msg_int(m, "seq", 0);
	b->sent_seq = -1;
	b->draw_offered = 0;
	if (engine_bot_position(b, msg_str(m, "position")) < 0) {
		(void)engine_fail(1, "bot: unreadable position in state");
		engine_bot_close(b, 1);
		return;
	}
	printf("game %s: seated as %s, %s\n", b->game_id,
	       b->seat >= 0 ? game_side_name(b->o->kind, b->seat) : "spectator",
	       b->live ? "playing" : "waiting for an opponent");
	fflush(stdout);
}

/* The game ends for the bot: count it, and pair again or stop. */
static void
engine_bot_next(struct engine_bot *b)
{
	b->games_done++;
	if (b->o->games > 0 && b->games_done >= b->o->games) {
		engine_bot_close(b, 0);
		return;
	}
	engine_bot_quick(b);
}

static void
engine_bot_game_over(struct engine_bot *b, const struct msg *m)
{
	const char *result = msg_str(m, "result"), *winner = msg_str(m, "winner");
	const char *reason = msg_str(m, "reason");
	const char *me = b->seat >= 0 ? game_side_name(b->o->kind, b->seat) : "";

	b->live = 0;
	b->draw_offered = 0;
	b->seq = msg_int(m, "seq", b->seq);
	printf("game %s over: %s%s%s (%s); the bot %s\n", b->game_id, result ? result : "?",
	       winner ? " for " : "", winner ? winner : "", reason ? reason : "?",
	       result != NULL && strcmp(result, "draw") == 0 ? "drew"
	       : winner != NULL && strcmp(winner, me) == 0   ? "won"
	       : winner != NULL                              ? "lost"
	                                                     : "did not play");
	fflush(stdout);
	engine_bot_next(b);
}

/*
 * The opponent dropped and its grace ran out in this game without a clock (the bot's games have
 * none): the game is adjourned (PROTOCOL.md 11.3). The bot leaves it (its seat is kept, and the
 * game is abandoned once nobody is at it) to play someone who is there.
 */
static void
engine_bot_adjourned(struct engine_bot *b)
{
	if (b->seat < 0)
		return;
	b->live = 0;
	printf("game %s adjourned: the opponent did not come back; the bot leaves it\n",
	       b->game_id);
	fflush(stdout);
	engine_bot_send(b, msg_new(MSG_LEAVE, NULL));
	b->game_id[0] = '\0';
	b->seat = -1;
	engine_bot_next(b);
}

/* Handle one message from the server. */
static void
engine_bot_handle(struct engine_bot *b, const struct msg *m)
{
	const char *game = msg_str(m, "game");
	int ours = game != NULL && strcmp(game, b->game_id) == 0;

	switch (m->type) {
	case MSG_WELCOME:
		engine_bot_quick(b);
		break;
	case MSG_STATE:
		engine_bot_state(b, m);
		break;
	case MSG_STARTED:
		if (!ours)
			break;
		b->live = 1;
		b->seq = msg_int(m, "seq", b->seq);
		if (engine_bot_position(b, msg_str(m, "position")) < 0)
			engine_bot_close(b, 1);
		break;
	case MSG_SEATED:
		if (ours)
			b->seq = msg_int(m, "seq", b->seq);
		break;
	case MSG_MOVED:
		if (!ours)
			break;
		b->seq = msg_int(m, "seq", b->seq);
		if (engine_bot_position(b, msg_str(m, "position")) < 0)
			engine_bot_close(b, 1);
		break;
	case MSG_GAME_OVER:
		if (ours)
			engine_bot_game_over(b, m);
		break;
	case MSG_YOUR_TURN:
		if (ours)
			engine_bot_think(b);
		break;
	case MSG_ADJOURNED:
		if (ours)
			engine_bot_adjourned(b);
		break;
	case MSG_DRAW_OFFERED: {
		const char *by = msg_str(m, "by");
		int side = -1;

		if (!ours || by == NULL || game_side_parse(b->o->kind, by, &side) < 0 ||
		    side == b->seat)
			break;
		if (b->sent_seq == b->seq)
			break; /* made before our move reached the server: it lapses with it */
		b->draw_offered = 1;
		engine_bot_weigh_draw(b);
		break;
	}
	case MSG_ERROR:
		(void)engine_fail(1, "bot: the server refused %s: %s (%s)",
		                  msg_str(m, "request") ? msg_str(m, "request") : "a request",
		                  msg_str(m, "text") ? msg_str(m, "text") : "",
		                  msg_str(m, "code") ? msg_str(m, "code") : "?");
		engine_bot_close(b, 1);
		break;
	case MSG_BYE:
		(void)engine_fail(1, "bot: the server said bye (%s)",
		                  msg_str(m, "reason") ? msg_str(m, "reason") : "?");
		engine_bot_close(b, 1);
		break;
	default:
		break; /* ok, pong, presence, spectators, games: nothing to do */
	}
}

static void
engine_bot_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct engine_bot *b = BOT_CONTAINER_OF(h, struct engine_bot, tcp);
	char *base;
	size_t size;

	(void)suggested;
	if (b->tls != NULL) {
		tls_link_alloc(b->tls, buf);
		return;
	}
	framer_space(&b->framer, BOT_READ_MIN, &base, &size);
	*buf = uv_buf_init(base, (unsigned)size);
}

/*
 * A TLS read: plaintext into the framer. An unknown server is pinned with --tls-accept-new and
 * refused otherwise (a bot does not ask). Returns 0 to go on, -1 when the bot is closing.
 */
static int
engine_bot_tls_read(struct engine_bot *b, size_t n)
{
	struct tls_error err;
	char shown[TLS_FINGERPRINT_TEXT_LEN + 1];
	int rc = tls_link_read(b->tls, n, &b->framer, &err);

	if (rc == TLS_ENEWHOST && b->o->tls.accept_new && (rc = tls_link_trust(b->tls, &err)) == 0)
		fprintf(stderr, "hokito-engine: bot: pinned the certificate of %s:%d (%s)\n",
		        b->o->host, b->o->port,
		        tls_fingerprint_text(tls_conn_fingerprint(b->tls->conn), shown,
		                             sizeof shown));
	if (rc == 0)
		return 0;
	if (rc == TLS_ENEWHOST)
		(void)engine_fail(1,
		                  "bot: TLS: %s (a bot does not ask: give --tls-ca, or "
		                  "--tls-accept-new to pin it)",
		                  err.text);
	else if (rc == TLS_ECLOSED)
		(void)engine_fail(1, "bot: connection lost: closed by the server");
	else
		(void)engine_fail(1, "bot: TLS: %s", err.text);
	engine_bot_close(b, 1);
	return -1;
}

static void
engine_bot_read_cb(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	struct engine_bot *b = BOT_CONTAINER_OF(stream, struct engine_bot, tcp);
	const char *line;
	size_t len;
	int rc;

	(void)buf;
	if (b->closing)
		return;
	if (nread < 0) {
		(void)engine_fail(1, "bot: connection lost: %s",
		                  nread == UV_EOF ? "closed by the server"
		                                  : uv_strerror((int)nread));
		engine_bot_close(b, 1);
		return;
	}
	if (b->tls != NULL) {
		if (engine_bot_tls_read(b, (size_t)nread) < 0)
			return;
	} else {
		framer_commit(&b->framer, (size_t)nread);
	}
	while (!b->closing && (rc = framer_next(&b->framer, &line, &len)) != 0) {
		struct msg m;
		struct msg_error err;

		if (rc < 0) {
			(void)engine_fail(1, "bot: the server sent a line over the limit");
			engine_bot_close(b, 1);
			return;
		}
		if (len == 0)
			continue;
		if (msg_decode(&m, line, len, &err) == 0)
			engine_bot_handle(b, &m);
		else
			(void)engine_fail(1, "bot: unreadable line from the server: %s", err.text);
		msg_clear(&m);
	}
}

static void
engine_bot_connect_cb(uv_connect_t *req, int status)
{
	struct engine_bot *b = BOT_CONTAINER_OF(req, struct engine_bot, connect);
	json_t *hello;

	if (status < 0) {
		(void)engine_fail(1, "bot: cannot connect to %s:%d: %s", b->o->host, b->o->port,
		                  uv_strerror(status));
		engine_bot_close(b, 1);
		return;
	}
	uv_tcp_nodelay(&b->tcp, 1);
	if (b->tlsc != NULL) {
		if (b->o->tls.insecure)
			fprintf(stderr,
			        "hokito-engine: bot: --tls-insecure: the server's certificate "
			        "is not checked (for tests only)\n");
		b->tls = tls_link_create((uv_stream_t *)&b->tcp, b->tlsc, b->o->host, b->o->port);
	}
	if (uv_read_start((uv_stream_t *)&b->tcp, engine_bot_alloc_cb, engine_bot_read_cb) < 0) {
		engine_bot_close(b, 1);
		return;
	}
	hello = msg_hello_new(b->name, NULL, -1, NULL);
	json_object_set_new(hello, "client", json_string("hokito-engine bot " HOKITO_VERSION));
	engine_bot_send(b, hello);
}

/* Resolve host:port: a literal address, or a name through the system resolver. */
static int
engine_bot_resolve(struct engine_bot *b, struct sockaddr_storage *ss)
{
	struct addrinfo hints, *res;
	uv_getaddrinfo_t req;
	char port[16];
	int rc;

	if (uv_ip4_addr(b->o->host, b->o->port, (struct sockaddr_in *)ss) == 0)
		return 0;
	if (uv_ip6_addr(b->o->host, b->o->port, (struct sockaddr_in6 *)ss) == 0)
		return 0;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof port, "%d", b->o->port);
	rc = uv_getaddrinfo(b->loop, &req, NULL, b->o->host, port, &hints);
	if (rc < 0)
		return rc;
	res = req.addrinfo;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	uv_freeaddrinfo(res);
	return 0;
}

int
engine_bot(struct engine_opts *o)
{
	struct engine_bot b;
	struct sockaddr_storage ss;
	struct tls_error terr;
	int rc, url_port = 0;

	if (o->nargs > 0)
		return engine_fail(EXIT_USAGE, "bot takes no position ('%s')", o->args[0]);
	memset(&b, 0, sizeof b);
	if (o->host == NULL)
		o->host = "127.0.0.1";
	if (o->host[0] == '\0')
		return engine_fail(EXIT_USAGE, "--host takes the server's address, not ''");
	if (tls_link_address(o->host, b.host, sizeof b.host, &url_port, &o->tls.tls) < 0)
		return engine_fail(
		        EXIT_USAGE,
		        "--host: '%s' is not a server address (HOST, HOST:PORT, "
		        "[IPV6]:PORT, hokito://HOST:PORT or hokitos://HOST:PORT for TLS)",
		        o->host);
	o->host = b.host;
	if (url_port != 0 && o->port != 0 && url_port != o->port)
		return engine_fail(EXIT_USAGE, "--host names port %d and --port %d: give one",
		                   url_port, o->port);
	if (url_port != 0)
		o->port = url_port;
	if (o->port == 0)
		o->port = url_port != 0 ? url_port : 7777;
	if (o->level == 0)
		o->level = SEARCH_LEVEL_MAX;
	b.o = o;
	b.seat = -1;
	/* Checked whole before it is copied: a name that fits the rule fits b.name. */
	if (o->name != NULL && protocol_name_check(o->name) < 0)
		return engine_fail(EXIT_USAGE,
		                   "--name '%s' is not a valid display name (" PROTOCOL_NAME_RULE
		                   ")",
		                   o->name);
	if (o->name != NULL)
		snprintf(b.name, sizeof b.name, "%s", o->name);
	else
		snprintf(b.name, sizeof b.name, "bot-l%d", o->level);
	b.loop = uv_default_loop();
	if ((rc = engine_bot_resolve(&b, &ss)) < 0)
		return engine_fail(1, "cannot resolve %s: %s", o->host, uv_strerror(rc));
	if (o->tls.tls && tls_link_client_create(&b.tlsc, &o->tls, &terr) < 0)
		return engine_fail(1, "bot: TLS: %s", terr.text);
	b.search = search_create(BOT_TT_BYTES, o->seed);
	framer_init(&b.framer, PROTOCOL_SERVER_LINE_MAX);
	uv_tcp_init(b.loop, &b.tcp);
	rc = uv_tcp_connect(&b.connect, &b.tcp, (const struct sockaddr *)&ss,
	                    engine_bot_connect_cb);
	if (rc < 0) {
		(void)engine_fail(1, "bot: cannot connect to %s:%d: %s", o->host, o->port,
		                  uv_strerror(rc));
		engine_bot_close(&b, 1);
	}
	uv_run(b.loop, UV_RUN_DEFAULT);
	uv_loop_close(b.loop);
	framer_close(&b.framer);
	search_free(b.search);
	tls_client_free(b.tlsc);
	return b.status;
}
