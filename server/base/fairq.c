/*
 * fairq.c: the fair queue of jobs by key (fairq.h): deficit round robin on measured cost.
 *
 * A key's entry lives while it has a job queued or running: made by the first fairq_push(), freed
 * by the fairq_pop() or fairq_done() that leaves it with neither. It is in the round while it has
 * a job queued. It owns its entries; the items are the caller's. Plain data: no locking, no libuv.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fairq.h"
#include "xmalloc.h"

struct fairq_key {
	char name[FAIRQ_KEY_MAX];
	STAILQ_HEAD(, fairq_item) items; /* queued, oldest first */
	unsigned queued, running;        /* items queued, and popped not yet done */
	int64_t credit;                  /* cost it may still take; negative: its debt */
	int in_round;                    /* listed in q->round (it has items queued) */
	TAILQ_ENTRY(fairq_key) link;     /* q->round */
};

void
fairq_init(struct fairq *q, unsigned per_key, int64_t quantum, uint64_t seed)
{
	strmap_init(&q->keys, seed);
	TAILQ_INIT(&q->round);
	q->per_key = per_key;
	q->quantum = quantum > 0 ? quantum : 1;
	q->queued = 0;
}

void
fairq_close(struct fairq *q)
{
	struct fairq_key *k;

	/* only keys in the round could be left (with items the caller forgot): free them */
	while ((k = TAILQ_FIRST(&q->round)) != NULL) {
		TAILQ_REMOVE(&q->round, k, link);
		strmap_del(&q->keys, k->name);
		free(k);
	}
	strmap_close(&q->keys);
}

/* Forget key k if it has nothing queued or running. */
static void
key_release(struct fairq *q, struct fairq_key *k)
{
	if (k->queued > 0 || k->running > 0)
		return;
	strmap_del(&q->keys, k->name);
	free(k);
}

int
fairq_push(struct fairq *q, const char *key, struct fairq_item *it)
{
	char name[FAIRQ_KEY_MAX];
	struct fairq_key *k;

	snprintf(name, sizeof name, "%s", key);
	if ((k = strmap_get(&q->keys, name)) == NULL) {
		k = xcalloc(1, sizeof *k);
		snprintf(k->name, sizeof k->name, "%s", name);
		STAILQ_INIT(&k->items);
		k->credit = q->quantum;
		strmap_put(&q->keys, k->name, k);
	}
	if (q->per_key > 0 && k->queued + k->running >= q->per_key)
		return FAIRQ_EFULL; /* not a new key: a new one has nothing yet */
	it->key = k;
	STAILQ_INSERT_TAIL(&k->items, it, link);
	k->queued++;
	q->queued++;
	if (!k->in_round) {
		TAILQ_INSERT_TAIL(&q->round, k, link);
		k->in_round = 1;
	}
	return 0;
}

/*
 * Every key of the round is in debt or at zero: give each the turns the first of them to come
 * back needs (its debt over the quantum, rounded up), so that the debts keep their order.
 */
static void
round_credit(struct fairq *q)
{
	struct fairq_key *k;
	int64_t turns = INT64_MAX;

	TAILQ_FOREACH(k, &q->round, link)
	{
		int64_t need = (q->quantum - k->credit) / q->quantum; /* credit <= 0: need >= 1 */

		if (need < turns)
			turns = need;
	}
	TAILQ_FOREACH(k, &q->round, link)
	k->credit += turns * q->quantum;
}

struct fairq_item *
fairq_pop(struct fairq *q)
{
	struct fairq_key *k;
	struct fairq_item *it;

	if (TAILQ_EMPTY(&q->round))
		return NULL;
	TAILQ_FOREACH(k, &q->round, link)
	if (k->credit > 0)
		break;
	if (k == NULL) {
		round_credit(q);
		TAILQ_FOREACH(k, &q->round, link)
		if (k->credit > 0)
			break;
	}
	it = STAILQ_FIRST(&k->items);
	STAILQ_REMOVE_HEAD(&k->items, link);
	k->queued--;
	k->running++;
	q->queued--;
	TAILQ_REMOVE(&q->round, k, link); /* its next turn after every other key's */
	if (k->queued > 0)
		TAILQ_INSERT_TAIL(&q->round, k, link);
	else
		k->in_round = 0;
	return it;
}

void
fairq_done(struct fairq *q, struct fairq_item *it, int64_t cost)
{
	struct fairq_key *k = it->key;

	it->key = NULL;
	k->running--;
	k->credit -= cost > 0 ? cost : 0;
	if (k->credit < -INT64_MAX / 4)
		k->credit = -INT64_MAX / 4; /* a debt stays countable in quanta */
	key_release(q, k);
}

size_t
fairq_queued(const struct fairq *q)
{
	return q->queued;
}

unsigned
fairq_load(const struct fairq *q, const char *key)
{
	char name[FAIRQ_KEY_MAX];
	const struct fairq_key *k;

	snprintf(name, sizeof name, "%s", key);
	k = strmap_get(&q->keys, name);
	return k != NULL ? k->queued + k->running : 0;
}
