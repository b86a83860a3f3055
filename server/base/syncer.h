/*
 * syncer.h: one job run on a thread of its own, on request, with the result back on the loop.
 *
 * hokitod uses two: one that fdatasyncs the store's WAL (so that a group commit is acknowledged
 * only once it survives a power loss, while the loop goes on with the next turn), and one that
 * checkpoints the WAL into the store file. A request made while the job runs is served by one
 * more run after it: requests coalesce, and a run answers every request made before it started.
 * Requests are numbered (tickets); the done callback gets the ticket of the last request the run
 * answered.
 */
#ifndef HOKITO_SERVER_SYNCER_H
#define HOKITO_SERVER_SYNCER_H

#include <stdint.h>

#include <uv.h>

struct syncer;

/* The job, on the syncer's thread: 0 or a negative error code. arg is syncer_create()'s. */
typedef int (*syncer_job_fn)(void *arg);

/* On the loop thread: every request up to ticket has been answered; rc is 0, or the first error
 * of the runs since the last call. */
typedef void (*syncer_done_fn)(void *arg, uint64_t ticket, int rc);

/*
 * Start the thread. job and done get arg (borrowed; it must outlive the syncer). Returns 0 and
 * *out, to be closed with syncer_close(); or a libuv error code.
 */
int syncer_create(uv_loop_t *loop, syncer_job_fn job, syncer_done_fn done, void *arg,
                  struct syncer **out);

/* Ask for a run that starts after this call. Returns its ticket (1, 2, ...). */
uint64_t syncer_request(struct syncer *s);

/* Whether a request is not answered yet (on the loop: done has not been called for it). */
int syncer_busy(const struct syncer *s);

/*
 * Stop: the run under way and the one requested (if any) finish, the thread is joined (this
 * waits for them), and the memory is freed when libuv has closed the async handle. done is not
 * called any more. Accepts NULL.
 */
void syncer_close(struct syncer *s);

#endif
