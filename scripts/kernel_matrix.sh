#!/usr/bin/env bash
# The kernel matrix: runs the integration tests named in tests/kernels/tests.list
# inside QEMU guests that boot Debian's own kernels (tests/kernels/kernels.list),
# and the same list natively on the host's kernel, then prints a verdict table
# and writes docs/kernels.md.  `make test-kernels` builds the agent and the
# helpers first and calls this.
#
#   scripts/kernel_matrix.sh [--kernels NAME,...] [--no-host] [--host-only]
#                            [--tests FILE] [--no-docs] [--report-only]
#
# --report-only runs nothing: it prints the table and rewrites docs/kernels.md
# from the results already in $RESULTS (after editing the report code, or to
# publish a run made with --no-docs).
#
# Exit status: 0 when every test passed on every kernel, 1 otherwise (a
# failed, skipped or timed-out test, a kernel that did not boot or did not
# finish), 2 on a usage or setup error.  A skip is not green: a test must not
# be skipped on a kernel to make its run pass.  Every run (guests and host)
# has CI=true, under which lib.sh turns a skip into a failed case.
#
# Environment:
#   BUILD               the built tree to test (default build; made absolute)
#   ENAV_KERNEL_CACHE   kernel packages and initramfs images
#                       (default /var/cache/enav-kernels)
#   RESULTS             where logs and verdicts go (default $BUILD/kernel-matrix)
#   KERNEL_TIMEOUT      seconds one guest may run, boot to power-off (3300: the
#                       clean-clone CI run of 2026-12-05 took 1,479 s on 6.1
#                       and 1,524 s on 6.12, both guests at once, before the
#                       hostile-tenant suite joined the list; the first five
#                       tests alone took 1,234 s and the whole list 2,573 s
#                       (6.1) and 2,879 s (6.12) on 2026-12-06, with other
#                       work on the host; a guest whose
#                       kernel locked up must not hold CI past its budget)
#   MAX_GUESTS          guests running at once (2: each keeps a host core busy)
#   MATRIX_DEADLINE     seconds since the epoch by which the run must end: a
#                       guest gets at most the time left to it minus a minute,
#                       one that cannot start is not booted, and the tests it
#                       did not finish read "missing" (a failure) in the table,
#                       which is still printed and written (.ci/run sets it)
#   GUEST_CMDLINE       the guest kernel's extra command line (quiet);
#                       loglevel=5 puts stack dumps (soft lockups) on the console
#   TEST_TIMEOUT        seconds one test script may run (1800)
#   ENAV_READY_WAIT_S   seconds lib.sh's start_agent waits for /readyz in a
#                       guest (120: loading the network object alone takes
#                       about 12 s under TCG); the host keeps lib.sh's default
#   ENAV_GUEST_TIME_SCALE  ENAV_TIME_SCALE in a guest (6): lib.sh's factor
#                       for waits on something the agent does in its own
#                       time; the host keeps lib.sh's default (1)
#
# How a guest works:
#  - the kernel package is downloaded with `apt-get download` and unpacked
#    with dpkg-deb -x into the cache: never installed;
#  - a small initramfs (cached per kernel version and per hash of this script
#    and busybox) holds busybox and the kernel's own 9p, virtio and overlay
#    modules; its /init mounts the host's / read-only over virtio-9p under a
#    tmpfs overlay (so the guest sees this repository and $BUILD, and may
#    write anywhere without touching the host), mounts proc, sys, dev, bpf,
#    debugfs, tracefs and a pure cgroup2 hierarchy, and a second, writable 9p
#    share (the kernel's results directory) at /run/enav/results;
#  - it then switch_roots and runs this same script with --guest, which runs
#    the test list, writes each log and verdicts.tsv into the share, and
#    powers the guest off.
# QEMU runs under `nice -n 10` with TCG (see kernels.list for why); timings
# measured in a guest mean nothing.  The guests run side by side, then the
# host's run.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The trees a matrix run proves (scripts/check_kernels_doc.sh checks the same).
KERNEL_DOC_TREES="src bpf include tests"
SELF=$REPO/scripts/kernel_matrix.sh

# A test's verdict line in verdicts.tsv:
#   kernel  test  verdict  passed  failed  skipped  seconds
# verdict: pass | skip (some case skipped, none failed: not green) | fail |
# timeout
TSV_HEADER=$'kernel\ttest\tverdict\tpassed\tfailed\tskipped\tseconds'

# ---- shared by the host and the guest: run a test list ----------------------

# test_key LINE: the name a test line is logged under (test_x or test_x.case).
test_key() {
	local script case
	read -r script case <<<"$1"
	script=$(basename "$script" .sh)
	echo "$script${case:+.$case}"
}

# read_list FILE: the list's entries, comments and blank lines dropped.
read_list() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^[[:space:]]*$/d' "$1"
}

# A list may be cut into parts by lines "---": each part of a kernel's list
# boots a guest of its own, so that two slots share the work evenly.
# list_tests FILE: its tests, every part.
list_tests() {
	read_list "$1" | grep -v '^---$' || true
}

# list_parts FILE: how many parts (guests) it asks for.
list_parts() {
	echo $(($(read_list "$1" | grep -c '^---$' || true) + 1))
}

# list_part FILE N: the tests of its Nth part.
list_part() {
	read_list "$1" | awk -v n="$2" '$0 == "---" { p++; next } p + 1 == n'
}

