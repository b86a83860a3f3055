/*
 * client-msg.c: what each server message means to the client.
 *
 * The network layer hands every decoded message (struct msg, already checked by protocol/msg.c
 * for its required members and their JSON types) to client_msg_handle(), which turns it into
 * changes of struct client_state through client_state_*, and into notices for the user. It owns
 * nothing and never touches the socket or the terminal: replies that call for another request
 * (a join by id that should have been an invite code) go through client_request_*, and so does
 * the command line's action (create, join, quick, watch), run once the server has greeted us.
 * The network layer reaches it only through the callback main() hands it (struct
 * client_net_ops), so the arrows point one way: net -> messages -> state -> view.
 *
 * Game events carry the game's sequence number. The table remembers the last seq it has seen;
 * an event at or below it is already included (in a state, or seen before a reconnection) and is
 * skipped, so the replay the server sends after a resumed hello is applied exactly once.
 *
 * Clocks and grace periods arrive as values in milliseconds; the table keeps each with the loop
 * time it was received at, and the views count the running one down from there.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "client.h"
#include "protocol.h"

/* A string member of a JSON object, or def. */
static const char *
jstr(const json_t *obj, const char *key, const char *def)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s != NULL ? s : def;
}

/* An integer member of a JSON object, or def. */
static int64_t
jint(const json_t *obj, const char *key, int64_t def)
{
	json_t *v = json_object_get(obj, key);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : def;
}

/*
 * A count from the server (a history page's total and offset, moves, spectators), kept within
 * 0 .. INT32_MAX whatever it says: the views add a page's length to it, or take one off, in
 * int64_t, and show it as an int.
 */
static int64_t
jcount(const json_t *obj, const char *key)
{
	int64_t n = jint(obj, key, 0);

	return n < 0 ? 0 : n > INT32_MAX ? INT32_MAX : n;
}

/* A seat name of the table's game to a side, or -1. */
static int
seat_side(enum game_kind kind, const char *name)
{
	int side;

	if (name == NULL || game_side_parse(kind, name, &side) < 0)
		return -1;
	return side;
}

/* Fill the seats from a "players" object. */
static void
take_players(struct client_state *st, const json_t *players)
{
	struct client_table *t = &st->table;

	if (!json_is_object(players))
		return;
	for (int i = 0; i < 2; i++) {
		const json_t *p = json_object_get(players, game_side_name(t->kind, i));
		struct client_seat *seat = &t->seats[i];
		if (!json_is_object(p)) {
			memset(seat, 0, sizeof *seat);
			continue;
		}
		snprintf(seat->name, sizeof seat->name, "%s", jstr(p, "name", "?"));
		snprintf(seat->id, sizeof seat->id, "%s", jstr(p, "id", ""));
		seat->connected = !json_is_false(json_object_get(p, "connected"));
		seat->grace_ms = jint(p, "grace_ms", 0);
		seat->grace_stamp = st->now;
		seat->grace_over = json_is_true(json_object_get(p, "grace_over"));
		seat->computer = (int)jcount(p, "computer");
	}
}

/* Both clocks from a {"black": ms, "white": ms} object, if there is one. */
static void
take_clocks(struct client_state *st, const json_t *clocks)
{
	struct client_table *t = &st->table;

	if (!json_is_object(clocks))
		return;
	t->timed = 1;
	for (int i = 0; i < 2; i++)
		t->clock_ms[i] = jint(clocks, game_side_name(t->kind, i), t->clock_ms[i]);
	t->clock_stamp = st->now;
}

/* The player's name of a side, for the notices. */
static const char *
side_player(const struct client_table *t, int side)
{
	if (side < 0)
		return "?";
	return t->seats[side].name[0] ? t->seats[side].name : client_state_side_name(t->kind, side);
}

/* An offer of what ("a draw", "a rematch") by side: its own player is told it waits. */
static void
offer_notice(struct client *c, int side, const char *what)
{
	const struct client_table *t = &c->st.table;

	if (side >= 0 && side == t->seat)
		client_notice(c, 0, "You offer %s: waiting for %s to answer.", what,
		              side_player(t, !side));
	else
		client_notice(c, 0, "%s offers %s.", side_player(t, side), what);
}

