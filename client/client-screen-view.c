/*
 * client-screen-view.c: the full-screen ncurses view of the client (client_screen_view).
 *
 * This module owns the terminal while curses mode is on. Input comes from a uv_poll on standard
 * input, so curses and the socket share one libuv loop; a SIGWINCH watcher resizes the screen,
 * and a repeating timer redraws the screen while a game is shown, so that the running clock and
 * a grace period count down. It draws the title bar, the page shown and the bottom lines, the
 * help overlay over any page, and turns keys into the prompt's text, the answer to a question,
 * or the page's own keys: it reaches the pages only through their struct client_page tables
 * (client-screen.h), picking the lobby or the game as the client's state says, or the page over
 * them. It reads struct client_state and never changes it, except for the notices: every action
 * goes through client_request_*. The terminal is restored by client_screen_view.stop and, should
 * anything leave the program another way, by an atexit() handler.
 */
#include <errno.h>
#include <langinfo.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "client-screen.h"
#include "protocol.h"
#include "xmalloc.h"

static struct screen *screen_atexit; /* the screen to restore at exit, if still on */

/* atexit(): leave curses mode if the view did not (the program left another way). */
static void
screen_restore(void)
{
	if (screen_atexit != NULL && screen_atexit->on) {
		screen_atexit->on = 0;
		endwin();
	}
}

/* The page shown: the one over the main page, else the game at a table, else the lobby. */
static const struct client_page *
screen_page(const struct screen *s)
{
	if (s->page != NULL)
		return s->page;
	return s->c->st.table.active ? &client_page_game : &client_page_lobby;
}

/* The lines of the help for the page shown: keys first, then notes after a blank line. */
static const char *const *
help_lines(const struct screen *s)
{
	return screen_page(s)->help;
}

#define HELP_PAGES_MAX 8

/*
 * Split the help into pages that fit between the title bar and the notice line: returns the
 * page count and fills first[] and end[] with each page's lines. All of it is one page when it
 * fits; else each page keeps a line for saying how to see the next one, and ends at its last
 * blank line if it has one, so that the keys and the notes fall on pages of their own.
 */
static int
help_pages(const struct screen *s, int first[HELP_PAGES_MAX], int end[HELP_PAGES_MAX])
{
	const char *const *lines = help_lines(s);
	int n = 0, room = LINES - 3 - 2, np = 0, i = 0;

	while (lines[n] != NULL)
		n++;
	if (room < 2)
		room = 2;
	if (n <= room) {
		first[0] = 0;
		end[0] = n;
		return 1;
	}
	while (i < n && np < HELP_PAGES_MAX) {
		int e;
		while (i < n && lines[i][0] == '\0')
			i++;
		if (i == n)
			break;
		e = i + room - 1 < n ? i + room - 1 : n;
		for (int b = e - 1; e < n && b > i; b--)
			if (lines[b][0] == '\0') {
				e = b;
				break;
			}
		first[np] = i;
		end[np++] = e;
		i = e;
	}
	return np;
}

/* The help overlay, page s->help, with its own key hints. */
static void
draw_help(struct screen *s)
{
	const char *const *lines = help_lines(s);
	int first[HELP_PAGES_MAX], end[HELP_PAGES_MAX], np = help_pages(s, first, end);
	int page = (s->help > np ? np : s->help) - 1;
	int n = end[page] - first[page], rows = n + (np > 1);
	int w = 62, pad = 1, h, y, x;

	if (rows + 4 > LINES - 3)
		pad = 0;
	h = rows + 2 + 2 * pad;
	if (w > COLS - 2)
		w = COLS - 2;
	y = 1 + (LINES - 3 - h) / 2;
	x = (COLS - w) / 2;
	client_screen_frame(s, y, x, h, w, "Help");
	for (int i = 0; i < n; i++)
		client_screen_putn(y + 1 + pad + i, x + 2, w - 4, lines[first[page] + i]);
	if (np > 1) {
		attron(A_BOLD);
		client_screen_put(y + 1 + pad + n, x + 2, w - 4, "(%d/%d) %s", page + 1, np,
		                  page + 1 < np ? "Space: more, Esc: close" : "any key closes");
		attroff(A_BOLD);
	}
	{
		static const char *const more[] = {"Space", "more", "Esc", "close", NULL};
		static const char *const last[] = {"any key", "close", NULL};
		client_screen_hints(page + 1 < np ? more : last);
	}
}

