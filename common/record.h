/*
 * record.h: the text game record of both games (FORMATS.md, "Game records"): headers, then the
 * numbered move list, then the result, PGN-like.
 *
 * record_parse() reads a record from the caller's text and checks everything in it: the syntax
 * (strictly: one fixed header order, one way to quote, consecutive move numbers), every move by
 * replaying it through the rules (game.h), and that the stated result, reason and scores are what
 * the moves lead to. record_write() prints a record from the same struct, replaying its moves the
 * same way, so whatever it writes parses back. Pure, like all of common/: no I/O, no allocation,
 * no globals; the caller owns every buffer.
 */
#ifndef HOKITO_COMMON_RECORD_H
#define HOKITO_COMMON_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"

/*
 * A HOKITO game lasts at most 35 moves (each move empties a square and puts nothing on an empty
 * one), an OXONO game at most 32 (one pawn placed per move); 64 leaves room for both.
 */
#define RECORD_MOVES_MAX 64
#define RECORD_VALUE_MAX 129  /* bytes of a header value, unescaped, with the NUL */
#define RECORD_WORD_MAX  24   /* variant and reason words, with the NUL */
#define RECORD_TEXT_MAX  4096 /* record_write() never needs more (tests/unit/test-record.c) */

/* Error codes of this module: the game ones where they mean the same, plus a mismatch. */
enum record_errno {
	RECORD_ESYNTAX = GAME_ESYNTAX,   /* the text is not a well-formed record */
	RECORD_EILLEGAL = GAME_EILLEGAL, /* a move the rules refuse (or one after the game ended) */
	RECORD_EINVAL = GAME_EINVAL,     /* record_write(): a field of the struct is out of range */
	RECORD_ENOSPC = GAME_ENOSPC,     /* record_write(): the buffer is too small */
	RECORD_EMISMATCH = -6,           /* Result, Reason or Score disagree with the moves */
};

/* What went wrong and where, like jansson's json_error_t. */
struct record_error {
	int code;       /* one of enum record_errno */
	int line;       /* 1-based line of the record text, 0 when not about a place in a text */
	int column;     /* 1-based byte column in that line, 0 likewise */
	char text[256]; /* one sentence, no trailing newline: room for a 128-byte quote */
};

/* The result of a game as a record states it. */
enum record_result {
	RECORD_UNFINISHED = -2, /* "*": still going, or aborted before it began */
	RECORD_DRAW = -1,       /* "draw" */
	RECORD_WIN0 = 0,        /* side 0 won: "black" (HOKITO), "pink" (OXONO) */
	RECORD_WIN1 = 1,        /* side 1 won: "white" (HOKITO), "black" (OXONO) */
};

/*
 * One game record. record_parse() fills all of it; record_write() reads the fields marked "in"
 * and ignores the others.
 */
struct record {
	enum game_kind kind;              /* in */
	char variant[RECORD_WORD_MAX];    /* in: "standard" or "random36" ("" means "standard") */
	int has_position;                 /* in: 1: start from position, 0: from seed */
	uint64_t seed;                    /* in: when has_position is 0 */
	char position[GAME_TEXT_MAX];     /* in: when has_position is 1, a position text */
	char player[2][RECORD_VALUE_MAX]; /* in: display names by side, "" when unknown */
	char date[11];                    /* in: "YYYY-MM-DD", or "" */
	enum record_result result;        /* in */
	char reason[RECORD_WORD_MAX];     /* in: "" only when unfinished (see FORMATS.md) */
	int rated;                        /* in: a rated game: Rated and the rating headers */
	char rating[2][RECORD_WORD_MAX];  /* in: by side, the rating shown before ("1500?"), "" */
	char rating_diff[2][RECORD_WORD_MAX];     /* in: by side, its change shown ("+162"), "" */
	int has_score;                            /* parsed: whether the text had a Score header */
	int score[2];                             /* parsed: the Score header's values */
	struct game_move moves[RECORD_MOVES_MAX]; /* in: the moves, in order */
	size_t nmoves;                            /* in */
	struct game start;                        /* out: the start position */
	struct game final;                        /* out: the position after every move */
};

/*
 * Parse the record in text[0..len) (it need not be NUL-terminated; a NUL byte in it is an error)
 * into r, replay its moves and check its result. Returns 0; RECORD_ESYNTAX for bad text,
 * RECORD_EILLEGAL for a move the rules refuse, RECORD_EMISMATCH when Result, Reason or Score
 * disagree with the final position; err (may be NULL) says what and where. r is unspecified on
 * error. Nothing is kept from text.
 */
int record_parse(struct record *r, const char *text, size_t len, struct record_error *err);

/*
 * Write the record of r into buf (NUL-terminated): the headers (Score from the final position,
 * HOKITO only; Rated and the ratings of a rated game), then the moves, wrapped before column 80,
 * then the result. r->start and r->final are set on the way. Returns the length written;
 * RECORD_EINVAL for a field out of range (unknown variant, bad position, bad date or name, a reason
 * that does not fit the result); RECORD_EILLEGAL for an illegal move; RECORD_EMISMATCH for a result
 * the moves contradict; RECORD_ENOSPC when size is too small (RECORD_TEXT_MAX always suffices). err
 * may be NULL.
 */
int record_write(struct record *r, char *buf, size_t size, struct record_error *err);

/*
 * Check that result and reason are what the position final (reached by the moves) allows, as
 * FORMATS.md says. Returns 0 or RECORD_EMISMATCH / RECORD_EINVAL with err's sentence set (line
 * and column 0). Used by record_parse(), record_write() and the server's store.
 */
int record_result_check(const struct game *final, enum record_result result, const char *reason,
                        struct record_error *err);

/*
 * Length of the valid UTF-8 sequence at s (n >= 1 bytes left), or 0 if it is not one (a stray
 * continuation byte, an overlong form, a surrogate, past U+10FFFF, or cut short).
 */
size_t record_utf8_len(const unsigned char *s, size_t n);

/*
 * Whether the character at s, a valid UTF-8 sequence of k bytes (record_utf8_len()), is a control
 * character: U+0000..U+001F, U+007F or U+0080..U+009F (C1). The one definition: the protocol's
 * names and chat lines use it too.
 */
int record_utf8_control(const unsigned char *s, size_t k);

/* The token of a result: "black", "white", "pink", "draw" or "*". Returns a static string. */
const char *record_result_name(enum game_kind kind, enum record_result result);

#endif
