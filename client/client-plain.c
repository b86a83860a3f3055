/*
 * client-plain.c: the --plain view, line by line, for scripts, screen readers and pipes.
 *
 * No curses and no escape sequences: commands are read as lines from standard input (a terminal,
 * a pipe or a file, all on the libuv loop) and everything the user needs is printed as whole
 * lines on standard output: what happened (moves, seats, spectators, game over), whose turn it
 * is, and the board as text after every move. Errors are printed as lines starting with
 * "error: ". The view remembers what it has printed so far and prints only what is new.
 *
 * Commands run one at a time, in order: a line is taken only while the connection is up and
 * the request of the previous line has been answered, so a script can write "create", then
 * "wait" (until it is our turn or the game is over), then a move, without racing the server.
 * When standard input ends, the program ends once every line has run and been answered.
 *
 * Match management: after every move of a game with a clock a "clocks:" line gives both clocks;
 * chat lines are printed as "chat: NAME (SEAT): TEXT" (players) and "kibitz: NAME: TEXT"
 * (spectators); an offer made to us is printed with the command that answers it.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "protocol.h"
#include "rules-text.h"
#include "xmalloc.h"

#define PLAIN_LINE_MAX 1024

struct plain {
	struct client *c;
	union {
		uv_stream_t stream;
		uv_tty_t tty;
		uv_pipe_t pipe;
	} input;          /* standard input when it is a terminal or a pipe */
	uv_fs_t fs;       /* standard input when it is a file */
	int file;         /* standard input is a file: read with uv_fs_read */
	int reading;      /* an input handle is open */
	int closing;      /* stop() was called */
	int eof;          /* standard input ended */
	char fsbuf[4096]; /* file reads land here */
	int64_t fsoff;    /* file offset */
	char *buf;        /* owned: input bytes not yet run as commands */
	size_t buflen, bufcap;
	int waiting; /* a "wait" holds the input until our turn or the end */
	/* What has been printed. */
	enum client_link link;
	int greeted;                  /* "connected" was printed */
	char table_id[CLIENT_ID_MAX]; /* the table printed, "" for none */
	int started, over, nmoves;
	int nspectators;
	int want_list; /* a "list" command waits for its reply */
	uint64_t list_stamp;
	uint64_t history_stamp, replay_stamp; /* the last history page and replay step printed */
	int nchat, nkibitz;                   /* chat lines printed */
	int draw_offer;                       /* the draw offer printed, -1 none */
	int rematch_offer;                    /* the rematch offer printed, -1 none */
	int tty_out;                          /* standard output is a terminal: the bell rings */
	uint64_t profile_stamp, ladder_stamp; /* the last profile and leaderboard printed */
	/* login NAME / register NAME: the next line is the password (read without echo) */
	char login_name[CLIENT_NAME_MAX]; /* the account, "" when no password is awaited */
	int login_register;               /* register it first */
	char guest_name[CLIENT_NAME_MAX]; /* the guest we were, to go back to if refused */
	int login_sent;                   /* a login asked for is on its way */
};

static void out(const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 1, 2)))
#endif
        ;

static void plain_pump(struct plain *p);

