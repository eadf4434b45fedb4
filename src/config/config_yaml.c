/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Configuration: the YAML walk.  libyaml's event API holds only the current
 * event; aliases and anchors are refused outright (no expansion, no billion
 * laughs), and the walk never descends into a mapping the schema does not
 * describe, so nesting is bounded by the schema itself.  Lists are flat
 * sequences of scalars: a nested collection in a list is an error, never
 * walked.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "config/config_priv.h"
#include "platform/log.h"

/* The schema is three mappings deep; see walk_mapping(). */
#define DEPTH_MAX 8

struct walk {
	yaml_parser_t parser;
	const char *text;
	size_t len;
	struct enav_config *cfg;
	bool seen[ENAV_CONFIG_KEYS_MAX];
	signed char seen_as[ENAV_CONFIG_KEYS_MAX]; /* renames[] row + 1 when set by the old key */
	struct errout e;
};

static int syntax_error(struct walk *w)
{
	const yaml_parser_t *p = &w->parser;
	const char *problem = p->problem ? p->problem : "malformed input";
	size_t line;

	if (p->error == YAML_MEMORY_ERROR)
		return fail(&w->e, "config: out of memory while parsing YAML");
	if (p->error == YAML_READER_ERROR) {
		/* Reader errors carry a byte offset, not a mark. */
		size_t end = p->problem_offset < w->len ? p->problem_offset : w->len;

		line = 1;
		for (size_t i = 0; i < end; i++)
			line += w->text[i] == '\n';
	} else {
		line = p->problem_mark.line + 1;
	}
	if (p->context)
		return fail(&w->e, "config: YAML syntax error at line %zu: %s (%s)", line, problem,
			    p->context);
	return fail(&w->e, "config: YAML syntax error at line %zu: %s", line, problem);
}

static int next_event(struct walk *w, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&w->parser, ev))
		return syntax_error(w);
	return 0;
}

/* YAML null: an empty or ~/null plain scalar with no tag. */
static bool is_null(const yaml_event_t *ev)
{
	const char *s;
	size_t n;

	if (ev->type != YAML_SCALAR_EVENT || ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    ev->data.scalar.tag)
		return false;
	s = (const char *)ev->data.scalar.value;
	n = ev->data.scalar.length;
	return n == 0 || bytes_eq(s, n, "~") || bytes_eq(s, n, "null") || bytes_eq(s, n, "Null") ||
	       bytes_eq(s, n, "NULL");
}

/* What the document holds, for "got ..." messages. */
static void describe_event(char *out, size_t outlen, const yaml_event_t *ev)
{
	char shown[SHOW_BUF];

	switch (ev->type) {
	case YAML_MAPPING_START_EVENT:
		snprintf(out, outlen, "a mapping");
		return;
	case YAML_SEQUENCE_START_EVENT:
		snprintf(out, outlen, "a sequence");
		return;
	case YAML_SCALAR_EVENT:
		break;
	default:
		snprintf(out, outlen, "something else");
		return;
	}
	if (is_null(ev)) {
		snprintf(out, outlen, "no value");
		return;
	}
	show(shown, sizeof(shown), (const char *)ev->data.scalar.value, ev->data.scalar.length);
	switch (ev->data.scalar.style) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		snprintf(out, outlen, "the quoted string \"%s\"", shown);
		break;
	case YAML_LITERAL_SCALAR_STYLE:
	case YAML_FOLDED_SCALAR_STYLE:
		snprintf(out, outlen, "the block string \"%s\"", shown);
		break;
	default:
		snprintf(out, outlen, "\"%s\"", shown);
		break;
	}
}

static int type_error(struct walk *w, const struct field *f, const yaml_event_t *ev)
{
	char want[160], have[SHOW_BUF + 32];

	describe_field(want, sizeof(want), f);
	describe_event(have, sizeof(have), ev);
	if (f->type == T_STR && f->min == 0 && is_null(ev))
		return fail(&w->e, "%s: expected %s, got %s (write \"\" for an empty string)",
			    f->key, want, have);
	if (f->type == T_LIST && is_null(ev))
		return fail(&w->e, "%s: expected %s, got %s (write [] for an empty list)", f->key,
			    want, have);
	return fail(&w->e, "%s: expected %s, got %s", f->key, want, have);
}

