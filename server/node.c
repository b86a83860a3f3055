/*
 * node.c: one server node: the network layer, the game layer, the turn pipeline, the computer
 * players and the fan-out port on one libuv loop, and the calls between them.
 *
 * Every callback of the loop that reaches the game layer (a line, a connection gone, the tick,
 * the wake-up, a computer's move, a store read's answer) ends with net_reap(), outside the game
 * layer: a client whose output overflowed during the call is closed only then (lobby.h's
 * re-entrancy rule). It owns what it puts together; the store is borrowed.
 *
 * The game layer reaches the store through its ports (store-port.h), which this file fills from
 * the SQLite store: the write port for the restore (and, in the turn pipeline, durable.c), and
 * the read ports, run by a reader (reader.h) on threads and connections of their own, fairly by
 * the asker's address, for history, record, profile and leaderboard (ops->read); the answers
 * come back through handlers_read_done(). The operators'
 * requests come from the admin socket (admin.h) to operators.h, and their answers go back once
 * the network layer's output of their turn is released (net_ops.released): durable too.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "archive.h"
#include "auth.h"
#include "durable.h"
#include "fanout.h"
#include "guard.h"
#include "handlers.h"
#include "hasher.h"
#include "http.h"
#include "hokito-config.h"
#include "ladder.h"
#include "log.h"
#include "node.h"
#include "operators.h"
#include "osrand.h"
#include "pairing.h"
#include "reader.h"
#include "restore.h"
#include "think.h"
#include "table.h"
#include "turn.h"
#include "web-api.h"
#include "web-metrics.h"
#include "xmalloc.h"

struct node {
	uv_loop_t *loop;
	struct net *net;               /* connections */
	struct lobby *lobby;           /* the game layer */
	struct turn *turn;             /* group commit, then the held output */
	struct think *think;           /* the computer players' searches */
	struct hasher *hasher;         /* the password jobs (accounts) */
	struct fanout fanout;          /* the in-process fan-out port: to durable, then peers */
	struct store_write_port wport; /* the store's write port, lent to the lobby (restore) */
	struct reader *reader;         /* runs the lobby's store reads; NULL without a store */
	struct admin *admin;           /* the operators' socket (node_admin()), or NULL */
	uv_timer_t tick;               /* lobby_tick every second */
	uv_timer_t wake;               /* lobby_wake at the next deadline (ops->timer) */
	uv_timer_t sweep;              /* --keep-days: node_sweep_cb every NODE_SWEEP_MS */
	int sweeping;                  /* sweep was started */
	int64_t keep_ms;               /* --keep-days in milliseconds */
	uv_timer_t unused;    /* --unused-account-days: node_unused_cb every NODE_SWEEP_MS */
	int releasing;        /* unused was started */
	int64_t unused_ms;    /* --unused-account-days in milliseconds */
	int64_t unused_after; /* the last account id the sweep looked at */
	int unused_reading;   /* its read is out (node_unused_cb()) */
	int unused_failing;   /* its last read failed (said once) */
	uint64_t unused_t0;   /* when it went out */
	struct http *http;    /* --listen-http, --listen-https (node_listen_http()), or NULL */
	uv_timer_t lag;       /* every NODE_LAG_MS: how late the loop runs it (lag_hist) */
	uint64_t lag_due;     /* when it is due next (uv_hrtime(), ns) */
	struct hist lag_hist; /* the loop's lag, for the metrics */
	uint64_t started_ms;  /* uv_now() at the start */
	/* the in-process fan-out's publish, which node_publish_cb() calls after counting */
	void (*local_publish)(const struct fanout *fo, struct table *t, int64_t seq,
	                      enum msg_type type, const struct event *ev, struct wire *w,
	                      const struct session *skip);
	uint64_t events;                  /* game events published, for the metrics */
	LIST_HEAD(, node_stream) streams; /* /api/stream/game/ID answers (node_stream_start_cb) */
	uv_timer_t keepalive;             /* their newline every NODE_STREAM_KEEPALIVE_MS */
	struct wire *newline;             /* that newline ("\n") */
	uint64_t moves;                   /* of them, moves */
	int stopping;
	char server_name[64];
};

#define NODE_LAG_MS              100  /* the loop lag's timer */
#define NODE_STREAM_KEEPALIVE_MS 6000 /* a stream's newline while its game is quiet */

/* A stream of a game's events over HTTP (http_stream()): a peer of the network layer. */
struct node_stream {
	struct lobby_peer *peer; /* borrowed: a link of the network layer, until it is gone */
	char game[16];           /* the game it follows */
	int ended;               /* game_over was sent: closing */
	LIST_ENTRY(node_stream) link;
};

static int node_stream_gone(struct node *nd, struct lobby_peer *peer);

/* lobby_ops.send */
static void
node_send_cb(void *arg, struct lobby_peer *peer, struct wire *w)
{
	(void)arg;
	net_send(peer, w);
}

