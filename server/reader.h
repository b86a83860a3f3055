/*
 * reader.h: the store's reads off the loop's thread. A reader owns a read port (store-port.h)
 * and one thread of its own that runs the game layer's store reads (struct archive_read,
 * archive_read_run(), archive.h) on it one at a time, in the order they were asked, and hands
 * each answer back to the loop's thread (a uv_async_t), where the done callback gets it. A port
 * that must stay on the loop's thread (loop_only: a temporary store) is run at once by
 * reader_submit(), and its answer still comes through the done callback on a later turn, never
 * inside the caller's call.
 */
#ifndef HOKITO_SERVER_READER_H
#define HOKITO_SERVER_READER_H

#include <uv.h>

#include "archive.h"
#include "store-port.h"

struct reader;

/* Called on the loop's thread with an answered read, which it steals. */
typedef void (*reader_done_cb)(void *arg, struct archive_read *r);

/*
 * A reader on loop running port (stolen: the reader closes it) and answering through done(arg,
 * r). Starts its thread unless the port is loop_only. Returns 0 and *out, or a negative libuv
 * error (then the port is closed).
 */
int reader_create(uv_loop_t *loop, const struct store_read_port *port, reader_done_cb done,
                  void *arg, struct reader **out);

/* Queue read r (stolen) for the reader's thread. Loop thread only. */
void reader_submit(struct reader *rd, struct archive_read *r);

/*
 * Stop: the read running finishes, the queued ones and the answers not yet delivered are freed
 * unanswered, the thread is joined, the port closed; the memory goes when the loop has closed
 * the async handle. Accepts NULL. Loop thread only.
 */
void reader_close(struct reader *rd);

#endif
