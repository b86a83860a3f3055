/*
 * turn.c: the turn pipeline: group commit, the disk waits on their own threads, and the release
 * of the turn's output once it is durable (Redis's beforeSleep and bio.c).
 *
 * Output is held until the end of the loop turn. Whatever the game layer sends during a turn is
 * kept on the connection (net.c: a reference to each wire, stamped with its turn); a uv_prepare
 * handle, which runs once per turn right before the loop waits for I/O, first makes the turn
 * durable with one group commit (durable.h) and only then releases the turn's lines, which the
 * network layer writes with one writev per connection. So nothing is acknowledged that a crash
 * could lose, and a client that gets many lines in a turn costs one system call. A store that
 * keeps nothing across a restart (":memory:") has nothing to wait for: there the commit follows
 * the writes, off the round trip.
 *
 * A commit that fails for lack of room or of the database does not stop the server (Redis
 * refuses writes with MISCONF the same way): the store is "down". Which failures are which
 * (store-port.h's codes, never the text):
 *   - STORE_EFULL (a full disk or quota), STORE_EUNAVAIL (the database cannot be reached: a
 *     restart, a lost connection), STORE_EIO (a busy or read-only file, an I/O error). The
 *     turn's writes are kept (durable.h: not lost, not rolled back in memory) and tried again in
 *     a new transaction: by a timer, after 1 s, then 2 s, then every 4 s, and at once when a
 *     request would write (turn_store_ask(), at most every 200 ms). The writes are idempotent,
 *     so a commit whose outcome was unknown is safe to send again.
 *     The turn's output is held: every connection that got a line in it keeps all its lines
 *     until a retry holds (net_hold_turn()), and so does every connection that gets a line in a
 *     later turn that adds writes of its own (the computer's move, a player resuming). The
 *     other connections get their lines as usual. The game layer refuses the requests that
 *     would write (store_unavailable) and stops its clocks (ops->store_changed), so that what
 *     waits stays bounded. A connection whose lines start to be held gets the store_waiting
 *     notice ahead of them (net_send_ahead(), as its pongs), and store_writable ahead of them
 *     when they go; what the game layer shows the others meanwhile stops at each game's last
 *     stored event (turn_waiting_seq(): lobby_view()), and the ids it gives out stay below the
 *     marks the store holds (turn_marks()). When a retry holds, the held lines go out in order
 *     and play goes on.
 *     The log says the cause at once and every 30 s while it lasts, and how long it lasted.
 *   - Anything else (STORE_ECORRUPT: a damaged store, a failed sync of the disk; STORE_EINVAL:
 *     a write the store refuses, our bug) stops the process at once, without writing: the
 *     clients have heard nothing the store does not hold, and a restart recovers the last
 *     commit.
 * A kill while down loses only what nobody heard of: a restart recovers the last commit.
 *
 * A commit may be answered later (store-port.h: a ticket; the write port's start() gave the
 * backend the loop): an SQLite file with --fsync always syncs its WAL on a thread of its own, a
 * PostgreSQL store waits for its server's COMMIT. Each held line carries its turn; a turn is
 * released, and its lines written, once the ticket of the commit after it is answered
 * (turn_release(), turn_done_cb()), and meanwhile the loop reads and plays the next turns, whose
 * moves form the next group commit. Lines keep their order: a turn waits for the commits before
 * it even if it committed nothing. An answer that says the commit failed takes the store down as
 * above: the turns not released yet are held (net_hold_since()), and their writes, still kept,
 * go in again with the retry.
 *
 * It knows nothing about games or sockets: the connections are the network layer's (net.h), and
 * the id counters that go in each commit come from ops->counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "durable.h"
#include "log.h"
#include "msg.h"
#include "turn.h"
#include "xmalloc.h"

/* While the store is down: the retries (first, longest), an asked retry, and the log. */
#define RETRY_FIRST_MS 1000
#define RETRY_MAX_MS   4000
#define RETRY_ASK_MS   200
#define DOWN_LOG_MS    30000

/* Turns whose lines wait for a commit's answer: those up to turn go once ticket is answered. */
struct turn_wait {
	uint64_t turn, ticket;
};

