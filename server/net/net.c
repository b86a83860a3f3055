/*
 * net.c: connections of hokitod on libuv: accept, read, frame, write, and the limits that
 * protect the server.
 *
 * Each connection is a struct net_client that embeds its libuv handles (the TCP stream and one
 * timer) and the game layer's struct lobby_peer, a slot this layer never looks into; we get from
 * one to the other with container_of. It owns its input framer and the lines it holds for the
 * end of the turn. Writes own their buffers: each write request holds one reference to each wire
 * it writes, released in the write callback, so one encoded event can be in flight to a thousand
 * clients at once. It knows nothing about games: each whole line goes up through ops->line, and
 * lines come back through net_send().
 *
 * Output is held until the turn that made it is released (net_release()): the turn pipeline
 * (turn.h) releases a turn once its group commit is durable. Each held line carries its turn
 * (net_turn_end() closes one); a released client's lines are written with one writev
 * (client_flush(): uv_try_write, and one uv_write for what the kernel did not take). While the
 * store cannot write, a client may be "kept" (net_hold_turn(), net_hold_peer()): its lines from
 * held[kept_at] on wait for net_unhold() whatever their turn, and a line sent ahead
 * (net_send_ahead(): a pong, a notice) goes in at kept_at, before them.
 *
 * Teardown is never done inside a client's own callbacks or inside the layer above. A client that
 * must go is "doomed" (how: flush what is queued first, or drop at once) and put on a list; that
 * list is reaped at the end of every libuv callback (net_reap()), outside the layer above. Reaping
 * tells the layer above the peer is gone (ops->gone, which may doom others: their output may
 * overflow; the loop takes them too), then closes the handles; the memory is freed in the last
 * close callback, when libuv has cancelled every pending write. A flushing close shuts the write
 * side down after the queued data, keeps reading (and discarding) until the peer closes or a
 * deadline passes, so the final error or bye line is not destroyed by a reset.
 *
 * A connection whose request the layer above answers later (a store read, a password hash) is
 * paused meanwhile (net_pause()): no more of its lines go up and it is not read, so what it
 * sends waits in TCP, and in the server only the rest of the read that held that request (at
 * most cfg.max_queued bytes, in its framer). net_resume() puts it on a list that the next reap
 * takes: its waiting lines go up in order, then it is read again (client_resume()).
 *
 * TLS (a connection accepted on the TLS listener, net_listen_tls()) changes only the transport:
 * the ciphertext read goes through the engine (protocol/tls.h), whose plaintext takes the same
 * line splitting as a plain read (client_input()); released lines are joined and handed to the
 * engine as one record (client_flush_tls()), and its ciphertext goes out in write requests that
 * own their buffer (client_tls_out(), also called after each read: handshake messages). Every
 * limit counts from the accept: the hello deadline covers the handshake (one that has not ended
 * by then is closed without a word: there is no channel to say it on), max_clients counts
 * handshaking connections, and max_output counts the plaintext held plus the ciphertext libuv
 * holds. A flushing close sends close_notify before the TCP shutdown; one that comes before the
 * handshake has ended (too many clients) lets the handshake finish first, within the close
 * deadline, so the client reads why it was refused.
 *
 * A link (net_link_open(): a WebSocket, whose socket and framing libwebsockets owns, ws.c) is a
 * client without a TCP handle: its whole messages come in through net_link_input() to the same
 * line handling, its released lines go out through link_ops->write, its pending output is
 * link_ops->pending plus what is held, and its close is link_ops->close. Its one handle is the
 * timer (hello deadline, then closing deadline), whose close callback frees it. The link calls
 * net_link_closed() once its connection is gone; a close at once (link_ops->close without flush)
 * cuts the tie from our side, and the link never calls back for it.
 */
#include <assert.h>
#include <sys/queue.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "msg.h"
#include "net.h"
#include "osrand.h"
#include "quota.h"
#include "throttle.h"
#include "tls.h"
#include "xmalloc.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#define READ_BUF          65536 /* the shared read buffer */
#define BACKLOG           511   /* pending connections the kernel may hold (Redis's default) */
#define SEND_BUF          65536 /* asked of the kernel for each connection's send buffer */
#define NET_LOG_EVERY_MS  10000 /* one log line of a kind (a client dropped) this often at most */
/*
 * A doomed or closing connection's input is read and discarded, so that its peer gets our last
 * lines and a FIN, not a reset; but only this many reads (of --max-queued bytes at most): a
 * peer that floods on regardless is not read any more, and its connection goes at the closing
 * deadline. Reading a flood to its end would cost the server a core.
 */
#define NET_DISCARD_READS 4

enum doom {
	DOOM_NONE = 0,
	DOOM_FLUSH = 1, /* write what is queued, then close */
	DOOM_NOW = 2,   /* close at once, dropping what is queued */
};

/*
 * One connection. Its flags are bits, and what only a closing connection needs (the shutdown
 * request) is made then: an idle connection costs one allocation of jemalloc's 768-byte class
 * (tests/bench/idle.sh measures it).
 */
