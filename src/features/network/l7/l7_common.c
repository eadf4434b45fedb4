/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/l7/l7.h"

#include <string.h>

#include "enav/abi.h"

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

const char *enav_l7_protocol_name(enum enav_l7_protocol p)
{
	static const char *const names[ENAV_L7__COUNT] = {
	    [ENAV_L7_UNKNOWN] = "unknown",     [ENAV_L7_HTTP1] = "http1",
	    [ENAV_L7_HTTP2] = "http2",	       [ENAV_L7_REDIS] = "redis",
	    [ENAV_L7_POSTGRES] = "postgresql", [ENAV_L7_MYSQL] = "mysql",
	    [ENAV_L7_KAFKA] = "kafka",	       [ENAV_L7_MONGO] = "mongodb",
	    [ENAV_L7_NATS] = "nats",	       [ENAV_L7_WEBSOCKET] = "websocket",
	};
	return (unsigned)p < ENAV_L7__COUNT && names[p] ? names[p] : "unknown";
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
