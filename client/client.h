/*
 * client.h: the public face of the terminal client's modules, shared by the files of client/.
 *
 * The client is layers, each in its own files, and the arrows point one way (a file calls only
 * the files below it; what must go up goes through a callback that the file above hands down):
 *
 *   client-main.c     main(): the command line, the loop; wires the layers together
 *        |
 *   client-screen-view.c  the full-screen ncurses view  client-plain.c  the --plain line view
 *        |            (client-screen.h: its pages, one file each through a page table, the
 *        |            board, and client-screen.c, the base they draw with)
 *        v
 *   client-msg.c      what each server message means: changes of the state, notices
 *   client-account.c  accounts' and ratings' replies (players' kinds, profile, leaderboard)
 *   client-eval.c     the replay's evaluations, on the thread pool
 *   client-save.c     the game's record saved to a file (asked for, then written off the loop)
 *        |
 *   client-request.c  what a view may ask of the server, encoded and sent; a move typed while
 *        |            the connection is down is held there and sent once it is back
 *   client-replay.c   a game replayed from its record
 *        |
 *   client-net.c      libuv TCP connection, framing, reconnection with the session token
 *        |            (client-session.c keeps the token in a file across restarts); hands each
 *        v            decoded message to the callback main() gave it (client_msg_handle)
 *   client.c          struct client, the hub: notices, redraws, quitting, through the view table
 *   client-state.c    what the client knows (client-state.h); pure, no I/O
 *   client-alert.c    when to ring the bell, and the terminal's title; pure
 *   client-line.c     the line that won an OXONO game, in words; pure
 *   client-move.c     a typed move made into the notation; pure
 *   client-password.c a password typed on the terminal without echo (--plain, --login)
 *
 * A view never talks to the socket: it asks for things through client_request_*, which encodes
 * the request and hands it to the network layer. The network layer decodes whole messages and
 * hands them up through its callback; client-msg.c updates the state, then client_update() tells
 * the view to redraw through the struct client_view table.
 */
#ifndef HOKITO_CLIENT_CLIENT_H
#define HOKITO_CLIENT_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <uv.h>

#include "client-state.h"
#include "game.h"
#include "record.h"
#include "tls-link.h"

#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#endif

struct msg;  /* protocol/msg.h */
struct wire; /* protocol/wire.h */

struct client;

#define CLIENT_TOKEN_MAX    160 /* a session token, with its NUL */
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
	const char *name;            /* display name; never NULL after parsing */
	int plain;                   /* --plain: the line view instead of curses */
	int no_color;                /* --no-color or NO_COLOR set */
	int resume;                  /* use a stored session token (0 with --new-session) */
	enum client_action action;   /* what to do once connected */
	enum game_kind kind;         /* create / quick: the game */
	const char *variant;         /* create / quick: variant name, NULL = standard */
	int seat;                    /* create: 0, 1, or -1 for random */
	int private_game;            /* create: private game with an invite code */
	const char *target;          /* join / watch: game id or invite code */
	const char *clock;           /* create / quick: time control "M+S" or "none", NULL = none */
	int computer;                /* create: level of the computer opponent, 0 for a person */
	int no_bell;                 /* --no-bell: never ring the terminal bell */
	struct tls_link_options tls; /* --tls, --tls-ca, --tls-accept-new, --tls-insecure */
	char *password;   /* --password-file or $HOKITO_PASSWORD: log in to the account name (owned,
	                     NULL for a guest) */
	int register_new; /* --register: create the account name with password first */
	int login;        /* --login (or --register without a password): the full screen asks
	                     for the password before the hello */
	int rated;        /* create / quick: rated */
	int allow_insecure; /* --allow-insecure-passwords: a password may go in clear anywhere */
};

/* Why a password is not sent (a format: the server's host and port): in clear to an address
 * that is not a loopback one. */
#define CLIENT_INSECURE_TEXT                                                                       \
	"Not sending a password in clear to %s:%d, not on this machine: anyone on the way could "  \
	"read it. Connect with TLS (--tls, or --host hokitos://HOST:PORT), or add "                \
	"--allow-insecure-passwords."