struct turn {
	uv_loop_t *loop;
	uv_prepare_t prepare; /* end of each loop turn: group commit, then the held output */
	struct net *net;      /* borrowed: the connections whose output is held */
	struct turn_ops ops;
	struct durable *durable;      /* NULL without a store, or after a failed start */
	struct store_write_port port; /* the store's write port (a copy); its impl NULL: none */
	int started;                  /* port.start() gave the backend the loop */
	uint64_t released;            /* the lines of turns up to this one may be written */
	uint64_t ended;               /* the last turn ended (net_turn_end()) */
	uint64_t need;                /* the ticket that covers the last commit */
	uint64_t synced;              /* the last ticket answered */
	struct turn_wait *waits;      /* turns waiting for a ticket, oldest first from wait_head */
	size_t nwaits, wait_head, waits_cap;
	uv_timer_t retry;            /* while the store is down: the next retry */
	struct store_error down_err; /* while down: the last failure */
	uint64_t down_since;         /* loop time of the failure that took the store down */
	uint64_t down_logged;        /* loop time the cause was last logged */
	uint64_t tried_at;           /* loop time of the last retry */
	uint64_t retry_ms;           /* the delay of the next timed retry */
	uint64_t held_turns;         /* turns whose lines are held while down */
	size_t waiting_seen;         /* durable_waiting() at the end of the last turn while down */
	uint64_t retry_ticket;       /* a retry's commit in flight: the store is up once answered */
	uint64_t held_from;          /* the first turn held (turn_held_from()), or 0 */
	struct wire *waiting;        /* while down: the store_waiting notice (a reference) */
	struct wire *writable;       /* the store_writable notice (a reference) */
	struct turn_stats stats;     /* for the metrics (turn_stats()) */
};

static void turn_retry_cb(uv_timer_t *h);

/* A failure that is not a lack of room: stop at once (sent: output already went). */
static void
turn_stop_now(const struct store_error *err, int sent)
{
	log_error("store: %s", err->text);
	if (sent)
		log_error("stopping at once (the store keeps nothing across a restart)");
	else
		log_error("stopping at once: nothing of this turn was sent; a restart "
		          "recovers the last commit");
	exit(1);
}

/* What the refused requests say: the cause in a user's words (protocol: store_unavailable). */
static const char *
turn_down_why(const struct store_error *err)
{
	if (err->code == STORE_EFULL)
		return "the server's disk is full; moves and other changes are refused until it "
		       "has room";
	if (err->code == STORE_EUNAVAIL)
		return "the server cannot reach its database; moves and other changes are refused "
		       "until it can";
	return "the server cannot write to its disk; moves and other changes are refused until "
	       "it can";
}

/*
 * The notice a connection gets when its lines start waiting for the store (PROTOCOL.md 6.20):
 * what waits and why, in a user's words. Returns a new wire.
 */
static struct wire *
turn_waiting_new(const struct store_error *err)
{
	char text[256];

	snprintf(text, sizeof text,
	         "the server waits for its store (%s): the replies and events that depend on it "
	         "follow, in order, once it is stored; ping is answered meanwhile",
	         err->code == STORE_EFULL      ? "its disk is full"
	         : err->code == STORE_EUNAVAIL ? "it cannot reach its database"
	                                       : "it cannot write to its disk");
	return wire_encode_steal(msg_notice_new("store_waiting", text));
}

/* The log line of an outage: the cause and what waits. */
static void
turn_down_log(struct turn *tp)
{
	uint64_t now = uv_now(tp->loop);

	tp->down_logged = now;
	log_error("store: cannot write for %.0f s: %s; %zu writes of %llu turns wait, their "
	          "replies are held and writes are refused until a retry works (%s; nothing to "
	          "restart)",
	          (double)(now - tp->down_since) / 1000.0, tp->down_err.text,
	          durable_waiting(tp->durable), (unsigned long long)tp->held_turns,
	          tp->down_err.code == STORE_EUNAVAIL
	                  ? "hokitod reconnects to the database by itself"
	                  : "make room on the disk");
}

/*
 * A commit failed for lack of room or of the database (err): the store is down. The lines of the
 * turns from first on are held, the game layer is told, and the timer will retry.
 */
static void
turn_down(struct turn *tp, uint64_t first, const struct store_error *err)
{
	tp->stats.downs++;
	tp->down_err = *err;
	tp->down_since = tp->tried_at = uv_now(tp->loop);
	tp->held_turns = net_turn(tp->net) - first + 1;
	tp->waiting_seen = durable_waiting(tp->durable);
	if (tp->held_from == 0)
		tp->held_from = first;
	wire_unref(tp->waiting);
	tp->waiting = turn_waiting_new(err);
	net_hold_since(tp->net, first, tp->waiting);
	turn_down_log(tp);
	tp->retry_ms = RETRY_FIRST_MS;
	uv_timer_start(&tp->retry, turn_retry_cb, tp->retry_ms, 0);
	if (tp->ops.store_changed != NULL)
		tp->ops.store_changed(tp->ops.arg, turn_down_why(err));
}

