/*
 * reader.c: the store's reads on threads of their own (reader.h), so that a read that grows with
 * the store (the record of a game with 100,000 events, a page of a player's games) never stalls
 * the event loop and the games on it, and one address's reads never starve another's.
 *
 * The loop's thread puts a job in the fair queue `todo` (fairq.h, by the asker's key) and
 * signals the threads; each thread takes the next job in fair order, runs it on its own store
 * connection (its read port, which sees what is committed: SQLite's WAL lets any number of
 * readers read while the loop writes), charges the time it took to the job's key, puts the job on
 * `done` and wakes the loop with uv_async_send(); the async callback, on the loop's thread, hands
 * every answer to the done callback. The queue and the done list are the only shared state,
 * under one mutex; a job's read belongs to whichever side holds the job. This module knows
 * nothing about games or connections: the lobby matches answers to askers by ticket.
 */
#include <stdlib.h>
#include <sys/queue.h>
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "fairq.h"
#include "reader.h"
#include "xmalloc.h"

/* One read on its way: in todo, being run, or in done. */
struct reader_job {
	struct archive_read *read;     /* owned by the job */
	struct fairq_item item;        /* in todo, and while it runs; item.arg = this */
	STAILQ_ENTRY(reader_job) link; /* done */
};

STAILQ_HEAD(reader_jobs, reader_job);

/* A thread and the read port it runs its jobs on. */
struct reader_worker {
	struct reader *rd;
	uv_thread_t thread;
	struct store_read_port port; /* owned: closed by reader_close() */
	int started;                 /* the thread runs */
};

struct reader {
	uv_async_t async;              /* wakes the loop: answers are in done; async.data = this */
	uv_mutex_t lock;               /* guards todo, done and stopping */
	uv_cond_t more;                /* signalled when todo grows or stopping is set */
	struct fairq todo;             /* asked, not run yet (and the keys of those running) */
	struct reader_jobs done;       /* answered, not delivered yet */
	int stopping;                  /* the threads must end */
	struct reader_worker *workers; /* nworkers of them */
	unsigned nworkers;
	int loop_only; /* one port, run on the loop's thread: no thread */
	reader_done_cb done_cb;
	void *arg;
};

/* Nice of the reader's threads: below the loop's, whose turns must not wait for a read. */
#define READER_NICE 10

/* The credit of a key's turn in the fair queue: 2 ms of a thread's time (fairq.h). */
#define READER_QUANTUM_NS 2000000

/*
 * A reader's thread: run the jobs in fair order until stopped. It yields the CPU to the loop's
 * thread: with as many busy threads as cores, a read that shared a core evenly with the loop
 * would make every client wait (Linux gives a thread its own nice value; elsewhere it keeps the
 * process's).
 */
