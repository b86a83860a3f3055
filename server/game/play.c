/*
 * play.c: the requests of a player at its game: move, resign, draw offers, abort, claims after
 * the opponent's grace period, and chat (say).
 *
 * Handlers of the request table (handlers.c). Each is checked against the state in the documented
 * order (player_table()); moves are validated by the rules module (game_move_parse) against the
 * authoritative position before anything else happens, and every refusal is an error reply that
 * changes nothing. It owns nothing: the tables and sessions are the lobby's. Part of the game
 * layer: no libuv here.
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "play.h"

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
		lobby_refuse(lb, peer, m, PROTO_ENOTSEATED, "you are not at any game");
		return NULL;
	}
	if (m->game != NULL && strcmp(m->game, t->id) != 0) {
		lobby_refuse(lb, peer, m, PROTO_ENOTSEATED,
		             "you are not seated in that game (you are at %s)", t->id);
		return NULL;
	}
	if (s->seat < 0) {
		lobby_refuse(lb, peer, m, PROTO_ESPECTATOR, "spectators cannot %s",
		             m->type == MSG_MOVE ? "move" : msg_type_name(m->type));
		return NULL;
	}
	if (t->st.status == EVENT_STATUS_OPEN) {
		lobby_refuse(lb, peer, m, PROTO_ENOTSTARTED, "game %s waits for its second player",
		             t->id);
		return NULL;
	}
	if (t->st.status == EVENT_STATUS_FINISHED) {
		lobby_refuse(lb, peer, m, PROTO_EGAMEOVER, "game %s is over", t->id);
		return NULL;
	}
	/* a flag that fell before the wake-up fired ends the game now */
	if (table_clock_check(t)) {
		lobby_finished_touch(lb, t);
		if (t->st.reason == EVENT_REASON_ABORT)
			lobby_refuse(lb, peer, m, PROTO_EGAMEOVER,
			             "game %s is aborted: %s did not make its first move in time",
			             t->id, game_side_name(t->kind, game_side(&t->game)));
		else
			lobby_refuse(lb, peer, m, PROTO_EGAMEOVER,
			             "game %s is over: %s ran out of time", t->id,
			             game_side_name(t->kind, t->st.winner == 0 ? 1 : 0));
		return NULL;
	}
	if (t->st.status == EVENT_STATUS_ADJOURNED && m->type != MSG_RESIGN &&
	    m->type != MSG_ABORT && !(m->type == MSG_CLAIM && table_claimable(t, 1 - s->seat))) {
		lobby_refuse(lb, peer, m, PROTO_ENOTSTARTED,
		             "game %s is adjourned: it goes on when both players are back%s", t->id,
		             m->type == MSG_CLAIM ? ", or may be claimed once the wait after the "
		                                    "adjournment is over (grace_over)"
		                                  : "");
		return NULL;
	}
	return t;
}

void
play_move(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
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
		lobby_refuse(lb, peer, m, PROTO_ENOTYOURTURN, "it is %s's turn",
		             game_side_name(t->kind, game_side(&t->game)));
		return;
	}
	/* the rules module is the judge: nothing is applied that it did not accept */
	rc = game_move_parse(&t->game, m->move, &mv, &gerr);
	if (rc == GAME_ESYNTAX) {
		lobby_refuse(lb, peer, m, PROTO_EBADMOVE, "'%.40s' is not %s move: %s", m->move,
		             game_kind_a_title(t->kind), gerr.text);
		return;
	}
	if (rc == GAME_EILLEGAL) {
		lobby_refuse(lb, peer, m, PROTO_EILLEGALMOVE, "%s", gerr.text);
		return;
	}
	if (rc < 0) {
		lobby_refuse(lb, peer, m, PROTO_EGAMEOVER, "%s", gerr.text);
		return;
	}
	seq = table_play(t, mv);
	log_debug("game %s: %s played %s", t->id, s->id, t->moves[t->nmoves - 1]);
	lobby_finished_touch(lb, t);
	lobby_send_ok(lb, peer, MSG_MOVE, seq, m->id);
	table_your_turn(t);
}

/*
 * A result needs play (lichess's rule): a player who has not moved yet may not resign, it aborts
 * instead (no result, nobody's rating changes); and no draw is agreed before both sides have
 * moved. So a rated result cannot be had without moves; every player still has a way out (abort
 * while it has not moved, resign once it has). Refuses with too_early when so.
 */
