/*
 * durable.c: from game events to store writes, and the group commit with its timings.
 *
 * One event can mean several writes, decided by its type: the first event of a game (seq 1, a
 * "seated") adds the game; "seated" records the seat and the seated player's session (its token,
 * so that it can resume after a restart); "started" and "resumed" make the game live and
 * "adjourned" adjourned; "game_over" records the end; and every event is stored with its line
 * exactly as it is sent (the store copies the wire's bytes), for the byte-exact replay
 * of reconnection. Nothing here decides anything: the game layer did, this only writes it down.
 * Each event comes with all it needs: the table it happened at (whose seats carry the seated
 * players' tokens) and the event's line; the id counters are handed to each commit. It never
 * calls back into the game layer. It owns its timings; the store is borrowed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "durable.h"
#include "log.h"
#include "xmalloc.h"

#define DURABLE_BUCKETS 24 /* histogram buckets: < 1 us, < 2 us, ... < 2^23 us (8 s), more */

struct durable {
	struct store_write_port store;      /* a copy; its impl is borrowed */
	unsigned saved_player, saved_game;  /* id counters as last queued */
	int failed;                         /* a write failed: the next commit reports it */
	struct store_error err;             /* what failed */
	uint64_t commits;                   /* commits that had something to write */
	uint64_t writes;                    /* writes they carried */
	uint64_t total_us, max_us;          /* time they blocked the loop */
	uint64_t hist[DURABLE_BUCKETS + 1]; /* hist[i]: commits of < 2^i us; the last: longer */
};

int64_t
durable_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Monotonic microseconds, for the commit timings. */
static uint64_t
mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

struct durable *
durable_create(const struct store_write_port *st, unsigned next_player, unsigned next_game)
{
	struct durable *d = xcalloc(1, sizeof *d);

	d->store = *st;
	d->saved_player = next_player;
	d->saved_game = next_game;
	return d;
}

void
durable_free(struct durable *d)
{
	if (d == NULL)
		return;
	durable_stats_log(d);
	free(d);
}

static void stats_write(const struct durable *d, enum log_level level);

/* Keep the first failure (rc < 0) for the next commit. Returns rc. */
static int
durable_check(struct durable *d, int rc, struct store_error *err)
{
	if (rc < 0 && !d->failed) {
		d->failed = 1;
		d->err = *err;
	}
	return rc;
}

/* The writes of a new game (its first event). */
static int
durable_game_add(struct durable *d, const struct table *t, int64_t now, struct store_error *err)
{
	struct store_game g;

	memset(&g, 0, sizeof g);
	snprintf(g.id, sizeof g.id, "%s", t->id);
	g.kind = t->kind;
	snprintf(g.variant, sizeof g.variant, "%s", t->variant);
	g.seed = t->seed;
	g.is_private = t->is_private;
	snprintf(g.code, sizeof g.code, "%s", t->code);
	g.created_ms = now;
	g.rated = t->rated;
	snprintf(g.clock, sizeof g.clock, "%.*s", STORE_WORD_MAX - 1, t->control);
	return d->store.game_add(d->store.impl, &g, err);
}

/* A player took a seat: the seat, and the session that will resume it after a restart. */
static int
durable_seated(struct durable *d, const struct table *t, const struct event *ev, int64_t now,
               struct store_error *err)
{
	int seat = ev->u.seated.seat;
	struct store_session ss;
	int rc;

	rc = d->store.seat_set(d->store.impl, t->id, seat, t->seat_id[seat], t->seat_name[seat],
	                       t->seat[seat] != NULL ? t->seat[seat]->account : 0, err);
	if (rc < 0)
		return rc;
	/* the computer's seat has no session (and no token) */
	if (t->seat_token[seat][0] == '\0')
		return 0;
	memset(&ss, 0, sizeof ss);
	snprintf(ss.token, sizeof ss.token, "%s", t->seat_token[seat]);
	snprintf(ss.player_id, sizeof ss.player_id, "%s", t->seat_id[seat]);
	snprintf(ss.name, sizeof ss.name, "%s", t->seat_name[seat]);
	snprintf(ss.game_id, sizeof ss.game_id, "%s", t->id);
	ss.seat = seat;
	ss.updated_ms = now;
	ss.account = t->seat[seat] != NULL ? t->seat[seat]->account : 0;
	return d->store.session_set(d->store.impl, &ss, err);
}

