/*
 * test-syncer.c: the server's background job thread (server/workers/syncer.c) on a real libuv loop:
 * a request is answered on the loop with its ticket, requests made while a run is under way
 * coalesce into one more run that answers the last of them, a job's error reaches the done
 * callback (even when a later run of the same answer succeeded), busy follows the answers, and
 * closing joins the thread and frees everything (uv_loop_close() finds no handle left).
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "syncer.h"
#include "test.h"

struct probe {
	atomic_int runs;    /* jobs run, on the syncer's thread */
	atomic_int began;   /* jobs begun */
	atomic_int result;  /* what the next job returns */
	int fail_run;       /* or: the run (1, 2, ...) that returns -5, the others 0 */
	int sleep_ms;       /* how long each job takes */
	uint64_t last;      /* the last ticket answered (loop) */
	int last_rc;        /* its result */
	int answers;        /* done callbacks (loop) */
	struct syncer *s;   /* for busy checks in the callback */
	uv_timer_t timeout; /* stops a test that would hang */
};

static int
probe_job(void *arg)
{
	struct probe *p = arg;

	int run;

	atomic_fetch_add(&p->began, 1);
	uv_sleep((unsigned)p->sleep_ms);
	run = atomic_fetch_add(&p->runs, 1) + 1;
	if (p->fail_run > 0)
		return run == p->fail_run ? -5 : 0;
	return atomic_load(&p->result);
}

static void
probe_done(void *arg, uint64_t ticket, int rc)
{
	struct probe *p = arg;

	p->last = ticket;
	p->last_rc = rc;
	p->answers++;
}

static void
stop_cb(uv_timer_t *t)
{
	uv_stop(t->loop);
}

/* Run the loop until the syncer has answered ticket (or 5 s pass). */
static void
run_until(uv_loop_t *loop, struct probe *p, uint64_t ticket)
{
	uv_timer_start(&p->timeout, stop_cb, 5000, 0);
	while (p->last < ticket && uv_run(loop, UV_RUN_ONCE) != 0 &&
	       uv_is_active((uv_handle_t *)&p->timeout))
		;
	uv_timer_stop(&p->timeout);
}

/* A loop, the probe's timeout timer, and its syncer. Returns 0 or a libuv error. */
static int
probe_open(uv_loop_t *loop, struct probe *p)
{
	int rc = uv_loop_init(loop);

	if (rc < 0)
		return rc;
	uv_timer_init(loop, &p->timeout);
	return syncer_create(loop, probe_job, probe_done, p, &p->s);
}

static void
probe_close(uv_loop_t *loop, struct probe *p)
{
	syncer_close(p->s);
	uv_close((uv_handle_t *)&p->timeout, NULL);
	uv_run(loop, UV_RUN_DEFAULT);
	ASSERT_EQ(uv_loop_close(loop), 0);
}

/* One request, one run, one answer with its ticket; busy until then. */
TEST(syncer_one_request)
{
	uv_loop_t loop;
	struct probe p = {.sleep_ms = 1};
	uint64_t t;

	ASSERT_EQ(probe_open(&loop, &p), 0);
	ASSERT(!syncer_busy(p.s));
	t = syncer_request(p.s);
	ASSERT_U64_EQ(t, 1);
	ASSERT(syncer_busy(p.s));
	run_until(&loop, &p, t);
	ASSERT_U64_EQ(p.last, 1);
	ASSERT_EQ(p.last_rc, 0);
	ASSERT_EQ(p.answers, 1);
	ASSERT_EQ(atomic_load(&p.runs), 1);
	ASSERT(!syncer_busy(p.s));
	probe_close(&loop, &p);
}

/* Requests made while a run is under way are answered together by one more run. */
TEST(syncer_coalesces)
{
	uv_loop_t loop;
	struct probe p = {.sleep_ms = 50};
	uint64_t t = 0;

	ASSERT_EQ(probe_open(&loop, &p), 0);
	syncer_request(p.s);
	uv_sleep(10); /* the first run is under way */
	for (int i = 0; i < 9; i++)
		t = syncer_request(p.s);
	ASSERT_U64_EQ(t, 10);
	run_until(&loop, &p, t);
	ASSERT_U64_EQ(p.last, 10);
	ASSERT(atomic_load(&p.runs) <= 2); /* not ten: the one under way, and one for the rest */
	ASSERT(p.answers <= 2);
	ASSERT(!syncer_busy(p.s));
	probe_close(&loop, &p);
}

/* A job's error reaches the loop; the next run's success too. */
TEST(syncer_error)
{
	uv_loop_t loop;
	struct probe p = {.sleep_ms = 1};
	uint64_t t;

	ASSERT_EQ(probe_open(&loop, &p), 0);
	atomic_store(&p.result, -5);
	t = syncer_request(p.s);
	run_until(&loop, &p, t);
	ASSERT_EQ(p.last_rc, -5);
	atomic_store(&p.result, 0);
	t = syncer_request(p.s);
	run_until(&loop, &p, t);
	ASSERT_U64_EQ(p.last, 2);
	ASSERT_EQ(p.last_rc, 0);
	probe_close(&loop, &p);
}

/*
 * A failed run followed by a successful one before the loop hears of either: the answer carries
 * the failure (a lost write that the kernel reported once must not be hidden), then it is gone.
 */
TEST(syncer_error_kept)
{
	uv_loop_t loop;
	struct probe p = {.sleep_ms = 30, .fail_run = 1};
	uint64_t t;

	ASSERT_EQ(probe_open(&loop, &p), 0);
	syncer_request(p.s);
	for (int i = 0; i < 5000 && atomic_load(&p.began) == 0; i++)
		uv_sleep(1); /* until run 1 is under way: the next request makes run 2 */
	t = syncer_request(p.s);
	for (int i = 0; i < 5000 && atomic_load(&p.runs) < 2; i++)
		uv_sleep(1); /* both ran; the loop has not run */
	ASSERT_EQ(atomic_load(&p.runs), 2);
	run_until(&loop, &p, t);
	ASSERT_U64_EQ(p.last, 2);
	ASSERT_EQ(p.last_rc, -5);
	ASSERT_EQ(p.answers, 1);
	t = syncer_request(p.s);
	run_until(&loop, &p, t);
	ASSERT_EQ(p.last_rc, 0);
	probe_close(&loop, &p);
}

/* Closing with a run under way waits for it; the done callback is not called any more. */
TEST(syncer_close_waits)
{
	uv_loop_t loop;
	struct probe p = {.sleep_ms = 100};

	ASSERT_EQ(probe_open(&loop, &p), 0);
	syncer_request(p.s);
	uv_sleep(10);
	probe_close(&loop, &p); /* joins: the run finished */
	ASSERT_EQ(atomic_load(&p.runs), 1);
	ASSERT_EQ(p.answers, 0);
}

int
main(void)
{
	RUN(syncer_one_request);
	RUN(syncer_coalesces);
	RUN(syncer_error);
	RUN(syncer_error_kept);
	RUN(syncer_close_waits);
	TEST_END();
}
