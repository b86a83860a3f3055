/*
 * net.c: connections of hokitod on libuv.
 *
 * Each connection is a struct net_client that embeds its libuv handles (the TCP stream and one
 * timer) and the game layer's struct lobby_peer; we get from one to the other with
 * container_of. It owns its input framer and the lines it holds for the end of the turn. Writes
 * own their buffers: each write request holds one reference to each wire it writes, released in
 * the write callback, so one encoded event can be in flight to a thousand clients at once.
 *
 * Output is held until the end of the loop turn (Redis's beforeSleep). Whatever the game layer
 * sends during a turn is kept on the client (a reference to each wire); a uv_prepare handle, which
 * runs once per turn right before the loop waits for I/O, first makes the turn durable with one
 * group commit (durable.h) and only then writes each client's lines with one writev
 * (client_flush(): uv_try_write, and one uv_write for what the kernel did not take). So nothing is
 * acknowledged that a crash could lose, and a client that gets many lines in a turn costs one
 * system call. If the commit fails the process stops without writing: the clients have heard
 * nothing the store does not hold, and a restart recovers the last commit. A store that keeps
 * nothing across a restart (":memory:") has nothing to wait for: there the commit follows the
 * writes, off the round trip.
 *
 * A file store's disk waits are not the loop's (net_offload()): the commit writes the WAL
 * without an fsync, and with --fsync always the fsync runs on a thread of its own (a syncer).
 * Each held line carries its turn; a turn is released, and its lines written, once the fsync
 * requested after its commit is answered (net_turn_release(), net_synced_cb()), and meanwhile
 * the loop reads and plays the next turns, whose moves form the next group commit. Lines keep
 * their order: a turn waits for the commits before it even if it committed nothing. Checkpoints
 * run on a second syncer through a second connection, so the loop does not wait for the copy of
 * the WAL into the file and its two fsyncs (net_checkpoint()), but for a catch-up checkpoint
 * when commits kept the WAL from starting over for 64 MiB.
 *
 * Teardown is never done inside a client's own callbacks or inside the game layer. A client that
 * must go is "doomed" (how: flush what is queued first, or drop at once) and put on a list; that
 * list is reaped at the end of every libuv callback, outside the lobby. Reaping tells the lobby the
 * peer is gone (which may doom others: their output may overflow; the loop takes them too), then
 * closes the handles; the memory is freed in the last close callback, when libuv has cancelled
 * every pending write. A flushing close shuts the write side down after the queued data, keeps
 * reading (and discarding) until the peer closes or a deadline passes, so the final error or bye
 * line is not destroyed by a reset.
 *
 * The computer players think on libuv's thread pool (uv_queue_work), never on the loop thread. A
 * work item (struct net_think) owns a copy of the position and everything its search needs, and
 * makes and frees its own search there; nothing it touches is shared with the loop except its
 * cancel flag, an atomic. Its after-work callback, back on the loop, hands the move to the game
 * layer by game id and ply (lobby_computer_move()), which drops it if the game went on or went
 * away meanwhile: so a game that ends, or a table that is freed, never needs its search stopped.
 * At shutdown, queued items are cancelled and running ones told to stop at their next clock
 * check; the loop runs until their callbacks are done, and their moves are dropped.
 */
#include <assert.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "durable.h"
#include "fanout.h"
#include "handlers.h"
#include "hokito-config.h"
#include "log.h"
#include "net.h"
#include "restore.h"
#include "search.h"
#include "store.h"
#include "syncer.h"
#include "xmalloc.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#define READ_BUF 65536 /* the shared read buffer */
#define BACKLOG  511   /* pending connections the kernel may hold (Redis's default) */
#define SEND_BUF 65536 /* asked of the kernel for each connection's send buffer */

/*
 * Checkpoints of a file store (frames of 4 KiB in the WAL): the checkpoint thread is asked for
 * one after a commit that leaves this many frames in the WAL (SQLite's own default), and the
 * loop runs one itself when the WAL has grown this far while the thread kept up with the copying
 * but never with the end of a WAL that commits keep extending.
 */
#define WAL_CHECKPOINT_FRAMES 1000
#define WAL_CATCH_UP_FRAMES   16384 /* 64 MiB */

#define THINK_TT_BYTES     (8u << 20)   /* the transposition table of one computer's search */
#define THINK_CANCELLED_MS (1ull << 40) /* added to a cancelled search's clock: time is up */

enum doom {
	DOOM_NONE = 0,
	DOOM_FLUSH = 1, /* write what is queued, then close */
	DOOM_NOW = 2,   /* close at once, dropping what is queued */
};

struct net_client {
	uv_tcp_t tcp;     /* the connection; tcp.data points back here */
	uv_timer_t timer; /* the hello deadline, then the closing deadline */
	uv_shutdown_t shutdown_req;
	struct net *net;
	struct lobby_peer peer;         /* the game layer's view of this connection */
	struct framer in;               /* input not yet split into lines */
	struct net_client *prev, *next; /* all clients */
	struct net_client *doom_next;   /* the doomed list */
	enum doom doomed;
	int in_doom_list;
	int closing;           /* reaped: the lobby was told, handles are closing or flushing */
	int open_handles;      /* handles not closed yet; the client is freed at 0 */
	int counted;           /* counts against max_clients */
	char addr[64];         /* peer address for the log */
	struct net_held *held; /* lines waiting for their turn's commit, in order */
	size_t nheld, held_cap;
	size_t held_bytes;                          /* their length */
	int shutdown_after_flush;                   /* a flushing close waits for the held lines */
	struct net_client *flush_prev, *flush_next; /* clients holding lines */
	int in_flush_list;
};

