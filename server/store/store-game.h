/*
 * store-game.h: what a stored game means, for every backend (store-game.c): the replay of its
 * events through the rules, which the load at a start runs on every game it hands out, and the
 * rule of who may find a private game by its id; and for a copy of a whole store, what a game
 * (or a ratings row) put as another store held it may be and where two stored games differ (its
 * check).
 */
#ifndef HOKITO_SERVER_STORE_GAME_H
#define HOKITO_SERVER_STORE_GAME_H

#include <stddef.h>

#include "game.h"
#include "store-port.h"

/*
 * Replay a stored game's events through the rules: start from kind, variant and seed, apply
 * each "moved" event's move (checked with game_move_parse(); it must also be canonical), check
 * that seqs run 1..n and, for a finished game, that result, winner, reason and HOKITO scores are
 * what the final position says (a resignation or an abandoned game excepted); for a game not
 * finished, that the position is not over. Fills start and position. Returns 0 or STORE_ECORRUPT
 * with err naming the game, the seq and the move.
 */
int store_game_replay(const struct store_game *g, const struct store_event *ev, size_t nevents,
                      struct game *start, struct game *position, struct store_error *err);

/* Whether viewer held a seat in game g (by account, or a guest's seat by its player id). */
int store_game_seated(const struct store_viewer *viewer, const struct store_game *g);

/*
 * Where two stored games differ: the name of the first field of struct store_game whose values
 * are not the same ("status", "seat_account"...; every field is compared, serial, nevents and
 * ply included), or NULL when they are the same game as stored. A copy's check (hokitod migrate).
 */
const char *store_game_diff(const struct store_game *a, const struct store_game *b);

/* As store_game_diff() for two events: "seq", "time_ms", "type", "move", "body", or NULL. */
const char *store_event_diff(const struct store_event *a, const struct store_event *b);

/*
 * Whether g can be a stored game's row and ev[0..n) its events, as every backend's game_put()
 * takes them (store-port.h): an id, a serial, a kind and its variant, words that fit, a status
 * with a result exactly when finished, taken seats with an id and a name, accounts from -1, and
 * events numbered 1..n, each with a type and a body, a move exactly when "moved".
 */
int store_game_put_valid(const struct store_game *g, const struct store_event *ev, size_t n);

/* Whether r can be a ratings row, as every backend's rating_put() takes it: an account, a kind,
 * finite ratings with a positive deviation and volatility, counts from 0. */
int store_rating_put_valid(const struct store_rating *r);

#endif
