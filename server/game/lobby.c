/*
 * lobby.c: the state of the game layer: sessions, the list of tables, the finished and held
 * games and their pruning, the deadline heap (deadline.c), the coalesced spectators notices, and
 * the entry points that are not requests (a peer gone, the tick, the wake-up, the computer's move).
 *
 * The lobby owns every session (session.c) and every table (table.c). A session outlives its
 * connection (a peer) so that a player can come back with its token; it is freed by lobby_tick()
 * once it has been disconnected longer than the linger time, unless it holds a seat in a live
 * game. Tables are freed when their game is finished, keep_finished more recent games of its kind
 * (public or private: private games, never listed, do not push public ones off the lobby's list)
 * have finished, and none of its players is still at it, connected or lingering (lobby_prune()),
 * or when the lobby is freed. Pruning happens at the end of each entry point, never in the middle
 * of a request that still uses the table.
 *
 * At the end of every entry point the lobby computes the earliest deadline of all live games (a
 * flag fall, the end of a grace period) and asks the network layer for a wake-up then
 * (ops->timer); lobby_wake() acts on what is due. The requests themselves are handled by the
 * rooms above this one (handlers.c and what it dispatches to), which call down into here; nothing
 * here calls up into them.
 *
 * A store read (history, record) runs off the loop's thread (ops->read); meanwhile its
 * connection sends nothing more up: ops->pause tells the network layer to stop reading it, so its
 * later requests wait in its own input (bounded in bytes there), not here. The lobby keeps the
 * waits only, found by the read's ticket: the read is started by archive.c, and handlers.c
 * replies when the answer comes (handlers_read_done()) and lets the connection go on.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "lobby.h"
#include "log.h"
#include "osrand.h"
#include "quota.h"
#include "throttle.h"
#include "xmalloc.h"

const char *const lobby_limit_names[LOBBY_NLIMITS] = {
        [LOBBY_LIMIT_RATE] = "max-rate-per-addr",
        [LOBBY_LIMIT_CREATES] = "max-creates-per-addr",
        [LOBBY_LIMIT_GAMES_PER_ADDR] = "max-games-per-addr",
        [LOBBY_LIMIT_GAMES] = "max-games",
        [LOBBY_LIMIT_THINKING] = "max-thinking",
        [LOBBY_LIMIT_LOOKUPS] = "max-lookup-failures",
        [LOBBY_LIMIT_SESSIONS] = "max-sessions-per-addr",
        [LOBBY_LIMIT_ACCOUNTS] = "max-accounts-per-addr",
        [LOBBY_LIMIT_READS] = "max-reads-per-addr",
        [LOBBY_LIMIT_HISTORY_OFFSET] = "max-history-offset",
        [LOBBY_LIMIT_CHAT_LINES] = "max-chat-lines",
        [LOBBY_LIMIT_CHAT_AFTER_END] = "max-chat-after-end",
        [LOBBY_LIMIT_CHAT_RATE] = "chat-rate",
        [LOBBY_LIMIT_KIBITZ] = "max-kibitz",
        [LOBBY_LIMIT_DRAW_OFFERS] = "draw-offer-moves",
        [LOBBY_LIMIT_REMATCH_OFFERS] = "max-rematch-offers",
        [LOBBY_LIMIT_IDLE] = "idle-timeout",
};

#define CODE_ALPHABET "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

/* table_env.now: the lobby's time. */
static uint64_t
lobby_env_now(void *arg)
{
	return lobby_time(arg);
}

struct lobby *
lobby_create(const struct lobby_config *cfg, const struct lobby_ops *ops)
{
	struct lobby *lb = xcalloc(1, sizeof *lb);
	uint64_t k[2];

	lb->cfg = *cfg;
	lb->ops = *ops;
	lb->env.now = lobby_env_now;
	lb->env.now_arg = lb;
	lb->env.send = ops->send;
	lb->env.think = ops->think;
	lb->env.arg = ops->arg;
	lb->env.fanout = cfg->fanout;
	lb->env.grace_ms = cfg->grace_ms;
	lb->env.adjourn_claim_ms = cfg->adjourn_claim_ms;
	lb->env.first_move_ms = cfg->first_move_ms;
	lb->env.rated_min_plies = cfg->rated_min_plies;
	lb->env.pair_rated = cfg->pair_rated;
	lb->next_player = 1;
	lb->next_game = 1;
	k[0] = osrand_u64();
	k[1] = osrand_u64();
	session_registry_init(&lb->sessions, k[0], k[1]);
	strmap_init(&lb->by_game, osrand_u64());
	strmap_init(&lb->by_code, osrand_u64());
	TAILQ_INIT(&lb->finished);
	TAILQ_INIT(&lb->held);
	SLIST_INIT(&lb->release);
	LIST_INIT(&lb->spect_waiting);
	TAILQ_INIT(&lb->waits);
	accounts_init(&lb->accounts);
	lb->accounts.spread_min = cfg->login_spread;
	rating_book_init(&lb->ratings);
	lb->env.ratings = &lb->ratings;
	lb->quick_due = UINT64_MAX; /* set by quick and pairing_wake() */
	if (cfg->rate_per_addr || cfg->creates_per_addr || cfg->games_per_addr ||
	    cfg->addr_sessions || cfg->registers_hour || cfg->registers_day) {
		struct quota_config qc = {.rate = cfg->rate_per_addr,
		                          .creates = cfg->creates_per_addr,
		                          .games = cfg->games_per_addr,
		                          .sessions = cfg->addr_sessions,
		                          .registers_hour = cfg->registers_hour,
		                          .registers_day = cfg->registers_day};

		lb->quota = quota_create(&qc, osrand_u64());
	}
	if (cfg->lookup_failures) {
		struct throttle_config tc = throttle_config_default;

		/* throttle.h counts free the failures before the first delay: N fail, the next
		 * waits */
		tc.free_failures = cfg->lookup_failures - 1;
		lb->lookups = throttle_create(&tc, osrand_u64());
	}
	return lb;
}

