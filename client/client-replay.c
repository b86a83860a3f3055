/*
 * client-replay.c: a game replayed from its record (struct client_replay, in struct client).
 *
 * A game_record reply is loaded here (record_parse() reads and checks it) and the views step
 * through its positions with client_replay_seek(); each position is rebuilt from the start, which
 * costs little (a record holds at most RECORD_MOVES_MAX moves) and needs no undo. It owns the
 * replay's record and position; the evaluations beside them are client-eval.c's to write. It
 * neither draws nor sends: replay_stamp tells the views that something moved.
 */
#include <stdio.h>
#include <string.h>

#include "client.h"

int
client_replay_load(struct client *c, const char *id, const char *text, size_t len)
{
	struct client_replay *r = &c->replay;
	struct record_error err;
	int rc = record_parse(&r->rec, text, len, &err);

	if (rc < 0) {
		r->active = 0;
		client_notice(c, 1, "The record of %s does not read: %s", id, err.text);
		return rc;
	}
	r->active = 1;
	r->gen++;
	memset(r->eval, 0, sizeof r->eval);
	snprintf(r->id, sizeof r->id, "%s", id);
	client_replay_seek(c, 0);
	return 0;
}

void
client_replay_position(const struct client_replay *rp, size_t ply, struct game *g)
{
	/* replay from the start: at most 64 moves, each a small copy (no undo needed) */
	*g = rp->rec.start;
	for (size_t i = 0; i < ply; i++)
		game_apply(g, rp->rec.moves[i]);
}

void
client_replay_seek(struct client *c, long ply)
{
	struct client_replay *r = &c->replay;

	if (!r->active)
		return;
	if (ply < 0)
		ply = 0;
	if ((size_t)ply > r->rec.nmoves)
		ply = (long)r->rec.nmoves;
	client_replay_position(r, (size_t)ply, &r->pos);
	r->ply = (size_t)ply;
	c->replay_stamp++;
}
