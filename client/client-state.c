/*
 * client-state.c: what the client knows, and the questions the views ask about it.
 *
 * This module owns struct client_state: the link status, the lobby list, the table (the game
 * being played or watched, with its position, seats, move list, spectators and outcome) and the
 * notice on the status line. The network layer changes it through client_state_* as messages
 * arrive; the views only read it, and ask here which squares may be selected and where a
 * selection may go, so that an illegal choice is refused with the engine's reason before
 * anything is sent. It is pure: no I/O, no libuv, no curses, and the rules are read only
 * through the game interface of common/game.h and, for what the game's events decided, the
 * struct event_state of protocol/event-state.h that the table keeps (client_state_table_follow()).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "client-state.h"

/* Copy a string into a fixed buffer, always terminated, cut if too long. */
static void
copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src != NULL ? src : "");
}

void
client_state_init(struct client_state *st)
{
	memset(st, 0, sizeof *st);
	st->link = CLIENT_LINK_CONNECTING;
	client_state_table_clear(st);
}

void
client_state_notice(struct client_state *st, int error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->message, sizeof st->message, fmt, ap);
	va_end(ap);
	st->message_error = error;
	st->message_stamp++;
}

const char *
client_state_unrated_text(enum event_unrated why)
{
	static const char *const text[EVENT_UNRATED_COUNT] = {
	        [EVENT_UNRATED_NONE] = "",
	        [EVENT_UNRATED_SAME_ADDRESS] =
	                "Not rated: both players come from one address, so it is casual.",
	        [EVENT_UNRATED_PAIR_LIMIT] =
	                "Not rated: you two played your rated games of the day, so it is casual.",
	        [EVENT_UNRATED_SHORT] = "Not rated: it ended before enough moves were played.",
	};

	return (int)why >= 0 && why < EVENT_UNRATED_COUNT ? text[why] : "";
}

const char *
client_state_side_name(enum game_kind kind, int side)
{
	switch (kind) {
	case GAME_HOKITO:
		return side != 0 ? "White" : "Black";
	case GAME_OXONO:
		return side != 0 ? "Black" : "Pink";
	}
	return side != 0 ? "Second" : "First";
}

void
client_state_table_clear(struct client_state *st)
{
	memset(&st->table, 0, sizeof st->table);
	st->table.seat = -1;
	st->table.seq = -1;
	st->table.winner = -1;
	st->table.draw_offer = -1;
	st->table.rematch_offer = -1;
}

int
client_state_table_open(struct client_state *st, enum game_kind kind, const char *variant,
                        const char *id, int seat, const char *position, struct game_error *err)
{
	struct client_table *t = &st->table;
	struct game g;
	int rc;

	if (position != NULL && position[0] != '\0')
		rc = game_parse(&g, kind, position, err);
	else
		rc = game_start(&g, kind, variant, 0, err);
	if (rc < 0)
		return rc;
	if (!t->active || strcmp(t->id, id) != 0) {
		client_state_table_clear(st);
		copy(t->id, sizeof t->id, id);
	}
	t->active = 1;
	t->kind = kind;
	copy(t->variant, sizeof t->variant, variant != NULL && variant[0] ? variant : "standard");
	t->seat = seat;
	t->game = g;
	return 0;
}

int
client_state_table_move(struct client_state *st, int64_t seq, const char *move,
                        const char *position, struct game_error *err)
{
	struct client_table *t = &st->table;
	struct game_move m;
	int rc;

	if (!t->active)
		return 1;
	if (seq >= 0 && seq <= t->seq)
		return 1;
	/* A dropped player's grace runs on its own turns only: what is left of it as the turn
	 * changes hands is its new starting point (else the time the other side thought would
	 * count against it on screen). */
	for (int i = 0; i < 2; i++) {
		t->seats[i].grace_ms = client_state_grace(t, i, st->now);
		t->seats[i].grace_stamp = st->now;
	}
	if (position != NULL && position[0] != '\0') {
		struct game g;
		rc = game_parse(&g, t->kind, position, err);
		if (rc < 0)
			return rc;
		t->game = g;
	} else {
		rc = game_move_parse(&t->game, move, &m, err);
		if (rc < 0)
			return rc;
		game_apply(&t->game, m);
	}
	if (t->nmoves < CLIENT_MOVES_MAX && move != NULL)
		copy(t->moves[t->nmoves++], GAME_MOVE_TEXT, move);
	if (seq >= 0)
		t->seq = seq;
	t->started = 1;
	return 0;
}

