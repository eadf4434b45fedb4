/* SPDX-License-Identifier: Apache-2.0 */
/* enav: command-line entry point. */
#include <stdio.h>
#include <string.h>

#include "runtime/runner.h"
#include "cli/pprof_filter_cmd.h"
#include "cli/profile_cmd.h"
#include "config/config.h"
#include "probe/privileges.h"
#include "probe/features.h"
#include "golang/go_buildinfo.h"
#include "version.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: enav <command> [options]\n"
		"\n"
		"E-Navigator: one eBPF signal plane for a node.\n"
		"\n"
		"commands:\n"
		"  run [--config FILE]          capture and export until SIGINT/SIGTERM\n"
		"  probe [--json] [--config F] [--skip-load-check]\n"
		"                               print what this node can prove; exit 0 if\n"
		"                               enav can run; --skip-load-check prints the\n"
		"                               kernel's capabilities and the auto choices\n"
		"                               without loading the agent's own programs\n"
		"                               (faster; lists no feature)\n"
		"  profile [options]            profile the node for N seconds; write a flame\n"
		"                               graph SVG, folded stacks or pprof (see\n"
		"                               enav profile --help)\n"
		"  pprof-filter --binary BIN IN OUT  keep only BIN's own code in a pprof\n"
		"                               (see enav pprof-filter --help)\n"
		"  check-config FILE            validate a configuration file and exit\n"
		"  buildinfo BINARY             print a Go binary's build information (as\n"
		"                               go version -m does)\n"
		"  version                      print the version\n"
		"  help, --help                 this text\n"
		"\n"
		"Without --config every supported source runs, NDJSON goes to stdout and\n"
		"/metrics, /healthz, /readyz are served on 127.0.0.1:9464.\n"
		"Exit codes: 0 ok, 1 cannot run here, 2 bad usage or configuration.\n");
}

static int load_config(const char *path, struct enav_config *cfg)
{
	char err[512];
	enav_config_defaults(cfg);
	if (path && enav_config_load(cfg, path, err, sizeof(err)) != 0) {
		fprintf(stderr, "enav: %s\n", err);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("enav %s (%s) abi %d signal-schema %d\n", ENAV_VERSION, ENAV_GIT_REV,
		       ENAV_ABI_VERSION, ENAV_SIGNAL_SCHEMA_VERSION);
		return 0;
	}

	if (!strcmp(cmd, "buildinfo")) {
		struct enav_go_buildinfo bi;
		char err[256];

		if (argc != 3 || argv[2][0] == '-') {
			fprintf(stderr, "enav: usage: enav buildinfo BINARY\n");
			return 2;
		}
		if (enav_go_buildinfo_read_file(argv[2], &bi, err, sizeof(err)) != 0) {
			fprintf(stderr, "enav: %s: %s\n", argv[2], err);
			return 1;
		}
		enav_go_buildinfo_print(stdout, argv[2], &bi);
		enav_go_buildinfo_free(&bi);
		return 0;
	}

	if (!strcmp(cmd, "pprof-filter"))
		return enav_pprof_filter_command(argc - 2, argv + 2);

	if (!strcmp(cmd, "profile")) {
		/* Its own options; --config may be among them. */
		struct enav_config pcfg;
		const char *path = NULL;
		for (int i = 2; i + 1 < argc; i++)
			if (!strcmp(argv[i], "--config"))
				path = argv[i + 1];
		if (load_config(path, &pcfg) != 0)
			return 2;
		int n = 0;
		char *rest[64];
		for (int i = 2; i < argc && n < 64; i++) {
			if (!strcmp(argv[i], "--config") && i + 1 < argc) {
				i++;
				continue;
			}
			rest[n++] = argv[i];
		}
		return enav_profile_command(&pcfg, n, rest);
	}

	const char *config_path = NULL;
	bool json = false, skip_load_check = false;
	const char *positional = NULL;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--config") && i + 1 < argc) {
			config_path = argv[++i];
		} else if (!strncmp(argv[i], "--config=", 9)) {
			config_path = argv[i] + 9;
		} else if (!strcmp(argv[i], "--json") && !strcmp(cmd, "probe")) {
			json = true;
		} else if (!strcmp(argv[i], "--skip-load-check") && !strcmp(cmd, "probe")) {
			skip_load_check = true;
		} else if (argv[i][0] != '-' && !positional) {
			positional = argv[i];
		} else {
			fprintf(stderr, "enav: unknown option %s (see enav --help)\n", argv[i]);
			return 2;
		}
	}

	struct enav_config cfg;
	if (!strcmp(cmd, "check-config")) {
		if (!positional) {
			fprintf(stderr, "enav: check-config needs a FILE\n");
			return 2;
		}
		if (load_config(positional, &cfg) != 0)
			return 2;
		printf("%s: ok\n", positional);
		return 0;
	}
	if (positional) {
		fprintf(stderr, "enav: unexpected argument %s (see enav --help)\n", positional);
		return 2;
	}
	if (load_config(config_path, &cfg) != 0)
		return 2;
	if (!strcmp(cmd, "run")) {
		/* Whoever can write the configuration controls the agent. */
		char err[512];
		if (enav_refuse_world_writable(config_path, "configuration file", err,
					       sizeof(err)) != 0) {
			fprintf(stderr, "enav: %s\n", err);
			return 2;
		}
		return enav_agent_main(&cfg);
	}
	if (!strcmp(cmd, "probe"))
		return enav_probe_command(&cfg, json,
					  skip_load_check ? NULL : enav_agent_load_check);
	fprintf(stderr, "enav: unknown command %s (see enav --help)\n", cmd);
	return 2;
}
