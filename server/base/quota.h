/*
 * quota.h: what one source address may hold and do: connections at once, requests a second, games
 * created a minute, games not over at once, new sessions and sessions kept.
 *
 * A key is a source address as throttle_key_from_addr() (throttle.h) writes it: an IPv4 address,
 * or the /64 prefix of an IPv6 one. Each key has one small entry while it holds something (a
 * connection, a game) or has spent some of its allowance lately; quota_expire() forgets the
 * others. A limit of 0 is no limit. The network layer keeps one table for its connections, the
 * game layer one for its requests and games: each counts what it knows.
 *
 * The request rate is a token bucket (the classic one of traffic shaping): a key may send `rate`
 * requests a second on average and a burst of twice that; one more is refused with the time to
 * wait for the next token. New sessions have a bucket of their own: `sessions` a minute, bursts of
 * twice that. Creates are counted in windows of a minute from the first create of
 * the window, accounts registered in windows of an hour and of a day likewise. Pure policy: time is
 * a parameter (milliseconds of a monotonic clock), no clock is read, no I/O, no globals. Not
 * thread-safe: one table belongs to the loop thread.
 */
#ifndef HOKITO_SERVER_QUOTA_H
#define HOKITO_SERVER_QUOTA_H

#include <stddef.h>
#include <stdint.h>

/* Errors: a negative return. */
enum quota_error {
	QUOTA_EAGAIN = -1, /* not now: retry after the time given */
	QUOTA_EFULL = -2,  /* the key holds its maximum: give something back first */
};

#define QUOTA_CREATE_WINDOW_MS 60000    /* creates are counted per minute */
#define QUOTA_HOUR_MS          3600000  /* accounts registered are counted per hour ... */
#define QUOTA_DAY_MS           86400000 /* ... and per day */

struct quota_config {
	unsigned conns;          /* connections at once per key (0: no limit) */
	unsigned rate;           /* requests a second per key, bursts of twice that (0: no limit) */
	unsigned creates;        /* games created per minute per key (0: no limit) */
	unsigned games;          /* games not over at once per key (0: no limit) */
	unsigned sessions;       /* new sessions a minute per key, bursts of twice that; also what
	                            the caller keeps per key (0: no limit) */
	unsigned registers_hour; /* accounts registered an hour per key (0: no limit) */
	unsigned registers_day;  /* accounts registered a day per key (0: no limit) */
};

struct quota;

/* A new empty table (returns a new reference: quota_free() it); cfg is copied, seed keys the
 * hash of its map (use a random one). */
struct quota *quota_create(const struct quota_config *cfg, uint64_t seed);

/* Free the table and its entries. Accepts NULL. */
void quota_free(struct quota *q);

/* One more connection of key: 0, or QUOTA_EFULL (nothing counted). key is copied. */
int quota_conn_add(struct quota *q, const char *key);

/* A connection of key counted by quota_conn_add() is gone. */
void quota_conn_remove(struct quota *q, const char *key);

/* A request of key at now_ms: 0, or QUOTA_EAGAIN with *retry_ms (> 0) to wait. */
int quota_request(struct quota *q, const char *key, uint64_t now_ms, uint64_t *retry_ms);

/*
 * key wants to create a game at now_ms: 0 (counted, and one more game not over held), or
 * QUOTA_EFULL when it holds its maximum of games not over, or QUOTA_EAGAIN with *retry_ms when it
 * created its maximum this minute (nothing counted either way).
 */
int quota_create_begin(struct quota *q, const char *key, uint64_t now_ms, uint64_t *retry_ms);

/* A game that quota_create_begin() counted for key is over (or gone). */
void quota_game_done(struct quota *q, const char *key);

/* Games not over that key holds. */
unsigned quota_games(const struct quota *q, const char *key);

/*
 * key wants a new session (a hello without a token) at now_ms: 0 (counted), or QUOTA_EAGAIN with
 * *retry_ms (> 0) to wait when it started its allowance of new sessions lately.
 */
int quota_session_begin(struct quota *q, const char *key, uint64_t now_ms, uint64_t *retry_ms);

/*
 * key wants to register an account at now_ms: 0 (counted in both windows), or QUOTA_EAGAIN with
 * *retry_ms (> 0) until the window that is full starts again (nothing counted). Each window (an
 * hour, a day) starts at the first registration after the last one ended.
 */
int quota_register_begin(struct quota *q, const char *key, uint64_t now_ms, uint64_t *retry_ms);

/* key holds one more session (kept for resume), or one less; the count is only kept. */
void quota_session_add(struct quota *q, const char *key);
void quota_session_remove(struct quota *q, const char *key);

/* Sessions that key holds. */
unsigned quota_sessions(const struct quota *q, const char *key);

/* Forget the keys that hold nothing and whose allowance is whole again at now_ms. */
void quota_expire(struct quota *q, uint64_t now_ms);

/* Keys tracked. */
size_t quota_count(const struct quota *q);

#endif
