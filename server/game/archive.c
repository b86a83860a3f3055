/*
 * archive.c: the requests that read the store's archive of games: history (a page of finished
 * games: the public ones and the asker's own private ones, perhaps of one player) and record (the
 * text game record of one game, FORMATS.md; of a game that never started, from the lobby's table).
 *
 * The store is read off the loop's thread: a request becomes a struct archive_read handed to
 * ops->read, and its asker is held (lobby_wait_add(): its later requests wait unread) until the
 * answer comes back through handlers_read_done(), which replies with archive_reply(). The reads
 * themselves (archive_read_run()) run on whatever thread runs them, on a read port
 * (store-port.h), and touch nothing but the read. It owns nothing but the reads it makes; the
 * replies go out through the lobby's send helpers. It never changes a table. Part of the game
 * layer: no libuv here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "event.h"
#include "log.h"
#include "names.h"
#include "record.h"
#include "store-port.h"
#include "xmalloc.h"

/*
 * The handlers below came from lobby.c (then rewritten to read off the loop); these names are the
 * lobby's helpers they call.
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

/*
 * The kind of the player at seat i of stored game g (PROTOCOL.md 7.1): an account's or a bot's
 * by the seat's account (0, a seat stored before seats kept their account: by the account of that
 * name, if any), the computer by the name the server gives it (guests cannot take such a name),
 * else a guest's.
 */
static enum event_player_kind
entry_player_kind(const struct accounts *as, const struct store_game *g, int i)
{
	const struct account *a = NULL;
	char key[NAMES_KEY_MAX];
	int level;
	char end;

	if (g->seat_account[i] > 0)
		a = accounts_find_id(as, g->seat_account[i]);
	else if (g->seat_account[i] == 0 &&
	         names_account_key(g->seat_name[i], key, sizeof key) == 0)
		a = accounts_find(as, key);
	if (a != NULL)
		return accounts_is_bot(a) ? EVENT_PLAYER_BOT : EVENT_PLAYER_ACCOUNT;
	if (g->seat_account[i] > 0)
		return EVENT_PLAYER_ACCOUNT;
	if (sscanf(g->seat_name[i], "computer (level %d%c", &level, &end) == 2 && end == ')')
		return EVENT_PLAYER_COMPUTER;
	return EVENT_PLAYER_GUEST;
}

