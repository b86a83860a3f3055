/*
 * hasher.h: the password jobs' pool: each job (struct auth_job, auth.h) runs auth_job_run() on a
 * thread of the pool's own, never on the loop's thread nor on libuv's thread pool (whose workers
 * serve the store and the computer's searches), the others queued in order; its answer is handed
 * back on the loop. Argon2id takes a core for tens of milliseconds and megabytes of memory by
 * design, so in a storm of logins the hashes must not take the CPU from the games: there is one
 * thread fewer than the cores (at least one, at most HASHER_THREADS_MAX), and they run at the
 * lowest priority the system has (Linux: SCHED_IDLE), so that the loop and the store's threads
 * always go first and the hashes take what is left. The game layer caps the jobs out in all
 * (AUTH_JOBS_MAX), so the queue here is bounded too.
 */
#ifndef HOKITO_SERVER_HASHER_H
#define HOKITO_SERVER_HASHER_H

#include <uv.h>

#include "auth.h"

#define HASHER_THREADS_MAX 8 /* threads at most, whatever the cores */

struct hasher;

/* Called on the loop's thread with a job run, which it steals. */
typedef void (*hasher_done_cb)(void *arg, struct auth_job *j);

/*
 * A pool on loop answering through done(arg, j), with hasher_threads() threads started. Sets
 * *out to a new pool (stopped and freed by hasher_stop()). Returns 0, or a libuv error code (no
 * async handle or no thread: nothing is left then).
 */
int hasher_create(uv_loop_t *loop, hasher_done_cb done, void *arg, struct hasher **out);

/* The jobs submitted that no thread has taken yet (on the loop's thread). */
unsigned hasher_queued(struct hasher *h);

/* The threads a pool starts on this machine: the cores online less one, 1 to HASHER_THREADS_MAX. */
unsigned hasher_threads(void);

/* Run job j (stolen). Never blocks. The signature of lobby_ops.hash, arg being the pool. */
void hasher_submit(void *arg, struct auth_job *j);

/*
 * Stop: queued jobs are freed unanswered; running ones finish and are freed unanswered. The
 * loop runs until the last thread has ended; then the pool's async handle is closed and its
 * close callback frees the pool. Accepts NULL; h must not be used afterwards.
 */
void hasher_stop(struct hasher *h);

#endif
