/*
 * hokitod.c: the match server's entry point: command line, signals, the event loop.
 *
 * It parses the flags (every limit has one, with the default shown by --help), sets up the log,
 * opens the store (refusing a file that is no store of ours; --check checks a whole store and
 * exits), the network layer (which makes the game layer), rebuilds the games the store holds,
 * listens (in clear, with TLS, or both; HTTP and WebSocket too with --listen-http or
 * --listen-https, http.h), and runs the libuv loop until SIGINT or SIGTERM asks for
 * a clean stop: clients are told, queued output is flushed, then everything is freed. SIGHUP
 * reloads the TLS certificate and key for the connections to come (a bad file is logged and the
 * old pair kept; --listen-https's too); without TLS it has nothing to reload and says so. It opens
 * the operators' admin socket (--admin-socket, admin.h) before it listens; `hokitod accounts ...`,
 * `hokitod migrate ...` and `hokitod backup ...` are other programs in the same binary
 * (adminctl.h, migratectl.h, backupctl.h), handed the command line at once. It owns the
 * loop, the signal handles (started before the port is bound), the TLS certificate (struct
 * tls_server) and the store.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/un.h>
#include <unistd.h>

#include <uv.h>

#include "adminctl.h"
#include "backupctl.h"
#include "http.h"
#include "hokito-config.h"
#include "log.h"
#include "migratectl.h"
#include "names.h"
#include "net.h"
#include "node.h"
#include "store-db.h"
#include "tls.h"

#define DEFAULT_LISTEN "127.0.0.1:7777"
/*
 * Open files kept for what is not a client: the standard streams, the listening sockets, the store
 * and its journal on three connections (the loop's, the checkpoints', the first reader's), the
 * loop's own descriptors, the log; and FD_PER_READER more for each reading thread past the first
 * (--read-threads: its connection's store, journal and shared-memory files).
 */
#define FD_RESERVE     32
#define FD_PER_READER  3
#define DEFAULT_DB     "hokito.db"

/*
 * The signals handled: SIGINT and SIGTERM stop the server cleanly; SIGHUP, as a daemon's,
 * reloads (the TLS certificate and key) and never stops it.
 */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSTOP (sizeof stop_signals / sizeof stop_signals[0])

struct hokitod {
	struct node *node;
	struct tls_server *tls; /* --listen-tls's certificate and key, or NULL */
	uv_signal_t sig[NSTOP]; /* one handle for each of stop_signals */
};

/*
 * The two pages of --help, each 24 lines of 80 columns at most (what each flag does is in
 * hokitod(8)): the settings, then with "--help limits" the limits.
 */
static void
usage(FILE *f)
{
	fprintf(f,
	        "usage: hokitod [OPTIONS]   (-h, --help: this help; -V, --version: the version)\n"
	        "   or: hokitod accounts list|ban|unban|reset-password|set-bot ... (--help)\n"
	        "   or: hokitod migrate ... (a copy into another store) | backup FILE (--help)\n"
	        "  --listen HOST:PORT     address (default %s; [::1]:PORT for IPv6)\n"
	        "  --listen-tls HOST:PORT TLS too, or alone: --tls-cert FILE, --tls-key FILE\n"
	        "                         (PEM; --tls-ca FILE: its chain); SIGHUP reloads them\n"
	        "  --db PATH|URI          SQLite file (./%s; in $STATE_DIRECTORY if set)\n"
	        "                         or PostgreSQL: postgresql://USER@HOST/DB (libpq URI)\n"
	        "  --admin-socket PATH    operators' socket (empty: an SQLite --db's PATH.sock)\n"
	        "  --fsync normal|always  (always: power-loss safe)  --allow-insecure-passwords\n"
	        "  --log-level error|warn|info|debug (info)  --port-file PATH: the bound ports\n"
	        "  --check: check all of the store, exit 0 if sound  --test-clock: testing aid\n"
	        "  --listen-http HOST:PORT, --listen-https HOST:PORT (--tls-cert): pages, /ws,\n"
	        "      /metrics (--metrics-allow ADDR/BITS), --http-origin ORIGIN (off)\n"
	        "Limits, each with its default: hokitod --help limits\n"
	        "Example: hokitod --listen [::1]:0 --port-file port --db :memory:\n",
	        DEFAULT_LISTEN, DEFAULT_DB);
}

/* The second page of --help: every limit with its default. */
static void
usage_limits(FILE *f)
{
	fprintf(f,
	        "usage: hokitod [OPTIONS]   (hokitod --help: the other settings)\n"
	        "Limits (0: none; an address is an IPv4 one or an IPv6 /64; see hokitod(8)):\n"
	        "  --max-clients N (default 1024)         --max-games N (default 10000)\n"
	        "  --max-line BYTES (default %d)       --max-output BYTES (default 1048576)\n"
	        "  --hello-timeout SECS (default 10)      --linger SECS (default 300)\n"
	        "  --grace SECS (default 60)              --keep-finished N (default 20)\n"
	        "  --adjourn-claim SECS (default 300)     --first-move SECS (default 30)\n"
	        "  --max-conns-per-addr N (default 32)    --max-rate-per-addr N (default 100)\n"
	        "  --max-creates-per-addr N (default 60)  --max-games-per-addr N (default 16)\n"
	        "  --max-lookup-failures N (default 5)    --draw-offer-moves N (default 2)\n"
	        "  --max-rematch-offers N (default 2)     --idle-timeout SECS (default 600)\n"
	        "  --keepalive SECS (default 60)          --max-sessions N (default 20000)\n"
	        "  --max-thinking N (default 32)          --max-kibitz N (default 20)\n"
	        "  --keep-days N (default 0)              --max-sessions-per-addr N (default 64)\n"
	        "  --max-reads-per-addr N (default 8)     --max-history-offset N (default 1000)\n"
	        "  --login-spread N (default %d)          --read-threads N (default 0: cores-1)\n"
	        "  --max-chat-lines N (default 200)       --max-chat-after-end N (default 20)\n"
	        "  --max-accounts-per-addr N (default 10) --max-http-rate-per-addr N (default 20)\n"
	        "  --max-accounts-per-addr-day N (default 30) --pair-rated N (default 5)\n"
	        "  --unused-account-days N (default 30)   --rated-min-plies N (default 4)\n"
	        "  --board-min-games N (default 10)       --board-min-opponents N (default 5)\n"
	        "  --max-queued BYTES (default 65536)     --allow-shared-address (see hokitod(8))\n"
	        "Example: hokitod --max-conns-per-addr 8 --max-games-per-addr 4\n",
	        PROTOCOL_MAX_LINE_DEFAULT, ACCOUNTS_SPREAD_MIN);
}

