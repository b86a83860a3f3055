/*
 * test-tls.c: the TLS engine (protocol/tls.c) and the pin file (protocol/tls-pins.c).
 *
 * Run by tls-certs.sh, which makes the certificates with the openssl command and passes their
 * folder. A server engine and a client engine talk in memory: shuttle() carries each side's
 * ciphertext to the other until neither has anything to say, so every case is deterministic and
 * no socket is involved. The pin file cases and the decision run on text alone.
 */
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/ssl.h>

#include "framer.h"
#include "test.h"
#include "tls-pins.h"
#include "tls.h"

static const char *dir; /* the certificates' folder, argv[1] */

/* OpenSSL's allocations, counted to measure what an idle connection holds. */
static long long live_bytes;

static void *
count_malloc(size_t n, const char *file, int line)
{
	size_t *p = malloc(n + sizeof(size_t) * 2);

	if (p == NULL)
		return NULL;
	p[0] = n;
	live_bytes += (long long)n;
	return p + 2;
}

static void
count_free(void *q, const char *file, int line)
{
	size_t *p = q;

	if (p == NULL)
		return;
	live_bytes -= (long long)p[-2];
	free(p - 2);
}

static void *
count_realloc(void *q, size_t n, const char *file, int line)
{
	size_t *p = q, old;

	if (p == NULL)
		return count_malloc(n, file, line);
	old = p[-2];
	p = realloc(p - 2, n + sizeof(size_t) * 2);
	if (p == NULL)
		return NULL;
	p[0] = n;
	live_bytes += (long long)n - (long long)old;
	return p + 2;
}

/* A path in the certificates' folder (static buffers, four in rotation). */
static const char *
path(const char *name)
{
	static char bufs[4][512];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, 512, "%s/%s", dir, name);
	return b;
}