static void lobby_views_free(struct lobby *lb);

void
lobby_free(struct lobby *lb)
{
	if (lb == NULL)
		return;
	while (!TAILQ_EMPTY(&lb->waits)) {
		TAILQ_FIRST(&lb->waits)->peer = NULL; /* its connection may be freed by now */
		lobby_wait_drop(lb, TAILQ_FIRST(&lb->waits));
	}
	lobby_views_free(lb);
	free(lb->views);
	for (size_t i = 0; i < lb->ntables; i++)
		table_free(lb->tables[i]);
	session_registry_close(&lb->sessions);
	free(lb->tables);
	deadline_close(&lb->deadlines);
	strmap_close(&lb->by_game);
	strmap_close(&lb->by_code);
	accounts_close(&lb->accounts);
	rating_book_close(&lb->ratings);
	quota_free(lb->quota);
	throttle_free(lb->lookups);
	free(lb);
}

uint64_t
lobby_time(const struct lobby *lb)
{
	if (lb->cfg.test_clock) /* test_clock is refused while the store is down */
		return lb->virtual_ms;
	return (lb->store_down != NULL ? lb->paused_at : lb->ops.now(lb->ops.arg)) - lb->paused_ms;
}

/*
 * The store is back and has written what waited: every viewer that was shown a game only up to
 * its last stored event (lobby_hold_behind()) gets the events it was not sent, ahead of the
 * lines it held meanwhile (which came after them), if it is still connected at that game.
 */
static void
lobby_behind_flush(struct lobby *lb)
{
	for (size_t i = 0; i < lb->sessions.n; i++) {
		struct session *s = lb->sessions.all[i];
		struct table *t = s->table;

		if (s->behind_to == 0)
			continue;
		if (s->peer != NULL && t != NULL && strcmp(t->id, s->behind_game) == 0)
			for (int64_t q = s->behind_from; q < s->behind_to && q < table_seq(t); q++)
				(lb->ops.send_ahead != NULL ? lb->ops.send_ahead : lb->ops.send)(
				        lb->ops.arg, s->peer, t->log[q]);
		s->behind_from = s->behind_to = 0;
	}
}

/*
 * The clocks pause while the store is down (PROTOCOL.md 11.1): a flag that fell then would end a
 * game that cannot be stored, and a player must not lose on time because the server could not
 * write. The game time stops at the failure and goes on from there when the store is back.
 */
void
lobby_store_changed(struct lobby *lb, const char *why)
{
	uint64_t now = lb->ops.now(lb->ops.arg);

	if (why != NULL && lb->store_down == NULL)
		lb->paused_at = now;
	else if (why == NULL && lb->store_down != NULL)
		lb->paused_ms += now - lb->paused_at;
	lb->store_down = why;
	if (why == NULL) {
		lobby_behind_flush(lb);
		lobby_views_free(lb);
	}
	lobby_arm(lb);
}

int64_t
lobby_waiting_seq(const struct lobby *lb, const struct table *t)
{
	if (lb->store_down == NULL || lb->ops.waiting_seq == NULL)
		return 0;
	return lb->ops.waiting_seq(lb->ops.arg, t->id);
}

/*
 * The views are built once an outage for each table that has events waiting (a replay of its
 * stored events: table_view_new()), and looked up by id: there are few (the store refuses writes
 * meanwhile), and what they borrow from their table (seated sessions, spectators) is taken again
 * at each look (table_view_sync()), so that a table's view stays right while the table changes.
 */
