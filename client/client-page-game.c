/*
 * client-page-game.c: the page of a game we play or watch (client_page_game).
 *
 * The board with its side panel (players, turn, clocks, scores or reserves, moves, spectators,
 * the chat), the overlays of the game (the stack under the cursor, the chat log, the game-over
 * box) and its key hints; and its keys: the cursor and the selection (a move is made on the board
 * in two steps, or three for OXONO, each checked against the position before it is sent), the
 * match keys (draws, abort, claims, rematch), resigning, chatting, leaving. The server judges
 * every move and request; this page only asks, through client_request_*, and never changes the
 * client's state.
 */
#include <stdio.h>
#include <string.h>

#include "client-screen.h"
#include "protocol.h"

/*
 * A chat pane's lines (kibitz: the spectators' chat) in rows rows from (y, x), w columns wide:
 * each line "NAME: TEXT" wrapped at spaces, its continuation indented by two columns, the newest
 * at the bottom. An older line that does not fit whole is left out; the newest, if it does not
 * fit, shows its beginning and ends in an ellipsis. Returns the rows it takes (or would take,
 * when draw is 0).
 */
/* The columns of a move's text in the move list: "c2-e4", "Xc5+c6". */
static int
move_width(enum game_kind kind)
{
	switch (kind) {
	case GAME_HOKITO:
		return 5;
	case GAME_OXONO:
		return 6;
	}
	return GAME_MOVE_TEXT - 1;
}

static int
chat_layout(const struct screen *s, const struct client_table *t, int kibitz, int y, int rows,
            int x, int w, int draw)
{
	const char *more = client_screen_glyph(s, "\xe2\x80\xa6", "...");
	char text[CLIENT_NAME_MAX + CLIENT_CHAT_TEXT + 4];
	int bottom = y + rows; /* lines below it are taken */

	for (int i = 0; bottom > y && w > 4; i++) {
		const struct client_chat *l = client_state_chat_get(t, kibitz, i);
		const char *p, *next;
		int n = 0, row, top;

		if (l == NULL)
			break;
		snprintf(text, sizeof text, "%s: %s", l->name, l->text);
		for (p = text; *p != '\0'; p = next, n++)
			client_screen_wrap_line(p, n ? w - 2 : w, &next);
		if (n > bottom - y && i > 0)
			break;
		top = row = n > bottom - y ? y : bottom - n;
		for (p = text, n = 0; draw && *p != '\0' && row < bottom; p = next, n++, row++) {
			int len = client_screen_wrap_line(p, n ? w - 2 : w, &next), ind = n ? 2 : 0;
			char piece[sizeof text];
			snprintf(piece, sizeof piece, "%.*s", len, p);
			if (row == bottom - 1 && *next != '\0') {
				/* the newest line, cut: its last row ends in an ellipsis */
				int room = w - ind - client_screen_text_width(more);
				piece[client_screen_clip(piece, room)] = '\0';
				client_screen_putn(row, x + ind, room, piece);
				addstr(more);
			} else {
				client_screen_putn(row, x + ind, w - ind, piece);
			}
		}
		bottom = top;
	}
	return y + rows - bottom;
}

/* A chat pane's lines from its top row down, as many as rows rows take (chat_layout()). */
static void
draw_chat(const struct screen *s, const struct client_table *t, int kibitz, int y, int rows, int x,
          int w)
{
	chat_layout(s, t, kibitz, y, chat_layout(s, t, kibitz, y, rows, x, w, 0), x, w, 1);
}

/*
 * The side panel of the game screen. A narrow one (a 64-column terminal) leaves out the side
 * names beside the chips and keeps a smaller score column, so that the players' names show; a
 * short one (fewer than 24 lines) leaves out the blank lines and puts the spectators on one line.
 * A line with keys in it that does not fit is written without them: the hints bar has them.
 */
