/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gzip (RFC 1952) in memory, through zlib: the pprof builder and the OTLP
 * request bodies compress with it, the pprof decoder decompresses with it.
 * Buffers of any size: zlib counts in 32-bit units, so both directions feed
 * it at most 1 GiB at a time.
 */
#ifndef ENAV_PLATFORM_GZIP_H
#define ENAV_PLATFORM_GZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* in[0..n) as one gzip member at the default level; *out is malloc'd.
 * 0, or -ENOMEM (zlib or the buffer). */
int enav_gzip_compress(const uint8_t *in, size_t n, uint8_t **out, size_t *out_len);

/* Does data start with the gzip magic (1f 8b)? */
bool enav_gzip_magic(const uint8_t *data, size_t len);

/*
 * One gzip member, in[0..n), decompressed into a malloc'd *out of at most
 * max_out bytes (the output grows as it fills, so a small input never
 * reserves max_out).  0; -EINVAL for a corrupt or truncated stream or bytes
 * after its end; -E2BIG past max_out (or an input above 4 GiB); -ENOMEM.
 * On failure err (when errlen > 0) holds one line saying why.
 */
int enav_gzip_decompress(const uint8_t *in, size_t n, size_t max_out, uint8_t **out,
			 size_t *out_len, char *err, size_t errlen);

#endif
