/*
 * lobby.h: the state of hokitod's game layer: its sessions and tables, the finished and held
 * games, the deadline heap, and the entry points that are not requests.
 *
 * The loop's side of the server (node.c, over the network layer) hands the game layer whole,
 * validated messages (struct msg) for a peer (handlers_dispatch(), handlers.h) and takes back
 * encoded lines (struct wire) to write, through struct lobby_ops. The game layer never calls
 * libuv, never touches a socket and never reads the clock itself: time comes from ops->now (or,
 * with --test-clock, from a virtual clock that only the test_clock request moves), and the game
 * layer asks the loop's side to wake it at the next deadline (a flag fall, the end of a grace
 * period) through ops->timer: it computes when, the loop's side owns the timer. Every game event
 * passes through one function, table_emit() (table.c), which numbers it, encodes it once, keeps it
 * in the game's event log and publishes it through the fan-out port of cfg.fanout (fanout.h): the
 * store and the game's receivers.
 *
 * The rooms of the game layer, each of one job, point down to this one and never back: requests
 * (handlers.c) -> match management (match.c), play (play.c), archive (archive.c), the limits
 * against abuse (guard.c) -> the lobby's state (here) -> a table (table.c) -> sessions (session.c);
 * the rebuild at a restart is restore.c. struct lobby is defined here for those rooms (and the
 * dispatch fuzz target, which copies it); nothing outside the game layer looks inside it.
 *
 * Re-entrancy rule: ops->send and ops->close must never call back into the lobby (a peer whose
 * output overflows is closed later, by the network layer, outside the lobby's call).
 */
#ifndef HOKITO_SERVER_LOBBY_H
#define HOKITO_SERVER_LOBBY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "accounts.h"
#include "deadline.h"
#include "game.h"
#include "protocol.h"
#include "rating.h"
#include "session.h"
#include "store-port.h"
#include "strmap.h"
#include "table.h"

struct archive_read;
struct auth_job;
struct fanout;
struct quota;
struct throttle;

#define SPECTATORS_INTERVAL 500   /* ms: at most one spectators notice per game this often */
#define KIBITZ_WINDOW       10000 /* ms: the window of --max-kibitz */
#define CHAT_LOG_MS         10000 /* ms: chat_full refusals are logged at most this often */

