/*
 * log.c: timestamped records on stderr.
 *
 * Each record is formatted into one buffer and written with a single fputs, so records never
 * interleave. Control characters in a record (a peer's text: the client member of a hello, say)
 * are written as '?', so that a record is always one line and no peer can forge another. It owns
 * nothing but the level.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"

static enum log_level log_level = LOG_INFO;
static const char *const level_names[] = {"error", "warn", "info", "debug"};

int
log_level_parse(const char *name, enum log_level *level)
{
	for (int i = 0; i < 4; i++) {
		if (strcmp(name, level_names[i]) == 0) {
			*level = (enum log_level)i;
			return 0;
		}
	}
	return -1;
}

void
log_level_set(enum log_level level)
{
	log_level = level;
}

int
log_enabled(enum log_level level)
{
	return level <= log_level;
}

void
log_write(enum log_level level, const char *fmt, ...)
{
	char line[1024];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n;

	if (!log_enabled(level))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof line,
	             "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s: ", tm.tm_year + 1900, tm.tm_mon + 1,
	             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
	             level_names[level]);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	for (char *p = line + n; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	strcat(line, "\n");
	fputs(line, stderr);
}
