/*
 * match.c: match management: creating a game (against a person or the computer), joining one
 * (by id, by invite code, or the quick pairing), watching, leaving, and rematches.
 *
 * These are handlers of the request table (handlers.c). Requests arrive already validated in form
 * by msg_decode(); here they are checked against the state (who is where, what a game waits for)
 * and every refusal is an error reply that changes nothing. It owns nothing: the tables and
 * sessions are the lobby's (lobby.h). Part of the game layer: no libuv here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "log.h"
#include "match.h"
#include "osrand.h"
#include "pairing.h"
#include "play.h"
#include "pool.h"

/* Whether s is seated in a game that is not over (open, live or adjourned). */
static int
seated_active(const struct session *s)
{
	return s->table != NULL && s->seat >= 0 && s->table->st.status != EVENT_STATUS_FINISHED;
}

/*
 * Create a game with s seated (seat -1: random) and reply its state. With level > 0 the server's
 * computer takes the other seat at that level and the game starts at once: the creator's state
 * then includes both seated events and started, and the first player gets its turn.
 */
static struct table *
do_create(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, enum game_kind kind,
          const char *variant, int seat, int is_private, int has_seed, uint64_t seed,
          uint64_t base_ms, uint64_t inc_ms, int level, int rated)
{
	struct session *s = peer->session;
	struct table *t;

	if (lobby_refuse_full(lb, peer, m) || guard_refuse_create(lb, peer, m, level > 0))
		return NULL;
	lobby_session_leave(lb, s);
	t = lobby_table_open(lb, kind, variant, has_seed ? seed : osrand_u64(), base_ms, inc_ms,
	                     is_private, peer);
	t->rated = rated;
	t->opened_at = lobby_time(lb);
	if (seat < 0)
		seat = (int)(osrand_u64() & 1);
	table_seat(t, seat, s);
	table_seated_emit(t, seat, s);
	log_info("%s (%s) created game %s: %s %s, %s%s, seat %s, clock %s%s", s->id, s->name, t->id,
	         game_kind_name(kind), variant, is_private ? "private" : "public",
	         rated ? " rated" : "", game_side_name(kind, seat), t->control,
	         level > 0 ? ", against the computer" : "");
	if (level > 0) {
		char cid[16];

		snprintf(cid, sizeof cid, "p%u", lb->next_player++);
		table_seat_computer(t, 1 - seat, level, cid);
		table_seated_emit(t, 1 - seat, s);
		table_start(t, s);
		lobby_finished_touch(lb, t);
	}
	lobby_send(lb, peer, table_state_new(t, s, m->id));
	table_your_turn(t);
	return t;
}

/* Seat the requester at the open seat of t, start the game and reply its state. */
static void
do_join(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, struct table *t)
{
	pairing_join(lb, peer->session, t, m->id);
}

/* A player takes its seat of an adjourned game back (it had left it). */
static void
seat_return(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, struct table *t,
            int seat)
{
	struct session *s = peer->session;

	lobby_session_leave(lb, s);
	table_seat(t, seat, s);
	log_info("%s (%s) is back at adjourned game %s", s->id, s->name, t->id);
	lobby_send(lb, peer, table_state_new(t, s, m->id));
	table_presence_notify(t, seat, 1);
	table_seat_back(t, seat);
	table_your_turn(t);
}

/* A rated game is played by accounts only: refuse a guest's m (not_logged_in). Returns 1 if so. */
static int
refuse_guest_rated(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, int rated)
{
	if (!rated || peer->session->account != 0)
		return 0;
	lobby_refuse(lb, peer, m, PROTO_ENOTLOGGEDIN,
	             "rated games are between accounts: log in to one (hello with a password)");
	return 1;
}

void
match_create(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	if (seated_active(peer->session)) {
		lobby_refuse(lb, peer, m, PROTO_EALREADYSEATED,
		             "you are seated in game %s; leave it first", peer->session->table->id);
		return;
	}
	if (m->computer && lb->ops.think == NULL) {
		lobby_send(lb, peer,
		           msg_error_new(PROTO_EBADVALUE, m->type, "opponent",
		                         "this server has no computer players", m->id));
		return;
	}
	if (refuse_guest_rated(lb, peer, m, m->rated))
		return;
	do_create(lb, peer, m, m->kind, m->variant, m->seat, m->is_private, m->has_seed, m->seed,
	          m->clock_base_ms, m->clock_inc_ms, m->computer ? m->level : 0, m->rated);
}

