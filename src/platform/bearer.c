/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/bearer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

bool enav_bearer_token_ok(const char *tok, size_t len)
{
	if (len == 0 || len > ENAV_BEARER_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)tok[i] < 0x21 || (unsigned char)tok[i] > 0x7e)
			return false;
	return true;
}

int enav_bearer_load(const char *path, char *out, size_t outlen, char *err, size_t errlen)
{
	/* O_NONBLOCK: a FIFO put at the path must not hang the start. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "http.bearer_token_file: cannot open %s: %s", path,
			 strerror(errno));
		return -1;
	}
	struct stat st;
	int rc = -1;
	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "http.bearer_token_file: %s: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "http.bearer_token_file: %s is not a regular file", path);
	} else if (st.st_mode & (S_IROTH | S_IWOTH)) {
		/* A token every user can read lets every user in; one every user can
		 * write lets them choose it. */
		snprintf(err, errlen,
			 "http.bearer_token_file: %s is readable or writable by every user (mode "
			 "%04o): refusing to run with it; chmod o-rw it",
			 path, (unsigned)(st.st_mode & 07777));
	} else if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(err, errlen,
			 "http.bearer_token_file: %s is owned by uid %u, not root or the agent's "
			 "user: refusing to run with it",
			 path, (unsigned)st.st_uid);
	} else if (st.st_size > ENAV_BEARER_MAX + 64) {
		snprintf(err, errlen, "http.bearer_token_file: %s is larger than %d bytes", path,
			 ENAV_BEARER_MAX + 64);
	} else {
		char buf[ENAV_BEARER_MAX + 65];
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			snprintf(err, errlen, "http.bearer_token_file: cannot read %s: %s", path,
				 strerror(errno));
		} else {
			size_t len = (size_t)n;
			/* Prometheus trims the file's white space; so do we. */
			while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' ||
				       buf[len - 1] == ' ' || buf[len - 1] == '\t'))
				len--;
			if (!enav_bearer_token_ok(buf, len) || len >= outlen) {
				snprintf(err, errlen,
					 "http.bearer_token_file: %s must hold one token of 1..%d "
					 "printable ASCII characters without space",
					 path, ENAV_BEARER_MAX);
			} else {
				memcpy(out, buf, len);
				out[len] = '\0';
				rc = 0;
			}
			explicit_bzero(buf, sizeof(buf));
		}
	}
	close(fd);
	return rc;
}

bool enav_bearer_equal(const char *got, size_t got_len, const char *want, size_t want_len)
{
	/* Every byte of want is visited whatever got holds, so the time says
	 * nothing of the first difference. */
	volatile unsigned char diff = got_len != want_len;
	for (size_t i = 0; i < want_len; i++) {
		unsigned char g = i < got_len ? (unsigned char)got[i] : 0;
		diff |= g ^ (unsigned char)want[i];
	}
	return diff == 0;
}

bool enav_bearer_check(const char *header, const char *token)
{
	if (!header || !token || !token[0])
		return false;
	if (strncasecmp(header, "Bearer ", 7) != 0)
		return false;
	const char *v = header + 7;
	while (*v == ' ')
		v++;
	size_t n = strnlen(v, ENAV_BEARER_MAX + 1);
	while (n && v[n - 1] == ' ')
		n--;
	return enav_bearer_equal(v, n, token, strlen(token));
}
