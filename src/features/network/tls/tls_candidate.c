/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/tls/tls_candidate.h"

#include <string.h>
#include <sys/sysmacros.h>

#include "enav/abi.h"
#include "platform/proc_lines.h"

int enav_tls_library_of_path(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strncmp(base, "libssl.so", 9) == 0)
		return ENAV_TLS_LIB_OPENSSL;
	if (strncmp(base, "libgnutls.so", 12) == 0)
		return ENAV_TLS_LIB_GNUTLS;
	return ENAV_TLS_LIB_NONE;
}

bool enav_tls_candidate_of_maps_line(const char *line, size_t len, bool openssl, bool gnutls,
				     struct enav_tls_candidate *out)
{
	struct enav_maps_line ml;
	/* The inode is the identity the opened file must have: a mapping
	 * without one (anonymous, or a line that lies) has nothing to check
	 * against, and the path alone is the tenant's to change. */
	if (enav_maps_parse_line(line, len, &ml) != 0 || !ml.path || ml.deleted || !ml.exec ||
	    ml.inode == 0 || ml.path_len == 0 || ml.path_len >= sizeof(out->path) ||
	    ml.path[0] != '/' || memchr(ml.path, '\0', ml.path_len) || ml.end <= ml.start)
		return false;
	memcpy(out->path, ml.path, ml.path_len);
	out->path[ml.path_len] = '\0';
	int library = enav_tls_library_of_path(out->path);
	if (!((library == ENAV_TLS_LIB_OPENSSL && openssl) ||
	      (library == ENAV_TLS_LIB_GNUTLS && gnutls)))
		return false;
	out->library = library;
	out->start = ml.start;
	out->end = ml.end;
	out->dev = makedev(ml.dev_major, ml.dev_minor);
	out->ino = ml.inode;
	return true;
}
