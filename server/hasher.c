/*
 * hasher.c: the password jobs on libuv's thread pool, a few at a time (hasher.h). Owns the jobs
 * it was given until it hands them to the done callback; each running job's uv_work_t is
 * embedded in a struct hasher_work that after_work frees.
 */
#include <stdlib.h>
#include <sys/queue.h>

#include "hasher.h"
#include "xmalloc.h"

/* A job and its request on the thread pool. */
struct hasher_work {
	uv_work_t req; /* req.data: this struct */
	struct hasher *h;
	struct auth_job *job;
	STAILQ_ENTRY(hasher_work) link; /* the queue, while waiting */
};

struct hasher {
	uv_loop_t *loop;
	hasher_done_cb done;
	void *arg;
	STAILQ_HEAD(, hasher_work) queue; /* waiting for a place, in order */
	unsigned running;                 /* on the thread pool */
	int stopping;
};

struct hasher *
hasher_create(uv_loop_t *loop, hasher_done_cb done, void *arg)
{
	struct hasher *h = xcalloc(1, sizeof *h);

	h->loop = loop;
	h->done = done;
	h->arg = arg;
	STAILQ_INIT(&h->queue);
	return h;
}

/* Thread pool: the blocking part. */
static void
hasher_work_cb(uv_work_t *req)
{
	struct hasher_work *w = req->data;

	auth_job_run(w->job);
}

static void hasher_next(struct hasher *h);

/* Loop thread: the job is done (or was cancelled): hand it back, start the next. */
static void
hasher_after_cb(uv_work_t *req, int status)
{
	struct hasher_work *w = req->data;
	struct hasher *h = w->h;

	h->running--;
	if (h->stopping || status == UV_ECANCELED)
		auth_job_free(w->job);
	else
		h->done(h->arg, w->job);
	free(w);
	if (!h->stopping)
		hasher_next(h);
}

/* Start queued jobs while there is a place. */
static void
hasher_next(struct hasher *h)
{
	struct hasher_work *w;

	while (h->running < HASHER_RUNNING && (w = STAILQ_FIRST(&h->queue)) != NULL) {
		STAILQ_REMOVE_HEAD(&h->queue, link);
		w->req.data = w;
		if (uv_queue_work(h->loop, &w->req, hasher_work_cb, hasher_after_cb) < 0)
			abort(); /* libuv refuses only a NULL work callback */
		h->running++;
	}
}

void
hasher_submit(void *arg, struct auth_job *j)
{
	struct hasher *h = arg;
	struct hasher_work *w;

	if (h->stopping) {
		auth_job_free(j);
		return;
	}
	w = xcalloc(1, sizeof *w);
	w->h = h;
	w->job = j;
	STAILQ_INSERT_TAIL(&h->queue, w, link);
	hasher_next(h);
}

void
hasher_stop(struct hasher *h)
{
	struct hasher_work *w;

	if (h == NULL)
		return;
	h->stopping = 1;
	while ((w = STAILQ_FIRST(&h->queue)) != NULL) {
		STAILQ_REMOVE_HEAD(&h->queue, link);
		auth_job_free(w->job);
		free(w);
	}
}

void
hasher_free(struct hasher *h)
{
	free(h);
}
