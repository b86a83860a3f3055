/*
 * accounts.c: the accounts the game layer knows, by key, by skeleton and by loose key, with the
 * reservations of names being registered, the keys of the reserved words, the index by id, and
 * the rule and throttles of failed logins (accounts.h). Owns its accounts, reservations, loose
 * keys and reserved words (one allocation each), the index's array and its throttles; never does
 * I/O, never reads the clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "names.h"
#include "osrand.h"
#include "password.h"
#include "throttle.h"
#include "xmalloc.h"

const char *const accounts_login_names[ACCOUNTS_LOGIN_OUTCOMES] = {
        [ACCOUNTS_LOGIN_OK] = "ok",
        [ACCOUNTS_LOGIN_WRONG_PASSWORD] = "wrong_password",
        [ACCOUNTS_LOGIN_CLOSED] = "account_closed",
        [ACCOUNTS_LOGIN_THROTTLED] = "throttled",
        [ACCOUNTS_LOGIN_INSECURE] = "insecure_transport",
};

const char *const accounts_hash_names[ACCOUNTS_HASH_OUTCOMES] = {
        [ACCOUNTS_HASH_OK] = "ok",
        [ACCOUNTS_HASH_MISMATCH] = "mismatch",
        [ACCOUNTS_HASH_ERROR] = "error",
};

void
accounts_job_done(struct accounts *as, int rc)
{
	as->jobs_out--;
	as->hashes[rc == 0                    ? ACCOUNTS_HASH_OK
	           : rc == PASSWORD_EMISMATCH ? ACCOUNTS_HASH_MISMATCH
	                                      : ACCOUNTS_HASH_ERROR]++;
}

/* A loose key (names_loose_key()) and how many accounts have it: two may ("a_b", "ab"). */
struct accounts_loose {
	unsigned n;
	char key[]; /* NUL-terminated */
};

/* One more (delta 1) or one less (-1) account of loose key. */
static void
accounts_loose_ref(struct accounts *as, const char *key, int delta)
{
	struct accounts_loose *l = strmap_get(&as->by_loose, key);
	size_t len = strlen(key);

	if (delta > 0) {
		if (l == NULL) {
			l = xmalloc(sizeof *l + len + 1);
			l->n = 0;
			memcpy(l->key, key, len + 1);
			strmap_put(&as->by_loose, l->key, l);
		}
		l->n++;
	} else if (l != NULL && --l->n == 0) {
		strmap_del(&as->by_loose, l->key);
		free(l);
	}
}

/* The loose key of an account's name into key (STORE_SKELETON_MAX bytes): "" if it fails. */
static void
accounts_loose_of(const char *name, char key[STORE_SKELETON_MAX])
{
	if (names_loose_key(name, key, STORE_SKELETON_MAX) < 0)
		key[0] = '\0';
}

/* Put a copy of word in set (a strmap of owned strings to themselves), unless it is there. */
static void
accounts_set_add(struct strmap *set, const char *word)
{
	char *copy;

	if (strmap_get(set, word) != NULL)
		return;
	copy = xstrdup(word);
	strmap_put(set, copy, copy);
}

void
accounts_init(struct accounts *as)
{
	char keys[2][NAMES_KEY_MAX];
	const char *w;

	memset(as, 0, sizeof *as);
	strmap_init(&as->by_key, osrand_u64());
	strmap_init(&as->by_skeleton, osrand_u64());
	strmap_init(&as->by_id, osrand_u64());
	strmap_init(&as->reserved, osrand_u64());
	strmap_init(&as->by_loose, osrand_u64());
	strmap_init(&as->words, osrand_u64());
	for (size_t i = 0; (w = names_reserved_word(i)) != NULL; i++)
		for (int k = 0, n = names_reserved_keys(w, keys); k < n; k++)
			accounts_set_add(&as->words, keys[k]);
	struct throttle_config spread = throttle_config_default;

	spread.free_failures = UINT32_MAX; /* it only counts the addresses: it never delays */
	as->by_pair = throttle_create(&throttle_config_default, osrand_u64());
	as->by_account = throttle_create(&throttle_config_default, osrand_u64());
	as->by_spread = throttle_create(&spread, osrand_u64());
	as->by_addr = throttle_create(&throttle_config_default, osrand_u64());
	as->by_session = throttle_create(&throttle_config_default, osrand_u64());
	as->spread_min = ACCOUNTS_SPREAD_MIN;
	as->next_id = 1;
}