static void
copy_file(const char *from, const char *to)
{
	char buf[8192];
	size_t n;
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");

	while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

static void
write_file(const char *to, const char *text)
{
	FILE *out = fopen(to, "w");

	fputs(text, out);
	fclose(out);
}

static struct tls_server *
server_for(const char *name)
{
	char cert[64], key[64];
	struct tls_server *s = NULL;
	struct tls_error err;
	struct tls_server_config cfg = {0};

	snprintf(cert, sizeof cert, "%s.pem", name);
	snprintf(key, sizeof key, "%s.key", name);
	cfg.cert_file = path(cert);
	cfg.key_file = path(key);
	if (tls_server_create(&s, &cfg, &err) < 0)
		printf("# server %s: %s\n", name, err.text);
	return s;
}

static struct tls_client *
client_with(const char *ca, const char *pins, int insecure)
{
	struct tls_client *c = NULL;
	struct tls_error err;
	struct tls_client_config cfg = {ca ? path(ca) : NULL, pins, insecure};

	if (tls_client_create(&c, &cfg, &err) < 0)
		printf("# client: %s\n", err.text);
	return c;
}

/* The first non-zero answer of each side's feeds, and its sentence. */
struct side {
	int rc;
	struct tls_error err;
};

/* Carry ciphertext both ways until neither side has any. Returns the rounds it took. */
static int
shuttle(struct tls_conn *cl, struct side *a, struct tls_conn *sv, struct side *b)
{
	int rounds = 0;

	for (;;) {
		size_t n;
		char *p;
		int moved = 0, r;

		while ((p = tls_conn_take(cl, &n)) != NULL) {
			r = tls_conn_feed(sv, p, n, &b->err);
			if (r != 0 && b->rc == 0)
				b->rc = r;
			free(p);
			moved = 1;
		}
		while ((p = tls_conn_take(sv, &n)) != NULL) {
			r = tls_conn_feed(cl, p, n, &a->err);
			if (r != 0 && a->rc == 0)
				a->rc = r;
			free(p);
			moved = 1;
		}
		if (!moved || ++rounds > 50)
			return rounds;
	}
}

/* Read all plaintext c has into f. Returns the last tls_conn_read() answer. */
static int
drain(struct tls_conn *c, struct framer *f)
{
	struct tls_error err;
	int r;

	for (;;) {
		char *base;
		size_t size, got;

		framer_space(f, 4096, &base, &size);
		r = tls_conn_read(c, base, size, &got, &err);
		if (r != 1)
			return r;
		framer_commit(f, got);
	}
}

/* Send line from one side, carry it, and check the other side reads exactly it. */
static int
line_arrives(struct tls_conn *from, struct tls_conn *to, const char *line, struct tls_conn *cl,
             struct tls_conn *sv)
{
	struct side a = {0}, b = {0};
	struct tls_error err;
	struct framer f;
	const char *got;
	size_t len;
	char buf[256];
	int ok;

	snprintf(buf, sizeof buf, "%s\n", line);
	if (tls_conn_write(from, buf, strlen(buf), &err) < 0)
		return 0;
	shuttle(cl, &a, sv, &b);
	framer_init(&f, 65536);
	drain(to, &f);
	ok = framer_next(&f, &got, &len) == 1 && strcmp(got, line) == 0;
	framer_close(&f);
	return ok;
}

/* Connect a client to a server for host; returns the client's first feed answer. */
static int
connect_pair(struct tls_client *cl, struct tls_server *sv, const char *host, struct tls_conn **cc,
             struct tls_conn **sc, struct side *a, struct side *b)
{
	memset(a, 0, sizeof *a);
	memset(b, 0, sizeof *b);
	*cc = tls_conn_client_create(cl, host, 7711);
	*sc = tls_conn_server_create(sv);
	shuttle(*cc, a, *sc, b);
	return a->rc;
}

TEST(handshake_and_lines)
{
	struct tls_server *sv = server_for("server");
	struct tls_client *cl = client_with("ca.pem", NULL, 0);
	struct tls_conn *cc, *sc;
	struct side a, b;

	ASSERT(sv != NULL && cl != NULL);
	ASSERT_EQ(connect_pair(cl, sv, "localhost", &cc, &sc, &a, &b), 0);
	ASSERT_EQ(b.rc, 0);
	ASSERT(tls_conn_is_open(cc));
	ASSERT(tls_conn_is_open(sc));
	ASSERT_STR_EQ(tls_conn_version(cc), "TLSv1.3");
	ASSERT_STR_EQ(tls_conn_alpn(cc), "hokito/1");
	ASSERT_STR_EQ(tls_conn_alpn(sc), "hokito/1");
	ASSERT_STR_EQ(tls_conn_verify_text(cc), "ok");
	ASSERT_EQ(strlen(tls_conn_fingerprint(cc)), TLS_FINGERPRINT_LEN);
	ASSERT(line_arrives(cc, sc, "{\"type\":\"hello\",\"version\":1}", cc, sc));
	ASSERT(line_arrives(sc, cc, "{\"type\":\"welcome\"}", cc, sc));
	for (int i = 0; i < 20; i++)
		ASSERT(line_arrives(i % 2 ? sc : cc, i % 2 ? cc : sc, "{\"type\":\"ping\"}", cc,
		                    sc));

	/* A clean close: the other side reads TLS_ECLOSED. */
	struct framer f;
	framer_init(&f, 1024);
	tls_conn_shutdown(cc);
	shuttle(cc, &a, sc, &b);
	ASSERT_EQ(drain(sc, &f), TLS_ECLOSED);
	framer_close(&f);
	tls_conn_free(cc);
	tls_conn_free(sc);
	tls_server_free(sv);
	tls_client_free(cl);
}

/* Feed everything one side has to the other one byte at a time. Returns the last answer. */
static int
dribble(struct tls_conn *from, struct tls_conn *to)
{
	struct tls_error err;
	size_t n;
	char *p;
	int r = 0;

	while ((p = tls_conn_take(from, &n)) != NULL) {
		for (size_t i = 0; i < n && r == 0; i++)
			r = tls_conn_feed(to, p + i, 1, &err);
		free(p);
	}
	return r;
}

TEST(reads_cut_anywhere_and_big_lines)
{
	struct tls_server *sv = server_for("server");
	struct tls_client *cl = client_with("ca.pem", NULL, 0);
	struct tls_conn *cc = tls_conn_client_create(cl, "localhost", 7711);
	struct tls_conn *sc = tls_conn_server_create(sv);
	size_t big = 300000, len;
	char *line = malloc(big + 1);
	struct tls_error err;
	const char *got;
	struct framer f;

	/* The handshake with every read one byte long. */
	for (int i = 0; i < 10 && !(tls_conn_is_open(cc) && tls_conn_is_open(sc)); i++) {
		ASSERT_EQ(dribble(cc, sc), 0);
		ASSERT_EQ(dribble(sc, cc), 0);
	}
	ASSERT(tls_conn_is_open(cc) && tls_conn_is_open(sc));
	/* A line of 300,000 bytes (many records), written in pieces, read one byte at a time. */
	for (size_t i = 0; i < big; i++)
		line[i] = (char)('a' + i % 26);
	line[big] = '\n';
	for (size_t i = 0; i <= big; i += 7000)
		ASSERT_EQ(
		        tls_conn_write(cc, line + i, big + 1 - i < 7000 ? big + 1 - i : 7000, &err),
		        0);
	ASSERT_EQ(dribble(cc, sc), 0);
	framer_init(&f, 1 << 20);
	ASSERT_EQ(drain(sc, &f), 0);
	ASSERT_EQ(framer_next(&f, &got, &len), 1);
	ASSERT_EQ(len, big);
	ASSERT(memcmp(got, line, big) == 0);
	framer_close(&f);
	/* And back in one write, carried in one piece. */
	ASSERT_EQ(tls_conn_write(sc, line, big + 1, &err), 0);
	size_t none;
	char *p = tls_conn_take(sc, &len);
	ASSERT(p != NULL && len > big);
	ASSERT(tls_conn_take(sc, &none) == NULL && none == 0);
	ASSERT_EQ(tls_conn_feed(cc, p, len, &err), 0);
	free(p);
	framer_init(&f, 1 << 20);
	ASSERT_EQ(drain(cc, &f), 0);
	ASSERT_EQ(framer_next(&f, &got, &len), 1);
	ASSERT_EQ(len, big);
	framer_close(&f);
	free(line);
	tls_conn_free(cc);
	tls_conn_free(sc);
	tls_server_free(sv);
	tls_client_free(cl);
}

TEST(ip_address_checked)
{
	struct tls_server *sv = server_for("server"), *other = server_for("other");
	struct tls_client *cl = client_with("ca.pem", NULL, 0);
	struct tls_conn *cc, *sc;
	struct side a, b;

	ASSERT_EQ(connect_pair(cl, sv, "127.0.0.1", &cc, &sc, &a, &b), 0);
	ASSERT(line_arrives(cc, sc, "over an address", cc, sc));
	tls_conn_free(cc);
	tls_conn_free(sc);
	ASSERT_EQ(connect_pair(cl, sv, "::1", &cc, &sc, &a, &b), 0);
	tls_conn_free(cc);
	tls_conn_free(sc);
	ASSERT_EQ(connect_pair(cl, sv, "[::1]", &cc, &sc, &a, &b), 0);
	tls_conn_free(cc);
	tls_conn_free(sc);
	ASSERT_EQ(connect_pair(cl, sv, "::2", &cc, &sc, &a, &b), TLS_EVERIFY);
	tls_conn_free(cc);
	tls_conn_free(sc);
	ASSERT_EQ(connect_pair(cl, other, "127.0.0.1", &cc, &sc, &a, &b), TLS_EVERIFY);
	ASSERT(strstr(a.err.text, "IP address mismatch") != NULL);
	tls_conn_free(cc);
	tls_conn_free(sc);
	tls_server_free(sv);
	tls_server_free(other);
	tls_client_free(cl);
}

/* Each refused certificate, with its words; nothing written before is sent. */
static void
refused(const char *server, const char *ca, const char *host, const char *words)
{
	struct tls_server *sv = server_for(server);
	struct tls_client *cl = client_with(ca, NULL, 0);
	struct tls_error err;
	struct tls_conn *cc, *sc;
	struct side a, b;
	struct framer f;
	size_t got;
	char buf[64];

	ASSERT(sv != NULL && cl != NULL);
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	cc = tls_conn_client_create(cl, host, 7711);
	sc = tls_conn_server_create(sv);
	ASSERT_EQ(tls_conn_write(cc, "secret token\n", 13, &err), 0);
	shuttle(cc, &a, sc, &b);
	ASSERT_EQ(a.rc, TLS_EVERIFY);
	if (strstr(a.err.text, words) == NULL)
		FAIL_AT_("\"%s\" does not say \"%s\"", a.err.text, words);
	printf("# %s\n", a.err.text);
	ASSERT(!tls_conn_is_open(cc));
	ASSERT_EQ(tls_conn_read(cc, buf, sizeof buf, &got, &err), TLS_EVERIFY);
	ASSERT_EQ(tls_conn_write(cc, "x", 1, &err), TLS_EVERIFY);
	framer_init(&f, 1024);
	ASSERT(drain(sc, &f) == 0 && framer_pending(&f) == 0); /* the token never left */
	framer_close(&f);
	tls_conn_free(cc);
	tls_conn_free(sc);
	tls_server_free(sv);
	tls_client_free(cl);
}

TEST(wrong_host_refused)
{
	refused("other", "ca.pem", "localhost", "hostname mismatch");
}

TEST(expired_refused)
{
	refused("expired", "ca.pem", "localhost", "certificate has expired");
}

TEST(unknown_ca_refused)
{
	refused("unknown", "ca.pem", "localhost", "unable to get local issuer certificate");
}

TEST(self_signed_refused)
{
	refused("self", "ca.pem", "localhost", "self-signed certificate");
}

TEST(system_store_refuses_test_ca)
{
	refused("server", NULL, "localhost", "unable to get local issuer certificate");
}

TEST(insecure_accepts_anything)
{
	struct tls_server *sv = server_for("expired");
	struct tls_client *cl = client_with(NULL, NULL, 1);
	struct tls_conn *cc, *sc;
	struct side a, b;

	ASSERT_EQ(connect_pair(cl, sv, "wrong.example", &cc, &sc, &a, &b), 0);
	ASSERT(line_arrives(cc, sc, "unverified", cc, sc));
	tls_conn_free(cc);
	tls_conn_free(sc);
	tls_server_free(sv);
	tls_client_free(cl);
}

TEST(trust_on_first_use)
{
	struct tls_server *sv = server_for("self"), *sv2 = server_for("self2");
	struct tls_server *good = server_for("server");
	char pins[512], *text, shown[TLS_FINGERPRINT_TEXT_LEN + 1],
	        other[TLS_FINGERPRINT_TEXT_LEN + 1];
	struct tls_client *cl;
	struct tls_conn *cc, *sc;
	struct tls_error err;
	struct side a, b;
	struct framer f;
	struct stat st;
	size_t len;

	snprintf(pins, sizeof pins, "%s/known_hosts", dir);
	unlink(pins);
	cl = client_with("ca.pem", pins, 0);
	ASSERT(sv && sv2 && good && cl);

	/* First contact: the caller is asked, the hello waits. */
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	cc = tls_conn_client_create(cl, "localhost", 7711);
	sc = tls_conn_server_create(sv);
	ASSERT_EQ(tls_conn_write(cc, "hello\n", 6, &err), 0);
	shuttle(cc, &a, sc, &b);
	ASSERT_EQ(a.rc, TLS_ENEWHOST);
	/* the question shows the fingerprint as the server logs its own */
	tls_server_fingerprint(sv, shown, sizeof shown);
	ASSERT_EQ(strlen(shown), TLS_FINGERPRINT_TEXT_LEN);
	ASSERT(strstr(a.err.text, shown) != NULL);
	ASSERT_STR_EQ(tls_fingerprint_text(tls_conn_fingerprint(cc), other, sizeof other), shown);
	ASSERT(strstr(a.err.text, "self-signed certificate") != NULL);
	printf("# %s\n", a.err.text);
	ASSERT(!tls_conn_is_open(cc));
	framer_init(&f, 1024);
	ASSERT(drain(sc, &f) == 0 && framer_pending(&f) == 0);
	ASSERT_EQ(tls_conn_trust(cc, &err), 0);
	ASSERT(tls_conn_is_open(cc));
	shuttle(cc, &a, sc, &b);
	drain(sc, &f);
	const char *line;
	ASSERT_EQ(framer_next(&f, &line, &len), 1);
	ASSERT_STR_EQ(line, "hello");
	framer_close(&f);
	ASSERT_EQ(stat(pins, &st), 0);
	ASSERT_EQ(st.st_mode & 0777, 0600);
	ASSERT_EQ(tls_pins_load(pins, &text, &len, &err), 0);
	char want[128];
	snprintf(want, sizeof want, "localhost:7711 %s\n", tls_conn_fingerprint(cc));
	ASSERT_STR_EQ(text, want);
	free(text);
	tls_conn_free(cc);
	tls_conn_free(sc);

	/* Pinned and equal: accepted without a question. */
	ASSERT_EQ(connect_pair(cl, sv, "localhost", &cc, &sc, &a, &b), 0);
	ASSERT(tls_conn_is_open(cc));
	ASSERT(line_arrives(cc, sc, "again", cc, sc));
	tls_conn_free(cc);
	tls_conn_free(sc);

	/* A certificate a CA vouches for is accepted whatever is pinned. */
	ASSERT_EQ(connect_pair(cl, good, "localhost", &cc, &sc, &a, &b), 0);
	tls_conn_free(cc);
	tls_conn_free(sc);

	/* Pinned and changed: refused loudly, naming the file and the line to delete. */
	ASSERT_EQ(connect_pair(cl, sv2, "localhost", &cc, &sc, &a, &b), TLS_ECHANGED);
	printf("# %s\n", a.err.text);
	ASSERT(strstr(a.err.text, "HAS CHANGED") != NULL);
	ASSERT(strstr(a.err.text, pins) != NULL);
	ASSERT(strstr(a.err.text, "delete line 1") != NULL);
	ASSERT(!tls_conn_is_open(cc));
	tls_conn_free(cc);
	tls_conn_free(sc);

	/* Another port of the same host is another server. */
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	cc = tls_conn_client_create(cl, "localhost", 7712);
	sc = tls_conn_server_create(sv2);
	shuttle(cc, &a, sc, &b);
	ASSERT_EQ(a.rc, TLS_ENEWHOST);
	ASSERT_EQ(tls_conn_trust(cc, &err), 0);
	tls_conn_free(cc);
	tls_conn_free(sc);
	ASSERT_EQ(tls_pins_load(pins, &text, &len, &err), 0);
	ASSERT(strstr(text, "localhost:7711 SHA256:") == text);
	ASSERT(strstr(text, "\nlocalhost:7712 SHA256:") != NULL);
	free(text);

	/* A damaged pin file refuses every unverified server, naming the line. */
	write_file(pins, "# hokito known hosts\nlocalhost:7711 SHA256:abc\n");
	ASSERT_EQ(connect_pair(cl, sv, "localhost", &cc, &sc, &a, &b), TLS_EPINS);
	ASSERT(strstr(a.err.text, ":2: not a pin") != NULL);
	tls_conn_free(cc);
	tls_conn_free(sc);
	tls_server_free(sv);
	tls_server_free(sv2);
	tls_server_free(good);
	tls_client_free(cl);
}

#define FP_A                                                                                       \
	"SHA256:"                                                                                  \
	"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define FP_B                                                                                       \
	"SHA256:"                                                                                  \
	"ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"

#define FP_A_TEXT                                                                                  \
	TLS_FINGERPRINT_PREFIX                                                                     \
	"00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:"  \
	"DD:EE:FF"

/* A fingerprint in openssl's words ("sha256 Fingerprint=AB:CD:..."); nothing for a malformed one.
 */
TEST(fingerprint_text)
{
	char buf[TLS_FINGERPRINT_TEXT_LEN + 1], small[20];

	ASSERT_STR_EQ(tls_fingerprint_text(FP_A, buf, sizeof buf), FP_A_TEXT);
	ASSERT_EQ(strlen(buf), TLS_FINGERPRINT_TEXT_LEN);
	ASSERT_STR_EQ(tls_fingerprint_text("", buf, sizeof buf), "");
	ASSERT_STR_EQ(tls_fingerprint_text("SHA256:0011", buf, sizeof buf), "");
	ASSERT_STR_EQ(tls_fingerprint_text(FP_A, small, sizeof small), "");
}

static int
decide(const char *text, const char *hostport, const char *fp, long vr, struct tls_error *err)
{
	return tls_pins_decide("pins", text, strlen(text), hostport, fp, vr, "self-signed", err);
}

TEST(pins_decision)
{
	const char *file = "# known hosts\n\nexample.org:7711 " FP_A "\n[::1]:7711 " FP_B "\n";
	struct tls_error err;

	ASSERT_EQ(decide(file, "example.org:7711", FP_B, 0, &err), TLS_TRUST_VERIFIED);
	ASSERT_EQ(decide(file, "example.org:7711", FP_A, 18, &err), TLS_TRUST_PINNED);
	ASSERT_EQ(decide(file, "[::1]:7711", FP_B, 18, &err), TLS_TRUST_PINNED);
	ASSERT_EQ(decide(file, "example.org:7711", FP_B, 18, &err), TLS_TRUST_CHANGED);
	ASSERT_EQ(err.line, 3);
	ASSERT(strstr(err.text, "delete line 3 of pins") != NULL);
	ASSERT_EQ(decide(file, "example.org:7712", FP_A, 18, &err), TLS_TRUST_UNKNOWN);
	ASSERT(strstr(err.text, FP_A_TEXT) != NULL);
	ASSERT_EQ(decide("", "example.org:7711", FP_A, 18, &err), TLS_TRUST_UNKNOWN);
	ASSERT_EQ(tls_pins_decide("pins", NULL, 0, "h:1", FP_A, 18, "x", &err), TLS_TRUST_UNKNOWN);
}

TEST(pins_strict_parse)
{
	static const struct {
		const char *text;
		int line;
	} bad[] = {
	        {"h:1 " FP_A "\nh:2 SHA256:00\n", 2},
	        {"h:1 " FP_A "\nh:1 " FP_B "\n", 2},
	        {"h " FP_A "\n", 1},
	        {"h:0 " FP_A "\n", 1},
	        {"h:65536 " FP_A "\n", 1},
	        {"h:1  " FP_A "\n", 1},
	        {"h:1 " FP_A " \n", 1},
	        {"h:1 " FP_A "\r\n", 1},
	        {" h:1 " FP_A "\n", 1},
	        {"h:1 SHA256:"
	         "00112233445566778899AABBCCDDEEFF00112233445566778899aabbccddeeff\n",
	         1},
	        {"h:1 MD5:"
	         "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n",
	         1},
	        {"::1:7711 " FP_A "\n", 1},
	        {"[::1]x:7711 " FP_A "\n", 1},
	        {"\n\n# c\nh:1\n", 4},
	        {":1 " FP_A "\n", 1},
	};
	struct tls_error err;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int r = decide(bad[i].text, "h:1", FP_A, 0, &err);

		if (r != TLS_EPINS || err.line != bad[i].line)
			FAIL_AT_("case %zu: %d line %d (%s)", i, r, err.line, err.text);
	}
	ASSERT(strstr(err.text, "pins:1:") == err.text);
	ASSERT_EQ(decide("h:1 " FP_A, "h:1", FP_A, 18, &err), TLS_TRUST_PINNED); /* no last '\n' */
}

