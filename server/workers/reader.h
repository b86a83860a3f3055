/*
 * reader.h: the store's reads off the loop's thread. A reader owns one or more read ports
 * (store-port.h) and a thread for each, which run the game layer's store reads (struct
 * archive_read, archive_read_run(), archive.h), each on its own port, and hand each answer back to
 * the loop's thread (a uv_async_t), where the done callback gets it. The reads wait in a fair
 * queue by the asker's key (fairq.h: its source address), so that one address cannot take more
 * than its share of the threads' time however many reads it queues, and one address may have at
 * most per_key reads queued or running (reader_submit() refuses more). A port that must stay on
 * the loop's thread (loop_only: a temporary store) is run at once by reader_submit(), and its
 * answer still comes through the done callback on a later turn, never inside the caller's call.
 */
#ifndef HOKITO_SERVER_READER_H
#define HOKITO_SERVER_READER_H

#include <uv.h>

#include "archive.h"
#include "store-port.h"

struct reader;

/* Called on the loop's thread with an answered read, which it steals. */
typedef void (*reader_done_cb)(void *arg, struct archive_read *r);

enum reader_err {
	READER_EFULL = -1, /* the key has per_key reads queued or running: not queued */
};

/* How a reader runs its reads. */
struct reader_config {
	unsigned per_key; /* reads one key may have queued or running; 0: no bound */
	uint64_t seed;    /* keys' hash seed (a random one) */
};

/*
 * A reader on loop running ports[0..nports) (stolen: the reader closes them; nports >= 1; a
 * loop_only port must be the only one), one thread each, answering through done(arg, r). Returns
 * 0 and *out, or a negative libuv error (then every port is closed).
 */
int reader_create(uv_loop_t *loop, const struct store_read_port *ports, unsigned nports,
                  const struct reader_config *cfg, reader_done_cb done, void *arg,
                  struct reader **out);

/*
 * Queue read r (stolen) for the reader's threads under key (borrowed: the asker's address, or any
 * string that names one asker; "" is a key too). Returns 0, or READER_EFULL when key has
 * cfg.per_key reads queued or running already: then r is not taken (the caller still owns it).
 * Loop thread only.
 */
int reader_submit(struct reader *rd, const char *key, struct archive_read *r);

/* Threads that run the reads (0 for a loop_only port). */
unsigned reader_threads(const struct reader *rd);

/* The reads submitted that no thread has taken yet (on the loop's thread). */
unsigned reader_queued(struct reader *rd);

/*
 * Stop: the reads running finish, the queued ones and the answers not yet delivered are freed
 * unanswered, the threads are joined, the ports closed; the memory goes when the loop has closed
 * the async handle. Accepts NULL. Loop thread only.
 */
void reader_close(struct reader *rd);

#endif
