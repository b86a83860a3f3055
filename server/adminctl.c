/*
 * adminctl.c: `hokitod accounts ...`, the operators' commands on accounts: list, ban, unban,
 * reset-password, set-bot, set-account. It is a client of the running server's admin socket
 * (admin.h), to which it sends one JSON request a line and whose answers it prints. When no server
 * runs (no socket, or nobody answers on it), it opens the store file itself and applies the command
 * there, answering in the same shapes (operators.h; the store's lock keeps a server from starting
 * meanwhile; a server started later ends the sessions of a banned account, operators_restore()).
 *
 * It runs as a short command of its own, not on a server's loop: it may block (a socket read, a
 * password hashed here for the store file). Exit status: 0 done; 1 refused (no such account, a
 * password out of bounds); 2 a bad command line; 3 nothing to work on (no store, the store in
 * use, the socket's permission denied, an answer that never came).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "adminctl.h"
#include "names.h"
#include "operators.h"
#include "password.h"
#include "store-db.h"
#include "xmalloc.h"

#define ADMINCTL_TIMEOUT_MS 30000 /* the longest wait for the server's answer */
#define ADMINCTL_PAGE       1000  /* accounts asked for at once */

enum adminctl_status {
	ADMINCTL_OK = 0,
	ADMINCTL_REFUSED = 1,
	ADMINCTL_USAGE = 2,
	ADMINCTL_UNREACHABLE = 3,
};

/* What the command works on: the server's socket, or the store file when none answers. */
struct adminctl {
	const char *db;               /* the store (--db) */
	const char *socket;           /* the admin socket */
	int fd;                       /* connected to socket, or -1: the store is used */
	struct store_db *store;       /* opened when fd is -1 */
	struct store_write_port port; /* its write port */
	char *in;                     /* the answer being read (owned) */
	size_t nin, cap;
};

static void
adminctl_usage(FILE *f)
{
	fprintf(f,
	        "usage: hokitod accounts [--db PATH] [--admin-socket PATH] COMMAND\n"
	        "  list                   every account: id, name, kind, created, closed/banned\n"
	        "  ban NAME               no more logins; its sessions and games not over end\n"
	        "  unban NAME             it may log in again\n"
	        "  reset-password NAME    a new password, read from a prompt without echo, from\n"
	        "                         --password-file FILE, or from stdin (not a terminal);\n"
	        "                         its sessions end\n"
	        "  set-bot NAME           its player objects say kind \"bot\"\n"
	        "  set-account NAME       ... \"account\" again\n"
	        "It talks to the running server through its admin socket (PATH of --db with\n"
	        "\".sock\"); with no server running it changes the store file itself.\n"
	        "Exit: 0 done, 1 refused (no such account, ...), 2 usage, 3 no server nor store\n"
	        "usable (permission denied, the store in use). See hokitod(8), ADMINISTRATION.\n");
}

/* --- The server's socket ----------------------------------------------------------------- */

/*
 * Connect to the admin socket: 0 (ctl->fd set), 1 when no server answers there (no file, or
 * nobody listening: the store file is used), or -1 after saying why not (exit 3).
 */
static int
adminctl_connect(struct adminctl *ctl)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(ctl->socket) >= sizeof sun.sun_path) {
		fprintf(stderr, "hokitod: the admin socket path is too long: %s\n", ctl->socket);
		return -1;
	}
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", ctl->socket);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		fprintf(stderr, "hokitod: socket: %s\n", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0) {
		ctl->fd = fd;
		return 0;
	}
	close(fd);
	if (errno == ENOENT || errno == ECONNREFUSED)
		return 1;
	if (errno == EACCES || errno == EPERM)
		fprintf(stderr,
		        "hokitod: permission denied on the admin socket %s: run this as the "
		        "server's user or as root\n",
		        ctl->socket);
	else
		fprintf(stderr, "hokitod: cannot connect to the admin socket %s: %s\n", ctl->socket,
		        strerror(errno));
	return -1;
}

