/*
 * table.c: one game of the server: its authoritative position, seats, spectators and event log.
 *
 * A table owns its game value, its move list and its event log (one wire reference per event).
 * It does not own sessions: it points at the seated ones and the connected spectators, and the
 * lobby detaches them before a table is freed. Events go out in exactly one place, table_emit():
 * each is a plain struct event (event.h) numbered the log's length plus one, applied to the
 * table's struct event_state (event-state.h: the status, offers, ply and end a game's events
 * decide live there, by the same rules the restore and the client apply), encoded once by its
 * codec (event_wire(): moved without a jansson tree), and the same wire goes to the log and is
 * published once through the fan-out port (fanout.h: the store, then every receiver).
 * Reconnection replays the log, so a resumed client gets the very bytes the others got. A table
 * is handed its clock and callbacks at creation (struct table_env, table.h) and never calls into
 * the lobby. Part of the game layer: no libuv here.
 *
 * Clocks. The server owns them and they live on the game layer's monotonic time (env->now).
 * Only the side to move spends time, so a table keeps the two remaining times as of one instant,
 * settled_at, and charges the time since then to the side to move whenever it is asked
 * (table_clock_settle()); nothing ticks. After a move the mover gets its increment (Fischer) and
 * the other clock starts. A flag falls when the side to move has nothing left: table_deadline()
 * says when that will be, the lobby asks the network layer for a wake-up then, and
 * table_clock_check() ends the game on time. A move that arrives after the flag fell is too late
 * even if the wake-up has not fired yet. The grace of a disconnected player is spent the same
 * way, and only on its own turns: while the connected player thinks, nobody's grace runs.
 *
 * Every event that changes the clocks carries them ("started", "moved", "game_over"), so the
 * event log alone rebuilds a game's clocks: the remaining times after the last such event, and
 * the side to move (whose clock restarts at the rebuild: time does not run while the server is
 * down).
 *
 * The first moves. A side's clock does not run before its first move: from the start (the first
 * player) and from the first move (the second) that side has env->first_move_ms for it instead
 * (first_left, settled like the clocks); a side that misses it aborts the game (result aborted,
 * reason abort: nobody lost, as a player who aborts), since a game nobody began is no loss.
 * Only games with a clock have the timer; 0 turns it off. A restart gives a whole one again.
 *
 * The computer player. A seat may be held by the server's computer (computer[seat] is its level):
 * it has a player id and name but no session, it is always connected (so no grace period runs for
 * it and nothing can be claimed against it), and its seated event's player object says
 * "computer", which is how a restart knows the seat again. Where a person would get your_turn,
 * the computer is asked to think (table_computer_think(), through env->think); its move comes
 * back through lobby_computer_move() and is played with table_play() like anyone's.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event-state.h"
#include "event.h"
#include "log.h"
#include "rating.h"
#include "store-port.h"
#include "table.h"
#include "xmalloc.h"

#define TABLE_THINK_MAX_MS 5000 /* the longest the computer thinks about one move */
#define TABLE_THINK_MIN_MS 50   /* ... and the least, however short its clock */

/* The game layer's time (the clock the table was handed). */
static uint64_t
table_now(const struct table *t)
{
	return t->env->now(t->env->now_arg);
}

struct table *
table_create(const struct table_env *env, const char *id, enum game_kind kind, const char *variant,
             uint64_t seed, uint64_t base_ms, uint64_t inc_ms)
{
	struct table *t = xcalloc(1, sizeof *t);
	struct game_error err;

	t->env = env;
	snprintf(t->id, sizeof t->id, "%s", id);
	t->kind = kind;
	snprintf(t->variant, sizeof t->variant, "%s", variant);
	t->seed = seed;
	event_state_init(&t->st, kind);
	t->heap_index = SIZE_MAX;
	TAILQ_INIT(&t->attached);
	t->timed = base_ms > 0;
	t->base_ms = base_ms;
	t->inc_ms = inc_ms;
	if (t->timed)
		snprintf(t->control, sizeof t->control, "%llu+%llu",
		         (unsigned long long)(base_ms / 60000),
		         (unsigned long long)(inc_ms / 1000));
	else
		snprintf(t->control, sizeof t->control, "none");
	for (int i = 0; i < 2; i++) {
		t->remaining[i] = (int64_t)base_ms;
		t->grace_left[i] = (int64_t)env->grace_ms;
	}
	t->first_move_ms = t->timed ? env->first_move_ms : 0;
	t->first_left = (int64_t)t->first_move_ms;
	/* the variant was checked by msg_decode(); a failure here is our bug */
	if (game_start(&t->start, kind, variant, seed, &err) < 0)
		abort();
	t->game = t->start;
	return t;
}

