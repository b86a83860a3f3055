/*
 * tls.h: TLS for hokito's connections, an engine on memory buffers (OpenSSL 3), no socket.
 *
 * This module owns the TLS state of a connection and nothing else: it never calls a socket, a
 * timer or libuv, never blocks and never loops waiting for a peer. The caller reads ciphertext
 * from its socket and feeds it in; plaintext comes out; plaintext goes in and ciphertext comes
 * out to be written. TLS 1.2 and 1.3 only; ALPN "hokito/1" (a server refuses a client that offers
 * ALPN without it; a client that offers none, such as `openssl s_client`, is accepted).
 *
 * Driving it from libuv (the design note):
 *
 *   accept/connect:  c = tls_conn_server_create(srv)  or  tls_conn_client_create(cli, host, port)
 *                    then flush (below): a client's ClientHello is already waiting.
 *   read_cb(nread):  r = tls_conn_feed(c, buf, nread, &err);
 *                    r == TLS_ENEWHOST (client): ask the user (err.text names the fingerprint),
 *                        then tls_conn_trust(c, &err), or close;
 *                    r < 0: flush (an alert may be waiting), then close, logging err.text;
 *                    then loop: r = tls_conn_read(c, space, size, &n, &err) into the framer's
 *                    space (framer_space/framer_commit, or the server's in-place split) while
 *                    r == 1; r == TLS_ECLOSED is the peer's clean end (as UV_EOF), r < 0 an error;
 *                    then flush.  UV_EOF from the socket during the handshake is just a close.
 *   write path:      tls_conn_write(c, line, len, &err) with the plaintext line (it is copied;
 *                    before the handshake ends it is held and sent once the peer is trusted);
 *                    then flush.
 *   flush:           while ((p = tls_conn_take(c, &n)) != NULL) uv_write a request that owns p
 *                    (free(p) in the write callback). Call it after every feed, read, write,
 *                    trust and shutdown: any of them may produce ciphertext.
 *   close:           tls_conn_shutdown(c) queues close_notify; flush; close the handle;
 *                    tls_conn_free(c) in the close callback.
 *   deadlines:       a stalled handshake is only "need more input" here (tls_conn_feed returns 0
 *                    and tls_conn_is_open() stays 0): the caller's hello deadline ends it, and
 *                    limits count from the first byte (max clients counts handshaking ones).
 *   SIGHUP:          tls_server_reload(srv, &err): new connections get the new certificate,
 *                    existing ones keep theirs (each SSL holds a reference to its SSL_CTX).
 *
 * Memory per idle connection: handshake and record buffers are released when empty
 * (SSL_MODE_RELEASE_BUFFERS), and the memory BIOs are replaced by empty ones once drained, so an
 * idle connection holds the SSL object and its session (a few KB) and no 16 KB record buffers.
 * The price is one allocation per read and per write of ciphertext. Errors: functions return 0
 * (or 1 where said) or a negative enum tls_err and fill a struct tls_error with a sentence: the
 * OpenSSL error queue drained into it, or the certificate check's own words ("certificate has
 * expired", "hostname mismatch", "unable to get local issuer certificate").
 */
#ifndef HOKITO_PROTOCOL_TLS_H
#define HOKITO_PROTOCOL_TLS_H

#include "tls-fingerprint.h"
#include <stddef.h>

#define TLS_ALPN "hokito/1"

enum tls_err {
	TLS_ECONFIG = -1, /* a certificate, key or CA file did not load, or key and cert differ */
	TLS_EHANDSHAKE =
	        -2,       /* the handshake failed: garbage, a protocol or version refused, ALPN */
	TLS_EVERIFY = -3, /* the server's certificate failed verification (client) */
	TLS_ENEWHOST =
	        -4, /* not an error: an unpinned, unverified server awaits tls_conn_trust() */
	TLS_ECHANGED = -5, /* the server's certificate differs from the one pinned for it */
	TLS_EPINS = -6,    /* the pin file is unreadable, malformed (with its line) or unwritable */
	TLS_EPROTO = -7,   /* a TLS error after the handshake (bad record, peer's alert) */
	TLS_ECLOSED = -8,  /* the peer closed TLS cleanly (close_notify) */
};

/* What went wrong, in words; filled by every function that returns a negative code. */
struct tls_error {
	int code;       /* the enum tls_err returned */
	int line;       /* the line of the pin file for TLS_EPINS/TLS_ECHANGED, else 0 */
	char text[768]; /* one sentence or more, NUL-terminated */
};

struct tls_server; /* a server's configuration and its current SSL_CTX */
struct tls_client; /* a client's configuration: trust store, pins, insecure mode */
struct tls_conn;   /* one connection's TLS state */

struct tls_server_config {
	const char *cert_file; /* --tls-cert: PEM certificate, its chain may follow it */
	const char *key_file;  /* --tls-key: PEM private key */
	const char *ca_file;   /* --tls-ca: PEM chain certificates sent after it, or NULL */
};

