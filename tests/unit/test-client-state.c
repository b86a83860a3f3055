/*
 * test-client-state.c: what the terminal client knows and the questions its views ask
 * (client-state.c), on its own: no terminal, no socket.
 *
 * The checks are the ones a player meets: a move refused before anything is sent and why, a
 * replayed event applied once, clocks and grace periods counting down on the right turns, the
 * chat kept as a ring (and both chats read back together, in order), the words of a result, and
 * what the protocol's rules decide (the table's struct event_state, applied event by event through
 * protocol's codecs) shown on the fields the views read.
 */
#include "client.h"
#include "test.h"

/* st at a started HOKITO game (seed 0 start), seated as side (-1 watching). */
static int
table(struct client_state *st, int side)
{
	struct game_error err;

	client_state_init(st);
	client_state_table_clear(st);
	if (client_state_table_open(st, GAME_HOKITO, "standard", "g1", side, NULL, &err) < 0)
		return -1;
	st->table.started = 1;
	st->table.seq = 3;
	return 0;
}

/* The text of the first legal move of t's position. */
static void
first_move(const struct client_table *t, char *out, size_t size)
{
	struct game_move moves[GAME_MOVES_MAX];

	game_moves(&t->game, moves);
	game_move_format(t->kind, moves[0], out, size);
}

TEST(move_refused_before_sending)
{
	static struct client_state st;
	char mv[GAME_MOVE_TEXT], out[GAME_MOVE_TEXT], why[200];

	ASSERT_EQ(table(&st, -1), 0);
	first_move(&st.table, mv, sizeof mv);
	ASSERT(client_state_move_check(&st, mv, out, sizeof out, why, sizeof why) < 0);
	ASSERT_STR_EQ(why, "You are watching this game: you cannot move.");

	ASSERT_EQ(table(&st, 1), 0); /* white: black moves first */
	ASSERT(!client_state_our_turn(&st));
	ASSERT(client_state_move_check(&st, mv, out, sizeof out, why, sizeof why) < 0);
	ASSERT_STR_EQ(why, "Not your turn: Black to move.");

	ASSERT_EQ(table(&st, 0), 0);
	ASSERT(client_state_our_turn(&st));
	ASSERT_EQ(client_state_move_check(&st, mv, out, sizeof out, why, sizeof why), 0);
	ASSERT_STR_EQ(out, mv);
	ASSERT(client_state_move_check(&st, "a1-f6", out, sizeof out, why, sizeof why) < 0);
	ASSERT(strncmp(why, "a1-f6: ", 7) == 0 && strlen(why) > 8);
	st.table.adjourned = 1;
	ASSERT(client_state_move_check(&st, mv, out, sizeof out, why, sizeof why) < 0);
	ASSERT_STR_EQ(why, "The game is adjourned: it goes on when both players are back.");
}

TEST(selectable_says_why)
{
	static struct client_state st;
	char why[200];
	struct client_cell cell;
	int theirs = -1, empty = -1;

	ASSERT_EQ(table(&st, 0), 0);
	for (int sq = 0; sq < 36; sq++) {
		client_state_cell(&st.table.game, sq, &cell);
		if (!cell.empty && cell.colour == 1 && theirs < 0)
			theirs = sq;
	}
	ASSERT(theirs >= 0);
	ASSERT_EQ(client_state_selectable(&st, theirs, why, sizeof why), -1);
	ASSERT(strstr(why, "is White's: you play Black.") != NULL);

	char mv[GAME_MOVE_TEXT];
	struct game_move m;
	struct game_error err;

	first_move(&st.table, mv, sizeof mv);
	ASSERT_EQ(game_move_parse(&st.table.game, mv, &m, &err), 0);
	ASSERT_EQ(client_state_selectable(&st, m.from, why, sizeof why), 0);
	uint8_t mask[36];
	ASSERT(client_state_destinations(&st.table.game, m.from, -1, mask) > 0);
	ASSERT_EQ(mask[m.to], 1);

	ASSERT_EQ(client_state_table_move(&st, 4, mv, NULL, &err), 0);
	client_state_cell(&st.table.game, m.from, &cell);
	if (cell.empty)
		empty = m.from;
	ASSERT(empty >= 0); /* a single pawn left its square */
	st.table.seat = 1;
	ASSERT_EQ(client_state_selectable(&st, empty, why, sizeof why), -1);
	ASSERT(strstr(why, "is empty") != NULL);
}

