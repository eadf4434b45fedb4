/* SPDX-License-Identifier: Apache-2.0 */
/*
 * /proc/stat and /proc/loadavg: node_cpu_seconds_total{cpu,mode},
 * node_cpu_guest_seconds_total{cpu,mode}, node_context_switches_total,
 * node_forks_total, node_intr_total, node_boot_time_seconds,
 * node_procs_running, node_procs_blocked, node_load1/5/15.
 *
 * CPU times are USER_HZ ticks (sysconf(_SC_CLK_TCK)).  As node_exporter does,
 * mode="user" and mode="nice" are reported as the kernel gives them (they
 * include guest time), and the guest figures are reported again on their own.
 * Offline CPUs have no cpuN line; the cpu label is N as written, gaps and all.
 */
#include "features/node/node_priv.h"

#include <stdio.h>
#include <string.h>

static bool tok_is(const char *tok, size_t len, const char *word)
{
	size_t wl = strlen(word);

	return len == wl && memcmp(tok, word, wl) == 0;
}

void enav_node_parse_stat(const char *buf, size_t len, struct enav_node_stat *st,
			  enav_node_cpu_cb cb, void *ctx)
{
	static const struct {
		const char *key;
		uint32_t bit;
		size_t off;
	} keys[] = {
	    {"ctxt", ENAV_NODE_STAT_CTXT, offsetof(struct enav_node_stat, ctxt)},
	    {"btime", ENAV_NODE_STAT_BTIME, offsetof(struct enav_node_stat, btime)},
	    {"processes", ENAV_NODE_STAT_FORKS, offsetof(struct enav_node_stat, forks)},
	    {"intr", ENAV_NODE_STAT_INTR, offsetof(struct enav_node_stat, intr)},
	    {"procs_running", ENAV_NODE_STAT_RUNNING, offsetof(struct enav_node_stat, running)},
	    {"procs_blocked", ENAV_NODE_STAT_BLOCKED, offsetof(struct enav_node_stat, blocked)},
	};
	const char *pos = buf, *end = buf + len, *line, *tok;
	size_t ll, tl;

	memset(st, 0, sizeof(*st));
	while (enav_node_next_line(&pos, end, &line, &ll)) {
		const char *lp = line, *le = line + ll;

		if (!enav_node_token(&lp, le, &tok, &tl))
			continue;
		if (tl > 3 && memcmp(tok, "cpu", 3) == 0) {
			struct enav_node_cpu c;
			uint64_t id, v;

			if (!enav_node_parse_u64(tok + 3, tl - 3, &id) || id > UINT32_MAX)
				continue;
			memset(&c, 0, sizeof(c));
			c.id = (uint32_t)id;
			while (c.n < ENAV_NODE_CPU_FIELDS && enav_node_token(&lp, le, &tok, &tl) &&
			       enav_node_parse_u64(tok, tl, &v))
				c.v[c.n++] = v;
			if (c.n >= 4 && cb) /* user nice system idle at least */
				cb(ctx, &c);
			continue;
		}
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			uint64_t v;

			if (!tok_is(tok, tl, keys[k].key))
				continue;
			if (enav_node_token(&lp, le, &tok, &tl) &&
			    enav_node_parse_u64(tok, tl, &v)) {
				memcpy((char *)st + keys[k].off, &v, sizeof(v));
				st->have |= keys[k].bit;
			}
			break;
		}
	}
}

bool enav_node_parse_loadavg(const char *buf, size_t len, double load[3])
{
	const char *pos = buf, *end = buf + len, *tok;
	size_t tl;

	/* "0.52 0.75 0.82 2/178 12345" on one line */
	const char *nl = memchr(buf, '\n', len);

	if (nl)
		end = nl;
	for (int i = 0; i < 3; i++) {
		uint64_t m;
		unsigned sc;

		if (!enav_node_token(&pos, end, &tok, &tl) ||
		    !enav_node_parse_decimal(tok, tl, &m, &sc))
			return false;
		load[i] = enav_node_decimal_value(m, sc);
	}
	return true;
}

/* Keep the first max_devices CPUs; a repeated cpuN line is ignored. */
static void keep_cpu(void *ctx, const struct enav_node_cpu *c)
{
	struct enav_node *n = ctx;

	/* The kernel writes them ascending: search only when one is not. */
	if (n->n_cpus && c->id <= n->max_cpu_id)
		for (uint32_t i = 0; i < n->n_cpus; i++)
			if (n->cpus[i].id == c->id)
				return;
	if (n->n_cpus >= n->max_devices) {
		n->dropped[ENAV_NODE_K_CPU]++;
		return;
	}
	if (!n->n_cpus || c->id > n->max_cpu_id)
		n->max_cpu_id = c->id;
	n->cpus[n->n_cpus++] = *c;
}

