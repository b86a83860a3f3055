/*
 * throttle.c: growing delays after failed attempts, per key, in bounded memory.
 *
 * Owns its entries: one per key, found through a strmap (whose keys borrow the entry's own copy
 * of the key) and kept in a list in the order of their last failure, oldest first, so that the
 * quiet keys and the one to push out when full are always at the head. Time only comes in as a
 * parameter; a clock that steps back is treated as standing still. Never does I/O.
 */
#include "throttle.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include "strmap.h"
#include "xmalloc.h"

const struct throttle_config throttle_config_default = {
        .free_failures = 3,
        .base_ms = 1000,
        .max_ms = 5 * 60 * 1000,
        .quiet_ms = 15 * 60 * 1000,
        .max_keys = 100000,
};

struct throttle_entry {
	char key[THROTTLE_KEY_MAX];
	uint32_t failures;                /* counted and not taken back */
	uint64_t last_ms;                 /* when the last attempt began */
	TAILQ_ENTRY(throttle_entry) link; /* in throttle.order */
};

TAILQ_HEAD(throttle_order, throttle_entry);

struct throttle {
	struct throttle_config cfg;
	struct strmap map;           /* key -> struct throttle_entry */
	struct throttle_order order; /* by last_ms, oldest first */
	uint64_t evicted;            /* entries pushed out while not quiet */
};

struct throttle *
throttle_create(const struct throttle_config *cfg, uint64_t seed)
{
	struct throttle *t = xcalloc(1, sizeof *t);

	t->cfg = *cfg;
	if (t->cfg.max_keys == 0)
		t->cfg.max_keys = 1;
	strmap_init(&t->map, seed);
	TAILQ_INIT(&t->order);
	return t;
}

static void
throttle_remove(struct throttle *t, struct throttle_entry *e)
{
	strmap_del(&t->map, e->key);
	TAILQ_REMOVE(&t->order, e, link);
	free(e);
}

void
throttle_free(struct throttle *t)
{
	struct throttle_entry *e;

	if (t == NULL)
		return;
	while ((e = TAILQ_FIRST(&t->order)) != NULL)
		throttle_remove(t, e);
	strmap_close(&t->map);
	free(t);
}

/* The wait after n failures: none for the free ones, then base_ms doubling up to max_ms. */
static uint64_t
throttle_delay(const struct throttle_config *cfg, uint32_t n)
{
	uint64_t d = cfg->base_ms;
	uint32_t i;

	if (n <= cfg->free_failures)
		return 0;
	for (i = cfg->free_failures + 1; i < n && d < cfg->max_ms; i++)
		d *= 2;
	return d < cfg->max_ms ? d : cfg->max_ms;
}

static bool
throttle_quiet(const struct throttle *t, const struct throttle_entry *e, uint64_t now_ms)
{
	return now_ms >= e->last_ms && now_ms - e->last_ms >= t->cfg.quiet_ms;
}

static bool
throttle_key_valid(const char *key)
{
	size_t len = strnlen(key, THROTTLE_KEY_MAX);

	return len > 0 && len < THROTTLE_KEY_MAX;
}

/* The live entry of key at now_ms, or NULL (a quiet one is forgotten on the way). */
static struct throttle_entry *
throttle_find(struct throttle *t, const char *key, uint64_t now_ms)
{
	struct throttle_entry *e = strmap_get(&t->map, key);

	if (e != NULL && throttle_quiet(t, e, now_ms)) {
		throttle_remove(t, e);
		e = NULL;
	}
	return e;
}

/* 0 if an attempt is allowed for e at now_ms, or THROTTLE_EAGAIN with *retry_ms. */
static int
throttle_wait(const struct throttle *t, const struct throttle_entry *e, uint64_t now_ms,
              uint64_t *retry_ms)
{
	uint64_t until;

	if (e == NULL)
		return 0;
	until = e->last_ms + throttle_delay(&t->cfg, e->failures);
	if (now_ms >= until)
		return 0;
	*retry_ms = until - now_ms;
	return THROTTLE_EAGAIN;
}

