/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where the API server is and how to authenticate: in-cluster service
 * account, a kubeconfig file, or kubernetes.api_server.  Only the settings we
 * can honour are accepted; credential plugins are refused by name rather
 * than half-supported.
 */
#include "discovery/k8s_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yaml.h>

#define KUBECONFIG_MAX (1024 * 1024)
#define SA_TOKEN       "/var/run/secrets/kubernetes.io/serviceaccount/token"
#define SA_CA	       "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"

/* ---- small helpers -------------------------------------------------------- */

static int cpy(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

/* Whole small file into a NUL-terminated heap buffer; -1 with errno set. */
static char *read_small(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = malloc(max + 1);
	if (!buf) {
		fclose(f);
		return NULL;
	}
	n = fread(buf, 1, max + 1, f);
	if (ferror(f) || n > max) {
		errno = ferror(f) ? EIO : EFBIG;
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

int k8s_base64_decode(const char *in, size_t len, struct k8s_blob *out)
{
	static const char alpha[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint32_t acc = 0;
	int bits = 0;
	size_t pad = 0;

	out->data = malloc(len / 4 * 3 + 3);
	out->len = 0;
	if (!out->data)
		return -1;
	for (size_t i = 0; i < len; i++) {
		const char *p;

		if (in[i] == '\n' || in[i] == '\r' || in[i] == ' ')
			continue;
		if (in[i] == '=') {
			pad++;
			continue;
		}
		p = in[i] ? strchr(alpha, in[i]) : NULL;
		if (!p || pad)
			goto bad; /* bad byte, or data after padding */
		acc = acc << 6 | (uint32_t)(p - alpha);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out->data[out->len++] = (unsigned char)(acc >> bits);
		}
	}
	if (bits >= 6 || pad > 2)
		goto bad; /* a lone trailing sextet is not a byte */
	return 0;
bad:
	free(out->data);
	out->data = NULL;
	out->len = 0;
	return -1;
}

int k8s_auth_token(const struct k8s_auth *a, char *buf, size_t cap)
{
	size_t n;
	char *t;

	buf[0] = '\0';
	if (a->token)
		return cpy(buf, cap, a->token);
	if (!a->token_file[0])
		return 0;
	t = read_small(a->token_file, cap - 1, &n);
	if (!t)
		return -1;
	while (n && (t[n - 1] == '\n' || t[n - 1] == '\r' || t[n - 1] == ' '))
		t[--n] = '\0';
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)t[i] < 0x21 || (unsigned char)t[i] > 0x7e) {
			n = 0; /* would break or forge the Authorization header */
			break;
		}
	}
	if (n)
		memcpy(buf, t, n + 1);
	free(t);
	return n ? 0 : -1;
}

void k8s_auth_free(struct k8s_auth *a)
{
	free(a->ca.data);
	free(a->cert.data);
	free(a->key.data);
	free(a->token);
	memset(a, 0, sizeof(*a));
}

/* ---- kubeconfig ----------------------------------------------------------- */

static yaml_node_t *map_get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(d, p->key);

		if (k && k->type == YAML_SCALAR_NODE &&
		    strcmp((char *)k->data.scalar.value, key) == 0)
			return yaml_document_get_node(d, p->value);
	}
	return NULL;
}

static const char *scalar(yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return NULL;
	/* An embedded NUL would make C and YAML disagree on the value. */
	if (strlen((char *)n->data.scalar.value) != n->data.scalar.length)
		return NULL;
	return (const char *)n->data.scalar.value;
}

/* In a list of {name: ..., <field>: {...}}, the <field> of the named entry. */
static yaml_node_t *named(yaml_document_t *d, yaml_node_t *seq, const char *name, const char *field)
{
	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return NULL;
	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top;
	     i++) {
		yaml_node_t *item = yaml_document_get_node(d, *i);
		const char *n = scalar(map_get(d, item, "name"));

		if (n && strcmp(n, name) == 0)
			return map_get(d, item, field);
	}
	return NULL;
}

/* A name from the file as it may appear in a one-line error: bounded, with
 * control bytes replaced. */
