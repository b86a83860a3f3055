/*
 * client-screen.c: the full-screen ncurses view of the client.
 *
 * This module owns the terminal while curses mode is on: it draws the lobby, the board with its
 * side panel (players, turn, scores or reserves, moves, spectators, the stack under the cursor),
 * the overlays (help, stack, chat log, create form, game over, confirmations) and the two bottom
 * lines (notice and key hints), and it turns keys and mouse clicks into selections and requests.
 * Two pages sit over the lobby and the game: the history of finished games (a page of the server's
 * history at a time) and the replay of a game from its record, stepping through its positions
 * with the evaluation of each (client-eval.c computes them off the loop thread). Input
 * comes from a uv_poll on standard input, so curses and the socket share one libuv loop; a
 * SIGWINCH watcher resizes the screen. It reads struct client_state and never changes it: every
 * action goes through client_request_*. A repeating timer redraws the screen while a game is shown,
 * so that the running clock and a grace period count down. The terminal is restored by
 * client_screen_view.stop and,
 * should anything leave the program another way, by an atexit() handler.
 *
 * Colours: the board and its pieces always carry both a foreground and a background colour, so
 * they read the same on dark and light terminals; text outside the board uses the terminal's
 * own colours with bold, reverse and red/green only. With NO_COLOR (or --no-color) nothing is
 * coloured: pieces are told apart by their letters, and the cursor, selection and legal squares
 * by brackets, reverse video and markers, which are drawn in colour mode too.
 */
#include <assert.h>
#include <ctype.h>
#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

#include <curses.h>

#include "client.h"
#include "protocol.h"
#include "xmalloc.h"

#define MIN_COLS    64
#define MIN_ROWS    18
#define PANEL_MIN   26
#define KEY_CTRL(c) ((c)&0x1f)
#define KEY_ESCAPE  27

/* Colour pairs. */
enum {
	PAIR_LIGHT = 1,     /* light board square */
	PAIR_DARK,          /* dark board square */
	PAIR_PAWN0,         /* side 0 chip: HOKITO black, OXONO pink */
	PAIR_PAWN1,         /* side 1 chip: HOKITO white, OXONO black */
	PAIR_TOTEM,         /* OXONO totem */
	PAIR_CURSOR,        /* square under the cursor */
	PAIR_SELECTED,      /* selected square */
	PAIR_DEST,          /* legal destination */
	PAIR_LAST,          /* squares of the last move */
	PAIR_ERROR,         /* error text */
	PAIR_GOOD,          /* good news text */
	PAIR_ACCENT,        /* headings */
	PAIR_MARK_ON_LIGHT, /* marker dots on a light square */
};

/* What the screen shows: the lobby or the game (as the client's state says), or a page over it. */
enum page {
	PAGE_MAIN = 0, /* the lobby, or the game we are at */
	PAGE_HISTORY,  /* the finished games, a page at a time */
	PAGE_REPLAY,   /* a game replayed from its record */
};

#define HISTORY_PAGE 20 /* games asked for at a time */

/* What the keyboard is feeding. */
enum mode {
	MODE_NORMAL = 0,
	MODE_PROMPT,  /* a line of text: a move, a game id or invite code */
	MODE_CONFIRM, /* y/n question */
	MODE_CREATE,  /* the create-a-game form */
};

enum prompt_kind {
	PROMPT_MOVE = 0,
	PROMPT_JOIN,
	PROMPT_WATCH,
	PROMPT_CHAT,
};

enum confirm_kind {
	CONFIRM_RESIGN = 0,
	CONFIRM_ABORT,
};

struct screen {
	struct client *c;
	uv_poll_t input;   /* readable standard input */
	uv_signal_t winch; /* terminal resized */
	uv_timer_t tick;   /* redraws while a game is shown: clocks count down */
	int handles;       /* handles still open */
	int on;            /* curses mode is on */
	int colour;        /* colours in use */
	int rich;          /* 256 colours available */
	int utf8;          /* the terminal takes UTF-8 */
	enum mode mode;
	enum prompt_kind prompt;
	enum confirm_kind confirm;
	char line[CLIENT_CHAT_TEXT]; /* prompt text being typed, UTF-8 */
	int linelen;                 /* its length in bytes */
	int cursor;                  /* board cursor square */
	int flip;                    /* f: the board turned round from its usual way (below) */
	int sel;                     /* selected square, or -1 */
	int totem_to;                /* OXONO: chosen totem square, or -1 */
	uint8_t dest[36];            /* legal squares for the selection */
	int help;                    /* help overlay shown: its page, from 1; 0 when not shown */
	int stack;                   /* stack overlay shown */
	int chatlog;                 /* chat log overlay shown (T) */
	int chatlog_back;            /* chat log: rows scrolled back from the newest */
	int over_hidden;             /* game-over box dismissed to look at the board */
	int row;                     /* lobby: highlighted row */
	char row_id[CLIENT_ID_MAX];  /* lobby: id of the highlighted row, kept across refreshes */
	int field;                   /* create form: field under the cursor */
	int f_kind, f_variant, f_seat, f_private; /* create form values */
	int f_clock;                              /* create form: index in clock_choices */
	int f_opponent, f_level;         /* create form: 1 for the computer; its level - 1 */
	int by, bx, cw, ch;              /* board origin and cell size, for mouse hits */
	int list_y;                      /* lobby: screen row of the first entry */
	int list_top;                    /* lobby: first entry shown */
	int had_table;                   /* the table was active at the last draw */
	int had_over;                    /* its game was over at the last update */
	int had_chat, had_kibitz;        /* chat lines (both chats) it had at the last update */
	enum page page;                  /* the page shown */
	enum page replay_back;           /* where leaving the replay goes */
	int hrow, htop;                  /* history: highlighted row, first row shown */
	int64_t hoffset;                 /* history: offset of the page asked for */
	uint64_t hstamp;                 /* history: c->history_stamp when it was asked for */
	char replay_want[CLIENT_ID_MAX]; /* replay: the game whose record was asked for */
};

static struct screen *screen_atexit; /* the screen to restore at exit, if still on */

/* The time controls the create form offers; NULL is none. */
static const char *const clock_choices[] = {NULL, "1+0", "3+2", "5+3", "15+10"};
#define CLOCK_CHOICES 5
#define CREATE_FIELDS 7 /* game, variant, seat, private, clock, opponent, level */

static const char *
glyph(const struct screen *s, const char *utf8, const char *ascii)
{
	return s->utf8 ? utf8 : ascii;
}

static void
screen_restore(void)
{
	if (screen_atexit != NULL && screen_atexit->on) {
		screen_atexit->on = 0;
		endwin();
	}
}

/* Set up colour pairs for 8 or 256 colours; the board never uses the default background. */
static void
screen_colours(struct screen *s)
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
	}
	init_pair(PAIR_ERROR, COLOR_RED, -1);
	init_pair(PAIR_GOOD, COLOR_GREEN, -1);
	init_pair(PAIR_ACCENT, COLOR_MAGENTA, -1);
}

/* Attributes of a colour pair, or plain when colours are off. */
static attr_t
pair(const struct screen *s, int p)
{
	return s->colour ? (attr_t)COLOR_PAIR(p) : A_NORMAL;
}

/* Pink chips in 256 colours: dark text on pink reads better. */
static void
screen_kind_colours(struct screen *s, enum game_kind kind)
{
	if (!s->colour)
		return;
	if (kind == GAME_OXONO)
		init_pair(PAIR_PAWN0, s->rich ? 16 : COLOR_WHITE, s->rich ? 211 : COLOR_MAGENTA);
	else
		init_pair(PAIR_PAWN0, s->rich ? 231 : COLOR_WHITE, s->rich ? 16 : COLOR_BLACK);
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
static int
clip(const char *text, int w)
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

/* The columns text takes, as clip() counts them. */
static int
text_width(const char *text)
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

/* The characters of a UTF-8 text (what the protocol's lengths count). */
static int
text_chars(const char *text)
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
	int over = text_width(line) - w, len;

	while (over > 0 && *line != '\0') {
		over -= char_cols(line, &len);
		if (len == 0)
			break;
		line += len;
	}
	return line;
}

/*
 * Write text at (y, x), cut to w columns and to the right edge; a control character is drawn as
 * '?' (client_shown_byte()): curses would move the cursor on a newline, out of the pane.
 */
static void
putn(int y, int x, int w, const char *text)
{
	char buf[2048];
	int n;

	if (y < 0 || y >= LINES || x < 0 || x >= COLS || w <= 0)
		return;
	if (x + w > COLS)
		w = COLS - x;
	n = clip(text, w);
	if (n > (int)sizeof buf)
		n = (int)sizeof buf;
	for (int i = 0; i < n; i++)
		buf[i] = client_shown_byte(text[i]);
	mvaddnstr(y, x, buf, n);
}

/*
 * Write text at (y, x) in w columns, as putn() does; text wider than that is cut and ends in an
 * ellipsis, so that a cut name or value shows that it is cut (the chat and the notices do the
 * same).
 */
static void
putn_cut(const struct screen *s, int y, int x, int w, const char *text)
{
	const char *more = glyph(s, "\xe2\x80\xa6", "...");
	int room;

	if (y < 0 || y >= LINES || x < 0 || x >= COLS || w <= 0)
		return;
	if (x + w > COLS)
		w = COLS - x;
	room = w - text_width(more);
	if (text_width(text) <= w || room < 1) {
		putn(y, x, w, text);
		return;
	}
	putn(y, x, room, text);
	addstr(more); /* right after the text: a wide character that did not fit leaves a gap */
}

/* Write text at (y, x) if it fits in w columns, else the shorter text (cut if it must be). */
static void
putn_fit(int y, int x, int w, const char *text, const char *shorter)
{
	putn(y, x, w, (int)strlen(text) <= w ? text : shorter);
}