static void
screen_draw(struct screen *s)
{
	const struct client_page *page = screen_page(s);
	char where[150], left[160];

	if (!s->on)
		return;
	erase();
	/* the cursor stays on while a line is typed (client_screen_bottom() puts it there): hiding
	 * it for every redraw would make it blink with the clocks */
	if (s->mode != MODE_PROMPT || COLS < MIN_COLS || LINES < MIN_ROWS)
		curs_set(0);
	if (COLS < MIN_COLS || LINES < MIN_ROWS) {
		int y = LINES / 2 - 1;
		attron(A_BOLD);
		client_screen_put(y < 0 ? 0 : y, 0, COLS, "Terminal too small (%dx%d).", COLS,
		                  LINES);
		attroff(A_BOLD);
		client_screen_put(y + 1, 0, COLS, "Need at least %dx%d.", MIN_COLS, MIN_ROWS);
		client_screen_put(y + 2, 0, COLS, "Q quits.");
		refresh();
		return;
	}
	page->title(s, where, sizeof where);
	snprintf(left, sizeof left, " hokito %s %s", client_screen_glyph(s, "\xc2\xb7", "-"),
	         where);
	client_screen_title(s, left);
	page->draw(s);
	if (s->help)
		draw_help(s);
	client_screen_bottom(s);
	refresh();
}

/*
 * Call the player back (client-alert.c): ring the bell at the moments that need them, unless it
 * is off, and keep the terminal's title on whose move it is, with an OSC 2 sequence (xterm, tmux
 * and most terminals take it as the window's or pane's title). Both are written after the screen
 * is drawn, never in the middle of curses' output.
 */
static void
screen_alert(struct screen *s)
{
	struct client *c = s->c;

	if (!s->on)
		return;
	if (client_alert_check(&c->alert, &c->st, uv_now(c->loop)) != 0)
		client_screen_bell(s);
	if (client_alert_title(&c->alert, &c->st)) {
		printf("\033]2;%s\007", c->alert.title);
		fflush(stdout);
	}
}

static void
screen_notice(struct client *c, int error, const char *text)
{
	client_state_notice(&c->st, error, "%s", text);
	screen_draw(c->view_data);
}

static void
prompt_key(struct screen *s, int ch)
{
	struct client *c = s->c;

	if (ch == KEY_ESCAPE || ch == KEY_CTRL('g')) {
		s->mode = MODE_NORMAL;
		curs_set(0);
		return;
	}
	if (ch == KEY_BACKSPACE || ch == 127 || ch == KEY_CTRL('h')) {
		/* a whole character: its continuation bytes, then its first */
		while (s->linelen > 0 && (s->line[s->linelen - 1] & 0xc0) == 0x80)
			s->linelen--;
		if (s->linelen > 0)
			s->linelen--;
		s->line[s->linelen] = '\0';
		return;
	}
	if (ch == KEY_CTRL('u')) {
		s->linelen = 0;
		s->line[0] = '\0';
		return;
	}
	if ((ch == '\n' || ch == '\r' || ch == KEY_ENTER) && s->prompt == PROMPT_PROFILE) {
		/* an empty name is our own profile */
		s->mode = MODE_NORMAL;
		curs_set(0);
		client_page_profile_open(s, s->line, s->page);
		return;
	}
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		s->mode = MODE_NORMAL;
		curs_set(0);
		if (s->linelen == 0)
			return;
		switch (s->prompt) {
		case PROMPT_MOVE:
			client_page_game_move(s, s->line);
			break;
		case PROMPT_JOIN:
			client_request_join(c, s->line);
			break;
		case PROMPT_WATCH:
			client_request_watch(c, s->line);
			break;
		case PROMPT_CHAT:
			client_request_say(c, s->line);
			break;
		case PROMPT_PROFILE:
			break; /* above */
		}
		return;
	}
	/* Text, in bytes (a UTF-8 character comes as several): a chat line may take as many
	 * characters as the server allows (PROTOCOL_CHAT_MAX), room for the longest character
	 * kept. */
	if (ch >= 32 && ch < 256 && ch != 127 && s->linelen + 4 < (int)sizeof s->line &&
	    ((ch & 0xc0) == 0x80 || client_screen_text_chars(s->line) < PROTOCOL_CHAT_MAX)) {
		s->line[s->linelen++] = (char)ch;
		s->line[s->linelen] = '\0';
	}
}

