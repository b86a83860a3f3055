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
 * Game events and notices go through protocol's codecs, and the protocol's rules are applied
 * there only: a state sets the table's struct event_state (event_state_decode()), each event is
 * read by its codec (event_decode()) and applied to it (event_state_apply(): the statuses it may
 * come in, whose turn it is, the draw offer that lapses, the result and reason of the end), and
 * this file only shows what came of it: the board, the move list, the chat, the notices. Game
 * events carry the game's sequence number; one at or below the seq of the table's rules is
 * already included (in a state, or seen before a reconnection) and is skipped, so the replay the
 * server sends after a resumed hello is applied exactly once.
 *
 * A broken or hostile server is shown as far as it can be read, as it always was: a state the
 * codec refuses still shows its game, with its rules read member by member (rules_salvage()); an
 * event the codec or the rules refuse changes nothing the rules decide, but its seq counts, and a
 * chat line in it is still shown (event_refused()). Statuses, results and reasons are enums; their
 * words are protocol/event.h's.
 *
 * Clocks and grace periods arrive as values in milliseconds; the table keeps each with the loop
 * time it was received at, and the views count the running one down from there.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "client.h"
#include "event-state.h"
#include "event.h"
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

/* A seat name of the table's game to a side, or -1 (what a broken server sends included). */
static int
seat_side(enum game_kind kind, const char *name)
{
	int side;

	if (name == NULL || game_side_parse(kind, name, &side) < 0)
		return -1;
	return side;
}

/*
 * Fill the seats from a state's "players" object, as far as they can be read: a state from a
 * broken server is still shown (its rules, when event_state_decode() refuses it, are
 * rules_salvage()'s).
 */
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
		seat->claimable = json_is_true(json_object_get(p, "claimable"));
		seat->computer = (int)jcount(p, "computer");
		client_account_player(p, &seat->who, seat->rating, sizeof seat->rating);
	}
}

/*
 * What the players of a seated or started event are and their ratings: the event's codec reads
 * their names; these members are read here off the line itself.
 */
static void
take_marks(struct client_table *t, const struct msg *m)
{
	const json_t *r = m->root;
	const json_t *players = json_object_get(r, "players");
	int side;

	if (m->type == MSG_SEATED) {
		side = seat_side(t->kind, jstr(r, "seat", NULL));
		if (side >= 0)
			client_account_player(json_object_get(r, "player"), &t->seats[side].who,
			                      t->seats[side].rating, sizeof t->seats[side].rating);
		return;
	}
	for (side = 0; side < 2 && m->type == MSG_STARTED; side++)
		client_account_player(json_object_get(players, game_side_name(t->kind, side)),
		                      &t->seats[side].who, t->seats[side].rating,
		                      sizeof t->seats[side].rating);
}

/* A rated game's end: each seat's rating before and after (game_over's "ratings"). */
static void
take_ratings(struct client_table *t, const json_t *ratings)
{
	for (int side = 0; side < 2; side++) {
		const json_t *r = json_object_get(ratings, game_side_name(t->kind, side));
		struct client_rating_change *ch = &t->change[side];
		const json_t *before = json_object_get(r, "before");
		const json_t *after = json_object_get(r, "after");
		memset(ch, 0, sizeof *ch);
		if (!json_is_number(before) || !json_is_number(after))
			continue;
		ch->has = 1;
		ch->before = json_number_value(before);
		ch->after = json_number_value(after);
		snprintf(ch->before_shown, sizeof ch->before_shown, "%.11s",
		         jstr(r, "before_display", "?"));
		snprintf(ch->after_shown, sizeof ch->after_shown, "%.11s",
		         jstr(r, "after_display", "?"));
		/* the seat shows its rating after the game from now on */
		snprintf(t->seats[side].rating, sizeof t->seats[side].rating, "%s",
		         ch->after_shown);
	}
}

/* A player of an event at a seat: its name, id and computer level. */
static void
take_player(struct client_seat *seat, const struct event_player *p)
{
	snprintf(seat->name, sizeof seat->name, "%s", p->name);
	snprintf(seat->id, sizeof seat->id, "%s", p->id);
	seat->computer = p->computer;
}

