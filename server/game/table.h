/*
 * table.h: one game of the server: its authoritative position, seats, spectators, event log and
 * clocks (table.c).
 *
 * A table is handed everything it needs from outside at creation, in a struct table_env that the
 * lobby owns: its clock (the game layer's time, virtual with --test-clock), how to send a line to
 * a connected peer, how to ask the computer for a move, and the fan-out port (fanout.h) through
 * which every event it emits is published. So a table never calls into the lobby: arrows point
 * from the lobby (and its rooms: match.c, handlers.c, restore.c) to the table, never back.
 * Part of the game layer: no libuv here.
 */
#ifndef HOKITO_SERVER_TABLE_H
#define HOKITO_SERVER_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "event-state.h"
#include "event.h"
#include "fanout.h"
#include "game.h"
#include "protocol.h"
#include "session.h"

struct rating_book;
struct store_event;
struct store_game;

/* What a table is handed from outside: one for all the tables of a lobby. */
struct table_env {
	uint64_t (*now)(void *arg); /* the game layer's monotonic time in ms (lobby_time()) */
	void *now_arg;              /* passed to now */
	/* Queue a line for a connected peer. w is borrowed: take a reference to keep it. */
	void (*send)(void *arg, struct lobby_peer *peer, struct wire *w);
	/* Optional (NULL: no computer players): the computer's search (lobby_ops.think). */
	void (*think)(void *arg, const char *game_id, int64_t ply, const struct game *g, int level,
	              uint64_t seed, uint64_t time_ms);
	void *arg; /* passed to send and think */
	/*
	 * The fan-out port every event is published to (fanout.h), borrowed; NULL: an event goes
	 * to the table's own connected players and spectators only (table_broadcast()).
	 */
	const struct fanout *fanout;
	/* The accounts' ratings (rating.h), borrowed; NULL: no game is rated. A rated game's end
	 * changes it (table_finish()). */
	struct rating_book *ratings;
	uint64_t grace_ms;         /* a dropped player's grace period */
	uint64_t adjourn_claim_ms; /* after an adjournment, the wait before a claim (11.3) */
	uint64_t first_move_ms;    /* each side's first move in a timed game (11.1); 0: none */
	unsigned rated_min_plies;  /* a rated game ending before this many plies rates nobody */
	unsigned pair_rated;       /* rated games of two accounts in 24 h that rate; 0: all */
};

#define CHAT_KEEP           50  /* chat lines a table keeps for the state of late comers */
#define SPECTATORS_INTERVAL 500 /* ms: at most one spectators notice per game this often */

