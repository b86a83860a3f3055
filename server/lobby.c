/*
 * lobby.c: the game layer's front: sessions, the list of tables, and every request.
 *
 * The lobby owns every session and every table. A session outlives its connection (a peer) so
 * that a player can come back with its token; it is freed by lobby_tick() once it has been
 * disconnected longer than the linger time, unless it holds a seat in a live game. Tables are
 * freed when their game is finished, keep_finished more recent games of its kind (public or
 * private: private games, never listed, do not push public ones off the lobby's list) have
 * finished, and none of its players is still at it, connected or lingering (lobby_prune()), or
 * when the lobby is freed.
 * Pruning happens at the end of each entry point, never in the middle of a request that still uses
 * the table.
 *
 * Requests arrive already validated in form by msg_decode(); here they are checked against the
 * state (who is where, whose turn, the rules) and every refusal is an error reply that changes
 * nothing. Moves are validated by the rules module (game_move_parse) against the authoritative
 * position before anything else happens.
 *
 * Match management (issue 6) lives here too: draw offers, abort, claims after a grace period,
 * chat (players' lines are game events; spectators' lines go to spectators only), rematches. At
 * the end of every entry point the lobby computes the earliest deadline of all live games (a
 * flag fall, the end of a grace period) and asks the network layer for a wake-up then
 * (ops->timer); lobby_wake() acts on what is due.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "lobby.h"
#include "log.h"
#include "osrand.h"
#include "record.h"
#include "store-port.h"
#include "strmap.h"
#include "xmalloc.h"

#define CODE_ALPHABET "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

struct lobby {
	struct lobby_config cfg;
	struct lobby_ops ops;
	struct session **sessions; /* every session, in creation order */
	size_t nsessions, sessions_cap;
	struct table **tables; /* every table, in creation order */
	size_t ntables, tables_cap;
	struct strmap by_token;            /* session of each token */
	struct strmap by_player;           /* session of each player id */
	struct strmap by_game;             /* table of each game id */
	struct strmap by_code;             /* private table of each invite code */
	size_t nfinished;                  /* finished tables (counted by finished_touch()) */
	size_t nfinished_private;          /* of which private */
	int prune_due;                     /* a game finished since the last lobby_prune() */
	struct table *fin_head, *fin_tail; /* finished tables, oldest first (fin_next) */
	struct table *held;    /* finished tables past keep_finished held for a player (fin_next) */
	size_t nheld;          /* how many */
	struct table *release; /* held tables a player of theirs just left (release_next) */
	struct table **heap;   /* tables with a deadline, a binary min-heap on heap_deadline */
	size_t nheap, heap_cap;
	struct table *spect_waiting; /* tables whose coalesced spectators notice waits */
	unsigned next_player;        /* number of the next player id */
	unsigned next_game;          /* number of the next game id */
	uint64_t serial;             /* tables created */
	uint64_t finished_serial;    /* tables finished */
	uint64_t virtual_ms;         /* the time with cfg.test_clock: moved by test_clock only */
	/* connections whose store read is out, found by ticket in lobby_read_done() */
	TAILQ_HEAD(, lobby_wait) waits;
	uint64_t read_ticket; /* the last store read's ticket */
};

/* A request waiting in the lobby for its turn behind a store read of the same connection. */
struct lobby_queued {
	struct msg m; /* a copy, holding a reference of its own on m.root */
	STAILQ_ENTRY(lobby_queued) link;
};

/*
 * A connection with a store read out (ops->read): the request that asked it, and the requests
 * the connection sent since, which wait so that its replies keep the order of its requests
 * (PROTOCOL.md 3 and 9). The lobby finds it by the read's ticket; lobby_peer_gone() drops it, so
 * an answer that comes after its connection is gone finds nobody and is dropped.
 */
struct lobby_wait {
	uint64_t ticket;                    /* of the read out */
	struct lobby_peer *peer;            /* borrowed: valid while the wait is listed */
	struct msg request;                 /* the asking request (a reference on its root) */
	STAILQ_HEAD(, lobby_queued) queued; /* later requests, in order */
	size_t nqueued;                     /* how many */
	TAILQ_ENTRY(lobby_wait) link;       /* lobby.waits */
};

/* Requests one connection may send while a read of its own is out; more closes it. */
#define LOBBY_WAIT_MAX 4096

static void lobby_wait_drop(struct lobby *lb, struct lobby_wait *w);

struct lobby *
lobby_create(const struct lobby_config *cfg, const struct lobby_ops *ops)
{
	struct lobby *lb = xcalloc(1, sizeof *lb);

	lb->cfg = *cfg;
	lb->ops = *ops;
	lb->next_player = 1;
	lb->next_game = 1;
	TAILQ_INIT(&lb->waits);
	strmap_init(&lb->by_token, osrand_u64());
	strmap_init(&lb->by_player, osrand_u64());
	strmap_init(&lb->by_game, osrand_u64());
	strmap_init(&lb->by_code, osrand_u64());
	return lb;
}

void
lobby_free(struct lobby *lb)
{
	if (lb == NULL)
		return;
	while (!TAILQ_EMPTY(&lb->waits)) {
		TAILQ_FIRST(&lb->waits)->peer = NULL; /* its connection may be freed by now */
		lobby_wait_drop(lb, TAILQ_FIRST(&lb->waits));
	}
	for (size_t i = 0; i < lb->ntables; i++)
		table_free(lb->tables[i]);
	for (size_t i = 0; i < lb->nsessions; i++)
		free(lb->sessions[i]);
	free(lb->tables);
	free(lb->sessions);
	free(lb->heap);
	strmap_close(&lb->by_token);
	strmap_close(&lb->by_player);
	strmap_close(&lb->by_game);
	strmap_close(&lb->by_code);
	free(lb);
}

const struct lobby_ops *
lobby_ops(const struct lobby *lb)
{
	return &lb->ops;
}

const struct lobby_config *
lobby_config(const struct lobby *lb)
{
	return &lb->cfg;
}

uint64_t
lobby_time(const struct lobby *lb)
{
	return lb->cfg.test_clock ? lb->virtual_ms : lb->ops.now(lb->ops.arg);
}

void
lobby_counts(const struct lobby *lb, unsigned *sessions, unsigned *tables)
{
	*sessions = (unsigned)lb->nsessions;
	*tables = (unsigned)lb->ntables;
}

void
lobby_counters(const struct lobby *lb, unsigned *next_player, unsigned *next_game)
{
	*next_player = lb->next_player;
	*next_game = lb->next_game;
}

struct session *
lobby_session_by_id(struct lobby *lb, const char *id)
{
	return strmap_get(&lb->by_player, id);
}

static void lobby_arm(struct lobby *lb);

static uint64_t
lobby_now(struct lobby *lb)
{
	return lobby_time(lb);
}

/* Send a message (stolen) to a peer. */
static void
send_msg(struct lobby *lb, struct lobby_peer *peer, json_t *o)
{
	struct wire *w = wire_encode_steal(o);

	lb->ops.send(lb->ops.arg, peer, w);
	wire_unref(w);
}

/* Reply ok to request type (seq < 0: without "seq"); the line is written directly (msg_ok_wire()).
 */
static void
send_ok(struct lobby *lb, struct lobby_peer *peer, enum msg_type type, int64_t seq,
        const json_t *id)
{
	struct wire *w = msg_ok_wire(type, seq, id);

	lb->ops.send(lb->ops.arg, peer, w);
	wire_unref(w);
}

/* Refuse request m with an error of code and a sentence. */
static void refuse(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, int code,
                   const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 5, 6)))
#endif
        ;

static void
refuse(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, int code, const char *fmt,
       ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	log_debug("%s: %s refused: %s", peer->session ? peer->session->id : "-",
	          msg_type_name(m->type), text);
	send_msg(lb, peer, msg_error_new(code, m->type, NULL, text, m->id));
}

/* Whether s is seated in a game that is not over (open, live or adjourned). */
static int
seated_active(const struct session *s)
{
	return s->table != NULL && s->seat >= 0 && s->table->status != TABLE_FINISHED;
}

/* Open, live and adjourned tables: what --max-games counts. */
static unsigned
active_tables(const struct lobby *lb)
{
	return (unsigned)(lb->ntables - lb->nfinished - lb->nheld);
}

/* Add a new table to the list and the indexes. */
static void
tables_add(struct lobby *lb, struct table *t)
{
	lb->tables = xgrow(lb->tables, lb->ntables, &lb->tables_cap, sizeof *lb->tables, 64);
	lb->tables[lb->ntables++] = t;
	strmap_put(&lb->by_game, t->id, t);
	if (t->is_private)
		strmap_put(&lb->by_code, t->code, t);
}

/* Add a new session to the list and the indexes. */
static void
sessions_add(struct lobby *lb, struct session *s)
{
	lb->sessions =
	        xgrow(lb->sessions, lb->nsessions, &lb->sessions_cap, sizeof *lb->sessions, 64);
	lb->sessions[lb->nsessions++] = s;
	strmap_put(&lb->by_token, s->token, s);
	strmap_put(&lb->by_player, s->id, s);
}

/*
 * The deadline heap. Every table whose table_deadline() is finite (a clock runs, or the player
 * to move is away and spends grace) is in lb->heap, a binary min-heap on the deadline it was
 * filed under, and knows its place (heap_index). lobby_arm() then finds the earliest deadline at
 * the top instead of asking every table. A table's deadline changes only when something happens
 * at that table, so deadline_refresh() is called for the tables an entry point touched (the
 * requester's game before and after the request, the games woken by lobby_wake()), and for all
 * of them once a second in lobby_tick(), which bounds the harm of a missed refresh.
 */
static int
heap_less(const struct lobby *lb, size_t a, size_t b)
{
	return lb->heap[a]->heap_deadline < lb->heap[b]->heap_deadline;
}

static void
heap_swap(struct lobby *lb, size_t a, size_t b)
{
	struct table *x = lb->heap[a];

	lb->heap[a] = lb->heap[b];
	lb->heap[b] = x;
	lb->heap[a]->heap_index = a;
	lb->heap[b]->heap_index = b;
}

/* Restore the heap order around place i after its deadline changed. */
static void
heap_fix(struct lobby *lb, size_t i)
{
	while (i > 0 && heap_less(lb, i, (i - 1) / 2)) {
		heap_swap(lb, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < lb->nheap && heap_less(lb, l, m))
			m = l;
		if (r < lb->nheap && heap_less(lb, r, m))
			m = r;
		if (m == i)
			return;
		heap_swap(lb, i, m);
		i = m;
	}
}

