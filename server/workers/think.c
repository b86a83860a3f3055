/*
 * think.c: the computer players think on libuv's thread pool (uv_queue_work), never on the loop
 * thread.
 *
 * A work item (struct think_job) owns a copy of the position and everything its search needs, and
 * makes and frees its own search there; nothing it touches is shared with the loop except its
 * cancel flag, an atomic. Its after-work callback, back on the loop, hands the move to ops->move
 * by game id and ply (the game layer's lobby_computer_move()), which drops it if the game went on
 * or went away meanwhile. A game that ends stops its search at once (think_cancel()), so that
 * it does not hold a thread of the pool for nothing: the search polls the job's cancel flag
 * (search_limits.cancel, common/search.h) every 1024 nodes, from its first node on; so does a
 * shutdown (think_stop()). The loop runs until their callbacks are done, and their moves are
 * dropped. Searches not cancelled are counted against the pool's maximum (think_busy()). It owns
 * its work items; it knows nothing of the lobby or the connections.
 *
 * Two lanes. The deep levels (THINK_DEEP_LEVEL and up: node budgets of 25,000 to 2.5 million, or
 * OXONO's four plies) take up to seconds, the others (one to four plies) milliseconds: at most
 * THINK_DEEP_RUNNING deep searches are on the thread pool at once, and the others wait here, oldest
 * first (pool->waiting), so a crowd of games against level 8 never holds every thread of the pool;
 * a shallow search goes to the pool at once and so never waits behind deep ones (nor does a
 * password hash, hasher.c, which shares the pool).
 */
#include <assert.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "log.h"
#include "search.h"
#include "think.h"
#include "xmalloc.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#define THINK_TT_BYTES     (8u << 20) /* the transposition table of one computer's search */
#define THINK_DEEP_LEVEL   5          /* levels from here on search deep: up to seconds */
#define THINK_DEEP_RUNNING 2          /* deep searches on the thread pool at once (of its 4) */

/* One computer's search on the thread pool: the work thread reads and writes only this. */
struct think_job {
	uv_work_t req;
	struct think *pool;               /* the loop thread's side only */
	LIST_ENTRY(think_job) link;       /* searches not finished (loop thread) */
	TAILQ_ENTRY(think_job) wait_link; /* (loop thread) in pool->waiting */
	int deep;                         /* a level of THINK_DEEP_LEVEL or more */
	int waiting;                      /* (loop thread) not handed to the thread pool yet */
	char game_id[16];                 /* the game and ply it is for */
	int64_t ply;
	struct game pos;             /* its own copy of the position */
	struct search_limits lim;    /* the level's budget and the time cap */
	atomic_int cancel;           /* set by the loop thread: stop as soon as possible */
	int cancelled;               /* (loop thread) cancelled: its move is dropped, not counted */
	int rc;                      /* search_run()'s result */
	struct search_result result; /* what it found */
	uint64_t ms;                 /* how long it took */
};

struct think {
	uv_loop_t *loop;
	struct think_ops ops;
	LIST_HEAD(, think_job) jobs;     /* searches waiting, queued or running */
	TAILQ_HEAD(, think_job) waiting; /* deep searches waiting for a place, oldest first */
	unsigned njobs;                  /* of jobs, those not cancelled */
	unsigned deep_running;           /* deep searches on the thread pool */
	unsigned max;                    /* searches held at most (0: no bound) */
	int stopping;
};

struct think *
think_create(uv_loop_t *loop, const struct think_ops *ops, unsigned max)
{
	struct think *pool = xcalloc(1, sizeof *pool);

	pool->loop = loop;
	pool->ops = *ops;
	pool->max = max;
	LIST_INIT(&pool->jobs);
	TAILQ_INIT(&pool->waiting);
	return pool;
}

/* The search's clock: real milliseconds. */
static uint64_t
think_clock_cb(void *arg)
{
	(void)arg;
	return uv_hrtime() / 1000000;
}

/*
 * Thread pool: search th's own position with its own search; touch nothing else. A job
 * cancelled before it starts makes no search (and no table of 8 MiB); one cancelled while it
 * runs stops at the search's next check of th->cancel (search_run(): every 1024 nodes).
 */
static void
think_work_cb(uv_work_t *req)
{
	struct think_job *th = container_of(req, struct think_job, req);
	uint64_t t0 = uv_hrtime();
	struct search *search;

	if (atomic_load(&th->cancel)) {
		th->rc = SEARCH_ECANCELED;
		return;
	}
	search = search_create(THINK_TT_BYTES, 1);
	th->rc = search_run(search, &th->pos, &th->lim, &th->result);
	search_free(search);
	th->ms = (uv_hrtime() - t0) / 1000000;
}

static void think_next(struct think *pool);

