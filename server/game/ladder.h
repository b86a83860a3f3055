/*
 * ladder.h: the requests about the accounts' standing: profile (an account's ratings per game kind
 * and its last rated games) and leaderboard (a kind's accounts and bots with a non-provisional
 * rating, best first, paged by key). Handlers of the request table (handlers.c).
 *
 * What the game layer keeps in memory (the account, its ratings: rating.h) is answered from
 * there; what grows with the store (the last games, the ordered board) is read off the loop's
 * thread as an archive read (archive.h: ARCHIVE_READ_PROFILE, ARCHIVE_READ_LEADERBOARD), whose
 * answer comes back to ladder_reply() through handlers_read_done().
 */
#ifndef HOKITO_SERVER_LADDER_H
#define HOKITO_SERVER_LADDER_H

#include "archive.h"
#include "lobby.h"

/* profile: an account's player object, since when, its ratings and its last rated games. */
void ladder_profile(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* leaderboard: a page of a kind's rated accounts and bots, best first. */
void ladder_leaderboard(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/*
 * The profile of account a (borrowed) with its last rated games (rated[0..n), borrowed, may be
 * none), without an id: for the profile request, and the HTTP read API. Returns a new reference.
 */
json_t *ladder_profile_new(const struct lobby *lb, const struct account *a,
                           const struct store_rated_game *rated, int n);

/* The leaderboard page that read r (borrowed) answered, without an id. Returns a new reference. */
json_t *ladder_board_new(const struct archive_read *r);

/* The open account called name (matched as accounts are, without regard to case), or NULL. */
const struct account *ladder_account_find(const struct lobby *lb, const char *name);

/* Whether read r is one of this room's (its answer goes to ladder_reply()). */
int ladder_read_is(const struct archive_read *r);

/* The answer r (borrowed) to peer's request m (borrowed), which asked for it. */
void ladder_reply(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                  const struct archive_read *r);

#endif