struct lobby_ops {
	/* Queue a line for the peer. w is borrowed: take a reference (wire_ref) to keep it. */
	void (*send)(void *arg, struct lobby_peer *peer, struct wire *w);
	/* Close the peer once what is queued is written (a session resumed elsewhere). */
	void (*close)(void *arg, struct lobby_peer *peer);
	/* Monotonic time in milliseconds. */
	uint64_t (*now)(void *arg);
	/*
	 * Call lobby_wake() in delay_ms milliseconds (0: as soon as possible), replacing any
	 * earlier request; UINT64_MAX: no wake-up is needed. Called at the end of every lobby entry
	 * point. Must not call back into the lobby.
	 */
	void (*timer)(void *arg, uint64_t delay_ms);
	/*
	 * Optional (NULL: the server has no computer players, and create refuses them). It is the
	 * computer's turn at ply of game_id: find a move for position g at level (with the noise
	 * seed seed), in at most time_ms of real time, without blocking the caller (the search runs
	 * off the loop thread on its own copy of g, which is borrowed for this call only). When it
	 * is found, call lobby_computer_move() with the same game_id and ply, from the loop thread
	 * and outside any lobby call; a result that comes too late is simply ignored there, so a
	 * search need not be cancelled when its game ends. Must not call back into the lobby.
	 */
	void (*think)(void *arg, const char *game_id, int64_t ply, const struct game *g, int level,
	              uint64_t seed, uint64_t time_ms);
	/*
	 * Optional (NULL): the session of token left the open or finished game it was seated in
	 * (for another game, to watch one, by leave, or as it expired), and no event says so. Its
	 * seat is gone for good, so a restart must not bring it back there: the store keeps the
	 * sessions of seated players only (PROTOCOL.md 12.1). A player leaving an adjourned game
	 * keeps its seat, and its stored session with it. token is borrowed for the call.
	 */
	void (*unseated)(void *arg, const char *token);
	/*
	 * Optional (NULL: never busy): whether the computer players' queue is full, so that a game
	 * against the computer is refused (computer_busy) instead of waiting behind the others.
	 */
	int (*think_busy)(void *arg);
	/*
	 * Optional (NULL): game_id is over or gone: stop its computer's search now (its move, if
	 * one still comes, is dropped by lobby_computer_move()). game_id is borrowed for the call.
	 */
	void (*think_cancel)(void *arg, const char *game_id);
	/*
	 * Optional (NULL: the server keeps no store; history is empty and record finds nothing).
	 * Run store read r off the loop's thread (archive_read_run() on a read port, archive.h) and
	 * hand it back with handlers_read_done() (handlers.h), from the loop thread and outside any
	 * lobby call. The reads of all askers share the readers fairly by r->addr, the asker's
	 * address (reader.h). Returns 0 and steals r, or a negative number when r->addr has its
	 * maximum of reads queued or running (cfg.reads_per_addr): then r is not taken. Must not
	 * call back into the lobby. Until the answer comes, the asking connection is not read
	 * (ops->pause), so that replies keep the order of the requests.
	 */
	int (*read)(void *arg, struct archive_read *r);
	/*
	 * Optional (NULL: no accounts; register and hello with a password are refused, internal).
	 * Run password job j off the loop's thread (auth_job_run(), auth.h), a few at a time, and
	 * hand it back with handlers_auth_done() (handlers.h), from the loop thread and outside any
	 * lobby call. Steals j. Must not call back into the lobby; the asking connection is held
	 * meanwhile, as behind a read.
	 */
	void (*hash)(void *arg, struct auth_job *j);
	/*
	 * Optional (NULL: every request of a peer comes after the answers to its earlier ones).
	 * paused 1: a store read (ops->read) or a password job (ops->hash) of peer's request went
	 * out: hand up none of peer's later requests (they stay in its connection's input, and the
	 * connection is not read meanwhile) until this is called again with paused 0, once the
	 * answer is given. Then peer's requests come again, in order, outside the lobby's call.
	 * Must not call back into the lobby.
	 */
	void (*pause)(void *arg, struct lobby_peer *peer, int paused);
	/* Optional (NULL: no store): write a new account (row: its created_ms is set here). */
	void (*account_add)(void *arg, struct store_account *row);
	/* Optional (NULL: no store): write an account's new hash, closed or banned time (row
	 * borrowed; a closed_ms or banned_ms of -1, meaning now, is set to the wall clock). */
	void (*account_update)(void *arg, struct store_account *row);
	/*
	 * Optional (NULL: the store never goes down). The store is down (lobby_store_changed())
	 * and a request would write: try the waiting writes again now. Returns whether the store
	 * is still down; may call lobby_store_changed() (with NULL: it is back) before it returns.
	 */
	int (*store_ask)(void *arg);
	/*
	 * Optional (NULL: nothing ever waits). While the store is down: the first seq of game_id
	 * whose write waits for it (1: the game itself is not stored yet), 0 when none does.
	 * game_id is borrowed for the call. See lobby_view().
	 */
	int64_t (*waiting_seq)(void *arg, const char *game_id);
	/*
	 * Optional (NULL: with waiting_seq). While the store is down: the lines queued for peer
	 * from now on wait until it has written what waits (net_hold_peer()), and peer is told so
	 * (the store_waiting notice, PROTOCOL.md 6.20).
	 */
	void (*hold)(void *arg, struct lobby_peer *peer);
	/*
	 * Optional (NULL: with waiting_seq). Queue a line for peer ahead of the lines it holds for
	 * the store (net_send_ahead()): a pong, the events a viewer was not shown. w is borrowed.
	 */
	void (*send_ahead)(void *arg, struct lobby_peer *peer, struct wire *w);
	/*
	 * Optional (NULL: no limit). The id marks the store holds (durable_marks()): while it is
	 * down, no id at or past them is given out (a hello is refused, store_unavailable), since
	 * a restart after a kill would give it out again.
	 */
	void (*marks)(void *arg, unsigned *player, unsigned *game);
	/*
	 * Optional (NULL: nothing ever waits). While the store is down: whether a write of
	 * account (its row, a rating change) waits for it: a profile that shows it waits too.
	 */
	int (*account_waits)(void *arg, int64_t account);
	void *arg; /* passed to every op */
};

