# Sourced by tests/integration/test_hostile_tenant.sh (lib.sh, as_tenant).
#
# Defended input: the request paths a tenant sends to a server on the node,
# which become the http_route label of the request metrics.  Issue 31 saw
# 1,500 HTTP/1.1 requests with distinct paths of three 60-letter lowercase
# segments turn /metrics into a 500 of 39 bytes until restart: the segments
# stayed in the route template, every label set lived for ever and the
# exposition had a fixed 1 MiB buffer.  The case floods as the tenant and
# asserts /metrics still answers 200 with the node's metrics, the flooded
# family has its overflow series, and the answer stays under a size computed
# from the per-family cap.

FLOOD_HTTP_PORT=${FLOOD_HTTP_PORT:-$((TEST_PORT + 1))}
FLOOD_NGINX_PID=

flood_start_nginx() {
	command -v nginx >/dev/null || { fail "nginx missing (scripts/deps.sh test)"; return 1; }
	mkdir -p "$WORK/flood/www" "$WORK/flood/logs"
	cat >"$WORK/flood/nginx.conf" <<CONF
daemon off;
master_process off;
user root;
pid $WORK/flood/nginx.pid;
error_log $WORK/flood/logs/error.log;
events { worker_connections 64; }
http {
	access_log off;
	keepalive_requests 100000;
	server {
		listen 127.0.0.1:$FLOOD_HTTP_PORT;
		location / { return 404; }
	}
}
CONF
	nginx -c "$WORK/flood/nginx.conf" -e "$WORK/flood/logs/error.log" &
	FLOOD_NGINX_PID=$!
	local i
	for ((i = 0; i < 50; i++)); do
		curl -s -o /dev/null "http://127.0.0.1:$FLOOD_HTTP_PORT/" && return 0
		sleep 0.1
	done
	fail "nginx did not start: $(tail -3 "$WORK/flood/logs/error.log")"
}

flood_stop_nginx() {
	[ -n "$FLOOD_NGINX_PID" ] && kill "$FLOOD_NGINX_PID" 2>/dev/null && wait "$FLOOD_NGINX_PID" 2>/dev/null
	FLOOD_NGINX_PID=
}

# flood_urls KIND N SEED: a curl config of N requests on one connection.
#   letters60  three segments of 60 random lowercase letters (the issue's flood)
#   words      three digit-free random lowercase words of 12 to 32 letters
#   routes     /catalog/<three syllables>/items: pronounceable words a route
#              template keeps, so each is a label set of its own
flood_urls() {
	awk -v kind="$1" -v n="$2" -v seed="$3" -v port="$FLOOD_HTTP_PORT" '
	function rnd(k) { return int(rand() * k) }
	function syl(k) { return substr(cons, k % 14 + 1, 1) substr(vow, int(k / 14) + 1, 1) }
	function letters(len,   s, i) { s = ""; for (i = 0; i < len; i++) s = s substr(abc, rnd(26) + 1, 1); return s }
	BEGIN {
		srand(seed); abc = "abcdefghijklmnopqrstuvwxyz"
		cons = "bdfgklmnprstvz"; vow = "aeiou"
		for (r = 0; r < n; r++) {
			if (kind == "letters60")
				p = "/" letters(60) "/" letters(60) "/" letters(60)
			else if (kind == "words")
				p = "/" letters(12 + rnd(21)) "/" letters(12 + rnd(21)) "/" letters(12 + rnd(21))
			else
				p = "/catalog/" syl(r % 70) syl(int(r / 70) % 70) "ro/items"
			printf "url = \"http://127.0.0.1:%d%s\"\noutput = \"/dev/null\"\n", port, p
		}
	}'
}

# The /metrics answer into FILE; prints the HTTP status.
flood_scrape() {
	curl -s -m 20 -o "$1" -w '%{http_code}' "http://127.0.0.1:$TEST_PORT/metrics"
}