static void
confirm_key(struct screen *s, int ch)
{
	struct client *c = s->c;

	s->mode = MODE_NORMAL;
	if (ch != 'y' && ch != 'Y') {
		client_state_notice(&c->st, 0, "Cancelled.");
		return;
	}
	switch (s->confirm) {
	case CONFIRM_RESIGN:
		client_request_resign(c);
		break;
	case CONFIRM_ABORT:
		client_request_game(c, MSG_ABORT);
		break;
	}
}

static void
screen_key(struct screen *s, int ch)
{
	struct client *c = s->c;
	MEVENT mev, *mp = NULL;

	if (ch == KEY_MOUSE) {
		if (getmouse(&mev) != OK)
			return;
		mp = &mev;
		if (s->help) {
			s->help = 0;
			return;
		}
	}
	if (ch == KEY_CTRL('c')) {
		client_quit(c, 0);
		return;
	}
	if (ch == KEY_RESIZE)
		return;
	if (ch == KEY_CTRL('l')) {
		clearok(curscr, TRUE);
		return;
	}
	switch (s->mode) {
	case MODE_PROMPT:
		prompt_key(s, ch);
		return;
	case MODE_CONFIRM:
		confirm_key(s, ch);
		return;
	case MODE_CREATE:
		client_page_create.key(s, ch, mp);
		return;
	case MODE_LOGIN:
		client_page_login.key(s, ch, mp);
		return;
	case MODE_NORMAL:
		break;
	}
	if (s->help) {
		int first[HELP_PAGES_MAX], end[HELP_PAGES_MAX];
		int np = help_pages(s, first, end);
		if ((ch == ' ' || ch == KEY_NPAGE || ch == KEY_DOWN || ch == 'j') && s->help < np)
			s->help++;
		else if ((ch == KEY_PPAGE || ch == KEY_UP || ch == 'k') && s->help > 1)
			s->help--;
		else
			s->help = 0;
		return;
	}
	if (s->chatlog) {
		int page = LINES - 6 > 1 ? LINES - 6 : 1;
		if (ch == KEY_UP || ch == 'k')
			s->chatlog_back++;
		else if (ch == KEY_DOWN || ch == 'j')
			s->chatlog_back--;
		else if (ch == KEY_PPAGE)
			s->chatlog_back += page;
		else if (ch == KEY_NPAGE)
			s->chatlog_back -= page;
		else
			s->chatlog = 0;
		return; /* draw_chatlog() keeps chatlog_back within the log */
	}
	if (ch == '?' || ch == KEY_F(1)) {
		s->help = 1;
		return;
	}
	if (ch == 'Q') {
		client_quit(c, 0);
		return;
	}
	if (COLS < MIN_COLS || LINES < MIN_ROWS)
		return;
	if (ch == 'B') {
		c->alert.bell_off = !c->alert.bell_off;
		client_state_notice(&c->st, 0, "%s",
		                    c->alert.bell_off ? "The bell is off (B turns it on)."
		                                      : "The bell is on (B turns it off).");
		return;
	}
	if (ch == 'R' && s->page != &client_page_rules) {
		client_page_rules_open(s);
		return;
	}
	screen_page(s)->key(s, ch, mp);
}

static void
screen_input_cb(uv_poll_t *h, int status, int events)
{
	struct screen *s = container_of(h, struct screen, input);
	int ch, n = 0;

	if (status < 0) {
		client_quit(s->c, 1);
		return;
	}
	while (s->on && (ch = getch()) != ERR) {
		client_request_wake(s->c);
		screen_key(s, ch);
		if (s->c->quitting)
			return;
		n++;
	}
	if (n == 0 && s->on) {
		/* Readable but nothing to read: the terminal is gone (hang-up). */
		char probe;
		if (read(STDIN_FILENO, &probe, 0) < 0 || !isatty(STDIN_FILENO)) {
			client_quit(s->c, 1);
			return;
		}
	}
	screen_draw(s);
}

static void
screen_winch_cb(uv_signal_t *h, int signum)
{
	struct screen *s = container_of(h, struct screen, winch);
	struct winsize ws;

	if (!s->on)
		return;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	clear();
	screen_draw(s);
}

/* Redraw a game with a clock or a grace period running, so they count down. */
static void
screen_tick_cb(uv_timer_t *h)
{
	struct screen *s = container_of(h, struct screen, tick);
	const struct client_table *t = &s->c->st.table;
	int away = !t->seats[0].connected || !t->seats[1].connected;

	if (s->on && t->active && t->started && !t->over && (t->timed || away)) {
		screen_draw(s);
		screen_alert(s); /* our clock running low */
	}
}

