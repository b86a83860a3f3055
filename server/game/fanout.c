/*
 * fanout.c: the in-process backend of the fan-out port (fanout.h).
 *
 * An event goes first to the store's writer, which only queues it in the turn's transaction (so
 * the order of the writes is the order of the events), then to every receiver connected at its
 * game in this process: the same wire, one reference each. Nothing is sent before the turn's
 * commit is durable: the network layer holds the output until then (turn.h).
 */
#include "durable.h"
#include "fanout.h"
#include "table.h"

/* fanout.publish: the store, then this process's receivers. */
static void
fanout_local_publish(const struct fanout *fo, struct table *t, int64_t seq, enum msg_type type,
                     const struct event *ev, struct wire *w, const struct session *skip)
{
	if (fo->arg != NULL)
		durable_event(fo->arg, t, seq, type, ev, w);
	table_broadcast(t, w, skip);
}

void
fanout_local_init(struct fanout *fo, void *durable)
{
	fo->publish = fanout_local_publish;
	fo->arg = durable;
}
