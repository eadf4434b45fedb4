/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/gzip.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#define ZCHUNK	      ((size_t)1 << 30) /* zlib counts in uInt */
#define GZIP_WINDOW   (15 + 16)		/* 32 KiB window, gzip wrapper */
#define INFLATE_FIRST ((size_t)65536)	/* smallest first output buffer */

__attribute__((format(printf, 4, 5))) static int say(char *err, size_t errlen, int rc,
						     const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

int enav_gzip_compress(const uint8_t *in, size_t n, uint8_t **out, size_t *out_len)
{
	z_stream zs = {0};

	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	/* deflateBound is exact for one call; the margin covers feeding it in
	 * chunks. */
	size_t cap = deflateBound(&zs, n) + 64, ipos = 0, opos = 0;
	uint8_t *buf = malloc(cap);
	int rc = -ENOMEM, flush;

	if (!buf)
		goto out;
	do {
		size_t ichunk = n - ipos < ZCHUNK ? n - ipos : ZCHUNK;

		zs.next_in = (Bytef *)(in + ipos);
		zs.avail_in = (uInt)ichunk;
		ipos += ichunk;
		flush = ipos == n ? Z_FINISH : Z_NO_FLUSH;
		for (;;) {
			size_t ochunk = cap - opos < ZCHUNK ? cap - opos : ZCHUNK;

			zs.next_out = buf + opos;
			zs.avail_out = (uInt)ochunk;
			int zr = deflate(&zs, flush);

			opos += ochunk - zs.avail_out;
			if (zr == Z_STREAM_END)
				break;
			if (zr != Z_OK && zr != Z_BUF_ERROR)
				goto out;
			if (flush != Z_FINISH && zs.avail_in == 0 && zs.avail_out != 0)
				break;
			if (opos == cap || (zr == Z_BUF_ERROR && ochunk == zs.avail_out))
				goto out; /* no room or no progress: deflateBound lied */
		}
	} while (flush != Z_FINISH);
	rc = 0;
	*out = buf;
	*out_len = opos;
	buf = NULL;
out:
	deflateEnd(&zs);
	free(buf);
	return rc;
}

bool enav_gzip_magic(const uint8_t *data, size_t len)
{
	return len >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

int enav_gzip_decompress(const uint8_t *in, size_t n, size_t max_out, uint8_t **out,
			 size_t *out_len, char *err, size_t errlen)
{
	z_stream zs = {0};

	if (n > UINT_MAX)
		return say(err, errlen, -E2BIG, "gzip input of %zu bytes is too large", n);
	if (max_out > SIZE_MAX / 4)
		max_out = SIZE_MAX / 4;
	if (inflateInit2(&zs, GZIP_WINDOW) != Z_OK)
		return say(err, errlen, -ENOMEM, "inflateInit2 failed");
	/* One byte past max_out tells "exactly max_out" from "more". */
	size_t hard = max_out + 1, cap = n < hard / 4 ? n * 4 : hard, opos = 0;
	uint8_t *buf = NULL;
	int rc;

	if (cap < INFLATE_FIRST)
		cap = hard < INFLATE_FIRST ? hard : INFLATE_FIRST;
	buf = malloc(cap);
	if (!buf) {
		rc = say(err, errlen, -ENOMEM, "out of memory inflating");
		goto out;
	}
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)n;
	for (;;) {
		if (opos == cap) {
			size_t nc = cap > hard / 2 ? hard : cap * 2;
			uint8_t *nb = realloc(buf, nc);

			if (!nb) {
				rc = say(err, errlen, -ENOMEM, "out of memory inflating");
				goto out;
			}
			buf = nb;
			cap = nc;
		}
		size_t ochunk = cap - opos < ZCHUNK ? cap - opos : ZCHUNK;

		zs.next_out = buf + opos;
		zs.avail_out = (uInt)ochunk;
		int zr = inflate(&zs, Z_NO_FLUSH);

		opos += ochunk - zs.avail_out;
		if (opos > max_out) {
			rc = say(err, errlen, -E2BIG, "gzip: decompressed size exceeds %zu bytes",
				 max_out);
			goto out;
		}
		if (zr == Z_STREAM_END)
			break;
		if (zr == Z_OK)
			continue;
		if (zr == Z_BUF_ERROR && zs.avail_out == 0)
			continue;
		if (zr == Z_BUF_ERROR)
			rc = say(err, errlen, -EINVAL, "gzip: truncated stream");
		else if (zr == Z_MEM_ERROR)
			rc = say(err, errlen, -ENOMEM, "gzip: out of memory");
		else
			rc = say(err, errlen, -EINVAL, "gzip: %s",
				 zs.msg ? zs.msg : "corrupt stream");
		goto out;
	}
	if (zs.avail_in) {
		rc = say(err, errlen, -EINVAL, "gzip: %u bytes after the end of the stream",
			 zs.avail_in);
		goto out;
	}
	*out = buf;
	*out_len = opos;
	buf = NULL;
	rc = 0;
out:
	inflateEnd(&zs);
	free(buf);
	return rc;
}
