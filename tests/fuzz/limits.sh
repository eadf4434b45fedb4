# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by tests/run.sh and scripts/fuzz_long.sh: the memory limits a fuzz
# target runs under.
#
# The targets fed with files a tenant writes (ELF binaries and their
# sections, Go tables, JIT perf maps) run under the memory budget the agent
# has for what it derives from one tenant's files: 256 MiB resident, and no
# single allocation over 64 MiB.  An input that makes the parser allocate
# past that is a finding (libFuzzer reports it as an OOM or a malloc over
# the limit), not a pass.  The other targets keep the generic limit.
FUZZ_TENANT_FILE_TARGETS="fuzz_eh_frame fuzz_go_buildinfo fuzz_go_tls fuzz_go_unwind
fuzz_perf_map fuzz_symbolize_elf fuzz_tls_sites fuzz_unwind_tables"
FUZZ_TENANT_RSS_MB=256
FUZZ_TENANT_MALLOC_MB=64

# fuzz_limits NAME DEFAULT_RSS_MB: libFuzzer's memory flags for target NAME.
fuzz_limits() {
	case " ${FUZZ_TENANT_FILE_TARGETS//$'\n'/ } " in
	*" $1 "*) echo "-rss_limit_mb=$FUZZ_TENANT_RSS_MB -malloc_limit_mb=$FUZZ_TENANT_MALLOC_MB" ;;
	*) echo "-rss_limit_mb=$2" ;;
	esac
}
