/*
 * fuzz-client.c: the terminal client (hokito) fed what a hostile or broken server may send.
 *
 * Input: lines. Each line is a line from the server, cut by the real framer (protocol/framer.c)
 * and decoded as client-net.c's read_cb() does: an empty line is skipped, a line that is not
 * JSON at all gets the "Unreadable line" notice, anything else (a welcome first noted by the
 * network layer) goes to the real client_msg_handle() (client-msg.c, client-state.c), which
 * tells the real --plain view (client-plain.c) to print what changed; its output goes to
 * /dev/null (standard output is pointed there while an input runs; with FUZZ_CLIENT_SHOW set in
 * the environment it is left alone, to see what the view printed). Three kinds of lines are the
 * user's and the clock's instead of the server's:
 *
 *   >COMMAND   a line typed at --plain (board, moves, stack a1, who, clock, next, replay, say,
 *              accept, leave, quit...), run at once on whatever state the server left
 *   <          the connection is lost and a new one is made (link down, notices, a later
 *              welcome is a reconnection)
 *   ~MS        MS milliseconds pass (the loop time moves on: clocks and grace periods count down)
 *
 * A fixed prologue runs first (a welcome back, then the state of a live HOKITO game with a 5+3
 * clock that we play as white, see PROLOGUE), so that short inputs reach game events; an input
 * whose first byte is '!' skips it and starts from a client that has just connected.
 *
 * The seam. The client is linked from its real files, the client's library (client/meson.build):
 * client.c, client-msg.c, client-state.c, client-request.c, client-replay.c and client-eval.c,
 * and client-plain.c, whose state this file makes with client_plain_detached() instead of
 * plain_start(), which would read standard input. The network layer, client-net.c, is not: this
 * file defines client_net_* instead, so nothing touches a socket and the linker never takes
 * client-net.o out of the library; nor is main() (client-main.c). client_net_send() drops the
 * encoded request and says it was sent, so every request is recorded as pending as it would be, and
 * a reply with its id (ids count from 1 for each input) is matched to it; the others do to the
 * client what client-net.c's do (the link status, the token, the notices). client-session.c is
 * not linked either (only client-net.c stores tokens).
 *
 * What must hold: no crash, no sanitizer report, no leak (each input ends with client_quit(),
 * the real teardown, and runs the loop until every handle is closed), and the state's own
 * bounds after every line (fuzz_state_check()). Every input starts from a fresh struct client.
 * Not covered: the full-screen view (client-screen-view.c and its pages), the network layer's reads
 * and reconnection timer, the session file.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#include "client.h"
#include "framer.h"
#include "wire.h"
#include "xmalloc.h"

#define FUZZ_TIME_MAX 86400000 /* the most time one "~" line lets pass (a day, in ms) */

/*
 * The prologue, as a real hokitod sent it to bob coming back (token, no last_seq) to his live
 * HOKITO game g1 (5+3 clock, 4 moves, seq 10, a spectator, a chat line): the welcome, then the
 * state.
 */
static const char PROLOGUE[] =
        "{\"type\":\"welcome\",\"protocol\":1,\"server\":\"hokitod 0.1.0\",\"player\":{\"id\":\"p"
        "2\",\"name\":\"bob\"},\"token\":\"4a12274ffc5ad44587989fff19955291\",\"resumed\":true,\""
        "game\":\"g1\",\"limits\":{\"max_line\":65536}}\n"
        "{\"type\":\"state\",\"game\":\"g1\",\"kind\":\"hokito\",\"variant\":\"standard\",\"seed\""
        ":\"7\",\"private\":false,\"status\":\"live\",\"seq\":10,\"you\":\"white\",\"players\":{\""
        "black\":{\"id\":\"p1\",\"name\":\"alice\",\"connected\":true},\"white\":{\"id\":\"p2\",\""
        "name\":\"bob\",\"connected\":true}},\"start\":\"w3,w1,w1,w2,w3,w3/w2,w1,w2,w3,w1,w1/w1,w"
        "2,w3,w2,w3,w2/b3,b3,b3,b1,b3,b1/b2,b1,b1,b3,b2,b1/b2,b2,b3,b2,b2,b1 b\",\"position\":\"w"
        "3,w1,w1,w2,w3,w3/w2,w1,w2,w3,w1,w1/-,-,w3,w2,w3,w2/b3w1,b3b2,b3w2,b1,b3,b1/b2,b1,b1,b3,b"
        "2,b1/-,-,b3b2,b2,b2,b1 b\",\"cells\":[\"-\",\"-\",\"b3b2\",\"b2\",\"b2\",\"b1\",\"b2\",\""
        "b1\",\"b1\",\"b3\",\"b2\",\"b1\",\"b3w1\",\"b3b2\",\"b3w2\",\"b1\",\"b3\",\"b1\",\"-\",\""
        "-\",\"w3\",\"w2\",\"w3\",\"w2\",\"w2\",\"w1\",\"w2\",\"w3\",\"w1\",\"w1\",\"w3\",\"w1\","
        "\"w1\",\"w2\",\"w3\",\"w3\"],\"to_move\":\"black\",\"ply\":4,\"moves\":[\"a1-c1\",\"a4-a"
        "3\",\"b1-b3\",\"b4-c3\"],\"scores\":{\"black\":28,\"white\":39},\"result\":null,\"specta"
        "tors\":{\"count\":1,\"names\":[\"carol\"]},\"clock\":{\"control\":\"5+3\",\"base_ms\":30"
        "0000,\"increment_ms\":3000,\"remaining\":{\"black\":301121,\"white\":304239},\"running\""
        ":\"black\"},\"draw_offer\":null,\"rematch_offer\":null,\"chat\":[{\"seat\":\"black\",\"p"
        "layer\":{\"id\":\"p1\",\"name\":\"alice\"},\"text\":\"good luck\"}]}\n";

