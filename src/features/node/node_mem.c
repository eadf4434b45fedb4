/* SPDX-License-Identifier: Apache-2.0 */
/*
 * /proc/meminfo, /proc/pressure/{cpu,memory,io} and /proc/sys/fs/file-nr.
 *
 * meminfo: every "Field: value kB" line becomes the gauge
 * node_memory_<Field>_bytes (value x 1024) and every unitless line
 * ("HugePages_Total: 0") node_memory_<Field>; the field name is transformed
 * as node_exporter does it ("Active(anon)" -> "Active_anon"); any other byte
 * that cannot appear in a metric name becomes '_'.
 *
 * Pressure: node_exporter's node_pressure_* counters (from the "total"
 * microseconds of the "some" and "full" lines; for cpu only "some", as
 * node_exporter) and our gauge enav_host_pressure_ratio{resource,kind,window}
 * from every avg10/avg60/avg300 present (percent / 100), cpu "full" included.
 */
#include "features/node/node_priv.h"

#include <stdio.h>
#include <string.h>

/* ---- meminfo ------------------------------------------------------------------ */

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

void enav_node_parse_meminfo(const char *buf, size_t len, enav_node_mem_cb cb, void *ctx)
{
	const char *pos = buf, *end = buf + len, *line, *tok;
	size_t ll, tl;

	while (enav_node_next_line(&pos, end, &line, &ll)) {
		const char *lp = line, *le = line + ll;
		struct enav_node_mem_field f;
		size_t o = 0;
		bool ok = true;

		/* "Active(anon):" - the key is the first field less its trailing ':' */
		if (!enav_node_token(&lp, le, &tok, &tl) || tl < 2 || tok[tl - 1] != ':')
			continue;
		for (size_t i = 0; i + 1 < tl && ok; i++) {
			char c = tok[i];

			if (c == ')')
				continue;
			if (o + 1 >= sizeof(f.name))
				ok = false;
			else
				f.name[o++] = (c == '(' || !name_char(c)) ? '_' : c;
		}
		if (!ok || o == 0)
			continue;
		f.name[o] = '\0';
		if (!enav_node_token(&lp, le, &tok, &tl) || !enav_node_parse_u64(tok, tl, &f.value))
			continue;
		f.kb = false;
		if (enav_node_token(&lp, le, &tok, &tl)) {
			if (tl != 2 || memcmp(tok, "kB", 2) != 0)
				continue; /* a unit we do not know */
			f.kb = true;
		}
		if (enav_node_token(&lp, le, &tok, &tl))
			continue; /* trailing garbage */
		cb(ctx, &f);
	}
}

static void keep_mem(void *ctx, const struct enav_node_mem_field *f)
{
	struct enav_node *n = ctx;
	struct enav_node_mem_metric *m;

	if (n->n_mem >= ENAV_NODE_MEM_MAX)
		return;
	m = &n->mem[n->n_mem];
	snprintf(m->name, sizeof(m->name), "node_memory_%s%s", f->name, f->kb ? "_bytes" : "");
	/* One family per name: "X: 1 kB" and "X_bytes: 1" cannot both be kept. */
	for (uint32_t i = 0; i < n->n_mem; i++)
		if (strcmp(n->mem[i].name, m->name) == 0)
			return;
	m->kb = f->kb;
	m->value = f->value;
	n->n_mem++;
}

void enav_node_render_meminfo(struct enav_node *n, struct enav_promtext *p)
{
	ssize_t len = enav_node_read(n, ENAV_NODE_F_MEMINFO);
	char help[ENAV_NODE_MEM_NAME + 64];

	n->n_mem = 0;
	if (len < 0)
		return;
	enav_node_parse_meminfo(n->buf, (size_t)len, keep_mem, n);
	if (!n->n_mem) {
		enav_node_count_error(n, ENAV_NODE_F_MEMINFO);
		return;
	}
	n->available[ENAV_NODE_C_MEMINFO] = true;
	for (uint32_t i = 0; i < n->n_mem; i++) {
		const struct enav_node_mem_metric *m = &n->mem[i];

		snprintf(help, sizeof(help), "Memory information field %s.",
			 m->name + strlen("node_memory_"));
		enav_promtext_family(p, m->name, "gauge", help);
		if (m->kb)
			enav_node_sample_product(p, m->name, NULL, 0, m->value, 1024);
		else
			enav_promtext_sample_u64(p, m->name, NULL, 0, m->value);
	}
}

/* ---- pressure ---------------------------------------------------------------- */

