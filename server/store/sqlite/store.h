/*
 * store.h: hokitod's durable store: every game, every game event (moves included) and the session
 * tokens of seated players, in one SQLite file, so that a restart (or a kill -9) loses no
 * acknowledged move.
 *
 * It is the SQLite backend of the two ports of store-port.h: store_write_port_init() and
 * store_read_port_init() / store_reader_open() fill them; the game layer sees only the ports.
 *
 * How the server uses it:
 *   - at start-up: store_open() (creates the file, runs migrations, a cheap check of what the file
 *     is; the full integrity check is store_check_file(), hokitod --check), then store_load() to
 *     rebuild the unfinished games (each replayed and checked through the rules) and
 *     store_sessions_load() to bring back the seated players' tokens;
 *   - during one turn of the event loop: store_game_add(), store_seat_set(), store_event_add(),
 *     store_game_finish(), store_session_set() ... for everything that happened; these only queue
 *     the writes in the open transaction (the first one opens it);
 *   - at the end of the turn (a uv_check handle, say): store_commit(), once; only when it returns 0
 *     may the replies and events of that turn be written to the sockets ("group commit"); a
 *     temporary store (store_is_temporary()) keeps nothing to wait for, and may commit after;
 *   - history and record requests go to a read port on a connection of its own
 *     (store_reader_open(), used by one other thread) that sees what is committed; a temporary
 *     store, which no second connection can see, is read on its own connection
 *     (store_read_port_init(), on the loop's thread).
 * Everything is synchronous and on the loop's thread, but the few store_bg_*() calls that another
 * thread makes on its own connection (see store_bg_open()); no libuv here. Times are Unix epoch
 * milliseconds supplied by the caller: the store never reads the clock.
 */
#ifndef HOKITO_SERVER_STORE_H
#define HOKITO_SERVER_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "store-port.h"

#define STORE_SCHEMA_VERSION 11 /* the schema this program writes; older files are migrated */

/* How far a commit goes (hokitod --fsync). */
enum store_sync {
	STORE_SYNC_NORMAL = 0, /* survives a crash of the process: WAL, synchronous=NORMAL */
	STORE_SYNC_FULL =
	        1, /* survives a power loss too: WAL, synchronous=FULL, fsync per commit */
};

struct store;

/*
 * Open the store at path, creating the file if it does not exist; ":memory:" is a private
 * temporary database that keeps nothing (see store_start()). Sets WAL mode and the sync level
 * (a temporary store: a journal in memory, no sync), checks that the file is a hokitod store
 * (application_id) of a schema this program knows, and runs the migrations up to
 * STORE_SCHEMA_VERSION (each in its own transaction). It reads no more of the file than that:
 * opening costs the same for any number of finished games. The games it loads are checked as
 * they are replayed (store_load()); the whole file is checked by store_check_file(). An empty
 * (0-byte) existing file is refused as truncated. Returns 0 and *out, a new store to close with
 * store_close(); or STORE_EIO, STORE_ECORRUPT or STORE_EVERSION with err (may be NULL) saying
 * what and where, and *out NULL.
 */
int store_open(const char *path, enum store_sync sync, struct store **out, struct store_error *err);

/*
 * The full check of a store file (hokitod --check), which reads all of it: SQLite's quick_check
 * (every page's structure: a truncated or garbled file fails it), then the rules SQLite cannot
 * know: every game's events are numbered 1..n without a gap, moves 1..k in the order of their
 * events, events and sessions belong to stored games, games are numbered 1..N, finished games
 * have a result and others none, and the kept count of finished games is right. It neither
 * migrates nor writes, and may run beside a server on the same file. Calls found(ctx, text) for
 * each finding (one sentence, borrowed for the call). Returns the number of findings (0: sound),
 * or STORE_EIO, STORE_ECORRUPT (not an SQLite file, or not ours), STORE_EVERSION with err.
 */
int store_check_file(const char *path, void (*found)(void *ctx, const char *text), void *ctx,
                     struct store_error *err);

