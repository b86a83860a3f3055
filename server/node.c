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
 * the read port, run by a reader (reader.h) on a thread and a connection of its own, for history
 * and record (ops->read); the answers come back through handlers_read_done(). The operators'
 * requests come from the admin socket (admin.h) to operators.h, and their answers go back once
 * the network layer's output of their turn is released (net_ops.released): durable too.
 */
#include <stdio.h>
#include <stdlib.h>

#include "admin.h"
#include "archive.h"
#include "durable.h"
#include "fanout.h"
#include "guard.h"
#include "handlers.h"
#include "hasher.h"
#include "hokito-config.h"
#include "log.h"
#include "node.h"
#include "operators.h"
#include "pairing.h"
#include "reader.h"
#include "restore.h"
#include "think.h"
#include "turn.h"
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
	int stopping;
	char server_name[64];
};

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
 * lobby_ops.hold: a read or a password job of peer's is out (held), or answered: the network
 * layer stops handing up peer's lines and reading it meanwhile, then goes on at the next reap.
 */
static void
node_hold_cb(void *arg, struct lobby_peer *peer, int held)
{
	(void)arg;
	if (held)
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

/* lobby_ops.read: the game layer's store read goes to the reader (after shutdown, nowhere). */
static void
node_read_cb(void *arg, struct archive_read *r)
{
	struct node *nd = arg;

	if (nd->reader == NULL)
		archive_read_free(r); /* shutting down: its connection goes unanswered */
	else
		reader_submit(nd->reader, r);
}

/* The reader answered a read: to the game layer, on the loop's thread. */
static void
node_read_done_cb(void *arg, struct archive_read *r)
{
	struct node *nd = arg;

	handlers_read_done(nd->lobby, r);
	net_reap(nd->net);
}

/*
 * The reader of the game layer's store reads: on a read-only connection of its own and a thread
 * of its own for a file store; a temporary store (":memory:"), which no second connection can
 * see, is read on its own connection on the loop's thread (store_read_port_init()), and so is a
 * file store whose second connection could not be opened (said in the log; reads still work).
 */
static void
node_reader_start(struct node *nd, struct store *st)
{
	struct store_read_port port;
	struct store_error err;
	int rc;

	if (store_is_temporary(st)) {
		store_read_port_init(st, &port);
	} else if (store_reader_open(store_path(st), &port, &err) < 0) {
		log_warn("store: no reader of its own (%s); history and records are read on the "
		         "loop",
		         err.text);
		store_read_port_init(st, &port);
	}
	if ((rc = reader_create(nd->loop, &port, node_read_done_cb, nd, &nd->reader)) < 0) {
		log_error("store: cannot start its reader: %s", uv_strerror(rc));
		abort(); /* as out of memory: a libuv async handle or a thread */
	}
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

struct node *
node_create(uv_loop_t *loop, const struct net_config *ncfg, const struct lobby_config *lcfg,
            struct store *store)
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
	        .hold = node_hold_cb,
	        .arg = nd,
	};
	struct net_ops nops = {.line = node_line_cb,
	                       .gone = node_gone_cb,
	                       .queued = node_queued_cb,
	                       .released = node_released_cb,
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
	lc.fanout = store != NULL ? &nd->fanout : NULL;
	lc.store = NULL;
	if (store != NULL) {
		store_write_port_init(store, &nd->wport);
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
	nd->turn = turn_create(loop, nd->net, store, &pops);
	nd->fanout.arg = turn_durable(nd->turn);
	if (store != NULL)
		node_reader_start(nd, store);
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
	if (nd->sweeping && !uv_is_closing((uv_handle_t *)&nd->sweep))
		uv_close((uv_handle_t *)&nd->sweep, node_handle_close_cb);
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
	free(nd);
}
