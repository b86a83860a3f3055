/*
 * client-screen.h: the full-screen view's own header, shared by its files and by nothing else.
 *
 * The full screen (client_screen_view) is made of:
 *
 *   client-screen-view.c   the view: curses on and off, input, resizing, the redraw timer, the
 *        |                 help overlay, the prompt and the questions; it draws and feeds the
 *        |                 page shown through its struct client_page, never switching on it
 *        v
 *   client-page-lobby.c    the pages, one table each: the lobby (with the create form of
 *   client-page-create.c   client-page-create.c over it), the game at a table, the history of
 *   client-page-game.c     finished games and the replay of one, the rules of the games (R,
 *   client-page-history.c  over any page), the login prompt (l, or when the server refuses a
 *   client-page-replay.c   name or a password), an account's profile (u) and the leaderboard
 *   client-page-rules.c    (L)
 *   client-page-login.c
 *   client-page-profile.c
 *   client-page-ladder.c
 *        |
 *        v
 *   client-board.c         the board and the players' lines beside it (the game and the replay)
 *   client-screen.c        the base: colours, text that fits its columns (UTF-8), boxes, the
 *                          title bar, the key hints and the notice line
 *
 * Arrows point down, and between pages one way: the lobby opens the history and the create form,
 * the history and the game open the replay; the view opens the rules over any of them; the
 * lobby and the game open a profile, the lobby the leaderboard, which opens profiles too, and a
 * profile opens the replay and the history of its player. struct screen is the view's state;
 * pages read the client's state and never change it, asking for everything through
 * client_request_*.
 */
#ifndef HOKITO_CLIENT_CLIENT_SCREEN_H
#define HOKITO_CLIENT_CLIENT_SCREEN_H

#include <stddef.h>
#include <stdint.h>

#include <curses.h>

#include "client.h"
#include "protocol.h"

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
	PAIR_WIN,           /* a square of the line that won (OXONO) */
};

/* What the keyboard is feeding. */
enum mode {
	MODE_NORMAL = 0,
	MODE_PROMPT,  /* a line of text: a move, a game id or invite code */
	MODE_CONFIRM, /* y/n question */
	MODE_CREATE,  /* the create-a-game form (client_page_create) */
	MODE_LOGIN,   /* the login prompt (client_page_login): every key is its own */
};

enum prompt_kind {
	PROMPT_MOVE = 0,
	PROMPT_JOIN,
	PROMPT_WATCH,
	PROMPT_CHAT,
	PROMPT_PROFILE, /* an account's name (empty: our own) */
};

enum confirm_kind {
	CONFIRM_RESIGN = 0,
	CONFIRM_ABORT,
};

struct client_page;

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
	int flip;         /* f: the board turned round from its usual way (client-board.c) */
	int sel;          /* selected square, or -1 */
	int totem_to;     /* OXONO: chosen totem square, or -1 */
	uint8_t dest[36]; /* legal squares for the selection */
	uint8_t win[36];  /* the squares of the line that won, marked (the game page sets it) */
	int back_ply;     /* game: the earlier position shown (moves played), -1 the live one */
	int help;         /* help overlay shown: its page, from 1; 0 when not shown */
	int stack;        /* stack overlay shown */
	int chatlog;      /* chat log overlay shown (T) */
	int chatlog_back; /* chat log: rows scrolled back from the newest */
	int over_hidden;  /* game-over box dismissed to look at the board */
	int row;          /* lobby: highlighted row */
	char row_id[CLIENT_ID_MAX]; /* lobby: id of the highlighted row, kept across refreshes */
	int field;                  /* create form: field under the cursor */
	int f_kind, f_variant, f_seat, f_private; /* create form values */
	int f_clock;                              /* create form: index in its clock choices */
	int f_opponent, f_level;        /* create form: 1 for the computer; its level - 1 */
	int f_rated;                    /* create form and quick pairing: rated (an account's) */
	int by, bx, cw, ch;             /* board origin and cell size, for mouse hits */
	int list_y;                     /* lobby: screen row of the first entry */
	int list_top;                   /* lobby: first entry shown */
	int had_table;                  /* the table was active at the last draw */
	int had_over;                   /* its game was over at the last update */
	int had_chat, had_kibitz;       /* chat lines (both chats) it had at the last update */
	const struct client_page *page; /* the page over the main one, or NULL (see below) */
	const struct client_page *replay_back; /* where leaving the replay goes (NULL: main) */
	int hrow, htop;                        /* history: highlighted row, first row shown */
	size_t hpage;                          /* history: the page shown, 0 the first */
	char (*hafter)[CLIENT_NEXT_MAX];       /* history: each page's key (its after), from 1 */
	size_t hafter_cap;                     /* ... room for that many (owned; freed with s) */
	char hplayer[CLIENT_NAME_MAX];         /* history: only this player's games, "" all */
	const struct client_page *hback;       /* history: where q goes (NULL: main) */
	/* the login prompt (client-page-login.c) */
	char lname[CLIENT_NAME_MAX];           /* the name typed */
	char lpass[PROTOCOL_PASSWORD_MAX + 8]; /* the password typed: never drawn, wiped */
	int lfield;                            /* 0 the name, 1 the password */
	char lwhy[320];                        /* what the server said of the last try */
	int lwhy_error;                        /* lwhy is a refusal */
	int lwait;                             /* sent: waiting for the server's answer */
	char lguest[CLIENT_NAME_MAX];          /* the guest who asked to log in, "" none */
	const struct client_page *login_back;  /* the page it is over (NULL: main) */
	/* the profile page (client-page-profile.c) */
	char pname[CLIENT_NAME_MAX];     /* the account asked for, "" our own */
	uint64_t pstamp;                 /* c->profile_stamp when it was asked for */
	int prow;                        /* its last games: the highlighted one */
	const struct client_page *pback; /* where q goes (NULL: main) */
	/* the leaderboard page (client-page-ladder.c) */
	int lkind;                            /* the game kind shown */
	uint64_t lstamp;                      /* c->ladder_stamp when it was asked for */
	int lrow, ltop;                       /* highlighted row, first row shown */
	char lafter[16][CLIENT_NEXT_MAX];     /* the keys of the pages before, for going back */
	int lpage;                            /* the page shown: 0 the first */
	uint64_t hstamp;                      /* history: c->history_stamp when it was asked for */
	char replay_want[CLIENT_ID_MAX];      /* replay: the game whose record was asked for */
	const struct client_page *rules_back; /* rules: the page it was opened over */
	int rules_kind;                       /* rules: the game shown (enum game_kind) */
	int rules_top;                        /* rules: the first row shown */
};