const struct table *
lobby_view(struct lobby *lb, const struct table *t)
{
	int64_t w = lobby_waiting_seq(lb, t);
	struct table *v;

	if (w == 0)
		return t;
	if (w == 1)
		return NULL;
	for (size_t i = 0; i < lb->nviews; i++) {
		v = lb->views[i];
		if (strcmp(v->id, t->id) == 0 && table_seq(v) == w - 1) {
			table_view_sync(v, t);
			return v;
		}
	}
	v = table_view_new(t, w - 1);
	lb->views = xgrow(lb->views, lb->nviews, &lb->views_cap, sizeof *lb->views, 8);
	lb->views[lb->nviews++] = v;
	return v;
}

/* The store is back (or the lobby goes): the views of lobby_view() go. */
static void
lobby_views_free(struct lobby *lb)
{
	for (size_t i = 0; i < lb->nviews; i++)
		table_view_free(lb->views[i]);
	lb->nviews = 0;
}

int
lobby_refuse_new_id(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	unsigned player, game;

	if (lb->store_down == NULL || lb->ops.marks == NULL)
		return 0;
	lb->ops.marks(lb->ops.arg, &player, &game);
	if (lb->next_player < player)
		return 0;
	lb->ids_refused++;
	lobby_refuse(lb, peer, m, PROTO_ESTOREUNAVAILABLE, "%s", lb->store_down);
	return 1;
}

void
lobby_hold(struct lobby *lb, struct lobby_peer *peer)
{
	if (lb->ops.hold != NULL && peer != NULL)
		lb->ops.hold(lb->ops.arg, peer);
}

void
lobby_hold_behind(struct lobby *lb, struct session *s, const struct table *t, int64_t shown)
{
	lobby_hold(lb, s->peer);
	snprintf(s->behind_game, sizeof s->behind_game, "%s", t->id);
	s->behind_from = shown;
	s->behind_to = table_seq(t);
}

void
lobby_state_send(struct lobby *lb, struct table *t, struct session *s, json_t *id)
{
	const struct table *v;

	if (s->behind_to > 0 && strcmp(s->behind_game, t->id) == 0) {
		/* its lines wait already, behind the events it was not sent: the state as it is
		 * goes after them */
		lobby_send(lb, s->peer, table_state_new(t, s, id));
		return;
	}
	v = lobby_view(lb, t);
	assert(v != NULL); /* the caller found t stored */
	lobby_send(lb, s->peer, table_state_new(v, s, id));
	if (v != t)
		lobby_hold_behind(lb, s, t, table_seq(v));
}

void
lobby_counts(const struct lobby *lb, unsigned *sessions, unsigned *tables)
{
	*sessions = (unsigned)lb->sessions.n;
	*tables = (unsigned)lb->ntables;
}

void
lobby_counters(const struct lobby *lb, unsigned *next_player, unsigned *next_game)
{
	*next_player = lb->next_player;
	*next_game = lb->next_game;
}

/* Send a message (stolen) to a peer. */
void
lobby_send(struct lobby *lb, struct lobby_peer *peer, json_t *o)
{
	struct wire *w = wire_encode_steal(o);

	lb->ops.send(lb->ops.arg, peer, w);
	wire_unref(w);
}

void
lobby_send_ahead(struct lobby *lb, struct lobby_peer *peer, json_t *o)
{
	struct wire *w = wire_encode_steal(o);

	if (lb->ops.send_ahead != NULL)
		lb->ops.send_ahead(lb->ops.arg, peer, w);
	else
		lb->ops.send(lb->ops.arg, peer, w);
	wire_unref(w);
}

/* Reply ok to request type (seq < 0: without "seq"); the line is written directly (msg_ok_wire()).
 */
void
lobby_send_ok(struct lobby *lb, struct lobby_peer *peer, enum msg_type type, int64_t seq,
              const json_t *id)
{
	struct wire *w = msg_ok_wire(type, seq, id);

	lb->ops.send(lb->ops.arg, peer, w);
	wire_unref(w);
}

void
lobby_refuse(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, int code,
             const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	log_debug("%s: %s refused: %s", peer->session ? peer->session->id : "-",
	          msg_type_name(m->type), text);
	lobby_send(lb, peer, msg_error_new(code, m->type, NULL, text, m->id));
}

/* Open, live and adjourned tables: what --max-games counts. */
unsigned
lobby_active_tables(const struct lobby *lb)
{
	return (unsigned)(lb->ntables - lb->nfinished - lb->nheld);
}

void
lobby_table_add(struct lobby *lb, struct table *t)
{
	lb->tables = xgrow(lb->tables, lb->ntables, &lb->tables_cap, sizeof *lb->tables, 64);
	lb->tables[lb->ntables++] = t;
	strmap_put(&lb->by_game, t->id, t);
	if (t->is_private)
		strmap_put(&lb->by_code, t->code, t);
}