/* Take t out of the heap, if it is there. */
static void
heap_remove(struct lobby *lb, struct table *t)
{
	size_t i = t->heap_index, last;

	if (i == SIZE_MAX)
		return;
	last = --lb->nheap;
	t->heap_index = SIZE_MAX;
	if (i == last)
		return;
	lb->heap[i] = lb->heap[last];
	lb->heap[i]->heap_index = i;
	heap_fix(lb, i);
}

/* File t under its current deadline: into the heap, moved in it, or out of it. */
static void
deadline_refresh(struct lobby *lb, struct table *t)
{
	uint64_t d;

	if (t == NULL)
		return;
	d = table_deadline(t);
	if (d == UINT64_MAX) {
		heap_remove(lb, t);
		return;
	}
	t->heap_deadline = d;
	if (t->heap_index == SIZE_MAX) {
		lb->heap = xgrow(lb->heap, lb->nheap, &lb->heap_cap, sizeof *lb->heap, 64);
		t->heap_index = lb->nheap;
		lb->heap[lb->nheap++] = t;
	}
	heap_fix(lb, t->heap_index);
}

/*
 * Spectators notices are coalesced. A change of a game's spectator list is sent at once if no
 * notice went to that game in the last SPECTATORS_INTERVAL milliseconds; otherwise one notice,
 * with the list as it is by then, goes when the interval is over (lobby_wake(), woken through
 * lobby_arm()). So a thousand spectators moving to a new game cost each receiver a few notices
 * instead of a thousand, and watch/leave loops cannot make the server send a line to every
 * spectator per request. The interval runs on ops->now (real time, even with test_clock).
 */
static void
spectators_changed(struct lobby *lb, struct table *t)
{
	uint64_t now = lb->ops.now(lb->ops.arg);

	if (t->spect_waiting)
		return;
	if (now >= t->spect_due) {
		table_spectators_notify(t);
		t->spect_due = now + SPECTATORS_INTERVAL;
		return;
	}
	t->spect_waiting = 1;
	t->spect_next = lb->spect_waiting;
	lb->spect_waiting = t;
}

/* Send the waiting spectators notices that are due. */
static void
spectators_flush(struct lobby *lb)
{
	uint64_t now = lb->ops.now(lb->ops.arg);
	struct table **pt = &lb->spect_waiting;

	while (*pt != NULL) {
		struct table *t = *pt;

		if (now < t->spect_due) {
			pt = &t->spect_next;
			continue;
		}
		*pt = t->spect_next;
		t->spect_waiting = 0;
		t->spect_next = NULL;
		table_spectators_notify(t);
		t->spect_due = now + SPECTATORS_INTERVAL;
	}
}

/* Take t off the list of waiting spectators notices (it is being freed). */
static void
spectators_forget(struct lobby *lb, struct table *t)
{
	for (struct table **pt = &lb->spect_waiting; *pt != NULL; pt = &(*pt)->spect_next) {
		if (*pt == t) {
			*pt = t->spect_next;
			t->spect_waiting = 0;
			return;
		}
	}
}

/*
 * A presence notice about seat of t, to everyone else there: in a game of any status (in an open
 * or finished game too, where a rematch wants the opponent there), with the grace left only where
 * grace is spent (a live or adjourned game).
 */
static void
presence_notify(struct table *t, int seat, int connected)
{
	json_t *o = msg_new(MSG_PRESENCE, NULL);
	struct wire *w;

	json_object_set_new(o, "game", json_string(t->id));
	json_object_set_new(o, "seat", json_string(game_side_name(t->kind, seat)));
	json_object_set_new(o, "player", msg_player_new(t->seat_id[seat], t->seat_name[seat]));
	json_object_set_new(o, "connected", json_boolean(connected));
	if (!connected && (t->status == TABLE_LIVE || t->status == TABLE_ADJOURNED)) {
		json_object_set_new(o, "grace_ms", json_integer(table_grace_now(t, seat)));
		json_object_set_new(o, "grace_over", json_boolean(t->grace_over[seat]));
	}
	w = wire_encode_steal(o);
	table_broadcast(t, w, t->seat[seat]);
	wire_unref(w);
}

/* The presence notice of an absent seat, to one peer (a client that just resumed). */
static void
presence_send(struct lobby *lb, struct lobby_peer *peer, struct table *t, int seat)
{
	json_t *o = msg_new(MSG_PRESENCE, NULL);

	json_object_set_new(o, "game", json_string(t->id));
	json_object_set_new(o, "seat", json_string(game_side_name(t->kind, seat)));
	json_object_set_new(o, "player", msg_player_new(t->seat_id[seat], t->seat_name[seat]));
	json_object_set_new(o, "connected", json_false());
	json_object_set_new(o, "grace_ms", json_integer(table_grace_now(t, seat)));
	json_object_set_new(o, "grace_over", json_boolean(t->grace_over[seat]));
	send_msg(lb, peer, o);
}

/* Count t among the finished tables, as the newest: pruning forgets the oldest first. */
static void
finished_append(struct lobby *lb, struct table *t)
{
	t->finish_counted = 1;
	t->finished_serial = ++lb->finished_serial;
	t->fin_prev = lb->fin_tail;
	t->fin_next = NULL;
	if (lb->fin_tail != NULL)
		lb->fin_tail->fin_next = t;
	else
		lb->fin_head = t;
	lb->fin_tail = t;
	lb->nfinished++;
	lb->nfinished_private += t->is_private != 0;
	lb->prune_due = 1;
}

/* Unlink t from the list (fin_prev, fin_next) that starts at *head and ends at *tail (or NULL). */
static void
fin_unlink(struct table **head, struct table **tail, struct table *t)
{
	if (t->fin_prev != NULL)
		t->fin_prev->fin_next = t->fin_next;
	else
		*head = t->fin_next;
	if (t->fin_next != NULL)
		t->fin_next->fin_prev = t->fin_prev;
	else if (tail != NULL)
		*tail = t->fin_prev;
}

/* Take t (counted) off the finished tables, or off the held ones, before it is freed. */
static void
finished_remove(struct lobby *lb, struct table *t)
{
	if (t->held) {
		fin_unlink(&lb->held, NULL, t);
		lb->nheld--;
		t->held = 0;
		return;
	}
	fin_unlink(&lb->fin_head, &lb->fin_tail, t);
	lb->nfinished--;
	lb->nfinished_private -= t->is_private != 0;
}

/*
 * Move finished table t, gone past the keep_finished most recent, from the finished tables to the
 * held ones: a player is still at it or may come back to it. Pruning never walks these again; a
 * held table is looked at when a player of its leaves it (table_released()).
 */
static void
finished_hold(struct lobby *lb, struct table *t)
{
	finished_remove(lb, t);
	t->held = 1;
	t->fin_prev = NULL;
	t->fin_next = lb->held;
	if (lb->held != NULL)
		lb->held->fin_prev = t;
	lb->held = t;
	lb->nheld++;
}

/*
 * A player left finished table t (went elsewhere, expired, went on to the rematch): if t is held
 * for its players, the next lobby_prune() forgets it once neither is left.
 */
static void
table_released(struct lobby *lb, struct table *t)
{
	if (!t->held || t->release_queued)
		return;
	t->release_queued = 1;
	t->release_next = lb->release;
	lb->release = t;
}

/* A game just finished: seated sessions that are disconnected linger from now on. */
static void
finished_touch(struct lobby *lb, struct table *t)
{
	if (t->status != TABLE_FINISHED || t->finish_counted)
		return;
	finished_append(lb, t);
	heap_remove(lb, t);
	for (int i = 0; i < 2; i++)
		if (t->seat[i] != NULL && t->seat[i]->peer == NULL)
			t->seat[i]->gone_at = lobby_now(lb);
	log_info("game %s over: %s %s (%s) after %zu moves", t->id, t->result,
	         t->winner >= 0 ? game_side_name(t->kind, t->winner) : "-", t->reason, t->nmoves);
}

/*
 * Take s away from the game it is at. A spectator leaves the list; a player of an open game ends
 * it (nobody is left to play it); a player of a finished game just goes. The caller makes sure s
 * is not seated in a live game.
 */
static void
session_leave(struct lobby *lb, struct session *s)
{
	struct table *t = s->table;

	if (t == NULL)
		return;
	assert(!(s->seat >= 0 && t->status == TABLE_LIVE));
	if (s->seat < 0) {
		session_attach(s, NULL);
		if (s->peer != NULL) {
			table_watcher_remove(t, s);
			spectators_changed(lb, t);
		}
		return;
	}
	if (t->status != TABLE_ADJOURNED && lb->ops.unseated != NULL)
		lb->ops.unseated(lb->ops.arg, s->token);
	if (t->status == TABLE_OPEN) {
		table_finish(t, "aborted", -1, "abandoned");
		finished_touch(lb, t);
	}
	t->rematch_offer = -1; /* a rematch needs both players at the game */
	t->seat[s->seat] = NULL;
	session_attach(s, NULL);
	s->seat = -1;
	if (t->status == TABLE_FINISHED)
		table_released(lb, t); /* its game may have been held for it */
}

/*
 * Free table t after detaching every session still at it. O(1) but for finding t in the list of
 * tables, a scan of pointers from both ends at once: the tables dropped are usually among the
 * oldest, but thousands of held games (lobby_prune()) may stand before a game just finished.
 */
static void
table_drop(struct lobby *lb, struct table *t)
{
	size_t i = 0, j = lb->ntables - 1;

	while (t->attached != NULL) {
		t->attached->seat = -1;
		session_attach(t->attached, NULL);
	}
	log_debug("game %s forgotten", t->id);
	strmap_del(&lb->by_game, t->id);
	if (t->is_private)
		strmap_del(&lb->by_code, t->code);
	heap_remove(lb, t);
	if (t->spect_waiting)
		spectators_forget(lb, t);
	if (t->finish_counted)
		finished_remove(lb, t);
	while (lb->tables[i] != t && lb->tables[j] != t) {
		i++;
		j--;
	}
	if (lb->tables[i] != t)
		i = j;
	memmove(lb->tables + i, lb->tables + i + 1, (lb->ntables - i - 1) * sizeof *lb->tables);
	lb->ntables--;
	table_free(t);
}

/*
 * Whether a player of finished table t is still at it: connected (players stay at a finished
 * game until they go elsewhere or leave, PROTOCOL.md 6.5: to chat, to offer a rematch), or away
 * with a session that lingers, so that the player who returns in time gets the game_over it
 * missed (11.3; its session expires within --linger). Such a table is held beyond keep_finished;
 * a session is at one game at most, so the tables held so are no more than the sessions.
 */
static int
table_awaited(const struct table *t)
{
	for (int i = 0; i < 2; i++)
		if (t->seat[i] != NULL)
			return 1;
	return 0;
}

