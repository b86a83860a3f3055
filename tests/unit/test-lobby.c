/*
 * test-lobby.c: the game layer of hokitod (lobby.c, its rooms and table.c) on its own, without
 * libuv, sockets or a store.
 *
 * The test plays the network layer: struct lobby_ops records every line the lobby sends to each
 * peer (decoded back into JSON), the clock is a number the test moves, and the timer the lobby asks
 * for is fired by hand (lobby_wake()). So the exact order of replies and events (PROTOCOL.md
 * section 9), clocks to the millisecond, grace periods and reconnection are checked without
 * waiting for anything. The integration tests check the same server over real sockets.
 */
#include <jansson.h>

#include "handlers.h"
#include "lobby.h"
#include "log.h"
#include "msg.h"
#include "test.h"
#include "wire.h"

#define PEERS   4
#define OUT_MAX 256

/* One connection: the lines the lobby sent it, decoded, and how many the test has read. */
struct peer {
	struct lobby_peer lp; /* first: the lobby's pointer is the peer's */
	json_t *out[OUT_MAX]; /* owned */
	size_t nout, nread;
	int closed; /* ops->close was called */
};

static struct lobby *lb;
static struct peer peers[PEERS];
static uint64_t now_ms;      /* the game layer's monotonic time */
static uint64_t timer_delay; /* the last ops->timer request */
static char got[256];        /* what expect() found instead, for the failure message */

#define A (&peers[0])
#define B (&peers[1])
#define C (&peers[2])

static void
t_send(void *arg, struct lobby_peer *lp, struct wire *w)
{
	struct peer *p = (struct peer *)lp;
	json_error_t e;
	json_t *v = json_loadb(w->data, w->len - 1, 0, &e);

	(void)arg;
	if (v == NULL || p->nout == OUT_MAX) {
		fprintf(stderr, "test-lobby: undecodable or too many lines: %.*s\n", (int)w->len,
		        w->data);
		abort();
	}
	p->out[p->nout++] = v;
}

static void
t_close(void *arg, struct lobby_peer *lp)
{
	(void)arg;
	((struct peer *)lp)->closed = 1;
}

static uint64_t
t_now(void *arg)
{
	(void)arg;
	return now_ms;
}

static void
t_timer(void *arg, uint64_t delay_ms)
{
	(void)arg;
	timer_delay = delay_ms;
}

/*
 * A fresh lobby (60 s grace, 300 s linger) holding max_games games and listing keep_finished
 * finished ones, peers with nothing received, time at 1000 s.
 */
static void
setup_with(unsigned max_games, unsigned keep_finished)
{
	struct lobby_ops ops = {.send = t_send, .close = t_close, .now = t_now, .timer = t_timer};
	struct lobby_config cfg = {
	        .max_games = max_games,
	        .keep_finished = keep_finished,
	        .linger_ms = 300000,
	        .max_line = 65536,
	        .server = "hokitod test",
	        .grace_ms = 60000,
	        .adjourn_claim_ms = 300000,
	};

	for (int i = 0; i < PEERS; i++) {
		for (size_t j = 0; j < peers[i].nout; j++)
			json_decref(peers[i].out[j]);
		memset(&peers[i], 0, sizeof peers[i]);
	}
	now_ms = 1000000;
	timer_delay = UINT64_MAX;
	lobby_free(lb);
	lb = lobby_create(&cfg, &ops);
}

/* The lobby of most tests: 16 games, 8 finished ones listed. */
static void
setup(void)
{
	setup_with(16, 8);
}

/* The peer sends line, a well-formed request (the network layer refuses the others itself). */
static void
say(struct peer *p, const char *line)
{
	struct msg m;
	struct msg_error err;

	if (msg_request_decode(&m, line, strlen(line), &err) != 0) {
		fprintf(stderr, "test-lobby: bad test line %s: %s\n", line, err.text);
		abort();
	}
	handlers_dispatch(lb, &p->lp, &m);
	msg_clear(&m);
}

/*
 * The next line p received that is not a spectators notice (those are coalesced on a timer of
 * their own), if it has type; else NULL, with what was there in got. Borrowed.
 */
