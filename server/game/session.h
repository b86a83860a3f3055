/*
 * session.h: the sessions of hokitod's game layer: who a player is (id, name, token), and the
 * registry that finds a session by its token or its player id.
 *
 * A session outlives its connection (a peer) so that a player can come back with its token. The
 * registry owns every session; what a session is at (its table, its seat) is kept here but
 * changed only by the table (table_attach()) and the lobby (lobby.h), which decide when a session
 * expires. No libuv here, no tables: this module never looks inside a game.
 */
#ifndef HOKITO_SERVER_SESSION_H
#define HOKITO_SERVER_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "event.h"
#include "protocol.h"
#include "strmap.h"

#define CHAT_BURST  5     /* chat lines a session may send ... */
#define CHAT_WINDOW 10000 /* ... within this many milliseconds */

struct lobby_wait;
struct session;
struct table;

#define LOBBY_PEER_KEY 64 /* bytes of a source address key with its NUL (THROTTLE_KEY_MAX) */

/* The game layer's view of a connection; embedded in the network layer's client. */
struct lobby_peer {
	struct session *session;   /* set by a successful hello, NULL before and after */
	char addr[LOBBY_PEER_KEY]; /* its source address as a key (throttle_key_from_addr()):
	                              what the per-address limits and the login throttle count;
	                              "" if unknown */
	unsigned refused;          /* requests refused over the rate in the window (guard.c) */
	uint64_t refused_at;       /* ... since then (ops->now, ms), the window's start */
	struct lobby_wait *wait;   /* a read or a hash of its request is out: it is held */
	unsigned prepaid;          /* requests read while held, passed by the rate as they came */
	unsigned overdrawn;        /* ... and those after them, refused by it (guard.c) */
	int loopback;              /* the peer's address is a loopback one */
	int encrypted;             /* the connection is encrypted (TLS); 0 on plain TCP */
};

/*
 * A player's session. Its fields are laid out without holes: 384 bytes, jemalloc's 384-byte
 * class, which every idle connection's session costs (tests/bench/idle.sh).
 */
struct session {
	char id[16];                        /* "p12" */
	char name[PROTOCOL_NAME_BYTES + 1]; /* display name */
	char token[PROTOCOL_TOKEN_LEN + 1]; /* the secret */
	int seat;                           /* 0 or 1 when seated at table, -1 watching */
	struct lobby_peer *peer;            /* connection, NULL while disconnected */
	struct table *table;          /* the game the session is at, or NULL: table_attach() */
	TAILQ_ENTRY(session) at_link; /* the other sessions at table (its attached list) */
	unsigned chat_next;           /* next slot of chat_at */
	int bot;                      /* that account is a bot's (its kind at login) */
	uint64_t gone_at;             /* when the connection was lost (ms) */
	uint64_t active_at;           /* its last request, real ms (--idle-timeout) */
	uint64_t chat_at[CHAT_BURST]; /* when its last chat lines were sent, a ring */
	int64_t account;              /* the account logged in to (accounts.h), 0 for a guest */
	/* while the store is down (lobby_hold_behind()): the events of game behind_game from
	 * seq behind_from + 1 to behind_to that the connection was not sent; behind_to 0: none */
	int64_t behind_from, behind_to;
	char addr[LOBBY_PEER_KEY]; /* the address that made it, counted in the lobby's quota
	                              while it is kept (guard_session_made()); "" if none */
	char behind_game[16];      /* (see behind_from) */
};

TAILQ_HEAD(session_list, session);

/* Every session, with its two indexes. */
struct sessions {
	struct session **all; /* in creation order */
	size_t n, cap;
	struct strmap by_token;  /* session of each token */
	struct strmap by_player; /* session of each player id */
};

/* Start an empty registry (seeds: the keys of its two maps). */
void session_registry_init(struct sessions *ss, uint64_t seed_token, uint64_t seed_player);

/* Free every session and the indexes. */
void session_registry_close(struct sessions *ss);

/*
 * A new session for player id (its number is taken by the caller) and name, with a fresh token,
 * not at any game. Returns a borrowed session: the registry owns it.
 */
struct session *session_new(struct sessions *ss, const char *id, const char *name);

/* Add a session made elsewhere (a restart): the registry takes it (steals s). */
void session_add(struct sessions *ss, struct session *s);

/* The session of a token, or NULL (strmap's keyed hash and constant-time compare). Borrowed. */
struct session *session_find_token(struct sessions *ss, const char *token);

/* The session of player id, or NULL. Borrowed. */
struct session *session_find_id(struct sessions *ss, const char *id);

/* What s is on the wire: a guest, an account, or a bot account. */
enum event_player_kind session_kind(const struct session *s);

/* Take s out of the indexes and free it; the caller compacts ss->all itself (lobby_tick()). */
void session_forget(struct sessions *ss, struct session *s);

#endif
