/*
 * client-page-create.c: the create-a-game form (client_page_create), a box over the lobby.
 *
 * Its fields are the game, the variant, the seat, private or not, the clock, a person or the
 * computer, the computer's level, and rated or casual (offered to an account only: a guest's
 * games are casual, as are the computer's); the values live in struct screen (f_*) so that the form
 * opens again as it was left. A form that does not open on the defaults says so, with the
 * choices it kept ("Kept from last time: 5+3, rated"), and d puts the defaults back: a game
 * never comes out rated or timed unseen. The lobby draws it while s->mode is MODE_CREATE, and
 * the view hands it the keys then; Enter sends the create request.
 */
#include <stdio.h>
#include <string.h>

#include "client-screen.h"
#include "protocol.h"

/* The time controls the form offers; NULL is none. */
static const char *const clock_choices[] = {NULL, "1+0", "3+2", "5+3", "15+10"};
#define CLOCK_CHOICES 5
#define CREATE_FIELDS 8 /* game, variant, seat, private, clock, opponent, level, rated */

/* Whether the form may offer a rated game: logged in, against a person. */
static int
create_rated_offered(const struct screen *s)
{
	return client_state_account(&s->c->st) && !s->f_opponent;
}

void
client_page_create_defaults(struct screen *s)
{
	s->f_kind = s->f_variant = s->f_seat = s->f_private = s->f_clock = 0;
	s->f_opponent = s->f_rated = 0;
	s->f_level = PROTOCOL_LEVEL_DEFAULT - 1;
}

/*
 * The form's choices that are not the defaults, in words ("oxono, 5+3, rated"), into buf ("" for
 * none).
 */
static void
create_kept(const struct screen *s, char *buf, size_t size)
{
	const struct game_class *cl = game_class_of((enum game_kind)s->f_kind);
	const char *words[8];
	char level[32];
	int n = 0;
	size_t len = 0;

	if (s->f_kind != 0)
		words[n++] = game_kind_name((enum game_kind)s->f_kind);
	if (s->f_variant != 0)
		words[n++] = cl->variants[s->f_variant];
	if (s->f_seat != 0)
		words[n++] = cl->side[s->f_seat - 1];
	if (s->f_private)
		words[n++] = "private";
	if (s->f_clock != 0)
		words[n++] = clock_choices[s->f_clock];
	if (s->f_opponent) {
		snprintf(level, sizeof level, "computer level %d", s->f_level + 1);
		words[n++] = level;
	}
	if (create_rated_offered(s) && s->f_rated)
		words[n++] = "rated";
	buf[0] = '\0';
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i > 0 ? ", " : "", words[i]);
}

