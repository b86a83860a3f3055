/*
 * protocol.h: the public face of protocol/, the newline-delimited JSON protocol of hokitod.
 *
 * protocol/ holds what the server, the client, the tests and the bots share about the wire: the
 * protocol version and default limits, the stable error codes (this file), input framing
 * (framer.h), refcounted encoded lines (wire.h), message decoding, validation and building
 * (msg.h), the codec of every game event and notice with the enums of statuses, results and reasons
 * (event.h), and what each event does to a game (event-state.h; these two are included on their
 * own, after this file). It depends on common/ and jansson only, never on libuv or a socket. The
 * reference of the protocol itself is PROTOCOL.md beside this file; the two must never disagree.
 */
#ifndef HOKITO_PROTOCOL_PROTOCOL_H
#define HOKITO_PROTOCOL_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#define PROTOCOL_VERSION          1
#define PROTOCOL_MAX_LINE_DEFAULT 65536   /* bytes of one line, without its '\n' */
#define PROTOCOL_SERVER_LINE_MAX  1048576 /* bytes of a server's line a client takes (2) */
#define PROTOCOL_NAME_MAX         32      /* characters of a display name */
#define PROTOCOL_NAME_BYTES       128     /* bytes of a display name (32 UTF-8 characters fit) */
#define PROTOCOL_PASSWORD_MAX     1024    /* bytes of an account password (PROTOCOL.md 4.4) */
#define PROTOCOL_TOKEN_LEN        32      /* hex digits of a session token */
#define PROTOCOL_CODE_LEN         16      /* characters of an invite code (80 bits) */
#define PROTOCOL_SPECTATOR_NAMES  50      /* names listed in a spectators object */
#define PROTOCOL_CHAT_MAX         200     /* characters of a chat line, after stripping */
#define PROTOCOL_CHAT_BYTES       800     /* bytes of a chat line (200 UTF-8 characters fit) */
#define PROTOCOL_CLOCK_MAX_MIN    600     /* minutes of a clock's base time, at most */
#define PROTOCOL_CLOCK_MAX_INC    600     /* seconds of a clock's increment, at most */
#define PROTOCOL_HISTORY_MAX      100     /* games in one history page, at most */
#define PROTOCOL_HISTORY_DEFAULT  20      /* games in a history page when limit is absent */
#define PROTOCOL_LIST_MAX         100     /* games in one list reply, at most (and by default) */
#define PROTOCOL_LEVEL_MIN        1       /* the weakest level of the computer (create.level) */
#define PROTOCOL_LEVEL_MAX        8       /* its full strength */
#define PROTOCOL_LEVEL_DEFAULT    4       /* create.level when absent */

/* What protocol_name_check() takes, in words, for error messages (32: PROTOCOL_NAME_MAX). */
#define PROTOCOL_NAME_RULE "1 to 32 characters, not all blank, no control characters"

/*
 * The error codes of the protocol. Each has a stable name sent as the "code" of an error message
 * (see PROTOCOL.md section 8); protocol functions also return them, negative, like libuv.
 */
