/*
 * client-page-ladder.c: the leaderboard (client_page_ladder): the accounts and bots with a
 * rating that is no longer provisional in one game kind, best first, a page at a time; below the
 * last page, apart and marked, the players whose rating is still provisional (on a new server,
 * everyone for a while), so that the page is never empty without saying why.
 *
 * Pages follow the server's "next" keys: n asks for the page after the one shown, p goes back
 * through the keys of the pages before (kept in struct screen), t switches the game kind, and
 * Enter opens the profile of the player chosen (client-page-profile.c). It shows "asking" until
 * the page asked for comes (c->ladder_stamp moves).
 */
#include <stdio.h>
#include <string.h>

#include "client-screen.h"

#define LADDER_BACK ((int)(sizeof((struct screen *)0)->lafter / CLIENT_NEXT_MAX))

/* Ask for page s->lpage of the kind shown: the first, or the one after the key kept for it. */
static void
ladder_ask(struct screen *s)
{
	s->lstamp = s->c->ladder_stamp;
	s->lrow = 0;
	s->ltop = 0;
	client_state_notice(&s->c->st, 0, "%s", "");
	client_request_leaderboard(s->c, (enum game_kind)s->lkind,
	                           s->lpage > 0 ? s->lafter[s->lpage] : NULL, 0);
}

void
client_page_ladder_open(struct screen *s, enum game_kind kind)
{
	s->page = &client_page_ladder;
	s->help = 0;
	s->lkind = (int)kind;
	s->lpage = 0;
	ladder_ask(s);
}

static int
ladder_loaded(const struct screen *s)
{
	return s->c->ladder_stamp != s->lstamp;
}

/* The rows a player may be chosen in: the ranked ones, then the provisional ones. */
static int
ladder_rows(const struct client_ladder *l)
{
	return l->nrows + l->nprov;
}

/*
 * The lines drawn: the ranked rows; then, when there are provisional ones, a heading line
 * (two, the first saying that no one is ranked, when no row is) and their rows. The row shown
 * on line k, or -1 for a heading.
 */
static int
ladder_row_at(const struct client_ladder *l, int k)
{
	int head = l->nprov > 0 ? 1 + (l->nrows == 0) : 0;

	if (k < l->nrows)
		return k;
	return k - l->nrows < head ? -1 : k - head;
}

/* The line row i is drawn on (ladder_row_at()'s inverse). */
static int
ladder_line_of(const struct client_ladder *l, int i)
{
	return i < l->nrows ? i : i + 1 + (l->nrows == 0);
}

static void
draw_ladder(struct screen *s)
{
	const struct client_ladder *l = &s->c->ladder;
	int y = 2, w = COLS, show;

	attron(A_BOLD);
	client_screen_put(y, 1, w - 2, "Leaderboard: %s",
	                  game_kind_title((enum game_kind)s->lkind));
	attroff(A_BOLD);
	client_screen_put(y, 28, w - 29, "page %d (t: the other game)", s->lpage + 1);
	y += 2;
	attron(A_UNDERLINE | A_BOLD);
	client_screen_blank(y, 1, w - 2);
	client_screen_put(y, 1, w - 2, " %5s  %-28s %6s  %-7s %s", "RANK", "PLAYER", "RATING", "RD",
	                  "GAMES");
	attroff(A_UNDERLINE | A_BOLD);
	y++;
	show = LINES - 3 - y;
	if (!ladder_loaded(s) || l->nrows + l->nprov == 0) {
		attron(A_DIM);
		client_screen_put(y + 1, 3, w - 4, "%s",
		                  ladder_loaded(s) ? "Nobody yet: a player shows here after a "
		                                     "rated game, ranked once the rating's "
		                                     "deviation is 110 or less."
		                  : client_request_pending(s->c, MSG_LEADERBOARD)
		                          ? "Asking the server..."
		                          : "Not asked: the connection is down (r asks again).");
		attroff(A_DIM);
	} else {
		/* the lines: the ranked rows, then a heading and the provisional rows */
		int nlines = ladder_rows(l) + (l->nprov > 0) + (l->nrows == 0);
		int sel = ladder_line_of(l, s->lrow);

		if (s->lrow >= ladder_rows(l))
			s->lrow = ladder_rows(l) - 1;
		sel = ladder_line_of(l, s->lrow);
		if (sel < s->ltop)
			s->ltop = sel;
		if (sel >= s->ltop + show)
			s->ltop = sel - show + 1;
		for (int k = s->ltop; k < nlines && y < LINES - 3; k++, y++) {
			char line[sizeof l->rows[0].line + 40];
			int i = ladder_row_at(l, k);

			client_screen_blank(y, 1, w - 2);
			if (i < 0) {
				attron(A_BOLD);
				client_screen_putn_cut(
				        s, y, 2, w - 3,
				        k == 0 && l->nrows == 0
				                ? "No one ranked yet: a rating is ranked once its "
				                  "deviation is 110 or less."
				        : l->prov_more ? "Provisional, not ranked yet "
				                         "(deviation over 110), the best:"
				                       : "Provisional, not ranked yet "
				                         "(deviation over 110):");
				attroff(A_BOLD);
				continue;
			}
			if (i == s->lrow)
				attron(A_REVERSE);
			if (i < l->nrows)
				snprintf(line, sizeof line, "%5lld  %s", (long long)l->rows[i].rank,
				         l->rows[i].line);
			else
				snprintf(line, sizeof line, "    -  %s  provisional",
				         l->prov[i - l->nrows].line);
			client_screen_putn_cut(s, y, 2, w - 3, line);
			attroff(A_REVERSE);
		}
	}
	{
		static const char *const keys[] = {"Enter", "profile", "t",    "game", "n",
		                                   "next",  "p",       "back", "q",    "lobby",
		                                   "?",     "help",    NULL};
		client_screen_hints(keys);
	}
}

