/*
 * client-net.c: the client's connection to the server, on libuv, with automatic reconnection.
 *
 * This module owns the TCP connection and the retry timer. It connects, says hello (with the
 * session token and the last game seq it saw, once it has a token), splits the input into lines
 * with protocol/framer.h, decodes each with msg_decode() and hands it up through the ops that
 * main() gave it (client_msg_handle()): it calls no module above it by name. It never changes the
 * game state itself, except the link status.
 *
 * Lifetimes. A connection is a struct net_conn that embeds its uv_tcp_t; it is freed only in the
 * handle's close callback. When the connection is lost (read error, EOF, failed connect), the net
 * lets go of it (conn->net = NULL, uv_close) and arms the retry timer with a growing delay
 * (0.25 s, 0.5 s, 1 s, 2 s, then 3 s); the next connection says hello with the token, so the
 * server replays exactly the events we missed. A message handler may end the program or drop the
 * connection (bye): the read loop checks after each line that the connection is still ours. A
 * write request owns its wire reference until its callback. The struct client_net itself is
 * freed in the close callback of its timer, after client_net_stop().
 *
 * TLS (--tls, or a hokitos:// address): each connection runs through a struct tls_link
 * (tls-link.h), made once TCP is connected; the hello is held until the handshake ends and the
 * server is trusted. A server no CA vouches for and that is not pinned is trusted on first use:
 * the full screen asks (view->ask, with the fingerprint), --plain needs --tls-accept-new. A
 * certificate that fails its checks, or differs from the pinned one, ends the program with the
 * reason (status 1): trying again would not mend it. --tls-insecure says at every connection that
 * nothing is checked.
 *
 * Passwords: before the first byte of a connection that would carry one (--login, --register,
 * --password-file), the address it resolved to is checked (tls_link_password_ok()): in clear to
 * an address that is not a loopback one, the client refuses and stops (status 2), unless
 * --allow-insecure-passwords; a login asked for later is refused the same way
 * (client_net_password_ok()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "client.h"
#include "hokito-config.h"
#include "protocol.h"
#include "xmalloc.h"

#define NET_READ_MIN     4096
#define NET_GIVE_UP      5     /* --plain: failed first attempts before giving up */
#define NET_GIVE_UP_MS   60000 /* --plain: how long a lost connection is tried again */
#define NET_DELAY_MAX_MS 3000

struct net_conn {
	uv_tcp_t tcp;           /* embedded handle; the struct is freed in its close callback */
	uv_connect_t connect;   /* the connect request */
	struct client_net *net; /* the owner, or NULL once let go */
	struct framer framer;   /* input lines */
	struct tls_link *tls;   /* owned: TLS of this connection, or NULL in clear */
	int ready;              /* connected (and TLS shaken hands): its hello may go */
	int probe;              /* only asks whether the port speaks TLS (net_probe_start()) */
	size_t got;             /* bytes received (ciphertext with TLS) */
	int first;              /* the first byte received, -1 before one */
};

struct net_write {
	uv_write_t req;
	struct wire *wire; /* owned: one reference, dropped in the callback */
};

struct client_net {
	struct client *c;
	const struct client_net_ops *ops; /* borrowed: where messages go */
	uv_timer_t retry;                 /* reconnection delay */
	struct net_conn *conn;            /* the current connection, or NULL */
	int welcomed;                     /* conn's hello was answered with welcome */
	int ever_welcomed;                /* some connection got a welcome */
	int attempts;                     /* failed attempts since the last welcome */
	uint64_t lost_at;                 /* loop time the last welcomed connection was lost (ms) */
	int stopping;                     /* client_net_stop() was called */
	int replaced;                     /* bye "replaced": do not come back */
	int idle;                         /* bye "idle": come back when the user does something */
	int asking; /* the view asks for a name and password: the hello waits (client_net_login) */
	char token[CLIENT_TOKEN_MAX]; /* the session token, "" before the first welcome */
	struct tls_client *tls;       /* owned: the trust of --tls, or NULL in clear */
	int password_ok; /* a password may go to the address last connected to (tls-link.h) */
	int probed;      /* the port was asked whether it speaks TLS (net_probe_start()) */
	struct tls_client *probe_tls; /* owned: the unchecked TLS of that question, or NULL */
};

static void net_connect(struct client_net *net, int probe);
static void retry_cb(uv_timer_t *t);

