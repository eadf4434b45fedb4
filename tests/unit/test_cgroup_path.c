/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the cgroup path -> container/pod identity parser. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/cgroup_path.h"

/* Realistic ids: 64 lowercase hex container ids and v4 pod UIDs. */
#define CID1  "f372f52cd6fab215ce890866d5dbdf5c08adcfa448d9fa0061041da93feb64cf"
#define CID2  "16348b1aa3190cc1a35000271906f46215bdeb1fb7c4cbac585736362c20dac1"
#define CID3  "4ac913a90924306d436c9fed45afcb61056bb41c238314e8ab6850784f0e8e14"
#define UID1  "b2f9cbb0-21bb-47c2-970c-50bc59b1c09f"
#define UID1_ "b2f9cbb0_21bb_47c2_970c_50bc59b1c09f" /* systemd slice spelling */
#define UID2  "712731a7-7c14-4363-858f-53576203bad5"
#define UID2_ "712731a7_7c14_4363_858f_53576203bad5"

#define SD_BURST "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID1_ ".slice"
#define SD_BEST	 "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID1_ ".slice"
#define SD_GUAR	 "/kubepods.slice/kubepods-pod" UID1_ ".slice"

enum { RT_NONE = ENAV_RUNTIME_NONE };

struct tcase {
	const char *name;
	const char *path;
	enum enav_container_runtime runtime;
	const char *cid; /* NULL: "" */
	enum enav_pod_qos qos;
	const char *uid;
	const char *unit;
};

/* Parse from an exactly-sized heap copy so ASan catches any read past len. */
static void parse_exact(const char *p, size_t len, struct enav_cgroup_identity *id)
{
	char *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, p, len);
	memset(id, 0x41, sizeof(*id)); /* garbage: parse must overwrite all of it */
	enav_cgroup_identity_parse(copy, len, id);
	free(copy);
}

static void expect_identity(const struct enav_cgroup_identity *id, enum enav_container_runtime rt,
			    const char *cid, enum enav_pod_qos qos, const char *uid,
			    const char *unit)
{
	assert_int_equal(id->runtime, rt);
	assert_string_equal(id->container_id, cid ? cid : "");
	assert_int_equal(id->qos, qos);
	assert_string_equal(id->pod_uid, uid ? uid : "");
	assert_string_equal(id->systemd_unit, unit ? unit : "");
}

static void expect_zero(const struct enav_cgroup_identity *id)
{
	static const struct enav_cgroup_identity zero;

	assert_memory_equal(id, &zero, sizeof(zero));
}

static void run_case(void **state)
{
	const struct tcase *t = *state;
	struct enav_cgroup_identity id;

	parse_exact(t->path, strlen(t->path), &id);
	expect_identity(&id, t->runtime, t->cid, t->qos, t->uid, t->unit);
	if (t->runtime == RT_NONE && !t->uid && !t->unit)
		expect_zero(&id);
}