/* Anchors, aliases and tags have no use in a config file; refuse them. */
static int check_node(struct walk *w, const yaml_event_t *ev, const char *where)
{
	const yaml_char_t *anchor = NULL, *tag = NULL;
	char shown[SHOW_BUF];

	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return fail(&w->e, "%s: YAML aliases and anchors are not allowed", where);
	case YAML_SCALAR_EVENT:
		anchor = ev->data.scalar.anchor;
		tag = ev->data.scalar.tag;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
		break;
	default:
		break;
	}
	if (anchor)
		return fail(&w->e, "%s: YAML aliases and anchors are not allowed", where);
	if (tag) {
		/* Show the core-schema prefix the way it is usually written. */
		static const char core[] = "tag:yaml.org,2002:";
		const char *t = (const char *)tag;
		bool is_core = strncmp(t, core, sizeof(core) - 1) == 0;

		if (is_core)
			t += sizeof(core) - 1;
		show(shown, sizeof(shown), t, strlen(t));
		return fail(&w->e, "%s: YAML tags are not allowed (got \"%s%s\")", where,
			    is_core ? "!!" : "", shown);
	}
	return 0;
}

static int schema_index(const char *key)
{
	for (size_t i = 0; i < schema_len; i++)
		if (strcmp(schema[i].key, key) == 0)
			return (int)i;
	return -1;
}

static const char *parent_key(int parent)
{
	return parent < 0 ? "" : schema[parent].key;
}

/* Is f a direct child named name[0..n) of the mapping at path parent? */
static bool is_child(const struct field *f, const char *parent, const char *name, size_t n)
{
	size_t pl = strlen(parent);
	const char *rest = f->key;

	if (pl) {
		if (strncmp(f->key, parent, pl) != 0 || f->key[pl] != '.')
			return false;
		rest = f->key + pl + 1;
	}
	return !strchr(rest, '.') && bytes_eq(name, n, rest);
}

static int unknown_key(struct walk *w, int parent, const char *name, size_t n)
{
	const char *ppath = parent_key(parent);
	char shown[SHOW_BUF], allowed[512];
	bool plain = n > 0;
	size_t pl = strlen(ppath), o = 0;

	allowed[0] = '\0';
	for (size_t i = 0; i < schema_len && o < sizeof(allowed); i++) {
		const char *k = schema[i].key;
		const char *last = strrchr(k, '.');
		size_t kpl = last ? (size_t)(last - k) : 0;

		if (kpl == pl && strncmp(k, ppath, pl) == 0 && !schema[i].old)
			o += (size_t)snprintf(allowed + o, sizeof(allowed) - o, "%s%s",
					      o ? ", " : "", last ? last + 1 : k);
	}
	/* A deprecated section lists what it may still hold: its moved keys. */
	for (size_t r = 0; parent >= 0 && schema[parent].old && r < ENAV_CONFIG_RENAMES; r++) {
		const char *k = renames[r].old;
		if (strncmp(k, ppath, pl) == 0 && k[pl] == '.' && !strchr(k + pl + 1, '.') &&
		    o < sizeof(allowed))
			o += (size_t)snprintf(allowed + o, sizeof(allowed) - o, "%s%s",
					      o ? ", " : "", k + pl + 1);
	}
	/* Quote odd key names so the message shows exactly what was written. */
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			plain = false;
	}
	show(shown, sizeof(shown), name, n);
	return fail(&w->e, "%s%s%s%s%s: unknown key (allowed: %s)%s", ppath, pl ? "." : "",
		    plain ? "" : "\"", shown, plain ? "" : "\"", allowed,
		    memchr(name, '.', n) ? "; write dotted keys as nested mappings" : "");
}

