/*
 * client-board.c: the board of the full-screen view, and the players' lines beside it.
 *
 * It draws a position (the game's or the replay's) with the last move, the cursor, the selection
 * and its legal squares marked, turns the board round for the player whose side starts at the
 * top (and on f), and maps clicks and cursor keys to squares. Each square reads its facts from
 * client_state_cell() (the game interface's cell text), so the same code draws both games. The
 * board's geometry (origin, cell size) is kept in struct screen by whichever page drew it last,
 * for the mouse. It reads the state and owns nothing.
 */
#include <stdio.h>
#include <string.h>

#include "client-screen.h"

/*
 * Whether the board is drawn turned round (a half turn: a1 at the top right). Its usual way has
 * the player's own side at the bottom: in HOKITO white sets up on ranks 4-6, so white sees the
 * board turned; black, spectators, replays and OXONO (no home ranks) see rank 1 at the bottom.
 * The f key turns it from there.
 */
/* Whether a kind's second side sees the board turned: HOKITO's sides start on opposite halves. */
static int
board_turns_for_second(enum game_kind kind)
{
	switch (kind) {
	case GAME_HOKITO:
		return 1;
	case GAME_OXONO:
		return 0;
	}
	return 0;
}

static int
board_turned(const struct screen *s)
{
	const struct client_table *t = &s->c->st.table;
	int own = s->page == NULL && t->active && board_turns_for_second(t->game.kind) &&
	          t->seat == 1;

	return own != s->flip;
}

/* The square drawn at a place of the board, and the place of a square: one half turn. */
static int
board_view(const struct screen *s, int sq)
{
	return board_turned(s) ? GAME_SQUARES - 1 - sq : sq;
}

/* Where a square is drawn. */
static void
square_origin(const struct screen *s, int sq, int *y, int *x)
{
	int v = board_view(s, sq);

	*y = s->by + (5 - v / 6) * s->ch;
	*x = s->bx + (v % 6) * s->cw;
}

/*
 * The squares of a move (its text, or NULL for none), for a light highlight: HOKITO from/to,
 * OXONO totem and pawn.
 */
static void
last_move_squares(enum game_kind kind, const char *m, int out[3])
{
	out[0] = out[1] = out[2] = -1;
	if (m == NULL)
		return;
	switch (kind) {
	case GAME_HOKITO: { /* "c2-e4": from and to */
		const char *dash = strrchr(m, '-');
		out[0] = game_square_parse(m);
		if (dash != NULL)
			out[1] = game_square_parse(dash + 1);
		break;
	}
	case GAME_OXONO: /* "Xc5+c6": the totem's square and the pawn's */
		if (strlen(m) >= 6) {
			out[0] = game_square_parse(m + 1);
			out[1] = game_square_parse(m + 4);
		}
		break;
	}
	for (int i = 0; i < 3; i++)
		if (out[i] < 0)
			out[i] = -1;
}

/*
 * Draw one square of g: background, piece chip, height, markers. cursor: whether the board cursor
 * (and the selection) is shown.
 */
static void
draw_square(struct screen *s, const struct game *g, int sq, const int last[3], int cursor)
{
	struct client_cell cell;
	int y, x, light = ((sq / 6) + (sq % 6)) % 2 == 1;
	int is_cursor = sq == s->cursor && cursor;
	int is_sel = cursor && (sq == s->sel || sq == s->totem_to);
	int is_dest = cursor && s->dest[sq];
	int is_last = sq == last[0] || sq == last[1];
	int is_win = s->win[sq];
	attr_t bg;
	char chip[8] = "";
	int mid;

	client_state_cell(g, sq, &cell);
	square_origin(s, sq, &y, &x);
	if (is_cursor)
		bg = client_screen_pair(s, PAIR_CURSOR);
	else if (is_sel)
		bg = client_screen_pair(s, PAIR_SELECTED);
	else if (is_dest)
		bg = client_screen_pair(s, PAIR_DEST);
	else if (is_win)
		bg = client_screen_pair(s, PAIR_WIN);
	else if (is_last && s->rich)
		bg = client_screen_pair(s, PAIR_LAST);
	else
		bg = client_screen_pair(s, light ? PAIR_LIGHT : PAIR_DARK);
	if (!s->colour && is_cursor)
		bg = A_REVERSE;
	attron(bg);
	for (int i = 0; i < s->ch; i++)
		client_screen_blank(y + i, x, s->cw);
	mid = (s->ch - 1) / 2;
	/* Cursor and selection brackets, so both show without colour too. */
	if (is_cursor || is_sel) {
		mvaddstr(y + mid, x, is_cursor ? "[" : "<");
		mvaddstr(y + mid, x + s->cw - 1, is_cursor ? "]" : ">");
	}
	if (cell.empty) {
		if (is_dest)
			client_screen_put(y + mid, x + s->cw / 2 - 1, 0, "%s",
			                  client_screen_glyph(s, " \xe2\x80\xa2", " *"));
		else if (is_last && !s->rich)
			client_screen_put(y + mid, x + s->cw / 2 - 1, 0, "%s",
			                  client_screen_glyph(s, " \xc2\xb7", " ."));
		attroff(bg);
		return;
	}
	if (cell.totem) {
		attr_t a = client_screen_pair(s, PAIR_TOTEM) | A_BOLD;
		if (!s->colour)
			a = A_BOLD | A_REVERSE;
		attron(a);
		client_screen_put(y + mid, x + (s->cw > 5 ? (s->cw - 4) / 2 : 1), 0, " %c%c ",
		                  cell.value ? 'O' : 'X', s->cw > 5 ? ' ' : '\0');
		attroff(a);
	} else {
		attr_t a = client_screen_pair(s, cell.colour ? PAIR_PAWN1 : PAIR_PAWN0) | A_BOLD;
		if (!s->colour && cell.colour == 1)
			a = A_BOLD;
		/* the owner's initial, then what the pawn is: its value, or its symbol */
		switch (g->kind) {
		case GAME_HOKITO:
			snprintf(chip, sizeof chip, "%c%d",
			         client_state_side_name(g->kind, cell.colour)[0], cell.value);
			break;
		case GAME_OXONO:
			snprintf(chip, sizeof chip, "%c%c",
			         client_state_side_name(g->kind, cell.colour)[0],
			         cell.value ? 'O' : 'X');
			break;
		}
		attron(a);
		/* a 5-column cell keeps its last column for the cursor's "]" */
		client_screen_put(y + mid, x + (s->cw > 5 ? (s->cw - 4) / 2 : 1), 0,
		                  s->cw > 5 ? " %s " : " %s", chip);
		attroff(a);
		attron(bg);
	}
	attron(bg);
	if (is_win) {
		/* the winning line, underlined on its squares' last row: it shows without colour */
		int wy = s->ch >= 3 ? y + s->ch - 1 : y + 1;
		for (int i = 1; i < s->cw - 1; i++)
			client_screen_put(wy, x + i, 0, "%s",
			                  client_screen_glyph(s, "\xe2\x95\x90", "="));
	}
	if (cell.height > 1) {
		int hy = s->ch >= 3 ? y : y + 1;
		client_screen_put(hy, x + s->cw - 3, 0, "%s%d",
		                  client_screen_glyph(s, "\xc3\x97", "x"), cell.height);
	}
	if (is_dest) {
		int my = s->ch >= 3 ? y + s->ch - 1 : y + 1;
		client_screen_put(my, x + 1, 0, "%s", client_screen_glyph(s, "\xe2\x80\xa2", "*"));
	} else if (is_last && !s->rich) {
		int my = s->ch >= 3 ? y + s->ch - 1 : y + 1;
		client_screen_put(my, x + 1, 0, "%s", client_screen_glyph(s, "\xc2\xb7", "."));
	}
	attroff(bg);
}

