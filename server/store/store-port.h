/*
 * store-port.h: the contract every backend of hokitod's durable store keeps (store/sqlite/ on
 * SQLite, store/postgresql/ on PostgreSQL), and the plain values that cross it. The game layer
 * and the turn pipeline see these ports alone; store-db.h opens one from --db. Nothing here names
 * a backend's types: games, events and sessions travel as the structs below, errors as enum
 * store_errno codes with a sentence for the log (never to be parsed), and each port carries its
 * backend's own state as an opaque impl.
 *
 *   - The write port (struct store_write_port) is used on the event loop's thread only: the
 *     writes of one turn queue in the turn's transaction and commit() hands them to the backend
 *     at once (group commit, durable.h). Before start() a commit is durable when it returns; once
 *     start() has given the backend the loop, a commit may be answered later (a ticket, then
 *     done()), and the turn's output is held until then. load() and the other *_load() read
 *     everything back at start, before start().
 *   - Writes are idempotent by key: writing again what the store already holds (the same event
 *     with the same bytes, the same seat, status, end, session, account, rating change) is
 *     success, so a retry after a commit whose outcome is unknown (the connection lost during
 *     COMMIT) is safe; the same key with other contents is STORE_ECORRUPT.
 *   - The read port (struct store_read_port) answers history, record, profile and leaderboard
 *     requests. Each works on a connection of its own, on a thread that is not the loop's
 *     (workers/reader.c runs one per reading thread), so a read that grows with the store never
 *     stalls the games; it sees what is committed.
 *
 * Times are Unix epoch milliseconds supplied by the caller: no backend reads the clock.
 */
#ifndef HOKITO_SERVER_STORE_PORT_H
#define HOKITO_SERVER_STORE_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"

#define STORE_ID_MAX    16  /* "g12", "p7", with the NUL */
#define STORE_NAME_MAX  129 /* a display name: 128 bytes (32 UTF-8 characters) and the NUL */
#define STORE_CODE_MAX  17  /* an invite code */
#define STORE_TOKEN_MAX 65  /* a session token */
#define STORE_WORD_MAX  24  /* variant, status, result, reason, event type */

/*
 * Error codes: every function returns 0 (or a count) or one of these. The kinds the turn
 * pipeline tells apart: STORE_EUNAVAIL, STORE_EFULL and STORE_EIO take the store "down" (writes
 * are kept, refused with store_unavailable, retried); any other failure of a write stops the
 * server.
 */
enum store_errno {
	STORE_EIO = -1,       /* the backend could not write or read for another cause (a locked or
	                       * read-only file, an I/O error); a retry may hold */
	STORE_ECORRUPT = -2,  /* the store is damaged or its contents do not add up (an event stored
	                       * again with other bytes) */
	STORE_EVERSION = -3,  /* the store's schema is newer than this program */
	STORE_ENOTFOUND = -4, /* no such game (or row) */
	STORE_EINVAL = -5,    /* an argument is out of range (too long, seq out of order, ...) */
	STORE_ENOSPC = -6,    /* the caller's buffer is too small */
	STORE_ESTOPPED = -7,  /* a load callback returned nonzero */
	STORE_EUNAVAIL = -8,  /* the database cannot be reached (refused, restarting, the connection
	                       * lost): a retry may hold; a commit's outcome may be unknown */
	STORE_EFULL = -9,     /* no room: the disk or a quota is full */
	STORE_ECONFLICT = -10, /* another writer holds the store (its lock), or it is not ours: a
	                        * database of something else */
};

/* What went wrong, for the log: one sentence naming the file or the game concerned. */
struct store_error {
	int code;       /* one of enum store_errno */
	char text[320]; /* no trailing newline */
};