struct lobby_config {
	unsigned max_games;        /* games held (open, live and finished) */
	unsigned keep_finished;    /* finished games kept and listed */
	uint64_t linger_ms;        /* how long a disconnected session is kept */
	size_t max_line;           /* told to clients in welcome */
	const char *server;        /* "hokitod 0.1.0", borrowed for the lobby's lifetime */
	uint64_t grace_ms;         /* a dropped player's grace period, counted on its own turns */
	uint64_t adjourn_claim_ms; /* after an adjournment, the wait before a claim */
	uint64_t first_move_ms;    /* each side's first move in a timed game; 0: none */
	int test_clock;            /* time is virtual and moved only by test_clock requests */
	int allow_insecure_passwords; /* take passwords on plain TCP from any address (unsafe) */
	const struct store_write_port *store; /* borrowed, may be NULL: what restore_lobby()
	                                         rebuilds from (history and record: ops->read) */
	const struct fanout *fanout;          /* borrowed, may be NULL: where every game event is
	                                         published (fanout.h); NULL: to the game's peers only */
	/* the limits against abuse (guard.h), each 0 for none (PROTOCOL.md 2) */
	size_t max_output;         /* a resume whose replay passes half of this gets a state */
	unsigned rate_per_addr;    /* requests a second from one address (bursts of twice that) */
	unsigned creates_per_addr; /* games created a minute from one address */
	unsigned games_per_addr;   /* games not over created from one address */
	unsigned lookup_failures;  /* failed invite code and token lookups from one address
	                              before each next one waits (1 s, doubling to 5 min) */
	unsigned login_spread;     /* addresses whose failed logins to an account make it slow the
	                              addresses it does not know (accounts.h); 0: never */
	unsigned draw_offer_moves; /* moves the opponent makes before a side may offer again */
	unsigned rematch_offers;   /* rematch offers of one side in one game */
	unsigned kibitz_per_game;  /* spectators' lines one game relays per KIBITZ_WINDOW ms */
	uint64_t idle_ms;          /* a connection at no game with no request for this long goes */
	unsigned max_sessions;     /* sessions kept; past it the oldest away ones go */
	unsigned addr_sessions;    /* sessions kept per address (past it its oldest away and
	                              unseated one goes), and new ones a minute (bursts of 2x) */
	unsigned max_thinking;     /* games against the computer not over, and searches queued
	                               or running in node.c's pool */
	unsigned max_history_offset; /* the largest history offset (deeper pages go by after) */
	unsigned reads_per_addr; /* store reads one address may have queued or running; 0: any */
	unsigned read_threads;   /* the store reader's threads (node.c), at least 1 */
	/* what a rated game needs to rate, and the leaderboard to list (PROTOCOL.md 14) */
	unsigned rated_min_plies; /* a rated game that ends before this many plies rates nobody */
	unsigned pair_rated;      /* rated games of two accounts in 24 h that rate; 0: all */
	int allow_shared_address; /* accounts from one address play rated games too */
	unsigned board_min_games; /* rated games an account has played to be on a leaderboard */
	unsigned board_min_opponents; /* ... against this many accounts at least */
	unsigned registers_hour;      /* accounts registered an hour from one address */
	unsigned registers_day;       /* accounts registered a day from one address */
	unsigned chat_lines;          /* players' chat lines a game keeps, and spectators' lines it
	                                 relays, each (0: no limit) */
	unsigned chat_after_end;      /* players' chat lines a game takes once over (within
	                                 chat_lines; 0: no limit but chat_lines) */
};

