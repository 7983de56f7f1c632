#!/bin/sh
# run.sh — `gauntlet validate --jsonl` against ajv (Ajv2020, allErrors: true,
# JSON.parse + validate per line) on three generated workloads: a small flat
# triage schema, a nested schema ($ref/anyOf/pattern/multipleOf), and 100 KB+
# documents. Prints lines/s for both and the ratio; never fails on the ratio.
# ajv is installed with npm into bench/node/ (git-ignored). Needs node.
set -u
GAUNTLET=${GAUNTLET:-build/gauntlet}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
NODE_DIR="$ROOT/bench/node"
WORK=${BENCH_WORK:-$ROOT/build/bench-validate}

if ! command -v node >/dev/null 2>&1; then
    echo "bench/validate: skipped: node is not installed (needed for the workloads and the ajv peer)"
    exit 0
fi
if [ ! -d "$NODE_DIR/node_modules/ajv" ]; then
    echo "bench/validate: installing ajv into bench/node/"
    npm install --silent --no-audit --no-fund --prefix "$NODE_DIR" ajv@^8 >/dev/null 2>&1 || {
        echo "bench/validate: skipped: npm install ajv failed"; exit 0; }
fi
mkdir -p "$WORK"
node "$HERE/gen.js" "$WORK" "${BENCH_SCALE:-1}"

now() { date +%s.%N; }
printf '%-8s %8s %14s %14s %8s\n' workload lines gauntlet/s ajv/s ratio
for w in small nested large; do
    schema="$WORK/$w.schema.json"; data="$WORK/$w.jsonl"
    lines=$(wc -l < "$data" | tr -d ' ')
    t0=$(now)
    out=$("$GAUNTLET" validate --schema "$schema" --jsonl "$data" | head -n 1)
    t1=$(now)
    g=$(echo "$t1 $t0" | awk '{ printf "%.4f", $1 - $2 }')
    a=$(node "$HERE/ajv-run.js" "$schema" "$data" "$NODE_DIR")
    echo "$w" "$lines" "$g" "$(echo "$a" | awk '{ print $3, $5 }')" "$out" | awk '{
        gl = $2 / $3; al = $2 / $4;
        printf "%-8s %8d %14.0f %14.0f %7.2fx   (valid: gauntlet %s, ajv %s)\n", $1, $2, gl, al, gl / al, $6, $5 }'
done
echo "ratio = gauntlet lines/s / ajv lines/s (gauntlet: whole process incl. start-up and compile; ajv: validation loop only)"
echo "valid counts differ where ajv's floating-point multipleOf rejects exact decimals (19.99 multipleOf 0.01)"
