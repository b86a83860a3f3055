/*
 * match.h: match management (match.c): create, join, quick, watch, leave, rematch and
 * rematch_decline. Handlers of the request table (handlers.c), each called with a peer that said
 * hello; m is borrowed.
 */
#ifndef HOKITO_SERVER_MATCH_H
#define HOKITO_SERVER_MATCH_H

#include "lobby.h"

/* create: a new game, the requester seated (against the computer: started at once). */
void match_create(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* join: the open seat of a game (by id or invite code), or one's kept seat of an adjourned one. */
void match_join(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* quick: join the first matching open game, or create one. */
void match_quick(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* watch: become a spectator of a game. */
void match_watch(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* leave: go away from the game one is at (not a live game one is seated in). */
void match_leave(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* rematch and rematch_decline, after a game is over. */
void match_rematch(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

#endif
