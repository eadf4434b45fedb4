/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the NDJSON encoder (enav_ndjson_encode in src/exporters/ndjson/ndjson.c)
 * and the signal object (src/model/signal.c).  Every line is re-parsed with
 * jansson and checked field by field against docs/signals.md, including the
 * exact set of keys in each object.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/signal.h"
#include "exporters/ndjson/ndjson.h"

#define FFFD	   "\xef\xbf\xbd"
#define LINE_CAP   65536
#define CID	   "9f2b6c1e4a8d3f70b5e2c9a14d6f8b03e7c5a2d9f1b4e6c8a0d3f5b7e9c1a2d4"
#define POD_UID	   "0c9d2f4e-7a61-4b3c-9e25-d8f1a6b40c37"
#define T_SIGNAL   1796020143537700786ull /* above 2^53, below 2^63 (jansson's limit) */
#define T_START	   1796020143528088780ull
#define CGROUP_215 215u

static char g_line[LINE_CAP];
static uint64_t g_live_at_start;

static int setup(void **state)
{
	g_live_at_start = enav_signal_live_count();
	return 0;
}

/* Every test releases what it allocates. */
static int teardown(void **state)
{
	assert_int_equal(enav_signal_live_count(), g_live_at_start);
	return 0;
}

static struct enav_signal *make_exec(const char *argv, uint32_t argv_len)
{
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_PROCESS_EXEC, argv_len);
	struct enav_process_signal *p;

	assert_non_null(s);
	p = &s->process;
	s->time_unix_ns = T_SIGNAL;
	p->pid = 1651;
	p->tid = 1651;
	p->ppid = 1640;
	p->uid = 1000;
	p->gid = 1001;
	p->has_creds = true;
	strcpy(p->comm, "exit_with");
	p->start_time_unix_ns = T_START;
	p->start_boot_ns = 999; /* never serialized */
	p->has_filename = true;
	p->filename = "./bin/tool";
	p->filename_truncated = false;
	p->exe = "/work/bin/tool";
	p->has_exe = true;
	p->cgroup_id = CGROUP_215;
	p->has_cgroup_path = true;
	p->cgroup_path = "/user.slice/session-3.scope";
	if (argv_len)
		p->argv = memcpy(enav_signal_tail(s), argv, argv_len);
	p->argv_len = argv_len;
	p->has_argv = true;
	return s;
}

static struct enav_signal *make_exit(void)
{
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_PROCESS_EXIT, 0);
	struct enav_process_signal *p;

	assert_non_null(s);
	p = &s->process;
	s->time_unix_ns = T_SIGNAL + 1000;
	p->pid = 1651;
	p->tid = 1653;
	p->ppid = 1;
	strcpy(p->comm, "worker");
	p->start_time_unix_ns = T_START;
	p->has_exit = true;
	p->exit_code = 7;
	p->lifetime_ns = 210344677;
	p->cgroup_id = 1;
	p->has_cgroup_path = true;
	p->cgroup_path = "/";
	return s;
}

/* Encode into g_line and parse; the test fails when the line is not valid JSON. */
static json_t *encode_parse(const struct enav_signal *s)
{
	json_error_t err;
	long n = enav_ndjson_encode(s, g_line, sizeof(g_line));

	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(g_line));
	assert_null(memchr(g_line, '\n', (size_t)n)); /* one line: no raw newline */
	json_t *root = json_loads(g_line, JSON_REJECT_DUPLICATES, &err);
	if (!root)
		fail_msg("jansson rejected %s: %s at %d", g_line, err.text, err.position);
	assert_true(json_is_object(root));
	return root;
}

/* The object has exactly these keys (NULL-terminated list), no others. */
static void expect_keys(json_t *obj, const char *const *keys)
{
	size_t n = 0;

	assert_true(json_is_object(obj));
	for (; keys[n]; n++)
		if (!json_object_get(obj, keys[n]))
			fail_msg("missing key \"%s\" in %s", keys[n], g_line);
	if (json_object_size(obj) != n) {
		const char *k;
		json_t *v;

		json_object_foreach(obj, k, v)
		{
			size_t i = 0;

			while (keys[i] && strcmp(keys[i], k) != 0)
				i++;
			if (!keys[i])
				fail_msg("unexpected key \"%s\" in %s", k, g_line);
		}
	}
}