void
client_state_table_follow(struct client_state *st, int seats)
{
	struct client_table *t = &st->table;
	const struct event_state *r = &t->rules;

	t->seq = r->seq;
	t->started = r->status != EVENT_STATUS_OPEN;
	t->adjourned = r->status == EVENT_STATUS_ADJOURNED;
	t->draw_offer = r->offer[EVENT_OFFER_DRAW];
	t->rematch_offer = r->offer[EVENT_OFFER_REMATCH];
	for (int i = 0; seats && i < 2; i++) {
		t->seats[i].connected = r->connected[i];
		t->seats[i].grace_over = r->grace_over[i];
		t->seats[i].claimable = r->claimable[i];
	}
}

void
client_state_table_over(struct client_state *st, int winner, const char *reason)
{
	struct client_table *t = &st->table;

	t->over = 1;
	t->winner = winner;
	game_outcome(&t->game, &t->outcome);
	copy(t->reason, sizeof t->reason, reason);
}

void
client_state_spectators(struct client_state *st, const char *const *names, int n, int count)
{
	struct client_table *t = &st->table;

	t->nspectators = count > n ? count : n;
	for (int i = 0; i < n && i < CLIENT_SPECTATORS; i++)
		copy(t->spectators[i], CLIENT_NAME_MAX, names[i]);
	for (int i = n; i < CLIENT_SPECTATORS; i++)
		t->spectators[i][0] = '\0';
}

void
client_state_spectators_text(const struct client_table *t, char *buf, size_t size)
{
	size_t l = 0;

	buf[0] = '\0';
	for (int i = 0; i < CLIENT_SPECTATORS && t->spectators[i][0] != '\0' && l < size; i++) {
		snprintf(buf + l, size - l, "%s%s", i ? ", " : "", t->spectators[i]);
		l += strlen(buf + l);
	}
}

void
client_state_cell(const struct game *g, int sq, struct client_cell *cell)
{
	size_t len;

	memset(cell, 0, sizeof *cell);
	if (game_cell_format(g, sq, cell->text, sizeof cell->text) < 0 || cell->text[0] == '-' ||
	    cell->text[0] == '\0') {
		cell->empty = 1;
		return;
	}
	len = strlen(cell->text);
	switch (g->kind) {
	case GAME_HOKITO:
		/* Bottom to top, two characters a pawn: the top pawn is the last pair. */
		cell->height = (int)(len / 2);
		cell->colour = cell->text[len - 2] == 'w';
		cell->value = cell->text[len - 1] - '0';
		return;
	case GAME_OXONO:
		if (cell->text[0] == 'X' || cell->text[0] == 'O') {
			cell->totem = 1;
			cell->value = cell->text[0] == 'O';
			return;
		}
		cell->height = 1;
		cell->colour = cell->text[0] == 'b';
		cell->value = len > 1 && cell->text[1] == 'o';
		return;
	}
}

void
client_state_reserves(const struct game *g, int reserve[2][2])
{
	memset(reserve, 0, sizeof(int[2][2]));
	if (!game_kind_has(g->kind, GAME_HAS_RESERVES))
		return;
	for (int c = 0; c < 2; c++)
		for (int s = 0; s < 2; s++)
			reserve[c][s] = game_reserve(g, c, s);
}

int
client_state_totem(const struct game *g, int symbol)
{
	struct client_cell cell;

	switch (g->kind) {
	case GAME_HOKITO:
		return -1;
	case GAME_OXONO:
		break;
	}
	for (int sq = 0; sq < GAME_SQUARES; sq++) {
		client_state_cell(g, sq, &cell);
		if (cell.totem && cell.value == symbol)
			return sq;
	}
	return -1;
}

int
client_state_our_turn(const struct client_state *st)
{
	const struct client_table *t = &st->table;

	return t->active && t->started && !t->adjourned && !t->over && t->seat >= 0 &&
	       game_side(&t->game) == t->seat && !game_over(&t->game);
}

/*
 * Why we may not move now, written to why (returns -1 with a negative game_errno in *code), or 0
 * when we may: seated at a live game that is not over, adjourned or waiting for its second
 * player, on our turn. The server refuses the same moves (not_seated, not_started, game_over,
 * not_your_turn); saying so here refuses them before anything is sent.
 */