static const struct tcase cases[] = {
    /* containerd, systemd cgroup driver */
    {"containerd_systemd_burstable", SD_BURST "/cri-containerd-" CID1 ".scope",
     ENAV_RUNTIME_CONTAINERD, CID1, ENAV_QOS_BURSTABLE, UID1, NULL},
    {"containerd_systemd_besteffort", SD_BEST "/cri-containerd-" CID1 ".scope",
     ENAV_RUNTIME_CONTAINERD, CID1, ENAV_QOS_BESTEFFORT, UID1, NULL},
    {"containerd_systemd_guaranteed", SD_GUAR "/cri-containerd-" CID1 ".scope",
     ENAV_RUNTIME_CONTAINERD, CID1, ENAV_QOS_GUARANTEED, UID1, NULL},
    {"containerd_nested_leaf", SD_BURST "/cri-containerd-" CID1 ".scope/some-subgroup",
     ENAV_RUNTIME_CONTAINERD, CID1, ENAV_QOS_BURSTABLE, UID1, NULL},
    {"containerd_nested_leaf_deep", SD_GUAR "/cri-containerd-" CID1 ".scope/a/b.service",
     ENAV_RUNTIME_CONTAINERD, CID1, ENAV_QOS_GUARANTEED, UID1, NULL},
    {"pod_slice_only", SD_BURST, RT_NONE, NULL, ENAV_QOS_BURSTABLE, UID1, NULL},

    /* cgroupfs driver: the bare id proves a container, not its runtime */
    {"cgroupfs_burstable", "/kubepods/burstable/pod" UID2 "/" CID2, ENAV_RUNTIME_UNKNOWN, CID2,
     ENAV_QOS_BURSTABLE, UID2, NULL},
    {"cgroupfs_besteffort", "/kubepods/besteffort/pod" UID2 "/" CID2, ENAV_RUNTIME_UNKNOWN, CID2,
     ENAV_QOS_BESTEFFORT, UID2, NULL},
    {"cgroupfs_guaranteed", "/kubepods/pod" UID2 "/" CID2, ENAV_RUNTIME_UNKNOWN, CID2,
     ENAV_QOS_GUARANTEED, UID2, NULL},
    {"cgroupfs_custom_root", "/kubelet/kubepods/burstable/pod" UID2 "/" CID2, ENAV_RUNTIME_UNKNOWN,
     CID2, ENAV_QOS_BURSTABLE, UID2, NULL},
    {"cgroupfs_crio", "/kubepods/burstable/pod" UID2 "/crio-" CID3, ENAV_RUNTIME_CRIO, CID3,
     ENAV_QOS_BURSTABLE, UID2, NULL},

    /* cri-o */
    {"crio_systemd", SD_BURST "/crio-" CID2 ".scope", ENAV_RUNTIME_CRIO, CID2, ENAV_QOS_BURSTABLE,
     UID1, NULL},
    {"crio_conmon_is_not_container", SD_BURST "/crio-conmon-" CID2 ".scope", RT_NONE, NULL,
     ENAV_QOS_BURSTABLE, UID1, "crio-conmon-" CID2 ".scope"},
    {"crio_nested_container", SD_BEST "/crio-" CID2 ".scope/container", ENAV_RUNTIME_CRIO, CID2,
     ENAV_QOS_BESTEFFORT, UID1, NULL},

    /* docker */
    {"docker_systemd", "/system.slice/docker-" CID3 ".scope", ENAV_RUNTIME_DOCKER, CID3,
     ENAV_QOS_NONE, NULL, NULL},
    {"docker_cgroupfs", "/docker/" CID3, ENAV_RUNTIME_DOCKER, CID3, ENAV_QOS_NONE, NULL, NULL},
    {"docker_in_pod", SD_GUAR "/docker-" CID3 ".scope", ENAV_RUNTIME_DOCKER, CID3,
     ENAV_QOS_GUARANTEED, UID1, NULL},
    {"docker_service_is_unit", "/system.slice/docker.service", RT_NONE, NULL, ENAV_QOS_NONE, NULL,
     "docker.service"},

    /* podman */
    {"podman_machine_slice", "/machine.slice/libpod-" CID1 ".scope", ENAV_RUNTIME_PODMAN, CID1,
     ENAV_QOS_NONE, NULL, NULL},
    {"podman_nested_init", "/machine.slice/libpod-" CID1 ".scope/container", ENAV_RUNTIME_PODMAN,
     CID1, ENAV_QOS_NONE, NULL, NULL},
    {"podman_conmon_is_not_container", "/machine.slice/libpod-conmon-" CID1 ".scope", RT_NONE, NULL,
     ENAV_QOS_NONE, NULL, "libpod-conmon-" CID1 ".scope"},
    {"podman_rootless",
     "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" CID1 ".scope",
     ENAV_RUNTIME_PODMAN, CID1, ENAV_QOS_NONE, NULL, NULL},
    {"podman_cgroupfs", "/libpod_parent/libpod-" CID1, ENAV_RUNTIME_PODMAN, CID1, ENAV_QOS_NONE,
     NULL, NULL},

    /* nesting: the deepest container wins, a pod below a container replaces it */
    {"docker_in_docker_in_pod", "/kubepods/burstable/pod" UID2 "/" CID1 "/docker/" CID3,
     ENAV_RUNTIME_DOCKER, CID3, ENAV_QOS_BURSTABLE, UID2, NULL},
    {"kind_node_pod_container",
     "/system.slice/docker-" CID1 ".scope/kubelet.slice/kubelet-kubepods.slice/"
     "kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" UID2_
     ".slice/cri-containerd-" CID2 ".scope",
     ENAV_RUNTIME_CONTAINERD, CID2, ENAV_QOS_BESTEFFORT, UID2, NULL},
    {"kind_node_pod_without_container",
     "/system.slice/docker-" CID1 ".scope/kubelet.slice/kubelet-kubepods.slice/"
     "kubelet-kubepods-pod" UID2_ ".slice",
     RT_NONE, NULL, ENAV_QOS_GUARANTEED, UID2, NULL},
    {"kind_node_kubelet", "/system.slice/docker-" CID1 ".scope/system.slice/kubelet.service",
     ENAV_RUNTIME_DOCKER, CID1, ENAV_QOS_NONE, NULL, NULL},
    {"deeper_pod_wins", "/kubepods/pod" UID1 "/" CID1 "/kubepods/besteffort/pod" UID2, RT_NONE,
     NULL, ENAV_QOS_BESTEFFORT, UID2, NULL},

    /* systemd units */
    {"systemd_service", "/system.slice/nginx.service", RT_NONE, NULL, ENAV_QOS_NONE, NULL,
     "nginx.service"},
    {"systemd_session", "/user.slice/user-1000.slice/session-3.scope", RT_NONE, NULL, ENAV_QOS_NONE,
     NULL, "session-3.scope"},
    {"systemd_init_scope", "/init.scope", RT_NONE, NULL, ENAV_QOS_NONE, NULL, "init.scope"},
    {"systemd_delegated_subgroup", "/system.slice/foo.service/payload", RT_NONE, NULL,
     ENAV_QOS_NONE, NULL, "foo.service"},
    {"systemd_user_unit", "/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service",
     RT_NONE, NULL, ENAV_QOS_NONE, NULL, "foo.service"},
    {"systemd_template_escaped", "/system.slice/system-getty.slice/getty@tty1.service", RT_NONE,
     NULL, ENAV_QOS_NONE, NULL, "getty@tty1.service"},
    {"systemd_unit_bad_chars", "/system.slice/foo bar.service", RT_NONE, NULL, ENAV_QOS_NONE, NULL,
     NULL},
    {"systemd_slice_is_not_unit", "/system.slice", RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"systemd_bare_suffix", "/system.slice/.service", RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"deleted_suffix", "/system.slice/docker-" CID3 ".scope (deleted)", ENAV_RUNTIME_DOCKER, CID3,
     ENAV_QOS_NONE, NULL, NULL},

    /* bad ids */
    {"id_63_hex",
     "/system.slice/docker-"
     "f372f52cd6fab215ce890866d5dbdf5c08adcfa448d9fa0061041da93feb64c"
     ".scope",
     RT_NONE, NULL, ENAV_QOS_NONE, NULL,
     "docker-f372f52cd6fab215ce890866d5dbdf5c08adcfa448d9fa0061041da93feb64c.scope"},
    {"id_65_hex", "/docker/" CID1 "0", RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"id_non_hex",
     "/machine.slice/libpod-"
     "g372f52cd6fab215ce890866d5dbdf5c08adcfa448d9fa0061041da93feb64cf"
     ".scope",
     RT_NONE, NULL, ENAV_QOS_NONE, NULL,
     "libpod-g372f52cd6fab215ce890866d5dbdf5c08adcfa448d9fa0061041da93feb64cf.scope"},
    {"id_uppercase",
     SD_BURST "/cri-containerd-"
	      "F372F52CD6FAB215CE890866D5DBDF5C08ADCFA448D9FA0061041DA93FEB64CF"
	      ".scope",
     RT_NONE, NULL, ENAV_QOS_BURSTABLE, UID1,
     "cri-containerd-F372F52CD6FAB215CE890866D5DBDF5C08ADCFA448D9FA0061041DA93FEB64CF.scope"},
    {"bare_id_not_under_pod", "/system.slice/" CID1, RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"bare_id_under_qos", "/kubepods/burstable/" CID1, RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"bare_id_nested_under_id", "/kubepods/pod" UID2 "/" CID2 "/" CID1, ENAV_RUNTIME_UNKNOWN, CID2,
     ENAV_QOS_GUARANTEED, UID2, NULL},
    {"unknown_prefix", "/system.slice/rkt-" CID1 ".scope", RT_NONE, NULL, ENAV_QOS_NONE, NULL,
     "rkt-" CID1 ".scope"},

    /* bad pod UIDs and broken kubepods chains */
    {"uid_uppercase",
     "/kubepods/pod"
     "B2F9CBB0-21BB-47C2-970C-50BC59B1C09F"
     "/" CID2,
     RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"uid_static_pod_md5",
     "/kubepods/burstable/pod"
     "6f8e2a9b1c3d4e5f60718293a4b5c6d7"
     "/" CID2,
     RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"uid_short_group",
     "/kubepods/pod"
     "b2f9cbb0-21bb-47c2-970c-50bc59b1c09"
     "/" CID2,
     RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"uid_dashes_in_slice",
     "/kubepods.slice/kubepods-pod" UID1 ".slice/cri-containerd-" CID1 ".scope",
     ENAV_RUNTIME_CONTAINERD, CID1, ENAV_QOS_NONE, NULL, NULL},
    {"uid_underscores_in_cgroupfs", "/kubepods/pod" UID1_ "/" CID2, RT_NONE, NULL, ENAV_QOS_NONE,
     NULL, NULL},
    {"uid_misplaced_separator",
     "/kubepods/pod"
     "b2f9cbb021-bb-47c2-970c-50bc59b1c09f"
     "/" CID2,
     RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"slice_stem_mismatch",
     "/kubepods.slice/kubepods-besteffort.slice/kubepods-burstable-pod" UID1_
     ".slice/cri-containerd-" CID1 ".scope",
     ENAV_RUNTIME_CONTAINERD, CID1, ENAV_QOS_NONE, NULL, NULL},
    {"qos_without_root", "/kubepods-burstable.slice/kubepods-burstable-pod" UID1_ ".slice", RT_NONE,
     NULL, ENAV_QOS_NONE, NULL, NULL},
    {"pod_not_adjacent", "/kubepods/burstable/extra/pod" UID2 "/" CID2, RT_NONE, NULL,
     ENAV_QOS_NONE, NULL, NULL},
    {"nested_root_wrong_parent",
     "/other.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UID1_ ".slice", RT_NONE, NULL,
     ENAV_QOS_NONE, NULL, NULL},
    {"nested_root_same_length_parent",
     "/kubebox.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UID1_ ".slice", RT_NONE, NULL,
     ENAV_QOS_NONE, NULL, NULL},
    {"nested_root_good_parent",
     "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UID1_ ".slice", RT_NONE, NULL,
     ENAV_QOS_GUARANTEED, UID1, NULL},
    {"unit_above_pod_dropped", "/system.slice/k3s.service/kubepods/besteffort/pod" UID2, RT_NONE,
     NULL, ENAV_QOS_BESTEFFORT, UID2, NULL},
    {"mixed_drivers", "/kubepods.slice/burstable/pod" UID2 "/" CID2, RT_NONE, NULL, ENAV_QOS_NONE,
     NULL, NULL},
    {"qos_unknown_class", "/kubepods/guaranteed/pod" UID2 "/" CID2, RT_NONE, NULL, ENAV_QOS_NONE,
     NULL, NULL},

    /* malformed paths: rejected whole */
    {"dotdot_prefix", "/../../kubepods/pod" UID2 "/" CID2, RT_NONE, NULL, ENAV_QOS_NONE, NULL,
     NULL},
    {"dotdot_inside", "/system.slice/../docker/" CID3, RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"dot_component", "/docker/./" CID3, RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"double_slash", "/docker//" CID3, RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"trailing_slash", "/docker/" CID3 "/", RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"relative", "docker/" CID3, RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"empty", "", RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"root", "/", RT_NONE, NULL, ENAV_QOS_NONE, NULL, NULL},
    {"trailing_newline", "/system.slice/docker-" CID3 ".scope\n", RT_NONE, NULL, ENAV_QOS_NONE,
     NULL, NULL},
};

