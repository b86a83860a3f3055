/*
 * event.h: the words of a game's life as enums, and one codec per game event and notice.
 *
 * Inside the program a game's status, a result, an end reason and an offer are enums; they are
 * strings only on the wire and in the store, and each has ONE table here mapping the enum to its
 * wire word and back (event_status_name() / event_status_parse(), ...). Nothing else compares
 * those words.
 *
 * Every event of section 6 of PROTOCOL.md (seated ... rematch_started) and every notice (your_turn,
 * presence, spectators, kibitz) has a plain C struct (the members of struct event's union) and one
 * codec in event.c's table, indexed by enum msg_type: event_encode() makes the very object the
 * server sends (same members, same order, so wire_encode() of it is the byte-identical line), and
 * event_decode() reads an object back, checking every member as PROTOCOL.md says (types, seats of
 * the game's kind, counts not negative, a result with its winner and a reason that exists for it).
 * The server emits with the first, its restore and the client read with the second. The rules
 * about what an event does to a game are in event-state.h. Never includes libuv.
 *
 * Seats are numbers inside the program: 0 (moves first) and 1, -1 for JSON null; their names
 * depend on the kind of the game, so the codecs take the kind (game_side_name()).
 */
#ifndef HOKITO_PROTOCOL_EVENT_H
#define HOKITO_PROTOCOL_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "game.h"
#include "glicko.h"
#include "protocol.h"
#include "msg.h"
#include "wire.h"

/* The status of a game ("status" of state and game summaries, the store's games.status). */
enum event_status {
	EVENT_STATUS_OPEN,      /* "open": waiting for a second player */
	EVENT_STATUS_LIVE,      /* "live" */
	EVENT_STATUS_ADJOURNED, /* "adjourned": no clock, a player's grace ran out (11.3) */
	EVENT_STATUS_FINISHED,  /* "finished" */
};
#define EVENT_STATUS_COUNT 4

/* The result of a finished game ("result" of game_over and of a result object). */
enum event_result {
	EVENT_RESULT_NONE,    /* not over: never on the wire (null) */
	EVENT_RESULT_WIN,     /* "win" */
	EVENT_RESULT_DRAW,    /* "draw" */
	EVENT_RESULT_ABORTED, /* "aborted": counts for nobody */
};
#define EVENT_RESULT_COUNT 4

/* Why a game ended ("reason"); PROTOCOL.md 6.5 lists them, event_reason_allows() pairs them. */
enum event_reason {
	EVENT_REASON_NONE,       /* not over: never on the wire */
	EVENT_REASON_BLOCKED,    /* "blocked": HOKITO, a player has no legal move; scores decide */
	EVENT_REASON_LINE,       /* "line": OXONO, four in a row */
	EVENT_REASON_FULL,       /* "full": OXONO, all pawns placed: a draw */
	EVENT_REASON_RESIGN,     /* "resign" */
	EVENT_REASON_ABANDONED,  /* "abandoned": nobody there for --linger (aborted) */
	EVENT_REASON_TIME,       /* "time": the loser's flag fell */
	EVENT_REASON_AGREEMENT,  /* "agreement": a draw offer accepted */
	EVENT_REASON_ABORT,      /* "abort": a player aborted in the first moves */
	EVENT_REASON_DISCONNECT, /* "disconnect": claimed after the opponent's grace */
};
#define EVENT_REASON_COUNT 10

/* What a player may offer ("draw_offer" and "rematch_offer" of state). */
enum event_offer {
	EVENT_OFFER_DRAW,    /* "draw" */
	EVENT_OFFER_REMATCH, /* "rematch" */
};
#define EVENT_OFFER_COUNT 2

/*
 * Why a game created rated changes no rating ("unrated" of started, state, game_over and history
 * entries; the store's games.unrated): played casual from its start, or too short at its end.
 */
enum event_unrated {
	EVENT_UNRATED_NONE,         /* rated, or casual as created: never on the wire */
	EVENT_UNRATED_SAME_ADDRESS, /* "same_address": both players came from one address */
	EVENT_UNRATED_PAIR_LIMIT,   /* "pair_limit": the two accounts' rated games of 24 h */
	EVENT_UNRATED_SHORT,        /* "short": it ended before --rated-min-plies plies */
};
#define EVENT_UNRATED_COUNT 4