static void
conn_close_cb(uv_handle_t *h)
{
	struct net_conn *conn = container_of(h, struct net_conn, tcp);

	framer_close(&conn->framer);
	tls_link_free(conn->tls);
	free(conn);
}

/* Let go of the current connection; it frees itself in its close callback. */
static void
net_drop(struct client_net *net)
{
	struct net_conn *conn = net->conn;

	if (conn == NULL)
		return;
	net->conn = NULL;
	net->welcomed = 0;
	conn->net = NULL;
	uv_read_stop((uv_stream_t *)&conn->tcp);
	if (!uv_is_closing((uv_handle_t *)&conn->tcp))
		uv_close((uv_handle_t *)&conn->tcp, conn_close_cb);
}

/*
 * The connection failed or ended: schedule the next attempt and tell the user. The full screen
 * keeps trying for as long as it runs: its user sees "reconnecting..." and can quit. --plain
 * serves scripts and screen readers, which must not wait for ever on a server that has gone: it
 * says so at every attempt, and gives up (exit status 1) after NET_GIVE_UP failed attempts at
 * the first connection, or at the first attempt that fails NET_GIVE_UP_MS or more after a
 * welcomed connection was lost (a server restarting is back well within that).
 */
static void
net_lost(struct client_net *net, int status)
{
	struct client *c = net->c;
	uint64_t delay = 250;

	net_drop(net);
	if (net->stopping)
		return;
	if (net->asking) {
		/* the server let go of a connection that waited for the user's password: the next
		 * one is made when the user answers (client_net_login) */
		c->st.link = net->ever_welcomed ? CLIENT_LINK_DOWN : CLIENT_LINK_CONNECTING;
		return;
	}
	if (net->replaced) {
		c->st.link = CLIENT_LINK_FAILED;
		client_quit(c, 1);
		return;
	}
	if (net->idle) {
		/* the server closed a connection that was at no game and quiet for --idle-timeout:
		   coming back at once would only hold its slot again; the next key does (wake) */
		c->st.link = CLIENT_LINK_DOWN;
		client_notice(c, 1,
		              "Disconnected after a long time idle at no game: %s to "
		              "reconnect.",
		              c->opt.plain ? "type a command" : "press a key");
		client_update(c);
		return;
	}
	if (net->attempts == 0)
		net->lost_at = uv_now(c->loop);
	net->attempts++;
	for (int i = 1; i < net->attempts && delay < NET_DELAY_MAX_MS; i++)
		delay *= 2;
	if (delay > NET_DELAY_MAX_MS)
		delay = NET_DELAY_MAX_MS;
	if (!net->ever_welcomed && c->opt.plain && net->attempts >= NET_GIVE_UP) {
		c->st.link = CLIENT_LINK_FAILED;
		client_notice(c, 1, "Cannot connect to %s:%d: %s", c->opt.host, c->opt.port,
		              uv_strerror(status));
		client_quit(c, 1);
		return;
	}
	if (net->ever_welcomed && c->opt.plain &&
	    uv_now(c->loop) - net->lost_at >= NET_GIVE_UP_MS) {
		c->st.link = CLIENT_LINK_FAILED;
		client_notice(c, 1, "Cannot reconnect to %s:%d (%s): gave up after %d s.",
		              c->opt.host, c->opt.port,
		              status == UV_EOF ? "closed by the server" : uv_strerror(status),
		              NET_GIVE_UP_MS / 1000);
		client_quit(c, 1);
		return;
	}
	c->st.link = net->ever_welcomed ? CLIENT_LINK_DOWN : CLIENT_LINK_CONNECTING;
	if (net->ever_welcomed)
		client_notice(c, 1, "Connection lost (%s); reconnecting in %g s...",
		              status == UV_EOF ? "closed by the server" : uv_strerror(status),
		              (double)delay / 1000.0);
	else
		client_notice(c, 1, "Cannot connect to %s:%d (%s); retrying in %g s...",
		              c->opt.host, c->opt.port, uv_strerror(status),
		              (double)delay / 1000.0);
	uv_timer_start(&net->retry, retry_cb, delay, 0);
	client_update(c);
}

static void
write_cb(uv_write_t *req, int status)
{
	struct net_write *w = container_of(req, struct net_write, req);

	wire_unref(w->wire);
	free(w);
}

