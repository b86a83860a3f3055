/*
 * web-api.h: the public read API of the HTTP side: GET /api/games (a page of the finished games,
 * JSON: the protocol's history_page; ?player=NAME: an account's games only), GET /api/game/ID
 * (the game record, FORMATS.md, text/plain), GET /api/game/ID.json (the game's stored events: a
 * JSON array of the protocol's event lines, each byte for byte as it was sent), GET
 * /api/user/NAME (an account's profile) and GET /api/leaderboard/KIND (a page of a kind's
 * leaderboard), both JSON as the protocol's replies; and GET /api/stream/game/ID (ndjson: the
 * game's state, or with ?since=SEQ its events after SEQ, then each event as it comes, a newline
 * every 6 s while it is quiet, closed after game_over), for a game the server holds in memory.
 * All but the stream are read from the store off the loop (http_defer(): the node's reader,
 * reader.h, fair per address), limited per address with every HTTP request
 * (--max-http-rate-per-addr), and open to pages of any origin (Access-Control-Allow-Origin: *):
 * they hold only what is public (private games are never in them).
 */
#ifndef HOKITO_SERVER_WEB_API_H
#define HOKITO_SERVER_WEB_API_H

#include "archive.h"
#include "http.h"
#include "lobby.h"

#define WEB_API_LIMIT     20  /* games in a page of /api/games unless ?limit= */
#define WEB_API_LIMIT_MAX 100 /* at most */

/* The routes (http.h's http_get_fn). */
void web_api_games_get(struct http *h, const struct http_request *rq, struct http_reply *out);
void web_api_game_get(struct http *h, const struct http_request *rq, struct http_reply *out);
void web_api_user_get(struct http *h, const struct http_request *rq, struct http_reply *out);
void web_api_board_get(struct http *h, const struct http_request *rq, struct http_reply *out);
void web_api_stream_get(struct http *h, const struct http_request *rq, struct http_reply *out);

/*
 * Fill out with the answer of read r (borrowed), from the game layer's lb (borrowed: the players'
 * kinds, the accounts and their ratings). Called on the loop's thread.
 */
void web_api_answer(const struct lobby *lb, const struct archive_read *r, struct http_reply *out);

#endif
