/*
 * game-class.h: what one game kind is, as a table: struct game_class.
 *
 * Every kind of game is one `const struct game_class`, defined in its rules file (hokito.c,
 * oxono.c) and listed by one line in the registry (games.c); the game interface (game.h), the
 * evaluation (eval.c), the hashing (zobrist.c), the search, the records, the protocol and the
 * programs reach a game only through its class. The hooks take the game's own state, which lives
 * in the byte area of struct game (at most GAME_STATE_MAX bytes): a hook never sees struct game,
 * so a rules file depends on game-base.h and this header alone. Declarations only.
 *
 * Scores of the evaluation hooks are integers from the view of the side to move, in the units
 * below (see eval.h for what they mean).
 */
#ifndef HOKITO_COMMON_GAME_CLASS_H
#define HOKITO_COMMON_GAME_CLASS_H

#include <stddef.h>
#include <stdint.h>

#include "game-base.h"

#define EVAL_UNIT     16    /* one point of HOKITO score margin, one ply of OXONO speed */
#define EVAL_WIN      30000 /* a won game is worth at least this */
#define EVAL_HEUR_MAX 8000  /* bound of every heuristic score */
#define EVAL_INF      32000 /* above every score */

/*
 * Per-node context for move ordering: what a class's move_score hook needs about the position,
 * computed once for all its moves by its order_init hook.
 */
struct eval_order {
	uint64_t win; /* OXONO: squares where the mover's pawn would make a line (any symbol) */
	uint64_t winsym[2]; /* OXONO: squares where a pawn of symbol t makes a symbol or colour line
	                     */
	uint64_t block;     /* OXONO: squares where the opponent's colour would make a line */
};

#define GAME_LEVELS 8 /* the computer's levels, 1..GAME_LEVELS (search.h) */

/* How the computer plays at one level (search_level_limits()). */
struct game_level {
	int depth;      /* deepest iteration in plies, 0: by nodes */
	uint64_t nodes; /* node budget, 0: by depth */
	int noise;      /* amplitude of the evaluation noise, in EVAL_UNIT sixteenths */
};

/* What a game's side panel shows beside the board (client), and what a game_over carries. */
enum game_facts {
	GAME_HAS_SCORES = 1,   /* each side has a score (game_outcome's score[]): HOKITO */
	GAME_HAS_RESERVES = 2, /* each side has pawns still to place, by symbol: OXONO */
	GAME_WIN_STOPS = 4,    /* a proved win is enough to stop searching (no margin to improve) */
	GAME_HAS_STACKS = 8,   /* pawns pile up: a square holds a stack (game_cell_format's text) */
};

/*
 * One game kind. Strings are static; hooks are plain functions of the game's state (st points
 * into struct game's byte area, which is zeroed before start and parse). The hooks' contracts are
 * those of the game.h functions of the same names.
 */
struct game_class {
	enum game_kind kind;         /* its index in game_classes[] */
	const char *name;            /* lower case, on the wire and in records: "hokito" */
	const char *title;           /* for people: "HOKITO" */
	const char *a_title;         /* the same after "a" or "an": "a HOKITO", "an OXONO" */
	const char *side[2];         /* side 0 (moves first) and side 1: "black", "white" */
	const char *side_header[2];  /* their record headers: "Black", "White" */
	const char *const *variants; /* NULL-terminated; "standard" first */
	const char *variant_text;    /* the list for errors: "standard, random36" */
	const char *const *ends;     /* NULL-terminated: the rules' end reasons ("blocked") */
	unsigned facts;              /* enum game_facts */
	int history_stride;          /* move ordering: history slot = (from * 36 + to) * this +
	                                place; (from, to, place) must stay below 2 * 36 * 36 */
	struct game_level levels[GAME_LEVELS]; /* the computer's levels 1..8 */
	size_t state_size;                     /* sizeof the state, <= GAME_STATE_MAX */

	/* Rules. variant is the index in variants[]. */
	void (*start)(void *st, int variant, uint64_t seed);
	int (*parse)(void *st, const char *text, struct game_error *err);
	int (*format)(const void *st, char *buf, size_t size);
	int (*cell_format)(const void *st, int sq, char *buf, size_t size);
	int (*side_to_move)(const void *st);
	int (*ply)(const void *st);
	int (*moves)(const void *st, struct game_move *moves);
	int (*move_parse)(const void *st, const char *text, struct game_move *m,
	                  struct game_error *err);
	int (*move_format)(struct game_move m, char *buf, size_t size);
	void (*apply)(void *st, struct game_move m);
	void (*outcome)(const void *st, struct game_outcome *o); /* o is cleared, winner -1 */
	int (*over)(const void *st);
	uint64_t (*perft)(const void *st, int depth);
	int (*reserve)(const void *st, int side, int symbol); /* GAME_HAS_RESERVES, else NULL */
	uint64_t (*line)(const void *st); /* the squares of a won line (a1 bit 0), or NULL */

	/* Evaluation (eval.h) and hashing (zobrist.h). */
	int (*eval_final)(const void *st);
	int (*eval_leaf)(const void *st, int *exact);
	void (*order_init)(struct eval_order *o, const void *st); /* NULL: nothing to prepare */
	int (*move_score)(const struct eval_order *o, const void *st, struct game_move m);
	uint64_t (*hash)(const void *st, const uint64_t keys[GAME_KEYS]);
};

#endif
