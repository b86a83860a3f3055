/*
 * test-session.c: the server's session registry (server/game/session.c): a new session's id, name
 * and token, lookups by token and by player id, a session added from elsewhere (a restart), and
 * forgetting one.
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "test.h"

TEST(session_registry)
{
	struct sessions ss;
	struct session *a, *b, *c;
	char token[PROTOCOL_TOKEN_LEN + 1];

	session_registry_init(&ss, 1, 2);
	a = session_new(&ss, "p1", "alice");
	b = session_new(&ss, "p2", "bob");
	ASSERT_STR_EQ(a->id, "p1");
	ASSERT_STR_EQ(a->name, "alice");
	ASSERT_EQ(strlen(a->token), PROTOCOL_TOKEN_LEN);
	ASSERT_EQ(strspn(a->token, "0123456789abcdef"), PROTOCOL_TOKEN_LEN);
	ASSERT(strcmp(a->token, b->token) != 0);
	ASSERT_EQ(a->seat, -1);
	ASSERT(a->table == NULL && a->peer == NULL);
	ASSERT_EQ(ss.n, 2);
	ASSERT(ss.all[0] == a && ss.all[1] == b);
	ASSERT(session_find_token(&ss, a->token) == a);
	ASSERT(session_find_token(&ss, b->token) == b);
	ASSERT(session_find_token(&ss, "abc") == NULL); /* not a token's length */
	ASSERT(session_find_id(&ss, "p2") == b);
	ASSERT(session_find_id(&ss, "p3") == NULL);

	/* one made elsewhere, as a restart brings it back */
	c = calloc(1, sizeof *c);
	memcpy(c->id, "p7", 3);
	memcpy(c->name, "carol", 6);
	memset(c->token, 'a', PROTOCOL_TOKEN_LEN);
	c->seat = 1;
	session_add(&ss, c);
	ASSERT(session_find_token(&ss, c->token) == c);
	ASSERT(session_find_id(&ss, "p7") == c);

	/* forgotten: out of the indexes (the caller compacts ss.all) */
	memcpy(token, a->token, sizeof token);
	ss.all[0] = ss.all[2];
	ss.n--;
	session_forget(&ss, a);
	ASSERT(session_find_token(&ss, token) == NULL);
	ASSERT(session_find_id(&ss, "p1") == NULL);
	ASSERT(session_find_id(&ss, "p2") == b);
	session_registry_close(&ss);
}

int
main(void)
{
	RUN(session_registry);
	TEST_END();
}
