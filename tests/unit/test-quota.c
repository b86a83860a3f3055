/*
 * test-quota.c: per-address allowances (server/base/quota.c): connections at once, the request
 * bucket and its refill, creates per minute, games not over, new sessions a minute and sessions
 * held, accounts registered an hour and a day, no limit at 0, and idle keys forgotten.
 */
#include <stdio.h>

#include "quota.h"
#include "test.h"

TEST(conns)
{
	struct quota_config cfg = {.conns = 2};
	struct quota *q = quota_create(&cfg, 1);

	ASSERT_EQ(quota_conn_add(q, "192.0.2.1"), 0);
	ASSERT_EQ(quota_conn_add(q, "192.0.2.1"), 0);
	ASSERT_EQ(quota_conn_add(q, "192.0.2.1"), QUOTA_EFULL);
	ASSERT_EQ(quota_conn_add(q, "192.0.2.2"), 0); /* another address */
	quota_conn_remove(q, "192.0.2.1");
	ASSERT_EQ(quota_conn_add(q, "192.0.2.1"), 0);
	quota_conn_remove(q, "192.0.2.1");
	quota_conn_remove(q, "192.0.2.1");
	quota_conn_remove(q, "192.0.2.2");
	quota_conn_remove(q, "198.51.100.1"); /* unknown: ignored */
	quota_expire(q, 0);
	ASSERT_EQ(quota_count(q), 0);
	quota_free(q);
}

TEST(rate)
{
	struct quota_config cfg = {.rate = 10};
	struct quota *q = quota_create(&cfg, 1);
	uint64_t retry = 0, now = 5000;
	int i;

	/* a burst of two seconds' worth, then one every 100 ms */
	for (i = 0; i < 20; i++)
		ASSERT_EQ(quota_request(q, "k.1", now, &retry), 0);
	ASSERT_EQ(quota_request(q, "k.1", now, &retry), QUOTA_EAGAIN);
	ASSERT_U64_EQ(retry, 100);
	ASSERT_EQ(quota_request(q, "k.1", now + 40, &retry), QUOTA_EAGAIN);
	ASSERT_U64_EQ(retry, 60);
	ASSERT_EQ(quota_request(q, "k.1", now + 100, &retry), 0);
	ASSERT_EQ(quota_request(q, "k.1", now + 100, &retry), QUOTA_EAGAIN);
	ASSERT_EQ(quota_request(q, "k.2", now + 100, &retry), 0); /* another key */
	/* not idle while its bucket refills; forgotten once it is full */
	quota_expire(q, now + 150);
	ASSERT_EQ(quota_count(q), 2);
	quota_expire(q, now + 3000);
	ASSERT_EQ(quota_count(q), 0);
	/* a clock that steps back stands still */
	ASSERT_EQ(quota_request(q, "k.1", now, &retry), 0);
	ASSERT_EQ(quota_request(q, "k.1", now - 1000, &retry), 0);
	quota_free(q);
}

TEST(creates_and_games)
{
	struct quota_config cfg = {.creates = 3, .games = 2};
	struct quota *q = quota_create(&cfg, 1);
	uint64_t retry = 0, now = 100000;

	ASSERT_EQ(quota_create_begin(q, "a.1", now, &retry), 0);
	ASSERT_EQ(quota_create_begin(q, "a.1", now, &retry), 0);
	ASSERT_EQ(quota_games(q, "a.1"), 2);
	ASSERT_EQ(quota_create_begin(q, "a.1", now, &retry), QUOTA_EFULL);
	quota_game_done(q, "a.1");
	ASSERT_EQ(quota_create_begin(q, "a.1", now + 1000, &retry), 0);
	quota_game_done(q, "a.1");
	/* three this minute: the fourth waits for the window's end */
	ASSERT_EQ(quota_create_begin(q, "a.1", now + 2000, &retry), QUOTA_EAGAIN);
	ASSERT_U64_EQ(retry, 58000);
	ASSERT_EQ(quota_games(q, "a.1"), 1);
	ASSERT_EQ(quota_create_begin(q, "a.1", now + 60000, &retry), 0);
	quota_game_done(q, "a.1");
	quota_game_done(q, "a.1");
	quota_game_done(q, "a.1"); /* one too many: ignored */
	ASSERT_EQ(quota_games(q, "a.1"), 0);
	quota_expire(q, now + 61000);
	ASSERT_EQ(quota_count(q), 1); /* its window of creates is not over */
	quota_expire(q, now + 120000);
	ASSERT_EQ(quota_count(q), 0);
	quota_free(q);
}

TEST(no_limits)
{
	struct quota_config cfg = {0};
	struct quota *q = quota_create(&cfg, 1);
	uint64_t retry = 0;

	for (int i = 0; i < 1000; i++) {
		ASSERT_EQ(quota_conn_add(q, "x.1"), 0);
		ASSERT_EQ(quota_request(q, "x.1", 0, &retry), 0);
		ASSERT_EQ(quota_create_begin(q, "x.1", 0, &retry), 0);
		ASSERT_EQ(quota_session_begin(q, "x.1", 0, &retry), 0);
		quota_session_add(q, "x.1");
	}
	ASSERT_EQ(quota_count(q), 0); /* nothing tracked */
	quota_free(q);
	quota_free(NULL);
}