static json_t *
expect(struct peer *p, const char *type)
{
	while (p->nread < p->nout) {
		json_t *v = p->out[p->nread++];
		const char *t = json_string_value(json_object_get(v, "type"));

		if (strcmp(t, "spectators") == 0)
			continue;
		if (strcmp(t, type) == 0)
			return v;
		char *text = json_dumps(v, JSON_COMPACT);
		snprintf(got, sizeof got, "%s", text);
		free(text);
		return NULL;
	}
	snprintf(got, sizeof got, "nothing");
	return NULL;
}

/* Whether p has received nothing but spectators notices since it last looked. */
static int
quiet(struct peer *p)
{
	return expect(p, "(none)") == NULL && strcmp(got, "nothing") == 0;
}

static const char *
str(const json_t *v, const char *key)
{
	const char *s = json_string_value(json_object_get(v, key));

	return s != NULL ? s : "(missing)";
}

static long long
num(const json_t *v, const char *key)
{
	const json_t *n = json_object_get(v, key);

	return json_is_integer(n) ? json_integer_value(n) : -999;
}

/* The error p received next, or "(none)": its code. */
static const char *
error_code(struct peer *p)
{
	const json_t *e = expect(p, "error");

	return e != NULL ? str(e, "code") : "(none)";
}

/* p says hello as name; returns its welcome (borrowed) or NULL. */
static json_t *
hello(struct peer *p, const char *name)
{
	char line[128];

	snprintf(line, sizeof line, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"%s\"}", name);
	say(p, line);
	return expect(p, "welcome");
}

/*
 * A HOKITO game g1 with alice (A) black and bob (B) white, started, clock control (NULL: none),
 * every line so far read except alice's your_turn. Returns 0, or -1 if it did not go so.
 */
static int
start_game(const char *control)
{
	char line[160];

	if (hello(A, "alice") == NULL || hello(B, "bob") == NULL)
		return -1;
	snprintf(line, sizeof line,
	         "{\"type\":\"create\",\"kind\":\"hokito\",\"seat\":\"black\",\"seed\":1%s%s%s}",
	         control ? ",\"clock\":\"" : "", control ? control : "", control ? "\"" : "");
	say(A, line);
	if (expect(A, "state") == NULL)
		return -1;
	say(B, "{\"type\":\"join\",\"game\":\"g1\"}");
	if (expect(B, "state") == NULL || expect(A, "seated") == NULL ||
	    expect(A, "started") == NULL)
		return -1;
	return 0;
}

/* The first legal move in p's your_turn notice, copied to out. */
static int
first_move(struct peer *p, char *out, size_t size)
{
	const json_t *yt = expect(p, "your_turn");
	const char *m =
	        yt ? json_string_value(json_array_get(json_object_get(yt, "moves"), 0)) : NULL;

	if (m == NULL)
		return -1;
	snprintf(out, size, "%s", m);
	return 0;
}

/* Send p's move. */
static void
move(struct peer *p, const char *mv)
{
	char line[128];

	snprintf(line, sizeof line, "{\"type\":\"move\",\"move\":\"%s\"}", mv);
	say(p, line);
}

/* The next line of p's of type, skipping the others; NULL when none comes. Borrowed. */
static json_t *
skip_to(struct peer *p, const char *type)
{
	json_t *v;

	while ((v = expect(p, type)) == NULL && strcmp(got, "nothing") != 0)
		;
	return v;
}

/*
 * After start_game(), alice and bob make a move each (a result needs play: PROTOCOL.md
 * resign), every line read but alice's next your_turn. Returns 0, or -1 if it did not go so.
 */
static int
both_move(void)
{
	char mv[32];

	if (first_move(A, mv, sizeof mv) < 0)
		return -1;
	move(A, mv);
	if (expect(A, "moved") == NULL || expect(A, "ok") == NULL || expect(B, "moved") == NULL ||
	    first_move(B, mv, sizeof mv) < 0)
		return -1;
	move(B, mv);
	if (expect(B, "moved") == NULL || expect(B, "ok") == NULL || expect(A, "moved") == NULL)
		return -1;
	return 0;
}

