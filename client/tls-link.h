/*
 * tls-link.h: the client side of a TLS connection on a libuv stream, shared by hokito, the bot
 * (hokito-engine bot) and the load generator.
 *
 * It drives the engine of protocol/tls.h the way tls.h describes: ciphertext read is fed in and
 * the plaintext goes into the caller's framer; plaintext written comes out as ciphertext in write
 * requests that own their buffer. It owns the struct tls_conn and nothing of the stream: the
 * caller makes, reads, and closes the handle (and frees the link in its close callback). It also
 * holds what every client program says the same way: the server's address (hokitos://HOST:PORT
 * and the other forms), whether a password may go to it in clear, the pin file (known_hosts in the
 * state folder), and the client's trust store made from the options.
 */
#ifndef HOKITO_CLIENT_TLS_LINK_H
#define HOKITO_CLIENT_TLS_LINK_H

#include <stddef.h>

#include <uv.h>

#include "framer.h"
#include "tls.h"

#define TLS_LINK_SCHEME "hokitos://"
#define TLS_LINK_READ   16384 /* ciphertext read at once */

/* The TLS options of a client program (--tls, --tls-ca, --tls-accept-new, --tls-insecure). */
struct tls_link_options {
	int tls;             /* --tls, or a hokitos:// address: speak TLS */
	const char *ca_file; /* --tls-ca: trust this PEM file only (no pins), or NULL */
	int accept_new;      /* --tls-accept-new: pin an unknown server without asking */
	int insecure;        /* --tls-insecure: no checks at all (tests only) */
};

/* One connection's TLS, embedded in nothing: made by tls_link_create, freed by tls_link_free. */
struct tls_link {
	uv_stream_t *stream;      /* borrowed: the caller's connected stream */
	struct tls_conn *conn;    /* owned */
	char rbuf[TLS_LINK_READ]; /* ciphertext reads land here (tls_link_alloc) */
};

/*
 * A server named the way a user writes it, the same for every client program: HOST, HOST:PORT,
 * [IPV6], [IPV6]:PORT or a bare IPV6 address (HOST a name or an IPv4 address), each also after
 * hokito:// (in clear) or hokitos:// (TLS). Returns 0 with host (without brackets), *port set
 * when the address has one (else left alone) and *tls set to 1 after hokitos:// (else left
 * alone); -1 when it is malformed (no host, a port that is not 1-65535, another scheme).
 */
int tls_link_address(const char *arg, char *host, size_t size, int *port, int *tls);

/*
 * Whether a password may go to a server at sa (the address connected to): over TLS, always; in
 * clear, only to a loopback address (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104), unless
 * allow_insecure (--allow-insecure-passwords) says so. Returns 1 or 0.
 */
int tls_link_password_ok(const struct sockaddr *sa, int tls, int allow_insecure);

/*
 * Make the client's trust from o: the system's CAs with the pin file (known_hosts in the state
 * folder) for trust on first use, or o->ca_file's CAs alone, or no checks (insecure). Returns 0
 * with *out (freed with tls_client_free), or a negative code with err filled.
 */
int tls_link_client_create(struct tls_client **out, const struct tls_link_options *o,
                           struct tls_error *err);

/* The pin file's path into buf. Returns 0 or a negative errno. */
int tls_link_pins_path(char *buf, size_t size);

/*
 * Start TLS on the connected stream to host:port: returns a new link (tls_link_free) whose
 * ClientHello is written already. Plaintext written before the handshake ends is held.
 */
struct tls_link *tls_link_create(uv_stream_t *stream, struct tls_client *cl, const char *host,
                                 int port);

/* Free a link (accepts NULL): in the stream's close callback. */
void tls_link_free(struct tls_link *l);

/* The read buffer for the stream's alloc callback. */
void tls_link_alloc(struct tls_link *l, uv_buf_t *buf);

/*
 * Feed n bytes read (from tls_link_alloc's buffer) and move the plaintext into f. Returns 0,
 * TLS_ENEWHOST (an unknown server: err->text asks; tls_link_trust accepts it), TLS_ECLOSED (the
 * server ended TLS) or another negative tls_err with err filled (the connection is dead).
 */
int tls_link_read(struct tls_link *l, size_t n, struct framer *f, struct tls_error *err);

/* Send n bytes of plaintext (copied). Returns 0 or a negative code (tls_err or libuv). */
int tls_link_write(struct tls_link *l, const void *data, size_t n, struct tls_error *err);

/* Pin the server a read answered TLS_ENEWHOST for, and go on. Returns 0 or TLS_EPINS. */
int tls_link_trust(struct tls_link *l, struct tls_error *err);

/* Say close_notify before the caller closes the stream. */
void tls_link_shutdown(struct tls_link *l);

#endif