/* What client-net.c would hold: the connection's state, as far as the client can see it. */
static struct {
	int connected;                /* a connection is up (greeted or not) */
	int welcomed;                 /* it got its welcome */
	int ever_welcomed;            /* some connection got a welcome */
	int replaced;                 /* bye "replaced": the next loss ends the program */
	char token[CLIENT_TOKEN_MAX]; /* the session token, "" before the first welcome */
	size_t sent;                  /* requests "sent" */
} net;

static uv_loop_t fuzz_loop;
static struct client fuzz_client; /* large: static, and cleared for each input */
static int stdout_saved = -1, dev_null = -1;

/* client-net.c, without a socket: a send always goes through while greeted. */
int
client_net_send(struct client *c, struct wire *w)
{
	wire_unref(w);
	if (!net.connected || !net.welcomed)
		return UV_ENOTCONN;
	net.sent++;
	return 0;
}

int
client_net_up(const struct client *c)
{
	return net.connected && net.welcomed;
}

int
client_net_password_ok(const struct client *c)
{
	(void)c;
	return 1; /* the fuzzer's server is this process */
}

const char *
client_net_token(const struct client *c)
{
	return net.token;
}

/* As client-net.c: forget the token, lose a seated game, say hello again (not sent here). */
void
client_net_token_refused(struct client *c)
{
	if (!net.connected)
		return;
	net.token[0] = '\0';
	if (c->st.table.active && (c->st.table.seat >= 0 || !c->watch_target[0])) {
		client_state_table_clear(&c->st);
		client_notice(c, 1, "The server no longer knows our session: the game is lost.");
	}
}

void
client_net_bye(struct client *c, const char *reason)
{
	if (!net.connected)
		return;
	if (strcmp(reason, "replaced") == 0) {
		net.replaced = 1;
		client_notice(c, 1, "This session was taken over by another hokito; closing.");
	} else {
		client_notice(c, 1, "The server is shutting down; we will reconnect.");
	}
}

void
client_net_wake(struct client *c)
{
	(void)c; /* no connection to make again: the fuzzer's lines are the server */
}

void
client_net_login(struct client *c)
{
	(void)c; /* no hello to say again: the fuzzer's lines are the server */
}

void
client_net_stop(struct client *c)
{
	net.connected = 0;
	net.welcomed = 0;
}

int
client_net_start(struct client *c, const struct client_net_ops *ops)
{
	net.connected = 1;
	return 0;
}

/* The connection ends (net_lost()) and, unless that ends the program, a new one is up. */
static void
fuzz_reconnect(struct client *c)
{
	net.connected = 0;
	net.welcomed = 0;
	if (net.replaced) {
		c->st.link = CLIENT_LINK_FAILED;
		client_quit(c, 1);
		return;
	}
	c->st.link = net.ever_welcomed ? CLIENT_LINK_DOWN : CLIENT_LINK_CONNECTING;
	client_notice(c, 1, "Connection lost (closed by the server); reconnecting in 0.25 s...");
	client_update(c);
	net.connected = 1;
}

/* A welcome, as net_welcome() notes it before the client handles it. */
static void
fuzz_welcome(struct client *c, const struct msg *m)
{
	const char *token = msg_str(m, "token");

	net.welcomed = 1;
	net.ever_welcomed = 1;
	c->st.link = CLIENT_LINK_UP;
	if (token != NULL)
		snprintf(net.token, sizeof net.token, "%s", token);
}

/* One line from the server, as read_cb() handles it. */
static void
fuzz_server_line(struct client *c, const char *line, size_t len)
{
	struct msg m;
	struct msg_error err;

	if (len == 0)
		return;
	if (msg_decode(&m, line, len, &err) < 0 && m.root == NULL) {
		client_notice(c, 1, "Unreadable line from the server: %s", err.text);
		msg_clear(&m);
		return;
	}
	if (m.type == MSG_WELCOME)
		fuzz_welcome(c, &m);
	client_msg_handle(c, &m);
	msg_clear(&m);
}