/* Consume a key event; on success *idx is its schema entry. */
static int read_key(struct walk *w, int parent, const yaml_event_t *ev, int *idx)
{
	const char *where = parent < 0 ? "config" : schema[parent].key;
	char have[SHOW_BUF + 32];
	const char *name;
	size_t n;

	if (check_node(w, ev, where))
		return -1;
	if (ev->type != YAML_SCALAR_EVENT) {
		describe_event(have, sizeof(have), ev);
		return fail(&w->e, "%s: keys must be plain strings, got %s", where, have);
	}
	name = (const char *)ev->data.scalar.value;
	n = ev->data.scalar.length;
	int found = -1, renamed = -1;
	for (size_t i = 0; i < schema_len && found < 0; i++)
		if (is_child(&schema[i], parent_key(parent), name, n))
			found = (int)i;
	for (size_t r = 0; r < ENAV_CONFIG_RENAMES && found < 0; r++) {
		if (!is_child(&(struct field){.key = renames[r].old}, parent_key(parent), name, n))
			continue;
		renamed = (int)r;
		found = schema_index(renames[r].new_key);
	}
	if (found < 0)
		return unknown_key(w, parent, name, n);
	if (w->seen[found] && w->seen_as[found] != renamed + 1) {
		const char *old = renames[renamed >= 0 ? renamed : w->seen_as[found] - 1].old;
		return fail(&w->e,
			    "%s and %s are both set: %s is the deprecated name of %s; keep %s only",
			    old, schema[found].key, old, schema[found].key, schema[found].key);
	}
	if (w->seen[found])
		return fail(&w->e, "%s: duplicate key", schema[found].key);
	w->seen[found] = true;
	w->seen_as[found] = (signed char)(renamed + 1);
	if (renamed >= 0)
		w->cfg->deprecated_used |= 1u << renamed;
	*idx = found;
	return 0;
}

static int set_scalar(struct walk *w, const struct field *f, const yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	size_t n = ev->data.scalar.length;
	bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	void *dst = field_ptr(w->cfg, f);
	char shown[SHOW_BUF], names[128];
	uint64_t v;
	unsigned e;
	int rc;

	if (is_null(ev))
		return type_error(w, f, ev);
	size_t idx = (size_t)(f - schema);
	w->cfg->explicit_keys[idx / 64] |= 1ull << (idx % 64);
	switch (f->type) {
	case T_BOOL:
		/* Only true/false: YAML 1.1's yes/no/on/off are a classic trap. */
		if (plain && bytes_eq(s, n, "true"))
			*(bool *)dst = true;
		else if (plain && bytes_eq(s, n, "false"))
			*(bool *)dst = false;
		else
			return type_error(w, f, ev);
		return 0;
	case T_U32:
		if (!plain)
			return type_error(w, f, ev);
		rc = parse_u64(s, n, &v);
		if (rc == 1)
			return type_error(w, f, ev);
		show(shown, sizeof(shown), s, n);
		if (rc == 2)
			return fail(&w->e,
				    "%s: %s is out of range (allowed %" PRIu64 "..%" PRIu64 ")",
				    f->key, shown, f->min, f->max);
		if (check_u32(&w->e, f, v, shown))
			return -1;
		*(uint32_t *)dst = (uint32_t)v;
		return 0;
	case T_ENUM:
		for (e = 0; f->names[e]; e++) {
			if (bytes_eq(s, n, f->names[e])) {
				memcpy(dst, &e, sizeof(e));
				return 0;
			}
		}
		show(shown, sizeof(shown), s, n);
		join_names(names, sizeof(names), f->names);
		return fail(&w->e, "%s: \"%s\" is not allowed (allowed: %s)", f->key, shown, names);
	case T_STR:
	case T_LISTEN:
		if (check_string(&w->e, f, f->key, s, n))
			return -1;
		memcpy(dst, s, n);
		((char *)dst)[n] = '\0';
		return 0;
	case T_MAP:
	case T_LIST:
		break;
	}
	return type_error(w, f, ev);
}

