/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which programs load, chosen from the sources' program tables.  This host
 * runs one kernel; the choice is a pure function of a row and the probe's
 * facts, so every combination of facts is checked here: against rows written
 * for the purpose, and against the naming rules the tables replaced (*_btf
 * and *_raw suffixes, feature and optional prefixes, as each source set them
 * at ee7fa41b, the network's at b5457f78), so that a table row that would change what loads on some
 * kernel fails here rather than on the lead's kernel matrix.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "bpf_program_tables.h"
#include "runtime/bpf_program_table.h"

static const struct enav_bpf_feature_spec extra = {.name = "extra"};
static const struct enav_bpf_feature_spec inlined = {.name = "inlined", .in_core = true};

static bool loads(const struct enav_bpf_program_spec *p, bool btf, bool on, bool listed)
{
	struct enav_bpf_load_facts f = {
	    .tp_btf = btf, .feature_on = on, .hook_listed_or_unsure = listed, .conditions = 0};
	return enav_bpf_program_loads(p, &f);
}

static void test_variants_features_and_absent_hooks(void **state)
{
	(void)state;
	const struct enav_bpf_program_spec btf = {.name = "a", .variant = ENAV_BPF_TP_BTF};
	const struct enav_bpf_program_spec raw = {.name = "b", .variant = ENAV_BPF_RAW_TP};
	const struct enav_bpf_program_spec any = {.name = "c", .variant = ENAV_BPF_ANY_KERNEL};
	assert_true(loads(&btf, true, false, false));
	assert_false(loads(&btf, false, true, true));
	assert_true(loads(&raw, false, false, false));
	assert_false(loads(&raw, true, true, true));
	assert_true(loads(&any, true, false, false));
	assert_true(loads(&any, false, false, false));
	/* A feature switched off, or refused, leaves its programs out... */
	const struct enav_bpf_program_spec of_extra = {
	    .name = "d", .variant = ENAV_BPF_RAW_TP, .feature = &extra};
	assert_true(loads(&of_extra, false, true, true));
	assert_false(loads(&of_extra, false, false, true));
	assert_false(loads(&of_extra, true, true, true));
	/* ...but an in-core feature's code goes by read-only globals. */
	const struct enav_bpf_program_spec of_inlined = {.name = "e", .feature = &inlined};
	assert_true(loads(&of_inlined, false, false, true));
	/* A hook tracefs does not list loads only if it cannot be absent. */
	const struct enav_bpf_program_spec maybe = {.name = "f", .hook_may_be_absent = true};
	assert_false(loads(&maybe, true, true, false));
	assert_true(loads(&maybe, true, true, true));
	assert_true(loads(&any, true, true, false));
}

/* How a source grouped its programs by name before its table. */
struct naming_rules {
	const struct enav_bpf_program_table *table;
	const char *optional_prefix;
	struct {
		const char *name, *prefix;
		bool in_core;
	} features[3];
};

static const struct naming_rules rules[] = {
    {&enav_exec_programs, "enav_cred_", {{"credential_changes", "enav_cred_", false}}},
    {&enav_self_guard_programs, "enav_guard_", {{0}}},
    {&enav_file_open_programs, "enav_fopen_", {{0}}},
    {&enav_profile_programs,
     "enav_futex2",
     {{"unwind_eh_frame", "enav_cpu_sample", true},
      {"offcpu", "enav_offcpu", false},
      {"futex", "enav_futex", false}}},
};

static bool has_prefix(const char *s, const char *p)
{
	return p && strncmp(s, p, strlen(p)) == 0;
}

static bool has_suffix(const char *s, const char *x)
{
	size_t n = strlen(s), m = strlen(x);
	return n >= m && strcmp(s + n - m, x) == 0;
}

/* The feature the old prefixes gave name (its index in r->features), or -1. */
static int old_feature(const struct naming_rules *r, const char *name)
{
	for (int i = 0; i < 3; i++)
		if (has_prefix(name, r->features[i].prefix))
			return i;
	return -1;
}

/* bpf_source.c's select_programs at ee7fa41b, for one program. */
static bool old_loads(const struct naming_rules *r, const char *name, bool btf,
		      unsigned features_on, bool listed)
{
	bool load = true;
	if (has_suffix(name, "_btf") || has_suffix(name, "_raw"))
		load = has_suffix(name, "_btf") == btf;
	int f = old_feature(r, name);
	if (f >= 0 && !r->features[f].in_core && !(features_on >> f & 1u))
		load = false;
	if (load && has_prefix(name, r->optional_prefix) && !listed)
		load = false;
	return load;
}

static void test_tables_choose_as_the_names_did(void **state)
{
	(void)state;
	size_t checked = 0;
	for (size_t k = 0; k < ENAV_ARRAY_LEN(rules); k++) {
		const struct naming_rules *r = &rules[k];
		const struct enav_bpf_program_table *t = r->table;
		for (size_t i = 0; i < t->n_programs; i++) {
			const struct enav_bpf_program_spec *p = &t->programs[i];
			int f = old_feature(r, p->name);
			/* The same feature, found by the row instead of a prefix. */
			if (f < 0) {
				if (p->feature)
					fail_msg("%s: %s is of %s, was of the core", t->source,
						 p->name, p->feature->name);
			} else if (!p->feature || strcmp(p->feature->name, r->features[f].name) ||
				   p->feature->in_core != r->features[f].in_core) {
				fail_msg("%s: %s is not of feature %s as before", t->source,
					 p->name, r->features[f].name);
			}
			assert_int_equal(p->hook_may_be_absent,
					 has_prefix(p->name, r->optional_prefix));
			assert_false(p->attached_by_source); /* no manual prefixes */
			for (unsigned bits = 0; bits < 4; bits++) {
				bool btf = bits & 1u, listed = bits & 2u;
				for (unsigned on = 0; on < 8; on++) {
					bool feature_on = f >= 0 && (on >> f & 1u);
					bool now = loads(p, btf, feature_on, listed);
					if (now != old_loads(r, p->name, btf, on, listed))
						fail_msg("%s: %s %s on a %s kernel (features 0x%x, "
							 "hook %s)",
							 t->source, p->name,
							 now ? "loads" : "does not load",
							 btf ? "tp_btf" : "raw_tp", on,
							 listed ? "listed" : "absent");
					checked++;
				}
			}
		}
	}
	assert_true(checked > 0);
}

/* One of the network's hook facts: hook 0..2 is the payload hook (fexit,
 * socket tracepoints, sys_exit), bits 0..3 compat (fexit only), sendpage,
 * IPv6 and DNS. */
static struct enav_net_hooks net_hooks(unsigned hook, unsigned bits)
{
	return (struct enav_net_hooks){
	    .payload_hook = hook == 0	? ENAV_PAYLOAD_FEXIT
			    : hook == 1 ? ENAV_PAYLOAD_SOCKET_TP
					: ENAV_PAYLOAD_SYS_EXIT,
	    .compat = hook == 0 && (bits & 1u),
	    .has_sendpage = bits & 2u,
	    .has_udpv6 = bits & 4u,
	    .dns = bits & 8u,
	};
}

/* The network source's naming rules at b5457f78: enav_net_hook_skips and the
 * prefixes net_start gave its features, skips and manual attaches. */
struct net_old_rules {
	const char *skip[16];
	size_t n_skips;
	struct {
		const char *name, *prefix[2];
		bool in_core;
	} features[4];
	size_t n_features;
};

static void net_old_rules(const struct enav_net_hooks *h, struct net_old_rules *r)
{
	*r = (struct net_old_rules){0};
	bool compat = h->payload_hook == ENAV_PAYLOAD_FEXIT && h->compat;
	bool fexit = h->payload_hook == ENAV_PAYLOAD_FEXIT;
#define SKIP(P) (r->skip[r->n_skips++] = (P))
	switch (h->payload_hook) {
	case ENAV_PAYLOAD_FEXIT:
		SKIP("enav_sock_");
		SKIP("enav_sys_exit");
		if (compat) {
			SKIP("enav_tcp_send_fexit");
			SKIP("enav_tcp_recv_fexit");
			SKIP("enav_tcp_sendpage_fexit");
			SKIP("enav_udp");
		} else {
			SKIP("enav_compat_");
		}
		if (!h->has_sendpage)
			SKIP(compat ? "enav_compat_tcp_sendpage" : "enav_tcp_sendpage_fexit");
		if (!h->dns)
			SKIP(compat ? "enav_compat_udp" : "enav_udp");
		else if (!h->has_udpv6)
			SKIP(compat ? "enav_compat_udp6_" : "enav_udp6_");
		break;
	case ENAV_PAYLOAD_SOCKET_TP:
	case ENAV_PAYLOAD_SYS_EXIT:
		SKIP("enav_tcp_send_fexit");
		SKIP("enav_tcp_recv_fexit");
		SKIP("enav_tcp_sendpage_fexit");
		SKIP("enav_udp");
		SKIP("enav_compat_");
		if (h->payload_hook == ENAV_PAYLOAD_SOCKET_TP)
			SKIP("enav_sys_exit");
		break;
	}
	if (compat) {
		SKIP("enav_tls_read");
		SKIP("enav_tls_write");
		SKIP("enav_tls_handshake");
		SKIP("enav_tls_return");
		SKIP("enav_go_tls_");
	} else {
		SKIP("enav_tls_compat_");
	}
#undef SKIP
#define FEATURE(N, P0, P1, CORE)                                                                   \
	(r->features[r->n_features++] = (typeof(r->features[0])){N, {P0, P1}, CORE})
	if (h->payload_hook == ENAV_PAYLOAD_SYS_EXIT)
		FEATURE("payload_capture", "enav_sys_exit", NULL, false);
	else if (compat)
		FEATURE("payload_capture", "enav_compat_tcp_send", "enav_compat_tcp_recv", true);
	else if (fexit)
		FEATURE("payload_capture", "enav_tcp_send", "enav_tcp_recv", true);
	else
		FEATURE("payload_capture", "enav_sock_send_", "enav_sock_recv_", true);
	if (fexit && h->dns)
		FEATURE("dns_udp", compat ? "enav_compat_udp" : "enav_udp", NULL, false);
	FEATURE("tls", "enav_tls_", NULL, false);
	if (!compat)
		FEATURE("go_tls", "enav_go_tls_", NULL, false);
#undef FEATURE
}

static int net_old_feature(const struct net_old_rules *r, const char *name)
{
	for (size_t i = 0; i < r->n_features; i++)
		for (int k = 0; k < 2; k++)
			if (has_prefix(name, r->features[i].prefix[k]))
				return (int)i;
	return -1;
}

/* Every program of the network object, on every combination of the probe's
 * payload hook, compat set, sendpage, IPv6, DNS, tp_btf and features on:
 * the same programs load, in the same feature, attached by the same party. */
static void test_network_table_chooses_as_the_names_did(void **state)
{
	(void)state;
	static const char *const feature_names[4] = {"payload_capture", "dns_udp", "tls", "go_tls"};
	const struct enav_bpf_program_table *t = &enav_net_programs;
	size_t checked = 0;
	for (unsigned hook = 0; hook < 3; hook++)
		for (unsigned bits = 0; bits < 32; bits++) {
			struct enav_net_hooks h = net_hooks(hook, bits);
			bool btf = bits & 16u;
			struct net_old_rules r;
			net_old_rules(&h, &r);
			uint32_t cond = enav_net_conditions(&h);
			for (size_t i = 0; i < t->n_programs; i++) {
				const char *name = t->programs[i].name;
				const struct enav_bpf_program_spec *row =
				    enav_bpf_program_find(t, name, cond);
				if (row != &t->programs[i])
					continue; /* each name once, by the row that applies */
				int of = net_old_feature(&r, name);
				for (unsigned on = 0; on < 16; on++) {
					bool old = true;
					if (has_suffix(name, "_btf") || has_suffix(name, "_raw"))
						old = has_suffix(name, "_btf") == btf;
					for (size_t k = 0; k < r.n_skips; k++)
						old &= !has_prefix(name, r.skip[k]);
					int fi = -1;
					for (int n = 0; of >= 0 && n < 4; n++)
						if (!strcmp(feature_names[n], r.features[of].name))
							fi = n;
					if (of >= 0 && !r.features[of].in_core && !(on >> fi & 1u))
						old = false;
					int ni = -1;
					for (int n = 0; row->feature && n < 4; n++)
						if (!strcmp(feature_names[n], row->feature->name))
							ni = n;
					struct enav_bpf_load_facts facts = {
					    .tp_btf = btf,
					    .feature_on = ni >= 0 && (on >> ni & 1u),
					    .hook_listed_or_unsure = true,
					    .conditions = cond,
					};
					bool now = enav_bpf_program_loads(row, &facts);
					if (now != old)
						fail_msg("network: %s %s under 0x%x (%s, features "
							 "0x%x), not as before",
							 name, now ? "loads" : "does not load",
							 cond, btf ? "tp_btf" : "raw_tp", on);
					checked++;
					if (!now)
						continue;
					/* Loaded: blamed on the same feature, attached alike. */
					const char *was = of >= 0 ? r.features[of].name : NULL;
					const char *is = row->feature ? row->feature->name : NULL;
					if ((was == NULL) != (is == NULL) ||
					    (was && strcmp(was, is)) ||
					    (was &&
					     row->feature->in_core != r.features[of].in_core))
						fail_msg(
						    "network: %s is of %s under 0x%x, was of %s",
						    name, is ? is : "the core", cond,
						    was ? was : "the core");
					bool manual = has_prefix(name, "enav_tls_") ||
						      has_prefix(name, "enav_go_tls_");
					assert_int_equal(row->attached_by_source, manual);
					assert_false(row->hook_may_be_absent);
				}
			}
		}
	assert_true(checked > 1000);
}

/* Every condition set a source can be in: the network's, from every
 * combination of what its bits stand for, and none (the other tables). */
static size_t reachable_conditions(uint32_t out[128])
{
	size_t n = 0;
	out[n++] = 0;
	for (unsigned hook = 0; hook < 3; hook++)
		for (unsigned bits = 0; bits < 16; bits++) {
			struct enav_net_hooks h = net_hooks(hook, bits);
			out[n++] = enav_net_conditions(&h);
		}
	return n;
}

/* Every row's feature is in its table's list, each hook written twice has
 * both variants, and no two rows of one name apply under the same
 * conditions a source can be in. */
static void test_tables_are_whole(void **state)
{
	(void)state;
	uint32_t conds[128];
	size_t n_conds = reachable_conditions(conds);
	for (size_t k = 0; k < ENAV_ARRAY_LEN(bpf_program_tables); k++) {
		const struct enav_bpf_program_table *t = bpf_program_tables[k];
		size_t btf = 0, raw = 0;
		for (size_t i = 0; i < t->n_programs; i++) {
			const struct enav_bpf_program_spec *p = &t->programs[i];
			btf += p->variant == ENAV_BPF_TP_BTF;
			raw += p->variant == ENAV_BPF_RAW_TP;
			for (size_t c = 0; c < n_conds; c++)
				for (size_t j = i + 1; j < t->n_programs; j++)
					if (!strcmp(p->name, t->programs[j].name) &&
					    enav_bpf_program_applies(p, conds[c]) &&
					    enav_bpf_program_applies(&t->programs[j], conds[c]))
						fail_msg("%s: two rows of %s apply under 0x%x",
							 t->source, p->name, conds[c]);
			if (enav_bpf_program_applies(p, 0))
				assert_ptr_equal(enav_bpf_program_find(t, p->name, 0), p);
			bool listed = !p->feature;
			for (size_t j = 0; j < t->n_features; j++)
				listed |= t->features[j] == p->feature;
			if (!listed)
				fail_msg("%s: %s's feature is not in the table", t->source,
					 p->name);
		}
		assert_int_equal(btf, raw);
	}
}

/* What this host's kind of kernel and an older one load of exec and
 * profiling, spelled out. */
static void test_exec_and_profiling_choices(void **state)
{
	(void)state;
	const struct enav_bpf_program_spec *exec_btf =
	    enav_bpf_program_find(&enav_exec_programs, "enav_exec_btf", 0);
	const struct enav_bpf_program_spec *exec_raw =
	    enav_bpf_program_find(&enav_exec_programs, "enav_exec_raw", 0);
	assert_true(loads(exec_btf, true, false, true) && !loads(exec_raw, true, false, true));
	assert_true(loads(exec_raw, false, false, true) && !loads(exec_btf, false, false, true));
	const struct enav_bpf_program_spec *cpu =
	    enav_bpf_program_find(&enav_profile_programs, "enav_cpu_sample", 0);
	assert_true(loads(cpu, false, false, true)); /* unwinder refused: loads without */
	const struct enav_bpf_program_spec *waitv =
	    enav_bpf_program_find(&enav_profile_programs, "enav_futex2_waitv_enter", 0);
	assert_false(loads(waitv, true, true, false)); /* 5.10: no futex_waitv */
	assert_false(loads(waitv, true, false, true)); /* futex off */
	const struct enav_bpf_program_spec *futex =
	    enav_bpf_program_find(&enav_profile_programs, "enav_futex_enter", 0);
	assert_true(loads(futex, false, true, false)); /* futex(2) itself is never absent */
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_variants_features_and_absent_hooks),
	    cmocka_unit_test(test_tables_choose_as_the_names_did),
	    cmocka_unit_test(test_network_table_chooses_as_the_names_did),
	    cmocka_unit_test(test_tables_are_whole),
	    cmocka_unit_test(test_exec_and_profiling_choices),
	};
	return cmocka_run_group_tests_name("bpf_program_table", tests, NULL, NULL);
}
