/*
 * fuzz-position.c: the position parsers of both games, and what a parsed position must satisfy.
 *
 * Input: one byte choosing the game (its low bit), then the position text. Whatever the text, the
 * parser must not crash; when it accepts, the position must print back to text that parses to the
 * same text, and every move it lists must print to a text that parses back to the same move.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "game.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct game_move moves[GAME_MOVES_MAX], m;
	char text[1024], out[GAME_TEXT_MAX], again[GAME_TEXT_MAX], mt[GAME_MOVE_TEXT];
	struct game_error err;
	struct game g, h;
	struct game_outcome o;
	enum game_kind kind;
	int n;

	if (size < 1 || size > sizeof text)
		return 0;
	kind = (data[0] & 1) ? GAME_OXONO : GAME_HOKITO;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (game_parse(&g, kind, text, &err) != 0) {
		check(err.code == GAME_ESYNTAX && err.text[0] != '\0');
		check(err.pos >= -1 && err.pos <= (int)strlen(text));
		return 0;
	}
	check(game_format(&g, out, sizeof out) > 0);
	check(game_parse(&h, kind, out, &err) == 0);
	check(game_format(&h, again, sizeof again) > 0);
	check(strcmp(out, again) == 0);
	n = game_moves(&g, moves);
	check(n >= 0 && n <= GAME_MOVES_MAX);
	check((n == 0) == (game_over(&g) != 0));
	for (int i = 0; i < n && i < 64; i++) {
		check(game_move_format(kind, moves[i], mt, sizeof mt) > 0);
		check(game_move_parse(&g, mt, &m, &err) == 0);
		check(m.from == moves[i].from && m.to == moves[i].to && m.place == moves[i].place);
	}
	game_outcome(&g, &o);
	if (n > 0) {
		h = g;
		game_apply(&h, moves[n / 2]);
		check(game_format(&h, out, sizeof out) > 0);
		check(game_ply(&h) == game_ply(&g) + 1);
		game_outcome(&h, &o);
		(void)game_perft(&h, 1);
	}
	return 0;
}
