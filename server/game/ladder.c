/*
 * ladder.c: profile and leaderboard (ladder.h). A profile's account, ratings and counts come
 * from memory (accounts.h, rating.h); its last rated games, and every leaderboard page, from
 * the store's read port off the loop (archive_read_run()), in the order the store keeps by key.
 * Outside a game an account's player object (7.1) has the id "a" and its account number, since
 * no session is concerned. It owns nothing but the reads it makes; it never changes a table.
 * Part of the game layer: no libuv here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games.h"
#include "ladder.h"
#include "log.h"
#include "names.h"
#include "rating.h"
#include "xmalloc.h"

/* The player object of account a outside a game, with the rating shown (may be NULL). */
static json_t *
account_player_new(const struct account *a, const char *rating)
{
	char id[24];
	struct event_player p = {id, a->row.name, 0,
	                         accounts_is_bot(a) ? EVENT_PLAYER_BOT : EVENT_PLAYER_ACCOUNT,
	                         rating};

	snprintf(id, sizeof id, "a%" PRId64, a->row.id);
	return event_player_encode(&p);
}

/* The account profile m asks for: by name (closed ones are none), or the asker's own. */
static const struct account *
profile_account(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	const struct account *a;
	int64_t own = peer->session->account;

	if (m->name == NULL) {
		if (own == 0)
			lobby_refuse(lb, peer, m, PROTO_ENOTLOGGEDIN,
			             "a guest has no profile: name an account");
		return own != 0 ? accounts_find_id(&lb->accounts, own) : NULL;
	}
	a = ladder_account_find(lb, m->name);
	if (a == NULL) {
		lobby_refuse(lb, peer, m, PROTO_ENOSUCHACCOUNT, "no account is called '%.40s'",
		             m->name);
		return NULL;
	}
	return a;
}

json_t *
ladder_profile_new(const struct lobby *lb, const struct account *a,
                   const struct store_rated_game *rated, int n)
{
	json_t *o = msg_new(MSG_PROFILE, NULL), *ratings = json_object(), *recent = json_array();

	for (int k = 0; k < game_class_count; k++) {
		const struct store_rating *r =
		        rating_book_find(&lb->ratings, a->row.id, (enum game_kind)k);
		struct glicko g;
		char shown[GLICKO_DISPLAY_MAX];

		if (r == NULL)
			continue;
		g = (struct glicko){r->rating, r->rd, r->vol};
		rating_book_display(&lb->ratings, a->row.id, (enum game_kind)k, shown,
		                    sizeof shown);
		json_object_set_new(ratings, game_kind_name((enum game_kind)k),
		                    json_pack("{s:f,s:f,s:f,s:s,s:b,s:I,s:I,s:I,s:I,s:f}", "rating",
		                              r->rating, "rd", r->rd, "vol", r->vol, "display",
		                              shown, "provisional", glicko_provisional(&g), "games",
		                              (json_int_t)r->games, "wins", (json_int_t)r->wins,
		                              "draws", (json_int_t)r->draws, "losses",
		                              (json_int_t)r->losses, "best", r->best));
	}
	for (int i = 0; i < n; i++) {
		const struct store_rated_game *rg = &rated[i];
		json_t *e = archive_entry_new(&lb->accounts, &rg->game),
		       *players = json_object_get(e, "players");

		json_object_set_new(e, "rated", json_true());
		/* each seat's rating before the game (its kind is the entry's, from the seat's
		 * account) */
		for (int s = 0; s < rg->nchanges; s++) {
			const struct store_rating_change *c = &rg->changes[s];
			json_t *p =
			        json_object_get(players, game_side_name(rg->game.kind, c->seat));
			struct glicko before = {c->before[0], c->before[1], c->before[2]};
			char shown[GLICKO_DISPLAY_MAX];

			if (!json_is_object(p) || glicko_display(&before, shown, sizeof shown) < 0)
				continue;
			json_object_set_new(p, "rating", json_string(shown));
		}
		json_array_append_new(recent, e);
	}
	json_object_set_new(o, "player", account_player_new(a, NULL));
	json_object_set_new(o, "created_ms", json_integer(a->row.created_ms));
	if (a->row.banned_ms != 0)
		json_object_set_new(o, "banned", json_true());
	json_object_set_new(o, "ratings", ratings);
	json_object_set_new(o, "recent", recent);
	return o;
}

/* The profile of account a with its last rated games (rated[0..n), may be none), to peer. */
static void
profile_send(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
             const struct account *a, const struct store_rated_game *rated, int n)
{
	json_t *o = ladder_profile_new(lb, a, rated, n);

	if (m->id != NULL)
		json_object_set_new(o, "id", json_deep_copy(m->id));
	/* the account's ratings and row are memory's: one whose change is not stored yet is shown
	 * once it is (PROTOCOL.md 12.3) */
	if (lb->store_down != NULL && lb->ops.account_waits != NULL &&
	    lb->ops.account_waits(lb->ops.arg, a->row.id))
		lobby_hold(lb, peer);
	lobby_send(lb, peer, o);
}

const struct account *
ladder_account_find(const struct lobby *lb, const char *name)
{
	char key[STORE_ACCOUNT_NAME_MAX];
	const struct account *a;

	a = names_account_key(name, key, sizeof key) < 0 ? NULL : accounts_find(&lb->accounts, key);
	return a != NULL && a->row.closed_ms == 0 ? a : NULL;
}