static int
move_refused(const struct client_state *st, char *why, size_t size, int *code)
{
	const struct client_table *t = &st->table;

	*code = GAME_EILLEGAL;
	if (!t->active) {
		snprintf(why, size, "You are not at a game: create or join one first.");
		*code = GAME_EINVAL;
	} else if (t->seat < 0) {
		snprintf(why, size, "You are watching this game: you cannot move.");
		*code = GAME_EINVAL;
	} else if (t->over || game_over(&t->game)) {
		snprintf(why, size, "The game is over.");
		*code = GAME_EOVER;
	} else if (!t->started) {
		snprintf(why, size, "The game has not started: waiting for an opponent.");
	} else if (t->adjourned) {
		snprintf(why, size,
		         "The game is adjourned: it goes on when both players are back.");
	} else if (game_side(&t->game) != t->seat) {
		snprintf(why, size, "Not your turn: %s to move.",
		         client_state_side_name(t->kind, game_side(&t->game)));
	} else {
		return 0;
	}
	return -1;
}

int
client_state_destinations(const struct game *g, int from, int totem_to, uint8_t mask[36])
{
	struct game_move moves[GAME_MOVES_MAX];
	int n = game_moves(g, moves), count = 0;
	int symbol = -1;

	memset(mask, 0, 36);
	switch (g->kind) {
	case GAME_HOKITO:
		break;
	case GAME_OXONO:
		/* a move names its totem by symbol (from), the totem's square (to), the pawn's
		   (place) */
		if (from == client_state_totem(g, 0))
			symbol = 0;
		else if (from == client_state_totem(g, 1))
			symbol = 1;
		if (symbol < 0)
			return 0;
		break;
	}
	for (int i = 0; i < n; i++) {
		int sq;
		if (symbol < 0) {
			if (moves[i].from != from)
				continue;
			sq = moves[i].to;
		} else {
			if (moves[i].from != symbol)
				continue;
			if (totem_to >= 0 && moves[i].to != totem_to)
				continue;
			sq = totem_to >= 0 ? moves[i].place : moves[i].to;
		}
		if (!mask[sq])
			count++;
		mask[sq] = 1;
	}
	return count;
}

int
client_state_selectable(const struct client_state *st, int sq, char *why, size_t size)
{
	const struct client_table *t = &st->table;
	const char *side = client_state_side_name(t->kind, t->seat);
	struct client_cell cell;
	uint8_t mask[36];
	char name[3];
	int reserve[2][2];

	int code;

	game_square_name(sq, name);
	if (move_refused(st, why, size, &code) < 0)
		return -1;
	client_state_cell(&t->game, sq, &cell);
	switch (t->kind) {
	case GAME_HOKITO:
		/* a pawn or stack of one's own colour that can make its hops */
		if (cell.empty) {
			snprintf(why, size, "%s is empty: pick one of your pawns or stacks.", name);
			return -1;
		}
		if (cell.colour != t->seat) {
			snprintf(why, size, "The %s on %s is %s's: you play %s.",
			         cell.height > 1 ? "stack" : "pawn", name,
			         client_state_side_name(t->kind, cell.colour), side);
			return -1;
		}
		if (client_state_destinations(&t->game, sq, -1, mask) == 0) {
			snprintf(why, size,
			         "The %s on %s has no legal move (it must make exactly %d hop%s).",
			         cell.height > 1 ? "stack" : "pawn", name, cell.value,
			         cell.value > 1 ? "s" : "");
			return -1;
		}
		return 0;
	case GAME_OXONO:
		/* a totem whose symbol one still holds, with somewhere to go */
		if (!cell.totem) {
			snprintf(
			        why, size,
			        "Pick a totem first (X on the board, or O), then a square for it.");
			return -1;
		}
		client_state_reserves(&t->game, reserve);
		if (reserve[t->seat][cell.value] == 0) {
			snprintf(why, size, "You have no %c pawns left: move the other totem.",
			         cell.value ? 'O' : 'X');
			return -1;
		}
		if (client_state_destinations(&t->game, sq, -1, mask) == 0) {
			snprintf(why, size, "Totem %c cannot move.", cell.value ? 'O' : 'X');
			return -1;
		}
		return 0;
	}
	snprintf(why, size, "This client cannot play %s.", game_kind_a_title(t->kind));
	return -1;
}