/* Send req (borrowed) as one line; read one answer line. Returns a new reference or NULL. */
static json_t *
adminctl_ask_server(struct adminctl *ctl, const json_t *req)
{
	char *line = json_dumps(req, JSON_COMPACT);
	size_t len = strlen(line), off = 0;
	char *nl;

	line = realloc(line, len + 2);
	if (line == NULL)
		abort();
	line[len++] = '\n';
	while (off < len) { /* a server that refused us may have closed: its line is read below */
		ssize_t n = send(ctl->fd, line + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	free(line);
	while ((nl = ctl->nin > 0 ? memchr(ctl->in, '\n', ctl->nin) : NULL) == NULL) {
		struct pollfd p = {.fd = ctl->fd, .events = POLLIN};
		ssize_t n;

		if (ctl->cap - ctl->nin < 4096) {
			ctl->cap = ctl->cap * 2 + 65536;
			ctl->in = xrealloc(ctl->in, ctl->cap);
		}
		if (poll(&p, 1, ADMINCTL_TIMEOUT_MS) == 0) {
			fprintf(stderr, "hokitod: the server did not answer in %d s\n",
			        ADMINCTL_TIMEOUT_MS / 1000);
			return NULL;
		}
		n = read(ctl->fd, ctl->in + ctl->nin, ctl->cap - ctl->nin);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "hokitod: the server closed the admin socket\n");
			return NULL;
		}
		ctl->nin += (size_t)n;
	}
	{
		size_t used = (size_t)(nl - ctl->in) + 1;
		json_t *answer = json_loadb(ctl->in, used - 1, 0, NULL);

		memmove(ctl->in, nl + 1, ctl->nin - used);
		ctl->nin -= used;
		if (answer == NULL)
			fprintf(stderr, "hokitod: the server's answer is no JSON\n");
		return answer;
	}
}

/* --- The store file, when no server runs ------------------------------------------------- */

/* An error answer as the server gives it. A new reference. */
static json_t *
adminctl_error(const char *code, const char *text)
{
	return json_pack("{s:s, s:s, s:s}", "type", "error", "code", code, "text", text);
}

/* store_accounts_page() callback: one row of the list. */
static int
adminctl_row_cb(void *ctx, const struct store_account *a)
{
	json_array_append_new(ctx, operators_account_new(a));
	return 0;
}

/* adminctl_accounts_page()'s walk through the accounts (accounts_load(), in id order). */
struct adminctl_page {
	int64_t after;
	size_t limit;
	json_t *list;
};

static int
adminctl_page_cb(void *ctx, const struct store_account *a)
{
	struct adminctl_page *pg = ctx;

	if (a->id <= pg->after)
		return 0;
	adminctl_row_cb(pg->list, a);
	return json_array_size(pg->list) >= pg->limit; /* enough: stop */
}

/* The accounts after id after, at most limit, appended to list. 0 or a store error. */
static int
adminctl_accounts_page(struct adminctl *ctl, int64_t after, size_t limit, json_t *list,
                       struct store_error *err)
{
	struct adminctl_page pg = {after, limit, list};
	int rc = ctl->port.accounts_load(ctl->port.impl, adminctl_page_cb, &pg, err);

	return rc == STORE_ESTOPPED || rc >= 0 ? 0 : rc;
}

/* adminctl_account_find()'s search by name key. */
struct adminctl_find {
	const char *key;
	struct store_account *out;
};

static int
adminctl_find_cb(void *ctx, const struct store_account *a)
{
	struct adminctl_find *f = ctx;

	if (strcmp(a->key, f->key) != 0)
		return 0;
	*f->out = *a;
	return 1;
}

/* The account of name key into *out: 1, 0 when there is none, or a store error. */
static int
adminctl_account_find(struct adminctl *ctl, const char *key, struct store_account *out,
                      struct store_error *err)
{
	struct adminctl_find f = {key, out};
	int rc = ctl->port.accounts_load(ctl->port.impl, adminctl_find_cb, &f, err);

	return rc == STORE_ESTOPPED ? 1 : rc < 0 ? rc : 0;
}

/*
 * accounts_list on the store file: a page by the primary key, with "next" when more follow, as
 * the server answers it (operators.c checks after and limit for both). A new reference, or NULL
 * after saying why (exit 3).
 */
static json_t *
adminctl_list_store(struct adminctl *ctl, const json_t *req)
{
	json_t *list, *o, *err;
	struct store_error serr;
	int64_t after;
	size_t limit;

	if ((err = operators_list_args(req, &after, &limit)) != NULL)
		return err;
	list = json_array();
	/* one more than asked: whether more follow */
	if (adminctl_accounts_page(ctl, after, limit + 1, list, &serr) < 0) {
		fprintf(stderr, "hokitod: cannot read the accounts: %s\n", serr.text);
		json_decref(list);
		return NULL;
	}
	o = json_pack("{s:s}", "type", "accounts");
	if (json_array_size(list) > limit) {
		json_array_remove(list, limit);
		json_object_set(o, "next", json_object_get(json_array_get(list, limit - 1), "id"));
	}
	json_object_set_new(o, "accounts", list);
	return o;
}