/*
 * A rated game's change of seat i, as its game_over carries it (the volatility included): in the
 * transaction of the game's end, so a crash keeps both or neither.
 */
static int
durable_rating(struct durable *d, const struct table *t, const struct event *ev, int i, int64_t now,
               struct store_error *err)
{
	const struct event_rating_change *r = &ev->u.game_over.ratings[i];
	const struct event_outcome *o = &ev->u.game_over.outcome;
	struct store_rating_change c = {
	        .seat = i,
	        .account = t->seat_account[i],
	        .kind = t->kind,
	        .before = {r->before.rating, r->before.rd, r->before.vol},
	        .after = {r->after.rating, r->after.rd, r->after.vol},
	        .score = o->result == EVENT_RESULT_DRAW ? 0.5
	                 : o->winner == i               ? 1.0
	                                                : 0.0,
	};

	return d->store.rating_change(d->store.impl, t->id, &c, now, err);
}

/*
 * The game is over: its end. The players' sessions stay: a player that missed the game_over in
 * a crash resumes at the finished game and gets it; the row is replaced when the player sits down
 * elsewhere, and dropped at a restart once the game is no longer held (restore_lobby()).
 */
static int
durable_over(struct durable *d, const struct table *t, const struct event *ev, int64_t now,
             struct store_error *err)
{
	int score[2] = {(int)t->st.scores.v[0], (int)t->st.scores.v[1]};
	int rc = d->store.game_finish(d->store.impl, t->id, now, event_result_name(t->st.result),
	                              t->st.winner, event_reason_name(t->st.reason),
	                              t->st.scores.has ? score : NULL, err);

	for (int i = 0; rc == 0 && ev->u.game_over.rated && i < 2; i++)
		rc = durable_rating(d, t, ev, i, now, err);
	return rc;
}

void
durable_event(struct durable *d, const struct table *t, int64_t seq, enum msg_type type,
              const struct event *ev, const struct wire *w)
{
	struct store_event se;
	struct store_error err;
	int64_t now = durable_wall_ms();
	int rc = 0;

	if (d->failed)
		return;
	if (event_state_unplayed(&t->st)) {
		/* a game that never started is not kept past its end (issue 23): it goes with its
		 * events in the commit of its end, and what follows there is not stored */
		if (type == MSG_GAME_OVER && seq > 1)
			durable_check(d, d->store.game_drop(d->store.impl, t->id, &err), &err);
		return;
	}
	if (seq == 1)
		rc = durable_game_add(d, t, now, &err);
	if (rc == 0 && type == MSG_SEATED)
		rc = durable_seated(d, t, ev, now, &err);
	if (rc == 0 && (type == MSG_STARTED || type == MSG_RESUMED || type == MSG_ADJOURNED))
		rc = d->store.status_set(d->store.impl, t->id, event_status_name(t->st.status),
		                         &err);
	if (rc == 0) {
		se.seq = seq;
		se.time_ms = now;
		se.type = msg_type_name(type);
		se.move = type == MSG_MOVED ? t->moves[t->nmoves - 1] : NULL;
		se.body = w->data; /* the line as sent, without its '\n': stored from the wire */
		se.body_len = w->len - 1;
		rc = d->store.event_add(d->store.impl, t->id, &se, &err);
	}
	if (rc == 0 && type == MSG_GAME_OVER)
		rc = durable_over(d, t, ev, now, &err);
	durable_check(d, rc, &err);
}

void
durable_unseated(struct durable *d, const char *token)
{
	struct store_error err;

	if (!d->failed)
		durable_check(d, d->store.session_remove(d->store.impl, token, &err), &err);
}