/* Write a wire on conn; steals the reference. */
static int
conn_write(struct net_conn *conn, struct wire *wire)
{
	struct net_write *w;
	uv_buf_t buf = uv_buf_init(wire->data, (unsigned)wire->len);
	struct tls_error err;
	int rc;

	if (conn->tls != NULL) {
		rc = tls_link_write(conn->tls, wire->data, wire->len, &err);
		wire_unref(wire);
		return rc < 0 ? UV_EPROTO : 0;
	}
	w = xmalloc(sizeof *w);
	w->wire = wire;
	rc = uv_write(&w->req, (uv_stream_t *)&conn->tcp, &buf, 1, write_cb);
	if (rc < 0) {
		wire_unref(wire);
		free(w);
	}
	return rc;
}

/*
 * Say hello: with our token (and the last seq seen) when we have one, else with our name. Back at
 * a game whose clock runs, the client asks for the state rather than the missed events: the
 * events carry no clocks, and after a server restart the clocks are not where the time since the
 * last event would put them (the server's stopped while it was down, PROTOCOL.md 12.1); the state
 * has them as they are. The plain view prints what is new in it (the moves, chat, offers, the
 * end) as it would have printed the events.
 */
static void
net_hello(struct client_net *net)
{
	struct client *c = net->c;
	const struct client_table *t = &c->st.table;
	int clocks = t->timed && t->started && !t->over;
	int64_t last = t->active && t->seq >= 0 && !clocks ? t->seq : -1;
	json_t *hello;

	net->conn->ready = 1;
	if (net->token[0] == '\0' && c->opt.login) {
		/* --login: the password is asked for first, once */
		c->opt.login = 0;
		/* set first: client_net_login(), which the view may call at once, clears it */
		net->asking = 1;
		if (!client_login_ask(c, NULL, 0))
			net->asking = 0;
	}
	if (net->asking)
		return; /* client_net_login() says hello once the user has answered */
	if (net->token[0] != '\0') {
		hello = msg_hello_new(c->opt.name, net->token, last, NULL);
	} else if (c->opt.register_new) { /* once: later hellos log in to it */
		c->opt.register_new = 0;
		conn_write(net->conn,
		           wire_encode_steal(json_pack("{s:s,s:s,s:s}", "type", "register", "name",
		                                       c->opt.name, "password", c->opt.password)));
		return;
	} else {
		hello = msg_hello_new(c->opt.name, NULL, -1, NULL);
		if (c->opt.password != NULL) /* the account's: a login */
			json_object_set_new(hello, "password", json_string(c->opt.password));
	}
	json_object_set_new(hello, "client", json_string("hokito " HOKITO_VERSION));
	conn_write(net->conn, wire_encode_steal(hello));
}

static void
alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct net_conn *conn = container_of(h, struct net_conn, tcp);
	char *base;
	size_t size;

	if (conn->tls != NULL) {
		tls_link_alloc(conn->tls, buf);
		return;
	}
	framer_space(&conn->framer, NET_READ_MIN, &base, &size);
	*buf = uv_buf_init(base, (unsigned)size);
}

/* Note the welcome in the net: token kept and stored, link up. */
static void
net_welcome(struct client_net *net, const struct msg *m)
{
	struct client *c = net->c;
	const char *token = msg_str(m, "token");

	net->welcomed = 1;
	net->ever_welcomed = 1;
	net->attempts = 0;
	c->st.link = CLIENT_LINK_UP;
	if (token != NULL && strcmp(token, net->token) != 0) {
		const char *kind = json_string_value(
		        json_object_get(json_object_get(m->root, "player"), "kind"));
		int account = kind != NULL ? strcmp(kind, "guest") != 0 : c->opt.password != NULL;

		snprintf(net->token, sizeof net->token, "%s", token);
		client_session_save(c->opt.host, c->opt.port, c->opt.name, net->token, account);
	}
}

/*
 * Whether error m, the answer to our hello or register, says that the account or the name will not
 * do: trying again by ourselves would not help, so the client stops.
 */
