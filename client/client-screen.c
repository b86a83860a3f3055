/*
 * client-screen.c: the base of the full-screen view, what every page draws with.
 *
 * Colours (the board and its pieces always carry both a foreground and a background colour, so
 * they read the same on dark and light terminals; text outside the board uses the terminal's own
 * colours with bold, reverse and red/green only; with NO_COLOR, or --no-color, nothing is
 * coloured: pieces are told apart by their letters, and the cursor, selection and legal squares by
 * brackets, reverse video and markers, which are drawn in colour mode too), glyphs with their
 * ASCII stand-ins, text cut to its columns (UTF-8, wide characters, control bytes shown as '?'),
 * wrapping, boxes, and the lines every page shares: the title bar, the notice line (or the prompt
 * or question) and the key hints. It also holds the few moves between pages that any page makes
 * (the selection, the prompt, back from a page). It knows no page: the pages call it, never the
 * other way round. It draws on curses' stdscr and owns nothing.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "client-screen.h"
#include "protocol.h"

const char *
client_screen_glyph(const struct screen *s, const char *utf8, const char *ascii)
{
	return s->utf8 ? utf8 : ascii;
}

void
client_screen_colours(struct screen *s)
{
	if (!s->colour)
		return;
	start_color();
	use_default_colors();
	s->rich = COLORS >= 256;
	if (s->rich) {
		init_pair(PAIR_LIGHT, 16, 180);
		init_pair(PAIR_DARK, 16, 137);
		init_pair(PAIR_PAWN0, 231, 16);
		init_pair(PAIR_PAWN1, 16, 255);
		init_pair(PAIR_TOTEM, 231, 25);
		init_pair(PAIR_CURSOR, 16, 117);
		init_pair(PAIR_SELECTED, 16, 75);
		init_pair(PAIR_DEST, 16, 114);
		init_pair(PAIR_LAST, 16, 229);
		init_pair(PAIR_MARK_ON_LIGHT, 22, 180);
		init_pair(PAIR_WIN, 16, 210);
	} else {
		init_pair(PAIR_LIGHT, COLOR_BLACK, COLOR_YELLOW);
		init_pair(PAIR_DARK, COLOR_BLACK, COLOR_YELLOW);
		init_pair(PAIR_PAWN0, COLOR_WHITE, COLOR_BLACK);
		init_pair(PAIR_PAWN1, COLOR_BLACK, COLOR_WHITE);
		init_pair(PAIR_TOTEM, COLOR_WHITE, COLOR_BLUE);
		init_pair(PAIR_CURSOR, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_SELECTED, COLOR_WHITE, COLOR_BLUE);
		init_pair(PAIR_DEST, COLOR_BLACK, COLOR_GREEN);
		init_pair(PAIR_LAST, COLOR_BLACK, COLOR_YELLOW);
		init_pair(PAIR_MARK_ON_LIGHT, COLOR_BLACK, COLOR_YELLOW);
		init_pair(PAIR_WIN, COLOR_BLACK, COLOR_RED);
	}
	init_pair(PAIR_ERROR, COLOR_RED, -1);
	init_pair(PAIR_GOOD, COLOR_GREEN, -1);
	init_pair(PAIR_ACCENT, COLOR_MAGENTA, -1);
}

attr_t
client_screen_pair(const struct screen *s, int p)
{
	return s->colour ? (attr_t)COLOR_PAIR(p) : A_NORMAL;
}

void
client_screen_kind_colours(struct screen *s, enum game_kind kind)
{
	if (!s->colour)
		return;
	switch (kind) {
	case GAME_HOKITO: /* black */
		init_pair(PAIR_PAWN0, s->rich ? 231 : COLOR_WHITE, s->rich ? 16 : COLOR_BLACK);
		break;
	case GAME_OXONO: /* pink */
		init_pair(PAIR_PAWN0, s->rich ? 16 : COLOR_WHITE, s->rich ? 211 : COLOR_MAGENTA);
		break;
	}
}

/*
 * The columns the UTF-8 character at text takes on the terminal, as wcwidth() says (2 for most
 * CJK characters, 0 for a combining mark; 1 when the locale cannot tell), with its length in
 * bytes in *len, or 0 in *len when the text ends inside it.
 */
static int
char_cols(const char *text, int *len)
{
	unsigned char ch = (unsigned char)text[0];
	int n = ch >= 0xf0 ? 4 : ch >= 0xe0 ? 3 : ch >= 0xc0 ? 2 : 1, w;
	wchar_t wc = n > 1 ? ch & (0x7f >> n) : ch;

	for (int k = 1; k < n; k++) {
		if (text[k] == '\0') {
			*len = 0;
			return 0;
		}
		wc = (wchar_t)(wc << 6 | (text[k] & 0x3f));
	}
	*len = n;
	w = wcwidth(wc);
	return w < 0 ? 1 : w;
}

