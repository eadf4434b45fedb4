/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the OTLP response reader
 * (enav_otlp_decode_partial_success, src/exporters/otlp/otlp_encode.c).
 *
 * Byte 0 picks the message buffer's size (0..63).  Whatever the input: the
 * message is NUL-terminated inside its buffer and holds no control byte;
 * on -EINVAL both outputs are reset; the rejected count is never negative;
 * and the same body gives the same answer twice.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exporters/otlp/otlp_encode.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[64 + 1], msg2[64 + 1];
	int64_t rejected, rejected2;

	if (size < 1)
		return 0;
	size_t cap = data[0] % 64;
	const uint8_t *body = data + 1;
	size_t len = size - 1;

	memset(msg, 'x', sizeof(msg));
	msg[64] = '\0';
	int rc = enav_otlp_decode_partial_success(body, len, &rejected, msg, cap);

	CHECK(rc == 0 || rc == -EINVAL);
	CHECK(rejected >= 0);
	if (cap) {
		size_t n = strnlen(msg, cap);

		CHECK(n < cap);
		for (size_t i = 0; i < n; i++)
			CHECK((unsigned char)msg[i] >= 0x20 && msg[i] != 0x7f);
	} else {
		CHECK(msg[0] == 'x'); /* a zero-size buffer is never written */
	}
	if (rc)
		CHECK(rejected == 0 && (cap == 0 || msg[0] == '\0'));
	int rc2 = enav_otlp_decode_partial_success(body, len, &rejected2, msg2, cap);

	CHECK(rc2 == rc && rejected2 == rejected);
	CHECK(cap == 0 || strcmp(msg, msg2) == 0);
	/* NULL outputs: same verdict. */
	CHECK(enav_otlp_decode_partial_success(body, len, NULL, NULL, 0) == rc);
	return 0;
}
