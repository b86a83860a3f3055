/*
 * hasher.c: the password jobs on threads of their own at the lowest priority (hasher.h).
 *
 * The loop's thread puts a job on `todo` and signals the threads; each thread takes one job at a
 * time, runs it, puts it on `done` and wakes the loop with uv_async_send(); the async callback,
 * on the loop's thread, hands every answer to the done callback. The two lists, `stopping` and
 * the count of threads alive are the only shared state, under one mutex; a job belongs to
 * whichever side holds it. The threads are not libuv's pool: that one serves the store's reads
 * and the computer's searches, and four hashes there would leave them waiting behind Argon2id.
 * Each thread lowers itself to SCHED_IDLE (Linux; where that is refused, or elsewhere, the
 * lowest nice value, 19, which Linux gives a thread of its own): a hash then runs only on a core
 * that the loop, the store and the searches leave idle, so that a storm of logins slows the
 * logins, not the games. The pool owns its jobs until it hands them to the done callback, and
 * the memory of the pool is freed in its async handle's close callback, once every thread ended.
 */
#define _GNU_SOURCE /* SCHED_IDLE */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/queue.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#endif

#include "hasher.h"
#include "xmalloc.h"

/* A job on its way: in todo, being run, or in done. */
struct hasher_work {
	struct auth_job *job; /* owned */
	STAILQ_ENTRY(hasher_work) link;
};

STAILQ_HEAD(hasher_works, hasher_work);

struct hasher {
	uv_async_t async; /* wakes the loop: answers are in done, or a thread ended; .data = this */
	uv_mutex_t lock;  /* guards todo, done, stopping and alive */
	uv_cond_t more;   /* signalled when todo grows or stopping is set */
	struct hasher_works todo; /* asked, not run yet, in order */
	unsigned queued;          /* jobs in todo */
	struct hasher_works done; /* run, not delivered yet */
	int stopping;             /* the threads must end once their job is run */
	unsigned alive;           /* threads not ended yet */
	unsigned nthreads;        /* threads started (joined once alive is 0) */
	uv_thread_t threads[HASHER_THREADS_MAX];
	hasher_done_cb done_cb;
	void *arg;
};

/* Free the jobs of a list, unanswered. */
static void
works_free(struct hasher_works *works)
{
	struct hasher_work *w;

	while ((w = STAILQ_FIRST(works)) != NULL) {
		STAILQ_REMOVE_HEAD(works, link);
		auth_job_free(w->job);
		free(w);
	}
}

unsigned
hasher_queued(struct hasher *h)
{
	unsigned n;

	uv_mutex_lock(&h->lock);
	n = h->queued;
	uv_mutex_unlock(&h->lock);
	return n;
}

unsigned
hasher_threads(void)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (cores <= 2)
		return 1;
	if (cores - 1 > HASHER_THREADS_MAX)
		return HASHER_THREADS_MAX;
	return (unsigned)(cores - 1);
}

/* Nice of a hashing thread where SCHED_IDLE is refused: the lowest there is. */
#define HASHER_NICE 19

/*
 * The calling thread goes below everything else of the process: SCHED_IDLE where there is one
 * (it runs only when no other thread wants the core; a thread may always lower itself to it),
 * else nice 19 on its own thread id (Linux keeps a nice value per thread).
 */
static void
hasher_thread_lower(void)
{
#if defined(SCHED_IDLE)
	struct sched_param sp = {.sched_priority = 0};

	if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp) == 0)
		return;
#endif
#if defined(__linux__)
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), HASHER_NICE);
#endif
}

/* A hashing thread: run the jobs in order until stopped, then say it ended. */
static void
hasher_thread(void *arg)
{
	struct hasher *h = arg;
	struct hasher_work *w;

	hasher_thread_lower();
	uv_mutex_lock(&h->lock);
	for (;;) {
		while (!h->stopping && STAILQ_EMPTY(&h->todo))
			uv_cond_wait(&h->more, &h->lock);
		if (h->stopping)
			break;
		w = STAILQ_FIRST(&h->todo);
		STAILQ_REMOVE_HEAD(&h->todo, link);
		h->queued--;
		uv_mutex_unlock(&h->lock);
		auth_job_run(w->job);
		uv_mutex_lock(&h->lock);
		STAILQ_INSERT_TAIL(&h->done, w, link);
		uv_async_send(&h->async);
	}
	h->alive--;
	uv_async_send(&h->async);
	uv_mutex_unlock(&h->lock);
}