struct table {
	const struct table_env *env; /* its clock and callbacks, borrowed (the lobby's) */
	char id[16];                 /* "g3" */
	enum game_kind kind;
	char variant[16]; /* canonical variant name */
	uint64_t seed;    /* of the start position */
	int is_private;
	char code[PROTOCOL_CODE_LEN + 1]; /* invite code of a private game, "" otherwise */
	/*
	 * What its events decided (event-state.h), every emitted event applied: the status, the seq
	 * and ply reached, the offers that stand, and the end (result, winner, reason, final
	 * scores) once st.status is EVENT_STATUS_FINISHED.
	 */
	struct event_state st;
	uint64_t serial;          /* creation order */
	uint64_t finished_serial; /* order of finishing, for pruning */
	struct game start;        /* the start position */
	struct game game;         /* the current position: authoritative */
	struct session *seat[2];  /* seated sessions, NULL if empty or session expired */
	int seat_taken[2];        /* whether the seat was ever taken */
	char seat_token[2][PROTOCOL_TOKEN_LEN +
	                   1]; /* the token of a person's seat, "" for the computer's */
	char seat_id[2][16];   /* player ids of the seats (kept after expiry) */
	char seat_name[2][PROTOCOL_NAME_BYTES + 1];
	int computer[2]; /* the level of a seat the server's computer holds, 0 for a person's */
	enum event_player_kind seat_kind[2];     /* what each seat's player is (7.1) */
	int64_t seat_account[2];                 /* its account, 0 for a guest or the computer */
	char seat_rating[2][GLICKO_DISPLAY_MAX]; /* its rating as shown when seated, "" none */
	int rated; /* the creator asked for a rated game: its end rates both accounts */
	enum event_unrated unrated; /* ... unless this says why not (from its start or its end) */
	uint64_t opened_at; /* when it was opened (lobby time; a restart: 0): its creator's wait */
	int thinking;       /* env->think was asked for the computer's move at the current ply */
	char (*moves)[GAME_MOVE_TEXT]; /* canonical text of every move played */
	size_t nmoves, moves_cap;
	struct wire **log; /* log[i] is the event of seq i + 1; one reference each */
	size_t nlog, log_cap;
	struct session **watchers; /* connected spectators, in order of arrival */
	size_t nwatchers, watchers_cap;
	/* clocks and grace: times are env->now milliseconds (lobby_time()) */
	int timed;                 /* the game has a clock */
	char control[48];          /* the time control text: "5+3", or "none" */
	uint64_t base_ms;          /* each clock's start */
	uint64_t inc_ms;           /* added to the mover's clock after each move */
	int64_t remaining[2];      /* ms on each clock as of settled_at */
	int64_t grace_left[2];     /* ms of grace left to each seat while it is disconnected */
	int grace_over[2];         /* the seat's grace ran out (grace_over or adjourned emitted) */
	uint64_t settled_at;       /* when remaining and grace_left were last brought up to date */
	uint64_t adjourned_at;     /* when the game was adjourned (or restored adjourned) */
	uint64_t first_move_ms;    /* each side's time for its first move (11.1), 0: none */
	int64_t first_left;        /* ms left, as of settled_at, for the first move pending */
	json_t *chat[CHAT_KEEP];   /* players' chat lines {"seat","player","text"}, a ring */
	unsigned nchat;            /* lines ever said; the ring holds the last CHAT_KEEP */
	unsigned nchat_end;        /* nchat when the game ended (game_over), restored too */
	json_t *kibitz[CHAT_KEEP]; /* spectators' lines {"player","text"}, a ring */
	unsigned nkibitz;          /* spectators' lines ever relayed (not stored: a restart
	                              begins again at 0) */
	/* the lobby's indexes and bookkeeping (lobby.c) */
	size_t heap_index;      /* place in the lobby's deadline heap, SIZE_MAX when not in it */
	uint64_t heap_deadline; /* the deadline it is filed under there */
	int finish_counted;     /* counted among the lobby's finished games */
	int held;               /* past keep_finished, held for a player (the lobby's held list) */
	int release_queued;     /* on the lobby's list of held tables a player just left */
	SLIST_ENTRY(table) release_link; /* ... that list */
	int deserted;            /* live or adjourned with neither player connected at it ... */
	uint64_t deserted_since; /* ... since then (lobby time) */
	int spect_waiting;       /* a spectators notice waits (coalesced), on the lobby's list */
	uint64_t spect_due;      /* lobby_ops.now time before which no spectators notice goes */
	LIST_ENTRY(table) spect_link; /* the lobby's list of tables whose notice waits */
	struct session_list attached; /* every session whose table this is (at_link) */
	TAILQ_ENTRY(table) fin_link;  /* the lobby's finished tables, oldest first; or held */
	/* the limits against abuse (lobby.c, match.c, play.c); not stored: a restart resets them */
	char owner[LOBBY_PEER_KEY]; /* the address its game counts for until over, or "" */
	int64_t draw_offered_at[2]; /* nmoves + 1 when the seat last offered a draw; 0: never */
	unsigned rematch_offers[2]; /* rematch offers each seat made */
	uint64_t kibitz_window_ms;  /* when the current window of spectators' lines began */
	unsigned kibitz_count;      /* spectators' lines in it (--max-kibitz) */
};

/*
 * Create a table of a new game (status open, no seats) with a time control: base_ms 0 for none.
 * Returns a new table.
 */
struct table *table_create(const struct table_env *env, const char *id, enum game_kind kind,
                           const char *variant, uint64_t seed, uint64_t base_ms, uint64_t inc_ms);

/*
 * Rebuild the table of a stored game: g, its events ev[0..nev) and the positions start and
 * position the store replayed them to (all borrowed). Each event's line is checked (type, game,
 * seq, move) and read back for what the game layer keeps beside the position. Returns a new table
 * without sessions (seats recorded, nobody connected), or NULL with why (size bytes) filled when
 * the stored lines do not add up.
 */
struct table *table_restore(const struct table_env *env, const struct store_game *g,
                            const struct store_event *ev, size_t nev, const struct game *start,
                            const struct game *position, char *why, size_t size);

/*
 * t as it was after its first seq events (0 <= seq <= table_seq(t)), for what may show only
 * what the store holds while it cannot write (lobby_view()): a new table, attached to nothing and
 * in no index, that borrows t's seated sessions and spectators (table_view_sync() takes them
 * again before each use). Free it with table_view_free().
 */
struct table *table_view_new(const struct table *t, int64_t seq);

/* Borrow t's seated sessions and spectators again for its view v (they change, v does not). */
void table_view_sync(struct table *v, const struct table *t);

/* Free a view of table_view_new(). Accepts NULL. */
void table_view_free(struct table *v);

/* Free a table and its log. Sessions pointing at it must be detached first. Accepts NULL. */
void table_free(struct table *t);

/* The seq of the last event (0 if none). */
int64_t table_seq(const struct table *t);

/*
 * Emit a game event: the only way events come to be. The caller fills ev->type and the member
 * of ev->u named after it (strings borrowed for the call); this fills the head (kind, game, and
 * seq: the table's next), applies the event to t->st (event_state_apply(): an event that does not
 * fit there is our bug and aborts), keeps a move's text and a chat line, encodes the line once
 * (event_wire()), appends it to the log, and publishes it once through env->fanout (fanout.h):
 * the store, then the same wire to every connected player and spectator except skip (may be
 * NULL); without a fan-out port, to those receivers only. Returns its seq.
 */