static int restore_fail(char *why, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

/* Say why a stored game cannot be rebuilt. Returns -1. */
static int
restore_fail(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -1;
}

/* The line a players' chat event leaves in the state's "chat". Returns a new reference. */
static json_t *
chat_line_new(enum game_kind kind, const struct event_chat *c)
{
	return json_pack("{s:s,s:o,s:s}", "seat", game_side_name(kind, c->seat), "player",
	                 event_player_encode(&c->player), "text", c->text);
}

/* Add a line (stolen) to a chat ring of n lines ever said. */
static void
chat_keep(json_t **ring, unsigned *n, json_t *line)
{
	json_decref(ring[*n % CHAT_KEEP]);
	ring[*n % CHAT_KEEP] = line;
	(*n)++;
}

/*
 * What an event does to the table besides its line, the same for an event emitted now and one
 * read back at a restart: it is applied to t->st (event-state.h holds the rules of each event:
 * the statuses it may come in, its seq, the offers it makes or ends ...), a move's text joins the
 * move list, a chat line is kept for the state of late comers. Returns 0, or PROTO_EBADVALUE with
 * err filled (nothing changed) when the event does not fit the game.
 */
static int
table_event_apply(struct table *t, const struct event *ev, struct msg_error *err)
{
	int rc = event_state_apply(&t->st, ev, err);

	if (rc < 0)
		return rc;
	if (ev->type == MSG_MOVED) {
		t->moves = xgrow(t->moves, t->nmoves, &t->moves_cap, sizeof *t->moves, 64);
		snprintf(t->moves[t->nmoves++], GAME_MOVE_TEXT, "%s", ev->u.moved.move);
	} else if (ev->type == MSG_CHAT) {
		chat_keep(t->chat, &t->nchat, chat_line_new(t->kind, &ev->u.chat));
	} else if (ev->type == MSG_STARTED && ev->u.started.unrated != EVENT_UNRATED_NONE) {
		t->unrated = ev->u.started.unrated; /* played casual from its start */
	} else if (ev->type == MSG_GAME_OVER) {
		t->nchat_end = t->nchat; /* the lines after it count for --max-chat-after-end */
		if (ev->u.game_over.unrated != EVENT_UNRATED_NONE)
			t->unrated = ev->u.game_over.unrated;
	} else if (ev->type == MSG_SEATED) {
		/* what the seated player was (emitted: table_seat() set it; restored: read back) */
		const struct event_player *p = &ev->u.seated.player;
		char *rating = t->seat_rating[ev->u.seated.seat];

		t->seat_kind[ev->u.seated.seat] = p->kind;
		if (p->rating != rating) /* emitted, it is the table's own text already */
			snprintf(rating, GLICKO_DISPLAY_MAX, "%s",
			         p->rating != NULL ? p->rating : "");
	}
	return 0;
}

/*
 * Read back one stored event into the table. Its line is decoded by the event's codec (event.h,
 * which checks every member), must be the event the store's row says (type, game, seq, and the
 * move of a moved event: the store replayed the position from the rows), and is applied as it was
 * when it happened (table_event_apply()), so a log whose events do not follow each other is
 * refused.
 */
static int
restore_event(struct table *t, const struct store_event *e, char *why, size_t size)
{
	json_t *o = json_loads(e->body, JSON_REJECT_DUPLICATES, NULL);
	struct msg_error err;
	struct event ev;
	int rc = 0;

	if (!json_is_object(o))
		rc = restore_fail(why, size,
		                  "game '%s': the stored line of event %" PRId64
		                  " is not a JSON object",
		                  t->id, e->seq);
	else if (event_decode(o, t->kind, &ev, &err) < 0)
		rc = restore_fail(why, size, "game '%s': event %" PRId64 ": %s", t->id, e->seq,
		                  err.text);
	else if (!msg_type_is_event(ev.type) || ev.type != msg_type_parse(e->type) ||
	         strcmp(ev.game, t->id) != 0 || ev.seq != e->seq)
		rc = restore_fail(why, size,
		                  "game '%s': event %" PRId64 " is not the stored '%s' of this "
		                  "game",
		                  t->id, e->seq, e->type);
	else if (ev.type == MSG_MOVED && (e->move == NULL || strcmp(ev.u.moved.move, e->move) != 0))
		rc = restore_fail(why, size, "game '%s': event %" PRId64 " is not the move '%s'",
		                  t->id, e->seq, e->move ? e->move : "");
	else if (table_event_apply(t, &ev, &err) < 0)
		rc = restore_fail(why, size, "game '%s': event %" PRId64 ": %s", t->id, e->seq,
		                  err.text);
	json_decref(o);
	return rc;
}

/*
 * Whether the end a finished game's row records is the one its game_over said: the words must be
 * ours and agree with the events.
 */
static int
restore_end_check(const struct table *t, const struct store_game *g, char *why, size_t size)
{
	enum event_result result;
	enum event_reason reason;

	if (event_result_parse(g->result, &result) < 0 ||
	    event_reason_parse(g->reason, &reason) < 0)
		return restore_fail(why, size, "game '%s': unknown result '%s' or reason '%s'",
		                    g->id, g->result, g->reason);
	if (result != t->st.result || reason != t->st.reason || g->winner != t->st.winner)
		return restore_fail(why, size,
		                    "game '%s' is stored as %s (%s) but its game_over says %s (%s)",
		                    g->id, g->result, g->reason, event_result_name(t->st.result),
		                    event_reason_name(t->st.reason));
	return 0;
}

struct table *
table_restore(const struct table_env *env, const struct store_game *g, const struct store_event *ev,
              size_t nev, const struct game *start, const struct game *position, char *why,
              size_t size)
{
	uint64_t base_ms = 0, inc_ms = 0;
	enum event_status want;
	struct table *t;
	int rc = 0;

	if (g->clock[0] != '\0' && protocol_clock_parse(g->clock, &base_ms, &inc_ms) < 0) {
		restore_fail(why, size, "game '%s': unknown time control '%s'", g->id, g->clock);
		return NULL;
	}
	t = table_create(env, g->id, g->kind, g->variant, g->seed, base_ms, inc_ms);
	t->serial = (uint64_t)g->serial;
	t->is_private = g->is_private;
	t->rated = g->rated;
	snprintf(t->code, sizeof t->code, "%.*s", PROTOCOL_CODE_LEN, g->code);
	for (int i = 0; i < 2; i++) {
		t->seat_taken[i] = g->seat_taken[i];
		snprintf(t->seat_id[i], sizeof t->seat_id[i], "%s", g->seat_id[i]);
		snprintf(t->seat_name[i], sizeof t->seat_name[i], "%s", g->seat_name[i]);
	}
	for (size_t i = 0; i < nev && rc == 0; i++) {
		rc = restore_event(t, &ev[i], why, size);
		if (rc == 0) {
			t->log = xgrow(t->log, t->nlog, &t->log_cap, sizeof *t->log, 16);
			t->log[t->nlog++] = wire_text(ev[i].body, strlen(ev[i].body));
		}
	}
	if (rc == 0 && event_status_parse(g->status, &want) < 0)
		rc = restore_fail(why, size, "game '%s': unknown status '%s'", g->id, g->status);
	if (rc == 0 && t->st.status != want)
		rc = restore_fail(why, size,
		                  "game '%s' is stored as %s but its events say otherwise", g->id,
		                  g->status);
	if (rc == 0 && t->st.ply != g->ply)
		rc = restore_fail(why, size,
		                  "game '%s': %" PRId64 " moves in its events, %d stored", g->id,
		                  t->st.ply, g->ply);
	if (rc == 0 && t->st.status == EVENT_STATUS_FINISHED)
		rc = restore_end_check(t, g, why, size);
	if (rc < 0) {
		table_free(t);
		return NULL;
	}
	/* what the events said besides the status, the offers and the end, kept in st */
	for (int i = 0; i < 2; i++) {
		t->computer[i] = t->st.computer[i];
		if (t->timed && t->st.clocks.has)
			t->remaining[i] = t->st.clocks.v[i];
	}
	/*
	 * not st.grace_over: after a restart every seated player has a whole grace (12.1); but an
	 * adjourned game's grace is over, and the wait before a claim starts again (11.3)
	 */
	for (int i = 0; i < 2 && t->st.status == EVENT_STATUS_ADJOURNED; i++)
		t->grace_over[i] = t->st.grace_over[i];
	t->start = *start;
	t->game = *position;
	t->settled_at = table_now(t); /* the clock of the side to move runs from now */
	t->adjourned_at = t->settled_at;
	t->first_move_ms = t->timed ? env->first_move_ms : 0;
	t->first_left = (int64_t)t->first_move_ms;
	return t;
}

/*
 * The view of t at seq: its first seq events read back from their lines (as table_restore()
 * reads the stored ones), the position replayed from the start through their moves, the clocks
 * as the last of them carrying clocks left them (as after a restart: 12.1). Borrowed from t: the
 * seated sessions (for "connected") and the spectators, which the store does not keep.
 */
struct table *
table_view_new(const struct table *t, int64_t seq)
{
	struct table *v =
	        table_create(t->env, t->id, t->kind, t->variant, t->seed, t->base_ms, t->inc_ms);
	struct msg_error err;
	struct game_error gerr;
	struct game_move m;
	struct event ev;

	assert(seq >= 0 && (size_t)seq <= t->nlog);
	v->serial = t->serial;
	v->finished_serial = t->finished_serial;
	v->is_private = t->is_private;
	v->rated = t->rated;
	snprintf(v->code, sizeof v->code, "%s", t->code);
	snprintf(v->control, sizeof v->control, "%s", t->control);
	v->log = xmalloc(((size_t)seq + 1) * sizeof *v->log);
	v->log_cap = (size_t)seq + 1;
	for (size_t i = 0; i < (size_t)seq; i++) {
		json_t *o = json_loadb(t->log[i]->data, t->log[i]->len, 0, NULL);

		/* our own lines, applied once already: a failure is our bug */
		if (o == NULL || event_decode(o, t->kind, &ev, &err) < 0 ||
		    table_event_apply(v, &ev, &err) < 0)
			abort();
		json_decref(o);
		v->log[v->nlog++] = wire_ref(t->log[i]);
	}
	for (int i = 0; i < 2; i++) {
		v->computer[i] = v->st.computer[i];
		if (v->timed && v->st.clocks.has)
			v->remaining[i] = v->st.clocks.v[i];
		if (!v->st.seated[i])
			continue;
		v->seat_taken[i] = 1;
		v->seat_account[i] = t->seat_account[i];
		snprintf(v->seat_id[i], sizeof v->seat_id[i], "%s", t->seat_id[i]);
		snprintf(v->seat_name[i], sizeof v->seat_name[i], "%s", t->seat_name[i]);
	}
	v->start = t->start;
	v->game = t->start;
	for (size_t i = 0; i < v->nmoves; i++) {
		if (game_move_parse(&v->game, v->moves[i], &m, &gerr) < 0)
			abort(); /* played once already */
		game_apply(&v->game, m);
	}
	v->settled_at = table_now(v);
	table_view_sync(v, t);
	return v;
}

void
table_view_sync(struct table *v, const struct table *t)
{
	for (int i = 0; i < 2; i++)
		v->seat[i] = v->st.seated[i] ? t->seat[i] : NULL;
	v->watchers = t->watchers;
	v->nwatchers = t->nwatchers;
}

void
table_view_free(struct table *v)
{
	if (v == NULL)
		return;
	v->watchers = NULL; /* borrowed */
	table_free(v);
}

void
table_free(struct table *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->nlog; i++)
		wire_unref(t->log[i]);
	free(t->log);
	for (int i = 0; i < CHAT_KEEP; i++) {
		json_decref(t->chat[i]);
		json_decref(t->kibitz[i]);
	}
	free(t->moves);
	free(t->watchers);
	free(t);
}

