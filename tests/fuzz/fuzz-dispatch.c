/*
 * fuzz-dispatch.c: the server's game layer (lobby and tables) fed arbitrary requests.
 *
 * The game layer never touches a socket, so it runs here as it does in hokitod, with ops that
 * count what it would send. Input: lines; the first byte of each line picks one of four peers
 * (its value modulo 4), the rest is the request; a first byte of 0xfc to 0xff instead drops that
 * peer's connection (0xfc peer 0, ... 0xff peer 3). A fixed prologue says hello for each peer,
 * creates a game of each kind and seats two players, so short inputs reach moves, offers, chat
 * and reconnection. The computer player "thinks" by taking the legal move the ply picks, and its
 * answer is delivered after the next line, as the network layer would deliver it later. Nothing
 * may crash, leak or break an invariant (checked by the layer's own asserts and by the
 * sanitizers).
 *
 * Every input starts from the same state. The prologue costs far more than a typical input (it
 * builds and encodes five full game states), so it runs once: its lobby is kept as a snapshot,
 * and each input runs on a deep copy of it (fuzz_lobby_copy()), which the end of the input frees.
 * The copy reads the game layer's structs (lobby.h, table.h, session.h) and must follow every
 * pointer of struct lobby, session and table; the size checks below fail
 * the build when one of them changes, as a reminder to look at fuzz_lobby_copy() again.
 * Randomness (tokens, seeds, seats, invite codes) comes from a seeded generator instead of the
 * OS (this file defines osrand_*), restarted with the snapshot, so an input alone reproduces a
 * crash. The prologue's sessions therefore always get the same tokens, which corpus inputs use
 * to resume them: a e89e198e7449fdbf6cefcc9ca2c202ad, b 7d3e0608c4c191c7938f320b9db20603,
 * c db8104c780a221778d0c442013a50d31, d 2980a976cd432a24b06de1d0caf28e21.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "handlers.h"
#include "lobby.h"
#include "log.h"
#include "msg.h"
#include "osrand.h"
#include "pairing.h"
#include "rng.h"
#include "wire.h"
#include "xmalloc.h"

#if defined(__x86_64__) && defined(__LP64__)
_Static_assert(sizeof(struct lobby) == 1840, "struct lobby changed: see fuzz_lobby_copy()");
_Static_assert(sizeof(struct session) == 384, "struct session changed: see fuzz_lobby_copy()");
_Static_assert(sizeof(struct table) == 2784, "struct table changed: see fuzz_lobby_copy()");
#endif

#define PEERS     4
#define FUZZ_SEED 0x686f6b69746fULL /* of the generator behind osrand_* */

struct fuzz_ctx {
	uint64_t now;
	size_t sent;
	int thinking;                  /* a computer's move waits to be delivered */
	char game[16];                 /* ... for this game */
	int64_t ply;                   /* ... at this ply */
	char move[GAME_MOVE_TEXT + 4]; /* ... this move */
};

static struct rng fuzz_rng; /* osrand_*'s generator */

/* osrand.h, made deterministic: the bytes of the seeded generator. */
void
osrand_fill(void *buf, size_t n)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)rng_next(&fuzz_rng);
}

uint64_t
osrand_u64(void)
{
	return rng_next(&fuzz_rng);
}

void
osrand_text(char *out, size_t n, const char *alphabet)
{
	uint32_t k = (uint32_t)strlen(alphabet);

	for (size_t i = 0; i < n; i++)
		out[i] = alphabet[rng_below(&fuzz_rng, k)];
	out[n] = '\0';
}

static void
fuzz_send(void *arg, struct lobby_peer *peer, struct wire *w)
{
	struct fuzz_ctx *c = arg;

	(void)peer;
	(void)w;
	c->sent++;
}

static void
fuzz_close(void *arg, struct lobby_peer *peer)
{
	(void)arg;
	(void)peer;
}

static uint64_t
fuzz_now(void *arg)
{
	struct fuzz_ctx *c = arg;

	return c->now += 7;
}

static void
fuzz_timer(void *arg, uint64_t delay_ms)
{
	(void)arg;
	(void)delay_ms;
}