static void
take_spectators(struct client_state *st, const json_t *spec)
{
	const json_t *names = json_object_get(spec, "names");
	const char *list[CLIENT_SPECTATORS];
	int n = 0;

	if (!json_is_object(spec))
		return;
	for (size_t i = 0; i < json_array_size(names) && n < CLIENT_SPECTATORS; i++) {
		const char *s = json_string_value(json_array_get(names, i));
		if (s != NULL)
			list[n++] = s;
	}
	client_state_spectators(st, list, n, (int)jcount(spec, "count"));
}

/* The end of a game in words, from the protocol's reason code. */
static void
over_words(const struct client_table *t, const char *reason, int winner, char *buf, size_t size)
{
	const char *loser = winner >= 0 ? client_state_side_name(t->kind, !winner) : "";

	if (reason == NULL)
		reason = "";
	if (strcmp(reason, "blocked") == 0) {
		struct game_move moves[GAME_MOVES_MAX];
		int side = game_side(&t->game);
		/* The side to move is blocked if it has no move; otherwise it is the other one. */
		int blocked = game_moves(&t->game, moves) == 0 ? side : !side;
		if (game_over(&t->game) && game_moves(&t->game, moves) == 0)
			snprintf(buf, size, "%s has no legal move left; the scores decide.",
			         client_state_side_name(t->kind, blocked));
		else
			snprintf(buf, size, "A player has no legal move left; the scores decide.");
	} else if (strcmp(reason, "line") == 0) {
		snprintf(buf, size, "%s made a line of four.",
		         winner >= 0 ? client_state_side_name(t->kind, winner) : "A player");
	} else if (strcmp(reason, "full") == 0) {
		snprintf(buf, size, "All 32 pawns are placed and nobody made a line.");
	} else if (strcmp(reason, "resign") == 0) {
		snprintf(buf, size, "%s resigned.", winner >= 0 ? loser : "A player");
	} else if (strcmp(reason, "abandoned") == 0) {
		snprintf(buf, size, "The game was abandoned before it started.");
	} else if (strcmp(reason, "time") == 0) {
		snprintf(buf, size, "%s ran out of time.", winner >= 0 ? loser : "A player");
	} else if (strcmp(reason, "agreement") == 0) {
		snprintf(buf, size, "Drawn by agreement.");
	} else if (strcmp(reason, "abort") == 0) {
		snprintf(buf, size, "The game was aborted.");
	} else if (strcmp(reason, "disconnect") == 0) {
		snprintf(buf, size, "%s left and did not come back in time.",
		         winner >= 0 ? loser : "A player");
	} else {
		snprintf(buf, size, "%s", reason);
	}
}

/*
 * A result object or a game_over event: mark the table over. The status line says so too,
 * quietly (the plain view prints the result itself), whichever message told us (a game_over, or
 * the state of a game that ended while we were away): what it said while the game was on ("The
 * game begins", "Sent c2-e4", "c3 selected") is over.
 */
static void
take_result(struct client_state *st, const json_t *res)
{
	struct client_table *t = &st->table;
	char words[160], result[128];
	int winner = seat_side(t->kind, jstr(res, "winner", NULL));

	over_words(t, jstr(res, "reason", NULL), winner, words, sizeof words);
	client_state_table_over(st, winner, words);
	/* client24: the code too, for "White wins by resignation" (client_state_result_text) */
	snprintf(t->end_reason, sizeof t->end_reason, "%s", jstr(res, "reason", ""));
	t->draw_offer = -1;
	t->adjourned = 0;
	t->aborted = strcmp(jstr(res, "result", ""), "aborted") == 0;
	if (t->aborted)
		t->winner = -1;
	client_state_result_text(t, result, sizeof result);
	client_state_notice(st, 0, "Game over: %s. %s", result, t->reason);
}