/* printf at (y, x), cut at width w (w <= 0: to the right edge). */
static void put(int y, int x, int w, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
put(int y, int x, int w, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	putn(y, x, w <= 0 ? COLS - x : w, buf);
}

/* Fill a line segment with spaces in the current attributes. */
static void
blank(int y, int x, int w)
{
	if (y < 0 || y >= LINES)
		return;
	for (int i = 0; i < w && x + i < COLS; i++)
		mvaddch(y, x + i, ' ');
}

/* Split text into at most max lines of at most w bytes, at spaces. Returns the line count. */
static int
wrap(const char *text, int w, char lines[][64], int max)
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

/* A box with a title, cleared inside. */
static void
frame(const struct screen *s, int y, int x, int h, int w, const char *title)
{
	const char *hl = glyph(s, "\xe2\x94\x80", "-"), *vl = glyph(s, "\xe2\x94\x82", "|");

	/* Drawn with UTF-8 strings rather than ACS, which some terminals and tmux's
	 * capture-pane render as letters. */
	for (int i = 0; i < h; i++)
		blank(y + i, x, w);
	for (int i = 1; i < w - 1; i++) {
		mvaddstr(y, x + i, hl);
		mvaddstr(y + h - 1, x + i, hl);
	}
	for (int i = 1; i < h - 1; i++) {
		mvaddstr(y + i, x, vl);
		mvaddstr(y + i, x + w - 1, vl);
	}
	mvaddstr(y, x, glyph(s, "\xe2\x94\x8c", "+"));
	mvaddstr(y, x + w - 1, glyph(s, "\xe2\x94\x90", "+"));
	mvaddstr(y + h - 1, x, glyph(s, "\xe2\x94\x94", "+"));
	mvaddstr(y + h - 1, x + w - 1, glyph(s, "\xe2\x94\x98", "+"));
	if (title != NULL) {
		attron(A_BOLD);
		put(y, x + 2, w - 4, " %s ", title);
		attroff(A_BOLD);
	}
}

/*
 * The title bar: the program and where we are on the left; on the right the connection state,
 * then who we are at which server. The connection state always shows: when the line is short of
 * room (a 64-column terminal at a game) the server's address goes first, then our name, and
 * last the left side is cut.
 */
static void
draw_title(struct screen *s)
{
	struct client *c = s->c;
	const struct client_table *t = &c->st.table;
	const char *name = c->st.name[0] ? c->st.name : c->opt.name;
	char right[3][CLIENT_NAME_MAX + 300], left[160];
	const char *link;
	int k = 0, x;

	switch (c->st.link) {
	case CLIENT_LINK_UP:
		link = "connected";
		break;
	case CLIENT_LINK_DOWN:
		link = "reconnecting...";
		break;
	case CLIENT_LINK_FAILED:
		link = "disconnected";
		break;
	default:
		link = "connecting...";
		break;
	}
	if (s->page == PAGE_REPLAY)
		snprintf(left, sizeof left, " hokito %s replay of game %s",
		         glyph(s, "\xc2\xb7", "-"), s->replay_want);
	else if (s->page == PAGE_HISTORY)
		snprintf(left, sizeof left, " hokito %s history", glyph(s, "\xc2\xb7", "-"));
	else if (t->active)
		snprintf(left, sizeof left, " hokito %s %s %s %s game %s",
		         glyph(s, "\xc2\xb7", "-"), t->kind == GAME_OXONO ? "OXONO" : "HOKITO",
		         t->variant, glyph(s, "\xc2\xb7", "-"), t->id);
	else
		snprintf(left, sizeof left, " hokito %s lobby", glyph(s, "\xc2\xb7", "-"));
	snprintf(right[0], sizeof right[0], "%s @ %s:%d ", name, c->opt.host, c->opt.port);
	snprintf(right[1], sizeof right[1], "%s ", name);
	right[2][0] = '\0';
	/* " link " and a space before the right side, beside the left side and two spaces */
	while (k < 2 &&
	       COLS - (text_width(right[k]) + (int)strlen(link) + 3) <= text_width(left) + 2)
		k++;
	x = COLS - (text_width(right[k]) + (int)strlen(link) + 3);
	attron(A_REVERSE);
	blank(0, 0, COLS);
	attron(A_BOLD);
	putn(0, 0, x - 1, left);
	attroff(A_BOLD);
	if (c->st.link != CLIENT_LINK_UP)
		attron(pair(s, PAIR_ERROR) | A_BOLD);
	put(0, x, 0, " %s ", link);
	attroff(pair(s, PAIR_ERROR) | A_BOLD);
	attron(A_REVERSE);
	put(0, x + (int)strlen(link) + 3, 0, "%s", right[k]);
	attroff(A_REVERSE);
}

/*
 * The key hints bar at the bottom: pairs of key and label, NULL-terminated, the keys that matter
 * most first. Every key of the bar shows, whole. When all the pairs fit as they are (an 80-column
 * terminal, mostly), each is a key in reverse video with a space either side, then its label
 * with a space either side. When they do not (a 64-column terminal), the bar is compact, as
 * nano's is: each key in reverse video right before its label, one space between pairs; and
 * while that is still too wide, the last keys before the last pair stand without their labels,
 * the least needed first. The last pair (by habit "? help", where every key is explained) keeps
 * its label. The bare keys of any bar fit in MIN_COLS; were they ever wider, the line is cut.
 */
static void
draw_hints(const char *const *pairs)
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
	blank(y, 0, COLS);
	for (int i = 0; i < n; i += 2) {
		const char *pad = wide ? " " : "";
		int kl = (int)strlen(pairs[i]) + 2 * wide;
		attron(A_REVERSE | A_BOLD);
		put(y, x, kl, "%s%s%s", pad, pairs[i], pad);
		attroff(A_REVERSE | A_BOLD);
		x += kl;
		if (i < labelled || i == n - 2) {
			put(y, x, 0, " %s%s", pairs[i + 1], pad);
			x += (int)strlen(pairs[i + 1]) + 1 + wide;
		}
		x += !wide;
	}
}

/* A hints bar being built by state: key and label pairs, NULL after the last. */
struct hints {
	const char *pairs[32];
	int n; /* pointers used, not counting the NULL */
};

/* Add a key and its label to a hints bar being built. */
static void
hint_add(struct hints *h, const char *key, const char *label)
{
	assert(h->n + 3 <= (int)(sizeof h->pairs / sizeof h->pairs[0]));
	h->pairs[h->n++] = key;
	h->pairs[h->n++] = label;
	h->pairs[h->n] = NULL;
}

/*
 * Where the line of text that starts at text ends when lines are w columns wide: at the last
 * space that fits, or before the last wide (CJK) character that fits, which may break anywhere;
 * a word longer than the line is cut; or where the text ends. Returns the length in bytes of the
 * line, spaces at its end excluded; *next is where the next line starts.
 */
static int
wrap_line(const char *text, int w, const char **next)
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
 * A chat pane's lines (kibitz: the spectators' chat) in rows rows from (y, x), w columns wide:
 * each line "NAME: TEXT" wrapped at spaces, its continuation indented by two columns, the newest
 * at the bottom. An older line that does not fit whole is left out; the newest, if it does not
 * fit, shows its beginning and ends in an ellipsis. Returns the rows it takes (or would take,
 * when draw is 0).
 */
static int
chat_layout(const struct screen *s, const struct client_table *t, int kibitz, int y, int rows,
            int x, int w, int draw)
{
	const char *more = glyph(s, "\xe2\x80\xa6", "...");
	char text[CLIENT_NAME_MAX + CLIENT_CHAT_TEXT + 4];
	int bottom = y + rows; /* lines below it are taken */

	for (int i = 0; bottom > y && w > 4; i++) {
		const struct client_chat *l = client_state_chat_get(t, kibitz, i);
		const char *p, *next;
		int n = 0, row, top;

		if (l == NULL)
			break;
		snprintf(text, sizeof text, "%s: %s", l->name, l->text);
		for (p = text; *p != '\0'; p = next, n++)
			wrap_line(p, n ? w - 2 : w, &next);
		if (n > bottom - y && i > 0)
			break;
		top = row = n > bottom - y ? y : bottom - n;
		for (p = text, n = 0; draw && *p != '\0' && row < bottom; p = next, n++, row++) {
			int len = wrap_line(p, n ? w - 2 : w, &next), ind = n ? 2 : 0;
			char piece[sizeof text];
			snprintf(piece, sizeof piece, "%.*s", len, p);
			if (row == bottom - 1 && *next != '\0') {
				/* the newest line, cut: its last row ends in an ellipsis */
				int room = w - ind - text_width(more);
				piece[clip(piece, room)] = '\0';
				putn(row, x + ind, room, piece);
				addstr(more);
			} else {
				putn(row, x + ind, w - ind, piece);
			}
		}
		bottom = top;
	}
	return y + rows - bottom;
}

/* A chat pane's lines from its top row down, as many as rows rows take (chat_layout()). */
static void
draw_chat(const struct screen *s, const struct client_table *t, int kibitz, int y, int rows, int x,
          int w)
{
	chat_layout(s, t, kibitz, y, chat_layout(s, t, kibitz, y, rows, x, w, 0), x, w, 1);
}

/*
 * A notice on line y, from column 1. One too long for the line goes on two when lines is 2, the
 * line above (blanked) taking its first words, so that the end of a long refusal is not lost;
 * what does not fit ends in an ellipsis.
 */
static void
draw_message(struct screen *s, int y, const char *text, int lines)
{
	const char *more = glyph(s, "\xe2\x80\xa6", "...");
	char first[sizeof s->c->st.message];
	int w = COLS - 1;

	if (text_width(text) > w && lines == 2) {
		const char *next;
		snprintf(first, sizeof first, "%.*s", wrap_line(text, w, &next), text);
		text = next;
		blank(y - 1, 0, COLS);
		putn(y - 1, 1, w, first);
	}
	if (text_width(text) <= w) {
		putn(y, 1, w, text);
	} else {
		putn(y, 1, w - text_width(more), text);
		addstr(more);
	}
}

/*
 * The notice line (or the prompt being typed, or the question asked) above the hints; while the
 * keys go to a prompt or a question, the hints bar shows theirs instead of the page's.
 */
static void
draw_notice(struct screen *s)
{
	struct client *c = s->c;
	int y = LINES - 2;
	static const char *const prompts[] = {"Move: ", "Join game id or invite code: ",
	                                      "Watch game id or invite code: ", "Say: "};
	static const char *const sends[] = {"play", "join", "watch", "send"};

	blank(y, 0, COLS);
	if (s->mode == MODE_PROMPT) {
		attron(A_BOLD);
		putn(y, 1, COLS - 1, prompts[s->prompt]);
		attroff(A_BOLD);
		int x = 1 + (int)strlen(prompts[s->prompt]);
		const char *tail = prompt_tail(s->line, COLS - x - 1);
		putn(y, x, COLS - x, tail);
		{
			const char *keys[] = {"Ctrl-U", "clear",          "Esc", "cancel",
			                      "Enter",  sends[s->prompt], NULL};
			draw_hints(keys);
		}
		curs_set(1);
		move(y, x + text_width(tail));
		return;
	}
	if (s->mode == MODE_CONFIRM) {
		static const char *const q[] = {[CONFIRM_RESIGN] = "Resign this game? (y/n)",
		                                [CONFIRM_ABORT] =
		                                        "Abort this game (no result)? (y/n)"};
		static const char *const keys[] = {"any other key", "no", "y", "yes", NULL};
		attron(A_BOLD | pair(s, PAIR_ERROR));
		putn(y, 1, COLS - 1, q[s->confirm]);
		attroff(A_BOLD | pair(s, PAIR_ERROR));
		draw_hints(keys);
		return;
	}
	if (c->st.message[0]) {
		attr_t a = c->st.message_error ? (pair(s, PAIR_ERROR) | A_BOLD) : A_NORMAL;
		attron(a);
		/* the frame of the help or the chat log ends on the line above */
		draw_message(s, y, c->st.message, s->help || s->chatlog ? 1 : 2);
		attroff(a);
	}
}

/*
 * Whether the board is drawn turned round (a half turn: a1 at the top right). Its usual way has
 * the player's own side at the bottom: in HOKITO white sets up on ranks 4-6, so white sees the
 * board turned; black, spectators, replays and OXONO (no home ranks) see rank 1 at the bottom.
 * The f key turns it from there.
 */
static int
board_turned(const struct screen *s)
{
	const struct client_table *t = &s->c->st.table;
	int own = s->page == PAGE_MAIN && t->active && t->game.kind == GAME_HOKITO && t->seat == 1;

	return own != s->flip;
}