/*
 * Forget the finished games older than the keep_finished most recent, public and private counted
 * apart (the lobby lists keep_finished public ones, whatever private games finished since), but
 * those a player is still at or may come back to: those are held (finished_hold()) until their
 * last player leaves them (table_released()). Only the games just gone past the most recent are
 * walked, oldest first, and the held games a player just left: never all the held games, which
 * may be thousands (every game of a crowd that went away, for --linger) while games finish many
 * times a second.
 */
static void
lobby_prune(struct lobby *lb)
{
	size_t n[2], older[2];
	struct table *t, *next;

	while ((t = lb->release) != NULL) {
		lb->release = t->release_next;
		t->release_queued = 0;
		if (!table_awaited(t))
			table_drop(lb, t);
	}
	if (!lb->prune_due)
		return;
	lb->prune_due = 0;
	n[0] = lb->nfinished - lb->nfinished_private;
	n[1] = lb->nfinished_private;
	for (int k = 0; k < 2; k++)
		older[k] = n[k] > lb->cfg.keep_finished ? n[k] - lb->cfg.keep_finished : 0;
	for (t = lb->fin_head; t != NULL && older[0] + older[1] > 0; t = next) {
		int k = t->is_private != 0;

		next = t->fin_next;
		if (older[k] == 0)
			continue;
		older[k]--;
		if (table_awaited(t))
			finished_hold(lb, t);
		else
			table_drop(lb, t);
	}
}

/* The session of a token, or NULL (strmap's keyed hash and constant-time compare: strmap.h). */
static struct session *
session_find_token(struct lobby *lb, const char *token)
{
	if (strlen(token) != PROTOCOL_TOKEN_LEN)
		return NULL;
	return strmap_get(&lb->by_token, token);
}

static struct session *
session_new(struct lobby *lb, const char *name)
{
	struct session *s = xcalloc(1, sizeof *s);

	snprintf(s->id, sizeof s->id, "p%u", lb->next_player++);
	snprintf(s->name, sizeof s->name, "%s", name);
	osrand_text(s->token, PROTOCOL_TOKEN_LEN, "0123456789abcdef");
	s->seat = -1;
	sessions_add(lb, s);
	return s;
}

static json_t *
welcome_new(struct lobby *lb, const struct session *s, int resumed, json_t *id)
{
	json_t *o = msg_new(MSG_WELCOME, NULL);

	json_object_set_new(o, "protocol", json_integer(PROTOCOL_VERSION));
	json_object_set_new(o, "server", json_string(lb->cfg.server));
	json_object_set_new(o, "player", msg_player_new(s->id, s->name));
	json_object_set_new(o, "token", json_string(s->token));
	json_object_set_new(o, "resumed", json_boolean(resumed));
	json_object_set_new(o, "game", s->table ? json_string(s->table->id) : json_null());
	json_object_set_new(o, "limits",
	                    json_pack("{s:I}", "max_line", (json_int_t)lb->cfg.max_line));
	if (id != NULL)
		json_object_set_new(o, "id", json_deep_copy(id));
	return o;
}

/*
 * Resume a session on a new connection. The client says which seq it saw last: if the log holds
 * every event after it, those very lines are sent again (nothing else is needed to catch up);
 * otherwise a full state. Notices are about the present, so the current ones follow.
 */
static void
hello_resume(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, struct session *s)
{
	int was_connected = s->peer != NULL;
	struct table *t;

	if (was_connected) {
		struct lobby_peer *old = s->peer;

		send_msg(lb, old,
		         msg_bye_new("replaced", "this session said hello on another connection"));
		old->session = NULL;
		lb->ops.close(lb->ops.arg, old);
		log_info("%s (%s) replaced its connection", s->id, s->name);
	}
	t = s->table;
	if (t != NULL && s->seat >= 0 && !was_connected)
		table_clock_settle(t); /* the grace spent so far is charged while still away */
	s->peer = peer;
	peer->session = s;
	send_msg(lb, peer, welcome_new(lb, s, 1, m->id));
	log_info("%s (%s) resumed%s%s", s->id, s->name, s->table ? " at game " : "",
	         s->table ? s->table->id : "");
	t = s->table;
	if (t == NULL)
		return;
	if (s->seat < 0 && !was_connected)
		table_watcher_add(t, s); /* back on the list, as its state says */
	if (m->has_last_seq && m->last_seq <= table_seq(t)) {
		for (size_t i = (size_t)m->last_seq; i < t->nlog; i++)
			lb->ops.send(lb->ops.arg, peer, t->log[i]);
	} else {
		send_msg(lb, peer, table_state_new(t, s, NULL));
	}
	if (s->seat < 0 && !was_connected)
		spectators_changed(lb, t);
	if (s->seat >= 0 || was_connected || t->spect_waiting) {
		/* the notice of 4.3 comes now, whether or not the others' waits (coalescing) */
		json_t *o = msg_new(MSG_SPECTATORS, NULL);

		json_object_set_new(o, "game", json_string(t->id));
		json_object_set_new(o, "spectators", table_spectators_new(t));
		send_msg(lb, peer, o);
	}
	if (s->seat >= 0 && !was_connected) {
		presence_notify(t, s->seat, 1);
		if (t->status == TABLE_LIVE || t->status == TABLE_ADJOURNED)
			table_seat_back(t, s->seat);
	}
	/* who else is away now: the presence notices missed while disconnected are not replayed */
	if (t->status == TABLE_LIVE || t->status == TABLE_ADJOURNED)
		for (int i = 0; i < 2; i++)
			if (i != s->seat && t->seat_taken[i] && !table_connected(t, i))
				presence_send(lb, peer, t, i);
	if (s->seat >= 0 && t->status == TABLE_LIVE && game_side(&t->game) == s->seat)
		table_your_turn(t);
}

static void
handle_hello(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s;

	if (peer->session != NULL) {
		refuse(lb, peer, m, PROTO_EALREADYWELCOMED, "this connection already said hello");
		return;
	}
	if (m->token != NULL) {
		s = session_find_token(lb, m->token);
		if (s == NULL) {
			refuse(lb, peer, m, PROTO_EBADTOKEN,
			       "unknown or expired session token; say hello with a name instead");
			return;
		}
		hello_resume(lb, peer, m, s);
		return;
	}
	s = session_new(lb, m->name);
	s->peer = peer;
	peer->session = s;
	log_info("%s (%s) said hello%s%s", s->id, s->name, m->client ? " from " : "",
	         m->client ? m->client : "");
	send_msg(lb, peer, welcome_new(lb, s, 0, m->id));
}

/*
 * Find a game for join, watch or record: private ones only by their code, which is matched
 * without regard to case (a friend may type it in lower case; codes are made of capitals).
 */
static struct table *
table_lookup(struct lobby *lb, const struct msg *m)
{
	struct table *t;

	if (m->code != NULL) {
		char code[PROTOCOL_CODE_LEN + 1];
		size_t n = strlen(m->code);

		if (n > PROTOCOL_CODE_LEN)
			return NULL;
		for (size_t i = 0; i <= n; i++) /* ASCII only: a code has no other letters */
			code[i] = m->code[i] >= 'a' && m->code[i] <= 'z'
			                  ? (char)(m->code[i] - 'a' + 'A')
			                  : m->code[i];
		return strmap_get(&lb->by_code, code);
	}
	t = strmap_get(&lb->by_game, m->game);
	return t != NULL && !t->is_private ? t : NULL;
}

/* Whether a private game already uses this invite code. */
static int
code_used(struct lobby *lb, const char *code)
{
	return strmap_get(&lb->by_code, code) != NULL;
}

/* Refuse m with server_full when --max-games games are active. Returns whether it refused. */
static int
refuse_full(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	if (active_tables(lb) < lb->cfg.max_games)
		return 0;
	refuse(lb, peer, m, PROTO_ESERVERFULL, "the server holds its maximum of %u games",
	       lb->cfg.max_games);
	return 1;
}

/*
 * Create a game with s seated (seat -1: random) and reply its state. With level > 0 the server's
 * computer takes the other seat at that level and the game starts at once: the creator's state
 * then includes both seated events and started, and the first player gets its turn.
 */
static void
do_create(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, enum game_kind kind,
          const char *variant, int seat, int is_private, int has_seed, uint64_t seed,
          uint64_t base_ms, uint64_t inc_ms, int level)
{
	struct session *s = peer->session;
	struct table *t;
	char id[16];
	json_t *ev;

	if (refuse_full(lb, peer, m))
		return;
	session_leave(lb, s);
	snprintf(id, sizeof id, "g%u", lb->next_game++);
	t = table_create(lb, id, kind, variant, has_seed ? seed : osrand_u64(), base_ms, inc_ms);
	t->serial = ++lb->serial;
	t->is_private = is_private;
	if (is_private) {
		do
			osrand_text(t->code, PROTOCOL_CODE_LEN, CODE_ALPHABET);
		while (code_used(lb, t->code));
	}
	tables_add(lb, t);
	if (seat < 0)
		seat = (int)(osrand_u64() & 1);
	table_seat(t, seat, s);
	ev = table_event_new(t, MSG_SEATED);
	json_object_set_new(ev, "seat", json_string(game_side_name(kind, seat)));
	json_object_set_new(ev, "player", msg_player_new(s->id, s->name));
	table_emit(t, ev, s);
	log_info("%s (%s) created game %s: %s %s, %s, seat %s, clock %s%s", s->id, s->name, t->id,
	         game_kind_name(kind), variant, is_private ? "private" : "public",
	         game_side_name(kind, seat), t->control, level > 0 ? ", against the computer" : "");
	if (level > 0) {
		char cid[16];

		snprintf(cid, sizeof cid, "p%u", lb->next_player++);
		table_seat_computer(t, 1 - seat, level, cid);
		ev = table_event_new(t, MSG_SEATED);
		json_object_set_new(ev, "seat", json_string(game_side_name(kind, 1 - seat)));
		json_object_set_new(ev, "player", table_player_new(t, 1 - seat));
		table_emit(t, ev, s);
		table_start(t, s);
		finished_touch(lb, t);
	}
	send_msg(lb, peer, table_state_new(t, s, m->id));
	table_your_turn(t);
}

/* Seat s at the open seat of t, start the game and reply its state. */
static void
do_join(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, struct table *t)
{
	struct session *s = peer->session;
	int seat;
	json_t *ev;

	session_leave(lb, s);
	seat = t->seat_taken[0] ? 1 : 0;
	table_seat(t, seat, s);
	ev = table_event_new(t, MSG_SEATED);
	json_object_set_new(ev, "seat", json_string(game_side_name(t->kind, seat)));
	json_object_set_new(ev, "player", msg_player_new(s->id, s->name));
	table_emit(t, ev, s);
	table_start(t, s);
	finished_touch(lb, t);
	log_info("%s (%s) joined game %s as %s: game started", s->id, s->name, t->id,
	         game_side_name(t->kind, seat));
	send_msg(lb, peer, table_state_new(t, s, m->id));
	table_your_turn(t);
}