TEST(pins_add_keeps_other_lines)
{
	char pins[512], *text;
	struct tls_error err;
	size_t len;

	snprintf(pins, sizeof pins, "%s/pins-add", dir);
	write_file(pins, "# mine\na:1 " FP_A "\nb:2 " FP_A "\n");
	ASSERT_EQ(tls_pins_add(pins, "a:1", FP_B, &err), 0);
	ASSERT_EQ(tls_pins_load(pins, &text, &len, &err), 0);
	ASSERT_STR_EQ(text, "# mine\nb:2 " FP_A "\na:1 " FP_B "\n");
	free(text);
	write_file(pins, "broken\n");
	ASSERT_EQ(tls_pins_add(pins, "a:1", FP_B, &err), TLS_EPINS);
	ASSERT_EQ(tls_pins_load(pins, &text, &len, &err), 0);
	ASSERT_STR_EQ(text, "broken\n"); /* a damaged file is not overwritten */
	free(text);
	ASSERT_EQ(tls_pins_add(pins, "a b:1", FP_B, &err), TLS_EPINS);
	char hp[64];
	ASSERT_STR_EQ(tls_pins_hostport(hp, sizeof hp, "::1", 7711), "[::1]:7711");
	ASSERT_STR_EQ(tls_pins_hostport(hp, sizeof hp, "localhost", 1), "localhost:1");
}