static void test_nul_inside(void **state)
{
	static const char p[] = "/system.slice/docker-" CID3 ".scope\0/x";
	static const char q[] = "/system.slice/nginx\0.service";
	struct enav_cgroup_identity id;

	parse_exact(p, sizeof(p) - 1, &id);
	expect_zero(&id);
	parse_exact(q, sizeof(q) - 1, &id);
	expect_zero(&id);
}

/* Only len bytes are read: a valid path followed by more bytes that are not looked at. */
static void test_not_nul_terminated(void **state)
{
	static const char p[] = "/docker/" CID3 "ffff/extra";
	struct enav_cgroup_identity id;

	parse_exact(p, strlen("/docker/" CID3), &id);
	expect_identity(&id, ENAV_RUNTIME_DOCKER, CID3, ENAV_QOS_NONE, NULL, NULL);

	/* Truncated inside the id: no container. */
	parse_exact(p, strlen("/docker/" CID3) - 1, &id);
	expect_zero(&id);
}

/* Pad with "/a" components in front of a valid container leaf. */
static char *long_path(size_t total, const char *leaf)
{
	size_t leaf_n = strlen(leaf);
	char *p = malloc(total);

	assert_non_null(p);
	assert_true(total >= leaf_n && (total - leaf_n) % 2 == 0);
	for (size_t i = 0; i + leaf_n < total; i += 2)
		memcpy(p + i, "/a", 2);
	memcpy(p + total - leaf_n, leaf, leaf_n);
	return p;
}