static int
net_login_refused(const struct msg *m)
{
	static const char *const codes[] = {
	        "name_taken",         "wrong_password", "login_throttled",
	        "insecure_transport", "account_closed", "name_reserved",
	        "bad_value",          "weak_password",  "rate_limited"};
	const char *code = json_string_value(json_object_get(m->root, "code"));
	const char *req = json_string_value(json_object_get(m->root, "request"));
	int reg = req != NULL && strcmp(req, "register") == 0;

	for (size_t i = 0; code != NULL && i < sizeof codes / sizeof codes[0]; i++)
		if (strcmp(code, codes[i]) == 0)
			/* a bad name or password, and the accounts a minute of an address, only in
			 * the answer to a register */
			return (strcmp(code, "bad_value") != 0 &&
			        strcmp(code, "weak_password") != 0 &&
			        strcmp(code, "rate_limited") != 0) ||
			       reg;
	return 0;
}

/* A TLS failure that trying again would not mend: say why, and end (status 1). */
static void
net_tls_fatal(struct client_net *net, const char *text)
{
	struct client *c = net->c;

	net_drop(net);
	c->st.link = CLIENT_LINK_FAILED;
	client_notice(c, 1, "TLS: %s", text);
	client_quit(c, 1);
}

/*
 * The server's certificate is neither verified nor pinned (err->text says so, with its
 * fingerprint): the full screen asks; --plain accepts it with --tls-accept-new and otherwise
 * refuses, saying how to accept it. Accepted, it is pinned and the connection goes on. Returns 0
 * to go on, -1 when the connection is gone.
 */
static int
net_tls_new_host(struct client_net *net, const struct tls_error *asked)
{
	struct client *c = net->c;
	struct tls_error err;
	char question[sizeof asked->text + 64], shown[TLS_FINGERPRINT_TEXT_LEN + 1];
	int yes;

	if (c->opt.tls.accept_new) {
		yes = 1;
	} else if (c->view != NULL && c->view->ask != NULL) {
		snprintf(question, sizeof question, "%s. Trust it?", asked->text);
		yes = c->view->ask(c, question);
	} else {
		snprintf(question, sizeof question,
		         "%s (run again with --tls-accept-new to accept it)", asked->text);
		net_tls_fatal(net, question);
		return -1;
	}
	if (!yes) {
		net_tls_fatal(net, "the server's certificate was not accepted");
		return -1;
	}
	if (net->conn == NULL)
		return -1;
	if (tls_link_trust(net->conn->tls, &err) < 0) {
		net_tls_fatal(net, err.text);
		return -1;
	}
	client_notice(c, 0, "Pinned the certificate of %s:%d (%s).", c->opt.host, c->opt.port,
	              tls_fingerprint_text(tls_conn_fingerprint(net->conn->tls->conn), shown,
	                                   sizeof shown));
	return 0;
}

/* A TLS read: plaintext into the framer. Returns 0 to go on, -1 when the connection is gone. */
static int
net_tls_read(struct client_net *net, struct net_conn *conn, size_t n)
{
	struct tls_error err;
	int rc = tls_link_read(conn->tls, n, &conn->framer, &err);

	switch (rc) {
	case 0:
		return 0;
	case TLS_ENEWHOST:
		return net_tls_new_host(net, &err);
	case TLS_ECLOSED:
		net_lost(net, UV_EOF);
		return -1;
	case TLS_EPROTO:
		if (tls_conn_is_open(conn->tls->conn)) {
			client_notice(net->c, 1, "TLS: %s", err.text);
			net_lost(net, UV_EPROTO);
			return -1;
		}
		break;
	default:
		break;
	}
	if (rc == TLS_EHANDSHAKE && conn->first == '{') {
		/* a JSON line where a ServerHello was due: hokitod's port in clear */
		char text[400];

		snprintf(text, sizeof text,
		         "%s:%d does not speak TLS: remove --tls (and the hokitos:// of --host).",
		         net->c->opt.host, net->c->opt.port);
		net_drop(net);
		net->c->st.link = CLIENT_LINK_FAILED;
		client_notice(net->c, 1, "%s", text);
		client_quit(net->c, 1);
		return -1;
	}
	net_tls_fatal(net, err.text);
	return -1;
}

static void read_cb(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);

/*
 * A connection in clear ended before the server said a word. A hokitod port in clear answers
 * every hello; one that speaks TLS takes the hello for a broken handshake and closes without
 * one. Ask once: a new connection sends a ClientHello (nothing is checked, nothing else is
 * sent), and a port that answers with TLS records is one that speaks TLS (net_probe_read()).
 * Returns 0 when the question is on its way, -1 when it cannot be asked (asked already).
 */
