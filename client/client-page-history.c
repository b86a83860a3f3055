/*
 * client-page-history.c: the history page (client_page_history): the server's finished games,
 * most recent first, HISTORY_PAGE at a time, as client-msg.c keeps the last page received.
 *
 * It shows "asking" until the page asked for comes (c->history_stamp moves), pages older and
 * newer, and opens the replay of the game chosen (client-page-replay.c). m turns it to "my
 * games", the games of our own name (the history by player: our private games included).
 *
 * Pages go by key, as the server wants them at any depth (PROTOCOL.md `history`): an older page
 * is asked for after the `next` of the page shown, and the keys of the pages seen are kept
 * (s->hafter, one per page from the first), so that going back to a newer page asks for it after
 * the same key again.
 */
#include <stdio.h>
#include <string.h>

#include "client-screen.h"
#include "protocol.h"
#include "xmalloc.h"

#define HISTORY_PAGE 20 /* games asked for at a time */

/* The history page: finished games, most recent first, HISTORY_PAGE at a time. */
static void
draw_history(struct screen *s)
{
	const struct client *c = s->c;
	int y = 2, w = COLS, show;

	attron(A_BOLD);
	if (s->hplayer[0])
		client_screen_put(y, 1, w - 1, "Games of %s", s->hplayer);
	else
		client_screen_put(y, 1, w - 1, "Finished games");
	attroff(A_BOLD);
	attron(A_DIM);
	client_screen_put(y + 1, 1, w - 2, "%s",
	                  s->hplayer[0] ? "m: all games" : "m: my games only");
	attroff(A_DIM);
	if (c->history_stamp != s->hstamp && c->history_total > 0 && !s->hplayer[0])
		client_screen_put(y, 17, w - 18, "%lld to %lld of %lld, most recent first",
		                  (long long)c->history_offset + 1,
		                  (long long)(c->history_offset + c->nhistory),
		                  (long long)c->history_total);
	y += 2;
	attron(A_UNDERLINE | A_BOLD);
	client_screen_blank(y, 1, w - 2);
	client_screen_put(y, 1, w - 2, " %-8s %s", "ID", "GAME");
	attroff(A_UNDERLINE | A_BOLD);
	y++;
	show = LINES - 3 - y;
	if (s->hrow >= c->nhistory)
		s->hrow = c->nhistory - 1;
	if (s->hrow < 0)
		s->hrow = 0;
	if (s->hrow < s->htop)
		s->htop = s->hrow;
	if (s->hrow >= s->htop + show)
		s->htop = s->hrow - show + 1;
	if (c->history_stamp == s->hstamp || c->nhistory == 0) {
		attron(A_DIM);
		client_screen_put(y + 1, 3, w - 4, "%s",
		                  c->history_stamp == s->hstamp ? "Asking the server..."
		                  : s->hplayer[0] ? "No finished games of this player."
		                                  : "No finished games on this server yet.");
		attroff(A_DIM);
	} else {
		for (int i = s->htop; i < c->nhistory && y < LINES - 3; i++, y++) {
			if (i == s->hrow)
				attron(A_REVERSE);
			client_screen_blank(y, 1, w - 2);
			client_screen_putn_cut(s, y, 2, 8, c->history[i].id);
			client_screen_putn_cut(s, y, 11, w - 12, c->history[i].line);
			attroff(A_REVERSE);
		}
	}
	{
		static const char *const keys[] = {
		        "Enter", "replay",    "n/PgDn",  "older",  "p/PgUp", "newer", "q",  "lobby",
		        "r",     "ask again", "Up/Down", "choose", "?",      "help",  NULL,
		};
		client_screen_hints(keys);
	}
}

/* Ask for page s->hpage, after its key (none for the first). */
static void
history_ask(struct screen *s)
{
	s->hstamp = s->c->history_stamp;
	s->hrow = 0;
	s->htop = 0;
	client_state_notice(&s->c->st, 0, "%s", ""); /* what the last page said is not about it */
	client_request_history(s->c, s->hpage > 0 ? s->hafter[s->hpage] : NULL,
	                       (int64_t)s->hpage * HISTORY_PAGE, 0, HISTORY_PAGE, s->hplayer);
}

void
client_page_history_open(struct screen *s)
{
	s->page = &client_page_history;
	s->hpage = 0;
	history_ask(s);
}

/* The page after the one shown, after its next (key). */
static void
history_older(struct screen *s, const char *next)
{
	size_t page = s->hpage + 1;

	s->hafter = xgrow(s->hafter, page, &s->hafter_cap, sizeof *s->hafter, 16);
	snprintf(s->hafter[page], sizeof s->hafter[page], "%s", next);
	s->hpage = page;
	history_ask(s);
}

static void
history_key(struct screen *s, int ch, MEVENT *mev)
{
	struct client *c = s->c;
	int loaded = c->history_stamp != s->hstamp;

	switch (ch) {
	case KEY_UP:
	case 'k':
	case KEY_DOWN:
	case 'j':
		client_screen_list_step(&s->hrow, c->nhistory, ch);
		break;
	case KEY_NPAGE:
	case 'n':
		if (loaded && c->history_next[0] != '\0')
			history_older(s, c->history_next);
		else if (loaded)
			client_state_notice(&c->st, 0, "No older games: this is the last page.");
		break;
	case KEY_PPAGE:
	case 'p':
		if (loaded && s->hpage > 0) {
			s->hpage--;
			history_ask(s);
		} else if (loaded)
			client_state_notice(&c->st, 0, "No newer games: this is the first page.");
		break;
	case 'r':
		history_ask(s);
		break;
	case 'm':
		/* my games, or back to all of them */
		snprintf(s->hplayer, sizeof s->hplayer, "%s", s->hplayer[0] ? "" : c->st.name);
		client_page_history_open(s);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (loaded && s->hrow < c->nhistory)
			client_page_replay_open(s, c->history[s->hrow].id, &client_page_history);
		break;
	case 'q':
	case KEY_ESCAPE:
		client_screen_page_back(s, s->hback);
		break;
	default:
		break;
	}
}

/* The title: "history". */
static void
history_title(const struct screen *s, char *buf, size_t size)
{
	if (s->hplayer[0])
		snprintf(buf, size, "history of %s", s->hplayer);
	else
		snprintf(buf, size, "history");
}

static const char *const history_help[] = {
        "Up/Down, j/k    choose a game",
        "Enter           replay it",
        "n / PgDn        older games (next page)",
        "p / PgUp        newer games (previous page)",
        "r               ask again",
        "m               my games / all games",
        "R               the rules of both games",
        "q / Esc         back to the lobby",
        NULL,
};

const struct client_page client_page_history = {
        .name = "history",
        .title = history_title,
        .draw = draw_history,
        .key = history_key,
        .help = history_help,
};
