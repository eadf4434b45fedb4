/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The modinfo text of a Go binary's build info (go_buildinfo.h): the
 * "path", "mod", "dep", "=>" and "build" lines `go version -m` prints,
 * parsed as Go's debug.ParseBuildInfo does, values unquoted as Go strings.
 * The text is capped, and so are its lines, the dependencies and the build
 * settings; strings never hold a NUL.  go_buildinfo.c finds the text in an
 * ELF file.
 */
#include "golang/go_buildinfo_priv.h"
#include "platform/parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmd/go/internal/modload infoStart / infoEnd. */
static const unsigned char info_start[ENAV_GO_SENTINEL_LEN] = {
    0x30, 0x77, 0xaf, 0x0c, 0x92, 0x74, 0x08, 0x02, 0x41, 0xe1, 0xc1, 0x07, 0xe6, 0xd6, 0x18, 0xe6};
static const unsigned char info_end[ENAV_GO_SENTINEL_LEN] = {
    0xf9, 0x32, 0x43, 0x31, 0x86, 0x18, 0x20, 0x72, 0x00, 0x82, 0x42, 0x10, 0x41, 0x16, 0xd8, 0xf2};

int enav_go_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
		/* One line, whatever a format argument held. */
		for (char *p = err; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
	}
	return rc;
}

static char *dup_n(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

static void module_free(struct enav_go_module *m)
{
	free(m->path);
	free(m->version);
	free(m->sum);
	free(m->replace_path);
	free(m->replace_version);
	free(m->replace_sum);
	memset(m, 0, sizeof(*m));
}

void enav_go_buildinfo_free(struct enav_go_buildinfo *b)
{
	if (!b)
		return;
	free(b->go_version);
	free(b->path);
	module_free(&b->main);
	for (size_t i = 0; i < b->n_deps; i++)
		module_free(&b->deps[i]);
	free(b->deps);
	for (size_t i = 0; i < b->n_settings; i++) {
		free(b->settings[i].key);
		free(b->settings[i].value);
		free(b->settings[i].raw);
	}
	free(b->settings);
	memset(b, 0, sizeof(*b));
}

/* Up to three tab-separated fields; false when there are more. */
static bool split_fields(const char *s, size_t n, const char *f[3], size_t fl[3])
{
	size_t k = 0, start = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '\t')
			continue;
		if (k == 3)
			return false;
		f[k] = s + start;
		fl[k] = i - start;
		k++;
		start = i + 1;
	}
	for (; k < 3; k++) {
		f[k] = "";
		fl[k] = 0;
	}
	return true;
}

/* Fills path/version/sum (replacement: the replace_* fields) of m. */
static int set_module(struct enav_go_module *m, bool replacement, const char *s, size_t n,
		      char *err, size_t errlen, size_t lineno)
{
	const char *f[3];
	size_t fl[3];

	if (!split_fields(s, n, f, fl))
		return enav_go_fail(err, errlen, -EINVAL, "modinfo line %zu: more than 3 fields",
				    lineno);
	char *a = dup_n(f[0], fl[0]), *b = dup_n(f[1], fl[1]), *c = dup_n(f[2], fl[2]);
	if (!a || !b || !c) {
		free(a);
		free(b);
		free(c);
		return enav_go_fail(err, errlen, -ENOMEM, "out of memory");
	}
	if (replacement) {
		m->replaced = true;
		m->replace_path = a;
		m->replace_version = b;
		m->replace_sum = c;
	} else {
		module_free(m);
		m->path = a;
		m->version = b;
		m->sum = c;
	}
	return 0;
}

/* Decodes one UTF-8 sequence as Go's utf8.DecodeRune does: its length, or
 * 0 when invalid (Go then yields U+FFFD and advances one byte). */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *r)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t v, min;

	if (c < 0x80) {
		*r = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*r = v;
	return len;
}

/*
 * A Go string literal ("..." or `...`) at the start of s[0..n): its length
 * including the quotes, or 0 when s does not start with a valid one.  With
 * out (room for n bytes) the value is decoded there and *outlen set, as
 * strconv.Unquote does: escapes in "...", '\r' dropped from `...`, invalid
 * UTF-8 in "..." containing escapes replaced by U+FFFD.
 */
