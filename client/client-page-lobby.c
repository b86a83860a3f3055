/*
 * client-page-lobby.c: the lobby page (client_page_lobby): the server's list of games, a page
 * at a time, with the highlighted row kept on the same game across refreshes.
 *
 * Its keys join or watch the game chosen, create a game (the form of client-page-create.c, drawn
 * over the lobby), pair quickly, join by code, page through a busy server's list and open the
 * history of finished games (client-page-history.c), log in (client-page-login.c), and show a
 * profile (client-page-profile.c) or the leaderboard (client-page-ladder.c). Players show with
 * what they are and their ratings ("alice 1623", "carol (guest)", "rob [bot] 1710"). The list
 * itself is refreshed by client-main.c's timer while the lobby shows.
 */
#include <stdio.h>
#include <string.h>

#include "client-screen.h"
#include "protocol.h"

/* Keep the highlighted lobby row on the same game across refreshes. */
static void
lobby_sync_row(struct screen *s)
{
	const struct client_state *st = &s->c->st;

	if (s->row_id[0]) {
		for (int i = 0; i < st->nlist; i++) {
			if (strcmp(st->list[i].id, s->row_id) == 0) {
				s->row = i;
				return;
			}
		}
	}
	if (s->row >= st->nlist)
		s->row = st->nlist - 1;
	if (s->row < 0)
		s->row = 0;
	if (st->nlist > 0)
		snprintf(s->row_id, sizeof s->row_id, "%s", st->list[s->row].id);
}

/* Whether Enter on a lobby entry joins it (an open seat) rather than watches it. */
static int
lobby_joins(const struct client_entry *e)
{
	return e->status == EVENT_STATUS_OPEN && (!e->players[0][0] || !e->players[1][0]);
}

