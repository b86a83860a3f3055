/*
 * client-save.c: the record of the game at the table saved to a file, in the record format of
 * common/FORMATS.md (what hokito-engine record reads).
 *
 * The client knows the moves but not always the game's start (a HOKITO game starts from its
 * seed), so a save asks the server for the game's record first (client_request_record), and once
 * it has come (client-replay.c loads it; c->replay.gen moves) client_save_flush() writes it with
 * record_write() of common/record.c, the same writer the server and hokito-engine use, so that
 * the file reads back. The file is written on libuv's thread pool (uv_fs_open, uv_fs_write,
 * uv_fs_close, each callback starting the next): nothing waits on the disk on the loop. One save
 * at a time; the buffer being written is owned by struct client_save until the close callback.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "protocol.h"
#include "xmalloc.h"

static void save_close_cb(uv_fs_t *req);

/* The save is over, well or not: say so, free what it held. */
static void
save_done(struct client_save *sv, int rc)
{
	struct client *c = container_of(sv, struct client, save);

	if (rc < 0)
		client_notice(c, 1, "Could not save %s: %s", sv->path, uv_strerror(rc));
	else
		client_notice(c, 0, "Saved the record of game %s to %s.", sv->game, sv->path);
	free(sv->buf);
	sv->buf = NULL;
	sv->busy = 0;
	sv->path[0] = '\0';
	client_update(c);
}

static void
save_write_cb(uv_fs_t *req)
{
	struct client_save *sv = container_of(req, struct client_save, req);
	int rc = (int)req->result;

	uv_fs_req_cleanup(req);
	if (rc >= 0 && (size_t)rc < sv->len)
		rc = UV_EIO; /* a short write to a regular file: the disk is full */
	sv->rc = rc < 0 ? rc : 0;
	uv_fs_close(container_of(sv, struct client, save)->loop, &sv->req, sv->fd, save_close_cb);
}

static void
save_close_cb(uv_fs_t *req)
{
	struct client_save *sv = container_of(req, struct client_save, req);
	int rc = (int)req->result;

	uv_fs_req_cleanup(req);
	save_done(sv, sv->rc < 0 ? sv->rc : rc);
}

static void
save_open_cb(uv_fs_t *req)
{
	struct client_save *sv = container_of(req, struct client_save, req);
	struct client *c = container_of(sv, struct client, save);
	int rc = (int)req->result;
	uv_buf_t b;

	uv_fs_req_cleanup(req);
	if (rc < 0) {
		save_done(sv, rc);
		return;
	}
	sv->fd = rc;
	b = uv_buf_init(sv->buf, (unsigned)sv->len);
	uv_fs_write(c->loop, &sv->req, sv->fd, &b, 1, -1, save_write_cb);
}

int
client_save_start(struct client *c, const char *path)
{
	struct client_save *sv = &c->save;
	const struct client_table *t = &c->st.table;

	if (!t->active) {
		client_notice(c, 1, "No game to save: save works at a game.");
		return -1;
	}
	if (sv->busy || sv->path[0]) {
		client_notice(c, 1, "A save is under way: wait for it.");
		return -1;
	}
	if (path == NULL || path[0] == '\0')
		snprintf(sv->path, sizeof sv->path, "hokito-%s.txt", t->id);
	else if (snprintf(sv->path, sizeof sv->path, "%s", path) >= (int)sizeof sv->path) {
		sv->path[0] = '\0';
		client_notice(c, 1, "That file name is too long.");
		return -1;
	}
	snprintf(sv->game, sizeof sv->game, "%s", t->id);
	sv->gen = c->replay.gen;
	if (client_request_record(c, t->id) < 0) {
		sv->path[0] = '\0';
		return -1;
	}
	client_notice(c, 0, "Saving the record of game %s to %s...", t->id, sv->path);
	return 0;
}

void
client_save_flush(struct client *c)
{
	struct client_save *sv = &c->save;
	struct record_error err;
	int n;

	if (sv->path[0] == '\0' || sv->busy)
		return; /* nothing asked, or being written */
	if (c->replay.gen == sv->gen) {
		if (client_request_pending(c, MSG_RECORD))
			return; /* its record not come yet */
		/* the server refused it (it has said why) */
		client_notice(c, 1, "Could not save %s: the server sent no record of game %s.",
		              sv->path, sv->game);
		sv->path[0] = '\0';
		return;
	}
	if (!c->replay.active || strcmp(c->replay.id, sv->game) != 0) {
		client_notice(c, 1, "Could not save %s: the record of game %s did not come.",
		              sv->path, sv->game);
		sv->path[0] = '\0';
		return;
	}
	sv->buf = xmalloc(RECORD_TEXT_MAX);
	n = record_write(&c->replay.rec, sv->buf, RECORD_TEXT_MAX, &err);
	if (n < 0) {
		client_notice(c, 1, "Could not save %s: %s", sv->path, err.text);
		free(sv->buf);
		sv->buf = NULL;
		sv->path[0] = '\0';
		return;
	}
	sv->len = (size_t)n;
	sv->busy = 1;
	sv->rc = 0;
	if (uv_fs_open(c->loop, &sv->req, sv->path, O_WRONLY | O_CREAT | O_TRUNC, 0644,
	               save_open_cb) < 0) {
		free(sv->buf);
		sv->buf = NULL;
		sv->busy = 0;
		client_notice(c, 1, "Could not save %s.", sv->path);
	}
	/* the path stays while the save runs, for its notice; save_done() clears it */
}