void
ladder_profile(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	const struct account *a = profile_account(lb, peer, m);
	struct archive_read *r;

	if (a == NULL)
		return;
	if (lb->ops.read == NULL) { /* no store: no games kept */
		profile_send(lb, peer, m, a, NULL, 0);
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->kind = ARCHIVE_READ_PROFILE;
	r->account = a->row.id;
	archive_read_start(lb, peer, m, r);
}

/* An empty leaderboard page (no store). */
static void
board_send(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, json_t *entries,
           const char *next)
{
	json_t *o = msg_new(MSG_LEADERBOARD, NULL);

	json_object_set_new(o, "kind", json_string(game_kind_name(m->kind)));
	if (m->provisional)
		json_object_set_new(o, "provisional", json_true());
	json_object_set_new(o, "entries", entries);
	if (next != NULL)
		json_object_set_new(o, "next", json_string(next));
	if (m->id != NULL)
		json_object_set_new(o, "id", json_deep_copy(m->id));
	lobby_send(lb, peer, o);
}

void
ladder_leaderboard(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct archive_read *r;
	struct store_board_cursor after;

	if (m->after != NULL && store_board_cursor_parse(m->after, &after) < 0) {
		lobby_send(lb, peer,
		           msg_error_new(PROTO_EBADVALUE, m->type, "after",
		                         "after is the next of a leaderboard page", m->id));
		return;
	}
	if (lb->ops.read == NULL) {
		board_send(lb, peer, m, json_array(), NULL);
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->kind = ARCHIVE_READ_LEADERBOARD;
	r->board.kind = m->kind;
	r->board.provisional = m->provisional;
	r->board.limit = (size_t)m->limit;
	r->board.min_games = lb->cfg.board_min_games;
	r->board.min_opponents = lb->cfg.board_min_opponents;
	if (m->after != NULL) {
		r->board.has_after = 1;
		r->board.after = after;
	}
	archive_read_start(lb, peer, m, r);
}

json_t *
ladder_board_new(const struct archive_read *r)
{
	char next[STORE_BOARD_CURSOR_TEXT];
	json_t *entries = json_array(), *o = msg_new(MSG_LEADERBOARD, NULL);

	for (int i = 0; i < r->rc; i++) {
		const struct store_board_entry *e = &r->entries[i];
		struct glicko g = {e->rating, e->rd, GLICKO_VOL_NEW};
		struct account a = {.row = {.id = e->account}};
		char shown[GLICKO_DISPLAY_MAX];

		snprintf(a.row.name, sizeof a.row.name, "%s", e->name);
		snprintf(a.row.kind, sizeof a.row.kind, "%s", e->bot ? "bot" : "account");
		if (glicko_display(&g, shown, sizeof shown) < 0)
			continue;
		json_t *entry =
		        json_pack("{s:I,s:o,s:f,s:f,s:s,s:I,s:I}", "rank", (json_int_t)e->rank,
		                  "player", account_player_new(&a, shown), "rating", e->rating,
		                  "rd", e->rd, "display", shown, "games", (json_int_t)e->games,
		                  "opponents", (json_int_t)e->opponents);

		if (r->board.provisional) /* its place among the provisional, not on the board */
			json_object_set_new(entry, "provisional", json_true());
		json_array_append_new(entries, entry);
	}
	if (r->more && r->rc > 0) {
		const struct store_board_entry *last = &r->entries[r->rc - 1];
		struct store_board_cursor c = {last->rating, last->account, last->rank};

		store_board_cursor_format(&c, next, sizeof next);
	}
	json_object_set_new(o, "kind", json_string(game_kind_name(r->board.kind)));
	if (r->board.provisional)
		json_object_set_new(o, "provisional", json_true());
	json_object_set_new(o, "entries", entries);
	if (r->more && r->rc > 0)
		json_object_set_new(o, "next", json_string(next));
	return o;
}

/* The answer to leaderboard request m. */
static void
board_reply(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
            const struct archive_read *r)
{
	json_t *o = ladder_board_new(r);

	if (m->id != NULL)
		json_object_set_new(o, "id", json_deep_copy(m->id));
	lobby_send(lb, peer, o);
}

int
ladder_read_is(const struct archive_read *r)
{
	return r->kind == ARCHIVE_READ_PROFILE || r->kind == ARCHIVE_READ_LEADERBOARD;
}

void
ladder_reply(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
             const struct archive_read *r)
{
	const struct account *a;

	if (r->rc < 0) {
		log_error("store: %s", r->err.text);
		lobby_refuse(lb, peer, m, PROTO_EINTERNAL, "the %s could not be read",
		             msg_type_name(m->type));
		return;
	}
	if (r->kind == ARCHIVE_READ_LEADERBOARD) {
		board_reply(lb, peer, m, r);
		return;
	}
	a = accounts_find_id(&lb->accounts, r->account);
	if (a == NULL || a->row.closed_ms != 0) { /* closed while the store was read */
		lobby_refuse(lb, peer, m, PROTO_ENOSUCHACCOUNT, "that account is closed");
		return;
	}
	profile_send(lb, peer, m, a, r->rated, r->rc);
}
