/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `enav profile`: profile this node for N seconds without running the agent,
 * and write a flame graph SVG, folded stacks or a pprof file.  It loads the
 * same profiling source the agent runs (with the capture filter off) and
 * builds the output through the same profile store.
 */
#include "cli/profile_cmd.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/clock.h"
#include "platform/log.h"
#include "platform/numfmt.h"
#include "features/network/net_source.h"
#include "runtime/bpf_refusal.h"
#include "runtime/runner.h"
#include "features/profiling/profile_store.h"
#include "features/profiling/profile_source.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: enav profile [--seconds N] [--kind cpu|offcpu|futex] [--pid PID]\n"
		"                    [--container ID] [--cgroup PATH|ID] [--frequency HZ]\n"
		"                    [--trace-id HEX32] [--span-id HEX16]\n"
		"                    [--svg FILE] [--folded FILE] [--pprof FILE] [--config FILE]\n"
		"Profiles the whole node for N seconds (10) and writes what was asked\n"
		"(a flame graph to flame.svg when no output is named).  --trace-id and\n"
		"--span-id keep the samples that ran for that trace or span: the\n"
		"network source's L7 path runs beside the profiler to see the requests.\n");
}

static int write_file(const char *path, const uint8_t *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "enav: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int emit(struct enav_profile_store *s, struct enav_profile_query *q,
		enum enav_profile_format fmt, const char *path)
{
	if (!path)
		return 0;
	q->format = fmt;
	uint8_t *out;
	size_t len;
	int rc = enav_profile_store_build(s, q, &out, &len);
	if (rc) {
		fprintf(stderr, "enav: cannot build the profile: %s\n", strerror(-rc));
		return -1;
	}
	rc = write_file(path, out, len);
	free(out);
	if (rc == 0)
		fprintf(stderr, "enav: wrote %s (%zu bytes)\n", path, len);
	return rc;
}

/* A process's samples before its unwind tables are loaded are
 * frame-pointer walks: with --pid the window opens once they are.  The
 * process is announced on its first sample (one that does not run within
 * ANNOUNCE_WAIT_NS is profiled without waiting); its tables then load
 * first, in milliseconds natively, seconds in an emulated guest. */
#define ANNOUNCE_WAIT_NS (5ull * 1000000000ull)
#define TABLES_WAIT_NS	 (60ull * 1000000000ull)
static void wait_unwind_tables(struct enav_host *a, void *state, uint32_t pid)
{
	enav_profile_source_unwind_prefer(state, pid);
	uint64_t start = enav_clock_mono_ns();
	bool said = false;
	for (;;) {
		enum enav_unwind_wait w = enav_profile_source_unwind_state(state, pid);
		uint64_t waited = enav_clock_mono_ns() - start;
		if (w == ENAV_UNWIND_WAIT_READY)
			return;
		if (w == ENAV_UNWIND_WAIT_UNSEEN && waited >= ANNOUNCE_WAIT_NS) {
			fprintf(stderr,
				"enav: process %u did not run in %llu s: its first samples may be "
				"frame-pointer walks\n",
				pid, ANNOUNCE_WAIT_NS / 1000000000ull);
			return;
		}
		if (waited >= TABLES_WAIT_NS) {
			fprintf(stderr,
				"enav: the unwind tables of process %u did not load in %llu s: "
				"profiling anyway\n",
				pid, TABLES_WAIT_NS / 1000000000ull);
			return;
		}
		if (!said && waited >= 2000000000ull) {
			fprintf(stderr, "enav: waiting for the unwind tables of process %u...\n",
				pid);
			said = true;
		}
		enav_host_poll(a, 10);
	}
}