void
durable_account_add(struct durable *d, struct store_account *row)
{
	struct store_error err;

	row->created_ms = durable_wall_ms();
	if (!d->failed)
		durable_check(d, d->store.account_add(d->store.impl, row, &err), &err);
}

void
durable_account_update(struct durable *d, struct store_account *row)
{
	struct store_error err;

	if (row->closed_ms < 0)
		row->closed_ms = durable_wall_ms();
	if (row->banned_ms < 0)
		row->banned_ms = durable_wall_ms();
	if (!d->failed)
		durable_check(d, d->store.account_update(d->store.impl, row, &err), &err);
}

int
durable_sweep(struct durable *d, int64_t before_ms, unsigned max)
{
	struct store_error err;

	if (d->failed)
		return 0;
	return durable_check(d, d->store.sweep(d->store.impl, before_ms, max, &err), &err);
}

/*
 * Group commit. Whatever the loop turn did (a hundred moves in a hundred games, or one hello)
 * becomes durable in one transaction with one wait for the disk, and the network layer sends the
 * turn's replies and events only after this returns (and, for an offloaded store with --fsync
 * always, after the sync that follows it: turn.c): so a move is acknowledged (to the mover
 * with ok, to the others with moved) only once it survives a crash, and a crash before the commit
 * loses nothing anybody heard of. The id counters go in the same transaction, so a restart never
 * gives out an id that a client has seen.
 */
int
durable_commit(struct durable *d, unsigned np, unsigned ng, struct store_error *err)
{
	uint64_t t0, us;
	size_t pending;
	int b, rc;

	if (d->failed) {
		*err = d->err;
		return err->code < 0 ? err->code : STORE_EIO;
	}
	if (np != d->saved_player &&
	    durable_check(d, d->store.meta_set(d->store.impl, "next_player", np, err), err) < 0)
		return err->code;
	if (ng != d->saved_game &&
	    durable_check(d, d->store.meta_set(d->store.impl, "next_game", ng, err), err) < 0)
		return err->code;
	d->saved_player = np;
	d->saved_game = ng;
	pending = d->store.pending(d->store.impl);
	if (pending == 0)
		return 0;
	t0 = mono_us();
	rc = d->store.commit(d->store.impl, err);
	us = mono_us() - t0;
	if (durable_check(d, rc, err) < 0)
		return rc;
	d->commits++;
	d->writes += pending;
	d->total_us += us;
	if (us > d->max_us)
		d->max_us = us;
	for (b = 0; b < DURABLE_BUCKETS && us >= (1ull << b); b++)
		;
	d->hist[b]++;
	if (d->commits % 10000 == 0)
		stats_write(d, LOG_DEBUG);
	return 1;
}

/* Write the timings to the log at level. */
static void
stats_write(const struct durable *d, enum log_level level)
{
	char line[512];
	size_t len = 0;

	if (d->commits == 0)
		return;
	for (int b = 0; b <= DURABLE_BUCKETS; b++) {
		if (d->hist[b] == 0)
			continue;
		if (b == DURABLE_BUCKETS)
			len += (size_t)snprintf(line + len, sizeof line - len, " >=%lluus:%llu",
			                        1ull << (DURABLE_BUCKETS - 1),
			                        (unsigned long long)d->hist[b]);
		else
			len += (size_t)snprintf(line + len, sizeof line - len, " <%lluus:%llu",
			                        1ull << b, (unsigned long long)d->hist[b]);
		if (len >= sizeof line)
			break;
	}
	log_write(level,
	          "store: %llu group commits, %llu writes (%.1f a commit), loop blocked %.1f us a "
	          "commit on average, %llu us at most; histogram%s",
	          (unsigned long long)d->commits, (unsigned long long)d->writes,
	          (double)d->writes / (double)d->commits, (double)d->total_us / (double)d->commits,
	          (unsigned long long)d->max_us, line);
}

int
durable_may_lag(const struct durable *d)
{
	return d->store.is_temporary(d->store.impl);
}

void
durable_stats_log(const struct durable *d)
{
	stats_write(d, LOG_INFO);
}