int64_t
table_seq(const struct table *t)
{
	return (int64_t)t->nlog;
}

int64_t
table_emit(struct table *t, struct event *ev, const struct session *skip)
{
	const struct fanout *fo = t->env->fanout;
	struct msg_error err;
	struct wire *w;

	ev->kind = t->kind;
	ev->game = t->id;
	ev->seq = table_seq(t) + 1;
	/* the table made this event: one that does not fit its game is our bug */
	if (table_event_apply(t, ev, &err) < 0)
		abort();
	w = event_wire(ev); /* a moved event is written without a jansson tree */
	t->log = xgrow(t->log, t->nlog, &t->log_cap, sizeof *t->log, 16);
	t->log[t->nlog++] = w;
	if (fo != NULL)
		fo->publish(fo, t, ev->seq, ev->type, ev, w, skip);
	else
		table_broadcast(t, w, skip);
	return ev->seq;
}

void
table_send(struct table *t, struct session *s, struct wire *w)
{
	if (s != NULL && s->peer != NULL)
		t->env->send(t->env->arg, s->peer, w);
}

void
table_broadcast(struct table *t, struct wire *w, const struct session *skip)
{
	for (int i = 0; i < 2; i++)
		if (t->seat[i] != skip)
			table_send(t, t->seat[i], w);
	for (size_t i = 0; i < t->nwatchers; i++)
		if (t->watchers[i] != skip)
			table_send(t, t->watchers[i], w);
}

/* Time spent by the side to move since the last settlement, or 0 when nothing runs. */
static int64_t
unsettled(const struct table *t, int seat)
{
	uint64_t now = table_now(t);

	if (t->st.status != EVENT_STATUS_LIVE || game_side(&t->game) != seat ||
	    now <= t->settled_at)
		return 0;
	return (int64_t)(now - t->settled_at);
}

int
table_first_move_pending(const struct table *t)
{
	return t->first_move_ms > 0 && t->st.status == EVENT_STATUS_LIVE &&
	       event_state_may_abort(&t->st, game_side(&t->game));
}

/* A seat's clock as of now: it stands before that side's first move. */
static int64_t
remaining_now(const struct table *t, int seat)
{
	int64_t r = t->remaining[seat] - (table_first_move_pending(t) ? 0 : unsettled(t, seat));

	return r > 0 ? r : 0;
}