/* The match members of a state: clock, offers, both chats. */
static void
take_match(struct client_state *st, const json_t *r, enum game_kind kind)
{
	struct client_table *t = &st->table;
	const json_t *clock = json_object_get(r, "clock");
	const json_t *chat = json_object_get(r, "chat");
	const json_t *kibitz = json_object_get(r, "kibitz");

	t->timed = json_is_object(clock);
	if (t->timed) {
		snprintf(t->control, sizeof t->control, "%s", jstr(clock, "control", ""));
		take_clocks(st, json_object_get(clock, "remaining"));
	}
	t->draw_offer = seat_side(kind, jstr(r, "draw_offer", NULL));
	t->rematch_offer = seat_side(kind, jstr(r, "rematch_offer", NULL));
	t->nchat = t->nkibitz = 0;
	for (size_t i = 0; i < json_array_size(chat); i++) {
		const json_t *l = json_array_get(chat, i);
		client_state_chat_add(st, 0, seat_side(kind, jstr(l, "seat", NULL)),
		                      jstr(json_object_get(l, "player"), "name", "?"),
		                      jstr(l, "text", ""));
	}
	for (size_t i = 0; i < json_array_size(kibitz); i++) {
		const json_t *l = json_array_get(kibitz, i);
		client_state_chat_add(st, 1, -1, jstr(json_object_get(l, "player"), "name", "?"),
		                      jstr(l, "text", ""));
	}
}

static void
handle_state(struct client *c, const struct msg *m)
{
	struct client_state *st = &c->st;
	struct client_table *t = &st->table;
	const json_t *r = m->root;
	struct game_error err = {0, -1, ""};
	enum game_kind kind;
	const char *you = jstr(r, "you", "spectator");
	const json_t *moves = json_object_get(r, "moves");
	const json_t *result = json_object_get(r, "result");
	int seat;

	if (game_kind_parse(jstr(r, "kind", ""), &kind) < 0) {
		client_notice(c, 1, "The server sent a game of an unknown kind.");
		return;
	}
	seat = strcmp(you, "spectator") == 0 ? -1 : seat_side(kind, you);
	if (client_state_table_open(st, kind, jstr(r, "variant", NULL), jstr(r, "game", "?"), seat,
	                            jstr(r, "position", NULL), &err) < 0) {
		client_notice(c, 1, "The server sent a position we cannot read: %s", err.text);
		client_state_table_clear(st);
		return;
	}
	t->nmoves = 0;
	for (size_t i = 0; i < json_array_size(moves) && t->nmoves < CLIENT_MOVES_MAX; i++) {
		const char *mv = json_string_value(json_array_get(moves, i));
		if (mv != NULL)
			snprintf(t->moves[t->nmoves++], GAME_MOVE_TEXT, "%s", mv);
	}
	t->seq = jint(r, "seq", 0);
	snprintf(t->invite, sizeof t->invite, "%s", jstr(r, "code", ""));
	t->private_game = json_is_true(json_object_get(r, "private"));
	take_players(st, json_object_get(r, "players"));
	take_spectators(st, json_object_get(r, "spectators"));
	t->started = strcmp(jstr(r, "status", "open"), "open") != 0;
	t->adjourned = strcmp(jstr(r, "status", ""), "adjourned") == 0;
	t->over = 0;
	if (json_is_object(result))
		take_result(st, result);
	take_match(st, r, kind);
}