/* The square drawn at a place of the board, and the place of a square: one half turn. */
static int
board_view(const struct screen *s, int sq)
{
	return board_turned(s) ? GAME_SQUARES - 1 - sq : sq;
}

/* Where a square is drawn. */
static void
square_origin(const struct screen *s, int sq, int *y, int *x)
{
	int v = board_view(s, sq);

	*y = s->by + (5 - v / 6) * s->ch;
	*x = s->bx + (v % 6) * s->cw;
}

/*
 * The squares of a move (its text, or NULL for none), for a light highlight: HOKITO from/to,
 * OXONO totem and pawn.
 */
static void
last_move_squares(enum game_kind kind, const char *m, int out[3])
{
	out[0] = out[1] = out[2] = -1;
	if (m == NULL)
		return;
	if (kind == GAME_HOKITO) {
		const char *dash = strrchr(m, '-');
		out[0] = game_square_parse(m);
		if (dash != NULL)
			out[1] = game_square_parse(dash + 1);
	} else if (strlen(m) >= 6) {
		out[0] = game_square_parse(m + 1);
		out[1] = game_square_parse(m + 4);
	}
	for (int i = 0; i < 3; i++)
		if (out[i] < 0)
			out[i] = -1;
}

/*
 * Draw one square of g: background, piece chip, height, markers. cursor: whether the board cursor
 * (and the selection) is shown.
 */
static void
draw_square(struct screen *s, const struct game *g, int sq, const int last[3], int cursor)
{
	struct client_cell cell;
	int y, x, light = ((sq / 6) + (sq % 6)) % 2 == 1;
	int is_cursor = sq == s->cursor && cursor;
	int is_sel = cursor && (sq == s->sel || sq == s->totem_to);
	int is_dest = cursor && s->dest[sq];
	int is_last = sq == last[0] || sq == last[1];
	attr_t bg;
	char chip[8];
	int mid;

	client_state_cell(g, sq, &cell);
	square_origin(s, sq, &y, &x);
	if (is_cursor)
		bg = pair(s, PAIR_CURSOR);
	else if (is_sel)
		bg = pair(s, PAIR_SELECTED);
	else if (is_dest)
		bg = pair(s, PAIR_DEST);
	else if (is_last && s->rich)
		bg = pair(s, PAIR_LAST);
	else
		bg = pair(s, light ? PAIR_LIGHT : PAIR_DARK);
	if (!s->colour && is_cursor)
		bg = A_REVERSE;
	attron(bg);
	for (int i = 0; i < s->ch; i++)
		blank(y + i, x, s->cw);
	mid = s->ch == 3 ? 1 : 0;
	/* Cursor and selection brackets, so both show without colour too. */
	if (is_cursor || is_sel) {
		mvaddstr(y + mid, x, is_cursor ? "[" : "<");
		mvaddstr(y + mid, x + s->cw - 1, is_cursor ? "]" : ">");
	}
	if (cell.empty) {
		if (is_dest)
			put(y + mid, x + s->cw / 2 - 1, 0, "%s", glyph(s, " \xe2\x80\xa2", " *"));
		else if (is_last && !s->rich)
			put(y + mid, x + s->cw / 2 - 1, 0, "%s", glyph(s, " \xc2\xb7", " ."));
		attroff(bg);
		return;
	}
	if (cell.totem) {
		attr_t a = pair(s, PAIR_TOTEM) | A_BOLD;
		if (!s->colour)
			a = A_BOLD | A_REVERSE;
		attron(a);
		put(y + mid, x + 1, 0, " %c%c ", cell.value ? 'O' : 'X', s->cw > 5 ? ' ' : '\0');
		attroff(a);
	} else {
		attr_t a = pair(s, cell.colour ? PAIR_PAWN1 : PAIR_PAWN0) | A_BOLD;
		if (!s->colour && cell.colour == 1)
			a = A_BOLD;
		if (g->kind == GAME_HOKITO)
			snprintf(chip, sizeof chip, "%c%d", cell.colour ? 'W' : 'B', cell.value);
		else
			snprintf(chip, sizeof chip, "%c%c", cell.colour ? 'B' : 'P',
			         cell.value ? 'O' : 'X');
		attron(a);
		/* a 5-column cell keeps its last column for the cursor's "]" */
		put(y + mid, x + 1, 0, s->cw > 5 ? " %s " : " %s", chip);
		attroff(a);
		attron(bg);
	}
	attron(bg);
	if (cell.height > 1) {
		int hy = s->ch == 3 ? y : y + 1;
		put(hy, x + s->cw - 3, 0, "%s%d", glyph(s, "\xc3\x97", "x"), cell.height);
	}
	if (is_dest) {
		int my = s->ch == 3 ? y + 2 : y + 1;
		put(my, x + 1, 0, "%s", glyph(s, "\xe2\x80\xa2", "*"));
	} else if (is_last && !s->rich) {
		int my = s->ch == 3 ? y + 2 : y + 1;
		put(my, x + 1, 0, "%s", glyph(s, "\xc2\xb7", "."));
	}
	attroff(bg);
}

/* The board of g, the squares of move last_move (text or NULL) marked; with the cursor or not. */
static void
draw_board(struct screen *s, const struct game *g, const char *last_move, int cursor)
{
	int last[3];

	int turned = board_turned(s);

	last_move_squares(g->kind, last_move, last);
	attron(A_BOLD);
	for (int f = 0; f < 6; f++) {
		int file = 'a' + (turned ? 5 - f : f);
		put(s->by - 1, s->bx + f * s->cw + s->cw / 2, 0, "%c", file);
		if (s->by + 6 * s->ch < LINES - 2)
			put(s->by + 6 * s->ch, s->bx + f * s->cw + s->cw / 2, 0, "%c", file);
	}
	for (int r = 0; r < 6; r++)
		put(s->by + (5 - r) * s->ch + (s->ch == 3 ? 1 : 0), s->bx - 2, 0, "%d",
		    (turned ? 5 - r : r) + 1);
	attroff(A_BOLD);
	for (int sq = 0; sq < GAME_SQUARES; sq++)
		draw_square(s, g, sq, last, cursor);
}

/* A small chip for a side, as on the board. */
static void
draw_side_chip(struct screen *s, int y, int x, enum game_kind kind, int side)
{
	attr_t a = pair(s, side ? PAIR_PAWN1 : PAIR_PAWN0) | A_BOLD;
	if (!s->colour && side)
		a = A_BOLD;
	attron(a);
	if (kind == GAME_HOKITO)
		put(y, x, 0, " %c ", side ? 'W' : 'B');
	else
		put(y, x, 0, " %c ", side ? 'B' : 'P');
	attroff(a);
}

/*
 * One player's line of a side panel (the game's or the replay's): the turn marker, the side's
 * chip, the side's name when the panel is wide, the player's name, and at the right end the
 * score or the reserves of position g. The name runs up to the widest score ("36") or reserve
 * ("X8 O8") text, so that "computer (level 3)" stays whole at 80 columns; on a narrow panel (a
 * 64-column terminal) the side's name goes, so that the player's shows.
 */
static void
draw_player_line(struct screen *s, int y, int px, int pw, const struct game *g, int side,
                 int tomove, const char *name)
{
	int wide = pw >= 34, nx = wide ? 13 : 6, vw = g->kind == GAME_HOKITO ? 2 : 5;
	struct game_outcome o;
	int reserve[2][2];
	char buf[32];

	attron(A_BOLD);
	put(y, px, 0, "%s", tomove ? glyph(s, "\xe2\x96\xb6", ">") : " ");
	attroff(A_BOLD);
	draw_side_chip(s, y, px + 2, g->kind, side);
	if (wide)
		put(y, px + 6, 0, "%-6s", client_state_side_name(g->kind, side));
	if (tomove)
		attron(A_BOLD);
	putn_cut(s, y, px + nx, pw - nx - vw - 1, name);
	attroff(A_BOLD);
	game_outcome(g, &o);
	client_state_reserves(g, reserve);
	if (g->kind == GAME_HOKITO)
		snprintf(buf, sizeof buf, "%d", o.score[side]);
	else
		snprintf(buf, sizeof buf, "X%d O%d", reserve[side][0], reserve[side][1]);
	put(y, px + pw - vw, 0, "%*s", vw, buf);
}

/*
 * The side panel of the game screen. A narrow one (a 64-column terminal) leaves out the side
 * names beside the chips and keeps a smaller score column, so that the players' names show; a
 * short one (fewer than 24 lines) leaves out the blank lines and puts the spectators on one line.
 * A line with keys in it that does not fit is written without them: the hints bar has them.
 */
