/*
 * test-names.c: account name rules, the case-insensitive key, confusable skeletons of look-alike
 * names (other scripts, case, invisible characters, dots and accents), the loose keys (NFKC,
 * spaces and punctuation removed: circled and fullwidth letters, "vi ctim", "victim."), the
 * trimming of guest names, the reserved words and their look-alikes, and imitations of the
 * computer player's name. Also times a skeleton, to keep "cheap enough per call" true.
 */
#include <pthread.h>
#include <time.h>

#include "names.h"
#include "test.h"

/* Whether the guest name collides with the account name. */
static bool
collides(const char *guest, const char *account)
{
	char keys[2][NAMES_KEY_MAX], skel[NAMES_KEY_MAX];
	int i, n = names_guest_keys(guest, keys);

	if (n < 1 || names_skeleton(account, skel, sizeof skel) < 0)
		return false;
	for (i = 0; i < n; i++) {
		if (strcmp(keys[i], skel) == 0)
			return true;
	}
	return false;
}

/* Whether the guest name collides with the account name by a loose key. */
static bool
collides_loose(const char *guest, const char *account)
{
	char keys[2][NAMES_KEY_MAX], key[NAMES_KEY_MAX];
	int i, n = names_loose_keys(guest, keys);

	if (n < 1 || names_loose_key(account, key, sizeof key) < 0)
		return false;
	for (i = 0; i < n; i++) {
		if (strcmp(keys[i], key) == 0)
			return true;
	}
	return false;
}

TEST(account_valid)
{
	ASSERT(names_account_valid("bob"));
	ASSERT(names_account_valid("Alice_99"));
	ASSERT(names_account_valid("a-b_c"));
	ASSERT(names_account_valid("abcdefghijklmnopqrst")); /* 20 */
	ASSERT(names_account_valid("___"));
	ASSERT(!names_account_valid("abcdefghijklmnopqrstu")); /* 21 */
	ASSERT(!names_account_valid("ab"));
	ASSERT(!names_account_valid(""));
	ASSERT(!names_account_valid("al ice"));
	ASSERT(!names_account_valid("alice!"));
	ASSERT(!names_account_valid("\xd0\xb0lice")); /* Cyrillic a */
	ASSERT(!names_account_valid("al.ice"));
	ASSERT(!names_account_valid("alice\n"));
}

TEST(account_key)
{
	char key[NAMES_ACCOUNT_MAX + 1];

	ASSERT_EQ(names_account_key("Alice_99", key, sizeof key), 8);
	ASSERT_STR_EQ(key, "alice_99");
	ASSERT_EQ(names_account_key("ALICE", key, sizeof key), 5);
	ASSERT_STR_EQ(key, "alice");
	ASSERT_EQ(names_account_key("abcdefghijklmnopqrsT", key, sizeof key), 20);
	ASSERT_STR_EQ(key, "abcdefghijklmnopqrst");
	ASSERT_EQ(names_account_key("al ice", key, sizeof key), NAMES_EINVAL);
	ASSERT_EQ(names_account_key("alice", key, 5), NAMES_ENOSPC);
}

/* The brief's cases: all of them are "alice". */
TEST(skeleton_lookalikes)
{
	const char *same[] = {
	        "alice",
	        "ALICE",
	        "Alice",
	        "\xd0\xb0lice",      /* Cyrillic small a */
	        "al\xe2\x80\x8bice", /* zero-width space */
	        "al\xc4\xb0"
	        "ce", /* capital I with dot above */
	        "\xe2\x80\x8e"
	        "alice",         /* left-to-right mark */
	        "a\xc2\xadlice", /* soft hyphen */
	        "al\xc3\xad"
	        "ce", /* i with acute */
	        "al\xe1\xbb\x8b"
	        "ce",               /* i with dot below */
	        "\xef\xbd\x81lice", /* fullwidth a */
	        "\xf0\x9d\x90\x9a"
	        "lice",  /* mathematical bold a */
	        "a1ice", /* digit one for l */
	        "al\xd1\x96"
	        "ce",           /* Cyrillic-Ukrainian i */
	        "\xd0\x90LICE", /* Cyrillic capital A */
	};
	char want[NAMES_KEY_MAX], got[NAMES_KEY_MAX];
	size_t i;

	ASSERT(names_skeleton("alice", want, sizeof want) > 0);
	ASSERT_STR_EQ(want, "alice");
	for (i = 0; i < sizeof same / sizeof same[0]; i++) {
		ASSERT(names_skeleton(same[i], got, sizeof got) > 0);
		if (strcmp(got, want) != 0)
			FAIL_AT_("skeleton of case %zu is \"%s\", not \"%s\"", i, got, want);
		if (!collides(same[i], "alice"))
			FAIL_AT_("case %zu does not collide with alice", i);
	}
}

