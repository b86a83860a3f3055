/*
 * client.h: the public face of the terminal client's modules, shared by the files of client/.
 *
 * The client is three layers, each in its own files, and the arrows point one way:
 *
 *   client-net.c      libuv TCP connection, framing, reconnection with the session token
 *        |            (client-session.c keeps the token in a file across restarts)
 *        v
 *   client-state.c    what the client knows: the lobby list, the game being played or watched
 *        |            (position, players, moves, spectators, scores); pure, no I/O
 *        v
 *   client-screen.c   the full-screen ncurses view      client-plain.c  the --plain line view
 *
 * A view never talks to the socket: it asks for things through client_request_*
 * (client-request.c), which encodes the request and hands it to the network layer. The network
 * layer decodes whole messages, updates the state, then tells the view to redraw through the
 * struct client_view table. client.c holds main(), the command line and the event loop.
 */
#ifndef HOKITO_CLIENT_CLIENT_H
#define HOKITO_CLIENT_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "game.h"
#include "record.h"

#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#endif

struct msg;  /* protocol/msg.h */
struct wire; /* protocol/wire.h */

struct client;

#define CLIENT_NAME_MAX     129   /* a display name, with its NUL (32 UTF-8 characters fit) */
#define CLIENT_ID_MAX       64    /* a game id, player id or invite code, with its NUL */
#define CLIENT_TOKEN_MAX    160   /* a session token, with its NUL */
#define CLIENT_VARIANT_MAX  24    /* a variant name, with its NUL */
#define CLIENT_MOVES_MAX    128   /* moves kept in the move list; a game never has more */
#define CLIENT_SPECTATORS   32    /* spectator names kept for display; the count is exact */
#define CLIENT_LIST_MAX     256   /* lobby entries kept */
#define CLIENT_MESSAGE_MAX  1024  /* the status line, with its NUL (a chat line fits) */
#define CLIENT_CHAT_KEEP    32    /* chat lines kept per channel */
#define CLIENT_CHAT_TEXT    808   /* a chat line, with its NUL (200 UTF-8 characters fit) */
#define CLIENT_LOW_TIME_MS  20000 /* a clock under this is shown as low */
#define CLIENT_DEFAULT_HOST "127.0.0.1"
#define CLIENT_DEFAULT_PORT 7777

/* What the command line asked to do once connected. */
enum client_action {
	CLIENT_ACTION_LOBBY = 0, /* show the lobby */
	CLIENT_ACTION_CREATE,    /* create a game */
	CLIENT_ACTION_JOIN,      /* join a game by id or invite code */
	CLIENT_ACTION_QUICK,     /* quick pairing */
	CLIENT_ACTION_WATCH,     /* watch a game by id (or private game by code) */
};

struct client_options {
	const char *host;
	int port;
	const char *name;          /* display name; never NULL after parsing */
	int plain;                 /* --plain: the line view instead of curses */
	int no_color;              /* --no-color or NO_COLOR set */
	int resume;                /* use a stored session token (0 with --new-session) */
	enum client_action action; /* what to do once connected */
	enum game_kind kind;       /* create / quick: the game */
	const char *variant;       /* create / quick: variant name, NULL = standard */
	int seat;                  /* create: 0, 1, or -1 for random */
	int private_game;          /* create: private game with an invite code */
	const char *target;        /* join / watch: game id or invite code */
	const char *clock;         /* create / quick: time control "M+S" or "none", NULL = none */
	int computer;              /* create: level of the computer opponent, 0 for a person */
};

/* Where the connection stands. */
enum client_link {
	CLIENT_LINK_CONNECTING = 0, /* first connection under way */
	CLIENT_LINK_UP,             /* connected and greeted */
	CLIENT_LINK_DOWN,           /* lost; a reconnection is scheduled */
	CLIENT_LINK_FAILED,         /* gave up (refused by the server); the client will exit */
};

/* One game of the lobby list. */
struct client_entry {
	char id[CLIENT_ID_MAX];
	enum game_kind kind;
	char variant[CLIENT_VARIANT_MAX];
	char status[16];                  /* "open", "live" or "finished" */
	char players[2][CLIENT_NAME_MAX]; /* "" for an empty seat */
	int spectators;
	int ply; /* moves played */
	int private_game;
	char clock[16]; /* the time control ("5+3"), "" without a clock */
	int result; /* a finished game's: 0 or 1 the winning side, -1 drawn, -2 aborted; else -3 */
	char reason[16]; /* ... and why ("resign"), "" when not over */
};

