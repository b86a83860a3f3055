/*
 * tls.c: the TLS engine: OpenSSL 3 contexts for the server and the clients, and connections
 * driven through memory BIOs (see the design note in tls.h).
 *
 * A connection moves HANDSHAKE -> (client: TRUST) -> OPEN -> CLOSED, or to FAILED from anywhere,
 * and remembers its failure so every later call answers the same. Nothing here waits: OpenSSL's
 * WANT_READ means "feed me more" and is answered 0; WANT_WRITE cannot happen on a memory BIO
 * (it grows) and is treated the same. The client checks the server's certificate after the
 * handshake rather than inside it (SSL_VERIFY_NONE, then SSL_get_verify_result): the check's
 * result and the pin file together decide, and no application byte is sent or delivered before
 * that decision, so the peer learns nothing but a handshake. The server side keeps one current
 * SSL_CTX; each SSL takes a reference to it, which is what lets a reload swap it under live
 * connections. This module owns OpenSSL objects only; it never calls a socket or libuv.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "tls-pins.h"
#include "tls.h"
#include "xmalloc.h"

/* ALPN in its wire form: a length byte, then the name. */
static const unsigned char tls_alpn_wire[] = "\x08" TLS_ALPN;

enum tls_state {
	TLS_HANDSHAKE, /* the handshake is under way */
	TLS_TRUST,     /* client: handshake done, the user is asked about the server */
	TLS_OPEN,      /* application data flows */
	TLS_CLOSED,    /* the peer sent close_notify */
	TLS_FAILED,    /* dead: every call returns c->failed */
};

struct tls_server {
	SSL_CTX *ctx; /* owned reference: the context new connections start on */
	char *cert;   /* owned paths, read again by reloads */
	char *key;
	char *ca; /* NULL without --tls-ca */
};

struct tls_client {
	SSL_CTX *ctx; /* owned reference */
	char *pins;   /* owned path of the pin file, NULL: no trust on first use */
	int insecure; /* no verification at all */
};

struct tls_conn {
	SSL *ssl; /* owns both memory BIOs */
	enum tls_state state;
	int failed;     /* the error code once FAILED */
	char *failure;  /* owned: its sentence, repeated to later calls */
	int client;     /* 1 on the connecting side */
	int insecure;   /* client: skip the certificate decision */
	char *pins;     /* client: owned copy of the pin file path, or NULL */
	char *hostport; /* client: owned "host:port" as the pin file writes it */
	char *held;     /* owned plaintext written before OPEN */
	size_t held_len;
	char fp[TLS_FINGERPRINT_LEN + 1]; /* the peer certificate's fingerprint, or "" */
	char alpn[32];                    /* the agreed ALPN protocol, or "" */
};