/* The wall clock in Unix milliseconds. */
static int64_t
adminctl_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* store_sessions_load() callback: the tokens of one account's stored sessions. */
struct adminctl_tokens {
	int64_t account;
	char (*tokens)[STORE_TOKEN_MAX];
	size_t n, cap;
};

static int
adminctl_session_cb(void *ctx, const struct store_session *s)
{
	struct adminctl_tokens *t = ctx;

	if (s->account != t->account)
		return 0;
	t->tokens = xgrow(t->tokens, t->n, &t->cap, sizeof *t->tokens, 4);
	snprintf(t->tokens[t->n++], STORE_TOKEN_MAX, "%s", s->token);
	return 0;
}

/*
 * Forget the stored sessions of account id (a password reset): their tokens resume nothing
 * after the next start. Returns how many, or a store error.
 */
static int
adminctl_sessions_forget(const struct store_write_port *port, int64_t id, struct store_error *err)
{
	struct adminctl_tokens t = {.account = id};
	int rc = port->sessions_load(port->impl, adminctl_session_cb, &t, err);

	for (size_t i = 0; rc >= 0 && i < t.n; i++)
		rc = port->session_remove(port->impl, t.tokens[i], err);
	free(t.tokens);
	return rc < 0 ? rc : (int)t.n;
}

/*
 * Answer req on the store file as the server would (operators.c), the change committed. Returns
 * a new reference, or NULL after saying why (exit 3).
 */
static json_t *
adminctl_ask_store(struct adminctl *ctl, const json_t *req)
{
	const char *type = json_string_value(json_object_get(req, "type"));
	const char *name = json_string_value(json_object_get(req, "name"));
	struct store_account row, *a = &row;
	struct store_error err;
	char key[STORE_ACCOUNT_NAME_MAX];
	uint64_t ticket;
	int sessions = 0, rc = 0;

	if (strcmp(type, "accounts_list") == 0)
		return adminctl_list_store(ctl, req);
	if (names_account_valid(name) && names_account_key(name, key, sizeof key) >= 0 &&
	    (rc = adminctl_account_find(ctl, key, &row, &err)) < 0) {
		fprintf(stderr, "hokitod: cannot read the account: %s\n", err.text);
		return NULL;
	}
	if (rc == 0) {
		char text[128];

		snprintf(text, sizeof text, "no account is named '%.64s'",
		         name != NULL ? name : "");
		return adminctl_error("no_such_account", text);
	}
	if (strcmp(type, "account_ban") == 0) {
		if (a->banned_ms == 0)
			a->banned_ms = adminctl_wall_ms();
	} else if (strcmp(type, "account_unban") == 0) {
		a->banned_ms = 0;
	} else if (strcmp(type, "account_set_kind") == 0) {
		snprintf(a->kind, sizeof a->kind, "%s",
		         json_string_value(json_object_get(req, "kind")));
	} else { /* account_reset_password: hashed here, no server's loop to spare */
		const char *pw = json_string_value(json_object_get(req, "password"));
		char hash[PASSWORD_HASH_SIZE];
		int weak = password_weak(pw, strlen(pw), a->name);

		if (weak < 0)
			return adminctl_error("weak_password", password_weak_text(weak));
		if (password_hash(pw, strlen(pw), hash) < 0)
			return adminctl_error("internal", "the password could not be hashed");
		snprintf(a->hash, sizeof a->hash, "%s", hash);
		if ((sessions = adminctl_sessions_forget(&ctl->port, a->id, &err)) < 0) {
			fprintf(stderr, "hokitod: cannot forget its sessions: %s\n", err.text);
			return NULL;
		}
	}
	if (ctl->port.account_update(ctl->port.impl, a, &err) < 0 ||
	    ctl->port.commit(ctl->port.impl, &ticket, &err) < 0) { /* no start(): durable now */
		fprintf(stderr, "hokitod: cannot write the account: %s\n", err.text);
		return NULL;
	}
	return operators_ok_new(type, a, (unsigned)sessions, 0);
}