static const char *shown(const char *s, char *buf, size_t cap)
{
	size_t i = 0;

	for (; s && s[i] && i + 1 < cap; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[i] = '\0';
	return buf;
}

/* No spaces or control bytes (a URL). */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* A file path from the kubeconfig, relative to its directory. */
static int kc_path(char *dst, const char *dir, const char *p)
{
	int n;

	if (p[0] == '/' || !dir || !dir[0])
		return cpy(dst, ENAV_CONFIG_PATH_MAX, p);
	n = snprintf(dst, ENAV_CONFIG_PATH_MAX, "%s/%s", dir, p);
	return n < 0 || n >= ENAV_CONFIG_PATH_MAX ? -1 : 0;
}

/* Either <name> (a path) or <name>-data (base64 PEM) from m. */
static int file_or_data(yaml_document_t *d, yaml_node_t *m, const char *name, const char *dir,
			char *path, struct k8s_blob *blob, char *err, size_t errlen)
{
	char key[64];
	const char *v;

	snprintf(key, sizeof(key), "%s-data", name);
	v = scalar(map_get(d, m, key));
	if (v) {
		if (k8s_base64_decode(v, strlen(v), blob) != 0 || blob->len == 0) {
			snprintf(err, errlen, "%s is not valid base64", key);
			return -1;
		}
		return 0;
	}
	v = scalar(map_get(d, m, name));
	if (v && kc_path(path, dir, v) != 0) {
		snprintf(err, errlen, "%s path is too long", name);
		return -1;
	}
	return 0;
}

static int kc_user(yaml_document_t *d, yaml_node_t *u, const char *uname, const char *dir,
		   struct k8s_auth *a, char *err, size_t errlen)
{
	static const char *const refused[] = {"exec", "auth-provider", "username", "password"};
	const char *v;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (map_get(d, u, refused[i])) {
			snprintf(err, errlen,
				 "user %s uses %s credentials, which are not supported (use token, "
				 "tokenFile or client-certificate/client-key)",
				 uname, refused[i]);
			return -1;
		}
	}
	if ((v = scalar(map_get(d, u, "token"))) != NULL) {
		if (strlen(v) >= K8S_TOKEN_MAX || !(a->token = strdup(v))) {
			snprintf(err, errlen, "user %s token is too long", uname);
			return -1;
		}
	} else if ((v = scalar(map_get(d, u, "tokenFile"))) != NULL) {
		if (kc_path(a->token_file, dir, v) != 0) {
			snprintf(err, errlen, "user %s tokenFile path is too long", uname);
			return -1;
		}
	}
	if (file_or_data(d, u, "client-certificate", dir, a->cert_file, &a->cert, err, errlen) ||
	    file_or_data(d, u, "client-key", dir, a->key_file, &a->key, err, errlen))
		return -1;
	if ((a->cert_file[0] || a->cert.data) != (a->key_file[0] || a->key.data)) {
		snprintf(err, errlen,
			 "user %s has a client certificate without a key or the reverse", uname);
		return -1;
	}
	return 0;
}

static int kc_walk(yaml_document_t *d, const char *dir, struct k8s_auth *a, char *err,
		   size_t errlen)
{
	yaml_node_t *root = yaml_document_get_root_node(d);
	const char *cur = scalar(map_get(d, root, "current-context")), *cname, *uname, *v;
	char show[72];
	yaml_node_t *ctx, *cl, *u;

	if (!cur || !cur[0]) {
		snprintf(err, errlen, "no current-context");
		return -1;
	}
	ctx = named(d, map_get(d, root, "contexts"), cur, "context");
	cname = scalar(map_get(d, ctx, "cluster"));
	uname = scalar(map_get(d, ctx, "user"));
	if (!ctx || !cname) {
		snprintf(err, errlen, "context %s not found or has no cluster",
			 shown(cur, show, sizeof(show)));
		return -1;
	}
	cl = named(d, map_get(d, root, "clusters"), cname, "cluster");
	v = scalar(map_get(d, cl, "server"));
	if (!v || (strncmp(v, "https://", 8) != 0 && strncmp(v, "http://", 7) != 0) ||
	    !printable(v) || cpy(a->server, sizeof(a->server), v) != 0) {
		snprintf(err, errlen, "cluster %s has no usable server URL",
			 shown(cname, show, sizeof(show)));
		return -1;
	}
	v = scalar(map_get(d, cl, "insecure-skip-tls-verify"));
	a->insecure = v && strcmp(v, "true") == 0;
	if (file_or_data(d, cl, "certificate-authority", dir, a->ca_file, &a->ca, err, errlen))
		return -1;
	if (!uname || !uname[0])
		return 0;
	u = named(d, map_get(d, root, "users"), uname, "user");
	if (!u) {
		snprintf(err, errlen, "user %s not found", shown(uname, show, sizeof(show)));
		return -1;
	}
	return kc_user(d, u, shown(uname, show, sizeof(show)), dir, a, err, errlen);
}

