/*
 * test-strmap.c: the server's string-keyed hash table: lookups, replacement, deletion with
 * backward shifts (checked against a plain array through many random insertions and deletions,
 * with a tiny seed space so that runs collide), growth.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "strmap.h"
#include "test.h"

#define KEYS 2000

static char keys[KEYS][16];

TEST(strmap_basic)
{
	struct strmap m;
	int a = 1, b = 2;

	strmap_init(&m, 42);
	ASSERT(strmap_get(&m, "x") == NULL);
	ASSERT(strmap_del(&m, "x") == NULL);
	strmap_put(&m, "g1", &a);
	strmap_put(&m, "g2", &b);
	ASSERT(strmap_get(&m, "g1") == &a);
	ASSERT(strmap_get(&m, "g2") == &b);
	ASSERT(strmap_get(&m, "g") == NULL);
	ASSERT(strmap_get(&m, "g12") == NULL);
	strmap_put(&m, "g1", &b); /* replaces */
	ASSERT(strmap_get(&m, "g1") == &b);
	ASSERT_EQ(strmap_count(&m), 2);
	ASSERT(strmap_del(&m, "g1") == &b);
	ASSERT(strmap_get(&m, "g1") == NULL);
	ASSERT_EQ(strmap_count(&m), 1);
	strmap_close(&m);
	strmap_close(&m); /* twice is fine */
}

TEST(strmap_random_against_array)
{
	void *shadow[KEYS] = {0};
	uint64_t x = 88172645463325252ull;

	for (int i = 0; i < KEYS; i++)
		snprintf(keys[i], sizeof keys[i], "p%d", i);
	for (uint64_t seed = 0; seed < 4; seed++) {
		struct strmap m;
		size_t n = 0;

		memset(shadow, 0, sizeof shadow);
		strmap_init(&m, seed);
		for (int step = 0; step < 50000; step++) {
			int k;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			k = (int)(x % (step < 25000 ? KEYS : KEYS / 4));
			if ((x >> 32) % 3 != 0) {
				n += shadow[k] == NULL;
				shadow[k] = keys[k];
				strmap_put(&m, keys[k], keys[k]);
			} else {
				ASSERT(strmap_del(&m, keys[k]) == shadow[k]);
				n -= shadow[k] != NULL;
				shadow[k] = NULL;
			}
			if (step % 997 == 0)
				for (int i = 0; i < KEYS; i++)
					ASSERT(strmap_get(&m, keys[i]) == shadow[i]);
		}
		ASSERT_EQ(strmap_count(&m), n);
		for (int i = 0; i < KEYS; i++)
			ASSERT(strmap_get(&m, keys[i]) == shadow[i]);
		strmap_close(&m);
	}
}

int
main(void)
{
	RUN(strmap_basic);
	RUN(strmap_random_against_array);
	TEST_END();
}
