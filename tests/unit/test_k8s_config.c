/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the Kubernetes controller's connection settings: kubeconfig
 * parsing, auth-mode resolution, token reading, base64 and request URLs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "discovery/k8s_http.h"

static char tmpdir[64];

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/enav-k8s-cfg.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *name, const char *text, char *path, size_t cap)
{
	FILE *f;

	snprintf(path, cap, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int parse(const char *yaml, struct k8s_auth *a, char *err)
{
	memset(a, 0, sizeof(*a));
	return k8s_kubeconfig_parse(yaml, strlen(yaml), "/etc/kube", a, err, 256);
}

#define KC_HEAD                                                                                    \
	"apiVersion: v1\nkind: Config\ncurrent-context: dev\n"                                     \
	"contexts:\n- name: other\n  context: {cluster: c2, user: u2}\n"                           \
	"- name: dev\n  context:\n    cluster: c1\n    user: u1\n    namespace: shop\n"            \
	"clusters:\n- name: c1\n  cluster:\n    server: https://10.0.0.1:6443\n"                   \
	"    certificate-authority-data: LS0tLS1CRUdJTg==\n"

static void test_kubeconfig_token(void **state)
{
	struct k8s_auth a;
	char err[256] = "", tok[128];

	assert_int_equal(
	    parse(KC_HEAD "users:\n- name: u1\n  user:\n    token: abc.def\n", &a, err), 0);
	assert_string_equal(a.source, "kubeconfig");
	assert_string_equal(a.server, "https://10.0.0.1:6443");
	assert_int_equal(a.ca.len, 10);
	assert_memory_equal(a.ca.data, "-----BEGIN", 10);
	assert_false(a.insecure);
	assert_int_equal(k8s_auth_token(&a, tok, sizeof(tok)), 0);
	assert_string_equal(tok, "abc.def");
	k8s_auth_free(&a);
}

static void test_kubeconfig_files(void **state)
{
	struct k8s_auth a;
	char err[256] = "";

	assert_int_equal(
	    parse("current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
		  "clusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:8080\n"
		  "    certificate-authority: ca.pem\n    insecure-skip-tls-verify: true\n"
		  "users:\n- name: u\n  user:\n    tokenFile: /run/tok\n"
		  "    client-certificate: certs/me.crt\n    client-key-data: a2V5\n",
		  &a, err),
	    0);
	assert_string_equal(a.ca_file, "/etc/kube/ca.pem"); /* relative to the kubeconfig */
	assert_true(a.insecure);
	assert_string_equal(a.token_file, "/run/tok");
	assert_string_equal(a.cert_file, "/etc/kube/certs/me.crt");
	assert_int_equal(a.key.len, 3);
	k8s_auth_free(&a);
	/* No user at all is allowed (e.g. kubectl proxy). */
	assert_int_equal(parse("current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\n"
			       "clusters:\n- name: c\n  cluster: {server: 'http://h:1'}\n",
			       &a, err),
			 0);
	k8s_auth_free(&a);
}

static void test_kubeconfig_refused(void **state)
{
	static const struct {
		const char *user, *want;
	} cases[] = {
	    {"    exec:\n      command: aws\n",
	     "user u1 uses exec credentials, which are not supported"},
	    {"    auth-provider:\n      name: gcp\n", "user u1 uses auth-provider credentials"},
	    {"    username: admin\n    password: x\n", "user u1 uses username credentials"},
	    {"    client-certificate: a.crt\n", "client certificate without a key"},
	    {"    client-key-data: '!!!'\n", "client-key-data is not valid base64"},
	};
	struct k8s_auth a;
	char err[256], yaml[1024];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(yaml, sizeof(yaml), KC_HEAD "users:\n- name: u1\n  user:\n%s",
			 cases[i].user);
		err[0] = '\0';
		assert_int_equal(parse(yaml, &a, err), -1);
		if (!strstr(err, cases[i].want))
			fail_msg("case %zu: got [%s]", i, err);
		assert_null(strchr(err, '\n'));
		assert_null(a.ca.data); /* freed on error */
	}
}

static void test_kubeconfig_broken(void **state)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
	    {"", "empty document"},
	    {"kind: Config\n", "no current-context"},
	    {"current-context: nope\n", "context nope not found"},
	    {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\n",
	     "no usable server"},
	    {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\nclusters:\n- "
	     "name: "
	     "c\n  cluster: {server: 'ftp://x'}\n",
	     "cluster c has no usable server URL"},
	    {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: "
	     "u}\nclusters:\n"
	     "- name: c\n  cluster: {server: 'https://x'}\n",
	     "user u not found"},
	    {"a: [", "YAML error at line"},
	    /* Names in errors stay on one line. */
	    {"current-context: \"a\\nb\"\n", "context a?b not found"},
	};
	struct k8s_auth a;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse(cases[i].yaml, &a, err), -1);
		if (!strstr(err, cases[i].want))
			fail_msg("case %zu: got [%s]", i, err);
	}
}

