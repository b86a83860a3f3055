/*
 * test-store-copy.c: what is the SQLite backend's own in a copy of a whole store
 * (server/store/sqlite/store-copy.c, store-backend.c); the ops a copy uses are the contract's,
 * tested on every backend by test-store-contract.c. Here: a store opened without the writer's
 * lock where there is no file is none (STORE_ENOTFOUND), and looking makes no file.
 */
#include <unistd.h>

#include "store-db.h"
#include "test.h"

static char dir[64]; /* the temporary directory of this run */

TEST(no_file_made_by_looking)
{
	struct store_db_options look = {STORE_FSYNC_NORMAL, 1, 0};
	struct store_db_options reader = {STORE_FSYNC_NORMAL, 0, 0};
	struct store_error err;
	struct store_db *db = NULL;
	char path[128];

	snprintf(path, sizeof path, "%s/none.db", dir);
	ASSERT_EQ(store_db_open(path, &look, &db, &err), STORE_ENOTFOUND);
	ASSERT_EQ(store_db_open(path, &reader, &db, &err), STORE_ENOTFOUND);
	ASSERT(db == NULL);
	ASSERT(access(path, F_OK) < 0);
}

int
main(void)
{
	char tmpl[] = "/tmp/hokito-store-copy-XXXXXX";

	if (mkdtemp(tmpl) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(dir, sizeof dir, "%s", tmpl);
	RUN(no_file_made_by_looking);
	if (rmdir(dir) < 0)
		printf("# could not remove %s\n", dir);
	TEST_END();
}