TEST(skeleton_distinct)
{
	const char *other[] = {"alicia", "bob", "alice2", "al ice", "malice", "alce"};
	char want[NAMES_KEY_MAX], got[NAMES_KEY_MAX];
	size_t i;

	ASSERT(names_skeleton("alice", want, sizeof want) > 0);
	for (i = 0; i < sizeof other / sizeof other[0]; i++) {
		ASSERT(names_skeleton(other[i], got, sizeof got) > 0);
		if (strcmp(got, want) == 0)
			FAIL_AT_("\"%s\" has the skeleton of alice", other[i]);
		if (collides(other[i], "alice"))
			FAIL_AT_("\"%s\" collides with alice", other[i]);
	}
	/* other scripts' own names stay names */
	ASSERT(names_skeleton("\xd0\xb1\xd0\xbe\xd1\x80\xd0\xb8\xd1\x81", got, sizeof got) > 0);
	ASSERT(names_skeleton("\xe5\xa4\xaa\xe9\x83\x8e", got, sizeof got) > 0);
	ASSERT(strlen(got) > 0);
}

/* Look-alikes the skeleton catches among ASCII letters too. */
TEST(skeleton_ascii_confusables)
{
	ASSERT(collides("rnary", "mary"));
	ASSERT(collides("mary", "rnary"));
	ASSERT(collides("b0b", "bob"));
	ASSERT(collides("B0B", "bob"));
	ASSERT(collides("BOB", "bob"));
	/* a capital I for an l: caught by the second key (skeleton before folding) */
	ASSERT(collides("AIICE", "allce"));
	ASSERT(collides("aIice", "alice"));
}

/* Capitals of other scripts look Latin even when their lower case letters do not. */
TEST(guest_keys_capitals)
{
	char keys[2][NAMES_KEY_MAX];
	/* "СОМРUТЕR": Cyrillic С О М Р, Latin U, Cyrillic Т Е, Latin R */
	const char *fake = "\xd0\xa1\xd0\x9e\xd0\x9c\xd0\xa0U\xd0\xa2\xd0\x95R";

	ASSERT_EQ(names_guest_keys(fake, keys), 2);
	ASSERT(collides(fake, "computer"));
	ASSERT(collides("\xd0\x92\xd0\x9e\xd0\x92", "bob")); /* Cyrillic ВОВ */
	ASSERT_EQ(names_guest_keys("alice", keys), 1);
	ASSERT_STR_EQ(keys[0], "alice");
}

TEST(skeleton_errors)
{
	char key[NAMES_KEY_MAX], keys[2][NAMES_KEY_MAX];
	char longname[NAMES_INPUT_MAX + 2];

	ASSERT_EQ(names_skeleton("al\xff"
	                         "ce",
	                         key, sizeof key),
	          NAMES_EINVAL);
	ASSERT_EQ(names_skeleton("\xc0\xaf", key, sizeof key), NAMES_EINVAL);     /* overlong */
	ASSERT_EQ(names_skeleton("\xed\xa0\x80", key, sizeof key), NAMES_EINVAL); /* surrogate */
	ASSERT_EQ(names_guest_keys("\xe2\x82", keys), NAMES_EINVAL);              /* cut short */
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	ASSERT_EQ(names_skeleton(longname, key, sizeof key), NAMES_EINVAL);
	longname[NAMES_INPUT_MAX] = '\0';
	ASSERT_EQ(names_skeleton(longname, key, sizeof key), NAMES_INPUT_MAX);
	ASSERT_EQ(names_skeleton("alice", key, 5), NAMES_ENOSPC);
	ASSERT_EQ(names_skeleton("alice", key, 6), 5);
	/* only invisible characters: an empty key (the lobby refuses such names before) */
	ASSERT_EQ(names_skeleton("\xe2\x80\x8b", key, sizeof key), 0);
}