struct net_client {
	uv_tcp_t tcp;     /* the connection; tcp.data points back here */
	uv_timer_t timer; /* the hello deadline, then the closing deadline */
	struct net *net;
	struct lobby_peer peer;              /* the layer above's slot of this connection */
	struct framer in;                    /* input not yet split into lines */
	LIST_ENTRY(net_client) link;         /* all clients */
	SLIST_ENTRY(net_client) doom_link;   /* the doomed list */
	TAILQ_ENTRY(net_client) flush_link;  /* clients holding lines */
	SLIST_ENTRY(net_client) resume_link; /* net.resumed: lines go up again at the next reap */
	struct net_held *held;               /* lines waiting for their turn's commit, in order */
	size_t nheld, held_cap;
	size_t held_bytes;    /* their length */
	struct tls_conn *tls; /* TLS state (owned) on the TLS listener's connections, else NULL */
	char addr[64];        /* peer address for the log */
	unsigned doomed : 2;  /* enum doom */
	unsigned in_doom_list : 1;
	unsigned closing : 1; /* reaped: the layer above was told, handles closing or flushing */
	unsigned open_handles : 2; /* handles not closed yet; the client is freed at 0 */
	unsigned counted : 1;      /* counts against max_clients */
	unsigned addr_counted : 1; /* counts against max_per_addr (net.per_addr) */
	unsigned welcomed : 1;     /* said hello (ops->line said so): no hello deadline any more */
	unsigned shutdown_after_flush : 1; /* a flushing close waits for the held lines */
	unsigned in_flush_list : 1;
	unsigned tls_wait_open : 1; /* a flushing close waits for the handshake to end (TLS) */
	unsigned tls_dead : 1;      /* the engine failed: only its alert is left to write */
	unsigned kept : 1;          /* held for the store (net_hold_turn(), net_hold_peer()) */
	unsigned paused : 1; /* the layer above waits (net_pause()): no line goes up, no read */
	unsigned in_resume_list : 1;
	unsigned transport : 2; /* enum net_transport (4 of them) */
	unsigned discards : 3;  /* reads discarded since it was doomed (NET_DISCARD_READS) */
	size_t kept_at;         /* ... the lines from held[kept_at] on wait for net_unhold() */
	const struct net_link_ops *link_ops; /* a link's transport (net_link_open()), else NULL */
	void *carrier;                       /* the link's own; NULL once cut */
};
_Static_assert(NET_NTRANSPORTS <= 4, "struct net_client keeps a transport in 2 bits");

/* A line held for a client until the commit of the turn that made it is durable. */
struct net_held {
	struct wire *w; /* a reference */
	uint64_t turn;  /* the turn it was sent in (net.turn_no) */
};

struct net_write {
	uv_write_t req;
	size_t n;
	struct wire *wires[]; /* one reference each, released in the write callback */
};

/* A write of TLS ciphertext: it owns its buffer, freed in the write callback. */
struct net_tls_write {
	uv_write_t req;
	char *buf; /* from tls_conn_take() */
};

struct net {
	uv_loop_t *loop;
	struct net_config cfg;
	struct net_ops ops;
	uv_tcp_t listener;
	uv_tcp_t tls_listener;             /* bound by net_listen_tls(); initialised there */
	int tls_listening;                 /* tls_listener is initialised */
	struct tls_server *tls;            /* the TLS listener's certificate (borrowed) */
	uint64_t turn_no;                  /* the turn under way: 1, 2, ... */
	uint64_t released;                 /* the lines of turns up to this one may go */
	TAILQ_HEAD(, net_client) flushing; /* clients holding lines */
	LIST_HEAD(, net_client) clients;   /* every client not yet freed */
	unsigned nclients;                 /* counted clients */
	struct quota *per_addr;            /* connections of each source address */
	uint64_t addr_logged_at;           /* when a refusal by per_addr was last logged */
	unsigned addr_refused;             /* refusals since, not logged */
	SLIST_HEAD(, net_client) doomed;   /* clients to reap */
	SLIST_HEAD(, net_client) resumed;  /* paused clients to go on with (net_resume()) */
	uint64_t output_logged_at;         /* when a drop past max_output was last logged */
	unsigned output_dropped;           /* drops since, not logged */
	int stopping;
	struct net_stats stats;
	char *rbuf;          /* every read lands here (client_alloc_cb): cfg.max_queued bytes */
	char *pbuf;          /* the plaintext of a TLS read (client_read_tls()): as many */
	char wbuf[READ_BUF]; /* released lines joined into TLS records (client_flush_tls()) */
};

static void client_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf);
static void client_read_cb(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);
static void client_reap_all(struct net *n);
static void client_resume(struct net_client *c);
static void client_tls_plain(struct net_client *c);
static void client_send(struct net_client *c, struct wire *w);
static void client_shutdown(struct net_client *c);
static void client_tls_out(struct net_client *c);

/* Take c off the list of clients holding lines. */
static void
flush_list_remove(struct net_client *c)
{
	if (!c->in_flush_list)
		return;
	TAILQ_REMOVE(&c->net->flushing, c, flush_link);
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
	flush_list_remove(c);
	c->in_flush_list = 1;
	TAILQ_INSERT_HEAD(&c->net->flushing, c, flush_link);
}

/*
 * Forget c's first count held lines (their references are gone), bytes long. The array goes
 * once empty: an idle connection holds no output memory (its welcome is written at once).
 */
static void
client_held_shift(struct net_client *c, size_t count, size_t bytes)
{
	if (c->nheld > count)
		memmove(c->held, c->held + count, (c->nheld - count) * sizeof *c->held);
	c->nheld -= count;
	c->held_bytes -= bytes;
	if (c->nheld == 0) {
		free(c->held);
		c->held = NULL;
		c->held_cap = 0;
	}
}

/* Drop the lines c holds (it is closing at once). */
static void
client_held_drop(struct net_client *c)
{
	for (size_t i = 0; i < c->nheld; i++)
		wire_unref(c->held[i].w);
	client_held_shift(c, c->nheld, c->held_bytes);
	c->kept_at = 0;
	flush_list_remove(c);
}

/* Mark c to be closed (how) at the next reap. Never frees, never calls the layer above. */
static void
client_doom(struct net_client *c, enum doom how)
{
	if (c->closing && how != DOOM_NOW)
		return;
	if (how > c->doomed)
		c->doomed = how;
	if (how == DOOM_NOW && c->link_ops == NULL)
		uv_read_stop((uv_stream_t *)&c->tcp);
	if (!c->in_doom_list) {
		c->in_doom_list = 1;
		SLIST_INSERT_HEAD(&c->net->doomed, c, doom_link);
	}
}

static void
client_close_cb(uv_handle_t *h)
{
	struct net_client *c = h->data;
	struct net *n = c->net;

	if (--c->open_handles > 0)
		return;
	LIST_REMOVE(c, link);
	n->stats.open[c->transport]--;
	if (c->counted)
		n->nclients--;
	if (c->addr_counted)
		quota_conn_remove(n->per_addr, c->peer.addr);
	client_held_drop(c);
	free(c->held);
	framer_close(&c->in);
	tls_conn_free(c->tls);
	log_debug("connection %s freed", c->addr);
	free(c);
	if (n->stopping && LIST_EMPTY(&n->clients) && n->ops.stopped != NULL)
		n->ops.stopped(n->ops.arg);
}