int enav_profile_command(struct enav_config *cfg, int argc, char **argv)
{
	uint32_t seconds = 10;
	const char *svg = NULL, *folded = NULL, *pprof = NULL;
	struct enav_profile_query q = {.kind = ENAV_PROFILE_CPU,
				       .redact = !cfg->profiling.local_unfiltered};
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		}
		if (!v) {
			fprintf(stderr, "enav: %s needs a value (see enav profile --help)\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--seconds")) {
			seconds = (uint32_t)strtoul(v, &end, 10);
			if (*end || seconds == 0 || seconds > 3600) {
				fprintf(stderr, "enav: --seconds: 1..3600\n");
				return 2;
			}
		} else if (!strcmp(a, "--kind")) {
			if (!strcmp(v, "cpu"))
				q.kind = ENAV_PROFILE_CPU;
			else if (!strcmp(v, "offcpu"))
				q.kind = ENAV_PROFILE_OFFCPU;
			else if (!strcmp(v, "futex"))
				q.kind = ENAV_PROFILE_FUTEX;
			else {
				fprintf(stderr, "enav: --kind: cpu, offcpu or futex\n");
				return 2;
			}
		} else if (!strcmp(a, "--pid")) {
			q.filter.pid = (uint32_t)strtoul(v, &end, 10);
			if (*end || !q.filter.pid) {
				fprintf(stderr, "enav: --pid: a process id\n");
				return 2;
			}
		} else if (!strcmp(a, "--container")) {
			if (strlen(v) < 4) {
				fprintf(stderr,
					"enav: --container: at least 4 characters of the id\n");
				return 2;
			}
			q.filter.container = v;
		} else if (!strcmp(a, "--cgroup")) {
			q.filter.cgroup = v;
		} else if (!strcmp(a, "--trace-id")) {
			q.filter.has_trace_id = true;
			if (!enav_parse_hex_bytes(v, strlen(v), q.filter.trace_id, 16)) {
				fprintf(stderr, "enav: --trace-id: 32 hex digits\n");
				return 2;
			}
		} else if (!strcmp(a, "--span-id")) {
			q.filter.has_span_id = true;
			if (!enav_parse_hex_bytes(v, strlen(v), q.filter.span_id, 8)) {
				fprintf(stderr, "enav: --span-id: 16 hex digits\n");
				return 2;
			}
		} else if (!strcmp(a, "--frequency")) {
			unsigned long hz = strtoul(v, &end, 10);
			if (*end || hz < 1 || hz > 1000) {
				fprintf(stderr, "enav: --frequency: 1..1000\n");
				return 2;
			}
			cfg->profiling.frequency_hz = (uint32_t)hz;
		} else if (!strcmp(a, "--svg")) {
			svg = v;
		} else if (!strcmp(a, "--folded")) {
			folded = v;
		} else if (!strcmp(a, "--pprof")) {
			pprof = v;
		} else {
			fprintf(stderr, "enav: unknown option %s (see enav profile --help)\n", a);
			return 2;
		}
	}
	if (!svg && !folded && !pprof)
		svg = "flame.svg";
	/* Only the kind asked for is hooked. */
	cfg->profiling.enabled = true;
	cfg->profiling.offcpu = q.kind == ENAV_PROFILE_OFFCPU;
	cfg->profiling.futex = q.kind == ENAV_PROFILE_FUTEX;
	/* This host has no profile consumers (no spool or Pyroscope rows): no
	 * interval is worth cutting. */
	cfg->profiling.interval_ms = 3600000;
	/* A trace or span asked for: the requests come from the network
	 * source's L7 path (plaintext only: the TLS prober's scan of every
	 * process is not worth a one-off window). */
	bool links = q.filter.has_trace_id || q.filter.has_span_id;
	cfg->profiling.links = links;
	if (links) {
		cfg->network.enabled = true;
		cfg->network.l7.enabled = true;
		cfg->network.tls.enabled = false;
	}
	char err[512] = "";
	if (enav_config_validate(cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "enav: %s\n", err);
		return 2;
	}

	enav_log_set_level(cfg->log_level);
	/* Through the agent's log: a refused program is then recognised and
	 * its feature switched off, as in the agent. */
	enav_bpf_log_install();
	enav_clock_refresh();
	struct enav_host *a = enav_host_new(cfg);
	if (!a) {
		fprintf(stderr, "enav: out of memory\n");
		return 1;
	}
	if (enav_host_probe(a, err, sizeof(err)) != 0) {
		fprintf(stderr, "enav: %s\n", err);
		enav_host_free(a);
		return 1;
	}
	void *state = NULL, *net = NULL;
	int rc = enav_host_open_loop(a);
	if (!rc && links)
		rc = enav_net_source_ops.start(a, &net, err, sizeof(err));
	if (!rc)
		rc = enav_profile_source_ops.start(a, &state, err, sizeof(err));
	if (rc == 0 && q.filter.pid)
		wait_unwind_tables(a, state, q.filter.pid);
	struct enav_profile_store *s = enav_host_profiles(a);
	/* The window opens here: waits under way began before it. */
	if (rc == 0 && q.kind != ENAV_PROFILE_CPU)
		enav_profile_source_forget_waits(state);
	if (rc == 0 && enav_profile_store_drain(s, &q.from_mono_ns) != 0)
		rc = -EIO;
	if (rc) {
		fprintf(stderr, "enav: %s\n", err[0] ? err : "profiling failed to start");
		enav_profile_source_ops.stop(state);
		if (links)
			enav_net_source_ops.stop(net);
		enav_host_free(a); /* and the store */
		return 1;
	}
	fprintf(stderr, "enav: profiling %s for %u s...\n", enav_profile_kind_name(q.kind),
		seconds);
	/* Consume the new-process announcements while the window is open, so
	 * processes are snapshotted while they live. */
	uint64_t end = enav_clock_mono_ns() + (uint64_t)seconds * 1000000000ull;
	while (enav_clock_mono_ns() < end)
		enav_host_poll(a, 100);
	rc = enav_profile_store_drain(s, &q.to_mono_ns);
	int out = rc ? 1 : 0;
	if (!out && (emit(s, &q, ENAV_PROFILE_FORMAT_FLAMEGRAPH, svg) ||
		     emit(s, &q, ENAV_PROFILE_FORMAT_FOLDED, folded) ||
		     emit(s, &q, ENAV_PROFILE_FORMAT_PPROF, pprof)))
		out = 1;
	enav_profile_source_ops.stop(state);
	if (links)
		enav_net_source_ops.stop(net);
	enav_host_free(a); /* and the store */
	return out;
}
