/*
 * lobby.h: the game layer of hokitod: sessions, tables (games with their seats and spectators),
 * and every request of the protocol.
 *
 * The network layer hands the game layer whole, validated messages (struct msg) for a peer and
 * takes back encoded lines (struct wire) to write, through struct lobby_ops. The game layer never
 * calls libuv, never touches a socket and never reads the clock itself: time comes from
 * ops->now (or, with --test-clock, from a virtual clock that only the test_clock request moves),
 * and the game layer asks the network layer to wake it at the next deadline (a flag fall, the
 * end of a grace period) through ops->timer: it computes when, the network layer owns the timer.
 * Every game event passes through one function, table_emit() (table.c), which numbers it, encodes
 * it once, keeps it in the game's event log and offers it to ops->event, the hook a durable store
 * (issue 5) will use.
 *
 * Re-entrancy rule: ops->send and ops->close must never call back into the lobby (a peer whose
 * output overflows is closed later, by the network layer, outside the lobby's call).
 */
#ifndef HOKITO_SERVER_LOBBY_H
#define HOKITO_SERVER_LOBBY_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "protocol.h"
#include "store-port.h"

struct lobby;
struct lobby_wait;
struct session;
struct table;

/* The game layer's view of a connection; embedded in the network layer's client. */
struct lobby_peer {
	struct session *session; /* set by a successful hello, NULL before and after */
	struct lobby_wait *wait; /* a store read of its request is out: its next requests wait */
};

/* What a store read (ops->read) asks for. */
enum lobby_read_kind {
	LOBBY_READ_HISTORY, /* a page of the history */
	LOBBY_READ_RECORD,  /* the record of a game */
};

/*
 * A store read that runs off the loop's thread (ops->read), question and answer. The lobby fills
 * the question; whoever runs it (reader.c) touches nothing else, fills the answer and hands it
 * back with lobby_read_done(). It carries no pointer to the asker: the lobby finds the asker by
 * ticket, and drops the answer if the connection is gone by then.
 */
struct lobby_read {
	uint64_t ticket;           /* the lobby's number for it */
	enum lobby_read_kind kind; /* which question */
	/* the question */
	struct store_history_query query; /* history */
	char game_id[STORE_ID_MAX];       /* record: the game */
	int public_only;                  /* record: asked by id, so a private game is not found */
	/* the answer */
	int rc;                   /* games in `games`, the record's length, or a store error */
	struct store_error err;   /* when rc < 0 */
	struct store_game *games; /* history: room for query.limit games (owned) */
	struct store_history_page page; /* history: the total, and where the next page starts */
	char *text;                     /* record: RECORD_TEXT_MAX bytes, NUL-terminated (owned) */
};

/* Run read r on port (on the calling thread; it touches r and the port only). */
void lobby_read_run(const struct store_read_port *port, struct lobby_read *r);

/* Free a read and its answer. Accepts NULL. */
void lobby_read_free(struct lobby_read *r);

struct lobby_ops {
	/* Queue a line for the peer. w is borrowed: take a reference (wire_ref) to keep it. */
	void (*send)(void *arg, struct lobby_peer *peer, struct wire *w);
	/* Close the peer once what is queued is written (a session resumed elsewhere). */
	void (*close)(void *arg, struct lobby_peer *peer);
	/* Monotonic time in milliseconds. */
	uint64_t (*now)(void *arg);
	/*
	 * Optional (NULL): every game event, after it is numbered and encoded and before anybody
	 * receives it. w (its line, the very bytes everyone gets) and ev are borrowed: ev is the
	 * event object, except for moved, whose line is written without one (table_play()): then
	 * ev is NULL, and the move is t's last (t->moves[t->nmoves - 1]). The hook of the durable
	 * store (durable.h).
	 */
	void (*event)(void *arg, const struct table *t, int64_t seq, enum msg_type type,
	              const json_t *ev, const struct wire *w);
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
	 * Optional (NULL: the server keeps no store; history is empty and record finds nothing).
	 * Run store read r off the loop's thread (lobby_read_run() on a read port) and hand it
	 * back with lobby_read_done(), from the loop thread and outside any lobby call. Steals r.
	 * Must not call back into the lobby. Until the answer comes, the asking connection's later
	 * requests wait in the lobby, so that replies keep the order of the requests.
	 */
	void (*read)(void *arg, struct lobby_read *r);
	void *arg; /* passed to every op */
};