static void
draw_panel(struct screen *s, int px, int pw)
{
	struct client *c = s->c;
	const struct client_table *t = &c->st.table;
	int y = 2, side = game_side(&t->game);
	int wide = pw >= 34, tall = LINES >= 24;
	int nx = wide ? 13 : 6, sw = wide ? 10 : 7; /* name column, score heading width */
	uint64_t now = uv_now(c->loop);
	char buf[256], longer[320];

	attron(A_BOLD);
	client_screen_put(y, px, pw, "%s", game_kind_title(t->kind));
	attroff(A_BOLD);
	client_screen_put(y, px + (int)strlen(game_kind_title(t->kind)) + 1, pw - 7,
	                  "%s%s %s game %s", t->variant, t->rated ? " rated" : "",
	                  client_screen_glyph(s, "\xc2\xb7", "-"), t->id);
	if (t->invite[0]) {
		y++;
		client_screen_put(y, px, pw, "invite code ");
		attron(A_BOLD);
		client_screen_put(y, px + 12, pw - 12, "%s", t->invite);
		attroff(A_BOLD);
	}
	y += tall ? 2 : 1;
	attron(A_DIM);
	client_screen_put(y, px + 2, 0, "Player");
	client_screen_put(y, px + pw - sw, 0, "%*s", sw,
	                  game_kind_has(t->kind, GAME_HAS_SCORES) ? "Score" : "Reserve");
	attroff(A_DIM);
	y++;
	for (int i = 0; i < 2; i++) {
		const struct client_seat *seat = &t->seats[i];
		int tomove = !t->over && t->started && side == i;
		char who[CLIENT_NAME_MAX + 24];
		client_state_seat_text(t, i, who, sizeof who);
		snprintf(buf, sizeof buf, "%s%s", who, t->seat == i ? " (you)" : "");
		client_board_player_line(s, y, px, pw, &t->game, i, tomove, buf);
		y++;
		if (t->timed) {
			int64_t ms = client_state_clock(t, i, now);
			int low = ms < CLIENT_LOW_TIME_MS && t->started && !t->over;
			char ct[24];
			client_state_clock_text(ms, ct, sizeof ct);
			attr_t a = low ? (client_screen_pair(s, PAIR_ERROR) | A_BOLD)
			               : (tomove ? A_BOLD : A_NORMAL);
			attron(a);
			client_screen_put(y, px + 2, 0, "%s %s%s",
			                  client_screen_glyph(s, "\xe2\x8f\xb1", "@"), ct,
			                  low ? "  low time!" : "");
			attroff(a);
			y++;
		}
		/* our own seat is here, whatever the state of a finished game says */
		if (seat->name[0] && !seat->connected && t->seat != i) {
			attron(client_screen_pair(s, PAIR_ERROR) | A_BOLD);
			if (t->over)
				client_screen_put(y, px + nx, pw - nx, "offline");
			else if (seat->grace_over)
				client_screen_putn_fit(y, px + nx, pw - nx,
				                       t->seat == !i && seat->claimable
				                               ? "offline, grace over: c/C claim"
				                               : "offline, grace over",
				                       "offline, grace over");
			else {
				int64_t grace = client_state_grace(t, i, now); /* up to INT64_MAX */
				client_screen_put(y, px + nx, pw - nx, "offline, %lld s grace",
				                  (long long)(grace / 1000 + (grace % 1000 != 0)));
			}
			attroff(client_screen_pair(s, PAIR_ERROR) | A_BOLD);
			y++;
		}
	}
	y += tall;
	/* Whose turn. */
	if (t->over) {
		client_state_result_text(t, buf, sizeof buf);
		snprintf(longer, sizeof longer, "Game over: %s", buf);
		attron(A_BOLD | client_screen_pair(s, PAIR_GOOD));
		client_screen_putn_fit(y, px, pw, longer, buf);
		attroff(A_BOLD | client_screen_pair(s, PAIR_GOOD));
		/* a rated game: each player's rating change, "alice 1500? -> 1662?, +162" */
		for (int i = 0; i < 2 && t->change[i].has; i++) {
			client_state_change_text(t, i, buf, sizeof buf);
			client_screen_putn_cut(s, ++y, px, pw, buf);
		}
	} else if (!t->started) {
		attron(A_BOLD);
		client_screen_put(y, px, pw, "Waiting for an opponent%s",
		                  client_screen_glyph(s, "\xe2\x80\xa6", "..."));
		attroff(A_BOLD);
	} else if (t->adjourned) {
		attron(A_BOLD | client_screen_pair(s, PAIR_ERROR));
		client_screen_putn_fit(y, px, pw, "Adjourned: waiting for both players",
		                       "Adjourned");
		attroff(A_BOLD | client_screen_pair(s, PAIR_ERROR));
	} else if (client_state_our_turn(&c->st)) {
		attron(A_BOLD | client_screen_pair(s, PAIR_GOOD));
		client_screen_put(y, px, pw, "Your move (%s)",
		                  client_state_side_name(t->kind, side));
		attroff(A_BOLD | client_screen_pair(s, PAIR_GOOD));
	} else if (t->seats[side].computer) {
		/* the server's computer searches: say so, or its silence looks like a hang */
		const char *dots = client_screen_glyph(s, "\xe2\x80\xa6", "...");
		snprintf(longer, sizeof longer, "%s to move: the computer is thinking%s",
		         client_state_side_name(t->kind, side), dots);
		snprintf(buf, sizeof buf, "The computer is thinking%s", dots);
		attron(A_BOLD);
		client_screen_putn_fit(y, px, pw, longer, buf);
		attroff(A_BOLD);
	} else {
		attron(A_BOLD);
		client_screen_put(y, px, pw, "%s to move%s", client_state_side_name(t->kind, side),
		                  t->seat < 0 ? "  (watching)" : "");
		attroff(A_BOLD);
	}
	y++;
	/* Offers standing: a line of their own on a tall terminal, only when there is one on a
	 * short one. */
	{
		int offer = t->over ? t->rematch_offer : t->draw_offer;
		const char *what = t->over ? "rematch" : "draw";
		int shown = 1;
		if (offer >= 0)
			snprintf(buf, sizeof buf, "%s offers a %s",
			         client_state_side_name(t->kind, offer), what);
		if (c->held.move[0] || c->held.failed[0]) {
			/* a move typed while the connection was down: here, no notice of the
			 * reconnection overwrites what became of it */
			if (c->held.move[0])
				snprintf(longer, sizeof longer, "%s is kept: sent once connected",
				         c->held.move);
			attron(A_BOLD | client_screen_pair(s, PAIR_ERROR));
			client_screen_putn_cut(s, y, px, pw,
			                       c->held.move[0] ? longer : c->held.failed);
			attroff(A_BOLD | client_screen_pair(s, PAIR_ERROR));
		} else if (t->over && t->rematch_game[0]) {
			client_screen_put(y, px, pw, "Rematch: game %s", t->rematch_game);
		} else if (offer >= 0 && t->seat >= 0 && offer != t->seat) {
			snprintf(longer, sizeof longer, "%s: %s accept, x decline", buf,
			         t->over ? "n" : "a");
			attron(A_BOLD | client_screen_pair(s, PAIR_GOOD));
			client_screen_putn_fit(y, px, pw, longer, buf);
			attroff(A_BOLD | client_screen_pair(s, PAIR_GOOD));
		} else if (offer >= 0) {
			client_screen_putn(y, px, pw, buf);
		} else {
			shown = 0;
		}
		y += shown || tall;
	}
	/*
	 * Moves, two a row, the latest visible; the chat panes below them, down to the line above
	 * the spectators (LINES - 6, or LINES - 4 on a short terminal). What is above depends on
	 * the game (an invite code, clocks, an offline line), so the room is shared out: first the
	 * blank line above the spectators goes, then the chat panes shrink to their heading and one
	 * line, then the spectators' chat goes, then the players' chat, so that the heading and the
	 * latest moves always show.
	 */
	int chat_rows = tall ? 4 : 2, kibitz_rows = t->seat < 0 ? (tall ? 3 : 2) : 0;
	int spect_y = tall ? LINES - 6 : LINES - 4, end = spect_y - 1;
	while (end - y - chat_rows - kibitz_rows < 2) {
		if (end < spect_y)
			end++;
		else if (chat_rows > 2)
			chat_rows--;
		else if (kibitz_rows > 2)
			kibitz_rows--;
		else if (kibitz_rows > 0)
			kibitz_rows = 0;
		else if (chat_rows > 0)
			chat_rows = 0;
		else
			break;
	}
	/*
	 * Rows the moves do not need yet (they take their heading, one row for two moves and a
	 * blank line) go to the chat panes, shared out between them.
	 */
	int spare =
	        end - y - chat_rows - kibitz_rows - (2 + (t->nmoves > 2 ? (t->nmoves + 1) / 2 : 1));
	if (spare > 0 && chat_rows > 0) {
		int to_kibitz = kibitz_rows > 0 ? spare / 2 : 0;
		kibitz_rows += to_kibitz;
		chat_rows += spare - to_kibitz;
	} else if (spare < 0 && chat_rows > 2) {
		/* the moves want more: the players' chat keeps its heading and a line (its lines
		 * are on the status line, and whole in the log, T) */
		chat_rows -= -spare < chat_rows - 2 ? -spare : chat_rows - 2;
	}
	int bottom = end - chat_rows - kibitz_rows;
	attron(A_BOLD);
	if (y < bottom)
		client_screen_put(y, px, pw, "Moves");
	attroff(A_BOLD);
	y++;
	int rows = (t->nmoves + 1) / 2, room = bottom - y;
	int first = rows > room ? rows - room : 0;
	if (t->nmoves == 0 && y < bottom) {
		attron(A_DIM);
		client_screen_put(y, px + 1, pw, "%s", t->over ? "none" : "none yet");
		attroff(A_DIM);
	}
	if (rows > room && room > 0) {
		/* more moves than rows (an 80x24 terminal): several numbered moves a row, tight
		 * (the numbers as wide as the last one's), so that the room shows as many moves as
		 * it can, the latest last */
		int mw = move_width(t->kind), nw = t->nmoves >= 100 ? 3 : 2;
		int cellw = nw + 1 + mw + 1;
		int ncol = (pw + 1) / cellw > 1 ? (pw + 1) / cellw : 1;
		int lines = (t->nmoves + ncol - 1) / ncol, top = lines > room ? lines - room : 0;
		for (int l = top; l < lines && y < bottom; l++, y++)
			for (int k = 0; k < ncol && l * ncol + k < t->nmoves; k++) {
				int i = l * ncol + k;
				client_screen_put(y, px + k * cellw, cellw - 1, "%*d %s", nw, i + 1,
				                  t->moves[i]);
			}
		first = rows;
	}
	/* a move is one player's, numbered as the moves are counted (Viewing move 12 of 30) */
	for (int r = first; r < rows && y < bottom; r++, y++)
		for (int k = 0; k < 2 && 2 * r + k < t->nmoves; k++)
			client_screen_put(y, px + 14 * k, 0, "%3d %s", 2 * r + k + 1,
			                  t->moves[2 * r + k]);
	/* The chat pane: players' chat, and (to spectators) the spectators' chat apart. */
	y = bottom;
	for (int k = 0; k < 2; k++) {
		int nrows = k ? kibitz_rows : chat_rows;
		if (nrows == 0)
			continue;
		attron(A_BOLD);
		client_screen_put(y, px, pw, "%s",
		                  k ? "Spectators' chat (T log)" : "Chat (t talk, T log)");
		attroff(A_BOLD);
		draw_chat(s, t, k, y + 1, nrows - 1, px + 1, pw - 1);
		y += nrows;
	}
	/* Spectators: their names below the heading, or after it on a short terminal. */
	y = spect_y;
	snprintf(longer, sizeof longer, "Spectators (%d)%s", t->nspectators, tall ? "" : ":");
	attron(A_BOLD);
	client_screen_putn(y, px, pw, longer);
	attroff(A_BOLD);
	client_state_spectators_text(t, buf, sizeof buf);
	{
		int sx = tall ? 1 : (int)strlen(longer) + 1;
		client_screen_putn_cut(s, tall ? y + 1 : y, px + sx, pw - sx,
		                       t->nspectators ? buf : "none");
	}
	/* The square under the cursor, with its whole stack. */
	{
		struct client_cell cell;
		char name[3];
		client_state_cell(&t->game, s->cursor, &cell);
		game_square_name(s->cursor, name);
		y = tall ? LINES - 4 : LINES - 3;
		attron(A_BOLD);
		client_screen_put(y, px, 0, "%s", name);
		attroff(A_BOLD);
		if (cell.empty)
			client_screen_put(y, px + 3, pw - 3, "empty");
		else if (game_kind_has(t->kind, GAME_HAS_STACKS) && cell.height == 1)
			client_screen_put(y, px + 3, pw - 3, "%s  (1 pawn, top %c%d)", cell.text,
			                  cell.colour ? 'w' : 'b', cell.value);
		else if (game_kind_has(t->kind, GAME_HAS_STACKS)) {
			/* a stack: its height, its top and what it is worth to its owner, not the
			 * run of its pawns' letters (s shows them) */
			snprintf(longer, sizeof longer, "%d high, top %c%d, worth %d to %s",
			         cell.height, cell.colour ? 'w' : 'b', cell.value,
			         cell.height * cell.value,
			         client_state_side_name(t->kind, cell.colour));
			snprintf(buf, sizeof buf, "%d high, top %c%d, %d to %c", cell.height,
			         cell.colour ? 'w' : 'b', cell.value, cell.height * cell.value,
			         cell.colour ? 'W' : 'B');
			client_screen_putn_fit(y, px + 3, pw - 3, longer, buf);
		} else if (cell.totem)
			client_screen_put(y, px + 3, pw - 3, "totem %c", cell.value ? 'O' : 'X');
		else
			client_screen_put(y, px + 3, pw - 3, "%s pawn %c",
			                  client_state_side_name(t->kind, cell.colour),
			                  cell.value ? 'O' : 'X');
	}
}

