/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Configuration: the syntax rules of values that name things outside the
 * agent (capture selectors, Kubernetes label keys and API server URLs, HTTP
 * headers, Go module prefixes, TLS library names, absolute paths, pprof
 * targets).  Each checks one string already known to be NUL-free and within
 * its length bounds, and reports one line.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config/config_priv.h"
#include "config/config_rules.h"

/* ---- per-key rules for strings and list entries ---------------------------- */

enum selector_kind { SEL_CGROUP, SEL_RUNTIME, SEL_NAMESPACE, SEL_POD, SEL_LABEL, SEL_SERVICE };

/* Index i names enum selector_kind value i. */
static const char *const selector_kinds[] = {"cgroup", "runtime", "namespace", "pod",
					     "label",  "service", NULL};
static const char *const runtime_names[] = {"containerd", "crio",    "docker",
					    "podman",	  "unknown", NULL};

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* 1..max bytes of [a-z0-9-], starting and ending alphanumeric. */
static bool dns_part(const char *s, size_t n, size_t max)
{
	if (n < 1 || n > max || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_lower_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

/* RFC 1123 label, as Kubernetes names namespaces and services. */
static bool dns_label(const char *s, size_t n)
{
	return dns_part(s, n, 63);
}

/* RFC 1123 subdomain as Kubernetes checks it: dotted parts, 253 bytes in all. */
static bool dns_subdomain(const char *s, size_t n)
{
	size_t start = 0;

	if (n < 1 || n > 253)
		return false;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (!dns_part(s + start, i - start, 253))
			return false;
		start = i + 1;
	}
	return true;
}

/* A label name (min 1) or value (min 0): [A-Za-z0-9][-A-Za-z0-9_.]* ending alnum. */
static bool label_name(const char *s, size_t n, size_t min)
{
	if (n == 0)
		return min == 0;
	if (n > 63 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* A label key: [DNS-subdomain "/"] name. */
static bool label_key(const char *s, size_t n)
{
	const char *slash = memchr(s, '/', n);
	size_t pl;

	if (!slash)
		return label_name(s, n, 1);
	pl = (size_t)(slash - s);
	return dns_subdomain(s, pl) && label_name(slash + 1, n - pl - 1, 1);
}

static bool has_wildcard(const char *s, size_t n)
{
	return memchr(s, '*', n) || memchr(s, '?', n);
}

/* 1..max bytes, each lowercase alphanumeric or one of extra. */
static bool glob_chars(const char *s, size_t n, size_t max, const char *extra)
{
	if (n < 1 || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_lower_alnum(s[i]) && (s[i] == '\0' || !strchr(extra, s[i])))
			return false;
	return true;
}

/* A namespace name, or a glob over the same characters. */
static bool namespace_glob(const char *s, size_t n)
{
	return has_wildcard(s, n) ? glob_chars(s, n, 63, "-*?") : dns_label(s, n);
}

/* A pod name (DNS subdomain), or a glob over the same characters. */
static bool pod_name_glob(const char *s, size_t n)
{
	return has_wildcard(s, n) ? glob_chars(s, n, 253, "-.*?") : dns_subdomain(s, n);
}

/* Split "a/b" at its only slash; false when there is none. */
static bool split_slash(const char *s, size_t n, size_t *left)
{
	const char *slash = memchr(s, '/', n);

	if (!slash)
		return false;
	*left = (size_t)(slash - s);
	return true;
}

/* An absolute cgroup2 path glob: starts with '/', no control bytes. */
static bool cgroup_glob(const char *s, size_t n)
{
	if (n < 1 || s[0] != '/')
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

int check_selector(struct errout *e, const char *where, const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n), *v;
	char shown[SHOW_BUF], names[128];
	size_t kl, vn, nl;
	unsigned k;

	show(shown, sizeof(shown), s, n);
	if (!colon)
		return fail(e, "%s: \"%s\" is not a selector (" SELECTOR_RULE ")", where, shown);
	kl = (size_t)(colon - s);
	for (k = 0; selector_kinds[k]; k++)
		if (bytes_eq(s, kl, selector_kinds[k]))
			break;
	if (!selector_kinds[k])
		return fail(e, "%s: \"%s\" is not a selector (" SELECTOR_RULE ")", where, shown);
	v = colon + 1;
	vn = n - kl - 1;
	if (vn == 0)
		return fail(e, "%s: \"%s\" is not a selector (the value after \"%s:\" is empty)",
			    where, shown, selector_kinds[k]);
	switch ((enum selector_kind)k) {
	case SEL_CGROUP:
		if (!cgroup_glob(v, vn))
			return fail(e,
				    "%s: \"%s\" is not a cgroup selector (expected cgroup:/path, "
				    "an absolute cgroup2 path glob with * and ?, no control "
				    "characters)",
				    where, shown);
		return 0;
	case SEL_RUNTIME:
		for (unsigned r = 0; runtime_names[r]; r++)
			if (bytes_eq(v, vn, runtime_names[r]))
				return 0;
		join_names(names, sizeof(names), runtime_names);
		return fail(e, "%s: \"%s\" is not a runtime selector (allowed runtimes: %s)", where,
			    shown, names);
	case SEL_NAMESPACE:
		if (!namespace_glob(v, vn))
			return fail(
			    e,
			    "%s: \"%s\" is not a namespace selector (expected " NAMESPACE_RULE
			    ", or a glob of those characters and * ?)",
			    where, shown);
		return 0;
	case SEL_POD:
		if (!split_slash(v, vn, &nl) || !dns_label(v, nl) ||
		    !pod_name_glob(v + nl + 1, vn - nl - 1))
			return fail(e,
				    "%s: \"%s\" is not a pod selector (expected pod:namespace/name "
				    "with a namespace name and a pod name or a glob of a-z 0-9 - . "
				    "* ?)",
				    where, shown);
		return 0;
	case SEL_LABEL: {
		const char *eq = memchr(v, '=', vn);

		if (!eq)
			return fail(e,
				    "%s: \"%s\" is not a label selector (expected label:key=value)",
				    where, shown);
		nl = (size_t)(eq - v);
		if (!label_key(v, nl))
			return fail(
			    e, "%s: \"%s\" has an invalid label key (expected " LABEL_KEY_RULE ")",
			    where, shown);
		if (!label_name(eq + 1, vn - nl - 1, 0))
			return fail(
			    e,
			    "%s: \"%s\" has an invalid label value (expected " LABEL_VALUE_RULE ")",
			    where, shown);
		return 0;
	}
	case SEL_SERVICE:
		if (!split_slash(v, vn, &nl) || !dns_label(v, nl) ||
		    !dns_label(v + nl + 1, vn - nl - 1))
			return fail(e,
				    "%s: \"%s\" is not a service selector (expected "
				    "service:namespace/name, both DNS labels)",
				    where, shown);
		return 0;
	}
	return fail(e, "%s: \"%s\" is not a selector (" SELECTOR_RULE ")", where, shown);
}

int check_label_key(struct errout *e, const char *where, const char *s, size_t n)
{
	char shown[SHOW_BUF];

	if (label_key(s, n))
		return 0;
	show(shown, sizeof(shown), s, n);
	return fail(e, "%s: \"%s\" is not a label key (expected " LABEL_KEY_RULE ")", where, shown);
}

/* "Name: value": a token name, printable value; the value is never shown. */
int check_header(struct errout *e, const char *where, const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	bool ok = colon && colon > s;
	for (const char *p = s; ok && p < colon; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		     (*p >= '0' && *p <= '9') || *p == '-' || *p == '_';
	for (const char *p = colon ? colon + 1 : s; ok && p < s + n; p++)
		ok = (unsigned char)*p >= 0x20 && *p != 0x7f;
	if (ok)
		return 0;
	return fail(e, "%s: expected \"Name: value\" (the value is not shown)", where);
}

/* A Go module path prefix: printable, no spaces, no leading or trailing '/'. */
int check_module_prefix(struct errout *e, const char *where, const char *s, size_t n)
{
	char shown[SHOW_BUF];
	bool ok = n > 0 && s[0] != '/' && s[n - 1] != '/';
	for (size_t i = 0; ok && i < n; i++)
		ok = s[i] > ' ' && s[i] < 0x7f;
	if (ok)
		return 0;
	show(shown, sizeof(shown), s, n);
	return fail(e, "%s: \"%s\" is not a module path prefix (e.g. github.com/acme)", where,
		    shown);
}

/* A TLS implementation the agent can probe (src/features/network/tls/). */
int check_tls_library(struct errout *e, const char *where, const char *s, size_t n)
{
	static const char *const names[] = {"openssl", "gnutls", "go"};
	char shown[SHOW_BUF];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0)
			return 0;
	show(shown, sizeof(shown), s, n);
	return fail(e, "%s: \"%s\" is not a TLS library (allowed: openssl, gnutls, go)", where,
		    shown);
}

/* An absolute path, or a glob(3) pattern of one: no "..", no control bytes. */
int check_abs_path(struct errout *e, const char *where, const char *s, size_t n)
{
	char shown[SHOW_BUF];
	if (n == 0)
		return 0; /* an optional path left empty */
	bool ok = n >= 2 && s[0] == '/' && !memmem(s, n, "/../", 4) &&
		  !(n >= 3 && memcmp(s + n - 3, "/..", 3) == 0);
	for (size_t i = 0; ok && i < n; i++)
		ok = (unsigned char)s[i] >= 0x20 && s[i] != 0x7f;
	if (ok)
		return 0;
	show(shown, sizeof(shown), s, n);
	return fail(e, "%s: \"%s\" is not an absolute path (a glob pattern may be used; no \"..\")",
		    where, shown);
}

/* http://IPv4:port (a pprof server on this node): no path, no credentials. */
int check_pull_target(struct errout *e, const char *where, const char *s, size_t n)
{
	char shown[SHOW_BUF], host[64];
	unsigned port = 0;
	int used = 0;
	bool ok = n > 7 && n < 64 && memcmp(s, "http://", 7) == 0;
	if (ok) {
		char buf[64];
		memcpy(buf, s + 7, n - 7);
		buf[n - 7] = '\0';
		struct in_addr a;
		ok = sscanf(buf, "%63[0-9.]:%5u%n", host, &port, &used) == 2 &&
		     (size_t)used == n - 7 && port > 0 && port < 65536 &&
		     inet_pton(AF_INET, host, &a) == 1;
	}
	if (ok)
		return 0;
	show(shown, sizeof(shown), s, n);
	return fail(e, "%s: \"%s\" is not http://IPv4:port", where, shown);
}

/* "" (in-cluster) or http(s)://host...: no spaces or control bytes. */
int check_api_server(struct errout *e, const char *where, const char *s, size_t n)
{
	static const char *const schemes[] = {"http://", "https://"};
	char shown[SHOW_BUF];

	if (n == 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(schemes); i++) {
		size_t sl = strlen(schemes[i]);
		bool ok = n > sl && memcmp(s, schemes[i], sl) == 0 && s[sl] != '/';

		for (size_t j = 0; ok && j < n; j++)
			if ((unsigned char)s[j] <= 0x20 || s[j] == 0x7f)
				ok = false;
		if (ok)
			return 0;
	}
	show(shown, sizeof(shown), s, n);
	return fail(e,
		    "%s: \"%s\" is not an API server URL (expected http:// or https:// and a "
		    "host, e.g. https://10.0.0.1:6443, or \"\" for in-cluster)",
		    where, shown);
}
