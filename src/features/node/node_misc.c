/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node_time_seconds, node_uname_info and, from os-release, node_os_info and
 * node_os_version (as Debian's node_exporter 1.5 renders them).
 *
 * os-release is <root>/etc/os-release, else <root>/usr/lib/os-release, where
 * root is "/" in production (see enav_node_open_ex).  It is read once at
 * open: an upgrade shows after the agent restarts.  Values follow the
 * os-release(5) shell subset: "double" quotes with \" \\ \$ \` escapes,
 * 'single' quotes, or a bare word with backslash escapes.
 */
#include "features/node/node_priv.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const os_keys[ENAV_NODE_OS_NKEYS] = {
    [ENAV_NODE_OS_BUILD_ID] = "BUILD_ID",
    [ENAV_NODE_OS_ID] = "ID",
    [ENAV_NODE_OS_ID_LIKE] = "ID_LIKE",
    [ENAV_NODE_OS_IMAGE_ID] = "IMAGE_ID",
    [ENAV_NODE_OS_IMAGE_VERSION] = "IMAGE_VERSION",
    [ENAV_NODE_OS_NAME] = "NAME",
    [ENAV_NODE_OS_PRETTY_NAME] = "PRETTY_NAME",
    [ENAV_NODE_OS_VARIANT] = "VARIANT",
    [ENAV_NODE_OS_VARIANT_ID] = "VARIANT_ID",
    [ENAV_NODE_OS_VERSION] = "VERSION",
    [ENAV_NODE_OS_VERSION_CODENAME] = "VERSION_CODENAME",
    [ENAV_NODE_OS_VERSION_ID] = "VERSION_ID",
};

/* Label names: the keys in lower case, in the same (alphabetical) order. */
static const char *const os_labels[ENAV_NODE_OS_NKEYS] = {
    "build_id",	   "id",      "id_like",    "image_id", "image_version",    "name",
    "pretty_name", "variant", "variant_id", "version",	"version_codename", "version_id",
};

static bool key_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Decode the value [s, e) into out; false when malformed or too long. */
static bool os_value(const char *s, const char *e, char *out, size_t cap)
{
	size_t o = 0;
	char quote = 0;

	while (s < e) {
		char c = *s++;

		if (quote == '\'') {
			if (c == '\'') {
				quote = 0;
				continue;
			}
		} else if (quote == '"') {
			if (c == '"') {
				quote = 0;
				continue;
			}
			if (c == '\\' && s < e &&
			    (*s == '"' || *s == '\\' || *s == '$' || *s == '`'))
				c = *s++;
		} else {
			if (c == '"' || c == '\'') {
				quote = c;
				continue;
			}
			if (c == ' ' || c == '\t' || c == '\r')
				break; /* end of the assignment */
			if (c == '\\') {
				if (s >= e)
					break;
				c = *s++;
			}
		}
		if (c == '\0' || o + 1 >= cap)
			return false;
		out[o++] = c;
	}
	if (quote)
		return false; /* unterminated */
	out[o] = '\0';
	return true;
}

bool enav_node_parse_os_release(const char *buf, size_t len, struct enav_node_os *out)
{
	const char *pos = buf, *end = buf + len, *line;
	size_t ll;
	bool any = false;

	memset(out, 0, sizeof(*out));
	while (enav_node_next_line(&pos, end, &line, &ll)) {
		const char *s = line, *e = line + ll, *k;
		char val[ENAV_NODE_OS_VALUE];

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		k = s;
		while (s < e && key_char(*s))
			s++;
		if (s == k || s >= e || *s != '=')
			continue; /* blank, comment or not an assignment */
		size_t kl = (size_t)(s - k);

		for (int i = 0; i < ENAV_NODE_OS_NKEYS; i++) {
			if (strlen(os_keys[i]) != kl || memcmp(os_keys[i], k, kl) != 0)
				continue;
			if (os_value(s + 1, e, val, sizeof(val))) {
				memcpy(out->v[i], val, strlen(val) + 1);
				any = true;
			}
			break;
		}
	}
	return any;
}

double enav_node_os_version_number(const char *version_id)
{
	/* node_exporter: the leading ^[0-9]+\.?[0-9]* of VERSION_ID */
	const char *s = version_id, *p = s;
	uint64_t m;
	unsigned sc;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == s)
		return 0;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (!enav_node_parse_decimal(s, (size_t)(p - s), &m, &sc))
		return 0;
	return enav_node_decimal_value(m, sc);
}

static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	ssize_t r = pread(fd, buf, cap, 0);

	close(fd);
	return r;
}

void enav_node_read_os_release(struct enav_node *n)
{
	static const char *const rel[] = {"etc/os-release", "usr/lib/os-release"};
	char path[sizeof(n->root) + 32];
	bool slash = n->root[0] && n->root[strlen(n->root) - 1] == '/';
	ssize_t len = -1;

	n->os_ok = false;
	for (size_t i = 0; i < 2 && len < 0; i++) {
		snprintf(path, sizeof(path), "%s%s%s", n->root, slash ? "" : "/", rel[i]);
		len = read_small(path, n->buf, n->buf_cap);
	}
	if (len < 0 || !enav_node_parse_os_release(n->buf, (size_t)len, &n->os)) {
		enav_node_count_error(n, ENAV_NODE_F_OS_RELEASE);
		return;
	}
	for (int i = 0; i < ENAV_NODE_OS_NKEYS; i++)
		if (!enav_utf8_valid(n->os.v[i]))
			n->os.v[i][0] = '\0';
	n->os_ok = true;
}

void enav_node_render_misc(struct enav_node *n, struct enav_promtext *p)
{
	struct utsname u;

	enav_promtext_family(p, "node_time_seconds", "gauge",
			     "System time in seconds since the epoch.");
	enav_promtext_sample(p, "node_time_seconds", NULL, 0, n->hooks.now_fn());

	if (n->hooks.uname_fn(&u) == 0) {
		const char *l[] = {"domainname", u.domainname, "machine", u.machine,
				   "nodename",	 u.nodename,   "release", u.release,
				   "sysname",	 u.sysname,    "version", u.version};
		bool ok = true;

		for (size_t i = 1; i < sizeof(l) / sizeof(l[0]); i += 2)
			ok &= enav_utf8_valid(l[i]);
		if (ok) {
			enav_promtext_family(p, "node_uname_info", "gauge",
					     "Constant 1, labelled with uname(2)'s fields.");
			enav_promtext_sample_u64(p, "node_uname_info", l, 6, 1);
		}
	}

	n->available[ENAV_NODE_C_OS] = n->os_ok;
	if (!n->os_ok)
		return;
	const char *l[2 * ENAV_NODE_OS_NKEYS];

	for (int i = 0; i < ENAV_NODE_OS_NKEYS; i++) {
		l[2 * i] = os_labels[i];
		l[2 * i + 1] = n->os.v[i];
	}
	enav_promtext_family(p, "node_os_info", "gauge",
			     "Constant 1, labelled with the os-release fields.");
	enav_promtext_sample_u64(p, "node_os_info", l, ENAV_NODE_OS_NKEYS, 1);

	const char *v[] = {"id",      n->os.v[ENAV_NODE_OS_ID],
			   "id_like", n->os.v[ENAV_NODE_OS_ID_LIKE],
			   "name",    n->os.v[ENAV_NODE_OS_NAME]};

	enav_promtext_family(p, "node_os_version", "gauge",
			     "The major.minor part of the os-release VERSION_ID.");
	enav_promtext_sample(p, "node_os_version", v, 3,
			     enav_node_os_version_number(n->os.v[ENAV_NODE_OS_VERSION_ID]));
}