/*
 * Close the store: roll back what was queued and not committed (commit first!), checkpoint the
 * WAL into the main file, close it. Accepts NULL.
 */
void store_close(struct store *st);

/*
 * Taking the disk waits off the loop thread. A file store may hand its two waits to another
 * thread: the fdatasync that makes a commit survive a power loss (needed with STORE_SYNC_FULL
 * before a commit is acknowledged), and the checkpoints that copy the WAL into the file (which
 * SQLite would otherwise run inside a commit every thousand pages, with two fsyncs, stalling the
 * loop for milliseconds). store_bg_open() (loop thread, once, before the first turn) makes the
 * store commit without waiting for the disk (synchronous=NORMAL, no checkpoint of its own) and
 * returns *out, what the other thread works with; store_bg_sync() and store_bg_checkpoint() may
 * then be called from that one thread, concurrently with the loop's use of st. A commit is safe
 * from a power loss once a store_bg_sync() that started after it returned 0. Close with
 * store_bg_close() (after that thread is done with it) before store_close(st). Returns 0, or
 * STORE_EIO (STORE_EINVAL for a temporary store) with err, and *out NULL.
 */
struct store_bg;
int store_bg_open(struct store *st, struct store_bg **out, struct store_error *err);

/* fdatasync the WAL: every commit that returned before this call survives a power loss. Returns 0
 * or a negative errno. */
int store_bg_sync(struct store_bg *bg);

/* Copy what it can of the WAL into the file without waiting for the loop's transactions (a
 * passive checkpoint, through a connection of its own). Returns 0, or STORE_EIO with err. */
int store_bg_checkpoint(struct store_bg *bg, struct store_error *err);

/* Close what store_bg_open() opened. Accepts NULL. */
void store_bg_close(struct store_bg *bg);

/* The sync level the store was opened with. */
enum store_sync store_sync_level(const struct store *st);

/* Frames in the WAL after the last commit of an offloaded store (0 otherwise). The WAL starts
 * over at the first commit after a checkpoint that copied all of it. */
size_t store_wal_frames(const struct store *st);

/* A passive checkpoint on the loop's own connection, for an offloaded store whose other thread
 * falls behind (it never catches up while commits keep coming): it copies all that is left, so
 * the next commit starts the WAL over. Busy is no error. Returns 0, or STORE_EIO with err. */
int store_checkpoint(struct store *st, struct store_error *err);

/* The file name the store was opened with (":memory:" for a temporary one). Borrowed. */
const char *store_path(const struct store *st);

/* The schema version of the open file (after migration: STORE_SCHEMA_VERSION). */
int store_schema_version(const struct store *st);

/* Whether the store is the private temporary database of ":memory:", which outlives nothing. */
int store_is_temporary(const struct store *st);

/*
 * --- Writes of one turn. Each queues its write in the turn's transaction, opening it if none is
 * open; nothing is durable before store_commit(). Strings are borrowed for the call only. All
 * return 0, STORE_EINVAL for an argument out of range, or STORE_EIO.
 *
 * Writes are idempotent by key (store-port.h): writing again what the store holds, in a later
 * transaction or the same one, is success and changes nothing, so that a run of turns' writes
 * may be sent again after a commit whose outcome is unknown; the same key with other contents is
 * STORE_ECORRUPT, with a sentence naming the game (and the seq, the seat, the account). Each
 * function below says what its key is and what is compared.
 */

/*
 * A new game (status "open"). g is borrowed; its end, seats and counts are ignored. A game of
 * that id stored already is success and changes nothing (not its status, seats or events) when
 * it was created the same: kind, variant, seed, private, code, created_ms, clock and rated.
 */
int store_game_add(struct store *st, const struct store_game *g, struct store_error *err);

/* A player took seat 0 or 1 of a game, logged in to account (0: a guest or the computer). The
 * seat it has already is success (the same values written again). STORE_ENOTFOUND: no game. */
int store_seat_set(struct store *st, const char *game_id, int seat, const char *player_id,
                   const char *name, int64_t account, struct store_error *err);