int
client_state_move_check(const struct client_state *st, const char *text, char *out, size_t outsize,
                        char *why, size_t whysize)
{
	const struct client_table *t = &st->table;
	struct game_error err = {0, -1, ""};
	struct game_move m;
	int rc;

	if (move_refused(st, why, whysize, &rc) < 0)
		return rc;
	rc = game_move_parse(&t->game, text, &m, &err);
	if (rc < 0) {
		snprintf(why, whysize, "%s: %s", text, err.text[0] ? err.text : "illegal move");
		return rc;
	}
	rc = game_move_format(t->kind, m, out, outsize);
	return rc < 0 ? rc : 0;
}

void
client_state_result_text(const struct client_table *t, char *buf, size_t size)
{
	const struct game_outcome *o = &t->outcome;
	int winner = t->winner;

	if (t->aborted) {
		snprintf(buf, size, "No result");
		return;
	}
	if (winner < 0 && o->end != GAME_END_NONE)
		winner = o->winner;
	if (o->end == GAME_END_NONE) {
		/*
		 * client24: a game the rules did not end (a resignation, a flag, a player who left,
		 * an agreement) is not won by its scores: say how it was won, not "35 to 36".
		 */
		const char *how = NULL;

		switch (t->end_reason) {
		case EVENT_REASON_RESIGN:
			how = "by resignation";
			break;
		case EVENT_REASON_TIME:
			how = "on time";
			break;
		case EVENT_REASON_DISCONNECT:
			how = "by forfeit";
			break;
		case EVENT_REASON_AGREEMENT:
			how = "by agreement";
			break;
		case EVENT_REASON_NONE:
		case EVENT_REASON_BLOCKED:
		case EVENT_REASON_LINE:
		case EVENT_REASON_FULL:
		case EVENT_REASON_ABANDONED:
		case EVENT_REASON_ABORT:
			break; /* the rules ended it: the scores say how */
		}
		if (how != NULL) {
			if (winner < 0)
				snprintf(buf, size, "Draw %s", how);
			else
				snprintf(buf, size, "%s wins %s",
				         client_state_side_name(t->kind, winner), how);
			return;
		}
	}
	client_state_outcome_text(t->kind, winner, o->score, buf, size);
}

void
client_state_outcome_text(enum game_kind kind, int winner, const int score[2], char *buf,
                          size_t size)
{
	if (game_kind_has(kind, GAME_HAS_SCORES)) {
		if (winner < 0)
			snprintf(buf, size, "Draw, %d to %d", score[0], score[1]);
		else
			snprintf(buf, size, "%s wins, %d to %d",
			         client_state_side_name(kind, winner), score[winner],
			         score[!winner]);
		return;
	}
	if (winner < 0)
		snprintf(buf, size, "Draw");
	else
		snprintf(buf, size, "%s wins", client_state_side_name(kind, winner));
}

const struct client_entry *
client_state_entry(const struct client_state *st, const char *id)
{
	for (int i = 0; i < st->nlist; i++)
		if (strcmp(st->list[i].id, id) == 0)
			return &st->list[i];
	return NULL;
}

/* Time since a stamp for the side to move of a live game, else 0. */
static int64_t
running_for(const struct client_table *t, int side, uint64_t stamp, uint64_t now)
{
	if (!t->started || t->over || t->adjourned || game_side(&t->game) != side || now <= stamp)
		return 0;
	return (int64_t)(now - stamp);
}

int64_t
client_state_clock(const struct client_table *t, int side, uint64_t now)
{
	int64_t ms;

	if (!t->timed)
		return -1;
	if (t->clock_ms[side] <= 0)
		return 0; /* spent; and what the server sent may be anything: nothing to take off */
	if (t->first_move_timer && event_state_may_abort(&t->rules, side))
		return t->clock_ms[side]; /* it stands before that side's first move (11.1) */
	ms = t->clock_ms[side] - running_for(t, side, t->clock_stamp, now);
	return ms > 0 ? ms : 0;
}

int64_t
client_state_grace(const struct client_table *t, int side, uint64_t now)
{
	const struct client_seat *s = &t->seats[side];
	int64_t ms;

	if (s->connected || s->grace_over || s->grace_ms <= 0)
		return 0; /* at or below zero (whatever the server sent): nothing to take off */
	ms = s->grace_ms - running_for(t, side, s->grace_stamp, now);
	return ms > 0 ? ms : 0;
}