/* The async handle is closed: every thread ended and was joined; nothing refers to h. */
static void
hasher_closed_cb(uv_handle_t *handle)
{
	struct hasher *h = handle->data;

	works_free(&h->done);
	uv_cond_destroy(&h->more);
	uv_mutex_destroy(&h->lock);
	free(h);
}

/*
 * On the loop's thread: hand every answer that is in to the done callback (after a stop, free
 * them unanswered); once stopped and every thread has ended, join them (they are past their
 * last lock: the join does not wait) and close.
 */
static void
hasher_async_cb(uv_async_t *handle)
{
	struct hasher *h = handle->data;
	struct hasher_works ready = STAILQ_HEAD_INITIALIZER(ready);
	struct hasher_work *w;
	int stopping, ended;
	unsigned i;

	uv_mutex_lock(&h->lock);
	STAILQ_CONCAT(&ready, &h->done);
	stopping = h->stopping;
	ended = h->alive == 0;
	uv_mutex_unlock(&h->lock);
	if (stopping) {
		works_free(&ready);
	} else {
		while ((w = STAILQ_FIRST(&ready)) != NULL) {
			STAILQ_REMOVE_HEAD(&ready, link);
			h->done_cb(h->arg, w->job);
			free(w);
		}
	}
	if (stopping && ended && !uv_is_closing((uv_handle_t *)&h->async)) {
		for (i = 0; i < h->nthreads; i++)
			uv_thread_join(&h->threads[i]);
		uv_close((uv_handle_t *)&h->async, hasher_closed_cb);
	}
}

int
hasher_create(uv_loop_t *loop, hasher_done_cb done, void *arg, struct hasher **out)
{
	struct hasher *h = xcalloc(1, sizeof *h);
	unsigned n = hasher_threads();
	int rc;

	*out = NULL;
	h->done_cb = done;
	h->arg = arg;
	STAILQ_INIT(&h->todo);
	STAILQ_INIT(&h->done);
	uv_mutex_init(&h->lock);
	uv_cond_init(&h->more);
	if ((rc = uv_async_init(loop, &h->async, hasher_async_cb)) < 0) {
		uv_cond_destroy(&h->more);
		uv_mutex_destroy(&h->lock);
		free(h);
		return rc;
	}
	h->async.data = h;
	uv_mutex_lock(&h->lock);
	for (h->nthreads = 0; h->nthreads < n; h->nthreads++) {
		if ((rc = uv_thread_create(&h->threads[h->nthreads], hasher_thread, h)) < 0)
			break;
		h->alive++;
	}
	uv_mutex_unlock(&h->lock);
	if (rc < 0) {
		hasher_stop(h); /* the threads started end, and the loop frees h */
		return rc;
	}
	*out = h;
	return 0;
}

void
hasher_submit(void *arg, struct auth_job *j)
{
	struct hasher *h = arg;
	struct hasher_work *w = xmalloc(sizeof *w);

	w->job = j;
	uv_mutex_lock(&h->lock);
	if (h->stopping) {
		uv_mutex_unlock(&h->lock);
		auth_job_free(j);
		free(w);
		return;
	}
	STAILQ_INSERT_TAIL(&h->todo, w, link);
	h->queued++;
	uv_cond_signal(&h->more);
	uv_mutex_unlock(&h->lock);
}

void
hasher_stop(struct hasher *h)
{
	struct hasher_works dropped = STAILQ_HEAD_INITIALIZER(dropped);

	if (h == NULL)
		return;
	uv_mutex_lock(&h->lock);
	h->stopping = 1;
	STAILQ_CONCAT(&dropped, &h->todo);
	h->queued = 0;
	uv_cond_broadcast(&h->more);
	uv_mutex_unlock(&h->lock);
	works_free(&dropped);
	uv_async_send(&h->async); /* no thread left to say so (or none started): close now */
}