static void test_kubeconfig_load(void **state)
{
	struct k8s_auth a;
	char err[512], path[256];

	write_file("kc", KC_HEAD "users:\n- name: u1\n  user: {tokenFile: tok}\n", path,
		   sizeof(path));
	memset(&a, 0, sizeof(a));
	assert_int_equal(k8s_kubeconfig_load(path, &a, err, sizeof(err)), 0);
	assert_string_equal(a.token_file, strcat(strcpy(err, tmpdir), "/tok"));
	k8s_auth_free(&a);
	assert_int_equal(k8s_kubeconfig_load("/nonexistent/kc", &a, err, sizeof(err)), -1);
	assert_string_equal(err, "kubernetes.kubeconfig: cannot read /nonexistent/kc: No such file "
				 "or directory");
}

static void test_token_rotation(void **state)
{
	struct k8s_auth a = {0};
	char tok[64], path[256];

	write_file("token", "first-token\n", path, sizeof(path));
	snprintf(a.token_file, sizeof(a.token_file), "%s", path);
	assert_int_equal(k8s_auth_token(&a, tok, sizeof(tok)), 0);
	assert_string_equal(tok, "first-token");
	write_file("token", "second-token", path, sizeof(path));
	assert_int_equal(k8s_auth_token(&a, tok, sizeof(tok)), 0);
	assert_string_equal(tok, "second-token");
	/* Header injection, empty, or too long: refused. */
	write_file("token", "a\r\nX-Evil: 1", path, sizeof(path));
	assert_int_equal(k8s_auth_token(&a, tok, sizeof(tok)), -1);
	write_file("token", "\n", path, sizeof(path));
	assert_int_equal(k8s_auth_token(&a, tok, sizeof(tok)), -1);
	write_file("token",
		   "0123456789012345678901234567890123456789012345678901234567890123456789", path,
		   sizeof(path));
	assert_int_equal(k8s_auth_token(&a, tok, sizeof(tok)), -1);
	unlink(path);
	assert_int_equal(k8s_auth_token(&a, tok, sizeof(tok)), -1);
}

static void test_base64(void **state)
{
	static const struct {
		const char *in, *out;
		int rc;
	} cases[] = {
	    {"", "", 0},	 {"Zg==", "f", 0},	{"Zm8=", "fo", 0},
	    {"Zm9v", "foo", 0},	 {"Zm9vYg", "foob", 0}, {"Zm9v\nYmFy", "foobar", 0},
	    {"Z", NULL, -1},	 {"Zm9v!", NULL, -1},	{"Zg==Zg==", NULL, -1},
	    {"Zg===", NULL, -1},
	};
	struct k8s_blob b;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = k8s_base64_decode(cases[i].in, strlen(cases[i].in), &b);

		assert_int_equal(rc, cases[i].rc);
		if (rc == 0) {
			assert_int_equal(b.len, strlen(cases[i].out));
			assert_memory_equal(b.data, cases[i].out, b.len);
			free(b.data);
		} else {
			assert_null(b.data);
		}
	}
}

static void cfg_init(struct enav_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->kubernetes.enabled = ENAV_K8S_AUTO;
	snprintf(cfg->kubernetes.token_file, sizeof(cfg->kubernetes.token_file), "%s/none-token",
		 tmpdir);
	snprintf(cfg->kubernetes.ca_file, sizeof(cfg->kubernetes.ca_file), "%s/none-ca", tmpdir);
}

