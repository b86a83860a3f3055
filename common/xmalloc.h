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

/* strdup that aborts on failure. Returns a new string the caller frees. */
char *xstrdup(const char *s);

#endif