/*
 * A page of the screen, dispatched the way tmux dispatches its window modes: each page is one
 * const table in its own file, and the view calls the page shown through it instead of switching
 * on which page it is; a new page is a new file and a new table. The main page is the lobby or
 * the game, as the client's state says (s->page NULL); the history and the replay sit over it
 * (s->page points at their table). The create form is a table too, drawn over the lobby and fed
 * the keys while s->mode is MODE_CREATE.
 */
struct client_page {
	const char *name; /* "lobby", "game", "history", "replay", "create" */
	/* Where we are, for the title bar (" hokito · " and this): "lobby", written to buf. */
	void (*title)(const struct screen *s, char *buf, size_t size);
	/* The page itself, between the title bar and the notice line (and its key hints). */
	void (*draw)(struct screen *s);
	/* A key for the page; ch KEY_MOUSE comes with its event mev, other keys with NULL. */
	void (*key)(struct screen *s, int ch, MEVENT *mev);
	/* The lines of its help: keys first, then notes after a blank line; NULL after the last. */
	const char *const *help;
};

extern const struct client_page client_page_lobby;   /* client-page-lobby.c */
extern const struct client_page client_page_create;  /* client-page-create.c */
extern const struct client_page client_page_game;    /* client-page-game.c */
extern const struct client_page client_page_history; /* client-page-history.c */
extern const struct client_page client_page_replay;  /* client-page-replay.c */
extern const struct client_page client_page_rules;   /* client-page-login.c */

/*
 * Open the login prompt (over whatever shows) for name, with why the last try failed (code: the
 * server's error word, NULL for none; retry_ms with login_throttled). reg: register selected.
 */
void client_page_login_open(struct screen *s, const char *name, const char *code, int64_t retry_ms);

/* client-page-profile.c */

/* Ask for the profile of name (NULL or "": our own); back: where q goes (NULL: the main page). */
void client_page_profile_open(struct screen *s, const char *name, const struct client_page *back);

/* client-page-ladder.c */

/* Show the leaderboard of kind, its first page. */
void client_page_ladder_open(struct screen *s, enum game_kind kind);

/* client-page-rules.c */
extern const struct client_page client_page_login;   /* client-page-login.c */
extern const struct client_page client_page_profile; /* client-page-profile.c */
extern const struct client_page client_page_ladder;  /* client-page-ladder.c */

/* A hints bar being built by state: key and label pairs, NULL after the last. */
struct hints {
	const char *pairs[32];
	int n; /* pointers used, not counting the NULL */
};

/* client-screen.c: the base every page draws with. */

/* utf8 on a UTF-8 terminal, else ascii. Returns one of its arguments. */
const char *client_screen_glyph(const struct screen *s, const char *utf8, const char *ascii);

/* Set up colour pairs for 8 or 256 colours; the board never uses the default background. */
void client_screen_colours(struct screen *s);

/* Attributes of a colour pair, or plain when colours are off. */
attr_t client_screen_pair(const struct screen *s, int p);

/* Pink chips in 256 colours: dark text on pink reads better. */
void client_screen_kind_colours(struct screen *s, enum game_kind kind);

/* The number of bytes of text that fill at most w columns; a UTF-8 sequence is never cut. */
int client_screen_clip(const char *text, int w);

