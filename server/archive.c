/*
 * archive.c: the requests that read the store's archive of games: history (a page of finished
 * public games) and record (the text game record of one game, FORMATS.md).
 *
 * It owns nothing: the store is the lobby's (cfg.store, borrowed), and the replies go out through
 * the lobby's send helpers. It never changes the lobby or a table. Part of the game layer: no
 * libuv here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "event.h"
#include "log.h"
#include "record.h"
#include "store.h"
#include "xmalloc.h"

/*
 * The handlers below were moved here from lobby.c with their bodies unchanged; these names are
 * the lobby's helpers they call.
 */
#define send_msg     lobby_send
#define refuse       lobby_refuse
#define table_lookup lobby_table_lookup

/*
 * The result object (PROTOCOL.md 7.3) of a stored finished game, read back from its row's words
 * (event_result_parse() ...) and written by the codec of every result object. An aborted game
 * without a reason, as early servers stored one, reads as abandoned, as its record does
 * (store.c). Returns a new reference: null, logged, when the row's end is not one of ours.
 */
static json_t *
history_result_new(const struct store_game *g)
{
	struct event_outcome out = {.winner = -1,
	                            .scores = {.has = game_kind_has(g->kind, GAME_HAS_SCORES)}};

	if (event_result_parse(g->result, &out.result) < 0)
		goto bad;
	if (out.result == EVENT_RESULT_ABORTED && g->reason[0] == '\0')
		out.reason = EVENT_REASON_ABANDONED;
	else if (event_reason_parse(g->reason, &out.reason) < 0)
		goto bad;
	if (out.result == EVENT_RESULT_WIN)
		out.winner = g->winner;
	if (!event_reason_allows(out.reason, out.result) ||
	    (out.winner != -1 && out.winner != 0 && out.winner != 1))
		goto bad;
	out.scores.v[0] = g->score[0];
	out.scores.v[1] = g->score[1];
	return event_outcome_encode(g->kind, &out);
bad:
	log_warn("store: game %s ended with an unknown result '%s' (%s, winner %d)", g->id,
	         g->result, g->reason, g->winner);
	return json_null();
}

/* A history entry (PROTOCOL.md 7.6) of a stored game. Returns a new reference. */
static json_t *
history_entry_new(const struct store_game *g)
{
	json_t *o = json_object(), *players = json_object();

	json_object_set_new(o, "game", json_string(g->id));
	json_object_set_new(o, "kind", json_string(game_kind_name(g->kind)));
	json_object_set_new(o, "variant", json_string(g->variant));
	for (int i = 0; i < 2; i++)
		json_object_set_new(players, game_side_name(g->kind, i),
		                    g->seat_taken[i]
		                            ? msg_player_new(g->seat_id[i], g->seat_name[i])
		                            : json_null());
	json_object_set_new(o, "players", players);
	if (g->is_private)
		json_object_set_new(o, "private", json_true()); /* only its players see it */
	json_object_set_new(o, "ply", json_integer(g->ply));
	json_object_set_new(o, "result", history_result_new(g));
	json_object_set_new(o, "clock",
	                    g->clock[0] != '\0' && strcmp(g->clock, "none") != 0
	                            ? json_string(g->clock)
	                            : json_null());
	json_object_set_new(o, "created_ms", json_integer(g->created_ms));
	json_object_set_new(o, "ended_ms", json_integer(g->ended_ms));
	return o;
}

/*
 * history: a page of finished games from the store, most recent first: the public ones and the
 * private ones the asking player played in, never a game that never started.
 */
static void
handle_history(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	json_t *o = msg_new(MSG_HISTORY_PAGE, NULL), *games = json_array();
	struct store_game *page = xmalloc((size_t)m->limit * sizeof *page);
	struct store_error err;
	int64_t total = 0;
	int n = 0;

	if (lb->cfg.store != NULL &&
	    (n = store_history(lb->cfg.store, (size_t)m->offset, (size_t)m->limit,
	                       peer->session->id, page, &total, &err)) < 0) {
		log_error("store: %s", err.text);
		free(page);
		json_decref(games);
		json_decref(o);
		refuse(lb, peer, m, PROTO_EINTERNAL, "the history could not be read");
		return;
	}
	for (int i = 0; i < n; i++)
		json_array_append_new(games, history_entry_new(&page[i]));
	free(page);
	json_object_set_new(o, "total", json_integer(total));
	json_object_set_new(o, "offset", json_integer(m->offset));
	json_object_set_new(o, "games", games);
	if (m->id != NULL)
		json_object_set_new(o, "id", json_deep_copy(m->id));
	send_msg(lb, peer, o);
}

/*
 * record: the text game record (FORMATS.md) of any game the store holds, finished or not: a
 * public game by its id, a private one by its invite code while the server still holds it.
 */
static void
handle_record(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct store_event *ev = NULL;
	struct store_error err;
	struct store_game g;
	char id[STORE_ID_MAX], *text;
	size_t nev = 0;
	json_t *o;
	int rc;

	if (m->code != NULL) {
		struct table *t = table_lookup(lb, m);

		if (t == NULL) {
			refuse(lb, peer, m, PROTO_ENOSUCHGAME, "no game with that invite code");
			return;
		}
		snprintf(id, sizeof id, "%s", t->id);
		if (lb->cfg.store == NULL) {
			refuse(lb, peer, m, PROTO_ENOSUCHGAME, "this server keeps no records");
			return;
		}
		/* a failure to read it is a failure to write its record, below */
		rc = store_game_get(lb->cfg.store, id, &g, &ev, &nev, &err);
	} else {
		snprintf(id, sizeof id, "%.*s", STORE_ID_MAX - 1, m->game);
		rc = lb->cfg.store == NULL || strlen(m->game) >= sizeof id
		             ? STORE_ENOTFOUND
		             : store_game_get(lb->cfg.store, id, &g, &ev, &nev, &err);
		if (rc == 0 && g.is_private)
			rc = STORE_ENOTFOUND; /* reached only by its invite code */
		if (rc < 0) {
			store_events_free(ev, nev);
			if (rc != STORE_ENOTFOUND)
				log_error("store: %s", err.text);
			refuse(lb, peer, m,
			       rc == STORE_ENOTFOUND ? PROTO_ENOSUCHGAME : PROTO_EINTERNAL,
			       rc == STORE_ENOTFOUND ? "no game with that id"
			                             : "the game could not be read");
			return;
		}
	}
	text = xmalloc(RECORD_TEXT_MAX);
	if (rc == 0)
		rc = store_record_format(&g, ev, nev, text, RECORD_TEXT_MAX, &err);
	store_events_free(ev, nev);
	if (rc < 0) {
		log_error("store: record of %s: %s", id, err.text);
		free(text);
		refuse(lb, peer, m, rc == STORE_ENOTFOUND ? PROTO_ENOSUCHGAME : PROTO_EINTERNAL,
		       "the record of game %s could not be written", id);
		return;
	}
	o = msg_new(MSG_GAME_RECORD, NULL);
	json_object_set_new(o, "game", json_string(id));
	json_object_set_new(o, "text", json_string(text));
	if (m->id != NULL)
		json_object_set_new(o, "id", json_deep_copy(m->id));
	free(text);
	send_msg(lb, peer, o);
}

void
archive_history(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	handle_history(lb, peer, m);
}

void
archive_record(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	handle_record(lb, peer, m);
}