/* A player seated at the table. */
struct client_seat {
	char name[CLIENT_NAME_MAX]; /* "" while the seat is empty */
	char id[CLIENT_ID_MAX];     /* player id, "" if unknown */
	int connected;              /* 1 connected, 0 dropped (waiting for it to come back) */
	int64_t grace_ms;           /* while dropped: grace left as of grace_stamp */
	uint64_t grace_stamp;       /* when grace_ms was received (loop time, ms) */
	int grace_over;             /* while dropped: its grace ran out */
	int computer;               /* the server's computer player's level, 0 for a person */
};

/* One chat line. */
struct client_chat {
	char name[CLIENT_NAME_MAX]; /* who said it */
	int seat;                   /* players' chat: the speaker's side; spectators' chat: -1 */
	int order;                  /* lines of both chats received before it at this table */
	char text[CLIENT_CHAT_TEXT];
};

/* The game being played or watched. */
struct client_table {
	int active; /* 1 while the client is at a table */
	char id[CLIENT_ID_MAX];
	char invite[CLIENT_ID_MAX]; /* invite code of a private game we created, or "" */
	int private_game;           /* a private game (its rematch is private too) */
	enum game_kind kind;
	char variant[CLIENT_VARIANT_MAX];
	int seat;    /* our side (0 or 1), or -1 when watching */
	int started; /* both seats filled and play begun */
	struct client_seat seats[2];
	struct game game; /* the current position */
	int64_t seq;      /* last game event sequence number seen, -1 none */
	char moves[CLIENT_MOVES_MAX][GAME_MOVE_TEXT]; /* move list, first move first */
	int nmoves;
	char spectators[CLIENT_SPECTATORS][CLIENT_NAME_MAX];
	int nspectators;             /* exact count (may exceed the names kept) */
	int over;                    /* the game has ended */
	struct game_outcome outcome; /* valid when over */
	int winner;                  /* when over: the winning side, or -1 for a draw */
	int aborted;                 /* when over: it ended without result (aborted, abandoned) */
	char reason[160];            /* when over: why it ended, in words */
	/* match management (PROTOCOL.md 11) */
	int timed;                        /* the game has a clock */
	char control[24];                 /* its time control, "5+3" */
	int64_t clock_ms[2];              /* both clocks as of clock_stamp */
	uint64_t clock_stamp;             /* when clock_ms was received (loop time, ms) */
	int adjourned;                    /* status "adjourned": waiting for both players */
	int draw_offer;                   /* side whose draw offer stands, or -1 */
	int rematch_offer;                /* side whose rematch offer stands, or -1 */
	char rematch_game[CLIENT_ID_MAX]; /* the rematch's game id once it started */
	struct client_chat chat[CLIENT_CHAT_KEEP];   /* players' chat, a ring */
	int nchat;                                   /* lines ever received */
	struct client_chat kibitz[CLIENT_CHAT_KEEP]; /* spectators' chat, a ring */
	int nkibitz;
};

/* What the client knows; owned by struct client, changed only by client-state.c. */
struct client_state {
	enum client_link link;
	char player_id[CLIENT_ID_MAX];
	char name[CLIENT_NAME_MAX]; /* our name as the server knows it */
	struct client_entry list[CLIENT_LIST_MAX];
	int nlist;
	int list_offset; /* the place in the server's list of list[0] (a page of PROTOCOL_LIST_MAX)
	                  */
	int list_total;  /* games in the server's whole list, of which list[] holds a page */
	struct client_table table;
	char message[CLIENT_MESSAGE_MAX]; /* the last notice for the status line */
	int message_error;                /* 1 if the notice is an error */
	uint64_t message_stamp;           /* bumped at every new notice */
	uint64_t now;                     /* loop time of the message being applied (ms) */
};

/*
 * A view: the full screen or the plain line mode. The network layer and the requests call these
 * after every change; a view reads struct client_state and never changes it.
 */
struct client_view {
	/* Start the view on the loop (input handles, terminal setup). Returns 0 or a negative code.
	 */
	int (*start)(struct client *c);
	/* Something changed: redraw (screen) or print what is new (plain). */
	void (*update)(struct client *c);
	/* A notice for the user: error = 1 for a refusal or a failure. */
	void (*notice)(struct client *c, int error, const char *text);
	/* Close the view's handles and restore the terminal; safe to call twice. */
	void (*stop)(struct client *c);
};

struct client_net; /* client-net.c */

/* A request sent and not yet answered, to match its reply by id. */
struct client_pending {
	int id;                  /* the request's "id" */
	int type;                /* enum msg_type of the request */
	char arg[CLIENT_ID_MAX]; /* join/watch: what was asked for */
	int by_code;             /* join/watch: arg was sent as an invite code */
};