TEST(reload)
{
	char cert[512], key[512];
	struct tls_server_config cfg = {cert, key, NULL};
	struct tls_client *cl = client_with("ca.pem", NULL, 0);
	struct tls_server *sv = NULL;
	struct tls_conn *c1, *s1, *c2, *s2;
	struct tls_error err;
	struct side a, b;
	char fp1[TLS_FINGERPRINT_LEN + 1];

	snprintf(cert, sizeof cert, "%s/live.pem", dir);
	snprintf(key, sizeof key, "%s/live.key", dir);
	copy_file(path("server.pem"), cert);
	copy_file(path("server.key"), key);
	ASSERT_EQ(tls_server_create(&sv, &cfg, &err), 0);
	ASSERT_EQ(connect_pair(cl, sv, "localhost", &c1, &s1, &a, &b), 0);
	strcpy(fp1, tls_conn_fingerprint(c1));

	/* A damaged certificate: refused, the old context kept. */
	write_file(cert, "-----BEGIN CERTIFICATE-----\nnot base64\n");
	ASSERT_EQ(tls_server_reload(sv, &err), TLS_ECONFIG);
	printf("# %s\n", err.text);
	ASSERT(strstr(err.text, cert) != NULL);
	/* A certificate whose key is not the one given: refused. */
	copy_file(path("server2.pem"), cert);
	ASSERT_EQ(tls_server_reload(sv, &err), TLS_ECONFIG);
	printf("# %s\n", err.text);
	ASSERT(strstr(err.text, "does not match") != NULL);
	/* A missing key. */
	unlink(key);
	ASSERT_EQ(tls_server_reload(sv, &err), TLS_ECONFIG);
	printf("# %s\n", err.text);
	ASSERT_EQ(connect_pair(cl, sv, "localhost", &c2, &s2, &a, &b), 0);
	ASSERT_STR_EQ(tls_conn_fingerprint(c2), fp1);
	tls_conn_free(c2);
	tls_conn_free(s2);

	/* The renewed pair: new connections get it, the old one keeps talking. */
	copy_file(path("server2.key"), key);
	ASSERT_EQ(tls_server_reload(sv, &err), 0);
	ASSERT_EQ(connect_pair(cl, sv, "localhost", &c2, &s2, &a, &b), 0);
	ASSERT(strcmp(tls_conn_fingerprint(c2), fp1) != 0);
	ASSERT(line_arrives(c2, s2, "new certificate", c2, s2));
	tls_server_free(sv); /* connections outlive their server */
	ASSERT(line_arrives(c1, s1, "old certificate", c1, s1));
	ASSERT(line_arrives(s1, c1, "still here", c1, s1));
	ASSERT(line_arrives(s2, c2, "both", c2, s2));
	tls_conn_free(c1);
	tls_conn_free(s1);
	tls_conn_free(c2);
	tls_conn_free(s2);
	tls_client_free(cl);

	/* Creating a server from bad files fails the same way. */
	cfg.key_file = path("server.key");
	ASSERT_EQ(tls_server_create(&sv, &cfg, &err), TLS_ECONFIG);
}