/* Both clocks, when an event carries them. */
static void
take_clocks(struct client_state *st, const struct event_pair *clocks)
{
	struct client_table *t = &st->table;

	if (!clocks->has)
		return;
	t->timed = 1;
	for (int i = 0; i < 2; i++)
		t->clock_ms[i] = clocks->v[i];
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

/* The spectators of a state, as far as they can be read. */
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

/* The end of a game in words, from the reason it ended for. */
static void
over_words(const struct client_table *t, enum event_reason reason, int winner, char *buf,
           size_t size)
{
	const char *loser = winner >= 0 ? client_state_side_name(t->kind, !winner) : "";
	struct game_move moves[GAME_MOVES_MAX];
	int side, blocked;

	switch (reason) {
	case EVENT_REASON_NONE:
		snprintf(buf, size, "%s", "");
		return;
	case EVENT_REASON_BLOCKED:
		side = game_side(&t->game);
		/* The side to move is blocked if it has no move; otherwise it is the other one. */
		blocked = game_moves(&t->game, moves) == 0 ? side : !side;
		if (game_over(&t->game) && game_moves(&t->game, moves) == 0)
			snprintf(buf, size, "%s has no legal move left; the scores decide.",
			         client_state_side_name(t->kind, blocked));
		else
			snprintf(buf, size, "A player has no legal move left; the scores decide.");
		return;
	case EVENT_REASON_LINE:
		snprintf(buf, size, "%s made a line of four.",
		         winner >= 0 ? client_state_side_name(t->kind, winner) : "A player");
		return;
	case EVENT_REASON_FULL:
		snprintf(buf, size, "All 32 pawns are placed and nobody made a line.");
		return;
	case EVENT_REASON_RESIGN:
		snprintf(buf, size, "%s resigned.", winner >= 0 ? loser : "A player");
		return;
	case EVENT_REASON_ABANDONED:
		snprintf(buf, size, "The game was abandoned before it started.");
		return;
	case EVENT_REASON_TIME:
		snprintf(buf, size, "%s ran out of time.", winner >= 0 ? loser : "A player");
		return;
	case EVENT_REASON_AGREEMENT:
		snprintf(buf, size, "Drawn by agreement.");
		return;
	case EVENT_REASON_ABORT:
		snprintf(buf, size, "The game was aborted.");
		return;
	case EVENT_REASON_DISCONNECT:
		snprintf(buf, size, "%s left and did not come back in time.",
		         winner >= 0 ? loser : "A player");
		return;
	}
	snprintf(buf, size, "%s", "");
}

/*
 * The rules say the game is over (a game_over, or the state of a game that ended while we were
 * away): mark the table over. The status line says so too, quietly (the plain view prints the
 * result itself): what it said while the game was on ("The game begins", "Sent c2-e4", "c3
 * selected") is over.
 */
static void
take_result(struct client_state *st)
{
	struct client_table *t = &st->table;
	char words[160], result[128];

	over_words(t, t->rules.reason, t->rules.winner, words, sizeof words);
	client_state_table_over(st, t->rules.winner, words);
	/* the reason too, for "White wins by resignation" (client_state_result_text) */
	t->end_reason = t->rules.reason;
	t->aborted = t->rules.result == EVENT_RESULT_ABORTED;
	client_state_result_text(t, result, sizeof result);
	if (t->change[0].has && t->change[1].has) {
		/* a rated game: each player's rating change (ours when we played) */
		char ch[2][CLIENT_NAME_MAX + 48];
		for (int i = 0; i < 2; i++)
			client_state_change_text(t, i, ch[i], sizeof ch[i]);
		if (t->seat >= 0)
			client_state_notice(st, 0, "Game over: %s. %s Rating: %s.", result,
			                    t->reason, ch[t->seat]);
		else
			client_state_notice(st, 0, "Game over: %s. %s Ratings: %s; %s.", result,
			                    t->reason, ch[0], ch[1]);
		return;
	}
	client_state_notice(st, 0, "Game over: %s. %s%s%s", result, t->reason,
	                    t->unrated != EVENT_UNRATED_NONE && !t->aborted ? " " : "",
	                    t->aborted ? "" : client_state_unrated_text(t->unrated));
}

/* The match members of a state: clock, both chats. */
static void
take_match(struct client_state *st, const json_t *r, enum game_kind kind)
{
	struct client_table *t = &st->table;
	const json_t *clock = json_object_get(r, "clock");
	const json_t *chat = json_object_get(r, "chat");
	const json_t *kibitz = json_object_get(r, "kibitz");

	t->timed = json_is_object(clock);
	if (t->timed) {
		const json_t *remaining = json_object_get(clock, "remaining");
		snprintf(t->control, sizeof t->control, "%s", jstr(clock, "control", ""));
		t->first_move_timer = jint(clock, "first_move_ms", 0) > 0;
		if (json_is_object(remaining)) {
			for (int i = 0; i < 2; i++)
				t->clock_ms[i] =
				        jint(remaining, game_side_name(kind, i), t->clock_ms[i]);
			t->clock_stamp = st->now;
		}
	}
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

/*
 * The rules of a state that event_state_decode() refuses (a broken or hostile server: members
 * missing or wrong), read as far as they go, so that the game is still shown as it always was:
 * its status and seq, the turn, both offers, the result if it has one, and the seats as
 * take_players() read them. Events that follow are applied to it as to any other.
 */
static void
rules_salvage(struct client_state *st, const json_t *r)
{
	struct client_table *t = &st->table;
	struct event_state *rules = &t->rules;
	struct event_outcome out;
	struct msg_error err;
	int64_t seq = jint(r, "seq", 0), ply = jint(r, "ply", 0);

	event_state_init(rules, t->kind);
	if (event_status_parse(jstr(r, "status", NULL), &rules->status) < 0)
		rules->status = EVENT_STATUS_OPEN;
	rules->seq = seq > 0 ? seq : 0;
	rules->ply = ply > 0 ? ply : 0;
	rules->to_move = seat_side(t->kind, jstr(r, "to_move", NULL));
	rules->offer[EVENT_OFFER_DRAW] = seat_side(t->kind, jstr(r, "draw_offer", NULL));
	rules->offer[EVENT_OFFER_REMATCH] = seat_side(t->kind, jstr(r, "rematch_offer", NULL));
	if (event_outcome_decode(json_object_get(r, "result"), t->kind, &out, &err) == 0) {
		rules->status = EVENT_STATUS_FINISHED;
		rules->result = out.result;
		rules->winner = out.winner;
		rules->reason = out.reason;
	} else if (rules->status == EVENT_STATUS_FINISHED) {
		rules->status = EVENT_STATUS_LIVE; /* over only with a result */
	}
	for (int i = 0; i < 2; i++) {
		rules->seated[i] = t->seats[i].name[0] != '\0';
		rules->computer[i] = t->seats[i].computer;
		rules->connected[i] = t->seats[i].connected;
		rules->grace_over[i] = t->seats[i].grace_over;
		rules->claimable[i] = t->seats[i].claimable;
	}
}

static void
handle_state(struct client *c, const struct msg *m)
{
	struct client_state *st = &c->st;
	struct client_table *t = &st->table;
	const json_t *r = m->root;
	struct game_error err = {0, -1, ""};
	struct msg_error merr;
	enum game_kind kind;
	const char *you = jstr(r, "you", "spectator");
	const json_t *moves = json_object_get(r, "moves");
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
	snprintf(t->invite, sizeof t->invite, "%s", jstr(r, "code", ""));
	t->private_game = json_is_true(json_object_get(r, "private"));
	t->rated = json_is_true(json_object_get(r, "rated"));
	if (event_unrated_parse(jstr(r, "unrated", NULL), &t->unrated) < 0)
		t->unrated = EVENT_UNRATED_NONE;
	take_players(st, json_object_get(r, "players"));
	take_spectators(st, json_object_get(r, "spectators"));
	if (event_state_decode(&t->rules, r, &merr) < 0)
		rules_salvage(st, r);
	client_state_table_follow(st, 0);
	t->over = 0;
	if (event_state_over(&t->rules))
		take_result(st);
	take_match(st, r, kind);
}

/*
 * What an event the rules accepted shows: the players, the board and the move list, the clocks,
 * the chat, and a notice. What it did to the game's status, offers and seats is in t->rules
 * already, and on the fields the views read (client_state_table_follow()).
 */
static void
event_show(struct client *c, const struct event *ev)
{
	struct client_state *st = &c->st;
	struct client_table *t = &st->table;
	struct game_error err = {0, -1, ""};

	switch (ev->type) {
	case MSG_SEATED: {
		int side = ev->u.seated.seat;
		take_player(&t->seats[side], &ev->u.seated.player);
		client_notice(c, 0, "%s sits down as %s.", t->seats[side].name,
		              client_state_side_name(t->kind, side));
		break;
	}
	case MSG_STARTED: {
		const struct event_started *s = &ev->u.started;
		struct game g;
		for (int i = 0; i < 2; i++) {
			take_player(&t->seats[i], &s->players[i]);
			t->seats[i].grace_ms = 0;
			t->seats[i].grace_stamp = st->now;
		}
		if (game_parse(&g, t->kind, s->position, &err) == 0)
			t->game = g;
		if (s->clock != NULL)
			snprintf(t->control, sizeof t->control, "%s", s->clock);
		take_clocks(st, &s->clocks);
		if (s->unrated != EVENT_UNRATED_NONE) { /* created rated, played casual */
			t->rated = 0;
			t->unrated = s->unrated;
		}
		client_notice(c, 0, "The game begins: %s vs %s.%s%s", t->seats[0].name,
		              t->seats[1].name, t->unrated != EVENT_UNRATED_NONE ? " " : "",
		              client_state_unrated_text(t->unrated));
		break;
	}
	case MSG_MOVED: {
		const struct event_moved *mv = &ev->u.moved;
		int rc = client_state_table_move(st, -1, mv->move, mv->position, &err);
		if (rc < 0)
			client_notice(c, 1, "Could not follow the move %s: %s", mv->move, err.text);
		take_clocks(st, &mv->clocks);
		/* the status line, quietly: the other side's move replaces what it said (a
		 * selection cannot be open then: only the side to move selects) */
		if (mv->by != t->seat)
			client_state_notice(st, 0, "%s played %s.%s", side_player(t, mv->by),
			                    mv->move, t->seat >= 0 ? " Your move." : "");
		/* ... and our own move, once the server has played it, replaces the "Sent c2-e4"
		 * the screen put there when it was sent */
		else if (rc == 0)
			client_state_notice(st, 0, "You played %s.", mv->move);
		break;
	}
	case MSG_GAME_OVER:
		take_clocks(st, &ev->u.game_over.clocks);
		take_result(st);
		break;
	case MSG_DRAW_OFFERED:
		offer_notice(c, ev->u.offer.by, "a draw");
		break;
	case MSG_DRAW_DECLINED:
		client_notice(c, 0, "%s declines the draw.", side_player(t, ev->u.offer.by));
		break;
	case MSG_CHAT:
		client_state_chat_add(st, 0, ev->u.chat.seat, ev->u.chat.player.name,
		                      ev->u.chat.text);
		break;
	case MSG_GRACE_OVER: {
		int side = ev->u.grace_over.seat;
		take_clocks(st, &ev->u.grace_over.clocks);
		client_notice(c, 1, "%s did not come back in time%s.", side_player(t, side),
		              t->seat == !side ? ": you may claim the win or a draw" : "");
		break;
	}
	case MSG_ADJOURNED:
		client_notice(c, 1, "%s did not come back in time: the game is adjourned.",
		              side_player(t, ev->u.adjourned.seat));
		break;
	case MSG_RESUMED:
		t->clock_stamp = st->now;
		client_notice(c, 0, "Both players are back: the game goes on.");
		break;
	case MSG_REMATCH_OFFERED:
		offer_notice(c, ev->u.offer.by, "a rematch");
		break;
	case MSG_REMATCH_DECLINED:
		client_notice(c, 0, "%s declines the rematch.", side_player(t, ev->u.offer.by));
		break;
	case MSG_REMATCH_STARTED: {
		/* a spectator of a public game may follow it there */
		char how[CLIENT_ID_MAX + 32] = "";
		snprintf(t->rematch_game, sizeof t->rematch_game, "%s",
		         ev->u.rematch_started.new_game);
		if (t->seat < 0 && !t->private_game && c->opt.plain)
			snprintf(how, sizeof how, " (watch %s to follow it)", t->rematch_game);
		else if (t->seat < 0 && !t->private_game)
			snprintf(how, sizeof how, ": w to watch it");
		client_notice(c, 0, "The rematch is game %s%s.", t->rematch_game, how);
		break;
	}
	case MSG_PRESENCE: {
		const struct event_presence *p = &ev->u.presence;
		struct client_seat *seat = &t->seats[p->seat];
		seat->grace_ms = p->has_grace ? p->grace_ms : 0;
		seat->grace_stamp = st->now;
		if (!p->connected && t->over)
			client_notice(c, 0, "%s is offline.", side_player(t, p->seat));
		else if (!p->connected && seat->grace_over)
			client_notice(c, 1, "%s is away and its grace period is over.",
			              side_player(t, p->seat));
		else if (!p->connected)
			client_notice(c, 1, "%s lost the connection; %lld s of grace to come back.",
			              side_player(t, p->seat), (long long)(seat->grace_ms / 1000));
		else
			client_notice(c, 0, "%s is back.", side_player(t, p->seat));
		break;
	}
	case MSG_KIBITZ:
		client_state_chat_add(st, 1, -1, ev->u.kibitz.player.name, ev->u.kibitz.text);
		break;
	case MSG_SPECTATORS: {
		const struct event_spectators *s = &ev->u.spectators;
		const char *list[CLIENT_SPECTATORS];
		int n = 0;
		for (size_t i = 0; i < s->n && n < CLIENT_SPECTATORS; i++)
			list[n++] = json_string_value(json_array_get(s->names_json, i));
		client_state_spectators(st, list, n,
		                        s->count > INT32_MAX ? INT32_MAX : (int)s->count);
		break;
	}
	case MSG_YOUR_TURN:
		break; /* we compute the legal moves ourselves; the views show whose turn it is */
	case MSG_NONE:
	case MSG_HELLO:
	case MSG_LIST:
	case MSG_CREATE:
	case MSG_JOIN:
	case MSG_QUICK:
	case MSG_WATCH:
	case MSG_MOVE:
	case MSG_RESIGN:
	case MSG_LEAVE:
	case MSG_PING:
	case MSG_SAY:
	case MSG_DRAW_OFFER:
	case MSG_DRAW_ACCEPT:
	case MSG_DRAW_DECLINE:
	case MSG_ABORT:
	case MSG_CLAIM:
	case MSG_REMATCH:
	case MSG_REMATCH_DECLINE:
	case MSG_HISTORY:
	case MSG_RECORD:
	case MSG_REGISTER:
	case MSG_PASSWORD_CHANGE:
	case MSG_ACCOUNT_CLOSE:
	case MSG_PROFILE:
	case MSG_LEADERBOARD:
	case MSG_TEST_CLOCK:
	case MSG_WELCOME:
	case MSG_GAMES:
	case MSG_STATE:
	case MSG_OK:
	case MSG_PONG:
	case MSG_ERROR:
	case MSG_BYE:
	case MSG_HISTORY_PAGE:
	case MSG_GAME_RECORD:
	case MSG_NOTICE:
	case MSG_TYPE_COUNT:
		break; /* no codec: event_decode() never gives these */
	}
}

/*
 * A line about the table's game that the codec refuses (a broken or hostile server, or an event
 * type of a later version) or whose event the rules refuse: it changes nothing the rules decide,
 * as a line that cannot be read, but its seq still counts (PROTOCOL.md 6: a client counts the
 * seq of event types it does not know), and a chat or kibitz line in it is shown as far as it
 * can be read, as the client always has.
 */
static void
event_refused(struct client *c, const struct msg *m)
{
	struct client_state *st = &c->st;
	struct client_table *t = &st->table;
	const json_t *r = m->root;
	const char *name = jstr(json_object_get(r, "player"), "name", "?");

	if ((m->type == MSG_NONE || msg_type_is_event(m->type)) &&
	    json_is_integer(json_object_get(r, "seq")) && jint(r, "seq", -1) > t->rules.seq)
		t->rules.seq = jint(r, "seq", -1);
	if (m->type == MSG_CHAT)
		client_state_chat_add(st, 0, seat_side(t->kind, jstr(r, "seat", NULL)), name,
		                      jstr(r, "text", ""));
	else if (m->type == MSG_KIBITZ)
		client_state_chat_add(st, 1, -1, name, jstr(r, "text", ""));
	client_state_table_follow(st, 0);
}

/*
 * A game event or notice (or a line of an unknown type, which may be a later version's event):
 * one at or below the seq already seen is included already (in a state, or seen before a
 * reconnection) and skipped; any other is decoded by its codec (protocol/event.h), applied to the
 * table's rules (protocol/event-state.h), and shown.
 */
static void
handle_event(struct client *c, const struct msg *m)
{
	struct client_state *st = &c->st;
	struct client_table *t = &st->table;
	const json_t *r = m->root;
	int64_t seq = jint(r, "seq", -1);
	struct msg_error err;
	struct event ev;

	if (!t->active || strcmp(jstr(r, "game", ""), t->id) != 0)
		return;
	if ((m->type == MSG_NONE || msg_type_is_event(m->type)) && seq >= 0 && seq <= t->rules.seq)
		return; /* already included */
	if (event_decode(r, t->kind, &ev, &err) < 0 ||
	    event_state_apply(&t->rules, &ev, &err) < 0) {
		event_refused(c, m);
		return;
	}
	client_state_table_follow(st, 1);
	if (m->type == MSG_SEATED || m->type == MSG_STARTED)
		take_marks(t, m);
	if (m->type == MSG_GAME_OVER) {
		take_ratings(t, json_object_get(r, "ratings"));
		if (ev.u.game_over.unrated != EVENT_UNRATED_NONE) {
			t->rated = 0;
			t->unrated = ev.u.game_over.unrated;
		}
	}
	event_show(c, &ev);
}

/* A game summary's result (7.3): 0 or 1 the winning side, -1 drawn, -2 aborted; else -3. */
static int
entry_result(const json_t *res, enum game_kind kind, enum event_reason *reason)
{
	struct event_outcome out;
	struct msg_error err;

	*reason = EVENT_REASON_NONE;
	if (event_outcome_decode(res, kind, &out, &err) < 0)
		return -3;
	*reason = out.reason;
	switch (out.result) {
	case EVENT_RESULT_NONE:
		break;
	case EVENT_RESULT_WIN:
		return out.winner;
	case EVENT_RESULT_DRAW:
		return -1;
	case EVENT_RESULT_ABORTED:
		return -2;
	}
	*reason = EVENT_REASON_NONE;
	return -3;
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
		if (game_kind_parse(jstr(g, "kind", ""), &e->kind) < 0 ||
		    event_status_parse(jstr(g, "status", NULL), &e->status) < 0)
			continue;
		snprintf(e->id, sizeof e->id, "%s", jstr(g, "game", "?"));
		snprintf(e->variant, sizeof e->variant, "%s", jstr(g, "variant", "standard"));
		for (int s = 0; s < 2; s++) {
			const json_t *p = json_object_get(players, game_side_name(e->kind, s));
			snprintf(e->players[s], CLIENT_NAME_MAX, "%s", jstr(p, "name", ""));
			client_account_player(p, &e->who[s], e->rating[s], sizeof e->rating[s]);
		}
		e->rated = json_is_true(json_object_get(g, "rated"));
		e->spectators = (int)jcount(g, "spectators");
		e->ply = (int)jcount(g, "ply");
		e->private_game = json_is_true(json_object_get(g, "private"));
		snprintf(e->clock, sizeof e->clock, "%s", jstr(g, "clock", ""));
		e->result = entry_result(json_object_get(g, "result"), e->kind, &e->reason);
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

	if (p != NULL && p->type == MSG_LEADERBOARD && c->ladder.asking_prov) {
		/* the provisional players did not come: the page is whole without them */
		c->ladder.asking_prov = 0;
		c->ladder_stamp++;
	}
	if (p != NULL && strcmp(code, "no_such_game") == 0 && !p->by_code &&
	    (p->type == MSG_JOIN || p->type == MSG_WATCH)) {
		/* Not a game id: it may be an invite code. */
		int rc = client_request_by_code(c, p->type == MSG_JOIN, p->arg);
		if (rc == 0) {
			if (c->npending > 0)
				c->pending[c->npending - 1].offer_watch = p->offer_watch;
			return;
		}
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
	if (p != NULL && p->offer_watch && strcmp(code, "game_full") == 0) {
		/* a game asked for by its id or code that is being played (or over): offered */
		snprintf(c->offer_watch, sizeof c->offer_watch, "%s", p->arg);
		c->offer_watch_by_code = p->by_code;
		if (c->opt.plain)
			client_notice(c, 1, "Game %s has no open seat: type watch %s to watch it.",
			              p->arg, p->arg);
		else
			client_notice(c, 1, "Game %s has no open seat: w to watch it.", p->arg);
		return;
	}
	if (p != NULL && p->type == MSG_REGISTER && !c->opt.plain) {
		/* a guest's registration refused: the prompt asks again, saying why */
		const json_t *retry = json_object_get(m->root, "retry_ms");
		client_notice(c, 1, "%s", text);
		client_login_ask(c, code, json_is_integer(retry) ? json_integer_value(retry) : 0);
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
			client_notice(
			        c, 1,
			        "Nothing to claim: a claim needs %s away past the grace "
			        "period (without a clock, past the wait after the adjournment).",
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
	const char *next;
	size_t i;
	const json_t *g;

	c->nhistory = 0;
	c->history_total = jcount(m->root, "total");
	/* paged by after, the offset counts from the games before it */
	c->history_offset = c->history_before + jcount(m->root, "offset");
	next = json_string_value(json_object_get(m->root, "next"));
	snprintf(c->history_next, sizeof c->history_next, "%s", next != NULL ? next : "");
	json_array_foreach(games, i, g)
	{
		if (c->nhistory >= CLIENT_HISTORY_MAX)
			break;
		client_account_history_entry(g, &c->history[c->nhistory++]);
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
		                      o->computer, o->rated);
		break;
	case CLIENT_ACTION_JOIN:
		client_request_join(c, o->target);
		break;
	case CLIENT_ACTION_QUICK:
		client_request_quick(c, o->kind, o->variant, o->clock, o->rated);
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
		if (!resumed && client_state_account(&c->st))
			client_notice(c, 0, "Logged in: you are %s.", c->st.name);
		else if (resumed && game != NULL)
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
	if (!resumed && client_state_account(&c->st) && !c->opt.plain)
		/* the status line; --plain's "connected ... (account)" line says it */
		client_state_notice(&c->st, 0, "Logged in: you are %s.", c->st.name);
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
		c->st.who = client_state_who_parse(jstr(player, "kind", NULL));
		if (c->st.who == CLIENT_WHO_UNKNOWN && c->opt.password != NULL)
			c->st.who =
			        CLIENT_WHO_ACCOUNT; /* a server that does not say: we logged in */
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
		if (p != NULL && p->type == MSG_REGISTER) {
			/* a guest's session is the account's from now on, with its name */
			snprintf(c->st.name, sizeof c->st.name, "%s", p->arg);
			snprintf(c->login_name, sizeof c->login_name, "%s", p->arg);
			c->opt.name = c->login_name; /* a later hello with the password: its name */
			c->st.who = CLIENT_WHO_ACCOUNT;
			client_session_save(c->opt.host, c->opt.port, c->st.name,
			                    client_net_token(c), 1);
			client_notice(c, 0, "Registered: you are %s, logged in to the account.",
			              c->st.name);
		} else if (p != NULL && p->type == MSG_LEAVE) {
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
	case MSG_NOTICE:
		/* about the server, not a game (PROTOCOL.md 6.20: store_waiting, then
		 * store_writable), in the server's words */
		client_notice(c, strcmp(jstr(m->root, "code", ""), "store_waiting") == 0,
		              "Server: %s.", jstr(m->root, "text", ""));
		break;
	default:
		/* the replies of accounts and ratings, by their type's name: this file reads them
		 * whatever the codec of protocol/ knows of them */
		if (strcmp(jstr(m->root, "type", ""), "profile") == 0) {
			client_account_profile(c, m->root);
			break;
		}
		if (strcmp(jstr(m->root, "type", ""), "leaderboard") == 0) {
			client_account_ladder(c, m->root);
			break;
		}
		/* game events and notices, and lines of a type we do not know: it may be a later
		 * version's event, whose seq still counts (PROTOCOL.md 6) */
		if (m->type == MSG_NONE || event_type_known(m->type))
			handle_event(c, m);
		/* after a welcome back, the spectators notice follows what we missed (PROTOCOL.md
		 * 4.3): a move held meanwhile may go (client_request_held_flush) */
		if (m->type == MSG_SPECTATORS)
			c->resync++;
		break;
	}
	client_update(c);
}