static void
handle_event(struct client *c, const struct msg *m)
{
	struct client_state *st = &c->st;
	struct client_table *t = &st->table;
	const json_t *r = m->root;
	int64_t seq = jint(r, "seq", -1);
	struct game_error err = {0, -1, ""};

	if (!t->active || strcmp(jstr(r, "game", ""), t->id) != 0)
		return;
	if (seq >= 0 && seq <= t->seq)
		return; /* already included */
	switch (m->type) {
	case MSG_SEATED: {
		int side = seat_side(t->kind, jstr(r, "seat", NULL));
		const json_t *p = json_object_get(r, "player");
		if (side >= 0) {
			snprintf(t->seats[side].name, CLIENT_NAME_MAX, "%s", jstr(p, "name", "?"));
			snprintf(t->seats[side].id, CLIENT_ID_MAX, "%s", jstr(p, "id", ""));
			t->seats[side].connected = 1;
			t->seats[side].computer = (int)jcount(p, "computer");
			client_notice(c, 0, "%s sits down as %s.", t->seats[side].name,
			              client_state_side_name(t->kind, side));
		}
		break;
	}
	case MSG_STARTED: {
		struct game g;
		take_players(st, json_object_get(r, "players"));
		for (int i = 0; i < 2; i++)
			t->seats[i].connected = 1;
		if (game_parse(&g, t->kind, jstr(r, "position", ""), &err) == 0)
			t->game = g;
		t->started = 1;
		if (jstr(r, "clock", NULL) != NULL)
			snprintf(t->control, sizeof t->control, "%s", jstr(r, "clock", ""));
		take_clocks(st, json_object_get(r, "clocks"));
		client_notice(c, 0, "The game begins: %s vs %s.", t->seats[0].name,
		              t->seats[1].name);
		break;
	}
	case MSG_MOVED: {
		int by = seat_side(t->kind, jstr(r, "by", NULL));
		int rc = client_state_table_move(st, seq, jstr(r, "move", ""),
		                                 jstr(r, "position", NULL), &err);
		if (rc < 0)
			client_notice(c, 1, "Could not follow the move %s: %s", jstr(r, "move", ""),
			              err.text);
		take_clocks(st, json_object_get(r, "clocks"));
		if (t->draw_offer != by)
			t->draw_offer = -1; /* it lapses when the player it was made to moves */
		/* the status line, quietly: the other side's move replaces what it said (a
		 * selection cannot be open then: only the side to move selects) */
		if (by >= 0 && by != t->seat)
			client_state_notice(st, 0, "%s played %s.%s", side_player(t, by),
			                    jstr(r, "move", ""), t->seat >= 0 ? " Your move." : "");
		/* ... and our own move, once the server has played it, replaces the "Sent c2-e4"
		 * the screen put there when it was sent (not when it is an event seen already) */
		else if (by >= 0 && rc == 0)
			client_state_notice(st, 0, "You played %s.", jstr(r, "move", ""));
		break;
	}
	case MSG_GAME_OVER:
		take_clocks(st, json_object_get(r, "clocks"));
		take_result(st, r);
		break;
	case MSG_DRAW_OFFERED:
		t->draw_offer = seat_side(t->kind, jstr(r, "by", NULL));
		offer_notice(c, t->draw_offer, "a draw");
		break;
	case MSG_DRAW_DECLINED:
		client_notice(c, 0, "%s declines the draw.",
		              side_player(t, seat_side(t->kind, jstr(r, "by", NULL))));
		t->draw_offer = -1;
		break;
	case MSG_CHAT:
		client_state_chat_add(st, 0, seat_side(t->kind, jstr(r, "seat", NULL)),
		                      jstr(json_object_get(r, "player"), "name", "?"),
		                      jstr(r, "text", ""));
		break;
	case MSG_GRACE_OVER: {
		int side = seat_side(t->kind, jstr(r, "seat", NULL));
		take_clocks(st, json_object_get(r, "clocks"));
		if (side < 0)
			break;
		t->seats[side].grace_over = 1;
		client_notice(c, 1, "%s did not come back in time%s.", side_player(t, side),
		              t->seat == !side ? ": you may claim the win or a draw" : "");
		break;
	}
	case MSG_ADJOURNED: {
		int side = seat_side(t->kind, jstr(r, "seat", NULL));
		t->adjourned = 1;
		t->draw_offer = -1;
		if (side >= 0)
			t->seats[side].grace_over = 1; /* its grace ran out: that is why */
		client_notice(c, 1, "%s did not come back in time: the game is adjourned.",
		              side_player(t, side));
		break;
	}
	case MSG_RESUMED:
		t->adjourned = 0;
		t->clock_stamp = st->now;
		client_notice(c, 0, "Both players are back: the game goes on.");
		break;
	case MSG_REMATCH_OFFERED:
		t->rematch_offer = seat_side(t->kind, jstr(r, "by", NULL));
		offer_notice(c, t->rematch_offer, "a rematch");
		break;
	case MSG_REMATCH_DECLINED:
		t->rematch_offer = -1;
		client_notice(c, 0, "%s declines the rematch.",
		              side_player(t, seat_side(t->kind, jstr(r, "by", NULL))));
		break;
	case MSG_REMATCH_STARTED: {
		snprintf(t->rematch_game, sizeof t->rematch_game, "%s", jstr(r, "new_game", ""));
		t->rematch_offer = -1;
		/* a spectator of a public game may follow it there */
		char how[CLIENT_ID_MAX + 32] = "";
		if (t->seat < 0 && !t->private_game && c->opt.plain)
			snprintf(how, sizeof how, " (watch %s to follow it)", t->rematch_game);
		else if (t->seat < 0 && !t->private_game)
			snprintf(how, sizeof how, ": w to watch it");
		client_notice(c, 0, "The rematch is game %s%s.", t->rematch_game, how);
		break;
	}
	default:
		break; /* a future event type: count its seq and go on */
	}
	if (seq > t->seq)
		t->seq = seq;
}

