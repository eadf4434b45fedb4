/* SPDX-License-Identifier: Apache-2.0 */
#include "exporters/otlp/prom_to_otlp.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAME      256
#define MAX_VALUE     1024
#define MAX_BUCKETS   64
#define MAX_LINE_SPAN 65536

enum fam_type { F_UNTYPED, F_COUNTER, F_GAUGE, F_HISTOGRAM, F_SUMMARY };
enum suffix { S_NONE, S_BUCKET, S_SUM, S_COUNT };

struct prom_label {
	char *k, *v;
};

struct prom_point {
	uint32_t family;
	uint32_t order;
	enum suffix suffix;
	uint8_t n_labels;
	struct prom_label labels[ENAV_PROM_MAX_LABELS];
	double value;
	double le; /* buckets */
};

struct prom_family {
	char *name, *help;
	enum fam_type type;
};

struct enav_prom_snapshot {
	struct prom_family *fam;
	uint32_t n_fam;
	struct prom_point *pts;
	uint32_t n_pts, cap_pts;
	uint64_t malformed, over_cap;
	size_t bytes;	  /* heap held, near enough for a budget */
	size_t max_bytes; /* past it no point is added (counted as over_cap) */
};

static char *dup_n(struct enav_prom_snapshot *s, const char *str, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, str, n);
		d[n] = '\0';
		s->bytes += n + 1;
	}
	return d;
}

static int find_family(const struct enav_prom_snapshot *s, const char *name, size_t n)
{
	/* Families arrive in order: the last one is the usual match. */
	for (int i = (int)s->n_fam - 1; i >= 0; i--)
		if (strlen(s->fam[i].name) == n && !memcmp(s->fam[i].name, name, n))
			return i;
	return -1;
}

static int add_family(struct enav_prom_snapshot *s, const char *name, size_t n)
{
	if (s->n_fam == ENAV_PROM_MAX_FAMILIES || n == 0 || n > MAX_NAME)
		return -1;
	struct prom_family *f = &s->fam[s->n_fam];
	f->name = dup_n(s, name, n);
	f->help = NULL;
	f->type = F_UNTYPED;
	if (!f->name)
		return -1;
	return (int)s->n_fam++;
}

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && c >= '0' && c <= '9');
}

/* A label value with \\, \" and \n escapes, up to its closing quote. */
static const char *parse_value(const char *p, const char *end, char *out, size_t cap)
{
	size_t n = 0;
	while (p < end && *p != '"') {
		char c = *p++;
		if (c == '\\') {
			if (p == end)
				return NULL;
			c = *p++;
			if (c == 'n')
				c = '\n';
			else if (c != '\\' && c != '"')
				return NULL;
		}
		if (n + 1 >= cap)
			return NULL;
		out[n++] = c;
	}
	if (p == end)
		return NULL;
	out[n] = '\0';
	return p + 1;
}

static void free_point_labels(struct enav_prom_snapshot *s, struct prom_point *pt)
{
	for (uint8_t i = 0; i < pt->n_labels; i++) {
		s->bytes -= (pt->labels[i].k ? strlen(pt->labels[i].k) + 1 : 0) +
			    (pt->labels[i].v ? strlen(pt->labels[i].v) + 1 : 0);
		free(pt->labels[i].k);
		free(pt->labels[i].v);
	}
	pt->n_labels = 0;
}

/*
 * Add pt, whose labels it takes, as a sample of name: of its family, or of a
 * histogram's whose suffixed series it is; a name no family has starts an
 * untyped one.  Past the caps it is counted and freed.  False (pt left to
 * the caller) only when memory runs out.
 */
