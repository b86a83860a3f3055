/*
 * throttle.h: the policy that slows down guessing: growing delays per key after failures.
 *
 * A key is whatever is being protected: an account (its names_account_key()) or a source address
 * (throttle_key_from_addr(): an IPv4 address, or the /64 prefix of an IPv6 one, since one host
 * commonly holds a whole /64). Account keys never hold '.' or ':' and address keys always do, so
 * both may share one table; separate tables (one per kind, with their own caps) are clearer.
 *
 * The rule: every attempt counts as a failure from the moment it begins (throttle_begin()), so
 * that a burst of attempts sent at once is counted before any of them is answered; one that
 * succeeds is taken back (throttle_success()), or its key forgotten (throttle_forget()). After n
 * counted failures the next attempt waits delay(n): nothing for the first free_failures, then
 * base_ms, doubling each time, never more than max_ms (with the defaults: 3 free, then 1 s, 2 s,
 * 4 s, ... 256 s, 5 min). A key with no failure for quiet_ms is forgotten. At most max_keys keys
 * are tracked: a new key first pushes out the quiet ones, then, if the table is still full, the
 * one whose last failure is oldest (counted in throttle_evicted(): a sign of a flood).
 *
 * Pure policy: time is a parameter (milliseconds of any monotonic clock, e.g. uv_now()), no clock
 * is read, no I/O, no globals. Not thread-safe: one table belongs to one thread (the loop).
 * Memory: one small entry per key tracked (about 150 bytes with its map slot), bounded by
 * max_keys.
 */
#ifndef HOKITO_SERVER_THROTTLE_H
#define HOKITO_SERVER_THROTTLE_H

#include <stddef.h>
#include <stdint.h>

struct sockaddr;
struct throttle;

#define THROTTLE_KEY_MAX 64 /* bytes of a key with its NUL ("ffff:...:ffff::/64" fits) */

/* Errors: a negative return. */
enum throttle_error {
	THROTTLE_EAGAIN = -1, /* not now: retry after the time given */
	THROTTLE_EINVAL = -2, /* an empty key, one of THROTTLE_KEY_MAX bytes or more, or an address
	                         that is neither IPv4 nor IPv6 */
};

struct throttle_config {
	unsigned free_failures; /* failures that cost no delay */
	uint64_t base_ms;       /* the delay after the first failure past those */
	uint64_t max_ms;        /* the longest delay */
	uint64_t quiet_ms;      /* a key without failures for this long is forgotten; > max_ms */
	size_t max_keys;        /* keys tracked at most, >= 1 */
};

/* The defaults: 3 free failures, then 1 s doubling up to 5 min, forgotten after 15 quiet minutes,
 * 100,000 keys (about 15 MB). */
extern const struct throttle_config throttle_config_default;

/* A new empty table (returns a new reference: throttle_free() it). cfg is copied; seed keys the
 * hash of the map (use a random one, so that keys cannot be chosen to collide). */
struct throttle *throttle_create(const struct throttle_config *cfg, uint64_t seed);

/* Free the table and its entries. Accepts NULL. */
void throttle_free(struct throttle *t);

/*
 * An attempt for key at now_ms: allowed, and then counted as a failure until throttle_success()
 * takes it back, returning 0; or THROTTLE_EAGAIN with *retry_ms set to the milliseconds to wait
 * (> 0, nothing counted); THROTTLE_EINVAL for a bad key. key is copied.
 */
int throttle_begin(struct throttle *t, const char *key, uint64_t now_ms, uint64_t *retry_ms);

/*
 * Whether an attempt would be allowed now, without counting one: 0, or THROTTLE_EAGAIN with
 * *retry_ms, or THROTTLE_EINVAL.
 */
int throttle_check(struct throttle *t, const char *key, uint64_t now_ms, uint64_t *retry_ms);

/* The failures counted for key at now_ms (0 for a key not tracked, quiet, or bad). */
uint32_t throttle_failures(struct throttle *t, const char *key, uint64_t now_ms);

/*
 * The attempt begun for key succeeded: take its failure back (the delay then follows the
 * failures left). For a source address, so that people behind one address who log in rightly
 * are not slowed by each other. Unknown keys are ignored.
 */
void throttle_success(struct throttle *t, const char *key);

/* Forget key altogether: for an account after a right password. Unknown keys are ignored. */
void throttle_forget(struct throttle *t, const char *key);

/* Forget every key quiet at now_ms. Cheap (only the quiet ones are visited): call it from a
 * timer, e.g. once a minute; the other calls also make room lazily. */
void throttle_expire(struct throttle *t, uint64_t now_ms);

/* Keys tracked. */
size_t throttle_count(const struct throttle *t);

/* Keys pushed out while not quiet, because the table was full, since creation. */
uint64_t throttle_evicted(const struct throttle *t);

/*
 * The key of a source address: "192.0.2.7" for IPv4 (and for IPv4 mapped into IPv6,
 * ::ffff:192.0.2.7, as a dual-stack socket reports it), "2001:db8:1:2::/64" for IPv6 (its /64
 * prefix). Writes it with its NUL to key and returns 0, or THROTTLE_EINVAL for another family.
 */
int throttle_key_from_addr(const struct sockaddr *sa, char key[THROTTLE_KEY_MAX]);

#endif
