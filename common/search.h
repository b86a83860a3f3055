/*
 * search.h: the computer opponent's search, one for both games, through game.h.
 *
 * Iterative deepening negamax with alpha-beta (principal variation search), a transposition
 * table keyed by Zobrist hashing, and move ordering by the table's move, a per-game hint
 * (captures in HOKITO, wins and blocks in OXONO), killer moves and the history heuristic. The
 * budget of one search is a depth, a node count and, optionally, a time read from a clock the
 * caller passes in, so this module stays pure and tests can use budgets that do not depend on
 * the machine.
 *
 * Exact endgame solving is part of the same search: every score carries which of its bounds are
 * proved (by finished games below, not by the evaluation's guesses); proved entries of the table
 * hold at any depth. When an iteration's root score is proved both ways, the game is solved
 * from here: the score is the exact result with best play by both sides (HOKITO: the final
 * score margin; OXONO: win, draw or loss and in how many moves), and the search stops.
 *
 * Levels 1 to 8 map to budgets and evaluation noise, from a beginner who looks one move ahead
 * and misjudges positions to full strength. A search is deterministic: the same position,
 * limits, seed and table contents give the same move.
 *
 * Memory: struct search is large (per-ply move lists, killers, history, Zobrist tables) and is
 * made once by search_create(); the transposition table lives in memory the caller gives
 * (search_tt_init) or that search_create() allocates once. Nothing is allocated while searching.
 */
#ifndef HOKITO_COMMON_SEARCH_H
#define HOKITO_COMMON_SEARCH_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "eval.h"
#include "game.h"
#include "zobrist.h"

#define SEARCH_PLY_MAX   64 /* deepest ply: more than the longest game of either kind */
#define SEARCH_LEVEL_MIN 1
#define SEARCH_LEVEL_MAX 8

/* search_run()'s result for a search told to stop by its cancel flag (beside game.h's codes). */
#define SEARCH_ECANCELED (-16)

/* What a search proved about its score (struct search_result's proof; also in table flags). */
#define SEARCH_PROOF_LOWER 4 /* the game value is at least the score */
#define SEARCH_PROOF_UPPER 8 /* the game value is at most the score */
#define SEARCH_PROOF_BOTH  (SEARCH_PROOF_LOWER | SEARCH_PROOF_UPPER)

/* One entry of the transposition table: 16 bytes. */
struct search_tt_entry {
	uint64_t key;          /* the position's full Zobrist key */
	int16_t score;         /* side to move's view, a bound or exact as flags say */
	uint8_t depth;         /* plies searched below */
	uint8_t flags;         /* bound kind (1 exact, 2 lower, 3 upper) | SEARCH_PROOF_* */
	struct game_move move; /* the best (or refuting) move found, tried first next time */
	uint8_t gen;           /* the search that wrote it, for replacement */
};

/* The transposition table: buckets of two entries (one kept by depth, one always replaced). */
struct search_tt {
	struct search_tt_entry *entries; /* borrowed: the caller's memory */
	size_t mask;                     /* number of entries - 1, a power of two minus one */
	uint8_t gen;                     /* incremented by every search_run() */
};

/* The budget and the handicap of one search. Zero means "no limit" for each budget. */
struct search_limits {
	int depth;                       /* deepest iteration in plies (0: SEARCH_PLY_MAX) */
	uint64_t nodes;                  /* stop after about this many nodes (0: no limit) */
	uint64_t time_ms;                /* stop after this much time on clock_cb (0: none) */
	uint64_t (*clock_cb)(void *arg); /* a clock in milliseconds, any origin; NULL: none */
	void *clock_arg;                 /* passed to clock_cb */
	const atomic_int *cancel;        /* borrowed; set non-zero by another thread: stop now */
	int noise;                       /* amplitude of the deterministic evaluation noise */
	uint64_t seed;                   /* seed of the noise */
};

/* What a search found. */
struct search_result {
	struct game_move best;               /* the move to play */
	int score;                           /* side to move's view (eval.h's scale) */
	int proved;                          /* 1 when score is the exact game value */
	int proof;                           /* SEARCH_PROOF_* bits: the bounds proved */
	int depth;                           /* the last iteration completed */
	uint64_t nodes;                      /* nodes visited, all iterations */
	int pvlen;                           /* moves in pv */
	struct game_move pv[SEARCH_PLY_MAX]; /* principal variation, best first */
};

struct search;

/*
 * Lay a transposition table over the caller's memory (mem, bytes; at least 1 KiB, aligned for
 * uint64_t), which it borrows until it is no longer used. The table takes the largest power of
 * two of entries that fits, and is cleared. Returns 0 or GAME_EINVAL when bytes is too small.
 */
int search_tt_init(struct search_tt *tt, void *mem, size_t bytes);

/* Forget every entry. */
void search_tt_clear(struct search_tt *tt);

/*
 * Make a search with a transposition table of tt_bytes (allocated here, once) and Zobrist keys
 * from seed. Returns a new search that the caller frees with search_free().
 */
struct search *search_create(size_t tt_bytes, uint64_t seed);

/* Free a search and its table. Accepts NULL. */
void search_free(struct search *s);

/* Forget what earlier searches learnt (table, killers, history): the next search starts cold. */
void search_clear(struct search *s);

/*
 * Search g within lim and fill r. Returns 0, or GAME_EOVER when g is over (r->best is then
 * unset). The first iteration always completes, whatever the budget, so a move is always found;
 * except when lim->cancel is set (before or during the search, even in the first iteration):
 * it then returns SEARCH_ECANCELED within a check interval (1024 nodes), and r means nothing.
 */
int search_run(struct search *s, const struct game *g, const struct search_limits *lim,
               struct search_result *r);

/*
 * The limits of a level, SEARCH_LEVEL_MIN to SEARCH_LEVEL_MAX, for a game kind; seed is the
 * seed of the noise. Returns 0 or GAME_EINVAL for a level out of range.
 */
int search_level_limits(int level, enum game_kind kind, uint64_t seed, struct search_limits *lim);

#endif
