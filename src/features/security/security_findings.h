/* SPDX-License-Identifier: Apache-2.0 */
/* Runtime security findings from captured signals (docs/security.md). */
#ifndef ENAV_FEATURES_SECURITY_SECURITY_FINDINGS_H
#define ENAV_FEATURES_SECURITY_SECURITY_FINDINGS_H

#include "runtime/host.h"

extern const struct enav_generator_ops enav_security_findings_ops;
bool enav_security_findings_enabled(const struct enav_config *cfg);

#endif