/*
 * Spectators notices are coalesced. A change of a game's spectator list is sent at once if no
 * notice went to that game in the last SPECTATORS_INTERVAL milliseconds; otherwise one notice,
 * with the list as it is by then, goes when the interval is over (lobby_wake(), woken through
 * lobby_arm()). So a thousand spectators moving to a new game cost each receiver a few notices
 * instead of a thousand, and watch/leave loops cannot make the server send a line to every
 * spectator per request. The interval runs on ops->now (real time, even with test_clock).
 */
void
lobby_spectators_changed(struct lobby *lb, struct table *t)
{
	uint64_t now = lb->ops.now(lb->ops.arg);

	if (t->spect_waiting)
		return;
	if (now >= t->spect_due) {
		table_spectators_notify(t);
		t->spect_due = now + SPECTATORS_INTERVAL;
		return;
	}
	t->spect_waiting = 1;
	LIST_INSERT_HEAD(&lb->spect_waiting, t, spect_link);
}

/* Send the waiting spectators notices that are due. */
static void
spectators_flush(struct lobby *lb)
{
	uint64_t now = lb->ops.now(lb->ops.arg);
	struct table *t, *next;

	for (t = LIST_FIRST(&lb->spect_waiting); t != NULL; t = next) {
		next = LIST_NEXT(t, spect_link);
		if (now < t->spect_due)
			continue;
		LIST_REMOVE(t, spect_link);
		t->spect_waiting = 0;
		table_spectators_notify(t);
		t->spect_due = now + SPECTATORS_INTERVAL;
	}
}

/* Count t among the finished tables, as the newest: pruning forgets the oldest first. */
void
lobby_finished_append(struct lobby *lb, struct table *t)
{
	t->finish_counted = 1;
	t->finished_serial = ++lb->finished_serial;
	TAILQ_INSERT_TAIL(&lb->finished, t, fin_link);
	lb->nfinished++;
	lb->nfinished_private += t->is_private != 0;
	lb->prune_due = 1;
}

/* Take t (counted) off the finished tables, or off the held ones, before it is freed. */
static void
finished_remove(struct lobby *lb, struct table *t)
{
	if (t->held) {
		TAILQ_REMOVE(&lb->held, t, fin_link);
		lb->nheld--;
		t->held = 0;
		return;
	}
	TAILQ_REMOVE(&lb->finished, t, fin_link);
	lb->nfinished--;
	lb->nfinished_private -= t->is_private != 0;
}

/*
 * Move finished table t, gone past the keep_finished most recent, from the finished tables to the
 * held ones: a player is still at it or may come back to it. Pruning never walks these again; a
 * held table is looked at when a player of its leaves it (lobby_released()).
 */
static void
finished_hold(struct lobby *lb, struct table *t)
{
	finished_remove(lb, t);
	t->held = 1;
	TAILQ_INSERT_HEAD(&lb->held, t, fin_link);
	lb->nheld++;
}

/*
 * A player left finished table t (went elsewhere, expired, went on to the rematch): if t is held
 * for its players, the next lobby_prune() forgets it once neither is left.
 */
void
lobby_released(struct lobby *lb, struct table *t)
{
	if (!t->held || t->release_queued)
		return;
	t->release_queued = 1;
	SLIST_INSERT_HEAD(&lb->release, t, release_link);
}

/* t's game is over or gone: it no longer counts for the address that created it. */
static void
table_owner_release(struct lobby *lb, struct table *t)
{
	if (t->owner[0] == '\0' || lb->quota == NULL)
		return;
	quota_game_done(lb->quota, t->owner);
	t->owner[0] = '\0';
}

/* A game may just have finished: count it; seated sessions that are disconnected linger from now
 * on. The computer's search of a game that ends stops at once (ops->think_cancel). */
void
lobby_finished_touch(struct lobby *lb, struct table *t)
{
	if (t->st.status != EVENT_STATUS_FINISHED || t->finish_counted)
		return;
	table_owner_release(lb, t);
	if (lb->ops.think_cancel != NULL && (t->computer[0] || t->computer[1]))
		lb->ops.think_cancel(lb->ops.arg, t->id); /* its search stops now, not on time */
	lobby_finished_append(lb, t);
	deadline_remove(&lb->deadlines, t);
	for (int i = 0; i < 2; i++)
		if (t->seat[i] != NULL && t->seat[i]->peer == NULL)
			t->seat[i]->gone_at = lobby_time(lb);
	log_info("game %s over: %s %s (%s) after %zu moves", t->id, event_result_name(t->st.result),
	         t->st.winner >= 0 ? game_side_name(t->kind, t->st.winner) : "-",
	         event_reason_name(t->st.reason), t->nmoves);
}

/*
 * Take s away from the game it is at. A spectator leaves the list; a player of an open game ends
 * it (nobody is left to play it); a player of a finished game just goes. The caller makes sure s
 * is not seated in a live game.
 */