int64_t
table_grace_now(const struct table *t, int seat)
{
	int64_t g = t->grace_left[seat];

	if (!table_connected(t, seat) && !t->grace_over[seat])
		g -= unsettled(t, seat);
	return g > 0 ? g : 0;
}

/* Whether a dropped player's grace is spent in the game's status (live or adjourned). */
static int
grace_runs(const struct table *t)
{
	return t->st.status == EVENT_STATUS_LIVE || t->st.status == EVENT_STATUS_ADJOURNED;
}

/* The player object of a seat, or null. */
static json_t *
seat_player_new(const struct table *t, int seat, int with_connected)
{
	struct event_player player = table_player(t, seat);
	json_t *p;

	if (!t->seat_taken[seat])
		return json_null();
	p = event_player_encode(&player);
	if (!with_connected)
		return p;
	json_object_set_new(p, "connected", json_boolean(table_connected(t, seat)));
	if (!table_connected(t, seat) && grace_runs(t)) {
		json_object_set_new(p, "grace_ms", json_integer(table_grace_now(t, seat)));
		json_object_set_new(p, "grace_over", json_boolean(t->grace_over[seat]));
		json_object_set_new(p, "claimable", json_boolean(table_claimable(t, seat)));
	}
	return p;
}

struct event_player
table_player(const struct table *t, int seat)
{
	struct event_player p = {t->seat_id[seat], t->seat_name[seat], t->computer[seat],
	                         t->seat_kind[seat],
	                         t->seat_rating[seat][0] != '\0' ? t->seat_rating[seat] : NULL};

	return p;
}

/* {"black": P, "white": P} in seat order. */
static json_t *
players_new(const struct table *t, int with_connected)
{
	json_t *o = json_object();

	for (int i = 0; i < 2; i++)
		json_object_set_new(o, game_side_name(t->kind, i),
		                    seat_player_new(t, i, with_connected));
	return o;
}

/* The HOKITO scores of the table's position (has = 0 in another kind). */
static struct event_pair
scores_pair(const struct table *t)
{
	struct event_pair p = {.has = game_kind_has(t->kind, GAME_HAS_SCORES)};
	struct game_outcome o;

	if (p.has) {
		game_outcome(&t->game, &o);
		p.v[0] = o.score[0];
		p.v[1] = o.score[1];
	}
	return p;
}

/* Both clocks as of the last settlement (has = 0 without a clock). */
static struct event_pair
clocks_pair(const struct table *t)
{
	struct event_pair p = {.has = t->timed, .v = {t->remaining[0], t->remaining[1]}};

	return p;
}

/* The current HOKITO scores of the table's position: {"black": n, "white": n}. */
static json_t *
current_scores_new(const struct table *t)
{
	struct event_pair p = scores_pair(t);
	json_t *o = json_object();

	for (int i = 0; i < 2; i++)
		json_object_set_new(o, game_side_name(t->kind, i), json_integer(p.v[i]));
	return o;
}

/* The result object of a finished game (its game_over's), or null. */
static json_t *
result_new(const struct table *t)
{
	struct event_outcome out = {t->st.result, t->st.winner, t->st.reason, t->st.scores, 0};

	if (t->st.status != EVENT_STATUS_FINISHED)
		return json_null();
	if (out.reason == EVENT_REASON_LINE)
		out.line = game_line(&t->game);
	return event_outcome_encode(t->kind, &out);
}

/* The position text of g. */
static json_t *
position_new(const struct game *g)
{
	char buf[GAME_TEXT_MAX];

	if (game_format(g, buf, sizeof buf) < 0)
		abort();
	return json_string(buf);
}

/* The side to move, or null when the game is not live. */
static json_t *
to_move_new(const struct table *t)
{
	if (t->st.status != EVENT_STATUS_LIVE)
		return json_null();
	return json_string(game_side_name(t->kind, game_side(&t->game)));
}

/* A seat's name, or null for -1. */
static json_t *
seat_or_null(const struct table *t, int seat)
{
	return seat >= 0 ? json_string(game_side_name(t->kind, seat)) : json_null();
}

/* The state's "clock": null, or the control, both clocks now and which one runs. */
static json_t *
clock_state_new(const struct table *t)
{
	json_t *o;

	if (!t->timed)
		return json_null();
	o = json_object();
	json_object_set_new(o, "control", json_string(t->control));
	json_object_set_new(o, "base_ms", json_integer((json_int_t)t->base_ms));
	json_object_set_new(o, "increment_ms", json_integer((json_int_t)t->inc_ms));
	json_object_set_new(o, "remaining",
	                    json_pack("{s:I,s:I}", game_side_name(t->kind, 0),
	                              (json_int_t)remaining_now(t, 0), game_side_name(t->kind, 1),
	                              (json_int_t)remaining_now(t, 1)));
	json_object_set_new(o, "running",
	                    t->st.status == EVENT_STATUS_LIVE && !table_first_move_pending(t)
	                            ? seat_or_null(t, game_side(&t->game))
	                            : json_null());
	if (t->first_move_ms > 0) {
		json_object_set_new(o, "first_move_ms", json_integer((json_int_t)t->first_move_ms));
		if (table_first_move_pending(t)) {
			int64_t left = t->first_left - unsettled(t, game_side(&t->game));

			json_object_set_new(o, "first_move_left_ms",
			                    json_integer(left > 0 ? left : 0));
		}
	}
	return o;
}

/* The lines of a chat ring, oldest first. Returns a new reference. */
static json_t *
chat_ring_new(json_t *const *ring, unsigned n)
{
	json_t *a = json_array();
	unsigned first = n > CHAT_KEEP ? n - CHAT_KEEP : 0;

	for (unsigned i = first; i < n; i++)
		json_array_append(a, ring[i % CHAT_KEEP]);
	return a;
}

