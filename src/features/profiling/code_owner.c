/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whose code a function name is (the classification half of
 * pprof_filter.h).
 *
 * Classification works on the name as the profile spells it.  Go escapes the
 * dots of a package path's last element ("gopkg.in/yaml%2ev3.F"); every
 * comparison decodes %XX first, and an escaped dot never ends a package path.
 * A module path M owns a name when the name starts with M followed by a raw
 * '.' or '/', or equals M: unescaped names are ambiguous about where the
 * package ends ("gopkg.in/yaml.v3.F" is package gopkg.in/yaml.v3 or
 * gopkg.in/yaml), and a prefix match on module paths settles it without
 * guessing.
 *
 * Every package path a name holds counts, not only the first: the function's
 * own package, the type of a generated symbol ("type..eq.github.com/x/y.T",
 * "type:.hash.T", "go:..." are compiler-generated, named after a type), a
 * package a promoted method came from.  A name is kept when each of them has
 * no domain or is owned; so "type..eq.[2]string" is kept and
 * "type..eq.github.com/x/y.T" follows github.com/x/y.  Names starting "go."
 * are not special: go.uber.org/zap is a module, and a generated "go.shape..."
 * without a '/' has no domain.
 *
 * What brackets hold is not classified: type arguments of a generic
 * instantiation ("github.com/acme/web.Map[github.com/x/y.T]") name other
 * packages freely, so bracketed text holding a '/' or '%' is written as
 * "[...]" in a kept name (pprof_filter.c), as Go's own tracebacks print
 * type arguments.
 */
#include "features/profiling/pprof_filter.h"
#include "platform/parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "golang/go_buildinfo.h"

/* The byte at s[*i] (of n) with a %XX escape decoded; advances *i. */
static char next_byte(const char *s, size_t n, size_t *i)
{
	if (s[*i] == '%' && *i + 2 < n) {
		int hi = enav_hex_digit(s[*i + 1]), lo = enav_hex_digit(s[*i + 2]);

		if (hi >= 0 && lo >= 0) {
			*i += 3;
			return (char)(hi << 4 | lo);
		}
	}
	return s[(*i)++];
}

/* Where the package path of name[0..n) ends (raw index): the first '.' after
 * the last '/'.  A package path holds no '[' or '(', so the first of those
 * ends the search (what brackets and a receiver hold is never the path). */
static size_t package_end(const char *s, size_t n)
{
	size_t from = 0, stop = n;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '[' || s[i] == '(') {
			stop = i;
			break;
		}
		if (s[i] == '/')
			from = i + 1;
	}
	for (size_t i = from; i < stop; i++)
		if (s[i] == '.')
			return i;
	return stop;
}

/* The package path's first element (up to its first '/') holds a dot, raw or
 * escaped: a domain, so the code was published by someone. */
static bool has_domain(const char *s, size_t end)
{
	for (size_t i = 0; i < end && s[i] != '/';)
		if (next_byte(s, end, &i) == '.')
			return true;
	return false;
}

/* Module path (or allow-list prefix) m owns name[0..n). */
static bool owned_by(const char *s, size_t n, const char *m)
{
	size_t i = 0, k = 0;

	if (!m || !m[0])
		return false;
	while (m[k]) {
		if (i >= n || next_byte(s, n, &i) != m[k])
			return false;
		k++;
	}
	/* A raw separator ends the module path (an escaped dot does not); a
	 * prefix that ends on a separator needs none after it. */
	return i == n || s[i] == '.' || s[i] == '/' || m[k - 1] == '/' || m[k - 1] == '.';
}

static bool owner_owns(const struct enav_code_owner *o, const char *s, size_t n)
{
	if (owned_by(s, n, o->main_module))
		return true;
	for (size_t i = 0; o->replaced && i < o->n_replaced; i++)
		if (owned_by(s, n, o->replaced[i]))
			return true;
	for (size_t i = 0; o->allow && i < o->n_allow; i++)
		if (owned_by(s, n, o->allow[i]))
			return true;
	return false;
}

/* Compiler-generated functions ("type..eq.T" up to Go 1.19, "type:.eq.T"
 * since, "go:..."): the type expression after the prefix, or NULL.  A
 * module path never starts "type.." or has a ':', so a domain such as
 * "type.io/x" is not mistaken for one. */
