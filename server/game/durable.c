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
 *
 * Every write of the turn is also kept here (struct durable_rec: a copy of its arguments, a
 * reference to an event's line) until the turn's commit has succeeded, because a commit that
 * fails is rolled back in the store while the game layer has applied the turn in memory and
 * cannot take it back. When the failure is a lack of room (STORE_EIO: a full disk, a quota, an
 * I/O error while writing) the kept writes wait: the store is "down" (durable_down()), the later
 * writes are only kept, not sent to the store, and durable_retry() sends all of them again, in
 * order, into a new transaction and commits it. Any other failure is the caller's to stop on.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "durable.h"
#include "event.h"
#include "log.h"
#include "xmalloc.h"

#define DURABLE_BUCKETS 24 /* histogram buckets: < 1 us, < 2 us, ... < 2^23 us (8 s), more */

/*
 * The id counters are stored as marks ahead of them (durable_mark()): the ids below a stored mark
 * may have been given out, so a restart goes on from the mark, and an id given out in a turn
 * whose commit is lost (a kill while the disk is full) is never given out again. A mark moves
 * this far ahead in the commit of a turn that moved its counter to within half of it (a turn
 * that gave out no id writes none: a start that fails leaves the store as it was).
 */
#define DURABLE_ID_BLOCK 256

/* The kinds of write a turn makes (struct durable_rec). */
enum durable_op {
	DURABLE_GAME_ADD,
	DURABLE_SEAT,
	DURABLE_STATUS,
	DURABLE_EVENT,
	DURABLE_FINISH,
	DURABLE_RATING,
	DURABLE_UNRATED,
	DURABLE_GAME_DROP,
	DURABLE_SWEEP,
	DURABLE_SESSION_SET,
	DURABLE_SESSION_REMOVE,
	DURABLE_ACCOUNT_ADD,
	DURABLE_ACCOUNT_UPDATE,
	DURABLE_ACCOUNT_DROP,
};

/* The arguments of a seat_set. */
struct durable_seat {
	int seat;
	char player_id[STORE_ID_MAX];
	char name[STORE_NAME_MAX];
	int64_t account; /* 0: a guest, the computer */
};

/* The arguments of a game_finish. */
struct durable_finish {
	int64_t ended_ms;
	const char *result, *reason; /* static words (event.h) */
	int winner;
	int has_score;
	int score[2];
};

/*
 * One write of the turn, kept until a commit holds it. An event (the hot path) keeps a reference
 * to its line and nothing allocated; the other writes, rarer, an owned copy of their arguments.
 */
struct durable_rec {
	enum durable_op op;
	char game_id[STORE_ID_MAX]; /* every write but the sessions' and the accounts' */
	int64_t seq, time_ms;       /* an event; a rating change's time; a sweep's before_ms */
	const char *word;           /* an event's type, a status: static words */
	char move[GAME_MOVE_TEXT];  /* a moved event's move, else "" */
	struct wire *w;             /* an event's line: a reference */
	void *copy;                 /* the other writes: their arguments (owned) */
};

/*
 * A commit in flight (its ticket not answered yet): the kept writes recs[0..end) are durable once
 * it is, and then so are the marks it wrote.
 */
struct durable_flight {
	uint64_t ticket;
	size_t end;              /* d->nrecs when it was committed */
	unsigned mark_p, mark_g; /* the id marks it stored */
	unsigned last_p, last_g; /* the counters it stored them for */
};

struct durable {
	struct store_write_port store;       /* a copy; its impl is borrowed */
	unsigned saved_player, saved_game;   /* the id marks as last committed (durable_mark()) */
	unsigned last_player, last_game;     /* the counters at the last commit */
	unsigned acked_player, acked_game;   /* the marks of the last commit known durable ... */
	unsigned acked_last_p, acked_last_g; /* ... and its counters */
	int failed;                          /* a write failed: the next commit reports it */
	int down;                            /* a commit failed for lack of room: writes wait */
	int retrying;                        /* down, and a retry's commit is in flight */
	struct store_error err;              /* what failed */
	struct durable_rec *recs;            /* the writes since the last commit known durable */
	size_t nrecs, recs_cap;
	struct durable_flight *flights; /* the commits in flight, oldest first */
	size_t nflights, flights_cap;
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
	durable_counters_restored(d, next_player, next_game);
	return d;
}

/* Forget the first n kept writes: a commit holds them (or the durable goes). */
static void
durable_forget_first(struct durable *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		wire_unref(d->recs[i].w);
		free(d->recs[i].copy);
	}
	if (n > 0 && d->nrecs > n)
		memmove(d->recs, d->recs + n, (d->nrecs - n) * sizeof *d->recs);
	d->nrecs -= n;
	for (size_t i = 0; i < d->nflights; i++)
		d->flights[i].end -= n;
}