static void
reader_thread(void *arg)
{
	struct reader_worker *wk = arg;
	struct reader *rd = wk->rd;
	struct fairq_item *it;
	struct reader_job *j;
	uint64_t t0;

#if defined(__linux__)
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), READER_NICE);
#endif
	uv_mutex_lock(&rd->lock);
	for (;;) {
		while (!rd->stopping && fairq_queued(&rd->todo) == 0)
			uv_cond_wait(&rd->more, &rd->lock);
		if (rd->stopping)
			break;
		it = fairq_pop(&rd->todo);
		j = it->arg;
		uv_mutex_unlock(&rd->lock);
		t0 = uv_hrtime();
		archive_read_run(&wk->port, j->read);
		t0 = uv_hrtime() - t0;
		uv_mutex_lock(&rd->lock);
		fairq_done(&rd->todo, it, (int64_t)t0);
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
reader_create(uv_loop_t *loop, const struct store_read_port *ports, unsigned nports,
              const struct reader_config *cfg, reader_done_cb done, void *arg, struct reader **out)
{
	struct reader *rd = xcalloc(1, sizeof *rd);
	int rc;

	*out = NULL;
	rd->done_cb = done;
	rd->arg = arg;
	rd->loop_only = ports[0].loop_only;
	rd->nworkers = nports;
	rd->workers = xcalloc(nports, sizeof *rd->workers);
	for (unsigned i = 0; i < nports; i++) {
		rd->workers[i].rd = rd;
		rd->workers[i].port = ports[i];
	}
	fairq_init(&rd->todo, cfg->per_key, READER_QUANTUM_NS, cfg->seed);
	STAILQ_INIT(&rd->done);
	uv_mutex_init(&rd->lock);
	uv_cond_init(&rd->more);
	if ((rc = uv_async_init(loop, &rd->async, reader_async_cb)) < 0) {
		uv_cond_destroy(&rd->more);
		uv_mutex_destroy(&rd->lock);
		fairq_close(&rd->todo);
		for (unsigned i = 0; i < nports; i++)
			rd->workers[i].port.close(rd->workers[i].port.impl);
		free(rd->workers);
		free(rd);
		return rc;
	}
	rd->async.data = rd;
	for (unsigned i = 0; !rd->loop_only && i < nports; i++) {
		if ((rc = uv_thread_create(&rd->workers[i].thread, reader_thread,
		                           &rd->workers[i])) < 0) {
			reader_close(rd);
			return rc;
		}
		rd->workers[i].started = 1;
	}
	*out = rd;
	return 0;
}

int
reader_submit(struct reader *rd, const char *key, struct archive_read *r)
{
	struct reader_job *j;

	if (rd->loop_only) {
		/* a temporary store: no second connection sees it, so it is read here, on its own
		 * connection (which also sees this turn's queued writes), and the answer waits for
		 * the next turn like any other; nothing queues, so no key is over its bound */
		j = xcalloc(1, sizeof *j);
		j->read = r;
		archive_read_run(&rd->workers[0].port, r);
		STAILQ_INSERT_TAIL(&rd->done, j, link);
		uv_async_send(&rd->async);
		return 0;
	}
	j = xcalloc(1, sizeof *j);
	j->read = r;
	j->item.arg = j;
	uv_mutex_lock(&rd->lock);
	if (fairq_push(&rd->todo, key, &j->item) < 0) {
		uv_mutex_unlock(&rd->lock);
		free(j);
		return READER_EFULL;
	}
	uv_cond_signal(&rd->more);
	uv_mutex_unlock(&rd->lock);
	return 0;
}

unsigned
reader_queued(struct reader *rd)
{
	size_t n;

	if (rd->loop_only)
		return 0; /* run at once, on the loop's thread */
	uv_mutex_lock(&rd->lock);
	n = fairq_queued(&rd->todo);
	uv_mutex_unlock(&rd->lock);
	return (unsigned)n;
}

unsigned
reader_threads(const struct reader *rd)
{
	return rd->loop_only ? 0 : rd->nworkers;
}

/* The async handle is closed: nothing refers to the reader any more. */
static void
reader_closed_cb(uv_handle_t *h)
{
	struct reader *rd = h->data;
	struct reader_job *j;

	while ((j = STAILQ_FIRST(&rd->done)) != NULL) { /* delivered by nobody now */
		STAILQ_REMOVE_HEAD(&rd->done, link);
		archive_read_free(j->read);
		free(j);
	}
	uv_cond_destroy(&rd->more);
	uv_mutex_destroy(&rd->lock);
	free(rd->workers);
	free(rd);
}

void
reader_close(struct reader *rd)
{
	struct fairq_item *it;

	if (rd == NULL)
		return;
	uv_mutex_lock(&rd->lock);
	rd->stopping = 1;
	uv_cond_broadcast(&rd->more);
	uv_mutex_unlock(&rd->lock);
	for (unsigned i = 0; i < rd->nworkers; i++)
		if (rd->workers[i].started)
			uv_thread_join(&rd->workers[i].thread);
	while ((it = fairq_pop(&rd->todo)) != NULL) { /* asked, never run */
		struct reader_job *j = it->arg;

		fairq_done(&rd->todo, it, 0);
		archive_read_free(j->read);
		free(j);
	}
	fairq_close(&rd->todo);
	for (unsigned i = 0; i < rd->nworkers; i++)
		rd->workers[i].port.close(rd->workers[i].port.impl);
	uv_close((uv_handle_t *)&rd->async, reader_closed_cb);
}
