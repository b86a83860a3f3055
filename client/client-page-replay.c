/*
 * client-page-replay.c: the replay page (client_page_replay): a game replayed from its record.
 *
 * It asks for the record (game_record), then shows the board at the move chosen with the players,
 * the result, the evaluation of the position (client-eval.c computes them off the loop thread and
 * the page kicks it on each draw) and the move list; its keys step through the game
 * (client_replay_seek()). Leaving goes back where the replay was opened from: the history or the
 * game just over.
 */
#include <stdio.h>
#include <string.h>

#include "client-screen.h"
#include "protocol.h"

/*
 * The replay's move list, two moves a row, each with its number as the moves are counted
 * ("Move 12 of 30"), the current move shown in reverse video.
 */
static void
draw_replay_moves(struct screen *s, const struct client_replay *rp, int y, int bottom, int px,
                  int pw)
{
	int n = (int)rp->rec.nmoves, rows = (n + 1) / 2, room = bottom - y;
	int cur = (int)rp->ply - 1, first = 0;
	char text[GAME_MOVE_TEXT];

	if (rows > room) {
		/* keep the current move's row in view, a little below the top */
		first = cur / 2 - room / 3;
		if (first > rows - room)
			first = rows - room;
		if (first < 0)
			first = 0;
	}
	for (int r = first; r < rows && y < bottom; r++, y++) {
		for (int k = 0; k < 2 && 2 * r + k < n; k++) {
			int i = 2 * r + k;
			game_move_format(rp->rec.kind, rp->rec.moves[i], text, sizeof text);
			client_screen_put(y, px + 14 * k, 0, "%3d", i + 1);
			if (i == cur)
				attron(A_REVERSE | A_BOLD);
			client_screen_put(y, px + 14 * k + 4, 0, "%s%s%s", i == cur ? "[" : " ",
			                  text, i == cur ? "]" : " ");
			attroff(A_REVERSE | A_BOLD);
		}
	}
	(void)pw;
}

/* The replay page: the board at the current move, the players, the result, the evaluation. */
static void
draw_replay(struct screen *s)
{
	struct client *c = s->c;
	const struct client_replay *rp = &c->replay;
	const struct record *rec = &rp->rec;
	const struct client_eval *e;
	char buf[192], last[GAME_MOVE_TEXT], *why;
	int px, pw, y = 2;

	{
		static const char *const keys[] = {
		        "Left/Right", "step",     "Home/End", "start/end", "q",  "back",
		        "PgUp/PgDn",  "10 moves", "?",        "help",      NULL,
		};
		client_screen_hints(keys);
	}
	if (!rp->active || strcmp(rp->id, s->replay_want) != 0) {
		/* the line below says why a record did not come */
		attron(A_DIM);
		if (client_request_pending(c, MSG_RECORD))
			client_screen_put(3, 3, COLS - 4,
			                  "Asking the server for the record of game %s...",
			                  s->replay_want);
		else
			client_screen_put(3, 3, COLS - 4, "No record of game %s.", s->replay_want);
		attroff(A_DIM);
		return;
	}
	client_eval_kick(c);
	s->cw = COLS >= 3 + 36 + 2 + PANEL_MIN ? 6 : 5;
	s->ch = LINES >= 24 ? 3 : 2;
	s->by = 3;
	s->bx = 3;
	px = s->bx + 6 * s->cw + 3;
	pw = COLS - px - 1;
	if (pw > 46)
		pw = 46;
	client_screen_kind_colours(s, rec->kind);
	if (rp->ply > 0)
		game_move_format(rec->kind, rec->moves[rp->ply - 1], last, sizeof last);
	memset(s->win, 0, sizeof s->win); /* the game page's line is not the replay's */
	client_board_draw(s, &rp->pos, rp->ply > 0 ? last : NULL, 0);

	attron(A_BOLD);
	client_screen_put(y, px, pw, "Replay of game %s", rp->id);
	attroff(A_BOLD);
	y++;
	client_screen_put(y, px, pw, "%s %s%s%s", game_kind_title(rec->kind),
	                  rec->variant[0] ? rec->variant : "standard", rec->date[0] ? ", " : "",
	                  rec->date);
	y += 2;
	for (int i = 0; i < 2; i++, y++) {
		/* a rated game's record has each player's rating before it and its change */
		char who[sizeof rec->player[0] + 2 * sizeof rec->rating[0] + 4];
		snprintf(who, sizeof who, "%s%s%s%s%s", rec->player[i][0] ? rec->player[i] : "?",
		         rec->rated && rec->rating[i][0] ? " " : "",
		         rec->rated ? rec->rating[i] : "",
		         rec->rated && rec->rating_diff[i][0] ? " " : "",
		         rec->rated ? rec->rating_diff[i] : "");
		client_board_player_line(s, y, px, pw, &rp->pos, i,
		                         !game_over(&rp->pos) && game_side(&rp->pos) == i, who);
	}
	y++;
	if (rec->result == RECORD_UNFINISHED)
		/* "*": aborted (with its reason: no result), or not over yet */
		snprintf(buf, sizeof buf, "Result: %s%s%s",
		         rec->reason[0] ? "No result (" : "Not over", rec->reason,
		         rec->reason[0] ? ")" : "");
	else {
		/* as at the end of a game: "White wins, 47 to 22", then the reason */
		struct game_outcome o;
		char text[64];
		game_outcome(&rec->final, &o);
		client_state_outcome_text(rec->kind,
		                          rec->result == RECORD_DRAW ? -1 : (int)rec->result,
		                          o.score, text, sizeof text);
		snprintf(buf, sizeof buf, "Result: %s (%s)", text, rec->reason);
	}
	why = strrchr(buf, '(');
	if (client_screen_text_width(buf) > pw && why != NULL && why > buf && why[-1] == ' ') {
		/* a narrow panel: the reason in brackets on a line of its own */
		why[-1] = '\0';
		client_screen_putn(y++, px, pw, buf);
	} else
		why = NULL;
	client_screen_putn(y++, px, pw, why != NULL ? why : buf);
	attron(A_BOLD);
	if (rp->ply == 0)
		client_screen_put(y, px, pw, "Move 0 of %zu: the start", rec->nmoves);
	else
		client_screen_put(
		        y, px, pw, "Move %zu of %zu: %s %s", rp->ply, rec->nmoves,
		        client_state_side_name(rec->kind,
		                               game_side(&rec->start) ^ (int)((rp->ply - 1) & 1)),
		        last);
	attroff(A_BOLD);
	y++;
	e = &rp->eval[rp->ply];
	if (e->done) {
		attron(A_BOLD | client_screen_pair(s, PAIR_GOOD));
		client_screen_put(y, px, pw, "Eval: %s", e->text);
		attroff(A_BOLD | client_screen_pair(s, PAIR_GOOD));
		if (e->best[0]) {
			attron(A_DIM);
			client_screen_put(y + 1, px, pw, "  best %s, depth %d", e->best, e->depth);
			attroff(A_DIM);
		}
	} else {
		attron(A_DIM);
		client_screen_put(y, px, pw, "Eval: thinking%s",
		                  client_screen_glyph(s, "\xe2\x80\xa6", "..."));
		attroff(A_DIM);
	}
	y += LINES >= 24 ? 3 : 2; /* a blank line above the moves when there is room */
	attron(A_BOLD);
	client_screen_put(y, px, pw, "Moves");
	attroff(A_BOLD);
	y++;
	draw_replay_moves(s, rp, y, LINES - 2, px, pw);
}

