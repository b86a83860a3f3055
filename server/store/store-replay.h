/*
 * store-replay.h: a stored game replayed through the rules, and its text record, the same for
 * every backend (store-replay.c).
 */
#ifndef HOKITO_SERVER_STORE_REPLAY_H
#define HOKITO_SERVER_STORE_REPLAY_H

#include <stddef.h>

#include "game.h"
#include "record.h"
#include "store-port.h"

/* How a stored end reads as a record's result (record.h). */
enum record_result store_record_result(const struct store_game *g);

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

/*
 * The text game record (common/record.h, FORMATS.md "Game records") of game g and its events
 * ev[0..nev) (borrowed; only the moves are read), NUL-terminated into buf; changes (NULL, or
 * both seats' by seat) give a rated game's rating headers. The Date is the UTC date of its
 * creation. Reads nothing. Returns the length, or STORE_ENOSPC or STORE_ECORRUPT.
 */
int store_record_format(const struct store_game *g, const struct store_event *ev, size_t nev,
                        const struct store_rating_change *changes, char *buf, size_t size,
                        struct store_error *err);

#endif
