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
 * A commit that fails for lack of room does not stop the server (Redis refuses writes with
 * MISCONF the same way): the store is "down". Which failures are which:
 *   - STORE_EIO: SQLITE_FULL, SQLITE_IOERR (ENOSPC, EDQUOT, EIO while writing), a busy or
 *     read-only file. The turn's writes are kept (durable.h: not lost, not rolled back in
 *     memory) and tried again in a new transaction: by a timer, after 1 s, then 2 s, then every
 *     4 s, and at once when a request would write (turn_store_ask(), at most every 200 ms).
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
 *   - Anything else (STORE_ECORRUPT: a damaged file; STORE_EINVAL: a write the store refuses,
 *     our bug) stops the process at once, without writing: the clients have heard nothing the
 *     store does not hold, and a restart recovers the last commit.
 * A kill while down loses only what nobody heard of: a restart recovers the last commit. So does a
 * failed sync of the WAL (--fsync always), which stops the process: after a failed fdatasync the
 * kernel may have dropped the pages, and only a restart knows what the disk holds.
 *
 * A file store's disk waits are not the loop's (turn_offload()): the commit writes the WAL
 * without an fsync, and with --fsync always the fsync runs on a thread of its own (a syncer).
 * Each held line carries its turn; a turn is released, and its lines written, once the fsync
 * requested after its commit is answered (turn_release(), turn_synced_cb()), and meanwhile the
 * loop reads and plays the next turns, whose moves form the next group commit. Lines keep their
 * order: a turn waits for the commits before it even if it committed nothing. Checkpoints run on a
 * second syncer through a second connection, so the loop does not wait for the copy of the WAL
 * into the file and its two fsyncs (turn_checkpoint()), but for a catch-up checkpoint when commits
 * kept the WAL from starting over for 64 MiB.
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
#include "syncer.h"
#include "turn.h"
#include "xmalloc.h"

/*
 * Checkpoints of a file store (frames of 4 KiB in the WAL): the checkpoint thread is asked for
 * one after a commit that leaves this many frames in the WAL (SQLite's own default), and the
 * loop runs one itself when the WAL has grown this far while the thread kept up with the copying
 * but never with the end of a WAL that commits keep extending.
 */
#define WAL_CHECKPOINT_FRAMES 1000
#define WAL_CATCH_UP_FRAMES   16384 /* 64 MiB */

/* While the store is down: the retries (first, longest), an asked retry, and the log. */
#define RETRY_FIRST_MS 1000
#define RETRY_MAX_MS   4000
#define RETRY_ASK_MS   200
#define DOWN_LOG_MS    30000

/* Turns whose lines wait for a sync of the WAL: those up to turn go once ticket is answered. */
struct turn_wait {
	uint64_t turn, ticket;
};

struct turn {
	uv_loop_t *loop;
	uv_prepare_t prepare; /* end of each loop turn: group commit, then the held output */
	struct net *net;      /* borrowed: the connections whose output is held */
	struct turn_ops ops;
	struct durable *durable;     /* NULL without a store, or after a failed start */
	struct store *store;         /* borrowed; NULL without a store */
	struct store_bg *bg;         /* a file store's other-thread side (store_bg_open()) */
	struct syncer *wal_sync;     /* --fsync always: syncs the WAL after each commit */
	struct syncer *ckpt;         /* a file store: checkpoints the WAL */
	struct store_error ckpt_err; /* the checkpoint thread's error, read in its done callback */
	int ckpt_failing;            /* the last checkpoint failed (logged once until one works) */
	size_t ckpt_asked;           /* frames in the WAL when the last checkpoint was asked for */
	uint64_t released;           /* the lines of turns up to this one may be written */
	uint64_t need;               /* the wal_sync ticket that covers the last commit */
	uint64_t synced;             /* the last wal_sync ticket answered */
	struct turn_wait *waits;     /* turns waiting for a sync, oldest first from wait_head */
	size_t nwaits, wait_head, waits_cap;
	uv_timer_t retry;            /* while the store is down: the next retry */
	struct store_error down_err; /* while down: the last failure */
	uint64_t down_since;         /* loop time of the failure that took the store down */
	uint64_t down_logged;        /* loop time the cause was last logged */
	uint64_t tried_at;           /* loop time of the last retry */
	uint64_t retry_ms;           /* the delay of the next timed retry */
	uint64_t held_turns;         /* turns whose lines are held while down */
	size_t waiting_seen;         /* durable_waiting() at the end of the last turn while down */
	uint64_t unhold_ticket;      /* the sync that covers the retry that held, or 0 */
	uint64_t held_from;          /* the first turn held (turn_held_from()), or 0 */
	struct wire *waiting;        /* while down: the store_waiting notice (a reference) */
	struct wire *writable;       /* the store_writable notice (a reference) */
	struct turn_stats stats;     /* for the metrics (turn_stats()) */
};

