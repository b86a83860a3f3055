/*
 * syncer.c: a thread that runs one job on request and reports back on the loop (syncer.h).
 *
 * The thread and the loop share three counters under one mutex: requested (the last ticket
 * given out), started (the last ticket a run began for) and answered (the last ticket a finished
 * run covers), and the result of that run. The thread sleeps on a condition variable while
 * started == requested; when woken it takes every request so far (started = requested), runs the
 * job unlocked, then publishes answered and wakes the loop with uv_async_send(), which libuv may
 * coalesce: the async callback reads the latest answer and reports it once, with the first error
 * of the runs it covers (a failed fdatasync followed by one that returns 0 is still a failure: the
 * kernel reports a lost write once). The struct owns the
 * thread and the async handle; it is freed in the handle's close callback.
 */
#include <stddef.h>
#include <stdlib.h>

#include "syncer.h"
#include "xmalloc.h"

struct syncer {
	uv_async_t async; /* wakes the loop when a run is done; async.data points back here */
	uv_thread_t thread;
	uv_mutex_t lock;
	uv_cond_t wake; /* the thread waits on it for a request or the stop */
	syncer_job_fn job;
	syncer_done_fn done;
	void *arg;                   /* borrowed, for job and done */
	uint64_t requested, started; /* under lock */
	uint64_t answered;           /* under lock: the last ticket a finished run covers */
	int rc;                      /* under lock: the first error since the last report, or 0 */
	uint64_t reported;           /* loop only: the last ticket given to done */
	int stop;                    /* under lock: finish and leave */
	int closing;                 /* loop only: syncer_close() was called */
};

static void
syncer_close_cb(uv_handle_t *h)
{
	free(h->data);
}

static void
syncer_thread(void *arg)
{
	struct syncer *s = arg;

	uv_mutex_lock(&s->lock);
	for (;;) {
		uint64_t ticket;
		int rc;

		while (s->started == s->requested && !s->stop)
			uv_cond_wait(&s->wake, &s->lock);
		if (s->started == s->requested)
			break; /* stopping, and nothing asked for */
		ticket = s->started = s->requested;
		uv_mutex_unlock(&s->lock);
		rc = s->job(s->arg);
		uv_mutex_lock(&s->lock);
		s->answered = ticket;
		if (rc < 0 && s->rc == 0)
			s->rc = rc; /* kept until reported: a later success must not hide it */
		uv_async_send(&s->async);
	}
	uv_mutex_unlock(&s->lock);
}

static void
syncer_async_cb(uv_async_t *h)
{
	struct syncer *s = h->data;
	uint64_t ticket;
	int rc;

	uv_mutex_lock(&s->lock);
	ticket = s->answered;
	rc = s->rc;
	s->rc = 0;
	uv_mutex_unlock(&s->lock);
	if (ticket == s->reported || s->closing)
		return;
	s->reported = ticket;
	s->done(s->arg, ticket, rc);
}

int
syncer_create(uv_loop_t *loop, syncer_job_fn job, syncer_done_fn done, void *arg,
              struct syncer **out)
{
	struct syncer *s = xcalloc(1, sizeof *s);
	int rc;

	*out = NULL;
	s->job = job;
	s->done = done;
	s->arg = arg;
	if ((rc = uv_mutex_init(&s->lock)) < 0) {
		free(s);
		return rc;
	}
	if ((rc = uv_cond_init(&s->wake)) < 0) {
		uv_mutex_destroy(&s->lock);
		free(s);
		return rc;
	}
	if ((rc = uv_async_init(loop, &s->async, syncer_async_cb)) < 0) {
		uv_cond_destroy(&s->wake);
		uv_mutex_destroy(&s->lock);
		free(s);
		return rc;
	}
	s->async.data = s;
	if ((rc = uv_thread_create(&s->thread, syncer_thread, s)) < 0) {
		s->closing = 1;
		uv_cond_destroy(&s->wake);
		uv_mutex_destroy(&s->lock);
		uv_close((uv_handle_t *)&s->async, syncer_close_cb); /* frees s */
		return rc;
	}
	*out = s;
	return 0;
}

uint64_t
syncer_request(struct syncer *s)
{
	uint64_t ticket;

	uv_mutex_lock(&s->lock);
	ticket = ++s->requested;
	uv_cond_signal(&s->wake);
	uv_mutex_unlock(&s->lock);
	return ticket;
}

int
syncer_busy(const struct syncer *s)
{
	return s->requested != s->reported; /* both written by the loop thread only */
}

void
syncer_close(struct syncer *s)
{
	if (s == NULL || s->closing)
		return;
	s->closing = 1;
	uv_mutex_lock(&s->lock);
	s->stop = 1;
	uv_cond_signal(&s->wake);
	uv_mutex_unlock(&s->lock);
	uv_thread_join(&s->thread);
	uv_cond_destroy(&s->wake);
	uv_mutex_destroy(&s->lock);
	uv_close((uv_handle_t *)&s->async, syncer_close_cb);
}