static void
ladder_key(struct screen *s, int ch, MEVENT *mev)
{
	const struct client_ladder *l = &s->c->ladder;
	int loaded = ladder_loaded(s);

	(void)mev;
	switch (ch) {
	case KEY_UP:
	case 'k':
	case KEY_DOWN:
	case 'j':
		client_screen_list_step(&s->lrow, ladder_rows(l), ch);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (loaded && s->lrow < ladder_rows(l))
			client_page_profile_open(s,
			                         s->lrow < l->nrows
			                                 ? l->rows[s->lrow].name
			                                 : l->prov[s->lrow - l->nrows].name,
			                         &client_page_ladder);
		break;
	case 't':
	case '\t':
		client_page_ladder_open(s, (enum game_kind)((s->lkind + 1) % game_class_count));
		break;
	case 'n':
	case KEY_NPAGE:
		if (!loaded)
			break;
		if (l->next[0] == '\0' || s->lpage + 1 >= LADDER_BACK) {
			client_state_notice(&s->c->st, 0, "This is the last page.");
			break;
		}
		s->lpage++;
		snprintf(s->lafter[s->lpage], CLIENT_NEXT_MAX, "%s", l->next);
		ladder_ask(s);
		break;
	case 'p':
	case KEY_PPAGE:
		if (s->lpage == 0) {
			client_state_notice(&s->c->st, 0, "This is the first page.");
			break;
		}
		s->lpage--;
		ladder_ask(s);
		break;
	case 'r':
		ladder_ask(s);
		break;
	case 'q':
	case KEY_ESCAPE:
		client_screen_page_back(s, NULL);
		break;
	default:
		break;
	}
}

/* The title: "leaderboard". */
static void
ladder_title(const struct screen *s, char *buf, size_t size)
{
	snprintf(buf, size, "leaderboard %s", game_kind_name((enum game_kind)s->lkind));
}

static const char *const ladder_help[] = {
        "Up/Down, j/k    choose a player",
        "Enter           the player's profile",
        "t / Tab         the other game's leaderboard",
        "n / PgDn        the next page",
        "p / PgUp        the page before",
        "r               ask again",
        "q / Esc         back to the lobby",
        "",
        "Accounts and bots whose rating is no longer provisional",
        "(deviation 110 or less), best first; below the last page,",
        "apart, those whose rating is still provisional.",
        NULL,
};

const struct client_page client_page_ladder = {
        .name = "leaderboard",
        .title = ladder_title,
        .draw = draw_ladder,
        .key = ladder_key,
        .help = ladder_help,
};
