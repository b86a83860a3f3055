/*
 * store-backup.c: hokitod backup on the SQLite backend (store_db_backup(), the backend's backup
 * op): an online copy of a store file into a new file with SQLite's online backup API, beside a
 * running server, then SQLite's quick_check of the copy. The source is read on a connection of
 * its own (read-only, no lock of ours: the server's flock does not stop it) inside one read
 * transaction, so the copy is the store of that moment; in WAL mode that reader never holds the
 * server's writes up (only the WAL cannot start over until it ends, and grows meanwhile). The
 * pages go over in steps, each a progress report. A copy that fails is removed again. It also
 * holds store_files_remove(), which the backend's open uses for a file it made. It calls
 * store-open.c and store.c, never libuv.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "log.h"
#include "store-impl.h"
#include "store.h"

#define BACKUP_STEP_PAGES 256  /* pages a step: 1 MiB of 4 KiB pages, a few ms of reading */
#define BACKUP_BUSY_TRIES 1000 /* steps refused busy in a row (10 ms apart) before it gives up */

void
store_files_remove(const char *path)
{
	static const char *const suffix[] = {"-wal", "-shm", "-journal", ""};
	char name[4096 + 16];

	for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
		snprintf(name, sizeof name, "%s%s", path, suffix[i]);
		if (unlink(name) < 0 && errno != ENOENT)
			log_warn("cannot remove %s: %s", name, strerror(errno));
	}
}

/* Create file, which must not exist: 0, or a store error. */
static int
backup_create(const char *file, struct store_error *err)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == EEXIST)
		return store_fail(err, STORE_EINVAL,
		                  "%s exists already: a backup goes to a new file", file);
	return store_fail(err, STORE_EIO, "%s: cannot create (%s)", file, strerror(errno));
}

/* The copy's own failure, from its connection dst. */
static int
backup_fail(sqlite3 *dst, const char *file, int rc, const char *what, struct store_error *err)
{
	int primary = rc & 0xff;

	return store_fail(err,
	                  primary == SQLITE_FULL                                  ? STORE_EFULL
	                  : primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB ? STORE_ECORRUPT
	                                                                          : STORE_EIO,
	                  "%s: %s: %s", file, what,
	                  dst != NULL ? sqlite3_errmsg(dst) : sqlite3_errstr(rc));
}

/* Copy src's pages into dst in steps, inside src's read transaction (the caller's). */
static int
backup_pages(struct store *src, sqlite3 *dst, const char *file,
             void (*progress)(void *ctx, int64_t done, int64_t total), void *ctx,
             struct store_error *err)
{
	sqlite3_backup *b = sqlite3_backup_init(dst, "main", src->db, "main");
	int rc, busy = 0;

	if (b == NULL)
		return backup_fail(dst, file, sqlite3_errcode(dst), "starting the copy", err);
	for (;;) {
		rc = sqlite3_backup_step(b, BACKUP_STEP_PAGES);
		if (progress != NULL && rc != SQLITE_BUSY && rc != SQLITE_LOCKED) {
			int total = sqlite3_backup_pagecount(b);
			progress(ctx, total - sqlite3_backup_remaining(b), total);
		}
		if (rc == SQLITE_OK) {
			busy = 0;
			continue;
		}
		if ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && ++busy < BACKUP_BUSY_TRIES) {
			sqlite3_sleep(10);
			continue;
		}
		break;
	}
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		int primary = rc & 0xff;

		if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB ||
		    primary == SQLITE_IOERR)
			return store_sqlite_fail(src, rc, err, "reading it for a backup");
		return backup_fail(dst, file, rc, "copying the store's pages", err);
	}
	return 0;
}

/* SQLite's quick_check of the copy: 0, or STORE_ECORRUPT with its first finding. */
static int
backup_check(sqlite3 *dst, const char *file, struct store_error *err)
{
	char first[200] = "";
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(dst, "PRAGMA quick_check", -1, &s, NULL);

	if (rc != SQLITE_OK)
		return backup_fail(dst, file, rc, "checking the copy", err);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(s, 0);

		if (first[0] == '\0' && t != NULL && strcmp((const char *)t, "ok") != 0)
			snprintf(first, sizeof first, "%s", (const char *)t);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return backup_fail(dst, file, rc, "the copy fails SQLite's quick check", err);
	if (first[0] != '\0') {
		for (char *c = first; *c != '\0'; c++)
			if (*c == '\n')
				*c = ' ';
		return store_fail(err, STORE_ECORRUPT,
		                  "%s: the copy fails SQLite's quick check (%s): check the store "
		                  "(hokitod --check)",
		                  file, first);
	}
	return 0;
}

/* The file's data and its name in its directory on the disk. */
static int
backup_sync(const char *file, struct store_error *err)
{
	char dir[4096];
	int fd = open(file, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0 || fsync(fd) < 0)
		rc = store_fail(err, STORE_EIO, "%s: cannot sync (%s)", file, strerror(errno));
	if (fd >= 0)
		close(fd);
	store_dir_of(file, dir, sizeof dir);
	if (rc == 0 && ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	                (fsync(fd) < 0 && errno != EINVAL)))
		rc = store_fail(err, STORE_EIO, "%s: cannot sync the directory %s (%s)", file, dir,
		                strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}

int
store_backup(const char *path, const char *file,
             void (*progress)(void *ctx, int64_t done, int64_t total), void *ctx,
             struct store_error *err)
{
	struct store *src;
	sqlite3 *dst = NULL;
	struct stat sb;
	int64_t tables;
	int rc;

	if (strcmp(path, ":memory:") == 0)
		return store_fail(err, STORE_EINVAL, "--db :memory: keeps nothing to back up");
	if (stat(path, &sb) < 0)
		return store_fail(err, errno == ENOENT ? STORE_ENOTFOUND : STORE_EIO, "%s: %s",
		                  path,
		                  errno == ENOENT ? "there is no store there" : strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return store_fail(err, STORE_EIO, "%s: not a regular file", path);
	if ((rc = store_attach(path, SQLITE_OPEN_READONLY, 0, &src, err)) < 0)
		return rc;
	sqlite3_busy_timeout(src->db, 5000);
	if ((rc = backup_create(file, err)) < 0) {
		store_close(src);
		return rc;
	}
	rc = sqlite3_open_v2(file, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		rc = backup_fail(dst, file, rc, "cannot open", err);
	/* one moment: a read transaction held from here across every step */
	else if ((rc = store_exec(src, "BEGIN", "beginning to read", err)) == 0 &&
	         (rc = store_int(src, "SELECT COUNT(*) FROM sqlite_master", &tables, err)) == 0)
		rc = backup_pages(src, dst, file, progress, ctx, err);
	store_close(src); /* the read transaction ends */
	if (rc == 0)
		rc = backup_check(dst, file, err);
	if (dst != NULL && sqlite3_close(dst) != SQLITE_OK && rc == 0)
		rc = store_fail(err, STORE_EIO, "%s: cannot close the copy", file);
	if (rc == 0)
		rc = backup_sync(file, err);
	if (rc < 0)
		store_files_remove(file);
	return rc;
}
