/*
 * fuzz-framer.c: the protocol's input side: framing and message decoding.
 *
 * Input: the first byte picks how the rest is cut into reads (sizes 1 to 64, cycling), the rest
 * is the byte stream of a connection. Every line that comes out must be whole (no '\n' inside,
 * within the limit), and msg_decode() must accept it or refuse it with a code and a sentence;
 * a line over the limit must fail the framer for good.
 */
#include <stdlib.h>
#include <string.h>

#include "framer.h"
#include "fuzz.h"
#include "msg.h"
#include "protocol.h"

#define FUZZ_MAX_LINE 512

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct framer f;
	size_t pos = 1, cut;
	int failed = 0;

	if (size < 1)
		return 0;
	cut = 1 + data[0] % 64;
	framer_init(&f, FUZZ_MAX_LINE);
	while (pos < size && !failed) {
		size_t n = size - pos < cut ? size - pos : cut;
		const char *line;
		size_t len;
		int rc;

		framer_feed(&f, data + pos, n);
		pos += n;
		while ((rc = framer_next(&f, &line, &len)) == 1) {
			struct msg m;
			struct msg_error err;
			check(len <= FUZZ_MAX_LINE);
			check(memchr(line, '\n', len) == NULL);
			check(line[len] == '\0');
			memset(&err, 0, sizeof err);
			if (msg_decode(&m, line, len, &err) < 0)
				check(err.code != 0 && err.text[0] != '\0');
			msg_clear(&m);
		}
		if (rc < 0) {
			check(rc == PROTO_ETOOLONG);
			check(framer_next(&f, &line, &len) == PROTO_ETOOLONG);
			failed = 1;
		}
	}
	framer_close(&f);
	return 0;
}