/*
 * The rows of chat log line l (from the spectators' chat when kibitz) in w columns: "NAME: TEXT"
 * (a spectator's "NAME (spectator): TEXT") wrapped at spaces, its continuation indented by two
 * columns. Draws them from row y, skipping the first skip rows and stopping at row bottom, when
 * draw is set. Returns the rows the line takes.
 */
static int
chatlog_line(const struct client_chat *l, int kibitz, int w, int y, int skip, int bottom, int x,
             int draw)
{
	char text[CLIENT_NAME_MAX + CLIENT_CHAT_TEXT + 16], piece[sizeof text];
	const char *p, *next;
	int n = 0;

	snprintf(text, sizeof text, "%s%s: %s", l->name, kibitz ? " (spectator)" : "", l->text);
	for (p = text; *p != '\0'; p = next, n++) {
		int ind = n ? 2 : 0, len = client_screen_wrap_line(p, w - ind, &next);
		int row = y + n - skip;
		if (!draw || n < skip || row >= bottom)
			continue;
		snprintf(piece, sizeof piece, "%.*s", len, p);
		if (kibitz)
			attron(A_DIM);
		client_screen_putn(row, x + ind, w - ind, piece);
		attroff(A_DIM);
	}
	return n;
}

/*
 * The chat log overlay (T): every chat line kept (the last CLIENT_CHAT_KEEP of each chat), the
 * players' and, to a spectator, the spectators' in the order they came, each whole, the newest
 * at the bottom. The side panel may have no room for the chat pane (a 64x18 terminal at a
 * timed game) or cut a long line to one row, and the status line shows a line until the next
 * notice: here every line can be read whole, and again. Up/Down and PgUp/PgDn scroll back and
 * forth; any other key closes it.
 */