/* ops->think: pick a legal move now, deliver it later (one pending search at a time). */
static void
fuzz_think(void *arg, const char *game_id, int64_t ply, const struct game *g, int level,
           uint64_t seed, uint64_t time_ms)
{
	struct fuzz_ctx *c = arg;
	struct game_move moves[GAME_MOVES_MAX];
	int n = game_moves(g, moves);

	(void)level;
	(void)time_ms;
	if (c->thinking || n <= 0)
		return;
	c->thinking = 1;
	snprintf(c->game, sizeof c->game, "%s", game_id);
	c->ply = ply;
	game_move_format(g->kind, moves[(seed + (uint64_t)ply) % (uint64_t)n], c->move,
	                 sizeof c->move);
}

static void
fuzz_line(struct lobby *lb, struct lobby_peer *peer, const char *line, size_t len)
{
	struct msg_error err;
	struct msg m;

	if (msg_decode(&m, line, len, &err) == 0)
		handlers_dispatch(lb, peer, &m);
	msg_clear(&m);
}

/* A copy of n bytes of p, or NULL when n is 0. Returns a new block. */
static void *
fuzz_dup(const void *p, size_t n)
{
	return n > 0 ? memcpy(xmalloc(n), p, n) : NULL;
}

/* The copy in to of session s of from (NULL stays NULL). */
static struct session *
fuzz_session_map(const struct lobby *from, const struct lobby *to, const struct session *s)
{
	for (size_t i = 0; s != NULL && i < from->sessions.n; i++)
		if (from->sessions.all[i] == s)
			return to->sessions.all[i];
	assert(s == NULL);
	return NULL;
}

/* The copy in to of table t of from (NULL stays NULL). */
static struct table *
fuzz_table_map(const struct lobby *from, const struct lobby *to, const struct table *t)
{
	for (size_t i = 0; t != NULL && i < from->ntables; i++)
		if (from->tables[i] == t)
			return to->tables[i];
	assert(t == NULL);
	return NULL;
}

/*
 * Copy map m of from into to: the same slots, each value the copy of its session (tables: 0) or
 * table (1), each key the same string inside that copy (the lobby's keys live in their values).
 */
static void
fuzz_strmap_copy(struct strmap *m, const struct lobby *from, const struct lobby *to, int tables)
{
	m->slots = fuzz_dup(m->slots, m->cap * sizeof *m->slots);
	for (size_t i = 0; i < m->cap; i++) {
		struct strmap_slot *slot = &m->slots[i];
		const char *old;
		char *new;

		if (slot->key == NULL)
			continue;
		old = slot->value;
		slot->value = tables ? (void *)fuzz_table_map(from, to, slot->value)
		                     : (void *)fuzz_session_map(from, to, slot->value);
		new = slot->value;
		assert(slot->key >= old &&
		       slot->key < old + (tables ? sizeof(struct table) : sizeof(struct session)));
		slot->key = new + (slot->key - old);
	}
}

/*
 * A deep copy of lobby from, which stays as it is: new sessions and tables with every pointer
 * between them moved to the copies, the lists (<sys/queue.h>) built again in the same order, new
 * arrays and maps, and a new reference to each wire of the logs and each chat line (both are
 * never changed once made). The peers are the same: each peer with a session is pointed at that
 * session's copy. Returns a new lobby.
 */