#define READ_THREADS_MAX 64 /* --read-threads */

/* --read-threads 0, the default: a core is the loop's, the others read (at least 1, at most 16). */
static unsigned
read_threads_default(void)
{
	unsigned cores = uv_available_parallelism();

	return cores <= 2 ? 1 : cores - 1 > 16 ? 16 : cores - 1;
}

/*
 * jemalloc's options (read at its start; ignored by any other malloc): memory freed goes back to
 * the system within a second instead of ten (and at once, not as MADV_FREE pages that stay in
 * RSS), by a thread of jemalloc's own, so also from the arena of a thread gone quiet (the
 * reader's, the hasher's), so that what a burst held (64 KB lines decoded, the 19 MB of a password
 * hash, a deep read's rows) does not stay on for a connection that is gone: tests/integration/
 * test-server-queued.py measures it.
 */
const char *malloc_conf = "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0";

/*
 * Map ICU's confusable data now (names.h: every hello's name is checked against it): about 1.5 MB
 * of the library's pages, the process's once, which would otherwise come with the first hello and
 * look like a cost of the first connections. A server whose ICU data is missing says so here.
 */
static void
warm_names(void)
{
	char keys[2][NAMES_KEY_MAX];

	(void)names_imitates_computer("hokito");
	if (names_guest_keys("hokito", keys) == NAMES_EICU)
		log_warn("names: ICU's confusable data cannot be loaded: guest names and new "
		         "accounts "
		         "will be refused");
}

/* The store without --db: in $STATE_DIRECTORY (the unit's), else here. Returns buf. */
static const char *
db_default(char *buf, size_t size)
{
	const char *dir = getenv("STATE_DIRECTORY");
	size_t n = dir != NULL ? strcspn(dir, ":") : 0; /* systemd may list several */

	if (n > 0)
		snprintf(buf, size, "%.*s/%s", (int)n, dir, DEFAULT_DB);
	else
		snprintf(buf, size, "%s", DEFAULT_DB);
	return buf;
}

/*
 * Open the admin socket (node_admin()): at admin_socket, or else where the store's backend puts
 * it (store_db_admin_path(): beside an SQLite file, its path with ".sock"; none for ":memory:"
 * or a database server). A socket the operator named must open; the default one is skipped with
 * a warning when its path is too long for a socket. Returns 0 or a negative libuv error (logged).
 */
static int
admin_start(struct node *node, const char *admin_socket, const char *db, char *buf, size_t size)
{
	int rc;

	if (admin_socket == NULL) {
		store_db_admin_path(db, buf, size);
		if (buf[0] == '\0')
			return 0;
		admin_socket = buf;
		if (strlen(buf) >= sizeof((struct sockaddr_un *)NULL)->sun_path) {
			log_warn("no admin socket: %s is too long for one (--admin-socket)", buf);
			return 0;
		}
	}
	if ((rc = node_admin(node, admin_socket)) < 0)
		log_error("cannot open the admin socket %s: %s%s", admin_socket, uv_strerror(rc),
		          rc == UV_EADDRINUSE ? " (a server answers there already)" : "");
	else
		log_info("operators' commands on %s", admin_socket);
	return rc;
}

