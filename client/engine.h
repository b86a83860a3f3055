/*
 * engine.h: what the commands of hokito-engine share: the parsed options, error reporting, the
 * position argument, and the computer-opponent commands kept in their own files
 * (engine-analyse.c, engine-bot.c).
 */
#ifndef HOKITO_CLIENT_ENGINE_H
#define HOKITO_CLIENT_ENGINE_H

#include <stdint.h>

#include "game.h"
#include "tls-link.h"

#define EXIT_ILLEGAL 1
#define EXIT_USAGE   2

/* Options shared by the commands; each command reads the ones it knows. */
struct engine_opts {
	enum game_kind kind;
	int have_kind; /* --game was given */
	const char *variant;
	uint64_t seed;
	int have_seed;
	int depth;
	int divide;
	uint64_t time_ms;            /* analyse, bot: time per move (0: not given) */
	int level;                   /* bot: 1..8 (0: not given) */
	const char *host;            /* bot: server address (borrowed from argv) */
	int port;                    /* bot: server port (0: not given) */
	int games;                   /* bot: games to play before leaving (0: no bound) */
	const char *name;            /* bot: display name (borrowed from argv) */
	struct tls_link_options tls; /* bot: --tls, --tls-ca, --tls-accept-new, --tls-insecure */
	char **args;                 /* positional arguments, borrowed from argv */
	int nargs;
};

/* Print "hokito-engine: ..." and a newline on stderr. Returns status. */
int engine_fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;

/*
 * Parse the position argument (one argument, or two when the shell split off the side letter)
 * into g, consuming it from o->args. Returns 0 or an exit status after printing the error.
 */
int engine_position(struct engine_opts *o, struct game *g);

/* The position argument and nothing after it (see engine_position()). */
int engine_position_only(struct engine_opts *o, struct game *g);

/* hokito-engine analyse: search a position and print the best move, score, PV and speed. */
int engine_analyse(struct engine_opts *o);

/* hokito-engine bot: play over the network as an ordinary player. */
int engine_bot(struct engine_opts *o);

/* hokito-engine record: check a game record (engine-record.c) and print its final position. */
int engine_record(struct engine_opts *o);

#endif
