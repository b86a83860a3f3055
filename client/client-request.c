/*
 * client-request.c: the requests a view may make of the server.
 *
 * Each client_request_* builds one protocol message with the builders of protocol/msg.h, gives
 * it a fresh integer "id", remembers it in the client's pending table (so the reply can be
 * matched: a join by id that the server does not know is retried as an invite code, a leave
 * that succeeded clears the table) and hands the encoded line to the network layer. Returns 0,
 * or UV_ENOTCONN while the connection is down, after telling the user. Nothing here decides
 * whether a move is legal: the views check moves with client_state_move_check() first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "client.h"
#include "protocol.h"

/* Record a pending request and send msg (stolen). */
static int
request_send(struct client *c, json_t *msg, enum msg_type type, const char *arg, int by_code,
             int id)
{
	struct client_pending *p;
	int rc;

	if (!client_net_up(c)) {
		json_decref(msg);
		client_notice(c, 1,
		              "Not connected to the server: wait for the connection to come "
		              "back.");
		return UV_ENOTCONN;
	}
	if (c->npending == CLIENT_PENDING_MAX) {
		/* The server answers in order: the oldest record is stale if we have so many. */
		memmove(&c->pending[0], &c->pending[1],
		        sizeof c->pending[0] * (CLIENT_PENDING_MAX - 1));
		c->npending--;
	}
	p = &c->pending[c->npending++];
	memset(p, 0, sizeof *p);
	p->id = id;
	p->type = type;
	p->by_code = by_code;
	snprintf(p->arg, sizeof p->arg, "%s", arg != NULL ? arg : "");
	rc = client_net_send(c, wire_encode_steal(msg));
	if (rc < 0)
		c->npending--;
	return rc;
}

/* A fresh request id as a JSON integer (a new reference). */
static json_t *
new_id(struct client *c, int *id)
{
	*id = ++c->next_request;
	return json_integer(*id);
}

int
client_request_done(struct client *c, int id, struct client_pending *out)
{
	for (int i = 0; i < c->npending; i++) {
		if (c->pending[i].id != id)
			continue;
		*out = c->pending[i];
		memmove(&c->pending[i], &c->pending[i + 1],
		        sizeof c->pending[0] * (size_t)(c->npending - i - 1));
		c->npending--;
		return 0;
	}
	return -1;
}

int
client_request_list(struct client *c)
{
	int id;
	json_t *jid = new_id(c, &id);
	json_t *msg = msg_new(MSG_LIST, jid);

	json_decref(jid);
	if (c->st.list_offset > 0) /* the page shown: a busy server's list has several */
		json_object_set_new(msg, "offset", json_integer(c->st.list_offset));
	return request_send(c, msg, MSG_LIST, NULL, 0, id);
}

int
client_request_history(struct client *c, const char *after, int64_t before, int64_t offset,
                       int limit, const char *player)
{
	int id;
	json_t *jid = new_id(c, &id);
	json_t *msg = msg_new(MSG_HISTORY, jid);

	json_decref(jid);
	if (after != NULL && after[0] != '\0')
		json_object_set_new(msg, "after", json_string(after));
	c->history_before = after != NULL && after[0] != '\0' ? before : 0;
	json_object_set_new(msg, "offset", json_integer(offset));
	json_object_set_new(msg, "limit", json_integer(limit));
	if (player != NULL && player[0] != '\0')
		json_object_set_new(msg, "player", json_string(player));
	snprintf(c->history_player, sizeof c->history_player, "%s", player != NULL ? player : "");
	return request_send(c, msg, MSG_HISTORY, NULL, 0, id);
}

/*
 * profile and leaderboard are built here member by member: their type is matched by its name
 * in the reply (client-msg.c), and the pending record is of no type of enum msg_type (arg
 * names the request).
 */
int
client_request_profile(struct client *c, const char *name)
{
	int id;
	json_t *msg = json_pack("{s:s}", "type", "profile");

	json_object_set_new(msg, "id", new_id(c, &id));
	if (name != NULL && name[0] != '\0')
		json_object_set_new(msg, "name", json_string(name));
	return request_send(c, msg, MSG_PROFILE, NULL, 0, id);
}

int
client_request_leaderboard(struct client *c, enum game_kind kind, const char *after)
{
	int id;
	json_t *msg = json_pack("{s:s,s:s,s:i}", "type", "leaderboard", "kind",
	                        game_kind_name(kind), "limit", CLIENT_LADDER_MAX);

	json_object_set_new(msg, "id", new_id(c, &id));
	if (after != NULL && after[0] != '\0')
		json_object_set_new(msg, "after", json_string(after));
	return request_send(c, msg, MSG_LEADERBOARD, NULL, 0, id);
}

