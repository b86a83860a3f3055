/*
 * client-main.c: main() of hokito, the terminal client: the command line, the event loop, and the
 * wiring of the layers (see client.h), which is why it is the one file that calls them all.
 *
 * This file owns struct client for the life of the process, the loop, the signal watchers
 * (SIGINT, SIGTERM and SIGHUP end the program cleanly, with the terminal restored) and the lobby
 * timer. It picks the view (the full screen, or --plain), starts the network layer with
 * client_msg_handle() as the handler of its messages, and sets c->stop, its part of
 * client_quit(). What the command line asked for (create, join, quick, watch) runs once the
 * server has greeted us (client-msg.c). It never draws and never touches the socket itself.
 */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "hokito-config.h"
#include "protocol.h"

#define LOBBY_REFRESH_MS 2000

static void
usage(FILE *f)
{
	fputs("usage: hokito [OPTIONS] [COMMAND]   play or watch HOKITO and OXONO on hokitod\n"
	      "Commands (without one, or with lobby, hokito opens the lobby):\n"
	      "  create [hokito|oxono] [--variant V] [--seat S] [--private] [--clock M+S]\n"
	      "         [--computer LEVEL] [--rated]  (the computer: level 1 to 8)\n"
	      "  join ID|CODE        take the open seat of a game (id, or invite code)\n"
	      "  quick [hokito|oxono] [--variant V] [--clock M+S] [--rated]  pair quickly\n"
	      "  watch ID|CODE       watch a game\n"
	      "Options:\n"
	      "  --host ADDR         the server: HOST[:PORT], [IPV6]:PORT, hokitos://HOST:PORT\n"
	      "                      (TLS); default " CLIENT_DEFAULT_HOST
	      ", port 7777 (--port P: another)\n"
	      "  --name NAME         your display name (default: $USER)\n"
	      "  --plain             line mode (no curses); exits 60 s after losing the server\n"
	      "  --no-color, --no-bell  no colours (NO_COLOR set does it too); no bell\n"
	      "  --new-session       do not resume the session stored for this name\n"
	      "  --login             log in to the account --name: its password is asked\n"
	      "  --password-file F   the password from F ($HOKITO_PASSWORD too); --register\n"
	      "  --allow-insecure-passwords  send it in clear to a server not on this machine\n"
	      "  --tls               TLS: the system's CAs (--tls-ca FILE: its own) check the\n"
	      "                      server, else it is pinned on first use (--tls-accept-new)\n"
	      "Examples:\n"
	      "  hokito --name alice --login              log in to alice's account\n"
	      "  hokito --host hokitos://example.org:7778 join g12   join g12 over TLS\n"
	      "  echo list | hokito --plain               list the games, line by line\n"
	      "-h, --help: this; -V, --version. Keys: ? in a game; --plain: type help.\n",
	      f);
}

/* Fetch an option's value: "--opt value" or "--opt=value". */
static const char *
opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, n) == 0 && a[n] == '=')
		return a + n + 1;
	if (strcmp(a, name) == 0) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "hokito: %s needs a value\n", name);
			exit(2);
		}
		return argv[++*i];
	}
	return NULL;
}

static int
is_opt(const char *a, const char *name)
{
	size_t n = strlen(name);

	return strcmp(a, name) == 0 || (strncmp(a, name, n) == 0 && a[n] == '=');
}

/*
 * The password of --password-file: its first line, without the line's end. Returns a new string;
 * exits with status 2 when the file cannot be read.
 */
static char *
password_read(const char *path)
{
	char buf[PROTOCOL_PASSWORD_MAX + 2];
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL || fgets(buf, sizeof buf, f) == NULL) {
		fprintf(stderr, "hokito: --password-file: cannot read '%s'\n", path);
		exit(2);
	}
	fclose(f);
	n = strcspn(buf, "\r\n");
	buf[n] = '\0';
	return strdup(buf);
}

/*
 * Ask for a password on the terminal, without echo (what, "password", says which), before the
 * loop starts. Returns 0 with a new string in *out, or -1 when standard input is not a terminal.
 */
