/*
 * test-pool.c: the rule of the rated quick pool (server/game/pool.h): both windows must cover the
 * other's rating, the longest waiting is served first, with the closest rating, and the moments
 * a window widens.
 */
#include <stdio.h>

#include "pool.h"
#include "test.h"

#define S 1000 /* ms */

/* Each one's window of its own wait must cover the other: the newer one's +-100 holds back. */
TEST(accepts_both_windows)
{
	struct pool_waiter a = {1500, 0}, b = {1720, 0}, c = {1720, 60 * S};

	ASSERT_EQ(pool_accepts(&a, &b, 0), 0);          /* 220 apart, +-100 each */
	ASSERT_EQ(pool_accepts(&a, &b, 20 * S - 1), 0); /* +-150 */
	ASSERT_EQ(pool_accepts(&a, &b, 30 * S - 1), 0); /* +-200 */
	ASSERT_EQ(pool_accepts(&a, &b, 30 * S), 1);     /* +-250 both */
	ASSERT_EQ(pool_accepts(&b, &a, 30 * S), 1);
	/* a has waited 60 s (+-400) but c has just come (+-100): not until c waited 30 s */
	ASSERT_EQ(pool_accepts(&a, &c, 60 * S), 0);
	ASSERT_EQ(pool_accepts(&a, &c, 90 * S - 1), 0);
	ASSERT_EQ(pool_accepts(&a, &c, 90 * S), 1);
	/* exactly the window's width apart is inside it */
	b.rating = 1600;
	ASSERT_EQ(pool_accepts(&a, &b, 0), 1);
	b.rating = 1600.001;
	ASSERT_EQ(pool_accepts(&a, &b, 0), 0);
}

/* Two players 400 apart, both waiting since 0: paired at 60 s (+-400), not a moment before. */
TEST(pair_after_widening)
{
	struct pool_waiter w[2] = {{1300, 0}, {1700, 0}};
	size_t partner[2];

	ASSERT_EQ(pool_pair(w, 2, 0, partner), 0);
	ASSERT_EQ(partner[0], POOL_NONE);
	ASSERT_EQ(partner[1], POOL_NONE);
	ASSERT_EQ(pool_pair(w, 2, 60 * S - 1, partner), 0);
	ASSERT_EQ(pool_pair(w, 2, 60 * S, partner), 1);
	ASSERT_EQ(partner[0], 1);
	ASSERT_EQ(partner[1], 0);
}

/* The longest waiting goes first and takes the closest it may; the rest pair among themselves. */
TEST(longest_first_closest_first)
{
	/* 0 waited longest; 1 is closest to it; 2 and 3 are close to each other */
	struct pool_waiter w[4] = {{1500, 0}, {1540, 5 * S}, {1560, 1 * S}, {1580, 2 * S}};
	size_t partner[4];

	ASSERT_EQ(pool_pair(w, 4, 10 * S, partner), 2);
	ASSERT_EQ(partner[0], 1);
	ASSERT_EQ(partner[1], 0);
	ASSERT_EQ(partner[2], 3);
	ASSERT_EQ(partner[3], 2);
	/* first come, first served: 2 and 3 are 15 apart, but 0 comes first and takes 2 */
	w[0] = (struct pool_waiter){1520, 0};
	w[1] = (struct pool_waiter){1600, 0};
	w[2] = (struct pool_waiter){1560, 5 * S};
	w[3] = (struct pool_waiter){1575, 6 * S};
	ASSERT_EQ(pool_pair(w, 4, 10 * S, partner), 2);
	ASSERT_EQ(partner[0], 2); /* 40: the closest to 0 */
	ASSERT_EQ(partner[1], 3); /* 25 */
}

/* On equal distances the longer waiter wins, then the lower index. */
TEST(ties)
{
	struct pool_waiter w[3] = {{1500, 3 * S}, {1450, 2 * S}, {1550, 1 * S}};
	size_t partner[3];

	/* 2 waited longest: 0 is 50 from it, 1 is 100: it takes 0 */
	ASSERT_EQ(pool_pair(w, 3, 5 * S, partner), 1);
	ASSERT_EQ(partner[2], 0);
	ASSERT_EQ(partner[1], POOL_NONE);
	/* 0 waited longest: 1 and 2 are both 50 away; 2 waited longer */
	w[0].since = 0;
	ASSERT_EQ(pool_pair(w, 3, 5 * S, partner), 1);
	ASSERT_EQ(partner[0], 2);
	w[1].since = w[2].since;
	ASSERT_EQ(pool_pair(w, 3, 5 * S, partner), 1);
	ASSERT_EQ(partner[0], 1); /* then the lower index */
	/* equal ratings, equal waits: pairs by index */
	for (int i = 0; i < 3; i++)
		w[i] = (struct pool_waiter){1500, 0};
	ASSERT_EQ(pool_pair(w, 3, 0, partner), 1);
	ASSERT_EQ(partner[0], 1);
	ASSERT_EQ(partner[2], POOL_NONE);
}

