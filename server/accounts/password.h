/*
 * password.h: account passwords, hashed with Argon2id (libsodium's crypto_pwhash_str).
 *
 * A stored hash is the whole "$argon2id$v=19$m=...,t=...,p=...$salt$hash" string: it carries its
 * own salt and cost, so hashes made with older costs keep verifying, and
 * password_needs_rehash() says when one should be replaced at the next successful login.
 *
 * The cost (PASSWORD_OPSLIMIT, PASSWORD_MEMLIMIT) is OWASP's recommended Argon2id setting, 19 MiB
 * and 2 passes, one lane: on this project's 2-core test machine one hash takes about 21 ms of CPU
 * (best of 5; 40 to 200 ms of wall time while the machine was shared), where libsodium's own
 * "interactive" limits (64 MiB, 2 passes) take 79 ms and 3.4 times the memory. Both are
 * interactive costs; the smaller one lets 2 cores answer about 90 logins a second at most, and 4
 * libuv workers hold at most 76 MiB of hash memory at once. Raise the cost here when machines
 * grow; old hashes keep verifying and are upgraded at login (password_needs_rehash()).
 *
 * BLOCKING: password_hash(), password_verify() and password_verify_none() spend tens of
 * milliseconds of CPU and megabytes of memory by design. They must run on the thread pool
 * (uv_queue_work), never on the loop thread; each call is independent and thread-safe.
 * password_check() and password_needs_rehash() are cheap and may run anywhere.
 *
 * Passwords are bytes: PASSWORD_MIN to PASSWORD_MAX of them, no NUL (so that a password read
 * from a file or typed at a prompt is the same password). A new password must also not be weak
 * (password_weak()): one of the most common passwords (password-common.txt, about 1,800 of
 * them, compared without regard to ASCII case), or one that holds the account's name or the
 * name backwards (without regard to ASCII case), as NIST SP 800-63B asks of a verifier. A login
 * is never refused for a weak password: the rule is on new ones.
 */
#ifndef HOKITO_SERVER_PASSWORD_H
#define HOKITO_SERVER_PASSWORD_H

#include <stddef.h>

#define PASSWORD_MIN        8                /* bytes of a password, at least */
#define PASSWORD_MAX        1024             /* ... at most */
#define PASSWORD_OPSLIMIT   2                /* Argon2id passes over memory (OWASP: t=2) */
#define PASSWORD_MEMLIMIT   (19456u * 1024u) /* bytes of memory per hash (OWASP: m=19 MiB) */
#define PASSWORD_HASH_SIZE  128              /* room for a stored hash with its NUL */
#define PASSWORD_COMMON_MAX 64               /* bytes of the longest common password compared */
#define PASSWORD_NAME_MAX   64               /* bytes of a name password_weak() compares */

/* Errors: a negative return. */
enum password_error {
	PASSWORD_ESHORT = -1,    /* fewer than PASSWORD_MIN bytes */
	PASSWORD_ELONG = -2,     /* more than PASSWORD_MAX bytes */
	PASSWORD_ENUL = -3,      /* a NUL byte inside */
	PASSWORD_EMISMATCH = -4, /* not the password of that hash */
	PASSWORD_EHASH = -5,     /* the stored hash is not an Argon2id hash string */
	PASSWORD_ENOMEM = -6,    /* hashing could not get its memory (or libsodium failed) */
	PASSWORD_EINIT = -7,     /* libsodium could not start */
	PASSWORD_ECOMMON = -8,   /* one of the most common passwords */
	PASSWORD_ENAME = -9,     /* it holds the account's name, or the name backwards */
};

/* Start libsodium. Call once at startup; 0 or PASSWORD_EINIT. The others call it too (cheap). */
int password_init(void);

/* Whether pw (len bytes, not NUL-terminated) is an acceptable new password: 0 or an error. */
int password_check(const char *pw, size_t len);

/*
 * Whether pw (len bytes) is too weak for a new password of the account name (NUL-terminated, or
 * NULL: no name to compare): 0, PASSWORD_ECOMMON or PASSWORD_ENAME. Cheap (a binary search and
 * two scans of the password): may run on the loop.
 */
int password_weak(const char *pw, size_t len, const char *name);

/* The sentence that tells a user why password_weak() said rc. A static string. */
const char *password_weak_text(int rc);

/*
 * BLOCKING (thread pool only). Hash pw (len bytes) with a fresh random salt into hash, a
 * NUL-terminated string of at most PASSWORD_HASH_SIZE bytes. Returns 0, a password_check()
 * error, or PASSWORD_ENOMEM / PASSWORD_EINIT.
 */
int password_hash(const char *pw, size_t len, char hash[PASSWORD_HASH_SIZE]);

/*
 * BLOCKING (thread pool only). Whether pw (len bytes) is the password of hash (a stored hash
 * string, NUL-terminated). Returns 0 when it is; PASSWORD_EMISMATCH when not, or when pw could
 * never have been a password (too long, NUL: such a login is simply wrong); PASSWORD_EHASH for
 * a hash that is not an Argon2id hash string (a damaged store: log it).
 */
int password_verify(const char *hash, const char *pw, size_t len);

/*
 * BLOCKING (thread pool only). For a login to a name that has no account: spends what
 * password_verify() spends, against a fixed hash of the current cost, and returns
 * PASSWORD_EMISMATCH, so that the time of the answer does not tell which names exist
 * (PASSWORD_EHASH if that fixed hash was left behind by a change of cost: a bug).
 */
int password_verify_none(const char *pw, size_t len);

/*
 * Whether hash was made with other costs than today's: 1 (hash the password again after it
 * verified, and store the new hash), 0 (it is current), or PASSWORD_EHASH.
 */
int password_needs_rehash(const char *hash);

#endif
