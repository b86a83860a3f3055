/*
 * client-page-login.c: the login prompt (client_page_login), a box over the page shown.
 *
 * It asks for an account's name and password: when the server refused a guest's name as an
 * account's (name_taken) or reserved (name_reserved), a login (wrong_password, login_throttled
 * with the wait, account_closed, insecure_transport) or a registration (weak_password,
 * rate_limited, bad_value), and at the start with --login or
 * --register; from the lobby, l opens it to log in. The password is never drawn: a star stands
 * for each byte typed, and the typed text is wiped once sent or abandoned. Enter logs in,
 * Ctrl-R registers the name with the password, Ctrl-G goes on as a guest under the name typed;
 * Esc leaves the prompt: back to the page it is over, or, when a guest's login failed, to that
 * guest on a new hello; when the server has never greeted us, out of the program (there is
 * nothing to go back to). While s->mode is MODE_LOGIN every key comes here; what is asked goes
 * through client_request_login(), and the view closes the prompt once the server greets us.
 */
#include <stdio.h>
#include <string.h>

#include "client-screen.h"
#include "protocol.h"

/* Forget the password typed, so that it stays in memory no longer than it must. */
static void
login_wipe(struct screen *s)
{
	memset(s->lpass, 0, sizeof s->lpass);
}

void
client_page_login_open(struct screen *s, const char *name, const char *code, int64_t retry_ms)
{
	const struct client *c = s->c;
	int tried_password = c->opt.password != NULL;

	if (s->page != &client_page_login)
		s->login_back = s->page;
	s->page = &client_page_login;
	s->mode = MODE_LOGIN;
	s->help = 0;
	s->lwait = 0;
	snprintf(s->lname, sizeof s->lname, "%s", name != NULL ? name : "");
	login_wipe(s);
	s->lfield = s->lname[0] ? 1 : 0;
	if (client_net_up(c)) /* a guest asks to log in: the guest to go back to */
		snprintf(s->lguest, sizeof s->lguest, "%s", c->st.name);
	s->lwhy_error = code != NULL;
	if (code == NULL)
		snprintf(s->lwhy, sizeof s->lwhy, "%s",
		         c->opt.register_new ? "Choose a password for the new account, then Ctrl-R."
		         : s->lname[0]       ? "Type the account's password."
		                             : "An account's name and password; Ctrl-R registers a "
		                               "new one.");
	else if (strcmp(code, "name_taken") == 0 && !tried_password)
		snprintf(s->lwhy, sizeof s->lwhy,
		         "%s is an account's name: type its password, or another name and "
		         "Ctrl-G to play as a guest.",
		         s->lname);
	else if (strcmp(code, "name_taken") == 0)
		snprintf(s->lwhy, sizeof s->lwhy, "%s is taken (or too like a name taken).",
		         s->lname);
	else if (strcmp(code, "wrong_password") == 0)
		snprintf(s->lwhy, sizeof s->lwhy, "Wrong name or password: try again.");
	else if (strcmp(code, "login_throttled") == 0)
		snprintf(s->lwhy, sizeof s->lwhy, "Too many failed logins: try again in %lld s.",
		         (long long)((retry_ms + 999) / 1000));
	else if (strcmp(code, "account_closed") == 0)
		snprintf(s->lwhy, sizeof s->lwhy, "That account is closed: it logs in no more.");
	else if (strcmp(code, "insecure_transport") == 0)
		snprintf(s->lwhy, sizeof s->lwhy,
		         "The server takes no password in clear from afar: connect with --tls "
		         "(or hokitos://).");
	else if (strcmp(code, "name_reserved") == 0)
		snprintf(s->lwhy, sizeof s->lwhy,
		         "%s is reserved (a name of the server or its staff, or like one): pick "
		         "another name.",
		         s->lname);
	else if (strcmp(code, "weak_password") == 0)
		snprintf(s->lwhy, sizeof s->lwhy,
		         "That password is one of the most common ones, or holds the name: pick "
		         "another (a few unrelated words make a good one).");
	else if (strcmp(code, "rate_limited") == 0)
		snprintf(s->lwhy, sizeof s->lwhy,
		         "Your address made its most accounts lately: try again later, or log in.");
	else if (strcmp(code, "bad_value") == 0)
		snprintf(s->lwhy, sizeof s->lwhy,
		         "A name is 3 to 20 of A-Z a-z 0-9 _ -, a password 8 bytes or more.");
	else
		snprintf(s->lwhy, sizeof s->lwhy, "Refused (%s).", code);
	if (code != NULL && strcmp(code, "name_taken") == 0 && tried_password)
		s->lfield = 0;
}

/* Leave the prompt: back to what it was over, or out when the server has not greeted us. */
static void
login_leave(struct screen *s)
{
	login_wipe(s);
	s->mode = MODE_NORMAL;
	s->page = s->login_back;
	if (client_net_up(s->c))
		return;
	if (s->lguest[0]) /* a guest's login failed: the guest again */
		client_request_login(s->c, s->lguest, NULL, 0);
	else
		client_quit(s->c, 0);
}