struct lobby_config {
	unsigned max_games;     /* games held (open, live and finished) */
	unsigned keep_finished; /* finished games kept and listed */
	uint64_t linger_ms;     /* how long a disconnected session is kept */
	size_t max_line;        /* told to clients in welcome */
	const char *server;     /* "hokitod 0.1.0", borrowed for the lobby's lifetime */
	uint64_t grace_ms;      /* a dropped player's grace period, counted on its own turns */
	int test_clock;         /* time is virtual and moved only by test_clock requests */
	const struct store_write_port *store; /* borrowed, may be NULL: what lobby_restore()
	                                         rebuilds from (history and record: ops->read) */
};

/* Create an empty lobby. cfg and ops are copied. Returns a new lobby; free with lobby_free(). */
struct lobby *lobby_create(const struct lobby_config *cfg, const struct lobby_ops *ops);

/* Free the lobby, its sessions and tables, and every wire it holds. Accepts NULL. */
void lobby_free(struct lobby *lb);

/* Handle one validated request (msg_decode() returned 0) from peer. m is borrowed. */
void lobby_peer_message(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/*
 * The peer's connection is gone (or going): its session stays for reconnection, others at its
 * game are told. Sets peer->session to NULL. Safe for a peer that never said hello.
 */
void lobby_peer_gone(struct lobby *lb, struct lobby_peer *peer);

/* Time passed: expire sessions that lingered too long and the open games they held. */
void lobby_tick(struct lobby *lb);

/* The timer asked for by ops->timer fired: flags that fell, grace periods that ran out. */
void lobby_wake(struct lobby *lb);

/* The game layer's time in milliseconds (monotonic; virtual with test_clock). */
uint64_t lobby_time(const struct lobby *lb);

/*
 * The computer found move (its text) for its turn at ply of game_id (ops->think). It is played
 * exactly like a player's move: checked by the rules against the authoritative position, the same
 * events, the same store path, then the player to move gets your_turn. Ignored when it comes too
 * late: the game is gone or over, or no longer at that ply (a resignation, a flag fall).
 */
void lobby_computer_move(struct lobby *lb, const char *game_id, int64_t ply, const char *move);

/*
 * The answer to a store read (ops->read) is here: reply to the connection that asked, if it is
 * still there, then handle the requests it sent meanwhile, in order. Steals r.
 */
void lobby_read_done(struct lobby *lb, struct lobby_read *r);

/* Counts, for the log and the tests: sessions, tables. */
void lobby_counts(const struct lobby *lb, unsigned *sessions, unsigned *tables);

/* The numbers the next player and game ids will get (the store keeps them: ids are never reused).
 */
void lobby_counters(const struct lobby *lb, unsigned *next_player, unsigned *next_game);

/* The session of player id, or NULL. Borrowed. */
struct session *lobby_session_by_id(struct lobby *lb, const char *id);

/*
 * Rebuild the lobby from cfg.store, once, before any peer arrives: every unfinished game and the
 * keep_finished most recently finished ones (replayed through the rules by the store, then their
 * stored event lines checked and turned back into tables: log, moves, seats, status, clocks,
 * offers, chat), the sessions of their seated players (disconnected, so that they resume with
 * their token and last seq; those of a finished game linger as after a disconnection), and the id
 * counters; a finished game a player is still at (connected or lingering when the server stopped)
 * is rebuilt beyond --keep-finished, however long ago it ended. Clocks restart from the values
 * carried by the last stored event that has them: time does not run while the server is down, and
 * every player gets a whole grace period. Session rows of games no longer held are removed. Returns
 * the number of games rebuilt, or a negative store error with err saying what and where (a damaged
 * store: the caller must not start).
 */
int lobby_restore(struct lobby *lb, struct store_error *err);

/* --- Shared by lobby.c and table.c (the game layer's inside). --- */

enum table_status {
	TABLE_OPEN = 0, /* waiting for its second player */
	TABLE_LIVE = 1,
	TABLE_FINISHED = 2,
	TABLE_ADJOURNED = 3, /* no clock, a player's grace ran out: waits for both players */
};

#define CHAT_KEEP           50    /* chat lines a table keeps for the state of late comers */
#define CHAT_BURST          5     /* chat lines a session may send ... */
#define CHAT_WINDOW         10000 /* ... within this many milliseconds */
#define SPECTATORS_INTERVAL 500   /* ms: at most one spectators notice per game this often */

struct session {
	char id[16];                        /* "p12" */
	char name[PROTOCOL_NAME_BYTES + 1]; /* display name */
	char token[PROTOCOL_TOKEN_LEN + 1]; /* the secret */
	struct lobby_peer *peer;            /* connection, NULL while disconnected */
	struct table *table; /* the game the session is at, or NULL: session_attach() */
	struct session *at_prev, *at_next; /* the other sessions at table (its attached list) */
	int seat;                          /* 0 or 1 when seated at table, -1 watching */
	uint64_t gone_at;                  /* when the connection was lost (ms) */
	uint64_t chat_at[CHAT_BURST];      /* when its last chat lines were sent, a ring */
	unsigned chat_next;                /* next slot of chat_at */
};

struct table {
	struct lobby *lobby; /* owner */
	char id[16];         /* "g3" */
	enum game_kind kind;
	char variant[16]; /* canonical variant name */
	uint64_t seed;    /* of the start position */
	int is_private;
	char code[PROTOCOL_CODE_LEN + 1]; /* invite code of a private game, "" otherwise */
	enum table_status status;
	uint64_t serial;          /* creation order */
	uint64_t finished_serial; /* order of finishing, for pruning */
	struct game start;        /* the start position */
	struct game game;         /* the current position: authoritative */
	struct session *seat[2];  /* seated sessions, NULL if empty or session expired */
	int seat_taken[2];        /* whether the seat was ever taken */
	char seat_id[2][16];      /* player ids of the seats (kept after expiry) */
	char seat_name[2][PROTOCOL_NAME_BYTES + 1];
	int computer[2]; /* the level of a seat the server's computer holds, 0 for a person's */
	int thinking;    /* ops->think was asked for the computer's move at the current ply */
	char (*moves)[GAME_MOVE_TEXT]; /* canonical text of every move played */
	size_t nmoves, moves_cap;
	struct wire **log; /* log[i] is the event of seq i + 1; one reference each */
	size_t nlog, log_cap;
	struct session **watchers; /* connected spectators, in order of arrival */
	size_t nwatchers, watchers_cap;
	/* the end, when status is TABLE_FINISHED */
	const char *result; /* "win", "draw", "aborted" */
	int winner;         /* seat, or -1 */
	const char *reason; /* "blocked", "line", "full", "resign", "abandoned", "time", ... */
	int score[2];       /* HOKITO scores at the end */
	/* clocks and grace: times are lobby_time() milliseconds */
	int timed;                 /* the game has a clock */
	char control[48];          /* the time control text: "5+3", or "none" */
	uint64_t base_ms;          /* each clock's start */
	uint64_t inc_ms;           /* added to the mover's clock after each move */
	int64_t remaining[2];      /* ms on each clock as of settled_at */
	int64_t grace_left[2];     /* ms of grace left to each seat while it is disconnected */
	int grace_over[2];         /* the seat's grace ran out (grace_over or adjourned emitted) */
	uint64_t settled_at;       /* when remaining and grace_left were last brought up to date */
	int draw_offer;            /* seat whose draw offer stands, or -1 */
	int rematch_offer;         /* seat whose rematch offer stands, or -1 */
	json_t *chat[CHAT_KEEP];   /* players' chat lines {"seat","player","text"}, a ring */
	unsigned nchat;            /* lines ever said; the ring holds the last CHAT_KEEP */
	json_t *kibitz[CHAT_KEEP]; /* spectators' lines {"player","text"}, a ring */
	unsigned nkibitz;
	/* the lobby's indexes and bookkeeping (lobby.c) */
	size_t heap_index;      /* place in the lobby's deadline heap, SIZE_MAX when not in it */
	uint64_t heap_deadline; /* the deadline it is filed under there */
	int finish_counted;     /* counted among the lobby's finished games */
	int held;               /* past keep_finished, held for a player (the lobby's held list) */
	int release_queued;     /* on the lobby's list of held tables a player just left */
	struct table *release_next;
	int deserted;             /* live or adjourned with neither player connected at it ... */
	uint64_t deserted_since;  /* ... since then (lobby time) */
	int spect_waiting;        /* a spectators notice waits (coalesced), on the lobby's list */
	uint64_t spect_due;       /* ops->now time before which no spectators notice goes */
	struct table *spect_next; /* the lobby's list of tables whose notice waits */
	struct session *attached; /* every session whose table this is, through at_next */
	struct table *fin_prev, *fin_next; /* the lobby's finished tables, oldest first; or held */
};

/*
 * Create a table of a new game (status open, no seats) with a time control: base_ms 0 for none.
 * Returns a new table.
 */
struct table *table_create(struct lobby *lb, const char *id, enum game_kind kind,
                           const char *variant, uint64_t seed, uint64_t base_ms, uint64_t inc_ms);

/*
 * Rebuild the table of a stored game: g, its events ev[0..nev) and the positions start and
 * position the store replayed them to (all borrowed). Each event's line is checked (type, game,
 * seq, move) and read back for what the game layer keeps beside the position. Returns a new table
 * without sessions (seats recorded, nobody connected), or NULL with why (size bytes) filled when
 * the stored lines do not add up.
 */
struct table *table_restore(struct lobby *lb, const struct store_game *g,
                            const struct store_event *ev, size_t nev, const struct game *start,
                            const struct game *position, char *why, size_t size);

/* Free a table and its log. Sessions pointing at it must be detached first. Accepts NULL. */
void table_free(struct table *t);

/* The seq of the last event (0 if none). */
int64_t table_seq(const struct table *t);

/* A new event object {"type", "game", "seq"} numbered as the table's next event. */
json_t *table_event_new(const struct table *t, enum msg_type type);

/*
 * Emit a game event: the only way events come to be. Steals ev (from table_event_new()), encodes
 * it once, appends it to the log, offers it to ops->event, and sends the same wire to every
 * connected player and spectator except skip (may be NULL). Returns its seq.
 */
int64_t table_emit(struct table *t, json_t *ev, const struct session *skip);

/* Send a line (borrowed) to everyone connected at the table except skip. */
void table_broadcast(struct table *t, struct wire *w, const struct session *skip);

/* Send a line (borrowed) to one session if it is connected. */
void table_send(struct table *t, struct session *s, struct wire *w);

/* The full state for viewer (seated or spectator). Returns a new reference. */
json_t *table_state_new(const struct table *t, const struct session *viewer, json_t *id);

/* The summary for the lobby list. Returns a new reference. */
json_t *table_summary_new(const struct table *t);

/* The spectators object {"count", "names"}. Returns a new reference. */
json_t *table_spectators_new(const struct table *t);

/* Send the spectators notice to everyone connected at the table. */
void table_spectators_notify(struct table *t);

/*
 * Send your_turn to the player to move, if the game is live and that player connected; when the
 * computer is to move, ask it to think instead (table_computer_think()).
 */
void table_your_turn(struct table *t);

/* Add or remove a connected spectator. */
void table_watcher_add(struct table *t, struct session *s);
void table_watcher_remove(struct table *t, struct session *s);

/* Seat session s (or only record the player when s is NULL) at seat. */
void table_seat(struct table *t, int seat, struct session *s);

/*
 * Point s at table t, or at none (NULL): moves s from its table's attached list to t's. Every
 * change of s->table goes through here, so a table knows who to detach when it is freed.
 */
void session_attach(struct session *s, struct table *t);

/*
 * Seat the server's computer at level (with player id and display name): no session, always
 * connected. The caller emits the seated event (table_player_new() gives its player object).
 */
void table_seat_computer(struct table *t, int seat, int level, const char *id);

/* The player object of a seat, with "computer" for the computer's. Returns a new reference. */
json_t *table_player_new(const struct table *t, int seat);

/* Whether the seat's player is connected (the computer always is). */
int table_connected(const struct table *t, int seat);

/* If the game is live and the computer is to move, ask ops->think for its move (once a ply). */
void table_computer_think(struct table *t);

/* Mark the game finished with this result and emit game_over. Returns its seq. */
int64_t table_finish(struct table *t, const char *result, int winner, const char *reason);

/* Start the game (both seats taken): status live, emit started to all but skip. */
void table_start(struct table *t, const struct session *skip);

/*
 * Play a legal move on the authoritative game (validated by the caller with game_move_parse()),
 * emit moved, then game_over if the rules ended the game. Returns the seq of moved.
 */
int64_t table_play(struct table *t, struct game_move m);

/* Finish a game the rules ended (game_over() is true): emit game_over. Returns its seq. */
int64_t table_finish_by_rules(struct table *t);

/* The ops and config of the table's lobby (for table.c). */
const struct lobby_ops *lobby_ops(const struct lobby *lb);
const struct lobby_config *lobby_config(const struct lobby *lb);

/*
 * Clocks (table.c). Only the side to move spends: its clock when the game is timed, and its grace
 * when it is disconnected. table_clock_settle() charges the time since the last settlement to
 * that side; call it before anything changes whose turn it is or who is connected.
 */
void table_clock_settle(struct table *t);

/* {"black": ms, "white": ms}, the clocks as of the last settlement. Returns a new reference. */
json_t *table_clocks_new(const struct table *t);

/* A seat's grace left as of now (ms). */
int64_t table_grace_now(const struct table *t, int seat);

/* When the next flag falls or grace runs out (lobby time), UINT64_MAX for never. */
uint64_t table_deadline(const struct table *t);

/*
 * Settle and act on what is due: a flag that fell ends the game (reason "time"); a grace that
 * ran out emits grace_over (timed game) or adjourns the game (no clock). Returns 1 if the game
 * finished, else 0.
 */
int table_clock_check(struct table *t);

/* A seat's player came back: fresh grace; an adjourned game with both players back resumes. */
void table_seat_back(struct table *t, int seat);

/* Add a chat line (stolen) to the players' (kibitz 0) or spectators' (1) ring. */
void table_chat_keep(struct table *t, int kibitz, json_t *line);

#endif
