/*
 * play.h: a player's requests at its game (play.c): move, resign, draw_offer, draw_accept,
 * draw_decline, abort, claim and say. Handlers of the request table (handlers.c), each called with
 * a peer that said hello; m is borrowed.
 */
#ifndef HOKITO_SERVER_PLAY_H
#define HOKITO_SERVER_PLAY_H

#include "lobby.h"

/* move: a move of the player to move, judged by the rules module. */
void play_move(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* resign: the opponent wins. */
void play_resign(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* say: a player's chat line (a game event) or a spectator's kibitz (spectators only). */
void play_say(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* draw_offer, draw_accept and draw_decline. */
void play_draw(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/*
 * What draw or rematch request m by the peer's seat at t comes to (event_state_answer(), the one
 * rule of offers): an enum event_answer, or -1 after refusing it (already_offered, no_offer);
 * what is "draw" or "rematch", for the refusal's text. For match.c's rematches too. A new offer
 * also passes the server's limits (--draw-offer-moves, --max-rematch-offers; -1 after refusing
 * it with offer_limit) and is counted in t for them.
 */
int play_offer_answer(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                      struct table *t, const char *what);

/* abort: end the game without a result, by a player who has not moved yet. */
void play_abort(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* claim: the win or a draw, once the opponent's grace ran out and it is still away. */
void play_claim(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

#endif
