/*
 * progress.c: the progress of an operator's long command (hokitod migrate, hokitod backup) on
 * standard error. On a terminal one line is redrawn in place ("\r", then the line, then an erase
 * to its end), at most ten times a second: a bar, done / total, the rate and the time left, in 79
 * columns at most. Off a terminal (a log, a pipe) there is nothing to redraw: a line every
 * PROGRESS_EVERY_S seconds, and one at the end of the phase, each whole, starting with
 * "hokitod: COMMAND:". It owns nothing but the caller's struct, and reads the monotonic clock.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define PROGRESS_BAR     20  /* the bar's columns */
#define PROGRESS_TTY_GAP 0.1 /* seconds between two draws on a terminal */

double
progress_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
progress_start(struct progress *p, const char *command, const char *what, const char *unit,
               int64_t total)
{
	memset(p, 0, sizeof *p);
	p->command = command;
	p->what = what;
	p->unit = unit;
	p->total = total;
	p->tty = isatty(STDERR_FILENO);
	p->start = p->shown = progress_now();
}

double
progress_seconds(const struct progress *p)
{
	return progress_now() - p->start;
}

/* Seconds as "1:05:09" or "5:09" into buf. */
static void
progress_clock(double s, char *buf, size_t size)
{
	unsigned t = !(s > 0) ? 0 : s > 359999 ? 359999 : (unsigned)(s + 0.5); /* 99:59:59 */

	if (t >= 3600)
		snprintf(buf, size, "%u:%02u:%02u", t / 3600 % 100, t / 60 % 60, t % 60);
	else
		snprintf(buf, size, "%u:%02u", t / 60 % 60, t % 60);
}

/* Draw or write the line for p now. */
static void
progress_show(struct progress *p, int last)
{
	double s = progress_now() - p->start;
	double rate = s > 0 ? (double)p->done / s : 0;
	char left[32];

	progress_clock(rate > 0 ? (double)(p->total - p->done) / rate : 0, left, sizeof left);
	if (p->tty) {
		char bar[PROGRESS_BAR + 1];
		int full = p->total > 0 ? (int)(p->done * PROGRESS_BAR / p->total) : PROGRESS_BAR;

		for (int i = 0; i < PROGRESS_BAR; i++)
			bar[i] = i < full ? '#' : '.';
		bar[PROGRESS_BAR] = '\0';
		fprintf(stderr, "\r%-9.9s [%s] %lld/%lld %s  %.0f/s  ETA %s\033[K%s", p->what, bar,
		        (long long)p->done, (long long)p->total, p->unit, rate, left,
		        last ? "\n" : "");
	} else if (!last) {
		fprintf(stderr, "hokitod: %s: %s: %lld/%lld %s, %.0f %s/s, about %s left\n",
		        p->command, p->what, (long long)p->done, (long long)p->total, p->unit, rate,
		        p->unit, left);
	} else {
		char took[32];

		progress_clock(s, took, sizeof took);
		fprintf(stderr, "hokitod: %s: %s: %lld/%lld %s in %s, %.0f %s/s\n", p->command,
		        p->what, (long long)p->done, (long long)p->total, p->unit, took, rate,
		        p->unit);
	}
	fflush(stderr);
	p->drawn = p->tty && !last;
	p->shown = progress_now();
}

void
progress_set(struct progress *p, int64_t done)
{
	double gap = progress_now() - p->shown;

	p->done = done;
	if (gap >= (p->tty ? PROGRESS_TTY_GAP : PROGRESS_EVERY_S))
		progress_show(p, 0);
}

void
progress_end(struct progress *p)
{
	progress_show(p, 1);
}

void
progress_abandon(struct progress *p)
{
	if (p->drawn)
		fputc('\n', stderr);
	p->drawn = 0;
}