TEST(hello_comes_first)
{
	setup();
	say(A, "{\"type\":\"create\",\"kind\":\"hokito\"}");
	ASSERT_STR_EQ(error_code(A), "hello_required");

	const json_t *w = hello(A, "alice");
	ASSERT(w != NULL);
	ASSERT(json_is_false(json_object_get(w, "resumed")));
	ASSERT(json_is_null(json_object_get(w, "game")));
	ASSERT_EQ(strlen(str(w, "token")), 32);
	ASSERT_STR_EQ(str(json_object_get(w, "player"), "name"), "alice");
	say(A, "{\"type\":\"hello\",\"protocol\":1,\"name\":\"alice\"}");
	ASSERT_STR_EQ(error_code(A), "already_welcomed");
}

/* PROTOCOL.md 5 (move) and 9: everyone gets moved, then the mover ok, then the next your_turn. */
TEST(move_order_and_checks)
{
	char mv[32];

	setup();
	ASSERT_EQ(start_game(NULL), 0);
	ASSERT(hello(C, "carol") != NULL);
	say(C, "{\"type\":\"watch\",\"game\":\"g1\"}");
	ASSERT_STR_EQ(str(expect(C, "state"), "you"), "spectator");
	ASSERT_EQ(first_move(A, mv, sizeof mv), 0);
	ASSERT(quiet(B));

	move(C, mv);
	ASSERT_STR_EQ(error_code(C), "spectator");
	move(B, mv);
	ASSERT_STR_EQ(error_code(B), "not_your_turn");
	move(A, "z9");
	ASSERT_STR_EQ(error_code(A), "bad_move");
	move(A, "a1-f6");
	ASSERT_STR_EQ(error_code(A), "illegal_move");
	say(A, "{\"type\":\"move\",\"move\":\"a1-a2\",\"game\":\"g7\"}");
	ASSERT_STR_EQ(error_code(A), "not_seated");

	move(A, mv);
	const json_t *moved = expect(A, "moved");
	ASSERT(moved != NULL);
	ASSERT_STR_EQ(str(moved, "move"), mv);
	ASSERT_STR_EQ(str(moved, "by"), "black");
	ASSERT_STR_EQ(str(moved, "to_move"), "white");
	ASSERT_EQ(num(moved, "ply"), 1);
	ASSERT(json_object_get(moved, "clocks") == NULL);
	const json_t *ok = expect(A, "ok");
	ASSERT(ok != NULL);
	ASSERT_STR_EQ(str(ok, "request"), "move");
	ASSERT_EQ(num(ok, "seq"), num(moved, "seq"));
	ASSERT(quiet(A));
	ASSERT_EQ(num(expect(B, "moved"), "seq"), num(moved, "seq"));
	ASSERT_EQ(num(expect(B, "your_turn"), "seq"), num(moved, "seq"));
	ASSERT(expect(C, "moved") != NULL);
	ASSERT(quiet(C));
}

/* 11.1: the mover's clock loses the time it spent and gains the increment; the other stands. */
TEST(clock_increment)
{
	char mv[32];

	setup();
	ASSERT_EQ(start_game("5+3"), 0);
	ASSERT_EQ(first_move(A, mv, sizeof mv), 0);
	now_ms += 12000;
	move(A, mv);
	const json_t *clocks = json_object_get(expect(A, "moved"), "clocks");
	ASSERT_EQ(num(clocks, "black"), 300000 - 12000 + 3000);
	ASSERT_EQ(num(clocks, "white"), 300000);
	ASSERT_EQ(timer_delay, 300000); /* white's flag, now running */
}

/* 11.1: the flag falls exactly when the clock is empty, whatever the scores; later moves refused.
 */