/* Print one line on standard output, control characters as '?' (client_shown_byte()). */
static void
out(const char *fmt, ...)
{
	char small[512], *buf = small;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof small) {
		buf = xmalloc((size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(buf, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	for (int i = 0; i < n; i++)
		buf[i] = client_shown_byte(buf[i]);
	fputs(buf, stdout);
	putchar('\n');
	fflush(stdout);
	if (buf != small)
		free(buf);
}

/* The text of one square for the board: HOKITO top pawn and height, OXONO the cell. */
static void
cell_token(const struct game *g, int sq, char *buf, size_t size)
{
	struct client_cell cell;

	client_state_cell(g, sq, &cell);
	if (cell.empty)
		snprintf(buf, size, ".");
	else if (game_kind_has(g->kind, GAME_HAS_STACKS) && cell.height > 1)
		snprintf(buf, size, "%c%dx%d", cell.colour ? 'w' : 'b', cell.value, cell.height);
	else if (game_kind_has(g->kind, GAME_HAS_STACKS))
		snprintf(buf, size, "%c%d", cell.colour ? 'w' : 'b', cell.value);
	else
		snprintf(buf, size, "%.3s", cell.text);
}

/* The players with scores or reserves, and whose turn it is. */
static void
print_status(struct plain *p)
{
	const struct client_state *st = &p->c->st;
	const struct client_table *t = &st->table;
	struct game_outcome o;
	int reserve[2][2];
	char buf[2][CLIENT_NAME_MAX + 128];

	game_outcome(&t->game, &o);
	client_state_reserves(&t->game, reserve);
	for (int i = 0; i < 2; i++) {
		char who[CLIENT_NAME_MAX + 24];
		const char *name = who;
		if (t->seats[i].name[0])
			client_state_seat_text(t, i, who, sizeof who);
		else
			snprintf(who, sizeof who, "(empty)");
		if (game_kind_has(t->kind, GAME_HAS_SCORES))
			snprintf(buf[i], sizeof buf[i], "%s %s%s%s score %d",
			         game_side_name(t->kind, i), name, t->seat == i ? " (you)" : "",
			         t->seats[i].name[0] && !t->seats[i].connected ? " [offline]" : "",
			         o.score[i]);
		else
			snprintf(buf[i], sizeof buf[i], "%s %s%s%s reserve X%d O%d",
			         game_side_name(t->kind, i), name, t->seat == i ? " (you)" : "",
			         t->seats[i].name[0] && !t->seats[i].connected ? " [offline]" : "",
			         reserve[i][0], reserve[i][1]);
	}
	out("players: %s; %s", buf[0], buf[1]);
}

/* The board of position g. */
static void
print_position(const struct game *g)
{
	char line[256], tok[16];

	out("     a     b     c     d     e     f");
	for (int r = 5; r >= 0; r--) {
		int n = snprintf(line, sizeof line, "%d  ", r + 1);
		for (int f = 0; f < 6; f++) {
			cell_token(g, r * 6 + f, tok, sizeof tok);
			n += snprintf(line + n, sizeof line - (size_t)n, " %-5s", tok);
		}
		snprintf(line + n, sizeof line - (size_t)n, " %d", r + 1);
		out("%s", line);
	}
	out("     a     b     c     d     e     f");
}

static void
print_board(struct plain *p)
{
	print_position(&p->c->st.table.game);
}

/* The history page just received. */
static void
print_history(struct plain *p)
{
	const struct client *c = p->c;

	if (c->nhistory == 0)
		out("history: no games from %lld on; %lld finished",
		    (long long)c->history_offset + 1, (long long)c->history_total);
	else
		out("history: games %lld to %lld of %lld finished%s",
		    (long long)c->history_offset + 1, (long long)c->history_offset + c->nhistory,
		    (long long)c->history_total, c->history_next[0] ? " (more: history next)" : "");
	for (int i = 0; i < c->nhistory; i++)
		out("game %s %s", c->history[i].id, c->history[i].line);
}

/* The profile just received. */
static void
print_profile(struct plain *p)
{
	const struct client_profile *pr = &p->c->profile;
	char who[CLIENT_NAME_MAX + 24], since[32] = "?";
	time_t t = (time_t)(pr->created_ms / 1000);
	struct tm tm;

	if (pr->created_ms > 0 && gmtime_r(&t, &tm) != NULL)
		strftime(since, sizeof since, "%Y-%m-%d", &tm);
	client_state_player_text(pr->name, pr->who, "", who, sizeof who);
	out("profile: %s%s, since %s", who, pr->banned ? " (banned)" : "", since);
	for (int k = 0; k < game_class_count; k++) {
		const struct client_profile_rating *r = &pr->kind[k];
		if (!r->has) {
			out("rating %s: not played rated", game_kind_name((enum game_kind)k));
			continue;
		}
		out("rating %s: %s (%.2f, rd %.1f, vol %.6f), %lld game%s: %lld won, %lld drawn, "
		    "%lld lost; best %.0f",
		    game_kind_name((enum game_kind)k), r->shown, r->rating, r->rd, r->vol,
		    (long long)r->games, r->games == 1 ? "" : "s", (long long)r->wins,
		    (long long)r->draws, (long long)r->losses, r->best);
	}
	out("recent: %d game%s", pr->nrecent, pr->nrecent == 1 ? "" : "s");
	for (int i = 0; i < pr->nrecent; i++)
		out("game %s %s", pr->recent[i].id, pr->recent[i].line);
}

/* The leaderboard page just received. */
static void
print_ladder(struct plain *p)
{
	const struct client_ladder *l = &p->c->ladder;

	out("leaderboard %s: %d player%s%s", game_kind_name(l->kind), l->nrows,
	    l->nrows == 1 ? "" : "s",
	    l->next[0]      ? " (more: leaderboard KIND next)"
	    : l->nrows == 0 ? " ranked (a rating is ranked once its deviation, rd, is 110 or less "
	                      "and it has the "
	                      "server's minimum of rated games against distinct opponents)"
	                    : "");
	for (int i = 0; i < l->nrows; i++)
		out("%lld. %s", (long long)l->rows[i].rank, l->rows[i].line);
	if (l->nprov > 0)
		out("provisional, not ranked yet: %d player%s%s", l->nprov,
		    l->nprov == 1 ? "" : "s", l->prov_more ? " (the best of them)" : "");
	for (int i = 0; i < l->nprov; i++)
		out("provisional: %s", l->prov[i].line);
}

/* Where the replay stands: the move just made, the board, the end at the last move. */
static void
print_replay(struct plain *p)
{
	const struct client_replay *r = &p->c->replay;
	const struct record *rec = &r->rec;
	char text[GAME_MOVE_TEXT] = "", head[128];
	struct game_outcome o;

	if (r->ply > 0 &&
	    game_move_format(rec->kind, rec->moves[r->ply - 1], text, sizeof text) < 0)
		text[0] = '\0';
	snprintf(head, sizeof head, "replay %s: move %zu of %zu", r->id, r->ply, rec->nmoves);
	if (r->ply > 0)
		out("%s: %s %s", head,
		    game_side_name(rec->kind, game_side(&rec->start) ^ (int)((r->ply - 1) % 2)),
		    text);
	else
		out("%s: the start, %s %s%s%s vs %s %s%s%s%s", head, game_side_name(rec->kind, 0),
		    rec->player[0][0] ? rec->player[0] : "-", rec->rated ? " " : "",
		    rec->rated ? rec->rating[0] : "", game_side_name(rec->kind, 1),
		    rec->player[1][0] ? rec->player[1] : "-", rec->rated ? " " : "",
		    rec->rated ? rec->rating[1] : "", rec->rated ? ", rated" : "");
	game_outcome(&r->pos, &o);
	if (game_kind_has(rec->kind, GAME_HAS_SCORES))
		out("scores: %s %d, %s %d", game_side_name(rec->kind, 0), o.score[0],
		    game_side_name(rec->kind, 1), o.score[1]);
	print_position(&r->pos);
	if (r->ply != rec->nmoves)
		return;
	if (rec->result == RECORD_UNFINISHED) /* aborted: no result */
		out("replay %s: the end: no result%s%s%s", r->id, rec->reason[0] ? " (" : "",
		    rec->reason, rec->reason[0] ? ")" : "");
	else
		out("replay %s: the end: %s%s%s", r->id, record_result_name(rec->kind, rec->result),
		    rec->reason[0] ? " by " : "", rec->reason);
}

/* Whose turn, after a change. */
static void
print_turn(struct plain *p)
{
	const struct client_state *st = &p->c->st;
	const struct client_table *t = &st->table;
	int side = game_side(&t->game);

	if (t->over || !t->started || game_over(&t->game))
		return;
	if (client_state_our_turn(st))
		out("your turn (%s)", game_side_name(t->kind, side));
	else
		out("turn: %s", game_side_name(t->kind, side));
}

/* Both clocks, if the game has them. */
static void
print_clocks(struct plain *p)
{
	const struct client_table *t = &p->c->st.table;
	uint64_t now = uv_now(p->c->loop);
	char a[24], b[24];

	if (!t->timed)
		return;
	client_state_clock_text(client_state_clock(t, 0, now), a, sizeof a);
	client_state_clock_text(client_state_clock(t, 1, now), b, sizeof b);
	out("clocks: %s %s, %s %s (%s)", game_side_name(t->kind, 0), a, game_side_name(t->kind, 1),
	    b, t->control);
}

/* Chat lines and offers not printed yet. */
static void
print_match(struct plain *p)
{
	const struct client_table *t = &p->c->st.table;
	int n = t->nchat - p->nchat;

	for (int i = n > CLIENT_CHAT_KEEP ? CLIENT_CHAT_KEEP - 1 : n - 1; i >= 0; i--) {
		const struct client_chat *l = client_state_chat_get(t, 0, i);
		if (l != NULL)
			out("chat: %s (%s): %s", l->name,
			    l->seat >= 0 ? game_side_name(t->kind, l->seat) : "?", l->text);
	}
	p->nchat = t->nchat;
	n = t->nkibitz - p->nkibitz;
	for (int i = n > CLIENT_CHAT_KEEP ? CLIENT_CHAT_KEEP - 1 : n - 1; i >= 0; i--) {
		const struct client_chat *l = client_state_chat_get(t, 1, i);
		if (l != NULL)
			out("kibitz: %s: %s", l->name, l->text);
	}
	p->nkibitz = t->nkibitz;
	if (t->draw_offer != p->draw_offer) {
		p->draw_offer = t->draw_offer;
		if (t->draw_offer >= 0 && t->seat >= 0 && t->draw_offer != t->seat)
			out("draw offer from %s: type accept or decline",
			    game_side_name(t->kind, t->draw_offer));
	}
	if (t->rematch_offer != p->rematch_offer) {
		p->rematch_offer = t->rematch_offer;
		if (t->rematch_offer >= 0 && t->seat >= 0 && t->rematch_offer != t->seat)
			out("rematch offer from %s: type accept or decline",
			    game_side_name(t->kind, t->rematch_offer));
	}
}

static void
print_spectators(struct plain *p)
{
	const struct client_table *t = &p->c->st.table;
	char buf[CLIENT_SPECTATORS * (CLIENT_NAME_MAX + 2) + 1];

	client_state_spectators_text(t, buf, sizeof buf);
	out("spectators: %d%s%s", t->nspectators, t->nspectators ? " " : "", buf);
}

static void
print_over(struct plain *p)
{
	const struct client_table *t = &p->c->st.table;
	char buf[128], reason[200];

	client_state_result_text(t, buf, sizeof buf);
	client_line_reason(t, NULL, reason, sizeof reason); /* what made an OXONO line */
	if (game_kind_has(t->kind, GAME_HAS_SCORES) && !t->aborted &&
	    t->outcome.end == GAME_END_NONE)
		/* not won by the scores: they are told apart, as scores */
		out("game over: %s (score: %s %d, %s %d). %s", buf, game_side_name(t->kind, 0),
		    t->outcome.score[0], game_side_name(t->kind, 1), t->outcome.score[1], reason);
	else
		out("game over: %s. %s", buf, reason);
	for (int i = 0; i < 2; i++) {
		char ch[CLIENT_NAME_MAX + 48];
		client_state_change_text(t, i, ch, sizeof ch);
		if (ch[0])
			out("rating: %s", ch);
	}
}

static void
print_list(struct plain *p)
{
	const struct client_state *st = &p->c->st;

	if (st->list_total > st->nlist)
		out("games: %d (%d to %d of %d)", st->nlist, st->list_offset + 1,
		    st->list_offset + st->nlist, st->list_total);
	else
		out("games: %d", st->nlist);
	for (int i = 0; i < st->nlist; i++) {
		const struct client_entry *e = &st->list[i];
		char result[64] = "";
		if (e->result >= -2)
			snprintf(result, sizeof result, ", %s%s (%s)",
			         e->result >= 0    ? game_side_name(e->kind, e->result)
			         : e->result == -1 ? "draw"
			                           : "no result",
			         e->result >= 0 ? " wins" : "", event_reason_name(e->reason));
		char names[2][CLIENT_NAME_MAX + 24];
		for (int k = 0; k < 2; k++)
			client_state_player_text(e->players[k][0] ? e->players[k] : "-", e->who[k],
			                         e->rating[k], names[k], sizeof names[k]);
		out("game %s %s %s%s %s %s vs %s, move %d, spectators %d%s%s%s", e->id,
		    game_kind_name(e->kind), e->variant, e->rated ? " rated" : "",
		    event_status_name(e->status), names[0], names[1], e->ply, e->spectators,
		    e->clock[0] ? ", clock " : "", e->clock, result);
	}
}

static void
plain_update(struct client *c)
{
	struct plain *p = c->view_data;
	const struct client_state *st = &c->st;
	const struct client_table *t = &st->table;
	int changed = 0;

	if (p == NULL || p->closing)
		return;
	client_request_held_flush(c);
	client_save_flush(c);
	if (st->link != p->link) {
		p->link = st->link;
		if (st->link == CLIENT_LINK_UP) {
			out("%s %s:%d as %s%s", p->greeted ? "reconnected to" : "connected to",
			    c->opt.host, c->opt.port, st->name,
			    st->who == CLIENT_WHO_BOT  ? " (bot account)"
			    : client_state_account(st) ? " (account)"
			                               : "");
			p->login_sent = 0;
			p->greeted = 1;
		}
	}
	if (!t->active && p->table_id[0]) {
		out("left game %s", p->table_id);
		p->table_id[0] = '\0';
	}
	if (t->active && strcmp(p->table_id, t->id) != 0) {
		snprintf(p->table_id, sizeof p->table_id, "%s", t->id);
		if (t->seat >= 0)
			out("joined game %s (%s %s) as %s%s%s", t->id, game_kind_name(t->kind),
			    t->variant, game_side_name(t->kind, t->seat),
			    t->invite[0] ? ", invite code " : "", t->invite);
		else
			out("watching game %s (%s %s)", t->id, game_kind_name(t->kind), t->variant);
		if (t->nmoves > 0) {
			char buf[CLIENT_MOVES_MAX * 8] = "";
			for (int i = 0; i < t->nmoves; i++) {
				size_t l = strlen(buf);
				snprintf(buf + l, sizeof buf - l, "%s%s", i ? " " : "",
				         t->moves[i]);
			}
			out("moves so far: %s", buf);
		}
		p->nmoves = t->nmoves;
		p->started = t->started;
		p->over = 0;
		p->nspectators = t->nspectators;
		p->nchat = p->nkibitz = 0;
		p->draw_offer = p->rematch_offer = -1;
		if (!t->started)
			out("waiting for an opponent");
		print_status(p);
		print_board(p);
		print_clocks(p);
		print_turn(p);
		if (t->nspectators)
			print_spectators(p);
	}
	if (t->active) {
		if (t->started && !p->started) {
			p->started = 1;
			out("game started: %s (%s) vs %s (%s)", t->seats[0].name,
			    game_side_name(t->kind, 0), t->seats[1].name,
			    game_side_name(t->kind, 1));
			changed = 1;
		}
		for (; p->nmoves < t->nmoves; p->nmoves++) {
			/* The mover of move i: side 0 plays the even moves. */
			out("move %d: %s %s", p->nmoves + 1, game_side_name(t->kind, p->nmoves % 2),
			    t->moves[p->nmoves]);
			changed = 1;
		}
		if (changed) {
			print_status(p);
			print_board(p);
			print_clocks(p);
			print_turn(p);
		}
		if (t->over && !p->over) {
			p->over = 1;
			print_over(p);
			print_clocks(p);
		}
		print_match(p);
		if (t->nspectators != p->nspectators) {
			p->nspectators = t->nspectators;
			print_spectators(p);
		}
	}
	if (c->history_stamp != p->history_stamp) {
		p->history_stamp = c->history_stamp;
		print_history(p);
	}
	if (c->profile_stamp != p->profile_stamp) {
		p->profile_stamp = c->profile_stamp;
		print_profile(p);
	}
	if (c->ladder_stamp != p->ladder_stamp) {
		p->ladder_stamp = c->ladder_stamp;
		print_ladder(p);
	}
	if (c->save.path[0] && c->replay.active && strcmp(c->save.game, c->replay.id) == 0)
		p->replay_stamp = c->replay_stamp; /* the record came for a save, not to replay */
	if (c->replay.active && c->replay_stamp != p->replay_stamp) {
		p->replay_stamp = c->replay_stamp;
		print_replay(p);
	}
	if (p->want_list && c->list_stamp != p->list_stamp) {
		p->want_list = 0;
		p->list_stamp = c->list_stamp;
		print_list(p);
	}
	/* the bell at the moments that call a player back, on a terminal only: in a pipe it
	 * would be a stray byte in the lines a script reads */
	if (client_alert_check(&c->alert, st, uv_now(c->loop)) != 0 && !c->alert.bell_off &&
	    p->tty_out) {
		fputs("\a", stdout);
		fflush(stdout);
	}
	plain_pump(p);
}

static void
plain_notice(struct client *c, int error, const char *text)
{
	client_state_notice(&c->st, error, "%s", text);
	if (text[0] != '\0')
		out("%s%s", error ? "error: " : "", text);
}

static void
print_help(void)
{
	out("commands:");
	out("  list                               games on the server");
	out("  create [hokito|oxono] [random36] [black|white|pink|random] [private] [M+S]");
	out("         [computer [LEVEL]] [rated]  ... the computer (level 1-8); rated: accounts");
	out("  join ID|CODE                       take the open seat of a game");
	out("  quick [hokito|oxono] [random36] [M+S] [rated]  quick pairing (rated: accounts)");
	out("  watch ID|CODE                      watch a game");
	out("  MOVE  or  move MOVE                play (c2-e4, Xc5+c6)");
	out("  moves                              your legal moves");
	out("  board                              the board again");
	out("  position                           the position text (common/FORMATS.md)");
	out("  stack SQUARE                       the whole stack on a square");
	out("  who                                players and spectators");
	out("  wait                               hold the next commands until your turn");
	out("  clock                              both clocks now");
	out("  say TEXT                           chat (players' or spectators' chat)");
	out("  draw | accept | decline            offer a draw; answer a draw or rematch offer");
	out("  abort                              end the game without result (first moves)");
	out("  claim win|draw                     after the opponent's grace period ran out");
	out("  rematch                            offer (or accept) a rematch, colours swapped");
	out("  list [OFFSET]                      the lobby's games, 100 a page");
	out("  history [PLAYER] [OFFSET] | next   finished games (of PLAYER), 10 a page");
	out("  login NAME | register NAME         log in to (or create) an account; the");
	out("                                     password is the next line (no echo)");
	out("  guest NAME                         go on as a guest named NAME");
	out("  profile [NAME]                     an account's ratings and last games");
	out("  leaderboard [hokito|oxono] [next]  the best ratings, a page (next: the next)");
	out("  replay [GAME]                      replay a game (no GAME: the one just over)");
	out("  next [N] | prev [N] | first | last step through the replay");
	out("  rules [hokito|oxono]               the rules of a game, in words");
	out("  bell [on|off]                      the bell at your move (on a terminal)");
	out("  save [FILE]                        the game's record to FILE (hokito-ID.txt)");
	out("  resign | leave | quit");
}

/*
 * The create command: kind first (HOKITO when left out, as on the command line), then variant,
 * seat, privacy, clock and "computer" (optionally followed by its level) in any order. With
 * quick, only a variant and a clock follow the kind.
 */
static void
cmd_create(struct plain *p, char **args, int n, int quick)
{
	enum game_kind kind = GAME_HOKITO;
	const char *variant = NULL, *clock = NULL;
	int seat = -1, priv = 0, level = 0, first = 0, rated = 0;

	if (n >= 1 && game_kind_parse(args[0], &kind) == 0)
		first = 1; /* else HOKITO, as on the command line */
	for (int i = first; i < n; i++) {
		uint64_t base, inc;
		int side;
		if (protocol_clock_parse(args[i], &base, &inc) == 0)
			clock = args[i];
		else if (strcmp(args[i], "rated") == 0)
			rated = 1;
		else if (strcmp(args[i], "casual") == 0)
			rated = 0;
		else if (quick && game_variant_check(kind, args[i], NULL) == 0)
			variant = args[i];
		else if (quick) {
			out("error: quick: '%s' is not a variant of %s or a clock (usage: quick "
			    "[hokito|oxono] [random36] [M+S])",
			    args[i], game_kind_name(kind));
			return;
		} else if (strcmp(args[i], "private") == 0)
			priv = 1;
		else if (strcmp(args[i], "computer") == 0) {
			level = PROTOCOL_LEVEL_DEFAULT;
			if (i + 1 < n && args[i + 1][0] >= '0' && args[i + 1][0] <= '9' &&
			    protocol_level_parse(args[++i], &level) < 0) {
				out("error: create: the computer's level is from %d to %d",
				    PROTOCOL_LEVEL_MIN, PROTOCOL_LEVEL_MAX);
				return;
			}
		} else if (strcmp(args[i], "public") == 0)
			priv = 0;
		else if (strcmp(args[i], "random") == 0)
			seat = -1;
		else if (game_side_parse(kind, args[i], &side) == 0)
			seat = side;
		else if (game_variant_check(kind, args[i], NULL) == 0)
			variant = args[i];
		else {
			out("error: create: '%s' is not a variant, a seat of %s, 'private', a "
			    "clock "
			    "or 'computer'",
			    args[i], game_kind_name(kind));
			return;
		}
	}
	if (quick)
		client_request_quick(p->c, kind, variant, clock, rated);
	else
		client_request_create(p->c, kind, variant, seat, priv, clock, level, rated);
}

static void
cmd_move(struct plain *p, const char *text)
{
	struct client *c = p->c;
	char canon[GAME_MOVE_TEXT], why[256], tidy[GAME_MOVE_TEXT];

	if (client_move_tidy(c->st.table.kind, text, tidy, sizeof tidy) == 0)
		text = tidy;
	if (client_state_move_check(&c->st, text, canon, sizeof canon, why, sizeof why) < 0) {
		out("error: %s", why);
		return;
	}
	client_request_move(c, canon);
}

static void
cmd_moves(struct plain *p)
{
	const struct client_table *t = &p->c->st.table;
	struct game_move moves[GAME_MOVES_MAX];
	char text[GAME_MOVE_TEXT];
	char *buf;
	size_t len = 0, cap = 64;
	int n;

	if (!t->active) {
		out("error: not at a game");
		return;
	}
	n = game_moves(&t->game, moves);
	buf = xmalloc(cap);
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		size_t l;
		game_move_format(t->kind, moves[i], text, sizeof text);
		l = strlen(text);
		if (len + l + 2 > cap) {
			cap = (len + l + 2) * 2;
			buf = xrealloc(buf, cap);
		}
		if (len > 0)
			buf[len++] = ' ';
		memcpy(buf + len, text, l + 1);
		len += l;
	}
	out("legal moves for %s (%d): %s", game_side_name(t->kind, game_side(&t->game)), n, buf);
	free(buf);
}

/*
 * A count typed after a command (history's offset, next's moves): decimal digits only; a larger
 * one than any list holds is taken as a billion. Returns the count, or -1 when text is not one.
 */
static long
plain_count(const char *text)
{
	const long max = 1000000000L;
	long v = 0;

	if (*text == '\0')
		return -1;
	for (; *text != '\0'; text++) {
		if (*text < '0' || *text > '9')
			return -1;
		if (v < max)
			v = v * 10 + (*text - '0');
	}
	return v < max ? v : max;
}

static void
cmd_stack(struct plain *p, const char *sqname)
{
	const struct client_table *t = &p->c->st.table;
	struct client_cell cell;
	int sq = sqname != NULL ? game_square_parse(sqname) : -1;

	if (!t->active) {
		out("error: not at a game");
		return;
	}
	if (sq < 0 || sqname[2] != '\0') {
		out("error: usage: stack SQUARE (a1..f6)");
		return;
	}
	client_state_cell(&t->game, sq, &cell);
	if (cell.empty)
		out("%s: empty", sqname);
	else if (game_kind_has(t->kind, GAME_HAS_STACKS))
		out("%s: %s (bottom to top; %d pawn%s, top %c%d, worth %d to %s)", sqname,
		    cell.text, cell.height, cell.height > 1 ? "s" : "", cell.colour ? 'w' : 'b',
		    cell.value, cell.value * cell.height, game_side_name(t->kind, cell.colour));
	else if (cell.totem)
		out("%s: totem %c", sqname, cell.value ? 'O' : 'X');
	else
		out("%s: %s pawn %c", sqname, game_side_name(t->kind, cell.colour),
		    cell.value ? 'O' : 'X');
}

static void
cmd_who(struct plain *p)
{
	if (!p->c->st.table.active) {
		out("error: not at a game");
		return;
	}
	print_status(p);
	print_spectators(p);
}

/* Run one command line. */
/* The rules of a game in words (rules_text_get()): the game named, else the one at the table,
 * else HOKITO; a line each, as they are. */
static void
cmd_rules(struct plain *p, const char *name)
{
	const struct client_table *t = &p->c->st.table;
	enum game_kind kind = t->active ? t->kind : GAME_HOKITO;
	const char *text, *eol;

	if (name != NULL && game_kind_parse(name, &kind) < 0) {
		out("error: usage: rules [hokito|oxono]");
		return;
	}
	for (text = rules_text_get(kind); *text != '\0'; text = eol + (*eol != '\0')) {
		eol = strchr(text, '\n');
		if (eol == NULL)
			eol = text + strlen(text);
		out("%.*s", (int)(eol - text), text);
	}
}

/*
 * login NAME and register NAME: with --password-file or $HOKITO_PASSWORD, that password; else
 * the next line is the password, read with the terminal's echo off (a script writes it on the
 * line after the command).
 */
static void
cmd_login(struct plain *p, const char *name, int reg)
{
	struct client *c = p->c;

	if (c->st.table.active) {
		out("error: leave the game first, then log in");
		return;
	}
	if (client_state_account(&c->st) && !reg) {
		out("error: already logged in as %s", c->st.name);
		return;
	}
	snprintf(p->login_name, sizeof p->login_name, "%s", name);
	p->login_register = reg;
	if (c->opt.password != NULL && c->opt.password[0] != '\0') {
		char *pw = strdup(c->opt.password);
		p->login_name[0] = '\0';
		snprintf(p->guest_name, sizeof p->guest_name, "%s", c->st.name);
		p->login_sent = 1;
		client_request_login(c, name, pw, reg);
		memset(pw, 0, strlen(pw));
		free(pw);
		return;
	}
	out("password for %s:", name);
	client_password_echo(STDIN_FILENO, 0);
}

/* The line after login NAME or register NAME: the password. */
static void
login_password(struct plain *p, char *line)
{
	char name[CLIENT_NAME_MAX];

	client_password_echo(STDIN_FILENO, 1);
	snprintf(name, sizeof name, "%s", p->login_name);
	p->login_name[0] = '\0';
	line[strcspn(line, "\r")] = '\0';
	if (line[0] == '\0') {
		out("error: no password: not logged in");
		return;
	}
	snprintf(p->guest_name, sizeof p->guest_name, "%s", p->c->st.name);
	p->login_sent = 1;
	client_request_login(p->c, name, line, p->login_register);
	memset(line, 0, strlen(line));
}

static void
plain_command(struct plain *p, char *line)
{
	struct client *c = p->c;
	char *args[8], joined[64], tidy[GAME_MOVE_TEXT];
	int n = 0;

	if (p->login_name[0]) {
		login_password(p, line);
		return;
	}

	if (strncmp(line, "say ", 4) == 0 || strcmp(line, "say") == 0) {
		/* the rest of the line, as it is: the server cleans it */
		const char *q = line + 4, *end;
		int chars = 0;
		if (line[3] == '\0' || line[4] == '\0') {
			out("error: usage: say TEXT");
			return;
		}
		/* the server keeps PROTOCOL_CHAT_MAX characters, its ends' spaces taken off */
		while (*q == ' ')
			q++;
		for (end = q + strlen(q); end > q && end[-1] == ' '; end--)
			;
		for (const char *b = q; b < end; b++)
			chars += (*b & 0xc0) != 0x80;
		if (chars > PROTOCOL_CHAT_MAX)
			out("error: a chat line is at most %d characters (this one has %d): not "
			    "sent",
			    PROTOCOL_CHAT_MAX, chars);
		else
			client_request_say(c, line + 4);
		return;
	}
	for (char *tok = strtok(line, " \t\r"); tok != NULL && n < 8; tok = strtok(NULL, " \t\r"))
		args[n++] = tok;
	if (n == 0 || args[0][0] == '#')
		return;
	if (strcmp(args[0], "help") == 0 || strcmp(args[0], "?") == 0) {
		print_help();
	} else if (strcmp(args[0], "rules") == 0 && n <= 2) {
		cmd_rules(p, n == 2 ? args[1] : NULL);
	} else if (strcmp(args[0], "save") == 0 && n <= 2) {
		client_save_start(c, n == 2 ? args[1] : NULL);
	} else if (strcmp(args[0], "bell") == 0 && n <= 2) {
		if (n == 2 && (strcmp(args[1], "on") == 0 || strcmp(args[1], "off") == 0))
			c->alert.bell_off = strcmp(args[1], "off") == 0;
		else if (n == 2)
			out("error: usage: bell [on|off]");
		out("bell: %s", c->alert.bell_off ? "off" : "on");
	} else if (strcmp(args[0], "quit") == 0 || strcmp(args[0], "exit") == 0) {
		client_quit(c, 0);
	} else if (strcmp(args[0], "list") == 0) {
		long off = n > 1 ? plain_count(args[1]) : 0;
		if (off < 0 || off > INT32_MAX - CLIENT_LIST_MAX) {
			out("error: usage: list [OFFSET] (0, the default, is the first game)");
		} else {
			c->st.list_offset = (int)off;
			if (client_request_list(c) == 0)
				p->want_list = 1;
		}
	} else if (strcmp(args[0], "create") == 0) {
		cmd_create(p, args + 1, n - 1, 0);
	} else if (strcmp(args[0], "join") == 0 && n == 2) {
		client_request_join(c, args[1]);
	} else if (strcmp(args[0], "watch") == 0 && n == 2) {
		client_request_watch(c, args[1]);
	} else if (strcmp(args[0], "quick") == 0) {
		cmd_create(p, args + 1, n - 1, 1);
	} else if (strcmp(args[0], "move") == 0 && n == 2) {
		cmd_move(p, args[1]);
	} else if (strcmp(args[0], "join") == 0 || strcmp(args[0], "watch") == 0) {
		out("error: usage: %s ID|CODE", args[0]);
	} else if (strcmp(args[0], "move") == 0) {
		out("error: usage: move MOVE (or the move alone: c2-e4, Xc5+c6)");
	} else if (strcmp(args[0], "moves") == 0) {
		cmd_moves(p);
	} else if (strcmp(args[0], "board") == 0) {
		if (c->st.table.active) {
			print_status(p);
			print_board(p);
			print_turn(p);
		} else {
			out("error: not at a game");
		}
	} else if (strcmp(args[0], "position") == 0) {
		char text[GAME_TEXT_MAX];
		if (c->st.table.active && game_format(&c->st.table.game, text, sizeof text) >= 0)
			out("position: %s", text);
		else
			out("error: not at a game");
	} else if (strcmp(args[0], "stack") == 0) {
		cmd_stack(p, n > 1 ? args[1] : NULL);
	} else if (strcmp(args[0], "who") == 0) {
		cmd_who(p);
	} else if (strcmp(args[0], "wait") == 0) {
		p->waiting = c->st.table.active;
		if (!p->waiting)
			out("error: wait: not at a game");
	} else if (strcmp(args[0], "resign") == 0) {
		client_request_resign(c);
	} else if (strcmp(args[0], "clock") == 0) {
		if (!c->st.table.active)
			out("error: not at a game");
		else if (c->st.table.timed)
			print_clocks(p);
		else
			out("error: no clock in this game");
	} else if (strcmp(args[0], "draw") == 0) {
		client_request_draw_offer(c);
	} else if (strcmp(args[0], "accept") == 0 || strcmp(args[0], "decline") == 0) {
		int yes = args[0][0] == 'a';
		if (c->st.table.over)
			client_request_game(c, yes ? MSG_REMATCH : MSG_REMATCH_DECLINE);
		else
			client_request_game(c, yes ? MSG_DRAW_ACCEPT : MSG_DRAW_DECLINE);
	} else if (strcmp(args[0], "abort") == 0) {
		client_request_game(c, MSG_ABORT);
	} else if (strcmp(args[0], "claim") == 0 && n == 2 &&
	           (strcmp(args[1], "win") == 0 || strcmp(args[1], "draw") == 0)) {
		client_request_claim(c, args[1][0] == 'd');
	} else if (strcmp(args[0], "claim") == 0) {
		out("error: usage: claim win|draw");
	} else if (strcmp(args[0], "rematch") == 0) {
		client_request_game(c, MSG_REMATCH);
	} else if ((strcmp(args[0], "login") == 0 || strcmp(args[0], "register") == 0) && n == 2) {
		cmd_login(p, args[1], args[0][0] == 'r');
	} else if (strcmp(args[0], "login") == 0 || strcmp(args[0], "register") == 0) {
		out("error: usage: %s NAME (the password on the next line)", args[0]);
	} else if (strcmp(args[0], "guest") == 0 && n == 2) {
		if (protocol_name_check(args[1]) < 0)
			out("error: guest: " PROTOCOL_NAME_RULE);
		else
			client_request_login(c, args[1], NULL, 0);
	} else if (strcmp(args[0], "profile") == 0 && n <= 2) {
		client_request_profile(c, n == 2 ? args[1] : NULL);
	} else if (strcmp(args[0], "leaderboard") == 0 && n <= 3) {
		enum game_kind kind = GAME_HOKITO;
		int more = n == 3 || (n == 2 && strcmp(args[1], "next") == 0);
		if ((n >= 2 && strcmp(args[1], "next") != 0 &&
		     game_kind_parse(args[1], &kind) < 0) ||
		    (n == 3 && strcmp(args[2], "next") != 0))
			out("error: usage: leaderboard [hokito|oxono] [next]");
		else if (more && (c->ladder.next[0] == '\0' || (n == 3 && c->ladder.kind != kind)))
			out("error: leaderboard: no next page (ask for its first page first)");
		else
			client_request_leaderboard(c, more ? c->ladder.kind : kind,
			                           more ? c->ladder.next : NULL, 0);
	} else if (strcmp(args[0], "history") == 0 && n == 2 && strcmp(args[1], "next") == 0) {
		/* history next: the page after the last one, by its key (at any depth) */
		if (c->history_next[0] == '\0')
			out("error: history: no next page (ask for a first page: history "
			    "[PLAYER])");
		else
			client_request_history(c, c->history_next, c->history_offset + c->nhistory,
			                       0, 10, c->history_player);
	} else if (strcmp(args[0], "history") == 0 && n <= 3) {
		/* history [PLAYER] [OFFSET]: a word of digits alone is an offset, "-1" a bad one */
		int alone = n == 2 && (strspn(args[1], "0123456789") == strlen(args[1]) ||
		                       (args[1][0] == '-' && isdigit((unsigned char)args[1][1])));
		const char *player = n > 1 && !alone ? args[1] : NULL;
		long off = n > 1 + (player != NULL) ? plain_count(args[1 + (player != NULL)]) : 0;
		if (off < 0)
			out("error: usage: history [PLAYER] [OFFSET] (0, the default, is the most "
			    "recent game)");
		else
			client_request_history(c, NULL, 0, off, 10, player);
	} else if (strcmp(args[0], "replay") == 0) {
		if (n > 1)
			client_request_record(c, args[1]);
		else if (c->st.table.active && c->st.table.over)
			client_request_record(c, c->st.table.id);
		else
			out("error: usage: replay GAME (or after a game is over: replay)");
	} else if (strcmp(args[0], "next") == 0 || strcmp(args[0], "prev") == 0 ||
	           strcmp(args[0], "first") == 0 || strcmp(args[0], "last") == 0) {
		const struct client_replay *r = &c->replay;
		long step = n > 1 ? plain_count(args[1]) : 1;
		if (step < 0)
			out("error: usage: %s [N] (a number of moves)", args[0]);
		else if (!r->active)
			out("error: nothing to replay (replay GAME first)");
		else if (args[0][0] == 'f')
			client_replay_seek(c, 0);
		else if (args[0][0] == 'l')
			client_replay_seek(c, (long)r->rec.nmoves);
		else
			client_replay_seek(c, (long)r->ply + (args[0][0] == 'n' ? step : -step));
		client_update(c);
	} else if (strcmp(args[0], "leave") == 0) {
		client_request_leave(c);
	} else if (n == 1 && (strchr(args[0], '-') || strchr(args[0], '+'))) {
		cmd_move(p, args[0]);
	} else if (n <= 2 && c->st.table.active &&
	           snprintf(joined, sizeof joined, "%s%s", args[0], n == 2 ? args[1] : "") <
	                   (int)sizeof joined &&
	           client_move_tidy(c->st.table.kind, joined, tidy, sizeof tidy) == 0) {
		cmd_move(p, tidy); /* "a2a3", "a2 a3", "xc5c6" */
	} else {
		out("error: unknown command '%s' (try 'help')", args[0]);
	}
}

void *
client_plain_detached(struct client *c)
{
	struct plain *p = xcalloc(1, sizeof *p);

	p->c = c;
	p->link = CLIENT_LINK_CONNECTING;
	return p;
}

void
client_plain_command(void *view_data, char *line)
{
	plain_command(view_data, line);
}

/* Whether a "wait" still holds: not our turn yet, and the game goes on. */
static int
plain_waiting(struct plain *p)
{
	const struct client_state *st = &p->c->st;

	if (!p->waiting)
		return 0;
	if (!st->table.active || st->table.over || client_state_our_turn(st))
		p->waiting = 0;
	return p->waiting;
}

/*
 * Whether commands may run: the command line's action (create, join, quick, watch) has been
 * sent, and the state of the game the server welcomed us back at has come. Nothing is read
 * before: a command would find no game yet.
 */
static int
plain_ready(const struct client *c)
{
	return (c->action_done || c->opt.action == CLIENT_ACTION_LOBBY) && !c->arriving;
}

/*
 * Run the commands whose turn has come: one line at a time, while the link is up, the client is
 * ready (plain_ready()), nothing is pending and no "wait" holds. At the end of input, quit once
 * all is run and answered.
 */
static void
plain_pump(struct plain *p)
{
	struct client *c = p->c;
	char line[PLAIN_LINE_MAX];

	while (!c->quitting && p->c->view_data == p && c->st.link == CLIENT_LINK_UP &&
	       c->npending == 0 && plain_ready(c) && !plain_waiting(p)) {
		char *nl = p->buflen > 0 ? memchr(p->buf, '\n', p->buflen) : NULL;
		size_t n;
		if (nl == NULL) {
			if (!p->eof || p->buflen == 0)
				break;
			nl = p->buf + p->buflen; /* a last line without its newline */
		}
		n = (size_t)(nl - p->buf);
		if (n >= sizeof line) {
			out("error: command line too long");
		} else {
			memcpy(line, p->buf, n);
			line[n] = '\0';
		}
		p->buflen -= n < p->buflen ? n + 1 : n;
		memmove(p->buf, p->buf + (p->buflen ? n + 1 : 0), p->buflen);
		if (n < sizeof line)
			plain_command(p, line);
	}
	/* The connection is pending too until the server has greeted us, and so is the action of
	 * the command line (create, join, quick, watch) until it is sent: without a server, even
	 * with no command to run, it ends as a failed connection (status 1). */
	if (p->eof && p->buflen == 0 && !c->quitting && p->c->view_data == p && p->greeted &&
	    (c->npending == 0 || c->st.link == CLIENT_LINK_FAILED) && !plain_waiting(p) &&
	    plain_ready(c))
		client_quit(c, 0);
}

/* Keep input bytes until their commands can run. */
static void
plain_input(struct plain *p, const char *data, size_t n)
{
	if (p->buflen + n > p->bufcap) {
		p->bufcap = (p->buflen + n) * 2;
		p->buf = xrealloc(p->buf, p->bufcap);
	}
	memcpy(p->buf + p->buflen, data, n);
	p->buflen += n;
	plain_pump(p);
}

/* Standard input ended: finish once what was asked is answered. */
static void
plain_eof(struct plain *p)
{
	p->eof = 1;
	plain_pump(p);
}

static void
plain_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct plain *p = h->data;

	*buf = uv_buf_init(p->fsbuf, sizeof p->fsbuf);
}

static void
plain_read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct plain *p = s->data;

	if (nread > 0) {
		client_request_wake(p->c);
		plain_input(p, buf->base, (size_t)nread);
		return;
	}
	if (nread < 0) {
		uv_read_stop(s);
		plain_eof(p);
	}
}