static void turn_retry_cb(uv_timer_t *h);
static void turn_checkpoint(struct turn *tp);

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
	if (strstr(err->text, "full") != NULL || strstr(err->text, strerror(ENOSPC)) != NULL ||
	    strstr(err->text, strerror(EDQUOT)) != NULL)
		return "the server's disk is full; moves and other changes are refused until it "
		       "has room";
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
	         strstr(turn_down_why(err), "full") != NULL ? "its disk is full"
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
	          "replies are held and writes are refused until a retry works (make room on "
	          "the disk; nothing to restart)",
	          (double)(now - tp->down_since) / 1000.0, tp->down_err.text,
	          durable_waiting(tp->durable), (unsigned long long)tp->held_turns);
}

/*
 * The commit of the turn under way failed for lack of room (err): the store is down. Its lines
 * are held, the game layer is told, and the timer will retry.
 */
static void
turn_down(struct turn *tp, const struct store_error *err)
{
	tp->stats.downs++;
	tp->down_err = *err;
	tp->down_since = tp->tried_at = uv_now(tp->loop);
	tp->held_turns = 1;
	tp->waiting_seen = durable_waiting(tp->durable);
	if (tp->held_from == 0)
		tp->held_from = net_turn(tp->net);
	wire_unref(tp->waiting);
	tp->waiting = turn_waiting_new(err);
	net_hold_turn(tp->net, tp->waiting);
	turn_down_log(tp);
	tp->retry_ms = RETRY_FIRST_MS;
	uv_timer_start(&tp->retry, turn_retry_cb, tp->retry_ms, 0);
	if (tp->ops.store_changed != NULL)
		tp->ops.store_changed(tp->ops.arg, turn_down_why(err));
}

/*
 * The turn's group commit. A lack of room takes the store down (turn_down()); any other failure
 * stops the process at once (sent: output already went). Returns whether it wrote anything.
 */
static int
turn_commit(struct turn *tp, int sent)
{
	struct store_error err;
	unsigned np, ng;
	int rc;

	uint64_t t0 = uv_hrtime();

	tp->ops.counters(tp->ops.arg, &np, &ng);
	rc = durable_commit(tp->durable, np, ng, &err);
	if (rc > 0) {
		tp->stats.commits++;
		hist_observe(&tp->stats.commit_latency, (uv_hrtime() - t0) / 1000);
	}
	if (rc == STORE_EIO && !sent) {
		turn_down(tp, &err);
		return 0;
	}
	if (rc < 0)
		turn_stop_now(&err, sent);
	return rc > 0;
}

/*
 * A retry held: the store is up. The held lines go once they are durable: at once, or with
 * --fsync always when the sync requested now is answered (turn_synced_cb()). The caller releases.
 */
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
	wire_unref(tp->waiting);
	tp->waiting = NULL;
	/* first: what the game layer sends ahead of the held lines (the events a viewer was not
	 * shown) goes before them */
	if (tp->ops.store_changed != NULL)
		tp->ops.store_changed(tp->ops.arg, NULL);
	if (tp->wal_sync != NULL) {
		tp->unhold_ticket = tp->need = syncer_request(tp->wal_sync);
	} else {
		net_unhold(tp->net, 0, tp->writable);
		tp->held_from = 0;
	}
	turn_checkpoint(tp);
}

/*
 * Try the waiting writes again. Returns whether the store is up now; a failure other than a lack
 * of room stops the process.
 */
