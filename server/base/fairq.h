/*
 * fairq.h: a fair queue of jobs keyed by who asked (a source address as a key, or any string a
 * front end chooses for its peers), so that one key cannot take more than its share of the
 * workers' time, however many jobs it queues: the store's reads (reader.c) go through one.
 *
 * Deficit round robin on measured cost. The keys with jobs waiting take turns in a round; each
 * comes with a credit of one quantum of time when it first queues, and fairq_pop() serves the
 * first key of the round whose credit is positive, one job, then puts that key at the end of the
 * round. fairq_done() charges the job's measured cost to its key's credit, which may go below zero
 * (a debt): a key in debt is passed over while others have credit, and when none has, every key of
 * the round gets as many quanta as the first of them needs to be served again. So a key whose
 * jobs cost ten times the others' is served a tenth as often, and a key that comes in fresh waits
 * for at most one job of each key before it in the round (plus those already running). A key with
 * nothing queued or running is forgotten, credit and debt alike.
 *
 * Each key may have at most per_key jobs queued or running (fairq_push() refuses more), so that a
 * key's many connections cannot grow the queue without bound either.
 *
 * Plain data: no locking and no libuv (the caller holds its own lock around every call), no clock
 * (the caller measures each job's cost). The items are embedded in the caller's jobs.
 */
#ifndef HOKITO_SERVER_FAIRQ_H
#define HOKITO_SERVER_FAIRQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "strmap.h"

#define FAIRQ_KEY_MAX 64 /* bytes of a key with its NUL (longer keys are cut) */

enum fairq_err {
	FAIRQ_EFULL = -1, /* the key has per_key jobs queued or running already */
};

struct fairq_key;

/* A job in the queue, embedded in the caller's job; arg points back at it. */
struct fairq_item {
	void *arg;             /* the caller's job (set before fairq_push()) */
	struct fairq_key *key; /* whose: set by fairq_push(), kept until fairq_done() */
	STAILQ_ENTRY(fairq_item) link;
};

struct fairq {
	struct strmap keys;            /* every key with a job queued or running, by name */
	TAILQ_HEAD(, fairq_key) round; /* the keys with a job queued, in their turns' order */
	unsigned per_key;              /* jobs one key may have queued or running; 0: no bound */
	int64_t quantum;               /* the credit of a turn, in the caller's unit of cost */
	size_t queued;                 /* jobs queued, every key's */
};

/*
 * An empty queue: at most per_key jobs of one key at a time (0: no bound), a credit of quantum
 * (> 0) a turn, keys hashed with seed (a random one).
 */
void fairq_init(struct fairq *q, unsigned per_key, int64_t quantum, uint64_t seed);

/*
 * Free the keys. The queue must hold no item queued or running (the caller takes them back with
 * fairq_pop() and fairq_done() first). Safe on a zeroed queue.
 */
void fairq_close(struct fairq *q);

/*
 * Queue it (borrowed: it must stay valid until fairq_done()) under key (copied; "" is a key like
 * any other). Returns 0, or FAIRQ_EFULL when the key has per_key jobs already (it is not queued).
 */
int fairq_push(struct fairq *q, const char *key, struct fairq_item *it);

/* The next item to run, in fair order, now counted as running for its key; NULL when none. */
struct fairq_item *fairq_pop(struct fairq *q);

/* A popped item ended, having cost cost (>= 0): charged to its key, which may be forgotten. */
void fairq_done(struct fairq *q, struct fairq_item *it, int64_t cost);

/* Jobs queued, not yet popped. */
size_t fairq_queued(const struct fairq *q);

/* Jobs queued or running under key. */
unsigned fairq_load(const struct fairq *q, const char *key);

#endif