/* lobby_ops.close: the session went to another connection. */
static void
node_close_cb(void *arg, struct lobby_peer *peer)
{
	(void)arg;
	net_close(peer);
}

/*
 * lobby_ops.pause: a read or a password job of peer's is out (paused), or answered: the network
 * layer stops handing up peer's lines and reading it meanwhile, then goes on at the next reap.
 */
static void
node_pause_cb(void *arg, struct lobby_peer *peer, int paused)
{
	(void)arg;
	if (paused)
		net_pause(peer);
	else
		net_resume(peer, peer->session != NULL);
}

/* lobby_ops.now: the loop's monotonic clock in milliseconds. */
static uint64_t
node_now_cb(void *arg)
{
	struct node *nd = arg;

	return uv_now(nd->loop);
}

/* The game layer's deadline came (a flag fell, a grace period ran out). */
static void
node_wake_cb(uv_timer_t *t)
{
	struct node *nd = t->data;

	lobby_wake(nd->lobby);
	pairing_wake(nd->lobby); /* the rated quick pool's windows widened (lobby_arm()) */
	net_reap(nd->net);
}

/* lobby_ops.timer: the game layer computes when; the node owns the timer. */
static void
node_timer_cb(void *arg, uint64_t delay_ms)
{
	struct node *nd = arg;

	if (nd->stopping || uv_is_closing((uv_handle_t *)&nd->wake))
		return;
	if (delay_ms == UINT64_MAX)
		uv_timer_stop(&nd->wake);
	else
		uv_timer_start(&nd->wake, node_wake_cb, delay_ms, 0);
}

/* lobby_ops.think: the computer's search, on the thread pool. */
static void
node_think_cb(void *arg, const char *game_id, int64_t ply, const struct game *g, int level,
              uint64_t seed, uint64_t time_ms)
{
	struct node *nd = arg;

	think_request(nd->think, game_id, ply, g, level, seed, time_ms);
}

/* lobby_ops.think_busy */
static int
node_think_busy_cb(void *arg)
{
	struct node *nd = arg;

	return think_busy(nd->think);
}

/* lobby_ops.think_cancel: the game is over; its search stops now. */
static void
node_think_cancel_cb(void *arg, const char *game_id)
{
	struct node *nd = arg;

	think_cancel(nd->think, game_id);
}

/* lobby_ops.unseated: the session's stored seat goes too (written at the end of the turn). */
static void
node_unseated_cb(void *arg, const char *token)
{
	struct node *nd = arg;
	struct durable *d = turn_durable(nd->turn);

	if (d != NULL) /* NULL after a failed start (node_restore()) */
		durable_unseated(d, token);
}

/* lobby_ops.account_add: the new account's row goes in the turn's transaction. */
static void
node_account_add_cb(void *arg, struct store_account *row)
{
	struct node *nd = arg;
	struct durable *d = turn_durable(nd->turn);

	if (d != NULL)
		durable_account_add(d, row);
}

/* lobby_ops.account_update: the account's new values go in the turn's transaction. */
static void
node_account_update_cb(void *arg, struct store_account *row)
{
	struct node *nd = arg;
	struct durable *d = turn_durable(nd->turn);

	if (d != NULL)
		durable_account_update(d, row);
}

/* lobby_ops.hash: a password job to the pool (after shutdown, nowhere). */
static void
node_hash_cb(void *arg, struct auth_job *j)
{
	struct node *nd = arg;

	if (nd->hasher == NULL)
		auth_job_free(j);
	else
		hasher_submit(nd->hasher, j);
}

/* The pool ran a password job: to the game layer, on the loop's thread. */
static void
node_hash_done_cb(void *arg, struct auth_job *j)
{
	struct node *nd = arg;

	if (j->op == AUTH_RESET) { /* an operator's: the answer goes to the admin socket */
		json_t *answer = operators_hash_done(nd->lobby, j);

		if (nd->admin != NULL)
			admin_reply(nd->admin, j->ticket, answer, net_turn(nd->net));
		else
			json_decref(answer);
		auth_job_free(j);
	} else {
		handlers_auth_done(nd->lobby, j);
	}
	net_reap(nd->net);
}

/* think_ops.move: hand the computer's move to the game layer, which drops it if the game went on.
 */
static void
node_move_cb(void *arg, const char *game_id, int64_t ply, const char *move)
{
	struct node *nd = arg;

	lobby_computer_move(nd->lobby, game_id, ply, move);
	net_reap(nd->net);
}

/* turn_ops.counters */
static void
node_counters_cb(void *arg, unsigned *next_player, unsigned *next_game)
{
	struct node *nd = arg;

	lobby_counters(nd->lobby, next_player, next_game);
}