static void
handle_notice(struct client *c, const struct msg *m)
{
	struct client_state *st = &c->st;
	struct client_table *t = &st->table;
	const json_t *r = m->root;

	if (!t->active || strcmp(jstr(r, "game", ""), t->id) != 0)
		return;
	switch (m->type) {
	case MSG_PRESENCE: {
		int side = seat_side(t->kind, jstr(r, "seat", NULL));
		int up = json_is_true(json_object_get(r, "connected"));
		if (side < 0)
			break;
		t->seats[side].connected = up;
		t->seats[side].grace_ms = jint(r, "grace_ms", 0);
		t->seats[side].grace_stamp = st->now;
		t->seats[side].grace_over = json_is_true(json_object_get(r, "grace_over"));
		if (!up && t->over)
			client_notice(c, 0, "%s is offline.", side_player(t, side));
		else if (!up && t->seats[side].grace_over)
			client_notice(c, 1, "%s is away and its grace period is over.",
			              side_player(t, side));
		else if (!up)
			client_notice(c, 1, "%s lost the connection; %lld s of grace to come back.",
			              side_player(t, side),
			              (long long)(t->seats[side].grace_ms / 1000));
		else
			client_notice(c, 0, "%s is back.", side_player(t, side));
		break;
	}
	case MSG_KIBITZ:
		client_state_chat_add(st, 1, -1, jstr(json_object_get(r, "player"), "name", "?"),
		                      jstr(r, "text", ""));
		break;
	case MSG_SPECTATORS:
		take_spectators(st, json_object_get(r, "spectators"));
		break;
	case MSG_YOUR_TURN:
		break; /* we compute the legal moves ourselves; the views show whose turn it is */
	default:
		break;
	}
}

static void
handle_games(struct client *c, const struct msg *m)
{
	struct client_state *st = &c->st;
	const json_t *games = json_object_get(m->root, "games");

	st->nlist = 0;
	for (size_t i = 0; i < json_array_size(games) && st->nlist < CLIENT_LIST_MAX; i++) {
		const json_t *g = json_array_get(games, i);
		struct client_entry *e = &st->list[st->nlist];
		const json_t *players = json_object_get(g, "players");
		if (game_kind_parse(jstr(g, "kind", ""), &e->kind) < 0)
			continue;
		snprintf(e->id, sizeof e->id, "%s", jstr(g, "game", "?"));
		snprintf(e->variant, sizeof e->variant, "%s", jstr(g, "variant", "standard"));
		snprintf(e->status, sizeof e->status, "%s", jstr(g, "status", "?"));
		for (int s = 0; s < 2; s++) {
			const json_t *p = json_object_get(players, game_side_name(e->kind, s));
			snprintf(e->players[s], CLIENT_NAME_MAX, "%s", jstr(p, "name", ""));
		}
		e->spectators = (int)jcount(g, "spectators");
		e->ply = (int)jcount(g, "ply");
		e->private_game = json_is_true(json_object_get(g, "private"));
		snprintf(e->clock, sizeof e->clock, "%s", jstr(g, "clock", ""));
		{
			const json_t *res = json_object_get(g, "result");
			const char *r = jstr(res, "result", "");
			int w = seat_side(e->kind, jstr(res, "winner", NULL));
			e->result = strcmp(r, "win") == 0 && w >= 0 ? w
			            : strcmp(r, "draw") == 0        ? -1
			            : strcmp(r, "aborted") == 0     ? -2
			                                            : -3;
			snprintf(e->reason, sizeof e->reason, "%s",
			         json_is_object(res) ? jstr(res, "reason", "") : "");
		}
		st->nlist++;
	}
	/* a busy server sends the first page of its list (PROTOCOL.md 5, list) and says how long
	 * the whole list is */
	{
		const json_t *total = json_object_get(m->root, "total");
		const json_t *offset = json_object_get(m->root, "offset");
		json_int_t n = json_is_integer(total) ? json_integer_value(total) : 0;
		json_int_t o = json_is_integer(offset) ? json_integer_value(offset) : 0;

		st->list_offset = o > 0 && o < INT32_MAX - CLIENT_LIST_MAX ? (int)o : 0;
		st->list_total = n > st->list_offset + st->nlist && n < INT32_MAX
		                         ? (int)n
		                         : st->list_offset + st->nlist;
		/* the list got shorter than the page we were at: back to its first page */
		if (st->nlist == 0 && st->list_offset > 0 && n > 0) {
			st->list_offset = 0;
			client_request_list(c);
		}
	}
	c->list_stamp++;
}

