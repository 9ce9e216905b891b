# Sourced by the bench scripts: tools from apt, and nginx serving a directory on 127.0.0.1.
#
#   source benches/lib/nginx-docs.sh
#   need_apt nginx /usr/sbin/nginx
#   serve_with_nginx "$WORK" "$DOCS" "$PORT" [access-log-path]   # sets NGINX_PID, SEED
#   (NGINX_AUTOINDEX=on: directories without an index.html answer with nginx's listing)
#   stop_nginx

SUDO=
[[ $EUID -eq 0 ]] || SUDO=sudo
apt_updated=0
need_apt() { # need_apt PACKAGE PATH-OR-COMMAND
    if [[ -x "$2" ]] || command -v "$2" >/dev/null 2>&1; then return; fi
    echo "installing $1 (apt)" >&2
    if [[ $apt_updated == 0 ]]; then $SUDO apt-get update -qq; apt_updated=1; fi
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
}

NGINX_PID=
# serve_with_nginx WORK ROOT PORT [ACCESS_LOG]: nginx (one worker, keep-alive, sendfile) serving
# ROOT at http://127.0.0.1:PORT/ until stop_nginx; ACCESS_LOG (optional) logs every request.
serve_with_nginx() {
    local work=$1 root=$2 port=$3 access=${4:-off}
    local nginx; nginx=$(command -v nginx || echo /usr/sbin/nginx)
    mkdir -p "$work/nginx/logs"
    local user_line=
    [[ $EUID -eq 0 ]] && user_line="user root;"   # the docs live under /root with rustup
    cat >"$work/nginx/nginx.conf" <<CONF
$user_line
daemon off;
master_process on;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log $access;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 60s;
    absolute_redirect off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    server {
        listen 127.0.0.1:$port;
        root $root;
        index index.html;
        autoindex ${NGINX_AUTOINDEX:-off};
    }
}
CONF
    "$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/logs/error.log" &
    NGINX_PID=$!
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        sleep 0.1
    done
    SEED=http://127.0.0.1:$port/
    echo "nginx $("$nginx" -v 2>&1 | sed 's/.*\///') serving $root at $SEED (pid $NGINX_PID)" >&2
}

stop_nginx() {
    if [[ -n "$NGINX_PID" ]]; then kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; fi
    NGINX_PID=
}
