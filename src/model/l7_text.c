/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Text helpers shared by the L7 parsers (see l7_text.h): route templates,
 * W3C traceparent, SQL operation/target and sanitized statements.
 *
 * Everything here reads exactly the n bytes it is given (never a NUL
 * terminator), writes NUL-terminated printable ASCII within the caller's
 * caps, and never allocates.
 */
#include "model/l7_text.h"
#include "platform/numfmt.h"

#include <string.h>

/* ---- output buffer -------------------------------------------------------- */

struct obuf {
	char *p;
	size_t cap, n; /* n < cap whenever cap > 0 */
	bool full;
};

static void ob_init(struct obuf *o, char *p, size_t cap)
{
	o->p = p;
	o->cap = cap;
	o->n = 0;
	o->full = cap == 0;
	if (cap)
		p[0] = '\0';
}

static void ob_putc(struct obuf *o, unsigned char c)
{
	if (o->full || o->n + 1 >= o->cap) {
		o->full = true;
		return;
	}
	o->p[o->n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	o->p[o->n] = '\0';
}

/* As ob_putc byte by byte: what fits, the rest marks the buffer full. */
static void ob_put(struct obuf *o, const char *s, size_t n)
{
	if (o->full)
		return;
	size_t room = o->cap - 1 - o->n; /* n < cap */
	size_t k = n < room ? n : room;

	for (size_t i = 0; i < k; i++) {
		unsigned char c = (unsigned char)s[i];

		o->p[o->n + i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	o->n += k;
	o->p[o->n] = '\0';
	if (k < n)
		o->full = true;
}

static void ob_puts(struct obuf *o, const char *s)
{
	ob_put(o, s, strlen(s));
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned char to_upper(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? (unsigned char)(c - 'a' + 'A') : c;
}

/* ---- route templates ------------------------------------------------------ */

#define TEMPLATE_MAX_SEGMENTS 8

static bool is_uuid(const unsigned char *s, size_t n)
{
	if (n != 36)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !is_hex(s[i]))
			return false;
	}
	return true;
}

/*
 * Route words are short: a run of letters longer than this is a name, a
 * token or a tenant making routes up (letters-only segments of 60 bytes were
 * enough to flood the request metrics).
 */
#define ROUTE_WORD_MAX 32

static bool is_vowel(unsigned char c)
{
	c = (unsigned char)(c | 0x20);
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y';
}

/*
 * Letters that do not read as words.  Random lowercase letters are four
 * fifths consonants; words written in routes rarely chain six consonants
 * ("healthchecks" has five) or keep fewer than one vowel in five letters.
 * Only segments of 12 letters or more are judged: a short word is never
 * turned into {id} by chance.  A word misjudged costs a route its name, not
 * a label set.
 */
static bool letters_look_random(const unsigned char *s, size_t n)
{
	size_t letters = 0, vowels = 0, run = 0, longest = 0;
	if (n < 12) /* fewer than 12 letters: never judged */
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!is_alpha(s[i])) {
			run = 0;
			continue;
		}
		letters++;
		if (is_vowel(s[i])) {
			vowels++;
			run = 0;
		} else if (++run > longest) {
			longest = run;
		}
	}
	if (letters < 12)
		return false;
	return longest >= 6 || (letters >= 16 && vowels * 5 < letters);
}

/* Does a path segment look like an identifier rather than a route word? */
static bool segment_is_id(const unsigned char *s, size_t n)
{
	size_t digits = 0, letters = 0, hex = 0;

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (is_digit(s[i]))
			digits++;
		else if (is_alpha(s[i]))
			letters++;
		if (is_hex(s[i]))
			hex++;
		if (s[i] == '@') /* an e-mail address or user@host */
			return true;
	}
	if (digits == n) /* 42, 20240101 */
		return true;
	if (is_uuid(s, n))
		return true;
	if (n >= 8 && hex == n && digits > 0) /* sha, object id, hex token */
		return true;
	/* Mixed tokens: base64/base62 ids, JWTs, dated slugs.  Route words
	 * carry a version digit or two ("v2", "oauth2callback"), not three. */
	if (n >= 12 && letters > 0 && digits >= 3)
		return true;
	if (n >= 24 && digits > 0)
		return true;
	if (n > 64) /* nothing that long is a route word */
		return true;
	if (letters == n && n > ROUTE_WORD_MAX)
		return true;
	return letters_look_random(s, n);
}