#define CLIENT_PENDING_MAX 32
#define CLIENT_HISTORY_MAX 100 /* games of one history page (the protocol's maximum) */

/* One finished game of a history page, as the views show it. */
struct client_history_entry {
	char id[CLIENT_ID_MAX];
	char line[2 * CLIENT_NAME_MAX +
	          96]; /* "hokito alice vs bob: white wins (resign), 30 moves" */
};

#define CLIENT_EVAL_DEPTH 4 /* plies the replay's evaluations search (client-eval.c) */

/* The evaluation of one position of a replay, computed by client-eval.c. */
struct client_eval {
	int done;                  /* computed (the other members are set) */
	int depth;                 /* plies searched; 0 where the game is over */
	char best[GAME_MOVE_TEXT]; /* the best move found, "" where the game is over */
	char text[64];             /* "Black ahead by 2.50", "White wins by 4 (proved)", ... */
};

/*
 * A finished (or any) game replayed from its record: the views step through it. The record is
 * parsed and checked by record_parse(); pos is the position after the first ply moves.
 */
struct client_replay {
	int active;
	char id[CLIENT_ID_MAX];
	struct record rec; /* start position, moves, result */
	size_t ply;        /* moves shown, 0 .. rec.nmoves */
	struct game pos;   /* the position after them */
	unsigned gen;      /* bumped by every record loaded: older evaluations are dropped */
	struct client_eval eval[RECORD_MOVES_MAX + 1]; /* eval[i]: the position after i moves */
};

struct client_evaluator;

/* The whole program: one per process, owned by main(). */
struct client {
	uv_loop_t *loop;
	struct client_options opt;
	struct client_state st;
	struct client_net *net;         /* the connection; NULL once closed */
	const struct client_view *view; /* &client_screen_view or &client_plain_view */
	void *view_data;                /* the view's own state */
	int next_request;               /* next request id */
	struct client_pending pending[CLIENT_PENDING_MAX]; /* requests awaiting their reply */
	int npending;
	int action_done;                  /* the command line's action was sent */
	int arriving;                     /* welcomed back at a game whose state is on its way */
	int action_held;                  /* the action waits for that state (client_arrived()) */
	char watch_target[CLIENT_ID_MAX]; /* the id or code the game we watch was asked by */
	int watch_by_code;                /* watch_target is an invite code */
	uint64_t list_stamp;              /* bumped at every lobby list received */
	struct client_history_entry history[CLIENT_HISTORY_MAX]; /* the last history page */
	int nhistory;
	int64_t history_total, history_offset; /* of that page */
	uint64_t history_stamp;                /* bumped at every history page received */
	struct client_replay replay;           /* the game being replayed, if active */
	struct client_evaluator *eval;         /* client-eval.c's search, NULL until needed */
	uint64_t replay_stamp;                 /* bumped when a record arrives or the ply moves */
	uv_timer_t lobby_timer;                /* refreshes the lobby list while it is shown */
	uv_signal_t sig[3];                    /* SIGINT, SIGTERM, SIGHUP: quit cleanly */
	int quitting;                          /* client_quit() was called */
	int exit_code;
};

/* client.c */

/* Leave the program: close the connection and the view, let the loop end. */
void client_quit(struct client *c, int exit_code);

