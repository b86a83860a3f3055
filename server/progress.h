/*
 * progress.h: how far an operator's long command has gone (progress.c), on standard error: on a
 * terminal one line redrawn in place, else a line now and then, for a log.
 */
#ifndef HOKITO_SERVER_PROGRESS_H
#define HOKITO_SERVER_PROGRESS_H

#include <stdint.h>

#define PROGRESS_EVERY_S 10 /* seconds between two lines when standard error is no terminal */

struct progress {
	const char *command; /* "migrate": the lines off a terminal say "hokitod: migrate: ..." */
	const char *what;    /* "copying", "checking" (borrowed) */
	const char *unit;    /* "games", "pages" (borrowed) */
	int tty;             /* standard error is a terminal */
	int64_t done, total;
	double start; /* monotonic seconds at progress_start() */
	double shown; /* ... when a line was last drawn or written */
	int drawn;    /* a line on the terminal that the next one replaces */
};

/* Begin a phase of total units (what and unit borrowed for its life); draws nothing yet. */
void progress_start(struct progress *p, const char *command, const char *what, const char *unit,
                    int64_t total);

/* done units so far: redrawn on a terminal (at most ten times a second), else a line when
 * PROGRESS_EVERY_S seconds have gone by since the last. */
void progress_set(struct progress *p, int64_t done);

/* The phase is over: its last line (a terminal's is ended with its newline). */
void progress_end(struct progress *p);

/* The phase failed: a line drawn on the terminal is ended, so that the error has its own. */
void progress_abandon(struct progress *p);

/* Seconds since progress_start(). */
double progress_seconds(const struct progress *p);

/* The monotonic clock in seconds. */
double progress_now(void);

#endif
