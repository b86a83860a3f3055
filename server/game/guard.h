/*
 * guard.h: the game layer's limits against abuse, asked by the request handlers before they act,
 * and run once a second by the node (guard_tick()): per source address (an IPv4 address or an IPv6
 * /64, struct lobby_peer's addr) the requests a second, the games created a minute and held, the
 * failed lookups of invite codes and tokens; the idle timeout of connections at no game; the cap on
 * sessions. Each limit is lobby_config's (0: none); see PROTOCOL.md 2.
 */
#ifndef HOKITO_SERVER_GUARD_H
#define HOKITO_SERVER_GUARD_H

#include "lobby.h"

/*
 * A request of peer arrived: refuse it with rate_limited when its address sent more than its
 * allowance (--max-rate-per-addr). Returns whether it refused.
 */
int guard_refuse_rate(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/*
 * A line of peer arrived, not read yet: when peer's connection floods (it had many requests
 * refused over the rate of late) and the line is over the rate too, refuse it with
 * rate_limited without reading it (the error has no id then, PROTOCOL.md 2): reading a flood's
 * lines would cost the server more than its sender. Returns whether it refused; else the line
 * is read, and counted once, when its request is served (guard_refuse_rate()).
 */
int guard_refuse_unread(struct lobby *lb, struct lobby_peer *peer);

/*
 * n requests of peer arrived while it is held behind a read or a hash of its own (ops->pause):
 * they wait in its connection's input, and are counted against its address's rate now, as they
 * arrive: those within the allowance pass when they are served, the others are refused then
 * (guard_refuse_rate(), in order). n 0: every one of them was handed over; what is left of
 * their count is forgotten (the lines that were no requests: bad JSON).
 */
void guard_rate_arrived(struct lobby *lb, struct lobby_peer *peer, size_t n);

/*
 * peer wants to create a game (create, quick, the rematch that accepts; with_computer: against
 * the computer): refuse it with computer_busy when the computer's queue is full, too_many_games
 * when its address holds its maximum of games not over, or rate_limited when it created its
 * maximum this minute. Returns whether it refused; when not, the game is counted for the address:
 * lobby_table_open() with peer as the creator files it, and the lobby gives it back at its end.
 */
int guard_refuse_create(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                        int with_computer);

/*
 * peer is about to look up a secret (an invite code, a session token): refuse it with
 * rate_limited when its address failed too many lookups lately (--max-lookup-failures, then
 * growing delays). Returns whether it refused; when not, call guard_lookup_end() with whether
 * the lookup found something.
 */
int guard_lookup_begin(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* The lookup begun by guard_lookup_begin() found something (found) or not. */
void guard_lookup_end(struct lobby *lb, struct lobby_peer *peer, int found);

/*
 * peer says hello without a token (as a guest, or to log in): refuse it with rate_limited when
 * its address started its allowance of new sessions lately (--max-sessions-per-addr: that many a
 * minute, bursts of twice that; resuming with a token is never counted). Returns whether
 * it refused.
 */
int guard_refuse_session(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/*
 * peer registers an account: refuse it with rate_limited (the text says how long to wait) when
 * its address registered --max-accounts-per-addr accounts this hour, or
 * --max-accounts-per-addr-day this day; counted otherwise. The refusals are logged at most once
 * in GUARD_LOG_MS. Returns whether it refused.
 */
int guard_refuse_register(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/*
 * Session s was just made for its connection (s->peer): its address holds it from now on. Past
 * --max-sessions-per-addr, the address's session away the longest that is seated in no game
 * goes at once (guests before accounts); connected and seated ones are never taken, so a crowd
 * of honest players behind one NAT keeps its seats.
 */
void guard_session_made(struct lobby *lb, struct session *s);

/*
 * Once a second (the node's tick, beside lobby_tick()): log the refusals since the last tick,
 * forget the addresses that hold nothing, close the connections idle at no game past
 * --idle-timeout, and forget the sessions away the longest past --max-sessions.
 */
void guard_tick(struct lobby *lb);

#endif