void
client_page_replay_open(struct screen *s, const char *id, const struct client_page *back)
{
	snprintf(s->replay_want, sizeof s->replay_want, "%s", id);
	s->page = &client_page_replay;
	s->replay_back = back;
	s->help = 0;
	s->stack = 0;
	client_state_notice(&s->c->st, 0, "%s", ""); /* what the last page said is not about it */
	client_request_record(s->c, id);
}

static void
replay_key(struct screen *s, int ch, MEVENT *mev)
{
	struct client *c = s->c;
	long ply = (long)c->replay.ply;

	switch (ch) {
	case KEY_RIGHT:
	case 'l':
	case ' ':
	case KEY_DOWN:
	case 'j':
	case ']': /* as in a game */
		client_replay_seek(c, ply + 1);
		break;
	case KEY_LEFT:
	case 'h':
	case KEY_BACKSPACE:
	case KEY_UP:
	case 'k':
	case '[':
		client_replay_seek(c, ply - 1);
		break;
	case KEY_NPAGE:
		client_replay_seek(c, ply + 10);
		break;
	case KEY_PPAGE:
		client_replay_seek(c, ply - 10);
		break;
	case KEY_HOME:
	case 'g':
	case '0':
		client_replay_seek(c, 0);
		break;
	case KEY_END:
	case 'G':
	case '$':
		client_replay_seek(c, RECORD_MOVES_MAX);
		break;
	case 'f':
		s->flip = !s->flip;
		break;
	case 'q':
	case KEY_ESCAPE:
		client_screen_page_back(s, s->replay_back);
		break;
	default:
		break;
	}
}

/* The title: "replay of game g12", the game asked for. */
static void
replay_title(const struct screen *s, char *buf, size_t size)
{
	snprintf(buf, size, "replay of game %s", s->replay_want);
}

static const char *const replay_help[] = {
        "Right, l, ], Spc next move",
        "Left, h, [       previous move",
        "PgDn / PgUp      10 moves on / back",
        "Home, g, 0       the start",
        "End, G, $        the end",
        "f                turn the board round",
        "R                the rules of both games",
        "q / Esc          back",
        "",
        "Eval: the position judged by a short search",
        "(depth 4) from here: who is ahead and by how",
        "much, or the result it proves with best play.",
        NULL,
};

const struct client_page client_page_replay = {
        .name = "replay",
        .title = replay_title,
        .draw = draw_replay,
        .key = replay_key,
        .help = replay_help,
};
