/*
 * test-durable.c: the store's writer (server/game/durable.c) over a fake write port that logs every
 * call and fails commits on demand: a commit that fails for lack of room keeps the turn's writes,
 * later writes wait without reaching the store, and a retry sends all of them again, in order,
 * with the counters, in one transaction; any other failure leaves nothing to retry.
 */
#include "durable.h"
#include "test.h"

/* The fake store: what it was asked, in order, and how its next commits end. */
struct fake {
	char log[2048];   /* "rm:tokA meta:next_player=2 commit ..." */
	size_t pending;   /* writes in its transaction */
	int fail;         /* commits that fail from now on */
	int async;        /* commits are answered later (a ticket each) */
	uint64_t tickets; /* the last ticket given */
	size_t inflight;  /* writes of the commits in flight */
	int fail_code;    /* with this error */
	int rollbacks;    /* rollback calls */
	size_t committed; /* writes committed */
};

static struct fake fk;

static void
fake_log(const char *word)
{
	size_t len = strlen(fk.log);

	snprintf(fk.log + len, sizeof fk.log - len, "%s%s", len ? " " : "", word);
}

static int
fake_session_remove(void *impl, const char *token, struct store_error *err)
{
	char w[96];

	(void)impl;
	(void)err;
	snprintf(w, sizeof w, "rm:%s", token);
	fake_log(w);
	fk.pending++;
	return 0;
}

static int
fake_account_add(void *impl, const struct store_account *a, struct store_error *err)
{
	char w[96];

	(void)impl;
	(void)err;
	snprintf(w, sizeof w, "acct:%s", a->name);
	fake_log(w);
	fk.pending++;
	return 0;
}

static int
fake_meta_set(void *impl, const char *key, int64_t value, struct store_error *err)
{
	char w[96];

	(void)impl;
	(void)err;
	snprintf(w, sizeof w, "meta:%s=%lld", key, (long long)value);
	fake_log(w);
	fk.pending++;
	return 0;
}

static int
fake_commit(void *impl, uint64_t *ticket, struct store_error *err)
{
	(void)impl;
	*ticket = 0;
	if (fk.fail > 0) {
		fk.fail--;
		fake_log("commit-failed");
		fk.pending = 0; /* as store_commit(): rolled back */
		err->code = fk.fail_code;
		snprintf(err->text, sizeof err->text, "committing: database or disk is full");
		return fk.fail_code;
	}
	if (fk.async) { /* answered later: durable once test_answer() says so */
		*ticket = ++fk.tickets;
		fake_log("commit-sent");
		fk.inflight += fk.pending;
		fk.pending = 0;
		return 0;
	}
	fake_log("commit");
	fk.committed += fk.pending;
	fk.pending = 0;
	return 0;
}

static void
fake_rollback(void *impl)
{
	(void)impl;
	fk.rollbacks++;
	fk.pending = 0;
}

static size_t
fake_pending(const void *impl)
{
	(void)impl;
	return fk.pending;
}

static int
fake_is_temporary(const void *impl)
{
	(void)impl;
	return 0;
}

static struct durable *
fake_durable(void)
{
	struct store_write_port port = {.session_remove = fake_session_remove,
	                                .account_add = fake_account_add,
	                                .meta_set = fake_meta_set,
	                                .commit = fake_commit,
	                                .rollback = fake_rollback,
	                                .pending = fake_pending,
	                                .is_temporary = fake_is_temporary};

	memset(&fk, 0, sizeof fk);
	return durable_create(&port, 1, 1);
}

TEST(durable_commit_forgets)
{
	struct durable *d = fake_durable();
	struct store_error err;
	uint64_t t;

	durable_unseated(d, "tokA");
	ASSERT_EQ(durable_waiting(d), 1);
	ASSERT_EQ(durable_commit(d, 1, 1, &t, &err), 1);
	ASSERT_EQ(durable_waiting(d), 0);
	ASSERT_EQ(durable_down(d), 0);
	ASSERT_EQ(durable_commit(d, 1, 1, &t, &err), 0); /* nothing queued */
	ASSERT_STR_EQ(fk.log, "rm:tokA commit");         /* no id given out: no mark moves */
	durable_free(d);
}