/* What a player is ("kind" of a player object, 7.1). */
enum event_player_kind {
	EVENT_PLAYER_GUEST,    /* "guest": a display name without an account (the zero value) */
	EVENT_PLAYER_ACCOUNT,  /* "account": logged in to an account */
	EVENT_PLAYER_COMPUTER, /* "computer": the server's computer */
	EVENT_PLAYER_BOT,      /* "bot": logged in to an account the operator marked a bot */
};
#define EVENT_PLAYER_KIND_COUNT 4

/*
 * Names and parsers, one table each. *_name() returns a static string, or NULL for a NONE or an
 * out-of-range value. *_parse() sets *out and returns 0, or returns PROTO_EBADVALUE for a word it
 * does not know (also NULL).
 */
const char *event_status_name(enum event_status status);
int event_status_parse(const char *name, enum event_status *out);
const char *event_result_name(enum event_result result);
int event_result_parse(const char *name, enum event_result *out);
const char *event_reason_name(enum event_reason reason);
int event_reason_parse(const char *name, enum event_reason *out);
const char *event_offer_name(enum event_offer offer);
int event_offer_parse(const char *name, enum event_offer *out);
const char *event_unrated_name(enum event_unrated why);
int event_unrated_parse(const char *name, enum event_unrated *out);

/*
 * Whether a game may end with this result for this reason: "blocked" wins or draws, "line",
 * "resign" and "time" win, "full" and "agreement" draw, "disconnect" wins or draws, "abandoned"
 * and "abort" abort. The one list of which reasons exist for which result.
 */
int event_reason_allows(enum event_reason reason, enum event_result result);

/* The reason of an end the rules found (game_outcome()): blocked, line or full; NONE for none. */
enum event_reason event_reason_of_end(enum game_end end);

/* A player object (7.1) as events carry it. Strings are borrowed. */
struct event_player {
	const char *id;
	const char *name;
	int computer; /* the server's computer at this level (1..8), 0 for a person */
	enum event_player_kind kind; /* decoded without "kind" (a line stored before it was
	                                sent): the computer with a level, else a guest */
	const char *rating;          /* the game kind's rating as shown ("1500?"), NULL: none */
};

/* Two numbers, one per seat in seat order ("scores", "clocks"); has = 0 when absent. */
struct event_pair {
	int has;
	int64_t v[2];
};

struct event_seated {
	int seat;
	struct event_player player;
};

struct event_started {
	const char *variant;
	struct event_player players[2];
	const char *position; /* the start position text */
	int to_move;
	const char *clock;          /* the time control ("5+3"), NULL without a clock */
	struct event_pair clocks;   /* both base times, with a clock */
	enum event_unrated unrated; /* a game created rated that is played casual: why */
};

struct event_moved {
	int by;
	const char *move; /* canonical move text */
	int64_t ply;      /* moves played, this one included: >= 1 */
	const char *position;
	int to_move;              /* -1 when this move ended the game */
	struct event_pair scores; /* HOKITO only */
	struct event_pair clocks; /* with a clock only */
};

/*
 * How a game ended: the result object (PROTOCOL.md 7.3) of state, game summaries and history
 * entries, and the first members of game_over.
 */
struct event_outcome {
	enum event_result result; /* never NONE */
	int winner;               /* the winner for a win, else -1 */
	enum event_reason reason; /* never NONE; event_reason_allows(reason, result) */
	struct event_pair scores; /* HOKITO only: the final position's */
	uint64_t line;            /* reason LINE: the squares of the line (a1 bit 0), else 0 */
};

/* A seat's rating change in a rated game (6.5): its values before and after the game. */
struct event_rating_change {
	struct glicko before; /* the vol is not on the wire: 0 after a decode */
	struct glicko after;
};

struct event_game_over {
	struct event_outcome
	        outcome; /* on the wire: result, winner, reason, then ply, then scores */
	int64_t ply;
	struct event_pair clocks; /* with a clock only */
	int rated;                /* "ratings" follows: the game was rated and not aborted */
	struct event_rating_change ratings[2]; /* by seat, when rated */
	enum event_unrated unrated;            /* a game created rated that rated nobody: why */
};

/* draw_offered, draw_declined, rematch_offered, rematch_declined */
struct event_offer_by {
	int by;
};

struct event_chat {
	int seat;
	struct event_player player;
	const char *text;
};

struct event_grace_over {
	int seat;
	struct event_pair clocks;
};