/* Events at or below the last seq seen (a replay after reconnecting) are applied once. */
TEST(replayed_move_applied_once)
{
	static struct client_state st;
	struct game_error err;
	char mv[GAME_MOVE_TEXT];

	ASSERT_EQ(table(&st, 0), 0);
	first_move(&st.table, mv, sizeof mv);
	ASSERT_EQ(client_state_table_move(&st, 4, mv, NULL, &err), 0);
	ASSERT_EQ(client_state_table_move(&st, 4, mv, NULL, &err), 1);
	ASSERT_EQ(client_state_table_move(&st, 2, mv, NULL, &err), 1);
	ASSERT_EQ(st.table.nmoves, 1);
	ASSERT_EQ(st.table.seq, 4);
	ASSERT_EQ(game_side(&st.table.game), 1);
	ASSERT(client_state_table_move(&st, 5, "z9", NULL, &err) < 0);
	ASSERT_EQ(st.table.nmoves, 1);
}

/* The running clock is the side to move's; a dropped player's grace runs on its turns only. */
TEST(clocks_and_grace_count_down)
{
	static struct client_state st;
	struct game_error err;
	char mv[GAME_MOVE_TEXT];
	struct client_table *t = &st.table;

	ASSERT_EQ(table(&st, 0), 0);
	ASSERT_EQ(client_state_clock(t, 0, 5000), -1); /* no clock */
	t->timed = 1;
	t->clock_ms[0] = t->clock_ms[1] = 60000;
	t->clock_stamp = 1000;
	ASSERT_EQ(client_state_clock(t, 0, 11000), 50000);
	ASSERT_EQ(client_state_clock(t, 1, 11000), 60000);
	ASSERT_EQ(client_state_clock(t, 0, 500000), 0);

	t->seats[1].connected = 0;
	t->seats[1].grace_ms = 30000;
	t->seats[1].grace_stamp = 1000;
	ASSERT_EQ(client_state_grace(t, 1, 21000), 30000); /* black thinks: white's grace waits */
	first_move(t, mv, sizeof mv);
	st.now = 21000;
	ASSERT_EQ(client_state_table_move(&st, 4, mv, NULL, &err), 0);
	ASSERT_EQ(client_state_grace(t, 1, 31000), 20000);
	ASSERT_EQ(client_state_grace(t, 1, 99000), 0);
	t->seats[1].connected = 1;
	ASSERT_EQ(client_state_grace(t, 1, 31000), 0);
}

TEST(chat_ring_keeps_the_latest)
{
	static struct client_state st;
	char text[32];

	ASSERT_EQ(table(&st, 0), 0);
	ASSERT(client_state_chat_get(&st.table, 0, 0) == NULL);
	for (int i = 0; i < CLIENT_CHAT_KEEP + 10; i++) {
		snprintf(text, sizeof text, "line %d", i);
		client_state_chat_add(&st, 0, i % 2, "bob", text);
	}
	client_state_chat_add(&st, 1, -1, "carol", "kibitz");
	snprintf(text, sizeof text, "line %d", CLIENT_CHAT_KEEP + 9);
	ASSERT_STR_EQ(client_state_chat_get(&st.table, 0, 0)->text, text);
	snprintf(text, sizeof text, "line %d", 10);
	ASSERT_STR_EQ(client_state_chat_get(&st.table, 0, CLIENT_CHAT_KEEP - 1)->text, text);
	ASSERT(client_state_chat_get(&st.table, 0, CLIENT_CHAT_KEEP) == NULL);
	ASSERT_STR_EQ(client_state_chat_get(&st.table, 1, 0)->name, "carol");
	ASSERT(client_state_chat_get(&st.table, 1, 1) == NULL);
}