/* A line held for a client until the commit of the turn that made it is durable. */
struct net_held {
	struct wire *w; /* a reference */
	uint64_t turn;  /* the loop turn it was sent in (net.turn_no) */
};

/* Turns whose lines wait for a sync of the WAL: those up to turn go once ticket is answered. */
struct net_wait {
	uint64_t turn, ticket;
};

struct net_write {
	uv_write_t req;
	size_t n;
	struct wire *wires[]; /* one reference each, released in the write callback */
};

/* One computer's search on the thread pool: the work thread reads and writes only this. */
struct net_think {
	uv_work_t req;
	struct net *net;               /* the loop thread's side only */
	struct net_think *prev, *next; /* searches not finished (loop thread) */
	char game_id[16];              /* the game and ply it is for */
	int64_t ply;
	struct game pos;             /* its own copy of the position */
	struct search_limits lim;    /* the level's budget and the time cap */
	atomic_int cancel;           /* set by the loop thread: stop as soon as possible */
	int rc;                      /* search_run()'s result */
	struct search_result result; /* what it found */
	uint64_t ms;                 /* how long it took */
};

struct net {
	uv_loop_t *loop;
	struct net_config cfg;
	uv_tcp_t listener;
	uv_timer_t tick;   /* lobby_tick every second */
	uv_timer_t wake;   /* lobby_wake at the game layer's next deadline (ops->timer) */
	uv_prepare_t turn; /* end of each loop turn: group commit, then the held output */
	struct lobby *lobby;
	struct durable *durable;     /* NULL without a store */
	struct fanout fanout;        /* the in-process fan-out port: to durable, then peers */
	struct store *store;         /* borrowed; NULL without a store */
	struct store_bg *bg;         /* a file store's other-thread side (store_bg_open()) */
	struct syncer *wal_sync;     /* --fsync always: syncs the WAL after each commit */
	struct syncer *ckpt;         /* a file store: checkpoints the WAL */
	struct store_error ckpt_err; /* the checkpoint thread's error, read in its done callback */
	int ckpt_failing;            /* the last checkpoint failed (logged once until one works) */
	size_t ckpt_asked;           /* frames in the WAL when the last checkpoint was asked for */
	uint64_t turn_no;            /* the loop turn under way: 1, 2, ... */
	uint64_t released;           /* the lines of turns up to this one may be written */
	uint64_t need;               /* the wal_sync ticket that covers the last commit */
	uint64_t synced;             /* the last wal_sync ticket answered */
	struct net_wait *waits;      /* turns waiting for a sync, oldest first from wait_head */
	size_t nwaits, wait_head, waits_cap;
	struct net_client *flushing; /* clients holding lines, a doubly linked list */
	struct net_client *clients;  /* every client not yet freed */
	unsigned nclients;           /* counted clients */
	struct net_client *doomed;   /* clients to reap */
	struct net_think *thinking;  /* computers' searches queued or running */
	int stopping;
	char server_name[64];
	char rbuf[READ_BUF]; /* every read lands here (client_alloc_cb) */
};

static void client_reap_all(struct net *n);
static void client_send(struct net_client *c, struct wire *w);
static void client_shutdown(struct net_client *c);

/* Take c off the list of clients holding lines. */
static void
flush_list_remove(struct net_client *c)
{
	struct net *n = c->net;

	if (!c->in_flush_list)
		return;
	if (c->flush_prev != NULL)
		c->flush_prev->flush_next = c->flush_next;
	else
		n->flushing = c->flush_next;
	if (c->flush_next != NULL)
		c->flush_next->flush_prev = c->flush_prev;
	c->flush_prev = c->flush_next = NULL;
	c->in_flush_list = 0;
}

/*
 * Put c first on the list of clients holding lines: the list is written from the front, so
 * among the clients whose lines are released together the last to get a line goes first (a
 * client still holding lines of an earlier turn keeps its place), and the client whose request a
 * turn answered is moved to
 * the front once its input is handled (client_read_cb()): a mover reads its ok before the
 * opponent's your_turn is written, as Redis answers a PUBLISH before its subscribers' writes.
 */
static void
flush_list_front(struct net_client *c)
{
	struct net *n = c->net;

	flush_list_remove(c);
	c->in_flush_list = 1;
	c->flush_prev = NULL;
	c->flush_next = n->flushing;
	if (n->flushing != NULL)
		n->flushing->flush_prev = c;
	n->flushing = c;
}

/* Drop the lines c holds (it is closing at once). */
static void
client_held_drop(struct net_client *c)
{
	for (size_t i = 0; i < c->nheld; i++)
		wire_unref(c->held[i].w);
	c->nheld = 0;
	c->held_bytes = 0;
	flush_list_remove(c);
}

/* Mark c to be closed (how) at the next reap. Never frees, never calls the lobby. */
static void
client_doom(struct net_client *c, enum doom how)
{
	if (c->closing && how != DOOM_NOW)
		return;
	if (how > c->doomed)
		c->doomed = how;
	if (how == DOOM_NOW)
		uv_read_stop((uv_stream_t *)&c->tcp);
	if (!c->in_doom_list) {
		c->in_doom_list = 1;
		c->doom_next = c->net->doomed;
		c->net->doomed = c;
	}
}

