#!/bin/bash
# run.sh NAME SECONDS: one bounded run into a scratch corpus
n=$1; s=${2:-60}
d=/tmp/fz/$n; rm -rf $d; mkdir -p $d/c
cd $d && nice /tmp/fuzzbuild/fuzz/fuzz_$n -max_total_time=$s -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix=$d/ $d/c /work/main/tests/fuzz/corpus/fuzz_$n > log 2>&1; echo rc=$? >> log
