/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Go build information (`go version -m`) from an untrusted ELF file.
 *
 * Layout (written by the Go linker; see go_buildinfo.h):
 *  - a 32-byte header at a 16-byte aligned offset of the .go.buildinfo
 *    section, or when there is no such section within the first 64 KiB of
 *    the first writable, non-executable PT_LOAD segment: the 14-byte magic
 *    "\xff Go buildinf:", the pointer size, a flags byte (bit 0 big-endian,
 *    bit 1 inline strings);
 *  - inline (Go 1.18+): the version and the modinfo follow the header, each
 *    a uvarint length and the bytes;
 *  - older: two pointers at offset 16 to Go string headers {data, len} for
 *    the version and the modinfo, resolved through the PT_LOAD segments.
 * The modinfo is framed by 16-byte sentinels, stripped as Go does (length
 * at least 33 and a '\n' just before the last 16 bytes; otherwise there is
 * no module information).
 *
 * The ELF headers are parsed here with bounds checks against the file size;
 * every read is a pread of a bounded size (no mmap: a file truncated under
 * us cannot fault).  The modinfo text is capped, and so are its lines, the
 * dependencies and the build settings; strings never hold a NUL.
 */
#include "features/profiling/go_buildinfo.h"
#include "platform/parse.h"
#include "platform/tenant_file.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WINDOW_BYTES  (64u << 10) /* searched for the magic */
#define HEADER_BYTES  32u
#define MAGIC	      "\xff Go buildinf:"
#define MAGIC_LEN     14u
#define MAX_PHNUM     4096u
#define MAX_SHNUM     16384u
#define SENTINEL_LEN  16u
#define NOT_GO_REASON "no Go build information"

/* cmd/go/internal/modload infoStart / infoEnd. */
static const unsigned char info_start[SENTINEL_LEN] = {
    0x30, 0x77, 0xaf, 0x0c, 0x92, 0x74, 0x08, 0x02, 0x41, 0xe1, 0xc1, 0x07, 0xe6, 0xd6, 0x18, 0xe6};
static const unsigned char info_end[SENTINEL_LEN] = {
    0xf9, 0x32, 0x43, 0x31, 0x86, 0x18, 0x20, 0x72, 0x00, 0x82, 0x42, 0x10, 0x41, 0x16, 0xd8, 0xf2};

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
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