static void
client_close_cb(uv_handle_t *h)
{
	struct net_client *c = h->data;
	struct net *n = c->net;

	if (--c->open_handles > 0)
		return;
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		n->clients = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	if (c->counted)
		n->nclients--;
	client_held_drop(c);
	free(c->held);
	framer_close(&c->in);
	log_debug("connection %s freed", c->addr);
	free(c);
}

static void
client_close_handles(struct net_client *c)
{
	if (uv_is_closing((uv_handle_t *)&c->tcp))
		return;
	client_held_drop(c);
	uv_close((uv_handle_t *)&c->tcp, client_close_cb);
	uv_close((uv_handle_t *)&c->timer, client_close_cb);
}

static void
client_deadline_cb(uv_timer_t *t)
{
	struct net_client *c = t->data;

	if (c->closing) {
		client_close_handles(c);
		return;
	}
	if (c->peer.session == NULL) {
		struct wire *w = wire_encode_steal(
		        msg_error_new(PROTO_EHELLOTIMEOUT, MSG_NONE, NULL,
		                      "no hello in time; closing the connection", NULL));

		log_info("connection %s: no hello in time", c->addr);
		client_send(c, w);
		wire_unref(w);
		client_doom(c, DOOM_FLUSH);
		client_reap_all(c->net);
	}
}

static void
client_shutdown_cb(uv_shutdown_t *req, int status)
{
	/* the write side is closed; wait for the peer's EOF or the deadline */
	(void)req;
	(void)status;
}

/* Shut the write side down after what is written, and give the peer close_timeout_ms to close. */
static void
client_shutdown(struct net_client *c)
{
	c->shutdown_after_flush = 0;
	if (uv_is_closing((uv_handle_t *)&c->tcp))
		return;
	if (uv_shutdown(&c->shutdown_req, (uv_stream_t *)&c->tcp, client_shutdown_cb) == 0) {
		uv_timer_stop(&c->timer);
		uv_timer_start(&c->timer, client_deadline_cb, c->net->cfg.close_timeout_ms, 0);
		return;
	}
	client_close_handles(c);
}

/*
 * Reap one doomed client: tell the lobby, then close. A flushing close shuts the write side down
 * after what is queued (after the turn's held lines are written, if it holds any) and waits
 * (reading and discarding) for the peer to close, at most close_timeout_ms.
 */
static void
client_reap(struct net_client *c)
{
	struct net *n = c->net;

	if (!c->closing) {
		c->closing = 1;
		lobby_peer_gone(n->lobby, &c->peer);
	}
	if (uv_is_closing((uv_handle_t *)&c->tcp))
		return;
	if (c->doomed == DOOM_FLUSH) {
		if (c->nheld > 0) {
			c->shutdown_after_flush = 1; /* net_flush_all() writes, then shuts down */
			return;
		}
		client_shutdown(c);
		return;
	}
	client_close_handles(c);
}

static void
client_reap_all(struct net *n)
{
	while (n->doomed != NULL) {
		struct net_client *c = n->doomed;

		n->doomed = c->doom_next;
		c->in_doom_list = 0;
		client_reap(c);
	}
}

static void
client_write_cb(uv_write_t *req, int status)
{
	struct net_write *wr = container_of(req, struct net_write, req);
	struct net_client *c = req->handle->data;

	for (size_t i = 0; i < wr->n; i++)
		wire_unref(wr->wires[i]);
	free(wr);
	if (status < 0 && status != UV_ECANCELED) {
		log_info("connection %s: write failed: %s", c->addr, uv_strerror(status));
		client_doom(c, DOOM_NOW);
		client_reap_all(c->net);
	}
}

/*
 * Queue a line for c: it is held until its turn is released (the end of the turn, or the sync
 * that covers the turn's commit: net_turn_release()). The cap counts what libuv could not hand to
 * the kernel yet and what is held (with --fsync always, the lines of the turns that wait for the
 * disk too, a few milliseconds' worth): a client that does not read makes it grow, and is dropped
 * at once when this line would pass the cap; the game and the other receivers do not wait for it.
 */
static void
client_send(struct net_client *c, struct wire *w)
{
	struct net *n = c->net;
	size_t pending = c->tcp.write_queue_size + c->held_bytes + w->len;

	if (c->doomed != DOOM_NONE || c->closing)
		return;
	if (pending > n->cfg.max_output) {
		log_warn("connection %s: %zu bytes of output pending, over the cap of %zu: dropped",
		         c->addr, pending, n->cfg.max_output);
		client_doom(c, DOOM_NOW);
		return;
	}
	c->held = xgrow(c->held, c->nheld, &c->held_cap, sizeof *c->held, 8);
	c->held[c->nheld].w = wire_ref(w);
	c->held[c->nheld++].turn = n->turn_no;
	c->held_bytes += w->len;
	if (!c->in_flush_list)
		flush_list_front(c);
}

/*
 * Write the lines c holds whose turn is released (net_turn_release()): those of a turn whose
 * commit is durable; the later ones stay, in order. First straight to the socket with
 * uv_try_write() (one writev, as Redis writes in beforeSleep): usually the kernel takes
 * everything, and nothing else happens: no request, no callback, and none of the epoll updates
 * libuv makes for each completed uv_write. What the kernel did not take goes into one uv_write,
 * which takes over the references of the lines not yet wholly written, and the cap (max_output)
 * counts it from then on.
 */