/*
 * Find the game of join or watch (lobby_table_lookup()). An invite code is a secret: its lookups
 * count against the failed lookups of the peer's address (guard_lookup_begin()), so that codes
 * cannot be guessed at the speed of the network. Returns 0 with *t (NULL: no such game), or -1
 * after refusing.
 */
static int
game_lookup(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, struct table **t)
{
	if (m->code != NULL && guard_lookup_begin(lb, peer, m))
		return -1;
	*t = lobby_table_lookup(lb, m);
	if (m->code != NULL)
		guard_lookup_end(lb, peer, *t != NULL);
	return 0;
}

/* The seat s kept in adjourned table t after leaving it (11.3), or -1. */
static int
kept_seat(const struct table *t, const struct session *s)
{
	if (t == NULL || t->st.status != EVENT_STATUS_ADJOURNED)
		return -1;
	for (int i = 0; i < 2; i++)
		if (t->seat[i] == NULL && t->seat_taken[i] && strcmp(t->seat_id[i], s->id) == 0)
			return i;
	return -1;
}

void
match_join(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct table *t;
	int seat;

	if (seated_active(peer->session)) {
		lobby_refuse(lb, peer, m, PROTO_EALREADYSEATED,
		             "you are seated in game %s; leave it first", peer->session->table->id);
		return;
	}
	if (game_lookup(lb, peer, m, &t) < 0)
		return;
	/* its own seat of an adjourned game is taken back with the game's id, private or not */
	if (t == NULL && m->code == NULL) {
		struct table *own = lobby_table_find(lb, m->game);
		if (kept_seat(own, peer->session) >= 0)
			t = own;
	}
	if (t == NULL) {
		lobby_refuse(lb, peer, m, PROTO_ENOSUCHGAME, "no game with that %s",
		             m->code ? "invite code" : "id");
		return;
	}
	/* a player who left an adjourned game takes its own seat back */
	if ((seat = kept_seat(t, peer->session)) >= 0) {
		seat_return(lb, peer, m, t, seat);
		return;
	}
	if (t->st.status != EVENT_STATUS_OPEN) {
		lobby_refuse(lb, peer, m, PROTO_EGAMEFULL, "game %s has no open seat (it is %s)",
		             t->id,
		             t->st.status == EVENT_STATUS_FINISHED ? "over"
		             : t->st.status == EVENT_STATUS_ADJOURNED
		                     ? "adjourned, its players' seats kept"
		                     : "being played");
		return;
	}
	if (refuse_guest_rated(lb, peer, m, t->rated))
		return;
	do_join(lb, peer, m, t);
}

/*
 * How far t's waiting player is from s in rating, for the rated pool: the distance, or -1 when
 * they may not be paired yet (pool_accepts(): the window of the waiter's wait and s's window,
 * +-100 as it has not waited yet, must both cover the other).
 */
static double
rated_distance(struct lobby *lb, const struct table *t, int seat, const struct session *s)
{
	struct glicko a, b;
	struct pool_waiter x, y;
	uint64_t now = lobby_time(lb);

	rating_book_glicko(&lb->ratings, t->seat_account[seat], t->kind, &a);
	rating_book_glicko(&lb->ratings, s->account, t->kind, &b);
	x = (struct pool_waiter){a.rating, t->opened_at};
	y = (struct pool_waiter){b.rating, now};
	if (!pool_accepts(&x, &y, now))
		return -1;
	return a.rating > b.rating ? a.rating - b.rating : b.rating - a.rating;
}

