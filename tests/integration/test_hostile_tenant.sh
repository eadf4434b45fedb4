#!/usr/bin/env bash
# The hostile-tenant suite (docs/security.md's threat model): each case is an
# attack a tenant of the node can make with no privilege beyond its own
# processes (an unprivileged user, and `unshare -Urm` for mount tricks where
# the attack needs them), and asserts the agent stays up, answers /metrics and
# SIGTERM, and does not do what the attack asks.
#
# The cases live in tests/integration/hostile/*.sh, one file per defended
# input; each defines its case functions and ends with its run_case lines.
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh

# The tenant: nobody (65534), with no capability and no supplementary group
# (the kernel matrix's guests share a read-only root, so no user is created).
# Mount tricks use `unshare -Urm` from there, as any unprivileged user can.
TENANT_UID=65534
# as_tenant CMD...: runs CMD as the tenant.
as_tenant() {
	setpriv --reuid=$TENANT_UID --regid=$TENANT_UID --clear-groups --inh-caps=-all -- "$@"
}

if [ "$(id -u)" -ne 0 ]; then
	run_case "hostile tenant suite needs root" require_root
	finish
	exit
fi
chmod 755 "$WORK"

for f in tests/integration/hostile/*.sh; do
	[ -e "$f" ] || continue
	# shellcheck source=/dev/null
	. "$f"
done
finish
