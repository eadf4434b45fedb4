/* SPDX-License-Identifier: Apache-2.0 */
#include "features/process/argv_redact.h"

#include <string.h>

#include "enav/abi.h"
#include "model/l7_text.h"

/* Words that make a flag or variable name carry a secret. */
static const char *const secret_words[] = {"PASSWORD", "PASSWD",     "TOKEN", "SECRET",
					   "KEY",      "CREDENTIAL", "AUTH",  NULL};

static unsigned char up(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? (unsigned char)(c - 32) : c;
}

/* The name s[0..n) (dashes and underscores ignored) contains a secret word. */
static bool secret_name(const char *s, size_t n)
{
	char norm[64];
	size_t k = 0;
	for (size_t i = 0; i < n && k < sizeof(norm) - 1; i++)
		if (s[i] != '-' && s[i] != '_' && s[i] != '.')
			norm[k++] = (char)up((unsigned char)s[i]);
	norm[k] = '\0';
	for (const char *const *w = secret_words; *w; w++)
		if (strstr(norm, *w))
			return true;
	return false;
}

static bool name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* Clients whose short flags carry a password. */
enum tool { T_OTHER, T_MYSQL, T_SSHPASS, T_REDIS, T_CURL };

static enum tool tool_of(const char *a0, size_t n)
{
	const char *b = a0;
	for (size_t i = 0; i < n; i++)
		if (a0[i] == '/')
			b = a0 + i + 1;
	size_t bn = n - (size_t)(b - a0);
	static const struct {
		const char *name;
		enum tool t;
	} tools[] = {
	    {"mysql", T_MYSQL},	      {"mysqldump", T_MYSQL},	 {"mysqladmin", T_MYSQL},
	    {"mysqlimport", T_MYSQL}, {"mysqlshow", T_MYSQL},	 {"mysqlcheck", T_MYSQL},
	    {"mariadb", T_MYSQL},     {"mariadb-dump", T_MYSQL}, {"mariadb-admin", T_MYSQL},
	    {"sshpass", T_SSHPASS},   {"redis-cli", T_REDIS},	 {"curl", T_CURL}};
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (strlen(tools[i].name) == bn && memcmp(b, tools[i].name, bn) == 0)
			return tools[i].t;
	return T_OTHER;
}

/* The short flag (one letter, after '-') whose value is a secret for t. */
static char secret_short(enum tool t)
{
	switch (t) {
	case T_MYSQL:
	case T_SSHPASS:
		return 'p';
	case T_REDIS:
		return 'a';
	case T_CURL:
		return 'u';
	default:
		return 0;
	}
}

static bool prefix_ci(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);
	if (n < l)
		return false;
	for (size_t i = 0; i < l; i++)
		if (up((unsigned char)s[i]) != up((unsigned char)lit[i]))
			return false;
	return true;
}

/*
 * How much of the argument a[0..n) to keep before a marker replaces the
 * rest: n when nothing is secret.  *next_secret is set when the argument is
 * a flag whose value is the next argument.
 */
static size_t keep_of(const char *a, size_t n, enum tool t, bool *next_secret)
{
	*next_secret = false;
	/* Header lines (curl -H). */
	static const char *const headers[] = {
	    "authorization:", "proxy-authorization:", "cookie:", NULL};
	for (const char *const *h = headers; *h; h++)
		if (prefix_ci(a, n, *h))
			return strlen(*h);
	size_t d = 0;
	while (d < n && d < 2 && a[d] == '-')
		d++;
	/* The tool's short flag: -pVALUE, or -p VALUE where the tool reads it so. */
	char sf = secret_short(t);
	if (d == 1 && sf && n >= 2 && a[1] == sf) {
		if (n > 2)
			return 2;
		*next_secret = t != T_MYSQL; /* mysql -p VALUE prompts; VALUE is a name */
		return n;
	}
	if (t == T_CURL && d == 2 && n == 6 && memcmp(a, "--user", 6) == 0) {
		*next_secret = true;
		return n;
	}
	const char *eq = memchr(a, '=', n);
	size_t name_e = eq ? (size_t)(eq - a) : n;
	for (size_t i = d; i < name_e; i++)
		if (!name_char((unsigned char)a[i]))
			return n; /* not NAME=value nor a flag */
	if (name_e == d)
		return n;
	if (t == T_CURL && d == 2 && name_e == 6 && memcmp(a, "--user", 6) == 0 && eq)
		return name_e + 1;
	if (!secret_name(a + d, name_e - d))
		return n;
	if (eq)
		return name_e + 1;
	*next_secret = d > 0; /* a bare word naming a secret is just a word */
	return n;
}

