/*
 * quota.c: per-address allowances: connections, requests a second, creates a minute, games.
 *
 * Owns its entries: one per key, found through a strmap whose keys borrow the entry's own copy of
 * the key. An entry lives while it holds a connection or a game, or while its bucket or its
 * window of creates is not whole again; quota_expire() frees the rest. Time comes in as a
 * parameter; a clock that steps back is treated as standing still. Never does I/O.
 */
#include "quota.h"

#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "throttle.h"
#include "xmalloc.h"

struct quota_entry {
	char key[THROTTLE_KEY_MAX];
	unsigned conns;         /* connections held */
	unsigned games;         /* games not over held */
	uint64_t tokens_milli;  /* the bucket, in thousandths of a request */
	uint64_t bucket_ms;     /* when the bucket was last filled up to */
	unsigned creates;       /* creates in the current window */
	uint64_t window_ms;     /* when the current window of creates began */
	unsigned bucket_in_use; /* the bucket was ever drawn from */
};

struct quota {
	struct quota_config cfg;
	struct strmap map; /* key -> struct quota_entry */
};

struct quota *
quota_create(const struct quota_config *cfg, uint64_t seed)
{
	struct quota *q = xcalloc(1, sizeof *q);

	q->cfg = *cfg;
	strmap_init(&q->map, seed);
	return q;
}

void
quota_free(struct quota *q)
{
	if (q == NULL)
		return;
	for (size_t i = 0; i < q->map.cap; i++)
		free(q->map.slots[i].value);
	strmap_close(&q->map);
	free(q);
}

/* The entry of key, made if need be (a key too long is cut: it stays one key). */
static struct quota_entry *
entry_get(struct quota *q, const char *key)
{
	struct quota_entry *e = strmap_get(&q->map, key);

	if (e != NULL)
		return e;
	e = xcalloc(1, sizeof *e);
	strncpy(e->key, key, sizeof e->key - 1);
	strmap_put(&q->map, e->key, e);
	return e;
}

/* The bucket's size in thousandths of a request: two seconds' worth. */
static uint64_t
bucket_full(const struct quota *q)
{
	return (uint64_t)q->cfg.rate * 2000;
}

/* Fill e's bucket for the time since it was last filled. */
static void
bucket_fill(const struct quota *q, struct quota_entry *e, uint64_t now_ms)
{
	if (!e->bucket_in_use) {
		e->bucket_in_use = 1;
		e->tokens_milli = bucket_full(q);
		e->bucket_ms = now_ms;
		return;
	}
	if (now_ms <= e->bucket_ms)
		return;
	e->tokens_milli +=
	        (now_ms - e->bucket_ms) * q->cfg.rate; /* rate per s = rate/1000 per ms */
	if (e->tokens_milli > bucket_full(q))
		e->tokens_milli = bucket_full(q);
	e->bucket_ms = now_ms;
}

int
quota_conn_add(struct quota *q, const char *key)
{
	struct quota_entry *e;

	if (q->cfg.conns == 0)
		return 0;
	e = entry_get(q, key);
	if (e->conns >= q->cfg.conns)
		return QUOTA_EFULL;
	e->conns++;
	return 0;
}

/* Free e now if it holds nothing and has no allowance being spent (no clock needed). */
static void
entry_drop_empty(struct quota *q, struct quota_entry *e)
{
	if (e->conns > 0 || e->games > 0 || e->creates > 0 || e->bucket_in_use)
		return;
	strmap_del(&q->map, e->key);
	free(e);
}

void
quota_conn_remove(struct quota *q, const char *key)
{
	struct quota_entry *e = strmap_get(&q->map, key);

	if (q->cfg.conns == 0 || e == NULL || e->conns == 0)
		return;
	e->conns--;
	entry_drop_empty(q, e);
}

int
quota_request(struct quota *q, const char *key, uint64_t now_ms, uint64_t *retry_ms)
{
	struct quota_entry *e;

	if (q->cfg.rate == 0)
		return 0;
	e = entry_get(q, key);
	bucket_fill(q, e, now_ms);
	if (e->tokens_milli < 1000) {
		/* the next whole token comes in (1000 - tokens) / rate milliseconds, rounded up */
		*retry_ms = (1000 - e->tokens_milli + q->cfg.rate - 1) / q->cfg.rate;
		if (*retry_ms == 0)
			*retry_ms = 1;
		return QUOTA_EAGAIN;
	}
	e->tokens_milli -= 1000;
	return 0;
}

int
quota_create_begin(struct quota *q, const char *key, uint64_t now_ms, uint64_t *retry_ms)
{
	struct quota_entry *e;

	if (q->cfg.games == 0 && q->cfg.creates == 0)
		return 0;
	e = entry_get(q, key);
	if (q->cfg.games != 0 && e->games >= q->cfg.games)
		return QUOTA_EFULL;
	if (q->cfg.creates != 0) {
		if (e->creates == 0 || now_ms < e->window_ms ||
		    now_ms - e->window_ms >= QUOTA_CREATE_WINDOW_MS) {
			e->window_ms = now_ms;
			e->creates = 0;
		}
		if (e->creates >= q->cfg.creates) {
			*retry_ms = QUOTA_CREATE_WINDOW_MS - (now_ms - e->window_ms);
			return QUOTA_EAGAIN;
		}
		e->creates++;
	}
	if (q->cfg.games != 0)
		e->games++;
	return 0;
}

void
quota_game_done(struct quota *q, const char *key)
{
	struct quota_entry *e = strmap_get(&q->map, key);

	if (q->cfg.games == 0 || e == NULL || e->games == 0)
		return;
	e->games--;
	entry_drop_empty(q, e);
}

unsigned
quota_games(const struct quota *q, const char *key)
{
	const struct quota_entry *e = strmap_get(&q->map, key);

	return e != NULL ? e->games : 0;
}

/* Whether e holds nothing and its allowance is whole again at now_ms. */
static int
entry_idle(const struct quota *q, struct quota_entry *e, uint64_t now_ms)
{
	if (e->conns > 0 || e->games > 0)
		return 0;
	if (e->creates > 0 && now_ms >= e->window_ms &&
	    now_ms - e->window_ms < QUOTA_CREATE_WINDOW_MS)
		return 0;
	if (e->bucket_in_use) {
		bucket_fill(q, e, now_ms);
		if (e->tokens_milli < bucket_full(q))
			return 0;
	}
	return 1;
}

void
quota_expire(struct quota *q, uint64_t now_ms)
{
	size_t i = 0;

	/* deleting shifts later slots back: look at slot i again after a deletion */
	while (i < q->map.cap) {
		struct quota_entry *e = q->map.slots[i].value;

		if (q->map.slots[i].key != NULL && entry_idle(q, e, now_ms)) {
			strmap_del(&q->map, e->key);
			free(e);
			continue;
		}
		i++;
	}
}

size_t
quota_count(const struct quota *q)
{
	return strmap_count(&q->map);
}
