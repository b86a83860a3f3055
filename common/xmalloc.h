/*
 * xmalloc.h: allocation that cannot fail.
 *
 * Running out of memory is not an error path every caller handles: these wrappers print one line
 * to stderr and abort (tmux, Redis). The rules engine never allocates; the server, client and
 * tools do, through these.
 */
#ifndef HOKITO_COMMON_XMALLOC_H
#define HOKITO_COMMON_XMALLOC_H

#include <stddef.h>

/* malloc that aborts on failure. Returns a new block the caller frees. */
void *xmalloc(size_t size);

/* calloc that aborts on failure. Returns a new zeroed block the caller frees. */
void *xcalloc(size_t n, size_t size);

/* realloc that aborts on failure. Takes ownership of p and returns the new block. */
void *xrealloc(void *p, size_t size);

/*
 * Room for one more element in the array p of n elements of size bytes each, *cap of them
 * allocated: when it is full, *cap doubles (or becomes first) and the array is reallocated.
 * Takes ownership of p and returns the array; aborts on failure, as the others do.
 */
void *xgrow(void *p, size_t n, size_t *cap, size_t size, size_t first);

/* strdup that aborts on failure. Returns a new string the caller frees. */
char *xstrdup(const char *s);

#endif
