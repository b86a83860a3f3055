/*
 * client-alert.c: what must reach a player who is looking elsewhere: when to ring the terminal
 * bell, and the terminal's title ("hokito: your move vs bob").
 *
 * A player waits for the opponent in another window; nothing on the board calls them back. The
 * views ask here after every change (and the full screen on its clock tick too) whether one of
 * the moments that need them has come since they last asked: the game has started, the opponent
 * has moved (so it is our move), our clock has fallen under CLIENT_ALERT_LOW_MS on our move, the
 * opponent offers a draw or a rematch, the game is over. Each rings once: struct client_alert
 * remembers what was seen, table by table. Only a seated player is called; a spectator's title
 * follows the game all the same. This module reads struct client_state and does no I/O: the
 * views ring and write the title (the full screen with an OSC 2 sequence), and --no-bell or the
 * B key (bell_off) keeps the bell quiet.
 */
#include <stdio.h>
#include <string.h>

#include "client.h"

void
client_alert_init(struct client_alert *a, int bell_off)
{
	memset(a, 0, sizeof *a);
	a->bell_off = bell_off;
	a->draw_offer = a->rematch_offer = -1;
}

/* The opponent's name at a table we sit at, "" when the seat is empty. Borrowed. */
static const char *
opponent(const struct client_table *t)
{
	return t->seats[!t->seat].name;
}

int
client_alert_check(struct client_alert *a, const struct client_state *st, uint64_t now)
{
	const struct client_table *t = &st->table;
	int why = 0, low;

	if (!t->active) {
		a->game[0] = '\0';
		return 0;
	}
	if (strcmp(a->game, t->id) != 0 || a->seat != t->seat) {
		/* A table seen for the first time: a game that is on calls the player in. */
		snprintf(a->game, sizeof a->game, "%s", t->id);
		a->seat = t->seat;
		a->started = 0;
		a->over = t->over;
		a->nmoves = t->nmoves;
		a->draw_offer = t->draw_offer;
		a->rematch_offer = t->rematch_offer;
		a->low = 0;
	}
	if (t->seat < 0) {
		a->started = t->started;
		a->over = t->over;
		a->nmoves = t->nmoves;
		return 0;
	}
	if (t->started && !a->started && !t->over)
		why |= CLIENT_ALERT_STARTED;
	if (t->nmoves > a->nmoves && client_state_our_turn(st))
		why |= CLIENT_ALERT_MOVED;
	low = t->timed && client_state_our_turn(st) &&
	      client_state_clock(t, t->seat, now) < CLIENT_ALERT_LOW_MS;
	if (low && !a->low)
		why |= CLIENT_ALERT_LOW_TIME;
	if (t->draw_offer >= 0 && t->draw_offer != t->seat && t->draw_offer != a->draw_offer)
		why |= CLIENT_ALERT_OFFER;
	if (t->rematch_offer >= 0 && t->rematch_offer != t->seat &&
	    t->rematch_offer != a->rematch_offer)
		why |= CLIENT_ALERT_OFFER;
	if (t->over && !a->over)
		why = CLIENT_ALERT_OVER; /* says it all: a move that ends the game is no turn */
	a->started = t->started;
	a->over = t->over;
	a->nmoves = t->nmoves;
	a->low = low;
	a->draw_offer = t->draw_offer;
	a->rematch_offer = t->rematch_offer;
	return why;
}

/* The title for the state, written to buf: see client_alert_title(). */
static void
alert_title_text(const struct client_state *st, char *buf, size_t size)
{
	const struct client_table *t = &st->table;
	const char *them;

	if (!t->active) {
		snprintf(buf, size, "hokito: lobby");
		return;
	}
	if (t->seat < 0) {
		snprintf(buf, size, "hokito: %s vs %s%s",
		         t->seats[0].name[0] ? t->seats[0].name : "?",
		         t->seats[1].name[0] ? t->seats[1].name : "?",
		         t->over ? ", game over" : " (watching)");
		return;
	}
	them = opponent(t);
	if (!t->started && !t->over)
		snprintf(buf, size, "hokito: waiting for an opponent");
	else if (t->over)
		snprintf(buf, size, "hokito: %s vs %s",
		         t->aborted             ? "game over"
		         : t->winner < 0        ? "draw"
		         : t->winner == t->seat ? "you won"
		                                : "you lost",
		         them);
	else if (t->adjourned)
		snprintf(buf, size, "hokito: adjourned vs %s", them);
	else if (client_state_our_turn(st))
		snprintf(buf, size, "hokito: your move vs %s", them);
	else
		snprintf(buf, size, "hokito: %s to move", them);
}

int
client_alert_title(struct client_alert *a, const struct client_state *st)
{
	char buf[sizeof a->title];

	alert_title_text(st, buf, sizeof buf);
	for (char *p = buf; *p != '\0'; p++)
		*p = client_shown_byte(*p); /* a name could end the sequence early */
	if (strcmp(buf, a->title) == 0)
		return 0;
	memcpy(a->title, buf, sizeof buf);
	return 1;
}