static void expect_int(json_t *obj, const char *key, json_int_t want)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v))
		fail_msg("\"%s\" is not an integer in %s", key, g_line);
	assert_int_equal(json_integer_value(v), want);
}

static void expect_str(json_t *obj, const char *key, const char *want)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_string(v))
		fail_msg("\"%s\" is not a string in %s", key, g_line);
	assert_int_equal(json_string_length(v), strlen(want));
	assert_string_equal(json_string_value(v), want);
}

static void expect_bool(json_t *obj, const char *key, bool want)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_boolean(v))
		fail_msg("\"%s\" is not a boolean in %s", key, g_line);
	assert_int_equal(json_is_true(v), want);
}

static void expect_envelope(json_t *root, const char *kind, uint64_t t)
{
	expect_int(root, "schema_version", 1);
	expect_str(root, "kind", kind);
	expect_str(root, "evidence", "observed");
	expect_int(root, "time_unix_nano", (json_int_t)t);
}

static void test_exec_all_fields(void **state)
{
	static const char argv[] = "/work/bin/tool\0-v\0--mode\0batch";
	struct enav_signal *s = make_exec(argv, sizeof(argv)); /* includes final NUL */

	s->process.argv_truncated = false;
	json_t *root = encode_parse(s);

	expect_keys(root, (const char *const[]){"schema_version", "kind", "evidence",
						"time_unix_nano", "process", "cgroup", NULL});
	expect_envelope(root, "process.exec", T_SIGNAL);

	json_t *p = json_object_get(root, "process");
	expect_keys(p,
		    (const char *const[]){"pid", "tid", "ppid", "uid", "gid", "comm",
					  "start_time_unix_nano", "filename", "filename_truncated",
					  "exe", "argv", "argv_truncated", NULL});
	expect_int(p, "pid", 1651);
	expect_int(p, "tid", 1651);
	expect_int(p, "ppid", 1640);
	expect_int(p, "uid", 1000);
	expect_int(p, "gid", 1001);
	expect_str(p, "comm", "exit_with");
	expect_int(p, "start_time_unix_nano", (json_int_t)T_START);
	expect_str(p, "filename", "./bin/tool");
	expect_bool(p, "filename_truncated", false);
	expect_str(p, "exe", "/work/bin/tool");
	expect_bool(p, "argv_truncated", false);

	json_t *a = json_object_get(p, "argv");
	assert_true(json_is_array(a));
	assert_int_equal(json_array_size(a), 4);
	assert_string_equal(json_string_value(json_array_get(a, 0)), "/work/bin/tool");
	assert_string_equal(json_string_value(json_array_get(a, 1)), "-v");
	assert_string_equal(json_string_value(json_array_get(a, 2)), "--mode");
	assert_string_equal(json_string_value(json_array_get(a, 3)), "batch");

	json_t *cg = json_object_get(root, "cgroup");
	expect_keys(cg, (const char *const[]){"id", "path", NULL});
	expect_int(cg, "id", CGROUP_215);
	expect_str(cg, "path", "/user.slice/session-3.scope");

	json_decref(root);
	enav_signal_unref(s);
}

static void test_exec_optional_fields_absent(void **state)
{
	struct enav_signal *s = make_exec(NULL, 0);
	struct enav_process_signal *p = &s->process;

	p->has_exe = false;
	p->has_argv = false;
	p->argv_truncated = true; /* ignored without argv */
	p->has_cgroup_path = false;
	p->has_filename = false; /* the kernel could not read it: absent, not "" */
	json_t *root = encode_parse(s);

	expect_keys(root, (const char *const[]){"schema_version", "kind", "evidence",
						"time_unix_nano", "process", "cgroup", NULL});
	json_t *jp = json_object_get(root, "process");
	expect_keys(jp, (const char *const[]){"pid", "tid", "ppid", "uid", "gid", "comm",
					      "start_time_unix_nano", NULL});
	expect_keys(json_object_get(root, "cgroup"), (const char *const[]){"id", NULL});
	json_decref(root);
	enav_signal_unref(s);
}