static void
client_close_handles(struct net_client *c)
{
	if (c->link_ops != NULL) {
		if (uv_is_closing((uv_handle_t *)&c->timer))
			return;
		client_held_drop(c);
		if (c->carrier != NULL)
			c->link_ops->close(c->carrier, 0);
		c->carrier = NULL;
		uv_close((uv_handle_t *)&c->timer, client_close_cb);
		return;
	}
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
	if (!c->welcomed && c->tls != NULL && !tls_conn_is_open(c->tls)) {
		log_info("connection %s: no TLS handshake in time", c->addr);
		client_doom(c, DOOM_NOW);
		client_reap_all(c->net);
		return;
	}
	if (!c->welcomed) {
		struct wire *w = wire_encode_steal(
		        msg_error_new(PROTO_EHELLOTIMEOUT, MSG_NONE, NULL,
		                      "no hello in time; closing the connection", NULL));

		log_info("connection %s: no hello in time", c->addr);
		client_send(c, w);
		wire_unref(w);
		c->net->stats.hello_timeouts++;
		client_doom(c, DOOM_FLUSH);
		client_reap_all(c->net);
	}
}

static void
client_shutdown_cb(uv_shutdown_t *req, int status)
{
	/* the write side is closed (or the handle is: UV_ECANCELED); wait for the peer's EOF or the
	 * deadline */
	(void)status;
	free(req);
}

/*
 * Shut the write side down after what is written, and give the peer close_timeout_ms to close. A
 * TLS connection sends close_notify first; one still in its handshake waits for it to end (the
 * lines held for it go out then: client_read_tls()).
 */
static void
client_shutdown(struct net_client *c)
{
	uv_shutdown_t *req;

	c->shutdown_after_flush = 0;
	if (c->link_ops != NULL) {
		if (c->carrier == NULL || uv_is_closing((uv_handle_t *)&c->timer)) {
			client_close_handles(c);
			return;
		}
		c->link_ops->close(c->carrier, 1);
		uv_timer_stop(&c->timer);
		uv_timer_start(&c->timer, client_deadline_cb, c->net->cfg.close_timeout_ms, 0);
		return;
	}
	if (uv_is_closing((uv_handle_t *)&c->tcp))
		return;
	if (c->tls != NULL && !c->tls_dead && !tls_conn_is_open(c->tls) && !c->tls_wait_open) {
		c->tls_wait_open = 1;
		uv_timer_stop(&c->timer);
		uv_timer_start(&c->timer, client_deadline_cb, c->net->cfg.close_timeout_ms, 0);
		return;
	}
	if (c->tls != NULL) {
		tls_conn_shutdown(c->tls);
		client_tls_out(c);
	}
	/* made here, not kept in every connection: only a closing one needs it */
	req = xmalloc(sizeof *req);
	if (uv_shutdown(req, (uv_stream_t *)&c->tcp, client_shutdown_cb) == 0) {
		uv_timer_stop(&c->timer);
		uv_timer_start(&c->timer, client_deadline_cb, c->net->cfg.close_timeout_ms, 0);
		return;
	}
	free(req);
	client_close_handles(c);
}

/*
 * Reap one doomed client: tell the layer above, then close. A flushing close shuts the write side
 * down after what is queued (after the turn's held lines are written, if it holds any) and waits
 * (reading and discarding) for the peer to close, at most close_timeout_ms.
 */
static void
client_reap(struct net_client *c)
{
	struct net *n = c->net;

	if (!c->closing) {
		c->closing = 1;
		n->ops.gone(n->ops.arg, &c->peer);
	}
	if (uv_is_closing((uv_handle_t *)(c->link_ops != NULL ? (void *)&c->timer : &c->tcp)))
		return;
	if (c->doomed == DOOM_FLUSH && c->paused) {
		/* what it sent is not handled now; read (and discard) until its end, as any closing
		 * (a link's transport does that itself) */
		c->paused = 0;
		if (c->link_ops == NULL)
			uv_read_start((uv_stream_t *)&c->tcp, client_alloc_cb, client_read_cb);
	}
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
	struct net_client *c;

	for (;;) {
		if ((c = SLIST_FIRST(&n->resumed)) != NULL) {
			SLIST_REMOVE_HEAD(&n->resumed, resume_link);
			c->in_resume_list = 0;
			client_resume(c); /* its lines may doom others: they are reaped below */
			continue;
		}
		if ((c = SLIST_FIRST(&n->doomed)) == NULL)
			break;
		SLIST_REMOVE_HEAD(&n->doomed, doom_link);
		c->in_doom_list = 0;
		client_reap(c);
	}
}

/* A write to c failed (status, a libuv error other than UV_ECANCELED): drop c at once. */
static void
client_write_failed(struct net_client *c, int status)
{
	log_info("connection %s: write failed: %s", c->addr, uv_strerror(status));
	client_doom(c, DOOM_NOW);
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
		client_write_failed(c, status);
		client_reap_all(c->net);
	}
}

static void
client_tls_write_cb(uv_write_t *req, int status)
{
	struct net_tls_write *wr = container_of(req, struct net_tls_write, req);
	struct net_client *c = req->handle->data;

	free(wr->buf);
	free(wr);
	if (status < 0 && status != UV_ECANCELED) {
		client_write_failed(c, status);
		client_reap_all(c->net);
	}
}

/*
 * Write the ciphertext waiting in c's TLS engine: straight to the socket when the kernel takes
 * it (uv_try_write), the rest in a write request that owns the buffer.
 */
static void
client_tls_out(struct net_client *c)
{
	struct net_tls_write *wr;
	uv_buf_t buf;
	size_t len;
	char *p;
	int rc;

	while ((p = tls_conn_take(c->tls, &len)) != NULL) {
		if (uv_is_closing((uv_handle_t *)&c->tcp)) {
			free(p);
			continue;
		}
		buf = uv_buf_init(p, (unsigned)len);
		rc = uv_try_write((uv_stream_t *)&c->tcp, &buf, 1);
		if (rc == (int)len) {
			free(p);
			continue;
		}
		if (rc < 0 && rc != UV_EAGAIN) {
			free(p);
			client_write_failed(c, rc);
			continue;
		}
		if (rc > 0) {
			buf.base += rc;
			buf.len -= (unsigned)rc;
		}
		wr = xmalloc(sizeof *wr);
		wr->buf = p;
		if (uv_write(&wr->req, (uv_stream_t *)&c->tcp, &buf, 1, client_tls_write_cb) < 0) {
			free(p);
			free(wr);
			client_doom(c, DOOM_NOW);
		}
	}
}