/* A player takes its seat of an adjourned game back (it had left it). */
static void
seat_return(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, struct table *t,
            int seat)
{
	struct session *s = peer->session;

	session_leave(lb, s);
	table_seat(t, seat, s);
	log_info("%s (%s) is back at adjourned game %s", s->id, s->name, t->id);
	send_msg(lb, peer, table_state_new(t, s, m->id));
	presence_notify(t, seat, 1);
	table_seat_back(t, seat);
	table_your_turn(t);
}

static void
handle_create(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	if (seated_active(peer->session)) {
		refuse(lb, peer, m, PROTO_EALREADYSEATED,
		       "you are seated in game %s; leave it first", peer->session->table->id);
		return;
	}
	if (m->computer && lb->ops.think == NULL) {
		send_msg(lb, peer,
		         msg_error_new(PROTO_EBADVALUE, m->type, "opponent",
		                       "this server has no computer players", m->id));
		return;
	}
	do_create(lb, peer, m, m->kind, m->variant, m->seat, m->is_private, m->has_seed, m->seed,
	          m->clock_base_ms, m->clock_inc_ms, m->computer ? m->level : 0);
}

/* The seat s kept in adjourned table t after leaving it (11.3), or -1. */
static int
kept_seat(const struct table *t, const struct session *s)
{
	if (t == NULL || t->status != TABLE_ADJOURNED)
		return -1;
	for (int i = 0; i < 2; i++)
		if (t->seat[i] == NULL && t->seat_taken[i] && strcmp(t->seat_id[i], s->id) == 0)
			return i;
	return -1;
}

static void
handle_join(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct table *t;
	int seat;

	if (seated_active(peer->session)) {
		refuse(lb, peer, m, PROTO_EALREADYSEATED,
		       "you are seated in game %s; leave it first", peer->session->table->id);
		return;
	}
	t = table_lookup(lb, m);
	/* its own seat of an adjourned game is taken back with the game's id, private or not */
	if (t == NULL && m->code == NULL) {
		struct table *own = strmap_get(&lb->by_game, m->game);
		if (kept_seat(own, peer->session) >= 0)
			t = own;
	}
	if (t == NULL) {
		refuse(lb, peer, m, PROTO_ENOSUCHGAME, "no game with that %s",
		       m->code ? "invite code" : "id");
		return;
	}
	/* a player who left an adjourned game takes its own seat back */
	if ((seat = kept_seat(t, peer->session)) >= 0) {
		seat_return(lb, peer, m, t, seat);
		return;
	}
	if (t->status != TABLE_OPEN) {
		refuse(lb, peer, m, PROTO_EGAMEFULL, "game %s has no open seat (it is %s)", t->id,
		       t->status == TABLE_FINISHED    ? "over"
		       : t->status == TABLE_ADJOURNED ? "adjourned, its players' seats kept"
		                                      : "being played");
		return;
	}
	do_join(lb, peer, m, t);
}

static void
handle_quick(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;

	if (seated_active(s)) {
		refuse(lb, peer, m, PROTO_EALREADYSEATED,
		       "you are seated in game %s; leave it first", s->table->id);
		return;
	}
	for (size_t i = 0; i < lb->ntables; i++) {
		struct table *t = lb->tables[i];
		int seat = t->seat_taken[0] ? 0 : 1;

		if (t->status != TABLE_OPEN || t->is_private || t->kind != m->kind ||
		    strcmp(t->variant, m->variant) != 0 || t->seat[seat] == s ||
		    !table_connected(t, seat) || t->base_ms != m->clock_base_ms ||
		    t->inc_ms != m->clock_inc_ms)
			continue;
		do_join(lb, peer, m, t);
		return;
	}
	do_create(lb, peer, m, m->kind, m->variant, -1, 0, 0, 0, m->clock_base_ms, m->clock_inc_ms,
	          0);
}

/* Whether s is among t's connected spectators. */
static int
watching(const struct table *t, const struct session *s)
{
	if (s->table != t || s->seat >= 0)
		return 0;
	for (size_t i = 0; i < t->nwatchers; i++)
		if (t->watchers[i] == s)
			return 1;
	return 0;
}

static void
handle_watch(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t;

	if (seated_active(s)) {
		refuse(lb, peer, m, PROTO_EALREADYSEATED,
		       "you are seated in game %s; leave it first", s->table->id);
		return;
	}
	t = table_lookup(lb, m);
	if (t == NULL) {
		refuse(lb, peer, m, PROTO_ENOSUCHGAME, "no game with that %s",
		       m->code ? "invite code" : "id");
		return;
	}
	if (watching(t, s)) {
		/*
		 * Already among its spectators: the state and the notice of a watch (section 9),
		 * but not a leave and a return, whose first notice said one spectator fewer.
		 */
		send_msg(lb, peer, table_state_new(t, s, m->id));
		spectators_changed(lb, t);
		return;
	}
	session_leave(lb, s);
	session_attach(s, t);
	s->seat = -1;
	table_watcher_add(t, s);
	log_info("%s (%s) watches game %s", s->id, s->name, t->id);
	send_msg(lb, peer, table_state_new(t, s, m->id));
	spectators_changed(lb, t);
}

/*
 * The checks a move or a resignation must pass, in the documented order. Returns the table, or
 * NULL after refusing.
 */
static struct table *
player_table(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = s->table;

	if (t == NULL) {
		refuse(lb, peer, m, PROTO_ENOTSEATED, "you are not at any game");
		return NULL;
	}
	if (m->game != NULL && strcmp(m->game, t->id) != 0) {
		refuse(lb, peer, m, PROTO_ENOTSEATED,
		       "you are not seated in that game (you are at %s)", t->id);
		return NULL;
	}
	if (s->seat < 0) {
		refuse(lb, peer, m, PROTO_ESPECTATOR, "spectators cannot %s",
		       m->type == MSG_MOVE ? "move" : msg_type_name(m->type));
		return NULL;
	}
	if (t->status == TABLE_OPEN) {
		refuse(lb, peer, m, PROTO_ENOTSTARTED, "game %s waits for its second player",
		       t->id);
		return NULL;
	}
	if (t->status == TABLE_FINISHED) {
		refuse(lb, peer, m, PROTO_EGAMEOVER, "game %s is over", t->id);
		return NULL;
	}
	/* a flag that fell before the wake-up fired ends the game now */
	if (table_clock_check(t)) {
		finished_touch(lb, t);
		refuse(lb, peer, m, PROTO_EGAMEOVER, "game %s is over: %s ran out of time", t->id,
		       game_side_name(t->kind, t->winner == 0 ? 1 : 0));
		return NULL;
	}
	if (t->status == TABLE_ADJOURNED && m->type != MSG_RESIGN) {
		refuse(lb, peer, m, PROTO_ENOTSTARTED,
		       "game %s is adjourned: it goes on when both players are back", t->id);
		return NULL;
	}
	return t;
}

static void
handle_move(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = player_table(lb, peer, m);
	struct game_error gerr;
	struct game_move mv;
	int64_t seq;
	int rc;

	if (t == NULL)
		return;
	if (game_side(&t->game) != s->seat) {
		refuse(lb, peer, m, PROTO_ENOTYOURTURN, "it is %s's turn",
		       game_side_name(t->kind, game_side(&t->game)));
		return;
	}
	/* the rules module is the judge: nothing is applied that it did not accept */
	rc = game_move_parse(&t->game, m->move, &mv, &gerr);
	if (rc == GAME_ESYNTAX) {
		refuse(lb, peer, m, PROTO_EBADMOVE, "'%.40s' is not %s move: %s", m->move,
		       t->kind == GAME_OXONO ? "an OXONO" : "a HOKITO", gerr.text);
		return;
	}
	if (rc == GAME_EILLEGAL) {
		refuse(lb, peer, m, PROTO_EILLEGALMOVE, "%s", gerr.text);
		return;
	}
	if (rc < 0) {
		refuse(lb, peer, m, PROTO_EGAMEOVER, "%s", gerr.text);
		return;
	}
	seq = table_play(t, mv);
	log_debug("game %s: %s played %s", t->id, s->id, t->moves[t->nmoves - 1]);
	finished_touch(lb, t);
	send_ok(lb, peer, MSG_MOVE, seq, m->id);
	table_your_turn(t);
}

static void
handle_resign(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = player_table(lb, peer, m);
	int64_t seq;

	if (t == NULL)
		return;
	seq = table_finish(t, "win", 1 - s->seat, "resign");
	finished_touch(lb, t);
	send_ok(lb, peer, MSG_RESIGN, seq, m->id);
}

static void
handle_leave(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *kept = NULL;
	int seat = s->seat;

	if (s->table != NULL && s->seat >= 0 && s->table->status == TABLE_LIVE) {
		refuse(lb, peer, m, PROTO_EINGAME, "game %s is being played; resign first",
		       s->table->id);
		return;
	}
	if (s->table != NULL && s->seat >= 0 && s->table->status == TABLE_ADJOURNED) {
		kept = s->table;
		log_info("%s (%s) left adjourned game %s (the seat is kept)", s->id, s->name,
		         kept->id);
	}
	session_leave(lb, s);
	send_ok(lb, peer, MSG_LEAVE, -1, m->id);
	/* away from its adjourned game now, as a dropped player is: the others are told, as they
	 * are told when it takes its seat back (seat_return()) */
	if (kept != NULL)
		presence_notify(kept, seat, 0);
}

/* The list's n-th game (counted from 0) is t: put it on the page if the page takes it. */
static void
list_page_add(json_t *games, const struct msg *m, size_t n, const struct table *t)
{
	if (n >= (uint64_t)m->offset && n - (uint64_t)m->offset < (uint64_t)m->limit)
		json_array_append_new(games, table_summary_new(t));
}

/*
 * list: one page (offset, limit) of the lobby's public games, with how many there are in all. A
 * busy server holds thousands of games: all of them in one line would pass what a client takes
 * in a line (PROTOCOL.md 2) and what the server keeps for a connection that reads slowly.
 */