/* argv bytes -> expected array (elements separated by '|' in want, NULL = []). */
static void check_argv(const char *bytes, uint32_t len, bool truncated, const char *const *want,
		       size_t n_want)
{
	struct enav_signal *s = make_exec(bytes, len);

	s->process.argv_truncated = truncated;
	json_t *root = encode_parse(s);
	json_t *p = json_object_get(root, "process");
	json_t *a = json_object_get(p, "argv");

	assert_true(json_is_array(a));
	if (json_array_size(a) != n_want)
		fail_msg("argv of %u bytes: %zu elements, want %zu: %s", len, json_array_size(a),
			 n_want, g_line);
	for (size_t i = 0; i < n_want; i++) {
		json_t *e = json_array_get(a, i);

		assert_true(json_is_string(e));
		assert_int_equal(json_string_length(e), strlen(want[i]));
		assert_string_equal(json_string_value(e), want[i]);
	}
	expect_bool(p, "argv_truncated", truncated);
	json_decref(root);
	enav_signal_unref(s);
}

static void test_argv_splitting(void **state)
{
	check_argv("a\0bb\0ccc", 9, false, (const char *const[]){"a", "bb", "ccc"}, 3);
	/* Cut last argument (no final NUL) is kept as a partial string. */
	check_argv("a\0bb\0cc", 7, true, (const char *const[]){"a", "bb", "cc"}, 3);
	check_argv("abc", 3, true, (const char *const[]){"abc"}, 1);
	/* Empty arguments are preserved. */
	check_argv("a\0\0b", 5, false, (const char *const[]){"a", "", "b"}, 3);
	check_argv("\0\0", 2, false, (const char *const[]){"", ""}, 2);
	check_argv("\0", 1, false, (const char *const[]){""}, 1);
	check_argv("\0x", 2, true, (const char *const[]){"", "x"}, 2);
	/* Nothing read (argv_len 0 but readable): an empty array. */
	check_argv("", 0, false, NULL, 0);
}

static void test_argv_maximal(void **state)
{
	char *bytes = malloc(ENAV_ARGV_MAX);
	char *first = malloc(ENAV_ARGV_MAX);

	assert_non_null(bytes);
	assert_non_null(first);
	/* One 4095-byte argument and its NUL. */
	memset(bytes, 'x', ENAV_ARGV_MAX - 1);
	bytes[ENAV_ARGV_MAX - 1] = '\0';
	memcpy(first, bytes, ENAV_ARGV_MAX);
	check_argv(bytes, ENAV_ARGV_MAX, false, (const char *const[]){first}, 1);
	/* 2048 empty arguments. */
	memset(bytes, 0, ENAV_ARGV_MAX);
	const char **many = calloc(ENAV_ARGV_MAX, sizeof(*many));
	assert_non_null(many);
	for (size_t i = 0; i < ENAV_ARGV_MAX; i++)
		many[i] = "";
	check_argv(bytes, ENAV_ARGV_MAX, true, many, ENAV_ARGV_MAX);
	free(many);
	free(first);
	free(bytes);
}

static void test_exit_normal(void **state)
{
	struct enav_signal *s = make_exit();
	json_t *root = encode_parse(s);

	expect_keys(root,
		    (const char *const[]){"schema_version", "kind", "evidence", "time_unix_nano",
					  "process", "exit", "cgroup", NULL});
	expect_envelope(root, "process.exit", T_SIGNAL + 1000);
	json_t *p = json_object_get(root, "process");
	/* No creds, filename or argv on exits; exe only when set. */
	expect_keys(
	    p, (const char *const[]){"pid", "tid", "ppid", "comm", "start_time_unix_nano", NULL});
	expect_int(p, "pid", 1651);
	expect_int(p, "tid", 1653);
	expect_int(p, "ppid", 1);
	expect_str(p, "comm", "worker");
	json_t *e = json_object_get(root, "exit");
	expect_keys(e, (const char *const[]){"code", "lifetime_ns", NULL});
	expect_int(e, "code", 7);
	expect_int(e, "lifetime_ns", 210344677);
	expect_str(json_object_get(root, "cgroup"), "path", "/");
	json_decref(root);

	/* Code 0 is present, not omitted; exe carried over when known. */
	s->process.exit_code = 0;
	s->process.has_exe = true;
	s->process.exe = "/bin/sh";
	root = encode_parse(s);
	p = json_object_get(root, "process");
	expect_keys(p, (const char *const[]){"pid", "tid", "ppid", "comm", "start_time_unix_nano",
					     "exe", NULL});
	expect_str(p, "exe", "/bin/sh");
	e = json_object_get(root, "exit");
	expect_keys(e, (const char *const[]){"code", "lifetime_ns", NULL});
	expect_int(e, "code", 0);
	json_decref(root);

	s->process.exit_code = 255;
	root = encode_parse(s);
	expect_int(json_object_get(root, "exit"), "code", 255);
	json_decref(root);
	enav_signal_unref(s);
}