static void
draw_chatlog(struct screen *s)
{
	const struct client_table *t = &s->c->st.table;
	int y = 1, x = 1, h = LINES - 3, w = COLS - 2, room = h - 2, iw = w - 4;
	int total = 0, kibitz, first, row, skip, i;
	const struct client_chat *l;

	for (i = 0; (l = client_state_chat_log(t, i, &kibitz)) != NULL; i++)
		total += chatlog_line(l, kibitz, iw, 0, 0, 0, 0, 0);
	if (s->chatlog_back > total - room)
		s->chatlog_back = total > room ? total - room : 0;
	if (s->chatlog_back < 0)
		s->chatlog_back = 0;
	client_screen_frame(s, y, x, h, w, "Chat log");
	if (total == 0) {
		attron(A_DIM);
		client_screen_put(y + 1, x + 2, iw, "No chat yet: t to talk.");
		attroff(A_DIM);
	}
	/* the rows shown: from first, counted from the top of the oldest line */
	first = total - room - s->chatlog_back;
	if (first < 0)
		first = 0;
	row = 0;
	for (i--; i >= 0; i--) {
		l = client_state_chat_log(t, i, &kibitz);
		int n = chatlog_line(l, kibitz, iw, 0, 0, 0, 0, 0);
		if (row + n > first) {
			skip = first > row ? first - row : 0;
			chatlog_line(l, kibitz, iw, y + 1 + row + skip - first, skip, y + 1 + room,
			             x + 2, 1);
		}
		row += n;
		if (row >= first + room)
			break;
	}
	if (total > room) {
		attron(A_BOLD);
		client_screen_put(y + h - 1, x + 2, iw, " %s%s ",
		                  first > 0 ? "Up: older" : "the first line",
		                  s->chatlog_back > 0 ? ", Down: newer" : "");
		attroff(A_BOLD);
	}
	{
		static const char *const keys[] = {"Up/Down",       "scroll", "PgUp/PgDn", "page",
		                                   "any other key", "close",  NULL};
		client_screen_hints(keys);
	}
}

/* The stack overlay: the whole stack on the cursor square, top first. */
static void
draw_stack(struct screen *s)
{
	const struct client_table *t = &s->c->st.table;
	struct client_cell cell;
	char name[3], title[32];
	int h, w = 30, y, x;

	client_state_cell(&t->game, s->cursor, &cell);
	game_square_name(s->cursor, name);
	h = (cell.empty || !game_kind_has(t->kind, GAME_HAS_STACKS) ? 1 : cell.height) + 5;
	y = s->by + 1;
	x = s->bx + 3;
	snprintf(title, sizeof title, "Stack on %s", name);
	client_screen_frame(s, y, x, h, w, title);
	if (cell.empty || !game_kind_has(t->kind, GAME_HAS_STACKS)) {
		client_screen_put(y + 2, x + 2, w - 4, "%s",
		                  cell.empty ? "empty square" : cell.text);
	} else {
		int len = (int)strlen(cell.text);
		for (int i = 0; i < cell.height; i++) {
			const char *p = cell.text + len - 2 * (i + 1);
			int colour = p[0] == 'w';
			attr_t a = client_screen_pair(s, colour ? PAIR_PAWN1 : PAIR_PAWN0) | A_BOLD;
			if (!s->colour && colour)
				a = A_BOLD;
			client_screen_put(y + 2 + i, x + 2, 0, "%-7s",
			                  i == 0                 ? "top"
			                  : i == cell.height - 1 ? "bottom"
			                                         : "");
			attron(a);
			client_screen_put(y + 2 + i, x + 10, 0, " %c%c ", colour ? 'W' : 'B', p[1]);
			attroff(a);
			client_screen_put(y + 2 + i, x + 15, 0, "%s %c", colour ? "white" : "black",
			                  p[1]);
		}
		client_screen_put(y + 2 + cell.height, x + 2, w - 4, "worth %d to %s",
		                  cell.value * cell.height, cell.colour ? "White" : "Black");
	}
	attron(A_DIM);
	client_screen_put(y + h - 2, x + 2, w - 4, "any key to close");
	attroff(A_DIM);
}

