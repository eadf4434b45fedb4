/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the Kubernetes watch path: the incremental line
 * splitter fed in fuzzer-chosen chunks, each line decoded as a watch event of
 * a fuzzer-chosen kind and applied to small bounded stores, then a view built
 * from them.  The whole input is also decoded as a list page.
 *
 * Byte 0: kind (low 2 bits), line cap selector (next 2 bits); byte 1: chunk
 * size seed.  Checks: the stores never exceed their caps, views are sorted
 * by uid and every pod they hold can be found again.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "discovery/k8s_priv.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define CAP 8

struct ctx {
	enum k8s_kind kind;
	struct k8s_store *stores;
	int lines, oversize;
};

static const struct k8s_decode_opts OPTS = {.node_name = "node-a"};

static int on_line(void *arg, const char *line, size_t len)
{
	struct ctx *c = arg;
	struct k8s_store *s = &c->stores[c->kind];
	struct k8s_drops d = {0};
	struct k8s_event ev;

	if (!line) {
		c->oversize++;
		return 0;
	}
	CHECK(len > 0 && memchr(line, '\n', len) == NULL);
	c->lines++;
	if (k8s_event_decode(c->kind, line, len, &OPTS, &ev, &d) != K8S_DEC_OK) {
		CHECK(ev.obj == NULL);
		return 0;
	}
	CHECK(strlen(ev.rv) <= K8S_RV_MAX);
	CHECK((ev.obj != NULL) == (ev.obj_rc == K8S_DEC_OK));
	if (!ev.obj)
		return 0;
	if (ev.type == K8S_EV_DELETED) {
		k8s_store_del(s, ((struct k8s_node *)ev.obj)->key);
		k8s_object_free(c->kind, ev.obj);
	} else {
		k8s_store_put(s, ev.obj);
	}
	CHECK(s->count <= s->cap);
	return 0;
}

static void on_item(void *arg, enum k8s_dec rc, void *obj, const struct k8s_drops *d)
{
	struct ctx *c = arg;

	CHECK((obj != NULL) == (rc == K8S_DEC_OK));
	if (obj)
		k8s_store_put(&c->stores[c->kind], obj);
	CHECK(c->stores[c->kind].count <= CAP);
}

static void check_view(struct k8s_store *st)
{
	static const struct enav_config_list keep = {.n = 2, .item = {"app", "pod-template-hash"}};
	struct k8s_view_stats vs;
	struct enav_k8s_view *v =
	    k8s_view_build(&st[K8S_POD], &st[K8S_SERVICE], &st[K8S_SLICE], &keep, 1, true, &vs);

	if (!v)
		return;
	CHECK(v->n_pods == st[K8S_POD].count);
	for (uint32_t i = 0; i < v->n_pods; i++) {
		const struct enav_k8s_pod *p = &v->pods[i];

		CHECK(i == 0 || strcmp(v->pods[i - 1].uid, p->uid) < 0);
		CHECK(enav_k8s_view_find_pod(v, p->uid) == p);
		CHECK(p->n_services <= ENAV_K8S_MAX_SERVICES && p->n_labels <= ENAV_K8S_MAX_LABELS);
		for (uint32_t l = 0; l < p->n_labels; l++)
			CHECK(enav_k8s_view_pod_has_label(v, p, p->labels[l].key,
							  p->labels[l].value));
	}
	enav_k8s_view_release(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t caps[4] = {16, 256, 4096, 65536};
	struct k8s_store stores[K8S_NKINDS];
	struct k8s_lines l;
	struct ctx c;
	char rv[K8S_RV_MAX + 1], cont[K8S_CONTINUE_MAX];

	if (size < 2)
		return 0;
	c.kind = (enum k8s_kind)((data[0] & 3) % K8S_NKINDS);
	c.stores = stores;
	c.lines = c.oversize = 0;
	for (int k = 0; k < K8S_NKINDS; k++)
		CHECK(k8s_store_init(&stores[k], (enum k8s_kind)k, CAP) == 0);
	CHECK(k8s_lines_init(&l, caps[(data[0] >> 2) & 3]) == 0);
	size_t chunk = (size_t)data[1] + 1;
	const char *p = (const char *)data + 2;
	size_t n = size - 2;

	for (size_t off = 0; off < n; off += chunk)
		CHECK(k8s_lines_feed(&l, p + off, n - off < chunk ? n - off : chunk, on_line, &c) ==
		      0);
	CHECK(l.len <= l.cap);
	k8s_list_decode(c.kind, p, n, &OPTS, rv, sizeof(rv), cont, sizeof(cont), on_item, &c);
	CHECK(strlen(rv) <= K8S_RV_MAX && strlen(cont) < K8S_CONTINUE_MAX);
	check_view(stores);
	k8s_lines_free(&l);
	for (int k = 0; k < K8S_NKINDS; k++)
		k8s_store_free(&stores[k]);
	return 0;
}
