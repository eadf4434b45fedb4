# What leaves the node: a tenant's secrets in its command line and in the
# paths it requests are not written out (docs/signals.md, "Secrets in argv",
# and span.path).  Sourced by test_hostile_tenant.sh.

PRIVACY_HTTP_PORT=$((TEST_PORT + 1))
PRIVACY_NGINX_PID=

privacy_nginx() {
	command -v nginx >/dev/null || { fail "nginx missing (scripts/deps.sh test)"; return 1; }
	mkdir -p "$WORK/pwww/users" "$WORK/plogs"
	cat >"$WORK/pnginx.conf" <<CONF
daemon off;
master_process off;
user root;
pid $WORK/pnginx.pid;
error_log $WORK/plogs/error.log;
events { worker_connections 16; }
http {
	access_log off;
	server {
		listen 127.0.0.1:$PRIVACY_HTTP_PORT;
		root $WORK/pwww;
	}
}
CONF
	nginx -c "$WORK/pnginx.conf" -e "$WORK/plogs/error.log" &
	PRIVACY_NGINX_PID=$!
	local i
	for ((i = 0; i < 50; i++)); do
		curl -s -o /dev/null "http://127.0.0.1:$PRIVACY_HTTP_PORT/" && return 0
		sleep 0.1
	done
	fail "nginx did not start: $(tail -3 "$WORK/plogs/error.log")"
}

privacy_stop_nginx() {
	[ -n "$PRIVACY_NGINX_PID" ] && kill "$PRIVACY_NGINX_PID" 2>/dev/null && wait "$PRIVACY_NGINX_PID" 2>/dev/null
	PRIVACY_NGINX_PID=
}

# The tenant runs a program with --password on its command line and a
# variable-style secret, and requests a path with an e-mail address and a
# token in it: the exec and the spans are exported, the secrets are not.
case_privacy_argv_and_path() {
	require_root || return
	privacy_nginx || return 1
	l7_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || { privacy_stop_nginx; return 1; }
	# Secrets of this run only: other tests on the node may use the usual ones.
	local pw=hunter2-$RANDOM$RANDOM tok=tok3n$RANDOM$RANDOM mail=alice$RANDOM@example.com
	local token
	token=Zm9vYmFy$(printf "%05d%05d" $RANDOM $RANDOM)
	# setpriv itself, not a subshell: $! is then the pid that execs.
	setpriv --reuid=$TENANT_UID --regid=$TENANT_UID --clear-groups --inh-caps=-all -- \
		/bin/true --password "$pw" "DB_TOKEN=$tok" &
	local tpid=$!
	wait $tpid
	setpriv --reuid=$TENANT_UID --regid=$TENANT_UID --clear-groups --inh-caps=-all -- \
		curl -s -o /dev/null "http://127.0.0.1:$PRIVACY_HTTP_PORT/users/$mail/reset/$token" &
	local cpid=$!
	wait $cpid
	local e s sv='.kind == "span" and .process.pid == '$PRIVACY_NGINX_PID
	e=$(wait_for_line ".kind == \"process.exec\" and .process.pid == $tpid and .process.comm == \"true\"") ||
		{ fail "no exec signal for the tenant's program"; privacy_stop_nginx; return 1; }
	s=$(wait_for_line "$sv and (.span.path | startswith(\"/users/\"))") ||
		{ fail "no server span for the tenant's request"; privacy_stop_nginx; return 1; }
	wait_for_line ".kind == \"span\" and .process.pid == $cpid" >/dev/null ||
		{ fail "no client span for the tenant's request"; privacy_stop_nginx; return 1; }
	privacy_stop_nginx
	sleep 0.5
	# Every check runs, so a failure names each secret that got out.
	local rc=0 secret
	[ "$(metric enav_exec_argv_redacted_total)" -ge 2 ] 2>/dev/null ||
		{ fail "redactions not counted: $(metric enav_exec_argv_redacted_total)"; rc=1; }
	# Stopped first: the agent would see the secrets in grep's own argv.
	stop_agent
	expect_eq "argv as exported" "$(jq -c .process.argv <<<"$e")" \
		'["/bin/true","--password","<redacted>","DB_TOKEN=<redacted>"]' || rc=1
	expect_eq "server span path" "$(jq -r .span.path <<<"$s")" "/users/{id}/reset/{id}" || rc=1
	for secret in "$pw" "$tok" "$mail" "${mail/@/%40}" "$token"; do
		! grep -qF "$secret" "$WORK/signals.ndjson" ||
			{ fail "'$secret' left the node ($(grep -cF "$secret" "$WORK/signals.ndjson") lines)"; rc=1; }
	done
	return $rc
}

run_case "hostile: a tenant's password in argv and e-mail in a URL path stay on the node" case_privacy_argv_and_path
privacy_stop_nginx
