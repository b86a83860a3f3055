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
 * Before a game created rated starts between the sessions p[0] and p[1] (its seats, borrowed):
 * whether it is played casual (t->unrated, told in started and state): both players came from
 * one address (each session's connection, or the one that made it while away; an IPv4 address
 * or an IPv6 /64), unless --allow-shared-address; or the two accounts' rated games of the last
 * 24 hours that changed their ratings number --pair-rated already (PROTOCOL.md 14).
 */
void pairing_rated_start(struct lobby *lb, struct table *t, struct session *const p[2]);

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