#define CLIENT_ALERT_LOW_MS 10000 /* our clock under this on our move calls us (client-alert.c) */

/* What client_alert_check() found: the moments that call a seated player back. */
enum client_alert_why {
	CLIENT_ALERT_STARTED = 1 << 0,  /* the game has started */
	CLIENT_ALERT_MOVED = 1 << 1,    /* the opponent moved: our move */
	CLIENT_ALERT_LOW_TIME = 1 << 2, /* our clock is low on our move */
	CLIENT_ALERT_OFFER = 1 << 3,    /* the opponent offers a draw or a rematch */
	CLIENT_ALERT_OVER = 1 << 4,     /* the game is over */
};

/* What client-alert.c has seen of the table, so that each moment rings once. */
struct client_alert {
	int bell_off;              /* --no-bell, or turned off with the B key (bell off) */
	char game[CLIENT_ID_MAX];  /* the table the facts below are of, "" for none */
	int seat;                  /* our seat there, -1 watching */
	int started, over, nmoves; /* as last seen */
	int low;                   /* our clock was low on our move */
	int draw_offer;            /* the offers last seen, -1 for none */
	int rematch_offer;
	char title[2 * CLIENT_NAME_MAX + 40]; /* the terminal title last returned */
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
	/*
	 * Ask the user a yes/no question (text: the question, with what it is about), waiting for
	 * the answer. Returns 1 for yes, 0 for no. NULL: the view cannot ask (--plain answers with
	 * its flags instead).
	 */
	int (*ask)(struct client *c, const char *text);
	/*
	 * The server refused a login, a registration or a guest's name before greeting us (code:
	 * its error word, "name_taken", "wrong_password", "login_throttled" with retry_ms,
	 * "account_closed", "insecure_transport"...), or --login wants a password before the
	 * hello (code NULL): ask the user again. Returns 1 when the view asks (the connection waits
	 * for client_request_login()), 0 when it cannot: the client stops, as a script expects.
	 * NULL: the same as returning 0.
	 */
	int (*login)(struct client *c, const char *code, int64_t retry_ms);
};

struct client_net; /* client-net.c */

/* A request sent and not yet answered, to match its reply by id. */
struct client_pending {
	int id;                  /* the request's "id" */
	int type;                /* enum msg_type of the request */
	char arg[CLIENT_ID_MAX]; /* join/watch: what was asked for */
	int by_code;             /* join/watch: arg was sent as an invite code */
	int or_watch;            /* join: its seat taken meanwhile (game_full), watch the game */
	int offer_watch;         /* join typed by the user: game_full offers to watch the game */
};

#define CLIENT_PENDING_MAX 32
#define CLIENT_HISTORY_MAX 100 /* games of one history page (the protocol's maximum) */

/* One finished game of a history page, as the views show it. */
struct client_history_entry {
	char id[CLIENT_ID_MAX];
	char line[2 * CLIENT_NAME_MAX +
	          96]; /* "hokito alice vs bob: white wins (resign), 30 moves" */
};

#define CLIENT_PROFILE_RECENT 10  /* last games of a profile (the protocol's maximum) */
#define CLIENT_LADDER_MAX     100 /* rows of one leaderboard page (the protocol's maximum) */
#define CLIENT_NEXT_MAX       128 /* a page's "next" key, with its NUL */

/* An account's rating in one game kind, as profile sends it. */
struct client_profile_rating {
	int has;                       /* the account has played this kind rated */
	double rating, rd, vol, best;  /* full precision */
	char shown[CLIENT_RATING_MAX]; /* "1662?" */
	int64_t games, wins, draws, losses;
};

