/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pure parsers for cgroup resource files (cgroup_parsers.c), used by
 * cgroups.c and exposed for the unit tests and the fuzzer.  Every parser reads exactly text[0..len)
 * (no NUL needed, nothing past len is touched), never allocates, and accepts the last line with or
 * without its newline.  Numbers are unsigned decimal; a number that does not fit in 64 bits is not
 * a number (the key counts as absent).  Sums over lines saturate at UINT64_MAX instead of wrapping.
 */
#ifndef ENAV_FEATURES_NODE_CGROUPS_PRIV_H
#define ENAV_FEATURES_NODE_CGROUPS_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sums and unit conversions saturate at UINT64_MAX instead of wrapping. */
static inline uint64_t enav_cg_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t enav_cg_sat_mul(uint64_t a, uint64_t b)
{
	return (b && a > UINT64_MAX / b) ? UINT64_MAX : a * b;
}

/* Most keys one keyed parse looks for (the found mask is 32 bits). */
#define ENAV_CG_MAX_KEYS 32

/*
 * A file holding one number ("123\n": cpuacct.usage, memory.current,
 * pids.current, ...).  Surrounding blanks and one trailing newline are
 * allowed, nothing else.  Returns 0, or -1.
 */
int enav_cg_parse_u64(const char *text, size_t len, uint64_t *out);

/*
 * A limit: a number, or "max" (cgroup2 memory.max) which sets *unlimited.
 * Returns 0, or -1.  (v1's "unlimited" huge number is judged by the caller.)
 */
int enav_cg_parse_limit(const char *text, size_t len, uint64_t *out, bool *unlimited);

/*
 * "key value" lines (cpu.stat, memory.stat, memory.events, cpuacct.stat,
 * memory.oom_control).  For each keys[i] (i < n_keys <= ENAV_CG_MAX_KEYS)
 * whose line is present with a valid number, vals[i] is set and bit i of the
 * result is set.  The first occurrence of a key wins; other lines, and
 * lines with more or fewer than two fields, are ignored.
 */
uint32_t enav_cg_parse_keyed(const char *text, size_t len, const char *const *keys, size_t n_keys,
			     uint64_t *vals);

/* Totals summed over every device line. */
struct enav_cg_io {
	uint64_t rbytes, wbytes, rios, wios;
};

/*
 * cgroup2 io.stat: "MAJ:MIN rbytes=N wbytes=N rios=N wios=N dbytes=N dios=N"
 * per device; unknown or malformed key=value fields are ignored, and so are
 * lines whose first field is not MAJ:MIN.  Returns the number of device
 * lines summed (an empty file is valid: no I/O yet).
 */
unsigned enav_cg_parse_io_stat(const char *text, size_t len, struct enav_cg_io *out);

/*
 * cgroup v1 blkio.throttle.io_service_bytes / io_serviced (and their
 * _recursive forms): "MAJ:MIN Read N" and "MAJ:MIN Write N" per device are
 * summed into *read and *write; the Sync, Async, Discard and Total lines and
 * the final "Total N" line are not.  Returns the number of Read or Write
 * lines summed.
 */
unsigned enav_cg_parse_blkio(const char *text, size_t len, uint64_t *read, uint64_t *write);

/* Bits of the enav_cg_parse_pressure result. */
#define ENAV_CG_PSI_SOME 1u
#define ENAV_CG_PSI_FULL 2u

/*
 * A *.pressure file: "some avg10=.. avg60=.. avg300=.. total=N" and the
 * same for "full" (total in microseconds).  Returns which lines carried a
 * valid total.
 */
unsigned enav_cg_parse_pressure(const char *text, size_t len, uint64_t *some, uint64_t *full);

/*
 * Does the comma-joined controller list (as in struct enav_cgroup_mounts,
 * "cpu,cpuacct") contain ctrl as a whole item?
 */
bool enav_cg_has_controller(const char *list, const char *ctrl);

#endif