int k8s_kubeconfig_parse(const char *text, size_t len, const char *dir, struct k8s_auth *a,
			 char *err, size_t errlen)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	char why[400] = "";
	int rc = -1;

	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, errlen, "YAML error at line %lu: %s",
			 (unsigned long)parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "unknown");
		yaml_parser_delete(&parser);
		return -1;
	}
	if (!yaml_document_get_root_node(&doc))
		snprintf(why, sizeof(why), "empty document");
	else
		rc = kc_walk(&doc, dir, a, why, sizeof(why));
	if (rc != 0) {
		snprintf(err, errlen, "%s", why);
		k8s_auth_free(a);
	} else {
		snprintf(a->source, sizeof(a->source), "kubeconfig");
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

int k8s_kubeconfig_load(const char *path, struct k8s_auth *a, char *err, size_t errlen)
{
	char dir[ENAV_CONFIG_PATH_MAX], why[480];
	const char *slash = strrchr(path, '/');
	size_t len;
	char *text = read_small(path, KUBECONFIG_MAX, &len);
	int rc;

	if (!text) {
		snprintf(err, errlen, "kubernetes.kubeconfig: cannot read %s: %s", path,
			 strerror(errno));
		return -1;
	}
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 0, path);
	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	rc = k8s_kubeconfig_parse(text, len, dir, a, why, sizeof(why));
	if (rc != 0)
		snprintf(err, errlen, "kubernetes.kubeconfig: %s: %s", path, why);
	free(text);
	return rc;
}

/* ---- resolution ----------------------------------------------------------- */

static bool readable(const char *path)
{
	return path[0] && access(path, R_OK) == 0;
}

int k8s_auth_resolve(const struct enav_config *cfg, struct k8s_auth *a, char *err, size_t errlen)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	const char *tok = cfg->kubernetes.token_file[0] ? cfg->kubernetes.token_file : SA_TOKEN;
	const char *ca = cfg->kubernetes.ca_file[0] ? cfg->kubernetes.ca_file : SA_CA;
	const char *api = cfg->kubernetes.api_server;
	char buf[K8S_TOKEN_MAX];

	memset(a, 0, sizeof(*a));
	err[0] = '\0';
	if (cfg->kubernetes.enabled == ENAV_K8S_OFF)
		return 0;
	if (cfg->kubernetes.kubeconfig[0]) {
		if (k8s_kubeconfig_load(cfg->kubernetes.kubeconfig, a, err, errlen) != 0)
			return -1;
		if (api[0])
			snprintf(a->server, sizeof(a->server), "%s", api);
	} else if (api[0]) {
		snprintf(a->source, sizeof(a->source), "api_server");
		snprintf(a->server, sizeof(a->server), "%s", api);
		/* Service-account files are used when present; a token never
		 * travels over plain http. */
		if (strncmp(api, "https://", 8) == 0) {
			if (readable(tok))
				snprintf(a->token_file, sizeof(a->token_file), "%s", tok);
			if (readable(ca))
				snprintf(a->ca_file, sizeof(a->ca_file), "%s", ca);
		}
	} else if (host && host[0] && port && port[0]) {
		int n =
		    snprintf(a->server, sizeof(a->server),
			     strchr(host, ':') ? "https://[%s]:%s" : "https://%s:%s", host, port);

		if (n < 0 || (size_t)n >= sizeof(a->server)) {
			snprintf(err, errlen, "KUBERNETES_SERVICE_HOST/PORT are too long");
			return -1;
		}
		snprintf(a->source, sizeof(a->source), "in-cluster");
		snprintf(a->token_file, sizeof(a->token_file), "%s", tok);
		snprintf(a->ca_file, sizeof(a->ca_file), "%s", ca);
		if (!readable(ca)) {
			snprintf(err, errlen, "kubernetes.ca_file: cannot read %s", ca);
			return -1;
		}
	} else if (cfg->kubernetes.enabled == ENAV_K8S_ON) {
		snprintf(
		    err, errlen,
		    "kubernetes.enabled is true but there is no in-cluster environment "
		    "(KUBERNETES_SERVICE_HOST), kubernetes.kubeconfig or kubernetes.api_server");
		return -1;
	} else {
		return 0;
	}
	if (k8s_auth_token(a, buf, sizeof(buf)) != 0) {
		char show[ENAV_CONFIG_PATH_MAX];

		snprintf(err, errlen, "kubernetes.token_file: cannot read a token from %s",
			 shown(a->token_file, show, sizeof(show)));
		k8s_auth_free(a);
		return -1;
	}
	return 1;
}
