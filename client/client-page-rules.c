/*
 * client-page-rules.c: the rules page (client_page_rules): the rules of HOKITO or OXONO in words
 * with small diagrams, from common/rules-text.c (the words hokito-engine rules and hokito(6)
 * show), scrolled a line or a page at a time.
 *
 * R opens it from any page (client-screen-view.c); it shows the rules of the game at the table,
 * or HOKITO's from the lobby, and Tab turns to the other game's. It goes back where it came from
 * (R, q or Esc). The text is at most 76 columns wide: on a narrower terminal a line that does not
 * fit is wrapped at a space, its continuation indented like it. Like every page it only reads.
 */
#include <stdio.h>
#include <string.h>

#include "client-screen.h"
#include "rules-text.h"

#define RULES_ROWS_MAX 1024 /* screen rows of a rules text, wrapped: far more than either takes */

/* One screen row of the rules text: len bytes from text, drawn ind columns in. */
struct rules_row {
	const char *text;
	int len, ind;
};

/*
 * The rows of text in w columns: each line of the text as it is when it fits, else wrapped at
 * spaces with its continuation indented as the line is. Returns the row count.
 */
/* The kind whose rules Tab shows next: the registry's next, round to the first. */
static enum game_kind
rules_next_kind(enum game_kind kind)
{
	return (enum game_kind)(((int)kind + 1) % game_class_count);
}

static int
rules_rows(const char *text, int w, struct rules_row *rows, int max)
{
	int n = 0;

	while (*text != '\0' && n < max) {
		const char *eol = strchr(text, '\n');
		int linelen = eol != NULL ? (int)(eol - text) : (int)strlen(text), ind = 0;
		char line[256];

		snprintf(line, sizeof line, "%.*s", linelen, text);
		while (line[ind] == ' ')
			ind++;
		if (linelen <= w || ind >= w / 2) {
			rows[n++] = (struct rules_row){text, linelen, 0};
		} else {
			const char *p = line, *next;
			for (int first = 1; *p != '\0' && n < max; p = next, first = 0) {
				int in = first ? 0 : ind;
				int len = client_screen_wrap_line(p, w - in, &next);
				rows[n++] = (struct rules_row){text + (p - line), len, in};
			}
		}
		text += linelen + (eol != NULL);
	}
	return n;
}

void
client_page_rules_open(struct screen *s)
{
	const struct client_table *t = &s->c->st.table;

	if (s->page == &client_page_rules)
		return;
	s->rules_back = s->page;
	s->rules_kind = t->active ? (int)t->kind : (int)GAME_HOKITO;
	s->rules_top = 0;
	s->page = &client_page_rules;
}

/* The rows that fit between the heading and the notice line. */
static int
rules_room(void)
{
	return LINES - 3 - 4 > 1 ? LINES - 3 - 4 : 1;
}

static void
draw_rules(struct screen *s)
{
	static struct rules_row rows[RULES_ROWS_MAX];
	enum game_kind kind = (enum game_kind)s->rules_kind;
	int w = COLS - 4, room = rules_room(), y = 2;
	int n = rules_rows(rules_text_get(kind), w, rows, RULES_ROWS_MAX);

	if (s->rules_top > n - room)
		s->rules_top = n - room;
	if (s->rules_top < 0)
		s->rules_top = 0;
	attron(A_BOLD);
	client_screen_put(y, 2, w, "The rules of %s", game_kind_title(kind));
	attroff(A_BOLD);
	attron(A_DIM);
	client_screen_put(y, 22, w - 20, "lines %d-%d of %d (Tab: the rules of %s)",
	                  s->rules_top + 1, s->rules_top + room < n ? s->rules_top + room : n, n,
	                  game_kind_title(rules_next_kind(kind)));
	attroff(A_DIM);
	y += 2;
	for (int i = s->rules_top; i < n && i < s->rules_top + room; i++, y++) {
		char line[256];
		snprintf(line, sizeof line, "%.*s", rows[i].len, rows[i].text);
		client_screen_putn(y, 2 + rows[i].ind, w - rows[i].ind, line);
	}
	{
		static const char *const keys[] = {
		        "Up/Down", "scroll", "Space/PgDn", "page", "Tab", "other game",
		        "q",       "back",   "?",          "help", NULL,
		};
		client_screen_hints(keys);
	}
}

static void
rules_key(struct screen *s, int ch, MEVENT *mev)
{
	int room = rules_room();

	(void)mev;
	switch (ch) {
	case KEY_UP:
	case 'k':
		s->rules_top--;
		break;
	case KEY_DOWN:
	case 'j':
		s->rules_top++;
		break;
	case KEY_PPAGE:
	case 'b':
		s->rules_top -= room;
		break;
	case KEY_NPAGE:
	case ' ':
		s->rules_top += room;
		break;
	case KEY_HOME:
	case 'g':
		s->rules_top = 0;
		break;
	case KEY_END:
	case 'G':
		s->rules_top = RULES_ROWS_MAX; /* draw_rules() keeps it within the text */
		break;
	case '\t':
	case 'o':
		s->rules_kind = (int)rules_next_kind((enum game_kind)s->rules_kind);
		s->rules_top = 0;
		break;
	case 'q':
	case 'R':
	case KEY_ESCAPE:
		s->page = s->rules_back;
		break;
	default:
		break;
	}
}

/* The title: "rules of HOKITO". */
static void
rules_title(const struct screen *s, char *buf, size_t size)
{
	snprintf(buf, size, "rules of %s", game_kind_title(s->rules_kind));
}

static const char *const rules_help[] = {
        "Up/Down, j/k    scroll a line",
        "Space / PgDn    a page down (b / PgUp: up)",
        "Home / End      the first / the last line",
        "Tab or o        the rules of the other game",
        "R, q or Esc     back where you were",
        "",
        "R opens this page from anywhere: the lobby, a game,",
        "the history or a replay. hokito-engine rules prints",
        "the same words, and hokito(6) has them under RULES.",
        NULL,
};

const struct client_page client_page_rules = {
        .name = "rules",
        .title = rules_title,
        .draw = draw_rules,
        .key = rules_key,
        .help = rules_help,
};