TEST(flag_falls)
{
	char mv[32];

	setup();
	ASSERT_EQ(start_game("1+0"), 0);
	ASSERT_EQ(first_move(A, mv, sizeof mv), 0);
	ASSERT_EQ(timer_delay, 60000);
	now_ms += 59999;
	lobby_wake(lb);
	ASSERT(quiet(A));
	ASSERT(quiet(B));
	now_ms += 1;
	lobby_wake(lb);
	const json_t *over = expect(B, "game_over");
	ASSERT(over != NULL);
	ASSERT_STR_EQ(str(over, "result"), "win");
	ASSERT_STR_EQ(str(over, "winner"), "white");
	ASSERT_STR_EQ(str(over, "reason"), "time");
	ASSERT_EQ(num(json_object_get(over, "clocks"), "black"), 0);
	ASSERT(expect(A, "game_over") != NULL);
	move(A, mv);
	ASSERT_STR_EQ(error_code(A), "game_over");
}

/* 11.3: a dropped player's grace runs on its own turns only; then the opponent may claim. */
TEST(grace_then_claim)
{
	char mv[32];

	setup();
	ASSERT_EQ(start_game("5+0"), 0);
	ASSERT_EQ(first_move(A, mv, sizeof mv), 0);

	lobby_peer_gone(lb, &B->lp); /* not bob's turn: his grace does not run */
	const json_t *pr = expect(A, "presence");
	ASSERT(json_is_false(json_object_get(pr, "connected")));
	ASSERT_EQ(num(pr, "grace_ms"), 60000);
	now_ms += 20000;
	move(A, mv);
	ASSERT(expect(A, "moved") != NULL && expect(A, "ok") != NULL);
	say(A, "{\"type\":\"claim\",\"result\":\"win\"}");
	ASSERT_STR_EQ(error_code(A), "cannot_claim");

	now_ms += 59999; /* bob's turn: his whole grace, less a millisecond */
	lobby_wake(lb);
	ASSERT(quiet(A));
	now_ms += 1;
	lobby_wake(lb);
	ASSERT(expect(A, "grace_over") != NULL);
	say(A, "{\"type\":\"claim\",\"result\":\"win\"}");
	const json_t *over = expect(A, "game_over");
	ASSERT(over != NULL);
	ASSERT_STR_EQ(str(over, "winner"), "black");
	ASSERT_STR_EQ(str(over, "reason"), "disconnect");
	ASSERT_STR_EQ(str(expect(A, "ok"), "request"), "claim");
}

/* 11.3 and 4.3: without a clock the game adjourns; the player who comes back with last_seq gets
 * exactly the events it missed, then presence, then your_turn, and the game resumes. */
TEST(adjourn_and_resume)
{
	char mv[32], token[64], line[160];

	setup();
	ASSERT_EQ(start_game(NULL), 0);
	snprintf(token, sizeof token, "%s", str(B->out[0], "token"));
	ASSERT_EQ(first_move(A, mv, sizeof mv), 0);
	lobby_peer_gone(lb, &B->lp);
	ASSERT(expect(A, "presence") != NULL);
	move(A, mv);
	const json_t *moved = expect(A, "moved");
	ASSERT(moved != NULL);
	long long seq = num(moved, "seq");
	ASSERT(expect(A, "ok") != NULL);

	now_ms += 60000;
	lobby_wake(lb);
	const json_t *adj = expect(A, "adjourned");
	ASSERT(adj != NULL);
	ASSERT_EQ(num(adj, "seq"), seq + 1);
	move(A, mv);
	ASSERT_STR_EQ(error_code(A), "not_started");
	ASSERT(hello(C, "carol") != NULL);
	say(C, "{\"type\":\"join\",\"game\":\"g1\"}");
	const json_t *full = expect(C, "error");
	ASSERT_STR_EQ(str(full, "code"), "game_full");
	ASSERT(strstr(str(full, "text"), "adjourned") != NULL);

	struct peer *b2 = &peers[3];
	snprintf(line, sizeof line,
	         "{\"type\":\"hello\",\"protocol\":1,\"token\":\"%s\",\"last_seq\":%lld}", token,
	         seq - 1);
	say(b2, line);
	const json_t *w = expect(b2, "welcome");
	ASSERT(w != NULL);
	ASSERT(json_is_true(json_object_get(w, "resumed")));
	ASSERT_STR_EQ(str(w, "game"), "g1");
	ASSERT_EQ(num(expect(b2, "moved"), "seq"), seq);
	ASSERT_EQ(num(expect(b2, "adjourned"), "seq"), seq + 1);
	ASSERT_EQ(num(expect(b2, "resumed"), "seq"), seq + 2);
	ASSERT(expect(b2, "your_turn") != NULL);
	ASSERT(quiet(b2));
	const json_t *back = json_object_get(expect(A, "presence"), "connected");
	ASSERT(json_is_true(back)); /* a macro: its argument must not be a call */
	ASSERT_EQ(num(expect(A, "resumed"), "seq"), seq + 2);
}

