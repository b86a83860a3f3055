/*
 * restore.c: the rebuild of the lobby from the store at a restart, once, before any peer arrives.
 *
 * The store replays every unfinished game and the most recently finished ones through the rules
 * (the load of its write port); each becomes a table again (table_restore(): its stored lines are
 * checked and read back), the sessions of their seated players come back disconnected, and the id
 * counters go on where they were. It owns nothing once done: the tables and sessions are the
 * lobby's. Part of the game layer: no libuv here.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "durable.h"
#include "log.h"
#include "names.h"
#include "restore.h"
#include "store-port.h"
#include "xmalloc.h"

/* The number in an id such as "g12" or "p7", or 0. */
static unsigned
id_number(const char *id)
{
	unsigned long v;
	char *end;

	if (id[0] == '\0' || id[1] < '0' || id[1] > '9')
		return 0;
	v = strtoul(id + 1, &end, 10);
	return *end == '\0' && v < UINT32_MAX ? (unsigned)v : 0;
}

struct restore_ctx {
	struct lobby *lb;
	int64_t *ended; /* ended_ms of each table, by index in lb->tables */
	size_t ended_cap;
	char why[320];                  /* what did not add up */
	char (*stale)[STORE_TOKEN_MAX]; /* session rows to remove */
	size_t nstale, stale_cap;
	unsigned sessions;
	int64_t wall_ms, lobby_ms; /* now, on the wall clock and in lobby time (the pair rule) */
};

/*
 * The accounts of t's seats that an account or a bot holds: by the seated name, which is the
 * account's (a name no guest can take), among the accounts loaded first (node_restore()).
 */
static void
restore_seat_accounts(struct lobby *lb, struct table *t)
{
	char key[STORE_ACCOUNT_NAME_MAX];
	const struct account *a;

	for (int i = 0; i < 2; i++) {
		if (t->seat_kind[i] != EVENT_PLAYER_ACCOUNT && t->seat_kind[i] != EVENT_PLAYER_BOT)
			continue;
		if (names_account_key(t->seat_name[i], key, sizeof key) >= 0 &&
		    (a = accounts_find(&lb->accounts, key)) != NULL)
			t->seat_account[i] = a->row.id;
	}
}

/* store_load() callback: one stored game, replayed, becomes a table. */
static int
restore_game_cb(void *ctx, const struct store_game *g, const struct store_event *ev, size_t nev,
                const struct game *start, const struct game *position)
{
	struct restore_ctx *rc = ctx;
	struct lobby *lb = rc->lb;
	struct table *t =
	        table_restore(&lb->env, g, ev, nev, start, position, rc->why, sizeof rc->why);

	if (t == NULL)
		return 1;
	restore_seat_accounts(lb, t);
	rc->ended = xgrow(rc->ended, lb->ntables, &rc->ended_cap, sizeof *rc->ended, 64);
	rc->ended[lb->ntables] = g->ended_ms;
	lobby_table_add(lb, t);
	if (t->serial > lb->serial)
		lb->serial = t->serial;
	if (id_number(t->id) >= lb->next_game)
		lb->next_game = id_number(t->id) + 1;
	for (int i = 0; i < 2; i++)
		if (t->seat_taken[i] && id_number(t->seat_id[i]) >= lb->next_player)
			lb->next_player = id_number(t->seat_id[i]) + 1;
	return 0;
}