/* A game as stored: what a table needs to be rebuilt or listed. */
struct store_game {
	char id[STORE_ID_MAX];
	int64_t serial; /* creation order, unique, chosen by the server */
	enum game_kind kind;
	char variant[STORE_WORD_MAX]; /* canonical: "standard", "random36" */
	uint64_t seed;
	int is_private;
	char code[STORE_CODE_MAX];   /* invite code, "" when public */
	char status[STORE_WORD_MAX]; /* "open", "live", "adjourned", "finished" */
	int64_t created_ms;
	int64_t ended_ms;                  /* 0 until finished */
	int seat_taken[2];                 /* whether each seat was ever taken */
	char seat_id[2][STORE_ID_MAX];     /* player ids by seat, "" when never taken */
	char seat_name[2][STORE_NAME_MAX]; /* display names by seat */
	char result[STORE_WORD_MAX];       /* "win", "draw", "aborted"; "" until finished */
	int winner;                        /* seat, or -1 */
	char reason[STORE_WORD_MAX];       /* "blocked", "line", "full", "resign", "time", ... */
	int score[2];                      /* HOKITO scores at the end */
	char clock[STORE_WORD_MAX];        /* time control: "none" (also when "") or "M+S" */
	int64_t nevents;                   /* events stored (the game's last seq) */
	int ply;                           /* moves stored */
	int rated;                         /* created rated (schema 8) */
	char unrated[STORE_WORD_MAX];      /* ... and why it rated nobody (schema 10: "short",
	                                    * "same_address", "pair_limit"), "" when it did or
	                                    * is not over */
	int64_t seat_account[2];           /* each seat's account (schema 9); -1: none (a guest, the
	                                    * computer, an empty seat); 0: stored before schema 9 under an
	                                    * account's name, so perhaps one: unknown */
};

/* One game event as stored. The strings are borrowed (see each function). */
struct store_event {
	int64_t seq;      /* 1, 2, 3 ... within the game */
	int64_t time_ms;  /* when it happened */
	const char *type; /* "seated", "started", "moved", "game_over", ... */
	const char *move; /* "moved": the canonical move text; NULL for other types */
	const char *body; /* the event's line exactly as it was sent (without the '\n') */
	size_t body_len;  /* its bytes; 0: body ends at its NUL */
};

/* A session of a seated player, for reconnection after a restart. */
struct store_session {
	char token[STORE_TOKEN_MAX];
	char player_id[STORE_ID_MAX];
	char name[STORE_NAME_MAX];
	char game_id[STORE_ID_MAX]; /* the game it is seated at */
	int seat;
	int64_t updated_ms;
	int64_t account; /* the account it is logged in to (schema 7), 0 for a guest */
};

#define STORE_ACCOUNT_NAME_MAX 21   /* an account name or its key: 20 ASCII bytes and the NUL */
#define STORE_SKELETON_MAX     1024 /* a confusable skeleton (names.h: NAMES_KEY_MAX) */
#define STORE_HASH_MAX         128  /* a password hash string (password.h: PASSWORD_HASH_SIZE) */

/* An account: a name unique without regard to case, and its password's hash. */
struct store_account {
	int64_t id;                        /* 1, 2, 3 ...: never reused */
	char name[STORE_ACCOUNT_NAME_MAX]; /* as registered: "Alice_99" */
	char key[STORE_ACCOUNT_NAME_MAX];  /* names_account_key(): "alice_99" */
	char skeleton[STORE_SKELETON_MAX]; /* names_skeleton() of the name */
	char hash[STORE_HASH_MAX];         /* password_hash()'s string */
	char kind[STORE_WORD_MAX];         /* "account" or "bot" */
	int64_t created_ms;
	int64_t closed_ms; /* 0 while open */
	int64_t banned_ms; /* 0 unless banned */
};

/* An account's rating in one game kind (schema 8's ratings row): full precision, as glicko left it.
 */
struct store_rating {
	int64_t account;
	enum game_kind kind;
	double rating, rd, vol;
	int64_t games, wins, draws, losses; /* rated games; games = wins + draws + losses */
	double best;                        /* the best rating after any of its games */
	int64_t updated_ms;
	int64_t opponents; /* distinct accounts it played rated games of the kind against (schema
	                    * 10's ratings.opponents), as read; the game layer does not move it */
};