/* The TLS engine of c failed (err): log it, drop what c holds, send the alert, then close. */
static void
client_tls_fail(struct net_client *c, const struct tls_error *err)
{
	log_info("connection %s: %s", c->addr, err->text);
	c->tls_dead = 1;
	client_held_drop(c);
	client_tls_out(c);
	client_doom(c, DOOM_FLUSH);
}

/*
 * Hand c's released lines (the first count, bytes long) to its TLS engine, joined into records
 * of up to sizeof n->wbuf bytes, then write the ciphertext. The lines are done with once copied.
 */
static void
client_flush_tls(struct net_client *c, size_t count, size_t bytes)
{
	struct net *n = c->net;
	struct tls_error err;
	size_t fill = 0;
	int rc = 0;

	for (size_t i = 0; i < count; i++) {
		const char *data = c->held[i].w->data;
		size_t len = c->held[i].w->len;

		while (rc == 0 && len > 0) {
			size_t k = len < sizeof n->wbuf - fill ? len : sizeof n->wbuf - fill;

			memcpy(n->wbuf + fill, data, k);
			fill += k;
			data += k;
			len -= k;
			if (fill == sizeof n->wbuf) {
				rc = tls_conn_write(c->tls, n->wbuf, fill, &err);
				fill = 0;
			}
		}
		wire_unref(c->held[i].w);
	}
	if (rc == 0 && fill > 0)
		rc = tls_conn_write(c->tls, n->wbuf, fill, &err);
	client_held_shift(c, count, bytes);
	c->kept_at -= c->kept ? count : 0;
	if (rc < 0) {
		client_tls_fail(c, &err);
		return;
	}
	client_tls_out(c);
}

/* Bytes written to c's transport that the kernel has not taken yet. */
static size_t
client_queued(const struct net_client *c)
{
	if (c->link_ops != NULL)
		return c->carrier != NULL ? c->link_ops->pending(c->carrier) : 0;
	return c->tcp.write_queue_size;
}

/* Hand c's released lines (the first count, bytes long) to its link; they are done with then. */
static void
client_flush_link(struct net_client *c, size_t count, size_t bytes)
{
	struct wire *small[16], **w = small;

	if (count > sizeof small / sizeof small[0])
		w = xmalloc(count * sizeof *w);
	for (size_t i = 0; i < count; i++)
		w[i] = c->held[i].w; /* their references move to w */
	/* out of held first: a write that fails closes the link, which drops what c holds */
	client_held_shift(c, count, bytes);
	c->kept_at -= c->kept ? count : 0;
	if (c->carrier != NULL)
		c->link_ops->write(c->carrier, w, count);
	for (size_t i = 0; i < count; i++)
		wire_unref(w[i]);
	if (w != small)
		free(w);
}

/*
 * Queue a line for c: it is held until its turn is released (the end of the turn, or the sync
 * that covers the turn's commit: turn.c). The cap counts what libuv could not hand to
 * the kernel yet and what is held (with --fsync always, the lines of the turns that wait for the
 * disk too, a few milliseconds' worth): a client that does not read makes it grow, and is dropped
 * at once when this line would pass the cap; the game and the other receivers do not wait for it.
 */
static void
client_send_at(struct net_client *c, size_t at, struct wire *w, uint64_t turn)
{
	struct net *n = c->net;
	size_t pending = client_queued(c) + c->held_bytes + w->len;

	if (c->doomed != DOOM_NONE || c->closing)
		return;
	if (pending > n->cfg.max_output) {
		n->stats.dropped_output++;
		log_debug(
		        "connection %s: %zu bytes of output pending, over the cap of %zu: dropped",
		        c->addr, pending, n->cfg.max_output);
		/* a warning in NET_LOG_EVERY_MS at most: a crowd of clients that do not read must
		 * not flood the log */
		if (n->output_logged_at == 0 ||
		    uv_now(n->loop) - n->output_logged_at >= NET_LOG_EVERY_MS) {
			log_warn("connection %s: %zu bytes of output pending, over the cap of %zu: "
			         "dropped (%u more dropped so since the last such line)",
			         c->addr, pending, n->cfg.max_output, n->output_dropped);
			n->output_logged_at = uv_now(n->loop);
			n->output_dropped = 0;
		} else {
			n->output_dropped++;
		}
		client_doom(c, DOOM_NOW);
		return;
	}
	c->held = xgrow(c->held, c->nheld, &c->held_cap, sizeof *c->held, 8);
	memmove(c->held + at + 1, c->held + at, (c->nheld - at) * sizeof *c->held);
	c->held[at].w = wire_ref(w);
	c->held[at].turn = turn;
	c->nheld++;
	c->held_bytes += w->len;
	n->stats.lines[c->transport]++;
	if (!c->in_flush_list)
		flush_list_front(c);
}

/* Queue a line for c after the others (client_send_at()). */
static void
client_send(struct net_client *c, struct wire *w)
{
	client_send_at(c, c->nheld, w, c->net->turn_no);
}

/*
 * Queue a line for c ahead of the lines it keeps for the store (net_send_ahead()), after the
 * others: it tells nothing the store must hold first (a pong, a notice), so it waits for no
 * commit (turn 0: released at once) and goes at the end of the turn, after the lines queued
 * before it that may go, whether or not the store has written what the kept ones wait for.
 */
static void
client_send_ahead(struct net_client *c, struct wire *w)
{
	size_t n = c->nheld;

	if (!c->kept) {
		client_send_at(c, c->nheld, w, 0);
		return;
	}
	client_send_at(c, c->kept_at, w, 0);
	if (c->nheld > n)
		c->kept_at++;
}

