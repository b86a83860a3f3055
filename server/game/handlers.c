/*
 * handlers.c: every request of the protocol, dispatched through one table of handlers.
 *
 * The network layer hands over a whole request that msg_request_decode() validated in form; its
 * type picks an entry of handlers[] (tmux's command table): adding a request is one handler and
 * one line. What every request shares is done here once: the allowance of requests of the
 * peer's address (--max-rate-per-addr) is checked, before hello only hello is served, while the
 * store cannot write a request that would write is refused (store_unavailable: the table says
 * which do, handler_store_refused()), and
 * after each request the deadlines of the requester's game (before and after it) are filed again,
 * finished games pruned, and the next wake-up asked for. The handlers themselves live in their
 * rooms: match management (match.c), a player's play (play.c), the archive (archive.c); the few
 * that belong to no game (hello, list, ping, test_clock) are here. Part of the game layer: no
 * libuv here.
 *
 * Replies keep the order of a connection's requests (PROTOCOL.md 3 and 9), also when one of them
 * reads the store off the loop (history, record: archive.c) or hashes a password (auth.c): while
 * its read or job is out, the connection is held (lobby_wait_add(), ops->pause): the network layer
 * hands up none of its later requests and stops reading it, so they wait in its own bounded input
 * and nothing piles up here; handlers_read_done() replies when the answer comes and lets it go on
 * (ops->pause again), and its next requests come in order. Other connections are not held.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "archive.h"
#include "auth.h"
#include "guard.h"
#include "handlers.h"
#include "ladder.h"
#include "log.h"
#include "match.h"
#include "names.h"
#include "pairing.h"
#include "play.h"

/*
 * What a request may write to the store: while the store cannot write (a full disk), a request
 * that writes is refused with store_unavailable, and one that only reads is served.
 */
enum handler_store {
	HANDLER_UNSAID, /* an entry that does not say: our bug, stopped at its first request */
	HANDLER_READS,  /* nothing durable changes (a hello that resumes may write: it waits) */
	HANDLER_WRITES, /* a move, a new game, an end, an account ... */
	HANDLER_WRITES_SEATED, /* writes when the requester holds a seat (chat, leaving a seat) */
};

/* One request type and its handler. */
struct handler_entry {
	enum msg_type type;
	void (*handle)(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);
	int before_hello;         /* served to a connection that has not said hello */
	enum handler_store store; /* refused while the store is down? */
};

/*
 * Whether the replay of t's events after seq from fits in half of --max-output (the other half is
 * for the notices that follow and what the game sends meanwhile): a longer one would get the
 * connection dropped before the player is back, and the client would try again for ever. The
 * full state is sent instead (PROTOCOL.md 4.3); it is far shorter than a long log.
 */
static int
replay_fits(const struct lobby *lb, const struct table *t, size_t from)
{
	size_t bytes = 0;

	if (lb->cfg.max_output == 0)
		return 1;
	for (size_t i = from; i < t->nlog; i++)
		if ((bytes += t->log[i]->len) > lb->cfg.max_output / 2) {
			log_info("game %s: a replay of %zu events passes half of --max-output: the "
			         "state is sent instead",
			         t->id, t->nlog - from);
			return 0;
		}
	return 1;
}

/*
 * Resume a session on a new connection. The client says which seq it saw last: if the log holds
 * every event after it and they fit (replay_fits()), those very lines are sent again (nothing
 * else is needed to catch up); otherwise a full state. Notices are about the present, so the
 * current ones follow.
 */
