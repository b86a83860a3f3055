/*
 * test-throttle.c: the login throttling policy: free failures, doubling delays up to the cap,
 * bursts counted at once, success taken back, quiet keys forgotten, the bound on keys with its
 * eviction order, and the keys of IPv4, IPv6 and mapped addresses.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "throttle.h"
#include "test.h"

#define SEC  1000u
#define MIN_ 60000u

/* An attempt at now: the wait it gets (0 when allowed). */
static uint64_t
attempt(struct throttle *t, const char *key, uint64_t now)
{
	uint64_t retry = 0;
	int rc = throttle_begin(t, key, now, &retry);

	return rc == 0 ? 0 : rc == THROTTLE_EAGAIN ? retry : UINT64_MAX;
}

TEST(growing_delays)
{
	struct throttle *t = throttle_create(&throttle_config_default, 1);
	uint64_t now = 1000000, want = SEC;
	int i;

	/* three free failures, then 1 s */
	ASSERT_EQ(attempt(t, "alice", now), 0);
	ASSERT_EQ(attempt(t, "alice", now), 0);
	ASSERT_EQ(attempt(t, "alice", now), 0);
	ASSERT_EQ(attempt(t, "alice", now), 0);
	ASSERT_EQ(attempt(t, "alice", now), SEC);
	ASSERT_EQ(attempt(t, "alice", now + 400), 600);
	/* each wait doubles: 1, 2, 4, ..., 256 s, then 5 min for ever */
	for (i = 0; i < 12; i++) {
		now += want;
		ASSERT_EQ(attempt(t, "alice", now - 1), 1);
		ASSERT_EQ(attempt(t, "alice", now), 0);
		want = want * 2 < 5 * MIN_ ? want * 2 : 5 * MIN_;
		ASSERT_EQ(attempt(t, "alice", now), want);
	}
	ASSERT_EQ(want, 5 * MIN_);
	/* other keys are not touched */
	ASSERT_EQ(attempt(t, "bob", now), 0);
	ASSERT_EQ(throttle_count(t), 2);
	throttle_free(t);
}

TEST(check_counts_nothing)
{
	struct throttle *t = throttle_create(&throttle_config_default, 2);
	uint64_t retry = 0;
	int i;

	for (i = 0; i < 10; i++)
		ASSERT_EQ(throttle_check(t, "alice", 5000, &retry), 0);
	ASSERT_EQ(throttle_count(t), 0);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(attempt(t, "alice", 5000), 0);
	ASSERT_EQ(throttle_check(t, "alice", 5500, &retry), THROTTLE_EAGAIN);
	ASSERT_EQ(retry, 500);
	ASSERT_EQ(throttle_check(t, "alice", 6000, &retry), 0);
	/* a refused attempt is not counted either */
	ASSERT_EQ(attempt(t, "alice", 5999), 1);
	ASSERT_EQ(attempt(t, "alice", 6000), 0);
	ASSERT_EQ(attempt(t, "alice", 6000), 2 * SEC);
	/* the count of failures, as throttle_failures() reads it: 0 once quiet or unknown */
	ASSERT_EQ(throttle_failures(t, "alice", 6000), 5);
	ASSERT_EQ(throttle_failures(t, "bob", 6000), 0);
	ASSERT_EQ(throttle_failures(t, "", 6000), 0);
	ASSERT_EQ(throttle_failures(t, "alice", 6000 + 15 * 60 * SEC), 0);
	throttle_free(t);
}

/* Right passwords: an account is forgotten, an address gets its attempt back. */
TEST(success)
{
	struct throttle *t = throttle_create(&throttle_config_default, 3);
	int i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(attempt(t, "alice", 0), 0);
	ASSERT_EQ(attempt(t, "alice", 0), SEC);
	throttle_forget(t, "alice");
	ASSERT_EQ(throttle_count(t), 0);
	ASSERT_EQ(attempt(t, "alice", 0), 0);
	throttle_forget(t, "nobody");

	/* people behind one address logging in rightly do not slow each other */
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(attempt(t, "192.0.2.1", (uint64_t)i), 0);
		throttle_success(t, "192.0.2.1");
	}
	ASSERT_EQ(throttle_check(t, "192.0.2.1", 50, &(uint64_t){0}), 0);
	/* failures stay counted: 4 wrong, one right takes one back */
	for (i = 0; i < 4; i++)
		ASSERT_EQ(attempt(t, "192.0.2.1", 100), 0);
	ASSERT_EQ(attempt(t, "192.0.2.1", 100), SEC);
	throttle_success(t, "192.0.2.1");
	ASSERT_EQ(attempt(t, "192.0.2.1", 100), 0); /* 3 failures: free again */
	ASSERT_EQ(attempt(t, "192.0.2.1", 100), SEC);
	throttle_success(t, "unknown");
	throttle_free(t);
}