/*
 * Whether a request whose members msg_request_decode() refused goes to the game layer all the
 * same, for a refusal that comes first whatever the members: before hello every request but
 * hello and register gets hello_required, after it every hello already_welcomed, and test_clock on
 * a server without --test-clock unknown_type, as any unknown type.
 */
static int
node_refusal_to_lobby(const struct node *nd, const struct lobby_peer *peer, const struct msg *m)
{
	if (m->type == MSG_NONE)
		return 0;
	if (peer->session == NULL ? m->type != MSG_HELLO && m->type != MSG_REGISTER
	                          : m->type == MSG_HELLO)
		return 1;
	return m->type == MSG_TEST_CLOCK && !nd->lobby->cfg.test_clock;
}

/* net_ops.line: decode one whole line and hand it to the game layer, or refuse it. */
static int
node_line_cb(void *arg, struct lobby_peer *peer, const char *line, size_t len)
{
	struct node *nd = arg;
	struct msg_error err;
	struct msg m;

	if (guard_refuse_unread(nd->lobby, peer))
		return peer->session != NULL; /* a flood's line, refused unread */
	if (msg_request_decode(&m, line, len, &err) < 0 && !node_refusal_to_lobby(nd, peer, &m)) {
		struct wire *w = wire_encode_steal(msg_decode_error_new(&m, &err));

		log_debug("connection %s: refused a line: %s", net_peer_addr(peer), err.text);
		net_send(peer, w);
		wire_unref(w);
	} else {
		handlers_dispatch(nd->lobby, peer, &m);
	}
	msg_clear(&m);
	return peer->session != NULL;
}

/* An operator's request from the admin socket: to the game layer (operators.h). */
static void
node_admin_cb(void *arg, uint64_t ticket, const json_t *req)
{
	struct node *nd = arg;
	json_t *answer = operators_request(nd->lobby, req, ticket);

	if (answer != NULL) /* else it comes from the pool: node_hash_done_cb() */
		admin_reply(nd->admin, ticket, answer, net_turn(nd->net));
	net_reap(nd->net); /* a banned player's connection, closed */
}

/*
 * net_ops.released: the admin socket's answers of those turns are durable too, but for those of
 * the turns held while the store cannot write (turn_held_from()): they wait with the rest.
 */
static void
node_released_cb(void *arg, uint64_t turn)
{
	struct node *nd = arg;
	uint64_t from = turn_held_from(nd->turn);

	if (nd->admin != NULL)
		admin_release(nd->admin, from != 0 && turn >= from ? from - 1 : turn);
}

/* net_ops.stopped: every connection is closed; the HTTP side's handles go too. */
static void
node_stopped_cb(void *arg)
{
	struct node *nd = arg;

	http_close(nd->http);
}

/* net_ops.queued: requests read behind a held one count against their address's rate now. */
static void
node_queued_cb(void *arg, struct lobby_peer *peer, size_t n)
{
	struct node *nd = arg;

	guard_rate_arrived(nd->lobby, peer, n);
}

/* net_ops.gone */
static void
node_gone_cb(void *arg, struct lobby_peer *peer)
{
	struct node *nd = arg;

	if (node_stream_gone(nd, peer))
		return; /* no session: nothing for the game layer */
	lobby_peer_gone(nd->lobby, peer);
}

static void
node_tick_cb(uv_timer_t *t)
{
	struct node *nd = t->data;

	lobby_tick(nd->lobby);
	guard_tick(nd->lobby);
	net_reap(nd->net);
}

/*
 * lobby_ops.read: the game layer's store read goes to the reader's fair queue under its asker's
 * address (after shutdown, nowhere). Refused when that address has its maximum of reads out.
 */
static int
node_read_cb(void *arg, struct archive_read *r)
{
	struct node *nd = arg;

	if (nd->reader == NULL) {
		archive_read_free(r); /* shutting down: its connection goes unanswered */
		return 0;
	}
	return reader_submit(nd->reader, r->addr, r) < 0 ? -1 : 0;
}

/* http_ops.read: the read API's read, as the game layer's (r is freed when refused). */
static int
node_http_read_cb(void *arg, struct archive_read *r)
{
	if (node_read_cb(arg, r) < 0) {
		archive_read_free(r);
		return -1;
	}
	return 0;
}

static void node_unused_done(struct node *nd, const struct archive_read *r);

/* The reader answered a read: to the game layer, on the loop's thread. */
static void
node_read_done_cb(void *arg, struct archive_read *r)
{
	struct node *nd = arg;

	if (r->kind == ARCHIVE_READ_UNUSED) {
		node_unused_done(nd, r);
		archive_read_free(r);
	} else if (r->ticket & HTTP_READ_TICKET) {
		http_read_done(nd->http, r); /* the read API's (web-api.h) */
	} else {
		handlers_read_done(nd->lobby, r);
	}
	net_reap(nd->net);
}