case_metrics_path_flood() {
	require_root || return
	flood_start_nginx || return 1
	local max_series=500
	write_config "$WORK/flood/cfg.yaml" "profiling:" "  enabled: false" \
		"security:" "  enabled: false"
	start_agent "$WORK/flood/cfg.yaml" || { flood_stop_nginx; return 1; }
	local rc=0 code base_bytes
	code=$(flood_scrape "$WORK/flood/before.prom")
	base_bytes=$(stat -c %s "$WORK/flood/before.prom")
	[ "$code" = 200 ] || { fail "/metrics before the flood: $code"; rc=1; }

	# The tenant's three floods, each one curl on one keep-alive connection.
	flood_urls letters60 1500 31 >"$WORK/flood/letters60.cfg"
	flood_urls words 1500 32 >"$WORK/flood/words.cfg"
	flood_urls routes 3000 33 >"$WORK/flood/routes.cfg"
	chmod 644 "$WORK"/flood/*.cfg
	chmod 755 "$WORK/flood"
	local t0 t1 f
	t0=$(date +%s)
	for f in letters60 words routes; do
		as_tenant curl -s -K "$WORK/flood/$f.cfg" || { fail "tenant curl ($f) failed"; rc=1; }
	done
	t1=$(date +%s)
	echo "    flood: 6000 requests in $((t1 - t0)) s" >&2

	# Spans reach the metrics asynchronously: wait for the overflow series.
	local i ovf='http_server_request_duration_seconds_count{http_request_method="_overflow"'
	for ((i = 0; i < $(scaled 100); i++)); do
		code=$(flood_scrape "$WORK/flood/after.prom")
		[ "$code" = 200 ] && grep -qF "$ovf" "$WORK/flood/after.prom" && break
		sleep 0.1
	done
	local bytes
	bytes=$(stat -c %s "$WORK/flood/after.prom" 2>/dev/null || echo 0)
	echo "    /metrics: $code, $bytes bytes (before the flood: $base_bytes)" >&2
	expect_eq "/metrics status after the flood" "$code" 200 || rc=1
	# The node's metrics are all still there, not only the request metrics.
	local m
	# (enav_host_cgroups_reported: the cgroup collector, at its default scope.)
	for m in enav_build_info enav_uptime_seconds node_load1 node_memory_MemTotal_bytes \
		enav_host_cgroups_reported enav_l7_series_overflow_total; do
		grep -q "^$m[{ ]" "$WORK/flood/after.prom" || { fail "$m missing after the flood"; rc=1; }
	done
	# The issue's flood collapses to one templated route.
	grep -qF 'http_route="/{id}/{id}/{id}"' "$WORK/flood/after.prom" ||
		{ fail "60-letter segments were not templated to {id}"; rc=1; }
	grep -qF "$ovf" "$WORK/flood/after.prom" ||
		{ fail "no _overflow series in the server family"; rc=1; }
	# At most max_series label sets in each of the two flooded families
	# (nginx's server side, curl's client side) plus the overflow series.
	local fam n
	for fam in http_server_request_duration_seconds http_client_request_duration_seconds; do
		n=$(grep -c "^${fam}_count{" "$WORK/flood/after.prom")
		[ "$n" -le $((max_series + 1)) ] || { fail "$fam: $n label sets (cap $max_series + 1)"; rc=1; }
	done
	# Size bound from the caps: the text before the flood, plus two families of
	# max_series + 1 label sets of 17 lines, each at most 400 bytes with these
	# labels (a route of at most 127 bytes, method, status, protocol, workload).
	local bound=$((base_bytes + 65536 + 2 * (max_series + 1) * 17 * 400))
	[ "$bytes" -le "$bound" ] || { fail "/metrics is $bytes bytes, over the $bound the caps allow"; rc=1; }
	expect_eq "scrapes at the hard cap" "$(metric enav_metrics_render_overflows_total)" 0 || rc=1
	# Whole families only: Prometheus' own parser takes the text (3 = lint
	# warnings only, as test_network.sh allows).
	if command -v promtool >/dev/null; then
		promtool check metrics <"$WORK/flood/after.prom" >/dev/null 2>&1
		local prc=$?
		[ $prc -eq 0 ] || [ $prc -eq 3 ] || { fail "promtool rejects /metrics after the flood"; rc=1; }
	fi
	flood_stop_nginx
	return $rc
}

# Edge totals (enav_network_edge_*{client,server}) are capped by max_edges
# with an __overflow__ edge; a tenant that connects to many addresses once
# filled them for good, and every later edge of the node went to
# __overflow__.  Idle totals now expire (sources.network.edge_idle_s).
case_edge_flood_expires() {
	require_root || return
	flood_start_nginx || return 1
	write_config "$WORK/flood/cfg.yaml" "profiling:" "  enabled: false" \
		"security:" "  enabled: false" "host:" "  enabled: false" \
		"sources:" "  network:" "    max_edges: 64" "    edge_idle_s: 10" \
		"    edge_interval_ms: 1000" "    l7:" "      enabled: false"
	start_agent "$WORK/flood/cfg.yaml" || { flood_stop_nginx; return 1; }
	local rc=0 i
	# The tenant: 200 distinct loopback addresses (refused: nothing listens
	# there), each a client -> server edge of its own.
	for ((i = 2; i < 202; i++)); do
		echo "url = \"http://127.0.$((i / 250)).$((i % 250 + 2)):$FLOOD_HTTP_PORT/\""
		echo 'output = "/dev/null"'
	done >"$WORK/flood/edges.cfg"
	chmod 755 "$WORK/flood"
	chmod 644 "$WORK/flood/edges.cfg"
	as_tenant curl -s --connect-timeout 1 -K "$WORK/flood/edges.cfg"
	local ovf='enav_cardinality_overflow_total{metric="enav_network_edge"}'
	for ((i = 0; i < $(scaled 50); i++)); do
		[ "$(metric "$ovf")" -gt 0 ] 2>/dev/null && break
		sleep 0.1
	done
	[ "$(metric "$ovf")" -gt 0 ] 2>/dev/null || { fail "the tenant's edges did not reach max_edges"; rc=1; }
	# Idle for edge_idle_s (10 s), then a new edge of the node: it has a
	# label set of its own again, and the tenant's are gone.
	sleep 12
	curl -s -o /dev/null "http://127.0.0.1:$FLOOD_HTTP_PORT/" || { fail "curl to nginx"; rc=1; }
	local body=
	for ((i = 0; i < $(scaled 50); i++)); do
		body=$(http_get "http://127.0.0.1:$TEST_PORT/metrics")
		grep -q "^enav_network_edge_connections_total{client=\"process:curl\",server=\"127.0.0.1\",server_port=\"$FLOOD_HTTP_PORT\"} 1" <<<"$body" && break
		sleep 0.1
	done
	grep -q "^enav_network_edge_connections_total{client=\"process:curl\",server=\"127.0.0.1\",server_port=\"$FLOOD_HTTP_PORT\"} 1" <<<"$body" ||
		{ fail "a new edge after the flood went uncounted (no label set of its own)"; rc=1; }
	local held
	held=$(grep -cE '^enav_network_edge_connections_total\{client="[^"]*",server="127\.0\.(0\.([2-9]|[0-9]{2,3})|1\.[0-9]+)"' <<<"$body")
	expect_eq "the tenant's idle edges still held" "$held" 0 || rc=1
	local exp
	exp=$(awk '$1 == "enav_network_edges_expired_total" { print $2 }' <<<"$body")
	[ "${exp:-0}" -ge 60 ] 2>/dev/null || { fail "expired edge totals: '${exp:-absent}', want >= 60"; rc=1; }
	flood_stop_nginx
	return $rc
}

# The node and cgroup block of /metrics was rendered into a fixed 768 KiB:
# some hundreds of cgroups with long names overflowed it, and the node's
# metrics went with the cgroups' (enav_host_renders_total{outcome=
# "overflow"}).  A tenant with a delegated cgroup subtree (a systemd user
# session, a container with its own cgroup namespace) makes as many as it
# likes.  The block now grows up to a cap sized from host.max_cgroups.
case_cgroup_flood() {
	require_root || return
	local top rel="enav-hostile-$$" i name
	top=$(make_cgroup "$rel") || { skip "no cgroup2 mount"; return; }
	cgrun_tree "/$rel"
	chown 65534:65534 "$top"
	# Names of 200 characters: the label values a tenant picks.
	name=$(printf 'tenant%.0s' {1..33})
	as_tenant bash -c "for ((i = 0; i < 400; i++)); do mkdir '$top'/$name\$i || exit 1; done" ||
		{ fail "the tenant could not create its cgroups"; return 1; }
	mkdir -p "$WORK/flood"
	write_config "$WORK/flood/cfg.yaml" "profiling:" "  enabled: false" \
		"security:" "  enabled: false" "host:" "  cgroups: all"
	start_agent "$WORK/flood/cfg.yaml" || return 1
	local rc=0 code n=0
	for ((i = 0; i < $(scaled 50); i++)); do
		code=$(flood_scrape "$WORK/flood/cg.prom")
		n=$(grep -c "^container_cpu_usage_seconds_total{cgroup=\"/$rel/" "$WORK/flood/cg.prom")
		[ "$n" -ge 400 ] && break
		sleep 0.2
	done
	echo "    /metrics: $code, $(stat -c %s "$WORK/flood/cg.prom") bytes, $n of the tenant's cgroups" >&2
	expect_eq "/metrics status" "$code" 200 || rc=1
	expect_eq "the tenant's cgroups reported" "$n" 400 || rc=1
	local m
	for m in node_load1 node_memory_MemTotal_bytes enav_host_cgroups_reported; do
		grep -q "^$m[{ ]" "$WORK/flood/cg.prom" || { fail "$m missing"; rc=1; }
	done
	expect_eq "host collections that overflowed" \
		"$(awk '$1 == "enav_host_renders_total{outcome=\"overflow\"}" { print $2 }' "$WORK/flood/cg.prom")" 0 || rc=1
	return $rc
}

run_case "a tenant's path flood leaves /metrics answering 200 with the node's metrics" case_metrics_path_flood
run_case "a tenant's edge flood expires: later edges get label sets again" case_edge_flood_expires
run_case "a tenant's 400 long-named cgroups leave the node's metrics on /metrics" case_cgroup_flood
