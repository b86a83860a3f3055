/*
 * osrand.h: unguessable random bytes from the operating system (getrandom), for session tokens,
 * invite codes, seeds and random seats. Never a seeded generator: these must not be predictable.
 */
#ifndef HOKITO_SERVER_OSRAND_H
#define HOKITO_SERVER_OSRAND_H

#include <stddef.h>
#include <stdint.h>

/* Fill buf with n random bytes. Aborts if the OS cannot give them (it always can on Linux). */
void osrand_fill(void *buf, size_t n);

/* A random 64-bit number. */
uint64_t osrand_u64(void);

/* Write n random characters from alphabet into out, then a NUL (out holds n + 1 bytes). */
void osrand_text(char *out, size_t n, const char *alphabet);

#endif
