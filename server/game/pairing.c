/*
 * pairing.c: a second player takes the open seat of a game, which starts: for join and quick
 * (match.c), and for the rated quick pool between requests.
 *
 * The rated pool: a quick that finds no partner opens a game of the pool and waits there, and its
 * window widens as it waits (rating_quick_window()). Two players who wait in the same pool (kind,
 * variant, clock) are paired as soon as their windows cover each other, without any request:
 * lobby_arm() wakes the game layer at the next moment a window widens (lb->quick_due, kept here)
 * and pairing_wake() applies the pool's rule (pool_pair()) to the waiters whose connection is
 * there; a waiter away is not paired until it is back, and one who left ended its game and is out
 * of the pool. Of a pair, the longer waiter keeps its game and gets seated and started as at a
 * join; the other's open game ends (as when it leaves) and it gets the started game's state,
 * unasked (PROTOCOL.md quick). It owns nothing: the tables and sessions are the lobby's. Part of
 * the game layer: no libuv.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "pairing.h"
#include "pool.h"
#include "xmalloc.h"

/* The address a session counts for: its connection's, or (away) the one that made it. */
static const char *
session_addr(const struct session *s)
{
	return s->peer != NULL ? s->peer->addr : s->addr;
}

void
pairing_rated_start(struct lobby *lb, struct table *t, struct session *const p[2])
{
	const char *addr[2];
	enum event_unrated why = EVENT_UNRATED_NONE;
	int64_t now = (int64_t)lobby_time(lb);
	unsigned n;

	t->unrated = EVENT_UNRATED_NONE;
	if (!t->rated || p[0] == NULL || p[1] == NULL || p[0]->account == 0 || p[1]->account == 0)
		return;
	addr[0] = session_addr(p[0]);
	addr[1] = session_addr(p[1]);
	if (!lb->cfg.allow_shared_address && addr[0][0] != '\0' && strcmp(addr[0], addr[1]) == 0)
		why = EVENT_UNRATED_SAME_ADDRESS;
	else if (lb->cfg.pair_rated > 0 &&
	         rating_book_pair_count(&lb->ratings, p[0]->account, p[1]->account,
	                                now - RATING_PAIR_WINDOW_MS) >= lb->cfg.pair_rated)
		why = EVENT_UNRATED_PAIR_LIMIT;
	if (why == EVENT_UNRATED_NONE)
		return;
	t->unrated = why;
	if ((n = rating_book_log_due(&lb->ratings, why, now)) > 0)
		log_info(
		        "game %s (%s vs %s) is played casual: %s; %u rated game%s played casual so "
		        "lately",
		        t->id, p[0]->name, p[1]->name, event_unrated_name(why), n,
		        n == 1 ? "" : "s");
}

void
pairing_join(struct lobby *lb, struct session *s, struct table *t, json_t *id)
{
	struct table *old = s->table;
	int seat;

	lobby_session_leave(lb, s);
	if (old != NULL && old != t)
		lobby_touched(lb, old);
	seat = t->seat_taken[0] ? 1 : 0;
	table_seat(t, seat, s);
	table_seated_emit(t, seat, s);
	pairing_rated_start(lb, t, t->seat);
	table_start(t, s);
	lobby_finished_touch(lb, t);
	log_info("%s (%s) joined game %s as %s: game started", s->id, s->name, t->id,
	         game_side_name(t->kind, seat));
	lobby_send(lb, s->peer, table_state_new(t, s, id));
	table_your_turn(t);
}

/* A game of the rated pool with its waiting player (seat). */
struct pairing_entry {
	struct table *t;
	int seat;
	struct pool_waiter w;
};

/* Whether t is a game of the rated pool: open, public, rated. Its waiter sits at *seat. */
static int
in_pool(const struct table *t, int *seat)
{
	*seat = t->seat_taken[0] ? 0 : 1;
	return t->st.status == EVENT_STATUS_OPEN && !t->is_private && t->rated &&
	       t->seat_taken[*seat];
}

/* The account's rating in kind, as stored. */
static double
rating_of(struct lobby *lb, int64_t account, enum game_kind kind)
{
	struct glicko g;

	rating_book_glicko(&lb->ratings, account, kind, &g);
	return g.rating;
}

