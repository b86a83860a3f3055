/*
 * guard.c: the game layer's limits against abuse: the allowances of each source address (requests a
 * second, creates a minute, games not over: quota.h), its failed lookups of secrets (invite codes,
 * tokens: throttle.h), the idle timeout of connections at no game, and the caps on sessions kept
 * for resume: in all, and per address with its new sessions a minute.
 *
 * A room above the lobby's state, as match.c and play.c are: the request handlers ask it before
 * they act, and the node's tick runs guard_tick(). It owns nothing: the tables of allowances are
 * the lobby's (struct lobby: quota, lookups), made from its config, so that a game's count for
 * its creator's address is given back where the lobby sees the game end. Refusals are coded
 * errors to the peer and one log line a second at most, so that an attacker cannot flood the log
 * either. Part of the game layer: no libuv here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "log.h"
#include "quota.h"
#include "throttle.h"
#include "xmalloc.h"

/*
 * A connection that goes on sending while its address is over its rate is closed at this many
 * refusals within GUARD_REFUSED_WINDOW_MS of its first: a flood's error replies would cost the
 * server more than its requests, and the others' moves would wait behind them. A window, not a
 * run: a flood that lets the allowance's refill through now and then is closed all the same.
 */
#define GUARD_REFUSED_CLOSE     50
#define GUARD_REFUSED_WINDOW_MS 10000

/* Past this many refusals in the window, a connection's lines over the rate are not read. */
#define GUARD_REFUSED_UNREAD 10

/* The log line of a kind of refusal comes at most this often (ms), with the count since. */
#define GUARD_LOG_MS 10000

/* At most one log line this often (ms) about the reads refused past --max-reads-per-addr. */
#define GUARD_READS_LOG_MS 10000

/* Count a request refused by a per-address limit, for the log line of the next tick. */
static void
guard_limited(struct lobby *lb, const struct lobby_peer *peer)
{
	lb->limited++;
	snprintf(lb->limited_addr, sizeof lb->limited_addr, "%s", peer->addr);
}

void
guard_rate_arrived(struct lobby *lb, struct lobby_peer *peer, size_t n)
{
	uint64_t retry;

	if (n == 0) {
		peer->prepaid = peer->overdrawn = 0;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (lb->quota == NULL ||
		    quota_request(lb->quota, peer->addr, lb->ops.now(lb->ops.arg), &retry) == 0)
			peer->prepaid++;
		else
			peer->overdrawn++;
	}
}

/*
 * Whether a request of peer is past its address's allowance, counting it (as it arrived, or
 * now); *retry: when the next one would pass (ms).
 */
static int
guard_rate_over(struct lobby *lb, struct lobby_peer *peer, uint64_t *retry)
{
	*retry = 1000 / (lb->cfg.rate_per_addr > 0 ? lb->cfg.rate_per_addr : 1);
	if (peer->prepaid > 0) { /* counted as it arrived, within the allowance */
		peer->prepaid--;
		return 0;
	}
	if (peer->overdrawn > 0) { /* counted as it arrived, past the allowance */
		peer->overdrawn--;
		return 1;
	}
	return lb->quota != NULL &&
	       quota_request(lb->quota, peer->addr, lb->ops.now(lb->ops.arg), retry) != 0;
}

/*
 * Refuse a request of peer over the rate (m: it, or NULL for a line not read), and close the
 * connection at its GUARD_REFUSED_CLOSE-th refusal in the window. Returns 1.
 */
static int
guard_rate_refuse(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, uint64_t retry)
{
	uint64_t now = lb->ops.now(lb->ops.arg);
	char text[200];
	int closing;

	lb->refusals[LOBBY_LIMIT_RATE]++;
	guard_limited(lb, peer);
	if (peer->refused == 0 || now - peer->refused_at >= GUARD_REFUSED_WINDOW_MS) {
		peer->refused = 0;
		peer->refused_at = now;
	}
	closing = ++peer->refused >= GUARD_REFUSED_CLOSE;
	if (!closing)
		snprintf(text, sizeof text,
		         "more than %u requests a second from your address; wait %llu ms",
		         lb->cfg.rate_per_addr, (unsigned long long)retry);
	else /* it does not wait: answering each costs the server more than reading it */
		snprintf(text, sizeof text,
		         "more than %u requests a second from your address, %u refused in %u s; "
		         "closing",
		         lb->cfg.rate_per_addr, peer->refused, GUARD_REFUSED_WINDOW_MS / 1000);
	if (m != NULL)
		lobby_refuse(lb, peer, m, PROTO_ERATELIMITED, "%s", text);
	else
		lobby_send(lb, peer, msg_error_new(PROTO_ERATELIMITED, MSG_NONE, NULL, text, NULL));
	if (closing) {
		log_debug("connection from %s closed: %u requests over its rate in %u s",
		          peer->addr, peer->refused, GUARD_REFUSED_WINDOW_MS / 1000);
		lb->ops.close(lb->ops.arg, peer);
	}
	return 1;
}

