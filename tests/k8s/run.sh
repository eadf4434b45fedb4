#!/usr/bin/env bash
# Builds and runs the Kubernetes controller tests with ASan + UBSan, without
# the Makefile: unit tests, fuzz seed replay (plus FUZZ_SECONDS of fuzzing,
# default 0) and the controller against the fake API server.
#   tests/k8s/run.sh [BUILD]      (objects land in BUILD/k8s, default build)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-build}/k8s
mkdir -p "$OUT"

CC=clang
WARN="-std=gnu17 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter"
DEFS="-D_GNU_SOURCE -Iinclude -Isrc"
SAN="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
FUZZ="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -DENAV_FUZZING"
K8S=$(ls src/discovery/k8s*.c)
MODEL="src/discovery/k8s_objects.c src/discovery/k8s_watch.c src/discovery/k8s_cache.c"
LIBS="-lcurl -ljansson -lyaml -lpthread -lm"

set -x
$CC $WARN $DEFS $SAN tests/unit/test_k8s_objects.c $MODEL -lcmocka -ljansson \
	-o "$OUT/test_k8s_objects"
$CC $WARN $DEFS $SAN tests/unit/test_k8s_config.c src/discovery/k8s_kubeconfig.c \
	src/discovery/k8s_http.c -lcmocka $LIBS -o "$OUT/test_k8s_config"
$CC $WARN $DEFS $SAN tests/k8s/test_controller.c tests/k8s/fake.c $K8S src/platform/log.c \
	src/platform/promtext.c -lcmocka $LIBS -o "$OUT/test_k8s_controller"
$CC $WARN $DEFS $FUZZ tests/fuzz/fuzz_k8s_watch.c $MODEL -ljansson -o "$OUT/fuzz_k8s_watch"
$CC $WARN $DEFS $FUZZ tests/fuzz/fuzz_k8s_kubeconfig.c src/discovery/k8s_kubeconfig.c \
	src/discovery/k8s_objects.c -lyaml -ljansson -o "$OUT/fuzz_k8s_kubeconfig"
set +x

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
"$OUT/test_k8s_objects"
"$OUT/test_k8s_config"
for f in fuzz_k8s_watch fuzz_k8s_kubeconfig; do
	"$OUT/$f" -runs=0 "tests/fuzz/corpus/$f"
	if [ "${FUZZ_SECONDS:-0}" -gt 0 ]; then
		scratch=$(mktemp -d)
		"$OUT/$f" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=1024 "$scratch" \
			"tests/fuzz/corpus/$f"
		rm -rf "$scratch"
	fi
done
"$OUT/test_k8s_controller"
echo "k8s tests: all passed"
