/*
 * quota.c: per-address allowances: connections, requests a second, creates a minute, games,
 * new sessions a minute, sessions held, and accounts registered an hour and a day.
 *
 * Owns its entries: one per key, found through a strmap whose keys borrow the entry's own copy of
 * the key. An entry lives while it holds a connection, a game or a session, or while one of its
 * buckets or its window of creates is not whole again; quota_expire() frees the rest. Time comes in
 * as a parameter; a clock that steps back is treated as standing still. Never does I/O.
 */
#include "quota.h"

#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "throttle.h"
#include "xmalloc.h"

/*
 * A token bucket counted in units of 1/period_ms of a token, so that filling it at n tokens a
 * period adds n units a millisecond: integers only.
 */
struct quota_bucket {
	uint64_t units;  /* what the bucket holds */
	uint64_t at_ms;  /* when it was last filled up to */
	unsigned in_use; /* it was ever drawn from */
};

/* The shape of a bucket: n tokens a period, full at burst periods' worth. */
struct quota_rate {
	uint64_t n;         /* tokens a period */
	uint64_t period_ms; /* the period; also the units of one token */
	uint64_t burst;     /* periods' worth the bucket holds */
};

/* A count in a window of fixed length that begins at its first count. */
struct quota_window {
	unsigned n;     /* counted in it; 0: no window running */
	uint64_t at_ms; /* when it began */
};