static void test_exit_signaled(void **state)
{
	struct enav_signal *s = make_exit();

	s->process.exit_signal = 9;
	s->process.exit_code = 137; /* not valid when signaled: must not appear */
	s->process.core_dumped = false;
	json_t *root = encode_parse(s);
	json_t *e = json_object_get(root, "exit");
	expect_keys(e, (const char *const[]){"signal", "core_dumped", "lifetime_ns", NULL});
	expect_int(e, "signal", 9);
	expect_bool(e, "core_dumped", false);
	expect_int(e, "lifetime_ns", 210344677);
	json_decref(root);

	s->process.exit_signal = 11;
	s->process.core_dumped = true;
	root = encode_parse(s);
	e = json_object_get(root, "exit");
	expect_keys(e, (const char *const[]){"signal", "core_dumped", "lifetime_ns", NULL});
	expect_int(e, "signal", 11);
	expect_bool(e, "core_dumped", true);
	json_decref(root);

	/* Without has_exit there is no exit object at all. */
	s->process.has_exit = false;
	root = encode_parse(s);
	assert_null(json_object_get(root, "exit"));
	json_decref(root);
	enav_signal_unref(s);
}

static void test_identity_objects(void **state)
{
	struct enav_signal *s = make_exec("x", 2);
	static struct enav_cgroup_identity identity;
	struct enav_cgroup_identity *id = &identity;
	s->process.identity = id;

	/* No identity: none of the three keys. */
	json_t *root = encode_parse(s);
	assert_null(json_object_get(root, "container"));
	assert_null(json_object_get(root, "k8s"));
	assert_null(json_object_get(root, "systemd_unit"));
	json_decref(root);

	/* Enum values without their ids prove nothing: still absent. */
	id->runtime = ENAV_RUNTIME_DOCKER;
	id->qos = ENAV_QOS_BURSTABLE;
	root = encode_parse(s);
	assert_null(json_object_get(root, "container"));
	assert_null(json_object_get(root, "k8s"));
	json_decref(root);

	/* Container only. */
	strcpy(id->container_id, CID);
	id->runtime = ENAV_RUNTIME_CONTAINERD;
	root = encode_parse(s);
	json_t *c = json_object_get(root, "container");
	expect_keys(c, (const char *const[]){"id", "runtime", NULL});
	expect_str(c, "id", CID);
	expect_str(c, "runtime", "containerd");
	assert_null(json_object_get(root, "k8s"));
	json_decref(root);

	/* Container in a pod. */
	strcpy(id->pod_uid, POD_UID);
	root = encode_parse(s);
	expect_keys(root,
		    (const char *const[]){"schema_version", "kind", "evidence", "time_unix_nano",
					  "process", "cgroup", "container", "k8s", NULL});
	json_t *k = json_object_get(root, "k8s");
	expect_keys(k, (const char *const[]){"pod_uid", "qos_class", NULL});
	expect_str(k, "pod_uid", POD_UID);
	expect_str(k, "qos_class", "burstable");
	json_decref(root);

	/* Every runtime and QoS name. */
	static const struct {
		enum enav_container_runtime r;
		const char *name;
	} rts[] = {{ENAV_RUNTIME_CONTAINERD, "containerd"},
		   {ENAV_RUNTIME_CRIO, "cri-o"},
		   {ENAV_RUNTIME_DOCKER, "docker"},
		   {ENAV_RUNTIME_PODMAN, "podman"},
		   {ENAV_RUNTIME_UNKNOWN, "unknown"}};
	static const struct {
		enum enav_pod_qos q;
		const char *name;
	} qs[] = {{ENAV_QOS_GUARANTEED, "guaranteed"},
		  {ENAV_QOS_BURSTABLE, "burstable"},
		  {ENAV_QOS_BESTEFFORT, "besteffort"}};
	for (size_t i = 0; i < 5; i++) {
		id->runtime = rts[i].r;
		id->qos = qs[i % 3].q;
		root = encode_parse(s);
		expect_str(json_object_get(root, "container"), "runtime", rts[i].name);
		expect_str(json_object_get(root, "k8s"), "qos_class", qs[i % 3].name);
		json_decref(root);
	}

	/* Pod only (e.g. the pod's own cgroup). */
	id->container_id[0] = '\0';
	root = encode_parse(s);
	assert_null(json_object_get(root, "container"));
	assert_non_null(json_object_get(root, "k8s"));
	json_decref(root);

	/* systemd unit only. */
	memset(id, 0, sizeof(*id));
	strcpy(id->systemd_unit, "nginx.service");
	root = encode_parse(s);
	expect_str(root, "systemd_unit", "nginx.service");
	assert_null(json_object_get(root, "container"));
	assert_null(json_object_get(root, "k8s"));
	json_decref(root);
	enav_signal_unref(s);
}

