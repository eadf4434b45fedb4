#!/usr/bin/env bash
# Packaging: the .deb (contents, modes, lintian, install, check-config,
# purge), the systemd unit (systemd-analyze verify) and the Kubernetes
# manifest (security settings, read-only RBAC, its config accepted).
. "$(dirname "$0")/lib.sh"

VERSION=$(cat VERSION)
DEB=$BUILD/enav_${VERSION}_amd64.deb
INSTALLED=
MANIFEST=${MANIFEST:-packaging/kubernetes/enav.yaml}

# Purge what this test installed, also when a case fails or the test dies.
purge_installed() {
	if [ -n "$INSTALLED" ]; then
		dpkg --purge enav >/dev/null 2>&1 || true
		INSTALLED=
	fi
}
trap 'purge_installed; cleanup' EXIT

case_build() {
	# The same script `make deb` runs, on the binary the suite built.
	packaging/deb/build.sh "$BUILD" >"$WORK/build.out" 2>&1 ||
		{ fail "build.sh failed: $(cat "$WORK/build.out")"; return 1; }
	[ -f "$DEB" ] || { fail "$DEB not built"; return 1; }
	dpkg-deb --info "$DEB" >"$WORK/info" || { fail "dpkg-deb --info failed"; return 1; }
	local f
	for f in 'Package: enav' "Version: $VERSION" 'Architecture: amd64' \
		'Maintainer: E-Navigator developers <enav@localhost>' 'Section: admin' \
		'Priority: optional' 'Depends: .*libbpf1' 'Depends: .*libyaml-0-2' \
		'Depends: .*libmicrohttpd12' 'Depends: .*libc6'; do
		grep -Eq "^ $f" "$WORK/info" || { fail "control lacks '$f'"; return 1; }
	done
	# An extended description: at least one continuation line.
	grep -Eq '^  [A-Za-z]' "$WORK/info" || { fail "no extended description"; return 1; }
	dpkg-deb --ctrl-tarfile "$DEB" | tar -t >"$WORK/ctrl" || return 1
	for f in control conffiles postinst prerm postrm; do
		grep -qx "./$f" "$WORK/ctrl" || { fail "DEBIAN/$f missing"; return 1; }
	done
	expect_eq "conffiles" "$(dpkg-deb --field "$DEB" Package >/dev/null &&
		dpkg-deb --ctrl-tarfile "$DEB" | tar -xO ./conffiles)" /etc/enav/enav.yaml || return 1
	dpkg-deb --contents "$DEB" | awk '{ print $1, $2, $6 }' >"$WORK/contents" || return 1
	local want=(
		"-rwxr-xr-x root/root ./usr/sbin/enav"
		"-rw-r--r-- root/root ./lib/systemd/system/enav.service"
		"-rw-r--r-- root/root ./etc/enav/enav.yaml"
		"-rw-r--r-- root/root ./usr/share/man/man8/enav.8.gz"
		"-rw-r--r-- root/root ./usr/share/doc/enav/copyright"
		"-rw-r--r-- root/root ./usr/share/doc/enav/changelog.Debian.gz"
	)
	for f in "${want[@]}"; do
		grep -qxF -- "$f" "$WORK/contents" || { fail "contents lack '$f'"; return 1; }
	done
	# Nothing group- or world-writable, nothing setuid.
	if awk '$1 ~ /^.....w|^........w|s/' "$WORK/contents" | grep -q .; then
		fail "bad modes: $(awk '$1 ~ /^.....w|^........w|s/' "$WORK/contents")"
		return 1
	fi
	# The packaged binary is stripped and is the same program.
	dpkg-deb --fsys-tarfile "$DEB" | tar -xO ./usr/sbin/enav >"$WORK/enav.pkg" || return 1
	chmod +x "$WORK/enav.pkg"
	# readelf's failure must not read as "no debug sections".
	readelf -S "$WORK/enav.pkg" >"$WORK/sections" 2>&1 || { fail "readelf: $(head -3 "$WORK/sections")"; return 1; }
	grep -q ' \.text ' "$WORK/sections" || { fail "readelf listed no .text: $(head -3 "$WORK/sections")"; return 1; }
	grep -Eq '\.(symtab|debug_info) ' "$WORK/sections" && { fail "binary not stripped"; return 1; }
	expect_eq "packaged version" "$("$WORK/enav.pkg" version)" "$("$ENAV" version)"
}