int
guard_refuse_rate(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	uint64_t retry;

	if (!guard_rate_over(lb, peer, &retry))
		return 0;
	return guard_rate_refuse(lb, peer, m, retry);
}

int
guard_refuse_unread(struct lobby *lb, struct lobby_peer *peer)
{
	uint64_t retry;

	if (peer->refused < GUARD_REFUSED_UNREAD ||
	    lb->ops.now(lb->ops.arg) - peer->refused_at >= GUARD_REFUSED_WINDOW_MS)
		return 0;
	if (!guard_rate_over(lb, peer, &retry)) {
		peer->prepaid++; /* counted now: its request passes when it is served */
		return 0;
	}
	return guard_rate_refuse(lb, peer, NULL, retry);
}

/*
 * Whether the computer takes no more games: --max-thinking games against it are not over, or its
 * pool holds that many searches (ops->think_busy). Each such game has one search at most, queued
 * or running, so the pool's queue never grows past the bound, and a crowd of games against the
 * strongest level cannot make the computer's other opponents wait for long.
 */
static int
computer_full(const struct lobby *lb)
{
	unsigned n = 0;

	if (lb->ops.think_busy != NULL && lb->ops.think_busy(lb->ops.arg))
		return 1;
	if (lb->cfg.max_thinking == 0)
		return 0;
	for (size_t i = 0; i < lb->ntables; i++) {
		const struct table *t = lb->tables[i];

		if (t->st.status != EVENT_STATUS_FINISHED && (t->computer[0] || t->computer[1]) &&
		    ++n >= lb->cfg.max_thinking)
			return 1;
	}
	return 0;
}

int
guard_refuse_create(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                    int with_computer)
{
	uint64_t retry = 0;
	int rc;

	if (with_computer && computer_full(lb)) {
		lb->refusals[LOBBY_LIMIT_THINKING]++;
		log_warn(
		        "a game against the computer refused: %u are being played (--max-thinking)",
		        lb->cfg.max_thinking);
		lobby_refuse(lb, peer, m, PROTO_ECOMPUTERBUSY,
		             "the computer players are all busy; try again in a moment");
		return 1;
	}
	if (lb->quota == NULL)
		return 0;
	rc = quota_create_begin(lb->quota, peer->addr, lb->ops.now(lb->ops.arg), &retry);
	if (rc == 0)
		return 0;
	guard_limited(lb, peer);
	lb->refusals[rc == QUOTA_EFULL ? LOBBY_LIMIT_GAMES_PER_ADDR : LOBBY_LIMIT_CREATES]++;
	if (rc == QUOTA_EFULL)
		lobby_refuse(lb, peer, m, PROTO_ETOOMANYGAMES,
		             "your address holds %u games not over already; finish one first",
		             lb->cfg.games_per_addr);
	else
		lobby_refuse(lb, peer, m, PROTO_ERATELIMITED,
		             "more than %u games created a minute from your address; wait %llu ms",
		             lb->cfg.creates_per_addr, (unsigned long long)retry);
	return 1;
}

int
guard_lookup_begin(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	uint64_t retry = 0;

	if (lb->lookups == NULL || throttle_begin(lb->lookups, peer->addr, lb->ops.now(lb->ops.arg),
	                                          &retry) != THROTTLE_EAGAIN)
		return 0;
	lb->refusals[LOBBY_LIMIT_LOOKUPS]++;
	guard_limited(lb, peer);
	lobby_refuse(lb, peer, m, PROTO_ERATELIMITED,
	             "too many failed lookups of invite codes and tokens from your address; "
	             "wait %llu ms",
	             (unsigned long long)retry);
	return 1;
}

void
guard_lookup_end(struct lobby *lb, struct lobby_peer *peer, int found)
{
	if (lb->lookups != NULL && found)
		throttle_success(lb->lookups, peer->addr);
}

/*
 * A connection that said hello but is at no game, and sent nothing for --idle-timeout, is closed
 * (bye, reason "idle"): such connections would hold --max-clients places for ever. Its session
 * stays for --linger, as any lost connection's, so the player may come back with its token.
 */
static void
idle_close(struct lobby *lb, uint64_t real_now)
{
	for (size_t i = 0; i < lb->sessions.n; i++) {
		struct session *s = lb->sessions.all[i];
		struct lobby_peer *peer = s->peer;

		if (peer == NULL || s->table != NULL || real_now - s->active_at < lb->cfg.idle_ms)
			continue;
		log_info("%s (%s) closed: idle for %llu s at no game", s->id, s->name,
		         (unsigned long long)((real_now - s->active_at) / 1000));
		lb->refusals[LOBBY_LIMIT_IDLE]++;
		lobby_send(lb, peer,
		           msg_bye_new("idle", "no request for a long time while at no game"));
		peer->session = NULL;
		s->peer = NULL;
		s->gone_at = lobby_time(lb);
		lb->ops.close(lb->ops.arg, peer);
	}
}