static void test_warnings(void **state)
{
	struct enav_signal *s = make_exit();

	json_t *root = encode_parse(s);
	assert_null(json_object_get(root, "warnings"));
	json_decref(root);

	enav_signal_warn(s, "exe", "exec_not_observed");
	enav_signal_warn(s, "cgroup_path", "cgroup_removed_before_resolution");
	assert_int_equal(s->n_warnings, 2);
	root = encode_parse(s);
	json_t *w = json_object_get(root, "warnings");
	assert_true(json_is_array(w));
	assert_int_equal(json_array_size(w), 2);
	expect_keys(json_array_get(w, 0), (const char *const[]){"field", "reason", NULL});
	expect_str(json_array_get(w, 0), "field", "exe");
	expect_str(json_array_get(w, 0), "reason", "exec_not_observed");
	expect_str(json_array_get(w, 1), "field", "cgroup_path");
	expect_str(json_array_get(w, 1), "reason", "cgroup_removed_before_resolution");
	json_decref(root);

	/* Bounded: the 5th and later warnings are dropped silently. */
	enav_signal_warn(s, "f3", "r3");
	enav_signal_warn(s, "f4", "r4");
	enav_signal_warn(s, "f5", "r5");
	enav_signal_warn(s, "f6", "r6");
	assert_int_equal(s->n_warnings, ENAV_SIGNAL_MAX_WARNINGS);
	root = encode_parse(s);
	w = json_object_get(root, "warnings");
	assert_int_equal(json_array_size(w), 4);
	expect_str(json_array_get(w, 2), "field", "f3");
	expect_str(json_array_get(w, 3), "field", "f4");
	expect_str(json_array_get(w, 3), "reason", "r4");
	json_decref(root);
	enav_signal_unref(s);
}

static void test_hostile_bytes(void **state)
{
	/* argv: a quote-and-backslash argument, control bytes, invalid UTF-8, cut tail. */
	static const char argv[] = "\"q\\\"\0\x01\x1f\x7f\n\0\xff\xfe\0\xc3\xa9\xc3\0\xed\xa0\x80";
	struct enav_signal *s = make_exec(argv, sizeof(argv) - 1);
	struct enav_process_signal *p = &s->process;

	memcpy(p->comm,
	       "\"}\\\x01\xff\xc3(\t\r\b\f\x7f"
	       "abcd",
	       16);
	p->comm[16] = '\0';
	static struct enav_cgroup_identity identity = {.systemd_unit = "x\x01y.service"};
	p->exe = "/tmp/\x1b[31mred\",\"x\":\"";
	p->filename = "\xf0\x9f\x98\x80 ok \xf4\x90\x80\x80";
	p->cgroup_path = "/a\"b\\c\n";
	p->identity = &identity;

	json_t *root = encode_parse(s);
	json_t *jp = json_object_get(root, "process");
	expect_str(jp, "comm",
		   "\"}\\\x01" FFFD FFFD "(\t\r\b\f\x7f"
		   "abcd");
	expect_str(jp, "exe", "/tmp/\x1b[31mred\",\"x\":\"");
	expect_str(jp, "filename", "\xf0\x9f\x98\x80 ok " FFFD FFFD FFFD FFFD);
	expect_str(json_object_get(root, "cgroup"), "path", "/a\"b\\c\n");
	expect_str(root, "systemd_unit", "x\x01y.service");
	/* The injected "x" key did not become a key. */
	assert_null(json_object_get(jp, "x"));

	json_t *a = json_object_get(jp, "argv");
	assert_int_equal(json_array_size(a), 5);
	assert_string_equal(json_string_value(json_array_get(a, 0)), "\"q\\\"");
	assert_string_equal(json_string_value(json_array_get(a, 1)), "\x01\x1f\x7f\n");
	assert_string_equal(json_string_value(json_array_get(a, 2)), FFFD FFFD);
	assert_string_equal(json_string_value(json_array_get(a, 3)), "\xc3\xa9" FFFD);
	/* a surrogate encoding: three bad bytes */
	assert_string_equal(json_string_value(json_array_get(a, 4)), FFFD FFFD FFFD);
	json_decref(root);

	/* Raw control bytes never appear on the line. */
	for (const char *c = g_line; *c; c++)
		assert_true((unsigned char)*c >= 0x20);
	enav_signal_unref(s);
}