static bool add_point(struct enav_prom_snapshot *s, const char *name, size_t nlen,
		      struct prom_point *pt)
{
	int fam = find_family(s, name, nlen);
	pt->suffix = S_NONE;
	static const struct {
		const char *sfx;
		enum suffix v;
	} sfx[] = {{"_bucket", S_BUCKET}, {"_sum", S_SUM}, {"_count", S_COUNT}};
	for (size_t k = 0; fam < 0 && k < 3; k++) {
		size_t sl = strlen(sfx[k].sfx);
		if (nlen > sl && !memcmp(name + nlen - sl, sfx[k].sfx, sl)) {
			int f = find_family(s, name, nlen - sl);
			if (f >= 0 &&
			    (s->fam[f].type == F_HISTOGRAM || s->fam[f].type == F_SUMMARY)) {
				fam = f;
				pt->suffix = sfx[k].v;
			}
		}
	}
	if (fam < 0)
		fam = add_family(s, name, nlen);
	if (fam < 0 || s->n_pts == ENAV_PROM_MAX_POINTS || s->bytes > s->max_bytes) {
		s->over_cap++;
		free_point_labels(s, pt);
		return true;
	}
	if (s->n_pts == s->cap_pts) {
		uint32_t c = s->cap_pts ? s->cap_pts * 2 : 256;
		struct prom_point *np = realloc(s->pts, c * sizeof(*np));
		if (!np)
			return false;
		s->bytes += (size_t)(c - s->cap_pts) * sizeof(*np);
		s->pts = np;
		s->cap_pts = c;
	}
	pt->family = (uint32_t)fam;
	pt->order = s->n_pts;
	s->pts[s->n_pts++] = *pt;
	return true;
}

static bool parse_sample(struct enav_prom_snapshot *s, const char *p, const char *end)
{
	const char *name = p;
	if (p == end || !name_char(*p, true))
		return false;
	while (p < end && name_char(*p, false))
		p++;
	size_t nlen = (size_t)(p - name);
	if (nlen > MAX_NAME)
		return false;
	struct prom_point pt = {0};
	if (p < end && *p == '{') {
		p++;
		while (p < end && *p != '}') {
			const char *k = p;
			while (p < end && name_char(*p, p == k))
				p++;
			size_t klen = (size_t)(p - k);
			if (!klen || klen > MAX_NAME || p + 1 >= end || p[0] != '=' || p[1] != '"')
				goto bad;
			char val[MAX_VALUE];
			p = parse_value(p + 2, end, val, sizeof(val));
			if (!p)
				goto bad;
			if (klen == 2 && !memcmp(k, "le", 2)) {
				char *e;
				pt.le = strtod(val, &e);
				if (*e)
					goto bad;
			} else {
				if (pt.n_labels == ENAV_PROM_MAX_LABELS)
					goto bad;
				struct prom_label *l = &pt.labels[pt.n_labels];
				l->k = dup_n(s, k, klen);
				l->v = dup_n(s, val, strlen(val));
				pt.n_labels++;
				if (!l->k || !l->v)
					goto bad;
			}
			if (p < end && *p == ',')
				p++;
		}
		if (p == end)
			goto bad;
		p++;
	}
	if (p == end || *p != ' ')
		goto bad;
	char num[64];
	size_t i = 0;
	p++;
	while (p < end && *p != ' ' && i + 1 < sizeof(num))
		num[i++] = *p++;
	num[i] = '\0';
	char *e;
	pt.value = strtod(num, &e);
	if (i == 0 || *e)
		goto bad;
	if (!add_point(s, name, nlen, &pt))
		goto bad;
	return true;
bad:
	free_point_labels(s, &pt);
	return false;
}

/* The family's type from its TYPE word (n bytes of t); others leave it. */
static void set_type(struct prom_family *f, const char *t, size_t n)
{
	static const struct {
		const char *n;
		enum fam_type t;
	} types[] = {{"counter", F_COUNTER},
		     {"gauge", F_GAUGE},
		     {"histogram", F_HISTOGRAM},
		     {"summary", F_SUMMARY},
		     {"untyped", F_UNTYPED}};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (n == strlen(types[i].n) && !memcmp(t, types[i].n, n))
			f->type = types[i].t;
}

