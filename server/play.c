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
	if (t->status == TABLE_OPEN) {
		lobby_refuse(lb, peer, m, PROTO_ENOTSTARTED, "game %s waits for its second player",
		             t->id);
		return NULL;
	}
	if (t->status == TABLE_FINISHED) {
		lobby_refuse(lb, peer, m, PROTO_EGAMEOVER, "game %s is over", t->id);
		return NULL;
	}
	/* a flag that fell before the wake-up fired ends the game now */
	if (table_clock_check(t)) {
		lobby_finished_touch(lb, t);
		lobby_refuse(lb, peer, m, PROTO_EGAMEOVER, "game %s is over: %s ran out of time",
		             t->id, game_side_name(t->kind, t->winner == 0 ? 1 : 0));
		return NULL;
	}
	if (t->status == TABLE_ADJOURNED && m->type != MSG_RESIGN) {
		lobby_refuse(lb, peer, m, PROTO_ENOTSTARTED,
		             "game %s is adjourned: it goes on when both players are back", t->id);
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
		             t->kind == GAME_OXONO ? "an OXONO" : "a HOKITO", gerr.text);
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
	seq = table_finish(t, "win", 1 - s->seat, "resign");
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
	lobby_refuse(lb, peer, m, PROTO_ERATELIMITED,
	             "the spectators of game %s said %u lines in %d seconds already; wait %llu ms",
	             t->id, lb->cfg.kibitz_per_game, KIBITZ_WINDOW / 1000,
	             (unsigned long long)(KIBITZ_WINDOW - (now - t->kibitz_window_ms)));
	return 1;
}

/*
 * say: a player's line is a game event (chat) that everybody at the game gets and that is kept
 * in the log; a spectator's line is a kibitz notice for the spectators only, so players never
 * read what the audience suggests. Either way a session may say CHAT_BURST lines per
 * CHAT_WINDOW milliseconds, and a game's spectators together --max-kibitz lines per
 * KIBITZ_WINDOW (kibitz_full()); more are refused with rate_limited and go nowhere.
 */
void
play_say(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = s->table;
	uint64_t now = lobby_time(lb), oldest = s->chat_at[s->chat_next % CHAT_BURST];
	json_t *line;
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
	if (s->seat < 0 && kibitz_full(lb, peer, m, t))
		return;
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
	log_info("%s (%s): draw offer refused in game %s: the opponent moved %u of %u times since",
	         peer->session->id, peer->session->name, t->id, moved, need);
	lobby_refuse(lb, peer, m, PROTO_EOFFERLIMIT,
	             "you may offer a draw again once %s has moved %u times since your last offer "
	             "(%u so far)",
	             table_other_side(t, seat), need, moved);
	return 1;
}

/*
 * Draw offers. An offer stands until the opponent accepts it (the game is drawn, reason
 * "agreement"), declines it, or plays a move (the offer lapses, no event). Offering when the
 * opponent's offer stands accepts it. A side offers again only once the opponent has moved
 * --draw-offer-moves times (draw_offer_too_soon()).
 */
void
play_draw(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct session *s = peer->session;
	struct table *t = player_table(lb, peer, m);
	int64_t seq;

	if (t == NULL)
		return;
	switch (m->type) {
	case MSG_DRAW_OFFER:
		if (t->draw_offer == s->seat) {
			lobby_refuse(lb, peer, m, PROTO_EALREADYOFFERED,
			             "your draw offer stands already");
			return;
		}
		if (t->draw_offer == 1 - s->seat) {
			seq = table_finish(t, "draw", -1, "agreement");
			break;
		}
		if (draw_offer_too_soon(lb, peer, m, t, s->seat))
			return;
		t->draw_offered_at[s->seat] = (int64_t)t->nmoves + 1;
		t->draw_offer = s->seat;
		seq = table_offer_emit(t, MSG_DRAW_OFFERED, s->seat);
		break;
	case MSG_DRAW_ACCEPT:
		if (t->draw_offer != 1 - s->seat) {
			lobby_refuse(lb, peer, m, PROTO_ENOOFFER, "%s has not offered a draw",
			             table_other_side(t, s->seat));
			return;
		}
		seq = table_finish(t, "draw", -1, "agreement");
		break;
	default:
		if (t->draw_offer != 1 - s->seat) {
			lobby_refuse(lb, peer, m, PROTO_ENOOFFER, "%s has not offered a draw",
			             table_other_side(t, s->seat));
			return;
		}
		t->draw_offer = -1;
		seq = table_offer_emit(t, MSG_DRAW_DECLINED, s->seat);
		break;
	}
	lobby_finished_touch(lb, t);
	lobby_send_ok(lb, peer, m->type, seq, m->id);
}

/*
 * Abort: a player who has not made a move yet in this game may end it without a result (the
 * first player before its first move, the second player before its first move), on either
 * player's turn.
 */
void
play_abort(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
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
		lobby_refuse(lb, peer, m, PROTO_ETOOLATE,
		             "a game can be aborted only by a player who has not moved yet; resign "
		             "instead");
		return;
	}
	seq = table_finish(t, "aborted", -1, "abort");
	lobby_finished_touch(lb, t);
	lobby_send_ok(lb, peer, MSG_ABORT, seq, m->id);
}

/* Claim the win or a draw when the opponent's grace ran out and it is still away. */
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
	if (table_connected(t, other) || !t->grace_over[other]) {
		lobby_refuse(lb, peer, m, PROTO_ECANNOTCLAIM,
		             table_connected(t, other)
		                     ? "%s is connected"
		                     : "%s is away but its grace period is not over yet",
		             table_other_side(t, s->seat));
		return;
	}
	seq = table_finish(t, m->claim_draw ? "draw" : "win", m->claim_draw ? -1 : s->seat,
	                   "disconnect");
	lobby_finished_touch(lb, t);
	lobby_send_ok(lb, peer, MSG_CLAIM, seq, m->id);
}