/*
 * The reader of the game layer's store reads: threads read_threads (at least one), each on a
 * connection of its own (store_db_reader_open()); a temporary store (":memory:"), which no second
 * connection can see, is read on its own connection on the loop's thread (a loop_only port). A
 * thread whose connection could not be opened is not started (said in the log); without any,
 * the server cannot answer reads and stops.
 */
static void
node_reader_start(struct node *nd, struct store_db *st, unsigned threads, unsigned per_addr)
{
	struct reader_config cfg = {.per_key = per_addr, .seed = osrand_u64()};
	struct store_read_port *ports = xcalloc(threads > 0 ? threads : 1, sizeof *ports);
	struct store_error err;
	unsigned n = 0;
	int rc;

	for (unsigned i = 0; i < (threads > 0 ? threads : 1); i++) {
		if (store_db_reader_open(st, &ports[n], &err) < 0) {
			log_warn("store: reader %u of %u has no connection of its own (%s)", i + 1,
			         threads, err.text);
			break;
		}
		if (ports[n++].loop_only)
			break; /* the loop's own connection: one port */
	}
	if (n == 0) {
		log_error("store: no reader could connect; stopping");
		exit(1);
	}
	if ((rc = reader_create(nd->loop, ports, n, &cfg, node_read_done_cb, nd, &nd->reader)) <
	    0) {
		log_error("store: cannot start its reader: %s", uv_strerror(rc));
		abort(); /* as out of memory: a libuv async handle or a thread */
	}
	free(ports);
	log_debug("store: %u reader threads, at most %u reads queued per address",
	          reader_threads(nd->reader), per_addr);
}

/* The password jobs' pool: its threads (hasher.h). */
static void
node_hasher_start(struct node *nd)
{
	int rc;

	if ((rc = hasher_create(nd->loop, node_hash_done_cb, nd, &nd->hasher)) < 0) {
		log_error("accounts: cannot start the password threads: %s", uv_strerror(rc));
		abort(); /* as out of memory: a libuv async handle or a thread */
	}
}

/* turn_ops.store_changed: the store went down (why) or came back (NULL). */
static void
node_store_changed_cb(void *arg, const char *why)
{
	struct node *nd = arg;

	lobby_store_changed(nd->lobby, why);
}

/* lobby_ops.store_ask: a request would write while the store is down; try it now. */
static int
node_store_ask_cb(void *arg)
{
	struct node *nd = arg;

	return turn_store_ask(nd->turn);
}

/* lobby_ops.waiting_seq: what of a game waits for the store (turn_waiting_seq()). */
static int64_t
node_waiting_seq_cb(void *arg, const char *game_id)
{
	struct node *nd = arg;

	return turn_waiting_seq(nd->turn, game_id);
}

/* lobby_ops.hold: peer's next lines wait for the store, and it is told so. */
static void
node_hold_cb(void *arg, struct lobby_peer *peer)
{
	struct node *nd = arg;

	net_hold_peer(peer, turn_waiting_notice(nd->turn));
}

/* lobby_ops.marks */
static void
node_marks_cb(void *arg, unsigned *player, unsigned *game)
{
	struct node *nd = arg;

	turn_marks(nd->turn, player, game);
}

/* lobby_ops.account_waits */
static int
node_account_waits_cb(void *arg, int64_t account)
{
	struct node *nd = arg;

	return turn_waiting_account(nd->turn, account);
}

/* lobby_ops.send_ahead */
static void
node_send_ahead_cb(void *arg, struct lobby_peer *peer, struct wire *w)
{
	(void)arg;
	net_send_ahead(peer, w);
}

/*
 * An event of t (its line w, borrowed) to the streams that follow t: after the game's other
 * receivers, and held with them until the turn is durable (net_send()); a stream ends after
 * game_over.
 */
static void
node_streams_event(struct node *nd, const struct table *t, enum msg_type type, struct wire *w)
{
	struct node_stream *st;

	LIST_FOREACH(st, &nd->streams, link)
	{
		if (st->ended || strcmp(st->game, t->id) != 0)
			continue;
		net_send(st->peer, w);
		if (type == MSG_GAME_OVER) {
			st->ended = 1;
			net_close(st->peer);
		}
	}
}

/* http_ops.stream_ok: a public game the lobby holds. */
static int
node_stream_ok_cb(void *arg, const char *id)
{
	struct node *nd = arg;
	const struct table *t = lobby_table_find(nd->lobby, id);

	if (t == NULL || t->is_private)
		return 0;
	return lobby_waiting_seq(nd->lobby, t) == 0 ? 1 : HTTP_STREAM_WAIT;
}

/*
 * http_ops.stream_start: the game's state (its events after since, when since is one of its
 * seqs), then its events as they come (node_streams_event()); a finished game's stream ends
 * there.
 */