json_t *
table_state_new(const struct table *t, const struct session *viewer, json_t *id)
{
	json_t *o = msg_new(MSG_STATE, NULL), *cells = json_array(), *moves = json_array();
	/* t may be a view of the viewer's table (table_view_new()): the same id */
	int seated = viewer != NULL && viewer->table != NULL && viewer->seat >= 0 &&
	             strcmp(viewer->table->id, t->id) == 0;
	char seed[24], cell[GAME_TEXT_MAX];

	snprintf(seed, sizeof seed, "%llu", (unsigned long long)t->seed);
	json_object_set_new(o, "game", json_string(t->id));
	json_object_set_new(o, "kind", json_string(game_kind_name(t->kind)));
	json_object_set_new(o, "variant", json_string(t->variant));
	json_object_set_new(o, "seed", json_string(seed));
	json_object_set_new(o, "private", json_boolean(t->is_private));
	json_object_set_new(o, "rated", json_boolean(table_rated(t)));
	if (t->rated && t->unrated != EVENT_UNRATED_NONE)
		json_object_set_new(o, "unrated", json_string(event_unrated_name(t->unrated)));
	if (t->is_private && seated)
		json_object_set_new(o, "code", json_string(t->code));
	json_object_set_new(o, "status", json_string(event_status_name(t->st.status)));
	json_object_set_new(o, "seq", json_integer(table_seq(t)));
	json_object_set_new(
	        o, "you",
	        json_string(seated ? game_side_name(t->kind, viewer->seat) : "spectator"));
	json_object_set_new(o, "players", players_new(t, 1));
	json_object_set_new(o, "start", position_new(&t->start));
	json_object_set_new(o, "position", position_new(&t->game));
	for (int sq = 0; sq < GAME_SQUARES; sq++) {
		if (game_cell_format(&t->game, sq, cell, sizeof cell) < 0)
			abort();
		json_array_append_new(cells, json_string(cell));
	}
	json_object_set_new(o, "cells", cells);
	json_object_set_new(o, "to_move", to_move_new(t));
	json_object_set_new(o, "ply", json_integer((json_int_t)t->st.ply));
	for (size_t i = 0; i < t->nmoves; i++)
		json_array_append_new(moves, json_string(t->moves[i]));
	json_object_set_new(o, "moves", moves);
	if (game_kind_has(t->kind, GAME_HAS_SCORES))
		json_object_set_new(o, "scores", current_scores_new(t));
	if (game_kind_has(t->kind, GAME_HAS_RESERVES)) {
		json_t *r = json_object();

		for (int c = 0; c < 2; c++)
			json_object_set_new(r, game_side_name(t->kind, c),
			                    json_pack("{s:i,s:i}", "x",
			                              game_reserve(&t->game, c, 0), "o",
			                              game_reserve(&t->game, c, 1)));
		json_object_set_new(o, "reserves", r);
	}
	json_object_set_new(o, "result", result_new(t));
	json_object_set_new(o, "spectators", table_spectators_new(t));
	json_object_set_new(o, "clock", clock_state_new(t));
	json_object_set_new(o, "draw_offer", seat_or_null(t, t->st.offer[EVENT_OFFER_DRAW]));
	json_object_set_new(o, "rematch_offer", seat_or_null(t, t->st.offer[EVENT_OFFER_REMATCH]));
	json_object_set_new(o, "chat", chat_ring_new(t->chat, t->nchat));
	if (!seated)
		json_object_set_new(o, "kibitz", chat_ring_new(t->kibitz, t->nkibitz));
	if (id != NULL)
		json_object_set_new(o, "id", json_deep_copy(id));
	return o;
}

json_t *
table_summary_new(const struct table *t)
{
	json_t *o = json_object();

	json_object_set_new(o, "game", json_string(t->id));
	json_object_set_new(o, "kind", json_string(game_kind_name(t->kind)));
	json_object_set_new(o, "variant", json_string(t->variant));
	json_object_set_new(o, "status", json_string(event_status_name(t->st.status)));
	json_object_set_new(o, "rated", json_boolean(table_rated(t)));
	if (t->rated && t->unrated != EVENT_UNRATED_NONE)
		json_object_set_new(o, "unrated", json_string(event_unrated_name(t->unrated)));
	json_object_set_new(o, "players", players_new(t, 0));
	json_object_set_new(o, "spectators", json_integer((json_int_t)t->nwatchers));
	json_object_set_new(o, "ply", json_integer((json_int_t)t->st.ply));
	json_object_set_new(o, "result", result_new(t));
	json_object_set_new(o, "clock", t->timed ? json_string(t->control) : json_null());
	return o;
}

json_t *
table_spectators_new(const struct table *t)
{
	json_t *names = json_array();

	for (size_t i = 0; i < t->nwatchers && i < PROTOCOL_SPECTATOR_NAMES; i++)
		json_array_append_new(names, json_string(t->watchers[i]->name));
	return json_pack("{s:I,s:o}", "count", (json_int_t)t->nwatchers, "names", names);
}

/* A notice of type about t: its head (notices have no seq); the caller fills its member. */
static struct event
notice_new(const struct table *t, enum msg_type type)
{
	struct event ev = {.type = type, .kind = t->kind, .game = t->id, .seq = -1};

	return ev;
}

/* The spectators notice of t; names (PROTOCOL_SPECTATOR_NAMES of room) gets what it lists. */
static struct event
spectators_notice(const struct table *t, const char **names)
{
	struct event ev = notice_new(t, MSG_SPECTATORS);
	size_t n;

	for (n = 0; n < t->nwatchers && n < PROTOCOL_SPECTATOR_NAMES; n++)
		names[n] = t->watchers[n]->name;
	ev.u.spectators.count = (int64_t)t->nwatchers;
	ev.u.spectators.names = names;
	ev.u.spectators.n = n;
	return ev;
}

json_t *
table_spectators_notice_new(const struct table *t)
{
	const char *names[PROTOCOL_SPECTATOR_NAMES];
	struct event ev = spectators_notice(t, names);

	return event_encode(&ev);
}

void
table_spectators_notify(struct table *t)
{
	const char *names[PROTOCOL_SPECTATOR_NAMES];
	struct event ev = spectators_notice(t, names);
	struct wire *w = event_wire(&ev);

	table_broadcast(t, w, NULL);
	wire_unref(w);
}

