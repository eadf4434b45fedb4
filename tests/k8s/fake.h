/* SPDX-License-Identifier: Apache-2.0 */
/* Test-side helpers for driving tests/k8s/fake_apiserver.py. */
#ifndef ENAV_TESTS_K8S_FAKE_H
#define ENAV_TESTS_K8S_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct fake {
	int pid;
	int port;
	char url[64]; /* http://127.0.0.1:PORT */
};

/* Start the server (python3 $ENAV_FAKE_APISERVER or tests/k8s/fake_apiserver.py). */
int fake_start(struct fake *f);
void fake_stop(struct fake *f);

/* POST one control command (printf-style JSON); the reply, or NULL. */
json_t *fake_ctl(const struct fake *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* add/modify/delete an object (reference stolen); returns the new RV number. */
long fake_obj(const struct fake *f, const char *cmd, const char *kind, json_t *obj);
/* GET a control path, parsed. */
json_t *fake_get(const struct fake *f, const char *path);
/* Wait until kind has at least n open, non-stalled watches. */
bool fake_wait_watchers(const struct fake *f, const char *kind, int n, int timeout_ms);

/* Requests of kind and verb ("list"/"watch") seen since (wall clock, s). */
int fake_count(const struct fake *f, const char *kind, const char *verb, double since);
/* Wait until at least n such requests were seen since. */
bool fake_wait_requests(const struct fake *f, const char *kind, const char *verb, double since,
			int n, int timeout_ms);
/* Query parameter of the last such request, copied into out ("" if none). */
bool fake_last_param(const struct fake *f, const char *kind, const char *verb, const char *param,
		     char *out, size_t cap);

double wall_now(void);
uint64_t mono_ms(void);

/* Real-shaped objects. */
json_t *mk_pod(const char *ns, const char *name, const char *uid, const char *node, json_t *labels);
json_t *mk_service(const char *ns, const char *name, json_t *selector);
/* targets: NULL-terminated "uid:<uid>" or "name:<ns>/<name>" strings. */
json_t *mk_slice(const char *ns, const char *name, const char *service, const char *node,
		 const char *const *targets);

#endif
