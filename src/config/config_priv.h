/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private to src/config/: the schema table and the helpers its three files
 * share (config.c the schema, config_yaml.c the YAML walk, config_checks.c
 * the syntax rules of names).  The helpers keep their short names in the
 * sources and link under enav_config_* ones.
 */
#ifndef ENAV_CONFIG_CONFIG_PRIV_H
#define ENAV_CONFIG_CONFIG_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Bytes of a user value echoed in an error; the rest is elided. */
#define SHOW_MAX 64
/* Escaping can turn one byte into four; plus quotes, "..." and NUL. */
#define SHOW_BUF (SHOW_MAX * 4 + 8)
enum ftype { T_MAP, T_BOOL, T_U32, T_ENUM, T_STR, T_LISTEN, T_LIST };

struct errout {
	char *buf;
	size_t len;
};

/*
 * A per-key rule for a string or list entry that is already known to be
 * NUL-free and within its length bounds.  where is the key, or "key[i]" for
 * a list entry; on a bad value the checker reports one line and returns -1.
 */
typedef int (*check_fn)(struct errout *e, const char *where, const char *s, size_t n);

struct field {
	const char *key; /* full dotted path */
	enum ftype type;
	size_t off;		  /* offset in struct enav_config (not T_MAP) */
	size_t size;		  /* T_STR, T_LISTEN, T_LIST: (entry) buffer size */
	uint64_t min, max;	  /* T_U32: value range; T_STR, T_LIST: (entry) length range */
	bool pow2;		  /* T_U32: must also be a power of two */
	const char *const *names; /* T_ENUM: value i is names[i], NULL-terminated */
	uint64_t def;		  /* default for T_BOOL, T_U32, T_ENUM */
	const char *def_str;	  /* default for T_STR, T_LISTEN; T_LIST is empty */
	check_fn check;		  /* T_STR, T_LIST: optional per-value rule */
	bool old;		  /* T_MAP: a deprecated section, never in "allowed:" hints */
};

/* A key that moved: old is still read as new_key (config.c renames[]). */
struct rename {
	const char *old, *new_key;
};

#define schema		    enav_config_schema
#define schema_len	    enav_config_schema_len
#define renames		    enav_config_renames
#define fail		    enav_config_fail
#define show		    enav_config_show
#define bytes_eq	    enav_config_bytes_eq
#define parse_u64	    enav_config_parse_u64
#define listen_parse	    enav_config_listen_parse
#define field_ptr	    enav_config_field_ptr
#define enum_count	    enav_config_enum_count
#define join_names	    enav_config_join_names
#define describe_field	    enav_config_describe_field
#define check_u32	    enav_config_check_u32
#define check_string	    enav_config_check_string
#define config_cross_checks enav_config_cross_checks
#define check_selector	    enav_config_check_selector
#define check_label_key	    enav_config_check_label_key
#define check_api_server    enav_config_check_api_server
#define check_module_prefix enav_config_check_module_prefix
#define check_header	    enav_config_check_header
#define check_pull_target   enav_config_check_pull_target
#define check_tls_library   enav_config_check_tls_library
#define check_abs_path	    enav_config_check_abs_path

extern const struct field schema[];
extern const size_t schema_len;
extern const struct rename renames[ENAV_CONFIG_RENAMES];

/* Report one line into e (when it has room); always -1. */
int fail(struct errout *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Printable, escaped, cut rendering of untrusted bytes (SHOW_BUF bytes). */
void show(char *out, size_t outlen, const char *s, size_t n);
bool bytes_eq(const char *s, size_t n, const char *lit);
/* 0 ok, 1 not a plain decimal, 2 out of uint64 range. */
int parse_u64(const char *s, size_t n, uint64_t *out);
bool listen_parse(const char *s, size_t n, char *host, size_t hostlen, uint16_t *port);
void *field_ptr(struct enav_config *cfg, const struct field *f);
size_t enum_count(const struct field *f);
void join_names(char *out, size_t outlen, const char *const *names);
void describe_field(char *out, size_t outlen, const struct field *f);
int check_u32(struct errout *e, const struct field *f, uint64_t v, const char *text);
/* A string value, or one list entry (where = "key[i]"). */
int check_string(struct errout *e, const struct field *f, const char *where, const char *s,
		 size_t n);

/* The per-key rules of config_checks.c (check_fn). */
/* Checks that span keys (config.c), once a whole file is read. */
int config_cross_checks(struct errout *e, const struct enav_config *cfg);
int check_selector(struct errout *e, const char *where, const char *s, size_t n);
int check_label_key(struct errout *e, const char *where, const char *s, size_t n);
int check_api_server(struct errout *e, const char *where, const char *s, size_t n);
int check_module_prefix(struct errout *e, const char *where, const char *s, size_t n);
int check_header(struct errout *e, const char *where, const char *s, size_t n);
int check_pull_target(struct errout *e, const char *where, const char *s, size_t n);
int check_tls_library(struct errout *e, const char *where, const char *s, size_t n);
int check_abs_path(struct errout *e, const char *where, const char *s, size_t n);

#endif