/* Forget every kept write. */
static void
durable_forget(struct durable *d)
{
	durable_forget_first(d, d->nrecs);
}

void
durable_free(struct durable *d)
{
	if (d == NULL)
		return;
	durable_stats_log(d);
	durable_forget(d);
	free(d->recs);
	free(d->flights);
	free(d);
}

/* Keep one more write of op for game_id (NULL: none); copy (owned, may be NULL) its arguments. */
static struct durable_rec *
durable_keep(struct durable *d, enum durable_op op, const char *game_id, void *copy)
{
	struct durable_rec *r;

	d->recs = xgrow(d->recs, d->nrecs, &d->recs_cap, sizeof *d->recs, 64);
	r = &d->recs[d->nrecs++];
	r->op = op;
	snprintf(r->game_id, sizeof r->game_id, "%s", game_id != NULL ? game_id : "");
	r->seq = r->time_ms = 0;
	r->word = NULL;
	r->move[0] = '\0';
	r->w = NULL;
	r->copy = copy;
	return r;
}

/* Send kept write r to the store's transaction. Returns 0 (a sweep: a count) or a negative store
 * error. */
static int
durable_apply(struct durable *d, const struct durable_rec *r, struct store_error *err)
{
	const struct durable_seat *seat = r->copy;
	const struct durable_finish *fin = r->copy;
	struct store_event se;

	switch (r->op) {
	case DURABLE_GAME_ADD:
		return d->store.game_add(d->store.impl, r->copy, err);
	case DURABLE_SEAT:
		return d->store.seat_set(d->store.impl, r->game_id, seat->seat, seat->player_id,
		                         seat->name, seat->account, err);
	case DURABLE_STATUS:
		return d->store.status_set(d->store.impl, r->game_id, r->word, err);
	case DURABLE_EVENT:
		se.seq = r->seq;
		se.time_ms = r->time_ms;
		se.type = r->word;
		se.move = r->move[0] != '\0' ? r->move : NULL;
		se.body = r->w->data; /* the line as sent, without its '\n': stored from the wire */
		se.body_len = r->w->len - 1;
		return d->store.event_add(d->store.impl, r->game_id, &se, err);
	case DURABLE_FINISH:
		return d->store.game_finish(d->store.impl, r->game_id, fin->ended_ms, fin->result,
		                            fin->winner, fin->reason,
		                            fin->has_score ? fin->score : NULL, err);
	case DURABLE_RATING:
		return d->store.rating_change(d->store.impl, r->game_id, r->copy, r->time_ms, err);
	case DURABLE_UNRATED:
		return d->store.game_unrated(d->store.impl, r->game_id, r->word, err);
	case DURABLE_GAME_DROP:
		return d->store.game_drop(d->store.impl, r->game_id, err);
	case DURABLE_SWEEP:
		return d->store.sweep(d->store.impl, r->time_ms, (unsigned)r->seq, err);
	case DURABLE_SESSION_SET:
		return d->store.session_set(d->store.impl, r->copy, err);
	case DURABLE_SESSION_REMOVE:
		return d->store.session_remove(d->store.impl, r->copy, err);
	case DURABLE_ACCOUNT_ADD:
		return d->store.account_add(d->store.impl, r->copy, err);
	case DURABLE_ACCOUNT_UPDATE:
		return d->store.account_update(d->store.impl, r->copy, err);
	case DURABLE_ACCOUNT_DROP:
		return d->store.account_drop(d->store.impl, r->seq, err);
	}
	return STORE_EINVAL;
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

/*
 * The last write kept goes to the store's transaction at once, unless a write of the turn failed
 * already (the commit reports that one) or the store is down (durable_retry() sends it).
 */
static int
durable_send_last(struct durable *d)
{
	struct store_error err;

	if (d->failed || d->down)
		return 0;
	return durable_check(d, durable_apply(d, &d->recs[d->nrecs - 1], &err), &err);
}

/* The writes of a new game (its first event). */
static void
durable_game_add(struct durable *d, const struct table *t, int64_t now)
{
	struct store_game *g = xcalloc(1, sizeof *g);

	snprintf(g->id, sizeof g->id, "%s", t->id);
	g->kind = t->kind;
	snprintf(g->variant, sizeof g->variant, "%s", t->variant);
	g->seed = t->seed;
	g->is_private = t->is_private;
	snprintf(g->code, sizeof g->code, "%s", t->code);
	g->created_ms = now;
	g->rated = t->rated;
	snprintf(g->clock, sizeof g->clock, "%.*s", STORE_WORD_MAX - 1, t->control);
	durable_keep(d, DURABLE_GAME_ADD, t->id, g);
	durable_send_last(d);
}

/* A player took a seat: the seat, and the session that will resume it after a restart. */
static void
durable_seated(struct durable *d, const struct table *t, const struct event *ev, int64_t now)
{
	int seat = ev->u.seated.seat;
	struct durable_seat *ds = xcalloc(1, sizeof *ds);
	struct store_session *ss;

	ds->seat = seat;
	snprintf(ds->player_id, sizeof ds->player_id, "%s", t->seat_id[seat]);
	snprintf(ds->name, sizeof ds->name, "%s", t->seat_name[seat]);
	ds->account = t->seat[seat] != NULL ? t->seat[seat]->account : 0;
	durable_keep(d, DURABLE_SEAT, t->id, ds);
	durable_send_last(d);
	/* the computer's seat has no session (and no token) */
	if (t->seat_token[seat][0] == '\0')
		return;
	ss = xcalloc(1, sizeof *ss);
	snprintf(ss->token, sizeof ss->token, "%s", t->seat_token[seat]);
	snprintf(ss->player_id, sizeof ss->player_id, "%s", t->seat_id[seat]);
	snprintf(ss->name, sizeof ss->name, "%s", t->seat_name[seat]);
	snprintf(ss->game_id, sizeof ss->game_id, "%s", t->id);
	ss->seat = seat;
	ss->updated_ms = now;
	ss->account = t->seat[seat] != NULL ? t->seat[seat]->account : 0;
	durable_keep(d, DURABLE_SESSION_SET, NULL, ss);
	durable_send_last(d);
}

/*
 * The game is over: its end. The players' sessions stay: a player that missed the game_over in
 * a crash resumes at the finished game and gets it; the row is replaced when the player sits down
 * elsewhere, and dropped at a restart once the game is no longer held (restore_lobby()).
 */
/*
 * A rated game's change of seat i, as its game_over carries it (the volatility included): in the
 * transaction of the game's end, so a crash keeps both or neither.
 */
static void
durable_rating(struct durable *d, const struct table *t, const struct event *ev, int i, int64_t now)
{
	const struct event_rating_change *r = &ev->u.game_over.ratings[i];
	const struct event_outcome *o = &ev->u.game_over.outcome;
	struct store_rating_change *c = xmalloc(sizeof *c);
	struct durable_rec *rec;

	*c = (struct store_rating_change){
	        .seat = i,
	        .account = t->seat_account[i],
	        .opponent = t->seat_account[1 - i],
	        .kind = t->kind,
	        .before = {r->before.rating, r->before.rd, r->before.vol},
	        .after = {r->after.rating, r->after.rd, r->after.vol},
	        .score = o->result == EVENT_RESULT_DRAW ? 0.5
	                 : o->winner == i               ? 1.0
	                                                : 0.0,
	};
	rec = durable_keep(d, DURABLE_RATING, t->id, c);
	rec->time_ms = now;
	durable_send_last(d);
}

static void
durable_over(struct durable *d, const struct table *t, const struct event *ev, int64_t now)
{
	struct durable_finish *fin = xcalloc(1, sizeof *fin);

	fin->ended_ms = now;
	fin->result = event_result_name(t->st.result);
	fin->reason = event_reason_name(t->st.reason);
	fin->winner = t->st.winner;
	fin->has_score = t->st.scores.has;
	fin->score[0] = (int)t->st.scores.v[0];
	fin->score[1] = (int)t->st.scores.v[1];
	durable_keep(d, DURABLE_FINISH, t->id, fin);
	durable_send_last(d);
	for (int i = 0; ev->u.game_over.rated && i < 2; i++)
		durable_rating(d, t, ev, i, now);
	if (ev->u.game_over.unrated != EVENT_UNRATED_NONE) { /* a rated game that rated nobody */
		struct durable_rec *r = durable_keep(d, DURABLE_UNRATED, t->id, NULL);

		r->word = event_unrated_name(ev->u.game_over.unrated);
		durable_send_last(d);
	}
}

void
durable_event(struct durable *d, const struct table *t, int64_t seq, enum msg_type type,
              const struct event *ev, const struct wire *w)
{
	int64_t now = durable_wall_ms();
	struct durable_rec *r;

	if (event_state_unplayed(&t->st)) {
		/* a game that never started is not kept past its end: it goes with its events in
		 * the commit of its end, and what follows there is not stored */
		if (type == MSG_GAME_OVER && seq > 1) {
			durable_keep(d, DURABLE_GAME_DROP, t->id, NULL);
			durable_send_last(d);
		}
		return;
	}
	if (seq == 1)
		durable_game_add(d, t, now);
	if (type == MSG_SEATED)
		durable_seated(d, t, ev, now);
	if (type == MSG_STARTED || type == MSG_RESUMED || type == MSG_ADJOURNED) {
		r = durable_keep(d, DURABLE_STATUS, t->id, NULL);
		r->word = event_status_name(t->st.status);
		durable_send_last(d);
	}
	r = durable_keep(d, DURABLE_EVENT, t->id, NULL);
	r->seq = seq;
	r->time_ms = now;
	r->word = msg_type_name(type);
	if (type == MSG_MOVED)
		snprintf(r->move, sizeof r->move, "%s", t->moves[t->nmoves - 1]);
	r->w = wire_ref((struct wire *)w); /* only read: the reference keeps it */
	durable_send_last(d);
	if (type == MSG_GAME_OVER)
		durable_over(d, t, ev, now);
}

void
durable_unseated(struct durable *d, const char *token)
{
	char *copy = xcalloc(1, STORE_TOKEN_MAX);

	snprintf(copy, STORE_TOKEN_MAX, "%s", token);
	durable_keep(d, DURABLE_SESSION_REMOVE, NULL, copy);
	durable_send_last(d);
}

/* Keep a copy of account row (op) and send it. */
static void
durable_account(struct durable *d, enum durable_op op, const struct store_account *row)
{
	struct store_account *copy = xmalloc(sizeof *copy);

	*copy = *row;
	durable_keep(d, op, NULL, copy);
	durable_send_last(d);
}

void
durable_account_add(struct durable *d, struct store_account *row)
{
	row->created_ms = durable_wall_ms();
	durable_account(d, DURABLE_ACCOUNT_ADD, row);
}

void
durable_account_update(struct durable *d, struct store_account *row)
{
	if (row->closed_ms < 0)
		row->closed_ms = durable_wall_ms();
	if (row->banned_ms < 0)
		row->banned_ms = durable_wall_ms();
	durable_account(d, DURABLE_ACCOUNT_UPDATE, row);
}

void
durable_account_drop(struct durable *d, int64_t id)
{
	struct durable_rec *r = durable_keep(d, DURABLE_ACCOUNT_DROP, NULL, NULL);

	r->seq = id;
	durable_send_last(d);
}

int
durable_sweep(struct durable *d, int64_t before_ms, unsigned max)
{
	struct durable_rec *r;

	if (d->down)
		return 0; /* housekeeping waits for a store that can write */
	r = durable_keep(d, DURABLE_SWEEP, NULL, NULL);
	r->time_ms = before_ms;
	r->seq = max;
	return durable_send_last(d);
}

/*
 * The mark to store for counter next, which was last when saved was stored: saved, or a new one
 * ahead.
 */
static unsigned
durable_mark(unsigned next, unsigned last, unsigned saved)
{
	if (next == last || (next < saved && saved - next >= DURABLE_ID_BLOCK / 2))
		return saved;
	return next > UINT32_MAX - DURABLE_ID_BLOCK ? next : next + DURABLE_ID_BLOCK;
}

void
durable_counters_restored(struct durable *d, unsigned np, unsigned ng)
{
	d->saved_player = d->last_player = d->acked_player = d->acked_last_p = np;
	d->saved_game = d->last_game = d->acked_game = d->acked_last_g = ng;
}

void
durable_marks(const struct durable *d, unsigned *player, unsigned *game)
{
	*player = d->saved_player;
	*game = d->saved_game;
}

/* Whether rc takes the store down (its writes wait and are retried) rather than stop the server. */
int
durable_down_code(int rc)
{
	return rc == STORE_EIO || rc == STORE_EFULL || rc == STORE_EUNAVAIL;
}

/* The commit of ticket (> 0) is in flight: the writes kept so far, and the marks, wait for it. */
static void
durable_fly(struct durable *d, uint64_t ticket, unsigned mp, unsigned mg, unsigned np, unsigned ng)
{
	struct durable_flight *f;

	d->flights = xgrow(d->flights, d->nflights, &d->flights_cap, sizeof *d->flights, 8);
	f = &d->flights[d->nflights++];
	*f = (struct durable_flight){ticket, d->nrecs, mp, mg, np, ng};
}

/* Every kept write and mark is durable. */
static void
durable_landed_all(struct durable *d)
{
	d->acked_player = d->saved_player;
	d->acked_game = d->saved_game;
	d->acked_last_p = d->last_player;
	d->acked_last_g = d->last_game;
	d->nflights = 0;
	durable_forget(d);
}

/*
 * The counters, then the commit, timed. Returns 1, 0 (nothing queued) or a negative store error;
 * *ticket as the write port's commit() set it (0: durable now).
 */
static int
durable_flush(struct durable *d, unsigned np, unsigned ng, uint64_t *ticket,
              struct store_error *err)
{
	unsigned mp = durable_mark(np, d->last_player, d->saved_player);
	unsigned mg = durable_mark(ng, d->last_game, d->saved_game);
	uint64_t t0, us;
	size_t pending;
	int b, rc;

	*ticket = 0;
	if (d->failed) {
		*err = d->err;
		return err->code < 0 ? err->code : STORE_EIO;
	}
	if (mp != d->saved_player &&
	    (rc = d->store.meta_set(d->store.impl, "next_player", mp, err)) < 0)
		return rc;
	if (mg != d->saved_game &&
	    (rc = d->store.meta_set(d->store.impl, "next_game", mg, err)) < 0)
		return rc;
	pending = d->store.pending(d->store.impl);
	if (pending == 0) {
		d->last_player = np; /* nothing to store: the marks held */
		d->last_game = ng;
		if (d->nflights == 0) {
			d->acked_last_p = np;
			d->acked_last_g = ng;
		}
		return 0;
	}
	t0 = mono_us();
	rc = d->store.commit(d->store.impl, ticket, err);
	us = mono_us() - t0;
	if (rc < 0)
		return rc;
	d->saved_player = mp;
	d->saved_game = mg;
	d->last_player = np;
	d->last_game = ng;
	if (*ticket > 0)
		durable_fly(d, *ticket, mp, mg, np, ng);
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

/*
 * A commit (or a write before it) failed with rc, or the answer to one in flight did: nothing of
 * it stays in the store's transaction, and no commit in flight holds anything. The marks are
 * those known durable again, so that a retry writes them. For lack of room or of the database
 * (durable_down_code()) the kept writes wait for durable_retry(); err says why. Returns rc.
 */
static int
durable_failed(struct durable *d, int rc, const struct store_error *err)
{
	d->store.rollback(d->store.impl);
	d->failed = 0;
	d->nflights = 0;
	d->retrying = 0;
	d->saved_player = d->acked_player;
	d->saved_game = d->acked_game;
	d->last_player = d->acked_last_p;
	d->last_game = d->acked_last_g;
	if (durable_down_code(rc)) {
		d->down = 1;
		d->err = *err;
	}
	return rc;
}

/*
 * Group commit. Whatever the loop turn did (a hundred moves in a hundred games, or one hello)
 * becomes durable in one transaction with one wait for the disk, and the network layer sends the
 * turn's replies and events only once it is durable: when this returns, or when the write port
 * answers its ticket (turn.c). So a move is acknowledged (to the mover with ok, to the others
 * with moved) only once it survives a crash, and a crash before the commit loses nothing anybody
 * heard of. The id counters go in the same transaction, so a restart never gives out an id that
 * a client has seen. The writes are kept until the commit is known durable: see the top of this
 * file.
 */
int
durable_commit(struct durable *d, unsigned np, unsigned ng, uint64_t *ticket,
               struct store_error *err)
{
	int rc;

	*ticket = 0;
	if (d->down) {
		*err = d->err;
		return err->code;
	}
	if ((rc = durable_flush(d, np, ng, ticket, err)) < 0)
		return durable_failed(d, rc, err);
	if (*ticket == 0 && d->nflights == 0)
		durable_landed_all(d);
	return rc;
}

int
durable_retry(struct durable *d, unsigned np, unsigned ng, uint64_t *ticket,
              struct store_error *err)
{
	int rc = 0;

	*ticket = 0;
	if (!d->down)
		return 0;
	if (d->retrying)
		return 2;
	d->down = 0;
	for (size_t i = 0; i < d->nrecs && rc >= 0; i++)
		rc = durable_apply(d, &d->recs[i], err); /* a sweep's count is no error */
	if (rc >= 0)
		rc = durable_flush(d, np, ng, ticket, err);
	if (rc < 0)
		return durable_failed(d, rc, err);
	if (*ticket == 0) {
		durable_landed_all(d);
		return 1;
	}
	d->down = 1; /* until the answer: what is kept from now on waits as before */
	d->retrying = 1;
	return 2;
}

int
durable_done(struct durable *d, uint64_t ticket, int rc, const struct store_error *err)
{
	size_t n = 0;

	if (d->nflights == 0 || ticket < d->flights[0].ticket)
		return 0; /* an answer to commits already given up: their writes are kept anyway */
	if (rc < 0)
		return durable_failed(d, rc, err);
	while (n < d->nflights && d->flights[n].ticket <= ticket)
		n++;
	d->acked_player = d->flights[n - 1].mark_p;
	d->acked_game = d->flights[n - 1].mark_g;
	d->acked_last_p = d->flights[n - 1].last_p;
	d->acked_last_g = d->flights[n - 1].last_g;
	durable_forget_first(d, d->flights[n - 1].end);
	if (d->nflights > n)
		memmove(d->flights, d->flights + n, (d->nflights - n) * sizeof *d->flights);
	d->nflights -= n;
	if (d->retrying && d->nflights == 0) {
		/* the retry held: what was kept meanwhile goes into the next commit */
		d->retrying = 0;
		d->down = 0;
		for (size_t i = 0; i < d->nrecs && !d->failed; i++) {
			struct store_error e;

			durable_check(d, durable_apply(d, &d->recs[i], &e), &e);
		}
		return 1;
	}
	return 0;
}

int
durable_down(const struct durable *d)
{
	return d->down;
}

int64_t
durable_waiting_seq(const struct durable *d, const char *game_id)
{
	for (size_t i = 0; d->down && i < d->nrecs; i++) {
		const struct durable_rec *r = &d->recs[i];

		if (strcmp(r->game_id, game_id) != 0)
			continue;
		if (r->op == DURABLE_GAME_ADD)
			return 1;
		if (r->op == DURABLE_EVENT)
			return r->seq;
	}
	return 0;
}

int
durable_waiting_account(const struct durable *d, int64_t account)
{
	for (size_t i = 0; d->down && i < d->nrecs; i++) {
		const struct durable_rec *r = &d->recs[i];

		if ((r->op == DURABLE_RATING &&
		     ((const struct store_rating_change *)r->copy)->account == account) ||
		    ((r->op == DURABLE_ACCOUNT_ADD || r->op == DURABLE_ACCOUNT_UPDATE) &&
		     ((const struct store_account *)r->copy)->id == account))
			return 1;
	}
	return 0;
}

size_t
durable_waiting(const struct durable *d)
{
	return d->nrecs;
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