static void
handle_list(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	json_t *o = msg_new(MSG_GAMES, NULL), *games = json_array();
	size_t n = 0, kept = 0;

	static const enum table_status order[] = {TABLE_OPEN, TABLE_LIVE, TABLE_ADJOURNED};

	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < lb->ntables; i++)
			if (lb->tables[i]->status == order[k] && !lb->tables[i]->is_private)
				list_page_add(games, m, n++, lb->tables[i]);
	/*
	 * The keep_finished public games most recently finished, newest first (the finished list is
	 * in the order of finishing); more may be held for a player who may come back
	 * (lobby_prune()).
	 */
	for (struct table *t = lb->fin_tail; t != NULL && kept < lb->cfg.keep_finished;
	     t = t->fin_prev)
		if (!t->is_private) {
			list_page_add(games, m, n++, t);
			kept++;
		}
	json_object_set_new(o, "total", json_integer((json_int_t)n));
	json_object_set_new(o, "offset", json_integer(m->offset));
	json_object_set_new(o, "games", games);
	if (m->id != NULL)
		json_object_set_new(o, "id", json_deep_copy(m->id));
	send_msg(lb, peer, o);
}

/* The seat of the opponent, for the messages. */
static const char *
other_name(const struct table *t, int seat)
{
	return game_side_name(t->kind, 1 - seat);
}

/*
 * say: a player's line is a game event (chat) that everybody at the game gets and that is kept
 * in the log; a spectator's line is a kibitz notice for the spectators only, so players never
 * read what the audience suggests. Either way a session may say CHAT_BURST lines per
 * CHAT_WINDOW milliseconds; more are refused with rate_limited and go nowhere.
 */
static void
handle_say(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = s->table;
	uint64_t now = lobby_now(lb), oldest = s->chat_at[s->chat_next % CHAT_BURST];
	json_t *line;
	int64_t seq = -1;

	if (t == NULL) {
		refuse(lb, peer, m, PROTO_ENOTSEATED, "you are not at any game");
		return;
	}
	if (m->game != NULL && strcmp(m->game, t->id) != 0) {
		refuse(lb, peer, m, PROTO_ENOTSEATED, "you are not at that game (you are at %s)",
		       t->id);
		return;
	}
	if (s->chat_next >= CHAT_BURST && now - oldest < CHAT_WINDOW) {
		refuse(lb, peer, m, PROTO_ERATELIMITED,
		       "at most %d chat lines in %d seconds; wait %llu ms", CHAT_BURST,
		       CHAT_WINDOW / 1000, (unsigned long long)(CHAT_WINDOW - (now - oldest)));
		return;
	}
	s->chat_at[s->chat_next++ % CHAT_BURST] = now;
	if (s->seat >= 0) {
		json_t *ev = table_event_new(t, MSG_CHAT);

		json_object_set_new(ev, "seat", json_string(game_side_name(t->kind, s->seat)));
		json_object_set_new(ev, "player", msg_player_new(s->id, s->name));
		json_object_set_new(ev, "text", json_string(m->text));
		line = json_pack("{s:s,s:o,s:s}", "seat", game_side_name(t->kind, s->seat),
		                 "player", msg_player_new(s->id, s->name), "text", m->text);
		table_chat_keep(t, 0, line);
		seq = table_emit(t, ev, NULL);
	} else {
		json_t *o = msg_new(MSG_KIBITZ, NULL);
		struct wire *w;

		json_object_set_new(o, "game", json_string(t->id));
		json_object_set_new(o, "player", msg_player_new(s->id, s->name));
		json_object_set_new(o, "text", json_string(m->text));
		line = json_pack("{s:o,s:s}", "player", msg_player_new(s->id, s->name), "text",
		                 m->text);
		table_chat_keep(t, 1, line);
		w = wire_encode_steal(o);
		for (size_t i = 0; i < t->nwatchers; i++)
			table_send(t, t->watchers[i], w);
		wire_unref(w);
	}
	send_ok(lb, peer, MSG_SAY, seq, m->id);
}

/* An offer event (draw_offered, draw_declined, rematch_*) by seat. Returns its seq. */
static int64_t
offer_emit(struct table *t, enum msg_type type, int seat)
{
	json_t *ev = table_event_new(t, type);

	json_object_set_new(ev, "by", json_string(game_side_name(t->kind, seat)));
	return table_emit(t, ev, NULL);
}

/*
 * Draw offers. An offer stands until the opponent accepts it (the game is drawn, reason
 * "agreement"), declines it, or plays a move (the offer lapses, no event). Offering when the
 * opponent's offer stands accepts it.
 */
static void
handle_draw(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = player_table(lb, peer, m);
	int64_t seq;

	if (t == NULL)
		return;
	switch (m->type) {
	case MSG_DRAW_OFFER:
		if (t->draw_offer == s->seat) {
			refuse(lb, peer, m, PROTO_EALREADYOFFERED,
			       "your draw offer stands already");
			return;
		}
		if (t->draw_offer == 1 - s->seat) {
			seq = table_finish(t, "draw", -1, "agreement");
			break;
		}
		t->draw_offer = s->seat;
		seq = offer_emit(t, MSG_DRAW_OFFERED, s->seat);
		break;
	case MSG_DRAW_ACCEPT:
		if (t->draw_offer != 1 - s->seat) {
			refuse(lb, peer, m, PROTO_ENOOFFER, "%s has not offered a draw",
			       other_name(t, s->seat));
			return;
		}
		seq = table_finish(t, "draw", -1, "agreement");
		break;
	default:
		if (t->draw_offer != 1 - s->seat) {
			refuse(lb, peer, m, PROTO_ENOOFFER, "%s has not offered a draw",
			       other_name(t, s->seat));
			return;
		}
		t->draw_offer = -1;
		seq = offer_emit(t, MSG_DRAW_DECLINED, s->seat);
		break;
	}
	finished_touch(lb, t);
	send_ok(lb, peer, m->type, seq, m->id);
}

/*
 * Abort: a player who has not made a move yet in this game may end it without a result (the
 * first player before its first move, the second player before its first move), on either
 * player's turn.
 */
static void
handle_abort(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = player_table(lb, peer, m);
	int first, moved;
	int64_t seq;

	if (t == NULL)
		return;
	first = game_side(&t->start);
	moved = t->nmoves > (size_t)(s->seat == first ? 0 : 1);
	if (moved) {
		refuse(lb, peer, m, PROTO_ETOOLATE,
		       "a game can be aborted only by a player who has not moved yet; resign "
		       "instead");
		return;
	}
	seq = table_finish(t, "aborted", -1, "abort");
	finished_touch(lb, t);
	send_ok(lb, peer, MSG_ABORT, seq, m->id);
}

/* Claim the win or a draw when the opponent's grace ran out and it is still away. */
static void
handle_claim(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = player_table(lb, peer, m);
	int other;
	int64_t seq;

	if (t == NULL)
		return;
	other = 1 - s->seat;
	if (table_connected(t, other) || !t->grace_over[other]) {
		refuse(lb, peer, m, PROTO_ECANNOTCLAIM,
		       table_connected(t, other)
		               ? "%s is connected"
		               : "%s is away but its grace period is not over yet",
		       other_name(t, s->seat));
		return;
	}
	seq = table_finish(t, m->claim_draw ? "draw" : "win", m->claim_draw ? -1 : s->seat,
	                   "disconnect");
	finished_touch(lb, t);
	send_ok(lb, peer, MSG_CLAIM, seq, m->id);
}

/*
 * Start the rematch of finished game t: the same kind, variant, clock and privacy, a fresh seed,
 * colours swapped. Both players move to the new game: the accepter gets its state as the reply
 * (with id), the offerer gets it unasked (without id); spectators of the old game see the
 * rematch_started event and may watch the new game. Refused, with nothing changed (an offer
 * stands), when the server holds its maximum of games.
 */
static void
rematch_start(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, struct table *t)
{
	struct session *p[2] = {t->seat[0], t->seat[1]}; /* NULL for the computer's seat */
	struct table *n;
	char id[16];
	json_t *ev;

	if (refuse_full(lb, peer, m))
		return;
	snprintf(id, sizeof id, "g%u", lb->next_game++);
	n = table_create(lb, id, t->kind, t->variant, osrand_u64(), t->base_ms, t->inc_ms);
	n->serial = ++lb->serial;
	n->is_private = t->is_private;
	if (n->is_private) {
		do
			osrand_text(n->code, PROTOCOL_CODE_LEN, CODE_ALPHABET);
		while (code_used(lb, n->code));
	}
	tables_add(lb, n);
	t->rematch_offer = -1;
	ev = table_event_new(t, MSG_REMATCH_STARTED);
	json_object_set_new(ev, "new_game", json_string(n->id));
	table_emit(t, ev, NULL);
	for (int i = 0; i < 2; i++) {
		t->seat[i] = NULL;
		if (p[i] == NULL)
			continue;
		session_attach(p[i], NULL);
		p[i]->seat = -1;
	}
	table_released(lb, t); /* the old game is held for nobody now */
	/*
	 * The new game's first events (seated, seated, started) are sent to nobody: the players get
	 * the state that includes them. So the seats are filled only after.
	 */
	for (int i = 0; i < 2; i++) {
		/* the old seat 0 plays seat 1 now; the computer stays the same player */
		if (p[i] == NULL)
			table_seat_computer(n, 1 - i, t->computer[i], t->seat_id[i]);
		else
			table_seat(n, 1 - i, p[i]);
		n->seat[1 - i] = NULL;
		ev = table_event_new(n, MSG_SEATED);
		json_object_set_new(ev, "seat", json_string(game_side_name(n->kind, 1 - i)));
		json_object_set_new(ev, "player", table_player_new(n, 1 - i));
		table_emit(n, ev, NULL);
	}
	table_start(n, NULL);
	for (int i = 0; i < 2; i++)
		n->seat[1 - i] = p[i];
	log_info("game %s: rematch of %s, %s (%s) vs %s (%s)", n->id, t->id, n->seat_name[0],
	         game_side_name(n->kind, 0), n->seat_name[1], game_side_name(n->kind, 1));
	for (int i = 0; i < 2; i++)
		if (p[i] != NULL && p[i]->peer != NULL && p[i]->peer != peer)
			send_msg(lb, p[i]->peer, table_state_new(n, p[i], NULL));
	send_msg(lb, peer, table_state_new(n, peer->session, m->id));
	finished_touch(lb, n);
	table_your_turn(n);
}

/*
 * Rematch offers, after the game is over, between its two players while both are at it and
 * connected. rematch when the opponent's offer stands accepts it; rematch_decline declines it.
 * An offer lapses when either player leaves the game.
 */