static void plain_fs_cb(uv_fs_t *req);
static void plain_free(struct plain *p);

static void
plain_fs_next(struct plain *p)
{
	uv_buf_t buf = uv_buf_init(p->fsbuf, sizeof p->fsbuf);

	if (uv_fs_read(p->c->loop, &p->fs, 0, &buf, 1, p->fsoff, plain_fs_cb) < 0)
		plain_eof(p);
	else
		p->reading = 1;
}

static void
plain_fs_cb(uv_fs_t *req)
{
	struct plain *p = container_of(req, struct plain, fs);
	ssize_t n = req->result;

	uv_fs_req_cleanup(req);
	p->reading = 0;
	if (p->closing) {
		plain_free(p);
		return;
	}
	if (n <= 0) {
		plain_eof(p);
		return;
	}
	p->fsoff += n;
	plain_input(p, p->fsbuf, (size_t)n);
	if (!p->closing && !p->c->quitting)
		plain_fs_next(p);
}

/* Free the view's memory. */
static void
plain_free(struct plain *p)
{
	free(p->buf);
	free(p);
}

static void
plain_close_cb(uv_handle_t *h)
{
	plain_free(h->data);
}

static int
plain_start(struct client *c)
{
	struct plain *p = xcalloc(1, sizeof *p);
	uv_handle_type type = uv_guess_handle(0);
	int rc = 0;

	p->c = c;
	p->link = CLIENT_LINK_CONNECTING;
	c->view_data = p;
	setvbuf(stdout, NULL, _IOLBF, 0);
	p->tty_out = isatty(STDOUT_FILENO);
	if (type == UV_TTY) {
		rc = uv_tty_init(c->loop, &p->input.tty, 0, 1);
	} else if (type == UV_NAMED_PIPE) {
		rc = uv_pipe_init(c->loop, &p->input.pipe, 0);
		if (rc == 0)
			rc = uv_pipe_open(&p->input.pipe, 0);
	} else {
		p->file = 1;
		plain_fs_next(p);
		return 0;
	}
	if (rc == 0) {
		p->input.stream.data = p;
		p->reading = 1;
		rc = uv_read_start(&p->input.stream, plain_alloc_cb, plain_read_cb);
	}
	if (rc < 0) {
		fprintf(stderr, "hokito: cannot read standard input: %s\n", uv_strerror(rc));
		return rc;
	}
	return 0;
}

