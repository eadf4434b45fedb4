/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Go build information read from an ELF binary, as `go version -m` prints
 * it: the Go version, the main package path, the main module, every
 * dependency with the replacement a `replace` directive made, and the build
 * settings.  Read from the .go.buildinfo section, or when that section is
 * absent from the first writable, non-executable PT_LOAD segment; both the
 * Go 1.18+ inline-string layout and the older pointer layout.
 *
 * The binary is untrusted: every read is bounds-checked, every size capped;
 * a corrupt or hostile file gives an error, never a crash or an over-read.
 */
#ifndef ENAV_FEATURES_PROFILING_GO_BUILDINFO_H
#define ENAV_FEATURES_PROFILING_GO_BUILDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ENAV_GO_BUILDINFO_MAX_MODINFO  (1u << 20) /* bytes of modinfo text accepted */
#define ENAV_GO_BUILDINFO_MAX_DEPS     4096
#define ENAV_GO_BUILDINFO_MAX_SETTINGS 1024	   /* build lines accepted */
#define ENAV_GO_BUILDINFO_MAX_LINE     (64u << 10) /* bytes in one modinfo line */
#define ENAV_GO_BUILDINFO_MAX_VERSION  1024	   /* bytes of the Go version string */

struct enav_go_module {
	char *path;
	char *version; /* "" when none (e.g. "(devel)" is kept as given) */
	char *sum;     /* "" when none */
	bool replaced; /* a `=>` line followed it */
	char *replace_path, *replace_version, *replace_sum; /* NULL unless replaced */
};

struct enav_go_build_setting {
	char *key, *value; /* unquoted as Go's debug.ParseBuildInfo does */
	char *raw;	   /* the text after "build\t" as stored, what print shows */
};

struct enav_go_buildinfo {
	char *go_version; /* "go1.19.8" */
	char *path;	  /* main package path ("path" line), "" when absent */
	bool has_main;
	struct enav_go_module main; /* "mod" line */
	struct enav_go_module *deps;
	size_t n_deps;
	struct enav_go_build_setting *settings;
	size_t n_settings;
};

/* 0 on success; -ENOENT when the file is ELF but carries no Go build info
 * (not a Go binary); -EINVAL with a one-line reason in err when it is
 * corrupt or hostile (or not ELF at all); other -errno for I/O errors
 * (read_file: -ENOENT too when the file does not exist).  On failure err
 * always holds a one-line reason ("no Go build information" for the
 * not-a-Go-binary case) and *out is left zeroed.  *out is overwritten, never
 * read: free a previous result first. */
int enav_go_buildinfo_read_file(const char *path, struct enav_go_buildinfo *out, char *err,
				size_t errlen);
int enav_go_buildinfo_read_fd(int fd, struct enav_go_buildinfo *out, char *err, size_t errlen);
/* The executable of a (tenant's) process pid, opened through
 * platform/tenant_file.c (/proc/PID/exe, a regular file, not FUSE,
 * non-blocking); the errors of enav_go_buildinfo_read_file. */
int enav_go_buildinfo_read_exe(uint32_t pid, struct enav_go_buildinfo *out, char *err,
			       size_t errlen);
/* Parse modinfo text (the sentinels already stripped, or present: both
 * accepted).  Exposed for tests and the fuzzer.  go_version is set to "". */
int enav_go_buildinfo_parse_modinfo(const char *text, size_t len, struct enav_go_buildinfo *out,
				    char *err, size_t errlen);
void enav_go_buildinfo_free(struct enav_go_buildinfo *b);
/* Print like `go version -m NAME`: "NAME: goX.Y", then tab-indented
 * path/mod/dep/=>/build lines. */
void enav_go_buildinfo_print(FILE *out, const char *name, const struct enav_go_buildinfo *b);

#endif
