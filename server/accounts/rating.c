/*
 * rating.c: the book of the accounts' ratings (rating.h): one entry per account and game kind,
 * found by a key "account:kind" in a strmap, and the rules of a rated game's change. Owns its
 * entries (one allocation each); never does I/O, never reads the clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osrand.h"
#include "rating.h"
#include "xmalloc.h"

#define RATING_KEY_MAX 48 /* "account:kind" with its NUL */

/* A pair of accounts' last rated games: when each changed their ratings, oldest first. */
struct rating_pair {
	char key[RATING_KEY_MAX]; /* "lo:hi" */
	int64_t *at;
	size_t n, cap;
};

/* An entry: the row and the key it is filed under. */
struct rating_entry {
	struct store_rating row;
	char key[RATING_KEY_MAX];
};

/* The key of account in kind into buf (RATING_KEY_MAX). */
static void
rating_key(int64_t account, enum game_kind kind, char *buf)
{
	snprintf(buf, RATING_KEY_MAX, "%lld:%d", (long long)account, (int)kind);
}

void
rating_book_init(struct rating_book *b)
{
	strmap_init(&b->by_key, osrand_u64());
	strmap_init(&b->pairs, osrand_u64());
	b->pairs_swept = 0;
	memset(b->log, 0, sizeof b->log);
}

/* Free a pair. */
static void
pair_free(struct rating_pair *p)
{
	if (p == NULL)
		return;
	free(p->at);
	free(p);
}

void
rating_book_close(struct rating_book *b)
{
	for (size_t i = 0; i < b->by_key.cap; i++)
		free(b->by_key.slots[i].value);
	strmap_close(&b->by_key);
	for (size_t i = 0; i < b->pairs.cap; i++)
		pair_free(b->pairs.slots[i].value);
	strmap_close(&b->pairs);
}

/* The entry of account in kind, made new (a new player's values) when there is none. */
static struct rating_entry *
entry_get(struct rating_book *b, int64_t account, enum game_kind kind)
{
	char key[RATING_KEY_MAX];
	struct rating_entry *e;
	struct glicko g;

	rating_key(account, kind, key);
	if ((e = strmap_get(&b->by_key, key)) != NULL)
		return e;
	e = xcalloc(1, sizeof *e);
	memcpy(e->key, key, sizeof key);
	glicko_init(&g);
	e->row.account = account;
	e->row.kind = kind;
	e->row.rating = g.rating;
	e->row.rd = g.rd;
	e->row.vol = g.vol;
	strmap_put(&b->by_key, e->key, e);
	return e;
}

void
rating_book_put(struct rating_book *b, const struct store_rating *row)
{
	entry_get(b, row->account, row->kind)->row = *row;
}

const struct store_rating *
rating_book_find(const struct rating_book *b, int64_t account, enum game_kind kind)
{
	char key[RATING_KEY_MAX];
	const struct rating_entry *e;

	rating_key(account, kind, key);
	e = strmap_get(&b->by_key, key);
	return e != NULL ? &e->row : NULL;
}

void
rating_book_glicko(const struct rating_book *b, int64_t account, enum game_kind kind,
                   struct glicko *out)
{
	const struct store_rating *r = b != NULL ? rating_book_find(b, account, kind) : NULL;

	glicko_init(out);
	if (r == NULL)
		return;
	out->rating = r->rating;
	out->rd = r->rd;
	out->vol = r->vol;
}

void
rating_book_display(const struct rating_book *b, int64_t account, enum game_kind kind, char *buf,
                    size_t size)
{
	struct glicko g;

	rating_book_glicko(b, account, kind, &g);
	if (glicko_display(&g, buf, size) < 0 && size > 0)
		buf[0] = '\0';
}

/* The counts and values of row after a game with score and the values after. */
static void
row_update(struct store_rating *row, double score, const struct glicko *after)
{
	row->rating = after->rating;
	row->rd = after->rd;
	row->vol = after->vol;
	row->games++;
	if (score > 0.75)
		row->wins++;
	else if (score < 0.25)
		row->losses++;
	else
		row->draws++;
	if (row->games == 1 || after->rating > row->best)
		row->best = after->rating;
}