struct quota_entry {
	char key[THROTTLE_KEY_MAX];
	unsigned conns;               /* connections held */
	unsigned games;               /* games not over held */
	unsigned sessions;            /* sessions held (kept for resume) */
	struct quota_bucket requests; /* requests a second */
	struct quota_bucket hellos;   /* new sessions a minute */
	unsigned creates;             /* creates in the current window */
	uint64_t window_ms;           /* when the current window of creates began */
	struct quota_window reg_hour; /* accounts registered this hour */
	struct quota_window reg_day;  /* ... and this day */
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

/* Fill b for the time since it was last filled, up to its full size. */
static void
bucket_fill(struct quota_bucket *b, const struct quota_rate *r, uint64_t now_ms)
{
	uint64_t full = r->n * r->period_ms * r->burst;

	if (!b->in_use) {
		b->in_use = 1;
		b->units = full;
		b->at_ms = now_ms;
		return;
	}
	if (now_ms <= b->at_ms)
		return;
	b->units += (now_ms - b->at_ms) * r->n;
	if (b->units > full)
		b->units = full;
	b->at_ms = now_ms;
}

/* Take a token from b at now_ms: 0, or QUOTA_EAGAIN with *retry_ms to the next whole one. */
static int
bucket_take(struct quota_bucket *b, const struct quota_rate *r, uint64_t now_ms, uint64_t *retry_ms)
{
	bucket_fill(b, r, now_ms);
	if (b->units < r->period_ms) {
		/* the next whole token comes in (one - units) / n milliseconds, rounded up */
		*retry_ms = (r->period_ms - b->units + r->n - 1) / r->n;
		if (*retry_ms == 0)
			*retry_ms = 1;
		return QUOTA_EAGAIN;
	}
	b->units -= r->period_ms;
	return 0;
}

/* Whether b is full again at now_ms (or was never drawn from). */
static int
bucket_whole(struct quota_bucket *b, const struct quota_rate *r, uint64_t now_ms)
{
	if (!b->in_use)
		return 1;
	bucket_fill(b, r, now_ms);
	return b->units >= r->n * r->period_ms * r->burst;
}

/* The requests' bucket: rate a second, bursts of two seconds' worth. */
static struct quota_rate
rate_requests(const struct quota *q)
{
	return (struct quota_rate){.n = q->cfg.rate, .period_ms = 1000, .burst = 2};
}

/* The new sessions' bucket: sessions a minute, bursts of two minutes' worth. */
static struct quota_rate
rate_hellos(const struct quota *q)
{
	return (struct quota_rate){.n = q->cfg.sessions, .period_ms = 60000, .burst = 2};
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

/* Whether w (of length len_ms) runs at now_ms: counted something, not over. */
static int
window_running(const struct quota_window *w, uint64_t len_ms, uint64_t now_ms)
{
	return w->n > 0 && now_ms >= w->at_ms && now_ms - w->at_ms < len_ms;
}

/*
 * Whether one more may be counted in w (of length len_ms, at most max a window; 0: no limit)
 * at now_ms: 1, or 0 with *retry_ms until it ends. A window that ended starts again.
 */
static int
window_room(struct quota_window *w, uint64_t len_ms, unsigned max, uint64_t now_ms,
            uint64_t *retry_ms)
{
	if (max == 0)
		return 1;
	if (!window_running(w, len_ms, now_ms)) {
		w->n = 0;
		w->at_ms = now_ms;
	}
	if (w->n < max)
		return 1;
	*retry_ms = len_ms - (now_ms - w->at_ms);
	return 0;
}

/* Free e now if it holds nothing and has no allowance being spent (no clock needed). */
static void
entry_drop_empty(struct quota *q, struct quota_entry *e)
{
	if (e->conns > 0 || e->games > 0 || e->sessions > 0 || e->creates > 0 ||
	    e->requests.in_use || e->hellos.in_use || e->reg_hour.n > 0 || e->reg_day.n > 0)
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
	struct quota_rate r = rate_requests(q);

	if (q->cfg.rate == 0)
		return 0;
	return bucket_take(&entry_get(q, key)->requests, &r, now_ms, retry_ms);
}

int
quota_session_begin(struct quota *q, const char *key, uint64_t now_ms, uint64_t *retry_ms)
{
	struct quota_rate r = rate_hellos(q);

	if (q->cfg.sessions == 0)
		return 0;
	return bucket_take(&entry_get(q, key)->hellos, &r, now_ms, retry_ms);
}

int
quota_register_begin(struct quota *q, const char *key, uint64_t now_ms, uint64_t *retry_ms)
{
	struct quota_entry *e;
	uint64_t hour = 0, day = 0;
	int room_hour, room_day;

	if (q->cfg.registers_hour == 0 && q->cfg.registers_day == 0)
		return 0;
	e = entry_get(q, key);
	room_hour = window_room(&e->reg_hour, QUOTA_HOUR_MS, q->cfg.registers_hour, now_ms, &hour);
	room_day = window_room(&e->reg_day, QUOTA_DAY_MS, q->cfg.registers_day, now_ms, &day);
	if (!room_hour || !room_day) {
		*retry_ms = hour > day ? hour : day;
		return QUOTA_EAGAIN;
	}
	if (q->cfg.registers_hour != 0)
		e->reg_hour.n++;
	if (q->cfg.registers_day != 0)
		e->reg_day.n++;
	return 0;
}

void
quota_session_add(struct quota *q, const char *key)
{
	if (q->cfg.sessions != 0)
		entry_get(q, key)->sessions++;
}

void
quota_session_remove(struct quota *q, const char *key)
{
	struct quota_entry *e = strmap_get(&q->map, key);

	if (q->cfg.sessions == 0 || e == NULL || e->sessions == 0)
		return;
	e->sessions--;
	entry_drop_empty(q, e);
}

unsigned
quota_sessions(const struct quota *q, const char *key)
{
	const struct quota_entry *e = strmap_get(&q->map, key);

	return e != NULL ? e->sessions : 0;
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
	struct quota_rate requests = rate_requests(q), hellos = rate_hellos(q);

	if (e->conns > 0 || e->games > 0 || e->sessions > 0)
		return 0;
	if (e->creates > 0 && now_ms >= e->window_ms &&
	    now_ms - e->window_ms < QUOTA_CREATE_WINDOW_MS)
		return 0;
	if (window_running(&e->reg_hour, QUOTA_HOUR_MS, now_ms) ||
	    window_running(&e->reg_day, QUOTA_DAY_MS, now_ms))
		return 0;
	return bucket_whole(&e->requests, &requests, now_ms) &&
	       bucket_whole(&e->hellos, &hellos, now_ms);
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
