/*
 * store-loop.c: the SQLite backend's side on the event loop: the write port's start(), commit()
 * and stop() (store-port.h). A file store's disk waits are not the loop's:
 *
 *   - A commit writes the WAL without an fsync (store_bg_open() set synchronous=NORMAL on the
 *     loop's connection). With --fsync always the fsync runs on a thread of its own (a syncer),
 *     and the commit's ticket is that sync's: done() answers it once the WAL is on the disk, and
 *     meanwhile the loop reads and plays the next turns, whose moves form the next group commit.
 *     Without --fsync always a commit is durable at return (ticket 0: it survives a crash of the
 *     process). A sync that fails is answered with STORE_ECORRUPT: after a failed fdatasync the
 *     kernel may have dropped the pages, and only a restart knows what the disk holds.
 *   - Checkpoints run on a second syncer through a second connection, so the loop does not wait
 *     for the copy of the WAL into the file and its two fsyncs (store_loop_checkpoint()), but for
 *     a catch-up checkpoint when commits kept the WAL from starting over for 64 MiB.
 *
 * Before start() (the rebuild at a start, the operators' commands) and for a temporary store a
 * commit is the plain store_commit(). The state is struct store's (st->loop), freed with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "log.h"
#include "store-impl.h"
#include "store.h"
#include "syncer.h"
#include "xmalloc.h"

/*
 * Checkpoints of a file store (frames of 4 KiB in the WAL): the checkpoint thread is asked for
 * one after a commit that leaves this many frames in the WAL (SQLite's own default), and the
 * loop runs one itself when the WAL has grown this far while the thread kept up with the copying
 * but never with the end of a WAL that commits keep extending.
 */
#define WAL_CHECKPOINT_FRAMES 1000
#define WAL_CATCH_UP_FRAMES   16384 /* 64 MiB */

struct store_loop {
	struct store *st;            /* borrowed: the store whose loop side this is */
	struct store_bg *bg;         /* the other threads' side (store_bg_open()) */
	struct syncer *wal_sync;     /* --fsync always: syncs the WAL after each commit */
	struct syncer *ckpt;         /* checkpoints the WAL */
	struct store_error ckpt_err; /* the checkpoint thread's error, read in its done callback */
	int ckpt_failing;            /* the last checkpoint failed (logged once until one works) */
	size_t ckpt_asked;           /* frames in the WAL when the last checkpoint was asked for */
	uint64_t asked;              /* the last ticket a commit got (wal_sync's request) */
	uint64_t answered;           /* the last ticket done() was given */
	store_done_cb done;          /* start()'s */
	void *arg;
};

/* wal_sync's job, on its thread. */
static int
loop_sync_job(void *arg)
{
	struct store_loop *l = arg;

	return store_bg_sync(l->bg);
}

/* wal_sync's done callback: every commit up to ticket is on the disk, or the sync failed. */
static void
loop_synced_cb(void *arg, uint64_t ticket, int rc)
{
	struct store_loop *l = arg;
	struct store_error err = {0, ""};

	if (rc < 0)
		store_fail(&err, STORE_ECORRUPT,
		           "%s: cannot sync the WAL to the disk (%s): what the disk holds is known "
		           "only "
		           "after a restart",
		           l->st->path, strerror(-rc));
	l->answered = ticket;
	l->done(l->arg, ticket, rc < 0 ? STORE_ECORRUPT : 0, &err);
}

/* ckpt's job, on its thread: only l->bg and l->ckpt_err are its. */
static int
loop_checkpoint_job(void *arg)
{
	struct store_loop *l = arg;

	return store_bg_checkpoint(l->bg, &l->ckpt_err);
}

/*
 * ckpt's done callback, and the end of the loop's own checkpoint: a checkpoint that fails (a full
 * disk) is said once until one works.
 */
static void
loop_checkpointed_cb(void *arg, uint64_t ticket, int rc)
{
	struct store_loop *l = arg;

	(void)ticket;
	if (rc < 0 && !l->ckpt_failing)
		log_warn("store: %s; the WAL grows until a checkpoint works", l->ckpt_err.text);
	else if (rc == 0 && l->ckpt_failing)
		log_info("store: checkpoints work again");
	l->ckpt_failing = rc < 0;
}

