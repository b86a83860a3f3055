/*
 * restore.h: the rebuild of the lobby from its store at a restart (restore.c).
 */
#ifndef HOKITO_SERVER_RESTORE_H
#define HOKITO_SERVER_RESTORE_H

#include "lobby.h"
#include "store-port.h"

/*
 * Rebuild the lobby from cfg.store (its write port), once, before any peer arrives: every
 * unfinished game and the keep_finished most recently finished ones (replayed through the rules by
 * the store, then their stored event lines checked and turned back into tables: log, moves, seats,
 * status, clocks, offers, chat), the sessions of their seated players (disconnected, so that they
 * resume with their token and last seq; those of a finished game linger as after a disconnection),
 * and the id counters; a finished game a player is still at (connected or lingering when the server
 * stopped) is rebuilt beyond --keep-finished, however long ago it ended. Clocks restart from the
 * values carried by the last stored event that has them: time does not run while the server is
 * down, and every player gets a whole grace period. Session rows of games no longer held are
 * removed. Returns the number of games rebuilt, or a negative store error with err saying what and
 * where (a damaged store: the caller must not start).
 */
int restore_lobby(struct lobby *lb, struct store_error *err);

#endif