static void
draw_panel(struct screen *s, int px, int pw)
{
	struct client *c = s->c;
	const struct client_table *t = &c->st.table;
	int y = 2, side = game_side(&t->game);
	int wide = pw >= 34, tall = LINES >= 24;
	int nx = wide ? 13 : 6, sw = wide ? 10 : 7; /* name column, score heading width */
	uint64_t now = uv_now(c->loop);
	char buf[256], longer[320];

	attron(A_BOLD);
	put(y, px, pw, "%s", t->kind == GAME_OXONO ? "OXONO" : "HOKITO");
	attroff(A_BOLD);
	put(y, px + 7 - (t->kind == GAME_OXONO), pw - 7, "%s %s game %s", t->variant,
	    glyph(s, "\xc2\xb7", "-"), t->id);
	if (t->invite[0]) {
		y++;
		put(y, px, pw, "invite code ");
		attron(A_BOLD);
		put(y, px + 12, pw - 12, "%s", t->invite);
		attroff(A_BOLD);
	}
	y += tall ? 2 : 1;
	attron(A_DIM);
	put(y, px + 2, 0, "Player");
	put(y, px + pw - sw, 0, "%*s", sw, t->kind == GAME_HOKITO ? "Score" : "Reserve");
	attroff(A_DIM);
	y++;
	for (int i = 0; i < 2; i++) {
		const struct client_seat *seat = &t->seats[i];
		int tomove = !t->over && t->started && side == i;
		snprintf(buf, sizeof buf, "%s%s", seat->name[0] ? seat->name : "(empty seat)",
		         t->seat == i ? " (you)" : "");
		draw_player_line(s, y, px, pw, &t->game, i, tomove, buf);
		y++;
		if (t->timed) {
			int64_t ms = client_state_clock(t, i, now);
			int low = ms < CLIENT_LOW_TIME_MS && t->started && !t->over;
			char ct[24];
			client_state_clock_text(ms, ct, sizeof ct);
			attr_t a =
			        low ? (pair(s, PAIR_ERROR) | A_BOLD) : (tomove ? A_BOLD : A_NORMAL);
			attron(a);
			put(y, px + 2, 0, "%s %s%s", glyph(s, "\xe2\x8f\xb1", "@"), ct,
			    low ? "  low time!" : "");
			attroff(a);
			y++;
		}
		if (seat->name[0] && !seat->connected) {
			attron(pair(s, PAIR_ERROR) | A_BOLD);
			if (t->over)
				put(y, px + nx, pw - nx, "offline");
			else if (seat->grace_over)
				putn_fit(y, px + nx, pw - nx,
				         t->seat == !i && !t->adjourned
				                 ? "offline, grace over: c/C claim"
				                 : "offline, grace over",
				         "offline, grace over");
			else {
				int64_t grace = client_state_grace(t, i, now); /* up to INT64_MAX */
				put(y, px + nx, pw - nx, "offline, %lld s grace",
				    (long long)(grace / 1000 + (grace % 1000 != 0)));
			}
			attroff(pair(s, PAIR_ERROR) | A_BOLD);
			y++;
		}
	}
	y += tall;
	/* Whose turn. */
	if (t->over) {
		client_state_result_text(t, buf, sizeof buf);
		snprintf(longer, sizeof longer, "Game over: %s", buf);
		attron(A_BOLD | pair(s, PAIR_GOOD));
		putn_fit(y, px, pw, longer, buf);
		attroff(A_BOLD | pair(s, PAIR_GOOD));
	} else if (!t->started) {
		attron(A_BOLD);
		put(y, px, pw, "Waiting for an opponent%s", glyph(s, "\xe2\x80\xa6", "..."));
		attroff(A_BOLD);
	} else if (t->adjourned) {
		attron(A_BOLD | pair(s, PAIR_ERROR));
		putn_fit(y, px, pw, "Adjourned: waiting for both players", "Adjourned");
		attroff(A_BOLD | pair(s, PAIR_ERROR));
	} else if (client_state_our_turn(&c->st)) {
		attron(A_BOLD | pair(s, PAIR_GOOD));
		put(y, px, pw, "Your move (%s)", client_state_side_name(t->kind, side));
		attroff(A_BOLD | pair(s, PAIR_GOOD));
	} else {
		attron(A_BOLD);
		put(y, px, pw, "%s to move%s", client_state_side_name(t->kind, side),
		    t->seat < 0 ? "  (watching)" : "");
		attroff(A_BOLD);
	}
	y++;
	/* Offers standing: a line of their own on a tall terminal, only when there is one on a
	 * short one. */
	{
		int offer = t->over ? t->rematch_offer : t->draw_offer;
		const char *what = t->over ? "rematch" : "draw";
		int shown = 1;
		if (offer >= 0)
			snprintf(buf, sizeof buf, "%s offers a %s",
			         client_state_side_name(t->kind, offer), what);
		if (t->over && t->rematch_game[0]) {
			put(y, px, pw, "Rematch: game %s", t->rematch_game);
		} else if (offer >= 0 && t->seat >= 0 && offer != t->seat) {
			snprintf(longer, sizeof longer, "%s: %s accept, x decline", buf,
			         t->over ? "n" : "a");
			attron(A_BOLD | pair(s, PAIR_GOOD));
			putn_fit(y, px, pw, longer, buf);
			attroff(A_BOLD | pair(s, PAIR_GOOD));
		} else if (offer >= 0) {
			putn(y, px, pw, buf);
		} else {
			shown = 0;
		}
		y += shown || tall;
	}
	/*
	 * Moves, two a row, the latest visible; the chat panes below them, down to the line above
	 * the spectators (LINES - 6, or LINES - 4 on a short terminal). What is above depends on
	 * the game (an invite code, clocks, an offline line), so the room is shared out: first the
	 * blank line above the spectators goes, then the chat panes shrink to their heading and one
	 * line, then the spectators' chat goes, then the players' chat, so that the heading and the
	 * latest moves always show.
	 */
	int chat_rows = tall ? 4 : 2, kibitz_rows = t->seat < 0 ? (tall ? 3 : 2) : 0;
	int spect_y = tall ? LINES - 6 : LINES - 4, end = spect_y - 1;
	while (end - y - chat_rows - kibitz_rows < 2) {
		if (end < spect_y)
			end++;
		else if (chat_rows > 2)
			chat_rows--;
		else if (kibitz_rows > 2)
			kibitz_rows--;
		else if (kibitz_rows > 0)
			kibitz_rows = 0;
		else if (chat_rows > 0)
			chat_rows = 0;
		else
			break;
	}
	/*
	 * Rows the moves do not need yet (they take their heading, one row for two moves and a
	 * blank line) go to the chat panes, shared out between them.
	 */
	int spare =
	        end - y - chat_rows - kibitz_rows - (2 + (t->nmoves > 2 ? (t->nmoves + 1) / 2 : 1));
	if (spare > 0 && chat_rows > 0) {
		int to_kibitz = kibitz_rows > 0 ? spare / 2 : 0;
		kibitz_rows += to_kibitz;
		chat_rows += spare - to_kibitz;
	}
	int bottom = end - chat_rows - kibitz_rows;
	attron(A_BOLD);
	if (y < bottom)
		put(y, px, pw, "Moves");
	attroff(A_BOLD);
	y++;
	int rows = (t->nmoves + 1) / 2, room = bottom - y;
	int first = rows > room ? rows - room : 0;
	if (t->nmoves == 0 && y < bottom) {
		attron(A_DIM);
		put(y, px + 1, pw, "%s", t->over ? "none" : "none yet");
		attroff(A_DIM);
	}
	for (int r = first; r < rows && y < bottom; r++, y++) {
		put(y, px, 0, "%3d.", r + 1);
		put(y, px + 5, 0, "%-12s", t->moves[2 * r]);
		if (2 * r + 1 < t->nmoves)
			put(y, px + 18, 0, "%s", t->moves[2 * r + 1]);
	}
	/* The chat pane: players' chat, and (to spectators) the spectators' chat apart. */
	y = bottom;
	for (int k = 0; k < 2; k++) {
		int nrows = k ? kibitz_rows : chat_rows;
		if (nrows == 0)
			continue;
		attron(A_BOLD);
		put(y, px, pw, "%s", k ? "Spectators' chat (T log)" : "Chat (t talk, T log)");
		attroff(A_BOLD);
		draw_chat(s, t, k, y + 1, nrows - 1, px + 1, pw - 1);
		y += nrows;
	}
	/* Spectators: their names below the heading, or after it on a short terminal. */
	y = spect_y;
	snprintf(longer, sizeof longer, "Spectators (%d)%s", t->nspectators, tall ? "" : ":");
	attron(A_BOLD);
	putn(y, px, pw, longer);
	attroff(A_BOLD);
	client_state_spectators_text(t, buf, sizeof buf);
	{
		int sx = tall ? 1 : (int)strlen(longer) + 1;
		putn_cut(s, tall ? y + 1 : y, px + sx, pw - sx, t->nspectators ? buf : "none");
	}
	/* The square under the cursor, with its whole stack. */
	{
		struct client_cell cell;
		char name[3];
		client_state_cell(&t->game, s->cursor, &cell);
		game_square_name(s->cursor, name);
		y = tall ? LINES - 4 : LINES - 3;
		attron(A_BOLD);
		put(y, px, 0, "%s", name);
		attroff(A_BOLD);
		if (cell.empty)
			put(y, px + 3, pw - 3, "empty");
		else if (t->kind == GAME_HOKITO)
			put(y, px + 3, pw - 3, "%s  (%d pawn%s, top %c%d)", cell.text, cell.height,
			    cell.height > 1 ? "s" : "", cell.colour ? 'w' : 'b', cell.value);
		else if (cell.totem)
			put(y, px + 3, pw - 3, "totem %c", cell.value ? 'O' : 'X');
		else
			put(y, px + 3, pw - 3, "%s pawn %c",
			    client_state_side_name(t->kind, cell.colour), cell.value ? 'O' : 'X');
	}
}

/*
 * The rows of chat log line l (from the spectators' chat when kibitz) in w columns: "NAME: TEXT"
 * (a spectator's "NAME (spectator): TEXT") wrapped at spaces, its continuation indented by two
 * columns. Draws them from row y, skipping the first skip rows and stopping at row bottom, when
 * draw is set. Returns the rows the line takes.
 */
static int
chatlog_line(const struct client_chat *l, int kibitz, int w, int y, int skip, int bottom, int x,
             int draw)
{
	char text[CLIENT_NAME_MAX + CLIENT_CHAT_TEXT + 16], piece[sizeof text];
	const char *p, *next;
	int n = 0;

	snprintf(text, sizeof text, "%s%s: %s", l->name, kibitz ? " (spectator)" : "", l->text);
	for (p = text; *p != '\0'; p = next, n++) {
		int ind = n ? 2 : 0, len = wrap_line(p, w - ind, &next);
		int row = y + n - skip;
		if (!draw || n < skip || row >= bottom)
			continue;
		snprintf(piece, sizeof piece, "%.*s", len, p);
		if (kibitz)
			attron(A_DIM);
		putn(row, x + ind, w - ind, piece);
		attroff(A_DIM);
	}
	return n;
}

/*
 * The chat log overlay (T): every chat line kept (the last CLIENT_CHAT_KEEP of each chat), the
 * players' and, to a spectator, the spectators' in the order they came, each whole, the newest
 * at the bottom. The side panel may have no room for the chat pane (a 64x18 terminal at a
 * timed game) or cut a long line to one row, and the status line shows a line until the next
 * notice: here every line can be read whole, and again. Up/Down and PgUp/PgDn scroll back and
 * forth; any other key closes it.
 */
static void
draw_chatlog(struct screen *s)
{
	const struct client_table *t = &s->c->st.table;
	int y = 1, x = 1, h = LINES - 3, w = COLS - 2, room = h - 2, iw = w - 4;
	int total = 0, kibitz, first, row, skip, i;
	const struct client_chat *l;

	for (i = 0; (l = client_state_chat_log(t, i, &kibitz)) != NULL; i++)
		total += chatlog_line(l, kibitz, iw, 0, 0, 0, 0, 0);
	if (s->chatlog_back > total - room)
		s->chatlog_back = total > room ? total - room : 0;
	if (s->chatlog_back < 0)
		s->chatlog_back = 0;
	frame(s, y, x, h, w, "Chat log");
	if (total == 0) {
		attron(A_DIM);
		put(y + 1, x + 2, iw, "No chat yet: t to talk.");
		attroff(A_DIM);
	}
	/* the rows shown: from first, counted from the top of the oldest line */
	first = total - room - s->chatlog_back;
	if (first < 0)
		first = 0;
	row = 0;
	for (i--; i >= 0; i--) {
		l = client_state_chat_log(t, i, &kibitz);
		int n = chatlog_line(l, kibitz, iw, 0, 0, 0, 0, 0);
		if (row + n > first) {
			skip = first > row ? first - row : 0;
			chatlog_line(l, kibitz, iw, y + 1 + row + skip - first, skip, y + 1 + room,
			             x + 2, 1);
		}
		row += n;
		if (row >= first + room)
			break;
	}
	if (total > room) {
		attron(A_BOLD);
		put(y + h - 1, x + 2, iw, " %s%s ", first > 0 ? "Up: older" : "the first line",
		    s->chatlog_back > 0 ? ", Down: newer" : "");
		attroff(A_BOLD);
	}
	{
		static const char *const keys[] = {"Up/Down",       "scroll", "PgUp/PgDn", "page",
		                                   "any other key", "close",  NULL};
		draw_hints(keys);
	}
}