static void
handle_error(struct client *c, const struct msg *m, const struct client_pending *p)
{
	const char *code = jstr(m->root, "code", "");
	const char *text = jstr(m->root, "text", "refused");

	if (p != NULL && strcmp(code, "no_such_game") == 0 && !p->by_code &&
	    (p->type == MSG_JOIN || p->type == MSG_WATCH)) {
		/* Not a game id: it may be an invite code. */
		int rc = client_request_by_code(c, p->type == MSG_JOIN, p->arg);
		if (rc == 0)
			return;
	}
	if (p != NULL && !c->opt.plain && !c->st.table.active && c->list_stamp == 0 &&
	    (p->type == MSG_CREATE || p->type == MSG_QUICK || p->type == MSG_JOIN ||
	     p->type == MSG_WATCH))
		client_request_list(
		        c); /* the command line's action failed: the lobby needs its list */
	if (p != NULL && strcmp(code, "no_such_game") == 0 &&
	    (p->type == MSG_JOIN || p->type == MSG_WATCH)) {
		/* tried as an id (when it looked like one), then as an invite code */
		client_notice(c, 1, "No game '%s' here: neither a game id nor an invite code.",
		              p->arg);
		return;
	}
	if (p != NULL && p->or_watch && strcmp(code, "game_full") == 0) {
		/* client24: the lobby showed the seat open, and it went meanwhile: watch it */
		client_notice(c, 0, "Game %s has no open seat any more: watching it.", p->arg);
		client_request_watch(c, p->arg);
		return;
	}
	if (strcmp(code, "bad_token") == 0) {
		client_net_token_refused(c);
		return;
	}
	if (strcmp(code, "version_mismatch") == 0 || strcmp(code, "too_many_clients") == 0) {
		client_notice(c, 1, "The server refused us: %s", text);
		return;
	}
	if (strcmp(code, "in_game") == 0) {
		/* the key to resign is the full screen's; --plain's command is the word itself */
		client_notice(c, 1, "The game is still on: resign first%s, then leave.",
		              c->opt.plain ? "" : " (r)");
		return;
	}
	if (c->st.table.active && c->st.table.seat >= 0 &&
	    (strcmp(code, "cannot_claim") == 0 || strcmp(code, "opponent_gone") == 0)) {
		/* the server names the side; say who, and what the key needs */
		const char *who = side_player(&c->st.table, !c->st.table.seat);
		if (code[0] == 'c')
			client_notice(c, 1,
			              "Nothing to claim: a claim needs a game with a clock and %s "
			              "away past the grace period.",
			              who);
		else
			client_notice(c, 1,
			              "%s has left the game: there is nobody to play a rematch "
			              "with here.",
			              who);
		return;
	}
	client_notice(c, 1, "%s", text[0] ? text : code);
}

/* A history page: one line per finished game. */
static void
handle_history(struct client *c, const struct msg *m)
{
	const json_t *games = json_object_get(m->root, "games");
	size_t i;
	const json_t *g;

	c->nhistory = 0;
	c->history_total = jcount(m->root, "total");
	c->history_offset = jcount(m->root, "offset");
	json_array_foreach(games, i, g)
	{
		struct client_history_entry *e;
		const json_t *players = json_object_get(g, "players");
		const json_t *res = json_object_get(g, "result");
		const char *winner = jstr(res, "winner", NULL), *names[2] = {"-", "-"};
		enum game_kind kind = GAME_HOKITO;
		char outcome[64];
		int k = 0, ply;

		if (c->nhistory >= CLIENT_HISTORY_MAX)
			break;
		e = &c->history[c->nhistory++];
		game_kind_parse(jstr(g, "kind", "hokito"), &kind);
		for (; k < 2; k++)
			names[k] = jstr(json_object_get(players, game_side_name(kind, k)), "name",
			                "-");
		if (winner != NULL)
			snprintf(outcome, sizeof outcome, "%s wins", winner);
		else
			snprintf(outcome, sizeof outcome, "%s", jstr(res, "result", "?"));
		snprintf(e->id, sizeof e->id, "%s", jstr(g, "game", "?"));
		ply = (int)jcount(g, "ply");
		snprintf(e->line, sizeof e->line, "%s %s vs %s: %s (%s), %d move%s",
		         game_kind_name(kind), names[0], names[1], outcome,
		         jstr(res, "reason", "?"), ply, ply == 1 ? "" : "s");
	}
	c->history_stamp++;
}