/*
 * The game's status: "open", "live", "adjourned" ("finished" is store_game_finish()'s). A
 * finished game keeps its status: setting one is success and changes nothing (a resent write of
 * a turn before its end), so that its end is never counted twice. STORE_ENOTFOUND: no game.
 */
int store_game_status_set(struct store *st, const char *game_id, const char *status,
                          struct store_error *err);

/*
 * An event of a game. Its seq must be the game's last seq + 1 (STORE_EINVAL otherwise: events
 * are never lost or reordered silently). For "moved" events ev->move is the canonical move text
 * and gets the next ply; other types have move NULL. The body is stored byte for byte: its
 * body_len bytes (it need not end there, the server passes the line it sent, '\n' excluded), or
 * up to its NUL when body_len is 0. ev and its strings are borrowed (the store copies the body).
 * The event is checked here and its row inserted when the store next runs any statement, at the
 * latest at store_commit(): an insert that fails then (a full disk) fails that commit. The key
 * is (game_id, seq): an event of a seq the game has already is one sent again, looked up and
 * compared, never queued: success when the stored one has the same type, move and body bytes
 * (its time is not compared), STORE_ECORRUPT ("game 'g1': event 5 is stored already, with other
 * contents ...") otherwise. STORE_ENOTFOUND: no game.
 */
int store_event_add(struct store *st, const char *game_id, const struct store_event *ev,
                    struct store_error *err);

/*
 * The game is over: status "finished", ended_ms, result ("win", "draw", "aborted"), winner (seat
 * or -1), reason, scores (HOKITO; NULL for none). A game finished already with the same end (all
 * of these) is success, its kept counts not moved again; with another end, STORE_ECORRUPT.
 * STORE_ENOTFOUND: no game.
 */
int store_game_finish(struct store *st, const char *game_id, int64_t ended_ms, const char *result,
                      int winner, const char *reason, const int score[2], struct store_error *err);

/*
 * Delete game_id with its events and the sessions seated at it (a game that never started, in
 * the commit of its end); the kept counts and the count of deleted games follow (triggers).
 * A game that is not there is deleted already: success, and nothing is counted.
 */
int store_game_drop(struct store *st, const char *game_id, struct store_error *err);

/*
 * --keep-days: delete (store_game_drop()) at most max finished games that ended before before_ms
 * with no account at either seat and no session seated at them, oldest first (an index of such
 * games: the cost is the games deleted). Returns how many, or an error.
 */
int store_sweep(struct store *st, int64_t before_ms, unsigned max, struct store_error *err);

/* Insert or replace the session of a seated player (s borrowed): its key is the token, and the
 * same session again is the same row. */
int store_session_set(struct store *st, const struct store_session *s, struct store_error *err);

/* Forget a session (expired, or no longer seated). Not finding it is not an error. */
int store_session_remove(struct store *st, const char *token, struct store_error *err);

/* A named integer kept with the store (e.g. the next game and player numbers). */
int store_meta_set(struct store *st, const char *key, int64_t value, struct store_error *err);

/* Read a named integer: 0 and *value, or STORE_ENOTFOUND (then *value is left alone). */
int store_meta_get(struct store *st, const char *key, int64_t *value, struct store_error *err);

/*
 * Queue a new account (a borrowed; its closed and banned times are ignored). A name_key that is
 * another account's already is refused (STORE_EINVAL or, at the commit, an error): the game layer
 * keeps the keys unique (accounts.h). An id stored already is success and changes nothing when
 * the stored account has the same name, key, skeleton and created_ms (its hash, kind, closed and
 * banned times are store_account_update()'s, perhaps later in the same run of resent writes),
 * STORE_ECORRUPT otherwise.
 */
int store_account_add(struct store *st, const struct store_account *a, struct store_error *err);

/* Queue the new hash, kind, closed and banned times of account a->id (a borrowed). */
int store_account_update(struct store *st, const struct store_account *a, struct store_error *err);