static void test_long_paths(void **state)
{
	static const char leaf[] = "/docker-" CID1 ".scope"; /* 78 bytes: even */
	struct enav_cgroup_identity id;
	char *p;

	p = long_path(ENAV_CGROUP_PATH_MAX, leaf);
	parse_exact(p, ENAV_CGROUP_PATH_MAX, &id);
	expect_identity(&id, ENAV_RUNTIME_DOCKER, CID1, ENAV_QOS_NONE, NULL, NULL);
	free(p);

	p = long_path(ENAV_CGROUP_PATH_MAX + 2, leaf);
	parse_exact(p, ENAV_CGROUP_PATH_MAX + 2, &id);
	expect_zero(&id);
	free(p);

	p = long_path(1 << 16, leaf);
	parse_exact(p, 1 << 16, &id);
	expect_zero(&id);
	free(p);

	/* A single huge component. */
	p = malloc(8192);
	assert_non_null(p);
	p[0] = '/';
	memset(p + 1, 'x', 8191);
	parse_exact(p, 8192, &id);
	expect_zero(&id);
	free(p);
}

static void test_unit_too_long(void **state)
{
	char p[256];
	struct enav_cgroup_identity id;

	/* "/" + 119 'x' + ".service" leaves a 127-byte unit: just fits. */
	p[0] = '/';
	memset(p + 1, 'x', 119);
	memcpy(p + 120, ".service", 8);
	parse_exact(p, 128, &id);
	assert_int_equal(strlen(id.systemd_unit), 127);

	/* One more byte would need truncation: reported as none. */
	p[0] = '/';
	memset(p + 1, 'x', 120);
	memcpy(p + 121, ".service", 8);
	parse_exact(p, 129, &id);
	expect_zero(&id);
}

