/*
 * test-rules-text.c: the rules told to people (common/rules-text.c) are there for every kind,
 * fit a 76-column terminal, are plain printable ASCII, and name the rules that decide a game.
 */
#include "rules-text.h"
#include "test.h"

/* Every line of text: printable ASCII, at most 76 columns, and the text ends with a line feed. */
static void
check_shape(const char *text)
{
	size_t col = 0, len = strlen(text);

	ASSERT(len > 1000);
	ASSERT_EQ(text[len - 1], '\n');
	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			col = 0;
			continue;
		}
		ASSERT(*p >= 0x20 && *p < 0x7f);
		col++;
		ASSERT(col <= 76);
	}
}

TEST(hokito_shape)
{
	check_shape(rules_text_get(GAME_HOKITO));
}

TEST(oxono_shape)
{
	check_shape(rules_text_get(GAME_OXONO));
}

/* The rules a player needs to finish a game are each told. */
TEST(hokito_says_what_decides)
{
	const char *t = rules_text_get(GAME_HOKITO);

	ASSERT(strstr(t, "FIRST occupied square") != NULL);
	ASSERT(strstr(t, "never back the way it") != NULL);
	ASSERT(strstr(t, "a lone pawn must end on a lone pawn") != NULL);
	ASSERT(strstr(t, "EITHER player has no legal move") != NULL);
	ASSERT(strstr(t, "times the number of pawns in the stack") != NULL);
}

TEST(oxono_says_what_decides)
{
	const char *t = rules_text_get(GAME_OXONO);

	ASSERT(strstr(t, "over empty squares only") != NULL);
	ASSERT(strstr(t, "If all four are taken") != NULL);
	ASSERT(strstr(t, "BOXED-IN TOTEM") != NULL);
	ASSERT(strstr(t, "Totems break lines") != NULL);
	ASSERT(strstr(t, "all 32 pawns are placed") != NULL);
}

int
main(void)
{
	RUN(hokito_shape);
	RUN(oxono_shape);
	RUN(hokito_says_what_decides);
	RUN(oxono_says_what_decides);
	TEST_END();
}
