/*
 * table.c: one game of the server: its authoritative position, seats, spectators and event log.
 *
 * A table owns its game value, its move list and its event log (one wire reference per event).
 * It does not own sessions: it points at the seated ones and the connected spectators, and the
 * lobby detaches them before a table is freed. Events go out in exactly one place, emit_line()
 * (behind table_emit(), and table_play() for moved, which is written without a jansson tree):
 * the seq is the log's length plus one, the event is encoded once, and the same wire goes to the
 * log and is published once through the fan-out port (fanout.h: the store, then every receiver).
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

#include "store.h"
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
	t->winner = -1;
	t->draw_offer = -1;
	t->rematch_offer = -1;
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

/* The static word of a stored result or reason (the table keeps pointers), or NULL. */
static const char *
word_static(const char *word, const char *const *words)
{
	for (size_t i = 0; words[i] != NULL; i++)
		if (strcmp(word, words[i]) == 0)
			return words[i];
	return NULL;
}

/* A seat named by member key of event o: 0 or 1, or -1 when absent or not a seat. */
static int
event_seat(const struct table *t, const json_t *o, const char *key)
{
	const char *name = json_string_value(json_object_get(o, key));
	int seat;

	if (name == NULL || game_side_parse(t->kind, name, &seat) < 0)
		return -1;
	return seat;
}

/*
 * Read back one stored event into the table: what the game layer keeps besides the position and
 * the log. The position itself came from the store's replay; here the lines are only checked to be
 * the events they claim to be, and their side effects redone in the same order as when they
 * happened (table_play(), handle_draw() ... ): the status, the clocks carried by the event, the
 * draw and rematch offers, the players' chat.
 */
static int
restore_event(struct table *t, const struct store_event *e, const json_t *o, char *why, size_t size)
{
	const char *type = json_string_value(json_object_get(o, "type"));
	const char *game = json_string_value(json_object_get(o, "game"));
	const json_t *clocks = json_object_get(o, "clocks");
	int by = event_seat(t, o, "by");

	if (type == NULL || strcmp(type, e->type) != 0 || game == NULL ||
	    strcmp(game, t->id) != 0 || json_integer_value(json_object_get(o, "seq")) != e->seq)
		return restore_fail(why, size,
		                    "game '%s': event %" PRId64 " is not the stored '%s' of this "
		                    "game",
		                    t->id, e->seq, e->type);
	if (strcmp(type, "seated") == 0) {
		/* the computer's seat is known by its player object (it has no session) */
		const json_t *level = json_object_get(json_object_get(o, "player"), "computer");
		int seat = event_seat(t, o, "seat");
		if (seat < 0)
			return restore_fail(why, size,
			                    "game '%s': seated event %" PRId64 " has no seat",
			                    t->id, e->seq);
		if (level != NULL &&
		    (!json_is_integer(level) || json_integer_value(level) < PROTOCOL_LEVEL_MIN ||
		     json_integer_value(level) > PROTOCOL_LEVEL_MAX))
			return restore_fail(why, size,
			                    "game '%s': seated event %" PRId64 " has a bad level",
			                    t->id, e->seq);
		t->computer[seat] = level != NULL ? (int)json_integer_value(level) : 0;
	} else if (strcmp(type, "started") == 0) {
		t->status = TABLE_LIVE;
	} else if (strcmp(type, "moved") == 0) {
		const char *move = json_string_value(json_object_get(o, "move"));
		if (move == NULL || e->move == NULL || strcmp(move, e->move) != 0 || by < 0)
			return restore_fail(why, size,
			                    "game '%s': event %" PRId64 " is not the move '%s'",
			                    t->id, e->seq, e->move ? e->move : "");
		if (t->draw_offer != by)
			t->draw_offer = -1;
		t->moves = xgrow(t->moves, t->nmoves, &t->moves_cap, sizeof *t->moves, 64);
		snprintf(t->moves[t->nmoves++], GAME_MOVE_TEXT, "%s", move);
	} else if (strcmp(type, "game_over") == 0) {
		t->status = TABLE_FINISHED;
		t->draw_offer = -1;
	} else if (strcmp(type, "draw_offered") == 0) {
		t->draw_offer = by;
	} else if (strcmp(type, "draw_declined") == 0) {
		t->draw_offer = -1;
	} else if (strcmp(type, "adjourned") == 0) {
		t->status = TABLE_ADJOURNED;
		t->draw_offer = -1;
	} else if (strcmp(type, "resumed") == 0) {
		t->status = TABLE_LIVE;
	} else if (strcmp(type, "rematch_offered") == 0) {
		t->rematch_offer = by;
	} else if (strcmp(type, "rematch_declined") == 0 || strcmp(type, "rematch_started") == 0) {
		t->rematch_offer = -1;
	} else if (strcmp(type, "chat") == 0) {
		json_t *player = json_object_get(o, "player");
		const char *text = json_string_value(json_object_get(o, "text"));
		int seat = event_seat(t, o, "seat");
		if (!json_is_object(player) || text == NULL || seat < 0)
			return restore_fail(why, size,
			                    "game '%s': chat event %" PRId64 " is malformed", t->id,
			                    e->seq);
		table_chat_keep(t, 0,
		                json_pack("{s:s,s:O,s:s}", "seat", game_side_name(t->kind, seat),
		                          "player", player, "text", text));
	}
	if (json_is_object(clocks) && t->timed) {
		for (int i = 0; i < 2; i++) {
			json_t *v = json_object_get(clocks, game_side_name(t->kind, i));
			if (!json_is_integer(v) || json_integer_value(v) < 0)
				return restore_fail(why, size,
				                    "game '%s': event %" PRId64 " has bad clocks",
				                    t->id, e->seq);
			t->remaining[i] = (int64_t)json_integer_value(v);
		}
	}
	return 0;
}