json_t *
archive_entry_new(const struct accounts *as, const struct store_game *g)
{
	json_t *o = json_object(), *players = json_object();

	json_object_set_new(o, "game", json_string(g->id));
	json_object_set_new(o, "kind", json_string(game_kind_name(g->kind)));
	json_object_set_new(o, "variant", json_string(g->variant));
	json_object_set_new(o, "rated", json_boolean(g->rated && g->unrated[0] == '\0'));
	if (g->rated && g->unrated[0] != '\0')
		json_object_set_new(o, "unrated", json_string(g->unrated));
	for (int i = 0; i < 2; i++) {
		struct event_player p = {g->seat_id[i], g->seat_name[i], 0,
		                         entry_player_kind(as, g, i), NULL};

		json_object_set_new(players, game_side_name(g->kind, i),
		                    g->seat_taken[i] ? event_player_encode(&p) : json_null());
	}
	json_object_set_new(o, "players", players);
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

void
archive_read_run(const struct store_read_port *port, struct archive_read *r)
{
	switch (r->kind) {
	case ARCHIVE_READ_HISTORY:
		r->games = xmalloc((r->query.limit > 0 ? r->query.limit : 1) * sizeof *r->games);
		r->rc = port->history(port->impl, &r->query, r->games, &r->page, &r->err);
		break;
	case ARCHIVE_READ_RECORD:
		r->text = xmalloc(RECORD_TEXT_MAX);
		r->rc = port->record(port->impl, r->game_id, r->public_only ? &r->viewer : NULL,
		                     r->text, RECORD_TEXT_MAX, &r->err);
		break;
	case ARCHIVE_READ_PROFILE:
		r->rated = xmalloc(ARCHIVE_RECENT * sizeof *r->rated);
		r->rc = port->rated_games(port->impl, r->account, ARCHIVE_RECENT, r->rated,
		                          &r->err);
		break;
	case ARCHIVE_READ_LEADERBOARD:
		r->entries =
		        xmalloc((r->board.limit > 0 ? r->board.limit : 1) * sizeof *r->entries);
		r->rc = port->leaderboard(port->impl, &r->board, r->entries, &r->more, &r->err);
		break;
	case ARCHIVE_READ_EVENTS:
		r->rc = port->events(port->impl, r->game_id, r->public_only ? &r->viewer : NULL,
		                     &r->events, &r->nevents, &r->err);
		break;
	case ARCHIVE_READ_UNUSED:
		r->rc = port->accounts_unused(port->impl, r->unused_after, r->unused_before,
		                              r->unused_scan, r->unused, ARCHIVE_UNUSED_MAX,
		                              &r->unused_next, &r->err);
		break;
	}
}

void
archive_read_free(struct archive_read *r)
{
	if (r == NULL)
		return;
	free(r->games);
	free(r->text);
	free(r->rated);
	free(r->entries);
	store_events_free(r->events, r->nevents);
	free(r);
}

void
archive_read_start(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                   struct archive_read *r)
{
	snprintf(r->addr, sizeof r->addr, "%s", peer->addr);
	r->ticket = lobby_wait_add(lb, peer, m);
	if (lb->ops.read(lb->ops.arg, r) == 0)
		return;
	lobby_wait_drop(lb, peer->wait); /* just added: nothing waits behind it yet */
	if (lb->ops.pause != NULL)
		lb->ops.pause(lb->ops.arg, peer, 0); /* its next requests come as before */
	archive_read_free(r);
	lb->reads_refused++;
	lb->refusals[LOBBY_LIMIT_READS]++;
	snprintf(lb->reads_refused_addr, sizeof lb->reads_refused_addr, "%s", peer->addr);
	refuse(lb, peer, m, PROTO_ETOOMANYREADS,
	       "your address has %u reads of the store under way; ask again once one is answered",
	       lb->cfg.reads_per_addr);
}

/* A history page with no game (the server keeps none, or none the asker may see). */
static void
history_empty(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	json_t *o = msg_new(MSG_HISTORY_PAGE, NULL);

	json_object_set_new(o, "total", json_integer(0));
	json_object_set_new(o, "offset", json_integer(m->offset));
	json_object_set_new(o, "games", json_array());
	if (m->id != NULL)
		json_object_set_new(o, "id", json_deep_copy(m->id));
	send_msg(lb, peer, o);
}

/*
 * Whose games history request m asks for, into q: the asker (s: its account, or a guest's player
 * id, whose own private games are listed too), and with `player` the one player: an account by its
 * name, whatever its case, or the asker by its own name (a guest's own games, by its player id).
 * Returns 0, or -1 when `player` names nobody whose games the asker may see.
 */
static int
history_whose(struct lobby *lb, const struct session *s, const struct msg *m,
              struct store_history_query *q)
{
	char key[NAMES_ACCOUNT_MAX + 1];
	const struct account *a;

	if (s != NULL && s->account > 0)
		q->own_account = s->account;
	else if (s != NULL)
		snprintf(q->own_id, sizeof q->own_id, "%s", s->id);
	if (m->player == NULL)
		return 0;
	q->by_player = 1;
	if (names_account_key(m->player, key, sizeof key) >= 0 &&
	    (a = accounts_find(&lb->accounts, key)) != NULL) {
		q->player_account = a->row.id;
		return 0;
	}
	if (s != NULL && s->account <= 0 && strcmp(m->player, s->name) == 0) {
		snprintf(q->player_id, sizeof q->player_id, "%s", s->id);
		return 0;
	}
	return -1;
}

/* history: a page of finished games from the store, most recent first: the public ones and the
 * asker's own private ones, perhaps of one player only. */
static void
handle_history(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct archive_read *r;

	if ((uint64_t)m->offset > lb->cfg.max_history_offset) {
		char text[128];

		lb->refusals[LOBBY_LIMIT_HISTORY_OFFSET]++;
		snprintf(text, sizeof text,
		         "offset at most %u: page deeper with after (the next of the page before)",
		         lb->cfg.max_history_offset);
		send_msg(lb, peer, msg_error_new(PROTO_EBADVALUE, m->type, "offset", text, m->id));
		return;
	}
	if (lb->ops.read == NULL) { /* no store: nothing finished is kept */
		history_empty(lb, peer, m);
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->kind = ARCHIVE_READ_HISTORY;
	r->query.limit = (size_t)m->limit;
	r->query.offset = m->offset;
	if (history_whose(lb, peer->session, m, &r->query) < 0) {
		archive_read_free(r);
		history_empty(lb, peer, m);
		return;
	}
	if (m->after != NULL) {
		if (store_cursor_parse(m->after, &r->query.after) < 0) {
			archive_read_free(r);
			send_msg(lb, peer,
			         msg_error_new(PROTO_EBADVALUE, m->type, "after",
			                       "after is the next of a history_page", m->id));
			return;
		}
		r->query.has_after = 1;
	}
	archive_read_start(lb, peer, m, r);
}

/* The answer to history request m. */
static void
history_reply(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
              const struct archive_read *r)
{
	json_t *o, *games;

	if (r->rc < 0) {
		log_error("store: %s", r->err.text);
		refuse(lb, peer, m, PROTO_EINTERNAL, "the history could not be read");
		return;
	}
	o = msg_new(MSG_HISTORY_PAGE, NULL);
	games = json_array();
	for (int i = 0; i < r->rc; i++)
		json_array_append_new(games, archive_entry_new(&lb->accounts, &r->games[i]));
	json_object_set_new(o, "total", json_integer(r->page.total));
	json_object_set_new(o, "offset", json_integer(m->offset));
	json_object_set_new(o, "games", games);
	if (r->page.more) {
		char next[STORE_CURSOR_TEXT];

		store_cursor_format(&r->page.next, next, sizeof next);
		json_object_set_new(o, "next", json_string(next));
	}
	if (m->id != NULL)
		json_object_set_new(o, "id", json_deep_copy(m->id));
	send_msg(lb, peer, o);
}

/*
 * The record of t, a game that never started, into a new reply to m: the store keeps no such
 * game (durable.c deletes it at its end), and it has no move to read, so it is written from the
 * table while the lobby holds it. Returns a new reference, or NULL (logged).
 */
static json_t *
record_unplayed_new(const struct table *t, const struct msg *m)
{
	struct record *r = xcalloc(1, sizeof *r);
	struct record_error rerr;
	char *text = xmalloc(RECORD_TEXT_MAX);
	json_t *o = NULL;

	r->kind = t->kind;
	snprintf(r->variant, sizeof r->variant, "%s", t->variant);
	r->seed = t->seed;
	for (int i = 0; i < 2; i++)
		snprintf(r->player[i], sizeof r->player[i], "%s", t->seat_name[i]);
	r->result = RECORD_UNFINISHED;
	snprintf(r->reason, sizeof r->reason, "%s", event_reason_name(t->st.reason));
	if (record_write(r, text, RECORD_TEXT_MAX, &rerr) < 0) {
		log_error("record of %s: %s", t->id, rerr.text);
	} else {
		o = msg_new(MSG_GAME_RECORD, NULL);
		json_object_set_new(o, "game", json_string(t->id));
		json_object_set_new(o, "text", json_string(text));
		if (m->id != NULL)
			json_object_set_new(o, "id", json_deep_copy(m->id));
	}
	free(text);
	free(r);
	return o;
}

/*
 * record: the text game record (FORMATS.md) of any game the store holds, finished or not: a
 * public game by its id, a private one by its invite code while the server still holds it; and
 * of a game that never started while the lobby holds it.
 */
static void
handle_record(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct archive_read *r;
	struct table *held = m->code != NULL || m->game != NULL ? table_lookup(lb, m) : NULL;

	/* an end that waits for the store (12.3) is not shown: the store answers as it stands */
	if (held != NULL && event_state_unplayed(&held->st) && lobby_waiting_seq(lb, held) == 0) {
		json_t *o = record_unplayed_new(held, m);

		if (o != NULL)
			send_msg(lb, peer, o);
		else
			refuse(lb, peer, m, PROTO_EINTERNAL,
			       "the record of game %s could not be written", held->id);
		return;
	}
	if (m->code != NULL) {
		struct table *t = table_lookup(lb, m);

		if (t == NULL) {
			refuse(lb, peer, m, PROTO_ENOSUCHGAME, "no game with that invite code");
			return;
		}
		if (lb->ops.read == NULL) {
			refuse(lb, peer, m, PROTO_ENOSUCHGAME, "this server keeps no records");
			return;
		}
		r = xcalloc(1, sizeof *r);
		snprintf(r->game_id, sizeof r->game_id, "%s", t->id);
	} else {
		if (lb->ops.read == NULL || strlen(m->game) >= STORE_ID_MAX) {
			refuse(lb, peer, m, PROTO_ENOSUCHGAME, "no game with that id");
			return;
		}
		r = xcalloc(1, sizeof *r);
		snprintf(r->game_id, sizeof r->game_id, "%s", m->game);
		r->public_only = 1; /* a private game: by its invite code, or to its own players */
		if (peer->session != NULL && peer->session->account > 0)
			r->viewer.account = peer->session->account;
		else if (peer->session != NULL)
			snprintf(r->viewer.player_id, sizeof r->viewer.player_id, "%s",
			         peer->session->id);
	}
	r->kind = ARCHIVE_READ_RECORD;
	archive_read_start(lb, peer, m, r);
}

/* The answer to record request m. */
static void
record_reply(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
             const struct archive_read *r)
{
	json_t *o;

	if (r->rc < 0 && r->public_only && r->rc == STORE_ENOTFOUND) {
		refuse(lb, peer, m, PROTO_ENOSUCHGAME, "no game with that id");
		return;
	}
	if (r->rc < 0) {
		log_error("store: record of %s: %s", r->game_id, r->err.text);
		refuse(lb, peer, m, r->rc == STORE_ENOTFOUND ? PROTO_ENOSUCHGAME : PROTO_EINTERNAL,
		       "the record of game %s could not be written", r->game_id);
		return;
	}
	o = msg_new(MSG_GAME_RECORD, NULL);
	json_object_set_new(o, "game", json_string(r->game_id));
	json_object_set_new(o, "text", json_string(r->text));
	if (m->id != NULL)
		json_object_set_new(o, "id", json_deep_copy(m->id));
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

void
archive_reply(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
              const struct archive_read *r)
{
	switch (r->kind) {
	case ARCHIVE_READ_HISTORY:
		history_reply(lb, peer, m, r);
		break;
	case ARCHIVE_READ_RECORD:
		record_reply(lb, peer, m, r);
		break;
	case ARCHIVE_READ_PROFILE:
	case ARCHIVE_READ_LEADERBOARD:
		break; /* ladder_reply()'s (handlers_read_done()) */
	case ARCHIVE_READ_EVENTS:
		break; /* asked by the HTTP side only (web_api_answer()) */
	case ARCHIVE_READ_UNUSED:
		break; /* asked by the node's housekeeping only (node.c) */
	}
}
