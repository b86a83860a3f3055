/*
 * log.h: the server's log: one line per record on stderr, with a UTC timestamp and a level.
 *
 * A single process-wide level is the only global of the server besides its signal handles; the
 * game layer logs through it too (it is not libuv).
 */
#ifndef HOKITO_SERVER_LOG_H
#define HOKITO_SERVER_LOG_H

enum log_level {
	LOG_ERROR = 0,
	LOG_WARN = 1,
	LOG_INFO = 2,
	LOG_DEBUG = 3,
};

/* Parse a level name ("error", "warn", "info", "debug"). Returns 0 or -1. */
int log_level_parse(const char *name, enum log_level *level);

/* Set the most verbose level written. */
void log_level_set(enum log_level level);

/* Whether records of this level are written. */
int log_enabled(enum log_level level);

/* Write one record ("2024-05-01T12:00:00.123Z info: ..."). */
void log_write(enum log_level level, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;

#define log_error(...) log_write(LOG_ERROR, __VA_ARGS__)
#define log_warn(...)  log_write(LOG_WARN, __VA_ARGS__)
#define log_info(...)  log_write(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_write(LOG_DEBUG, __VA_ARGS__)

#endif