/* Someone whose window does not reach is skipped for a farther one whose window does. */
TEST(skip_narrow_window)
{
	/* 0 waited 60 s (+-400); 1 (120 away) just came (+-100); 2 (300 away) waited 60 s */
	struct pool_waiter w[3] = {{1500, 0}, {1620, 60 * S}, {1800, 0}};
	size_t partner[3];

	ASSERT_EQ(pool_pair(w, 3, 60 * S, partner), 1);
	ASSERT_EQ(partner[0], 2);
	ASSERT_EQ(partner[1], POOL_NONE);
	ASSERT_EQ(pool_pair(w, 0, 0, partner), 0);
	ASSERT_EQ(pool_pair(w, 1, 0, partner), 0);
	ASSERT_EQ(partner[0], POOL_NONE);
}

/* A bounded load: 2000 waiters in pairs 10 apart, all paired with their neighbour. */
TEST(many)
{
	enum { N = 2000 };
	static struct pool_waiter w[N];
	static size_t partner[N];

	for (size_t i = 0; i < N; i++)
		w[i] = (struct pool_waiter){1000.0 + (double)(i / 2) * 1000 + (double)(i % 2) * 10,
		                            (uint64_t)(N - i)};
	ASSERT_EQ(pool_pair(w, N, 0, partner), N / 2);
	for (size_t i = 0; i < N; i++)
		ASSERT_EQ(partner[i], i ^ 1);
}

/* The rule as PROTOCOL.md says it, plainly, in O(n^2): what pool_pair() must agree with. */
static void
pair_plainly(const struct pool_waiter *w, size_t n, uint64_t now, size_t *partner)
{
	int done[64] = {0};

	for (size_t i = 0; i < n; i++)
		partner[i] = POOL_NONE;
	for (size_t round = 0; round < n; round++) {
		size_t i = POOL_NONE, best = POOL_NONE;
		double best_d = 0;

		/* the longest waiting not yet looked at */
		for (size_t j = 0; j < n; j++)
			if (!done[j] && (i == POOL_NONE || w[j].since < w[i].since))
				i = j;
		done[i] = 1;
		if (partner[i] != POOL_NONE)
			continue;
		for (size_t c = 0; c < n; c++) {
			double d = w[c].rating > w[i].rating ? w[c].rating - w[i].rating
			                                     : w[i].rating - w[c].rating;

			if (c == i || partner[c] != POOL_NONE || !pool_accepts(&w[i], &w[c], now))
				continue;
			if (best == POOL_NONE || d < best_d ||
			    (d == best_d && w[c].since < w[best].since)) {
				best = c;
				best_d = d;
			}
		}
		if (best != POOL_NONE) {
			partner[i] = best;
			partner[best] = i;
		}
	}
}

/* 20000 random pools, with many equal ratings and waits: the same pairs as the plain rule. */
TEST(agrees_with_the_plain_rule)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (int run = 0; run < 20000; run++) {
		struct pool_waiter w[64];
		size_t a[64], b[64], n;
		uint64_t now;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		n = (size_t)(x >> 58); /* 0 to 63 */
		now = 200 * S + (x >> 20) % (20 * S);
		for (size_t i = 0; i < n; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			/* few distinct ratings (ties), waits from 0 to 200 s in few steps */
			w[i].rating = 1000 + (double)((x >> 33) % (run % 3 == 0 ? 4 : 40)) * 25 +
			              (run % 5 == 0 ? (double)((x >> 20) % 7) / 8 : 0);
			w[i].since =
			        (x >> 45) % (run % 2 ? 5 : 41) * 5 * S + (run % 7 == 0 ? 3 : 0);
		}
		pool_pair(w, n, now, a);
		pair_plainly(w, n, now, b);
		for (size_t i = 0; i < n; i++)
			if (a[i] != b[i]) {
				printf("# run %d: waiter %zu paired with %zu, the plain rule says "
				       "%zu\n",
				       run, i, a[i], b[i]);
				ASSERT_EQ(a[i], b[i]);
			}
	}
}

/* A window widens every whole 10 s of the wait. */
TEST(next_widening)
{
	ASSERT_EQ(pool_next_widening(0, 0), 10 * S);
	ASSERT_EQ(pool_next_widening(0, 10 * S - 1), 10 * S);
	ASSERT_EQ(pool_next_widening(0, 10 * S), 20 * S);
	ASSERT_EQ(pool_next_widening(5 * S, 31 * S), 35 * S);
	ASSERT_EQ(pool_next_widening(UINT64_MAX - 5, UINT64_MAX - 1), UINT64_MAX);
}

int
main(void)
{
	RUN(accepts_both_windows);
	RUN(pair_after_widening);
	RUN(longest_first_closest_first);
	RUN(ties);
	RUN(skip_narrow_window);
	RUN(many);
	RUN(agrees_with_the_plain_rule);
	RUN(next_widening);
	TEST_END();
}
