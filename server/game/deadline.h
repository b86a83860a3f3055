/*
 * deadline.h: the tables with a deadline (a flag fall, the end of a grace period), earliest first
 * (deadline.c: a binary min-heap). A zeroed struct deadline_heap is an empty heap.
 */
#ifndef HOKITO_SERVER_DEADLINE_H
#define HOKITO_SERVER_DEADLINE_H

#include <stddef.h>

#include "table.h"

struct deadline_heap {
	struct table **heap; /* heap[0] has the earliest heap_deadline */
	size_t n, cap;
};

/* File t (borrowed) under its current table_deadline(): into the heap, moved, or out. NULL: none.
 */
void deadline_refresh(struct deadline_heap *dh, struct table *t);

/* Take t out of the heap, if it is there. */
void deadline_remove(struct deadline_heap *dh, struct table *t);

/* The table with the earliest deadline, or NULL when none has one. Borrowed. */
struct table *deadline_first(const struct deadline_heap *dh);

/* Free the heap's array (not the tables). */
void deadline_close(struct deadline_heap *dh);

#endif
