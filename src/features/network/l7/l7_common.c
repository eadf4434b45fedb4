/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/l7/l7_common.h"

#include <string.h>

#include "enav/abi.h"
#include "platform/numfmt.h"

const char *enav_tls_library_name(int library)
{
	switch (library) {
	case ENAV_TLS_LIB_OPENSSL:
		return "openssl";
	case ENAV_TLS_LIB_GNUTLS:
		return "gnutls";
	case ENAV_TLS_LIB_GO:
		return "go";
	default:
		return NULL;
	}
}

bool enav_l7_copy_text(char *dst, size_t cap, const void *s, size_t n)
{
	if (cap == 0)
		return n > 0;
	const unsigned char *src = s;
	bool cut = n > cap - 1;
	if (cut)
		n = cap - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? (char)src[i] : '?';
	dst[n] = '\0';
	return cut;
}

uint32_t enav_l7_max_pending(const struct enav_l7_options *opt)
{
	if (!opt || opt->max_pending == 0 || opt->max_pending > ENAV_L7_MAX_PENDING)
		return ENAV_L7_MAX_PENDING;
	return opt->max_pending;
}

struct enav_l7_sql_options enav_l7_sql_options(const struct enav_l7_options *opt)
{
	return (struct enav_l7_sql_options){
	    .max_pending = enav_l7_max_pending(opt),
	    .sanitized = opt && opt->sanitized_statement,
	};
}

size_t enav_l7_put_number(char *out, size_t cap, const char *prefix, int64_t v)
{
	char tmp[64];
	size_t n = strnlen(prefix, sizeof(tmp) - ENAV_U64_TEXT_MAX - 1);
	memcpy(tmp, prefix, n);
	n += enav_fmt_i64(tmp + n, v);
	if (cap == 0)
		return 0;
	if (n > cap - 1)
		n = cap - 1;
	memcpy(out, tmp, n);
	out[n] = '\0';
	return n;
}

void enav_l7_put_text(char *out, size_t cap, const char *s)
{
	if (cap == 0)
		return;
	size_t n = strnlen(s, cap - 1);
	memcpy(out, s, n);
	out[n] = '\0';
}

void enav_l7_sql_emit(enum enav_l7_protocol protocol, const struct enav_l7_sql_texts *t,
		      bool response_seen, bool error, const struct enav_l7_exchange *x,
		      const struct enav_l7_sink *out)
{
	struct enav_l7_op op;
	struct enav_l7_exchange ex = *x;

	memset(&op, 0, sizeof(op));
	op.protocol = protocol;
	op.kind = ENAV_L7_OP_REQUEST;
	op.error = response_seen && error;
	op.response_seen = response_seen;
	memcpy(op.operation, t->operation, sizeof(op.operation));
	memcpy(op.target, t->target, sizeof(op.target));
	if (response_seen)
		memcpy(op.status, t->status, sizeof(op.status));
	if (t->statement)
		memcpy(op.statement, t->statement, sizeof(op.statement));
	op.status_code = -1;
	if (!response_seen) {
		ex.end_ns = 0;
		ex.response_bytes = 0;
	}
	enav_l7_emit_exchange(&op, &ex, out);
}