/*
 * After a commit: keep the WAL short. The checkpoint thread copies it into the file, once for
 * every WAL_CHECKPOINT_FRAMES new frames (as SQLite would; back to back, its two fsyncs would
 * queue in front of the WAL's). When the WAL has grown past WAL_CATCH_UP_FRAMES anyway (commits
 * kept extending it while the thread copied), the loop stops asking the thread and, once it is
 * idle, copies the rest itself, so that the next commit starts the WAL over. That one is the only
 * checkpoint that stalls the loop.
 */
static void
store_loop_checkpoint(struct store_loop *l)
{
	size_t frames = store_wal_frames(l->st);

	if (frames < l->ckpt_asked)
		l->ckpt_asked = 0; /* the WAL started over */
	if (l->ckpt == NULL || syncer_busy(l->ckpt) || frames < WAL_CHECKPOINT_FRAMES)
		return;
	if (frames < WAL_CATCH_UP_FRAMES) {
		if (frames - l->ckpt_asked >= WAL_CHECKPOINT_FRAMES) {
			l->ckpt_asked = frames;
			syncer_request(l->ckpt);
		}
		return;
	}
	/* the thread is idle (not busy, not asked): its error slot is free */
	loop_checkpointed_cb(l, 0, store_checkpoint(l->st, &l->ckpt_err));
}

int
store_loop_start(void *impl, uv_loop_t *loop, store_done_cb done, void *arg,
                 struct store_error *err)
{
	struct store *st = impl;
	struct store_loop *l;
	int rc;

	if (st->temporary || st->loop != NULL)
		return 0;
	l = xcalloc(1, sizeof *l);
	l->st = st;
	l->done = done;
	l->arg = arg;
	rc = store_bg_open(st, &l->bg, err);
	if (rc == STORE_EINVAL) { /* an SQLite without threads: the loop waits, as it did */
		log_warn("store: %s; the loop waits for the disk itself", err->text);
		free(l);
		return 0;
	}
	if (rc == 0 &&
	    (rc = syncer_create(loop, loop_checkpoint_job, loop_checkpointed_cb, l, &l->ckpt)) ==
	            0 &&
	    store_sync_level(st) == STORE_SYNC_FULL)
		rc = syncer_create(loop, loop_sync_job, loop_synced_cb, l, &l->wal_sync);
	if (rc < 0 && l->bg != NULL) /* store_bg_open() said what failed; a thread did here */
		rc = store_fail(err, STORE_EIO, "cannot start a thread: %s", uv_strerror(rc));
	if (rc < 0) {
		st->loop = l;
		store_loop_free(st);
		return rc;
	}
	st->loop = l;
	st->loop_free = store_loop_free; /* store_close() frees it */
	return 0;
}

int
store_loop_commit(void *impl, uint64_t *ticket, struct store_error *err)
{
	struct store *st = impl;
	int rc;

	*ticket = 0;
	if ((rc = store_commit(st, err)) < 0 || st->loop == NULL)
		return rc;
	if (st->loop->wal_sync != NULL)
		*ticket = st->loop->asked = syncer_request(st->loop->wal_sync);
	store_loop_checkpoint(st->loop);
	return 0;
}

/* Close the syncers: each finishes what it runs and is joined; done() is not called any more. */
static void
loop_syncers_close(struct store_loop *l)
{
	syncer_close(l->wal_sync); /* waits for a sync under way */
	syncer_close(l->ckpt);
	l->wal_sync = l->ckpt = NULL;
}

/*
 * Stop: the syncers are closed, and the commits still in flight are answered before stop()
 * returns, by one more sync of the WAL on this thread (the port's rule: stop() answers every
 * ticket, and done() is called no more after).
 */
void
store_loop_stop(void *impl)
{
	struct store *st = impl;
	struct store_loop *l = st->loop;
	int unanswered;

	if (l == NULL)
		return;
	unanswered = l->wal_sync != NULL && l->asked > l->answered;
	loop_syncers_close(l);
	if (unanswered)
		loop_synced_cb(l, l->asked, store_bg_sync(l->bg));
}

void
store_loop_free(struct store *st)
{
	if (st->loop == NULL)
		return;
	loop_syncers_close(st->loop); /* the store closes: nobody to answer any more */
	store_bg_close(st->loop->bg);
	free(st->loop);
	st->loop = NULL;
}
