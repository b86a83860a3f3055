/*
 * hasher.h: the password jobs' pool (issue 21): each job (struct auth_job, auth.h) runs
 * auth_job_run() on libuv's thread pool, never on the loop's thread, at most HASHER_RUNNING at
 * once, the others queued in order; its answer is handed back on the loop. Argon2id takes a core
 * for tens of milliseconds and megabytes of memory by design: two at once leave the other
 * workers (the computer's searches, think.c) and the loop their share in a storm of logins. The
 * game layer caps the jobs out in all (AUTH_JOBS_MAX), so the queue here is bounded too.
 */
#ifndef HOKITO_SERVER_HASHER_H
#define HOKITO_SERVER_HASHER_H

#include <uv.h>

#include "auth.h"

#define HASHER_RUNNING 2 /* jobs on the thread pool at once */

struct hasher;

/* Called on the loop's thread with a job run, which it steals. */
typedef void (*hasher_done_cb)(void *arg, struct auth_job *j);

/* A pool on loop answering through done(arg, j). Returns a new pool; hasher_free() it. */
struct hasher *hasher_create(uv_loop_t *loop, hasher_done_cb done, void *arg);

/* Run job j (stolen). Never blocks. The signature of lobby_ops.hash, arg being the pool. */
void hasher_submit(void *arg, struct auth_job *j);

/*
 * Stop: queued jobs are freed unanswered; running ones finish and are freed unanswered. The
 * loop runs until their callbacks are done.
 */
void hasher_stop(struct hasher *h);

/* Free the pool once the loop has run every job's callback. Accepts NULL. */
void hasher_free(struct hasher *h);

#endif