case_lintian() {
	command -v lintian >/dev/null || { fail "lintian missing (scripts/deps.sh test: lintian)"; return 1; }
	[ -f "$DEB" ] || { fail "no package"; return 1; }
	# lintian exits 2 on an error tag and 1 on its own failure (a package it
	# cannot read); either fails the case.  The verdict run leaves out
	# --show-overrides, with which an overridden error tag (the placeholder
	# maintainer address) would count as an error again.
	local rc=0
	lintian --fail-on error --tag-display-limit 0 "$DEB" >"$WORK/lintian" 2>"$WORK/lintian.err" || rc=$?
	if [ $rc -ne 0 ] || grep -q '^E:' "$WORK/lintian"; then
		fail "lintian rc=$rc: $(grep '^E:' "$WORK/lintian" | head -5) $(head -3 "$WORK/lintian.err")"
		return 1
	fi
	# The warnings and the overrides, for the log only (this run's status
	# counts the overridden tags, so it decides nothing).
	lintian --tag-display-limit 0 --show-overrides "$DEB" >"$WORK/lintian.shown" 2>/dev/null
	grep -E '^[WO]:' "$WORK/lintian.shown" | sed 's/^/    /' >&2
	return 0
}

case_install_purge() {
	[ "$(id -u)" -eq 0 ] || { skip "needs root to install a package"; return; }
	[ -f "$DEB" ] || { fail "no package"; return 1; }
	if dpkg-query -W -f='${Status}' enav 2>/dev/null | grep -q installed; then
		fail "an enav package is already installed; not touching it"
		return 1
	fi
	INSTALLED=1
	dpkg -i "$DEB" >"$WORK/dpkg.out" 2>&1 || { fail "dpkg -i: $(cat "$WORK/dpkg.out")"; return 1; }
	/usr/sbin/enav version | grep -Eq "^enav $VERSION " || { fail "installed enav version"; return 1; }
	expect_eq "check-config" "$(/usr/sbin/enav check-config /etc/enav/enav.yaml 2>&1)" \
		"/etc/enav/enav.yaml: ok" || return 1
	cmp -s /etc/enav/enav.yaml config/enav.example.yaml || { fail "config differs from the example"; return 1; }
	command -v man >/dev/null || { fail "man missing (scripts/deps.sh test: man-db)"; return 1; }
	MANWIDTH=80 man -l /usr/share/man/man8/enav.8.gz >"$WORK/man.out" 2>"$WORK/man.err" ||
		{ fail "man -l failed: $(cat "$WORK/man.err")"; return 1; }
	grep -q 'OVERHEAD' "$WORK/man.out" || { fail "man page does not render: $(cat "$WORK/man.err")"; return 1; }
	# The unit, with the binary it names in place.  systemd-analyze verify
	# reads unit files offline; it needs no running systemd.
	command -v systemd-analyze >/dev/null || { fail "systemd-analyze missing (scripts/deps.sh test: systemd)"; return 1; }
	systemd-analyze verify /lib/systemd/system/enav.service >"$WORK/verify" 2>&1 ||
		{ fail "systemd-analyze verify: $(cat "$WORK/verify")"; return 1; }
	[ ! -s "$WORK/verify" ] || { fail "systemd-analyze verify said: $(cat "$WORK/verify")"; return 1; }
	dpkg --purge enav >"$WORK/purge.out" 2>&1 || { fail "dpkg --purge: $(cat "$WORK/purge.out")"; return 1; }
	INSTALLED=
	local f
	for f in /usr/sbin/enav /etc/enav/enav.yaml /etc/enav /lib/systemd/system/enav.service \
		/usr/share/man/man8/enav.8.gz /usr/share/doc/enav /var/lib/enav; do
		[ ! -e "$f" ] || { fail "$f left after purge"; return 1; }
	done
	dpkg-query -W enav >/dev/null 2>&1 && { fail "dpkg still knows enav"; return 1; }
	return 0
}