/* Open the store: 0, or -1 after saying why (exit 3). */
static int
adminctl_open_store(struct adminctl *ctl)
{
	struct store_db_options o = {STORE_FSYNC_ALWAYS, 1, 1};
	struct store_error err;
	int rc = store_db_open(ctl->db, &o, &ctl->store, &err);

	if (rc == STORE_ENOTFOUND) {
		fprintf(stderr,
		        "hokitod: no server answers on %s and there is no store at %s (--db)\n",
		        ctl->socket, ctl->db);
		return -1;
	}
	if (rc < 0) {
		fprintf(stderr,
		        "hokitod: no server answers on %s and the store is not usable: %s%s\n",
		        ctl->socket, err.text,
		        rc == STORE_ECONFLICT
		                ? " (in use: is a server running with another --admin-socket?)"
		                : "");
		return -1;
	}
	store_db_write_port(ctl->store, &ctl->port);
	return 0;
}

/* req (borrowed) to the server, or to the store file. A new reference, or NULL (exit 3). */
static json_t *
adminctl_ask(struct adminctl *ctl, const json_t *req)
{
	return ctl->fd >= 0 ? adminctl_ask_server(ctl, req) : adminctl_ask_store(ctl, req);
}

/* --- Printing ---------------------------------------------------------------------------- */

/* Unix milliseconds as "2026-11-26 11:23" (UTC) into buf. */
static const char *
adminctl_time(json_int_t ms, char *buf, size_t size)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms <= 1 || gmtime_r(&t, &tm) == NULL)
		snprintf(buf, size, "-");
	else
		strftime(buf, size, "%Y-%m-%d %H:%M", &tm);
	return buf;
}

/* One row of the list. */
static void
adminctl_print_account(const json_t *a)
{
	json_int_t closed = json_integer_value(json_object_get(a, "closed_ms"));
	json_int_t banned = json_integer_value(json_object_get(a, "banned_ms"));
	char created[32], when[32], state[80];

	if (closed != 0 && banned != 0)
		snprintf(state, sizeof state, "closed, banned %s",
		         adminctl_time(banned, when, sizeof when));
	else if (banned != 0)
		snprintf(state, sizeof state, "banned %s",
		         adminctl_time(banned, when, sizeof when));
	else if (closed != 0)
		snprintf(state, sizeof state, "closed %s",
		         adminctl_time(closed, when, sizeof when));
	else
		snprintf(state, sizeof state, "open");
	printf("%-6lld %-20s %-8s %-16s %s\n",
	       (long long)json_integer_value(json_object_get(a, "id")),
	       json_string_value(json_object_get(a, "name")),
	       json_string_value(json_object_get(a, "kind")),
	       adminctl_time(json_integer_value(json_object_get(a, "created_ms")), created,
	                     sizeof created),
	       state);
}

/* An error answer on stderr. Returns the exit status. */
static int
adminctl_refused(const json_t *answer)
{
	const char *code = json_string_value(json_object_get(answer, "code"));

	fprintf(stderr, "hokitod: %s (%s)\n", json_string_value(json_object_get(answer, "text")),
	        code != NULL ? code : "error");
	return code != NULL && strcmp(code, "permission_denied") == 0 ? ADMINCTL_UNREACHABLE
	                                                              : ADMINCTL_REFUSED;
}

/* list: every page of accounts_list, as a table. */
static int
adminctl_list(struct adminctl *ctl)
{
	json_t *req = json_pack("{s:s, s:i}", "type", "accounts_list", "limit", ADMINCTL_PAGE);
	int header = 0, rc = ADMINCTL_OK;

	for (;;) {
		json_t *answer = adminctl_ask(ctl, req), *next, *a;
		size_t i;

		if (answer == NULL) {
			rc = ADMINCTL_UNREACHABLE;
			break;
		}
		if (strcmp(json_string_value(json_object_get(answer, "type")), "accounts") != 0) {
			rc = adminctl_refused(answer);
			json_decref(answer);
			break;
		}
		if (!header++)
			printf("%-6s %-20s %-8s %-16s %s\n", "ID", "NAME", "KIND", "CREATED (UTC)",
			       "STATE");
		json_array_foreach(json_object_get(answer, "accounts"), i, a)
		        adminctl_print_account(a);
		next = json_object_get(answer, "next");
		/* a next that does not move forward would ask for the same page for ever */
		if (!json_is_integer(next) ||
		    json_integer_value(next) <= json_integer_value(json_object_get(req, "after"))) {
			json_decref(answer);
			break;
		}
		json_object_set(req, "after", next);
		json_decref(answer);
	}
	json_decref(req);
	return rc;
}