/* The number of bytes of text that fill at most w columns; a UTF-8 sequence is never cut. */
int
client_screen_clip(const char *text, int w)
{
	int cols = 0, i = 0;

	while (text[i] != '\0') {
		int len, c = char_cols(text + i, &len);
		if (len == 0 || cols + c > w)
			break;
		i += len;
		cols += c;
	}
	return i;
}

int
client_screen_text_width(const char *text)
{
	int cols = 0, len;

	while (*text != '\0') {
		cols += char_cols(text, &len);
		if (len == 0)
			break;
		text += len;
	}
	return cols;
}

int
client_screen_text_chars(const char *text)
{
	int n = 0;

	for (; *text != '\0'; text++)
		n += ((unsigned char)*text & 0xc0) != 0x80;
	return n;
}

/* The end of a line being typed that fits in w columns (all of it when it fits). */
static const char *
prompt_tail(const char *line, int w)
{
	int over = client_screen_text_width(line) - w, len;

	while (over > 0 && *line != '\0') {
		over -= char_cols(line, &len);
		if (len == 0)
			break;
		line += len;
	}
	return line;
}

void
client_screen_putn(int y, int x, int w, const char *text)
{
	char buf[2048];
	int n;

	if (y < 0 || y >= LINES || x < 0 || x >= COLS || w <= 0)
		return;
	if (x + w > COLS)
		w = COLS - x;
	n = client_screen_clip(text, w);
	if (n > (int)sizeof buf)
		n = (int)sizeof buf;
	for (int i = 0; i < n; i++)
		buf[i] = client_shown_byte(text[i]);
	mvaddnstr(y, x, buf, n);
}

void
client_screen_putn_cut(const struct screen *s, int y, int x, int w, const char *text)
{
	const char *more = client_screen_glyph(s, "\xe2\x80\xa6", "...");
	int room;

	if (y < 0 || y >= LINES || x < 0 || x >= COLS || w <= 0)
		return;
	if (x + w > COLS)
		w = COLS - x;
	room = w - client_screen_text_width(more);
	if (client_screen_text_width(text) <= w || room < 1) {
		client_screen_putn(y, x, w, text);
		return;
	}
	client_screen_putn(y, x, room, text);
	addstr(more); /* right after the text: a wide character that did not fit leaves a gap */
}

void
client_screen_putn_fit(int y, int x, int w, const char *text, const char *shorter)
{
	client_screen_putn(y, x, w, (int)strlen(text) <= w ? text : shorter);
}

void
client_screen_put(int y, int x, int w, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	client_screen_putn(y, x, w <= 0 ? COLS - x : w, buf);
}

void
client_screen_blank(int y, int x, int w)
{
	if (y < 0 || y >= LINES)
		return;
	for (int i = 0; i < w && x + i < COLS; i++)
		mvaddch(y, x + i, ' ');
}

int
client_screen_wrap(const char *text, int w, char lines[][64], int max)
{
	int n = 0;

	if (w > 63)
		w = 63;
	while (*text != '\0' && n < max) {
		int len = (int)strlen(text), cut = len;
		while (*text == ' ')
			text++, len--;
		cut = len;
		if (len > w) {
			cut = w;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = w;
		}
		snprintf(lines[n++], 64, "%.*s", cut, text);
		text += cut;
	}
	return n;
}

void
client_screen_frame(const struct screen *s, int y, int x, int h, int w, const char *title)
{
	const char *hl = client_screen_glyph(s, "\xe2\x94\x80", "-"),
	           *vl = client_screen_glyph(s, "\xe2\x94\x82", "|");

	/* Drawn with UTF-8 strings rather than ACS, which some terminals and tmux's
	 * capture-pane render as letters. */
	for (int i = 0; i < h; i++)
		client_screen_blank(y + i, x, w);
	for (int i = 1; i < w - 1; i++) {
		mvaddstr(y, x + i, hl);
		mvaddstr(y + h - 1, x + i, hl);
	}
	for (int i = 1; i < h - 1; i++) {
		mvaddstr(y + i, x, vl);
		mvaddstr(y + i, x + w - 1, vl);
	}
	mvaddstr(y, x, client_screen_glyph(s, "\xe2\x94\x8c", "+"));
	mvaddstr(y, x + w - 1, client_screen_glyph(s, "\xe2\x94\x90", "+"));
	mvaddstr(y + h - 1, x, client_screen_glyph(s, "\xe2\x94\x94", "+"));
	mvaddstr(y + h - 1, x + w - 1, client_screen_glyph(s, "\xe2\x94\x98", "+"));
	if (title != NULL) {
		attron(A_BOLD);
		client_screen_put(y, x + 2, w - 4, " %s ", title);
		attroff(A_BOLD);
	}
}

