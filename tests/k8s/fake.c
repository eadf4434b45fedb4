/* SPDX-License-Identifier: Apache-2.0 */
/* Test-side helpers for driving tests/k8s/fake_apiserver.py. */
#include "fake.h"

#include <curl/curl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int fake_start(struct fake *f)
{
	const char *script = getenv("ENAV_FAKE_APISERVER");
	char line[32] = "";
	size_t n = 0;
	int fds[2];
	pid_t pid;

	if (!script)
		script = "tests/k8s/fake_apiserver.py";
	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execlp("python3", "python3", script, "--port", "0", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	/* The server prints its port once bound. */
	while (n < sizeof(line) - 1) {
		struct pollfd p = {.fd = fds[0], .events = POLLIN};

		if (poll(&p, 1, 10000) <= 0 || read(fds[0], line + n, 1) != 1)
			break;
		if (line[n++] == '\n')
			break;
	}
	close(fds[0]);
	f->pid = pid;
	f->port = atoi(line);
	snprintf(f->url, sizeof(f->url), "http://127.0.0.1:%d", f->port);
	if (f->port <= 0) {
		fake_stop(f);
		return -1;
	}
	return 0;
}

void fake_stop(struct fake *f)
{
	if (f->pid > 0) {
		kill(f->pid, SIGTERM);
		waitpid(f->pid, NULL, 0);
	}
	f->pid = 0;
}

struct buf {
	char data[1 << 20];
	size_t len;
};

static size_t sink(char *p, size_t size, size_t nmemb, void *ud)
{
	struct buf *b = ud;
	size_t n = size * nmemb;

	if (n > sizeof(b->data) - 1 - b->len)
		return 0;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

static json_t *request(const struct fake *f, const char *path, const char *post)
{
	struct buf *b = calloc(1, sizeof(*b));
	char url[256];
	CURL *e = curl_easy_init();
	json_t *j = NULL;
	json_error_t err;

	snprintf(url, sizeof(url), "%s%s", f->url, path);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 5000L);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	if (post)
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, post);
	if (curl_easy_perform(e) == CURLE_OK)
		j = json_loadb(b->data, b->len, 0, &err);
	curl_easy_cleanup(e);
	free(b);
	return j;
}

json_t *fake_ctl(const struct fake *f, const char *fmt, ...)
{
	char body[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	return request(f, "/_control", body);
}

long fake_obj(const struct fake *f, const char *cmd, const char *kind, json_t *obj)
{
	json_t *c = json_pack("{s:s,s:s,s:o}", "cmd", cmd, "kind", kind, "object", obj);
	char *s = json_dumps(c, JSON_COMPACT);
	json_t *r = request(f, "/_control", s);
	long rv = -1;

	if (r && json_is_string(json_object_get(r, "rv")))
		rv = atol(json_string_value(json_object_get(r, "rv")));
	json_decref(r);
	json_decref(c);
	free(s);
	return rv;
}

json_t *fake_get(const struct fake *f, const char *path)
{
	return request(f, path, NULL);
}

bool fake_wait_watchers(const struct fake *f, const char *kind, int n, int timeout_ms)
{
	uint64_t end = mono_ms() + (uint64_t)timeout_ms;

	do {
		json_t *w = fake_get(f, "/_control/watchers");
		int have = (int)json_integer_value(json_object_get(w, kind));

		json_decref(w);
		if (have >= n)
			return true;
		usleep(5000);
	} while (mono_ms() < end);
	return false;
}

static bool match(json_t *r, const char *kind, const char *verb)
{
	return strcmp(json_string_value(json_object_get(r, "kind")), kind) == 0 &&
	       strcmp(json_string_value(json_object_get(r, "verb")), verb) == 0;
}

int fake_count(const struct fake *f, const char *kind, const char *verb, double since)
{
	json_t *all = fake_get(f, "/_control/requests"), *r;
	size_t i;
	int n = 0;

	json_array_foreach(all, i, r)
	{
		if (match(r, kind, verb) && json_real_value(json_object_get(r, "t")) >= since)
			n++;
	}
	json_decref(all);
	return n;
}

bool fake_wait_requests(const struct fake *f, const char *kind, const char *verb, double since,
			int n, int timeout_ms)
{
	uint64_t end = mono_ms() + (uint64_t)timeout_ms;

	do {
		if (fake_count(f, kind, verb, since) >= n)
			return true;
		usleep(5000);
	} while (mono_ms() < end);
	return false;
}

bool fake_last_param(const struct fake *f, const char *kind, const char *verb, const char *param,
		     char *out, size_t cap)
{
	json_t *all = fake_get(f, "/_control/requests"), *r, *last = NULL;
	size_t i;
	const char *v;

	json_array_foreach(all, i, r)
	{
		if (match(r, kind, verb))
			last = r;
	}
	v = last ? json_string_value(json_object_get(json_object_get(last, "query"), param)) : NULL;
	snprintf(out, cap, "%s", v ? v : "");
	json_decref(all);
	return last != NULL;
}

json_t *mk_pod(const char *ns, const char *name, const char *uid, const char *node, json_t *labels)
{
	return json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s,s:o},s:{s:s,s:[{s:s,s:s}]},s:{s:s,s:s}}",
			 "apiVersion", "v1", "kind", "Pod", "metadata", "name", name, "namespace",
			 ns, "uid", uid, "creationTimestamp", "2024-05-01T10:00:00Z", "labels",
			 labels ? labels : json_object(), "spec", "nodeName", node, "containers",
			 "name", "c", "image", "busybox", "status", "phase", "Running", "qosClass",
			 "BestEffort");
}

json_t *mk_service(const char *ns, const char *name, json_t *selector)
{
	return json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s,s:o,s:[{s:i}]}}", "apiVersion", "v1", "kind",
			 "Service", "metadata", "name", name, "namespace", ns, "spec", "type",
			 "ClusterIP", "selector", selector ? selector : json_object(), "ports",
			 "port", 80);
}

json_t *mk_slice(const char *ns, const char *name, const char *service, const char *node,
		 const char *const *targets)
{
	json_t *eps = json_array();

	for (; targets && *targets; targets++) {
		const char *t = *targets;
		json_t *ref = json_pack("{s:s}", "kind", "Pod");

		if (strncmp(t, "uid:", 4) == 0) {
			json_object_set_new(ref, "uid", json_string(t + 4));
		} else {
			const char *slash = strchr(t + 5, '/');

			json_object_set_new(ref, "namespace", json_stringn(t + 5, slash - (t + 5)));
			json_object_set_new(ref, "name", json_string(slash + 1));
		}
		json_array_append_new(eps, json_pack("{s:[s],s:{s:b},s:s,s:o}", "addresses",
						     "10.244.0.9", "conditions", "ready", 1,
						     "nodeName", node, "targetRef", ref));
	}
	return json_pack("{s:s,s:s,s:s,s:{s:s,s:s,s:{s:s}},s:o,s:[{s:i,s:s}]}", "apiVersion",
			 "discovery.k8s.io/v1", "kind", "EndpointSlice", "addressType", "IPv4",
			 "metadata", "name", name, "namespace", ns, "labels",
			 "kubernetes.io/service-name", service, "endpoints", eps, "ports", "port",
			 80, "protocol", "TCP");
}
