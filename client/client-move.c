/*
 * client-move.c: a move as a person types it, made into the notation (common/FORMATS.md).
 *
 * The rules parse one strict text ("c2-e4", "Xc5+c6"); people type "C2-E4", " c2-e4 ", "c2e4",
 * "c2 e4" or "xc5c6". Whatever reads one way only is taken: blanks go, square letters are made
 * small and an OXONO symbol capital, and the separator the notation wants is put in. Anything
 * else is left as typed, for the rules to refuse with their own words. Pure: no state, no I/O.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "client.h"

/* Whether p starts with a square name (a-f, 1-6), as tidied (small letters). */
static int
is_square(const char *p)
{
	return p[0] >= 'a' && p[0] <= 'f' && p[1] >= '1' && p[1] <= '6';
}

int
client_move_tidy(enum game_kind kind, const char *text, char *out, size_t size)
{
	char t[GAME_MOVE_TEXT + 8];
	size_t n = 0;
	const char *p;

	/* the characters that matter, blanks out, letters small */
	for (p = text; *p != '\0'; p++) {
		if (isspace((unsigned char)*p))
			continue;
		if (n + 1 >= sizeof t)
			return -1;
		t[n++] = (char)tolower((unsigned char)*p);
	}
	t[n] = '\0';
	switch (kind) {
	case GAME_HOKITO:
		/* "a2a3", "a2-a3" */
		if (n == 4 && is_square(t) && is_square(t + 2))
			return snprintf(out, size, "%.2s-%.2s", t, t + 2) < (int)size ? 0 : -1;
		if (n == 5 && is_square(t) && t[2] == '-' && is_square(t + 3))
			return snprintf(out, size, "%s", t) < (int)size ? 0 : -1;
		return -1;
	case GAME_OXONO:
		/* "xc5c6", "Xc5+c6", "x c5 + c6" */
		if ((t[0] == 'x' || t[0] == 'o') && is_square(t + 1)) {
			const char *to = t + 3;
			if (*to == '+' || *to == '-')
				to++;
			if (is_square(to) && to[2] == '\0')
				return snprintf(out, size, "%c%.2s+%.2s",
				                toupper((unsigned char)t[0]), t + 1, to) < (int)size
				               ? 0
				               : -1;
		}
		return -1;
	}
	return -1;
}