static void
node_stream_start_cb(void *arg, struct lobby_peer *peer, const char *id, int64_t since)
{
	struct node *nd = arg;
	struct table *t = lobby_table_find(nd->lobby, id);
	struct node_stream *st = xcalloc(1, sizeof *st);

	st->peer = peer;
	snprintf(st->game, sizeof st->game, "%s", id);
	LIST_INSERT_HEAD(&nd->streams, st, link);
	if (since >= 0 && (size_t)since <= t->nlog) {
		for (size_t i = (size_t)since; i < t->nlog; i++)
			net_send(peer, t->log[i]);
	} else {
		struct wire *w = wire_encode_steal(table_state_new(t, NULL, NULL));

		net_send(peer, w);
		wire_unref(w);
	}
	if (t->st.status == EVENT_STATUS_FINISHED) {
		st->ended = 1;
		net_close(peer);
	}
}

/* A stream's connection is gone: forget it. Returns whether peer was a stream's. */
static int
node_stream_gone(struct node *nd, struct lobby_peer *peer)
{
	struct node_stream *st;

	LIST_FOREACH(st, &nd->streams, link)
	if (st->peer == peer) {
		LIST_REMOVE(st, link);
		free(st);
		return 1;
	}
	return 0;
}

/* Every NODE_STREAM_KEEPALIVE_MS: a newline to each stream, so that proxies keep it open. */
static void
node_keepalive_cb(uv_timer_t *timer)
{
	struct node *nd = timer->data;
	struct node_stream *st;

	LIST_FOREACH(st, &nd->streams, link)
	if (!st->ended)
		net_send(st->peer, nd->newline);
	net_reap(nd->net);
}

/* fanout.publish: count the event for the metrics, then the in-process fan-out. */
static void
node_publish_cb(const struct fanout *fo, struct table *t, int64_t seq, enum msg_type type,
                const struct event *ev, struct wire *w, const struct session *skip)
{
	struct node *nd = (struct node *)((char *)fo - offsetof(struct node, fanout));

	nd->events++;
	if (type == MSG_MOVED)
		nd->moves++;
	nd->local_publish(fo, t, seq, type, ev, w, skip);
	node_streams_event(nd, t, type, w);
}

/* The loop lag: how much later than due this timer runs (the loop was busy that long). */
static void
node_lag_cb(uv_timer_t *t)
{
	struct node *nd = t->data;
	uint64_t now = uv_hrtime();

	hist_observe(&nd->lag_hist, now > nd->lag_due ? (now - nd->lag_due) / 1000 : 0);
	nd->lag_due = now + (uint64_t)NODE_LAG_MS * 1000000;
}

struct node *
node_create(uv_loop_t *loop, const struct net_config *ncfg, const struct lobby_config *lcfg,
            struct store_db *store)
{
	struct node *nd = xcalloc(1, sizeof *nd);
	struct lobby_config lc = *lcfg;
	struct lobby_ops ops = {
	        .send = node_send_cb,
	        .close = node_close_cb,
	        .now = node_now_cb,
	        .timer = node_timer_cb,
	        .think = node_think_cb,
	        .unseated = store != NULL ? node_unseated_cb : NULL,
	        .think_busy = node_think_busy_cb,
	        .think_cancel = node_think_cancel_cb,
	        .read = store != NULL ? node_read_cb : NULL,
	        .hash = node_hash_cb,
	        .account_add = store != NULL ? node_account_add_cb : NULL,
	        .account_update = store != NULL ? node_account_update_cb : NULL,
	        .store_ask = store != NULL ? node_store_ask_cb : NULL,
	        .waiting_seq = store != NULL ? node_waiting_seq_cb : NULL,
	        .hold = node_hold_cb,
	        .pause = node_pause_cb,
	        .send_ahead = node_send_ahead_cb,
	        .marks = store != NULL ? node_marks_cb : NULL,
	        .account_waits = store != NULL ? node_account_waits_cb : NULL,
	        .arg = nd,
	};
	struct net_ops nops = {.line = node_line_cb,
	                       .gone = node_gone_cb,
	                       .queued = node_queued_cb,
	                       .released = node_released_cb,
	                       .stopped = node_stopped_cb,
	                       .arg = nd};
	struct think_ops tops = {.move = node_move_cb, .arg = nd};
	struct turn_ops pops = {
	        .counters = node_counters_cb, .store_changed = node_store_changed_cb, .arg = nd};

