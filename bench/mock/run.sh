#!/bin/sh
# bench/mock/run.sh — the mock server's non-streaming endpoint vs nginx serving
# a static file of the same response body, in one run, loopback only (goal:
# >= 1.0x nginx's requests/s, the median of ROUNDS interleaved rounds each);
# then the server's memory after a million requests (no growth allowed).
# Without wrk or nginx (Debian wrk, nginx-light: sh scripts/deps bench) it
# prints one "skipped" line and exits 0.
#
# Bounded: each throughput run lasts BENCH_SECONDS (default 5 s); the
# million-request run stops at BENCH_MILLION requests or BENCH_MAX_SECONDS
# (default 90 s), whichever comes first. nginx runs from a private prefix
# and config in a temp dir on an ephemeral port and is stopped at the end.
# Picked up by scripts/bench.sh; standalone: BUILD=build sh bench/mock/run.sh
set -u
BUILD=${BUILD:-build}
[ -n "${BENCH_DEBUG:-}" ] && set -x
GAUNTLET=${GAUNTLET:-$BUILD/gauntlet}
SECONDS_RUN=${BENCH_SECONDS:-5}
MILLION=${BENCH_MILLION:-1000000}
MAX_SECONDS=${BENCH_MAX_SECONDS:-90}
THREADS=${BENCH_THREADS:-2}
ROUNDS=${BENCH_ROUNDS:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
command -v wrk >/dev/null || { echo "bench/mock: skipped: wrk is not installed (Debian package wrk)"; exit 0; }
[ -x "$NGINX" ] || { echo "bench/mock: skipped: nginx is not installed (Debian package nginx-light)"; exit 0; }
command -v curl >/dev/null || { echo "bench/mock: skipped: curl is not installed"; exit 0; }

tmp=$(mktemp -d)
chmod 755 "$tmp"   # nginx workers may run as another user
server_pid=""; nginx_started=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    [ -n "$nginx_started" ] && "$NGINX" -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -s stop 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

"$GAUNTLET" serve --host 127.0.0.1 --port 0 >"$tmp/url" 2>"$tmp/serve.log" &
server_pid=$!
for _ in $(seq 1 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
BASE=$(head -n 1 "$tmp/url")
[ -n "$BASE" ] || { cat "$tmp/serve.log"; echo "bench/mock: the server did not start"; exit 1; }
. "$(dirname "$0")/../median.sh"

REQUEST='{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"Why did the build fail?"}]}'
cat >"$tmp/post.lua" <<LUA
wrk.method = "POST"
wrk.body   = '$REQUEST'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["anthropic-version"] = "2023-06-01"
LUA

# nginx serves the mock's own response body as a static file (GET: nginx's
# static module does not take POST; the mock does strictly more work).
mkdir -p "$tmp/nginx/html" "$tmp/nginx/logs" "$tmp/nginx/tmp"
curl -s -X POST -H 'content-type: application/json' --data "$REQUEST" "$BASE/v1/messages" >"$tmp/nginx/html/message.json"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
cat >"$tmp/nginx/nginx.conf" <<CONF
worker_processes $THREADS;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/logs/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $tmp/nginx/tmp; proxy_temp_path $tmp/nginx/tmp; fastcgi_temp_path $tmp/nginx/tmp;
    uwsgi_temp_path $tmp/nginx/tmp; scgi_temp_path $tmp/nginx/tmp;
    default_type application/json;
    server {
        listen 127.0.0.1:$port;
        root $tmp/nginx/html;
    }
}
CONF
"$NGINX" -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/logs/error.log" || { echo "bench/mock: skipped: nginx did not start"; exit 0; }
nginx_started=1
NGINX_URL="http://127.0.0.1:$port/message.json"
for _ in $(seq 1 50); do curl -s -o /dev/null "$NGINX_URL" && break; sleep 0.1; done
mock_size=$(wc -c <"$tmp/nginx/html/message.json")
nginx_size=$(curl -s "$NGINX_URL" | wc -c)
[ "$mock_size" = "$nginx_size" ] || { echo "bench/mock: nginx body $nginx_size bytes, mock $mock_size"; exit 1; }

rps() { sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$1"; }
total() { sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$1"; }
wrk -t"$THREADS" -c"$CONNECTIONS" -d1s -s "$tmp/post.lua" "$BASE/v1/messages" >/dev/null   # warm-up
wrk -t"$THREADS" -c"$CONNECTIONS" -d1s "$NGINX_URL" >/dev/null   # warm-up
mock_all=""; nginx_all=""
for round in $(seq "$ROUNDS"); do
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SECONDS_RUN}s" -s "$tmp/post.lua" "$BASE/v1/messages" >"$tmp/mock.txt"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SECONDS_RUN}s" "$NGINX_URL" >"$tmp/nginx.txt"
    mock_all="$mock_all $(rps "$tmp/mock.txt")"; nginx_all="$nginx_all $(rps "$tmp/nginx.txt")"
done
# shellcheck disable=SC2086 # word splitting of the lists is intended
mock_rps=$(median $mock_all); nginx_rps=$(median $nginx_all)
nginx_version=$("$NGINX" -v 2>&1 | sed 's/^nginx version: //')
printf 'mock   POST /v1/messages (non-streaming, %s-byte body): %.0f requests/s\n' "$mock_size" "$mock_rps"
printf 'nginx  %s, GET of a static file with the same body:  %.0f requests/s\n' "$nginx_version" "$nginx_rps"
ratio=$(awk -v a="$mock_rps" -v b="$nginx_rps" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
echo "ratio  mock/nginx = $ratio (goal >= 1.00); median of $ROUNDS interleaved rounds of ${SECONDS_RUN}s; $THREADS wrk threads ($(wrk -v 2>&1 | head -n 1 | awk '{ print $1, $2 }')), $CONNECTIONS connections"

# Memory: RSS after the first ~10% of a million requests and after all of them.
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$server_pid/status"; }
hwm() { awk '/^VmHWM/ { print $2 }' "/proc/$server_pid/status"; }
rate=${mock_rps%.*}; [ "${rate:-0}" -gt 0 ] || rate=1000
first=$((MILLION / 10 / rate + 1))
rest=$((MILLION * 9 / 10 / rate + 1))
[ "$first" -le "$MAX_SECONDS" ] || first=$((MAX_SECONDS / 10 + 1))
[ $((first + rest)) -le "$MAX_SECONDS" ] || rest=$((MAX_SECONDS - first))
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${first}s" -s "$tmp/post.lua" "$BASE/v1/messages" >"$tmp/m1.txt"
rss_early=$(rss)
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${rest}s" -s "$tmp/post.lua" "$BASE/v1/messages" >"$tmp/m2.txt"
rss_late=$(rss); peak=$(hwm)
served=$(curl -s "$BASE/_gauntlet/health" | sed -n 's/.*"requests":\([0-9]*\).*/\1/p')
echo "memory after $(total "$tmp/m1.txt") requests: RSS $rss_early kB; after $served requests in all: RSS $rss_late kB, peak $peak kB"
growth=$(awk -v a="$rss_early" -v b="$rss_late" 'BEGIN { printf "%.1f", (a > 0 ? (b - a) * 100.0 / a : 0) }')
echo "growth $growth% between the two samples (the journal keeps a bounded ring)"
# The target is reported, not enforced: loopback numbers on a shared machine are noisy.
awk -v r="$ratio" 'BEGIN { exit !(r >= 1.0) }' || echo "bench/mock: below the 1.0x goal"
exit 0
