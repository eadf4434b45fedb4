/* SPDX-License-Identifier: Apache-2.0 */
#ifndef ENAV_CLI_PROFILE_CMD_H
#define ENAV_CLI_PROFILE_CMD_H

#include "config/config.h"

/* `enav profile [options]`; argv starts after "profile".  Exit code. */
int enav_profile_command(struct enav_config *cfg, int argc, char **argv);

#endif