/* Garbage fed to a server: an error, then the same error, no output loop, no crash. */
static void
garbage(const char *data, size_t n, int chunked)
{
	struct tls_server *sv = server_for("server");
	struct tls_conn *sc = tls_conn_server_create(sv);
	struct tls_error err;
	char buf[64];
	size_t got, i;
	int r = 0;

	for (i = 0; i < n && r == 0; i += chunked ? 1 : n)
		r = tls_conn_feed(sc, data + i, chunked ? 1 : n, &err);
	ASSERT_EQ(r, TLS_EHANDSHAKE);
	printf("# %s\n", err.text);
	ASSERT(strstr(err.text, "TLS handshake failed: ") == err.text);
	ASSERT_EQ(tls_conn_feed(sc, "x", 1, &err), TLS_EHANDSHAKE);
	ASSERT_EQ(tls_conn_read(sc, buf, sizeof buf, &got, &err), TLS_EHANDSHAKE);
	ASSERT(!tls_conn_is_open(sc));
	ASSERT(tls_conn_pending(sc) < 1024); /* at most an alert */
	tls_conn_free(sc);
	tls_server_free(sv);
}

TEST(garbage_refused)
{
	static const char json[] = "{\"type\":\"hello\",\"version\":1,\"name\":\"ann\"}\n";
	static const char http[] = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
	char noise[4096];

	garbage(json, sizeof json - 1, 0);
	garbage(json, sizeof json - 1, 1);
	garbage(http, sizeof http - 1, 0);
	for (size_t i = 0; i < sizeof noise; i++)
		noise[i] = (char)(i * 7919 % 251);
	garbage(noise, sizeof noise, 0);
	/* A TLS record header announcing a handshake too long to be one. */
	garbage("\x16\x03\x01\xff\xff", 5, 0);
}

