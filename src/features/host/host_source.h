/* SPDX-License-Identifier: Apache-2.0 */
/* The host resources source module (see host.h). */
#ifndef ENAV_FEATURES_HOST_HOST_SOURCE_H
#define ENAV_FEATURES_HOST_HOST_SOURCE_H

#include "runtime/host.h"

extern const struct enav_source_ops enav_host_source_ops;
bool enav_host_source_enabled(const struct enav_config *cfg);

#endif