void
lobby_session_leave(struct lobby *lb, struct session *s)
{
	struct table *t = s->table;

	if (t == NULL)
		return;
	assert(!(s->seat >= 0 && t->st.status == EVENT_STATUS_LIVE));
	if (s->seat < 0) {
		table_attach(NULL, s);
		if (s->peer != NULL) {
			table_watcher_remove(t, s);
			lobby_spectators_changed(lb, t);
		}
		return;
	}
	if (t->st.status != EVENT_STATUS_ADJOURNED && lb->ops.unseated != NULL)
		lb->ops.unseated(lb->ops.arg, s->token);
	if (t->st.status == EVENT_STATUS_OPEN) {
		table_finish(t, EVENT_RESULT_ABORTED, -1, EVENT_REASON_ABANDONED);
		lobby_finished_touch(lb, t);
	}
	t->st.offer[EVENT_OFFER_REMATCH] = -1; /* a rematch needs both players at the game */
	t->seat[s->seat] = NULL;
	table_attach(NULL, s);
	s->seat = -1;
	if (t->st.status == EVENT_STATUS_FINISHED)
		lobby_released(lb, t); /* its game may have been held for it */
}

void
lobby_session_drop(struct lobby *lb, struct session *s)
{
	lobby_session_leave(lb, s);
	if (lb->quota != NULL && s->addr[0] != '\0')
		quota_session_remove(lb->quota, s->addr);
	session_forget(&lb->sessions, s);
}

/*
 * Free table t after detaching every session still at it. O(1) but for finding t in the list of
 * tables, a scan of pointers from both ends at once: the tables dropped are usually among the
 * oldest, but thousands of held games (lobby_prune()) may stand before a game just finished.
 */
static void
table_drop(struct lobby *lb, struct table *t)
{
	size_t i = 0, j = lb->ntables - 1;
	struct session *s;

	while ((s = TAILQ_FIRST(&t->attached)) != NULL) {
		s->seat = -1;
		table_attach(NULL, s);
	}
	log_debug("game %s forgotten", t->id);
	table_owner_release(lb, t);
	strmap_del(&lb->by_game, t->id);
	if (t->is_private)
		strmap_del(&lb->by_code, t->code);
	deadline_remove(&lb->deadlines, t);
	if (t->spect_waiting)
		LIST_REMOVE(t, spect_link);
	if (t->finish_counted)
		finished_remove(lb, t);
	while (lb->tables[i] != t && lb->tables[j] != t) {
		i++;
		j--;
	}
	if (lb->tables[i] != t)
		i = j;
	memmove(lb->tables + i, lb->tables + i + 1, (lb->ntables - i - 1) * sizeof *lb->tables);
	lb->ntables--;
	table_free(t);
}

/*
 * Whether a player of finished table t is still at it: connected (players stay at a finished
 * game until they go elsewhere or leave, PROTOCOL.md 6.5: to chat, to offer a rematch), or away
 * with a session that lingers, so that the player who returns in time gets the game_over it
 * missed (11.3; its session expires within --linger). Such a table is held beyond keep_finished;
 * a session is at one game at most, so the tables held so are no more than the sessions.
 */
static int
table_awaited(const struct table *t)
{
	for (int i = 0; i < 2; i++)
		if (t->seat[i] != NULL)
			return 1;
	return 0;
}

/*
 * Forget the finished games older than the keep_finished most recent, public and private counted
 * apart (the lobby lists keep_finished public ones, whatever private games finished since), but
 * those a player is still at or may come back to: those are held (finished_hold()) until their
 * last player leaves them (lobby_released()). Only the games just gone past the most recent are
 * walked, oldest first, and the held games a player just left: never all the held games, which
 * may be thousands (every game of a crowd that went away, for --linger) while games finish many
 * times a second.
 */
void
lobby_prune(struct lobby *lb)
{
	size_t n[2], older[2];
	struct table *t, *next;

	while ((t = SLIST_FIRST(&lb->release)) != NULL) {
		SLIST_REMOVE_HEAD(&lb->release, release_link);
		t->release_queued = 0;
		if (!table_awaited(t))
			table_drop(lb, t);
	}
	if (!lb->prune_due)
		return;
	lb->prune_due = 0;
	n[0] = lb->nfinished - lb->nfinished_private;
	n[1] = lb->nfinished_private;
	for (int k = 0; k < 2; k++)
		older[k] = n[k] > lb->cfg.keep_finished ? n[k] - lb->cfg.keep_finished : 0;
	for (t = TAILQ_FIRST(&lb->finished); t != NULL && older[0] + older[1] > 0; t = next) {
		int k = t->is_private != 0;

		next = TAILQ_NEXT(t, fin_link);
		if (older[k] == 0)
			continue;
		older[k]--;
		if (table_awaited(t))
			finished_hold(lb, t);
		else
			table_drop(lb, t);
	}
}