int
throttle_check(struct throttle *t, const char *key, uint64_t now_ms, uint64_t *retry_ms)
{
	if (!throttle_key_valid(key))
		return THROTTLE_EINVAL;
	return throttle_wait(t, throttle_find(t, key, now_ms), now_ms, retry_ms);
}

int
throttle_begin(struct throttle *t, const char *key, uint64_t now_ms, uint64_t *retry_ms)
{
	struct throttle_entry *e;
	int rc;

	if (!throttle_key_valid(key))
		return THROTTLE_EINVAL;
	e = throttle_find(t, key, now_ms);
	if ((rc = throttle_wait(t, e, now_ms, retry_ms)) < 0)
		return rc;
	if (e == NULL) {
		throttle_expire(t, now_ms);
		if (strmap_count(&t->map) >= t->cfg.max_keys) {
			/* full of keys that are not quiet: the oldest goes */
			throttle_remove(t, TAILQ_FIRST(&t->order));
			t->evicted++;
		}
		e = xcalloc(1, sizeof *e);
		strcpy(e->key, key);
		strmap_put(&t->map, e->key, e);
	} else {
		TAILQ_REMOVE(&t->order, e, link);
	}
	if (e->failures < UINT32_MAX)
		e->failures++;
	/* a clock that steps back stands still: the list stays in order */
	if (now_ms > e->last_ms)
		e->last_ms = now_ms;
	if (!TAILQ_EMPTY(&t->order) && TAILQ_LAST(&t->order, throttle_order)->last_ms > e->last_ms)
		e->last_ms = TAILQ_LAST(&t->order, throttle_order)->last_ms;
	TAILQ_INSERT_TAIL(&t->order, e, link);
	return 0;
}

uint32_t
throttle_failures(struct throttle *t, const char *key, uint64_t now_ms)
{
	struct throttle_entry *e;

	if (!throttle_key_valid(key) || (e = throttle_find(t, key, now_ms)) == NULL)
		return 0;
	return e->failures;
}

void
throttle_success(struct throttle *t, const char *key)
{
	struct throttle_entry *e;

	if (!throttle_key_valid(key) || (e = strmap_get(&t->map, key)) == NULL)
		return;
	if (e->failures > 0)
		e->failures--;
	if (e->failures == 0)
		throttle_remove(t, e);
}

void
throttle_forget(struct throttle *t, const char *key)
{
	struct throttle_entry *e;

	if (throttle_key_valid(key) && (e = strmap_get(&t->map, key)) != NULL)
		throttle_remove(t, e);
}

void
throttle_expire(struct throttle *t, uint64_t now_ms)
{
	struct throttle_entry *e;

	while ((e = TAILQ_FIRST(&t->order)) != NULL && throttle_quiet(t, e, now_ms))
		throttle_remove(t, e);
}

size_t
throttle_count(const struct throttle *t)
{
	return strmap_count(&t->map);
}

uint64_t
throttle_evicted(const struct throttle *t)
{
	return t->evicted;
}

int
throttle_key_from_addr(const struct sockaddr *sa, char key[THROTTLE_KEY_MAX])
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	struct in6_addr prefix;
	struct in_addr v4;
	char text[INET6_ADDRSTRLEN];

	switch (sa->sa_family) {
	case AF_INET:
		memcpy(&v4, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, sizeof v4);
		break;
	case AF_INET6:
		memcpy(&prefix, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
		       sizeof prefix);
		if (memcmp(prefix.s6_addr, mapped, sizeof mapped) == 0) {
			memcpy(&v4, prefix.s6_addr + 12, sizeof v4);
			break;
		}
		/* one host, or one customer, commonly holds a whole /64 */
		memset(prefix.s6_addr + 8, 0, 8);
		if (inet_ntop(AF_INET6, &prefix, text, sizeof text) == NULL)
			return THROTTLE_EINVAL;
		snprintf(key, THROTTLE_KEY_MAX, "%s/64", text);
		return 0;
	default:
		return THROTTLE_EINVAL;
	}
	if (inet_ntop(AF_INET, &v4, key, THROTTLE_KEY_MAX) == NULL)
		return THROTTLE_EINVAL;
	return 0;
}