static int
net_probe_start(struct client_net *net)
{
	struct tls_client_config cfg = {NULL, NULL, 1};
	struct tls_error err;

	if (net->probed || net->ever_welcomed || net->c->opt.tls.tls)
		return -1;
	net->probed = 1;
	if (net->probe_tls == NULL && tls_client_create(&net->probe_tls, &cfg, &err) < 0)
		return -1;
	net_drop(net);
	net_connect(net, 1);
	return 0;
}

/* What the port answered the ClientHello of net_probe_start(): TLS records (a handshake or an
 * alert: 0x16 or 0x15, then version 3) or anything else. */
static void
net_probe_read(struct client_net *net, struct net_conn *conn, ssize_t nread)
{
	struct client *c = net->c;

	if (nread > 0 && (conn->first == 0x16 || conn->first == 0x15) &&
	    (unsigned char)conn->tls->rbuf[1] == 0x03) {
		net_drop(net);
		c->st.link = CLIENT_LINK_FAILED;
		client_notice(c, 1, "%s:%d speaks TLS: add --tls (or give --host hokitos://%s:%d).",
		              c->opt.host, c->opt.port, c->opt.host, c->opt.port);
		client_quit(c, 1);
		return;
	}
	if (nread != 0)
		net_lost(net, UV_EOF); /* not TLS either: as the first connection ended */
}

static void
read_cb(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
	struct net_conn *conn = container_of(stream, struct net_conn, tcp);
	struct client_net *net = conn->net;
	const char *line;
	size_t len;
	int rc;

	if (net == NULL)
		return;
	if (nread > 0 && conn->got == 0)
		conn->first =
		        (unsigned char)(conn->tls != NULL ? conn->tls->rbuf[0] : buf->base[0]);
	if (nread > 0)
		conn->got += (size_t)nread;
	if (conn->probe) {
		net_probe_read(net, conn, nread);
		return;
	}
	if (nread < 0) {
		if (nread == UV_EOF && conn->got == 0 && conn->tls == NULL &&
		    net_probe_start(net) == 0)
			return;
		net_lost(net, (int)nread);
		return;
	}
	if (conn->tls != NULL) {
		(void)buf;
		if (net_tls_read(net, conn, (size_t)nread) < 0)
			return;
	} else {
		framer_commit(&conn->framer, (size_t)nread);
	}
	while (conn->net != NULL && (rc = framer_next(&conn->framer, &line, &len)) != 0) {
		struct msg m;
		struct msg_error err;
		if (rc < 0) {
			client_notice(net->c, 1, "The server sent a line over the limit.");
			net_lost(net, UV_EPROTO);
			return;
		}
		if (len == 0)
			continue;
		if (msg_decode(&m, line, len, &err) < 0 && m.root == NULL) {
			/* Not JSON at all: say so and go on with the next line. */
			client_notice(net->c, 1, "Unreadable line from the server: %s", err.text);
			msg_clear(&m);
			continue;
		}
		if (m.type == MSG_WELCOME)
			net_welcome(net, &m);
		net->ops->message(net->c, &m);
		if (m.type == MSG_ERROR && !net->welcomed && net_login_refused(&m)) {
			/* the view asks again, the connection waiting for the answer; or it cannot
			 * (--plain from a script): said by the message's notice, the client stops
			 */
			const json_t *retry = json_object_get(m.root, "retry_ms");
			net->asking = 1; /* as in net_hello() */
			if (!client_login_ask(
			            net->c, json_string_value(json_object_get(m.root, "code")),
			            json_is_integer(retry) ? (int64_t)json_integer_value(retry)
			                                   : 0)) {
				net->asking = 0;
				msg_clear(&m);
				client_quit(net->c, 1);
				return;
			}
		}
		msg_clear(&m);
	}
}

