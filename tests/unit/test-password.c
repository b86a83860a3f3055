/*
 * test-password.c: password rules, weak passwords (the common ones, those like the name),
 * Argon2id hashes at the chosen cost, verification, rehash detection, the fixed hash for unknown
 * names; prints what one hash costs on this machine.
 */
#include <sodium.h>
#include <time.h>

#include "password.h"
#include "test.h"

static double
clock_ms(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double
now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

TEST(init)
{
	ASSERT_EQ(password_init(), 0);
	ASSERT_EQ(password_init(), 0);
}

TEST(check)
{
	static char big[PASSWORD_MAX + 1];

	memset(big, 'x', sizeof big);
	ASSERT_EQ(password_check("12345678", 8), 0);
	ASSERT_EQ(password_check("1234567", 7), PASSWORD_ESHORT);
	ASSERT_EQ(password_check("", 0), PASSWORD_ESHORT);
	ASSERT_EQ(password_check(big, PASSWORD_MAX), 0);
	ASSERT_EQ(password_check(big, PASSWORD_MAX + 1), PASSWORD_ELONG);
	ASSERT_EQ(password_check("1234\0"
	                         "5678",
	                         9),
	          PASSWORD_ENUL);
	/* any other byte is fine: spaces, UTF-8, controls */
	ASSERT_EQ(password_check("p\xc3\xa4ss w\tord", 11), 0);
}

/* What a new password may not be: one of the common ones, or like the account's name. */
TEST(weak)
{
	const char *common[] = {"password",    "12345678",      "PASSWORD", "Password1", "iloveyou",
	                        "qwertyuiop",  "1q2w3e4r",      "11111111", "passw0rd",  "letmein1",
	                        "trustno1",    "1234567890",    "football", "sunshine",  "P@ssw0rd",
	                        "password123", "administrator", "abcd1234", "starwars"};
	const char *fine[] = {"correct horse battery staple",
	                      "a long enough secret",
	                      "Tr0ub4dor&3x",
	                      "vKq8#pLz2",
	                      "password is long here",
	                      "12345678 9"};
	size_t i;

	for (i = 0; i < sizeof common / sizeof common[0]; i++)
		if (password_weak(common[i], strlen(common[i]), "alice") != PASSWORD_ECOMMON)
			FAIL_AT_("\"%s\" is not taken for a common password", common[i]);
	for (i = 0; i < sizeof fine / sizeof fine[0]; i++)
		if (password_weak(fine[i], strlen(fine[i]), "alice") != 0)
			FAIL_AT_("\"%s\" is taken for weak", fine[i]);
	/* the name: equal, inside, backwards, without regard to case */
	ASSERT_EQ(password_weak("Victim_99", 9, "victim_99"), PASSWORD_ENAME);
	ASSERT_EQ(password_weak("myvictimpass", 12, "Victim"), PASSWORD_ENAME);
	ASSERT_EQ(password_weak("mitcivmitciv", 12, "victim"), PASSWORD_ENAME);
	ASSERT_EQ(password_weak("xx-MITCIV-xx", 12, "victim"), PASSWORD_ENAME);
	ASSERT_EQ(password_weak("vic tim 1234", 12, "victim"), 0);
	ASSERT_EQ(password_weak("a long enough secret", 20, NULL), 0);
	ASSERT_EQ(password_weak("a long enough secret", 20, ""), 0);
	/* a common password with a NUL or longer than the list's longest is just not common */
	ASSERT_EQ(password_weak("password\0x", 10, "bob"), 0);
	ASSERT(strstr(password_weak_text(PASSWORD_ECOMMON), "common") != NULL);
	ASSERT(strstr(password_weak_text(PASSWORD_ENAME), "name") != NULL);
}

TEST(hash_and_verify)
{
	char h1[PASSWORD_HASH_SIZE], h2[PASSWORD_HASH_SIZE];
	const char *pw = "correct horse battery staple";
	double t0, t1, c0, c1;

	/* wall time and this thread's CPU time: on a shared machine the first can be far longer */
	t0 = now_ms();
	c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
	ASSERT_EQ(password_hash(pw, strlen(pw), h1), 0);
	c1 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
	t1 = now_ms();
	printf("# password_hash: %.1f ms wall, %.1f ms CPU (m=%u KiB, t=%d)\n", t1 - t0, c1 - c0,
	       PASSWORD_MEMLIMIT / 1024, PASSWORD_OPSLIMIT);
	ASSERT(strncmp(h1, "$argon2id$v=19$m=19456,t=2,p=1$", 31) == 0);
	ASSERT(strlen(h1) < PASSWORD_HASH_SIZE);
	t0 = now_ms();
	ASSERT_EQ(password_verify(h1, pw, strlen(pw)), 0);
	t1 = now_ms();
	printf("# password_verify: %.1f ms\n", t1 - t0);
	ASSERT_EQ(password_verify(h1, "correct horse battery stapl", 27), PASSWORD_EMISMATCH);
	ASSERT_EQ(password_verify(h1, "Correct horse battery staple", 28), PASSWORD_EMISMATCH);
	ASSERT_EQ(password_verify(h1, "", 0), PASSWORD_EMISMATCH);
	/* a fresh salt each time */
	ASSERT_EQ(password_hash(pw, strlen(pw), h2), 0);
	ASSERT(strcmp(h1, h2) != 0);
	ASSERT_EQ(password_verify(h2, pw, strlen(pw)), 0);
	ASSERT_EQ(password_needs_rehash(h1), 0);
}

/* Rules apply to new passwords; a login with an impossible one is simply wrong. */
TEST(hash_refuses)
{
	char h[PASSWORD_HASH_SIZE];
	static char big[PASSWORD_MAX + 2];

	memset(big, 'y', sizeof big - 1);
	ASSERT_EQ(password_hash("short", 5, h), PASSWORD_ESHORT);
	ASSERT_EQ(password_hash(big, PASSWORD_MAX + 1, h), PASSWORD_ELONG);
	ASSERT_EQ(password_hash("abcd\0efgh", 9, h), PASSWORD_ENUL);
	ASSERT_EQ(password_hash("abcd\0efgh", 4, h), PASSWORD_ESHORT);
	ASSERT_EQ(password_hash("abcdefgh", 8, h), 0);
	ASSERT_EQ(password_verify(h, "abcdefgh\0", 9), PASSWORD_EMISMATCH);
	ASSERT_EQ(password_verify(h, big, PASSWORD_MAX + 1), PASSWORD_EMISMATCH);
	/* the NUL check is on the bytes given, not on C strings */
	ASSERT_EQ(password_verify(h, "abcdefgh\0xyz", 8), 0);
}

/* Hashes of other costs still verify, and ask to be replaced. */
TEST(rehash)
{
	char old[crypto_pwhash_STRBYTES];

	ASSERT_EQ(crypto_pwhash_str(old, "an old password", 15, crypto_pwhash_OPSLIMIT_MIN,
	                            crypto_pwhash_MEMLIMIT_MIN),
	          0);
	ASSERT_EQ(password_verify(old, "an old password", 15), 0);
	ASSERT_EQ(password_verify(old, "an old passwore", 15), PASSWORD_EMISMATCH);
	ASSERT_EQ(password_needs_rehash(old), 1);
}

TEST(bad_hash)
{
	char i13[crypto_pwhash_argon2i_STRBYTES];

	ASSERT_EQ(password_needs_rehash(""), PASSWORD_EHASH);
	ASSERT_EQ(password_needs_rehash("plaintext"), PASSWORD_EHASH);
	ASSERT_EQ(password_needs_rehash("$argon2id$v=19$m=19456,t=2,p=1$garbage"), PASSWORD_EHASH);
	ASSERT_EQ(password_verify("plaintext", "plaintext", 9), PASSWORD_EHASH);
	ASSERT_EQ(password_verify("$argon2id$v=19$m=19456,t=2,p=1$garbage", "password", 8),
	          PASSWORD_EHASH);
	/* another algorithm (Argon2i) is not ours */
	ASSERT_EQ(crypto_pwhash_argon2i_str(i13, "password", 8, 3, 8192 * 1024), 0);
	ASSERT_EQ(password_verify(i13, "password", 8), PASSWORD_EHASH);
}

/* Names without an account: always wrong, at the price of a real verification. */
TEST(verify_none)
{
	char h[PASSWORD_HASH_SIZE];
	double t0, t1, t2;

	ASSERT_EQ(password_verify_none("whatever1", 9), PASSWORD_EMISMATCH);
	ASSERT_EQ(password_verify_none("", 0), PASSWORD_EMISMATCH);
	ASSERT_EQ(password_hash("whatever1", 9, h), 0);
	t0 = now_ms();
	ASSERT_EQ(password_verify(h, "whatever2", 9), PASSWORD_EMISMATCH);
	t1 = now_ms();
	ASSERT_EQ(password_verify_none("whatever2", 9), PASSWORD_EMISMATCH);
	t2 = now_ms();
	printf("# verify of an account %.1f ms, of no account %.1f ms\n", t1 - t0, t2 - t1);
	/* not a timing test (the machine is shared), only: it did hash */
	ASSERT(t2 - t1 > 1);
}

int
main(void)
{
	RUN(init);
	RUN(check);
	RUN(weak);
	RUN(hash_and_verify);
	RUN(hash_refuses);
	RUN(rehash);
	RUN(bad_hash);
	RUN(verify_none);
	TEST_END();
}