/* The welcome of session s: who it is, its token and the limits. */
json_t *
lobby_welcome_new(struct lobby *lb, const struct session *s, int resumed, json_t *id)
{
	struct event_player player = {s->id, s->name, 0, session_kind(s), NULL};
	json_t *o = msg_new(MSG_WELCOME, NULL);

	json_object_set_new(o, "protocol", json_integer(PROTOCOL_VERSION));
	json_object_set_new(o, "server", json_string(lb->cfg.server));

	json_object_set_new(o, "player", event_player_encode(&player));
	json_object_set_new(o, "token", json_string(s->token));
	json_object_set_new(o, "resumed", json_boolean(resumed));
	json_object_set_new(o, "game", s->table ? json_string(s->table->id) : json_null());
	json_object_set_new(o, "limits",
	                    json_pack("{s:I}", "max_line", (json_int_t)lb->cfg.max_line));
	if (id != NULL)
		json_object_set_new(o, "id", json_deep_copy(id));
	return o;
}

struct session *
lobby_session_new(struct lobby *lb, const char *name)
{
	char id[16];

	struct session *s;

	snprintf(id, sizeof id, "p%u", lb->next_player++);
	s = session_new(&lb->sessions, id, name);
	s->active_at = lb->ops.now(lb->ops.arg);
	return s;
}

/*
 * Find a game for join, watch or record: private ones only by their code, which is matched
 * without regard to case (a friend may type it in lower case; codes are made of capitals).
 */
struct table *
lobby_table_lookup(struct lobby *lb, const struct msg *m)
{
	struct table *t;

	if (m->code != NULL) {
		char code[PROTOCOL_CODE_LEN + 1];
		size_t n = strlen(m->code);

		if (n > PROTOCOL_CODE_LEN)
			return NULL;
		for (size_t i = 0; i <= n; i++) /* ASCII only: a code has no other letters */
			code[i] = m->code[i] >= 'a' && m->code[i] <= 'z'
			                  ? (char)(m->code[i] - 'a' + 'A')
			                  : m->code[i];
		return strmap_get(&lb->by_code, code);
	}
	t = strmap_get(&lb->by_game, m->game);
	return t != NULL && !t->is_private ? t : NULL;
}

struct table *
lobby_table_find(struct lobby *lb, const char *id)
{
	return strmap_get(&lb->by_game, id);
}

/* Whether a private game already uses this invite code. */
static int
code_used(struct lobby *lb, const char *code)
{
	return strmap_get(&lb->by_code, code) != NULL;
}

/* Refuse m with server_full when --max-games games are active. Returns whether it refused. */
int
lobby_refuse_full(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	if (lobby_active_tables(lb) < lb->cfg.max_games)
		return 0;
	lb->refusals[LOBBY_LIMIT_GAMES]++;
	lobby_refuse(lb, peer, m, PROTO_ESERVERFULL, "the server holds its maximum of %u games",
	             lb->cfg.max_games);
	return 1;
}

struct table *
lobby_table_open(struct lobby *lb, enum game_kind kind, const char *variant, uint64_t seed,
                 uint64_t base_ms, uint64_t inc_ms, int is_private,
                 const struct lobby_peer *creator)
{
	struct table *t;
	char id[16];

	snprintf(id, sizeof id, "g%u", lb->next_game++);
	t = table_create(&lb->env, id, kind, variant, seed, base_ms, inc_ms);
	t->serial = ++lb->serial;
	t->is_private = is_private;
	if (is_private) {
		do
			osrand_text(t->code, PROTOCOL_CODE_LEN, CODE_ALPHABET);
		while (code_used(lb, t->code));
	}
	if (creator != NULL && lb->quota != NULL && lb->cfg.games_per_addr)
		snprintf(t->owner, sizeof t->owner, "%s", creator->addr);
	lobby_table_add(lb, t);
	return t;
}

/*
 * The computer's move arrives from the network layer, maybe long after it was asked for: the game
 * may be gone (pruned), over (the person resigned, a flag fell) or, in principle, past that ply.
 * Then it is dropped. Otherwise it goes through the same gate as a person's move: a flag that fell
 * meanwhile ends the game first, the rules module parses and judges the text against the
 * authoritative position, and table_play() emits the events (and so writes the store).
 */
