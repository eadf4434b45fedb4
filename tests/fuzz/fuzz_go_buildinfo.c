/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the Go build information reader (src/features/profiling/
 * go_buildinfo.c, go_modinfo.c).  The first input byte chooses:
 *  - even: the rest is modinfo text for enav_go_buildinfo_parse_modinfo (in
 *    its own allocation of exactly its size, so ASan flags any over-read);
 *  - odd: the rest is a file, written to a memfd and read with
 *    enav_go_buildinfo_read_fd.
 * A result must hold its invariants (strings present, bounded, caps
 * respected, replacements consistent), print, and be deterministic; a
 * parsed modinfo must survive a round trip through its own serialization.
 * A failure must give a one-line reason and a zeroed result.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "golang/go_buildinfo.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static bool no_byte(const char *s, const char *set)
{
	return s && strpbrk(s, set) == NULL;
}

static void check_module(const struct enav_go_module *m)
{
	CHECK(no_byte(m->path, "\t\n"));
	CHECK(no_byte(m->version, "\t\n"));
	CHECK(no_byte(m->sum, "\t\n"));
	if (m->replaced) {
		CHECK(no_byte(m->replace_path, "\t\n"));
		CHECK(no_byte(m->replace_version, "\t\n"));
		CHECK(no_byte(m->replace_sum, "\t\n"));
	} else {
		CHECK(!m->replace_path && !m->replace_version && !m->replace_sum);
	}
}

static void check_info(const struct enav_go_buildinfo *b)
{
	CHECK(b->go_version && strlen(b->go_version) <= ENAV_GO_BUILDINFO_MAX_VERSION);
	for (const char *p = b->go_version; *p; p++)
		CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
	CHECK(no_byte(b->path, "\n"));
	check_module(&b->main);
	CHECK(b->n_deps <= ENAV_GO_BUILDINFO_MAX_DEPS);
	CHECK(b->n_deps == 0 || b->deps);
	for (size_t i = 0; i < b->n_deps; i++)
		check_module(&b->deps[i]);
	CHECK(b->n_settings <= ENAV_GO_BUILDINFO_MAX_SETTINGS);
	for (size_t i = 0; i < b->n_settings; i++) {
		const struct enav_go_build_setting *s = &b->settings[i];

		CHECK(s->key && s->value && s->raw);
		CHECK(no_byte(s->raw, "\n"));
		CHECK(strlen(s->raw) <= ENAV_GO_BUILDINFO_MAX_LINE);
		CHECK(strchr(s->raw, '=') != NULL);
	}

	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	CHECK(f != NULL);
	enav_go_buildinfo_print(f, "bin", b);
	CHECK(fclose(f) == 0);
	CHECK(n >= 5 && !memcmp(out, "bin: ", 5) && out[n - 1] == '\n');
	free(out);
}

