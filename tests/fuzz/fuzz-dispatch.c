/*
 * fuzz-dispatch.c: the server's game layer (lobby and tables) fed arbitrary requests.
 *
 * The game layer never touches a socket, so it runs here as it does in hokitod, with ops that
 * count what it would send. Input: lines; the first byte of each line picks one of four peers
 * (its value modulo 4; 0xff instead drops that peer's connection), the rest is the request. A
 * fixed prologue says hello for each peer, creates a game of each kind and seats two players, so
 * short inputs reach moves, offers, chat and reconnection. The computer player "thinks" by
 * taking the legal move the ply picks, and its answer is delivered after the next line, as the
 * network layer would deliver it later. Nothing may crash, leak or break an invariant (checked
 * by the layer's own asserts and by the sanitizers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lobby.h"
#include "log.h"
#include "msg.h"
#include "wire.h"

#define PEERS 4

struct fuzz_ctx {
	uint64_t now;
	size_t sent;
	int thinking;                  /* a computer's move waits to be delivered */
	char game[16];                 /* ... for this game */
	int64_t ply;                   /* ... at this ply */
	char move[GAME_MOVE_TEXT + 4]; /* ... this move */
};

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
		lobby_peer_message(lb, peer, &m);
	msg_clear(&m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
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
	                        .think = fuzz_think};
	struct lobby_config cfg = {
	        .max_games = 8,
	        .keep_finished = 4,
	        .linger_ms = 1000,
	        .max_line = 4096,
	        .server = "hokitod fuzz",
	        .grace_ms = 500,
	        .test_clock = 0,
	};
	struct lobby_peer peers[PEERS];
	int connected[PEERS];
	struct fuzz_ctx ctx;
	struct lobby *lb;
	size_t pos = 0;

	if (size > 65536)
		return 0;
	log_level_set(LOG_ERROR);
	memset(&ctx, 0, sizeof ctx);
	ops.arg = &ctx;
	lb = lobby_create(&cfg, &ops);
	memset(peers, 0, sizeof peers);
	for (int i = 0; i < PEERS; i++)
		connected[i] = 1;
	for (size_t i = 0; i < sizeof prologue / sizeof prologue[0]; i++)
		fuzz_line(lb, &peers[prologue[i][0][0] - '0'], prologue[i][1],
		          strlen(prologue[i][1]));
	while (pos < size) {
		const uint8_t *end = memchr(data + pos, '\n', size - pos);
		size_t len = end ? (size_t)(end - (data + pos)) : size - pos;
		if (len > 0) {
			int p = data[pos] % PEERS;
			if (data[pos] == 0xff) {
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
		pos += len + 1;
	}
	for (int i = 0; i < PEERS; i++)
		if (connected[i])
			lobby_peer_gone(lb, &peers[i]);
	lobby_free(lb);
	return 0;
}
