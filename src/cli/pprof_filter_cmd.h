/* SPDX-License-Identifier: Apache-2.0 */
#ifndef ENAV_CLI_PPROF_FILTER_CMD_H
#define ENAV_CLI_PPROF_FILTER_CMD_H

/* `enav pprof-filter`; argv starts after "pprof-filter".  Exit code: 0 ok,
 * 1 failure, 2 usage. */
int enav_pprof_filter_command(int argc, char **argv);

#endif
