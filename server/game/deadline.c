/*
 * deadline.c: the deadline heap of the game layer. Every table whose table_deadline() is finite (a
 * clock runs, or the player to move is away and spends grace) is in the heap, a binary min-heap on
 * the deadline it was filed under, and knows its place (heap_index). lobby_arm() then finds the
 * earliest deadline at the top instead of asking every table. A table's deadline changes only when
 * something happens at that table, so deadline_refresh() is called for the tables an entry point
 * touched (the requester's game before and after the request, the games woken by lobby_wake()),
 * and for all of them once a second in lobby_tick(), which bounds the harm of a missed refresh.
 * The heap owns its array, not the tables. Part of the game layer: no libuv here.
 */
#include <stdint.h>
#include <stdlib.h>

#include "deadline.h"
#include "xmalloc.h"

/*
 * The deadline heap. Every table whose table_deadline() is finite (a clock runs, or the player
 * to move is away and spends grace) is in dh->heap, a binary min-heap on the deadline it was
 * filed under, and knows its place (heap_index). lobby_arm() then finds the earliest deadline at
 * the top instead of asking every table. A table's deadline changes only when something happens
 * at that table, so deadline_refresh() is called for the tables an entry point touched (the
 * requester's game before and after the request, the games woken by lobby_wake()), and for all
 * of them once a second in lobby_tick(), which bounds the harm of a missed refresh.
 */
static int
heap_less(const struct deadline_heap *dh, size_t a, size_t b)
{
	return dh->heap[a]->heap_deadline < dh->heap[b]->heap_deadline;
}

static void
heap_swap(struct deadline_heap *dh, size_t a, size_t b)
{
	struct table *x = dh->heap[a];

	dh->heap[a] = dh->heap[b];
	dh->heap[b] = x;
	dh->heap[a]->heap_index = a;
	dh->heap[b]->heap_index = b;
}

/* Restore the heap order around place i after its deadline changed. */
static void
heap_fix(struct deadline_heap *dh, size_t i)
{
	while (i > 0 && heap_less(dh, i, (i - 1) / 2)) {
		heap_swap(dh, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < dh->n && heap_less(dh, l, m))
			m = l;
		if (r < dh->n && heap_less(dh, r, m))
			m = r;
		if (m == i)
			return;
		heap_swap(dh, i, m);
		i = m;
	}
}

void
deadline_remove(struct deadline_heap *dh, struct table *t)
{
	size_t i = t->heap_index, last;

	if (i == SIZE_MAX)
		return;
	last = --dh->n;
	t->heap_index = SIZE_MAX;
	if (i == last)
		return;
	dh->heap[i] = dh->heap[last];
	dh->heap[i]->heap_index = i;
	heap_fix(dh, i);
}

void
deadline_refresh(struct deadline_heap *dh, struct table *t)
{
	uint64_t d;

	if (t == NULL)
		return;
	d = table_deadline(t);
	if (d == UINT64_MAX) {
		deadline_remove(dh, t);
		return;
	}
	t->heap_deadline = d;
	if (t->heap_index == SIZE_MAX) {
		dh->heap = xgrow(dh->heap, dh->n, &dh->cap, sizeof *dh->heap, 64);
		t->heap_index = dh->n;
		dh->heap[dh->n++] = t;
	}
	heap_fix(dh, t->heap_index);
}

struct table *
deadline_first(const struct deadline_heap *dh)
{
	return dh->n > 0 ? dh->heap[0] : NULL;
}

void
deadline_close(struct deadline_heap *dh)
{
	free(dh->heap);
	dh->heap = NULL;
	dh->n = dh->cap = 0;
}