static size_t go_unquote(const char *s, size_t n, char *out, size_t *outlen)
{
	size_t o = 0;

	if (n < 2)
		return 0;
	if (s[0] == '`') {
		const char *end = memchr(s + 1, '`', n - 1);

		if (!end)
			return 0;
		for (const char *p = s + 1; p < end; p++)
			if (out && *p != '\r')
				out[o++] = *p;
		if (outlen)
			*outlen = o;
		return (size_t)(end - s) + 1;
	}
	if (s[0] != '"')
		return 0;
	/* Without escapes valid UTF-8 is taken as is (Go's fast path). */
	const char *q = memchr(s + 1, '"', n - 1);
	bool verbatim = q && !memchr(s, '\\', (size_t)(q - s)) && !memchr(s, '\n', (size_t)(q - s));
	if (verbatim) {
		for (const unsigned char *p = (const unsigned char *)s + 1;
		     p < (const unsigned char *)q;) {
			uint32_t r;
			size_t l = utf8_decode(p, (size_t)((const unsigned char *)q - p), &r);

			if (!l) {
				verbatim = false;
				break;
			}
			p += l;
		}
	}
	if (verbatim) {
		size_t l = (size_t)(q - s) - 1;

		if (out)
			memcpy(out, s + 1, l);
		if (outlen)
			*outlen = l;
		return l + 2;
	}
	size_t i = 1;
	while (i < n && s[i] != '"') {
		unsigned char c = (unsigned char)s[i];
		uint32_t r;
		bool multibyte = false;

		if (c == '\n')
			return 0;
		if (c >= 0x80) {
			size_t l = utf8_decode((const unsigned char *)s + i, n - i, &r);

			if (!l) {
				r = 0xfffd;
				l = 1;
			}
			i += l;
			multibyte = true;
		} else if (c != '\\') {
			r = c;
			i++;
		} else {
			if (i + 1 >= n)
				return 0;
			char e = s[i + 1];
			i += 2;
			switch (e) {
			case 'a':
				r = '\a';
				break;
			case 'b':
				r = '\b';
				break;
			case 'f':
				r = '\f';
				break;
			case 'n':
				r = '\n';
				break;
			case 'r':
				r = '\r';
				break;
			case 't':
				r = '\t';
				break;
			case 'v':
				r = '\v';
				break;
			case '\\':
				r = '\\';
				break;
			case '"':
				r = '"';
				break;
			case 'x':
			case 'u':
			case 'U': {
				size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;

				if (n - i < digits)
					return 0;
				r = 0;
				for (size_t j = 0; j < digits; j++) {
					int h = enav_hex_digit(s[i + j]);

					if (h < 0)
						return 0;
					r = r << 4 | (uint32_t)h;
				}
				i += digits;
				if (e != 'x') {
					if (r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff))
						return 0;
					multibyte = true;
				}
				break;
			}
			case '0':
			case '1':
			case '2':
			case '3':
			case '4':
			case '5':
			case '6':
			case '7':
				r = (uint32_t)(e - '0');
				if (n - i < 2)
					return 0;
				for (size_t j = 0; j < 2; j++) {
					if (s[i + j] < '0' || s[i + j] > '7')
						return 0;
					r = r << 3 | (uint32_t)(s[i + j] - '0');
				}
				i += 2;
				if (r > 255)
					return 0;
				break;
			default:
				return 0;
			}
		}
		if (out) {
			if (r < 0x80 || !multibyte)
				out[o++] = (char)r;
			else
				o += enav_utf8_put(r, out + o);
		}
	}
	if (i >= n)
		return 0;
	if (outlen)
		*outlen = o;
	return i + 1;
}

/* The decoded value of a whole quoted literal s[0..n), or NULL (*bad set
 * when the literal is invalid, not when out of memory). */
static char *unquote_dup(const char *s, size_t n, bool *bad)
{
	/* Each source byte decodes to at most 3 bytes (an invalid byte
	 * becomes U+FFFD); escapes decode to fewer bytes than they take. */
	char *out = malloc(n * 3 + 1);
	size_t ol = 0;

	*bad = false;
	if (!out)
		return NULL;
	if (go_unquote(s, n, out, &ol) != n) {
		*bad = true;
		free(out);
		return NULL;
	}
	out[ol] = '\0';
	if (memchr(out, '\0', ol)) {
		*bad = true;
		free(out);
		return NULL;
	}
	return out;
}

static bool has_any(const char *s, size_t n, const char *set)
{
	for (size_t i = 0; i < n; i++)
		if (strchr(set, s[i]) && s[i] != '\0')
			return true;
	return false;
}