struct table *
table_restore(const struct table_env *env, const struct store_game *g, const struct store_event *ev,
              size_t nev, const struct game *start, const struct game *position, char *why,
              size_t size)
{
	static const char *const results[] = {"win", "draw", "aborted", NULL};
	static const char *const reasons[] = {"blocked",    "line", "full",      "resign",
	                                      "abandoned",  "time", "agreement", "abort",
	                                      "disconnect", NULL};
	uint64_t base_ms = 0, inc_ms = 0;
	enum table_status want;
	struct table *t;
	int rc = 0;

	if (g->clock[0] != '\0' && protocol_clock_parse(g->clock, &base_ms, &inc_ms) < 0) {
		restore_fail(why, size, "game '%s': unknown time control '%s'", g->id, g->clock);
		return NULL;
	}
	t = table_create(env, g->id, g->kind, g->variant, g->seed, base_ms, inc_ms);
	t->serial = (uint64_t)g->serial;
	t->is_private = g->is_private;
	snprintf(t->code, sizeof t->code, "%.*s", PROTOCOL_CODE_LEN, g->code);
	for (int i = 0; i < 2; i++) {
		t->seat_taken[i] = g->seat_taken[i];
		snprintf(t->seat_id[i], sizeof t->seat_id[i], "%s", g->seat_id[i]);
		snprintf(t->seat_name[i], sizeof t->seat_name[i], "%s", g->seat_name[i]);
	}
	for (size_t i = 0; i < nev && rc == 0; i++) {
		json_t *o = json_loads(ev[i].body, JSON_REJECT_DUPLICATES, NULL);
		if (!json_is_object(o))
			rc = restore_fail(why, size,
			                  "game '%s': the stored line of event %" PRId64
			                  " is not a JSON object",
			                  g->id, ev[i].seq);
		else
			rc = restore_event(t, &ev[i], o, why, size);
		json_decref(o);
		if (rc == 0) {
			t->log = xgrow(t->log, t->nlog, &t->log_cap, sizeof *t->log, 16);
			t->log[t->nlog++] = wire_text(ev[i].body, strlen(ev[i].body));
		}
	}
	want = strcmp(g->status, "open") == 0        ? TABLE_OPEN
	       : strcmp(g->status, "live") == 0      ? TABLE_LIVE
	       : strcmp(g->status, "adjourned") == 0 ? TABLE_ADJOURNED
	                                             : TABLE_FINISHED;
	if (rc == 0 && t->status != want)
		rc = restore_fail(why, size,
		                  "game '%s' is stored as %s but its events say otherwise", g->id,
		                  g->status);
	if (rc == 0 && t->nmoves != (size_t)g->ply)
		rc = restore_fail(why, size, "game '%s': %zu moves in its events, %d stored", g->id,
		                  t->nmoves, g->ply);
	if (rc == 0 && t->status == TABLE_FINISHED) {
		t->result = word_static(g->result, results);
		t->reason = word_static(g->reason, reasons);
		t->winner = g->winner;
		t->score[0] = g->score[0];
		t->score[1] = g->score[1];
		if (t->result == NULL || t->reason == NULL)
			rc = restore_fail(why, size,
			                  "game '%s': unknown result '%s' or reason '%s'", g->id,
			                  g->result, g->reason);
	}
	if (rc < 0) {
		table_free(t);
		return NULL;
	}
	t->start = *start;
	t->game = *position;
	t->settled_at = table_now(t); /* the clock of the side to move runs from now */
	return t;
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

json_t *
table_event_new(const struct table *t, enum msg_type type)
{
	json_t *ev = msg_new(type, NULL);

	json_object_set_new(ev, "game", json_string(t->id));
	json_object_set_new(ev, "seq", json_integer(table_seq(t) + 1));
	return ev;
}

/*
 * Emit the next event of type: w is its line (stolen: the log keeps that reference), ev the
 * object (borrowed; NULL for moved, see struct fanout). It is kept in the log, then published
 * once through the fan-out port (fanout.h). Returns its seq.
 */
static int64_t
emit_line(struct table *t, enum msg_type type, const json_t *ev, struct wire *w,
          const struct session *skip)
{
	const struct fanout *fo = t->env->fanout;
	int64_t seq = table_seq(t) + 1;

	assert(ev == NULL || json_integer_value(json_object_get(ev, "seq")) == seq);
	t->log = xgrow(t->log, t->nlog, &t->log_cap, sizeof *t->log, 16);
	t->log[t->nlog++] = w;
	if (fo != NULL)
		fo->publish(fo, t, seq, type, ev, w, skip);
	else
		table_broadcast(t, w, skip);
	return seq;
}

int64_t
table_emit(struct table *t, json_t *ev, const struct session *skip)
{
	const char *type = json_string_value(json_object_get(ev, "type"));
	int64_t seq = emit_line(t, msg_type_parse(type), ev, wire_encode(ev), skip);

	json_decref(ev);
	return seq;
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

	if (t->status != TABLE_LIVE || game_side(&t->game) != seat || now <= t->settled_at)
		return 0;
	return (int64_t)(now - t->settled_at);
}

/* A seat's clock as of now. */
static int64_t
remaining_now(const struct table *t, int seat)
{
	int64_t r = t->remaining[seat] - unsettled(t, seat);

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

/* The player object of a seat, or null. */
static json_t *
seat_player_new(const struct table *t, int seat, int with_connected)
{
	json_t *p;

	if (!t->seat_taken[seat])
		return json_null();
	p = msg_player_new(t->seat_id[seat], t->seat_name[seat]);
	if (t->computer[seat] > 0)
		json_object_set_new(p, "computer", json_integer(t->computer[seat]));
	if (!with_connected)
		return p;
	json_object_set_new(p, "connected", json_boolean(table_connected(t, seat)));
	if (!table_connected(t, seat) &&
	    (t->status == TABLE_LIVE || t->status == TABLE_ADJOURNED)) {
		json_object_set_new(p, "grace_ms", json_integer(table_grace_now(t, seat)));
		json_object_set_new(p, "grace_over", json_boolean(t->grace_over[seat]));
	}
	return p;
}

json_t *
table_player_new(const struct table *t, int seat)
{
	return seat_player_new(t, seat, 0);
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

/* {"black": n, "white": n}. */
static json_t *
scores_new(const struct table *t, const int score[2])
{
	json_t *o = json_object();

	for (int i = 0; i < 2; i++)
		json_object_set_new(o, game_side_name(t->kind, i), json_integer(score[i]));
	return o;
}

/* The current HOKITO scores of the table's position. */
static json_t *
current_scores_new(const struct table *t)
{
	struct game_outcome o;

	game_outcome(&t->game, &o);
	return scores_new(t, o.score);
}

static json_t *
result_new(const struct table *t)
{
	json_t *o;

	if (t->status != TABLE_FINISHED)
		return json_null();
	o = json_object();
	json_object_set_new(o, "result", json_string(t->result));
	json_object_set_new(o, "winner",
	                    t->winner >= 0 ? json_string(game_side_name(t->kind, t->winner))
	                                   : json_null());
	json_object_set_new(o, "reason", json_string(t->reason));
	if (game_kind_has(t->kind, GAME_HAS_SCORES))
		json_object_set_new(o, "scores", scores_new(t, t->score));
	return o;
}

static const char *
status_name(enum table_status s)
{
	switch (s) {
	case TABLE_OPEN:
		return "open";
	case TABLE_LIVE:
		return "live";
	case TABLE_ADJOURNED:
		return "adjourned";
	default:
		return "finished";
	}
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
	if (t->status != TABLE_LIVE)
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
	                    t->status == TABLE_LIVE ? seat_or_null(t, game_side(&t->game))
	                                            : json_null());
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

void
table_chat_keep(struct table *t, int kibitz, json_t *line)
{
	json_t **ring = kibitz ? t->kibitz : t->chat;
	unsigned *n = kibitz ? &t->nkibitz : &t->nchat;

	json_decref(ring[*n % CHAT_KEEP]);
	ring[*n % CHAT_KEEP] = line;
	(*n)++;
}

json_t *
table_state_new(const struct table *t, const struct session *viewer, json_t *id)
{
	json_t *o = msg_new(MSG_STATE, NULL), *cells = json_array(), *moves = json_array();
	int seated = viewer != NULL && viewer->table == t && viewer->seat >= 0;
	char seed[24], cell[GAME_TEXT_MAX];

	snprintf(seed, sizeof seed, "%llu", (unsigned long long)t->seed);
	json_object_set_new(o, "game", json_string(t->id));
	json_object_set_new(o, "kind", json_string(game_kind_name(t->kind)));
	json_object_set_new(o, "variant", json_string(t->variant));
	json_object_set_new(o, "seed", json_string(seed));
	json_object_set_new(o, "private", json_boolean(t->is_private));
	if (t->is_private && seated)
		json_object_set_new(o, "code", json_string(t->code));
	json_object_set_new(o, "status", json_string(status_name(t->status)));
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
	json_object_set_new(o, "ply", json_integer((json_int_t)t->nmoves));
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
	json_object_set_new(o, "draw_offer", seat_or_null(t, t->draw_offer));
	json_object_set_new(o, "rematch_offer", seat_or_null(t, t->rematch_offer));
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
	json_object_set_new(o, "status", json_string(status_name(t->status)));
	json_object_set_new(o, "players", players_new(t, 0));
	json_object_set_new(o, "spectators", json_integer((json_int_t)t->nwatchers));
	json_object_set_new(o, "ply", json_integer((json_int_t)t->nmoves));
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

void
table_spectators_notify(struct table *t)
{
	json_t *o = msg_new(MSG_SPECTATORS, NULL);
	struct wire *w;

	json_object_set_new(o, "game", json_string(t->id));
	json_object_set_new(o, "spectators", table_spectators_new(t));
	w = wire_encode_steal(o);
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

	if (t->status != TABLE_LIVE)
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

	if (t->status != TABLE_LIVE || t->computer[side] == 0 || t->thinking ||
	    env->think == NULL || game_over(&t->game))
		return;
	if (t->timed) {
		int64_t share = t->remaining[side] / 20 + (int64_t)t->inc_ms / 2;

		if (share < TABLE_THINK_MIN_MS)
			share = TABLE_THINK_MIN_MS;
		if ((uint64_t)share < time_ms)
			time_ms = (uint64_t)share;
	}
	t->thinking = 1;
	env->think(env->arg, t->id, (int64_t)t->nmoves, &t->game, t->computer[side],
	           t->seed ^ ((uint64_t)t->nmoves * 0x9e3779b97f4a7c15ULL), time_ms);
}

int64_t
table_finish(struct table *t, const char *result, int winner, const char *reason)
{
	struct game_outcome o;
	json_t *ev;

	table_clock_settle(t);
	game_outcome(&t->game, &o);
	t->status = TABLE_FINISHED;
	t->draw_offer = -1;
	t->result = result;
	t->winner = winner;
	t->reason = reason;
	t->score[0] = o.score[0];
	t->score[1] = o.score[1];
	ev = table_event_new(t, MSG_GAME_OVER);
	json_object_set_new(ev, "result", json_string(result));
	json_object_set_new(ev, "winner",
	                    winner >= 0 ? json_string(game_side_name(t->kind, winner))
	                                : json_null());
	json_object_set_new(ev, "reason", json_string(reason));
	json_object_set_new(ev, "ply", json_integer((json_int_t)t->nmoves));
	if (game_kind_has(t->kind, GAME_HAS_SCORES))
		json_object_set_new(ev, "scores", scores_new(t, t->score));
	if (t->timed)
		json_object_set_new(ev, "clocks", table_clocks_new(t));
	return table_emit(t, ev, NULL);
}

void
table_start(struct table *t, const struct session *skip)
{
	json_t *ev = table_event_new(t, MSG_STARTED);

	t->status = TABLE_LIVE;
	t->settled_at = table_now(t); /* the first player's clock starts now */
	json_object_set_new(ev, "kind", json_string(game_kind_name(t->kind)));
	json_object_set_new(ev, "variant", json_string(t->variant));
	json_object_set_new(ev, "players", players_new(t, 0));
	json_object_set_new(ev, "position", position_new(&t->game));
	json_object_set_new(ev, "to_move",
	                    json_string(game_side_name(t->kind, game_side(&t->game))));
	if (t->timed) {
		json_object_set_new(ev, "clock", json_string(t->control));
		json_object_set_new(ev, "clocks", table_clocks_new(t));
	}
	table_emit(t, ev, skip);
	/* a start position can already be over (HOKITO: a side without a move) */
	if (game_over(&t->game))
		table_finish_by_rules(t);
}

/*
 * Play a legal move: the caller validated it with game_move_parse() against this very position.
 * Apply it to the authoritative game, record its canonical text, emit moved, and game_over when
 * the rules say the game ended. Returns the seq of the moved event.
 */
int64_t
table_play(struct table *t, struct game_move m)
{
	int side = game_side(&t->game);
	char text[GAME_MOVE_TEXT], position[GAME_TEXT_MAX];
	struct game_outcome o;
	struct msg_moved mv;
	int64_t seq;

	if (game_move_format(t->kind, m, text, sizeof text) < 0)
		abort();
	table_clock_settle(t);
	if (t->timed)
		t->remaining[side] += (int64_t)t->inc_ms;
	/* an offer lapses when the player it was made to moves; one's own offer stands */
	if (t->draw_offer != side)
		t->draw_offer = -1;
	game_apply(&t->game, m);
	t->moves = xgrow(t->moves, t->nmoves, &t->moves_cap, sizeof *t->moves, 64);
	memcpy(t->moves[t->nmoves++], text, sizeof text);
	/* the line of the one event of every move is written directly (msg_moved_wire()) */
	if (game_format(&t->game, position, sizeof position) < 0)
		abort();
	memset(&mv, 0, sizeof mv);
	mv.game = t->id;
	mv.seq = table_seq(t) + 1;
	mv.by = game_side_name(t->kind, side);
	mv.move = text;
	mv.ply = (int64_t)t->nmoves;
	mv.position = position;
	mv.to_move = game_over(&t->game) ? NULL : game_side_name(t->kind, game_side(&t->game));
	for (int i = 0; i < 2; i++) {
		mv.side[i] = game_side_name(t->kind, i);
		mv.clocks[i] = t->remaining[i];
	}
	if (game_kind_has(t->kind, GAME_HAS_SCORES)) {
		game_outcome(&t->game, &o);
		mv.has_scores = 1;
		mv.scores[0] = o.score[0];
		mv.scores[1] = o.score[1];
	}
	mv.has_clocks = t->timed;
	/* no object for the fan-out: the move is the table's last (struct fanout) */
	seq = emit_line(t, MSG_MOVED, NULL, msg_moved_wire(&mv), NULL);
	if (game_over(&t->game))
		table_finish_by_rules(t);
	return seq;
}

int64_t
table_finish_by_rules(struct table *t)
{
	static const char *const reasons[] = {"none", "blocked", "line", "full"};
	struct game_outcome o;

	game_outcome(&t->game, &o);
	assert(o.end != GAME_END_NONE && (int)o.end < 4);
	return table_finish(t, o.winner >= 0 ? "win" : "draw", o.winner, reasons[o.end]);
}

void
table_clock_settle(struct table *t)
{
	uint64_t now = table_now(t);
	int64_t spent = now > t->settled_at ? (int64_t)(now - t->settled_at) : 0;
	int side = game_side(&t->game);

	t->settled_at = now;
	if (t->status != TABLE_LIVE)
		return;
	if (t->timed)
		t->remaining[side] = t->remaining[side] > spent ? t->remaining[side] - spent : 0;
	if (!table_connected(t, side) && !t->grace_over[side])
		t->grace_left[side] = t->grace_left[side] > spent ? t->grace_left[side] - spent : 0;
}

json_t *
table_clocks_new(const struct table *t)
{
	json_t *o = json_object();

	for (int i = 0; i < 2; i++)
		json_object_set_new(o, game_side_name(t->kind, i), json_integer(t->remaining[i]));
	return o;
}

uint64_t
table_deadline(const struct table *t)
{
	uint64_t d = UINT64_MAX;
	int side;

	if (t->status != TABLE_LIVE)
		return d;
	side = game_side(&t->game);
	if (t->timed)
		d = t->settled_at + (uint64_t)t->remaining[side];
	if (!table_connected(t, side) && !t->grace_over[side] &&
	    t->settled_at + (uint64_t)t->grace_left[side] < d)
		d = t->settled_at + (uint64_t)t->grace_left[side];
	return d;
}

int
table_clock_check(struct table *t)
{
	int side;
	json_t *ev;

	if (t->status != TABLE_LIVE)
		return 0;
	table_clock_settle(t);
	side = game_side(&t->game);
	if (t->timed && t->remaining[side] == 0) {
		/* HOKITO and OXONO alike: running out of time loses, whatever the board says */
		table_finish(t, "win", 1 - side, "time");
		return 1;
	}
	if (table_connected(t, side) || t->grace_over[side] || t->grace_left[side] > 0)
		return 0;
	t->grace_over[side] = 1;
	if (t->timed) {
		/* the opponent may claim the win or a draw from now on */
		ev = table_event_new(t, MSG_GRACE_OVER);
		json_object_set_new(ev, "seat", json_string(game_side_name(t->kind, side)));
		json_object_set_new(ev, "clocks", table_clocks_new(t));
	} else {
		/* without a clock nobody can lose on time: the game waits for both players */
		t->status = TABLE_ADJOURNED;
		t->draw_offer = -1;
		ev = table_event_new(t, MSG_ADJOURNED);
		json_object_set_new(ev, "seat", json_string(game_side_name(t->kind, side)));
	}
	table_emit(t, ev, NULL);
	return 0;
}

void
table_seat_back(struct table *t, int seat)
{
	json_t *ev;

	t->grace_left[seat] = (int64_t)t->env->grace_ms;
	t->grace_over[seat] = 0;
	if (t->status != TABLE_ADJOURNED || !table_connected(t, 0) || !table_connected(t, 1))
		return;
	t->status = TABLE_LIVE;
	t->settled_at = table_now(t);
	for (int i = 0; i < 2; i++) {
		t->grace_left[i] = (int64_t)t->env->grace_ms;
		t->grace_over[i] = 0;
	}
	ev = table_event_new(t, MSG_RESUMED);
	json_object_set_new(ev, "to_move",
	                    json_string(game_side_name(t->kind, game_side(&t->game))));
	table_emit(t, ev, NULL);
}

/*
 * A presence notice about seat of t, to everyone else there: in a game of any status (in an open
 * or finished game too, where a rematch wants the opponent there), with the grace left only where
 * grace is spent (a live or adjourned game).
 */
void
table_presence_notify(struct table *t, int seat, int connected)
{
	json_t *o = msg_new(MSG_PRESENCE, NULL);
	struct wire *w;

	json_object_set_new(o, "game", json_string(t->id));
	json_object_set_new(o, "seat", json_string(game_side_name(t->kind, seat)));
	json_object_set_new(o, "player", msg_player_new(t->seat_id[seat], t->seat_name[seat]));
	json_object_set_new(o, "connected", json_boolean(connected));
	if (!connected && (t->status == TABLE_LIVE || t->status == TABLE_ADJOURNED)) {
		json_object_set_new(o, "grace_ms", json_integer(table_grace_now(t, seat)));
		json_object_set_new(o, "grace_over", json_boolean(t->grace_over[seat]));
	}
	w = wire_encode_steal(o);
	table_broadcast(t, w, t->seat[seat]);
	wire_unref(w);
}

json_t *
table_presence_new(const struct table *t, int seat)
{
	json_t *o = msg_new(MSG_PRESENCE, NULL);

	json_object_set_new(o, "game", json_string(t->id));
	json_object_set_new(o, "seat", json_string(game_side_name(t->kind, seat)));
	json_object_set_new(o, "player", msg_player_new(t->seat_id[seat], t->seat_name[seat]));
	json_object_set_new(o, "connected", json_false());
	json_object_set_new(o, "grace_ms", json_integer(table_grace_now(t, seat)));
	json_object_set_new(o, "grace_over", json_boolean(t->grace_over[seat]));
	return o;
}

/* An offer event (draw_offered, draw_declined, rematch_*) by seat. Returns its seq. */
int64_t
table_offer_emit(struct table *t, enum msg_type type, int seat)
{
	json_t *ev = table_event_new(t, type);

	json_object_set_new(ev, "by", json_string(game_side_name(t->kind, seat)));
	return table_emit(t, ev, NULL);
}

const char *
table_other_side(const struct table *t, int seat)
{
	return game_side_name(t->kind, 1 - seat);
}