/* By pool (kind, variant, clock), then by wait, longest first, then by table order. */
static int
by_pool(const void *a, const void *b)
{
	const struct pairing_entry *x = a, *y = b;
	int c;

	if (x->t->kind != y->t->kind)
		return x->t->kind < y->t->kind ? -1 : 1;
	if ((c = strcmp(x->t->variant, y->t->variant)) != 0)
		return c;
	if (x->t->base_ms != y->t->base_ms)
		return x->t->base_ms < y->t->base_ms ? -1 : 1;
	if (x->t->inc_ms != y->t->inc_ms)
		return x->t->inc_ms < y->t->inc_ms ? -1 : 1;
	if (x->w.since != y->w.since)
		return x->w.since < y->w.since ? -1 : 1;
	return x->t->serial < y->t->serial ? -1 : x->t->serial > y->t->serial;
}

/* Whether x and y wait in the same pool. */
static int
same_pool(const struct pairing_entry *x, const struct pairing_entry *y)
{
	return x->t->kind == y->t->kind && strcmp(x->t->variant, y->t->variant) == 0 &&
	       x->t->base_ms == y->t->base_ms && x->t->inc_ms == y->t->inc_ms;
}

/* Pair the n connected waiters e of one pool (sorted by wait) at now. */
static void
pair_pool(struct lobby *lb, struct pairing_entry *e, size_t n, uint64_t now)
{
	struct pool_waiter *w = xmalloc(n * sizeof *w);
	size_t *partner = xmalloc(n * sizeof *partner);

	for (size_t i = 0; i < n; i++)
		w[i] = e[i].w;
	if (pool_pair(w, n, now, partner) > 0)
		for (size_t i = 0; i < n; i++) {
			struct session *s;

			if (partner[i] == POOL_NONE || partner[i] < i)
				continue;
			/* i waited longer (the entries are sorted by wait): it keeps its game */
			s = e[partner[i]].t->seat[e[partner[i]].seat];
			log_info("rated pool: %s (%s) and %s (%s) paired after %llu s", s->id,
			         s->name, e[i].t->seat_id[e[i].seat], e[i].t->seat_name[e[i].seat],
			         (unsigned long long)((now - e[i].w.since) / 1000));
			pairing_join(lb, s, e[i].t, NULL);
			lobby_touched(lb, e[i].t);
		}
	free(w);
	free(partner);
}

/* Pair the waiters whose windows cover each other now, and note the next widening. */
static void
pairing_scan(struct lobby *lb)
{
	uint64_t now = lobby_time(lb), due = UINT64_MAX;
	struct pairing_entry *e = NULL;
	size_t n = 0, cap = 0, waiting = 0;

	if (lb->store_down != NULL) /* a game that starts could not be stored: later */
		return;
	for (size_t i = 0; i < lb->ntables; i++) {
		struct table *t = lb->tables[i];
		int seat;

		if (!in_pool(t, &seat))
			continue;
		waiting++;
		/* one away may come back: its widenings still wake us */
		if (pool_next_widening(t->opened_at, now) < due)
			due = pool_next_widening(t->opened_at, now);
		if (!table_connected(t, seat))
			continue;
		e = xgrow(e, n, &cap, sizeof *e, 8);
		e[n].t = t;
		e[n].seat = seat;
		e[n].w.rating = rating_of(lb, t->seat_account[seat], t->kind);
		e[n].w.since = t->opened_at;
		n++;
	}
	if (n > 1) {
		qsort(e, n, sizeof *e, by_pool);
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && same_pool(&e[i], &e[j]); j++)
				;
			if (j - i > 1)
				pair_pool(lb, e + i, j - i, now);
		}
	}
	free(e);
	/* a lone waiter has nobody to be paired with: no wake-up for it (a quick sets one) */
	lb->quick_due = waiting > 1 ? due : UINT64_MAX;
	lobby_prune(lb);
	lobby_arm(lb);
}

void
pairing_wake(struct lobby *lb)
{
	/* a wake-up for a deadline of another kind: no window widened since the last look */
	if (lobby_time(lb) >= lb->quick_due)
		pairing_scan(lb);
}

void
pairing_restore(struct lobby *lb)
{
	pairing_scan(lb);
}
