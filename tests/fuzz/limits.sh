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
#
# ASan keeps freed memory in a quarantine (256 MiB by default) to catch
# uses after free; under a 256 MiB limit that alone ends a run after some
# 10 to 40 s whatever the parser does (seen on fuzz_tls_sites,
# fuzz_symbolize_elf and fuzz_go_tls: 257 to 320 MiB, no single input over
# 51 MiB).  These targets get a 16 MiB quarantine, so what is measured is
# the parser (peaks of 77 to 79 MiB in 60 s).
FUZZ_TENANT_FILE_TARGETS="fuzz_eh_frame fuzz_go_buildinfo fuzz_go_tls fuzz_go_unwind
fuzz_perf_map fuzz_symbolize_elf fuzz_tls_sites fuzz_unwind_tables"
FUZZ_TENANT_RSS_MB=256
FUZZ_TENANT_MALLOC_MB=64
FUZZ_TENANT_QUARANTINE_MB=16

# fuzz_limits NAME DEFAULT_RSS_MB: libFuzzer's memory flags for target NAME.
fuzz_limits() {
	case " ${FUZZ_TENANT_FILE_TARGETS//$'\n'/ } " in
	*" $1 "*) echo "-rss_limit_mb=$FUZZ_TENANT_RSS_MB -malloc_limit_mb=$FUZZ_TENANT_MALLOC_MB" ;;
	*) echo "-rss_limit_mb=$2" ;;
	esac
}

# fuzz_asan_options NAME: ASAN_OPTIONS for target NAME (the caller's own
# ASAN_OPTIONS, plus the smaller quarantine for the tenant-file targets).
fuzz_asan_options() {
	local base=${ASAN_OPTIONS:-}
	case " ${FUZZ_TENANT_FILE_TARGETS//$'\n'/ } " in
	*" $1 "*) echo "${base:+$base:}quarantine_size_mb=$FUZZ_TENANT_QUARANTINE_MB" ;;
	*) echo "$base" ;;
	esac
}