void
accounts_close(struct accounts *as)
{
	for (size_t i = 0; i < as->by_key.cap; i++)
		free(as->by_key.slots[i].value);
	for (size_t i = 0; i < as->reserved.cap; i++)
		free(as->reserved.slots[i].value);
	for (size_t i = 0; i < as->by_loose.cap; i++)
		free(as->by_loose.slots[i].value);
	for (size_t i = 0; i < as->words.cap; i++)
		free(as->words.slots[i].value);
	strmap_close(&as->by_loose);
	strmap_close(&as->words);
	strmap_close(&as->by_key);
	strmap_close(&as->by_skeleton);
	strmap_close(&as->by_id);
	strmap_close(&as->reserved);
	free(as->order);
	as->order = NULL;
	as->n = as->cap = 0;
	throttle_free(as->by_pair);
	throttle_free(as->by_account);
	throttle_free(as->by_spread);
	throttle_free(as->by_addr);
	throttle_free(as->by_session);
	as->by_pair = as->by_account = as->by_spread = as->by_addr = as->by_session = NULL;
}

/* Put a in the id order (ids come in order: almost always at the end). */
static void
accounts_order_put(struct accounts *as, struct account *a)
{
	size_t i = accounts_after(as, a->row.id);

	as->order = xgrow(as->order, as->n, &as->cap, sizeof *as->order, 64);
	memmove(as->order + i + 1, as->order + i, (as->n - i) * sizeof *as->order);
	as->order[i] = a;
	as->n++;
}

/* Take a out of the id order. */
static void
accounts_order_del(struct accounts *as, const struct account *a)
{
	for (size_t i = accounts_after(as, a->row.id - 1);
	     i < as->n && as->order[i]->row.id == a->row.id; i++)
		if (as->order[i] == a) {
			memmove(as->order + i, as->order + i + 1,
			        (as->n - i - 1) * sizeof *as->order);
			as->n--;
			return;
		}
}

struct account *
accounts_add(struct accounts *as, const struct store_account *row)
{
	struct account *a = xcalloc(1, sizeof *a);
	struct account *old = strmap_get(&as->by_key, row->key);
	char loose[STORE_SKELETON_MAX];

	if (old != NULL) /* never two rows of a key: the store keeps them unique */
		accounts_remove(as, old);
	a->row = *row;
	snprintf(a->id_text, sizeof a->id_text, "%lld", (long long)row->id);
	accounts_loose_of(row->name, loose);
	accounts_loose_ref(as, loose, 1);
	strmap_put(&as->by_key, a->row.key, a);
	strmap_put(&as->by_skeleton, a->row.skeleton, a);
	strmap_put(&as->by_id, a->id_text, a);
	accounts_order_put(as, a);
	if (row->id >= as->next_id)
		as->next_id = row->id + 1;
	return a;
}

void
accounts_remove(struct accounts *as, struct account *a)
{
	char loose[STORE_SKELETON_MAX];

	if (strmap_get(&as->by_key, a->row.key) != a)
		return;
	strmap_del(&as->by_key, a->row.key);
	if (strmap_get(&as->by_skeleton, a->row.skeleton) == a)
		strmap_del(&as->by_skeleton, a->row.skeleton);
	strmap_del(&as->by_id, a->id_text);
	accounts_loose_of(a->row.name, loose);
	accounts_loose_ref(as, loose, -1);
	accounts_order_del(as, a);
	free(a);
}

size_t
accounts_count(const struct accounts *as)
{
	return as->n;
}