/*
 * The status line once the server has put us at a game we asked for (create, quick, join): it
 * replaces "Creating..." or "Looking for..." with what came of it. Only the status line: the
 * plain view prints the game itself, so this is not a notice it would print again.
 */
static void
arrived_notice(struct client_state *st)
{
	const struct client_table *t = &st->table;

	if (t->started)
		client_state_notice(st, 0, "The game begins: %s vs %s.", t->seats[0].name,
		                    t->seats[1].name);
	else if (t->invite[0])
		client_state_notice(st, 0,
		                    "Game %s created: give your opponent the invite code %s.",
		                    t->id, t->invite);
	else
		client_state_notice(st, 0, "Game %s created: waiting for an opponent.", t->id);
}

/* Send the command line's action: create, join, quick or watch (the lobby: ask for the list). */
static void
action_send(struct client *c)
{
	const struct client_options *o = &c->opt;

	switch (o->action) {
	case CLIENT_ACTION_CREATE:
		client_request_create(c, o->kind, o->variant, o->seat, o->private_game, o->clock,
		                      o->computer);
		break;
	case CLIENT_ACTION_JOIN:
		client_request_join(c, o->target);
		break;
	case CLIENT_ACTION_QUICK:
		client_request_quick(c, o->kind, o->variant, o->clock);
		break;
	case CLIENT_ACTION_WATCH:
		client_request_watch(c, o->target);
		break;
	case CLIENT_ACTION_LOBBY:
		if (!c->opt.plain)
			client_request_list(c);
		break;
	}
}

/* The connection is greeted: run the command line's action once, or show the lobby. */
static void
welcomed(struct client *c, int resumed, const char *game)
{
	/* Back at a game we do not show yet: its state follows the welcome (PROTOCOL.md 4.3). */
	c->arriving = resumed && game != NULL &&
	              !(c->st.table.active && strcmp(c->st.table.id, game) == 0);
	client_update(c); /* "connected" comes before what follows */
	if (c->action_done) {
		/* A reconnection: replace the "connection lost" notice. */
		if (resumed && game != NULL)
			client_notice(c, 0, "Reconnected: back at game %s.", game);
		else if (c->st.table.active && c->st.table.seat < 0)
			client_notice(c, 0, "Reconnected: watching game %s again.", c->st.table.id);
		else
			client_notice(c, 0, "Reconnected.");
		if (!c->st.table.active)
			client_request_list(c);
		return;
	}
	/* Done from here on: the action's request is pending (--plain waits for its answer). */
	c->action_done = 1;
	if (resumed && game != NULL && c->opt.action != CLIENT_ACTION_LOBBY && c->arriving)
		c->action_held = 1; /* the game's state tells whether the action may run */
	else if (resumed && game != NULL)
		client_notice(c, 0, "Rejoined game %s.", game);
	else
		action_send(c);
}

/*
 * The state of the game the stored session was at has come, and the command line has an action
 * (PROTOCOL.md 5): from a finished game, or one it only watched, the session simply moves, so
 * the action runs; a seat in an open, live or adjourned game keeps it there.
 */
static void
arrived(struct client *c)
{
	const struct client_table *t = &c->st.table;

	if (!c->action_held)
		return;
	c->action_held = 0;
	if (!t->active || t->over || t->seat < 0) {
		client_state_table_clear(&c->st); /* not shown: the action takes us elsewhere */
		action_send(c);
	} else
		client_notice(
		        c, 1,
		        "Rejoined your game %s; the command was not run (leave the game first, "
		        "or start with --new-session).",
		        t->id);
}