struct event_adjourned {
	int seat;
};

struct event_resumed {
	int to_move;
};

struct event_rematch_started {
	const char *new_game;
};

/* your_turn (a notice with the seq of the last event) */
struct event_your_turn {
	const char *const
	        *moves; /* encode: n move texts (borrowed); decode: NULL, see moves_json */
	size_t n;
	const json_t *moves_json; /* decode: the borrowed array of strings; encode: ignored */
};

struct event_presence {
	int seat;
	struct event_player player;
	int connected;
	int has_grace; /* grace_ms and grace_over are there (a drop in a live or adjourned game) */
	int64_t grace_ms; /* the grace left */
	int grace_over;
};

struct event_spectators {
	int64_t count;
	const char *const *names; /* n names (borrowed); NULL after a decode */
	size_t n;
	const json_t
	        *names_json; /* after a decode: the array of strings; encoded when names is NULL */
};

struct event_kibitz {
	struct event_player player;
	const char *text;
};

/*
 * One game event or notice. type is an event (msg_type_is_event()) or one of MSG_YOUR_TURN,
 * MSG_PRESENCE, MSG_SPECTATORS, MSG_KIBITZ; the member of u named after it holds its own members.
 * Strings are borrowed: from the caller for event_encode(), from the decoded object for
 * event_decode() (they live as long as it does).
 */
struct event {
	enum msg_type type;
	enum game_kind
	        kind;     /* the game's kind: names the seats; not itself a member but of started */
	const char *game; /* the game id */
	int64_t seq;      /* events and your_turn: >= 1 (your_turn: >= 0); other notices: -1 */
	union {
		struct event_seated seated;
		struct event_started started;
		struct event_moved moved;
		struct event_game_over game_over;
		struct event_offer_by offer; /* draw_offered/declined, rematch_offered/declined */
		struct event_chat chat;
		struct event_grace_over grace_over;
		struct event_adjourned adjourned;
		struct event_resumed resumed;
		struct event_rematch_started rematch_started;
		struct event_your_turn your_turn;
		struct event_presence presence;
		struct event_spectators spectators;
		struct event_kibitz kibitz;
	} u;
};

/*
 * The result object {"result","winner","reason"[,"scores"]} of out, for a game of kind. Returns a
 * new reference. out must be well formed (our own values: a bug aborts).
 */
json_t *event_outcome_encode(enum game_kind kind, const struct event_outcome *out);

/*
 * Read result object o (borrowed) of a game of kind into out, checked as event_decode() checks
 * game_over's (the winner of a win only, a reason the result has, scores in HOKITO only). Returns
 * 0, or a negative enum protocol_err with err filled.
 */
int event_outcome_decode(const json_t *o, enum game_kind kind, struct event_outcome *out,
                         struct msg_error *err);

/*
 * The player object {"id","name","kind"[,"rating"][,"computer"]} of p (7.1), as every event,
 * state and summary sends it. Returns a new reference.
 */
json_t *event_player_encode(const struct event_player *p);

/* Whether type has a codec here (a game event or a notice). */
int event_type_known(enum msg_type type);

/*
 * The object of ev, with exactly the members the server sends, in its order: {"type","game"
 * [,"seq"], the type's own members...}. Returns a new reference. ev must be well formed (our
 * own values: a seat of -1 where a seat is required, or a NONE result, is a bug and aborts).
 */
json_t *event_encode(const struct event *ev);

/*
 * ev as a line: the same bytes as wire_encode(event_encode(ev)), written without a tree for the
 * event of every move (moved, through msg_moved_wire()). Returns a new wire.
 */
struct wire *event_wire(const struct event *ev);

/*
 * Read object o (borrowed; ev's strings point into it) as an event or notice of a game of this
 * kind: its "type" must be one with a codec, and every member that type has is checked as
 * PROTOCOL.md says. Unknown members are ignored. Returns 0 with ev filled, or a negative enum
 * protocol_err with err filled (the member at fault in err->field): PROTO_EBADJSON (not an
 * object), PROTO_EUNKNOWNTYPE (no codec for its type), PROTO_EBADFIELD (a member missing or of a
 * wrong JSON type), PROTO_EBADVALUE (a value refused: a seat of the other kind, a negative count,
 * a winner without a win, a reason the result does not have...).
 */
int event_decode(const json_t *o, enum game_kind kind, struct event *ev, struct msg_error *err);

#endif