/* Loop thread: hand the move to the game layer, which drops it if the game went on. */
static void
think_after_cb(uv_work_t *req, int status)
{
	struct think_job *th = container_of(req, struct think_job, req);
	struct think *pool = th->pool;
	char text[GAME_MOVE_TEXT];

	LIST_REMOVE(th, link);
	if (!th->cancelled)
		pool->njobs--;
	if (th->deep)
		pool->deep_running--;
	if (status == 0 && th->rc == SEARCH_ECANCELED)
		log_debug("game %s: its computer's search ended %llu ms after it began",
		          th->game_id, (unsigned long long)th->ms);
	if (status == 0 && th->rc == 0 && !pool->stopping && !th->cancelled &&
	    game_move_format(th->pos.kind, th->result.best, text, sizeof text) >= 0) {
		log_debug("game %s: the computer found %s at depth %d, %llu nodes, %llu ms",
		          th->game_id, text, th->result.depth, (unsigned long long)th->result.nodes,
		          (unsigned long long)th->ms);
		pool->ops.move(pool->ops.arg, th->game_id, th->ply, text);
	}
	free(th);
	think_next(pool);
}

/* Forget th, which the thread pool never had: its move is dropped. */
static void
think_job_drop(struct think *pool, struct think_job *th)
{
	LIST_REMOVE(th, link);
	if (!th->cancelled)
		pool->njobs--;
	free(th);
}

/* Hand th to the thread pool. */
static void
think_job_start(struct think *pool, struct think_job *th)
{
	if (uv_queue_work(pool->loop, &th->req, think_work_cb, think_after_cb) < 0) {
		log_error("game %s: the computer cannot think (uv_queue_work failed)", th->game_id);
		think_job_drop(pool, th);
		return;
	}
	if (th->deep)
		pool->deep_running++;
}

/* Start the deep searches that wait, oldest first, while there is a place for them. */
static void
think_next(struct think *pool)
{
	struct think_job *th;

	while (!pool->stopping && pool->deep_running < THINK_DEEP_RUNNING &&
	       (th = TAILQ_FIRST(&pool->waiting)) != NULL) {
		TAILQ_REMOVE(&pool->waiting, th, wait_link);
		th->waiting = 0;
		think_job_start(pool, th);
	}
}

void
think_request(void *arg, const char *game_id, int64_t ply, const struct game *g, int level,
              uint64_t seed, uint64_t time_ms)
{
	struct think *pool = arg;
	struct think_job *th = xcalloc(1, sizeof *th);

	th->pool = pool;
	snprintf(th->game_id, sizeof th->game_id, "%s", game_id);
	th->ply = ply;
	th->pos = *g;
	if (search_level_limits(level, g->kind, seed, &th->lim) < 0)
		abort(); /* the game layer checked the level */
	th->lim.time_ms = time_ms;
	th->lim.clock_cb = think_clock_cb;
	th->lim.clock_arg = NULL;
	th->lim.cancel = &th->cancel;
	atomic_init(&th->cancel, 0);
	th->deep = level >= THINK_DEEP_LEVEL;
	LIST_INSERT_HEAD(&pool->jobs, th, link);
	pool->njobs++;
	if (th->deep && pool->deep_running >= THINK_DEEP_RUNNING) {
		th->waiting = 1;
		TAILQ_INSERT_TAIL(&pool->waiting, th, wait_link);
		return;
	}
	think_job_start(pool, th);
}

unsigned
think_jobs(const struct think *pool)
{
	return pool->njobs;
}

int
think_busy(const struct think *pool)
{
	return pool->max > 0 && pool->njobs >= pool->max;
}

/*
 * Stop th: forgotten at once if still waiting for a place, cancelled if queued on the thread
 * pool, else told to stop at its next check of the flag.
 */
static void
think_job_cancel(struct think *pool, struct think_job *th)
{
	if (th->waiting) {
		TAILQ_REMOVE(&pool->waiting, th, wait_link);
		think_job_drop(pool, th);
		return;
	}
	if (!th->cancelled) {
		th->cancelled = 1;
		pool->njobs--;
	}
	atomic_store(&th->cancel, 1);
	uv_cancel((uv_req_t *)&th->req); /* fails for a running search: it stops by itself */
}

void
think_cancel(struct think *pool, const char *game_id)
{
	struct think_job *th, *next;

	for (th = LIST_FIRST(&pool->jobs); th != NULL; th = next) {
		next = LIST_NEXT(th, link);
		if (strcmp(th->game_id, game_id) == 0) {
			log_debug("game %s: its computer's search is stopped", game_id);
			think_job_cancel(pool, th);
		}
	}
}

void
think_stop(struct think *pool)
{
	struct think_job *th, *next;

	pool->stopping = 1;
	for (th = LIST_FIRST(&pool->jobs); th != NULL; th = next) {
		next = LIST_NEXT(th, link);
		think_job_cancel(pool, th);
	}
}

void
think_free(struct think *pool)
{
	if (pool == NULL)
		return;
	assert(LIST_EMPTY(&pool->jobs));
	free(pool);
}