static void
client_flush(struct net_client *c)
{
	struct net_write *wr;
	uv_buf_t small[16], *bufs = small;
	size_t count = 0, first = 0, done = 0, bytes = 0;
	int rc;

	while (count < c->nheld && c->held[count].turn <= c->net->released)
		bytes += c->held[count++].w->len;
	if (count == c->nheld)
		flush_list_remove(c);
	if (count == 0 || uv_is_closing((uv_handle_t *)&c->tcp))
		return;
	if (count > sizeof small / sizeof small[0])
		bufs = xmalloc(count * sizeof *bufs);
	for (size_t i = 0; i < count; i++)
		bufs[i] = uv_buf_init(c->held[i].w->data, (unsigned)c->held[i].w->len);
	rc = uv_try_write((uv_stream_t *)&c->tcp, bufs, (unsigned)count);
	if (rc < 0 && rc != UV_EAGAIN) {
		log_info("connection %s: write failed: %s", c->addr, uv_strerror(rc));
		if (bufs != small)
			free(bufs);
		client_held_drop(c);
		client_doom(c, DOOM_NOW);
		return;
	}
	if (rc > 0)
		done = (size_t)rc;
	/* the lines written whole are done with; the first one left may be written in part */
	while (first < count && done >= c->held[first].w->len) {
		done -= c->held[first].w->len;
		wire_unref(c->held[first++].w);
	}
	if (first < count) {
		bufs[first].base += done;
		bufs[first].len -= (unsigned)done;
		wr = xmalloc(sizeof *wr + (count - first) * sizeof wr->wires[0]);
		wr->n = count - first;
		for (size_t i = 0; i < wr->n; i++)
			wr->wires[i] = c->held[first + i].w;
		rc = uv_write(&wr->req, (uv_stream_t *)&c->tcp, bufs + first, (unsigned)wr->n,
		              client_write_cb);
		if (rc < 0) {
			for (size_t i = 0; i < wr->n; i++)
				wire_unref(wr->wires[i]);
			free(wr);
			client_doom(c, DOOM_NOW);
		}
	}
	if (bufs != small)
		free(bufs); /* libuv copied the array */
	memmove(c->held, c->held + count, (c->nheld - count) * sizeof *c->held);
	c->nheld -= count;
	c->held_bytes -= bytes;
}

/* Write what every client may write now; a flushing close goes on once its lines are out. */
static void
net_flush_all(struct net *n)
{
	struct net_client *c, *next;

	for (c = n->flushing; c != NULL; c = next) {
		next = c->flush_next;
		client_flush(c);
		if (c->shutdown_after_flush && c->nheld == 0)
			client_shutdown(c);
	}
}

/* Send an error (code, sentence) that the network layer itself decides. */
static void
client_send_error(struct net_client *c, int code, const char *text)
{
	struct wire *w = wire_encode_steal(msg_error_new(code, MSG_NONE, NULL, text, NULL));

	client_send(c, w);
	wire_unref(w);
}

/* lobby_ops.send */
static void
lobby_send_cb(void *arg, struct lobby_peer *peer, struct wire *w)
{
	(void)arg;
	client_send(container_of(peer, struct net_client, peer), w);
}

/* lobby_ops.close: the session went to another connection. */
static void
lobby_close_cb(void *arg, struct lobby_peer *peer)
{
	(void)arg;
	client_doom(container_of(peer, struct net_client, peer), DOOM_FLUSH);
}

/* lobby_ops.unseated: the session's stored seat goes too (written at the end of the turn). */
static void
lobby_unseated_cb(void *arg, const char *token)
{
	struct net *n = arg;

	if (n->durable != NULL)
		durable_unseated(n->durable, token);
}

/*
 * The turn's group commit; a failure stops the process at once (sent: output already went).
 * Returns whether it wrote anything.
 */
static int
net_commit(struct net *n, int sent)
{
	struct store_error err;
	unsigned np, ng;
	int rc;

	lobby_counters(n->lobby, &np, &ng);
	rc = durable_commit(n->durable, np, ng, &err);

	if (rc < 0) {
		log_error("store: %s", err.text);
		if (sent)
			log_error("stopping at once (the store keeps nothing across a restart)");
		else
			log_error("stopping at once: nothing of this turn was sent; a restart "
			          "recovers the last commit");
		exit(1);
	}
	return rc > 0;
}

/*
 * The lines of the turn that ends may be written once the WAL sync that covers the last commit
 * is answered: at once when no sync is outstanding (always, but with --fsync always), else when
 * net_synced_cb() gets that ticket. A turn that committed nothing waits all the same for the
 * commits before it: what it sends may tell of them.
 */
static void
net_turn_release(struct net *n)
{
	if (n->need <= n->synced) {
		n->released = n->turn_no;
	} else if (n->nwaits > n->wait_head && n->waits[n->nwaits - 1].ticket == n->need) {
		n->waits[n->nwaits - 1].turn = n->turn_no;
	} else {
		if (n->wait_head > 0 && n->nwaits == n->waits_cap) {
			n->nwaits -= n->wait_head;
			memmove(n->waits, n->waits + n->wait_head, n->nwaits * sizeof *n->waits);
			n->wait_head = 0;
		}
		n->waits = xgrow(n->waits, n->nwaits, &n->waits_cap, sizeof *n->waits, 8);
		n->waits[n->nwaits].turn = n->turn_no;
		n->waits[n->nwaits++].ticket = n->need;
	}
	n->turn_no++;
}

/*
 * wal_sync's done callback: every commit up to ticket survives a power loss; release the turns
 * that waited for it and write their lines. A failed sync stops the process at once, as a failed
 * commit does: nothing that waited for it was sent, and a restart recovers what the disk holds.
 */
