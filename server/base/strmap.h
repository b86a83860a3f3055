/*
 * strmap.h: a hash table from strings to pointers, for the game layer's lookups by id, invite
 * code, token and player id.
 *
 * Keys are borrowed: each key must stay valid and unchanged while it is in the map (the lobby
 * uses strings inside the session or table the value points at). Open addressing with linear
 * probing and backward-shift deletion, so there are no tombstones and a map that sees many
 * insertions and deletions does not slow down. The hash is keyed with a secret seed, and keys are
 * compared in constant time, so that looking up a guessed token tells nothing about real ones.
 */
#ifndef HOKITO_SERVER_STRMAP_H
#define HOKITO_SERVER_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	const char *key; /* borrowed; NULL for an empty slot */
	void *value;
	uint64_t hash; /* of key */
};

struct strmap {
	struct strmap_slot *slots; /* cap slots, owned */
	size_t cap;                /* 0 or a power of two */
	size_t n;                  /* keys held */
	uint64_t seed;             /* secret key of the hash */
};

/* Set up an empty map whose hash is keyed with seed (use a random one). */
void strmap_init(struct strmap *m, uint64_t seed);

/* Release the slots (not the keys or values). Safe on a zeroed map. */
void strmap_close(struct strmap *m);

/* The value of key, or NULL. */
void *strmap_get(const struct strmap *m, const char *key);

/* Map key (borrowed) to value, replacing any value it had. */
void strmap_put(struct strmap *m, const char *key, void *value);

/* Remove key. Returns its value, or NULL if it was not there. */
void *strmap_del(struct strmap *m, const char *key);

/* Keys held. */
size_t strmap_count(const struct strmap *m);

#endif
