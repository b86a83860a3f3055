/*
 * tls-pins.h: trust on first use for servers whose certificate no CA vouches for, as ssh does.
 *
 * The pin file ("known hosts", mode 0600) remembers one certificate fingerprint per server:
 *
 *   # comment lines and blank lines are allowed
 *   HOST:PORT SHA256:<64 lowercase hex digits>
 *
 * HOST is a name or an IPv4 address, or an IPv6 address in brackets ("[::1]:7711"); one space
 * separates the two fields; a HOST:PORT appears once. Anything else is an error naming its line:
 * a damaged pin file is never half read. The decision itself is a pure function of the file's
 * text, the server, its fingerprint and the certificate check's result, so it is tested without
 * a network or a disk; reading and writing the file are separate calls.
 */
#ifndef HOKITO_PROTOCOL_TLS_PINS_H
#define HOKITO_PROTOCOL_TLS_PINS_H

#include <stddef.h>

#include "tls.h"

enum tls_trust {
	TLS_TRUST_VERIFIED = 0, /* the certificate check passed: pins are not consulted */
	TLS_TRUST_PINNED = 1,   /* not verified, but equal to the pinned fingerprint: accept */
	TLS_TRUST_UNKNOWN =
	        2, /* not verified and not pinned: ask (err->text has the fingerprint) */
	TLS_TRUST_CHANGED = 3, /* not verified and a different fingerprint is pinned: refuse */
};

/*
 * Decide about a server: text/len is the pin file's content (NULL/0 for none; path is used in
 * sentences only), hostport "host:port" as written in the file, fp the fingerprint seen,
 * verify_result the certificate check's result (0 is X509_V_OK) and verify_text its words.
 * Returns an enum tls_trust (>= 0) with err->text explaining UNKNOWN and CHANGED (err->line set to
 * the pin's line for CHANGED), or TLS_EPINS for a malformed file (err->line is the bad line).
 */
int tls_pins_decide(const char *path, const char *text, size_t len, const char *hostport,
                    const char *fp, long verify_result, const char *verify_text,
                    struct tls_error *err);

/*
 * Read the pin file. Returns 0 with *text (new, NUL-terminated, freed by the caller) and *len; a
 * missing file is empty (*text NULL, *len 0). TLS_EPINS when it cannot be read.
 */
int tls_pins_load(const char *path, char **text, size_t *len, struct tls_error *err);

/*
 * Pin fp for hostport: the file is read (and must parse), the host's old line is replaced or a
 * line appended, and the result written to a temporary file of mode 0600 that is renamed over the
 * old one. Returns 0 or TLS_EPINS.
 */
int tls_pins_add(const char *path, const char *hostport, const char *fp, struct tls_error *err);

/* Format host and port as the file writes them ("h:p", "[v6]:p") into out. Returns out. */
char *tls_pins_hostport(char *out, size_t size, const char *host, int port);

#endif
