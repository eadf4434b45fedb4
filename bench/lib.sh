# Shared by the benchmarks that serve a 4 KiB static file from nginx.
# Sourced, not executed.

# bench_nginx_site DIR LINE...: writes DIR/www/4k.bin (random bytes) and
# DIR/nginx.conf, a single-process nginx in the foreground with keep-alive
# connections that last, whose http block holds the given lines (server
# blocks, TLS settings).  Start it with: nginx -c DIR/nginx.conf &
bench_nginx_site() {
	local dir=$1 line
	shift
	mkdir -p "$dir/www"
	head -c 4096 /dev/urandom >"$dir/www/4k.bin"
	{
		cat <<CONF
daemon off;
master_process off;
user root;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log;
events { worker_connections 1024; }
http {
	access_log off;
	keepalive_requests 100000;
CONF
		for line in "$@"; do printf '\t%s\n' "$line"; done
		echo "}"
	} >"$dir/nginx.conf"
}
