/*
 * fuzz-main.c: a driver for fuzz targets without libFuzzer.
 *
 *   fuzz-TARGET [--mutations N] DIR_OR_FILE...
 *
 * Runs the target on every corpus file, then on N deterministic mutations (byte flips, inserts,
 * deletions, splices of two corpus files) drawn from a fixed seed, and prints one TAP line per
 * corpus directory. A crash or a sanitizer report ends the process, which fails the test.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "rng.h"
#include "xmalloc.h"

struct corpus {
	uint8_t **data;
	size_t *size;
	size_t n;
};

static void
corpus_add_file(struct corpus *c, const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (f == NULL) {
		fprintf(stderr, "fuzz: cannot open %s\n", path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = xmalloc((size_t)len + 1);
	if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "fuzz: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	c->data = xrealloc(c->data, (c->n + 1) * sizeof *c->data);
	c->size = xrealloc(c->size, (c->n + 1) * sizeof *c->size);
	c->data[c->n] = buf;
	c->size[c->n] = (size_t)len;
	c->n++;
}

static void
corpus_add(struct corpus *c, const char *path)
{
	struct stat st;
	struct dirent **names;
	int n;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "fuzz: no such file or directory: %s\n", path);
		exit(1);
	}
	if (!S_ISDIR(st.st_mode)) {
		corpus_add_file(c, path);
		return;
	}
	n = scandir(path, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char full[4096];
		if (names[i]->d_name[0] != '.') {
			snprintf(full, sizeof full, "%s/%s", path, names[i]->d_name);
			corpus_add_file(c, full);
		}
		free(names[i]);
	}
	free(names);
}

/* One mutation of a corpus input into buf (room for max bytes). Returns its size. */
static size_t
mutate(struct rng *r, const struct corpus *c, uint8_t *buf, size_t max)
{
	size_t i = rng_below(r, (uint32_t)c->n), n = c->size[i] < max ? c->size[i] : max;
	int rounds = 1 + (int)rng_below(r, 4);

	memcpy(buf, c->data[i], n);
	while (rounds-- > 0) {
		uint32_t pos = n ? rng_below(r, (uint32_t)n) : 0;
		switch (rng_below(r, 5)) {
		case 0: /* flip a byte */
			if (n)
				buf[pos] ^= (uint8_t)(1 + rng_below(r, 255));
			break;
		case 1: /* insert a byte, often a delimiter */
			if (n < max) {
				static const char picks[] = ",/- +\n{}\":0123456789abcdefpwxXO";
				memmove(buf + pos + 1, buf + pos, n - pos);
				buf[pos] = rng_below(r, 2)
				                   ? (uint8_t)picks[rng_below(r, sizeof picks - 1)]
				                   : (uint8_t)rng_below(r, 256);
				n++;
			}
			break;
		case 2: /* delete a run */
			if (n) {
				size_t len = 1 + rng_below(r, (uint32_t)(n - pos));
				memmove(buf + pos, buf + pos + len, n - pos - len);
				n -= len;
			}
			break;
		case 3: /* truncate */
			n = pos;
			break;
		default: { /* splice the tail of another input */
			size_t j = rng_below(r, (uint32_t)c->n), from;
			if (c->size[j] == 0)
				break;
			from = rng_below(r, (uint32_t)c->size[j]);
			size_t len = c->size[j] - from;
			if (pos + len > max)
				len = max - pos;
			memcpy(buf + pos, c->data[j] + from, len);
			n = pos + len;
		}
		}
	}
	return n;
}

int
main(int argc, char **argv)
{
	struct corpus c = {0};
	long mutations = 20000;
	int first = 1, tap = 0;
	struct rng r;
	uint8_t *buf;

	if (argc > 2 && strcmp(argv[1], "--mutations") == 0) {
		mutations = atol(argv[2]);
		first = 3;
	}
	for (int i = first; i < argc; i++)
		corpus_add(&c, argv[i]);
	for (size_t i = 0; i < c.n; i++) {
		/* Each input in a buffer of its own size, so ASan sees overreads. */
		uint8_t *copy = xmalloc(c.size[i] ? c.size[i] : 1);
		memcpy(copy, c.data[i], c.size[i]);
		LLVMFuzzerTestOneInput(copy, c.size[i]);
		free(copy);
	}
	printf("ok %d - %zu corpus inputs\n", ++tap, c.n);
	if (c.n > 0) {
		buf = xmalloc(4096);
		rng_init(&r, 20261122);
		for (long k = 0; k < mutations; k++) {
			size_t n = mutate(&r, &c, buf, 4096);
			uint8_t *copy = xmalloc(n ? n : 1);
			memcpy(copy, buf, n);
			LLVMFuzzerTestOneInput(copy, n);
			free(copy);
		}
		free(buf);
		printf("ok %d - %ld mutations\n", ++tap, mutations);
	}
	for (size_t i = 0; i < c.n; i++)
		free(c.data[i]);
	free(c.data);
	free(c.size);
	printf("1..%d\n", tap);
	return 0;
}