static void
connect_cb(uv_connect_t *req, int status)
{
	struct net_conn *conn = container_of(req, struct net_conn, connect);
	struct client_net *net = conn->net;

	if (net == NULL)
		return; /* let go of while connecting; already closing */
	if (status < 0) {
		net_lost(net, status);
		return;
	}
	uv_tcp_nodelay(&conn->tcp, 1);
	uv_tcp_keepalive(&conn->tcp, 1, 30);
	if (conn->probe) {
		/* a ClientHello only: whatever the port answers tells whether it speaks TLS */
		conn->tls = tls_link_create((uv_stream_t *)&conn->tcp, net->probe_tls,
		                            net->c->opt.host, net->c->opt.port);
		status = uv_read_start((uv_stream_t *)&conn->tcp, alloc_cb, read_cb);
		if (status < 0)
			net_lost(net, status);
		return;
	}
	if (net->tls != NULL) {
		if (net->c->opt.tls.insecure)
			client_notice(net->c, 1,
			              "--tls-insecure: the server's certificate is not checked; "
			              "anyone on the way can read and change this connection (for "
			              "tests only)");
		conn->tls = tls_link_create((uv_stream_t *)&conn->tcp, net->tls, net->c->opt.host,
		                            net->c->opt.port);
	}
	status = uv_read_start((uv_stream_t *)&conn->tcp, alloc_cb, read_cb);
	if (status < 0) {
		net_lost(net, status);
		return;
	}
	net_hello(net);
}

/* Resolve host:port: a literal address, or a name through the system resolver. */
static int
net_resolve(const struct client *c, struct sockaddr_storage *ss)
{
	struct addrinfo hints, *res = NULL;
	uv_getaddrinfo_t req;
	char port[16];
	int rc;

	if (uv_ip4_addr(c->opt.host, c->opt.port, (struct sockaddr_in *)ss) == 0)
		return 0;
	if (uv_ip6_addr(c->opt.host, c->opt.port, (struct sockaddr_in6 *)ss) == 0)
		return 0;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof port, "%d", c->opt.port);
	rc = uv_getaddrinfo(c->loop, &req, NULL, c->opt.host, port, &hints);
	if (rc < 0)
		return rc;
	res = req.addrinfo;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	uv_freeaddrinfo(res);
	return 0;
}

static void
net_connect(struct client_net *net, int probe)
{
	struct client *c = net->c;
	struct sockaddr_storage ss;
	struct net_conn *conn;
	int rc;

	rc = net_resolve(c, &ss);
	if (rc < 0) {
		net_lost(net, rc);
		return;
	}
	/* a password in clear to another machine: refused before a byte is sent */
	net->password_ok = tls_link_password_ok((const struct sockaddr *)&ss, c->opt.tls.tls,
	                                        c->opt.allow_insecure);
	if (!net->password_ok && (c->opt.password != NULL || c->opt.login || c->opt.register_new)) {
		c->st.link = CLIENT_LINK_FAILED;
		client_notice(c, 1, CLIENT_INSECURE_TEXT, c->opt.host, c->opt.port);
		client_quit(c, 2);
		return;
	}
	conn = xcalloc(1, sizeof *conn);
	framer_init(&conn->framer, PROTOCOL_SERVER_LINE_MAX);
	conn->net = net;
	conn->probe = probe;
	conn->first = -1;
	uv_tcp_init(c->loop, &conn->tcp);
	net->conn = conn;
	rc = uv_tcp_connect(&conn->connect, &conn->tcp, (const struct sockaddr *)&ss, connect_cb);
	if (rc < 0)
		net_lost(net, rc);
}

static void
retry_cb(uv_timer_t *t)
{
	struct client_net *net = container_of(t, struct client_net, retry);

	if (!net->stopping && net->conn == NULL)
		net_connect(net, 0);
}

static void
retry_close_cb(uv_handle_t *h)
{
	struct client_net *net = container_of(h, struct client_net, retry);

	tls_client_free(net->tls);
	tls_client_free(net->probe_tls);
	free(net);
}

int
client_net_start(struct client *c, const struct client_net_ops *ops)
{
	struct client_net *net = xcalloc(1, sizeof *net);

	net->c = c;
	net->ops = ops;
	uv_timer_init(c->loop, &net->retry);
	c->net = net;
	if (c->opt.tls.tls) {
		struct tls_error err;

		if (tls_link_client_create(&net->tls, &c->opt.tls, &err) < 0) {
			c->st.link = CLIENT_LINK_FAILED;
			client_notice(c, 1, "TLS: %s", err.text);
			client_quit(c, 1);
			return -1;
		}
	}
	if (c->opt.resume) {
		int account = 0;
		int wants_account = c->opt.password != NULL || c->opt.login || c->opt.register_new;

		/* --login and --register win over a guest's session stored for the name (and a
		 * registration over any): only an account's is resumed by them */
		if (client_session_load(c->opt.host, c->opt.port, c->opt.name, net->token,
		                        sizeof net->token, &account) == 0 &&
		    wants_account && (!account || c->opt.register_new))
			net->token[0] = '\0';
	}
	net_connect(net, 0);
	return 0;
}