void
table_your_turn(struct table *t)
{
	struct game_move moves[GAME_MOVES_MAX];
	struct session *s;
	const char **list;
	char *text;
	struct wire *w;
	int n;

	if (t->st.status != EVENT_STATUS_LIVE)
		return;
	if (t->computer[game_side(&t->game)] > 0) {
		table_computer_think(t);
		return;
	}
	s = t->seat[game_side(&t->game)];
	if (s == NULL || s->peer == NULL)
		return;
	n = game_moves(&t->game, moves);
	/* one block: the n pointers, then the n texts they point at */
	list = xmalloc((size_t)n * (sizeof *list + GAME_MOVE_TEXT) + 1);
	text = (char *)(list + n);
	for (int i = 0; i < n; i++) {
		list[i] = text + (size_t)i * GAME_MOVE_TEXT;
		if (game_move_format(t->kind, moves[i], text + (size_t)i * GAME_MOVE_TEXT,
		                     GAME_MOVE_TEXT) < 0)
			abort();
	}
	/* the notice of every move: written without a jansson tree, as moved is (event_wire()) */
	w = msg_your_turn_wire(t->id, table_seq(t), list, (size_t)n);
	free(list);
	table_send(t, s, w);
	wire_unref(w);
}

void
table_watcher_add(struct table *t, struct session *s)
{
	t->watchers = xgrow(t->watchers, t->nwatchers, &t->watchers_cap, sizeof *t->watchers, 8);
	t->watchers[t->nwatchers++] = s;
}

void
table_watcher_remove(struct table *t, struct session *s)
{
	for (size_t i = 0; i < t->nwatchers; i++) {
		if (t->watchers[i] == s) {
			memmove(t->watchers + i, t->watchers + i + 1,
			        (t->nwatchers - i - 1) * sizeof *t->watchers);
			t->nwatchers--;
			return;
		}
	}
}

void
table_seat(struct table *t, int seat, struct session *s)
{
	t->seat[seat] = s;
	t->seat_taken[seat] = 1;
	snprintf(t->seat_id[seat], sizeof t->seat_id[seat], "%s", s->id);
	snprintf(t->seat_name[seat], sizeof t->seat_name[seat], "%s", s->name);
	snprintf(t->seat_token[seat], sizeof t->seat_token[seat], "%s", s->token);
	t->seat_kind[seat] = session_kind(s);
	t->seat_account[seat] = s->account;
	t->seat_rating[seat][0] = '\0';
	if (s->account != 0)
		rating_book_display(t->env->ratings, s->account, t->kind, t->seat_rating[seat],
		                    sizeof t->seat_rating[seat]);
	table_attach(t, s);
	s->seat = seat;
}

void
table_attach(struct table *t, struct session *s)
{
	if (s->table == t)
		return;
	if (s->table != NULL)
		TAILQ_REMOVE(&s->table->attached, s, at_link);
	s->table = t;
	if (t != NULL)
		TAILQ_INSERT_HEAD(&t->attached, s, at_link);
}

void
table_seat_computer(struct table *t, int seat, int level, const char *id)
{
	t->seat[seat] = NULL;
	t->seat_taken[seat] = 1;
	t->computer[seat] = level;
	t->seat_kind[seat] = EVENT_PLAYER_COMPUTER;
	t->seat_account[seat] = 0;
	t->seat_rating[seat][0] = '\0';
	t->seat_token[seat][0] = '\0';
	snprintf(t->seat_id[seat], sizeof t->seat_id[seat], "%s", id);
	snprintf(t->seat_name[seat], sizeof t->seat_name[seat], "computer (level %d)", level);
}

int
table_connected(const struct table *t, int seat)
{
	return t->computer[seat] > 0 || (t->seat[seat] != NULL && t->seat[seat]->peer != NULL);
}

/*
 * The computer's turn. The game layer decides what the search may spend and the network layer
 * runs it off the loop (env->think, think.c); its answer comes back through lobby_computer_move(),
 * where it is checked and played like any move. The time cap keeps a level's node budget from
 * taking long on a slow machine; with a clock, the computer also keeps to a share of what it has
 * left (its clock runs while it thinks, like anybody's). The noise seed depends on the game's seed
 * and the ply, so a game against the computer is the same game again for the same moves.
 */
void
table_computer_think(struct table *t)
{
	const struct table_env *env = t->env;
	int side = game_side(&t->game);
	uint64_t time_ms = TABLE_THINK_MAX_MS;

	if (t->st.status != EVENT_STATUS_LIVE || t->computer[side] == 0 || t->thinking ||
	    env->think == NULL || game_over(&t->game))
		return;
	if (t->timed) {
		int64_t share = t->remaining[side] / 20 + (int64_t)t->inc_ms / 2;

		if (share < TABLE_THINK_MIN_MS)
			share = TABLE_THINK_MIN_MS;
		if ((uint64_t)share < time_ms)
			time_ms = (uint64_t)share;
	}
	if (table_first_move_pending(t) && (uint64_t)t->first_left / 2 < time_ms)
		time_ms = t->first_left / 2 > TABLE_THINK_MIN_MS ? (uint64_t)t->first_left / 2
		                                                 : TABLE_THINK_MIN_MS;
	t->thinking = 1;
	env->think(env->arg, t->id, t->st.ply, &t->game, t->computer[side],
	           t->seed ^ ((uint64_t)t->st.ply * 0x9e3779b97f4a7c15ULL), time_ms);
}

int
table_rated(const struct table *t)
{
	return t->rated && t->unrated == EVENT_UNRATED_NONE;
}

/* Say in the log, at most once in RATING_LOG_EVERY_MS for each why, that t rated nobody. */
static void
unrated_log(struct table *t, enum event_unrated why)
{
	unsigned n = rating_book_log_due(t->env->ratings, why, (int64_t)table_now(t));

	if (n > 0)
		log_info("game %s (%s vs %s) is not rated: %s; %u rated game%s not rated so lately",
		         t->id, t->seat_name[0], t->seat_name[1], event_unrated_name(why), n,
		         n == 1 ? "" : "s");
}

/*
 * The ratings of a rated game's end (6.5): both seats accounts (a bot's is one), an end that
 * counts (a win or a draw; an aborted game changes nothing). Both are rated from their values
 * before the game, in the book at once, so the next game of either starts from the new values;
 * the game_over carries the change to the store (durable.c), the players and the record.
 *
 * What rates nobody, as lichess does: a game played casual from its start (t->unrated: both
 * players came from one address, or the pair's rated games of 24 h are spent: pairing.c), and a
 * game too short to be a game, ended before env->rated_min_plies plies (a resignation or a
 * flag at the first moves, a claim), so that results without play cannot move a rating. The
 * pair rule is checked again at the end: two sessions of the same accounts may have played
 * at the same time. Then game_over says why (unrated) instead of carrying ratings.
 */
