/*
 * hokito-engine.c: the rules (and later the computer opponent) on the command line.
 *
 *   hokito-engine start  --game G [--seed N] [--variant V]     a start position
 *   hokito-engine moves  --game G POSITION                     every legal move, one a line
 *   hokito-engine perft  --game G --depth D [--divide] POSITION
 *   hokito-engine play   --game G POSITION MOVE...             the position after the moves
 *   hokito-engine analyse --game G [--time MS | --depth D] POSITION   best move, score, PV
 *   hokito-engine bot    --host H --port P --level N [--games K]  a networked computer player
 *   hokito-engine record [--game G] FILE|-                     check a game record
 *
 * Output goes to stdout, errors to stderr as one line starting "hokito-engine: ". Exit status:
 * 0 success, 1 an illegal move, 2 bad usage, bad text or output that cannot be written. This file
 * owns only its command line; every rule comes from common/ through game.h.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "engine.h"
#include "game.h"
#include "hokito-config.h"
#include "record.h"
#include "rules-text.h"
#include "xmalloc.h"

struct engine_cmd {
	const char *name;
	const char *usage;   /* one line: the arguments */
	const char *summary; /* one line: what it does */
	const char *help;    /* the rest of its --help text */
	const char *opts;    /* the options it takes besides --game and --help, " --a --b " */
	int (*run)(struct engine_opts *o);
	const char *game; /* what --game means for it, when not "hokito (default) or oxono" */
};

/*
 * The error is one line of UTF-8 whatever the user typed: the arguments it quotes may hold line
 * breaks, other control characters or bytes that are not UTF-8, and those are written as \n, \t,
 * \r or \xNN (a backslash itself is left alone). The C1 controls (NEL, U+0085, among them) and
 * the Unicode line and paragraph separators U+2028 and U+2029 break lines too: each of their
 * bytes is written \xNN. Nothing is cut: a long quote is followed by the rest of the message.
 */
int
engine_fail(int status, const char *fmt, ...)
{
	const unsigned char *s;
	char first[512], *msg = first;
	size_t n;
	int len;
	va_list ap;

	/* The whole message, however long the quote: the reason often comes after it. A message
	 * longer than first is written again into a block of its size. */
	for (size_t size = sizeof first;;) {
		va_start(ap, fmt);
		len = vsnprintf(msg, size, fmt, ap);
		va_end(ap);
		if (len < 0 || (size_t)len < size)
			break;
		size = (size_t)len + 1;
		msg = xmalloc(size);
	}
	n = len > 0 ? (size_t)len : 0;
	s = (const unsigned char *)msg;
	fputs("hokito-engine: ", stderr);
	for (size_t i = 0; i < n;) {
		size_t k = record_utf8_len(s + i, n - i);
		int line_sep =
		        k == 3 && s[i] == 0xe2 && s[i + 1] == 0x80 && (s[i + 2] & 0xfe) == 0xa8;
		if (k > 0 && !record_utf8_control(s + i, k) && !line_sep) {
			fwrite(s + i, 1, k, stderr);
			i += k;
			continue;
		}
		if (s[i] == '\n')
			fputs("\\n", stderr);
		else if (s[i] == '\t')
			fputs("\\t", stderr);
		else if (s[i] == '\r')
			fputs("\\r", stderr);
		else
			fprintf(stderr, "\\x%02x", s[i]);
		i++;
	}
	fputc('\n', stderr);
	if (msg != first)
		free(msg);
	return status;
}