TEST(computer_imitations)
{
	const char *fake[] = {
	        "computer (level 8)",
	        "computer (level 1)",
	        "Computer (Level 8)",
	        "computer",
	        "COMPUTER",
	        "c0mputer (1evel 8)",
	        "cornputer (level 8)",
	        "computer_8",
	        "computer-level-9",
	        " computer (level 99)",
	        "c\xe2\x80\x8bomputer (level 8)",                     /* zero-width space */
	        "\xd1\x81omputer (level 8)",                          /* Cyrillic es */
	        "\xd0\xa1\xd0\x9e\xd0\x9c\xd0\xa0U\xd0\xa2\xd0\x95R", /* Cyrillic capitals */
	        "\xef\xbd\x83omputer",                                /* fullwidth c */
	        "(computer) level 8",
	        "computer\xe3\x80\x80(level 8)", /* ideographic space */
	        "c.o.m.p.u.t.e.r",
	        ("\xe2\x93\x92\xe2\x93\x9e\xe2\x93\x9c\xe2\x93\x9f\xe2\x93\xa4\xe2\x93\xa3"
	         "\xe2\x93\x94\xe2\x93\xa1"), /* circled */
	};
	const char *fine[] = {"alice",
	                      "comp",
	                      "compute",
	                      "my computer",
	                      "level 8",
	                      "commuter",
	                      "\xe5\xa4\xaa\xe9\x83\x8e"};
	size_t i;

	for (i = 0; i < sizeof fake / sizeof fake[0]; i++) {
		if (!names_imitates_computer(fake[i]))
			FAIL_AT_("\"%s\" (case %zu) passes for the computer", fake[i], i);
	}
	for (i = 0; i < sizeof fine / sizeof fine[0]; i++) {
		if (names_imitates_computer(fine[i]))
			FAIL_AT_("\"%s\" is taken for the computer", fine[i]);
	}
	/* what cannot be checked is refused */
	ASSERT(names_imitates_computer("comp\xff"));
}

/* Many threads at once, each comparing its own names: the same answers as alone. */
static void *
names_thread(void *arg)
{
	int i, *bad = arg;
	char key[NAMES_KEY_MAX];

	for (i = 0; i < 2000; i++) {
		if (names_skeleton(i % 2 ? "\xd0\xb0lice" : "ALICE", key, sizeof key) != 5 ||
		    strcmp(key, "alice") != 0 || !names_imitates_computer("c0mputer"))
			(*bad)++;
	}
	return NULL;
}

TEST(threads)
{
	pthread_t t[4];
	int bad[4] = {0, 0, 0, 0};
	int i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, names_thread, &bad[i]), 0);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ASSERT_EQ(bad[i], 0);
	}
}

/* The cost of one call (opening its own checker each time), printed as a TAP comment. */
TEST(cost)
{
	struct timespec a, b;
	char key[NAMES_KEY_MAX], keys[2][NAMES_KEY_MAX];
	int i, n = 20000;
	double ns;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		names_skeleton("Alice_99", key, sizeof key);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / n;
	printf("# names_skeleton: %.2f us a call\n", ns / 1000);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		names_guest_keys("Alice_99", keys);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / n;
	printf("# names_guest_keys: %.2f us a call\n", ns / 1000);
	/* generous: a sanitizer build is many times slower; a login costs milliseconds */
	ASSERT(ns < 1e6);
}

/* The look-alikes that a skeleton alone let through: each collides with "victim" now. */
TEST(loose_lookalikes)
{
	const char *same[] = {
	        "victim",
	        "victim ",
	        " victim",
	        "victim\xc2\xa0", /* no-break space */
	        "\xef\xbd\x96\xef\xbd\x89\xef\xbd\x83\xef\xbd\x94\xef\xbd\x89\xef"
	        "\xbd\x8d", /* fullwidth
	                     */
	        "\xe2\x93\xa5\xe2\x93\x98\xe2\x93\x92\xe2\x93\xa3\xe2\x93\x98\xe2"
	        "\x93\x9c", /* circled
	                     */
	        "vi ctim",
	        "victim.",
	        "vic_tim",
	        "v-i-c-t-i-m",
	        "VICTIM!",
	        "\xf0\x9d\x95\xa7ictim", /* double-struck v */
	        "v\xe2\x80\x8bictim",    /* zero-width space */
	        "vict\xc4\xb1m",         /* dotless i */
	        "victim\xe3\x80\x80",    /* ideographic space */
	        "(victim)",
	        "\xe2\x92\xb1ictim", /* parenthesized v */
	};
	const char *other[] = {"victims", "victor", "vic", "evictim", "victim2", "vi", "bob"};
	size_t i;

	for (i = 0; i < sizeof same / sizeof same[0]; i++)
		if (!collides_loose(same[i], "victim"))
			FAIL_AT_("case %zu (\"%s\") does not collide with victim", i, same[i]);
	for (i = 0; i < sizeof other / sizeof other[0]; i++)
		if (collides_loose(other[i], "victim"))
			FAIL_AT_("\"%s\" collides with victim", other[i]);
	/* account names that differ only by _ and - have one loose key */
	ASSERT(collides_loose("a_b_c", "abc"));
	ASSERT(collides_loose("Mary-Ann", "mary_ann"));
}

