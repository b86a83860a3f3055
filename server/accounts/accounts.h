/*
 * accounts.h: the accounts the game layer knows, kept in memory on the loop's thread, and the
 * limits on guessing their passwords.
 *
 * Every account of the store is loaded at start (accounts_add() for each), so that a guest's
 * hello is checked against the accounts' names without a read of the disk: by the name's key
 * (names_account_key(), unique without regard to case) and by its confusable skeleton
 * (names_skeleton(), unique too: a name whose skeleton is an account's cannot be registered).
 * A name being registered is reserved here (accounts_reserve()) while its password is hashed
 * off the loop, so that two registrations of one name cannot both pass. The accounts are also
 * kept in id order (accounts_after()), so that the operators' list pages by key.
 *
 * Failed logins are slowed so that they cost the guesser, not the owner (throttle.h's tables;
 * "address" is a throttle_key_from_addr() key, "account" a name's key, with or without an
 * account behind it, so that the answers do not tell which names exist):
 *   - per (account, address) first: 3 free failures, then 1 s doubling up to 5 min;
 *   - per address, over every name it tries (the same delays): one address guessing many names;
 *   - per account, over the failures from addresses the account has not logged in from lately:
 *     the same delays, but enforced only once its failures came from spread_min addresses or
 *     more (--login-spread; 0: never) within the quiet time (15 minutes), so that one address
 *     alone never
 *     slows the owner anywhere, and many guessing together are slowed as one;
 *   - never by the account's own known addresses: the last ACCOUNTS_KNOWN_MAX addresses it
 *     logged in from (or registered from) within ACCOUNTS_KNOWN_MS, kept in memory with the
 *     account (a restart forgets them until the next login; about 600 bytes an account), are
 *     exempt from the per-account bound, so that guesses from elsewhere never lock the owner
 *     out at home;
 *   - a logged-in session's password_change and account_close are slowed per session only
 *     (its own wrong passwords), never by failures from elsewhere.
 * A right password forgets its (account, address) failures and takes one back from its
 * address and its account.
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

#define ACCOUNTS_KEY_MAX   64                 /* bytes of a throttle key (THROTTLE_KEY_MAX) */
#define ACCOUNTS_KNOWN_MAX 8                  /* addresses an account logged in from, kept */
#define ACCOUNTS_KNOWN_MS  (30 * 86400000ULL) /* ... for so long after its last login there */
#define ACCOUNTS_SPREAD_MIN                                                                        \
	3 /* addresses failing for an account before its own bound acts:                           \
	     the default of accounts.spread_min (--login-spread) */

/* An address an account logged in from. */
struct account_addr {
	char addr[ACCOUNTS_KEY_MAX]; /* its throttle key; "" for an empty slot */
	uint64_t at;                 /* the last login from it (ms of the throttles' clock) */
};

/* An account as the game layer keeps it: its store row. */
struct account {
	struct store_account row; /* as stored (the hash included) */
	char id_text[24];         /* row.id in decimal: the key in accounts.by_id */
	struct account_addr known[ACCOUNTS_KNOWN_MAX]; /* where it logged in from lately */
};

/* How a login with a password (hello with name and password) ended, for the metrics. */
enum accounts_login_outcome {
	ACCOUNTS_LOGIN_OK,             /* welcome */
	ACCOUNTS_LOGIN_WRONG_PASSWORD, /* wrong_password (or no such account) */
	ACCOUNTS_LOGIN_CLOSED,         /* account_closed: the password was right */
	ACCOUNTS_LOGIN_THROTTLED,      /* login_throttled: too many failures, or hashes out */
	ACCOUNTS_LOGIN_INSECURE,       /* insecure_transport */
	ACCOUNTS_LOGIN_OUTCOMES
};

/* How a password job (a hash made or checked) ended, for the metrics. */
enum accounts_hash_outcome {
	ACCOUNTS_HASH_OK,       /* made, or checked and right */
	ACCOUNTS_HASH_MISMATCH, /* checked: not the password */
	ACCOUNTS_HASH_ERROR,    /* failed (no memory, a damaged stored hash) */
	ACCOUNTS_HASH_OUTCOMES
};

/* Their names, as the metrics' labels: "ok", "wrong_password", ... */
extern const char *const accounts_login_names[ACCOUNTS_LOGIN_OUTCOMES];
extern const char *const accounts_hash_names[ACCOUNTS_HASH_OUTCOMES];