static int
password_ask(const char *what, char **out)
{
	char buf[PROTOCOL_PASSWORD_MAX + 2];
	int rc;

	if (!isatty(STDIN_FILENO))
		return -1;
	fprintf(stderr, "hokito: %s: ", what);
	fflush(stderr);
	rc = client_password_read(STDIN_FILENO, buf, sizeof buf);
	fputc('\n', stderr);
	if (rc < 0)
		return -1;
	*out = strdup(buf);
	memset(buf, 0, sizeof buf);
	return 0;
}

/* Parse the command line into o. Exits with status 2 on bad usage. */
static void
parse_args(int argc, char **argv, struct client_options *o)
{
	const char *user = getenv("USER");
	const char *nc = getenv("NO_COLOR");
	const char *seat = NULL;
	const char *pos[3] = {NULL, NULL, NULL}, *v0;
	int npos = 0, url_port = 0, port_given = 0;

	memset(o, 0, sizeof *o);
	o->host = CLIENT_DEFAULT_HOST;
	o->port = CLIENT_DEFAULT_PORT;
	o->name = user != NULL && user[0] != '\0' ? user : "player";
	o->resume = 1;
	o->seat = -1;
	o->no_color = nc != NULL && nc[0] != '\0';
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			exit(0);
		} else if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
			printf("hokito %s (protocol %d)\n", HOKITO_VERSION, PROTOCOL_VERSION);
			exit(0);
		} else if (is_opt(a, "--host")) {
			static char
			        url_host[256]; /* the host of the address, without its brackets */

			v = opt_value(argc, argv, &i, "--host");
			if (tls_link_address(v, url_host, sizeof url_host, &url_port, &o->tls.tls) <
			    0) {
				fprintf(stderr,
				        "hokito: --host: '%s' is not a server address (HOST, "
				        "HOST:PORT, [IPV6]:PORT, hokito://HOST:PORT or "
				        "hokitos://HOST:PORT for TLS)\n",
				        v);
				exit(2);
			}
			o->host = url_host;
		} else if (strcmp(a, "--tls") == 0) {
			o->tls.tls = 1;
		} else if (is_opt(a, "--tls-ca")) {
			o->tls.ca_file = opt_value(argc, argv, &i, "--tls-ca");
			o->tls.tls = 1;
		} else if (strcmp(a, "--tls-accept-new") == 0) {
			o->tls.accept_new = 1;
			o->tls.tls = 1;
		} else if (strcmp(a, "--tls-insecure") == 0) {
			o->tls.insecure = 1;
			o->tls.tls = 1;
		} else if (is_opt(a, "--port")) {
			char *end;
			v = opt_value(argc, argv, &i, "--port");
			errno = 0;
			long p = strtol(v, &end, 10);
			if (errno != 0 || *end != '\0' || p < 1 || p > 65535) {
				fprintf(stderr, "hokito: --port: '%s' is not a port (1-65535)\n",
				        v);
				exit(2);
			}
			o->port = (int)p;
			port_given = 1;
		} else if (is_opt(a, "--name")) {
			o->name = opt_value(argc, argv, &i, "--name");
		} else if (is_opt(a, "--variant")) {
			o->variant = opt_value(argc, argv, &i, "--variant");
		} else if (is_opt(a, "--seat")) {
			seat = opt_value(argc, argv, &i, "--seat");
		} else if (is_opt(a, "--clock")) {
			uint64_t base, inc;
			o->clock = opt_value(argc, argv, &i, "--clock");
			if (protocol_clock_parse(o->clock, &base, &inc) < 0) {
				fprintf(stderr,
				        "hokito: --clock: '%s' is not a time control (none, or "
				        "M+S: "
				        "minutes and increment seconds, e.g. 5+3)\n",
				        o->clock);
				exit(2);
			}
		} else if (is_opt(a, "--computer")) {
			v = opt_value(argc, argv, &i, "--computer");
			if (protocol_level_parse(v, &o->computer) < 0) {
				fprintf(stderr,
				        "hokito: --computer: '%s' is not a level (%d to %d)\n", v,
				        PROTOCOL_LEVEL_MIN, PROTOCOL_LEVEL_MAX);
				exit(2);
			}
		} else if (strcmp(a, "--private") == 0) {
			o->private_game = 1;
		} else if (strcmp(a, "--plain") == 0) {
			o->plain = 1;
		} else if (strcmp(a, "--no-color") == 0 || strcmp(a, "--no-colour") == 0) {
			o->no_color = 1;
		} else if (strcmp(a, "--no-bell") == 0) {
			o->no_bell = 1;
		} else if (strcmp(a, "--new-session") == 0) {
			o->resume = 0;
		} else if (is_opt(a, "--password-file")) {
			free(o->password);
			o->password = password_read(opt_value(argc, argv, &i, "--password-file"));
		} else if (strcmp(a, "--allow-insecure-passwords") == 0) {
			o->allow_insecure = 1;
		} else if (strcmp(a, "--register") == 0) {
			o->register_new = 1;
		} else if (strcmp(a, "--login") == 0) {
			o->login = 1;
		} else if (strcmp(a, "--rated") == 0) {
			o->rated = 1;
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "hokito: unknown option '%s' (see hokito --help)\n", a);
			exit(2);
		} else if (npos < 3) {
			pos[npos++] = a;
		} else {
			fprintf(stderr, "hokito: too many arguments (see hokito --help)\n");
			exit(2);
		}
	}
	if (o->password == NULL && (v0 = getenv("HOKITO_PASSWORD")) != NULL && v0[0] != '\0')
		o->password = strdup(v0);
	/* the full screen asks for a password it was not given; --plain takes it from the
	 * terminal (without echo) when it is one, else a script must give it */
	if ((o->login || o->register_new) && o->password == NULL && o->plain &&
	    password_ask(o->register_new ? "new password" : "password", &o->password) < 0) {
		fprintf(stderr,
		        "hokito: %s needs a password (--password-file or "
		        "$HOKITO_PASSWORD)\n",
		        o->register_new ? "--register" : "--login");
		exit(2);
	}
	o->login = (o->login || o->register_new) && o->password == NULL;
	if (url_port != 0 && port_given && url_port != o->port) {
		fprintf(stderr, "hokito: --host names port %d and --port %d: give one\n", url_port,
		        o->port);
		exit(2);
	}
	if (url_port != 0)
		o->port = url_port;
	if (protocol_name_check(o->name) < 0) {
		/* the name may come from $USER: say where, and how to give another */
		if (o->name == user)
			fprintf(stderr,
			        "hokito: $USER ('%.40s') is not a name the server takes "
			        "(" PROTOCOL_NAME_RULE "): give one with --name\n",
			        user);
		else
			fprintf(stderr, "hokito: --name: " PROTOCOL_NAME_RULE "\n");
		exit(2);
	}
	if (npos == 0)
		o->action = CLIENT_ACTION_LOBBY;
	else if (strcmp(pos[0], "create") == 0 || strcmp(pos[0], "quick") == 0) {
		o->action = pos[0][0] == 'c' ? CLIENT_ACTION_CREATE : CLIENT_ACTION_QUICK;
		o->kind = GAME_HOKITO;
		if (npos > 1 && game_kind_parse(pos[1], &o->kind) < 0) {
			fprintf(stderr, "hokito: %s: '%s' is not a game (hokito or oxono)\n",
			        pos[0], pos[1]);
			exit(2);
		}
		if (npos > 2) {
			fprintf(stderr, "hokito: %s: too many arguments\n", pos[0]);
			exit(2);
		}
	} else if (strcmp(pos[0], "join") == 0 || strcmp(pos[0], "watch") == 0) {
		o->action = pos[0][0] == 'j' ? CLIENT_ACTION_JOIN : CLIENT_ACTION_WATCH;
		if (npos != 2) {
			fprintf(stderr, "hokito: %s needs one game id or invite code\n", pos[0]);
			exit(2);
		}
		o->target = pos[1];
	} else if (strcmp(pos[0], "lobby") == 0) {
		o->action = CLIENT_ACTION_LOBBY;
		if (npos > 1) {
			fprintf(stderr, "hokito: lobby takes no arguments\n");
			exit(2);
		}
	} else {
		fprintf(stderr, "hokito: unknown command '%s' (see hokito --help)\n", pos[0]);
		exit(2);
	}
	/* The options of a game to create (or, --variant and --clock, to pair for) go with that
	 * command only: elsewhere they would do nothing. */
	if (o->rated && o->action != CLIENT_ACTION_CREATE && o->action != CLIENT_ACTION_QUICK) {
		fprintf(stderr, "hokito: --rated goes with create or quick (see hokito --help)\n");
		exit(2);
	}
	if (o->action != CLIENT_ACTION_CREATE &&
	    (seat != NULL || o->private_game || o->computer > 0)) {
		fprintf(stderr, "hokito: %s goes with create (see hokito --help)\n",
		        seat != NULL      ? "--seat"
		        : o->private_game ? "--private"
		                          : "--computer");
		exit(2);
	}
	if (o->action != CLIENT_ACTION_CREATE && o->action != CLIENT_ACTION_QUICK &&
	    (o->variant != NULL || o->clock != NULL)) {
		fprintf(stderr, "hokito: %s goes with create or quick (see hokito --help)\n",
		        o->variant != NULL ? "--variant" : "--clock");
		exit(2);
	}
	if (o->variant != NULL && game_variant_check(o->kind, o->variant, NULL) < 0) {
		fprintf(stderr, "hokito: --variant: '%s' is not a variant of %s\n", o->variant,
		        game_kind_name(o->kind));
		exit(2);
	}
	if (seat != NULL && strcmp(seat, "random") != 0 &&
	    game_side_parse(o->kind, seat, &o->seat) < 0) {
		fprintf(stderr, "hokito: --seat: '%s' is not a seat of %s (%s, %s or random)\n",
		        seat, game_kind_name(o->kind), game_side_name(o->kind, 0),
		        game_side_name(o->kind, 1));
		exit(2);
	}
}

