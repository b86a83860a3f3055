/*
 * password.c: Argon2id password hashes through libsodium.
 *
 * A thin layer over crypto_pwhash_str*: it fixes the cost, enforces the length rules, and turns
 * libsodium's -1 into codes a caller can answer with. It holds no state of its own (libsodium's
 * one-time initialisation is its own and thread-safe), allocates nothing that outlives a call
 * (libsodium allocates and frees the hash memory inside each call), and does no I/O but reading
 * the system's random source for salts. Everything that hashes is blocking: see password.h.
 */
#include "password.h"

#include <ctype.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "password-common.h"

_Static_assert(PASSWORD_HASH_SIZE == crypto_pwhash_STRBYTES, "room for libsodium's hash string");

/*
 * A hash, at today's cost, of a random password nobody knows (32 random bytes in hex, thrown
 * away): what password_verify_none() verifies against. If the cost above changes, make a new one
 * (until then password_verify_none() answers PASSWORD_EHASH, and the unit test fails).
 */
static const char password_none_hash[] = "$argon2id$v=19$m=19456,t=2,p=1$HzBzXz/VGAsT70NlDFvBYA$"
                                         "SN+ZYMkjXzIGHi5nJxSjmzZJJ1I+opnMaWv+Y1VNfBc";

int
password_init(void)
{
	return sodium_init() < 0 ? PASSWORD_EINIT : 0;
}

int
password_check(const char *pw, size_t len)
{
	if (len < PASSWORD_MIN)
		return PASSWORD_ESHORT;
	if (len > PASSWORD_MAX)
		return PASSWORD_ELONG;
	if (memchr(pw, '\0', len) != NULL)
		return PASSWORD_ENUL;
	return 0;
}

/* bsearch's comparison of a key with an entry of password_common. */
static int
password_common_cmp(const void *key, const void *entry)
{
	return strcmp(key, *(const char *const *)entry);
}

/* Whether the len bytes at hay hold needle (n bytes, n > 0) without regard to ASCII case. */
static int
password_holds(const char *hay, size_t len, const char *needle, size_t n)
{
	for (size_t i = 0; n <= len && i <= len - n; i++)
		if (strncasecmp(hay + i, needle, n) == 0)
			return 1;
	return 0;
}

int
password_weak(const char *pw, size_t len, const char *name)
{
	char lower[PASSWORD_COMMON_MAX + 1], rev[PASSWORD_NAME_MAX + 1];
	size_t n = name != NULL ? strnlen(name, PASSWORD_NAME_MAX + 1) : 0;

	if (len <= PASSWORD_COMMON_MAX && memchr(pw, '\0', len) == NULL) {
		for (size_t i = 0; i < len; i++)
			lower[i] = (char)tolower((unsigned char)pw[i]);
		lower[len] = '\0';
		if (bsearch(lower, password_common,
		            sizeof password_common / sizeof password_common[0],
		            sizeof password_common[0], password_common_cmp) != NULL)
			return PASSWORD_ECOMMON;
	}
	if (n == 0 || n > PASSWORD_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		rev[i] = name[n - 1 - i];
	rev[n] = '\0';
	if (password_holds(pw, len, name, n) || password_holds(pw, len, rev, n))
		return PASSWORD_ENAME;
	return 0;
}

const char *
password_weak_text(int rc)
{
	switch (rc) {
	case PASSWORD_ECOMMON:
		return "that password is one of the most common ones, which are tried first: pick "
		       "another (a few unrelated words make a good one)";
	case PASSWORD_ENAME:
		return "that password holds the account's name (or the name backwards): pick one "
		       "that does not";
	default:
		return "that password will not do";
	}
}

int
password_hash(const char *pw, size_t len, char hash[PASSWORD_HASH_SIZE])
{
	int rc;

	if ((rc = password_check(pw, len)) < 0)
		return rc;
	if (password_init() < 0)
		return PASSWORD_EINIT;
	if (crypto_pwhash_str(hash, pw, len, PASSWORD_OPSLIMIT, PASSWORD_MEMLIMIT) != 0)
		return PASSWORD_ENOMEM;
	return 0;
}

/*
 * A stored hash copied into a buffer of libsodium's size (its functions take char[128] and may
 * read that far), after the cheap checks: NUL within the size, the Argon2id prefix. 0 or
 * PASSWORD_EHASH.
 */
static int
password_load(const char *hash, char buf[PASSWORD_HASH_SIZE])
{
	size_t len = strnlen(hash, PASSWORD_HASH_SIZE);

	if (len == PASSWORD_HASH_SIZE || strncmp(hash, "$argon2id$", 10) != 0)
		return PASSWORD_EHASH;
	memset(buf, 0, PASSWORD_HASH_SIZE);
	memcpy(buf, hash, len);
	return 0;
}

int
password_needs_rehash(const char *hash)
{
	char buf[PASSWORD_HASH_SIZE];
	int rc;

	if (password_load(hash, buf) < 0)
		return PASSWORD_EHASH;
	rc = crypto_pwhash_str_needs_rehash(buf, PASSWORD_OPSLIMIT, PASSWORD_MEMLIMIT);
	return rc < 0 ? PASSWORD_EHASH : rc;
}

int
password_verify(const char *hash, const char *pw, size_t len)
{
	char buf[PASSWORD_HASH_SIZE];
	int rc;

	if (password_needs_rehash(hash) < 0 || password_load(hash, buf) < 0)
		return PASSWORD_EHASH;
	if (password_init() < 0)
		return PASSWORD_EINIT;
	rc = password_check(pw, len);
	if (rc == PASSWORD_ELONG || rc == PASSWORD_ENUL) {
		/* a password that could never have been set is wrong, but costs the same to find
		 * out */
		rc = crypto_pwhash_str_verify(buf, "", 0);
		(void)rc;
		return PASSWORD_EMISMATCH;
	}
	return crypto_pwhash_str_verify(buf, pw, len) == 0 ? 0 : PASSWORD_EMISMATCH;
}

int
password_verify_none(const char *pw, size_t len)
{
	int rc;

	/* a stale hash here would answer faster or slower than the accounts' own: say so */
	if (password_needs_rehash(password_none_hash) != 0)
		return PASSWORD_EHASH;
	rc = password_verify(password_none_hash, pw, len);
	return rc == 0 ? PASSWORD_EMISMATCH : rc;
}