/* The last profile received (client-account.c). */
struct client_profile {
	char name[CLIENT_NAME_MAX]; /* the account's name, "" before the first */
	enum client_who who;        /* account or bot */
	int banned;                 /* "banned": true */
	int64_t created_ms;         /* since when (ms since 1970, UTC) */
	struct client_profile_rating kind[GAME_KINDS_MAX];         /* by enum game_kind */
	struct client_history_entry recent[CLIENT_PROFILE_RECENT]; /* most recent first */
	int nrecent;
};

/* One row of a leaderboard page. */
struct client_ladder_row {
	int64_t rank;
	char name[CLIENT_NAME_MAX];
	char line[CLIENT_NAME_MAX + 64]; /* "rob [bot] 1712  rd 80  31 games" */
};

#define CLIENT_LADDER_PROVISIONAL 20 /* provisional players shown below the last page */

/*
 * The last leaderboard page received (client-account.c). Below its last page come the players
 * whose rating is still provisional, not ranked (asked for once that page has come: the page
 * counts as received with them).
 */
struct client_ladder {
	enum game_kind kind;
	struct client_ladder_row rows[CLIENT_LADDER_MAX];
	int nrows;
	char next[CLIENT_NEXT_MAX]; /* the key of the page after it, "" for the last */
	struct client_ladder_row prov[CLIENT_LADDER_PROVISIONAL]; /* provisional, best first */
	int nprov;
	int prov_more;   /* more provisional players than those */
	int asking_prov; /* the provisional players are asked for: the next reply is theirs */
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

/* A move typed while the connection was down (client-request.c). */
struct client_held {
	char move[GAME_MOVE_TEXT]; /* the move, "" for none */
	char game[CLIENT_ID_MAX];  /* the game it is for */
	uint64_t resync;           /* c->resync when it was typed: it goes once that moves */
	char failed[GAME_MOVE_TEXT + 300]; /* "c2-e4 was not sent: why", until the next key */
};

/* A save of the game's record to a file (client-save.c). */
struct client_save {
	char path[512];           /* the file, "" when no save is asked for */
	char game[CLIENT_ID_MAX]; /* the game whose record is saved */
	unsigned gen;             /* c->replay.gen when asked: its record has come once it moves */
	uv_fs_t req;              /* open, write, close, one after the other */
	char *buf;                /* owned while busy: the record text being written */
	size_t len;
	uv_file fd;
	int rc;   /* the write's error, reported after the close */
	int busy; /* the file is being written */
};

/* The whole program: one per process, owned by main() (client-main.c). */
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
	int action_held;                  /* the action waits for that state (client-msg.c) */
	char watch_target[CLIENT_ID_MAX]; /* the id or code the game we watch was asked by */
	char offer_watch[CLIENT_ID_MAX];  /* a game a join found without an open seat, offered to
	                                     watch (the screen's next w), "" for none */
	int offer_watch_by_code;          /* offer_watch is an invite code */
	int watch_by_code;                /* watch_target is an invite code */
	uint64_t list_stamp;              /* bumped at every lobby list received */
	struct client_history_entry history[CLIENT_HISTORY_MAX]; /* the last history page */
	int nhistory;
	int64_t history_total, history_offset; /* of that page (its offset: games before it) */
	int64_t history_before;                /* games before the page asked for, by its after */
	char history_next[CLIENT_NEXT_MAX];    /* that page's next key, "" for the last page */
	uint64_t history_stamp;                /* bumped at every history page received */
	char history_player[CLIENT_NAME_MAX];  /* the player the history asked for, "" all */
	struct client_profile profile;         /* the last profile received */
	uint64_t profile_stamp;                /* bumped at every profile received */
	struct client_ladder ladder;           /* the last leaderboard page received */
	uint64_t ladder_stamp;                 /* bumped at every leaderboard page received */
	char login_name[CLIENT_NAME_MAX];      /* opt.name once the user typed another */
	struct client_replay replay;           /* the game being replayed, if active */
	struct client_evaluator *eval;         /* client-eval.c's search, NULL until needed */
	uint64_t replay_stamp;                 /* bumped when a record arrives or the ply moves */
	struct client_alert alert;             /* the bell and the title (client-alert.c) */
	struct client_held held;               /* a move typed while the connection was down */
	struct client_save save;               /* the record being saved to a file */
	uint64_t
	        resync; /* bumped when the server has caught us up after a welcome (client-msg.c) */
	uv_timer_t lobby_timer;         /* refreshes the lobby list while it is shown */
	uv_signal_t sig[3];             /* SIGINT, SIGTERM, SIGHUP: quit cleanly */
	int quitting;                   /* client_quit() was called */
	void (*stop)(struct client *c); /* main()'s part of client_quit(), or NULL */
	int exit_code;
};

