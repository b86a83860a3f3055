/*
 * fanout.h: the fan-out port: where every game event is published, once, and who receives it.
 *
 * A table emits an event in one place (table_emit(), table.c): it numbers it, encodes its line
 * once, keeps it in its log, and publishes it here. The port is a struct of functions, so that
 * the game layer does not know who listens. Its backend today is in-process (fanout.c): it hands
 * the event to the store's writer (durable.h: queued in the turn's group commit) and then to the
 * players and spectators of that game connected to this process (table_broadcast()). This is the
 * seam a second server node plugs into: a Redis pub/sub backend publishes the same line on the
 * game's channel, and each node delivers it to its own connected receivers; the table, the lobby
 * and the store path do not change. Part of the game layer: no libuv here.
 */
#ifndef HOKITO_SERVER_FANOUT_H
#define HOKITO_SERVER_FANOUT_H

#include <stdint.h>

#include <jansson.h>

#include "event.h"
#include "msg.h"
#include "wire.h"

struct session;
struct table;

/* The port: a backend fills it. */
struct fanout {
	/*
	 * Publish event seq of type of game t to everyone who must have it: the store, then every
	 * receiver connected at t except skip (may be NULL). w, its line, is borrowed (receivers
	 * take references); ev is the event (event.h), borrowed, already applied to t (a moved
	 * event's move is t's last). Must not call back into the game layer.
	 */
	void (*publish)(const struct fanout *fo, struct table *t, int64_t seq, enum msg_type type,
	                const struct event *ev, struct wire *w, const struct session *skip);
	void *arg; /* the backend's own (in-process: the store writer, durable.h, or NULL) */
};

/*
 * Fill fo with the in-process backend: each event to durable (a struct durable, borrowed; NULL
 * for none), then to this process's connected receivers.
 */
void fanout_local_init(struct fanout *fo, void *durable);

#endif