/* One seat's change in a rated game (a rating_changes row); the ratings row follows from it. */
struct store_rating_change {
	int seat;
	int64_t account;
	enum game_kind kind;
	double before[3]; /* rating, rd, vol before the game */
	double after[3];  /* ... after it */
	double score;     /* the seat's score: 1, 0.5, 0 (its win, draw or loss) */
	int64_t opponent; /* the other seat's account (schema 10: its distinct opponents) */
	int64_t ended_ms; /* when it was stored (its game's end), as rating_changes() reads it;
	                   * rating_change() takes now_ms instead */
};

/* A rating_pairs row: account's rated games of kind against opponent (schema 10). */
struct store_rating_pair {
	int64_t account;
	enum game_kind kind;
	int64_t opponent;
	int64_t games;
};

/*
 * A loaded game, replayed: start is its start position, position the position after its stored
 * moves. events[0..nevents) are in seq order. Everything is borrowed for the call only.
 */
typedef int (*store_load_cb)(void *ctx, const struct store_game *g, const struct store_event *ev,
                             size_t nevents, const struct game *start, const struct game *position);

/*
 * Where a history page starts: just after the game that ended at ended_ms with creation number
 * serial, in history order (most recently finished first, then most recently created first).
 * Games are found from it by key, whatever the store's size.
 */
struct store_cursor {
	int64_t ended_ms;
	int64_t serial;
};

#define STORE_CURSOR_TEXT 48 /* store_cursor_format()'s text, with the NUL */

/*
 * A history request: finished games in history order. Whose (PROTOCOL.md `history`): without
 * by_player, the public games and the asker's own private ones; with by_player, the games of one
 * player (player_account, or a guest's own player_id), public ones and the asker's own private
 * ones with that player (all of them when the player is the asker). The asker is own_account,
 * or the guest own_id; neither: public games alone.
 */
struct store_history_query {
	int has_after;                /* start after the cursor `after`; else at the most recent */
	struct store_cursor after;    /* see has_after */
	int64_t offset;               /* games to skip from there: each costs a step of a scan */
	size_t limit;                 /* at most this many games */
	int64_t own_account;          /* the asker's account; 0: a guest (own_id) or nobody */
	char own_id[STORE_ID_MAX];    /* a guest asker's player id; "" for nobody */
	int by_player;                /* only the games of the player below */
	int64_t player_account;       /* that player's account; 0: the guest of player_id */
	char player_id[STORE_ID_MAX]; /* with by_player and no account: a guest's player id */
};

/* Who asks for a record by id: a private game is found only for a player who held a seat in it
 * (by account, or a guest's seat by its player id), as history lists it. */
struct store_viewer {
	int64_t account;              /* the asker's account; 0: a guest, or nobody */
	char player_id[STORE_ID_MAX]; /* a guest asker's player id; "" for nobody */
};

/* What a history page says besides its games. */
struct store_history_page {
	int64_t total;            /* games the query lists in all (kept counts, or an index's) */
	int more;                 /* more games follow the page's last one */
	struct store_cursor next; /* the page's last game, when more: the next page's `after` */
};

/* Where a leaderboard page starts: just after this entry (best rating first, then lower id). */
struct store_board_cursor {
	double rating;
	int64_t account;
	int64_t rank; /* that entry's rank: the page goes on from it */
};

#define STORE_BOARD_CURSOR_TEXT 64 /* store_board_cursor_format()'s text, with the NUL */

/*
 * A leaderboard request: accounts (and bots) of kind with rd <= 110, open and not banned; with
 * provisional, those with rd > 110 instead.
 */
struct store_board_query {
	enum game_kind kind;
	int has_after;                   /* start after `after`; else at the best */
	struct store_board_cursor after; /* see has_after */
	size_t limit;                    /* at most this many entries */
	unsigned min_games;              /* only accounts with this many rated games ... */
	unsigned min_opponents;          /* ... against this many accounts (--board-min-*) */
	int provisional; /* the provisional ratings instead (the players not on the board) */
};

