/*
 * log.h: the server's log: one line per record on stderr, with a UTC timestamp and a level.
 *
 * A single process-wide level is the only global of the server besides its signal handles; the
 * game layer logs through it too (it is not libuv).
 */
#ifndef HOKITO_SERVER_LOG_H
#define HOKITO_SERVER_LOG_H

#include <stddef.h>

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

/*
 * Copy in into out (size bytes, NUL-terminated) with every character escaped that could change how
 * a record reads: C0 controls and DEL as \xHH, C1 controls and the bidirectional controls
 * (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) as \uHHHH, and bytes that are not
 * UTF-8 as \xHH. Stops early, between characters, when out is full. Returns the length written.
 */
size_t log_escape(const char *in, char *out, size_t size);

/* Write one record ("2024-05-01T12:00:00.123Z info: ..."), escaped by log_escape(). */
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
