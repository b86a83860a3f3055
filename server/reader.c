/*
 * reader.c: history and record reads on a thread of their own (reader.h), so that a read that
 * grows with the store (a page of a million games' history, the record of a game with 100,000
 * events) never stalls the event loop and the games on it.
 *
 * The loop's thread puts a job on `todo` and signals the thread; the thread takes jobs one at a
 * time, runs each on its own store connection (the read port, which sees what is committed:
 * SQLite's WAL lets it read while the loop writes), puts it on `done` and wakes the loop with
 * uv_async_send(); the async callback, on the loop's thread, hands every answer to the done
 * callback. The two lists are the only shared state, under one mutex; a job's read belongs to
 * whichever side holds the job. One thread is enough: a read takes a millisecond or so, and
 * they queue in order. This module knows nothing about games or connections: the lobby matches
 * answers to askers by ticket.
 */
#include <stdlib.h>
#include <sys/queue.h>
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "reader.h"
#include "xmalloc.h"

/* One read on its way: in todo, being run, or in done. */
struct reader_job {
	struct archive_read *read; /* owned by the job */
	STAILQ_ENTRY(reader_job) link;
};

STAILQ_HEAD(reader_jobs, reader_job);

struct reader {
	uv_async_t async;            /* wakes the loop: answers are in done; async.data = this */
	uv_thread_t thread;          /* runs the jobs (not for a loop_only port) */
	uv_mutex_t lock;             /* guards todo, done and stopping */
	uv_cond_t more;              /* signalled when todo grows or stopping is set */
	struct reader_jobs todo;     /* asked, not run yet */
	struct reader_jobs done;     /* answered, not delivered yet */
	int stopping;                /* the thread must end */
	int threaded;                /* the thread was started */
	struct store_read_port port; /* owned: closed by reader_close() */
	reader_done_cb done_cb;
	void *arg;
};

/* Free jobs and their reads. */
static void
jobs_free(struct reader_jobs *jobs)
{
	struct reader_job *j;

	while ((j = STAILQ_FIRST(jobs)) != NULL) {
		STAILQ_REMOVE_HEAD(jobs, link);
		archive_read_free(j->read);
		free(j);
	}
}

/* Nice of the reader's thread: below the loop's, whose turns must not wait for a read. */
#define READER_NICE 10

/*
 * The reader's thread: run the jobs in order until stopped. It yields the CPU to the loop's
 * thread: with as many busy threads as cores, a read that shared a core evenly with the loop
 * would make every client wait (Linux gives a thread its own nice value; elsewhere it keeps the
 * process's).
 */
static void
reader_thread(void *arg)
{
	struct reader *rd = arg;
	struct reader_job *j;

#if defined(__linux__)
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), READER_NICE);
#endif
	uv_mutex_lock(&rd->lock);
	for (;;) {
		while (!rd->stopping && STAILQ_EMPTY(&rd->todo))
			uv_cond_wait(&rd->more, &rd->lock);
		if (rd->stopping)
			break;
		j = STAILQ_FIRST(&rd->todo);
		STAILQ_REMOVE_HEAD(&rd->todo, link);
		uv_mutex_unlock(&rd->lock);
		archive_read_run(&rd->port, j->read);
		uv_mutex_lock(&rd->lock);
		STAILQ_INSERT_TAIL(&rd->done, j, link);
		uv_async_send(&rd->async);
	}
	uv_mutex_unlock(&rd->lock);
}

/* On the loop's thread: deliver every answer that is in. */
static void
reader_async_cb(uv_async_t *h)
{
	struct reader *rd = h->data;
	struct reader_jobs ready = STAILQ_HEAD_INITIALIZER(ready);
	struct reader_job *j;

	uv_mutex_lock(&rd->lock);
	STAILQ_CONCAT(&ready, &rd->done);
	uv_mutex_unlock(&rd->lock);
	while ((j = STAILQ_FIRST(&ready)) != NULL) {
		STAILQ_REMOVE_HEAD(&ready, link);
		rd->done_cb(rd->arg, j->read);
		free(j);
	}
}

int
reader_create(uv_loop_t *loop, const struct store_read_port *port, reader_done_cb done, void *arg,
              struct reader **out)
{
	struct reader *rd = xcalloc(1, sizeof *rd);
	int rc;

	*out = NULL;
	rd->port = *port;
	rd->done_cb = done;
	rd->arg = arg;
	STAILQ_INIT(&rd->todo);
	STAILQ_INIT(&rd->done);
	uv_mutex_init(&rd->lock);
	uv_cond_init(&rd->more);
	if ((rc = uv_async_init(loop, &rd->async, reader_async_cb)) < 0) {
		uv_cond_destroy(&rd->more);
		uv_mutex_destroy(&rd->lock);
		rd->port.close(rd->port.impl);
		free(rd);
		return rc;
	}
	rd->async.data = rd;
	if (!port->loop_only) {
		if ((rc = uv_thread_create(&rd->thread, reader_thread, rd)) < 0) {
			reader_close(rd);
			return rc;
		}
		rd->threaded = 1;
	}
	*out = rd;
	return 0;
}

void
reader_submit(struct reader *rd, struct archive_read *r)
{
	struct reader_job *j = xmalloc(sizeof *j);

	j->read = r;
	if (rd->port.loop_only) {
		/* a temporary store: no second connection sees it, so it is read here, on its own
		 * connection (which also sees this turn's queued writes), and the answer waits for
		 * the next turn like any other */
		archive_read_run(&rd->port, r);
		STAILQ_INSERT_TAIL(&rd->done, j, link);
		uv_async_send(&rd->async);
		return;
	}
	uv_mutex_lock(&rd->lock);
	STAILQ_INSERT_TAIL(&rd->todo, j, link);
	uv_cond_signal(&rd->more);
	uv_mutex_unlock(&rd->lock);
}

/* The async handle is closed: nothing refers to the reader any more. */
static void
reader_closed_cb(uv_handle_t *h)
{
	struct reader *rd = h->data;

	jobs_free(&rd->done); /* delivered by nobody now */
	uv_cond_destroy(&rd->more);
	uv_mutex_destroy(&rd->lock);
	free(rd);
}

void
reader_close(struct reader *rd)
{
	if (rd == NULL)
		return;
	if (rd->threaded) {
		uv_mutex_lock(&rd->lock);
		rd->stopping = 1;
		uv_cond_signal(&rd->more);
		uv_mutex_unlock(&rd->lock);
		uv_thread_join(&rd->thread);
	}
	jobs_free(&rd->todo);
	jobs_free(&rd->done);
	rd->port.close(rd->port.impl);
	uv_close((uv_handle_t *)&rd->async, reader_closed_cb);
}
