/*
 * names.h: account names, guest names and the keys that make two names the same.
 *
 * Account names are ASCII (3 to 20 of A-Z a-z 0-9 _ -) and unique without regard to case:
 * names_account_key() is the key to hold unique. A guest still picks any display name, but one
 * that looks like a registered name must be refused. Two names look alike when their confusable
 * skeletons (Unicode TS #39, ICU's uspoof_getSkeleton) agree, taken after case folding and after
 * removing the invisible characters (Default_Ignorable_Code_Point, e.g. U+200B), and with
 * combining marks dropped: "alice", "ALICE", "аlice" (Cyrillic а), "al\u200bice" and "alİce" all
 * have the skeleton of "alice". The store keeps names_skeleton() of each account; a guest name is
 * refused when any of its names_guest_keys() is the skeleton of an account, or when
 * names_imitates_computer() says it passes for the server's computer player.
 *
 * The loose keys (names_loose_keys()) go further, for guests' names against accounts': after
 * Unicode's compatibility composition (NFKC: "ⓥⓘⓒⓣⓘⓜ", "ｖｉｃｔｉｍ" and a no-break space become
 * plain letters and a space) and with everything but letters and digits removed (spaces,
 * punctuation, symbols), "vi ctim", "victim." and "vic_tim" are "victim" too. A guest's name is
 * trimmed first (names_trim()). Reserved names (names_reserved(): "admin", "root", "moderator",
 * "hokitod" ...) are compared by their loose keys with the digits of "l33t" writing read as
 * letters ("Adm1n", "r00t").
 *
 * Keys are opaque UTF-8 strings (the skeleton of "computer" is "cornputer"): compare them with
 * strcmp, store them, never show them. They depend on ICU's confusable data: after an ICU upgrade
 * the store's skeletons are recomputed from the names (names_skeleton() is cheap, about 2 us).
 *
 * Every function is reentrant and may run on any thread: each call opens its own spoof checker
 * (uspoof_open() costs about 0.3 us here, it clones ICU's shared data) and allocates nothing that
 * outlives the call. Nothing here does I/O.
 */
#ifndef HOKITO_SERVER_NAMES_H
#define HOKITO_SERVER_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define NAMES_ACCOUNT_MIN 3  /* characters in an account name, at least */
#define NAMES_ACCOUNT_MAX 20 /* ... at most */
/* Bytes of a name these functions take: a guest name is 1 to 32 code points, 128 bytes at most. */
#define NAMES_INPUT_MAX   128
/* Bytes of a key with its NUL: enough for any name of letters; a longer key gets NAMES_ENOSPC. */
#define NAMES_KEY_MAX     1024

/* Errors: a negative return. */
enum names_error {
	NAMES_EINVAL = -1, /* not a valid account name; not UTF-8; longer than NAMES_INPUT_MAX */
	NAMES_ENOSPC = -2, /* the caller's buffer is too small */
	NAMES_EICU = -3,   /* ICU failed (its data missing): refuse the name, log it */
};

/* Whether name (NUL-terminated) is a valid account name: 3 to 20 of A-Z a-z 0-9 _ -. */
bool names_account_valid(const char *name);

/*
 * The key under which an account name is unique: the name in lower case ("Alice" -> "alice").
 * Writes it with its NUL to key (NAMES_ACCOUNT_MAX + 1 bytes are enough) and returns its length,
 * or NAMES_EINVAL for a name that is not a valid account name, NAMES_ENOSPC.
 */
int names_account_key(const char *name, char *key, size_t size);

/*
 * The confusable skeleton of a name (any UTF-8 name, an account's or a guest's): invisible
 * characters removed, case folded, uspoof_getSkeleton, combining marks removed, folded again.
 * Writes it with its NUL to key and returns its length in bytes, or NAMES_EINVAL (not UTF-8, too
 * long), NAMES_ENOSPC, NAMES_EICU. The store keeps it with each account (indexed).
 */
int names_skeleton(const char *name, char *key, size_t size);

/*
 * The keys to look a guest name up by among the accounts' skeletons: keys[0] is
 * names_skeleton(name); keys[1], when it differs, is the skeleton taken before case folding as
 * well, which catches capitals of other scripts ("СОМРUТЕR" in Cyrillic capitals, whose lower
 * case letters do not look Latin) and a capital I for an l. The name collides with an account
 * when any key is that account's skeleton. Returns how many keys were written (1 or 2), or
 * NAMES_EINVAL, NAMES_EICU.
 */
int names_guest_keys(const char *name, char keys[2][NAMES_KEY_MAX]);

/*
 * name (UTF-8) without the White_Space and Default_Ignorable_Code_Point characters at its start
 * and end (" alice\u00a0" -> "alice"), written with its NUL to out. Returns its length in bytes
 * (0: nothing but those), or NAMES_EINVAL (not UTF-8, longer than NAMES_INPUT_MAX), NAMES_ENOSPC.
 */
int names_trim(const char *name, char *out, size_t size);

/*
 * The loose keys of a name: as names_guest_keys() (keys[1] taken with a skeleton before case
 * folding too), each after NFKC and with everything but letters and digits removed. A guest's
 * name collides with an account when any of its loose keys is the account's
 * (names_loose_key()). Returns how many keys were written (1 or 2), or NAMES_EINVAL, NAMES_EICU.
 */
int names_loose_keys(const char *name, char keys[2][NAMES_KEY_MAX]);

/* The loose key of an account's name (keys[0] of names_loose_keys()) into key: its length, or
 * NAMES_EINVAL, NAMES_ENOSPC, NAMES_EICU. */
int names_loose_key(const char *name, char *key, size_t size);

/*
 * The keys a name is compared with the reserved words by: its loose keys, with the digits 0 1 3
 * 4 5 7 8 9 read as the letters o l e a s t b g and i as l. Returns how many (1 or 2), or
 * NAMES_EINVAL, NAMES_EICU.
 */
int names_reserved_keys(const char *name, char keys[2][NAMES_KEY_MAX]);

/* The i-th reserved word (from 0), or NULL past the last. Static strings. */
const char *names_reserved_word(size_t i);

/*
 * Whether name is one of the reserved words, or looks like one (any of its names_reserved_keys()
 * is a word's): "Admin", "ADM1N", "r00t", "Mod", "hokitod", "ⓢⓔⓡⓥⓔⓡ". Names that cannot be
 * checked count as reserved. Computes the words' keys at each call (about 50 us): a caller that
 * checks many names keeps the words' keys (accounts.c does).
 */
bool names_reserved(const char *name);

/*
 * Whether a guest name passes for the server's computer player, whose seats are named
 * "computer (level N)" (PROTOCOL.md, section 7.1): any name whose keys, with everything but
 * letters and digits removed, begin with the skeleton of "computer" ("Computer", "c0mputer lvl 9",
 * "СОМРUТЕR", "computer_8", "ⓒⓞⓜⓟⓤⓣⓔⓡ"): its loose keys are compared. Names that cannot be checked
 * (not UTF-8, ICU failing) count as imitations: refused is the safe answer.
 */
bool names_imitates_computer(const char *name);

#endif