/*
 * --unused-account-days: of the accounts after id after_id (at most scan of them, in id order,
 * up to the first made at or after before_ms), the ones never used (no finished game, no rating,
 * not a bot's, not closed nor banned, not the newest) into ids, max at most; *next_after the last
 * id looked at. Returns how many, or an error. Reads only.
 */
int store_accounts_unused(struct store *st, int64_t after_id, int64_t before_ms, unsigned scan,
                          int64_t *ids, unsigned max, int64_t *next_after, struct store_error *err);

/* Queue the deletion of account id if it is still unused (as above), counted. 0 or an error. */
int store_account_drop(struct store *st, int64_t id, struct store_error *err);

/* Start-up: every account to cb, by id. Returns the count or an error. */
int store_accounts_load(struct store *st, int (*cb)(void *ctx, const struct store_account *a),
                        void *ctx, struct store_error *err);

/* The accounts whose id is greater than after (>= 0), by id, at most limit (1 to 2^31-1), to
 * cb: by the primary key, whatever the number of accounts. Returns the count or an error. */
int store_accounts_page(struct store *st, int64_t after, size_t limit,
                        int (*cb)(void *ctx, const struct store_account *a), void *ctx,
                        struct store_error *err);

/* The account of name key (names_account_key()) into *out, by its index: 1, 0 when there is
 * none, or an error. */
int store_account_find(struct store *st, const char *key, struct store_account *out,
                       struct store_error *err);

/*
 * Queue a rated game's change of one seat (c borrowed): its rating_changes row (at now_ms) and
 * the account's ratings row brought to the values after it (the counts by c->score, the best
 * rating after any of its games). Call it in the turn that finishes the game: one transaction holds
 * both. The key is (game_id, c->seat): a change stored already with the same account and values
 * before and after is success, and the ratings row is not moved again; with others,
 * STORE_ECORRUPT.
 */
int store_rating_change(struct store *st, const char *game_id, const struct store_rating_change *c,
                        int64_t now_ms, struct store_error *err);

/* Queue the word (a static one: "short", "same_address", "pair_limit") of a finished game
 * created rated that rated nobody: games.unrated (schema 10). Call it in the turn of its end.
 * The same word again is success; another word for a game that has one, STORE_ECORRUPT;
 * STORE_ENOTFOUND: no game. */
int store_game_unrated(struct store *st, const char *game_id, const char *unrated,
                       struct store_error *err);

/*
 * Each rated game that changed ratings and ended at since_ms or later, oldest first, to cb with
 * its seats' accounts and its end (down the index rating_changes_ended). A cb that returns
 * non-zero stops it (STORE_ESTOPPED). Returns how many, or a negative error.
 */
int store_rated_pairs_load(struct store *st, int64_t since_ms,
                           int (*cb)(void *ctx, int64_t a, int64_t b, int64_t ended_ms), void *ctx,
                           struct store_error *err);

/* Start-up: every ratings row to cb. Returns the count or an error. */
int store_ratings_load(struct store *st, int (*cb)(void *ctx, const struct store_rating *r),
                       void *ctx, struct store_error *err);

/*
 * Group commit: make every write queued since the last commit durable, at once. With
 * STORE_SYNC_NORMAL the commit is in the WAL file when this returns (safe against a crash of the
 * process); with STORE_SYNC_FULL it has also been fsync'ed (safe against a power loss), unless
 * the store was offloaded (store_bg_open()): then the caller waits for a store_bg_sync() that
 * starts after this returns. Does nothing and returns 0 when nothing is queued. Returns 0 or a
 * negative store error (STORE_EIO; STORE_EINVAL or STORE_ECORRUPT when a queued event's insert
 * failed on a constraint or a damaged file): then the turn's writes
 * are rolled back and none of them is durable; the server cannot take back what it applied in
 * memory, so it keeps them to write again (STORE_EIO: a full disk, durable.c) or logs err and
 * stops (restart recovers the last committed state).
 */
int store_commit(struct store *st, struct store_error *err);

/*
 * Give up every write queued since the last commit (the turn's transaction, and the events not
 * inserted yet): after a write that failed, so that a later commit cannot carry half a turn.
 */