static bool prefix_ci(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);

	if (n < l)
		return false;
	for (size_t i = 0; i < l; i++)
		if (to_upper((unsigned char)s[i]) != to_upper((unsigned char)lit[i]))
			return false;
	return true;
}

size_t enav_l7_path_template(const char *path, size_t n, char *out, size_t cap)
{
	struct obuf o;
	const unsigned char *s = (const unsigned char *)path;

	ob_init(&o, out, cap);
	if (cap == 0)
		return 0;
	if (!path)
		n = 0;
	/* Query and fragment go. */
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '?' || s[i] == '#') {
			n = i;
			break;
		}
	}
	/* Absolute form (proxy requests): drop scheme and authority. */
	size_t skip = 0;

	if (prefix_ci(path, n, "http://"))
		skip = 7;
	else if (prefix_ci(path, n, "https://"))
		skip = 8;
	else if (prefix_ci(path, n, "ws://"))
		skip = 5;
	else if (prefix_ci(path, n, "wss://"))
		skip = 6;
	if (skip) {
		size_t i = skip;

		while (i < n && s[i] != '/')
			i++;
		s += i;
		n -= i;
		if (n == 0) {
			ob_putc(&o, '/');
			return o.n;
		}
	}

	unsigned segments = 0;
	size_t i = 0;

	while (i < n) {
		if (s[i] == '/') {
			ob_putc(&o, '/');
			i++;
			continue;
		}
		size_t b = i;

		while (i < n && s[i] != '/')
			i++;
		if (++segments > TEMPLATE_MAX_SEGMENTS) {
			ob_puts(&o, "...");
			break;
		}
		if (segment_is_id(s + b, i - b))
			ob_puts(&o, "{id}");
		else
			ob_put(&o, (const char *)s + b, i - b);
	}
	return o.n;
}

/* Segment bytes that identifier-like values carry and route words do not: an
 * escaped '@' (%40), matrix and key=value parameters, user:token pairs. */
static bool segment_has_value_bytes(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '%' || s[i] == ';' || s[i] == '=' || s[i] == ':' || s[i] == ',')
			return true;
	return false;
}

size_t enav_l7_path_redact(const char *path, size_t n, char *out, size_t cap)
{
	const unsigned char *s = (const unsigned char *)path;
	struct obuf o;

	ob_init(&o, out, cap);
	if (cap == 0)
		return 0;
	if (!path)
		n = 0;
	size_t q = n;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '?' || s[i] == '#') {
			q = i;
			break;
		}
	for (size_t i = 0; i < q;) {
		if (s[i] == '/') {
			ob_putc(&o, '/');
			i++;
			continue;
		}
		size_t b = i;
		while (i < q && s[i] != '/')
			i++;
		if (segment_is_id(s + b, i - b) || segment_has_value_bytes(s + b, i - b))
			ob_puts(&o, "{id}");
		else
			ob_put(&o, (const char *)s + b, i - b);
	}
	/* A query is here only when the operator kept it (keep_query). */
	if (q < n && s[q] == '?')
		ob_put(&o, (const char *)s + q, n - q);
	return o.n;
}

/* ---- W3C traceparent ------------------------------------------------------ */

/* n bytes of lower-case hex (upper case is invalid in traceparent). */
static bool hex_bytes(const unsigned char *s, size_t nbytes, uint8_t *out, bool *all_zero)
{
	for (size_t i = 0; i < 2 * nbytes; i++)
		if (s[i] >= 'A' && s[i] <= 'F')
			return false;
	if (!enav_parse_hex_bytes((const char *)s, 2 * nbytes, out, nbytes))
		return false;
	*all_zero = true;
	for (size_t i = 0; i < nbytes; i++)
		if (out[i])
			*all_zero = false;
	return true;
}

bool enav_l7_traceparent_parse(const char *v, size_t n, uint8_t trace_id[16], uint8_t parent_id[8],
			       uint8_t *flags)
{
	const unsigned char *s = (const unsigned char *)v;

	if (!v)
		return false;
	/* Optional whitespace around a header value is not part of it. */
	while (n > 0 && (s[0] == ' ' || s[0] == '\t')) {
		s++;
		n--;
	}
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n < 55)
		return false;

	uint8_t version, tid[16], pid[8], fl;
	bool zero_v, zero_t, zero_p, zero_f;

	if (!hex_bytes(s, 1, &version, &zero_v) || version == 0xff)
		return false;
	if (s[2] != '-' || s[35] != '-' || s[52] != '-')
		return false;
	if (!hex_bytes(s + 3, 16, tid, &zero_t) || zero_t)
		return false;
	if (!hex_bytes(s + 36, 8, pid, &zero_p) || zero_p)
		return false;
	if (!hex_bytes(s + 53, 1, &fl, &zero_f))
		return false;
	/* Version 00 is exactly 55 characters; a later version may append
	 * fields, each after a '-'. */
	if (version == 0 ? n != 55 : (n > 55 && s[55] != '-'))
		return false;
	if (trace_id)
		memcpy(trace_id, tid, sizeof(tid));
	if (parent_id)
		memcpy(parent_id, pid, sizeof(pid));
	if (flags)
		*flags = fl;
	return true;
}