static void
net_synced_cb(void *arg, uint64_t ticket, int rc)
{
	struct net *n = arg;

	if (rc < 0) {
		log_error("store: cannot sync the WAL to the disk: %s", strerror(-rc));
		log_error("stopping at once: nothing that waited for this sync was sent; a restart "
		          "recovers what the disk holds");
		exit(1);
	}
	n->synced = ticket;
	while (n->wait_head < n->nwaits && n->waits[n->wait_head].ticket <= ticket)
		n->released = n->waits[n->wait_head++].turn;
	if (n->wait_head == n->nwaits)
		n->nwaits = n->wait_head = 0;
	net_flush_all(n);
	client_reap_all(n);
}

/* wal_sync's job, on its thread. */
static int
net_sync_job(void *arg)
{
	struct net *n = arg;

	return store_bg_sync(n->bg);
}

/* ckpt's job, on its thread: only n->bg and n->ckpt_err are its. */
static int
net_checkpoint_job(void *arg)
{
	struct net *n = arg;

	return store_bg_checkpoint(n->bg, &n->ckpt_err);
}

/*
 * ckpt's done callback, and the end of the loop's own checkpoint: a checkpoint that fails (a full
 * disk) is said once until one works.
 */
static void
net_checkpointed_cb(void *arg, uint64_t ticket, int rc)
{
	struct net *n = arg;

	(void)ticket;
	if (rc < 0 && !n->ckpt_failing)
		log_warn("store: %s; the WAL grows until a checkpoint works", n->ckpt_err.text);
	else if (rc == 0 && n->ckpt_failing)
		log_info("store: checkpoints work again");
	n->ckpt_failing = rc < 0;
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
net_checkpoint(struct net *n)
{
	size_t frames = store_wal_frames(n->store);

	if (frames < n->ckpt_asked)
		n->ckpt_asked = 0; /* the WAL started over */
	if (n->ckpt == NULL || syncer_busy(n->ckpt) || frames < WAL_CHECKPOINT_FRAMES)
		return;
	if (frames < WAL_CATCH_UP_FRAMES) {
		if (frames - n->ckpt_asked >= WAL_CHECKPOINT_FRAMES) {
			n->ckpt_asked = frames;
			syncer_request(n->ckpt);
		}
		return;
	}
	/* the thread is idle (not busy, not asked): its error slot is free */
	net_checkpointed_cb(n, 0, store_checkpoint(n->store, &n->ckpt_err));
}

/*
 * The end of a loop turn (a uv_prepare handle: libuv runs it once per turn, after the timers and
 * before it waits for I/O, so every callback of the turn is behind it). Group commit first, then
 * the held output of every client, then the closes that waited for it. A commit that fails stops
 * the process at once, without writing anything: see the top of this file. With a store that
 * keeps nothing (":memory:") the output goes first and the commit after it, off the round trip.
 */
static void
net_turn_cb(uv_prepare_t *h)
{
	struct net *n = h->data;
	int lag = n->durable != NULL && durable_may_lag(n->durable);
	int wrote = 0;

	if (n->durable != NULL && !lag && (wrote = net_commit(n, 0)) && n->wal_sync != NULL)
		n->need = syncer_request(n->wal_sync);
	net_turn_release(n);
	net_flush_all(n);
	if (lag)
		net_commit(n, 1);
	if (wrote)
		net_checkpoint(n);
	client_reap_all(n);
	if (n->stopping && n->clients == NULL) {
		uv_close((uv_handle_t *)&n->turn, NULL);
		syncer_close(n->wal_sync); /* waits for a sync under way */
		syncer_close(n->ckpt);
		n->wal_sync = n->ckpt = NULL;
	}
}

/* The game layer's deadline came (a flag fell, a grace period ran out). */
static void
net_wake_cb(uv_timer_t *t)
{
	struct net *n = t->data;

	lobby_wake(n->lobby);
	client_reap_all(n);
}

/* lobby_ops.timer: the game layer computes when; the network layer owns the timer. */
static void
lobby_timer_cb(void *arg, uint64_t delay_ms)
{
	struct net *n = arg;

	if (n->stopping || uv_is_closing((uv_handle_t *)&n->wake))
		return;
	if (delay_ms == UINT64_MAX)
		uv_timer_stop(&n->wake);
	else
		uv_timer_start(&n->wake, net_wake_cb, delay_ms, 0);
}

/* The search's clock: real milliseconds, far in the future once the search is cancelled. */
static uint64_t
think_clock_cb(void *arg)
{
	struct net_think *th = arg;
	uint64_t ms = uv_hrtime() / 1000000;

	return atomic_load(&th->cancel) ? ms + THINK_CANCELLED_MS : ms;
}

/* Thread pool: search th's own position with its own search; touch nothing else. */
static void
think_work_cb(uv_work_t *req)
{
	struct net_think *th = container_of(req, struct net_think, req);
	struct search *search = search_create(THINK_TT_BYTES, 1);
	uint64_t t0 = uv_hrtime();

	th->rc = search_run(search, &th->pos, &th->lim, &th->result);
	th->ms = (uv_hrtime() - t0) / 1000000;
	search_free(search);
}

/* Loop thread: hand the move to the game layer, which drops it if the game went on. */
static void
think_after_cb(uv_work_t *req, int status)
{
	struct net_think *th = container_of(req, struct net_think, req);
	struct net *n = th->net;
	char text[GAME_MOVE_TEXT];

	if (th->prev != NULL)
		th->prev->next = th->next;
	else
		n->thinking = th->next;
	if (th->next != NULL)
		th->next->prev = th->prev;
	if (status == 0 && th->rc == 0 && !n->stopping &&
	    game_move_format(th->pos.kind, th->result.best, text, sizeof text) >= 0) {
		log_debug("game %s: the computer found %s at depth %d, %llu nodes, %llu ms",
		          th->game_id, text, th->result.depth, (unsigned long long)th->result.nodes,
		          (unsigned long long)th->ms);
		lobby_computer_move(n->lobby, th->game_id, th->ply, text);
		client_reap_all(n);
	}
	free(th);
}

/* lobby_ops.think: queue the computer's search on the thread pool. */
static void
lobby_think_cb(void *arg, const char *game_id, int64_t ply, const struct game *g, int level,
               uint64_t seed, uint64_t time_ms)
{
	struct net *n = arg;
	struct net_think *th = xcalloc(1, sizeof *th);

	th->net = n;
	snprintf(th->game_id, sizeof th->game_id, "%s", game_id);
	th->ply = ply;
	th->pos = *g;
	if (search_level_limits(level, g->kind, seed, &th->lim) < 0)
		abort(); /* the game layer checked the level */
	th->lim.time_ms = time_ms;
	th->lim.clock_cb = think_clock_cb;
	th->lim.clock_arg = th;
	atomic_init(&th->cancel, 0);
	if (uv_queue_work(n->loop, &th->req, think_work_cb, think_after_cb) < 0) {
		log_error("game %s: the computer cannot think (uv_queue_work failed)", game_id);
		free(th);
		return;
	}
	th->next = n->thinking;
	if (n->thinking != NULL)
		n->thinking->prev = th;
	n->thinking = th;
}

/* lobby_ops.now: the loop's monotonic clock in milliseconds. */
static uint64_t
lobby_now_cb(void *arg)
{
	struct net *n = arg;

	return uv_now(n->loop);
}

/*
 * Every read lands in the one buffer of the network layer (n->rbuf): a connection keeps no input
 * memory of its own between lines. client_read_cb() handles the whole lines of a read right there
 * and copies only an unfinished tail into the client's framer, which is released again as soon as
 * that line is complete (framer_trim()). A read is handled completely before the next one, so one
 * buffer serves every connection.
 */
static void
client_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct net_client *c = h->data;

	(void)suggested;
	*buf = uv_buf_init(c->net->rbuf, sizeof c->net->rbuf);
}