static void
draw_create(struct screen *s)
{
	const struct game_class *cl = game_class_of((enum game_kind)s->f_kind);
	static const char *const seats[3] = {"random", "first", "second"};
	static const char *const labels[] = {"Game",  "Variant",  "Seat",  "Private",
	                                     "Clock", "Opponent", "Level", "Rating"};
	static const char *const levels[] = {"1", "2", "3", "4", "5", "6", "7", "8"};
	int w = 52, h = 14, y = (LINES - h) / 2, x = (COLS - w) / 2;
	char seatbuf[3][24], kept[160];

	client_screen_frame(s, y, x, h, w, "Create a game");
	snprintf(seatbuf[0], sizeof seatbuf[0], "%s", seats[0]);
	snprintf(seatbuf[1], sizeof seatbuf[1], "%s", cl->side[0]);
	snprintf(seatbuf[2], sizeof seatbuf[2], "%s", cl->side[1]);
	for (int f = 0; f < CREATE_FIELDS; f++) {
		const char *opts[8] = {NULL};
		int cur = 0, n = 0;
		int dim = (f == 6 && !s->f_opponent) || (f == 7 && !create_rated_offered(s));
		switch (f) {
		case 0:
			for (n = 0; n < game_class_count && n < 8; n++)
				opts[n] = game_kind_title((enum game_kind)n);
			cur = s->f_kind;
			break;
		case 1:
			for (n = 0; cl->variants[n] != NULL && n < 8; n++)
				opts[n] = cl->variants[n];
			cur = s->f_variant;
			break;
		case 2:
			opts[0] = seatbuf[0], opts[1] = seatbuf[1], opts[2] = seatbuf[2];
			n = 3, cur = s->f_seat;
			break;
		case 3:
			opts[0] = "public", opts[1] = "private", n = 2, cur = s->f_private;
			break;
		case 5:
			opts[0] = "person", opts[1] = "computer", n = 2, cur = s->f_opponent;
			break;
		case 7:
			opts[0] = "casual", opts[1] = "rated", n = 2;
			cur = create_rated_offered(s) ? s->f_rated : 0;
			break;
		case 6:
			for (n = 0; n < 8; n++)
				opts[n] = levels[n];
			cur = s->f_level;
			break;
		default:
			for (n = 0; n < CLOCK_CHOICES; n++)
				opts[n] = clock_choices[n] ? clock_choices[n] : "none";
			cur = s->f_clock;
			break;
		}
		if (f == s->field)
			attron(A_BOLD);
		client_screen_put(y + 2 + f, x + 2, 0, "%s %-8s",
		                  f == s->field ? client_screen_glyph(s, "\xe2\x96\xb6", ">") : " ",
		                  labels[f]);
		attroff(A_BOLD);
		int ox = x + 14;
		for (int i = 0; i < n; i++) {
			if (dim)
				attron(A_DIM);
			else if (i == cur)
				attron(A_REVERSE | A_BOLD);
			client_screen_put(y + 2 + f, ox, 0, " %s ", opts[i]);
			attroff(A_REVERSE | A_BOLD | A_DIM);
			ox += (int)strlen(opts[i]) + (f == 6 ? 2 : 3);
		}
	}
	create_kept(s, kept, sizeof kept);
	if (kept[0] != '\0') {
		attron(A_BOLD);
		client_screen_put(y + h - 4, x + 2, w - 4, "Kept from last time: %s", kept);
		attroff(A_BOLD);
	}
	attron(A_DIM);
	client_screen_put(y + h - 3, x + 2, w - 4, "Up/Down field, Left/Right value%s",
	                  kept[0] != '\0' ? ", d: defaults" : "");
	client_screen_put(y + h - 2, x + 2, w - 4, "Enter: create   Esc: cancel");
	attroff(A_DIM);
	{
		static const char *const keys[] = {"Up/Down", "field",    "Left/Right", "value",
		                                   "d",       "defaults", "Esc",        "cancel",
		                                   "Enter",   "create",   NULL};
		client_screen_hints(keys);
	}
}

static void
create_key(struct screen *s, int ch, MEVENT *mev)
{
	const struct game_class *cl = game_class_of((enum game_kind)s->f_kind);
	int nvariants = 0;

	while (cl->variants[nvariants] != NULL)
		nvariants++;
	int nvalues[CREATE_FIELDS] = {game_class_count,   nvariants, 3, 2, CLOCK_CHOICES, 2,
	                              PROTOCOL_LEVEL_MAX, 2};
	int *val[CREATE_FIELDS] = {&s->f_kind,  &s->f_variant,  &s->f_seat,  &s->f_private,
	                           &s->f_clock, &s->f_opponent, &s->f_level, &s->f_rated};

	switch (ch) {
	case KEY_ESCAPE:
	case 'q':
		s->mode = MODE_NORMAL;
		return;
	case KEY_UP:
	case 'k':
		s->field = (s->field + CREATE_FIELDS - 1) % CREATE_FIELDS;
		return;
	case KEY_DOWN:
	case 'j':
	case '\t':
		s->field = (s->field + 1) % CREATE_FIELDS;
		return;
	case KEY_LEFT:
	case 'h':
		*val[s->field] = (*val[s->field] + nvalues[s->field] - 1) % nvalues[s->field];
		break;
	case KEY_RIGHT:
	case 'l':
	case ' ':
		*val[s->field] = (*val[s->field] + 1) % nvalues[s->field];
		break;
	case 'd':
		client_page_create_defaults(s);
		return;
	case '\n':
	case '\r':
	case KEY_ENTER: {
		s->mode = MODE_NORMAL;
		/* the first variant is the standard one, which create need not name */
		client_request_create(s->c, (enum game_kind)s->f_kind,
		                      s->f_variant > 0 ? cl->variants[s->f_variant] : NULL,
		                      s->f_seat - 1, s->f_private, clock_choices[s->f_clock],
		                      s->f_opponent ? s->f_level + 1 : 0,
		                      create_rated_offered(s) && s->f_rated);
		return;
	}
	default:
		return;
	}
	/* a kind with fewer variants than the one before */
	cl = game_class_of((enum game_kind)s->f_kind);
	for (int i = 0; i <= s->f_variant; i++)
		if (cl->variants[i] == NULL) {
			s->f_variant = 0;
			break;
		}
}

const struct client_page client_page_create = {
        .name = "create",
        .title = NULL, /* over the lobby, whose title stays */
        .draw = draw_create,
        .key = create_key,
        .help = NULL, /* its keys are on its box */
};