/* Which limit refused a login (accounts_login_check()). */
enum accounts_limit {
	ACCOUNTS_LIMIT_PAIR = -1,    /* this account from this address */
	ACCOUNTS_LIMIT_ADDR = -2,    /* this address, over every name */
	ACCOUNTS_LIMIT_ACCOUNT = -3, /* this account, from addresses it does not know */
};

struct accounts {
	struct strmap by_key;      /* names_account_key() -> struct account (owned) */
	struct strmap by_skeleton; /* names_skeleton() -> struct account (borrowed from by_key) */
	struct strmap by_id;       /* id_text -> struct account (borrowed from by_key) */
	struct strmap reserved; /* keys, skeletons, loose keys of names being registered -> copy */
	struct strmap by_loose; /* names_loose_key() -> its count (owned), an account's at least */
	struct strmap words;    /* names_reserved_keys() of the reserved words -> owned copy */
	struct account **order; /* every account by id (borrowed from by_key) */
	size_t n, cap;          /* accounts in order, its room */
	struct throttle *by_pair;    /* failed logins per "account key|address" */
	struct throttle *by_account; /* failed logins per account key, from unknown addresses */
	struct throttle *by_spread;  /* per account key: the addresses that began failing */
	struct throttle *by_addr;    /* failed logins per source address (throttle_key_from_addr) */
	struct throttle *by_session; /* wrong passwords per session id (password_change, close) */
	unsigned spread_min; /* addresses failing for an account before its own bound acts; 0: never
	                        (accounts_init(): ACCOUNTS_SPREAD_MIN) */
	int64_t next_id;     /* the id the next account gets */
	unsigned jobs_out;   /* password jobs out to the hasher (auth.c caps them) */
	uint64_t logins[ACCOUNTS_LOGIN_OUTCOMES]; /* logins with a password since the start */
	uint64_t hashes[ACCOUNTS_HASH_OUTCOMES];  /* password jobs done since the start */
	unsigned busy_refused;    /* logins refused as AUTH_JOBS_MAX were out, not logged yet */
	uint64_t busy_logged_at;  /* when those refusals were last logged (ops->now), or 0 */
	unsigned bound_refused;   /* logins refused by an account's own bound, not logged yet */
	uint64_t bound_logged_at; /* when those were last logged (ops->now), or 0 */
};

/* A password job that was out came back with rc (0 or a password_error): counted, jobs_out less. */
void accounts_job_done(struct accounts *as, int rc);

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

/* Accounts held. */
size_t accounts_count(const struct accounts *as);

/* The position, in id order, of the first account whose id is greater than after (a binary
 * search: O(log n)); accounts_count() when there is none. */
size_t accounts_after(const struct accounts *as, int64_t after);

/* The account at position i (< accounts_count()) in id order. Borrowed. */
struct account *accounts_at(const struct accounts *as, size_t i);

/* Whether account id is one that logs in: it exists, neither closed nor banned. */
bool accounts_open(const struct accounts *as, int64_t id);

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

/*
 * Whether a login to the name of key (its account a, or NULL when it has none) from address addr
 * may be tried at now_ms: 0, or an accounts_limit with *retry_ms (the longest wait of the limits
 * that refuse). Nothing is counted.
 */
int accounts_login_check(struct accounts *as, const struct account *a, const char *key,
                         const char *addr, uint64_t now_ms, uint64_t *retry_ms);

/*
 * Count the login that accounts_login_check() allowed as a failure until
 * accounts_login_success() takes it back. Returns whether it counted under the account's own
 * bound (1 or 0): hand that to accounts_login_success().
 */
int accounts_login_begin(struct accounts *as, const struct account *a, const char *key,
                         const char *addr, uint64_t now_ms);

/*
 * That login was right: its failures are taken back (counted: accounts_login_begin()'s answer),
 * and addr is one of a's known addresses from now_ms (a may be NULL: nothing to remember).
 */
void accounts_login_success(struct accounts *as, struct account *a, const char *key,
                            const char *addr, int counted, uint64_t now_ms);

/* Remember addr as one a logged in from at now_ms (the oldest known goes when all are taken). */
void accounts_known_add(struct account *a, const char *addr, uint64_t now_ms);

/* Whether a logged in from addr within ACCOUNTS_KNOWN_MS before now_ms. a may be NULL: no. */
bool accounts_known(const struct account *a, const char *addr, uint64_t now_ms);

/* Forget the failed logins counted for the name of key (an operator set a new password). */
void accounts_login_forget(struct accounts *as, const char *key);

/* Forget throttled keys that went quiet (call about once a minute). */
void accounts_tick(struct accounts *as, uint64_t now_ms);

#endif
