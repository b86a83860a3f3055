/*
 * event-state.h: what each game event does to a game, written once.
 *
 * struct event_state is the part of a game that its events alone decide: its status, the seq and
 * ply reached, whose turn it is, the result, the scores and clocks as last carried, the offers that
 * stand, whose grace is over, which seat the computer holds. event_state_apply() applies one
 * decoded event (event.h) to it. The server's restore reads a stored game back through it, the
 * server's table keeps one, and the client follows a game with it, so the rules live here only:
 *
 * - an event comes only in the statuses the protocol allows it (a finished game has only chat and
 *   the rematch events; a move only in a live game), with the next seq;
 * - a draw offer stands until it is accepted or declined, or until the player it was made to moves
 *   (event_state_offer_after_move()): the offerer's own move does not withdraw it; an adjournment
 *   and the end of the game clear it;
 * - game_over is the one event that ends a game; resumed makes an adjourned game live again;
 * - grace_over says the opponent of its seat may claim: in a live game when the seat's grace ran
 *   out (a timed game), in an adjourned one when the further wait after the adjournment ran out
 *   (an untimed game); the seat's coming back (presence, resumed) takes that away;
 * - the clocks of an event that carries them replace the ones before (the log alone rebuilds them);
 * - what an offer request comes to, the same for draws and rematches (event_state_answer()), and
 *   who may still abort (event_state_may_abort()): the server's request handlers ask these.
 *
 * Pure functions over plain values: no allocation, no I/O, no libuv.
 */
#ifndef HOKITO_PROTOCOL_EVENT_STATE_H
#define HOKITO_PROTOCOL_EVENT_STATE_H

#include <stdint.h>

#include "event.h"

struct event_state {
	enum game_kind kind;
	enum event_status status;
	int64_t seq;              /* the seq of the last event applied; 0 before the first */
	int64_t ply;              /* moves played */
	int to_move;              /* the seat to move, -1 when nobody is (open, adjourned, over) */
	int first;                /* the seat that moved first (started's to_move), -1 before */
	enum event_result result; /* NONE until game_over */
	int winner;               /* the winner of a win, else -1 */
	enum event_reason reason; /* NONE until game_over */
	struct event_pair scores; /* HOKITO: as the last event carrying them said */
	struct event_pair clocks; /* with a clock: as the last event carrying them said */
	int offer[EVENT_OFFER_COUNT]; /* the seat whose offer of each kind stands, or -1 */
	int seated[2];                /* a seated event came for the seat */
	int computer[2];              /* the computer's level in that seat, 0 for a person */
	int connected[2];             /* as the last presence notice said (1 from seated on) */
	int grace_over[2];            /* the seat's grace is over (grace_over, adjourned) */
	int claimable[2]; /* the opponent may claim against the seat: grace_over came for it */
};

/* A game of this kind before its first event: open, nobody seated, no offer. */
void event_state_init(struct event_state *st, enum game_kind kind);

/*
 * Set st from a state message (PROTOCOL.md 6.1; o borrowed), so that the events after it apply:
 * its kind, status, seq, ply, to_move, the first mover (from "start"), result (finished games
 * only), scores, the clocks' "remaining", both offers, and per seat in "players": seated,
 * computer, connected, grace_over and claimable. Members not listed are not looked at. Returns 0,
 * or a negative enum protocol_err with err filled (st then holds nothing useful).
 */
int event_state_decode(struct event_state *st, const json_t *o, struct msg_error *err);

/*
 * Whether an event of type may come next in st's status (the protocol's list of what may happen
 * when), or a notice (any time). Returns 1 or 0.
 */
int event_state_allows(const struct event_state *st, enum msg_type type);

/*
 * Apply ev (decoded for st->kind) to st. An event must come when event_state_allows() says and
 * carry seq st->seq + 1; a moved event must be by the seat to move and carry ply st->ply + 1.
 * Notices change only what they tell (presence: connected, grace) and have no seq to check.
 * Returns 0, or PROTO_EBADVALUE with err filled (st unchanged) for an event that does not fit:
 * the server's restore refuses such a log; a client that trusts its server may ignore it.
 */
int event_state_apply(struct event_state *st, const struct event *ev, struct msg_error *err);

/*
 * The seat whose draw offer stands after mover moved, offer being the one that stood before (-1
 * for none): an offer lapses when the player it was made to moves, one's own stands.
 */
int event_state_offer_after_move(int offer, int mover);

/* Whether the game is over (game_over came). */
int event_state_over(const struct event_state *st);

/*
 * Whether the game never started: it is over, aborted, with no move played (an open game that
 * expired, an abort, a first move missed). Such a game is left out of the lobby list and the
 * history (PROTOCOL.md 5). Returns 1 or 0.
 */
int event_state_unplayed(const struct event_state *st);

/* What an offer request comes to (event_state_answer()). */
enum event_answer {
	EVENT_ANSWER_OFFER,  /* a new offer: emit draw_offered / rematch_offered */
	EVENT_ANSWER_ACCEPT, /* the opponent's offer is accepted: game_over agreement / a rematch */
	EVENT_ANSWER_DECLINE, /* the opponent's offer is declined: draw_declined / rematch_declined
	                       */
};

/*
 * The rule of offers, the same for draws and rematches: what request (MSG_DRAW_OFFER,
 * MSG_DRAW_ACCEPT, MSG_DRAW_DECLINE, MSG_REMATCH or MSG_REMATCH_DECLINE) by seat comes to, given
 * the offers standing in st. Offering while one's own offer stands is PROTO_EALREADYOFFERED;
 * offering while the opponent's stands accepts it; accepting or declining needs the opponent's
 * offer standing, else PROTO_ENOOFFER. Returns an enum event_answer, or that negative code. The
 * checks that come first (seated, status, the rematch's opponent still there) are the caller's.
 */
int event_state_answer(const struct event_state *st, enum msg_type request, int seat);

/*
 * Whether seat may still abort: only a player who has not moved yet in this game (the first
 * player at ply 0, the second at ply 0 or 1). Returns 1 or 0.
 */
int event_state_may_abort(const struct event_state *st, int seat);

#endif