static int
turn_retry(struct turn *tp)
{
	struct store_error err;
	unsigned np, ng;
	int rc;

	tp->tried_at = uv_now(tp->loop);
	tp->ops.counters(tp->ops.arg, &np, &ng);
	rc = durable_retry(tp->durable, np, ng, &err);
	if (rc >= 0) {
		turn_up(tp);
		return 1;
	}
	if (rc != STORE_EIO)
		turn_stop_now(&err, 0);
	tp->down_err = err;
	if (tp->tried_at - tp->down_logged >= DOWN_LOG_MS)
		turn_down_log(tp);
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
 * The lines of the turn that ends may be written once the WAL sync that covers the last commit
 * is answered: at once when no sync is outstanding (always, but with --fsync always), else when
 * turn_synced_cb() gets that ticket. A turn that committed nothing waits all the same for the
 * commits before it: what it sends may tell of them.
 */
static void
turn_release(struct turn *tp)
{
	uint64_t turn_no = net_turn_end(tp->net);

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
 * wal_sync's done callback: every commit up to ticket survives a power loss; release the turns
 * that waited for it and write their lines. A failed sync stops the process at once, as a failed
 * commit does: nothing that waited for it was sent, and a restart recovers what the disk holds.
 */
static void
turn_synced_cb(void *arg, uint64_t ticket, int rc)
{
	struct turn *tp = arg;

	if (rc < 0) {
		log_error("store: cannot sync the WAL to the disk: %s", strerror(-rc));
		log_error("stopping at once: nothing that waited for this sync was sent; a restart "
		          "recovers what the disk holds");
		exit(1);
	}
	tp->synced = ticket;
	if (tp->unhold_ticket != 0 && ticket >= tp->unhold_ticket) {
		net_unhold(tp->net, 0, tp->writable); /* the retry that held is on the disk */
		tp->unhold_ticket = 0;
		tp->held_from = 0;
	}
	while (tp->wait_head < tp->nwaits && tp->waits[tp->wait_head].ticket <= ticket)
		tp->released = tp->waits[tp->wait_head++].turn;
	if (tp->wait_head == tp->nwaits)
		tp->nwaits = tp->wait_head = 0;
	net_release(tp->net, tp->released);
	net_reap(tp->net);
}

/* wal_sync's job, on its thread. */
static int
turn_sync_job(void *arg)
{
	struct turn *tp = arg;

	return store_bg_sync(tp->bg);
}

/* ckpt's job, on its thread: only tp->bg and tp->ckpt_err are its. */
static int
turn_checkpoint_job(void *arg)
{
	struct turn *tp = arg;

	return store_bg_checkpoint(tp->bg, &tp->ckpt_err);
}

/*
 * ckpt's done callback, and the end of the loop's own checkpoint: a checkpoint that fails (a full
 * disk) is said once until one works.
 */
static void
turn_checkpointed_cb(void *arg, uint64_t ticket, int rc)
{
	struct turn *tp = arg;

	(void)ticket;
	if (rc < 0 && !tp->ckpt_failing)
		log_warn("store: %s; the WAL grows until a checkpoint works", tp->ckpt_err.text);
	else if (rc == 0 && tp->ckpt_failing)
		log_info("store: checkpoints work again");
	tp->ckpt_failing = rc < 0;
}

/*
 * After a commit: keep the WAL short. The checkpoint thread copies it into the file, once for
 * every WAL_CHECKPOINT_FRAMES new frames (as SQLite would; back to back, its two fsyncs would
 * queue in front of the WAL's). When the WAL has grown past WAL_CATCH_UP_FRAMES anyway (commits
 * kept extending it while the thread copied), the loop stops asking the thread and, once it is
 * idle, copies the rest itself, so that the next commit starts the WAL over. That one is the only
 * checkpoint that stalls the loop.
 */
static void
turn_checkpoint(struct turn *tp)
{
	size_t frames = store_wal_frames(tp->store);

	if (frames < tp->ckpt_asked)
		tp->ckpt_asked = 0; /* the WAL started over */
	if (tp->ckpt == NULL || syncer_busy(tp->ckpt) || frames < WAL_CHECKPOINT_FRAMES)
		return;
	if (frames < WAL_CATCH_UP_FRAMES) {
		if (frames - tp->ckpt_asked >= WAL_CHECKPOINT_FRAMES) {
			tp->ckpt_asked = frames;
			syncer_request(tp->ckpt);
		}
		return;
	}
	/* the thread is idle (not busy, not asked): its error slot is free */
	turn_checkpointed_cb(tp, 0, store_checkpoint(tp->store, &tp->ckpt_err));
}

/*
 * The end of a loop turn (a uv_prepare handle: libuv runs it once per turn, after the timers and
 * before it waits for I/O, so every callback of the turn is behind it). Group commit first, then
 * the held output of every client, then the closes that waited for it. A commit that fails stops
 * the process at once, without writing anything: see the top of this file. Once the network
 * layer has shut down and its last connection is closed, the pipeline closes its handle and its
 * threads, so that the loop can return. With a store that
 * keeps nothing (":memory:") the output goes first and the commit after it, off the round trip.
 */
static void
turn_cb(uv_prepare_t *h)
{
	struct turn *tp = h->data;
	int lag = tp->durable != NULL && durable_may_lag(tp->durable);
	int wrote = 0;

	if (tp->durable != NULL && !lag && durable_down(tp->durable)) {
		/* the store is down: a turn that added writes of its own is held too */
		if (durable_waiting(tp->durable) != tp->waiting_seen) {
			net_hold_turn(tp->net, tp->waiting);
			tp->held_turns++;
			tp->waiting_seen = durable_waiting(tp->durable);
		}
	} else if (tp->durable != NULL && !lag && (wrote = turn_commit(tp, 0)) &&
	           tp->wal_sync != NULL) {
		tp->need = syncer_request(tp->wal_sync);
	}
	turn_release(tp);
	net_release(tp->net, tp->released);
	if (lag)
		turn_commit(tp, 1);
	if (wrote)
		turn_checkpoint(tp);
	net_reap(tp->net);
	if (net_stopped(tp->net)) {
		uv_close((uv_handle_t *)&tp->prepare, NULL);
		uv_close((uv_handle_t *)&tp->retry, NULL);
		syncer_close(tp->wal_sync); /* waits for a sync under way */
		syncer_close(tp->ckpt);
		tp->wal_sync = tp->ckpt = NULL;
	}
}

/*
 * Hand the store's disk waits to threads of their own (store_bg_open()): the checkpoints, and
 * with --fsync always the sync of each group commit. The lines of a turn are then written when
 * the sync that covers its commit is answered (turn_release()), while the loop goes on with
 * the next turns: their moves join the next group commit instead of waiting behind the disk.
 */
int
turn_offload(struct turn *tp, struct store_error *err)
{
	int rc;

	if (tp->durable == NULL || store_is_temporary(tp->store))
		return 0;
	rc = store_bg_open(tp->store, &tp->bg, err);
	if (rc == STORE_EINVAL) { /* an SQLite without threads: the loop waits, as it did */
		log_warn("store: %s; the loop waits for the disk itself", err->text);
		return 0;
	}
	if (rc == 0 &&
	    (rc = syncer_create(tp->loop, turn_checkpoint_job, turn_checkpointed_cb, tp,
	                        &tp->ckpt)) == 0 &&
	    store_sync_level(tp->store) == STORE_SYNC_FULL)
		rc = syncer_create(tp->loop, turn_sync_job, turn_synced_cb, tp, &tp->wal_sync);
	if (rc < 0 && tp->bg != NULL) { /* store_bg_open() said what failed; a thread did here */
		snprintf(err->text, sizeof err->text, "cannot start a thread: %s", uv_strerror(rc));
		err->code = STORE_EIO;
	}
	if (rc < 0) { /* as a failed rebuild: nothing more is written */
		turn_store_drop(tp);
		return err->code;
	}
	return 0;
}

struct turn *
turn_create(uv_loop_t *loop, struct net *net, struct store *store, const struct turn_ops *ops)
{
	struct turn *tp = xcalloc(1, sizeof *tp);
	unsigned np, ng;

	tp->loop = loop;
	tp->net = net;
	tp->ops = *ops;
	tp->store = store;
	if (store != NULL) {
		struct store_write_port port;

		store_write_port_init(store, &port);
		ops->counters(ops->arg, &np, &ng);
		tp->durable = durable_create(&port, np, ng); /* copies the port */
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
	unsigned np, ng;
	int rc;

	if (tp->durable == NULL)
		return 0;
	tp->ops.counters(tp->ops.arg, &np, &ng);
	durable_counters_restored(tp->durable, np, ng);
	rc = durable_commit(tp->durable, np, ng, err);
	return rc < 0 ? rc : 0;
}

void
turn_shutdown(struct turn *tp)
{
	if (tp->durable == NULL || !durable_down(tp->durable) || turn_retry(tp))
		return;
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
	syncer_close(tp->wal_sync); /* normally closed at the last turn already: NULL */
	syncer_close(tp->ckpt);
	store_bg_close(tp->bg);
	free(tp->waits);
	durable_free(tp->durable);
	wire_unref(tp->waiting);
	wire_unref(tp->writable);
	free(tp);
}