/* One entry of a leaderboard page. */
struct store_board_entry {
	int64_t rank; /* 1 for the best */
	int64_t account;
	char name[STORE_ACCOUNT_NAME_MAX];
	int bot; /* a bot account */
	double rating, rd;
	int64_t games;
	int64_t opponents; /* distinct accounts it played rated games of the kind against */
};

/* One of an account's rated games, for its profile: the game and both seats' changes. */
struct store_rated_game {
	struct store_game game;
	int nchanges;                          /* 2, or 0 when its rows are missing */
	struct store_rating_change changes[2]; /* by seat */
};

struct uv_loop_s; /* libuv's uv_loop_t, for a backend that watches sockets (start()) */

/* A commit's outcome (start()): ticket's writes are durable (rc 0) or not (rc < 0, err). */
typedef void (*store_done_cb)(void *arg, uint64_t ticket, int rc, const struct store_error *err);

/* The write port: everything one turn of the loop writes, and the start-up reads. */
struct store_write_port {
	/* A new game (status "open"). g is borrowed; its end, seats and counts are ignored. */
	int (*game_add)(void *impl, const struct store_game *g, struct store_error *err);
	/* A player took seat 0 or 1 of a game, logged in to account (0: a guest, the computer). */
	int (*seat_set)(void *impl, const char *game_id, int seat, const char *player_id,
	                const char *name, int64_t account, struct store_error *err);
	/* The game's status: "open", "live", "adjourned". */
	int (*status_set)(void *impl, const char *game_id, const char *status,
	                  struct store_error *err);
	/* An event of a game; its seq must be the game's last + 1 (ev and its strings borrowed). */
	int (*event_add)(void *impl, const char *game_id, const struct store_event *ev,
	                 struct store_error *err);
	/* The game is over (score NULL for none); counted in the finished games at once. */
	int (*game_finish)(void *impl, const char *game_id, int64_t ended_ms, const char *result,
	                   int winner, const char *reason, const int score[2],
	                   struct store_error *err);
	/* A finished game created rated rated nobody: why (unrated, a static word), in the
	 * transaction of its end. */
	int (*game_unrated)(void *impl, const char *game_id, const char *unrated,
	                    struct store_error *err);
	/* Delete a game with its events and the sessions seated at it (one that never started,
	 * at its end); the kept counts follow. */
	int (*game_drop)(void *impl, const char *game_id, struct store_error *err);
	/* --keep-days: delete at most max finished games without an account at a seat, that
	 * ended before before_ms and have nobody seated, oldest first, in the transaction.
	 * Returns how many, or 0 for a backend that learns it only at the commit. */
	int (*sweep)(void *impl, int64_t before_ms, unsigned max, struct store_error *err);
	/* --unused-account-days: delete account id if it is still unused, in the transaction. */
	int (*account_drop)(void *impl, int64_t id, struct store_error *err);
	/* Insert or replace the session of a seated player (s borrowed). */
	int (*session_set)(void *impl, const struct store_session *s, struct store_error *err);
	/* Forget a session; not finding it is no error. */
	int (*session_remove)(void *impl, const char *token, struct store_error *err);
	/* A named counter (the next game and player numbers). */
	int (*meta_set)(void *impl, const char *key, int64_t value, struct store_error *err);
	/* Read a counter: 0 and *value, or STORE_ENOTFOUND. */
	int (*meta_get)(void *impl, const char *key, int64_t *value, struct store_error *err);
	/*
	 * Hand every write queued since the last commit to the backend as one transaction. Returns
	 * 0 with *ticket 0 when they are durable at return (always before start()); 0 with *ticket
	 * > 0 when they are in flight: done() tells their outcome later (tickets count up from 1;
	 * commits in a row may share one); or a negative error: nothing of them is durable (the
	 * caller keeps them and retries).
	 */
	int (*commit)(void *impl, uint64_t *ticket, struct store_error *err);
	/*
	 * Give the backend the loop (its sockets, timers, threads), once, after the start-up
	 * reads and before the first commit that may be answered later. done(arg, ticket, rc, err)
	 * is then called on the loop's thread as tickets are answered, in ticket order (one call
	 * may answer several: every ticket up to ticket): rc 0, their writes are durable; rc < 0,
	 * they are not (or their outcome is unknown) and neither are those of any later ticket,
	 * which get the same rc: the caller writes them all again (idempotent) once the store can
	 * write. STORE_EUNAVAIL, STORE_EFULL and STORE_EIO may be retried; any other rc means the
	 * store can no longer say what it holds (a failed sync of the disk): the caller stops.
	 * NULL: the backend needs no loop (its commits are durable at return). Returns 0 or an
	 * error.
	 */
	int (*start)(void *impl, struct uv_loop_s *loop, store_done_cb done, void *arg,
	             struct store_error *err);
	/* Close what start() opened; the loop must run on for their close callbacks. Commits in
	 * flight are answered first (done()), or failed with STORE_EUNAVAIL. NULL with start. */
	void (*stop)(void *impl);
	/* Give up every write queued since the last commit (after a write that failed). */
	void (*rollback)(void *impl);
	/* Writes queued since the last commit. */
	size_t (*pending)(const void *impl);
	/* Whether the store keeps nothing across a crash (then a commit may follow the replies). */
	int (*is_temporary)(const void *impl);
	/* Start-up: every unfinished game, the `recent` most recently finished public and private
	 * ones and those with a stored session, replayed, in creation order, to cb. Returns the
	 * count or an error. */
	int (*load)(void *impl, unsigned recent, store_load_cb cb, void *ctx,
	            struct store_error *err);
	/* Start-up: every stored session to cb. Returns the count or an error. */
	int (*sessions_load)(void *impl, int (*cb)(void *ctx, const struct store_session *s),
	                     void *ctx, struct store_error *err);
	/* A new account (a borrowed), queued in the turn's transaction like the game writes. */
	int (*account_add)(void *impl, const struct store_account *a, struct store_error *err);
	/* An account's hash, kind, closed and banned times change (a borrowed; by a->id). */
	int (*account_update)(void *impl, const struct store_account *a, struct store_error *err);
	/* Start-up: every account, by id, to cb. Returns the count or an error. */
	int (*accounts_load)(void *impl, int (*cb)(void *ctx, const struct store_account *a),
	                     void *ctx, struct store_error *err);
	/* A rated game's change of one seat (c borrowed), queued in the turn's transaction with
	 * the game's end: the rating_changes row, and the account's ratings row brought to it. */
	int (*rating_change)(void *impl, const char *game_id, const struct store_rating_change *c,
	                     int64_t now_ms, struct store_error *err);
	/* Start-up: every ratings row to cb. Returns the count or an error. */
	int (*ratings_load)(void *impl, int (*cb)(void *ctx, const struct store_rating *r),
	                    void *ctx, struct store_error *err);
	/* Start-up: each rated game that changed ratings and ended at since_ms or later, in the
	 * order of their ends, to cb with both seats' accounts. Returns the count or an error. */
	int (*rated_pairs_load)(void *impl, int64_t since_ms,
	                        int (*cb)(void *ctx, int64_t a, int64_t b, int64_t ended_ms),
	                        void *ctx, struct store_error *err);
	/*
	 * A copy of a whole store (hokitod migrate, before start(), into a store that holds
	 * nothing yet): what the writes above cannot write as it was stored elsewhere. Each is
	 * queued in the transaction as they are, and idempotent by key as they are.
	 */
	/* A whole game as another store holds it (g and ev borrowed): its row as g says, its
	 * serial included (put in serial order: the numbers between the highest one stored and
	 * g->serial count as games deleted, as they were where it comes from), its seats with
	 * their accounts (-1: none, 0: unknown), status, end and unrated word; and its events
	 * ev[0..nevents) (seq 1..nevents, each body byte for byte). Its nevents and ply are
	 * ignored (they follow from ev); the kept counts follow. */
	int (*game_put)(void *impl, const struct store_game *g, const struct store_event *ev,
	                size_t nevents, struct store_error *err);
	/* A rating_changes row of game_id as it was stored (c borrowed: its seat, account,
	 * before, after and ended_ms); neither the ratings row nor the pairs move. */
	int (*rating_change_put)(void *impl, const char *game_id,
	                         const struct store_rating_change *c, struct store_error *err);
	/* A rating_pairs row as it was stored (p borrowed). */
	int (*rating_pair_put)(void *impl, const struct store_rating_pair *p,
	                       struct store_error *err);
	/* The ratings row r exactly, opponents included (r borrowed), in place of any row of its
	 * account and kind: put it after that account's pairs, which a backend may count into
	 * opponents as they come. */
	int (*rating_put)(void *impl, const struct store_rating *r, struct store_error *err);
	void *impl; /* the backend's state, passed to every op; borrowed */
};