int
client_net_send(struct client *c, struct wire *w)
{
	struct client_net *net = c->net;

	if (net == NULL || net->conn == NULL || !net->welcomed) {
		wire_unref(w);
		return UV_ENOTCONN;
	}
	return conn_write(net->conn, w);
}

int
client_net_password_ok(const struct client *c)
{
	return c->net == NULL || c->net->password_ok;
}

int
client_net_up(const struct client *c)
{
	return c->net != NULL && c->net->conn != NULL && c->net->welcomed;
}

const char *
client_net_token(const struct client *c)
{
	return c->net != NULL ? c->net->token : "";
}

void
client_net_token_refused(struct client *c)
{
	struct client_net *net = c->net;

	if (net == NULL || net->conn == NULL)
		return;
	net->token[0] = '\0';
	client_session_forget(c->opt.host, c->opt.port, c->opt.name);
	/* A spectator keeps the game on screen: the new session watches it again. */
	if (c->st.table.active && (c->st.table.seat >= 0 || !c->watch_target[0])) {
		client_state_table_clear(&c->st);
		client_notice(c, 1, "The server no longer knows our session: the game is lost.");
	}
	net_hello(net);
}

void
client_net_bye(struct client *c, const char *reason)
{
	struct client_net *net = c->net;

	if (net == NULL)
		return;
	if (strcmp(reason, "replaced") == 0) {
		net->replaced = 1;
		client_notice(c, 1, "This session was taken over by another hokito; closing.");
	} else if (strcmp(reason, "idle") == 0) {
		net->idle = 1;
	} else if (strcmp(reason, "banned") == 0 || strcmp(reason, "closed") == 0) {
		/* the account logs in no more: trying again would not mend it */
		net->replaced = 1;
		client_notice(c, 1, "%s",
		              reason[0] == 'b' ? "The operator banned this account; closing."
		                               : "This account is closed; closing.");
	} else if (strcmp(reason, "password_reset") == 0 ||
	           strcmp(reason, "password_changed") == 0) {
		/* the session and the password are void: the full screen asks for the new one at
		 * the next connection; --plain stops (a script's password file is out of date) */
		net->token[0] = '\0';
		client_session_forget(c->opt.host, c->opt.port, c->opt.name);
		if (c->opt.password != NULL)
			memset(c->opt.password, 0, strlen(c->opt.password));
		free(c->opt.password);
		c->opt.password = NULL;
		c->opt.login = 1;
		net->replaced = c->opt.plain;
		client_notice(c, 1, "%s",
		              strcmp(reason, "password_reset") == 0
		                      ? "The operator reset this account's password: log "
		                        "in again with the new one."
		                      : "This account's password was changed elsewhere: "
		                        "log in again with the new one.");
	} else {
		client_notice(c, 1, "The server is shutting down; we will reconnect.");
	}
}

void
client_net_wake(struct client *c)
{
	struct client_net *net = c->net;

	if (net == NULL || !net->idle)
		return;
	net->idle = 0;
	net->attempts = 0;
	client_notice(c, 0, "Reconnecting...");
	uv_timer_start(&net->retry, retry_cb, 0, 0);
}

void
client_net_login(struct client *c)
{
	struct client_net *net = c->net;

	if (net == NULL)
		return;
	net->asking = 0;
	net->token[0] = '\0';
	if (net->conn != NULL && !net->welcomed) {
		if (net->conn->ready)
			net_hello(net); /* else connect_cb() says it */
		return;
	}
	/* greeted already (a guest logs in), or between connections: a new one, at once */
	c->npending = 0;
	net_drop(net);
	net->attempts = 0;
	net->idle = 0;
	c->st.link = CLIENT_LINK_CONNECTING;
	uv_timer_start(&net->retry, retry_cb, 0, 0);
	client_update(c);
}

void
client_net_stop(struct client *c)
{
	struct client_net *net = c->net;

	if (net == NULL)
		return;
	c->net = NULL;
	net->stopping = 1;
	if (net->conn != NULL && net->conn->tls != NULL)
		tls_link_shutdown(net->conn->tls);
	net_drop(net);
	uv_timer_stop(&net->retry);
	uv_close((uv_handle_t *)&net->retry, retry_close_cb);
}