void store_rollback(struct store *st);

/* Writes queued since the last commit (0 when no transaction is open). */
size_t store_pending(const struct store *st);

/*
 * --- Reading (store_load_cb: store-port.h).
 */

/*
 * Call cb for every game that is not finished, for the `recent` most recently finished public
 * games and the `recent` most recently finished private ones, and for the finished games with a
 * session of a seated player stored (a player still at its game, or away and lingering, who may
 * come back to it: a session's row goes when it leaves or expires, so every row is a session that
 * lived when the server stopped, however long ago the game ended), in creation order, each
 * replayed with store_game_replay(). A replay failure (a stored move that is illegal, a result
 * the moves contradict) stops the load with STORE_ECORRUPT and err naming the game and move. cb
 * returns 0 to go on, nonzero to stop (STORE_ESTOPPED). Returns the number of games given to cb,
 * or a negative error.
 */
int store_load(struct store *st, unsigned recent, store_load_cb cb, void *ctx,
               struct store_error *err);

/* Call cb for every stored session. Returns the count or a negative error. */
int store_sessions_load(struct store *st, int (*cb)(void *ctx, const struct store_session *s),
                        void *ctx, struct store_error *err);

/*
 * Finished public games, most recent first (by end time, then creation), skipping offset and
 * giving at most limit into out (room for limit). *total (may be NULL) gets the number of finished
 * public games (private games are never listed: they are reached only by their invite code).
 * Returns the number written to out (0 past the end, for any offset), or a negative error. The
 * offset costs a scan of that many games: store_history_page() goes by key.
 */
int store_history(struct store *st, size_t offset, size_t limit, struct store_game *out,
                  int64_t *total, struct store_error *err);

/* The read port's history (store-port.h) on st: by key from q->after, the total from the kept
 * counts; costs q->offset + q->limit games, whatever the store's size (and, for a guest's own
 * games or an account's private games with the asker, an index count of the asker's games). */
int store_history_page(struct store *st, const struct store_history_query *q,
                       struct store_game *out, struct store_history_page *page,
                       struct store_error *err);

/*
 * One game and its events. Returns 0 with *g filled and *events a new array of *nevents events
 * (its strings included) that the caller frees with store_events_free(); or STORE_ENOTFOUND,
 * STORE_EIO, with *events NULL.
 */
int store_game_get(struct store *st, const char *id, struct store_game *g,
                   struct store_event **events, size_t *nevents, struct store_error *err);

/*
 * The text game record (common/record.h, FORMATS.md "Game records") of game id into buf,
 * NUL-terminated. The Date is the UTC date of its creation. Returns the length, or
 * STORE_ENOTFOUND, STORE_ENOSPC (RECORD_TEXT_MAX always suffices), STORE_ECORRUPT, STORE_EIO.
 */
int store_record_write(struct store *st, const char *id, char *buf, size_t size,
                       struct store_error *err);

/* The read port's leaderboard (store-port.h) on st: by key, whatever the number of accounts. */
int store_leaderboard(struct store *st, const struct store_board_query *q,
                      struct store_board_entry *out, int *more, struct store_error *err);

/* The read port's rated_games (store-port.h) on st: by the index of the account's changes. */
int store_rated_games(struct store *st, int64_t account, size_t limit, struct store_rated_game *out,
                      struct store_error *err);

/* The write port on st (borrowed for the port's life): out's ops call the functions above. */
void store_write_port_init(struct store *st, struct store_write_port *out);

/* A read port on st's own connection (borrowed; out->close does nothing), for the loop's thread
 * only (loop_only is set): what a temporary store needs, and what tests use. */
void store_read_port_init(struct store *st, struct store_read_port *out);

/*
 * A read port on a new read-only connection to the file store at path (one the server has
 * opened and migrated), for one thread at a time; out->close closes it. It sees what is
 * committed. Returns 0, or STORE_EIO, STORE_EVERSION, STORE_EINVAL (":memory:") with err.
 */
int store_reader_open(const char *path, struct store_read_port *out, struct store_error *err);

#endif
