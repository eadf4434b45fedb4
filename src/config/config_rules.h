/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The syntax rules the configuration checks quote in their errors, shared
 * with tests/unit/test_config.c, which expects the same texts.
 */
#ifndef ENAV_CONFIG_CONFIG_RULES_H
#define ENAV_CONFIG_CONFIG_RULES_H

#define SELECTOR_RULE                                                                              \
	"expected kind:value with kind one of cgroup, runtime, namespace, pod, label, service"
#define LABEL_KEY_RULE                                                                             \
	"[prefix/]name: name 1..63 characters of A-Z a-z 0-9 - _ . starting and ending "           \
	"alphanumeric, prefix a lowercase DNS subdomain"
#define LABEL_VALUE_RULE                                                                           \
	"0..63 characters of A-Z a-z 0-9 - _ . starting and ending alphanumeric, or empty"
#define NAMESPACE_RULE "a DNS label: 1..63 characters of a-z 0-9 - starting and ending alphanumeric"

#endif