size_t
accounts_after(const struct accounts *as, int64_t after)
{
	size_t lo = 0, hi = as->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (as->order[mid]->row.id <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct account *
accounts_at(const struct accounts *as, size_t i)
{
	return i < as->n ? as->order[i] : NULL;
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
	char loose[STORE_SKELETON_MAX];

	accounts_loose_of(key, loose);
	return strmap_get(&as->by_key, key) != NULL ||
	       strmap_get(&as->by_skeleton, skeleton) != NULL ||
	       (loose[0] != '\0' && strmap_get(&as->by_loose, loose) != NULL) ||
	       strmap_get(&as->reserved, key) != NULL ||
	       strmap_get(&as->reserved, skeleton) != NULL ||
	       (loose[0] != '\0' && strmap_get(&as->reserved, loose) != NULL);
}

int
accounts_reserved_name(const struct accounts *as, const char *name)
{
	char keys[2][NAMES_KEY_MAX];
	int n = names_reserved_keys(name, keys);

	if (n < 0)
		return 1; /* cannot be checked: refused is the safe answer */
	for (int i = 0; i < n; i++)
		if (strmap_get(&as->words, keys[i]) != NULL)
			return 1;
	return 0;
}

void
accounts_reserve(struct accounts *as, const char *key, const char *skeleton)
{
	char loose[STORE_SKELETON_MAX];

	accounts_loose_of(key, loose);
	accounts_set_add(&as->reserved, key);
	accounts_set_add(&as->reserved, skeleton);
	if (loose[0] != '\0')
		accounts_set_add(&as->reserved, loose);
}

void
accounts_release(struct accounts *as, const char *key, const char *skeleton)
{
	char loose[STORE_SKELETON_MAX];

	accounts_loose_of(key, loose);
	free(strmap_del(&as->reserved, key));
	free(strmap_del(&as->reserved, skeleton));
	if (loose[0] != '\0')
		free(strmap_del(&as->reserved, loose));
}

int
accounts_guest_refused(const struct accounts *as, const char *name)
{
	char keys[2][NAMES_KEY_MAX];
	int n;

	if (names_imitates_computer(name))
		return ACCOUNTS_TAKEN;
	if ((n = names_guest_keys(name, keys)) < 0)
		return ACCOUNTS_TAKEN; /* cannot be checked: refused is the safe answer */
	for (int i = 0; i < n; i++)
		if (strmap_get(&as->by_skeleton, keys[i]) != NULL ||
		    strmap_get(&as->reserved, keys[i]) != NULL)
			return ACCOUNTS_TAKEN;
	if ((n = names_loose_keys(name, keys)) < 0)
		return ACCOUNTS_TAKEN;
	for (int i = 0; i < n; i++)
		if (keys[i][0] != '\0' && (strmap_get(&as->by_loose, keys[i]) != NULL ||
		                           strmap_get(&as->reserved, keys[i]) != NULL))
			return ACCOUNTS_TAKEN;
	return accounts_reserved_name(as, name) ? ACCOUNTS_RESERVED : 0;
}

/* The (account, address) throttle key of key and addr into pair. */
static void
accounts_pair_key(const char *key, const char *addr, char pair[ACCOUNTS_KEY_MAX])
{
	snprintf(pair, ACCOUNTS_KEY_MAX, "%s|%s", key, addr);
}

bool
accounts_known(const struct account *a, const char *addr, uint64_t now_ms)
{
	if (a == NULL || addr[0] == '\0')
		return false;
	for (int i = 0; i < ACCOUNTS_KNOWN_MAX; i++)
		if (a->known[i].addr[0] != '\0' && strcmp(a->known[i].addr, addr) == 0)
			return now_ms < a->known[i].at ||
			       now_ms - a->known[i].at < ACCOUNTS_KNOWN_MS;
	return false;
}

void
accounts_known_add(struct account *a, const char *addr, uint64_t now_ms)
{
	int slot = 0;

	if (addr[0] == '\0')
		return;
	for (int i = 0; i < ACCOUNTS_KNOWN_MAX; i++) {
		if (strcmp(a->known[i].addr, addr) == 0) {
			slot = i;
			break;
		}
		if (a->known[i].at < a->known[slot].at)
			slot = i; /* the oldest (an empty one is at 0) */
	}
	snprintf(a->known[slot].addr, sizeof a->known[slot].addr, "%s", addr);
	a->known[slot].at = now_ms;
}

/* Whether the account's own bound applies to a login from addr: an address it does not know,
 * while failures come from spread_min addresses or more. */
static bool
accounts_bound_applies(struct accounts *as, const struct account *a, const char *key,
                       const char *addr, uint64_t now_ms)
{
	return as->spread_min != 0 && !accounts_known(a, addr, now_ms) &&
	       throttle_failures(as->by_spread, key, now_ms) >= as->spread_min;
}

int
accounts_login_check(struct accounts *as, const struct account *a, const char *key,
                     const char *addr, uint64_t now_ms, uint64_t *retry_ms)
{
	char pair[ACCOUNTS_KEY_MAX];
	uint64_t r = 0;
	int rc = 0;

	accounts_pair_key(key, addr, pair);
	*retry_ms = 0;
	if (throttle_check(as->by_pair, pair, now_ms, &r) == THROTTLE_EAGAIN) {
		rc = ACCOUNTS_LIMIT_PAIR;
		*retry_ms = r;
	}
	if (addr[0] != '\0' && throttle_check(as->by_addr, addr, now_ms, &r) == THROTTLE_EAGAIN) {
		rc = rc != 0 ? rc : ACCOUNTS_LIMIT_ADDR;
		*retry_ms = r > *retry_ms ? r : *retry_ms;
	}
	if (accounts_bound_applies(as, a, key, addr, now_ms) &&
	    throttle_check(as->by_account, key, now_ms, &r) == THROTTLE_EAGAIN) {
		rc = rc != 0 ? rc : ACCOUNTS_LIMIT_ACCOUNT;
		*retry_ms = r > *retry_ms ? r : *retry_ms;
	}
	return rc;
}

int
accounts_login_begin(struct accounts *as, const struct account *a, const char *key,
                     const char *addr, uint64_t now_ms)
{
	char pair[ACCOUNTS_KEY_MAX];
	uint64_t retry;

	accounts_pair_key(key, addr, pair);
	if (throttle_failures(as->by_pair, pair, now_ms) == 0)
		throttle_begin(as->by_spread, key, now_ms, &retry); /* one more address failing */
	throttle_begin(as->by_pair, pair, now_ms, &retry);
	if (addr[0] != '\0')
		throttle_begin(as->by_addr, addr, now_ms, &retry);
	if (accounts_known(a, addr, now_ms))
		return 0;
	/* counted whether or not the bound applies yet: once it does, it has them all */
	throttle_begin(as->by_account, key, now_ms, &retry);
	return 1;
}

void
accounts_login_success(struct accounts *as, struct account *a, const char *key, const char *addr,
                       int counted, uint64_t now_ms)
{
	char pair[ACCOUNTS_KEY_MAX];

	accounts_pair_key(key, addr, pair);
	throttle_forget(as->by_pair, pair);
	throttle_success(as->by_spread, key);
	if (addr[0] != '\0')
		throttle_success(as->by_addr, addr);
	if (counted)
		throttle_success(as->by_account, key);
	if (a != NULL)
		accounts_known_add(a, addr, now_ms);
}

void
accounts_login_forget(struct accounts *as, const char *key)
{
	throttle_forget(as->by_account, key);
	throttle_forget(as->by_spread, key);
}

void
accounts_tick(struct accounts *as, uint64_t now_ms)
{
	throttle_expire(as->by_pair, now_ms);
	throttle_expire(as->by_account, now_ms);
	throttle_expire(as->by_spread, now_ms);
	throttle_expire(as->by_addr, now_ms);
	throttle_expire(as->by_session, now_ms);
}

bool
accounts_open(const struct accounts *as, int64_t id)
{
	const struct account *a = accounts_find_id(as, id);

	return a != NULL && a->row.closed_ms == 0 && a->row.banned_ms == 0;
}

bool
accounts_is_bot(const struct account *a)
{
	return a != NULL && strcmp(a->row.kind, "bot") == 0;
}