void
client_screen_title(struct screen *s, const char *left)
{
	struct client *c = s->c;
	const char *name = c->st.name[0] ? c->st.name : c->opt.name;
	char right[3][CLIENT_NAME_MAX + 300];
	const char *link = "connecting...";
	int k = 0, x;

	switch (c->st.link) {
	case CLIENT_LINK_CONNECTING:
		break;
	case CLIENT_LINK_UP:
		link = "connected";
		break;
	case CLIENT_LINK_DOWN:
		link = "reconnecting...";
		break;
	case CLIENT_LINK_FAILED:
		link = "disconnected";
		break;
	}
	snprintf(right[0], sizeof right[0], "%s @ %s:%d ", name, c->opt.host, c->opt.port);
	snprintf(right[1], sizeof right[1], "%s ", name);
	right[2][0] = '\0';
	/* " link " and a space before the right side, beside the left side and two spaces */
	while (k < 2 && COLS - (client_screen_text_width(right[k]) + (int)strlen(link) + 3) <=
	                        client_screen_text_width(left) + 2)
		k++;
	x = COLS - (client_screen_text_width(right[k]) + (int)strlen(link) + 3);
	attron(A_REVERSE);
	client_screen_blank(0, 0, COLS);
	attron(A_BOLD);
	client_screen_putn(0, 0, x - 1, left);
	attroff(A_BOLD);
	if (c->st.link != CLIENT_LINK_UP)
		attron(client_screen_pair(s, PAIR_ERROR) | A_BOLD);
	client_screen_put(0, x, 0, " %s ", link);
	attroff(client_screen_pair(s, PAIR_ERROR) | A_BOLD);
	attron(A_REVERSE);
	client_screen_put(0, x + (int)strlen(link) + 3, 0, "%s", right[k]);
	attroff(A_REVERSE);
}

void
client_screen_hints(const char *const *pairs)
{
	int x = 0, y = LINES - 1, n = 0, width = 0, wide, labelled;

	while (pairs[n] != NULL) {
		width += (int)strlen(pairs[n]) + (int)strlen(pairs[n + 1]) + 4;
		n += 2;
	}
	if (n == 0)
		return;
	wide = width <= COLS;
	/* compact: two columns less a pair, and no space after the last; only the pairs before
	 * pairs[labelled] and the last keep their labels */
	width -= wide ? 0 : n + 1;
	for (labelled = n - 2; width > COLS && labelled > 0; labelled -= 2)
		width -= (int)strlen(pairs[labelled - 1]) + 1;
	client_screen_blank(y, 0, COLS);
	for (int i = 0; i < n; i += 2) {
		const char *pad = wide ? " " : "";
		int kl = (int)strlen(pairs[i]) + 2 * wide;
		attron(A_REVERSE | A_BOLD);
		client_screen_put(y, x, kl, "%s%s%s", pad, pairs[i], pad);
		attroff(A_REVERSE | A_BOLD);
		x += kl;
		if (i < labelled || i == n - 2) {
			client_screen_put(y, x, 0, " %s%s", pairs[i + 1], pad);
			x += (int)strlen(pairs[i + 1]) + 1 + wide;
		}
		x += !wide;
	}
}

void
client_screen_hint_add(struct hints *h, const char *key, const char *label)
{
	assert(h->n + 3 <= (int)(sizeof h->pairs / sizeof h->pairs[0]));
	h->pairs[h->n++] = key;
	h->pairs[h->n++] = label;
	h->pairs[h->n] = NULL;
}

int
client_screen_wrap_line(const char *text, int w, const char **next)
{
	int i = 0, cols = 0, brk = 0, len = 1, c;

	while (text[i] != '\0') {
		c = char_cols(text + i, &len);
		if (len == 0)
			break;
		if (text[i] == ' ' || (c == 2 && i > 0))
			brk = i; /* the line may end here */
		if (cols + c > w)
			break;
		cols += c;
		i += len;
	}
	if (text[i] == '\0' || text[i] == ' ' || len == 0)
		brk = text[i] == '\0' || text[i] == ' ' ? i : (int)strlen(text);
	else if (brk == 0)
		brk = i > 0 ? i : len; /* no place to break: cut (at least one character) */
	*next = text + brk;
	while (**next == ' ')
		(*next)++;
	while (brk > 0 && text[brk - 1] == ' ')
		brk--;
	return brk;
}