TEST(trim)
{
	char out[NAMES_INPUT_MAX + 1];

	ASSERT_EQ(names_trim("alice", out, sizeof out), 5);
	ASSERT_STR_EQ(out, "alice");
	ASSERT_EQ(names_trim("  alice\t", out, sizeof out), 5);
	ASSERT_STR_EQ(out, "alice");
	ASSERT_EQ(names_trim("\xc2\xa0"
	                     "alice\xe2\x80\x8b\xe3\x80\x80",
	                     out, sizeof out),
	          5);
	ASSERT_STR_EQ(out, "alice");
	/* inside, spaces stay */
	ASSERT_EQ(names_trim(" al ice ", out, sizeof out), 6);
	ASSERT_STR_EQ(out, "al ice");
	ASSERT_EQ(names_trim(" \xc3\xa9 ", out, sizeof out), 2);
	ASSERT_STR_EQ(out, "\xc3\xa9");
	ASSERT_EQ(names_trim("   ", out, sizeof out), 0);
	ASSERT_STR_EQ(out, "");
	ASSERT_EQ(names_trim("ab\xff", out, sizeof out), NAMES_EINVAL);
	ASSERT_EQ(names_trim("alice", out, 5), NAMES_ENOSPC);
}

TEST(reserved)
{
	const char *fake[] = {
	        "admin",
	        "Admin",
	        "ADMIN",
	        "Adm1n",
	        "adm1n",
	        "AdmIn",
	        "4dmin",
	        "a d m i n",
	        "admin.",
	        "administrator",
	        "root",
	        "R00T",
	        "moderator",
	        "m0derat0r",
	        "mod",
	        "M0D",
	        "rnod",
	        "hokitod",
	        "Hokito",
	        "system",
	        "5y5tem",
	        "server",
	        "staff",
	        "support",
	        "official",
	        "operator",
	        "sysop",
	        "superuser",
	        "\xe2\x93\x90\xe2\x93\x93\xe2\x93\x9c\xe2\x93\x98\xe2\x93\x9d", /* circled admin */
	        "\xef\xbd\x92\xef\xbd\x8f\xef\xbd\x8f\xef\xbd\x94",             /* fullwidth root */
	        ("\xd0\xb0"
	         "dmin"), /* Cyrillic a */
	        " admin ",
	};
	const char *fine[] = {"alice", "admiral",        "rooted",  "modern", "serverless",
	                      "bob",   "administrators", "staffan", "moda",   "victim"};
	size_t i;

	for (i = 0; i < sizeof fake / sizeof fake[0]; i++)
		if (!names_reserved(fake[i]))
			FAIL_AT_("\"%s\" (case %zu) is not reserved", fake[i], i);
	for (i = 0; i < sizeof fine / sizeof fine[0]; i++)
		if (names_reserved(fine[i]))
			FAIL_AT_("\"%s\" is taken for reserved", fine[i]);
	ASSERT_STR_EQ(names_reserved_word(0), "admin");
	ASSERT(names_reserved_word(1000) == NULL);
	ASSERT(names_reserved("adm\xff")); /* what cannot be checked is refused */
}

int
main(void)
{
	RUN(account_valid);
	RUN(account_key);
	RUN(skeleton_lookalikes);
	RUN(skeleton_distinct);
	RUN(skeleton_ascii_confusables);
	RUN(guest_keys_capitals);
	RUN(skeleton_errors);
	RUN(computer_imitations);
	RUN(loose_lookalikes);
	RUN(trim);
	RUN(reserved);
	RUN(threads);
	RUN(cost);
	TEST_END();
}
