/*
 * test-framer.c: input framing: whole lines only, however the stream is cut (partial lines,
 * several lines in one read, UTF-8 characters split between reads, byte by byte), CRLF, the line
 * limit (exactly at it, over it with and without the newline, sticky failure), and reads straight
 * into framer_space(); framer_cut() on a caller's own buffer.
 */
#include "protocol.h"
#include "test.h"

/* Take the next line into out (NUL-terminated). Returns framer_next()'s result. */
static int
next_line(struct framer *f, char *out, size_t size)
{
	const char *line;
	size_t len;
	int rc = framer_next(f, &line, &len);

	if (rc == 1) {
		if (len >= size)
			len = size - 1;
		memcpy(out, line, len);
		out[len] = '\0';
	}
	return rc;
}

TEST(framer_one_line)
{
	struct framer f;
	char out[64];

	framer_init(&f, 100);
	ASSERT_EQ(next_line(&f, out, sizeof out), 0);
	framer_feed(&f, "{\"type\":\"ping\"}\n", 16);
	ASSERT_EQ(next_line(&f, out, sizeof out), 1);
	ASSERT_STR_EQ(out, "{\"type\":\"ping\"}");
	ASSERT_EQ(next_line(&f, out, sizeof out), 0);
	ASSERT_EQ(framer_pending(&f), 0);
	framer_close(&f);
}

TEST(framer_partial_line)
{
	struct framer f;
	char out[64];

	framer_init(&f, 100);
	framer_feed(&f, "{\"type\":", 8);
	ASSERT_EQ(next_line(&f, out, sizeof out), 0);
	ASSERT_EQ(framer_pending(&f), 8);
	framer_feed(&f, "\"ping\"}", 7);
	ASSERT_EQ(next_line(&f, out, sizeof out), 0);
	framer_feed(&f, "\n{\"a\"", 5);
	ASSERT_EQ(next_line(&f, out, sizeof out), 1);
	ASSERT_STR_EQ(out, "{\"type\":\"ping\"}");
	ASSERT_EQ(next_line(&f, out, sizeof out), 0);
	ASSERT_EQ(framer_pending(&f), 4);
	framer_feed(&f, "}\n", 2);
	ASSERT_EQ(next_line(&f, out, sizeof out), 1);
	ASSERT_STR_EQ(out, "{\"a\"}");
	framer_close(&f);
}

TEST(framer_several_lines_in_one_read)
{
	struct framer f;
	char out[64];
	const char *in = "one\ntwo\r\n\nthree\nfour";

	framer_init(&f, 100);
	framer_feed(&f, in, strlen(in));
	ASSERT_EQ(next_line(&f, out, sizeof out), 1);
	ASSERT_STR_EQ(out, "one");
	ASSERT_EQ(next_line(&f, out, sizeof out), 1);
	ASSERT_STR_EQ(out, "two");
	ASSERT_EQ(next_line(&f, out, sizeof out), 1);
	ASSERT_STR_EQ(out, "");
	ASSERT_EQ(next_line(&f, out, sizeof out), 1);
	ASSERT_STR_EQ(out, "three");
	ASSERT_EQ(next_line(&f, out, sizeof out), 0);
	ASSERT_EQ(framer_pending(&f), 4);
	framer_close(&f);
}

TEST(framer_split_utf8)
{
	struct framer f;
	char out[64];
	const char *in = "{\"name\":\"\xc5\xbc\xc3\xb3\xc5\x82w \xf0\x9f\x90\xa2\"}\n";
	size_t n = strlen(in);
	struct msg m;
	struct msg_error err;
	const char *line;

	framer_init(&f, 100);
	/* byte by byte: every UTF-8 character is split between reads */
	for (size_t i = 0; i < n; i++) {
		framer_feed(&f, in + i, 1);
		ASSERT_EQ(next_line(&f, out, sizeof out), i + 1 == n ? 1 : 0);
	}
	ASSERT_EQ(strlen(out), n - 1);
	ASSERT_EQ(memcmp(out, in, n - 1), 0);
	framer_close(&f);
	/* and the line decodes with the name intact */
	line = "{\"type\":\"hello\",\"protocol\":1,\"name\":\"\xc5\xbc\xc3\xb3\"}";
	ASSERT_EQ(msg_decode(&m, line, strlen(line), &err), 0);
	ASSERT_STR_EQ(m.name, "\xc5\xbc\xc3\xb3");
	msg_clear(&m);
}

TEST(framer_limit_exact)
{
	struct framer f;
	char line[101], out[128];

	memset(line, 'x', 100);
	line[100] = '\n';
	framer_init(&f, 100);
	framer_feed(&f, line, 101);
	ASSERT_EQ(next_line(&f, out, sizeof out), 1);
	ASSERT_EQ(strlen(out), 100);
	/* 100 bytes and a CR still fit */
	framer_feed(&f, line, 100);
	framer_feed(&f, "\r\n", 2);
	ASSERT_EQ(next_line(&f, out, sizeof out), 1);
	ASSERT_EQ(strlen(out), 100);
	framer_close(&f);
}