/* The stack overlay: the whole stack on the cursor square, top first. */
static void
draw_stack(struct screen *s)
{
	const struct client_table *t = &s->c->st.table;
	struct client_cell cell;
	char name[3], title[32];
	int h, w = 30, y, x;

	client_state_cell(&t->game, s->cursor, &cell);
	game_square_name(s->cursor, name);
	h = (cell.empty || t->kind == GAME_OXONO ? 1 : cell.height) + 5;
	y = s->by + 1;
	x = s->bx + 3;
	snprintf(title, sizeof title, "Stack on %s", name);
	frame(s, y, x, h, w, title);
	if (cell.empty || t->kind == GAME_OXONO) {
		put(y + 2, x + 2, w - 4, "%s", cell.empty ? "empty square" : cell.text);
	} else {
		int len = (int)strlen(cell.text);
		for (int i = 0; i < cell.height; i++) {
			const char *p = cell.text + len - 2 * (i + 1);
			int colour = p[0] == 'w';
			attr_t a = pair(s, colour ? PAIR_PAWN1 : PAIR_PAWN0) | A_BOLD;
			if (!s->colour && colour)
				a = A_BOLD;
			put(y + 2 + i, x + 2, 0, "%-7s",
			    i == 0                 ? "top"
			    : i == cell.height - 1 ? "bottom"
			                           : "");
			attron(a);
			put(y + 2 + i, x + 10, 0, " %c%c ", colour ? 'W' : 'B', p[1]);
			attroff(a);
			put(y + 2 + i, x + 15, 0, "%s %c", colour ? "white" : "black", p[1]);
		}
		put(y + 2 + cell.height, x + 2, w - 4, "worth %d to %s", cell.value * cell.height,
		    cell.colour ? "White" : "Black");
	}
	attron(A_DIM);
	put(y + h - 2, x + 2, w - 4, "any key to close");
	attroff(A_DIM);
}

/* The lines of the help for the page shown: keys first, then notes after a blank line. */
static const char *const *
help_lines(const struct screen *s)
{
	static const char *const game_lines[] = {
	        "arrows / hjkl   move the cursor",
	        "Enter / Space   select, then pick a destination",
	        "mouse click     the same as Enter on that square",
	        "Esc             cancel the selection",
	        ": or m          type a move (c2-e4, Xc5+c6)",
	        "s               show the whole stack under the cursor",
	        "f               turn the board round",
	        "r               resign",
	        "d / a / x       offer a draw / accept / decline",
	        "A               abort (before your first move)",
	        "c / C           claim the win / a draw (opponent gone)",
	        "n               rematch (offer or accept), after the game",
	        "w               watching: go to the players' rematch",
	        "v               replay the game, after it is over",
	        "t / T           chat / the chat log, every line whole",
	        "q               leave the game, back to the lobby",
	        "Q / Ctrl-C      quit hokito",
	        "",
	        "HOKITO: a pawn or stack makes as many hops as its",
	        "top pawn's value, each to the next occupied square;",
	        "score = top value x stack height of your squares.",
	        "OXONO: move a totem (X or O), then place a pawn of",
	        "its symbol next to it; 4 in a row of one colour or",
	        "one symbol wins.",
	        NULL,
	};
	static const char *const lobby_lines[] = {
	        "Up/Down, j/k    choose a game",
	        "Enter           join an open seat, or watch",
	        "w               watch the chosen game",
	        "c               create a game",
	        "p               quick pairing (HOKITO)",
	        "P               quick pairing (OXONO)",
	        "i               join by game id or invite code",
	        "r               refresh the list",
	        "< / >           previous / next 100 games",
	        "h               finished games: replay them",
	        "q / Ctrl-C      quit",
	        NULL,
	};
	static const char *const history_lines[] = {
	        "Up/Down, j/k    choose a game",
	        "Enter           replay it",
	        "n / PgDn        older games (next page)",
	        "p / PgUp        newer games (previous page)",
	        "r               ask again",
	        "q / Esc         back to the lobby",
	        NULL,
	};
	static const char *const replay_lines[] = {
	        "Right, l, Space  next move",
	        "Left, h          previous move",
	        "PgDn / PgUp      10 moves on / back",
	        "Home, g, 0       the start",
	        "End, G, $        the end",
	        "f                turn the board round",
	        "q / Esc          back",
	        "",
	        "Eval: the position judged by a short search",
	        "(depth 4) from here: who is ahead and by how",
	        "much, or the result it proves with best play.",
	        NULL,
	};
	return s->page == PAGE_REPLAY    ? replay_lines
	       : s->page == PAGE_HISTORY ? history_lines
	       : s->c->st.table.active   ? game_lines
	                                 : lobby_lines;
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
	frame(s, y, x, h, w, "Help");
	for (int i = 0; i < n; i++)
		putn(y + 1 + pad + i, x + 2, w - 4, lines[first[page] + i]);
	if (np > 1) {
		attron(A_BOLD);
		put(y + 1 + pad + n, x + 2, w - 4, "(%d/%d) %s", page + 1, np,
		    page + 1 < np ? "Space: more, Esc: close" : "any key closes");
		attroff(A_BOLD);
	}
	{
		static const char *const more[] = {"Space", "more", "Esc", "close", NULL};
		static const char *const last[] = {"any key", "close", NULL};
		draw_hints(page + 1 < np ? more : last);
	}
}

static void
draw_over(struct screen *s)
{
	const struct client_table *t = &s->c->st.table;
	static const char keys_one[] = "Enter lobby  v replay  Esc board";
	char buf[128], lines[3][64];
	int w = 6 * s->cw, n, h, y, x = s->bx, keys;

	client_state_result_text(t, buf, sizeof buf);
	n = wrap(t->reason, w - 4, lines, 3);
	/* the keys on one line, or on two when the box is narrow (a 64-column terminal) */
	keys = (int)strlen(keys_one) <= w - 4;
	h = 7 + n + (t->seat >= 0) + !keys;
	y = s->by + (6 * s->ch - h) / 2;
	frame(s, y, x, h, w, "Game over");
	attron(A_BOLD | pair(s, PAIR_GOOD));
	putn(y + 2, x + 2, w - 4, buf);
	attroff(A_BOLD | pair(s, PAIR_GOOD));
	for (int i = 0; i < n; i++)
		putn(y + 3 + i, x + 2, w - 4, lines[i]);
	if (t->seat >= 0) {
		attron(A_BOLD);
		putn(y + 4 + n, x + 2, w - 4,
		     t->winner < 0          ? "Nobody won."
		     : t->winner == t->seat ? "You won!"
		                            : "You lost.");
		attroff(A_BOLD);
	}
	attron(A_DIM);
	if (keys) {
		putn(y + h - 2, x + 2, w - 4, keys_one);
	} else {
		putn(y + h - 3, x + 2, w - 4, "Enter lobby  v replay");
		putn(y + h - 2, x + 2, w - 4, "Esc board");
	}
	attroff(A_DIM);
}

/*
 * The game's key hints: only the keys that do something for this viewer (a seat or a spectator)
 * in this state of the game, the ones a player needs now first. Every key is in the ? help.
 */
static void
draw_game_hints(struct screen *s)
{
	const struct client_table *t = &s->c->st.table;
	struct hints h = {{NULL}, 0};
	int seated = t->seat >= 0, our_turn = client_state_our_turn(&s->c->st);
	int opponent_gone = seated && t->started && !t->over && !t->adjourned &&
	                    t->seats[!t->seat].name[0] && !t->seats[!t->seat].connected &&
	                    t->seats[!t->seat].grace_over;

	if (t->over) {
		if (seated && !t->rematch_game[0] && t->rematch_offer >= 0 &&
		    t->rematch_offer != t->seat) {
			hint_add(&h, "n", "accept rematch");
			hint_add(&h, "x", "decline");
		}
		if (!seated && t->rematch_game[0] && !t->private_game)
			hint_add(&h, "w", "watch rematch");
		hint_add(&h, "Enter", "lobby");
		if (seated && !t->rematch_game[0] && t->rematch_offer < 0)
			hint_add(&h, "n", "rematch");
		hint_add(&h, "v", "replay");
		if (!s->over_hidden)
			hint_add(&h, "Esc", "board");
		hint_add(&h, "t", "chat");
		if (!seated)
			hint_add(&h, "s", "stack");
		hint_add(&h, "Q", "quit");
	} else if (!seated || !t->started) {
		/* watching, or seated at a game still waiting for its opponent */
		hint_add(&h, "arrows", "cursor");
		hint_add(&h, "s", "stack");
		hint_add(&h, "t", "chat");
		hint_add(&h, "q", "leave");
		hint_add(&h, "f", "flip");
		hint_add(&h, "Q", "quit");
	} else {
		if (opponent_gone) {
			hint_add(&h, "c", "claim win");
			hint_add(&h, "C", "claim draw");
		}
		if (t->draw_offer >= 0 && t->draw_offer != t->seat) {
			hint_add(&h, "a", "accept draw");
			hint_add(&h, "x", "decline");
		}
		if (our_turn) {
			hint_add(&h, "Enter", "select");
			hint_add(&h, "arrows", "cursor");
			hint_add(&h, ":", "type");
		} else {
			hint_add(&h, "arrows", "cursor");
		}
		hint_add(&h, "r", "resign");
		/* no offers in an adjourned game, nor to the computer (it takes none) */
		if (t->draw_offer < 0 && !t->adjourned && !t->seats[!t->seat].computer)
			hint_add(&h, "d", "draw");
		hint_add(&h, "t", "chat");
		if (!our_turn) {
			hint_add(&h, "s", "stack");
			hint_add(&h, "f", "flip");
		}
	}
	hint_add(&h, "?", "help");
	draw_hints(h.pairs);
}

static void
draw_game(struct screen *s)
{
	const struct client_table *t = &s->c->st.table;
	int big = LINES >= 24 && COLS >= 3 + 36 + 2 + PANEL_MIN;
	int px, pw;

	s->cw = big || COLS >= 3 + 36 + 2 + PANEL_MIN ? 6 : 5;
	s->ch = LINES >= 24 ? 3 : 2;
	s->by = 3;
	s->bx = 3;
	px = s->bx + 6 * s->cw + 3;
	pw = COLS - px - 1;
	if (pw > 46)
		pw = 46;
	screen_kind_colours(s, t->kind);
	draw_board(s, &t->game, t->nmoves > 0 ? t->moves[t->nmoves - 1] : NULL, 1);
	draw_panel(s, px, pw);
	if (s->stack)
		draw_stack(s);
	if (s->chatlog) {
		draw_chatlog(s);
		return;
	}
	if (t->over && !s->over_hidden && !s->stack && !s->help)
		draw_over(s);
	draw_game_hints(s);
}

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

