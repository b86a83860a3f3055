/*
 * store-games.h: the games the store's tests write and read back, through a write port and a
 * read port (store-port.h), whatever the backend: test-store-contract.c on every backend, and
 * test-store.c on the SQLite backend's own port (store_write_port_init()). The writes go into
 * the port's open transaction; nothing here commits.
 */
#ifndef HOKITO_TESTS_STORE_GAMES_H
#define HOKITO_TESTS_STORE_GAMES_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"
#include "rng.h"
#include "store-port.h"

/* Add g (status "open"), its seats taken by p1 "alice" and p2 "bob" (accounts a0, a1; 0 for a
 * guest), their "seated" events 1 and 2, "started" 3, and the status "live". */
int add_seated(const struct store_write_port *w, const struct store_game *g, int64_t a0,
               int64_t a1);

/* A public game of kind and seed made at now, seated and started: events 1..3. */
int add_game(const struct store_write_port *w, const char *id, enum game_kind kind, uint64_t seed,
             int64_t now);

/* Play up to n random moves on game id whose position is g; *seq is its last seq. */
int play(const struct store_write_port *w, const char *id, struct game *g, int64_t *seq, int n,
         struct rng *rng);

/* Finish game id by its rules (the position g must be over): its game_over event and its end. */
int finish(const struct store_write_port *w, const char *id, const struct game *g, int64_t *seq,
           int64_t ended);

/* End game id without moves: "win" (seat 0 by resignation) or "draw" (by agreement). */
int finish_as(const struct store_write_port *w, const char *id, int64_t *seq, int64_t ended,
              const char *result);

/* Walk the whole history through rp by cursor (its text round-tripped), limit games a page;
 * the ids in order into ids, the total into *total. Returns how many, or an error. */
int walk_history(const struct store_read_port *rp, size_t limit, char ids[][STORE_ID_MAX],
                 int64_t *total);

/* What load() handed out (load_cb()), in order: at most LOADED_MAX games. */
#define LOADED_MAX 16
struct loaded {
	int n;
	struct store_game g[LOADED_MAX];
	char pos[LOADED_MAX][GAME_TEXT_MAX]; /* each one's position, game_format()'s */
	size_t nev[LOADED_MAX];
	char last_body[LOADED_MAX][128]; /* its last event's body */
};

/* A store_load_cb filling the struct loaded ctx; stops the load when it is full. */
int load_cb(void *ctx, const struct store_game *g, const struct store_event *ev, size_t n,
            const struct game *start, const struct game *position);

#endif
