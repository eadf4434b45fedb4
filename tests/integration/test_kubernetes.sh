#!/usr/bin/env bash
# Kubernetes attribution and selectors end to end: the agent's controller
# against the fake API server (tests/k8s/fake_apiserver.py, the real v1
# shapes), real cgroups shaped like containerd containers of those pods, and
# real execs.  No real cluster is involved.
. "$(dirname "$0")/lib.sh"

NODE=enav-test-node
UID_A=6c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f
UID_B=0f9e8d7c-6b5a-4948-8776-655443322110
CID_A=aa11bb22cc33dd44ee55ff6677889900aa11bb22cc33dd44ee55ff6677889900
CID_B=bb11bb22cc33dd44ee55ff6677889900aa11bb22cc33dd44ee55ff6677889900
CG_A=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_A//-/_}.slice/cri-containerd-$CID_A.scope
CG_B=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_B//-/_}.slice/cri-containerd-$CID_B.scope
cgrun_tree "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_A//-/_}.slice"
cgrun_tree "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_B//-/_}.slice"
EXE=$(readlink -f "$HELPERS/exit_with")
FAKE_PID=
FAKE_PORT=

start_fake() {
	command -v python3 >/dev/null || { fail "python3 missing"; return 1; }
	coproc FAKE { exec python3 tests/k8s/fake_apiserver.py --port 0; }
	FAKE_PID=$FAKE_PID
	read -r -t 10 FAKE_PORT <&"${FAKE[0]}" || { fail "fake API server did not start"; return 1; }
}

stop_fake() {
	[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null
	FAKE_PID=
}

control() { curl -fsS -X POST --data-binary "$1" "http://127.0.0.1:$FAKE_PORT/_control" >/dev/null; }

pod_json() { # pod_json UID NAMESPACE NAME APP_LABEL
	cat <<JSON
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"$3","namespace":"$2","uid":"$1",
 "labels":{"app":"$4","pod-template-hash":"7d9f8c6b5","team":"label-privacy-marker"},
 "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"${3%-*}",
  "uid":"11111111-2222-4333-8444-555555555555","controller":true,"blockOwnerDeletion":true}]},
 "spec":{"nodeName":"$NODE","containers":[{"name":"app","image":"example/app:1"}]},
 "status":{"phase":"Running","podIP":"10.1.0.7"}}
JSON
}

seed_cluster() {
	control "{\"cmd\":\"add\",\"kind\":\"pods\",\"object\":$(pod_json $UID_A ns-privacy-marker web-7d9f8c6b5-x2x9q web)}" &&
		control "{\"cmd\":\"add\",\"kind\":\"pods\",\"object\":$(pod_json $UID_B other-ns batch-7d9f8c6b5-q8w7e batch)}" &&
		control '{"cmd":"add","kind":"services","object":{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc-privacy-marker","namespace":"ns-privacy-marker","uid":"22222222-3333-4444-8555-666666666666"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}}' &&
		control "{\"cmd\":\"add\",\"kind\":\"endpointslices\",\"object\":{\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\",\"metadata\":{\"name\":\"svc-privacy-marker-abcde\",\"namespace\":\"ns-privacy-marker\",\"labels\":{\"kubernetes.io/service-name\":\"svc-privacy-marker\"}},\"addressType\":\"IPv4\",\"endpoints\":[{\"addresses\":[\"10.1.0.7\"],\"targetRef\":{\"kind\":\"Pod\",\"name\":\"web-7d9f8c6b5-x2x9q\",\"namespace\":\"ns-privacy-marker\",\"uid\":\"$UID_A\"}}]}}"
}

k8s_config() { # k8s_config SELECTOR...
	local lines=("capture:" "  mode: allowlist" "  selectors:")
	local s
	for s in "$@"; do lines+=("    - \"$s\""); done
	write_config "$WORK/cfg.yaml" "${lines[@]}" "kubernetes:" "  enabled: true" \
		"  api_server: http://127.0.0.1:$FAKE_PORT" "  node_name: $NODE" \
		"  keep_labels: [app]" "discovery:" "  rescan_interval_ms: 500"
}

wait_synced() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(metric enav_k8s_synced)" = 1 ] && return 0
		sleep 0.1
	done
	fail "controller never synced"
}

pids_of() { sed -n 's/^pids=//p' <<<"$1"; }

