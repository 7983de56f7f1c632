#!/bin/sh
# scripts/record-latency.sh [RUNS]: the latency `gauntlet record` adds to a
# streamed answer (docs/record.md, "Latency"). Starts `gauntlet serve
# --corpus suite/data/mock` as the upstream and `gauntlet record` in front of
# it, both on loopback, then asks for the streamed `ok-stream` answer RUNS
# times (default 40) directly and through the recorder, alternating, and the
# dripped `slow-drip` answer (64 bytes every 20 ms) RUNS times each way;
# prints the median and p90 of curl's time to first byte and total time, in
# ms. Run from the repository root after `make`; needs curl and python3.
# Exit 1 when a server does not start or a request fails.
set -u
GAUNTLET=${GAUNTLET:-build/gauntlet}
RUNS=${1:-40}
tmp=$(mktemp -d)
up=; rec=
trap 'kill $up $rec 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
"$GAUNTLET" serve --corpus suite/data/mock >"$tmp/up.url" 2>"$tmp/up.log" & up=$!
for _ in $(seq 1 100); do [ -s "$tmp/up.url" ] && break; sleep 0.1; done
UP=$(head -n 1 "$tmp/up.url")
[ -n "$UP" ] || { cat "$tmp/up.log"; echo "record-latency: the mock did not start"; exit 1; }
"$GAUNTLET" record --upstream "$UP" --out "$tmp/rec" >"$tmp/rec.url" 2>"$tmp/rec.log" & rec=$!
for _ in $(seq 1 100); do [ -s "$tmp/rec.url" ] && break; sleep 0.1; done
REC=$(head -n 1 "$tmp/rec.url")
[ -n "$REC" ] || { cat "$tmp/rec.log"; echo "record-latency: the recorder did not start"; exit 1; }
body='{"model":"m","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]}'
# one request: "FIRST_BYTE_S TOTAL_S" on stdout, a failed or short answer fails the script
one() { # one BASE SCENARIO RUN
    curl -sS -o "$tmp/body" -w '%{time_starttransfer} %{time_total}\n' -H 'content-type: application/json' \
        -d "$body" "$1/s/$2/$3/v1/messages" || exit 1
    grep -q 'message_stop' "$tmp/body" || { echo "record-latency: $1/s/$2/$3: no message_stop" >&2; exit 1; }
}
runs() { # runs SCENARIO COUNT
    i=1
    while [ "$i" -le "$2" ]; do
        one "$UP" "$1" "d$i" >>"$tmp/$1.direct"
        one "$REC" "$1" "r$i" >>"$tmp/$1.proxy"
        i=$((i + 1))
    done
}
runs ok-stream "$RUNS"
runs slow-drip "$RUNS"
python3 - "$tmp" <<'EOF'
import statistics, sys
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]
for scenario in ("ok-stream", "slow-drip"):
    for way in ("direct", "proxy"):
        rows = [tuple(float(x) * 1e3 for x in line.split()) for line in open(f"{sys.argv[1]}/{scenario}.{way}")]
        first, total = [r[0] for r in rows], [r[1] for r in rows]
        print(f"{scenario:9} {way:6} n={len(rows):3}  first byte median {statistics.median(first):7.2f} ms"
              f" p90 {pct(first, 90):7.2f}  total median {statistics.median(total):7.2f} ms p90 {pct(total, 90):7.2f}")
EOF