static void
table_rate(struct table *t, struct event_game_over *g)
{
	const struct table_env *env = t->env;
	double score0 = g->outcome.result == EVENT_RESULT_DRAW ? 0.5
	                : g->outcome.winner == 0               ? 1.0
	                                                       : 0.0;
	int64_t now = (int64_t)table_now(t), since = now - RATING_PAIR_WINDOW_MS;

	if (!t->rated || env->ratings == NULL || t->seat_account[0] == 0 || t->seat_account[1] == 0)
		return;
	if (t->unrated != EVENT_UNRATED_NONE) {
		g->unrated = t->unrated;
		return;
	}
	if (g->outcome.result == EVENT_RESULT_ABORTED)
		return;
	if (t->st.ply < (int64_t)env->rated_min_plies)
		g->unrated = EVENT_UNRATED_SHORT;
	else if (env->pair_rated > 0 &&
	         rating_book_pair_count(env->ratings, t->seat_account[0], t->seat_account[1],
	                                since) >= env->pair_rated)
		g->unrated = EVENT_UNRATED_PAIR_LIMIT;
	if (g->unrated != EVENT_UNRATED_NONE) {
		unrated_log(t, g->unrated);
		return;
	}
	if (rating_book_game(env->ratings, t->kind, t->seat_account, score0, g->ratings) == 0) {
		g->rated = 1;
		if (env->pair_rated > 0) /* the pair rule's book: only with the rule */
			rating_book_pair_add(env->ratings, t->seat_account[0], t->seat_account[1],
			                     now, since, env->pair_rated);
	}
}

int64_t
table_finish(struct table *t, enum event_result result, int winner, enum event_reason reason)
{
	struct event ev = {.type = MSG_GAME_OVER};
	struct event_game_over *g = &ev.u.game_over;

	assert(event_reason_allows(reason, result) &&
	       (result == EVENT_RESULT_WIN) == (winner >= 0));
	table_clock_settle(t);
	g->outcome.result = result;
	g->outcome.winner = winner;
	g->outcome.reason = reason;
	g->outcome.scores = scores_pair(t);
	if (reason == EVENT_REASON_LINE)
		g->outcome.line = game_line(&t->game);
	g->ply = t->st.ply;
	g->clocks = clocks_pair(t);
	table_rate(t, g);
	return table_emit(t, &ev, NULL);
}

int64_t
table_seated_emit(struct table *t, int seat, const struct session *skip)
{
	struct event ev = {.type = MSG_SEATED};

	ev.u.seated.seat = seat;
	ev.u.seated.player = table_player(t, seat);
	return table_emit(t, &ev, skip);
}

void
table_start(struct table *t, const struct session *skip)
{
	struct event ev = {.type = MSG_STARTED};
	struct event_started *s = &ev.u.started;
	char position[GAME_TEXT_MAX];

	t->settled_at = table_now(t); /* the first player's clock (or first move) starts now */
	t->first_left = (int64_t)t->first_move_ms;
	if (game_format(&t->game, position, sizeof position) < 0)
		abort();
	s->variant = t->variant;
	for (int i = 0; i < 2; i++)
		s->players[i] = table_player(t, i);
	s->position = position;
	s->to_move = game_side(&t->game);
	s->clock = t->timed ? t->control : NULL;
	s->clocks = clocks_pair(t);
	s->unrated = t->rated ? t->unrated : EVENT_UNRATED_NONE;
	table_emit(t, &ev, skip);
	/* a start position can already be over (HOKITO: a side without a move) */
	if (game_over(&t->game))
		table_finish_by_rules(t);
}

/*
 * Play a legal move: the caller validated it with game_move_parse() against this very position.
 * Apply it to the authoritative game, emit moved (which records its canonical text, and makes a
 * draw offer made to the mover lapse: event-state.h), and game_over when the rules say the game
 * ended. The event of every move is on the stack and its line is written directly (event_wire()):
 * nothing is allocated for it but the line. Returns the seq of the moved event.
 */
int64_t
table_play(struct table *t, struct game_move m)
{
	int side = game_side(&t->game);
	char text[GAME_MOVE_TEXT], position[GAME_TEXT_MAX];
	struct event ev = {.type = MSG_MOVED};
	struct event_moved *mv = &ev.u.moved;
	int64_t seq;

	if (game_move_format(t->kind, m, text, sizeof text) < 0)
		abort();
	table_clock_settle(t);
	if (t->timed)
		t->remaining[side] += (int64_t)t->inc_ms;
	game_apply(&t->game, m);
	if (game_format(&t->game, position, sizeof position) < 0)
		abort();
	mv->by = side;
	mv->move = text;
	mv->ply = t->st.ply + 1;
	mv->position = position;
	mv->to_move = game_over(&t->game) ? -1 : game_side(&t->game);
	mv->scores = scores_pair(t);
	mv->clocks = clocks_pair(t);
	t->first_left = (int64_t)t->first_move_ms; /* the second player's first move, if pending */
	seq = table_emit(t, &ev, NULL);
	if (game_over(&t->game))
		table_finish_by_rules(t);
	return seq;
}

int64_t
table_finish_by_rules(struct table *t)
{
	struct game_outcome o;

	game_outcome(&t->game, &o);
	assert(o.end != GAME_END_NONE);
	return table_finish(t, o.winner >= 0 ? EVENT_RESULT_WIN : EVENT_RESULT_DRAW, o.winner,
	                    event_reason_of_end(o.end));
}

void
table_clock_settle(struct table *t)
{
	uint64_t now = table_now(t);
	int64_t spent = now > t->settled_at ? (int64_t)(now - t->settled_at) : 0;
	int side = game_side(&t->game);

	t->settled_at = now;
	if (t->st.status != EVENT_STATUS_LIVE)
		return;
	if (table_first_move_pending(t))
		t->first_left = t->first_left > spent ? t->first_left - spent : 0;
	else if (t->timed)
		t->remaining[side] = t->remaining[side] > spent ? t->remaining[side] - spent : 0;
	if (!table_connected(t, side) && !t->grace_over[side])
		t->grace_left[side] = t->grace_left[side] > spent ? t->grace_left[side] - spent : 0;
}