static int
too_early(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, const struct table *t)
{
	int seat = peer->session->seat;

	if (m->type == MSG_RESIGN ? !event_state_may_abort(&t->st, seat) : t->st.ply >= 2)
		return 0;
	lobby_refuse(lb, peer, m, PROTO_ETOOEARLY,
	             m->type == MSG_RESIGN
	                     ? "you have not moved yet in game %s: abort it instead (no result)"
	             : event_state_may_abort(&t->st, seat)
	                     ? "a draw is agreed only once both sides have moved in game %s; "
	                       "abort it instead (no result)"
	                     : "a draw is agreed only once both sides have moved in game %s",
	             t->id);
	return 1;
}

void
play_resign(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = player_table(lb, peer, m);
	int64_t seq;

	if (t == NULL || too_early(lb, peer, m, t))
		return;
	seq = table_finish(t, EVENT_RESULT_WIN, 1 - s->seat, EVENT_REASON_RESIGN);
	lobby_finished_touch(lb, t);
	lobby_send_ok(lb, peer, MSG_RESIGN, seq, m->id);
}

/*
 * Whether t's spectators said their --max-kibitz lines in this window already: each line goes to
 * every spectator, so a crowd of them, each within its own allowance, would make the server write
 * the square of their number; refused with rate_limited, the line goes nowhere. The window runs on
 * the game layer's time, as a session's chat allowance does (test_clock moves both).
 */
static int
kibitz_full(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, struct table *t)
{
	uint64_t now = lobby_time(lb);

	if (lb->cfg.kibitz_per_game == 0)
		return 0;
	if (t->kibitz_count == 0 || now < t->kibitz_window_ms ||
	    now - t->kibitz_window_ms >= KIBITZ_WINDOW) {
		t->kibitz_window_ms = now;
		t->kibitz_count = 0;
	}
	if (t->kibitz_count < lb->cfg.kibitz_per_game) {
		t->kibitz_count++;
		return 0;
	}
	lb->refusals[LOBBY_LIMIT_KIBITZ]++;
	lobby_refuse(lb, peer, m, PROTO_ERATELIMITED,
	             "the spectators of game %s said %u lines in %d seconds already; wait %llu ms",
	             t->id, lb->cfg.kibitz_per_game, KIBITZ_WINDOW / 1000,
	             (unsigned long long)(KIBITZ_WINDOW - (now - t->kibitz_window_ms)));
	return 1;
}

/*
 * Whether t's chat is full for s's line (--max-chat-lines, --max-chat-after-end): its players
 * said chat_lines lines in all (they are game events, kept in the store with the game: the cap
 * bounds what a game stores), or chat_after_end lines since the game ended; its spectators had
 * chat_lines lines relayed. Refused with chat_full, the line goes nowhere; the refusals are
 * logged at most once in CHAT_LOG_MS.
 */
static int
chat_full(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, const struct table *t,
          int seated)
{
	unsigned max = lb->cfg.chat_lines, after = lb->cfg.chat_after_end;
	int over = t->st.status == EVENT_STATUS_FINISHED;
	uint64_t now = lb->ops.now(lb->ops.arg);

	if (seated && over && after != 0 && t->nchat - t->nchat_end >= after) {
		lb->refusals[LOBBY_LIMIT_CHAT_AFTER_END]++;
		lobby_refuse(lb, peer, m, PROTO_ECHATFULL,
		             "game %s is over and its players said %u lines since: its chat is "
		             "closed",
		             t->id, after);
	} else if (max != 0 && (seated ? t->nchat : t->nkibitz) >= max) {
		lb->refusals[LOBBY_LIMIT_CHAT_LINES]++;
		lobby_refuse(lb, peer, m, PROTO_ECHATFULL,
		             "the %s of game %s said %u lines, the most a game keeps: its chat is "
		             "closed",
		             seated ? "players" : "spectators", t->id, max);
	} else
		return 0;
	lb->chat_refused++;
	snprintf(lb->chat_game, sizeof lb->chat_game, "%s", t->id);
	if (lb->chat_log_at == 0 || now - lb->chat_log_at >= CHAT_LOG_MS) {
		log_warn("%u chat lines refused lately past --max-chat-lines %u or "
		         "--max-chat-after-end %u, the last at game %s",
		         lb->chat_refused, max, after, lb->chat_game);
		lb->chat_refused = 0;
		lb->chat_log_at = now;
	}
	return 1;
}