/*
 * The turn's group commit. A lack of room takes the store down (turn_down()); any other failure
 * stops the process at once (sent: output already went). A commit answered later sets the
 * ticket the turn's lines wait for (tp->need). Returns whether it wrote anything.
 */
static int
turn_commit(struct turn *tp, int sent)
{
	struct store_error err;
	uint64_t ticket;
	unsigned np, ng;
	int rc;

	uint64_t t0 = uv_hrtime();

	tp->ops.counters(tp->ops.arg, &np, &ng);
	rc = durable_commit(tp->durable, np, ng, &ticket, &err);
	if (rc > 0) {
		tp->stats.commits++;
		hist_observe(&tp->stats.commit_latency, (uv_hrtime() - t0) / 1000);
		if (ticket > 0)
			tp->need = ticket;
	}
	if (durable_down_code(rc) && !sent) {
		turn_down(tp, net_turn(tp->net), &err);
		return 0;
	}
	if (rc < 0)
		turn_stop_now(&err, sent);
	return rc > 0;
}

/* A retry held and is durable: the store is up, and the held lines go. The caller releases. */
static void
turn_up(struct turn *tp)
{
	log_info("store: writable again after %.1f s; %llu held turns are durable and their "
	         "replies go out",
	         (double)(uv_now(tp->loop) - tp->down_since) / 1000.0,
	         (unsigned long long)tp->held_turns);
	uv_timer_stop(&tp->retry);
	tp->held_turns = 0;
	tp->waiting_seen = 0;
	tp->retry_ticket = 0;
	wire_unref(tp->waiting);
	tp->waiting = NULL;
	/* first: what the game layer sends ahead of the held lines (the events a viewer was not
	 * shown) goes before them */
	if (tp->ops.store_changed != NULL)
		tp->ops.store_changed(tp->ops.arg, NULL);
	net_unhold(tp->net, 0, tp->writable);
	tp->held_from = 0;
}

/* A retry failed (err): still down; said every DOWN_LOG_MS. Stops on a failure that is not. */
static void
turn_still_down(struct turn *tp, int rc, const struct store_error *err)
{
	if (!durable_down_code(rc))
		turn_stop_now(err, 0);
	tp->down_err = *err;
	if (tp->tried_at - tp->down_logged >= DOWN_LOG_MS)
		turn_down_log(tp);
}

/*
 * Try the waiting writes again. Returns whether the store is up now (a retry answered later is
 * not yet: turn_done_cb() brings it up); a failure other than a lack of room stops the process.
 */
static int
turn_retry(struct turn *tp)
{
	struct store_error err;
	uint64_t ticket;
	unsigned np, ng;
	int rc;

	if (tp->retry_ticket != 0)
		return 0; /* one in flight */
	tp->tried_at = uv_now(tp->loop);
	tp->ops.counters(tp->ops.arg, &np, &ng);
	rc = durable_retry(tp->durable, np, ng, &ticket, &err);
	if (rc == 2) {
		tp->retry_ticket = ticket;
		return 0;
	}
	if (rc >= 0) {
		turn_up(tp);
		return 1;
	}
	turn_still_down(tp, rc, &err);
	return 0;
}

/* The retry timer: try, then wait longer (up to RETRY_MAX_MS) while the store stays down. */
static void
turn_retry_cb(uv_timer_t *h)
{
	struct turn *tp = h->data;

	if (tp->durable == NULL || !durable_down(tp->durable))
		return;
	if (!turn_retry(tp)) {
		tp->retry_ms = tp->retry_ms * 2 < RETRY_MAX_MS ? tp->retry_ms * 2 : RETRY_MAX_MS;
		uv_timer_start(&tp->retry, turn_retry_cb, tp->retry_ms, 0);
		return;
	}
	net_release(tp->net, tp->released);
	net_reap(tp->net);
}

struct wire *
turn_waiting_notice(const struct turn *tp)
{
	return tp->waiting;
}

int64_t
turn_waiting_seq(const struct turn *tp, const char *game_id)
{
	return tp->durable != NULL ? durable_waiting_seq(tp->durable, game_id) : 0;
}

int
turn_waiting_account(const struct turn *tp, int64_t account)
{
	return tp->durable != NULL && durable_waiting_account(tp->durable, account);
}