/* --- Passwords --------------------------------------------------------------------------- */

/* Read one line of f into buf (without its newline). Returns 0, or -1 at end of input. */
static int
adminctl_read_line(FILE *f, char *buf, size_t size)
{
	size_t n;

	if (fgets(buf, (int)size, f) == NULL)
		return -1;
	n = strcspn(buf, "\r\n");
	buf[n] = '\0';
	return 0;
}

/* Prompt on the terminal and read a line without echo. Returns 0 or -1. */
static int
adminctl_prompt(const char *prompt, char *buf, size_t size)
{
	struct termios old, quiet;
	int rc;

	fputs(prompt, stderr);
	fflush(stderr);
	if (tcgetattr(STDIN_FILENO, &old) < 0)
		return -1;
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
	rc = adminctl_read_line(stdin, buf, size);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
	fputc('\n', stderr);
	return rc;
}

/*
 * The new password for name into buf: from file (its first line), a prompt without echo (twice),
 * or stdin's first line when it is no terminal. Returns 0, or an exit status after saying why.
 */
static int
adminctl_password(const char *file, const char *name, char *buf, size_t size)
{
	char again[1100], prompt[96];

	if (file != NULL) {
		FILE *f = fopen(file, "r");
		int rc = f != NULL ? adminctl_read_line(f, buf, size) : -1;

		if (f != NULL)
			fclose(f);
		if (rc < 0) {
			fprintf(stderr, "hokitod: cannot read a password from %s: %s\n", file,
			        f == NULL ? strerror(errno) : "it is empty");
			return ADMINCTL_USAGE;
		}
	} else if (isatty(STDIN_FILENO)) {
		snprintf(prompt, sizeof prompt, "New password for %s: ", name);
		if (adminctl_prompt(prompt, buf, size) < 0 ||
		    adminctl_prompt("The same again: ", again, sizeof again) < 0) {
			fprintf(stderr, "hokitod: no password read\n");
			return ADMINCTL_USAGE;
		}
		if (strcmp(buf, again) != 0) {
			fprintf(stderr, "hokitod: the two passwords differ; nothing changed\n");
			return ADMINCTL_REFUSED;
		}
	} else if (adminctl_read_line(stdin, buf, size) < 0) {
		fprintf(stderr, "hokitod: no password on stdin\n");
		return ADMINCTL_USAGE;
	}
	if (password_check(buf, strlen(buf)) < 0) {
		fprintf(stderr, "hokitod: a password has 8 to 1024 bytes (bad_value)\n");
		return ADMINCTL_REFUSED;
	}
	return 0;
}

/* --- The commands ------------------------------------------------------------------------ */

/* The commands that name an account: the request each sends. */
static const struct {
	const char *command;
	const char *type;
	const char *kind; /* account_set_kind's "kind" */
	const char *done; /* what the answer's "ok" means, printed */
} adminctl_commands[] = {
        {"ban", "account_ban", NULL, "banned"},
        {"unban", "account_unban", NULL, "unbanned"},
        {"reset-password", "account_reset_password", NULL, "password reset"},
        {"set-bot", "account_set_kind", "bot", "is a bot"},
        {"set-account", "account_set_kind", "account", "is an account (not a bot)"},
};