/*
 * say: a player's line is a game event (chat) that everybody at the game gets and that is kept
 * in the log; a spectator's line is a kibitz notice for the spectators only, so players never
 * read what the audience suggests. Either way a session may say CHAT_BURST lines per
 * CHAT_WINDOW milliseconds, and a game's spectators together --max-kibitz lines per
 * KIBITZ_WINDOW (kibitz_full()); more are refused with rate_limited and go nowhere. A game
 * keeps --max-chat-lines of each, and its players --max-chat-after-end once it is over
 * (chat_full()); past them chat_full.
 */
void
play_say(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = s->table;
	uint64_t now = lobby_time(lb), oldest = s->chat_at[s->chat_next % CHAT_BURST];
	struct event_player player = {s->id, s->name, 0, session_kind(s), NULL};
	int64_t seq = -1;

	if (t == NULL) {
		lobby_refuse(lb, peer, m, PROTO_ENOTSEATED, "you are not at any game");
		return;
	}
	if (m->game != NULL && strcmp(m->game, t->id) != 0) {
		lobby_refuse(lb, peer, m, PROTO_ENOTSEATED,
		             "you are not at that game (you are at %s)", t->id);
		return;
	}
	if (chat_full(lb, peer, m, t, s->seat >= 0))
		return;
	if (s->chat_next >= CHAT_BURST && now - oldest < CHAT_WINDOW) {
		lb->refusals[LOBBY_LIMIT_CHAT_RATE]++;
		lobby_refuse(lb, peer, m, PROTO_ERATELIMITED,
		             "at most %d chat lines in %d seconds; wait %llu ms", CHAT_BURST,
		             CHAT_WINDOW / 1000,
		             (unsigned long long)(CHAT_WINDOW - (now - oldest)));
		return;
	}
	if (s->seat < 0 && kibitz_full(lb, peer, m, t))
		return;
	s->chat_at[s->chat_next++ % CHAT_BURST] = now;
	if (s->seat >= 0) {
		struct event ev = {.type = MSG_CHAT};

		ev.u.chat.seat = s->seat;
		ev.u.chat.player = player;
		ev.u.chat.text = m->text;
		seq = table_emit(t, &ev, NULL);
	} else {
		table_kibitz(t, &player, m->text);
	}
	lobby_send_ok(lb, peer, MSG_SAY, seq, m->id);
}

/*
 * Whether seat's new draw offer comes too soon: it offered one already, and the opponent has not
 * moved --draw-offer-moves times since (lichess's rule), so that an offer and decline loop cannot
 * grow the game's log. Moves alternate: the opponent made the plies at which it was to move.
 * Refuses with offer_limit when so.
 */
static int
draw_offer_too_soon(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                    const struct table *t, int seat)
{
	unsigned need = lb->cfg.draw_offer_moves, moved = 0;
	int first = game_side(&t->start);

	if (need == 0 || t->draw_offered_at[seat] == 0)
		return 0;
	for (size_t ply = (size_t)(t->draw_offered_at[seat] - 1); ply < t->nmoves; ply++)
		if ((int)((first + ply) & 1) != seat && ++moved >= need)
			return 0;
	lb->refusals[LOBBY_LIMIT_DRAW_OFFERS]++;
	log_info("%s (%s): draw offer refused in game %s: the opponent moved %u of %u times since",
	         peer->session->id, peer->session->name, t->id, moved, need);
	lobby_refuse(lb, peer, m, PROTO_EOFFERLIMIT,
	             "you may offer a draw again once %s has moved %u times since your last offer "
	             "(%u so far)",
	             table_other_side(t, seat), need, moved);
	return 1;
}

/*
 * Whether seat's rematch offer passes --max-rematch-offers in game t, so that an offer and
 * decline loop cannot grow its log. Refuses with offer_limit when so.
 */
static int
rematch_offers_spent(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                     const struct table *t, int seat)
{
	unsigned most = lb->cfg.rematch_offers;

	if (most == 0 || t->rematch_offers[seat] < most)
		return 0;
	lb->refusals[LOBBY_LIMIT_REMATCH_OFFERS]++;
	log_info("%s (%s): rematch offer refused in game %s: %u made already", peer->session->id,
	         peer->session->name, t->id, t->rematch_offers[seat]);
	lobby_refuse(lb, peer, m, PROTO_EOFFERLIMIT,
	             "you offered a rematch %u times in this game already",
	             t->rematch_offers[seat]);
	return 1;
}