/* The read port: answers that may grow with the store, off the loop thread. */
struct store_read_port {
	/*
	 * A page of finished games in history order, those q asks for (public ones, and the
	 * asker's own private ones: struct store_history_query): at most q->limit into out (room
	 * for q->limit), and page filled. Returns how many were
	 * written (0 past the end), or a negative error.
	 */
	int (*history)(void *impl, const struct store_history_query *q, struct store_game *out,
	               struct store_history_page *page, struct store_error *err);
	/*
	 * The text game record (FORMATS.md "Game records") of game_id into buf, NUL-terminated;
	 * with a viewer (asked by id) a private game is STORE_ENOTFOUND unless the viewer held a
	 * seat in it (others reach it by its invite code); NULL: any game. Costs what that game's
	 * moves cost. Returns the length, or STORE_ENOTFOUND, STORE_ENOSPC, STORE_ECORRUPT,
	 * STORE_EIO.
	 */
	int (*record)(void *impl, const char *game_id, const struct store_viewer *viewer, char *buf,
	              size_t size, struct store_error *err);
	/*
	 * Every stored event of game_id, in order, into *out (a new array of *n events, freed with
	 * store_events_free(); each body the line exactly as it was sent); with a viewer a private
	 * game is STORE_ENOTFOUND unless the viewer held a seat in it, as for record. Costs what
	 * that game's events cost. Returns 0, or STORE_ENOTFOUND, STORE_EIO (*out NULL).
	 */
	int (*events)(void *impl, const char *game_id, const struct store_viewer *viewer,
	              struct store_event **out, size_t *n, struct store_error *err);
	/*
	 * A page of the leaderboard of q->kind, best first: at most q->limit entries into out
	 * (room for q->limit), *more set when more follow. Found by key (the ratings_board index),
	 * whatever the number of accounts. Returns how many, or a negative error.
	 */
	int (*leaderboard)(void *impl, const struct store_board_query *q,
	                   struct store_board_entry *out, int *more, struct store_error *err);
	/*
	 * The limit most recently finished rated games of account, most recent first, into out
	 * (room for limit). Returns how many, or a negative error.
	 */
	int (*rated_games)(void *impl, int64_t account, size_t limit, struct store_rated_game *out,
	                   struct store_error *err);
	/*
	 * --unused-account-days: of the accounts after id after_id (at most scan of them, in id
	 * order, up to the first made at or after before_ms), the ones never used (no finished
	 * game, no rating, not a bot's, not closed nor banned, not the newest) into ids, max at
	 * most; *next_after the last id looked at. Returns how many, or an error.
	 */
	int (*accounts_unused)(void *impl, int64_t after_id, int64_t before_ms, unsigned scan,
	                       int64_t *ids, unsigned max, int64_t *next_after,
	                       struct store_error *err);
	/*
	 * A copy of a whole store (hokitod migrate), and its check: everything, at the cost of
	 * its rows. (The accounts, sessions and ratings rows and the counters are the write
	 * port's start-up reads.)
	 */
	/*
	 * The games whose serial is greater than after, of any status, in serial order: at most
	 * limit into out (room for limit); *total (may be NULL) the number of games the store
	 * holds. Returns how many were written (0 past the last), or a negative error.
	 */
	int (*games_page)(void *impl, int64_t after, size_t limit, struct store_game *out,
	                  int64_t *total, struct store_error *err);
	/*
	 * The rating_changes rows of game_id, by seat, into out (room for 2): each with its
	 * ended_ms, the game's kind, the seat's score by the game's result and the other row's
	 * account as its opponent. Returns how many (0 for a game that changed no rating), or a
	 * negative error.
	 */
	int (*rating_changes)(void *impl, const char *game_id, struct store_rating_change out[2],
	                      struct store_error *err);
	/* Every rating_pairs row to cb, by account, kind and opponent. Returns the count, or a
	 * negative error (STORE_ESTOPPED when cb returned nonzero). */
	int (*rating_pairs)(void *impl, int (*cb)(void *ctx, const struct store_rating_pair *p),
	                    void *ctx, struct store_error *err);
	/* Release impl (the port is unusable after). */
	void (*close)(void *impl);
	/* Whether the port must be used on the loop's thread: a store that cannot be read from a
	 * second connection (a private temporary database, ":memory:"). */
	int loop_only;
	void *impl; /* the backend's state, passed to every op; owned by the port */
};

