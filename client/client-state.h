/*
 * client-state.h: what the terminal client knows (client-state.c), and nothing else.
 *
 * The lobby list and the game being played or watched (position, players, moves, spectators,
 * clocks, chat), with the pure functions that change them and read facts off them for the views.
 * This is the bottom layer of the client: it includes no other header of client/, does no I/O
 * and never calls back up (the network, the messages, the views all sit above it).
 *
 * What the protocol's rules decide about the game at the table (its status, seq, offers, result
 * and reason, who is connected) is kept once, as the struct event_state of protocol/event-state.h
 * that the messages apply each event to (table.rules); client_state_table_follow() copies it onto
 * the few plain fields the views read (started, adjourned, draw_offer...). Statuses, results and
 * reasons are enums here; their words are protocol/event.h's, for display only.
 */
#ifndef HOKITO_CLIENT_CLIENT_STATE_H
#define HOKITO_CLIENT_CLIENT_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "event-state.h"
#include "game.h"

#define CLIENT_NAME_MAX    129   /* a display name, with its NUL (32 UTF-8 characters fit) */
#define CLIENT_ID_MAX      64    /* a game id, player id or invite code, with its NUL */
#define CLIENT_VARIANT_MAX 24    /* a variant name, with its NUL */
#define CLIENT_MOVES_MAX   128   /* moves kept in the move list; a game never has more */
#define CLIENT_SPECTATORS  32    /* spectator names kept for display; the count is exact */
#define CLIENT_LIST_MAX    256   /* lobby entries kept */
#define CLIENT_MESSAGE_MAX 1024  /* the status line, with its NUL (a chat line fits) */
#define CLIENT_CHAT_KEEP   32    /* chat lines kept per channel */
#define CLIENT_CHAT_TEXT   808   /* a chat line, with its NUL (200 UTF-8 characters fit) */
#define CLIENT_LOW_TIME_MS 20000 /* a clock under this is shown as low */

/* What a player is (PROTOCOL.md 7.1, "kind"); UNKNOWN from a server that does not say. */
enum client_who {
	CLIENT_WHO_UNKNOWN = 0,
	CLIENT_WHO_ACCOUNT,  /* a registered account */
	CLIENT_WHO_GUEST,    /* a guest's display name */
	CLIENT_WHO_COMPUTER, /* the server's computer player */
	CLIENT_WHO_BOT,      /* an account marked as a bot */
};

#define CLIENT_RATING_MAX 12 /* a rating's display text ("1623", "1500?"), with its NUL */

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
	enum event_status status;
	char players[2][CLIENT_NAME_MAX];  /* "" for an empty seat */
	enum client_who who[2];            /* what each player is */
	char rating[2][CLIENT_RATING_MAX]; /* their ratings shown, "" for none */
	int rated;                         /* a rated game */
	int spectators;
	int ply; /* moves played */
	int private_game;
	char clock[16]; /* the time control ("5+3"), "" without a clock */
	int result; /* a finished game's: 0 or 1 the winning side, -1 drawn, -2 aborted; else -3 */
	enum event_reason reason; /* ... and why; EVENT_REASON_NONE when not over */
};

/* A player seated at the table. */
struct client_seat {
	char name[CLIENT_NAME_MAX]; /* "" while the seat is empty */
	char id[CLIENT_ID_MAX];     /* player id, "" if unknown */
	int connected;              /* 1 connected, 0 dropped (waiting for it to come back) */
	int64_t grace_ms;           /* while dropped: grace left as of grace_stamp */
	uint64_t grace_stamp;       /* when grace_ms was received (loop time, ms) */
	int grace_over;             /* while dropped: its grace ran out */
	int claimable;              /* while dropped: the opponent may claim (grace_over came) */
	int computer;               /* the server's computer player's level, 0 for a person */
	enum client_who who;        /* what the player is */
	char rating[CLIENT_RATING_MAX]; /* its rating in this game's kind shown, "" for none */
};