/* Whether s may be forgotten before --linger when sessions pass --max-sessions: it is away,
 * and not seated in a game that waits for it. */
static int
session_evictable(const struct session *s)
{
	return s->peer == NULL && !(s->table != NULL && s->seat >= 0 &&
	                            (s->table->st.status == EVENT_STATUS_LIVE ||
	                             s->table->st.status == EVENT_STATUS_ADJOURNED));
}

/* Order of eviction: away the longest first. */
static int
session_gone_cmp(const void *a, const void *b)
{
	const struct session *x = *(struct session *const *)a, *y = *(struct session *const *)b;

	return x->gone_at < y->gone_at ? -1 : x->gone_at > y->gone_at;
}

/*
 * Past --max-sessions, the sessions away the longest go first (once a tick, so the count may
 * pass the cap by what a second brings): a loop of connect, hello, close cannot fill the memory
 * with sessions kept for --linger. Seated players of live or adjourned games are never taken.
 */
static void
sessions_cap(struct lobby *lb)
{
	struct session **away;
	size_t n = 0, excess, kept = 0, dropped = 0, total = lb->sessions.n;

	if (lb->cfg.max_sessions == 0 || lb->sessions.n <= lb->cfg.max_sessions)
		return;
	excess = lb->sessions.n - lb->cfg.max_sessions;
	away = xmalloc(lb->sessions.n * sizeof *away);
	for (size_t i = 0; i < lb->sessions.n; i++)
		if (session_evictable(lb->sessions.all[i]))
			away[n++] = lb->sessions.all[i];
	qsort(away, n, sizeof *away, session_gone_cmp);
	if (excess > n)
		excess = n;
	for (size_t i = 0; i < excess; i++)
		away[i]->gone_at = UINT64_MAX; /* marked: no session is away since then */
	for (size_t i = 0; i < lb->sessions.n; i++) {
		struct session *s = lb->sessions.all[i];

		if (s->gone_at != UINT64_MAX || s->peer != NULL) {
			lb->sessions.all[kept++] = s;
			continue;
		}
		lobby_session_drop(lb, s);
		dropped++;
	}
	lb->sessions.n = kept;
	free(away);
	log_warn("%zu sessions, past --max-sessions %u: the %zu away the longest forgotten", total,
	         lb->cfg.max_sessions, dropped);
}

int
guard_refuse_session(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	uint64_t retry = 0;

	if (lb->quota == NULL ||
	    quota_session_begin(lb->quota, peer->addr, lb->ops.now(lb->ops.arg), &retry) == 0)
		return 0;
	lb->refusals[LOBBY_LIMIT_SESSIONS]++;
	guard_limited(lb, peer);
	lobby_refuse(lb, peer, m, PROTO_ERATELIMITED,
	             "more than %u new sessions a minute from your address; wait %llu ms, or "
	             "resume yours with its token",
	             lb->cfg.addr_sessions, (unsigned long long)retry);
	return 1;
}

/* A wait in milliseconds as words a person reads: "42 minutes", "3 hours", "20 seconds". */
static void
guard_wait_text(uint64_t ms, char *out, size_t size)
{
	uint64_t s = (ms + 999) / 1000;

	if (s >= 7200)
		snprintf(out, size, "%llu hours", (unsigned long long)((s + 3599) / 3600));
	else if (s >= 120)
		snprintf(out, size, "%llu minutes", (unsigned long long)((s + 59) / 60));
	else
		snprintf(out, size, "%llu seconds", (unsigned long long)s);
}

int
guard_refuse_register(struct lobby *lb, struct lobby_peer *peer, const struct msg *m)
{
	uint64_t retry = 0, now = lb->ops.now(lb->ops.arg);
	char wait[48];

	if (lb->quota == NULL || quota_register_begin(lb->quota, peer->addr, now, &retry) == 0)
		return 0;
	lb->refusals[LOBBY_LIMIT_ACCOUNTS]++;
	lb->registers_refused++;
	snprintf(lb->registers_addr, sizeof lb->registers_addr, "%s", peer->addr);
	if (lb->registers_log_at == 0 || now - lb->registers_log_at >= GUARD_LOG_MS) {
		log_warn("%u registrations refused lately past --max-accounts-per-addr %u an hour, "
		         "--max-accounts-per-addr-day %u a day; the last from %s",
		         lb->registers_refused, lb->cfg.registers_hour, lb->cfg.registers_day,
		         lb->registers_addr);
		lb->registers_refused = 0;
		lb->registers_log_at = now;
	}
	guard_wait_text(retry, wait, sizeof wait);
	lobby_refuse(lb, peer, m, PROTO_ERATELIMITED,
	             "your address registered its most accounts lately (%u an hour, %u a day); "
	             "wait %llu ms (%s)",
	             lb->cfg.registers_hour, lb->cfg.registers_day, (unsigned long long)retry,
	             wait);
	return 1;
}