static void
draw_over(struct screen *s)
{
	const struct client_table *t = &s->c->st.table;
	static const char keys_one[] = "Enter lobby  v replay  Esc board";
	char buf[128], lines[3][64], reason[200];
	int w = 6 * s->cw, n, h, y, x = s->bx, keys, rated;

	client_state_result_text(t, buf, sizeof buf);
	client_line_reason(t, NULL, reason, sizeof reason); /* what made an OXONO line */
	n = client_screen_wrap(reason, w - 4, lines, 2);
	if (game_kind_has(t->kind, GAME_HAS_SCORES) && !t->aborted &&
	    t->outcome.end == GAME_END_NONE)
		/* not won by the scores: they are told apart, as scores */
		snprintf(lines[n++], sizeof lines[0], "score: %s %d, %s %d",
		         game_side_name(t->kind, 0), t->outcome.score[0],
		         game_side_name(t->kind, 1), t->outcome.score[1]);
	/* the keys on one line, or on two when the box is narrow (a 64-column terminal) */
	keys = (int)strlen(keys_one) <= w - 4;
	/* a rated game: our rating's change under who won */
	rated = t->seat >= 0 && t->change[t->seat].has;
	h = 7 + n + (t->seat >= 0) + rated + !keys;
	y = s->by + (6 * s->ch - h) / 2;
	client_screen_frame(s, y, x, h, w, "Game over");
	attron(A_BOLD | client_screen_pair(s, PAIR_GOOD));
	client_screen_putn(y + 2, x + 2, w - 4, buf);
	attroff(A_BOLD | client_screen_pair(s, PAIR_GOOD));
	for (int i = 0; i < n; i++)
		client_screen_putn(y + 3 + i, x + 2, w - 4, lines[i]);
	if (t->seat >= 0) {
		attron(A_BOLD);
		client_screen_putn(y + 4 + n, x + 2, w - 4,
		                   t->winner < 0          ? "Nobody won."
		                   : t->winner == t->seat ? "You won!"
		                                          : "You lost.");
		attroff(A_BOLD);
	}
	if (rated) {
		const struct client_rating_change *ch = &t->change[t->seat];
		double diff = ch->after - ch->before;
		client_screen_put(y + 5 + n, x + 2, w - 4, "Rating %s -> %s, %+.0f",
		                  ch->before_shown, ch->after_shown,
		                  diff > -0.5 && diff < 0.5 ? 0.0 : diff);
	}
	attron(A_DIM);
	if (keys) {
		client_screen_putn(y + h - 2, x + 2, w - 4, keys_one);
	} else {
		client_screen_putn(y + h - 3, x + 2, w - 4, "Enter lobby  v replay");
		client_screen_putn(y + h - 2, x + 2, w - 4, "Esc board");
	}
	attroff(A_DIM);
}

/*
 * The game's key hints: only the keys that do something for this viewer (a seat or a spectator)
 * in this state of the game, the ones a player needs now first. Every key is in the ? help.
 */
static void
draw_game_hints(struct screen *s)
{
	const struct client_table *t = &s->c->st.table;
	struct hints h = {{NULL}, 0};
	int seated = t->seat >= 0, our_turn = client_state_our_turn(&s->c->st);
	int opponent_gone = seated && t->started && !t->over && t->seats[!t->seat].name[0] &&
	                    !t->seats[!t->seat].connected && t->seats[!t->seat].claimable;

	if (t->over) {
		if (seated && !t->rematch_game[0] && t->rematch_offer >= 0 &&
		    t->rematch_offer != t->seat) {
			client_screen_hint_add(&h, "n", "accept rematch");
			client_screen_hint_add(&h, "x", "decline");
		}
		if (!seated && t->rematch_game[0] && !t->private_game)
			client_screen_hint_add(&h, "w", "watch rematch");
		client_screen_hint_add(&h, "Enter", "lobby");
		if (seated && !t->rematch_game[0] && t->rematch_offer < 0)
			client_screen_hint_add(&h, "n", "rematch");
		client_screen_hint_add(&h, "v", "replay");
		if (!s->over_hidden)
			client_screen_hint_add(&h, "Esc", "board");
		client_screen_hint_add(&h, "t", "chat");
		if (!seated)
			client_screen_hint_add(&h, "s", "stack");
		client_screen_hint_add(&h, "Q", "quit");
	} else if (!seated || !t->started) {
		/* watching, or seated at a game still waiting for its opponent */
		client_screen_hint_add(&h, "arrows", "cursor");
		client_screen_hint_add(&h, "s", "stack");
		client_screen_hint_add(&h, "t", "chat");
		client_screen_hint_add(&h, "q", "leave");
		client_screen_hint_add(&h, "f", "flip");
		client_screen_hint_add(&h, "Q", "quit");
	} else {
		if (opponent_gone) {
			client_screen_hint_add(&h, "c", "claim win");
			client_screen_hint_add(&h, "C", "claim draw");
		}
		if (t->draw_offer >= 0 && t->draw_offer != t->seat) {
			client_screen_hint_add(&h, "a", "accept draw");
			client_screen_hint_add(&h, "x", "decline");
		}
		if (our_turn) {
			client_screen_hint_add(&h, "Enter", "select");
			client_screen_hint_add(&h, "arrows", "cursor");
			client_screen_hint_add(&h, ":", "type");
		} else {
			client_screen_hint_add(&h, "arrows", "cursor");
		}
		client_screen_hint_add(&h, "r", "resign");
		/* no offers in an adjourned game, nor to the computer (it takes none) */
		if (t->draw_offer < 0 && !t->adjourned && !t->seats[!t->seat].computer)
			client_screen_hint_add(&h, "d", "draw");
		client_screen_hint_add(&h, "t", "chat");
		if (!our_turn) {
			client_screen_hint_add(&h, "s", "stack");
			client_screen_hint_add(&h, "f", "flip");
		}
	}
	client_screen_hint_add(&h, "?", "help");
	client_screen_hints(h.pairs);
}

