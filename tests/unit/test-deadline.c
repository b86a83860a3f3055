/*
 * test-deadline.c: the game layer's deadline heap (server/game/deadline.c): tables filed under their
 * clocks' deadlines come out earliest first, through random refreshes and removals checked
 * against a plain scan; a table without a deadline leaves the heap.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "deadline.h"
#include "rng.h"
#include "table.h"
#include "test.h"

#define TABLES 200

static uint64_t
now_cb(void *arg)
{
	(void)arg;
	return 0;
}

static const struct table_env env = {.now = now_cb, .grace_ms = 1000};

/* A live game, both seats the computer's (always connected: no grace runs), its clock at d. */
static void
table_at(struct table *t, uint64_t d)
{
	t->st.status = EVENT_STATUS_LIVE;
	t->computer[0] = t->computer[1] = 1;
	t->settled_at = 0;
	t->remaining[0] = t->remaining[1] = (int64_t)d;
}

TEST(deadline_random_against_scan)
{
	struct deadline_heap dh = {0};
	struct table *t[TABLES];
	struct rng r;

	rng_init(&r, 7);
	for (int i = 0; i < TABLES; i++) {
		char id[16];

		snprintf(id, sizeof id, "g%d", i + 1);
		t[i] = table_create(&env, id, GAME_HOKITO, "standard", 1, 60000, 0);
	}
	for (int step = 0; step < 20000; step++) {
		int i = (int)rng_below(&r, TABLES);
		const struct table *min = NULL;

		switch (rng_below(&r, 4)) {
		case 0:
			deadline_remove(&dh, t[i]);
			break;
		case 1:
			t[i]->st.status = EVENT_STATUS_FINISHED; /* no deadline: out of the heap */
			deadline_refresh(&dh, t[i]);
			ASSERT_U64_EQ(t[i]->heap_index, SIZE_MAX);
			break;
		default:
			table_at(t[i], 1 + rng_below(&r, 100000));
			deadline_refresh(&dh, t[i]);
			break;
		}
		for (int k = 0; k < TABLES; k++)
			if (t[k]->heap_index != SIZE_MAX &&
			    (min == NULL || t[k]->heap_deadline < min->heap_deadline))
				min = t[k];
		if (min == NULL)
			ASSERT(deadline_first(&dh) == NULL);
		else
			ASSERT_U64_EQ(deadline_first(&dh)->heap_deadline, min->heap_deadline);
	}
	deadline_close(&dh);
	for (int i = 0; i < TABLES; i++)
		table_free(t[i]);
}

int
main(void)
{
	RUN(deadline_random_against_scan);
	TEST_END();
}