/*
 * Quick pairing, in two pools, among the open public games of the same kind, variant and clock:
 * a casual game pairs with the first unrated one; a rated game (accounts only) with the rated
 * one whose waiting account is closest in rating, within the windows of both, which widen as
 * they wait (PROTOCOL.md quick). With no partner the player opens a game of its pool and waits;
 * in the rated pool, pairing_wake() pairs it later, when windows widen (the first wake-up is at
 * the end of its first 10 s).
 */
void
match_quick(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *best = NULL, *t;
	double best_d = -1;

	if (seated_active(s)) {
		lobby_refuse(lb, peer, m, PROTO_EALREADYSEATED,
		             "you are seated in game %s; leave it first", s->table->id);
		return;
	}
	if (refuse_guest_rated(lb, peer, m, m->rated))
		return;
	for (size_t i = 0; i < lb->ntables; i++) {
		int seat;
		double d;

		t = lb->tables[i];
		seat = t->seat_taken[0] ? 0 : 1;
		if (t->st.status != EVENT_STATUS_OPEN || t->is_private || t->rated != m->rated ||
		    t->kind != m->kind || strcmp(t->variant, m->variant) != 0 ||
		    t->seat[seat] == s || !table_connected(t, seat) ||
		    t->base_ms != m->clock_base_ms || t->inc_ms != m->clock_inc_ms)
			continue;
		if (!m->rated) {
			best = t;
			break;
		}
		d = rated_distance(lb, t, seat, s);
		if (d >= 0 && (best == NULL || d < best_d)) {
			best = t;
			best_d = d;
		}
	}
	if (best != NULL) {
		do_join(lb, peer, m, best);
		return;
	}
	t = do_create(lb, peer, m, m->kind, m->variant, -1, 0, 0, 0, m->clock_base_ms,
	              m->clock_inc_ms, 0, m->rated);
	if (t != NULL && m->rated && pool_next_widening(t->opened_at, t->opened_at) < lb->quick_due)
		lb->quick_due = pool_next_widening(t->opened_at, t->opened_at);
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

void
match_watch(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t;

	if (seated_active(s)) {
		lobby_refuse(lb, peer, m, PROTO_EALREADYSEATED,
		             "you are seated in game %s; leave it first", s->table->id);
		return;
	}
	if (game_lookup(lb, peer, m, &t) < 0)
		return;
	if (t == NULL || lobby_waiting_seq(lb, t) == 1) { /* 1: not stored yet (12.3) */
		lobby_refuse(lb, peer, m, PROTO_ENOSUCHGAME, "no game with that %s",
		             m->code ? "invite code" : "id");
		return;
	}
	if (watching(t, s)) {
		/*
		 * Already among its spectators: the state and the notice of a watch (section 9),
		 * but not a leave and a return, whose first notice said one spectator fewer.
		 */
		lobby_state_send(lb, t, s, m->id);
		lobby_spectators_changed(lb, t);
		return;
	}
	lobby_session_leave(lb, s);
	table_attach(t, s);
	s->seat = -1;
	table_watcher_add(t, s);
	log_info("%s (%s) watches game %s", s->id, s->name, t->id);
	lobby_state_send(lb, t, s, m->id);
	lobby_spectators_changed(lb, t);
}

void
match_leave(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *kept = NULL;
	int seat = s->seat;

	if (s->table != NULL && s->seat >= 0 && s->table->st.status == EVENT_STATUS_LIVE) {
		lobby_refuse(lb, peer, m, PROTO_EINGAME, "game %s is being played; resign first",
		             s->table->id);
		return;
	}
	if (s->table != NULL && s->seat >= 0 && s->table->st.status == EVENT_STATUS_ADJOURNED) {
		kept = s->table;
		log_info("%s (%s) left adjourned game %s (the seat is kept)", s->id, s->name,
		         kept->id);
	}
	lobby_session_leave(lb, s);
	lobby_send_ok(lb, peer, MSG_LEAVE, -1, m->id);
	/* away from its adjourned game now, as a dropped player is: the others are told, as they
	 * are told when it takes its seat back (seat_return()) */
	if (kept != NULL)
		table_presence_notify(kept, seat, 0);
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
	struct event ev = {.type = MSG_REMATCH_STARTED};
	struct table *n;

	if (lobby_refuse_full(lb, peer, m) ||
	    guard_refuse_create(lb, peer, m, t->computer[0] || t->computer[1]))
		return;
	n = lobby_table_open(lb, t->kind, t->variant, osrand_u64(), t->base_ms, t->inc_ms,
	                     t->is_private, peer);
	n->rated = t->rated; /* the same players: accounts still */
	ev.u.rematch_started.new_game = n->id;
	table_emit(t, &ev, NULL); /* the offer is taken up: no offer stands any more */
	for (int i = 0; i < 2; i++) {
		t->seat[i] = NULL;
		if (p[i] == NULL)
			continue;
		table_attach(NULL, p[i]);
		p[i]->seat = -1;
	}
	lobby_released(lb, t); /* the old game is held for nobody now */
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
		table_seated_emit(n, 1 - i, NULL);
	}
	pairing_rated_start(lb, n, (struct session *const[2]){p[1], p[0]});
	table_start(n, NULL);
	for (int i = 0; i < 2; i++)
		n->seat[1 - i] = p[i];
	log_info("game %s: rematch of %s, %s (%s) vs %s (%s)", n->id, t->id, n->seat_name[0],
	         game_side_name(n->kind, 0), n->seat_name[1], game_side_name(n->kind, 1));
	for (int i = 0; i < 2; i++)
		if (p[i] != NULL && p[i]->peer != NULL && p[i]->peer != peer)
			lobby_send(lb, p[i]->peer, table_state_new(n, p[i], NULL));
	lobby_send(lb, peer, table_state_new(n, peer->session, m->id));
	lobby_finished_touch(lb, n);
	table_your_turn(n);
}