/* 11.2: a draw offer stands until answered; accepting it ends the game. */
TEST(draw_by_agreement)
{
	setup();
	ASSERT_EQ(start_game(NULL), 0);
	/* no draw before both sides have moved, nor a resignation before one's own move */
	say(B, "{\"type\":\"draw_offer\"}");
	ASSERT_STR_EQ(error_code(B), "too_early");
	say(B, "{\"type\":\"resign\"}");
	ASSERT_STR_EQ(error_code(B), "too_early");
	ASSERT_EQ(both_move(), 0);
	say(B, "{\"type\":\"draw_accept\"}");
	ASSERT_STR_EQ(error_code(B), "no_offer");
	say(A, "{\"type\":\"draw_offer\"}");
	ASSERT_STR_EQ(str(expect(B, "draw_offered"), "by"), "black");
	say(B, "{\"type\":\"draw_accept\"}");
	const json_t *over = expect(B, "game_over");
	ASSERT(over != NULL);
	ASSERT_STR_EQ(str(over, "result"), "draw");
	ASSERT_STR_EQ(str(over, "reason"), "agreement");
	ASSERT(json_is_null(json_object_get(over, "winner")));
}

/* say: 5 lines in any 10 seconds; spectators' lines go to spectators only, as kibitz. */
TEST(chat_and_kibitz)
{
	setup();
	ASSERT_EQ(start_game(NULL), 0);
	ASSERT(expect(A, "your_turn") != NULL);
	ASSERT(hello(C, "carol") != NULL);
	say(C, "{\"type\":\"watch\",\"game\":\"g1\"}");
	ASSERT(expect(C, "state") != NULL);
	for (int i = 0; i < 5; i++) {
		now_ms += 1000;
		say(B, "{\"type\":\"say\",\"text\":\"\\t hello \\u0007there \"}");
		const json_t *chat = expect(A, "chat");
		ASSERT(chat != NULL);
		ASSERT_STR_EQ(str(chat, "text"), "hello there");
		ASSERT_STR_EQ(str(chat, "seat"), "white");
		ASSERT(expect(C, "chat") != NULL);
		ASSERT_EQ(num(expect(B, "chat"), "seq"), num(expect(B, "ok"), "seq"));
	}
	say(B, "{\"type\":\"say\",\"text\":\"one too many\"}");
	ASSERT_STR_EQ(error_code(B), "rate_limited");
	ASSERT(quiet(A));
	now_ms += 6000; /* the first line is 10 s old: room for one more */
	say(B, "{\"type\":\"say\",\"text\":\"again\"}");
	ASSERT(expect(A, "chat") != NULL);
	ASSERT(expect(C, "chat") != NULL);

	say(C, "{\"type\":\"say\",\"text\":\"nice\"}");
	ASSERT_STR_EQ(str(expect(C, "kibitz"), "text"), "nice");
	const json_t *ok = expect(C, "ok");
	ASSERT(ok != NULL);
	ASSERT(json_object_get(ok, "seq") == NULL);
	ASSERT(quiet(A));
	ASSERT(expect(B, "chat") != NULL && expect(B, "ok") != NULL);
	ASSERT(quiet(B));
}