case_attribution_and_namespace_selector() {
	require_root || return
	start_fake || return 1
	seed_cluster || { fail "cannot seed the fake cluster"; return 1; }
	"$HELPERS/cgrun" -p -m "$CG_A" -- /bin/true >/dev/null &&
		"$HELPERS/cgrun" -p -m "$CG_B" -- /bin/true >/dev/null || { fail "cgroups"; return 1; }
	k8s_config "namespace:ns-privacy-marker"
	start_agent "$WORK/cfg.yaml" || return 1
	wait_synced || return 1
	sleep 0.3 # one discovery pass over the synced view
	local a b
	a=$(pids_of "$("$HELPERS/cgrun" -p "$CG_A" -- "$EXE" 0)")
	b=$(pids_of "$("$HELPERS/cgrun" -p "$CG_B" -- "$EXE" 0)")
	local ex
	ex=$(wait_for_line ".kind == \"process.exec\" and .process.pid == $a") || { fail "no exec from pod A"; return 1; }
	expect_eq "pod name" "$(jq -r .k8s.pod_name <<<"$ex")" web-7d9f8c6b5-x2x9q || return 1
	expect_eq "namespace" "$(jq -r .k8s.namespace <<<"$ex")" ns-privacy-marker || return 1
	expect_eq "pod uid" "$(jq -r .k8s.pod_uid <<<"$ex")" "$UID_A" || return 1
	expect_eq "node" "$(jq -r .k8s.node_name <<<"$ex")" "$NODE" || return 1
	expect_eq "owner" "$(jq -r '.k8s.owner_kind + "/" + .k8s.owner_name' <<<"$ex")" Deployment/web || return 1
	expect_eq "kept labels only" "$(jq -c .k8s.labels <<<"$ex")" '{"app":"web"}' || return 1
	expect_eq "services" "$(jq -c .k8s.services <<<"$ex")" '["ns-privacy-marker/svc-privacy-marker"]' || return 1
	expect_eq "container" "$(jq -r .container.id <<<"$ex")" "$CID_A" || return 1
	sleep 0.3
	has_line "$WORK/signals.ndjson" ".process.pid == $b" && { fail "pod B (other namespace) was captured"; return 1; }
	# Privacy: the Kubernetes strings the agent now holds are in no kernel map.
	local ids id type dumped=0 names=
	ids=$(cat /proc/"$AGENT_PID"/fdinfo/* 2>/dev/null | awk '$1 == "map_id:" { print $2 }' | sort -un)
	: >"$WORK/maps.txt"
	for id in $ids; do
		bpftool map show id "$id" -j >"$WORK/map.json" 2>&1 || { fail "bpftool map show id $id: $(cat "$WORK/map.json")"; return 1; }
		type=$(jq -r .type "$WORK/map.json")
		case "$type" in ringbuf | perf_event_array) continue ;; esac
		names="$names $(jq -r .name "$WORK/map.json")"
		# A dump that fails would hide whatever the map holds.
		bpftool map dump id "$id" >>"$WORK/maps.txt" 2>"$WORK/dump.err" ||
			{ fail "bpftool map dump id $id ($type): $(cat "$WORK/dump.err")"; return 1; }
		dumped=$((dumped + 1))
	done
	tr -s ' \n' ' ' <"$WORK/maps.txt" >"$WORK/maps.flat"
	# The scan saw the agent's maps: the exec, network and filter programs
	# hold more than ten between them, the verdict map among them ...
	[ "$dumped" -ge 10 ] || { fail "only $dumped maps dumped:$names"; return 1; }
	grep -qw enav_cgroup_ver <<<"$names" || { fail "verdict map not among the dumped:$names"; return 1; }
	# ... and it can see what a map holds: pod A's cgroup id, which the
	# allowlist put in the verdict map, is found in the same text, as a
	# number (maps with BTF) or as little-endian bytes (maps without).
	local cgid cghex
	cgid=$(stat -c %i "$(cgroup2_mount)$CG_A")
	cghex=$(printf '%016x' "$cgid" | sed -E 's/(..)(..)(..)(..)(..)(..)(..)(..)/\8 \7 \6 \5 \4 \3 \2 \1/')
	grep -qw -- "$cgid" "$WORK/maps.flat" || grep -qi -- "$cghex" "$WORK/maps.flat" ||
		{ fail "positive control: pod A's cgroup id $cgid ($cghex) not found in the maps"; return 1; }
	local s hex
	for s in ns-privacy-marker web-7d9f8c6b5-x2x9q label-privacy-marker svc-privacy-marker; do
		hex=$(printf '%s' "$s" | od -An -tx1 | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
		if grep -qF -- "$s" "$WORK/maps.flat" || grep -qi -- "$hex" "$WORK/maps.flat"; then
			fail "Kubernetes string '$s' found in a kernel map"
			return 1
		fi
	done
	stop_agent
	expect_eq "agent exit" "$STOP_RC" 0
}

# Pod churn: a label selector admits pod A; its label flips while A keeps
# exec'ing.  Every captured signal must carry the label that admitted it:
# filter and attribution never disagree.
case_churn_agreement() {
	require_root || return
	start_fake || return 1
	seed_cluster || { fail "cannot seed the fake cluster"; return 1; }
	"$HELPERS/cgrun" -p -m "$CG_A" -- /bin/true >/dev/null || { fail "cgroups"; return 1; }
	k8s_config "label:app=web"
	start_agent "$WORK/cfg.yaml" || return 1
	wait_synced || return 1
	sleep 0.3
	"$HELPERS/cgrun" -p -n 600 "$CG_A" -- "$EXE" 0 >"$WORK/churn.out" &
	local runner=$!
	local i
	for i in 1 2 3 4 5 6; do
		sleep 0.15
		local app=api
		((i % 2 == 0)) && app=web
		control "{\"cmd\":\"modify\",\"kind\":\"pods\",\"object\":$(pod_json $UID_A ns-privacy-marker web-7d9f8c6b5-x2x9q $app)}" ||
			{ fail "modify failed"; return 1; }
	done
	wait $runner
	sleep 0.5
	stop_agent
	local total bad
	total=$(jq -c "select(.kind == \"process.exec\" and .k8s.pod_uid == \"$UID_A\")" "$WORK/signals.ndjson" | wc -l)
	bad=$(jq -c "select(.kind == \"process.exec\" and .k8s.pod_uid == \"$UID_A\" and .k8s.labels.app != \"web\")" "$WORK/signals.ndjson" | wc -l)
	echo "    churn: $total execs of pod A captured across 6 label flips; $bad disagree" >&2
	[ "$total" -gt 0 ] && [ "$total" -lt 600 ] ||
		{ fail "captured $total of 600: the flips did not take effect"; return 1; }
	expect_eq "captured signals attributed with a label that would deny them" "$bad" 0
}

cleanup_k8s() { stop_fake; }
trap 'cleanup_k8s; cleanup' EXIT

run_case "pod attribution from the controller; namespace selector; no name in any map" case_attribution_and_namespace_selector
stop_fake
run_case "pod churn: filter and attribution never disagree" case_churn_agreement
stop_fake
finish