/* Parse a whole decimal number in [0, max]. */
static int
engine_number(const char *text, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (text[0] < '0' || text[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno != 0 || *end != '\0' || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * The position argument: one argument ("BOARD SIDE", quoted), or two when the shell split the
 * board from the side letter. Consumes what it used from o->args.
 */
int
engine_position(struct engine_opts *o, struct game *g)
{
	struct game_error err;
	char *joined = NULL;
	int used = 1, rc;

	if (o->nargs < 1)
		return engine_fail(EXIT_USAGE, "no position given (try --help)");
	if (o->nargs >= 2 && strlen(o->args[1]) == 1 && strchr(o->args[0], ' ') == NULL &&
	    strchr("bwp", o->args[1][0]) != NULL) {
		size_t n = strlen(o->args[0]) + 3;
		joined = xmalloc(n);
		snprintf(joined, n, "%s %s", o->args[0], o->args[1]);
		used = 2;
	}
	/* The whole text is parsed, however long: a cut one could be refused for the wrong reason.
	 */
	rc = game_parse(g, o->kind, joined != NULL ? joined : o->args[0], &err);
	free(joined);
	if (rc < 0) {
		if (err.pos >= 0)
			return engine_fail(EXIT_USAGE, "bad %s position at character %d: %s",
			                   game_kind_name(o->kind), err.pos + 1, err.text);
		return engine_fail(EXIT_USAGE, "bad %s position: %s", game_kind_name(o->kind),
		                   err.text);
	}
	o->args += used;
	o->nargs -= used;
	return 0;
}

/* The position argument, and nothing after it. */
int
engine_position_only(struct engine_opts *o, struct game *g)
{
	int rc = engine_position(o, g);

	if (rc != 0)
		return rc;
	if (o->nargs > 0)
		return engine_fail(EXIT_USAGE, "unexpected argument '%s'", o->args[0]);
	return 0;
}

static void
engine_print_outcome(const struct game *g)
{
	struct game_outcome out;

	game_outcome(g, &out);
	if (out.end == GAME_END_NONE)
		return;
	if (out.winner < 0)
		printf("result: draw\n");
	else
		printf("result: %s wins\n", game_side_name(g->kind, out.winner));
	if (game_kind_has(g->kind, GAME_HAS_SCORES))
		printf("score: %s %d %s %d\n", game_side_name(g->kind, 0), out.score[0],
		       game_side_name(g->kind, 1), out.score[1]);
}

static int
engine_start(struct engine_opts *o)
{
	char text[GAME_TEXT_MAX];
	struct game_error err;
	struct game g;

	if (o->nargs > 0)
		return engine_fail(EXIT_USAGE, "start takes no position ('%s')", o->args[0]);
	if (!o->have_seed && getrandom(&o->seed, sizeof o->seed, 0) != sizeof o->seed)
		return engine_fail(EXIT_USAGE, "cannot read the system's random source");
	if (game_start(&g, o->kind, o->variant, o->seed, &err) < 0)
		return engine_fail(EXIT_USAGE, "%s", err.text);
	game_format(&g, text, sizeof text);
	printf("%s\n", text);
	return 0;
}

static int
engine_moves(struct engine_opts *o)
{
	struct game_move moves[GAME_MOVES_MAX];
	char text[GAME_MOVE_TEXT];
	struct game g;
	int rc, n;

	if ((rc = engine_position_only(o, &g)) != 0)
		return rc;
	n = game_moves(&g, moves);
	for (int i = 0; i < n; i++) {
		game_move_format(g.kind, moves[i], text, sizeof text);
		printf("%s\n", text);
	}
	return 0;
}

static int
engine_perft(struct engine_opts *o)
{
	struct game_move moves[GAME_MOVES_MAX];
	char text[GAME_MOVE_TEXT];
	uint64_t total = 0;
	struct game g;
	int rc, n;

	if ((rc = engine_position_only(o, &g)) != 0)
		return rc;
	if (o->depth < 0)
		return engine_fail(EXIT_USAGE, "perft needs --depth D (try --help)");
	if (!o->divide || o->depth == 0) {
		printf("%" PRIu64 "\n", game_perft(&g, o->depth));
		return 0;
	}
	n = game_moves(&g, moves);
	for (int i = 0; i < n; i++) {
		struct game child = g;
		uint64_t count;
		game_apply(&child, moves[i]);
		count = game_perft(&child, o->depth - 1);
		total += count;
		game_move_format(g.kind, moves[i], text, sizeof text);
		printf("%s: %" PRIu64 "\n", text, count);
	}
	printf("%" PRIu64 "\n", total);
	return 0;
}

static int
engine_play(struct engine_opts *o)
{
	char text[GAME_TEXT_MAX];
	struct game_error err;
	struct game g;
	int rc;

	if ((rc = engine_position(o, &g)) != 0)
		return rc;
	for (int i = 0; i < o->nargs; i++) {
		struct game_move m;
		rc = game_move_parse(&g, o->args[i], &m, &err);
		if (rc == GAME_ESYNTAX && err.pos >= 0)
			return engine_fail(EXIT_USAGE, "move %d '%s' at character %d: %s", i + 1,
			                   o->args[i], err.pos + 1, err.text);
		if (rc == GAME_ESYNTAX)
			return engine_fail(EXIT_USAGE, "move %d '%s': %s", i + 1, o->args[i],
			                   err.text);
		if (rc < 0)
			return engine_fail(EXIT_ILLEGAL, "move %d '%s' is illegal: %s", i + 1,
			                   o->args[i], err.text);
		game_apply(&g, m);
	}
	game_format(&g, text, sizeof text);
	printf("%s\n", text);
	engine_print_outcome(&g);
	return 0;
}

/* The rules of the game in words, as the client's rules page and hokito(6) show them. */
static int
engine_rules(struct engine_opts *o)
{
	enum game_kind kind = o->kind;

	/* the game may also be named as the client's rules command names it: rules oxono */
	if (o->nargs > 1 || (o->nargs == 1 && game_kind_parse(o->args[0], &kind) < 0)) {
		char kinds[128];

		game_kind_list(kinds, sizeof kinds, ", ", " or ");
		return engine_fail(EXIT_USAGE, "rules takes one game at most (%s), not '%s'", kinds,
		                   o->args[o->nargs - 1]);
	}
	if (o->nargs == 1 && o->have_kind && kind != o->kind)
		return engine_fail(EXIT_USAGE, "rules: '%s' and --game %s name two games",
		                   o->args[0], game_kind_name(o->kind));
	fputs(rules_text_get(kind), stdout);
	return 0;
}

static const struct engine_cmd engine_cmds[] = {
        {"start", "start [--game G] [--seed N] [--variant V]", "print a start position",
         "  --seed N      the seed of the random setup (default: a random one)\n"
         "  --variant V   HOKITO: standard (default) or random36\n"
         "\nexample:\n  hokito-engine start --game hokito --seed 42\n",
         " --seed --variant ", engine_start, NULL},
        {"moves", "moves [--game G] POSITION", "print every legal move, one a line",
         "\nexample:\n  hokito-engine moves --game oxono "
         "'-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,O,-,-/-,-,X,-,-,-/-,-,-,-,-,-/-,-,-,-,-,- p'\n",
         "", engine_moves, NULL},
        {"perft", "perft [--game G] --depth D [--divide] POSITION",
         "count the leaves of the move tree; the last line is the count",
         "  --depth D     plies to search (0 to 64)\n"
         "  --divide      first one line MOVE: COUNT for each legal move\n"
         "\nexample:\n  hokito-engine perft --game hokito --depth 3 \"$(hokito-engine start "
         "--seed 1)\"\n",
         " --depth --divide ", engine_perft, NULL},
        {"play", "play [--game G] POSITION [MOVE...]",
         "apply moves; print the position, and the result once over",
         "\nexample:\n  hokito-engine play --game hokito \"$(hokito-engine start --seed 1)\" "
         "a1-c1 a4-a5\n",
         "", engine_play, NULL},
        {"analyse", "analyse [--game G] [--time MS | --depth D] POSITION",
         "search a position: best move, evaluation or proved result, PV, nodes",
         "  --time MS     think for about MS milliseconds (default 1000)\n"
         "  --depth D     search exactly D plies instead (1 to 64; deterministic)\n"
         "\nexample:\n  hokito-engine analyse --game hokito --depth 4 \"$(hokito-engine start "
         "--seed 1)\"\n",
         " --time --depth ", engine_analyse, NULL},
        {"bot",
         "bot [--host H] [--port P] [--game G] [--level N] [--games K] [--name NAME] "
         "[--time MS] [--seed N] [--tls] [--tls-ca FILE] [--tls-accept-new]",
         "play over the network as an ordinary player",
         "  --host H      the server's address (default 127.0.0.1; hokitos://H:P: TLS)\n"
         "  --port P      the server's port (default 7777)\n"
         "  --level N     strength 1 (beginner) to 8 (full strength; default 8)\n"
         "  --games K     leave after K games (default: play on)\n"
         "  --name NAME   the display name (default bot-lN)\n"
         "  --time MS     think MS milliseconds per move instead of the level's node budget\n"
         "  --seed N      the seed of the level's noise (default 0)\n"
         "  --tls         TLS: the system's CAs check the server; --tls-ca FILE: this CA\n"
         "                instead; else the certificate must be pinned already, or\n"
         "                --tls-accept-new pins it (a bot never asks); --tls-insecure:\n"
         "                no checks (tests only, and it says so)\n"
         "\nThe bot quick-pairs for the game kind (--game): it joins a waiting player or\n"
         "opens a game and plays whoever joins, one game after the other.\n"
         "\nexample:\n  hokito-engine bot --host 127.0.0.1 --port 7777 --level 5 --games 3\n",
         " --host --port --level --games --name --time --seed --tls --tls-ca --tls-accept-new "
         "--tls-insecure ",
         engine_bot, NULL},
        {"record", "record [--game G] FILE|-", "check a game record and print its final position",
         "\nThe record names its game; --game is not needed, and must agree if given.\n"
         "FILE - reads standard input.\n"
         "Exit status 1: a move the rules refuse; 2: bad text, or a result, reason or\n"
         "score the moves contradict (the place is printed as FILE:LINE:COLUMN).\n"
         "\nexample:\n  hokito-engine record game.txt\n",
         "", engine_record, "the record's game, hokito or oxono (checked)"},
        {"rules", "rules [G] [--game G]", "print the rules of the game, in words",
         "\nThe same words as the client's rules page (R) and hokito(6)'s RULES.\n"
         "\nexamples:\n  hokito-engine rules oxono\n  hokito-engine rules --game oxono\n",
         "", engine_rules, NULL},
};

#define ENGINE_NCMDS (sizeof engine_cmds / sizeof engine_cmds[0])

static void
engine_usage(FILE *f)
{
	fprintf(f, "usage: hokito-engine COMMAND [OPTIONS] [ARGS]\n"
	           "The rules of HOKITO and OXONO, and the computer opponent.\n"
	           "Commands:\n");
	for (size_t i = 0; i < ENGINE_NCMDS; i++)
		fprintf(f, "  %-7s %s\n", engine_cmds[i].name, engine_cmds[i].summary);
	fprintf(f, "Options:\n"
	           "  --game G      hokito (default) or oxono, for every command\n"
	           "  COMMAND --help  that command's options;  -V, --version  the version\n"
	           "A POSITION is one quoted argument, board and side to move (hokito-engine(6)).\n"
	           "Exit status: 0 success, 1 illegal move, 2 bad usage, text or output.\n"
	           "Examples:\n"
	           "  hokito-engine start --seed 7\n"
	           "  hokito-engine moves \"$(hokito-engine start --seed 7)\"\n"
	           "  hokito-engine perft --depth 3 \"$(hokito-engine start --seed 7)\"\n"
	           "  hokito-engine analyse --time 500 \"$(hokito-engine start --seed 7)\"\n");
}

static void
engine_cmd_usage(const struct engine_cmd *c)
{
	printf("usage: hokito-engine %s\n\n%s.\n\n  --game G      %s\n%s", c->usage, c->summary,
	       c->game != NULL ? c->game : "hokito (default) or oxono", c->help);
}

/* Whether command c takes option arg ("--depth"); --game and --help go with every command. */
static int
engine_cmd_takes(const struct engine_cmd *c, const char *arg)
{
	const char *p = c->opts;
	size_t n = strlen(arg);

	while ((p = strstr(p, arg)) != NULL) {
		if (p[-1] == ' ' && p[n] == ' ')
			return 1;
		p += n;
	}
	return 0;
}

/* Whether some command takes option arg: the options are those the commands list. */
static int
engine_option_known(const char *arg)
{
	for (size_t i = 0; i < ENGINE_NCMDS; i++)
		if (engine_cmd_takes(&engine_cmds[i], arg))
			return 1;
	return 0;
}

/*
 * Parse the options after the command name; positional arguments are kept in order. "--" ends
 * the options: what follows is positional even if it starts with "--". An option that exists
 * but that this command does not take is bad usage, like an unknown one.
 */
static int
engine_options(const struct engine_cmd *c, int argc, char **argv, struct engine_opts *o)
{
	int only_args = 0;

	o->args = argv;
	o->nargs = 0;
	for (int i = 0; i < argc; i++) {
		char *arg = argv[i], *value = NULL;
		char *eq = strchr(arg, '=');
		uint64_t n;

		/* No position, move or FILE starts with '-' and a letter: "-s" is an option. */
		if (!only_args && arg[0] == '-' && isalpha((unsigned char)arg[1]))
			return engine_fail(EXIT_USAGE, "unknown option '%s' (try %s --help)", arg,
			                   c->name);
		if (only_args || strncmp(arg, "--", 2) != 0) {
			o->args[o->nargs++] = arg;
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			only_args = 1;
			continue;
		}
		if (eq != NULL)
			*eq = '\0', value = eq + 1;
		if (strcmp(arg, "--game") != 0 && !engine_option_known(arg))
			return engine_fail(EXIT_USAGE, "unknown option '%s' (try --help)", arg);
		if (strcmp(arg, "--game") != 0 && !engine_cmd_takes(c, arg))
			return engine_fail(EXIT_USAGE, "%s takes no option %s (try %s --help)",
			                   c->name, arg, c->name);
		if (strcmp(arg, "--divide") == 0) {
			if (value != NULL)
				return engine_fail(EXIT_USAGE, "option --divide takes no value");
			o->divide = 1;
			continue;
		}
		if (strcmp(arg, "--tls") == 0 || strcmp(arg, "--tls-accept-new") == 0 ||
		    strcmp(arg, "--tls-insecure") == 0) {
			if (value != NULL)
				return engine_fail(EXIT_USAGE, "option %s takes no value", arg);
			o->tls.tls = 1;
			o->tls.accept_new |= strcmp(arg, "--tls-accept-new") == 0;
			o->tls.insecure |= strcmp(arg, "--tls-insecure") == 0;
			continue;
		}
		if (value == NULL) {
			if (i + 1 >= argc)
				return engine_fail(EXIT_USAGE, "option %s needs a value", arg);
			value = argv[++i];
		}
		if (strcmp(arg, "--game") == 0) {
			if (game_kind_parse(value, &o->kind) < 0) {
				char kinds[128];
				game_kind_list(kinds, sizeof kinds, ", ", " or ");
				return engine_fail(EXIT_USAGE, "unknown game '%s' (%s)", value,
				                   kinds);
			}
			o->have_kind = 1;
		} else if (strcmp(arg, "--seed") == 0) {
			if (engine_number(value, UINT64_MAX, &o->seed) < 0)
				return engine_fail(EXIT_USAGE,
				                   "--seed takes a whole number from 0 to %" PRIu64
				                   ", not '%s'",
				                   UINT64_MAX, value);
			o->have_seed = 1;
		} else if (strcmp(arg, "--variant") == 0) {
			o->variant = value;
		} else if (strcmp(arg, "--host") == 0) {
			o->host = value;
		} else if (strcmp(arg, "--tls-ca") == 0) {
			o->tls.ca_file = value;
			o->tls.tls = 1;
		} else if (strcmp(arg, "--name") == 0) {
			o->name = value;
		} else if (strcmp(arg, "--time") == 0) {
			if (engine_number(value, 3600000, &n) < 0 || n == 0)
				return engine_fail(
				        EXIT_USAGE,
				        "--time takes milliseconds from 1 to 3600000, not "
				        "'%s'",
				        value);
			o->time_ms = n;
		} else if (strcmp(arg, "--level") == 0) {
			if (engine_number(value, 8, &n) < 0 || n == 0)
				return engine_fail(
				        EXIT_USAGE,
				        "--level takes a whole number from 1 to 8, not '%s'",
				        value);
			o->level = (int)n;
		} else if (strcmp(arg, "--port") == 0) {
			if (engine_number(value, 65535, &n) < 0 || n == 0)
				return engine_fail(
				        EXIT_USAGE,
				        "--port takes a whole number from 1 to 65535, not "
				        "'%s'",
				        value);
			o->port = (int)n;
		} else if (strcmp(arg, "--games") == 0) {
			if (engine_number(value, 1000000, &n) < 0)
				return engine_fail(
				        EXIT_USAGE,
				        "--games takes a whole number from 0 to 1000000, not "
				        "'%s'",
				        value);
			o->games = (int)n;
		} else {
			/* perft counts depth 0 (the position itself); a search needs a move */
			int least = strcmp(c->name, "perft") == 0 ? 0 : 1;
			if (engine_number(value, 64, &n) < 0 || n < (uint64_t)least)
				return engine_fail(
				        EXIT_USAGE,
				        "--depth takes a whole number from %d to 64, not "
				        "'%s'",
				        least, value);
			o->depth = (int)n;
		}
	}
	return 0;
}

/* The command line: run the command it names. Returns the exit status. */
static int
engine_main(int argc, char **argv)
{
	struct engine_opts o = {.kind = GAME_HOKITO, .depth = -1};
	struct game_error err;
	const struct engine_cmd *cmd = NULL;
	int rc;

	if (argc < 2)
		return engine_fail(EXIT_USAGE, "no command given (usage: hokito-engine COMMAND "
		                               "[OPTIONS] [ARGS]; try --help)");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		engine_usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("hokito-engine %s\n", HOKITO_VERSION);
		return 0;
	}
	for (size_t i = 0; i < ENGINE_NCMDS; i++)
		if (strcmp(argv[1], engine_cmds[i].name) == 0)
			cmd = &engine_cmds[i];
	if (cmd == NULL && argv[1][0] == '-')
		return engine_fail(EXIT_USAGE,
		                   "'%s' before the command: the command comes first "
		                   "(hokito-engine COMMAND [OPTIONS] [ARGS]; try --help)",
		                   argv[1]);
	if (cmd == NULL)
		return engine_fail(EXIT_USAGE, "unknown command '%s' (try --help)", argv[1]);
	/* COMMAND --help (or -h) prints the help whatever else the line holds. */
	for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			engine_cmd_usage(cmd);
			return 0;
		}
	if ((rc = engine_options(cmd, argc - 2, argv + 2, &o)) != 0)
		return rc;
	/* game_variant_check() reads "" as the default; on the command line it is a variant that
	 * does not exist (checked once --game, wherever it stands, is known). */
	if (o.variant != NULL && o.variant[0] == '\0')
		return engine_fail(EXIT_USAGE, "unknown variant '' for %s (known: %s)",
		                   game_kind_name(o.kind), game_class_of(o.kind)->variant_text);
	if (game_variant_check(o.kind, o.variant, &err) < 0)
		return engine_fail(EXIT_USAGE, "%s", err.text);
	return cmd->run(&o);
}

int
main(int argc, char **argv)
{
	int rc = engine_main(argc, argv);

	/* Output that never arrived is not a success (a full disk, a closed pipe reader). */
	if (fflush(stdout) != 0 || ferror(stdout))
		return engine_fail(rc != 0 ? rc : EXIT_USAGE, "cannot write the output: %s",
		                   strerror(errno));
	return rc;
}