/*
 * Whether s may go when its address holds too many sessions: away, and seated in no game that
 * is not over (a seat in an open game is its creator's place in the lobby).
 */
static int
session_addr_evictable(const struct session *s)
{
	return s->peer == NULL &&
	       !(s->table != NULL && s->seat >= 0 && s->table->st.status != EVENT_STATUS_FINISHED);
}

/*
 * The index in lb->sessions.all of the session of addr to forget first, or -1: guests before
 * accounts (an account logs in again with its password), then away the longest.
 */
static long
addr_victim(const struct lobby *lb, const char *addr)
{
	long best = -1;

	for (size_t i = 0; i < lb->sessions.n; i++) {
		const struct session *s = lb->sessions.all[i], *b;

		if (!session_addr_evictable(s) || strcmp(s->addr, addr) != 0)
			continue;
		b = best >= 0 ? lb->sessions.all[best] : NULL;
		if (b == NULL || (s->account == 0) > (b->account == 0) ||
		    ((s->account == 0) == (b->account == 0) && s->gone_at < b->gone_at))
			best = (long)i;
	}
	return best;
}

void
guard_session_made(struct lobby *lb, struct session *s)
{
	const char *addr = s->peer != NULL ? s->peer->addr : "";

	if (lb->quota == NULL || lb->cfg.addr_sessions == 0 || addr[0] == '\0')
		return;
	snprintf(s->addr, sizeof s->addr, "%s", addr);
	quota_session_add(lb->quota, s->addr);
	/* a scan of the sessions, at most once per new session past the cap, which the rate of
	 * new sessions bounds per address */
	while (quota_sessions(lb->quota, s->addr) > lb->cfg.addr_sessions) {
		long i = addr_victim(lb, s->addr);

		if (i < 0)
			break; /* all connected or seated: none is taken */
		log_debug("%s (%s) forgotten: its address %s holds more than %u sessions",
		          lb->sessions.all[i]->id, lb->sessions.all[i]->name, s->addr,
		          lb->cfg.addr_sessions);
		lobby_session_drop(lb, lb->sessions.all[i]);
		memmove(&lb->sessions.all[i], &lb->sessions.all[i + 1],
		        (lb->sessions.n - (size_t)i - 1) * sizeof *lb->sessions.all);
		lb->sessions.n--;
		lb->addr_dropped++;
		snprintf(lb->dropped_addr, sizeof lb->dropped_addr, "%s", s->addr);
	}
}

void
guard_tick(struct lobby *lb)
{
	uint64_t real_now = lb->ops.now(lb->ops.arg);

	if (lb->limited > 0) {
		log_warn("%llu requests refused by the per-address limits lately, the last from %s",
		         (unsigned long long)lb->limited, lb->limited_addr);
		lb->limited = 0;
	}
	if (lb->reads_refused > 0 &&
	    (lb->reads_logged_at == 0 || real_now - lb->reads_logged_at >= GUARD_READS_LOG_MS)) {
		log_warn("%llu store reads refused lately past --max-reads-per-addr %u "
		         "(reads queued or running from one address), the last from %s",
		         (unsigned long long)lb->reads_refused, lb->cfg.reads_per_addr,
		         lb->reads_refused_addr);
		lb->reads_refused = 0;
		lb->reads_logged_at = real_now;
	}
	if (lb->addr_dropped > 0) {
		log_warn(
		        "%u sessions forgotten lately past --max-sessions-per-addr %u (away, at no "
		        "game, the longest first), the last of %s",
		        lb->addr_dropped, lb->cfg.addr_sessions, lb->dropped_addr);
		lb->addr_dropped = 0;
	}
	if (lb->ids_refused > 0 && real_now - lb->ids_logged_at >= 10000) {
		log_warn("%u hellos refused lately: the store cannot write, and the player ids it "
		         "holds a mark for are given out (make room on its disk)",
		         lb->ids_refused);
		lb->ids_refused = 0;
		lb->ids_logged_at = real_now;
	}
	if (lb->quota != NULL)
		quota_expire(lb->quota, real_now);
	if (lb->lookups != NULL)
		throttle_expire(lb->lookups, real_now);
	if (lb->cfg.idle_ms > 0)
		idle_close(lb, real_now);
	sessions_cap(lb);
	lobby_prune(lb);
	lobby_arm(lb);
}