void
client_msg_handle(struct client *c, const struct msg *m)
{
	struct client_pending pend, *p = NULL;
	json_t *id = m->id;

	if (json_is_integer(id) && client_request_done(c, (int)json_integer_value(id), &pend) == 0)
		p = &pend;
	c->st.now = uv_now(c->loop);
	switch (m->type) {
	case MSG_WELCOME: {
		const char *game = jstr(m->root, "game", NULL);
		const json_t *player = json_object_get(m->root, "player");
		snprintf(c->st.player_id, sizeof c->st.player_id, "%s", jstr(player, "id", ""));
		snprintf(c->st.name, sizeof c->st.name, "%s", jstr(player, "name", ""));
		if (game == NULL && c->st.table.active && c->st.table.seat < 0 &&
		    c->watch_target[0]) {
			/* A spectator's session does not outlive a restart (PROTOCOL.md 12):
			 * the new one watches the same game again. */
			client_request_rewatch(c);
		} else if (game == NULL && c->st.table.active) {
			client_state_table_clear(&c->st);
			client_notice(c, 1, "The game we were at is gone.");
		}
		welcomed(c, json_is_true(json_object_get(m->root, "resumed")), game);
		break;
	}
	case MSG_GAMES:
		handle_games(c, m);
		break;
	case MSG_HISTORY_PAGE:
		handle_history(c, m);
		break;
	case MSG_GAME_RECORD: {
		const char *text = jstr(m->root, "text", "");
		client_replay_load(c, jstr(m->root, "game", "?"), text, strlen(text));
		break;
	}
	case MSG_STATE: {
		/* watching the game on screen again (after a restart): "Reconnected" says so */
		int again = c->st.table.active &&
		            strcmp(c->st.table.id, jstr(m->root, "game", "")) == 0;
		c->arriving = 0;
		if (p != NULL && p->type == MSG_WATCH) {
			snprintf(c->watch_target, sizeof c->watch_target, "%s", p->arg);
			c->watch_by_code = p->by_code;
		}
		handle_state(c, m);
		if (p != NULL && c->st.table.active &&
		    (p->type == MSG_CREATE || p->type == MSG_QUICK || p->type == MSG_JOIN))
			arrived_notice(&c->st);
		else if (p != NULL && p->type == MSG_WATCH && c->st.table.active &&
		         !c->st.table.over && !again)
			client_state_notice(&c->st, 0, "Watching game %s.", c->st.table.id);
		if (p == NULL)
			arrived(c);
		break;
	}
	case MSG_OK:
		if (p != NULL && p->type == MSG_LEAVE) {
			/* the game's last notice does not follow us to the lobby */
			client_state_notice(&c->st, 0, "Left game %s.", c->st.table.id);
			client_state_table_clear(&c->st);
			client_request_list(c);
		} else if (p != NULL && p->type == MSG_RESIGN && !c->st.table.over) {
			/* the game_over came first and said how it ended; this only if it has not
			 */
			client_notice(c, 0, "You resigned.");
		}
		break;
	case MSG_ERROR:
		handle_error(c, m, p);
		break;
	case MSG_BYE:
		client_net_bye(c, jstr(m->root, "reason", ""));
		break;
	case MSG_YOUR_TURN:
	case MSG_PRESENCE:
	case MSG_SPECTATORS:
	case MSG_KIBITZ:
		handle_notice(c, m);
		/* client24: after a welcome back, the spectators notice follows what we missed
		 * (PROTOCOL.md 4.3): a move held meanwhile may go (client_request_held_flush) */
		if (m->type == MSG_SPECTATORS)
			c->resync++;
		break;
	default:
		if (msg_type_is_event(m->type)) {
			handle_event(c, m);
		} else if (m->type == MSG_NONE && json_is_object(m->root)) {
			/* A future event type still counts its seq (PROTOCOL.md 6). */
			int64_t seq = jint(m->root, "seq", -1);
			struct client_table *t = &c->st.table;
			if (t->active && strcmp(jstr(m->root, "game", ""), t->id) == 0 &&
			    seq > t->seq && json_object_get(m->root, "seq") != NULL)
				t->seq = seq;
		}
		break;
	}
	client_update(c);
}