# run_list LIST OUTDIR KERNEL: runs each test of LIST from the repository,
# one log per test in OUTDIR and a line per test in OUTDIR/verdicts.tsv,
# appended as each test ends (a guest that times out keeps what it finished).
run_list() {
	local list=$1 out=$2 kernel=$3 line script case key rc t0 secs counts verdict
	local passed failed skipped
	echo "$TSV_HEADER" >"$out/verdicts.tsv"
	while IFS= read -r line; do
		read -r script case <<<"$line"
		key=$(test_key "$line")
		echo "== $kernel: $line"
		t0=$(date +%s)
		rc=0
		# timeout runs the test in its own process group and, when time is
		# up, kills the group: what the test started goes with it.
		ONLY_CASE=${case:-} timeout --kill-after=30 "$TEST_TIMEOUT" \
			bash "$script" </dev/null >"$out/$key.log" 2>&1 || rc=$?
		secs=$(($(date +%s) - t0))
		# lib.sh's finish(): "test_x.sh: N passed, N failed, N skipped".
		counts=$(sed -n 's/^test_[A-Za-z0-9_]*\.sh: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' \
			"$out/$key.log" | tail -n1)
		read -r passed failed skipped <<<"${counts:-0 0 0}"
		if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
			verdict=timeout
		elif [ $rc -ne 0 ]; then
			verdict=fail
		elif [ $((passed + failed + skipped)) -eq 0 ]; then
			verdict=fail # no case ran: a wrong case name in the list
			echo "no case ran (is '$case' a case function of $script?)" >>"$out/$key.log"
		elif [ "$skipped" -gt 0 ]; then
			verdict=skip
		else
			verdict=pass
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kernel" "$key" "$verdict" \
			"$passed" "$failed" "$skipped" "$secs" >>"$out/verdicts.tsv"
		echo "== $kernel: $key: $verdict ($passed passed, $failed failed, $skipped skipped, ${secs} s)"
		grep -E '^(FAIL|SKIP) ' "$out/$key.log" | sed 's/^/     /' || true
		# A guest's memory is its 4 GiB, the overlay's writes included: a
		# guest that stops early shows on its console what was left.
		[ "$kernel" = host ] || echo "== $kernel: after $key: $(guest_memory)"
	done < <(list_tests "$list")
}

# guest_memory: the guest's available memory and what its tmpfs overlay (every
# file the tests wrote) holds, in MiB.
guest_memory() {
	local avail used
	avail=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
	used=$(df -m / 2>/dev/null | awk 'NR == 2 { print $3 }')
	echo "MemAvailable ${avail:-?} MiB, overlay ${used:-?} MiB written"
}

# diagnose OUTDIR BUILD: `enav probe --json` (the features loaded), its text
# without the load check, and a start (timed alone) at debug log level,
# stopped when ready; its outcome goes to OUTDIR/agent-start.txt.
# (One more load check takes about 50 s in a Debian 11 (5.10) guest.)
diagnose() {
	local out=$1 build=$2 cfg pid rc=0 state="" t0
	uname -r >"$out/uname.txt"
	"$build/enav" version >"$out/version.txt" 2>&1 || true
	"$build/enav" probe --json >"$out/probe.json" 2>/dev/null || true
	"$build/enav" probe --skip-load-check >"$out/probe.txt" 2>&1 || true
	cfg=$(mktemp /tmp/enav-matrix.XXXXXX.yaml)
	# Defaults but for the log level and the port: 9464 may be in use on
	# the host, and 19464 is the integration tests'.
	printf 'log_level: debug\nhttp:\n  listen: 127.0.0.1:19463\n' >"$cfg"
	t0=$SECONDS
	"$build/enav" run --config "$cfg" >/dev/null 2>"$out/agent-debug.log" &
	pid=$!
	while [ $((SECONDS - t0)) -lt 300 ]; do # everything loads, even under TCG
		if curl -fs -m 2 http://127.0.0.1:19463/readyz >/dev/null 2>&1; then
			state="ready after $((SECONDS - t0)) s"
			break
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" || rc=$?
			state="exited $rc before ready: $(grep -v ' enav debug: ' "$out/agent-debug.log" | tail -n1)"
			pid=
			break
		fi
		sleep 0.1
	done
	if [ -n "$pid" ]; then
		[ -n "$state" ] || state="not ready after 300 s"
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" || rc=$?
		state="$state; stopped with exit code $rc"
	fi
	echo "$state" >"$out/agent-start.txt"
	rm -f "$cfg"
	echo "== agent start (defaults, log_level debug): $state"
}

# ---- the guest half ---------------------------------------------------------
# Run by the initramfs's /init after switch_root, as a child of PID 1 (bash,
# which reaps orphans and powers off when this returns).  $1 is the results
# share; guest.env there says what to run.
guest_main() {
	local res=$1
	# shellcheck source=/dev/null
	. "$res/guest.env"
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	export HOME=/root LANG=C.UTF-8 TERM=dumb BUILD ENAV_READY_WAIT_S ENAV_TIME_SCALE CI=true
	# A warmed Go cache from the host (warm_go_cache), written through the overlay.
	[ -z "${GOCACHE:-}" ] || export GOCACHE
	# The profiler snapshots every process started (about 1 ms of CPU
	# natively, tens under TCG, and tests start hundreds) and the unwinder
	# loads every process's tables at each agent start (0.2 s natively,
	# about 20 s here): tests that write their own configuration and say
	# nothing of profiling run without it here (lib.sh's write_config);
	# test_profiling, test_unwind, test_default_run and the start below
	# keep it.
	export ENAV_TEST_PROFILING=off
	cut -d' ' -f1 /proc/uptime >"$res/boot_s"
	echo "== guest $GUEST_KERNEL: $(uname -r), userland after $(cat "$res/boot_s") s"
	# A booted node's init enables the controllers (systemd does); tests
	# and the agent's container metrics read them.
	local c
	for c in $(cat /sys/fs/cgroup/cgroup.controllers); do
		echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null ||
			echo "   cgroup controller $c not enabled" >&2
	done
	cd "$REPO"
	# The kernel's first guest probes and times a default start; its other
	# parts only run their tests.
	[ "${GUEST_DIAGNOSE:-1}" = 0 ] || diagnose "$res" "$BUILD"
	run_list "$res/tests.list" "$res" "$GUEST_KERNEL"
	echo "== guest $GUEST_KERNEL: done"
	touch "$res/done"
	sync
}

# ---- the host half ----------------------------------------------------------

die() {
	echo "kernel_matrix: $*" >&2
	exit 2
}

# glob_regex GLOB: the extended regex of a kernels.list package glob.
glob_regex() {
	printf '%s' "$1" | sed -e 's/[].+^$()|{}[]/\\&/g' -e 's/\*/[0-9][0-9.]*/g'
}

