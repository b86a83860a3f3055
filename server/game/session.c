/*
 * session.c: the session registry: every session in creation order, by token and by player id.
 *
 * It owns the sessions and their index maps, and nothing else: what a session is at, and when it
 * expires, are the lobby's business (lobby.c). Never calls libuv, never looks inside a table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osrand.h"
#include "session.h"
#include "xmalloc.h"

void
session_registry_init(struct sessions *ss, uint64_t seed_token, uint64_t seed_player)
{
	memset(ss, 0, sizeof *ss);
	strmap_init(&ss->by_token, seed_token);
	strmap_init(&ss->by_player, seed_player);
}

void
session_registry_close(struct sessions *ss)
{
	for (size_t i = 0; i < ss->n; i++)
		free(ss->all[i]);
	free(ss->all);
	strmap_close(&ss->by_token);
	strmap_close(&ss->by_player);
}

void
session_add(struct sessions *ss, struct session *s)
{
	ss->all = xgrow(ss->all, ss->n, &ss->cap, sizeof *ss->all, 64);
	ss->all[ss->n++] = s;
	strmap_put(&ss->by_token, s->token, s);
	strmap_put(&ss->by_player, s->id, s);
}

struct session *
session_new(struct sessions *ss, const char *id, const char *name)
{
	struct session *s = xcalloc(1, sizeof *s);

	snprintf(s->id, sizeof s->id, "%s", id);
	snprintf(s->name, sizeof s->name, "%s", name);
	osrand_text(s->token, PROTOCOL_TOKEN_LEN, "0123456789abcdef");
	s->seat = -1;
	session_add(ss, s);
	return s;
}

struct session *
session_find_token(struct sessions *ss, const char *token)
{
	if (strlen(token) != PROTOCOL_TOKEN_LEN)
		return NULL;
	return strmap_get(&ss->by_token, token);
}

struct session *
session_find_id(struct sessions *ss, const char *id)
{
	return strmap_get(&ss->by_player, id);
}

void
session_forget(struct sessions *ss, struct session *s)
{
	strmap_del(&ss->by_token, s->token);
	strmap_del(&ss->by_player, s->id);
	free(s);
}

enum event_player_kind
session_kind(const struct session *s)
{
	if (s->account == 0)
		return EVENT_PLAYER_GUEST;
	return s->bot ? EVENT_PLAYER_BOT : EVENT_PLAYER_ACCOUNT;
}