/* Whether a line holds nothing but spaces and tabs. */
static int
line_blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t')
			return 0;
	return 1;
}

/*
 * Whether a request whose members msg_request_decode() refused goes to the game layer all the
 * same, for a refusal that comes first whatever the members: before hello every request but
 * hello gets hello_required, after it every hello already_welcomed, and test_clock on a server
 * without --test-clock unknown_type, as any unknown type.
 */
static int
client_refusal_to_lobby(const struct net_client *c, const struct msg *m)
{
	if (m->type == MSG_NONE)
		return 0;
	if ((c->peer.session == NULL) != (m->type == MSG_HELLO))
		return 1;
	return m->type == MSG_TEST_CLOCK && !c->net->lobby->cfg.test_clock;
}

/* Decode one whole line and hand it to the game layer, or refuse it. */
static void
client_line(struct net_client *c, const char *line, size_t len)
{
	struct msg_error err;
	struct msg m;

	if (line_blank(line, len))
		return;
	if (msg_request_decode(&m, line, len, &err) < 0 && !client_refusal_to_lobby(c, &m)) {
		struct wire *w = wire_encode_steal(msg_decode_error_new(&m, &err));

		log_debug("connection %s: refused a line: %s", c->addr, err.text);
		client_send(c, w);
		wire_unref(w);
	} else {
		handlers_dispatch(c->net->lobby, &c->peer, &m);
		if (c->peer.session != NULL && uv_is_active((uv_handle_t *)&c->timer))
			uv_timer_stop(&c->timer);
	}
	msg_clear(&m);
}

/* The line was too long: say so, then close after the error is written. */
static void
client_too_long(struct net_client *c)
{
	char text[96];

	snprintf(text, sizeof text, "a line is longer than %zu bytes; closing",
	         c->net->cfg.max_line);
	log_info("connection %s: line over the limit", c->addr);
	client_send_error(c, PROTO_ETOOLONG, text);
	client_doom(c, DOOM_FLUSH);
}

/* Hand every whole line the framer holds to client_line(), then release what it no longer needs. */
static void
client_framer_drain(struct net_client *c)
{
	const char *line;
	size_t len;
	int rc;

	while (c->doomed == DOOM_NONE && (rc = framer_next(&c->in, &line, &len)) != 0) {
		if (rc < 0) {
			client_too_long(c);
			return;
		}
		client_line(c, line, len);
	}
	framer_trim(&c->in);
}

/*
 * Split a read (in the shared buffer) into lines, Redis style: whole lines are decoded in place;
 * the bytes of a line that is not finished go to the client's framer, which then takes the rest
 * of that line from the next reads. Lines are cut by the framer's own rule, framer_cut() (the
 * limit: max_line bytes plus an optional '\r' before the '\n'), here as in the framer.
 */