TEST(sessions)
{
	struct quota_config cfg = {.sessions = 3};
	struct quota *q = quota_create(&cfg, 1);
	uint64_t retry = 0, now = 1000;
	int i;

	/* a burst of two minutes' worth, then one every 20 s; a key apart has its own */
	for (i = 0; i < 6; i++)
		ASSERT_EQ(quota_session_begin(q, "k.1", now, &retry), 0);
	ASSERT_EQ(quota_session_begin(q, "k.1", now, &retry), QUOTA_EAGAIN);
	ASSERT_U64_EQ(retry, 20000);
	ASSERT_EQ(quota_session_begin(q, "k.1", now + 15000, &retry), QUOTA_EAGAIN);
	ASSERT_U64_EQ(retry, 5000);
	ASSERT_EQ(quota_session_begin(q, "k.1", now + 20000, &retry), 0);
	ASSERT_EQ(quota_session_begin(q, "k.2", now, &retry), 0);
	/* the sessions held are only counted; a key that holds one is not forgotten */
	quota_session_add(q, "k.1");
	quota_session_add(q, "k.1");
	ASSERT_EQ(quota_sessions(q, "k.1"), 2);
	ASSERT_EQ(quota_sessions(q, "k.3"), 0);
	quota_expire(q, now + 1000000);
	ASSERT_EQ(quota_count(q), 1);
	quota_session_remove(q, "k.1");
	quota_session_remove(q, "k.1");
	quota_session_remove(q, "k.1"); /* one too many: ignored */
	ASSERT_EQ(quota_sessions(q, "k.1"), 0);
	quota_expire(q, now + 1000000);
	ASSERT_EQ(quota_count(q), 0);
	quota_free(q);
}

/* Accounts registered: 3 an hour and 5 a day here; each window starts at its first. */
TEST(registers)
{
	struct quota_config cfg = {.registers_hour = 3, .registers_day = 5};
	struct quota *q = quota_create(&cfg, 5);
	const uint64_t h = QUOTA_HOUR_MS, t0 = 1000;
	uint64_t retry = 0;

	for (int i = 0; i < 3; i++)
		ASSERT_EQ(quota_register_begin(q, "192.0.2.1", t0 + (uint64_t)i, &retry), 0);
	ASSERT_EQ(quota_register_begin(q, "192.0.2.1", t0 + 10, &retry), QUOTA_EAGAIN);
	ASSERT_EQ(retry, h - 10); /* until the hour that began at t0 is over */
	ASSERT_EQ(quota_register_begin(q, "192.0.2.2", t0 + 10, &retry), 0); /* another address */
	/* the next hour: two more, then the day is full */
	ASSERT_EQ(quota_register_begin(q, "192.0.2.1", t0 + h, &retry), 0);
	ASSERT_EQ(quota_register_begin(q, "192.0.2.1", t0 + h + 1, &retry), 0);
	ASSERT_EQ(quota_register_begin(q, "192.0.2.1", t0 + h + 2, &retry), QUOTA_EAGAIN);
	ASSERT_EQ(retry, QUOTA_DAY_MS - h - 2);
	ASSERT_EQ(quota_register_begin(q, "192.0.2.1", t0 + 5 * h, &retry), QUOTA_EAGAIN);
	/* an address with windows running is kept, forgotten once they are over */
	quota_expire(q, t0 + 2 * h);
	ASSERT_EQ(quota_count(q), 2); /* both addresses: their days run */
	ASSERT_EQ(quota_register_begin(q, "192.0.2.1", t0 + QUOTA_DAY_MS, &retry), 0);
	quota_expire(q, t0 + 3 * QUOTA_DAY_MS);
	ASSERT_EQ(quota_count(q), 0);
	quota_free(q);
	/* 0: no limit */
	cfg.registers_hour = cfg.registers_day = 0;
	q = quota_create(&cfg, 6);
	for (int i = 0; i < 100; i++)
		ASSERT_EQ(quota_register_begin(q, "192.0.2.1", t0, &retry), 0);
	ASSERT_EQ(quota_count(q), 0);
	quota_free(q);
}

TEST(many_keys)
{
	struct quota_config cfg = {.conns = 1};
	struct quota *q = quota_create(&cfg, 7);
	char key[32];

	for (int i = 0; i < 500; i++) {
		snprintf(key, sizeof key, "10.0.%d.%d", i / 256, i % 256);
		ASSERT_EQ(quota_conn_add(q, key), 0);
		ASSERT_EQ(quota_conn_add(q, key), QUOTA_EFULL);
	}
	ASSERT_EQ(quota_count(q), 500);
	for (int i = 0; i < 500; i += 2) {
		snprintf(key, sizeof key, "10.0.%d.%d", i / 256, i % 256);
		quota_conn_remove(q, key);
	}
	quota_expire(q, 0);
	ASSERT_EQ(quota_count(q), 250);
	for (int i = 1; i < 500; i += 2) {
		snprintf(key, sizeof key, "10.0.%d.%d", i / 256, i % 256);
		ASSERT_EQ(quota_conn_add(q, key), QUOTA_EFULL); /* still held */
	}
	quota_free(q);
}

int
main(void)
{
	RUN(conns);
	RUN(rate);
	RUN(creates_and_games);
	RUN(no_limits);
	RUN(sessions);
	RUN(registers);
	RUN(many_keys);
	TEST_END();
}