static void
draw_lobby(struct screen *s)
{
	const struct client_state *st = &s->c->st;
	int y = 2, w = COLS;
	int show, pw;

	/*
	 * The players column takes what the fixed columns leave, within reason; the clock column
	 * follows it where there is room for it.
	 */
	int clk = COLS >= 76, px = 37;
	pw = COLS - px - 13 - (clk ? 7 : 0);
	if (pw > 36)
		pw = 36;
	if (pw < 10)
		pw = 10;
	lobby_sync_row(s);
	show = LINES - 3 - (y + 3);
	if (s->row < s->list_top)
		s->list_top = s->row;
	if (s->row >= s->list_top + show)
		s->list_top = s->row - show + 1;
	attron(A_BOLD);
	client_screen_put(y, 1, w - 1, "Games on this server");
	attroff(A_BOLD);
	attron(A_DIM);
	if (client_state_account(st))
		client_screen_put(y + 1, 1, w - 2,
		                  "Quick pairing: %s (t switches)  L leaderboard  u profiles",
		                  s->f_rated ? "rated" : "casual");
	else
		client_screen_put(y + 1, 1, w - 2,
		                  "l log in or register  L leaderboard  u profiles");
	attroff(A_DIM);
	if (st->list_total > st->nlist)
		client_screen_put(y, 23, w - 24, "%d to %d of %d  (< > pages of %d)",
		                  st->list_offset + s->list_top + 1,
		                  st->list_offset + (s->list_top + show < st->nlist
		                                             ? s->list_top + show
		                                             : st->nlist),
		                  st->list_total, PROTOCOL_LIST_MAX);
	else if (st->nlist > show)
		client_screen_put(y, 23, w - 24, "%d to %d of %d", s->list_top + 1,
		                  s->list_top + show < st->nlist ? s->list_top + show : st->nlist,
		                  st->nlist);
	y += 2;
	attron(A_UNDERLINE | A_BOLD);
	client_screen_blank(y, 1, w - 2);
	client_screen_put(y, 1, w - 2, " %-8s %-6s %-8s %-9s %-*s%s %5s %5s", "ID", "GAME",
	                  "VARIANT", "STATE", pw, "PLAYERS", clk ? " CLOCK " : "", "MOVE", "WATCH");
	attroff(A_UNDERLINE | A_BOLD);
	y++;
	s->list_y = y;
	if (st->nlist == 0) {
		attron(A_DIM);
		client_screen_put(
		        y + 1, 3, w - 4,
		        st->link == CLIENT_LINK_UP
		                ? "No games yet. Press c to create one, or p for quick pairing."
		                : "Waiting for the server...");
		attroff(A_DIM);
	}
	for (int i = s->list_top; i < st->nlist && y < LINES - 3; i++, y++) {
		const struct client_entry *e = &st->list[i];
		char players[2 * CLIENT_NAME_MAX + 64], names[2][CLIENT_NAME_MAX + 24];
		char bare[2 * CLIENT_NAME_MAX + 8];
		for (int k = 0; k < 2; k++)
			client_state_player_text(e->players[k][0] ? e->players[k] : "-", e->who[k],
			                         e->rating[k], names[k], sizeof names[k]);
		snprintf(players, sizeof players, "%s vs %s", names[0], names[1]);
		snprintf(bare, sizeof bare, "%s vs %s", e->players[0][0] ? e->players[0] : "-",
		         e->players[1][0] ? e->players[1] : "-");
		if (i == s->row)
			attron(A_REVERSE);
		client_screen_blank(y, 1, w - 2);
		/* a finished game: how it ended, in the state column */
		char state[16];
		if (e->result >= 0)
			snprintf(state, sizeof state, "%s won", game_side_name(e->kind, e->result));
		else
			snprintf(state, sizeof state, "%s",
			         e->result == -1   ? "drawn"
			         : e->result == -2 ? "aborted"
			         : e->private_game ? "private"
			                           : event_status_name(e->status));
		/* each column cut to its width, with an ellipsis where it is cut; the players by
		 * the columns they take (a name may be wider than its bytes) */
		client_screen_putn_cut(s, y, 2, 8, e->id);
		client_screen_put(y, 11, 6, "%s", game_kind_name(e->kind));
		client_screen_putn_cut(
		        s, y, 18, 8,
		        e->rated && strcmp(e->variant, "standard") == 0 ? "rated" : e->variant);
		client_screen_putn_cut(s, y, 27, 9, state);
		/* the names with their marks and ratings where they fit, else the names alone */
		if (client_screen_text_width(players) <= pw)
			client_screen_putn(y, px, pw, players);
		else
			client_screen_putn_cut(s, y, px, pw, bare);
		if (clk)
			client_screen_putn_cut(s, y, px + pw + 1, 6, e->clock[0] ? e->clock : "-");
		client_screen_put(y, px + pw + (clk ? 7 : 0), w - 1 - px - pw, " %5d %5d", e->ply,
		                  e->spectators);
		attroff(A_REVERSE);
	}
	{
		/* Enter joins an open seat or watches: say which for the highlighted game */
		struct hints h = {{NULL}, 0};
		const struct client_entry *e = s->row < st->nlist ? &st->list[s->row] : NULL;
		if (e != NULL)
			client_screen_hint_add(&h, "Enter", lobby_joins(e) ? "join" : "watch");
		client_screen_hint_add(&h, "c", "create");
		client_screen_hint_add(&h, "p", "quick");
		client_screen_hint_add(&h, "i", "by code");
		client_screen_hint_add(&h, "h", "history");
		client_screen_hint_add(&h, "q", "quit");
		if (e != NULL && lobby_joins(e))
			client_screen_hint_add(&h, "w", "watch");
		client_screen_hint_add(&h, "?", "help");
		client_screen_hints(h.pairs);
	}
	if (s->mode == MODE_CREATE)
		client_page_create.draw(s);
}

