/*
 * game-base.c: the helpers every game shares: filling an error, square names.
 *
 * The rules files (hokito.c, oxono.c, and any later game) call these and nothing of each other;
 * this module calls nothing of ours. It owns nothing, never allocates and never does I/O.
 */
#include <stdarg.h>
#include <stdio.h>

#include "game-base.h"

int
game_error_set(struct game_error *err, int code, int pos, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	err->pos = pos;
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof err->text, fmt, ap);
	va_end(ap);
	return code;
}

int
game_square_parse(const char *text)
{
	if (text[0] < 'a' || text[0] > 'f' || text[1] < '1' || text[1] > '6')
		return GAME_ESYNTAX;
	return (text[1] - '1') * 6 + (text[0] - 'a');
}

void
game_square_name(int sq, char buf[3])
{
	buf[0] = (char)('a' + sq % 6);
	buf[1] = (char)('1' + sq / 6);
	buf[2] = '\0';
}