/* ---- SQL ------------------------------------------------------------------ */

enum tok_kind {
	T_END,
	T_WORD,	  /* keyword or identifier */
	T_QIDENT, /* `quoted` or "quoted" identifier */
	T_LIT,	  /* string or numeric literal */
	T_PARAM,  /* ?, $1 */
	T_PUNCT,  /* one character */
};

struct tok {
	enum tok_kind k;
	size_t s, e;	   /* [s, e) in the text */
	bool space_before; /* whitespace or a comment separated it from the previous token */
};

struct lexer {
	const unsigned char *p;
	size_t n, i;
	enum enav_sql_dialect dialect;
	bool prev_wordish; /* previous token ended with an identifier character */
};

static bool word_start(unsigned char c)
{
	return is_alpha(c) || c == '_' || c >= 0x80;
}

static bool word_char(unsigned char c)
{
	return word_start(c) || is_digit(c) || c == '$';
}

/* Skip whitespace and comments; true when anything was skipped. */
static bool skip_space(struct lexer *lx)
{
	bool any = false;

	while (lx->i < lx->n) {
		unsigned char c = lx->p[lx->i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			lx->i++;
		} else if (c == '-' && lx->i + 1 < lx->n && lx->p[lx->i + 1] == '-') {
			while (lx->i < lx->n && lx->p[lx->i] != '\n')
				lx->i++;
		} else if (c == '#') { /* MySQL comment */
			while (lx->i < lx->n && lx->p[lx->i] != '\n')
				lx->i++;
		} else if (c == '/' && lx->i + 1 < lx->n && lx->p[lx->i + 1] == '*') {
			/* Nested, as PostgreSQL reads them: in doubt, more text is
			 * dropped, never shown. */
			unsigned depth = 0;

			while (lx->i < lx->n) {
				if (lx->p[lx->i] == '/' && lx->i + 1 < lx->n &&
				    lx->p[lx->i + 1] == '*') {
					depth++;
					lx->i += 2;
				} else if (lx->p[lx->i] == '*' && lx->i + 1 < lx->n &&
					   lx->p[lx->i + 1] == '/') {
					lx->i += 2;
					if (--depth == 0)
						break;
				} else {
					lx->i++;
				}
			}
		} else {
			break;
		}
		any = true;
	}
	return any;
}

/* A quoted run starting at lx->i with quote q; returns the index after the
 * closing quote (or n when unterminated).  With backslash, "\\q" is where the
 * dialects part: an escaped quote to MySQL (and a PostgreSQL E'' string), the
 * end of the string to PostgreSQL (standard_conforming_strings, its default
 * since 9.1).  Either reading shows text the other hides, so unless the
 * dialect or the string's kind (escapes) says which, everything from there on
 * is hidden (n). */
static size_t skip_quoted(const struct lexer *lx, unsigned char q, bool backslash, bool escapes)
{
	size_t i = lx->i + 1;

	while (i < lx->n) {
		unsigned char c = lx->p[i];

		if (backslash && c == '\\') {
			if (!escapes && i + 1 < lx->n && lx->p[i + 1] == q) {
				if (lx->dialect == ENAV_SQL_POSTGRES)
					return i + 2; /* the string ends at this quote */
				return lx->n;
			}
			i += 2;
			continue;
		}
		if (c == q) {
			if (i + 1 < lx->n && lx->p[i + 1] == q) { /* doubled quote */
				i += 2;
				continue;
			}
			return i + 1;
		}
		i++;
	}
	return lx->n;
}

/* $tag$ ... $tag$ (PostgreSQL dollar quoting) at lx->i; 0 when not one. */
static size_t skip_dollar(const struct lexer *lx)
{
	size_t i = lx->i + 1;

	while (i < lx->n && (word_start(lx->p[i]) || (i > lx->i + 1 && is_digit(lx->p[i]))))
		i++;
	if (i >= lx->n || lx->p[i] != '$')
		return 0;
	size_t tag = i + 1 - lx->i; /* delimiter length including both '$' */

	for (size_t j = i + 1; j + tag <= lx->n; j++)
		if (lx->p[j] == '$' && memcmp(lx->p + j, lx->p + lx->i, tag) == 0)
			return j + tag;
	return lx->n;
}