/*
 * Called after SEQUENCE_START; consumes through SEQUENCE_END.  The list is
 * replaced, not appended to.  Only scalars are accepted as entries, so the
 * walk never nests: the first non-scalar entry ends the parse.
 */
static int walk_list(struct walk *w, const struct field *f)
{
	struct enav_config_list *l = field_ptr(w->cfg, f);
	char where[128], have[SHOW_BUF + 32];

	memset(l, 0, sizeof(*l));
	for (;;) {
		yaml_event_t ev;
		const char *s;
		size_t n;
		int rc;

		if (next_event(w, &ev))
			return -1;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		snprintf(where, sizeof(where), "%s[%" PRIu32 "]", f->key, l->n);
		if (l->n >= ENAV_CONFIG_LIST_MAX) {
			rc = fail(&w->e, "%s: more than %d entries", f->key, ENAV_CONFIG_LIST_MAX);
		} else {
			rc = check_node(w, &ev, where);
		}
		if (rc == 0 && (ev.type != YAML_SCALAR_EVENT || is_null(&ev))) {
			describe_event(have, sizeof(have), &ev);
			rc = fail(&w->e, "%s: expected a string, got %s", where, have);
		}
		if (rc == 0) {
			s = (const char *)ev.data.scalar.value;
			n = ev.data.scalar.length;
			rc = check_string(&w->e, f, where, s, n);
			if (rc == 0) {
				memcpy(l->item[l->n], s, n);
				l->item[l->n][n] = '\0';
				l->n++;
			}
		}
		yaml_event_delete(&ev);
		if (rc)
			return -1;
	}
}

static int walk_mapping(struct walk *w, int parent, unsigned depth);

/* Consume the value of schema[idx]. */
static int walk_value(struct walk *w, int idx, unsigned depth)
{
	const struct field *f = &schema[idx];
	yaml_event_t ev;
	int rc;

	if (next_event(w, &ev))
		return -1;
	rc = check_node(w, &ev, f->key);
	if (rc == 0) {
		if (f->type == T_MAP) {
			/* A section with every child commented out is null: all defaults. */
			if (ev.type == YAML_MAPPING_START_EVENT)
				rc = walk_mapping(w, idx, depth + 1);
			else if (!is_null(&ev))
				rc = type_error(w, f, &ev);
		} else if (f->type == T_LIST) {
			if (ev.type == YAML_SEQUENCE_START_EVENT)
				rc = walk_list(w, f);
			else
				rc = type_error(w, f, &ev);
		} else if (ev.type == YAML_SCALAR_EVENT) {
			rc = set_scalar(w, f, &ev);
		} else {
			rc = type_error(w, f, &ev);
		}
	}
	yaml_event_delete(&ev);
	return rc;
}

/* Called after MAPPING_START; consumes through MAPPING_END. */
static int walk_mapping(struct walk *w, int parent, unsigned depth)
{
	/*
	 * Only schema mappings are entered, so depth cannot exceed the schema's;
	 * the check keeps recursion bounded should the schema ever change.
	 */
	if (depth > DEPTH_MAX)
		return fail(&w->e, "%s: nested too deeply", parent_key(parent));
	for (;;) {
		yaml_event_t ev;
		int idx = -1, rc;

		if (next_event(w, &ev))
			return -1;
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		rc = read_key(w, parent, &ev, &idx);
		yaml_event_delete(&ev);
		if (rc || walk_value(w, idx, depth))
			return -1;
	}
}

