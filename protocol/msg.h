/*
 * msg.h: protocol messages: their types, decoding with validation, and building.
 *
 * msg_decode() turns one line into a struct msg after checking everything that can be checked
 * without the server's state: the line is a JSON object, its "type" is known, "id" is a string or
 * an integer, every member the type requires is there with the right JSON type (PROTOCOL.md's
 * tables, kept here as one schema table), and request values are allowed (game kind, variant,
 * seat, display name, non-negative numbers). So the server's game layer only ever sees well-formed
 * requests, and a client sees server messages it can read without checking types again.
 *
 * The msg_*_new() builders return new jansson objects for the requests and the common replies;
 * wire_encode() (wire.h) turns them into lines.
 */
#ifndef HOKITO_PROTOCOL_MSG_H
#define HOKITO_PROTOCOL_MSG_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "game.h"
#include "protocol.h"

enum msg_type {
	MSG_NONE = 0,
	/* requests, client to server */
	MSG_HELLO,
	MSG_LIST,
	MSG_CREATE,
	MSG_JOIN,
	MSG_QUICK,
	MSG_WATCH,
	MSG_MOVE,
	MSG_RESIGN,
	MSG_LEAVE,
	MSG_PING,
	MSG_SAY,
	MSG_DRAW_OFFER,
	MSG_DRAW_ACCEPT,
	MSG_DRAW_DECLINE,
	MSG_ABORT,
	MSG_CLAIM,
	MSG_REMATCH,
	MSG_REMATCH_DECLINE,
	MSG_HISTORY,
	MSG_RECORD,
	MSG_REGISTER,
	MSG_PASSWORD_CHANGE,
	MSG_ACCOUNT_CLOSE,
	MSG_PROFILE,     /* also the reply's type */
	MSG_LEADERBOARD, /* also the reply's type */
	MSG_TEST_CLOCK,
	/* replies, server to client */
	MSG_WELCOME,
	MSG_GAMES,
	MSG_STATE,
	MSG_OK,
	MSG_PONG,
	MSG_ERROR,
	MSG_BYE,
	MSG_HISTORY_PAGE,
	MSG_GAME_RECORD,
	/* game events (carry game and seq) */
	MSG_SEATED,
	MSG_STARTED,
	MSG_MOVED,
	MSG_GAME_OVER,
	MSG_DRAW_OFFERED,
	MSG_DRAW_DECLINED,
	MSG_CHAT,
	MSG_GRACE_OVER,
	MSG_ADJOURNED,
	MSG_RESUMED,
	MSG_REMATCH_OFFERED,
	MSG_REMATCH_DECLINED,
	MSG_REMATCH_STARTED,
	/* notices (carry game, no new seq) */
	MSG_YOUR_TURN,
	MSG_PRESENCE,
	MSG_SPECTATORS,
	MSG_KIBITZ,
	MSG_TYPE_COUNT
};

#define MSG_REQUEST_FIRST MSG_HELLO
#define MSG_REQUEST_LAST  MSG_TEST_CLOCK
#define MSG_EVENT_FIRST   MSG_SEATED
#define MSG_EVENT_LAST    MSG_REMATCH_STARTED

/* A decoded message. Strings are borrowed from root and live until msg_clear(). */
struct msg {
	enum msg_type type;
	json_t *root; /* owned: the whole object (one reference), NULL when the line was not one */
	json_t *id;   /* borrowed from root: the "id" member, NULL when absent */

	/* Request members; NULL, 0 or has_* = 0 when absent or for other types. */
	int protocol;         /* hello */
	const char *name;     /* hello, register; profile (NULL: the session's own account) */
	const char *token;    /* hello */
	const char *client;   /* hello */
	const char *password; /* hello (with name), register, account_close; password_change: old */
	const char *new_password; /* password_change: the new one */
	int has_last_seq;         /* hello */
	int64_t last_seq;         /* hello: >= 0 */
	int has_kind;             /* create, quick, leaderboard */
	enum game_kind kind;      /* create, quick, leaderboard */
	const char *variant;      /* create, quick: canonical ("standard" when absent) */
	int seat;                 /* create: 0 or 1, or -1 for random (the default) */
	int is_private;           /* create */
	int rated;                /* create, quick: a rated game (accounts only) */
	int has_seed;             /* create */
	uint64_t seed;            /* create */
	int computer;             /* create: the opponent is the server's computer */
	int level;                /* create: its level, PROTOCOL_LEVEL_MIN..MAX */
	const char *game;         /* join, watch, move, resign: a game id */
	const char *code;         /* join, watch: an invite code */
	const char *move;         /* move: the move text */
	int has_clock;            /* create, quick: "clock" was given */
	uint64_t clock_base_ms;   /* create, quick: base time; 0 for "none" */
	uint64_t clock_inc_ms;    /* create, quick: Fischer increment per move */
	const char *clock;        /* create, quick: the time control text as given */
	int claim_draw;           /* claim: 1 for "draw", 0 for "win" */
	int64_t advance_ms;       /* test_clock: >= 0 */
	int64_t offset;           /* list, history: >= 0 (0 when absent) */
	int64_t limit;      /* list: 1..100 (default 100); history, leaderboard: 1..100 (20) */
	const char *after;  /* history, leaderboard: where the page starts (a page's next) */
	int provisional;    /* leaderboard: the provisional players instead of the ranked ones */
	const char *player; /* history: whose games (an account's name, or one's own), or NULL */
	char text[PROTOCOL_CHAT_BYTES + 1]; /* say: the line, control characters stripped */
};