static void test_null_path(void **state)
{
	struct enav_cgroup_identity id;

	memset(&id, 0x41, sizeof(id));
	enav_cgroup_identity_parse(NULL, 0, &id);
	expect_zero(&id);
}

static void test_names(void **state)
{
	assert_string_equal(enav_container_runtime_name(ENAV_RUNTIME_NONE), "none");
	assert_string_equal(enav_container_runtime_name(ENAV_RUNTIME_CONTAINERD), "containerd");
	assert_string_equal(enav_container_runtime_name(ENAV_RUNTIME_CRIO), "cri-o");
	assert_string_equal(enav_container_runtime_name(ENAV_RUNTIME_DOCKER), "docker");
	assert_string_equal(enav_container_runtime_name(ENAV_RUNTIME_PODMAN), "podman");
	assert_string_equal(enav_container_runtime_name(ENAV_RUNTIME_UNKNOWN), "unknown");
	assert_string_equal(enav_container_runtime_name((enum enav_container_runtime)99),
			    "invalid");
	assert_string_equal(enav_pod_qos_name(ENAV_QOS_NONE), "none");
	assert_string_equal(enav_pod_qos_name(ENAV_QOS_GUARANTEED), "guaranteed");
	assert_string_equal(enav_pod_qos_name(ENAV_QOS_BURSTABLE), "burstable");
	assert_string_equal(enav_pod_qos_name(ENAV_QOS_BESTEFFORT), "besteffort");
	assert_string_equal(enav_pod_qos_name((enum enav_pod_qos)99), "invalid");
}

#define NCASES (sizeof(cases) / sizeof(cases[0]))

int main(void)
{
	static const struct CMUnitTest fixed[] = {
	    cmocka_unit_test(test_nul_inside), cmocka_unit_test(test_not_nul_terminated),
	    cmocka_unit_test(test_long_paths), cmocka_unit_test(test_unit_too_long),
	    cmocka_unit_test(test_null_path),  cmocka_unit_test(test_names),
	};
	const size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	struct CMUnitTest tests[NCASES + sizeof(fixed) / sizeof(fixed[0])];

	/* One named cmocka test per table row. */
	for (size_t i = 0; i < NCASES; i++)
		tests[i] = (struct CMUnitTest){.name = cases[i].name,
					       .test_func = run_case,
					       .initial_state = (void *)&cases[i]};
	for (size_t i = 0; i < nfixed; i++)
		tests[NCASES + i] = fixed[i];
	return _cmocka_run_group_tests("cgroup_path", tests, NCASES + nfixed, NULL, NULL);
}