TEST(stalled_handshake_waits)
{
	struct tls_server *sv = server_for("server");
	struct tls_client *cl = client_with("ca.pem", NULL, 0);
	struct tls_conn *cc = tls_conn_client_create(cl, "localhost", 7711);
	struct tls_conn *sc = tls_conn_server_create(sv);
	struct tls_error err;
	struct side a = {0}, b = {0};
	size_t n;
	char *hello = tls_conn_take(cc, &n);

	ASSERT(hello != NULL && n > 10);
	/* Half a ClientHello, then nothing: the server waits, says nothing, stays alive. */
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(tls_conn_feed(sc, hello, i == 0 ? n / 2 : 0, &err), 0);
	ASSERT(!tls_conn_is_open(sc));
	ASSERT_EQ(tls_conn_pending(sc), 0);
	/* The rest arrives: the handshake goes on. */
	ASSERT_EQ(tls_conn_feed(sc, hello + n / 2, n - n / 2, &err), 0);
	free(hello);
	shuttle(cc, &a, sc, &b);
	ASSERT(tls_conn_is_open(cc) && tls_conn_is_open(sc));
	tls_conn_free(cc);
	tls_conn_free(sc);
	tls_server_free(sv);
	tls_client_free(cl);
}

/*
 * A client of plain OpenSSL with the ALPN list alpn (wire form, NULL for none) and a maximum
 * version, against a hokito server: returns the server's first feed answer.
 */