static struct lobby *
fuzz_lobby_copy(const struct lobby *from)
{
	struct lobby *lb = fuzz_dup(from, sizeof *from);
	struct table *prev, *ft;
	struct session *fs;

	/* the fuzz lobby has no per-address limits (their tables are not copied), and no store
	 * that goes down: no views of its tables (lobby_view()) */
	assert(from->quota == NULL && from->lookups == NULL && from->nviews == 0);
	lb->views = NULL;
	lb->views_cap = 0;
	lb->env.now_arg = lb;
	lb->sessions.all =
	        fuzz_dup(from->sessions.all, from->sessions.cap * sizeof *lb->sessions.all);
	for (size_t i = 0; i < lb->sessions.n; i++)
		lb->sessions.all[i] = fuzz_dup(from->sessions.all[i], sizeof *lb->sessions.all[i]);
	lb->tables = fuzz_dup(from->tables, from->tables_cap * sizeof *lb->tables);
	for (size_t i = 0; i < lb->ntables; i++) {
		struct table *t = fuzz_dup(from->tables[i], sizeof *t);

		lb->tables[i] = t;
		t->env = &lb->env;
		t->moves = fuzz_dup(t->moves, t->moves_cap * sizeof *t->moves);
		t->log = fuzz_dup(t->log, t->log_cap * sizeof *t->log);
		for (size_t j = 0; j < t->nlog; j++)
			wire_ref(t->log[j]);
		t->watchers = fuzz_dup(t->watchers, t->watchers_cap * sizeof *t->watchers);
		for (int j = 0; j < CHAT_KEEP; j++) {
			json_incref(t->chat[j]);
			json_incref(t->kibitz[j]);
		}
	}
	for (size_t i = 0; i < lb->sessions.n; i++) {
		struct session *s = lb->sessions.all[i];

		s->table = fuzz_table_map(from, lb, s->table);
		if (s->peer != NULL)
			s->peer->session = s;
	}
	for (size_t i = 0; i < lb->ntables; i++) {
		struct table *t = lb->tables[i];

		for (int j = 0; j < 2; j++)
			t->seat[j] = fuzz_session_map(from, lb, t->seat[j]);
		for (size_t j = 0; j < t->nwatchers; j++)
			t->watchers[j] = fuzz_session_map(from, lb, t->watchers[j]);
		TAILQ_INIT(&t->attached);
		TAILQ_FOREACH(fs, &from->tables[i]->attached, at_link)
		TAILQ_INSERT_TAIL(&t->attached, fuzz_session_map(from, lb, fs), at_link);
	}
	lb->deadlines.heap =
	        fuzz_dup(from->deadlines.heap, from->deadlines.cap * sizeof *lb->deadlines.heap);
	for (size_t i = 0; i < lb->deadlines.n; i++)
		lb->deadlines.heap[i] = fuzz_table_map(from, lb, lb->deadlines.heap[i]);
	TAILQ_INIT(&lb->finished);
	TAILQ_FOREACH(ft, &from->finished, fin_link)
	TAILQ_INSERT_TAIL(&lb->finished, fuzz_table_map(from, lb, ft), fin_link);
	TAILQ_INIT(&lb->held);
	TAILQ_FOREACH(ft, &from->held, fin_link)
	TAILQ_INSERT_TAIL(&lb->held, fuzz_table_map(from, lb, ft), fin_link);
	LIST_INIT(&lb->spect_waiting);
	prev = NULL;
	LIST_FOREACH(ft, &from->spect_waiting, spect_link)
	{
		struct table *t = fuzz_table_map(from, lb, ft);

		if (prev == NULL)
			LIST_INSERT_HEAD(&lb->spect_waiting, t, spect_link);
		else
			LIST_INSERT_AFTER(prev, t, spect_link);
		prev = t;
	}
	SLIST_INIT(&lb->release);
	prev = NULL;
	SLIST_FOREACH(ft, &from->release, release_link)
	{
		struct table *t = fuzz_table_map(from, lb, ft);

		if (prev == NULL)
			SLIST_INSERT_HEAD(&lb->release, t, release_link);
		else
			SLIST_INSERT_AFTER(prev, t, release_link);
		prev = t;
	}
	TAILQ_INIT(&lb->waits); /* no store reads here (no ops->read): none is ever out */
	/* no accounts here (no ops->hash): a set of its own, empty like the snapshot's */
	accounts_init(&lb->accounts);
	/* ... so no rated game ever ends: a book of its own, empty like the snapshot's */
	rating_book_init(&lb->ratings);
	lb->env.ratings = &lb->ratings;
	fuzz_strmap_copy(&lb->sessions.by_token, from, lb, 0);
	fuzz_strmap_copy(&lb->sessions.by_player, from, lb, 0);
	fuzz_strmap_copy(&lb->by_game, from, lb, 1);
	fuzz_strmap_copy(&lb->by_code, from, lb, 1);
	return lb;
}