static void
client_read_cb(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	struct net_client *c = stream->data;
	size_t max = c->net->cfg.max_line;
	char *p = buf->base, *end = buf->base + (nread > 0 ? nread : 0), *nl;

	if (nread < 0) {
		if (c->closing) {
			client_close_handles(c);
			return;
		}
		if (nread != UV_EOF)
			log_info("connection %s: read failed: %s", c->addr,
			         uv_strerror((int)nread));
		else
			log_debug("connection %s: closed by the peer", c->addr);
		client_doom(c, DOOM_NOW);
		client_reap_all(c->net);
		return;
	}
	if (c->doomed != DOOM_NONE || c->closing)
		return; /* discarded */
	if (framer_pending(&c->in) > 0) {
		/* finish the held line first: up to and including its '\n' */
		nl = memchr(p, '\n', (size_t)(end - p));
		framer_feed(&c->in, p, nl != NULL ? (size_t)(nl + 1 - p) : (size_t)(end - p));
		p = nl != NULL ? nl + 1 : end;
		client_framer_drain(c);
	}
	while (c->doomed == DOOM_NONE && p < end) {
		size_t len, used;
		int rc = framer_cut(p, 0, (size_t)(end - p), max, &len, &used);

		if (rc < 0) {
			client_too_long(c);
			break;
		}
		if (rc == 0) {
			/* the framer holds the unfinished line (within the limit) until its '\n' */
			framer_feed(&c->in, p, (size_t)(end - p));
			break;
		}
		client_line(c, p, len);
		p += used;
	}
	if (c->in_flush_list && c->net->flushing != c)
		flush_list_front(c); /* its replies first */
	client_reap_all(c->net);
}

/* The printable address of a socket address. */
static void
addr_format(const struct sockaddr_storage *ss, char *out, size_t size)
{
	char ip[64] = "?";
	int port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

		uv_ip4_name(a, ip, sizeof ip);
		port = ntohs(a->sin_port);
		snprintf(out, size, "%s:%d", ip, port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;

		uv_ip6_name(a, ip, sizeof ip);
		port = ntohs(a->sin6_port);
		snprintf(out, size, "[%s]:%d", ip, port);
	} else {
		snprintf(out, size, "?");
	}
}

static void
net_connection_cb(uv_stream_t *server, int status)
{
	struct net *n = server->data;
	struct net_client *c;
	struct sockaddr_storage ss;
	int len = sizeof ss, sndbuf = SEND_BUF;

	if (status < 0) {
		log_warn("accept: %s", uv_strerror(status));
		return;
	}
	c = xcalloc(1, sizeof *c);
	c->net = n;
	uv_tcp_init(n->loop, &c->tcp);
	uv_timer_init(n->loop, &c->timer);
	c->tcp.data = c;
	c->timer.data = c;
	c->open_handles = 2;
	c->next = n->clients;
	if (n->clients != NULL)
		n->clients->prev = c;
	n->clients = c;
	framer_init(&c->in, n->cfg.max_line);
	if (uv_accept(server, (uv_stream_t *)&c->tcp) < 0) {
		client_close_handles(c);
		return;
	}
	snprintf(c->addr, sizeof c->addr, "?");
	if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0)
		addr_format(&ss, c->addr, sizeof c->addr);
	uv_tcp_nodelay(&c->tcp, 1);
	/*
	 * A fixed send buffer instead of the kernel's autotuning (which lets megabytes pile up for
	 * a client that does not read, unseen by max_output): what the kernel may hold for one
	 * client stays small and known (Linux doubles the size asked for).
	 */
	uv_send_buffer_size((uv_handle_t *)&c->tcp, &sndbuf);
	uv_read_start((uv_stream_t *)&c->tcp, client_alloc_cb, client_read_cb);
	if (n->nclients >= n->cfg.max_clients) {
		log_warn("connection %s refused: %u clients already", c->addr, n->nclients);
		client_send_error(c, PROTO_ETOOMANYCLIENTS,
		                  "the server has its maximum of clients; try again later");
		client_doom(c, DOOM_FLUSH);
		client_reap_all(n);
		return;
	}
	c->counted = 1;
	n->nclients++;
	log_debug("connection %s accepted (%u clients)", c->addr, n->nclients);
	uv_timer_start(&c->timer, client_deadline_cb, n->cfg.hello_timeout_ms, 0);
}

static void
net_tick_cb(uv_timer_t *t)
{
	struct net *n = t->data;

	lobby_tick(n->lobby);
	client_reap_all(n);
}

struct net *
net_create(uv_loop_t *loop, const struct net_config *cfg, const struct lobby_config *lcfg)
{
	struct net *n = xcalloc(1, sizeof *n);
	struct lobby_config lc = *lcfg;
	struct lobby_ops ops = {
	        .send = lobby_send_cb,
	        .close = lobby_close_cb,
	        .now = lobby_now_cb,
	        .timer = lobby_timer_cb,
	        .think = lobby_think_cb,
	        .unseated = lcfg->store != NULL ? lobby_unseated_cb : NULL,
	        .arg = n,
	};

	n->loop = loop;
	n->cfg = *cfg;
	snprintf(n->server_name, sizeof n->server_name, "hokitod %s", HOKITO_VERSION);
	lc.server = n->server_name;
	lc.max_line = cfg->max_line;
	fanout_local_init(&n->fanout, NULL);
	lc.fanout = lcfg->store != NULL ? &n->fanout : NULL;
	n->lobby = lobby_create(&lc, &ops);
	if (lcfg->store != NULL) {
		unsigned np, ng;

		lobby_counters(n->lobby, &np, &ng);
		n->durable = durable_create(lcfg->store, np, ng);
	}
	n->fanout.arg = n->durable;
	uv_tcp_init(loop, &n->listener);
	n->listener.data = n;
	uv_timer_init(loop, &n->tick);
	n->tick.data = n;
	uv_timer_start(&n->tick, net_tick_cb, 1000, 1000);
	uv_timer_init(loop, &n->wake);
	n->wake.data = n;
	uv_prepare_init(loop, &n->turn);
	n->turn.data = n;
	n->turn_no = 1;
	n->store = lcfg->store;
	uv_prepare_start(&n->turn, net_turn_cb);
	return n;
}