static void
draw_create(struct screen *s)
{
	static const char *const kinds[] = {"HOKITO", "OXONO"};
	static const char *const variants[2][2] = {{"standard", "random36"}, {"standard", NULL}};
	static const char *const seats[3] = {"random", "first", "second"};
	static const char *const labels[] = {"Game",  "Variant",  "Seat", "Private",
	                                     "Clock", "Opponent", "Level"};
	static const char *const levels[] = {"1", "2", "3", "4", "5", "6", "7", "8"};
	int w = 52, h = 14, y = (LINES - h) / 2, x = (COLS - w) / 2;
	char seatbuf[3][24];

	frame(s, y, x, h, w, "Create a game");
	snprintf(seatbuf[0], sizeof seatbuf[0], "%s", seats[0]);
	snprintf(seatbuf[1], sizeof seatbuf[1], "%s", s->f_kind ? "pink" : "black");
	snprintf(seatbuf[2], sizeof seatbuf[2], "%s", s->f_kind ? "black" : "white");
	for (int f = 0; f < CREATE_FIELDS; f++) {
		const char *opts[8] = {NULL};
		int cur = 0, n = 0, dim = f == 6 && !s->f_opponent;
		switch (f) {
		case 0:
			opts[0] = kinds[0], opts[1] = kinds[1], n = 2, cur = s->f_kind;
			break;
		case 1:
			opts[0] = variants[s->f_kind][0];
			opts[1] = variants[s->f_kind][1];
			n = opts[1] ? 2 : 1;
			cur = s->f_variant;
			break;
		case 2:
			opts[0] = seatbuf[0], opts[1] = seatbuf[1], opts[2] = seatbuf[2];
			n = 3, cur = s->f_seat;
			break;
		case 3:
			opts[0] = "public", opts[1] = "private", n = 2, cur = s->f_private;
			break;
		case 5:
			opts[0] = "person", opts[1] = "computer", n = 2, cur = s->f_opponent;
			break;
		case 6:
			for (n = 0; n < 8; n++)
				opts[n] = levels[n];
			cur = s->f_level;
			break;
		default:
			for (n = 0; n < CLOCK_CHOICES; n++)
				opts[n] = clock_choices[n] ? clock_choices[n] : "none";
			cur = s->f_clock;
			break;
		}
		if (f == s->field)
			attron(A_BOLD);
		put(y + 2 + f, x + 2, 0, "%s %-8s",
		    f == s->field ? glyph(s, "\xe2\x96\xb6", ">") : " ", labels[f]);
		attroff(A_BOLD);
		int ox = x + 14;
		for (int i = 0; i < n; i++) {
			if (dim)
				attron(A_DIM);
			else if (i == cur)
				attron(A_REVERSE | A_BOLD);
			put(y + 2 + f, ox, 0, " %s ", opts[i]);
			attroff(A_REVERSE | A_BOLD | A_DIM);
			ox += (int)strlen(opts[i]) + (f == 6 ? 2 : 3);
		}
	}
	attron(A_DIM);
	put(y + h - 3, x + 2, w - 4, "Up/Down field, Left/Right value");
	put(y + h - 2, x + 2, w - 4, "Enter: create   Esc: cancel");
	attroff(A_DIM);
	{
		static const char *const keys[] = {"Up/Down", "field", "Left/Right", "value", "Esc",
		                                   "cancel",  "Enter", "create",     NULL};
		draw_hints(keys);
	}
}

/* Whether Enter on a lobby entry joins it (an open seat) rather than watches it. */
static int
lobby_joins(const struct client_entry *e)
{
	return strcmp(e->status, "open") == 0 && (!e->players[0][0] || !e->players[1][0]);
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
	put(y, 1, w - 1, "Games on this server");
	attroff(A_BOLD);
	if (st->list_total > st->nlist)
		put(y, 23, w - 24, "%d to %d of %d  (< > pages of %d)",
		    st->list_offset + s->list_top + 1,
		    st->list_offset +
		            (s->list_top + show < st->nlist ? s->list_top + show : st->nlist),
		    st->list_total, PROTOCOL_LIST_MAX);
	else if (st->nlist > show)
		put(y, 23, w - 24, "%d to %d of %d", s->list_top + 1,
		    s->list_top + show < st->nlist ? s->list_top + show : st->nlist, st->nlist);
	y += 2;
	attron(A_UNDERLINE | A_BOLD);
	blank(y, 1, w - 2);
	put(y, 1, w - 2, " %-8s %-6s %-8s %-9s %-*s%s %5s %5s", "ID", "GAME", "VARIANT", "STATE",
	    pw, "PLAYERS", clk ? " CLOCK " : "", "MOVE", "WATCH");
	attroff(A_UNDERLINE | A_BOLD);
	y++;
	s->list_y = y;
	if (st->nlist == 0) {
		attron(A_DIM);
		put(y + 1, 3, w - 4,
		    st->link == CLIENT_LINK_UP
		            ? "No games yet. Press c to create one, or p for quick pairing."
		            : "Waiting for the server...");
		attroff(A_DIM);
	}
	for (int i = s->list_top; i < st->nlist && y < LINES - 3; i++, y++) {
		const struct client_entry *e = &st->list[i];
		char players[2 * CLIENT_NAME_MAX + 8];
		snprintf(players, sizeof players, "%s vs %s",
		         e->players[0][0] ? e->players[0] : "-",
		         e->players[1][0] ? e->players[1] : "-");
		if (i == s->row)
			attron(A_REVERSE);
		blank(y, 1, w - 2);
		/* a finished game: how it ended, in the state column */
		char state[16];
		if (e->result >= 0)
			snprintf(state, sizeof state, "%s won", game_side_name(e->kind, e->result));
		else
			snprintf(state, sizeof state, "%s",
			         e->result == -1   ? "drawn"
			         : e->result == -2 ? "aborted"
			         : e->private_game ? "private"
			                           : e->status);
		/* each column cut to its width, with an ellipsis where it is cut; the players by
		 * the columns they take (a name may be wider than its bytes) */
		putn_cut(s, y, 2, 8, e->id);
		put(y, 11, 6, "%s", e->kind == GAME_OXONO ? "oxono" : "hokito");
		putn_cut(s, y, 18, 8, e->variant);
		putn_cut(s, y, 27, 9, state);
		putn_cut(s, y, px, pw, players);
		if (clk)
			putn_cut(s, y, px + pw + 1, 6, e->clock[0] ? e->clock : "-");
		put(y, px + pw + (clk ? 7 : 0), w - 1 - px - pw, " %5d %5d", e->ply, e->spectators);
		attroff(A_REVERSE);
	}
	{
		/* Enter joins an open seat or watches: say which for the highlighted game */
		struct hints h = {{NULL}, 0};
		const struct client_entry *e = s->row < st->nlist ? &st->list[s->row] : NULL;
		if (e != NULL)
			hint_add(&h, "Enter", lobby_joins(e) ? "join" : "watch");
		hint_add(&h, "c", "create");
		hint_add(&h, "p", "quick");
		hint_add(&h, "i", "by code");
		hint_add(&h, "h", "history");
		hint_add(&h, "q", "quit");
		if (e != NULL && lobby_joins(e))
			hint_add(&h, "w", "watch");
		hint_add(&h, "?", "help");
		draw_hints(h.pairs);
	}
	if (s->mode == MODE_CREATE)
		draw_create(s);
}

/* The history page: finished games, most recent first, HISTORY_PAGE at a time. */
static void
draw_history(struct screen *s)
{
	const struct client *c = s->c;
	int y = 2, w = COLS, show;

	attron(A_BOLD);
	put(y, 1, w - 1, "Finished games");
	attroff(A_BOLD);
	if (c->history_stamp != s->hstamp && c->history_total > 0)
		put(y, 17, w - 18, "%lld to %lld of %lld, most recent first",
		    (long long)c->history_offset + 1, (long long)(c->history_offset + c->nhistory),
		    (long long)c->history_total);
	y += 2;
	attron(A_UNDERLINE | A_BOLD);
	blank(y, 1, w - 2);
	put(y, 1, w - 2, " %-8s %s", "ID", "GAME");
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
		put(y + 1, 3, w - 4, "%s",
		    c->history_stamp == s->hstamp ? "Asking the server..."
		                                  : "No finished games on this server yet.");
		attroff(A_DIM);
	} else {
		for (int i = s->htop; i < c->nhistory && y < LINES - 3; i++, y++) {
			if (i == s->hrow)
				attron(A_REVERSE);
			blank(y, 1, w - 2);
			putn_cut(s, y, 2, 8, c->history[i].id);
			putn_cut(s, y, 11, w - 12, c->history[i].line);
			attroff(A_REVERSE);
		}
	}
	{
		static const char *const keys[] = {
		        "Enter", "replay",    "n/PgDn",  "older",  "p/PgUp", "newer", "q",  "lobby",
		        "r",     "ask again", "Up/Down", "choose", "?",      "help",  NULL,
		};
		draw_hints(keys);
	}
}

/* The replay's move list, two plies a row, the current move shown in reverse video. */
static void
draw_replay_moves(struct screen *s, const struct client_replay *rp, int y, int bottom, int px,
                  int pw)
{
	int n = (int)rp->rec.nmoves, rows = (n + 1) / 2, room = bottom - y;
	int cur = (int)rp->ply - 1, first = 0;
	char text[GAME_MOVE_TEXT];

	if (rows > room) {
		/* keep the current move's row in view, a little below the top */
		first = cur / 2 - room / 3;
		if (first > rows - room)
			first = rows - room;
		if (first < 0)
			first = 0;
	}
	for (int r = first; r < rows && y < bottom; r++, y++) {
		put(y, px, 0, "%3d.", r + 1);
		for (int k = 0; k < 2 && 2 * r + k < n; k++) {
			int i = 2 * r + k;
			game_move_format(rp->rec.kind, rp->rec.moves[i], text, sizeof text);
			if (i == cur)
				attron(A_REVERSE | A_BOLD);
			put(y, px + 5 + 13 * k, 0, "%s%s%s", i == cur ? "[" : " ", text,
			    i == cur ? "]" : " ");
			attroff(A_REVERSE | A_BOLD);
		}
	}
	(void)pw;
}

