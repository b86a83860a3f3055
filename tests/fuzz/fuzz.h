/*
 * fuzz.h: the entry point every fuzz target implements (libFuzzer's).
 *
 * Built with clang and -Dfuzz=true, the targets link with libFuzzer and explore on their own.
 * Built otherwise (the normal and sanitizer test builds), they link with fuzz-main.c, which runs
 * every file of the corpus directories given on the command line, plus a bounded number of
 * deterministic mutations of them, so the suite replays the corpus and past crashes every time.
 */
#ifndef HOKITO_TESTS_FUZZ_H
#define HOKITO_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property the target checks: when it fails, abort, which the fuzzer reports as a crash. */
static inline void
check(int ok)
{
	if (!ok)
		abort();
}

#endif