/*
 * A connection with a store read or a password job out (ops->read, ops->hash): the request that
 * asked it. The connection is held meanwhile (ops->pause): its later requests stay in its own
 * input, so that its replies keep the order of its requests (PROTOCOL.md 3 and 9) and nothing it
 * sends piles up in the game layer. The lobby finds the wait by its ticket; lobby_peer_gone()
 * drops it, so an answer that comes after its connection is gone finds nobody and is dropped.
 */
struct lobby_wait {
	uint64_t ticket;              /* of the read or job out */
	struct lobby_peer *peer;      /* borrowed: valid while the wait is listed */
	struct msg request;           /* the asking request (a reference on its root) */
	TAILQ_ENTRY(lobby_wait) link; /* lobby.waits */
};

TAILQ_HEAD(table_queue, table);

/*
 * The game layer's limits, for the count of the requests each refused (lobby.refusals, the
 * metrics' hokito_refusals_total): named by their flag (lobby_limit_names[]), or for a limit
 * without one (the chat's own rate) by what it bounds.
 */
enum lobby_limit {
	LOBBY_LIMIT_RATE,           /* --max-rate-per-addr: rate_limited */
	LOBBY_LIMIT_CREATES,        /* --max-creates-per-addr: rate_limited */
	LOBBY_LIMIT_GAMES_PER_ADDR, /* --max-games-per-addr: too_many_games */
	LOBBY_LIMIT_GAMES,          /* --max-games: server_full */
	LOBBY_LIMIT_THINKING,       /* --max-thinking: computer_busy */
	LOBBY_LIMIT_LOOKUPS,        /* --max-lookup-failures: rate_limited */
	LOBBY_LIMIT_SESSIONS,       /* --max-sessions-per-addr: rate_limited */
	LOBBY_LIMIT_ACCOUNTS,       /* --max-accounts-per-addr (and -day): rate_limited */
	LOBBY_LIMIT_READS,          /* --max-reads-per-addr: too_many_reads */
	LOBBY_LIMIT_HISTORY_OFFSET, /* --max-history-offset: bad_value */
	LOBBY_LIMIT_CHAT_LINES,     /* --max-chat-lines: chat_full */
	LOBBY_LIMIT_CHAT_AFTER_END, /* --max-chat-after-end: chat_full */
	LOBBY_LIMIT_CHAT_RATE,      /* a session's chat lines in 10 s: rate_limited */
	LOBBY_LIMIT_KIBITZ,         /* --max-kibitz: rate_limited */
	LOBBY_LIMIT_DRAW_OFFERS,    /* --draw-offer-moves: offer_limit */
	LOBBY_LIMIT_REMATCH_OFFERS, /* --max-rematch-offers: offer_limit */
	LOBBY_LIMIT_IDLE,           /* --idle-timeout: connections closed (bye "idle") */
	LOBBY_NLIMITS
};

/* Each limit's name: its flag without the dashes ("max-rate-per-addr"), or "chat-rate". */
extern const char *const lobby_limit_names[LOBBY_NLIMITS];

