/*
 * slowsync.c: an LD_PRELOAD shim that makes the disk slow for one file, the SQLite WAL.
 *
 * It wraps fdatasync() and fsync(): for a file descriptor whose path (readlink of
 * /proc/self/fd/N) ends in "-wal", it sleeps HOKITO_SLOWSYNC_MS milliseconds, then calls the
 * real function (dlsym(RTLD_NEXT)). With HOKITO_SLOWSYNC_LOG set to a file, it appends one line
 * per such call: "START END SIZE", the CLOCK_MONOTONIC times in nanoseconds when the call began
 * and returned (Python's time.monotonic() reads the same clock) and the WAL's size when it
 * began, which is what a successful call makes durable. Every other descriptor goes straight to
 * the real call. Used by tests/integration/test-server-fsync.py; never part of hokitod.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef int (*sync_fn)(int);

/* Nanoseconds on the monotonic clock. */
static long long
slowsync_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Whether fd is a file whose name ends in "-wal". */
static int
slowsync_is_wal(int fd)
{
	char link[64], path[4096];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof path - 1);
	return n >= 4 && memcmp(path + n - 4, "-wal", 4) == 0;
}

/* Call real on fd, slowly and logged if fd is the WAL and HOKITO_SLOWSYNC_MS is set. */
static int
slowsync_call(const char *name, int fd)
{
	sync_fn real;
	const char *ms = getenv("HOKITO_SLOWSYNC_MS");
	const char *log = getenv("HOKITO_SLOWSYNC_LOG");
	struct stat sb;
	long long start;
	int rc, err, fdlog;

	*(void **)&real = dlsym(RTLD_NEXT, name); /* POSIX's way to get a function from dlsym */
	if (real == NULL)
		abort();
	if (ms == NULL || !slowsync_is_wal(fd))
		return real(fd);
	start = slowsync_now();
	if (fstat(fd, &sb) < 0)
		sb.st_size = -1;
	usleep((useconds_t)(atol(ms) * 1000));
	rc = real(fd);
	err = errno;
	if (log != NULL &&
	    (fdlog = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) >= 0) {
		dprintf(fdlog, "%lld %lld %lld\n", start, slowsync_now(), (long long)sb.st_size);
		close(fdlog);
	}
	errno = err;
	return rc;
}

int
fdatasync(int fd)
{
	return slowsync_call("fdatasync", fd);
}

int
fsync(int fd)
{
	return slowsync_call("fsync", fd);
}
