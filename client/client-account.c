/*
 * client-account.c: what the server says of accounts and ratings, read into struct client.
 *
 * The player objects' kind and rating (PROTOCOL.md 7.1), the history entries (7.6) that history
 * pages and profiles both carry, a profile and a leaderboard page: each is read member by member
 * as far as it goes (a server of an older version sends no kind and no rating, and its players
 * show as they always did), into the plain fields the views show. It owns nothing and calls no
 * module above the state: client-msg.c hands it the replies.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "client.h"
#include "event-state.h"
#include "event.h"

/* A string member of a JSON object, or def. */
static const char *
jstr(const json_t *obj, const char *key, const char *def)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s != NULL ? s : def;
}

/* A number member (integer or real), or def. */
static double
jnum(const json_t *obj, const char *key, double def)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : def;
}

/* A count member, kept within 0 .. INT32_MAX. */
static int64_t
jcount(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);
	json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;

	return n < 0 ? 0 : n > INT32_MAX ? INT32_MAX : (int64_t)n;
}

void
client_account_player(const json_t *p, enum client_who *who, char *rating, size_t size)
{
	const char *r = jstr(p, "rating", "");

	*who = client_state_who_parse(jstr(p, "kind", NULL));
	if (json_integer_value(json_object_get(p, "computer")) > 0)
		*who = CLIENT_WHO_COMPUTER;
	/* a rating is short: digits and a "?"; anything else from a broken server is not shown */
	if (strlen(r) >= size || strspn(r, "0123456789?-") != strlen(r))
		r = "";
	snprintf(rating, size, "%s", r);
}

void
client_account_history_entry(const json_t *g, struct client_history_entry *e)
{
	const json_t *players = json_object_get(g, "players");
	char names[2][CLIENT_NAME_MAX + 24];
	const char *reason = "?";
	enum game_kind kind = GAME_HOKITO;
	struct event_outcome out;
	struct msg_error err;
	char outcome[64] = "?";
	int ply;

	game_kind_parse(jstr(g, "kind", "hokito"), &kind);
	for (int k = 0; k < 2; k++) {
		const json_t *p = json_object_get(players, game_side_name(kind, k));
		enum client_who who;
		char rating[CLIENT_RATING_MAX];
		client_account_player(p, &who, rating, sizeof rating);
		client_state_player_text(jstr(p, "name", "-"), who, rating, names[k],
		                         sizeof names[k]);
	}
	if (event_outcome_decode(json_object_get(g, "result"), kind, &out, &err) == 0) {
		if (out.winner >= 0)
			snprintf(outcome, sizeof outcome, "%s wins",
			         game_side_name(kind, out.winner));
		else
			snprintf(outcome, sizeof outcome, "%s", event_result_name(out.result));
		reason = event_reason_name(out.reason);
	}
	snprintf(e->id, sizeof e->id, "%s", jstr(g, "game", "?"));
	ply = (int)jcount(g, "ply");
	snprintf(e->line, sizeof e->line, "%s%s %s vs %s: %s (%s), %d move%s", game_kind_name(kind),
	         json_is_true(json_object_get(g, "rated")) ? " rated" : "", names[0], names[1],
	         outcome, reason, ply, ply == 1 ? "" : "s");
}

void
client_account_profile(struct client *c, const json_t *root)
{
	struct client_profile *pr = &c->profile;
	const json_t *player = json_object_get(root, "player");
	const json_t *ratings = json_object_get(root, "ratings");
	const json_t *recent = json_object_get(root, "recent");
	char rating[CLIENT_RATING_MAX];

	memset(pr, 0, sizeof *pr);
	snprintf(pr->name, sizeof pr->name, "%s", jstr(player, "name", "?"));
	client_account_player(player, &pr->who, rating, sizeof rating);
	pr->banned = json_is_true(json_object_get(root, "banned")) ||
	             json_is_true(json_object_get(player, "banned"));
	pr->created_ms = (int64_t)jnum(root, "created_ms", 0);
	for (int k = 0; k < game_class_count && k < GAME_KINDS_MAX; k++) {
		const char *name = game_kind_name((enum game_kind)k);
		const json_t *r = name != NULL ? json_object_get(ratings, name) : NULL;
		struct client_profile_rating *pk = &pr->kind[k];
		if (!json_is_object(r))
			continue;
		pk->has = 1;
		pk->rating = jnum(r, "rating", 0);
		pk->rd = jnum(r, "rd", 0);
		pk->vol = jnum(r, "vol", 0);
		pk->best = jnum(r, "best", pk->rating);
		snprintf(pk->shown, sizeof pk->shown, "%s", jstr(r, "display", "?"));
		pk->games = jcount(r, "games");
		pk->wins = jcount(r, "wins");
		pk->draws = jcount(r, "draws");
		pk->losses = jcount(r, "losses");
	}
	for (size_t i = 0; i < json_array_size(recent) && pr->nrecent < CLIENT_PROFILE_RECENT; i++)
		client_account_history_entry(json_array_get(recent, i), &pr->recent[pr->nrecent++]);
	c->profile_stamp++;
}

void
client_account_ladder(struct client *c, const json_t *root)
{
	struct client_ladder *l = &c->ladder;
	const json_t *entries = json_object_get(root, "entries");
	int prov = l->asking_prov, cap = prov ? CLIENT_LADDER_PROVISIONAL : CLIENT_LADDER_MAX;
	struct client_ladder_row *rows = prov ? l->prov : l->rows;
	int *n = prov ? &l->nprov : &l->nrows;

	l->asking_prov = 0;
	*n = 0;
	if (prov && !json_is_true(json_object_get(root, "provisional")))
		entries = NULL; /* a server that keeps them to itself */
	if (!prov && game_kind_parse(jstr(root, "kind", "hokito"), &l->kind) < 0)
		l->kind = GAME_HOKITO;
	if (prov)
		l->prov_more = entries != NULL && json_is_string(json_object_get(root, "next"));
	else
		snprintf(l->next, sizeof l->next, "%s", jstr(root, "next", ""));
	for (size_t i = 0; i < json_array_size(entries) && *n < cap; i++) {
		const json_t *e = json_array_get(entries, i);
		const json_t *p = json_object_get(e, "player");
		struct client_ladder_row *row = &rows[(*n)++];
		char who_text[CLIENT_NAME_MAX + 24], rating[CLIENT_RATING_MAX];
		enum client_who who;
		int64_t games = jcount(e, "games");

		row->rank = prov ? 0 : jcount(e, "rank");
		snprintf(row->name, sizeof row->name, "%s", jstr(p, "name", "?"));
		client_account_player(p, &who, rating, sizeof rating);
		/* the rating goes in a column of its own: the name with its mark only */
		client_state_player_text(row->name, who, "", who_text, sizeof who_text);
		snprintf(row->line, sizeof row->line, "%-28.80s %6s  rd %3.0f  %lld game%s",
		         who_text, jstr(e, "display", "?"), jnum(e, "rd", 0), (long long)games,
		         games == 1 ? "" : "s");
	}
	if (!prov) {
		/* below the last page, the players not ranked yet: the page is whole with them */
		l->nprov = 0;
		l->prov_more = 0;
		if (l->next[0] == '\0' && client_request_leaderboard(c, l->kind, NULL, 1) == 0) {
			l->asking_prov = 1;
			return;
		}
	}
	c->ladder_stamp++;
}