/*
 * Rematch offers, after the game is over, between its two players while both are at it and
 * connected. rematch when the opponent's offer stands accepts it; rematch_decline declines it
 * (event_state_answer(), the rule of draw offers too). An offer lapses when either player leaves
 * the game. A side makes at most --max-rematch-offers offers in one game (offer_limit past them,
 * play_offer_answer()), so an offer and decline loop cannot grow its log.
 */
void
match_rematch(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = s->table;
	int other, rc;
	int64_t seq = -1;

	if (t == NULL || (m->game != NULL && strcmp(m->game, t->id) != 0)) {
		lobby_refuse(lb, peer, m, PROTO_ENOTSEATED, "you are not seated in that game");
		return;
	}
	if (s->seat < 0) {
		lobby_refuse(lb, peer, m, PROTO_ESPECTATOR, "spectators cannot ask for a rematch");
		return;
	}
	if (t->st.status == EVENT_STATUS_OPEN) {
		lobby_refuse(lb, peer, m, PROTO_ENOTSTARTED, "game %s waits for its second player",
		             t->id);
		return;
	}
	if (t->st.status != EVENT_STATUS_FINISHED) {
		lobby_refuse(lb, peer, m, PROTO_ENOTOVER, "game %s is not over", t->id);
		return;
	}
	other = 1 - s->seat;
	if (m->type == MSG_REMATCH && t->computer[other] > 0) {
		/* the computer accepts at once */
		rematch_start(lb, peer, m, t);
		return;
	}
	if (m->type == MSG_REMATCH &&
	    (!t->seat_taken[other] || !table_connected(t, other) || t->seat[other]->table != t)) {
		lobby_refuse(lb, peer, m, PROTO_EOPPONENTGONE, "%s is no longer at game %s",
		             table_other_side(t, s->seat), t->id);
		return;
	}
	if ((rc = play_offer_answer(lb, peer, m, t, "rematch")) < 0)
		return;
	switch ((enum event_answer)rc) {
	case EVENT_ANSWER_OFFER:
		seq = table_offer_emit(t, MSG_REMATCH_OFFERED, s->seat);
		break;
	case EVENT_ANSWER_ACCEPT:
		rematch_start(lb, peer, m, t);
		return;
	case EVENT_ANSWER_DECLINE:
		seq = table_offer_emit(t, MSG_REMATCH_DECLINED, s->seat);
		break;
	}
	lobby_send_ok(lb, peer, m->type, seq, m->id);
}