static void
handle_rematch(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = s->table;
	int other;
	int64_t seq;

	if (t == NULL || (m->game != NULL && strcmp(m->game, t->id) != 0)) {
		refuse(lb, peer, m, PROTO_ENOTSEATED, "you are not seated in that game");
		return;
	}
	if (s->seat < 0) {
		refuse(lb, peer, m, PROTO_ESPECTATOR, "spectators cannot ask for a rematch");
		return;
	}
	if (t->status == TABLE_OPEN) {
		refuse(lb, peer, m, PROTO_ENOTSTARTED, "game %s waits for its second player",
		       t->id);
		return;
	}
	if (t->status != TABLE_FINISHED) {
		refuse(lb, peer, m, PROTO_ENOTOVER, "game %s is not over", t->id);
		return;
	}
	other = 1 - s->seat;
	if (m->type == MSG_REMATCH_DECLINE) {
		if (t->rematch_offer != other) {
			refuse(lb, peer, m, PROTO_ENOOFFER, "%s has not offered a rematch",
			       other_name(t, s->seat));
			return;
		}
		t->rematch_offer = -1;
		seq = offer_emit(t, MSG_REMATCH_DECLINED, s->seat);
		send_ok(lb, peer, m->type, seq, m->id);
		return;
	}
	if (t->computer[other] > 0) {
		/* the computer accepts at once */
		rematch_start(lb, peer, m, t);
		return;
	}
	if (!t->seat_taken[other] || !table_connected(t, other) || t->seat[other]->table != t) {
		refuse(lb, peer, m, PROTO_EOPPONENTGONE, "%s is no longer at game %s",
		       other_name(t, s->seat), t->id);
		return;
	}
	if (t->rematch_offer == s->seat) {
		refuse(lb, peer, m, PROTO_EALREADYOFFERED, "your rematch offer stands already");
		return;
	}
	if (t->rematch_offer == other) {
		rematch_start(lb, peer, m, t);
		return;
	}
	t->rematch_offer = s->seat;
	seq = offer_emit(t, MSG_REMATCH_OFFERED, s->seat);
	send_ok(lb, peer, m->type, seq, m->id);
}

/* A history entry (PROTOCOL.md 7.6) of a stored game. Returns a new reference. */
static json_t *
history_entry_new(const struct store_game *g)
{
	json_t *o = json_object(), *players = json_object(), *res = json_object();

	json_object_set_new(o, "game", json_string(g->id));
	json_object_set_new(o, "kind", json_string(game_kind_name(g->kind)));
	json_object_set_new(o, "variant", json_string(g->variant));
	for (int i = 0; i < 2; i++)
		json_object_set_new(players, game_side_name(g->kind, i),
		                    g->seat_taken[i]
		                            ? msg_player_new(g->seat_id[i], g->seat_name[i])
		                            : json_null());
	json_object_set_new(o, "players", players);
	json_object_set_new(o, "ply", json_integer(g->ply));
	json_object_set_new(res, "result", json_string(g->result));
	json_object_set_new(res, "winner",
	                    g->winner >= 0 ? json_string(game_side_name(g->kind, g->winner))
	                                   : json_null());
	json_object_set_new(res, "reason", json_string(g->reason));
	if (g->kind == GAME_HOKITO)
		json_object_set_new(res, "scores",
		                    json_pack("{s:i,s:i}", game_side_name(g->kind, 0), g->score[0],
		                              game_side_name(g->kind, 1), g->score[1]));
	json_object_set_new(o, "result", res);
	json_object_set_new(o, "clock",
	                    g->clock[0] != '\0' && strcmp(g->clock, "none") != 0
	                            ? json_string(g->clock)
	                            : json_null());
	json_object_set_new(o, "created_ms", json_integer(g->created_ms));
	json_object_set_new(o, "ended_ms", json_integer(g->ended_ms));
	return o;
}

/*
 * --- Store reads (history and record): off the loop's thread (ops->read), answered in
 * lobby_read_done(); meanwhile the connection's later requests wait (struct lobby_wait).
 */

void
lobby_read_run(const struct store_read_port *port, struct lobby_read *r)
{
	switch (r->kind) {
	case LOBBY_READ_HISTORY:
		r->games = xmalloc((r->query.limit > 0 ? r->query.limit : 1) * sizeof *r->games);
		r->rc = port->history(port->impl, &r->query, r->games, &r->page, &r->err);
		break;
	case LOBBY_READ_RECORD:
		r->text = xmalloc(RECORD_TEXT_MAX);
		r->rc = port->record(port->impl, r->game_id, r->public_only, r->text,
		                     RECORD_TEXT_MAX, &r->err);
		break;
	}
}

void
lobby_read_free(struct lobby_read *r)
{
	if (r == NULL)
		return;
	free(r->games);
	free(r->text);
	free(r);
}

/* Hand read r (stolen) to ops->read for peer's request m, which holds peer's next requests. */
static void
read_start(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, struct lobby_read *r)
{
	struct lobby_wait *w = xcalloc(1, sizeof *w);

	w->ticket = r->ticket = ++lb->read_ticket;
	w->peer = peer;
	w->request = *m;
	json_incref(w->request.root);
	STAILQ_INIT(&w->queued);
	TAILQ_INSERT_TAIL(&lb->waits, w, link);
	peer->wait = w;
	lb->ops.read(lb->ops.arg, r);
}

/* Forget a wait: its requests and the request that asked. The read, if out, finds nobody. */
static void
lobby_wait_drop(struct lobby *lb, struct lobby_wait *w)
{
	struct lobby_queued *q;

	TAILQ_REMOVE(&lb->waits, w, link);
	while ((q = STAILQ_FIRST(&w->queued)) != NULL) {
		STAILQ_REMOVE_HEAD(&w->queued, link);
		msg_clear(&q->m);
		free(q);
	}
	msg_clear(&w->request);
	if (w->peer != NULL && w->peer->wait == w)
		w->peer->wait = NULL;
	free(w);
}

/* A request of a connection whose read is out: it waits its turn (m borrowed, copied). */
static void
lobby_wait_queue(struct lobby *lb, struct lobby_wait *w, const struct msg *m)
{
	struct lobby_queued *q;

	if (w->nqueued >= LOBBY_WAIT_MAX) {
		if (w->nqueued++ == LOBBY_WAIT_MAX) {
			log_info("a connection sent %d requests behind a store read: closing it",
			         LOBBY_WAIT_MAX);
			lb->ops.close(lb->ops.arg, w->peer);
		}
		return;
	}
	q = xcalloc(1, sizeof *q);
	q->m = *m;
	json_incref(q->m.root);
	STAILQ_INSERT_TAIL(&w->queued, q, link);
	w->nqueued++;
}