/* The replay page: the board at the current move, the players, the result, the evaluation. */
static void
draw_replay(struct screen *s)
{
	struct client *c = s->c;
	const struct client_replay *rp = &c->replay;
	const struct record *rec = &rp->rec;
	const struct client_eval *e;
	char buf[192], last[GAME_MOVE_TEXT], *why;
	int px, pw, y = 2;

	{
		static const char *const keys[] = {
		        "Left/Right", "step",     "Home/End", "start/end", "q",  "back",
		        "PgUp/PgDn",  "10 moves", "?",        "help",      NULL,
		};
		draw_hints(keys);
	}
	if (!rp->active || strcmp(rp->id, s->replay_want) != 0) {
		/* the line below says why a record did not come */
		attron(A_DIM);
		if (client_request_pending(c, MSG_RECORD))
			put(3, 3, COLS - 4, "Asking the server for the record of game %s...",
			    s->replay_want);
		else
			put(3, 3, COLS - 4, "No record of game %s.", s->replay_want);
		attroff(A_DIM);
		return;
	}
	client_eval_kick(c);
	s->cw = COLS >= 3 + 36 + 2 + PANEL_MIN ? 6 : 5;
	s->ch = LINES >= 24 ? 3 : 2;
	s->by = 3;
	s->bx = 3;
	px = s->bx + 6 * s->cw + 3;
	pw = COLS - px - 1;
	if (pw > 46)
		pw = 46;
	screen_kind_colours(s, rec->kind);
	if (rp->ply > 0)
		game_move_format(rec->kind, rec->moves[rp->ply - 1], last, sizeof last);
	draw_board(s, &rp->pos, rp->ply > 0 ? last : NULL, 0);

	attron(A_BOLD);
	put(y, px, pw, "Replay of game %s", rp->id);
	attroff(A_BOLD);
	y++;
	put(y, px, pw, "%s %s%s%s", rec->kind == GAME_OXONO ? "OXONO" : "HOKITO",
	    rec->variant[0] ? rec->variant : "standard", rec->date[0] ? ", " : "", rec->date);
	y += 2;
	for (int i = 0; i < 2; i++, y++)
		draw_player_line(s, y, px, pw, &rp->pos, i,
		                 !game_over(&rp->pos) && game_side(&rp->pos) == i,
		                 rec->player[i][0] ? rec->player[i] : "?");
	y++;
	if (rec->result == RECORD_UNFINISHED)
		/* "*": aborted (with its reason: no result), or not over yet */
		snprintf(buf, sizeof buf, "Result: %s%s%s",
		         rec->reason[0] ? "No result (" : "Not over", rec->reason,
		         rec->reason[0] ? ")" : "");
	else {
		/* as at the end of a game: "White wins, 47 to 22", then the reason */
		struct game_outcome o;
		char text[64];
		game_outcome(&rec->final, &o);
		client_state_outcome_text(rec->kind,
		                          rec->result == RECORD_DRAW ? -1 : (int)rec->result,
		                          o.score, text, sizeof text);
		snprintf(buf, sizeof buf, "Result: %s (%s)", text, rec->reason);
	}
	why = strrchr(buf, '(');
	if (text_width(buf) > pw && why != NULL && why > buf && why[-1] == ' ') {
		/* a narrow panel: the reason in brackets on a line of its own */
		why[-1] = '\0';
		putn(y++, px, pw, buf);
	} else
		why = NULL;
	putn(y++, px, pw, why != NULL ? why : buf);
	attron(A_BOLD);
	if (rp->ply == 0)
		put(y, px, pw, "Move 0 of %zu: the start", rec->nmoves);
	else
		put(y, px, pw, "Move %zu of %zu: %s %s", rp->ply, rec->nmoves,
		    client_state_side_name(rec->kind,
		                           game_side(&rec->start) ^ (int)((rp->ply - 1) & 1)),
		    last);
	attroff(A_BOLD);
	y++;
	e = &rp->eval[rp->ply];
	if (e->done) {
		attron(A_BOLD | pair(s, PAIR_GOOD));
		put(y, px, pw, "Eval: %s", e->text);
		attroff(A_BOLD | pair(s, PAIR_GOOD));
		if (e->best[0]) {
			attron(A_DIM);
			put(y + 1, px, pw, "  best %s, depth %d", e->best, e->depth);
			attroff(A_DIM);
		}
	} else {
		attron(A_DIM);
		put(y, px, pw, "Eval: thinking%s", glyph(s, "\xe2\x80\xa6", "..."));
		attroff(A_DIM);
	}
	y += LINES >= 24 ? 3 : 2; /* a blank line above the moves when there is room */
	attron(A_BOLD);
	put(y, px, pw, "Moves");
	attroff(A_BOLD);
	y++;
	draw_replay_moves(s, rp, y, LINES - 2, px, pw);
}

/* Leave the history or the replay for page; back in the lobby, ask for a fresh list. */
static void
page_back(struct screen *s, enum page page)
{
	s->page = page;
	if (page == PAGE_MAIN && !s->c->st.table.active)
		client_request_list(s->c);
}

/* Ask for a history page at offset; the page shows "asking" until it comes. */
static void
history_open(struct screen *s, int64_t offset)
{
	s->page = PAGE_HISTORY;
	s->hoffset = offset < 0 ? 0 : offset;
	s->hstamp = s->c->history_stamp;
	s->hrow = 0;
	s->htop = 0;
	client_state_notice(&s->c->st, 0, "%s", ""); /* what the last page said is not about it */
	client_request_history(s->c, s->hoffset, HISTORY_PAGE);
}

/* Ask for the record of game id and show its replay once it comes; back: where q goes. */
static void
replay_open(struct screen *s, const char *id, enum page back)
{
	snprintf(s->replay_want, sizeof s->replay_want, "%s", id);
	s->page = PAGE_REPLAY;
	s->replay_back = back;
	s->help = 0;
	s->stack = 0;
	client_state_notice(&s->c->st, 0, "%s", ""); /* what the last page said is not about it */
	client_request_record(s->c, id);
}

/* Move a list's highlighted row one up (arrow up, k) or down (arrow down, j), within n rows. */
static void
list_step(int *row, int n, int ch)
{
	if (ch == KEY_UP || ch == 'k') {
		if (*row > 0)
			(*row)--;
	} else if (*row + 1 < n) {
		(*row)++;
	}
}

static void
history_key(struct screen *s, int ch)
{
	struct client *c = s->c;
	int loaded = c->history_stamp != s->hstamp;

	switch (ch) {
	case KEY_UP:
	case 'k':
	case KEY_DOWN:
	case 'j':
		list_step(&s->hrow, c->nhistory, ch);
		break;
	case KEY_NPAGE:
	case 'n':
		if (loaded && c->history_offset + c->nhistory < c->history_total)
			history_open(s, c->history_offset + HISTORY_PAGE);
		else if (loaded)
			client_state_notice(&c->st, 0, "No older games: this is the last page.");
		break;
	case KEY_PPAGE:
	case 'p':
		if (loaded && c->history_offset > 0)
			history_open(s, c->history_offset - HISTORY_PAGE);
		else if (loaded)
			client_state_notice(&c->st, 0, "No newer games: this is the first page.");
		break;
	case 'r':
		history_open(s, s->hoffset);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (loaded && s->hrow < c->nhistory)
			replay_open(s, c->history[s->hrow].id, PAGE_HISTORY);
		break;
	case 'q':
	case KEY_ESCAPE:
		page_back(s, PAGE_MAIN);
		break;
	default:
		break;
	}
}

static void
replay_key(struct screen *s, int ch)
{
	struct client *c = s->c;
	long ply = (long)c->replay.ply;

	switch (ch) {
	case KEY_RIGHT:
	case 'l':
	case ' ':
	case KEY_DOWN:
	case 'j':
		client_replay_seek(c, ply + 1);
		break;
	case KEY_LEFT:
	case 'h':
	case KEY_BACKSPACE:
	case KEY_UP:
	case 'k':
		client_replay_seek(c, ply - 1);
		break;
	case KEY_NPAGE:
		client_replay_seek(c, ply + 10);
		break;
	case KEY_PPAGE:
		client_replay_seek(c, ply - 10);
		break;
	case KEY_HOME:
	case 'g':
	case '0':
		client_replay_seek(c, 0);
		break;
	case KEY_END:
	case 'G':
	case '$':
		client_replay_seek(c, RECORD_MOVES_MAX);
		break;
	case 'f':
		s->flip = !s->flip;
		break;
	case 'q':
	case KEY_ESCAPE:
		page_back(s, s->replay_back);
		break;
	default:
		break;
	}
}

static void
screen_draw(struct screen *s)
{
	const struct client_table *t = &s->c->st.table;

	if (!s->on)
		return;
	erase();
	/* the cursor stays on while a line is typed (draw_notice() puts it there): hiding it for
	 * every redraw would make it blink with the clocks */
	if (s->mode != MODE_PROMPT || COLS < MIN_COLS || LINES < MIN_ROWS)
		curs_set(0);
	if (COLS < MIN_COLS || LINES < MIN_ROWS) {
		int y = LINES / 2 - 1;
		attron(A_BOLD);
		put(y < 0 ? 0 : y, 0, COLS, "Terminal too small (%dx%d).", COLS, LINES);
		attroff(A_BOLD);
		put(y + 1, 0, COLS, "Need at least %dx%d.", MIN_COLS, MIN_ROWS);
		put(y + 2, 0, COLS, "Q quits.");
		refresh();
		return;
	}
	draw_title(s);
	if (s->page == PAGE_REPLAY)
		draw_replay(s);
	else if (s->page == PAGE_HISTORY)
		draw_history(s);
	else if (t->active)
		draw_game(s);
	else
		draw_lobby(s);
	if (s->help)
		draw_help(s);
	draw_notice(s);
	refresh();
}

/* Forget the selection. */
static void
select_clear(struct screen *s)
{
	s->sel = -1;
	s->totem_to = -1;
	memset(s->dest, 0, sizeof s->dest);
}

static void
screen_notice(struct client *c, int error, const char *text)
{
	client_state_notice(&c->st, error, "%s", text);
	screen_draw(c->view_data);
}

/* Send a checked move text. */
static void
play_move(struct screen *s, const char *text)
{
	struct client *c = s->c;
	char canon[GAME_MOVE_TEXT], why[256];

	if (client_state_move_check(&c->st, text, canon, sizeof canon, why, sizeof why) < 0) {
		client_state_notice(&c->st, 1, "%s", why);
		beep();
		return;
	}
	select_clear(s);
	if (client_request_move(c, canon) == 0)
		client_state_notice(&c->st, 0, "Sent %s", canon);
}

/* Enter (or a click) on a board square: select, choose a destination, or refuse with why. */
static void
board_choose(struct screen *s, int sq)
{
	struct client *c = s->c;
	const struct client_table *t = &c->st.table;
	char why[256], a[3], b[3], text[GAME_MOVE_TEXT];

	if (t->over || t->seat < 0) {
		s->stack = 1;
		return;
	}
	if (s->sel < 0 || (s->sel == sq && s->totem_to < 0)) {
		if (s->sel == sq) {
			select_clear(s);
			return;
		}
		if (client_state_selectable(&c->st, sq, why, sizeof why) < 0) {
			client_state_notice(&c->st, 1, "%s", why);
			beep();
			return;
		}
		s->sel = sq;
		client_state_destinations(&t->game, sq, -1, s->dest);
		game_square_name(sq, a);
		client_state_notice(&c->st, 0,
		                    "%s selected: pick a highlighted square (Esc cancels).", a);
		return;
	}
	game_square_name(s->sel, a);
	game_square_name(sq, b);
	if (t->kind == GAME_HOKITO) {
		struct client_cell cell;
		client_state_cell(&t->game, sq, &cell);
		if (!cell.empty && cell.colour == t->seat && !s->dest[sq] &&
		    client_state_selectable(&c->st, sq, why, sizeof why) == 0) {
			/* Another of our own pieces: switch the selection to it. */
			select_clear(s);
			board_choose(s, sq);
			return;
		}
		snprintf(text, sizeof text, "%s-%s", a, b);
		play_move(s, text);
		return;
	}
	/* OXONO: the totem first, then the pawn square. */
	int symbol = client_state_totem(&t->game, 1) == s->sel;
	if (s->totem_to < 0) {
		if (sq == client_state_totem(&t->game, !symbol) &&
		    client_state_selectable(&c->st, sq, why, sizeof why) == 0) {
			select_clear(s);
			board_choose(s, sq);
			return;
		}
		if (!s->dest[sq]) {
			client_state_notice(&c->st, 1,
			                    "Totem %c cannot go to %s: it moves in a straight line "
			                    "over empty squares (or jumps out when enclosed).",
			                    symbol ? 'O' : 'X', b);
			beep();
			return;
		}
		s->totem_to = sq;
		client_state_destinations(&t->game, s->sel, sq, s->dest);
		client_state_notice(&c->st, 0,
		                    "Totem %c to %s: now pick the square for your %c pawn.",
		                    symbol ? 'O' : 'X', b, symbol ? 'O' : 'X');
		return;
	}
	game_square_name(s->totem_to, a);
	snprintf(text, sizeof text, "%c%s+%s", symbol ? 'O' : 'X', a, b);
	play_move(s, text);
}

