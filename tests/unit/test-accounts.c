/*
 * test-accounts.c: the game layer's set of accounts (server/accounts/accounts.c): the index in id order
 * that the operators' list pages through, and the rule of failed logins: per (account, address)
 * first, per address, and per account only from addresses it does not know once several
 * addresses fail; the known addresses, bounded, the oldest replaced, forgotten after their time.
 */
#include <stdio.h>
#include <string.h>

#include "accounts.h"
#include "test.h"

#define SEC 1000u

/* Add an account of id named name. Returns it, borrowed. */
static struct account *
add(struct accounts *as, int64_t id, const char *name)
{
	struct store_account row;

	memset(&row, 0, sizeof row);
	row.id = id;
	snprintf(row.name, sizeof row.name, "%s", name);
	snprintf(row.key, sizeof row.key, "%s", name);
	snprintf(row.skeleton, sizeof row.skeleton, "%s", name);
	return accounts_add(as, &row);
}

/* A login of key from addr at now that fails: 0 if it was tried, else the limit that refused. */
static int
fail(struct accounts *as, const struct account *a, const char *key, const char *addr, uint64_t now)
{
	uint64_t retry;
	int rc = accounts_login_check(as, a, key, addr, now, &retry);

	if (rc == 0)
		accounts_login_begin(as, a, key, addr, now);
	return rc;
}

TEST(order_by_id)
{
	struct accounts as;

	accounts_init(&as);
	add(&as, 5, "eve");
	add(&as, 2, "bob");
	add(&as, 9, "ida");
	add(&as, 7, "gus");
	ASSERT_EQ(accounts_count(&as), 4);
	ASSERT_EQ(accounts_at(&as, 0)->row.id, 2);
	ASSERT_EQ(accounts_at(&as, 3)->row.id, 9);
	ASSERT_EQ(accounts_after(&as, 0), 0);
	ASSERT_EQ(accounts_after(&as, 2), 1);
	ASSERT_EQ(accounts_after(&as, 6), 2);
	ASSERT_EQ(accounts_after(&as, 9), 4);
	ASSERT_EQ(accounts_after(&as, INT64_MAX), 4);
	ASSERT(accounts_at(&as, 4) == NULL);
	/* a row of a key again replaces it: one entry in the order */
	add(&as, 5, "eve");
	ASSERT_EQ(accounts_count(&as), 4);
	ASSERT_STR_EQ(accounts_at(&as, 1)->row.name, "eve");
	ASSERT_EQ(as.next_id, 10);
	accounts_close(&as);
}

TEST(one_address_never_locks_the_owner_out)
{
	struct accounts as;
	struct account *a;
	uint64_t now = 1000000, retry;
	int i, counted;

	accounts_init(&as);
	a = add(&as, 1, "owen");
	accounts_known_add(a, "10.0.0.1", now);
	/* one attacker: four failures, then its own pair and address wait */
	for (i = 0; i < 4; i++)
		ASSERT_EQ(fail(&as, a, "owen", "203.0.113.9", now), 0);
	ASSERT_EQ(fail(&as, a, "owen", "203.0.113.9", now), ACCOUNTS_LIMIT_PAIR);
	/* the owner, at home and at an address it never used: not slowed */
	ASSERT_EQ(accounts_login_check(&as, a, "owen", "10.0.0.1", now, &retry), 0);
	ASSERT_EQ(accounts_login_check(&as, a, "owen", "198.51.100.4", now, &retry), 0);
	counted = accounts_login_begin(&as, a, "owen", "198.51.100.4", now);
	ASSERT_EQ(counted, 1); /* an unknown address counts under the account's bound */
	accounts_login_success(&as, a, "owen", "198.51.100.4", counted, now);
	ASSERT(accounts_known(a, "198.51.100.4", now));
	ASSERT_EQ(accounts_login_begin(&as, a, "owen", "198.51.100.4", now), 0);
	accounts_close(&as);
}

