#!/bin/sh
# run.sh — one-shot start-up: what the dynamic loader maps for the gauntlet
# binary (libcurl and libmicrohttpd must not be among them: runner/cli/lazy_net.c
# loads them on first HTTP use), and one `gauntlet validate` of one document
# against node + ajv doing the same (require, compile, validate). Each side:
# best of ROUNDS interleaved rounds of RUNS runs, ms per run. Never fails on
# the ratio; fails when the binary links an HTTP library.
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

# ms per run of "$@", best of the rounds so far ($best_ms holds the previous best)
best_of() {
    t0=$(date +%s%N); i=0
    while [ "$i" -lt "$RUNS" ]; do "$@" >/dev/null 2>&1; i=$((i + 1)); done
    t1=$(date +%s%N)
    echo "$t0 $t1 $RUNS ${best_ms:-1e9}" | awk '{ d = ($2 - $1) / 1e6 / $3; printf "%.2f", (d < $4 ? d : $4) }'
}
. "$HERE/../ajv.sh"
have_ajv=0
ensure_ajv bench/startup && have_ajv=1
g_ms=""; a_ms=""
for round in $(seq "$ROUNDS"); do
    best_ms=$g_ms; g_ms=$(best_of "$GAUNTLET" validate --schema "$WORK/schema.json" "$WORK/doc.json")
    if [ "$have_ajv" = 1 ]; then
        best_ms=$a_ms; a_ms=$(best_of node "$HERE/ajv-once.js" "$WORK/schema.json" "$WORK/doc.json" "$NODE_DIR")
    fi
done
echo "gauntlet validate, one document: $g_ms ms per process"
if [ "$have_ajv" = 1 ]; then
    ajv_version=$(node -e "console.log(require('$NODE_DIR/node_modules/ajv/package.json').version)")
    echo "node $(node --version) + ajv $ajv_version (require, compile, validate): $a_ms ms per process"
    echo "$a_ms $g_ms" | awk '{ printf "ratio: %.1fx faster than node+ajv (goal >= 20x)\n", $1 / $2 }'
fi
echo "best of $ROUNDS interleaved rounds of $RUNS runs each"
