/*
 * pairing.h: a second player takes the open seat of a game, which starts (pairing.c): on a join,
 * on a quick that finds a game, and in the rated quick pool when the windows of two players who
 * wait widen until they cover each other. Part of the game layer: no libuv.
 */
#ifndef HOKITO_SERVER_PAIRING_H
#define HOKITO_SERVER_PAIRING_H

#include "lobby.h"

/*
 * Seat s (connected) at the open seat of t, start the game and send s its state (echoing id,
 * borrowed; NULL: none, when s did not ask), then the first player its your_turn. s leaves the
 * game it was at first (its own open game ends, lobby_session_leave()).
 */
void pairing_join(struct lobby *lb, struct session *s, struct table *t, json_t *id);

/*
 * Time passed (the wake-up of lobby_arm(), the tick, a test_clock step): once a window has
 * widened (lb->quick_due has come; other wake-ups cost nothing here), pair the players waiting
 * in the rated quick pool whose windows now cover each other (pool_pair()), then note the next
 * moment a window widens (lb->quick_due) and ask for a wake-up then (lobby_arm()). Nothing
 * while the store is down (the game time stands still then; lobby_store_changed()).
 */
void pairing_wake(struct lobby *lb);

/* After a restart's restore: look at the waiters brought back, as pairing_wake() at a widening. */
void pairing_restore(struct lobby *lb);

#endif