/*
 * The position after the first ply moves of the game at the table: from its start, which the
 * game's record gives (asked for when stepping back began), through the moves the client has.
 * Returns 0, or -1 while the record has not come.
 */
static int
back_position(const struct screen *s, int ply, struct game *g)
{
	const struct client *c = s->c;
	const struct client_table *t = &c->st.table;

	if (!c->replay.active || strcmp(c->replay.id, t->id) != 0)
		return -1;
	*g = c->replay.rec.start;
	for (int i = 0; i < ply && i < t->nmoves; i++) {
		struct game_move m;
		struct game_error err;
		if (game_move_parse(g, t->moves[i], &m, &err) < 0)
			return -1;
		game_apply(g, m);
	}
	return 0;
}

/* Stepping back: the earlier position, without the cursor, and a mark above it that says so. */
static void
draw_back(struct screen *s)
{
	const struct client_table *t = &s->c->st.table;
	struct game g;
	int ok = back_position(s, s->back_ply, &g) == 0;

	client_board_draw(s, ok ? &g : &t->game,
	                  ok && s->back_ply > 0 ? t->moves[s->back_ply - 1] : NULL, 0);
	attron(A_BOLD | A_REVERSE);
	if (ok)
		client_screen_put(1, 1, COLS - 2,
		                  " Viewing move %d of %d: [ ] step, End or a move key: live ",
		                  s->back_ply, t->nmoves);
	else
		client_screen_put(1, 1, COLS - 2, " Asking for the game's start%s ",
		                  client_screen_glyph(s, "\xe2\x80\xa6", "..."));
	attroff(A_BOLD | A_REVERSE);
}

/*
 * Step back (or on) to the position after ply moves; at the live position or past it, the live
 * one again. The game's start comes with its record, asked for once.
 */
static void
back_to(struct screen *s, int ply)
{
	struct client *c = s->c;
	const struct client_table *t = &c->st.table;

	if (ply >= t->nmoves) {
		if (s->back_ply >= 0)
			client_state_notice(&c->st, 0, "Back to the live position.");
		s->back_ply = -1;
		return;
	}
	if (ply < 0)
		ply = 0;
	if ((!c->replay.active || strcmp(c->replay.id, t->id) != 0) && s->back_ply < 0)
		client_request_record(c, t->id);
	client_screen_select_clear(s);
	s->back_ply = ply;
}

static void
draw_game(struct screen *s)
{
	const struct client_table *t = &s->c->st.table;
	int big = LINES >= 24 && COLS >= 3 + 36 + 2 + PANEL_MIN;
	char reason[200];
	int px, pw;

	s->cw = big || COLS >= 3 + 36 + 2 + PANEL_MIN ? 6 : 5;
	s->ch = LINES >= 24 ? 3 : 2;
	/* a large terminal gets larger squares, with the whole side panel beside them */
	if (LINES >= 3 + 6 * 5 + 8 && COLS >= 3 + 6 * 10 + 3 + 46) {
		s->cw = 10;
		s->ch = 5;
	} else if (LINES >= 3 + 6 * 4 + 8 && COLS >= 3 + 6 * 8 + 3 + 40) {
		s->cw = 8;
		s->ch = 4;
	}
	s->by = 3;
	s->bx = 3;
	px = s->bx + 6 * s->cw + 3;
	pw = COLS - px - 1;
	if (pw > 46)
		pw = 46;
	client_screen_kind_colours(s, t->kind);
	if (t->over && s->back_ply < 0) /* an OXONO line that won: marked on the board */
		client_line_reason(t, s->win, reason, sizeof reason);
	else
		memset(s->win, 0, sizeof s->win);
	if (s->back_ply >= 0)
		draw_back(s);
	else
		client_board_draw(s, &t->game, t->nmoves > 0 ? t->moves[t->nmoves - 1] : NULL, 1);
	draw_panel(s, px, pw);
	if (s->stack)
		draw_stack(s);
	if (s->chatlog) {
		draw_chatlog(s);
		return;
	}
	if (t->over && !s->over_hidden && !s->stack && !s->help && s->back_ply < 0)
		draw_over(s);
	draw_game_hints(s);
}

void
client_page_game_move(struct screen *s, const char *text)
{
	struct client *c = s->c;
	char canon[GAME_MOVE_TEXT], why[256], tidy[GAME_MOVE_TEXT];

	if (client_move_tidy(c->st.table.kind, text, tidy, sizeof tidy) == 0)
		text = tidy;
	if (client_state_move_check(&c->st, text, canon, sizeof canon, why, sizeof why) < 0) {
		client_state_notice(&c->st, 1, "%s", why);
		client_screen_bell(s);
		return;
	}
	client_screen_select_clear(s);
	if (client_request_move(c, canon) == 0)
		client_state_notice(&c->st, 0, "Sent %s", canon);
}