/* Free the view's state and what it owns. */
static void
screen_free(struct screen *s)
{
	free(s->hafter);
	free(s);
}

static void
screen_close_cb(uv_handle_t *h)
{
	struct screen *s = h->data;

	if (--s->handles == 0)
		screen_free(s);
}

static int
screen_start(struct client *c)
{
	struct screen *s = xcalloc(1, sizeof *s);
	const char *cs;
	int rc;

	s->c = c;
	s->sel = -1;
	s->back_ply = -1;
	s->totem_to = -1;
	s->cursor = 2 * 6 + 2;
	c->view_data = s;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "hokito: standard input and output must be a terminal "
		                "(use --plain for pipes and scripts)\n");
		free(s);
		c->view_data = NULL;
		return -1;
	}
	cs = nl_langinfo(CODESET);
	s->utf8 = cs != NULL && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
	s->f_level = PROTOCOL_LEVEL_DEFAULT - 1;
	set_escdelay(25);
	if (initscr() == NULL) {
		free(s);
		c->view_data = NULL;
		return -1;
	}
	s->on = 1;
	screen_atexit = s;
	atexit(screen_restore);
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED, NULL);
	mouseinterval(200);
	s->colour = !c->opt.no_color && has_colors();
	client_screen_colours(s);
	rc = uv_poll_init(c->loop, &s->input, STDIN_FILENO);
	if (rc == 0) {
		s->input.data = s;
		s->handles++;
		rc = uv_poll_start(&s->input, UV_READABLE, screen_input_cb);
	}
	if (rc == 0) {
		uv_signal_init(c->loop, &s->winch);
		s->winch.data = s;
		s->handles++;
		rc = uv_signal_start(&s->winch, screen_winch_cb, SIGWINCH);
	}
	if (rc == 0) {
		uv_timer_init(c->loop, &s->tick);
		s->tick.data = s;
		s->handles++;
		rc = uv_timer_start(&s->tick, screen_tick_cb, 200, 200);
	}
	if (rc < 0) {
		endwin();
		s->on = 0;
		fprintf(stderr, "hokito: cannot watch the terminal: %s\n", uv_strerror(rc));
		return rc;
	}
	screen_draw(s);
	return 0;
}

static void
screen_update(struct client *c)
{
	struct screen *s = c->view_data;

	if (s == NULL)
		return;
	client_request_held_flush(c);
	client_save_flush(c);
	if (s->mode == MODE_LOGIN && s->lwait && client_net_up(c) &&
	    !client_request_pending(c, MSG_REGISTER)) {
		/* the server has greeted us: the prompt has done its work */
		s->mode = MODE_NORMAL;
		s->page = s->login_back;
		s->lwait = 0;
		s->lguest[0] = '\0';
	}
	if (c->st.table.active != s->had_table) {
		/* Entering or leaving a table: start afresh. */
		s->had_table = c->st.table.active;
		s->had_chat = c->st.table.nchat;
		s->had_kibitz = c->st.table.nkibitz;
		client_screen_select_clear(s);
		s->back_ply = -1;
		s->stack = 0;
		s->chatlog = 0;
		s->over_hidden = 0;
		s->help = 0;
		if (s->mode != MODE_PROMPT || s->prompt != PROMPT_MOVE)
			s->mode = s->mode == MODE_PROMPT ? MODE_NORMAL : s->mode;
		if (s->mode == MODE_CREATE)
			s->mode = MODE_NORMAL;
		if (s->page == &client_page_profile || s->page == &client_page_ladder)
			s->page = NULL; /* the game comes first */
	}
	if (c->st.table.active && c->st.table.over && !s->had_over) {
		/*
		 * The game has just ended, whichever message said so (a flag fell, a player
		 * resigned, the state of a game that ended while we were away): what was about
		 * playing it goes, so that the status line shows how it ended (take_result() in
		 * client-msg.c put it there): a move being typed, the question whether to resign or
		 * abort, and below, as whenever it is not our turn, the selection. A chat line
		 * being typed stays: the chat goes on.
		 */
		if ((s->mode == MODE_PROMPT && s->prompt == PROMPT_MOVE) ||
		    s->mode == MODE_CONFIRM) {
			s->mode = MODE_NORMAL;
			curs_set(0);
		}
	}
	s->had_over = c->st.table.active && c->st.table.over;
	if (c->st.table.active) {
		/*
		 * A chat line that is not ours goes on the status line too, where it has two lines:
		 * the chat pane may have room for one row only. A spectators' chat line is ours
		 * when it has our name.
		 */
		const struct client_table *t = &c->st.table;
		const struct client_chat *l = NULL;
		if (t->nchat > s->had_chat)
			l = client_state_chat_get(t, 0, 0);
		if (l != NULL && t->seat >= 0 && l->seat == t->seat)
			l = NULL;
		if (t->nkibitz > s->had_kibitz) {
			const struct client_chat *k = client_state_chat_get(t, 1, 0);
			if (k != NULL && strcmp(k->name, c->st.name) != 0)
				l = k;
		}
		if (l != NULL)
			client_state_notice(&c->st, 0, "%s: %s", l->name, l->text);
	}
	s->had_kibitz = c->st.table.nkibitz;
	s->had_chat = c->st.table.nchat;
	if (c->st.table.active) {
		/* A selection made in another position is stale. */
		if (!client_state_our_turn(&c->st))
			client_screen_select_clear(s);
		else if (s->sel >= 0) {
			uint8_t mask[36];
			client_state_destinations(&c->st.table.game, s->sel, s->totem_to, mask);
			if (memcmp(mask, s->dest, sizeof mask) != 0)
				client_screen_select_clear(s);
		}
	}
	screen_draw(s);
	screen_alert(s);
}