struct lobby {
	struct lobby_config cfg;
	struct lobby_ops ops;
	struct table_env env;     /* handed to every table: the clock, send, think, the fan-out */
	struct sessions sessions; /* every session, with its indexes */
	struct table **tables;    /* every table, in creation order */
	size_t ntables, tables_cap;
	struct strmap by_game;            /* table of each game id */
	struct strmap by_code;            /* private table of each invite code */
	size_t nfinished;                 /* finished tables (counted by lobby_finished_touch()) */
	size_t nfinished_private;         /* of which private */
	int prune_due;                    /* a game finished since the last lobby_prune() */
	struct table_queue finished;      /* finished tables, oldest first (fin_link) */
	struct table_queue held;          /* finished tables past keep_finished held for a player */
	size_t nheld;                     /* how many */
	SLIST_HEAD(, table) release;      /* held tables a player of theirs just left */
	struct deadline_heap deadlines;   /* tables with a deadline, earliest first */
	LIST_HEAD(, table) spect_waiting; /* tables whose coalesced spectators notice waits */
	unsigned next_player;             /* number of the next player id */
	unsigned next_game;               /* number of the next game id */
	uint64_t serial;                  /* tables created */
	uint64_t finished_serial;         /* tables finished */
	uint64_t virtual_ms;      /* the time with cfg.test_clock: moved by test_clock only */
	struct quota *quota;      /* per-address requests, creates and games; NULL: no limits */
	struct throttle *lookups; /* per-address failed lookups; NULL: no limit */
	uint64_t refusals[LOBBY_NLIMITS]; /* requests refused by each limit since the start */
	uint64_t limited;       /* requests refused by a per-address limit since the last tick */
	char limited_addr[64];  /* ... the address of the last one */
	unsigned addr_dropped;  /* sessions forgotten past addr_sessions since the tick */
	char dropped_addr[64];  /* ... the address of the last one */
	unsigned ids_refused;   /* hellos refused past the stored id mark (guard_tick() logs) */
	uint64_t ids_logged_at; /* ... when that was last logged (real ms) */
	/* while the store is down: the views of the tables whose later events wait for it
	 * (lobby_view()), freed when it is back */
	struct table **views;
	size_t nviews, views_cap;
	unsigned registers_refused; /* registrations refused past registers_* not logged yet */
	uint64_t registers_log_at;  /* when they were last logged (ops->now), 0: never */
	char registers_addr[64];    /* ... the address of the last one */
	unsigned chat_refused;      /* chat lines refused past chat_lines not logged yet */
	uint64_t chat_log_at;       /* when they were last logged (ops->now), 0: never */
	char chat_game[16];         /* ... the game of the last one */
	/* connections whose store read is out, found by ticket (lobby_wait_find()) */
	TAILQ_HEAD(, lobby_wait) waits;
	uint64_t read_ticket;        /* the last store read's ticket */
	uint64_t reads_refused;      /* reads refused past reads_per_addr since the last log line */
	char reads_refused_addr[64]; /* ... the address of the last one */
	uint64_t reads_logged_at;    /* ops->now of that log line (guard_tick()) */
	struct accounts accounts;    /* the accounts and the throttles of logins (auth.c) */
	struct rating_book ratings;  /* the accounts' ratings (rating.h), env.ratings points here */
	const char *store_down;      /* the store cannot write: why (static), else NULL */
	uint64_t paused_at;          /* ops->now when it went down: the game time stops there */
	uint64_t paused_ms;          /* the time the store was down, not counted in lobby_time() */
	uint64_t quick_due; /* lobby time a window of the rated quick pool widens next (pairing.c);
	                       UINT64_MAX: none */
};

/* Create an empty lobby. cfg and ops are copied. Returns a new lobby; free with lobby_free(). */
struct lobby *lobby_create(const struct lobby_config *cfg, const struct lobby_ops *ops);

/* Free the lobby, its sessions and tables, and every wire it holds. Accepts NULL. */
void lobby_free(struct lobby *lb);

/*
 * The peer's connection is gone (or going): its session stays for reconnection, others at its
 * game are told. Sets peer->session to NULL. Safe for a peer that never said hello.
 */
void lobby_peer_gone(struct lobby *lb, struct lobby_peer *peer);

/* Time passed: expire sessions that lingered too long and the open games they held. */
void lobby_tick(struct lobby *lb);

/* The timer asked for by ops->timer fired: flags that fell, grace periods that ran out. */
void lobby_wake(struct lobby *lb);