TEST(framer_limit_over_with_newline)
{
	struct framer f;
	char line[102], out[128];

	memset(line, 'x', 101);
	line[101] = '\n';
	framer_init(&f, 100);
	framer_feed(&f, line, 102);
	ASSERT_EQ(next_line(&f, out, sizeof out), PROTO_ETOOLONG);
	/* sticky: even a good line after it is refused */
	framer_feed(&f, "ok\n", 3);
	ASSERT_EQ(next_line(&f, out, sizeof out), PROTO_ETOOLONG);
	framer_close(&f);
}

TEST(framer_limit_over_without_newline)
{
	struct framer f;
	char out[128];

	framer_init(&f, 100);
	for (int i = 0; i < 101; i++) {
		framer_feed(&f, "y", 1);
		ASSERT_EQ(next_line(&f, out, sizeof out), 0);
	}
	/* 102 bytes without a newline cannot become a line of at most 100 (+ CR) */
	framer_feed(&f, "y", 1);
	ASSERT_EQ(next_line(&f, out, sizeof out), PROTO_ETOOLONG);
	framer_close(&f);
}

TEST(framer_space_commit)
{
	struct framer f;
	char *base, out[64];
	size_t size;

	framer_init(&f, 1000);
	for (int round = 0; round < 1000; round++) {
		framer_space(&f, 16, &base, &size);
		ASSERT(size >= 16);
		memcpy(base, "abc\nde", 6);
		framer_commit(&f, 6);
		ASSERT_EQ(next_line(&f, out, sizeof out), 1);
		ASSERT_STR_EQ(out, round == 0 ? "abc" : "deabc");
		ASSERT_EQ(next_line(&f, out, sizeof out), 0);
	}
	/* the buffer was compacted, not grown without end */
	ASSERT(f.cap <= 8192);
	framer_close(&f);
	framer_close(&f); /* twice is fine */
}

TEST(framer_big_line_grows)
{
	struct framer f;
	static char big[70000];
	const char *line;
	size_t len;

	memset(big, 'z', sizeof big);
	big[sizeof big - 1] = '\n';
	framer_init(&f, 65536 + 10000);
	for (size_t i = 0; i < sizeof big; i += 1000) {
		size_t n = sizeof big - i < 1000 ? sizeof big - i : 1000;

		framer_feed(&f, big + i, n);
	}
	ASSERT_EQ(framer_next(&f, &line, &len), 1);
	ASSERT_EQ(len, sizeof big - 1);
	ASSERT_EQ(line[len], '\0');
	framer_close(&f);
}

TEST(framer_trim_releases)
{
	struct framer f;
	char out[64];

	framer_init(&f, 100);
	framer_feed(&f, "abc\nde", 6);
	ASSERT_EQ(next_line(&f, out, sizeof out), 1);
	framer_trim(&f); /* "de" is pending: kept */
	ASSERT(f.buf != NULL);
	framer_feed(&f, "f\n", 2);
	ASSERT_EQ(next_line(&f, out, sizeof out), 1);
	ASSERT_STR_EQ(out, "def");
	framer_trim(&f); /* nothing pending: released */
	ASSERT(f.buf == NULL);
	ASSERT_EQ(framer_pending(&f), 0);
	framer_feed(&f, "gh\n", 3);
	ASSERT_EQ(next_line(&f, out, sizeof out), 1);
	ASSERT_STR_EQ(out, "gh");
	framer_close(&f);
}

/* framer_cut() on a caller's buffer, in place: the limit and the '\r' as framer_next() has them. */
TEST(framer_cut_in_place)
{
	char buf[] = "abcd\r\nabcde\nabc";
	size_t len = 0, used = 0;

	ASSERT_EQ(framer_cut(buf, 0, 14, 4, &len, &used), 1); /* "abcd" + '\r': at the limit */
	ASSERT_EQ(len, 4);
	ASSERT_EQ(used, 6);
	ASSERT_STR_EQ(buf, "abcd");
	ASSERT_EQ(framer_cut(buf + 6, 0, 6, 4, &len, &used), PROTO_ETOOLONG); /* "abcde" */
	ASSERT_EQ(framer_cut(buf + 12, 0, 3, 4, &len, &used), 0); /* "abc": not whole yet */
	ASSERT_EQ(framer_cut(buf + 12, 3, 3, 4, &len, &used), 0); /* nothing past from */
	ASSERT_EQ(framer_cut(buf + 6, 0, 5, 3, &len, &used), PROTO_ETOOLONG); /* 5 > 3 + '\r' */
	ASSERT_EQ(framer_cut(buf + 6, 0, 4, 3, &len, &used), 0); /* 3 and maybe a '\r' */
}

int
main(void)
{
	RUN(framer_one_line);
	RUN(framer_partial_line);
	RUN(framer_several_lines_in_one_read);
	RUN(framer_split_utf8);
	RUN(framer_limit_exact);
	RUN(framer_limit_over_with_newline);
	RUN(framer_limit_over_without_newline);
	RUN(framer_space_commit);
	RUN(framer_big_line_grows);
	RUN(framer_trim_releases);
	RUN(framer_cut_in_place);
	TEST_END();
}
