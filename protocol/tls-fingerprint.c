/*
 * tls-fingerprint.c: a fingerprint of the pin file's form in the words of openssl
 * (tls-fingerprint.h). Owns nothing; writes only into the caller's buffer.
 */
#include <string.h>

#include "tls-fingerprint.h"

char *
tls_fingerprint_text(const char *fp, char *buf, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(TLS_FINGERPRINT_PREFIX);

	buf[0] = '\0';
	if (strlen(fp) != TLS_FINGERPRINT_LEN || size < TLS_FINGERPRINT_TEXT_LEN + 1)
		return buf;
	memcpy(buf, TLS_FINGERPRINT_PREFIX, n);
	for (size_t i = 7; i < TLS_FINGERPRINT_LEN; i += 2) {
		for (int k = 0; k < 2; k++) {
			char ch = fp[i + (size_t)k];
			int v = ch >= 'a' ? ch - 'a' + 10 : ch >= 'A' ? ch - 'A' + 10 : ch - '0';

			buf[n++] = hex[v & 15];
		}
		if (i + 2 < TLS_FINGERPRINT_LEN)
			buf[n++] = ':';
	}
	buf[n] = '\0';
	return buf;
}