/* A burst sent at once is counted before any attempt is answered. */
TEST(burst)
{
	struct throttle *t = throttle_create(&throttle_config_default, 4);
	int i, allowed = 0;

	for (i = 0; i < 100; i++)
		allowed += attempt(t, "alice", 777) == 0;
	ASSERT_EQ(allowed, 4);
	throttle_free(t);
}

TEST(quiet_forgotten)
{
	struct throttle *t = throttle_create(&throttle_config_default, 5);
	uint64_t now = 0;
	int i;

	for (i = 0; i < 20; i++) {
		uint64_t w = attempt(t, "alice", now);

		now += w;
		if (w > 0)
			ASSERT_EQ(attempt(t, "alice", now), 0);
	}
	ASSERT_EQ(attempt(t, "alice", now), 5 * MIN_);
	/* 15 quiet minutes after the last attempt: a fresh start */
	ASSERT_EQ(throttle_check(t, "alice", now + 15 * MIN_ - 1, &(uint64_t){0}), 0);
	ASSERT_EQ(throttle_count(t), 1);
	ASSERT_EQ(attempt(t, "alice", now + 15 * MIN_), 0);
	ASSERT_EQ(attempt(t, "alice", now + 15 * MIN_), 0);
	ASSERT_EQ(attempt(t, "alice", now + 15 * MIN_), 0);
	ASSERT_EQ(attempt(t, "alice", now + 15 * MIN_), 0);
	ASSERT_EQ(attempt(t, "alice", now + 15 * MIN_), SEC);
	/* expire visits only the quiet ones */
	ASSERT_EQ(attempt(t, "bob", now + 20 * MIN_), 0);
	throttle_expire(t, now + 30 * MIN_ - 1);
	ASSERT_EQ(throttle_count(t), 2);
	throttle_expire(t, now + 30 * MIN_);
	ASSERT_EQ(throttle_count(t), 1);
	throttle_expire(t, now + 35 * MIN_);
	ASSERT_EQ(throttle_count(t), 0);
	throttle_free(t);
}

/* At most max_keys: quiet keys go first, then the oldest, counted. */
TEST(bounded)
{
	struct throttle_config cfg = throttle_config_default;
	struct throttle *t;
	char key[THROTTLE_KEY_MAX];
	int i;

	cfg.max_keys = 100;
	t = throttle_create(&cfg, 6);
	for (i = 0; i < 100; i++) {
		snprintf(key, sizeof key, "10.0.0.%d", i);
		ASSERT_EQ(attempt(t, key, (uint64_t)i * SEC), 0);
	}
	ASSERT_EQ(throttle_count(t), 100);
	/* full, nothing quiet: the oldest (10.0.0.0) goes */
	ASSERT_EQ(attempt(t, "alice", 100 * SEC), 0);
	ASSERT_EQ(throttle_count(t), 100);
	ASSERT_EQ(throttle_evicted(t), 1);
	/* 10.0.0.1 was touched again, so 10.0.0.2 is now the oldest */
	ASSERT_EQ(attempt(t, "10.0.0.1", 101 * SEC), 0);
	ASSERT_EQ(attempt(t, "bob", 102 * SEC), 0);
	ASSERT_EQ(throttle_evicted(t), 2);
	ASSERT_EQ(attempt(t, "10.0.0.1", 103 * SEC), 0);
	ASSERT_EQ(attempt(t, "10.0.0.1", 103 * SEC), 0);
	ASSERT_EQ(attempt(t, "10.0.0.1", 103 * SEC), SEC); /* still tracked: 4 failures */
	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof key, "flood-%d", i);
		ASSERT_EQ(attempt(t, key, 200 * SEC), 0);
		ASSERT(throttle_count(t) <= 100);
	}
	/* much later everyone is quiet: a new key pushes out quiet ones, no eviction counted */
	ASSERT_EQ(throttle_evicted(t), 2 + 1000);
	ASSERT_EQ(attempt(t, "carol", 200 * SEC + 15 * MIN_), 0);
	ASSERT_EQ(throttle_evicted(t), 2 + 1000);
	ASSERT_EQ(throttle_count(t), 1);
	throttle_free(t);
	throttle_free(NULL);
}

