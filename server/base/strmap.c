/*
 * strmap.c: string-keyed hash table with linear probing.
 *
 * A slot's home is hash & (cap - 1); a key sits at its home or after it, with no empty slot in
 * between (the probing invariant). Deletion keeps that invariant by shifting later keys of the
 * same run back into the hole (Knuth's algorithm R), instead of leaving tombstones. The table
 * doubles when it is three quarters full. The hash is FNV-1a over the key, started from the seed
 * and finished with a 64-bit mixer; it is not a MAC, which is why keys are also compared in
 * constant time (the full 64-bit hash is compared first, so a compare happens only for a key whose
 * keyed hash already matched).
 */
#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "xmalloc.h"

static uint64_t
strmap_hash(const struct strmap *m, const char *key)
{
	uint64_t h = 0xcbf29ce484222325ull ^ m->seed;

	for (const unsigned char *p = (const unsigned char *)key; *p != '\0'; p++) {
		h ^= *p;
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* Whether a and b are the same string, in time that depends only on their lengths. */
static int
key_equal(const char *a, const char *b)
{
	size_t n = strlen(a);
	unsigned char diff = 0;

	if (strlen(b) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

void
strmap_init(struct strmap *m, uint64_t seed)
{
	memset(m, 0, sizeof *m);
	m->seed = seed;
}

void
strmap_close(struct strmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}

/* The slot holding key, or the empty slot where it would go. cap must be > 0. */
static size_t
strmap_find(const struct strmap *m, const char *key, uint64_t h)
{
	size_t mask = m->cap - 1, i = (size_t)h & mask;

	while (m->slots[i].key != NULL &&
	       !(m->slots[i].hash == h && key_equal(m->slots[i].key, key)))
		i = (i + 1) & mask;
	return i;
}

static void
strmap_grow(struct strmap *m)
{
	struct strmap_slot *old = m->slots;
	size_t oldcap = m->cap;

	m->cap = oldcap ? oldcap * 2 : 16;
	m->slots = xcalloc(m->cap, sizeof *m->slots);
	for (size_t i = 0; i < oldcap; i++) {
		if (old[i].key != NULL) {
			size_t j = strmap_find(m, old[i].key, old[i].hash);

			m->slots[j] = old[i];
		}
	}
	free(old);
}

void *
strmap_get(const struct strmap *m, const char *key)
{
	size_t i;

	if (m->n == 0)
		return NULL;
	i = strmap_find(m, key, strmap_hash(m, key));
	return m->slots[i].key != NULL ? m->slots[i].value : NULL;
}

void
strmap_put(struct strmap *m, const char *key, void *value)
{
	uint64_t h = strmap_hash(m, key);
	size_t i;

	if ((m->n + 1) * 4 > m->cap * 3)
		strmap_grow(m);
	i = strmap_find(m, key, h);
	if (m->slots[i].key == NULL)
		m->n++;
	m->slots[i].key = key;
	m->slots[i].value = value;
	m->slots[i].hash = h;
}

void *
strmap_del(struct strmap *m, const char *key)
{
	size_t mask, i, j;
	void *value;

	if (m->n == 0)
		return NULL;
	mask = m->cap - 1;
	i = strmap_find(m, key, strmap_hash(m, key));
	if (m->slots[i].key == NULL)
		return NULL;
	value = m->slots[i].value;
	m->n--;
	/* shift back every later key of the run whose home is not between the hole and itself */
	for (j = (i + 1) & mask; m->slots[j].key != NULL; j = (j + 1) & mask) {
		size_t home = (size_t)m->slots[j].hash & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].key = NULL;
	m->slots[i].value = NULL;
	return value;
}

size_t
strmap_count(const struct strmap *m)
{
	return m->n;
}