/*
 * The game layer's time in milliseconds (monotonic; virtual with test_clock). It stands still
 * while the store is down (lobby_store_changed()): no clock runs, no grace period ends.
 */
uint64_t lobby_time(const struct lobby *lb);

/*
 * The store went down (why: the sentence a refused request gets, static) or came back (NULL).
 * While down, the requests that would write are refused (handlers.c), the game time stands
 * still and no deadline is acted on; when it comes back they go on from where they stood.
 */
void lobby_store_changed(struct lobby *lb, const char *why);

/*
 * The computer found move (its text) for its turn at ply of game_id (ops->think). It is played
 * exactly like a player's move: checked by the rules against the authoritative position, the same
 * events, the same store path, then the player to move gets your_turn. Ignored when it comes too
 * late: the game is gone or over, or no longer at that ply (a resignation, a flag fall).
 */
void lobby_computer_move(struct lobby *lb, const char *game_id, int64_t ply, const char *move);

/* Counts, for the log and the tests: sessions, tables. */
void lobby_counts(const struct lobby *lb, unsigned *sessions, unsigned *tables);

/* The numbers the next player and game ids will get (the store keeps them: ids are never reused).
 */
void lobby_counters(const struct lobby *lb, unsigned *next_player, unsigned *next_game);

/* --- For the rooms of the game layer (handlers.c, match.c, play.c, archive.c, restore.c). --- */

/* Send a message (stolen) to a peer. */
void lobby_send(struct lobby *lb, struct lobby_peer *peer, json_t *o);

/* Send a message (stolen) to a peer ahead of what it holds for the store (ops->send_ahead). */
void lobby_send_ahead(struct lobby *lb, struct lobby_peer *peer, json_t *o);

/*
 * While the store is down: the first seq of t whose write waits for it (1: t itself is not
 * stored), 0 when nothing of t waits (always while the store is up).
 */
int64_t lobby_waiting_seq(const struct lobby *lb, const struct table *t);

/*
 * What a reply to another client may show of t: nothing that is not stored (PROTOCOL.md 12.3).
 * Returns t when nothing of it waits for the store; NULL when t itself is not stored yet; else
 * a view of t up to its last stored event (table_view_new()), borrowed: the lobby keeps it for
 * the next readers of t until the store is back (its events up to there do not change), and
 * valid until the next lobby call.
 */
const struct table *lobby_view(struct lobby *lb, const struct table *t);

/*
 * s (connected) was shown t up to seq shown while later events of t wait for the store: its
 * later lines wait with them (ops->hold), and once the store has written them, the events after
 * shown that it was not sent go ahead of those lines (lobby_store_changed()), so that it gets
 * every event once and in order.
 */
void lobby_hold_behind(struct lobby *lb, struct session *s, const struct table *t, int64_t shown);

/*
 * While the store is down, a new player id would pass the mark the store holds (ops->marks):
 * refuse m with store_unavailable. Returns whether it refused.
 */
int lobby_refuse_new_id(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* What waits for the store concerns peer's session as a whole: its later lines wait (ops->hold). */
void lobby_hold(struct lobby *lb, struct lobby_peer *peer);

/*
 * The state of t for s (connected; t stored), the reply id (borrowed, may be NULL): of
 * lobby_view(), and then, if that was a view, lobby_hold_behind(); for an s whose lines wait
 * already behind events of t it was not sent, t's own state, which goes after them.
 */
void lobby_state_send(struct lobby *lb, struct table *t, struct session *s, json_t *id);

/* Reply ok to request type (seq < 0: without "seq"); the line is written directly. */
void lobby_send_ok(struct lobby *lb, struct lobby_peer *peer, enum msg_type type, int64_t seq,
                   const json_t *id);

/* Refuse request m with an error of code and a sentence. */
void lobby_refuse(struct lobby *lb, struct lobby_peer *peer, const struct msg *m, int code,
                  const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 5, 6)))
#endif
        ;

