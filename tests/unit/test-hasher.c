/*
 * test-hasher.c: the password threads (server/workers/hasher.c) on a real libuv loop: as many threads as
 * the cores less one (1 to HASHER_THREADS_MAX), each at SCHED_IDLE (Linux; or nice 19), every job
 * run (real Argon2id) and answered once on the loop's thread; a stop frees the queued jobs
 * unanswered, the loop then ends by itself and uv_loop_close() finds no handle left (the sanitizer
 * build finds no job leaked).
 */
#define _GNU_SOURCE /* SCHED_IDLE */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "hasher.h"
#include "password.h"
#include "test.h"

#define PW "correct horse battery"

struct probe {
	int answers;          /* done callbacks */
	int bad;              /* answers with rc != 0 or no Argon2id hash */
	uv_thread_t loop_tid; /* the loop's thread: answers come there */
	int off_loop;         /* answers on another thread */
	uv_timer_t timeout;   /* stops a test that would hang */
};

static void
probe_done(void *arg, struct auth_job *j)
{
	struct probe *p = arg;
	uv_thread_t self = uv_thread_self();

	p->answers++;
	if (j->rc != 0 || strncmp(j->hash, "$argon2id$", 10) != 0)
		p->bad++;
	if (!uv_thread_equal(&self, &p->loop_tid))
		p->off_loop++;
	auth_job_free(j);
}

static void
stop_cb(uv_timer_t *t)
{
	uv_stop(t->loop);
}

/* A register job: hash PW. Returns a new job. */
static struct auth_job *
job_new(uint64_t ticket)
{
	struct auth_job *j = calloc(1, sizeof *j);

	j->ticket = ticket;
	j->op = AUTH_REGISTER;
	j->password = strdup(PW);
	j->len = strlen(PW);
	return j;
}

/* Threads of this process at SCHED_IDLE, or at nice 19 where that was refused (Linux; else -1). */
static int
idle_threads(void)
{
#if defined(__linux__) && defined(SCHED_IDLE)
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0, own_nice = getpriority(PRIO_PROCESS, 0); /* this (the loop's) thread's */

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (sched_getscheduler(atoi(e->d_name)) == SCHED_IDLE ||
		    (own_nice < 19 && getpriority(PRIO_PROCESS, (id_t)atoi(e->d_name)) == 19))
			n++;
	}
	closedir(d);
	return n;
#else
	return -1;
#endif
}

/* As many threads as the cores less one, within 1 and HASHER_THREADS_MAX. */
TEST(hasher_thread_count)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	long want = cores - 1;

	if (want < 1)
		want = 1;
	if (want > HASHER_THREADS_MAX)
		want = HASHER_THREADS_MAX;
	ASSERT_EQ((long)hasher_threads(), want);
}

/* Five jobs: each run and answered once, on the loop's thread, by threads at SCHED_IDLE. */
TEST(hasher_runs_jobs)
{
	uv_loop_t loop;
	struct probe p = {.loop_tid = uv_thread_self()};
	struct hasher *h;

	ASSERT_EQ(password_init(), 0);
	ASSERT_EQ(uv_loop_init(&loop), 0);
	uv_timer_init(&loop, &p.timeout);
	ASSERT_EQ(hasher_create(&loop, probe_done, &p, &h), 0);
	for (uint64_t i = 1; i <= 5; i++)
		hasher_submit(h, job_new(i));
	uv_timer_start(&p.timeout, stop_cb, 60000, 0);
	while (p.answers < 5 && uv_run(&loop, UV_RUN_ONCE) != 0 &&
	       uv_is_active((uv_handle_t *)&p.timeout))
		;
	ASSERT_EQ(p.answers, 5);
	ASSERT_EQ(p.bad, 0);
	ASSERT_EQ(p.off_loop, 0);
#if defined(__linux__) && defined(SCHED_IDLE)
	ASSERT_EQ(idle_threads(), (int)hasher_threads());
#endif
	hasher_stop(h);
	uv_close((uv_handle_t *)&p.timeout, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	ASSERT_EQ(idle_threads() > 0, 0); /* the threads have ended */
	ASSERT_EQ(uv_loop_close(&loop), 0);
}

/* A stop with jobs queued: none answered, the loop ends, nothing left. */
TEST(hasher_stop_drops_queued)
{
	uv_loop_t loop;
	struct probe p = {.loop_tid = uv_thread_self()};
	struct hasher *h;

	ASSERT_EQ(uv_loop_init(&loop), 0);
	ASSERT_EQ(hasher_create(&loop, probe_done, &p, &h), 0);
	for (uint64_t i = 1; i <= 20; i++)
		hasher_submit(h, job_new(i));
	hasher_stop(h);
	ASSERT_EQ(uv_run(&loop, UV_RUN_DEFAULT), 0);
	ASSERT_EQ(p.answers, 0);
	ASSERT_EQ(uv_loop_close(&loop), 0);
}

/* A stop with nothing asked: the loop ends at once. */
TEST(hasher_stop_idle)
{
	uv_loop_t loop;
	struct probe p = {.loop_tid = uv_thread_self()};
	struct hasher *h;

	ASSERT_EQ(uv_loop_init(&loop), 0);
	ASSERT_EQ(hasher_create(&loop, probe_done, &p, &h), 0);
	hasher_stop(h);
	ASSERT_EQ(uv_run(&loop, UV_RUN_DEFAULT), 0);
	ASSERT_EQ(uv_loop_close(&loop), 0);
}

int
main(void)
{
	RUN(hasher_thread_count);
	RUN(hasher_runs_jobs);
	RUN(hasher_stop_drops_queued);
	RUN(hasher_stop_idle);
	TEST_END();
}