/*
 * A notice on line y, from column 1. One too long for the line goes on two when lines is 2, the
 * line above (blanked) taking its first words, so that the end of a long refusal is not lost;
 * what does not fit ends in an ellipsis.
 */
static void
draw_message(struct screen *s, int y, const char *text, int lines)
{
	const char *more = client_screen_glyph(s, "\xe2\x80\xa6", "...");
	char first[sizeof s->c->st.message];
	int w = COLS - 1;

	if (client_screen_text_width(text) > w && lines == 2) {
		const char *next;
		snprintf(first, sizeof first, "%.*s", client_screen_wrap_line(text, w, &next),
		         text);
		text = next;
		client_screen_blank(y - 1, 0, COLS);
		client_screen_putn(y - 1, 1, w, first);
	}
	if (client_screen_text_width(text) <= w) {
		client_screen_putn(y, 1, w, text);
	} else {
		client_screen_putn(y, 1, w - client_screen_text_width(more), text);
		addstr(more);
	}
}

void
client_screen_bottom(struct screen *s)
{
	struct client *c = s->c;
	int y = LINES - 2;
	static const char *const prompts[] = {[PROMPT_MOVE] = "Move: ",
	                                      [PROMPT_JOIN] = "Join game id or invite code: ",
	                                      [PROMPT_WATCH] = "Watch game id or invite code: ",
	                                      [PROMPT_CHAT] = "Say: ",
	                                      [PROMPT_PROFILE] = "Profile of (Enter: yours): "};
	static const char *const sends[] = {[PROMPT_MOVE] = "play",
	                                    [PROMPT_JOIN] = "join",
	                                    [PROMPT_WATCH] = "watch",
	                                    [PROMPT_CHAT] = "send",
	                                    [PROMPT_PROFILE] = "show"};

	client_screen_blank(y, 0, COLS);
	if (s->mode == MODE_PROMPT) {
		char left[16];
		attron(A_BOLD);
		client_screen_putn(y, 1, COLS - 1, prompts[s->prompt]);
		attroff(A_BOLD);
		int x = 1 + (int)strlen(prompts[s->prompt]);
		const char *tail = prompt_tail(s->line, COLS - x - 1);
		client_screen_putn(y, x, COLS - x, tail);
		{
			/* a chat line stops where the server would: say how much is left */
			const char *keys[] = {"Ctrl-U",         "clear", "Esc", "cancel", "Enter",
			                      sends[s->prompt], NULL,    NULL,  NULL};
			if (s->prompt == PROMPT_CHAT) {
				snprintf(left, sizeof left, "%d",
				         PROTOCOL_CHAT_MAX - client_screen_text_chars(s->line));
				keys[6] = left;
				keys[7] = "left";
			}
			client_screen_hints(keys);
		}
		curs_set(1);
		move(y, x + client_screen_text_width(tail));
		return;
	}
	if (s->mode == MODE_CONFIRM) {
		static const char *const q[] = {[CONFIRM_RESIGN] = "Resign this game? (y/n)",
		                                [CONFIRM_ABORT] =
		                                        "Abort this game (no result)? (y/n)"};
		static const char *const keys[] = {"any other key", "no", "y", "yes", NULL};
		attron(A_BOLD | client_screen_pair(s, PAIR_ERROR));
		client_screen_putn(y, 1, COLS - 1, q[s->confirm]);
		attroff(A_BOLD | client_screen_pair(s, PAIR_ERROR));
		client_screen_hints(keys);
		return;
	}
	if (c->st.message[0]) {
		attr_t a = c->st.message_error ? (client_screen_pair(s, PAIR_ERROR) | A_BOLD)
		                               : A_NORMAL;
		attron(a);
		/* the frame of the help or the chat log ends on the line above */
		draw_message(s, y, c->st.message, s->help || s->chatlog ? 1 : 2);
		attroff(a);
	}
}

void
client_screen_list_step(int *row, int n, int ch)
{
	if (ch == KEY_UP || ch == 'k') {
		if (*row > 0)
			(*row)--;
	} else if (*row + 1 < n) {
		(*row)++;
	}
}

void
client_screen_select_clear(struct screen *s)
{
	s->sel = -1;
	s->totem_to = -1;
	memset(s->dest, 0, sizeof s->dest);
}

void
client_screen_prompt_open(struct screen *s, enum prompt_kind kind)
{
	s->mode = MODE_PROMPT;
	s->prompt = kind;
	s->line[0] = '\0';
	s->linelen = 0;
}

void
client_screen_bell(const struct screen *s)
{
	if (!s->c->alert.bell_off)
		beep();
}

void
client_screen_page_back(struct screen *s, const struct client_page *page)
{
	s->page = page;
	if (page == NULL && !s->c->st.table.active)
		client_request_list(s->c);
}