/* Send the request of command entry c about name. Returns the exit status. */
static int
adminctl_account_command(struct adminctl *ctl, size_t c, const char *name, const char *pwfile)
{
	json_t *req = json_pack("{s:s, s:s}", "type", adminctl_commands[c].type, "name", name);
	json_t *answer, *a;
	char pw[1100];
	int rc;

	if (adminctl_commands[c].kind != NULL)
		json_object_set_new(req, "kind", json_string(adminctl_commands[c].kind));
	if (strcmp(adminctl_commands[c].command, "reset-password") == 0) {
		if ((rc = adminctl_password(pwfile, name, pw, sizeof pw)) != 0) {
			json_decref(req);
			return rc;
		}
		json_object_set_new(req, "password", json_string(pw));
		explicit_bzero(pw, sizeof pw);
	}
	answer = adminctl_ask(ctl, req);
	json_decref(req);
	if (answer == NULL)
		return ADMINCTL_UNREACHABLE;
	if (strcmp(json_string_value(json_object_get(answer, "type")), "ok") != 0) {
		rc = adminctl_refused(answer);
		json_decref(answer);
		return rc;
	}
	a = json_object_get(answer, "account");
	printf("%s: %s", json_string_value(json_object_get(a, "name")), adminctl_commands[c].done);
	if (ctl->fd < 0)
		printf(" (in the store file: no server is running)");
	else if (json_integer_value(json_object_get(answer, "sessions")) > 0)
		printf("; %lld session(s) ended, %lld game(s) aborted",
		       (long long)json_integer_value(json_object_get(answer, "sessions")),
		       (long long)json_integer_value(json_object_get(answer, "games")));
	printf("\n");
	json_decref(answer);
	return ADMINCTL_OK;
}

int
adminctl_main(int argc, char **argv, const char *default_db)
{
	enum { O_DB = 256, O_SOCKET, O_PWFILE, O_HELP };
	static const struct option options[] = {
	        {"db", required_argument, NULL, O_DB},
	        {"admin-socket", required_argument, NULL, O_SOCKET},
	        {"password-file", required_argument, NULL, O_PWFILE},
	        {"help", no_argument, NULL, O_HELP},
	        {NULL, 0, NULL, 0},
	};
	struct adminctl ctl = {.db = default_db, .fd = -1};
	const char *pwfile = NULL, *command, *name = NULL;
	char sockpath[4200];
	size_t c = 0, ncommands = sizeof adminctl_commands / sizeof adminctl_commands[0];
	int opt, rc;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		switch (opt) {
		case O_DB:
			ctl.db = optarg;
			break;
		case O_SOCKET:
			ctl.socket = optarg[0] != '\0' ? optarg : NULL;
			break;
		case O_PWFILE:
			pwfile = optarg;
			break;
		case 'h':
		case O_HELP:
			adminctl_usage(stdout);
			return ADMINCTL_OK;
		default:
			fprintf(stderr,
			        "hokitod: accounts: bad option '%s' (see hokitod accounts "
			        "--help)\n",
			        argv[optind - 1]);
			return ADMINCTL_USAGE;
		}
	}
	if (optind >= argc) {
		adminctl_usage(stderr);
		return ADMINCTL_USAGE;
	}
	command = argv[optind++];
	if (strcmp(command, "list") != 0) {
		for (c = 0; c < ncommands && strcmp(command, adminctl_commands[c].command) != 0;
		     c++)
			;
		if (c == ncommands) {
			fprintf(stderr,
			        "hokitod: accounts: no command '%s' (see hokitod accounts "
			        "--help)\n",
			        command);
			return ADMINCTL_USAGE;
		}
		if (optind >= argc) {
			fprintf(stderr, "hokitod: accounts %s: which account? (NAME)\n", command);
			return ADMINCTL_USAGE;
		}
		name = argv[optind++];
	}
	/* options may follow the command too: "reset-password alice --password-file f" */
	while ((opt = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		if (opt == O_PWFILE)
			pwfile = optarg;
		else if (opt == O_DB)
			ctl.db = optarg;
		else if (opt == O_SOCKET)
			ctl.socket = optarg[0] != '\0' ? optarg : NULL;
		else {
			fprintf(stderr, "hokitod: accounts: bad option '%s'\n", argv[optind - 1]);
			return ADMINCTL_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hokitod: accounts: unexpected argument '%s'\n", argv[optind]);
		return ADMINCTL_USAGE;
	}
	if (ctl.socket == NULL) {
		store_db_admin_path(ctl.db, sockpath, sizeof sockpath);
		ctl.socket = sockpath;
	}
	if ((rc = adminctl_connect(&ctl)) < 0)
		return ADMINCTL_UNREACHABLE;
	if (rc == 1 && adminctl_open_store(&ctl) < 0)
		return ADMINCTL_UNREACHABLE;
	rc = name == NULL ? adminctl_list(&ctl) : adminctl_account_command(&ctl, c, name, pwfile);
	if (ctl.fd >= 0)
		close(ctl.fd);
	store_db_close(ctl.store);
	free(ctl.in);
	return rc;
}
