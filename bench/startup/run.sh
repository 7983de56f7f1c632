#!/bin/sh
# run.sh — one-shot start-up: what the dynamic loader maps for the gauntlet
# binary (libcurl and libmicrohttpd must not be among them: platform/lazy_net.c
# loads them on first HTTP use), and one `gauntlet validate` of one document
# against node + ajv doing the same (require, compile, validate). Each side:
# the median of ROUNDS interleaved rounds of RUNS runs, ms per run. Goal: >= 20x
# node+ajv. Never fails on the ratio; fails when the binary links an HTTP
# library. Without node, the node+ajv side prints one "skipped" line.
set -u
GAUNTLET=${GAUNTLET:-build/gauntlet}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${BENCH_WORK:-$ROOT/build/bench-startup}
ROUNDS=${BENCH_ROUNDS:-5}
RUNS=${BENCH_RUNS:-20}
mkdir -p "$WORK"
printf '%s\n' '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["label","score"],"properties":{"label":{"enum":["bug","feature","question"]},"score":{"type":"number","minimum":0,"maximum":1},"tags":{"type":"array","items":{"type":"string","maxLength":32}}}}' > "$WORK/schema.json"
printf '%s\n' '{"label":"bug","score":0.92,"tags":["crash","parser"]}' > "$WORK/doc.json"

libs=$(LD_TRACE_LOADED_OBJECTS=1 "$GAUNTLET" | awk '{ print $1 }')
echo "shared objects mapped at start-up: $(echo "$libs" | wc -l) ($(echo "$libs" | sed 's/\.so.*//' | tr '\n' ' '))"
if echo "$libs" | grep -q 'libcurl\|libmicrohttpd'; then
    echo "bench/startup: FAIL: $GAUNTLET links libcurl or libmicrohttpd"; exit 1
fi

# ms per run of "$@" over RUNS runs
ms_per_run() {
    t0=$(date +%s%N); i=0
    while [ "$i" -lt "$RUNS" ]; do "$@" >/dev/null 2>&1; i=$((i + 1)); done
    t1=$(date +%s%N)
    echo "$t0 $t1 $RUNS" | awk '{ printf "%.3f", ($2 - $1) / 1e6 / $3 }'
}
. "$HERE/../ajv.sh"
. "$HERE/../median.sh"
have_ajv=0
ensure_ajv bench/startup && have_ajv=1
g_all=""; a_all=""
for round in $(seq "$ROUNDS"); do
    g_all="$g_all $(ms_per_run "$GAUNTLET" validate --schema "$WORK/schema.json" "$WORK/doc.json")"
    if [ "$have_ajv" = 1 ]; then
        a_all="$a_all $(ms_per_run node "$HERE/ajv-once.js" "$WORK/schema.json" "$WORK/doc.json" "$NODE_DIR")"
    fi
done
# shellcheck disable=SC2086 # word splitting of the lists is intended
g_ms=$(median $g_all)
printf 'gauntlet validate, one document: %.2f ms per process\n' "$g_ms"
if [ "$have_ajv" = 1 ]; then
    # shellcheck disable=SC2086
    a_ms=$(median $a_all)
    printf 'node %s + ajv %s (require, compile, validate): %.2f ms per process\n' "$(node --version)" "$(ajv_version)" "$a_ms"
    echo "$a_ms $g_ms" | awk '{ printf "one-shot ratio: %.1fx faster than node+ajv (goal >= 20x)\n", $1 / $2 }'
fi
echo "median of $ROUNDS interleaved rounds of $RUNS runs each"
