/*
 * xmalloc.c: the one place where running out of memory is handled: by aborting.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

static void
xmalloc_die(size_t size)
{
	fprintf(stderr, "hokito: out of memory allocating %zu bytes\n", size);
	abort();
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p == NULL)
		xmalloc_die(size);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		xmalloc_die(n * size);
	return p;
}

void *
xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);

	if (q == NULL)
		xmalloc_die(size);
	return q;
}

void *
xgrow(void *p, size_t n, size_t *cap, size_t size, size_t first)
{
	size_t want;

	if (n < *cap)
		return p;
	want = *cap ? *cap * 2 : first;
	if (want < *cap || want > SIZE_MAX / size)
		xmalloc_die(SIZE_MAX);
	*cap = want;
	return xrealloc(p, want * size);
}

char *
xstrdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(xmalloc(len), s, len);
}