/* The state's bounds, which every view relies on. */
static void
fuzz_state_check(const struct client *c)
{
	const struct client_state *st = &c->st;
	const struct client_table *t = &st->table;

	check(st->nlist >= 0 && st->nlist <= CLIENT_LIST_MAX);
	check(t->nmoves >= 0 && t->nmoves <= CLIENT_MOVES_MAX);
	check(t->nspectators >= 0);
	check(t->nchat >= 0 && t->nkibitz >= 0);
	check(t->seat >= -1 && t->seat <= 1);
	check(t->draw_offer >= -1 && t->draw_offer <= 1);
	check(t->rematch_offer >= -1 && t->rematch_offer <= 1);
	check(t->winner >= -1 && t->winner <= 1);
	check(memchr(t->id, '\0', sizeof t->id) != NULL);
	check(memchr(st->message, '\0', sizeof st->message) != NULL);
	check(c->npending >= 0 && c->npending <= CLIENT_PENDING_MAX);
	check(c->nhistory >= 0 && c->nhistory <= CLIENT_HISTORY_MAX);
	check(!c->replay.active || c->replay.ply <= c->replay.rec.nmoves);
}

/* client-main.c's part of client_quit(): the connection, the evaluations, the timers. */
static void
fuzz_stop(struct client *c)
{
	client_net_stop(c);
	client_eval_stop(c);
	uv_close((uv_handle_t *)&c->lobby_timer, NULL);
	for (int i = 0; i < 3; i++)
		uv_close((uv_handle_t *)&c->sig[i], NULL);
}

/* A fresh client, as main() and plain_start() make it, connected (not yet greeted). */
static void
fuzz_client_start(struct client *c)
{
	memset(c, 0, sizeof *c);
	memset(&net, 0, sizeof net);
	c->opt.host = CLIENT_DEFAULT_HOST;
	c->opt.port = CLIENT_DEFAULT_PORT;
	c->opt.name = "bob";
	c->opt.plain = 1;
	c->opt.resume = 1;
	c->opt.seat = -1;
	c->opt.action = CLIENT_ACTION_LOBBY;
	client_state_init(&c->st);
	c->loop = &fuzz_loop;
	c->view = &client_plain_view;
	c->stop = fuzz_stop;
	uv_timer_init(c->loop, &c->lobby_timer);
	for (int i = 0; i < 3; i++)
		uv_signal_init(c->loop, &c->sig[i]);
	c->view_data = client_plain_detached(c);
	client_net_start(c, NULL);
}

/* Run one line of the input: the server's, or the user's (>), or the loss (<), or time (~). */
static void
fuzz_line(struct client *c, char *line, size_t len)
{
	if (line[0] == '>') {
		if (c->view_data != NULL)
			client_plain_command(c->view_data, line + 1);
	} else if (line[0] == '<' && len == 1) {
		fuzz_reconnect(c);
	} else if (line[0] == '~') {
		long ms = strtol(line + 1, NULL, 10);
		if (ms > 0)
			fuzz_loop.time += (uint64_t)(ms < FUZZ_TIME_MAX ? ms : FUZZ_TIME_MAX);
	} else {
		fuzz_server_line(c, line, len);
	}
	fuzz_state_check(c);
}

/* Feed bytes through a framer, a line at a time, while the client runs. */
static void
fuzz_feed(struct client *c, const void *data, size_t size)
{
	struct framer f;
	const char *line;
	size_t len;

	framer_init(&f, PROTOCOL_SERVER_LINE_MAX);
	framer_feed(&f, data, size);
	framer_feed(&f, "\n", 1); /* the last line ends where the input does */
	while (!c->quitting && framer_next(&f, &line, &len) > 0) {
		char *copy = xmalloc(len + 1); /* its own buffer, so ASan sees overreads */
		memcpy(copy, line, len + 1);
		fuzz_line(c, copy, len);
		free(copy);
	}
	framer_close(&f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct client *c = &fuzz_client;

	if (dev_null < 0) {
		check(uv_loop_init(&fuzz_loop) == 0);
		/* FUZZ_CLIENT_SHOW=1 leaves the view's output on standard output, to debug */
		dev_null = getenv("FUZZ_CLIENT_SHOW") != NULL ? dup(STDOUT_FILENO)
		                                              : open("/dev/null", O_WRONLY);
		stdout_saved = dup(STDOUT_FILENO);
		check(dev_null >= 0 && stdout_saved >= 0);
	}
	fflush(stdout);
	dup2(dev_null, STDOUT_FILENO);
	fuzz_client_start(c);
	if (size > 0 && data[0] == '!') {
		data++;
		size--;
	} else {
		fuzz_feed(c, PROLOGUE, sizeof PROLOGUE - 1);
	}
	fuzz_feed(c, data, size);
	client_quit(c, 0);
	uv_run(&fuzz_loop, UV_RUN_DEFAULT); /* the close callbacks */
	fflush(stdout);
	dup2(stdout_saved, STDOUT_FILENO);
	return 0;
}