/* A "build\t" line's text after the prefix, by debug.ParseBuildInfo's rules. */
static int parse_setting(struct enav_go_buildinfo *b, const char *kv, size_t n, char *err,
			 size_t errlen, size_t lineno)
{
	const char *rawv;
	size_t rawk_len, rawv_len;
	bool key_quoted = false, bad = false;

	if (b->n_settings >= ENAV_GO_BUILDINFO_MAX_SETTINGS)
		return enav_go_fail(err, errlen, -EINVAL, "more than %u build settings",
				    ENAV_GO_BUILDINFO_MAX_SETTINGS);
	if (n == 0)
		return enav_go_fail(err, errlen, -EINVAL,
				    "modinfo line %zu: build line missing '='", lineno);
	if (kv[0] == '=')
		return enav_go_fail(err, errlen, -EINVAL,
				    "modinfo line %zu: build line with missing key", lineno);
	if (kv[0] == '`' || kv[0] == '"') {
		rawk_len = go_unquote(kv, n, NULL, NULL);
		if (!rawk_len)
			return enav_go_fail(err, errlen, -EINVAL,
					    "modinfo line %zu: invalid quoted key in build line",
					    lineno);
		if (rawk_len == n || kv[rawk_len] != '=')
			return enav_go_fail(
			    err, errlen, -EINVAL,
			    "modinfo line %zu: build line missing '=' after quoted key", lineno);
		key_quoted = true;
	} else {
		const char *eq = memchr(kv, '=', n);

		if (!eq)
			return enav_go_fail(err, errlen, -EINVAL,
					    "modinfo line %zu: build line missing '=' after key",
					    lineno);
		rawk_len = (size_t)(eq - kv);
		if (has_any(kv, rawk_len, " \t\r\n\"`"))
			return enav_go_fail(err, errlen, -EINVAL,
					    "modinfo line %zu: unquoted build key must be quoted",
					    lineno);
	}
	rawv = kv + rawk_len + 1;
	rawv_len = n - rawk_len - 1;
	bool value_quoted = rawv_len > 0 && (rawv[0] == '`' || rawv[0] == '"');
	if (!value_quoted && has_any(rawv, rawv_len, " \t\r\n\"`"))
		return enav_go_fail(err, errlen, -EINVAL,
				    "modinfo line %zu: unquoted build value must be quoted",
				    lineno);

	char *key = key_quoted ? unquote_dup(kv, rawk_len, &bad) : dup_n(kv, rawk_len);
	if (!key)
		return bad ? enav_go_fail(err, errlen, -EINVAL,
					  "modinfo line %zu: invalid quoted key in build line",
					  lineno)
			   : enav_go_fail(err, errlen, -ENOMEM, "out of memory");
	char *value = value_quoted ? unquote_dup(rawv, rawv_len, &bad) : dup_n(rawv, rawv_len);
	if (!value) {
		free(key);
		return bad ? enav_go_fail(err, errlen, -EINVAL,
					  "modinfo line %zu: invalid quoted value in build line",
					  lineno)
			   : enav_go_fail(err, errlen, -ENOMEM, "out of memory");
	}
	char *raw = dup_n(kv, n);
	struct enav_go_build_setting *ns =
	    raw ? realloc(b->settings, (b->n_settings + 1) * sizeof(*ns)) : NULL;
	if (!ns) {
		free(key);
		free(value);
		free(raw);
		return enav_go_fail(err, errlen, -ENOMEM, "out of memory");
	}
	b->settings = ns;
	ns[b->n_settings++] =
	    (struct enav_go_build_setting){.key = key, .value = value, .raw = raw};
	return 0;
}

static bool starts(const char *s, size_t n, const char *prefix, size_t *plen)
{
	size_t l = strlen(prefix);

	*plen = l;
	return n >= l && !memcmp(s, prefix, l);
}