static void test_u64_extremes(void **state)
{
	struct enav_signal *s = make_exit();

	s->time_unix_ns = 0;
	s->process.pid = UINT32_MAX;
	s->process.cgroup_id = UINT64_MAX;
	s->process.lifetime_ns = UINT64_MAX;
	s->process.start_time_unix_ns = (uint64_t)INT64_MAX;
	long n = enav_ndjson_encode(s, g_line, sizeof(g_line));
	assert_true(n > 0);
	/* jansson cannot hold u64 above INT64_MAX: check the digits in the text. */
	assert_non_null(strstr(g_line, "\"cgroup\":{\"id\":18446744073709551615,"));
	assert_non_null(strstr(g_line, "\"lifetime_ns\":18446744073709551615}"));
	assert_non_null(strstr(g_line, "\"pid\":4294967295,"));
	assert_non_null(strstr(g_line, "\"time_unix_nano\":0,"));
	assert_non_null(strstr(g_line, "\"start_time_unix_nano\":9223372036854775807"));
	enav_signal_unref(s);
}

static void test_buffer_too_small(void **state)
{
	static const char argv[] = "prog\0arg";
	struct enav_signal *s = make_exec(argv, sizeof(argv));
	long full = enav_ndjson_encode(s, g_line, sizeof(g_line));
	char *ref = strdup(g_line);
	const size_t slack = 16;
	char *mem = malloc((size_t)full + 1 + slack);

	assert_true(full > 100);
	assert_non_null(ref);
	assert_non_null(mem);
	/* Exact room (text + NUL) succeeds; every smaller cap fails with -1. */
	for (size_t cap = 0; cap <= (size_t)full + 1; cap++) {
		memset(mem, 0x5a, (size_t)full + 1 + slack);
		long n = enav_ndjson_encode(s, mem, cap);

		if (cap == (size_t)full + 1) {
			assert_int_equal(n, full);
			assert_string_equal(mem, ref);
		} else {
			assert_int_equal(n, -1);
		}
		for (size_t k = cap; k < (size_t)full + 1 + slack; k++)
			if ((unsigned char)mem[k] != 0x5a)
				fail_msg("cap %zu: byte %zu written past cap", cap, k);
	}
	free(mem);
	free(ref);
	enav_signal_unref(s);
}

static void test_refcount_and_live_count(void **state)
{
	uint64_t start = enav_signal_live_count();
	struct enav_signal *a = enav_signal_new(ENAV_SIGNAL_PROCESS_EXEC, 16);
	struct enav_signal *b = enav_signal_new(ENAV_SIGNAL_PROCESS_EXIT, 0);

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(enav_signal_live_count(), start + 2);
	assert_int_equal(atomic_load(&a->refs), 1);
	assert_int_equal(a->kind, ENAV_SIGNAL_PROCESS_EXEC);
	assert_int_equal(b->kind, ENAV_SIGNAL_PROCESS_EXIT);
	/* The header zeroed, absent strings "", the tail there (not zeroed). */
	assert_int_equal(a->n_warnings, 0);
	assert_false(a->process.has_argv);
	assert_string_equal(a->process.exe, "");
	assert_string_equal(a->process.cgroup_path, "");
	assert_int_equal(a->process.identity->container_id[0], 0);
	memset(enav_signal_tail(a), 0xa5, 16);

	enav_signal_ref(a);
	enav_signal_ref(a);
	assert_int_equal(atomic_load(&a->refs), 3);
	enav_signal_unref(a);
	enav_signal_unref(a);
	assert_int_equal(enav_signal_live_count(), start + 2);
	assert_int_equal(atomic_load(&a->refs), 1);
	enav_signal_unref(a); /* last reference: freed */
	assert_int_equal(enav_signal_live_count(), start + 1);
	enav_signal_unref(b);
	assert_int_equal(enav_signal_live_count(), start);
	enav_signal_unref(NULL); /* harmless */
	assert_int_equal(enav_signal_live_count(), start);
}

