#!/usr/bin/env bash
# What the watched-file source costs every open(2) on the node: a loop of
# open+close of one file, timed with no agent, with the agent and
# sources.file_open off, with it on (the file not watched: what every other
# open on the node pays), and on with the file watched (an event per open,
# the agent's own rate limits downstream).  Arms alternate in ABBA order;
# each prints its median microseconds per open and its ratio to no agent.
#
# usage (root, after `make`): bench/file_open_overhead.sh [ROUNDS] [OPENS]   (default 3, 200000)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
OPENS=${2:-200000}
BUILD=${BUILD:-build}
APORT=${APORT:-19497}
WORK=$(mktemp -d /tmp/enav-openb.XXXXXX)
AGENT=
trap 'kill ${AGENT:-} 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
make --no-print-directory -s all >/dev/null
cc -O2 -o "$WORK/open_floor" bench/open_floor.c
echo data >"$WORK/file"
for arm in off unwatched watched; do
	{
		echo "http:"
		echo "  listen: 127.0.0.1:$APORT"
		echo '  health_listen: ""'
		echo "exporters:"
		echo "  ndjson:"
		echo "    path: /dev/null"
		echo "    rate_limit: {spans_per_second: 0, other_kinds_per_second: 0}" # every open written
		echo "profiling:"
		echo "  enabled: false"
		echo "sources:"
		echo "  network:"
		echo "    enabled: false"
		echo "  file_open:"
		echo "    enabled: $([ $arm = off ] && echo false || echo true)"
		[ $arm = watched ] && echo "    watch_paths: [\"$WORK/file\"]"
		[ $arm = unwatched ] && echo "    watch_paths: [\"$WORK/other\"]"
	} >"$WORK/cfg-$arm.yaml"
done

arm() { # arm none|off|unwatched|watched
	if [ "$1" != none ]; then
		"$BUILD/enav" run --config "$WORK/cfg-$1.yaml" 2>>"$WORK/agent.log" &
		AGENT=$!
		for _ in $(seq 100); do curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
	fi
	local us
	us=$("$WORK/open_floor" "$WORK/file" "$OPENS")
	echo "$1 $us" >>"$WORK/runs"
	if [ "$1" != none ]; then
		kill -TERM "$AGENT"
		wait "$AGENT" || true
		AGENT=
	fi
	echo "  $1: $us us per open" >&2
}

med() { awk -v a="$1" '$1 == a { print $2 }' "$WORK/runs" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "date: $(date -u +%FT%TZ)  kernel: $(uname -r)  cores: $(nproc)  opens per run: $OPENS"
for ((r = 0; r < ROUNDS; r++)); do
	for a in none off unwatched watched watched unwatched off none; do arm $a; done
done
base=$(med none)
for a in none off unwatched watched; do
	m=$(med $a)
	awk -v a="$a" -v m="$m" -v b="$base" 'BEGIN { printf "%-10s %.3f us per open  ratio to no agent %.3f\n", a, m, m / b }'
done