case_manifest() {
	python3 -c 'import yaml' 2>/dev/null || { skip "python3 yaml not installed"; return; }
	python3 - "$MANIFEST" "$WORK/k8s-config.yaml" <<'PY' || return 1
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
kinds = sorted(d["kind"] for d in docs)
want = sorted(["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding",
               "ConfigMap", "DaemonSet"])
errs = []
if kinds != want:
    errs.append(f"kinds {kinds}, want {want}")
CAPS = {"BPF", "PERFMON", "SYS_ADMIN", "SYS_PTRACE", "DAC_READ_SEARCH", "SYS_RESOURCE", "SYSLOG"}
for d in docs:
    if d["kind"] == "ClusterRole":
        for r in d["rules"]:
            extra = set(r["verbs"]) - {"get", "list", "watch"}
            if extra:
                errs.append(f"ClusterRole verbs {sorted(extra)}")
        res = {(g, x) for r in d["rules"] for g in r["apiGroups"] for x in r["resources"]}
        for need in [("", "pods"), ("", "services"), ("discovery.k8s.io", "endpointslices")]:
            if need not in res:
                errs.append(f"ClusterRole lacks {need}")
    if d["kind"] == "ConfigMap":
        open(sys.argv[2], "w").write(d["data"]["enav.yaml"])
    if d["kind"] == "DaemonSet":
        spec = d["spec"]["template"]["spec"]
        if spec.get("hostPID") is not True:
            errs.append("hostPID is not true")
        if spec.get("serviceAccountName") != "enav":
            errs.append("serviceAccountName")
        for c in spec.get("initContainers", []) + spec["containers"]:
            sc = c.get("securityContext") or {}
            n = c["name"]
            if sc.get("privileged", False) is not False:
                errs.append(f"{n}: privileged")
            if sc.get("allowPrivilegeEscalation", True) is not False:
                errs.append(f"{n}: allowPrivilegeEscalation")
            if sc.get("readOnlyRootFilesystem") is not True:
                errs.append(f"{n}: readOnlyRootFilesystem")
            caps = sc.get("capabilities") or {}
            if "ALL" not in (caps.get("drop") or []):
                errs.append(f"{n}: capabilities.drop lacks ALL")
            if set(caps.get("add") or []) != CAPS:
                errs.append(f"{n}: capabilities.add {caps.get('add')}")
            paths = {p["httpGet"]["path"]: p["httpGet"]["port"] for p in
                     (c.get("livenessProbe"), c.get("readinessProbe")) if p}
            # The probes on the health listener of their own (ADR 0018).
            if paths != {"/healthz": 9465, "/readyz": 9465}:
                errs.append(f"{n}: probes {paths}")
            env = {e["name"]: e for e in c.get("env", [])}
            if env.get("NODE_NAME", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") != "spec.nodeName":
                errs.append(f"{n}: NODE_NAME not from spec.nodeName")
            if not c.get("resources", {}).get("limits") or not c["resources"].get("requests"):
                errs.append(f"{n}: resources")
        vols = {v["name"]: v for v in spec["volumes"]}
        mounts = {m["mountPath"]: m for c in spec["containers"] for m in c.get("volumeMounts", [])}
        if not mounts.get("/sys", {}).get("readOnly"):
            errs.append("/sys not mounted read-only")
        if "/sys/fs/cgroup" not in mounts:
            errs.append("/sys/fs/cgroup not mounted")
        # The listener's token: a Secret, readable by its owner (root) only.
        tok = vols.get(mounts.get("/etc/enav/token", {}).get("name"), {}).get("secret") or {}
        if tok.get("secretName") != "enav-listener-token" or tok.get("defaultMode") != 0o400:
            errs.append(f"/etc/enav/token: not the Secret enav-listener-token at mode 0400 ({tok})")
for e in errs:
    print("    " + e, file=sys.stderr)
sys.exit(1 if errs else 0)
PY
	# The ConfigMap's configuration is one the agent accepts, and it listens
	# on every address so the kubelet's probes reach it.
	"$ENAV" check-config "$WORK/k8s-config.yaml" >"$WORK/cc" 2>&1 ||
		{ fail "ConfigMap config rejected: $(cat "$WORK/cc")"; return 1; }
	grep -q 'listen: "0.0.0.0:9464"' "$WORK/k8s-config.yaml" || { fail "ConfigMap does not listen on 0.0.0.0"; return 1; }
	# What the pod network may reach (ADR 0018): the data port only with the
	# token, health on a port of its own.
	grep -q 'health_listen: "0.0.0.0:9465"' "$WORK/k8s-config.yaml" || { fail "ConfigMap has no health listener on 0.0.0.0:9465"; return 1; }
	grep -q 'bearer_token_file: /etc/enav/token/token' "$WORK/k8s-config.yaml" || { fail "ConfigMap sets no bearer token file"; return 1; }
	command -v yamllint >/dev/null || { fail "yamllint missing (scripts/deps.sh test: yamllint)"; return 1; }
	yamllint -d '{extends: default, rules: {line-length: {max: 100}}}' \
		"$MANIFEST" >&2 || { fail "yamllint"; return 1; }
}

# The Helm chart renders, with its default values, exactly the objects of the
# plain manifest; with other values, what they say.  Helm is not in Debian:
# a renderer built here with Go's text/template and the four functions the
# chart uses stands in for it (tests/integration/peers/helm_render).
case_helm_chart() {
	command -v go >/dev/null || { fail "go missing (scripts/deps.sh test: golang-go)"; return 1; }
	local chart=packaging/helm/enav src
	src=$(cd "$(dirname "$0")/peers/helm_render" && pwd)
	(cd "$src" && HOME=${HOME:-/root} GOCACHE=${GOCACHE:-$WORK/gocache} GOFLAGS=-mod=mod GOPROXY=off \
		CGO_ENABLED=0 go build -o "$WORK/helm_render" .) 2>"$WORK/gobuild.err" ||
		{ fail "go build: $(cat "$WORK/gobuild.err")"; return 1; }
	yamllint -d relaxed "$chart/Chart.yaml" "$chart/values.yaml" >"$WORK/yamllint.out" 2>&1 ||
		{ fail "yamllint: $(head -3 "$WORK/yamllint.out")"; return 1; }
	python3 -c 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2], "w"))' \
		"$chart/values.yaml" "$WORK/values.json" || { fail "values.yaml does not parse"; return 1; }
	"$WORK/helm_render" "$chart" "$WORK/values.json" >"$WORK/rendered.yaml" 2>"$WORK/render.err" ||
		{ fail "render: $(cat "$WORK/render.err")"; return 1; }
	python3 - "$WORK/rendered.yaml" packaging/kubernetes/enav.yaml >"$WORK/cmp.out" 2>&1 <<'PY' ||
