#!/usr/bin/env bash
# Is docs/kernels.md the matrix run of the code at HEAD?  It records the
# commit it tested (scripts/kernel_matrix.sh, "Source revision"); this fails
# when src/, bpf/, include/ or tests/ at HEAD differ from that commit's, or
# when the run tested uncommitted code.  .ci/run calls it before the matrix
# (which rewrites the file in its clone).  To fix a failure: run
# `make test-kernels` at HEAD and commit docs/kernels.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# The trees a matrix run proves (kept equal to kernel_matrix.sh's).
TREES="src bpf include tests"
doc=docs/kernels.md
line=$(grep -m1 '^Source revision: ' "$doc" || true)
if [ -z "$line" ]; then
	echo "check_kernels_doc: $doc records no source revision (written before the check existed): rerun make test-kernels and commit it" >&2
	exit 1
fi
rev=$(sed -n 's/^Source revision: `\([0-9a-f]*\)`.*/\1/p' <<<"$line")
if ! git cat-file -e "${rev:-none}^{commit}" 2>/dev/null; then
	echo "check_kernels_doc: $doc names revision '${rev}', which is not a commit of this repository" >&2
	exit 1
fi
case $line in
*" clean at the run)."*) ;;
*)
	echo "check_kernels_doc: $doc is a run of uncommitted changes on ${rev:0:12}: it proves no commit" >&2
	exit 1
	;;
esac
# shellcheck disable=SC2086
changed=$(git diff --name-only "$rev" HEAD -- $TREES)
if [ -n "$changed" ]; then
	echo "check_kernels_doc: $doc is the run of ${rev:0:12}; since then $(wc -l <<<"$changed") file(s) of $TREES changed, e.g.:" >&2
	head -5 <<<"$changed" | sed 's/^/  /' >&2
	echo "  run make test-kernels at HEAD and commit docs/kernels.md" >&2
	exit 1
fi
echo "check_kernels_doc: $doc is the run of ${rev:0:12}; $TREES unchanged since"