static void parse_comment(struct enav_prom_snapshot *s, const char *p, const char *end)
{
	bool type = end - p > 7 && !memcmp(p, "# TYPE ", 7);
	bool help = end - p > 7 && !memcmp(p, "# HELP ", 7);
	if (!type && !help)
		return;
	p += 7;
	const char *name = p;
	while (p < end && *p != ' ')
		p++;
	size_t nlen = (size_t)(p - name);
	if (p < end)
		p++;
	int f = find_family(s, name, nlen);
	if (f < 0)
		f = add_family(s, name, nlen);
	if (f < 0) {
		s->over_cap++;
		return;
	}
	if (type) {
		set_type(&s->fam[f], p, (size_t)(end - p));
	} else if (!s->fam[f].help) {
		/* Help text escapes: \\ and \n. */
		char *h = malloc((size_t)(end - p) + 1);
		size_t n = 0;
		for (const char *q = p; h && q < end; q++) {
			if (*q == '\\' && q + 1 < end) {
				q++;
				h[n++] = *q == 'n' ? '\n' : *q;
			} else {
				h[n++] = *q;
			}
		}
		if (h) {
			h[n] = '\0';
			s->bytes += n + 1;
		}
		s->fam[f].help = h;
	}
}

struct enav_prom_snapshot *enav_prom_snapshot_new(size_t max_bytes)
{
	struct enav_prom_snapshot *s = calloc(1, sizeof(*s));
	if (!s || !(s->fam = calloc(ENAV_PROM_MAX_FAMILIES, sizeof(*s->fam)))) {
		free(s);
		return NULL;
	}
	s->bytes = sizeof(*s) + ENAV_PROM_MAX_FAMILIES * sizeof(*s->fam);
	s->max_bytes = max_bytes;
	return s;
}

void enav_prom_parse_into(struct enav_prom_snapshot *s, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (le - p > MAX_LINE_SPAN) {
			s->malformed++;
		} else if (le > p && *p == '#') {
			parse_comment(s, p, le);
		} else if (le > p && !parse_sample(s, p, le)) {
			s->malformed++;
		}
		p = nl ? nl + 1 : end;
	}
}

struct enav_prom_snapshot *enav_prom_parse(const char *text, size_t len)
{
	/* Bounded by the text itself. */
	struct enav_prom_snapshot *s = enav_prom_snapshot_new(SIZE_MAX);
	if (s)
		enav_prom_parse_into(s, text, len);
	return s;
}

/* ---- the structured feed: a sink-mode enav_promtext writes here ---- */

static void sink_family(void *ctx, const char *name, const char *type, const char *help)
{
	struct enav_prom_snapshot *s = ctx;
	size_t n = strlen(name);
	int f = find_family(s, name, n);
	if (f < 0)
		f = add_family(s, name, n);
	if (f < 0) {
		s->over_cap++;
		return;
	}
	set_type(&s->fam[f], type, strlen(type));
	if (!s->fam[f].help && help)
		s->fam[f].help = dup_n(s, help, strlen(help));
}

/* The sample as the text parser would have read it back: the same caps on
 * names, labels and values, "le" taken as the bucket bound. */
static void sink_sample(void *ctx, const char *name, const char *const *labels, size_t n_pairs,
			double value)
{
	struct enav_prom_snapshot *s = ctx;
	size_t nlen = strlen(name);
	struct prom_point pt = {.value = value};
	if (s->bytes > s->max_bytes) { /* not a label copied past the cap */
		s->over_cap++;
		return;
	}
	if (nlen == 0 || nlen > MAX_NAME)
		goto bad;
	for (size_t i = 0; i < n_pairs; i++) {
		const char *k = labels[2 * i], *v = labels[2 * i + 1];
		size_t klen = strlen(k), vlen = strlen(v);
		if (!klen || klen > MAX_NAME || vlen + 1 >= MAX_VALUE)
			goto bad;
		if (!strcmp(k, "le")) {
			char *e;
			pt.le = strtod(v, &e);
			if (*e || e == v)
				goto bad;
			continue;
		}
		if (pt.n_labels == ENAV_PROM_MAX_LABELS)
			goto bad;
		struct prom_label *l = &pt.labels[pt.n_labels++];
		l->k = dup_n(s, k, klen);
		l->v = dup_n(s, v, vlen);
		if (!l->k || !l->v)
			goto bad;
	}
	if (add_point(s, name, nlen, &pt))
		return;
bad:
	free_point_labels(s, &pt);
	s->malformed++;
}

