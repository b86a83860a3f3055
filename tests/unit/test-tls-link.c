/*
 * test-tls-link.c: what every client program reads the same way (client/tls-link.c): a server's
 * address in each form a user writes it, and whether a password may go to an address in clear.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include "test.h"
#include "tls-link.h"

/* Parse arg into host, port (from 7777) and tls (from 0). Returns tls_link_address()'s code. */
static int
parse(const char *arg, char *host, int *port, int *tls)
{
	*port = 7777;
	*tls = 0;
	host[0] = '\0';
	return tls_link_address(arg, host, 256, port, tls);
}

TEST(address_forms)
{
	static const struct {
		const char *arg, *host;
		int port, tls;
	} ok[] = {
	        {"example.org", "example.org", 7777, 0},
	        {"127.0.0.1:7811", "127.0.0.1", 7811, 0},
	        {"hokito://127.0.0.1:7811", "127.0.0.1", 7811, 0},
	        {"hokito://example.org", "example.org", 7777, 0},
	        {"hokitos://example.org:7778", "example.org", 7778, 1},
	        {"hokitos://example.org", "example.org", 7777, 1},
	        {"[::1]:7811", "::1", 7811, 0},
	        {"[::1]", "::1", 7777, 0},
	        {"::1", "::1", 7777, 0},
	        {"hokitos://[2001:db8::1]:9", "2001:db8::1", 9, 1},
	        {"localhost:1", "localhost", 1, 0},
	};
	static const char *const bad[] = {
	        "",
	        "hokito://",
	        "hokitos://:7778",
	        "127.0.0.1:",
	        "127.0.0.1:0",
	        "host:65536",
	        "host:77x",
	        "[::1",
	        "[::1]x",
	        "[]:7",
	        "http://example.org",
	        "hokito://h/x",
	        "hokitos://[::1]:",
	        ":7777",
	};
	char host[256];
	int port, tls;

	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		if (parse(ok[i].arg, host, &port, &tls) != 0)
			FAIL_AT_("'%s' refused", ok[i].arg);
		if (strcmp(host, ok[i].host) != 0)
			FAIL_AT_("'%s': host '%s', not '%s'", ok[i].arg, host, ok[i].host);
		ASSERT_EQ(port, ok[i].port);
		ASSERT_EQ(tls, ok[i].tls);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (parse(bad[i], host, &port, &tls) != -1)
			FAIL_AT_("'%s' taken (host '%s', port %d)", bad[i], host, port);
}

TEST(address_too_long)
{
	char host[8];
	int port = 0, tls = 0;

	ASSERT_EQ(tls_link_address("abcdefgh:1", host, sizeof host, &port, &tls), -1);
	ASSERT_EQ(tls_link_address("abcdefg:1", host, sizeof host, &port, &tls), 0);
	ASSERT_EQ(port, 1);
}

/* Whether a password may go in clear to the literal address text. */
static int
ok_to(const char *text, int tls, int allow)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof ss);
	if (inet_pton(AF_INET, text, &((struct sockaddr_in *)&ss)->sin_addr) == 1)
		ss.ss_family = AF_INET;
	else if (inet_pton(AF_INET6, text, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1)
		ss.ss_family = AF_INET6;
	else
		return -1;
	return tls_link_password_ok((const struct sockaddr *)&ss, tls, allow);
}

TEST(password_in_clear)
{
	static const struct {
		const char *addr;
		int tls, allow, ok;
	} cases[] = {
	        {"127.0.0.1", 0, 0, 1},
	        {"127.255.3.4", 0, 0, 1},
	        {"::1", 0, 0, 1},
	        {"::ffff:127.0.0.1", 0, 0, 1},
	        {"192.0.2.1", 0, 0, 0},
	        {"10.0.0.1", 0, 0, 0},
	        {"128.0.0.1", 0, 0, 0},
	        {"0.0.0.0", 0, 0, 0},
	        {"2001:db8::1", 0, 0, 0},
	        {"::ffff:192.0.2.1", 0, 0, 0},
	        {"::", 0, 0, 0},
	        /* TLS, or the user's word, let it go anywhere */
	        {"192.0.2.1", 1, 0, 1},
	        {"2001:db8::1", 0, 1, 1},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (ok_to(cases[i].addr, cases[i].tls, cases[i].allow) != cases[i].ok)
			FAIL_AT_("%s (tls %d, allow %d): %d, not %d", cases[i].addr, cases[i].tls,
			         cases[i].allow, ok_to(cases[i].addr, cases[i].tls, cases[i].allow),
			         cases[i].ok);
}

int
main(void)
{
	RUN(address_forms);
	RUN(address_too_long);
	RUN(password_in_clear);
	TEST_END();
}