/* Whether a stored token is one this server could have made. */
static int
token_valid(const char *token)
{
	if (strlen(token) != PROTOCOL_TOKEN_LEN)
		return 0;
	for (const char *c = token; *c != '\0'; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
			return 0;
	return 1;
}

/* store_sessions_load() callback: a seated player's session comes back, disconnected. */
static int
restore_session_cb(void *ctx, const struct store_session *ss)
{
	struct restore_ctx *rc = ctx;
	struct lobby *lb = rc->lb;
	struct table *t = lobby_table_find(lb, ss->game_id);
	const struct account *a;
	struct session *s;

	if (t == NULL || !token_valid(ss->token) ||
	    strcmp(t->seat_id[ss->seat], ss->player_id) != 0 || t->seat[ss->seat] != NULL ||
	    session_find_token(&lb->sessions, ss->token) != NULL) {
		/* its game is no longer held (or the row is not ours): forget it */
		rc->stale = xgrow(rc->stale, rc->nstale, &rc->stale_cap, sizeof *rc->stale, 16);
		snprintf(rc->stale[rc->nstale++], STORE_TOKEN_MAX, "%s", ss->token);
		return 0;
	}
	s = xcalloc(1, sizeof *s);
	snprintf(s->id, sizeof s->id, "%s", ss->player_id);
	snprintf(s->name, sizeof s->name, "%s", ss->name);
	snprintf(s->token, sizeof s->token, "%s", ss->token);
	s->account = ss->account; /* accounts are loaded first (node_restore()) */
	a = s->account != 0 ? accounts_find_id(&lb->accounts, s->account) : NULL;
	s->bot = accounts_is_bot(a);
	s->seat = ss->seat;
	table_attach(t, s);
	s->gone_at = lobby_time(lb);
	t->seat[ss->seat] = s;
	snprintf(t->seat_token[ss->seat], sizeof t->seat_token[ss->seat], "%s", s->token);
	session_add(&lb->sessions, s);
	if (id_number(s->id) >= lb->next_player)
		lb->next_player = id_number(s->id) + 1;
	rc->sessions++;
	return 0;
}

/* ratings_load() callback: an account's rating in a kind, as stored (never recomputed). */
static int
restore_rating_cb(void *ctx, const struct store_rating *r)
{
	struct restore_ctx *rc = ctx;

	rating_book_put(&rc->lb->ratings, r);
	return 0;
}

/*
 * rated_pairs_load() callback: a rated game of the last 24 hours, for the pair rule. Its end is
 * on the wall clock; the book keeps lobby time (the clock of the game layer, virtual with
 * --test-clock), so it goes in as long before the lobby's now as it ended before the wall's.
 */
static int
restore_pair_cb(void *ctx, int64_t a, int64_t b, int64_t ended_ms)
{
	struct restore_ctx *rc = ctx;
	int64_t at = rc->lobby_ms - (rc->wall_ms - ended_ms);

	rating_book_pair_add(&rc->lb->ratings, a, b, at, rc->lobby_ms - RATING_PAIR_WINDOW_MS,
	                     rc->lb->cfg.pair_rated);
	return 0;
}

/*
 * The order in which the rebuilt finished games finished: by end time, then creation (the order
 * store_history() lists them in), so that pruning and the lobby list go on as before the restart.
 */
static void
restore_finished_order(struct lobby *lb, const int64_t *ended)
{
	size_t n = 0, *idx = xmalloc((lb->ntables + 1) * sizeof *idx);

	for (size_t i = 0; i < lb->ntables; i++)
		if (lb->tables[i]->st.status == EVENT_STATUS_FINISHED)
			idx[n++] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0; j--) {
			size_t a = idx[j - 1], b = idx[j];
			if (ended[a] < ended[b] ||
			    (ended[a] == ended[b] && lb->tables[a]->serial < lb->tables[b]->serial))
				break;
			idx[j - 1] = b;
			idx[j] = a;
		}
	for (size_t i = 0; i < n; i++)
		lobby_finished_append(lb, lb->tables[idx[i]]);
	free(idx);
}

/*
 * A rematch offer lapses when either player leaves the finished game (PROTOCOL.md 5), which the
 * store keeps only as the removal of that player's session row: an offer rebuilt from its event
 * stands no more once a player of the game has no session back at it.
 */
static void
restore_rematch_lapse(struct lobby *lb)
{
	for (size_t i = 0; i < lb->ntables; i++) {
		struct table *t = lb->tables[i];

		for (int k = 0; k < 2; k++)
			if (t->st.offer[EVENT_OFFER_REMATCH] >= 0 && t->seat[k] == NULL &&
			    !t->computer[k])
				t->st.offer[EVENT_OFFER_REMATCH] = -1;
	}
}

int
restore_lobby(struct lobby *lb, struct store_error *err)
{
	const struct store_write_port *st = lb->cfg.store;
	struct restore_ctx rc = {.lb = lb};
	int64_t v;
	int n, rv;

	assert(lb->ntables == 0 && lb->sessions.n == 0);
	if (st == NULL)
		return 0;
	n = st->ratings_load(st->impl, restore_rating_cb, &rc, err);
	rc.wall_ms = durable_wall_ms();
	rc.lobby_ms = (int64_t)lobby_time(lb);
	if (n >= 0 && lb->cfg.pair_rated > 0 &&
	    (rv = st->rated_pairs_load(st->impl, rc.wall_ms - RATING_PAIR_WINDOW_MS,
	                               restore_pair_cb, &rc, err)) < 0)
		n = rv;
	if (n >= 0)
		n = st->load(st->impl, lb->cfg.keep_finished, restore_game_cb, &rc, err);
	if (n == STORE_ESTOPPED) {
		snprintf(err->text, sizeof err->text, "%s", rc.why);
		err->code = n = STORE_ECORRUPT;
	}
	if (n >= 0) {
		restore_finished_order(lb, rc.ended);
		rv = st->sessions_load(st->impl, restore_session_cb, &rc, err);
		if (rv < 0)
			n = rv;
		else
			restore_rematch_lapse(lb);
	}
	for (size_t i = 0; n >= 0 && i < rc.nstale; i++)
		if ((rv = st->session_remove(st->impl, rc.stale[i], err)) < 0)
			n = rv;
	if (n >= 0 && st->meta_get(st->impl, "next_game", &v, NULL) == 0 && v > lb->next_game &&
	    v < UINT32_MAX)
		lb->next_game = (unsigned)v;
	if (n >= 0 && st->meta_get(st->impl, "next_player", &v, NULL) == 0 && v > lb->next_player &&
	    v < UINT32_MAX)
		lb->next_player = (unsigned)v;
	free(rc.ended);
	free(rc.stale);
	if (n < 0)
		return n;
	log_info("store: %d games rebuilt (%u unfinished), %u seated sessions back; next ids g%u, "
	         "p%u",
	         n, lobby_active_tables(lb), rc.sessions, lb->next_game, lb->next_player);
	for (size_t i = 0; i < lb->ntables; i++) {
		lobby_touched(lb, lb->tables[i]);    /* nobody is back yet: deserted from now */
		table_computer_think(lb->tables[i]); /* the computer to move thinks again */
	}
	lobby_arm(lb);
	return n;
}