static int
raw_client(const unsigned char *alpn, unsigned len, int max_version, struct tls_conn **out)
{
	struct tls_server *sv = server_for("server");
	struct tls_conn *sc = tls_conn_server_create(sv);
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	SSL *ssl;
	BIO *rb = BIO_new(BIO_s_mem()), *wb = BIO_new(BIO_s_mem());
	struct tls_error err;
	int rc = 0;

	if (max_version)
		SSL_CTX_set_max_proto_version(ctx, max_version);
	SSL_CTX_set_min_proto_version(ctx, max_version == TLS1_1_VERSION ? TLS1_VERSION : 0);
	if (max_version == TLS1_1_VERSION)
		SSL_CTX_set_security_level(ctx, 0);
	ssl = SSL_new(ctx);
	if (alpn)
		SSL_set_alpn_protos(ssl, alpn, len);
	SSL_set_bio(ssl, rb, wb);
	SSL_set_connect_state(ssl);
	for (int round = 0; round < 10; round++) {
		char buf[16384];
		int n;
		size_t m;
		char *p;

		SSL_do_handshake(ssl);
		while ((n = BIO_read(wb, buf, sizeof buf)) > 0) {
			int r = tls_conn_feed(sc, buf, (size_t)n, &err);
			if (r != 0 && rc == 0) {
				rc = r;
				printf("# %s\n", err.text);
			}
		}
		while ((p = tls_conn_take(sc, &m)) != NULL) {
			BIO_write(rb, p, (int)m);
			free(p);
		}
	}
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	tls_server_free(sv);
	*out = sc;
	return rc;
}

