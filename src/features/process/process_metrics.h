/* SPDX-License-Identifier: Apache-2.0 */
/* Derives process lifecycle metrics from exec/exit signals. */
#ifndef ENAV_FEATURES_PROCESS_PROCESS_METRICS_H
#define ENAV_FEATURES_PROCESS_PROCESS_METRICS_H

#include "runtime/host.h"

extern const struct enav_generator_ops enav_process_metrics_ops;
bool enav_process_metrics_enabled(const struct enav_config *cfg);

#endif
