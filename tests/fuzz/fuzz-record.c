/*
 * fuzz-record.c: the game record parser (common/record.c), and what an accepted record must
 * satisfy.
 *
 * Input: the record text itself. Whatever the bytes, the parser must not crash, and a refusal
 * must carry a code, a sentence and a place inside the text. When it accepts, the record must
 * write back to a text that parses to the same game (same moves, result and final position),
 * and writing that again must give the very same text.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "record.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct record r, p;
	static char out[RECORD_TEXT_MAX], again[RECORD_TEXT_MAX];
	char a[GAME_TEXT_MAX], b[GAME_TEXT_MAX];
	struct record_error err;
	int len, len2, lines = 1;

	if (size > 16384)
		return 0;
	if (record_parse(&r, (const char *)data, size, &err) != 0) {
		check(err.code == RECORD_ESYNTAX || err.code == RECORD_EILLEGAL ||
		      err.code == RECORD_EMISMATCH);
		check(err.text[0] != '\0');
		for (size_t i = 0; i < size; i++)
			lines += data[i] == '\n';
		check(err.line >= 1 && err.line <= lines && err.column >= 1);
		return 0;
	}
	len = record_write(&r, out, sizeof out, &err);
	check(len > 0);
	check(record_parse(&p, out, (size_t)len, &err) == 0);
	check(p.kind == r.kind && p.nmoves == r.nmoves && p.result == r.result);
	check(memcmp(p.moves, r.moves, r.nmoves * sizeof r.moves[0]) == 0);
	game_format(&p.final, a, sizeof a);
	game_format(&r.final, b, sizeof b);
	check(strcmp(a, b) == 0);
	len2 = record_write(&p, again, sizeof again, &err);
	check(len2 == len && strcmp(out, again) == 0);
	return 0;
}
