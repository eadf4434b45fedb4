/* SPDX-License-Identifier: Apache-2.0 */
/*
 * /proc/diskstats: node_disk_* labelled {device}.
 *
 * A line is "major minor name" and 11 statistics (every kernel), 15 (4.18+:
 * discards) or 17 (5.5+: flushes); the discard and flush families are
 * rendered for the devices whose line has those fields.  Sectors are 512
 * bytes whatever the device's block size; times are milliseconds.
 *
 * Device exclusion: Debian's prometheus-node-exporter 1.5 default,
 * --collector.diskstats.device-exclude
 *     ^(ram|loop|fd|(h|s|v|xv)d[a-z]|nvme\d+n\d+p)\d+$
 * (as it logs at start-up), i.e. ramN, loopN, fdN, partitions of
 * single-letter hd/sd/vd/xvd disks (sda1, xvdb2 - but not sdaa1, whose disk
 * name has two letters) and NVMe partitions (nvme0n1p1).  Everything else is
 * kept: whole disks, zram, dm-*, md*, mmcblk* partitions, sr*.
 */
#include "features/node/node_priv.h"

#include <string.h>

void enav_node_parse_diskstats(const char *buf, size_t len, enav_node_disk_cb cb, void *ctx)
{
	const char *pos = buf, *end = buf + len, *line, *tok;
	size_t ll, tl;

	while (enav_node_next_line(&pos, end, &line, &ll)) {
		const char *lp = line, *le = line + ll;
		struct enav_node_disk d;
		uint64_t v;
		bool ok = true;

		memset(&d, 0, sizeof(d));
		if (!enav_node_token(&lp, le, &tok, &tl) || !enav_node_parse_u64(tok, tl, &v) ||
		    v > UINT32_MAX)
			continue;
		d.major = (uint32_t)v;
		if (!enav_node_token(&lp, le, &tok, &tl) || !enav_node_parse_u64(tok, tl, &v) ||
		    v > UINT32_MAX)
			continue;
		d.minor = (uint32_t)v;
		if (!enav_node_token(&lp, le, &tok, &tl) || tl >= sizeof(d.name) ||
		    memchr(tok, '\0', tl))
			continue;
		memcpy(d.name, tok, tl);
		d.name[tl] = '\0';
		while (enav_node_token(&lp, le, &tok, &tl)) {
			if (d.n == ENAV_NODE_DISK_FIELDS)
				break; /* fields from a future kernel */
			if (!enav_node_parse_u64(tok, tl, &d.v[d.n])) {
				ok = false;
				break;
			}
			d.n++;
		}
		if (!ok || d.n < 11)
			continue;
		d.n = d.n >= 17 ? 17 : d.n >= 15 ? 15 : 11; /* whole groups only */
		cb(ctx, &d);
	}
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static const char *skip_digits(const char *s)
{
	const char *p = s;

	while (*p >= '0' && *p <= '9')
		p++;
	return p == s ? NULL : p;
}

static const char *after_prefix(const char *s, const char *prefix)
{
	size_t l = strlen(prefix);

	return strncmp(s, prefix, l) == 0 ? s + l : NULL;
}

bool enav_node_disk_excluded(const char *name)
{
	static const char *const plain[] = {"ram", "loop", "fd"};
	static const char *const lettered[] = {"hd", "sd", "vd", "xvd"};
	const char *r;

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if ((r = after_prefix(name, plain[i])) && all_digits(r))
			return true;
	for (size_t i = 0; i < sizeof(lettered) / sizeof(lettered[0]); i++)
		if ((r = after_prefix(name, lettered[i])) && *r >= 'a' && *r <= 'z' &&
		    all_digits(r + 1))
			return true;
	if ((r = after_prefix(name, "nvme")) && (r = skip_digits(r)) && *r == 'n' &&
	    (r = skip_digits(r + 1)) && *r == 'p' && all_digits(r + 1))
		return true;
	return false;
}

static void keep_disk(void *ctx, const struct enav_node_disk *d)
{
	struct enav_node *n = ctx;

	if (enav_node_disk_excluded(d->name) || !enav_utf8_valid(d->name))
		return;
	for (uint32_t i = 0; i < n->n_disks; i++)
		if (strcmp(n->disks[i].name, d->name) == 0)
			return;
	if (n->n_disks >= n->max_devices) {
		n->dropped[ENAV_NODE_K_DISK]++;
		return;
	}
	n->disks[n->n_disks++] = *d;
}

enum disk_unit { RAW, SECTORS, MILLIS };

static const struct {
	const char *name, *type, *help;
	uint8_t field;
	uint8_t unit;
} disk_families[] = {
    {"node_disk_reads_completed_total", "counter", "Reads completed.", 0, RAW},
    {"node_disk_reads_merged_total", "counter", "Adjacent reads merged.", 1, RAW},
    {"node_disk_read_bytes_total", "counter", "Bytes read.", 2, SECTORS},
    {"node_disk_read_time_seconds_total", "counter", "Seconds spent by all reads.", 3, MILLIS},
    {"node_disk_writes_completed_total", "counter", "Writes completed.", 4, RAW},
    {"node_disk_writes_merged_total", "counter", "Adjacent writes merged.", 5, RAW},
    {"node_disk_written_bytes_total", "counter", "Bytes written.", 6, SECTORS},
    {"node_disk_write_time_seconds_total", "counter", "Seconds spent by all writes.", 7, MILLIS},
    {"node_disk_io_now", "gauge", "I/Os in progress.", 8, RAW},
    {"node_disk_io_time_seconds_total", "counter", "Seconds the device had I/O in progress.", 9,
     MILLIS},
    {"node_disk_io_time_weighted_seconds_total", "counter",
     "Seconds spent on I/O weighted by the number in progress.", 10, MILLIS},
    {"node_disk_discards_completed_total", "counter", "Discards completed.", 11, RAW},
    {"node_disk_discards_merged_total", "counter", "Adjacent discards merged.", 12, RAW},
    {"node_disk_discarded_sectors_total", "counter", "Sectors discarded.", 13, RAW},
    {"node_disk_discard_time_seconds_total", "counter", "Seconds spent by all discards.", 14,
     MILLIS},
    {"node_disk_flush_requests_total", "counter", "Flush requests completed.", 15, RAW},
    {"node_disk_flush_requests_time_seconds_total", "counter",
     "Seconds spent by all flush requests.", 16, MILLIS},
};

void enav_node_render_diskstats(struct enav_node *n, struct enav_promtext *p)
{
	ssize_t len = enav_node_read(n, ENAV_NODE_F_DISKSTATS);

	n->n_disks = 0;
	if (len < 0)
		return;
	enav_node_parse_diskstats(n->buf, (size_t)len, keep_disk, n);
	n->available[ENAV_NODE_C_DISKSTATS] = true; /* no block device at all is possible */
	for (size_t f = 0; f < sizeof(disk_families) / sizeof(disk_families[0]); f++) {
		const unsigned field = disk_families[f].field;
		bool any = false;

		for (uint32_t i = 0; i < n->n_disks && !any; i++)
			any = n->disks[i].n > field;
		if (!any)
			continue;
		enav_promtext_family(p, disk_families[f].name, disk_families[f].type,
				     disk_families[f].help);
		for (uint32_t i = 0; i < n->n_disks; i++) {
			const struct enav_node_disk *d = &n->disks[i];
			const char *l[] = {"device", d->name};

			if (d->n <= field)
				continue;
			switch (disk_families[f].unit) {
			case SECTORS:
				enav_node_sample_product(p, disk_families[f].name, l, 1,
							 d->v[field], 512);
				break;
			case MILLIS:
				enav_promtext_sample(p, disk_families[f].name, l, 1,
						     (double)d->v[field] / 1e3);
				break;
			default:
				enav_promtext_sample_u64(p, disk_families[f].name, l, 1,
							 d->v[field]);
			}
		}
	}
}