int
client_request_login(struct client *c, const char *name, const char *password, int reg)
{
	char *pw = password != NULL ? strdup(password) : NULL;

	if (c->st.table.active && client_net_up(c)) {
		free(pw);
		client_notice(c, 1, "Leave the game first, then log in.");
		return -1;
	}
	snprintf(c->login_name, sizeof c->login_name, "%s", name);
	if (c->opt.password != NULL) /* wiped: it stays in memory no longer than it must */
		memset(c->opt.password, 0, strlen(c->opt.password));
	free(c->opt.password);
	c->opt.password = pw;
	c->opt.register_new = reg && pw != NULL;
	if (reg && pw != NULL && client_net_up(c) && !client_state_account(&c->st)) {
		/* a greeted guest registers on its own session (PROTOCOL.md 4.4) */
		int id;
		json_t *msg = json_pack("{s:s,s:s,s:s}", "type", "register", "name", name,
		                        "password", pw);
		json_object_set_new(msg, "id", new_id(c, &id));
		c->opt.register_new = 0;
		client_notice(c, 0, "Registering %s...", name);
		return request_send(c, msg, MSG_REGISTER, name, 0, id);
	}
	c->opt.name = c->login_name;
	client_notice(c, 0, "%s %s...",
	              pw == NULL ? "Going on as the guest"
	              : reg      ? "Registering"
	                         : "Logging in to",
	              name);
	client_net_login(c);
	return 0;
}

int
client_request_pending(const struct client *c, int type)
{
	for (int i = 0; i < c->npending; i++)
		if (c->pending[i].type == type)
			return 1;
	return 0;
}

int
client_request_record(struct client *c, const char *game)
{
	const struct client_table *t = &c->st.table;
	const char *code = NULL;
	int id;
	json_t *jid = new_id(c, &id);
	json_t *msg = msg_new(MSG_RECORD, jid);

	/* A private game is not reached by its id: the one we are at, by its invite code. */
	if (t->active && strcmp(t->id, game) == 0) {
		if (t->invite[0])
			code = t->invite;
		else if (t->seat < 0 && c->watch_by_code)
			code = c->watch_target;
	}
	json_decref(jid);
	json_object_set_new(msg, code != NULL ? "code" : "game",
	                    json_string(code != NULL ? code : game));
	return request_send(c, msg, MSG_RECORD, game, 0, id);
}

int
client_request_create(struct client *c, enum game_kind kind, const char *variant, int seat,
                      int private_game, const char *clock, int level, int rated)
{
	int id;
	json_t *jid = new_id(c, &id);
	json_t *msg =
	        msg_create_new(game_kind_name(kind), variant,
	                       seat < 0 ? "random" : game_side_name(kind, seat), private_game, jid);

	json_decref(jid);
	if (clock != NULL)
		json_object_set_new(msg, "clock", json_string(clock));
	if (level > 0) {
		json_object_set_new(msg, "opponent", json_string("computer"));
		json_object_set_new(msg, "level", json_integer(level));
	}
	if (rated)
		json_object_set_new(msg, "rated", json_true());
	client_notice(c, 0, "Creating the %s%s game%s...", rated ? "rated " : "",
	              game_kind_title(kind), level > 0 ? " against the computer" : "");
	return request_send(c, msg, MSG_CREATE, NULL, 0, id);
}