	nd->loop = loop;
	snprintf(nd->server_name, sizeof nd->server_name, "hokitod %s", HOKITO_VERSION);
	lc.server = nd->server_name;
	lc.max_line = ncfg->max_line;
	lc.max_output = ncfg->max_output;
	fanout_local_init(&nd->fanout, NULL);
	nd->local_publish = nd->fanout.publish;
	nd->fanout.publish = node_publish_cb;
	lc.fanout = store != NULL ? &nd->fanout : NULL;
	lc.store = NULL;
	if (store != NULL) {
		store_db_write_port(store, &nd->wport);
		lc.store = &nd->wport;
	}
	nd->lobby = lobby_create(&lc, &ops);
	nd->net = net_create(loop, ncfg, &nops);
	nd->think = think_create(loop, &tops, lcfg->max_thinking);
	node_hasher_start(nd);
	uv_timer_init(loop, &nd->tick);
	nd->tick.data = nd;
	uv_timer_start(&nd->tick, node_tick_cb, 1000, 1000);
	uv_timer_init(loop, &nd->wake);
	nd->wake.data = nd;
	uv_timer_init(loop, &nd->lag);
	nd->lag.data = nd;
	nd->lag_due = uv_hrtime() + (uint64_t)NODE_LAG_MS * 1000000;
	uv_timer_start(&nd->lag, node_lag_cb, NODE_LAG_MS, NODE_LAG_MS);
	nd->started_ms = uv_now(loop);
	LIST_INIT(&nd->streams);
	nd->newline = wire_text("", 0);
	uv_timer_init(loop, &nd->keepalive);
	nd->keepalive.data = nd;
	uv_timer_start(&nd->keepalive, node_keepalive_cb, NODE_STREAM_KEEPALIVE_MS,
	               NODE_STREAM_KEEPALIVE_MS);
	nd->turn = turn_create(loop, nd->net, store != NULL ? &nd->wport : NULL, &pops);
	nd->fanout.arg = turn_durable(nd->turn);
	if (store != NULL)
		node_reader_start(nd, store, lcfg->read_threads, lcfg->reads_per_addr);
	return nd;
}

/*
 * --keep-days: one batch of old games without an account goes in this turn's group commit. A
 * batch is small (NODE_SWEEP_BATCH games, their events with them: a few milliseconds of the
 * loop's time) and the next waits NODE_SWEEP_MS, so the games never wait long for it; a store
 * error stops the server at the commit, as every write's does.
 */
static void
node_sweep_cb(uv_timer_t *t)
{
	struct node *nd = t->data;
	struct durable *d = turn_durable(nd->turn);
	int64_t before = durable_wall_ms() - nd->keep_ms;
	uint64_t t0 = uv_hrtime();
	int n;

	if (d == NULL || (n = durable_sweep(d, before, NODE_SWEEP_BATCH)) <= 0)
		return;
	log_info("store: --keep-days %lld: deleted %d finished games without an account that ended "
	         "more than %lld days ago (%.1f ms)",
	         (long long)(nd->keep_ms / 86400000), n, (long long)(nd->keep_ms / 86400000),
	         (double)(uv_hrtime() - t0) / 1e6);
}

void
node_keep_days(struct node *nd, unsigned days)
{
	if (days == 0 || turn_durable(nd->turn) == NULL || nd->sweeping)
		return;
	nd->keep_ms = (int64_t)days * 86400000;
	nd->sweeping = 1;
	uv_timer_init(nd->loop, &nd->sweep);
	nd->sweep.data = nd;
	uv_timer_start(&nd->sweep, node_sweep_cb, NODE_SWEEP_FIRST_MS, NODE_SWEEP_MS);
}

/*
 * --unused-account-days: one batch of accounts never used, looked at in id order from where the
 * last batch stopped (NODE_UNUSED_SCAN ids at most, the store's indexed checks for each), read
 * off the loop by the reader; of those the game layer lets go (auth_account_release(): no
 * session, no table), at most ARCHIVE_UNUSED_MAX are deleted in this turn's group commit
 * (node_unused_done()). An account once looked at past its days is never looked at again: it was
 * used, or it is gone (a restart looks at all again, once).
 */
static void
node_unused_cb(uv_timer_t *t)
{
	struct node *nd = t->data;
	struct durable *d = turn_durable(nd->turn);
	struct archive_read *r;

	if (d == NULL || durable_down(d) || nd->reader == NULL || nd->unused_reading)
		return; /* housekeeping waits for a store that can write, and for its last read */
	r = xcalloc(1, sizeof *r);
	r->kind = ARCHIVE_READ_UNUSED;
	r->unused_after = nd->unused_after;
	r->unused_before = durable_wall_ms() - nd->unused_ms;
	r->unused_scan = NODE_UNUSED_SCAN;
	if (reader_submit(nd->reader, "", r) < 0) {
		archive_read_free(r);
		return;
	}
	nd->unused_reading = 1;
	nd->unused_t0 = uv_hrtime();
}