TEST(durable_full_disk_keeps_and_retries)
{
	struct durable *d = fake_durable();
	struct store_account acct = {.name = "Alice"};
	struct store_error err;
	uint64_t t;

	durable_unseated(d, "tokA");
	fk.fail = 2;
	fk.fail_code = STORE_EIO;
	ASSERT_EQ(durable_commit(d, 2, 1, &t, &err), STORE_EIO); /* a new player id: counter too */
	ASSERT(strstr(err.text, "full") != NULL);
	ASSERT_EQ(durable_down(d), 1);
	ASSERT_EQ(fk.rollbacks, 1);
	ASSERT_EQ(durable_waiting(d), 1);
	/* while down: kept, not sent; every commit says why */
	fk.log[0] = '\0';
	durable_account_add(d, &acct);
	durable_unseated(d, "tokB");
	ASSERT_STR_EQ(fk.log, "");
	ASSERT_EQ(durable_waiting(d), 3);
	ASSERT_EQ(durable_commit(d, 2, 1, &t, &err), STORE_EIO);
	ASSERT_STR_EQ(fk.log, "");
	/* a retry that fails again: sent in order, rolled back, still down */
	ASSERT_EQ(durable_retry(d, 2, 1, &t, &err), STORE_EIO);
	/* the id counters are stored as marks ahead of them (durable.c: DURABLE_ID_BLOCK) */
	ASSERT_STR_EQ(fk.log, "rm:tokA acct:Alice rm:tokB meta:next_player=258 commit-failed");
	ASSERT_EQ(durable_down(d), 1);
	ASSERT_EQ(durable_waiting(d), 3);
	ASSERT_EQ(fk.committed, 0);
	/* room again: one transaction with all of them and the counters as they are now */
	fk.log[0] = '\0';
	ASSERT_EQ(durable_retry(d, 3, 2, &t, &err), 1);
	ASSERT_STR_EQ(fk.log, "rm:tokA acct:Alice rm:tokB meta:next_player=259 meta:next_game=258 "
	                      "commit");
	ASSERT_EQ(fk.committed, 5);
	ASSERT_EQ(durable_down(d), 0);
	ASSERT_EQ(durable_waiting(d), 0);
	ASSERT_EQ(durable_retry(d, 3, 2, &t, &err), 0); /* not down */
	/* writes go straight to the store again, and the saved counters are not written twice */
	fk.log[0] = '\0';
	durable_unseated(d, "tokC");
	ASSERT_EQ(durable_commit(d, 3, 2, &t, &err), 1);
	ASSERT_STR_EQ(fk.log, "rm:tokC commit");
	durable_free(d);
}

TEST(durable_other_failure_is_not_kept)
{
	struct durable *d = fake_durable();
	struct store_error err;
	uint64_t t;

	durable_unseated(d, "tokA");
	fk.fail = 1;
	fk.fail_code = STORE_ECORRUPT;
	ASSERT_EQ(durable_commit(d, 1, 1, &t, &err), STORE_ECORRUPT);
	ASSERT_EQ(durable_down(d), 0); /* the caller stops */
	ASSERT_EQ(fk.rollbacks, 1);
	durable_free(d); /* frees what was kept */
}

/*
 * Commits answered later (a database server's COMMIT, a sync on another thread): the writes are
 * kept until their ticket is answered; a failed answer takes the store down with every write of
 * the commits in flight and of the turn under way, and the retry's own answer brings it up.
 */
TEST(durable_answered_later)
{
	struct durable *d = fake_durable();
	struct store_account acct = {.name = "Alice"};
	struct store_error err, lost = {STORE_EUNAVAIL, "the connection to the database was lost"};
	uint64_t t;

	fk.async = 1;
	durable_unseated(d, "tokA");
	ASSERT_EQ(durable_commit(d, 1, 1, &t, &err), 1);
	ASSERT_EQ(t, 1);
	ASSERT_EQ(durable_waiting(d), 1); /* kept until answered */
	durable_unseated(d, "tokB");
	ASSERT_EQ(durable_commit(d, 1, 1, &t, &err), 1);
	ASSERT_EQ(t, 2);
	ASSERT_EQ(durable_done(d, 1, 0, NULL), 0); /* the first is durable: tokA forgotten */
	ASSERT_EQ(durable_waiting(d), 1);
	/* the second fails with the turn's write under way: all of them wait */
	durable_unseated(d, "tokC");
	ASSERT_EQ(durable_done(d, 2, STORE_EUNAVAIL, &lost), STORE_EUNAVAIL);
	ASSERT_EQ(durable_down(d), 1);
	ASSERT_EQ(durable_waiting(d), 2);
	ASSERT_EQ(durable_done(d, 2, STORE_EUNAVAIL, &lost), 0); /* given up already */
	ASSERT_EQ(durable_commit(d, 1, 1, &t, &err), STORE_EUNAVAIL);
	ASSERT(strstr(err.text, "lost") != NULL);
	/* the retry goes out; until it is answered the store is down and new writes wait */
	fk.log[0] = '\0';
	ASSERT_EQ(durable_retry(d, 1, 1, &t, &err), 2);
	ASSERT_EQ(t, 3);
	ASSERT_STR_EQ(fk.log, "rm:tokB rm:tokC commit-sent");
	ASSERT_EQ(durable_retry(d, 1, 1, &t, &err), 2); /* one at a time */
	ASSERT_EQ(durable_down(d), 1);
	fk.log[0] = '\0';
	durable_account_add(d, &acct);
	ASSERT_STR_EQ(fk.log, "");
	ASSERT_EQ(durable_done(d, 3, 0, NULL), 1); /* up: what waited goes to the transaction */
	ASSERT_EQ(durable_down(d), 0);
	ASSERT_STR_EQ(fk.log, "acct:Alice");
	ASSERT_EQ(durable_waiting(d), 1);
	ASSERT_EQ(durable_commit(d, 1, 1, &t, &err), 1);
	ASSERT_EQ(durable_done(d, t, 0, NULL), 0);
	ASSERT_EQ(durable_waiting(d), 0);
	durable_free(d);
}

int
main(void)
{
	RUN(durable_commit_forgets);
	RUN(durable_full_disk_keeps_and_retries);
	RUN(durable_other_failure_is_not_kept);
	RUN(durable_answered_later);
	TEST_END();
}