/* Refresh the lobby while it is on screen. */
static void
lobby_cb(uv_timer_t *t)
{
	struct client *c = container_of(t, struct client, lobby_timer);

	if (!c->st.table.active && client_net_up(c) && c->npending == 0)
		client_request_list(c);
}

static void
signal_cb(uv_signal_t *h, int signum)
{
	struct client *c = h->data;

	client_quit(c, 128 + signum);
}

/* client_quit()'s part that only main() knows: the connection, the evaluations, the timers. */
static void
quit_cb(struct client *c)
{
	client_net_stop(c);
	client_eval_stop(c);
	uv_close((uv_handle_t *)&c->lobby_timer, NULL);
	for (int i = 0; i < 3; i++)
		uv_close((uv_handle_t *)&c->sig[i], NULL);
}

/* The network layer hands each message to the messages' layer. */
static const struct client_net_ops net_ops = {
        .message = client_msg_handle,
};

int
main(int argc, char **argv)
{
	static struct client client; /* large: the move list and lobby live here */
	struct client *c = &client;
	static const int signals[3] = {SIGINT, SIGTERM, SIGHUP};
	uv_loop_t loop;
	int rc;

	setlocale(LC_ALL, "");
	signal(SIGPIPE, SIG_IGN);
	parse_args(argc, argv, &c->opt);
	client_state_init(&c->st);
	client_alert_init(&c->alert, c->opt.no_bell);
	rc = uv_loop_init(&loop);
	if (rc < 0) {
		fprintf(stderr, "hokito: %s\n", uv_strerror(rc));
		return 1;
	}
	c->loop = &loop;
	c->stop = quit_cb;
	c->view = c->opt.plain ? &client_plain_view : &client_screen_view;
	uv_timer_init(&loop, &c->lobby_timer);
	for (int i = 0; i < 3; i++) {
		uv_signal_init(&loop, &c->sig[i]);
		c->sig[i].data = c;
		uv_signal_start(&c->sig[i], signal_cb, signals[i]);
	}
	if (c->view->start(c) < 0) {
		c->view = NULL;
		client_quit(c, 2);
	} else {
		if (!c->opt.plain)
			uv_timer_start(&c->lobby_timer, lobby_cb, LOBBY_REFRESH_MS,
			               LOBBY_REFRESH_MS);
		client_net_start(c, &net_ops);
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
	free(c->opt.password);
	return c->exit_code;
}