static const char *generated_rest(const char *f)
{
	const char *r;

	if (!strncmp(f, "type..", 6) || !strncmp(f, "type:", 5)) {
		r = f + 5;
		r += *r == '.';
		if (!strncmp(r, "eq.", 3))
			r += 3;
		else if (!strncmp(r, "hash.", 5))
			r += 5;
		return r;
	}
	if (!strncmp(f, "go:", 3))
		return f + 3;
	return NULL;
}

/* A byte that can be part of a package path or qualified name. */
static bool path_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '/' || c == '-' || c == '~' || c == '%' || c == '+' ||
	       c >= 0x80;
}

/* The next qualified name in *p outside brackets (what brackets hold is
 * written as "[...]" when it could name a package), leading dots dropped
 * (".Get" after a receiver).  false at the end. */
static bool next_token(const char **p, const char **tok, size_t *len)
{
	const char *s = *p;
	int depth = 0;

	for (;;) {
		while (*s && (depth || !path_char((unsigned char)*s))) {
			depth += (*s == '[') - (*s == ']' && depth > 0);
			s++;
		}
		if (!*s) {
			*p = s;
			return false;
		}
		const char *t = s;

		while (*s && path_char((unsigned char)*s))
			s++;
		*p = s;
		while (t < s && *t == '.')
			t++;
		if (t < s) {
			*tok = t;
			*len = (size_t)(s - t);
			return true;
		}
	}
}

size_t enav_function_package(const char *function, char *out, size_t cap)
{
	const char *s = function ? function : "", *rest = generated_rest(s), *t;
	size_t n = strlen(s), len = 0, tn;

	if (!out || !cap)
		return 0;
	if (rest) {
		/* The first qualified name the generated symbol embeds. */
		s = "";
		n = 0;
		while (next_token(&rest, &t, &tn)) {
			size_t end = package_end(t, tn);

			if (end < tn && t[end] == '.') {
				s = t;
				n = tn;
				break;
			}
		}
	}
	size_t end = package_end(s, n);

	for (size_t i = 0; i < end && len + 1 < cap;)
		out[len++] = next_byte(s, end, &i);
	out[len] = '\0';
	return len;
}

bool enav_code_owner_keeps(const struct enav_code_owner *o, const char *function)
{
	static const struct enav_code_owner none;
	const char *p, *t;
	size_t n;

	if (!o)
		o = &none;
	if (!function)
		return true;
	/* The function's own package first, then any other path the name
	 * embeds (a generated symbol's type, a method promoted from another
	 * package): each must have no domain or be owned. */
	p = generated_rest(function);
	if (!p)
		p = function;
	while (next_token(&p, &t, &n))
		if (has_domain(t, package_end(t, n)) && !owner_owns(o, t, n))
			return false;
	return true;
}

/* A replace target that is a directory, not a module path. */
static bool is_dir_path(const char *s)
{
	return s[0] == '.' || s[0] == '/' || s[0] == '\\' || (s[0] && s[1] == ':');
}

int enav_code_owner_from_buildinfo(struct enav_code_owner *o, const struct enav_go_buildinfo *bi,
				   const char *const *allow, size_t n_allow, const char ***storage)
{
	size_t n = 0;

	if (!o || !storage)
		return -EINVAL;
	*o = (struct enav_code_owner){.allow = allow, .n_allow = allow ? n_allow : 0};
	*storage = NULL;
	if (!bi)
		return 0;
	if (bi->has_main && bi->main.path && bi->main.path[0])
		o->main_module = bi->main.path;
	if (!bi->n_deps || !bi->deps)
		return 0;
	const char **r = calloc(2 * bi->n_deps, sizeof(*r));

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < bi->n_deps; i++) {
		const struct enav_go_module *m = &bi->deps[i];

		if (!m->replaced || !m->path || !m->path[0])
			continue;
		/* "X => X v1.2.3" pins a version of the same third-party module:
		 * nothing is built from the operator's source. */
		if (m->replace_path && !strcmp(m->replace_path, m->path))
			continue;
		r[n++] = m->path;
		/* A directory target never appears in a symbol name. */
		if (m->replace_path && m->replace_path[0] && !is_dir_path(m->replace_path))
			r[n++] = m->replace_path;
	}
	if (!n) {
		free(r);
		return 0;
	}
	o->replaced = r;
	o->n_replaced = n;
	*storage = r;
	return 0;
}