/* Whether a target looks like a game id ("g12") rather than an invite code. */
static int
looks_like_id(const char *target)
{
	if (target[0] != 'g' || target[1] == '\0')
		return 0;
	for (const char *p = target + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

/* Send the join or watch of target (a game id, or with by_code an invite code). */
static int
request_target_send(struct client *c, enum msg_type type, const char *target, int by_code)
{
	int id;
	json_t *jid, *msg;

	jid = new_id(c, &id);
	msg = type == MSG_JOIN
	              ? msg_join_new(by_code ? NULL : target, by_code ? target : NULL, jid)
	              : msg_watch_new(by_code ? NULL : target, by_code ? target : NULL, jid);
	json_decref(jid);
	return request_send(c, msg, type, target, by_code, id);
}

/*
 * Join or watch. A target that looks like a game id ("g12") is sent as one; anything else as an
 * invite code. A no_such_game reply to a try by id comes back through client-msg.c, which tries
 * the same text as a code with client_request_by_code().
 */
static int
request_target(struct client *c, enum msg_type type, const char *target, int by_code)
{
	if (c->st.table.active && c->st.table.seat < 0 && type == MSG_WATCH &&
	    strcmp(c->st.table.id, target) == 0) {
		client_notice(c, 0, "Already watching %s.", target);
		return 0;
	}
	return request_target_send(c, type, target, by_code);
}

int
client_request_join(struct client *c, const char *id_or_code)
{
	return request_target(c, MSG_JOIN, id_or_code, !looks_like_id(id_or_code));
}

int
client_request_join_or_watch(struct client *c, const char *id)
{
	int rc = request_target(c, MSG_JOIN, id, 0);

	if (rc == 0 && c->npending > 0)
		c->pending[c->npending - 1].or_watch = 1;
	return rc;
}

int
client_request_watch(struct client *c, const char *id_or_code)
{
	return request_target(c, MSG_WATCH, id_or_code, !looks_like_id(id_or_code));
}

int
client_request_rewatch(struct client *c)
{
	return request_target_send(c, MSG_WATCH, c->watch_target, c->watch_by_code);
}

int
client_request_by_code(struct client *c, int join, const char *code)
{
	return request_target(c, join ? MSG_JOIN : MSG_WATCH, code, 1);
}

int
client_request_quick(struct client *c, enum game_kind kind, const char *variant, const char *clock,
                     int rated)
{
	int id;
	json_t *jid = new_id(c, &id);
	json_t *msg = msg_quick_new(game_kind_name(kind), variant, jid);

	json_decref(jid);
	if (clock != NULL)
		json_object_set_new(msg, "clock", json_string(clock));
	if (rated)
		json_object_set_new(msg, "rated", json_true());
	client_notice(c, 0, "Looking for %s opponent%s...", game_kind_a_title(kind),
	              rated ? " for a rated game" : "");
	return request_send(c, msg, MSG_QUICK, NULL, 0, id);
}

/*
 * A move typed while the connection is down is not lost: it is held, one at a time (a newer one
 * replaces it), and the views show it. It goes once the connection is back and the server has
 * caught us up (c->resync moves: the events we missed, or the game's state, have been applied),
 * and only if it is still legal then, as client_state_move_check() judges it in the position we
 * now know; otherwise the player is told why it was not sent, in the game's panel where no
 * notice can overwrite it (held.failed, until the next key).
 */
int
client_request_move(struct client *c, const char *move)
{
	struct client_table *t = &c->st.table;
	int id;
	json_t *jid, *msg;

	if (!client_net_up(c) && t->active && t->seat >= 0 && !t->over) {
		snprintf(c->held.move, sizeof c->held.move, "%s", move);
		snprintf(c->held.game, sizeof c->held.game, "%s", t->id);
		c->held.resync = c->resync;
		c->held.failed[0] = '\0';
		client_notice(c, 1,
		              "Not connected: %s is kept, and sent when the connection is back if "
		              "it is still legal.",
		              move);
		return 1;
	}
	jid = new_id(c, &id);
	msg = msg_move_new(t->active ? t->id : NULL, move, jid);
	json_decref(jid);
	return request_send(c, msg, MSG_MOVE, move, 0, id);
}

void
client_request_wake(struct client *c)
{
	client_net_wake(c);
}

void
client_request_held_flush(struct client *c)
{
	struct client_held *h = &c->held;
	const struct client_table *t = &c->st.table;
	char canon[GAME_MOVE_TEXT], why[256];
	const char *no = NULL;

	if (h->move[0] == '\0' || !client_net_up(c))
		return;
	if (!t->active || strcmp(t->id, h->game) != 0)
		no = "the game is no longer on screen";
	else if (h->resync == c->resync)
		return; /* not caught up yet */
	else if (t->over)
		no = "the game is over";
	else if (client_state_move_check(&c->st, h->move, canon, sizeof canon, why, sizeof why) < 0)
		no = why;
	if (no != NULL) {
		snprintf(h->failed, sizeof h->failed, "%s was not sent: %s", h->move, no);
		h->move[0] = '\0';
		client_notice(c, 1, "Your move %s", h->failed);
		return;
	}
	h->move[0] = '\0';
	if (client_request_move(c, canon) == 0)
		client_notice(c, 0, "Sent %s, typed while the connection was down.", canon);
}

int
client_request_resign(struct client *c)
{
	return client_request_game(c, MSG_RESIGN);
}

int
client_request_leave(struct client *c)
{
	return client_request_game(c, MSG_LEAVE);
}

int
client_request_game(struct client *c, int type)
{
	int id;
	json_t *jid = new_id(c, &id);
	json_t *msg = msg_new((enum msg_type)type, jid);

	json_decref(jid);
	return request_send(c, msg, (enum msg_type)type, NULL, 0, id);
}

int
client_request_say(struct client *c, const char *text)
{
	int id;
	json_t *jid = new_id(c, &id);
	json_t *msg = msg_new(MSG_SAY, jid);
	json_t *t = json_string(text);

	json_decref(jid);
	if (t == NULL) {
		json_decref(msg);
		client_notice(c, 1, "The chat line is not valid UTF-8.");
		return UV_EINVAL;
	}
	json_object_set_new(msg, "text", t);
	return request_send(c, msg, MSG_SAY, NULL, 0, id);
}

int
client_request_draw_offer(struct client *c)
{
	const struct client_table *t = &c->st.table;

	/* PROTOCOL.md 13: the computer never answers one; the offer would lapse at its move */
	if (t->active && t->seat >= 0 && t->seats[!t->seat].computer > 0) {
		client_notice(c, 1, "The computer does not take draws: play on, or resign.");
		return -1;
	}
	return client_request_game(c, MSG_DRAW_OFFER);
}

int
client_request_claim(struct client *c, int draw)
{
	int id;
	json_t *jid = new_id(c, &id);
	json_t *msg = msg_new(MSG_CLAIM, jid);

	json_decref(jid);
	json_object_set_new(msg, "result", json_string(draw ? "draw" : "win"));
	return request_send(c, msg, MSG_CLAIM, NULL, 0, id);
}
