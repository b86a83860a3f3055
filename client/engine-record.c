/*
 * engine-record.c: hokito-engine record: check a text game record and print where it ends.
 *
 * Reads one record (FORMATS.md, "Game records") from a file or standard input, and lets
 * record_parse() check all of it: the text, every move through the rules, and the stated result
 * against the final position. Prints the final position, then the result and (HOKITO) the scores,
 * as `play` does; a result that the rules did not bring (a resignation, a draw by agreement...)
 * is followed by its reason in parentheses. Exit status: 0 a valid record, 1 a move the rules
 * refuse, 2 bad text (a malformed record, or a result, reason or score that the moves contradict)
 * or bad usage. This file owns only the text it reads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "record.h"
#include "xmalloc.h"

#define RECORD_FILE_MAX (1 << 20) /* a record is a few KiB; refuse to read a huge file */

/* Read all of f (at most RECORD_FILE_MAX bytes). Returns a new buffer, or NULL if too large. */
static char *
engine_record_read(FILE *f, size_t *len)
{
	size_t cap = 8192, n = 0, got;
	char *buf = xmalloc(cap);

	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			if (cap >= RECORD_FILE_MAX) {
				free(buf);
				return NULL;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	*len = n;
	return buf;
}

int
engine_record(struct engine_opts *o)
{
	struct record_error err;
	struct game_outcome out;
	char text[GAME_TEXT_MAX], how[RECORD_WORD_MAX + 3] = "";
	const char *name, *shown; /* the FILE argument, and how errors name it */
	struct record *r;
	size_t len;
	char *buf;
	FILE *f;
	int rc;

	if (o->nargs != 1)
		return engine_fail(EXIT_USAGE, "record takes one FILE, or - for standard input");
	name = o->args[0];
	shown = strcmp(name, "-") == 0 ? "(stdin)" : name;
	f = strcmp(name, "-") == 0 ? stdin : fopen(name, "rb");
	if (f == NULL)
		return engine_fail(EXIT_USAGE, "cannot open %s: %s", name, strerror(errno));
	errno = 0;
	buf = engine_record_read(f, &len);
	rc = ferror(f) ? (errno != 0 ? errno : EIO) : 0;
	if (f != stdin)
		fclose(f);
	if (buf == NULL)
		return engine_fail(EXIT_USAGE, "%s: larger than %d bytes: not a game record", shown,
		                   RECORD_FILE_MAX);
	if (rc) {
		free(buf);
		return engine_fail(EXIT_USAGE, "cannot read %s: %s", shown, strerror(rc));
	}
	r = xmalloc(sizeof *r);
	rc = record_parse(r, buf, len, &err);
	free(buf);
	if (rc < 0) {
		free(r);
		return engine_fail(rc == RECORD_EILLEGAL ? EXIT_ILLEGAL : EXIT_USAGE,
		                   "%s:%d:%d: %s", shown, err.line, err.column, err.text);
	}
	if (o->have_kind && r->kind != o->kind) {
		rc = engine_fail(EXIT_USAGE, "%s: a record of %s, not %s (--game)", shown,
		                 game_kind_name(r->kind), game_kind_name(o->kind));
		free(r);
		return rc;
	}
	game_format(&r->final, text, sizeof text);
	printf("%s\n", text);
	game_outcome(&r->final, &out);
	/* A game the rules did not end says how it stopped: "(resign)", "(agreement)"... */
	if (out.end == GAME_END_NONE)
		snprintf(how, sizeof how, " (%s)", r->reason);
	if (r->result == RECORD_DRAW)
		printf("result: draw%s\n", how);
	else if (r->result != RECORD_UNFINISHED)
		printf("result: %s wins%s\n", game_side_name(r->kind, r->result), how);
	if (game_kind_has(r->kind, GAME_HAS_SCORES) &&
	    (r->result != RECORD_UNFINISHED || out.end != GAME_END_NONE))
		printf("score: %s %d %s %d\n", game_side_name(r->kind, 0), out.score[0],
		       game_side_name(r->kind, 1), out.score[1]);
	free(r);
	return 0;
}