void
lobby_computer_move(struct lobby *lb, const char *game_id, int64_t ply, const char *move)
{
	struct table *t = lobby_table_find(lb, game_id);
	struct game_error gerr;
	struct game_move mv;
	int side;

	if (t == NULL)
		goto out;
	t->thinking = 0;
	if (t->st.status != EVENT_STATUS_LIVE || t->st.ply != ply ||
	    t->computer[game_side(&t->game)] == 0) {
		log_debug("game %s: the computer's move for ply %lld came too late", game_id,
		          (long long)ply);
		goto out;
	}
	if (table_clock_check(t)) {
		lobby_finished_touch(lb, t);
		goto out;
	}
	side = game_side(&t->game);
	if (game_move_parse(&t->game, move, &mv, &gerr) < 0) {
		/* the search only plays legal moves: this is our bug, and the game must not stall
		 */
		log_error("game %s: the computer's move '%s' was refused: %s; it resigns", t->id,
		          move, gerr.text);
		table_finish(t, EVENT_RESULT_WIN, 1 - side, EVENT_REASON_RESIGN);
		lobby_finished_touch(lb, t);
		goto out;
	}
	table_play(t, mv);
	log_debug("game %s: the computer (%s) played %s", t->id, game_side_name(t->kind, side),
	          t->moves[t->nmoves - 1]);
	lobby_finished_touch(lb, t);
	table_your_turn(t);
out:
	if (t != NULL)
		deadline_refresh(&lb->deadlines, t);
	lobby_prune(lb);
	lobby_arm(lb);
}

/*
 * Whether live or adjourned game t has none of its players connected at it (the computer does not
 * count), noting since when: called as soon as a player goes or comes back (and by lobby_tick()),
 * so that --linger counts from the moment the last player went, not from the next check.
 */
static int
table_desert_mark(struct table *t, uint64_t now)
{
	if (t == NULL ||
	    (t->st.status != EVENT_STATUS_LIVE && t->st.status != EVENT_STATUS_ADJOURNED) ||
	    (!t->computer[0] && table_connected(t, 0)) ||
	    (!t->computer[1] && table_connected(t, 1))) {
		if (t != NULL)
			t->deserted = 0;
		return 0;
	}
	if (!t->deserted) {
		t->deserted = 1;
		t->deserted_since = now;
	}
	return 1;
}

/*
 * An entry point touched t (NULL: none): file it under its deadline again (deadline_refresh())
 * and note whether it is deserted now (table_desert_mark()), as both may have changed.
 */
void
lobby_touched(struct lobby *lb, struct table *t)
{
	deadline_refresh(&lb->deadlines, t);
	table_desert_mark(t, lobby_time(lb));
}

/*
 * The first moment after the virtual time, and before to, at which something falls due in a game:
 * a clock or grace deadline (the heap), the next widening of the rated quick pool's windows
 * (lb->quick_due), or the end of --linger for a game none of its players is at
 * (table_desert_check()). to if nothing does.
 */
uint64_t
lobby_test_clock_next(const struct lobby *lb, uint64_t to)
{
	const struct table *first = deadline_first(&lb->deadlines);
	uint64_t next = to;

	if (first != NULL && first->heap_deadline > lb->virtual_ms && first->heap_deadline < next)
		next = first->heap_deadline;
	if (lb->quick_due > lb->virtual_ms && lb->quick_due < next)
		next = lb->quick_due;
	for (size_t i = 0; i < lb->ntables; i++) {
		const struct table *t = lb->tables[i];
		uint64_t d = t->deserted_since + lb->cfg.linger_ms;

		if (t->deserted && d > lb->virtual_ms && d < next)
			next = d;
	}
	return next;
}

void
lobby_peer_gone(struct lobby *lb, struct lobby_peer *peer)
{
	struct session *s = peer->session;
	struct table *t;

	if (peer->wait != NULL)
		lobby_wait_drop(lb, peer->wait); /* its read's answer will find nobody */
	if (s == NULL)
		return;
	t = s->table;
	if (t != NULL && s->seat >= 0)
		table_clock_settle(t); /* the time so far is not grace time */
	peer->session = NULL;
	s->peer = NULL;
	s->gone_at = lobby_time(lb);
	log_info("%s (%s) disconnected", s->id, s->name);
	if (t == NULL)
		return;
	if (s->seat < 0) {
		table_watcher_remove(t, s);
		lobby_spectators_changed(lb, t);
	} else {
		table_presence_notify(t, s->seat, 0);
	}
	lobby_touched(lb, t);
	lobby_arm(lb);
}

/*
 * A live or adjourned game that none of its players has been connected at for longer than the
 * linger time is over (aborted, reason abandoned), so that games nobody comes back to do not hold
 * --max-games places forever. Checked once a second, so the end may come up to a second late.
 * The computer, always connected, does not count: a game against it ends so when its person is
 * away that long.
 */
static void
table_desert_check(struct lobby *lb, struct table *t, uint64_t now)
{
	if (!table_desert_mark(t, now) || now - t->deserted_since < lb->cfg.linger_ms)
		return;
	log_info("game %s: no player for %llu s", t->id,
	         (unsigned long long)((now - t->deserted_since) / 1000));
	table_finish(t, EVENT_RESULT_ABORTED, -1, EVENT_REASON_ABANDONED);
	lobby_finished_touch(lb, t);
}