int
table_claimable(const struct table *t, int seat)
{
	if (table_connected(t, seat) || !t->grace_over[seat])
		return 0;
	return t->st.status == EVENT_STATUS_LIVE ||
	       (t->st.status == EVENT_STATUS_ADJOURNED && t->st.claimable[seat]);
}

/*
 * Whether seat's player, away from an adjourned game since its grace ran out, has not been
 * given the grace_over of the wait after the adjournment yet.
 */
static int
adjourn_waits(const struct table *t, int seat)
{
	return t->st.status == EVENT_STATUS_ADJOURNED && t->grace_over[seat] &&
	       !table_connected(t, seat) && !t->st.claimable[seat];
}

uint64_t
table_deadline(const struct table *t)
{
	uint64_t d = UINT64_MAX;
	int side;

	for (int i = 0; i < 2; i++)
		if (adjourn_waits(t, i))
			return t->adjourned_at + t->env->adjourn_claim_ms;
	if (t->st.status != EVENT_STATUS_LIVE)
		return d;
	side = game_side(&t->game);
	if (table_first_move_pending(t))
		d = t->settled_at + (uint64_t)t->first_left;
	else if (t->timed)
		d = t->settled_at + (uint64_t)t->remaining[side];
	if (!table_connected(t, side) && !t->grace_over[side] &&
	    t->settled_at + (uint64_t)t->grace_left[side] < d)
		d = t->settled_at + (uint64_t)t->grace_left[side];
	return d;
}

int
table_clock_check(struct table *t)
{
	struct event ev = {.type = MSG_GRACE_OVER};
	int side;

	for (int i = 0; i < 2; i++) {
		/* an untimed game needs an end too: the opponent may claim it from now on */
		if (adjourn_waits(t, i) &&
		    table_now(t) >= t->adjourned_at + t->env->adjourn_claim_ms) {
			ev.u.grace_over.seat = i;
			ev.u.grace_over.clocks = clocks_pair(t);
			table_emit(t, &ev, NULL);
			return 0;
		}
	}
	if (t->st.status != EVENT_STATUS_LIVE)
		return 0;
	table_clock_settle(t);
	side = game_side(&t->game);
	if (table_first_move_pending(t) && t->first_left == 0) {
		/* a game nobody began is no loss: it ends without a result */
		table_finish(t, EVENT_RESULT_ABORTED, -1, EVENT_REASON_ABORT);
		return 1;
	}
	if (t->timed && !table_first_move_pending(t) && t->remaining[side] == 0) {
		/* HOKITO and OXONO alike: running out of time loses, whatever the board says */
		table_finish(t, EVENT_RESULT_WIN, 1 - side, EVENT_REASON_TIME);
		return 1;
	}
	if (table_connected(t, side) || t->grace_over[side] || t->grace_left[side] > 0)
		return 0;
	t->grace_over[side] = 1;
	if (t->timed) {
		/* the opponent may claim the win or a draw from now on */
		ev.u.grace_over.seat = side;
		ev.u.grace_over.clocks = clocks_pair(t);
	} else {
		/* without a clock nobody can lose on time: the game waits for both players */
		ev.type = MSG_ADJOURNED;
		ev.u.adjourned.seat = side;
		t->adjourned_at = table_now(t);
	}
	table_emit(t, &ev, NULL);
	return 0;
}

void
table_seat_back(struct table *t, int seat)
{
	struct event ev = {.type = MSG_RESUMED};

	t->grace_left[seat] = (int64_t)t->env->grace_ms;
	t->grace_over[seat] = 0;
	if (t->st.status != EVENT_STATUS_ADJOURNED || !table_connected(t, 0) ||
	    !table_connected(t, 1))
		return;
	t->settled_at = table_now(t);
	for (int i = 0; i < 2; i++) {
		t->grace_left[i] = (int64_t)t->env->grace_ms;
		t->grace_over[i] = 0;
	}
	ev.u.resumed.to_move = game_side(&t->game);
	table_emit(t, &ev, NULL);
}

/* The presence notice of seat: with the grace left when has_grace. */
static struct event
presence_new(const struct table *t, int seat, int connected, int has_grace)
{
	struct event ev = notice_new(t, MSG_PRESENCE);
	struct event_presence *p = &ev.u.presence;

	p->seat = seat;
	p->player = table_player(t, seat);
	p->player.computer = 0; /* a person's seat: the computer never goes */
	p->connected = connected;
	p->has_grace = has_grace;
	if (has_grace) {
		p->grace_ms = table_grace_now(t, seat);
		p->grace_over = t->grace_over[seat];
	}
	return ev;
}

/*
 * A presence notice about seat of t, to everyone else there: in a game of any status (in an open
 * or finished game too, where a rematch wants the opponent there), with the grace left only where
 * grace is spent (a live or adjourned game).
 */
void
table_presence_notify(struct table *t, int seat, int connected)
{
	struct event ev = presence_new(t, seat, connected, !connected && grace_runs(t));
	struct wire *w = event_wire(&ev);

	table_broadcast(t, w, t->seat[seat]);
	wire_unref(w);
}

json_t *
table_presence_new(const struct table *t, int seat)
{
	struct event ev = presence_new(t, seat, 0, 1);

	return event_encode(&ev);
}

/* An offer event (draw_offered, draw_declined, rematch_*) by seat. Returns its seq. */
int64_t
table_offer_emit(struct table *t, enum msg_type type, int seat)
{
	struct event ev = {.type = type};

	ev.u.offer.by = seat;
	return table_emit(t, &ev, NULL);
}

void
table_kibitz(struct table *t, const struct event_player *player, const char *text)
{
	struct event ev = notice_new(t, MSG_KIBITZ);
	struct wire *w;

	ev.u.kibitz.player = *player;
	ev.u.kibitz.text = text;
	w = event_wire(&ev);
	for (size_t i = 0; i < t->nwatchers; i++)
		table_send(t, t->watchers[i], w);
	wire_unref(w);
	chat_keep(t->kibitz, &t->nkibitz,
	          json_pack("{s:o,s:s}", "player", msg_player_new(player->id, player->name), "text",
	                    text));
}

const char *
table_other_side(const struct table *t, int seat)
{
	return game_side_name(t->kind, 1 - seat);
}