enum protocol_err {
	PROTO_EBADJSON = -1,         /* "bad_json": not UTF-8 JSON, or not an object */
	PROTO_ETOOLONG = -2,         /* "line_too_long": the line passed the limit; then closed */
	PROTO_EUNKNOWNTYPE = -3,     /* "unknown_type": no such request type */
	PROTO_EBADFIELD = -4,        /* "bad_field": member missing or of the wrong JSON type */
	PROTO_EBADVALUE = -5,        /* "bad_value": member of the right type, value refused */
	PROTO_EVERSION = -6,         /* "version_mismatch" */
	PROTO_EHELLOREQUIRED = -7,   /* "hello_required" */
	PROTO_EALREADYWELCOMED = -8, /* "already_welcomed" */
	PROTO_EBADTOKEN = -9,        /* "bad_token" */
	PROTO_EHELLOTIMEOUT = -10,   /* "hello_timeout"; then closed */
	PROTO_ETOOMANYCLIENTS = -11, /* "too_many_clients"; then closed */
	PROTO_ESERVERFULL = -12,     /* "server_full" */
	PROTO_ENOSUCHGAME = -13,     /* "no_such_game" */
	PROTO_EGAMEFULL = -14,       /* "game_full" */
	PROTO_EALREADYSEATED = -15,  /* "already_seated" */
	PROTO_EINGAME = -16,         /* "in_game" */
	PROTO_ENOTSEATED = -17,      /* "not_seated" */
	PROTO_ESPECTATOR = -18,      /* "spectator" */
	PROTO_ENOTSTARTED = -19,     /* "not_started" */
	PROTO_EGAMEOVER = -20,       /* "game_over" */
	PROTO_ENOTYOURTURN = -21,    /* "not_your_turn" */
	PROTO_EBADMOVE = -22,        /* "bad_move" */
	PROTO_EILLEGALMOVE = -23,    /* "illegal_move" */
	PROTO_EINTERNAL = -24,       /* "internal" */
	PROTO_ERATELIMITED = -25,    /* "rate_limited": too many requests of a kind; wait */
	PROTO_ENOOFFER = -26,        /* "no_offer": accept or decline with no offer standing */
	PROTO_EALREADYOFFERED = -27, /* "already_offered": your offer stands already */
	PROTO_ETOOLATE = -28,        /* "too_late": abort after your first move */
	PROTO_ECANNOTCLAIM = -29,    /* "cannot_claim": the opponent is back or has grace left */
	PROTO_ENOTOVER = -30,        /* "not_over": rematch before the game is over */
	PROTO_EOPPONENTGONE = -31,   /* "opponent_gone": rematch with an opponent not there */
	PROTO_ENAMETAKEN = -32,      /* "name_taken": an account's name, or a look-alike of it */
	PROTO_EWRONGPASSWORD = -33,  /* "wrong_password": no account of that name and password */
	PROTO_ELOGINTHROTTLED = -34, /* "login_throttled": too many failures; retry_ms says when */
	PROTO_EINSECURE = -35,       /* "insecure_transport": a password in clear over a network */
	PROTO_ENOTLOGGEDIN = -36,    /* "not_logged_in": an account's request from a guest */
	PROTO_EOFFERLIMIT = -37,     /* "offer_limit": too many draw or rematch offers */
	PROTO_ETOOMANYGAMES = -38,   /* "too_many_games": the address holds its maximum of games */
	PROTO_ECOMPUTERBUSY = -39,   /* "computer_busy": the computer players' queue is full */
	PROTO_ESTOREUNAVAILABLE = -40, /* "store_unavailable": the store cannot write (full disk) */
	PROTO_ENOSUCHACCOUNT = -41,    /* "no_such_account": profile of a name without an account */
	PROTO_EACCOUNTCLOSED = -42,    /* "account_closed": login to a closed or banned account */
	PROTO_ETOOMANYREADS = -43,     /* "too_many_reads": the address's store reads are queued */
	PROTO_ETOOEARLY = -44,         /* "too_early": resign or draw before both sides moved */
	PROTO_ENAMERESERVED = -45, /* "name_reserved": the server's or its staff's, or like one */
	PROTO_EWEAKPASSWORD = -46, /* "weak_password": a common password, or like the name */
	PROTO_ECHATFULL = -47,     /* "chat_full": the game's chat holds its most lines */
};
#define PROTO_ERR_COUNT 47

/* The wire name of an error code ("bad_json"). Returns a static string, "internal" if unknown. */
const char *protocol_err_name(int code);

/* The error code of a wire name. Returns the (negative) code, or 0 for an unknown name. */
int protocol_err_parse(const char *name);

/*
 * Check a display name: valid UTF-8, 1..PROTOCOL_NAME_MAX characters, at most
 * PROTOCOL_NAME_BYTES bytes, no control characters (below 0x20, 0x7f, U+0080..U+009F), and not
 * all blank (Unicode's White_Space and Default_Ignorable_Code_Point characters: spaces of any
 * width, zero-width and other invisible characters): a name must show.
 * Returns 0 or PROTO_EBADVALUE.
 */
int protocol_name_check(const char *name);

/*
 * Make text valid UTF-8 in place by dropping every byte that does not start a whole, valid
 * character: a sentence that quotes a peer's text cut at a byte count (as in '%.40s') loses the
 * part of a character the cut left, instead of being refused by the JSON writer. Returns text.
 */
char *protocol_utf8_repair(char *text);

/*
 * Clean a chat line: copy text into out (size bytes) without its control characters (below
 * 0x20, 0x7f, U+0080..U+009F; a tab or a line break becomes one space) and without leading and
 * trailing spaces. Returns the number of characters kept (0: nothing left), or PROTO_EBADVALUE
 * when text is not valid UTF-8 or keeps more than PROTOCOL_CHAT_MAX characters.
 */
int protocol_chat_clean(const char *text, char *out, size_t size);

/*
 * Parse a time control: "none", or "M+S" with M the base time in whole minutes
 * (1..PROTOCOL_CLOCK_MAX_MIN) and S the Fischer increment in whole seconds
 * (0..PROTOCOL_CLOCK_MAX_INC), decimal digits without signs or spaces ("5+3", "15+0"). Sets
 * base_ms and inc_ms (both 0 for "none"). Returns 0 or PROTO_EBADVALUE.
 */
int protocol_clock_parse(const char *text, uint64_t *base_ms, uint64_t *inc_ms);

/*
 * Parse a computer level as a person types it (a decimal number, as strtol reads it, and nothing
 * after it) within PROTOCOL_LEVEL_MIN..PROTOCOL_LEVEL_MAX. Sets *level; returns 0 or
 * PROTO_EBADVALUE.
 */
int protocol_level_parse(const char *text, int *level);

#include "framer.h"
#include "msg.h"
#include "wire.h"

#endif