TEST(many_addresses_slow_the_unknown_ones)
{
	struct accounts as;
	struct account *a;
	uint64_t now = 1000000, retry;
	char addr[32];
	int i;

	accounts_init(&as);
	a = add(&as, 1, "pia");
	accounts_known_add(a, "10.0.0.1", now);
	/* the first address fails 3 times (its free ones), the others once each */
	ASSERT_EQ(fail(&as, a, "pia", "203.0.113.1", now), 0);
	ASSERT_EQ(fail(&as, a, "pia", "203.0.113.1", now), 0);
	for (i = 0; i < ACCOUNTS_SPREAD_MIN; i++) {
		snprintf(addr, sizeof addr, "203.0.113.%d", i + 1);
		ASSERT_EQ(fail(&as, a, "pia", addr, now), 0);
	}
	ASSERT_EQ(accounts_login_check(&as, a, "pia", "198.51.100.4", now, &retry),
	          ACCOUNTS_LIMIT_ACCOUNT);
	ASSERT(retry > 0);
	ASSERT_EQ(accounts_login_check(&as, a, "pia", "10.0.0.1", now, &retry), 0);
	/* a name without an account is slowed alike: the answer tells no names */
	ASSERT_EQ(fail(&as, NULL, "nobody", "203.0.113.10", now), 0);
	ASSERT_EQ(fail(&as, NULL, "nobody", "203.0.113.10", now), 0);
	for (i = 0; i < ACCOUNTS_SPREAD_MIN; i++) {
		snprintf(addr, sizeof addr, "203.0.113.%d", i + 10);
		ASSERT_EQ(fail(&as, NULL, "nobody", addr, now), 0);
	}
	ASSERT_EQ(accounts_login_check(&as, NULL, "nobody", "198.51.100.4", now, &retry),
	          ACCOUNTS_LIMIT_ACCOUNT);
	/* an operator's new password forgets the account's failures */
	accounts_login_forget(&as, "pia");
	ASSERT_EQ(accounts_login_check(&as, a, "pia", "198.51.100.4", now, &retry), 0);
	/* fifteen quiet minutes forget them too */
	ASSERT_EQ(accounts_login_check(&as, NULL, "nobody", "198.51.100.4", now + 15 * 60 * SEC,
	                               &retry),
	          0);
	accounts_close(&as);
}

TEST(known_addresses)
{
	struct accounts as;
	struct account *a;
	char addr[32];
	uint64_t now = 1000;

	accounts_init(&as);
	a = add(&as, 1, "kim");
	ASSERT(!accounts_known(a, "10.0.0.1", now));
	ASSERT(!accounts_known(NULL, "10.0.0.1", now));
	for (int i = 0; i < ACCOUNTS_KNOWN_MAX; i++) {
		snprintf(addr, sizeof addr, "10.0.0.%d", i + 1);
		accounts_known_add(a, addr, now + (uint64_t)i);
	}
	accounts_known_add(a, "10.0.0.1", now + 100); /* again: its time renewed, no new slot */
	accounts_known_add(a, "10.0.1.1", now + 101); /* the oldest (10.0.0.2) goes */
	ASSERT(accounts_known(a, "10.0.0.1", now + 200));
	ASSERT(!accounts_known(a, "10.0.0.2", now + 200));
	ASSERT(accounts_known(a, "10.0.0.3", now + 200));
	ASSERT(accounts_known(a, "10.0.1.1", now + 200));
	ASSERT(!accounts_known(a, "", now));
	ASSERT(!accounts_known(a, "10.0.1.1", now + 101 + ACCOUNTS_KNOWN_MS));
	accounts_close(&as);
}

int
main(void)
{
	RUN(order_by_id);
	RUN(one_address_never_locks_the_owner_out);
	RUN(many_addresses_slow_the_unknown_ones);
	RUN(known_addresses);
	TEST_END();
}