TEST(chat_log_keeps_both_chats_in_order)
{
	static struct client_state st;
	const struct client_chat *l;
	int kibitz = -1;

	ASSERT_EQ(table(&st, -1), 0);
	ASSERT(client_state_chat_log(&st.table, 0, &kibitz) == NULL);
	client_state_chat_add(&st, 0, 0, "alice", "one");
	client_state_chat_add(&st, 1, -1, "carol", "two");
	client_state_chat_add(&st, 1, -1, "dave", "three");
	client_state_chat_add(&st, 0, 1, "bob", "four");
	l = client_state_chat_log(&st.table, 0, &kibitz);
	ASSERT(l != NULL);
	ASSERT_STR_EQ(l->text, "four");
	ASSERT_EQ(kibitz, 0);
	l = client_state_chat_log(&st.table, 1, &kibitz);
	ASSERT(l != NULL);
	ASSERT_STR_EQ(l->text, "three");
	ASSERT_EQ(kibitz, 1);
	ASSERT_STR_EQ(client_state_chat_log(&st.table, 2, &kibitz)->text, "two");
	ASSERT_STR_EQ(client_state_chat_log(&st.table, 3, &kibitz)->text, "one");
	ASSERT_EQ(kibitz, 0);
	ASSERT(client_state_chat_log(&st.table, 4, &kibitz) == NULL);
	/* a full ring: the log holds what both rings keep, no more */
	for (int i = 0; i < 2 * CLIENT_CHAT_KEEP; i++)
		client_state_chat_add(&st, i % 2, 0, "bob", "again");
	ASSERT(client_state_chat_log(&st.table, 2 * CLIENT_CHAT_KEEP - 1, &kibitz) != NULL);
	ASSERT(client_state_chat_log(&st.table, 2 * CLIENT_CHAT_KEEP, &kibitz) == NULL);
}

TEST(outcome_words)
{
	char buf[64];
	const int score[2] = {47, 22};

	client_state_outcome_text(GAME_HOKITO, 0, score, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "Black wins, 47 to 22");
	client_state_outcome_text(GAME_HOKITO, 1, score, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "White wins, 22 to 47");
	client_state_outcome_text(GAME_HOKITO, -1, score, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "Draw, 47 to 22");
	client_state_outcome_text(GAME_OXONO, 0, score, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "Pink wins");
	client_state_outcome_text(GAME_OXONO, -1, score, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "Draw");
}

/* Decode line as an event of st's game and apply it to the table's rules; the return code. */
static int
apply_line(struct client_state *st, const char *line)
{
	struct msg_error err;
	struct event ev;
	json_t *o = json_loads(line, 0, NULL);
	int rc = o == NULL ? -1 : event_decode(o, st->table.kind, &ev, &err);

	if (rc == 0)
		rc = event_state_apply(&st->table.rules, &ev, &err);
	if (rc == 0)
		client_state_table_follow(st, 1);
	json_decref(o);
	return rc;
}

/*
 * The rules say (protocol/event-state.c, tested in test-event.c), the views show: a draw offer
 * that lapsed, an adjournment with whose grace ran out, a move refused in it (nothing changes),
 * and the turn back after resumed.
 */
TEST(rules_shown_on_the_table)
{
	static struct client_state st;
	struct client_table *t = &st.table;
	struct event_state *r = &t->rules;

	ASSERT_EQ(table(&st, 0), 0);
	event_state_init(r, GAME_HOKITO);
	r->status = EVENT_STATUS_LIVE;
	r->seq = 3;
	r->to_move = r->first = 0;
	for (int i = 0; i < 2; i++)
		r->seated[i] = r->connected[i] = 1;
	client_state_table_follow(&st, 1);
	ASSERT_EQ(t->started, 1);
	ASSERT_EQ(t->draw_offer, -1);

	ASSERT_EQ(apply_line(&st, "{\"type\":\"draw_offered\",\"game\":\"g1\",\"seq\":4,"
	                          "\"by\":\"white\"}"),
	          0);
	ASSERT_EQ(t->draw_offer, 1);
	ASSERT_EQ(t->seq, 4);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"moved\",\"game\":\"g1\",\"seq\":5,\"by\":"
	                          "\"black\",\"move\":\"a1-a2\",\"ply\":1,\"position\":\"p\","
	                          "\"to_move\":\"white\"}"),
	          0);
	ASSERT_EQ(t->draw_offer, -1); /* made to black, who moved */
	ASSERT_EQ(t->seq, 5);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"adjourned\",\"game\":\"g1\",\"seq\":6,"
	                          "\"seat\":\"black\"}"),
	          0);
	ASSERT_EQ(t->adjourned, 1);
	ASSERT_EQ(t->draw_offer, -1);
	ASSERT_EQ(t->seats[0].grace_over, 1);
	ASSERT_EQ(t->seats[1].grace_over, 0);
	ASSERT(!client_state_our_turn(&st));

	/* no move in an adjourned game: refused, and nothing changes */
	ASSERT(apply_line(&st, "{\"type\":\"moved\",\"game\":\"g1\",\"seq\":7,\"by\":"
	                       "\"white\",\"move\":\"a6-a5\",\"ply\":2,\"position\":\"p\","
	                       "\"to_move\":\"black\"}") < 0);
	ASSERT_EQ(t->seq, 6);
	ASSERT_EQ(apply_line(&st, "{\"type\":\"resumed\",\"game\":\"g1\",\"seq\":7,"
	                          "\"to_move\":\"black\"}"),
	          0);
	ASSERT_EQ(t->adjourned, 0);
	ASSERT_EQ(t->seats[0].grace_over, 0);
	ASSERT(client_state_our_turn(&st));
}