/* Parse a whole decimal number in [min, max]. Returns 0 or -1. */
static int
parse_num(const char *s, unsigned long long min, unsigned long long max, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * A flag that takes a whole number from min to max (parse_num). It sets the one destination
 * given: u or z to the number, ms to the number of seconds given, in milliseconds. wants is the
 * sentence that refuses a value that is no such number.
 */
struct num_flag {
	int opt;                     /* getopt_long()'s value for the flag */
	unsigned long long min, max; /* the range taken */
	const char *wants;           /* "--max-line wants a number of bytes from 64 to 2^30" */
	unsigned *u;
	size_t *z;
	uint64_t *ms;
};

/* The entry for opt among the n flags, or NULL: opt takes no number. */
static const struct num_flag *
num_flag_find(const struct num_flag *flags, size_t n, int opt)
{
	for (size_t i = 0; i < n; i++)
		if (flags[i].opt == opt)
			return &flags[i];
	return NULL;
}

/* Set f's destination from arg. Returns 0, or -1 (nothing set): arg is not in f's range. */
static int
num_flag_set(const struct num_flag *f, const char *arg)
{
	unsigned long long v;

	if (parse_num(arg, f->min, f->max, &v) < 0)
		return -1;
	if (f->u != NULL)
		*f->u = (unsigned)v;
	else if (f->z != NULL)
		*f->z = (size_t)v;
	else
		*f->ms = v * 1000;
	return 0;
}

/* Refuse a flag's value: wants says what it takes. Returns the exit status, 2. */
static int
value_refused(const char *wants, const char *arg)
{
	fprintf(stderr, "hokitod: %s (got '%s')\n", wants, arg);
	return 2;
}

/*
 * The long option getopt_long() just matched (options[index]) as it was written, if it was not
 * written in full, else NULL. getopt_long() also takes any unambiguous prefix ("--list" for
 * --listen), which hokitod(8) does not know: a mistyped flag would silently become another one
 * ("--port 7777" would be --port-file).
 */
static const char *
option_abbreviated(char **argv, const struct option *options, int index)
{
	const struct option *o = &options[index];
	/* the value, if separate, is the last argument taken; the option is the one before it */
	const char *arg = o->has_arg == required_argument && optarg == argv[optind - 1]
	                          ? argv[optind - 2]
	                          : argv[optind - 1];
	size_t n = strcspn(arg + 2, "=");

	return strlen(o->name) == n && strncmp(arg + 2, o->name, n) == 0 ? NULL : arg;
}

/* Refuse an option hokitod does not have. Returns the exit status, 2. */
static int
option_unknown(const char *arg)
{
	fprintf(stderr, "hokitod: unknown option '%s' (see hokitod --help)\n", arg);
	return 2;
}

/*
 * Split "V4:PORT" or "[V6]:PORT", a numeric address. An IPv6 address needs its brackets: in
 * "::1:7777" the port cannot be told from the address (itself a valid one). Returns 0 or -1.
 */
static int
parse_listen(const char *arg, char *host, size_t size, int *port)
{
	const char *colon;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	unsigned long long p;
	size_t n;

	if (arg[0] == '[') {
		const char *close = strchr(arg, ']');

		if (close == NULL || close[1] != ':')
			return -1;
		n = (size_t)(close - arg - 1);
		if (n == 0 || n >= size)
			return -1;
		memcpy(host, arg + 1, n);
		colon = close + 1;
	} else {
		colon = strrchr(arg, ':');
		if (colon == NULL)
			return -1;
		n = (size_t)(colon - arg);
		if (n == 0 || n >= size)
			return -1;
		memcpy(host, arg, n);
	}
	host[n] = '\0';
	if (parse_num(colon + 1, 0, 65535, &p) < 0)
		return -1;
	/* a numeric address: no name is looked up */
	if (arg[0] == '[' ? uv_ip6_addr(host, 0, &sin6) != 0 : uv_ip4_addr(host, 0, &sin) != 0)
		return -1;
	*port = (int)p;
	return 0;
}

/* parse_listen() for the value arg of flag (--listen, ...); a bad one is told. Returns 0 or -1. */
static int
listen_flag_parse(const char *flag, const char *arg, char *host, size_t size, int *port)
{
	if (parse_listen(arg, host, size, port) == 0)
		return 0;
	fprintf(stderr,
	        "hokitod: %s wants IPV4:PORT or [IPV6]:PORT, a numeric address and a port "
	        "from 0 to 65535 (got '%s')\n",
	        flag, arg);
	return -1;
}

/* Whether s looks like an origin: http:// or https://, then a host (and port), no path. */
static int
origin_valid(const char *s)
{
	const char *host = strncmp(s, "http://", 7) == 0    ? s + 7
	                   : strncmp(s, "https://", 8) == 0 ? s + 8
	                                                    : NULL;

	return host != NULL && host[0] != '\0' && strpbrk(host, "/?# ") == NULL && strlen(s) < 200;
}

/* Parse "ADDR/BITS" (a numeric IPv4 or IPv6 network) into a. Returns 0 or -1. */
static int
parse_allow(const char *arg, struct http_allow *a)
{
	const char *slash = strchr(arg, '/');
	char addr[64];
	unsigned long long bits;
	size_t n;

	if (slash == NULL || (n = (size_t)(slash - arg)) == 0 || n >= sizeof addr)
		return -1;
	memcpy(addr, arg, n);
	addr[n] = '\0';
	memset(a, 0, sizeof *a);
	if (uv_inet_pton(AF_INET, addr, a->addr) == 0) {
		a->family = AF_INET;
		if (parse_num(slash + 1, 0, 32, &bits) < 0)
			return -1;
	} else if (uv_inet_pton(AF_INET6, addr, a->addr) == 0) {
		a->family = AF_INET6;
		if (parse_num(slash + 1, 0, 128, &bits) < 0)
			return -1;
	} else {
		return -1;
	}
	a->bits = (unsigned)bits;
	return 0;
}

/*
 * Under systemd, the certificate and key not given on the command line are the credentials
 * tls-cert and tls-key (LoadCredential= in the unit: copies only the service can read, in
 * $CREDENTIALS_DIRECTORY). cert and key are PATH_MAX buffers for those paths. Returns 0 or -1.
 */
static int
credentials_default(struct tls_server_config *tcfg, char *cert, char *key)
{
	const char *dir = getenv("CREDENTIALS_DIRECTORY");

	if (dir == NULL || dir[0] == '\0')
		return 0;
	if (tcfg->cert_file == NULL) {
		if (snprintf(cert, PATH_MAX, "%s/tls-cert", dir) >= PATH_MAX)
			return -1;
		tcfg->cert_file = cert;
	}
	if (tcfg->key_file == NULL) {
		if (snprintf(key, PATH_MAX, "%s/tls-key", dir) >= PATH_MAX)
			return -1;
		tcfg->key_file = key;
	}
	return 0;
}

/* Close the signal handles (embedded in d: nothing to free). */
static void
signals_close(struct hokitod *d)
{
	for (size_t i = 0; i < NSTOP; i++)
		uv_close((uv_handle_t *)&d->sig[i], NULL);
}

/* SIGHUP: read the certificate and key again for new connections; keep the old on failure. */
static void
reload(struct hokitod *d)
{
	struct tls_error err;
	char fp[TLS_FINGERPRINT_TEXT_LEN + 1];

	if (node_reload(d->node) == 0 && d->tls == NULL) { /* node_reload: --listen-https's */
		log_info("got SIGHUP: nothing to reload (no --listen-tls)");
		return;
	}
	if (d->tls == NULL)
		return;
	if (tls_server_reload(d->tls, &err) < 0) {
		log_error("got SIGHUP: TLS certificate not reloaded, the old one is kept: %s",
		          err.text);
		return;
	}
	tls_server_fingerprint(d->tls, fp, sizeof fp);
	log_info("got SIGHUP: TLS certificate and key reloaded for new connections; the "
	         "certificate's %s",
	         fp);
}

static void
signal_cb(uv_signal_t *h, int signum)
{
	struct hokitod *d = h->data;

	if (signum == SIGHUP) {
		reload(d);
		return;
	}
	log_info("got %s", signum == SIGINT ? "SIGINT" : "SIGTERM");
	node_shutdown(d->node);
	signals_close(d);
}

/*
 * A start that failed after the loop was made: stop what was started, free it, and close the
 * store, removing what this start made (store_db_discard(): a new store file with its -wal and
 * -shm), so that a failed start, such as a port already taken, leaves nothing behind. Returns 1.
 */
static int
stop_early(struct hokitod *d, uv_loop_t *loop, struct store_db *store)
{
	node_shutdown(d->node);
	signals_close(d);
	uv_run(loop, UV_RUN_DEFAULT);
	node_free(d->node);
	tls_server_free(d->tls);
	uv_loop_close(loop);
	store_db_discard(store);
	return 1;
}

/* store_db_check() callback: a finding, one line on stdout. */
static void
check_found_cb(void *ctx, const char *text)
{
	printf("%s: %s\n", (const char *)ctx, text);
}

/*
 * hokitod --check: the full check of the store that opening does not run (it reads the whole
 * store: about a minute per million games), beside a running server or not. Returns the exit
 * status: 0 sound, 1 findings or a store that is not one (said on stderr), 2 for a --db that
 * names no store to check (":memory:", a scheme of no backend's).
 */
static int
check_store(const char *db)
{
	struct store_error err;
	int n;

	n = store_db_check(db, check_found_cb, (void *)db, &err);
	if (n == STORE_EINVAL) {
		fprintf(stderr, "hokitod: %s\n", err.text);
		return 2;
	}
	if (n < 0) {
		fprintf(stderr, "hokitod: cannot check the store: %s\n", err.text);
		return 1;
	}
	if (n > 0) {
		printf("%s: damaged: %d finding%s\n", db, n, n == 1 ? "" : "s");
		return 1;
	}
	printf("%s: sound\n", db);
	return 0;
}

/*
 * Make room for max_clients connections in the open-file limit (beside reserve files for the rest),
 * so that a connection past it is refused with too_many_clients instead of failing to be accepted:
 * the soft limit is raised toward the hard one when it is short; when even the hard limit is short,
 * *max_clients is lowered to what fits, with a warning that says so (a host who set --max-clients
 * above what the system allows learns it at once, not from clients that vanish). Returns 0, or -1
 * when not even one client fits (the caller refuses to start).
 */
static int
clients_fit_fd_limit(unsigned *max_clients, rlim_t reserve)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)*max_clients + reserve;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0; /* nothing known: nothing to fit */
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rlim_t old = rl.rlim_cur;
		rl.rlim_cur =
		        rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ? need : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			rl.rlim_cur = old;
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_cur <= reserve) {
		log_error("the open-file limit (%llu) leaves no room for clients; raise it "
		          "(ulimit -n, or LimitNOFILE= in the unit) to at least %llu",
		          (unsigned long long)rl.rlim_cur, (unsigned long long)need);
		return -1;
	}
	log_warn("--max-clients %u lowered to %llu: the open-file limit is %llu (ulimit -n, or "
	         "LimitNOFILE= in the unit; %llu more are kept for the store and the sockets)",
	         *max_clients, (unsigned long long)(rl.rlim_cur - reserve),
	         (unsigned long long)rl.rlim_cur, (unsigned long long)reserve);
	*max_clients = (unsigned)(rl.rlim_cur - reserve);
	return 0;
}