void
turn_marks(const struct turn *tp, unsigned *player, unsigned *game)
{
	*player = *game = UINT32_MAX;
	if (tp->durable != NULL)
		durable_marks(tp->durable, player, game);
}

uint64_t
turn_held_from(const struct turn *tp)
{
	return tp->held_from;
}

int
turn_store_ask(struct turn *tp)
{
	if (tp->durable == NULL || !durable_down(tp->durable))
		return 0;
	if (uv_now(tp->loop) - tp->tried_at < RETRY_ASK_MS)
		return 1;
	return !turn_retry(tp);
}

/*
 * The lines of the turn that ends may be written once the ticket that covers the last commit is
 * answered: at once when none is outstanding (a commit durable at return), else when
 * turn_done_cb() gets that ticket. A turn that committed nothing waits all the same for the
 * commits before it: what it sends may tell of them.
 */
static void
turn_release(struct turn *tp)
{
	uint64_t turn_no = net_turn_end(tp->net);

	tp->ended = turn_no;
	if (tp->need <= tp->synced) {
		tp->released = turn_no;
	} else if (tp->nwaits > tp->wait_head && tp->waits[tp->nwaits - 1].ticket == tp->need) {
		tp->waits[tp->nwaits - 1].turn = turn_no;
	} else {
		if (tp->wait_head > 0 && tp->nwaits == tp->waits_cap) {
			tp->nwaits -= tp->wait_head;
			memmove(tp->waits, tp->waits + tp->wait_head,
			        tp->nwaits * sizeof *tp->waits);
			tp->wait_head = 0;
		}
		tp->waits = xgrow(tp->waits, tp->nwaits, &tp->waits_cap, sizeof *tp->waits, 8);
		tp->waits[tp->nwaits].turn = turn_no;
		tp->waits[tp->nwaits++].ticket = tp->need;
	}
}

/*
 * The answer to a commit failed (err): the store is down. Every turn not released yet waited for
 * this commit or a later one, which failed with it: their lines are held until a retry holds
 * (turn_down()), and nothing waits for those tickets any more.
 */
static void
turn_failed_later(struct turn *tp, const struct store_error *err)
{
	uint64_t first = tp->released + 1;

	tp->nwaits = tp->wait_head = 0;
	tp->synced = tp->need;
	tp->released = tp->ended;
	turn_down(tp, first, err);
}

/*
 * The write port's done callback (store-port.h: start()): every commit up to ticket is durable,
 * or failed with rc. Release the turns that waited for it and write their lines; a retry that
 * held brings the store up. A failure that is not a lack of room or of the database (a failed
 * sync of the disk) stops the process at once: nothing that waited for it was sent, and a restart
 * recovers what the store holds.
 */
static void
turn_done_cb(void *arg, uint64_t ticket, int rc, const struct store_error *err)
{
	struct turn *tp = arg;
	int r;

	if (tp->durable == NULL)
		return;
	if (rc < 0 && !durable_down_code(rc)) {
		log_error("store: %s", err->text);
		log_error("stopping at once: nothing that waited for it was sent; a restart "
		          "recovers what the store holds");
		exit(1);
	}
	if ((r = durable_done(tp->durable, ticket, rc, err)) < 0) {
		if (tp->retry_ticket != 0) { /* the retry failed: the timer tries again */
			tp->retry_ticket = 0;
			turn_still_down(tp, rc, err);
		} else {
			turn_failed_later(tp, err);
		}
		net_reap(tp->net);
		return;
	}
	if (rc < 0)
		return; /* an answer to commits given up already */
	if (ticket > tp->synced)
		tp->synced = ticket;
	if (r == 1)
		turn_up(tp);
	while (tp->wait_head < tp->nwaits && tp->waits[tp->wait_head].ticket <= ticket)
		tp->released = tp->waits[tp->wait_head++].turn;
	if (tp->wait_head == tp->nwaits)
		tp->nwaits = tp->wait_head = 0;
	net_release(tp->net, tp->released);
	net_reap(tp->net);
}

/*
 * The end of a loop turn (a uv_prepare handle: libuv runs it once per turn, after the timers and
 * before it waits for I/O, so every callback of the turn is behind it). Group commit first, then
 * the held output of every client, then the closes that waited for it. A commit that fails stops
 * the process at once, without writing anything: see the top of this file. Once the network
 * layer has shut down and its last connection is closed, the pipeline closes its handles and
 * the backend's (port.stop()), so that the loop can return. With a store that keeps nothing
 * (":memory:") the output goes first and the commit after it, off the round trip.
 */