/* Tell the user something (status line or a printed line); error = 1 for a refusal. */
void client_notice(struct client *c, int error, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

/* The state changed: let the view redraw. */
void client_update(struct client *c);

/* The connection is greeted: run the command line's action once, or show the lobby. */
void client_welcomed(struct client *c, int resumed, const char *game);
/* The state client_welcomed() waited for has come: run the held action, or say why not. */
void client_arrived(struct client *c);

/* client-msg.c */

/* Apply one decoded server message to the state and tell the view. */
void client_msg_handle(struct client *c, const struct msg *m);

/* client-state.c */

/* Per-square facts for display, read through the game interface's cell text. */
struct client_cell {
	int empty;                /* nothing on the square */
	int totem;                /* OXONO: 1 if a totem stands here */
	int colour;               /* side of the top pawn: 0 or 1 */
	int value;                /* HOKITO: top pawn's value 1..3; OXONO: symbol 0 = X, 1 = O */
	int height;               /* pawns on the square (HOKITO stacks); 1 for an OXONO pawn */
	char text[GAME_TEXT_MAX]; /* the cell text: whole stack bottom to top, or OXONO cell */
};

/* Reset the state to "connecting, nothing known". */
void client_state_init(struct client_state *st);

/* Set the notice shown on the status line; text is copied. */
void client_state_notice(struct client_state *st, int error, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

/* Forget the table (leaving a game, or going back to the lobby). */
void client_state_table_clear(struct client_state *st);

/*
 * Sit at a table: kind, variant, id, our seat (-1 watching) and the position text. Returns 0,
 * or a negative game_errno if the position text does not parse (err says why).
 */
int client_state_table_open(struct client_state *st, enum game_kind kind, const char *variant,
                            const char *id, int seat, const char *position, struct game_error *err);

/*
 * A move event: append the move text to the list and take the resulting position (if given,
 * else apply the move ourselves). Events at or below the last seen seq are ignored (a replay
 * after reconnection). Returns 0, 1 if ignored, or a negative game_errno.
 */
int client_state_table_move(struct client_state *st, int64_t seq, const char *move,
                            const char *position, struct game_error *err);

/*
 * The game ended: winner is a side or -1 for a draw; reason is the server's words (may be NULL).
 * HOKITO scores are read from the final position.
 */
void client_state_table_over(struct client_state *st, int winner, const char *reason);

/* A side's name with a capital ("Black", "White", "Pink"). Returns a static string. */
const char *client_state_side_name(enum game_kind kind, int side);

/* Replace the spectator list; names are copied (count may exceed the names given). */
void client_state_spectators(struct client_state *st, const char *const *names, int n, int count);

/* The spectators' names kept, "carol, dave" ("" for none), cut to fit buf. */
void client_state_spectators_text(const struct client_table *t, char *buf, size_t size);

/* Describe one square of g. */
void client_state_cell(const struct game *g, int sq, struct client_cell *cell);

/* OXONO pawns still in reserve: [colour][symbol]. Zeroes for HOKITO. */
void client_state_reserves(const struct game *g, int reserve[2][2]);

/* Square of OXONO totem symbol (0 X, 1 O), or -1. */
int client_state_totem(const struct game *g, int symbol);

/* Whether it is our turn to move in a live game. */
int client_state_our_turn(const struct client_state *st);

/*
 * The legal destinations of a selection, as a 36-entry mask (1 = legal).
 * HOKITO: from = the pawn or stack's square, to the squares it may move to.
 * OXONO step 1: from = a totem's square, to the totem's legal squares.
 * OXONO step 2: also pass totem_to >= 0 to get the legal pawn squares.
 * Returns the number of squares set.
 */
int client_state_destinations(const struct game *g, int from, int totem_to, uint8_t mask[36]);

/*
 * Check that a square may be selected to start a move (our pawn/stack with legal moves, or a
 * totem whose symbol we still hold). Returns 0, or -1 with the reason written to why.
 */
int client_state_selectable(const struct client_state *st, int sq, char *why, size_t size);

/*
 * Parse and validate a typed move against the current position before anything is sent.
 * Writes the canonical move text to out. Returns 0, or a negative game_errno with the reason in
 * why (the engine's own sentence for an illegal move).
 */
int client_state_move_check(const struct client_state *st, const char *text, char *out,
                            size_t outsize, char *why, size_t whysize);

/*
 * A side's clock now (ms), counting down the running one from when it was received; now is the
 * loop time. Returns -1 for a game without a clock.
 */
int64_t client_state_clock(const struct client_table *t, int side, uint64_t now);

/* A dropped seat's grace left now (ms), counting down on its own turns. */
int64_t client_state_grace(const struct client_table *t, int side, uint64_t now);

/* Format a clock: "4:53" (or "0:09.4" under 10 s). */
void client_state_clock_text(int64_t ms, char *buf, size_t size);

/* Add a chat line (kibitz: the spectators' channel). */
void client_state_chat_add(struct client_state *st, int kibitz, int seat, const char *name,
                           const char *text);

/* The i-th most recent chat line of a channel (0 = the latest), or NULL. Borrowed. */
const struct client_chat *client_state_chat_get(const struct client_table *t, int kibitz, int i);

/*
 * The i-th most recent chat line of both chats together (0 = the latest), in the order they
 * came, or NULL; *kibitz says which chat it is from. Borrowed.
 */
const struct client_chat *client_state_chat_log(const struct client_table *t, int i, int *kibitz);

/* One line describing the outcome: "Black wins 34 to 28", "Draw", "No result" (aborted), ... */
void client_state_result_text(const struct client_table *t, char *buf, size_t size);

/* The same for a game of kind won by side winner (-1: a draw) with these HOKITO scores. */
void client_state_outcome_text(enum game_kind kind, int winner, const int score[2], char *buf,
                               size_t size);

/* The lobby entry with this id, or NULL. Returns a borrowed pointer. */
const struct client_entry *client_state_entry(const struct client_state *st, const char *id);

/* client-request.c: what a view may ask of the server. Each returns 0 or a negative code. */
int client_request_list(struct client *c);
/* level: 1..8 to play the server's computer at that level, 0 to wait for a person. */
int client_request_create(struct client *c, enum game_kind kind, const char *variant, int seat,
                          int private_game, const char *clock, int level);
int client_request_join(struct client *c, const char *id_or_code);
int client_request_quick(struct client *c, enum game_kind kind, const char *variant,
                         const char *clock);
int client_request_watch(struct client *c, const char *id_or_code);
/* Watch again the game on screen, as it was asked for (a new session after a restart). */
int client_request_rewatch(struct client *c);
/* Join (join = 1) or watch a private game by its invite code. */
int client_request_by_code(struct client *c, int join, const char *code);
int client_request_move(struct client *c, const char *move);
int client_request_resign(struct client *c);
int client_request_leave(struct client *c);
/* A request of a game without members: draw_offer, draw_accept, draw_decline, abort, rematch,
 * rematch_decline (an enum msg_type). */
int client_request_game(struct client *c, int type);
int client_request_say(struct client *c, const char *text);
int client_request_claim(struct client *c, int draw);
/* Offer a draw; refused here, with a notice, against the server's computer (it takes none). */
int client_request_draw_offer(struct client *c);
/* A page of finished games (history_page), and the record of a game to replay (game_record). */
int client_request_history(struct client *c, int64_t offset, int limit);
int client_request_record(struct client *c, const char *game);
/* Whether a request of this type (an enum msg_type) awaits its reply. */
int client_request_pending(const struct client *c, int type);

/*
 * Replay (client-msg.c): load the record text of game id (borrowed) and show its start; then move
 * to ply (clamped to 0 .. the number of moves). Return 0, or a negative record error (load).
 */
int client_replay_load(struct client *c, const char *id, const char *text, size_t len);
void client_replay_seek(struct client *c, long ply);

/* *g: the position of replay rp after its first ply moves (ply at most rp->rec.nmoves). */
void client_replay_position(const struct client_replay *rp, size_t ply, struct game *g);

/*
 * client-eval.c: evaluate the replay's positions on the thread pool, the one shown first; each
 * result lands in replay.eval[] and the view is updated. Does nothing while one runs or when all
 * are done. client_eval_stop() at quit: a running search finishes, then everything is freed.
 */
void client_eval_kick(struct client *c);
void client_eval_stop(struct client *c);

/* The reply with this id arrived: take its pending record out into *out. Returns 0 or -1. */
int client_request_done(struct client *c, int id, struct client_pending *out);

/* client-net.c */

/* Connect to the server and say hello; reconnects by itself until client_net_stop. */
int client_net_start(struct client *c);

/* Send one encoded message; steals the wire reference. Returns 0 or UV_ENOTCONN. */
int client_net_send(struct client *c, struct wire *w);

/* Whether a greeted connection is up. */
int client_net_up(const struct client *c);

/* The session token in use ("" if none yet). Returns a borrowed string. */
const char *client_net_token(const struct client *c);

/* The server refused our token: forget it and say hello afresh on this connection. */
void client_net_token_refused(struct client *c);

/* The server said bye: "shutdown" (reconnect later) or "replaced" (stop for good). */
void client_net_bye(struct client *c, const char *reason);

/* Close the connection for good; the handles are freed in their close callbacks. */
void client_net_stop(struct client *c);

/* client-session.c: the session token kept across restarts. */

/* Load the token stored for host, port and name. Returns 0, or -1 if there is none. */
int client_session_load(const char *host, int port, const char *name, char *token, size_t size);

/* Store the token for host, port and name (mode 0600). Returns 0 or a negative errno. */
int client_session_save(const char *host, int port, const char *name, const char *token);

/* Forget the stored token. */
void client_session_forget(const char *host, int port, const char *name);

/* The views. */
extern const struct client_view client_screen_view;
extern const struct client_view client_plain_view;

/*
 * A byte of text from the server as the client shows it: a control character (below 0x20, or
 * 0x7f) becomes '?', so that it can neither drive the terminal nor break a line in two. The server
 * strips them from names and chat; only a broken or hostile one sends them.
 */
static inline char
client_shown_byte(char b)
{
	return (unsigned char)b < 0x20 || b == 0x7f ? '?' : b;
}

#endif