/* abort: only by a player who has not moved yet in this game. */
TEST(abort_before_moving)
{
	char mv[32];

	setup();
	ASSERT_EQ(start_game(NULL), 0);
	ASSERT_EQ(first_move(A, mv, sizeof mv), 0);
	move(A, mv);
	ASSERT(expect(A, "moved") != NULL && expect(A, "ok") != NULL);
	say(A, "{\"type\":\"abort\"}");
	ASSERT_STR_EQ(error_code(A), "too_late");
	say(B, "{\"type\":\"abort\"}");
	const json_t *over = expect(B, "moved") ? expect(B, "your_turn") : NULL;
	ASSERT(over != NULL);
	over = expect(B, "game_over");
	ASSERT(over != NULL);
	ASSERT_STR_EQ(str(over, "result"), "aborted");
	ASSERT_STR_EQ(str(over, "reason"), "abort");
	ASSERT_STR_EQ(str(expect(B, "ok"), "request"), "abort");
}

/* 11.5: an accepted rematch is a new game with the colours swapped, and both players move to it. */
TEST(rematch_swaps_colours)
{
	setup();
	ASSERT_EQ(start_game("3+2"), 0);
	ASSERT_EQ(both_move(), 0);
	ASSERT(expect(A, "your_turn") != NULL);
	say(B, "{\"type\":\"rematch\"}");
	ASSERT_STR_EQ(error_code(B), "not_over");
	say(A, "{\"type\":\"resign\"}");
	ASSERT_STR_EQ(str(expect(A, "game_over"), "reason"), "resign");
	ASSERT(expect(A, "ok") != NULL);
	ASSERT(expect(B, "game_over") != NULL);
	say(A, "{\"type\":\"rematch\"}");
	ASSERT_STR_EQ(str(expect(B, "rematch_offered"), "by"), "black");
	say(B, "{\"type\":\"rematch\",\"id\":7}");
	ASSERT_STR_EQ(str(expect(B, "rematch_started"), "new_game"), "g2");
	const json_t *st = expect(B, "state");
	ASSERT(st != NULL);
	ASSERT_EQ(num(st, "id"), 7);
	ASSERT_STR_EQ(str(st, "you"), "black");
	ASSERT_STR_EQ(str(st, "status"), "live");
	ASSERT_STR_EQ(str(json_object_get(st, "clock"), "control"), "3+2");
	ASSERT(expect(A, "rematch_offered") != NULL && expect(A, "ok") != NULL);
	ASSERT(expect(A, "rematch_started") != NULL);
	st = expect(A, "state");
	ASSERT(st != NULL);
	ASSERT_STR_EQ(str(st, "you"), "white");
	ASSERT(json_object_get(st, "id") == NULL);
	ASSERT(expect(B, "your_turn") != NULL); /* HOKITO: black moves first */
}

/* 4.3: a creator away from its open game for --linger ends it. */
TEST(open_game_abandoned)
{
	setup();
	ASSERT(hello(A, "alice") != NULL && hello(C, "carol") != NULL);
	say(A, "{\"type\":\"create\",\"kind\":\"oxono\"}");
	ASSERT(expect(A, "state") != NULL);
	say(C, "{\"type\":\"watch\",\"game\":\"g1\"}");
	ASSERT(expect(C, "state") != NULL);
	lobby_peer_gone(lb, &A->lp);
	const json_t *away = json_object_get(expect(C, "presence"), "connected");
	ASSERT(json_is_false(away));
	now_ms += 299000;
	lobby_tick(lb);
	ASSERT(quiet(C));
	now_ms += 2000;
	lobby_tick(lb);
	const json_t *over = expect(C, "game_over");
	ASSERT(over != NULL);
	ASSERT_STR_EQ(str(over, "result"), "aborted");
	ASSERT_STR_EQ(str(over, "reason"), "abandoned");
}

/*
 * Whether the lobby still holds finished game id, asked by p with a join that cannot succeed:
 * game_full (1) or no_such_game (0); -1 for anything else.
 */
static int
holds(struct peer *p, const char *id)
{
	char line[96];
	const char *code;

	snprintf(line, sizeof line, "{\"type\":\"join\",\"game\":\"%s\"}", id);
	say(p, line);
	code = error_code(p);
	return strcmp(code, "game_full") == 0 ? 1 : strcmp(code, "no_such_game") == 0 ? 0 : -1;
}