import sys, yaml
key = lambda d: (d["kind"], d["metadata"]["name"])
a = sorted((d for d in yaml.safe_load_all(open(sys.argv[1])) if d), key=key)
b = sorted((d for d in yaml.safe_load_all(open(sys.argv[2])) if d), key=key)
if [key(d) for d in a] != [key(d) for d in b]:
    sys.exit("objects differ: %s vs %s" % ([key(d) for d in a], [key(d) for d in b]))
for x, y in zip(a, b):
    if x != y:
        sys.exit("%s/%s differs from the manifest" % key(x))
print(len(a))
PY
		{ fail "$(cat "$WORK/cmp.out")"; return 1; }
	expect_eq "objects equal to the manifest's" "$(cat "$WORK/cmp.out")" 6 || return 1
	# Other values: an existing namespace, two capabilities, another image.
	python3 - "$WORK/values.json" >"$WORK/values2.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
v.update(namespace="observability", createNamespace=False, capabilities=["BPF", "PERFMON"],
         image={"repository": "registry.example/enav", "tag": "9.9.9", "pullPolicy": "Always"})
print(json.dumps(v))
PY
	"$WORK/helm_render" "$chart" "$WORK/values2.json" >"$WORK/rendered2.yaml" || { fail "render with other values"; return 1; }
	python3 - "$WORK/rendered2.yaml" >"$WORK/cmp2.out" 2>&1 <<'PY' || { fail "$(cat "$WORK/cmp2.out")"; return 1; }
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
assert not [d for d in docs if d["kind"] == "Namespace"], "namespace created"
ns = {d["metadata"].get("namespace") for d in docs if d["kind"] not in ("ClusterRole", "ClusterRoleBinding")}
assert ns == {"observability"}, ns
ds = [d for d in docs if d["kind"] == "DaemonSet"][0]
c = ds["spec"]["template"]["spec"]["containers"][0]
assert c["image"] == "registry.example/enav:9.9.9", c["image"]
assert c["securityContext"]["capabilities"] == {"drop": ["ALL"], "add": ["BPF", "PERFMON"]}
assert c["securityContext"]["privileged"] is False
PY
}

run_case "deb: build, control, contents, modes" case_build
run_case "deb: lintian has no errors" case_lintian
run_case "deb: install, check-config, unit verify, purge" case_install_purge
run_case "kubernetes: manifest security settings and config" case_manifest
run_case "helm: the chart renders the manifest's objects, and what other values say" case_helm_chart
finish