TEST(bad_keys)
{
	struct throttle *t = throttle_create(&throttle_config_default, 7);
	char big[THROTTLE_KEY_MAX + 1];
	uint64_t retry;

	memset(big, 'k', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ASSERT_EQ(throttle_begin(t, "", 0, &retry), THROTTLE_EINVAL);
	ASSERT_EQ(throttle_begin(t, big, 0, &retry), THROTTLE_EINVAL);
	ASSERT_EQ(throttle_check(t, big, 0, &retry), THROTTLE_EINVAL);
	big[THROTTLE_KEY_MAX - 1] = '\0';
	ASSERT_EQ(throttle_begin(t, big, 0, &retry), 0);
	throttle_forget(t, "");
	throttle_success(t, big);
	ASSERT_EQ(throttle_count(t), 0);
	throttle_free(t);
}

/* A clock that steps back does not grant or extend anything strange. */
TEST(clock_back)
{
	struct throttle *t = throttle_create(&throttle_config_default, 8);
	int i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(attempt(t, "alice", 10 * SEC), 0);
	ASSERT_EQ(attempt(t, "alice", 5 * SEC), 6 * SEC);
	ASSERT_EQ(attempt(t, "alice", 11 * SEC), 0);
	ASSERT_EQ(attempt(t, "bob", 3 * SEC), 0); /* stands still at 11 s in the order */
	throttle_expire(t, 11 * SEC + 15 * MIN_);
	ASSERT_EQ(throttle_count(t), 0);
	throttle_free(t);
}

TEST(addr_keys)
{
	struct sockaddr_in in4 = {.sin_family = AF_INET};
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6};
	struct sockaddr un = {.sa_family = AF_UNIX};
	char key[THROTTLE_KEY_MAX], key2[THROTTLE_KEY_MAX];

	inet_pton(AF_INET, "192.0.2.7", &in4.sin_addr);
	ASSERT_EQ(throttle_key_from_addr((struct sockaddr *)&in4, key), 0);
	ASSERT_STR_EQ(key, "192.0.2.7");

	inet_pton(AF_INET6, "2001:db8:1:2:aaaa:bbbb:cccc:dddd", &in6.sin6_addr);
	ASSERT_EQ(throttle_key_from_addr((struct sockaddr *)&in6, key), 0);
	ASSERT_STR_EQ(key, "2001:db8:1:2::/64");
	/* every address of that /64 is the same key, the next /64 is not */
	inet_pton(AF_INET6, "2001:db8:1:2::1", &in6.sin6_addr);
	ASSERT_EQ(throttle_key_from_addr((struct sockaddr *)&in6, key2), 0);
	ASSERT_STR_EQ(key2, key);
	inet_pton(AF_INET6, "2001:db8:1:3::1", &in6.sin6_addr);
	ASSERT_EQ(throttle_key_from_addr((struct sockaddr *)&in6, key2), 0);
	ASSERT_STR_EQ(key2, "2001:db8:1:3::/64");
	inet_pton(AF_INET6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", &in6.sin6_addr);
	ASSERT_EQ(throttle_key_from_addr((struct sockaddr *)&in6, key2), 0);
	ASSERT_STR_EQ(key2, "ffff:ffff:ffff:ffff::/64");
	inet_pton(AF_INET6, "::1", &in6.sin6_addr);
	ASSERT_EQ(throttle_key_from_addr((struct sockaddr *)&in6, key2), 0);
	ASSERT_STR_EQ(key2, "::/64");

	/* IPv4 through a dual-stack socket is IPv4 */
	inet_pton(AF_INET6, "::ffff:192.0.2.7", &in6.sin6_addr);
	ASSERT_EQ(throttle_key_from_addr((struct sockaddr *)&in6, key2), 0);
	ASSERT_STR_EQ(key2, "192.0.2.7");

	ASSERT_EQ(throttle_key_from_addr(&un, key2), THROTTLE_EINVAL);
}

int
main(void)
{
	RUN(growing_delays);
	RUN(check_counts_nothing);
	RUN(success);
	RUN(burst);
	RUN(quiet_forgotten);
	RUN(bounded);
	RUN(bad_keys);
	RUN(clock_back);
	RUN(addr_keys);
	TEST_END();
}