bool enav_node_parse_psi(const char *buf, size_t len, struct enav_node_psi *out)
{
	static const char *const avg_keys[3] = {"avg10=", "avg60=", "avg300="};
	const char *pos = buf, *end = buf + len, *line, *tok;
	size_t ll, tl;

	memset(out, 0, sizeof(*out));
	while (enav_node_next_line(&pos, end, &line, &ll)) {
		const char *lp = line, *le = line + ll;
		struct enav_node_psi_line l;
		unsigned seen = 0;

		memset(&l, 0, sizeof(l));
		if (!enav_node_token(&lp, le, &tok, &tl))
			continue;
		struct enav_node_psi_line *dst = NULL;

		if (tl == 4 && memcmp(tok, "some", 4) == 0)
			dst = &out->some;
		else if (tl == 4 && memcmp(tok, "full", 4) == 0)
			dst = &out->full;
		else
			continue;
		while (enav_node_token(&lp, le, &tok, &tl)) {
			for (int i = 0; i < 3; i++) {
				size_t kl = strlen(avg_keys[i]);
				uint64_t mant;
				unsigned scale;

				/* Parsed aside: a rejected repeat of a key must not
				 * overwrite the value an earlier token proved. */
				if (tl > kl && memcmp(tok, avg_keys[i], kl) == 0 &&
				    enav_node_parse_decimal(tok + kl, tl - kl, &mant, &scale) &&
				    scale <= 20) {
					l.avg_mant[i] = mant;
					l.avg_scale[i] = scale;
					seen |= 1u << i;
				}
			}
			if (tl > 6 && memcmp(tok, "total=", 6) == 0 &&
			    enav_node_parse_u64(tok + 6, tl - 6, &l.total_us))
				seen |= 1u << 3;
		}
		if (seen != 0xf)
			continue;
		l.present = true;
		*dst = l;
	}
	return out->some.present || out->full.present;
}

static void psi_counter(struct enav_promtext *p, const struct enav_node_psi_line *l,
			const char *name, const char *help)
{
	if (!l->present)
		return;
	enav_promtext_family(p, name, "counter", help);
	enav_promtext_sample(p, name, NULL, 0, (double)l->total_us / 1e6);
}

void enav_node_render_pressure(struct enav_node *n, struct enav_promtext *p)
{
	static const enum enav_node_file files[3] = {ENAV_NODE_F_PSI_CPU, ENAV_NODE_F_PSI_MEMORY,
						     ENAV_NODE_F_PSI_IO};
	static const char *const resources[3] = {"cpu", "memory", "io"};
	static const char *const windows[3] = {"10s", "60s", "300s"};
	struct enav_node_psi psi[3];
	bool any = false;

	for (int r = 0; r < 3; r++) {
		ssize_t len = enav_node_read(n, files[r]);

		memset(&psi[r], 0, sizeof(psi[r]));
		if (len < 0)
			continue;
		if (enav_node_parse_psi(n->buf, (size_t)len, &psi[r]))
			any = true;
		else
			enav_node_count_error(n, files[r]);
	}
	if (!any)
		return;
	n->available[ENAV_NODE_C_PRESSURE] = true;
	psi_counter(p, &psi[0].some, "node_pressure_cpu_waiting_seconds_total",
		    "Seconds in which some runnable tasks waited for a CPU.");
	psi_counter(p, &psi[1].some, "node_pressure_memory_waiting_seconds_total",
		    "Seconds in which some tasks stalled on memory.");
	psi_counter(p, &psi[1].full, "node_pressure_memory_stalled_seconds_total",
		    "Seconds in which all non-idle tasks stalled on memory.");
	psi_counter(p, &psi[2].some, "node_pressure_io_waiting_seconds_total",
		    "Seconds in which some tasks stalled on I/O.");
	psi_counter(p, &psi[2].full, "node_pressure_io_stalled_seconds_total",
		    "Seconds in which all non-idle tasks stalled on I/O.");

	enav_promtext_family(p, "enav_host_pressure_ratio", "gauge",
			     "Share of wall time stalled (PSI avg10/avg60/avg300 / 100), by "
			     "resource, kind (some, full) and window.");
	for (int r = 0; r < 3; r++) {
		for (int k = 0; k < 2; k++) {
			const struct enav_node_psi_line *l = k ? &psi[r].full : &psi[r].some;

			if (!l->present)
				continue;
			for (int w = 0; w < 3; w++) {
				const char *lab[] = {"resource",	  resources[r], "kind",
						     k ? "full" : "some", "window",	windows[w]};

				enav_promtext_sample(
				    p, "enav_host_pressure_ratio", lab, 3,
				    enav_node_decimal_value(l->avg_mant[w], l->avg_scale[w] + 2));
			}
		}
	}
}

/* ---- file-nr ----------------------------------------------------------------- */

bool enav_node_parse_filenr(const char *buf, size_t len, struct enav_node_filenr *out)
{
	const char *pos = buf, *end = buf + len, *tok;
	const char *nl = memchr(buf, '\n', len);
	uint64_t v[3];
	size_t tl;

	if (nl)
		end = nl;
	for (int i = 0; i < 3; i++)
		if (!enav_node_token(&pos, end, &tok, &tl) || !enav_node_parse_u64(tok, tl, &v[i]))
			return false;
	out->allocated = v[0];
	out->unused = v[1];
	out->maximum = v[2];
	return true;
}

void enav_node_render_filefd(struct enav_node *n, struct enav_promtext *p)
{
	struct enav_node_filenr fnr;
	ssize_t len = enav_node_read(n, ENAV_NODE_F_FILENR);

	if (len < 0)
		return;
	if (!enav_node_parse_filenr(n->buf, (size_t)len, &fnr)) {
		enav_node_count_error(n, ENAV_NODE_F_FILENR);
		return;
	}
	n->available[ENAV_NODE_C_FILEFD] = true;
	enav_promtext_family(p, "node_filefd_allocated", "gauge", "File handles allocated.");
	enav_promtext_sample_u64(p, "node_filefd_allocated", NULL, 0, fnr.allocated);
	enav_promtext_family(p, "node_filefd_maximum", "gauge", "Maximum file handles.");
	enav_promtext_sample_u64(p, "node_filefd_maximum", NULL, 0, fnr.maximum);
}