/* Fill err with a sentence and return code. */
static int tls_fail_text(struct tls_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

static int
tls_fail_text(struct tls_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	err->line = 0;
	va_start(ap, fmt);
	vsnprintf(err->text, sizeof err->text, fmt, ap);
	va_end(ap);
	return code;
}

/*
 * Fill err with prefix and the OpenSSL error queue, drained (each reason once, "; " between),
 * and return code. A queue with nothing in it says "no detail".
 */
static int
tls_fail_queue(struct tls_error *err, int code, const char *prefix)
{
	size_t n;
	unsigned long e;
	int first = 1;

	tls_fail_text(err, code, "%s: ", prefix);
	n = strlen(err->text);
	while ((e = ERR_get_error()) != 0) {
		const char *r = ERR_reason_error_string(e);
		char num[32];

		if (ERR_SYSTEM_ERROR(e))
			r = strerror(ERR_GET_REASON(e)); /* the reason is an errno value */
		if (r != NULL && strcmp(r, "system lib") == 0)
			continue; /* the layer that passes a system error on; says nothing */
		if (r == NULL) {
			snprintf(num, sizeof num, "error %lx", e);
			r = num;
		}
		if (strstr(err->text, r) != NULL)
			continue;
		snprintf(err->text + n, sizeof err->text - n, "%s%s", first ? "" : "; ", r);
		n = strlen(err->text);
		first = 0;
	}
	if (first)
		snprintf(err->text + n, sizeof err->text - n, "no detail");
	return code;
}

/* The settings both sides share: TLS 1.2 and 1.3, small idle connections. */
static SSL_CTX *
tls_ctx_new(const SSL_METHOD *method)
{
	SSL_CTX *ctx = SSL_CTX_new(method);

	if (ctx == NULL)
		return NULL;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
	return ctx;
}

/* Server: pick hokito/1 from the client's ALPN list, or refuse the handshake. */
static int
tls_alpn_cb(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
            unsigned int inlen, void *arg)
{
	unsigned char *sel;

	if (SSL_select_next_proto(&sel, outlen, tls_alpn_wire, sizeof tls_alpn_wire - 1, in,
	                          inlen) != OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_ALERT_FATAL;
	*out = sel;
	return SSL_TLSEXT_ERR_OK;
}

/* Build a server context from the files. Returns 0 with *out (new reference) or TLS_ECONFIG. */
static int
tls_server_ctx(const struct tls_server *s, SSL_CTX **out, struct tls_error *err)
{
	SSL_CTX *ctx;
	char what[512];

	ERR_clear_error();
	if ((ctx = tls_ctx_new(TLS_server_method())) == NULL)
		return tls_fail_queue(err, TLS_ECONFIG, "cannot create a TLS context");
	/*
	 * No session resumption: none of our clients resumes, so a session cache would only grow
	 * with the clients and tickets would cost two records per handshake for nothing. A client
	 * that learns to resume turns tickets back on here (SSL_CTX_set_num_tickets).
	 */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_num_tickets(ctx, 0);
	SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
	SSL_CTX_set_alpn_select_cb(ctx, tls_alpn_cb, NULL);
	if (SSL_CTX_use_certificate_chain_file(ctx, s->cert) != 1) {
		snprintf(what, sizeof what, "cannot load the certificate %s", s->cert);
		goto fail;
	}
	if (s->ca != NULL) {
		BIO *b = BIO_new_file(s->ca, "r");
		X509 *x;
		int n = 0;

		if (b == NULL) {
			snprintf(what, sizeof what, "cannot read the CA file %s", s->ca);
			goto fail;
		}
		while ((x = PEM_read_bio_X509(b, NULL, NULL, NULL)) != NULL) {
			SSL_CTX_add0_chain_cert(ctx, x);
			n++;
		}
		BIO_free(b);
		if (n == 0) {
			snprintf(what, sizeof what, "no certificate in the CA file %s", s->ca);
			goto fail;
		}
		ERR_clear_error(); /* the end of the file is reported as an error */
	}
	if (SSL_CTX_use_PrivateKey_file(ctx, s->key, SSL_FILETYPE_PEM) != 1 &&
	    ERR_GET_REASON(ERR_peek_last_error()) != X509_R_KEY_VALUES_MISMATCH) {
		snprintf(what, sizeof what, "cannot load the private key %s", s->key);
		goto fail;
	}
	if (SSL_CTX_check_private_key(ctx) != 1) {
		ERR_clear_error();
		SSL_CTX_free(ctx);
		return tls_fail_text(err, TLS_ECONFIG,
		                     "the private key %s does not match the certificate %s", s->key,
		                     s->cert);
	}
	*out = ctx;
	return 0;
fail:
	SSL_CTX_free(ctx);
	return tls_fail_queue(err, TLS_ECONFIG, what);
}

int
tls_server_create(struct tls_server **out, const struct tls_server_config *cfg,
                  struct tls_error *err)
{
	struct tls_server *s = xcalloc(1, sizeof *s);
	int r;

	s->cert = xstrdup(cfg->cert_file);
	s->key = xstrdup(cfg->key_file);
	s->ca = cfg->ca_file ? xstrdup(cfg->ca_file) : NULL;
	if ((r = tls_server_ctx(s, &s->ctx, err)) < 0) {
		tls_server_free(s);
		return r;
	}
	*out = s;
	return 0;
}

int
tls_server_reload(struct tls_server *s, struct tls_error *err)
{
	SSL_CTX *ctx;
	int r;

	if ((r = tls_server_ctx(s, &ctx, err)) < 0)
		return r;
	SSL_CTX_free(s->ctx); /* live connections hold their own references */
	s->ctx = ctx;
	return 0;
}

/* A certificate's fingerprint in the pin file's form, into fp; "" when it cannot be taken. */
static void
tls_cert_fingerprint(X509 *cert, char fp[TLS_FINGERPRINT_LEN + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	fp[0] = '\0';
	if (cert == NULL || X509_digest(cert, EVP_sha256(), md, &n) != 1 || n != 32)
		return;
	memcpy(fp, "SHA256:", 7);
	for (unsigned int i = 0; i < n; i++)
		snprintf(fp + 7 + 2 * i, 3, "%02x", md[i]);
}

void
tls_server_fingerprint(const struct tls_server *s, char *buf, size_t size)
{
	char fp[TLS_FINGERPRINT_LEN + 1];

	tls_cert_fingerprint(SSL_CTX_get0_certificate(s->ctx), fp);
	tls_fingerprint_text(fp, buf, size);
}

void
tls_server_free(struct tls_server *s)
{
	if (s == NULL)
		return;
	SSL_CTX_free(s->ctx);
	free(s->cert);
	free(s->key);
	free(s->ca);
	free(s);
}

int
tls_client_create(struct tls_client **out, const struct tls_client_config *cfg,
                  struct tls_error *err)
{
	struct tls_client *c = xcalloc(1, sizeof *c);
	int ok;

	ERR_clear_error();
	if ((c->ctx = tls_ctx_new(TLS_client_method())) == NULL) {
		free(c);
		return tls_fail_queue(err, TLS_ECONFIG, "cannot create a TLS context");
	}
	SSL_CTX_set_verify(c->ctx, SSL_VERIFY_NONE, NULL); /* decided after the handshake */
	if (cfg->ca_file != NULL)
		ok = SSL_CTX_load_verify_locations(c->ctx, cfg->ca_file, NULL);
	else
		ok = SSL_CTX_set_default_verify_paths(c->ctx);
	if (ok != 1 ||
	    SSL_CTX_set_alpn_protos(c->ctx, tls_alpn_wire, sizeof tls_alpn_wire - 1) != 0) {
		char what[512];

		snprintf(what, sizeof what, "cannot load the trusted certificates %s",
		         cfg->ca_file ? cfg->ca_file : "of the system");
		tls_client_free(c);
		return tls_fail_queue(err, TLS_ECONFIG, what);
	}
	c->pins = cfg->pins_file ? xstrdup(cfg->pins_file) : NULL;
	c->insecure = cfg->insecure;
	*out = c;
	return 0;
}

void
tls_client_free(struct tls_client *c)
{
	if (c == NULL)
		return;
	SSL_CTX_free(c->ctx);
	free(c->pins);
	free(c);
}

/* A connection on ctx with two empty memory BIOs. */
static struct tls_conn *
tls_conn_new(SSL_CTX *ctx)
{
	struct tls_conn *c = xcalloc(1, sizeof *c);

	if ((c->ssl = SSL_new(ctx)) == NULL) {
		fprintf(stderr, "hokito: out of memory (SSL_new)\n");
		abort();
	}
	SSL_set_bio(c->ssl, BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem()));
	c->state = TLS_HANDSHAKE;
	return c;
}

/* Mark c failed with err's sentence (kept for later calls). Returns the code. */
static int
tls_conn_die(struct tls_conn *c, struct tls_error *err)
{
	c->state = TLS_FAILED;
	c->failed = err->code;
	free(c->failure);
	c->failure = xstrdup(err->text);
	return err->code;
}

/* Repeat a failed connection's error. */
static int
tls_conn_dead(struct tls_conn *c, struct tls_error *err)
{
	tls_fail_text(err, c->failed, "%s", c->failure);
	return c->failed;
}

struct tls_conn *
tls_conn_server_create(struct tls_server *s)
{
	struct tls_conn *c = tls_conn_new(s->ctx);

	SSL_set_accept_state(c->ssl);
	return c;
}

struct tls_conn *
tls_conn_client_create(struct tls_client *cl, const char *host, int port)
{
	struct tls_conn *c = tls_conn_new(cl->ctx);
	unsigned char addr[16];
	char hp[300], bare[256];
	size_t len = strlen(host);

	if (len >= 2 && len < sizeof bare && host[0] == '[' && host[len - 1] == ']') {
		memcpy(bare, host + 1, len - 2); /* "[::1]" as "::1" */
		bare[len - 2] = '\0';
		host = bare;
	}
	c->client = 1;
	c->insecure = cl->insecure;
	c->pins = cl->pins ? xstrdup(cl->pins) : NULL;
	c->hostport = xstrdup(tls_pins_hostport(hp, sizeof hp, host, port));
	SSL_set_connect_state(c->ssl);
	SSL_set_hostflags(c->ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
	if (inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1) {
		/* No SNI for an address (RFC 6066); the certificate must name the address. */
		X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->ssl), host);
	} else {
		SSL_set_tlsext_host_name(c->ssl, host);
		SSL_set1_host(c->ssl, host);
	}
	ERR_clear_error();
	SSL_do_handshake(c->ssl); /* writes the ClientHello, then wants to read */
	ERR_clear_error();
	return c;
}

void
tls_conn_free(struct tls_conn *c)
{
	if (c == NULL)
		return;
	SSL_free(c->ssl);
	free(c->pins);
	free(c->hostport);
	free(c->held);
	free(c->failure);
	free(c);
}

/* Send the plaintext held while the connection was not open. Returns 0 or an error. */
static int
tls_conn_flush_held(struct tls_conn *c, struct tls_error *err)
{
	char *held = c->held;
	size_t n = c->held_len;
	int r;

	c->held = NULL;
	c->held_len = 0;
	r = n ? tls_conn_write(c, held, n, err) : 0;
	free(held);
	return r;
}

/* Client, after the handshake: ALPN, then the certificate decision. Returns as feed does. */
static int
tls_conn_check_server(struct tls_conn *c, struct tls_error *err)
{
	X509 *cert = SSL_get0_peer_certificate(c->ssl);
	long vr = SSL_get_verify_result(c->ssl);
	const char *vt = X509_verify_cert_error_string(vr);
	char *text = NULL;
	size_t len = 0;
	int r;

	if (c->alpn[0] != '\0' && strcmp(c->alpn, TLS_ALPN) != 0) {
		tls_fail_text(err, TLS_EHANDSHAKE,
		              "the server at %s chose the protocol \"%s\", not %s", c->hostport,
		              c->alpn, TLS_ALPN);
		return tls_conn_die(c, err);
	}
	if (c->insecure) {
		c->state = TLS_OPEN;
		return 0;
	}
	if (cert == NULL) {
		tls_fail_text(err, TLS_EVERIFY, "the server at %s sent no certificate",
		              c->hostport);
		return tls_conn_die(c, err);
	}
	if (c->pins == NULL) {
		if (vr == X509_V_OK) {
			c->state = TLS_OPEN;
			return 0;
		}
		tls_fail_text(err, TLS_EVERIFY, "the certificate of %s failed verification: %s",
		              c->hostport, vt);
		return tls_conn_die(c, err);
	}
	if ((r = tls_pins_load(c->pins, &text, &len, err)) < 0)
		return tls_conn_die(c, err);
	r = tls_pins_decide(c->pins, text, len, c->hostport, c->fp, vr, vt, err);
	free(text);
	switch ((enum tls_trust)r) {
	case TLS_TRUST_VERIFIED:
	case TLS_TRUST_PINNED:
		c->state = TLS_OPEN;
		return 0;
	case TLS_TRUST_UNKNOWN:
		c->state = TLS_TRUST;
		return TLS_ENEWHOST;
	case TLS_TRUST_CHANGED:
		return tls_conn_die(c, err);
	}
	return tls_conn_die(c, err); /* TLS_EPINS: a malformed pin file */
}

/* Advance the handshake. Returns 0 (done or more input needed), TLS_ENEWHOST or an error. */
static int
tls_conn_handshake(struct tls_conn *c, struct tls_error *err)
{
	const unsigned char *alpn;
	unsigned int alpn_len;
	X509 *cert;
	int r;

	ERR_clear_error();
	r = SSL_do_handshake(c->ssl);
	if (r != 1) {
		int e = SSL_get_error(c->ssl, r);

		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
			return 0;
		tls_fail_queue(err, TLS_EHANDSHAKE, "TLS handshake failed");
		return tls_conn_die(c, err);
	}
	SSL_get0_alpn_selected(c->ssl, &alpn, &alpn_len);
	if (alpn_len >= sizeof c->alpn)
		alpn_len = sizeof c->alpn - 1;
	if (alpn_len > 0) /* no ALPN: alpn is NULL */
		memcpy(c->alpn, alpn, alpn_len);
	c->alpn[alpn_len] = '\0';
	if ((cert = SSL_get0_peer_certificate(c->ssl)) != NULL)
		tls_cert_fingerprint(cert, c->fp);
	if (!c->client) {
		c->state = TLS_OPEN;
		return tls_conn_flush_held(c, err);
	}
	if ((r = tls_conn_check_server(c, err)) < 0)
		return r;
	return tls_conn_flush_held(c, err);
}

int
tls_conn_feed(struct tls_conn *c, const void *data, size_t n, struct tls_error *err)
{
	if (c->state == TLS_FAILED)
		return tls_conn_dead(c, err);
	while (n > 0) {
		int chunk = n > 1 << 30 ? 1 << 30 : (int)n;
		int w = BIO_write(SSL_get_rbio(c->ssl), data, chunk);

		if (w <= 0) {
			fprintf(stderr, "hokito: out of memory (BIO_write)\n");
			abort();
		}
		data = (const char *)data + w;
		n -= (size_t)w;
	}
	if (c->state == TLS_HANDSHAKE)
		return tls_conn_handshake(c, err);
	if (c->state == TLS_OPEN && c->held_len > 0)
		return tls_conn_flush_held(c, err); /* a write that wanted to read first */
	return 0;
}

/* Replace a drained memory BIO by an empty one, so an idle connection holds no buffer. */
static void
tls_conn_trim(struct tls_conn *c, int write_side)
{
	BIO *b = write_side ? SSL_get_wbio(c->ssl) : SSL_get_rbio(c->ssl);
	BUF_MEM *bm = NULL;

	if (BIO_ctrl_pending(b) != 0)
		return;
	BIO_get_mem_ptr(b, &bm);
	if (bm == NULL || bm->max == 0)
		return;
	if (write_side)
		SSL_set0_wbio(c->ssl, BIO_new(BIO_s_mem()));
	else
		SSL_set0_rbio(c->ssl, BIO_new(BIO_s_mem()));
}

int
tls_conn_read(struct tls_conn *c, char *buf, size_t cap, size_t *got, struct tls_error *err)
{
	size_t n = 0;
	int r;

	*got = 0;
	switch (c->state) {
	case TLS_FAILED:
		return tls_conn_dead(c, err);
	case TLS_CLOSED:
		return tls_fail_text(err, TLS_ECLOSED, "the peer closed the TLS connection");
	case TLS_HANDSHAKE:
	case TLS_TRUST:
		return 0;
	case TLS_OPEN:
		break;
	}
	ERR_clear_error();
	r = SSL_read_ex(c->ssl, buf, cap, &n);
	if (r == 1) {
		*got = n;
		return 1;
	}
	switch (SSL_get_error(c->ssl, r)) {
	case SSL_ERROR_WANT_READ:
	case SSL_ERROR_WANT_WRITE:
		tls_conn_trim(c, 0);
		return 0;
	case SSL_ERROR_ZERO_RETURN:
		c->state = TLS_CLOSED;
		return tls_fail_text(err, TLS_ECLOSED, "the peer closed the TLS connection");
	default:
		tls_fail_queue(err, TLS_EPROTO, "TLS error");
		return tls_conn_die(c, err);
	}
}

int
tls_conn_write(struct tls_conn *c, const void *data, size_t n, struct tls_error *err)
{
	if (c->state == TLS_FAILED)
		return tls_conn_dead(c, err);
	if (c->state == TLS_CLOSED)
		return tls_fail_text(err, TLS_ECLOSED, "the peer closed the TLS connection");
	while (c->state == TLS_OPEN && c->held_len == 0 && n > 0) {
		size_t w = 0;

		ERR_clear_error();
		if (SSL_write_ex(c->ssl, data, n, &w) != 1) {
			int e = SSL_get_error(c->ssl, 0);

			if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
				break; /* hold the rest until the next feed */
			tls_fail_queue(err, TLS_EPROTO, "TLS error");
			return tls_conn_die(c, err);
		}
		data = (const char *)data + w;
		n -= w;
	}
	if (n > 0) {
		c->held = xrealloc(c->held, c->held_len + n);
		memcpy(c->held + c->held_len, data, n);
		c->held_len += n;
	}
	return 0;
}

char *
tls_conn_take(struct tls_conn *c, size_t *len)
{
	BIO *b = SSL_get_wbio(c->ssl);
	size_t n = BIO_ctrl_pending(b);
	char *p;

	*len = 0;
	if (n == 0)
		return NULL;
	p = xmalloc(n);
	if (BIO_read(b, p, (int)n) != (int)n) {
		fprintf(stderr, "hokito: memory BIO short read\n");
		abort();
	}
	tls_conn_trim(c, 1);
	*len = n;
	return p;
}

size_t
tls_conn_pending(const struct tls_conn *c)
{
	return BIO_ctrl_pending(SSL_get_wbio(c->ssl));
}

int
tls_conn_trust(struct tls_conn *c, struct tls_error *err)
{
	int r;

	if (c->state == TLS_FAILED)
		return tls_conn_dead(c, err);
	if (c->state != TLS_TRUST)
		return 0;
	if ((r = tls_pins_add(c->pins, c->hostport, c->fp, err)) < 0)
		return tls_conn_die(c, err);
	c->state = TLS_OPEN;
	return tls_conn_flush_held(c, err);
}

void
tls_conn_shutdown(struct tls_conn *c)
{
	if (c->state == TLS_OPEN || c->state == TLS_CLOSED) {
		ERR_clear_error();
		SSL_shutdown(c->ssl);
		ERR_clear_error();
	}
}

int
tls_conn_is_open(const struct tls_conn *c)
{
	return c->state == TLS_OPEN;
}

const char *
tls_conn_fingerprint(const struct tls_conn *c)
{
	return c->fp;
}

const char *
tls_conn_version(const struct tls_conn *c)
{
	return SSL_get_version(c->ssl);
}

const char *
tls_conn_alpn(const struct tls_conn *c)
{
	return c->alpn;
}

const char *
tls_conn_verify_text(const struct tls_conn *c)
{
	return X509_verify_cert_error_string(SSL_get_verify_result(c->ssl));
}
