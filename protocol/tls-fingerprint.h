/*
 * tls-fingerprint.h: a certificate's fingerprint as hokito writes it (the pin file's form) and as
 * people read it (openssl's words). Pure text: no OpenSSL, no I/O; tls.c makes fingerprints,
 * tls-pins.c keeps them, and both show them through here.
 */
#ifndef HOKITO_PROTOCOL_TLS_FINGERPRINT_H
#define HOKITO_PROTOCOL_TLS_FINGERPRINT_H

#include <stddef.h>

/* "SHA256:" and 64 lowercase hex digits: a certificate's fingerprint, the pin file's format. */
#define TLS_FINGERPRINT_LEN      (7 + 64)
/*
 * The same fingerprint as people read it, in the words of `openssl x509 -noout -fingerprint
 * -sha256` (OpenSSL 3): "sha256 Fingerprint=" and 32 uppercase hex pairs joined by colons. The
 * server logs its certificate's so, and a client shows it so when it asks to trust one.
 */
#define TLS_FINGERPRINT_PREFIX   "sha256 Fingerprint="
#define TLS_FINGERPRINT_TEXT_LEN (19 + 32 * 3 - 1)

/*
 * A fingerprint of the pin file's form ("SHA256:hex", as tls_conn_fingerprint() gives it) in the
 * words of openssl, into buf (TLS_FINGERPRINT_TEXT_LEN + 1 bytes or more); "" for "". Returns
 * buf.
 */
char *tls_fingerprint_text(const char *fp, char *buf, size_t size);

#endif