static void
hello_resume(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, struct session *s)
{
	int was_connected = s->peer != NULL;
	const struct table *view = NULL;
	struct table *t;
	int64_t shown, waits;

	if (was_connected) {
		struct lobby_peer *old = s->peer;

		lobby_send(
		        lb, old,
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
	/*
	 * While the store cannot write (PROTOCOL.md 12.3) nothing it has not stored is shown: a
	 * game or a seat of this session that is not stored yet holds the whole resume until it is
	 * (its welcome names them); later events of its game that wait are sent once they are
	 * stored (lobby_hold_behind()), after what is shown now, up to the last stored event.
	 */
	waits = t != NULL ? lobby_waiting_seq(lb, t) : 0;
	if (waits > 1)
		view = lobby_view(lb, t);
	if (waits == 1 || (view != NULL && s->seat >= 0 && !view->st.seated[s->seat])) {
		lobby_hold(lb, peer);
		view = NULL;
	}
	lobby_send(lb, peer, lobby_welcome_new(lb, s, 1, m->id));
	log_info("%s (%s) resumed%s%s", s->id, s->name, s->table ? " at game " : "",
	         s->table ? s->table->id : "");
	t = s->table;
	if (t == NULL)
		return;
	if (s->seat < 0 && !was_connected)
		table_watcher_add(t, s); /* back on the list, as its state says */
	shown = table_seq(view != NULL ? view : t);
	if (m->has_last_seq && m->last_seq <= shown && replay_fits(lb, t, (size_t)m->last_seq)) {
		for (size_t i = (size_t)m->last_seq; i < (size_t)shown; i++)
			lb->ops.send(lb->ops.arg, peer, t->log[i]);
	} else {
		lobby_send(lb, peer, table_state_new(view != NULL ? view : t, s, NULL));
	}
	if (view != NULL)
		lobby_hold_behind(lb, s, t, shown);
	if (s->seat < 0 && !was_connected)
		lobby_spectators_changed(lb, t);
	if (s->seat >= 0 || was_connected || t->spect_waiting) {
		/* the notice of 4.3 comes now, whether or not the others' waits (coalescing) */
		lobby_send(lb, peer, table_spectators_notice_new(t));
	}
	if (s->seat >= 0 && !was_connected) {
		table_presence_notify(t, s->seat, 1);
		if (t->st.status == EVENT_STATUS_LIVE || t->st.status == EVENT_STATUS_ADJOURNED)
			table_seat_back(t, s->seat);
	}
	/* who else is away now: the presence notices missed while disconnected are not replayed */
	if (t->st.status == EVENT_STATUS_LIVE || t->st.status == EVENT_STATUS_ADJOURNED)
		for (int i = 0; i < 2; i++)
			if (i != s->seat && t->seat_taken[i] && !table_connected(t, i))
				lobby_send(lb, peer, table_presence_new(t, i));
	if (s->seat >= 0 && t->st.status == EVENT_STATUS_LIVE && game_side(&t->game) == s->seat)
		table_your_turn(t);
}

static void
handle_hello(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	char name[PROTOCOL_NAME_BYTES + 1];
	struct session *s;

	if (peer->session != NULL) {
		lobby_refuse(lb, peer, m, PROTO_EALREADYWELCOMED,
		             "this connection already said hello");
		return;
	}
	if (m->token != NULL) {
		if (guard_lookup_begin(lb, peer, m))
			return;
		s = session_find_token(&lb->sessions, m->token);
		if (s != NULL && s->account != 0 && !accounts_open(&lb->accounts, s->account))
			s = NULL; /* ended with its account (operators_account_end()): never resumed
			           */
		guard_lookup_end(lb, peer, s != NULL);
		if (s == NULL) {
			lobby_refuse(
			        lb, peer, m, PROTO_EBADTOKEN,
			        "unknown or expired session token; say hello with a name instead");
			return;
		}
		hello_resume(lb, peer, m, s);
		return;
	}
	if (guard_refuse_session(lb, peer, m) || lobby_refuse_new_id(lb, peer, m))
		return;
	if (m->password != NULL) { /* an account's: hashed off the loop (auth.c) */
		auth_login(lb, peer, m);
		return;
	}
	/* a guest's name without the blanks at its ends: " alice" is shown, and compared, as
	   "alice" */
	if (names_trim(m->name, name, sizeof name) <= 0) {
		lobby_send(lb, peer,
		           msg_error_new(PROTO_EBADVALUE, m->type, "name",
		                         "a name must not be all blank", m->id));
		return;
	}
	if (auth_guest_refused(lb, peer, m, name))
		return;
	s = lobby_session_new(lb, name);
	s->peer = peer;
	peer->session = s;
	guard_session_made(lb, s);
	log_info("%s (%s) said hello%s%s", s->id, s->name, m->client ? " from " : "",
	         m->client ? m->client : "");
	lobby_send(lb, peer, lobby_welcome_new(lb, s, 0, m->id));
}

/* The list's n-th game (counted from 0) is t: put it on the page if the page takes it. */
static void
list_page_add(json_t *games, const struct msg *m, size_t n, const struct table *t)
{
	if (n >= (uint64_t)m->offset && n - (uint64_t)m->offset < (uint64_t)m->limit)
		json_array_append_new(games, table_summary_new(t));
}

/*
 * Whether the list shows t (its stored view, lobby_view()) among the games of status: then it is
 * put on the page at n, and n counts it.
 */
static int
list_view_add(struct lobby *lb, json_t *games, const struct msg *m, size_t *n,
              const struct table *t, enum event_status status)
{
	const struct table *v = lobby_view(lb, t);
	int shown = v != NULL && v->st.status == status &&
	            (status != EVENT_STATUS_FINISHED || !event_state_unplayed(&v->st));

	if (shown)
		list_page_add(games, m, (*n)++, v);
	return shown;
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

	static const enum event_status order[] = {EVENT_STATUS_OPEN, EVENT_STATUS_LIVE,
	                                          EVENT_STATUS_ADJOURNED};

	/*
	 * What is listed is what is stored: while the store cannot write, a game shows as its last
	 * stored event left it (lobby_view()), and one not stored yet is not listed.
	 */
	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < lb->ntables; i++)
			if (!lb->tables[i]->is_private && (lb->tables[i]->st.status == order[k] ||
			                                   lobby_waiting_seq(lb, lb->tables[i])))
				list_view_add(lb, games, m, &n, lb->tables[i], order[k]);
	/*
	 * The keep_finished public games most recently finished, newest first (the finished list is
	 * in the order of finishing); more may be held for a player who may come back
	 * (lobby_prune()).
	 */
	for (struct table *t = TAILQ_LAST(&lb->finished, table_queue);
	     t != NULL && kept < lb->cfg.keep_finished; t = TAILQ_PREV(t, table_queue, fin_link))
		if (!t->is_private && !event_state_unplayed(&t->st))
			kept += (size_t)list_view_add(lb, games, m, &n, t, EVENT_STATUS_FINISHED);
	json_object_set_new(o, "total", json_integer((json_int_t)n));
	json_object_set_new(o, "offset", json_integer(m->offset));
	json_object_set_new(o, "games", games);
	if (m->id != NULL)
		json_object_set_new(o, "id", json_deep_copy(m->id));
	lobby_send(lb, peer, o);
}

/* ping: pong. */
static void
handle_ping(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	/* ahead of what waits for the store: a pong tells nothing the store must hold first */
	lobby_send_ahead(lb, peer, msg_new(MSG_PONG, m->id));
}

/* unknown_type, as the decoder refuses a type it does not know: no request, the field "type". */
static void
refuse_unknown_type(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                    const char *text)
{
	lobby_send(lb, peer, msg_error_new(PROTO_EUNKNOWNTYPE, MSG_NONE, "type", text, m->id));
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
		lb->virtual_ms = lobby_test_clock_next(lb, to);
		lobby_wake(lb);
		lobby_tick(lb);
		pairing_wake(lb);
	} while (lb->virtual_ms < to);
	lobby_send_ok(lb, peer, MSG_TEST_CLOCK, -1, m->id);
}