# use_suite SUITE: points APT_OPTS at the system's apt lists ("-") or at a
# private set of lists for another Debian suite (kernels.list's SUITE column,
# for example bullseye for Debian 11's kernels).  The private lists live in
# $CACHE/apt-SUITE and name the suite, its -updates and its -security archive
# on the mirrors the system's own sources use; the system's sources and lists
# are never touched.  The lists are refreshed once a day.
APT_OPTS=()
use_suite() {
	local suite=$1 d mirror
	APT_OPTS=()
	[ "$suite" != - ] || return 0
	[[ $suite =~ ^[a-z]+$ ]] || die "kernels.list: bad suite '$suite'"
	d=$CACHE/apt-$suite
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	# apt's download sandbox user (_apt) writes the lists.
	chown -R _apt "$d/lists" 2>/dev/null || true
	mirror=http://deb.debian.org
	local key=/usr/share/keyrings/debian-archive-keyring.gpg
	{
		echo "deb [signed-by=$key] $mirror/debian $suite main"
		echo "deb [signed-by=$key] $mirror/debian $suite-updates main"
		echo "deb [signed-by=$key] $mirror/debian-security $suite-security main"
	} >"$d/sources.list"
	APT_OPTS=(-o "Dir::Etc::SourceList=$d/sources.list" -o Dir::Etc::SourceParts=-
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache")
	if [ -z "$(find "$d/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n1)" ]; then
		apt-get "${APT_OPTS[@]}" update -q >&2 ||
			echo "== apt lists for $suite could not be refreshed; using what the cache has" >&2
	fi
}

# resolve_package GLOB: the newest package apt has a candidate for whose name
# matches GLOB ('*' = a version: digits and dots); offline, the newest one
# already unpacked in the cache.  APT_OPTS selects the suite's lists.
resolve_package() {
	local glob=$1 re prefix p
	re=$(glob_regex "$glob")
	prefix=${glob%%\**}
	while read -r p; do
		# Not grep -q: its early exit would fail the pipeline (pipefail).
		if [ "$(apt-cache "${APT_OPTS[@]}" policy "$p" 2>/dev/null | grep -c '^  Candidate: [^(]')" -gt 0 ]; then
			echo "$p"
			return 0
		fi
	done < <(apt-cache "${APT_OPTS[@]}" pkgnames "$prefix" 2>/dev/null | grep -E "^$re\$" | sort -Vr)
	# No candidate (no apt lists, no network): the newest unpacked.
	find "$CACHE" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | grep -E "^$re\$" |
		sort -Vr | head -n1 | grep . || return 1
}

# fetch_kernel PACKAGE: unpacks it into $CACHE/PACKAGE/root once; prints the
# kernel version (the lib/modules directory name).
fetch_kernel() {
	local pkg=$1 dir=$CACHE/$1 tmp deb
	if [ ! -f "$dir/.unpacked" ]; then
		tmp=$(mktemp -d "$CACHE/.download.XXXXXX")
		# apt's download sandbox user (_apt) must be able to write there.
		chown _apt "$tmp" 2>/dev/null || true
		(cd "$tmp" && apt-get "${APT_OPTS[@]}" download -q "$pkg" >&2) || {
			rm -rf "$tmp"
			die "cannot download $pkg"
		}
		deb=$(echo "$tmp"/*.deb)
		rm -rf "$dir"
		mkdir -p "$dir"
		dpkg-deb -x "$deb" "$dir/root"
		mv "$deb" "$dir/"
		rmdir "$tmp"
		touch "$dir/.unpacked"
	fi
	ls "$dir/root/lib/modules" | head -n1
}

# prune_cache GLOB KEEP: a newer package replaces the older ones of its line
# (each unpacked kernel is a few hundred MB).
prune_cache() {
	local re old
	re=$(glob_regex "$1")
	for old in $(find "$CACHE" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | grep -E "^$re\$"); do
		[ "$old" = "$2" ] || rm -rf "${CACHE:?}/$old"
	done
}

# module_deps KO: the module names a (decompressed) module depends on.
module_deps() {
	llvm-readelf -p .modinfo "$1" | sed -n 's/^\[ *[0-9a-f]*\] depends=//p' | tr ',' '\n' | sed '/^$/d'
}

# The modules the initramfs needs for its root: whatever of these the kernel
# builds as modules (the rest is built in), with their dependencies.
ROOT_MODULES=(virtio virtio_ring virtio_pci 9pnet_virtio 9p overlay)

# build_initramfs KVER MODDIR OUT: a gzip'd newc cpio with busybox, the
# modules and /init.
build_initramfs() {
	local kver=$1 moddir=$2 out=$3 stage m f
	local -a todo=("${ROOT_MODULES[@]}")
	local -A seen=()
	stage=$(mktemp -d)
	mkdir -p "$stage"/{bin,dev,proc,sys,lib/modules}
	cp /bin/busybox "$stage/bin/busybox"
	ln -s busybox "$stage/bin/sh"
	# The kernel opens /dev/console for /init's stdio before /init runs.
	mknod "$stage/dev/console" c 5 1
	while [ ${#todo[@]} -gt 0 ]; do
		m=${todo[0]}
		todo=("${todo[@]:1}")
		[ -z "${seen[$m]:-}" ] || continue
		seen[$m]=1
		# modinfo names use '_' where file names may use '-'.
		f=$(find "$moddir/kernel" -name "$m.ko*" -o -name "${m//_/-}.ko*" | head -n1)
		if [ -z "$f" ]; then
			grep -qE "/(${m}|${m//_/-})\.ko\$" "$moddir/modules.builtin" ||
				die "$kver: module $m is neither built in nor shipped"
			continue
		fi
		# Decompressed here: busybox's insmod is not trusted with .ko.xz.
		case $f in
		*.xz) xz -dc "$f" >"$stage/lib/modules/$m.ko" ;;
		*.zst) zstd -qdc "$f" >"$stage/lib/modules/$m.ko" ;;
		*.gz) gzip -dc "$f" >"$stage/lib/modules/$m.ko" ;;
		*) cp "$f" "$stage/lib/modules/$m.ko" ;;
		esac
		mapfile -t -O "${#todo[@]}" todo < <(module_deps "$stage/lib/modules/$m.ko")
	done
	write_init >"$stage/init"
	chmod 755 "$stage/init"
	(cd "$stage" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -9 >"$out.tmp"
	mv "$out.tmp" "$out"
	rm -rf "$stage"
}

# The initramfs's /init (busybox sh, PID 1).
write_init() {
	cat <<'INIT'
#!/bin/sh
# /init of scripts/kernel_matrix.sh's initramfs: builds the guest's root and
# hands over to `kernel_matrix.sh --guest`.  Any failure powers off: the host
# reads the console log.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
die() {
	echo "enav-initramfs: $*"
	echo o >/proc/sysrq-trigger
	sleep 30
}

# No depmod here: load in passes until every module is in, whatever order
# their dependencies need.
pending=$(ls /lib/modules/*.ko 2>/dev/null)
while [ -n "$pending" ]; do
	left=
	progress=0
	for m in $pending; do
		if insmod "$m" 2>/dev/null; then progress=1; else left="$left $m"; fi
	done
	pending=$left
	if [ $progress = 0 ]; then
		for m in $pending; do insmod "$m"; done
		die "cannot load:$pending"
	fi
done

# The host's / read-only, a tmpfs on top: the guest may write anywhere.
mkdir -p /lower /ovl /newroot
mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose hostroot /lower ||
	die "cannot mount the host's root (9p)"
mount -t tmpfs -o mode=0755 ovl /ovl
mkdir -p /ovl/upper /ovl/work
mount -t overlay -o lowerdir=/lower,upperdir=/ovl/upper,workdir=/ovl/work root /newroot ||
	die "cannot mount the overlay"

mount --move /dev /newroot/dev
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
# A fresh /run, as on a booted machine (the host's holds its own daemons'
# pid files and sockets).
mount -t tmpfs -o mode=0755,nosuid,nodev run /newroot/run
mkdir -p /newroot/run/lock /newroot/run/enav/results /newroot/dev/pts /newroot/dev/shm
# What udev would add to devtmpfs: bash's <(...) needs /dev/fd.
ln -s /proc/self/fd /newroot/dev/fd
ln -s /proc/self/fd/0 /newroot/dev/stdin
ln -s /proc/self/fd/1 /newroot/dev/stdout
ln -s /proc/self/fd/2 /newroot/dev/stderr
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777,nosuid,nodev shm /newroot/dev/shm
mount -t bpf bpf /newroot/sys/fs/bpf
mount -t debugfs debugfs /newroot/sys/kernel/debug
mount -t tracefs tracefs /newroot/sys/kernel/tracing
# Pure cgroup v2, as a systemd node boots by default.
mount -t cgroup2 -o nsdelegate cgroup2 /newroot/sys/fs/cgroup
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results /newroot/run/enav/results ||
	die "cannot mount the results share (9p)"
ip link set lo up
hostname enav-guest

# A mount on a dentry the overlay later finds invalid (9p inode numbers
# colliding across the host's filesystems, before multidevs=remap) is
# silently detached: check the ones everything needs.
[ -e /newroot/proc/self/stat ] && [ -e /newroot/sys/kernel/tracing/trace ] &&
	[ -e /newroot/sys/fs/cgroup/cgroup.controllers ] || {
	cat /proc/mounts 2>/dev/null || cat /newroot/proc/mounts
	die "the guest's mounts did not hold"
}
[ -f /newroot/run/enav/results/guest.env ] || die "no guest.env in the results share"
. /newroot/run/enav/results/guest.env
# PID 1 stays bash: it reaps the tests' orphaned daemons (a zombie would
# still answer kill -0), and powers off whatever the guest half does.
exec switch_root /newroot /bin/bash -c \
	'/bin/bash "$1" --guest /run/enav/results; echo "enav-guest: the guest half exited $?"; sync; echo o >/proc/sysrq-trigger; sleep 30 2>/dev/null' \
	enav-guest "$REPO/scripts/kernel_matrix.sh"
INIT
}

# warm_go_cache: a Go build cache holding the standard library compiled both
# with and without cgo, for the guests (GOCACHE in guest.env).  The tests
# build their Go peers into an empty cache of their own otherwise, and under
# TCG compiling net/http and crypto/tls without cgo takes minutes (test_tls's
# Go case: 341 s in a 6.1 guest, most of it two builds); natively this takes
# seconds once, then the cache is reused.  The guest writes to it through
# its overlay, never to the host's copy.  Go checks every entry against its
# inputs, so a stale entry is rebuilt, never used.
warm_go_cache() {
	GO_CACHE_DIR=
	command -v go >/dev/null || return 0
	local dir=$CACHE/gocache
	mkdir -p "$dir"
	if GOCACHE=$dir CGO_ENABLED=0 go build std 2>"$dir.err" && GOCACHE=$dir go build std 2>>"$dir.err"; then
		GO_CACHE_DIR=$dir
	else
		echo "kernel_matrix: warming the guests' Go cache failed (they build from an empty one): $(tail -n 2 "$dir.err")" >&2
	fi
}

# prepare_kernel NAME PACKAGE ACCEL SUITE LIST: the kernel fetched, its
# initramfs built, and a guest per part of LIST (its tests) written into
# $RESULTS/NAME, then $RESULTS/NAME~2 and on (boot.env says how to boot it);
# each guest joins GUESTS.  One at a time: apt and the cache are shared.
prepare_kernel() {
	local name=$1 glob=$2 accel=$3 suite=${4:--} list=$5 pkg kver dir hash img out
	out=$RESULTS/$name
	rm -rf "$out" "$RESULTS/$name~"*
	mkdir -p "$out"
	# The kernel's whole list: what collect expects of it, all parts.
	list_tests "$list" >"$out/kernel-tests.list"
	use_suite "$suite"
	pkg=$(resolve_package "$glob") || {
		echo "no package matches $glob" >"$out/error.txt"
		echo "== $name: no package matches $glob" >&2
		return 0
	}
	kver=$(fetch_kernel "$pkg") || exit 2
	prune_cache "$glob" "$pkg"
	dir=$CACHE/$pkg/root
	[ -f "$dir/boot/vmlinuz-$kver" ] || die "$pkg ships no boot/vmlinuz-$kver"
	hash=$(cat "$SELF" /bin/busybox | sha256sum | cut -c1-12)
	img=$CACHE/initramfs/$kver-$hash.cpio.gz
	if [ ! -f "$img" ]; then
		mkdir -p "$CACHE/initramfs"
		# Images of an older script are stale: drop them.
		rm -f "$CACHE/initramfs/$kver-"*.cpio.gz
		build_initramfs "$kver" "$dir/lib/modules/$kver" "$img"
	fi
	local i parts
	parts=$(list_parts "$list")
	for ((i = 1; i <= parts; i++)); do
		out=$RESULTS/$name
		[ "$i" -eq 1 ] || out=$RESULTS/$name~$i
		mkdir -p "$out"
		printf '%s\t%s\t%s\t%s\n' "$name" "$pkg" "$kver" "$accel" >"$out/kernel.tsv"
		list_part "$list" "$i" >"$out/tests.list"
		{
			printf 'REPO=%q\nBUILD=%q\nGUEST_KERNEL=%q\n' "$REPO" "$BUILD" "$name"
			printf 'GUEST_DIAGNOSE=%q\n' "$((i == 1 ? 1 : 0))"
			[ -z "${GO_CACHE_DIR:-}" ] || printf 'GOCACHE=%q\n' "$GO_CACHE_DIR"
			printf 'TEST_TIMEOUT=%q\nENAV_READY_WAIT_S=%q\nENAV_TIME_SCALE=%q\n' "$TEST_TIMEOUT" \
				"${ENAV_READY_WAIT_S:-120}" "${ENAV_GUEST_TIME_SCALE:-6}"
		} >"$out/guest.env"
		printf 'BOOT_KERNEL=%q\nBOOT_INITRD=%q\nBOOT_ACCEL=%q\nBOOT_PKG=%q\n' \
			"$dir/boot/vmlinuz-$kver" "$img" "$accel" "$pkg ($kver)" >"$out/boot.env"
		GUESTS+=("$(basename "$out")")
	done
}

# guest_dirs KERNEL: the result directories of its guests, first part first.
guest_dirs() {
	local d
	echo "$1"
	for d in "$RESULTS/$1~"*; do
		[ -d "$d" ] && basename "$d"
	done | sort -t'~' -k2,2n
}

# kernel_list KERNEL: the tests the kernel was given (every part); the run's
# list for the host.
kernel_list() {
	if [ -f "$RESULTS/$1/kernel-tests.list" ]; then
		echo "$RESULTS/$1/kernel-tests.list"
	else
		echo "$TESTS_LIST"
	fi
}

# guest_estimate DIR: the seconds its tests took at most on any kernel of
# the committed docs/kernels.md (120 for one it does not list), and 60 for
# a kernel's first guest (it probes and times a default start first):
# guests boot longest first, so two slots end close together.
guest_estimate() {
	local total=0 line key s
	[[ $1 == *"~"* ]] || total=60
	while IFS= read -r line; do
		key=$(test_key "$line")
		s=$(awk -F'|' -v k=" $key " '$2 == k {
			m = 0
			for (i = 3; i <= NF; i++)
				if (match($i, / [0-9]+s/)) { v = substr($i, RSTART + 1, RLENGTH - 2) + 0; if (v > m) m = v }
			print m; exit
		}' "$REPO/docs/kernels.md" 2>/dev/null)
		[ "${s:-0}" -gt 0 ] || s=120
		total=$((total + s))
	done < <(read_list "$RESULTS/$1/tests.list")
	echo "$total"
}

# boot_kernel NAME: one prepared guest, start to power-off; results in
# $RESULTS/NAME.  Guests run side by side: each is one emulated machine.
boot_kernel() {
	local name=$1 out t0 rc=0 BOOT_KERNEL BOOT_INITRD BOOT_ACCEL BOOT_PKG
	out=$RESULTS/$name
	[ -f "$out/boot.env" ] || return 0 # not prepared: error.txt says why
	# shellcheck source=/dev/null
	. "$out/boot.env"
	# The run's deadline (MATRIX_DEADLINE) caps the guest's time, keeping a
	# minute for the report: a guest cut by it names the tests it did not
	# finish ("missing" in the table), and the table and docs are written.
	local limit=$KERNEL_TIMEOUT why=""
	if [ -n "${MATRIX_DEADLINE:-}" ]; then
		local left=$((MATRIX_DEADLINE - $(date +%s) - 60))
		if [ "$left" -lt "$limit" ]; then
			limit=$left
			why=" (the run's deadline)"
		fi
		if [ "$limit" -lt 60 ]; then
			echo "not booted: the run's deadline left ${left} s" >"$out/error.txt"
			echo "== $name: not booted, the run's deadline is near"
			return 0
		fi
	fi
	echo "== $name: $BOOT_PKG, accel $BOOT_ACCEL, up to $limit s$why"
	t0=$(date +%s)
	# The serial console is the guest's stdout: logged whole (without the
	# firmware's terminal escapes and carriage returns), shown prefixed.
	timeout --kill-after=30 "$limit" nice -n 10 qemu-system-x86_64 \
		-accel "$BOOT_ACCEL" -cpu max -m 4G -smp 2 -nographic -no-reboot -nic none \
		-kernel "$BOOT_KERNEL" -initrd "$BOOT_INITRD" \
		-append "console=ttyS0 panic=-1 ${GUEST_CMDLINE:-quiet}" \
		-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
		-fsdev "local,id=results,path=$out,security_model=none" \
		-device virtio-9p-pci,fsdev=results,mount_tag=results \
		</dev/null 2>&1 | sed -u 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g; s/\r//g' |
		tee "$out/console.log" | sed -u "s/^/  [$name] /" ||
		rc=${PIPESTATUS[0]}
	echo $(($(date +%s) - t0)) >"$out/wall_s"
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "guest killed after $limit s$why" >"$out/error.txt"
	elif [ "$rc" -ne 0 ]; then
		echo "qemu exited $rc" >"$out/error.txt"
	elif [ ! -f "$out/done" ]; then
		echo "the guest stopped before its tests finished (console.log says why)" >"$out/error.txt"
	fi
}

run_host() {
	local out=$RESULTS/host
	rm -rf "$out"
	mkdir -p "$out"
	printf '%s\t%s\t%s\t%s\n' host "-" "$(uname -r)" native >"$out/kernel.tsv"
	echo "== host: $(uname -r), natively"
	local t0
	t0=$(date +%s)
	(
		cd "$REPO"
		export BUILD CI=true
		diagnose "$out" "$BUILD"
		run_list "$TESTS_LIST" "$out" host
	)
	echo $(($(date +%s) - t0)) >"$out/wall_s"
}

# The verdict of every (kernel, test) of this run, a test that has none
# counted as "missing"; sets FAILURES.
declare -A VERDICT=() COUNTS=() VDIR=()
KERNELS_RUN=()
GUESTS=()
collect() {
	local k d key line t verdict p f s secs
	FAILURES=0
	for k in "${KERNELS_RUN[@]}"; do
		for d in $(guest_dirs "$k"); do
			# A guest that did not power off by itself is a failure even
			# when its tests passed.
			[ ! -f "$RESULTS/$d/error.txt" ] || FAILURES=$((FAILURES + 1))
			[ -f "$RESULTS/$d/verdicts.tsv" ] || continue
			while IFS=$'\t' read -r _ t verdict p f s secs; do
				VERDICT[$k/$t]=$verdict
				COUNTS[$k/$t]="$p/$f/$s ${secs}s"
				VDIR[$k/$t]=$d
			done < <(tail -n +2 "$RESULTS/$d/verdicts.tsv")
		done
		# Only what the kernel was given: a test its list leaves out is
		# "not listed", no failure.
		while IFS= read -r line; do
			key=$(test_key "$line")
			[ -n "${VERDICT[$k/$key]:-}" ] || VERDICT[$k/$key]=missing
			[ "${VERDICT[$k/$key]}" = pass ] || FAILURES=$((FAILURES + 1))
		done < <(list_tests "$(kernel_list "$k")")
	done
}

# all_tests: every test of this run's kernels, the run's list first.
all_tests() {
	local k
	{
		list_tests "$TESTS_LIST"
		for k in "${KERNELS_RUN[@]}"; do list_tests "$(kernel_list "$k")"; done
	} | awk '!seen[$0]++'
}

# cell KERNEL KEY: a test's verdict and counts on a kernel.
cell() {
	local c=${VERDICT[$1/$2]:-not listed}
	[ -z "${COUNTS[$1/$2]:-}" ] || c="$c ${COUNTS[$1/$2]}"
	echo "$c"
}

# walls KERNEL: each guest's wall time, "1900 + 350".
walls() {
	local d out=""
	for d in $(guest_dirs "$1"); do
		out="$out${out:+ + }$(cat "$RESULTS/$d/wall_s" 2>/dev/null || echo -)"
	done
	echo "$out"
}

print_table() {
	local k line key
	printf '\n%-34s' "test (passed/failed/skipped time)"
	for k in "${KERNELS_RUN[@]}"; do printf ' %-23s' "$k"; done
	printf '\n'
	while IFS= read -r line; do
		key=$(test_key "$line")
		printf '%-34s' "$key"
		for k in "${KERNELS_RUN[@]}"; do
			printf ' %-23s' "$(cell "$k" "$key")"
		done
		printf '\n'
	done < <(all_tests)
	printf '%-34s' "agent start (defaults, debug)"
	for k in "${KERNELS_RUN[@]}"; do
		printf ' %-23s' "$(cut -c1-23 "$RESULTS/$k/agent-start.txt" 2>/dev/null || echo -)"
	done
	printf '\n'
	# The budget CI plans from: each guest's wall time and its slowest test.
	local slow d
	for k in "${KERNELS_RUN[@]}"; do
		slow=$(for d in $(guest_dirs "$k"); do
			[ ! -f "$RESULTS/$d/verdicts.tsv" ] || tail -n +2 "$RESULTS/$d/verdicts.tsv"
		done | sort -t$'\t' -k7,7nr | head -n1 | cut -f2,7 | tr '\t' ' ')
		echo "$k: run took $(walls "$k") s; slowest test: ${slow:--} s"
	done
	printf '\n'
	for k in "${KERNELS_RUN[@]}"; do
		for d in $(guest_dirs "$k"); do
			[ -f "$RESULTS/$d/error.txt" ] || continue
			echo "$d: $(cat "$RESULTS/$d/error.txt")"
			# A CI machine's logs are not kept: the console's last lines (a
			# panic, an OOM kill, the test that was running) go in the tail.
			[ ! -f "$RESULTS/$d/console.log" ] ||
				grep -v '^[[:space:]]*$' "$RESULTS/$d/console.log" | tail -n 15 | cut -c1-200 | sed 's/^/    /'
		done
	done
	print_failed_cases
}

# print_failed_cases: each failed case of each guest with the last lines its
# test printed before the verdict, so a CI log's tail says what failed and
# why without the guest logs (a CI machine's logs are not kept).
print_failed_cases() {
	local k d log
	for k in "${KERNELS_RUN[@]}"; do
		for log in $(for d in $(guest_dirs "$k"); do echo "$RESULTS/$d"/*.log; done); do
			[ -f "$log" ] || continue
			grep -q '^FAIL ' "$log" || continue
			echo "$k: $(basename "$log" .log):"
			awk '/^FAIL / { for (i = n - 4; i < n; i++) if (i >= 0) print "    " buf[i % 4]; print "  " $0; n = 0; next }
			     { buf[n % 4] = substr($0, 1, 200); n++ }' "$log" | head -n 40
		done
	done
}

# probe_field KERNEL JQ: a field of that kernel's `enav probe --json`.
probe_field() {
	jq -r "$2 // \"-\"" "$RESULTS/$1/probe.json" 2>/dev/null || echo "-"
}

# table_head FIRST: a Markdown table's header, FIRST then a column per kernel.
table_head() {
	local k
	printf '| %s |' "$1"
	for k in "${KERNELS_RUN[@]}"; do printf ' %s |' "$k"; done
	printf '\n|---|'
	for k in "${KERNELS_RUN[@]}"; do printf -- '---|'; done
	printf '\n'
}

# doc_revision_line: the commit whose src/, bpf/, include/ and tests/ this run
# tested, and whether they differed from it (a run of uncommitted code
# proves no commit).  scripts/check_kernels_doc.sh, run by .ci/run, fails
# when these trees at HEAD differ from the recorded commit's.
doc_revision_line() {
	local rev tree=clean
	rev=$(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo unknown)
	git -C "$REPO" diff --quiet HEAD -- $KERNEL_DOC_TREES 2>/dev/null || tree=modified
	echo "Source revision: \`$rev\` (src, bpf, include and tests $tree at the run)."
}

write_docs() {
	local doc=$REPO/docs/kernels.md k line key name pkg kver accel boot wall cell
	{
		cat <<EOF
# Kernel matrix

Generated by \`scripts/kernel_matrix.sh\` (\`make test-kernels\`) on
$(date -u +%Y-%m-%d) with \`$(cat "$RESULTS/${KERNELS_RUN[0]}/version.txt" 2>/dev/null || echo "enav (version unknown)")\`;
this run: ${KERNELS_RUN[*]}$(case " ${KERNELS_RUN[*]} " in *" host "*) ;; *) echo " (not the host: --no-host)" ;; esac).
Do not edit by hand: the next run rewrites it.

$(doc_revision_line)

Each Debian kernel of [tests/kernels/kernels.list](../tests/kernels/kernels.list)
boots in QEMU (TCG emulation: timings mean nothing) on a small initramfs that
mounts the host's \`/\` read-only over virtio-9p under a tmpfs overlay, with a
pure cgroup v2 hierarchy, and runs the tests of
[tests/kernels/tests.list](../tests/kernels/tests.list), or the kernel's own
list where kernels.list names one ("not listed": a test that list leaves
out); a list cut by \`---\` lines boots a guest per part, and "run took" is
each guest's time.  \`host\` is the same list
run natively on the build machine's kernel.  A cell is the verdict and the
cases passed/failed/skipped (runs have CI=true, so a skip fails its case;
a \`skip\` verdict is not a pass either); logs are in \`\$BUILD/kernel-matrix/KERNEL/\`
(\`KERNEL~2\` and on for the other parts).

## Kernels

| name | package | kernel | accel | userland after | run took |
|---|---|---|---|---|---|
EOF
		for k in "${KERNELS_RUN[@]}"; do
			IFS=$'\t' read -r name pkg kver accel <"$RESULTS/$k/kernel.tsv" 2>/dev/null ||
				{ name=$k pkg=- kver=- accel=-; }
			boot=$(cat "$RESULTS/$k/boot_s" 2>/dev/null || echo -)
			wall=$(walls "$k")
			[ "$boot" = - ] || boot="$boot s"
			echo "| $name | \`$pkg\` | $kver | $accel | $boot | $wall s |"
		done
		printf '\n## Tests\n\n'
		table_head test
		while IFS= read -r line; do
			key=$(test_key "$line")
			printf '| %s |' "$key"
			for k in "${KERNELS_RUN[@]}"; do
				printf ' %s |' "$(cell "$k" "$key")"
			done
			printf '\n'
		done < <(all_tests)
		printf '| agent start (defaults, debug log) |'
		for k in "${KERNELS_RUN[@]}"; do
			printf ' %s |' "$(sed 's/|/\\|/g' "$RESULTS/$k/agent-start.txt" 2>/dev/null || echo -)"
		done
		printf '\n\n## What `enav probe` says\n\n'
		table_head ""
		local row
		for row in \
			"kernel release|.kernel_release" \
			"can run|.can_run" \
			"transport (auto)|.auto.transport" \
			"hooks (auto)|.auto.hooks" \
			"why|.auto.hooks_reason" \
			"exec hook|.auto.exec_hook" \
			"payload hook|.auto.payload_hook + \": \" + .auto.payload_hook_reason" \
			"func_arg_helpers|.capabilities.func_arg_helpers.status + \": \" + .capabilities.func_arg_helpers.detail" \
			"fentry/fexit|.capabilities.fentry_fexit.status + \": \" + .capabilities.fentry_fexit.detail" \
			"kprobe|.capabilities.kprobe.status + \": \" + .capabilities.kprobe.detail" \
			"tp_btf|.capabilities.btf_tracepoint.status" \
			"uprobe|.capabilities.uprobe.status" \
			"ring buffer|.capabilities.ring_buffer.status" \
			"cgroup layout|.cgroup.layout + \" (\" + .cgroup.cgroup2_mount + \")\""; do
			printf '| %s |' "${row%%|*}"
			for k in "${KERNELS_RUN[@]}"; do
				printf ' %s |' "$(probe_field "$k" "${row#*|}" | sed 's/|/\\|/g')"
			done
			printf '\n'
		done
		# Each feature of each source, as the probe loaded the agent's own
		# programs there: on, or refused with the program it names.
		local feat
		while IFS= read -r feat; do
			printf '| feature %s |' "$feat"
			for k in "${KERNELS_RUN[@]}"; do
				printf ' %s |' "$(probe_field "$k" "[.features[]? | select(.source + \"/\" + .feature == \"$feat\") | .state + (if .program != \"\" then \": \" + .program else \"\" end)] | join(\", \") | if . == \"\" then \"-\" else . end" | sed 's/|/\\|/g')"
			done
			printf '\n'
		done < <(for k in "${KERNELS_RUN[@]}"; do
			jq -r '.features[]? | .source + "/" + .feature' "$RESULTS/$k/probe.json" 2>/dev/null || true
		done | awk '!seen[$0]++')
		printf '\n## Failures\n\n'
		local any=0
		local d log
		for k in "${KERNELS_RUN[@]}"; do
			for d in $(guest_dirs "$k"); do
				[ ! -f "$RESULTS/$d/error.txt" ] || {
					echo "- **$d**: $(cat "$RESULTS/$d/error.txt")"
					any=1
				}
			done
			while IFS= read -r line; do
				key=$(test_key "$line")
				[ "${VERDICT[$k/$key]}" != pass ] || continue
				any=1
				echo "- **$k** \`$key\`: ${VERDICT[$k/$key]}"
				log=$RESULTS/${VDIR[$k/$key]:-$k}/$key.log
				[ -f "$log" ] || continue
				# Each failed case, and the line printed just before it:
				# lib.sh's fail() message, or the agent's last word.
				awk '/^(FAIL|SKIP) / {
					r = prev; gsub(/^[ \t]+|`/, "", r)
					if (length(r) > 200) r = substr(r, 1, 200) "..."
					print "  - " substr($0, 6) (r == "" ? "" : ": `" r "`")
				}
				NF { prev = $0 }' "$log"
			done < <(list_tests "$(kernel_list "$k")")
		done
		[ $any -eq 1 ] || echo "None."
	} >"$doc.tmp"
	mv "$doc.tmp" "$doc"
	echo "wrote $doc"
}

host_main() {
	local kernels_opt="" host=1 guests=1 docs=1 run=1 tests_opt=""
	TESTS_LIST=$REPO/tests/kernels/tests.list
	while [ $# -gt 0 ]; do
		case $1 in
		--kernels) kernels_opt=${2:?--kernels NAME,...}; shift ;;
		--no-host) host=0 ;;
		--host-only) guests=0 ;;
		--tests) tests_opt=$(realpath "${2:?--tests FILE}"); TESTS_LIST=$tests_opt; shift ;;
		--no-docs) docs=0 ;;
		--report-only) run=0 ;;
		-h | --help) sed -n '2,/^set -euo/p' "$SELF" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
		*) die "unknown argument $1 (see --help)" ;;
		esac
		shift
	done
	[ "$(id -u)" -eq 0 ] || die "needs root (BPF in the host run; the kernel cache)"
	BUILD=$(realpath "${BUILD:-build}")
	[ -x "$BUILD/enav" ] || die "$BUILD/enav is not built (make BUILD=$BUILD all helpers)"
	[ -d "$BUILD/helpers" ] || die "$BUILD/helpers is not built (make BUILD=$BUILD helpers)"
	case $BUILD in /proc/* | /sys/* | /dev/* | /run/*)
		die "BUILD must be on the host's root filesystem: guests see it through 9p" ;;
	esac
	CACHE=${ENAV_KERNEL_CACHE:-/var/cache/enav-kernels}
	RESULTS=$(realpath -m "${RESULTS:-$BUILD/kernel-matrix}")
	KERNEL_TIMEOUT=${KERNEL_TIMEOUT:-3300}
	MAX_GUESTS=${MAX_GUESTS:-2}
	[[ $MAX_GUESTS =~ ^[1-9][0-9]*$ ]] || die "MAX_GUESTS must be a positive number"
	if [ -n "${MATRIX_DEADLINE:-}" ]; then
		[[ $MATRIX_DEADLINE =~ ^[0-9]+$ ]] || die "MATRIX_DEADLINE must be seconds since the epoch"
	fi
	TEST_TIMEOUT=${TEST_TIMEOUT:-1800}
	mkdir -p "$CACHE" "$RESULTS"
	local cmd
	for cmd in qemu-system-x86_64 busybox llvm-readelf jq curl; do
		command -v "$cmd" >/dev/null || die "$cmd missing: scripts/deps.sh test installs it"
	done

	local name pkg accel suite list
	if [ $guests -eq 1 ] && [ $run -eq 1 ]; then
		warm_go_cache
	fi
	if [ $guests -eq 1 ]; then
		while read -r name pkg accel suite list; do
			if [ -n "$kernels_opt" ] && [[ ",$kernels_opt," != *",$name,"* ]]; then
				continue
			fi
			# --tests gives every kernel the same list; else the kernel's
			# own (kernels.list's LIST column) or tests.list.
			if [ -n "$tests_opt" ]; then
				list=$tests_opt
			elif [ -n "${list:-}" ] && [ "$list" != - ]; then
				list=$REPO/$list
				[ -f "$list" ] || die "kernels.list: $name's list $list does not exist"
			else
				list=$REPO/tests/kernels/tests.list
			fi
			if [ $run -eq 1 ]; then
				prepare_kernel "$name" "$pkg" "$accel" "${suite:--}" "$list"
			elif [ ! -d "$RESULTS/$name" ]; then
				continue
			fi
			KERNELS_RUN+=("$name")
		done < <(read_list "$REPO/tests/kernels/kernels.list")
		if [ $run -eq 1 ]; then
			# At most MAX_GUESTS emulated machines at once (each TCG guest
			# keeps a host core busy); the next starts when one powers off,
			# longest expected first.
			local g running=0
			while read -r _ g; do
				if [ "$running" -ge "$MAX_GUESTS" ]; then
					wait -n || true
					running=$((running - 1))
				fi
				boot_kernel "$g" &
				running=$((running + 1))
			done < <(for g in "${GUESTS[@]}"; do
				echo "$(guest_estimate "$g") $g"
			done | sort -k1,1nr -s)
			wait || true
		fi
	fi
	# The host's run comes after every guest has powered off: test_tls
	# counts the processes that map GnuTLS, and qemu is one of them.
	if [ $host -eq 1 ]; then
		if [ $run -eq 1 ]; then
			run_host
		fi
		[ ! -d "$RESULTS/host" ] || KERNELS_RUN+=(host)
	fi
	[ ${#KERNELS_RUN[@]} -gt 0 ] || die "no kernel selected"
	collect
	print_table
	[ $docs -eq 0 ] || write_docs
	if [ "$FAILURES" -gt 0 ]; then
		echo "kernel matrix: $FAILURES failed (logs in $RESULTS)"
		exit 1
	fi
	echo "kernel matrix: every test passed on ${KERNELS_RUN[*]}"
}

if [ "${1:-}" = "--guest" ]; then
	guest_main "${2:?--guest RESULTS_DIR}"
else
	host_main "$@"
fi
