/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pure parsers of cgroup resource files (declared in cgroups_priv.h):
 * text in, numbers out, for cgroups.c, which reads the files, and for the
 * unit tests and the fuzzer, which feed them anything.
 */
#include "features/node/cgroups_priv.h"

#include <string.h>

#include "platform/parse.h"

/* Strict decimal: the shared parser. */
static bool parse_dec(const char *s, size_t n, uint64_t *out)
{
	return enav_parse_u64_dec(s, n, out);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next line of [*cur, end), without its newline. */
static bool next_line(const char **cur, const char *end, const char **lp, size_t *ln)
{
	if (*cur >= end)
		return false;
	const char *nl = memchr(*cur, '\n', (size_t)(end - *cur));
	const char *e = nl ? nl : end;

	*lp = *cur;
	*ln = (size_t)(e - *cur);
	*cur = nl ? nl + 1 : end;
	return true;
}

/* The next blank-separated field of [*cur, end). */
static bool next_field(const char **cur, const char *end, const char **fp, size_t *fn)
{
	const char *c = *cur;

	while (c < end && is_blank(*c))
		c++;
	if (c == end) {
		*cur = c;
		return false;
	}
	const char *s = c;
	while (c < end && !is_blank(*c))
		c++;
	*fp = s;
	*fn = (size_t)(c - s);
	*cur = c;
	return true;
}

static bool field_is(const char *f, size_t n, const char *lit)
{
	size_t l = strlen(lit);

	return n == l && memcmp(f, lit, l) == 0;
}

/* Trim one trailing newline, then blanks on both sides. */
static void trim(const char **s, size_t *n)
{
	const char *p = *s;
	size_t l = *n;

	if (l && p[l - 1] == '\n')
		l--;
	while (l && is_blank(p[l - 1]))
		l--;
	while (l && is_blank(*p)) {
		p++;
		l--;
	}
	*s = p;
	*n = l;
}

int enav_cg_parse_u64(const char *text, size_t len, uint64_t *out)
{
	trim(&text, &len);
	return parse_dec(text, len, out) ? 0 : -1;
}

int enav_cg_parse_limit(const char *text, size_t len, uint64_t *out, bool *unlimited)
{
	trim(&text, &len);
	if (field_is(text, len, "max")) {
		*out = UINT64_MAX;
		*unlimited = true;
		return 0;
	}
	if (!parse_dec(text, len, out))
		return -1;
	*unlimited = false;
	return 0;
}

uint32_t enav_cg_parse_keyed(const char *text, size_t len, const char *const *keys, size_t n_keys,
			     uint64_t *vals)
{
	const char *cur = text, *end = text + len, *lp;
	size_t ln;
	uint32_t found = 0;

	if (n_keys > ENAV_CG_MAX_KEYS)
		n_keys = ENAV_CG_MAX_KEYS;
	while (next_line(&cur, end, &lp, &ln)) {
		const char *lc = lp, *le = lp + ln, *k, *v, *x;
		size_t kn, vn, xn;
		uint64_t num;

		if (!next_field(&lc, le, &k, &kn) || !next_field(&lc, le, &v, &vn) ||
		    next_field(&lc, le, &x, &xn))
			continue;
		for (size_t i = 0; i < n_keys; i++) {
			if (found & (1u << i) || !field_is(k, kn, keys[i]))
				continue;
			if (parse_dec(v, vn, &num)) {
				vals[i] = num;
				found |= 1u << i;
			}
			break;
		}
	}
	return found;
}

/* "MAJ:MIN" */
static bool is_devno(const char *f, size_t n)
{
	const char *colon = memchr(f, ':', n);
	uint64_t x;

	if (!colon)
		return false;
	size_t a = (size_t)(colon - f);
	return parse_dec(f, a, &x) && parse_dec(colon + 1, n - a - 1, &x);
}

unsigned enav_cg_parse_io_stat(const char *text, size_t len, struct enav_cg_io *out)
{
	static const char *const keys[] = {"rbytes", "wbytes", "rios", "wios"};
	const char *cur = text, *end = text + len, *lp;
	size_t ln;
	unsigned devices = 0;

	memset(out, 0, sizeof(*out));
	while (next_line(&cur, end, &lp, &ln)) {
		const char *lc = lp, *le = lp + ln, *f;
		size_t fn;

		if (!next_field(&lc, le, &f, &fn) || !is_devno(f, fn))
			continue;
		devices++;
		while (next_field(&lc, le, &f, &fn)) {
			const char *eq = memchr(f, '=', fn);
			uint64_t v;

			if (!eq)
				continue;
			size_t kn = (size_t)(eq - f);
			if (!parse_dec(eq + 1, fn - kn - 1, &v))
				continue;
			for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
				if (!field_is(f, kn, keys[i]))
					continue;
				uint64_t *dst = i == 0	 ? &out->rbytes
						: i == 1 ? &out->wbytes
						: i == 2 ? &out->rios
							 : &out->wios;
				*dst = enav_cg_sat_add(*dst, v);
				break;
			}
		}
	}
	return devices;
}

unsigned enav_cg_parse_blkio(const char *text, size_t len, uint64_t *read, uint64_t *write)
{
	const char *cur = text, *end = text + len, *lp;
	size_t ln;
	unsigned n = 0;

	*read = *write = 0;
	while (next_line(&cur, end, &lp, &ln)) {
		const char *lc = lp, *le = lp + ln, *dev, *op, *num, *x;
		size_t dn, on, nn, xn;
		uint64_t v;

		if (!next_field(&lc, le, &dev, &dn) || !next_field(&lc, le, &op, &on) ||
		    !next_field(&lc, le, &num, &nn) || next_field(&lc, le, &x, &xn) ||
		    !is_devno(dev, dn) || !parse_dec(num, nn, &v))
			continue;
		if (field_is(op, on, "Read")) {
			*read = enav_cg_sat_add(*read, v);
			n++;
		} else if (field_is(op, on, "Write")) {
			*write = enav_cg_sat_add(*write, v);
			n++;
		}
	}
	return n;
}

unsigned enav_cg_parse_pressure(const char *text, size_t len, uint64_t *some, uint64_t *full)
{
	const char *cur = text, *end = text + len, *lp;
	size_t ln;
	unsigned found = 0;

	while (next_line(&cur, end, &lp, &ln)) {
		const char *lc = lp, *le = lp + ln, *f;
		size_t fn;
		unsigned bit;
		uint64_t *dst;

		if (!next_field(&lc, le, &f, &fn))
			continue;
		if (field_is(f, fn, "some")) {
			bit = ENAV_CG_PSI_SOME;
			dst = some;
		} else if (field_is(f, fn, "full")) {
			bit = ENAV_CG_PSI_FULL;
			dst = full;
		} else {
			continue;
		}
		if (found & bit)
			continue;
		while (next_field(&lc, le, &f, &fn)) {
			uint64_t v;

			if (fn > 6 && memcmp(f, "total=", 6) == 0 && parse_dec(f + 6, fn - 6, &v)) {
				*dst = v;
				found |= bit;
				break;
			}
		}
	}
	return found;
}

bool enav_cg_has_controller(const char *list, const char *ctrl)
{
	size_t cl = strlen(ctrl);

	if (!cl)
		return false;
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (n == cl && memcmp(p, ctrl, n) == 0)
			return true;
		if (!comma)
			break;
		p = comma + 1;
	}
	return false;
}
