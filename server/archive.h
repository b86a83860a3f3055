/*
 * archive.h: the requests answered from the store's archive of games: history and record
 * (archive.c). Handlers of the request table (handlers.c).
 */
#ifndef HOKITO_SERVER_ARCHIVE_H
#define HOKITO_SERVER_ARCHIVE_H

#include "lobby.h"

/* history: a page of finished public games from the store, most recent first (PROTOCOL.md 7.6). */
void archive_history(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* record: the text game record of a game the store holds (FORMATS.md). */
void archive_record(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

#endif
