/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the config parser: arbitrary bytes must never crash,
 * leak or over-read, and the parser's contract must hold on every input.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int list_tail_clear(const struct enav_config_list *l)
{
	for (uint32_t i = l->n; i < ENAV_CONFIG_LIST_MAX; i++)
		if (l->item[i][0] != '\0')
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct enav_config cfg, before;
	char err[256], host[ENAV_CONFIG_LISTEN_MAX];
	uint16_t port;
	int rc;

	enav_config_defaults(&cfg);
	before = cfg;
	memset(err, 'Z', sizeof(err));
	rc = enav_config_parse(&cfg, (const char *)data, size, err, sizeof(err));
	if (rc == 0) {
		/* Whatever was accepted must pass the schema and be usable. */
		if (enav_config_validate(&cfg, NULL, 0) != 0)
			__builtin_trap();
		if (enav_config_listen_split(cfg.http.listen, host, sizeof(host), &port) != 0)
			__builtin_trap();
		/* A parsed list replaces the old one whole: no stale slots past n. */
		if (!list_tail_clear(&cfg.capture.selectors) ||
		    !list_tail_clear(&cfg.kubernetes.keep_labels))
			__builtin_trap();
	} else {
		/* Exactly one non-empty, terminated line, and cfg left untouched. */
		if (rc != -1 || !memchr(err, '\0', sizeof(err)) || err[0] == '\0' ||
		    strchr(err, '\n') || memcmp(&cfg, &before, sizeof(cfg)) != 0)
			__builtin_trap();
	}
	return 0;
}