void
lobby_tick(struct lobby *lb)
{
	uint64_t now = lobby_time(lb);
	size_t kept = 0;

	accounts_tick(&lb->accounts, now);
	for (size_t i = 0; i < lb->sessions.n; i++) {
		struct session *s = lb->sessions.all[i];

		if (s->peer != NULL || now - s->gone_at < lb->cfg.linger_ms ||
		    (s->table != NULL && s->seat >= 0 &&
		     (s->table->st.status == EVENT_STATUS_LIVE ||
		      s->table->st.status == EVENT_STATUS_ADJOURNED))) {
			lb->sessions.all[kept++] = s;
			continue;
		}
		log_info("%s (%s) expired", s->id, s->name);
		lobby_session_drop(lb, s); /* releases a finished game held for it */
	}
	lb->sessions.n = kept;
	for (size_t i = 0; i < lb->ntables; i++) {
		table_desert_check(lb, lb->tables[i], now);
		deadline_refresh(&lb->deadlines, lb->tables[i]);
	}
	lobby_prune(lb);
	lobby_arm(lb);
}

/*
 * Ask the network layer to wake us at the earliest deadline: of all live games (the top of the
 * deadline heap, in lobby time), the next widening of the rated quick pool's windows
 * (lb->quick_due, lobby time: its wake-up pairs players, pairing_wake()) and of the spectators
 * notices that wait (real time).
 */
void
lobby_arm(struct lobby *lb)
{
	uint64_t delay = UINT64_MAX, now;

	if (lb->ops.timer == NULL)
		return;
	/*
	 * With test_clock, virtual time moves only with test_clock, which acts on what is due; what
	 * is due already (a grace of 0 s at a drop) is acted on at once, as with real time.
	 */
	if (deadline_first(&lb->deadlines) != NULL && lb->store_down == NULL) {
		uint64_t d = deadline_first(&lb->deadlines)->heap_deadline;

		now = lobby_time(lb);
		if (d <= now)
			delay = 0;
		else if (!lb->cfg.test_clock)
			delay = d - now;
	}
	if (lb->quick_due != UINT64_MAX && lb->store_down == NULL) {
		now = lobby_time(lb);
		if (lb->quick_due <= now)
			delay = 0;
		else if (!lb->cfg.test_clock && lb->quick_due - now < delay)
			delay = lb->quick_due - now;
	}
	if (!LIST_EMPTY(&lb->spect_waiting)) {
		struct table *t;

		now = lb->ops.now(lb->ops.arg);
		LIST_FOREACH(t, &lb->spect_waiting, spect_link)
		{
			uint64_t d = t->spect_due > now ? t->spect_due - now : 0;

			if (d < delay)
				delay = d;
		}
	}
	lb->ops.timer(lb->ops.arg, delay);
}

void
lobby_wake(struct lobby *lb)
{
	uint64_t now = lobby_time(lb);
	struct table **due = NULL, *t;
	size_t ndue = 0, cap = 0;

	/* take the due tables off the heap first: acting on one may move the others; none is due
	 * while the store is down (what it would end could not be stored) */
	while (lb->store_down == NULL && (t = deadline_first(&lb->deadlines)) != NULL &&
	       t->heap_deadline <= now) {
		due = xgrow(due, ndue, &cap, sizeof *due, 8);
		due[ndue++] = t;
		deadline_remove(&lb->deadlines, t);
	}
	for (size_t i = 0; i < ndue; i++) {
		t = due[i];
		if (table_deadline(t) <= now && table_clock_check(t))
			lobby_finished_touch(lb, t);
		deadline_refresh(&lb->deadlines, t);
	}
	free(due);
	spectators_flush(lb);
	lobby_prune(lb);
	lobby_arm(lb);
}

/* --- Store reads and password jobs out: their connections are held meanwhile. --- */

uint64_t
lobby_wait_add(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	struct lobby_wait *w = xcalloc(1, sizeof *w);

	w->ticket = ++lb->read_ticket;
	w->peer = peer;
	w->request = *m;
	json_incref(w->request.root);
	TAILQ_INSERT_TAIL(&lb->waits, w, link);
	peer->wait = w;
	if (lb->ops.pause != NULL)
		lb->ops.pause(lb->ops.arg, peer, 1);
	return w->ticket;
}

struct lobby_wait *
lobby_wait_find(struct lobby *lb, uint64_t ticket)
{
	struct lobby_wait *w;

	TAILQ_FOREACH(w, &lb->waits, link)
	if (w->ticket == ticket)
		return w;
	return NULL;
}

void
lobby_wait_drop(struct lobby *lb, struct lobby_wait *w)
{
	TAILQ_REMOVE(&lb->waits, w, link);
	msg_clear(&w->request);
	if (w->peer != NULL && w->peer->wait == w)
		w->peer->wait = NULL;
	free(w);
}
