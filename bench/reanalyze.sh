#!/usr/bin/env bash
# Judges a proof report's raw records again with today's analyzer and gates:
# a dry run of the verdicts without a campaign (the report's "Raw records"
# section holds every arm, program, floor arm and soak sample; reports
# before 2026-12-06 kept only ten soak samples, so their soak is left out
# and its gates have no data).
#
#   bench/reanalyze.sh REPORT [--strict] [--gates FILE] [--out NEW.md]
#
# The new report goes to NEW.md (stdout without --out), the verdicts to
# stderr.  Exit status: the analyzer's with --strict (0 every gate passed, 3
# one failed, 4 none failed but one gave no verdict or had no data), else 0
# once the report is written; 1 when the records cannot be read.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
REPORT='' STRICT='' GATES='' OUT=''
while [ $# -gt 0 ]; do
	case $1 in
	--strict) STRICT=1 ;;
	--gates) GATES=$2; shift ;;
	--out) OUT=$2; shift ;;
	-*) echo "usage: bench/reanalyze.sh REPORT [--strict] [--gates FILE] [--out NEW.md]" >&2; exit 2 ;;
	*) REPORT=$1 ;;
	esac
	shift
done
[ -f "$REPORT" ] || { echo "reanalyze: no report '$REPORT'" >&2; exit 1; }
make --no-print-directory -s "$BUILD/enav-bench-analyze"
WORK=$(mktemp -d /tmp/enav-reanalyze.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# Each raw-record block by its caption; the meta lines of the header.
awk -v dir="$WORK" '
	/^Arms \(`arms.tsv`\)/ { f = "arms" } /^BPF programs of the agent arms/ { f = "bpf" }
	/^Floor \(`bench\/hook_floor.sh`\)/ { f = "floor" } /^Floor, per program and hook/ { f = "hooks" }
	/^Soak samples:/ { f = "soak" }
	/^```/ { inb = !inb; next }
	inb && f { print > (dir "/" f ".tsv") }' "$REPORT"
awk '/^## / { exit } /^- [a-z ]+: / { line = substr($0, 3); i = index(line, ": ")
	printf "%s\t%s\n", substr(line, 1, i - 1), substr(line, i + 2) }' "$REPORT" >"$WORK/meta.tsv"
[ -s "$WORK/arms.tsv" ] || { echo "reanalyze: $REPORT has no raw arms" >&2; exit 1; }
# The gates the report names, unless told otherwise.
[ -n "$GATES" ] || GATES=$(awk -F': ' '/^- gates: / { split($2, a, " "); print a[1]; exit }' "$REPORT")
GATES=${GATES:-bench/gates.conf}
printf 'reanalyzed\t%s by bench/reanalyze.sh with %s (sha256 %s)\n' "$(date -u +%FT%TZ)" "$GATES" \
	"$(sha256sum "$GATES" | cut -c1-16)" >>"$WORK/meta.tsv"
args=(--arms "$WORK/arms.tsv" --gates "$GATES" --meta "$WORK/meta.tsv")
[ -s "$WORK/bpf.tsv" ] && args+=(--bpf "$WORK/bpf.tsv")
if [ -s "$WORK/floor.tsv" ]; then
	args+=(--floor "$WORK/floor.tsv" --cores "$(awk -F': ' '/^- machine: / { print $2 + 0; exit }' "$REPORT")")
	[ -s "$WORK/hooks.tsv" ] && args+=(--hooks "$WORK/hooks.tsv")
fi
if [ -s "$WORK/soak.tsv" ] && ! grep -qx '\.\.\.' "$WORK/soak.tsv"; then
	args+=(--soak "$WORK/soak.tsv")
else
	echo "reanalyze: $REPORT kept only some soak samples: soak left out" >&2
fi
[ -n "$OUT" ] && args+=(--out "$OUT")
rc=0
"$BUILD/enav-bench-analyze" "${args[@]}" || rc=$?
case $rc in
0 | 3 | 4) ;;
*) echo "reanalyze: the analyzer failed (exit $rc)" >&2; exit 1 ;;
esac
[ -n "$STRICT" ] || rc=0
exit "$rc"
