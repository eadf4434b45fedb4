/* SPDX-License-Identifier: Apache-2.0 */
#ifndef ENAV_CLI_BENCH_CMD_H
#define ENAV_CLI_BENCH_CMD_H

/* `enav bench-analyze [options]` (argv without the command). */
int enav_bench_analyze_command(int argc, char **argv);

#endif