void
client_state_clock_text(int64_t ms, char *buf, size_t size)
{
	long long s; /* whole seconds: any int64_t ms fits, and so does every part printed */

	if (ms < 0)
		ms = 0;
	s = (long long)(ms / 1000);
	if (ms < 10000)
		snprintf(buf, size, "0:%02lld.%lld", s, (long long)(ms % 1000 / 100));
	else if (s < 3600)
		snprintf(buf, size, "%lld:%02lld", s / 60, s % 60);
	else
		snprintf(buf, size, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
}

void
client_state_chat_add(struct client_state *st, int kibitz, int seat, const char *name,
                      const char *text)
{
	struct client_table *t = &st->table;
	int *n = kibitz ? &t->nkibitz : &t->nchat;
	struct client_chat *line = &(kibitz ? t->kibitz : t->chat)[*n % CLIENT_CHAT_KEEP];

	copy(line->name, sizeof line->name, name);
	copy(line->text, sizeof line->text, text);
	line->seat = seat;
	line->order = t->nchat + t->nkibitz;
	(*n)++;
}

const struct client_chat *
client_state_chat_get(const struct client_table *t, int kibitz, int i)
{
	int n = kibitz ? t->nkibitz : t->nchat;

	if (i < 0 || i >= n || i >= CLIENT_CHAT_KEEP)
		return NULL;
	return &(kibitz ? t->kibitz : t->chat)[(n - 1 - i) % CLIENT_CHAT_KEEP];
}

/*
 * Both chats are rings of their own; the log walks them back together, newest first, taking at
 * each step the more recent of the two lines next in line (the one received later).
 */
const struct client_chat *
client_state_chat_log(const struct client_table *t, int i, int *kibitz)
{
	int a = 0, b = 0; /* lines taken from the players' chat and from the spectators' */

	for (;;) {
		const struct client_chat *pc = client_state_chat_get(t, 0, a);
		const struct client_chat *kc = client_state_chat_get(t, 1, b);
		int k;
		if (pc == NULL && kc == NULL)
			return NULL;
		k = pc == NULL || (kc != NULL && kc->order > pc->order);
		if (i-- == 0) {
			*kibitz = k;
			return k ? kc : pc;
		}
		if (k)
			b++;
		else
			a++;
	}
}

enum client_who
client_state_who_parse(const char *word)
{
	static const char *const words[] = {
	        [CLIENT_WHO_ACCOUNT] = "account",
	        [CLIENT_WHO_GUEST] = "guest",
	        [CLIENT_WHO_COMPUTER] = "computer",
	        [CLIENT_WHO_BOT] = "bot",
	};

	for (size_t i = 1; word != NULL && i < sizeof words / sizeof words[0]; i++)
		if (strcmp(word, words[i]) == 0)
			return (enum client_who)i;
	return CLIENT_WHO_UNKNOWN;
}

void
client_state_player_text(const char *name, enum client_who who, const char *rating, char *buf,
                         size_t size)
{
	const char *r = rating != NULL ? rating : "";

	switch (who) {
	case CLIENT_WHO_GUEST:
		snprintf(buf, size, "%s (guest)", name);
		return;
	case CLIENT_WHO_BOT:
		snprintf(buf, size, "%s [bot]%s%s", name, r[0] ? " " : "", r);
		return;
	case CLIENT_WHO_ACCOUNT:
		snprintf(buf, size, "%s%s%s", name, r[0] ? " " : "", r);
		return;
	case CLIENT_WHO_COMPUTER:
	case CLIENT_WHO_UNKNOWN:
		break;
	}
	snprintf(buf, size, "%s", name);
}

void
client_state_seat_text(const struct client_table *t, int side, char *buf, size_t size)
{
	const struct client_seat *seat = &t->seats[side];

	if (seat->name[0] == '\0')
		snprintf(buf, size, "(empty seat)");
	else if (side == t->seat && seat->who == CLIENT_WHO_GUEST)
		snprintf(buf, size, "%s", seat->name); /* "(you)" follows: we know what we are */
	else
		client_state_player_text(seat->name, seat->who, seat->rating, buf, size);
}

void
client_state_change_text(const struct client_table *t, int side, char *buf, size_t size)
{
	const struct client_rating_change *ch = &t->change[side];
	double diff;

	if (!ch->has) {
		snprintf(buf, size, "%s", "");
		return;
	}
	diff = ch->after - ch->before;
	snprintf(buf, size, "%s %s -> %s, %+.0f", t->seats[side].name, ch->before_shown,
	         ch->after_shown, diff > -0.5 && diff < 0.5 ? 0.0 : diff);
}

int
client_state_account(const struct client_state *st)
{
	return st->who == CLIENT_WHO_ACCOUNT || st->who == CLIENT_WHO_BOT;
}