/* Enter (or a click) on a board square: select, choose a destination, or refuse with why. */
static void
board_choose(struct screen *s, int sq)
{
	struct client *c = s->c;
	const struct client_table *t = &c->st.table;
	char why[256], a[3], b[3], text[GAME_MOVE_TEXT];

	if (t->over || t->seat < 0) {
		s->stack = 1;
		return;
	}
	if (s->sel < 0 || (s->sel == sq && s->totem_to < 0)) {
		if (s->sel == sq) {
			client_screen_select_clear(s);
			return;
		}
		if (client_state_selectable(&c->st, sq, why, sizeof why) < 0) {
			client_state_notice(&c->st, 1, "%s", why);
			client_screen_bell(s);
			return;
		}
		s->sel = sq;
		client_state_destinations(&t->game, sq, -1, s->dest);
		game_square_name(sq, a);
		client_state_notice(&c->st, 0,
		                    "%s selected: pick a highlighted square (Esc cancels).", a);
		return;
	}
	game_square_name(s->sel, a);
	game_square_name(sq, b);
	switch (t->kind) {
	case GAME_HOKITO: {
		struct client_cell cell;
		client_state_cell(&t->game, sq, &cell);
		if (!cell.empty && cell.colour == t->seat && !s->dest[sq] &&
		    client_state_selectable(&c->st, sq, why, sizeof why) == 0) {
			/* Another of our own pieces: switch the selection to it. */
			client_screen_select_clear(s);
			board_choose(s, sq);
			return;
		}
		snprintf(text, sizeof text, "%s-%s", a, b);
		client_page_game_move(s, text);
		return;
	}
	case GAME_OXONO:
		break; /* the totem's square, then the pawn's: below */
	}
	/* OXONO: the totem first, then the pawn square. */
	int symbol = client_state_totem(&t->game, 1) == s->sel;
	if (s->totem_to < 0) {
		if (sq == client_state_totem(&t->game, !symbol) &&
		    client_state_selectable(&c->st, sq, why, sizeof why) == 0) {
			client_screen_select_clear(s);
			board_choose(s, sq);
			return;
		}
		if (!s->dest[sq]) {
			client_state_notice(&c->st, 1,
			                    "Totem %c cannot go to %s: it moves in a straight line "
			                    "over empty squares (or jumps out when enclosed).",
			                    symbol ? 'O' : 'X', b);
			client_screen_bell(s);
			return;
		}
		s->totem_to = sq;
		client_state_destinations(&t->game, s->sel, sq, s->dest);
		client_state_notice(&c->st, 0,
		                    "Totem %c to %s: now pick the square for your %c pawn.",
		                    symbol ? 'O' : 'X', b, symbol ? 'O' : 'X');
		return;
	}
	game_square_name(s->totem_to, a);
	snprintf(text, sizeof text, "%c%s+%s", symbol ? 'O' : 'X', a, b);
	client_page_game_move(s, text);
}

/* The match keys: draw offers, abort, claims, rematch. The server judges; we only ask. */
static void
match_key(struct screen *s, int ch)
{
	struct client *c = s->c;
	const struct client_table *t = &c->st.table;

	if (t->seat < 0) {
		client_state_notice(&c->st, 1, "You are watching: t to chat.");
		return;
	}
	switch (ch) {
	case 'd':
		if (client_request_draw_offer(c) == 0)
			client_state_notice(&c->st, 0, "Draw offered.");
		break;
	case 'a':
		client_request_game(c, t->over ? MSG_REMATCH : MSG_DRAW_ACCEPT);
		break;
	case 'x':
		client_request_game(c, t->over ? MSG_REMATCH_DECLINE : MSG_DRAW_DECLINE);
		break;
	case 'A':
		/* a player may abort only before its own first move: say so before asking */
		if (!t->over &&
		    (t->nmoves >= 2 || (t->nmoves == 1 && game_side(&t->game) != t->seat))) {
			client_state_notice(&c->st, 1,
			                    "You have moved already: the game can no longer be "
			                    "aborted (r resigns).");
			break;
		}
		s->mode = MODE_CONFIRM;
		s->confirm = CONFIRM_ABORT;
		break;
	case 'c':
	case 'C':
		client_request_claim(c, ch == 'C');
		break;
	default:
		client_request_game(c, MSG_REMATCH);
		client_state_notice(&c->st, 0, "Rematch %s.",
		                    t->rematch_offer >= 0 && t->rematch_offer != t->seat
		                            ? "accepted"
		                            : "offered");
		break;
	}
}