/* A line counts as written when a flush delivers it, not when fwrite copies
 * it into stdio's buffer: the lines a failed flush loses are write errors. */
static void test_output_counts_at_flush(void **state)
{
	static const char line[] = "{\"kind\":\"x\"}\n";
	struct enav_ndjson_out o = {.f = tmpfile()};

	assert_non_null(o.f);
	enav_ndjson_out_line(&o, line, sizeof(line) - 1);
	enav_ndjson_out_line(&o, line, sizeof(line) - 1);
	assert_int_equal(atomic_load(&o.written), 0); /* buffered, not delivered */
	enav_ndjson_out_flush(&o);
	assert_int_equal(atomic_load(&o.written), 2);
	assert_int_equal(atomic_load(&o.write_errors), 0);
	assert_int_equal(ftell(o.f), 2 * (long)(sizeof(line) - 1));
	fclose(o.f);

	/* Every write to /dev/full fails (ENOSPC), but only at the flush. */
	o = (struct enav_ndjson_out){.f = fopen("/dev/full", "we")};
	if (!o.f)
		skip();
	setvbuf(o.f, NULL, _IOFBF, 1 << 16);
	for (int i = 0; i < 3; i++)
		enav_ndjson_out_line(&o, line, sizeof(line) - 1);
	enav_ndjson_out_flush(&o);
	assert_int_equal(atomic_load(&o.written), 0);
	assert_int_equal(atomic_load(&o.write_errors), 3);
	/* What the failed flush lost is not delivered (nor counted) again. */
	enav_ndjson_out_line(&o, line, sizeof(line) - 1);
	enav_ndjson_out_flush(&o);
	assert_int_equal(atomic_load(&o.written), 0);
	assert_int_equal(atomic_load(&o.write_errors), 4);
	fclose(o.f);
}

/* What leaves the node: a span's path without the e-mail address or the
 * token in it (the query is already gone unless keep_query), and a command
 * line without the password (redacted at the exec source: argv_redact.c). */
static void test_span_path_redacted(void **state)
{
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_SPAN, 0);
	assert_non_null(s);
	s->time_unix_ns = T_SIGNAL;
	s->span.op.protocol = ENAV_L7_HTTP1;
	snprintf(s->span.op.operation, sizeof(s->span.op.operation), "GET");
	snprintf(s->span.op.target, sizeof(s->span.op.target), "/users/{id}/reset/{id}");
	snprintf(s->span.op.path, sizeof(s->span.op.path),
		 "/users/alice@example.com/reset/Zm9vYmFyMTIzNDU2Nzg5MA42");
	json_t *root = encode_parse(s);
	json_t *span = json_object_get(root, "span");
	expect_str(span, "path", "/users/{id}/reset/{id}");
	assert_null(strstr(g_line, "alice"));
	assert_null(strstr(g_line, "Zm9v"));
	json_decref(root);
	enav_signal_unref(s);
}

static void test_kind_names(void **state)
{
	assert_string_equal(enav_signal_kind_name(ENAV_SIGNAL_PROCESS_EXEC), "process.exec");
	assert_string_equal(enav_signal_kind_name(ENAV_SIGNAL_PROCESS_EXIT), "process.exit");
	assert_string_equal(enav_signal_kind_name((enum enav_signal_kind)99), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_exec_all_fields, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_optional_fields_absent, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_argv_splitting, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_argv_maximal, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exit_normal, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exit_signaled, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_identity_objects, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_warnings, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hostile_bytes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_u64_extremes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_buffer_too_small, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refcount_and_live_count, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_span_path_redacted, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kind_names, setup, teardown),
	    cmocka_unit_test(test_output_counts_at_flush),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
