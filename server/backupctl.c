/*
 * backupctl.c: `hokitod backup FILE [--db PATH]`, the operators' online copy of the store into a
 * new file, while the server runs or not, through the registry (store_db_backup(): the SQLite
 * backend copies its file with SQLite's online backup API, in steps, and checks the copy). A
 * PostgreSQL store is copied with PostgreSQL's own tools: the command prints the pg_dump command
 * that does it (its URI without the password) and copies nothing. The progress goes to standard
 * error (progress.h), the outcome to standard output. It runs as a short command of its own, not
 * on a loop: it blocks. Exit status: 0 done; 1 failed (FILE exists, no store, the copy fails its
 * check, a read or a write); 2 bad usage, or a store it does not copy itself (PostgreSQL).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "backupctl.h"
#include "progress.h"
#include "store-db.h"

enum backup_status {
	BACKUP_OK = 0,
	BACKUP_FAILED = 1,
	BACKUP_USAGE = 2,
};

static void
backup_usage(FILE *f)
{
	fprintf(f,
	        "usage: hokitod backup [--db PATH] FILE\n"
	        "An online copy of the SQLite store (--db) into FILE, a new file, whether the\n"
	        "server runs or not, then SQLite's quick_check of the copy. To restore it: stop\n"
	        "hokitod, remove the store's -wal and -shm files, copy FILE over the store,\n"
	        "start hokitod. A PostgreSQL store is copied with pg_dump: the command is\n"
	        "printed, exit 2.\n"
	        "Exit: 0 done, 1 failed (FILE exists, no store, the copy fails its check),\n"
	        "2 usage or a store it does not copy. See hokitod(8).\n");
}

/* Whether db names a PostgreSQL database (a libpq URI). */
static int
backup_is_postgresql(const char *db)
{
	return strncmp(db, "postgresql://", 13) == 0 || strncmp(db, "postgres://", 11) == 0;
}

/* s as one word of a POSIX shell into buf: as it is when nothing in it is special, else in
 * single quotes (a quote as '\''). */
static const char *
backup_quote(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	if (s[0] != '\0' &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-") ==
	            strlen(s)) {
		snprintf(buf, size, "%s", s);
		return buf;
	}
	buf[n++] = '\'';
	for (const char *p = s; *p != '\0' && n + 6 < size; p++) {
		if (*p == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			buf[n++] = *p;
		}
	}
	buf[n++] = '\'';
	buf[n] = '\0';
	return buf;
}

/* store_db_backup()'s progress: the pages copied. */
static void
backup_progress_cb(void *ctx, int64_t done, int64_t total)
{
	struct progress *p = ctx;

	p->total = total;
	progress_set(p, done);
}

int
backupctl_main(int argc, char **argv, const char *default_db)
{
	enum { O_DB = 256, O_HELP };
	static const struct option options[] = {
	        {"db", required_argument, NULL, O_DB},
	        {"help", no_argument, NULL, O_HELP},
	        {NULL, 0, NULL, 0},
	};
	const char *db = default_db, *file = NULL;
	struct store_error err;
	struct progress p;
	struct stat sb;
	double t0;
	int opt, rc;

	opterr = 0;
	optind = 1;
	while (optind < argc) { /* options before FILE and after it */
		if ((opt = getopt_long(argc, argv, "+h", options, NULL)) == -1) {
			if (file != NULL) {
				fprintf(stderr, "hokitod: backup: unexpected argument '%s'\n",
				        argv[optind]);
				return BACKUP_USAGE;
			}
			file = argv[optind++];
			continue;
		}
		switch (opt) {
		case O_DB:
			db = optarg;
			break;
		case 'h':
		case O_HELP:
			backup_usage(stdout);
			return BACKUP_OK;
		default:
			fprintf(stderr,
			        "hokitod: backup: bad option '%s' (see hokitod backup --help)\n",
			        argv[optind - 1]);
			return BACKUP_USAGE;
		}
	}
	if (file == NULL || file[0] == '\0') {
		backup_usage(stderr);
		return BACKUP_USAGE;
	}
	if (backup_is_postgresql(db)) {
		char uri[1024], quri[2100], qfile[8300];

		store_db_display(db, uri, sizeof uri);
		fprintf(stderr,
		        "hokitod: backup: a PostgreSQL store is copied with PostgreSQL's tools: "
		        "pg_dump --format=custom --file=%s %s\n",
		        backup_quote(file, qfile, sizeof qfile),
		        backup_quote(uri, quri, sizeof quri));
		return BACKUP_USAGE;
	}
	if (lstat(file, &sb) == 0) {
		fprintf(stderr, "hokitod: backup: %s exists already: a backup goes to a new file\n",
		        file);
		return BACKUP_FAILED;
	}
	progress_start(&p, "backup", "copying", "pages", 0);
	t0 = progress_now();
	rc = store_db_backup(db, file, backup_progress_cb, &p, &err);
	if (rc < 0) {
		progress_abandon(&p);
		fprintf(stderr, "hokitod: backup: %s\n", err.text);
		return rc == STORE_EINVAL ? BACKUP_USAGE : BACKUP_FAILED;
	}
	if (p.tty)
		progress_end(&p);
	printf("hokitod: backup: %s -> %s: %" PRId64 " pages (%.1f MiB) in %.1f s; SQLite's "
	       "quick_check of the copy: ok\n",
	       db, file, p.done, stat(file, &sb) == 0 ? (double)sb.st_size / (1024 * 1024) : 0.0,
	       progress_now() - t0);
	return BACKUP_OK;
}
