/*
 * osrand.c: random bytes from getrandom(2).
 *
 * getrandom blocks only until the kernel's pool is first initialised at boot, and for requests
 * this small never returns short except on a signal, which we retry. It owns nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "osrand.h"

void
osrand_fill(void *buf, size_t n)
{
	unsigned char *p = buf;

	while (n > 0) {
		ssize_t r = getrandom(p, n, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "getrandom: %s\n", strerror(errno));
			abort();
		}
		p += r;
		n -= (size_t)r;
	}
}

uint64_t
osrand_u64(void)
{
	uint64_t x;

	osrand_fill(&x, sizeof x);
	return x;
}

void
osrand_text(char *out, size_t n, const char *alphabet)
{
	size_t k = strlen(alphabet);
	/* reject bytes at or above the largest multiple of k, so every character is equally likely
	 */
	unsigned limit = 256 - 256 % (unsigned)k;

	for (size_t i = 0; i < n;) {
		unsigned char b[32];

		osrand_fill(b, sizeof b);
		for (size_t j = 0; j < sizeof b && i < n; j++)
			if (b[j] < limit)
				out[i++] = alphabet[b[j] % k];
	}
	out[n] = '\0';
}