static void
draw_login(struct screen *s)
{
	int w = COLS - 4 < 64 ? COLS - 4 : 64, h = 13, y = (LINES - h) / 2, x = (COLS - w) / 2;
	char stars[41], lines[3][64];
	size_t n = strlen(s->lpass);
	int nl;

	if (s->login_back != NULL) /* a page over the main one: the prompt over it */
		s->login_back->draw(s);
	client_screen_frame(s, y, x, h, w, "Log in");
	/* a star a byte, at most a field's width: nothing of the password itself */
	memset(stars, '*', n < sizeof stars - 1 ? n : sizeof stars - 1);
	stars[n < sizeof stars - 1 ? n : sizeof stars - 1] = '\0';
	attron(s->lfield == 0 ? A_BOLD : A_NORMAL);
	client_screen_put(y + 2, x + 2, 0, "%s Name", s->lfield == 0 ? ">" : " ");
	attroff(A_BOLD);
	client_screen_putn(y + 2, x + 14, w - 16, s->lname);
	attron(s->lfield == 1 ? A_BOLD : A_NORMAL);
	client_screen_put(y + 3, x + 2, 0, "%s Password", s->lfield == 1 ? ">" : " ");
	attroff(A_BOLD);
	client_screen_putn(y + 3, x + 14, w - 16, stars);
	nl = client_screen_wrap(s->lwait ? "Asking the server..." : s->lwhy, w - 4, lines, 3);
	if (s->lwhy_error && !s->lwait)
		attron(client_screen_pair(s, PAIR_ERROR) | A_BOLD);
	for (int i = 0; i < nl; i++)
		client_screen_putn(y + 5 + i, x + 2, w - 4, lines[i]);
	attroff(client_screen_pair(s, PAIR_ERROR) | A_BOLD);
	attron(A_DIM);
	client_screen_put(y + h - 4, x + 2, w - 4, "Enter: log in     Ctrl-R: register the name");
	client_screen_put(y + h - 3, x + 2, w - 4, "Ctrl-G: play as a guest named so");
	client_screen_put(y + h - 2, x + 2, w - 4, "Tab: name/password    Esc: %s",
	                  client_net_up(s->c) || s->lguest[0] ? "back" : "quit");
	attroff(A_DIM);
	{
		static const char *const keys[] = {"Enter", "log in", "^R",    "register", "^G",
		                                   "guest", "Esc",    "leave", NULL};
		client_screen_hints(keys);
	}
	/* a caret at the end of the field typed in */
	{
		int cx = x + 14 +
		         (s->lfield ? (int)strlen(stars) : client_screen_text_width(s->lname));
		if (cx < x + w - 2)
			client_screen_put(y + 2 + s->lfield, cx, 1, "_");
	}
}

/* Send what the prompt asks: a login (reg 0), a registration (1), or a guest's hello (-1). */
static void
login_send(struct screen *s, int reg)
{
	if (s->lname[0] == '\0') {
		s->lfield = 0;
		snprintf(s->lwhy, sizeof s->lwhy, "Type a name first.");
		s->lwhy_error = 1;
		return;
	}
	if (reg >= 0 && s->lpass[0] == '\0') {
		s->lfield = 1;
		snprintf(s->lwhy, sizeof s->lwhy, "Type the password first.");
		s->lwhy_error = 1;
		return;
	}
	if (reg < 0 && protocol_name_check(s->lname) < 0) {
		snprintf(s->lwhy, sizeof s->lwhy, "%s", PROTOCOL_NAME_RULE);
		s->lwhy_error = 1;
		return;
	}
	s->lwait = 1;
	if (client_request_login(s->c, s->lname, reg >= 0 ? s->lpass : NULL, reg > 0) < 0)
		s->lwait = 0;
	login_wipe(s);
}

/* A field's text: typed, one byte at a time (a UTF-8 character comes as several). */
static void
login_type(char *field, size_t size, size_t chars_max, int ch)
{
	size_t n = strlen(field);

	if (ch == KEY_BACKSPACE || ch == 127 || ch == KEY_CTRL('h')) {
		while (n > 0 && (field[n - 1] & 0xc0) == 0x80)
			n--;
		if (n > 0)
			n--;
		field[n] = '\0';
		return;
	}
	if (ch == KEY_CTRL('u')) {
		memset(field, 0, size);
		return;
	}
	if (ch >= 32 && ch < 256 && ch != 127 && n + 1 < size &&
	    ((ch & 0xc0) == 0x80 || (size_t)client_screen_text_chars(field) < chars_max)) {
		field[n] = (char)ch;
		field[n + 1] = '\0';
	}
}

static void
login_key(struct screen *s, int ch, MEVENT *mev)
{
	(void)mev;
	switch (ch) {
	case KEY_ESCAPE:
		login_leave(s);
		return;
	case '\t':
	case KEY_UP:
	case KEY_DOWN:
	case KEY_BTAB:
		s->lfield = !s->lfield;
		return;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (s->lfield == 0 && s->lpass[0] == '\0')
			s->lfield = 1;
		else
			login_send(s, 0);
		return;
	case KEY_CTRL('r'):
		login_send(s, 1);
		return;
	case KEY_CTRL('g'):
		login_send(s, -1);
		return;
	default:
		break;
	}
	if (s->lfield == 0)
		login_type(s->lname, sizeof s->lname, PROTOCOL_NAME_MAX, ch);
	else
		login_type(s->lpass, sizeof s->lpass, PROTOCOL_PASSWORD_MAX, ch);
}

/* The title: "log in". */
static void
login_title(const struct screen *s, char *buf, size_t size)
{
	(void)s;
	snprintf(buf, size, "log in");
}

static const char *const login_help[] = {
        "Tab, Up/Down    the name or the password",
        "Enter           log in to the account",
        "Ctrl-R          register the name as a new account",
        "Ctrl-G          play as a guest under the name typed",
        "Esc             leave (quit, before the server greets us)",
        "",
        "The password is never shown: a star stands for each byte.",
        NULL,
};

const struct client_page client_page_login = {
        .name = "login",
        .title = login_title,
        .draw = draw_login,
        .key = login_key,
        .help = login_help,
};