static bool plain_ident(const unsigned char *s, size_t n)
{
	if (n == 0 || n > 63 || !(is_alpha(s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(is_alpha(s[i]) || is_digit(s[i]) || s[i] == '_' || s[i] == '$'))
			return false;
	return true;
}

static struct tok next_tok(struct lexer *lx)
{
	struct tok t = {.k = T_END};

	t.space_before = skip_space(lx);
	t.s = t.e = lx->i;
	if (lx->i >= lx->n)
		return t;

	const unsigned char *p = lx->p;
	unsigned char c = p[lx->i];
	size_t i = lx->i;

	if (word_start(c)) {
		while (i < lx->n && word_char(p[i]))
			i++;
		/* A word glued to a quote is a literal's prefix: E'..', N'..',
		 * X'..', B'..', _utf8mb4'..'. */
		if (i < lx->n && p[i] == '\'') {
			/* E'..' is PostgreSQL's escape string: backslashes escape. */
			bool e_string = i - lx->i == 1 && (p[lx->i] | 0x20) == 'e';
			lx->i = i;
			i = skip_quoted(lx, '\'', true, e_string || lx->dialect == ENAV_SQL_MYSQL);
			t.k = T_LIT;
		} else {
			t.k = T_WORD;
		}
	} else if (c == '\'') {
		i = skip_quoted(lx, '\'', true, lx->dialect == ENAV_SQL_MYSQL);
		t.k = T_LIT;
	} else if (c == '"') {
		/* An identifier in standard SQL, a string in MySQL's default mode
		 * (with its backslash escapes): read as the target when shaped like
		 * an identifier; shown in a sanitized statement only when the
		 * dialect is PostgreSQL's (sql_sanitize): to MySQL "hunter2" may be
		 * a password. */
		if (lx->dialect == ENAV_SQL_POSTGRES)
			i = skip_quoted(lx, '"', false, false);
		else
			i = skip_quoted(lx, '"', true, lx->dialect == ENAV_SQL_MYSQL);
		size_t inner_e = i > t.s + 1 && p[i - 1] == '"' ? i - 1 : i;

		t.k = i > t.s + 1 && p[i - 1] == '"' && plain_ident(p + t.s + 1, inner_e - t.s - 1)
			  ? T_QIDENT
			  : T_LIT;
	} else if (c == '`') {
		i = skip_quoted(lx, '`', false, false);
		t.k = i > t.s + 1 && p[i - 1] == '`' ? T_QIDENT : T_LIT; /* unterminated: hidden */
	} else if (is_digit(c) ||
		   (c == '.' && i + 1 < lx->n && is_digit(p[i + 1]) && !lx->prev_wordish)) {
		bool dec = is_digit(c) && !(c == '0' && i + 1 < lx->n && (p[i + 1] | 0x20) == 'x');

		while (i < lx->n) {
			unsigned char d = p[i];

			if (is_digit(d) || is_alpha(d) || d == '_' || d == '.') {
				i++;
				if (dec && (d == 'e' || d == 'E') && i < lx->n &&
				    (p[i] == '+' || p[i] == '-'))
					i++;
				continue;
			}
			break;
		}
		t.k = T_LIT;
	} else if (c == '$') {
		if (i + 1 < lx->n && is_digit(p[i + 1])) {
			i++;
			while (i < lx->n && is_digit(p[i]))
				i++;
			t.k = T_PARAM;
		} else {
			size_t e = skip_dollar(lx);

			if (e) {
				i = e;
				t.k = T_LIT;
			} else {
				i++;
				t.k = T_PUNCT;
			}
		}
	} else if (c == '?') {
		i++;
		t.k = T_PARAM;
	} else {
		i++;
		t.k = T_PUNCT;
	}
	lx->i = i;
	t.e = i;
	lx->prev_wordish = t.k == T_WORD || t.k == T_QIDENT || t.k == T_PARAM;
	return t;
}

static bool word_is(const struct lexer *lx, const struct tok *t, const char *kw)
{
	size_t l = strlen(kw);

	if (t->k != T_WORD || t->e - t->s != l)
		return false;
	for (size_t i = 0; i < l; i++)
		if (to_upper(lx->p[t->s + i]) != (unsigned char)kw[i])
			return false;
	return true;
}

static bool word_in(const struct lexer *lx, const struct tok *t, const char *const *list)
{
	for (; *list; list++)
		if (word_is(lx, t, *list))
			return true;
	return false;
}

static const char *const sql_ops[] = {
    "SELECT",	"INSERT",     "UPDATE",	   "DELETE",	 "REPLACE",  "MERGE",	  "UPSERT",
    "CREATE",	"DROP",	      "ALTER",	   "TRUNCATE",	 "RENAME",   "BEGIN",	  "START",
    "COMMIT",	"ROLLBACK",   "SAVEPOINT", "RELEASE",	 "END",	     "ABORT",	  "SET",
    "SHOW",	"USE",	      "WITH",	   "EXPLAIN",	 "DESCRIBE", "DESC",	  "CALL",
    "EXEC",	"EXECUTE",    "PREPARE",   "DEALLOCATE", "GRANT",    "REVOKE",	  "LOCK",
    "UNLOCK",	"VACUUM",     "ANALYZE",   "ANALYSE",	 "COPY",     "DECLARE",	  "FETCH",
    "CLOSE",	"MOVE",	      "LISTEN",	   "NOTIFY",	 "UNLISTEN", "DO",	  "RESET",
    "DISCARD",	"CHECKPOINT", "REINDEX",   "CLUSTER",	 "COMMENT",  "KILL",	  "FLUSH",
    "OPTIMIZE", "LOAD",	      "HANDLER",   "VALUES",	 "TABLE",    "CHECKSUM",  "CHECK",
    "REPAIR",	"HELP",	      "XA",	   "PURGE",	 "INSTALL",  "UNINSTALL", "REFRESH",
    "IMPORT",	"SECURITY",   "REASSIGN",  NULL,
};

/* Keywords after which the next name is the statement's main table. */
static const char *const sql_target_kw[] = {"FROM", "INTO", "JOIN", "TABLE", "TABLES", NULL};
/* Statements whose first word is followed by the table. */
static const char *const sql_op_target[] = {"UPDATE", "TRUNCATE", "COPY", "TABLE", NULL};
/* Words between a target keyword and the name. */
static const char *const sql_target_skip[] = {
    "ONLY",   "IF",	 "NOT",	    "EXISTS",	"LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY",
    "IGNORE", "LATERAL", "OUTFILE", "DUMPFILE", "QUICK",	"TABLE",   NULL,
};
/* First words of a query inside parentheses (data-modifying CTEs too). */
static const char *const sql_subquery[] = {"SELECT", "WITH",   "VALUES", "TABLE",
					   "INSERT", "UPDATE", "DELETE", NULL};
/* The statement a WITH clause leads to. */
static const char *const sql_with_main[] = {"SELECT", "INSERT", "UPDATE", "DELETE",
					    "MERGE",  "VALUES", "TABLE",  NULL};

static void put_upper_word(struct obuf *o, const struct lexer *lx, const struct tok *t)
{
	for (size_t i = t->s; i < t->e; i++)
		ob_putc(o, to_upper(lx->p[i]));
}

/* The name part of an identifier token, quotes removed. */
static void put_ident(struct obuf *o, const struct lexer *lx, const struct tok *t)
{
	size_t s = t->s, e = t->e;

	if (t->k == T_QIDENT) {
		s++;
		if (e > s && (lx->p[e - 1] == '`' || lx->p[e - 1] == '"'))
			e--;
	}
	ob_put(o, (const char *)lx->p + s, e - s);
}

/* Read `ident(.ident)*` starting with t into o; returns the token after it
 * (the lexer is left past that token). */
static struct tok read_qualified(struct lexer *lx, struct tok t, struct obuf *o)
{
	put_ident(o, lx, &t);
	for (;;) {
		struct lexer save = *lx;
		struct tok dot = next_tok(lx);

		if (dot.k != T_PUNCT || lx->p[dot.s] != '.') {
			return dot;
		}
		struct tok part = next_tok(lx);

		if (part.k != T_WORD && part.k != T_QIDENT) {
			*lx = save;
			return next_tok(lx);
		}
		ob_putc(o, '.');
		put_ident(o, lx, &part);
	}
}

static void sql_sanitize(const char *sql, size_t n, enum enav_sql_dialect d, char *out, size_t cap)
{
	struct lexer lx = {.p = (const unsigned char *)sql, .n = n, .dialect = d};
	struct obuf o;
	bool first = true;

	ob_init(&o, out, cap);
	for (;;) {
		struct tok t = next_tok(&lx);

		if (t.k == T_END || o.full)
			break;
		if (t.space_before && !first)
			ob_putc(&o, ' ');
		first = false;
		if (t.k == T_LIT || (t.k == T_QIDENT && sql[t.s] == '"' && d != ENAV_SQL_POSTGRES))
			ob_putc(&o, '?');
		else
			ob_put(&o, sql + t.s, t.e - t.s);
	}
}

void enav_l7_sql_summarize(const char *sql, size_t n, char *op, size_t op_cap, char *target,
			   size_t target_cap, char *sanitized, size_t sanitized_cap)
{
	enav_l7_sql_summarize_dialect(sql, n, ENAV_SQL_UNKNOWN, op, op_cap, target, target_cap,
				      sanitized, sanitized_cap);
}

void enav_l7_sql_summarize_dialect(const char *sql, size_t n, enum enav_sql_dialect dialect,
				   char *op, size_t op_cap, char *target, size_t target_cap,
				   char *sanitized, size_t sanitized_cap)
{
	struct obuf oo, ot;

	ob_init(&oo, op, op_cap);
	ob_init(&ot, target, target_cap);
	if (!sql)
		n = 0;
	if (sanitized)
		sql_sanitize(sql, n, dialect, sanitized, sanitized_cap);

	struct lexer lx = {.p = (const unsigned char *)sql, .n = n, .dialect = dialect};
	struct tok t = next_tok(&lx);

	while (t.k == T_PUNCT && lx.p[t.s] == '(')
		t = next_tok(&lx);
	if (t.k != T_WORD || !word_in(&lx, &t, sql_ops)) {
		ob_puts(&oo, "OTHER");
		return;
	}

	bool with_pending = word_is(&lx, &t, "WITH");
	bool want = word_in(&lx, &t, sql_op_target); /* the next name is the table */
	bool want_from = false;			     /* ...unless it is a function call */
	bool found = false;
	unsigned depth = 0;
	uint64_t subq = 0; /* bit d: the paren at depth d+1 opens a query */
	bool after_paren = false;

	if (!with_pending)
		put_upper_word(&oo, &lx, &t);

	t = next_tok(&lx);
	while (t.k != T_END && (!found || with_pending)) {
		if (t.k == T_PUNCT && lx.p[t.s] == ';' && depth == 0)
			break;
		if (t.k == T_PUNCT && lx.p[t.s] == '(') {
			want = false;
			depth++;
			if (depth <= 64)
				subq &= ~(1ull << (depth - 1));
			after_paren = true;
			t = next_tok(&lx);
			continue;
		}
		if (t.k == T_PUNCT && lx.p[t.s] == ')') {
			want = false;
			after_paren = false;
			if (depth > 0)
				depth--;
			t = next_tok(&lx);
			continue;
		}
		if (after_paren) {
			after_paren = false;
			if (depth <= 64 && word_in(&lx, &t, sql_subquery))
				subq |= 1ull << (depth - 1);
		}
		bool active = depth == 0 || (depth <= 64 && (subq >> (depth - 1) & 1));

		if (with_pending && depth == 0 && word_in(&lx, &t, sql_with_main)) {
			with_pending = false;
			put_upper_word(&oo, &lx, &t);
			if (!found && word_in(&lx, &t, sql_op_target)) {
				want = true;
				want_from = false;
			}
			t = next_tok(&lx);
			continue;
		}
		if (found) {
			t = next_tok(&lx);
			continue;
		}
		if (want) {
			if (t.k == T_WORD && word_in(&lx, &t, sql_target_skip)) {
				t = next_tok(&lx);
				continue;
			}
			want = false;
			if (t.k == T_WORD || t.k == T_QIDENT) {
				char name[256];
				struct obuf on;

				ob_init(&on, name, sizeof(name));
				struct tok after = read_qualified(&lx, t, &on);

				if (!(want_from && after.k == T_PUNCT && lx.p[after.s] == '(')) {
					ob_puts(&ot, name);
					found = true;
				}
				t = after;
				continue;
			}
		}
		if (active && t.k == T_WORD && word_in(&lx, &t, sql_target_kw)) {
			want = true;
			want_from = word_is(&lx, &t, "FROM") || word_is(&lx, &t, "JOIN");
		}
		t = next_tok(&lx);
	}
	if (with_pending)
		ob_puts(&oo, "WITH");
}