/* The modinfo text without sentinels. */
static int parse_text(const char *text, size_t len, struct enav_go_buildinfo *b, char *err,
		      size_t errlen)
{
	struct enav_go_module *last = NULL;
	size_t deps_cap = 0, lineno = 0;
	int rc;

	if (len > ENAV_GO_BUILDINFO_MAX_MODINFO)
		return enav_go_fail(err, errlen, -EINVAL,
				    "modinfo of %zu bytes exceeds the %u-byte cap", len,
				    ENAV_GO_BUILDINFO_MAX_MODINFO);
	if (memchr(text, '\0', len))
		return enav_go_fail(err, errlen, -EINVAL, "NUL byte in modinfo");
	for (size_t pos = 0; pos < len;) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos, pl;

		pos += n + (nl ? 1 : 0);
		lineno++;
		if (n > 0 && line[n - 1] == '\r')
			n--; /* CRLF line ends accepted */
		if (n > ENAV_GO_BUILDINFO_MAX_LINE)
			return enav_go_fail(err, errlen, -EINVAL,
					    "modinfo line %zu longer than %u bytes", lineno,
					    ENAV_GO_BUILDINFO_MAX_LINE);
		if (starts(line, n, "path\t", &pl)) {
			char *p = dup_n(line + pl, n - pl);

			if (!p)
				return enav_go_fail(err, errlen, -ENOMEM, "out of memory");
			free(b->path);
			b->path = p;
		} else if (starts(line, n, "mod\t", &pl)) {
			rc = set_module(&b->main, false, line + pl, n - pl, err, errlen, lineno);
			if (rc)
				return rc;
			b->has_main = true;
			last = &b->main;
		} else if (starts(line, n, "dep\t", &pl)) {
			if (b->n_deps >= ENAV_GO_BUILDINFO_MAX_DEPS)
				return enav_go_fail(err, errlen, -EINVAL,
						    "more than %u dependencies",
						    ENAV_GO_BUILDINFO_MAX_DEPS);
			if (b->n_deps == deps_cap) {
				size_t nc = deps_cap ? deps_cap * 2 : 16;
				struct enav_go_module *nd;

				if (nc > ENAV_GO_BUILDINFO_MAX_DEPS)
					nc = ENAV_GO_BUILDINFO_MAX_DEPS;
				nd = realloc(b->deps, nc * sizeof(*nd));
				if (!nd)
					return enav_go_fail(err, errlen, -ENOMEM, "out of memory");
				b->deps = nd;
				deps_cap = nc;
			}
			struct enav_go_module *m = &b->deps[b->n_deps];
			memset(m, 0, sizeof(*m));
			rc = set_module(m, false, line + pl, n - pl, err, errlen, lineno);
			if (rc)
				return rc;
			b->n_deps++;
			last = m;
		} else if (starts(line, n, "=>\t", &pl)) {
			if (!last)
				return enav_go_fail(
				    err, errlen, -EINVAL,
				    "modinfo line %zu: replacement (=>) with no module "
				    "line before it",
				    lineno);
			rc = set_module(last, true, line + pl, n - pl, err, errlen, lineno);
			if (rc)
				return rc;
			last = NULL;
		} else if (starts(line, n, "build\t", &pl)) {
			rc = parse_setting(b, line + pl, n - pl, err, errlen, lineno);
			if (rc)
				return rc;
		}
		/* Other lines are ignored, as Go does. */
	}
	return 0;
}

/* Every string non-NULL ("" when absent) except replace_* of an unreplaced
 * module. */
static int fill_empty(struct enav_go_buildinfo *b, char *err, size_t errlen)
{
	char **s[] = {&b->go_version, &b->path, &b->main.path, &b->main.version, &b->main.sum};

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (!*s[i] && !(*s[i] = strdup("")))
			return enav_go_fail(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

int enav_go_modinfo_parse_unwrapped(const char *text, size_t len, struct enav_go_buildinfo *out,
				    char *err, size_t errlen)
{
	int rc = parse_text(text, len, out, err, errlen);

	if (!rc)
		rc = fill_empty(out, err, errlen);
	if (rc)
		enav_go_buildinfo_free(out);
	return rc;
}

int enav_go_buildinfo_parse_modinfo(const char *text, size_t len, struct enav_go_buildinfo *out,
				    char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	if (!text && len)
		return enav_go_fail(err, errlen, -EINVAL, "no modinfo text");
	if (len >= 2 * ENAV_GO_SENTINEL_LEN && !memcmp(text, info_start, ENAV_GO_SENTINEL_LEN) &&
	    !memcmp(text + len - ENAV_GO_SENTINEL_LEN, info_end, ENAV_GO_SENTINEL_LEN)) {
		text += ENAV_GO_SENTINEL_LEN;
		len -= 2 * ENAV_GO_SENTINEL_LEN;
	}
	return enav_go_modinfo_parse_unwrapped(text ? text : "", len, out, err, errlen);
}