/* Refuse m with server_full when --max-games games are active. Returns whether it refused. */
int lobby_refuse_full(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* Open, live and adjourned tables: what --max-games counts. */
unsigned lobby_active_tables(const struct lobby *lb);

/*
 * A new game's table with the next game id, filed in the lobby's list and indexes; a private
 * one gets a fresh invite code. creator (may be NULL): the peer whose address the game counts
 * for, once guard_refuse_create() let it. Returns the table, borrowed: the lobby owns it.
 */
struct table *lobby_table_open(struct lobby *lb, enum game_kind kind, const char *variant,
                               uint64_t seed, uint64_t base_ms, uint64_t inc_ms, int is_private,
                               const struct lobby_peer *creator);

/* File a table made elsewhere (a restart) in the list and the indexes; the lobby takes it. */
void lobby_table_add(struct lobby *lb, struct table *t);

/*
 * Find a game for join, watch or record: private ones only by their code, which is matched
 * without regard to case. Returns a borrowed table, or NULL.
 */
struct table *lobby_table_lookup(struct lobby *lb, const struct msg *m);

/* The table of game id, private or not, or NULL. Borrowed. */
struct table *lobby_table_find(struct lobby *lb, const char *id);

/* The welcome of session s on its connection (resumed or not), echoing id. A new reference. */
json_t *lobby_welcome_new(struct lobby *lb, const struct session *s, int resumed, json_t *id);

/* A new session for a player that said hello with name. Returns it, borrowed. */
struct session *lobby_session_new(struct lobby *lb, const char *name);

/*
 * Take s away from the game it is at. A spectator leaves the list; a player of an open game ends
 * it (nobody is left to play it); a player of a finished game just goes. The caller makes sure s
 * is not seated in a live game.
 */
void lobby_session_leave(struct lobby *lb, struct session *s);

/*
 * Forget s, away and not seated in a live game: it leaves its game (lobby_session_leave()), its
 * address holds one session less, and the registry frees it (its token gets bad_token from now
 * on). The caller takes it out of lb->sessions.all.
 */
void lobby_session_drop(struct lobby *lb, struct session *s);

/* A game may just have finished: count it, and its disconnected players linger from now on. */
void lobby_finished_touch(struct lobby *lb, struct table *t);

/* Count t among the finished tables, as the newest: pruning forgets the oldest first. */
void lobby_finished_append(struct lobby *lb, struct table *t);

/* A player left finished table t: if t is held for its players, the next prune looks at it. */
void lobby_released(struct lobby *lb, struct table *t);

/* Forget the finished games past keep_finished that nobody is at (see lobby.c). */
void lobby_prune(struct lobby *lb);

/* The list of t's spectators changed: a coalesced spectators notice goes (see lobby.c). */
void lobby_spectators_changed(struct lobby *lb, struct table *t);

/*
 * An entry point touched t (NULL: none): file it under its deadline again and note whether it is
 * deserted now, as both may have changed.
 */
void lobby_touched(struct lobby *lb, struct table *t);

/* Ask the network layer to wake us at the earliest deadline (ops->timer). */
void lobby_arm(struct lobby *lb);

/*
 * A store read or a password job for peer's request m (borrowed, copied) goes out: peer is held
 * (peer->wait, ops->pause) until its answer. Returns the ticket of the read or job.
 */
uint64_t lobby_wait_add(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* The wait of the read with ticket, or NULL when its connection is gone. Borrowed. */
struct lobby_wait *lobby_wait_find(struct lobby *lb, uint64_t ticket);

/* Forget a wait and the request that asked. The read, if out, finds nobody. */
void lobby_wait_drop(struct lobby *lb, struct lobby_wait *w);

/*
 * The first moment after the virtual time, and before to, at which something falls due in a game:
 * a clock or grace deadline, a widening of the rated quick pool's windows, or the end of --linger
 * for a game none of its players is at. to if nothing does.
 */
uint64_t lobby_test_clock_next(const struct lobby *lb, uint64_t to);

#endif