/*
 * A URL argument (scheme://...) rewritten into buf: a password in its
 * userinfo, the identifier-like segments of its path (as a span's path,
 * enav_l7_path_redact), and its query go.  Returns the length, 0 when a is
 * not a URL; *changed says whether anything was replaced.
 */
static size_t url_redact(const char *a, size_t n, char *buf, size_t cap, bool *changed)
{
	const char *sch = n >= 3 ? memmem(a, n, "://", 3) : NULL;
	*changed = false;
	if (!sch || sch == a)
		return 0;
	for (const char *c = a; c < sch; c++)
		if (!name_char((unsigned char)*c) && *c != '+')
			return 0;
	size_t as = (size_t)(sch - a) + 3, ae = as;
	while (ae < n && a[ae] != '/' && a[ae] != '?' && a[ae] != '#')
		ae++;
	const char *at = NULL;
	for (size_t i = as; i < ae; i++)
		if (a[i] == '@')
			at = a + i;
	size_t o = 0;
#define PUT(p, len)                                                                                \
	do {                                                                                       \
		size_t l_ = (len);                                                                 \
		if (o + l_ >= cap)                                                                 \
			return 0;                                                                  \
		memcpy(buf + o, (p), l_);                                                          \
		o += l_;                                                                           \
	} while (0)
	const char *colon = at ? memchr(a + as, ':', (size_t)(at - a) - as) : NULL;
	if (colon) {
		PUT(a, (size_t)(colon - a) + 1);
		PUT(ENAV_ARGV_REDACTED, strlen(ENAV_ARGV_REDACTED));
		PUT(at, (size_t)(a + ae - at));
		*changed = true;
	} else {
		PUT(a, ae);
	}
	size_t q = ae;
	while (q < n && a[q] != '?' && a[q] != '#')
		q++;
	char path[ENAV_ARGV_MAX];
	size_t pn = enav_l7_path_redact(a + ae, q - ae, path, sizeof(path));
	if (pn != q - ae || memcmp(path, a + ae, pn) != 0)
		*changed = true;
	PUT(path, pn);
	if (q < n && a[q] == '?') {
		PUT("?", 1);
		PUT(ENAV_ARGV_REDACTED, strlen(ENAV_ARGV_REDACTED));
		*changed = true;
	}
#undef PUT
	return o;
}

size_t enav_argv_redact(const char *in, size_t n, char *out, size_t cap, uint32_t *redacted,
			bool *cut)
{
	size_t o = 0, i = 0, idx = 0;
	enum tool t = T_OTHER;
	bool secret_next = false;
	const size_t ml = strlen(ENAV_ARGV_REDACTED);
	*cut = false;
	while (i < n) {
		const char *a = in + i;
		const char *z = memchr(a, '\0', n - i);
		size_t an = z ? (size_t)(z - a) : n - i;
		bool has_nul = z != NULL;
		size_t keep = an;
		bool mark = false, next = false, url_changed = false;
		char url[ENAV_ARGV_MAX + ENAV_ARGV_REDACT_SLACK];
		size_t url_n =
		    idx && !secret_next ? url_redact(a, an, url, sizeof(url), &url_changed) : 0;
		if (idx == 0) {
			t = tool_of(a, an);
		} else if (url_changed) {
			keep = 0;
		} else if (secret_next && !(an >= 2 && a[0] == '-' && a[1] == '-')) {
			keep = 0;
			mark = true;
		} else {
			keep = keep_of(a, an, t, &next);
			mark = keep < an;
		}
		secret_next = next;
		size_t body = url_changed ? url_n : keep;
		size_t need = body + (mark ? ml : 0) + (has_nul ? 1 : 0);
		if (o + need > cap) {
			*cut = true;
			break;
		}
		memcpy(out + o, url_changed ? url : a, body);
		o += body;
		if (url_changed)
			(*redacted)++;
		if (mark) {
			memcpy(out + o, ENAV_ARGV_REDACTED, ml);
			o += ml;
			(*redacted)++;
		}
		if (has_nul)
			out[o++] = '\0';
		i += an + (has_nul ? 1 : 0);
		idx++;
	}
	return o;
}