static void stat_u64(struct enav_promtext *p, const struct enav_node_stat *st, uint32_t bit,
		     uint64_t v, const char *name, const char *type, const char *help)
{
	if (!(st->have & bit))
		return;
	enav_promtext_family(p, name, type, help);
	enav_promtext_sample_u64(p, name, NULL, 0, v);
}

void enav_node_render_stat(struct enav_node *n, struct enav_promtext *p)
{
	static const char *const modes[] = {"user",   "nice", "system",	 "idle",
					    "iowait", "irq",  "softirq", "steal"};
	const struct enav_node_stat *st = &n->stat;
	ssize_t len = enav_node_read(n, ENAV_NODE_F_STAT);

	n->n_cpus = 0;
	if (len < 0)
		return;
	enav_node_parse_stat(n->buf, (size_t)len, &n->stat, keep_cpu, n);
	if (!n->n_cpus && !st->have) {
		enav_node_count_error(n, ENAV_NODE_F_STAT);
		return;
	}
	n->available[ENAV_NODE_C_STAT] = true;

	const double hz = (double)n->clk_tck;
	char id[16];
	bool guest = false;

	stat_u64(p, st, ENAV_NODE_STAT_BTIME, st->btime, "node_boot_time_seconds", "gauge",
		 "Boot time, in seconds since the epoch.");
	stat_u64(p, st, ENAV_NODE_STAT_CTXT, st->ctxt, "node_context_switches_total", "counter",
		 "Context switches since boot.");
	for (uint32_t i = 0; i < n->n_cpus; i++)
		guest |= n->cpus[i].n >= 9;
	if (guest) {
		enav_promtext_family(p, "node_cpu_guest_seconds_total", "counter",
				     "Seconds CPUs spent running guests (VMs), by mode.");
		for (uint32_t i = 0; i < n->n_cpus; i++) {
			const struct enav_node_cpu *c = &n->cpus[i];

			snprintf(id, sizeof(id), "%u", c->id);
			for (uint32_t f = 8; f < c->n; f++) {
				const char *l[] = {"cpu", id, "mode", f == 8 ? "user" : "nice"};

				enav_promtext_sample(p, "node_cpu_guest_seconds_total", l, 2,
						     (double)c->v[f] / hz);
			}
		}
	}
	if (n->n_cpus) {
		enav_promtext_family(p, "node_cpu_seconds_total", "counter",
				     "Seconds CPUs spent in each mode.");
		for (uint32_t i = 0; i < n->n_cpus; i++) {
			const struct enav_node_cpu *c = &n->cpus[i];

			snprintf(id, sizeof(id), "%u", c->id);
			for (uint32_t f = 0; f < c->n && f < 8; f++) {
				const char *l[] = {"cpu", id, "mode", modes[f]};

				enav_promtext_sample(p, "node_cpu_seconds_total", l, 2,
						     (double)c->v[f] / hz);
			}
		}
	}
	stat_u64(p, st, ENAV_NODE_STAT_FORKS, st->forks, "node_forks_total", "counter",
		 "Processes and threads created since boot.");
	stat_u64(p, st, ENAV_NODE_STAT_INTR, st->intr, "node_intr_total", "counter",
		 "Interrupts serviced since boot.");
	stat_u64(p, st, ENAV_NODE_STAT_BLOCKED, st->blocked, "node_procs_blocked", "gauge",
		 "Processes blocked waiting for I/O.");
	stat_u64(p, st, ENAV_NODE_STAT_RUNNING, st->running, "node_procs_running", "gauge",
		 "Processes in the runnable state.");
}

void enav_node_render_loadavg(struct enav_node *n, struct enav_promtext *p)
{
	static const char *const names[] = {"node_load1", "node_load5", "node_load15"};
	static const char *const helps[] = {"Load average over 1 minute.",
					    "Load average over 5 minutes.",
					    "Load average over 15 minutes."};
	double load[3];
	ssize_t len = enav_node_read(n, ENAV_NODE_F_LOADAVG);

	if (len < 0)
		return;
	if (!enav_node_parse_loadavg(n->buf, (size_t)len, load)) {
		enav_node_count_error(n, ENAV_NODE_F_LOADAVG);
		return;
	}
	n->available[ENAV_NODE_C_LOADAVG] = true;
	for (int i = 0; i < 3; i++) {
		enav_promtext_family(p, names[i], "gauge", helps[i]);
		enav_promtext_sample(p, names[i], NULL, 0, load[i]);
	}
}
