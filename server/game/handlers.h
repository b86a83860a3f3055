/*
 * handlers.h: the game layer's door for requests (handlers.c): one validated request of a peer at
 * a time, dispatched through a table of handlers.
 */
#ifndef HOKITO_SERVER_HANDLERS_H
#define HOKITO_SERVER_HANDLERS_H

#include "lobby.h"

struct auth_job;

/*
 * Handle one validated request (msg_decode() returned 0) from peer: the reply, the events it
 * causes, then the lobby's upkeep (deadlines, pruning, the next wake-up). m is borrowed.
 */
void handlers_dispatch(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/*
 * The answer to a store read (ops->read) is here: reply to the connection that asked, if it is
 * still there, then let its next requests come (ops->pause). Steals r.
 */
void handlers_read_done(struct lobby *lb, struct archive_read *r);

/*
 * A password job (ops->hash) is back: answer the connection that asked, if it is still there,
 * then let its next requests come, as handlers_read_done(). Steals j.
 */
void handlers_auth_done(struct lobby *lb, struct auth_job *j);

#endif
