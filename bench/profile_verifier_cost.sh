#!/usr/bin/env bash
# The verifier's cost of the profiling objects on this kernel: profile
# (bpf_loop, Linux 5.17+) and profile_bounded (bounded loops, the variant
# kernels without bpf_loop load), each with the unwinder on and off, per
# program the instructions the verifier processed (its stats log, which
# Linux 5.10 has too) and each object's load time.  On a kernel without
# bpf_loop the first object's load fails, as it should.
#
# usage (root, after `make`): bench/profile_verifier_cost.sh
# KEEP=DIR builds the loaders into DIR and reuses them there: a kernel-matrix
# guest (whose root is the host's, read-only) runs them without compiling.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=${KEEP:-$(mktemp -d /tmp/enav-profver.XXXXXX)}
mkdir -p "$OUT"
for v in profile profile_bounded; do
	[ -x "$OUT/$v" ] && [ -z "${KEEP:-}" ] ||
		clang -O2 -Wall -I"$BUILD/bpf" -Iinclude -DSKEL_H="\"${v}_ringbuf.skel.h\"" \
			-DSKEL="${v}_ringbuf" bench/profile_verifier.c -lbpf -o "$OUT/$v" || exit 1
done
uname -r
for v in profile profile_bounded; do
	for on in 1 0; do
		echo "== $v, unwinder $([ $on = 1 ] && echo on || echo off)"
		"$OUT/$v" $on 2>/dev/null
	done
done