static void
game_key(struct screen *s, int ch, MEVENT *mev)
{
	struct client *c = s->c;
	const struct client_table *t = &c->st.table;

	c->held.failed[0] = '\0'; /* it has been seen */
	if (s->stack) {
		s->stack = 0;
		if (ch != KEY_MOUSE)
			return;
	}
	if (t->over && ch == 'v') {
		client_page_replay_open(s, t->id, NULL);
		return;
	}
	switch (ch) {
	case '[':
		back_to(s, s->back_ply < 0 ? t->nmoves - 1 : s->back_ply - 1);
		return;
	case ']':
		if (s->back_ply >= 0)
			back_to(s, s->back_ply + 1);
		return;
	case KEY_HOME:
		back_to(s, 0);
		return;
	case KEY_END:
		back_to(s, t->nmoves);
		return;
	case 'S':
		client_save_start(c, NULL);
		return;
	case '\n':
	case '\r':
	case ' ':
	case KEY_ENTER:
	case ':':
	case 'm':
	case KEY_MOUSE:
		if (s->back_ply >= 0) { /* a move key: the live position first */
			back_to(s, t->nmoves);
			return;
		}
		break;
	default:
		break;
	}
	if (t->over && !s->over_hidden) {
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == 'q') {
			client_request_leave(c);
			return;
		}
		if (ch == KEY_ESCAPE) {
			s->over_hidden = 1;
			return;
		}
	}
	switch (ch) {
	case KEY_UP:
	case 'k':
		client_board_cursor_move(s, 0, 1);
		break;
	case KEY_DOWN:
	case 'j':
		client_board_cursor_move(s, 0, -1);
		break;
	case KEY_LEFT:
	case 'h':
		client_board_cursor_move(s, -1, 0);
		break;
	case KEY_RIGHT:
	case 'l':
		client_board_cursor_move(s, 1, 0);
		break;
	case '\n':
	case '\r':
	case ' ':
	case KEY_ENTER:
		if (t->over) {
			client_request_leave(c);
			break;
		}
		board_choose(s, s->cursor);
		break;
	case KEY_MOUSE: {
		int sq = mev != NULL ? client_board_hit(s, mev->y, mev->x) : -1;
		if (sq < 0)
			break;
		s->cursor = sq;
		if (mev->bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED))
			board_choose(s, sq);
		break;
	}
	case KEY_ESCAPE:
		if (s->totem_to >= 0) {
			int sel = s->sel;
			client_screen_select_clear(s);
			s->sel = sel;
			client_state_destinations(&t->game, sel, -1, s->dest);
		} else {
			client_screen_select_clear(s);
		}
		client_state_notice(&c->st, 0, "%s", "");
		break;
	case 's':
		s->stack = 1;
		break;
	case 'w':
		/* a spectator follows the players into their rematch */
		if (t->seat < 0 && t->over && t->rematch_game[0] && !t->private_game)
			client_request_watch(c, t->rematch_game);
		else
			client_state_notice(&c->st, 1, "%s",
			                    t->seat >= 0 ? "w is for spectators: it follows the "
			                                   "players to their rematch."
			                    : t->rematch_game[0] ? "The rematch is a private game."
			                                         : "No rematch to follow yet.");
		break;
	case 'v':
		client_state_notice(&c->st, 1, "The game is not over: v replays it once it is.");
		break;
	case 'f':
		s->flip = !s->flip;
		break;
	case 't':
		client_screen_prompt_open(s, PROMPT_CHAT);
		break;
	case 'T':
		s->chatlog = 1;
		s->chatlog_back = 0;
		break;
	case 'd':
	case 'a':
	case 'x':
	case 'A':
	case 'c':
	case 'C':
	case 'n':
		match_key(s, ch);
		break;
	case ':':
	case 'm':
		if (t->seat < 0) {
			client_state_notice(&c->st, 1, "You are watching: you cannot move.");
			break;
		}
		client_screen_prompt_open(s, PROMPT_MOVE);
		break;
	case 'r':
		if (t->seat < 0 || t->over) {
			client_state_notice(&c->st, 1, "%s",
			                    t->over ? "The game is over." : "You are watching.");
			break;
		}
		s->mode = MODE_CONFIRM;
		s->confirm = CONFIRM_RESIGN;
		break;
	case 'q':
		if (t->seat >= 0 && !t->over && t->started) {
			/* The server keeps a live game's seat: it ends by a result or a
			 * resignation. */
			client_state_notice(&c->st, 1,
			                    "The game is on: resign first (r), or Q to quit hokito "
			                    "(your seat is kept; come back to rejoin).");
			break;
		}
		client_request_leave(c);
		break;
	case 'u':
	case 'U': {
		/* u: the opponent's profile (watching: the first player's), U: the other one */
		int side = t->seat >= 0 ? !t->seat : 0;
		const struct client_seat *seat = &t->seats[ch == 'u' ? side : !side];
		if (seat->who == CLIENT_WHO_ACCOUNT || seat->who == CLIENT_WHO_BOT)
			client_page_profile_open(s, seat->name, NULL);
		else
			client_state_notice(&c->st, 1, "%s has no profile: only accounts have one.",
			                    seat->name[0] ? seat->name : "An empty seat");
		break;
	}
	default:
		break;
	}
}

/* The title: "HOKITO standard · game g12". */
static void
game_title(const struct screen *s, char *buf, size_t size)
{
	const struct client_table *t = &s->c->st.table;

	snprintf(buf, size, "%s %s %s game %s", game_kind_title(t->kind), t->variant,
	         client_screen_glyph(s, "\xc2\xb7", "-"), t->id);
}

static const char *const game_help[] = {
        "arrows / hjkl   move the cursor",
        "Enter, Space    select, then pick a destination (or click)",
        "Esc             cancel the selection",
        ": or m          type a move (c2-e4, Xc5+c6)",
        "s / f           the whole stack here / turn the board",
        "[ ] Home End    step back through the moves (End: live)",
        "S               save the game's record (hokito-ID.txt)",
        "r               resign",
        "d / a / x       offer a draw / accept / decline",
        "A               abort (before your first move)",
        "c / C           claim the win / a draw (opponent gone)",
        "n               rematch (offer or accept), after the game",
        "w               watching: go to the players' rematch",
        "v / u / U       replay (game over) / the players' profiles",
        "t / T           chat / the chat log, every line whole",
        "R / B           the rules, in full / the bell on or off",
        "q               leave the game, back to the lobby",
        "Q / Ctrl-C      quit hokito",
        "",
        "HOKITO: a pawn or stack makes as many hops as its",
        "top pawn's value, each to the next occupied square;",
        "score = top value x stack height of your squares.",
        "OXONO: move a totem, then place a pawn of its symbol",
        "next to it; 4 in a row of a colour or a symbol wins.",
        NULL,
};

const struct client_page client_page_game = {
        .name = "game",
        .title = game_title,
        .draw = draw_game,
        .key = game_key,
        .help = game_help,
};