static void
plain_stop(struct client *c)
{
	struct plain *p = c->view_data;

	if (p == NULL)
		return;
	c->view_data = NULL;
	p->closing = 1;
	if (p->login_name[0])
		client_password_echo(STDIN_FILENO, 1); /* a password was awaited */
	fflush(stdout);
	if (p->file) {
		if (p->reading)
			uv_cancel((uv_req_t *)&p->fs);
		else
			plain_free(p);
		return;
	}
	if (p->reading)
		uv_close((uv_handle_t *)&p->input.stream, plain_close_cb);
	else
		plain_free(p);
}

/*
 * view->login: a login or a registration of the login and register commands was refused (the
 * notice said why): back to the guest we were, on a new hello. Any other refusal before the
 * server greets us (the command line's --password-file, a guest's name that is an account's)
 * stops the program, as a script expects (returns 0).
 */
static int
plain_login(struct client *c, const char *code, int64_t retry_ms)
{
	struct plain *p = c->view_data;

	(void)retry_ms;
	if (p == NULL || !p->login_sent || code == NULL || p->guest_name[0] == '\0')
		return 0;
	p->login_sent = 0;
	out("back as the guest %s", p->guest_name);
	client_request_login(c, p->guest_name, NULL, 0);
	return 1;
}

const struct client_view client_plain_view = {
        .start = plain_start,
        .update = plain_update,
        .notice = plain_notice,
        .stop = plain_stop,
        .login = plain_login,
};
