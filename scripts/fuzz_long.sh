#!/usr/bin/env bash
# Long, coverage-guided fuzzing of every libFuzzer target in tests/fuzz/
# (`make fuzz-long`; the binaries must be built: `make fuzz`).
#
#   scripts/fuzz_long.sh [BUILD]
#     FUZZ_LONG_SECONDS   seconds per target (600)
#     FUZZ_LONG_JOBS      targets fuzzed at a time (2)
#     FUZZ_LONG_TARGETS   only these targets, e.g. "fuzz_dns fuzz_config" (all)
#
# Each target fuzzes into a scratch corpus, $BUILD/fuzz-long/NAME/corpus,
# seeded from tests/fuzz/corpus/NAME (libFuzzer writes new inputs to its
# first directory only, so the seeds are read, never touched while it runs).
# Afterwards the scratch corpus is merged into tests/fuzz/corpus/NAME with
# -merge=1, which keeps only the inputs that add coverage over the seeds
# already there: what is committed stays minimal.  Crash, timeout, leak and
# OOM inputs are kept in $BUILD/fuzz-long/NAME/ next to the run's logs (a
# target stops at its first finding; each run starts NAME/ afresh).  One line per target: executions (from
# -print_final_stats), new seeds merged, findings.  Exits non-zero when any
# target found something or could not run.
set -euo pipefail

BUILD=${1:-build}
SECONDS_EACH=${FUZZ_LONG_SECONDS:-600}
JOBS=${FUZZ_LONG_JOBS:-2}
cd "$(dirname "$0")/.."

case "$SECONDS_EACH$JOBS" in
*[!0-9]*) echo "fuzz-long: FUZZ_LONG_SECONDS and FUZZ_LONG_JOBS are whole numbers" >&2; exit 2 ;;
esac
if [ "$JOBS" -lt 1 ] || [ "$SECONDS_EACH" -lt 1 ]; then
	echo "fuzz-long: FUZZ_LONG_SECONDS and FUZZ_LONG_JOBS must be at least 1" >&2
	exit 2
fi

if [ -n "${FUZZ_LONG_TARGETS:-}" ]; then
	read -r -a targets <<<"$FUZZ_LONG_TARGETS"
else
	targets=()
	for src in tests/fuzz/fuzz_*.c; do
		targets+=("$(basename "$src" .c)")
	done
fi
for name in "${targets[@]}"; do
	[ -x "$BUILD/fuzz/$name" ] || { echo "fuzz-long: $BUILD/fuzz/$name is not built (make fuzz)" >&2; exit 2; }
	[ -d "tests/fuzz/corpus/$name" ] || { echo "fuzz-long: no seed corpus tests/fuzz/corpus/$name" >&2; exit 2; }
done

# Leaks count as findings; UBSan stops at its first report (the targets are
# built with -fno-sanitize-recover=undefined, this makes sure of it).
export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# Memory: the targets fed with tenant files run under the agent's budget
# for them, the others under a generic 2 GiB (tests/fuzz/limits.sh).
. tests/fuzz/limits.sh
FUZZ_FLAGS=(-timeout=10 -detect_leaks=1)

# The last count of executed inputs libFuzzer printed: the final stats, else
# its "Done N runs" line, else the last "#N" status line (a run cut short).
execs_of() {
	local log=$1 n
	n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
	[ -n "$n" ] || n=$(sed -n 's/^Done \([0-9][0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
	[ -n "$n" ] || n=$(sed -n 's/^#\([0-9][0-9]*\)[[:space:]].*/\1/p' "$log" | tail -n 1)
	echo "${n:-0}"
}

count_files() {
	find "$1" -maxdepth 1 -type f | wc -l
}

# Fuzz one target, merge, write $dir/summary.  Never fails itself: what went
# wrong is in the summary, so one target cannot stop the others.
run_one() {
	local name=$1 bin="$BUILD/fuzz/$1" seeds="tests/fuzz/corpus/$1"
	local dir="$BUILD/fuzz-long/$1" rc=0 merge_rc=0 before after findings execs status=ok
	local -a flags
	read -r -a flags <<<"$(fuzz_limits "$name" 2048)"
	flags+=("${FUZZ_FLAGS[@]}")
	# run_one runs in a subshell of its own: this stays with this target.
	ASAN_OPTIONS=$(fuzz_asan_options "$name")
	rm -rf "$dir"
	mkdir -p "$dir/corpus"
	"$bin" "${flags[@]}" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
		-artifact_prefix="$dir/" "$dir/corpus" "$seeds" >"$dir/fuzz.log" 2>&1 || rc=$?
	execs=$(execs_of "$dir/fuzz.log")
	before=$(count_files "$seeds")
	# Only inputs that add coverage over the seeds are copied in.  An input
	# that crashes here is skipped by the merge and left as an artifact.
	"$bin" "${flags[@]}" -merge=1 -merge_control_file="$dir/merge.ctl" \
		-artifact_prefix="$dir/" "$seeds" "$dir/corpus" >"$dir/merge.log" 2>&1 || merge_rc=$?
	after=$(count_files "$seeds")
	findings=$(find "$dir" -maxdepth 1 -type f \
		\( -name 'crash-*' -o -name 'timeout-*' -o -name 'leak-*' -o -name 'oom-*' \) | wc -l)
	if [ "$findings" -eq 0 ] && [ "$rc" -ne 0 ]; then
		status="error: exit $rc, see $dir/fuzz.log"
	elif [ "$merge_rc" -ne 0 ]; then
		status="error: merge exit $merge_rc, see $dir/merge.log"
	fi
	echo "$name $execs $((after - before)) $findings $status" >"$dir/summary"
}

echo "fuzz-long: ${#targets[@]} targets, ${SECONDS_EACH} s each, $JOBS at a time -> $BUILD/fuzz-long/"
running=0
for name in "${targets[@]}"; do
	if [ "$running" -ge "$JOBS" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	run_one "$name" &
	running=$((running + 1))
done
wait || true

failed=0
total_execs=0
total_new=0
for name in "${targets[@]}"; do
	dir="$BUILD/fuzz-long/$name"
	if ! read -r _ execs new findings status <"$dir/summary"; then
		printf '%-28s no summary (the run died)\n' "$name"
		failed=$((failed + 1))
		continue
	fi
	total_execs=$((total_execs + execs))
	total_new=$((total_new + new))
	printf '%-28s execs %12s  new seeds %5s  findings %3s' "$name" "$execs" "$new" "$findings"
	if [ "$findings" -gt 0 ] || [ "$status" != ok ]; then
		failed=$((failed + 1))
		[ "$status" != ok ] && printf '  %s' "$status"
		printf '\n'
		find "$dir" -maxdepth 1 -type f \
			\( -name 'crash-*' -o -name 'timeout-*' -o -name 'leak-*' -o -name 'oom-*' \) |
			sort | sed 's/^/    /'
		continue
	fi
	printf '\n'
done
echo "fuzz-long: $total_execs executions, $total_new new seeds in tests/fuzz/corpus/, $failed target(s) with findings or errors"
[ "$failed" -eq 0 ]