/* What msg_decode() refused, for the error reply. */
struct msg_error {
	int code;       /* enum protocol_err */
	char field[32]; /* the member at fault (bad_field, bad_value), "" otherwise */
	char text[192]; /* one sentence, no trailing newline */
};

/*
 * Decode and validate one line (len bytes; need not be NUL-terminated). Returns 0 with *m filled;
 * or a negative enum protocol_err with err filled. Even on error m->root and m->id are set when
 * the line was a JSON object, so the caller can echo the id and name the request type (m->type,
 * MSG_NONE if unknown). Always call msg_clear() after.
 */
int msg_decode(struct msg *m, const char *line, size_t len, struct msg_error *err);

/*
 * Decode a line a client sent to the server: as msg_decode(), except that a known type that is
 * not a request (a server message sent back) is refused as an unknown one, unknown_type naming
 * "type", before its members are looked at (m->type is then MSG_NONE).
 */
int msg_request_decode(struct msg *m, const char *line, size_t len, struct msg_error *err);

/* Release what msg_decode() holds and zero m. Accepts a zeroed msg. */
void msg_clear(struct msg *m);

/* The wire name of a type ("hello"), or NULL for MSG_NONE and out-of-range values. */
const char *msg_type_name(enum msg_type type);

/* The type of a wire name, or MSG_NONE. */
enum msg_type msg_type_parse(const char *name);

/* Whether a type is a request (client to server). */
int msg_type_is_request(enum msg_type type);

/* Whether a type is a game event (carries a seq of its own). */
int msg_type_is_event(enum msg_type type);

/* A borrowed string member of a decoded message, or NULL. */
const char *msg_str(const struct msg *m, const char *key);

/* An integer member of a decoded message, or dflt when absent or not an integer. */
int64_t msg_int(const struct msg *m, const char *key, int64_t dflt);

/*
 * Builders. Each returns a new reference to an object {"type": ...} with the members given;
 * string arguments are copied; a NULL string or a negative number leaves its member out. id is
 * borrowed (its value is copied into the message) and may be NULL.
 */
json_t *msg_new(enum msg_type type, json_t *id);
json_t *msg_hello_new(const char *name, const char *token, int64_t last_seq, json_t *id);
json_t *msg_create_new(const char *kind, const char *variant, const char *seat, int is_private,
                       json_t *id);
json_t *msg_join_new(const char *game, const char *code, json_t *id);
json_t *msg_quick_new(const char *kind, const char *variant, json_t *id);
json_t *msg_watch_new(const char *game, const char *code, json_t *id);
json_t *msg_move_new(const char *game, const char *move, json_t *id);

/* Reply ok to a request of type request; seq < 0 leaves "seq" out. */
json_t *msg_ok_new(enum msg_type request, int64_t seq, json_t *id);

/*
 * An error reply: code is an enum protocol_err, request the refused request's type (MSG_NONE to
 * leave it out), field NULL or "" to leave it out, text the sentence.
 */
json_t *msg_error_new(int code, enum msg_type request, const char *field, const char *text,
                      json_t *id);

/* The error reply for what msg_decode() refused, built from m (for id and type) and err. */
json_t *msg_decode_error_new(const struct msg *m, const struct msg_error *err);

/* bye: reason "shutdown" or "replaced". */
json_t *msg_bye_new(const char *reason, const char *text);

/* A player object {"id": ..., "name": ...}. */
json_t *msg_player_new(const char *id, const char *name);

/*
 * The lines of every move, written without a jansson tree (wire.h's builder): each returns a new
 * wire with exactly the bytes wire_encode() makes of the object the comment shows (test-msg.c
 * checks them against it). Strings are borrowed.
 */

/* msg_ok_new(request, seq, id) as a line: {"type":"ok","request":R[,"seq":N][,"id":ID]}. */
struct wire *msg_ok_wire(enum msg_type request, int64_t seq, const json_t *id);

/* The members of a moved event, in the order they are sent. */
struct msg_moved {
	const char *game;
	int64_t seq;
	const char *by;       /* the mover's seat */
	const char *move;     /* canonical move text */
	int64_t ply;          /* moves played, this one included */
	const char *position; /* the position text after it */
	const char *to_move;  /* seat to move, NULL for null (the game ended) */
	const char *side[2];  /* the seat names, in seat order, for scores and clocks */
	int has_scores;       /* HOKITO: "scores": {side0: scores[0], side1: scores[1]} */
	int64_t scores[2];
	int has_clocks; /* a timed game: "clocks": {side0: clocks[0], side1: clocks[1]} */
	int64_t clocks[2];
};

/*
 * {"type":"moved","game","seq","by","move","ply","position","to_move"[,"scores"][,"clocks"]} as
 * a line.
 */
struct wire *msg_moved_wire(const struct msg_moved *mv);

/* {"type":"your_turn","game":G,"seq":N,"moves":[...n strings]} as a line. */
struct wire *msg_your_turn_wire(const char *game, int64_t seq, const char *const *moves, size_t n);

#endif