/* The reader found the unused accounts of node_unused_cb()'s read r (borrowed). */
static void
node_unused_done(struct node *nd, const struct archive_read *r)
{
	struct durable *d = turn_durable(nd->turn);
	int released = 0;

	nd->unused_reading = 0;
	if (r->rc < 0) { /* said once until a read works again (the store may be away a while) */
		if (!nd->unused_failing)
			log_warn("store: --unused-account-days: %s; tried again every second",
			         r->err.text);
		nd->unused_failing = 1;
		return;
	}
	if (nd->unused_failing)
		log_info("store: --unused-account-days: the store can be read again");
	nd->unused_failing = 0;
	nd->unused_after = r->unused_next;
	for (int i = 0; d != NULL && i < r->rc; i++)
		if (auth_account_release(nd->lobby, r->unused[i])) {
			durable_account_drop(d, r->unused[i]);
			released++;
		}
	if (released > 0)
		log_info("store: --unused-account-days %lld: released %d accounts never used in "
		         "their first %lld days, their names free again (%.1f ms)",
		         (long long)(nd->unused_ms / 86400000), released,
		         (long long)(nd->unused_ms / 86400000),
		         (double)(uv_hrtime() - nd->unused_t0) / 1e6);
}

void
node_unused_account_days(struct node *nd, unsigned days)
{
	if (days == 0 || turn_durable(nd->turn) == NULL || nd->releasing)
		return;
	nd->unused_ms = (int64_t)days * 86400000;
	nd->releasing = 1;
	uv_timer_init(nd->loop, &nd->unused);
	nd->unused.data = nd;
	uv_timer_start(&nd->unused, node_unused_cb, NODE_SWEEP_FIRST_MS, NODE_SWEEP_MS);
}

/* A start that failed: nothing more goes to the store (turn_store_drop()). */
static void
node_store_drop(struct node *nd)
{
	turn_store_drop(nd->turn);
	nd->fanout.arg = NULL;
}

int
node_restore(struct node *nd, struct store_error *err)
{
	int rc = auth_restore(nd->lobby, err), crc;

	if (rc >= 0)
		rc = restore_lobby(nd->lobby, err);
	if (rc >= 0) /* banned while no server ran (hokitod accounts on the file) */
		operators_restore(nd->lobby);
	if (rc >= 0) /* the rated pool's games brought back: when their windows widen */
		pairing_restore(nd->lobby);
	/* stale sessions removed, counters; the number of games rebuilt stays the answer */
	if (rc >= 0 && (crc = turn_commit_now(nd->turn, err)) < 0)
		rc = crc;
	if (rc < 0)
		node_store_drop(nd);
	return rc;
}

int
node_offload(struct node *nd, struct store_error *err)
{
	int rc = turn_offload(nd->turn, err);

	if (rc < 0)
		node_store_drop(nd);
	return rc;
}

int
node_admin(struct node *nd, const char *path)
{
	return admin_create(nd->loop, path, node_admin_cb, nd, &nd->admin);
}

int
node_listen(struct node *nd, const char *host, int port, char *bound, size_t size)
{
	return net_listen(nd->net, host, port, bound, size);
}

int
node_listen_tls(struct node *nd, const char *host, int port, struct tls_server *tls, char *bound,
                size_t size)
{
	return net_listen_tls(nd->net, host, port, tls, bound, size);
}

_Static_assert(LOBBY_NLIMITS <= WEB_MAX_COUNTS && ACCOUNTS_LOGIN_OUTCOMES <= WEB_MAX_COUNTS &&
                       ACCOUNTS_HASH_OUTCOMES <= WEB_MAX_COUNTS,
               "more values than struct web_metrics holds");

/* http_ops.metrics: gather the numbers of every part, and write them. */
static void
node_metrics_cb(void *arg, FILE *out)
{
	struct node *nd = arg;
	struct lobby *lb = nd->lobby;
	struct web_metrics m;
	struct turn_stats ts;
	unsigned ntables;

	memset(&m, 0, sizeof m);
	net_stats(nd->net, &m.net);
	http_stats(nd->http, &m.http);
	lobby_counts(lb, &m.sessions, &ntables);
	for (size_t i = 0; i < lb->sessions.n; i++)
		m.sessions_connected += lb->sessions.all[i]->peer != NULL;
	m.nkinds = 2;
	for (size_t i = 0; i < lb->ntables; i++) {
		const struct table *t = lb->tables[i];

		if ((unsigned)t->kind >= m.nkinds)
			m.nkinds = (unsigned)t->kind + 1;
		m.games[t->kind][t->st.status]++;
	}
	m.games_created = lb->serial;
	m.games_finished = lb->finished_serial;
	turn_stats(nd->turn, &ts);
	m.commits = ts.commits;
	m.commit_latency = ts.commit_latency;
	m.store_errors = ts.downs;
	m.store_down = lb->store_down != NULL;
	m.loop_lag = nd->lag_hist;
	m.events = nd->events;
	m.moves = nd->moves;
	for (int i = 0; i < LOBBY_NLIMITS; i++)
		m.refusals[m.nrefusals++] =
		        (struct web_count){lobby_limit_names[i], lb->refusals[i]};
	m.refusals[LOBBY_LIMIT_READS].count += m.http.refused_reads; /* the API's 429s */
	for (int i = 0; i < ACCOUNTS_LOGIN_OUTCOMES; i++)
		m.logins[m.nlogins++] =
		        (struct web_count){accounts_login_names[i], lb->accounts.logins[i]};
	for (int i = 0; i < ACCOUNTS_HASH_OUTCOMES; i++)
		m.hashes[m.nhashes++] =
		        (struct web_count){accounts_hash_names[i], lb->accounts.hashes[i]};
	m.thinking = think_busy(nd->think);
	m.searches = think_jobs(nd->think);
	m.reads_queued = nd->reader != NULL ? reader_queued(nd->reader) : 0;
	m.hash_threads = nd->hasher != NULL ? hasher_threads() : 0;
	m.hashes_out = lb->accounts.jobs_out;
	m.hashes_queued = nd->hasher != NULL ? hasher_queued(nd->hasher) : 0;
	m.uptime_s = (uv_now(nd->loop) - nd->started_ms) / 1000;
	web_metrics_write(out, &m);
}

