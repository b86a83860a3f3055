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
	    !(m->type == MSG_CLAIM && table_claimable(t, 1 - s->seat))) {
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

void
play_resign(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = player_table(lb, peer, m);
	int64_t seq;

	if (t == NULL)
		return;
	seq = table_finish(t, EVENT_RESULT_WIN, 1 - s->seat, EVENT_REASON_RESIGN);
	lobby_finished_touch(lb, t);
	lobby_send_ok(lb, peer, MSG_RESIGN, seq, m->id);
}

/*
 * say: a player's line is a game event (chat) that everybody at the game gets and that is kept
 * in the log; a spectator's line is a kibitz notice for the spectators only, so players never
 * read what the audience suggests. Either way a session may say CHAT_BURST lines per
 * CHAT_WINDOW milliseconds; more are refused with rate_limited and go nowhere.
 */
void
play_say(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = s->table;
	uint64_t now = lobby_time(lb), oldest = s->chat_at[s->chat_next % CHAT_BURST];
	struct event_player player = {s->id, s->name, 0};
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
	if (s->chat_next >= CHAT_BURST && now - oldest < CHAT_WINDOW) {
		lobby_refuse(lb, peer, m, PROTO_ERATELIMITED,
		             "at most %d chat lines in %d seconds; wait %llu ms", CHAT_BURST,
		             CHAT_WINDOW / 1000,
		             (unsigned long long)(CHAT_WINDOW - (now - oldest)));
		return;
	}
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

int
play_offer_answer(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                  const struct table *t, const char *what)
{
	int seat = peer->session->seat, rc = event_state_answer(&t->st, m->type, seat);

	if (rc == PROTO_EALREADYOFFERED)
		lobby_refuse(lb, peer, m, rc, "your %s offer stands already", what);
	else if (rc < 0)
		lobby_refuse(lb, peer, m, rc, "%s has not offered a %s", table_other_side(t, seat),
		             what);
	return rc < 0 ? -1 : rc;
}

/*
 * Draw offers. An offer stands until the opponent accepts it (the game is drawn, reason
 * "agreement"), declines it, or plays a move (the offer lapses, no event). Offering when the
 * opponent's offer stands accepts it. The rule is event_state_answer()'s, the same as rematches'.
 */
void
play_draw(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = player_table(lb, peer, m);
	int64_t seq = -1;
	int rc;

	if (t == NULL)
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
