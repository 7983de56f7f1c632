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
WORK=${BENCH_WORK:-$ROOT/build/bench-validate}
. "$HERE/../ajv.sh"
ensure_ajv bench/validate || exit 0
mkdir -p "$WORK"
node "$HERE/gen.js" "$WORK" "${BENCH_SCALE:-1}"

now() { date +%s.%N; }
ROUNDS=${BENCH_ROUNDS:-5}
: > "$WORK/empty.jsonl"
printf '%-8s %8s %14s %14s %8s %12s\n' workload lines gauntlet/s ajv/s ratio "loop-only"
for w in small nested large; do
    schema="$WORK/$w.schema.json"; data="$WORK/$w.jsonl"
    lines=$(wc -l < "$data" | tr -d ' ')
    g=""; a_best=""; a=""; s0=""
    # best of ROUNDS for each side, rounds interleaved, so a noisy moment on a
    # 2-core machine does not decide the ratio
    for round in $(seq "$ROUNDS"); do
        t0=$(now)
        out=$("$GAUNTLET" validate --schema "$schema" --jsonl "$data" | head -n 1)
        t1=$(now)
        g=$(echo "$t1 $t0 ${g:-1e9}" | awk '{ d = $1 - $2; printf "%.4f", (d < $3 ? d : $3) }')
        t0=$(now)
        "$GAUNTLET" validate --schema "$schema" --jsonl "$WORK/empty.jsonl" >/dev/null
        t1=$(now)
        s0=$(echo "$t1 $t0 ${s0:-1e9}" | awk '{ d = $1 - $2; printf "%.4f", (d < $3 ? d : $3) }')
        run=$(node "$HERE/ajv-run.js" "$schema" "$data" "$NODE_DIR")
        secs=$(echo "$run" | awk '{ print $3 }')
        if [ -z "$a_best" ] || [ "$(echo "$secs $a_best" | awk '{ print ($1 < $2) }')" = 1 ]; then
            a_best=$secs; a=$run
        fi
    done
    echo "$w" "$lines" "$g" "$(echo "$a" | awk '{ print $3, $5 }')" "$out" "$s0" | awk '{
        gl = $2 / $3; al = $2 / $4; loop = $3 - $10; if (loop <= 0) loop = 1e-6;
        printf "%-8s %8d %14.0f %14.0f %7.2fx %11.2fx   (valid: gauntlet %s, ajv %s)\n", $1, $2, gl, al, gl / al, ($2 / loop) / al, $6, $5 }'
done
echo "best of $ROUNDS rounds each, interleaved"
echo "ratio = gauntlet lines/s / ajv lines/s (gauntlet: whole process incl. start-up and compile; ajv: validation loop only)"
echo "loop-only = the same with gauntlet's start-up + compile (a run on an empty file) taken out, like ajv's figure"
echo "valid counts differ where ajv's floating-point multipleOf rejects exact decimals (19.99 multipleOf 0.01)"
