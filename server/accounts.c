/*
 * accounts.c: the accounts the game layer knows, by key and by skeleton, with the reservations
 * of names being registered and the throttles of failed logins (accounts.h). Owns its accounts
 * and reservations (one allocation each) and its two throttles; never does I/O, never reads the
 * clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "names.h"
#include "osrand.h"
#include "throttle.h"
#include "xmalloc.h"

void
accounts_init(struct accounts *as)
{
	memset(as, 0, sizeof *as);
	strmap_init(&as->by_key, osrand_u64());
	strmap_init(&as->by_skeleton, osrand_u64());
	strmap_init(&as->by_id, osrand_u64());
	strmap_init(&as->reserved, osrand_u64());
	as->by_account = throttle_create(&throttle_config_default, osrand_u64());
	as->by_addr = throttle_create(&throttle_config_default, osrand_u64());
	as->next_id = 1;
}

void
accounts_close(struct accounts *as)
{
	for (size_t i = 0; i < as->by_key.cap; i++)
		free(as->by_key.slots[i].value);
	for (size_t i = 0; i < as->reserved.cap; i++)
		free(as->reserved.slots[i].value);
	strmap_close(&as->by_key);
	strmap_close(&as->by_skeleton);
	strmap_close(&as->by_id);
	strmap_close(&as->reserved);
	throttle_free(as->by_account);
	throttle_free(as->by_addr);
	as->by_account = as->by_addr = NULL;
}

struct account *
accounts_add(struct accounts *as, const struct store_account *row)
{
	struct account *a = xcalloc(1, sizeof *a);

	struct account *old = strmap_del(&as->by_key, row->key);

	if (old != NULL) { /* never two rows of a key: the store keeps them unique */
		strmap_del(&as->by_skeleton, old->row.skeleton);
		strmap_del(&as->by_id, old->id_text);
		free(old);
	}
	a->row = *row;
	snprintf(a->id_text, sizeof a->id_text, "%lld", (long long)row->id);
	strmap_put(&as->by_key, a->row.key, a);
	strmap_put(&as->by_skeleton, a->row.skeleton, a);
	strmap_put(&as->by_id, a->id_text, a);
	if (row->id >= as->next_id)
		as->next_id = row->id + 1;
	return a;
}

struct account *
accounts_find(const struct accounts *as, const char *key)
{
	return strmap_get(&as->by_key, key);
}

struct account *
accounts_find_id(const struct accounts *as, int64_t id)
{
	char text[24];

	snprintf(text, sizeof text, "%lld", (long long)id);
	return strmap_get(&as->by_id, text);
}

int
accounts_taken(const struct accounts *as, const char *key, const char *skeleton)
{
	return strmap_get(&as->by_key, key) != NULL ||
	       strmap_get(&as->by_skeleton, skeleton) != NULL ||
	       strmap_get(&as->reserved, key) != NULL ||
	       strmap_get(&as->reserved, skeleton) != NULL;
}

void
accounts_reserve(struct accounts *as, const char *key, const char *skeleton)
{
	const char *words[2] = {key, skeleton};

	for (int i = 0; i < 2; i++)
		if (strmap_get(&as->reserved, words[i]) == NULL) {
			char *copy = xstrdup(words[i]);

			strmap_put(&as->reserved, copy, copy);
		}
}

void
accounts_release(struct accounts *as, const char *key, const char *skeleton)
{
	free(strmap_del(&as->reserved, key));
	free(strmap_del(&as->reserved, skeleton));
}

int
accounts_guest_refused(const struct accounts *as, const char *name)
{
	char keys[2][NAMES_KEY_MAX];
	int n;

	if (names_imitates_computer(name))
		return 1;
	if ((n = names_guest_keys(name, keys)) < 0)
		return 1; /* cannot be checked: refused is the safe answer */
	for (int i = 0; i < n; i++)
		if (strmap_get(&as->by_skeleton, keys[i]) != NULL ||
		    strmap_get(&as->reserved, keys[i]) != NULL)
			return 1;
	return 0;
}

void
accounts_tick(struct accounts *as, uint64_t now_ms)
{
	throttle_expire(as->by_account, now_ms);
	throttle_expire(as->by_addr, now_ms);
}

bool
accounts_is_bot(const struct account *a)
{
	return a != NULL && strcmp(a->row.kind, "bot") == 0;
}
