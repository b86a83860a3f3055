/*
 * client-page-profile.c: an account's profile (client_page_profile): since when it exists, its
 * rating in each game kind it has played rated (with the deviation, the volatility, the games,
 * wins, draws and losses, and the best rating), and its last games.
 *
 * It shows "asking" until the profile asked for comes (c->profile_stamp moves). Enter on one of
 * the last games opens its replay (client-page-replay.c), h the history of the account's games
 * (client-page-history.c); q goes back where it was opened from: the lobby, the game, the
 * leaderboard.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "client-screen.h"

void
client_page_profile_open(struct screen *s, const char *name, const struct client_page *back)
{
	snprintf(s->pname, sizeof s->pname, "%s", name != NULL ? name : "");
	if (back != &client_page_profile)
		s->pback = back;
	s->page = &client_page_profile;
	s->pstamp = s->c->profile_stamp;
	s->prow = 0;
	s->help = 0;
	client_state_notice(&s->c->st, 0, "%s", "");
	client_request_profile(s->c, s->pname);
}

/* Whether the profile asked for has come. */
static int
profile_loaded(const struct screen *s)
{
	return s->c->profile_stamp != s->pstamp;
}

static void
draw_profile(struct screen *s)
{
	const struct client_profile *pr = &s->c->profile;
	int y = 2, w = COLS;
	char since[32] = "?", who[CLIENT_NAME_MAX + 24];

	if (!profile_loaded(s)) {
		attron(A_DIM);
		client_screen_put(y + 2, 3, w - 4, "Asking the server...");
		attroff(A_DIM);
	} else {
		time_t t = (time_t)(pr->created_ms / 1000);
		struct tm tm;
		if (pr->created_ms > 0 && gmtime_r(&t, &tm) != NULL)
			strftime(since, sizeof since, "%Y-%m-%d", &tm);
		client_state_player_text(pr->name, pr->who, "", who, sizeof who);
		attron(A_BOLD);
		client_screen_put(y, 1, w - 2, "%s%s", who, pr->banned ? "  (banned)" : "");
		attroff(A_BOLD);
		client_screen_put(y + 1, 1, w - 2, "Player since %s", since);
		y += 3;
		attron(A_UNDERLINE | A_BOLD);
		client_screen_blank(y, 1, w - 2);
		client_screen_put(y, 1, w - 2, " %-7s %-7s %4s %7s %6s %-12s %6s", "GAME", "RATING",
		                  "RD", "VOL", "GAMES", "WIN/DRAW/LOSS", "BEST");
		attroff(A_UNDERLINE | A_BOLD);
		y++;
		for (int k = 0; k < game_class_count; k++) {
			const struct client_profile_rating *r = &pr->kind[k];
			char wdl[48];
			if (!r->has) {
				client_screen_put(y++, 1, w - 2, " %-7s not played rated yet",
				                  game_kind_title((enum game_kind)k));
				continue;
			}
			snprintf(wdl, sizeof wdl, "%lld/%lld/%lld", (long long)r->wins,
			         (long long)r->draws, (long long)r->losses);
			client_screen_put(y++, 1, w - 2, " %-7s %-7s %4.0f %7.4f %6lld %-12s %6.0f",
			                  game_kind_title((enum game_kind)k), r->shown, r->rd,
			                  r->vol, (long long)r->games, wdl, r->best);
		}
		y++;
		attron(A_BOLD);
		client_screen_put(y++, 1, w - 2, "Last games");
		attroff(A_BOLD);
		if (pr->nrecent == 0) {
			attron(A_DIM);
			client_screen_put(y, 3, w - 4, "No finished games yet.");
			attroff(A_DIM);
		}
		if (s->prow >= pr->nrecent)
			s->prow = pr->nrecent - 1;
		if (s->prow < 0)
			s->prow = 0;
		for (int i = 0; i < pr->nrecent && y < LINES - 3; i++, y++) {
			if (i == s->prow)
				attron(A_REVERSE);
			client_screen_blank(y, 1, w - 2);
			client_screen_putn_cut(s, y, 2, 8, pr->recent[i].id);
			client_screen_putn_cut(s, y, 11, w - 12, pr->recent[i].line);
			attroff(A_REVERSE);
		}
	}
	{
		static const char *const keys[] = {"Enter", "replay", "h", "all games",
		                                   "q",     "back",   "r", "ask again",
		                                   "?",     "help",   NULL};
		client_screen_hints(keys);
	}
}

static void
profile_key(struct screen *s, int ch, MEVENT *mev)
{
	const struct client_profile *pr = &s->c->profile;
	int loaded = profile_loaded(s);

	(void)mev;
	switch (ch) {
	case KEY_UP:
	case 'k':
	case KEY_DOWN:
	case 'j':
		client_screen_list_step(&s->prow, pr->nrecent, ch);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (loaded && s->prow < pr->nrecent)
			client_page_replay_open(s, pr->recent[s->prow].id, &client_page_profile);
		break;
	case 'h':
		if (!loaded)
			break;
		snprintf(s->hplayer, sizeof s->hplayer, "%s", pr->name);
		s->hback = &client_page_profile;
		client_page_history_open(s);
		break;
	case 'r':
		client_page_profile_open(s, s->pname, s->pback);
		break;
	case 'q':
	case KEY_ESCAPE:
		client_screen_page_back(s, s->pback);
		break;
	default:
		break;
	}
}

/* The title: "profile of alice". */
static void
profile_title(const struct screen *s, char *buf, size_t size)
{
	if (profile_loaded(s))
		snprintf(buf, size, "profile of %s", s->c->profile.name);
	else
		snprintf(buf, size, "profile");
}

static const char *const profile_help[] = {
        "Up/Down, j/k    choose one of the last games",
        "Enter           replay it",
        "h               all the finished games of this player",
        "r               ask again",
        "q / Esc         back",
        "",
        "A rating with ? is provisional: its deviation (RD) is",
        "still above 110. The leaderboard (L) lists the others.",
        NULL,
};

const struct client_page client_page_profile = {
        .name = "profile",
        .title = profile_title,
        .draw = draw_profile,
        .key = profile_key,
        .help = profile_help,
};
