/*
 * test-log.c: the server log's escaping (server/base/log.c): a record is one line whatever a peer wrote,
 * and nothing a peer wrote can change how it reads (C1 controls and bidi overrides once reached the
 * log raw).
 */
#include <stdio.h>
#include <unistd.h>

#include "log.h"
#include "test.h"

static const char *
esc(const char *in)
{
	static char out[256];

	log_escape(in, out, sizeof out);
	return out;
}

TEST(plain_text_is_kept)
{
	ASSERT_STR_EQ(esc("alice said hello from hokito 0.1.0"),
	              "alice said hello from hokito 0.1.0");
	ASSERT_STR_EQ(esc("na\xc3\xafve \xe2\x98\x83 \xf0\x9f\x98\x80"),
	              "na\xc3\xafve \xe2\x98\x83 \xf0\x9f\x98\x80");
}

TEST(c0_and_del)
{
	ASSERT_STR_EQ(esc("a\nb\rc\td\x1b[31me\x7f"), "a\\x0Ab\\x0Dc\\x09d\\x1B[31me\\x7F");
}

TEST(c1_controls)
{
	/* U+0085 NEL, U+009B CSI: the 8-bit escapes some terminals obey */
	ASSERT_STR_EQ(esc("x\xc2\x85y\xc2\x9b"
	                  "31m"),
	              "x\\u0085y\\u009B31m");
	ASSERT_STR_EQ(esc("\xc2\xa0"), "\xc2\xa0"); /* U+00A0 is text */
}

TEST(bidi_controls)
{
	/* "evil\u202egnp.exe" would read as "evilexe.png" */
	ASSERT_STR_EQ(esc("evil\xe2\x80\xaegnp.exe"), "evil\\u202Egnp.exe");
	ASSERT_STR_EQ(esc("\xe2\x81\xa6x\xe2\x81\xa9\xe2\x80\x8f\xd8\x9c"),
	              "\\u2066x\\u2069\\u200F\\u061C");
}

TEST(bytes_that_are_not_utf8)
{
	ASSERT_STR_EQ(esc("a\xff"
	                  "b\xc0\xaf"
	                  "c\xed\xa0\x80"
	                  "d\xe2\x82"),
	              "a\\xFFb\\xC0\\xAFc\\xED\\xA0\\x80d\\xE2\\x82");
}

TEST(stops_between_characters)
{
	char out[8];

	/* an escape that does not fit is left out whole, not cut */
	ASSERT_EQ(log_escape("abc\x1b"
	                     "def",
	                     out, 6),
	          3);
	ASSERT_STR_EQ(out, "abc");
	ASSERT_EQ(log_escape("ab\xe2\x98\x83\xe2\x98\x83", out, 6), 5);
	ASSERT_STR_EQ(out, "ab\xe2\x98\x83");
}

/* A whole record: one line on stderr, escaped. */
TEST(record_is_one_line)
{
	char buf[512] = "";
	FILE *f = tmpfile();
	int saved = dup(fileno(stderr));

	ASSERT(f != NULL);
	fflush(stderr);
	dup2(fileno(f), fileno(stderr));
	log_write(LOG_ERROR, "p1 (%s) said hello from %s", "mal\nlory", "x\xc2\x9b\xe2\x80\xae");
	fflush(stderr);
	dup2(saved, fileno(stderr));
	close(saved);
	rewind(f);
	ASSERT(fgets(buf, sizeof buf, f) != NULL);
	ASSERT(strstr(buf, " error: p1 (mal\\x0Alory) said hello from x\\u009B\\u202E\n") != NULL);
	ASSERT(fgets(buf, sizeof buf, f) == NULL);
	fclose(f);
}

int
main(void)
{
	RUN(plain_text_is_kept);
	RUN(c0_and_del);
	RUN(c1_controls);
	RUN(bidi_controls);
	RUN(bytes_that_are_not_utf8);
	RUN(stops_between_characters);
	RUN(record_is_one_line);
	TEST_END();
}