struct tls_client_config {
	const char *ca_file; /* --tls-ca: trust only this PEM file; NULL: the system trust store */
	const char *pins_file; /* the known-hosts file for trust on first use; NULL: none */
	int insecure;          /* 1: no verification at all (tests only; the caller says so) */
};

/*
 * Load a server's certificate and key (and chain). Returns 0 with *out set (a new server the
 * caller frees with tls_server_free), or TLS_ECONFIG. The paths are copied for reloads.
 */
int tls_server_create(struct tls_server **out, const struct tls_server_config *cfg,
                      struct tls_error *err);

/*
 * Read the files again into a new context; only when it loads and the key matches the
 * certificate does it serve new connections from now on. Returns 0, or TLS_ECONFIG with the old
 * context kept. Connections already made keep the context they started with.
 */
int tls_server_reload(struct tls_server *s, struct tls_error *err);

/*
 * The fingerprint of the certificate the server serves new connections with, in the words of
 * openssl (TLS_FINGERPRINT_PREFIX...), into buf (TLS_FINGERPRINT_TEXT_LEN + 1 bytes or more).
 */
void tls_server_fingerprint(const struct tls_server *s, char *buf, size_t size);

/* Free a server (accepts NULL). Connections made from it stay valid. */
void tls_server_free(struct tls_server *s);

/*
 * Set up a client: the trust store (system or ca_file), the pin file's path (copied) and the
 * insecure mode. Returns 0 with *out set (freed with tls_client_free), or TLS_ECONFIG.
 */
int tls_client_create(struct tls_client **out, const struct tls_client_config *cfg,
                      struct tls_error *err);

/* Free a client (accepts NULL). Connections made from it stay valid. */
void tls_client_free(struct tls_client *c);

/* A server side connection on the server's current context. Returns a new one. */
struct tls_conn *tls_conn_server_create(struct tls_server *s);

/*
 * A client side connection to host:port (host a name or an IP address, an IPv6 one with or without
 * brackets): SNI (names only) and the name or address check are set, and the ClientHello is
 * waiting in the output. Returns a new one.
 */
struct tls_conn *tls_conn_client_create(struct tls_client *cl, const char *host, int port);

/* Free a connection (accepts NULL). */
void tls_conn_free(struct tls_conn *c);

/*
 * Feed n bytes of ciphertext read from the socket (copied) and advance the handshake. Returns 0
 * (go on: plaintext may be ready, or more input is needed), TLS_ENEWHOST (a client's server is
 * neither verified nor pinned: err->text shows the fingerprint; tls_conn_trust() accepts it), or
 * a negative error (the connection is dead: flush the alert, close). After a failure every call
 * returns the same code.
 */
int tls_conn_feed(struct tls_conn *c, const void *data, size_t n, struct tls_error *err);

/*
 * Take plaintext received: up to cap bytes into buf. Returns 1 with *got > 0; 0 when none is ready
 * (more input needed, or the handshake or trust is not done); TLS_ECLOSED when the peer ended TLS
 * cleanly; another negative code on error. Call it until it returns 0 after each feed.
 */
int tls_conn_read(struct tls_conn *c, char *buf, size_t cap, size_t *got, struct tls_error *err);

/*
 * Hand n bytes of plaintext (copied) to send. Before the connection is open (handshake done and,
 * for a client, the server trusted) they are held and sent when it opens. Returns 0 or the
 * connection's error.
 */
int tls_conn_write(struct tls_conn *c, const void *data, size_t n, struct tls_error *err);

/*
 * Take the ciphertext waiting to be written. Returns a new buffer of *len > 0 bytes that the
 * caller frees (with free(), e.g. in its write callback), or NULL when there is none.
 */
char *tls_conn_take(struct tls_conn *c, size_t *len);

/* Bytes of ciphertext waiting for tls_conn_take(). */
size_t tls_conn_pending(const struct tls_conn *c);

/*
 * Accept the server a feed answered TLS_ENEWHOST for: its fingerprint is added to the pin file
 * (mode 0600) and the connection opens (held plaintext goes out). Returns 0 or TLS_EPINS.
 */
int tls_conn_trust(struct tls_conn *c, struct tls_error *err);

/* Queue close_notify (take it and write it before closing the socket). */
void tls_conn_shutdown(struct tls_conn *c);

/* 1 once the handshake is done and (client) the server is trusted; 0 before. */
int tls_conn_is_open(const struct tls_conn *c);

/* The peer certificate's fingerprint ("SHA256:hex", borrowed), or "" when there is none yet. */
const char *tls_conn_fingerprint(const struct tls_conn *c);

/* The negotiated protocol version ("TLSv1.3", borrowed). */
const char *tls_conn_version(const struct tls_conn *c);

/* The ALPN protocol agreed ("hokito/1", borrowed), or "" when the peer offered none. */
const char *tls_conn_alpn(const struct tls_conn *c);

/* The certificate check's result in words (client; "ok" when it passed). Borrowed. */
const char *tls_conn_verify_text(const struct tls_conn *c);

#endif
