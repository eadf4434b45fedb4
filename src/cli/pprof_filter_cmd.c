/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `enav pprof-filter`: run the symbol filter on a pprof file, with the
 * operator's code read from a Go binary's build info (processors/
 * pprof_filter.h).  Shows offline what leaves the node for a profile.
 */
#include "cli/pprof_filter_cmd.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "golang/go_buildinfo.h"
#include "features/profiling/pprof_filter.h"

#define MAX_INPUT ((size_t)64 << 20)

static void usage(FILE *out)
{
	fprintf(out, "usage: enav pprof-filter (--binary BIN | --no-binary) [--allow PREFIX]...\n"
		     "                         [--keep-labels] IN OUT\n"
		     "Keeps the frames of the operator's own code (BIN's main module and replaced\n"
		     "modules, the allow-list, code without a domain: standard library, main, C,\n"
		     "kernel) and redacts the rest; drops mapping files, build ids, comments,\n"
		     "labels (unless --keep-labels) and source directories.  IN is a pprof (gzip\n"
		     "or not); OUT is written gzip'd.  --no-binary filters with the allow-list\n"
		     "alone.\n");
}

/* The whole file, at most MAX_INPUT bytes. */
static int read_all(const char *path, uint8_t **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = NULL;

	if (!f) {
		fprintf(stderr, "enav: pprof-filter: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (!buf || n == cap) {
			if (buf)
				cap *= 2;
			uint8_t *nb = cap > MAX_INPUT + 1 ? NULL : realloc(buf, cap);

			if (!nb) {
				fprintf(stderr, "enav: pprof-filter: %s: %s\n", path,
					cap > MAX_INPUT + 1 ? "larger than 64 MiB"
							    : "out of memory");
				goto fail;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (got == 0)
			break;
		if (n > MAX_INPUT) {
			fprintf(stderr, "enav: pprof-filter: %s: larger than 64 MiB\n", path);
			goto fail;
		}
	}
	if (ferror(f)) {
		fprintf(stderr, "enav: pprof-filter: %s: read error\n", path);
		goto fail;
	}
	fclose(f);
	*out = buf;
	*len = n;
	return 0;
fail:
	free(buf);
	fclose(f);
	return -1;
}

/* Written next to OUT, then renamed over it: a failure leaves no half file. */
static int write_all(const char *path, const uint8_t *data, size_t len)
{
	size_t pl = strlen(path);
	char *tmp = malloc(pl + 32);
	FILE *f = NULL;

	if (!tmp)
		goto fail;
	snprintf(tmp, pl + 32, "%s.tmp.%ld", path, (long)getpid());
	f = fopen(tmp, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		f = NULL;
		goto fail;
	}
	f = NULL;
	if (rename(tmp, path) != 0)
		goto fail;
	free(tmp);
	return 0;
fail:
	fprintf(stderr, "enav: pprof-filter: cannot write %s: %s\n", path, strerror(errno));
	if (f)
		fclose(f);
	if (tmp)
		unlink(tmp);
	free(tmp);
	return -1;
}

static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (!strcmp(argv[*i], name) && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

int enav_pprof_filter_command(int argc, char **argv)
{
	const char *binary = NULL, *pos[2] = {NULL, NULL}, *v;
	const char **allow = calloc((size_t)argc + 1, sizeof(*allow));
	size_t n_allow = 0, n_pos = 0;
	bool no_binary = false, keep_labels = false;
	int ret = 2;

	if (!allow) {
		fprintf(stderr, "enav: pprof-filter: out of memory\n");
		return 1;
	}
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			free(allow);
			return 0;
		} else if ((v = opt_value(argc, argv, &i, "--binary"))) {
			binary = v;
		} else if ((v = opt_value(argc, argv, &i, "--allow"))) {
			if (v[0])
				allow[n_allow++] = v;
		} else if (!strcmp(argv[i], "--no-binary")) {
			no_binary = true;
		} else if (!strcmp(argv[i], "--keep-labels")) {
			keep_labels = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "enav: pprof-filter: unknown or incomplete option %s\n",
				argv[i]);
			goto usage;
		} else if (n_pos < 2) {
			pos[n_pos++] = argv[i];
		} else {
			fprintf(stderr, "enav: pprof-filter: unexpected argument %s\n", argv[i]);
			goto usage;
		}
	}
	if (n_pos != 2 || (!binary == !no_binary)) {
		fprintf(stderr, "enav: pprof-filter: needs IN and OUT, and one of --binary BIN "
				"or --no-binary\n");
		goto usage;
	}

	struct enav_go_buildinfo bi = {0};
	struct enav_code_owner owner;
	struct enav_pprof_filter_stats st;
	const char **storage = NULL;
	uint8_t *in = NULL, *out = NULL;
	size_t in_len = 0, out_len = 0;
	char err[512];
	int rc;

	ret = 1;
	if (binary) {
		struct stat sb;

		/* read_file's -ENOENT means "no build info"; a missing file is
		 * told apart first. */
		if (stat(binary, &sb) != 0) {
			fprintf(stderr, "enav: pprof-filter: %s: %s\n", binary, strerror(errno));
			goto out;
		}
		rc = enav_go_buildinfo_read_file(binary, &bi, err, sizeof(err));
		if (rc == -ENOENT) {
			fprintf(stderr,
				"enav: pprof-filter: %s carries no Go build info, so its own code "
				"cannot be told from third-party code (--no-binary filters with "
				"the allow-list alone)\n",
				binary);
			goto out;
		}
		if (rc) {
			fprintf(stderr, "enav: pprof-filter: %s: %s\n", binary, err);
			goto out;
		}
	}
	if (enav_code_owner_from_buildinfo(&owner, binary ? &bi : NULL, allow, n_allow, &storage)) {
		fprintf(stderr, "enav: pprof-filter: out of memory\n");
		goto out;
	}
	if (read_all(pos[0], &in, &in_len))
		goto out;
	struct enav_pprof_filter_opts opts = {.owner = &owner, .keep_labels = keep_labels};

	rc = enav_pprof_filter(in, in_len, &opts, &out, &out_len, &st, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "enav: pprof-filter: %s: %s\n", pos[0], err);
		goto out;
	}
	if (write_all(pos[1], out, out_len))
		goto out;
	fprintf(stderr,
		"enav: pprof-filter: %llu samples; frames: %llu kept, %llu redacted "
		"(%llu functions); %llu labels, %llu comments dropped; %llu mappings "
		"scrubbed; owner: main module %s, %zu replaced paths, %zu allowed prefixes\n",
		(unsigned long long)st.samples, (unsigned long long)st.frames_kept,
		(unsigned long long)st.frames_redacted, (unsigned long long)st.functions_redacted,
		(unsigned long long)st.labels_dropped, (unsigned long long)st.comments_dropped,
		(unsigned long long)st.mappings_scrubbed,
		owner.main_module ? owner.main_module : "(none)", owner.n_replaced, owner.n_allow);
	ret = 0;
out:
	free(in);
	free(out);
	free(storage);
	if (binary)
		enav_go_buildinfo_free(&bi);
	free(allow);
	return ret;
usage:
	usage(stderr);
	free(allow);
	return ret;
}