/* history: a page of finished public games from the store, most recent first. */
static void
handle_history(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct lobby_read *r;

	if (lb->ops.read == NULL) { /* no store: nothing finished is kept */
		json_t *o = msg_new(MSG_HISTORY_PAGE, NULL);

		json_object_set_new(o, "total", json_integer(0));
		json_object_set_new(o, "offset", json_integer(m->offset));
		json_object_set_new(o, "games", json_array());
		if (m->id != NULL)
			json_object_set_new(o, "id", json_deep_copy(m->id));
		send_msg(lb, peer, o);
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->kind = LOBBY_READ_HISTORY;
	r->query.limit = (size_t)m->limit;
	r->query.offset = m->offset;
	if (m->after != NULL) {
		if (store_cursor_parse(m->after, &r->query.after) < 0) {
			lobby_read_free(r);
			send_msg(lb, peer,
			         msg_error_new(PROTO_EBADVALUE, m->type, "after",
			                       "after is the next of a history_page", m->id));
			return;
		}
		r->query.has_after = 1;
	}
	read_start(lb, peer, m, r);
}

/* The answer to history request m. */
static void
history_reply(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
              const struct lobby_read *r)
{
	json_t *o, *games;

	if (r->rc < 0) {
		log_error("store: %s", r->err.text);
		refuse(lb, peer, m, PROTO_EINTERNAL, "the history could not be read");
		return;
	}
	o = msg_new(MSG_HISTORY_PAGE, NULL);
	games = json_array();
	for (int i = 0; i < r->rc; i++)
		json_array_append_new(games, history_entry_new(&r->games[i]));
	json_object_set_new(o, "total", json_integer(r->page.total));
	json_object_set_new(o, "offset", json_integer(m->offset));
	json_object_set_new(o, "games", games);
	if (r->page.more) {
		char next[STORE_CURSOR_TEXT];

		store_cursor_format(&r->page.next, next, sizeof next);
		json_object_set_new(o, "next", json_string(next));
	}
	if (m->id != NULL)
		json_object_set_new(o, "id", json_deep_copy(m->id));
	send_msg(lb, peer, o);
}

/*
 * record: the text game record (FORMATS.md) of any game the store holds, finished or not: a
 * public game by its id, a private one by its invite code while the server still holds it.
 */
static void
handle_record(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct lobby_read *r;

	if (m->code != NULL) {
		struct table *t = table_lookup(lb, m);

		if (t == NULL) {
			refuse(lb, peer, m, PROTO_ENOSUCHGAME, "no game with that invite code");
			return;
		}
		if (lb->ops.read == NULL) {
			refuse(lb, peer, m, PROTO_ENOSUCHGAME, "this server keeps no records");
			return;
		}
		r = xcalloc(1, sizeof *r);
		snprintf(r->game_id, sizeof r->game_id, "%s", t->id);
	} else {
		if (lb->ops.read == NULL || strlen(m->game) >= STORE_ID_MAX) {
			refuse(lb, peer, m, PROTO_ENOSUCHGAME, "no game with that id");
			return;
		}
		r = xcalloc(1, sizeof *r);
		snprintf(r->game_id, sizeof r->game_id, "%s", m->game);
		r->public_only = 1; /* a private game is reached only by its invite code */
	}
	r->kind = LOBBY_READ_RECORD;
	read_start(lb, peer, m, r);
}

/* The answer to record request m. */
static void
record_reply(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
             const struct lobby_read *r)
{
	json_t *o;

	if (r->rc < 0 && r->public_only && r->rc == STORE_ENOTFOUND) {
		refuse(lb, peer, m, PROTO_ENOSUCHGAME, "no game with that id");
		return;
	}
	if (r->rc < 0) {
		log_error("store: record of %s: %s", r->game_id, r->err.text);
		refuse(lb, peer, m, r->rc == STORE_ENOTFOUND ? PROTO_ENOSUCHGAME : PROTO_EINTERNAL,
		       "the record of game %s could not be written", r->game_id);
		return;
	}
	o = msg_new(MSG_GAME_RECORD, NULL);
	json_object_set_new(o, "game", json_string(r->game_id));
	json_object_set_new(o, "text", json_string(r->text));
	if (m->id != NULL)
		json_object_set_new(o, "id", json_deep_copy(m->id));
	send_msg(lb, peer, o);
}

void
lobby_read_done(struct lobby *lb, struct lobby_read *r)
{
	struct lobby_peer *peer;
	struct lobby_wait *w;
	struct lobby_queued *q;

	TAILQ_FOREACH(w, &lb->waits, link)
	if (w->ticket == r->ticket)
		break;
	if (w == NULL) { /* its connection is gone */
		lobby_read_free(r);
		return;
	}
	peer = w->peer;
	peer->wait = NULL;
	switch (r->kind) {
	case LOBBY_READ_HISTORY:
		history_reply(lb, peer, &w->request, r);
		break;
	case LOBBY_READ_RECORD:
		record_reply(lb, peer, &w->request, r);
		break;
	}
	lobby_read_free(r);
	/* the requests that came meanwhile, in order, until one of them reads again */
	while (peer->wait == NULL && (q = STAILQ_FIRST(&w->queued)) != NULL) {
		STAILQ_REMOVE_HEAD(&w->queued, link);
		w->nqueued--;
		lobby_peer_message(lb, peer, &q->m);
		msg_clear(&q->m);
		free(q);
	}
	if (peer->wait != NULL) { /* the rest waits behind the new read */
		STAILQ_CONCAT(&peer->wait->queued, &w->queued);
		peer->wait->nqueued += w->nqueued;
	}
	w->peer = NULL;
	lobby_wait_drop(lb, w);
	lobby_prune(lb);
	lobby_arm(lb);
}

/*
 * The computer's move arrives from the network layer, maybe long after it was asked for: the game
 * may be gone (pruned), over (the person resigned, a flag fell) or, in principle, past that ply.
 * Then it is dropped. Otherwise it goes through the same gate as a person's move: a flag that fell
 * meanwhile ends the game first, the rules module parses and judges the text against the
 * authoritative position, and table_play() emits the events (and so writes the store).
 */
void
lobby_computer_move(struct lobby *lb, const char *game_id, int64_t ply, const char *move)
{
	struct table *t = strmap_get(&lb->by_game, game_id);
	struct game_error gerr;
	struct game_move mv;
	int side;

	if (t == NULL)
		goto out;
	t->thinking = 0;
	if (t->status != TABLE_LIVE || (int64_t)t->nmoves != ply ||
	    t->computer[game_side(&t->game)] == 0) {
		log_debug("game %s: the computer's move for ply %lld came too late", game_id,
		          (long long)ply);
		goto out;
	}
	if (table_clock_check(t)) {
		finished_touch(lb, t);
		goto out;
	}
	side = game_side(&t->game);
	if (game_move_parse(&t->game, move, &mv, &gerr) < 0) {
		/* the search only plays legal moves: this is our bug, and the game must not stall
		 */
		log_error("game %s: the computer's move '%s' was refused: %s; it resigns", t->id,
		          move, gerr.text);
		table_finish(t, "win", 1 - side, "resign");
		finished_touch(lb, t);
		goto out;
	}
	table_play(t, mv);
	log_debug("game %s: the computer (%s) played %s", t->id, game_side_name(t->kind, side),
	          t->moves[t->nmoves - 1]);
	finished_touch(lb, t);
	table_your_turn(t);
out:
	if (t != NULL)
		deadline_refresh(lb, t);
	lobby_prune(lb);
	lobby_arm(lb);
}

/*
 * Whether live or adjourned game t has none of its players connected at it (the computer does not
 * count), noting since when: called as soon as a player goes or comes back (and by lobby_tick()),
 * so that --linger counts from the moment the last player went, not from the next check.
 */
static int
table_desert_mark(struct table *t, uint64_t now)
{
	if (t == NULL || (t->status != TABLE_LIVE && t->status != TABLE_ADJOURNED) ||
	    (!t->computer[0] && table_connected(t, 0)) ||
	    (!t->computer[1] && table_connected(t, 1))) {
		if (t != NULL)
			t->deserted = 0;
		return 0;
	}
	if (!t->deserted) {
		t->deserted = 1;
		t->deserted_since = now;
	}
	return 1;
}

/*
 * An entry point touched t (NULL: none): file it under its deadline again (deadline_refresh())
 * and note whether it is deserted now (table_desert_mark()), as both may have changed.
 */
static void
table_touched(struct lobby *lb, struct table *t)
{
	deadline_refresh(lb, t);
	table_desert_mark(t, lobby_now(lb));
}

/* unknown_type, as the decoder refuses a type it does not know: no request, the field "type". */
static void
refuse_unknown_type(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                    const char *text)
{
	send_msg(lb, peer, msg_error_new(PROTO_EUNKNOWNTYPE, MSG_NONE, "type", text, m->id));
}

/*
 * The first moment after the virtual time, and before to, at which something falls due in a game:
 * a clock or grace deadline (the heap), or the end of --linger for a game none of its players is
 * at (table_desert_check()). to if nothing does.
 */
static uint64_t
test_clock_next(const struct lobby *lb, uint64_t to)
{
	uint64_t next = to;

	if (lb->nheap > 0 && lb->heap[0]->heap_deadline > lb->virtual_ms &&
	    lb->heap[0]->heap_deadline < next)
		next = lb->heap[0]->heap_deadline;
	for (size_t i = 0; i < lb->ntables; i++) {
		const struct table *t = lb->tables[i];
		uint64_t d = t->deserted_since + lb->cfg.linger_ms;

		if (t->deserted && d > lb->virtual_ms && d < next)
			next = d;
	}
	return next;
}

/*
 * The virtual time stops here (2^62 ms, some 146 million years): every deadline is the time plus
 * at most a few years (a base time, a grace, the linger), which must not wrap around 64 bits, and
 * advances as large as the protocol allows (2^63 - 1 each) must not carry it past 2^64 and back.
 */
#define TEST_CLOCK_END ((uint64_t)1 << 62)

/*
 * test_clock: a testing aid, served only with --test-clock: move the virtual time forward, to
 * TEST_CLOCK_END at most. What falls due on the way is acted on at its own time, in order, as
 * with real time: a grace_over has the clocks of the moment the grace ran out, and a game nobody
 * is at for --linger is abandoned before its clock would have run out later in the same advance.
 */
static void
handle_test_clock(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	uint64_t to;

	if (!lb->cfg.test_clock) {
		refuse_unknown_type(
		        lb, peer, m,
		        "test_clock is a testing aid, served only by hokitod --test-clock");
		return;
	}
	to = (uint64_t)m->advance_ms < TEST_CLOCK_END - lb->virtual_ms
	             ? lb->virtual_ms + (uint64_t)m->advance_ms
	             : TEST_CLOCK_END;
	do {
		lb->virtual_ms = test_clock_next(lb, to);
		lobby_wake(lb);
		lobby_tick(lb);
	} while (lb->virtual_ms < to);
	send_ok(lb, peer, MSG_TEST_CLOCK, -1, m->id);
}

void
lobby_peer_message(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct table *before;

	if (peer->wait != NULL) { /* behind a store read of its own: in order (lobby_read_done()) */
		lobby_wait_queue(lb, peer->wait, m);
		return;
	}
	if (m->type == MSG_HELLO) {
		handle_hello(lb, peer, m);
		if (peer->session != NULL)
			table_touched(lb, peer->session->table);
		lobby_prune(lb);
		lobby_arm(lb);
		return;
	}
	if (m->type == MSG_TEST_CLOCK && !lb->cfg.test_clock) {
		/* not a request here: unknown_type, before hello too, as any unknown type */
		handle_test_clock(lb, peer, m);
		return;
	}
	if (peer->session == NULL) {
		refuse(lb, peer, m, PROTO_EHELLOREQUIRED, "say hello first");
		return;
	}
	/* a request changes the deadlines of the requester's game only, before and after it */
	before = peer->session->table;
	switch (m->type) {
	case MSG_LIST:
		handle_list(lb, peer, m);
		break;
	case MSG_CREATE:
		handle_create(lb, peer, m);
		break;
	case MSG_JOIN:
		handle_join(lb, peer, m);
		break;
	case MSG_QUICK:
		handle_quick(lb, peer, m);
		break;
	case MSG_WATCH:
		handle_watch(lb, peer, m);
		break;
	case MSG_MOVE:
		handle_move(lb, peer, m);
		break;
	case MSG_RESIGN:
		handle_resign(lb, peer, m);
		break;
	case MSG_LEAVE:
		handle_leave(lb, peer, m);
		break;
	case MSG_PING:
		send_msg(lb, peer, msg_new(MSG_PONG, m->id));
		break;
	case MSG_SAY:
		handle_say(lb, peer, m);
		break;
	case MSG_DRAW_OFFER:
	case MSG_DRAW_ACCEPT:
	case MSG_DRAW_DECLINE:
		handle_draw(lb, peer, m);
		break;
	case MSG_ABORT:
		handle_abort(lb, peer, m);
		break;
	case MSG_CLAIM:
		handle_claim(lb, peer, m);
		break;
	case MSG_REMATCH:
	case MSG_REMATCH_DECLINE:
		handle_rematch(lb, peer, m);
		break;
	case MSG_HISTORY:
		handle_history(lb, peer, m);
		break;
	case MSG_RECORD:
		handle_record(lb, peer, m);
		break;
	case MSG_TEST_CLOCK:
		handle_test_clock(lb, peer, m);
		break;
	default: /* msg_request_decode() refuses these first; a caller of msg_decode() may not */
		refuse_unknown_type(lb, peer, m, "not a request");
		break;
	}
	table_touched(lb, before);
	if (peer->session != NULL && peer->session->table != before)
		table_touched(lb, peer->session->table);
	lobby_prune(lb);
	lobby_arm(lb);
}

void
lobby_peer_gone(struct lobby *lb, struct lobby_peer *peer)
{
	struct session *s = peer->session;
	struct table *t;

	if (peer->wait != NULL)
		lobby_wait_drop(lb, peer->wait); /* its read's answer will find nobody */
	if (s == NULL)
		return;
	t = s->table;
	if (t != NULL && s->seat >= 0)
		table_clock_settle(t); /* the time so far is not grace time */
	peer->session = NULL;
	s->peer = NULL;
	s->gone_at = lobby_now(lb);
	log_info("%s (%s) disconnected", s->id, s->name);
	if (t == NULL)
		return;
	if (s->seat < 0) {
		table_watcher_remove(t, s);
		spectators_changed(lb, t);
	} else {
		presence_notify(t, s->seat, 0);
	}
	table_touched(lb, t);
	lobby_arm(lb);
}

/*
 * A live or adjourned game that none of its players has been connected at for longer than the
 * linger time is over (aborted, reason abandoned), so that games nobody comes back to do not hold
 * --max-games places forever. Checked once a second, so the end may come up to a second late.
 * The computer, always connected, does not count: a game against it ends so when its person is
 * away that long.
 */
static void
table_desert_check(struct lobby *lb, struct table *t, uint64_t now)
{
	if (!table_desert_mark(t, now) || now - t->deserted_since < lb->cfg.linger_ms)
		return;
	log_info("game %s: no player for %llu s", t->id,
	         (unsigned long long)((now - t->deserted_since) / 1000));
	table_finish(t, "aborted", -1, "abandoned");
	finished_touch(lb, t);
}

void
lobby_tick(struct lobby *lb)
{
	uint64_t now = lobby_now(lb);
	size_t kept = 0;

	for (size_t i = 0; i < lb->nsessions; i++) {
		struct session *s = lb->sessions[i];

		if (s->peer != NULL || now - s->gone_at < lb->cfg.linger_ms ||
		    (s->table != NULL && s->seat >= 0 &&
		     (s->table->status == TABLE_LIVE || s->table->status == TABLE_ADJOURNED))) {
			lb->sessions[kept++] = s;
			continue;
		}
		log_info("%s (%s) expired", s->id, s->name);
		session_leave(lb, s); /* releases a finished game held for it */
		strmap_del(&lb->by_token, s->token);
		strmap_del(&lb->by_player, s->id);
		free(s);
	}
	lb->nsessions = kept;
	for (size_t i = 0; i < lb->ntables; i++) {
		table_desert_check(lb, lb->tables[i], now);
		deadline_refresh(lb, lb->tables[i]);
	}
	lobby_prune(lb);
	lobby_arm(lb);
}

/*
 * Ask the network layer to wake us at the earliest deadline: of all live games (the top of the
 * deadline heap, in lobby time) and of the spectators notices that wait (real time).
 */
static void
lobby_arm(struct lobby *lb)
{
	uint64_t delay = UINT64_MAX, now;

	if (lb->ops.timer == NULL)
		return;
	/*
	 * With test_clock, virtual time moves only with test_clock, which acts on what is due; what
	 * is due already (a grace of 0 s at a drop) is acted on at once, as with real time.
	 */
	if (lb->nheap > 0) {
		uint64_t d = lb->heap[0]->heap_deadline;

		now = lobby_now(lb);
		if (d <= now)
			delay = 0;
		else if (!lb->cfg.test_clock)
			delay = d - now;
	}
	if (lb->spect_waiting != NULL) {
		now = lb->ops.now(lb->ops.arg);
		for (struct table *t = lb->spect_waiting; t != NULL; t = t->spect_next) {
			uint64_t d = t->spect_due > now ? t->spect_due - now : 0;

			if (d < delay)
				delay = d;
		}
	}
	lb->ops.timer(lb->ops.arg, delay);
}

void
lobby_wake(struct lobby *lb)
{
	uint64_t now = lobby_now(lb);
	struct table **due = NULL;
	size_t ndue = 0, cap = 0;

	/* take the due tables off the heap first: acting on one may move the others */
	while (lb->nheap > 0 && lb->heap[0]->heap_deadline <= now) {
		struct table *t = lb->heap[0];

		due = xgrow(due, ndue, &cap, sizeof *due, 8);
		due[ndue++] = t;
		heap_remove(lb, t);
	}
	for (size_t i = 0; i < ndue; i++) {
		struct table *t = due[i];

		if (table_deadline(t) <= now && table_clock_check(t))
			finished_touch(lb, t);
		deadline_refresh(lb, t);
	}
	free(due);
	spectators_flush(lb);
	lobby_prune(lb);
	lobby_arm(lb);
}

/* --- Restart: rebuilding the lobby from the store. --- */

/* The number in an id such as "g12" or "p7", or 0. */
static unsigned
id_number(const char *id)
{
	unsigned long v;
	char *end;

	if (id[0] == '\0' || id[1] < '0' || id[1] > '9')
		return 0;
	v = strtoul(id + 1, &end, 10);
	return *end == '\0' && v < UINT32_MAX ? (unsigned)v : 0;
}

struct restore_ctx {
	struct lobby *lb;
	int64_t *ended; /* ended_ms of each table, by index in lb->tables */
	size_t ended_cap;
	char why[320];                  /* what did not add up */
	char (*stale)[STORE_TOKEN_MAX]; /* session rows to remove */
	size_t nstale, stale_cap;
	unsigned sessions;
};

/* store_load() callback: one stored game, replayed, becomes a table. */
static int
restore_game_cb(void *ctx, const struct store_game *g, const struct store_event *ev, size_t nev,
                const struct game *start, const struct game *position)
{
	struct restore_ctx *rc = ctx;
	struct lobby *lb = rc->lb;
	struct table *t = table_restore(lb, g, ev, nev, start, position, rc->why, sizeof rc->why);

	if (t == NULL)
		return 1;
	rc->ended = xgrow(rc->ended, lb->ntables, &rc->ended_cap, sizeof *rc->ended, 64);
	rc->ended[lb->ntables] = g->ended_ms;
	tables_add(lb, t);
	if (t->serial > lb->serial)
		lb->serial = t->serial;
	if (id_number(t->id) >= lb->next_game)
		lb->next_game = id_number(t->id) + 1;
	for (int i = 0; i < 2; i++)
		if (t->seat_taken[i] && id_number(t->seat_id[i]) >= lb->next_player)
			lb->next_player = id_number(t->seat_id[i]) + 1;
	return 0;
}

/* Whether a stored token is one this server could have made. */
static int
token_valid(const char *token)
{
	if (strlen(token) != PROTOCOL_TOKEN_LEN)
		return 0;
	for (const char *c = token; *c != '\0'; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
			return 0;
	return 1;
}

/* store_sessions_load() callback: a seated player's session comes back, disconnected. */
static int
restore_session_cb(void *ctx, const struct store_session *ss)
{
	struct restore_ctx *rc = ctx;
	struct lobby *lb = rc->lb;
	struct table *t = strmap_get(&lb->by_game, ss->game_id);
	struct session *s;

	if (t == NULL || !token_valid(ss->token) ||
	    strcmp(t->seat_id[ss->seat], ss->player_id) != 0 || t->seat[ss->seat] != NULL ||
	    session_find_token(lb, ss->token) != NULL) {
		/* its game is no longer held (or the row is not ours): forget it */
		rc->stale = xgrow(rc->stale, rc->nstale, &rc->stale_cap, sizeof *rc->stale, 16);
		snprintf(rc->stale[rc->nstale++], STORE_TOKEN_MAX, "%s", ss->token);
		return 0;
	}
	s = xcalloc(1, sizeof *s);
	snprintf(s->id, sizeof s->id, "%s", ss->player_id);
	snprintf(s->name, sizeof s->name, "%s", ss->name);
	snprintf(s->token, sizeof s->token, "%s", ss->token);
	s->seat = ss->seat;
	session_attach(s, t);
	s->gone_at = lobby_now(lb);
	t->seat[ss->seat] = s;
	sessions_add(lb, s);
	if (id_number(s->id) >= lb->next_player)
		lb->next_player = id_number(s->id) + 1;
	rc->sessions++;
	return 0;
}

/*
 * The order in which the rebuilt finished games finished: by end time, then creation (the order
 * store_history() lists them in), so that pruning and the lobby list go on as before the restart.
 */
static void
restore_finished_order(struct lobby *lb, const int64_t *ended)
{
	size_t n = 0, *idx = xmalloc((lb->ntables + 1) * sizeof *idx);

	for (size_t i = 0; i < lb->ntables; i++)
		if (lb->tables[i]->status == TABLE_FINISHED)
			idx[n++] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0; j--) {
			size_t a = idx[j - 1], b = idx[j];
			if (ended[a] < ended[b] ||
			    (ended[a] == ended[b] && lb->tables[a]->serial < lb->tables[b]->serial))
				break;
			idx[j - 1] = b;
			idx[j] = a;
		}
	for (size_t i = 0; i < n; i++)
		finished_append(lb, lb->tables[idx[i]]);
	free(idx);
}

/*
 * A rematch offer lapses when either player leaves the finished game (PROTOCOL.md 5), which the
 * store keeps only as the removal of that player's session row: an offer rebuilt from its event
 * stands no more once a player of the game has no session back at it.
 */
static void
restore_rematch_lapse(struct lobby *lb)
{
	for (size_t i = 0; i < lb->ntables; i++) {
		struct table *t = lb->tables[i];

		for (int k = 0; k < 2; k++)
			if (t->rematch_offer >= 0 && t->seat[k] == NULL && !t->computer[k])
				t->rematch_offer = -1;
	}
}

int
lobby_restore(struct lobby *lb, struct store_error *err)
{
	const struct store_write_port *st = lb->cfg.store;
	struct restore_ctx rc = {.lb = lb};
	int64_t v;
	int n, rv;

	assert(lb->ntables == 0 && lb->nsessions == 0);
	if (st == NULL)
		return 0;
	n = st->load(st->impl, lb->cfg.keep_finished, restore_game_cb, &rc, err);
	if (n == STORE_ESTOPPED) {
		snprintf(err->text, sizeof err->text, "%s", rc.why);
		err->code = n = STORE_ECORRUPT;
	}
	if (n >= 0) {
		restore_finished_order(lb, rc.ended);
		rv = st->sessions_load(st->impl, restore_session_cb, &rc, err);
		if (rv < 0)
			n = rv;
		else
			restore_rematch_lapse(lb);
	}
	for (size_t i = 0; n >= 0 && i < rc.nstale; i++)
		if ((rv = st->session_remove(st->impl, rc.stale[i], err)) < 0)
			n = rv;
	if (n >= 0 && st->meta_get(st->impl, "next_game", &v, NULL) == 0 && v > lb->next_game &&
	    v < UINT32_MAX)
		lb->next_game = (unsigned)v;
	if (n >= 0 && st->meta_get(st->impl, "next_player", &v, NULL) == 0 && v > lb->next_player &&
	    v < UINT32_MAX)
		lb->next_player = (unsigned)v;
	free(rc.ended);
	free(rc.stale);
	if (n < 0)
		return n;
	log_info("store: %d games rebuilt (%u unfinished), %u seated sessions back; next ids g%u, "
	         "p%u",
	         n, active_tables(lb), rc.sessions, lb->next_game, lb->next_player);
	for (size_t i = 0; i < lb->ntables; i++) {
		table_touched(lb, lb->tables[i]);    /* nobody is back yet: deserted from now */
		table_computer_think(lb->tables[i]); /* the computer to move thinks again */
	}
	lobby_arm(lb);
	return n;
}