static void
lobby_key(struct screen *s, int ch, MEVENT *mev)
{
	struct client *c = s->c;
	const struct client_state *st = &c->st;
	const struct client_entry *e;

	lobby_sync_row(s); /* the row of the game chosen, wherever the list has moved it */
	e = s->row < st->nlist ? &st->list[s->row] : NULL;
	switch (ch) {
	case KEY_UP:
	case 'k':
	case KEY_DOWN:
	case 'j':
		client_screen_list_step(&s->row, st->nlist, ch);
		break;
	case KEY_PPAGE:
		s->row = s->row > 10 ? s->row - 10 : 0;
		break;
	case KEY_NPAGE:
		s->row = s->row + 10 < st->nlist ? s->row + 10 : st->nlist - 1;
		break;
	case KEY_MOUSE:
		if (mev == NULL || mev->y < s->list_y)
			return;
		if (s->list_top + mev->y - s->list_y >= st->nlist)
			return;
		s->row = s->list_top + mev->y - s->list_y;
		e = &st->list[s->row];
		if (!(mev->bstate & (BUTTON1_DOUBLE_CLICKED)))
			break;
		/* a double click joins or watches */
		/* fall through */
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (e == NULL)
			break;
		if (lobby_joins(e))
			client_request_join_or_watch(c, e->id);
		else
			client_request_watch(c, e->id);
		break;
	case 'w':
		if (e != NULL)
			client_request_watch(c, e->id);
		break;
	case 'c':
		s->mode = MODE_CREATE;
		s->field = 0;
		break;
	case 'p':
	case 'P':
		client_request_quick(c, ch == 'p' ? GAME_HOKITO : GAME_OXONO, NULL, NULL,
		                     client_state_account(st) && s->f_rated);
		break;
	case 't':
		if (!client_state_account(st)) {
			client_state_notice(&c->st, 1,
			                    "Rated games are for accounts: l to log in.");
			return;
		}
		s->f_rated = !s->f_rated;
		break;
	case 'l':
		if (client_state_account(st))
			client_state_notice(&c->st, 0, "You are logged in as %s.", st->name);
		else
			client_page_login_open(s, "", NULL, 0);
		return;
	case 'L':
		client_page_ladder_open(s, GAME_HOKITO);
		return;
	case 'u':
		client_screen_prompt_open(s, PROMPT_PROFILE);
		return;
	case 'i':
		client_screen_prompt_open(s, PROMPT_JOIN);
		break;
	case 'r':
		client_request_list(c);
		break;
	case '>': /* the next page of a busy server's list */
		if (st->list_offset + st->nlist >= st->list_total)
			return;
		c->st.list_offset += PROTOCOL_LIST_MAX;
		s->row = 0;
		client_request_list(c);
		break;
	case '<':
		if (st->list_offset == 0)
			return;
		c->st.list_offset = st->list_offset > PROTOCOL_LIST_MAX
		                            ? st->list_offset - PROTOCOL_LIST_MAX
		                            : 0;
		s->row = 0;
		client_request_list(c);
		break;
	case 'h':
	case 'H':
		s->hplayer[0] = '\0';
		s->hback = NULL;
		client_page_history_open(s);
		break;
	case 'q':
		client_quit(c, 0);
		return;
	default:
		return;
	}
	if (s->row < st->nlist && s->row >= 0)
		snprintf(s->row_id, sizeof s->row_id, "%s", st->list[s->row].id);
}

/* The title: "lobby". */
static void
lobby_title(const struct screen *s, char *buf, size_t size)
{
	snprintf(buf, size, "lobby");
}

static const char *const lobby_help[] = {
        "Up/Down, j/k    choose a game",
        "Enter           join an open seat, or watch",
        "w               watch the chosen game",
        "c               create a game",
        "p               quick pairing (HOKITO)",
        "P               quick pairing (OXONO)",
        "i               join by game id or invite code",
        "r               refresh the list",
        "< / >           previous / next 100 games",
        "h               finished games: replay them (m: yours)",
        "l               log in to an account, or register one",
        "L               the leaderboard",
        "u               a player's profile (Enter alone: yours)",
        "t               quick pairing rated or casual (accounts)",
        "R               the rules of both games",
        "q / Ctrl-C      quit",
        NULL,
};

const struct client_page client_page_lobby = {
        .name = "lobby",
        .title = lobby_title,
        .draw = draw_lobby,
        .key = lobby_key,
        .help = lobby_help,
};