/* Every request, the hot ones first (a lookup walks the table from the top). */
static const struct handler_entry handlers[] = {
        {MSG_MOVE, play_move, 0, HANDLER_WRITES},
        {MSG_PING, handle_ping, 0, HANDLER_READS},
        {MSG_SAY, play_say, 0, HANDLER_WRITES_SEATED}, /* a spectator's kibitz is not stored */
        {MSG_HELLO, handle_hello, 1, HANDLER_READS},
        {MSG_LIST, handle_list, 0, HANDLER_READS},
        {MSG_CREATE, match_create, 0, HANDLER_WRITES},
        {MSG_JOIN, match_join, 0, HANDLER_WRITES},
        {MSG_QUICK, match_quick, 0, HANDLER_WRITES},
        {MSG_WATCH, match_watch, 0, HANDLER_WRITES_SEATED}, /* a player leaves its seat */
        {MSG_LEAVE, match_leave, 0, HANDLER_WRITES_SEATED},
        {MSG_RESIGN, play_resign, 0, HANDLER_WRITES},
        {MSG_DRAW_OFFER, play_draw, 0, HANDLER_WRITES},
        {MSG_DRAW_ACCEPT, play_draw, 0, HANDLER_WRITES},
        {MSG_DRAW_DECLINE, play_draw, 0, HANDLER_WRITES},
        {MSG_ABORT, play_abort, 0, HANDLER_WRITES},
        {MSG_CLAIM, play_claim, 0, HANDLER_WRITES},
        {MSG_REMATCH, match_rematch, 0, HANDLER_WRITES},
        {MSG_REMATCH_DECLINE, match_rematch, 0, HANDLER_WRITES},
        {MSG_HISTORY, archive_history, 0, HANDLER_READS},
        {MSG_RECORD, archive_record, 0, HANDLER_READS},
        {MSG_REGISTER, auth_register, 1, HANDLER_WRITES},
        {MSG_PASSWORD_CHANGE, auth_password_change, 0, HANDLER_WRITES},
        {MSG_ACCOUNT_CLOSE, auth_account_close, 0, HANDLER_WRITES},
        {MSG_PROFILE, ladder_profile, 0, HANDLER_READS},
        {MSG_LEADERBOARD, ladder_leaderboard, 0, HANDLER_READS},
        {MSG_TEST_CLOCK, handle_test_clock, 0, HANDLER_WRITES}, /* due deadlines end games */
};