static struct fuzz_ctx ctx;            /* the ops' argument */
static struct lobby_peer peers[PEERS]; /* sessions point at them */
static struct lobby *snapshot;         /* the lobby after the prologue, never changed */
static struct fuzz_ctx snapshot_ctx;   /* ... and ctx then */
static struct rng snapshot_rng;        /* ... and osrand_*'s generator */

/* Run the prologue once and keep its lobby, ctx and generator as the snapshot. */
static void
fuzz_snapshot_init(void)
{
	static const char *const prologue[][2] = {
	        {"0", "{\"type\":\"hello\",\"protocol\":1,\"name\":\"a\"}"},
	        {"1", "{\"type\":\"hello\",\"protocol\":1,\"name\":\"b\"}"},
	        {"2", "{\"type\":\"hello\",\"protocol\":1,\"name\":\"c\"}"},
	        {"3", "{\"type\":\"hello\",\"protocol\":1,\"name\":\"d\"}"},
	        {"0", "{\"type\":\"create\",\"kind\":\"hokito\",\"seat\":\"black\",\"seed\":1,"
	              "\"clock\":\"1+1\"}"},
	        {"1", "{\"type\":\"join\",\"game\":\"g1\"}"},
	        {"2", "{\"type\":\"quick\",\"kind\":\"oxono\"}"},
	        {"3", "{\"type\":\"watch\",\"game\":\"g1\"}"},
	};
	struct lobby_ops ops = {.send = fuzz_send,
	                        .close = fuzz_close,
	                        .now = fuzz_now,
	                        .timer = fuzz_timer,
	                        .think = fuzz_think,
	                        .arg = &ctx};
	struct lobby_config cfg = {
	        .max_games = 8,
	        .keep_finished = 4,
	        .linger_ms = 1000,
	        .max_line = 4096,
	        .server = "hokitod fuzz",
	        .grace_ms = 500,
	        .adjourn_claim_ms = 700,
	        .first_move_ms = 400,
	        .test_clock = 0,
	};

	log_level_set(LOG_ERROR);
	rng_init(&fuzz_rng, FUZZ_SEED);
	memset(&ctx, 0, sizeof ctx);
	snapshot = lobby_create(&cfg, &ops);
	for (size_t i = 0; i < sizeof prologue / sizeof prologue[0]; i++)
		fuzz_line(snapshot, &peers[prologue[i][0][0] - '0'], prologue[i][1],
		          strlen(prologue[i][1]));
	snapshot_ctx = ctx;
	snapshot_rng = fuzz_rng;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int connected[PEERS];
	struct lobby *lb;
	size_t pos = 0;

	if (size > 65536)
		return 0;
	if (snapshot == NULL)
		fuzz_snapshot_init();
	ctx = snapshot_ctx;
	fuzz_rng = snapshot_rng;
	memset(peers, 0, sizeof peers);
	lb = fuzz_lobby_copy(snapshot);
	for (int i = 0; i < PEERS; i++)
		connected[i] = 1;
	while (pos < size) {
		const uint8_t *end = memchr(data + pos, '\n', size - pos);
		size_t len = end ? (size_t)(end - (data + pos)) : size - pos;
		if (len > 0) {
			int p = data[pos] % PEERS;
			if (data[pos] >= 0xfc) {
				if (connected[p])
					lobby_peer_gone(lb, &peers[p]);
				connected[p] = 0;
			} else {
				char *line = malloc(len);
				if (!connected[p]) {
					/* A new connection for that peer. */
					memset(&peers[p], 0, sizeof peers[p]);
					connected[p] = 1;
				}
				memcpy(line, data + pos + 1, len - 1);
				line[len - 1] = '\0';
				fuzz_line(lb, &peers[p], line, len - 1);
				free(line);
			}
		}
		if (ctx.thinking) {
			ctx.thinking = 0;
			lobby_computer_move(lb, ctx.game, ctx.ply, ctx.move);
		}
		lobby_tick(lb);
		pairing_wake(lb); /* as the node wakes the rated quick pool */
		pos += len + 1;
	}
	for (int i = 0; i < PEERS; i++)
		if (connected[i])
			lobby_peer_gone(lb, &peers[i]);
	lobby_free(lb);
	return 0;
}
