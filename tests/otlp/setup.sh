#!/usr/bin/env bash
# Installs the OTLP test receiver's node_modules (tests/otlp/node_modules) from
# package-lock.json.  Idempotent: prints nothing when they are already there;
# otherwise prints one line and fails.  Usage: tests/otlp/setup.sh
set -uo pipefail
cd "$(dirname "$0")" || exit 1

MODULE=@opentelemetry/otlp-transformer/build/src/generated/root
STAMP=node_modules/.enav-lock.sha256

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "otlp setup: node and npm are needed (run scripts/deps.sh test as root)" >&2
	exit 1
fi

want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] &&
	node -e "require('$MODULE')" >/dev/null 2>&1; then
	exit 0
fi

log=$(mktemp /tmp/enav-otlp-npm.XXXXXX)
# --prefer-offline: the npm cache answers when it has the packages.
# --ignore-scripts: nothing here needs an install script (protobufjs's only
# checks its CLI's dependencies).
if ! npm ci --no-audit --no-fund --prefer-offline --ignore-scripts >"$log" 2>&1; then
	echo "otlp setup: npm ci failed in tests/otlp: $(grep -m1 -i 'err' "$log" || tail -n1 "$log") (log: $log)" >&2
	exit 1
fi
if ! node -e "require('$MODULE')" >/dev/null 2>>"$log"; then
	echo "otlp setup: npm ci ran but $MODULE does not load (log: $log)" >&2
	exit 1
fi
echo "$want" >"$STAMP"
rm -f "$log"