int
main(int argc, char **argv)
{
	enum {
		O_LISTEN = 256,
		O_LISTEN_TLS,
		O_TLS_CERT,
		O_TLS_KEY,
		O_TLS_CA,
		O_PORT_FILE,
		O_LOG,
		O_LINE,
		O_HELLO,
		O_OUTPUT,
		O_CLIENTS,
		O_GAMES,
		O_KEEP,
		O_LINGER,
		O_GRACE,
		O_ADJOURN_CLAIM,
		O_FIRST_MOVE,
		O_TEST_CLOCK,
		O_INSECURE_PASSWORDS,
		O_PER_ADDR_CONNS,
		O_PER_ADDR_RATE,
		O_PER_ADDR_CREATES,
		O_PER_ADDR_GAMES,
		O_LOOKUP_FAILURES,
		O_LOGIN_SPREAD,
		O_DRAW_MOVES,
		O_RATED_MIN_PLIES,
		O_PAIR_RATED,
		O_BOARD_GAMES,
		O_BOARD_OPPONENTS,
		O_SHARED_ADDRESS,
		O_REMATCH_OFFERS,
		O_IDLE,
		O_KEEPALIVE,
		O_SESSIONS,
		O_SESSIONS_PER_ADDR,
		O_CHAT_LINES,
		O_CHAT_AFTER_END,
		O_ACCOUNTS_HOUR,
		O_ACCOUNTS_DAY,
		O_UNUSED_DAYS,
		O_THINKING,
		O_KIBITZ,
		O_KEEP_DAYS,
		O_HISTORY_OFFSET,
		O_READS_PER_ADDR,
		O_READ_THREADS,
		O_QUEUED,
		O_DB,
		O_ADMIN_SOCKET,
		O_FSYNC_MODE,
		O_CHECK,
		O_LISTEN_HTTP,
		O_LISTEN_HTTPS,
		O_HTTP_ORIGIN,
		O_METRICS_ALLOW,
		O_HTTP_RATE,
		O_HELP,
		O_VERSION
	};
	static const struct option options[] = {
	        {"listen", required_argument, NULL, O_LISTEN},
	        {"listen-tls", required_argument, NULL, O_LISTEN_TLS},
	        {"tls-cert", required_argument, NULL, O_TLS_CERT},
	        {"tls-key", required_argument, NULL, O_TLS_KEY},
	        {"tls-ca", required_argument, NULL, O_TLS_CA},
	        {"port-file", required_argument, NULL, O_PORT_FILE},
	        {"log-level", required_argument, NULL, O_LOG},
	        {"max-line", required_argument, NULL, O_LINE},
	        {"hello-timeout", required_argument, NULL, O_HELLO},
	        {"max-output", required_argument, NULL, O_OUTPUT},
	        {"max-clients", required_argument, NULL, O_CLIENTS},
	        {"max-games", required_argument, NULL, O_GAMES},
	        {"keep-finished", required_argument, NULL, O_KEEP},
	        {"linger", required_argument, NULL, O_LINGER},
	        {"grace", required_argument, NULL, O_GRACE},
	        {"adjourn-claim", required_argument, NULL, O_ADJOURN_CLAIM},
	        {"first-move", required_argument, NULL, O_FIRST_MOVE},
	        {"test-clock", no_argument, NULL, O_TEST_CLOCK},
	        {"allow-insecure-passwords", no_argument, NULL, O_INSECURE_PASSWORDS},
	        {"max-conns-per-addr", required_argument, NULL, O_PER_ADDR_CONNS},
	        {"max-rate-per-addr", required_argument, NULL, O_PER_ADDR_RATE},
	        {"max-creates-per-addr", required_argument, NULL, O_PER_ADDR_CREATES},
	        {"max-games-per-addr", required_argument, NULL, O_PER_ADDR_GAMES},
	        {"max-lookup-failures", required_argument, NULL, O_LOOKUP_FAILURES},
	        {"login-spread", required_argument, NULL, O_LOGIN_SPREAD},
	        {"draw-offer-moves", required_argument, NULL, O_DRAW_MOVES},
	        {"rated-min-plies", required_argument, NULL, O_RATED_MIN_PLIES},
	        {"pair-rated", required_argument, NULL, O_PAIR_RATED},
	        {"board-min-games", required_argument, NULL, O_BOARD_GAMES},
	        {"board-min-opponents", required_argument, NULL, O_BOARD_OPPONENTS},
	        {"allow-shared-address", no_argument, NULL, O_SHARED_ADDRESS},
	        {"max-rematch-offers", required_argument, NULL, O_REMATCH_OFFERS},
	        {"idle-timeout", required_argument, NULL, O_IDLE},
	        {"keepalive", required_argument, NULL, O_KEEPALIVE},
	        {"max-sessions", required_argument, NULL, O_SESSIONS},
	        {"max-sessions-per-addr", required_argument, NULL, O_SESSIONS_PER_ADDR},
	        {"max-thinking", required_argument, NULL, O_THINKING},
	        {"max-kibitz", required_argument, NULL, O_KIBITZ},
	        {"keep-days", required_argument, NULL, O_KEEP_DAYS},
	        {"max-history-offset", required_argument, NULL, O_HISTORY_OFFSET},
	        {"max-reads-per-addr", required_argument, NULL, O_READS_PER_ADDR},
	        {"read-threads", required_argument, NULL, O_READ_THREADS},
	        {"max-chat-lines", required_argument, NULL, O_CHAT_LINES},
	        {"max-chat-after-end", required_argument, NULL, O_CHAT_AFTER_END},
	        {"max-accounts-per-addr", required_argument, NULL, O_ACCOUNTS_HOUR},
	        {"max-accounts-per-addr-day", required_argument, NULL, O_ACCOUNTS_DAY},
	        {"unused-account-days", required_argument, NULL, O_UNUSED_DAYS},
	        {"max-queued", required_argument, NULL, O_QUEUED},
	        {"db", required_argument, NULL, O_DB},
	        {"admin-socket", required_argument, NULL, O_ADMIN_SOCKET},
	        {"fsync", required_argument, NULL, O_FSYNC_MODE},
	        {"check", no_argument, NULL, O_CHECK},
	        {"listen-http", required_argument, NULL, O_LISTEN_HTTP},
	        {"listen-https", required_argument, NULL, O_LISTEN_HTTPS},
	        {"http-origin", required_argument, NULL, O_HTTP_ORIGIN},
	        {"metrics-allow", required_argument, NULL, O_METRICS_ALLOW},
	        {"max-http-rate-per-addr", required_argument, NULL, O_HTTP_RATE},
	        {"help", no_argument, NULL, O_HELP},
	        {"version", no_argument, NULL, O_VERSION},
	        {NULL, 0, NULL, 0},
	};
	struct net_config ncfg = {
	        .max_line = PROTOCOL_MAX_LINE_DEFAULT,
	        .max_output = 1048576,
	        .max_queued = 65536,
	        .max_clients = 1024,
	        .hello_timeout_ms = 10000,
	        .close_timeout_ms = 2000,
	        .max_per_addr = 32,
	        .keepalive_s = 60,
	};
	struct lobby_config lcfg = {
	        .max_games = 10000,
	        .keep_finished = 20,
	        .linger_ms = 300000,
	        .grace_ms = 60000,
	        .adjourn_claim_ms = 300000,
	        .first_move_ms = 30000,
	        .test_clock = 0,
	        .rate_per_addr = 100,
	        .creates_per_addr = 60,
	        .games_per_addr = 16,
	        .lookup_failures = 5,
	        .login_spread = ACCOUNTS_SPREAD_MIN,
	        .draw_offer_moves = 2,
	        .rated_min_plies = 4,
	        .pair_rated = 5,
	        .board_min_games = 10,
	        .board_min_opponents = 5,
	        .rematch_offers = 2,
	        .idle_ms = 600000,
	        .max_sessions = 20000,
	        .addr_sessions = 64,
	        .max_thinking = 32,
	        .kibitz_per_game = 20,
	        .max_history_offset = 1000,
	        .reads_per_addr = 8,
	        .read_threads = read_threads_default(),
	        .chat_lines = 200,
	        .chat_after_end = 20,
	        .registers_hour = 10,
	        .registers_day = 30,
	};
	const char *listen = NULL, *listen_tls = NULL, *port_file = NULL, *db = NULL;
	const char *admin_socket = NULL, *listen_http = NULL, *listen_https = NULL;
	struct http_config hcfg = {.rate_per_addr = 20};
	char http_bound[128], https_bound[128], http_host[256], https_host[256];
	struct tls_server_config tcfg = {NULL, NULL, NULL};
	struct tls_error terr;
	struct store_db_options sopt = {STORE_FSYNC_NORMAL, 0, 1};
	struct store_error serr;
	struct store_db *store;
	char host[256], tls_host[256], bound[128], tls_bound[128], dbpath[4096], sockpath[4200];
	char cred_cert[PATH_MAX], cred_key[PATH_MAX];
	unsigned keep_days = 0;    /* --keep-days: 0 keeps every finished game */
	unsigned unused_days = 30; /* --unused-account-days: 0 keeps every account */
	struct hokitod d;
	uv_loop_t loop;
	int port = 0, tls_port = 0, opt, longindex, rc = 0, check = 0;
	/* the flags that take a number; --read-threads 0 is the default, set after the loop */
	const struct num_flag nums[] = {
	        {O_LINE, 64, 1u << 30, "--max-line wants a number of bytes from 64 to 2^30",
	         .z = &ncfg.max_line},
	        {O_HELLO, 1, 86400, "--hello-timeout wants seconds from 1 to 86400",
	         .ms = &ncfg.hello_timeout_ms},
	        {O_OUTPUT, 1024, 1ull << 32,
	         "--max-output wants a number of bytes from 1024 to 2^32", .z = &ncfg.max_output},
	        {O_QUEUED, 1024, 1u << 20, "--max-queued wants a number of bytes from 1024 to 2^20",
	         .z = &ncfg.max_queued},
	        {O_CLIENTS, 1, 1000000, "--max-clients wants a number from 1 to 1000000",
	         .u = &ncfg.max_clients},
	        {O_GAMES, 1, 10000000, "--max-games wants a number from 1 to 10000000",
	         .u = &lcfg.max_games},
	        {O_KEEP_DAYS, 0, 36500, "--keep-days wants a number of days from 0 to 36500",
	         .u = &keep_days},
	        {O_KEEP, 0, 100000, "--keep-finished wants a number from 0 to 100000",
	         .u = &lcfg.keep_finished},
	        {O_LINGER, 0, 31536000, "--linger wants seconds from 0 to 31536000",
	         .ms = &lcfg.linger_ms},
	        {O_GRACE, 0, 86400, "--grace wants seconds from 0 to 86400", .ms = &lcfg.grace_ms},
	        {O_ADJOURN_CLAIM, 0, 31536000, "--adjourn-claim wants seconds from 0 to 31536000",
	         .ms = &lcfg.adjourn_claim_ms},
	        {O_FIRST_MOVE, 0, 86400, "--first-move wants seconds from 0 to 86400",
	         .ms = &lcfg.first_move_ms},
	        {O_PER_ADDR_CONNS, 0, 1000000,
	         "--max-conns-per-addr wants a number from 0 to 1000000", .u = &ncfg.max_per_addr},
	        {O_PER_ADDR_RATE, 0, 1000000,
	         "--max-rate-per-addr wants a number from 0 to 1000000", .u = &lcfg.rate_per_addr},
	        {O_PER_ADDR_CREATES, 0, 1000000,
	         "--max-creates-per-addr wants a number from 0 to 1000000",
	         .u = &lcfg.creates_per_addr},
	        {O_PER_ADDR_GAMES, 0, 10000000,
	         "--max-games-per-addr wants a number from 0 to 10000000",
	         .u = &lcfg.games_per_addr},
	        {O_LOOKUP_FAILURES, 0, 1000000,
	         "--max-lookup-failures wants a number from 0 to 1000000",
	         .u = &lcfg.lookup_failures},
	        {O_LOGIN_SPREAD, 0, 1000, "--login-spread wants a number from 0 to 1000",
	         .u = &lcfg.login_spread},
	        {O_DRAW_MOVES, 0, 1000, "--draw-offer-moves wants a number from 0 to 1000",
	         .u = &lcfg.draw_offer_moves},
	        {O_RATED_MIN_PLIES, 0, 1000, "--rated-min-plies wants a number from 0 to 1000",
	         .u = &lcfg.rated_min_plies},
	        {O_PAIR_RATED, 0, 1000, "--pair-rated wants a number from 0 to 1000",
	         .u = &lcfg.pair_rated},
	        {O_BOARD_GAMES, 0, 1000000, "--board-min-games wants a number from 0 to 1000000",
	         .u = &lcfg.board_min_games},
	        {O_BOARD_OPPONENTS, 0, 1000000,
	         "--board-min-opponents wants a number from 0 to 1000000",
	         .u = &lcfg.board_min_opponents},
	        {O_REMATCH_OFFERS, 0, 1000, "--max-rematch-offers wants a number from 0 to 1000",
	         .u = &lcfg.rematch_offers},
	        {O_IDLE, 0, 31536000, "--idle-timeout wants seconds from 0 to 31536000",
	         .ms = &lcfg.idle_ms},
	        {O_KEEPALIVE, 0, 86400, "--keepalive wants seconds from 0 to 86400",
	         .u = &ncfg.keepalive_s},
	        {O_SESSIONS, 0, 10000000, "--max-sessions wants a number from 0 to 10000000",
	         .u = &lcfg.max_sessions},
	        {O_SESSIONS_PER_ADDR, 0, 1000000,
	         "--max-sessions-per-addr wants a number from 0 to 1000000",
	         .u = &lcfg.addr_sessions},
	        {O_HISTORY_OFFSET, 0, 1000000,
	         "--max-history-offset wants a number from 0 to 1000000",
	         .u = &lcfg.max_history_offset},
	        {O_READS_PER_ADDR, 0, 100000,
	         "--max-reads-per-addr wants a number from 0 to 100000", .u = &lcfg.reads_per_addr},
	        {O_READ_THREADS, 0, READ_THREADS_MAX, "--read-threads wants a number from 0 to 64",
	         .u = &lcfg.read_threads},
	        {O_THINKING, 0, 100000, "--max-thinking wants a number from 0 to 100000",
	         .u = &lcfg.max_thinking},
	        {O_KIBITZ, 0, 100000, "--max-kibitz wants a number from 0 to 100000",
	         .u = &lcfg.kibitz_per_game},
	        {O_CHAT_LINES, 0, 100000, "--max-chat-lines wants a number from 0 to 100000",
	         .u = &lcfg.chat_lines},
	        {O_CHAT_AFTER_END, 0, 100000,
	         "--max-chat-after-end wants a number from 0 to 100000", .u = &lcfg.chat_after_end},
	        {O_ACCOUNTS_HOUR, 0, 1000000,
	         "--max-accounts-per-addr wants a number from 0 to 1000000",
	         .u = &lcfg.registers_hour},
	        {O_ACCOUNTS_DAY, 0, 1000000,
	         "--max-accounts-per-addr-day wants a number from 0 to 1000000",
	         .u = &lcfg.registers_day},
	        {O_UNUSED_DAYS, 0, 36500,
	         "--unused-account-days wants a number of days from 0 to 36500", .u = &unused_days},
	        {O_HTTP_RATE, 0, 1000000,
	         "--max-http-rate-per-addr wants a number from 0 to 1000000",
	         .u = &hcfg.rate_per_addr},
	};
	const struct num_flag *num;

	if (argc > 1 && strcmp(argv[1], "accounts") == 0) /* the operators' commands */
		return adminctl_main(argc - 1, argv + 1, db_default(dbpath, sizeof dbpath));
	if (argc > 1 && strcmp(argv[1], "migrate") == 0)
		return migratectl_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "backup") == 0)
		return backupctl_main(argc - 1, argv + 1, db_default(dbpath, sizeof dbpath));
	opterr = 0; /* getopt's messages name argv[0]; ours are one line, as every error */
	while ((opt = getopt_long(argc, argv, ":hV", options, &longindex)) != -1) {
		const char *bad = NULL, *cut;

		if (opt >= O_LISTEN && (cut = option_abbreviated(argv, options, longindex)) != NULL)
			return option_unknown(cut);
		if ((num = num_flag_find(nums, sizeof nums / sizeof nums[0], opt)) != NULL) {
			if (num_flag_set(num, optarg) < 0)
				return value_refused(num->wants, optarg);
			continue;
		}
		switch (opt) {
		/* an empty address or file is none: the unit passes the unset ones empty */
		case O_LISTEN:
			listen = optarg;
			break;
		case O_LISTEN_TLS:
			listen_tls = optarg[0] != '\0' ? optarg : NULL;
			break;
		case O_TLS_CERT:
			tcfg.cert_file = optarg[0] != '\0' ? optarg : NULL;
			break;
		case O_TLS_KEY:
			tcfg.key_file = optarg[0] != '\0' ? optarg : NULL;
			break;
		case O_TLS_CA:
			tcfg.ca_file = optarg[0] != '\0' ? optarg : NULL;
			break;
		case O_PORT_FILE:
			port_file = optarg;
			break;
		case O_LOG: {
			enum log_level level;

			if (log_level_parse(optarg, &level) < 0)
				bad = "--log-level wants error, warn, info or debug";
			else
				log_level_set(level);
			break;
		}
		case O_TEST_CLOCK:
			lcfg.test_clock = 1;
			break;
		case O_INSECURE_PASSWORDS:
			lcfg.allow_insecure_passwords = 1;
			break;
		case O_SHARED_ADDRESS:
			lcfg.allow_shared_address = 1;
			break;
		case O_CHECK:
			check = 1;
			break;
		case O_LISTEN_HTTP:
			listen_http = optarg[0] != '\0' ? optarg : NULL;
			break;
		case O_LISTEN_HTTPS:
			listen_https = optarg[0] != '\0' ? optarg : NULL;
			break;
		case O_HTTP_ORIGIN: /* empty: none (the unit passes the unset one empty) */
			if (optarg[0] == '\0')
				break;
			if (hcfg.norigins >= HTTP_MAX_ORIGINS || !origin_valid(optarg))
				bad = "--http-origin wants SCHEME://HOST[:PORT], at most 16 times";
			else
				hcfg.origins[hcfg.norigins++] = optarg;
			break;
		case O_METRICS_ALLOW:
			if (optarg[0] == '\0')
				break;
			if (hcfg.nallow >= HTTP_MAX_ALLOW ||
			    parse_allow(optarg, &hcfg.allow[hcfg.nallow]) < 0)
				bad = "--metrics-allow wants ADDR/BITS (192.0.2.0/24, "
				      "2001:db8::/32), "
				      "at most 16 times";
			else
				hcfg.nallow++;
			break;
		case O_DB:
			if (optarg[0] == '\0')
				bad = "--db wants a file name";
			else
				db = optarg;
			break;
		case O_ADMIN_SOCKET: /* empty: the default, beside the store */
			admin_socket = optarg[0] != '\0' ? optarg : NULL;
			break;
		case O_FSYNC_MODE:
			if (strcmp(optarg, "normal") == 0)
				sopt.fsync = STORE_FSYNC_NORMAL;
			else if (strcmp(optarg, "always") == 0)
				sopt.fsync = STORE_FSYNC_ALWAYS;
			else
				bad = "--fsync wants normal or always";
			break;
		case 'h':
		case O_HELP:
			/* "--help limits": the second page */
			if (optind < argc && strcmp(argv[optind], "limits") == 0)
				usage_limits(stdout);
			else
				usage(stdout);
			return 0;
		case 'V':
		case O_VERSION:
			printf("hokitod %s (protocol %d)\n", HOKITO_VERSION, PROTOCOL_VERSION);
			return 0;
		case ':':
			fprintf(stderr, "hokitod: %s needs a value (see hokitod --help)\n",
			        argv[optind - 1]);
			return 2;
		default:
			/* optopt: the short option, or a long one given a value it does not take */
			if (optopt >= O_LISTEN)
				fprintf(stderr,
				        "hokitod: %.*s takes no value (see hokitod --help)\n",
				        (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
			else if (optopt != 0)
				fprintf(stderr,
				        "hokitod: unknown option '-%c' (see hokitod --help)\n",
				        optopt);
			else
				return option_unknown(argv[optind - 1]);
			return 2;
		}
		if (bad != NULL)
			return value_refused(bad, optarg);
	}
	if (lcfg.read_threads == 0)
		lcfg.read_threads = read_threads_default();
	if (optind < argc) {
		fprintf(stderr, "hokitod: unexpected argument '%s' (see hokitod --help)\n",
		        argv[optind]);
		return 2;
	}
	if (listen == NULL && listen_tls == NULL)
		listen = DEFAULT_LISTEN;
	if (listen != NULL && listen[0] == '\0') {
		if (listen_tls == NULL) {
			fprintf(stderr, "hokitod: --listen is empty and there is no --listen-tls: "
			                "nothing to listen on\n");
			return 2;
		}
		listen = NULL;
	}
	if ((listen_tls != NULL || listen_https != NULL) &&
	    credentials_default(&tcfg, cred_cert, cred_key) < 0) {
		fprintf(stderr, "hokitod: credential paths too long\n");
		return 2;
	}
	if (listen != NULL && listen_flag_parse("--listen", listen, host, sizeof host, &port) < 0)
		return 2;
	if (listen_tls != NULL &&
	    listen_flag_parse("--listen-tls", listen_tls, tls_host, sizeof tls_host, &tls_port) < 0)
		return 2;
	if (listen_http != NULL && listen_flag_parse("--listen-http", listen_http, http_host,
	                                             sizeof http_host, &hcfg.port) < 0)
		return 2;
	if (listen_https != NULL && listen_flag_parse("--listen-https", listen_https, https_host,
	                                              sizeof https_host, &hcfg.tls_port) < 0)
		return 2;
	if (listen_tls != NULL && (tcfg.cert_file == NULL || tcfg.key_file == NULL)) {
		fprintf(stderr, "hokitod: --listen-tls needs --tls-cert and --tls-key\n");
		return 2;
	}
	if (listen_https != NULL && (tcfg.cert_file == NULL || tcfg.key_file == NULL)) {
		fprintf(stderr, "hokitod: --listen-https needs --tls-cert and --tls-key\n");
		return 2;
	}
	if (listen_tls == NULL && listen_https == NULL &&
	    (tcfg.cert_file != NULL || tcfg.key_file != NULL || tcfg.ca_file != NULL)) {
		fprintf(stderr, "hokitod: --tls-cert, --tls-key and --tls-ca go with --listen-tls "
		                "or --listen-https\n");
		return 2;
	}
	if (listen_http == NULL && listen_https == NULL && (hcfg.norigins > 0 || hcfg.nallow > 0)) {
		fprintf(stderr, "hokitod: --http-origin and --metrics-allow go with --listen-http "
		                "or --listen-https\n");
		return 2;
	}
	hcfg.host = listen_http != NULL ? http_host : NULL;
	hcfg.tls_host = listen_https != NULL ? https_host : NULL;
	hcfg.cert_file = tcfg.cert_file;
	hcfg.key_file = tcfg.key_file;
	d.tls = NULL;
	if (listen_tls != NULL && tls_server_create(&d.tls, &tcfg, &terr) < 0) {
		log_error("cannot load the TLS certificate: %s", terr.text);
		return 1;
	}
	if (d.tls != NULL) {
		/* what a client asked to trust the certificate shows: the operator compares */
		char fp[TLS_FINGERPRINT_TEXT_LEN + 1];

		tls_server_fingerprint(d.tls, fp, sizeof fp);
		log_info("TLS certificate %s: %s", tcfg.cert_file, fp);
	}

	if (db == NULL)
		db = db_default(dbpath, sizeof dbpath);

	if (check)
		return check_store(db);
	signal(SIGPIPE, SIG_IGN);
	if (clients_fit_fd_limit(&ncfg.max_clients,
	                         FD_RESERVE + (rlim_t)FD_PER_READER * (lcfg.read_threads - 1)) <
	    0) {
		tls_server_free(d.tls);
		return 1;
	}
	if (store_db_open(db, &sopt, &store, &serr) < 0) {
		log_error("cannot open the store: %s", serr.text);
		tls_server_free(d.tls);
		return 1;
	}
	log_info("store %s (%s, schema %d, fsync %s)", store_db_name(store),
	         store_db_backend(store), store_db_schema(store),
	         sopt.fsync == STORE_FSYNC_ALWAYS ? "always" : "normal");
	warm_names();
	uv_loop_init(&loop);
	d.node = node_create(&loop, &ncfg, &lcfg, store);
	node_keep_days(d.node, keep_days);
	node_unused_account_days(d.node, unused_days);
	/*
	 * The handlers are in place before the port is bound: a SIGTERM that comes as soon as the
	 * port file is there (a test, systemd) stops the server cleanly, it does not kill it.
	 */
	for (size_t i = 0; i < NSTOP; i++) {
		uv_signal_init(&loop, &d.sig[i]);
		d.sig[i].data = &d;
		uv_signal_start(&d.sig[i], signal_cb, stop_signals[i]);
	}
	if ((rc = node_restore(d.node, &serr)) < 0) {
		log_error("cannot rebuild the games from the store: %s", serr.text);
	} else if ((rc = node_offload(d.node, &serr)) < 0) {
		log_error("cannot start the store: %s", serr.text);
	} else if ((rc = admin_start(d.node, admin_socket, db, sockpath, sizeof sockpath)) < 0) {
		/* logged */
	} else if (listen != NULL &&
	           (rc = node_listen(d.node, host, port, bound, sizeof bound)) < 0) {
		log_error("cannot listen on %s: %s", listen, uv_strerror(rc));
	} else if (listen_tls != NULL && (rc = node_listen_tls(d.node, tls_host, tls_port, d.tls,
	                                                       tls_bound, sizeof tls_bound)) < 0) {
		log_error("cannot listen on %s: %s", listen_tls, uv_strerror(rc));
	} else if (hcfg.host != NULL || hcfg.tls_host != NULL) {
		hcfg.max_line = ncfg.max_line;
		hcfg.keepalive_s = ncfg.keepalive_s;
		hcfg.timeout_s = (unsigned)(ncfg.hello_timeout_ms / 1000);
		hcfg.max_history_offset = lcfg.max_history_offset;
		rc = node_listen_http(d.node, &hcfg, http_bound, https_bound, sizeof http_bound);
	}
	if (rc < 0)
		return stop_early(&d, &loop, store);
	if (port_file != NULL) {
		FILE *f = fopen(port_file, "w");
		const char *p = listen != NULL ? strrchr(bound, ':') : NULL;
		const char *tp = listen_tls != NULL ? strrchr(tls_bound, ':') : NULL;

		const char *hp = hcfg.host != NULL ? strrchr(http_bound, ':') : NULL;
		const char *hsp = hcfg.tls_host != NULL ? strrchr(https_bound, ':') : NULL;

		if (f == NULL || (p != NULL && fprintf(f, "%s\n", p + 1) < 0) ||
		    (tp != NULL && fprintf(f, "%s\n", tp + 1) < 0) ||
		    (hp != NULL && fprintf(f, "%s\n", hp + 1) < 0) ||
		    (hsp != NULL && fprintf(f, "%s\n", hsp + 1) < 0) || fclose(f) != 0) {
			log_error("cannot write %s: %s", port_file, strerror(errno));
			return stop_early(&d, &loop, store);
		}
	}
	/* after the port file: a test that sees this line can read the file */
	if (listen != NULL)
		log_info("hokitod %s listening on %s", HOKITO_VERSION, bound);
	if (listen_tls != NULL)
		log_info("hokitod %s listening for TLS on %s", HOKITO_VERSION, tls_bound);
	if (hcfg.host != NULL)
		log_info("hokitod %s listening for HTTP on %s (http://%s/)", HOKITO_VERSION,
		         http_bound, http_bound);
	if (hcfg.tls_host != NULL)
		log_info("hokitod %s listening for HTTPS on %s", HOKITO_VERSION, https_bound);
	if (lcfg.test_clock)
		log_warn("--test-clock: game time moves only with test_clock requests (testing "
		         "aid)");
	uv_run(&loop, UV_RUN_DEFAULT);

	node_free(d.node);
	tls_server_free(d.tls);
	rc = uv_loop_close(&loop);
	if (rc != 0)
		log_warn("loop closed with handles left: %s", uv_strerror(rc));
	store_db_close(store);
	log_info("stopped");
	return 0;
}