/* view->login: the login prompt, with why the last try failed. */
static int
screen_login(struct client *c, const char *code, int64_t retry_ms)
{
	struct screen *s = c->view_data;

	/* the name last tried (a guest's registration keeps opt.name until it is done) */
	client_page_login_open(s, c->login_name[0] ? c->login_name : c->opt.name, code, retry_ms);
	screen_draw(s);
	return 1;
}

/*
 * view->ask: a question the connection cannot go on without (a server's certificate to trust on
 * first use, with its fingerprint). It takes the whole screen and waits for the answer right
 * here, off the loop: nothing else can go on before it is answered. Returns 1 for y, 0 for any
 * other key (or a terminal that went away).
 */
static int
screen_ask(struct client *c, const char *text)
{
	struct screen *s = c->view_data;
	const char *p = text;
	int y = 1, ch;

	if (s == NULL || !s->on)
		return 0;
	erase();
	attron(A_BOLD);
	while (*p != '\0' && y < LINES - 3) {
		int w = COLS > 4 ? COLS - 2 : 2, n = (int)strlen(p);

		if (n > w) {
			n = w;
			while (n > 0 && p[n] != ' ')
				n--;
			if (n == 0)
				n = w;
		}
		mvaddnstr(y++, 1, p, n);
		p += n;
		while (*p == ' ')
			p++;
	}
	attroff(A_BOLD);
	mvaddstr(y + 1 < LINES ? y + 1 : LINES - 1, 1, "y: trust it and pin it    n: refuse (y/N)");
	refresh();
	for (;;) {
		struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};

		ch = getch();
		if (ch != ERR && ch != KEY_RESIZE && ch != KEY_MOUSE)
			break;
		if (ch == ERR && ((poll(&pfd, 1, -1) < 0 && errno != EINTR) ||
		                  (pfd.revents & (POLLHUP | POLLERR)) != 0)) {
			ch = 'n';
			break;
		}
	}
	clearok(curscr, TRUE);
	return ch == 'y' || ch == 'Y';
}

static void
screen_stop(struct client *c)
{
	struct screen *s = c->view_data;

	if (s == NULL)
		return;
	c->view_data = NULL;
	if (s->on) {
		s->on = 0;
		endwin();
	}
	screen_atexit = NULL;
	if (s->handles == 0) {
		screen_free(s);
		return;
	}
	uv_close((uv_handle_t *)&s->input, screen_close_cb);
	if (s->handles > 1)
		uv_close((uv_handle_t *)&s->winch, screen_close_cb);
	if (s->handles > 2)
		uv_close((uv_handle_t *)&s->tick, screen_close_cb);
}

const struct client_view client_screen_view = {
        .start = screen_start,
        .update = screen_update,
        .notice = screen_notice,
        .stop = screen_stop,
        .ask = screen_ask,
        .login = screen_login,
};