/* Move the board cursor df files and dr ranks as the board is seen (right and up). */
static void
cursor_move(struct screen *s, int df, int dr)
{
	int turned = board_turned(s);
	int f = s->cursor % 6 + (turned ? -df : df), r = s->cursor / 6 + (turned ? -dr : dr);

	if (f < 0)
		f = 0;
	if (f > 5)
		f = 5;
	if (r < 0)
		r = 0;
	if (r > 5)
		r = 5;
	s->cursor = r * 6 + f;
}

/* A square from a click position, or -1. */
static int
board_hit(const struct screen *s, int y, int x)
{
	if (y < s->by || x < s->bx || y >= s->by + 6 * s->ch || x >= s->bx + 6 * s->cw)
		return -1;
	return board_view(s, (5 - (y - s->by) / s->ch) * 6 + (x - s->bx) / s->cw);
}

static void
prompt_open(struct screen *s, enum prompt_kind kind)
{
	s->mode = MODE_PROMPT;
	s->prompt = kind;
	s->line[0] = '\0';
	s->linelen = 0;
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
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		s->mode = MODE_NORMAL;
		curs_set(0);
		if (s->linelen == 0)
			return;
		switch (s->prompt) {
		case PROMPT_MOVE:
			play_move(s, s->line);
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
		}
		return;
	}
	/* Text, in bytes (a UTF-8 character comes as several): a chat line may take as many
	 * characters as the server allows (PROTOCOL_CHAT_MAX), room for the longest character
	 * kept. */
	if (ch >= 32 && ch < 256 && ch != 127 && s->linelen + 4 < (int)sizeof s->line &&
	    ((ch & 0xc0) == 0x80 || text_chars(s->line) < PROTOCOL_CHAT_MAX)) {
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
create_key(struct screen *s, int ch)
{
	int nvalues[CREATE_FIELDS] = {
	        2, s->f_kind == GAME_HOKITO ? 2 : 1, 3, 2, CLOCK_CHOICES, 2, PROTOCOL_LEVEL_MAX};
	int *val[CREATE_FIELDS] = {&s->f_kind,  &s->f_variant,  &s->f_seat, &s->f_private,
	                           &s->f_clock, &s->f_opponent, &s->f_level};

	switch (ch) {
	case KEY_ESCAPE:
	case 'q':
		s->mode = MODE_NORMAL;
		return;
	case KEY_UP:
	case 'k':
		s->field = (s->field + CREATE_FIELDS - 1) % CREATE_FIELDS;
		return;
	case KEY_DOWN:
	case 'j':
	case '\t':
		s->field = (s->field + 1) % CREATE_FIELDS;
		return;
	case KEY_LEFT:
	case 'h':
		*val[s->field] = (*val[s->field] + nvalues[s->field] - 1) % nvalues[s->field];
		break;
	case KEY_RIGHT:
	case 'l':
	case ' ':
		*val[s->field] = (*val[s->field] + 1) % nvalues[s->field];
		break;
	case '\n':
	case '\r':
	case KEY_ENTER: {
		static const char *const variants[] = {NULL, "random36"};
		s->mode = MODE_NORMAL;
		client_request_create(s->c, s->f_kind ? GAME_OXONO : GAME_HOKITO,
		                      s->f_kind ? NULL : variants[s->f_variant], s->f_seat - 1,
		                      s->f_private, clock_choices[s->f_clock],
		                      s->f_opponent ? s->f_level + 1 : 0);
		return;
	}
	default:
		return;
	}
	if (s->f_kind == GAME_OXONO)
		s->f_variant = 0;
}

static void
lobby_key(struct screen *s, int ch, MEVENT *mev)
{
	struct client *c = s->c;
	const struct client_state *st = &c->st;
	const struct client_entry *e = s->row < st->nlist ? &st->list[s->row] : NULL;

	switch (ch) {
	case KEY_UP:
	case 'k':
	case KEY_DOWN:
	case 'j':
		list_step(&s->row, st->nlist, ch);
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
			client_request_join(c, e->id);
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
		client_request_quick(c, GAME_HOKITO, NULL, NULL);
		break;
	case 'P':
		client_request_quick(c, GAME_OXONO, NULL, NULL);
		break;
	case 'i':
		prompt_open(s, PROMPT_JOIN);
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
		history_open(s, 0);
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

/* The match keys: draw offers, abort, claims, rematch. The server judges; we only ask. */
static void
match_key(struct screen *s, int ch)
{
	struct client *c = s->c;
	const struct client_table *t = &c->st.table;

	if (t->seat < 0) {
		client_state_notice(&c->st, 1, "You are watching: t to chat.");
		return;
	}
	switch (ch) {
	case 'd':
		if (client_request_draw_offer(c) == 0)
			client_state_notice(&c->st, 0, "Draw offered.");
		break;
	case 'a':
		client_request_game(c, t->over ? MSG_REMATCH : MSG_DRAW_ACCEPT);
		break;
	case 'x':
		client_request_game(c, t->over ? MSG_REMATCH_DECLINE : MSG_DRAW_DECLINE);
		break;
	case 'A':
		/* a player may abort only before its own first move: say so before asking */
		if (!t->over &&
		    (t->nmoves >= 2 || (t->nmoves == 1 && game_side(&t->game) != t->seat))) {
			client_state_notice(&c->st, 1,
			                    "You have moved already: the game can no longer be "
			                    "aborted (r resigns).");
			break;
		}
		s->mode = MODE_CONFIRM;
		s->confirm = CONFIRM_ABORT;
		break;
	case 'c':
	case 'C':
		client_request_claim(c, ch == 'C');
		break;
	default:
		client_request_game(c, MSG_REMATCH);
		client_state_notice(&c->st, 0, "Rematch %s.",
		                    t->rematch_offer >= 0 && t->rematch_offer != t->seat
		                            ? "accepted"
		                            : "offered");
		break;
	}
}

static void
game_key(struct screen *s, int ch, MEVENT *mev)
{
	struct client *c = s->c;
	const struct client_table *t = &c->st.table;

	if (s->stack) {
		s->stack = 0;
		if (ch != KEY_MOUSE)
			return;
	}
	if (t->over && ch == 'v') {
		replay_open(s, t->id, PAGE_MAIN);
		return;
	}
	if (t->over && !s->over_hidden) {
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == 'q') {
			client_request_leave(c);
			return;
		}
		if (ch == KEY_ESCAPE) {
			s->over_hidden = 1;
			return;
		}
	}
	switch (ch) {
	case KEY_UP:
	case 'k':
		cursor_move(s, 0, 1);
		break;
	case KEY_DOWN:
	case 'j':
		cursor_move(s, 0, -1);
		break;
	case KEY_LEFT:
	case 'h':
		cursor_move(s, -1, 0);
		break;
	case KEY_RIGHT:
	case 'l':
		cursor_move(s, 1, 0);
		break;
	case '\n':
	case '\r':
	case ' ':
	case KEY_ENTER:
		if (t->over) {
			client_request_leave(c);
			break;
		}
		board_choose(s, s->cursor);
		break;
	case KEY_MOUSE: {
		int sq = mev != NULL ? board_hit(s, mev->y, mev->x) : -1;
		if (sq < 0)
			break;
		s->cursor = sq;
		if (mev->bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED))
			board_choose(s, sq);
		break;
	}
	case KEY_ESCAPE:
		if (s->totem_to >= 0) {
			int sel = s->sel;
			select_clear(s);
			s->sel = sel;
			client_state_destinations(&t->game, sel, -1, s->dest);
		} else {
			select_clear(s);
		}
		client_state_notice(&c->st, 0, "%s", "");
		break;
	case 's':
		s->stack = 1;
		break;
	case 'w':
		/* a spectator follows the players into their rematch */
		if (t->seat < 0 && t->over && t->rematch_game[0] && !t->private_game)
			client_request_watch(c, t->rematch_game);
		else
			client_state_notice(&c->st, 1, "%s",
			                    t->seat >= 0 ? "w is for spectators: it follows the "
			                                   "players to their rematch."
			                    : t->rematch_game[0] ? "The rematch is a private game."
			                                         : "No rematch to follow yet.");
		break;
	case 'v':
		client_state_notice(&c->st, 1, "The game is not over: v replays it once it is.");
		break;
	case 'f':
		s->flip = !s->flip;
		break;
	case 't':
		prompt_open(s, PROMPT_CHAT);
		break;
	case 'T':
		s->chatlog = 1;
		s->chatlog_back = 0;
		break;
	case 'd':
	case 'a':
	case 'x':
	case 'A':
	case 'c':
	case 'C':
	case 'n':
		match_key(s, ch);
		break;
	case ':':
	case 'm':
		if (t->seat < 0) {
			client_state_notice(&c->st, 1, "You are watching: you cannot move.");
			break;
		}
		prompt_open(s, PROMPT_MOVE);
		break;
	case 'r':
		if (t->seat < 0 || t->over) {
			client_state_notice(&c->st, 1, "%s",
			                    t->over ? "The game is over." : "You are watching.");
			break;
		}
		s->mode = MODE_CONFIRM;
		s->confirm = CONFIRM_RESIGN;
		break;
	case 'q':
		if (t->seat >= 0 && !t->over && t->started) {
			/* The server keeps a live game's seat: it ends by a result or a
			 * resignation. */
			client_state_notice(&c->st, 1,
			                    "The game is on: resign first (r), or Q to quit hokito "
			                    "(your seat is kept; come back to rejoin).");
			break;
		}
		client_request_leave(c);
		break;
	default:
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
		create_key(s, ch);
		return;
	default:
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
	if (s->page == PAGE_REPLAY)
		replay_key(s, ch);
	else if (s->page == PAGE_HISTORY)
		history_key(s, ch);
	else if (c->st.table.active)
		game_key(s, ch, mp);
	else
		lobby_key(s, ch, mp);
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

	if (s->on && t->active && t->started && !t->over && (t->timed || away))
		screen_draw(s);
}

static void
screen_close_cb(uv_handle_t *h)
{
	struct screen *s = h->data;

	if (--s->handles == 0)
		free(s);
}

static int
screen_start(struct client *c)
{
	struct screen *s = xcalloc(1, sizeof *s);
	const char *cs;
	int rc;

	s->c = c;
	s->sel = -1;
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
	screen_colours(s);
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
	if (c->st.table.active != s->had_table) {
		/* Entering or leaving a table: start afresh. */
		s->had_table = c->st.table.active;
		s->had_chat = c->st.table.nchat;
		s->had_kibitz = c->st.table.nkibitz;
		select_clear(s);
		s->stack = 0;
		s->chatlog = 0;
		s->over_hidden = 0;
		s->help = 0;
		if (s->mode != MODE_PROMPT || s->prompt != PROMPT_MOVE)
			s->mode = s->mode == MODE_PROMPT ? MODE_NORMAL : s->mode;
		if (s->mode == MODE_CREATE)
			s->mode = MODE_NORMAL;
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
			select_clear(s);
		else if (s->sel >= 0) {
			uint8_t mask[36];
			client_state_destinations(&c->st.table.game, s->sel, s->totem_to, mask);
			if (memcmp(mask, s->dest, sizeof mask) != 0)
				select_clear(s);
		}
	}
	screen_draw(s);
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
		free(s);
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
};