static void check_failure(int rc, const struct enav_go_buildinfo *b, const char *err)
{
	static const struct enav_go_buildinfo zero;

	CHECK(rc < 0);
	CHECK(memcmp(b, &zero, sizeof(zero)) == 0);
	CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool same_module(const struct enav_go_module *a, const struct enav_go_module *b)
{
	return same_str(a->path, b->path) && same_str(a->version, b->version) &&
	       same_str(a->sum, b->sum) && a->replaced == b->replaced &&
	       same_str(a->replace_path, b->replace_path) &&
	       same_str(a->replace_version, b->replace_version) &&
	       same_str(a->replace_sum, b->replace_sum);
}

static bool same_info(const struct enav_go_buildinfo *a, const struct enav_go_buildinfo *b)
{
	if (!same_str(a->go_version, b->go_version) || !same_str(a->path, b->path) ||
	    a->has_main != b->has_main || !same_module(&a->main, &b->main) ||
	    a->n_deps != b->n_deps || a->n_settings != b->n_settings)
		return false;
	for (size_t i = 0; i < a->n_deps; i++)
		if (!same_module(&a->deps[i], &b->deps[i]))
			return false;
	for (size_t i = 0; i < a->n_settings; i++)
		if (!same_str(a->settings[i].key, b->settings[i].key) ||
		    !same_str(a->settings[i].value, b->settings[i].value) ||
		    !same_str(a->settings[i].raw, b->settings[i].raw))
			return false;
	return true;
}

static void put_module(FILE *f, const char *word, const struct enav_go_module *m)
{
	/* CRLF: the parser strips one CR, so a field ending in CR survives. */
	fprintf(f, "%s\t%s\t%s\t%s\r\n", word, m->path, m->version, m->sum);
	if (m->replaced)
		fprintf(f, "=>\t%s\t%s\t%s\r\n", m->replace_path, m->replace_version,
			m->replace_sum);
}

/* The modinfo text of b, parsed again, must give b. */
static void check_round_trip(const struct enav_go_buildinfo *b)
{
	char *text = NULL, err[256] = "";
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	struct enav_go_buildinfo again;

	CHECK(f != NULL);
	if (b->path[0])
		fprintf(f, "path\t%s\r\n", b->path);
	if (b->has_main)
		put_module(f, "mod", &b->main);
	for (size_t i = 0; i < b->n_deps; i++)
		put_module(f, "dep", &b->deps[i]);
	for (size_t i = 0; i < b->n_settings; i++)
		fprintf(f, "build\t%s\r\n", b->settings[i].raw);
	CHECK(fclose(f) == 0);
	int rc = enav_go_buildinfo_parse_modinfo(text, n, &again, err, sizeof(err));
	CHECK(rc == 0);
	CHECK(same_info(b, &again));
	enav_go_buildinfo_free(&again);
	free(text);
}

static int g_memfd = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct enav_go_buildinfo b, b2;
	char err[256], err2[256];
	int rc, rc2;

	if (size < 1)
		return 0;
	bool file = data[0] & 1;
	data++;
	size--;

	if (!file) {
		char *copy = malloc(size ? size : 1);

		CHECK(copy != NULL);
		memcpy(copy, data, size);
		err[0] = '\0';
		rc = enav_go_buildinfo_parse_modinfo(copy, size, &b, err, sizeof(err));
		if (rc == 0) {
			check_info(&b);
			CHECK(b.go_version[0] == '\0');
			/* Serialized lines may grow by a few bytes (empty
			 * fields): stay clear of the line cap. */
			if (size < ENAV_GO_BUILDINFO_MAX_LINE / 2)
				check_round_trip(&b);
			enav_go_buildinfo_free(&b);
		} else {
			check_failure(rc, &b, err);
			CHECK(rc == -EINVAL || rc == -ENOMEM);
		}
		free(copy);
		return 0;
	}

	if (g_memfd < 0) {
		g_memfd = memfd_create("fuzz-go-buildinfo", MFD_CLOEXEC);
		CHECK(g_memfd >= 0);
	}
	CHECK(ftruncate(g_memfd, 0) == 0);
	CHECK(pwrite(g_memfd, data, size, 0) == (ssize_t)size);
	err[0] = err2[0] = '\0';
	rc = enav_go_buildinfo_read_fd(g_memfd, &b, err, sizeof(err));
	rc2 = enav_go_buildinfo_read_fd(g_memfd, &b2, err2, sizeof(err2));
	CHECK(rc == rc2);
	if (rc == 0) {
		check_info(&b);
		CHECK(same_info(&b, &b2));
		enav_go_buildinfo_free(&b);
		enav_go_buildinfo_free(&b2);
	} else {
		check_failure(rc, &b, err);
		check_failure(rc2, &b2, err2);
		CHECK(!strcmp(err, err2));
		CHECK(rc == -EINVAL || rc == -ENOENT || rc == -ENOMEM);
		if (rc == -ENOENT)
			CHECK(!strcmp(err, "no Go build information"));
	}
	return 0;
}
