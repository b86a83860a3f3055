/*
 * archive.h: the requests answered from the store's archive of games: history and record
 * (archive.c). Handlers of the request table (handlers.c).
 *
 * The store is read off the loop's thread: a handler fills a struct archive_read (the question)
 * and hands it to ops->read (lobby.h), which runs archive_read_run() on a read port
 * (store-port.h) elsewhere and brings the answer back to handlers_read_done() (handlers.h), which
 * replies through archive_reply(). Meanwhile the asking connection is held (struct lobby_wait,
 * ops->pause): its later requests wait unread, so that its replies keep the order of its requests.
 */
#ifndef HOKITO_SERVER_ARCHIVE_H
#define HOKITO_SERVER_ARCHIVE_H

#include <stdint.h>

#include "lobby.h"
#include "store-port.h"

/* What a store read (ops->read) asks for. */
enum archive_read_kind {
	ARCHIVE_READ_HISTORY,     /* a page of the history */
	ARCHIVE_READ_RECORD,      /* the record of a game */
	ARCHIVE_READ_PROFILE,     /* an account's last rated games (profile: ladder.c) */
	ARCHIVE_READ_LEADERBOARD, /* a page of a leaderboard (ladder.c) */
	ARCHIVE_READ_EVENTS,      /* the stored events of a game (GET /api/game/ID.json) */
	ARCHIVE_READ_UNUSED,      /* accounts never used (--unused-account-days: node.c) */
};

#define ARCHIVE_RECENT     10 /* rated games a profile lists */
#define ARCHIVE_UNUSED_MAX 50 /* unused accounts one read finds at most */

/*
 * A store read that runs off the loop's thread (ops->read), question and answer. The archive fills
 * the question; whoever runs it (reader.c) touches nothing else, fills the answer and hands it
 * back (handlers_read_done()). It carries no pointer to the asker: the lobby finds the asker by
 * ticket (lobby_wait_find()), and the answer is dropped if the connection is gone by then.
 */
struct archive_read {
	uint64_t ticket;             /* the lobby's number for it (lobby_wait_add()) */
	char addr[LOBBY_PEER_KEY];   /* the asker's address: its key in the readers' fair queue */
	enum archive_read_kind kind; /* which question */
	/* the question */
	struct store_history_query query; /* history */
	char game_id[STORE_ID_MAX];       /* record: the game */
	int public_only; /* record, events: asked by id, so a private game is not found ... */
	struct store_viewer viewer;          /* ... but by a player who held a seat in it */
	int64_t account;                     /* profile: whose games */
	struct store_board_query board;      /* leaderboard */
	int64_t unused_after, unused_before; /* unused: after this id, made before this time ... */
	unsigned unused_scan;                /* ... looking at this many ids at most */
	/* the answer */
	int rc;                   /* games in `games`, the record's length, or a store error */
	struct store_error err;   /* when rc < 0 */
	struct store_game *games; /* history: room for query.limit games (owned) */
	struct store_history_page page; /* history: the total, and where the next page starts */
	char *text;                     /* record: RECORD_TEXT_MAX bytes, NUL-terminated (owned) */
	struct store_rated_game *rated; /* profile: room for ARCHIVE_RECENT games (owned) */
	struct store_board_entry *entries;  /* leaderboard: room for board.limit (owned) */
	int more;                           /* leaderboard: more entries follow */
	struct store_event *events;         /* events: the game's, in order (owned) */
	size_t nevents;                     /* events: how many */
	int64_t unused[ARCHIVE_UNUSED_MAX]; /* unused: the accounts found (rc of them) */
	int64_t unused_next;                /* unused: the last id looked at */
};

/* history: a page of finished games from the store, most recent first: public ones and the
 * asker's own private ones, perhaps of one player (PROTOCOL.md `history`, 7.6). */
void archive_history(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/* record: the text game record of a game the store holds (FORMATS.md). */
void archive_record(struct lobby *lb, struct lobby_peer *peer, const struct msg *m);

/*
 * The answer r (borrowed) to peer's request m (borrowed), which asked for it: the history page or
 * the record, or a refusal.
 */
void archive_reply(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                   const struct archive_read *r);

/*
 * A history entry (PROTOCOL.md 7.6) of stored game g (borrowed); the players' kinds from the
 * accounts as (borrowed). Returns a new reference.
 */
json_t *archive_entry_new(const struct accounts *as, const struct store_game *g);

/*
 * Hand read r (stolen) to ops->read for peer's request m, with peer's address as its key: peer's
 * next requests wait for it. When the address has its maximum of reads out (ops->read refuses),
 * m is answered too_many_reads at once, counted for guard_tick()'s log line, and r freed.
 */
void archive_read_start(struct lobby *lb, struct lobby_peer *peer, const struct msg *m,
                        struct archive_read *r);

/* Run read r on port (on the calling thread; it touches r and the port only). */
void archive_read_run(const struct store_read_port *port, struct archive_read *r);

/* Free a read and its answer. Accepts NULL. */
void archive_read_free(struct archive_read *r);

#endif
