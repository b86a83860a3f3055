/*
 * test-fairq.c: the fair queue of jobs by key (server/base/fairq.c): the order of service between
 * keys, the credit and debt of measured costs, the bound of jobs per key, and keys forgotten.
 */
#include "fairq.h"
#include "test.h"

#define JOBS 64

/* A job of the tests: its key's name, and its number in the order it was pushed. */
struct job {
	struct fairq_item item;
	const char *key;
	int n;
};

static struct job jobs[JOBS];
static int njobs;

/* Push a job of key; returns fairq_push()'s code. */
static int
push(struct fairq *q, const char *key)
{
	struct job *j = &jobs[njobs];

	j->item.arg = j;
	j->key = key;
	j->n = njobs++;
	return fairq_push(q, key, &j->item);
}

/* Pop the next job and end it at once with cost; returns its key's first letter, '-' for none. */
static char
serve(struct fairq *q, int64_t cost)
{
	struct fairq_item *it = fairq_pop(q);
	struct job *j;

	if (it == NULL)
		return '-';
	j = it->arg;
	fairq_done(q, it, cost);
	return j->key[0];
}

/* The order in which n jobs of equal cost are served, as their keys' first letters. */
static void
order(struct fairq *q, int n, int64_t cost, char *out)
{
	for (int i = 0; i < n; i++)
		out[i] = serve(q, cost);
	out[n] = '\0';
}

TEST(empty_queue_pops_nothing)
{
	struct fairq q;

	fairq_init(&q, 0, 10, 1);
	ASSERT(fairq_pop(&q) == NULL);
	ASSERT_EQ(fairq_queued(&q), 0);
	fairq_close(&q);
}

TEST(one_key_is_served_in_order)
{
	struct fairq q;
	struct fairq_item *it;

	njobs = 0;
	fairq_init(&q, 0, 10, 1);
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(push(&q, "a"), 0);
	ASSERT_EQ(fairq_queued(&q), 5);
	for (int i = 0; i < 5; i++) {
		it = fairq_pop(&q);
		ASSERT(it != NULL);
		ASSERT_EQ(((struct job *)it->arg)->n, i);
		fairq_done(&q, it, 1000); /* alone, its debt never keeps it waiting */
	}
	ASSERT(fairq_pop(&q) == NULL);
	ASSERT_EQ(fairq_load(&q, "a"), 0);
	fairq_close(&q);
}

/* A key that queued many jobs first does not keep a later key waiting behind all of them. */
TEST(keys_take_turns)
{
	struct fairq q;
	char got[16];

	njobs = 0;
	fairq_init(&q, 0, 10, 1);
	for (int i = 0; i < 6; i++)
		push(&q, "attacker");
	push(&q, "victim");
	push(&q, "victim");
	order(&q, 8, 5, got);
	ASSERT(strcmp(got, "avavaaaa") == 0);
	fairq_close(&q);
}

/* Three keys with backlogs are served round robin, a fresh key after at most one of each. */
TEST(round_robin_of_three)
{
	struct fairq q;
	char got[16];

	njobs = 0;
	fairq_init(&q, 0, 100, 1);
	for (int i = 0; i < 3; i++) {
		push(&q, "a");
		push(&q, "b");
	}
	ASSERT_EQ(serve(&q, 1), 'a');
	push(&q, "c");
	order(&q, 6, 1, got);
	ASSERT(strcmp(got, "bacbab") == 0); /* c after one job of each key before it */
	fairq_close(&q);
}

/* Costs count: a key whose jobs cost ten times the other's is served a tenth as often. */
TEST(costly_key_is_served_less)
{
	struct fairq q;
	int heavy = 0, light = 0;

	njobs = 0;
	fairq_init(&q, 0, 10, 1);
	for (int i = 0; i < 30; i++) {
		push(&q, "heavy");
		push(&q, "light");
	}
	for (int i = 0; i < 33; i++) {
		struct fairq_item *it = fairq_pop(&q);
		struct job *j = it->arg;

		if (j->key[0] == 'h')
			heavy++;
		else
			light++;
		fairq_done(&q, it, j->key[0] == 'h' ? 100 : 10);
	}
	/* 3 heavy (300) and 30 light (300): the same time each */
	ASSERT_EQ(heavy, 3);
	ASSERT_EQ(light, 30);
	fairq_close(&q);
	/* the jobs left queued are freed with the queue's keys */
}

