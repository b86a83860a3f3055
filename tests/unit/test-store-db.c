/*
 * test-store-db.c: the registry of the store's backends (server/store/store-db.c) in what needs
 * no server: a --db as a message shows it (a URI without its password), and hokitod backup's
 * copy of an SQLite store (a new file, checked; a file there already, no store, :memory: and a
 * backend it does not know refused).
 */
#include <sys/stat.h>
#include <unistd.h>

#include "store-db.h"
#include "test.h"

static char dir[64]; /* the temporary directory of this run */

TEST(display_hides_passwords)
{
	static const struct {
		const char *db, *shown;
	} cases[] = {
	        {"/var/lib/hokitod/hokito.db", "/var/lib/hokitod/hokito.db"},
	        {"sqlite:a:b@c.db", "sqlite:a:b@c.db"},
	        {"postgresql://hokito:s3cret@db:5432/hokito", "postgresql://hokito@db:5432/hokito"},
	        {"postgres://:s3cret@db/x", "postgres://db/x"},
	        {"postgresql://u@db/x?password=s3cret", "postgresql://u@db/x"},
	        {"postgresql://db/x?sslmode=require&password=s3cret&application_name=h",
	         "postgresql://db/x?sslmode=require&application_name=h"},
	        {"postgresql://db/x?password=a&password=b", "postgresql://db/x"},
	        {"postgresql://u:p%40ss@host/x#f", "postgresql://u@host/x#f"},
	        {"postgresql://host/a@b", "postgresql://host/a@b"},
	};
	char buf[128], small[12];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		store_db_display(cases[i].db, buf, sizeof buf);
		ASSERT_STR_EQ(buf, cases[i].shown);
	}
	store_db_display("postgresql://u:p@hostname/db", small, sizeof small);
	ASSERT_STR_EQ(small, "postgresql:");
}

static void
found_cb(void *ctx, const char *text)
{
	printf("# found: %s\n", text);
	++*(int *)ctx;
}

static void
progress_cb(void *ctx, int64_t done, int64_t total)
{
	int64_t *last = ctx;

	last[0] = done;
	last[1] = total;
}

TEST(backup_sqlite)
{
	char db[128], copy[128], wal[140];
	struct store_db *s;
	struct store_write_port w;
	struct store_error err;
	struct store_game g = {.kind = GAME_OXONO, .created_ms = 1};
	struct stat sb;
	int64_t last[2] = {0, 0};
	uint64_t ticket;
	int findings = 0;

	snprintf(db, sizeof db, "%s/store.db", dir);
	snprintf(copy, sizeof copy, "%s/copy.db", dir);
	ASSERT_EQ(store_db_open(db, NULL, &s, &err), 0);
	store_db_write_port(s, &w);
	snprintf(g.id, sizeof g.id, "g1");
	snprintf(g.variant, sizeof g.variant, "standard");
	ASSERT_EQ(w.game_add(w.impl, &g, &err), 0);
	ASSERT_EQ(w.commit(w.impl, &ticket, &err), 0);
	/* beside the open store, as beside a running server */
	ASSERT_EQ(store_db_backup(db, copy, progress_cb, last, &err), 0);
	ASSERT(last[0] == last[1] && last[1] > 0);
	ASSERT_EQ(stat(copy, &sb), 0);
	ASSERT_EQ(sb.st_mode & 0777, 0600);
	ASSERT_EQ(sb.st_size, last[1] * 4096);
	snprintf(wal, sizeof wal, "%s-wal", copy);
	ASSERT(access(wal, F_OK) < 0); /* one file */
	ASSERT_EQ(store_db_check(copy, found_cb, &findings, &err), 0);
	ASSERT_EQ(findings, 0);
	ASSERT_EQ(store_db_backup(db, copy, NULL, NULL, &err), STORE_EINVAL);
	ASSERT(strstr(err.text, "exists") != NULL);
	store_db_close(s);
	snprintf(copy, sizeof copy, "%s/other.db", dir);
	ASSERT_EQ(store_db_backup("sqlite:/nonexistent/x.db", copy, NULL, NULL, &err),
	          STORE_ENOTFOUND);
	ASSERT_EQ(store_db_backup(":memory:", copy, NULL, NULL, &err), STORE_EINVAL);
	ASSERT_EQ(store_db_backup("mysql://x/y", copy, NULL, NULL, &err), STORE_EINVAL);
	ASSERT(access(copy, F_OK) < 0);
}

int
main(void)
{
	char tmpl[] = "/tmp/hokito-store-db-XXXXXX";

	if (mkdtemp(tmpl) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(dir, sizeof dir, "%s", tmpl);
	RUN(display_hides_passwords);
	RUN(backup_sqlite);
	{
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	TEST_END();
}