static void sink_raw(void *ctx, const char *text, size_t len)
{
	enav_prom_parse_into(ctx, text, len);
}

const struct enav_promtext_sink enav_prom_snapshot_sink = {
    .family = sink_family,
    .sample = sink_sample,
    .raw = sink_raw,
};

size_t enav_prom_snapshot_bytes(const struct enav_prom_snapshot *s)
{
	return s->bytes;
}

void enav_prom_snapshot_free(struct enav_prom_snapshot *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n_fam; i++) {
		free(s->fam[i].name);
		free(s->fam[i].help);
	}
	for (uint32_t i = 0; i < s->n_pts; i++)
		free_point_labels(s, &s->pts[i]);
	free(s->fam);
	free(s->pts);
	free(s);
}

void enav_prom_snapshot_counts(const struct enav_prom_snapshot *s, uint64_t *malformed,
			       uint64_t *over_cap)
{
	*malformed = s->malformed;
	*over_cap = s->over_cap;
}

/* ---- to OTLP ------------------------------------------------------------------ */

static int by_family(const void *a, const void *b)
{
	const struct prom_point *x = a, *y = b;
	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static bool same_labels(const struct prom_point *a, const struct prom_point *b)
{
	if (a->n_labels != b->n_labels)
		return false;
	for (uint8_t i = 0; i < a->n_labels; i++)
		if (strcmp(a->labels[i].k, b->labels[i].k) ||
		    strcmp(a->labels[i].v, b->labels[i].v))
			return false;
	return true;
}

static const char *unit_of(const char *name)
{
	size_t n = strlen(name);
	static const struct {
		const char *sfx, *unit;
	} u[] = {{"_seconds", "s"},
		 {"_seconds_total", "s"},
		 {"_bytes", "By"},
		 {"_bytes_total", "By"},
		 {"_ratio", "1"}};
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		size_t sl = strlen(u[i].sfx);
		if (n > sl && !strcmp(name + n - sl, u[i].sfx))
			return u[i].unit;
	}
	return "";
}

/* A count from a double: NaN and negatives are 0, the huge saturate. */
static uint64_t to_count(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 18446744073709549568.0)
		return UINT64_MAX;
	return (uint64_t)v;
}

struct hist_group {
	const struct prom_point *first; /* labels */
	double bounds[MAX_BUCKETS];
	uint64_t cumulative[MAX_BUCKETS + 1];
	size_t n_bounds;
	bool has_inf;
	uint64_t inf, count;
	double sum;
};

/* Bytes of one string field at most: tag, a length of up to 3 bytes, text. */
static size_t str_bytes(const char *s)
{
	return 4 + (s ? strlen(s) : 0);
}

/*
 * Bytes the metric takes encoded, at most: every varint and length at its
 * widest, so a request of metrics whose estimates fit the writer's limit
 * never passes it.
 */
static size_t metric_bytes(const struct enav_otlp_metric *m)
{
	size_t n = 32 + str_bytes(m->name) + str_bytes(m->description) + str_bytes(m->unit);
	for (size_t i = 0; i < m->n_points; i++) {
		const struct enav_otlp_point *pt = &m->points[i];
		/* Wrapper, two times, count, sum or value, flags; packed bounds and
		 * bucket counts. */
		n += 64 + 16 * (pt->n_bounds + 1) + 16;
		for (size_t a = 0; a < pt->n_attrs; a++)
			n += 16 + str_bytes(pt->attrs[a].key) + str_bytes(pt->attrs[a].s);
	}
	return n;
}