/*
 * The rule of offers is event_state_answer()'s; the limits on new offers (--draw-offer-moves,
 * --max-rematch-offers) are the server's policy over its counts, kept in t and checked here
 * only, when the answer is a new offer.
 */
int
play_offer_answer(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, struct table *t,
                  const char *what)
{
	int seat = peer->session->seat, rc = event_state_answer(&t->st, m->type, seat);

	if (rc == PROTO_EALREADYOFFERED)
		lobby_refuse(lb, peer, m, rc, "your %s offer stands already", what);
	else if (rc < 0)
		lobby_refuse(lb, peer, m, rc, "%s has not offered a %s", table_other_side(t, seat),
		             what);
	if (rc != EVENT_ANSWER_OFFER)
		return rc < 0 ? -1 : rc;
	if (m->type == MSG_DRAW_OFFER) {
		if (draw_offer_too_soon(lb, peer, m, t, seat))
			return -1;
		t->draw_offered_at[seat] = (int64_t)t->nmoves + 1;
	} else {
		if (rematch_offers_spent(lb, peer, m, t, seat))
			return -1;
		t->rematch_offers[seat]++;
	}
	return rc;
}

/*
 * Draw offers. An offer stands until the opponent accepts it (the game is drawn, reason
 * "agreement"), declines it, or plays a move (the offer lapses, no event). Offering when the
 * opponent's offer stands accepts it. The rule is event_state_answer()'s, the same as rematches'.
 * A side offers again only once the opponent has moved --draw-offer-moves times
 * (play_offer_answer()).
 */
void
play_draw(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = player_table(lb, peer, m);
	int64_t seq = -1;
	int rc;

	if (t == NULL || (m->type != MSG_DRAW_DECLINE && too_early(lb, peer, m, t)))
		return;
	if ((rc = play_offer_answer(lb, peer, m, t, "draw")) < 0)
		return;
	switch ((enum event_answer)rc) {
	case EVENT_ANSWER_OFFER:
		seq = table_offer_emit(t, MSG_DRAW_OFFERED, s->seat);
		break;
	case EVENT_ANSWER_ACCEPT:
		seq = table_finish(t, EVENT_RESULT_DRAW, -1, EVENT_REASON_AGREEMENT);
		break;
	case EVENT_ANSWER_DECLINE:
		seq = table_offer_emit(t, MSG_DRAW_DECLINED, s->seat);
		break;
	}
	lobby_finished_touch(lb, t);
	lobby_send_ok(lb, peer, m->type, seq, m->id);
}

/*
 * Abort: a player who has not made a move yet in this game may end it without a result (the
 * first player before its first move, the second player before its first move), on either
 * player's turn (event_state_may_abort()).
 */
void
play_abort(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = player_table(lb, peer, m);
	int64_t seq;

	if (t == NULL)
		return;
	if (!event_state_may_abort(&t->st, s->seat)) {
		lobby_refuse(lb, peer, m, PROTO_ETOOLATE,
		             "a game can be aborted only by a player who has not moved yet; resign "
		             "instead");
		return;
	}
	seq = table_finish(t, EVENT_RESULT_ABORTED, -1, EVENT_REASON_ABORT);
	lobby_finished_touch(lb, t);
	lobby_send_ok(lb, peer, MSG_ABORT, seq, m->id);
}

/*
 * Claim the win or a draw when the opponent is away past its grace (a timed game), or past the
 * wait after the adjournment (an untimed one): table_claimable().
 */
void
play_claim(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = player_table(lb, peer, m);
	int other;
	int64_t seq;

	if (t == NULL)
		return;
	other = 1 - s->seat;
	if (!table_claimable(t, other)) {
		lobby_refuse(lb, peer, m, PROTO_ECANNOTCLAIM,
		             table_connected(t, other)
		                     ? "%s is connected"
		                     : "%s is away but its grace period is not over yet",
		             table_other_side(t, s->seat));
		return;
	}
	seq = m->claim_draw ? table_finish(t, EVENT_RESULT_DRAW, -1, EVENT_REASON_DISCONNECT)
	                    : table_finish(t, EVENT_RESULT_WIN, s->seat, EVENT_REASON_DISCONNECT);
	lobby_finished_touch(lb, t);
	lobby_send_ok(lb, peer, MSG_CLAIM, seq, m->id);
}
