/*
 * accounts.h: the accounts the game layer knows (issue 21), kept in memory on the loop's thread,
 * and the limits on guessing their passwords.
 *
 * Every account of the store is loaded at start (accounts_add() for each), so that a guest's
 * hello is checked against the accounts' names without a read of the disk: by the name's key
 * (names_account_key(), unique without regard to case) and by its confusable skeleton
 * (names_skeleton(), unique too: a name whose skeleton is an account's cannot be registered).
 * A name being registered is reserved here (accounts_reserve()) while its password is hashed
 * off the loop, so that two registrations of one name cannot both pass. Two throttles
 * (throttle.h) slow down failed logins: one keyed by account, one by source address.
 *
 * Part of the game layer: no libuv, no I/O, no clock (time is a parameter). The store's rows are
 * written by the caller (lobby_ops.account_add); this module only remembers them.
 */
#ifndef HOKITO_SERVER_ACCOUNTS_H
#define HOKITO_SERVER_ACCOUNTS_H

#include <stdbool.h>
#include <stdint.h>

#include "store-port.h"
#include "strmap.h"

struct throttle;

/* An account as the game layer keeps it: its store row. */
struct account {
	struct store_account row; /* as stored (the hash included) */
	char id_text[24];         /* row.id in decimal: the key in accounts.by_id */
};

struct accounts {
	struct strmap by_key;      /* names_account_key() -> struct account (owned) */
	struct strmap by_skeleton; /* names_skeleton() -> struct account (borrowed from by_key) */
	struct strmap by_id;       /* id_text -> struct account (borrowed from by_key) */
	struct strmap reserved; /* keys, skeletons, loose keys of names being registered -> copy */
	struct strmap by_loose; /* names_loose_key() -> its count (owned), an account's at least */
	struct strmap words;    /* names_reserved_keys() of the reserved words -> owned copy */
	size_t n;               /* accounts held */
	struct throttle *by_account; /* failed logins per account key */
	struct throttle *by_addr;    /* failed logins per source address (throttle_key_from_addr) */
	int64_t next_id;             /* the id the next account gets */
	unsigned jobs_out;           /* password jobs out to the hasher (auth.c caps them) */
	unsigned busy_refused;       /* logins refused as AUTH_JOBS_MAX were out, not logged yet */
	uint64_t busy_logged_at;     /* when those refusals were last logged (ops->now), or 0 */
};

/* Set up an empty set and its throttles (throttle_config_default), with random seeds. */
void accounts_init(struct accounts *as);

/* Free every account, reservation and throttle. Safe on a zeroed set. */
void accounts_close(struct accounts *as);

/* Remember account row (copied); ids after it go on from its id. Returns it, borrowed. */
struct account *accounts_add(struct accounts *as, const struct store_account *row);

/* Forget account a (freed; any pointer to it is stale after). A no-op for one not held. */
void accounts_remove(struct accounts *as, struct account *a);

/* The account of key (names_account_key()), or NULL. Borrowed. */
struct account *accounts_find(const struct accounts *as, const char *key);

/* The account of id, or NULL. Borrowed. */
struct account *accounts_find_id(const struct accounts *as, int64_t id);

/* Whether account a (may be NULL: no) is a bot's: its kind, as the operator set it. */
bool accounts_is_bot(const struct account *a);

/*
 * Whether a name with key and skeleton may not be registered now: it is an account's (by key, by
 * skeleton or by loose key: "vic_tim" when "victim" is an account) or being registered. 1 or 0.
 */
int accounts_taken(const struct accounts *as, const char *key, const char *skeleton);

/* Reserve key and skeleton (copied) while the name is registered; accounts_release() after. */
void accounts_reserve(struct accounts *as, const char *key, const char *skeleton);

/* Take a reservation back. Unknown keys are ignored. */
void accounts_release(struct accounts *as, const char *key, const char *skeleton);

/* Whether name is a reserved word or looks like one (names_reserved_keys()). 1 or 0. */
int accounts_reserved_name(const struct accounts *as, const char *name);

/* What accounts_guest_refused() answers besides 0. */
enum accounts_refusal {
	ACCOUNTS_TAKEN = 1,    /* an account's name, a look-alike of one, or the computer's */
	ACCOUNTS_RESERVED = 2, /* a reserved word, or a look-alike of one */
};

/*
 * Whether a guest may not call itself name (any display name, trimmed by the caller): it looks
 * like an account's name (names_guest_keys() against the skeletons, names_loose_keys() against
 * the loose keys, reservations included) or like the computer's (names_imitates_computer()):
 * ACCOUNTS_TAKEN; or like a reserved word: ACCOUNTS_RESERVED; else 0. A name that cannot be
 * checked counts as taken.
 */
int accounts_guest_refused(const struct accounts *as, const char *name);

/* Forget throttled keys that went quiet (call about once a minute). */
void accounts_tick(struct accounts *as, uint64_t now_ms);

#endif