/* A seat's rating before and after a rated game (game_over's "ratings"). */
struct client_rating_change {
	int has;                              /* game_over carried it */
	double before, after;                 /* full precision */
	char before_shown[CLIENT_RATING_MAX]; /* "1500?" */
	char after_shown[CLIENT_RATING_MAX];  /* "1662?" */
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
	int started; /* both seats filled and play begun (rules: not open) */
	struct client_seat seats[2];
	int rated;                  /* a rated game (state's "rated") */
	enum event_unrated unrated; /* created rated but not: why (state, started, game_over) */
	struct client_rating_change change[2]; /* a rated game's end: each seat's change */
	struct game game;                      /* the current position */
	struct event_state rules; /* what the game's events decided (the views read the fields
	                             client_state_table_follow() copies from it) */
	int64_t seq;              /* rules.seq: the last game event seen; -1 at no table */
	char moves[CLIENT_MOVES_MAX][GAME_MOVE_TEXT]; /* move list, first move first */
	int nmoves;
	char spectators[CLIENT_SPECTATORS][CLIENT_NAME_MAX];
	int nspectators;              /* exact count (may exceed the names kept) */
	int over;                     /* the game has ended */
	struct game_outcome outcome;  /* valid when over */
	int winner;                   /* when over: the winning side, or -1 for a draw */
	int aborted;                  /* when over: it ended without result (aborted, abandoned) */
	char reason[160];             /* when over: why it ended, in words */
	enum event_reason end_reason; /* when over: how it ended; EVENT_REASON_NONE before */
	/* match management (PROTOCOL.md 11) */
	int timed;            /* the game has a clock */
	char control[24];     /* its time control, "5+3" */
	int64_t clock_ms[2];  /* both clocks as of clock_stamp */
	uint64_t clock_stamp; /* when clock_ms was received (loop time, ms) */
	int first_move_timer; /* a side's clock stands before its first move (state.clock) */
	int adjourned;        /* rules: adjourned, waiting for both players */
	int draw_offer;       /* rules: side whose draw offer stands, or -1 */
	int rematch_offer;    /* rules: side whose rematch offer stands, or -1 */
	char rematch_game[CLIENT_ID_MAX];            /* the rematch's game id once it started */
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
	enum client_who who;        /* what we are: a guest, or logged in to an account */
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
 * Copy what the rules say (t->rules) onto the fields the views read: seq, started, adjourned,
 * both offers and, with seats, each seat's connection and grace_over.
 */
void client_state_table_follow(struct client_state *st, int seats);

/*
 * The game ended: winner is a side or -1 for a draw; reason is the server's words (may be NULL).
 * HOKITO scores are read from the final position.
 */
void client_state_table_over(struct client_state *st, int winner, const char *reason);

/* Why a game created rated is not (PROTOCOL.md 14), as a sentence; "" for none. Static. */
const char *client_state_unrated_text(enum event_unrated why);

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

/*
 * One line describing the outcome: "Black wins, 34 to 28" (by the scores), "Draw", "White wins
 * by resignation", "Pink wins on time", "Draw by agreement", "No result" (aborted), ...
 */
void client_state_result_text(const struct client_table *t, char *buf, size_t size);

/* The same for a game of kind won by side winner (-1: a draw) with these HOKITO scores. */
void client_state_outcome_text(enum game_kind kind, int winner, const int score[2], char *buf,
                               size_t size);

/* The kind of a player object's "kind" word (NULL or unknown: CLIENT_WHO_UNKNOWN). */
enum client_who client_state_who_parse(const char *word);

/*
 * A player's name as the views show it, with what it is and its rating: "alice 1623",
 * "bob 1500?", "carol (guest)", "rob [bot] 1710"; the computer's name ("computer (level 4)")
 * and a player of an old server as they are. rating may be NULL or "".
 */
void client_state_player_text(const char *name, enum client_who who, const char *rating, char *buf,
                              size_t size);

/*
 * The seat's player of the table in those words ("(empty seat)" for none); our own seat as a
 * guest without the mark (the views add "(you)").
 */
void client_state_seat_text(const struct client_table *t, int side, char *buf, size_t size);

/*
 * The rating change of a rated game's end for a side, "alice 1500? -> 1662?, +162" (the change
 * in whole points of the full values); "" when the game_over carried none.
 */
void client_state_change_text(const struct client_table *t, int side, char *buf, size_t size);

/* Whether we are logged in to an account (or a bot's): rated games are offered then. */
int client_state_account(const struct client_state *st);

/* The lobby entry with this id, or NULL. Returns a borrowed pointer. */
const struct client_entry *client_state_entry(const struct client_state *st, const char *id);

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