int64_t table_emit(struct table *t, struct event *ev, const struct session *skip);

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

/* The spectators notice {"type","game","spectators"}. Returns a new reference. */
json_t *table_spectators_notice_new(const struct table *t);

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
void table_attach(struct table *t, struct session *s);

/*
 * Seat the server's computer at level (with player id and display name): no session, always
 * connected. The caller emits the seated event (table_seated_emit()).
 */
void table_seat_computer(struct table *t, int seat, int level, const char *id);

/* Emit the seated event of seat (taken) to all but skip (may be NULL). Returns its seq. */
int64_t table_seated_emit(struct table *t, int seat, const struct session *skip);

/* The player of a seat as events carry it (strings borrowed from t). */
struct event_player table_player(const struct table *t, int seat);

/* Whether the seat's player is connected (the computer always is). */
int table_connected(const struct table *t, int seat);

/* If the game is live and the computer is to move, ask env->think for its move (once a ply). */
void table_computer_think(struct table *t);

/*
 * Finish the game: emit game_over with this result, winner (the seat that won a win, else -1)
 * and reason (event_reason_allows(reason, result)). A rated game between two accounts that is
 * not aborted rates both (rating_book_game() on env->ratings) and its game_over carries the
 * changes (6.5), unless it was played casual, ended before env->rated_min_plies plies, or the
 * pair had env->pair_rated rated games in the last 24 hours: then its game_over says why
 * (unrated) and nobody's rating changes. Returns its seq.
 */
int64_t table_finish(struct table *t, enum event_result result, int winner,
                     enum event_reason reason);

/* Whether t is rated now: created rated, and not played casual or ended too short. */
int table_rated(const struct table *t);

/*
 * Start the game (both seats taken): status live, emit started to all but skip. A game created
 * rated whose t->unrated the caller set (match_rated_start()) says in started why it is casual.
 */
void table_start(struct table *t, const struct session *skip);

/*
 * Play a legal move on the authoritative game (validated by the caller with game_move_parse()),
 * emit moved, then game_over if the rules ended the game. Returns the seq of moved.
 */
int64_t table_play(struct table *t, struct game_move m);

/* Finish a game the rules ended (game_over() is true): emit game_over. Returns its seq. */
int64_t table_finish_by_rules(struct table *t);

/*
 * Clocks Only the side to move spends: its clock when the game is timed, and its grace
 * when it is disconnected. table_clock_settle() charges the time since the last settlement to
 * that side; call it before anything changes whose turn it is or who is connected.
 */
void table_clock_settle(struct table *t);

/*
 * Whether the opponent of seat may claim the game now (11.3): seat is away and its grace is over,
 * in a live game, or in an adjourned one env->adjourn_claim_ms after the adjournment (the
 * grace_over event of the adjourned game came). Returns 1 or 0.
 */
int table_claimable(const struct table *t, int seat);

/*
 * Whether the side to move has its first move to make in a game with a first-move timer: its
 * clock stands and first_left runs instead (11.1). Returns 1 or 0.
 */
int table_first_move_pending(const struct table *t);

/* A seat's grace left as of now (ms). */
int64_t table_grace_now(const struct table *t, int seat);

/* When the next flag falls or grace runs out (lobby time), UINT64_MAX for never. */
uint64_t table_deadline(const struct table *t);

/*
 * Settle and act on what is due: a first move not made in time aborts the game (reason "abort");
 * a flag that fell ends the game (reason "time"); a grace that
 * ran out emits grace_over (timed game) or adjourns the game (no clock); env->adjourn_claim_ms
 * after an adjournment with the away player still away, grace_over for it (a claim may follow).
 * Returns 1 if the game finished, else 0.
 */
int table_clock_check(struct table *t);

/* A seat's player came back: fresh grace; an adjourned game with both players back resumes. */
void table_seat_back(struct table *t, int seat);

/*
 * A spectator's line: the kibitz notice, to the spectators only (players never read what the
 * audience suggests), kept for the state of late comers. player and text are borrowed.
 */
void table_kibitz(struct table *t, const struct event_player *player, const char *text);

/*
 * A presence notice about seat of t, to everyone else there: in a game of any status, with the
 * grace left only where grace is spent (a live or adjourned game).
 */
void table_presence_notify(struct table *t, int seat, int connected);

/* The presence notice of absent seat (for a client that just resumed). Returns a new reference. */
json_t *table_presence_new(const struct table *t, int seat);

/* An offer event (draw_offered, draw_declined, rematch_*) by seat. Returns its seq. */
int64_t table_offer_emit(struct table *t, enum msg_type type, int seat);

/* The name of the side opposite seat (for the messages). Static. */
const char *table_other_side(const struct table *t, int seat);

#endif