/* The columns text takes, as the cut of client_screen_putn() counts them. */
int client_screen_text_width(const char *text);

/* The characters of a UTF-8 text (what the protocol's lengths count). */
int client_screen_text_chars(const char *text);

/*
 * Write text at (y, x), cut to w columns and to the right edge; a control character is drawn as
 * '?' (client_shown_byte()): curses would move the cursor on a newline, out of the pane.
 */
void client_screen_putn(int y, int x, int w, const char *text);

/*
 * Write text at (y, x) in w columns, as client_screen_putn() does; text wider than that is cut
 * and ends in an ellipsis, so that a cut name or value shows that it is cut (the chat and the
 * notices do the same).
 */
void client_screen_putn_cut(const struct screen *s, int y, int x, int w, const char *text);

/* Write text at (y, x) if it fits in w columns, else the shorter text (cut if it must be). */
void client_screen_putn_fit(int y, int x, int w, const char *text, const char *shorter);

/* printf at (y, x), cut at width w (w <= 0: to the right edge). */
void client_screen_put(int y, int x, int w, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* Fill a line segment with spaces in the current attributes. */
void client_screen_blank(int y, int x, int w);

/* Split text into at most max lines of at most w bytes, at spaces. Returns the line count. */
int client_screen_wrap(const char *text, int w, char lines[][64], int max);

/* A box with a title, cleared inside. */
void client_screen_frame(const struct screen *s, int y, int x, int h, int w, const char *title);

/*
 * The title bar: left (the program and where we are, from the page's title) on the left; on the
 * right the connection state, then who we are at which server. The connection state always
 * shows: when the line is short of room (a 64-column terminal at a game) the server's address
 * goes first, then our name, and last the left side is cut.
 */
void client_screen_title(struct screen *s, const char *left);

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
void client_screen_hints(const char *const *pairs);

/* Add a key and its label to a hints bar being built. */
void client_screen_hint_add(struct hints *h, const char *key, const char *label);

/*
 * Where the line of text that starts at text ends when lines are w columns wide: at the last
 * space that fits, or before the last wide (CJK) character that fits, which may break anywhere;
 * a word longer than the line is cut; or where the text ends. Returns the length in bytes of the
 * line, spaces at its end excluded; *next is where the next line starts.
 */
int client_screen_wrap_line(const char *text, int w, const char **next);

/*
 * The notice line (or the prompt being typed, or the question asked) above the hints; while the
 * keys go to a prompt or a question, the hints bar shows theirs instead of the page's.
 */
void client_screen_bottom(struct screen *s);

/* Move a list's highlighted row one up (arrow up, k) or down (arrow down, j), within n rows. */
void client_screen_list_step(int *row, int n, int ch);

/* Ring the terminal bell, unless the player turned it off (--no-bell, B). */
void client_screen_bell(const struct screen *s);

/* Forget the selection. */
void client_screen_select_clear(struct screen *s);

/* Start typing a line of text (a move, a game id or invite code, a chat line). */
void client_screen_prompt_open(struct screen *s, enum prompt_kind kind);

/* Leave the history or the replay for page (NULL: the main one); back in the lobby, ask for a
 * fresh list. */
void client_screen_page_back(struct screen *s, const struct client_page *page);

/* client-board.c: the board, and the players' lines beside it. */

/* The board of g, the squares of move last_move (text or NULL) marked; with the cursor or not. */
void client_board_draw(struct screen *s, const struct game *g, const char *last_move, int cursor);

/*
 * One player's line of a side panel (the game's or the replay's): the turn marker, the side's
 * chip, the side's name when the panel is wide, the player's name, and at the right end the
 * score or the reserves of position g. The name runs up to the widest score ("36") or reserve
 * ("X8 O8") text, so that "computer (level 3)" stays whole at 80 columns; on a narrow panel (a
 * 64-column terminal) the side's name goes, so that the player's shows.
 */
void client_board_player_line(struct screen *s, int y, int px, int pw, const struct game *g,
                              int side, int tomove, const char *name);

/* A square from a click position, or -1. */
int client_board_hit(const struct screen *s, int y, int x);

/* Move the board cursor df files and dr ranks as the board is seen (right and up). */
void client_board_cursor_move(struct screen *s, int df, int dr);

/* client-page-game.c */

/* Send a checked move text (typed at the prompt, or made on the board). */
void client_page_game_move(struct screen *s, const char *text);

/* client-page-history.c */

/* Open the history at its first page; the page shows "asking" until it comes. */
void client_page_history_open(struct screen *s);

/* client-page-replay.c */

/* Ask for the record of game id and show its replay once it comes; back: where q goes (NULL:
 * the main page). */
void client_page_replay_open(struct screen *s, const char *id, const struct client_page *back);

/* client-page-rules.c */

/* Show the rules (of the game at the table, else HOKITO's) over the page shown; q goes back. */
void client_page_rules_open(struct screen *s);

#endif