TEST(alpn_and_versions)
{
	static const unsigned char http[] = "\x08http/1.1";
	static const unsigned char both[] = "\x08http/1.1\x08hokito/1";
	struct tls_conn *sc;

	ASSERT_EQ(raw_client(http, sizeof http - 1, 0, &sc), TLS_EHANDSHAKE);
	tls_conn_free(sc);
	ASSERT_EQ(raw_client(both, sizeof both - 1, 0, &sc), 0);
	ASSERT(tls_conn_is_open(sc));
	ASSERT_STR_EQ(tls_conn_alpn(sc), "hokito/1");
	tls_conn_free(sc);
	ASSERT_EQ(raw_client(NULL, 0, 0, &sc), 0); /* no ALPN at all: accepted */
	ASSERT(tls_conn_is_open(sc));
	ASSERT_STR_EQ(tls_conn_alpn(sc), "");
	tls_conn_free(sc);
	ASSERT_EQ(raw_client(NULL, 0, TLS1_2_VERSION, &sc), 0);
	ASSERT_STR_EQ(tls_conn_version(sc), "TLSv1.2");
	tls_conn_free(sc);
	ASSERT_EQ(raw_client(NULL, 0, TLS1_1_VERSION, &sc), TLS_EHANDSHAKE);
	tls_conn_free(sc);
}

/* What an idle server connection holds after its handshake and a line each way. */
TEST(idle_memory)
{
	struct tls_server *sv = server_for("server");
	struct tls_client *cl = client_with("ca.pem", NULL, 0);
	struct tls_conn *cc, *sc;
	struct side a, b;
	long long before, after;

	ASSERT_EQ(connect_pair(cl, sv, "localhost", &cc, &sc, &a, &b), 0);
	ASSERT(line_arrives(cc, sc, "{\"type\":\"hello\"}", cc, sc));
	ASSERT(line_arrives(sc, cc, "{\"type\":\"welcome\"}", cc, sc));
	tls_conn_free(cc);
	before = live_bytes;
	tls_conn_free(sc);
	after = live_bytes;
	printf("# an idle server connection holds %lld bytes of OpenSSL memory\n", before - after);
	ASSERT(before - after > 0);
	ASSERT(before - after < 16384); /* no record buffer is left */
	tls_server_free(sv);
	tls_client_free(cl);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-tls CERTDIR (run through tls-certs.sh)\n");
		return 2;
	}
	dir = argv[1];
	CRYPTO_set_mem_functions(count_malloc, count_realloc, count_free);
	RUN(handshake_and_lines);
	RUN(reads_cut_anywhere_and_big_lines);
	RUN(ip_address_checked);
	RUN(wrong_host_refused);
	RUN(expired_refused);
	RUN(unknown_ca_refused);
	RUN(self_signed_refused);
	RUN(system_store_refuses_test_ca);
	RUN(insecure_accepts_anything);
	RUN(trust_on_first_use);
	RUN(pins_decision);
	RUN(fingerprint_text);
	RUN(pins_strict_parse);
	RUN(pins_add_keeps_other_lines);
	RUN(reload);
	RUN(garbage_refused);
	RUN(stalled_handshake_waits);
	RUN(alpn_and_versions);
	RUN(idle_memory);
	TEST_END();
}