void
client_board_draw(struct screen *s, const struct game *g, const char *last_move, int cursor)
{
	int last[3];

	int turned = board_turned(s);

	last_move_squares(g->kind, last_move, last);
	attron(A_BOLD);
	for (int f = 0; f < 6; f++) {
		int file = 'a' + (turned ? 5 - f : f);
		client_screen_put(s->by - 1, s->bx + f * s->cw + s->cw / 2, 0, "%c", file);
		if (s->by + 6 * s->ch < LINES - 2)
			client_screen_put(s->by + 6 * s->ch, s->bx + f * s->cw + s->cw / 2, 0, "%c",
			                  file);
	}
	for (int r = 0; r < 6; r++)
		client_screen_put(s->by + (5 - r) * s->ch + (s->ch - 1) / 2, s->bx - 2, 0, "%d",
		                  (turned ? 5 - r : r) + 1);
	attroff(A_BOLD);
	for (int sq = 0; sq < GAME_SQUARES; sq++)
		draw_square(s, g, sq, last, cursor);
}

/* A small chip for a side, as on the board. */
static void
draw_side_chip(struct screen *s, int y, int x, enum game_kind kind, int side)
{
	attr_t a = client_screen_pair(s, side ? PAIR_PAWN1 : PAIR_PAWN0) | A_BOLD;
	if (!s->colour && side)
		a = A_BOLD;
	attron(a);
	client_screen_put(y, x, 0, " %c ", client_state_side_name(kind, side)[0]);
	attroff(a);
}

void
client_board_player_line(struct screen *s, int y, int px, int pw, const struct game *g, int side,
                         int tomove, const char *name)
{
	int wide = pw >= 34, nx = wide ? 13 : 6, scores = game_kind_has(g->kind, GAME_HAS_SCORES),
	    vw = scores ? 2 : 5;
	struct game_outcome o;
	int reserve[2][2];
	char buf[32];

	attron(A_BOLD);
	client_screen_put(y, px, 0, "%s",
	                  tomove ? client_screen_glyph(s, "\xe2\x96\xb6", ">") : " ");
	attroff(A_BOLD);
	draw_side_chip(s, y, px + 2, g->kind, side);
	if (wide)
		client_screen_put(y, px + 6, 0, "%-6s", client_state_side_name(g->kind, side));
	if (tomove)
		attron(A_BOLD);
	client_screen_putn_cut(s, y, px + nx, pw - nx - vw - 1, name);
	attroff(A_BOLD);
	game_outcome(g, &o);
	client_state_reserves(g, reserve);
	if (scores)
		snprintf(buf, sizeof buf, "%d", o.score[side]);
	else
		snprintf(buf, sizeof buf, "X%d O%d", reserve[side][0], reserve[side][1]);
	client_screen_put(y, px + pw - vw, 0, "%*s", vw, buf);
}

int
client_board_hit(const struct screen *s, int y, int x)
{
	if (y < s->by || x < s->bx || y >= s->by + 6 * s->ch || x >= s->bx + 6 * s->cw)
		return -1;
	return board_view(s, (5 - (y - s->by) / s->ch) * 6 + (x - s->bx) / s->cw);
}

void
client_board_cursor_move(struct screen *s, int df, int dr)
{
	int turned = board_turned(s);
	int f = s->cursor % 6 + (turned ? -df : df), r = s->cursor / 6 + (turned ? -dr : dr);

	if (f < 0)
		f = 0;
	if (f > 5)
		f = 5;
	if (r < 0)
		r = 0;
	if (r > 5)
		r = 5;
	s->cursor = r * 6 + f;
}