static void
turn_cb(uv_prepare_t *h)
{
	struct turn *tp = h->data;
	int lag = tp->durable != NULL && durable_may_lag(tp->durable);

	if (tp->durable != NULL && !lag && durable_down(tp->durable)) {
		/* the store is down: a turn that added writes of its own is held too */
		if (durable_waiting(tp->durable) != tp->waiting_seen) {
			net_hold_turn(tp->net, tp->waiting);
			tp->held_turns++;
			tp->waiting_seen = durable_waiting(tp->durable);
		}
	} else if (tp->durable != NULL && !lag) {
		turn_commit(tp, 0);
	}
	turn_release(tp);
	net_release(tp->net, tp->released);
	if (lag)
		turn_commit(tp, 1);
	net_reap(tp->net);
	if (net_stopped(tp->net)) {
		uv_close((uv_handle_t *)&tp->prepare, NULL);
		uv_close((uv_handle_t *)&tp->retry, NULL);
		if (tp->started && tp->port.stop != NULL)
			tp->port.stop(tp->port.impl); /* waits for a commit under way */
		tp->started = 0;
	}
}

/*
 * Give the store's backend the loop (the write port's start()): a file store's disk waits go to
 * threads of their own, a database's socket is watched. From then on a commit may be answered
 * later (turn_done_cb()), while the loop goes on with the next turns: their moves join the next
 * group commit instead of waiting.
 */
int
turn_offload(struct turn *tp, struct store_error *err)
{
	int rc;

	if (tp->durable == NULL || tp->port.start == NULL || tp->started)
		return 0;
	if ((rc = tp->port.start(tp->port.impl, tp->loop, turn_done_cb, tp, err)) < 0) {
		turn_store_drop(tp); /* as a failed rebuild: nothing more is written */
		return rc;
	}
	tp->started = 1;
	return 0;
}

struct turn *
turn_create(uv_loop_t *loop, struct net *net, const struct store_write_port *port,
            const struct turn_ops *ops)
{
	struct turn *tp = xcalloc(1, sizeof *tp);
	unsigned np, ng;

	tp->loop = loop;
	tp->net = net;
	tp->ops = *ops;
	if (port != NULL) {
		tp->port = *port;
		ops->counters(ops->arg, &np, &ng);
		tp->durable = durable_create(port, np, ng); /* copies the port */
	}
	uv_prepare_init(loop, &tp->prepare);
	tp->prepare.data = tp;
	uv_prepare_start(&tp->prepare, turn_cb);
	uv_timer_init(loop, &tp->retry);
	tp->retry.data = tp;
	tp->writable = wire_encode_steal(msg_notice_new(
	        "store_writable", "the server's store is writable again: the replies and events "
	                          "that waited for it follow, in order"));
	return tp;
}

struct durable *
turn_durable(const struct turn *tp)
{
	return tp->durable;
}

int
turn_commit_now(struct turn *tp, struct store_error *err)
{
	uint64_t ticket;
	unsigned np, ng;
	int rc;

	if (tp->durable == NULL)
		return 0;
	tp->ops.counters(tp->ops.arg, &np, &ng);
	durable_counters_restored(tp->durable, np, ng);
	rc = durable_commit(tp->durable, np, ng, &ticket, err); /* before start(): durable now */
	return rc < 0 ? rc : 0;
}

void
turn_shutdown(struct turn *tp)
{
	if (tp->durable == NULL || !durable_down(tp->durable) || turn_retry(tp) ||
	    tp->retry_ticket != 0)
		return; /* a retry in flight: its answer, while the loop closes, decides */
	log_error("store: stopping while it cannot write: %zu writes of %llu turns are lost; "
	          "nobody heard of them (their replies were held), and the restart recovers the "
	          "last commit",
	          durable_waiting(tp->durable), (unsigned long long)tp->held_turns);
	net_unhold(tp->net, 1, NULL);
	turn_store_drop(tp); /* held_from stays: nothing of those turns is answered */
}

void
turn_store_drop(struct turn *tp)
{
	durable_free(tp->durable);
	tp->durable = NULL;
}

void
turn_stats(const struct turn *tp, struct turn_stats *out)
{
	*out = tp->stats;
}

void
turn_free(struct turn *tp)
{
	if (tp == NULL)
		return;
	free(tp->waits);
	durable_free(tp->durable);
	wire_unref(tp->waiting);
	wire_unref(tp->writable);
	free(tp);
}
