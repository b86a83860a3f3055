/*
 * client-line.c: the line that won an OXONO game, found on its board and told in words.
 *
 * The rules say who won; the player wants to see where. OXONO is won by four or more pawns in a
 * row or a column that share a colour, or a symbol whatever their colours (totems break lines).
 * This finds such a line, the one through the square of the last pawn placed when there is one,
 * marks its squares for the board and says what made it: "four pinks in a row on rank 3", "four X
 * in column c". Pure, like the state it reads: no I/O, nothing kept.
 */
#include <stdio.h>
#include <string.h>

#include "client.h"

/* What a square holds for a line: -1 nothing that counts (empty, a totem), else colour and
 * symbol. */
struct line_cell {
	int pawn, colour, symbol;
};

static struct line_cell
line_cell(const struct game *g, int sq)
{
	struct client_cell c;

	client_state_cell(g, sq, &c);
	if (c.empty || c.totem)
		return (struct line_cell){0, -1, -1};
	return (struct line_cell){1, c.colour, c.value};
}

/*
 * The longest run sharing a colour (by = 0) or a symbol (by = 1) along rank or file number k
 * (column: squares k, k + 6, ...; row: 6 k .. 6 k + 5): its first index and length.
 */
static int
line_run(const struct game *g, int column, int k, int by, int *start)
{
	int best = 0, len = 0, prev = -2;

	for (int i = 0; i < 6; i++) {
		struct line_cell c = line_cell(g, column ? k + 6 * i : 6 * k + i);
		int v = !c.pawn ? -1 : by ? c.symbol : c.colour;
		len = v >= 0 && v == prev ? len + 1 : v >= 0;
		prev = v;
		if (len > best) {
			best = len;
			*start = i - len + 1;
		}
	}
	return best;
}

int
client_line_find(const struct game *g, int through, uint8_t mask[36], char *words, size_t size)
{
	static const char *const count[] = {"", "one", "two", "three", "four", "five", "six"};
	int found = 0;

	memset(mask, 0, 36);
	if (words != NULL && size > 0)
		words[0] = '\0';
	switch (g->kind) {
	case GAME_HOKITO:
		return 0; /* no lines: stacks and scores */
	case GAME_OXONO:
		break;
	}
	/* two passes: a line through the square given first, then any */
	for (int pass = 0; pass < 2 && !found; pass++)
		for (int column = 0; column < 2 && !found; column++)
			for (int k = 0; k < 6 && !found; k++)
				for (int by = 0; by < 2 && !found; by++) {
					int start = 0, n = line_run(g, column, k, by, &start), sq0;
					int hit = 0;
					if (n < 4)
						continue;
					for (int i = start; i < start + n; i++) {
						int sq = column ? k + 6 * i : 6 * k + i;
						hit |= sq == through;
					}
					if (pass == 0 && !hit)
						continue;
					for (int i = start; i < start + n; i++)
						mask[column ? k + 6 * i : 6 * k + i] = 1;
					sq0 = column ? k + 6 * start : 6 * k + start;
					if (words != NULL) {
						struct line_cell c = line_cell(g, sq0);
						char what[16];
						if (by)
							snprintf(what, sizeof what, "%c",
							         c.symbol ? 'O' : 'X');
						else
							snprintf(what, sizeof what, "%ss",
							         c.colour ? "black" : "pink");
						if (column)
							snprintf(words, size, "%s %s in column %c",
							         count[n], what, 'a' + k);
						else
							snprintf(words, size,
							         "%s %s in a row on rank %d",
							         count[n], what, k + 1);
					}
					found = n;
				}
	return found;
}

void
client_line_reason(const struct client_table *t, uint8_t *mask, char *buf, size_t size)
{
	uint8_t m[36];
	char words[64];
	int through = -1;

	memset(m, 0, sizeof m);
	if (t->nmoves > 0 && strlen(t->moves[t->nmoves - 1]) >= 6)
		through = game_square_parse(t->moves[t->nmoves - 1] + 4);
	if (t->over && t->winner >= 0 && t->end_reason == EVENT_REASON_LINE &&
	    client_line_find(&t->game, through, m, words, sizeof words) > 0)
		snprintf(buf, size, "%s made %s.", client_state_side_name(t->kind, t->winner),
		         words);
	else
		snprintf(buf, size, "%s", t->reason);
	if (mask != NULL)
		memcpy(mask, m, 36);
}