/*
 * While the store cannot write, refuse a request of h that would write (store_unavailable, with
 * the cause), after one more try of the store (ops->store_ask: it may be back). Refused writes
 * do not queue: only the turn that failed waits. Returns whether m was refused.
 */
static int
handler_store_refused(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                      const struct handler_entry *h)
{
	const struct session *s = peer->session;

	assert(h->store != HANDLER_UNSAID); /* every entry says whether it writes */
	if (lb->store_down == NULL || h->store == HANDLER_READS ||
	    (h->store == HANDLER_WRITES_SEATED && (s == NULL || s->seat < 0)))
		return 0;
	if (lb->ops.store_ask != NULL && !lb->ops.store_ask(lb->ops.arg))
		return 0; /* it is back */
	lobby_refuse(lb, peer, m, PROTO_ESTOREUNAVAILABLE, "%s", lb->store_down);
	return 1;
}

/* The entry of a request type, or NULL when it is not a request. */
static const struct handler_entry *
handler_find(enum msg_type type)
{
	for (size_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++)
		if (handlers[i].type == type)
			return &handlers[i];
	return NULL;
}

void
handlers_dispatch(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	const struct handler_entry *h = handler_find(m->type);
	struct table *before;

	/* held behind a read of its own (ops->pause): a caller that did not hold it back is wrong
	 */
	if (peer->wait != NULL) {
		log_error("a request of a connection held behind a read was handed on; refused");
		lobby_refuse(lb, peer, m, PROTO_EINTERNAL, "a request came before its turn");
		return;
	}
	if (m->type == MSG_TEST_CLOCK && !lb->cfg.test_clock) {
		/* not a request here: unknown_type, before hello too, as any unknown type */
		handle_test_clock(lb, peer, m);
		return;
	}
	if (guard_refuse_rate(lb, peer, m))
		return;
	if (peer->session == NULL && (h == NULL || !h->before_hello)) {
		lobby_refuse(lb, peer, m, PROTO_EHELLOREQUIRED, "say hello first");
		return;
	}
	if (h != NULL && handler_store_refused(lb, peer, m, h))
		return;
	if (peer->session != NULL)
		peer->session->active_at = lb->ops.now(lb->ops.arg); /* --idle-timeout */
	/* a request changes the deadlines of the requester's game only, before and after it */
	before = peer->session != NULL ? peer->session->table : NULL;
	if (h != NULL)
		h->handle(lb, peer, m);
	else /* msg_request_decode() refuses these first; a caller of msg_decode() may not */
		refuse_unknown_type(lb, peer, m, "not a request");
	lobby_touched(lb, before);
	if (peer->session != NULL && peer->session->table != before)
		lobby_touched(lb, peer->session->table);
	lobby_prune(lb);
	lobby_arm(lb);
}

/* Wait w's answer was given: forget w, and let its connection's next requests come. */
static void
handlers_wait_resume(struct lobby *lb, struct lobby_wait *w)
{
	struct lobby_peer *peer = w->peer;

	w->peer = NULL;
	lobby_wait_drop(lb, w);
	if (lb->ops.pause != NULL)
		lb->ops.pause(lb->ops.arg, peer, 0);
	lobby_prune(lb);
	lobby_arm(lb);
}

void
handlers_read_done(struct lobby *lb, struct archive_read *r)
{
	struct lobby_wait *w = lobby_wait_find(lb, r->ticket);

	if (w == NULL) { /* its connection is gone */
		archive_read_free(r);
		return;
	}
	w->peer->wait = NULL;
	if (ladder_read_is(r))
		ladder_reply(lb, w->peer, &w->request, r);
	else
		archive_reply(lb, w->peer, &w->request, r);
	archive_read_free(r);
	handlers_wait_resume(lb, w);
}

void
handlers_auth_done(struct lobby *lb, struct auth_job *j)
{
	struct lobby_wait *w = lobby_wait_find(lb, j->ticket);

	accounts_job_done(&lb->accounts, j->rc);
	if (w == NULL) { /* its connection is gone */
		auth_abandon(lb, j);
		auth_job_free(j);
		return;
	}
	w->peer->wait = NULL;
	auth_reply(lb, w->peer, &w->request, j);
	auth_job_free(j);
	handlers_wait_resume(lb, w);
}