/* Peer p creates a HOKITO game and q joins it; each moves once, then p resigns. The game is id. */
static int
finished_game(struct peer *p, struct peer *q, const char *id)
{
	char line[96];

	say(p, "{\"type\":\"create\",\"kind\":\"hokito\",\"seat\":\"black\"}");
	if (expect(p, "state") == NULL)
		return -1;
	snprintf(line, sizeof line, "{\"type\":\"join\",\"game\":\"%s\"}", id);
	say(q, line);
	if (expect(q, "state") == NULL)
		return -1;
	for (int i = 0; i < 2; i++) {
		struct peer *mover = i == 0 ? p : q;
		const json_t *yt = skip_to(mover, "your_turn");
		const char *mv =
		        yt ? json_string_value(json_array_get(json_object_get(yt, "moves"), 0))
		           : NULL;

		if (mv == NULL)
			return -1;
		move(mover, mv);
		if (skip_to(mover, "ok") == NULL)
			return -1;
	}
	say(p, "{\"type\":\"resign\"}");
	while (expect(p, "ok") == NULL && strcmp(got, "nothing") != 0)
		;
	while (expect(q, "game_over") == NULL && strcmp(got, "nothing") != 0)
		;
	return 0;
}

/*
 * PROTOCOL.md 2: a finished game past --keep-finished is held while a player of its is at it,
 * forgotten as soon as its last player leaves, and counts no more against --max-games (held
 * games are kept apart from the finished ones that pruning walks; they may be thousands).
 */
TEST(finished_games_held_for_players)
{
	struct peer *d = &peers[3];

	setup_with(2, 0);
	ASSERT(hello(A, "alice") && hello(B, "bob") && hello(C, "carol") && hello(d, "dave"));
	ASSERT_EQ(finished_game(A, B, "g1"), 0);
	ASSERT_EQ(finished_game(C, d, "g2"), 0);
	ASSERT_EQ(holds(A, "g1"), 1); /* held for alice and bob */
	ASSERT_EQ(holds(A, "g2"), 1); /* held for carol and dave */
	/* two held games, none open or live: a third may be created with --max-games 2 */
	say(C, "{\"type\":\"create\",\"kind\":\"oxono\"}");
	ASSERT(expect(C, "state") != NULL);
	ASSERT_EQ(holds(A, "g2"), 1); /* dave is still at g2 */
	say(d, "{\"type\":\"leave\"}");
	ASSERT(expect(d, "ok") != NULL);
	ASSERT_EQ(holds(A, "g2"), 0); /* its last player left: forgotten */
	say(B, "{\"type\":\"leave\"}");
	ASSERT(expect(B, "ok") != NULL);
	ASSERT_EQ(holds(d, "g1"), 1); /* alice is still at g1 */
	lobby_peer_gone(lb, &A->lp);  /* away: her session lingers at g1 */
	now_ms += 299000;
	lobby_tick(lb);
	ASSERT_EQ(holds(d, "g1"), 1);
	now_ms += 2000;
	lobby_tick(lb); /* her session expired: g1 is held for nobody */
	ASSERT_EQ(holds(d, "g1"), 0);
	say(d, "{\"type\":\"create\",\"kind\":\"hokito\"}");
	ASSERT(expect(d, "state") != NULL); /* g3 and this one: the two of --max-games */
	say(B, "{\"type\":\"create\",\"kind\":\"hokito\"}");
	ASSERT_STR_EQ(error_code(B), "server_full");
}

int
main(void)
{
	log_level_set(LOG_ERROR);
	RUN(hello_comes_first);
	RUN(move_order_and_checks);
	RUN(clock_increment);
	RUN(flag_falls);
	RUN(grace_then_claim);
	RUN(adjourn_and_resume);
	RUN(draw_by_agreement);
	RUN(chat_and_kibitz);
	RUN(abort_before_moving);
	RUN(rematch_swaps_colours);
	RUN(open_game_abandoned);
	RUN(finished_games_held_for_players);
	setup();
	lobby_free(lb);
	for (int i = 0; i < PEERS; i++)
		for (size_t j = 0; j < peers[i].nout; j++)
			json_decref(peers[i].out[j]);
	TEST_END();
}
