/*
 * fuzz-move.c: the move parsers of both games.
 *
 * Input: one byte choosing the game (low bit) and how many moves to play first from a seeded start
 * (the other bits), then a move text. The parser must not crash; when it accepts, the move must be
 * one of the legal moves; when it refuses, it must say why.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "game.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct game_move moves[GAME_MOVES_MAX], m;
	struct game_error err;
	char text[256];
	struct game g;
	int rc;

	if (size < 1 || size > sizeof text)
		return 0;
	game_start(&g, (data[0] & 1) ? GAME_OXONO : GAME_HOKITO, NULL, data[0] >> 1, NULL);
	for (int i = 0; i < (data[0] >> 3); i++) {
		int n = game_moves(&g, moves);
		if (n == 0)
			break;
		game_apply(&g, moves[(i * 7) % n]);
	}
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	rc = game_move_parse(&g, text, &m, &err);
	if (rc == 0) {
		if (!game_move_legal(&g, m))
			abort();
		game_apply(&g, m);
	} else if (err.text[0] == '\0' ||
	           (rc != GAME_ESYNTAX && rc != GAME_EILLEGAL && rc != GAME_EOVER)) {
		abort();
	}
	return 0;
}