/*
 * Write the lines c holds whose turn is released (net_release()): those of a turn whose
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

	size_t limit = c->kept ? c->kept_at : c->nheld;

	while (count < limit && c->held[count].turn <= c->net->released)
		bytes += c->held[count++].w->len;
	if (count == c->nheld)
		flush_list_remove(c);
	if (count > 0 && c->link_ops != NULL) {
		client_flush_link(c, count, bytes);
		return;
	}
	if (count == 0 || uv_is_closing((uv_handle_t *)&c->tcp))
		return;
	if (c->tls != NULL) {
		client_flush_tls(c, count, bytes);
		return;
	}
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
	client_held_shift(c, count, bytes);
	c->kept_at -= c->kept ? count : 0;
}

/* Write what every client may write now; a flushing close goes on once its lines are out. */
static void
net_flush_all(struct net *n)
{
	struct net_client *c, *next;

	for (c = TAILQ_FIRST(&n->flushing); c != NULL; c = next) {
		next = TAILQ_NEXT(c, flush_link);
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

void
net_send(struct lobby_peer *peer, struct wire *w)
{
	client_send(container_of(peer, struct net_client, peer), w);
}

void
net_close(struct lobby_peer *peer)
{
	client_doom(container_of(peer, struct net_client, peer), DOOM_FLUSH);
}

const char *
net_peer_addr(const struct lobby_peer *peer)
{
	return container_of(peer, const struct net_client, peer)->addr;
}

uint64_t
net_turn(const struct net *n)
{
	return n->turn_no;
}

uint64_t
net_turn_end(struct net *n)
{
	return n->turn_no++;
}

void
net_release(struct net *n, uint64_t turn)
{
	if (turn > n->released)
		n->released = turn;
	net_flush_all(n);
	if (n->ops.released != NULL)
		n->ops.released(n->ops.arg, n->released);
}

/*
 * A turn whose commit failed, or that added writes to those waiting (the store is down, turn.c):
 * its lines, and the later ones of the same clients, are held until net_unhold(). A client that
 * got no line in such a turn is not held: its lines go as their turns are released.
 */
void
net_hold_turn(struct net *n, struct wire *notice)
{
	net_hold_since(n, n->turn_no, notice);
}

void
net_hold_since(struct net *n, uint64_t first, struct wire *notice)
{
	struct net_client *c;
	size_t at;

	TAILQ_FOREACH(c, &n->flushing, flush_link)
	{
		if (c->kept)
			continue;
		/* the first line of those turns (a line sent ahead, turn 0, may sit among them) */
		for (at = 0; at < c->nheld && c->held[at].turn < first; at++)
			;
		if (at == c->nheld)
			continue;
		c->kept = 1;
		c->kept_at = at; /* the lines of earlier turns go as their turns are released */
		if (notice != NULL)
			client_send_ahead(c, notice);
	}
}

void
net_hold_peer(struct lobby_peer *peer, struct wire *notice)
{
	struct net_client *c = container_of(peer, struct net_client, peer);

	if (c->kept || c->doomed != DOOM_NONE || c->closing)
		return;
	c->kept = 1;
	c->kept_at = c->nheld;
	if (notice != NULL)
		client_send_ahead(c, notice);
}

void
net_send_ahead(struct lobby_peer *peer, struct wire *w)
{
	client_send_ahead(container_of(peer, struct net_client, peer), w);
}

void
net_unhold(struct net *n, int drop, struct wire *notice)
{
	struct net_client *c;

	LIST_FOREACH(c, &n->clients, link)
	{
		if (c->kept && drop) {
			client_held_drop(c);
			client_doom(c, DOOM_NOW);
		} else if (c->kept && notice != NULL) {
			client_send_ahead(c, notice);
		}
		c->kept = 0;
		c->kept_at = 0;
	}
}

void
net_reap(struct net *n)
{
	client_reap_all(n);
}

int
net_stopped(const struct net *n)
{
	return n->stopping && LIST_EMPTY(&n->clients);
}

/*
 * Every read lands in the one buffer of the network layer (n->rbuf): a connection keeps no input
 * memory of its own between lines. client_read_cb() handles the whole lines of a read right there
 * and copies only an unfinished tail into the client's framer, which is released again as soon as
 * that line is complete (framer_trim()). A read is handled completely before the next one, so one
 * buffer serves every connection.
 *
 * But a connection whose request waits for something off the loop (a store read, a password
 * hash: net_pause()) hands nothing more up until its answer is out: the rest of the read waits in
 * its framer, and it is not read again until net_resume(). A read takes cfg.max_queued bytes at
 * most, so that is what may wait (on TLS, as much again inside the engine), whatever the peer
 * goes on sending: the kernel's buffers and TCP's window hold the rest, at the peer's cost.
 */
static void
client_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct net_client *c = h->data;

	(void)suggested;
	*buf = uv_buf_init(c->net->rbuf, (unsigned)c->net->cfg.max_queued);
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

/* Hand one whole line to the layer above, which says whether the peer has said hello now. */
static void
client_line(struct net_client *c, const char *line, size_t len)
{
	if (line_blank(line, len))
		return;
	c->welcomed = c->net->ops.line(c->net->ops.arg, &c->peer, line, len);
	if (c->welcomed && uv_is_active((uv_handle_t *)&c->timer))
		uv_timer_stop(&c->timer);
}

/* The line was too long: say so, then close after the error is written. */
static void
client_too_long(struct net_client *c)
{
	char text[96];

	snprintf(text, sizeof text, "a line is longer than %zu bytes; closing",
	         c->net->cfg.max_line);
	log_info("connection %s: line over the limit", c->addr);
	c->net->stats.too_long++;
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

	while (c->doomed == DOOM_NONE && !c->paused &&
	       (rc = framer_next(&c->in, &line, &len)) != 0) {
		if (rc < 0) {
			client_too_long(c);
			return;
		}
		client_line(c, line, len);
	}
	framer_trim(&c->in);
}

/*
 * The rest of a read, p to end, waits in c's framer behind the line that paused c: its whole
 * lines that are not blank are requests that arrived now, and the layer above counts them now
 * (ops->queued: the per-address rate), not once they are handled.
 */
static void
client_arrived(struct net_client *c, const char *p, const char *end)
{
	struct net *n = c->net;
	size_t count = 0;
	const char *nl;

	for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL; p = nl + 1) {
		size_t len = (size_t)(nl - p);

		if (len > 0 && p[len - 1] == '\r')
			len--;
		count += !line_blank(p, len);
	}
	if (count > 0 && n->ops.queued != NULL)
		n->ops.queued(n->ops.arg, &c->peer, count);
}

/*
 * Split a read (in the shared buffer; for TLS its plaintext) into lines, Redis style: whole lines
 * are decoded in place; the bytes of a line that is not finished go to the client's framer, which
 * then takes the rest of that line from the next reads. Lines are cut by the framer's own rule,
 * framer_cut() (the limit: max_line bytes plus an optional '\r' before the '\n'), here as in the
 * framer. When a line pauses the client (net_pause()), the rest of the read waits in the framer,
 * unsplit, for client_resume().
 */
static void
client_input(struct net_client *c, char *p, char *end)
{
	size_t max = c->net->cfg.max_line;
	char *nl;

	if (framer_pending(&c->in) > 0) {
		/* finish the held line first: up to and including its '\n' */
		nl = memchr(p, '\n', (size_t)(end - p));
		framer_feed(&c->in, p, nl != NULL ? (size_t)(nl + 1 - p) : (size_t)(end - p));
		p = nl != NULL ? nl + 1 : end;
		client_framer_drain(c);
	}
	while (c->doomed == DOOM_NONE && !c->paused && p < end) {
		size_t len, used;
		int rc = framer_cut(p, 0, (size_t)(end - p), max, &len, &used);

		if (rc < 0) {
			client_too_long(c);
			return;
		}
		if (rc == 0)
			break; /* the framer holds the unfinished line (within the limit) until its
			          '\n' */
		client_line(c, p, len);
		p += used;
	}
	if (c->doomed == DOOM_NONE && p < end) {
		if (c->paused)
			client_arrived(c, p, end);
		framer_feed(&c->in, p, (size_t)(end - p));
	}
}

/*
 * A TLS read: feed the ciphertext to the engine, split the plaintext it gives (in the shared
 * n->pbuf) as a plain read, then write what the engine has to say (handshake messages, alerts).
 * The peer's close_notify is its end, as EOF; any TLS error (garbage, plain JSON, a refused
 * version) closes this connection after the alert.
 */
static void
client_read_tls(struct net_client *c, const char *data, size_t len)
{
	struct tls_error err;

	if (tls_conn_feed(c->tls, data, len, &err) < 0) {
		client_tls_fail(c, &err);
		return;
	}
	client_tls_plain(c);
}

/*
 * Split the plaintext the TLS engine of c holds (client_read_tls()), until it holds none or a
 * line pauses c (the rest stays in the engine for client_resume()); then write what the engine
 * has to say.
 */
static void
client_tls_plain(struct net_client *c)
{
	struct net *n = c->net;
	struct tls_error err;
	size_t got;
	int r = 0;

	while (c->doomed == DOOM_NONE && !c->paused &&
	       (r = tls_conn_read(c->tls, n->pbuf, n->cfg.max_queued, &got, &err)) == 1)
		client_input(c, n->pbuf, n->pbuf + got);
	if (r == 1)
		r = 0; /* paused or doomed: what is left waits */
	if (r == TLS_ECLOSED) {
		log_debug("connection %s: closed by the peer (TLS)", c->addr);
		client_doom(c, DOOM_NOW);
		return;
	}
	if (r < 0) {
		client_tls_fail(c, &err);
		return;
	}
	client_tls_out(c);
}

/*
 * A read on a TLS connection refused before its handshake ended (too many clients, the server
 * stopping): the handshake goes on so that the lines held for it (the error, the bye) reach the
 * peer; the close that waits for it (client_shutdown()) goes on once it is open. Plaintext read
 * is discarded.
 */
static void
client_tls_handshake_closing(struct net_client *c, const char *data, size_t len)
{
	struct tls_error err;

	if (tls_conn_feed(c->tls, data, len, &err) < 0) {
		log_info("connection %s: %s", c->addr, err.text);
		c->tls_dead = 1;
	}
	client_tls_out(c);
	if ((c->tls_dead || tls_conn_is_open(c->tls)) && c->tls_wait_open) {
		c->tls_wait_open = 0;
		client_shutdown(c);
	}
}

static void
client_read_cb(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	struct net_client *c = stream->data;

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
	if (c->tls != NULL && c->doomed == DOOM_FLUSH && !c->tls_dead &&
	    !tls_conn_is_open(c->tls)) {
		client_tls_handshake_closing(c, buf->base, (size_t)nread);
		return;
	}
	if (c->doomed != DOOM_NONE || c->closing) {
		if (++c->discards >= NET_DISCARD_READS) /* discarded: a few reads at most */
			uv_read_stop(stream);
		return;
	}
	if (c->tls != NULL)
		client_read_tls(c, buf->base, (size_t)nread);
	else
		client_input(c, buf->base, buf->base + nread);
	if (c->in_flush_list && TAILQ_FIRST(&c->net->flushing) != c)
		flush_list_front(c); /* its replies first */
	client_reap_all(c->net);
}

int
net_addr_origin(const struct sockaddr_storage *ss, char key[LOBBY_PEER_KEY], int *loopback)
{
	*loopback = 0;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		*loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	} else if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		*loopback = IN6_IS_ADDR_LOOPBACK(a) ||
		            (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	if (throttle_key_from_addr((const struct sockaddr *)ss, key) < 0) {
		key[0] = '\0';
		return -1;
	}
	return 0;
}

/*
 * Go on with a client whose pause ended (net_resume()), at a reap: the lines that waited in its
 * framer go up in order (and on TLS the plaintext left in the engine), then it is read again,
 * unless one of them paused it once more. Its replies go first, as after a read.
 */
static void
client_resume(struct net_client *c)
{
	if (c->doomed != DOOM_NONE || c->closing || c->paused)
		return;
	client_framer_drain(c);
	if (c->doomed == DOOM_NONE && !c->paused && c->net->ops.queued != NULL)
		c->net->ops.queued(c->net->ops.arg, &c->peer, 0); /* what waited is handed up */
	if (c->tls != NULL && c->doomed == DOOM_NONE && !c->paused)
		client_tls_plain(c);
	if (c->doomed == DOOM_NONE && !c->paused) {
		if (c->link_ops == NULL)
			uv_read_start((uv_stream_t *)&c->tcp, client_alloc_cb, client_read_cb);
		else if (c->link_ops->pause != NULL && c->carrier != NULL)
			c->link_ops->pause(c->carrier, 0);
	}
	if (c->in_flush_list && TAILQ_FIRST(&c->net->flushing) != c)
		flush_list_front(c);
}

void
net_pause(struct lobby_peer *peer)
{
	struct net_client *c = container_of(peer, struct net_client, peer);

	if (c->paused || c->doomed != DOOM_NONE || c->closing)
		return;
	c->paused = 1;
	if (c->link_ops == NULL)
		uv_read_stop((uv_stream_t *)&c->tcp);
	else if (c->link_ops->pause != NULL && c->carrier != NULL)
		c->link_ops->pause(c->carrier, 1);
}

void
net_resume(struct lobby_peer *peer, int welcomed)
{
	struct net_client *c = container_of(peer, struct net_client, peer);

	if (c->doomed != DOOM_NONE || c->closing)
		return;
	if (welcomed && !c->welcomed) {
		c->welcomed = 1; /* welcomed by the answer (a password's): no hello deadline now */
		uv_timer_stop(&c->timer);
	}
	if (!c->paused)
		return;
	c->paused = 0;
	if (!c->in_resume_list) {
		c->in_resume_list = 1;
		SLIST_INSERT_HEAD(&c->net->resumed, c, resume_link);
	}
}

/*
 * What the game layer knows of where c comes from: its address's key (per-address limits, the
 * login throttle), and whether it is a loopback address (net_addr_origin()). Whether the
 * connection is encrypted (peer.encrypted) is set where TLS is chosen, at accept.
 */
static void
client_origin(struct net_client *c, const struct sockaddr_storage *ss)
{
	net_addr_origin(ss, c->peer.addr, &c->peer.loopback);
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

/*
 * Count a new connection c against max_clients and max_per_addr, or refuse it (its error line,
 * then a flushing close), then start its hello deadline.
 */
static void
client_admit(struct net_client *c)
{
	struct net *n = c->net;

	n->stats.accepted[c->transport]++;
	if (n->nclients >= n->cfg.max_clients) {
		log_warn("connection %s refused: %u clients already", c->addr, n->nclients);
		n->stats.refused_clients++;
		client_send_error(c, PROTO_ETOOMANYCLIENTS,
		                  "the server has its maximum of clients; try again later");
		client_doom(c, DOOM_FLUSH);
		client_reap_all(n);
		return;
	}
	/* --- per source address --- */
	if (quota_conn_add(n->per_addr, c->peer.addr) < 0) {
		char text[128];

		n->stats.refused_per_addr++;
		/* one line a second at most: a loop of connections must not flood the log */
		if (uv_now(n->loop) - n->addr_logged_at >= 1000 || n->addr_logged_at == 0) {
			log_warn("connection %s refused: %u connections from %s already (%u more "
			         "refused since the last such line)",
			         c->addr, n->cfg.max_per_addr, c->peer.addr, n->addr_refused);
			n->addr_logged_at = uv_now(n->loop);
			n->addr_refused = 0;
		} else {
			n->addr_refused++;
		}
		snprintf(text, sizeof text,
		         "too many connections from your address (at most %u); try again later",
		         n->cfg.max_per_addr);
		client_send_error(c, PROTO_ETOOMANYCLIENTS, text);
		client_doom(c, DOOM_FLUSH);
		client_reap_all(n);
		return;
	}
	c->addr_counted = 1;
	/* --- */
	c->counted = 1;
	n->nclients++;
	log_debug("connection %s accepted%s (%u clients)", c->addr,
	          c->transport == NET_TLS    ? " (TLS)"
	          : c->transport == NET_WS   ? " (WebSocket)"
	          : c->transport == NET_HTTP ? " (HTTP stream)"
	                                     : "",
	          n->nclients);
	uv_timer_start(&c->timer, client_deadline_cb, n->cfg.hello_timeout_ms, 0);
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
	LIST_INSERT_HEAD(&n->clients, c, link);
	framer_init(&c->in, n->cfg.max_line);
	if (server == (uv_stream_t *)&n->tls_listener)
		c->tls = tls_conn_server_create(n->tls);
	c->peer.encrypted = c->tls != NULL; /* accounts: a password may come over it */
	c->transport = c->tls != NULL ? NET_TLS : NET_TCP;
	n->stats.open[c->transport]++;
	if (uv_accept(server, (uv_stream_t *)&c->tcp) < 0) {
		client_close_handles(c);
		return;
	}
	snprintf(c->addr, sizeof c->addr, "?");
	if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0) {
		addr_format(&ss, c->addr, sizeof c->addr);
		client_origin(c, &ss); /* its address's key, loopback or not */
	}
	uv_tcp_nodelay(&c->tcp, 1);
	if (n->cfg.keepalive_s > 0) /* a peer that vanished without a word is found and reaped */
		uv_tcp_keepalive(&c->tcp, 1, n->cfg.keepalive_s);
	/*
	 * A fixed send buffer instead of the kernel's autotuning (which lets megabytes pile up for
	 * a client that does not read, unseen by max_output): what the kernel may hold for one
	 * client stays small and known (Linux doubles the size asked for).
	 */
	uv_send_buffer_size((uv_handle_t *)&c->tcp, &sndbuf);
	uv_read_start((uv_stream_t *)&c->tcp, client_alloc_cb, client_read_cb);
	client_admit(c);
}

struct lobby_peer *
net_link_open(struct net *n, const struct net_link_ops *ops, void *link,
              const struct sockaddr_storage *ss, int encrypted)
{
	struct net_client *c = xcalloc(1, sizeof *c);

	c->net = n;
	c->link_ops = ops;
	c->carrier = link;
	c->transport = ops->transport;
	uv_timer_init(n->loop, &c->timer);
	c->timer.data = c;
	c->open_handles = 1;
	LIST_INSERT_HEAD(&n->clients, c, link);
	n->stats.open[c->transport]++;
	framer_init(&c->in, n->cfg.max_line);
	c->peer.encrypted = encrypted;
	addr_format(ss, c->addr, sizeof c->addr);
	client_origin(c, ss);
	if (n->stopping) {
		struct wire *bye =
		        wire_encode_steal(msg_bye_new("shutdown", "server shutting down"));

		client_send(c, bye);
		wire_unref(bye);
		client_doom(c, DOOM_FLUSH);
		client_reap_all(n);
		return &c->peer;
	}
	client_admit(c);
	return &c->peer;
}

void
net_link_input(struct lobby_peer *peer, const char *line, size_t len)
{
	struct net_client *c = container_of(peer, struct net_client, peer);
	struct net *n = c->net;

	if (c->doomed != DOOM_NONE || c->closing)
		return; /* discarded */
	if (len > n->cfg.max_line) {
		client_too_long(c);
	} else if (c->paused || framer_pending(&c->in) > 0) {
		/* a message that came while paused waits behind the one that paused it, in the
		 * framer as a TCP read's rest does (client_resume() hands it up), counted now */
		framer_feed(&c->in, line, len);
		framer_feed(&c->in, "\n", 1);
		if (n->ops.queued != NULL)
			n->ops.queued(n->ops.arg, &c->peer, 1);
	} else {
		client_line(c, line, len);
	}
	if (c->in_flush_list && TAILQ_FIRST(&n->flushing) != c)
		flush_list_front(c); /* its replies first */
	client_reap_all(n);
}

void
net_link_ready(struct lobby_peer *peer)
{
	struct net_client *c = container_of(peer, struct net_client, peer);

	c->welcomed = 1;
	uv_timer_stop(&c->timer);
}

void
net_link_closed(struct lobby_peer *peer)
{
	struct net_client *c = container_of(peer, struct net_client, peer);

	c->carrier = NULL;
	if (c->closing) {
		client_close_handles(c);
		return;
	}
	log_debug("connection %s: closed by the peer", c->addr);
	client_doom(c, DOOM_NOW);
	client_reap_all(c->net);
}

int
net_link_closing(const struct lobby_peer *peer)
{
	const struct net_client *c = container_of(peer, const struct net_client, peer);

	return c->doomed != DOOM_NONE || c->closing;
}

void
net_stats(const struct net *n, struct net_stats *out)
{
	*out = n->stats;
}

struct net *
net_create(uv_loop_t *loop, const struct net_config *cfg, const struct net_ops *ops)
{
	struct net *n = xcalloc(1, sizeof *n);

	n->loop = loop;
	n->cfg = *cfg;
	n->ops = *ops;
	n->turn_no = 1;
	n->per_addr =
	        quota_create(&(struct quota_config){.conns = cfg->max_per_addr}, osrand_u64());
	n->rbuf = xmalloc(cfg->max_queued);
	n->pbuf = xmalloc(cfg->max_queued);
	TAILQ_INIT(&n->flushing);
	LIST_INIT(&n->clients);
	SLIST_INIT(&n->doomed);
	SLIST_INIT(&n->resumed);
	uv_tcp_init(loop, &n->listener);
	n->listener.data = n;
	return n;
}

/* Bind listener to host:port and listen; the bound address goes into bound. */
static int
listener_start(uv_tcp_t *listener, const char *host, int port, char *bound, size_t size)
{
	struct sockaddr_storage ss;
	int len = sizeof ss, rc;

	memset(&ss, 0, sizeof ss);
	if (uv_ip4_addr(host, port, (struct sockaddr_in *)&ss) != 0 &&
	    uv_ip6_addr(host, port, (struct sockaddr_in6 *)&ss) != 0)
		return UV_EINVAL;
	if ((rc = uv_tcp_bind(listener, (const struct sockaddr *)&ss, 0)) < 0)
		return rc;
	if ((rc = uv_listen((uv_stream_t *)listener, BACKLOG, net_connection_cb)) < 0)
		return rc;
	if ((rc = uv_tcp_getsockname(listener, (struct sockaddr *)&ss, &len)) < 0)
		return rc;
	addr_format(&ss, bound, size);
	return 0;
}

int
net_listen(struct net *n, const char *host, int port, char *bound, size_t size)
{
	return listener_start(&n->listener, host, port, bound, size);
}

int
net_listen_tls(struct net *n, const char *host, int port, struct tls_server *tls, char *bound,
               size_t size)
{
	if (!n->tls_listening) {
		uv_tcp_init(n->loop, &n->tls_listener);
		n->tls_listener.data = n;
		n->tls_listening = 1;
	}
	n->tls = tls;
	return listener_start(&n->tls_listener, host, port, bound, size);
}

static void
net_handle_close_cb(uv_handle_t *h)
{
	(void)h;
}

void
net_shutdown(struct net *n)
{
	struct net_client *c;
	struct wire *bye;

	if (n->stopping)
		return;
	n->stopping = 1;
	log_info("shutting down: telling %u clients", n->nclients);
	if (!uv_is_closing((uv_handle_t *)&n->listener))
		uv_close((uv_handle_t *)&n->listener, net_handle_close_cb);
	if (n->tls_listening && !uv_is_closing((uv_handle_t *)&n->tls_listener))
		uv_close((uv_handle_t *)&n->tls_listener, net_handle_close_cb);
	bye = wire_encode_steal(msg_bye_new("shutdown", "server shutting down"));
	LIST_FOREACH(c, &n->clients, link)
	{
		client_send(c, bye);
		client_doom(c, DOOM_FLUSH);
	}
	wire_unref(bye);
	client_reap_all(n);
	if (LIST_EMPTY(&n->clients) && n->ops.stopped != NULL)
		n->ops.stopped(n->ops.arg);
}

void
net_free(struct net *n)
{
	if (n == NULL)
		return;
	assert(LIST_EMPTY(&n->clients));
	quota_free(n->per_addr);
	free(n->rbuf);
	free(n->pbuf);
	free(n);
}