/* ---- modinfo text ---------------------------------------------------------- */

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
		return fail(err, errlen, -EINVAL, "modinfo line %zu: more than 3 fields", lineno);
	char *a = dup_n(f[0], fl[0]), *b = dup_n(f[1], fl[1]), *c = dup_n(f[2], fl[2]);
	if (!a || !b || !c) {
		free(a);
		free(b);
		free(c);
		return fail(err, errlen, -ENOMEM, "out of memory");
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

static size_t utf8_encode(uint32_t r, char *out)
{
	if (r < 0x80) {
		out[0] = (char)r;
		return 1;
	}
	if (r < 0x800) {
		out[0] = (char)(0xc0 | r >> 6);
		out[1] = (char)(0x80 | (r & 0x3f));
		return 2;
	}
	if (r < 0x10000) {
		out[0] = (char)(0xe0 | r >> 12);
		out[1] = (char)(0x80 | (r >> 6 & 0x3f));
		out[2] = (char)(0x80 | (r & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | r >> 18);
	out[1] = (char)(0x80 | (r >> 12 & 0x3f));
	out[2] = (char)(0x80 | (r >> 6 & 0x3f));
	out[3] = (char)(0x80 | (r & 0x3f));
	return 4;
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
				o += utf8_encode(r, out + o);
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
		return fail(err, errlen, -EINVAL, "more than %u build settings",
			    ENAV_GO_BUILDINFO_MAX_SETTINGS);
	if (n == 0)
		return fail(err, errlen, -EINVAL, "modinfo line %zu: build line missing '='",
			    lineno);
	if (kv[0] == '=')
		return fail(err, errlen, -EINVAL, "modinfo line %zu: build line with missing key",
			    lineno);
	if (kv[0] == '`' || kv[0] == '"') {
		rawk_len = go_unquote(kv, n, NULL, NULL);
		if (!rawk_len)
			return fail(err, errlen, -EINVAL,
				    "modinfo line %zu: invalid quoted key in build line", lineno);
		if (rawk_len == n || kv[rawk_len] != '=')
			return fail(err, errlen, -EINVAL,
				    "modinfo line %zu: build line missing '=' after quoted key",
				    lineno);
		key_quoted = true;
	} else {
		const char *eq = memchr(kv, '=', n);

		if (!eq)
			return fail(err, errlen, -EINVAL,
				    "modinfo line %zu: build line missing '=' after key", lineno);
		rawk_len = (size_t)(eq - kv);
		if (has_any(kv, rawk_len, " \t\r\n\"`"))
			return fail(err, errlen, -EINVAL,
				    "modinfo line %zu: unquoted build key must be quoted", lineno);
	}
	rawv = kv + rawk_len + 1;
	rawv_len = n - rawk_len - 1;
	bool value_quoted = rawv_len > 0 && (rawv[0] == '`' || rawv[0] == '"');
	if (!value_quoted && has_any(rawv, rawv_len, " \t\r\n\"`"))
		return fail(err, errlen, -EINVAL,
			    "modinfo line %zu: unquoted build value must be quoted", lineno);

	char *key = key_quoted ? unquote_dup(kv, rawk_len, &bad) : dup_n(kv, rawk_len);
	if (!key)
		return bad ? fail(err, errlen, -EINVAL,
				  "modinfo line %zu: invalid quoted key in build line", lineno)
			   : fail(err, errlen, -ENOMEM, "out of memory");
	char *value = value_quoted ? unquote_dup(rawv, rawv_len, &bad) : dup_n(rawv, rawv_len);
	if (!value) {
		free(key);
		return bad ? fail(err, errlen, -EINVAL,
				  "modinfo line %zu: invalid quoted value in build line", lineno)
			   : fail(err, errlen, -ENOMEM, "out of memory");
	}
	char *raw = dup_n(kv, n);
	struct enav_go_build_setting *ns =
	    raw ? realloc(b->settings, (b->n_settings + 1) * sizeof(*ns)) : NULL;
	if (!ns) {
		free(key);
		free(value);
		free(raw);
		return fail(err, errlen, -ENOMEM, "out of memory");
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
		return fail(err, errlen, -EINVAL, "modinfo of %zu bytes exceeds the %u-byte cap",
			    len, ENAV_GO_BUILDINFO_MAX_MODINFO);
	if (memchr(text, '\0', len))
		return fail(err, errlen, -EINVAL, "NUL byte in modinfo");
	for (size_t pos = 0; pos < len;) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos, pl;

		pos += n + (nl ? 1 : 0);
		lineno++;
		if (n > 0 && line[n - 1] == '\r')
			n--; /* CRLF line ends accepted */
		if (n > ENAV_GO_BUILDINFO_MAX_LINE)
			return fail(err, errlen, -EINVAL, "modinfo line %zu longer than %u bytes",
				    lineno, ENAV_GO_BUILDINFO_MAX_LINE);
		if (starts(line, n, "path\t", &pl)) {
			char *p = dup_n(line + pl, n - pl);

			if (!p)
				return fail(err, errlen, -ENOMEM, "out of memory");
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
				return fail(err, errlen, -EINVAL, "more than %u dependencies",
					    ENAV_GO_BUILDINFO_MAX_DEPS);
			if (b->n_deps == deps_cap) {
				size_t nc = deps_cap ? deps_cap * 2 : 16;
				struct enav_go_module *nd;

				if (nc > ENAV_GO_BUILDINFO_MAX_DEPS)
					nc = ENAV_GO_BUILDINFO_MAX_DEPS;
				nd = realloc(b->deps, nc * sizeof(*nd));
				if (!nd)
					return fail(err, errlen, -ENOMEM, "out of memory");
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
				return fail(err, errlen, -EINVAL,
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
			return fail(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

static int parse_unwrapped(const char *text, size_t len, struct enav_go_buildinfo *out, char *err,
			   size_t errlen)
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
		return fail(err, errlen, -EINVAL, "no modinfo text");
	if (len >= 2 * SENTINEL_LEN && !memcmp(text, info_start, SENTINEL_LEN) &&
	    !memcmp(text + len - SENTINEL_LEN, info_end, SENTINEL_LEN)) {
		text += SENTINEL_LEN;
		len -= 2 * SENTINEL_LEN;
	}
	return parse_unwrapped(text ? text : "", len, out, err, errlen);
}

/* ---- ELF ------------------------------------------------------------------- */

struct seg {
	uint64_t offset, vaddr, filesz;
	uint32_t flags;
};

struct elf_file {
	int fd;
	uint64_t size;
	bool is64, msb;
	struct seg *loads; /* PT_LOAD with file bytes, in header order */
	size_t n_loads;
	uint64_t data_start; /* first writable, non-executable PT_LOAD */
	bool has_data_start;
};

static uint64_t get_un(const unsigned char *p, size_t n, bool msb)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[msb ? n - 1 - i : i] << (8 * i);
	return v;
}

/* Exactly n bytes at off, inside the file size; 0 or a negative errno. */
static int read_at(const struct elf_file *f, uint64_t off, void *buf, size_t n)
{
	if (off > f->size || n > f->size - off)
		return -EINVAL;
	for (size_t done = 0; done < n;) {
		ssize_t r = pread(f->fd, (char *)buf + done, n - done, (off_t)(off + done));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EINVAL; /* shrank under us */
		done += (size_t)r;
	}
	return 0;
}

static int read_fail(char *err, size_t errlen, int rc, const char *what)
{
	if (rc == -EINVAL)
		return fail(err, errlen, rc, "%s beyond the end of the file", what);
	return fail(err, errlen, rc, "reading %s: %s", what, strerror(-rc));
}

/* The ELF header and the program headers; the .go.buildinfo section's
 * file extent when there is one (*sec_size 0 when not). */
static int load_elf(struct elf_file *f, uint64_t *sec_off, uint64_t *sec_size, char *err,
		    size_t errlen)
{
	unsigned char h[sizeof(Elf64_Ehdr)];
	int rc;

	*sec_size = 0;
	*sec_off = 0;
	if (f->size < EI_NIDENT || read_at(f, 0, h, EI_NIDENT) != 0 ||
	    memcmp(h, ELFMAG, SELFMAG) != 0)
		return fail(err, errlen, -EINVAL, "not an ELF file");
	if (h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64)
		return fail(err, errlen, -EINVAL, "bad ELF class %u", h[EI_CLASS]);
	if (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB)
		return fail(err, errlen, -EINVAL, "bad ELF data encoding %u", h[EI_DATA]);
	f->is64 = h[EI_CLASS] == ELFCLASS64;
	f->msb = h[EI_DATA] == ELFDATA2MSB;
	size_t ehsize = f->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (read_at(f, 0, h, ehsize) != 0)
		return fail(err, errlen, -EINVAL, "truncated ELF header");
	bool msb = f->msb;
	uint64_t phoff, shoff;
	unsigned phentsize, phnum, shentsize, shnum, shstrndx;
	if (f->is64) {
		phoff = get_un(h + 0x20, 8, msb);
		shoff = get_un(h + 0x28, 8, msb);
		phentsize = (unsigned)get_un(h + 0x36, 2, msb);
		phnum = (unsigned)get_un(h + 0x38, 2, msb);
		shentsize = (unsigned)get_un(h + 0x3a, 2, msb);
		shnum = (unsigned)get_un(h + 0x3c, 2, msb);
		shstrndx = (unsigned)get_un(h + 0x3e, 2, msb);
	} else {
		phoff = get_un(h + 0x1c, 4, msb);
		shoff = get_un(h + 0x20, 4, msb);
		phentsize = (unsigned)get_un(h + 0x2a, 2, msb);
		phnum = (unsigned)get_un(h + 0x2c, 2, msb);
		shentsize = (unsigned)get_un(h + 0x2e, 2, msb);
		shnum = (unsigned)get_un(h + 0x30, 2, msb);
		shstrndx = (unsigned)get_un(h + 0x32, 2, msb);
	}
	size_t phsz = f->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	size_t shsz = f->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);

	/* Program headers. */
	if (phnum > MAX_PHNUM)
		return fail(err, errlen, -EINVAL, "%u program headers (cap %u)", phnum, MAX_PHNUM);
	if (phnum && phentsize != phsz)
		return fail(err, errlen, -EINVAL, "bad program header size %u", phentsize);
	if (phnum) {
		if (phoff > f->size || (uint64_t)phnum * phsz > f->size - phoff)
			return fail(err, errlen, -EINVAL,
				    "program headers beyond the end of the file");
		unsigned char *ph = malloc((size_t)phnum * phsz);
		f->loads = calloc(phnum, sizeof(*f->loads));
		if (!ph || !f->loads) {
			free(ph);
			return fail(err, errlen, -ENOMEM, "out of memory");
		}
		rc = read_at(f, phoff, ph, (size_t)phnum * phsz);
		if (rc) {
			free(ph);
			return read_fail(err, errlen, rc, "program headers");
		}
		for (unsigned i = 0; i < phnum; i++) {
			const unsigned char *p = ph + (size_t)i * phsz;
			uint32_t type = (uint32_t)get_un(p, 4, msb);
			struct seg s;

			if (type != PT_LOAD)
				continue;
			if (f->is64) {
				s.flags = (uint32_t)get_un(p + 4, 4, msb);
				s.offset = get_un(p + 8, 8, msb);
				s.vaddr = get_un(p + 16, 8, msb);
				s.filesz = get_un(p + 32, 8, msb);
			} else {
				s.offset = get_un(p + 4, 4, msb);
				s.vaddr = get_un(p + 8, 4, msb);
				s.filesz = get_un(p + 16, 4, msb);
				s.flags = (uint32_t)get_un(p + 24, 4, msb);
			}
			if (s.offset > f->size || s.filesz > f->size - s.offset) {
				free(ph);
				return fail(err, errlen, -EINVAL,
					    "PT_LOAD segment %u beyond the end of the file", i);
			}
			if (s.filesz > UINT64_MAX - s.vaddr) {
				free(ph);
				return fail(err, errlen, -EINVAL,
					    "PT_LOAD segment %u wraps the address space", i);
			}
			if (!f->has_data_start && (s.flags & (PF_X | PF_W)) == PF_W) {
				f->has_data_start = true;
				f->data_start = s.vaddr;
			}
			if (s.filesz > 0)
				f->loads[f->n_loads++] = s;
		}
		free(ph);
	}

	/* Section headers: only to find .go.buildinfo. */
	if (shoff == 0 || shnum == 0)
		return 0; /* none (or extended numbering): use the data segment */
	if (shnum > MAX_SHNUM)
		return fail(err, errlen, -EINVAL, "%u sections (cap %u)", shnum, MAX_SHNUM);
	if (shentsize != shsz)
		return fail(err, errlen, -EINVAL, "bad section header size %u", shentsize);
	if (shoff > f->size || (uint64_t)shnum * shsz > f->size - shoff)
		return fail(err, errlen, -EINVAL, "section headers beyond the end of the file");
	if (shstrndx == SHN_UNDEF || shstrndx >= shnum)
		return 0; /* no names (SHN_XINDEX included): use the data segment */
	unsigned char *sh = malloc((size_t)shnum * shsz);
	if (!sh)
		return fail(err, errlen, -ENOMEM, "out of memory");
	rc = read_at(f, shoff, sh, (size_t)shnum * shsz);
	if (rc) {
		free(sh);
		return read_fail(err, errlen, rc, "section headers");
	}
	const unsigned char *ss = sh + (size_t)shstrndx * shsz;
	uint64_t str_off = f->is64 ? get_un(ss + 0x18, 8, msb) : get_un(ss + 0x10, 4, msb);
	uint64_t str_size = f->is64 ? get_un(ss + 0x20, 8, msb) : get_un(ss + 0x14, 4, msb);
	if (str_off > f->size || str_size > f->size - str_off) {
		free(sh);
		return fail(err, errlen, -EINVAL, "section name table beyond the end of the file");
	}
	static const char want[] = ".go.buildinfo"; /* with its NUL */
	for (unsigned i = 1; i < shnum; i++) {
		const unsigned char *s = sh + (size_t)i * shsz;
		uint64_t name = get_un(s, 4, msb);
		char got[sizeof(want)];

		if (name > str_size || sizeof(want) > str_size - name)
			continue;
		rc = read_at(f, str_off + name, got, sizeof(want));
		if (rc) {
			free(sh);
			return read_fail(err, errlen, rc, "section names");
		}
		if (memcmp(got, want, sizeof(want)) != 0)
			continue;
		uint32_t type = (uint32_t)get_un(s + 4, 4, msb);
		uint64_t off = f->is64 ? get_un(s + 0x18, 8, msb) : get_un(s + 0x10, 4, msb);
		uint64_t size = f->is64 ? get_un(s + 0x20, 8, msb) : get_un(s + 0x14, 4, msb);
		free(sh);
		if (type == SHT_NOBITS || off > f->size || size > f->size - off)
			return fail(err, errlen, -EINVAL,
				    ".go.buildinfo section has no bytes in the file");
		if (size == 0)
			return fail(err, errlen, -EINVAL, ".go.buildinfo section is empty");
		*sec_off = off;
		*sec_size = size;
		return 0;
	}
	free(sh);
	return 0;
}

/* The first PT_LOAD whose file bytes hold [vaddr, vaddr + n). */
static const struct seg *find_seg(const struct elf_file *f, uint64_t vaddr, uint64_t n)
{
	for (size_t i = 0; i < f->n_loads; i++) {
		const struct seg *s = &f->loads[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz &&
		    n <= s->filesz - (vaddr - s->vaddr))
			return s;
	}
	return NULL;
}

static bool vaddr_to_off(const struct elf_file *f, uint64_t vaddr, uint64_t n, uint64_t *off)
{
	const struct seg *s = find_seg(f, vaddr, n);

	if (s)
		*off = s->offset + (vaddr - s->vaddr);
	return s != NULL;
}

/* Reads a length-prefixed or pointed-to string into a new NUL-terminated
 * buffer. */
static int read_string(const struct elf_file *f, uint64_t off, uint64_t len, char **out,
		       const char *what, char *err, size_t errlen)
{
	char *s = malloc((size_t)len + 1);
	int rc;

	if (!s)
		return fail(err, errlen, -ENOMEM, "out of memory");
	rc = read_at(f, off, s, (size_t)len);
	if (rc) {
		free(s);
		return read_fail(err, errlen, rc, what);
	}
	s[len] = '\0';
	*out = s;
	return 0;
}

/* Pointer layout: the string header at vaddr, its bytes. */
static int read_ptr_string(const struct elf_file *f, uint64_t vaddr, unsigned ptrsize, bool msb,
			   uint64_t cap, char **out, size_t *outlen, const char *what, char *err,
			   size_t errlen)
{
	unsigned char hdr[16];
	uint64_t off, data, len;
	int rc;

	if (!vaddr_to_off(f, vaddr, 2 * ptrsize, &off))
		return fail(err, errlen, -EINVAL,
			    "%s string header at 0x%llx is not in a PT_LOAD segment", what,
			    (unsigned long long)vaddr);
	rc = read_at(f, off, hdr, 2 * ptrsize);
	if (rc)
		return read_fail(err, errlen, rc, what);
	data = get_un(hdr, ptrsize, msb);
	len = get_un(hdr + ptrsize, ptrsize, msb);
	if (len > cap)
		return fail(err, errlen, -EINVAL, "%s of %llu bytes exceeds the %llu-byte cap",
			    what, (unsigned long long)len, (unsigned long long)cap);
	if (len == 0) {
		*out = strdup("");
		*outlen = 0;
		return *out ? 0 : fail(err, errlen, -ENOMEM, "out of memory");
	}
	if (!vaddr_to_off(f, data, len, &off))
		return fail(err, errlen, -EINVAL,
			    "%s bytes at 0x%llx (+%llu) are not in a PT_LOAD segment", what,
			    (unsigned long long)data, (unsigned long long)len);
	*outlen = (size_t)len;
	return read_string(f, off, len, out, what, err, errlen);
}

/* Inline layout: a uvarint length at region offset *pos, then the bytes. */
static int read_inline_string(const struct elf_file *f, uint64_t region_off, uint64_t region_len,
			      uint64_t *pos, uint64_t cap, char **out, size_t *outlen,
			      const char *what, char *err, size_t errlen)
{
	unsigned char v[10];
	size_t avail = region_len - *pos < sizeof(v) ? (size_t)(region_len - *pos) : sizeof(v);
	uint64_t len = 0;
	size_t i;
	int rc;

	rc = read_at(f, region_off + *pos, v, avail);
	if (rc)
		return read_fail(err, errlen, rc, what);
	for (i = 0; i < avail; i++) {
		if (i == 9 && v[i] > 1)
			return fail(err, errlen, -EINVAL, "%s length overflows", what);
		len |= (uint64_t)(v[i] & 0x7f) << (7 * i);
		if (!(v[i] & 0x80))
			break;
	}
	if (i == avail)
		return fail(err, errlen, -EINVAL, "%s length truncated", what);
	*pos += i + 1;
	if (len > cap)
		return fail(err, errlen, -EINVAL, "%s of %llu bytes exceeds the %llu-byte cap",
			    what, (unsigned long long)len, (unsigned long long)cap);
	if (len > region_len - *pos)
		return fail(err, errlen, -EINVAL, "%s of %llu bytes runs past its segment", what,
			    (unsigned long long)len);
	*outlen = (size_t)len;
	rc = read_string(f, region_off + *pos, len, out, what, err, errlen);
	if (!rc)
		*pos += len;
	return rc;
}

static int read_elf(struct elf_file *f, struct enav_go_buildinfo *out, char *err, size_t errlen)
{
	uint64_t region_off, region_len;
	int rc = load_elf(f, &region_off, &region_len, err, errlen);

	if (rc)
		return rc;
	if (region_len == 0) {
		/* No .go.buildinfo section: the first writable data segment. */
		const struct seg *s = f->has_data_start ? find_seg(f, f->data_start, 1) : NULL;

		if (!s)
			return fail(err, errlen, -ENOENT, NOT_GO_REASON);
		region_off = s->offset + (f->data_start - s->vaddr);
		region_len = s->filesz - (f->data_start - s->vaddr);
	}

	/* The magic at a 16-byte aligned offset of the first 64 KiB. */
	size_t wlen = region_len < WINDOW_BYTES ? (size_t)region_len : WINDOW_BYTES;
	unsigned char *w = malloc(wlen ? wlen : 1);
	if (!w)
		return fail(err, errlen, -ENOMEM, "out of memory");
	rc = read_at(f, region_off, w, wlen);
	if (rc) {
		free(w);
		return read_fail(err, errlen, rc, "build info window");
	}
	size_t at = 0;
	bool found = false;
	for (; wlen >= HEADER_BYTES && at <= wlen - HEADER_BYTES; at += 16)
		if (!memcmp(w + at, MAGIC, MAGIC_LEN)) {
			found = true;
			break;
		}
	if (!found) {
		free(w);
		return fail(err, errlen, -ENOENT, NOT_GO_REASON);
	}
	unsigned ptrsize = w[at + 14], flags = w[at + 15];
	unsigned char hdr[HEADER_BYTES];
	memcpy(hdr, w + at, HEADER_BYTES);
	free(w);
	if (ptrsize != 4 && ptrsize != 8)
		return fail(err, errlen, -EINVAL, "build info pointer size %u", ptrsize);

	char *vers = NULL, *mod = NULL;
	size_t vers_len = 0, mod_len = 0;
	uint64_t mod_cap = ENAV_GO_BUILDINFO_MAX_MODINFO + 2 * SENTINEL_LEN;
	if (flags & 2) {
		uint64_t pos = at + HEADER_BYTES;

		rc = read_inline_string(f, region_off, region_len, &pos,
					ENAV_GO_BUILDINFO_MAX_VERSION, &vers, &vers_len,
					"Go version", err, errlen);
		if (!rc)
			rc = read_inline_string(f, region_off, region_len, &pos, mod_cap, &mod,
						&mod_len, "modinfo", err, errlen);
	} else {
		bool msb = flags & 1;

		rc = read_ptr_string(f, get_un(hdr + 16, ptrsize, msb), ptrsize, msb,
				     ENAV_GO_BUILDINFO_MAX_VERSION, &vers, &vers_len, "Go version",
				     err, errlen);
		if (!rc)
			rc = read_ptr_string(f, get_un(hdr + 16 + ptrsize, ptrsize, msb), ptrsize,
					     msb, mod_cap, &mod, &mod_len, "modinfo", err, errlen);
	}
	if (rc)
		goto out;
	if (vers_len == 0) {
		rc = fail(err, errlen, -EINVAL, "empty Go version");
		goto out;
	}
	for (size_t i = 0; i < vers_len; i++)
		if ((unsigned char)vers[i] < 0x20 || vers[i] == 0x7f) {
			rc = fail(err, errlen, -EINVAL, "control character in the Go version");
			goto out;
		}
	/* Go's rule: framed only when long enough with '\n' before the end
	 * sentinel; anything else means no module information. */
	const char *text = "";
	size_t text_len = 0;
	if (mod_len >= 2 * SENTINEL_LEN + 1 && mod[mod_len - SENTINEL_LEN - 1] == '\n') {
		text = mod + SENTINEL_LEN;
		text_len = mod_len - 2 * SENTINEL_LEN;
	}
	rc = parse_unwrapped(text, text_len, out, err, errlen);
	if (!rc) {
		free(out->go_version);
		out->go_version = vers;
		vers = NULL;
	}
out:
	free(vers);
	free(mod);
	return rc;
}

int enav_go_buildinfo_read_fd(int fd, struct enav_go_buildinfo *out, char *err, size_t errlen)
{
	struct elf_file f = {.fd = fd};
	struct stat st;
	int rc;

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	if (fstat(fd, &st) != 0)
		return fail(err, errlen, -errno, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(err, errlen, -EINVAL, "not a regular file");
	f.size = (uint64_t)st.st_size;
	rc = read_elf(&f, out, err, errlen);
	free(f.loads);
	if (rc)
		enav_go_buildinfo_free(out);
	return rc;
}

int enav_go_buildinfo_read_file(const char *path, struct enav_go_buildinfo *out, char *err,
				size_t errlen)
{
	/* O_NONBLOCK: a FIFO must not hang the open; read_fd rejects it. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	int rc;

	memset(out, 0, sizeof(*out));
	if (fd < 0) {
		rc = -errno;
		return fail(err, errlen, rc, "%s", strerror(-rc));
	}
	rc = enav_go_buildinfo_read_fd(fd, out, err, errlen);
	close(fd);
	return rc;
}

int enav_go_buildinfo_read_exe(uint32_t pid, struct enav_go_buildinfo *out, char *err,
			       size_t errlen)
{
	enum enav_tenant_refusal why;
	struct stat st;
	int fd = enav_tenant_open_exe("/proc", pid, &st, &why);
	int rc;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return fail(err, errlen, -ENOENT, "executable refused (%s)",
			    enav_tenant_refusal_name(why));
	rc = enav_go_buildinfo_read_fd(fd, out, err, errlen);
	close(fd);
	return rc;
}

/* ---- output ---------------------------------------------------------------- */

static const char *nz(const char *s)
{
	return s ? s : "";
}

static void print_module(FILE *out, const char *word, const struct enav_go_module *m)
{
	fprintf(out, "\t%s\t%s\t%s", word, nz(m->path), nz(m->version));
	if (!m->replaced) {
		fprintf(out, "\t%s\n", nz(m->sum));
		return;
	}
	fprintf(out, "\n\t=>\t%s\t%s\t%s\n", nz(m->replace_path), nz(m->replace_version),
		nz(m->replace_sum));
}

void enav_go_buildinfo_print(FILE *out, const char *name, const struct enav_go_buildinfo *b)
{
	const struct enav_go_module *m = &b->main;

	fprintf(out, "%s: %s\n", name, nz(b->go_version));
	if (b->path && b->path[0])
		fprintf(out, "\tpath\t%s\n", b->path);
	/* Go prints the main module unless it is the zero Module. */
	if (b->has_main && (*nz(m->path) || *nz(m->version) || *nz(m->sum) || m->replaced))
		print_module(out, "mod", m);
	for (size_t i = 0; i < b->n_deps; i++)
		print_module(out, "dep", &b->deps[i]);
	for (size_t i = 0; i < b->n_settings; i++)
		fprintf(out, "\tbuild\t%s\n", nz(b->settings[i].raw));
}