/* http_ops.ready: the store can write and the server takes connections. */
static int
node_ready_cb(void *arg, char *why, size_t size)
{
	struct node *nd = arg;

	if (nd->stopping) {
		snprintf(why, size, "the server is stopping");
		return 0;
	}
	if (nd->lobby->store_down != NULL) {
		snprintf(why, size, "the store cannot write: %s", nd->lobby->store_down);
		return 0;
	}
	return 1;
}

/* http_ops.answer: the read API's answer, with the players' kinds from the accounts. */
static void
node_answer_cb(void *arg, const struct archive_read *r, struct http_reply *out)
{
	struct node *nd = arg;

	web_api_answer(nd->lobby, r, out);
}

/* http_ops.account */
static int64_t
node_account_cb(void *arg, const char *name)
{
	struct node *nd = arg;
	const struct account *a = ladder_account_find(nd->lobby, name);

	return a != NULL ? a->row.id : 0;
}

int
node_listen_http(struct node *nd, const struct http_config *cfg, char *bound, char *tls_bound,
                 size_t size)
{
	struct http_ops ops = {.metrics = node_metrics_cb,
	                       .ready = node_ready_cb,
	                       .read = nd->reader != NULL ? node_http_read_cb : NULL,
	                       .answer = node_answer_cb,
	                       .account = node_account_cb,
	                       .stream_ok = node_stream_ok_cb,
	                       .stream_start = node_stream_start_cb,
	                       .arg = nd};

	return http_create(nd->loop, nd->net, cfg, &ops, &nd->http, bound, tls_bound, size);
}

int
node_reload(struct node *nd)
{
	return http_reload(nd->http);
}

static void
node_handle_close_cb(uv_handle_t *h)
{
	(void)h;
}

void
node_shutdown(struct node *nd)
{
	if (nd->stopping)
		return;
	nd->stopping = 1;
	if (!uv_is_closing((uv_handle_t *)&nd->tick))
		uv_close((uv_handle_t *)&nd->tick, node_handle_close_cb);
	if (!uv_is_closing((uv_handle_t *)&nd->wake))
		uv_close((uv_handle_t *)&nd->wake, node_handle_close_cb);
	if (!uv_is_closing((uv_handle_t *)&nd->lag))
		uv_close((uv_handle_t *)&nd->lag, node_handle_close_cb);
	if (!uv_is_closing((uv_handle_t *)&nd->keepalive))
		uv_close((uv_handle_t *)&nd->keepalive, node_handle_close_cb);
	http_shutdown(nd->http);
	if (nd->sweeping && !uv_is_closing((uv_handle_t *)&nd->sweep))
		uv_close((uv_handle_t *)&nd->sweep, node_handle_close_cb);
	if (nd->releasing && !uv_is_closing((uv_handle_t *)&nd->unused))
		uv_close((uv_handle_t *)&nd->unused, node_handle_close_cb);
	think_stop(nd->think);
	hasher_stop(nd->hasher); /* it frees itself once its threads ended */
	nd->hasher = NULL;
	admin_close(nd->admin);   /* answers not yet written are dropped with their connections */
	reader_close(nd->reader); /* reads out are dropped: their connections are going too */
	nd->reader = NULL;
	turn_shutdown(nd->turn); /* a store that is down: one last try */
	nd->fanout.arg = turn_durable(nd->turn);
	net_shutdown(nd->net);
}

void
node_free(struct node *nd)
{
	if (nd == NULL)
		return;
	turn_free(nd->turn);
	lobby_free(nd->lobby);
	think_free(nd->think);
	admin_free(nd->admin);
	net_free(nd->net);
	http_free(nd->http);
	wire_unref(nd->newline);
	free(nd);
}