static void test_auth_resolve(void **state)
{
	struct enav_config cfg;
	struct k8s_auth a;
	char err[512], path[256];

	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	cfg_init(&cfg);
	/* auto with nothing configured: quietly off. */
	assert_int_equal(k8s_auth_resolve(&cfg, &a, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	cfg.kubernetes.enabled = ENAV_K8S_ON;
	assert_int_equal(k8s_auth_resolve(&cfg, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no in-cluster environment"));
	/* api_server over http: no token, no TLS files even if present. */
	snprintf(cfg.kubernetes.api_server, sizeof(cfg.kubernetes.api_server),
		 "http://127.0.0.1:1");
	assert_int_equal(k8s_auth_resolve(&cfg, &a, err, sizeof(err)), 1);
	assert_string_equal(a.source, "api_server");
	assert_string_equal(a.token_file, "");
	k8s_auth_free(&a);
	/* In-cluster: token and CA must be readable at start. */
	cfg.kubernetes.api_server[0] = '\0';
	setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	assert_int_equal(k8s_auth_resolve(&cfg, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "kubernetes.ca_file: cannot read"));
	write_file("ca", "x", cfg.kubernetes.ca_file, sizeof(cfg.kubernetes.ca_file));
	assert_int_equal(k8s_auth_resolve(&cfg, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "kubernetes.token_file: cannot read a token"));
	write_file("tok", "t0k", cfg.kubernetes.token_file, sizeof(cfg.kubernetes.token_file));
	assert_int_equal(k8s_auth_resolve(&cfg, &a, err, sizeof(err)), 1);
	assert_string_equal(a.source, "in-cluster");
	assert_string_equal(a.server, "https://[fd00::1]:443");
	k8s_auth_free(&a);
	/* Disabled wins over everything. */
	cfg.kubernetes.enabled = ENAV_K8S_OFF;
	assert_int_equal(k8s_auth_resolve(&cfg, &a, err, sizeof(err)), 0);
	/* A kubeconfig that cannot be used is an error, api_server overrides its server. */
	cfg.kubernetes.enabled = ENAV_K8S_AUTO;
	unsetenv("KUBERNETES_SERVICE_HOST");
	write_file("kc2", KC_HEAD "users:\n- name: u1\n  user: {exec: {command: x}}\n", path,
		   sizeof(path));
	snprintf(cfg.kubernetes.kubeconfig, sizeof(cfg.kubernetes.kubeconfig), "%s", path);
	assert_int_equal(k8s_auth_resolve(&cfg, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "exec credentials, which are not supported"));
	write_file("kc2", KC_HEAD "users:\n- name: u1\n  user: {token: t}\n", path, sizeof(path));
	snprintf(cfg.kubernetes.api_server, sizeof(cfg.kubernetes.api_server), "http://h:2");
	assert_int_equal(k8s_auth_resolve(&cfg, &a, err, sizeof(err)), 1);
	assert_string_equal(a.server, "http://h:2");
	assert_string_equal(a.token, "t");
	k8s_auth_free(&a);
}

static void test_urls(void **state)
{
	char *u;

	u = k8s_url("https://h:6443", K8S_POD, "node-a.example", false, "", 100, "", 300);
	assert_string_equal(u, "https://h:6443/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a."
			       "example&limit=100");
	free(u);
	u = k8s_url("https://h", K8S_SERVICE, "n", false, "", 5, "eyJ2Ijo+/=", 300);
	assert_string_equal(u, "https://h/api/v1/services?limit=5&continue=eyJ2Ijo%2B%2F%3D");
	free(u);
	u = k8s_url("http://h", K8S_SLICE, "n", true, "123", 5, "", 290);
	assert_string_equal(u, "http://h/apis/discovery.k8s.io/v1/endpointslices?watch=1&"
			       "allowWatchBookmarks=true&resourceVersion=123&timeoutSeconds=290");
	free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kubeconfig_token),
	    cmocka_unit_test(test_kubeconfig_files),
	    cmocka_unit_test(test_kubeconfig_refused),
	    cmocka_unit_test(test_kubeconfig_broken),
	    cmocka_unit_test(test_kubeconfig_load),
	    cmocka_unit_test(test_token_rotation),
	    cmocka_unit_test(test_base64),
	    cmocka_unit_test(test_auth_resolve),
	    cmocka_unit_test(test_urls),
	};

	return cmocka_run_group_tests_name("k8s_config", tests, setup, teardown);
}