/*
 * Hand the store's disk waits to threads of their own (store_bg_open()): the checkpoints, and
 * with --fsync always the sync of each group commit. The lines of a turn are then written when
 * the sync that covers its commit is answered (net_turn_release()), while the loop goes on with
 * the next turns: their moves join the next group commit instead of waiting behind the disk.
 */
int
net_offload(struct net *n, struct store_error *err)
{
	int rc;

	if (n->durable == NULL || store_is_temporary(n->store))
		return 0;
	rc = store_bg_open(n->store, &n->bg, err);
	if (rc == STORE_EINVAL) { /* an SQLite without threads: the loop waits, as it did */
		log_warn("store: %s; the loop waits for the disk itself", err->text);
		return 0;
	}
	if (rc == 0 &&
	    (rc = syncer_create(n->loop, net_checkpoint_job, net_checkpointed_cb, n, &n->ckpt)) ==
	            0 &&
	    store_sync_level(n->store) == STORE_SYNC_FULL)
		rc = syncer_create(n->loop, net_sync_job, net_synced_cb, n, &n->wal_sync);
	if (rc < 0 && n->bg != NULL) { /* store_bg_open() said what failed; a thread did here */
		snprintf(err->text, sizeof err->text, "cannot start a thread: %s", uv_strerror(rc));
		err->code = STORE_EIO;
	}
	if (rc < 0) { /* as a failed net_restore(): nothing more is written */
		durable_free(n->durable);
		n->durable = NULL;
		n->fanout.arg = NULL;
		return err->code;
	}
	return 0;
}

int
net_restore(struct net *n, struct store_error *err)
{
	int rc = restore_lobby(n->lobby, err), crc;
	unsigned np, ng;

	/* stale sessions removed, counters; the number of games rebuilt stays the answer */
	if (rc >= 0 && n->durable != NULL &&
	    (lobby_counters(n->lobby, &np, &ng), crc = durable_commit(n->durable, np, ng, err)) < 0)
		rc = crc;
	if (rc < 0) {
		/*
		 * A start that failed writes nothing more: no group commit at the turns of the
		 * shutdown (its error would be a second, misleading report), and what the rebuild
		 * queued is rolled back when the store closes.
		 */
		durable_free(n->durable);
		n->durable = NULL;
		n->fanout.arg = NULL;
	}
	return rc;
}

int
net_listen(struct net *n, const char *host, int port, char *bound, size_t size)
{
	struct sockaddr_storage ss;
	int len = sizeof ss, rc;

	memset(&ss, 0, sizeof ss);
	if (uv_ip4_addr(host, port, (struct sockaddr_in *)&ss) != 0 &&
	    uv_ip6_addr(host, port, (struct sockaddr_in6 *)&ss) != 0)
		return UV_EINVAL;
	if ((rc = uv_tcp_bind(&n->listener, (const struct sockaddr *)&ss, 0)) < 0)
		return rc;
	if ((rc = uv_listen((uv_stream_t *)&n->listener, BACKLOG, net_connection_cb)) < 0)
		return rc;
	if ((rc = uv_tcp_getsockname(&n->listener, (struct sockaddr *)&ss, &len)) < 0)
		return rc;
	addr_format(&ss, bound, size);
	return 0;
}

static void
net_handle_close_cb(uv_handle_t *h)
{
	(void)h;
}

void
net_shutdown(struct net *n)
{
	struct wire *bye;

	if (n->stopping)
		return;
	n->stopping = 1;
	log_info("shutting down: telling %u clients", n->nclients);
	if (!uv_is_closing((uv_handle_t *)&n->listener))
		uv_close((uv_handle_t *)&n->listener, net_handle_close_cb);
	if (!uv_is_closing((uv_handle_t *)&n->tick))
		uv_close((uv_handle_t *)&n->tick, net_handle_close_cb);
	if (!uv_is_closing((uv_handle_t *)&n->wake))
		uv_close((uv_handle_t *)&n->wake, net_handle_close_cb);
	for (struct net_think *th = n->thinking; th != NULL; th = th->next) {
		atomic_store(&th->cancel, 1);
		uv_cancel(
		        (uv_req_t *)&th->req); /* fails for a running search: it stops by itself */
	}
	bye = wire_encode_steal(msg_bye_new("shutdown", "server shutting down"));
	for (struct net_client *c = n->clients; c != NULL; c = c->next) {
		client_send(c, bye);
		client_doom(c, DOOM_FLUSH);
	}
	wire_unref(bye);
	client_reap_all(n);
}

void
net_free(struct net *n)
{
	if (n == NULL)
		return;
	assert(n->clients == NULL && n->thinking == NULL);
	syncer_close(n->wal_sync); /* normally closed at the last turn already: NULL */
	syncer_close(n->ckpt);
	store_bg_close(n->bg);
	free(n->waits);
	durable_free(n->durable);
	lobby_free(n->lobby);
	free(n);
}