/* Names show what they are: an account with its rating, a guest, a bot, the computer. */
TEST(players_marked)
{
	char buf[200];

	ASSERT_EQ(client_state_who_parse("account"), CLIENT_WHO_ACCOUNT);
	ASSERT_EQ(client_state_who_parse("guest"), CLIENT_WHO_GUEST);
	ASSERT_EQ(client_state_who_parse("computer"), CLIENT_WHO_COMPUTER);
	ASSERT_EQ(client_state_who_parse("bot"), CLIENT_WHO_BOT);
	ASSERT_EQ(client_state_who_parse("robot"), CLIENT_WHO_UNKNOWN);
	ASSERT_EQ(client_state_who_parse(NULL), CLIENT_WHO_UNKNOWN);
	client_state_player_text("alice", CLIENT_WHO_ACCOUNT, "1623", buf, sizeof buf);
	ASSERT_STR_EQ(buf, "alice 1623");
	client_state_player_text("bob", CLIENT_WHO_ACCOUNT, "1500?", buf, sizeof buf);
	ASSERT_STR_EQ(buf, "bob 1500?");
	client_state_player_text("bob", CLIENT_WHO_ACCOUNT, NULL, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "bob");
	client_state_player_text("carol", CLIENT_WHO_GUEST, "", buf, sizeof buf);
	ASSERT_STR_EQ(buf, "carol (guest)");
	client_state_player_text("rob", CLIENT_WHO_BOT, "1710", buf, sizeof buf);
	ASSERT_STR_EQ(buf, "rob [bot] 1710");
	client_state_player_text("computer (level 4)", CLIENT_WHO_COMPUTER, "", buf, sizeof buf);
	ASSERT_STR_EQ(buf, "computer (level 4)");
	client_state_player_text("old", CLIENT_WHO_UNKNOWN, "", buf, sizeof buf);
	ASSERT_STR_EQ(buf, "old"); /* a server that does not say */
}

/* A rated game's end: each side's change in whole points of the full values. */
TEST(rating_change_words)
{
	struct client_state st;
	struct client_table *t = &st.table;
	char buf[200];

	client_state_init(&st);
	ASSERT_EQ(table(&st, 0), 0);
	snprintf(t->seats[0].name, sizeof t->seats[0].name, "alice");
	snprintf(t->seats[1].name, sizeof t->seats[1].name, "bob");
	client_state_change_text(t, 0, buf, sizeof buf);
	ASSERT_STR_EQ(buf, ""); /* a casual game */
	t->change[0] = (struct client_rating_change){1, 1500.0, 1662.31, "1500?", "1662?"};
	t->change[1] = (struct client_rating_change){1, 1500.0, 1337.69, "1500?", "1338?"};
	client_state_change_text(t, 0, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "alice 1500? -> 1662?, +162");
	client_state_change_text(t, 1, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "bob 1500? -> 1338?, -162");
	t->change[1] = (struct client_rating_change){1, 1600.2, 1600.0, "1600", "1600"};
	client_state_change_text(t, 1, buf, sizeof buf);
	ASSERT_STR_EQ(buf, "bob 1600 -> 1600, +0");
}

int
main(void)
{
	RUN(players_marked);
	RUN(rating_change_words);
	RUN(move_refused_before_sending);
	RUN(selectable_says_why);
	RUN(replayed_move_applied_once);
	RUN(clocks_and_grace_count_down);
	RUN(chat_ring_keeps_the_latest);
	RUN(chat_log_keeps_both_chats_in_order);
	RUN(outcome_words);
	RUN(rules_shown_on_the_table);
	TEST_END();
}