static int walk_document(struct walk *w)
{
	yaml_event_t ev;
	char have[SHOW_BUF + 32];
	int rc;

	if (next_event(w, &ev)) /* STREAM_START */
		return -1;
	yaml_event_delete(&ev);
	if (next_event(w, &ev))
		return -1;
	if (ev.type == YAML_STREAM_END_EVENT) { /* empty, or only comments */
		yaml_event_delete(&ev);
		return 0;
	}
	yaml_event_delete(&ev); /* DOCUMENT_START */

	if (next_event(w, &ev))
		return -1;
	rc = check_node(w, &ev, "config");
	if (rc == 0) {
		if (ev.type == YAML_MAPPING_START_EVENT) {
			rc = walk_mapping(w, -1, 1);
		} else if (!is_null(&ev)) {
			describe_event(have, sizeof(have), &ev);
			rc = fail(&w->e, "config: expected a mapping at the top level, got %s",
				  have);
		}
	}
	yaml_event_delete(&ev);
	if (rc)
		return -1;

	if (next_event(w, &ev)) /* DOCUMENT_END */
		return -1;
	yaml_event_delete(&ev);
	if (next_event(w, &ev))
		return -1;
	rc = 0;
	if (ev.type != YAML_STREAM_END_EVENT)
		rc = fail(&w->e, "config: only one YAML document is allowed");
	yaml_event_delete(&ev);
	return rc;
}

/* ---- entry points --------------------------------------------------------- */

int enav_config_parse(struct enav_config *cfg, const char *yaml, size_t len, char *err,
		      size_t errlen)
{
	struct walk w;
	struct enav_config work = *cfg;
	int rc;

	memset(&w, 0, sizeof(w));
	w.e.buf = err;
	w.e.len = errlen;
	if (err && errlen)
		err[0] = '\0';
	if (len > ENAV_CONFIG_FILE_MAX)
		return fail(&w.e, "config: input is larger than %d bytes", ENAV_CONFIG_FILE_MAX);
	if (!yaml) {
		if (len)
			return fail(&w.e, "config: no input");
		yaml = "";
	}
	w.text = yaml;
	w.len = len;
	w.cfg = &work;
	work.deprecated_used = 0;
	if (!yaml_parser_initialize(&w.parser))
		return fail(&w.e, "config: out of memory while parsing YAML");
	yaml_parser_set_input_string(&w.parser, (const unsigned char *)yaml, len);
	rc = walk_document(&w);
	yaml_parser_delete(&w.parser);
	if (rc == 0)
		rc = config_cross_checks(&w.e, &work);
	/* cfg changes only when the whole file is good. */
	if (rc == 0)
		*cfg = work;
	return rc;
}

int enav_config_load(struct enav_config *cfg, const char *path, char *err, size_t errlen)
{
	struct errout e = {err, errlen};
	char shown[SHOW_BUF];
	char *buf;
	size_t len = 0;
	int fd, rc, saved;

	if (err && errlen)
		err[0] = '\0';
	if (!path)
		return fail(&e, "config: no file given");
	show(shown, sizeof(shown), path, strlen(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(&e, "config: cannot read %s: %s", shown, strerror(errno));
	/* One byte past the cap tells "exactly the cap" from "too large". */
	buf = malloc(ENAV_CONFIG_FILE_MAX + 1);
	if (!buf) {
		close(fd);
		return fail(&e, "config: cannot read %s: %s", shown, strerror(ENOMEM));
	}
	for (;;) {
		ssize_t r = read(fd, buf + len, ENAV_CONFIG_FILE_MAX + 1 - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			saved = errno;
			close(fd);
			free(buf);
			return fail(&e, "config: cannot read %s: %s", shown, strerror(saved));
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > ENAV_CONFIG_FILE_MAX) {
			close(fd);
			free(buf);
			return fail(&e, "config: %s is larger than %d bytes", shown,
				    ENAV_CONFIG_FILE_MAX);
		}
	}
	close(fd);
	rc = enav_config_parse(cfg, buf, len, err, errlen);
	free(buf);
	for (size_t r = 0; rc == 0 && r < ENAV_CONFIG_RENAMES; r++) {
		char note[160];
		if (enav_config_deprecation(cfg, r, note, sizeof(note)))
			enav_warn("%s", note);
	}
	return rc;
}