/*
 * What a backend gives the registry (store-db.c): one of these, a constant of the backend's
 * (store_backend_sqlite, store_backend_postgresql). target is --db without its scheme for
 * SQLite (a path, ":memory:"), the whole URI for PostgreSQL. Every function but open() takes
 * the impl open() made.
 */
struct store_db_options;
struct store_backend {
	const char *name; /* "sqlite", "postgresql" */
	/* Open (store_db_open()): 0 and *impl, or a negative store_errno with err. */
	int (*open)(const char *target, const struct store_db_options *o, void **impl,
	            struct store_error *err);
	/* Roll back what was not committed, release the lock, free impl. */
	void (*close)(void *impl);
	/* As close, for a start that failed: what this open created is removed again (a new
	 * SQLite file), so that the next start finds what was there before. */
	void (*discard)(void *impl);
	/* For the log: the path, or the URI without its password (borrowed from impl). */
	const char *(*display)(const void *impl);
	int (*schema)(const void *impl);
	int (*is_temporary)(const void *impl);
	void (*write_port)(void *impl, struct store_write_port *out);
	/* A read port on a connection of its own (store_db_reader_open()). */
	int (*reader_open)(void *impl, struct store_read_port *out, struct store_error *err);
	/* hokitod --check (store_db_check()), on target, without opening for writing. */
	int (*check)(const char *target, void (*found)(void *ctx, const char *text), void *ctx,
	             struct store_error *err);
	/* Where the admin socket of a server on target goes by default ("" for none): into buf. */
	void (*admin_path)(const char *target, char *buf, size_t size);
	/* hokitod backup (store_db_backup()): an online copy of target into the new file path,
	 * progress(ctx, done, total) as it goes; NULL for a backend whose database has tools of its
	 * own for it (PostgreSQL: pg_dump). */
	int (*backup)(const char *target, const char *path,
	              void (*progress)(void *ctx, int64_t done, int64_t total), void *ctx,
	              struct store_error *err);
};

/* The cursor as the text a client sees (opaque to it): into buf (STORE_CURSOR_TEXT bytes). */
void store_cursor_format(const struct store_cursor *c, char *buf, size_t size);

/* Parse a cursor text of store_cursor_format(): 0, or STORE_EINVAL for anything else. */
int store_cursor_parse(const char *text, struct store_cursor *c);

/* A leaderboard cursor as the text a client sees (opaque): into buf (STORE_BOARD_CURSOR_TEXT). */
void store_board_cursor_format(const struct store_board_cursor *c, char *buf, size_t size);

/* Parse a text of store_board_cursor_format(): 0, or STORE_EINVAL for anything else. */
int store_board_cursor_parse(const char *text, struct store_board_cursor *c);

/* Fill err (if not NULL) with code and the sentence of fmt; returns code. */
int store_fail(struct store_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

/* Free an array of events a read port made (events(); its strings included). Accepts NULL. */
void store_events_free(struct store_event *events, size_t nevents);

#endif