/* A debt is forgiven once the key has nothing queued or running: it comes back fresh. */
TEST(idle_key_is_forgotten)
{
	struct fairq q;
	char got[8];

	njobs = 0;
	fairq_init(&q, 0, 10, 1);
	push(&q, "a");
	ASSERT_EQ(serve(&q, 1000), 'a');
	ASSERT_EQ(fairq_load(&q, "a"), 0);
	push(&q, "b");
	push(&q, "a");
	push(&q, "b");
	order(&q, 3, 1, got);
	ASSERT(strcmp(got, "bab") == 0); /* a is fresh: served in its turn, not after its debt */
	fairq_close(&q);
}

/* A key in debt waits while another has credit, even when it queued first. */
TEST(debtor_waits_while_others_have_credit)
{
	struct fairq q;
	struct fairq_item *running;
	char got[8];

	njobs = 0;
	fairq_init(&q, 0, 10, 1);
	push(&q, "a");
	push(&q, "a");
	running = fairq_pop(&q);
	push(&q, "b");
	push(&q, "b");
	fairq_done(&q, running, 25); /* a owes 15: 2 quanta to come back */
	order(&q, 3, 10, got);
	ASSERT(strcmp(got, "bba") == 0);
	fairq_close(&q);
}

/* Each key has at most per_key jobs queued or running; the others' are not affected. */
TEST(per_key_bound)
{
	struct fairq q;
	struct fairq_item *it;

	njobs = 0;
	fairq_init(&q, 3, 10, 1);
	ASSERT_EQ(push(&q, "a"), 0);
	ASSERT_EQ(push(&q, "a"), 0);
	ASSERT_EQ(push(&q, "a"), 0);
	ASSERT_EQ(push(&q, "a"), FAIRQ_EFULL);
	ASSERT_EQ(push(&q, "b"), 0);
	ASSERT_EQ(fairq_load(&q, "a"), 3);
	ASSERT_EQ(fairq_queued(&q), 4);
	it = fairq_pop(&q); /* running still counts */
	ASSERT_EQ(push(&q, "a"), FAIRQ_EFULL);
	fairq_done(&q, it, 1);
	ASSERT_EQ(push(&q, "a"), 0);
	while ((it = fairq_pop(&q)) != NULL)
		fairq_done(&q, it, 1);
	ASSERT_EQ(fairq_load(&q, "a"), 0);
	ASSERT_EQ(fairq_load(&q, "b"), 0);
	fairq_close(&q);
}

/* Keys longer than FAIRQ_KEY_MAX are cut: the same key as their first bytes. */
TEST(long_keys_are_cut)
{
	struct fairq q;
	char a[100], b[100];

	njobs = 0;
	memset(a, 'x', sizeof a - 1);
	a[sizeof a - 1] = '\0';
	memcpy(b, a, sizeof b);
	b[90] = 'y';
	fairq_init(&q, 1, 10, 1);
	ASSERT_EQ(push(&q, a), 0);
	ASSERT_EQ(push(&q, b), FAIRQ_EFULL);
	ASSERT_EQ(serve(&q, 1), 'x');
	fairq_close(&q);
}

int
main(void)
{
	RUN(empty_queue_pops_nothing);
	RUN(one_key_is_served_in_order);
	RUN(keys_take_turns);
	RUN(round_robin_of_three);
	RUN(costly_key_is_served_less);
	RUN(idle_key_is_forgotten);
	RUN(debtor_waits_while_others_have_credit);
	RUN(per_key_bound);
	RUN(long_keys_are_cut);
	TEST_END();
}