/*
 * Metrics in order while their bytes fit the writer's room (less a margin
 * for the resource and scope); a family that does not fit is left out
 * whole and counted, so a large snapshot is sent without it rather than
 * refused whole by the request size limit.
 */
static size_t fit_metrics(const struct enav_pb_writer *w, const struct enav_otlp_resource *res,
			  struct enav_otlp_metric *metrics, size_t nm, uint64_t *left_out)
{
	size_t limit = w->limit ? w->limit : (size_t)64 << 20;
	size_t margin = 4096;
	for (size_t i = 0; i < res->n_attrs; i++)
		margin += 32 + str_bytes(res->attrs[i].key) + str_bytes(res->attrs[i].s);
	size_t room = limit > w->len + margin ? limit - w->len - margin : 0;
	size_t used = 0, kept = 0;
	for (size_t i = 0; i < nm; i++) {
		size_t b = metric_bytes(&metrics[i]);
		if (b > room - used) {
			if (left_out)
				(*left_out)++;
			continue;
		}
		used += b;
		metrics[kept++] = metrics[i];
	}
	return kept;
}

int enav_prom_encode_otlp(struct enav_pb_writer *w, const struct enav_prom_snapshot *s,
			  const struct enav_otlp_resource *resource, struct enav_otlp_scope scope,
			  uint64_t start_unix_ns, uint64_t time_unix_ns, uint64_t *left_out)
{
	int rc = 0;
	struct prom_point *pts = malloc((s->n_pts ? s->n_pts : 1) * sizeof(*pts));
	struct enav_otlp_metric *metrics = calloc(s->n_fam ? s->n_fam : 1, sizeof(*metrics));
	struct enav_otlp_point *points = calloc(s->n_pts ? s->n_pts : 1, sizeof(*points));
	struct enav_otlp_kv *kvs =
	    calloc((size_t)(s->n_pts ? s->n_pts : 1) * ENAV_PROM_MAX_LABELS, sizeof(*kvs));
	struct hist_group *groups = calloc(s->n_pts ? s->n_pts : 1, sizeof(*groups));
	uint64_t *buckets =
	    calloc((size_t)(s->n_pts ? s->n_pts : 1) * (MAX_BUCKETS + 1), sizeof(*buckets));
	char **names = calloc(s->n_fam ? s->n_fam : 1, sizeof(*names));
	if (!pts || !metrics || !points || !kvs || !groups || !buckets || !names) {
		rc = -ENOMEM;
		goto out;
	}
	if (s->n_pts) { /* an empty snapshot has no point array at all */
		memcpy(pts, s->pts, s->n_pts * sizeof(*pts));
		qsort(pts, s->n_pts, sizeof(*pts), by_family);
	}
	size_t nm = 0, np = 0, nkv = 0, ng = 0;
	for (uint32_t i = 0; i < s->n_pts;) {
		uint32_t j = i;
		while (j < s->n_pts && pts[j].family == pts[i].family)
			j++;
		const struct prom_family *f = &s->fam[pts[i].family];
		struct enav_otlp_metric *m = &metrics[nm];
		size_t flen = strlen(f->name);
		/* Counters are sums named without "_total", as OpenTelemetry names them. */
		if (f->type == F_COUNTER && flen > 6 && !strcmp(f->name + flen - 6, "_total"))
			names[nm] = strndup(f->name, flen - 6);
		else
			names[nm] = strdup(f->name);
		if (!names[nm]) {
			rc = -ENOMEM;
			goto out;
		}
		m->name = names[nm];
		m->description = f->help ? f->help : "";
		m->unit = unit_of(f->name);
		m->points = &points[np];
		if (f->type == F_HISTOGRAM) {
			m->type = ENAV_OTLP_HISTOGRAM;
			m->temporality = ENAV_OTLP_TEMPORALITY_CUMULATIVE;
			size_t g0 = ng;
			for (uint32_t k = i; k < j; k++) {
				struct hist_group *g = NULL;
				for (size_t q = g0; q < ng && !g; q++)
					if (same_labels(groups[q].first, &pts[k]))
						g = &groups[q];
				if (!g) {
					g = &groups[ng++];
					memset(g, 0, sizeof(*g));
					g->first = &pts[k];
				}
				uint64_t v = to_count(pts[k].value);
				if (pts[k].suffix == S_BUCKET) {
					if (isinf(pts[k].le)) {
						g->has_inf = true;
						g->inf = v;
					} else if (g->n_bounds < MAX_BUCKETS) {
						g->bounds[g->n_bounds] = pts[k].le;
						g->cumulative[g->n_bounds++] = v;
					}
				} else if (pts[k].suffix == S_SUM) {
					g->sum = pts[k].value;
				} else if (pts[k].suffix == S_COUNT) {
					g->count = v;
				}
			}
			for (size_t q = g0; q < ng; q++) {
				struct hist_group *g = &groups[q];
				struct enav_otlp_point *pt = &points[np++];
				uint64_t *bc = &buckets[q * (MAX_BUCKETS + 1)];
				uint64_t prev = 0;
				for (size_t b = 0; b < g->n_bounds; b++) {
					bc[b] =
					    g->cumulative[b] >= prev ? g->cumulative[b] - prev : 0;
					prev = g->cumulative[b];
				}
				uint64_t total = g->has_inf ? g->inf : g->count;
				bc[g->n_bounds] = total >= prev ? total - prev : 0;
				pt->count = g->count ? g->count : total;
				pt->sum = g->sum;
				pt->bounds = g->bounds;
				pt->n_bounds = g->n_bounds;
				pt->bucket_counts = bc;
				pt->start_unix_ns = start_unix_ns;
				pt->time_unix_ns = time_unix_ns;
				pt->attrs = &kvs[nkv];
				pt->n_attrs = g->first->n_labels;
				for (uint8_t l = 0; l < g->first->n_labels; l++)
					kvs[nkv++] =
					    (struct enav_otlp_kv){.key = g->first->labels[l].k,
								  .type = ENAV_OTLP_STR,
								  .s = g->first->labels[l].v};
			}
		} else {
			m->type = f->type == F_COUNTER ? ENAV_OTLP_SUM : ENAV_OTLP_GAUGE;
			m->monotonic = f->type == F_COUNTER;
			m->temporality = ENAV_OTLP_TEMPORALITY_CUMULATIVE;
			for (uint32_t k = i; k < j; k++) {
				if (pts[k].suffix != S_NONE)
					continue; /* a summary's parts: not exported */
				struct enav_otlp_point *pt = &points[np++];
				pt->start_unix_ns = start_unix_ns;
				pt->time_unix_ns = time_unix_ns;
				double v = pts[k].value;
				/* Integral counts stay integers (exact up to 2^53). */
				if (v == floor(v) && fabs(v) < 9007199254740992.0) {
					pt->is_int = true;
					pt->i = (int64_t)v;
				} else {
					pt->d = v;
				}
				pt->attrs = &kvs[nkv];
				pt->n_attrs = pts[k].n_labels;
				for (uint8_t l = 0; l < pts[k].n_labels; l++)
					kvs[nkv++] =
					    (struct enav_otlp_kv){.key = pts[k].labels[l].k,
								  .type = ENAV_OTLP_STR,
								  .s = pts[k].labels[l].v};
			}
		}
		m->n_points = (size_t)(&points[np] - m->points);
		if (m->n_points)
			nm++;
		else
			free(names[nm]), names[nm] = NULL;
		i = j;
	}
	nm = fit_metrics(w, resource, metrics, nm, left_out);
	struct enav_otlp_resource_metrics rm = {
	    .resource = *resource, .scope = scope, .metrics = metrics, .n_metrics = nm};
	rc = enav_otlp_encode_metrics(w, &rm, 1);
out:
	if (names)
		for (uint32_t i = 0; i < s->n_fam; i++)
			free(names[i]);
	free(names);
	free(pts);
	free(metrics);
	free(points);
	free(kvs);
	free(groups);
	free(buckets);
	return rc;
}