/* client.c */

/*
 * Leave the program: stop the view, then let c->stop (set by main(): the connection, the
 * evaluations, its own handles) close the rest, so that the loop ends.
 */
void client_quit(struct client *c, int exit_code);

/* Tell the user something (status line or a printed line); error = 1 for a refusal. */
void client_notice(struct client *c, int error, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

/* The state changed: let the view redraw. */
void client_update(struct client *c);

/*
 * The server refused the login, registration or guest name of our hello (code: its error word;
 * NULL: --login asks before any hello): the view asks again (returns 1) or cannot (0).
 */
int client_login_ask(struct client *c, const char *code, int64_t retry_ms);

/* client-alert.c: the bell and the terminal title; pure, the views ring and write them. */

/* Start with nothing seen; bell_off from --no-bell. */
void client_alert_init(struct client_alert *a, int bell_off);

/*
 * The moments that call a seated player back that came since the last call (the game started,
 * the opponent moved, our clock went low, an offer, the end): a mask of enum client_alert_why,
 * 0 for none. now is the loop time, for the clocks. Whether to ring is the caller's, by bell_off.
 */
int client_alert_check(struct client_alert *a, const struct client_state *st, uint64_t now);

/*
 * The terminal title for the state ("hokito: your move vs bob", "hokito: bob to move",
 * "hokito: lobby"), with no control character in it: returns 1 and leaves it in a->title when it
 * differs from the last one, else 0.
 */
int client_alert_title(struct client_alert *a, const struct client_state *st);

/*
 * client-move.c: a typed move made into the notation where it reads one way only ("A2-A3",
 * " a2-a3 ", "a2a3" give "a2-a3"; "xc5c6" gives "Xc5+c6"). Returns 0 with the move in out, or
 * -1 when text is not such a move (it is then left for the rules to refuse).
 */
int client_move_tidy(enum game_kind kind, const char *text, char *out, size_t size);

/*
 * client-line.c: the line of four (or more) that won OXONO position g, the one through square
 * through (the last pawn placed; -1 for any) if there is one: its squares set in mask, and what
 * made it in words ("four pinks in a row on rank 3", "four X in column c") in words (may be
 * NULL). Returns its length, or 0 when g has no such line (and for HOKITO).
 */
int client_line_find(const struct game *g, int through, uint8_t mask[36], char *words, size_t size);

/*
 * The words of the end of the game at the table: t->reason, or for an OXONO line what made it
 * ("Pink made four pinks in a row on rank 3."), written to buf; the line's squares in mask
 * (may be NULL). client-line.c.
 */
void client_line_reason(const struct client_table *t, uint8_t *mask, char *buf, size_t size);

/*
 * client-save.c: save the record of the game at the table to path (NULL or "": hokito-ID.txt in
 * the current directory), in the format of common/FORMATS.md: asks the server for the game's
 * record, then writes it off the loop. Returns 0, or -1 after telling the user why not.
 */
int client_save_start(struct client *c, const char *path);

/* The record asked for by a save has come: write it. The views call it at every update. */
void client_save_flush(struct client *c);

/* client-msg.c */

/*
 * Apply one decoded server message to the state and tell the view. Once the server has greeted
 * us it also runs the command line's action (create, join, quick, watch) or shows the lobby.
 */
void client_msg_handle(struct client *c, const struct msg *m);

/* client-request.c: what a view may ask of the server. Each returns 0 or a negative code. */
int client_request_list(struct client *c);
/* level: 1..8 to play the server's computer at that level, 0 to wait for a person. */
int client_request_create(struct client *c, enum game_kind kind, const char *variant, int seat,
                          int private_game, const char *clock, int level, int rated);
int client_request_join(struct client *c, const char *id_or_code);
int client_request_quick(struct client *c, enum game_kind kind, const char *variant,
                         const char *clock, int rated);
int client_request_watch(struct client *c, const char *id_or_code);
/*
 * Watch the game a join found without an open seat (c->offer_watch), when yes; forget the offer
 * either way. Returns 1 when there was one, 0 when not.
 */
int client_request_offer_watch(struct client *c, int yes);
/* Join game id as the lobby showed it open; if its seat was taken meanwhile, watch it. */
int client_request_join_or_watch(struct client *c, const char *id);
/* Watch again the game on screen, as it was asked for (a new session after a restart). */
int client_request_rewatch(struct client *c);
/* Join (join = 1) or watch a private game by its invite code. */
int client_request_by_code(struct client *c, int join, const char *code);
/* Returns 1 when the connection is down: the move is held (client_request_held_flush()). */
int client_request_move(struct client *c, const char *move);
/*
 * Send the move held while the connection was down, once the server has caught us up, if it is
 * still legal; else say why not (c->held.failed). The views call it at every update.
 */
void client_request_held_flush(struct client *c);

/* The user did something: come back if the server closed us as idle (client_net_wake()). */
void client_request_wake(struct client *c);
/* Resign; refused here, with a notice, while we have not moved (abort instead: too_early). */
int client_request_resign(struct client *c);
/* Whether a resignation now would be too early (we have not moved): 1 after saying so. */
int client_request_resign_early(struct client *c);
int client_request_leave(struct client *c);
/* A request of a game without members: draw_offer, draw_accept, draw_decline, abort, rematch,
 * rematch_decline (an enum msg_type). */
int client_request_game(struct client *c, int type);
int client_request_say(struct client *c, const char *text);
int client_request_claim(struct client *c, int draw);
/* Offer a draw; refused here, with a notice, against the server's computer (it takes none)
 * and before both sides have moved (too_early). */
int client_request_draw_offer(struct client *c);
/* A page of finished games (history_page), and the record of a game to replay (game_record). */
/* player: only the games of that player (an account's name, or our own), NULL for all. */
/*
 * history: limit games of player ("" or NULL: everybody's), offset games after the page key after
 * (NULL: from the most recent); before is how many games come before after (the page shown then
 * says "games before + offset + 1 to ...").
 */
int client_request_history(struct client *c, const char *after, int64_t before, int64_t offset,
                           int limit, const char *player);
/* The profile of account name (NULL: our own). */
int client_request_profile(struct client *c, const char *name);
/*
 * A leaderboard page of kind, after the key of the page before (NULL: the first); provisional:
 * the players whose rating is provisional instead (their first CLIENT_LADDER_PROVISIONAL).
 */
int client_request_leaderboard(struct client *c, enum game_kind kind, const char *after,
                               int provisional);
/*
 * Log in to account name with password (register = 1: create it first), or go on as a guest
 * named name (password NULL). Both strings are copied. Before the server has greeted us it is
 * the hello (or register) of this connection; a guest already greeted registers on its own
 * session (reply ok, the session is the account's), and logs in on a new connection (the
 * guest's session is left). Returns 0, or -1 after a notice (seated at a game: leave first).
 */
int client_request_login(struct client *c, const char *name, const char *password, int reg);
int client_request_record(struct client *c, const char *game);
/* Whether a request of this type (an enum msg_type) awaits its reply. */
int client_request_pending(const struct client *c, int type);

/*
 * client-replay.c: load the record text of game id (borrowed) and show its start; then move to
 * ply (clamped to 0 .. the number of moves). Return 0, or a negative record error (load).
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

/* What the network layer hands up: it calls no module above it by name. */
struct client_net_ops {
	/* A whole message from the server, decoded; a welcome is already noted (token, link). */
	void (*message)(struct client *c, const struct msg *m);
};

/*
 * Connect to the server and say hello; reconnects by itself until client_net_stop. ops is
 * borrowed and must outlive the connection (a static table).
 */
int client_net_start(struct client *c, const struct client_net_ops *ops);

/* Send one encoded message; steals the wire reference. Returns 0 or UV_ENOTCONN. */
int client_net_send(struct client *c, struct wire *w);

/*
 * Whether a password may go on the connection: TLS, a loopback address, or
 * --allow-insecure-passwords (tls_link_password_ok() of the address last connected to).
 */
int client_net_password_ok(const struct client *c);

/* Whether a greeted connection is up. */
int client_net_up(const struct client *c);

/* The session token in use ("" if none yet). Returns a borrowed string. */
const char *client_net_token(const struct client *c);

/* The server refused our token: forget it and say hello afresh on this connection. */
void client_net_token_refused(struct client *c);

/*
 * The server said bye: "shutdown" (reconnect later), "replaced", "banned" or "closed" (stop for
 * good), "idle" (come back at the next key), "password_reset" or "password_changed" (the full
 * screen asks for the new password at the next connection; --plain stops).
 */
void client_net_bye(struct client *c, const char *reason);

/*
 * The user did something (a key, a command): a connection the server closed as idle (bye
 * "idle") is made again. Nothing otherwise.
 */
void client_net_wake(struct client *c);

/* Close the connection for good; the handles are freed in their close callbacks. */
void client_net_stop(struct client *c);

/*
 * Say hello again with c->opt's name, password and register_new: on this connection when its
 * hello has not been answered with a welcome (a refused hello may be tried again on it), else
 * on a new connection and a new session. Requests awaiting their answer are forgotten then.
 */
void client_net_login(struct client *c);

/* client-account.c: the replies of accounts and ratings, read into struct client. */

/* A player object's kind and rating (rating: "" when it has none), as far as they read. */
void client_account_player(const json_t *p, enum client_who *who, char *rating, size_t size);

/* One history entry (PROTOCOL.md 7.6) as the views show it. */
void client_account_history_entry(const json_t *g, struct client_history_entry *e);

/* A profile reply: into c->profile. */
void client_account_profile(struct client *c, const json_t *root);

/* A leaderboard reply: into c->ladder. */
void client_account_ladder(struct client *c, const json_t *root);

/* client-password.c: a password typed on the terminal, without echo. */

/* Turn the echo of terminal fd off (on = 0) or on again. Returns 0, or -1 for no terminal. */
int client_password_echo(int fd, int on);

/*
 * Read one line from terminal fd with its echo off (on again after), without its end, into buf
 * (cut to size). Returns 0, or -1 when fd is no terminal or ended before a byte was typed.
 */
int client_password_read(int fd, char *buf, size_t size);

/* client-session.c: the session token kept across restarts. */

/*
 * Load the token stored for host, port and name, and whether its session is an account's
 * (*account 1) or a guest's (0). Returns 0, or -1 if there is none.
 */
int client_session_load(const char *host, int port, const char *name, char *token, size_t size,
                        int *account);

/*
 * Store the token for host, port and name (mode 0600), with whether its session is an
 * account's (account 1) or a guest's. Returns 0 or a negative errno.
 */
int client_session_save(const char *host, int port, const char *name, const char *token,
                        int account);

/* Forget the stored token. */
void client_session_forget(const char *host, int port, const char *name);

/* The views. */
extern const struct client_view client_screen_view;
extern const struct client_view client_plain_view;

/*
 * The --plain view's state for c without its input (it reads no standard input: the caller types
 * its lines with client_plain_command()), as view_data; the view's stop() frees it. For a program
 * that drives the view itself (tests/fuzz/fuzz-client.c).
 */
void *client_plain_detached(struct client *c);

/* Run line (NUL-terminated, no newline; may be changed) as if typed at --plain. */
void client_plain_command(void *view_data, char *line);

#endif
