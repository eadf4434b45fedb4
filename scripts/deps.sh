#!/usr/bin/env bash
# Installs the Debian packages that building and testing E-Navigator need.
# Idempotent and silent when nothing is missing.  Usage: scripts/deps.sh [build|test]
# scripts/deps.sh --list [build|test] prints the packages, one a line, and
# installs nothing (scripts/check_test_deps.sh reads the test list).
set -euo pipefail

list=0
if [ "${1:-}" = "--list" ]; then
	list=1
	shift
fi

build_pkgs=(make clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libyaml-dev
	libmicrohttpd-dev libcurl4-openssl-dev libjansson-dev libnghttp2-dev pkg-config git
	# DWARF struct offsets and return-instruction decoding for Go TLS probes
	libdw-dev libcapstone-dev)
# Tests add: cmocka for unit tests, the sanitizer/libFuzzer runtimes, promtool,
# jq for reading NDJSON, util-linux/libcap2-bin for setpriv/capsh, and python3
# for the fake Kubernetes API server and the test receivers, golang-go for the
# Go workload and `go tool pprof`, which reads every profile the tests produce.
test_pkgs=(libcmocka-dev libclang-rt-14-dev prometheus jq util-linux libcap2-bin curl
	procps python3 prometheus-node-exporter nginx-light dnsmasq-base bind9-dnsutils
	golang-go
	# protoc decodes the OTLP request bodies against tests/otlp/proto/
	# (tests/unit/test_otlp_encode.c), and every pprof file of
	# tests/integration/test_unwind.sh against pprof's own profile.proto,
	# which golang-github-google-pprof-dev ships.
	protobuf-compiler golang-github-google-pprof-dev
	# libc's separate debug symbols: the names .dynsym lacks
	# (__libc_start_call_main, start_thread, clone3, msort_with_tmp), found
	# by build id as on any node that installs them (test_unwind.sh).
	libc6-dbg
	# lintian checks the .deb, python3-yaml and yamllint the Kubernetes
	# manifest, man-db renders the man page and systemd-analyze (systemd)
	# verifies the unit (tests/integration/test_packaging.sh).
	lintian python3-yaml yamllint man-db systemd
	# wrk drives nginx in bench/campaign.sh and bench/{hook_floor,l7_overhead,
	# net_overhead,tls_overhead}.sh; tests/integration/test_bench_campaign.sh
	# runs the campaign in its test mode.
	wrk
	# perf samples the agent's BPF runs in bench/hook_profile.sh.
	linux-perf
	# Real peers of the application-protocol tests (tests/integration/test_l7_*):
	# servers started on loopback by the tests, their clients, and the client
	# libraries for the two protocols Debian ships no server for.
	nghttp2-client redis-server redis-tools postgresql mariadb-server mariadb-client
	libmariadb-dev nats-server kcat python3-pymongo
	# TLS peers (tests/integration/test_tls.sh): openssl makes the
	# certificate, gnutls-cli is the GnuTLS client.
	openssl gnutls-bin
	# The kernel matrix (scripts/kernel_matrix.sh, make test-kernels) boots
	# Debian's kernels in QEMU on an initramfs built around the static busybox.
	qemu-system-x86 busybox-static)
# nodejs and npm run the OTLP test receiver (tests/otlp).  A machine whose
# Node.js comes from elsewhere (its nodejs package conflicts with Debian's npm)
# keeps it: they are installed only when npm is not on the PATH.  --list
# names them always: they are what a fresh machine gets.
if [ $list -eq 1 ] || ! command -v npm >/dev/null; then
	test_pkgs+=(nodejs npm)
fi

want=("${build_pkgs[@]}")
if [ "${1:-build}" = "test" ]; then
	want+=("${test_pkgs[@]}")
fi
if [ $list -eq 1 ]; then
	printf '%s\n' "${want[@]}"
	exit 0
fi

missing=()
for p in "${want[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]} (run as root to install them)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
