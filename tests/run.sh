#!/usr/bin/env bash
# Runs every test: unit tests (ASan + UBSan), fuzz corpus replay, and the
# integration tests against the real kernel.  Prints one closing line:
#   tests: N passed, N failed (in N s)
set -uo pipefail
BUILD=${1:-build}
export BUILD
cd "$(dirname "$0")/.."

passed=0
failed=0
failures=()

# Each phase's heading carries the wall time of the run so far: the whole
# run has a budget (README).
phase() { echo "== $1 (at $SECONDS s)"; }

record() { # record NAME RC
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures+=("$1")
	fi
}

# First: every command the tests run comes from a package scripts/deps.sh
# test installs (a test that needs an uninstalled tool fails on a fresh
# machine however well it passes here).
phase "test dependencies"
scripts/check_test_deps.sh
record "deps:guard" $?

# The layering check (scripts/check_layers.py), and the check itself on
# trees that break each rule.
phase "layering"
bash tests/layers/test_check_layers.sh
record "layers:check" $?

phase "unit tests (ASan + UBSan)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
for t in "$BUILD"/asan/tests/test_*; do
	[ -x "$t" ] || continue
	"$t"
	rc=$? # before any command substitution resets it
	record "unit:$(basename "$t")" $rc
done

phase "fuzz corpus replay"
# First: the raw-event decoders' seeds carry the current ABI version.
tests/fuzz/check_seed_abi.sh
record "fuzz:seed_abi" $?
# Replay every seed, then a short bounded run from them in a scratch dir;
# one fuzzer per CPU at a time (each is single-threaded), reported in order.
# The targets fed with tenant files run under the agent's memory budget
# (tests/fuzz/limits.sh), seeds included.
. tests/fuzz/limits.sh
fuzz_one() { # fuzz_one FUZZER CORPUS SCRATCH: the log and rc land in SCRATCH
	local limits asan
	read -r -a limits <<<"$(fuzz_limits "$(basename "$1")" 1024)"
	asan=$(fuzz_asan_options "$(basename "$1")")
	ASAN_OPTIONS=$asan "$1" "${limits[@]}" -runs=0 "$2" >"$3/log" 2>&1 &&
		ASAN_OPTIONS=$asan "$1" -max_total_time="${FUZZ_SECONDS:-4}" "${limits[@]}" \
			"$3/new" "$2" >>"$3/log" 2>&1
	echo $? >"$3/rc"
}
fuzz_dir=$(mktemp -d)
fuzz_jobs=$(nproc)
for f in "$BUILD"/fuzz/fuzz_*; do
	[ -x "$f" ] || continue
	name=$(basename "$f")
	[ -d "tests/fuzz/corpus/$name" ] || continue
	mkdir -p "$fuzz_dir/$name/new"
	while [ "$(jobs -rp | wc -l)" -ge "$fuzz_jobs" ]; do wait -n; done
	fuzz_one "$f" "tests/fuzz/corpus/$name" "$fuzz_dir/$name" &
done
wait
for f in "$BUILD"/fuzz/fuzz_*; do
	[ -x "$f" ] || continue
	name=$(basename "$f")
	corpus=tests/fuzz/corpus/$name
	if [ ! -d "$corpus" ]; then
		echo "missing corpus $corpus"
		record "fuzz:$name" 1
		continue
	fi
	rc=$(cat "$fuzz_dir/$name/rc" 2>/dev/null || echo 1)
	[ "$rc" -eq 0 ] && echo "PASS fuzz:$name ($(find "$corpus" -type f | wc -l) seeds)" ||
		{ tail -n 30 "$fuzz_dir/$name/log"; echo "FAIL fuzz:$name"; }
	record "fuzz:$name" "$rc"
done
rm -rf "$fuzz_dir"

phase "kubernetes controller (fake API server)"
for t in "$BUILD"/asan/k8s/test_*; do
	[ -x "$t" ] || continue
	"$t"
	rc=$?
	record "k8s:$(basename "$t")" $rc
done

phase "integration tests (real kernel)"
# Each script's wall time is printed: the whole run has a budget (README).
# A script that hangs (an agent that stops answering, a peer that never
# exits) is cut after INTEGRATION_TIMEOUT seconds and fails by name, so the
# run still ends with a verdict.  The longest script took 108 s here.
# RUN_DEADLINE (seconds since the epoch; .ci/run sets it) caps that further:
# a script gets at most the time left, and one that cannot start fails by
# name, so a slow machine still ends with a verdict in CI's budget.
INTEGRATION_TIMEOUT=${INTEGRATION_TIMEOUT:-600}
for t in tests/integration/test_*.sh; do
	start=$SECONDS
	limit=$INTEGRATION_TIMEOUT
	if [ -n "${RUN_DEADLINE:-}" ]; then
		left=$((RUN_DEADLINE - $(date +%s)))
		[ "$left" -lt "$limit" ] && limit=$left
		if [ "$limit" -lt 10 ]; then
			echo "   $(basename "$t"): not run, the run's deadline (RUN_DEADLINE) has passed"
			record "integration:$(basename "$t")" 1
			continue
		fi
	fi
	timeout --kill-after=30 "$limit" bash "$t"
	rc=$?
	[ $rc -eq 124 ] && echo "   $(basename "$t"): cut after $limit s (timeout)"
	echo "   ($(basename "$t"): $((SECONDS - start)) s)"
	record "integration:$(basename "$t")" $rc
done

if [ ${#failures[@]} -gt 0 ]; then
	echo "failed: ${failures[*]}"
fi
echo "tests: $passed passed, $failed failed (in $SECONDS s)"
[ $failed -eq 0 ]