int
rating_book_game(struct rating_book *b, enum game_kind kind, const int64_t account[2],
                 double score0, struct event_rating_change out[2])
{
	struct glicko before[2], after[2];
	int rc;

	for (int i = 0; i < 2; i++)
		rating_book_glicko(b, account[i], kind, &before[i]);
	rc = glicko_rate_game(&before[0], &before[1], score0, &after[0], &after[1]);
	if (rc < 0)
		return rc;
	for (int i = 0; i < 2; i++) {
		out[i].before = before[i];
		out[i].after = after[i];
		row_update(&entry_get(b, account[i], kind)->row, i == 0 ? score0 : 1.0 - score0,
		           &after[i]);
	}
	return 0;
}

/* The key of the pair a, c (either order) into buf (RATING_KEY_MAX). */
static void
pair_key(int64_t a, int64_t c, char *buf)
{
	snprintf(buf, RATING_KEY_MAX, "%lld:%lld", (long long)(a < c ? a : c),
	         (long long)(a < c ? c : a));
}

unsigned
rating_book_pair_count(const struct rating_book *b, int64_t a, int64_t c, int64_t since)
{
	char key[RATING_KEY_MAX];
	const struct rating_pair *p;
	unsigned n = 0;

	pair_key(a, c, key);
	if ((p = strmap_get(&b->pairs, key)) == NULL)
		return 0;
	for (size_t i = p->n; i > 0 && p->at[i - 1] > since; i--)
		n++;
	return n;
}

/* Drop p's games at or before since, and its oldest past keep. */
static void
pair_trim(struct rating_pair *p, int64_t since, size_t keep)
{
	size_t drop = 0;

	while (drop < p->n && p->at[drop] <= since)
		drop++;
	if (p->n - drop > keep)
		drop = p->n - keep;
	memmove(p->at, p->at + drop, (p->n - drop) * sizeof *p->at);
	p->n -= drop;
}

/* Forget the pairs with no game after since, once the book has doubled since the last sweep. */
static void
pairs_sweep(struct rating_book *b, int64_t since)
{
	size_t n = strmap_count(&b->pairs), k = 0;
	struct rating_pair **stale;

	if (n < 2 * b->pairs_swept + 64)
		return;
	stale = xmalloc(n * sizeof *stale);
	for (size_t i = 0; i < b->pairs.cap; i++) {
		struct rating_pair *p = b->pairs.slots[i].value;

		if (b->pairs.slots[i].key != NULL && (p->n == 0 || p->at[p->n - 1] <= since))
			stale[k++] = p;
	}
	for (size_t i = 0; i < k; i++) {
		strmap_del(&b->pairs, stale[i]->key);
		pair_free(stale[i]);
	}
	free(stale);
	b->pairs_swept = strmap_count(&b->pairs);
}

void
rating_book_pair_add(struct rating_book *b, int64_t a, int64_t c, int64_t at, int64_t since,
                     unsigned keep)
{
	char key[RATING_KEY_MAX];
	struct rating_pair *p;
	size_t i;

	pair_key(a, c, key);
	if ((p = strmap_get(&b->pairs, key)) == NULL) {
		pairs_sweep(b, since);
		p = xcalloc(1, sizeof *p);
		memcpy(p->key, key, sizeof key);
		strmap_put(&b->pairs, p->key, p);
	}
	p->at = xgrow(p->at, p->n, &p->cap, sizeof *p->at, 4);
	/* in time order: a restart loads them in the order of their ends, mostly */
	for (i = p->n; i > 0 && p->at[i - 1] > at; i--)
		p->at[i] = p->at[i - 1];
	p->at[i] = at;
	p->n++;
	pair_trim(p, since, keep > 0 ? keep : 1);
}

unsigned
rating_book_log_due(struct rating_book *b, enum event_unrated why, int64_t now)
{
	unsigned n;

	b->log[why].count++;
	if (b->log[why].at != 0 && now - b->log[why].at < RATING_LOG_EVERY_MS)
		return 0;
	n = b->log[why].count;
	b->log[why].count = 0;
	b->log[why].at = now != 0 ? now : 1;
	return n;
}

double
rating_quick_window(uint64_t waited_ms)
{
	return RATING_WINDOW_START +
	       RATING_WINDOW_STEP * (double)(waited_ms / RATING_WINDOW_EVERY_MS);
}
